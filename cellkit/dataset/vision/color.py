"""Transforms of colour and tone: brightness, contrast, saturation, hue, gamma, sharpness,
auto-contrast, equalisation, inversion, posterisation, solarisation, grey, HSV, blur, lighting.

NumPy images follow MindSpore's C++ (OpenCV) arithmetic; PIL images go through Pillow's
``ImageEnhance``/``ImageOps``, as MindSpore's Python implementations do.

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> image = np.full((2, 2, 3), 100, np.uint8)
>>> int(vision.AdjustBrightness(1.5)(image)[0, 0, 0]), int(vision.Invert()(image)[0, 0, 0])
(150, 155)
"""
from __future__ import annotations

import numbers

import numpy as np

from ..engine.randomness import generator
from ..transforms.base import PyTensorOperation, is_pil
from .base import ImageTensorOperation, require_rank
from .checks import (FLOAT_MAX_INTEGER, check_number, check_prob, check_range, check_range_pair, check_type)
from .cv import color as cvc
from .cv import filters as cvf
from .utils import ConvertMode

__all__ = ["AdjustBrightness", "AdjustContrast", "AdjustSaturation", "AdjustHue", "AdjustGamma", "AdjustSharpness",
           "AutoContrast", "Equalize", "Invert", "Posterize", "Solarize", "RandomColorAdjust", "RandomColor",
           "RandomSharpness", "RandomAdjustSharpness", "RandomAutoContrast", "RandomEqualize", "RandomInvert",
           "RandomPosterize", "RandomSolarize", "RandomGrayscale", "Grayscale", "ConvertColor", "RgbToHsv",
           "HsvToRgb", "GaussianBlur", "RandomLighting", "LinearTransformation",
           "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "sharpen"]

_F32 = np.float32


def _require_hwc3(image, name):
    if image.ndim != 3:
        raise RuntimeError(f"{name}: the dimension of image tensor does not match the requirement of operator. "
                           f"Expecting tensor in dimension of (3), in shape of <H, W, C>. But got dimension "
                           f"{image.ndim}.")
    if image.shape[-1] != 3:
        raise RuntimeError(f"{name}: the channel of image tensor does not match the requirement of operator. "
                           f"Expecting tensor in channel of (3). But got channel {image.shape[-1]}.")


def _pil_or_array(result_array, image):
    from PIL import Image

    return Image.fromarray(result_array) if is_pil(image) else result_array


# ---------------------------------------------------------------------------------- the arithmetic
def _weights(factor):
    """(1 - factor, factor) as MindSpore's C++ forms them from a float32 factor."""
    f = _F32(factor)
    return 1.0 - float(f), float(f)


def adjust_brightness(images, factor):
    return cvc.scale(images, factor)


def adjust_contrast(images, factor):
    """Blend with the mean grey level (an integer, as MindSpore rounds it)."""
    gray = cvc.rgb_to_gray(images)
    mean = gray.astype(np.float64).mean(axis=(-2, -1))
    if images.dtype == np.uint8:  # MindSpore rounds the mean grey level of 8-bit images
        level = np.clip(np.floor(mean + 0.5), 0, 255).astype(np.uint8)
    else:
        level = mean.astype(images.dtype)
    constant = np.broadcast_to(level[..., None, None, None], images.shape)
    rest, keep = _weights(factor)
    return cvc.blend(constant, rest, images, keep, dtype=images.dtype)


def adjust_saturation(images, factor):
    gray = cvc.gray_to_rgb(cvc.rgb_to_gray(images))
    rest, keep = _weights(factor)
    return cvc.blend(gray, rest, images, keep, dtype=images.dtype)


def adjust_hue(images, factor):
    if images.dtype != np.uint8:
        raise RuntimeError(f"AdjustHue: the image should be uint8, but got {images.dtype}. (MindSpore 2.10 gives "
                           "meaningless values for other types; cellkit refuses them.)")
    hsv = cvc.rgb_to_hsv_full(images)
    shift = np.uint8(int(factor * 255) & 0xFF)
    hsv[..., 0] = (hsv[..., 0] + shift).astype(np.uint8)
    return cvc.hsv_full_to_rgb(hsv)


def sharpen(images, factor):
    """Blend with a smoothed copy (3x3 kernel [1 1 1; 1 5 1; 1 1 1]/13), borders kept, as MindSpore does."""
    blurred = cvf.sharpness_blur(images)
    rest, keep = _weights(factor)
    return cvc.blend(images, keep, blurred, rest, dtype=images.dtype)


# ---------------------------------------------------------------------------------- adjustments
def _factor(value, name, high=FLOAT_MAX_INTEGER):
    check_number(value, name)
    check_range(value, 0, high, name)
    return float(value)


class _ColorOp(ImageTensorOperation):
    _needs_hwc3 = True

    def _check(self, image):
        if self._needs_hwc3:
            _require_hwc3(image, self.name)
        else:
            require_rank(image, self.name)


class AdjustBrightness(_ColorOp):
    """Scale the brightness by ``brightness_factor`` (0 gives black, 1 the image)."""

    _needs_hwc3 = False

    def __init__(self, brightness_factor):
        self.brightness_factor = _factor(brightness_factor, "brightness_factor")

    def _transform(self, images):
        return adjust_brightness(images, self.brightness_factor)

    def _compute_pil(self, image):
        from PIL import ImageEnhance

        return ImageEnhance.Brightness(image).enhance(self.brightness_factor)


class AdjustContrast(_ColorOp):
    """Blend with the mean grey level by ``contrast_factor`` (0 gives flat grey, 1 the image)."""

    def __init__(self, contrast_factor):
        self.contrast_factor = _factor(contrast_factor, "contrast_factor")

    def _transform(self, images):
        return adjust_contrast(images, self.contrast_factor)

    def _compute_pil(self, image):
        from PIL import ImageEnhance

        return ImageEnhance.Contrast(image).enhance(self.contrast_factor)


class AdjustSaturation(_ColorOp):
    """Blend with the grey image by ``saturation_factor`` (0 gives grey, 1 the image)."""

    def __init__(self, saturation_factor):
        self.saturation_factor = _factor(saturation_factor, "saturation_factor")

    def _transform(self, images):
        return adjust_saturation(images, self.saturation_factor)

    def _compute_pil(self, image):
        from PIL import ImageEnhance

        return ImageEnhance.Color(image).enhance(self.saturation_factor)


class AdjustHue(_ColorOp):
    """Rotate the hue by ``hue_factor`` of a full turn (in [-0.5, 0.5])."""

    def __init__(self, hue_factor):
        check_number(hue_factor, "hue_factor")
        check_range(hue_factor, -0.5, 0.5, "hue_factor")
        self.hue_factor = float(hue_factor)

    def _transform(self, images):
        return adjust_hue(images, self.hue_factor)

    def _compute_pil(self, image):
        return _pil_adjust_hue(image, self.hue_factor)


def _pil_adjust_hue(image, factor):
    from PIL import Image

    if image.mode in ("L", "1", "I", "F"):
        return image
    mode = image.mode
    h, s, v = image.convert("HSV").split()
    shifted = (np.asarray(h, dtype=np.uint8).astype(np.int64) + int(factor * 255)) % 256
    h = Image.fromarray(shifted.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


class AdjustGamma(_ColorOp):
    """``gain * image ** gamma`` on [0, 1] (uint8 through a lookup table, floats clamped to [0, 1])."""

    _needs_hwc3 = False

    def __init__(self, gamma, gain=1):
        check_number(gamma, "gamma")
        check_range(gamma, 0, FLOAT_MAX_INTEGER, "gamma")
        check_number(gain, "gain")
        self.gamma = float(gamma)
        self.gain = float(gain)

    def _check(self, image):
        if image.ndim < 2:
            raise RuntimeError(f"AdjustGamma: input tensor is not in shape of <...,H,W,C> or <H,W>, got shape: "
                               f"{list(image.shape)}")
        channels = 1 if image.ndim == 2 else image.shape[-1]
        if channels not in (1, 3):
            raise RuntimeError(f"AdjustGamma: channel of input image should be 1 or 3, but got: {channels}")

    def _transform(self, images):
        if images.dtype.kind == "f":
            out = np.power((images * images.dtype.type(self.gain)).astype(_F32), _F32(self.gamma)).astype(_F32)
            return np.clip(out, 0, 1).astype(images.dtype)
        levels = (np.arange(256) / 255.0).astype(_F32)
        powered = np.power(levels.astype(np.float64), np.float64(_F32(self.gamma))).astype(_F32)
        lut = np.floor(np.minimum(powered.astype(np.float64) * (255.0 + 1 - 1e-3) * self.gain, 255.0))
        lut = lut.astype(np.int64).astype(np.uint8)
        return lut[images.astype(np.int64)] if images.dtype == np.uint8 else lut[np.clip(images, 0, 255)].astype(
            images.dtype)

    def _compute_pil(self, image):
        bands = len(image.getbands())
        if bands not in (1, 3):
            return image
        table = [int((256 - 1e-3) * self.gain * pow(v / 255.0, self.gamma)) for v in range(256)]
        return image.point(table * bands)


class AdjustSharpness(_ColorOp):
    """Blend with a smoothed copy by ``sharpness_factor`` (0 blurs, 1 keeps, 2 sharpens)."""

    _needs_hwc3 = False

    def __init__(self, sharpness_factor):
        self.sharpness_factor = _factor(sharpness_factor, "sharpness_factor")

    def _check(self, image):
        require_rank(image, "AdjustSharpness")
        channels = 1 if image.ndim == 2 else image.shape[-1]
        if channels not in (1, 3):
            raise RuntimeError(f"AdjustSharpness: channel of input image should be 1 or 3, but got: {channels}")

    def _transform(self, images):
        return sharpen(images, self.sharpness_factor)


def _check_cutoff_ignore(cutoff, ignore):
    check_number(cutoff, "cutoff")
    check_range(cutoff, 0, 50, "cutoff", open_high=True)
    if ignore is not None:
        if isinstance(ignore, int) and not isinstance(ignore, bool):
            ignore = [ignore]
        check_type(ignore, (list, tuple), "ignore")
        for k, value in enumerate(ignore):
            check_type(value, (int,), f"ignore[{k}]")
            check_range(value, 0, 255, f"ignore[{k}]")
    return float(cutoff), list(ignore or [])


def auto_contrast_channel(channel, cutoff, ignore):
    """MindSpore's auto-contrast lookup for one uint8 channel (``cutoff`` truncated to a whole percent)."""
    hist = np.bincount(channel.reshape(-1), minlength=256).astype(np.int64)
    for value in ignore:
        hist[value] = 0
    total = int(hist.sum())
    percent = int(cutoff)  # MindSpore passes the cutoff through an int32 parameter
    cut = int(_F32(percent / _F32(100.0)) * total)
    for index in range(256):
        if cut <= 0:
            break
        take = min(cut, hist[index])
        hist[index] -= take
        cut -= take
    cut = int(_F32(percent / _F32(100.0)) * total)
    for index in range(255, -1, -1):
        if cut <= 0:
            break
        take = min(cut, hist[index])
        hist[index] -= take
        cut -= take
    nonzero = np.flatnonzero(hist)
    lo = int(nonzero[0]) if len(nonzero) else 255
    hi = int(nonzero[-1]) if len(nonzero) else -1
    lo = min(lo, 255)
    if hi <= lo:
        return channel.copy()
    factor = _F32(255.0 / (hi - lo))
    offset = _F32(-1 * lo * factor)
    table = (np.arange(256, dtype=_F32) * factor + offset).astype(_F32)
    table = np.clip(np.trunc(table).astype(np.int64), 0, 255)
    return table[channel].astype(channel.dtype)


class AutoContrast(_ColorOp):
    """Stretch each channel's histogram to the full range, after cutting ``cutoff`` percent at both
    ends and ignoring the ``ignore`` levels."""

    _needs_hwc3 = False
    _stackable = False

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff, self.ignore = _check_cutoff_ignore(cutoff, ignore)

    def _check(self, image):
        if image.ndim not in (2, 3):
            raise RuntimeError(f"AutoContrast: image rank should be 2 or 3,  but got: {image.ndim}")
        channels = 1 if image.ndim == 2 else image.shape[-1]
        if channels not in (1, 3):
            raise RuntimeError(f"AutoContrast: channel of input image should be 1 or 3, but got: {channels}")
        if image.dtype != np.uint8:
            raise RuntimeError(f"AutoContrast: the image should be uint8, but got {image.dtype}.")

    def _transform(self, image):
        return np.stack([auto_contrast_channel(image[..., c], self.cutoff, self.ignore)
                         for c in range(image.shape[-1])], axis=-1)

    def _compute_pil(self, image):
        from PIL import ImageOps

        return ImageOps.autocontrast(image, cutoff=self.cutoff, ignore=self.ignore or None)


class Equalize(_ColorOp):
    """Equalise each channel's histogram (OpenCV's ``equalizeHist``)."""

    _needs_hwc3 = False
    _stackable = False

    def _check(self, image):
        if image.ndim not in (2, 3):
            raise RuntimeError(f"Equalize: image rank should be 2 or 3,  but got: {image.ndim}")
        channels = 1 if image.ndim == 2 else image.shape[-1]
        if channels not in (1, 3):
            raise RuntimeError(f"Equalize: channel of input image should be 1 or 3, but got: {channels}")
        if image.dtype != np.uint8:
            raise RuntimeError(f"Equalize: the image should be uint8, but got {image.dtype}.")

    def _transform(self, image):
        return np.stack([cvc.equalize_channel(image[..., c]) for c in range(image.shape[-1])], axis=-1)

    def _compute_pil(self, image):
        from PIL import ImageOps

        return ImageOps.equalize(image)


class Invert(_ColorOp):
    """``255 - image`` for each channel."""

    def _check(self, image):
        if image.ndim != 3:
            raise RuntimeError(f"Invert: input tensor is not in shape of <H,W,C>, but got rank: {image.ndim}")
        if image.shape[-1] != 3:
            raise RuntimeError(f"Invert: the number of channels of input tensor is not 3, but got: {image.shape[-1]}")

    def _transform(self, images):
        if images.dtype == np.uint8:
            return (255 - images).astype(np.uint8)
        return (images.dtype.type(255) - images).astype(images.dtype)

    def _compute_pil(self, image):
        from PIL import ImageOps

        return ImageOps.invert(image)


class Posterize(_ColorOp):
    """Keep the ``bits`` highest bits of every channel value (uint8 or int8 images)."""

    _needs_hwc3 = False

    def __init__(self, bits):
        check_type(bits, (int,), "bits")
        check_range(bits, 0, 8, "bits")
        self.bits = bits

    def _check(self, image):
        require_rank(image, "Posterize", (2, 3))
        if image.dtype not in (np.uint8, np.int8):
            raise RuntimeError(f"Posterize: data type of input image should be int8 or uint8, but got {image.dtype}")

    def _transform(self, images):
        mask = np.uint8((~((1 << (8 - self.bits)) - 1)) & 0xFF)
        return (images.view(np.uint8) & mask).view(images.dtype)


def _threshold_pair(threshold, name="threshold"):
    if isinstance(threshold, numbers.Number) and not isinstance(threshold, bool):
        check_range(threshold, 0, 255, name)
        return float(threshold), 255.0
    return check_range_pair(threshold, name, 0, 255)


class Solarize(_ColorOp):
    """Invert the values within ``threshold`` (min, max) -- a single number t means [t, 255]."""

    _needs_hwc3 = False

    def __init__(self, threshold):
        self.threshold = _threshold_pair(threshold)

    def _check(self, image):
        require_rank(image, "Solarize", (2, 3))
        channels = 1 if image.ndim == 2 else image.shape[-1]
        if channels not in (1, 3):
            raise RuntimeError(f"Solarize: channel of input image should be 1 or 3, but got: {channels}")

    def _transform(self, images):
        low, high = self.threshold
        inside = (images >= low) & (images <= high)
        inverted = (images.dtype.type(255) - images).astype(images.dtype)
        return np.where(inside, inverted, images)


# ---------------------------------------------------------------------------------- random versions
class _RandomApplied(ImageTensorOperation):
    """Applies ``_inner`` to each image with probability ``prob`` (per image in a block)."""

    _deterministic = False

    def _inner(self, images):
        raise NotImplementedError

    def _check(self, image):
        self._inner_op()._check(image)

    def _transform(self, images):
        lead = images.shape[:-3]
        if not lead:
            return self._inner(images) if generator().random() < self.prob else images
        count = int(np.prod(lead))
        chosen = np.flatnonzero(generator().random(count) < self.prob)
        flat = images.reshape((count,) + images.shape[-3:])
        out = flat.copy()
        if self._inner_op()._stackable:
            if len(chosen):
                out[chosen] = self._inner(flat[chosen])
        else:
            for i in chosen:
                out[i] = self._inner(flat[i])
        return out.reshape(images.shape)


class RandomAutoContrast(_RandomApplied):
    """:class:`AutoContrast` with probability ``prob``."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self.cutoff, self.ignore = _check_cutoff_ignore(cutoff, ignore)
        self.prob = check_prob(prob)

    def _inner_op(self):
        return AutoContrast(self.cutoff, self.ignore)

    def _check(self, image):
        if image.ndim == 3 and image.shape[-1] != 3:
            raise RuntimeError(f"RandomAutoContrast: image shape is incorrect, expected num of channels is 3, but "
                               f"got: {image.shape[-1]}")
        AutoContrast()._check(image)

    def _inner(self, images):
        return self._inner_op()._transform(images)


class RandomEqualize(_RandomApplied):
    """:class:`Equalize` with probability ``prob``."""

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob)

    def _inner_op(self):
        return Equalize()

    def _check(self, image):
        if image.dtype != np.uint8:
            raise RuntimeError(f"RandomEqualize: input image is not in type of uint8, but got: {image.dtype}")
        Equalize()._check(image)

    def _inner(self, images):
        return Equalize()._transform(images)


class RandomInvert(_RandomApplied):
    """:class:`Invert` with probability ``prob``."""

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob)

    def _inner_op(self):
        return Invert()

    def _check(self, image):
        if image.ndim != 3:
            raise RuntimeError(f"RandomInvert: image shape is not <H,W,C>, got rank: {image.ndim}")
        if image.shape[-1] != 3:
            raise RuntimeError(f"RandomInvert: image shape is incorrect, expected num of channels is 3, but got:"
                               f"{image.shape[-1]}")

    def _inner(self, images):
        return Invert()._transform(images)


class RandomAdjustSharpness(_RandomApplied):
    """:class:`AdjustSharpness` by ``degree`` with probability ``prob``."""

    def __init__(self, degree, prob=0.5):
        self.degree = _factor(degree, "degree")
        self.prob = check_prob(prob)

    def _inner_op(self):
        return AdjustSharpness(self.degree)

    def _inner(self, images):
        return sharpen(images, self.degree)


def _range_from(value, name, low=0.0, high=FLOAT_MAX_INTEGER, center=1.0, bound=None):
    """A factor range: a number v means [max(0, center - v), center + v]; a pair is taken as it is."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        check_range(value, 0, high if bound is None else bound, name)
        return max(low, center - value), center + value
    return check_range_pair(value, name, low, high)


class RandomColorAdjust(ImageTensorOperation):
    """Random brightness, contrast, saturation and hue factors (from ranges, or numbers meaning
    1 ± v and ± v for hue), applied in that order."""

    _deterministic = False
    _stackable = False

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _range_from(brightness, "brightness")
        self.contrast = _range_from(contrast, "contrast")
        self.saturation = _range_from(saturation, "saturation")
        if isinstance(hue, numbers.Number) and not isinstance(hue, bool):
            check_range(hue, 0, 0.5, "hue")
            self.hue = (-float(hue), float(hue))
        else:
            self.hue = check_range_pair(hue, "hue", -0.5, 0.5)

    def _check(self, image):
        _require_hwc3(image, "RandomColorAdjust")

    def _factors(self):
        rng = generator()
        return [low + rng.random() * (high - low)
                for low, high in (self.brightness, self.contrast, self.saturation, self.hue)]

    def _transform(self, images):
        # MindSpore applies the four adjustments in a random order (a range of exactly 1, or 0 for
        # hue, is skipped)
        b, c, s, h = self._factors()
        steps = [(self.brightness != (1.0, 1.0), adjust_brightness, b),
                 (self.contrast != (1.0, 1.0), adjust_contrast, c),
                 (self.saturation != (1.0, 1.0), adjust_saturation, s),
                 (self.hue != (0.0, 0.0), adjust_hue, h)]
        for k in generator().permutation(4):
            active, step, factor = steps[k]
            if active:
                images = step(images, factor)
        return images

    def _compute_pil(self, image):
        from PIL import ImageEnhance

        b, c, s, h = self._factors()
        image = ImageEnhance.Brightness(image).enhance(b)
        image = ImageEnhance.Contrast(image).enhance(c)
        image = ImageEnhance.Color(image).enhance(s)
        return _pil_adjust_hue(image, h)


class RandomColor(_ColorOp):
    """Blend with the grey image by a factor drawn from ``degrees`` (min, max)."""

    _deterministic = False
    _stackable = False

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = check_range_pair(degrees, "degrees", 0, FLOAT_MAX_INTEGER)

    def _check(self, image):
        if image.ndim != 3 or image.shape[-1] != 3:
            raise RuntimeError(f"RandomColor: image shape is not <H,W,C> or channel is not 3, got rank: {image.ndim}, "
                               f"and shape: <{','.join(str(d) for d in image.shape)}>")

    def _factor(self):
        low, high = self.degrees
        return low + generator().random() * (high - low)

    def _transform(self, images):
        return adjust_saturation(images, self._factor())

    def _compute_pil(self, image):
        from PIL import ImageEnhance

        return ImageEnhance.Color(image).enhance(self._factor())


class RandomSharpness(_ColorOp):
    """:class:`AdjustSharpness` by a factor drawn from ``degrees`` (min, max)."""

    _deterministic = False
    _stackable = False
    _needs_hwc3 = False

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = check_range_pair(degrees, "degrees", 0, FLOAT_MAX_INTEGER)

    def _factor(self):
        low, high = self.degrees
        return low + generator().random() * (high - low)

    def _transform(self, images):
        return sharpen(images, self._factor())

    def _compute_pil(self, image):
        from PIL import ImageEnhance

        return ImageEnhance.Sharpness(image).enhance(self._factor())


class RandomPosterize(ImageTensorOperation):
    """:class:`Posterize` with a number of bits drawn from ``bits`` (min, max)."""

    _deterministic = False
    _stackable = False

    def __init__(self, bits=(8, 8)):
        if isinstance(bits, int) and not isinstance(bits, bool):
            check_range(bits, 1, 8, "bits")
            bits = (bits, bits)
        if not isinstance(bits, (list, tuple)) or len(bits) != 2:
            raise TypeError(f"Argument bits should be an int or a sequence of 2 ints, but got {bits!r}.")
        for k, b in enumerate(bits):
            check_type(b, (int,), f"bits[{k}]")
            check_range(b, 1, 8, f"bits[{k}]")
        if bits[0] > bits[1]:
            raise ValueError(f"bits should be in (min, max) format, but got {tuple(bits)}.")
        self.bits = tuple(bits)

    def _check(self, image):
        Posterize(8)._check(image)

    def _transform(self, images):
        low, high = self.bits
        return Posterize(int(generator().integers(low, high + 1)))._transform(images)


class RandomSolarize(ImageTensorOperation):
    """:class:`Solarize` with a threshold range drawn from ``threshold`` (min, max)."""

    _deterministic = False
    _stackable = False

    def __init__(self, threshold=(0, 255)):
        if not isinstance(threshold, (list, tuple)) or len(threshold) != 2:
            raise TypeError(f"Argument threshold should be a sequence of 2 ints, but got {threshold!r}.")
        for k, t in enumerate(threshold):
            check_type(t, (int,), f"threshold[{k}]")
            check_range(t, 0, 255, f"threshold[{k}]")
        if threshold[0] > threshold[1]:
            raise ValueError(f"threshold should be in (min, max) format, but got {tuple(threshold)}.")
        self.threshold = tuple(threshold)

    def _check(self, image):
        Solarize(0)._check(image)

    def _transform(self, images):
        low, high = self.threshold
        threshold = int(generator().integers(low, high + 1))
        return Solarize((threshold, 255))._transform(images)


class RandomLighting(_ColorOp):
    """AlexNet's PCA lighting noise: add a random combination (scale ``alpha``) of the RGB eigenvectors."""

    _deterministic = False
    _stackable = False
    _EIGEN = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                       [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                       [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=_F32)

    def __init__(self, alpha=0.05):
        check_number(alpha, "alpha")
        check_range(alpha, 0, FLOAT_MAX_INTEGER, "alpha")
        self.alpha = float(alpha)

    def _check(self, image):
        if image.ndim != 3 or image.shape[-1] != 3:
            raise RuntimeError(f"RandomLighting: input tensor is not in shape of <H,W,C> or channel is not 3, got "
                               f"rank: {image.ndim}, and shape: <{','.join(str(d) for d in image.shape)}>")

    def _transform(self, images):
        noise = (generator().normal(0.0, self.alpha, 3) if self.alpha > 0 else np.zeros(3)).astype(_F32)
        shift = (self._EIGEN * noise[None, :]).sum(axis=1).astype(_F32)
        values = images.astype(_F32) + shift
        if images.dtype == np.uint8:
            return np.clip(np.rint(values), 0, 255).astype(np.uint8)
        return values.astype(images.dtype)


# ---------------------------------------------------------------------------------- grey, conversions
def _require_pil(image):
    if not is_pil(image):
        raise TypeError(f"img should be PIL image. Got {type(image)}. Use Decode() for encoded data or ToPIL() for "
                        "decoded data.")


class Grayscale(PyTensorOperation):
    """A PIL image in grey (1 channel, or 3 equal channels with ``num_output_channels=3``)."""

    def __init__(self, num_output_channels=1):
        check_type(num_output_channels, (int,), "num_output_channels")
        if num_output_channels not in (1, 3):
            raise ValueError(f"num_output_channels should be 1 or 3, but got {num_output_channels}.")
        self.num_output_channels = num_output_channels

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        _require_pil(image)
        gray = image.convert("L")
        return gray.convert("RGB") if self.num_output_channels == 3 else gray


class RandomGrayscale(PyTensorOperation):
    """:class:`Grayscale` (keeping the number of channels) with probability ``prob``, on PIL images."""

    _deterministic = False

    def __init__(self, prob=0.1):
        self.prob = check_prob(prob)

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        _require_pil(image)
        if generator().random() < self.prob:
            channels = 3 if image.mode == "RGB" else 1
            return Grayscale(channels)._apply_row(image)
        return image


_CONVERSIONS = {
    # mode value: (input channels, function of an (..., H, W, C) image)
    0: (3, lambda x: np.concatenate([x, _alpha(x)], axis=-1)),
    1: (4, lambda x: x[..., :3]),
    2: (3, lambda x: np.concatenate([x[..., ::-1], _alpha(x)], axis=-1)),
    3: (4, lambda x: x[..., 2::-1]),
    4: (3, lambda x: x[..., ::-1]),
    5: (4, lambda x: np.concatenate([x[..., 2::-1], x[..., 3:]], axis=-1)),
    6: (3, lambda x: cvc.rgb_to_gray(x[..., ::-1])),
    7: (3, lambda x: cvc.rgb_to_gray(x)),
    8: (1, lambda x: np.repeat(x, 3, axis=-1)),
    9: (1, lambda x: np.concatenate([np.repeat(x, 3, axis=-1), _alpha(x)], axis=-1)),
    10: (4, lambda x: cvc.rgb_to_gray(x[..., 2::-1])),
    11: (4, lambda x: cvc.rgb_to_gray(x[..., :3])),
}


def _alpha(x):
    full = 255 if x.dtype == np.uint8 else (65535 if x.dtype == np.uint16 else 1)
    return np.full(x.shape[:-1] + (1,), full, dtype=x.dtype)


class ConvertColor(ImageTensorOperation):
    """Convert between RGB, BGR, RGBA, BGRA and grey (``ConvertMode``)."""

    def __init__(self, convert_mode):
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(f"Argument convert_mode with value {convert_mode!r} is not of type ['ConvertMode'], "
                            f"but got {type(convert_mode).__name__}.")
        self.convert_mode = convert_mode

    def _check(self, image):
        require_rank(image, "ConvertColor")
        channels = 1 if image.ndim == 2 else image.shape[-1]
        wanted = _CONVERSIONS[int(self.convert_mode)][0]
        if channels == 1 and wanted == 3 and int(self.convert_mode) not in (6, 7):
            return  # MindSpore converts a grey image as if its one channel were repeated
        if image.ndim == 3 and channels not in (1, 3, 4):
            raise RuntimeError(f"ConvertColor: number of channels of image should be 3 or 4, but got:{channels}")
        if channels != wanted:
            raise RuntimeError(f"ConvertColor: {self.convert_mode.name} needs an image with {wanted} channel(s), "
                               f"but got {channels}.")

    def _compute(self, image):
        self._check(image)
        wanted = _CONVERSIONS[int(self.convert_mode)][0]
        hwc = image[..., None] if image.ndim == 2 else image
        if hwc.shape[-1] == 1 and wanted == 3:
            hwc = np.repeat(hwc, 3, axis=-1)
        return np.ascontiguousarray(_CONVERSIONS[int(self.convert_mode)][1](hwc))

    def _apply_block(self, columns):
        return None


def _rgb_to_hsv_float(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc = np.maximum(np.maximum(r, g), b)
    minc = np.minimum(np.minimum(r, g), b)
    v = maxc
    delta = maxc - minc
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(maxc != 0, delta / np.where(maxc != 0, maxc, 1), 0.0)
        dz = np.where(delta != 0, delta, 1)
        rc, gc, bc = (maxc - r) / dz, (maxc - g) / dz, (maxc - b) / dz
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta == 0, 0.0, (h / 6.0) % 1.0)
    return np.stack([h, s, v], axis=-1)


def _hsv_to_rgb_float(hsv):
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = i.astype(np.int64) % 6
    choices = [np.stack(c, axis=-1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))]
    out = np.select([(i == k)[..., None] for k in range(6)], choices)
    return np.where((s == 0)[..., None], np.stack([v, v, v], axis=-1), out)


class _HsvBase(PyTensorOperation):
    def __init__(self, is_hwc=False):
        check_type(is_hwc, (bool,), "is_hwc")
        self.is_hwc = is_hwc

    def __call__(self, image):
        return self._apply_row(np.asarray(image))

    def _apply_row(self, image):
        image = np.asarray(image)
        if image.ndim not in (3, 4):
            raise TypeError(f"img shape should be (H, W, C)/(N, H, W, C)/(C, H, W)/(N, C, H, W). Got {image.shape}.")
        axis = -1 if self.is_hwc else -3
        if image.shape[axis] != 3:
            raise TypeError(f"img should be 3 channels RGB img. Got {image.shape[axis]} channels.")
        moved = np.moveaxis(image, axis, -1).astype(np.float64)
        return np.moveaxis(self._convert(moved), -1, axis)


class RgbToHsv(_HsvBase):
    """RGB values in [0, 1] to HSV (each in [0, 1]); channels first unless ``is_hwc``."""

    def _convert(self, rgb):
        return _rgb_to_hsv_float(rgb)


class HsvToRgb(_HsvBase):
    """HSV values (each in [0, 1]) to RGB; channels first unless ``is_hwc``."""

    def _convert(self, hsv):
        return _hsv_to_rgb_float(hsv)


class GaussianBlur(ImageTensorOperation):
    """Gaussian smoothing with an odd ``kernel_size`` (int or (x, y)) and ``sigma`` (derived from the
    kernel size when not given), edges reflected (OpenCV's ``GaussianBlur``)."""

    def __init__(self, kernel_size, sigma=None):
        if isinstance(kernel_size, int) and not isinstance(kernel_size, bool):
            kernel_size = (kernel_size, kernel_size)
        if not isinstance(kernel_size, (list, tuple)) or len(kernel_size) != 2:
            raise TypeError(f"Argument kernel_size should be an int or a sequence of 2 ints, but got {kernel_size!r}.")
        for k, v in enumerate(kernel_size):
            check_type(v, (int,), f"kernel_size[{k}]")
            check_range(v, 1, 2147483647, f"kernel_size[{k}]")
            if v % 2 == 0:
                raise ValueError(f"Input kernel_size[{k}] is not an odd value, but got {v}.")
        if sigma is None:
            sigma = (0.0, 0.0)
        elif isinstance(sigma, numbers.Number) and not isinstance(sigma, bool):
            check_range(sigma, 0, FLOAT_MAX_INTEGER, "sigma")
            sigma = (float(sigma), float(sigma))
        else:
            if not isinstance(sigma, (list, tuple)) or len(sigma) != 2:
                raise TypeError(f"Argument sigma should be a number or a sequence of 2 numbers, but got {sigma!r}.")
            for k, v in enumerate(sigma):
                check_number(v, f"sigma[{k}]")
                check_range(v, 0, FLOAT_MAX_INTEGER, f"sigma[{k}]")
        self.kernel_size = tuple(kernel_size)
        self.sigma = tuple(float(s) for s in sigma)

    def _transform(self, images):
        return cvf.gaussian_blur(images, self.kernel_size, self.sigma)


class LinearTransformation(PyTensorOperation):
    """``(flattened image - mean_vector) @ transformation_matrix``, reshaped back (NumPy images)."""

    def __init__(self, transformation_matrix, mean_vector):
        check_type(transformation_matrix, (np.ndarray,), "transformation_matrix")
        check_type(mean_vector, (np.ndarray,), "mean_vector")
        if transformation_matrix.ndim != 2 or transformation_matrix.shape[0] != transformation_matrix.shape[1]:
            raise ValueError(f"transformation_matrix should be a square matrix, but got shape "
                             f"{transformation_matrix.shape}.")
        if mean_vector.shape != (transformation_matrix.shape[0],):
            raise ValueError(f"mean_vector should have shape ({transformation_matrix.shape[0]},), but got "
                             f"{mean_vector.shape}.")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        image = np.asarray(image)
        size = image.size
        if size != self.transformation_matrix.shape[0]:
            raise ValueError(f"transformation_matrix shape {self.transformation_matrix.shape} not compatible with "
                             f"Numpy image shape {image.shape}.")
        flat = image.reshape(1, -1) - self.mean_vector
        return np.dot(flat, self.transformation_matrix).reshape(image.shape)
