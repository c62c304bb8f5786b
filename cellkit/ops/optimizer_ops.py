"""The optimizer Primitives: one update step of a training rule, applied to Parameters in place.

``ops.ApplyMomentum()(var, accum, lr, grad, momentum)`` and its kin are what MindSpore's ``nn``
optimizers are built from.  Each updates its state arguments (``var``, ``m``, ``v`` ...: Parameters or
Tensors) in place, as MindSpore documents, and returns the updated values.  The arithmetic runs on the
backend's arrays in ``var``'s dtype; scalar hyper-parameters may be Python numbers or one-element
Tensors.  These ops are not differentiated (an update step is not part of a loss).

>>> import cellkit as ms
>>> from cellkit import ops
>>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
>>> out = ops.ApplyGradientDescent()(w, 0.5, ms.Tensor([1.0, 1.0]))
>>> print(w.asnumpy())
[0.5 1.5]
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from ._core import describe, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = ["Adam", "AdamWeightDecay", "ApplyAdaMax", "ApplyAdadelta", "ApplyAdagrad", "ApplyAdamWithAmsgrad",
           "ApplyAdamWithAmsgradV2", "ApplyCenteredRMSProp", "ApplyGradientDescent", "ApplyMomentum",
           "ApplyRMSProp", "SGD", "FusedCastAdamWeightDecay"]

_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


def _state(value, name, op, like=None, floats=_FLOATS):
    """A state argument (``var``, ``m`` ...): a float Tensor, of ``like``'s shape when given."""
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Parameter or a Tensor, but got {describe(value)}")
    t = tensor_arg(value, name, op)
    if t.dtype not in floats:
        raise TypeError(f"For '{op}', '{name}' must be a {'/'.join(str(f) for f in floats)} tensor, but got "
                        f"{t.dtype}")
    if like is not None and tuple(t.shape) != tuple(like.shape):
        raise ValueError(f"For '{op}', '{name}' must have the shape of 'var' {tuple(like.shape)}, but got "
                         f"{tuple(t.shape)}")
    if _ag._depth and isinstance(t._node, _ag.Leaf):
        raise RuntimeError(f"For '{op}', A leaf tensor that requires grad is being used in an inplace operator: "
                           f"'{name}' is being differentiated and cannot be updated")
    return t


def _array(t, like):
    """``t``'s array in ``like``'s dtype."""
    a = t._data
    return a if a.dtype == like._data.dtype else xp().astype(a, like._data.dtype)


def _scalar(value, name, op):
    """A hyper-parameter: a real number or a one-element float Tensor, as a Python float."""
    if isinstance(value, Tensor):
        t = tensor_arg(value, name, op)
        if t.size != 1:
            raise ValueError(f"For '{op}', '{name}' must be a scalar, but got a Tensor of shape {tuple(t.shape)}")
        if t.dtype.kind != "float":
            raise TypeError(f"For '{op}', '{name}' must be a float scalar, but got a Tensor of dtype {t.dtype}")
        return float(t.asnumpy().reshape(()))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"For '{op}', '{name}' must be a number or a scalar Tensor, but got {describe(value)}")
    return float(value)


