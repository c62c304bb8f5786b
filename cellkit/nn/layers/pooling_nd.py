"""Pooling layers in 1-D and 3-D, adaptive, LP, fractional pooling and unpooling.

``MaxPool1d``, ``AvgPool1d``, ``MaxPool3d``, ``AvgPool3d`` take MindSpore 2.10's arguments and
choose the primitive MindSpore chooses (plain ``MaxPool``/``AvgPool`` for the default modes, the
3-D primitives with explicit padding for ``pad_mode='pad'``, ``ceil_mode`` ...), so their
outputs, shapes and reprs agree.  The adaptive, LP, fractional and unpooling layers are thin
Cells over cellkit's functional ops of the same names.  Every layer is a composition of ops, so
gradients of any order flow through it.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> x = ms.Tensor(np.arange(8.0, dtype=np.float32).reshape(1, 2, 4))
>>> print(nn.MaxPool1d(kernel_size=2, stride=2)(x))
[[[1. 3.]
  [5. 7.]]]
>>> print(nn.AdaptiveAvgPool1d(1)(x))
[[[1.5]
  [5.5]]]
"""
from __future__ import annotations

from ... import dtype as _dt
from ... import ops
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["MaxPool1d", "AvgPool1d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d",
           "FractionalMaxPool2d", "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _tensor(x, cell):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', the input must be a Tensor, but got {type(x).__name__}.")
    return x


class _PoolNd(Cell):
    """The checks MindSpore's pooling layers share, and their repr."""

    def __init__(self, kernel_size, stride, pad_mode):
        super().__init__()
        cell = type(self).__name__
        if not isinstance(pad_mode, str):
            raise TypeError(f"For '{cell}', the type of 'pad_mode' should be 'str', but got type "
                            f"'{type(pad_mode).__name__}'.")
        if pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{cell}', the 'pad_mode' must be one of ['VALID', 'SAME', 'PAD'] (any case), but "
                             f"got {pad_mode!r}.")
        self.pad_mode = pad_mode.upper()
        self.format = "NCHW"
        self.kernel_size = self._int_or_tuple("kernel_size", kernel_size)
        self.stride = self._int_or_tuple("stride", stride)

    def _int_or_tuple(self, name, value):
        cell = type(self).__name__
        if not (_is_int(value) or isinstance(value, tuple)):
            raise TypeError(f"For '{cell}', the type of '{name}' should be 'int' or 'tuple', but got type "
                            f"'{type(value).__name__}'.")
        items = (value,) if _is_int(value) else value
        if not items or not all(_is_int(v) and v > 0 for v in items):
            raise ValueError(f"For '{cell}', the '{name}' must be a positive int or a tuple of positive ints, but got "
                             f"{value!r}.")
        if isinstance(value, tuple) and len(value) == 1:
            return value[0]
        return value

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


def _pads_per_axis(padding, nd, cell):
    """MaxPool's padding (an int, or a tuple/list of 1 or ``nd`` ints) as three pads, leading zeros first."""
    if not (_is_int(padding) or isinstance(padding, (tuple, list))):
        raise TypeError(f"For '{cell}', the type of 'padding' should be 'int', 'tuple' or 'list', but got type "
                        f"'{type(padding).__name__}'.")
    if _is_int(padding):
        if padding < 0:
            raise ValueError(f"For '{cell}', the 'padding' must be >= 0, but got {padding}.")
        return (0,) * (3 - nd) + (padding,) * nd
    if not all(_is_int(v) and v >= 0 for v in padding):
        raise ValueError(f"For '{cell}', the 'padding' must hold non-negative ints, but got {padding!r}.")
    if len(padding) == 1:
        return (0,) * (3 - nd) + tuple(padding) * nd
    if len(padding) != nd:
        raise ValueError(f"For '{cell}', the length of 'padding' must be 1 or {nd}, but got {len(padding)}.")
    return (0,) * (3 - nd) + tuple(padding)


