"""Shape ops: reshape, transpose, squeeze, concat, split, gather, indexing ...

All of them move values without changing them, so each gradient moves the
incoming gradient back the same way (a reshape back, an inverse
permutation, a scatter-add for gathers and fancy indexing).

>>> import cellkit as ms
>>> x = ms.Tensor([[1, 2, 3], [4, 5, 6]])
>>> transpose(x, (1, 0)).shape
(3, 2)
>>> [t.shape for t in split(x, 1, axis=0)]
[(1, 3), (1, 3)]
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor
from ..tensor import check_allocation
from ._core import _promote_pair, describe, int_arg, normalize_axis, record, tensor_arg, wrap, xp

__all__ = [
    "reshape", "transpose", "permute", "swapaxes", "expand_dims", "unsqueeze", "squeeze", "concat",
    "cat", "stack", "split", "gather", "flatten", "tile", "broadcast_to", "narrow", "getitem",
    "setitem", "unstack", "chunk", "take",
]


def _shape_arg(shape, op, name="shape"):
    """An int, a tuple/list of ints or an int Tensor as a tuple of ints (``-1`` stays; the op checks it)."""
    if isinstance(shape, Tensor):
        if _dt.dtype_of(tensor_arg(shape, name, op)._data).kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', '{name}' must hold ints, but got a Tensor of dtype {shape.dtype}")
        shape = shape.asnumpy().reshape(-1).tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of ints, but got {describe(shape)}")
    dims = tuple(int(d) for d in shape)
    if any(not -1 <= d < 2 ** 63 for d in dims):
        raise ValueError(f"For '{op}', '{name}' must hold sizes >= 0 (or -1), but got {dims}")
    return dims


def reshape(input, shape):
    """The same values in a new shape; one dimension may be ``-1``."""
    x = tensor_arg(input, "input", "reshape")
    arr = x._data
    new_shape = _shape_arg(shape, "reshape")
    try:
        out = xp().reshape(arr, new_shape)
    except (ValueError, TypeError):
        raise ValueError(
            f"For 'reshape', the input of shape {tuple(arr.shape)} ({x.size} elements) "
            f"cannot be reshaped to {new_shape}"
        ) from None
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "Reshape", _reshape_rule, (x,), info=tuple(arr.shape))


def _reshape_rule(m, node, g):
    return (m.reshape(g, node.info),)


def transpose(input, dims):
    """Permute the axes: ``dims[i]`` is the input axis that becomes axis ``i``."""
    x = tensor_arg(input, "input", "transpose")
    arr = x._data
    if isinstance(dims, int):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"For 'transpose', 'dims' must be a tuple of ints, but got {describe(dims)}")
    perm = tuple(normalize_axis(d, arr.ndim, "transpose", "dims") for d in dims)
    if sorted(perm) != list(range(arr.ndim)):
        raise ValueError(
            f"For 'transpose', 'dims' must be a permutation of the {arr.ndim} axes, but got {tuple(dims)}"
        )
    out = xp().permute_dims(arr, perm)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "Transpose", _transpose_rule, (x,), info=tuple(int(i) for i in np.argsort(perm)))


def _transpose_rule(m, node, g):
    """The gradient goes back through the inverse permutation."""
    return (m.permute(g, node.info),)


def permute(input, axis):
    """Same as :func:`transpose`."""
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    """Exchange two axes."""
    x = tensor_arg(input, "input", "swapaxes")
    n = x.ndim
    a0, a1 = normalize_axis(axis0, n, "swapaxes", "axis0"), normalize_axis(axis1, n, "swapaxes", "axis1")
    perm = list(range(n))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(x, tuple(perm))


def expand_dims(input_x, axis):
    """Insert a dimension of length 1 at ``axis``."""
    x = tensor_arg(input_x, "input_x", "expand_dims")
    n = x.ndim
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For 'expand_dims', 'axis' must be an int, but got {type(axis).__name__}")
    if not -n - 1 <= axis <= n:
        raise ValueError(f"For 'expand_dims', 'axis' must be in range [{-n - 1}, {n}], but got {axis}")
    axis = axis % (n + 1)
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, tuple(shape))


def unsqueeze(input, dim):
    """Same as :func:`expand_dims`."""
    return expand_dims(input, dim)


def squeeze(input, axis=None):
    """Remove dimensions of length 1 (all of them, or those in ``axis``)."""
    x = tensor_arg(input, "input", "squeeze")
    shape = x.shape
    if axis is None:
        new_shape = tuple(d for d in shape if d != 1)
    else:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
        if not isinstance(axes, (tuple, list)):
            raise TypeError(f"For 'squeeze', 'axis' must be an int or a tuple of ints, but got {describe(axis)}")
        axes = {normalize_axis(a, len(shape), "squeeze") for a in axes}
        # As in MindSpore (and NumPy's torch-like cousins), a named axis whose
        # length is not 1 is left alone rather than refused.
        new_shape = tuple(d for i, d in enumerate(shape) if i not in axes or d != 1)
    return reshape(x, new_shape)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Merge the axes ``start_dim .. end_dim`` into one (by default all but the batch axis)."""
    if order not in ("C", "F"):
        raise ValueError(f"For 'flatten', 'order' must be 'C' or 'F', but got {order!r}")
    x = tensor_arg(input, "input", "flatten")
    shape = x.shape
    if not shape:
        return reshape(x, (1,))
    start = normalize_axis(start_dim, len(shape), "flatten", "start_dim")
    end = normalize_axis(end_dim, len(shape), "flatten", "end_dim")
    if start > end:
        raise ValueError(f"For 'flatten', 'start_dim' {start_dim} must not come after 'end_dim' {end_dim}")
    if order == "F":
        x = transpose(x, tuple(reversed(range(len(shape)))))
        shape = x.shape
    merged = 1
    for d in shape[start:end + 1]:
        merged *= d
    return reshape(x, shape[:start] + (merged,) + shape[end + 1:])


