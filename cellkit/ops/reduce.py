"""Reductions: sums, means, extremes, products, logical all/any, spreads -- with their gradients.

Every reduction takes MindSpore's own spelling of its axes (``axis``/``dim``,
``keep_dims``/``keepdims``/``keepdim``: each function keeps the one MindSpore
gives it) and returns MindSpore's dtype: ints and bools sum to Int64, the mean
of ints stays an int (MindSpore truncates), ``argmin`` is Int32 while
``argmax`` is Int64.

>>> import cellkit as ms
>>> x = ms.Tensor([[1.0, 5.0], [3.0, 2.0]])
>>> print(sum(x, 1))
[6. 5.]
>>> values, indices = max(x, 1)
>>> print(values, indices)
[5. 3.] [1 0]
>>> print(std(x, 1))
[2.  0.5]
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
from ._core import (bool_arg, describe, dtype_arg, normalize_axes, normalize_axis, record,
                    tensor_arg, wrap, xp)

__all__ = ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "amax", "amin", "reduce_sum",
           "reduce_max", "reduce_min", "reduce_mean", "all", "any", "aminmax", "count_nonzero", "nansum",
           "nanmean", "logsumexp", "std", "var", "std_mean", "var_mean"]

_INT_KINDS = ("bool", "int", "uint")


class TypeRuntimeError(TypeError, RuntimeError):
    """A refused dtype where MindSpore raises RuntimeError (its kernel refuses): catch either."""


class ValueRuntimeError(ValueError, RuntimeError):
    """A refused value where MindSpore raises RuntimeError (its kernel refuses): catch either."""


# -- shared helpers (statistics.py uses them too) ---------------------------------------------------
def _expand_back(m, g, x_shape, axes, keepdims):
    """Reshape a reduced gradient (or value) so it broadcasts against the input again."""
    if keepdims:
        return g
    shape = [1 if i in axes else d for i, d in enumerate(x_shape)]
    return m.reshape(g, tuple(shape))


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _axes(axis, ndim, op, name="axis"):
    """``None`` / ``()`` (all axes), an int, or a tuple/list of ints -> a sorted tuple of axes.

    A one-element int Tensor is read as an int, as MindSpore reads it.
    """
    if isinstance(axis, Tensor):
        host = np.asarray(axis.asnumpy())
        if host.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', '{name}' must be an int, a tuple of ints or an int Tensor, "
                            f"but got a Tensor of dtype {axis.dtype}")
        axis = tuple(int(a) for a in host.reshape(-1)) if host.ndim else int(host)
    if axis is None or axis == () or axis == []:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        for a in axis:
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
                raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of ints, but got {describe(axis)}")
    elif isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of ints, but got {describe(axis)}")
    try:
        axes = normalize_axes(axis, ndim, op)
        return axes if ndim else ()
    except (TypeError, ValueError) as exc:
        message = str(exc).replace("'axis'", f"'{name}'")
        raise type(exc)(message) from None


def _check_kind(t, op, name, allowed, expected):
    """TypeError unless Tensor ``t``'s dtype kind is one of ``allowed``."""
    dtype = _dt.dtype_of(t._data)
    if dtype.kind not in allowed:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of {expected}, but got dtype {dtype}")
    return dtype


def _check_float(t, op, name="input"):
    return _check_kind(t, op, name, ("float",), "floats")


def _on_tape(*tensors):
    if _ag._depth == 0:
        return False
    for t in tensors:
        if isinstance(t, Tensor) and t._node is not None:
            return True
    return False


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _dtype_option(dtype, op, name="dtype"):
    return None if dtype is None else dtype_arg(dtype, name, op)