def _pads_both_sides(padding, nd, cell):
    """AvgPool's padding as six pads ``(head, tail, top, bottom, left, right)``, leading zeros first."""
    if not (_is_int(padding) or isinstance(padding, (tuple, list))):
        raise TypeError(f"For '{cell}', the type of 'padding' should be 'int', 'tuple' or 'list', but got type "
                        f"'{type(padding).__name__}'.")
    if _is_int(padding):
        if padding < 0:
            raise ValueError(f"For '{cell}', the 'padding' must be >= 0, but got {padding}.")
        return (0, 0) * (3 - nd) + (padding,) * (2 * nd)
    if not all(_is_int(v) and v >= 0 for v in padding):
        raise ValueError(f"For '{cell}', the 'padding' must hold non-negative ints, but got {padding!r}.")
    if len(padding) == 1:
        return (0, 0) * (3 - nd) + tuple(padding) * (2 * nd)
    if len(padding) == nd:
        return (0, 0) * (3 - nd) + tuple(padding[i // 2] for i in range(2 * nd))
    allowed = "one int" if nd == 1 else f"1 or {nd} ints"
    raise ValueError(f"For '{cell}', the 'padding' must be an int or a tuple/list of {allowed}, but got "
                     f"{len(padding)} values.")


def _dilation(dilation, nd, cell):
    if _is_int(dilation):
        return dilation
    if isinstance(dilation, tuple):
        if len(dilation) == 1:
            return dilation[0]
        if len(dilation) == nd:
            return (1,) * (3 - nd) + dilation
        allowed = "1" if nd == 1 else f"1 or {nd}"
        raise ValueError(f"For '{cell}', the length of 'dilation' must be {allowed}, but got {len(dilation)}.")
    raise ValueError(f"For '{cell}', the 'dilation' must be an int or a tuple, but got {type(dilation).__name__}.")


def _squeeze_all(out, *axes):
    def one(t):
        for axis in axes:
            t = ops.squeeze(t, axis)
        return t
    return tuple(one(o) for o in out) if isinstance(out, tuple) else one(out)


class MaxPool3d(_PoolNd):
    """3-D max pooling of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) inputs.

    Parameters
    ----------
    kernel_size, stride : int or tuple of 3 ints
        Window and step (``stride`` defaults to 1, as in MindSpore).
    pad_mode : {'valid', 'same', 'pad'} (any case)
    padding : int, or tuple/list of 1 or 3 ints
        Pads on both sides of (D, H, W).
    dilation : int or tuple of 1 or 3 ints
    return_indices : bool
        Also return the Int64 flat index of each maximum in its ``D * H * W`` plane.
    ceil_mode : bool
        Round the output size up.

    ``dilation != 1`` and ``return_indices`` need ``pad_mode='pad'``.

    Raises
    ------
    TypeError, ValueError
        Bad sizes or modes, options that need ``pad_mode='pad'``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.MaxPool3d(kernel_size=2, stride=2)(ms.ops.ones((1, 2, 4, 4, 4))).shape
    (1, 2, 2, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        cell = "MaxPool3d"
        self.return_indices = return_indices
        pads = _pads_per_axis(padding, 3, cell)
        if dilation != 1 or return_indices:
            self.only_pad = True
            if self.pad_mode != "PAD":
                raise ValueError(f"For {cell}, the pad_mode must be 'pad' when dilation is not 1 or return_indices "
                                 f"is True, but got pad_mode:{pad_mode}, dilation={dilation!r}, "
                                 f"return_indices={return_indices!r}.")
            self.max_pool = ops.MaxPool3DWithArgmax(ksize=kernel_size, strides=stride, pads=pads, dilation=dilation,
                                                    ceil_mode=ceil_mode)
        else:
            self.only_pad = False
            # MindSpore's MaxPool3D takes three pads as (d, d, h, h, w, w); cellkit's wants the six
            six = tuple(p for p in pads for _ in (0, 1))
            self.max_pool = ops.MaxPool3D(kernel_size=kernel_size, strides=stride, pad_mode=pad_mode, pad_list=six,
                                          ceil_mode=True if ceil_mode else None)

    def construct(self, x):
        x = _tensor(x, "MaxPool3d")
        unbatched = x.ndim == 4
        if unbatched:
            x = ops.expand_dims(x, 0)
        out = self.max_pool(x)
        if unbatched:
            out = _squeeze_all(out, 0)
        if self.only_pad and not self.return_indices:
            return out[0]
        return out


class MaxPool1d(_PoolNd):
    """1-D max pooling of ``(N, C, L)`` (or ``(C, L)``) inputs.

    Parameters
    ----------
    kernel_size, stride : int
    pad_mode : {'valid', 'same', 'pad'} (any case)
    padding : int or tuple/list of one int
    dilation : int or tuple of one int
    return_indices : bool
        Also return the Int64 position of each maximum.
    ceil_mode : bool

    ``padding``, ``dilation``, ``return_indices`` and ``ceil_mode`` may differ from their
    defaults only with ``pad_mode='pad'``.  ``kernel_size`` and ``stride`` are kept as
    ``(1, k)`` pairs (``(1, 1, k)`` with ``'pad'``), as MindSpore keeps (and prints) them.

    Raises
    ------
    TypeError, ValueError
        Bad sizes or modes, options that need ``pad_mode='pad'``, an input that is not 2-D or 3-D.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> pool = nn.MaxPool1d(2, 2, pad_mode="pad", padding=1, return_indices=True)
    >>> out, idx = pool(ms.Tensor(np.array([[[1.0, 5.0, 2.0]]], np.float32)))
    >>> print(out, idx)
    [[[1. 5.]]] [[[0 1]]]
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        cell = "MaxPool1d"
        for name, value in (("kernel_size", kernel_size), ("stride", stride)):
            if not _is_int(value):
                raise TypeError(f"For '{cell}', the type of '{name}' should be 'int', but got type "
                                f"'{type(value).__name__}'.")
        self.return_indices = return_indices
        if self.pad_mode == "PAD":
            self.use_pad = True
            self.kernel_size = (1, 1, kernel_size)
            self.stride = (1, 1, stride)
            self.padding = _pads_per_axis(padding, 1, cell)
            self.max_pool = ops.MaxPool3DWithArgmax(ksize=self.kernel_size, strides=self.stride, pads=self.padding,
                                                    dilation=_dilation(dilation, 1, cell), ceil_mode=ceil_mode)
        else:
            self.use_pad = False
            if padding != 0 or dilation != 1 or return_indices or ceil_mode:
                raise ValueError(f"For MaxPool1d, the parameters 'padding', 'dilation', 'return_indices' and "
                                 f"'ceil_mode' can only differ from their defaults when pad_mode is 'pad', but got "
                                 f"pad_mode:{pad_mode}, padding={padding!r}, dilation={dilation!r}, "
                                 f"return_indices={return_indices!r}, ceil_mode={ceil_mode!r}.")
            self.kernel_size = (1, kernel_size)
            self.stride = (1, stride)
            self.max_pool = ops.MaxPool(kernel_size=self.kernel_size, strides=self.stride, pad_mode=self.pad_mode)

    def construct(self, x):
        x = _tensor(x, "MaxPool1d")
        unbatched = x.ndim == 2
        if unbatched:
            x = ops.expand_dims(x, 0)
        if x.ndim != 3:
            raise ValueError(f"For 'MaxPool1d', the input must be 2-D (C, L) or 3-D (N, C, L), but got shape "
                             f"{x.shape}.")
        if self.use_pad:
            out = _squeeze_all(self.max_pool(ops.expand_dims(ops.expand_dims(x, 2), 3)), 3, 2)
        else:
            out = ops.squeeze(self.max_pool(ops.expand_dims(x, 2)), 2)
        if unbatched:
            out = _squeeze_all(out, 0)
        if self.use_pad and not self.return_indices:
            return out[0]
        return out


class AvgPool3d(_PoolNd):
    """3-D average pooling of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) inputs.

    Parameters
    ----------
    kernel_size, stride : int or tuple of 3 ints
    pad_mode : {'valid', 'same', 'pad'} (any case)
    padding : int, or tuple/list of 1 or 3 ints
        Zeros on both sides of (D, H, W), with ``pad_mode='pad'``.
    ceil_mode : bool
    count_include_pad : bool
        Whether padded zeros count in a window's divisor.
    divisor_override : int, optional
        A fixed divisor (> 0).

    Raises
    ------
    TypeError, ValueError
        Bad sizes or modes, a ``divisor_override`` <= 0.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.AvgPool3d(2, 2)(ms.ops.ones((1, 1, 2, 2, 2))).reshape(-1))
    [1.]
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode)
        cell = "AvgPool3d"
        pads = _pads_both_sides(padding, 3, cell)
        if divisor_override is not None and divisor_override <= 0:
            raise ValueError(f"For '{cell}', the 'divisor_override' must be > 0, but got {divisor_override}.")
        self.avg_pool = ops.AvgPool3D(self.kernel_size, self.stride, pad_mode, pads, ceil_mode, count_include_pad,
                                      0 if divisor_override is None else divisor_override)

    def construct(self, x):
        x = _tensor(x, "AvgPool3d")
        if x.ndim == 4:
            return ops.squeeze(self.avg_pool(ops.expand_dims(x, 0)), 0)
        return self.avg_pool(x)


class AvgPool1d(_PoolNd):
    """1-D average pooling of ``(N, C, L)`` (or ``(C, L)``) inputs.

    Parameters
    ----------
    kernel_size, stride : int
    pad_mode : {'valid', 'same', 'pad'} (any case)
    padding : int or tuple/list of one int
    ceil_mode : bool
    count_include_pad : bool

    With ``pad_mode='pad'``, padding, ``ceil_mode`` or ``count_include_pad=False`` the layer
    runs the 3-D average pooling primitive (and keeps ``kernel_size``/``stride`` as given);
    otherwise the 2-D one, with them kept as ``(1, k)`` pairs.

    Raises
    ------
    TypeError, ValueError
        Bad sizes or modes, an input that is not 2-D or 3-D.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.AvgPool1d(2, 2)(ms.Tensor(np.array([[[1.0, 3.0, 5.0, 7.0]]], np.float32))))
    [[[2. 6.]]]
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode)
        cell = "AvgPool1d"
        for name, value in (("kernel_size", self.kernel_size), ("stride", self.stride)):
            if not _is_int(value):
                raise TypeError(f"For '{cell}', the type of '{name}' should be 'int', but got type "
                                f"'{type(value).__name__}'.")
        if self.pad_mode == "PAD" or padding != 0 or ceil_mode or not count_include_pad:
            self.is_expand_3d = True
            pads = _pads_both_sides(padding, 1, cell)
            self.avg_pool = ops.AvgPool3D(kernel_size=(1, 1, self.kernel_size), strides=(1, 1, self.stride),
                                          pad_mode=pad_mode, pad=pads, ceil_mode=ceil_mode,
                                          count_include_pad=count_include_pad)
        else:
            self.is_expand_3d = False
            self.kernel_size = (1, self.kernel_size)
            self.stride = (1, self.stride)
            self.avg_pool = ops.AvgPool(kernel_size=self.kernel_size, strides=self.stride, pad_mode=self.pad_mode)

    def construct(self, x):
        x = _tensor(x, "AvgPool1d")
        unbatched = x.ndim == 2
        if unbatched:
            x = ops.expand_dims(x, 0)
        if self.is_expand_3d:
            x = _squeeze_all(self.avg_pool(ops.expand_dims(ops.expand_dims(x, 2), 3)), 3, 2)
        else:
            if x.ndim != 3:
                raise ValueError(f"For 'AvgPool1d', the input must be 2-D (C, L) or 3-D (N, C, L), but got shape "
                                 f"{x.shape}.")
            width, kernel, stride = x.shape[2], self.kernel_size[1], self.stride[1]
            if width == kernel:
                x = ops.mean(x, 2, keep_dims=True)
            elif width - kernel < stride:
                # one window only: the mean of its first ``kernel`` elements
                x = ops.mean(x[:, :, :kernel], 2, keep_dims=True)
            else:
                x = ops.squeeze(self.avg_pool(ops.expand_dims(x, 2)), 2)
        return ops.squeeze(x, 0) if unbatched else x