def _tensor_list(tensors, op):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"For '{op}', 'tensors' must be a list or tuple of Tensors, but got {type(tensors).__name__}")
    if not tensors:
        raise ValueError(f"For '{op}', 'tensors' must not be empty")
    return [tensor_arg(t, "tensors", op) for t in tensors]


def _common_dtype_arrays(ts, op):
    """The tensors' arrays cast to one dtype by MindSpore's promotion rules."""
    arrays = [t._data for t in ts]
    first = _dt.dtype_of(arrays[0])
    if any(_dt.dtype_of(a) is not first for a in arrays):
        target = arrays[0]
        for a in arrays[1:]:
            target = _promote_pair(target, a, op)[0]
        arrays = [a if a.dtype == target.dtype else xp().astype(a, target.dtype) for a in arrays]
    return arrays


def concat(tensors, axis=0):
    """Join tensors along an existing axis."""
    ts = _tensor_list(tensors, "concat")
    arrays = _common_dtype_arrays(ts, "concat")
    axis = normalize_axis(axis, arrays[0].ndim, "concat")
    ref = arrays[0].shape
    before, after = ref[:axis], ref[axis + 1:]
    for a in arrays[1:]:
        shape = a.shape
        if len(shape) != len(ref) or shape[:axis] != before or shape[axis + 1:] != after:
            raise ValueError(
                f"For 'concat', all shapes must match except along axis {axis}, but got "
                f"{[tuple(t.shape) for t in arrays]}"
            )
    out = xp().concat(arrays, axis=axis)
    if _ag._depth == 0 or all(t._node is None for t in ts):
        return wrap(out)
    info = (axis, tuple(a.shape[axis] for a in arrays), tuple(t._data.dtype for t in ts))
    return record(out, "Concat", _concat_rule, ts, info=info)


def _concat_rule(m, node, g):
    """Each input gets its own slice of the gradient back."""
    axis, sizes, dtypes = node.info
    grads, start = [], 0
    for size, dt, parent in zip(sizes, dtypes, node.inputs):
        if parent is not None:
            grads.append(m.astype(g[(slice(None),) * axis + (slice(start, start + size), Ellipsis)], dt))
        else:
            grads.append(None)
        start += size
    return tuple(grads)


cat = concat


def stack(tensors, axis=0):
    """Join tensors of one shape along a new axis."""
    ts = _tensor_list(tensors, "stack")
    shapes = {t.shape for t in ts}
    if len(shapes) != 1:
        raise ValueError(f"For 'stack', all tensors must have the same shape, but got {[t.shape for t in ts]}")
    n = ts[0].ndim
    axis = int_arg(axis, "axis", "stack")
    if not -n - 1 <= axis <= n:
        raise ValueError(f"For 'stack', 'axis' must be in range [{-n - 1}, {n}], but got {axis}")
    axis = axis % (n + 1)
    arrays = _common_dtype_arrays(ts, "stack")
    out = xp().stack(arrays, axis=axis)
    if _ag._depth == 0 or all(t._node is None for t in ts):
        return wrap(out)
    return record(out, "Stack", _stack_rule, ts, info=(axis, tuple(t._data.dtype for t in ts)))


