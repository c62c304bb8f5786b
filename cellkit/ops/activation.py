"""Activation functions (ReLU, GELU, softmax ...) with their gradients.

Each function takes a Tensor (or a number / list), computes on the current
backend's arrays and, only while a gradient transform records, records its
backward rule (see ``_core`` for the op pattern).  Integer inputs are computed as Float32, except for
:func:`relu`, which keeps integers as integers (as MindSpore does).

The array API has no ``erf``, which the exact GELU needs, so this module
carries its own: two Chebyshev expansions (fitted for cellkit against a
150-digit reference) that are accurate to about 2e-14 in float64.

>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor([-1.0, 0.0, 2.0])
>>> print(ops.relu(x))
[0. 0. 2.]
>>> print(ops.softmax(ms.Tensor([1.0, 1.0])))
[0.5 0.5]
"""
from __future__ import annotations

import math

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor
from ..autograd import OUTPUT
from ._core import float_array, normalize_axis, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = [
    "relu", "relu6", "leaky_relu", "elu", "sigmoid", "tanh", "gelu", "fast_gelu", "silu", "softplus",
    "hardswish", "hardsigmoid", "mish", "softmax", "log_softmax",
    "ReLU", "ReLU6", "Sigmoid", "Tanh", "GeLU", "FastGeLU", "SiLU", "HSwish", "HSigmoid", "Elu",
    "Softplus", "Mish", "Softmax", "LogSoftmax",
]


def _float_input(input, op):
    """``(tensor, float array)`` for an activation's argument."""
    t = tensor_arg(input, "input", op)
    return t, float_array(t, op)


_INPUT, _OUT = (0,), (OUTPUT,)


def _finish(t, out, name, rule, saved, sources=_INPUT, info=None):
    """Wrap ``out``; record the op only if ``t`` is on a running tape."""
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, name, rule, (t,), saved, sources, info)


def _input_of(m, node):
    return node.unpack(m)[0]


def _mask(condition, like):
    """A boolean array as 0/1 in ``like``'s dtype.

    Multiplying by such a mask is several times faster than ``where`` on an
    unpredictable condition (no branch per element), so the hot gradients
    use it; it is only used where the other factor is finite.
    """
    return xp().astype(condition, like.dtype)


def _check_number(value, name, op):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{op}', '{name}' must be a number (int or float), but got {type(value).__name__}")
    return value


# -- the ReLU family ------------------------------------------------------------
def relu(input, inplace=False):
    """Rectified linear unit: ``max(input, 0)``.

    Integer tensors stay integer.  The gradient is 1 where ``input > 0`` and 0
    elsewhere (0 at exactly 0).  With ``inplace=True`` the result replaces the
    values of ``input`` (which must be a Tensor) and ``input`` is returned.

    >>> import cellkit as ms
    >>> print(relu(ms.Tensor([-1, 0, 3])))
    [0 0 3]
    """
    if _ag._depth == 0 and not inplace and _backend._current.is_numpy:
        a = getattr(input, "_data", None)
        if a is not None and a.dtype.kind in "fiu":
            return wrap(np.maximum(a, 0))  # the hot path of every ReLU layer: one NumPy call
    t = tensor_arg(input, "input", "relu")
    a = t._data
    x = xp()
    if _dt.dtype_of(a) is _dt.bool_:
        out = a
    else:
        out = x.maximum(a, 0)  # maximum, not where: NaN stays NaN
    if _ag._depth == 0 or t._node is None:
        result = wrap(out)
    else:
        result = record(out, "ReLU", _relu_rule, (t,), (a,), _INPUT)
    if inplace:
        if not isinstance(input, Tensor):
            raise TypeError(f"For 'relu', 'input' must be a Tensor when inplace=True, but got {type(input).__name__}")
        input._data = result._data
        input._node = result._node
        return input
    return result


