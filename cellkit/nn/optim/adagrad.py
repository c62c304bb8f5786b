"""Optimizers that accumulate squared gradients: ``nn.Adagrad``, ``nn.ProximalAdagrad``, ``nn.FTRL``.

Each keeps, per parameter, the running sum of ``g * g`` and divides the step
by its square root, so coordinates with large past gradients move less.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0, 1.0]), name="w")
>>> opt = nn.Adagrad([w], accum=0.0, learning_rate=0.1)
>>> _ = opt((ms.Tensor([2.0, -0.5]),))
>>> print(w.asnumpy())  # the first step is lr * sign(g) whatever the size of g
[0.9 1.1]
"""
from __future__ import annotations

from ... import backend as _backend
from ._checks import check_bool, is_float, non_negative_float, positive_float
from .optimizer import Optimizer, _hyper, _writable

__all__ = ["Adagrad", "ProximalAdagrad", "FTRL"]


class Adagrad(Optimizer):
    r"""Adagrad (Duchi et al.): ``accum += g * g``, ``w -= lr * g / sqrt(accum)``.

    Parameters
    ----------
    params : list of Parameter or list of dict
        See :class:`Optimizer` (groups may set ``'lr'``, ``'weight_decay'``,
        ``'grad_centralization'`` and ``'order_params'``).
    accum : float
        The starting value of every accumulator, >= 0 (default 0.1).
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.001.
    update_slots : bool
        Whether ``accum`` grows; with ``False`` it keeps its starting value,
        as documented (MindSpore 2.10's CPU kernel ignores ``False`` and
        accumulates anyway).
    loss_scale : float
    weight_decay : float, int or Cell
        L2, added to the gradient before the update.

    Notes
    -----
    State: ``accum.<name>``.  As MindSpore's kernel, no epsilon is added under
    the square root, so ``accum=0.0`` with a zero gradient divides 0 by 0.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(3, 2)
    >>> opt = nn.Adagrad(net.trainable_params(), learning_rate=0.01)
    >>> [p.name for p in opt.accum]
    ['accum.weight', 'accum.bias']
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        non_negative_float(accum, "accum", self.cls_name)
        self.update_slots = check_bool(update_slots, "update_slots", self.cls_name)
        self.accum = self.parameters.clone(prefix="accum", init=accum)

    def construct(self, grads):
        grads = self._prepare(grads)
        lrs = self._per_param_lrs()
        self._advance()
        sqrt = _backend.current().xp.sqrt
        for p, acc, g, lr in zip(self.parameters, self.accum, grads, lrs):
            w = _writable(p)
            a = _writable(acc)
            if self.update_slots:
                a += g * g
            w -= _hyper(lr, w) * g / sqrt(a)
        return self._done()


class ProximalAdagrad(Optimizer):
    r"""Adagrad followed by the proximal step of an L1 and an L2 penalty (FOBOS).

    Per step, with ``eta = lr / sqrt(accum)`` the step size of each coordinate::

        accum += g * g
        v = w - eta * g
        w = sign(v) * max(|v| - eta * l1, 0) / (1 + eta * l2)

    The proximal step uses the step size the gradient step used (FOBOS, and
    TensorFlow's ``ApplyProximalAdagrad``); that is what MindSpore 2.10
    computes, while its documentation writes ``lr`` in place of ``eta`` in
    the last line.

    Parameters
    ----------
    params : list of Parameter or list of dict
    accum : float
        Starting value of the accumulators, >= 0 (default 0.1).
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.001.
    l1, l2 : float
        Penalty strengths, >= 0.
    use_locking : bool
        Accepted (updates never race in cellkit).
    loss_scale : float
    weight_decay : float, int or Cell

    Notes
    -----
    State: ``accum.<name>``.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([0.05, 1.0]), name="w")
    >>> opt = nn.ProximalAdagrad([w], accum=1.0, learning_rate=1.0, l1=0.1)
    >>> _ = opt((ms.Tensor([0.0, 0.0]),))
    >>> print(w.asnumpy())  # L1 shrinks every weight by eta * l1 (here 0.1), and stops at zero
    [0.  0.9]
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        for arg, value in (("accum", accum), ("l1", l1), ("l2", l2)):
            is_float(value, arg, name)
        self.use_locking = check_bool(use_locking, "use_locking", name)
        for arg, value in (("accum", accum), ("l1", l1), ("l2", l2)):
            non_negative_float(value, arg, name)
        self.accum = self.parameters.clone(prefix="accum", init=accum)
        self.l1 = l1
        self.l2 = l2

    def construct(self, grads):
        grads = self._prepare(grads)
        lrs = self._per_param_lrs()
        self._advance()
        xp = _backend.current().xp
        for p, acc, g, lr in zip(self.parameters, self.accum, grads, lrs):
            w = _writable(p)
            a = _writable(acc)
            a += g * g
            rate = _hyper(lr, w) / xp.sqrt(a)  # the step size of each coordinate
            v = w - rate * g
            if self.l1 > 0.0:
                v = xp.sign(v) * xp.maximum(xp.abs(v) - rate * self.l1, 0.0)
            w[...] = v / (1.0 + rate * self.l2)
        return self._done()


