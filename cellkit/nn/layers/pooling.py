"""Pooling layers: ``nn.MaxPool2d`` and ``nn.AvgPool2d`` over NCHW (or CHW) inputs.

Both take MindSpore 2.10's arguments.  With the default ``pad_mode='valid'``
(or ``'same'``) they are the plain ``MaxPool`` / ``AvgPool`` primitives;
``pad_mode='pad'`` (and, for average pooling, ``ceil_mode``,
``count_include_pad=False`` or ``divisor_override``) switches to the
functional ops, which take explicit padding.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> x = ms.Tensor(np.arange(16.0, dtype=np.float32).reshape(1, 1, 4, 4))
>>> print(nn.MaxPool2d(kernel_size=2, stride=2)(x))
[[[[ 5.  7.]
   [13. 15.]]]]
>>> print(nn.AvgPool2d(kernel_size=2, stride=2)(x))
[[[[ 2.5  4.5]
   [10.5 12.5]]]]
"""
from __future__ import annotations

from ... import ops
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["MaxPool2d", "AvgPool2d"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _kernel_or_stride(value, name, cell):
    """An int or a tuple of 1 or 2 positive ints, as MindSpore keeps it (a 1-tuple becomes its int)."""
    if not (_is_int(value) or isinstance(value, tuple)):
        raise TypeError(f"For '{cell}', the type of '{name}' should be one of ['int', 'tuple'], "
                        f"but got type '{type(value).__name__}'.")
    items = (value,) if _is_int(value) else value
    if not items or not all(_is_int(v) and v > 0 for v in items):
        raise ValueError(f"For '{cell}', the '{name}' must be a positive int or a tuple of positive ints, "
                         f"but got {value!r}.")
    if isinstance(value, tuple):
        if len(value) == 1:
            return value[0]
        if len(value) != 2:
            raise ValueError(f"For '{cell}', the '{name}' must be an int or a tuple of 1 or 2 ints, but got {value!r}.")
    return value


def _pair(value):
    return (value, value) if _is_int(value) else tuple(value)


def _padding_pair(padding, cell):
    """``padding`` (an int, or a tuple/list of 1 or 2 non-negative ints) as ``(pad_h, pad_w)``."""
    if not (_is_int(padding) or isinstance(padding, (tuple, list))):
        raise TypeError(f"For '{cell}', the type of 'padding' should be one of ['int', 'tuple', 'list'], "
                        f"but got type '{type(padding).__name__}'.")
    items = (padding,) if _is_int(padding) else tuple(padding)
    if not all(_is_int(v) and v >= 0 for v in items):
        raise ValueError(f"For '{cell}', the 'padding' must hold non-negative ints, but got {padding!r}.")
    if len(items) not in (1, 2):
        raise ValueError(f"For '{cell}', the 'padding' must be an int or a tuple/list of 1 or 2 ints, "
                         f"but got {len(items)} values: {padding!r}.")
    return (items[0], items[0]) if len(items) == 1 else items


def _dilation_pair(dilation, cell):
    if _is_int(dilation):
        items = (dilation,)
    elif isinstance(dilation, tuple) and len(dilation) in (1, 2):
        items = dilation
    elif isinstance(dilation, tuple):
        raise ValueError(f"For '{cell}', the length of 'dilation' must be 1 or 2, but got {len(dilation)}.")
    else:
        raise ValueError(f"For '{cell}', the 'dilation' must be an int or a tuple, but got {type(dilation).__name__}.")
    if not all(_is_int(v) and v > 0 for v in items):
        raise ValueError(f"For '{cell}', the 'dilation' must hold positive ints, but got {dilation!r}.")
    return (items[0], items[0]) if len(items) == 1 else items


def _same_pads(size, kernel, stride):
    """'same' padding of one axis: output ``ceil(size / stride)``, any odd pixel at the end."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


class _Pool2d(Cell):
    """Checks shared by the 2-D pooling layers, and the CHW -> NCHW handling."""

    def __init__(self, kernel_size, stride, pad_mode, data_format):
        super().__init__()
        name = type(self).__name__
        if not isinstance(pad_mode, str):
            raise TypeError(f"For '{name}', the type of 'pad_mode' should be 'str', but got type "
                            f"'{type(pad_mode).__name__}'.")
        if pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be one of ['VALID', 'SAME', 'PAD'] "
                             f"(any case), but got {pad_mode!r}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format='NCHW' is supported (MindSpore supports "
                             f"'NHWC' on GPU only), but got {data_format!r}.")
        self.pad_mode = pad_mode.upper()
        self.format = data_format
        self.kernel_size = _kernel_or_stride(kernel_size, "kernel_size", name)
        self.stride = _kernel_or_stride(stride, "stride", name)

    def _batched(self, x):
        """``x`` as a 4-D tensor, and whether a batch axis was added."""
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{type(self).__name__}', the input must be a Tensor, but got {type(x).__name__}.")
        if x.ndim == 3:
            return ops.expand_dims(x, 0), True
        if x.ndim != 4:
            raise ValueError(f"For '{type(self).__name__}', the input must be 3-D (C, H, W) or 4-D (N, C, H, W), "
                             f"but got shape {x.shape}.")
        return x, False

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    """2-D max pooling: the largest value in each ``kernel_size`` window.

    Parameters
    ----------
    kernel_size, stride : int or tuple of 2 ints
        Window size and step (height, width).  Note ``stride`` defaults to 1, as
        in MindSpore 2.10.
    pad_mode : {'valid', 'same', 'pad'} (any case)
        ``'valid'``: no padding; ``'same'``: output ``ceil(input / stride)``;
        ``'pad'``: ``padding`` on every side, and only then may ``padding``,
        ``dilation``, ``return_indices`` and ``ceil_mode`` differ from their defaults.
    padding : int or tuple/list of 1 or 2 ints
        ``(pad_h, pad_w)``, each at most half the kernel.
    dilation : int or tuple of 1 or 2 ints
        Spacing between the window's taps.
    return_indices : bool
        Also return the Int64 flat position (``row * W + col``) of each maximum.
    ceil_mode : bool
        Round the output size up instead of down.

    Raises
    ------
    TypeError
        ``kernel_size``/``stride`` neither int nor tuple, or ``pad_mode`` not a str.
    ValueError
        Non-positive sizes, an unknown ``pad_mode``, options that need
        ``pad_mode='pad'``, padding over half the kernel, or an input that is
        not 3-D or 4-D.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> pool = nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="pad", padding=1, return_indices=True)
    >>> out, idx = pool(ms.Tensor(np.arange(9.0, dtype=np.float32).reshape(1, 1, 3, 3)))
    >>> print(out)
    [[[[0. 2.]
       [6. 8.]]]]
    >>> print(idx)
    [[[[0 2]
       [6 8]]]]
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode
        self.use_pad = self.pad_mode == "PAD"
        if self.use_pad:
            self.padding = _padding_pair(padding, "MaxPool2d")
            self.dilation = _dilation_pair(dilation, "MaxPool2d")
            kernel = _pair(self.kernel_size)
            if self.padding[0] > kernel[0] // 2 or self.padding[1] > kernel[1] // 2:
                raise ValueError(f"For 'MaxPool2d', the 'padding' must be at most half of 'kernel_size' "
                                 f"{kernel}, but got {padding!r}.")
        else:
            given = {"padding": padding, "dilation": dilation, "return_indices": return_indices,
                     "ceil_mode": ceil_mode}
            defaults = {"padding": 0, "dilation": 1, "return_indices": False, "ceil_mode": False}
            changed = [f"{k}={v!r}" for k, v in given.items()
                       if type(v) is not type(defaults[k]) or v != defaults[k]]
            if changed:
                raise ValueError(
                    "For 'MaxPool2d', the parameters 'padding', 'dilation', 'return_indices' and 'ceil_mode' can "
                    f"only differ from their defaults when pad_mode is 'pad', but got {', '.join(changed)} with "
                    f"pad_mode:{pad_mode}."
                )
            self.padding = (0, 0)
            self.dilation = (1, 1)
            self.max_pool = ops.MaxPool(kernel_size=self.kernel_size, strides=self.stride,
                                        pad_mode=self.pad_mode.lower())

    def construct(self, x):
        x, added = self._batched(x)
        if self.use_pad:
            out = ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                 ceil_mode=bool(self.ceil_mode), return_indices=bool(self.return_indices))
        else:
            out = self.max_pool(x)
        if added:
            return tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
        return out