def _relu_rule(m, node, g):
    """1 where the input was positive, 0 elsewhere (at 0 too)."""
    return (g * m.mask(_input_of(m, node) > 0, g),)


def relu6(x):
    """``min(max(x, 0), 6)``; the gradient is 1 for ``0 < x <= 6`` (as in MindSpore).

    >>> import cellkit as ms
    >>> print(relu6(ms.Tensor([-1.0, 3.0, 7.0])))
    [0. 3. 6.]
    """
    t, a = _float_input(x, "relu6")
    xs = xp()
    out = xs.clip(a, 0.0, 6.0)
    return _finish(t, out, "ReLU6", _relu6_rule, (a,))


def _relu6_rule(m, node, g):
    a = _input_of(m, node)
    return (g * m.mask((a > 0) & (a <= 6), g),)


def leaky_relu(input, alpha=0.2):
    """``input`` where it is non-negative, ``alpha * input`` elsewhere.

    The gradient is 1 for ``input > 0`` and ``alpha`` otherwise.  Integer tensors keep
    their dtype: as MindSpore's integer kernel does, they are scaled by ``alpha``
    truncated to an integer.

    >>> import cellkit as ms
    >>> print(leaky_relu(ms.Tensor([-2.0, 3.0])))
    [-0.4  3. ]
    """
    _check_number(alpha, "alpha", "leaky_relu")
    t = tensor_arg(input, "input", "leaky_relu")
    a = t._data
    kind = _dt.dtype_of(a).kind
    if kind in ("int", "uint"):
        return wrap(xp().where(a >= 0, a, a * int(alpha)))
    if kind != "float":
        a = float_array(t, "leaky_relu")
    out = a * (_mask(a >= 0, a) * (1 - alpha) + alpha)  # a factor of 1 or alpha: exact, inf-safe
    return _finish(t, out, "LeakyReLU", _leaky_relu_rule, (a,), info=alpha)


def _leaky_relu_rule(m, node, g):
    alpha = node.info
    return (g * (m.mask(_input_of(m, node) > 0, g) * (1 - alpha) + alpha),)


def elu(input_x, alpha=1.0):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    MindSpore accepts only ``alpha=1.0``; cellkit accepts any number.

    >>> import cellkit as ms
    >>> print(elu(ms.Tensor([0.0, 2.0])))
    [0. 2.]
    """
    _check_number(alpha, "alpha", "elu")
    t = tensor_arg(input_x, "input_x", "elu")
    a = float_array(t, "elu")
    xs = xp()
    negative = xs.minimum(a, 0.0)  # no overflow in expm1 for large x
    out = xs.maximum(a, 0.0) + xs.expm1(negative) * alpha  # one of the two terms is exactly 0
    return _finish(t, out, "Elu", _elu_rule, (a,), info=alpha)


def _elu_rule(m, node, g):
    """1 for x > 0, ``alpha * exp(x)`` elsewhere (exp of min(x, 0): no overflow)."""
    a = _input_of(m, node)
    positive = m.mask(a > 0, g)
    return (g * (positive + (1 - positive) * (m.exp(m.minimum(a, 0.0)) * node.info)),)


# -- sigmoid-shaped functions -----------------------------------------------------
def _sigmoid_array(a):
    """``1 / (1 + exp(-a))``, with ``a`` clipped where ``exp(-a)`` would overflow.

    This form keeps full relative precision in both tails (unlike
    ``0.5 * (1 + tanh(a / 2))``) and needs no branch per element.
    """
    xs = xp()
    lowest = -math.log(float(xs.finfo(a.dtype).max)) + 1
    s = 1 / (1 + xs.exp(-xs.maximum(a, lowest)))
    # Below ``lowest`` the true value is under the smallest normal number: make it 0.
    return s * _mask(a >= lowest, s)


def _softplus_array(a):
    """``log(1 + exp(a))`` without overflow."""
    xs = xp()
    return xs.maximum(a, 0.0) + xs.log1p(xs.exp(-xs.abs(a)))


def sigmoid(input):
    """Logistic function ``1 / (1 + exp(-input))``, computed without overflow.

    >>> import cellkit as ms
    >>> print(sigmoid(ms.Tensor([0.0])))
    [0.5]
    """
    t, a = _float_input(input, "sigmoid")
    out = _sigmoid_array(a)
    return _finish(t, out, "Sigmoid", _sigmoid_rule, (out,), _OUT)


def _sigmoid_rule(m, node, g):
    """s' = s (1 - s), from the saved output."""
    out = node.unpack(m)[0]
    return (g * out * (1 - out),)


