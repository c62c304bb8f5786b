"""``nn.MatMul``: a Cell wrapping the matrix product (with optional transposes)."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["MatMul"]


class MatMul(Cell):
    """``x1 @ x2`` with broadcasting, optionally transposing the last two axes of either.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.MatMul()(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])))
    11.0
    """

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        self.transpose_x1 = transpose_x1
        self.transpose_x2 = transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1:
            x1 = ops.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = ops.swapaxes(x2, -1, -2)
        return ops.matmul(x1, x2)
