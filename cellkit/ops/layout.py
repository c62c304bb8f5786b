"""Arranging tensors: stacking and splitting variants, diagonals, flips and rotations, padding, windows.

Almost every op here only moves values.  Each one works out, on the host and from the
shapes alone, *which input element lands where* -- an integer array of flat positions with
the output's shape (``-1`` where the output holds a fill value: padding, off-diagonal
zeros) -- and then gathers with :func:`cellkit.ops.indexing.take_positions`, whose backward
scatters the gradient back (and whose backward's backward gathers again).  The position
plans depend only on shapes and arguments, so they are cached.  A plan is easy to read:
``np.flip(np.arange(6).reshape(2, 3), 1)`` *is* the plan of ``flip(x, (1,))``.

>>> import cellkit as ms
>>> x = ms.Tensor([[1, 2, 3], [4, 5, 6]])
>>> print(flip(x, (1,)))
[[3 2 1]
 [6 5 4]]
>>> print(pad(x, (1, 0), value=9))
[[9 1 2 3]
 [9 4 5 6]]
"""
from __future__ import annotations

import functools
import itertools
import math
import numbers

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor, check_allocation
from . import math as _math
from . import reduce as _reduce
from . import shape_ops as _shape
from ._core import bool_arg, describe, int_arg, normalize_axis, tensor_arg, wrap

_wrap = wrap
from .indexing import _device, _grid, _index_tensor, _size, gather_host, put_positions, scatter_host
from .primitive import Primitive, prim_attr_register

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "cartesian_prod", "column_stack", "row_stack",
    "hstack", "vstack", "dstack", "hsplit", "vsplit", "dsplit", "tensor_split", "unbind", "diag", "diag_embed",
    "diagflat", "diagonal", "diagonal_scatter", "flip", "fliplr", "flipud", "rot90", "roll", "moveaxis", "movedim",
    "swapdims", "t", "ravel", "repeat_elements", "repeat_interleave", "reverse", "reverse_sequence", "select",
    "select_scatter", "slice", "slice_scatter", "strided_slice", "tensor_slice", "tril", "triu", "meshgrid",
    "unfold", "fold", "col2im", "pad", "mirror_pad", "space_to_batch_nd", "batch_to_space_nd", "numel", "rank",
    "size", "shape_", "dyn_shape", "dtype", "matrix_diag", "matrix_diag_part", "combinations", "vander",
    "Col2Im", "DepthToSpace", "SpaceToDepth", "DiagPart", "FillDiagonal", "Im2Col", "InvertPermutation",
    "MatrixDiagPartV3", "MatrixDiagV3", "Meshgrid", "MirrorPad", "Pad", "PadV3", "ReverseSequence", "Slice",
    "SpaceToBatchND", "Tril", "TensorShape", "TensorToTuple", "UnravelIndex", "Unstack", "IdentityN",
]

_py_slice = slice  # ``slice`` is also an op of this module


# -- plans: which input element lands where --------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _cached(plan, shape, key):
    positions = np.asarray(plan(shape, *key), dtype=np.int64)
    positions.setflags(write=False)
    return positions


def _rearrange(x, op, plan, *key, fill=None):
    """Gather ``x`` by ``plan(x.shape, *key)`` (positions; ``-1`` holds ``fill``, 0 when None)."""
    positions = _cached(plan, tuple(x.shape), key)
    valid = positions >= 0
    out = gather_host(x, positions, op, None if valid.all() else valid)
    if fill is None or valid.all():
        return out
    return _fill_where(out, valid, fill)


def _fill_where(out, valid, fill):
    """``out`` where ``valid``, else ``fill`` (a number or a Tensor, differentiable), in out's dtype."""
    if isinstance(fill, Tensor):
        fill = fill if fill.dtype is out.dtype else _cast(fill, out.dtype)
    elif fill == 0 and not isinstance(fill, (bool, np.bool_)):
        return out  # the gather already put zeros there
    else:
        fill = wrap_value(fill, out.dtype)
    return _math.where(wrap(_device(valid)), out, fill)


def _cast(t, dtype):
    from .creation import cast
    return cast(t, dtype)


def _ints(value, name, op, length=None, allow_int=True):
    """An int (if allowed, repeated to ``length``) or a tuple/list of ints, as a tuple."""
    if allow_int and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int_arg(value, name, op),) * (length or 1)
    if isinstance(value, Tensor) and _dt.dtype_of(value._data).kind in ("int", "uint") and value.ndim <= 1:
        value = tuple(int(v) for v in np.asarray(value.asnumpy()).reshape(-1))
    if not isinstance(value, (tuple, list)) or any(isinstance(v, bool) or not isinstance(v, (int, np.integer))
                                                   for v in value):
        kind = "an int or a tuple of ints" if allow_int else "a tuple or list of ints"
        raise TypeError(f"For '{op}', '{name}' must be {kind}, but got {describe(value)}")
    value = tuple(int_arg(v, name, op) for v in value)
    if length is not None and len(value) == 1 and length > 1:
        return value * length
    if length is not None and len(value) != length:
        raise ValueError(f"For '{op}', '{name}' must hold {length} ints, but got {value}")
    return value


def _tensors(tensors, op, name="tensors"):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(f"For '{op}', '{name}' must be a list or tuple of Tensors, but got {describe(tensors)}")
    if not tensors:
        raise ValueError(f"For '{op}', '{name}' must not be empty")
    return [tensor_arg(t, name, op) for t in tensors]


# -- at least n dimensions, stacking -------------------------------------------------------------
def _atleast(inputs, n, op):
    def one(t):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{op}', 'inputs' must be a Tensor or a list of Tensors, but got {describe(t)}")
        t = tensor_arg(t, "inputs", op)
        shape = tuple(t.shape)
        if len(shape) >= n:
            return t
        if n == 1 or len(shape) == 0:
            return _shape.reshape(t, (1,) * (n - len(shape)) + shape)
        if n == 2 or len(shape) == 1:
            new = (1,) + shape if n == 2 else (1,) + shape + (1,)
            return _shape.reshape(t, new)
        return _shape.reshape(t, shape + (1,))

    if isinstance(inputs, (tuple, list)):
        return tuple(one(t) for t in inputs)
    return one(inputs)


def atleast_1d(inputs):
    """Tensors with at least one dimension (a 0-D tensor becomes shape (1,)); a list gives a tuple.

    >>> import cellkit as ms
    >>> atleast_1d(ms.Tensor(1.5)).shape
    (1,)
    """
    return _atleast(inputs, 1, "atleast_1d")


def atleast_2d(inputs):
    """Tensors with at least two dimensions: ``(n,)`` becomes ``(1, n)``."""
    return _atleast(inputs, 2, "atleast_2d")


def atleast_3d(inputs):
    """Tensors with at least three dimensions: ``(n,)`` becomes ``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``."""
    return _atleast(inputs, 3, "atleast_3d")


def _join(pieces, axis, op, given):
    """``concat`` of ``pieces``; a mismatch is reported with the shapes the caller gave."""
    try:
        return _shape.concat(pieces, axis)
    except ValueError:
        raise ValueError(f"For '{op}', the tensors must match except along the joined axis, but got shapes "
                         f"{[tuple(t.shape) for t in given]}") from None


def hstack(tensors):
    """Join along the second axis (the first, for 1-D tensors).

    >>> import cellkit as ms
    >>> print(hstack([ms.Tensor([1, 2]), ms.Tensor([3])]))
    [1 2 3]
    """
    ts = _tensors(tensors, "hstack")
    made = [_atleast(t, 1, "hstack") for t in ts]
    return _join(made, 0 if made[0].ndim == 1 else 1, "hstack", ts)


def vstack(inputs):
    """Join along the first axis, 1-D tensors as rows."""
    ts = _tensors(inputs, "vstack", "inputs")
    return _join([_atleast(t, 2, "vstack") for t in ts], 0, "vstack", ts)


def row_stack(tensors):
    """Same as :func:`vstack`."""
    ts = _tensors(tensors, "row_stack")
    return _join([_atleast(t, 2, "row_stack") for t in ts], 0, "row_stack", ts)


def dstack(tensors):
    """Join along the third axis (after making every tensor at least 3-D)."""
    ts = _tensors(tensors, "dstack")
    return _join([_atleast(t, 3, "dstack") for t in ts], 2, "dstack", ts)


def column_stack(tensors):
    """Join 1-D tensors as columns (and 2-D ones along their columns)."""
    ts = _tensors(tensors, "column_stack")
    cols = []
    for t in ts:
        if t.ndim == 0:
            t = _shape.reshape(t, (1, 1))
        elif t.ndim == 1:
            t = _shape.reshape(t, (t.shape[0], 1))
        cols.append(t)
    return _join(cols, 1, "column_stack", ts)


def _flat_join(ts, op):
    """One 1-D tensor of all the tensors' values (promoted to one dtype), and each one's offset."""
    flats = [_shape.reshape(t, (-1,)) for t in ts]
    offsets = np.cumsum([0] + [t.size for t in ts])[:-1]
    return _shape.concat(flats, 0), offsets


def block_diag(*inputs):
    """A block-diagonal matrix of the given 0-, 1- or 2-D tensors (a 1-D tensor is one row).

    >>> import cellkit as ms
    >>> print(block_diag(ms.Tensor([[1, 2]]), ms.Tensor([3])))
    [[1 2 0]
     [0 0 3]]
    """
    if not inputs:
        raise RuntimeError("For 'block_diag', the input is empty: give at least one Tensor")
    ts = [tensor_arg(t, "inputs", "block_diag") for t in inputs]
    shapes = []
    for t in ts:
        if t.ndim > 2:
            raise ValueError(f"For 'block_diag', the dimension of each element in 'inputs' must be 0, 1, or 2, "
                             f"but got shape {tuple(t.shape)}")
        shapes.append((1, 1) if t.ndim == 0 else (1, t.shape[0]) if t.ndim == 1 else tuple(t.shape))
    joined, offsets = _flat_join(ts, "block_diag")
    rows, cols = sum(s[0] for s in shapes), sum(s[1] for s in shapes)
    positions = np.full((rows, cols), -1, np.int64)
    r = c = 0
    for (h, w), off in zip(shapes, offsets):
        positions[r:r + h, c:c + w] = off + np.arange(h * w).reshape(h, w)
        r, c = r + h, c + w
    valid = positions >= 0
    return gather_host(joined, positions, "BlockDiag", None if valid.all() else valid)


def cartesian_prod(*inputs):
    """Every combination of one element from each 1-D input, as rows of a 2-D tensor.

    >>> import cellkit as ms
    >>> print(cartesian_prod(ms.Tensor([1, 2]), ms.Tensor([3, 4])))
    [[1 3]
     [1 4]
     [2 3]
     [2 4]]
    """
    ts = [tensor_arg(t, "inputs", "cartesian_prod") for t in inputs]
    if not ts:
        raise ValueError("For 'cartesian_prod', give at least one Tensor")
    _same_dtypes(ts, "cartesian_prod")
    for t in ts:
        if t.ndim != 1:
            raise ValueError(f"For 'cartesian_prod', every input must be 1-D, but got shape {tuple(t.shape)}")
    joined, offsets = _flat_join(ts, "cartesian_prod")
    grids = np.meshgrid(*[off + np.arange(t.shape[0]) for t, off in zip(ts, offsets)], indexing="ij")
    positions = np.stack([g.reshape(-1) for g in grids], axis=1)
    return gather_host(joined, positions, "CartesianProd")


def _same_dtypes(ts, op):
    if any(t.dtype is not ts[0].dtype for t in ts):
        raise ValueError(f"For '{op}', all tensors should have the same type, but got "
                         f"{[str(t.dtype) for t in ts]}")


