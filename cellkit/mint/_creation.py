"""``mint``'s Tensor makers: sizes as ``*size`` or one tuple, ``dtype`` keyword-only.

>>> import cellkit as ms
>>> from cellkit import mint
>>> print(mint.zeros((2, 2), dtype=ms.int32), mint.linspace(0, 1, 3), mint.empty(2, 3).shape)
[[0 0]
 [0 0]] [0.  0.5 1. ] (2, 3)
"""
from __future__ import annotations

from .. import ops as _ops
from ..tensor import Tensor

__all__ = ["zeros", "ones", "empty", "empty_like", "linspace", "full"]


def _size(size, op):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for d in size:
        if isinstance(d, bool) or not isinstance(d, int) or d < 0:
            raise TypeError(f"For '{op}', 'size' must be non-negative ints (or one tuple of them), but got {size}")
    return tuple(size)


def zeros(size, *, dtype=None):
    """A Tensor of zeros of shape ``size`` (Float32 unless ``dtype``)."""
    return _ops.zeros(size, dtype)


def ones(size, *, dtype=None):
    """A Tensor of ones of shape ``size`` (Float32 unless ``dtype``)."""
    return _ops.ones(size, dtype)


def empty(*size, dtype=None, device=None, pin_memory=False):
    """A Tensor of shape ``size`` whose values are not set (cellkit fills it with zeros; Float32 unless ``dtype``)."""
    return _ops.zeros(_size(size, "empty"), dtype)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):
    """A Tensor shaped like ``input`` whose values are not set (zeros here), ``input``'s dtype unless ``dtype``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'empty_like', 'input' must be a Tensor, but got {type(input).__name__}")
    return _ops.zeros_like(input, dtype=dtype)


def linspace(start, end, steps, *, dtype=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` (Float32 unless ``dtype``)."""
    out = _ops.linspace(start, end, steps)
    return out if dtype is None else _ops.cast(out, dtype)


def full(size, fill_value, *, dtype=None):
    """A Tensor of shape ``size`` filled with ``fill_value``: Float32 for a float, Int64 for an int, Bool for a bool."""
    from .. import dtype as _dt

    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dt.bool_
        elif isinstance(fill_value, int):
            dtype = _dt.int64
        elif isinstance(fill_value, float):
            dtype = _dt.float32
    return _ops.full(size, fill_value, dtype=dtype)