# -- sums and means ---------------------------------------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (an int, a tuple, or ``None`` for all axes).

    Int and bool tensors are summed as Int64, as in MindSpore.
    """
    x = tensor_arg(input, "input", "sum")
    arr = x._data
    axes = _axes(dim, arr.ndim, "sum", "dim")
    keepdim = bool_arg(keepdim, "keepdim", "sum")
    xs = xp()
    target = None
    if dtype is not None:
        target = dtype_arg(dtype, "dtype", "sum").to_backend(xs)
    elif _dt.dtype_of(arr).kind in _INT_KINDS:
        target = _dt.int64.to_backend(xs)
    counted = arr
    if _dt.dtype_of(arr) is _dt.bool_:
        counted = xs.astype(arr, target)  # the array API sums numbers, not booleans
    out = xs.sum(counted, axis=axes, keepdims=keepdim, dtype=target)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "ReduceSum", _sum_rule, (x,), info=(arr.shape, axes, keepdim, arr.dtype))


def _sum_rule(m, node, g):
    """Every summed element gets the gradient of its sum."""
    shape, axes, keepdims, dtype = node.info
    return (m.astype(m.broadcast_to(_expand_back(m, g, shape, axes, keepdims), shape), dtype),)


def reduce_sum(x, axis=(), keep_dims=False):
    """The ReduceSum spelling: ``axis`` / ``keep_dims`` (``()`` reduces every axis).

    >>> import cellkit as ms
    >>> print(reduce_sum(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), 1))
    [3. 7.]
    """
    t = tensor_arg(x, "x", "reduce_sum")
    if _dt.dtype_of(t._data).kind in _INT_KINDS:  # ReduceSum keeps an int dtype (sum() widens to Int64)
        return sum(t, _axes(axis, t.ndim, "reduce_sum"), keep_dims, dtype=t.dtype)
    return sum(t, _axes(axis, t.ndim, "reduce_sum"), keep_dims)


def mean(x, axis=None, keep_dims=False):
    """Arithmetic mean over ``axis``.

    As MindSpore documents, an integer tensor's mean keeps its dtype and is
    truncated towards zero (``mean([1, 2])`` is ``1``); bools are refused.

    >>> import cellkit as ms
    >>> print(mean(ms.Tensor([1.0, 2.0])), mean(ms.Tensor([1, 2])))
    1.5 1
    """
    return _mean(x, axis, keep_dims, "mean", "x", "axis", "keep_dims")


def reduce_mean(x, axis=()):
    """``mean(x, axis)``, MindSpore's ReduceMean spelling (``()`` reduces every axis)."""
    return _mean(x, axis, False, "reduce_mean", "x", "axis", "keep_dims")


def _mean(x, axis, keep_dims, op, name, axis_name, keep_name):
    t = tensor_arg(x, name, op)
    arr = t._data
    dtype = _dt.dtype_of(arr)
    if dtype is _dt.bool_:
        raise TypeRuntimeError(f"For '{op}', '{name}' must be a Tensor of numbers, but got dtype Bool")
    axes = _axes(axis, arr.ndim, op, axis_name)
    keep = bool_arg(keep_dims, keep_name, op)
    xs = xp()
    if dtype.kind != "float":
        total = xs.sum(arr, axis=axes, keepdims=keep, dtype=_dt.int64.to_backend(xs))
        count = _count(arr.shape, axes)
        quotient = xs.abs(total) // builtins.max(count, 1)
        out = xs.astype(xs.where(total < 0, -quotient, quotient), arr.dtype)
        return wrap(out)
    out = xs.mean(arr, axis=axes, keepdims=keep)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "ReduceMean", _mean_rule, (t,), info=(arr.shape, axes, keep))