class FTRL(Optimizer):
    r"""Follow The Regularized Leader (McMahan et al.), with L1 and L2 penalties.

    Per step, with ``p = -lr_power``::

        accum_new = accum + g * g
        linear += g - (accum_new ** p - accum ** p) / lr * w
        w = (sign(linear) * l1 - linear) / (accum_new ** p / lr + 2 * l2)   if |linear| > l1
        w = 0                                                             otherwise
        accum = accum_new

    Parameters
    ----------
    params : list of Parameter or list of dict
        Groups may set ``'weight_decay'``, not ``'lr'``.
    initial_accum : float
        Starting value of the accumulators, >= 0 (default 0.1).
    learning_rate : float
        A fixed rate > 0 (default 0.001); dynamic and group rates are refused.
    lr_power : float
        <= 0 (default -0.5: the square root).
    l1, l2 : float
        >= 0.
    use_locking : bool
    loss_scale : float
    weight_decay : float, int or Cell
        Without groups it applies to every parameter (MindSpore's FTRL does not
        skip ``beta``/``gamma`` names).

    Notes
    -----
    State: ``moments.<name>`` (the accumulators) and ``linear.<name>``.

    With ``l1 > 0``, MindSpore 2.10's CPU kernel uses ``+l1`` where the
    formula has ``sign(linear) * l1``, so a negative ``linear`` pushes its
    weight away from zero; cellkit follows the documented formula.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([0.0, 0.0]), name="w")
    >>> opt = nn.FTRL([w], initial_accum=1.0, learning_rate=0.5, l1=0.3)
    >>> _ = opt((ms.Tensor([1.0, 0.2]),))
    >>> print(w.asnumpy().round(4))  # the small gradient stays inside the L1 dead zone
    [-0.2475  0.    ]
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        name = self.cls_name
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(
                f"For '{name}', the learning rate must be one fixed number: dynamic and group learning rates are "
                f"not supported, but got dynamic_lr={self.dynamic_lr}, group lr={self.is_group_lr}."
            )
        is_float(initial_accum, "initial_accum", name)
        if not initial_accum >= 0.0:
            raise ValueError(f"For '{name}', 'initial_accum' must be >= 0.0, but got {initial_accum}.")
        positive_float(learning_rate, "learning_rate", name)
        is_float(lr_power, "lr_power", name)
        if not lr_power <= 0.0:
            raise ValueError(f"For '{name}', 'lr_power' must be <= 0.0, but got {lr_power}.")
        for arg, value in (("l1", l1), ("l2", l2)):
            is_float(value, arg, name)
            if not value >= 0.0:
                raise ValueError(f"For '{name}', '{arg}' must be >= 0.0, but got {value}.")
        self.use_locking = check_bool(use_locking, "use_locking", name)
        self.moments = self.parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self.parameters.clone(prefix="linear", init="zeros")
        self.l1 = l1
        self.l2 = l2
        self.lr = learning_rate
        self.lr_power = lr_power
        if not self.is_group:
            # FTRL decays every parameter, 'beta'/'gamma' names included.
            self.decay_flags = (True,) * self.param_length
            if self.exec_weight_decay and not self.dynamic_weight_decay:
                self._decay_values = (float(weight_decay) * self.loss_scale,) * self.param_length

    def construct(self, grads):
        grads = self._prepare(grads)
        lrs = self._per_param_lrs()
        self._advance()
        xp = _backend.current().xp
        power = -self.lr_power
        for p, acc, lin, g, lr in zip(self.parameters, self.moments, self.linear, grads, lrs):
            w = _writable(p)
            a = _writable(acc)
            linear = _writable(lin)
            rate = _hyper(lr, w)
            new_accum = a + g * g
            new_power = _power(xp, new_accum, power)
            linear += g - (new_power - _power(xp, a, power)) / rate * w
            quadratic = new_power / rate + 2.0 * self.l2
            shrunk = (xp.sign(linear) * self.l1 - linear) / quadratic
            w[...] = xp.where(xp.abs(linear) > self.l1, shrunk, 0.0)
            a[...] = new_accum
        return self._done()


def _power(xp, x, power):
    """``x ** power``, with the square root (the default) computed as one."""
    if power == 0.5:
        return xp.sqrt(x)
    if power == 0.0:
        return xp.ones_like(x)
    return x ** power