def tanh(input):
    """Hyperbolic tangent; gradient ``1 - tanh(x)**2``.

    >>> import cellkit as ms
    >>> print(tanh(ms.Tensor([0.0])))
    [0.]
    """
    t, a = _float_input(input, "tanh")
    out = xp().tanh(a)
    return _finish(t, out, "Tanh", _tanh_rule, (out,), _OUT)


def _tanh_rule(m, node, g):
    out = node.unpack(m)[0]
    return (g * (1 - out * out),)


def silu(input):
    """Sigmoid linear unit (swish): ``input * sigmoid(input)``.

    >>> import cellkit as ms
    >>> print(silu(ms.Tensor([0.0])))
    [0.]
    """
    t, a = _float_input(input, "silu")
    out = a * _sigmoid_array(a)
    return _finish(t, out, "SiLU", _silu_rule, (a,))


def _silu_rule(m, node, g):
    """(x s(x))' = s (1 + x (1 - s))."""
    a = _input_of(m, node)
    s = m.sigmoid(a)
    return (g * (s * (1 + a * (1 - s))),)


def softplus(input, beta=1, threshold=20):
    """``log(1 + exp(beta * x)) / beta``; linear (``x``) where ``beta * x > threshold``.

    >>> import cellkit as ms
    >>> print(softplus(ms.Tensor([0.0, 30.0])))
    [ 0.6931472 30.       ]
    """
    _check_number(beta, "beta", "softplus")
    _check_number(threshold, "threshold", "softplus")
    if beta == 0:
        raise ValueError("For 'softplus', 'beta' must not be 0")
    t, a = _float_input(input, "softplus")
    xs = xp()
    scaled = a * beta
    linear = scaled > threshold
    out = xs.where(linear, a, _softplus_array(scaled) / beta)
    return _finish(t, out, "Softplus", _softplus_rule, (a, linear), (0, None), beta)


def _softplus_rule(m, node, g):
    """sigmoid(beta x) on the smooth part, 1 on the linear part."""
    a, linear = node.unpack(m)
    return (m.where(linear, g, g * m.sigmoid(a * node.info)),)


def hardsigmoid(input):
    """Piecewise-linear sigmoid: ``relu6(x + 3) / 6``.

    >>> import cellkit as ms
    >>> print(hardsigmoid(ms.Tensor([-4.0, 0.0, 4.0])))
    [0.  0.5 1. ]
    """
    t = tensor_arg(input, "input", "hardsigmoid")
    if _dt.dtype_of(t._data).kind != "float":
        return _hard_on_integers(t, "hardsigmoid", lambda f: xp().clip(f + 3, 0.0, 6.0) / 6)
    a = t._data
    out = xp().clip(a + 3, 0.0, 6.0) / 6
    return _finish(t, out, "HSigmoid", _hardsigmoid_rule, (a,))


def _hardsigmoid_rule(m, node, g):
    a = _input_of(m, node)
    return (g * (m.mask((a > -3) & (a < 3), g) / 6),)


