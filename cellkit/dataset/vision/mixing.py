"""Mixing the images and labels of a batch: ``MixUpBatch``, ``CutMixBatch`` (after ``batch``, with
one-hot labels) and ``MixUp`` (MindSpore's Python version).

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> images = np.zeros((4, 2, 2, 3), np.uint8); labels = np.eye(4, dtype=np.float32)
>>> mixed, soft = vision.MixUpBatch(1.0)(images, labels)
>>> mixed.shape, soft.dtype, bool(np.allclose(soft.sum(1), 1))
((4, 2, 2, 3), dtype('float32'), True)
"""
from __future__ import annotations

import numpy as np

from ..engine.randomness import generator
from ..transforms.base import PyTensorOperation, TensorOperation
from .checks import check_number, check_prob, check_range, check_type
from .utils import ImageBatchFormat

__all__ = ["MixUpBatch", "CutMixBatch", "MixUp"]


def _check_batch(images, labels, name):
    if images.ndim != 4:
        raise RuntimeError(f"{name}: image doesn't match the <N,H,W,C> or <N,C,H,W> format, got shape: "
                           f"{list(images.shape)}")
    if labels.ndim not in (2, 3):
        raise RuntimeError(f"{name}: wrong labels shape. The second column (labels) must have a shape of NC or NLC "
                           f"where N is the batch size, L is the number of labels in each row, and C is the number "
                           f"of classes. labels must be in one-hot format and in a batch, but got rank: "
                           f"{labels.ndim}")
    if labels.shape[0] != images.shape[0]:
        raise RuntimeError(f"{name}: the batch sizes of images ({images.shape[0]}) and labels ({labels.shape[0]}) "
                           "differ.")


def _mix(first, second, weight, dtype):
    mixed = first.astype(np.float32) * np.float32(weight) + second.astype(np.float32) * np.float32(1.0 - weight)
    if np.dtype(dtype).kind in "iu":
        return np.clip(np.rint(mixed), np.iinfo(dtype).min, np.iinfo(dtype).max).astype(dtype)
    return mixed.astype(dtype)


class MixUpBatch(TensorOperation):
    """Blend each image and one-hot label of a batch with those of a shuffled copy of the batch, by
    one weight drawn from Beta(``alpha``, ``alpha``)."""

    _deterministic = False

    def __init__(self, alpha=1.0):
        check_number(alpha, "alpha")
        if alpha <= 0:
            raise ValueError(f"Input alpha must be greater than 0, but got {alpha}.")
        self.alpha = float(alpha)

    def _compute(self, images, labels):
        _check_batch(images, labels, "MixUpBatch")
        rng = generator()
        weight = float(rng.beta(self.alpha, self.alpha))
        order = rng.permutation(images.shape[0])
        mixed = _mix(images, images[order], weight, images.dtype)
        soft = _mix(labels, labels[order], weight, np.float32)
        return mixed, soft

    def _apply_block(self, columns):
        return None


class CutMixBatch(TensorOperation):
    """Paste a random box of another image of the batch into each image (with probability ``prob``),
    the box's area drawn through Beta(``alpha``, ``alpha``); labels mix by area."""

    _deterministic = False

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        if not isinstance(image_batch_format, ImageBatchFormat):
            raise TypeError(f"Argument image_batch_format with value {image_batch_format!r} is not of type "
                            "['ImageBatchFormat'].")
        check_number(alpha, "alpha")
        if alpha <= 0:
            raise ValueError(f"Input alpha must be greater than 0, but got {alpha}.")
        self.image_batch_format = image_batch_format
        self.alpha = float(alpha)
        self.prob = check_prob(prob)

    def _compute(self, images, labels):
        _check_batch(images, labels, "CutMixBatch")
        hwc = images if self.image_batch_format == ImageBatchFormat.NHWC else images.transpose(0, 2, 3, 1)
        out = hwc.copy()
        soft = labels.astype(np.float32).copy()
        n, height, width = hwc.shape[0], hwc.shape[1], hwc.shape[2]
        rng = generator()
        order = rng.permutation(n)
        for i in range(n):
            if rng.random() >= self.prob:
                continue
            lam = float(rng.beta(self.alpha, self.alpha))
            ratio = np.sqrt(1.0 - lam)
            cut_h, cut_w = int(height * ratio), int(width * ratio)
            cy, cx = int(rng.integers(0, height)), int(rng.integers(0, width))
            top, bottom = max(cy - cut_h // 2, 0), min(cy + cut_h // 2, height)
            left, right = max(cx - cut_w // 2, 0), min(cx + cut_w // 2, width)
            j = order[i]
            out[i, top:bottom, left:right] = hwc[j, top:bottom, left:right]
            kept = 1.0 - (bottom - top) * (right - left) / float(height * width)
            soft[i] = labels[i].astype(np.float32) * np.float32(kept) + labels[j].astype(np.float32) * np.float32(1 - kept)
        if self.image_batch_format == ImageBatchFormat.NCHW:
            out = out.transpose(0, 3, 1, 2)
        return np.ascontiguousarray(out), soft

    def _apply_block(self, columns):
        return None


class MixUp(PyTensorOperation):
    """MindSpore's Python MixUp on a batch of (images, one-hot labels): with ``is_single`` each image is
    blended with the next of its batch (weights from Beta(``alpha``, ``alpha``), one per image);
    otherwise with the image at the same place of the previous batch."""

    _deterministic = False

    def __init__(self, batch_size, alpha, is_single=True):
        check_type(batch_size, (int,), "batch_size")
        check_range(batch_size, 1, 2147483647, "batch_size")
        check_number(alpha, "alpha")
        if alpha <= 0:
            raise ValueError(f"Input alpha must be greater than 0, but got {alpha}.")
        check_type(is_single, (bool,), "is_single")
        self.batch_size, self.alpha, self.is_single = batch_size, float(alpha), is_single
        self._previous = None

    def __call__(self, images, labels):
        return self._apply_row(images, labels)

    def _apply_row(self, images, labels):
        images, labels = np.asarray(images), np.asarray(labels)
        if labels.ndim != 2:
            raise TypeError(f"MixUp: labels should be one-hot of shape (batch, classes), but got {labels.shape}.")
        rng = generator()
        if self.is_single:
            size = images.shape[0]
            weight = rng.beta(self.alpha, self.alpha, size)
            shifted = list(range(1, size)) + [0]
            mixed = weight.reshape((size,) + (1,) * (images.ndim - 1)) * images + \
                (1 - weight.reshape((size,) + (1,) * (images.ndim - 1))) * images[shifted]
            soft = weight.reshape(size, 1) * labels + (1 - weight.reshape(size, 1)) * labels[shifted]
            return mixed, soft
        if self._previous is None or self._previous[0].shape != images.shape:
            self._previous = (images, labels)
            return images, labels
        weight = rng.beta(self.alpha, self.alpha)
        mixed = weight * images + (1 - weight) * self._previous[0]
        soft = weight * labels + (1 - weight) * self._previous[1]
        self._previous = (images, labels)
        return mixed, soft
