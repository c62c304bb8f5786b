"""Cumulative ops, sorting and searching, statistics (median, quantiles, histograms, covariance,
distances) and segment reductions, with their gradients.

Every op here follows the op pattern of ``cellkit/ops/_core.py``.  Ops that *pick* elements
(``sort``, ``topk``, ``cummax``, ``median``, ``kthvalue`` ...) pick them with one differentiable
op, :func:`_take_along` (``take_along_axis``), whose backward scatters the gradient back to the
picked positions with :func:`_put_along` -- and the two are each other's rule, so gradients of
any order flow through the indices.  ``cumsum``'s backward is a reversed cumsum (the same op with
``reverse`` flipped); ``cumprod`` and ``logcumsumexp`` have their own rules that stay exact with
zeros and stable with large values.  The statistics built from several steps (``cdist``,
``renorm``, ``cov``, ``trapz`` ...) compute on raw arrays outside a gradient transform and as
recorded cellkit ops inside one.

>>> import cellkit as ms
>>> from cellkit import ops
>>> values, indices = ops.sort(ms.Tensor([3.0, 1.0, 2.0]))
>>> print(values, indices)
[1. 2. 3.] [1 2 0]
>>> print(ops.cumsum(ms.Tensor([1.0, 2.0, 3.0]), 0))
[1. 3. 6.]
"""
from __future__ import annotations

import builtins
import math as _pymath
import numbers

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..autograd import OUTPUT
from ..tensor import Tensor
from . import reduce as _reduce
from ._core import (bool_arg, describe, dtype_arg, int_arg, normalize_axis, record, tensor_arg, wrap, xp)
from .primitive import Primitive, prim_attr_register
from .reduce import ValueRuntimeError, _axes, _check_float, _on_tape

__all__ = [
    # cumulative
    "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp",
    # sorting and searching
    "sort", "argsort", "msort", "topk", "top_k", "searchsorted", "bucketize", "nonzero", "argwhere",
    "unique", "unique_consecutive", "unique_with_pad",
    # statistics
    "median", "nanmedian", "quantile", "nanquantile", "cov", "histc", "bincount", "diff", "trapz", "dist",
    "cdist", "pdist", "renorm",
    # segments
    "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    # Primitives
    "ArgMaxWithValue", "ArgMinWithValue", "Bincount", "Bucketize", "CountNonZero", "CumProd", "CumSum",
    "Cummin", "Cummax", "CumulativeLogsumexp", "EqualCount", "Histogram", "L2Loss", "LpNorm", "Median",
    "NonZero", "Pdist", "ReduceAll", "ReduceAny", "ReduceProd", "ReduceStd", "Renorm", "SearchSorted", "Sort",
    "SquareSumAll", "TopK", "Unique", "UniqueConsecutive", "UnsortedSegmentMax", "UnsortedSegmentMin",
    "UnsortedSegmentProd", "UnsortedSegmentSum",
]

_INT64 = _dt.int64
_INT32 = _dt.int32


# ================================================================== small array helpers
def _be():
    return _backend._current


def _arange(n, dtype=_INT64):
    be = _be()
    dt = dtype.to_backend(be.xp)
    return be.xp.arange(n, dtype=dt) if be.is_numpy else be.xp.arange(n, dtype=dt, device=be.device)


def _full(shape, value, dtype):
    be = _be()
    if be.is_numpy:
        return np.full(shape, value, dtype=dtype)
    return be.xp.full(shape, value, dtype=dtype, device=be.device)


def _cut(ndim, axis, part):
    """An index tuple taking ``part`` (a slice) along ``axis``."""
    return tuple(part if i == axis else slice(None) for i in range(ndim))


def _to_host(array):
    return _be().to_host(array)


def _positions(shape, axis):
    """``0 .. n-1`` along ``axis``, shaped to broadcast against an array of ``shape``."""
    n = shape[axis]
    return xp().reshape(_arange(n), tuple(n if i == axis else 1 for i in range(len(shape))))


def _argsort_array(a, axis, descending=False):
    """Stable argsort along ``axis`` (NaN last when ascending); ties keep their order either way."""
    xs = xp()
    if _be().is_numpy:
        if not descending:
            return np.argsort(a, axis=axis, kind="stable")
        n = a.shape[axis]
        flipped = np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable")
        return (n - 1) - np.flip(flipped, axis=axis)
    return xs.argsort(a, axis=axis, descending=descending, stable=True)


def _limits(dtype):
    """``(lowest, highest)`` finite values of a backend dtype (MindSpore fills empty max/min segments with them)."""
    found = _dt.dtype_of_array_dtype(dtype)
    info = np.finfo(found.array_name) if found.kind == "float" and found is not _dt.bfloat16 else \
        np.iinfo(found.array_name) if found.kind in ("int", "uint") else np.finfo(np.float32)
    cast = float if found.kind == "float" else int
    return cast(info.min), cast(info.max)


def _lowest(dtype):
    return _limits(dtype)[0]


def _highest(dtype):
    return _limits(dtype)[1]


def _tensor_or_array(value):
    return value._data if isinstance(value, Tensor) else value


def _refuse_bool(t, op, name="input"):
    if _dt.dtype_of(t._data) is _dt.bool_:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of numbers, but got dtype Bool")


def _need_rank(t, op, name="input"):
    if t.ndim == 0:
        raise ValueError(f"For '{op}', '{name}' must have at least 1 dimension, but got a 0-D Tensor (shape ())")


# ================================================================== picking along an axis: an adjoint pair
def _take_along_array(a, index, axis):
    return xp().take_along_axis(a, index, axis=axis)


def _put_along_array(g, index, axis, length):
    """Zeros with ``length`` along ``axis``, and ``g`` added at ``index`` (the adjoint of taking)."""
    be = _be()
    xs = be.xp
    shape = list(g.shape)
    shape[axis] = length
    if be.is_numpy:
        out = np.zeros(shape, dtype=g.dtype)
        grid = list(np.indices(g.shape, sparse=True))
        grid[axis] = index
        np.add.at(out, tuple(grid), g)
        return out
    moved_g = xs.moveaxis(g, axis, -1)
    moved_i = xs.moveaxis(index, axis, -1)
    lead = tuple(moved_g.shape[:-1])
    k = moved_g.shape[-1]
    rows = 1
    for d in lead:
        rows *= d
    base = xs.reshape(_arange(rows) * length, (rows, 1))
    flat = xs.reshape(xs.reshape(xs.astype(moved_i, _INT64.to_backend(xs)), (rows, k)) + base, (-1,))
    out = be.scatter_add_rows(xs.reshape(moved_g, (rows * k,)), flat, rows * length)
    return xs.moveaxis(xs.reshape(out, lead + (length,)), -1, axis)


def _take_along(x, index, axis):
    """``x`` picked at ``index`` along ``axis`` (index has the output's shape); differentiable."""
    index = _tensor_or_array(index)
    arr = x._data
    out = _take_along_array(arr, index, axis)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "TakeAlongAxis", _take_along_rule, (x,), (index,), (None,), (axis, arr.shape[axis]))


def _take_along_rule(m, node, g):
    """What was taken is put back: the gradient is scattered to the picked positions."""
    (index,) = node.unpack(m)
    axis, length = node.info
    return (m.call(_put_along_array, _put_along, g, index, axis, length),)


def _put_along(g, index, axis, length):
    """The Tensor twin of :func:`_put_along_array`; its own gradient takes again."""
    index = _tensor_or_array(index)
    out = _put_along_array(g._data, index, axis, length)
    if _ag._depth == 0 or g._node is None:
        return wrap(out)
    return record(out, "PutAlongAxis", _put_along_rule, (g,), (index,), (None,), axis)


def _put_along_rule(m, node, g):
    (index,) = node.unpack(m)
    return (m.call(_take_along_array, _take_along, g, index, node.info),)


def _flip(x, axis):
    """``x`` reversed along ``axis``, as a differentiable pick."""
    arr = x._data
    n = arr.shape[axis]
    index = xp().broadcast_to((n - 1) - _positions(arr.shape, axis), arr.shape)
    return _take_along(x, index, axis)


def _shift(x, axis, fill):
    """``x`` moved one step forward along ``axis``, ``fill`` entering first (an exclusive scan's input)."""
    from . import shape_ops as _shape
    arr = x._data
    n = arr.shape[axis]
    head = wrap(_full(tuple(1 if i == axis else d for i, d in enumerate(arr.shape)), fill, arr.dtype))
    if n == 0:
        return x
    return _shape.concat([head, _shape.getitem(x, _cut(arr.ndim, axis, slice(0, n - 1)))], axis)


# ================================================================== cumulative sums and products
def _cumsum_array(a, axis, exclusive=False, reverse=False, dtype=None):
    xs = xp()
    if dtype is None and _dt.dtype_of(a).kind in ("int", "uint"):
        dtype = a.dtype
    if reverse:
        a = xs.flip(a, axis=axis)
    if _be().is_numpy:
        out = np.cumsum(a, axis=axis, dtype=dtype)
    else:
        out = xs.cumulative_sum(a, axis=axis, dtype=dtype)
    n = a.shape[axis]
    if exclusive and n:
        head = xs.zeros_like(out[_cut(a.ndim, axis, slice(0, 1))])
        out = xs.concat([head, out[_cut(a.ndim, axis, slice(0, n - 1))]], axis=axis)
    return xs.flip(out, axis=axis) if reverse else out


def _cumsum_op(x, axis, exclusive=False, reverse=False):
    """Cumulative sum of Tensor ``x``; its gradient is the same sum run the other way."""
    arr = x._data
    out = _cumsum_array(arr, axis, exclusive, reverse)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "CumSum", _cumsum_rule, (x,), info=(axis, exclusive, reverse))


def _cumsum_rule(m, node, g):
    """The adjoint of a running sum is the running sum in the other direction."""
    axis, exclusive, reverse = node.info
    return (m.call(_cumsum_array, _cumsum_op, g, axis, exclusive, not reverse),)


def _check_cumulative(x, axis, op, name="axis"):
    _need_rank(x, op, "input" if op not in ("cumsum", "CumSum") else "x")
    try:
        return normalize_axis(axis, x.ndim, op, name)
    except ValueError as exc:
        if op == "logcumsumexp":  # MindSpore's kernel refuses it with a RuntimeError
            raise ValueRuntimeError(str(exc)) from None
        raise


def cumsum(x, axis, dtype=None):
    """Running sum along ``axis``; ints keep their dtype, bools are refused (as in MindSpore).

    The gradient is a running sum of the incoming gradient taken from the other end.

    >>> import cellkit as ms
    >>> print(cumsum(ms.Tensor([[1, 2], [3, 4]]), 1))
    [[1 3]
     [3 7]]
    """
    op = "cumsum"
    t = tensor_arg(x, "x", op)
    _refuse_bool(t, op, "x")
    if axis is None:
        raise TypeError(f"For '{op}', 'axis' must be an int, but got None")
    ax = _check_cumulative(t, axis, op)
    if dtype is not None:
        from .creation import cast
        t = cast(t, dtype_arg(dtype, "dtype", op))
    return _cumsum_op(t, ax)


def _cumprod_array(a, axis, dtype=None):
    xs = xp()
    if dtype is None and _dt.dtype_of(a).kind in ("int", "uint"):
        dtype = a.dtype
    if _be().is_numpy:
        return np.cumprod(a, axis=axis, dtype=dtype)
    return xs.cumulative_prod(a, axis=axis, dtype=dtype)


def _cumprod_op(x, axis):
    """Running product of Tensor ``x`` along ``axis`` (the zero-safe rule is :func:`_cumprod_rule`)."""
    arr = x._data
    out = _cumprod_array(arr, axis)
    if _ag._depth == 0 or x._node is None or _dt.dtype_of(arr).kind != "float":
        return wrap(out)
    xs = xp()
    zero = arr == 0
    if _be().is_numpy and not zero.any():
        return record(out, "CumProd", _cumprod_rule, (x,), (arr, out), (0, OUTPUT), axis)
    seen = _cumsum_array(xs.astype(zero, _INT64.to_backend(xs)), axis, exclusive=True)
    before = xs.astype((seen == 0) & ~zero, arr.dtype)   # no zero at or before this position
    first = xs.astype(zero & (seen == 0), arr.dtype)     # the first zero of its slice
    return record(out, "CumProd", _cumprod_rule, (x,), (arr, out, before, first), (0, OUTPUT, None, None), axis)


