"""General-purpose transforms on arrays: casting, one-hot, padding, filling, masking, slicing.

Each follows MindSpore 2.10's observed behaviour, including its quirks: a fill or mask constant is
first cast to the input's dtype (``Fill(7.9)`` of an int array gives 7), ``OneHot`` keeps the
integer dtype of its input (Float64 with ``smoothing_rate``), ``Slice`` indexes each dimension
on its own (lists select orthogonally; an int keeps its dimension).

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.dataset import transforms
>>> transforms.TypeCast(ms.int32)(np.array([1.7, -2.7]))
array([ 1, -2], dtype=int32)
>>> transforms.OneHot(3)(np.array([0, 2]))
array([[1, 0, 0],
       [0, 0, 1]])
>>> transforms.Slice(slice(1, 3))(np.array([5, 6, 7, 8]))
array([6, 7])
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

from .base import TensorOperation

__all__ = ["TypeCast", "OneHot", "Fill", "PadEnd", "Concatenate", "Duplicate", "Mask", "Relational", "Slice",
           "Unique", "numpy_dtype"]


def numpy_dtype(data_type, name="data_type"):
    """A cellkit/MindSpore dtype, NumPy dtype or dtype name as a NumPy dtype."""
    from ... import dtype as _dtype

    if isinstance(data_type, _dtype.DType):
        return np.dtype(data_type.to_backend(np))
    if isinstance(data_type, np.dtype):
        return data_type
    if isinstance(data_type, type) and issubclass(data_type, np.generic):
        return np.dtype(data_type)
    if isinstance(data_type, str):
        try:
            return np.dtype(_dtype.to_dtype(data_type).to_backend(np))
        except TypeError:
            pass
    raise TypeError(f"Argument {name} with value {data_type!r} is not of type [<class 'mindspore.dtype'>, "
                    f"<class 'numpy.dtype'>], but got {type(data_type)}.")


class TypeCast(TensorOperation):
    """Cast to ``data_type`` (floats to ints truncate toward zero, as C casts do)."""

    _row_rank = 0

    def __init__(self, data_type):
        self.data_type = numpy_dtype(data_type)

    def _compute(self, array):
        if array.dtype.kind in "US" and self.data_type.kind not in "US":
            raise RuntimeError(f"TypeCast: cannot cast a string tensor to {self.data_type}.")
        with np.errstate(invalid="ignore", over="ignore"):
            return array.astype(self.data_type)

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].dtype.kind in "US":
            return None
        return [self._compute(columns[0])]

    def __repr__(self):
        return f"TypeCast(data_type={self.data_type})"


class ToType(TypeCast):
    """``vision.ToType``: the same as :class:`TypeCast`."""


def _check_int(value, name, low=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'int'>], but got {type(value)}.")
    if low is not None and value < low:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, 2147483647], but got {value}.")


class OneHot(TensorOperation):
    """Integer labels as one-hot rows (an index past ``num_classes`` is an error; a negative one a zero row)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        _check_int(num_classes, "num_classes", 1)
        if isinstance(smoothing_rate, bool) or not isinstance(smoothing_rate, numbers.Real):
            raise TypeError(f"Argument smoothing_rate with value {smoothing_rate!r} is not of type [<class 'int'>, "
                            f"<class 'float'>], but got {type(smoothing_rate)}.")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"Input smoothing_rate is not within the required interval of [0.0, 1.0], "
                             f"but got {smoothing_rate}.")
        self.num_classes = int(num_classes)
        self.smoothing_rate = float(smoothing_rate)

    def _compute(self, labels):
        if labels.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: the input should be integer labels, but got dtype {labels.dtype}.")
        flat = labels.reshape(-1)
        if len(flat) and flat.max() >= self.num_classes:
            raise RuntimeError(f"OneHot: index values should not bigger than num classes: {self.num_classes}, "
                               f"but got: {flat.max()}")
        hot = (flat[:, None] == np.arange(self.num_classes)[None, :])
        if self.smoothing_rate:
            off = self.smoothing_rate / self.num_classes
            out = np.where(hot, 1.0 - self.smoothing_rate + off, np.where(flat[:, None] >= 0, off, 0.0))
        else:
            out = hot.astype(labels.dtype)
        return out[0] if flat.size == 1 else out


