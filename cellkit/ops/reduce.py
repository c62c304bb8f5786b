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
    out = xs.sum(arr, axis=axes, keepdims=bool(keepdim), dtype=target)
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
    """Arithmetic mean over ``axis``; int inputs give a Float32 mean."""
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


def _extreme(input, axis, keepdims, name, find, arg_find):
    """Max or min over one axis (or all), returning values and the gradient rule.

    The gradient is shared equally among tied extreme elements.
    """
    x = tensor_arg(input, "input", name)
    arr = x._data
    xs = xp()
    if axis is None:
        axes = tuple(range(arr.ndim))
    else:
        axes = (normalize_axis(axis, arr.ndim, name),)
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


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum and its index along ``axis``: returns ``(values, indices)``.

    Called without ``axis`` it reduces the whole tensor (the index is into
    the flattened tensor), as ``mindspore.ops.max`` does.
    """
    if initial is not None or where is not None:
        raise NotImplementedError("ops.max: 'initial' and 'where' are not supported by cellkit")
    values = _extreme(input, axis, keepdims, "max", xp().max, xp().argmax)
    indices = argmax(input, axis, keepdims)
    return values, indices


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum and its index along ``axis``: returns ``(values, indices)``."""
    if initial is not None or where is not None:
        raise NotImplementedError("ops.min: 'initial' and 'where' are not supported by cellkit")
    values = _extreme(input, axis, keepdims, "min", xp().min, xp().argmin)
    indices = argmin(input, axis, keepdims)
    return values, indices


def amax(input, axis=None, keepdims=False):
    """The maximum values only (``Tensor.max`` uses this)."""
    return _extreme(input, axis, keepdims, "max", xp().max, xp().argmax)


def amin(input, axis=None, keepdims=False):
    """The minimum values only (``Tensor.min`` uses this)."""
    return _extreme(input, axis, keepdims, "min", xp().min, xp().argmin)


def _arg(input, dim, keepdim, name, fn):
    x = tensor_arg(input, "input", name)
    arr = x._data
    xs = xp()
    if dim is None:
        out = fn(xs.reshape(arr, (-1,)), axis=0)
        if keepdim:
            out = xs.reshape(out, (1,) * arr.ndim)
    else:
        axis = normalize_axis(dim, arr.ndim, name, "dim")
        out = fn(arr, axis=axis, keepdims=bool(keepdim))
    return wrap(xs.astype(out, _dt.int64.to_backend(xs)))


def argmax(input, dim=None, keepdim=False):
    """Index of the largest value along ``dim`` (Int64, no gradient)."""
    return _arg(input, dim, keepdim, "argmax", xp().argmax)


def argmin(input, dim=None, keepdim=False):
    """Index of the smallest value along ``dim`` (Int64, no gradient)."""
    return _arg(input, dim, keepdim, "argmin", xp().argmin)


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