def _mean_rule(m, node, g):
    """Each element gets ``1 / count`` of the gradient of its mean."""
    shape, axes, keepdims = node.info
    return (m.broadcast_to(_expand_back(m, g, shape, axes, keepdims) / _count(shape, axes), shape),)


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum over ``axis`` with NaN counted as zero; its gradient is 0 at the NaNs.

    Int tensors keep their dtype (bools sum to Int64), as MindSpore does.

    >>> import cellkit as ms
    >>> print(nansum(ms.Tensor([1.0, float("nan"), 2.0])))
    3.0
    """
    op = "nansum"
    x = tensor_arg(input, "input", op)
    arr = x._data
    kind = _dt.dtype_of(arr).kind
    target = _dtype_option(dtype, op)
    axes = _axes(axis, arr.ndim, op)
    keep = bool_arg(keepdims, "keepdims", op)
    xs = xp()
    if kind != "float":
        out_dtype = target or (_dt.int64 if kind == "bool" else _dt.dtype_of(arr))
        counted = xs.astype(arr, _dt.int64.to_backend(xs)) if kind == "bool" else arr
        return wrap(xs.astype(xs.sum(counted, axis=axes, keepdims=keep), out_dtype.to_backend(xs)))
    finite = ~xs.isnan(arr)
    cleaned = xs.where(finite, arr, xs.zeros_like(arr))
    out = xs.sum(cleaned, axis=axes, keepdims=keep)
    if target is not None:
        out = xs.astype(out, target.to_backend(xs))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "NanSum", _masked_sum_rule, (x,), (xs.astype(finite, arr.dtype),), (None,),
                  (arr.shape, axes, keep, None))


def _masked_sum_rule(m, node, g):
    """The gradient of a sum over the kept elements (``weights`` is 0 where dropped, or 1 / count)."""
    (weights,) = node.unpack(m)
    shape, axes, keepdims, _ = node.info
    return (m.astype(_expand_back(m, g, shape, axes, keepdims) * weights, weights.dtype),)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """The mean over ``axis`` of the values that are not NaN (float tensors only).

    >>> import cellkit as ms
    >>> print(nanmean(ms.Tensor([1.0, float("nan"), 2.0])))
    1.5
    """
    op = "nanmean"
    x = tensor_arg(input, "input", op)
    arr = x._data
    if _dt.dtype_of(arr).kind != "float":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of floats, but got dtype {_dt.dtype_of(arr)}")
    target = _dtype_option(dtype, op)
    axes = _axes(axis, arr.ndim, op)
    keep = bool_arg(keepdims, "keepdims", op)
    xs = xp()
    finite = xs.astype(~xs.isnan(arr), arr.dtype)
    count = xs.sum(finite, axis=axes, keepdims=True)
    total = xs.sum(xs.where(finite > 0, arr, xs.zeros_like(arr)), axis=axes, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = total / count
    if not keep:
        out = xs.reshape(out, tuple(d for i, d in enumerate(arr.shape) if i not in axes))
    if target is not None:
        out = xs.astype(out, target.to_backend(xs))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = finite / count
    return record(out, "NanMean", _masked_sum_rule, (x,), (weights,), (None,), (arr.shape, axes, keep, None))


# -- extremes ---------------------------------------------------------------------------------------
def _skip_nan(arr, fill):
    """``arr`` with NaN replaced by ``fill`` (MindSpore's CPU extremes skip NaN), or ``arr`` itself."""
    xs = xp()
    if _dt.dtype_of(arr).kind != "float":
        return arr
    if _backend._current.is_numpy and not np.isnan(arr).any():
        return arr
    return xs.where(xs.isnan(arr), xs.full_like(arr, fill), arr)


def _restore_nan(out, arr, axes, keepdims):
    """NaN where every reduced element was NaN (there is nothing else to pick)."""
    xs = xp()
    if _dt.dtype_of(arr).kind != "float":
        return out
    if _backend._current.is_numpy and not np.isnan(arr).any():
        return out
    all_nan = xs.all(xs.isnan(arr), axis=axes, keepdims=keepdims)
    return xs.where(all_nan, xs.full_like(out, _pymath.nan), out)


def _with_initial_where(arr, axes, initial, where, is_max, op):
    """Apply ``initial`` and ``where`` of the NumPy-style extremes; returns the array to reduce."""
    xs = xp()
    if where is not None:
        mask = tensor_arg(where, "where", op)._data
        if initial is None:
            raise ValueError(f"For '{op}', 'where' ({describe(where)}) needs an 'initial' value, but got "
                             "initial=None")
        if _dt.dtype_of(mask) is not _dt.bool_:
            raise TypeError(f"For '{op}', 'where' must be a Tensor of bools, but got dtype {_dt.dtype_of(mask)}")
        try:
            np.broadcast_shapes(tuple(mask.shape), tuple(arr.shape))
        except ValueError:
            raise ValueError(f"For '{op}', 'where' of shape {tuple(mask.shape)} cannot broadcast to the input's "
                             f"shape {tuple(arr.shape)}") from None
        fill = xs.full_like(arr, initial)
        arr = xs.where(mask, arr, fill)
    if initial is not None:
        if isinstance(initial, bool) or not isinstance(initial, numbers.Real):
            raise TypeError(f"For '{op}', 'initial' must be a number, but got {describe(initial)}")
    return arr


def _extreme(input, axis, keepdims, name, is_max, initial=None, where=None, op=None):
    """Max or min over ``axis`` (an int, a tuple, or ``None`` for all), values only.

    The gradient is shared equally among tied extreme elements.
    """
    op = op or ("a" + name)
    x = tensor_arg(input, "input", op)
    arr = x._data
    be = _backend._current
    xs = be.xp
    if _dt.dtype_of(arr) is _dt.bool_:
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got dtype Bool")
    axes = _axes(axis, arr.ndim, op)
    keep = keepdims if keepdims is False or keepdims is True else bool_arg(keepdims, "keepdims", op)
    if arr.size == 0 and builtins.any(arr.shape[a] == 0 for a in axes) and initial is None:
        raise ValueError(f"For '{op}', the input is empty along the reduced axes (shape {tuple(arr.shape)}): "
                         f"it has no {name}imum")
    if initial is None and where is None and be.is_numpy and arr.dtype.kind == "f":
        work = arr  # the fast path: NumPy's fmax / fmin skip NaN (as MindSpore's CPU kernels do)
        out = (np.fmax if is_max else np.fmin).reduce(arr, axis=axes, keepdims=keep) if arr.size else \
            (np.max if is_max else np.min)(arr, axis=axes, keepdims=keep)
        if _ag._depth == 0 or x._node is None:
            return wrap(out)
        return _record_extreme(x, arr, work, out, axes, keep, name, where, op)
    work = _with_initial_where(arr, axes, initial, where, is_max, op)
    find = xs.max if is_max else xs.min
    source = _skip_nan(work, -_pymath.inf if is_max else _pymath.inf)
    if source.size == 0:
        out = xs.full(tuple(1 if i in axes else d for i, d in enumerate(arr.shape)) if keep else
                      tuple(d for i, d in enumerate(arr.shape) if i not in axes), initial, dtype=arr.dtype)
    else:
        out = _restore_nan(find(source, axis=axes, keepdims=keep), work, axes, keep)
    if initial is not None:
        out = (xs.maximum if is_max else xs.minimum)(out, xs.full_like(out, initial))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return _record_extreme(x, arr, work, out, axes, keep, name, where, op)


def _record_extreme(x, arr, work, out, axes, keep, name, where, op):
    """Record an extreme: which elements won (a constant: the choice has no derivative), shared per tie."""
    xs = xp()
    kept = out if keep else xs.reshape(out, _kept_shape(arr.shape, axes))
    winners = xs.astype(work == kept, arr.dtype)
    if where is not None:
        winners = winners * xs.astype(tensor_arg(where, "where", op)._data, arr.dtype)
    total = xs.sum(winners, axis=axes, keepdims=True)
    share = winners / xs.where(total > 0, total, xs.ones_like(total))
    return record(out, "Reduce" + name.capitalize(), _extreme_rule, (x,), (share,), (None,),
                  (arr.shape, axes, keep))


def _extreme_rule(m, node, g):
    """The gradient goes to the extreme elements, shared equally among ties."""
    (share,) = node.unpack(m)
    shape, axes, keepdims = node.info
    return (share * _expand_back(m, g, shape, axes, keepdims),)


def _pick_index(arr, axis, keepdims, is_max):
    """The index of the extreme along ``axis`` (Int64), NaN skipped as MindSpore's CPU kernels do."""
    be = _backend._current
    if be.is_numpy:
        # MindSpore's kernels skip NaN, NumPy's pick it first. A sum is NaN when any element is (or when
        # inf meets -inf: then the careful path below is merely not needed), and it allocates nothing.
        if arr.dtype.kind == "f" and np.isnan(arr.sum()):
            arr = np.where(np.isnan(arr), -np.inf if is_max else np.inf, arr)
        found = (np.argmax if is_max else np.argmin)(arr, axis=axis, keepdims=keepdims)
        return found if found.dtype == np.int64 else found.astype(np.int64)
    xs = be.xp
    source = _skip_nan(arr, -_pymath.inf if is_max else _pymath.inf)
    fn = xs.argmax if is_max else xs.argmin
    return xs.astype(fn(source, axis=axis, keepdims=keepdims), _dt.int64.to_backend(xs))


def _extreme_with_index(input, axis, keepdims, name, is_max, op, initial=None, where=None):
    """``(values, indices)`` along one axis; the gradient goes to the element the index points at."""
    x = tensor_arg(input, "input", op)
    arr = x._data
    xs = xp()
    keep = keepdims if keepdims is False or keepdims is True else \
        bool_arg(keepdims, "keepdims" if op in ("max", "min") else "keep_dims", op)
    if _dt.dtype_of(arr) is _dt.bool_:
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got dtype Bool")
    if axis is None or arr.ndim == 0:
        if arr.ndim == 0 and axis is not None:
            normalize_axis(axis, 0, op)
        # Over every element MindSpore ignores keepdims (0-d results).
        values = _extreme(x, None, False, name, is_max, initial, where, op=op)
        # MindSpore 2.10 returns index 0 when no axis is given (documented; it follows that here).
        return values, wrap(xs.zeros(values.shape, dtype=_dt.int64.to_backend(xs)) if _backend._current.is_numpy
                            else xs.zeros(values.shape, dtype=_dt.int64.to_backend(xs), device=_backend._current.device))
    ax = normalize_axis(axis, arr.ndim, op)
    if arr.shape[ax] == 0 or arr.size == 0:
        raise ValueError(f"For '{op}', the input is empty (shape {tuple(arr.shape)}): it has no {name}imum")
    if initial is None and where is None and _backend._current.is_numpy:
        work = arr
        index = _pick_index(arr, ax, True, is_max)
        if arr.dtype.kind == "f":  # fmax / fmin skip NaN, as the index does
            out = (np.fmax if is_max else np.fmin).reduce(arr, axis=ax, keepdims=True)
        else:
            out = (np.max if is_max else np.min)(arr, axis=ax, keepdims=True)
    else:
        work = _with_initial_where(arr, (ax,), initial, where, is_max, op)
        index = _pick_index(work, ax, True, is_max)
        out = xs.take_along_axis(work, index, axis=ax)
    if initial is not None:
        replaced = (out < initial) if is_max else (out > initial)
        out = xs.where(replaced, xs.full_like(out, initial), out)
    if not keep:
        out = xs.reshape(out, tuple(d for i, d in enumerate(arr.shape) if i != ax))
        index_out = xs.reshape(index, out.shape)
    else:
        index_out = index
    indices = wrap(index_out)
    if _ag._depth == 0 or x._node is None:
        return wrap(out), indices
    be = _backend._current
    n = arr.shape[ax]
    positions = xs.arange(n) if be.is_numpy else xs.arange(n, device=be.device)
    positions = xs.reshape(positions, tuple(n if i == ax else 1 for i in range(arr.ndim)))
    picked = xs.astype(index == positions, arr.dtype)  # one-hot of the chosen element: a constant
    if initial is not None:
        picked = picked * xs.astype(~replaced, arr.dtype)
    node_name = "ArgMaxWithValue" if is_max else "ArgMinWithValue"
    return record(out, node_name, _extreme_rule, (x,), (picked,), (None,), (arr.shape, (ax,), keep)), indices


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum and its index along ``axis``: returns ``(values, indices)``.

    ``initial`` is a lower bound joined to every reduction; ``where`` (with
    ``initial``) masks the elements that take part.  Called without ``axis``
    it reduces the whole tensor and, as MindSpore 2.10 documents, the index
    returned is 0.  NaN is skipped, as MindSpore's CPU kernel does.
    """
    return _extreme_with_index(input, axis, keepdims, "max", True, "max", initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum and its index along ``axis``: returns ``(values, indices)`` (see :func:`max`)."""
    return _extreme_with_index(input, axis, keepdims, "min", False, "min", initial, where)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum values over ``axis`` (an int, a tuple or ``None``); ties share the gradient.

    >>> import cellkit as ms
    >>> print(amax(ms.Tensor([[1.0, 5.0], [3.0, 2.0]]), 0))
    [3. 5.]
    """
    return _extreme(input, axis, keepdims, "max", True, initial, where)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum values over ``axis``; ties share the gradient."""
    return _extreme(input, axis, keepdims, "min", False, initial, where)


def reduce_max(x, axis=()):
    """``amax(x, axis)``, the ReduceMax spelling (``()`` reduces every axis)."""
    return _extreme(tensor_arg(x, "x", "reduce_max"), axis, False, "max", True, op="reduce_max")


def reduce_min(x, axis=()):
    """``amin(x, axis)``, the ReduceMin spelling (``()`` reduces every axis)."""
    return _extreme(tensor_arg(x, "x", "reduce_min"), axis, False, "min", False, op="reduce_min")


def aminmax(input, *, axis=0, keepdims=False):
    """``(minimum, maximum)`` along ``axis`` (``None``: over every element).

    Each output's gradient goes to the element its index points at.

    >>> import cellkit as ms
    >>> low, high = aminmax(ms.Tensor([[1.0, 5.0], [3.0, 2.0]]), axis=1)
    >>> print(low, high)
    [1. 2.] [5. 3.]
    """
    op = "aminmax"
    x = tensor_arg(input, "input", op)
    keep = bool_arg(keepdims, "keepdims", op)
    if axis is None:
        flat = x.reshape((-1,)) if x.ndim != 1 else x
        low = _extreme_with_index(flat, 0, False, "min", False, op)[0]
        high = _extreme_with_index(flat, 0, False, "max", True, op)[0]
        if keep:
            shape = (1,) * x.ndim
            from .shape_ops import reshape
            low, high = reshape(low, shape), reshape(high, shape)
        return low, high
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', 'axis' must be an int or None, but got {describe(axis)}")
    return (_extreme_with_index(x, axis, keep, "min", False, op)[0],
            _extreme_with_index(x, axis, keep, "max", True, op)[0])


def _arg(input, dim, keepdim, name, is_max, dtype=_dt.int64, dim_name="dim", keep_name="keepdim"):
    x = tensor_arg(input, "input", name)
    arr = x._data
    xs = xp()
    if keepdim is not False and keepdim is not True:
        keepdim = bool_arg(keepdim, keep_name, name)
    if _dt.dtype_of(arr) is _dt.bool_:
        arr = xs.astype(arr, _dt.int8.to_backend(xs))
    if arr.size == 0:
        raise ValueError(f"For '{name}', the input is empty (shape {tuple(arr.shape)}): it has no extreme value")
    if dim is None:
        # Over the flattened tensor; MindSpore ignores keepdim here (a 0-d index).
        out = _pick_index(xs.reshape(arr, (-1,)), 0, False, is_max)
    else:
        axis = normalize_axis(dim, arr.ndim, name, dim_name)
        out = _pick_index(arr, axis, keepdim, is_max) if arr.ndim else xs.reshape(_pick_index(
            xs.reshape(arr, (1,)), 0, False, is_max), ())
    target = dtype.to_backend(xs)
    return wrap(out if out.dtype == target else xs.astype(out, target))


def argmax(input, dim=None, keepdim=False):
    """Index of the largest value along ``dim`` (Int64, no gradient; NaN skipped)."""
    return _arg(input, dim, keepdim, "argmax", True)


def argmin(input, axis=None, keepdims=False):
    """Index of the smallest value along ``axis`` (Int32 as in MindSpore, no gradient)."""
    return _arg(input, axis, keepdims, "argmin", False, _dt.int32, "axis", "keepdims")


# -- products -------------------------------------------------------------------------------------
def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over ``axis``; ints and bools multiply as Int64 (as in MindSpore).

    The gradient ``prod / x`` needs every ``x`` to be non-zero.
    """
    x = tensor_arg(input, "input", "prod")
    arr = x._data
    axes = _axes(axis, arr.ndim, "prod")
    keep = bool_arg(keep_dims, "keep_dims", "prod")
    xs = xp()
    target = _dtype_option(dtype, "prod")
    if target is None and _dt.dtype_of(arr).kind in _INT_KINDS:
        target = _dt.int64
    work = arr if target is None else xs.astype(arr, target.to_backend(xs))
    out = xs.prod(work, axis=axes, keepdims=keep, dtype=work.dtype)
    if _ag._depth == 0 or x._node is None or _dt.dtype_of(out).kind != "float":
        return wrap(out)
    return record(out, "ReduceProd", _prod_rule, (x,), (work, out), (0, OUTPUT), (arr.shape, axes, keep))


def _prod_rule(m, node, g):
    """d prod(x) / dx_i = prod(x) / x_i (which needs every x_i to be non-zero)."""
    arr, out = node.unpack(m)
    shape, axes, keepdims = node.info
    return (_expand_back(m, g, shape, axes, keepdims) * _expand_back(m, out, shape, axes, keepdims) / arr,)


# -- logic and counting ---------------------------------------------------------------------------
def _logical(input, axis, keep_dims, op, is_all):
    x = tensor_arg(input, "input", op)
    arr = x._data
    axes = _axes(axis, arr.ndim, op)
    keep = bool_arg(keep_dims, "keep_dims", op)
    xs = xp()
    truth = arr if _dt.dtype_of(arr) is _dt.bool_ else arr != 0
    return wrap((xs.all if is_all else xs.any)(truth, axis=axes, keepdims=keep))


def all(input, axis=None, keep_dims=False):
    """True where every element over ``axis`` is non-zero (a Bool tensor).

    >>> import cellkit as ms
    >>> print(all(ms.Tensor([[1, 0], [2, 3]]), 1))
    [False  True]
    """
    return _logical(input, axis, keep_dims, "all", True)


def any(input, axis=None, keep_dims=False):
    """True where some element over ``axis`` is non-zero (a Bool tensor)."""
    return _logical(input, axis, keep_dims, "any", False)


def count_nonzero(x, axis=(), keep_dims=False, dtype=_dt.int32):
    """How many elements over ``axis`` are non-zero, as ``dtype`` (Int32 by default).

    MindSpore refuses Bool inputs; so does cellkit.

    >>> import cellkit as ms
    >>> print(count_nonzero(ms.Tensor([[1, 0], [2, 3]])))
    3
    """
    op = "count_nonzero"
    t = tensor_arg(x, "x", op)
    arr = t._data
    if _dt.dtype_of(arr) is _dt.bool_:
        raise TypeError(f"For '{op}', 'x' must be a Tensor of numbers, but got dtype Bool")
    target = dtype_arg(dtype, "dtype", op)
    axes = _axes(axis, arr.ndim, op)
    keep = bool_arg(keep_dims, "keep_dims", op)
    xs = xp()
    counts = xs.sum(xs.astype(arr != 0, _dt.int64.to_backend(xs)), axis=axes, keepdims=keep)
    return wrap(xs.astype(counts, target.to_backend(xs)))


# -- log-sum-exp ----------------------------------------------------------------------------------
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim``, computed stably (the maximum is taken out first).

    >>> import cellkit as ms
    >>> print(logsumexp(ms.Tensor([0.0, 0.0]), 0))
    0.6931472
    """
    op = "logsumexp"
    x = tensor_arg(input, "input", op)
    arr = x._data
    _check_float(x, op)
    axes = _axes(dim, arr.ndim, op, "dim")
    keep = bool_arg(keepdim, "keepdim", op)
    xs = xp()
    if arr.ndim and builtins.any(arr.shape[a] == 0 for a in axes):
        out = xs.full(tuple(1 if i in axes else d for i, d in enumerate(arr.shape)) if keep else
                      tuple(d for i, d in enumerate(arr.shape) if i not in axes), -_pymath.inf, dtype=arr.dtype)
        return wrap(out)
    peak = xs.max(arr, axis=axes, keepdims=True)
    peak = xs.where(xs.isfinite(peak), peak, xs.zeros_like(peak))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        kept = xs.log(xs.sum(xs.exp(arr - peak), axis=axes, keepdims=True)) + peak
    out = kept if keep else xs.reshape(kept, tuple(d for i, d in enumerate(arr.shape) if i not in axes))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "LogSumExp", _logsumexp_rule, (x,), (arr, out), (0, OUTPUT), (arr.shape, axes, keep))