def _stack_rule(m, node, g):
    """Input ``i`` gets the gradient's slice ``i`` along the new axis back."""
    axis, dtypes = node.info
    lead = (slice(None),) * axis
    return tuple(None if parent is None else m.astype(g[lead + (i, Ellipsis)], dt)
                 for i, (dt, parent) in enumerate(zip(dtypes, node.inputs)))


def split(tensor, split_size_or_sections, axis=0):
    """Cut a tensor into pieces along ``axis``.

    ``split_size_or_sections`` is either the size of every piece (the last
    may be smaller) or a list of piece sizes that add up to the axis length.
    """
    x = tensor_arg(tensor, "tensor", "split")
    if not x.ndim:
        raise ValueError("For 'split', 'tensor' must have at least 1 dimension, but got a scalar (shape ())")
    axis = normalize_axis(axis, x.ndim, "split")
    length = x.shape[axis]
    sections = split_size_or_sections
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        size = int(sections)
        if size <= 0:
            raise ValueError(f"For 'split', the split size must be positive, but got {size}")
        sections = [size] * (length // size) + ([length % size] if length % size else [])
    else:
        if not isinstance(sections, (tuple, list)) or any(
                isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in sections):
            raise TypeError(f"For 'split', 'split_size_or_sections' must be a positive int or a list of "
                            f"non-negative ints, but got {describe(sections)}")
        sections = [int(s) for s in sections]
        if sum(sections) != length:
            raise ValueError(
                f"For 'split', the sections {sections} must add up to the length {length} of axis {axis}"
            )
    pieces, start = [], 0
    for size in sections:
        index = (slice(None),) * axis + (slice(start, start + size),)
        pieces.append(getitem(x, index))
        start += size
    return tuple(pieces)


def chunk(input, chunks, axis=0):
    """Split into ``chunks`` pieces of (nearly) equal size."""
    x = tensor_arg(input, "input", "chunk")
    if not x.ndim:
        raise ValueError("For 'chunk', 'input' must have at least 1 dimension, but got a scalar (shape ())")
    length = x.shape[normalize_axis(axis, x.ndim, "chunk")]
    chunks = int_arg(chunks, "chunks", "chunk", minimum=1)
    size = max(-(-length // chunks), 1)
    return split(x, size, axis)


def unstack(input_x, axis=0):
    """Split along ``axis`` into tensors that no longer have that axis."""
    x = tensor_arg(input_x, "input_x", "unstack")
    if not x.ndim:
        raise ValueError("For 'unstack', 'input_x' must have at least 1 dimension, but got a scalar (shape ())")
    axis = normalize_axis(axis, x.ndim, "unstack")
    return tuple(getitem(x, (slice(None),) * axis + (i,)) for i in range(x.shape[axis]))


def narrow(input, axis, start, length):
    """The slice ``start : start + length`` along ``axis``."""
    x = tensor_arg(input, "input", "narrow")
    axis = normalize_axis(axis, x.ndim, "narrow")
    size = x.shape[axis]
    start = int_arg(start, "start", "narrow")
    length = int_arg(length, "length", "narrow")
    begin = start % size if size and start < 0 else start
    if not -size <= start <= size or not 0 <= length <= size - begin:
        raise ValueError(f"For 'narrow', 'start' {start} and 'length' {length} must pick a slice within axis {axis} "
                         f"of 'input' of shape {tuple(x.shape)} (its length is {size})")
    start = begin
    return getitem(x, (slice(None),) * axis + (slice(start, start + length),))


def tile(input, dims):
    """Repeat the tensor ``dims[i]`` times along axis ``i``."""
    x = tensor_arg(input, "input", "tile")
    reps = _shape_arg(dims, "tile", "dims")
    if any(r < 0 for r in reps):
        raise ValueError(f"For 'tile', 'dims' must hold non-negative repeats, but got {reps}")
    arr = x._data
    if len(reps) < arr.ndim:
        reps = (1,) * (arr.ndim - len(reps)) + reps
    full = tuple(a * b for a, b in zip((1,) * (len(reps) - arr.ndim) + tuple(arr.shape), reps))
    check_allocation(full, x.dtype, "tile", f"'dims' {reps}")
    xs = xp()
    base = xs.reshape(arr, (1,) * (len(reps) - arr.ndim) + tuple(arr.shape))
    out = xs.tile(base, reps)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "Tile", _tile_rule, (x,), info=(reps, tuple(base.shape), tuple(arr.shape)))


def _tile_rule(m, node, g):
    """Fold each repeated axis into (repeats, size) and sum the repeats away."""
    reps, base_shape, shape = node.info
    folded = []
    for r, d in zip(reps, base_shape):
        folded += [r, d]
    g = m.sum(m.reshape(g, tuple(folded)), axis=tuple(range(0, 2 * len(reps), 2)))
    return (m.reshape(g, shape),)


def broadcast_to(input, shape):
    """Broadcast to ``shape`` (``-1`` keeps a dimension)."""
    x = tensor_arg(input, "input", "broadcast_to")
    arr = x._data
    target = list(_shape_arg(shape, "broadcast_to"))
    offset = len(target) - arr.ndim
    if offset < 0:
        raise ValueError(f"For 'broadcast_to', cannot broadcast shape {tuple(arr.shape)} to fewer dimensions {tuple(target)}")
    for i, d in enumerate(target):
        if d == -1:
            if i < offset:
                raise ValueError(f"For 'broadcast_to', -1 is not allowed at a new leading axis: {tuple(target)}")
            target[i] = arr.shape[i - offset]
    try:
        out = xp().broadcast_to(arr, tuple(target))
    except (ValueError, RuntimeError):
        raise ValueError(f"For 'broadcast_to', the shape {tuple(arr.shape)} cannot be broadcast to {tuple(target)}") from None
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "BroadcastTo", _broadcast_to_rule, (x,), info=tuple(arr.shape))


def _broadcast_to_rule(m, node, g):
    return (m.sum_to(g, node.info),)


# -- gathering and indexing ------------------------------------------------------
def scatter_add_rows(rows, index, length):
    """Sum ``rows[i]`` into row ``index[i]`` of a zero Tensor with ``length`` rows.

    The adjoint of gathering rows: it is what a gather's gradient does, and
    its own gradient gathers again (so gathers differentiate to any order).
    ``index`` is a 1-D integer Tensor or array.

    >>> import cellkit as ms
    >>> print(scatter_add_rows(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0, 2, 0]), 3))
    [4. 0. 2.]
    """
    r = tensor_arg(rows, "rows", "scatter_add_rows")
    idx = index._data if isinstance(index, Tensor) else index
    out = _backend._current.scatter_add_rows(r._data, idx, length)
    if _ag._depth == 0 or r._node is None:
        return wrap(out)
    return record(out, "ScatterAddRows", _scatter_add_rows_rule, (r,), (idx,), (None,))


def _scatter_add_rows_rule(m, node, g):
    (index,) = node.unpack(m)
    return (m.take(g, index, 0),)


def _int_index_array(indices, op, name="input_indices"):
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
        indices = int_arg(indices, name, op)
        arr = _backend._current.asarray(indices, dtype=_dt.int64.to_backend(xp()))
    else:
        arr = tensor_arg(indices, name, op)._data
    kind = _dt.dtype_of(arr).kind
    if kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', the indices must be integers, but got {_dt.dtype_of(arr)}")
    return arr


class IndexValueError(ValueError, RuntimeError):
    """An index value outside its axis.

    MindSpore's kernels raise RuntimeError for it; cellkit's shape ops said ValueError first.
    Being both, it satisfies code written against either.
    """


def gather(input_params, input_indices, axis, batch_dims=0):
    """Pick slices of ``input_params`` along ``axis`` at ``input_indices``.

    The result's shape is ``params.shape[:axis] + indices.shape + params.shape[axis+1:]``.
    Indices must lie in ``[0, params.shape[axis])``.
    """
    if batch_dims != 0:
        raise NotImplementedError("For 'gather', cellkit supports only batch_dims=0")
    x = tensor_arg(input_params, "input_params", "gather")
    index = _int_index_array(input_indices, "gather")
    arr = x._data
    if not arr.ndim:
        raise ValueError("For 'gather', 'input_params' must have at least 1 dimension, but got a scalar (shape ())")
    axis = normalize_axis(axis, arr.ndim, "gather")
    length = arr.shape[axis]
    xs = xp()
    flat_index = xs.reshape(index, (-1,))
    if flat_index.shape[0]:
        # Reading two numbers back is the one explicit host transfer gather needs.
        to_host = _backend._current.to_host
        lo, hi = int(to_host(xs.min(flat_index))), int(to_host(xs.max(flat_index)))
        if lo < 0 or hi >= length:
            raise IndexValueError(
                f"For 'gather', indices must be in [0, {length}) for axis {axis} of shape {tuple(arr.shape)}, "
                f"but got values from {lo} to {hi}"
            )
    taken = xs.take(arr, xs.astype(flat_index, _dt.int64.to_backend(xs)), axis=axis)
    out_shape = tuple(arr.shape[:axis]) + tuple(index.shape) + tuple(arr.shape[axis + 1:])
    out = xs.reshape(taken, out_shape)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "Gather", _gather_rule, (x,), (flat_index,), (None,), (axis, length, tuple(taken.shape)))


