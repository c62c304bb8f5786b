"""Transforms of an image together with its bounding boxes (rows of [x, y, width, height, ...]).

The boxes follow the pixels: scaled by a resize, mirrored by a flip, shifted and cut (or dropped
when they fall outside) by a crop.  A box reaching past the image is refused, as in MindSpore.

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> image = np.zeros((8, 8, 3), np.uint8)
>>> boxes = np.array([[1, 2, 4, 3]], np.float32)
>>> vision.ResizeWithBBox((16, 16))(image, boxes)[1]
array([[2., 4., 8., 6.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ..engine.randomness import generator
from ..transforms.base import TensorOperation
from .checks import check_prob, check_range, check_type
from .geometry import (RandomCrop, RandomResizedCrop, Resize, _check_scale_ratio, _output_size, _random_crop_box,
                       resize_image)
from .utils import Inter

__all__ = ["ResizeWithBBox", "RandomResizeWithBBox", "RandomHorizontalFlipWithBBox", "RandomVerticalFlipWithBBox",
           "RandomCropWithBBox", "RandomResizedCropWithBBox", "BoundingBoxAugment"]


def check_boxes(image, boxes, name):
    """The boxes as float32 (N, >=4) checked against the image size."""
    boxes = np.asarray(boxes)
    if boxes.ndim != 2 or boxes.shape[1] < 4:
        raise RuntimeError(f"{name}: bounding boxes should have shape <N, 4> or more columns, but got "
                           f"{list(boxes.shape)}.")
    if image.ndim not in (2, 3):
        raise RuntimeError(f"{name}: image shape is not <H,W,C> or <H,W>, but got rank: {image.ndim}")
    height, width = image.shape[0], image.shape[1]
    values = boxes.astype(np.float32)
    if (values[:, :4] < 0).any():
        raise RuntimeError(f"{name}: bounding boxes should not have negative values.")
    right = values[:, 0] + values[:, 2]
    bottom = values[:, 1] + values[:, 3]
    if (right > width).any() or (bottom > height).any():
        k = int(np.flatnonzero((right > width) | (bottom > height))[0])
        raise RuntimeError(f"BoundingBox: bounding boxes is out of bounds of the image, as image width: {width}, "
                           f"bbox width coordinate: {right[k]:f}, and image height: {height}, bbox height "
                           f"coordinate: {bottom[k]:f}")
    return values.copy()


def crop_boxes(boxes, top, left, height, width):
    """Boxes seen through the crop (top, left, height, width): shifted, cut to it, dropped if outside."""
    x0 = boxes[:, 0] - left
    y0 = boxes[:, 1] - top
    x1 = x0 + boxes[:, 2]
    y1 = y0 + boxes[:, 3]
    keep = (x1 > 0) & (y1 > 0) & (x0 < width) & (y0 < height)
    x0, y0 = np.clip(x0, 0, width), np.clip(y0, 0, height)
    x1, y1 = np.clip(x1, 0, width), np.clip(y1, 0, height)
    out = boxes.copy()
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0, y0, x1 - x0, y1 - y0
    return out[keep]


def scale_boxes(boxes, from_hw, to_hw):
    out = boxes.copy()
    sy = np.float32(to_hw[0]) / np.float32(from_hw[0])
    sx = np.float32(to_hw[1]) / np.float32(from_hw[1])
    out[:, 0] *= sx
    out[:, 2] *= sx
    out[:, 1] *= sy
    out[:, 3] *= sy
    return out


class _BoxOp(TensorOperation):
    _name = None

    def _compute(self, image, boxes):
        boxes = check_boxes(image, boxes, self._name or type(self).__name__)
        return self._boxes(image, boxes)

    def _apply_block(self, columns):
        return None


class ResizeWithBBox(_BoxOp):
    """:class:`Resize` the image and scale its boxes alike."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        self._resize = Resize(size, interpolation)

    def _boxes(self, image, boxes):
        out = self._resize(image)
        return out, scale_boxes(boxes, image.shape[:2], out.shape[:2])