def _logsumexp_rule(m, node, g):
    """d lse / dx = softmax(x) = exp(x - lse)."""
    arr, out = node.unpack(m)
    shape, axes, keepdims = node.info
    return (_expand_back(m, g, shape, axes, keepdims) * m.exp(arr - _expand_back(m, out, shape, axes, keepdims)),)


# -- spread: variance and standard deviation --------------------------------------------------------
def _ddof(ddof, op, name="ddof"):
    """``ddof`` as an int; MindSpore reads ``True`` as 1 (unbiased) and ``False`` as 0."""
    if isinstance(ddof, (bool, np.bool_)):
        return int(ddof)
    if not isinstance(ddof, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int or a bool, but got {describe(ddof)}")
    return int(ddof)


def _spread_axes(axis, ndim, op, name="axis"):
    """``std``/``var`` axes: None, an int or a tuple (MindSpore refuses lists here)."""
    if isinstance(axis, list):
        raise TypeError(f"For '{op}', '{name}' must be None, an int or a tuple of ints, but got {describe(axis)}")
    return _axes(axis, ndim, op, name)


def _moments(input, axis, ddof, keepdims, op, keep_name="keepdims", axis_name="axis", ddof_name="ddof"):
    """The checked input and ``(var, mean)`` arrays (keepdims applied) plus what the rules need."""
    x = tensor_arg(input, "input", op)
    arr = x._data
    _check_float(x, op)
    axes = _spread_axes(axis, arr.ndim, op, axis_name)
    keep = bool_arg(keepdims, keep_name, op)
    ddof = _ddof(ddof, op, ddof_name)
    xs = xp()
    count = _count(arr.shape, axes)
    # Float16 statistics are computed in Float32 and rounded once at the end, as MindSpore does.
    work = xs.astype(arr, _dt.float32.to_backend(xs)) if _dt.dtype_of(arr) is _dt.float16 else arr
    centre = xs.mean(work, axis=axes, keepdims=True)
    deviation = work - centre
    with np.errstate(divide="ignore", invalid="ignore"):
        var = xs.sum(deviation * deviation, axis=axes, keepdims=True) / float(count - ddof)
    if work is not arr:
        var, centre = xs.astype(var, arr.dtype), xs.astype(centre, arr.dtype)
    if not keep:
        shape = tuple(d for i, d in enumerate(arr.shape) if i not in axes)
        var, centre = xs.reshape(var, shape), xs.reshape(centre, shape)
    return x, arr, var, centre, (arr.shape, axes, keep, count - ddof)


def _var_op(x, arr, var, info):
    if not _on_tape(x):
        return wrap(var)
    return record(var, "ReduceVar", _var_rule, (x,), (arr,), (0,), info)


def _var_rule(m, node, g):
    """d var / dx = 2 (x - mean) / (n - ddof)."""
    (arr,) = node.unpack(m)
    shape, axes, keepdims, dof = node.info
    centred = arr - m.mean(arr, axis=axes, keepdims=True)
    return (_expand_back(m, g, shape, axes, keepdims) * centred * (2.0 / dof),)


def _std_op(x, arr, var, info):
    xs = xp()
    out = xs.sqrt(var)
    if not _on_tape(x):
        return wrap(out)
    return record(out, "ReduceStd", _std_rule, (x,), (arr, out), (0, OUTPUT), info)


def _std_rule(m, node, g):
    """d std / dx = (x - mean) / ((n - ddof) std)."""
    arr, out = node.unpack(m)
    shape, axes, keepdims, dof = node.info
    centred = arr - m.mean(arr, axis=axes, keepdims=True)
    return (_expand_back(m, g, shape, axes, keepdims) * centred / (_expand_back(m, out, shape, axes, keepdims) * dof),)


def _mean_op(x, centre, info):
    if not _on_tape(x):
        return wrap(centre)
    shape, axes, keep, _ = info
    return record(centre, "ReduceMean", _mean_rule, (x,), info=(shape, axes, keep))


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom (``True`` means 1).

    >>> import cellkit as ms
    >>> print(var(ms.Tensor([1.0, 2.0, 3.0, 4.0])))
    1.25
    """
    x, arr, v, _, info = _moments(input, axis, ddof, keepdims, "var")
    return _var_op(x, arr, v, info)


def std(input, axis=None, ddof=0, keepdims=False):
    """Standard deviation over ``axis`` with ``ddof`` delta degrees of freedom (``True`` means 1)."""
    x, arr, v, _, info = _moments(input, axis, ddof, keepdims, "std")
    return _std_op(x, arr, v, info)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """``(variance, mean)`` over ``axis``, both differentiable."""
    x, arr, v, centre, info = _moments(input, axis, ddof, keepdims, "var_mean")
    return _var_op(x, arr, v, info), _mean_op(x, centre, info)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """``(standard deviation, mean)`` over ``axis``, both differentiable."""
    x, arr, v, centre, info = _moments(input, axis, ddof, keepdims, "std_mean")
    return _std_op(x, arr, v, info), _mean_op(x, centre, info)
