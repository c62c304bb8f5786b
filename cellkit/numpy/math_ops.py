"""``mindspore.numpy``'s element-wise math and reductions, with NumPy's argument names.

The element-wise functions take array-likes and an optional ``dtype`` the result is cast to; the
reductions take ``axis`` and ``keepdims``. Each computes with the :mod:`cellkit.ops` function of the
same meaning, so gradients flow through them.

>>> import cellkit.numpy as mnp
>>> a = mnp.array([[1.0, -2.0], [3.0, 4.0]])
>>> print(mnp.add(a, 1), mnp.sum(a, axis=0), mnp.power(mnp.array([2, 3]), 2))
[[ 2. -1.]
 [ 4.  5.]] [4. 2.] [4 9]
"""
from __future__ import annotations

import math as _math

import numpy as _np

from .. import ops as _ops
from ..tensor import Tensor
from ._convert import cast_to, host, to_dtype, to_tensor

__all__ = []  # filled by the factories below and the functions' own lines


def _export(fn):
    __all__.append(fn.__name__)
    return fn


def _unary(name, op, param="x", doc=""):
    src = (f"def {name}({param}, dtype=None):\n"
           f"    return cast_to(_OP(to_tensor({param}, {name!r})), dtype)\n")
    scope = {"_OP": op, "cast_to": cast_to, "to_tensor": to_tensor}
    exec(src, scope)  # a real function with NumPy's parameter name (shown by help and inspect)
    fn = scope[name]
    fn.__doc__ = doc or f"Element-wise ``{name}`` of ``{param}``; the result cast to ``dtype`` when given."
    fn.__module__ = __name__
    globals()[name] = fn
    __all__.append(name)


def _binary(name, op, doc=""):
    src = (f"def {name}(x1, x2, dtype=None):\n"
           f"    return cast_to(_OP(_pair(x1, x2, {name!r})[0], _pair(x1, x2, {name!r})[1]), dtype)\n")
    scope = {"_OP": op, "cast_to": cast_to, "_pair": _pair}
    exec(src, scope)
    fn = scope[name]
    fn.__doc__ = doc or f"Element-wise ``{name}`` of ``x1`` and ``x2`` (broadcast); cast to ``dtype`` when given."
    fn.__module__ = __name__
    globals()[name] = fn
    __all__.append(name)


def _pair(x1, x2, op):
    """Two operands: a Python number beside a Tensor takes the Tensor's kind, as a NumPy scalar would."""
    if isinstance(x1, Tensor) and isinstance(x2, (int, float)) and not isinstance(x2, bool):
        return x1, x2
    if isinstance(x2, Tensor) and isinstance(x1, (int, float)) and not isinstance(x1, bool):
        return x1, x2
    return to_tensor(x1, op), to_tensor(x2, op)


def _is_float(x):
    return str(x.dtype).startswith(("Float", "BFloat", "Complex"))


def _float(x):
    from .. import dtype as _dt

    return x if _is_float(x) else _ops.cast(x, _dt.float32)


def _floating(op):
    def run(x):
        if not str(x.dtype).startswith(("Float", "BFloat", "Complex")):
            from .. import dtype as _dt

            x = _ops.cast(x, _dt.float32)
        return op(x)

    return run


for _name, _op in [("abs", _ops.abs), ("absolute", _ops.abs), ("fabs", _ops.abs), ("ceil", _floating(_ops.ceil)),
                   ("floor", _floating(_ops.floor)), ("trunc", _floating(_ops.trunc)), ("sign", _ops.sign),
                   ("negative", _ops.neg), ("positive", lambda x: x * 1), ("square", _ops.square),
                   ("sqrt", _floating(_ops.sqrt)), ("exp", _floating(_ops.exp)), ("exp2", _floating(_ops.exp2)),
                   ("expm1", _floating(_ops.expm1)), ("log", _floating(_ops.log)), ("log2", _floating(_ops.log2)),
                   ("log10", _floating(_ops.log10)), ("log1p", _floating(_ops.log1p)),
                   ("sin", _floating(_ops.sin)), ("cos", _floating(_ops.cos)), ("tan", _floating(_ops.tan)),
                   ("sinh", _floating(_ops.sinh)), ("cosh", _floating(_ops.cosh)), ("tanh", _floating(_ops.tanh)),
                   ("arcsin", _floating(_ops.arcsin)), ("arctan", _floating(_ops.arctan)),
                   ("arcsinh", _floating(_ops.arcsinh)), ("arccosh", _floating(_ops.arccosh)),
                   ("arctanh", _floating(_ops.arctanh)), ("reciprocal", _floating(_ops.reciprocal)),
                   ("deg2rad", _floating(_ops.deg2rad)), ("radians", _floating(_ops.deg2rad)),
                   ("rad2deg", _floating(_ops.rad2deg)), ("invert", _ops.invert), ("bitwise_not", _ops.invert),
                   ("signbit", _ops.signbit), ("isfinite", _ops.isfinite), ("isinf", _ops.isinf),
                   ("isnan", _ops.isnan), ("rint", _floating(lambda x: _ops.round(x)))]:
    _unary(_name, _op)