class RandomResizeWithBBox(_BoxOp):
    """Resize with a random interpolation, scaling the boxes alike."""

    _deterministic = False

    def __init__(self, size):
        self._size = Resize(size).size

    def _boxes(self, image, boxes):
        inter = [Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA][int(generator().random() * 4)]
        h, w = _output_size(self._size, image.shape[0], image.shape[1])
        hwc = image if image.ndim == 3 else image[:, :, None]
        out = resize_image(hwc, h, w, inter, "RandomResizeWithBBox")
        out = out if image.ndim == 3 else out[..., 0]
        return out, scale_boxes(boxes, image.shape[:2], (h, w))


class RandomHorizontalFlipWithBBox(_BoxOp):
    """Mirror left to right with probability ``prob``, boxes too."""

    _deterministic = False

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob)

    def _boxes(self, image, boxes):
        if generator().random() >= self.prob:
            return image, boxes
        boxes[:, 0] = np.float32(image.shape[1]) - boxes[:, 0] - boxes[:, 2]
        return image[:, ::-1].copy(), boxes


class RandomVerticalFlipWithBBox(_BoxOp):
    """Mirror top to bottom with probability ``prob``, boxes too."""

    _deterministic = False

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob)

    def _boxes(self, image, boxes):
        if generator().random() >= self.prob:
            return image, boxes
        boxes[:, 1] = np.float32(image.shape[0]) - boxes[:, 1] - boxes[:, 3]
        return image[::-1].copy(), boxes


class RandomCropWithBBox(_BoxOp):
    """:class:`RandomCrop` the image; the boxes are shifted, cut to the crop, or dropped."""

    _deterministic = False

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=None):
        from .utils import Border

        self._crop = RandomCrop(size, padding, pad_if_needed, fill_value, padding_mode or Border.CONSTANT)

    def _boxes(self, image, boxes):
        crop = self._crop
        hwc = image if image.ndim == 3 else image[:, :, None]
        padded, top, left = crop._prepare(hwc)
        boxes[:, 0] += left
        boxes[:, 1] += top
        ch, cw = crop.size
        rng = generator()
        y = int(rng.integers(0, padded.shape[0] - ch + 1))
        x = int(rng.integers(0, padded.shape[1] - cw + 1))
        out = padded[y:y + ch, x:x + cw].copy()
        out = out if image.ndim == 3 else out[..., 0]
        return out, crop_boxes(boxes, y, x, ch, cw)


class RandomResizedCropWithBBox(_BoxOp):
    """:class:`RandomResizedCrop` the image; the boxes are cut to the crop and scaled."""

    _deterministic = False

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self._crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)

    def _boxes(self, image, boxes):
        crop = self._crop
        top, left, h, w = _random_crop_box(image.shape[0], image.shape[1], crop.scale, crop.ratio,
                                           crop.max_attempts, generator())
        hwc = image if image.ndim == 3 else image[:, :, None]
        part = np.ascontiguousarray(hwc[top:top + h, left:left + w])
        out = resize_image(part, crop.size[0], crop.size[1], crop.interpolation, "RandomResizedCropWithBBox")
        out = out if image.ndim == 3 else out[..., 0]
        kept = crop_boxes(boxes, top, left, h, w)
        return out, scale_boxes(kept, (h, w), crop.size)


class BoundingBoxAugment(_BoxOp):
    """Apply ``transform`` (an image transform keeping the size) inside a random ``ratio`` of the boxes."""

    _deterministic = False

    def __init__(self, transform, ratio=0.3):
        if not callable(transform):
            raise TypeError(f"Argument transform should be a transform, but got {transform!r}.")
        check_type(ratio, (int, float), "ratio")
        check_range(ratio, 0.0, 1.0, "ratio")
        self.transform = transform
        self.ratio = float(ratio)

    def _boxes(self, image, boxes):
        out = image.copy()
        count = int(round(len(boxes) * self.ratio))
        chosen = generator().permutation(len(boxes))[:count]
        for k in chosen:
            x, y, w, h = (int(v) for v in boxes[k, :4])
            if w <= 0 or h <= 0:
                continue
            region = np.ascontiguousarray(out[y:y + h, x:x + w])
            changed = np.asarray(self.transform(region))
            if changed.shape != region.shape:
                raise RuntimeError(f"BoundingBoxAugment: the transform changed the box's shape from {region.shape} "
                                   f"to {changed.shape}; it must keep the size.")
            out[y:y + h, x:x + w] = changed
        return out, boxes
