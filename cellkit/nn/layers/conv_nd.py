"""Transposed convolutions and 3-D convolution: ``nn.Conv1dTranspose``, ``nn.Conv2dTranspose``,
``nn.Conv3d`` and ``nn.Conv3dTranspose``.

Each layer holds one ``weight`` Parameter (and a ``bias`` when ``has_bias``) laid out as
MindSpore lays it out, so checkpoints move between the two unchanged:

- ``Conv3d``: ``(out_channels, in_channels / group, kd, kh, kw)``;
- the transposed layers: ``(in_channels, out_channels / group, *kernel)``; ``Conv1dTranspose``
  keeps a height axis of 1, ``(in_channels, out_channels / group, 1, k)``.

The layers compose cellkit's ops (``ops.Conv3D``, ``ops.Conv2DTranspose``,
``ops.conv3d_transpose``, ``ops.pad``), so gradients of any order, hooks and recompute work
on them with no layer-specific code.

>>> import cellkit as ms
>>> from cellkit import nn
>>> nn.Conv3d(1, 2, 3)(ms.ops.ones((1, 1, 4, 4, 4))).shape
(1, 2, 4, 4, 4)
>>> nn.Conv2dTranspose(1, 2, 2, stride=2)(ms.ops.ones((1, 1, 3, 3))).shape
(1, 2, 6, 6)
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
from ._where import raised_in
from .conv import _init_text

__all__ = ["Conv1dTranspose", "Conv2dTranspose", "Conv3d", "Conv3dTranspose"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_int(value, name, cell):
    if not _is_int(value):
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'int', but got type '{type(value).__name__}'.")
    if value < 1:
        raise ValueError(f"For '{cell}', the '{name}' must be a positive int, but got {value}.")
    return value


def _expand(value, n, name, cell, minimum=1):
    """An int or a tuple of ``n`` ints (each >= ``minimum``) as a tuple of ``n`` ints."""
    if _is_int(value):
        items = (value,) * n
    elif isinstance(value, tuple):
        if len(value) != n or not all(_is_int(v) for v in value):
            raise ValueError(f"For '{cell}', the '{name}' must be an int or a tuple of {n} ints, but got {value!r}.")
        items = value
    else:
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'int' or 'tuple', but got type "
                        f"'{type(value).__name__}'.")
    if min(items) < minimum:
        raise ValueError(f"For '{cell}', every item of '{name}' must be >= {minimum}, but got {value!r}.")
    return items


def _padding(value, lengths, cell):
    """An int or a tuple of one of ``lengths`` non-negative ints, kept as given."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"For '{cell}', the type of 'padding' should be 'int' or 'tuple', but got type "
                        f"'{type(value).__name__}'.")
    items = (value,) if _is_int(value) else value
    if isinstance(value, tuple) and len(value) not in lengths:
        raise ValueError(f"For '{cell}', a tuple 'padding' must have {' or '.join(map(str, lengths))} items, "
                         f"but got {len(value)}: {value!r}.")
    if not all(_is_int(v) and v >= 0 for v in items):
        raise ValueError(f"For '{cell}', every item of 'padding' must be a non-negative int, but got {value!r}.")
    return value


def _pad_mode(pad_mode, cell):
    if not isinstance(pad_mode, str) or pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"For '{cell}', the 'pad_mode' must be one of ['valid', 'same', 'pad'], but got "
                         f"{pad_mode!r}.")
    return pad_mode


