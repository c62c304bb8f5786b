"""``nn.Conv2d``: 2-D convolution over NCHW inputs.

>>> import cellkit as ms
>>> from cellkit import nn
>>> conv = nn.Conv2d(1, 4, 3)
>>> conv(ms.ops.ones((2, 1, 8, 8))).shape
(2, 4, 8, 8)
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ..cell import Cell

__all__ = ["Conv2d"]


def _pair(value, name):
    if isinstance(value, bool):
        raise TypeError(f"For 'Conv2d', '{name}' must be an int or a tuple of two ints, but got bool")
    if isinstance(value, int):
        pair = (value, value)
    elif isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        pair = value
    else:
        raise TypeError(f"For 'Conv2d', '{name}' must be an int or a tuple of two ints, but got {value!r}")
    if min(pair) < 1:
        raise ValueError(f"For 'Conv2d', '{name}' must be positive, but got {value!r}")
    return pair


class Conv2d(Cell):
    """2-D convolution layer; ``weight`` has shape ``(out, in / group, kh, kw)``.

    Defaults follow MindSpore: ``pad_mode='same'``, no bias, He-uniform weights.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=_dt.float32):
        super().__init__()
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels), ("group", group)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"For 'Conv2d', '{name}' must be a positive int, but got {value!r}")
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"For 'Conv2d', in_channels ({in_channels}) and out_channels ({out_channels}) must be divisible by group ({group})"
            )
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"For 'Conv2d', 'pad_mode' must be 'same', 'valid' or 'pad', but got {pad_mode!r}")
        if data_format != "NCHW":
            raise ValueError(f"For 'Conv2d', only data_format='NCHW' is supported, but got {data_format!r}")
        if pad_mode != "pad" and padding not in (0, (0, 0, 0, 0)):
            raise ValueError(f"For 'Conv2d', 'padding' must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride = _pair(stride, "stride")
        self.dilation = _pair(dilation, "dilation")
        self.pad_mode = pad_mode
        self.padding = padding
        self.group = group
        self.has_bias = has_bias
        self.data_format = data_format
        self.weight_init = weight_init
        self.bias_init = bias_init
        shape = (out_channels, in_channels // group) + self.kernel_size
        self.weight = Parameter(initializer(weight_init if weight_init is not None else HeUniform(math.sqrt(5)),
                                            shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            fan_in = (in_channels // group) * self.kernel_size[0] * self.kernel_size[1]
            init = bias_init if bias_init is not None else Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(init, (out_channels,), dtype), name="bias")

    def construct(self, x):
        weight, bias = self.weight, self.bias
        if self._dst_type is not None:
            weight = self.cast_param(weight)
            bias = None if bias is None else self.cast_param(bias)
        return ops.conv2d(x, weight, bias, self.stride, self.pad_mode, self.padding, self.dilation, self.group)

    def extend_repr(self):
        return (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
            f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
            f"has_bias={self.has_bias}, weight_init={_init_name(self.weight_init)}, "
            f"bias_init={_init_name(self.bias_init)}, format={self.data_format}"
        )


def _init_name(init):
    if init is None or isinstance(init, str):
        return init
    return type(init).__name__
