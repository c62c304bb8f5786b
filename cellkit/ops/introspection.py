"""Ops that answer questions about their inputs: a tensor's dtype, its type code, a shape's size.

They compute nothing differentiable; MindSpore keeps them as ops because its graph compiler folds
them into constants.  In cellkit they are plain Python over the Tensor's metadata.

>>> import cellkit as ms
>>> from cellkit import ops
>>> ops.DType()(ms.Tensor([1.0])), ops.shape_mul((2, 3, 4)), ops.is_nonzero(ms.Tensor([0.5]))
(mindspore.float32, 24, True)
"""
from __future__ import annotations

from .. import dtype as _dt
from ..tensor import Tensor
from ..transforms import get_grad
from ._core import describe, tensor_arg
from .primitive import Primitive, prim_attr_register

__all__ = ["DType", "DtypeToEnum", "shape", "shape_mul", "is_nonzero", "is_tensor", "get_grad"]

# MindSpore's TypeId codes (mindspore/core/ir/dtype/type_id.h), as DtypeToEnum answers them.
_TYPE_IDS = {
    "Bool": 30, "Int8": 32, "Int16": 33, "Int32": 34, "Int64": 35, "UInt8": 37, "UInt16": 38,
    "UInt32": 39, "UInt64": 40, "Float16": 42, "Float32": 43, "Float64": 44, "BFloat16": 45,
    "Complex64": 51, "Complex128": 52,
}


class DType(Primitive):
    """``DType()(x)``: the dtype of the Tensor ``x`` (a ``cellkit.dtype`` object).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.DType()(ms.Tensor([1, 2])))
    Int64
    """

    @prim_attr_register
    def __init__(self):
        pass

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor):
            raise TypeError("For Primitive[Dtype], the input argument[input_x] must be a Tensor, CSRTensor or "
                            f"COOTensor, but got {type(input_x)}.")
        return input_x.dtype


class DtypeToEnum(Primitive):
    """``DtypeToEnum()(op_name, arg_name, dtype)``: MindSpore's integer code of a dtype.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> ops.DtypeToEnum()("MyOp", "dtype", ms.float32)
    43
    """

    @prim_attr_register
    def __init__(self):
        pass

    def __call__(self, op_name, arg_name, dtype):
        if not isinstance(dtype, _dt.DType):
            raise TypeError(f"For '{op_name}', the input '{arg_name}' should be mindspore dtype, but got {dtype}.")
        return _TYPE_IDS[dtype.name]


def shape(input_x):
    """The shape of the Tensor ``input_x`` as a tuple of ints (``ops.Shape()(x)`` as a function).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> ops.shape(ms.Tensor([[1.0, 2.0]]))
    (1, 2)
    """
    if not isinstance(input_x, Tensor):
        raise TypeError(f"For primitive[Shape], the input argument must be Tensor, but got {type(input_x)}.")
    return tuple(input_x.shape)


def shape_mul(shape_x):
    """The product of the sizes in the tuple ``shape_x`` (1 for ``()``): the element count of that shape.

    >>> shape_mul((2, 3, 4))
    24
    """
    if not isinstance(shape_x, tuple):
        raise ValueError(f"For 'shape_mul', 'shape_x' must be a tuple, but got {describe(shape_x)}")
    if any(isinstance(size, bool) or not isinstance(size, int) for size in shape_x):
        raise TypeError(f"For 'shape_mul', 'shape_x' must be a tuple of ints, but got {describe(shape_x)}")
    product = 1
    for size in shape_x:
        product *= size
    return product


def is_nonzero(input):
    """Whether the one element of ``input`` is not zero (``False`` for ``0``, ``0.0`` and ``False``).

    Raises ValueError unless ``input`` holds exactly one element.

    >>> import cellkit as ms
    >>> is_nonzero(ms.Tensor([[0]])), is_nonzero(ms.Tensor(True))
    (False, True)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'is_nonzero', 'input' must be a Tensor, but got {describe(input)}")
    input = tensor_arg(input, "input", "is_nonzero")  # a placeholder without values is refused here
    if input.size != 1:
        raise ValueError(f"For 'is_nonzero', 'input' must hold exactly one element, but got shape "
                         f"{tuple(input.shape)} ({input.size} elements)")
    return bool(input.asnumpy().reshape(()) != 0)


def is_tensor(obj):
    """Whether ``obj`` is a Tensor (a Parameter is one too).

    >>> import cellkit as ms
    >>> is_tensor(ms.Tensor([1.0])), is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)
