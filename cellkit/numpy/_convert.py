"""Turning ``mindspore.numpy``'s array-likes (Tensors, numbers, nested lists) into Tensors, as it does.

Python ints become Int32 and floats Float32 (MindSpore's NumPy defaults), bools Bool; a Tensor stays as
it is. ``dtype`` arguments accept cellkit dtypes and NumPy's names for them.
"""
from __future__ import annotations

import numpy as _np

from .. import dtype as _dt
from ..ops._core import describe
from ..tensor import Tensor

__all__ = ["to_tensor", "to_dtype", "cast_to", "host"]


def _host_array(value, op):
    if isinstance(value, _np.ndarray):
        return value
    if isinstance(value, (bool, int, float, list, tuple, _np.generic)):
        try:
            array = _np.array(value)
        except ValueError as exc:
            raise ValueError(f"For '{op}', the input is not a rectangular array: {exc}") from None
        if array.dtype == object:
            raise TypeError(f"For '{op}', input data must be int, float, bool, Tensor, list or tuple, but got "
                            f"{describe(value)}")
        if array.dtype.kind in "iu" and array.dtype != _np.uint8:
            return array.astype(_np.int32)
        if array.dtype.kind == "f":
            return array.astype(_np.float32)
        return array
    if isinstance(value, Tensor):
        return value
    raise TypeError(f"For '{op}', input data must be int, float, bool, Tensor, list or tuple, but got "
                    f"{describe(value)}")


def to_tensor(value, op="mindspore.numpy", dtype=None):
    """``value`` as a Tensor (Int32 / Float32 for Python numbers), cast to ``dtype`` when given."""
    if isinstance(value, Tensor):
        out = value
    else:
        out = Tensor(_host_array(value, op))
    return cast_to(out, dtype)


def to_dtype(dtype):
    """A cellkit dtype from a cellkit dtype, a NumPy dtype or its name (None stays None)."""
    if dtype is None:
        return None
    return _dt.to_dtype(dtype)


def cast_to(tensor, dtype):
    """``tensor`` cast to ``dtype`` (unchanged when None or already that dtype)."""
    if dtype is None:
        return tensor
    from .. import ops

    d = to_dtype(dtype)
    return tensor if tensor.dtype == d else ops.cast(tensor, d)


def host(value, op="mindspore.numpy"):
    """``value`` as a NumPy array on the host (for the functions whose results carry no gradient)."""
    if isinstance(value, Tensor):
        return value.asnumpy()
    return _np.asarray(_host_array(value, op))