class _ConvNd(Cell):
    """What every layer here shares: argument checks, the Parameters, and the repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                 has_bias, weight_init, bias_init, data_format, transposed, dtype):
        super().__init__()
        cell = type(self).__name__
        self.in_channels = _positive_int(in_channels, "in_channels", cell)
        self.out_channels = _positive_int(out_channels, "out_channels", cell)
        self.group = _positive_int(group, "group", cell)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{cell}', 'group' must divide 'in_channels' and 'out_channels', but got "
                             f"group:{group}, in_channels:{in_channels}, out_channels:{out_channels}.")
        if not isinstance(has_bias, bool):
            raise TypeError(f"For '{cell}', the type of 'has_bias' should be 'bool', but got type "
                            f"'{type(has_bias).__name__}'.")
        self.kernel_size = kernel_size
        self.stride = stride
        self.pad_mode = _pad_mode(pad_mode, cell)
        self.padding = padding
        self.dilation = dilation
        self.has_bias = has_bias
        self.data_format = data_format
        if transposed:
            shape = (in_channels, out_channels // group) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // group) + tuple(kernel_size)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight_init = weight_init
        with raised_in(cell, "weight_init", "in_channels", "out_channels", "kernel_size"):
            self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        if tuple(self.weight.shape) != shape:
            raise ValueError(f"For '{cell}', 'weight_init' must have shape {shape}, but got {tuple(self.weight.shape)}.")
        self.bias_init = bias_init
        self.bias = None
        if has_bias:
            if bias_init is None:
                # MindSpore takes the fan-in from the weight's shape as stored (axis 1 times the kernel),
                # also for the transposed layers.
                fan_in = shape[1] * int(np.prod(shape[2:]))
                bias_init = Uniform(1 / math.sqrt(fan_in)) if fan_in else "zeros"
                self.bias_init = bias_init
            with raised_in(cell, "bias_init", "out_channels"):
                self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")

    def _add_bias(self, out):
        if self.bias is None:
            return out
        return out + ops.reshape(self.bias, (1, self.out_channels) + (1,) * (out.ndim - 2))

    def _check_input(self, x, ndim, layout):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{type(self).__name__}', the input must be a Tensor, but got {type(x).__name__}.")
        if x.ndim != ndim:
            raise ValueError(f"For '{type(self).__name__}', the input must be {ndim}-D {layout}, but got shape "
                             f"{x.shape}.")

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={_init_text(self.weight_init)}, "
                f"bias_init={_init_text(self.bias_init)}, format={self.data_format}")


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` inputs, giving ``(N, C_out, D_out, H_out, W_out)``.

    Parameters
    ----------
    in_channels, out_channels : int
        Channel counts, both divisible by ``group``.
    kernel_size, stride, dilation : int or tuple of 3 ints
        Kernel extent, step and tap spacing along (D, H, W); all >= 1.
    pad_mode : {'same', 'valid', 'pad'}
        ``'same'``: output ``ceil(n / stride)`` per axis; ``'valid'``: no padding;
        ``'pad'``: zeros as given by ``padding``.
    padding : int or tuple of 6 ints
        ``(head, tail, top, bottom, left, right)``; non-zero only with ``pad_mode='pad'``.
    group : int
    has_bias : bool
    weight_init, bias_init : str, Initializer, Tensor or None
        ``None``: He-uniform weights (a = sqrt(5)) and uniform biases in ``±1/sqrt(fan_in)``.
    data_format : 'NCDHW'
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        Sizes that are not ints / tuples of ints, a non-bool ``has_bias``.
    ValueError
        Non-positive sizes, channels not divisible by ``group``, an unknown ``pad_mode``,
        padding outside ``'pad'`` mode, a data format other than ``'NCDHW'``, an input that is not 5-D.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> conv = nn.Conv3d(1, 1, 2, pad_mode="valid", weight_init="ones")
    >>> conv.weight.shape
    (1, 1, 2, 2, 2)
    >>> print(conv(ms.ops.ones((1, 1, 2, 2, 2))).reshape(-1))
    [8.]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW", dtype=_dt.float32):
        cell = "Conv3d"
        kernel_size = _expand(kernel_size, 3, "kernel_size", cell)
        stride = _expand(stride, 3, "stride", cell)
        dilation = _expand(dilation, 3, "dilation", cell)
        padding = _padding(padding, (6,), cell)
        if data_format != "NCDHW":
            raise ValueError(f"For '{cell}', the 'data_format' must be 'NCDHW', but got {data_format!r}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, data_format, False, dtype)
        if pad_mode != "pad" and padding not in (0, (0,) * 6):
            raise ValueError(f"For '{cell}', the 'padding' must be 0 when 'pad_mode' is not 'pad', but got "
                             f"padding={padding!r} and pad_mode={pad_mode!r}.")
        self.conv3d = ops.Conv3D(out_channel=out_channels, kernel_size=kernel_size, mode=1, pad_mode=pad_mode,
                                 pad=padding, stride=stride, dilation=dilation, group=group)

    def construct(self, x):
        self._check_input(x, 5, "(N, C, D, H, W)")
        return self._add_bias(self.conv3d(x, self.weight))


class Conv3dTranspose(_ConvNd):
    """3-D transposed convolution (the input gradient of :class:`Conv3d`) over ``(N, C_in, D, H, W)``.

    Along each axis the output has ``(n - 1) * stride + dilation * (k - 1) + 1 - pad_lo - pad_hi
    + output_padding`` elements (``n * stride`` with ``pad_mode='same'``).  ``weight`` has shape
    ``(in_channels, out_channels / group, kd, kh, kw)``.

    Parameters
    ----------
    in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
    weight_init, bias_init, data_format, dtype
        As :class:`Conv3d`.
    output_padding : int or tuple of 3 ints
        Extra elements at the far end of each axis (smaller than the stride or the dilation).

    Raises
    ------
    TypeError, ValueError
        As :class:`Conv3d`; also a negative or too large ``output_padding``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> up = nn.Conv3dTranspose(2, 1, 2, stride=2, pad_mode="valid", weight_init="ones")
    >>> up.weight.shape
    (2, 1, 2, 2, 2)
    >>> up(ms.ops.ones((1, 2, 1, 2, 2))).shape
    (1, 1, 2, 4, 4)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=_dt.float32):
        cell = "Conv3dTranspose"
        kernel_size = _expand(kernel_size, 3, "kernel_size", cell)
        stride = _expand(stride, 3, "stride", cell)
        dilation = _expand(dilation, 3, "dilation", cell)
        padding = _padding(padding, (6,), cell)
        if dilation[0] != 1:
            raise ValueError(f"For '{cell}', the depth of 'dilation' must be 1 (as MindSpore's Conv3DTranspose "
                             f"requires), but got {dilation[0]}.")
        self.output_padding = _expand(output_padding, 3, "output_padding", cell, minimum=0)
        if data_format != "NCDHW":
            raise ValueError(f"For '{cell}', the 'data_format' must be 'NCDHW', but got {data_format!r}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, data_format, True, dtype)
        if pad_mode != "pad" and padding not in (0, (0,) * 6):
            raise ValueError(f"For '{cell}', the 'padding' must be 0 when 'pad_mode' is not 'pad', but got "
                             f"padding={padding!r} and pad_mode={pad_mode!r}.")
        self.conv3d_transpose = ops.Conv3DTranspose(in_channel=in_channels, out_channel=out_channels,
                                                    kernel_size=kernel_size, mode=1, pad_mode=pad_mode, pad=padding,
                                                    stride=stride, dilation=dilation, group=group,
                                                    output_padding=self.output_padding)

    def construct(self, x):
        self._check_input(x, 5, "(N, C, D, H, W)")
        return self._add_bias(self.conv3d_transpose(x, self.weight))


def _transposed_length(mode, n, k, s, d, pads):
    """The output length of one axis of a 2-D transposed convolution, as MindSpore computes it."""
    reach = d * (k - 1) + 1
    if mode == "valid":
        return n * s + max(reach - s, 0)
    if mode == "same":
        return n * s
    return n * s - pads + reach - s


class Conv2dTranspose(_ConvNd):
    """2-D transposed convolution (the input gradient of a 2-D convolution) over ``(N, C_in, H, W)``.

    Output size per axis: ``'same'``: ``n * stride``; ``'valid'``: ``n * stride + max(dk - stride, 0)``;
    ``'pad'``: ``n * stride - (pad_lo + pad_hi) + dk - stride``, where ``dk = dilation * (k - 1) + 1``;
    then ``output_padding`` more rows and columns at the bottom and right (only with ``'pad'``).

    Parameters
    ----------
    in_channels, out_channels : int
    kernel_size, stride, dilation : int or tuple of 2 ints
    pad_mode : {'same', 'valid', 'pad'}
    padding : int or tuple of 4 ints
        ``(top, bottom, left, right)``, with ``pad_mode='pad'``.
    output_padding : int or tuple of 2 ints
        Each smaller than ``max(stride, dilation)`` of its axis; checked when the layer runs.
    group : int
    has_bias : bool
    weight_init, bias_init : str, Initializer, Tensor or None
        ``weight`` has shape ``(in_channels, out_channels / group, kh, kw)``.
    dtype : cellkit dtype

    Raises
    ------
    TypeError, ValueError
        As :class:`Conv3d`; ``output_padding`` out of range or non-zero outside ``'pad'`` mode
        raises ``ValueError`` when the layer runs (as in MindSpore).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> up = nn.Conv2dTranspose(1, 1, 2, stride=2, pad_mode="valid", weight_init="ones")
    >>> print(up(ms.ops.ones((1, 1, 1, 2))))
    [[[[1. 1. 1. 1.]
       [1. 1. 1. 1.]]]]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=_dt.float32):
        cell = "Conv2dTranspose"
        kernel_size = _expand(kernel_size, 2, "kernel_size", cell)
        stride = _expand(stride, 2, "stride", cell)
        dilation = _expand(dilation, 2, "dilation", cell)
        padding = _padding(padding, (4,), cell)
        if isinstance(output_padding, bool) or not isinstance(output_padding, (int, tuple)):
            raise TypeError(f"For '{cell}', the type of 'output_padding' should be 'int' or 'tuple', but got type "
                            f"'{type(output_padding).__name__}'.")
        if isinstance(output_padding, tuple) and len(output_padding) != 2:
            raise ValueError(f"For '{cell}', a tuple 'output_padding' must have 2 items, but got {output_padding!r}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, "NCHW", True, dtype)
        self.output_padding = output_padding
        pads = (padding,) * 4 if _is_int(padding) else padding
        self._pads = pads
        self.conv2d_transpose = ops.Conv2DTranspose(out_channel=in_channels, kernel_size=kernel_size, mode=1,
                                                    pad_mode=pad_mode, pad=padding, stride=stride, dilation=dilation,
                                                    group=group)

    def _output_padding(self):
        cell = type(self).__name__
        extra = (self.output_padding,) * 2 if _is_int(self.output_padding) else tuple(self.output_padding)
        for axis, (e, s, d) in enumerate(zip(extra, self.stride, self.dilation)):
            if not _is_int(e) or e < 0 or e >= max(s, d):
                raise ValueError(f"For '{cell}', 'output_padding' must be in [0, max(stride, dilation)) on each axis, "
                                 f"but got {self.output_padding!r} (axis {axis}: stride {s}, dilation {d}).")
        if any(extra) and self.pad_mode != "pad":
            raise ValueError(f"For '{cell}', a non-zero 'output_padding' needs pad_mode='pad', but got "
                             f"pad_mode={self.pad_mode!r}.")
        return extra

    def construct(self, x):
        self._check_input(x, 4, "(N, C, H, W)")
        n, _, h, w = x.shape
        top, bottom, left, right = self._pads
        h_out = _transposed_length(self.pad_mode, h, self.kernel_size[0], self.stride[0], self.dilation[0], top + bottom)
        w_out = _transposed_length(self.pad_mode, w, self.kernel_size[1], self.stride[1], self.dilation[1], left + right)
        out = self._add_bias(self.conv2d_transpose(x, self.weight, (n, self.out_channels, h_out, w_out)))
        extra_h, extra_w = self._output_padding()
        if extra_h or extra_w:
            out = ops.pad(out, (0, extra_w, 0, extra_h))
        return out


class Conv1dTranspose(_ConvNd):
    """1-D transposed convolution over ``(N, C_in, W)`` inputs.

    As in MindSpore, a 2-D transposed convolution of height 1: ``weight`` has shape
    ``(in_channels, out_channels / group, 1, kernel_size)``, and ``kernel_size``, ``stride`` and
    ``dilation`` are kept as ``(1, k)`` pairs, ``padding`` as ``(0, 0, p, p)``.  The output width
    follows :class:`Conv2dTranspose`.

    Parameters
    ----------
    in_channels, out_channels, kernel_size, stride, dilation : int
    pad_mode : {'same', 'valid', 'pad'}
    padding : int
        Zeros removed from both ends, with ``pad_mode='pad'``.
    group : int
    has_bias : bool
    weight_init, bias_init : str, Initializer, Tensor or None
        A Tensor ``weight_init`` has shape ``(in_channels, out_channels / group, kernel_size)``.
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        Sizes that are not ints.
    ValueError
        Out-of-range values, an unknown ``pad_mode``, an input that is not 3-D.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> up = nn.Conv1dTranspose(1, 1, 3, pad_mode="valid", weight_init="ones")
    >>> print(up(ms.ops.ones((1, 1, 2))))
    [[[1. 2. 2. 1.]]]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=_dt.float32):
        cell = "Conv1dTranspose"
        for name, value, low in (("kernel_size", kernel_size, 1), ("stride", stride, 1), ("padding", padding, 0),
                                 ("dilation", dilation, 1)):
            if not _is_int(value):
                raise TypeError(f"For '{cell}', the type of '{name}' should be 'int', but got type "
                                f"'{type(value).__name__}'.")
            if value < low:
                raise ValueError(f"For '{cell}', the '{name}' must be an int >= {low}, but got {value}.")
        if isinstance(weight_init, (Tensor, np.ndarray)):
            if len(weight_init.shape) != 3:
                raise ValueError(f"For '{cell}', a Tensor 'weight_init' must be 3-D (in_channels, out_channels / "
                                 f"group, kernel_size), but got shape {tuple(weight_init.shape)}.")
            weight_init = ops.expand_dims(Tensor(weight_init) if isinstance(weight_init, np.ndarray) else weight_init,
                                          2)
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode, padding, (1, dilation),
                         group, has_bias, weight_init, bias_init, "NCHW", True, dtype)
        self.padding = (0, 0, padding, padding)
        self.conv2d_transpose = ops.Conv2DTranspose(out_channel=in_channels, kernel_size=self.kernel_size, mode=1,
                                                    pad_mode=pad_mode, pad=self.padding, stride=self.stride,
                                                    dilation=self.dilation, group=group)

    def construct(self, x):
        self._check_input(x, 3, "(N, C, W)")
        n, _, w = x.shape
        w_out = _transposed_length(self.pad_mode, w, self.kernel_size[1], self.stride[1], self.dilation[1],
                                   self.padding[2] + self.padding[3])
        out = self.conv2d_transpose(ops.expand_dims(x, 2), self.weight, (n, self.out_channels, 1, w_out))
        return ops.squeeze(self._add_bias(out), 2)