def _adaptive_1d_check(x, output_size, cell):
    x = _tensor(x, cell)
    if x.ndim != 3:
        raise ValueError(f"For {cell}, the input must have 3 dimensions (N, C, L), but got {x.ndim}.")
    width = x.shape[2]
    if width < output_size:
        raise ValueError(f"For {cell}, the input's last dimension must be at least the output size {output_size}, "
                         f"but got {width}.")
    if width % output_size:
        raise ValueError(f"For {cell}, the input's last dimension must be divisible by the output size "
                         f"{output_size}, but got {width}.")
    if x.dtype not in (_dt.float16, _dt.float32):
        raise TypeError(f"For {cell}, the input must be float16 or float32, but got {x.dtype}.")
    return x


def _positive_output_size(output_size, cell):
    if not _is_int(output_size):
        raise TypeError(f"For '{cell}', the type of 'output_size' should be 'int', but got type "
                        f"'{type(output_size).__name__}'.")
    if output_size < 1:
        raise ValueError(f"For '{cell}', the 'output_size' must be >= 1, but got {output_size}.")
    return output_size


class AdaptiveAvgPool1d(Cell):
    """Adaptive 1-D average pooling of ``(N, C, L)`` inputs to ``(N, C, output_size)``.

    As in MindSpore, ``L`` must be a multiple of ``output_size`` (the windows are then equal and
    do not overlap) and the input float16 or float32.

    Raises
    ------
    TypeError
        A non-int ``output_size``, an input that is not float16/float32.
    ValueError
        ``output_size`` < 1, an input that is not 3-D or whose length ``output_size`` does not divide.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.AdaptiveAvgPool1d(2)(ms.Tensor(np.array([[[1.0, 3.0, 5.0, 7.0]]], np.float32))))
    [[[2. 6.]]]
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _positive_output_size(output_size, "AdaptiveAvgPool1d")

    def construct(self, input):
        x = _adaptive_1d_check(input, self.output_size, "AdaptiveAvgPool1d")
        return ops.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveMaxPool1d(Cell):
    """Adaptive 1-D max pooling of ``(N, C, L)`` inputs to ``(N, C, output_size)``; the same
    restrictions as :class:`AdaptiveAvgPool1d`.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.AdaptiveMaxPool1d(2)(ms.Tensor(np.array([[[1.0, 3.0, 7.0, 5.0]]], np.float32))))
    [[[3. 7.]]]
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _positive_output_size(output_size, "AdaptiveMaxPool1d")

    def construct(self, x):
        x = _adaptive_1d_check(x, self.output_size, "AdaptiveMaxPool1d")
        return ops.adaptive_max_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(Cell):
    """Adaptive 2-D average pooling of ``(N, C, H, W)`` or ``(C, H, W)`` inputs.

    ``output_size``: an int, or a tuple of two ints or ``None`` (``None`` keeps that axis).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.AdaptiveAvgPool2d((2, None))(ms.ops.ones((1, 3, 5, 7))).shape
    (1, 3, 2, 7)
    """

    def __init__(self, output_size):
        super().__init__()
        self.adaptive_avgpool2d = ops.AdaptiveAvgPool2D(output_size)

    def construct(self, input):
        return self.adaptive_avgpool2d(input)


