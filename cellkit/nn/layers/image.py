"""Resampling and image Cells: ``nn.Upsample``, ``nn.PixelShuffle``, ``nn.PixelUnshuffle``,
``nn.ChannelShuffle``, ``nn.CentralCrop``, and the image-quality measures ``nn.PSNR`` and
``nn.SSIM``.

All of them are compositions of cellkit ops (``ops.interpolate``, ``ops.pixel_shuffle``, reshapes,
a fixed Gaussian ``Conv2d`` for SSIM), so they are differentiable: an SSIM or PSNR value can be a
training loss.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> x = ms.Tensor(np.arange(4.0, dtype=np.float32).reshape(1, 4, 1, 1))
>>> print(nn.PixelShuffle(2)(x))
[[[[0. 1.]
   [2. 3.]]]]
>>> print(nn.PSNR()(ms.ops.zeros((1, 1, 2, 2)), ms.ops.ones((1, 1, 2, 2)) * 0.1))
[20.]
"""
from __future__ import annotations

import numpy as np

from ... import dtype as _dt
from ... import ops
from ...tensor import Tensor
from ..cell import Cell
from .conv import Conv2d

__all__ = ["Upsample", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "CentralCrop", "PSNR", "SSIM"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _tensor(x, name, cell):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


class Upsample(Cell):
    """Resize the spatial axes, as :func:`cellkit.ops.interpolate` does.

    Parameters
    ----------
    size : int or tuple of ints, optional
        The output's spatial size.
    scale_factor : float or tuple of floats, optional
        Or a factor per spatial axis (exactly one of ``size`` and ``scale_factor``).
    mode : str
        ``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``, ``'trilinear'``, ``'area'``,
        ``'nearest-exact'``.
    align_corners : bool, optional
    recompute_scale_factor : bool, optional

    Arguments are checked when the layer runs, by ``interpolate``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.array([[[1.0, 2.0]]], np.float32))
    >>> print(nn.Upsample(size=4)(x))
    [[[1. 1. 2. 2.]]]
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)


class PixelShuffle(Cell):
    """Move ``r * r`` channels into an ``r``-times larger grid: ``(*, C * r * r, H, W)`` to
    ``(*, C, H * r, W * r)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.PixelShuffle(3)(ms.ops.ones((1, 9, 2, 2))).shape
    (1, 1, 6, 6)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        return ops.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    """The inverse of :class:`PixelShuffle`: ``(*, C, H * r, W * r)`` to ``(*, C * r * r, H, W)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.PixelUnshuffle(2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 4, 2, 2)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        return ops.pixel_unshuffle(input, self.downscale_factor)


class ChannelShuffle(Cell):
    """Interleave the channels of ``groups`` groups: channel ``g * (C / groups) + i`` moves to
    ``i * groups + g`` (``C`` must be divisible by ``groups``).

    Raises
    ------
    TypeError
        A non-int ``groups``.
    ValueError
        ``groups`` < 1.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.arange(4.0, dtype=np.float32).reshape(1, 4, 1))
    >>> print(nn.ChannelShuffle(2)(x).reshape(-1))
    [0. 2. 1. 3.]
    """

    def __init__(self, groups):
        super().__init__()
        if not isinstance(groups, int):
            raise TypeError(f"For ChannelShuffle, the param `groups` must be int, but got {type(groups)}.")
        if groups < 1:
            raise ValueError(f"For ChannelShuffle, the param `groups` must be larger than 0, but got {groups}.")
        self.groups = groups

    def construct(self, x):
        x = _tensor(x, "x", "ChannelShuffle")
        shape = x.shape
        if x.ndim < 2:
            raise ValueError(f"For 'ChannelShuffle', the input must have at least 2 dimensions (N, C, ...), but got "
                             f"shape {shape}.")
        n, c = shape[0], shape[1]
        if c % self.groups:
            raise ValueError(f"For 'ChannelShuffle', the channels ({c}) must be divisible by groups "
                             f"({self.groups}), but got input shape {shape}.")
        out = ops.reshape(x, (n, self.groups, c // self.groups, -1))
        return ops.reshape(ops.transpose(out, (0, 2, 1, 3)), shape)


class CentralCrop(Cell):
    """Keep the central ``central_fraction`` of the height and width of ``(C, H, W)`` or
    ``(N, C, H, W)`` images (the start of each kept range is rounded down, the range kept
    symmetric).

    Raises
    ------
    TypeError
        A non-float ``central_fraction``.
    ValueError
        ``central_fraction`` outside (0, 1]; an image that is not 3-D or 4-D.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.CentralCrop(0.5)(ms.ops.ones((3, 8, 8))).shape
    (3, 4, 4)
    """

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"For 'CentralCrop', the type of 'central_fraction' should be 'float', but got type "
                            f"'{type(central_fraction).__name__}'.")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' must be in range (0.0, 1.0], but got "
                             f"{central_fraction}.")
        self.central_fraction = central_fraction

    def construct(self, image):
        image = _tensor(image, "image", "CentralCrop")
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop image must be 3d or 4d, but got shape {image.shape}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        return image[..., top:h - top, left:w - left]


def _dtype_max(dtype):
    """1.0 for float images; the largest value of an integer image's dtype."""
    if dtype.kind in ("int", "uint"):
        return float(np.iinfo(np.dtype(dtype.array_name)).max)
    return 1.0


