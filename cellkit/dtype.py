"""MindSpore's dtype objects (``cellkit.float32`` ...) and their array equivalents.

A :class:`DType` prints the way MindSpore prints it (``Float32``) and knows
the name of the matching array dtype, so each backend can look it up in its
own namespace.  ``bfloat16`` comes from ``ml_dtypes`` on NumPy.

>>> import cellkit as ms
>>> print(ms.float32)
Float32
>>> ms.float32
mindspore.float32
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "DType", "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "bool_", "complex64", "complex128", "to_dtype", "dtype_of",
    "float_type",
]


class DType:
    """A tensor element type, printed as MindSpore prints it."""

    __slots__ = ("name", "array_name", "kind", "itemsize")

    def __init__(self, name, array_name, kind, itemsize):
        self.name = name              # 'Float32' -- what print() shows
        self.array_name = array_name  # 'float32' -- the NumPy / array-API name
        self.kind = kind              # 'float', 'int', 'uint', 'bool' or 'complex'
        self.itemsize = itemsize

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"mindspore.{self.array_name}"

    def __reduce__(self):
        # Pickling (e.g. by multiprocessing) keeps the singleton identity.
        return (to_dtype, (self.array_name,))

    @property
    def is_floating_point(self):
        return self.kind == "float"

    def to_backend(self, xp):
        """This dtype in the array namespace ``xp``."""
        if self.array_name == "bfloat16":
            if xp is not np:
                raise TypeError(f"bfloat16 is only supported on the NumPy backend, not on {xp.__name__}")
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        return getattr(xp, self.array_name)


float16 = DType("Float16", "float16", "float", 2)
float32 = DType("Float32", "float32", "float", 4)
float64 = DType("Float64", "float64", "float", 8)
bfloat16 = DType("BFloat16", "bfloat16", "float", 2)
int8 = DType("Int8", "int8", "int", 1)
int16 = DType("Int16", "int16", "int", 2)
int32 = DType("Int32", "int32", "int", 4)
int64 = DType("Int64", "int64", "int", 8)
uint8 = DType("UInt8", "uint8", "uint", 1)
uint16 = DType("UInt16", "uint16", "uint", 2)  # MindSpore's datasets give labels as UInt32
uint32 = DType("UInt32", "uint32", "uint", 4)
uint64 = DType("UInt64", "uint64", "uint", 8)
bool_ = DType("Bool", "bool", "bool", 1)
# Complex numbers (two floats): MindSpore prints them ``Complex64`` / ``Complex128``.
complex64 = DType("Complex64", "complex64", "complex", 8)
complex128 = DType("Complex128", "complex128", "complex", 16)

ALL = (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_,
       complex64, complex128)
_BY_NAME = {}
for _d in ALL:
    _BY_NAME[_d.array_name] = _d
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d.name.lower()] = _d
_BY_NAME.update({"bool_": bool_, "float": float32, "int": int64, "half": float16,
                 "single": float32, "double": float64})

# Array dtype -> DType, filled lazily.  Keyed first by the dtype object's class so
# that dtypes of different libraries are never compared with each other.
_BY_ARRAY_DTYPE = {}


def to_dtype(value) -> DType:
    """Turn a DType, a name (``'float32'``), a NumPy dtype or a Python type into a DType.

    Raises
    ------
    TypeError
        If ``value`` names no supported dtype.
    """
    if type(value) is DType:
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is None:
            found = _BY_NAME.get(value.rsplit(".", 1)[-1])
        if found is not None:
            return found
    elif value is float:
        return float32
    elif value is int:
        return int64
    elif value is bool:
        return bool_
    elif value is complex:
        return complex128
    elif value is not None:  # np.dtype(None) would quietly mean float64
        try:
            return _BY_NAME[str(np.dtype(value))]
        except (TypeError, ValueError, KeyError):  # ValueError: NumPy cannot read the object as a dtype
            pass
        name = str(value).rsplit(".", 1)[-1]
        if name in _BY_NAME:
            return _BY_NAME[name]
    supported = ", ".join(repr(d) for d in ALL)
    raise TypeError(f"dtype must be one of [{supported}], but got {value!r}")


def dtype_of(array) -> DType:
    """The DType of a backend array (cached per array-dtype object)."""
    key = array.dtype
    try:
        return _BY_ARRAY_DTYPE[type(key)][key]  # the hot path: one lookup, no further call
    except KeyError:
        return dtype_of_array_dtype(key)


def dtype_of_array_dtype(key) -> DType:
    """The DType of a backend dtype object (``numpy.dtype('float32')`` -> ``Float32``)."""
    try:
        return _BY_ARRAY_DTYPE[type(key)][key]
    except KeyError:
        name = str(key).rsplit(".", 1)[-1]
        found = _BY_NAME.get(name)
        if found is None:
            raise TypeError(f"arrays of dtype {key} are not supported by cellkit") from None
        _BY_ARRAY_DTYPE.setdefault(type(key), {})[key] = found
        return found


def float_type(dtype: DType) -> DType:
    """The float dtype an op on ``dtype`` computes in (ints and bools -> Float32)."""
    return dtype if dtype.kind == "float" else float32