def hardswish(input):
    """``x * relu6(x + 3) / 6``; the gradient uses ``(2x + 3) / 6`` on ``[-3, 3]``.

    >>> import cellkit as ms
    >>> print(hardswish(ms.Tensor([-4.0, 0.0, 4.0])))
    [0. 0. 4.]
    """
    t = tensor_arg(input, "input", "hardswish")
    if _dt.dtype_of(t._data).kind != "float":
        return _hard_on_integers(t, "hardswish", lambda f: f * xp().clip(f + 3, 0.0, 6.0) / 6)
    a = t._data
    # "+ 0.0" turns the -0.0 that x * 0 gives for x < -3 into 0.0, which prints as MindSpore's "0."
    out = a * xp().clip(a + 3, 0.0, 6.0) / 6 + 0.0
    return _finish(t, out, "HSwish", _hardswish_rule, (a,))


def _hard_on_integers(t, op, formula):
    """hardswish / hardsigmoid of a signed-integer tensor: MindSpore keeps the dtype and divides as integers do.

    The formula runs in float64 (exact for these values) and is cut toward zero, as C's integer division
    cuts: hardswish(-1) = -1 * 2 / 6 -> 0.  Unsigned and bool tensors are refused, as MindSpore refuses them.
    No gradient flows through an integer result.
    """
    dtype = _dt.dtype_of(t._data)
    if dtype.kind != "int" or dtype is _dt.uint8:
        raise TypeError(f"For '{op}', 'input' must be a float or signed int tensor "
                        f"(Float16, Float32, Float64, BFloat16, Int8, Int16, Int32, Int64), but got {dtype}")
    xs = xp()
    exact = formula(xs.astype(t._data, _dt.float64.to_backend(xs)))
    return wrap(xs.astype(xs.trunc(exact), t._data.dtype))


def _hardswish_rule(m, node, g):
    """``(2x + 3) / 6`` on [-3, 3], 1 above, 0 below."""
    a = _input_of(m, node)
    middle = m.mask((a >= -3) & (a <= 3), g)
    slope = middle * ((2 * m.minimum(m.maximum(a, -3.0), 3.0) + 3) / 6) + m.mask(a > 3, g)
    return (g * slope,)


def mish(x):
    """``x * tanh(softplus(x))``.

    >>> import cellkit as ms
    >>> print(mish(ms.Tensor([0.0])))
    [0.]
    """
    t, a = _float_input(x, "mish")
    out = a * xp().tanh(_softplus_array(a))
    return _finish(t, out, "Mish", _mish_rule, (a,))


def _mish_rule(m, node, g):
    """(x tanh(sp(x)))' = tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x)."""
    a = _input_of(m, node)
    th = m.tanh(m.softplus(a))
    return (g * (th + a * (1 - th * th) * m.sigmoid(a)),)


# -- GELU and its erf -------------------------------------------------------------
# Chebyshev coefficients (fitted for cellkit; see the module docstring).
# erf(x) / x for |x| < 2, in the variable t = x**2 / 2 - 1:
_ERF_OVER_X = (
    0.7415552820424018, -0.3010710733865949, 0.06899483068983141, -0.0139162712647221,
    0.002420799522433245, -0.0003658639685847301, 4.862098443212146e-05, -5.749256557924448e-06,
    6.113243573847283e-07, -5.8991015061669514e-08, 5.207008281339477e-09, -4.232972162088589e-10,
    3.188016517441383e-11, -2.235664328561934e-12, 1.4563247727092284e-13, -8.511709855459534e-15,
)
# y * exp(y**2) * erfc(y) for 2 <= y <= 12, in t = (2 / y**2 - (1/4 + 1/144)) / (1/4 - 1/144):
_ERFC_SCALED = (
    0.5349165833610753, -0.02558161438518917, 0.001587143083061397, -0.00014566336834677442,
    1.6908117955845874e-05, -2.309245454398364e-06, 3.5625150014214014e-07, -6.049687110405219e-08,
    1.1110540523449136e-08, -2.1789262043404554e-09, 4.519747528750689e-10, -9.843458933260989e-11,
    2.2376435829699867e-11, -5.28462578356979e-12, 1.291182214909866e-12, -3.255173908200959e-13,
    8.377886198405254e-14, -2.2426505097428162e-14, 5.20014139276041e-15, -1.6707065838310824e-15,
)
_W_LO, _W_HI = 1 / 144, 1 / 4


