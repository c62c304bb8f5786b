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
from ._core import attach, float_array, normalize_axes, normalize_axis, tensor_arg, wrap, xp

__all__ = ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "amax", "amin", "reduce_sum"]


def _expand_back(g, x_shape, axes, keepdims):
    """Reshape a reduced gradient so it broadcasts against the input again."""
    if keepdims:
        return g
    shape = [1 if i in axes else d for i, d in enumerate(x_shape)]
    return xp().reshape(g, tuple(shape))


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
    shape = arr.shape

    def backward(g):
        g = _expand_back(g, shape, axes, keepdim)
        return (xs.astype(xs.broadcast_to(g, shape), arr.dtype),)

    return attach(out, "ReduceSum", backward, x)


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
    shape = arr.shape
    count = 1
    for a in axes:
        count *= shape[a]

    def backward(g):
        g = _expand_back(g, shape, axes, keep_dims)
        return (xs.broadcast_to(g / count, shape),)

    return attach(out, "ReduceMean", backward, t)


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
    shape = arr.shape

    def backward(g):
        kept = _expand_back(out, shape, axes, keepdims)
        mask = xs.astype(arr == kept, g.dtype)
        count = xs.sum(mask, axis=axes, keepdims=True)
        g = _expand_back(g, shape, axes, keepdims)
        return (mask * g / count,)

    return attach(out, "Reduce" + name.capitalize(), backward, x)


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
    shape = arr.shape

    def backward(g):
        be = _backend._current
        n = shape[ax] if arr.ndim else 1
        positions = xs.arange(n, device=be.device) if not be.is_numpy else xs.arange(n)
        positions = xs.reshape(positions, tuple(n if i == ax else 1 for i in range(arr.ndim)))
        picked = xs.astype(_expand_back(index, shape, (ax,), keepdims) == positions, g.dtype)
        return (picked * _expand_back(g, shape, (ax,), keepdims),)

    return attach(out, "ArgMaxWithValue" if name == "max" else "ArgMinWithValue", backward, x), indices


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
    shape = arr.shape

    def backward(g):
        kept = _expand_back(out, shape, axes, keep_dims)
        return (_expand_back(g, shape, axes, keep_dims) * kept / arr,)

    return attach(out, "ReduceProd", backward, x)
