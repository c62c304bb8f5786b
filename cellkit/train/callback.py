"""Callbacks: code that ``Model.train`` / ``eval`` / ``fit`` run at each stage -- MindSpore's callbacks.

A callback overrides any of ``on_train_begin``, ``on_train_epoch_begin``,
``on_train_step_begin``, ``on_train_step_end``, ``on_train_epoch_end``,
``on_train_end`` (and the ``on_eval_*`` twins).  Each receives a
:class:`RunContext`; ``run_context.original_args()`` holds what the model
knows (``cur_epoch_num``, ``cur_step_num``, ``batch_num``, ``net_outputs``,
``train_network``, ``optimizer`` ...) and ``run_context.request_stop()``
ends training after the current step.

>>> from cellkit.train import Callback
>>> class PrintSteps(Callback):
...     def on_train_step_end(self, run_context):
...         cb_params = run_context.original_args()
...         print("step", cb_params.cur_step_num)
"""
from __future__ import annotations

import time

import numpy as np

from ..tensor import Tensor

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "History", "LambdaCallback"]


class Callback:
    """Base class: every method does nothing (the old names ``step_end`` ... are called by the new ones).

    Callbacks are also context managers: ``Model`` enters them for the
    duration of a run.
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    # MindSpore's older names; the on_* methods call them by default.
    def begin(self, run_context):
        """Before the run (alias of ``on_train_begin`` / ``on_eval_begin``)."""

    def epoch_begin(self, run_context):
        """Before each epoch."""

    def epoch_end(self, run_context):
        """After each epoch."""

    def step_begin(self, run_context):
        """Before each step."""

    def step_end(self, run_context):
        """After each step."""

    def end(self, run_context):
        """After the run."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)


class _CallbackList(Callback):
    """Runs several callbacks in order (what ``Model`` holds)."""

    def __init__(self, callbacks):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        elif isinstance(callbacks, (list, tuple)):
            for cb in callbacks:
                if not isinstance(cb, Callback):
                    raise TypeError(
                        "When the 'callbacks' is a list, the elements in 'callbacks' must be Callback functions, "
                        f"but got {type(cb).__name__}."
                    )
            callbacks = list(callbacks)
        else:
            raise TypeError(f"The 'callbacks' is not a Callback or a list of Callback, but got {type(callbacks).__name__}.")
        self.callbacks = callbacks
        self._entered = []

    def __enter__(self):
        entered = []
        for cb in self.callbacks:
            target = cb.__enter__()
            entered.append(target if isinstance(target, Callback) else cb)
        self._entered = self.callbacks
        self.callbacks = entered
        return self

    def __exit__(self, *exc):
        for cb in reversed(self._entered):
            cb.__exit__(*exc)
        return None


def _fan_out(name):
    def method(self, run_context):
        for cb in self.callbacks:
            getattr(cb, name)(run_context)

    method.__name__ = name
    return method


for _name in ("on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
              "on_train_step_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_epoch_end",
              "on_eval_step_begin", "on_eval_step_end", "on_eval_end"):
    setattr(_CallbackList, _name, _fan_out(_name))


class _CallbackParams(dict):
    """A dict whose keys are also attributes (``cb_params.cur_step_num``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"the run context has no '{key}' (it holds {sorted(self)})") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback sees of the run: ``original_args()`` and ``request_stop()``.

    >>> from cellkit.train import RunContext
    >>> ctx = RunContext({"cur_step_num": 3})
    >>> ctx.original_args()["cur_step_num"], ctx.get_stop_requested()
    (3, False)
    >>> ctx.request_stop()
    >>> ctx.get_stop_requested()
    True
    """

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"The argument 'original_args' of RunContext should be dict type, but got {type(original_args)}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        """The model's information (a dict with attribute access when it comes from ``Model``)."""
        return self._original_args

    def request_stop(self):
        """Stop training after the current step."""
        self._stop_requested = True

    def get_stop_requested(self):
        """Whether a callback asked to stop."""
        return self._stop_requested