_unary("arccos", _floating(_ops.arccos), param="input")
_unary("logical_not", _ops.logical_not, param="a")


def _cbrt(x):
    x = _floating(lambda v: v)(x)
    return _ops.sign(x) * _ops.pow(_ops.abs(x), 1.0 / 3.0)


_unary("cbrt", _cbrt)


def _true_div(a, b):
    if isinstance(a, Tensor) and not _is_float(a) and not (isinstance(b, Tensor) and _is_float(b)):
        a = _float(a)  # true division of integers gives floats
    if isinstance(b, Tensor) and not _is_float(b) and not isinstance(a, Tensor):
        b = _float(b)
    return _ops.div(a, b)


def _float_power(a, b):
    """``a ** b`` in floating point: Float32 unless an operand is Float64 (MindSpore's numpy, not NumPy's float64)."""
    wide = any(isinstance(v, Tensor) and str(v.dtype) == "Float64" for v in (a, b))
    a = _float(a) if isinstance(a, Tensor) else float(a)
    b = _float(b) if isinstance(b, Tensor) else float(b)
    out = _ops.pow(a, b)
    return out if wide or str(out.dtype) == "Float32" else _ops.cast(out, to_dtype("float32"))


for _name, _op in [("add", _ops.add), ("subtract", _ops.sub), ("multiply", _ops.mul), ("divide", _true_div),
                   ("true_divide", _true_div), ("power", _ops.pow), ("float_power", lambda a, b: _float_power(a, b)),
                   ("maximum", _ops.maximum), ("minimum", _ops.minimum), ("floor_divide", _ops.floor_divide),
                   ("remainder", _ops.remainder), ("mod", _ops.remainder), ("fmod", _ops.fmod),
                   ("arctan2", _ops.arctan2), ("hypot", _ops.hypot), ("copysign", _ops.copysign),
                   ("heaviside", _ops.heaviside), ("logaddexp", _ops.logaddexp), ("logaddexp2", _ops.logaddexp2),
                   ("gcd", _ops.gcd), ("lcm", _ops.lcm), ("bitwise_and", _ops.bitwise_and),
                   ("bitwise_or", _ops.bitwise_or), ("bitwise_xor", _ops.bitwise_xor), ("matmul", _ops.matmul),
                   ("equal", _ops.eq), ("not_equal", _ops.ne), ("greater", _ops.gt), ("greater_equal", _ops.ge),
                   ("less", _ops.lt), ("less_equal", _ops.le), ("logical_and", _ops.logical_and),
                   ("logical_or", _ops.logical_or), ("logical_xor", _ops.logical_xor)]:
    _binary(_name, _op)


@_export
def divmod(x1, x2, dtype=None):
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)  # noqa: F821


@_export
def clip(x, xmin, xmax, dtype=None):
    """``x`` limited to ``[xmin, xmax]`` (either may be None)."""
    return cast_to(_ops.clamp(to_tensor(x, "clip"), xmin, xmax), dtype)


@_export
def fix(x):
    """Rounded toward zero, as floats."""
    return trunc(x)  # noqa: F821


@_export
def isneginf(x):
    """True where ``x`` is negative infinity."""
    return _ops.isneginf(to_tensor(x, "isneginf"))