def _power_basis(chebyshev_coefficients):
    """The same polynomial of ``t`` in powers of ``t`` (for Horner's rule).

    Horner's rule makes fewer temporary arrays than Clenshaw's recurrence
    (measured 5x faster on NumPy); on ``[-1, 1]`` these series stay well
    conditioned in the power basis (no coefficient exceeds 0.7).
    """
    return tuple(float(c) for c in np.polynomial.chebyshev.cheb2poly(np.asarray(chebyshev_coefficients)))


# Power-basis coefficients by precision: in single precision the later
# Chebyshev terms are below rounding, so fewer terms give the same accuracy.
_SMALL_POLY = {"double": _power_basis(_ERF_OVER_X), "single": _power_basis(_ERF_OVER_X[:10])}
_LARGE_POLY = {"double": _power_basis(_ERFC_SCALED), "single": _power_basis(_ERFC_SCALED[:9])}


def _horner(t, coefficients):
    """``sum c_k t**k``, updating one buffer in place (no temporary per step)."""
    result = t * coefficients[-1]
    result += coefficients[-2]
    for c in coefficients[-3::-1]:
        result *= t
        result += c
    return result


def _erfc_far(y, precision):
    """erfc(y) for ``y >= 2`` (smaller values are clipped to 2: the caller masks them out)."""
    xs = xp()
    y_large = xs.clip(y, 2.0, 30.0)  # past 30 erfc underflows to 0 anyway
    w = xs.minimum(y_large, 12.0)  # the fitted range; beyond it the factor is nearly constant
    w *= w
    w = 2 / w
    w -= _W_HI + _W_LO
    w *= 1 / (_W_HI - _W_LO)
    erfc_large = _horner(w, _LARGE_POLY[precision])
    w = y_large * y_large
    erfc_large *= xs.exp(-w)
    erfc_large /= y_large
    return erfc_large


def _erf_pieces(y):
    """For ``y = |x|``: ``(near, erf(y) for y < 2, erfc(y) for y >= 2)``.

    ``near`` is a 0/1 mask of ``y < 2``.  Both pieces are computed for every
    element (no branch per element) from clipped inputs, so both are finite
    everywhere; the arithmetic is done in place to keep temporaries few.
    On NumPy the far piece is computed only where ``y >= 2`` (zero elsewhere).
    """
    xs = xp()
    precision = "double" if y.dtype == xs.float64 else "single"
    near = _mask(y < 2, y)
    y_small = xs.minimum(y, 2.0)
    t = y_small * y_small
    t *= 0.5
    t -= 1
    erf_small = _horner(t, _SMALL_POLY[precision])
    erf_small *= y_small
    if type(y) is np.ndarray:
        # On NumPy only the far elements (rare for activations) pay for the second series.
        flat = y.reshape(-1)
        far = np.flatnonzero(flat >= 2)
        erfc_large = np.zeros(y.shape, y.dtype)
        if far.size:
            erfc_large.reshape(-1)[far] = _erfc_far(flat[far], precision)
    else:
        erfc_large = _erfc_far(y, precision)
    return near, erf_small, erfc_large


def _erf(a):
    """The error function on a float array (about 2e-14 relative error in float64)."""
    xs = xp()
    near, erf_small, erfc_large = _erf_pieces(xs.abs(a))
    # near * erf_small + (1 - near) * (1 - erfc_large): both pieces are finite, so this is exact
    erfc_large -= 1
    erfc_large *= near - 1
    erf_small *= near
    erf_small += erfc_large
    erf_small *= 1 - 2 * _mask(a < 0, a)
    return erf_small


