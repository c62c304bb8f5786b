"""Augmentation policies: ``AutoAugment`` (the learned ImageNet, CIFAR-10 and SVHN policies),
``RandAugment``, ``TrivialAugmentWide``, ``UniformAugment`` and ``RandomSelectSubpolicy``.

The policies are built from the single-image transforms of this package (shear and translation
through :class:`Affine`, :class:`Rotate`, the colour adjustments, :class:`Posterize`,
:class:`Solarize`, :class:`AutoContrast`, :class:`Equalize`, :class:`Invert`), so their pixels
follow those transforms' rounding.  They take (H, W, 3) uint8 images and draw from the dataset
seed.  Magnitude scales follow the usual definitions of the papers (signed operations get a random
sign): shear up to 0.3 (0.99 for TrivialAugmentWide) as a slope, translation up to 150/331 of the
side (32 pixels), rotation up to 30 degrees (135), colour factors 1 +- 0.9 (0.99).

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> image = np.random.default_rng(0).integers(0, 256, (8, 8, 3), dtype=np.uint8)
>>> vision.AutoAugment()(image).shape
(8, 8, 3)
"""
from __future__ import annotations

import math

import numpy as np

from ..engine.randomness import generator
from ..transforms.base import TensorOperation, as_array
from ..transforms.compose import _call, _check_transforms
from .base import require_channels, require_rank
from .checks import check_range, check_type, fill_triple
from .color import (AdjustBrightness, AdjustContrast, AdjustSaturation, AdjustSharpness, AutoContrast, Equalize,
                    Invert, Posterize, Solarize)
from .geometry import Affine, Rotate
from .utils import AutoAugmentPolicy, Inter

__all__ = ["AutoAugment", "RandAugment", "TrivialAugmentWide", "UniformAugment", "RandomSelectSubpolicy"]

# (operation, probability, magnitude bin) pairs; None: the operation has no magnitude
_P = {
    AutoAugmentPolicy.IMAGENET: """
        Posterize .4 8 Rotate .6 9 | Solarize .6 5 AutoContrast .6 - | Equalize .8 - Equalize .6 -
        Posterize .6 7 Posterize .6 6 | Equalize .4 - Solarize .2 4 | Equalize .4 - Rotate .8 8
        Solarize .6 3 Equalize .6 - | Posterize .8 5 Equalize 1 - | Rotate .2 3 Solarize .6 8
        Equalize .6 - Posterize .4 6 | Rotate .8 8 Color .4 0 | Rotate .4 9 Equalize .6 -
        Equalize 0 - Equalize .8 - | Invert .6 - Equalize 1 - | Color .6 4 Contrast 1 8
        Rotate .8 8 Color 1 2 | Color .8 8 Solarize .8 7 | Sharpness .4 7 Invert .6 -
        ShearX .6 5 Equalize 1 - | Color .4 0 Equalize .6 - | Equalize .4 - Solarize .2 4
        Solarize .6 5 AutoContrast .6 - | Invert .6 - Equalize 1 - | Color .6 4 Contrast 1 8
        Equalize .8 - Equalize .6 -""",
    AutoAugmentPolicy.CIFAR10: """
        Invert .1 - Contrast .2 6 | Rotate .7 2 TranslateX .3 9 | Sharpness .8 1 Sharpness .9 3
        ShearY .5 8 TranslateY .7 9 | AutoContrast .5 - Equalize .9 - | ShearY .2 7 Posterize .3 7
        Color .4 3 Brightness .6 7 | Sharpness .3 9 Brightness .7 9 | Equalize .6 - Equalize .5 -
        Contrast .6 7 Sharpness .6 5 | Color .7 7 TranslateX .5 8 | Equalize .8 - Invert .1 -
        TranslateY .4 3 Sharpness .2 6 | Brightness .9 6 Color .2 8 | Solarize .5 2 Invert 0 -
        TranslateY .9 9 TranslateY .7 9 | Equalize .2 - Equalize .6 - | Color .9 9 Equalize .6 -
        AutoContrast .8 - Solarize .2 8 | Brightness .1 3 Color .7 0 | Solarize .4 5 AutoContrast .9 -
        AutoContrast .9 - Solarize .8 3 | TranslateY .7 9 AutoContrast .9 - | Equalize .3 - AutoContrast .4 -
        Equalize .2 - AutoContrast .6 -""",
    AutoAugmentPolicy.SVHN: """
        ShearX .9 4 Invert .2 - | ShearY .9 8 Invert .7 - | Equalize .6 - Solarize .6 6
        Invert .9 - Equalize .6 - | Equalize .6 - Rotate .9 3 | ShearX .9 4 AutoContrast .8 -
        ShearY .9 8 Invert .4 - | ShearY .9 5 Solarize .2 6 | Invert .9 - AutoContrast .8 -
        Equalize .6 - Rotate .9 3 | ShearX .9 4 Solarize .3 3 | ShearY .8 8 Invert .7 -
        Equalize .9 - TranslateY .6 6 | Invert .9 - Equalize .6 - | Contrast .3 3 Rotate .8 4
        Invert .8 - TranslateY 0 2 | ShearY .7 6 Solarize .4 8 | Invert .6 - Rotate .8 4
        ShearY .3 7 TranslateX .9 3 | ShearX .1 6 Invert .6 - | Solarize .7 2 TranslateY .6 7
        ShearY .8 4 Invert .8 - | ShearX .7 9 TranslateY .8 3 | ShearY .8 5 AutoContrast .7 -
        ShearX .7 2 Invert .1 -""",
}