def _loss_value(outputs):
    """The loss as a Python float (the mean of a Tensor; the first Tensor of a tuple), as MindSpore prints it."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return outputs


class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (0: never).

    Raises ``ValueError`` and stops training if the loss becomes NaN or
    infinite; at the end of a ``fit`` epoch that evaluated, prints the metrics.

    >>> from cellkit.train import LossMonitor
    >>> LossMonitor(per_print_times=10)  # doctest: +ELLIPSIS
    <cellkit.train.callback.LossMonitor object at ...>
    """

    def __init__(self, per_print_times=1):
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"'per_print_times' must be an int >= 0, but got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_begin(self, run_context):
        self._last_print_time = 0

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        loss = _loss_value(cb_params.net_outputs)
        epoch = cb_params.get("cur_epoch_num", 1)
        batch_num = cb_params.get("batch_num") or cb_params.cur_step_num
        step_in_epoch = (cb_params.cur_step_num - 1) % batch_num + 1 if batch_num else cb_params.cur_step_num
        if isinstance(loss, (float, np.floating)) and (np.isnan(loss) or np.isinf(loss)):
            raise ValueError(
                f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process cannot continue, "
                "terminating training."
            )
        if self._per_print_times and cb_params.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}", flush=True)


class TimeMonitor(Callback):
    """Print each epoch's time and the mean time per step (``data_size`` steps, or the counted ones)."""

    def __init__(self, data_size=None):
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int) or data_size <= 0):
            raise ValueError(f"'data_size' must be a positive int or None, but got {data_size!r}")
        self.data_size = data_size
        self.epoch_time = None
        self._first_step = 0

    def on_train_epoch_begin(self, run_context):
        self.epoch_time = time.perf_counter()
        self._first_step = run_context.original_args().get("cur_step_num", 0)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        elapsed_ms = (time.perf_counter() - self.epoch_time) * 1000
        steps = self.data_size or max(cb_params.get("cur_step_num", 0) - self._first_step, 1)
        print(f"epoch time: {elapsed_ms:.3f} ms, per step time: {elapsed_ms / steps:.3f} ms", flush=True)


class History(Callback):
    """Record the network's output at the end of every epoch: ``history.epoch``, ``history.history``.

    ``history.history['net_output']`` holds the last step's loss of each epoch
    (floats); metrics evaluated by ``fit`` are recorded under their names.
    """

    def __init__(self):
        self.epoch = []
        self.history = {}

    def on_train_begin(self, run_context):
        self.epoch = []
        self.history = {}

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.epoch.append(cb_params.cur_epoch_num)
        output = cb_params.get("net_outputs")
        if output is not None:
            self.history.setdefault("net_output", []).append(_loss_value(output))
        for name, value in (cb_params.get("metrics") or {}).items():
            self.history.setdefault(name, []).append(value)


class LambdaCallback(Callback):
    """A callback from plain functions: ``LambdaCallback(on_train_step_end=lambda ctx: ...)``.

    >>> from cellkit.train import LambdaCallback
    >>> seen = []
    >>> cb = LambdaCallback(on_train_step_end=lambda ctx: seen.append(1))
    >>> cb.on_train_step_end(None); seen
    [1]
    """

    _NAMES = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
              "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
              "on_eval_step_end", "on_eval_epoch_end", "on_eval_end")

    def __init__(self, **functions):
        unknown = set(functions) - set(self._NAMES)
        if unknown:
            raise ValueError(f"LambdaCallback: unknown stages {sorted(unknown)}; use any of {list(self._NAMES)}")
        for name, fn in functions.items():
            if fn is not None and not callable(fn):
                raise TypeError(f"LambdaCallback: '{name}' must be callable, but got {type(fn).__name__}")
            if fn is not None:
                setattr(self, name, fn)
