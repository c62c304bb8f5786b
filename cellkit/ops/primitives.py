"""Primitive classes for the core ops (``ops.Add()``, ``ops.MatMul()`` ...).

Each class records its constructor arguments and calls the functional op.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.MatMul(transpose_b=True)(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0, 4.0]])))
[[11.]]
"""
from __future__ import annotations

from .. import dtype as _dt
from . import creation, linalg, math, reduce
from . import shape_ops as shape
from .primitive import Primitive, prim_attr_register

__all__ = [
    "Add", "Sub", "Mul", "RealDiv", "Div", "Neg", "Pow", "Exp", "Log", "Sqrt", "Rsqrt", "Square",
    "Abs", "Maximum", "Minimum", "MatMul", "BatchMatMul", "Transpose", "Reshape", "ExpandDims",
    "Squeeze", "Concat", "Stack", "Split", "Gather", "Tile", "BroadcastTo", "Flatten", "ReduceSum",
    "ReduceMean", "ReduceMax", "ReduceMin", "Argmax", "Argmin", "Cast", "Ones", "Zeros", "OnesLike",
    "ZerosLike", "Fill", "Shape", "Rank", "Size", "Equal", "Greater", "Less", "Select", "AddN",
    "Identity", "Sin", "Cos", "Floor", "Mod", "FloorDiv", "TensorAdd",
]


def _elementwise(name, fn, doc):
    cls = type(name, (Primitive,), {
        "__init__": lambda self: Primitive.__init__(self),
        "__call__": lambda self, *args: fn(*args),
        "__doc__": doc,
    })
    return cls


Add = _elementwise("Add", math.add, "``x + y`` with broadcasting.")
TensorAdd = Add
Sub = _elementwise("Sub", math.sub, "``x - y`` with broadcasting.")
Mul = _elementwise("Mul", math.mul, "``x * y`` with broadcasting.")
RealDiv = _elementwise("RealDiv", math.div, "``x / y`` (floating-point division).")
Div = _elementwise("Div", math.div, "``x / y``.")
FloorDiv = _elementwise("FloorDiv", math.floor_div, "``x // y``.")
Mod = _elementwise("Mod", math.mod, "``x % y``.")
Neg = _elementwise("Neg", math.neg, "``-x``.")
Pow = _elementwise("Pow", math.pow, "``x ** y``.")
Exp = _elementwise("Exp", math.exp, "``e ** x``.")
Log = _elementwise("Log", math.log, "natural logarithm.")
Sqrt = _elementwise("Sqrt", math.sqrt, "square root.")
Rsqrt = _elementwise("Rsqrt", math.rsqrt, "reciprocal square root.")
Square = _elementwise("Square", math.square, "``x * x``.")
Abs = _elementwise("Abs", math.abs, "absolute value.")
Sin = _elementwise("Sin", math.sin, "sine.")
Cos = _elementwise("Cos", math.cos, "cosine.")
Floor = _elementwise("Floor", math.floor, "round down.")
Maximum = _elementwise("Maximum", math.maximum, "elementwise maximum.")
Minimum = _elementwise("Minimum", math.minimum, "elementwise minimum.")
Equal = _elementwise("Equal", math.equal, "``x == y``.")
Greater = _elementwise("Greater", math.greater, "``x > y``.")
Less = _elementwise("Less", math.less, "``x < y``.")
Select = _elementwise("Select", math.where, "``where(cond, x, y)``.")
Transpose = _elementwise("Transpose", shape.transpose, "``Transpose()(x, perm)``.")
Reshape = _elementwise("Reshape", shape.reshape, "``Reshape()(x, shape)``.")
ExpandDims = _elementwise("ExpandDims", shape.expand_dims, "``ExpandDims()(x, axis)``.")
Tile = _elementwise("Tile", shape.tile, "``Tile()(x, multiples)``.")
Gather = _elementwise("Gather", shape.gather, "``Gather()(params, indices, axis)``.")
Cast = _elementwise("Cast", creation.cast, "``Cast()(x, dtype)``.")
OnesLike = _elementwise("OnesLike", creation.ones_like, "ones shaped like ``x``.")
ZerosLike = _elementwise("ZerosLike", creation.zeros_like, "zeros shaped like ``x``.")


class Identity(Primitive):
    """Returns its input unchanged."""

    def __call__(self, x):
        return x