def _gather_rule(m, node, g):
    """The gathered rows' gradients are added back into the rows they came from."""
    (flat_index,) = node.unpack(m)
    axis, length, taken_shape = node.info
    moved = m.moveaxis(m.reshape(g, taken_shape), axis, 0)
    return (m.moveaxis(m.scatter_add_rows(moved, flat_index, length), 0, axis),)


def take(input, index, axis=None):
    """The elements of ``input`` at ``index``, counting through the flattened tensor (``axis=None``).

    Negative indices count from the end.  With an ``axis`` (a cellkit extension, as
    ``numpy.take``) whole slices along it are gathered.

    >>> import cellkit as ms
    >>> print(take(ms.Tensor([[4.0, 3.0, 5.0], [6.0, 7.0, 8.0]]), ms.Tensor([0, 2, -1])))
    [4. 5. 8.]
    """
    x = tensor_arg(input, "input", "take")
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        index = Tensor(np.asarray(int_arg(index, "index", "take"), dtype=np.int64))
    idx = tensor_arg(index, "index", "take")
    if _dt.dtype_of(idx._data).kind not in ("int", "uint"):
        raise TypeError(f"For 'take', 'index' must be an int Tensor, but got dtype {idx.dtype}")
    flat = reshape(x, (-1,)) if axis is None else x
    axis = 0 if axis is None else normalize_axis(axis, x.ndim, "take")
    length = flat.shape[axis] if flat.ndim else 1
    host = _backend._current.to_host(idx._data)
    if host.size and (host.min() < -length or host.max() >= length):
        raise IndexValueError(f"For 'take', 'index' must be in [{-length}, {length}) for 'input' of shape "
                         f"{tuple(x.shape)}, but got values from {int(host.min())} to {int(host.max())}")
    if host.size and host.min() < 0:
        idx = wrap(_backend._current.from_host(np.asarray(host % length)))
    return gather(flat, idx, axis)


