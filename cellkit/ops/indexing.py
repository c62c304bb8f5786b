"""Gathering and scattering by index: gather_d/gather_nd, scatter_*, index_add/fill/select, masked ops.

Every op here moves values between flat positions of its tensors.  The positions are
worked out once, on the host, from the shapes and (for data-dependent ops) the index
tensors, brought to the host explicitly; then one of two adjoint ops moves the values:

- :func:`take_positions` -- ``out.flat[i] = x.flat[p[i]]`` (zero where a position is
  marked invalid): every gather, slice-like rearrangement and padding;
- :func:`put_positions` -- ``out.flat[p[i]] += g.flat[i]``: its adjoint, the backward of
  a gather and the forward of a scatter-add.

Each is the other's backward rule, so everything built from them differentiates to any
order.  Scatters that overwrite (``scatter_update``, ``tensor_scatter_update`` ...) keep the
last update of each position and blend with ``where``; the reducing scatters (``mul``,
``max`` ...) apply their duplicates in rounds of distinct positions.

Ops that MindSpore 2.10 runs *in place* on their first argument (``scatter_add``,
``scatter_update``, ``scatter_nd_add``, ``scatter_nd_update``, ``index_add``,
``inplace_index_add`` and their Primitives) do the same here -- on a Parameter or a plain
Tensor -- and return a new Tensor holding the result; ``inplace_add``, ``inplace_sub`` and
``inplace_update`` leave their input alone, as MindSpore does despite their names.

>>> import cellkit as ms
>>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
>>> print(gather_elements(x, 1, ms.Tensor([[1], [0]])))
[[2.]
 [3.]]
>>> print(tensor_scatter_add(x, ms.Tensor([[0, 0], [0, 0]]), ms.Tensor([10.0, 20.0])))
[[31.  2.]
 [ 3.  4.]]
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor, check_allocation
from . import math as _math
from ._core import describe, int_arg, normalize_axis, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register
from .shape_ops import IndexValueError

__all__ = [
    "gather_d", "gather_elements", "gather_nd", "index_add", "index_fill", "index_select", "masked_fill",
    "masked_select", "scatter", "scatter_add", "scatter_nd", "scatter_nd_add", "scatter_nd_update",
    "scatter_update", "tensor_scatter_add", "tensor_scatter_elements", "tensor_scatter_update",
    "tensor_scatter_sub", "tensor_scatter_mul", "tensor_scatter_div", "tensor_scatter_max",
    "tensor_scatter_min", "inplace_add", "inplace_index_add", "inplace_sub", "inplace_update",
    "IndexAdd", "IndexFill", "IndexPut", "InplaceAdd", "InplaceIndexAdd", "InplaceSub", "InplaceUpdateV2",
    "ScatterAdd", "ScatterNdAdd", "ScatterNdUpdate", "ScatterUpdate", "TensorScatterElements",
    "TensorScatterUpdate",
]


# -- the two adjoint movers ----------------------------------------------------------------------
def _raw(value):
    """A backend array (or None) from a Tensor the Tensor namespace handed over, or an array."""
    return value._data if isinstance(value, Tensor) else value


def _size(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _zeros(shape, dtype):
    be = _backend._current
    if be.is_numpy:
        return np.zeros(shape, dtype=dtype)
    return be.xp.zeros(shape, dtype=dtype, device=be.device)


def _take_array(arr, positions, valid, shape):
    """``arr.flat[positions]`` (zeros where ``valid`` is False) in ``shape``."""
    xs = xp()
    if positions.shape[0] == 0 or _size(arr.shape) == 0:
        return _zeros(tuple(shape), arr.dtype)
    out = xs.take(xs.reshape(arr, (-1,)), positions, axis=0)
    if valid is not None:
        out = xs.where(valid, out, xs.zeros_like(out))
    return xs.reshape(out, tuple(shape))


def _put_array(g, positions, valid, in_shape):
    """Zeros of ``in_shape`` with ``g.flat[i]`` added at ``positions[i]`` (skipping invalid ones)."""
    be = _backend._current
    xs = be.xp
    flat = xs.reshape(g, (-1,))
    if valid is not None:
        flat = xs.where(valid, flat, xs.zeros_like(flat))
    size = _size(in_shape)
    if flat.shape[0] == 0:
        return _zeros(tuple(in_shape), g.dtype)
    if _dt.dtype_of(g) is _dt.bool_:  # no arithmetic on bools off NumPy: count, then test
        counts = be.scatter_add_rows(xs.astype(flat, _dt.int32.to_backend(xs)), positions, size)
        return xs.reshape(counts > 0, tuple(in_shape))
    return xs.reshape(be.scatter_add_rows(flat, positions, size), tuple(in_shape))


def take_positions(x, positions, valid, shape, op="TakePositions"):
    """``x.flat[positions]`` reshaped to ``shape``, as a differentiable op (zero where ``valid`` is False).

    ``positions`` is a 1-D int64 backend array (a position where ``valid`` is False may be any
    in-range number); ``valid`` is a boolean array of the same length or None.  The backward
    is :func:`put_positions`, whose backward is this op: differentiable to any order.
    """
    positions, valid = _raw(positions), _raw(valid)
    out = _take_array(x._data, positions, valid, shape)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, op, _take_positions_rule, (x,), (positions, valid), (None, None),
                  (tuple(x.shape), tuple(shape)))


def _take_positions_rule(m, node, g):
    positions, valid = node.unpack(m)
    in_shape, _ = node.info
    return (m.call(_put_array, put_positions, g, positions, valid, in_shape),)


def put_positions(g, positions, valid, shape, op="PutPositions"):
    """Zeros of ``shape`` with ``g.flat[i]`` added at ``positions[i]``: the adjoint of :func:`take_positions`."""
    positions, valid = _raw(positions), _raw(valid)
    out = _put_array(g._data, positions, valid, shape)
    if _ag._depth == 0 or g._node is None:
        return wrap(out)
    return record(out, op, _put_positions_rule, (g,), (positions, valid), (None, None),
                  (tuple(shape), tuple(g.shape)))


def _put_positions_rule(m, node, g):
    positions, valid = node.unpack(m)
    _, g_shape = node.info
    return (m.call(_take_array, take_positions, g, positions, valid, g_shape),)


# -- positions worked out on the host ------------------------------------------------------------
def _device(host):
    host = np.asarray(host)  # (ascontiguousarray would make a 0-D array 1-D)
    return _backend._current.from_host(host if host.flags.c_contiguous else np.ascontiguousarray(host))


def gather_host(x, positions, op, valid=None):
    """Gather ``x`` at the host position array ``positions`` (its shape is the result's).

    ``valid`` (a host bool array of the same shape, or None): where False the result is 0.
    """
    shape = positions.shape
    flat = positions.reshape(-1).astype(np.int64, copy=False)
    dvalid = None
    if valid is not None:
        valid = valid.reshape(-1)
        if valid.all():
            valid = None
        else:
            flat = np.where(valid, flat, 0)
            dvalid = _device(valid)
    return take_positions(x, _device(flat), dvalid, shape, op)


def _grid(shape):
    return np.arange(_size(shape), dtype=np.int64).reshape(shape)


def _hit_mask(positions, shape):
    """A host bool array of ``shape``: True at the given flat positions."""
    mask = np.zeros(_size(shape), dtype=bool)
    mask[positions.reshape(-1)] = True
    return mask.reshape(shape)


def _bool_tensor(host):
    return wrap(_device(host))


def _rounds(positions):
    """Split the update indices into rounds that touch each position at most once, in order."""
    flat = positions.reshape(-1)
    order = np.argsort(flat, kind="stable")
    sorted_pos = flat[order]
    start = np.r_[True, sorted_pos[1:] != sorted_pos[:-1]] if flat.size else np.zeros(0, bool)
    group_start = np.maximum.accumulate(np.where(start, np.arange(flat.size), 0)) if flat.size else start
    rank = np.empty(flat.size, dtype=np.int64)
    rank[order] = np.arange(flat.size) - group_start
    return [np.nonzero(rank == r)[0] for r in range(int(rank.max()) + 1 if flat.size else 0)]


def _last_of_each(positions):
    """Indices of the last update of each distinct position (what an overwriting scatter keeps)."""
    flat = positions.reshape(-1)
    if flat.size == 0:
        return np.zeros(0, np.int64)
    _, first_in_reversed = np.unique(flat[::-1], return_index=True)
    return np.sort(flat.size - 1 - first_in_reversed)


def scatter_host(x, positions, updates, reduce, op):
    """``x`` with ``updates`` (same size as ``positions``) combined in at the host ``positions``.

    ``reduce`` is ``'add'``, ``'update'`` (the last update of a position wins), ``'sub'``,
    ``'mul'``, ``'div'``, ``'max'`` or ``'min'``.  Built from the adjoint movers, ``where`` and
    elementwise ops, so it is differentiable in ``x`` and ``updates``.
    """
    flat = positions.reshape(-1).astype(np.int64, copy=False)
    shape = tuple(x.shape)
    n = flat.size
    if reduce in ("add", "sub"):
        placed = put_positions(updates, _device(flat), None, shape, op)
        return _math.add(x, placed) if reduce == "add" else _math.sub(x, placed)
    if reduce == "update":
        keep = _last_of_each(flat)
        chosen = updates if keep.size == n else take_positions(updates, _device(keep), None, (keep.size,), op)
        placed = put_positions(chosen, _device(flat[keep]), None, shape, op)
        return _math.where(_bool_tensor(_hit_mask(flat[keep], shape)), placed, x)
    combine = {"mul": _math.mul, "div": _math.div, "max": _math.maximum, "min": _math.minimum}[reduce]
    out = x
    for chosen_index in _rounds(flat):
        chosen = updates if chosen_index.size == n else take_positions(
            updates, _device(chosen_index), None, (chosen_index.size,), op)
        where = flat[chosen_index]
        hit = _hit_mask(where, shape)
        # Off the hit positions ``placed`` holds ones, so the combination leaves ``out`` unchanged there.
        placed = put_positions(chosen, _device(where), None, shape, op)
        if reduce in ("mul", "div"):
            placed = _math.where(_bool_tensor(hit), placed, 1)
        out = _math.where(_bool_tensor(hit), combine(out, placed), out)
    return out


def _mutate(x, out, alias=True):
    """Write ``out``'s values into ``x``'s memory; return ``out``, sharing that memory if ``alias``.

    MindSpore updates the input of these ops in place.  Most (``index_add``, ``scatter_add``,
    ``scatter_update``, ``scatter_nd_add``) return a Tensor over the input's memory, so a later
    in-place op on the input shows in it too; ``inplace_index_add`` and ``scatter_nd_update``
    return a copy.
    """
    try:
        x._data[...] = out._data
    except (ValueError, TypeError):  # read-only memory (a broadcast view): the Tensor takes new memory
        x._data = _backend._current.copy(out._data)
    if alias:
        out._data = x._data
    return out


# -- argument checks -----------------------------------------------------------------------------
_INT_KINDS = ("int", "uint")


def _index_tensor(value, name, op, int32_only=False):
    """An integer index Tensor and its values on the host (an explicit transfer)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = Tensor(np.asarray(int_arg(value, name, op), dtype=np.int32 if int32_only else np.int64))
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of int32{'' if int32_only else ' or int64'}, "
                        f"but got {describe(value)}")
    t = tensor_arg(value, name, op)
    dt = _dt.dtype_of(t._data)
    if int32_only and dt is not _dt.int32:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of int32, but got a Tensor of dtype {dt}")
    if dt.kind not in _INT_KINDS:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of int32 or int64, but got a Tensor of dtype {dt}")
    return t, np.asarray(_backend._current.to_host(t._data)).astype(np.int64)