class AvgPool2d(_Pool2d):
    """2-D average pooling: the mean of each ``kernel_size`` window.

    Parameters
    ----------
    kernel_size, stride : int or tuple of 2 ints
        Window size and step; ``stride`` defaults to 1, as in MindSpore 2.10.
    pad_mode : {'valid', 'same', 'pad'} (any case)
        With the plain ``'same'`` mode each window is averaged over its
        positions inside the input.
    padding : int or tuple/list of 1 or 2 ints
        Zero padding ``(pad_h, pad_w)`` on both sides; only with ``pad_mode='pad'``.
    ceil_mode : bool
        Round the output size up; the extra windows average only what they cover.
    count_include_pad : bool
        Whether padded zeros count in a window's divisor.
    divisor_override : int, optional
        A fixed divisor (> 0) for every window.

    As in MindSpore, setting ``ceil_mode``, ``count_include_pad=False`` or
    ``divisor_override`` (or ``pad_mode='pad'``) selects the general pooling
    kernel, in which ``'same'`` padding *does* count in the divisor unless
    ``count_include_pad=False``.

    Raises
    ------
    TypeError, ValueError
        As :class:`MaxPool2d`; also a ``divisor_override`` <= 0, padding outside
        ``'pad'`` mode, or pads of one axis adding up to more than the kernel.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
    >>> print(nn.AvgPool2d(2, 2, pad_mode="pad", padding=1)(x))
    [[[[0.25 0.5 ]
       [0.5  1.  ]]]]
    >>> print(nn.AvgPool2d(2, 2, pad_mode="pad", padding=1, count_include_pad=False)(x))
    [[[[1. 1.]
       [1. 1.]]]]
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override
        self.is_expand = (self.pad_mode == "PAD" or padding != 0 or bool(ceil_mode) or not count_include_pad
                          or divisor_override is not None)
        self.padding = (0, 0)
        if not self.is_expand:
            self.avg_pool = ops.AvgPool(kernel_size=self.kernel_size, strides=self.stride,
                                        pad_mode=self.pad_mode.lower())
            return
        if divisor_override is not None and (not _is_int(divisor_override) or divisor_override <= 0):
            raise ValueError(f"For 'AvgPool2d', the 'divisor_override' must be an int > 0, but got "
                             f"{divisor_override!r}.")
        pads = _padding_pair(padding, "AvgPool2d")
        if self.pad_mode != "PAD" and any(pads):
            raise ValueError(f"For 'AvgPool2d', the 'padding' must be 0 when 'pad_mode' is not 'pad', "
                             f"but got padding={padding!r} and pad_mode={pad_mode!r}.")
        kernel = _pair(self.kernel_size)
        if 2 * pads[0] > kernel[0] or 2 * pads[1] > kernel[1]:
            raise ValueError(f"For 'AvgPool2d', the pads on both sides of an axis must add up to at most "
                             f"'kernel_size' {kernel}, but got padding={padding!r}.")
        self.padding = pads

    def construct(self, x):
        x, added = self._batched(x)
        if not self.is_expand:
            out = self.avg_pool(x)
        else:
            kernel, stride = _pair(self.kernel_size), _pair(self.stride)
            if self.pad_mode == "SAME":
                pads = (_same_pads(x.shape[2], kernel[0], stride[0]) +
                        _same_pads(x.shape[3], kernel[1], stride[1]))
            else:
                ph, pw = self.padding
                pads = (ph, ph, pw, pw)
            out = ops.avg_pool2d(x, kernel, stride, pads, bool(self.ceil_mode), bool(self.count_include_pad),
                                 self.divisor_override or 0)
        return ops.squeeze(out, 0) if added else out
