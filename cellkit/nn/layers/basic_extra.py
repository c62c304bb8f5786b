"""``Identity``, ``Unflatten``, ``Linear`` and ``BiDense``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> nn.Linear(3, 2)
Linear(input_features=3, output_features=2, has_bias=True)
>>> nn.Unflatten(1, (2, 3))(ms.ops.ones((4, 6))).shape
(4, 2, 3)
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["Identity", "Unflatten", "Linear", "BiDense"]


def _positive_int(value, name, cell):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cell}', the '{name}' must be int, but got '{type(value).__name__}'.")
    if value <= 0:
        raise ValueError(f"For '{cell}', the '{name}' must be int and must > 0, but got {value!r} with type "
                         f"'{type(value).__name__}'.")
    return value


def _bool(value, name, cell):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cell}', the '{name}' must be a bool, but got {type(value).__name__}.")
    return value


class Identity(Cell):
    """Return the input unchanged (the very same object); any constructor arguments are ignored.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor([1.0, 2.0])
    >>> nn.Identity(54, unused="yes")(x) is x
    True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, input):
        return input


class Unflatten(Cell):
    """Split axis ``axis`` of the input into the shape ``unflattened_size`` (one entry may be -1).

    Parameters
    ----------
    axis : int
        The axis to split (negative counts from the end).
    unflattened_size : tuple or list of int
        Its new shape; the product must equal the size of the axis.

    Raises
    ------
    TypeError
        ``axis`` not an int, or ``unflattened_size`` not a tuple or list.
    ValueError
        When called, a shape whose product does not fit the axis.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.Unflatten(-1, [2, -1])(ms.ops.ones((3, 8))).shape
    (3, 2, 4)
    """

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Unflatten', the type of 'axis' must be 'int', but got '{type(axis).__name__}'.")
        if not isinstance(unflattened_size, (list, tuple)):
            raise TypeError(f"For 'Unflatten', the type of 'unflattened_size' should be one of ['list', 'tuple'], "
                            f"but got type '{type(unflattened_size).__name__}'.")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        if not isinstance(input_x, Tensor):
            raise TypeError(f"For 'Unflatten', the input must be a Tensor, but got {type(input_x).__name__}.")
        shape = tuple(input_x.shape)
        axis = self.axis
        if not -len(shape) <= axis < len(shape):
            raise ValueError(f"For 'Unflatten', 'axis' must be in [{-len(shape)}, {len(shape)}) for an input of "
                             f"shape {shape}, but got {axis}.")
        # MindSpore slices the shape with the axis as given, so -1 means the last axis.
        rest = shape[axis + 1:] if axis != -1 else ()
        return ops.reshape(input_x, shape[:axis] + self.unflattened_size + rest)


class Linear(Cell):
    """A fully connected layer ``x @ weight.T + bias`` with PyTorch-style argument names.

    Parameters
    ----------
    in_features, out_features : int
        Positive sizes; ``weight`` has shape ``(out_features, in_features)``.
    bias : bool
        Whether to add a learned ``bias`` of shape ``(out_features,)``.
    weight_init, bias_init : str, Initializer, Tensor or None
        ``None`` gives He-uniform weights (a = sqrt(5)) and uniform biases in
        ``[-1/sqrt(in_features), 1/sqrt(in_features)]``.
    dtype : cellkit dtype or None
        The Parameters' dtype (``None``: float32).

    Raises
    ------
    ValueError
        Sizes that are not positive ints, or an initial Tensor of the wrong shape.
    TypeError
        ``bias`` not a bool.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> layer = nn.Linear(3, 2, bias=False, weight_init="ones")
    >>> print(layer(ms.Tensor([[1.0, 2.0, 3.0]])))
    [[6. 6.]]
    """

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__()
        self.in_features = _positive_int(in_features, "in_features", "Linear")
        self.out_features = _positive_int(out_features, "out_features", "Linear")
        self.has_bias = _bool(bias, "has_bias", "Linear")
        dtype = _dt.float32 if dtype is None else dtype
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_features, in_features):
            raise ValueError(f"For 'Linear', 'weight_init' must have shape (out_features, in_features) = "
                             f"{(out_features, in_features)}, but got {weight_init.shape}.")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_features, in_features], dtype=dtype), name="weight")
        self.bias = None
        if self.has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_features,):
                raise ValueError(f"For 'Linear', 'bias_init' must have shape (out_features,) = ({out_features},), "
                                 f"but got {bias_init.shape}.")
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_features))
            self.bias = Parameter(initializer(bias_init, [out_features], dtype=dtype), name="bias")

    def construct(self, x):
        return ops.dense(x, self.weight, self.bias)

    def extend_repr(self):
        text = f"input_features={self.in_features}, output_features={self.out_features}"
        if self.has_bias:
            text += f", has_bias={self.has_bias}"
        return text


