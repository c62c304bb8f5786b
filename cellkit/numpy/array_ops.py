"""``mindspore.numpy``'s shape, joining, splitting and indexing functions, and its set operations.

>>> import cellkit.numpy as mnp
>>> a = mnp.arange(6).reshape(2, 3)
>>> print(mnp.concatenate((a, a), axis=1).shape, mnp.moveaxis(a, 0, 1).shape, mnp.split(a, 3, axis=1)[0].shape)
(2, 6) (3, 2) (2, 1)
"""
from __future__ import annotations

import numpy as _np

from .. import ops as _ops
from ..ops._core import describe
from ..tensor import Tensor
from ._convert import host, to_tensor

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "squeeze",
           "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays", "concatenate", "append",
           "stack", "vstack", "hstack", "dstack", "column_stack", "split", "array_split", "hsplit", "vsplit", "dsplit",
           "flip", "fliplr", "flipud", "rot90", "roll", "tile", "repeat", "take", "take_along_axis", "choose",
           "select", "where", "argwhere", "unique", "in1d", "isin", "intersect1d", "setdiff1d", "unravel_index",
           "ravel_multi_index", "size", "apply_along_axis", "apply_over_axes", "piecewise", "array_str"]


def reshape(x, new_shape):
    """The same elements in ``new_shape`` (one entry may be -1)."""
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    return _ops.reshape(to_tensor(x, "reshape"), shape)


def ravel(x):
    """The elements as a 1-D Tensor."""
    return _ops.reshape(to_tensor(x, "ravel"), (-1,))


def transpose(a, axes=None):
    """The axes reversed, or put in the order ``axes``."""
    t = to_tensor(a, "transpose")
    return _ops.transpose(t, tuple(range(t.ndim))[::-1] if axes is None else tuple(axes))


def swapaxes(x, axis1, axis2):
    """Two axes swapped."""
    return _ops.swapaxes(to_tensor(x, "swapaxes"), axis1, axis2)


def moveaxis(a, source, destination):
    """Axes moved from ``source`` to ``destination``."""
    return _ops.moveaxis(to_tensor(a, "moveaxis"), source, destination)


