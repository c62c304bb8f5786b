"""Stochastic gradient descent: ``nn.SGD`` (PyTorch-style momentum) and ``nn.Momentum``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
>>> opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
>>> for _ in range(2):
...     _ = opt((ms.Tensor([1.0]),))
>>> print(w.asnumpy(), opt.moments[0].asnumpy())
[0.71] [1.9]
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter
from ...tensor import Tensor
from .optimizer import Optimizer, _hyper, _subtract_scaled, _writable

__all__ = ["SGD", "Momentum"]


def _non_negative_float(value, name, cls, allow_int=True):
    if allow_int and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, float):
        raise TypeError(f"For '{cls}', the type of '{name}' should be 'float', but got type '{type(value).__name__}'.")
    if value < 0.0:
        raise ValueError(f"For '{cls}', the argument '{name}' must be at least 0.0, but got {value}")
    return value


def _check_bool(value, name, cls):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', the argument '{name}' must be a bool, but got {type(value).__name__}")
    return value


def _momentum_parameter(value):
    return Parameter(Tensor(np.asarray(value, np.float32)), name="momentum")


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening and Nesterov momentum.

    With ``momentum > 0`` each parameter keeps a velocity ``accum``: the first
    update sets it to the gradient, later ones to
    ``momentum * accum + (1 - dampening) * g``; the parameter then moves by
    ``-lr * accum`` (or ``-lr * (g + momentum * accum)`` with ``nesterov``).
    Without momentum the update is ``-lr * g``.

    Parameters
    ----------
    params : list of Parameter or list of dict
        See :class:`Optimizer` (groups may set ``'lr'`` and ``'weight_decay'``).
    learning_rate : float, Tensor, Iterable or LearningRateSchedule
    momentum, dampening, weight_decay : float
        All >= 0.  ``weight_decay`` must be a number (not a schedule).
    nesterov : bool
        Needs ``momentum > 0`` and ``dampening == 0``.
    loss_scale : float

    Notes
    -----
    State, as in MindSpore: ``momentum`` (a Parameter), ``accum.<name>``
    (the velocities, zeros) and ``stat.<name>`` (ones until the first
    momentum update, then zeros).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> opt = nn.SGD([w], learning_rate=0.1, momentum=0.9)
    >>> [p.name for p in opt.get_parameters()]
    ['global_step', 'learning_rate', 'w', 'momentum', 'accum.w', 'stat.w']
    >>> opt((ms.Tensor([1.0, 1.0]),))
    (True,)
    >>> print(w.asnumpy())
    [0.9 1.9]
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _non_negative_float(momentum, "momentum", "SGD")
        dampening = _non_negative_float(dampening, "dampening", "SGD")
        self.dampening = dampening
        self.nesterov = _check_bool(nesterov, "nesterov", "SGD")
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(
                "For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal to 0.0, "
                f"but got 'momentum' {momentum}, 'dampening' {dampening}."
            )
        if self.dynamic_weight_decay:
            raise TypeError(
                "For 'SGD', dynamic weight decay is currently not supported, the argument 'weight_decay' or "
                "'weight_decay' set in grouped 'params' must be float or int type."
            )
        self.momentum = _momentum_parameter(momentum)
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")
        # The stat arrays this optimizer zeroed itself: while they are still in place, every
        # element is known to be past its first step and the update needs no elementwise test.
        object.__setattr__(self, "_zeroed_stats", [None] * self.param_length)

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        be = _backend.current()
        xp = be.xp
        momentum = self.momentum._data
        use_momentum = float(be.to_host(momentum)) > 0.0
        keep = float(np.float32(1.0) - np.float32(self.dampening))  # as MindSpore rounds it
        for i, (p, g, lr) in enumerate(zip(self.parameters, grads, lrs)):
            w = _writable(p)
            step = g
            if use_momentum:
                mom = _hyper(momentum, w)
                accum, stat = self.accum[i], self.stat[i]
                if stat._data is self._zeroed_stats[i]:
                    a = _writable(accum)
                    a *= mom
                    a += keep * g
                else:
                    accum._data = xp.where(stat._data > 0, g, accum._data * mom + keep * g)
                    stat._data = xp.zeros_like(stat._data)
                    self._zeroed_stats[i] = stat._data
                step = g + mom * accum._data if self.nesterov else accum._data
            _subtract_scaled(w, _hyper(lr, w), step)
        return self._done()


class Momentum(Optimizer):
    """Gradient descent with momentum: ``v = momentum * v + g``, ``w -= lr * v``.

    With ``use_nesterov`` the step is ``lr * (g + momentum * v)``.

    Parameters
    ----------
    params : list of Parameter or list of dict
        See :class:`Optimizer`.
    learning_rate : float, Tensor, Iterable or LearningRateSchedule
    momentum : float
        >= 0 (an int is refused, as in MindSpore).
    weight_decay : float, int or Cell
    loss_scale : float
    use_nesterov : bool

    Notes
    -----
    State: ``momentum`` (a Parameter) and ``moments.<name>`` (zeros).

    MindSpore 2.10 on the CPU ignores ``use_nesterov`` (its updates with
    ``use_nesterov=True`` equal those without, as observed); cellkit applies
    the documented Nesterov step ``w -= lr * (g + momentum * v)``.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(3, 2)
    >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    >>> [p.name for p in opt.moments]
    ['moments.weight', 'moments.bias']
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _non_negative_float(momentum, "momentum", "Momentum", allow_int=False)
        self.momentum = _momentum_parameter(momentum)
        self.use_nesterov = _check_bool(use_nesterov, "use_nesterov", "Momentum")
        self.moments = self.parameters.clone(prefix="moments", init="zeros")
        object.__setattr__(self, "params", self.parameters)

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        momentum = self.momentum._data
        for p, v, g, lr in zip(self.parameters, self.moments, grads, lrs):
            w = _writable(p)
            mom = _hyper(momentum, w)
            velocity = _writable(v)
            velocity *= mom
            velocity += g
            step = g + mom * velocity if self.use_nesterov else velocity
            _subtract_scaled(w, _hyper(lr, w), step)
        return self._done()