def _index_key(key):
    """Turn Tensors, lists and NumPy arrays inside an index into backend arrays.

    Returns ``(key, basic)`` where ``basic`` says only ints, slices, None and
    Ellipsis are used (so the key picks each element at most once).
    """
    parts = key if isinstance(key, tuple) else (key,)
    converted, basic = [], True
    for part in parts:
        if isinstance(part, Tensor):
            if part.ndim == 0 and _dt.dtype_of(part._data).kind in ("int", "uint"):
                converted.append(int(part.item()))
                continue
            converted.append(part._data)
            basic = False
        elif isinstance(part, (list, np.ndarray)):
            host = np.asarray(part)
            if host.size == 0:
                host = host.astype(np.int64)  # an empty list picks nothing (NumPy reads it as integers)
            converted.append(Tensor(host)._data)
            basic = False
        elif isinstance(part, bool):
            converted.append(part)
            basic = False
        elif isinstance(part, (int, np.integer)):
            if not -2 ** 63 <= int(part) < 2 ** 63:
                raise IndexError(f"index {int(part)} is out of range (beyond Int64)")
            converted.append(int(part))
        elif part is None or part is Ellipsis or isinstance(part, slice):
            converted.append(part)
        else:
            raise TypeError(
                "Tensor index: indices must be ints, slices, None, Ellipsis, lists or Tensors, "
                f"but got {type(part).__name__}"
            )
    if basic and not _backend._current.is_numpy and not any(p is Ellipsis for p in converted):
        # The array API wants every axis indexed; a trailing ``...`` says "the rest".
        converted.append(Ellipsis)
        return tuple(converted), basic
    return (tuple(converted) if isinstance(key, tuple) else converted[0]), basic


