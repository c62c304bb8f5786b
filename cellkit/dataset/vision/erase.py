"""Blanking parts of an image: ``CutOut`` (random squares), ``Erase`` (a given rectangle),
``RandomErasing`` (a random rectangle of a CHW array, with probability).

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> out = vision.Erase(0, 0, 2, 2, value=9)(np.zeros((3, 3, 3), np.uint8))
>>> out[:, :, 0]
array([[9, 9, 0],
       [9, 9, 0],
       [0, 0, 0]], dtype=uint8)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..engine.randomness import generator
from ..transforms.base import PyTensorOperation
from .base import ImageTensorOperation
from .checks import FLOAT_MAX_INTEGER, check_number, check_prob, check_range, check_type

__all__ = ["CutOut", "Erase", "RandomErasing"]


class CutOut(ImageTensorOperation):
    """Zero ``num_patches`` squares of side ``length`` at random places (they may reach past the edge)."""

    _deterministic = False
    _stackable = False

    def __init__(self, length, num_patches=1, is_hwc=True):
        check_type(length, (int,), "length")
        check_range(length, 1, 2147483647, "length")
        check_type(num_patches, (int,), "num_patches")
        check_range(num_patches, 1, 2147483647, "num_patches")
        check_type(is_hwc, (bool,), "is_hwc")
        self.length, self.num_patches, self.is_hwc = length, num_patches, is_hwc

    def _check(self, image):
        if image.ndim != 3:
            raise RuntimeError(f"CutOut: image shape is not <H,W,C> or <C,H,W>, got rank: {image.ndim}")
        h, w = (image.shape[0], image.shape[1]) if self.is_hwc else (image.shape[1], image.shape[2])
        if self.length > h or self.length > w:
            raise RuntimeError(f"CutOut: box size is too large for image erase, got box height: {self.length}box "
                               f"weight: {self.length}, and image height: {h}, image width: {w}")

    def _compute(self, image):
        self._check(image)
        out = image.copy()
        view = out if self.is_hwc else out.transpose(1, 2, 0)
        h, w = view.shape[0], view.shape[1]
        rng = generator()
        for _ in range(self.num_patches):
            top = int(rng.integers(0, h + self.length + 1)) - self.length
            left = int(rng.integers(0, w + self.length + 1)) - self.length
            view[max(top, 0):min(top + self.length, h), max(left, 0):min(left + self.length, w)] = 0
        return out


def _erase_value(value, name="value"):
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        check_range(value, 0, 255, name)
        return (float(value),) * 3
    if isinstance(value, tuple) and len(value) == 3:
        for k, v in enumerate(value):
            check_number(v, f"{name}[{k}]")
            check_range(v, 0, 255, f"{name}[{k}]")
        return tuple(float(v) for v in value)
    raise TypeError(f"Argument {name} should be a number or a 3-tuple of numbers, but got {value!r}.")


class Erase(ImageTensorOperation):
    """Fill the rectangle (``top``, ``left``, ``height``, ``width``) with ``value`` (a number or (r, g, b))."""

    def __init__(self, top, left, height, width, value=0, inplace=False):
        for name, v in (("top", top), ("left", left)):
            check_type(v, (int,), name)
            check_range(v, 0, 2147483647, name)
        for name, v in (("height", height), ("width", width)):
            check_type(v, (int,), name)
            check_range(v, 1, 2147483647, name)
        self.top, self.left, self.height, self.width = top, left, height, width
        self.value = _erase_value(value)
        check_type(inplace, (bool,), "inplace")
        self.inplace = inplace

    def _check(self, image):
        if image.ndim != 3 or image.shape[-1] != 3:
            raise RuntimeError(f"Erase: the input should be <H,W,3>, but got shape {list(image.shape)}.")
        # a region reaching past the image is cut at its edge, as MindSpore does

    def _transform(self, images):
        out = images.copy()
        fill = np.array(self.value)
        if images.dtype.kind in "iu":
            fill = np.trunc(fill)
        out[..., self.top:self.top + self.height, self.left:self.left + self.width, :] = fill.astype(images.dtype)
        return out


class RandomErasing(PyTensorOperation):
    """With probability ``prob``, erase a random rectangle of a CHW array (area fraction in ``scale``,
    aspect ratio in ``ratio``) with ``value`` (a number, per-channel values, or "random")."""

    _deterministic = False

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10):
        self.prob = check_prob(prob)
        for name, pair in (("scale", scale), ("ratio", ratio)):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise TypeError(f"Argument {name} should be a sequence of 2 numbers, but got {pair!r}.")
            for k, v in enumerate(pair):
                check_number(v, f"{name}[{k}]")
                check_range(v, 0, FLOAT_MAX_INTEGER, f"{name}[{k}]")
            if pair[0] > pair[1]:
                raise ValueError(f"{name} should be in (min, max) format, but got {tuple(pair)}.")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        if not (value == "random" or isinstance(value, (numbers.Number, tuple))):
            raise TypeError(f"Argument value should be a number, a tuple or 'random', but got {value!r}.")
        self.value = value
        check_type(inplace, (bool,), "inplace")
        self.inplace = inplace
        check_type(max_attempts, (int,), "max_attempts")
        check_range(max_attempts, 1, 2147483647, "max_attempts")
        self.max_attempts = max_attempts

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        image = np.asarray(image)
        if image.ndim != 3:
            raise TypeError(f"img should be a 3-D CHW array, but got shape {image.shape}.")
        rng = generator()
        if rng.random() >= self.prob:
            return image
        channels, height, width = image.shape
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_ratio))
            h = int(round(math.sqrt(target * aspect)))
            w = int(round(math.sqrt(target / aspect)))
            if h < height and w < width:
                top = int(rng.integers(0, height - h + 1))
                left = int(rng.integers(0, width - w + 1))
                out = image if self.inplace else image.copy()
                if self.value == "random":
                    patch = rng.standard_normal((channels, h, w))
                else:
                    values = self.value if isinstance(self.value, tuple) else (self.value,)
                    patch = np.broadcast_to(np.asarray(values, dtype=np.float64)[:, None, None], (channels, h, w))
                out[:, top:top + h, left:left + w] = patch.astype(image.dtype)
                return out
        return image