@_export
def isposinf(x):
    """True where ``x`` is positive infinity."""
    return _ops.isposinf(to_tensor(x, "isposinf"))


# ---------------------------------------------------------------- reductions
def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@_export
def sum(a, axis=None, dtype=None, keepdims=False, initial=None):
    """The sum over ``axis`` (all axes when None), plus ``initial``."""
    t = to_tensor(a, "sum")
    out = _ops.sum(t, _axis(axis), keepdims, dtype=to_dtype(dtype))
    return out if initial is None else _ops.add(out, initial)


@_export
def mean(a, axis=None, keepdims=False, dtype=None):
    """The mean over ``axis``."""
    return cast_to(_ops.mean(to_tensor(a, "mean"), _axis(axis), keepdims), dtype)


def _extreme(op, a, axis, keepdims, initial, where, name):
    t = to_tensor(a, name)
    out = op(t, _axis(axis), keepdims, initial=initial, where=None if where is True else to_tensor(where, name))
    return out


@_export
def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """The largest value over ``axis``."""
    return _extreme(_ops.amax, a, axis, keepdims, initial, where, "amax")


@_export
def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """The smallest value over ``axis``."""
    return _extreme(_ops.amin, a, axis, keepdims, initial, where, "amin")


@_export
def max(a, axis=None, keepdims=False, initial=None, where=True):
    """The largest value over ``axis`` (:func:`amax`)."""
    return amax(a, axis, keepdims, initial, where)


@_export
def min(a, axis=None, keepdims=False, initial=None, where=True):
    """The smallest value over ``axis`` (:func:`amin`)."""
    return amin(a, axis, keepdims, initial, where)


@_export
def argmax(a, axis=None):
    """The index of the largest value (over the flattened array when ``axis`` is None)."""
    t = to_tensor(a, "argmax")
    if axis is None:
        return _ops.argmax(_ops.reshape(t, (-1,)))
    return _ops.argmax(t, axis)


@_export
def argmin(a, axis=None):
    """The index of the smallest value (over the flattened array when ``axis`` is None)."""
    t = to_tensor(a, "argmin")
    if axis is None:
        return _ops.argmin(_ops.reshape(t, (-1,)))
    return _ops.argmin(t, axis)


@_export
def std(x, axis=None, ddof=0, keepdims=False):
    """The standard deviation over ``axis`` (``ddof`` subtracted from the count)."""
    return _ops.std(_float(to_tensor(x, "std")), _axis(axis), ddof, keepdims)


@_export
def var(x, axis=None, ddof=0, keepdims=False):
    """The variance over ``axis`` (``ddof`` subtracted from the count)."""
    return _ops.var(_float(to_tensor(x, "var")), _axis(axis), ddof, keepdims)


@_export
def ptp(x, axis=None, keepdims=False):
    """The range (max - min) over ``axis``."""
    t = to_tensor(x, "ptp")
    return _ops.sub(_ops.amax(t, _axis(axis), keepdims), _ops.amin(t, _axis(axis), keepdims))


@_export
def average(x, axis=None, weights=None, returned=False):
    """The mean over ``axis``, weighted by ``weights`` when given (with the sum of weights if ``returned``)."""
    t = _float(to_tensor(x, "average"))
    if weights is None:
        avg = _ops.mean(t, _axis(axis))
        count = t.size if axis is None else _math.prod(t.shape[a] for a in (axis if isinstance(axis, tuple)
                                                                            else (axis,)))
        total = _ops.full(avg.shape, float(count), dtype=avg.dtype)
    else:
        w = _float(to_tensor(weights, "average"))
        if w.ndim == 1 and t.ndim > 1 and axis is not None:
            shape = [1] * t.ndim
            shape[axis] = w.shape[0]
            w = _ops.reshape(w, tuple(shape))
        total = _ops.sum(_ops.broadcast_to(w, t.shape), _axis(axis))
        avg = _ops.div(_ops.sum(_ops.mul(t, w), _axis(axis)), total)
    return (avg, total) if returned else avg


@_export
def cumsum(a, axis=None, dtype=None):
    """Running sums along ``axis`` (over the flattened array when None)."""
    t = to_tensor(a, "cumsum")
    if axis is None:
        t, axis = _ops.reshape(t, (-1,)), 0
    return _ops.cumsum(t, axis, to_dtype(dtype))