def rollaxis(x, axis, start=0):
    """``axis`` moved to before position ``start``."""
    t = to_tensor(x, "rollaxis")
    axis = axis % t.ndim
    start = start % (t.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return _ops.moveaxis(t, axis, start)


def expand_dims(a, axis):
    """A size-1 axis inserted at ``axis`` (each of them for a tuple)."""
    t = to_tensor(a, "expand_dims")
    for ax in sorted(axis) if isinstance(axis, (tuple, list)) else (axis,):
        t = _ops.expand_dims(t, ax)
    return t


def squeeze(a, axis=None):
    """Size-1 axes removed."""
    return _ops.squeeze(to_tensor(a, "squeeze"), axis)


def _atleast(n, arys, op):
    out = []
    for a in arys:
        t = to_tensor(a, op)
        if t.ndim < n:
            if t.ndim == 0:
                shape = (1,) * n
            elif t.ndim == 1:  # a row: (1, k), or (1, k, 1) in three dimensions
                shape = (1,) + tuple(t.shape) + ((1,) if n == 3 else ())
            else:  # a matrix gains a trailing axis
                shape = tuple(t.shape) + (1,)
            t = _ops.reshape(t, shape)
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each input with at least one dimension."""
    return _atleast(1, arys, "atleast_1d")


def atleast_2d(*arys):
    """Each input with at least two dimensions."""
    return _atleast(2, arys, "atleast_2d")


def atleast_3d(*arys):
    """Each input with at least three dimensions."""
    return _atleast(3, arys, "atleast_3d")


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape``."""
    return _ops.broadcast_to(to_tensor(array, "broadcast_to"), tuple(shape))


def broadcast_arrays(*args):
    """The inputs broadcast against each other."""
    tensors = [to_tensor(a, "broadcast_arrays") for a in args]
    shape = _np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return [_ops.broadcast_to(t, shape) for t in tensors]


def _many(arrays, op):
    if isinstance(arrays, Tensor):
        return list(_ops.unbind(arrays, 0))
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(f"For '{op}', 'arrays' must be a list or tuple of arrays, but got {describe(arrays)}")
    return [to_tensor(a, op) for a in arrays]


def concatenate(arrays, axis=0):
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None)."""
    tensors = _many(arrays, "concatenate")
    if axis is None:
        tensors, axis = [_ops.reshape(t, (-1,)) for t in tensors], 0
    return _ops.cat(tensors, axis)


def append(arr, values, axis=None):
    """``values`` appended to ``arr`` along ``axis`` (both flattened when None)."""
    return concatenate((arr, values), axis)


def stack(arrays, axis=0):
    """The arrays stacked along a new ``axis``."""
    return _ops.stack(_many(arrays, "stack"), axis)


def vstack(tup):
    """Rows stacked (1-D inputs become rows)."""
    return _ops.cat([atleast_2d(t) for t in _many(tup, "vstack")], 0)


def hstack(tup):
    """Columns stacked (1-D inputs joined end to end)."""
    tensors = _many(tup, "hstack")
    return _ops.cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def dstack(tup):
    """Stacked along the third axis."""
    return _ops.cat([atleast_3d(t) for t in _many(tup, "dstack")], 2)


def column_stack(tup):
    """1-D inputs as columns, 2-D inputs as they are, joined along axis 1."""
    tensors = [_ops.reshape(t, (-1, 1)) if t.ndim == 1 else t for t in _many(tup, "column_stack")]
    return _ops.cat(tensors, 1)


def _split(x, indices_or_sections, axis, op, strict):
    t = to_tensor(x, op)
    if isinstance(indices_or_sections, int):
        n = t.shape[axis]
        if strict and n % indices_or_sections:
            raise ValueError(f"For '{op}', the axis of length {n} cannot be split into {indices_or_sections} "
                             "equal parts")
        return tuple(_ops.tensor_split(t, indices_or_sections, axis))
    return tuple(_ops.tensor_split(t, list(indices_or_sections), axis))


def split(x, indices_or_sections, axis=0):
    """Equal parts (an int) or pieces cut at the given indices, along ``axis``."""
    return _split(x, indices_or_sections, axis, "split", True)


def array_split(x, indices_or_sections, axis=0):
    """:func:`split`, allowing parts of unequal size."""
    return _split(x, indices_or_sections, axis, "array_split", False)


def hsplit(x, indices_or_sections):
    """:func:`split` along axis 1 (axis 0 for 1-D)."""
    t = to_tensor(x, "hsplit")
    return split(t, indices_or_sections, 1 if t.ndim > 1 else 0)


def vsplit(x, indices_or_sections):
    """:func:`split` along axis 0."""
    return split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    """:func:`split` along axis 2."""
    return split(x, indices_or_sections, 2)


def flip(m, axis=None):
    """The order of elements reversed along ``axis`` (all axes when None)."""
    t = to_tensor(m, "flip")
    axes = tuple(range(t.ndim)) if axis is None else (tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    return _ops.flip(t, axes)


def fliplr(m):
    """Columns reversed."""
    return flip(m, 1)


def flipud(m):
    """Rows reversed."""
    return flip(m, 0)


def rot90(a, k=1, axes=(0, 1)):
    """Rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    return _ops.rot90(to_tensor(a, "rot90"), k, tuple(axes))


def roll(a, shift, axis=None):
    """Elements shifted along ``axis`` (over the flattened array when None), wrapping around."""
    t = to_tensor(a, "roll")
    if axis is None:
        return _ops.reshape(_ops.roll(_ops.reshape(t, (-1,)), shift, 0), t.shape)
    return _ops.roll(t, shift, axis)