class Fill(TensorOperation):
    """Every element replaced by ``fill_value`` (cast to the input's dtype)."""

    _row_rank = 0

    def __init__(self, fill_value):
        if not isinstance(fill_value, (str, bytes, numbers.Number)):
            raise TypeError(f"Argument fill_value with value {fill_value!r} is not of type [<class 'int'>, "
                            f"<class 'float'>, <class 'str'>, <class 'bytes'>, <class 'bool'>], "
                            f"but got {type(fill_value)}.")
        self.fill_value = fill_value

    def _compute(self, array):
        if array.dtype.kind in "US":
            if not isinstance(self.fill_value, (str, bytes)):
                raise RuntimeError("Fill: a string tensor can only be filled with a string value.")
            return np.full(array.shape, self.fill_value)
        if isinstance(self.fill_value, (str, bytes)):
            raise RuntimeError(f"Fill: a numeric tensor ({array.dtype}) cannot be filled with a string.")
        return np.full(array.shape, np.array(self.fill_value).astype(array.dtype), dtype=array.dtype)

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].dtype.kind in "US" or isinstance(self.fill_value, (str, bytes)):
            return None
        return [self._compute(columns[0])]


class PadEnd(TensorOperation):
    """Pad (or cut) every dimension at its end to ``pad_shape`` with ``pad_value`` (0 or '')."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, list) or not pad_shape:
            raise TypeError(f"Argument pad_shape with value {pad_shape!r} is not of type [<class 'list'>].")
        for d in pad_shape:
            _check_int(d, "pad_shape", 1)
        if pad_value is not None and not isinstance(pad_value, (str, bytes, numbers.Number)):
            raise TypeError(f"Argument pad_value with value {pad_value!r} is not a number or a str.")
        self.pad_shape = [int(d) for d in pad_shape]
        self.pad_value = pad_value

    def _compute(self, array):
        if array.ndim != len(self.pad_shape):
            raise RuntimeError(f"PadEnd: invalid pad shape, as rank of input is: {array.ndim}, and rank of pad "
                               f"value: {len(self.pad_shape)}")
        if array.dtype.kind in "US":
            fill = "" if self.pad_value is None else self.pad_value
            out = np.full(self.pad_shape, fill, dtype=np.result_type(array.dtype, np.array(fill).dtype))
        else:
            fill = 0 if self.pad_value is None else self.pad_value
            out = np.full(self.pad_shape, np.array(fill).astype(array.dtype), dtype=array.dtype)
        region = tuple(slice(0, min(a, b)) for a, b in zip(array.shape, self.pad_shape))
        out[region] = array[region]
        return out


class Concatenate(TensorOperation):
    """A 1-D input with ``prepend`` before and ``append`` after (same dtype)."""

    def __init__(self, axis=0, prepend=None, append=None):
        _check_int(axis, "axis")
        for name, value in (("prepend", prepend), ("append", append)):
            if value is not None and not isinstance(value, np.ndarray):
                raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'numpy.ndarray'>], "
                                f"but got {type(value)}.")
        self.axis = int(axis)
        self.prepend = prepend
        self.append = append

    def _compute(self, array):
        if array.ndim != 1:
            raise RuntimeError(f"Concatenate: only 1D input supported, got rank of input: {array.ndim}")
        parts = []
        for name, extra in (("prepend", self.prepend), ("append", self.append)):
            strings = extra is not None and extra.dtype.kind in "US" and array.dtype.kind in "US"
            if extra is not None and extra.dtype != array.dtype and not strings:
                raise RuntimeError(f"Concatenate: input datatype does not match the {name} datatype, got input "
                                   f"datatype: {array.dtype}, {name} datatype:{extra.dtype}")
        if self.prepend is not None:
            parts.append(self.prepend.reshape(-1))
        parts.append(array)
        if self.append is not None:
            parts.append(self.append.reshape(-1))
        return np.concatenate(parts)


class Duplicate(TensorOperation):
    """The input twice (two columns)."""

    def _compute(self, array):
        return array, array.copy()

    def _apply_block(self, columns):
        return [columns[0], columns[0].copy()] if len(columns) == 1 else None


class Relational(enum.IntEnum):
    """The comparisons :class:`Mask` can make."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
            Relational.GE: np.greater_equal, Relational.LT: np.less, Relational.LE: np.less_equal}