def _ratio(numerator, denominator):
    """``numerator / denominator`` as the kernels compute it: inf or nan for a zero denominator, no exception."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(numerator) / np.float64(denominator))


def _write(t, array):
    """Give the state Tensor ``t`` its updated values (in place: the same Tensor / Parameter object)."""
    if array.dtype != t._data.dtype:
        array = xp().astype(array, t._data.dtype)
    t._data = array
    t._node = None
    return t


def _out(*tensors):
    """The updated values as new Tensors (MindSpore returns copies of the updated state)."""
    values = tuple(wrap(t._data) for t in tensors)
    return values if len(values) > 1 else values[0]


class Adam(Primitive):
    r"""``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
    epsilon, gradient)`` -> ``(var, m, v)``.

    ``m = beta1 m + (1 - beta1) g``, ``v = beta2 v + (1 - beta2) g^2``,
    ``var -= lr sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon)`` (with Nesterov the
    numerator is ``beta1 m + (1 - beta1) g``).

    >>> import cellkit as ms
    >>> import numpy as np
    >>> var, m, v = (ms.Parameter(ms.Tensor(np.ones((2,), np.float32)), name=n) for n in "wmv")
    >>> _ = Adam()(var, m, v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, ms.Tensor(np.ones((2,), np.float32)))
    >>> print(var.asnumpy())
    [0.9996838 0.9996838]
    """

    @prim_attr_register
    def __init__(self, use_locking=False, use_nesterov=False):
        _flags("Adam", use_locking=use_locking, use_nesterov=use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        op = "Adam"
        var = _state(var, "var", op)
        m, v = _state(m, "m", op, var), _state(v, "v", op, var)
        g = _array(_state(gradient, "gradient", op, var), var)
        b1p, b2p, lr, b1, b2, eps = (_scalar(x, n, op) for x, n in (
            (beta1_power, "beta1_power"), (beta2_power, "beta2_power"), (lr, "lr"), (beta1, "beta1"),
            (beta2, "beta2"), (epsilon, "epsilon")))
        x = xp()
        m_new = b1 * _array(m, var) + (1 - b1) * g
        v_new = b2 * _array(v, var) + (1 - b2) * g * g
        step = _ratio(lr * np.sqrt(max(1 - b2p, 0.0)), 1 - b1p)
        numerator = b1 * m_new + (1 - b1) * g if self.use_nesterov else m_new
        _write(var, var._data - step * numerator / (x.sqrt(v_new) + eps))
        _write(m, m_new)
        _write(v, v_new)
        return _out(var, m, v)


def _flags(op, **flags):
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"For '{op}', '{name}' must be a bool, but got {describe(value)}")


def _adam_weight_decay(op, var, m, v, lr, beta1, beta2, epsilon, decay, gradient, var_floats=_FLOATS,
                       global_norm=1.0):
    var = _state(var, "var", op, floats=var_floats)
    m, v = _state(m, "m", op, var), _state(v, "v", op, var)
    grad = _state(gradient, "gradient", op, var)
    lr, b1, b2, eps, wd = (_scalar(x, n, op) for x, n in (
        (lr, "lr"), (beta1, "beta1"), (beta2, "beta2"), (epsilon, "epsilon"), (decay, "decay")))
    if eps <= 0:
        raise ValueError(f"For '{op}', 'epsilon' must be positive, but got {eps}")
    if not (0 < b1 < 1 and 0 < b2 < 1):
        raise ValueError(f"For '{op}', 'beta1' and 'beta2' must be in (0, 1), but got {b1} and {b2}")
    if wd < 0:
        raise ValueError(f"For '{op}', 'decay' must be non-negative, but got {wd}")
    x = xp()
    compute = m._data.dtype  # the moments' precision (float32 for the fused-cast variant)
    w = x.astype(var._data, compute) if var._data.dtype != compute else var._data
    g = x.astype(grad._data, compute) if grad._data.dtype != compute else grad._data
    if global_norm != 1.0:
        g = g / global_norm
    m_new = b1 * m._data + (1 - b1) * g
    v_new = b2 * v._data + (1 - b2) * g * g
    update = m_new / (x.sqrt(v_new) + eps)
    if wd > 0:
        update = update + wd * w
    _write(var, w - lr * update)
    _write(m, m_new)
    _write(v, v_new)
    return _out(var, m, v)


class AdamWeightDecay(Primitive):
    """``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, gradient)`` ->
    ``(var, m, v)``: Adam without bias correction, plus ``decay * var`` in the update (AdamW).
    """

    @prim_attr_register
    def __init__(self, use_locking=False):
        _flags("AdamWeightDecay", use_locking=use_locking)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        return _adam_weight_decay("AdamWeightDecay", var, m, v, lr, beta1, beta2, epsilon, decay, gradient)


class FusedCastAdamWeightDecay(Primitive):
    """``FusedCastAdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, gradient,
    global_norm)``: :class:`AdamWeightDecay` for a Float16 (or Float32) ``var`` and gradient with Float32
    moments, the gradient divided by ``global_norm`` first: the step is computed in Float32 and the result cast
    back to ``var``'s dtype.
    """

    @prim_attr_register
    def __init__(self, use_locking=False):
        _flags("FusedCastAdamWeightDecay", use_locking=use_locking)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm):
        op = "FusedCastAdamWeightDecay"
        for name, t in (("m", m), ("v", v)):
            if isinstance(t, Tensor) and t.dtype is not _dt.float32:
                raise TypeError(f"For '{op}', '{name}' must be a Float32 tensor, but got {t.dtype}")
        norm = _scalar(global_norm, "global_norm", op)
        if norm <= 0:
            raise ValueError(f"For '{op}', 'global_norm' must be positive, but got {norm}")
        return _adam_weight_decay(op, var, m, v, lr, beta1, beta2, epsilon, decay, gradient,
                                  var_floats=(_dt.float16, _dt.float32), global_norm=norm)


class ApplyAdaMax(Primitive):
    """``ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)`` -> ``(var, m, v)``:
    ``m = beta1 m + (1 - beta1) g``, ``v = max(beta2 v, |g|)``,
    ``var -= lr / (1 - beta1_power) * m / (v + epsilon)``.
    """

    def __init__(self):
        super().__init__()

    def __call__(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
        op = "ApplyAdaMax"
        var = _state(var, "var", op)
        m, v = _state(m, "m", op, var), _state(v, "v", op, var)
        g = _array(_state(grad, "grad", op, var), var)
        b1p, lr, b1, b2, eps = (_scalar(x, n, op) for x, n in (
            (beta1_power, "beta1_power"), (lr, "lr"), (beta1, "beta1"), (beta2, "beta2"), (epsilon, "epsilon")))
        x = xp()
        m_new = b1 * _array(m, var) + (1 - b1) * g
        v_new = x.maximum(b2 * _array(v, var), x.abs(g))
        _write(var, var._data - _ratio(lr, 1 - b1p) * m_new / (v_new + eps))
        _write(m, m_new)
        _write(v, v_new)
        return _out(var, m, v)


class ApplyAdadelta(Primitive):
    """``ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)`` -> ``(var, accum, accum_update)``."""

    def __init__(self):
        super().__init__()

    def __call__(self, var, accum, accum_update, lr, rho, epsilon, grad):
        op = "ApplyAdadelta"
        var = _state(var, "var", op)
        accum, accum_update = _state(accum, "accum", op, var), _state(accum_update, "accum_update", op, var)
        g = _array(_state(grad, "grad", op, var), var)
        lr, rho, eps = (_scalar(x, n, op) for x, n in ((lr, "lr"), (rho, "rho"), (epsilon, "epsilon")))
        x = xp()
        acc = rho * _array(accum, var) + (1 - rho) * g * g
        update = x.sqrt(_array(accum_update, var) + eps) * g / x.sqrt(acc + eps)
        acc_update = rho * _array(accum_update, var) + (1 - rho) * update * update
        _write(var, var._data - lr * update)
        _write(accum, acc)
        _write(accum_update, acc_update)
        return _out(var, accum, accum_update)


class ApplyAdagrad(Primitive):
    """``ApplyAdagrad(update_slots=True)(var, accum, lr, grad)`` -> ``(var, accum)``:
    ``accum += g^2`` (when ``update_slots``), ``var -= lr g / sqrt(accum)``.
    """

    @prim_attr_register
    def __init__(self, update_slots=True):
        _flags("ApplyAdagrad", update_slots=update_slots)

    def __call__(self, var, accum, lr, grad):
        op = "ApplyAdagrad"
        var = _state(var, "var", op)
        accum = _state(accum, "accum", op, var)
        g = _array(_state(grad, "grad", op, var), var)
        lr = _scalar(lr, "lr", op)
        acc = _array(accum, var) + g * g if self.update_slots else _array(accum, var)
        _write(var, var._data - lr * g / xp().sqrt(acc))
        _write(accum, acc)
        return _out(var, accum)


def _amsgrad(op, var, m, v, vhat, b1p, b2p, lr, b1, b2, eps, grad):
    var = _state(var, "var", op)
    m, v, vhat = _state(m, "m", op, var), _state(v, "v", op, var), _state(vhat, "vhat", op, var)
    g = _array(_state(grad, "grad", op, var), var)
    x = xp()
    step = _ratio(lr * np.sqrt(max(1 - b2p, 0.0)), 1 - b1p)
    m_new = b1 * _array(m, var) + (1 - b1) * g
    v_new = b2 * _array(v, var) + (1 - b2) * g * g
    vhat_new = x.maximum(_array(vhat, var), v_new)
    _write(var, var._data - step * m_new / (x.sqrt(vhat_new) + eps))
    _write(m, m_new)
    _write(v, v_new)
    _write(vhat, vhat_new)
    return _out(var, m, v, vhat)


class ApplyAdamWithAmsgrad(Primitive):
    """``ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False)(var, m, v, vhat,
    beta1_power, beta2_power, lr, grad)`` -> ``(var, m, v, vhat)``: Adam with ``vhat = max(vhat, v)`` in the
    denominator.
    """

    @prim_attr_register
    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
        op = "ApplyAdamWithAmsgrad"
        for name, value in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if isinstance(value, bool) or not isinstance(value, float):
                raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
        _flags(op, use_locking=use_locking)

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
        op = "ApplyAdamWithAmsgrad"
        b1p, b2p, lr = (_scalar(x, n, op) for x, n in ((beta1_power, "beta1_power"), (beta2_power, "beta2_power"),
                                                       (lr, "lr")))
        return _amsgrad(op, var, m, v, vhat, b1p, b2p, lr, self.beta1, self.beta2, self.epsilon, grad)


class ApplyAdamWithAmsgradV2(Primitive):
    """``ApplyAdamWithAmsgradV2(use_locking=False)(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2,
    epsilon, grad)`` -> ``(var, m, v, vhat)``: :class:`ApplyAdamWithAmsgrad` with the betas as inputs.
    """

    @prim_attr_register
    def __init__(self, use_locking=False):
        _flags("ApplyAdamWithAmsgradV2", use_locking=use_locking)

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        op = "ApplyAdamWithAmsgradV2"
        b1p, b2p, lr, b1, b2, eps = (_scalar(x, n, op) for x, n in (
            (beta1_power, "beta1_power"), (beta2_power, "beta2_power"), (lr, "lr"), (beta1, "beta1"),
            (beta2, "beta2"), (epsilon, "epsilon")))
        return _amsgrad(op, var, m, v, vhat, b1p, b2p, lr, b1, b2, eps, grad)


class ApplyCenteredRMSProp(Primitive):
    """``ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, moment, grad, learning_rate,
    decay, momentum, epsilon)`` -> ``var``:
    ``mg = decay mg + (1 - decay) g``, ``ms = decay ms + (1 - decay) g^2``,
    ``moment = momentum moment + lr g / sqrt(ms - mg^2 + epsilon)``, ``var -= moment``.
    """

    @prim_attr_register
    def __init__(self, use_locking=False):
        _flags("ApplyCenteredRMSProp", use_locking=use_locking)

    def __call__(self, var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum, epsilon):
        op = "ApplyCenteredRMSProp"
        var = _state(var, "var", op)
        mg = _state(mean_gradient, "mean_gradient", op, var)
        ms_ = _state(mean_square, "mean_square", op, var)
        mom = _state(moment, "moment", op, var)
        g = _array(_state(grad, "grad", op, var), var)
        lr, rho, beta, eps = (_scalar(x, n, op) for x, n in (
            (learning_rate, "learning_rate"), (decay, "decay"), (momentum, "momentum"), (epsilon, "epsilon")))
        x = xp()
        mg_new = rho * _array(mg, var) + (1 - rho) * g
        ms_new = rho * _array(ms_, var) + (1 - rho) * g * g
        mom_new = beta * _array(mom, var) + lr * g / x.sqrt(ms_new - mg_new * mg_new + eps)
        _write(var, var._data - mom_new)
        _write(mg, mg_new)
        _write(ms_, ms_new)
        _write(mom, mom_new)
        return _out(var)


class ApplyRMSProp(Primitive):
    """``ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon)``
    -> ``var``: ``ms = decay ms + (1 - decay) g^2``, ``moment = momentum moment + lr g / sqrt(ms + epsilon)``,
    ``var -= moment``.
    """

    @prim_attr_register
    def __init__(self, use_locking=False):
        _flags("ApplyRMSProp", use_locking=use_locking)

    def __call__(self, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
        op = "ApplyRMSProp"
        var = _state(var, "var", op)
        ms_ = _state(mean_square, "mean_square", op, var)
        mom = _state(moment, "moment", op, var)
        g = _array(_state(grad, "grad", op, var), var)
        lr, rho, beta, eps = (_scalar(x, n, op) for x, n in (
            (learning_rate, "learning_rate"), (decay, "decay"), (momentum, "momentum"), (epsilon, "epsilon")))
        x = xp()
        ms_new = rho * _array(ms_, var) + (1 - rho) * g * g
        mom_new = beta * _array(mom, var) + lr * g / x.sqrt(ms_new + eps)
        _write(var, var._data - mom_new)
        _write(ms_, ms_new)
        _write(mom, mom_new)
        return _out(var)


class ApplyGradientDescent(Primitive):
    """``ApplyGradientDescent()(var, alpha, delta)`` -> ``var``: ``var -= alpha * delta``."""

    def __init__(self):
        super().__init__()

    def __call__(self, var, alpha, delta):
        op = "ApplyGradientDescent"
        var = _state(var, "var", op)
        d = _array(_state(delta, "delta", op, var), var)
        _write(var, var._data - _scalar(alpha, "alpha", op) * d)
        return _out(var)


class ApplyMomentum(Primitive):
    """``ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable, accumulation,
    learning_rate, gradient, momentum)`` -> ``variable``:
    ``accum = momentum accum + g``, ``var -= lr accum`` (Nesterov: ``var -= lr (g + momentum accum)``).
    """

    @prim_attr_register
    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        _flags("ApplyMomentum", use_nesterov=use_nesterov, use_locking=use_locking)
        if isinstance(gradient_scale, bool) or not isinstance(gradient_scale, (int, float)):
            raise TypeError(f"For 'ApplyMomentum', 'gradient_scale' must be a float, but got "
                            f"{describe(gradient_scale)}")

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        op = "ApplyMomentum"
        var = _state(variable, "variable", op)
        acc = _state(accumulation, "accumulation", op, var)
        g = _array(_state(gradient, "gradient", op, var), var) * self.gradient_scale
        lr, mom = _scalar(learning_rate, "learning_rate", op), _scalar(momentum, "momentum", op)
        acc_new = mom * _array(acc, var) + g
        step = g + mom * acc_new if self.use_nesterov else acc_new
        _write(var, var._data - lr * step)
        _write(acc, acc_new)
        return _out(var)


class SGD(Primitive):
    """``SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, gradient, learning_rate, accum, momentum,
    stat)`` -> ``parameters``: stochastic gradient descent with momentum (PyTorch's rule).

    ``g += weight_decay * p``; with momentum, ``accum = g`` on the first step (``stat`` 1) and
    ``accum = momentum accum + (1 - dampening) g`` after; ``p -= lr * (g + momentum accum if nesterov else accum)``.
    ``stat`` becomes 0.
    """

    @prim_attr_register
    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        op = "SGD"
        for name, value in (("dampening", dampening), ("weight_decay", weight_decay)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
        _flags(op, nesterov=nesterov)
        if nesterov and dampening != 0:
            raise ValueError(f"For '{op}', nesterov needs 'dampening' 0, but got {dampening}")

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        op = "SGD"
        p = _state(parameters, "parameters", op)
        g = _array(_state(gradient, "gradient", op, p), p)
        acc = _state(accum, "accum", op, p)
        st = _state(stat, "stat", op, p)
        lr, mom = _scalar(learning_rate, "learning_rate", op), _scalar(momentum, "momentum", op)
        x = xp()
        if self.weight_decay:
            g = g + self.weight_decay * p._data
        if mom > 0:
            first = _array(st, p) > 0
            acc_new = x.where(first, g, mom * _array(acc, p) + (1 - self.dampening) * g)
            step = g + mom * acc_new if self.nesterov else acc_new
            _write(acc, acc_new)
        else:
            step = g
        _write(p, p._data - lr * step)
        _write(st, x.zeros_like(st._data))
        return _out(p)
