"""More activation functions: CELU, SELU, the shrinks, hardtanh, softsign, threshold, PReLU, RReLU, GLU ...

The elementwise ones follow the op pattern of ``cellkit/ops/_core.py``: a forward on
the backend's arrays and a backward rule written in the rule namespace ``m``, so the
same rule text gives second derivatives.  Those that are naturally a few other ops
(softmin, GLU, Gumbel-softmax) are written as those ops on Tensors and differentiate
through them.

Dtypes follow MindSpore 2.10 on the CPU: most accept only float tensors; ``hardtanh``,
``threshold`` and ``rrelu`` also keep integer tensors as they are.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.hardshrink(ms.Tensor([-1.0, 0.2, 0.7])))
[-1.   0.   0.7]
>>> print(ops.softsign(ms.Tensor([1.0, -3.0])))
[ 0.5  -0.75]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from . import activation as _act
from . import math as _math
from . import shape_ops as _shape
from ._core import describe, normalize_axis, record, tensor_arg, wrap, xp
from .activation import _finish, _input_of, _mask, _sigmoid_array, _softplus_array, _unary_primitive
from .primitive import Primitive, prim_attr_register

__all__ = [
    "celu", "selu", "hardshrink", "hardtanh", "softshrink", "soft_shrink", "softsign", "tanhshrink", "threshold",
    "logsigmoid", "softmin", "prelu", "rrelu", "glu", "gumbel_softmax",
    "SeLU", "Softsign", "GLU", "CeLU", "HShrink", "SoftShrink", "PReLU", "LogSigmoid",
]

_FLOATS = ("Float16", "Float32", "Float64")


def _float_tensor(input, name, op, allowed=_FLOATS):
    """``(tensor, array)`` of a float argument; TypeError naming ``op`` for any other dtype."""
    t = tensor_arg(input, name, op)
    if str(t.dtype) not in allowed:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of {', '.join(allowed)}, but got {t.dtype}")
    return t, t._data


def _wide(a):
    """Half-precision arrays computed in Float32 (rounded once, at the end, as MindSpore's CPU kernels do)."""
    x = xp()
    return x.astype(a, x.float32) if a.dtype == getattr(x, "float16", None) else a


def _number(value, name, op):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{op}', '{name}' must be a float or an int, but got {describe(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"For '{op}', '{name}' must be finite, but got {value}")
    return value


def _scalar_like(value, a):
    """A Python number as a 0-d array of ``a``'s dtype on ``a``'s device (so float16 stays float16)."""
    x = xp()
    if hasattr(a, "device") and not isinstance(a, np.ndarray):
        return x.asarray(value, dtype=a.dtype, device=a.device)
    return np.asarray(value, dtype=a.dtype)


# -- exponential units ----------------------------------------------------------------------
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Parameters
    ----------
    x : Tensor of float16, float32 or float64
    alpha : float, not 0

    >>> import cellkit as ms
    >>> print(celu(ms.Tensor([-2.0, 1.0])))
    [-0.86466473  1.        ]
    """
    op = "celu"
    alpha = _number(alpha, "alpha", op)
    if alpha == 0:
        raise ValueError(f"For '{op}', 'alpha' must not be 0, but got {alpha}")
    t, a = _float_tensor(x, "x", op)
    xs = xp()
    w = _wide(a)
    out = xs.maximum(w, 0) + xs.expm1(xs.minimum(w, 0) / alpha) * alpha
    return _finish(t, xs.astype(out, a.dtype), "CeLU", _celu_rule, (a,), info=alpha)


def _celu_rule(m, node, g):
    """1 for x > 0, exp(x / alpha) below (exp of min(x, 0): no overflow)."""
    a = _input_of(m, node)
    positive = m.mask(a > 0, g)
    return (g * (positive + (1 - positive) * m.exp(m.minimum(a, 0.0) / node.info)),)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input_x):
    """Scaled ELU: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with SELU's fixed constants.

    >>> import cellkit as ms
    >>> print(selu(ms.Tensor([0.0, 2.0])))
    [0.       2.101402]
    """
    t, a = _float_tensor(input_x, "input_x", "selu")
    xs = xp()
    w = _wide(a)
    out = (xs.maximum(w, 0) + xs.expm1(xs.minimum(w, 0)) * _SELU_ALPHA) * _SELU_SCALE
    return _finish(t, xs.astype(out, a.dtype), "SeLU", _selu_rule, (a,))


def _selu_rule(m, node, g):
    a = _input_of(m, node)
    positive = m.mask(a > 0, g)
    return (g * ((positive + (1 - positive) * m.exp(m.minimum(a, 0.0)) * _SELU_ALPHA) * _SELU_SCALE),)


# -- shrinks and clips ----------------------------------------------------------------------
def _mask_rule(m, node, g):
    """A piecewise-linear op of slope 0 or 1: the gradient passes where the saved mask is set."""
    (keep,) = node.unpack(m)
    return (g * m.mask(keep, g),)


def _masked(t, out, keep, name):
    return _finish(t, out, name, _mask_rule, (keep,), (None,))


def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, 0 elsewhere.

    >>> import cellkit as ms
    >>> print(hardshrink(ms.Tensor([0.3, -0.6]), lambd=0.5))
    [ 0.  -0.6]
    """
    op = "hardshrink"
    lambd = _number(lambd, "lambd", op)
    t, a = _float_tensor(input, "input", op)
    xs = xp()
    keep = xs.abs(a) > lambd
    return _masked(t, xs.where(keep, a, xs.zeros_like(a)), keep, "HShrink")


def softshrink(input, lambd=0.5):
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, 0 between.

    ``lambd`` must be at least 0.

    >>> import cellkit as ms
    >>> print(softshrink(ms.Tensor([1.0, -0.2, -2.0])))
    [ 0.5  0.  -1.5]
    """
    op = "softshrink"
    lambd = _number(lambd, "lambd", op)
    if lambd < 0:
        raise RuntimeError(f"For '{op}', 'lambd' must be at least 0, but got {lambd}")
    t, a = _float_tensor(input, "input", op)
    xs = xp()
    keep = xs.abs(a) > lambd
    out = xs.where(keep, a - xs.sign(a) * lambd, xs.zeros_like(a))
    return _masked(t, xs.astype(out, a.dtype), keep, "SoftShrink")


def soft_shrink(input, lambd=0.5):
    """The same as :func:`softshrink` (MindSpore's other spelling).

    >>> import cellkit as ms
    >>> print(soft_shrink(ms.Tensor([1.0])))
    [0.5]
    """
    return softshrink(input, lambd)


def _limits(input, low, high, op):
    """Clip ``input`` to ``[low, high]``; integer and bool tensors keep their dtype (as MindSpore's do)."""
    t = tensor_arg(input, "input", op)
    a = t._data
    xs = xp()
    if _dt.dtype_of(a).kind == "float":
        out = xs.clip(a, low, high)
        return t, a, xs.astype(out, a.dtype)
    wide = xs.astype(a, _dt.float64.to_backend(xs))
    return t, a, xs.astype(xs.clip(wide, low, high), a.dtype)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """Clip ``input`` to ``[min_val, max_val]``; the gradient is 1 strictly inside, 0 outside.

    >>> import cellkit as ms
    >>> print(hardtanh(ms.Tensor([-2.0, 0.5, 3.0])))
    [-1.   0.5  1. ]
    """
    op = "hardtanh"
    low, high = _number(min_val, "min_val", op), _number(max_val, "max_val", op)
    if low > high:
        raise ValueError(f"For '{op}', 'min_val' must not be greater than 'max_val', but got {min_val!r} and "
                         f"{max_val!r}")
    t, a, out = _limits(input, low, high, op)
    if _dt.dtype_of(a).kind != "float":
        return wrap(out)
    return _masked(t, out, (a > low) & (a < high), "Hardtanh")


def threshold(input, thr, value):
    """``input`` where it is greater than ``thr``, ``value`` elsewhere (the dtype is kept).

    >>> import cellkit as ms
    >>> print(threshold(ms.Tensor([0.0, 2.0, 3.0]), 1, 100))
    [100.   2.   3.]
    """
    op = "threshold"
    thr = _number(thr, "thr", op)
    value = _number(value, "value", op)
    t = tensor_arg(input, "input", op)
    a = t._data
    xs = xp()
    if _dt.dtype_of(a).kind == "bool":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got {t.dtype}")
    keep = a > (thr if _dt.dtype_of(a).kind == "float" else math.floor(thr))  # no float scalar against ints
    out = xs.where(keep, a, _scalar_like(value if _dt.dtype_of(a).kind == "float" else int(value), a))
    if _dt.dtype_of(a).kind != "float":
        return wrap(out)
    return _masked(t, out, keep, "Threshold")


# -- smooth ones ---------------------------------------------------------------------------
def softsign(x):
    """``x / (1 + |x|)``.

    >>> import cellkit as ms
    >>> print(softsign(ms.Tensor([0.0, 1.0])))
    [0.  0.5]
    """
    t, a = _float_tensor(x, "x", "softsign")
    xs = xp()
    w = _wide(a)
    out = w / (1 + xs.abs(w))
    return _finish(t, xs.astype(out, a.dtype), "Softsign", _softsign_rule, (a,))


def _softsign_rule(m, node, g):
    a = _input_of(m, node)
    d = 1 + m.abs(a)
    return (g / (d * d),)


def tanhshrink(input):
    """``input - tanh(input)``; integer tensors are computed in Float32.

    >>> import cellkit as ms
    >>> print(tanhshrink(ms.Tensor([0.0])))
    [0.]
    """
    op = "tanhshrink"
    t = tensor_arg(input, "input", op)
    if str(t.dtype) == "Bool":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got {t.dtype}")
    a = t._data
    xs = xp()
    if _dt.dtype_of(a).kind != "float":
        a = xs.astype(a, _dt.float32.to_backend(xs))
    w = _wide(a)
    out = xs.astype(w - xs.tanh(w), a.dtype)
    return _finish(t, out, "Tanhshrink", _tanhshrink_rule, (a,))


def _tanhshrink_rule(m, node, g):
    th = m.tanh(_input_of(m, node))
    return (g * (th * th),)


def logsigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, computed without overflow.

    >>> import cellkit as ms
    >>> print(logsigmoid(ms.Tensor([0.0])))
    [-0.6931472]
    """
    t, a = _float_tensor(x, "x", "logsigmoid")
    out = -_softplus_array(-a)
    return _finish(t, out, "LogSigmoid", _logsigmoid_rule, (a,))


def _logsigmoid_rule(m, node, g):
    return (g * m.sigmoid(-_input_of(m, node)),)


def softmin(x, axis=-1, *, dtype=None):
    """``softmax(-x)`` along ``axis``.

    >>> import cellkit as ms
    >>> print(softmin(ms.Tensor([0.0, 0.0])))
    [0.5 0.5]
    """
    op = "softmin"
    t, _ = _float_tensor(x, "x", op)
    if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
        raise TypeError(f"For '{op}', 'axis' must be an int or a tuple of ints, but got {describe(axis)}")
    return _act._softmax(_math.neg(t), axis, op, False, dtype, name="x")


# -- parametric and random slopes ----------------------------------------------------------
def prelu(input, weight):
    """``max(0, x) + min(0, w * x)`` with one slope ``w`` per channel (axis 1), or one for all.

    ``weight`` is 0-D or 1-D with 1 element or as many as ``input`` has channels.

    >>> import cellkit as ms
    >>> print(prelu(ms.Tensor([[-2.0, 3.0]]), ms.Tensor([0.25])))
    [[-0.5  3. ]]
    """
    op = "prelu"
    t, a = _float_tensor(input, "input", op)
    wt, w = _float_tensor(weight, "weight", op)
    if wt.ndim > 1:
        raise ValueError(f"For '{op}', 'weight' must be a 0-D or 1-D Tensor, but got shape {wt.shape}")
    channels = a.shape[1] if a.ndim >= 2 else 1
    size = 1 if wt.ndim == 0 else wt.shape[0]
    if size not in (1, channels):
        raise ValueError(f"For '{op}', 'weight' must have 1 or {channels} elements (the channels of 'input' of "
                         f"shape {t.shape}), but got shape {wt.shape}")
    if w.dtype != a.dtype:
        raise TypeError(f"For '{op}', 'weight' must have the dtype of 'input' ({t.dtype}), but got {wt.dtype}")
    xs = xp()
    shape = (1, size) + (1,) * (a.ndim - 2) if a.ndim >= 2 else (size,) if a.ndim == 1 else ()
    W = xs.reshape(w, shape)
    positive = _mask(a > 0, a)
    out = a * (positive + (1 - positive) * W)
    if _ag._depth == 0 or (t._node is None and wt._node is None):
        return wrap(out)
    return record(out, "PReLU", _prelu_rule, (t, wt), (a, w), (0, 1), (shape, tuple(w.shape)))


def _prelu_rule(m, node, g):
    a, w = node.unpack(m)
    shape, w_shape = node.info
    positive = m.mask(a > 0, g)
    gx = gw = None
    if node.inputs[0] is not None:
        gx = g * (positive + (1 - positive) * m.reshape(w, shape))
    if node.inputs[1] is not None:
        gw = m.reshape(m.sum_to(g * (1 - positive) * a, shape), w_shape)
    return gx, gw


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """Randomized leaky ReLU: negative values are scaled by a slope drawn from ``U(lower, upper)`` per element.

    The slopes come from cellkit's generator (``ms.set_seed`` makes them reproducible).
    Integer tensors keep their dtype.

    >>> import cellkit as ms
    >>> print(rrelu(ms.Tensor([-1.0, 2.0]), lower=0.5, upper=0.5))
    [-0.5  2. ]
    """
    from . import random as _random

    op = "rrelu"
    low, high = _number(lower, "lower", op), _number(upper, "upper", op)
    if low > high:
        raise ValueError(f"For '{op}', 'lower' must not be greater than 'upper', but got {lower!r} and {upper!r}")
    t = tensor_arg(input, "input", op)
    a = t._data
    if str(t.dtype) == "Bool":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got {t.dtype}")
    xs = xp()
    u = _random._uniform_like(a, _random._stream(None))
    if _dt.dtype_of(a).kind != "float":
        # MindSpore's integer kernel multiplies by the slope cast to the integer dtype.
        return wrap(xs.where(a >= 0, a, a * xs.astype(low + (high - low) * u, a.dtype)))
    slope = xs.where(a >= 0, _scalar_like(1.0, a), xs.astype(low + (high - low) * u, a.dtype))
    out = a * slope
    return _finish(t, out, "RReLU", _rrelu_rule, (slope,), (None,))


def _rrelu_rule(m, node, g):
    (slope,) = node.unpack(m)
    return (g * slope,)


# -- compositions ----------------------------------------------------------------------------
def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` where ``a`` and ``b`` are the two halves of ``x`` along ``axis``.

    >>> import cellkit as ms
    >>> print(glu(ms.Tensor([[1.0, 0.0]])))
    [[0.5]]
    """
    op = "glu"
    t, _ = _float_tensor(x, "x", op, ("Float32", "Float64"))
    if t.ndim == 0:
        raise ValueError(f"For '{op}', 'x' must have at least 1 dimension, but got a scalar")
    axis = normalize_axis(axis, t.ndim, op)
    if t.shape[axis] % 2:
        raise ValueError(f"For '{op}', the size of axis {axis} of 'x' (shape {t.shape}) must be even, "
                         f"but got {t.shape[axis]}")
    half = t.shape[axis] // 2
    a = _shape.narrow(t, axis, 0, half)
    b = _shape.narrow(t, axis, half, half)
    return a * _act.sigmoid(b)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """Samples of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with Gumbel noise ``g``.

    With ``hard=True`` the result is the one-hot vector of each sample's largest entry, while
    its gradient is that of the soft sample (the straight-through estimator).  The noise comes
    from cellkit's generator.

    >>> import cellkit as ms
    >>> y = gumbel_softmax(ms.Tensor([[100.0, 0.0, 0.0]]), hard=True)
    >>> print(y)
    [[1. 0. 0.]]
    """
    from . import random as _random
    from .gradient_control import stop_gradient

    op = "gumbel_softmax"
    t, a = _float_tensor(logits, "logits", op)
    if isinstance(tau, bool) or not isinstance(tau, float):
        raise TypeError(f"For '{op}', 'tau' must be a float, but got {describe(tau)}")
    if not tau > 0 or not math.isfinite(tau):
        raise ValueError(f"For '{op}', 'tau' must be a positive finite float, but got {tau}")
    if not isinstance(hard, bool):
        raise TypeError(f"For '{op}', 'hard' must be a bool, but got {describe(hard)}")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"For '{op}', 'dim' must be an int, but got {describe(dim)}")
    if t.ndim == 0:
        raise ValueError(f"For '{op}', 'logits' must have at least 1 dimension, but got a scalar")
    axis = normalize_axis(dim, t.ndim, op, "dim")
    xs = xp()
    u = _random._uniform_like(a, _random._stream(None))
    tiny = float(np.finfo(np.float32).tiny)
    noise = -xs.log(-xs.log(xs.clip(u, tiny, 1.0 - 1e-7)))
    soft = _act.softmax((t + wrap(xs.astype(noise, a.dtype))) / tau, axis)
    if not hard:
        return soft
    s = soft._data
    winner = xs.argmax(s, axis=axis, keepdims=True)
    index = xs.reshape(xs.arange(s.shape[axis], device=getattr(s, "device", None)) if not isinstance(s, np.ndarray)
                       else np.arange(s.shape[axis]), tuple(s.shape[axis] if i == axis else 1 for i in range(s.ndim)))
    one_hot = wrap(xs.astype(index == winner, s.dtype))
    return one_hot - stop_gradient(soft) + soft


# -- Primitive classes --------------------------------------------------------------------------
SeLU = _unary_primitive("SeLU", selu, "``SeLU()(input_x)``: see :func:`selu`.")
Softsign = _unary_primitive("Softsign", softsign, "``Softsign()(x)``: see :func:`softsign`.")
LogSigmoid = _unary_primitive("LogSigmoid", logsigmoid, "``LogSigmoid()(x)``: see :func:`logsigmoid`.")


class GLU(Primitive):
    """``GLU(axis=-1)(x)``: see :func:`glu`."""

    @prim_attr_register
    def __init__(self, axis=-1):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'GLU', 'axis' must be an int, but got {describe(axis)}")

    def __call__(self, x):
        return glu(x, self.axis)


class CeLU(Primitive):
    """``CeLU(alpha=1.0)(input_x)``: see :func:`celu`."""

    @prim_attr_register
    def __init__(self, alpha=1.0):
        alpha = _number(alpha, "alpha", "CeLU")
        if alpha == 0:
            raise ValueError(f"For 'CeLU', 'alpha' must not be 0, but got {alpha}")

    def __call__(self, input_x):
        return celu(input_x, self.alpha)


class HShrink(Primitive):
    """``HShrink(lambd=0.5)(input_x)``: see :func:`hardshrink`."""

    @prim_attr_register
    def __init__(self, lambd=0.5):
        _number(lambd, "lambd", "HShrink")

    def __call__(self, input_x):
        return hardshrink(input_x, self.lambd)


class SoftShrink(Primitive):
    """``SoftShrink(lambd=0.5)(input_x)``: see :func:`softshrink`."""

    @prim_attr_register
    def __init__(self, lambd=0.5):
        if _number(lambd, "lambd", "SoftShrink") < 0:
            raise ValueError(f"For 'SoftShrink', 'lambd' must be at least 0, but got {lambd}")

    def __call__(self, input_x):
        return softshrink(input_x, self.lambd)


class PReLU(Primitive):
    """``PReLU()(x, weight)``: see :func:`prelu`."""

    def __call__(self, x, weight):
        return prelu(x, weight)


def _tensor_hardshrink(self, lambd=0.5):
    return hardshrink(self, lambd)


def _tensor_softmax(self, axis=-1, dtype=None):
    return _act.softmax(self, axis, dtype=dtype)


def _tensor_sigmoid(self):
    return _act.sigmoid(self)


# Tensor methods (collected by nn_functional.TENSOR_METHODS).
TENSOR_METHODS = {
    "hardshrink": _tensor_hardshrink,
    "soft_shrink": soft_shrink,
    "softmax": _tensor_softmax,
    "sigmoid": _tensor_sigmoid,
}
