"""Dense (fully connected) and Flatten.

>>> import cellkit as ms
>>> from cellkit import nn
>>> dense = nn.Dense(3, 2, has_bias=False)
>>> dense
Dense(input_channels=3, output_channels=2)
>>> dense(ms.ops.ones((4, 3))).shape
(4, 2)
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ..cell import Cell
from .activation import get_activation

__all__ = ["Dense", "Flatten"]


def _check_positive_int(value, name, cell):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"For '{cell}', '{name}' must be a positive int, but got {value!r}")
    return value


class Dense(Cell):
    """A fully connected layer: ``activation(x @ weight.T + bias)``.

    Parameters
    ----------
    in_channels, out_channels : int
        Input and output feature sizes; ``weight`` has shape ``(out_channels, in_channels)``.
    weight_init, bias_init : str, Initializer, Tensor or None
        ``None`` gives MindSpore's defaults: He-uniform weights (a = sqrt(5)) and
        uniform biases in ``[-1/sqrt(in_channels), 1/sqrt(in_channels)]``.
    has_bias : bool
    activation : str, Cell or None
        Applied to the output (``'relu'``, ``nn.ReLU()`` ...).
    dtype : cellkit dtype
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=_dt.float32):
        super().__init__()
        self.in_channels = _check_positive_int(in_channels, "in_channels", "Dense")
        self.out_channels = _check_positive_int(out_channels, "out_channels", "Dense")
        if not isinstance(has_bias, bool):
            raise TypeError(f"For 'Dense', 'has_bias' must be a bool, but got {type(has_bias).__name__}")
        self.has_bias = has_bias
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, (out_channels, in_channels), dtype), name="weight")
        if self.weight.shape != (out_channels, in_channels):
            raise ValueError(
                f"For 'Dense', weight_init must have shape {(out_channels, in_channels)}, but got {self.weight.shape}"
            )
        self.bias = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
        self.activation = get_activation(activation)
        self.activation_flag = self.activation is not None

    def construct(self, x):
        weight, bias = self.weight, self.bias  # already in the to_float type, if one is set
        out = ops.dense(x, weight, bias)
        if self.activation_flag:
            out = self.activation(out)
        return out

    def extend_repr(self):
        text = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            text += f", has_bias={self.has_bias}"
        if self.activation_flag:
            text += f", activation={self.activation}"
        return text


class Flatten(Cell):
    """Flatten axes ``start_dim .. end_dim`` (by default all but the batch axis)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)