# -- splitting -----------------------------------------------------------------------------------
def tensor_split(input, indices_or_sections, axis=0):
    """Split into ``n`` nearly equal parts (an int) or at the given indices (a tuple or list).

    With ``n`` parts the first ``length % n`` have one element more, as ``numpy.array_split``.

    >>> import cellkit as ms
    >>> [p.shape for p in tensor_split(ms.Tensor([1, 2, 3, 4, 5]), 3)]
    [(2,), (2,), (1,)]
    """
    return _tensor_split(input, indices_or_sections, axis, "tensor_split")


def _tensor_split(input, indices_or_sections, axis, op):
    x = tensor_arg(input, "input", op)
    if x.ndim == 0:
        raise ValueError(f"For '{op}', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {describe(axis)}")
    axis = normalize_axis(axis, x.ndim, op, "axis")
    length = x.shape[axis]
    sections = indices_or_sections
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        n = int_arg(sections, "indices_or_sections", op, maximum=2 ** 31 - 1)
        if n <= 0:
            raise ValueError(f"For '{op}', the value of 'indices_or_sections' must be more than zero but got {n}")
        size, extra = divmod(length, n)
        bounds = np.cumsum([0] + [size + 1] * extra + [size] * (n - extra))
        cuts = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
    elif isinstance(sections, (tuple, list)) and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sections):
        points = [0] + [int(s) for s in sections] + [length]
        cuts = []
        for a, b in zip(points[:-1], points[1:]):
            a, b = _py_slice(a, b).indices(length)[:2]
            cuts.append((a, max(a, b)))
    else:
        raise TypeError(f"For '{op}', 'indices_or_sections' must be an int, a tuple of ints or a list of ints, "
                        f"but got {describe(sections)}")
    return tuple(_shape.getitem(x, (_py_slice(None),) * axis + (_py_slice(a, b),)) for a, b in cuts)


def _split_at_least(input, indices_or_sections, axis, ndim, op):
    x = tensor_arg(input, "input", op)
    if x.ndim < ndim:
        raise ValueError(f"For '{op}', 'input' must have at least {ndim} dimensions, but got shape {tuple(x.shape)}")
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, bool):
        n = int(indices_or_sections)
        if n <= 0 or x.shape[axis] % n:
            raise ValueError(f"For '{op}', 'indices_or_sections' {n} must divide the length {x.shape[axis]} "
                             f"of axis {axis} of 'input' of shape {tuple(x.shape)} into equal parts")
    return _tensor_split(x, indices_or_sections, axis, op)


def hsplit(input, indices_or_sections):
    """Split along the second axis (``input`` needs at least 2 dimensions)."""
    return _split_at_least(input, indices_or_sections, 1, 2, "hsplit")


def vsplit(input, indices_or_sections):
    """Split along the first axis."""
    return _split_at_least(input, indices_or_sections, 0, 1, "vsplit")


def dsplit(input, indices_or_sections):
    """Split along the third axis (``input`` needs at least 3 dimensions)."""
    return _split_at_least(input, indices_or_sections, 2, 3, "dsplit")


