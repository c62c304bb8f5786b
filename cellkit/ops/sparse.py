"""COO and CSR sparse tensors and their ops.

A :class:`COOTensor` holds the coordinates of its non-zero entries
(``indices``, shape ``(N, 2)``) and their ``values`` (shape ``(N,)``); a
:class:`CSRTensor` holds, row by row, the start of each row in ``indices``
(``indptr``, length ``rows + 1``), the column of each entry (``indices``) and
its value.  Both are 2-D, as in MindSpore.

The values are ordinary Tensors and every op computes on them with
cellkit's own ops, so gradients flow to the values (and to the dense
operands) as through any other op: ``to_dense`` scatters the values into a
zero matrix, ``csr_mv`` gathers the dense rows each entry needs, multiplies
and sums them per row.

>>> import cellkit as ms
>>> from cellkit import ops
>>> coo = ms.COOTensor(ms.Tensor([[0, 1], [1, 2]], ms.int32), ms.Tensor([1.0, 2.0]), (3, 4))
>>> print(coo.to_dense())
[[0. 1. 0. 0.]
 [0. 0. 2. 0.]
 [0. 0. 0. 0.]]
>>> csr = coo.to_csr()
>>> print(csr.indptr, csr.indices)
[0 1 2 2] [1 2]
>>> print(ops.csr_mv(csr, ms.Tensor([[1.0], [1.0], [1.0], [1.0]])))
[[1.]
 [2.]
 [0.]]
"""
from __future__ import annotations

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor
from ._core import backend, describe, dtype_arg, int_arg, tensor_arg, wrap
from .primitive import Primitive, prim_attr_register

_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
          "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round",
          "sigmoid", "sin", "sinh", "softsign", "sqrt", "square", "tan", "tanh")

__all__ = ["COOTensor", "CSRTensor", "coo2csr", "csr2coo", "coalesce", "coo_add", "coo_concat", "csr_add",
           "csr_div", "csr_gather", "csr_mul", "csr_mv", "csr_reduce_sum", "csr_softmax", "csr_to_coo",
           "Coalesce", "SparseToDense"]  # + the coo_* / csr_* unary ops, below

_INDEX_DTYPES = (_dt.int16, _dt.int32, _dt.int64)


def _ops():
    from .. import ops
    return ops


def _host(t):
    return np.asarray(backend().to_host(t._data))


def _device(host, dtype):
    from .random import _to_device
    return wrap(_to_device(np.asarray(host), dtype))


def _shape_of(shape, what):
    if not isinstance(shape, tuple):
        raise TypeError(f"For {what}, 'shape' must be a tuple of ints, but got {describe(shape)}")
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"For {what}, 'shape' must hold ints, but got {shape}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 or d >= 2 ** 62 for d in dims):
        raise ValueError(f"For {what}, 'shape' must hold non-negative sizes, but got {dims}")
    if len(dims) != 2:
        raise ValueError(f"For {what}, the length of 'shape' must be 2, but got {dims}")
    return dims


def _index_tensor(value, name, what, ndim):
    if not isinstance(value, Tensor):
        raise TypeError(f"For {what}, '{name}' must be a Tensor, but got {describe(value)}")
    t = tensor_arg(value, name, what)
    if t.dtype not in _INDEX_DTYPES:
        raise TypeError(f"For {what}, the type of '{name}' must be one of [int16, int32, int64], but got {t.dtype}")
    if t.ndim != ndim:
        raise ValueError(f"For {what}, '{name}' must be {ndim}-D, but got shape {tuple(t.shape)}")
    return t


def _values_tensor(value, what):
    if not isinstance(value, Tensor):
        raise TypeError(f"For {what}, 'values' must be a Tensor, but got {describe(value)}")
    t = tensor_arg(value, "values", what)
    if t.ndim != 1:
        raise ValueError(f"For {what}, 'values' must be 1-D, but got shape {tuple(t.shape)}")
    return t


def _sparse_repr(kind, shape, dtype, parts):
    inner = ", ".join(f"{name}=Tensor(shape={list(t.shape)}, dtype={t.dtype}, value={t.asnumpy()})"
                      for name, t in parts)
    return f"{kind}(shape={list(shape)}, dtype={dtype}, {inner})"


