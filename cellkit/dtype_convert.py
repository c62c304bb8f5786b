"""``ms.dtype_to_nptype`` / ``ms.dtype_to_pytype`` / ``ms.pytype_to_dtype``: between cellkit dtypes, NumPy
types and Python types.

>>> import numpy as np
>>> import cellkit as ms
>>> ms.dtype_to_nptype(ms.float32), ms.dtype_to_pytype(ms.int8), ms.pytype_to_dtype(float), ms.pytype_to_dtype(np.int8)
(<class 'numpy.float32'>, <class 'int'>, mindspore.float64, mindspore.int8)
"""
from __future__ import annotations

import numpy as np

from . import dtype as _dt

__all__ = ["dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype"]

_PY_BY_KIND = {"float": float, "int": int, "uint": int, "bool": bool, "complex": complex}
_DTYPE_BY_PY = {bool: _dt.bool_, int: _dt.int64, float: _dt.float64, complex: _dt.complex128}


def _check(type_, op):
    if not isinstance(type_, _dt.DType):
        raise TypeError(f"For '{op}', 'type_' must be a cellkit dtype such as ms.float32, but got "
                        f"{type(type_).__name__}")


def dtype_to_nptype(type_):
    """The NumPy scalar type of a dtype (``ms.float32`` -> ``numpy.float32``; bfloat16 -> ml_dtypes' type)."""
    _check(type_, "dtype_to_nptype")
    return type_.to_backend(np).type if type_.array_name == "bfloat16" else getattr(np, type_.array_name)


def dtype_to_pytype(type_):
    """The Python type of a dtype's values: ``float``, ``int``, ``bool`` or ``complex``."""
    _check(type_, "dtype_to_pytype")
    return _PY_BY_KIND[type_.kind]


def pytype_to_dtype(obj):
    """The dtype of a Python or NumPy type: ``int`` -> int64, ``float`` -> float64, ``np.float32`` -> float32.

    Raises
    ------
    TypeError
        ``obj`` is not a type, or not a number or bool type (cellkit has no String/List/Tuple types).
    """
    if not isinstance(obj, type):
        raise TypeError(f"For 'pytype_to_dtype', the argument 'obj' must be a python type object, such as int, "
                        f"float, but got type {type(obj)}.")
    if obj in _DTYPE_BY_PY:
        return _DTYPE_BY_PY[obj]
    if issubclass(obj, np.generic):
        try:
            return _dt.to_dtype(np.dtype(obj).name)
        except (TypeError, ValueError, KeyError):
            pass
    raise TypeError(f"For 'pytype_to_dtype', 'obj' must be a number or bool type (int, float, bool, complex or a "
                    f"NumPy scalar type), but got {obj!r}")