def _normal_cdf(a):
    """The standard normal CDF ``0.5 * erfc(-a / sqrt(2))``, accurate in both tails."""
    xs = xp()
    near, erf_small, erfc_large = _erf_pieces(xs.abs(a) * (1 / math.sqrt(2)))
    # erfc(|a| / sqrt 2) = near * (1 - erf_small) + (1 - near) * erfc_large
    erf_small -= 1
    erf_small *= -near
    erfc_large *= 1 - near
    erfc_large += erf_small
    # the CDF is half of that for a <= 0, and 1 - half of it for a > 0
    positive = _mask(a > 0, a)
    cdf = erfc_large * (0.5 - positive)
    cdf += positive
    return cdf


def _compute_dtype(a):
    """Half precision is widened to Float32 for the series; returns (array, original dtype)."""
    xs = xp()
    if a.dtype == xs.float64 or a.dtype == xs.float32:
        return a, None
    return xs.astype(a, xs.float32), a.dtype


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_GELU_CUBIC = 0.044715


def _gelu_pieces(a, approximate, want_slope):
    """``(gelu(a), its slope or None)`` for one array."""
    xs = xp()
    if approximate == "none":
        cdf = _normal_cdf(a)
        out = a * cdf
        if not want_slope:
            return out, None
        d = xs.exp(a * a * -0.5)
        d *= a
        d *= _INV_SQRT_2PI
        d += cdf
        return out, d
    # 0.5 * (1 + tanh(u)) == sigmoid(2u), which keeps its precision for negative x.
    s = _sigmoid_array((a + _GELU_CUBIC * a * a * a) * (2 * _SQRT_2_OVER_PI))
    out = a * s
    if not want_slope:
        return out, None
    d_inner = (1 + 3 * _GELU_CUBIC * a * a) * (2 * _SQRT_2_OVER_PI)
    return out, s + a * s * (1 - s) * d_inner


# Elementwise series on NumPy run over slices of this many elements: the dozen scratch
# arrays of a series then stay in the CPU cache and never grow with the batch.
_CHUNK = 1 << 15


def _in_chunks(fn, a):
    """``fn(a)`` -> a tuple of arrays shaped like ``a`` (or None), computed slice by slice on NumPy."""
    if not _backend.current().is_numpy or a.size <= _CHUNK or type(a) is not np.ndarray:
        return fn(a)
    flat = a.reshape(-1)
    results = None
    for start in range(0, flat.size, _CHUNK):
        parts = fn(flat[start:start + _CHUNK])
        if results is None:
            results = tuple(None if p is None else np.empty(flat.size, p.dtype) for p in parts)
        for r, p in zip(results, parts):
            if r is not None:
                r[start:start + _CHUNK] = p
    return tuple(None if r is None else r.reshape(a.shape) for r in results)


def gelu(input, approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)``.

    ``approximate='none'`` uses the exact normal CDF (through erf);
    ``'tanh'`` uses ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``.

    >>> import cellkit as ms
    >>> print(gelu(ms.Tensor([0.0, 1.0])))
    [0.        0.8413447]
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"For 'gelu', 'approximate' must be 'none' or 'tanh', but got {approximate!r}")
    t, a = _float_input(input, "gelu")
    if _ag.higher_order(t):
        return _gelu_composite(t, approximate)
    xs = xp()
    a, original = _compute_dtype(a)
    want_slope = _ag._depth > 0 and t._node is not None
    out, d = _in_chunks(lambda part: _gelu_pieces(part, approximate, want_slope), a)
    if original is not None:
        out = xs.astype(out, original)
    if not want_slope:
        return wrap(out)
    # The slope is computed now and kept alone: one saved array instead of the input and
    # its CDF, and no scratch arrays later in backward, when memory is at its peak.  It is
    # a constant for the rule, which is why a second derivative takes _gelu_composite.
    if original is not None:
        d = xs.astype(d, original)
    return record(out, "GeLU", _gelu_rule, (t,), (d,), (None,))