def _parse(text):
    pairs = []
    for part in text.split("|"):
        words = part.split()
        steps = []
        for k in range(0, len(words), 3):
            name, prob, bin_ = words[k:k + 3]
            steps.append((name, float(prob), None if bin_ == "-" else int(bin_)))
        pairs.append(tuple(steps))
    return pairs


_POLICIES = {policy: _parse(text) for policy, text in _P.items()}
_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast", "Sharpness"}


def _magnitudes(name, bins, height, width, wide=False):
    """The magnitude of each bin of operation ``name`` (None for operations without one)."""
    if name in ("ShearX", "ShearY"):
        return np.linspace(0.0, 0.99 if wide else 0.3, bins)
    if name == "TranslateX":
        return np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * width, bins)
    if name == "TranslateY":
        return np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * height, bins)
    if name == "Rotate":
        return np.linspace(0.0, 135.0 if wide else 30.0, bins)
    if name in ("Brightness", "Color", "Contrast", "Sharpness"):
        return np.linspace(0.0, 0.99 if wide else 0.9, bins)
    if name == "Posterize":
        return 8 - np.round(np.arange(bins) / ((bins - 1) / (6 if wide else 4))).astype(np.int64)
    if name == "Solarize":
        return np.linspace(255.0, 0.0, bins)
    return None


def _apply(image, name, magnitude, interpolation, fill):
    """One named operation with a (signed) magnitude on an (H, W, 3) uint8 image."""
    height, width = image.shape[0], image.shape[1]
    if name == "Identity":
        return image
    if name in ("ShearX", "ShearY"):
        angle = math.degrees(math.atan(magnitude))
        shear = (angle, 0.0) if name == "ShearX" else (0.0, angle)
        return Affine(0.0, (0.0, 0.0), 1.0, shear, interpolation, fill)(image)
    if name in ("TranslateX", "TranslateY"):
        shift = (magnitude / width, 0.0) if name == "TranslateX" else (0.0, magnitude / height)
        shift = tuple(min(max(s, -1.0), 1.0) for s in shift)
        return Affine(0.0, shift, 1.0, 0.0, interpolation, fill)(image)
    if name == "Rotate":
        return Rotate(float(magnitude), interpolation, fill_value=fill)(image)
    if name == "Brightness":
        return AdjustBrightness(1.0 + magnitude)(image)
    if name == "Color":
        return AdjustSaturation(1.0 + magnitude)(image)
    if name == "Contrast":
        return AdjustContrast(1.0 + magnitude)(image)
    if name == "Sharpness":
        return AdjustSharpness(1.0 + magnitude)(image)
    if name == "Posterize":
        return Posterize(int(magnitude))(image)
    if name == "Solarize":
        return Solarize(float(magnitude))(image)
    if name == "AutoContrast":
        return AutoContrast()(image)
    if name == "Equalize":
        return Equalize()(image)
    if name == "Invert":
        return Invert()(image)
    raise ValueError(f"unknown augmentation {name!r}")