# ------------------------------------------------------------------ COO
class COOTensor:
    """A 2-D sparse tensor in coordinate format: ``values[i]`` sits at ``indices[i]``.

    Parameters
    ----------
    indices : Tensor
        Int16/32/64, shape ``(N, 2)``: the (row, column) of each value.
    values : Tensor
        Shape ``(N,)``.
    shape : tuple of int
        The dense shape (two dimensions).
    coo_tensor : COOTensor, optional
        Copy another COOTensor instead.

    Entries at the same coordinates add up in :meth:`to_dense`; :meth:`coalesce` merges them.

    >>> import cellkit as ms
    >>> x = COOTensor(ms.Tensor([[0, 1]], ms.int32), ms.Tensor([5.0]), (2, 2))
    >>> x.shape, x.size, x.ndim
    ((2, 2), 1, 2)
    """

    __slots__ = ("_indices", "_values", "_shape")

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        what = "COOTensor"
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"For {what}, 'coo_tensor' must be a COOTensor, but got {describe(coo_tensor)}")
            self._indices, self._values, self._shape = coo_tensor._indices, coo_tensor._values, coo_tensor._shape
            return
        dims = _shape_of(shape, what)
        idx = _index_tensor(indices, "indices", what, 2)
        vals = _values_tensor(values, what)
        if idx.shape[0] != vals.shape[0]:
            raise ValueError(f"For {what}, 'indices.shape[0]' must be equal to 'values.shape[0]', but got 'indices' "
                             f"of shape {tuple(idx.shape)} and 'values' of shape {tuple(vals.shape)}")
        if idx.shape[1] != len(dims):
            raise ValueError(f"For {what}, 'indices.shape[1]' must be the number of dimensions {len(dims)} of the "
                             f"shape {dims}, but got 'indices' of shape {tuple(idx.shape)}")
        self._indices, self._values, self._shape = idx, vals, dims

    @property
    def indices(self):
        """The (row, column) of each value, shape ``(N, 2)``."""
        return self._indices

    @property
    def values(self):
        """The non-zero values, shape ``(N,)``."""
        return self._values

    @property
    def shape(self):
        """The dense shape."""
        return self._shape

    @property
    def dtype(self):
        """The values' dtype."""
        return self._values.dtype

    @property
    def itemsize(self):
        """Bytes per value."""
        return self._values.dtype.itemsize

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        """The number of stored values."""
        return self._values.shape[0]

    def to_tuple(self):
        """``(indices, values, shape)``."""
        return self._indices, self._values, self._shape

    def to_dense(self):
        """The dense Tensor (entries at the same coordinates add up)."""
        return _scatter_dense(self._indices, self._values, self._shape, "COOTensor.to_dense")

    def to_csr(self):
        """The same entries as a :class:`CSRTensor` (sorted by row, then column)."""
        return _coo_to_csr(self, "COOTensor.to_csr")

    def coalesce(self):
        """A copy with sorted coordinates, each appearing once (values at the same place summed)."""
        _require_int64(self._indices, "indices", "COOTensor.coalesce")
        idx, vals = _coalesced(self._indices, self._values)
        return COOTensor(idx, vals, self._shape)

    def abs(self):
        """Absolute values."""
        return COOTensor(self._indices, _ops().abs(self._values), self._shape)

    def astype(self, dtype):
        """A copy with the values converted to ``dtype``."""
        return COOTensor(self._indices, _ops().cast(self._values, dtype_arg(dtype, "dtype", "COOTensor.astype")),
                         self._shape)

    def add(self, other, thresh):
        """``coo_add(self, other, thresh)``."""
        return coo_add(self, other, thresh)

    def __add__(self, other):
        if isinstance(other, COOTensor):
            return coo_add(self, other, Tensor(0.0, self.dtype))
        if isinstance(other, Tensor):
            return _ops().add(self.to_dense(), other)
        raise TypeError(f"For 'COOTensor.__add__', the other operand must be a COOTensor or a Tensor, but got "
                        f"{describe(other)}")

    def __sub__(self, other):
        if isinstance(other, COOTensor):
            return coo_add(self, -other, Tensor(0.0, self.dtype))
        if isinstance(other, Tensor):
            return _ops().sub(self.to_dense(), other)
        raise TypeError(f"For 'COOTensor.__sub__', the other operand must be a COOTensor or a Tensor, but got "
                        f"{describe(other)}")

    def _dense_operand(self, other, op):
        if not isinstance(other, Tensor):
            raise TypeError(f"For 'COOTensor.{op}', the other operand must be a dense Tensor, but got "
                            f"{describe(other)}")
        dense = _ops().broadcast_to(tensor_arg(other, "other", op), self._shape)
        return _gather_at(dense, self._indices)

    def __mul__(self, other):
        return COOTensor(self._indices, _ops().mul(self._values, self._dense_operand(other, "__mul__")), self._shape)

    def __truediv__(self, other):
        return COOTensor(self._indices, _ops().div(self._values, self._dense_operand(other, "__truediv__")),
                         self._shape)

    __div__ = __truediv__

    def __neg__(self):
        return COOTensor(self._indices, _ops().neg(self._values), self._shape)

    def __repr__(self):
        return _sparse_repr("COOTensor", self._shape, self.dtype, (("indices", self._indices),
                                                                   ("values", self._values)))

    __str__ = __repr__


def _flat_positions(indices, shape, op="COOTensor"):
    """Row-major positions of (row, column) pairs, as a host int64 array; RuntimeError when out of range."""
    host = _host(indices).astype(np.int64).reshape(-1, len(shape))
    for axis, size in enumerate(shape):
        column = host[:, axis]
        if column.size and (column.min() < 0 or column.max() >= size):
            raise RuntimeError(f"For '{op}', the 'indices' {host.tolist()} are out of range for the dense shape "
                               f"{list(shape)}")
    return np.ravel_multi_index(tuple(host.T), shape) if host.size else np.zeros(0, np.int64)


def _scatter_dense(indices, values, shape, op):
    from .shape_ops import scatter_add_rows

    positions = _flat_positions(indices, shape, op)
    n = int(np.prod(shape, dtype=np.int64))
    flat = scatter_add_rows(values, backend().from_host(positions), n)
    return _ops().reshape(flat, shape)


def _gather_at(dense, indices, op="COOTensor"):
    """``dense[indices[i, 0], indices[i, 1]]`` for each i (differentiable in ``dense``)."""
    positions = _flat_positions(indices, tuple(dense.shape), op)
    flat = _ops().reshape(dense, (int(np.prod(dense.shape, dtype=np.int64)),))
    return _ops().gather(flat, wrap(backend().from_host(positions)), 0)


def _require_int64(t, name, op):
    if t.dtype is not _dt.int64:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor[Int64], but got Tensor[{t.dtype}]")