def _to_unit_float(value, dtype_max):
    out = ops.cast(value, _dt.float32) if isinstance(value, Tensor) else float(np.float32(value))
    return out * (1.0 / dtype_max) if dtype_max > 1.0 else out


def _same_type_shape(img1, img2, cell):
    _tensor(img1, "img1", cell)
    _tensor(img2, "img2", cell)
    if img1.dtype != img2.dtype:
        raise TypeError(f"For '{cell}', 'img1' and 'img2' must have the same dtype, but got {img1.dtype} and "
                        f"{img2.dtype}.")
    if img1.shape != img2.shape:
        raise ValueError(f"For '{cell}', 'img1' and 'img2' must have the same shape, but got {img1.shape} and "
                         f"{img2.shape}.")


def _positive_max_val(max_val, cell):
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"For '{cell}', the type of 'max_val' should be 'int' or 'float', but got type "
                        f"'{type(max_val).__name__}'.")
    if not max_val > 0:
        raise ValueError(f"For '{cell}', the 'max_val' must be > 0, but got {max_val}.")
    return max_val


class PSNR(Cell):
    """Peak signal-to-noise ratio of two batches of ``(N, C, H, W)`` images, one value per image::

        10 * log10(max_val ** 2 / mean((img1 - img2) ** 2))

    Integer images are first scaled to [0, 1] by their dtype's largest value (and ``max_val``
    with them).

    Raises
    ------
    TypeError
        A ``max_val`` that is not a number; images of different dtypes.
    ValueError
        ``max_val`` <= 0; images that are not 4-D or differ in shape.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.PSNR(max_val=2.0)(ms.ops.zeros((2, 1, 2, 2)), ms.ops.ones((2, 1, 2, 2))))
    [6.0206 6.0206]
    """

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _positive_max_val(max_val, "PSNR")

    def construct(self, img1, img2):
        for name, img in (("img1", img1), ("img2", img2)):
            if _tensor(img, name, "PSNR").ndim != 4:
                raise ValueError(f"For 'PSNR', the dimension of '{name}' must be 4d, but got {img.ndim}.")
        _same_type_shape(img1, img2, "PSNR")
        dtype_max = _dtype_max(img1.dtype)
        max_val = _to_unit_float(self.max_val, dtype_max)
        diff = _to_unit_float(img1, dtype_max) - _to_unit_float(img2, dtype_max)
        mse = ops.mean(diff * diff, (-3, -2, -1))
        return 10 * ops.log(max_val * max_val / mse) / float(np.log(10.0))