class AdaptiveAvgPool3d(Cell):
    """Adaptive 3-D average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs.

    ``output_size``: an int, or a tuple of three ints or ``None`` (``None`` keeps that axis).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.AdaptiveAvgPool3d(2)(ms.ops.ones((1, 1, 4, 4, 4))).shape
    (1, 1, 2, 2, 2)
    """

    def __init__(self, output_size):
        super().__init__()
        self.adaptive_avg_pool3d = ops.AdaptiveAvgPool3D(output_size)

    def construct(self, input):
        return self.adaptive_avg_pool3d(input)


class AdaptiveMaxPool2d(Cell):
    """Adaptive 2-D max pooling; ``return_indices`` also gives the Int64 flat index of each maximum.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.AdaptiveMaxPool2d(2)(ms.ops.ones((1, 3, 4, 4))).shape
    (1, 3, 2, 2)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):
        return ops.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(Cell):
    """Adaptive 3-D max pooling; ``return_indices`` also gives the Int32 flat index of each maximum
    in its ``D * H * W`` plane.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.AdaptiveMaxPool3d((1, 2, 2))(ms.ops.ones((1, 2, 2, 4, 4))).shape
    (1, 2, 1, 2, 2)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):
        return ops.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool1d(Cell):
    """Power-average pooling over windows of ``(N, C, L)`` or ``(C, L)`` inputs:
    ``(sum over the window of x ** norm_type) ** (1 / norm_type)``.

    Parameters
    ----------
    norm_type : int or float
    kernel_size : int
    stride : int, optional
        Defaults to ``kernel_size``.
    ceil_mode : bool

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.LPPool1d(1, 2)(ms.Tensor(np.array([[[1.0, 2.0, 3.0, 4.0]]], np.float32))))
    [[[3. 7.]]]
    """

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(Cell):
    """Power-average pooling over 2-D windows of ``(N, C, H, W)`` inputs; see :class:`LPPool1d`.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.LPPool2d(2, 2)(ms.ops.ones((1, 1, 2, 2))))
    [[[[2.]]]]
    """

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class FractionalMaxPool2d(Cell):
    """Fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` inputs: windows of
    ``kernel_size`` placed at pseudo-random, increasing starts so that the output has
    ``output_size`` (or ``output_ratio`` times the input's) rows and columns.

    ``_random_samples`` (shape ``(N, C, 2)``, values in [0, 1)) fixes the starts; without it they
    are drawn from cellkit's random state.  ``return_indices`` also returns the Int64 flat index of
    each maximum.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> samples = ms.Tensor(np.full((1, 1, 2), 0.5, np.float32))
    >>> pool = nn.FractionalMaxPool2d(2, output_size=(2, 2), _random_samples=samples)
    >>> pool(ms.ops.ones((1, 1, 5, 5))).shape
    (1, 1, 2, 2)
    """

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, input):
        return ops.fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio,
                                         self.return_indices, self._random_samples)