@_export
def cumprod(a, axis=None, dtype=None):
    """Running products along ``axis`` (over the flattened array when None)."""
    t = to_tensor(a, "cumprod")
    if axis is None:
        t, axis = _ops.reshape(t, (-1,)), 0
    return cast_to(_ops.cumprod(t, axis), dtype)


@_export
def nancumsum(a, axis=None, dtype=None):
    """Running sums with NaN counted as 0."""
    t = to_tensor(a, "nancumsum")
    return cumsum(_ops.where(_ops.isnan(t), _ops.zeros_like(t), t), axis, dtype)


def _nan_reduce(op, a, axis, keepdims, fill, name):
    t = to_tensor(a, name)
    mask = _ops.isnan(t)
    return op(_ops.where(mask, _ops.full_like(t, fill), t), _axis(axis), keepdims)


@_export
def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum ignoring NaN."""
    return cast_to(_nan_reduce(lambda t, ax, k: _ops.sum(t, ax, k), a, axis, keepdims, 0.0, "nansum"), dtype)


@_export
def nanmax(a, axis=None, dtype=None, keepdims=False):
    """The largest value ignoring NaN."""
    return cast_to(_nan_reduce(_ops.amax, a, axis, keepdims, -_np.inf, "nanmax"), dtype)


@_export
def nanmin(a, axis=None, dtype=None, keepdims=False):
    """The smallest value ignoring NaN."""
    return cast_to(_nan_reduce(_ops.amin, a, axis, keepdims, _np.inf, "nanmin"), dtype)


@_export
def nanmean(a, axis=None, dtype=None, keepdims=False):
    """The mean ignoring NaN."""
    t = to_tensor(a, "nanmean")
    kept = _ops.logical_not(_ops.isnan(t))
    total = _nan_reduce(lambda v, ax, k: _ops.sum(v, ax, k), t, axis, keepdims, 0.0, "nanmean")
    count = _ops.sum(_ops.cast(kept, t.dtype), _axis(axis), keepdims)
    return cast_to(_ops.div(total, count), dtype)


@_export
def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The variance ignoring NaN."""
    t = to_tensor(a, "nanvar")
    kept = _ops.cast(_ops.logical_not(_ops.isnan(t)), t.dtype)
    m = nanmean(t, axis, keepdims=True)
    sq = _ops.where(_ops.isnan(t), _ops.zeros_like(t), _ops.square(_ops.sub(t, m)))
    count = _ops.sum(kept, _axis(axis), keepdims)
    return cast_to(_ops.div(_ops.sum(sq, _axis(axis), keepdims), _ops.sub(count, ddof)), dtype)


@_export
def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The standard deviation ignoring NaN."""
    return _ops.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


@_export
def count_nonzero(x, axis=None, keepdims=False):
    """How many elements are not zero."""
    t = to_tensor(x, "count_nonzero")
    nz = _ops.cast(_ops.ne(t, 0), to_dtype("int32"))
    return _ops.sum(nz, _axis(axis), keepdims, dtype=to_dtype("int32"))


@_export
def sometrue(a, axis=None, keepdims=False):
    """Whether any element is true."""
    return _ops.any(to_tensor(a, "sometrue"), _axis(axis), keepdims)


@_export
def norm(x, ord=None, axis=None, keepdims=False):
    """A vector or matrix norm."""
    return _ops.norm(_float(to_tensor(x, "norm")), ord, axis, keepdims)


@_export
def trapz(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (spacing ``x`` or ``dx``)."""
    t = _float(to_tensor(y, "trapz"))
    n = t.shape[axis]
    left, right = _ops.narrow(t, axis, 0, n - 1), _ops.narrow(t, axis, 1, n - 1)
    if x is None:
        return _ops.sum(_ops.mul(_ops.add(left, right), dx / 2.0), axis)
    spacing = _ops.diff(_float(to_tensor(x, "trapz")), 1, axis if to_tensor(x).ndim > 1 else -1)
    return _ops.sum(_ops.mul(_ops.add(left, right), _ops.div(spacing, 2.0)), axis)


