"""``mint.softmax`` and ``mint.special.log_softmax``: ``dim`` and an optional ``dtype`` the input is cast to first.

>>> import cellkit as ms
>>> from cellkit import mint
>>> print(mint.softmax(ms.Tensor([0.0, 0.0]), dim=0))
[0.5 0.5]
"""
from __future__ import annotations

from .. import ops as _ops

__all__ = ["softmax", "log_softmax"]


def softmax(input, dim, *, dtype=None):
    """``exp(input) / sum(exp(input))`` along ``dim``."""
    return _ops.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None):
    """``log(softmax(input))`` along ``dim`` (the last dimension when None)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.log_softmax(input, -1 if dim is None else dim)
