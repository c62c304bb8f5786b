"""Matrix products: matmul (with NumPy's broadcasting rules) and batch matmul.

>>> import cellkit as ms
>>> a = ms.Tensor([[1.0, 2.0]])
>>> b = ms.Tensor([[3.0], [4.0]])
>>> print(matmul(a, b))
[[11.]]
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ._core import bool_arg, record, tensor_arg, wrap, xp

__all__ = ["matmul", "bmm", "batch_matmul", "mm"]


def _check_operands(A, B, op):
    da, db = _dt.dtype_of(A), _dt.dtype_of(B)
    if da is not db:
        # MindSpore refuses to mix, e.g., Float16 with Float32 in a matrix product.
        raise TypeError(
            f"For '{op}', the two inputs must have the same dtype, but got {da} and {db}"
        )
    if A.ndim == 0 or B.ndim == 0:
        raise ValueError(f"For '{op}', the inputs must not be scalars, but got shapes {tuple(A.shape)} and {tuple(B.shape)}")
    inner_a = A.shape[-1]
    inner_b = B.shape[0] if B.ndim == 1 else B.shape[-2]
    if inner_a != inner_b:
        raise ValueError(
            f"For '{op}', the last dimension of 'input' must equal the second-to-last of 'other', "
            f"but got shapes {tuple(A.shape)} and {tuple(B.shape)} ({inner_a} != {inner_b})"
        )


def matmul(input, other):
    """Matrix product with broadcasting over leading (batch) dimensions.

    1-D operands are treated as a row (left) or column (right) vector and the
    added dimension is removed from the result, as in NumPy.
    """
    a = tensor_arg(input, "input", "matmul")
    b = tensor_arg(other, "other", "matmul")
    A, B = a._data, b._data
    _check_operands(A, B, "matmul")
    xs = xp()
    try:
        out = xs.matmul(A, B)
    except ValueError:
        raise ValueError(
            f"For 'matmul', the batch dimensions of shapes {tuple(A.shape)} and {tuple(B.shape)} cannot be broadcast"
        ) from None
    if out.dtype != A.dtype:  # NumPy computes bfloat16 products in float32
        out = xs.astype(out, A.dtype)
    if _ag._depth == 0 or (a._node is None and b._node is None):
        return wrap(out)
    return record(out, "MatMul", _matmul_rule, (a, b), (A, B), (0, 1))


def _matmul_rule(m, node, g):
    """d(A @ B) = dA @ B + A @ dB, each summed back over broadcast batch axes.

    Vectors are viewed as a row (left) or a column (right) so one rule covers them.
    """
    A, B = node.unpack(m)
    A2 = A if A.ndim > 1 else m.reshape(A, (1, A.shape[0]))
    B2 = B if B.ndim > 1 else m.reshape(B, (B.shape[0], 1))
    # Shape arithmetic only (no data): NumPy's helper works for every backend.
    batch = np.broadcast_shapes(tuple(A2.shape[:-2]), tuple(B2.shape[:-2]))
    g2 = m.reshape(g, batch + (A2.shape[-2], B2.shape[-1]))
    ga = gb = None
    if node.inputs[0] is not None:
        ga = m.reshape(m.sum_to(m.matmul(g2, m.mT(B2)), A2.shape), A.shape)
    if node.inputs[1] is not None:
        gb = m.reshape(m.sum_to(m.matmul(m.mT(A2), g2), B2.shape), B.shape)
    return ga, gb


mm = matmul


def bmm(input_x, mat2):
    """Batched matrix product of two tensors with at least 3 dimensions."""
    a = tensor_arg(input_x, "input_x", "bmm")
    b = tensor_arg(mat2, "mat2", "bmm")
    if a.ndim < 3 or b.ndim < 3:
        raise ValueError(
            f"For 'bmm', both inputs must have at least 3 dimensions, but got shapes {a.shape} and {b.shape}"
        )
    return matmul(a, b)


def batch_matmul(x, y, transpose_a=False, transpose_b=False):
    """``BatchMatMul``: batched product with optional transposes of the last two axes."""
    from .shape import swapaxes

    x = tensor_arg(x, "x", "BatchMatMul")
    y = tensor_arg(y, "y", "BatchMatMul")
    transpose_a = bool_arg(transpose_a, "transpose_a", "BatchMatMul")
    transpose_b = bool_arg(transpose_b, "transpose_b", "BatchMatMul")
    if transpose_a:
        x = swapaxes(x, -1, -2)
    if transpose_b:
        y = swapaxes(y, -1, -2)
    return matmul(x, y)
