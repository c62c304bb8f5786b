"""``nn.Conv2d`` and ``nn.Conv1d``: convolutions over NCHW and NCW inputs.

>>> import cellkit as ms
>>> from cellkit import nn
>>> conv = nn.Conv2d(1, 4, 3)
>>> conv(ms.ops.ones((2, 1, 8, 8))).shape
(2, 4, 8, 8)
>>> nn.Conv1d(1, 4, 3)(ms.ops.ones((2, 1, 8))).shape
(2, 4, 8)
"""
from __future__ import annotations

import math

import numpy as np

from ... import dtype as _dt
from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["Conv2d", "Conv1d"]


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
        weight, bias = self.weight, self.bias  # already in the to_float type, if one is set
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


def _conv1d_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'Conv1d', the type of '{name}' should be 'int', but got type '{type(value).__name__}'.")
    if value < minimum:
        raise ValueError(f"For 'Conv1d', the '{name}' must be an int >= {minimum}, but got {value}.")
    return value


def _init_text(init):
    """How an initializer argument appears in a layer's repr."""
    if isinstance(init, Tensor):
        return f"Tensor(shape={list(init.shape)}, dtype={init.dtype})"
    if init is None or isinstance(init, str):
        return init
    return repr(init)


class Conv1d(Cell):
    """1-D convolution over ``(N, C_in, W)`` inputs, giving ``(N, C_out, W_out)``.

    As in MindSpore, the layer is a 2-D convolution of height 1: the input gets
    a height axis of size 1, and ``weight`` has shape
    ``(out_channels, in_channels / group, 1, kernel_size)`` (so checkpoints move
    between cellkit and MindSpore unchanged).  ``kernel_size``, ``stride`` and
    ``dilation`` are shown (and kept) as ``(1, k)`` pairs, ``padding`` as
    ``(0, 0, left, right)``.

    Parameters
    ----------
    in_channels, out_channels : int
        Channel counts, both divisible by ``group``.
    kernel_size, stride, dilation : int
        Kernel width, step and spacing of the kernel's taps (all >= 1).
    pad_mode : {'same', 'valid', 'pad'}
        ``'same'``: output width ``ceil(W / stride)`` (any odd padding on the right);
        ``'valid'``: no padding; ``'pad'``: ``padding`` zeros on both sides.
    padding : int
        Must be 0 unless ``pad_mode='pad'``.
    group : int
        Split the channels into this many independent convolutions.
    has_bias : bool
    weight_init, bias_init : str, Initializer, Tensor or None
        ``None``: He-uniform weights (a = sqrt(5)) and uniform biases in
        ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]``.  A Tensor ``weight_init`` has shape
        ``(out_channels, in_channels / group, kernel_size)``.
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        ``kernel_size``, ``stride``, ``padding`` or ``dilation`` not an int.
    ValueError
        Values out of range, channels not divisible by ``group``, an unknown
        ``pad_mode``, non-zero ``padding`` outside ``'pad'`` mode, or an input
        that is not 3-D.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> conv = nn.Conv1d(2, 3, 3, pad_mode="valid", weight_init="ones")
    >>> conv.weight.shape
    (3, 2, 1, 3)
    >>> print(conv(ms.ops.ones((1, 2, 5)))[0, 0])
    [6. 6. 6.]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype=_dt.float32):
        super().__init__()
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels), ("group", group)):
            _conv1d_int(value, name, 1)
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"For 'Conv1d', 'group' must divide 'in_channels' and 'out_channels', but got group:{group}, "
                f"in_channels:{in_channels}, out_channels:{out_channels}."
            )
        k = _conv1d_int(kernel_size, "kernel_size", 1)
        s = _conv1d_int(stride, "stride", 1)
        d = _conv1d_int(dilation, "dilation", 1)
        p = _conv1d_int(padding, "padding", 0)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"For 'Conv1d', the 'pad_mode' must be one of ['valid', 'same', 'pad'], but got {pad_mode!r}.")
        if pad_mode.lower() != "pad" and p:
            raise ValueError(f"For 'Conv1d', the 'padding' must be 0 when 'pad_mode' is not 'pad', but got "
                             f"padding={padding} and pad_mode={pad_mode!r}.")
        if not isinstance(has_bias, bool):
            raise TypeError(f"For 'Conv1d', 'has_bias' must be a bool, but got {type(has_bias).__name__}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = (1, k)
        self.stride = (1, s)
        self.dilation = (1, d)
        self.pad_mode = pad_mode
        self.padding = (0, 0, p, p)
        self.group = group
        self.has_bias = has_bias
        self.data_format = "NCHW"
        shape = (out_channels, in_channels // group, 1, k)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        elif isinstance(weight_init, (Tensor, np.ndarray)):
            if len(weight_init.shape) != 3:
                raise ValueError(
                    f"For 'Conv1d', a Tensor 'weight_init' must be 3-D (out_channels, in_channels / group, "
                    f"kernel_size), but got shape {tuple(weight_init.shape)}."
                )
            weight_init = ops.expand_dims(Tensor(weight_init, dtype=dtype) if isinstance(weight_init, np.ndarray)
                                          else weight_init, 2)
        self.weight_init = weight_init
        self.bias_init = bias_init
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            init = bias_init if bias_init is not None else Uniform(1 / math.sqrt((in_channels // group) * k))
            self.bias = Parameter(initializer(init, (out_channels,), dtype), name="bias")

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != 3:
            shape = x.shape if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"For 'Conv1d', the input must be a 3-D Tensor (N, C, W), but got {shape}.")
        weight, bias = self.weight, self.bias  # already in the to_float type, if one is set
        out = ops.conv2d(ops.expand_dims(x, 2), weight, bias, self.stride, self.pad_mode.lower(), self.padding,
                         self.dilation, self.group)
        return ops.squeeze(out, 2)

    def extend_repr(self):
        return (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
            f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
            f"has_bias={self.has_bias}, weight_init={_init_text(self.weight_init)}, "
            f"bias_init={_init_text(self.bias_init)}, format={self.data_format}"
        )