def _cumprod_rule(m, node, g):
    """d out_i / dx_j = prod_{k <= i, k != j} x_k, summed over i >= j, without dividing by a zero.

    Before a slice's first zero it is ``revcumsum(g * out) / x``; at the first zero it is the
    running sum of ``g`` times the products with that zero taken as 1; after it, 0.
    """
    saved = node.unpack(m)
    axis = node.info
    if len(saved) == 2:
        arr, out = saved
        return (m.call(_cumsum_array, _cumsum_op, g * out, axis, False, True) / arr,)
    arr, out, before, first = saved
    early = m.call(_cumsum_array, _cumsum_op, g * out, axis, False, True) / (arr * before + (1 - before))
    primed = m.call(_cumprod_array, _cumprod_op, arr * (1 - first) + first, axis)
    at_zero = m.call(_cumsum_array, _cumsum_op, g * primed, axis, False, True)
    return (early * before + at_zero * first,)


def cumprod(input, dim, dtype=None):
    """Running product along ``dim``; ints and bools multiply as Int64 (as in MindSpore).

    Its gradient is exact where the input has zeros (see :func:`_cumprod_rule`); the second
    derivative misses only the cross terms through a slice's first zero.

    >>> import cellkit as ms
    >>> print(cumprod(ms.Tensor([1.0, 2.0, 3.0]), 0))
    [1. 2. 6.]
    """
    op = "cumprod"
    t = tensor_arg(input, "input", op)
    ax = _check_cumulative(t, dim, op, "dim")
    from .creation import cast
    if dtype is not None:
        t = cast(t, dtype_arg(dtype, "dtype", op))
    elif _dt.dtype_of(t._data).kind != "float":
        t = cast(t, _INT64)
    return _cumprod_op(t, ax)


def _cumulative_extreme(input, axis, op, is_max, index_dtype):
    t = tensor_arg(input, "input", op)
    _refuse_bool(t, op)
    ax = _check_cumulative(t, axis, op)
    arr = t._data
    xs = xp()
    work = _reduce._skip_nan(arr, -_pymath.inf if is_max else _pymath.inf)
    if _be().is_numpy:
        running = (np.maximum if is_max else np.minimum).accumulate(work, axis=ax)
    else:
        running = _scan(work, ax, xs.maximum if is_max else xs.minimum,
                        _lowest(arr.dtype) if is_max else _highest(arr.dtype))
    # The latest position holding the running extreme (MindSpore's choice among ties).
    marks = xs.where(work == running, xs.broadcast_to(_positions(arr.shape, ax), arr.shape),
                     xs.zeros(arr.shape, dtype=_INT64.to_backend(xs)) if _be().is_numpy else
                     xs.zeros(arr.shape, dtype=_INT64.to_backend(xs), device=_be().device))
    if _be().is_numpy:
        index = np.maximum.accumulate(marks, axis=ax)
    else:
        index = _scan(marks, ax, xs.maximum, 0)
    values = _take_along(t, index, ax)
    return values, wrap(xs.astype(index, index_dtype.to_backend(xs)))


def _scan(a, axis, combine, fill):
    """An inclusive scan with ``combine`` along ``axis`` in log2(n) steps (array-API namespaces)."""
    xs = xp()
    n = a.shape[axis]
    step = 1
    while step < n:
        pad = _full(tuple(step if i == axis else d for i, d in enumerate(a.shape)), fill, a.dtype)
        shifted = xs.concat([pad, a[_cut(a.ndim, axis, slice(0, n - step))]], axis=axis)
        a = combine(a, shifted)
        step *= 2
    return a


def cummax(input, axis):
    """``(values, indices)``: the running maximum along ``axis`` and where it was found (Int64).

    The gradient of the values goes to the element each index points at.

    >>> import cellkit as ms
    >>> values, indices = cummax(ms.Tensor([1.0, 3.0, 2.0]), 0)
    >>> print(values, indices)
    [1. 3. 3.] [0 1 1]
    """
    return _cumulative_extreme(input, axis, "cummax", True, _INT64)


def cummin(input, axis):
    """``(values, indices)``: the running minimum along ``axis``; indices are Int32 as in MindSpore."""
    return _cumulative_extreme(input, axis, "cummin", False, _INT32)


# -- log-cumsum-exp -----------------------------------------------------------------------------------
def _lcse_array(a, axis):
    """``log(cumsum(exp(a)))`` along ``axis``, stably."""
    xs = xp()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # The same pairwise scan on every backend (NumPy's sequential logaddexp.accumulate would
        # round differently from the array-API namespaces).
        return _scan(a, axis, xs.logaddexp, -_pymath.inf)


def _lcse_grad_array(a, out, g, axis):
    """``sum_{i >= j} g_i exp(a_j - out_i)`` in log space (positive and negative ``g`` apart): no overflow."""
    xs = xp()
    n = a.shape[axis]
    # Measured from the slice's total (its last running value): out - top is exact and small.
    top = out[_cut(out.ndim, axis, slice(n - 1, n))] if n else out
    top = xs.where(xs.isfinite(top), top, xs.zeros_like(top))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        zeros = xs.zeros_like(g)
        parts = []
        for part in (xs.where(g > 0, g, zeros), xs.where(g < 0, -g, zeros)):
            shifted = xs.log(part) - (out - top)
            backwards = xs.flip(_lcse_array(xs.flip(shifted, axis=axis), axis), axis=axis)
            parts.append(xs.exp(backwards + (a - top)))
    return parts[0] - parts[1]


def _lcse_grad_tensor(a, out, g, axis):
    """The same sum as recorded cellkit ops (for a second derivative): exponents masked to ``j <= i``."""
    from . import math as _math
    from . import shape_ops as _shape
    n = a.shape[axis]
    lead = _shape.expand_dims(_shape.swapaxes(a, axis, -1), -2)      # (..., 1, n): a_j
    total = _shape.expand_dims(_shape.swapaxes(out, axis, -1), -1)   # (..., n, 1): out_i
    weight = _shape.expand_dims(_shape.swapaxes(g, axis, -1), -1)    # (..., n, 1): g_i
    pairs = xp().reshape(_arange(n), (1, n)) <= xp().reshape(_arange(n), (n, 1))  # j <= i
    exponent = _math.where(wrap(pairs), lead - total, -_pymath.inf)
    summed = _reduce.sum(weight * _math.exp(exponent), -2)
    return _shape.swapaxes(summed, axis, -1)


def _lcse_op(x, axis):
    arr = x._data
    out = _lcse_array(arr, axis)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "CumulativeLogsumexp", _lcse_rule, (x,), (arr, out), (0, OUTPUT), axis)


def _lcse_rule(m, node, g):
    """d out_i / dx_j = exp(x_j - out_i) for j <= i (a softmax over the prefix)."""
    arr, out = node.unpack(m)
    return (m.call(_lcse_grad_array, _lcse_grad_tensor, arr, out, g, node.info),)


def logcumsumexp(input, axis):
    """``log(cumsum(exp(input)))`` along ``axis``, computed without overflow (float tensors).

    >>> import cellkit as ms
    >>> print(logcumsumexp(ms.Tensor([0.0, 0.0]), 0))
    [0.        0.6931472]
    """
    op = "logcumsumexp"
    t = tensor_arg(input, "input", op)
    _check_float(t, op)
    ax = _check_cumulative(t, axis, op)
    return _lcse_op(t, ax)


# ================================================================== sorting and picking
def _sortable(input, op, name="input"):
    t = tensor_arg(input, name, op)
    _refuse_bool(t, op, name)
    return t


def sort(input_x, axis=-1, descending=False):
    """``(values, indices)`` sorted along ``axis``; indices are Int32 (as in MindSpore).

    The gradient of the values goes back to the positions they came from.
    """
    op = "sort"
    t = _sortable(input_x, op, "input_x")
    if t.ndim == 0:
        raise ValueError(f"For '{op}', 'input_x' must have at least 1 dimension, but got a 0-D Tensor")
    ax = normalize_axis(axis, t.ndim, op)
    desc = bool_arg(descending, "descending", op)
    index = _argsort_array(t._data, ax, desc)
    xs = xp()
    return _take_along(t, index, ax), wrap(xs.astype(index, _INT32.to_backend(xs)))


