"""``mindspore.mint.linalg``: norms, inverse and QR with ``dim`` / ``keepdim``.

>>> import cellkit as ms
>>> from cellkit.mint import linalg
>>> print(linalg.vector_norm(ms.Tensor([3.0, 4.0])), linalg.inv(ms.Tensor([[2.0, 0.0], [0.0, 4.0]])))
5.0 [[0.5  0.  ]
 [0.   0.25]]
"""
from .. import ops as _ops

__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]


def inv(input):
    """The inverse of each square matrix."""
    return _ops.inverse(input)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm over the two dimensions ``dim`` (``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1, 2, -2)."""
    return _ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector or matrix norm, as ``ord`` and ``dim`` say."""
    return _ops.norm(A, ord, dim, keepdim, dtype=dtype)


def qr(A, mode="reduced"):
    """The QR decomposition ``(Q, R)``."""
    return _ops.qr(A, mode)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of ``x`` as a vector over ``dim`` (all elements when None)."""
    return _ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)
