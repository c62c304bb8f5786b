"""Transforms that move pixels: resizing, cropping, flipping, padding, rotating, affine and
perspective warps, and slicing into patches.

NumPy images go through :mod:`.cv` (OpenCV's arithmetic, MindSpore's numbers); PIL images go
through Pillow, as MindSpore's Python implementations do.

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> image = np.zeros((12, 16, 3), np.uint8)
>>> vision.Resize(6)(image).shape, vision.CenterCrop(4)(image).shape, vision.Pad(1)(image).shape
((6, 8, 3), (4, 4, 3), (14, 18, 3))
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..engine.randomness import generator
from ..transforms.base import PyTensorOperation, is_pil
from .base import ImageTensorOperation, from_hwc, interpolation_mode, require_channels, require_rank, to_hwc
from .checks import (FLOAT_MAX_INTEGER, INT32_MAX, check_inter, check_number, check_prob, check_range,
                     check_range_pair, check_type, fill_triple, size_pair)
from .cv import resize as cv_resize
from .cv import warp as cv_warp
from .utils import Border, Inter, SliceMode

__all__ = ["Resize", "RandomResize", "ResizedCrop", "Crop", "CenterCrop", "RandomCrop", "RandomResizedCrop",
           "RandomCropDecodeResize", "HorizontalFlip", "VerticalFlip", "RandomHorizontalFlip", "RandomVerticalFlip",
           "Pad", "PadToSize", "Rotate", "RandomRotation", "Affine", "RandomAffine", "Perspective",
           "RandomPerspective", "FiveCrop", "TenCrop", "SlicePatches", "resize_image", "pad_image", "affine_matrix"]

_PIL_RESAMPLE = {Inter.NEAREST: 0, Inter.ANTIALIAS: 1, Inter.BILINEAR: 2, Inter.BICUBIC: 3, Inter.AREA: 4,
                 Inter.PILCUBIC: 3}


# ---------------------------------------------------------------------------------- helpers
def _output_size(size, height, width):
    """(h, w) for ``size``: an int sets the shorter side and keeps the aspect ratio."""
    if isinstance(size, int):
        if height <= width:
            return size, int(size * width / height)
        return int(size * height / width), size
    return size


def resize_image(images, height, width, inter, name="Resize"):
    """(..., H, W, C) images resized with an ``Inter`` mode (MindSpore's numbers)."""
    H, W = images.shape[-3], images.shape[-2]
    if height > H * 1000 or width > W * 1000:
        raise RuntimeError(f"{name}: the resizing width or height is too big, it's 1000 times bigger than the "
                           f"original image, got output height: {height}, width: {width}, and original image "
                           f"size:{H}, {W}")
    mode = interpolation_mode(inter)
    if mode == "pilcubic":
        if images.dtype != np.uint8 or images.shape[-1] != 3:
            raise RuntimeError(f"{name}: Inter.PILCUBIC supports only uint8 images with 3 channels, but got "
                               f"{images.dtype} with {images.shape[-1]} channel(s). (MindSpore 2.10 returns "
                               "meaningless values for float images here; cellkit refuses them.)")
        return cv_resize.pil_bicubic(images, height, width)
    if mode == "antialias":
        raise TypeError("img should be PIL image. Got <class 'numpy.ndarray'>. Use Decode() for encoded data or "
                        "ToPIL() for decoded data.")
    return cv_resize.resize(images, height, width, mode)


def _pil_resize(image, size, inter):
    if isinstance(size, int):
        w, h = image.size
        if (w <= h and w == size) or (h <= w and h == size):
            return image
        if w < h:
            return image.resize((size, int(size * h / w)), _PIL_RESAMPLE[inter])
        return image.resize((int(size * w / h), size), _PIL_RESAMPLE[inter])
    return image.resize((size[1], size[0]), _PIL_RESAMPLE[inter])


_NUMPY_PAD = {Border.CONSTANT: "constant", Border.EDGE: "edge", Border.REFLECT: "reflect",
              Border.SYMMETRIC: "symmetric"}


def pad_image(images, top, bottom, left, right, mode=Border.CONSTANT, fill=(0, 0, 0)):
    """(..., H, W, C) padded as ``cv::copyMakeBorder`` (a constant fill is per channel)."""
    widths = [(0, 0)] * (images.ndim - 3) + [(top, bottom), (left, right), (0, 0)]
    if mode == Border.CONSTANT:
        H, W = images.shape[-3], images.shape[-2]
        shape = images.shape[:-3] + (H + top + bottom, W + left + right, images.shape[-1])
        channels = images.shape[-1]
        values = np.array([fill[k] if k < len(fill) else 0 for k in range(channels)]).astype(images.dtype)
        out = np.empty(shape, dtype=images.dtype)
        if (values == values[0]).all():
            out.fill(values[0])
        else:   # rows of W*C values with the fill repeated along them (long inner loops)
            out.reshape(-1, shape[-2] * channels)[...] = np.tile(values, shape[-2])
        out[..., top:top + H, left:left + W, :] = images
        return out
    return np.pad(images, widths, mode=_NUMPY_PAD[mode])


def _padding4(padding, name="padding"):
    """(left, top, right, bottom) from an int, a 2-sequence or a 4-sequence."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        check_range(padding, 0, INT32_MAX, name)
        return (padding,) * 4
    if isinstance(padding, (list, tuple)):
        if len(padding) not in (2, 4):
            raise ValueError("The size of the padding list or tuple should be 2 or 4.")
        for k, p in enumerate(padding):
            check_type(p, (int,), f"{name}[{k}]")
            check_range(p, 0, INT32_MAX, f"{name}[{k}]")
        if len(padding) == 2:
            return padding[0], padding[1], padding[0], padding[1]
        return tuple(padding)
    raise TypeError(f"Argument {name} with value {padding!r} is not of type [int, list, tuple], "
                    f"but got {type(padding).__name__}.")


def _check_border(mode, name="padding_mode"):
    if not isinstance(mode, Border):
        raise TypeError(f"Argument {name} with value {mode!r} is not of type ['Border'], but got "
                        f"{type(mode).__name__}.")
    return mode


def _pil_fill(image, fill):
    bands = len(image.getbands())
    return fill[0] if bands == 1 else tuple(fill[:bands])


# ---------------------------------------------------------------------------------- resizing
class Resize(ImageTensorOperation):
    """Resize to ``size``: (height, width), or an int for the shorter side (keeping the aspect ratio)."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, int) and not isinstance(size, bool):
            check_range(size, 1, FLOAT_MAX_INTEGER, "size")
            self.size = size
        else:
            self.size = size_pair(size, "size", high=INT32_MAX, allow_int=False)
        self.interpolation = check_inter(interpolation)

    def _compute_pil(self, image):
        return _pil_resize(image, self.size, self.interpolation)

    def _check(self, image):
        require_rank(image, "Resize", (2, 3))

    def _compute(self, image):
        if image.ndim > 3:  # MindSpore resizes <..., H, W, C> too
            h, w = _output_size(self.size, image.shape[-3], image.shape[-2])
            return resize_image(image, h, w, self.interpolation)
        return super()._compute(image)

    def _transform(self, images):
        h, w = _output_size(self.size, images.shape[-3], images.shape[-2])
        return resize_image(images, h, w, self.interpolation)


class RandomResize(ImageTensorOperation):
    """Resize to ``size`` with an interpolation chosen at random (bilinear, nearest, bicubic, area)."""

    _deterministic = False
    _stackable = False

    def __init__(self, size):
        self.size = size if isinstance(size, int) and not isinstance(size, bool) else size_pair(size)
        if isinstance(self.size, int):
            check_range(self.size, 1, FLOAT_MAX_INTEGER, "size")

    def _transform(self, images):
        inter = [Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA][int(generator().random() * 4)]
        h, w = _output_size(self.size, images.shape[-3], images.shape[-2])
        return resize_image(images, h, w, inter, "RandomResize")


class ResizedCrop(ImageTensorOperation):
    """Crop the region (top, left, height, width), then resize it to ``size``."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        for name, value in (("top", top), ("left", left)):
            check_type(value, (int,), name)
            check_range(value, 0, INT32_MAX, name)
        for name, value in (("height", height), ("width", width)):
            check_type(value, (int,), name)
            check_range(value, 1, INT32_MAX, name)
        self.top, self.left, self.height, self.width = top, left, height, width
        self.size = size_pair(size)
        self.interpolation = check_inter(interpolation)

    def _check(self, image):
        require_rank(image, "ResizedCrop")
        if self.top + self.height > image.shape[0]:
            raise RuntimeError(f"ResizedCrop: the sum of top and height: {self.top + self.height} exceeds image "
                               f"height: {image.shape[0]}")
        if self.left + self.width > image.shape[1]:
            raise RuntimeError(f"ResizedCrop: the sum of left and width: {self.left + self.width} exceeds image "
                               f"width: {image.shape[1]}")

    def _transform(self, images):
        part = images[..., self.top:self.top + self.height, self.left:self.left + self.width, :]
        return resize_image(np.ascontiguousarray(part), self.size[0], self.size[1], self.interpolation, "ResizedCrop")


# ---------------------------------------------------------------------------------- cropping
class Crop(ImageTensorOperation):
    """The region of ``size`` whose top-left corner is ``coordinates`` (y, x)."""

    def __init__(self, coordinates, size):
        if not isinstance(coordinates, (list, tuple)) or len(coordinates) != 2:
            raise TypeError(f"Coordinates should be a list/tuple (y, x) of length 2, but got {coordinates!r}.")
        for k, value in enumerate(coordinates):
            check_type(value, (int,), f"coordinates[{k}]")
            check_range(value, 0, INT32_MAX, f"coordinates[{k}]")
        self.coordinates = tuple(coordinates)
        self.size = size_pair(size)

    def _check(self, image):
        require_rank(image, "Crop")
        y, x = self.coordinates
        h, w = self.size
        if y + h > image.shape[0]:
            raise RuntimeError(f"Crop: Crop height dimension: {y + h} exceeds image height: {image.shape[0]}")
        if x + w > image.shape[1]:
            raise RuntimeError(f"Crop: Crop width dimension: {x + w} exceeds image width: {image.shape[1]}")

    def _transform(self, images):
        y, x = self.coordinates
        h, w = self.size
        return images[..., y:y + h, x:x + w, :].copy()


def _center_offsets(height, width, crop_h, crop_w):
    return (height - crop_h) // 2, (width - crop_w) // 2


class CenterCrop(ImageTensorOperation):
    """The central region of ``size`` (an image smaller than it is padded with zeros first)."""

    def __init__(self, size):
        self.size = size_pair(size)

    def _compute_pil(self, image):
        w, h = image.size
        ch, cw = self.size
        top = int(round((h - ch) / 2.0))
        left = int(round((w - cw) / 2.0))
        return image.crop((left, top, left + cw, top + ch))

    def _check(self, image):
        require_rank(image, "CenterCrop")
        h, w = image.shape[:2]
        ch, cw = self.size
        if ch > h or cw > w:
            pad_h, pad_w = max(0, ch - h), max(0, cw - w)
            if pad_h > 3 * h or pad_w > 3 * w:
                raise RuntimeError(f"CenterCrop: Padding size cannot be more than 3 times of the original image size, "
                                   f"got top padding: {pad_h}, left padding: {pad_w}, while the original image "
                                   f"size: {h}, {w}")
            require_channels(image, "Pad")

    def _transform(self, images):
        h, w = images.shape[-3], images.shape[-2]
        ch, cw = self.size
        if ch > h or cw > w:
            ph = (max(0, ch - h) + 1) // 2
            pw = (max(0, cw - w) + 1) // 2
            images = pad_image(images, ph, ph, pw, pw)
            h, w = images.shape[-3], images.shape[-2]
        y, x = _center_offsets(h, w, ch, cw)
        return images[..., y:y + ch, x:x + cw, :].copy()


class RandomCrop(ImageTensorOperation):
    """A region of ``size`` at a random place (after ``padding``, and padding to ``size`` if needed)."""

    _deterministic = False

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = size_pair(size)
        self.padding = None if padding is None else _padding4(padding)
        check_type(pad_if_needed, (bool,), "pad_if_needed")
        self.pad_if_needed = pad_if_needed
        self.fill_value = fill_triple(fill_value)
        self.padding_mode = _check_border(padding_mode)

    def _prepare(self, images):
        """The image padded as asked: (padded, rows added on top, columns added on the left)."""
        top = left = 0
        if self.padding is not None:
            left, top, right, bottom = self.padding
            images = pad_image(images, top, bottom, left, right, self.padding_mode, self.fill_value)
        h, w = images.shape[-3], images.shape[-2]
        ch, cw = self.size
        if self.pad_if_needed and (h < ch or w < cw):
            ph, pw = max(0, ch - h), max(0, cw - w)
            images = pad_image(images, ph, ph, pw, pw, self.padding_mode, self.fill_value)
            top, left = top + ph, left + pw
        h, w = images.shape[-3], images.shape[-2]
        if ch > h or cw > w:
            raise RuntimeError(f"RandomCrop: invalid crop size, crop size is bigger than the image dimensions, "
                               f"got crop height: {ch}, crop width: {cw}")
        return images, top, left

    def _check(self, image):
        require_rank(image, "RandomCrop")
        if self.padding is not None or self.pad_if_needed:
            require_channels(image, "Pad")

    def _transform(self, images):
        lead = images.shape[:-3]
        if lead and self.padding is not None and not self.pad_if_needed and self.padding_mode == Border.CONSTANT:
            return self._crop_constant_padded(images)
        images = self._prepare(images)[0]
        h, w = images.shape[-3], images.shape[-2]
        ch, cw = self.size
        count = int(np.prod(lead)) if lead else 1
        draws = generator().random((count, 2))
        ys = (draws[:, 0] * (h - ch + 1)).astype(np.int64)
        xs = (draws[:, 1] * (w - cw + 1)).astype(np.int64)
        if not lead:
            return images[ys[0]:ys[0] + ch, xs[0]:xs[0] + cw].copy()
        flat = images.reshape((count,) + images.shape[-3:])
        out = np.empty((count, ch, cw, flat.shape[-1]), flat.dtype)
        for i, (y, x) in enumerate(zip(ys.tolist(), xs.tolist())):
            out[i] = flat[i, y:y + ch, x:x + cw]
        return out.reshape(lead + out.shape[1:])

    def _crop_constant_padded(self, images):
        """A stack padded once, then every image's window gathered in one indexing step (the same
        draws and pixels as cropping them one by one)."""
        left, top, right, bottom = self.padding
        padded = pad_image(images, top, bottom, left, right, self.padding_mode, self.fill_value)
        h, w, c = padded.shape[-3:]
        ch, cw = self.size
        if ch > h or cw > w:
            raise RuntimeError(f"RandomCrop: invalid crop size, crop size is bigger than the image dimensions, "
                               f"got crop height: {ch}, crop width: {cw}")
        lead = images.shape[:-3]
        count = int(np.prod(lead))
        draws = generator().random((count, 2))
        ys = (draws[:, 0] * (h - ch + 1)).astype(np.int64)
        xs = (draws[:, 1] * (w - cw + 1)).astype(np.int64)
        flat = padded.reshape((count, h, w, c))
        windows = np.lib.stride_tricks.sliding_window_view(flat, (ch, cw), axis=(1, 2))
        out = np.ascontiguousarray(windows[np.arange(count), ys, xs].transpose(0, 2, 3, 1))
        return out.reshape(lead + out.shape[1:])

    def _compute_pil(self, image):
        array = np.asarray(image)
        from PIL import Image

        return Image.fromarray(self._compute(array))


def _check_scale_ratio(scale, ratio):
    for name, values, low in (("scale", scale, 0), ("ratio", ratio, 0)):
        if not isinstance(values, (list, tuple)) or len(values) != 2:
            raise TypeError(f"Argument {name} should be a list or tuple of length 2, but got {values!r}.")
        for k, v in enumerate(values):
            check_number(v, f"{name}[{k}]")
            check_range(v, low, FLOAT_MAX_INTEGER, f"{name}[{k}]", open_low=(name == "ratio"))
        if values[0] > values[1]:
            raise ValueError(f"{name} should be in (min, max) format. Got (max, min).")
    return (float(scale[0]), float(scale[1])), (float(ratio[0]), float(ratio[1]))


def _random_crop_box(height, width, scale, ratio, attempts, rng):
    """(top, left, h, w) of a random region with an area fraction in ``scale`` and an aspect in ``ratio``."""
    area = height * width
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(attempts):
        target = area * rng.uniform(scale[0], scale[1])
        aspect = math.exp(rng.uniform(*log_ratio))
        w = int(round(math.sqrt(target * aspect)))
        h = int(round(math.sqrt(target / aspect)))
        if 0 < w <= width and 0 < h <= height:
            top = int(rng.integers(0, height - h + 1))
            left = int(rng.integers(0, width - w + 1))
            return top, left, h, w
    # fallback: the whole image, cut to the nearest allowed aspect ratio, centred
    in_ratio = width / height
    if in_ratio < ratio[0]:
        w = width
        h = int(round(w / ratio[0]))
    elif in_ratio > ratio[1]:
        h = height
        w = int(round(h * ratio[1]))
    else:
        w, h = width, height
    return (height - h) // 2, (width - w) // 2, h, w


class RandomResizedCrop(ImageTensorOperation):
    """A random region (area fraction in ``scale``, aspect ratio in ``ratio``) resized to ``size``."""

    _deterministic = False
    _stackable = False

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size = size_pair(size)
        self.scale, self.ratio = _check_scale_ratio(scale, ratio)
        self.interpolation = check_inter(interpolation)
        check_type(max_attempts, (int,), "max_attempts")
        check_range(max_attempts, 1, INT32_MAX, "max_attempts")
        self.max_attempts = max_attempts

    def _box(self, height, width):
        return _random_crop_box(height, width, self.scale, self.ratio, self.max_attempts, generator())

    def _transform(self, images):
        top, left, h, w = self._box(images.shape[-3], images.shape[-2])
        part = np.ascontiguousarray(images[..., top:top + h, left:left + w, :])
        return resize_image(part, self.size[0], self.size[1], self.interpolation, "RandomResizedCrop")

    def _compute_pil(self, image):
        width, height = image.size
        top, left, h, w = self._box(height, width)
        return image.resize((self.size[1], self.size[0]), _PIL_RESAMPLE[self.interpolation],
                            box=(left, top, left + w, top + h))


class RandomCropDecodeResize(RandomResizedCrop):
    """Decode an encoded image, then :class:`RandomResizedCrop` it."""

    def _compute(self, data):
        from .codec import decode_image

        if data.ndim != 1:
            raise RuntimeError(f"RandomCropDecodeResize: the input should be a 1-D array of encoded image bytes, "
                               f"but got rank {data.ndim}.")
        return super()._compute(decode_image(data, "the image"))

    def _apply_block(self, columns):
        return None


# ---------------------------------------------------------------------------------- flipping
class HorizontalFlip(ImageTensorOperation):
    """Mirror left to right."""

    def _transform(self, images):
        return images[..., :, ::-1, :].copy()


class VerticalFlip(ImageTensorOperation):
    """Mirror top to bottom."""

    def _transform(self, images):
        return images[..., ::-1, :, :].copy()


class _RandomFlip(ImageTensorOperation):
    _deterministic = False
    _axis = None

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob)

    def _transform(self, images):
        lead = images.shape[:-3]
        count = int(np.prod(lead)) if lead else 1
        chosen = generator().random(count) < self.prob
        if not lead:
            return np.flip(images, axis=self._axis).copy() if chosen[0] else images
        flat = images.reshape((count,) + images.shape[-3:])
        out = flat.copy()
        picked = np.flatnonzero(chosen)
        if self._axis == 0:
            out[picked] = flat[picked, ::-1]
        else:
            # mirror the columns of each row seen as W*C values: one gather, channels kept in order
            n, h, w, c = flat.shape
            order = (np.arange(w)[::-1, None] * c + np.arange(c)[None, :]).reshape(-1)
            rows = out.reshape(n, h, w * c)
            rows[picked] = flat.reshape(n, h, w * c)[picked][:, :, order]
        return out.reshape(images.shape)

    def _compute_pil(self, image):
        if generator().random() < self.prob:
            return image.transpose(self._pil_method)
        return image


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left to right with probability ``prob``."""

    _axis = 1
    _pil_method = 0  # Image.FLIP_LEFT_RIGHT