def _coalesced(indices, values, order_by=None):
    """Sorted unique coordinates of ``indices`` (N, d) and the values summed per coordinate."""
    from .shape_ops import scatter_add_rows

    host = _host(indices).astype(np.int64)
    if host.size == 0:
        return indices, values
    unique, inverse = np.unique(host, axis=0, return_inverse=True)
    summed = scatter_add_rows(values, backend().from_host(inverse.reshape(-1).astype(np.int64)), unique.shape[0])
    return _device(unique, indices.dtype), summed


def _coo_to_csr(coo, op):
    host = _host(coo.indices).astype(np.int64)
    rows, cols = coo.shape
    _flat_positions(coo.indices, coo.shape)
    order = np.lexsort((host[:, 1], host[:, 0])) if host.size else np.zeros(0, np.int64)
    indptr = np.searchsorted(host[order, 0], np.arange(rows + 1), side="left") if host.size else \
        np.zeros(rows + 1, np.int64)
    values = coo.values if np.array_equal(order, np.arange(order.size)) else \
        _ops().gather(coo.values, wrap(backend().from_host(order)), 0)
    index_dtype = coo.indices.dtype
    return CSRTensor(_device(indptr, index_dtype), _device(host[order, 1] if host.size else np.zeros(0), index_dtype),
                     values, coo.shape)


# ------------------------------------------------------------------ CSR
class CSRTensor:
    """A 2-D sparse tensor in compressed-row format.

    Parameters
    ----------
    indptr : Tensor
        Int16/32/64, length ``rows + 1``: row ``r``'s entries are ``indptr[r]:indptr[r + 1]``.
    indices : Tensor
        Int16/32/64, shape ``(N,)``: the column of each entry.
    values : Tensor
        Shape ``(N,)``.
    shape : tuple of int
        The dense shape (two dimensions).
    csr_tensor : CSRTensor, optional
        Copy another CSRTensor instead.

    >>> import cellkit as ms
    >>> x = CSRTensor(ms.Tensor([0, 1, 2], ms.int32), ms.Tensor([0, 1], ms.int32), ms.Tensor([1.0, 2.0]), (2, 2))
    >>> print(x.to_dense())
    [[1. 0.]
     [0. 2.]]
    """

    __slots__ = ("_indptr", "_indices", "_values", "_shape")

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        what = "CSRTensor"
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"For {what}, 'csr_tensor' must be a CSRTensor, but got {describe(csr_tensor)}")
            self._indptr, self._indices = csr_tensor._indptr, csr_tensor._indices
            self._values, self._shape = csr_tensor._values, csr_tensor._shape
            return
        dims = _shape_of(shape, what)
        ptr = _index_tensor(indptr, "indptr", what, 1)
        idx = _index_tensor(indices, "indices", what, 1)
        vals = _values_tensor(values, what)
        if ptr.shape[0] != dims[0] + 1:
            raise ValueError(f"For {what}, 'indptr' must have length (1 + shape[0]) = {dims[0] + 1} for the shape "
                             f"{dims}, but got {ptr.shape[0]}")
        if idx.shape[0] != vals.shape[0]:
            raise ValueError(f"For {what}, 'indices' and 'values' must have the same length, but got 'indices' of "
                             f"shape {tuple(idx.shape)} and 'values' of shape {tuple(vals.shape)}")
        self._indptr, self._indices, self._values, self._shape = ptr, idx, vals, dims

    @property
    def indptr(self):
        """Where each row starts in ``indices`` / ``values`` (length ``rows + 1``)."""
        return self._indptr

    @property
    def indices(self):
        """The column of each entry."""
        return self._indices

    @property
    def values(self):
        """The non-zero values."""
        return self._values

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def itemsize(self):
        return self._values.dtype.itemsize

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        """The number of stored values."""
        return self._values.shape[0]

    def to_tuple(self):
        """``(indptr, indices, values, shape)``."""
        return self._indptr, self._indices, self._values, self._shape

    def _rows(self, op="CSRTensor"):
        """The row of each entry, on the host (int64)."""
        ptr = _host(self._indptr).astype(np.int64)
        counts = np.diff(ptr)
        if counts.size and (counts.min() < 0 or ptr[0] != 0 or ptr[-1] != self.size):
            raise RuntimeError(f"For '{op}', 'indptr' {ptr.tolist()} must start at 0, never decrease and end at "
                               f"the number of values {self.size}")
        return np.repeat(np.arange(self._shape[0], dtype=np.int64), counts)

    def _coordinates(self, op="CSRTensor"):
        rows = self._rows(op)
        cols = _host(self._indices).astype(np.int64)
        return np.stack([rows, cols], axis=1) if rows.size else np.zeros((0, 2), np.int64)

    def to_coo(self):
        """The same entries as a :class:`COOTensor`."""
        return COOTensor(_device(self._coordinates(), self._indices.dtype), self._values, self._shape)

    def to_dense(self):
        """The dense Tensor."""
        coordinates = _device(self._coordinates(), _dt.int64)
        return _scatter_dense(coordinates, self._values, self._shape, "CSRTensor.to_dense")

    def abs(self):
        """Absolute values."""
        return self._with(_ops().abs(self._values))

    def astype(self, dtype):
        """A copy with the values converted to ``dtype``."""
        return self._with(_ops().cast(self._values, dtype_arg(dtype, "dtype", "CSRTensor.astype")))

    def _with(self, values):
        return CSRTensor(self._indptr, self._indices, values, self._shape)

    def add(self, b, alpha, beta):
        """``alpha * self + beta * b`` (``csr_add``)."""
        return csr_add(self, b, alpha, beta)

    def mv(self, dense_vector):
        """``self @ dense_vector`` for a dense ``(columns, 1)`` matrix (``csr_mv``)."""
        return csr_mv(self, dense_vector)

    def mm(self, matrix):
        """``self @ matrix``: a dense Tensor for a dense ``matrix``, a CSRTensor for a CSRTensor."""
        if isinstance(matrix, CSRTensor):
            product = _ops().matmul(self.to_dense(), matrix.to_dense())
            return _dense_to_csr(product, self._indptr.dtype)
        return _csr_matmul(self, matrix, "CSRTensor.mm", vector=False)

    def sum(self, axis):
        """``csr_reduce_sum(self, axis)``."""
        return csr_reduce_sum(self, axis)

    def __add__(self, other):
        if isinstance(other, CSRTensor):
            one = Tensor(1.0, self.dtype)
            return csr_add(self, other, one, one)
        raise TypeError(f"For 'CSRTensor.__add__', the other operand must be a CSRTensor, but got {describe(other)}")

    def __sub__(self, other):
        if isinstance(other, CSRTensor):
            return csr_add(self, other, Tensor(1.0, self.dtype), Tensor(-1.0, self.dtype))
        raise TypeError(f"For 'CSRTensor.__sub__', the other operand must be a CSRTensor, but got {describe(other)}")

    def __mul__(self, other):
        return csr_mul(self, other)

    def __truediv__(self, other):
        return csr_div(self, other)

    __div__ = __truediv__

    def __neg__(self):
        return self._with(_ops().neg(self._values))

    def __repr__(self):
        return _sparse_repr("CSRTensor", self._shape, self.dtype, (("indptr", self._indptr),
                                                                   ("indices", self._indices),
                                                                   ("values", self._values)))

    __str__ = __repr__


