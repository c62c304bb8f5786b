"""The base of the image transforms: input checks in MindSpore's words, and the block path.

An image transform works on ``(..., H, W, C)`` arrays (``_transform``): a single image or a stack
of them, so ``map`` can transform a whole block of same-sized images in one call.  A 2-D image
(H, W) is treated as one channel and given back 2-D.
"""
from __future__ import annotations

import numpy as np

from ..transforms.base import TensorOperation

__all__ = ["ImageTensorOperation", "to_hwc", "from_hwc", "require_rank", "require_channels", "interpolation_mode"]


def require_rank(image, name, ranks=(2, 3)):
    if image.ndim not in ranks:
        extra = ", may need to do Decode operation first." if image.ndim == 1 else ""
        shapes = " or ".join("<H,W,C>" if r == 3 else "<H,W>" for r in ranks)
        raise RuntimeError(f"{name}: image shape is not {shapes}, but got rank: {image.ndim}{extra}")


def require_channels(image, name, channels=(1, 3)):
    count = 1 if image.ndim == 2 else image.shape[-1]
    if count not in channels:
        raise RuntimeError(f"{name}: the channel of image tensor does not match the requirement of operator. "
                           f"Expecting tensor in channel of {tuple(channels)}. But got channel {count}.")


def to_hwc(image):
    """(image as (..., H, W, C), whether it was 2-D)."""
    if image.ndim == 2:
        return image[:, :, None], True
    return image, False


def from_hwc(image, was_2d):
    return image[..., 0] if was_2d else image


def interpolation_mode(inter):
    """The cv kernel name of an ``Inter`` value."""
    from .utils import Inter

    return {Inter.NEAREST: "nearest", Inter.BILINEAR: "linear", Inter.BICUBIC: "cubic", Inter.AREA: "area",
            Inter.PILCUBIC: "pilcubic", Inter.ANTIALIAS: "antialias"}[inter]


class ImageTensorOperation(TensorOperation):
    """A transform of images, with a block path when ``_transform`` accepts a stack of images.

    Subclasses define ``_check(image)`` (raise for unusable input; ``image`` is one image) and
    ``_transform(images)`` on ``(..., H, W, C)``.  ``_stackable`` says whether ``_transform`` may be
    given a stack (True for every deterministic transform whose output shape does not depend on
    the image content).
    """

    _name = None
    _stackable = True

    @property
    def name(self):
        return self._name or type(self).__name__

    def _check(self, image):
        require_rank(image, self.name)

    def _compute(self, image):
        self._check(image)
        hwc, was_2d = to_hwc(image)
        return from_hwc(self._transform(hwc), was_2d)

    def _apply_block(self, columns):
        if not self._stackable or len(columns) != 1:
            return None
        stack = columns[0]
        if stack.ndim not in (3, 4) or stack.dtype.kind in "USO":
            return None
        self._check(stack[0])
        hwc, was_2d = (stack[..., None], True) if stack.ndim == 3 else (stack, False)
        out = self._transform(hwc)
        return [out[..., 0] if was_2d else out]

    def _transform(self, images):
        raise NotImplementedError