@_export
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th difference along ``axis``."""
    t = to_tensor(a, "diff")
    pre = None if prepend is None else to_tensor(prepend, "diff")
    app = None if append is None else to_tensor(append, "diff")
    return _ops.diff(t, n, axis, pre, app)


@_export
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array, with extras at either end."""
    t = _ops.reshape(to_tensor(ary, "ediff1d"), (-1,))
    parts = [_ops.reshape(to_tensor(to_begin, "ediff1d"), (-1,))] if to_begin is not None else []
    parts.append(_ops.diff(t))
    if to_end is not None:
        parts.append(_ops.reshape(to_tensor(to_end, "ediff1d"), (-1,)))
    parts = [_ops.cast(p, parts[-1 if to_end is None else 0].dtype) for p in parts]
    return parts[0] if len(parts) == 1 else _ops.cat(parts)


@_export
def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges (NumPy's ``gradient``, ``edge_order=1``)."""
    t = _float(to_tensor(f, "gradient"))
    axes = list(range(t.ndim)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    spacing = list(varargs) if varargs else [1.0] * len(axes)
    if len(spacing) == 1 and len(axes) > 1:
        spacing = spacing * len(axes)
    out = []
    for ax, h in zip(axes, spacing):
        n = t.shape[ax]
        if n < 2:
            raise ValueError(f"For 'gradient', each differentiated axis needs at least 2 points, but axis {ax} has {n}")
        first = _ops.div(_ops.sub(_ops.narrow(t, ax, 1, 1), _ops.narrow(t, ax, 0, 1)), h)
        last = _ops.div(_ops.sub(_ops.narrow(t, ax, n - 1, 1), _ops.narrow(t, ax, n - 2, 1)), h)
        pieces = [first]
        if n > 2:
            pieces.append(_ops.div(_ops.sub(_ops.narrow(t, ax, 2, n - 2), _ops.narrow(t, ax, 0, n - 2)), 2.0 * h))
        pieces.append(last)
        out.append(_ops.cat(pieces, ax))
    return out[0] if len(out) == 1 else out


@_export
def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` at ``x`` (``xp`` increasing)."""
    xt, xpt, fpt = (_float(to_tensor(v, "interp")) for v in (x, xp, fp))
    n = xpt.shape[0]
    idx = _ops.clamp(_ops.searchsorted(xpt, xt, right=True), 1, n - 1)
    x0, x1 = _ops.gather(xpt, idx - 1, 0), _ops.gather(xpt, idx, 0)
    f0, f1 = _ops.gather(fpt, idx - 1, 0), _ops.gather(fpt, idx, 0)
    out = _ops.add(f0, _ops.mul(_ops.div(_ops.sub(xt, x0), _ops.sub(x1, x0)), _ops.sub(f1, f0)))
    lo = _ops.gather(fpt, _ops.zeros((), "int64"), 0) if left is None else left
    hi = _ops.gather(fpt, _ops.full((), n - 1, dtype=to_dtype("int64")), 0) if right is None else right
    out = _ops.where(_ops.lt(xt, _ops.gather(xpt, _ops.zeros((), "int64"), 0)), _ops.full_like(out, 0) + lo, out)
    return _ops.where(_ops.gt(xt, _ops.gather(xpt, _ops.full((), n - 1, dtype=to_dtype("int64")), 0)),
                      _ops.full_like(out, 0) + hi, out)


@_export
def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D arrays (``'full'``, ``'same'`` or ``'valid'``)."""
    return _correlate(a, _ops.flip(to_tensor(v, "convolve"), (0,)), mode, "convolve")


@_export
def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-D arrays (``'valid'``, ``'same'`` or ``'full'``)."""
    return _correlate(a, to_tensor(v, "correlate"), mode, "correlate")


def _correlate(a, v, mode, op):
    at, vt = _float(to_tensor(a, op)), _float(v)
    if at.ndim != 1 or vt.ndim != 1:
        raise ValueError(f"For '{op}', 'a' and 'v' must be 1-D, but got shapes {at.shape} and {vt.shape}")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"For '{op}', 'mode' must be 'full', 'same' or 'valid', but got {mode!r}")
    n, m = at.shape[0], vt.shape[0]
    if m > n:
        at, vt, n, m = vt, at, m, n
    pad = {"full": (m - 1, m - 1), "same": ((m - 1) // 2, m - 1 - (m - 1) // 2), "valid": (0, 0)}[mode]
    padded = _ops.pad(at, pad) if pad != (0, 0) else at
    length = padded.shape[0] - m + 1
    windows = _ops.stack([_ops.narrow(padded, 0, i, length) for i in range(m)], 1)
    return _ops.matmul(windows, vt)


@_export
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors along the last axis."""
    at, bt = to_tensor(a, "cross"), to_tensor(b, "cross")
    if axis is not None:
        axisa = axisb = axisc = axis
    at, bt = _ops.moveaxis(at, axisa, -1), _ops.moveaxis(bt, axisb, -1)
    return _ops.moveaxis(_ops.cross(at, bt, -1), -1, axisc)


@_export
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``."""
    t = _float(to_tensor(m, "cov"))
    if t.ndim == 1:
        t = _ops.reshape(t, (1, -1))
    if not rowvar and t.ndim == 2:
        t = _ops.transpose(t, (1, 0))
    if y is not None:
        yt = _float(to_tensor(y, "cov"))
        yt = _ops.reshape(yt, (1, -1)) if yt.ndim == 1 else (yt if rowvar else _ops.transpose(yt, (1, 0)))
        t = _ops.cat((t, yt), 0)
    if fweights is not None or aweights is not None:
        return cast_to(_ops.cov(t, correction=1 if ddof is None else ddof,
                                fweights=None if fweights is None else to_tensor(fweights),
                                aweights=None if aweights is None else _float(to_tensor(aweights))), dtype)
    correction = (0 if bias else 1) if ddof is None else ddof
    n = t.shape[1]
    centred = _ops.sub(t, _ops.mean(t, 1, True))
    out = _ops.div(_ops.matmul(centred, _ops.transpose(centred, (1, 0))), float(n - correction))
    if out.shape == (1, 1):
        out = _ops.reshape(out, ())
    return cast_to(out, dtype)


@_export
def corrcoef(x, y=None, rowvar=True, dtype=None):
    """The Pearson correlation coefficients of the variables."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return cast_to(_ops.div(c, c), dtype)
    d = _ops.sqrt(_ops.diagonal(c))
    return cast_to(_ops.clamp(_ops.div(_ops.div(c, _ops.reshape(d, (-1, 1))), _ops.reshape(d, (1, -1))), -1.0, 1.0),
                   dtype)


@_export
def unwrap(p, discont=_math.pi, axis=-1):
    """Phase jumps larger than ``discont`` along ``axis`` replaced by their 2*pi complement."""
    t = _float(to_tensor(p, "unwrap"))
    d = _ops.diff(t, 1, axis)
    wrapped = _ops.sub(_ops.remainder(_ops.add(d, _math.pi), 2 * _math.pi), _math.pi)
    wrapped = _ops.where(_ops.logical_and(_ops.eq(wrapped, -_math.pi), _ops.gt(d, 0)),
                         _ops.full_like(wrapped, _math.pi), wrapped)
    correction = _ops.where(_ops.lt(_ops.abs(d), discont), _ops.zeros_like(d), _ops.sub(wrapped, d))
    first = _ops.narrow(t, axis, 0, 1)
    return _ops.cat((first, _ops.add(_ops.narrow(t, axis, 1, t.shape[axis] - 1), _ops.cumsum(correction, axis))),
                    axis)


# ---------------------------------------------------------------- polynomials (coefficients highest power first)
def _poly(p, op):
    return _float(to_tensor(p, op))


@_export
def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner's scheme)."""
    pt, xt = _poly(p, "polyval"), _float(to_tensor(x, "polyval"))
    out = _ops.zeros_like(xt)
    for i in range(pt.shape[0]):
        out = _ops.add(_ops.mul(out, xt), pt[i])
    return out


def _pad_left(a, n):
    return _ops.pad(a, (n - a.shape[0], 0)) if a.shape[0] < n else a


@_export
def polyadd(a1, a2):
    """The sum of two polynomials."""
    a, b = _poly(a1, "polyadd"), _poly(a2, "polyadd")
    n = builtins_max(a.shape[0], b.shape[0])
    return _ops.add(_pad_left(a, n), _pad_left(b, n))


@_export
def polysub(a1, a2):
    """The difference of two polynomials."""
    a, b = _poly(a1, "polysub"), _poly(a2, "polysub")
    n = builtins_max(a.shape[0], b.shape[0])
    return _ops.sub(_pad_left(a, n), _pad_left(b, n))


@_export
def polymul(a1, a2):
    """The product of two polynomials."""
    return convolve(_poly(a1, "polymul"), _poly(a2, "polymul"))


@_export
def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial."""
    pt = _poly(p, "polyder")
    for _ in range(m):
        n = pt.shape[0] - 1
        if n <= 0:
            return _ops.zeros((1,), pt.dtype)
        pt = _ops.mul(pt[:n], Tensor(_np.arange(n, 0, -1).astype(_np.float32)))
    return pt


@_export
def polyint(p, m=1, k=None):
    """The ``m``-th integral of a polynomial, with integration constants ``k`` (zeros by default)."""
    pt = _poly(p, "polyint")
    constants = [0.0] * m if k is None else (list(k) if isinstance(k, (list, tuple)) else [k] * m)
    for i in range(m):
        n = pt.shape[0]
        pt = _ops.div(pt, Tensor(_np.arange(n, 0, -1).astype(_np.float32)))
        pt = _ops.cat((pt, _ops.full((1,), float(constants[i]), dtype=pt.dtype)))
    return pt


builtins_max = __builtins__["max"] if isinstance(__builtins__, dict) else __builtins__.max


# ---------------------------------------------------------------- counting (no gradient: host computations)
@_export
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges of ``bins`` equal bins over ``range`` (the data's range by default)."""
    return Tensor(_np.histogram_bin_edges(host(a, "histogram_bin_edges"), _bins(bins), range).astype(_np.float32))


def _bins(bins):
    return host(bins).astype(_np.float64) if isinstance(bins, (Tensor, list, tuple)) else bins


@_export
def histogram(a, bins=10, range=None, weights=None, density=False):
    """``(counts, bin edges)`` of ``a``, both Float32 (as MindSpore returns them)."""
    w = None if weights is None else host(weights, "histogram")
    counts, edges = _np.histogram(host(a, "histogram"), _bins(bins), range, weights=w, density=density)
    return Tensor(counts.astype(_np.float32)), Tensor(edges.astype(_np.float32))


@_export
def histogram2d(x, y, bins=10, range=None, weights=None, density=False):
    """``(counts, x edges, y edges)`` of the points ``(x, y)``."""
    w = None if weights is None else host(weights, "histogram2d")
    counts, ex, ey = _np.histogram2d(host(x, "histogram2d"), host(y, "histogram2d"), bins, range, density, w)
    return Tensor(counts.astype(_np.float32)), Tensor(ex.astype(_np.float32)), Tensor(ey.astype(_np.float32))


@_export
def histogramdd(sample, bins=10, range=None, weights=None, density=False):
    """``(counts, [edges per dimension])`` of the points in the rows of ``sample``."""
    w = None if weights is None else host(weights, "histogramdd")
    counts, edges = _np.histogramdd(host(sample, "histogramdd"), bins, range, density, w)
    return Tensor(counts.astype(_np.float32)), [Tensor(e.astype(_np.float32)) for e in edges]


@_export
def digitize(x, bins, right=False):
    """The index of the bin each value falls in."""
    return Tensor(_np.digitize(host(x, "digitize"), host(bins, "digitize"), right).astype(_np.int32))


@_export
def bincount(x, weights=None, minlength=0, length=None):
    """How many times each non-negative integer occurs (weighted sums with ``weights``)."""
    values = host(x, "bincount")
    if values.size and values.min() < 0:
        raise ValueError("For 'bincount', 'x' must hold non-negative integers only")
    w = None if weights is None else host(weights, "bincount")
    out = _np.bincount(values.astype(_np.int64), w, minlength if length is None else builtins_max(minlength, length))
    return Tensor(out.astype(_np.float32))  # Float32 with or without weights, as MindSpore returns it
