"""Sparse Cells: ``SparseTensorDenseMatmul`` and ``SparseToDense``.

Both build the dense form of the COO matrix with :class:`cellkit.ops.SparseToDense`
(differentiable in its values), so gradients reach the values and the dense operand.

>>> import cellkit as ms
>>> from cellkit import nn
>>> coo = ms.COOTensor(ms.Tensor([[0, 1]], ms.int32), ms.Tensor([2.0]), (2, 2))
>>> print(nn.SparseToDense()(coo))
[[0. 2.]
 [0. 0.]]
"""
from __future__ import annotations

from ... import dtype as _dt
from ... import ops
from ...ops.sparse import COOTensor
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["SparseTensorDenseMatmul", "SparseToDense"]


def _adjoint(m):
    m = ops.transpose(m, (1, 0))
    return ops.conj(m) if m.dtype in (_dt.complex64, _dt.complex128) else m


class SparseTensorDenseMatmul(Cell):
    """``A @ B`` for a sparse 2-D ``A`` given as COO (indices, values, shape) and a dense 2-D ``B``.

    Parameters
    ----------
    adjoint_st, adjoint_dt : bool
        Use the (conjugate) transpose of the sparse / the dense operand.

    Called as ``cell(indices, values, sparse_shape, dense)``: ``indices`` an
    int32/int64 ``(nnz, 2)`` Tensor, ``values`` an ``(nnz,)`` Tensor,
    ``sparse_shape`` a tuple (or a Tensor) of two ints.

    Raises
    ------
    TypeError
        ``adjoint_st`` or ``adjoint_dt`` not a bool.
    ValueError
        Operands whose inner sizes differ, indices out of range.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> out = nn.SparseTensorDenseMatmul()(ms.Tensor([[0, 1]], ms.int32), ms.Tensor([2.0]), (2, 2),
    ...                                     ms.Tensor([[1.0], [3.0]]))
    >>> print(out)
    [[6.]
     [0.]]
    """

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        for name, value in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'SparseTensorDenseMatmul', the type of '{name}' should be 'bool', but got "
                                f"type '{type(value).__name__}'.")
        self.adj_st = adjoint_st
        self.adj_dt = adjoint_dt
        self._to_dense = ops.SparseToDense()

    def construct(self, indices, values, sparse_shape, dense):
        if not isinstance(dense, Tensor):
            raise TypeError(f"For 'SparseTensorDenseMatmul', 'dense' must be a Tensor, but got "
                            f"{type(dense).__name__}.")
        sparse = self._to_dense(indices, values, sparse_shape)
        if sparse.ndim != 2 or dense.ndim != 2:
            raise ValueError(f"For 'SparseTensorDenseMatmul', both operands must be 2-D, but got 'sparse_shape' "
                             f"{tuple(sparse.shape)} and 'dense' of shape {tuple(dense.shape)}.")
        a = _adjoint(sparse) if self.adj_st else sparse
        b = _adjoint(dense) if self.adj_dt else dense
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"For 'SparseTensorDenseMatmul', the sparse operand{' (adjoint)' * self.adj_st} of "
                             f"shape {tuple(a.shape)} and the dense operand{' (adjoint)' * self.adj_dt} of shape "
                             f"{tuple(b.shape)} do not fit a matrix product.")
        return ops.matmul(a, b)


class SparseToDense(Cell):
    """The dense Tensor of a :class:`cellkit.COOTensor` (deprecated in MindSpore for ``COOTensor.to_dense()``).

    Raises
    ------
    TypeError
        An input that is not a COOTensor.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> coo = ms.COOTensor(ms.Tensor([[1, 0]], ms.int32), ms.Tensor([7.0]), (2, 1))
    >>> print(nn.SparseToDense()(coo))
    [[0.]
     [7.]]
    """

    def __init__(self):
        super().__init__()
        self.sparse_to_dense = ops.SparseToDense()

    def construct(self, sparse_tensor):
        if not isinstance(sparse_tensor, COOTensor):
            raise TypeError(f"For 'SparseToDense', the input must be a COOTensor, but got "
                            f"{type(sparse_tensor).__name__}.")
        return self.sparse_to_dense(sparse_tensor.indices, sparse_tensor.values, sparse_tensor.shape)