def unbind(input, dim=0):
    """The slices along ``dim``, each without that axis (same as ``unstack``)."""
    x = tensor_arg(input, "input", "unbind")
    if x.ndim == 0:
        raise ValueError("For 'unbind', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    return _shape.unstack(x, dim)


# -- diagonals -----------------------------------------------------------------------------------
def _diag_plan(shape):
    k = len(shape)
    out = np.full(shape + shape, -1, np.int64)
    grid = _grid(shape)
    out[tuple(np.indices(shape).reshape(k, -1)) * 2] = grid.reshape(-1)
    return out


def diag(input):
    """A tensor of rank ``2k`` with ``input`` (rank ``k``) on its diagonal: ``out[i, j, i, j] = input[i, j]``.

    >>> import cellkit as ms
    >>> print(diag(ms.Tensor([1, 2])))
    [[1 0]
     [0 2]]
    """
    x = tensor_arg(input, "input", "diag")
    if x.ndim == 0:
        raise ValueError("For 'diag', the input rank must be greater than or equal to 1, but got shape ()")
    if x.dtype is _dt.bool_:
        raise TypeError("For 'diag', 'input' must be a number Tensor, but got dtype Bool")
    return _rearrange(x, "Diag", _diag_plan)


def _diag_embed_plan(shape, offset, dim1, dim2):
    n = shape[-1] + abs(offset)
    rank = len(shape) + 1
    out_shape = []
    rest = iter(shape[:-1])
    for d in range(rank):
        out_shape.append(n if d in (dim1, dim2) else next(rest))
    positions = np.full(out_shape, -1, np.int64)
    grid = _grid(shape)
    i = np.arange(shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    moved = np.moveaxis(positions, (dim1, dim2), (-2, -1))  # a view: writing fills ``positions``
    moved[..., rows, cols] = grid
    return positions


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Put the last axis of ``input`` on the ``offset`` diagonal of the planes ``(dim1, dim2)`` of a new tensor.

    >>> import cellkit as ms
    >>> print(diag_embed(ms.Tensor([1, 2]), offset=1))
    [[0 1 0]
     [0 0 2]
     [0 0 0]]
    """
    x = tensor_arg(input, "input", "diag_embed")
    offset = int_arg(offset, "offset", "diag_embed")
    if x.ndim == 0:
        raise ValueError("For 'diag_embed', 'input' must have at least 1 dimension, but got a 0-D Tensor")
    d1 = normalize_axis(dim1, x.ndim + 1, "diag_embed", "dim1")
    d2 = normalize_axis(dim2, x.ndim + 1, "diag_embed", "dim2")
    if d1 == d2:
        raise ValueError("For 'diag_embed', 'dim1' must not be identical to 'dim2'.")
    return _rearrange(x, "DiagEmbed", _diag_embed_plan, offset, d1, d2)


def diagflat(input, offset=0):
    """A 2-D matrix with the flattened ``input`` on its ``offset`` diagonal."""
    x = tensor_arg(input, "input", "diagflat")
    offset = int_arg(offset, "offset", "diagflat")
    return _rearrange(_shape.reshape(x, (-1,)), "Diagflat", _diag_embed_plan, offset, 0, 1)


def _diagonal_plan(shape, offset, dim1, dim2):
    return np.diagonal(_grid(shape), offset, dim1, dim2)


def _diagonal_axes(x, offset, dim1, dim2, op, names=("dim1", "dim2")):
    if x.ndim < 2:
        raise ValueError(f"For '{op}', 'input' must have at least 2 dimensions, but got shape {tuple(x.shape)}")
    offset = int_arg(offset, "offset", op)
    d1 = normalize_axis(dim1, x.ndim, op, names[0])
    d2 = normalize_axis(dim2, x.ndim, op, names[1])
    if d1 == d2:
        raise ValueError(f"For '{op}', '{names[0]}' and '{names[1]}' cannot be identical, but got {dim1} and {dim2}")
    return offset, d1, d2


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The ``offset`` diagonal of the planes ``(dim1, dim2)``, as a new last axis.

    >>> import cellkit as ms
    >>> print(diagonal(ms.Tensor([[1, 2], [3, 4]])))
    [1 4]
    """
    x = tensor_arg(input, "input", "diagonal")
    key = _diagonal_axes(x, offset, dim1, dim2, "diagonal")
    return _rearrange(x, "Diagonal", _diagonal_plan, *key)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its ``offset`` diagonal (of the planes ``(dim1, dim2)``) replaced by ``src``."""
    x = tensor_arg(input, "input", "diagonal_scatter")
    s = tensor_arg(src, "src", "diagonal_scatter")
    key = _diagonal_axes(x, offset, dim1, dim2, "diagonal_scatter")
    positions = _cached(_diagonal_plan, tuple(x.shape), key)
    if tuple(s.shape) != positions.shape:
        raise ValueError(f"For 'diagonal_scatter', the shape of 'src' {tuple(s.shape)} must equal the shape of the "
                         f"diagonal {positions.shape} of 'input' of shape {tuple(x.shape)} (offset={key[0]})")
    if s.dtype is not x.dtype:
        s = _cast(s, x.dtype)
    return scatter_host(x, positions, s, "update", "DiagonalScatter")


def _fill_diagonal_plan(shape, wrap):
    grid = _grid(shape)
    if len(shape) == 2:
        rows, cols = shape
        step = cols + 1
        end = rows * cols if wrap or rows <= cols else cols * cols
        return grid.reshape(-1)[:end:step]
    n = min(shape)
    return grid[(np.arange(n),) * len(shape)]


def _fill_diagonal(self, fill_value, wrap=False, op="fill_diagonal"):  # noqa: F811 (``wrap`` is MindSpore's name)
    x = tensor_arg(self, "input", op)
    if not isinstance(fill_value, float):
        raise TypeError(f"For '{op}', the type of 'fill_value' should be 'float', but got {describe(fill_value)}")
    wrap_rows = bool_arg(wrap, "wrap", op)
    if x.ndim < 2 or (x.ndim > 2 and len(set(x.shape)) != 1):
        raise ValueError(f"For '{op}', 'input' must be 2-D, or have all dimensions equal, but got shape "
                         f"{tuple(x.shape)}")
    positions = _cached(_fill_diagonal_plan, tuple(x.shape), (wrap_rows,))
    hit = np.zeros(x.size, bool)
    hit[positions] = True
    value = wrap_value(fill_value, x.dtype)
    return _math.where(_wrap(_device(hit.reshape(tuple(x.shape)))), value, x)


def wrap_value(value, dtype):
    """A Python number as a 0-D Tensor of ``dtype`` (truncated towards zero for an int dtype)."""
    return wrap(_device(np.asarray(value).astype(dtype.to_backend(np))))


# -- flips, rotations, moves ---------------------------------------------------------------------
def _flip_plan(shape, dims):
    return np.flip(_grid(shape), dims)


def _flip_dims(x, dims, op, name="dims"):
    if not isinstance(dims, (tuple, list)) or any(isinstance(d, bool) or not isinstance(d, (int, np.integer))
                                                  for d in dims):
        raise TypeError(f"For '{op}', '{name}' must be a tuple or list of ints, but got {describe(dims)}")
    if x.ndim == 0:
        raise ValueError(f"For '{op}', the rank of 'input' must not be 0, but got shape {tuple(x.shape)}")
    axes = tuple(normalize_axis(d, x.ndim, op, name) for d in dims)
    if len(set(axes)) != len(axes):
        raise ValueError(f"For '{op}', '{name}' cannot contain duplicate dimensions, but got {tuple(dims)}")
    return tuple(sorted(axes))


def flip(input, dims):
    """Reverse the order of elements along the axes ``dims`` (a tuple or list).

    >>> import cellkit as ms
    >>> print(flip(ms.Tensor([[1, 2], [3, 4]]), (0, 1)))
    [[4 3]
     [2 1]]
    """
    x = tensor_arg(input, "input", "flip")
    return _rearrange(x, "ReverseV2", _flip_plan, _flip_dims(x, dims, "flip"))


def reverse(x, axis):
    """Same as :func:`flip`."""
    t = tensor_arg(x, "x", "reverse")
    return _rearrange(t, "ReverseV2", _flip_plan, _flip_dims(t, axis, "reverse", "axis"))


def fliplr(input):
    """Reverse the columns (the second axis); ``input`` needs at least 2 dimensions."""
    x = tensor_arg(input, "input", "fliplr")
    if x.ndim < 2:
        raise ValueError(f"For 'fliplr', 'input' must have at least 2 dimensions, but got shape {tuple(x.shape)}")
    return _rearrange(x, "ReverseV2", _flip_plan, (1,))


def flipud(input):
    """Reverse the rows (the first axis)."""
    x = tensor_arg(input, "input", "flipud")
    return _rearrange(x, "ReverseV2", _flip_plan, _flip_dims(x, (0,), "flipud"))


def _rot90_plan(shape, k, dims):
    return np.rot90(_grid(shape), k, dims)


def rot90(input, k, dims):
    """Rotate by ``k`` quarter turns in the plane ``dims``, from the first axis towards the second.

    >>> import cellkit as ms
    >>> print(rot90(ms.Tensor([[1, 2], [3, 4]]), 1, (0, 1)))
    [[2 4]
     [1 3]]
    """
    x = tensor_arg(input, "input", "rot90")
    k = int_arg(k, "k", "rot90")
    if not isinstance(dims, (tuple, list)) or len(dims) != 2 or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in dims):
        raise TypeError(f"For 'rot90', 'dims' must be a tuple or list of two ints, but got {describe(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"For 'rot90', 'input' must have at least 2 dimensions to rotate, but got shape {tuple(x.shape)}")
    d0, d1 = (normalize_axis(d, x.ndim, "rot90", "dims") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"For 'rot90', rotation dims must be different, but got dim0={dims[0]}, dim1={dims[1]}")
    return _rearrange(x, "Rot90", _rot90_plan, k % 4, (d0, d1))


def _roll_plan(shape, shifts, dims):
    grid = _grid(shape)
    if dims is None:
        return np.roll(grid.reshape(-1), shifts).reshape(shape)
    return np.roll(grid, shifts, dims)


def roll(input, shifts, dims=None):
    """Shift elements along ``dims`` by ``shifts``, wrapping around (``dims=None``: the flattened tensor).

    >>> import cellkit as ms
    >>> print(roll(ms.Tensor([1, 2, 3, 4]), 1))
    [4 1 2 3]
    """
    x = tensor_arg(input, "input", "roll")
    shifts = _ints(shifts, "shifts", "roll")
    if dims is None:
        if len(shifts) != 1:
            raise ValueError(f"For 'roll', 'shifts' must be one int when 'dims' is None, but got {shifts}")
        return _rearrange(x, "Roll", _roll_plan, shifts[0], None)
    dims = tuple(normalize_axis(d, x.ndim, "roll", "dims") for d in _ints(dims, "dims", "roll"))
    if len(shifts) != len(dims):
        raise ValueError(f"For 'roll', 'shifts' {shifts} and 'dims' {dims} must have the same length")
    return _rearrange(x, "Roll", _roll_plan, shifts, dims)


def moveaxis(x, source, destination):
    """Move the axes ``source`` to the positions ``destination`` (ints or tuples of ints)."""
    return _move(x, source, destination, "moveaxis", "x")


def movedim(x, source, destination):
    """Same as :func:`moveaxis`."""
    return _move(x, source, destination, "movedim", "x")


def _move(x, source, destination, op, name):
    t = tensor_arg(x, name, op)
    src = _ints(source, "source", op)
    dst = _ints(destination, "destination", op)
    if len(src) != len(dst):
        raise ValueError(f"For '{op}', 'source' and 'destination' must hold the same number of axes, but got "
                         f"{len(src)} and {len(dst)}")
    src = [normalize_axis(a, t.ndim, op, "source") for a in src]
    dst = [normalize_axis(a, t.ndim, op, "destination") for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"For '{op}', 'source' and 'destination' must not repeat an axis, but got "
                         f"{tuple(source) if isinstance(source, (tuple, list)) else source} and "
                         f"{tuple(destination) if isinstance(destination, (tuple, list)) else destination}")
    order = [a for a in range(t.ndim) if a not in src]
    for d, a in sorted(zip(dst, src)):
        order.insert(d, a)
    return _shape.transpose(t, tuple(order))


def swapdims(input, dim0, dim1):
    """Exchange two axes (same as ``swapaxes``)."""
    x = tensor_arg(input, "input", "swapdims")
    d0 = normalize_axis(dim0, x.ndim, "swapdims", "dim0")
    d1 = normalize_axis(dim1, x.ndim, "swapdims", "dim1")
    return _shape.swapaxes(x, d0, d1)


def t(input):
    """Transpose a 2-D tensor; 0-D and 1-D tensors come back as they are."""
    x = tensor_arg(input, "input", "t")
    if x.ndim > 2:
        raise ValueError(f"For 't', 'input' must have at most 2 dimensions, but got shape {tuple(x.shape)}")
    return _shape.transpose(x, (1, 0)) if x.ndim == 2 else x


def ravel(input):
    """The values as a 1-D tensor."""
    return _shape.reshape(tensor_arg(input, "input", "ravel"), (-1,))


# -- repeating -----------------------------------------------------------------------------------
def _repeat_plan(shape, repeats, axis):
    grid = _grid(shape)
    if axis is None:
        grid, axis = grid.reshape(-1), 0
    return np.repeat(grid, repeats, axis)


def repeat_elements(x, rep, axis=0):
    """Repeat each element ``rep`` times along ``axis``, like ``numpy.repeat``."""
    t = tensor_arg(x, "x", "repeat_elements")
    if t.dtype is _dt.bool_:
        raise TypeError("For 'repeat_elements', 'x' must be a number Tensor, but got dtype Bool")
    rep = int_arg(rep, "rep", "repeat_elements", minimum=1)
    if t.ndim == 0:
        t = _shape.reshape(t, (1,))
    axis = normalize_axis(axis, t.ndim, "repeat_elements", "axis")
    check_allocation((t.size * rep,), _dt.int64, "repeat_elements", f"'rep' {rep} for 'x' of shape {tuple(t.shape)}")
    return _rearrange(t, "RepeatElements", _repeat_plan, rep, axis)


def repeat_interleave(input, repeats, axis=None):
    """Repeat each element (or each slice along ``axis``) ``repeats`` times; ``axis=None`` flattens first.

    ``repeats`` is an int or one count per element along the axis (a tuple, list or Tensor).

    >>> import cellkit as ms
    >>> print(repeat_interleave(ms.Tensor([1, 2, 3]), ms.Tensor([1, 0, 2]), 0))
    [1 3 3]
    """
    return _repeat_interleave(input, repeats, axis, "repeat_interleave")


def _repeat_interleave(input, repeats, axis, op):
    x = tensor_arg(input, "input", op)
    if isinstance(repeats, Tensor):
        _, host = _index_tensor(repeats, "repeats", op)
        if host.ndim > 1:
            raise ValueError(f"For '{op}', 'repeats' must be 0-D or 1-D, but got shape {host.shape}")
        repeats = int(host) if host.ndim == 0 else tuple(int(r) for r in host)
    elif isinstance(repeats, list):
        repeats = tuple(repeats)
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        repeats = int_arg(repeats, "repeats", op, minimum=0)
    elif isinstance(repeats, tuple) and all(isinstance(r, (int, np.integer)) and not isinstance(r, bool)
                                            for r in repeats):
        if any(r < 0 for r in repeats):
            raise ValueError(f"For '{op}', 'repeats' must not be negative, but got {repeats}")
        repeats = tuple(int(r) for r in repeats)
    else:
        raise TypeError(f"For '{op}', 'repeats' must be an int, a tuple, a list or a Tensor, "
                        f"but got {describe(repeats)}")
    if axis is not None:
        if x.ndim == 0:
            x = _shape.reshape(x, (1,))
        axis = normalize_axis(axis, x.ndim, op, "axis")
    length = x.size if axis is None else x.shape[axis]
    if isinstance(repeats, tuple) and len(repeats) not in (1, length):
        raise ValueError(f"For '{op}', the length of 'repeats' must be the same as the shape of the original "
                         f"tensor in the 'axis' dimension, but got {len(repeats)} and {length}")
    if isinstance(repeats, tuple) and len(repeats) == 1:
        repeats = repeats[0]
    total = sum(repeats) * (x.size // max(length, 1)) if isinstance(repeats, tuple) else x.size * repeats
    check_allocation((total,), _dt.int64, op, f"'repeats' {repeats} for 'input' of shape {tuple(x.shape)}")
    return _rearrange(x, "RepeatInterleave", _repeat_plan, repeats, axis)


def _reverse_sequence_plan(shape, lengths, seq_dim, batch_dim):
    positions = _grid(shape).copy()
    for b, n in enumerate(lengths):
        if n > 1:
            index = [_py_slice(None)] * len(shape)
            index[batch_dim] = b
            index[seq_dim] = _py_slice(0, n)
            region = positions[tuple(index)]
            seq_axis = seq_dim - (1 if batch_dim < seq_dim else 0)
            positions[tuple(index)] = np.flip(region, seq_axis)
    return positions


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """Reverse the first ``seq_lengths[b]`` elements along ``seq_dim`` of every batch entry ``b``.

    >>> import cellkit as ms
    >>> print(reverse_sequence(ms.Tensor([[1, 2, 3], [4, 5, 6]]), ms.Tensor([2, 3]), 1))
    [[2 1 3]
     [6 5 4]]
    """
    return _reverse_sequence(x, seq_lengths, seq_dim, batch_dim, "reverse_sequence")


def _reverse_sequence(x, seq_lengths, seq_dim, batch_dim, op):
    t = tensor_arg(x, "x", op)
    _, lengths = _index_tensor(seq_lengths, "seq_lengths", op)
    seq_dim = normalize_axis(seq_dim, t.ndim, op, "seq_dim")
    batch_dim = normalize_axis(batch_dim, t.ndim, op, "batch_dim")
    if seq_dim == batch_dim:
        raise ValueError(f"For '{op}', 'seq_dim' and 'batch_dim' must differ, but both are {seq_dim}")
    if lengths.ndim != 1 or lengths.shape[0] != t.shape[batch_dim]:
        raise ValueError(f"For '{op}', 'seq_lengths' must be 1-D with one length per entry of axis {batch_dim} of "
                         f"'x' of shape {tuple(t.shape)}, but got shape {lengths.shape}")
    if lengths.size and (lengths.min() < 0 or lengths.max() > t.shape[seq_dim]):
        raise RuntimeError(f"For '{op}', 'seq_lengths' must be in [0, {t.shape[seq_dim]}] (axis {seq_dim} of 'x' of "
                           f"shape {tuple(t.shape)}), but got {lengths.tolist()}")
    return _rearrange(t, "ReverseSequence", _reverse_sequence_plan, tuple(int(n) for n in lengths), seq_dim,
                      batch_dim)


# -- selecting and slicing -----------------------------------------------------------------------
def select(condition, input, other):
    """``input`` where ``condition`` is True, ``other`` elsewhere (numbers allowed; broadcasting)."""
    return _math.where(condition, input, other)


def select_scatter(input, src, axis, index):
    """``input`` with the slice at ``index`` along ``axis`` replaced by ``src`` (a new tensor)."""
    x = tensor_arg(input, "input", "select_scatter")
    s = tensor_arg(src, "src", "select_scatter")
    axis = normalize_axis(axis, x.ndim, "select_scatter", "axis")
    n = x.shape[axis]
    index = int_arg(index, "index", "select_scatter")
    if not -n <= index < n:
        raise ValueError(f"For 'select_scatter', 'index' must be in [{-n}, {n}) for axis {axis} of 'input' of shape "
                         f"{tuple(x.shape)}, but got {index}")
    if s.dtype is not x.dtype:
        raise TypeError(f"For 'select_scatter', 'src' must have the dtype of 'input' ({x.dtype}), but got {s.dtype}")
    positions = np.take(_grid(tuple(x.shape)), index % n, axis=axis)
    if tuple(s.shape) != positions.shape:
        raise ValueError(f"For 'select_scatter', 'src' must have shape {positions.shape} (of 'input' of shape "
                         f"{tuple(x.shape)} without axis {axis}), but got {tuple(s.shape)}")
    return scatter_host(x, positions, s, "update", "SelectScatter")


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """``input`` with the slice ``start:end:step`` along ``axis`` replaced by ``src`` (a new tensor)."""
    x = tensor_arg(input, "input", "slice_scatter")
    s = tensor_arg(src, "src", "slice_scatter")
    axis = normalize_axis(axis, x.ndim, "slice_scatter", "axis")
    for value, name in ((start, "start"), (end, "end")):
        if value is not None:
            int_arg(value, name, "slice_scatter")
    step = int_arg(step, "step", "slice_scatter", minimum=1)
    if s.dtype is not x.dtype:
        raise TypeError(f"For 'slice_scatter', 'src' must have the dtype of 'input' ({x.dtype}), but got {s.dtype}")
    positions = _grid(tuple(x.shape))[(_py_slice(None),) * axis + (_py_slice(start, end, step),)]
    if tuple(s.shape) != positions.shape:
        raise ValueError(f"For 'slice_scatter', 'src' must have shape {positions.shape} (the slice start={start}, "
                         f"end={end}, step={step} of axis {axis} of 'input' of shape {tuple(x.shape)}), but got "
                         f"{tuple(s.shape)}")
    return scatter_host(x, positions, s, "update", "SliceScatter")


def _int_sequence(value, name, op):
    if isinstance(value, Tensor):
        if _dt.dtype_of(value._data).kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', '{name}' must hold ints, but got a Tensor of dtype {value.dtype}")
        return tuple(int(v) for v in np.asarray(value.asnumpy()).reshape(-1))
    return _ints(value, name, op, allow_int=False)


def slice(input_x, begin, size):
    """The block starting at ``begin`` with ``size`` elements per axis (``-1``: to the end).

    >>> import cellkit as ms
    >>> print(slice(ms.Tensor([[1, 2, 3], [4, 5, 6]]), (0, 1), (2, -1)))
    [[2 3]
     [5 6]]
    """
    return _slice(input_x, begin, size, "slice")


def tensor_slice(input, begin, size):
    """Same as :func:`slice`."""
    return _slice(input, begin, size, "tensor_slice")


def _slice(input_x, begin, size, op):
    x = tensor_arg(input_x, "input_x", op)
    begin = _int_sequence(begin, "begin", op)
    size = _int_sequence(size, "size", op)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"For '{op}', 'begin' and 'size' must hold one entry per dimension of 'input_x' of shape "
                         f"{tuple(x.shape)}, but got {begin} and {size}")
    key = []
    for axis, (b, s, n) in enumerate(zip(begin, size, x.shape)):
        if s == -1:
            s = n - b
        if b < 0 or s < 0 or b + s > n:
            raise ValueError(f"For '{op}', 'begin' {begin} and 'size' {size} must pick a block inside the shape "
                             f"{tuple(x.shape)} (axis {axis})")
        key.append(_py_slice(b, b + s))
    return _shape.getitem(x, tuple(key))


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """``input_x[begin:end:strides]`` per axis, with TensorFlow's mask bits (bit ``i`` is entry ``i``).

    ``begin_mask``/``end_mask`` ignore that entry's begin/end; ``ellipsis_mask`` makes it
    ``...``; ``new_axis_mask`` inserts an axis; ``shrink_axis_mask`` takes the single index
    ``begin[i]`` and drops the axis.

    >>> import cellkit as ms
    >>> x = ms.Tensor([[1, 2, 3], [4, 5, 6]])
    >>> print(strided_slice(x, (0, 2), (2, 0), (1, -1)))
    [[3 2]
     [6 5]]
    """
    x = tensor_arg(input_x, "input_x", "strided_slice")
    begin = _int_sequence(begin, "begin", "strided_slice")
    end = _int_sequence(end, "end", "strided_slice")
    strides = _int_sequence(strides, "strides", "strided_slice")
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"For 'strided_slice', 'begin', 'end' and 'strides' must have the same length, but got "
                         f"{begin}, {end} and {strides}")
    masks = {}
    for value, name in ((begin_mask, "begin_mask"), (end_mask, "end_mask"), (ellipsis_mask, "ellipsis_mask"),
                        (new_axis_mask, "new_axis_mask"), (shrink_axis_mask, "shrink_axis_mask")):
        masks[name] = int_arg(value, name, "strided_slice", minimum=0)
    if any(s == 0 for s in strides):
        raise ValueError(f"For 'strided_slice', input 'strides' can not contain 0, but got {strides}")
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks["ellipsis_mask"] & bit and Ellipsis in key:
            raise ValueError(f"For 'strided_slice', 'ellipsis_mask' {masks['ellipsis_mask']} must set at most one bit "
                             f"among the {len(begin)} entries")
        if masks["ellipsis_mask"] & bit:
            key.append(Ellipsis)
        elif masks["new_axis_mask"] & bit:
            key.append(None)
        elif masks["shrink_axis_mask"] & bit:
            key.append(b)
        else:
            key.append(_py_slice(None if masks["begin_mask"] & bit else b, None if masks["end_mask"] & bit else e, s))
    explicit = sum(1 for k in key if k is not None and k is not Ellipsis)
    if explicit > x.ndim:
        raise ValueError(f"For 'strided_slice', 'begin' holds {len(begin)} entries, more than the rank of "
                         f"'input_x' of shape {tuple(x.shape)}")
    axis = 0
    for i, k in enumerate(key):  # single indices must lie inside their axis; slices are clamped to it
        if k is Ellipsis:
            axis = x.ndim - sum(1 for q in key[i + 1:] if q is not None and q is not Ellipsis)
        elif k is not None:
            n = x.shape[axis]
            if isinstance(k, int) and not -n <= k < n:
                raise ValueError(f"For 'strided_slice', the shrunk index {k} is out of range for axis {axis} of "
                                 f"length {n}")
            if isinstance(k, _py_slice):
                start, stop, step = k.indices(n)
                key[i] = _py_slice(start, None if stop < 0 else stop, step)
            axis += 1
    return _shape.getitem(x, tuple(key))


def _tri_mask(shape, diagonal, lower):
    rows, cols = shape[-2:]
    mask = np.tri(rows, cols, diagonal, dtype=bool)
    return mask if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)


def _tri(input, diagonal, lower, op):
    x = tensor_arg(input, "input", op)
    if isinstance(diagonal, bool) or not isinstance(diagonal, (int, np.integer)):
        raise TypeError(f"For '{op}', the type of 'diagonal' should be 'int', but got {describe(diagonal)}")
    if x.ndim < 2:
        raise ValueError(f"For '{op}', the rank of 'input' must be at least 2, but got shape {tuple(x.shape)}")
    mask = _tri_mask(tuple(x.shape), int(diagonal), lower)
    from .creation import zeros_like
    return _math.where(wrap(_device(mask)), x, zeros_like(x))


def tril(input, diagonal=0):
    """The lower triangle (on and below the ``diagonal``-th diagonal) of the last two axes; zeros above.

    >>> import cellkit as ms
    >>> print(tril(ms.Tensor([[1, 2], [3, 4]])))
    [[1 0]
     [3 4]]
    """
    return _tri(input, diagonal, True, "tril")


def triu(input, diagonal=0):
    """The upper triangle (on and above the ``diagonal``-th diagonal) of the last two axes; zeros below."""
    return _tri(input, diagonal, False, "triu")


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids from 1-D tensors (``'xy'``: Cartesian, the first two axes swapped; ``'ij'``: matrix)."""
    return _meshgrid(inputs, indexing, "meshgrid")


def _meshgrid(inputs, indexing, op):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For '{op}', 'indexing' must be 'xy' or 'ij', but got {indexing!r}")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{op}', every input must be a Tensor, but got {describe(t)}")
    ts = [tensor_arg(t, "inputs", op) for t in inputs]
    if not ts:
        raise ValueError(f"For '{op}', give at least one Tensor")
    _same_dtypes(ts, op)
    for t in ts:
        if t.ndim != 1:
            raise ValueError(f"For '{op}', every input must be 1-D, but got shape {tuple(t.shape)}")
    sizes = [t.shape[0] for t in ts]
    if indexing == "xy" and len(ts) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(ts):
        axis = i
        if indexing == "xy" and len(ts) > 1 and i < 2:
            axis = 1 - i
        shape = [1] * len(ts)
        shape[axis] = t.shape[0]
        out.append(_shape.broadcast_to(_shape.reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


def combinations(input, r=2, with_replacement=False):
    """All ``r``-element combinations of a 1-D tensor's elements, as rows (like ``itertools.combinations``).

    >>> import cellkit as ms
    >>> print(combinations(ms.Tensor([1, 2, 3])))
    [[1 2]
     [1 3]
     [2 3]]
    """
    x = tensor_arg(input, "input", "combinations")
    if x.ndim != 1:
        raise ValueError(f"For 'combinations', 'input' must be 1-D, but got shape {tuple(x.shape)}")
    r = int_arg(r, "r", "combinations", minimum=0)
    with_replacement = bool_arg(with_replacement, "with_replacement", "combinations")
    n = x.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    check_allocation((count, r), _dt.int64, "combinations", f"r={r} for 'input' of shape {tuple(x.shape)}")
    return _rearrange(x, "Combinations", _combinations_plan, r, with_replacement)


def _combinations_plan(shape, r, with_replacement):
    if r == 0 or (r > shape[0] and not with_replacement):
        return np.zeros((0,), np.int64)
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(make(range(shape[0]), r))
    if not rows or r == 0:
        return np.zeros((0,), np.int64)
    return np.asarray(rows, np.int64)


def vander(x, N=None):
    """The Vandermonde matrix of a 1-D ``x``: columns ``x**(N-1), ..., x, 1`` (``N`` defaults to ``len(x)``).

    >>> import cellkit as ms
    >>> print(vander(ms.Tensor([1, 2, 3])))
    [[1 1 1]
     [4 2 1]
     [9 3 1]]
    """
    t = tensor_arg(x, "x", "vander")
    if t.ndim != 1:
        raise ValueError(f"For 'vander', 'x' must be 1-D, but got shape {tuple(t.shape)}")
    n = t.shape[0] if N is None else int_arg(N, "N", "vander")
    if n <= 0:
        raise ValueError(f"For 'vander', 'N' must be greater than 0, but got {n} (for 'x' of shape {tuple(t.shape)})")
    from .creation import ones_like
    column = _shape.reshape(t, (-1, 1))
    powers = [_shape.reshape(ones_like(t), (-1, 1))]
    for _ in range(n - 1):  # repeated products: exact for ints, smooth for every float (0 included)
        powers.append(_math.mul(powers[-1], column))
    return _shape.concat(powers[::-1], 1)


# -- windows: unfold / fold ----------------------------------------------------------------------
def _pair(value, name, op, minimum=1):
    pair = _ints(value, name, op, length=2)
    if any(v < minimum for v in pair):
        raise ValueError(f"For '{op}', '{name}' must hold values >= {minimum}, but got {pair}")
    return pair


def _im2col_plan(shape, kernel, dilation, padding, stride):
    """Positions (N, C, kh*kw, L) of every window element (``-1`` in the padding)."""
    n, c, h, w = shape
    grid = np.pad(_grid(shape), ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])),
                  constant_values=-1)
    hp, wp = grid.shape[2:]
    out_h = (hp - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    out_w = (wp - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    if out_h <= 0 or out_w <= 0:
        return np.zeros((n, c, kernel[0] * kernel[1], 0), np.int64)
    rows = (np.arange(kernel[0]) * dilation[0])[:, None, None, None] + (np.arange(out_h) * stride[0])[None, None, :,
                                                                                                      None]
    cols = (np.arange(kernel[1]) * dilation[1])[None, :, None, None] + (np.arange(out_w) * stride[1])[None, None, None,
                                                                                                      :]
    picked = grid[:, :, rows, cols]  # (N, C, kh, kw, out_h, out_w)
    return picked.reshape(n, c, kernel[0] * kernel[1], out_h * out_w)


def _window_args(kernel_size, dilation, padding, stride, op, names=("kernel_size", "dilation", "padding", "stride")):
    return (_pair(kernel_size, names[0], op), _pair(dilation, names[1], op), _pair(padding, names[2], op, 0),
            _pair(stride, names[3], op))


def _window_key(image, key, op, given):
    """``key`` checked against the image shape (N, C, H, W): the windows fit, nothing is too large.

    Returns the key with each stride capped at the padded size (a longer stride picks the same
    single window, and keeps the host arithmetic inside Int64).
    """
    kernel, dilation, padding, stride = key
    padded = [d + 2 * p for d, p in zip(image[2:], padding)]
    check_allocation(tuple(image[:2]) + tuple(padded), _dt.int64, op, given)
    extent = [dl * (k - 1) + 1 for k, dl in zip(kernel, dilation)]
    if any(e > p for e, p in zip(extent, padded)):
        raise ValueError(f"For '{op}', the window of kernel_size {kernel} and dilation {dilation} is larger than the "
                         f"padded input {tuple(padded)} ({given})")
    counts = [(p - e) // s + 1 for p, e, s in zip(padded, extent, stride)]
    check_allocation((image[0], image[1] * kernel[0] * kernel[1], counts[0] * counts[1]), _dt.int64, op, given)
    return kernel, dilation, padding, tuple(min(s, p) for s, p in zip(stride, padded))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding ``kernel_size`` blocks of a 4-D ``(N, C, H, W)`` input as columns: ``(N, C*kh*kw, L)`` (im2col).

    >>> import cellkit as ms
    >>> import numpy as np
    >>> unfold(ms.Tensor(np.ones((1, 2, 3, 3), np.float32)), 2).shape
    (1, 8, 4)
    """
    x = tensor_arg(input, "input", "unfold")
    if x.ndim != 4:
        raise ValueError(f"For 'unfold', 'input' must be 4-D (N, C, H, W), but got shape {tuple(x.shape)}")
    key = _window_args(kernel_size, dilation, padding, stride, "unfold")
    key = _window_key(tuple(x.shape), key, "unfold", f"'input' of shape {tuple(x.shape)}, kernel_size {key[0]}, "
                      f"dilation {key[1]}, padding {key[2]}, stride {key[3]}")
    out = _rearrange(x, "Im2Col", _im2col_plan, *key)
    n, c, k, length = out.shape
    return _shape.reshape(out, (n, c * k, length))


def _col2im(x, output_size, key, op, cols_shape, given_shape):
    """Sum the columns back into an image of ``output_size``: the adjoint of unfold."""
    n, c = cols_shape[:2]
    image = (n, c) + output_size
    given = (f"the input of shape {given_shape}, output_size {output_size}, kernel_size {key[0]}, dilation {key[1]}, "
             f"padding {key[2]}, stride {key[3]}")
    key = _window_key(image, key, op, given)
    positions = _cached(_im2col_plan, image, key)
    if positions.shape != cols_shape:
        raise ValueError(f"For '{op}', {given}: the input must hold {positions.shape[-1]} blocks of size "
                         f"{positions.shape[2]}")
    valid = positions >= 0
    flat = np.where(valid, positions, 0).reshape(-1)
    return put_positions(x, _device(flat), None if valid.all() else _device(valid.reshape(-1)), image, "Col2Im")


def _output_size(output_size, op):
    if isinstance(output_size, Tensor):
        tensor_arg(output_size, "output_size", op)
        size = _int_sequence(output_size, "output_size", op)
    else:
        raise TypeError(f"For '{op}', 'output_size' must be a 1-D int Tensor of 2 elements, but got "
                        f"{describe(output_size)}")
    if len(size) != 2 or any(s <= 0 for s in size):
        raise ValueError(f"For '{op}', 'output_size' must hold 2 positive sizes, but got {size}")
    return size


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks ``(N, C*kh*kw, L)`` back into ``(N, C, *output_size)``: the adjoint of :func:`unfold`.

    ``output_size`` is a 1-D int Tensor of two elements.
    """
    x = tensor_arg(input, "input", "fold")
    size = _output_size(output_size, "fold")
    key = _window_args(kernel_size, dilation, padding, stride, "fold")
    if x.ndim != 3:
        raise ValueError(f"For 'fold', 'input' must be 3-D (N, C*kh*kw, L), but got shape {tuple(x.shape)}")
    k = key[0][0] * key[0][1]
    if x.shape[1] % k:
        raise ValueError(f"For 'fold', the second axis of 'input' must be divisible by kh*kw for kernel_size "
                         f"{key[0]}, but got 'input' of shape {tuple(x.shape)}")
    n, ck, length = x.shape
    cols = _shape.reshape(x, (n, ck // k, k, length))
    return _col2im(cols, size, key, "fold", tuple(cols.shape), tuple(x.shape))


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Sum the columns ``(N, C, kh*kw, L)`` back into ``(N, C, *output_size)``."""
    x = tensor_arg(input_x, "input_x", "col2im")
    size = _output_size(output_size, "col2im")
    key = _window_args(kernel_size, dilation, padding_value, stride, "col2im",
                       ("kernel_size", "dilation", "padding_value", "stride"))
    if x.ndim != 4:
        raise ValueError(f"For 'col2im', 'input_x' must be 4-D (N, C, kh*kw, L), but got shape {tuple(x.shape)}")
    if x.shape[2] != key[0][0] * key[0][1]:
        raise ValueError(f"For 'col2im', input_x.shape[2] must equal kernel_size[0] * kernel_size[1] for "
                         f"kernel_size {key[0]}, but got 'input_x' of shape {tuple(x.shape)}")
    return _col2im(x, size, key, "col2im", tuple(x.shape), tuple(x.shape))


# -- padding -------------------------------------------------------------------------------------
_NUMPY_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "edge": "edge",
                "circular": "wrap", "symmetric": "symmetric"}


def _pad_plan(shape, widths, mode):
    """Positions after padding ``widths`` ((before, after) per axis; negative crops)."""
    grid = _grid(shape)
    crop = tuple(_py_slice(max(-b, 0), d - max(-a, 0)) for (b, a), d in zip(widths, shape))
    grid = grid[crop]
    grow = [(max(b, 0), max(a, 0)) for b, a in widths]
    if mode == "constant":
        return np.pad(grid, grow, constant_values=-1)
    return np.pad(grid, grow, mode=_NUMPY_MODES[mode])


def _pad_widths(padding, ndim, op):
    """(left, right, top, bottom, ...) for the last axes -> (before, after) for every axis."""
    pads = _int_sequence(padding, "padding", op)
    if len(pads) % 2 or len(pads) // 2 > ndim:
        raise ValueError(f"For '{op}', 'padding' must hold an even number of values, at most two per dimension "
                         f"of the input ({ndim} dimensions), but got {pads}")
    widths = [(0, 0)] * ndim
    for i in range(len(pads) // 2):
        widths[ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    return tuple(widths), len(pads) // 2


def pad(input_x, padding, mode="constant", value=None):
    """Pad the last ``len(padding) // 2`` axes: ``padding = (left, right, top, bottom, ...)`` from the last axis.

    ``mode``: ``'constant'`` (with ``value``, default 0; negative widths crop), ``'reflect'``
    (mirror without repeating the edge), ``'replicate'`` (repeat the edge) or ``'circular'``
    (wrap around).

    >>> import cellkit as ms
    >>> print(pad(ms.Tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect"))
    [[3. 2. 1. 2. 3. 2.]]
    """
    x = tensor_arg(input_x, "input_x", "pad")
    if mode not in ("constant", "reflect", "replicate", "circular", "edge"):
        raise ValueError(f"For 'pad', 'mode' must be 'constant', 'reflect', 'replicate' or 'circular', but got "
                         f"{mode!r}")
    widths, count = _pad_widths(padding, x.ndim, "pad")
    check_allocation(tuple(max(d + b + a, 0) for d, (b, a) in zip(x.shape, widths)), _dt.int64, "pad",
                     f"'padding' {_int_sequence(padding, 'padding', 'pad')} for 'input_x' of shape {tuple(x.shape)}")
    if mode != "constant":
        if value is not None:
            raise ValueError(f"For 'pad', 'value' is only used in 'constant' mode, but got value={value!r} with "
                             f"mode {mode!r}")
        if x.ndim < count + 1:
            raise ValueError(f"For 'pad', the input dims for {mode} mode must be greater than the number of padded "
                             f"dimensions ({count}), but got shape {tuple(x.shape)}")
        for (b, a), d in zip(widths, x.shape):
            if min(b, a) < 0:
                raise ValueError(f"For 'pad', the padding in {mode} mode must not be negative, but got {(b, a)}")
            if mode == "reflect" and max(b, a) >= d:
                raise ValueError(f"For 'pad', reflect padding {(b, a)} must be smaller than the size {d} of its "
                                 "dimension")
            if mode == "circular" and max(b, a) > d:
                raise ValueError(f"For 'pad', circular padding {(b, a)} must not exceed the size {d} of its "
                                 "dimension")
        return _rearrange(x, "PadV3", _pad_plan, widths, mode)
    for (b, a), d in zip(widths, x.shape):
        if d + b + a < 0:
            raise ValueError(f"For 'pad', the padding {(b, a)} crops more than the size {d} of its dimension")
    fill = 0 if value is None else value
    if not isinstance(fill, (Tensor, numbers.Number, np.number, np.bool_)) or isinstance(fill, complex):
        raise TypeError(f"For 'pad', 'value' must be a number, but got {describe(value)}")
    return _rearrange(x, "PadV3", _pad_plan, widths, "constant", fill=fill)


def _mirror_pad(x, paddings, mode, op):
    t = tensor_arg(x, "input_x", op)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For '{op}', 'mode' must be 'REFLECT' or 'SYMMETRIC', but got {mode!r}")
    if isinstance(paddings, Tensor):
        _, host = _index_tensor(paddings, "paddings", op)
    else:
        host = np.asarray(paddings)
        if host.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', 'paddings' must be an int Tensor, but got {describe(paddings)}")
    if host.shape != (t.ndim, 2):
        raise ValueError(f"For '{op}', 'paddings' must have shape ({t.ndim}, 2) for 'input_x' of shape "
                         f"{tuple(t.shape)}, but got {host.shape}")
    widths = tuple((int(b), int(a)) for b, a in host)
    for (b, a), d in zip(widths, t.shape):
        limit = d - 1 if mode == "REFLECT" else d
        if min(b, a) < 0 or max(b, a) > limit:
            raise ValueError(f"For '{op}', the paddings {(b, a)} must be in [0, {limit}] for a dimension of size {d} "
                             f"in {mode} mode ('input_x' of shape {tuple(t.shape)})")
    return _rearrange(t, "MirrorPad", _pad_plan, widths, mode.lower())


def mirror_pad(input_x, paddings, mode):
    """Pad by mirroring: ``paddings`` is an int Tensor of shape ``(ndim, 2)``; mode ``'REFLECT'`` or ``'SYMMETRIC'``.

    ``REFLECT`` mirrors around the edge element, ``SYMMETRIC`` repeats it.
    """
    return _mirror_pad(input_x, paddings, mode, "mirror_pad")


# -- blocks between space and batch (or depth) ---------------------------------------------------
def _space_to_batch_plan(shape, block, widths):
    m = len(block)
    grid = np.pad(_grid(shape), ((0, 0),) * (len(shape) - m) + widths, constant_values=-1)
    n = shape[0]
    lead = grid.shape[1:len(shape) - m]
    spatial = grid.shape[len(shape) - m:]
    split = grid.reshape((n,) + lead + sum(((s // b, b) for s, b in zip(spatial, block)), ()))
    k = len(lead)
    block_axes = [2 + k + 2 * i for i in range(m)]
    outer_axes = [1 + k + 2 * i for i in range(m)]
    moved = np.transpose(split, block_axes + [0] + list(range(1, 1 + k)) + outer_axes)
    return moved.reshape((n * int(np.prod(block)),) + lead + tuple(s // b for s, b in zip(spatial, block)))


def _block_args(block, paddings, ndim, op, names=("block_size", "paddings")):
    if isinstance(paddings, Tensor):
        paddings = np.asarray(paddings.asnumpy()).tolist()
    if not isinstance(paddings, (tuple, list)) or not paddings or any(
            not isinstance(p, (tuple, list)) or len(p) != 2 for p in paddings):
        raise TypeError(f"For '{op}', '{names[1]}' must be a list of (before, after) pairs, but got "
                        f"{describe(paddings)}")
    m = len(paddings)
    block = _ints(block, names[0], op, length=m)
    widths = tuple((int(b), int(a)) for b, a in paddings)
    if any(b < 1 for b in block):
        raise ValueError(f"For '{op}', '{names[0]}' must hold values >= 1, but got {block}")
    if any(min(p) < 0 for p in widths):
        raise ValueError(f"For '{op}', '{names[1]}' must not be negative, but got {widths}")
    if m + 1 > ndim:
        raise ValueError(f"For '{op}', the input needs more dimensions than the {m} blocked ones, but got "
                         f"{ndim} dimensions")
    return block, widths


def space_to_batch_nd(input_x, block_size, paddings):
    """Zero-pad the last ``M`` (spatial) axes, cut them into ``block_size`` blocks and move the blocks to the batch.

    The output batch is ``N * prod(block_size)``; entry ``b * N + n`` holds, for the block offset
    ``b``, every block's element at that offset.
    """
    x = tensor_arg(input_x, "input_x", "space_to_batch_nd")
    block, widths = _block_args(block_size, paddings, x.ndim, "space_to_batch_nd")
    spatial = tuple(x.shape)[x.ndim - len(block):]
    for s, (b, a), k in zip(spatial, widths, block):
        if k > s + b + a:
            raise RuntimeError(f"For 'space_to_batch_nd', padded shape should be divisible by block_size, but got "
                               f"padded shape: {s + b + a}, block_size: {k} ('input_x' of shape {tuple(x.shape)})")
        if (s + b + a) % k:
            raise RuntimeError(f"For 'space_to_batch_nd', padded shape should be divisible by block_size, but got "
                               f"padded shape: {s + b + a}, block_size: {k} ('input_x' of shape {tuple(x.shape)})")
    return _rearrange(x, "SpaceToBatchND", _space_to_batch_plan, block, widths)


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of :func:`space_to_batch_nd`: move batch blocks back to the last ``M`` axes, then crop."""
    x = tensor_arg(input_x, "input_x", "batch_to_space_nd")
    block, widths = _block_args(block_shape, crops, x.ndim, "batch_to_space_nd", ("block_shape", "crops"))
    total = int(np.prod(block))
    if x.shape[0] % total:
        raise ValueError(f"For 'batch_to_space_nd', the batch {x.shape[0]} must be divisible by the product of "
                         f"'block_shape' {block}")
    m = len(block)
    image = (x.shape[0] // total,) + tuple(x.shape)[1:x.ndim - m] + tuple(
        s * b for s, b in zip(tuple(x.shape)[x.ndim - m:], block))
    for s, (b, a) in zip(image[len(image) - m:], widths):
        if b + a > s:
            raise ValueError(f"For 'batch_to_space_nd', the crops {(b, a)} are larger than the size {s}")
    # batch_to_space is space_to_batch's inverse permutation: scatter the image plan's positions.
    plan = _cached(_space_to_batch_plan, image, (block, ((0, 0),) * m))
    inverse = np.empty(plan.size, np.int64)
    inverse[plan.reshape(-1)] = np.arange(plan.size)
    spread = inverse.reshape(image)
    crop = (_py_slice(None),) * (len(image) - m) + tuple(_py_slice(b, s - a) for (b, a), s in
                                                         zip(widths, image[len(image) - m:]))
    return gather_host(x, spread[crop], "BatchToSpaceND")


def _depth_to_space_plan(shape, block):
    n, c, h, w = shape
    grid = _grid(shape).reshape(n, block, block, c // (block * block), h, w)
    return np.transpose(grid, (0, 3, 4, 1, 5, 2)).reshape(n, c // (block * block), h * block, w * block)


def _space_to_depth_plan(shape, block):
    n, c, h, w = shape
    grid = _grid(shape).reshape(n, c, h // block, block, w // block, block)
    return np.transpose(grid, (0, 3, 5, 1, 2, 4)).reshape(n, c * block * block, h // block, w // block)


class DepthToSpace(Primitive):
    """``DepthToSpace(block_size)(x)``: move channel blocks of a 4-D ``(N, C, H, W)`` tensor into space.

    The output is ``(N, C / b**2, H * b, W * b)``; channel ``(i * b + j) * C' + c`` lands at
    offset ``(i, j)`` of each ``b x b`` block.
    """

    @prim_attr_register
    def __init__(self, block_size):
        int_arg(block_size, "block_size", "DepthToSpace", minimum=2)

    def __call__(self, x):
        t = tensor_arg(x, "x", "DepthToSpace")
        b = self.block_size
        if t.ndim != 4:
            raise ValueError(f"For 'DepthToSpace', the x rank must be equal to 4, but got shape {tuple(t.shape)}")
        if t.shape[1] % (b * b):
            raise ValueError(f"For 'DepthToSpace', the channels {t.shape[1]} must be divisible by block_size**2 "
                             f"({b * b})")
        return _rearrange(t, "DepthToSpace", _depth_to_space_plan, b)


class SpaceToDepth(Primitive):
    """``SpaceToDepth(block_size)(x)``: move ``b x b`` spatial blocks of ``(N, C, H, W)`` into channels."""

    @prim_attr_register
    def __init__(self, block_size):
        int_arg(block_size, "block_size", "SpaceToDepth", minimum=2)

    def __call__(self, x):
        t = tensor_arg(x, "x", "SpaceToDepth")
        b = self.block_size
        if t.ndim != 4:
            raise ValueError(f"For 'SpaceToDepth', the x rank must be equal to 4, but got shape {tuple(t.shape)}")
        if t.shape[2] % b or t.shape[3] % b:
            raise ValueError(f"For 'SpaceToDepth', the height and width {tuple(t.shape[2:])} must be divisible by "
                             f"block_size ({b})")
        return _rearrange(t, "SpaceToDepth", _space_to_depth_plan, b)


# -- matrix diagonals with alignment (TensorFlow's MatrixDiagV3 / MatrixDiagPartV3) ----------------
_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_length(rows, cols, d):
    return min(rows + min(0, d), cols - max(0, d))


def _diag_offset(d, length, max_length, align):
    first, second = align.split("_")
    side = first if d >= 0 else second
    return max_length - length if side == "RIGHT" else 0


def _matrix_diag_part_plan(shape, k0, k1, align, single):
    rows, cols = shape[-2:]
    batch = shape[:-2]
    max_len = max(_diag_length(rows, cols, d) for d in range(k0, k1 + 1))
    grid = _grid(shape)
    out = np.full(batch + (k1 - k0 + 1, max(max_len, 0)), -1, np.int64)
    for slot, d in enumerate(range(k1, k0 - 1, -1)):
        length = _diag_length(rows, cols, d)
        if length <= 0:
            continue
        offset = _diag_offset(d, length, max_len, align)
        i = np.arange(length)
        r, c = (i, i + d) if d >= 0 else (i - d, i)
        out[..., slot, offset:offset + length] = grid[..., r, c]
    return out[..., 0, :] if single else out


def _matrix_diag_plan(shape, k0, k1, rows, cols, align, single):
    diag_shape = shape if not single else shape[:-1] + (1, shape[-1])
    batch = diag_shape[:-2]
    max_len = diag_shape[-1]
    grid = _grid(shape).reshape(diag_shape)
    out = np.full(batch + (rows, cols), -1, np.int64)
    for slot, d in enumerate(range(k1, k0 - 1, -1)):
        length = _diag_length(rows, cols, d)
        if length <= 0:
            continue
        offset = _diag_offset(d, length, max_len, align)
        i = np.arange(length)
        r, c = (i, i + d) if d >= 0 else (i - d, i)
        take = offset + i
        ok = take < max_len
        out[..., r[ok], c[ok]] = grid[..., slot, take[ok]]
    return out


def _int_scalar(value, name, op):
    """An int, or the value of a 0-D int Tensor."""
    if isinstance(value, Tensor):
        t = tensor_arg(value, name, op)
        if _dt.dtype_of(t._data).kind not in ("int", "uint") or t.size != 1:
            raise TypeError(f"For '{op}', '{name}' must be an int or a 0-D int Tensor, but got {describe(value)}")
        return int(t.asnumpy().reshape(()))
    return int_arg(value, name, op)


def _k_range(k, op, tensor_only=False):
    if isinstance(k, Tensor):
        if k.dtype is not _dt.int32:
            raise TypeError(f"For '{op}', 'k' must be a Tensor of int32, but got dtype {k.dtype}")
        values = [int(v) for v in np.asarray(k.asnumpy()).reshape(-1)]
    elif not tensor_only and isinstance(k, (int, np.integer)) and not isinstance(k, bool):
        values = [int(k)]
    else:
        raise TypeError(f"For '{op}', 'k' must be {'' if tensor_only else 'an int or '}a Tensor of int32, "
                        f"but got {describe(k)}")
    if len(values) not in (1, 2):
        raise ValueError(f"For '{op}', 'k' must hold one or two values, but got {values}")
    k0, k1 = values[0], values[-1]
    if k0 > k1:
        raise ValueError(f"For '{op}', 'k[0]' must not be greater than 'k[1]', but got {values}")
    return k0, k1, len(values) == 1 or k0 == k1


def _scalar_of(value, name, op):
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"For '{op}', '{name}' must be a single value, but got a Tensor of shape "
                             f"{tuple(value.shape)}")
        return value.reshape(()) if value.ndim else value
    if isinstance(value, (numbers.Number, np.number)) and not isinstance(value, (bool, complex)):
        return value
    raise TypeError(f"For '{op}', '{name}' must be a number or a Tensor, but got {describe(value)}")


def _matrix_diag(x, k, num_rows, num_cols, padding_value, align, op, tensor_k=False):
    t = tensor_arg(x, "x", op)
    if align not in _ALIGNS:
        raise ValueError(f"For '{op}', 'align' must be one of {_ALIGNS}, but got {align!r}")
    k0, k1, single = _k_range(k, op, tensor_k)
    num_rows = _int_scalar(num_rows, "num_rows", op)
    num_cols = _int_scalar(num_cols, "num_cols", op)
    if t.ndim < (1 if single else 2):
        raise ValueError(f"For '{op}', 'x' must have at least {1 if single else 2} dimensions, but got shape {tuple(t.shape)}")
    if not single and t.shape[-2] != k1 - k0 + 1:
        raise ValueError(f"For '{op}', the second-last axis of 'x' ({t.shape[-2]}) must hold k[1] - k[0] + 1 = "
                         f"{k1 - k0 + 1} diagonals")
    max_len = t.shape[-1]
    min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    if num_rows < min_rows and num_cols < min_cols or num_rows <= 0 or num_cols <= 0:
        raise ValueError(f"For '{op}', num_rows {num_rows} and num_cols {num_cols} are too small for the "
                         f"diagonals of length {max_len} ('x' of shape {tuple(t.shape)}, k {(k0, k1)})")
    check_allocation(tuple(t.shape)[:-1 if single else -2] + (num_rows, num_cols), _dt.int64, op,
                     f"num_rows {num_rows} and num_cols {num_cols} for k {k0 if single else (k0, k1)}")
    fill = _scalar_of(padding_value, "padding_value", op)
    return _rearrange(t, "MatrixDiagV3", _matrix_diag_plan, k0, k1, num_rows, num_cols, align, single, fill=fill)


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with the diagonals ``k`` (an int, or an int32 Tensor ``[k0, k1]``) taken from ``x``.

    With one diagonal ``x`` has shape ``(..., L)``; with ``k = [k0, k1]`` it has shape
    ``(..., k1 - k0 + 1, L)``, the highest diagonal first.  Shorter diagonals are aligned
    as ``align`` says (superdiagonals first, then subdiagonals).  The rest holds
    ``padding_value``.

    >>> import cellkit as ms
    >>> print(matrix_diag(ms.Tensor([1.0, 2.0]), k=1))
    [[0. 1. 0.]
     [0. 0. 2.]
     [0. 0. 0.]]
    """
    return _matrix_diag(x, k, num_rows, num_cols, padding_value, align, "matrix_diag")


def _matrix_diag_part(x, k, padding_value, align, op):
    t = tensor_arg(x, "x", op)
    if align not in _ALIGNS:
        raise ValueError(f"For '{op}', 'align' must be one of {_ALIGNS}, but got {align!r}")
    k0, k1, single = _k_range(k, op, tensor_only=True)
    if t.ndim < 2:
        raise ValueError(f"For '{op}', 'x' must have at least 2 dimensions, but got shape {tuple(t.shape)}")
    rows, cols = t.shape[-2:]
    if not (-rows < k0 <= k1 < cols) and (rows and cols):
        raise ValueError(f"For '{op}', 'k' {(k0, k1)} must lie within (-{rows}, {cols})")
    if not isinstance(padding_value, Tensor):
        raise TypeError(f"For '{op}', 'padding_value' must be a 0-D Tensor, but got {describe(padding_value)}")
    fill = _scalar_of(padding_value, "padding_value", op)
    return _rearrange(t, "MatrixDiagPartV3", _matrix_diag_part_plan, k0, k1, align, single, fill=fill)


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals ``k`` (an int32 Tensor: one value or ``[k0, k1]``) of the last two axes of ``x``.

    The result has shape ``(..., max_len)`` for one diagonal, ``(..., k1 - k0 + 1, max_len)``
    for a range (highest first); shorter diagonals are aligned as ``align`` says and padded with
    ``padding_value``.
    """
    return _matrix_diag_part(x, k, padding_value, align, "matrix_diag_part")


class MatrixDiagV3(Primitive):
    """``MatrixDiagV3(align)(x, k, num_rows, num_cols, padding_value)``: :func:`matrix_diag` with Tensor arguments."""

    @prim_attr_register
    def __init__(self, align="RIGHT_LEFT"):
        if align not in _ALIGNS:
            raise ValueError(f"For 'MatrixDiagV3', 'align' must be one of {_ALIGNS}, but got {align!r}")

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        return _matrix_diag(x, k, num_rows, num_cols, padding_value, self.align, "MatrixDiagV3", tensor_k=True)


class MatrixDiagPartV3(Primitive):
    """``MatrixDiagPartV3(align)(x, k, padding_value)``: :func:`matrix_diag_part`."""

    @prim_attr_register
    def __init__(self, align="RIGHT_LEFT"):
        if align not in _ALIGNS:
            raise ValueError(f"For 'MatrixDiagPartV3', 'align' must be one of {_ALIGNS}, but got {align!r}")

    def __call__(self, x, k, padding_value):
        return _matrix_diag_part(x, k, padding_value, self.align, "MatrixDiagPartV3")


def _diag_part_plan(shape):
    k = len(shape) // 2
    inner = shape[:k]
    return _grid(shape)[tuple(np.indices(inner).reshape(k, -1)) * 2].reshape(inner)


class DiagPart(Primitive):
    """``DiagPart()(x)``: for ``x`` of shape ``(D1..Dk, D1..Dk)``, the ``(D1..Dk)`` tensor ``x[i.., i..]``."""

    def __call__(self, input_x):
        x = tensor_arg(input_x, "input_x", "DiagPart")
        k = x.ndim // 2
        if x.ndim == 0 or x.ndim % 2 or tuple(x.shape[:k]) != tuple(x.shape[k:]):
            raise ValueError(f"For 'DiagPart', 'input_x' must have an even rank and shape (D1..Dk, D1..Dk), but "
                             f"got {tuple(x.shape)}")
        return _rearrange(x, "DiagPart", _diag_part_plan)


class FillDiagonal(Primitive):
    """``FillDiagonal(fill_value, wrap=False)(x)``: ``x`` with its main diagonal set to ``fill_value`` (a new tensor)."""

    @prim_attr_register
    def __init__(self, fill_value, wrap=False):
        if not isinstance(fill_value, float):
            raise TypeError(f"For 'FillDiagonal', the type of 'fill_value' should be 'float', but got "
                            f"{describe(fill_value)}")

    def __call__(self, input_x):
        return _fill_diagonal(input_x, self.fill_value, self.wrap, "FillDiagonal")


# -- queries -------------------------------------------------------------------------------------
def numel(input):
    """The number of elements (a Python int)."""
    return tensor_arg(input, "input", "numel").size


def size(input_x):
    """The number of elements (a Python int)."""
    return tensor_arg(input_x, "input_x", "size").size


def rank(input_x):
    """The number of dimensions (a Python int)."""
    return tensor_arg(input_x, "input_x", "rank").ndim


def shape_(x):
    """The shape, as a tuple of ints."""
    return tuple(tensor_arg(x, "x", "shape_").shape)


def dyn_shape(input_x):
    """The shape, as a 1-D Int64 tensor."""
    t = tensor_arg(input_x, "input_x", "dyn_shape")
    return wrap(_device(np.asarray(t.shape, dtype=np.int64)))


def dtype(x):
    """The dtype of a Tensor (``mindspore.float32`` ...)."""
    return tensor_arg(x, "x", "dtype").dtype


class TensorShape(Primitive):
    """``TensorShape()(x)``: the shape as a 1-D Int64 tensor."""

    def __call__(self, input_x):
        return dyn_shape(input_x)


class TensorToTuple(Primitive):
    """``TensorToTuple()(x)``: the values of a 1-D tensor as a tuple of Python numbers."""

    def __call__(self, input_x):
        x = tensor_arg(input_x, "input_x", "TensorToTuple")
        if x.ndim != 1:
            raise TypeError(f"For 'TensorToTuple', 'input_x' must be a 1-D Tensor, but got shape {tuple(x.shape)}")
        return tuple(x.asnumpy().tolist())


class IdentityN(Primitive):
    """``IdentityN()(x)``: the tensors of the list or tuple ``x``, returned as a tuple."""

    def __call__(self, x):
        if not isinstance(x, (tuple, list)) or not x or not all(isinstance(t, Tensor) for t in x):
            raise TypeError(f"For 'IdentityN', 'x' must be a non-empty list or tuple of Tensors, but got "
                            f"{describe(x)}")
        return tuple(x)


class InvertPermutation(Primitive):
    """``InvertPermutation()(x)``: the inverse of a permutation given as a tuple of ints."""

    def __call__(self, input_x):
        if isinstance(input_x, Tensor):
            raise ValueError(f"For 'InvertPermutation', the value of 'input_x' must be non-Tensor, but got "
                             f"{describe(input_x)}")
        perm = _ints(input_x, "input_x", "InvertPermutation", allow_int=False)
        if sorted(perm) != list(range(len(perm))):
            raise ValueError(f"For 'InvertPermutation', 'input_x' must be a permutation of 0..{len(perm) - 1}, "
                             f"but got {perm}")
        return tuple(int(i) for i in np.argsort(perm))


class UnravelIndex(Primitive):
    """``UnravelIndex()(indices, dims)``: the coordinates of flat ``indices`` in a tensor of shape ``dims``.

    The result has shape ``(len(dims),) + indices.shape`` and the dtype of ``indices``.
    """

    def __call__(self, indices, dims):
        idx_t, idx = _index_tensor(indices, "indices", "UnravelIndex")
        dims_t, shape = _index_tensor(dims, "dims", "UnravelIndex")
        if idx_t.dtype is not dims_t.dtype:
            raise TypeError(f"For 'UnravelIndex', 'indices' and 'dims' must have one dtype, but got {idx_t.dtype} "
                            f"and {dims_t.dtype}")
        if shape.ndim != 1 or idx.ndim > 1 or (shape <= 0).any():
            raise ValueError(f"For 'UnravelIndex', 'dims' must be 1-D with positive sizes and 'indices' 0-D or "
                             f"1-D, but got {shape.tolist()} and shape {idx.shape}")
        total = int(np.prod(shape))
        if idx.size and (idx.min() < 0 or idx.max() >= total):
            raise ValueError(f"For 'UnravelIndex', 'indices' must be in [0, {total}), but got {idx.tolist()}")
        coords = np.stack(np.unravel_index(idx, tuple(int(d) for d in shape)))
        return wrap(_device(coords.astype(idx_t.dtype.to_backend(np))))


class Unstack(Primitive):
    """``Unstack(axis=0, num=None)(x)``: the slices along ``axis``."""

    @prim_attr_register
    def __init__(self, axis=0, num=None):
        int_arg(axis, "axis", "Unstack")

    def __call__(self, input_x):
        x = tensor_arg(input_x, "input_x", "Unstack")
        if x.ndim == 0:
            raise ValueError("For 'Unstack', input's rank should be greater equal to 1, but got 0")
        return _shape.unstack(x, self.axis)


# -- the remaining Primitives --------------------------------------------------------------------
class Col2Im(Primitive):
    """``Col2Im(kernel_size, dilation=1, padding=0, stride=1)(x, output_size)``: :func:`col2im`."""

    @prim_attr_register
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        _window_args(kernel_size, dilation, padding, stride, "Col2Im")

    def __call__(self, x, output_size):
        t = tensor_arg(x, "x", "Col2Im")
        size = _output_size(output_size, "Col2Im")
        key = _window_args(self.kernel_size, self.dilation, self.padding, self.stride, "Col2Im")
        if t.ndim != 4 or t.shape[2] != key[0][0] * key[0][1]:
            raise ValueError(f"For 'Col2Im', 'x' must be 4-D (N, C, kh*kw, L) with kh*kw = {key[0][0] * key[0][1]}, "
                             f"but got shape {tuple(t.shape)}")
        return _col2im(t, size, key, "Col2Im", tuple(t.shape), tuple(t.shape))


class Im2Col(Primitive):
    """``Im2Col(ksizes, strides=1, dilations=1, pads=0)(x)``: the windows of ``(N, C, H, W)`` as ``(N, C, kh*kw, L)``.

    ``pads`` is one int, ``(ph, pw)``, or ``(top, bottom, left, right)``.
    """

    @prim_attr_register
    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        _pair(ksizes, "ksizes", "Im2Col")
        _pair(strides, "strides", "Im2Col")
        _pair(dilations, "dilations", "Im2Col")
        self._pads = _im2col_pads(pads)

    def __call__(self, x):
        t = tensor_arg(x, "x", "Im2Col")
        if t.ndim != 4:
            raise ValueError(f"For 'Im2Col', 'x' must be 4-D (N, C, H, W), but got shape {tuple(t.shape)}")
        top, bottom, left, right = self._pads
        if (top, left) != (bottom, right):  # uneven padding: pad first, then take windows without padding
            t = pad(t, (left, right, top, bottom))
            top = left = 0
        key = (_pair(self.ksizes, "ksizes", "Im2Col"), _pair(self.dilations, "dilations", "Im2Col"), (top, left),
               _pair(self.strides, "strides", "Im2Col"))
        key = _window_key(tuple(t.shape), key, "Im2Col", f"'x' of shape {tuple(t.shape)}, ksizes {key[0]}, "
                          f"dilations {key[1]}, pads {self._pads}, strides {key[3]}")
        return _rearrange(t, "Im2Col", _im2col_plan, *key)


def _im2col_pads(pads):
    values = _ints(pads, "pads", "Im2Col")
    if len(values) == 1:
        values = values * 4
    elif len(values) == 2:
        values = (values[0], values[0], values[1], values[1])
    elif len(values) != 4:
        raise ValueError(f"For 'Im2Col', 'pads' must hold 1, 2 or 4 ints, but got {values}")
    if any(v < 0 for v in values):
        raise ValueError(f"For 'Im2Col', 'pads' must not be negative, but got {values}")
    return values


class Meshgrid(Primitive):
    """``Meshgrid(indexing='xy')(inputs)``: :func:`meshgrid` of a tuple of 1-D tensors."""

    @prim_attr_register
    def __init__(self, indexing="xy"):
        if indexing not in ("xy", "ij"):
            raise ValueError(f"For 'Meshgrid', 'indexing' must be 'xy' or 'ij', but got {indexing!r}")

    def __call__(self, inputs):
        if not isinstance(inputs, (tuple, list)):
            raise TypeError(f"For 'Meshgrid', 'inputs' must be a tuple of Tensors, but got {describe(inputs)}")
        return _meshgrid(tuple(inputs), self.indexing, "Meshgrid")


class MirrorPad(Primitive):
    """``MirrorPad(mode='REFLECT')(x, paddings)``: :func:`mirror_pad`."""

    @prim_attr_register
    def __init__(self, mode="REFLECT"):
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'MirrorPad', 'mode' must be 'REFLECT' or 'SYMMETRIC', but got {mode!r}")

    def __call__(self, input_x, paddings):
        return _mirror_pad(input_x, paddings, self.mode, "MirrorPad")


class Pad(Primitive):
    """``Pad(paddings)(x)``: zero padding, ``paddings`` holding one ``(before, after)`` pair per axis."""

    @prim_attr_register
    def __init__(self, paddings):
        if not isinstance(paddings, tuple) or any(not isinstance(p, (tuple, list)) or len(p) != 2 for p in paddings):
            raise TypeError(f"For 'Pad', 'paddings' must be a tuple of (before, after) pairs, but got "
                            f"{describe(paddings)}")

    def __call__(self, input_x):
        x = tensor_arg(input_x, "input_x", "Pad")
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', 'paddings' must hold one pair per dimension ({x.ndim}), but got "
                             f"{self.paddings}")
        widths = tuple((int(b), int(a)) for b, a in self.paddings)
        if any(min(p) < 0 for p in widths):
            raise ValueError(f"For 'Pad', 'paddings' must not be negative, but got {widths}")
        return _rearrange(x, "Pad", _pad_plan, widths, "constant")


class PadV3(Primitive):
    """``PadV3(mode='constant', paddings_contiguous=True)(x, paddings, value=None)``.

    ``paddings`` as for :func:`pad` (from the last axis); with ``paddings_contiguous=False``
    all the befores come first, then all the afters.
    """

    @prim_attr_register
    def __init__(self, mode="constant", paddings_contiguous=True):
        if mode not in ("constant", "reflect", "edge", "circular"):
            raise ValueError(f"For 'PadV3', 'mode' must be 'constant', 'reflect', 'edge' or 'circular', but got "
                             f"{mode!r}")

    def __call__(self, x, paddings, value=None):
        pads = list(_int_sequence(paddings, "paddings", "PadV3"))
        if not self.paddings_contiguous:
            half = len(pads) // 2
            pads = [v for pair in zip(pads[:half], pads[half:]) for v in pair]
        mode = "replicate" if self.mode == "edge" else self.mode
        if mode != "constant":
            t = tensor_arg(x, "x", "PadV3")
            if len(pads) // 2 + 2 != t.ndim and not (len(pads) == 2 and t.ndim in (2, 3)):
                raise ValueError(f"For 'PadV3', the input dims when padding's size equal {len(pads)} must be equal "
                                 f"to {len(pads) // 2 + 2}, but got shape {tuple(t.shape)}")
            return pad(t, tuple(pads), mode)
        return pad(x, tuple(pads), "constant", 0 if value is None else value)


class ReverseSequence(Primitive):
    """``ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths)``: :func:`reverse_sequence`."""

    @prim_attr_register
    def __init__(self, seq_dim, batch_dim=0):
        int_arg(seq_dim, "seq_dim", "ReverseSequence")
        int_arg(batch_dim, "batch_dim", "ReverseSequence")

    def __call__(self, x, seq_lengths):
        return _reverse_sequence(x, seq_lengths, self.seq_dim, self.batch_dim, "ReverseSequence")


class Slice(Primitive):
    """``Slice()(x, begin, size)``: :func:`slice`."""

    def __call__(self, x, begin, size):
        return _slice(x, begin, size, "Slice")


class SpaceToBatchND(Primitive):
    """``SpaceToBatchND(block_shape, paddings)(x)``: :func:`space_to_batch_nd`."""

    @prim_attr_register
    def __init__(self, block_shape, paddings):
        pass

    def __call__(self, input_x):
        return space_to_batch_nd(input_x, self.block_shape, self.paddings)


class Tril(Primitive):
    """``Tril(diagonal=0)(x)``: :func:`tril`."""

    @prim_attr_register
    def __init__(self, diagonal=0):
        if isinstance(diagonal, bool) or not isinstance(diagonal, (int, np.integer)):
            raise TypeError(f"For 'Tril', the type of 'diagonal' should be 'int', but got {describe(diagonal)}")

    def __call__(self, x):
        return _tri(x, self.diagonal, True, "Tril")


# -- Tensor methods ------------------------------------------------------------------------------
def _size_args(size, op):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(Tensor([2, 3]))`` -> a tuple of ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        size = size[0]
    return _int_sequence(size, "size", op) if isinstance(size, Tensor) else _ints(tuple(size), "size", op,
                                                                                  allow_int=False)


def _expand(self, *size):
    """``t.expand(2, 3)`` / ``t.expand((2, 3))``: broadcast to ``size`` (``-1`` keeps an axis)."""
    return _shape.broadcast_to(self, _size_args(size, "expand"))


def _expand_as(self, other=None, *, x=None):
    other = x if other is None else other
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'expand_as', 'other' must be a Tensor, but got {describe(other)}")
    return _shape.broadcast_to(self, tuple(other.shape))


def _reshape_as(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'reshape_as', 'other' must be a Tensor, but got {describe(other)}")
    return _shape.reshape(self, tuple(other.shape))


def _view_as(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'view_as', 'other' must be a Tensor, but got {describe(other)}")
    return _shape.reshape(self, tuple(other.shape))


def _resize(self, *new_shape):
    """A new tensor of ``new_shape`` holding the values in order, zero-filled or cut (``self`` is unchanged)."""
    shape = _size_args(new_shape, "resize")
    if any(d < 0 for d in shape):
        raise ValueError(f"For 'resize', 'new_shape' must hold sizes >= 0, but got {shape}")
    check_allocation(shape, _dt.int64, "resize", f"'new_shape' {shape}")
    flat = _shape.reshape(self, (-1,))
    total = _size(shape)
    positions = np.arange(total, dtype=np.int64)
    valid = positions < self.size
    return gather_host(flat, np.where(valid, positions, 0).reshape(shape), "Resize",
                       None if valid.all() else valid.reshape(shape))


def _sum_to_size(self, *size):
    """Sum ``self`` down to ``size`` (which must broadcast to self's shape)."""
    shape = _size_args(size, "sum_to_size")
    mine = tuple(self.shape)
    if len(shape) > len(mine) or any(s not in (1, m) for s, m in zip(shape[::-1], mine[::-1])):
        raise ValueError(f"For 'sum_to_size', 'size' {shape} is not expandable to the tensor's shape {mine}")
    lead = len(mine) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and mine[lead + i] != 1)
    out = _reduce.sum(self, axes) if axes else self
    return _shape.reshape(out, shape)


def _repeat(self, *repeats):
    """``t.repeat(2, 1)`` / ``t.repeat((2, 1))``: tile the tensor (``repeats`` may add leading axes)."""
    reps = _size_args(repeats, "repeat")
    if len(reps) < self.ndim:
        raise RuntimeError(f"For 'repeat', the number of repeats {reps} must not be smaller than the number "
                           f"of dimensions of the tensor of shape {tuple(self.shape)}")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"For 'repeat', 'repeats' must not be negative, but got {reps}")
    return _shape.tile(self, reps)


def _repeat_interleave_method(self, repeats, dim=None, *, output_size=None):
    out = _repeat_interleave(self, repeats, dim, "repeat_interleave")
    if output_size is not None and (out.shape[dim] if dim is not None else out.size) != output_size:
        raise ValueError(f"For 'repeat_interleave', 'output_size' {output_size} does not match the result's length")
    return out


def _chunk(self, chunks, dim=None, *, axis=None):
    axis = 0 if dim is None and axis is None else (dim if dim is not None else axis)
    return _shape.chunk(self, chunks, axis)


def _split_method(self, split_size_or_sections=None, dim=None, *, axis=None, split_size=None):
    sections = split_size if split_size_or_sections is None else split_size_or_sections
    axis = 0 if dim is None and axis is None else (dim if dim is not None else axis)
    return _shape.split(self, sections, axis)


def _narrow(self, dim, start, length):
    if isinstance(start, Tensor):
        raise TypeError(f"For 'narrow', 'start' must be an int, but got {describe(start)}")
    return _shape.narrow(self, dim, start, length)


def _diag_method(self, diagonal=0):
    if diagonal != 0:
        raise ValueError(f"For 'Tensor.diag', the argument 'diagonal' should be '0', but got {diagonal}.")
    return diag(self)


def _diagonal_method(self, offset=0, axis1=0, axis2=1):
    x = tensor_arg(self, "input", "diagonal")
    key = _diagonal_axes(x, offset, axis1, axis2, "diagonal", ("axis1", "axis2"))
    return _rearrange(x, "Diagonal", _diagonal_plan, *key)


def _select_method(self, *args, **kwargs):
    """``t.select(dim, index)`` (a slice) or ``t.select(condition, y)`` (``where(condition, t, y)``)."""
    if (args and isinstance(args[0], Tensor)) or "condition" in kwargs:
        bound = dict(zip(("condition", "y"), args), **kwargs)
        return _math.where(bound["condition"], self, bound["y"])
    bound = dict(zip(("dim", "index"), args), **kwargs)
    dim = normalize_axis(bound["dim"], self.ndim, "select", "dim")
    n = self.shape[dim]
    index = int_arg(bound["index"], "index", "select", -n, n - 1)
    return _shape.getitem(self, (_py_slice(None),) * dim + (index,))


def _where_method(self, condition, y):
    return _math.where(condition, self, y)


def _roll_method(self, shifts, dims=None):
    return roll(self, shifts, dims)


def _tril_method(self, diagonal=0):
    return tril(self, diagonal)


def _triu_method(self, diagonal=0):
    return triu(self, diagonal)


def _reverse_sequence_method(self, seq_lengths, seq_dim=0, batch_dim=0):
    return _reverse_sequence(self, seq_lengths, seq_dim, batch_dim, "reverse_sequence")


def _unbind_method(self, dim=0):
    return unbind(self, dim)


def _fill_diagonal_method(self, fill_value, wrap=False):
    return _fill_diagonal(self, fill_value, wrap)



# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops.
TENSOR_METHODS = {
    "chunk": _chunk, "diag": _diag_method, "diagflat": diagflat, "diagonal": _diagonal_method,
    "diagonal_scatter": diagonal_scatter, "dsplit": dsplit, "hsplit": hsplit, "vsplit": vsplit,
    "split": _split_method, "tensor_split": tensor_split, "unbind": _unbind_method, "expand": _expand,
    "expand_as": _expand_as, "flip": flip, "fliplr": fliplr, "flipud": flipud, "moveaxis": moveaxis,
    "movedim": movedim, "narrow": _narrow, "ravel": ravel, "repeat": _repeat,
    "repeat_interleave": _repeat_interleave_method, "reshape_as": _reshape_as, "resize": _resize,
    "reverse": reverse, "reverse_sequence": _reverse_sequence_method, "roll": _roll_method, "rot90": rot90,
    "select": _select_method, "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "swapdims": swapdims, "t": t, "tril": _tril_method, "triu": _triu_method, "unfold": unfold,
    "view_as": _view_as, "where": _where_method, "fold": fold, "col2im": col2im,
    "fill_diagonal": _fill_diagonal_method, "sum_to_size": _sum_to_size,
}