def _basic_shape(shape, key):
    """The shape ``array[key]`` has, for a key of ints, slices and one Ellipsis."""
    explicit = sum(1 for p in key if p is not Ellipsis)
    dims, out, i = list(shape), [], 0
    for part in key:
        if part is Ellipsis:
            span = len(dims) - explicit
            out.extend(dims[i:i + span])
            i += span
        elif isinstance(part, slice):
            out.append(len(range(*part.indices(dims[i]))))
            i += 1
        else:  # an int drops its axis
            i += 1
    return tuple(out + dims[i:])


def _host_key(key):
    """``key`` with every index array brought to the host (explicitly), for NumPy's rules."""
    parts = key if isinstance(key, tuple) else (key,)
    converted = []
    for part in parts:
        if isinstance(part, Tensor):
            part = part.asnumpy()
        elif isinstance(part, list):
            part = np.asarray(part)
            if part.size == 0:
                part = part.astype(np.int64)
        converted.append(part)
    return tuple(converted) if isinstance(key, tuple) else converted[0]


def _is_whole_array_key(index):
    """One index array (integers or a mask) that the array API can apply as it is."""
    return hasattr(index, "dtype") and hasattr(index, "shape")


# Index parts NumPy applies as they are, each element picked at most once (a "basic" key).
_BASIC_PARTS = frozenset((int, slice, type(None), type(Ellipsis)))


def getitem(input, key):
    """``input[key]`` with NumPy's indexing rules, differentiable (the gradient is scattered back).

    On NumPy the key is applied directly.  Array-API devices (CuPy, the strict
    test device) apply basic keys, one integer array and one boolean mask
    directly; other advanced keys (an index array beside slices ...) are
    resolved on the host into flat positions and gathered on the device.
    The backward of picking is putting back (:func:`_index_put`), whose own
    backward picks again: indexing differentiates to any order.
    """
    kind = type(key)
    if (kind in _BASIC_PARTS or kind is tuple and all(type(part) in _BASIC_PARTS for part in key)) \
            and _backend._current.is_numpy and isinstance(input, Tensor) and input._data is not None:
        # ``x[3]``, ``x[:, 1:5]`` in a student's loop: NumPy applies a basic key as it is, so skip
        # the key conversion and the plan (the same result as the general path below, much sooner).
        arr = input._data
        try:
            out = arr[key]
        except (IndexError, OverflowError) as exc:  # OverflowError: an int beyond Int64
            raise IndexError(f"index {key!r} is out of bounds for a tensor of shape {tuple(arr.shape)}: {exc}") from None
        if _ag._depth == 0 or input._node is None:
            return wrap(out)
        return record(out, "Getitem", _getitem_rule, (input,), info=(tuple(arr.shape), _IndexPlan("basic", key)))
    x = tensor_arg(input, "input", "getitem")
    arr = x._data
    be = _backend._current
    index, basic = _index_key(key)
    if be.is_numpy:
        plan = _IndexPlan("basic" if basic else "add", index)
    elif basic:
        plan = _IndexPlan("basic", index)
    elif _is_whole_array_key(index) and _dt.dtype_of(index) is _dt.bool_:
        plan = _IndexPlan("mask", index)  # a mask must be the sole index in the array API
    elif _is_whole_array_key(index) and arr.ndim:
        # One integer array picks rows: the array API spells that ``take``.
        xs = be.xp
        try:
            return gather(x, wrap(xs.where(index < 0, index + arr.shape[0], index)), 0)
        except ValueError as exc:
            raise IndexError(f"index {key!r} is out of bounds for a tensor of shape {tuple(arr.shape)}: {exc}") from None
    else:
        try:
            positions = np.arange(int(np.prod(arr.shape)), dtype=np.int64).reshape(arr.shape)[_host_key(key)]
        except IndexError as exc:
            raise IndexError(f"index {key!r} is out of bounds for a tensor of shape {tuple(arr.shape)}: {exc}") from None
        plan = _IndexPlan("positions", be.from_host(positions.reshape(-1)), positions.shape)
    try:
        out = plan.pick(arr)
    except (IndexError, OverflowError) as exc:
        raise IndexError(f"index {key!r} is out of bounds for a tensor of shape {tuple(arr.shape)}: {exc}") from None
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "Getitem", _getitem_rule, (x,), info=(tuple(arr.shape), plan))