class BiDense(Cell):
    """Bilinear layer: ``y[..., o] = sum_ij x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o]``.

    Parameters
    ----------
    in1_channels, in2_channels, out_channels : int
        Positive sizes; ``weight`` has shape ``(out_channels, in1_channels, in2_channels)``.
    weight_init, bias_init : str, Initializer, Tensor or None
        ``None``: uniform in ``[-1/sqrt(in1_channels), 1/sqrt(in1_channels)]`` for both.
    has_bias : bool
    dtype : cellkit dtype

    The two inputs share every axis but the last (``in1_channels`` and
    ``in2_channels``); the output replaces the last axis by ``out_channels``.

    Raises
    ------
    ValueError
        Sizes that are not positive ints, initial Tensors of the wrong shape,
        inputs whose shapes do not fit.
    TypeError
        ``has_bias`` not a bool, inputs that are not Tensors.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> layer = nn.BiDense(2, 2, 1, weight_init="ones", has_bias=False)
    >>> print(layer(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0, 4.0]])))
    [[21.]]
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=_dt.float32):
        super().__init__()
        self.in1_channels = _positive_int(in1_channels, "in1_channels", "BiDense")
        self.in2_channels = _positive_int(in2_channels, "in2_channels", "BiDense")
        self.out_channels = _positive_int(out_channels, "out_channels", "BiDense")
        self.has_bias = _bool(has_bias, "has_bias", "BiDense")
        shape = (out_channels, in1_channels, in2_channels)
        bound = 1 / math.sqrt(in1_channels)
        if weight_init is None:
            weight_init = Uniform(bound)
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != shape:
            raise ValueError(f"For 'BiDense', 'weight_init' must have shape (out_channels, in1_channels, "
                             f"in2_channels) = {shape}, but got {weight_init.shape}.")
        self.weight = Parameter(initializer(weight_init, shape, dtype=dtype), name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(bound)
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(f"For 'BiDense', 'bias_init' must have shape (out_channels,) = ({out_channels},), "
                                 f"but got {bias_init.shape}.")
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")

    def construct(self, input1, input2):
        for name, value in (("input1", input1), ("input2", input2)):
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'BiDense', the '{name}' must be a Tensor, but got {type(value).__name__}.")
        s1, s2 = tuple(input1.shape), tuple(input2.shape)
        for name, shape, size, arg in (("input1", s1, self.in1_channels, "in1_channels"),
                                       ("input2", s2, self.in2_channels, "in2_channels")):
            if not shape or shape[-1] != size:
                raise ValueError(f"For 'BiDense', the last dimension of '{name}' must be '{arg}' = {size}, but got "
                                 f"shape {shape}.")
        if s1[:-1] != s2[:-1]:
            raise ValueError(f"For 'BiDense', 'input1' and 'input2' must agree on every dimension but the last, but "
                             f"got {s1} and {s2}.")
        return ops.bidense(input1, input2, self.weight, self.bias)

    def extend_repr(self):
        text = f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, " \
               f"output_channels={self.out_channels}"
        if self.has_bias:
            text += f", has_bias={self.has_bias}"
        return text