def _gaussian_window(size, sigma):
    """A ``(1, 1, size, size)`` Gaussian of standard deviation ``sigma``, summing to 1 (float32).

    The offsets run from ``-((size - 1) // 2)``: an even window leans to the right, as MindSpore's.
    """
    offsets = np.arange(size, dtype=np.float32) - np.float32((size - 1) // 2)
    squares = offsets[:, None] ** 2 + offsets[None, :] ** 2
    with np.errstate(over="ignore"):  # a huge sigma: a flat window
        g = np.exp(-squares / np.float32(2 * np.float64(sigma) ** 2))
    return (g / g.sum()).astype(np.float32).reshape(1, 1, size, size)


class SSIM(Cell):
    """Structural similarity of two batches of ``(N, C, H, W)`` images, one value per image.

    Each channel's local means, variances and covariance are taken with a ``filter_size`` Gaussian
    window of standard deviation ``filter_sigma`` (no padding); the SSIM map
    ``(2 mu1 mu2 + c1) (2 s12 + c2) / ((mu1^2 + mu2^2 + c1) (s1^2 + s2^2 + c2))``, with
    ``c1 = (k1 max_val)^2`` and ``c2 = (k2 max_val)^2``, is averaged over positions and channels.

    The window is the weight of a child ``Conv2d`` named ``conv`` that is not trained (its
    Parameter ``conv.weight`` shows in ``get_parameters``, as in MindSpore).

    Parameters
    ----------
    max_val : int or float
        The images' dynamic range (> 0).
    filter_size : int
        At least 1, at most the images' height and width.
    filter_sigma : float
        > 0.
    k1, k2 : float

    Raises
    ------
    TypeError
        Arguments of the wrong type; images that are not float16/float32 or differ in dtype.
    ValueError
        Out-of-range arguments; images that are not 4-D, differ in shape or are smaller than the window.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> img = ms.ops.ones((1, 3, 16, 16))
    >>> print(nn.SSIM()(img, img))
    [1.]
    """

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _positive_max_val(max_val, "SSIM")
        if not _is_int(filter_size):
            raise TypeError(f"For 'SSIM', the type of 'filter_size' should be 'int', but got type "
                            f"'{type(filter_size).__name__}'.")
        if filter_size < 1:
            raise ValueError(f"For 'SSIM', the 'filter_size' must be >= 1, but got {filter_size}.")
        if filter_size > 4096:
            raise ValueError(f"For 'SSIM', the 'filter_size' must be at most 4096 (a window of filter_size ** 2 "
                             f"weights), but got {filter_size}.")
        if not isinstance(filter_sigma, float):
            raise TypeError(f"For 'SSIM', the type of 'filter_sigma' should be 'float', but got type "
                            f"'{type(filter_sigma).__name__}'.")
        if not filter_sigma > 0:
            raise ValueError(f"For 'SSIM', the 'filter_sigma' must be > 0, but got {filter_sigma}.")
        for name, value in (("k1", k1), ("k2", k2)):
            if not isinstance(value, float):
                raise TypeError(f"For 'SSIM', the type of '{name}' should be 'float', but got type "
                                f"'{type(value).__name__}'.")
        self.filter_size = filter_size
        self.filter_sigma = filter_sigma
        self.k1 = k1
        self.k2 = k2
        self.conv = Conv2d(1, 1, filter_size, pad_mode="valid",
                           weight_init=Tensor(_gaussian_window(filter_size, filter_sigma)))
        self.conv.weight.requires_grad = False

    def construct(self, img1, img2):
        _same_type_shape(img1, img2, "SSIM")
        if img1.dtype not in (_dt.float32, _dt.float16):
            raise TypeError(f"For 'SSIM', 'img1' must be float16 or float32, but got {img1.dtype}.")
        if img1.ndim != 4:
            raise ValueError(f"For 'SSIM', the dimension of 'img1' must be 4d, but got {img1.ndim}.")
        if img1.shape[2] < self.filter_size or img1.shape[3] < self.filter_size:
            raise ValueError(f"For 'SSIM', the height and width of 'img1' must be at least filter_size="
                             f"{self.filter_size}, but got shape {img1.shape}.")
        max_val = float(np.float32(self.max_val))
        img1 = ops.cast(img1, _dt.float32)
        img2 = ops.cast(img2, _dt.float32)
        c1 = (self.k1 * max_val) ** 2
        c2 = (self.k2 * max_val) ** 2
        n, c, h, w = img1.shape
        # every channel through the one-channel window: channels become batch entries
        a = ops.reshape(img1, (n * c, 1, h, w))
        b = ops.reshape(img2, (n * c, 1, h, w))
        mu1, mu2 = self.conv(a), self.conv(b)
        mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        sigma1_sq = self.conv(a * a) - mu1_sq
        sigma2_sq = self.conv(b * b) - mu2_sq
        sigma12 = self.conv(a * b) - mu1_mu2
        ssim_map = (2 * mu1_mu2 + c1) * (2 * sigma12 + c2) / ((mu1_sq + mu2_sq + c1) * (sigma1_sq + sigma2_sq + c2))
        per_channel = ops.reshape(ops.mean(ssim_map, (2, 3)), (n, c))
        return ops.mean(per_channel, -1)