def _gelu_rule(m, node, g):
    (slope,) = node.unpack(m)
    return (g * slope,)


def _gelu_composite(t, approximate):
    """GELU as simpler recorded ops, for a gradient of a gradient (the fused slope is a constant)."""
    if approximate == "none":
        return t * _normal_cdf_op(t)
    return t * sigmoid((t + _GELU_CUBIC * t * t * t) * (2 * _SQRT_2_OVER_PI))


def _normal_cdf_op(input):
    """The standard normal CDF as an op (its derivative is the normal density)."""
    t, a = _float_input(input, "normal_cdf")
    return _finish(t, _normal_cdf(a), "NormalCDF", _normal_cdf_rule, (a,))


def _normal_cdf_rule(m, node, g):
    a = _input_of(m, node)
    return (g * (m.exp(a * a * -0.5) * _INV_SQRT_2PI),)


def fast_gelu(x):
    """MindSpore's FastGeLU: ``x * sigmoid(1.702 x)``.

    >>> import cellkit as ms
    >>> print(fast_gelu(ms.Tensor([0.0])))
    [0.]
    """
    t, a = _float_input(x, "fast_gelu")
    out = a * _sigmoid_array(a * 1.702)
    return _finish(t, out, "FastGeLU", _fast_gelu_rule, (a,))


def _fast_gelu_rule(m, node, g):
    a = _input_of(m, node)
    s = m.sigmoid(a * 1.702)
    return (g * (s + a * 1.702 * s * (1 - s)),)


# -- softmax ------------------------------------------------------------------------
def _softmax_axes(axis, ndim, op):
    if isinstance(axis, (tuple, list)):
        if not axis:
            raise ValueError(f"For '{op}', 'axis' must not be empty")
        axes = tuple(normalize_axis(a, ndim, op) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"For '{op}', 'axis' contains a duplicate: {tuple(axis)}")
        return axes
    return (normalize_axis(axis, ndim, op),)


def _softmax(input, axes_arg, op, log, dtype=None, name="input"):
    t = tensor_arg(input, name, op)
    a = float_array(t, op)
    xs = xp()
    cast_from = None
    if dtype is not None:
        target = _dt.to_dtype(dtype)
        if target.kind != "float":
            raise TypeError(f"For '{op}', 'dtype' must be a float dtype, but got {target}")
        target = target.to_backend(xs)
        if a.dtype != target:
            cast_from = a.dtype
            a = xs.astype(a, target)
    axes = _softmax_axes(axes_arg, a.ndim, op)
    if a.ndim == 0:
        a = xs.reshape(a, (1,))
        scalar = True
    else:
        scalar = False
    shifted = a - xs.max(a, axis=axes, keepdims=True)
    e = xs.exp(shifted)
    total = xs.sum(e, axis=axes, keepdims=True)
    if log:
        out = shifted - xs.log(total)
    else:
        out = e / total
    if scalar:
        out = xs.reshape(out, ())
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "LogSoftmax" if log else "Softmax", _softmax_rule, (t,), (out,), _OUT,
                  (axes, log, scalar, tuple(out.shape), cast_from))


def _softmax_rule(m, node, g):
    """From the saved output p: softmax' g = p (g - sum(g p)); log_softmax' g = g - p sum(g)."""
    (out,) = node.unpack(m)
    axes, log, scalar, shape, cast_from = node.info
    if scalar:
        g, out = m.reshape(g, (1,)), m.reshape(out, (1,))
    if log:
        grad = g - m.exp(out) * m.sum(g, axis=axes, keepdims=True)
    else:
        grad = out * (g - m.sum(g * out, axis=axes, keepdims=True))
    grad = m.reshape(grad, shape)
    return (grad if cast_from is None else m.astype(grad, cast_from),)