def _dense_to_csr(dense, index_dtype):
    host = np.asarray(dense.asnumpy())
    rows, cols = np.nonzero(host)
    positions = rows * host.shape[1] + cols
    flat = _ops().reshape(dense, (host.size,))
    values = _ops().gather(flat, wrap(backend().from_host(positions.astype(np.int64))), 0)
    indptr = np.searchsorted(rows, np.arange(host.shape[0] + 1))
    return CSRTensor(_device(indptr, index_dtype), _device(cols, index_dtype), values, tuple(host.shape))


def _check_coo(x, op, name="x"):
    if not isinstance(x, COOTensor):
        raise TypeError(f"For '{op}', '{name}' must be a COOTensor, but got {describe(x)}")
    return x


def _check_csr(x, op, name="x"):
    if not isinstance(x, CSRTensor):
        raise TypeError(f"For '{op}', '{name}' must be a CSRTensor, but got {describe(x)}")
    return x


def _csr_entries_of(x, dense, op):
    """``dense`` (broadcast to ``x``'s shape) at ``x``'s entries."""
    if not isinstance(dense, Tensor):
        raise TypeError(f"For '{op}', 'y' must be a dense Tensor, but got {describe(dense)}")
    dense = tensor_arg(dense, "y", op)
    try:
        full = _ops().broadcast_to(dense, x.shape)
    except (ValueError, TypeError):
        raise ValueError(f"For '{op}', 'y' of shape {tuple(dense.shape)} cannot be broadcast to the sparse shape "
                         f"{x.shape}") from None
    return _gather_at(full, _device(x._coordinates(), _dt.int64))


def _csr_matmul(x, dense, op, vector):
    from .shape_ops import scatter_add_rows

    if not isinstance(dense, Tensor):
        raise TypeError(f"For '{op}', the dense operand must be a Tensor, but got {describe(dense)}")
    dense = tensor_arg(dense, "dense", op)
    if dense.ndim != 2:
        raise ValueError(f"For '{op}', only 2-D dense operands are supported, but the dense tensor has "
                         f"{dense.ndim} dimension(s)")
    if dense.shape[0] != x.shape[1]:
        raise ValueError(f"For '{op}', the dense operand must have {x.shape[1]} rows (the sparse matrix's columns), "
                         f"but got shape {tuple(dense.shape)}")
    if vector and dense.shape[1] != 1:
        raise ValueError(f"For '{op}', the dense vector must have shape ({x.shape[1]}, 1), but got "
                         f"{tuple(dense.shape)}")
    ops = _ops()
    rows = x._rows()
    cols = _host(x._indices).astype(np.int64)
    if cols.size and (cols.min() < 0 or cols.max() >= x.shape[1]):
        raise RuntimeError(f"For '{op}', the column indices {cols.tolist()} are out of range for {x.shape[1]} columns")
    picked = ops.gather(dense, wrap(backend().from_host(cols)), 0)                   # (N, k)
    values = ops.cast(x._values, dense.dtype) if x.dtype is not dense.dtype else x._values
    terms = ops.mul(picked, ops.reshape(values, (x.size, 1)))
    return scatter_add_rows(terms, backend().from_host(rows), x.shape[0])


