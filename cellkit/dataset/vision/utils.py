"""The enums of ``mindspore.dataset.vision`` and two image-inspection helpers.

>>> import numpy as np
>>> Inter.LINEAR is Inter.BILINEAR, Border.EDGE.value
(True, 'edge')
>>> get_image_num_channels(np.zeros((4, 5, 3))), get_image_size(np.zeros((4, 5, 3)))
(3, [4, 5])
"""
from __future__ import annotations

import enum

import numpy as np

__all__ = ["Inter", "Border", "ConvertMode", "ImageBatchFormat", "ImageReadMode", "SliceMode", "AutoAugmentPolicy",
           "get_image_num_channels", "get_image_size"]


class Inter(enum.IntEnum):
    """Interpolation modes (``LINEAR`` and ``CUBIC`` are aliases of ``BILINEAR`` and ``BICUBIC``)."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = LINEAR = 2
    BICUBIC = CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, enum.Enum):
    """How padding fills: a constant, the edge pixel, a reflection without or with the edge pixel."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ConvertMode(enum.IntEnum):
    """Colour conversions of :class:`ConvertColor` (OpenCV's codes, in MindSpore's numbering)."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ImageBatchFormat(enum.IntEnum):
    """The layout of a batch of images: channels last or first."""

    NHWC = 0
    NCHW = 1


class ImageReadMode(enum.IntEnum):
    """How :func:`read_image` decodes: as stored, as grey, or as colour."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


class SliceMode(enum.IntEnum):
    """What :class:`SlicePatches` does with the remainder: pad it, or drop it."""

    PAD = 0
    DROP = 1


class AutoAugmentPolicy(str, enum.Enum):
    """The learned policies of :class:`AutoAugment`."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _is_pil(image):
    return type(image).__module__.startswith("PIL.")


def get_image_num_channels(image):
    """The number of channels of an image (HWC array, HW array = 1, or PIL image).

    Raises
    ------
    TypeError
        If ``image`` is neither a NumPy array nor a PIL image.
    """
    if _is_pil(image):
        return len(image.getbands())
    if not isinstance(image, np.ndarray):
        raise TypeError(f"Input image is not of type <class 'numpy.ndarray'> or <class 'PIL.Image.Image'>, "
                        f"but got: {type(image)}.")
    if image.ndim == 2:
        return 1
    if image.ndim == 3:
        return int(image.shape[-1])
    raise RuntimeError(f"GetImageNumChannels: the dimension of image tensor does not match the requirement of "
                       f"operator. Expecting tensor in dimension of (2, 3), but got dimension {image.ndim}.")


def get_image_size(image):
    """``[height, width]`` of an image (array or PIL image)."""
    if _is_pil(image):
        return [image.size[1], image.size[0]]
    if not isinstance(image, np.ndarray):
        raise TypeError(f"Input image is not of type <class 'numpy.ndarray'> or <class 'PIL.Image.Image'>, "
                        f"but got: {type(image)}.")
    if image.ndim not in (2, 3):
        raise RuntimeError(f"GetImageSize: the dimension of image tensor does not match the requirement of operator. "
                           f"Expecting tensor in dimension of (2, 3), but got dimension {image.ndim}.")
    return [int(image.shape[0]), int(image.shape[1])]