class RandomVerticalFlip(_RandomFlip):
    """Mirror top to bottom with probability ``prob``."""

    _axis = 0
    _pil_method = 1  # Image.FLIP_TOP_BOTTOM


# ---------------------------------------------------------------------------------- padding
class Pad(ImageTensorOperation):
    """Pad the borders: ``padding`` is an int, (left/right, top/bottom) or (left, top, right, bottom)."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding4(padding)
        self.fill_value = fill_triple(fill_value)
        self.padding_mode = _check_border(padding_mode)

    def _check(self, image):
        require_rank(image, "Pad")
        require_channels(image, "Pad")

    def _transform(self, images):
        left, top, right, bottom = self.padding
        return pad_image(images, top, bottom, left, right, self.padding_mode, self.fill_value)

    def _compute_pil(self, image):
        from PIL import ImageOps

        left, top, right, bottom = self.padding
        if self.padding_mode == Border.CONSTANT:
            return ImageOps.expand(image, border=(left, top, right, bottom), fill=_pil_fill(image, self.fill_value))
        from PIL import Image

        return Image.fromarray(self._compute(np.asarray(image)))


class PadToSize(ImageTensorOperation):
    """Pad to ``size`` (height, width), the image placed at ``offset`` (top, left; centred by default)."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = size_pair(size, high=INT32_MAX)
        if offset is not None:
            if isinstance(offset, int) and not isinstance(offset, bool):
                check_range(offset, 0, INT32_MAX, "offset")
                offset = (offset, offset)
            else:
                offset = size_pair(offset, "offset", low=0, high=INT32_MAX, allow_int=False)
        self.offset = offset
        self.fill_value = fill_triple(fill_value)
        self.padding_mode = _check_border(padding_mode)

    def _check(self, image):
        require_rank(image, "PadToSize")
        require_channels(image, "PadToSize")
        h, w = image.shape[:2]
        th, tw = self.size
        if th < h or tw < w:
            raise RuntimeError(f"PadToSize: the target size to pad should be no less than the original image size, "
                               f"but got target size {list(self.size)} and original size [{h}, {w}].")
        if self.offset is not None and (self.offset[0] + h > th or self.offset[1] + w > tw):
            raise RuntimeError(f"PadToSize: the sum of offset and original image size should be no more than the "
                               f"target size, but got offset {list(self.offset)}, original size [{h}, {w}] and "
                               f"target size {list(self.size)}.")

    def _transform(self, images):
        h, w = images.shape[-3], images.shape[-2]
        th, tw = self.size
        top, left = ((th - h) // 2, (tw - w) // 2) if self.offset is None else self.offset
        return pad_image(images, top, th - h - top, left, tw - w - left, self.padding_mode, self.fill_value)


# ---------------------------------------------------------------------------------- rotating, warping
def _check_center(center):
    if center is None:
        return None
    if not isinstance(center, (list, tuple)) or len(center) != 2:
        raise TypeError(f"Argument center should be a tuple (x, y) of length 2, but got {center!r}.")
    for k, v in enumerate(center):
        check_number(v, f"center[{k}]")
    return float(center[0]), float(center[1])


def _warp_modes(inter):
    if inter == Inter.PILCUBIC:
        raise RuntimeError("Inter.PILCUBIC is only for Resize.")
    return interpolation_mode(inter)


def rotate_image(images, degrees, inter, expand, center, fill):
    """(..., H, W, C) rotated counter-clockwise by ``degrees`` about ``center`` (x, y)."""
    h, w = images.shape[-3], images.shape[-2]
    if center is None:
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    else:
        cx, cy = center
    cx, cy = float(np.float32(cx)), float(np.float32(cy))  # OpenCV's Point2f
    matrix = cv_warp.rotation_matrix(cx, cy, degrees)
    out_h, out_w = h, w
    if expand:
        f32 = np.float32
        angle = degrees * np.pi / 180.0
        b = f32(np.cos(angle)) * f32(0.5)
        a = f32(np.sin(angle)) * f32(0.5)
        fx, fy, fw, fh = f32(cx), f32(cy), f32(w), f32(h)
        p0 = (fx - a * fh - b * fw, fy + b * fh - a * fw)
        p1 = (fx + a * fh - b * fw, fy - b * fh - a * fw)
        p2 = (f32(2) * fx - p0[0], f32(2) * fy - p0[1])
        p3 = (f32(2) * fx - p1[0], f32(2) * fy - p1[1])
        xs, ys = [p[0] for p in (p0, p1, p2, p3)], [p[1] for p in (p0, p1, p2, p3)]
        box_w, box_h = f32(max(xs) - min(xs)), f32(max(ys) - min(ys))
        matrix[0, 2] += float(box_w) / 2.0 - w / 2.0
        matrix[1, 2] += float(box_h) / 2.0 - h / 2.0
        out_w, out_h = int(np.rint(box_w)), int(np.rint(box_h))
    return cv_warp.warp_affine(images, matrix, out_h, out_w, _warp_modes(inter), fill)


class Rotate(ImageTensorOperation):
    """Rotate counter-clockwise by ``degrees`` (about the centre or ``center``; ``expand`` to fit).

    ``fill_value`` (r, g, b) fills the uncovered corners.  MindSpore 2.10 applies it in reverse
    channel order (blue into red); cellkit applies it as documented.
    """

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        check_number(degrees, "degrees")
        self.degrees = float(degrees)
        self.resample = check_inter(resample, "resample")
        check_type(expand, (bool,), "expand")
        self.expand = expand
        self.center = _check_center(center)
        self.fill_value = fill_triple(fill_value)

    def _transform(self, images):
        return rotate_image(images, self.degrees, self.resample, self.expand, self.center, self.fill_value)


def _degrees_range(degrees, name="degrees"):
    if isinstance(degrees, numbers.Number) and not isinstance(degrees, bool):
        check_range(degrees, 0, FLOAT_MAX_INTEGER, name)
        return -float(degrees), float(degrees)
    return check_range_pair(degrees, name, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER)


class RandomRotation(ImageTensorOperation):
    """Rotate by an angle drawn from ``degrees`` ((min, max), or a number d for (-d, d))."""

    _deterministic = False
    _stackable = False

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        self.degrees = _degrees_range(degrees)
        self.resample = check_inter(resample, "resample")
        check_type(expand, (bool,), "expand")
        self.expand = expand
        self.center = _check_center(center)
        self.fill_value = fill_triple(fill_value)

    def _angle(self):
        low, high = self.degrees
        return low + generator().random() * (high - low)

    def _transform(self, images):
        return rotate_image(images, self._angle(), self.resample, self.expand, self.center, self.fill_value)

    def _compute_pil(self, image):
        angle = self._angle()
        center = self.center
        return image.rotate(angle, resample=_PIL_RESAMPLE[self.resample], expand=self.expand, center=center,
                            fillcolor=_pil_fill(image, self.fill_value))


def affine_matrix(height, width, degrees, translate, scale, shear):
    """MindSpore's forward affine matrix (2x3, float32 values): rotation, scale and shear about the
    image centre, then a translation in pixels."""
    f32 = np.float32
    angle = math.radians(degrees)
    sx = math.radians(shear[0])
    sy = math.radians(-shear[1])
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    a = f32(scale * math.cos(angle + sy) / math.cos(sy))
    b = f32(scale * (-math.cos(angle + sy) * math.tan(sx) / math.cos(sy) - math.sin(angle)))
    c = f32(scale * math.sin(angle + sy) / math.cos(sy))
    d = f32(scale * (-math.sin(angle + sy) * math.tan(sx) / math.cos(sy) + math.cos(angle)))
    e = f32((1 - a) * cx - b * cy + translate[0])
    f = f32((1 - d) * cy - c * cx + translate[1])
    return np.array([[a, b, e], [c, d, f]], dtype=np.float64)


def _shear_pair(shear):
    if isinstance(shear, numbers.Number) and not isinstance(shear, bool):
        check_range(shear, -180, 180, "shear")
        return float(shear), 0.0
    if isinstance(shear, (list, tuple)) and len(shear) == 2:
        for k, s in enumerate(shear):
            check_number(s, f"shear[{k}]")
            check_range(s, -180, 180, f"shear[{k}]")
        return float(shear[0]), float(shear[1])
    raise TypeError(f"Argument shear should be a number or a sequence of 2 numbers, but got {shear!r}.")


class Affine(ImageTensorOperation):
    """Rotate (``degrees``), scale, shear (degrees, x or (x, y)) about the centre, then translate
    (``translate`` as fractions of width and height)."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        check_number(degrees, "degrees")
        check_range(degrees, -180, 180, "degrees")
        if not isinstance(translate, (list, tuple)) or len(translate) != 2:
            raise TypeError("The length of translate should be 2.")
        for k, t in enumerate(translate):
            check_number(t, f"translate[{k}]")
            check_range(t, -1.0, 1.0, f"translate[{k}]")
        check_number(scale, "scale")
        if scale <= 0:
            raise ValueError(f"Input scale must be greater than 0, but got {scale}.")
        self.degrees = float(degrees)
        self.translate = (float(translate[0]), float(translate[1]))
        self.scale = float(scale)
        self.shear = _shear_pair(shear)
        self.resample = check_inter(resample, "resample")
        self.fill_value = fill_triple(fill_value)

    def _transform(self, images):
        h, w = images.shape[-3], images.shape[-2]
        tx = float(np.float32(self.translate[0]) * np.float32(w))
        ty = float(np.float32(self.translate[1]) * np.float32(h))
        matrix = affine_matrix(h, w, self.degrees, (tx, ty), self.scale, self.shear)
        return cv_warp.warp_affine(images, matrix, h, w, _warp_modes(self.resample), self.fill_value)


class RandomAffine(ImageTensorOperation):
    """An affine transform with parameters drawn from ranges: ``degrees``, ``translate`` ((tx, ty) or
    (min_x, max_x, min_y, max_y) fractions), ``scale`` (min, max), ``shear`` (a number, 2 or 4 values)."""

    _deterministic = False
    _stackable = False

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0):
        self.degrees = _degrees_range(degrees)
        if translate is not None:
            if not isinstance(translate, (list, tuple)) or len(translate) not in (2, 4):
                raise TypeError("translate should be a list or tuple of length 2 or 4.")
            for k, t in enumerate(translate):
                check_number(t, f"translate[{k}]")
                check_range(t, -1.0, 1.0, f"translate[{k}]")
            if len(translate) == 2:
                translate = (-translate[0], translate[0], -translate[1], translate[1])
        self.translate = translate
        if scale is not None:
            scale = check_range_pair(scale, "scale", 0, FLOAT_MAX_INTEGER)
        self.scale = scale
        if shear is not None:
            if isinstance(shear, numbers.Number) and not isinstance(shear, bool):
                check_range(shear, 0, 180, "shear")
                shear = (-float(shear), float(shear), 0.0, 0.0)
            elif isinstance(shear, (list, tuple)) and len(shear) in (2, 4):
                for k, s in enumerate(shear):
                    check_number(s, f"shear[{k}]")
                    check_range(s, -180, 180, f"shear[{k}]")
                shear = tuple(float(s) for s in shear) + ((0.0, 0.0) if len(shear) == 2 else ())
            else:
                raise TypeError(f"shear should be a number or a list/tuple of length 2 or 4, but got {shear!r}.")
        self.shear = shear
        self.resample = check_inter(resample, "resample")
        self.fill_value = fill_triple(fill_value)

    def _parameters(self, height, width):
        rng = generator()
        draw = lambda low, high: low + rng.random() * (high - low)  # noqa: E731
        angle = draw(*self.degrees)
        if self.translate is not None:
            tx = draw(self.translate[0] * width, self.translate[1] * width)
            ty = draw(self.translate[2] * height, self.translate[3] * height)
        else:
            tx = ty = 0.0
        scale = draw(*self.scale) if self.scale is not None else 1.0
        if self.shear is not None:
            shear = (draw(self.shear[0], self.shear[1]), draw(self.shear[2], self.shear[3]))
        else:
            shear = (0.0, 0.0)
        return angle, (tx, ty), scale, shear

    def _transform(self, images):
        h, w = images.shape[-3], images.shape[-2]
        angle, translate, scale, shear = self._parameters(h, w)
        matrix = affine_matrix(h, w, angle, translate, scale, shear)
        return cv_warp.warp_affine(images, matrix, h, w, _warp_modes(self.resample), self.fill_value)

    def _compute_pil(self, image):
        """Pillow's affine transform, with the parameters drawn as MindSpore's Python version draws
        them (translations rounded to whole pixels, the centre at (w/2 + 0.5, h/2 + 0.5))."""
        width, height = image.size
        rng = generator()
        draw = lambda low, high: low + rng.random() * (high - low)  # noqa: E731
        angle = draw(*self.degrees)
        if self.translate is not None:
            tx = float(np.round(draw(-self.translate[1] * width, self.translate[1] * width)))
            ty = float(np.round(draw(-self.translate[3] * height, self.translate[3] * height)))
        else:
            tx = ty = 0.0
        scale = draw(*self.scale) if self.scale is not None else 1.0
        shear = (draw(self.shear[0], self.shear[1]), draw(self.shear[2], self.shear[3])) if self.shear else (0.0, 0.0)
        coefficients = _pil_inverse_affine(width, height, angle, (tx, ty), scale, shear)
        return image.transform(image.size, 0, coefficients, _PIL_RESAMPLE[self.resample],
                               fillcolor=_pil_fill(image, self.fill_value))


def _pil_inverse_affine(width, height, angle, translate, scale, shear):
    """The 6 output-to-input coefficients of Pillow's AFFINE transform for these parameters."""
    cx, cy = width * 0.5 + 0.5, height * 0.5 + 0.5
    a = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    inv_scale = 1.0 / scale
    det = math.cos(a + sx) * math.cos(a + sy) + math.sin(a + sx) * math.sin(a + sy)
    m = [math.cos(a + sx), math.sin(a + sx), 0.0, -math.sin(a + sy), math.cos(a + sy), 0.0]
    m = [inv_scale / det * v for v in m]
    m[2] += m[0] * (-cx - translate[0]) + m[1] * (-cy - translate[1])
    m[5] += m[3] * (-cx - translate[0]) + m[4] * (-cy - translate[1])
    m[2] += cx
    m[5] += cy
    return m


def _check_points(points, name):
    if not isinstance(points, (list, tuple)) or len(points) != 4:
        raise TypeError(f"Argument {name} should be a sequence of 4 points, but got {points!r}.")
    for k, point in enumerate(points):
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise TypeError(f"{name}[{k}] should be a sequence of 2 numbers, but got {point!r}.")
        for v in point:
            check_type(v, (int,), f"{name}[{k}]")
            check_range(v, -INT32_MAX, INT32_MAX, f"{name}[{k}]")
    return [tuple(float(v) for v in p) for p in points]


def perspective_matrix(start_points, end_points):
    """The 3x3 matrix mapping the 4 ``start_points`` to ``end_points`` (``cv::getPerspectiveTransform``)."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for k, ((x, y), (u, v)) in enumerate(zip(start_points, end_points)):
        a[k] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[k + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[k], b[k + 4] = u, v
    solution = np.linalg.solve(a, b)
    return np.append(solution, 1.0).reshape(3, 3)


class Perspective(ImageTensorOperation):
    """Warp so that the four ``start_points`` land on the ``end_points`` (lists of [x, y])."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points = _check_points(start_points, "start_points")
        self.end_points = _check_points(end_points, "end_points")
        self.interpolation = check_inter(interpolation)

    def _transform(self, images):
        h, w = images.shape[-3], images.shape[-2]
        matrix = perspective_matrix(self.start_points, self.end_points)
        return cv_warp.warp_perspective(images, matrix, h, w, _warp_modes(self.interpolation), (0, 0, 0))

    def _compute_pil(self, image):
        coefficients = _pil_perspective_coefficients(self.start_points, self.end_points)
        return image.transform(image.size, 2, coefficients, _PIL_RESAMPLE[self.interpolation])


def _pil_perspective_coefficients(start_points, end_points):
    """PIL's 8 perspective coefficients (output to input) for the given point pairs."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for k, ((x, y), (u, v)) in enumerate(zip(end_points, start_points)):
        a[2 * k] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * k + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
        b[2 * k], b[2 * k + 1] = u, v
    return np.linalg.lstsq(a, b, rcond=None)[0].tolist()


def _require_pil(image):
    if not is_pil(image):
        raise TypeError(f"img should be PIL image. Got {type(image)}. Use Decode() for encoded data or ToPIL() for "
                        "decoded data.")


class RandomPerspective(PyTensorOperation):
    """With probability ``prob``, a random perspective warp of a PIL image (corners moved by up to
    ``distortion_scale`` of half the size)."""

    _deterministic = False

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        check_number(distortion_scale, "distortion_scale")
        check_range(distortion_scale, 0, 1, "distortion_scale")
        self.distortion_scale = float(distortion_scale)
        self.prob = check_prob(prob)
        self.interpolation = check_inter(interpolation)

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        _require_pil(image)
        rng = generator()
        if rng.random() >= self.prob:
            return image
        width, height = image.size
        half_h, half_w = height // 2, width // 2
        dh, dw = int(self.distortion_scale * half_h), int(self.distortion_scale * half_w)
        pick = lambda high: int(rng.integers(0, high + 1))  # noqa: E731
        start = [(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)]
        end = [(pick(dw), pick(dh)), (width - 1 - pick(dw), pick(dh)),
               (width - 1 - pick(dw), height - 1 - pick(dh)), (pick(dw), height - 1 - pick(dh))]
        coefficients = _pil_perspective_coefficients(start, end)
        return image.transform(image.size, 2, coefficients, _PIL_RESAMPLE[self.interpolation])


class FiveCrop(PyTensorOperation):
    """The four corners and the centre of a PIL image, each of ``size`` (a tuple of 5 PIL images)."""

    def __init__(self, size):
        self.size = size_pair(size)

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        _require_pil(image)
        width, height = image.size
        ch, cw = self.size
        if ch > height or cw > width:
            raise ValueError(f"Crop size {self.size} is larger than input image size {(height, width)}.")
        top = int(round((height - ch) / 2.0))
        left = int(round((width - cw) / 2.0))
        return (image.crop((0, 0, cw, ch)), image.crop((width - cw, 0, width, ch)),
                image.crop((0, height - ch, cw, height)), image.crop((width - cw, height - ch, width, height)),
                image.crop((left, top, left + cw, top + ch)))


class TenCrop(PyTensorOperation):
    """:class:`FiveCrop` of the image and of its mirror (horizontal, or vertical with ``use_vertical_flip``)."""

    def __init__(self, size, use_vertical_flip=False):
        self.size = size_pair(size)
        check_type(use_vertical_flip, (bool,), "use_vertical_flip")
        self.use_vertical_flip = use_vertical_flip

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        _require_pil(image)
        five = FiveCrop(self.size)
        flipped = image.transpose(1 if self.use_vertical_flip else 0)
        return five._apply_row(image) + five._apply_row(flipped)


class SlicePatches(ImageTensorOperation):
    """Cut the image into ``num_height`` x ``num_width`` patches (one output column each); the
    remainder is padded with ``fill_value`` (``SliceMode.PAD``) or dropped (``SliceMode.DROP``)."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        for name, value in (("num_height", num_height), ("num_width", num_width)):
            check_type(value, (int,), name)
            check_range(value, 1, 512, name)
        if not isinstance(slice_mode, SliceMode):
            raise TypeError(f"Argument slice_mode with value {slice_mode!r} is not of type ['SliceMode'].")
        check_type(fill_value, (int,), "fill_value")
        check_range(fill_value, 0, 255, "fill_value")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode = slice_mode
        self.fill_value = fill_value

    def _check(self, image):
        require_rank(image, "SlicePatches")
        if self.num_height > image.shape[0]:
            raise RuntimeError("SlicePatches: The number of patches on height axis equals 0 or is greater than "
                               f"height, got number of patches:{self.num_height}")
        if self.num_width > image.shape[1]:
            raise RuntimeError("SlicePatches: The number of patches on width axis equals 0 or is greater than "
                               f"width, got number of patches:{self.num_width}")

    def _patches(self, images):
        h, w = images.shape[-3], images.shape[-2]
        ph, pw = h // self.num_height, w // self.num_width
        if self.slice_mode == SliceMode.PAD:
            ph += 1 if h % self.num_height else 0
            pw += 1 if w % self.num_width else 0
            images = pad_image(images, 0, ph * self.num_height - h, 0, pw * self.num_width - w, Border.CONSTANT,
                               (self.fill_value,) * 4)
        return tuple(images[..., i * ph:(i + 1) * ph, j * pw:(j + 1) * pw, :].copy()
                     for i in range(self.num_height) for j in range(self.num_width))

    def _compute(self, image):
        self._check(image)
        if self.num_height == 1 and self.num_width == 1:
            return image
        hwc, was_2d = to_hwc(image)
        return tuple(from_hwc(p, was_2d) for p in self._patches(hwc))

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].ndim not in (3, 4):
            return None
        stack = columns[0]
        self._check(stack[0])
        if self.num_height == 1 and self.num_width == 1:
            return [stack]
        hwc, was_2d = (stack[..., None], True) if stack.ndim == 3 else (stack, False)
        return [p[..., 0] if was_2d else p for p in self._patches(hwc)]