def _int_axis(axis, op):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {type(axis).__name__} ({axis!r})")
    return axis


def softmax(input, axis=-1, *, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, computed stably (the maximum is subtracted).

    ``dtype``, if given, casts the input first.

    >>> import cellkit as ms
    >>> print(softmax(ms.Tensor([[0.0, 0.0, 0.0, 0.0]])))
    [[0.25 0.25 0.25 0.25]]
    """
    return _softmax(input, _int_axis(axis, "softmax"), "softmax", False, dtype)


def log_softmax(logits, axis=-1):
    """``log(softmax(logits))`` along ``axis``, without forming the softmax first.

    >>> import cellkit as ms
    >>> print(log_softmax(ms.Tensor([0.0, 0.0])))
    [-0.6931472 -0.6931472]
    """
    return _softmax(logits, _int_axis(axis, "log_softmax"), "log_softmax", True, name="logits")


# -- Primitive classes ------------------------------------------------------------------
def _unary_primitive(name, fn, doc):
    def __init__(self):
        Primitive.__init__(self)

    def __call__(self, x):
        return fn(x)

    return type(name, (Primitive,), {"__init__": __init__, "__call__": __call__, "__doc__": doc})


ReLU = _unary_primitive("ReLU", relu, "``ReLU()(x)``: see :func:`relu`.")
ReLU6 = _unary_primitive("ReLU6", relu6, "``ReLU6()(x)``: see :func:`relu6`.")
Sigmoid = _unary_primitive("Sigmoid", sigmoid, "``Sigmoid()(x)``: see :func:`sigmoid`.")
Tanh = _unary_primitive("Tanh", tanh, "``Tanh()(x)``: see :func:`tanh`.")
SiLU = _unary_primitive("SiLU", silu, "``SiLU()(x)``: see :func:`silu`.")
HSwish = _unary_primitive("HSwish", hardswish, "``HSwish()(x)``: see :func:`hardswish`.")
HSigmoid = _unary_primitive("HSigmoid", hardsigmoid, "``HSigmoid()(x)``: see :func:`hardsigmoid`.")
Softplus = _unary_primitive("Softplus", softplus, "``Softplus()(x)``: see :func:`softplus`.")
Mish = _unary_primitive("Mish", mish, "``Mish()(x)``: see :func:`mish`.")
FastGeLU = _unary_primitive("FastGeLU", fast_gelu, "``FastGeLU()(x)``: see :func:`fast_gelu`.")
GeLU = _unary_primitive(
    "GeLU", lambda x: gelu(x, approximate="tanh"),
    "``GeLU()(x)``: GELU with the tanh approximation, which is what MindSpore's GeLU primitive computes.",
)


class Elu(Primitive):
    """``Elu(alpha=1.0)(x)``: see :func:`elu`."""

    @prim_attr_register
    def __init__(self, alpha=1.0):
        _check_number(alpha, "alpha", "Elu")

    def __call__(self, input_x):
        return elu(input_x, self.alpha)


class Softmax(Primitive):
    """``Softmax(axis=-1)(x)``; ``axis`` may be an int or a tuple of ints.

    >>> import cellkit as ms
    >>> print(Softmax()(ms.Tensor([0.0, 0.0])))
    [0.5 0.5]
    """

    @prim_attr_register
    def __init__(self, axis=-1):
        if isinstance(axis, (tuple, list)):
            for a in axis:
                _int_axis(a, "Softmax")
        else:
            _int_axis(axis, "Softmax")

    def __call__(self, input):
        return _softmax(input, self.axis, "Softmax", False)


class LogSoftmax(Primitive):
    """``LogSoftmax(axis=-1)(logits)``: see :func:`log_softmax`."""

    @prim_attr_register
    def __init__(self, axis=-1):
        _int_axis(axis, "LogSoftmax")

    def __call__(self, logits):
        return _softmax(logits, self.axis, "LogSoftmax", True, name="logits")
