"""``mindspore.dataset.vision``: image transforms on NumPy arrays (and Pillow images).

Every transform can be called directly on an image (``vision.Resize(32)(image)``) or given to
``Dataset.map``, which runs it on whole blocks of same-sized images where the transform allows.
Results match MindSpore 2.10's (OpenCV's rounding for the array path, Pillow's for PIL images).

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> image = np.zeros((4, 6, 3), np.uint8)
>>> vision.HWC2CHW()(vision.Resize((2, 3))(image)).shape
(3, 2, 3)

Left out: ``DecodeVideo``, ``VideoDecoder``, ``read_video`` and ``read_video_timestamps`` (video
containers need FFmpeg, which is not a dependency of cellkit).
"""
from .convert import Decode, HWC2CHW, Normalize, NormalizePad, Rescale, ToNumpy, ToPIL, ToTensor, ToType
from .geometry import (Affine, CenterCrop, Crop, FiveCrop, HorizontalFlip, Pad, PadToSize, Perspective, RandomAffine,
                       RandomCrop, RandomCropDecodeResize, RandomHorizontalFlip, RandomPerspective, RandomResize,
                       RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, ResizedCrop, Rotate, SlicePatches,
                       TenCrop, VerticalFlip)
from .color import (AdjustBrightness, AdjustContrast, AdjustGamma, AdjustHue, AdjustSaturation, AdjustSharpness,
                    AutoContrast, ConvertColor, Equalize, GaussianBlur, Grayscale, HsvToRgb, Invert,
                    LinearTransformation, Posterize, RandomAdjustSharpness, RandomAutoContrast, RandomColor,
                    RandomColorAdjust, RandomEqualize, RandomGrayscale, RandomInvert, RandomLighting, RandomPosterize,
                    RandomSharpness, RandomSolarize, RgbToHsv, Solarize)
from .utils import (AutoAugmentPolicy, Border, ConvertMode, ImageBatchFormat, ImageReadMode, Inter, SliceMode,
                    get_image_num_channels, get_image_size)
from ..transforms.base import not_random
from .bbox import (BoundingBoxAugment, RandomCropWithBBox, RandomHorizontalFlipWithBBox, RandomResizedCropWithBBox,
                   RandomResizeWithBBox, RandomVerticalFlipWithBBox, ResizeWithBBox)
from .erase import CutOut, Erase, RandomErasing
from .mixing import CutMixBatch, MixUp, MixUpBatch
from .files import encode_jpeg, encode_png, read_file, read_image, write_file, write_jpeg, write_png
from .augment import AutoAugment, RandAugment, RandomSelectSubpolicy, TrivialAugmentWide, UniformAugment