def tile(a, reps):
    """``a`` repeated ``reps`` times along each axis."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    return _ops.tile(to_tensor(a, "tile"), reps)


def repeat(a, repeats, axis=None):
    """Each element repeated ``repeats`` times along ``axis`` (over the flattened array when None)."""
    t = to_tensor(a, "repeat")
    if axis is None:
        t, axis = _ops.reshape(t, (-1,)), 0
    return _ops.repeat_interleave(t, repeats, axis)


def take(a, indices, axis=None, mode="clip"):
    """Elements at ``indices`` along ``axis`` (of the flattened array when None); ``mode`` clip/wrap/raise."""
    t = to_tensor(a, "take")
    idx = to_tensor(indices, "take")
    if axis is None:
        t, axis = _ops.reshape(t, (-1,)), 0
    n = t.shape[axis]
    if mode == "wrap":
        idx = _ops.remainder(idx, n)
    elif mode == "clip":
        idx = _ops.clamp(idx, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"For 'take', 'mode' must be 'clip', 'wrap' or 'raise', but got {mode!r}")
    return _ops.gather(t, idx, axis)


def take_along_axis(arr, indices, axis):
    """Values picked along ``axis`` at ``indices`` (of the same number of dimensions)."""
    t = to_tensor(arr, "take_along_axis")
    if axis is None:
        t, axis = _ops.reshape(t, (-1,)), 0
    idx = to_tensor(indices, "take_along_axis")
    shape = list(_np.broadcast_shapes(tuple(t.shape[:axis]) + (1,) + tuple(t.shape[axis + 1:]) if t.ndim else (),
                                      tuple(idx.shape[:axis]) + (1,) + tuple(idx.shape[axis + 1:])))
    t_shape, i_shape = list(shape), list(shape)
    t_shape[axis], i_shape[axis] = t.shape[axis], idx.shape[axis]
    return _ops.gather_elements(_ops.broadcast_to(t, tuple(t_shape)), axis, _ops.broadcast_to(idx, tuple(i_shape)))


def choose(a, choices, mode="clip"):
    """``choices[a[i]][i]`` for each position (``mode`` clip/wrap/raise)."""
    idx = to_tensor(a, "choose")
    options = _ops.stack(_many(choices, "choose"), 0)
    n = options.shape[0]
    if mode == "wrap":
        idx = _ops.remainder(idx, n)
    elif mode == "clip":
        idx = _ops.clamp(idx, 0, n - 1)
    shape = _np.broadcast_shapes(tuple(idx.shape), tuple(options.shape[1:]))
    options = _ops.broadcast_to(options, (n,) + tuple(shape))
    idx = _ops.expand_dims(_ops.broadcast_to(idx, tuple(shape)), 0)
    return _ops.squeeze(_ops.gather_elements(options, 0, _ops.cast(idx, "int64")), 0)


def select(condlist, choicelist, default=0):
    """From ``choicelist``, the entry of the first condition in ``condlist`` that holds, else ``default``."""
    conds = _many(condlist, "select")
    choices = _many(choicelist, "select")
    if len(conds) != len(choices):
        raise ValueError(f"For 'select', 'condlist' and 'choicelist' must have the same length, but got "
                         f"{len(conds)} and {len(choices)}")
    out = None
    for cond, choice in reversed(list(zip(conds, choices))):
        base = _ops.full_like(choice, default) if out is None else out
        out = _ops.where(cond, choice, base)
    return out


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y``; with ``condition`` alone, the indices where it holds."""
    cond = to_tensor(condition, "where")
    if x is None and y is None:
        return _ops.nonzero(cond, as_tuple=True)
    if x is None or y is None:
        raise ValueError("For 'where', give both 'x' and 'y', or neither")
    xt = x if isinstance(x, (int, float)) else to_tensor(x, "where")
    yt = y if isinstance(y, (int, float)) else to_tensor(y, "where")
    if not isinstance(xt, Tensor) and not isinstance(yt, Tensor):
        xt = to_tensor(x, "where")
    return _ops.where(cond, xt, yt)