class _IndexPlan:
    """How a key picks elements on this backend, and how to put gradients back there.

    ``mode``: ``'basic'`` (ints, slices: every element at most once),
    ``'add'`` (NumPy advanced indexing: repeats add up), ``'mask'`` (one
    boolean array) or ``'positions'`` (flat positions resolved on the host,
    ``key`` is then a 1-D position array and ``shape`` the result's shape).
    """

    __slots__ = ("mode", "key", "shape")

    def __init__(self, mode, key, shape=None):
        self.mode, self.key, self.shape = mode, key, shape

    def pick(self, arr):
        if self.mode == "positions":
            xs = xp()
            return xs.reshape(xs.take(xs.reshape(arr, (-1,)), self.key, axis=0), self.shape)
        return arr[self.key]

    def put(self, g, shape):
        """Zeros of ``shape`` holding ``g`` where the key picks (added where it picks twice)."""
        be = _backend._current
        xs = be.xp
        if self.mode == "positions":
            size = int(np.prod(shape))
            return xs.reshape(be.scatter_add_rows(xs.reshape(g, (-1,)), self.key, size), shape)
        if be.is_numpy:
            grad = np.zeros(shape, dtype=g.dtype)
            if self.mode == "add":
                np.add.at(grad, self.key, g)
            else:
                grad[self.key] = g
            return grad
        grad = xs.zeros(shape, dtype=g.dtype, device=be.device)
        if self.mode == "basic":
            # The array API refuses ``None`` when assigning: drop the new axes
            # (all of length 1) from both the key and the gradient.
            target = tuple(p for p in self.key if p is not None)
            grad[target] = g if len(target) == len(self.key) else xs.reshape(g, _basic_shape(shape, target))
        else:
            grad[self.key] = g
        return grad


def _getitem_rule(m, node, g):
    shape, plan = node.info
    return (m.call(plan.put, lambda t, s: _index_put(t, s, plan), g, shape),)


def _index_put(g, shape, plan):
    """The gradient of picking ``plan`` from a tensor of ``shape``, as an op (its gradient picks again)."""
    out = plan.put(g._data, shape)
    if _ag._depth == 0 or g._node is None:
        return wrap(out)
    return record(out, "IndexPut", _index_put_rule, (g,), info=plan)


def _index_put_rule(m, node, g):
    plan = node.info
    return (m.call(plan.pick, lambda t: _index_pick(t, plan), g),)


def _index_pick(x, plan):
    """Pick ``plan`` from Tensor ``x`` (getitem with a key already resolved)."""
    out = plan.pick(x._data)
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    return record(out, "Getitem", _getitem_rule, (x,), info=(tuple(x.shape), plan))


def setitem(input, key, value):
    """``input[key] = value`` in place (outside gradient recording only)."""
    x = tensor_arg(input, "input", "setitem")
    if _ag._depth and x._node is not None:
        raise RuntimeError("cannot assign into a tensor that a gradient transform is recording; use ops.where")
    index, _ = _index_key(key)
    if isinstance(value, Tensor):
        v = tensor_arg(value, "value", "setitem")._data
        if v.dtype != x._data.dtype:
            v = xp().astype(v, x._data.dtype)
    elif isinstance(value, (bool, int, float, np.number, np.bool_)) and _backend._current.is_numpy:
        v = value
    else:
        v = tensor_arg(value, "value", "setitem")._data
        v = xp().astype(v, x._data.dtype) if v.dtype != x._data.dtype else v
    try:
        x._data[index] = v
    except IndexError as exc:
        raise IndexError(f"index {key!r} is out of bounds for a tensor of shape {tuple(x.shape)}: {exc}") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"For 'setitem', 'value' {describe(value)} cannot be assigned to index {key!r} of a "
                         f"tensor of shape {tuple(x.shape)} and dtype {x.dtype}: {exc}") from None
    return x
