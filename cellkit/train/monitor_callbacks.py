"""Callbacks that watch a value and act: ``EarlyStopping``, ``ReduceLROnPlateau``, ``LearningRateScheduler``.

``EarlyStopping`` and ``ReduceLROnPlateau`` watch ``'loss'`` (the training loss of the epoch's
last step) or a value ``Model.fit`` evaluated: a metric's name or ``'eval_loss'`` (as in
MindSpore 2.10, the loss of the last evaluated batch).  ``'auto'`` mode treats losses and
distances as smaller-is-better and everything else as larger-is-better.

>>> import numpy as np
>>> from cellkit import nn
>>> from cellkit.train import Model, EarlyStopping
>>> x = np.ones((4, 3), np.float32); y = np.zeros((4, 2), np.float32)
>>> net = nn.Dense(3, 2)
>>> model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.0))  # a loss that never improves
>>> stop = EarlyStopping(monitor="loss", patience=2, verbose=True)
>>> model.train(10, [(x, y)], callbacks=[stop])
Epoch 00003: early stopping
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import ops
from ..parameter import Parameter
from ..serialization import load_param_into_net
from ..tensor import Tensor
from .callback import Callback, _check_bool, _check_non_negative_int, _loss_value

__all__ = ["EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler"]

_SMALLER_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity", "mean_surface_distance",
                   "root_mean_square_distance", "eval_loss")


def _check_type(value, name, types, where):
    if isinstance(value, bool) or not isinstance(value, types):
        raise TypeError(f"For '{where}', the type of '{name}' must be {' or '.join(t.__name__ for t in types)}, "
                        f"but got {type(value).__name__}.")
    return value


class _Watcher(Callback):
    """What both plateau callbacks share: the monitored value, its direction, the best so far."""

    _what = "Monitoring"

    def _setup(self, monitor, min_delta, mode, where):
        self.monitor = _check_type(monitor, "monitor", (str,), where)
        self.min_delta = abs(_check_type(min_delta, "min_delta", (float, int), where))
        self.mode = _check_type(mode, "mode", (str,), where)
        if self.mode not in ("auto", "min", "max"):
            raise ValueError(f"For '{where}', mode should be 'auto', 'min' or 'max', but got {self.mode!r}.")
        self.best = self._start()
        # an attribute of each instance, as in MindSpore (a callable comparing a value with the best)
        self.is_improvement = self._improves

    def _smaller_better(self):
        return self.mode == "min" or (self.mode == "auto" and self.monitor in _SMALLER_BETTER)

    def _start(self):
        return np.inf if self._smaller_better() else -np.inf

    def _improves(self, current, best):
        """Whether ``current`` beats ``best`` by more than ``min_delta``."""
        if self._smaller_better():
            return np.less(current, best - self.min_delta)
        return np.greater(current, best + self.min_delta)

    def _get_monitor_value(self, cb_params):
        candidates = {}
        if self.monitor == "loss":
            value = _loss_value(cb_params.get("net_outputs"))
            if isinstance(value, Tensor):
                value = float(np.mean(value.asnumpy()))
        else:
            candidates = cb_params.get("eval_results") or {}
            value = candidates.get(self.monitor)
        if value is None:
            warnings.warn(f"{self._what} is conditioned on {self.monitor}, which is not available. Available "
                          f"choices are: {set(['loss'] + list(candidates))}", stacklevel=3)
        if isinstance(value, np.ndarray) and value.shape != ():
            raise ValueError(f"{type(self).__name__} only supports scalar monitor now.")
        return np.array(value) if value else None


class EarlyStopping(_Watcher):
    """Stop training when the monitored value has stopped improving for ``patience`` epochs.

    Parameters
    ----------
    monitor : str
        ``'eval_loss'`` (default), ``'loss'`` or a metric ``fit`` evaluates.
    min_delta : float
        A change smaller than this is no improvement.
    patience : int
        Epochs without improvement before stopping (0: stop at the first).
    verbose : bool
        Print ``Epoch NNNNN: early stopping`` when it stops.
    mode : str
        ``'auto'``, ``'min'`` or ``'max'``.
    baseline : float, optional
        Training counts as improving only once the value beats the baseline.
        (MindSpore 2.10 replaces the baseline by ``min_delta``, so there a
        baseline stops training early whatever its value; cellkit uses it as
        documented.)
    restore_best_weights : bool
        On stopping, load the Parameters of the best epoch back.

    Attributes
    ----------
    stopped_epoch : int
        The epoch training stopped at (0 if it did not).

    Raises
    ------
    TypeError, ValueError
        For arguments of the wrong type or value.
    """

    _what = "Early stopping"

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        where = "EarlyStopping"
        self._setup(monitor, min_delta, mode, where)
        self.patience = _check_non_negative_int(patience, "patience", where)
        self.verbose = _check_bool(verbose, "verbose", where)
        # MindSpore 2.10 stores min_delta in place of a given baseline (so a baseline never takes effect as
        # documented); cellkit keeps the baseline.
        self.baseline = None if baseline is None else _check_type(baseline, "baseline", (float, int), where)
        self.restore_best_weights = _check_bool(restore_best_weights, "restore_best_weights", where)
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights_param_dict = None

    def on_train_begin(self, run_context):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._start()
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        current = self._get_monitor_value(cb_params)
        if current is None:
            return
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = _copied_parameters(cb_params.train_network)
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = _copied_parameters(cb_params.train_network)
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                load_param_into_net(cb_params.train_network, self.best_weights_param_dict)

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


def _copied_parameters(network):
    return {name: Parameter(Tensor(p.asnumpy().copy()), name=name, requires_grad=p.requires_grad)
            for name, p in network.parameters_dict().items()}


class ReduceLROnPlateau(_Watcher):
    """Multiply the learning rate by ``factor`` when the monitored value stops improving for ``patience`` epochs.

    Parameters
    ----------
    monitor : str
        ``'eval_loss'`` (default), ``'loss'`` or a metric ``fit`` evaluates.
    factor : float
        In (0, 1) (a float: ``1`` or ``0`` as ints are refused with TypeError).
    patience : int
        Epochs without improvement before reducing (default 10).
    verbose : bool
        Print ``Epoch NNNNN: ReduceLROnPlateau reducing learning rate to LR.``
    mode : str
        ``'auto'``, ``'min'`` or ``'max'``.
    min_delta : float
    cooldown : int
        Epochs to wait after a reduction before counting again.
    min_lr : float
        The learning rate never goes below it.

    Raises
    ------
    TypeError, ValueError
        For arguments of the wrong type or value; ``ValueError`` at the end
        of an epoch if the optimizer's learning rate is not one Parameter (a
        schedule or groups).
    """

    _what = "Learning rate reduction"

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        where = "ReduceLROnPlateau"
        _check_type(factor, "factor", (float,), where)
        if not 0.0 < factor < 1.0:
            raise ValueError(f"For '{where}', 'factor' must be in (0.0, 1.0), but got {factor}.")
        self.factor = factor
        self._setup(monitor, min_delta, mode, where)
        self.patience = _check_non_negative_int(patience, "patience", where)
        self.verbose = _check_bool(verbose, "verbose", where)
        self.cooldown = _check_non_negative_int(cooldown, "cooldown", where)
        self.min_lr = _check_type(min_lr, "min_lr", (float, int), where)
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, run_context):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = self._start()

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        cur_lr = cb_params.optimizer.learning_rate
        if not isinstance(cur_lr, Parameter):
            raise ValueError("ReduceLROnPlateau does not support dynamic learning rate and group learning rate now.")
        current = self._get_monitor_value(cb_params)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                lr = cur_lr.asnumpy()
                if lr > self.min_lr:
                    new_lr = np.maximum(lr * np.float32(self.factor), np.float32(self.min_lr)).astype(lr.dtype)
                    ops.assign(cur_lr, Tensor(new_lr))
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning rate to "
                              f"{Tensor(new_lr)}.")
                self.cooldown_counter = self.cooldown
                self.wait = 0


class LearningRateScheduler(Callback):
    """Set the learning rate at every step from ``learning_rate_function(lr, cur_step_num)``.

    The optimizer's learning rate must be one Parameter (a float given to
    the optimizer).

    >>> from cellkit import nn
    >>> from cellkit.train import LearningRateScheduler
    >>> halve_every_10 = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 10 == 0 else lr)
    """

    def __init__(self, learning_rate_function):
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        lr_param = cb_params.optimizer.learning_rate
        lr = float(np.array2string(lr_param.asnumpy()))
        new_lr = self.learning_rate_function(lr, cb_params.cur_step_num)
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            ops.assign(lr_param, Tensor(np.float32(new_lr)))