# ------------------------------------------------------------------ index conversions
def coo2csr(row_indices, height):
    """The ``indptr`` (length ``height + 1``) of sorted COO ``row_indices``: row ``r`` starts at ``indptr[r]``.

    >>> import cellkit as ms
    >>> print(coo2csr(ms.Tensor([0, 1, 1, 2], ms.int32), 4))
    [0 1 3 4 4]
    """
    op = "coo2csr"
    rows = _index_tensor(row_indices, "row_indices", op, 1)
    if rows.dtype is not _dt.int32:
        raise TypeError(f"For '{op}', the dtype of 'row_indices' must be Int32, but got {rows.dtype}")
    height = int_arg(height, "height", op, minimum=0)
    from ..tensor import check_allocation
    check_allocation((height + 1,), rows.dtype, op, f"'height' {height}")
    host = _host(rows).astype(np.int64)
    if host.size and (host.min() < 0 or host.max() >= height):
        raise ValueError(f"For '{op}', 'row_indices' must be in [0, {height}), but got {host.tolist()}")
    return _device(np.searchsorted(np.sort(host), np.arange(height + 1), side="left"), rows.dtype)


def csr2coo(indptr, nnz):
    """The row index of each of the ``nnz`` entries described by ``indptr``.

    >>> import cellkit as ms
    >>> print(csr2coo(ms.Tensor([0, 1, 3, 4, 4], ms.int32), 4))
    [0 1 1 2]
    """
    op = "csr2coo"
    ptr = _index_tensor(indptr, "indptr", op, 1)
    if ptr.dtype is not _dt.int32:
        raise TypeError(f"For '{op}', the dtype of 'indptr' must be Int32, but got {ptr.dtype}")
    nnz = int_arg(nnz, "nnz", op, minimum=0)
    host = _host(ptr).astype(np.int64)
    counts = np.diff(host)
    if host.size == 0 or host[0] != 0 or (counts.size and counts.min() < 0) or host[-1] != nnz:
        raise ValueError(f"For '{op}', 'indptr' must start at 0, never decrease and end at 'nnz' ({nnz}), but got "
                         f"{host.tolist()}")
    return _device(np.repeat(np.arange(counts.size), counts), ptr.dtype)


def coalesce(x_indices, x_values, x_shape):
    """Merge the entries of a sparse tensor that share coordinates, sorted.

    ``x_indices`` is Int64 of shape ``(ndims, N)`` (one column per entry), ``x_values`` of shape ``(N,)``,
    ``x_shape`` an Int64 Tensor of the dense shape.  Returns ``(y_indices, y_values, y_shape)``.

    >>> import cellkit as ms
    >>> idx, vals, shape = coalesce(ms.Tensor([[1, 0, 1], [0, 1, 0]]), ms.Tensor([1.0, 2.0, 3.0]),
    ...                             ms.Tensor([2, 2]))
    >>> print(idx, vals)
    [[0 1]
     [1 0]] [2. 4.]
    """
    op = "coalesce"
    idx = _index_tensor(x_indices, "x_indices", op, 2)
    _require_int64(idx, "x_indices", op)
    if not isinstance(x_values, Tensor):
        raise TypeError(f"For '{op}', 'x_values' must be a Tensor, but got {describe(x_values)}")
    vals = tensor_arg(x_values, "x_values", op)
    if vals.ndim != 1 or vals.shape[0] != idx.shape[1]:
        raise ValueError(f"For '{op}', 'x_values' must be 1-D with {idx.shape[1]} entries (one per column of "
                         f"'x_indices'), but got shape {tuple(vals.shape)}")
    shape = _index_tensor(x_shape, "x_shape", op, 1)
    _require_int64(shape, "x_shape", op)
    if shape.shape[0] != idx.shape[0]:
        raise ValueError(f"For '{op}', 'x_shape' must have {idx.shape[0]} entries (the rows of 'x_indices'), but "
                         f"got {shape.shape[0]}")
    dims = tuple(_host(shape).tolist())
    host = _host(idx)
    for axis, size in enumerate(dims):
        if host.shape[1] and (host[axis].min() < 0 or host[axis].max() >= size):
            raise ValueError(f"For '{op}', 'x_indices' row {axis} must be in [0, {size}), but got "
                             f"{host[axis].tolist()}")
    merged, summed = _coalesced(_device(host.T, _dt.int64), vals)
    return _ops().transpose(merged, (1, 0)), summed, shape


class Coalesce(Primitive):
    """``Coalesce()(x_indices, x_values, x_shape)``: :func:`coalesce`.

    >>> import cellkit as ms
    >>> idx, vals, shape = Coalesce()(ms.Tensor([[0, 0]]), ms.Tensor([1.0, 2.0]), ms.Tensor([3]))
    >>> print(idx, vals)
    [[0]] [3.]
    """

    def __init__(self):
        super().__init__()

    def __call__(self, x_indices, x_values, x_shape):
        return coalesce(x_indices, x_values, x_shape)