def argwhere(a):
    """The indices of the non-zero elements, one row per element."""
    return _ops.argwhere(to_tensor(a, "argwhere"))


def unique(x, return_inverse=False):
    """The sorted distinct elements of the flattened ``x`` (and the indices rebuilding ``x`` from them)."""
    values = host(x, "unique")
    uniq, inverse = _np.unique(values, return_inverse=True)
    out = Tensor(uniq)
    return (out, Tensor(inverse.reshape(values.shape).astype(_np.int32))) if return_inverse else out


def in1d(ar1, ar2, invert=False):
    """Whether each element of the flattened ``ar1`` occurs in ``ar2``."""
    return Tensor(_np.isin(host(ar1, "in1d").ravel(), host(ar2, "in1d"), invert=invert))


def isin(element, test_elements, invert=False):
    """Whether each element occurs in ``test_elements`` (``element``'s shape)."""
    return Tensor(_np.isin(host(element, "isin"), host(test_elements, "isin"), invert=invert))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values found in both arrays."""
    out = _np.intersect1d(host(ar1, "intersect1d"), host(ar2, "intersect1d"), assume_unique, return_indices)
    if return_indices:
        return tuple(Tensor(v if i == 0 else v.astype(_np.int32)) for i, v in enumerate(out))
    return Tensor(out)


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted values of ``ar1`` not in ``ar2``."""
    return Tensor(_np.setdiff1d(host(ar1, "setdiff1d"), host(ar2, "setdiff1d"), assume_unique))


def unravel_index(indices, shape, order="C"):
    """Flat indices as a tuple of coordinate arrays for ``shape``."""
    return tuple(Tensor(v.astype(_np.int32)) for v in _np.unravel_index(host(indices, "unravel_index"), shape, order))


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Coordinate arrays as flat indices for ``dims``."""
    coords = tuple(host(c, "ravel_multi_index") for c in multi_index)
    return Tensor(_np.ravel_multi_index(coords, dims, mode, order).astype(_np.int32))


def size(a, axis=None):
    """How many elements ``a`` has (along ``axis`` when given)."""
    t = to_tensor(a, "size")
    return t.size if axis is None else t.shape[axis]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-D slice along ``axis``."""
    t = to_tensor(arr, "apply_along_axis")
    moved = _ops.moveaxis(t, axis, -1)
    lead = tuple(moved.shape[:-1])
    flat = _ops.reshape(moved, (-1, moved.shape[-1]))
    results = [to_tensor(func1d(flat[i], *args, **kwargs)) for i in range(flat.shape[0])]
    out = _ops.stack(results, 0)
    out = _ops.reshape(out, lead + tuple(out.shape[1:]))
    return _ops.moveaxis(out, t.ndim - 1, axis) if out.ndim == t.ndim else out


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, keeping the dimensions."""
    t = to_tensor(a, "apply_over_axes")
    for axis in (axes,) if isinstance(axes, int) else axes:
        out = func(t, axis)
        t = out if out.ndim == t.ndim else _ops.expand_dims(out, axis)
    return t


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` where ``condlist[i]`` holds (an extra function is the default)."""
    t = to_tensor(x, "piecewise")
    conds = [to_tensor(c, "piecewise") for c in (condlist if isinstance(condlist, (list, tuple)) else [condlist])]
    if len(funclist) == len(conds) + 1:  # the extra function applies where no condition holds
        other = _ops.logical_not(_ops.any(_ops.stack(conds, 0), 0)) if conds else _ops.ones_like(t)
        conds, funclist = conds + [other], list(funclist)
    out = _ops.zeros_like(t)
    for cond, fn in zip(conds, funclist):
        value = fn(t, *args, **kw) if callable(fn) else fn
        out = _ops.where(cond, value if isinstance(value, Tensor) else _ops.full_like(t, value), out)
    return out


def array_str(a):
    """The array's values as text (``str`` of the Tensor)."""
    return str(to_tensor(a, "array_str"))