class Mask(TensorOperation):
    """``input <operator> constant`` element by element (the constant cast to the input's dtype first)."""

    _row_rank = 0

    def __init__(self, operator, constant, dtype=None):
        if not isinstance(operator, Relational):
            raise TypeError(f"Argument operator with value {operator!r} is not of type [<enum 'Relational'>], "
                            f"but got {type(operator)}.")
        if not isinstance(constant, (str, bytes, numbers.Number)):
            raise TypeError(f"Argument constant with value {constant!r} is not a number or a str.")
        self.operator = operator
        self.constant = constant
        self.dtype = np.dtype(bool) if dtype is None else numpy_dtype(dtype, "dtype")

    def _compute(self, array):
        if (array.dtype.kind in "US") != isinstance(self.constant, (str, bytes)):
            raise RuntimeError(f"Mask: the constant {self.constant!r} and the input ({array.dtype}) must both be "
                               "numbers or both be strings.")
        constant = self.constant if array.dtype.kind in "US" else np.array(self.constant).astype(array.dtype)
        return _COMPARE[self.operator](array, constant).astype(self.dtype)

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].dtype.kind in "US":
            return None
        return [self._compute(columns[0])]


class Slice(TensorOperation):
    """Index each dimension with one of: an int (kept as a dimension of 1), a list of ints, a slice,
    ``None``/``True`` (all), or ``Ellipsis`` (all remaining dimensions)."""

    def __init__(self, *slices):
        for s in slices:
            if s is None or s is Ellipsis or isinstance(s, (bool, slice)):
                continue
            if isinstance(s, (int, np.integer)):
                continue
            if isinstance(s, list) and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in s):
                continue
            raise TypeError(f"Argument slices with value {s!r} is not of type [<class 'int'>, <class 'list'>, "
                            f"<class 'slice'>, <class 'NoneType'>, <class 'ellipsis'>, <class 'bool'>].")
        self.slices = slices

    def _compute(self, array):
        items = list(self.slices)
        if Ellipsis in items:
            k = items.index(Ellipsis)
            fill = array.ndim - (len(items) - 1)
            items = items[:k] + [None] * max(fill, 0) + items[k + 1:]
        if len(items) > array.ndim:
            raise RuntimeError(f"Slice: too many slices ({len(items)}) for a tensor of rank {array.ndim}.")
        out = array
        for axis, item in enumerate(items):
            if item is None or item is True:
                continue
            if item is False:
                out = np.take(out, [], axis=axis)
                continue
            if isinstance(item, slice):
                index = [slice(None)] * out.ndim
                index[axis] = item
                out = out[tuple(index)]
                continue
            positions = [item] if not isinstance(item, list) else item
            size = out.shape[axis]
            checked = []
            for p in positions:
                if not -size <= p < size:
                    raise RuntimeError(f"Slice: index {p} is out of bounds for dimension {axis} of size {size}.")
                checked.append(p % size)
            out = np.take(out, checked, axis=axis)
        return out


class Unique(TensorOperation):
    """The distinct values of a tensor of rank >= 2 (flattened, in order of first appearance), each
    element's index into them (Int32), and each value's count (Int32): three columns.

    >>> import numpy as np
    >>> values, index, counts = Unique()(np.array([[3, 1], [2, 3]]))
    >>> values, index, counts
    (array([3, 1, 2]), array([0, 1, 2, 0], dtype=int32), array([2, 1, 1], dtype=int32))
    """

    def _compute(self, array):
        if array.ndim < 2:
            # MindSpore 2.10 flattens its input and asks for at least two dimensions
            raise RuntimeError(f"Unique: input must be at least 2-D in order to do unique op, got rank:{array.ndim}")
        flat = array.reshape(-1)
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse.reshape(-1)].astype(np.int32), counts[order].astype(np.int32)