def _signed(name, value, rng):
    if name in _SIGNED and rng.random() < 0.5:
        return -value
    return value


def _check_image(image, name):
    require_rank(image, name, (3,))
    require_channels(image, name, (3,))
    if image.dtype != np.uint8:
        raise RuntimeError(f"{name}: input image should be uint8, but got {image.dtype}.")


def _check_common(interpolation, fill_value):
    if not isinstance(interpolation, Inter):
        raise TypeError(f"Argument interpolation with value {interpolation!r} is not of type ['Inter'], "
                        f"but got {type(interpolation).__name__}.")
    if interpolation not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA):
        raise ValueError(f"Input interpolation should be one of NEAREST, BILINEAR, BICUBIC, AREA, but got "
                         f"{interpolation.name}.")
    return interpolation, fill_triple(fill_value)


class _Augment(TensorOperation):
    _deterministic = False

    def _compute(self, image):
        _check_image(image, type(self).__name__)
        return self._augment(image, generator())


class AutoAugment(_Augment):
    """Apply one sub-policy (two operations, each with its own probability and magnitude), chosen at
    random from the learned ``policy`` (ImageNet, CIFAR-10 or SVHN)."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0):
        if not isinstance(policy, AutoAugmentPolicy):
            raise TypeError(f"Argument policy with value {policy!r} is not of type ['AutoAugmentPolicy'], "
                            f"but got {type(policy).__name__}.")
        self.policy = policy
        self.interpolation, self.fill_value = _check_common(interpolation, fill_value)

    def _augment(self, image, rng):
        pairs = _POLICIES[self.policy]
        steps = pairs[int(rng.integers(0, len(pairs)))]
        height, width = image.shape[:2]
        for name, prob, bin_ in steps:
            if rng.random() <= prob:
                scale = _magnitudes(name, 10, height, width)
                magnitude = 0.0 if scale is None else _signed(name, float(scale[bin_]), rng)
                image = _apply(image, name, magnitude, self.interpolation, self.fill_value)
        return image


_RAND_OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color",
             "Contrast", "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize")


class RandAugment(_Augment):
    """Apply ``num_ops`` operations drawn at random, each at the fixed strength ``magnitude`` (a bin
    of ``num_magnitude_bins``)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        check_type(num_ops, (int,), "num_ops")
        check_range(num_ops, 0, 2147483647, "num_ops")
        check_type(num_magnitude_bins, (int,), "num_magnitude_bins")
        check_range(num_magnitude_bins, 2, 2147483647, "num_magnitude_bins")
        check_type(magnitude, (int,), "magnitude")
        if not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"Input magnitude is not within the required interval of [0, {num_magnitude_bins}).")
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation, self.fill_value = _check_common(interpolation, fill_value)

    def _augment(self, image, rng):
        height, width = image.shape[:2]
        for _ in range(self.num_ops):
            name = _RAND_OPS[int(rng.integers(0, len(_RAND_OPS)))]
            scale = _magnitudes(name, self.num_magnitude_bins, height, width)
            magnitude = 0.0 if scale is None else _signed(name, float(scale[self.magnitude]), rng)
            image = _apply(image, name, magnitude, self.interpolation, self.fill_value)
        return image