class SparseToDense(Primitive):
    """``SparseToDense()(indices, values, sparse_shape)``: the dense Tensor of a COO description.

    >>> import cellkit as ms
    >>> print(SparseToDense()(ms.Tensor([[0, 1]], ms.int32), ms.Tensor([5.0]), (2, 2)))
    [[0. 5.]
     [0. 0.]]
    """

    def __init__(self):
        super().__init__()

    def __call__(self, indices, values, sparse_shape):
        op = "SparseToDense"
        if isinstance(sparse_shape, Tensor):
            sparse_shape = tuple(tensor_arg(sparse_shape, "sparse_shape", op).asnumpy().reshape(-1).tolist())
        if not isinstance(sparse_shape, tuple) or not sparse_shape or any(
                isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in sparse_shape):
            raise TypeError(f"For '{op}', 'sparse_shape' must be a non-empty tuple of non-negative ints, but got "
                            f"{describe(sparse_shape)}")
        from ..tensor import check_allocation
        check_allocation(tuple(int(d) for d in sparse_shape), _dt.float32, op, f"'sparse_shape' {sparse_shape}")
        idx = _index_tensor(indices, "indices", op, 2)
        if idx.dtype is _dt.int16:
            raise TypeError(f"For '{op}', 'indices' must be Int32 or Int64, but got {idx.dtype}")
        if idx.shape[1] != len(sparse_shape):
            raise ValueError(f"For '{op}', 'indices' must have {len(sparse_shape)} columns (one per dimension of "
                             f"'sparse_shape'), but got shape {tuple(idx.shape)}")
        if not isinstance(values, Tensor):
            raise TypeError(f"For '{op}', 'values' must be a Tensor, but got {describe(values)}")
        vals = tensor_arg(values, "values", op)
        if vals.ndim != 1 or vals.shape[0] != idx.shape[0]:
            raise ValueError(f"For '{op}', 'values' must be 1-D with {idx.shape[0]} entries, but got shape "
                             f"{tuple(vals.shape)}")
        from .shape_ops import scatter_add_rows
        host = _host(idx).astype(np.int64)
        for axis, size in enumerate(sparse_shape):
            if host.size and (host[:, axis].min() < 0 or host[:, axis].max() >= size):
                raise ValueError(f"For '{op}', 'indices' column {axis} must be in [0, {size}), but got "
                                 f"{host[:, axis].tolist()}")
        positions = np.ravel_multi_index(tuple(host.T), sparse_shape) if host.size else np.zeros(0, np.int64)
        n = int(np.prod(sparse_shape, dtype=np.int64))
        return _ops().reshape(scatter_add_rows(vals, backend().from_host(positions), n), tuple(sparse_shape))


# ------------------------------------------------------------------ COO ops
def coo_add(x1, x2, thresh):
    """The sum of two COOTensors (Int64 indices), dropping the entries whose absolute value is below ``thresh``.

    >>> import cellkit as ms
    >>> a = COOTensor(ms.Tensor([[0, 1]]), ms.Tensor([1.0]), (2, 2))
    >>> b = COOTensor(ms.Tensor([[0, 1], [1, 0]]), ms.Tensor([2.0, 0.5]), (2, 2))
    >>> out = coo_add(a, b, ms.Tensor(1.0))
    >>> print(out.indices, out.values)
    [[0 1]] [3.]
    """
    op = "coo_add"
    _check_coo(x1, op, "x1")
    _check_coo(x2, op, "x2")
    _require_int64(x1.indices, "x1_indices", op)
    _require_int64(x2.indices, "x2_indices", op)
    if x1.shape != x2.shape:
        raise ValueError(f"For '{op}', the two COOTensors must have the same shape, but got {x1.shape} and {x2.shape}")
    if not isinstance(thresh, Tensor):
        raise TypeError(f"For '{op}', 'thresh' must be a Tensor, but got {describe(thresh)}")
    thresh = tensor_arg(thresh, "thresh", op)
    if thresh.size != 1:
        raise ValueError(f"For '{op}', 'thresh' must be a scalar Tensor, but got shape {tuple(thresh.shape)}")
    ops = _ops()
    values2 = ops.cast(x2.values, x1.dtype) if x2.dtype is not x1.dtype else x2.values
    both_idx = ops.concat((x1.indices, x2.indices), 0)
    merged, summed = _coalesced(both_idx, ops.concat((x1.values, values2), 0))
    limit = float(thresh.asnumpy().reshape(()))
    keep = np.abs(np.asarray(summed.asnumpy(), dtype=np.float64)) >= limit
    if keep.all():
        return COOTensor(merged, summed, x1.shape)
    rows = wrap(backend().from_host(np.nonzero(keep)[0].astype(np.int64)))
    return COOTensor(ops.gather(merged, rows, 0) if keep.any() else _device(np.zeros((0, 2)), _dt.int64),
                     ops.gather(summed, rows, 0), x1.shape)


def coo_concat(sp_input, concat_dim=0):
    """Concatenate COOTensors (Int64 indices) along ``concat_dim``.

    >>> import cellkit as ms
    >>> a = COOTensor(ms.Tensor([[0, 1]]), ms.Tensor([1.0]), (2, 2))
    >>> out = coo_concat((a, a), 0)
    >>> print(out.shape, out.indices.asnumpy().tolist())
    (4, 2) [[0, 1], [2, 1]]

    The entries come out in row-major order.
    """
    op = "coo_concat"
    if not isinstance(sp_input, (tuple, list)) or len(sp_input) < 2:
        raise ValueError(f"For '{op}', 'sp_input' must be a tuple or list of at least two COOTensors, but got "
                         f"{describe(sp_input)}")
    for k, x in enumerate(sp_input):
        _check_coo(x, op, f"sp_input[{k}]")
        _require_int64(x.indices, f"indices{k}", op)
    from ._core import normalize_axis
    axis = normalize_axis(concat_dim, 2, op, "concat_dim")
    first = sp_input[0]
    for k, x in enumerate(sp_input[1:], 1):
        if x.shape[1 - axis] != first.shape[1 - axis]:
            raise ValueError(f"For '{op}', the COOTensors' shapes must agree off dimension {axis}, but got "
                             f"{first.shape} and {x.shape} (input {k})")
    ops = _ops()
    offset = 0
    parts, values = [], []
    dtype = first.dtype
    for x in sp_input:
        host = _host(x.indices).astype(np.int64)
        host[:, axis] += offset
        offset += x.shape[axis]
        parts.append(host)
        values.append(ops.cast(x.values, dtype) if x.dtype is not dtype else x.values)
    shape = (offset, first.shape[1]) if axis == 0 else (first.shape[0], offset)
    coordinates = np.concatenate(parts, 0)
    order = np.lexsort((coordinates[:, 1], coordinates[:, 0]))  # row-major order, as MindSpore's SparseConcat
    joined = ops.concat(values, 0)
    if not np.array_equal(order, np.arange(order.size)):
        joined = ops.gather(joined, wrap(backend().from_host(order.astype(np.int64))), 0)
    return COOTensor(_device(coordinates[order], _dt.int64), joined, shape)