class MatMul(Primitive):
    """Matrix product of two 2-D tensors, optionally transposing either."""

    @prim_attr_register
    def __init__(self, transpose_a=False, transpose_b=False):
        pass

    def __call__(self, x, y):
        return linalg.batch_matmul(x, y, self.transpose_a, self.transpose_b)


class BatchMatMul(Primitive):
    """Batched matrix product, optionally transposing the last two axes of either input."""

    @prim_attr_register
    def __init__(self, transpose_a=False, transpose_b=False):
        pass

    def __call__(self, x, y):
        return linalg.batch_matmul(x, y, self.transpose_a, self.transpose_b)


class Squeeze(Primitive):
    """Remove length-1 axes (``axis=()`` removes all)."""

    @prim_attr_register
    def __init__(self, axis=()):
        pass

    def __call__(self, x):
        return shape.squeeze(x, self.axis if self.axis != () else None)


class Concat(Primitive):
    @prim_attr_register
    def __init__(self, axis=0):
        pass

    def __call__(self, tensors):
        return shape.concat(tensors, self.axis)


class Stack(Primitive):
    @prim_attr_register
    def __init__(self, axis=0):
        pass

    def __call__(self, tensors):
        return shape.stack(tensors, self.axis)


class Split(Primitive):
    """Split into ``output_num`` equal pieces along ``axis``."""

    @prim_attr_register
    def __init__(self, axis=0, output_num=1):
        pass

    def __call__(self, x):
        x = shape.tensor_arg(x, "x", "Split")
        if not x.ndim:
            raise ValueError("For 'Split', 'x' must have at least 1 dimension, but got a scalar (shape ())")
        axis = shape.normalize_axis(self.axis, x.ndim, "Split")
        length = x.shape[axis]
        if length % self.output_num:
            raise ValueError(
                f"For 'Split', axis {self.axis} of length {length} cannot be split into {self.output_num} equal parts"
            )
        return shape.split(x, [length // self.output_num] * self.output_num, axis)


class BroadcastTo(Primitive):
    @prim_attr_register
    def __init__(self, shape):
        pass

    def __call__(self, x):
        return shape.broadcast_to(x, self.shape)


class Flatten(Primitive):
    """Flatten all axes but the first."""

    def __call__(self, x):
        return shape.flatten(x)


class _Reduce(Primitive):
    _fn = None

    @prim_attr_register
    def __init__(self, keep_dims=False):
        pass

    def __call__(self, x, axis=()):
        return type(self)._fn(x, axis if axis != () else None, self.keep_dims)


class ReduceSum(_Reduce):
    """``ReduceSum(keep_dims)(x, axis)``."""
    _fn = staticmethod(reduce.reduce_sum)


class ReduceMean(_Reduce):
    """``ReduceMean(keep_dims)(x, axis)``."""
    _fn = staticmethod(reduce.mean)


class ReduceMax(_Reduce):
    """``ReduceMax(keep_dims)(x, axis)``."""
    _fn = staticmethod(reduce.amax)


class ReduceMin(_Reduce):
    """``ReduceMin(keep_dims)(x, axis)``."""
    _fn = staticmethod(reduce.amin)


class Argmax(Primitive):
    @prim_attr_register
    def __init__(self, axis=-1, output_type=_dt.int32):
        pass

    def __call__(self, x):
        return creation.cast(reduce.argmax(x, self.axis), self.output_type)


class Argmin(Primitive):
    @prim_attr_register
    def __init__(self, axis=-1, output_type=_dt.int32):
        pass

    def __call__(self, x):
        return creation.cast(reduce.argmin(x, self.axis), self.output_type)


class Ones(Primitive):
    def __call__(self, size, type=None):
        return creation.ones(size, type)


class Zeros(Primitive):
    def __call__(self, size, type=None):
        return creation.zeros(size, type)


class Fill(Primitive):
    def __call__(self, type, shape, value):
        return creation.fill(type, shape, value)


class Shape(Primitive):
    """The static shape as a tuple."""

    def __call__(self, x):
        return x.shape


class Rank(Primitive):
    def __call__(self, x):
        return x.ndim


class Size(Primitive):
    def __call__(self, x):
        return x.size


class AddN(Primitive):
    """Sum of a list of tensors of one shape."""

    def __call__(self, inputs):
        if not inputs:
            raise ValueError("For 'AddN', the input list must not be empty")
        total = inputs[0]
        for t in inputs[1:]:
            total = math.add(total, t)
        return total
