"""Turning what user code returns (generators, ``map`` functions) into row arrays.

MindSpore stores every value of a row as a tensor: a Python ``int`` becomes an Int64 scalar, a
``float`` a Float64 scalar, a ``bool`` a Bool scalar, a ``str`` a string scalar, ``bytes`` a
bytes scalar, and a list of numbers an array.  Anything else (``None``, arbitrary objects, ragged
nested lists) cannot be a tensor and is refused.

>>> to_array(3).dtype, to_array(1.5).dtype, to_array("ab").dtype.kind, to_array([1, 2]).shape
(dtype('int64'), dtype('float64'), 'U', (2,))
"""
from __future__ import annotations

import numpy as np

__all__ = ["to_array", "to_row", "describe"]


def describe(value) -> str:
    """A short description of a value for error messages."""
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


def _from_tensor(value):
    asnumpy = getattr(value, "asnumpy", None)
    if asnumpy is not None and callable(asnumpy):
        return np.asarray(asnumpy())
    return None


def to_array(value, where="the data") -> np.ndarray:
    """One row value as a NumPy array (see the module docstring); TypeError if it cannot be one."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            raise TypeError(f"{where}: a numpy array of dtype object cannot be a column value")
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, bool):
        return np.array(value, dtype=np.bool_)
    if isinstance(value, int):
        return np.array(value, dtype=np.int64)
    if isinstance(value, float):
        return np.array(value, dtype=np.float64)
    if isinstance(value, str):
        return np.array(value)
    if isinstance(value, (bytes, bytearray)):
        return np.array(bytes(value))
    if isinstance(value, (list, tuple)):
        try:
            array = np.array(value)
        except ValueError as exc:  # ragged nesting
            raise TypeError(f"{where}: the list {value!r:.80} cannot be an array ({exc})") from None
        if array.dtype.kind == "O":
            raise TypeError(f"{where}: the list {value!r:.80} cannot be an array of numbers or strings")
        if array.dtype == np.int32 or (array.dtype.kind == "i" and array.dtype != np.int64):
            array = array.astype(np.int64)
        return array
    converted = _from_tensor(value)
    if converted is not None:
        return converted
    raise TypeError(f"{where}: a {describe(value)} cannot be a column value; "
                    "give a numpy array, a Python number, a str, bytes or a list of them")


def to_row(result, where="the data") -> tuple:
    """A value returned for a whole row (a tuple of column values, or one value) as a tuple of arrays."""
    if isinstance(result, tuple):
        return tuple(to_array(v, where) for v in result)
    return (to_array(result, where),)