# The dense op each unary sparse op applies to the values (looked up at call time: several are the
# elementwise family's).
_DENSE = {"inv": "reciprocal"}


def _unary_values(name, values, op):
    ops = _ops()
    fn = getattr(ops, _DENSE.get(name, name), None)
    if fn is None:
        raise NotImplementedError(f"For '{op}', cellkit has no ops.{_DENSE.get(name, name)} to apply to the values yet")
    return fn(values)


def _make_coo_unary(name):
    op = f"coo_{name}"

    def fn(x):
        _check_coo(x, op)
        return COOTensor(x.indices, _unary_values(name, x.values, op), x.shape)

    fn.__name__ = fn.__qualname__ = op
    fn.__code__ = fn.__code__.replace(co_name=op)  # a code object of its own: graphs know ops by it
    fn.__doc__ = (f"``{_DENSE.get(name, name)}`` of each stored value of the COOTensor ``x`` (the coordinates stay; "
                  "implicit zeros are not touched).")
    return fn


def _make_csr_unary(name):
    op = f"csr_{name}"

    def fn(x):
        _check_csr(x, op)
        return x._with(_unary_values(name, x.values, op))

    fn.__name__ = fn.__qualname__ = op
    fn.__code__ = fn.__code__.replace(co_name=op)  # a code object of its own: graphs know ops by it
    fn.__doc__ = (f"``{_DENSE.get(name, name)}`` of each stored value of the CSRTensor ``x`` (the structure stays; "
                  "implicit zeros are not touched).")
    return fn


def _dense_op_exists(name):
    """True once the dense op exists: ``cellkit.ops`` imports this module after the elementwise family, so a
    unary sparse op is offered only when its dense op is (``coo_acos`` needs ``ops.acos`` ...)."""
    import sys

    package = sys.modules.get("cellkit.ops")
    return package is not None and callable(getattr(package, _DENSE.get(name, name), None))


for _name in _UNARY:
    if _dense_op_exists(_name):
        globals()[f"coo_{_name}"] = _make_coo_unary(_name)
        globals()[f"csr_{_name}"] = _make_csr_unary(_name)
        __all__ += [f"coo_{_name}", f"csr_{_name}"]
del _name


# ------------------------------------------------------------------ CSR ops
def csr_mul(x, y):
    """``x * y`` for a CSRTensor ``x`` and a dense ``y`` broadcasting to its shape: a CSRTensor.

    >>> import cellkit as ms
    >>> x = CSRTensor(ms.Tensor([0, 1, 2], ms.int32), ms.Tensor([0, 1], ms.int32), ms.Tensor([1.0, 2.0]), (2, 2))
    >>> print(csr_mul(x, ms.Tensor([[3.0, 3.0], [4.0, 4.0]])).values)
    [3. 8.]
    """
    op = "csr_mul"
    _check_csr(x, op)
    return x._with(_ops().mul(x.values, _csr_entries_of(x, y, op)))


def csr_div(x, y):
    """``x / y`` for a CSRTensor ``x`` and a dense ``y`` broadcasting to its shape: a CSRTensor."""
    op = "csr_div"
    _check_csr(x, op)
    return x._with(_ops().div(x.values, _csr_entries_of(x, y, op)))


def csr_mv(csr_tensor, dense):
    """The product of a CSRTensor ``(m, n)`` and a dense ``(n, 1)`` Tensor: a dense ``(m, 1)`` Tensor."""
    op = "csr_mv"
    _check_csr(csr_tensor, op, "csr_tensor")
    return _csr_matmul(csr_tensor, dense, op, vector=True)


def csr_reduce_sum(csr_tensor, axis):
    """The sums of the rows of a CSRTensor, shape ``(rows, 1)`` (``axis`` must be 1 or -1, as in MindSpore).

    >>> import cellkit as ms
    >>> x = CSRTensor(ms.Tensor([0, 2, 2], ms.int32), ms.Tensor([0, 1], ms.int32), ms.Tensor([1.0, 2.0]), (2, 2))
    >>> print(csr_reduce_sum(x, 1))
    [[3.]
     [0.]]
    """
    from .shape_ops import scatter_add_rows

    op = "csr_reduce_sum"
    _check_csr(csr_tensor, op, "csr_tensor")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {describe(axis)}")
    if axis not in (1, -1):
        raise ValueError(f"For '{op}', 'axis' should be 1 or -1, but got {axis}")
    rows = csr_tensor._rows()
    sums = scatter_add_rows(csr_tensor.values, backend().from_host(rows), csr_tensor.shape[0])
    return _ops().reshape(sums, (csr_tensor.shape[0], 1))


