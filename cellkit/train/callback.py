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
    """The loss as MindSpore's callbacks read it: a Tensor's mean as a float; of a tuple, the first Tensor as it is."""
    if isinstance(outputs, (tuple, list)):
        if outputs and isinstance(outputs[0], Tensor):
            return outputs[0]
        return outputs
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return outputs


def _check_non_negative_int(value, name, where):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{where}', the type of '{name}' must be int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For '{where}', '{name}' must be an int >= 0, but got {value}.")
    return value


def _check_bool(value, name, where):
    if not isinstance(value, bool):
        raise TypeError(f"For '{where}', the type of '{name}' must be bool, but got {type(value).__name__}.")
    return value


class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (0: never).

    ``S`` counts the steps within the epoch.  Raises ``ValueError`` (ending
    training) when the loss is NaN or infinite; at the end of a ``fit`` epoch
    that evaluated, prints ``Eval result: epoch E, metrics: {...}``.  For a
    network returning a tuple (a loss-scaling step returns ``(loss,
    overflow, scale)``) the first Tensor is printed as it is, as MindSpore
    prints it.

    Raises
    ------
    TypeError
        ``per_print_times`` not an int.
    ValueError
        ``per_print_times`` negative.

    >>> from cellkit.train import LossMonitor
    >>> LossMonitor(per_print_times=10)  # doctest: +ELLIPSIS
    <cellkit.train.callback.LossMonitor object at ...>
    """

    def __init__(self, per_print_times=1):
        self._per_print_times = _check_non_negative_int(per_print_times, "per_print_times", "LossMonitor")
        self._last_print_time = 0

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        loss = _loss_value(cb_params.net_outputs)
        batch_num = cb_params.get("batch_num") or cb_params.cur_step_num
        step_in_epoch = (cb_params.cur_step_num - 1) % batch_num + 1
        if isinstance(loss, float) and (np.isnan(loss) or np.isinf(loss)):
            raise ValueError(
                f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process cannot continue, "
                "terminating training."
            )
        every = self._per_print_times
        if every != 0 and cb_params.cur_step_num <= self._last_print_time:
            # a second train() on the same monitor starts counting again
            while cb_params.cur_step_num <= self._last_print_time:
                self._last_print_time -= max(every, batch_num if cb_params.get("dataset_sink_mode") else 1)
        if every != 0 and cb_params.cur_step_num - self._last_print_time >= every:
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}")


class TimeMonitor(Callback):
    """Print each epoch's time and the mean time per step: ``Train epoch time: T ms, per step time: S ms``.

    The steps are the dataset's ``batch_num`` (or ``data_size`` when the
    size is unknown).  In ``fit`` the evaluation is timed too (``Eval epoch
    time: ...``), and the training epoch's time counts from its own start
    (MindSpore 2.10 restarts its clock at the evaluation, so the train time
    it prints after one is the evaluation's).  With ``data_time=True`` the time spent waiting for data
    is appended: `` (data time: D ms)``.

    Raises
    ------
    TypeError
        ``data_time`` not a bool.
    ValueError
        ``data_size`` not a positive int (or None).

    >>> from cellkit.train import TimeMonitor
    >>> TimeMonitor(data_size=10).data_size
    10
    """

    def __init__(self, data_size=None, data_time=False):
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int) or data_size <= 0):
            raise ValueError(f"For 'TimeMonitor', 'data_size' must be a positive int or None, but got {data_size!r}")
        self.data_size = data_size
        self.epoch_time = time.time()
        self.data_time = _check_bool(data_time, "data_time", "TimeMonitor")
        self.data_time_sum = 0.0
        self.data_time_start = 0.0
        self._starts = {}

    def on_train_step_begin(self, run_context):
        if self.data_time:
            self.data_time_sum += time.time() - self.data_time_start

    def on_train_step_end(self, run_context):
        if self.data_time:
            self.data_time_start = time.time()

    def epoch_begin(self, run_context):
        self.epoch_time = time.time()
        if self.data_time:
            self.data_time_sum = 0.0
            self.data_time_start = time.time()

    def on_train_epoch_begin(self, run_context):
        self._starts["train"] = time.time()
        self.epoch_begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        # MindSpore 2.10 restarts its one clock here, so in fit the "Train epoch time" it prints after an
        # evaluation is the evaluation's time; cellkit times the training epoch from its own start.
        self._starts["eval"] = time.time()

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        mode = cb_params.get("mode", "")
        elapsed_ms = (time.time() - self._starts.get(mode, self.epoch_time)) * 1000
        steps = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and batch_num > 0:
            steps = batch_num
        if isinstance(steps, bool) or not isinstance(steps, int) or steps <= 0:
            raise ValueError(f"For 'TimeMonitor', the number of steps must be a positive int, but got {steps!r}: "
                             "give 'data_size' for a dataset without a size")
        line = f"{mode.title()} epoch time: {elapsed_ms:5.3f} ms, per step time: {elapsed_ms / steps:5.3f} ms"
        if self.data_time:
            line += f" (data time: {self.data_time_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)


class History(Callback):
    """Record what the network returned at the end of each epoch, and ``fit``'s metrics.

    ``history.epoch`` is ``{'epoch': [1, 2, ...]}``; ``history.history`` maps
    ``'net_output'`` (the last step's loss: a NumPy float for a Tensor, the
    first Tensor of a tuple) and each evaluated metric to a list with one
    value per epoch.

    >>> from cellkit.train import History
    >>> History().history
    {}
    """

    def __init__(self):
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.epoch.get("epoch").append(cb_params.get("cur_epoch_num", 1))
        output = cb_params.net_outputs
        if isinstance(output, (tuple, list)) and output and isinstance(output[0], Tensor):
            output = output[0]
        if isinstance(output, Tensor):
            output = np.mean(output.asnumpy())
        current = {"net_output": output}
        current.update(cb_params.get("metrics") or {})
        for key, value in current.items():
            self.history.setdefault(key, []).append(value)


def _nothing(run_context):
    return None


class LambdaCallback(Callback):
    """A callback from plain functions, one per stage: ``LambdaCallback(on_train_step_end=fn)``.

    Each function receives the :class:`RunContext`; stages not given do nothing.

    >>> from cellkit.train import LambdaCallback
    >>> seen = []
    >>> cb = LambdaCallback(on_train_step_end=lambda ctx: seen.append(1))
    >>> cb.on_train_step_end(None); seen
    [1]
    """

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
                 on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
                 on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        given = dict(on_train_epoch_begin=on_train_epoch_begin, on_train_epoch_end=on_train_epoch_end,
                     on_train_step_begin=on_train_step_begin, on_train_step_end=on_train_step_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_eval_epoch_begin=on_eval_epoch_begin, on_eval_epoch_end=on_eval_epoch_end,
                     on_eval_step_begin=on_eval_step_begin, on_eval_step_end=on_eval_step_end,
                     on_eval_begin=on_eval_begin, on_eval_end=on_eval_end)
        for name, fn in given.items():
            if fn and not callable(fn):
                raise TypeError(f"LambdaCallback: '{name}' must be callable, but got {type(fn).__name__}")
            setattr(self, name, fn if fn else _nothing)