class FractionalMaxPool3d(Cell):
    """Fractional max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs; see
    :class:`FractionalMaxPool2d` (``_random_samples`` has shape ``(N, C, 3)``).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> samples = ms.Tensor(np.full((1, 1, 3), 0.5, np.float32))
    >>> pool = nn.FractionalMaxPool3d(2, output_size=(2, 2, 2), _random_samples=samples)
    >>> pool(ms.ops.ones((1, 1, 4, 4, 4))).shape
    (1, 1, 2, 2, 2)
    """

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, input):
        return ops.fractional_max_pool3d(input, self.kernel_size, self.output_size, self.output_ratio,
                                         self.return_indices, self._random_samples)


class _MaxUnpoolNd(Cell):
    """The inverse of max pooling: values placed at the positions ``indices`` name, zeros elsewhere."""

    _function = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding

    def construct(self, x, indices, output_size=None):
        cell = type(self).__name__
        if output_size is None:
            output_size = ()
        elif not isinstance(output_size, tuple):
            raise ValueError(f"For {cell}, 'output_size' must be a tuple, but got {type(output_size).__name__}.")
        elif not output_size:
            raise ValueError(f"For {cell}, 'output_size' must not be empty.")
        return type(self)._function(x, indices, self.kernel_size, stride=self.stride, padding=self.padding,
                                    output_size=output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of 1-D max pooling on ``(N, C, L)`` or ``(C, L)`` inputs.

    Parameters
    ----------
    kernel_size, stride, padding : int or tuple of one int
        Those of the pooling being undone (``stride`` defaults to ``kernel_size``).

    The call takes ``(x, indices, output_size=None)``: ``indices`` as max pooling returned them,
    ``output_size`` a tuple giving the output's shape (default: from the pooling geometry).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.array([[[2.0, 4.0]]], np.float32))
    >>> idx = ms.Tensor(np.array([[[1, 2]]], np.int64))
    >>> print(nn.MaxUnpool1d(2)(x, idx))
    [[[0. 2. 4. 0.]]]
    """

    _function = staticmethod(ops.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of 2-D max pooling on ``(N, C, H, W)`` or ``(C, H, W)`` inputs; see
    :class:`MaxUnpool1d` (sizes are ints or tuples of two ints).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.array([[[[5.0]]]], np.float32))
    >>> print(nn.MaxUnpool2d(2)(x, ms.Tensor(np.array([[[[3]]]], np.int64))))
    [[[[0. 0.]
       [0. 5.]]]]
    """

    _function = staticmethod(ops.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of 3-D max pooling on ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs; see
    :class:`MaxUnpool1d` (sizes are ints or tuples of three ints).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.array([[[[[5.0]]]]], np.float32))
    >>> nn.MaxUnpool3d(2)(x, ms.Tensor(np.array([[[[[7]]]]], np.int64))).shape
    (1, 1, 2, 2, 2)
    """

    _function = staticmethod(ops.max_unpool3d)