def csr_softmax(logits, dtype):
    """The softmax of each row's stored values (implicit zeros take no part): a CSRTensor of ``dtype``.

    >>> import cellkit as ms
    >>> x = CSRTensor(ms.Tensor([0, 2, 2], ms.int32), ms.Tensor([0, 1], ms.int32), ms.Tensor([0.0, 0.0]), (2, 2))
    >>> print(csr_softmax(x, ms.float32).values)
    [0.5 0.5]
    """
    from .shape_ops import scatter_add_rows

    op = "csr_softmax"
    _check_csr(logits, op, "logits")
    d = dtype_arg(dtype, "dtype", op)
    if d not in (_dt.float32, _dt.float64):
        raise TypeError(f"For '{op}', 'dtype' must be mindspore.float32 or mindspore.float64, but got {d!r}")
    ops = _ops()
    values = ops.cast(logits.values, d)
    rows = logits._rows()
    if rows.size == 0:
        return logits._with(values)
    host = np.asarray(values.asnumpy(), dtype=np.float64)
    top = np.full(logits.shape[0], -np.inf)
    np.maximum.at(top, rows, host)
    be = backend()
    shifted = ops.exp(ops.sub(values, wrap(be.from_host(top[rows].astype(np.dtype(d.array_name))))))
    totals = scatter_add_rows(shifted, be.from_host(rows), logits.shape[0])
    return logits._with(ops.div(shifted, ops.gather(totals, wrap(be.from_host(rows)), 0)))


def csr_to_coo(tensor):
    """The same entries as a COOTensor."""
    _check_csr(tensor, "csr_to_coo", "tensor")
    return tensor.to_coo()


def csr_add(a, b, alpha, beta):
    """``alpha * a + beta * b`` for two CSRTensors of one shape: a CSRTensor (with the union of their entries).

    >>> import cellkit as ms
    >>> x = CSRTensor(ms.Tensor([0, 1, 1], ms.int32), ms.Tensor([1], ms.int32), ms.Tensor([2.0]), (2, 2))
    >>> print(csr_add(x, x, ms.Tensor(1.0), ms.Tensor(2.0)).values)
    [6.]
    """
    op = "csr_add"
    _check_csr(a, op, "a")
    _check_csr(b, op, "b")
    if a.shape != b.shape:
        raise ValueError(f"For '{op}', 'a' and 'b' must have the same shape, but got {a.shape} and {b.shape}")
    ops = _ops()
    scaled = []
    for name, scale, x in (("alpha", alpha, a), ("beta", beta, b)):
        if not isinstance(scale, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {describe(scale)}")
        scale = tensor_arg(scale, name, op)
        if scale.size != 1:
            raise ValueError(f"For '{op}', '{name}' must hold one element, but got shape {tuple(scale.shape)}")
        scaled.append(ops.mul(x.values, ops.cast(ops.reshape(scale, ()), x.dtype)))
    coordinates = np.concatenate([a._coordinates(), b._coordinates()], 0)
    values = ops.concat((scaled[0], ops.cast(scaled[1], a.dtype)), 0)
    merged, summed = _coalesced(_device(coordinates, _dt.int64), values)
    host = _host(merged).astype(np.int64).reshape(-1, 2)
    indptr = np.searchsorted(host[:, 0], np.arange(a.shape[0] + 1)) if host.size else np.zeros(a.shape[0] + 1)
    return CSRTensor(_device(indptr, a.indptr.dtype), _device(host[:, 1], a.indices.dtype), summed, a.shape)


def csr_gather(indptr, indices, dense, sparse_shape):
    """``dense`` read at the entries of a CSR structure (``indptr``, ``indices``): a 1-D Tensor.

    >>> import cellkit as ms
    >>> dense = ms.Tensor([[0.0, 1.0], [2.0, 3.0]])
    >>> print(csr_gather(ms.Tensor([0, 1, 2], ms.int32), ms.Tensor([1, 0], ms.int32), dense, (2, 2)))
    [1. 2.]
    """
    op = "csr_gather"
    ptr = _index_tensor(indptr, "indptr", op, 1)
    idx = _index_tensor(indices, "indices", op, 1)
    dims = _shape_of(sparse_shape, op)
    if not isinstance(dense, Tensor):
        raise TypeError(f"For '{op}', 'dense' must be a Tensor, but got {describe(dense)}")
    dense = tensor_arg(dense, "dense", op)
    if tuple(dense.shape) != dims:
        raise ValueError(f"For '{op}', 'dense' must have the shape 'sparse_shape' {dims}, but got "
                         f"{tuple(dense.shape)}")
    structure = CSRTensor(ptr, idx, _ops().zeros((idx.shape[0],), dense.dtype), dims)
    return _gather_at(dense, _device(structure._coordinates(op), _dt.int64), op)


# ------------------------------------------------------------------ Tensor methods
def _to_coo(self):
    """The non-zero entries of a 2-D Tensor as a :class:`COOTensor` (Int32 indices, as MindSpore)."""
    t = tensor_arg(self, "self", "Tensor.to_coo")
    if t.ndim != 2:
        raise ValueError(f"For 'Tensor.to_coo', the tensor must be 2-D, but got shape {tuple(t.shape)}")
    host = np.asarray(t.asnumpy())
    coordinates = np.argwhere(host != 0)
    return COOTensor(_device(coordinates, _dt.int32), _gather_at(t, _device(coordinates, _dt.int64)),
                     tuple(t.shape))


def _to_csr(self):
    """The non-zero entries of a 2-D Tensor as a :class:`CSRTensor`."""
    t = tensor_arg(self, "self", "Tensor.to_csr")
    if t.ndim != 2:
        raise ValueError(f"For 'Tensor.to_csr', the tensor must be 2-D, but got shape {tuple(t.shape)}")
    return _dense_to_csr(t, _dt.int32)


TENSOR_METHODS = {"to_coo": _to_coo, "to_csr": _to_csr}
