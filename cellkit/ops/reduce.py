"""Reductions: sum, mean, max, min, prod, argmax, argmin -- with their gradients.

>>> import cellkit as ms
>>> x = ms.Tensor([[1.0, 5.0], [3.0, 2.0]])
>>> print(sum(x, 1))
[6. 5.]
>>> values, indices = max(x, 1)
>>> print(values, indices)
[5. 3.] [1 0]
"""
from __future__ import annotations

import builtins

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..autograd import OUTPUT
from ._core import float_array, normalize_axes, normalize_axis, record, tensor_arg, wrap, xp

__all__ = ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "amax", "amin", "reduce_sum"]


def _expand_back(m, g, x_shape, axes, keepdims):
    """Reshape a reduced gradient (or value) so it broadcasts against the input again."""
    if keepdims:
        return g
    shape = [1 if i in axes else d for i, d in enumerate(x_shape)]
    return m.reshape(g, tuple(shape))


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (an int, a tuple, or ``None`` for all axes).

    Int and bool tensors are summed as Int64, as in MindSpore.
    """
    x = tensor_arg(input, "input", "sum")
    arr = x._data
    axes = normalize_axes(dim, arr.ndim, "sum")
    xs = xp()
    target = None
    if dtype is not None:
        target = _dt.to_dtype(dtype).to_backend(xs)
    elif _dt.dtype_of(arr).kind in ("bool", "int", "uint"):
        target = _dt.int64.to_backend(xs)
    counted = arr
    if _dt.dtype_of(arr) is _dt.bool_:
        counted = xs.astype(arr, target)  # the array API sums numbers, not booleans
    out = xs.sum(counted, axis=axes, keepdims=bool(keepdim), dtype=target)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "ReduceSum", _sum_rule, (x,), info=(arr.shape, axes, bool(keepdim), arr.dtype))


def _sum_rule(m, node, g):
    """Every summed element gets the gradient of its sum."""
    shape, axes, keepdims, dtype = node.info
    return (m.astype(m.broadcast_to(_expand_back(m, g, shape, axes, keepdims), shape), dtype),)


def reduce_sum(input, axis=None, keep_dims=False):
    """The ReduceSum spelling: ``axis`` / ``keep_dims``."""
    return sum(input, axis, keep_dims)


def mean(x, axis=None, keep_dims=False):
    """Arithmetic mean over ``axis``; int and bool inputs give a Float32 mean.

    MindSpore 2.10 keeps an integer dtype and truncates (``mean([1, 2])`` is
    ``1``) and refuses bools; cellkit returns the true mean instead.

    >>> import cellkit as ms
    >>> print(mean(ms.Tensor([1, 2])))
    1.5
    """
    t = tensor_arg(x, "x", "mean")
    arr = float_array(t, "mean")
    axes = normalize_axes(axis, arr.ndim, "mean")
    xs = xp()
    out = xs.mean(arr, axis=axes, keepdims=bool(keep_dims))
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "ReduceMean", _mean_rule, (t,), info=(arr.shape, axes, bool(keep_dims)))


def _mean_rule(m, node, g):
    """Each element gets ``1 / count`` of the gradient of its mean."""
    shape, axes, keepdims = node.info
    count = 1
    for a in axes:
        count *= shape[a]
    return (m.broadcast_to(_expand_back(m, g, shape, axes, keepdims) / count, shape),)


def _extreme(input, axis, keepdims, name, find):
    """Max or min over ``axis`` (an int, a tuple, or ``None`` for all), values only.

    The gradient is shared equally among tied extreme elements.
    """
    x = tensor_arg(input, "input", name)
    arr = x._data
    xs = xp()
    axes = normalize_axes(axis, arr.ndim, name)
    if arr.ndim and builtins.min(arr.shape) == 0:
        raise ValueError(f"For '{name}', the input is empty (shape {tuple(arr.shape)}): it has no {name}imum")
    out = find(arr, axis=axes, keepdims=bool(keepdims))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    # Which elements are extreme (a constant: the derivative of the choice is zero), shared per tie.
    winners = xs.astype(arr == (out if keepdims else xs.reshape(out, _kept_shape(arr.shape, axes))), arr.dtype)
    share = winners / xs.sum(winners, axis=axes, keepdims=True)
    return record(out, "Reduce" + name.capitalize(), _extreme_rule, (x,), (share,), (None,),
                  (arr.shape, axes, bool(keepdims)))


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _extreme_rule(m, node, g):
    """The gradient goes to the extreme elements, shared equally among ties."""
    (share,) = node.unpack(m)
    shape, axes, keepdims = node.info
    return (share * _expand_back(m, g, shape, axes, keepdims),)


def _extreme_with_index(input, axis, keepdims, name, find, arg_find):
    """``ops.max`` / ``ops.min``: ``(values, indices)``.

    Along an axis the gradient goes to the element the index points at (as in
    MindSpore); over the whole tensor it is shared among ties like ``amax``.
    """
    x = tensor_arg(input, "input", name)
    arr = x._data
    if axis is None or arr.ndim == 0:
        values = _extreme(x, None, keepdims, name, find)
        return values, _arg(x, None, keepdims, "arg" + name, arg_find)
    ax = normalize_axis(axis, arr.ndim, name)
    if arr.ndim and builtins.min(arr.shape) == 0:
        raise ValueError(f"For '{name}', the input is empty (shape {tuple(arr.shape)}): it has no {name}imum")
    xs = xp()
    out = find(arr, axis=ax, keepdims=bool(keepdims))
    index = xs.astype(arg_find(arr, axis=ax, keepdims=bool(keepdims)), _dt.int64.to_backend(xs))
    indices = wrap(index)
    if _ag._depth == 0 or x._node is None:
        return wrap(out), indices
    be = _backend._current
    n = arr.shape[ax]
    positions = xs.arange(n, device=be.device) if not be.is_numpy else xs.arange(n)
    positions = xs.reshape(positions, tuple(n if i == ax else 1 for i in range(arr.ndim)))
    kept_index = index if keepdims else xs.reshape(index, _kept_shape(arr.shape, (ax,)))
    picked = xs.astype(kept_index == positions, arr.dtype)  # one-hot of the chosen element: a constant
    name = "ArgMaxWithValue" if name == "max" else "ArgMinWithValue"
    return record(out, name, _extreme_rule, (x,), (picked,), (None,), (arr.shape, (ax,), bool(keepdims))), indices


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum and its index along ``axis``: returns ``(values, indices)``.

    Called without ``axis`` it reduces the whole tensor and the index points
    into the flattened tensor (MindSpore 2.10 returns index 0 there, which is
    a bug).
    """
    if initial is not None or where is not None:
        raise NotImplementedError("ops.max: 'initial' and 'where' are not supported by cellkit")
    return _extreme_with_index(input, axis, keepdims, "max", xp().max, xp().argmax)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum and its index along ``axis``: returns ``(values, indices)``."""
    if initial is not None or where is not None:
        raise NotImplementedError("ops.min: 'initial' and 'where' are not supported by cellkit")
    return _extreme_with_index(input, axis, keepdims, "min", xp().min, xp().argmin)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum values only (``Tensor.max`` uses this); ties share the gradient."""
    if initial is not None or where is not None:
        raise NotImplementedError("ops.amax: 'initial' and 'where' are not supported by cellkit")
    return _extreme(input, axis, keepdims, "max", xp().max)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum values only (``Tensor.min`` uses this); ties share the gradient."""
    if initial is not None or where is not None:
        raise NotImplementedError("ops.amin: 'initial' and 'where' are not supported by cellkit")
    return _extreme(input, axis, keepdims, "min", xp().min)


def _arg(input, dim, keepdim, name, fn, dtype=_dt.int64):
    x = tensor_arg(input, "input", name)
    arr = x._data
    xs = xp()
    if dim is None:
        # Over the flattened tensor; MindSpore ignores keepdim here (a 0-d index).
        out = fn(xs.reshape(arr, (-1,)), axis=0)
    else:
        axis = normalize_axis(dim, arr.ndim, name, "dim")
        out = fn(arr, axis=axis, keepdims=bool(keepdim))
    return wrap(xs.astype(out, dtype.to_backend(xs)))


def argmax(input, dim=None, keepdim=False):
    """Index of the largest value along ``dim`` (Int64, no gradient)."""
    return _arg(input, dim, keepdim, "argmax", xp().argmax)


def argmin(input, axis=None, keepdims=False):
    """Index of the smallest value along ``axis`` (Int32 as in MindSpore, no gradient)."""
    return _arg(input, axis, keepdims, "argmin", xp().argmin, _dt.int32)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over ``axis``; gradient ``out / x`` (inputs must be non-zero for it)."""
    x = tensor_arg(input, "input", "prod")
    arr = x._data
    axes = normalize_axes(axis, arr.ndim, "prod")
    xs = xp()
    out = xs.prod(arr, axis=axes, keepdims=bool(keep_dims))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "ReduceProd", _prod_rule, (x,), (arr, out), (0, OUTPUT), (arr.shape, axes, bool(keep_dims)))


def _prod_rule(m, node, g):
    """d prod(x) / dx_i = prod(x) / x_i (which needs every x_i to be non-zero)."""
    arr, out = node.unpack(m)
    shape, axes, keepdims = node.info
    return (_expand_back(m, g, shape, axes, keepdims) * _expand_back(m, out, shape, axes, keepdims) / arr,)