def argsort(input, axis=-1, descending=False):
    """The Int32 indices that sort ``input`` along ``axis``.

    >>> import cellkit as ms
    >>> print(argsort(ms.Tensor([3.0, 1.0, 2.0])))
    [1 2 0]
    """
    op = "argsort"
    t = _sortable(input, op)
    if t.ndim == 0:
        raise ValueError(f"For '{op}', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    ax = normalize_axis(axis, t.ndim, op)
    xs = xp()
    return wrap(xs.astype(_argsort_array(t._data, ax, bool_arg(descending, "descending", op)), _INT32.to_backend(xs)))


def msort(input):
    """``input`` sorted along its first axis (values only, differentiable)."""
    op = "msort"
    t = _sortable(input, op)
    if t.ndim == 0:
        raise ValueError(f"For '{op}', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    return _take_along(t, _argsort_array(t._data, 0), 0)


def topk(input, k, dim=None, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest (or smallest) entries along ``dim`` (default: last).

    Indices are Int32; values come out in order (``sorted=False`` gives the same order).
    """
    op = "topk"
    t = _sortable(input, op)
    k = int_arg(k, "k", op)
    ndim = t.ndim
    ax = ndim - 1 if dim is None else normalize_axis(dim, ndim, op, "dim")
    n = t.shape[ax] if ndim else 1
    if not 0 < k <= n:
        raise ValueError(f"For '{op}', 'k' must be in (0, {n}] (the length of dim {ax} of the input of shape "
                         f"{tuple(t.shape)}), but got {k}")
    largest = bool_arg(largest, "largest", op)
    bool_arg(sorted, "sorted", op)
    if ndim == 0:
        return t, wrap(xp().zeros((), dtype=_INT32.to_backend(xp())))
    order = _argsort_array(t._data, ax, largest)[_cut(ndim, ax, slice(0, k))]
    xs = xp()
    return _take_along(t, order, ax), wrap(xs.astype(order, _INT32.to_backend(xs)))


def top_k(input_x, k, sorted=True):
    """``topk(input_x, k)`` along the last axis (MindSpore's older spelling)."""
    return topk(input_x, k, None, True, sorted)


def _kth(t, k, dim, keepdim, op):
    """``(values, Int64 indices)`` of the ``k``-th smallest along ``dim`` (1-based)."""
    ax = normalize_axis(dim, t.ndim, op, "dim") if t.ndim else 0
    keep = bool_arg(keepdim, "keepdim", op)
    k = int_arg(k, "k", op)
    if t.ndim == 0:
        if k != 1:
            raise ValueError(f"For '{op}', 'k' must be in [1, 1] for a 0-D Tensor, but got {k}")
        return t, wrap(xp().zeros((), dtype=_INT64.to_backend(xp())))
    n = t.shape[ax]
    if not 1 <= k <= n:
        raise ValueError(f"For '{op}', 'k' must be in [1, {n}] (the length of dim {ax}), but got {k}")
    order = _argsort_array(t._data, ax)[_cut(t.ndim, ax, slice(k - 1, k))]
    return _picked(t, order, ax, keep)


def _picked(t, index, ax, keep):
    """The values at ``index`` (length 1 along ``ax``) and the Int64 index, ``ax`` kept or dropped."""
    from .shape_ops import reshape
    xs = xp()
    values = _take_along(t, index, ax)
    index = xs.astype(index, _INT64.to_backend(xs))
    if not keep:
        shape = tuple(d for i, d in enumerate(t.shape) if i != ax)
        values, index = reshape(values, shape), xs.reshape(index, shape)
    return values, wrap(index)


def kthvalue(input, k, dim=-1, keepdim=False):
    """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (``Tensor.kthvalue``).

    MindSpore 2.10's CPU build cannot run this method; cellkit computes it as documented.
    """
    op = "kthvalue"
    t = _sortable(input, op)
    return _kth(t, k, dim, keepdim, op)


# -- median ------------------------------------------------------------------------------------------
def _check_median_dtype(t, op):
    dtype = _dt.dtype_of(t._data)
    if dtype not in (_dt.float32, _dt.float64, _dt.int16, _dt.int32, _dt.int64):
        raise TypeError(f"For '{op}', 'input' must be a Tensor of Float32, Float64, Int16, Int32 or Int64, "
                        f"but got dtype {dtype}")


def _median_position(arr, ax, ignore_nan):
    """Where the (lower) median sits in the sorted order, per slice (NaN sorts last)."""
    xs = xp()
    n = arr.shape[ax]
    if _dt.dtype_of(arr).kind != "float":
        return _full(tuple(1 if i == ax else d for i, d in enumerate(arr.shape)), (n - 1) // 2, _INT64.to_backend(xs))
    nan = xs.astype(xs.isnan(arr), _INT64.to_backend(xs))
    count = n - xs.sum(nan, axis=ax, keepdims=True)
    lower = xs.where(count > 0, (count - 1) // 2, xs.zeros_like(count))
    if ignore_nan:
        return lower
    return xs.where(count < n, count, lower)  # a NaN in the slice: the median is the (first) NaN


def _median(t, axis, keepdims, op, ignore_nan, global_median=False):
    keep = bool_arg(keepdims, "keepdims" if op != "Median" else "keep_dims", op)
    if global_median and keep:
        raise ValueRuntimeError(f"For '{op}', 'keep_dims' must be False when 'global_median' is True")
    if global_median or t.ndim == 0:
        if t.ndim and axis is not None and not global_median:
            normalize_axis(axis, t.ndim, op)
        from .shape_ops import reshape
        flat = reshape(t, (-1,))
        order = _argsort_array(flat._data, 0)
        position = _median_position(flat._data, 0, ignore_nan)
        values = reshape(_take_along(flat, xp().take_along_axis(order, position, axis=0), 0),
                         (1,) * t.ndim if keep and global_median else ())
        # The index of a whole-tensor median is meaningless in MindSpore (documented): it returns 0.
        return values, wrap(xp().zeros(tuple(values.shape), dtype=_INT64.to_backend(xp())))
    ax = normalize_axis(axis, t.ndim, op)
    arr = t._data
    if arr.shape[ax] == 0:
        raise ValueError(f"For '{op}', the input is empty along axis {ax} (shape {tuple(arr.shape)})")
    order = _argsort_array(arr, ax)
    index = xp().take_along_axis(order, _median_position(arr, ax, ignore_nan), axis=ax)
    return _picked(t, index, ax, keep)


def median(input, axis=-1, keepdims=False):
    """``(values, indices)``: the lower median along ``axis`` and its Int64 index.

    A slice holding NaN has the median NaN (pointing at the NaN); the gradient goes to the
    median element.

    >>> import cellkit as ms
    >>> values, indices = median(ms.Tensor([[3.0, 1.0, 2.0]]))
    >>> print(values, indices)
    [2.] [2]
    """
    op = "median"
    t = tensor_arg(input, "input", op)
    _check_median_dtype(t, op)
    return _median(t, axis, keepdims, op, False)


def nanmedian(input, axis=-1, keepdims=False):
    """Like :func:`median`, with the NaNs of each slice left out."""
    op = "nanmedian"
    t = tensor_arg(input, "input", op)
    _check_median_dtype(t, op)
    return _median(t, axis, keepdims, op, True)


# -- quantiles ---------------------------------------------------------------------------------------
def _quantile(input, q, axis, keepdims, op, ignore_nan):
    from . import math as _math
    from .shape_ops import reshape
    t = tensor_arg(input, "input", op)
    dtype = _dt.dtype_of(t._data)
    if dtype not in (_dt.float32, _dt.float64):
        raise TypeError(f"For '{op}', 'input' must be a Tensor of Float32 or Float64, but got dtype {dtype}")
    keep = bool_arg(keepdims, "keepdims", op)
    xs = xp()
    if isinstance(q, Tensor):
        qt = tensor_arg(q, "q", op)
        if _dt.dtype_of(qt._data) is not dtype:
            raise TypeError(f"For '{op}', 'q' must have the dtype of 'input' ({dtype}), but got {qt.dtype}")
        if qt.ndim > 1:
            raise ValueError(f"For '{op}', 'q' must be a scalar or a 1-D Tensor, but got shape {tuple(qt.shape)}")
        q_host = np.asarray(_to_host(qt._data), dtype=np.float64).reshape(-1)
        scalar = qt.ndim == 0
    elif isinstance(q, float) or (isinstance(q, numbers.Real) and not isinstance(q, bool)):
        q_host = np.asarray([float(q)])
        scalar = True
    else:
        raise TypeError(f"For '{op}', 'q' must be a float or a Tensor, but got {describe(q)}")
    if np.any((q_host < 0) | (q_host > 1)) or np.any(np.isnan(q_host)):
        shown = q_host.tolist() if isinstance(q, Tensor) else repr(q)
        raise ValueError(f"For '{op}', 'q' must be in [0, 1], but got {shown}")
    if axis is None:
        src = reshape(t, (-1,))
        ax = 0
    else:
        ax = normalize_axis(axis, t.ndim, op)
        src = t if t.ndim else reshape(t, (1,))
    arr = src._data
    n = arr.shape[ax]
    if n == 0:
        raise ValueError(f"For '{op}', the input is empty along the reduced axis (shape {tuple(t.shape)})")
    order = _argsort_array(arr, ax)
    if ignore_nan:
        count = n - xs.sum(xs.astype(xs.isnan(arr), _INT64.to_backend(xs)), axis=ax, keepdims=True)
    else:
        count = xs.full_like(xs.sum(xs.zeros_like(arr, dtype=_INT64.to_backend(xs)), axis=ax, keepdims=True), n)
    results = []
    for qv in q_host:
        pos = xs.astype(count - 1, arr.dtype) * float(qv)
        pos = xs.where(pos < 0, xs.zeros_like(pos), pos)
        low = xs.astype(xs.floor(pos), _INT64.to_backend(xs))
        high = xs.where(low + 1 < count, low + 1, low)
        frac = wrap(pos - xs.astype(low, arr.dtype))
        v_low = _take_along(src, xs.take_along_axis(order, low, axis=ax), ax)
        v_high = _take_along(src, xs.take_along_axis(order, high, axis=ax), ax)
        value = v_low + (v_high - v_low) * frac
        if ignore_nan:
            value = _math.where(wrap(count > 0), value, _pymath.nan)
        elif _dt.dtype_of(arr).kind == "float":
            has_nan = xs.any(xs.isnan(arr), axis=ax, keepdims=True)
            value = _math.where(wrap(has_nan), _pymath.nan, value)
        if axis is None:
            value = reshape(value, (1,) * t.ndim if keep else ())
        elif not keep:
            value = reshape(value, tuple(d for i, d in enumerate(src.shape) if i != ax))
        elif t.ndim == 0:
            value = reshape(value, ())
        results.append(value)
    if scalar:
        return results[0]
    from .shape_ops import stack
    return stack(results, 0)


def quantile(input, q, axis=None, keepdims=False):
    """The ``q``-th quantiles along ``axis`` (all elements when ``None``), linearly interpolated.

    ``q`` is a float or a 1-D Tensor (then the quantiles stack on a new first axis).  MindSpore
    2.10's CPU build has no kernel for it; cellkit computes what its documentation describes.

    >>> import cellkit as ms
    >>> print(quantile(ms.Tensor([1.0, 2.0, 3.0, 4.0]), 0.5))
    2.5
    """
    return _quantile(input, q, axis, keepdims, "quantile", False)


def nanquantile(input, q, axis=None, keepdims=False):
    """:func:`quantile` with the NaNs of each slice left out."""
    return _quantile(input, q, axis, keepdims, "nanquantile", True)


# ================================================================== searching
def _search_array(sequence, values, right):
    """Insertion points of ``values`` in ``sequence`` along its last axis (leading axes match)."""
    xs = xp()
    side = "right" if right else "left"
    if sequence.ndim == 1:
        flat = xs.reshape(values, (-1,))
        if _be().is_numpy:
            found = np.searchsorted(sequence, flat, side=side)
        else:
            found = xs.searchsorted(sequence, flat, side=side)
        return xs.reshape(xs.astype(found, _INT64.to_backend(xs)), values.shape)
    # Batched: count the elements below (or not above) each value, row by row.
    below = (xs.expand_dims(sequence, axis=-2) <= xs.expand_dims(values, axis=-1)) if right else \
        (xs.expand_dims(sequence, axis=-2) < xs.expand_dims(values, axis=-1))
    return xs.sum(xs.astype(below, _INT64.to_backend(xs)), axis=-1)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Where ``values`` would be inserted in ``sorted_sequence`` (along its last axis) to keep it sorted.

    ``right`` (or ``side='right'``) returns the last suitable position; the result is Int64, or
    Int32 with ``out_int32``.  ``sorter`` gives the order of an unsorted sequence.

    MindSpore 2.10's CPU kernel fails for a 1-D sequence unless ``out_int32=True``; cellkit
    returns the documented Int64 result.

    >>> import cellkit as ms
    >>> print(searchsorted(ms.Tensor([1.0, 3.0, 5.0]), ms.Tensor([3.0, 6.0])))
    [1 3]
    """
    op = "searchsorted"
    seq = tensor_arg(sorted_sequence, "sorted_sequence", op)
    vals = tensor_arg(values, "values", op)
    out_int32 = bool_arg(out_int32, "out_int32", op)
    right = bool_arg(right, "right", op)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For '{op}', 'side' must be 'left' or 'right', but got {side!r}")
        if side == "left" and right:
            raise ValueError(f"For '{op}', 'side' is 'left' while 'right' is True: they contradict each other")
        right = side == "right"
    if seq.ndim == 0:
        raise ValueError(f"For '{op}', 'sorted_sequence' must have at least 1 dimension, but got a 0-D Tensor")
    if seq.ndim > 1 and tuple(seq.shape[:-1]) != tuple(vals.shape[:-1]):
        raise ValueError(f"For '{op}', the leading dimensions of 'sorted_sequence' {tuple(seq.shape)} and "
                         f"'values' {tuple(vals.shape)} must match")
    s, v = seq._data, vals._data
    if _dt.dtype_of(s) is not _dt.dtype_of(v):
        s, v = _promote(s, v)
    if sorter is not None:
        order = tensor_arg(sorter, "sorter", op)._data
        if tuple(order.shape) != tuple(s.shape) or _dt.dtype_of(order).kind not in ("int", "uint"):
            raise ValueError(f"For '{op}', 'sorter' must be integer indices of the shape of 'sorted_sequence' "
                             f"{tuple(s.shape)}, but got {describe(sorter)}")
        s = xp().take_along_axis(s, xp().astype(order, _INT64.to_backend(xp())), axis=-1)
    out = _search_array(s, v, right)
    xs = xp()
    return wrap(xs.astype(out, (_INT32 if out_int32 else _INT64).to_backend(xs)))


def _promote(a, b):
    from ._core import _promote_pair
    return _promote_pair(a, b, "searchsorted")


def bucketize(input, boundaries, *, right=False):
    """The Int32 index of the bucket of each element: ``boundaries[i-1] < x <= boundaries[i]``
    (``right=True``: ``boundaries[i-1] <= x < boundaries[i]``).

    >>> import cellkit as ms
    >>> print(bucketize(ms.Tensor([0.5, 1.0, 2.5]), [1.0, 2.0]))
    [0 0 2]
    """
    op = "bucketize"
    t = tensor_arg(input, "input", op)
    if not isinstance(boundaries, (list, tuple)) or not builtins.all(
            isinstance(b, numbers.Real) and not isinstance(b, bool) for b in boundaries):
        raise TypeError(f"For '{op}', 'boundaries' must be a list of numbers, but got {describe(boundaries)}")
    right = bool_arg(right, "right", op)
    arr = t._data
    xs = xp()
    edges = _be().asarray(np.asarray([float(b) for b in boundaries], dtype=np.float64))
    if _dt.dtype_of(arr).kind == "float":
        edges = xs.astype(edges, arr.dtype)
        work = arr
    else:
        work = xs.astype(arr, _dt.float64.to_backend(xs))
    if len(boundaries) == 0:
        return wrap(xs.zeros(arr.shape, dtype=_INT32.to_backend(xs)) if _be().is_numpy else
                    xs.zeros(arr.shape, dtype=_INT32.to_backend(xs), device=_be().device))
    out = _search_array(edges, work, right)
    return wrap(xs.astype(out, _INT32.to_backend(xs)))


def nonzero(input, *, as_tuple=False):
    """The Int64 coordinates of the non-zero elements: an ``(N, ndim)`` Tensor, or with
    ``as_tuple=True`` one 1-D Tensor per dimension.

    MindSpore 2.10's CPU build has no kernel for ``as_tuple=True``; cellkit returns the tuple
    its documentation describes.

    >>> import cellkit as ms
    >>> print(nonzero(ms.Tensor([[1, 0], [0, 2]])))
    [[0 0]
     [1 1]]
    """
    op = "nonzero"
    t = tensor_arg(input, "input", op)
    as_tuple = bool_arg(as_tuple, "as_tuple", op)
    if t.ndim == 0:  # MindSpore's kernel refuses it with a RuntimeError
        raise ValueRuntimeError(f"For '{op}', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    xs = xp()
    arr = t._data
    mask = arr if _dt.dtype_of(arr) is _dt.bool_ else arr != 0
    coords = [xs.astype(c, _INT64.to_backend(xs)) for c in xs.nonzero(mask)]
    if as_tuple:
        return tuple(wrap(c) for c in coords)
    return wrap(xs.stack(coords, axis=1))


def argwhere(input):
    """The Int64 coordinates of the non-zero elements, one row each (``nonzero(input)``)."""
    t = tensor_arg(input, "input", "argwhere")
    return nonzero(t)


# ================================================================== unique values
def _unique_first_order(flat):
    """Unique values of a 1-D array in order of first appearance, and each element's Int64 slot."""
    xs = xp()
    if _be().is_numpy:
        values, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    else:
        found = xs.unique_all(flat)
        values, first, inverse = found.values, found.indices, found.inverse_indices
    order = _argsort_array(first, 0)
    rank = _argsort_array(order, 0)
    return xs.take(values, order, axis=0), xs.take(rank, xs.astype(inverse, _INT64.to_backend(xs)), axis=0)


def unique(input):
    """``(output, indices)``: the distinct elements (in order of first appearance, as MindSpore's CPU
    kernel gives them) and, for every element, the Int32 position of its value in ``output``.

    >>> import cellkit as ms
    >>> output, idx = unique(ms.Tensor([3, 1, 3, 2]))
    >>> print(output, idx)
    [3 1 2] [0 1 0 2]
    """
    op = "unique"
    t = tensor_arg(input, "input", op)
    _refuse_bool(t, op)
    xs = xp()
    arr = t._data
    values, slots = _unique_first_order(xs.reshape(arr, (-1,)))
    index_dtype = _INT64 if _dt.dtype_of(arr) is _INT64 else _INT32  # MindSpore's choice
    return wrap(values), wrap(xs.reshape(xs.astype(slots, index_dtype.to_backend(xs)), arr.shape))


def _consecutive(arr, dim):
    """Runs of equal consecutive elements (or slices along ``dim``): keep mask, run ids."""
    xs = xp()
    n = arr.shape[dim]
    if n == 0:
        return xs.astype(_arange(0), _dt.bool_.to_backend(xs)), _arange(0)
    later = arr[_cut(arr.ndim, dim, slice(1, n))]
    earlier = arr[_cut(arr.ndim, dim, slice(0, n - 1))]
    differs = later != earlier
    other = tuple(i for i in range(arr.ndim) if i != dim)
    if other:
        differs = xs.any(differs, axis=other)
    start = xs.concat([xs.astype(xs.ones((1,), dtype=_INT64.to_backend(xs)) if _be().is_numpy else
                                 xs.ones((1,), dtype=_INT64.to_backend(xs), device=_be().device),
                                 _dt.bool_.to_backend(xs)), differs], axis=0)
    runs = _cumsum_array(xs.astype(start, _INT64.to_backend(xs)), 0) - 1
    return start, runs


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (slices along ``dim``; the flattened input when
    ``None``).  Returns the output alone, or a tuple of the output and the Int64 inverse indices
    and/or counts that were asked for.

    >>> import cellkit as ms
    >>> print(unique_consecutive(ms.Tensor([1, 1, 2, 1])))
    [1 2 1]
    """
    op = "unique_consecutive"
    t = tensor_arg(input, "input", op)
    return_inverse = bool_arg(return_inverse, "return_inverse", op)
    return_counts = bool_arg(return_counts, "return_counts", op)
    xs = xp()
    arr = t._data
    if dim is None:
        work, ax = xs.reshape(arr, (-1,)), 0
    else:
        ax = normalize_axis(dim, arr.ndim, op, "dim")
        work = arr
        if arr.ndim == 0:
            work, ax = xs.reshape(arr, (1,)), 0
    start, runs = _consecutive(work, ax)
    keep = xs.nonzero(start)[0]
    output = xs.take(work, keep, axis=ax)
    if not (return_inverse or return_counts):
        return wrap(output)
    result = [wrap(output)]
    inverse = runs if dim is not None else xs.reshape(runs, arr.shape)
    n_runs = keep.shape[0]
    bounds = xs.concat([keep, xs.asarray([work.shape[ax]], dtype=_INT64.to_backend(xs))
                        if _be().is_numpy else
                        xs.asarray([work.shape[ax]], dtype=_INT64.to_backend(xs), device=_be().device)], axis=0)
    counts = bounds[1:n_runs + 1] - bounds[:n_runs]
    if return_inverse:
        result.append(wrap(xs.astype(inverse, _INT64.to_backend(xs))))
    if return_counts:
        result.append(wrap(xs.astype(counts, _INT64.to_backend(xs))))
    return tuple(result)


def unique_with_pad(x, pad_num):
    """``(y, idx)``: :func:`unique` of a 1-D tensor, padded with ``pad_num`` to the input's length
    (both of the input's dtype)."""
    op = "unique_with_pad"
    t = tensor_arg(x, "x", op)
    _refuse_bool(t, op, "x")
    if t.ndim != 1:
        raise ValueError(f"For '{op}', 'x' must be a 1-D Tensor, but got shape {tuple(t.shape)}")
    if isinstance(pad_num, bool) or not isinstance(pad_num, numbers.Real):
        raise TypeError(f"For '{op}', 'pad_num' must be a number, but got {describe(pad_num)}")
    xs = xp()
    arr = t._data
    values, slots = _unique_first_order(arr)
    pad = _full((arr.shape[0] - values.shape[0],), pad_num, arr.dtype)
    return wrap(xs.concat([values, pad], axis=0)), wrap(xs.astype(slots, arr.dtype if _dt.dtype_of(arr).kind != "float"
                                                                  else _INT32.to_backend(xs)))


# ================================================================== statistics built from several steps
def _float_tensor(t, op, name="input"):
    """``t`` itself if it holds floats, else cast to Float32 (differentiably)."""
    if _dt.dtype_of(t._data).kind == "float":
        return t
    from .creation import cast
    return cast(t, _dt.float32)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in its columns).

    A 0-D or 1-D input gives its variance.  ``fweights`` (integer repeat counts) and ``aweights``
    (observation weights) weight the observations; ``correction`` is subtracted from the
    (weighted) count, 1 giving the unbiased estimate.  Differentiable in ``input``.

    >>> import cellkit as ms
    >>> print(cov(ms.Tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])))
    [[ 1. -1.]
     [-1.  1.]]
    """
    from .linalg import matmul
    from .shape_ops import reshape
    op = "cov"
    t = tensor_arg(input, "input", op)
    _refuse_bool(t, op)
    if t.ndim > 2:
        raise ValueError(f"For '{op}', 'input' must be 0-D, 1-D or 2-D, but got shape {tuple(t.shape)}")
    correction = int_arg(correction, "correction", op)
    x = _float_tensor(t, op)
    x = reshape(x, (1, -1)) if x.ndim < 2 else x
    observations = x.shape[1]
    weight = None
    for name, w, kinds in (("fweights", fweights, ("int", "uint")), ("aweights", aweights, ("float",))):
        if w is None:
            continue
        wt = tensor_arg(w, name, op)
        if _dt.dtype_of(wt._data).kind not in kinds:
            raise TypeError(f"For '{op}', '{name}' must be a Tensor of {'ints' if kinds[0] == 'int' else 'floats'}, "
                            f"but got dtype {wt.dtype}")
        if wt.ndim > 1 or (wt.ndim == 1 and wt.shape[0] != observations) or (wt.ndim == 0 and observations != 1):
            raise ValueError(f"For '{op}', '{name}' must be a 1-D Tensor with one weight per observation "
                             f"({observations}), but got shape {tuple(wt.shape)}")
        if bool(_to_host(xp().any(wt._data < 0))):
            raise ValueError(f"For '{op}', '{name}' must not be negative")
        wt = wrap(xp().astype(wt._data, x._data.dtype))
        weight = wt if weight is None else weight * wt
    if weight is None:
        total = float(observations)
        centre = _reduce.mean(x, 1, True)
        norm = total - correction
        centred = x - centre
        out = matmul(centred, _transpose2(centred)) / norm
    else:
        total = _reduce.sum(weight)
        centre = _reduce.sum(x * weight, 1, True) / total
        if aweights is None:
            norm = total - correction
        else:
            aw = wrap(xp().astype(tensor_arg(aweights, "aweights", op)._data, x._data.dtype))
            norm = total - correction * _reduce.sum(weight * aw) / total
        centred = x - centre
        out = matmul(centred * weight, _transpose2(centred)) / norm
    if t.ndim < 2:
        return reshape(out, ())
    return out


def _transpose2(t):
    from .shape_ops import transpose
    return transpose(t, (1, 0))


def histc(input, bins=100, min=0.0, max=0.0):
    """Counts of ``input``'s elements in ``bins`` equal bins between ``min`` and ``max``
    (the data's own range when both are 0); elements outside are left out.  The counts have the
    input's dtype (Float16, Float32 or Int32).

    >>> import cellkit as ms
    >>> print(histc(ms.Tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3))
    [0. 2. 1. 0.]
    """
    op = "histc"
    t = tensor_arg(input, "input", op)
    dtype = _dt.dtype_of(t._data)
    if dtype not in (_dt.float16, _dt.float32, _dt.float64, _dt.int32):
        raise TypeError(f"For '{op}', 'input' must be a Tensor of Float16, Float32 or Int32 (or Float64), "
                        f"but got dtype {dtype}")
    bins = int_arg(bins, "bins", op)
    if bins <= 0:
        raise ValueError(f"For '{op}', 'bins' must be positive, but got {bins}")
    from ..tensor import check_allocation
    check_allocation((bins + 1,), _dt.float64, op, f"bins={bins}")
    for name, value in (("min", min), ("max", max)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"For '{op}', '{name}' must be a number, but got {describe(value)}")
        if not _pymath.isfinite(value):
            raise ValueError(f"For '{op}', '{name}' must be finite, but got {value}")
    low, high = float(min), float(max)
    if low > high:
        raise ValueError(f"For '{op}', 'min' must not exceed 'max', but got min={min!r} and max={max!r}")
    xs = xp()
    flat = xs.astype(xs.reshape(t._data, (-1,)), _dt.float64.to_backend(xs))
    if low == 0.0 and high == 0.0 and flat.shape[0]:
        low, high = float(_to_host(xs.min(flat))), float(_to_host(xs.max(flat)))
        if not (_pymath.isfinite(low) and _pymath.isfinite(high)):
            raise ValueError(f"For '{op}', the input's range [{low}, {high}] is not finite: give 'min' and 'max' "
                             "to count it")
    if low == high:
        low, high = low - 1.0, high + 1.0
    inside = (flat >= low) & (flat <= high)
    width = high - low
    scale = bins / width if width > 0 and _pymath.isfinite(bins / width) else 0.0  # a range rounding to nothing
    slot = xs.astype(xs.floor((flat - low) * scale), _INT64.to_backend(xs))
    slot = xs.where(slot >= bins, xs.full_like(slot, bins - 1), slot)
    slot = xs.where(inside, slot, xs.full_like(slot, bins))  # out of range: an extra bin, dropped
    counts = _bin_counts(slot, None, bins + 1)[:bins]
    out_dtype = _dt.float32 if dtype is _dt.float16 else dtype  # MindSpore counts Float16 input in Float32
    return wrap(xs.astype(counts, out_dtype.to_backend(xs)))


def _bin_counts(slots, weights, length):
    """``out[slots[i]] += weights[i]`` (or 1) into ``length`` bins, as float64."""
    xs = xp()
    be = _be()
    if be.is_numpy:
        return np.bincount(slots, weights=weights, minlength=length).astype(np.float64)
    values = weights if weights is not None else xs.ones(slots.shape, dtype=_dt.float64.to_backend(xs),
                                                         device=be.device)
    return be.scatter_add_rows(xs.astype(values, _dt.float64.to_backend(xs)), slots, length)


def bincount(input, weights=None, minlength=0):
    """How often each value ``0, 1, ...`` occurs in the 1-D non-negative int tensor ``input``
    (summing ``weights`` instead of ones when given); Float32, of length ``max(max(input) + 1, minlength)``.

    >>> import cellkit as ms
    >>> print(bincount(ms.Tensor([0, 2, 2])))
    [1. 0. 2.]
    """
    op = "bincount"
    t = tensor_arg(input, "input", op)
    if _dt.dtype_of(t._data).kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'input' must be a Tensor of ints, but got dtype {t.dtype}")
    if t.ndim != 1:
        raise ValueError(f"For '{op}', 'input' must be 1-D, but got shape {tuple(t.shape)}")
    minlength = int_arg(minlength, "minlength", op, minimum=0, maximum=2 ** 31 - 1)
    xs = xp()
    arr = xs.astype(t._data, _INT64.to_backend(xs))
    top = int(_to_host(xs.max(arr))) if arr.shape[0] else -1
    if arr.shape[0] and int(_to_host(xs.min(arr))) < 0:
        raise ValueError(f"For '{op}', 'input' must not hold negative values, but got {int(_to_host(xs.min(arr)))}")
    w = None
    if weights is not None:
        wt = tensor_arg(weights, "weights", op)
        if tuple(wt.shape) != tuple(t.shape):
            raise ValueError(f"For '{op}', 'weights' must have the shape of 'input' {tuple(t.shape)}, "
                             f"but got {tuple(wt.shape)}")
        w = xs.astype(wt._data, _dt.float64.to_backend(xs))
    length = builtins.max(top + 1, minlength)
    if not length:
        return wrap(xs.astype(xs.reshape(_arange(0), (0,)), _dt.float32.to_backend(xs)))
    return wrap(xs.astype(_bin_counts(arr, w, length), _dt.float32.to_backend(xs)))


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th forward difference ``out[i] = x[i + 1] - x[i]`` along ``axis`` (bools: ``!=``),
    after joining ``prepend`` before and ``append`` after ``x``; differentiable.

    MindSpore 2.10 accepts only ``n=1`` (documented as a current limit); cellkit applies the
    difference ``n`` times.

    >>> import cellkit as ms
    >>> print(diff(ms.Tensor([1.0, 4.0, 9.0])))
    [3. 5.]
    """
    from . import math as _math
    from . import shape_ops as _shape
    op = "diff"
    t = tensor_arg(x, "x", op)
    n = int_arg(n, "n", op, minimum=0)
    _need_rank(t, op, "x")
    if t.size == 0:
        raise ValueError(f"For '{op}', 'x' must not be empty, but got shape {tuple(t.shape)}")
    ax = normalize_axis(axis, t.ndim, op)
    parts = []
    for name, extra in (("prepend", prepend), (None, t), ("append", append)):
        if extra is None:
            continue
        e = t if name is None else tensor_arg(extra, name, op)
        if name is not None:
            if e.ndim != t.ndim or builtins.any(a != b for i, (a, b) in enumerate(zip(e.shape, t.shape)) if i != ax):
                raise ValueError(f"For '{op}', '{name}' of shape {tuple(e.shape)} must match 'x' {tuple(t.shape)} "
                                 f"except along axis {ax}")
            if e.dtype is not t.dtype:
                from .creation import cast
                e = cast(e, t.dtype)
        parts.append(e)
    a = _shape.concat(parts, ax) if len(parts) > 1 else t
    is_bool = _dt.dtype_of(a._data) is _dt.bool_
    for _ in range(n):
        length = a.shape[ax]
        if length == 0:
            break
        later = _shape.getitem(a, _cut(a.ndim, ax, slice(1, length)))
        earlier = _shape.getitem(a, _cut(a.ndim, ax, slice(0, length - 1)))
        a = _math.not_equal(later, earlier) if is_bool else _math.sub(later, earlier)
    return a


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoidal-rule integral of ``y`` along ``dim``, with sample points ``x`` (1-D, or
    ``y``'s shape) or a constant spacing ``dx``; differentiable in ``y`` and ``x``.

    Int inputs give Float32; float inputs keep their dtype (MindSpore 2.10 returns Float32 for
    Float64 input, losing precision; cellkit keeps Float64).

    >>> import cellkit as ms
    >>> print(trapz(ms.Tensor([1.0, 2.0, 3.0])))
    4.0
    """
    from . import shape_ops as _shape
    from .creation import cast
    op = "trapz"
    yt = tensor_arg(y, "y", op)
    _need_rank(yt, op, "y")
    ax = normalize_axis(dim, yt.ndim, op, "dim")
    target = yt.dtype if yt.dtype.kind == "float" else _dt.float32
    yf = cast(yt, target) if yt.dtype is not target else yt
    n = yf.shape[ax]
    if n == 0:
        return _reduce.sum(yf, ax)
    later = _shape.getitem(yf, _cut(yf.ndim, ax, slice(1, n)))
    earlier = _shape.getitem(yf, _cut(yf.ndim, ax, slice(0, n - 1)))
    if x is None:
        if isinstance(dx, bool) or not isinstance(dx, numbers.Real):
            raise TypeError(f"For '{op}', 'dx' must be a number, but got {describe(dx)}")
        return _reduce.sum((later + earlier) * (float(dx) / 2.0), ax)
    xt = tensor_arg(x, "x", op)
    xf = cast(xt, target) if xt.dtype is not target else xt
    if xf.ndim == 1:
        if xf.shape[0] != n:
            raise ValueError(f"For '{op}', a 1-D 'x' must have the length of 'y' along dim {ax} ({n}), "
                             f"but got {xf.shape[0]}")
        steps = _shape.getitem(xf, slice(1, n)) - _shape.getitem(xf, slice(0, n - 1))
        steps = _shape.reshape(steps, tuple(n - 1 if i == ax else 1 for i in range(yf.ndim)))
    else:
        if tuple(xf.shape) != tuple(yf.shape):
            raise ValueError(f"For '{op}', 'x' must be 1-D or have the shape of 'y' {tuple(yf.shape)}, "
                             f"but got {tuple(xf.shape)}")
        steps = _shape.getitem(xf, _cut(xf.ndim, ax, slice(1, n))) - _shape.getitem(xf, _cut(xf.ndim, ax, slice(0, n - 1)))
    return _reduce.sum((later + earlier) * steps / 2.0, ax)


def _p_norm(d, p, axes, keepdim=False):
    """``(sum |d|^p)^(1/p)`` over ``axes`` (p = 0: the count of non-zeros; inf: the largest ``|d|``)."""
    from . import math as _math
    if p == 0:
        return _reduce.sum(wrap(xp().astype(d._data != 0, d._data.dtype)), axes, keepdim)
    if p == _pymath.inf:
        return _reduce.amax(_math.abs(d), axes, keepdim)
    if p == 1:
        return _reduce.sum(_math.abs(d), axes, keepdim)
    if p == 2:
        return _math.sqrt(_reduce.sum(d * d, axes, keepdim))
    return _math.pow(_reduce.sum(_math.pow(_math.abs(d), float(p)), axes, keepdim), 1.0 / p)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast) over every element, a 0-D Tensor; ``p`` is a
    non-negative int (MindSpore supports only integer ``p`` here).

    >>> import cellkit as ms
    >>> print(dist(ms.Tensor([0.0, 3.0]), ms.Tensor([4.0, 0.0])))
    5.0
    """
    op = "dist"
    a = tensor_arg(input, "input", op)
    b = tensor_arg(other, "other", op)
    for name, t in (("input", a), ("other", b)):
        if t.dtype.kind != "float":
            raise TypeError(f"For '{op}', '{name}' must be a Tensor of floats, but got dtype {t.dtype}")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"For '{op}', 'p' must be a non-negative int, but got {describe(p)}")
    if p < 0:
        raise ValueError(f"For '{op}', 'p' must be a non-negative int, but got {p}")
    from .math import sub
    return _p_norm(sub(a, b), int(p), None)


def _distance_p(p, op):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For '{op}', 'p' must be a float, but got {describe(p)}")
    p = float(p)
    if _pymath.isnan(p) or p < 0:
        raise ValueError(f"For '{op}', 'p' must be a non-negative float, but got {p}")
    return p


def _check_distance_dtype(t, op, name):
    if t.dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of floats, but got dtype {t.dtype}")


def cdist(x1, x2, p=2.0):
    """The ``p``-norm distance between every row of ``x1`` (``[B,] P, M``) and every row of ``x2``
    (``[B,] R, M``): shape ``[B,] P, R``; differentiable (away from zero distances when ``p < 1``).

    >>> import cellkit as ms
    >>> print(cdist(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[3.0, 4.0], [0.0, 1.0]])))
    [[5. 1.]]
    """
    from . import shape_ops as _shape
    op = "cdist"
    a = tensor_arg(x1, "x1", op)
    b = tensor_arg(x2, "x2", op)
    _check_distance_dtype(a, op, "x1")
    _check_distance_dtype(b, op, "x2")
    p = _distance_p(p, op)
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise ValueError(f"For '{op}', 'x1' and 'x2' must both be 2-D or both 3-D, but got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[-1] != b.shape[-1] or (a.ndim == 3 and a.shape[0] != b.shape[0]):
        raise ValueError(f"For '{op}', 'x1' {tuple(a.shape)} and 'x2' {tuple(b.shape)} must agree in their batch "
                         "and last dimensions")
    if a.dtype is not b.dtype:
        raise TypeError(f"For '{op}', 'x1' and 'x2' must have one dtype, but got {a.dtype} and {b.dtype}")
    d = _shape.expand_dims(a, -2) - _shape.expand_dims(b, -3)
    return _p_norm(d, p, -1)


def pdist(input, p=2.0):
    """The ``p``-norm distance between every pair of rows ``i < j`` of ``input`` (``[..., N, M]``),
    in row-major order of the pairs: shape ``[..., N (N - 1) / 2]``; differentiable.

    >>> import cellkit as ms
    >>> print(pdist(ms.Tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])))
    [5.        1.        4.2426405]
    """
    from . import shape_ops as _shape
    op = "pdist"
    t = tensor_arg(input, "input", op)
    _check_distance_dtype(t, op, "input")
    p = _distance_p(p, op)
    if t.ndim < 2:
        raise ValueError(f"For '{op}', 'input' must have at least 2 dimensions, but got shape {tuple(t.shape)}")
    n = t.shape[-2]
    first, second = np.triu_indices(n, 1)
    be = _be()
    left = _shape.gather(t, wrap(be.from_host(first.astype(np.int64))), t.ndim - 2)
    right = _shape.gather(t, wrap(be.from_host(second.astype(np.int64))), t.ndim - 2)
    return _p_norm(left - right, p, -1)


def renorm(input, p, axis, maxnorm):
    """Scale each slice along ``axis`` whose ``p``-norm (over its other axes) exceeds ``maxnorm`` down
    to norm ``maxnorm`` (dividing by ``norm + 1e-7``); differentiable.

    >>> import cellkit as ms
    >>> print(renorm(ms.Tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0))
    [[0.6 0.8]
     [0.3 0.4]]
    """
    from . import math as _math
    op = "renorm"
    t = tensor_arg(input, "input", op)
    if t.dtype.kind != "float":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of floats, but got dtype {t.dtype}")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"For '{op}', 'p' must be an int, but got {describe(p)}")
    if p <= 0:
        raise ValueError(f"For '{op}', 'p' must be positive, but got {p}")
    if isinstance(maxnorm, bool) or not isinstance(maxnorm, numbers.Real):
        raise TypeError(f"For '{op}', 'maxnorm' must be a float, but got {describe(maxnorm)}")
    if not maxnorm >= 0:
        raise ValueError(f"For '{op}', 'maxnorm' must be non-negative, but got {maxnorm}")
    _need_rank(t, op)
    ax = normalize_axis(axis, t.ndim, op, "axis")
    others = tuple(i for i in range(t.ndim) if i != ax)
    norms = _p_norm(t, int(p), others, True) if others else _math.abs(t)
    over = norms._data > maxnorm
    scale = float(maxnorm) / (norms + 1e-7)
    factor = _math.where(wrap(over), scale, 1.0)
    return t * factor


# ================================================================== segment reductions
def _segment_args(x, segment_ids, num_segments, op, x_name="x"):
    t = tensor_arg(x, x_name, op)
    ids = tensor_arg(segment_ids, "segment_ids", op)
    if _dt.dtype_of(ids._data) not in (_INT32, _INT64):
        raise TypeError(f"For '{op}', 'segment_ids' must be a Tensor of Int32 or Int64, but got dtype {ids.dtype}")
    if isinstance(num_segments, Tensor):
        num_segments = int(np.asarray(num_segments.asnumpy()).reshape(()))
    num = int_arg(num_segments, "num_segments", op, minimum=0, maximum=2 ** 31 - 1)
    k = ids.ndim
    if tuple(t.shape[:k]) != tuple(ids.shape):
        raise ValueError(f"For '{op}', the shape of 'segment_ids' {tuple(ids.shape)} must be a prefix of the "
                         f"shape of '{x_name}' {tuple(t.shape)}")
    xs = xp()
    flat_ids = xs.reshape(xs.astype(ids._data, _INT64.to_backend(xs)), (-1,))
    if flat_ids.shape[0]:
        lo, hi = int(_to_host(xs.min(flat_ids))), int(_to_host(xs.max(flat_ids)))
        if lo < 0 or hi >= num:
            raise ValueRuntimeError(f"For '{op}', 'segment_ids' must be in [0, {num}), but got values from {lo} to {hi}")
    rest = tuple(t.shape[k:])
    rows = xs.reshape(t._data, (flat_ids.shape[0],) + rest)
    return t, flat_ids, num, rows, rest


def _segment_masks(flat_ids, num):
    """``(num, N)`` booleans: which row belongs to which segment."""
    xs = xp()
    return xs.reshape(_arange(num), (num, 1)) == xs.reshape(flat_ids, (1, -1))


def _segment_extreme(x, segment_ids, num_segments, op, is_max):
    t, ids, num, rows, rest = _segment_args(x, segment_ids, num_segments, op)
    _refuse_bool(t, op, "x")
    xs = xp()
    fill = _lowest(rows.dtype) if is_max else _highest(rows.dtype)
    if _be().is_numpy:
        out = np.full((num,) + rest, fill, dtype=rows.dtype)
        (np.maximum if is_max else np.minimum).at(out, ids, rows)
    else:
        member = xs.reshape(_segment_masks(ids, num), (num, ids.shape[0]) + (1,) * len(rest))
        spread = xs.where(member, xs.expand_dims(rows, axis=0), _full((1,) * (len(rest) + 2), fill, rows.dtype))
        out = (xs.max if is_max else xs.min)(spread, axis=1) if ids.shape[0] else _full((num,) + rest, fill, rows.dtype)
    if not _on_tape(t) or _dt.dtype_of(rows).kind != "float":
        return wrap(out)
    winners = xs.astype(rows == xs.take(out, ids, axis=0), rows.dtype)
    ties = _segment_sum_array(winners, ids, num)
    share = winners / xs.take(xs.where(ties > 0, ties, xs.ones_like(ties)), ids, axis=0)
    return record(out, "UnsortedSegmentMax" if is_max else "UnsortedSegmentMin", _segment_pick_rule, (t,),
                  (ids, share), (None, None), tuple(t.shape))


def _segment_pick_rule(m, node, g):
    """Each segment's gradient goes to its extreme rows (shared among ties)."""
    ids, share = node.unpack(m)
    return (m.reshape(m.take(g, ids, 0) * share, node.info),)


def _segment_sum_array(rows, ids, num):
    return _be().scatter_add_rows(rows, ids, num)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """Sum the rows of ``input_x`` that share a segment id: ``out[s] = sum(x[i] for segment_ids[i] == s)``.

    ``segment_ids`` has the shape of ``input_x``'s leading dimensions; empty segments are 0.

    >>> import cellkit as ms
    >>> print(unsorted_segment_sum(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0, 1, 0], ms.int32), 2))
    [4. 2.]
    """
    op = "unsorted_segment_sum"
    t, ids, num, rows, rest = _segment_args(input_x, segment_ids, num_segments, op, "input_x")
    _refuse_bool(t, op, "input_x")
    out = _segment_sum_array(rows, ids, num)
    if not _on_tape(t):
        return wrap(out)
    return record(out, "UnsortedSegmentSum", _segment_sum_rule, (t,), (ids,), (None,), tuple(t.shape))


def _segment_sum_rule(m, node, g):
    """Every row receives its segment's gradient."""
    (ids,) = node.unpack(m)
    return (m.reshape(m.take(g, ids, 0), node.info),)


def unsorted_segment_max(x, segment_ids, num_segments):
    """The largest row of each segment; an empty segment holds the dtype's lowest value (as MindSpore)."""
    return _segment_extreme(x, segment_ids, num_segments, "unsorted_segment_max", True)


def unsorted_segment_min(x, segment_ids, num_segments):
    """The smallest row of each segment; an empty segment holds the dtype's highest value."""
    return _segment_extreme(x, segment_ids, num_segments, "unsorted_segment_min", False)


def unsorted_segment_prod(x, segment_ids, num_segments):
    """The product of the rows of each segment (1 for an empty one); gradient ``prod / x``."""
    op = "unsorted_segment_prod"
    t, ids, num, rows, rest = _segment_args(x, segment_ids, num_segments, op)
    _refuse_bool(t, op, "x")
    xs = xp()
    if _be().is_numpy:
        out = np.ones((num,) + rest, dtype=rows.dtype)
        np.multiply.at(out, ids, rows)
    else:
        member = xs.reshape(_segment_masks(ids, num), (num, ids.shape[0]) + (1,) * len(rest))
        spread = xs.where(member, xs.expand_dims(rows, axis=0), _full((1,) * (len(rest) + 2), 1, rows.dtype))
        out = xs.prod(spread, axis=1, dtype=rows.dtype) if ids.shape[0] else _full((num,) + rest, 1, rows.dtype)
    if not _on_tape(t) or _dt.dtype_of(rows).kind != "float":
        return wrap(out)
    return record(out, "UnsortedSegmentProd", _segment_prod_rule, (t,), (ids, t._data, out), (None, 0, OUTPUT),
                  (tuple(t.shape), tuple(rows.shape)))


def _segment_prod_rule(m, node, g):
    """d out_s / dx_i = out_s / x_i for the rows of segment s (rows must be non-zero)."""
    ids, arr, out = node.unpack(m)
    shape, rows_shape = node.info
    return (m.reshape(m.take(g * out, ids, 0) / m.reshape(arr, rows_shape), shape),)


# ================================================================== Primitives
class ArgMaxWithValue(Primitive):
    """``ArgMaxWithValue(axis=0, keep_dims=False)(input)`` -> ``(index, value)`` (index first, Int64)."""

    @prim_attr_register
    def __init__(self, axis=0, keep_dims=False):
        pass

    def __call__(self, input):
        values, indices = _reduce._extreme_with_index(input, self.axis, self.keep_dims, "max", True,
                                                      "ArgMaxWithValue")
        return indices, values


class ArgMinWithValue(Primitive):
    """``ArgMinWithValue(axis=0, keep_dims=False)(input)`` -> ``(index, value)`` (index first, Int64)."""

    @prim_attr_register
    def __init__(self, axis=0, keep_dims=False):
        pass

    def __call__(self, input):
        values, indices = _reduce._extreme_with_index(input, self.axis, self.keep_dims, "min", False,
                                                      "ArgMinWithValue")
        return indices, values


class Bincount(Primitive):
    """``Bincount()(array, size, weights)``: weighted counts of the values ``0 .. size-1`` of ``array``
    (values at or beyond ``size`` are left out), in the weights' dtype."""

    def __call__(self, array, size, weights):
        op = "Bincount"
        t = tensor_arg(array, "array", op)
        if _dt.dtype_of(t._data) is not _INT32:
            raise TypeError(f"For '{op}', 'array' must be a Tensor of Int32, but got dtype {t.dtype}")
        length = size
        if isinstance(size, Tensor):
            st = tensor_arg(size, "size", op)
            if st.ndim != 0 or _dt.dtype_of(st._data).kind not in ("int", "uint"):
                raise TypeError(f"For '{op}', 'size' must be an int or a 0-D int Tensor, but got {describe(size)}")
            length = int(np.asarray(st.asnumpy()).reshape(()))
        length = int_arg(length, "size", op, minimum=0, maximum=2 ** 31 - 1)
        w = tensor_arg(weights, "weights", op)
        xs = xp()
        flat = xs.reshape(xs.astype(t._data, _INT64.to_backend(xs)), (-1,))
        wflat = None
        if w.size:
            if tuple(w.shape) != tuple(t.shape):
                raise ValueError(f"For '{op}', 'weights' must have the shape of 'array' {tuple(t.shape)} (or be "
                                 f"empty), but got {tuple(w.shape)}")
            wflat = xs.astype(xs.reshape(w._data, (-1,)), _dt.float64.to_backend(xs))
        if flat.shape[0] and int(_to_host(xs.min(flat))) < 0:
            raise ValueError(f"For '{op}', 'array' must not hold negative values")
        inside = flat < length
        slots = xs.where(inside, flat, xs.full_like(flat, length))
        counts = _bin_counts(slots, wflat, length + 1)[:length]
        out_dtype = w._data.dtype if w.size else _dt.float32.to_backend(xs)
        return wrap(xs.astype(counts, out_dtype))


class Bucketize(Primitive):
    """``Bucketize(boundaries)(input)``: Int32 bucket indices with ``boundaries[i-1] <= x < boundaries[i]``."""

    @prim_attr_register
    def __init__(self, boundaries):
        if not isinstance(boundaries, (list, tuple)):
            raise TypeError(f"For 'Bucketize', 'boundaries' must be a list of floats, but got {describe(boundaries)}")

    def __call__(self, input):
        return bucketize(input, list(self.boundaries), right=True)


class CountNonZero(Primitive):
    """``CountNonZero(dims=None)(x)``: the number of non-zero elements over ``dims`` (Int64).

    MindSpore 2.10's CPU build cannot call it (it asks for a second input); cellkit does what
    its documentation describes.
    """

    @prim_attr_register
    def __init__(self, dims=None):
        pass

    def __call__(self, x):
        t = tensor_arg(x, "x", "CountNonZero")
        xs = xp()
        axes = _axes(self.dims, t.ndim, "CountNonZero", "dims")
        counts = xs.sum(xs.astype(t._data != 0, _INT64.to_backend(xs)), axis=axes)
        return wrap(counts)


def _exclusive_reverse(x, axis, exclusive, reverse, fill, core):
    """Run the scan ``core(x, axis)`` backwards and/or exclusively, built from differentiable picks."""
    t = _flip(x, axis) if reverse else x
    if exclusive:
        t = _shift(t, axis, fill)
    out = core(t, axis)
    return _flip(out, axis) if reverse else out


class CumSum(Primitive):
    """``CumSum(exclusive=False, reverse=False)(input, axis)``: a running sum, optionally leaving out each
    element itself (``exclusive``) or running from the end (``reverse``)."""

    @prim_attr_register
    def __init__(self, exclusive=False, reverse=False):
        bool_arg(exclusive, "exclusive", "CumSum")
        bool_arg(reverse, "reverse", "CumSum")

    def __call__(self, input, axis):
        op = "CumSum"
        t = tensor_arg(input, "input", op)
        _refuse_bool(t, op)
        _need_rank(t, op)
        ax = normalize_axis(axis, t.ndim, op)
        return _cumsum_op(t, ax, self.exclusive, self.reverse)


class CumProd(Primitive):
    """``CumProd(exclusive=False, reverse=False)(x, axis)``: a running product (ints keep their dtype)."""

    @prim_attr_register
    def __init__(self, exclusive=False, reverse=False):
        bool_arg(exclusive, "exclusive", "CumProd")
        bool_arg(reverse, "reverse", "CumProd")

    def __call__(self, x, axis):
        op = "CumProd"
        t = tensor_arg(x, "x", op)
        _refuse_bool(t, op, "x")
        _need_rank(t, op, "x")
        ax = normalize_axis(axis, t.ndim, op)
        return _exclusive_reverse(t, ax, self.exclusive, self.reverse, 1, _cumprod_op)


class Cummin(Primitive):
    """``Cummin(axis)(input)`` -> ``(values, indices)``, as :func:`cummin`."""

    @prim_attr_register
    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"For 'Cummin', 'axis' must be an int, but got {describe(axis)}")

    def __call__(self, input):
        return cummin(input, self.axis)


class Cummax(Primitive):
    """``Cummax(axis)(input)`` -> ``(values, indices)``, as :func:`cummax`."""

    @prim_attr_register
    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"For 'Cummax', 'axis' must be an int, but got {describe(axis)}")

    def __call__(self, input):
        return cummax(input, self.axis)


class CumulativeLogsumexp(Primitive):
    """``CumulativeLogsumexp(exclusive=False, reverse=False)(x, axis)``; ``axis`` is a 0-D int Tensor, as
    MindSpore requires.  An exclusive scan starts from the dtype's lowest value (MindSpore's choice)."""

    @prim_attr_register
    def __init__(self, exclusive=False, reverse=False):
        bool_arg(exclusive, "exclusive", "CumulativeLogsumexp")
        bool_arg(reverse, "reverse", "CumulativeLogsumexp")

    def __call__(self, x, axis):
        op = "CumulativeLogsumexp"
        t = tensor_arg(x, "x", op)
        _check_float(t, op, "x")
        if isinstance(axis, Tensor):
            tensor_arg(axis, "axis", op)
        if not isinstance(axis, Tensor):
            raise TypeError(f"For '{op}', 'axis' must be a 0-D int Tensor, but got {describe(axis)}")
        if _dt.dtype_of(axis._data).kind not in ("int", "uint") or axis.ndim != 0:
            raise TypeError(f"For '{op}', 'axis' must be a 0-D int Tensor, but got {describe(axis)}")
        _need_rank(t, op, "x")
        ax = normalize_axis(int(axis.asnumpy()), t.ndim, op)
        return _exclusive_reverse(t, ax, self.exclusive, self.reverse, _lowest(t._data.dtype), _lcse_op)


class EqualCount(Primitive):
    """``EqualCount()(x, y)``: how many elements are equal, as a 1-element Tensor of ``x``'s dtype."""

    def __call__(self, x, y):
        op = "EqualCount"
        a = tensor_arg(x, "x", op)
        b = tensor_arg(y, "y", op)
        if tuple(a.shape) != tuple(b.shape):
            raise ValueError(f"For '{op}', 'x' {tuple(a.shape)} and 'y' {tuple(b.shape)} must have one shape")
        if a.dtype is not b.dtype:
            raise TypeError(f"For '{op}', 'x' and 'y' must have one dtype, but got {a.dtype} and {b.dtype}")
        xs = xp()
        same = xs.sum(xs.astype(a._data == b._data, _INT64.to_backend(xs)))
        return wrap(xs.reshape(xs.astype(same, a._data.dtype), (1,)))


class Histogram(Primitive):
    """``Histogram(bins=100, min=0.0, max=0.0)(x)``, as :func:`histc`."""

    @prim_attr_register
    def __init__(self, bins=100, min=0.0, max=0.0):
        pass

    def __call__(self, x):
        return histc(x, self.bins, self.min, self.max)


class L2Loss(Primitive):
    """``L2Loss()(input)``: ``sum(input ** 2) / 2`` as a 0-D Tensor (float inputs); differentiable."""

    def __call__(self, input):
        op = "L2Loss"
        t = tensor_arg(input, "input", op)
        _check_float(t, op)
        return _reduce.sum(t * t) / 2.0


class LpNorm(Primitive):
    """``LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12)(input)``: the ``p``-norm over ``axis`` (an int or
    a tuple), at least ``epsilon``; differentiable."""

    @prim_attr_register
    def __init__(self, axis, p=2, keep_dims=False, epsilon=1e-12):
        op = "LpNorm"
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"For '{op}', 'axis' must be an int or a tuple of ints, but got {describe(axis)}")
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"For '{op}', 'p' must be an int, but got {describe(p)}")
        if p < 0:
            raise ValueError(f"For '{op}', 'p' must be non-negative, but got {p}")
        bool_arg(keep_dims, "keep_dims", op)

    def __call__(self, input):
        from . import math as _math
        op = "LpNorm"
        t = tensor_arg(input, "input", op)
        _check_float(t, op)
        axes = _axes(tuple(self.axis) if isinstance(self.axis, list) else self.axis, t.ndim, op)
        out = _p_norm(t, self.p, axes, self.keep_dims)
        return _math.maximum(out, float(self.epsilon)) if self.p != 0 else out


class Median(Primitive):
    """``Median(global_median=False, axis=0, keep_dims=False, ignore_nan=False)(x)`` -> ``(values, indices)``.

    With ``global_median`` the index is 0, as in MindSpore (which documents it as meaningless).
    """

    @prim_attr_register
    def __init__(self, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
        for name, value in (("global_median", global_median), ("keep_dims", keep_dims), ("ignore_nan", ignore_nan)):
            bool_arg(value, name, "Median")

    def __call__(self, x):
        op = "Median"
        t = tensor_arg(x, "x", op)
        _check_median_dtype(t, op)
        return _median(t, self.axis, self.keep_dims, op, self.ignore_nan, self.global_median)


class NonZero(Primitive):
    """``NonZero()(input)``: the Int64 coordinates of the non-zero elements, ``(N, ndim)``."""

    def __call__(self, input):
        return nonzero(input)


class Pdist(Primitive):
    """``Pdist(p=2.0)(x)``, as :func:`pdist`."""

    @prim_attr_register
    def __init__(self, p=2.0):
        _distance_p(p, "Pdist")

    def __call__(self, x):
        return pdist(x, self.p)


class _KeepDimsReduce(Primitive):
    @prim_attr_register
    def __init__(self, keep_dims=False):
        bool_arg(keep_dims, "keep_dims", type(self).__name__)


class ReduceAll(_KeepDimsReduce):
    """``ReduceAll(keep_dims=False)(input, axis=None)``: logical AND over ``axis``."""

    def __call__(self, input, axis=None):
        return _reduce._logical(input, axis, self.keep_dims, "ReduceAll", True)


class ReduceAny(_KeepDimsReduce):
    """``ReduceAny(keep_dims=False)(x, axis=())``: logical OR over ``axis``."""

    def __call__(self, x, axis=()):
        return _reduce._logical(x, axis, self.keep_dims, "ReduceAny", False)


class ReduceProd(_KeepDimsReduce):
    """``ReduceProd(keep_dims=False)(x, axis=())``: product over ``axis``; ints keep their dtype."""

    def __call__(self, x, axis=()):
        t = tensor_arg(x, "x", "ReduceProd")
        dtype = t.dtype if t.dtype.kind in ("int", "uint") else None
        return _reduce.prod(t, None if axis == () else axis, self.keep_dims, dtype)


class ReduceStd(Primitive):
    """``ReduceStd(axis=[], unbiased=True, keep_dims=False)(x)`` -> ``(std, mean)``."""

    @prim_attr_register
    def __init__(self, axis=[], unbiased=True, keep_dims=False):  # noqa: B006 -- MindSpore's default
        bool_arg(unbiased, "unbiased", "ReduceStd")
        bool_arg(keep_dims, "keep_dims", "ReduceStd")

    def __call__(self, x):
        axis = self.axis
        axis = None if axis in ([], ()) else (tuple(axis) if isinstance(axis, list) else axis)
        x, arr, v, centre, info = _reduce._moments(x, axis, int(self.unbiased), self.keep_dims, "ReduceStd",
                                                   "keep_dims")
        return _reduce._std_op(x, arr, v, info), _reduce._mean_op(x, centre, info)


class Renorm(Primitive):
    """``Renorm(p, dim, maxnorm)(input)``, as :func:`renorm`."""

    @prim_attr_register
    def __init__(self, p, dim, maxnorm):
        pass

    def __call__(self, input):
        return renorm(input, self.p, self.dim, self.maxnorm)


class SearchSorted(Primitive):
    """``SearchSorted(dtype=int64, right=False)(sorted_sequence, values, sorter=None)``."""

    @prim_attr_register
    def __init__(self, dtype=_INT64, right=False):
        target = dtype_arg(dtype, "dtype", "SearchSorted")
        if target not in (_INT32, _INT64):
            raise TypeError(f"For 'SearchSorted', 'dtype' must be Int32 or Int64, but got {target}")
        bool_arg(right, "right", "SearchSorted")

    def __call__(self, sorted_sequence, values, sorter=None):
        return searchsorted(sorted_sequence, values, out_int32=dtype_arg(self.dtype, "dtype", "SearchSorted") is _INT32,
                            right=self.right, sorter=sorter)


class Sort(Primitive):
    """``Sort(axis=-1, descending=False)(x)`` -> ``(values, indices)``."""

    @prim_attr_register
    def __init__(self, axis=-1, descending=False):
        pass

    def __call__(self, x):
        return sort(x, self.axis, self.descending)


class SquareSumAll(Primitive):
    """``SquareSumAll()(x, y)`` -> ``(sum(x ** 2), sum(y ** 2))``, two 0-D Tensors (float inputs of one shape)."""

    def __call__(self, x, y):
        op = "SquareSumAll"
        a = tensor_arg(x, "x", op)
        b = tensor_arg(y, "y", op)
        for name, t in (("x", a), ("y", b)):
            if t.dtype.kind != "float":
                raise TypeError(f"For '{op}', '{name}' must be a Tensor of floats, but got dtype {t.dtype}")
        if tuple(a.shape) != tuple(b.shape):
            raise ValueError(f"For '{op}', 'x' {tuple(a.shape)} and 'y' {tuple(b.shape)} must have one shape")
        return _reduce.sum(a * a), _reduce.sum(b * b)


class TopK(Primitive):
    """``TopK(sorted=True)(input_x, k)`` -> ``(values, indices)`` of the ``k`` largest along the last axis."""

    @prim_attr_register
    def __init__(self, sorted=True):
        bool_arg(sorted, "sorted", "TopK")

    def __call__(self, input_x, k):
        return topk(input_x, k, None, True, self.sorted)


class Unique(Primitive):
    """``Unique()(input_x)`` -> ``(output, indices)``, as :func:`unique`."""

    def __call__(self, input_x):
        return unique(input_x)


class UniqueConsecutive(Primitive):
    """``UniqueConsecutive(return_inverse=False, return_counts=False, dim=None)(input)``."""

    @prim_attr_register
    def __init__(self, return_inverse=False, return_counts=False, dim=None):
        pass

    def __call__(self, input):
        """``(output, inverse, counts)``: always three outputs, as MindSpore's Primitive returns (one not
        asked for is a 0-D Int64 zero, where MindSpore leaves memory uninitialised)."""
        out = unique_consecutive(input, True, True, self.dim)
        output, inverse, counts = out
        xs = xp()
        empty = wrap(_full((), 0, _INT64.to_backend(xs)))
        return output, inverse if self.return_inverse else empty, counts if self.return_counts else empty


class UnsortedSegmentSum(Primitive):
    """``UnsortedSegmentSum()(input_x, segment_ids, num_segments)``."""

    def __call__(self, input_x, segment_ids, num_segments):
        return unsorted_segment_sum(input_x, segment_ids, num_segments)


class UnsortedSegmentMax(Primitive):
    """``UnsortedSegmentMax()(x, segment_ids, num_segments)``."""

    def __call__(self, x, segment_ids, num_segments):
        return unsorted_segment_max(x, segment_ids, num_segments)


class UnsortedSegmentMin(Primitive):
    """``UnsortedSegmentMin()(x, segment_ids, num_segments)``."""

    def __call__(self, x, segment_ids, num_segments):
        return unsorted_segment_min(x, segment_ids, num_segments)


class UnsortedSegmentProd(Primitive):
    """``UnsortedSegmentProd()(x, segment_ids, num_segments)``."""

    def __call__(self, x, segment_ids, num_segments):
        return unsorted_segment_prod(x, segment_ids, num_segments)


# ================================================================== Tensor methods
# MindSpore's Tensor methods of this family often have two overloads: the older NumPy-like one
# (``axis``/``keep_dims``/``keepdims``, ``ddof``) and the newer one (``dim``/``keepdim``,
# ``correction``).  Keyword names pick the overload; positional arguments take the older one.
def _no_more(kwargs, name):
    if kwargs:
        raise TypeError(f"Tensor.{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")


def _t_all(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    """``t.all(axis, keep_dims)`` or ``t.all(dim=..., keepdim=...)``."""
    return _reduce.all(self, axis if dim is None else dim, keep_dims if keepdim is None else keepdim)


def _t_any(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    """``t.any(axis, keep_dims)`` or ``t.any(dim=..., keepdim=...)``."""
    return _reduce.any(self, axis if dim is None else dim, keep_dims if keepdim is None else keepdim)


def _t_amax(self, axis=None, keepdims=False, *, initial=None, where=None):
    return _reduce.amax(self, axis, keepdims, initial=initial, where=where)


def _t_amin(self, axis=None, keepdims=False, *, initial=None, where=None):
    return _reduce.amin(self, axis, keepdims, initial=initial, where=where)


def _t_aminmax(self, *, axis=0, keepdims=False):
    return _reduce.aminmax(self, axis=axis, keepdims=keepdims)


def _t_argmax_with_value(self, axis=0, keep_dims=False):
    """``(values, indices)`` of the maximum along ``axis``."""
    return _reduce._extreme_with_index(self, axis, keep_dims, "max", True, "argmax_with_value")


def _t_argmin_with_value(self, axis=0, keep_dims=False):
    """``(values, indices)`` of the minimum along ``axis``."""
    return _reduce._extreme_with_index(self, axis, keep_dims, "min", False, "argmin_with_value")


def _t_argsort(self, axis=-1, descending=False, *, dim=None, stable=False):
    """``t.argsort(axis, descending)`` or ``t.argsort(dim=..., descending=..., stable=...)`` (sorts are stable)."""
    bool_arg(stable, "stable", "argsort")
    return argsort(self, axis if dim is None else dim, descending)


def _t_sort(self, axis=-1, descending=False, *, dim=None, stable=False):
    """``t.sort(axis, descending)`` or ``t.sort(dim=..., descending=..., stable=...)``."""
    bool_arg(stable, "stable", "sort")
    return sort(self, axis if dim is None else dim, descending)


def _t_bincount(self, weights=None, minlength=0):
    return bincount(self, weights, minlength)


def _t_count_nonzero(self, axis=(), keep_dims=False, dtype=None, *, dim=None):
    """``t.count_nonzero(axis=(), keep_dims=False, dtype=None)`` (Int32 unless ``dtype``); ``dim=`` names
    the axes too (MindSpore 2.10 documents it but refuses it on the CPU)."""
    if dim is not None:
        axis = dim
    return _reduce.count_nonzero(self, () if axis is None else axis, keep_dims, _INT32 if dtype is None else dtype)


def _t_cov(self, *, correction=1, fweights=None, aweights=None):
    return cov(self, correction=correction, fweights=fweights, aweights=aweights)


def _t_cummax(self, axis):
    return cummax(self, axis)


def _t_cummin(self, axis):
    return cummin(self, axis)


def _t_cumprod(self, dim, dtype=None):
    return cumprod(self, dim, dtype)


def _t_cumsum(self, dim=None, dtype=None, *, axis=None):
    """``t.cumsum(dim, dtype=...)``; ``t.cumsum(axis=None)`` runs over the flattened tensor."""
    if axis is not None:
        dim = axis
    if dim is None:
        from .shape_ops import reshape
        return cumsum(reshape(self, (-1,)), 0, dtype)
    return cumsum(self, dim, dtype)


def _t_diff(self, n=1, axis=-1, prepend=None, append=None):
    return diff(self, n, axis, prepend, append)


def _t_histc(self, bins=100, min=0, max=0):
    return histc(self, bins, min, max)


def _t_kthvalue(self, k, dim=-1, keepdim=False):
    return kthvalue(self, k, dim, keepdim)


def _t_logcumsumexp(self, axis):
    return logcumsumexp(self, axis)


def _t_logsumexp(self, dim, keepdim=False):
    return _reduce.logsumexp(self, dim, keepdim)


def _t_median(self, axis=-1, keepdims=False, *, dim=None, keepdim=None):
    """``t.median(axis, keepdims)`` -> ``(values, indices)``; ``t.median(dim=..., keepdim=...)`` too."""
    if dim is not None:
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    return median(self, axis, keepdims)


def _t_msort(self):
    return msort(self)


def _t_nanmean(self, axis=None, keepdims=False, *, dtype=None):
    return _reduce.nanmean(self, axis, keepdims, dtype=dtype)


def _t_nanmedian(self, axis=-1, keepdims=False):
    return nanmedian(self, axis, keepdims)


def _t_nanquantile(self, q, axis=None, keepdims=False):
    return nanquantile(self, q, axis, keepdims)


def _t_quantile(self, q, axis=None, keepdims=False):
    return quantile(self, q, axis, keepdims)


def _t_nansum(self, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None):
    """``t.nansum(axis, keepdims, dtype=...)`` or ``t.nansum(dim=..., keepdim=..., dtype=...)``."""
    if dim is not None:
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    return _reduce.nansum(self, axis, keepdims, dtype=dtype)


def _t_nonzero(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


def _t_argwhere(self):
    return argwhere(self)


def _t_ptp(self, axis=None, keepdims=False):
    """The range ``max - min`` over ``axis`` (the dtype of the tensor); differentiable."""
    op = "ptp"
    t = tensor_arg(self, "self", op)
    _refuse_bool(t, op, "self")
    return _reduce.amax(t, axis, keepdims) - _reduce.amin(t, axis, keepdims)


def _t_searchsorted(self, v, side="left", sorter=None):
    """Where the values ``v`` would go in this sorted tensor (Int64)."""
    if side not in ("left", "right"):
        raise ValueError(f"For 'searchsorted', 'side' must be 'left' or 'right', but got {side!r}")
    return searchsorted(self, v, side=side, sorter=sorter)


def _spread_method(self, args, kwargs, name, fn):
    """``t.std(axis, ddof, keepdims)`` or ``t.std(dim=..., correction=..., keepdim=...)``."""
    if "dim" in kwargs or "correction" in kwargs or "keepdim" in kwargs:
        if len(args) > 1:
            raise TypeError(f"Tensor.{name}(dim, *, correction, keepdim) takes one positional argument")
        dim = kwargs.pop("dim", args[0] if args else None)
        correction = kwargs.pop("correction", 1)
        keepdim = kwargs.pop("keepdim", False)
        _no_more(kwargs, name)
        return fn(self, dim, correction, keepdim)
    values = dict(zip(("axis", "ddof", "keepdims"), args))
    values.update(kwargs)
    axis, ddof, keep = values.pop("axis", None), values.pop("ddof", 0), values.pop("keepdims", False)
    _no_more(values, name)
    return fn(self, axis, ddof, keep)


def _t_std(self, *args, **kwargs):
    """Standard deviation: ``t.std(axis=None, ddof=0, keepdims=False)`` or ``t.std(dim, *, correction=1, keepdim)``."""
    return _spread_method(self, args, kwargs, "std", _reduce.std)


def _t_var(self, *args, **kwargs):
    """Variance: ``t.var(axis=None, ddof=0, keepdims=False)`` or ``t.var(dim, *, correction=1, keepdim)``."""
    return _spread_method(self, args, kwargs, "var", _reduce.var)


def _t_topk(self, k, dim=-1, largest=True, sorted=True):
    return topk(self, k, dim, largest, sorted)


def _t_top_k(self, k, sorted=True):
    return top_k(self, k, sorted)


def _t_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), with the inverse indices and counts when asked (torch-style)."""
    op = "unique"
    t = tensor_arg(self, "self", op)
    for name, value in (("sorted", sorted), ("return_inverse", return_inverse), ("return_counts", return_counts)):
        bool_arg(value, name, op)
    xs = xp()
    arr = t._data
    if dim is None:
        flat = xs.reshape(arr, (-1,))
        if _be().is_numpy:
            values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
        else:
            found = xs.unique_all(flat)
            order = _argsort_array(found.values, 0)
            values = xs.take(found.values, order, axis=0)
            counts = xs.take(found.counts, order, axis=0)
            inverse = xs.take(_argsort_array(order, 0), xs.astype(found.inverse_indices, _INT64.to_backend(xs)), axis=0)
        inverse = xs.reshape(inverse, arr.shape)
    else:
        if not _be().is_numpy:
            raise NotImplementedError("Tensor.unique(dim=...) runs on the NumPy backend only in cellkit")
        ax = normalize_axis(dim, arr.ndim, op, "dim")
        values, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True, axis=ax)
        inverse = inverse.reshape(-1)
    out = [wrap(values)]
    if return_inverse:
        out.append(wrap(xs.astype(inverse, _INT64.to_backend(xs))))
    if return_counts:
        out.append(wrap(xs.astype(counts, _INT64.to_backend(xs))))
    return out[0] if len(out) == 1 else tuple(out)


def _t_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(self, return_inverse, return_counts, dim)


def _t_unique_with_pad(self, pad_num):
    return unique_with_pad(self, pad_num)


def _t_unsorted_segment_max(self, segment_ids, num_segments):
    return unsorted_segment_max(self, segment_ids, num_segments)


def _t_unsorted_segment_min(self, segment_ids, num_segments):
    return unsorted_segment_min(self, segment_ids, num_segments)


def _t_unsorted_segment_prod(self, segment_ids, num_segments):
    return unsorted_segment_prod(self, segment_ids, num_segments)


# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops.
TENSOR_METHODS = {
    "renorm": renorm,
    "all": _t_all, "any": _t_any, "amax": _t_amax, "amin": _t_amin, "aminmax": _t_aminmax,
    "argmax_with_value": _t_argmax_with_value, "argmin_with_value": _t_argmin_with_value,
    "argsort": _t_argsort, "argwhere": _t_argwhere, "bincount": _t_bincount, "count_nonzero": _t_count_nonzero,
    "cov": _t_cov, "cummax": _t_cummax, "cummin": _t_cummin, "cumprod": _t_cumprod, "cumsum": _t_cumsum,
    "diff": _t_diff, "histc": _t_histc, "kthvalue": _t_kthvalue, "logcumsumexp": _t_logcumsumexp,
    "logsumexp": _t_logsumexp, "median": _t_median, "msort": _t_msort, "nanmean": _t_nanmean,
    "nanmedian": _t_nanmedian, "nanquantile": _t_nanquantile, "nansum": _t_nansum, "nonzero": _t_nonzero,
    "ptp": _t_ptp, "quantile": _t_quantile, "searchsorted": _t_searchsorted, "sort": _t_sort, "std": _t_std,
    "var": _t_var, "topk": _t_topk, "top_k": _t_top_k, "unique": _t_unique,
    "unique_consecutive": _t_unique_consecutive, "unique_with_pad": _t_unique_with_pad,
    "unsorted_segment_max": _t_unsorted_segment_max, "unsorted_segment_min": _t_unsorted_segment_min,
    "unsorted_segment_prod": _t_unsorted_segment_prod,
}