class TrivialAugmentWide(_Augment):
    """Apply one operation drawn at random, at a strength drawn at random from ``num_magnitude_bins``
    bins of the wide magnitude ranges."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        check_type(num_magnitude_bins, (int,), "num_magnitude_bins")
        check_range(num_magnitude_bins, 2, 2147483647, "num_magnitude_bins")
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation, self.fill_value = _check_common(interpolation, fill_value)

    def _augment(self, image, rng):
        height, width = image.shape[:2]
        name = _RAND_OPS[int(rng.integers(0, len(_RAND_OPS)))]
        scale = _magnitudes(name, self.num_magnitude_bins, height, width, wide=True)
        magnitude = 0.0
        if scale is not None:
            magnitude = _signed(name, float(scale[int(rng.integers(0, self.num_magnitude_bins))]), rng)
        return _apply(image, name, magnitude, self.interpolation, self.fill_value)


def _unwrap(values):
    return values[0] if len(values) == 1 else values


class UniformAugment(TensorOperation):
    """Choose ``num_ops`` of ``transforms`` at random (without repeats) and apply each chosen one with
    probability 1/2, in the order drawn."""

    _deterministic = False

    def __init__(self, transforms, num_ops=2):
        self.transforms = _check_transforms(transforms)
        check_type(num_ops, (int,), "num_ops")
        if num_ops <= 0:
            raise ValueError(f"Input num_ops must be greater than 0, but got {num_ops}.")
        if num_ops > len(self.transforms):
            raise ValueError(f"num_ops is greater than transforms list size, num_ops: {num_ops}, "
                             f"transforms list size: {len(self.transforms)}.")
        self.num_ops = num_ops

    def __call__(self, *inputs):
        return self._apply_row(*[as_array(x) for x in inputs])

    def _apply_row(self, *values):
        rng = generator()
        chosen = rng.permutation(len(self.transforms))[:self.num_ops]
        for k in chosen:
            if rng.random() < 0.5:
                values = _call(self.transforms[k], values)
        return _unwrap(tuple(values))

    def _compute(self, *arrays):
        return self._apply_row(*arrays)


class RandomSelectSubpolicy(TensorOperation):
    """Choose one sub-policy of ``policy`` at random; a sub-policy is a list of (transform, prob)
    pairs, each transform applied with its probability, in order."""

    _deterministic = False

    def __init__(self, policy):
        if not isinstance(policy, list) or not policy:
            raise TypeError(f"policy should be a non-empty list of sub-policies, but got {policy!r}.")
        for i, sub in enumerate(policy):
            if not isinstance(sub, list) or not sub:
                raise TypeError(f"policy[{i}] should be a non-empty list of (transform, prob) tuples, but got {sub!r}.")
            for j, step in enumerate(sub):
                if not isinstance(step, tuple) or len(step) != 2:
                    raise ValueError(f"Value policy[{i}][{j}] needs to be a 2-tuple (transform, prob), "
                                     f"but got {step!r}.")
                op, prob = step
                if not callable(op):
                    raise TypeError(f"policy[{i}][{j}][0] should be a transform, but got {op!r}.")
                check_type(prob, (int, float), f"policy[{i}][{j}][1]")
                check_range(prob, 0.0, 1.0, f"policy[{i}][{j}][1]")
        self.policy = [[(op, float(prob)) for op, prob in sub] for sub in policy]

    def __call__(self, *inputs):
        return self._apply_row(*[as_array(x) for x in inputs])

    def _apply_row(self, *values):
        rng = generator()
        sub = self.policy[int(rng.integers(0, len(self.policy)))]
        for op, prob in sub:
            if rng.random() < prob:
                values = _call(op, values)
        return _unwrap(tuple(values))

    def _compute(self, *arrays):
        return self._apply_row(*arrays)