def _same_dtype(x, y, op, names=("input_x", "updates")):
    if _dt.dtype_of(x._data) is not _dt.dtype_of(y._data):
        raise TypeError(f"For '{op}', '{names[1]}' must have the dtype of '{names[0]}' ({x.dtype}), "
                        f"but got {y.dtype}")


def _check_range(values, low, high, op, name="indices", where=""):
    """Raise RuntimeError (MindSpore's kernel error) for index values outside ``[low, high)``.

    ``where`` describes the indexed tensor (``"'input' of shape (3, 4)"``) for the message.
    """
    if values.size and (values.min() < low or values.max() >= high):
        bad = values[(values < low) | (values >= high)].reshape(-1)[0]
        raise IndexValueError(f"For '{op}', the values of '{name}' must be in [{low}, {high})"
                              f"{' for ' + where if where else ''}, but got {int(bad)}")


def _shape_of(name, t):
    return f"'{name}' of shape {tuple(t.shape)}"


def _scalar_value(value, x, op, name="value"):
    """A fill value: a number, or a 0-d Tensor (kept, so the result is differentiable in it)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"For '{op}', '{name}' must be a 0-D Tensor or a number, but got a Tensor of "
                             f"shape {tuple(value.shape)}")
        return value if value.dtype is x.dtype else _cast(value, x.dtype)
    if isinstance(value, (bool, numbers.Real, np.number, np.bool_)) and not isinstance(value, complex):
        return number_tensor(value, x.dtype, op, name)
    raise TypeError(f"For '{op}', '{name}' must be a number, a bool or a 0-D Tensor, but got {describe(value)}")


def number_tensor(value, dtype, op, name):
    """A Python number as a 0-D Tensor of ``dtype`` (a float truncated towards zero for an int dtype)."""
    try:
        host = np.asarray(value)
        if host.dtype.kind == "O":
            raise OverflowError
        if dtype.kind in ("int", "uint") and host.dtype.kind == "f" and not np.isfinite(host):
            raise OverflowError
        info = np.iinfo(dtype.to_backend(np)) if dtype.kind in ("int", "uint") else None
        if info is not None and not info.min <= int(host) <= info.max:
            raise OverflowError
        host = host.astype(dtype.to_backend(np))
    except (OverflowError, ValueError):
        raise ValueError(f"For '{op}', '{name}' {value!r} does not fit in dtype {dtype}") from None
    return wrap(_device(host))


def _cast(t, dtype):
    from .creation import cast
    return cast(t, dtype)


# -- gathers -------------------------------------------------------------------------------------
def gather_elements(input, dim, index):
    """Pick one element along ``dim`` for every entry of ``index``: ``out[i][j] = input[i][index[i][j]]`` (dim=1).

    ``index`` has the rank of ``input``; along the other axes it may be shorter.  Negative
    indices count from the end.  Differentiable in ``input``.

    >>> import cellkit as ms
    >>> print(gather_elements(ms.Tensor([[1, 2], [3, 4]]), 0, ms.Tensor([[1, 0]])))
    [[3 2]]
    """
    return _gather_elements(input, dim, index, "gather_elements", "input")


def gather_d(x, dim, index):
    """Same as :func:`gather_elements` (MindSpore's older name)."""
    return _gather_elements(x, dim, index, "gather_d", "x")


def _gather_elements(input, dim, index, op, name):
    x = tensor_arg(input, name, op)
    if isinstance(dim, Tensor):
        dim = int(dim.item())
    _, idx = _index_tensor(index, "index", op)
    if idx.ndim != x.ndim:
        raise ValueError(f"For '{op}', 'index' must have the rank of '{name}', but got {_shape_of('index', idx)} "
                         f"and {_shape_of(name, x)}")
    dim = normalize_axis(dim, x.ndim, op, "dim")
    for d, (a, b) in enumerate(zip(idx.shape, x.shape)):
        if d != dim and a > b:
            raise ValueError(f"For '{op}', 'index' of shape {idx.shape} must not be longer than '{name}' of shape "
                             f"{tuple(x.shape)} along axis {d}")
    length = x.shape[dim] if x.ndim else 1
    _check_range(idx, -length, length, op, "index", f"axis {dim} of {_shape_of(name, x)}")
    coords = list(np.indices(idx.shape, dtype=np.int64)) if idx.ndim else []
    if idx.ndim:
        coords[dim] = idx % length
        positions = np.ravel_multi_index(coords, x.shape)
    else:
        positions = np.zeros((), np.int64)
    return gather_host(x, positions, "GatherD")


def gather_nd(input_x, indices):
    """Gather slices: ``out[i] = input_x[indices[i]]`` where each ``indices[i]`` is a tuple of coordinates.

    ``indices`` has shape ``(..., K)`` with ``K <= input_x.ndim``; the result has shape
    ``indices.shape[:-1] + input_x.shape[K:]``.

    >>> import cellkit as ms
    >>> print(gather_nd(ms.Tensor([[1, 2], [3, 4]]), ms.Tensor([[1, 0], [0, 1]])))
    [3 2]
    """
    x = tensor_arg(input_x, "input_x", "gather_nd")
    _, idx = _index_tensor(indices, "indices", "gather_nd")
    if idx.ndim == 0:
        raise ValueError("For 'gather_nd', 'indices' must have at least 1 dimension, but got a 0-D Tensor")
    k = idx.shape[-1]
    if k > x.ndim:
        raise ValueError(f"For 'gather_nd', the last dimension of 'indices' must not exceed the rank of 'input_x', "
                         f"but got {_shape_of('indices', idx)} and {_shape_of('input_x', x)}")
    positions = _nd_positions(idx, tuple(x.shape), "gather_nd")
    return gather_host(x, positions, "GatherNd")


def _nd_positions(idx, shape, op, name="indices"):
    """Flat positions of ``tensor[idx[..., 0], ..., idx[..., K-1]]`` (shape ``idx.shape[:-1] + shape[K:]``)."""
    k = idx.shape[-1]
    for axis in range(k):
        values = idx[..., axis]
        if values.size and (values.min() < 0 or values.max() >= shape[axis]):
            bad = values[(values < 0) | (values >= shape[axis])].reshape(-1)[0]
            raise IndexValueError(f"For '{op}', the values of '{name}' must index into a tensor of shape {shape}, "
                                  f"but got {int(bad)} for axis {axis}")
    grid = _grid(shape)
    return grid[tuple(idx[..., axis] for axis in range(k))] if k else np.broadcast_to(
        grid, idx.shape[:-1] + shape).copy()


def index_select(input, axis, index):
    """The slices of ``input`` along ``axis`` at the 1-D ``index`` (negative indices count from the end).

    >>> import cellkit as ms
    >>> print(index_select(ms.Tensor([[1, 2, 3], [4, 5, 6]]), 1, ms.Tensor([2, 0])))
    [[3 1]
     [6 4]]
    """
    x = tensor_arg(input, "input", "index_select")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For 'index_select', 'axis' must be an int, but got {describe(axis)}")
    _, idx = _index_tensor(index, "index", "index_select")
    if idx.ndim != 1:
        raise ValueError(f"For 'index_select', the dimension of `index` must be 1, but got {_shape_of('index', idx)}")
    if x.ndim == 0:
        raise ValueError("For 'index_select', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    axis = normalize_axis(axis, x.ndim, "index_select", "axis")
    length = x.shape[axis]
    _check_range(idx, -length, length, "index_select", "index", f"axis {axis} of {_shape_of('input', x)}")
    positions = np.take(_grid(tuple(x.shape)), idx % length if length else idx, axis=axis)
    return gather_host(x, positions, "IndexSelect")


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` is True, as a 1-D tensor (both broadcast first).

    >>> import cellkit as ms
    >>> print(masked_select(ms.Tensor([1, 2, 3]), ms.Tensor([True, False, True])))
    [1 3]
    """
    x = tensor_arg(input, "input", "masked_select")
    m = tensor_arg(mask, "mask", "masked_select")
    if m.dtype is not _dt.bool_:  # MindSpore's CPU kernel refuses at launch: a RuntimeError
        raise RuntimeError(f"For 'masked_select', 'mask' must be a bool Tensor, but got dtype {m.dtype}")
    shape = _broadcast_shape(tuple(x.shape), tuple(m.shape), "masked_select", ("input", "mask"))
    host_mask = np.broadcast_to(np.asarray(_backend._current.to_host(m._data)), shape)
    grid = np.broadcast_to(_grid(tuple(x.shape)), shape)
    return gather_host(x, grid[host_mask], "MaskedSelect")


def _broadcast_shape(a, b, op, names):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        raise ValueError(f"For '{op}', the shapes of '{names[0]}' {a} and '{names[1]}' {b} cannot be broadcast "
                         "together") from None


# -- filling -------------------------------------------------------------------------------------
def masked_fill(input_x, mask, value):
    """``value`` where ``mask`` is True, ``input_x`` elsewhere (broadcasting the three together).

    ``value`` is a number or a 0-D Tensor (differentiable).  The result has the dtype of
    ``input_x``.

    >>> import cellkit as ms
    >>> print(masked_fill(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([True, False, True]), 0.5))
    [0.5 2.  0.5]
    """
    x = tensor_arg(input_x, "input_x", "masked_fill")
    m = tensor_arg(mask, "mask", "masked_fill")
    if m.dtype is not _dt.bool_:
        raise TypeError(f"For 'masked_fill', 'mask' must be a bool Tensor, but got dtype {m.dtype}")
    _broadcast_shape(tuple(x.shape), tuple(m.shape), "masked_fill", ("input_x", "mask"))
    v = _scalar_value(value, x, "masked_fill")
    return _math.where(m, v, x)


def index_fill(x, axis, index, value):
    """``x`` with the slices at ``index`` along ``axis`` set to ``value`` (a number or a 0-D Tensor).

    ``index`` is an int32 Tensor (negative entries count from the end).

    >>> import cellkit as ms
    >>> print(index_fill(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), 1, ms.Tensor([0], ms.int32), -1.0))
    [[-1.  2.]
     [-1.  4.]]
    """
    t = tensor_arg(x, "x", "index_fill")
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For 'index_fill', 'axis' must be an int or a Tensor, but got {describe(axis)}")
    axis = normalize_axis(axis, t.ndim, "index_fill", "axis")
    _, idx = _index_tensor(index, "index", "index_fill", int32_only=True)
    if idx.ndim > 1:
        raise ValueError(f"For 'index_fill', 'index' must be 0-D or 1-D, but got {_shape_of('index', idx)}")
    length = t.shape[axis] if t.ndim else 1
    _check_range(idx, -length, length, "index_fill", "index", f"axis {axis} of {_shape_of('x', t)}")
    v = _scalar_value(value, t, "index_fill")
    hit = np.zeros(length, dtype=bool)
    hit[idx.reshape(-1) % max(length, 1)] = True
    shape = [1] * t.ndim
    if t.ndim:
        shape[axis] = length
    return _math.where(_bool_tensor(hit.reshape(shape)), v, t)


# -- element scatters ----------------------------------------------------------------------------
def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """Scatter ``updates`` along ``axis``: ``out[i][indices[i][j]] = updates[i][j]`` (axis=1).

    ``reduction='add'`` adds instead (duplicates add up); with ``'none'`` the last of
    duplicate indices wins.  Negative indices count from the end.  Differentiable in
    ``input_x`` and ``updates``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([[0.0, 0.0], [0.0, 0.0]])
    >>> print(tensor_scatter_elements(x, ms.Tensor([[1], [0]]), ms.Tensor([[5.0], [6.0]]), axis=1))
    [[0. 5.]
     [6. 0.]]
    """
    return _scatter_elements(input_x, indices, updates, axis, reduction, "tensor_scatter_elements",
                             ("input_x", "indices", "updates"))


def scatter(input, axis, index, src):
    """Same as :func:`tensor_scatter_elements` with ``reduction='none'``; ``src`` may be a number."""
    return _scatter_elements(input, index, src, axis, "none", "scatter", ("input", "index", "src"))


def _scatter_elements(input_x, indices, updates, axis, reduction, op, names):
    x = tensor_arg(input_x, names[0], op)
    if reduction not in ("none", "add", "multiply", "mul"):
        raise ValueError(f"For '{op}', 'reduction' must be 'none' or 'add', but got {reduction!r}")
    _, idx = _index_tensor(indices, names[1], op)
    if isinstance(updates, (numbers.Real, np.number)) and not isinstance(updates, bool):
        u = _math.add(_cast(wrap(_device(np.zeros(idx.shape))), x.dtype), number_tensor(updates, x.dtype, op, names[2]))
    else:
        u = tensor_arg(updates, names[2], op)
        _same_dtype(x, u, op, (names[0], names[2]))
    if not x.ndim or idx.ndim != x.ndim or u.ndim != x.ndim:
        raise ValueError(f"For '{op}', '{names[0]}', '{names[1]}' and '{names[2]}' must have the same rank "
                         f"(at least 1), but got shapes {tuple(x.shape)}, {idx.shape} and {tuple(u.shape)}")
    axis = normalize_axis(axis, x.ndim, op, "axis")
    if tuple(u.shape) != idx.shape:
        raise RuntimeError(f"For '{op}', '{names[2]}' must have the shape of '{names[1]}', but got "
                           f"{_shape_of(names[2], u)} and {_shape_of(names[1], idx)}")
    for d, (a, b) in enumerate(zip(idx.shape, x.shape)):
        if d != axis and a > b:
            raise ValueError(f"For '{op}', '{names[1]}' of shape {idx.shape} must not be longer than "
                             f"'{names[0]}' of shape {tuple(x.shape)} along axis {d}")
    length = x.shape[axis]
    _check_range(idx, -length, length, op, names[1], f"axis {axis} of {_shape_of(names[0], x)}")
    coords = list(np.indices(idx.shape, dtype=np.int64))
    coords[axis] = idx % max(length, 1)
    positions = np.ravel_multi_index(coords, tuple(x.shape)) if idx.size else np.zeros(idx.shape, np.int64)
    reduce = {"none": "update", "add": "add", "multiply": "mul", "mul": "mul"}[reduction]
    return scatter_host(x, positions, u, reduce, "TensorScatterElements")


# -- nd scatters ---------------------------------------------------------------------------------
def _nd_scatter(input_x, indices, updates, reduce, op, min_rank=2):
    x = tensor_arg(input_x, "input_x", op)
    _, idx = _index_tensor(indices, "indices", op)
    u = tensor_arg(updates, "updates", op)
    _same_dtype(x, u, op)
    if idx.ndim < min_rank:
        raise ValueError(f"For '{op}', the dimension of 'indices' cannot be less than {min_rank}, but got "
                         f"{_shape_of('indices', idx)}")
    k = idx.shape[-1]
    if k > x.ndim:
        raise ValueError(f"For '{op}', the last dimension of 'indices' must not exceed the rank of 'input_x', but "
                         f"got {_shape_of('indices', idx)} and {_shape_of('input_x', x)}")
    want = idx.shape[:-1] + tuple(x.shape)[k:]
    if tuple(u.shape) != want:
        raise ValueError(f"For '{op}', 'updates' must have shape indices.shape[:-1] + input_x.shape[K:] = {want}, "
                         f"but got {_shape_of('updates', u)} ({_shape_of('indices', idx)}, "
                         f"{_shape_of('input_x', x)})")
    positions = _nd_positions(idx, tuple(x.shape), op)
    return x, scatter_host(x, positions, u, reduce, op)


def tensor_scatter_add(input_x, indices, updates):
    """A new tensor: ``input_x`` with ``updates`` added at the index tuples of ``indices`` (shape ``(..., K)``).

    ``updates`` has shape ``indices.shape[:-1] + input_x.shape[K:]``; duplicates add up.
    """
    return _nd_scatter(input_x, indices, updates, "add", "tensor_scatter_add")[1]


def tensor_scatter_update(input_x, indices, updates):
    """A new tensor: ``input_x`` with the slices at ``indices`` replaced by ``updates`` (the last duplicate wins)."""
    return _nd_scatter(input_x, indices, updates, "update", "tensor_scatter_update")[1]


def tensor_scatter_sub(input_x, indices, updates):
    """A new tensor: ``updates`` subtracted at the index tuples of ``indices``."""
    return _nd_scatter(input_x, indices, updates, "sub", "tensor_scatter_sub")[1]


def tensor_scatter_mul(input_x, indices, updates):
    """A new tensor: multiplied by ``updates`` at the index tuples of ``indices``."""
    return _nd_scatter(input_x, indices, updates, "mul", "tensor_scatter_mul")[1]


def tensor_scatter_div(input_x, indices, updates):
    """A new tensor: divided by ``updates`` at the index tuples of ``indices``."""
    return _nd_scatter(input_x, indices, updates, "div", "tensor_scatter_div")[1]


def tensor_scatter_max(input_x, indices, updates):
    """A new tensor: the maximum with ``updates`` at the index tuples of ``indices``."""
    return _nd_scatter(input_x, indices, updates, "max", "tensor_scatter_max")[1]


def tensor_scatter_min(input_x, indices, updates):
    """A new tensor: the minimum with ``updates`` at the index tuples of ``indices``."""
    return _nd_scatter(input_x, indices, updates, "min", "tensor_scatter_min")[1]


def scatter_nd(indices, updates, shape):
    """Zeros of ``shape`` with ``updates`` added at the index tuples of ``indices`` (duplicates add up).

    >>> import cellkit as ms
    >>> print(scatter_nd(ms.Tensor([[1], [3], [1]]), ms.Tensor([1.0, 2.0, 3.0]), (4,)))
    [0. 4. 0. 2.]
    """
    if not isinstance(shape, (tuple, list)) or any(isinstance(d, bool) or not isinstance(d, (int, np.integer))
                                                   for d in shape):
        raise TypeError(f"For 'scatter_nd', 'shape' must be a tuple of ints, but got {describe(shape)}")
    if not shape or any(d <= 0 for d in shape):
        raise ValueError(f"For 'scatter_nd', 'shape' must hold positive sizes, but got {tuple(shape)}")
    u = tensor_arg(updates, "updates", "scatter_nd")
    _, idx = _index_tensor(indices, "indices", "scatter_nd")
    shape = tuple(int(d) for d in shape)
    check_allocation(shape, u.dtype, "scatter_nd", f"'shape' {shape}")
    if idx.ndim < 1 or idx.shape[-1] > len(shape):
        raise ValueError(f"For 'scatter_nd', the last dimension of 'indices' {idx.shape} must not exceed the "
                         f"length of 'shape' {shape}")
    k = idx.shape[-1]
    want = idx.shape[:-1] + shape[k:]
    if tuple(u.shape) != want:
        raise ValueError(f"For 'scatter_nd', 'updates' must have shape indices.shape[:-1] + shape[K:] = {want}, but "
                         f"got {_shape_of('updates', u)} ({_shape_of('indices', idx)})")
    positions = _nd_positions(idx, shape, "scatter_nd")
    return put_positions(u, _device(positions.reshape(-1)), None, shape, "ScatterNd")


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """Add ``updates`` at the index tuples of ``indices`` into ``input_x`` in place; returns the result."""
    x, out = _nd_scatter(input_x, indices, updates, "add", "scatter_nd_add", min_rank=1)
    return _mutate(x, out)


def scatter_nd_update(input_x, indices, updates):
    """Write ``updates`` at the index tuples of ``indices`` into ``input_x`` in place; returns the result."""
    x, out = _nd_scatter(input_x, indices, updates, "update", "scatter_nd_update", min_rank=1)
    return _mutate(x, out, alias=False)


# -- row scatters (the first axis) ---------------------------------------------------------------
def _row_scatter(input_x, indices, updates, reduce, op):
    x = tensor_arg(input_x, "input_x", op)
    _, idx = _index_tensor(indices, "indices", op)
    u = tensor_arg(updates, "updates", op)
    _same_dtype(x, u, op)
    if not x.ndim:
        raise ValueError(f"For '{op}', 'input_x' must have at least 1 dimension, but got a 0-D Tensor")
    want = idx.shape + tuple(x.shape)[1:]
    if tuple(u.shape) != want:
        raise ValueError(f"For '{op}', 'updates' must have shape indices.shape + input_x.shape[1:] = {want}, "
                         f"but got {_shape_of('updates', u)} ({_shape_of('indices', idx)}, "
                         f"{_shape_of('input_x', x)})")
    _check_range(idx, 0, x.shape[0], op, "indices", f"axis 0 of {_shape_of('input_x', x)}")
    positions = _nd_positions(idx[..., None], tuple(x.shape), op)
    return _mutate(x, scatter_host(x, positions, u, reduce, op))


def scatter_add(input_x, indices, updates):
    """Add ``updates`` into the rows ``indices`` of ``input_x`` in place (duplicates add up); returns the result.

    ``updates`` has shape ``indices.shape + input_x.shape[1:]``.

    >>> import cellkit as ms
    >>> x = ms.Parameter(ms.Tensor([[0.0, 0.0], [0.0, 0.0]]), name="x")
    >>> out = scatter_add(x, ms.Tensor([1, 1], ms.int32), ms.Tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> print(x.asnumpy())
    [[0. 0.]
     [4. 6.]]
    """
    return _row_scatter(input_x, indices, updates, "add", "scatter_add")


def scatter_update(input_x, indices, updates):
    """Write ``updates`` into the rows ``indices`` of ``input_x`` in place (the last duplicate wins)."""
    return _row_scatter(input_x, indices, updates, "update", "scatter_update")


# -- index_add and the inplace_* family ----------------------------------------------------------
def _axis_positions(x_shape, u_shape, idx, axis):
    """Flat positions in ``x_shape`` of every element of ``u_shape`` whose coordinate along ``axis`` maps by ``idx``."""
    coords = list(np.indices(u_shape, dtype=np.int64))
    coords[axis] = idx[coords[axis]]
    return np.ravel_multi_index(coords, x_shape) if _size(u_shape) else np.zeros(u_shape, np.int64)


def _index_add(x, indices, y, axis, op, names=("x", "indices", "y"), alpha=None, alias=True):
    t = tensor_arg(x, names[0], op)
    u = tensor_arg(y, names[2], op)
    _, idx = _index_tensor(indices, names[1], op, int32_only=True)
    _same_dtype(t, u, op, (names[0], names[2]))
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {describe(axis)}")
    if u.ndim != t.ndim or not t.ndim:
        raise ValueError(f"For '{op}', '{names[2]}' must have the rank of '{names[0]}' (at least 1), but got "
                         f"{_shape_of(names[2], u)} and {_shape_of(names[0], t)}")
    axis = normalize_axis(axis, t.ndim, op, "axis")
    if idx.ndim != 1 or idx.shape[0] != u.shape[axis]:
        raise ValueError(f"For '{op}', '{names[1]}' must be 1-D with as many entries as '{names[2]}' has along "
                         f"axis {axis}, but got {_shape_of(names[1], idx)} and {_shape_of(names[2], u)}")
    if any(a != b for d, (a, b) in enumerate(zip(u.shape, t.shape)) if d != axis):
        raise ValueError(f"For '{op}', '{names[2]}' of shape {tuple(u.shape)} must match '{names[0]}' of shape "
                         f"{tuple(t.shape)} except along axis {axis}")
    _check_range(idx, 0, t.shape[axis], op, names[1], f"axis {axis} of {_shape_of(names[0], t)}")
    if alpha is not None and alpha != 1:
        u = _math.mul(u, alpha)
    positions = _axis_positions(tuple(t.shape), tuple(u.shape), idx, axis)
    return _mutate(t, scatter_host(t, positions, u, "add", op), alias)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """Add ``y`` into ``x`` at ``indices`` along ``axis``, in place (as MindSpore does); returns the result.

    ``indices`` is a 1-D int32 Tensor with one entry per slice of ``y`` along ``axis``;
    duplicates add up.  Differentiable in ``x`` and ``y``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> print(index_add(x, ms.Tensor([0, 0], ms.int32), ms.Tensor([[1.0, 1.0], [2.0, 2.0]]), 1))
    [[3. 2.]
     [7. 4.]]
    """
    return _index_add(x, indices, y, axis, "index_add")


def inplace_index_add(var, indices, updates, axis):
    """Same as :func:`index_add`: ``updates`` added into ``var`` at ``indices`` along ``axis``, in place."""
    return _index_add(var, indices, updates, axis, "inplace_index_add", ("var", "indices", "updates"), alias=False)


def _row_indices(indices, n_rows, op, allow_tensor=False):
    if allow_tensor and isinstance(indices, Tensor):
        _, idx = _index_tensor(indices, "indices", op)
        return idx.reshape(-1)
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
        return np.asarray([int_arg(indices, "indices", op)], np.int64)
    if isinstance(indices, tuple) and indices and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in indices):
        return np.asarray([int_arg(i, "indices", op) for i in indices], np.int64)
    allowed = "an int, a tuple of ints or an int Tensor" if allow_tensor else "an int or a tuple of ints"
    raise TypeError(f"For '{op}', 'indices' must be {allowed}, but got {describe(indices)}")


def _inplace_rows(x, v, indices, reduce, op, allow_tensor=False, negative=False):
    t = tensor_arg(x, "x", op)
    u = tensor_arg(v, "v", op)
    _same_dtype(t, u, op, ("x", "v"))
    idx = _row_indices(indices, t.shape[0] if t.ndim else 0, op, allow_tensor)
    if not t.ndim or u.ndim != t.ndim or tuple(u.shape)[1:] != tuple(t.shape)[1:] or u.shape[0] != idx.size:
        raise ValueError(f"For '{op}', 'v' must have shape ({idx.size},) + x.shape[1:], with one row per index of "
                         f"{tuple(int(i) for i in idx)}, but got 'v' of shape {tuple(u.shape)} and 'x' of shape "
                         f"{tuple(t.shape)}")
    rows = t.shape[0]
    if negative:
        if idx.size and (idx.min() < -rows or idx.max() >= rows):
            raise RuntimeError(f"For '{op}', the values of 'indices' must be in [{-rows}, {rows}) for "
                               f"{_shape_of('x', t)}, but got {tuple(int(i) for i in idx)}")
        idx = idx % rows
    elif idx.size and (idx.min() < 0 or idx.max() >= rows):
        raise ValueError(f"For '{op}', the values of 'indices' must be in [0, {rows}) for {_shape_of('x', t)}, "
                         f"but got {tuple(int(i) for i in idx)}")
    positions = _axis_positions(tuple(t.shape), tuple(u.shape), idx, 0)
    return scatter_host(t, positions, u, reduce, op)


def inplace_add(x, v, indices):
    """A new tensor: ``x`` with ``v[i]`` added to row ``indices[i]`` (``x`` itself is left unchanged).

    >>> import cellkit as ms
    >>> print(inplace_add(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), ms.Tensor([[1.0, 1.0]]), 1))
    [[1. 2.]
     [4. 5.]]
    """
    return _inplace_rows(x, v, indices, "add", "inplace_add")


def inplace_sub(x, v, indices):
    """A new tensor: ``x`` with ``v[i]`` subtracted from row ``indices[i]`` (``x`` is left unchanged)."""
    return _inplace_rows(x, v, indices, "sub", "inplace_sub")


def inplace_update(x, v, indices):
    """A new tensor: ``x`` with row ``indices[i]`` replaced by ``v[i]`` (``x`` is left unchanged).

    ``indices`` is an int, a tuple of ints or an int Tensor; negative indices count from the end.
    """
    return _inplace_rows(x, v, indices, "update", "inplace_update", allow_tensor=True, negative=True)


# -- Primitives ----------------------------------------------------------------------------------
class IndexAdd(Primitive):
    """``IndexAdd(axis)(x, indices, y)``: :func:`index_add` (in place on ``x``)."""

    @prim_attr_register
    def __init__(self, axis, use_lock=True, check_index_bound=True):
        int_arg(axis, "axis", "IndexAdd")

    def __call__(self, input_x, indices, input_y):
        return _index_add(input_x, indices, input_y, self.axis, "IndexAdd", ("input_x", "indices", "input_y"))


class IndexFill(Primitive):
    """``IndexFill()(x, dim, index, value)``: :func:`index_fill`."""

    def __call__(self, x, dim, index, value):
        return index_fill(x, dim, index, value)


class IndexPut(Primitive):
    """``IndexPut(accumulate)(x1, x2, indices)``: ``x1`` with ``x2`` put (or added) at the index tuple ``indices``."""

    @prim_attr_register
    def __init__(self, accumulate=0):
        if isinstance(accumulate, bool) or not isinstance(accumulate, (int, np.integer)):
            raise TypeError(f"For 'IndexPut', 'accumulate' must be an int (0 or 1), but got {describe(accumulate)}")

    def __call__(self, x1, x2, indices):
        return index_put(x1, indices, x2, bool(self.accumulate), op="IndexPut")


class InplaceAdd(Primitive):
    """``InplaceAdd(indices)(x, v)``: :func:`inplace_add`."""

    @prim_attr_register
    def __init__(self, indices):
        _row_indices(indices, 0, "InplaceAdd")

    def __call__(self, x, input_v):
        return _inplace_rows(x, input_v, self.indices, "add", "InplaceAdd")


class InplaceSub(Primitive):
    """``InplaceSub(indices)(x, v)``: :func:`inplace_sub`."""

    @prim_attr_register
    def __init__(self, indices):
        _row_indices(indices, 0, "InplaceSub")

    def __call__(self, x, input_v):
        return _inplace_rows(x, input_v, self.indices, "sub", "InplaceSub")


class InplaceUpdateV2(Primitive):
    """``InplaceUpdateV2()(x, indices, v)``: :func:`inplace_update`."""

    def __call__(self, x, indices, v):
        return _inplace_rows(x, v, indices, "update", "InplaceUpdateV2", allow_tensor=True, negative=True)


class InplaceIndexAdd(Primitive):
    """``InplaceIndexAdd(axis)(var, indices, updates)``: :func:`inplace_index_add` (in place on ``var``)."""

    @prim_attr_register
    def __init__(self, axis):
        int_arg(axis, "axis", "InplaceIndexAdd")

    def __call__(self, var, indices, updates):
        return _index_add(var, indices, updates, self.axis, "InplaceIndexAdd", ("var", "indices", "updates"),
                          alias=False)


class ScatterAdd(Primitive):
    """``ScatterAdd()(input_x, indices, updates)``: :func:`scatter_add` (in place)."""

    @prim_attr_register
    def __init__(self, use_locking=False):
        pass

    def __call__(self, input_x, indices, updates):
        return _row_scatter(input_x, indices, updates, "add", "ScatterAdd")


class ScatterUpdate(Primitive):
    """``ScatterUpdate()(input_x, indices, updates)``: :func:`scatter_update` (in place)."""

    @prim_attr_register
    def __init__(self, use_locking=True):
        pass

    def __call__(self, input_x, indices, updates):
        return _row_scatter(input_x, indices, updates, "update", "ScatterUpdate")


class ScatterNdAdd(Primitive):
    """``ScatterNdAdd()(input_x, indices, updates)``: :func:`scatter_nd_add` (in place)."""

    @prim_attr_register
    def __init__(self, use_locking=False):
        pass

    def __call__(self, input_x, indices, updates):
        x, out = _nd_scatter(input_x, indices, updates, "add", "ScatterNdAdd", min_rank=1)
        return _mutate(x, out)


class ScatterNdUpdate(Primitive):
    """``ScatterNdUpdate()(input_x, indices, updates)``: :func:`scatter_nd_update` (in place)."""

    @prim_attr_register
    def __init__(self, use_locking=True):
        pass

    def __call__(self, input_x, indices, updates):
        x, out = _nd_scatter(input_x, indices, updates, "update", "ScatterNdUpdate", min_rank=1)
        return _mutate(x, out, alias=False)


class TensorScatterElements(Primitive):
    """``TensorScatterElements(axis, reduction)(input_x, indices, updates)``: :func:`tensor_scatter_elements`."""

    @prim_attr_register
    def __init__(self, axis=0, reduction="none"):
        int_arg(axis, "axis", "TensorScatterElements")

    def __call__(self, input_x, indices, updates):
        return _scatter_elements(input_x, indices, updates, self.axis, self.reduction, "TensorScatterElements",
                                 ("input_x", "indices", "updates"))


class TensorScatterUpdate(Primitive):
    """``TensorScatterUpdate()(input_x, indices, updates)``: :func:`tensor_scatter_update`."""

    def __call__(self, input_x, indices, updates):
        return _nd_scatter(input_x, indices, updates, "update", "TensorScatterUpdate")[1]


# -- Tensor methods ------------------------------------------------------------------------------
def index_put(self, indices, values, accumulate=False, op="index_put"):
    """``self`` with ``values`` put at ``self[indices]`` (added there with ``accumulate=True``); a new tensor.

    ``indices`` is a tuple or list of 1-D int Tensors that broadcast together (fewer than
    ``self.ndim`` leaves the trailing axes whole); ``values`` is a 1-D Tensor of self's dtype
    broadcast over the picked elements.
    """
    x = tensor_arg(self, "self", op)
    if not isinstance(indices, (tuple, list)) or not indices or not all(isinstance(i, Tensor) for i in indices):
        raise TypeError(f"For '{op}', 'indices' must be a tuple or list of Tensors, but got {describe(indices)}")
    if not isinstance(accumulate, (bool, np.bool_)):
        raise TypeError(f"For '{op}', 'accumulate' must be a bool, but got {describe(accumulate)}")
    v = tensor_arg(values, "values", op)
    _same_dtype(x, v, op, ("self", "values"))
    if v.ndim != 1:
        raise ValueError(f"For '{op}', 'values' must be 1-D, but got shape {tuple(v.shape)}")
    if len(indices) > x.ndim:
        raise ValueError(f"For '{op}', 'indices' must hold at most one index tensor per dimension of "
                         f"{_shape_of('self', x)}, but got {len(indices)}")
    hosts = [_index_tensor(i, "indices", op)[1] for i in indices]
    try:
        hosts = np.broadcast_arrays(*hosts)
    except ValueError:
        raise ValueError(f"For '{op}', the index tensors of shapes {[h.shape for h in hosts]} cannot be "
                         "broadcast together") from None
    for axis, h in enumerate(hosts):
        n = x.shape[axis]
        _check_range(h, -n, n, op, "indices")
    positions = _grid(tuple(x.shape))[tuple(h for h in hosts)]
    try:
        spread = np.broadcast_to(np.arange(v.shape[0]), positions.shape)
    except ValueError:
        raise ValueError(f"For '{op}', 'values' of shape {tuple(v.shape)} cannot be broadcast to the "
                         f"{positions.shape} picked elements") from None
    picked = take_positions(v, _device(spread.reshape(-1)), None, (spread.size,), "IndexPut")
    return scatter_host(x, positions, picked, "add" if accumulate else "update", "IndexPut")


def _index(self, indices):
    """``self[indices[0], indices[1], ...]`` for a tuple or list of int Tensors (advanced indexing)."""
    if not isinstance(indices, (tuple, list)) or not all(isinstance(i, Tensor) for i in indices):
        raise TypeError(f"For 'index', 'indices' must be a tuple of Tensors, but got {describe(indices)}")
    x = tensor_arg(self, "self", "index")
    if len(indices) > x.ndim:
        raise ValueError(f"For 'index', 'indices' must hold at most one index tensor per dimension of "
                         f"{_shape_of('self', x)}, but got {len(indices)}")
    hosts = []
    for axis, i in enumerate(indices):
        _, h = _index_tensor(i, "indices", "index")
        _check_range(h, -x.shape[axis], x.shape[axis], "index", "indices")
        hosts.append(h)
    try:
        positions = _grid(tuple(x.shape))[tuple(hosts)]
    except IndexError as exc:
        raise ValueError(f"For 'index', the index tensors cannot be broadcast together: {exc}") from None
    return gather_host(x, positions, "Index")


def _masked_scatter(self, mask, source):
    """``self`` with the elements where ``mask`` (broadcast) is True taken, in order, from ``source``."""
    x = tensor_arg(self, "self", "masked_scatter")
    m = tensor_arg(mask, "mask", "masked_scatter")
    s = tensor_arg(source, "source", "masked_scatter")
    if m.dtype is not _dt.bool_:
        raise TypeError(f"For 'masked_scatter', 'mask' must be a bool Tensor, but got dtype {m.dtype}")
    _same_dtype(x, s, "masked_scatter", ("self", "source"))
    if m.ndim > x.ndim:
        raise TypeError(f"For 'masked_scatter', 'mask' of shape {tuple(m.shape)} must not have more dimensions "
                        f"than 'self' of shape {tuple(x.shape)}")
    try:
        host_mask = np.broadcast_to(np.asarray(_backend._current.to_host(m._data)), tuple(x.shape))
    except ValueError:
        raise ValueError(f"For 'masked_scatter', 'mask' of shape {tuple(m.shape)} cannot be broadcast to 'self' of "
                         f"shape {tuple(x.shape)}") from None
    positions = _grid(tuple(x.shape))[host_mask]
    if positions.size > s.size:
        raise ValueError(f"For 'masked_scatter', 'source' must hold at least as many elements as {_shape_of('mask', m)} "
                         f"has True entries ({positions.size}), but got {_shape_of('source', s)}")
    chosen = take_positions(s, _device(np.arange(positions.size, dtype=np.int64)), None, (positions.size,),
                            "MaskedScatter")
    return scatter_host(x, positions, chosen, "update", "MaskedScatter")


def _index_add_method(self, *args, **kwargs):
    """``index_add(indices, y, axis, ...)`` (MindSpore's first form) or ``index_add(dim, index, source, *, alpha=1)``.

    Both add into ``self`` in place, as MindSpore does, and return the result.
    """
    if (args and isinstance(args[0], Tensor)) or "indices" in kwargs:
        names = ("indices", "y", "axis", "use_lock", "check_index_bound")
        bound = dict(zip(names, args), **kwargs)
        return _index_add(self, bound["indices"], bound["y"], bound["axis"], "index_add")
    names = ("dim", "index", "source")
    bound = dict(zip(names, args), **kwargs)
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"For 'index_add', missing argument(s) {missing}")
    return _index_add(self, bound["index"], bound["source"], bound["dim"], "index_add",
                      ("self", "index", "source"), alpha=bound.get("alpha", 1))


def _index_select_method(self, axis=None, index=None, *, dim=None):
    return index_select(self, axis if dim is None else dim, index)


def _scatter_method(self, dim=None, index=None, src=None, *, axis=None, value=None, reduce=None):
    """``scatter(dim, index, src)`` (also ``axis=``; ``src`` may be a number; ``reduce='add'|'multiply'``)."""
    axis = dim if axis is None else axis
    if src is None:
        src = value
    return _scatter_elements(self, index, src, axis, "none" if reduce is None else reduce, "scatter",
                             ("self", "index", "src"))


def _scatter_add_method(self, *args, **kwargs):
    """``scatter_add(dim, index, src)`` (elementwise) or ``scatter_add(indices, updates)`` (index tuples)."""
    if (args and isinstance(args[0], Tensor)) or "indices" in kwargs:
        bound = dict(zip(("indices", "updates"), args), **kwargs)
        return tensor_scatter_add(self, bound["indices"], bound["updates"])
    bound = dict(zip(("dim", "index", "src"), args), **kwargs)
    return _scatter_elements(self, bound["index"], bound["src"], bound["dim"], "add", "scatter_add",
                             ("self", "index", "src"))


def _take_method(self, indices, axis=None, mode=None):
    """``take(index)`` (flat positions; negative count from the end) or ``take(indices, axis=None, mode='clip')``."""
    x = tensor_arg(self, "self", "take")
    _, idx = _index_tensor(indices, "indices", "take")
    if axis is None and mode is None:
        n = x.size
        _check_range(idx, -n, n, "take", "index")
        return gather_host(x, idx % max(n, 1), "Take")
    mode = "clip" if mode is None else mode
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"For 'take', 'mode' must be 'raise', 'wrap' or 'clip', but got {mode!r}")
    grid = _grid(tuple(x.shape))
    if axis is None:
        grid = grid.reshape(-1)
        axis = 0
    else:
        axis = normalize_axis(axis, x.ndim, "take", "axis")
    n = grid.shape[axis]
    if mode == "raise":
        _check_range(idx, -n, n, "take", "indices")
        idx = idx % max(n, 1)
    elif mode == "wrap":
        idx = idx % max(n, 1)
    else:
        idx = np.clip(idx, 0, max(n - 1, 0))
    return gather_host(x, np.take(grid, idx, axis=axis), "Take")


def _choose(self, choices, mode="clip"):
    """``out[i] = choices[self[i]][i]`` after broadcasting ``self`` and every choice together."""
    a, idx = _index_tensor(self, "self", "choose")
    if isinstance(choices, Tensor):
        choices = [choices[i] for i in range(choices.shape[0])]
    if not isinstance(choices, (tuple, list)) or not choices:
        raise TypeError(f"For 'choose', 'choices' must be a non-empty tuple, list or Tensor, but got "
                        f"{describe(choices)}")
    from .shape_ops import broadcast_to, stack
    cs = [tensor_arg(c, "choices", "choose") for c in choices]
    try:
        shape = tuple(np.broadcast_shapes(idx.shape, *(tuple(c.shape) for c in cs)))
    except ValueError:
        raise ValueError("For 'choose', 'self' and 'choices' cannot be broadcast to one shape: "
                         f"{[idx.shape] + [tuple(c.shape) for c in cs]}") from None
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"For 'choose', 'mode' must be 'raise', 'wrap' or 'clip', but got {mode!r}")
    n = len(cs)
    idx = np.broadcast_to(idx, shape)
    if mode == "raise":
        _check_range(idx, 0, n, "choose", "self")
    idx = idx % n if mode == "wrap" else np.clip(idx, 0, n - 1)
    stacked = stack([broadcast_to(c, shape) for c in cs])
    positions = idx * _size(shape) + _grid(shape)
    return gather_host(stacked, positions, "Choose")


def _scatter_nd_method(reduce):
    def method(self, indices, updates):
        return _nd_scatter(self, indices, updates, reduce, f"scatter_{reduce}")[1]

    method.__name__ = f"scatter_{reduce}"
    method.__doc__ = (f"A new tensor: ``self`` combined ({reduce}) with ``updates`` at the index tuples of "
                      "``indices`` (as ``ops.tensor_scatter_" + reduce + "``).")
    return method


def _gather_elements_method(self, dim, index):
    return gather_elements(self, dim, index)


def _masked_fill_method(self, mask, value):
    return masked_fill(self, mask, value)


def _masked_select_method(self, mask):
    return masked_select(self, mask)


def _index_fill_method(self, axis, index, value):
    return index_fill(self, axis, index, value)


def _gather_nd_method(self, indices):
    return gather_nd(self, indices)


# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops.
TENSOR_METHODS = {
    "inplace_update": inplace_update,
    "gather_elements": _gather_elements_method, "gather_nd": _gather_nd_method, "index": _index,
    "index_add": _index_add_method, "index_fill": _index_fill_method, "index_put": index_put,
    "index_select": _index_select_method, "masked_fill": _masked_fill_method,
    "masked_scatter": _masked_scatter, "masked_select": _masked_select_method, "scatter": _scatter_method,
    "scatter_add": _scatter_add_method, "scatter_div": _scatter_nd_method("div"),
    "scatter_max": _scatter_nd_method("max"), "scatter_min": _scatter_nd_method("min"),
    "scatter_mul": _scatter_nd_method("mul"), "scatter_sub": _scatter_nd_method("sub"),
    "take": _take_method, "choose": _choose,
}
