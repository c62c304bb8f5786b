"""Colour arithmetic as OpenCV computes it: grey levels, HSV, scaling and blending, histograms.

>>> import numpy as np
>>> rgb_to_gray(np.array([[[255, 0, 0]]], np.uint8))
array([[76]], dtype=uint8)
"""
from __future__ import annotations

import numpy as np

__all__ = ["rgb_to_gray", "gray_to_rgb", "rgb_to_hsv_full", "hsv_full_to_rgb", "scale", "blend", "equalize_channel",
           "fma32"]

_F32 = np.float32


def fma32(a, b, c):
    """float32 a*b + c with one rounding (OpenCV's AVX2 kernels use fused multiply-adds)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(_F32)


def rgb_to_gray(image):
    """(..., H, W, 3) RGB to (..., H, W) grey: 8-bit images in OpenCV's 14-bit fixed point."""
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    if image.dtype == np.uint8:  # OpenCV 4.11: 15-bit weights
        value = (b.astype(np.int32) * 3735 + g.astype(np.int32) * 19235 + r.astype(np.int32) * 9798 + 16384) >> 15
        return value.astype(np.uint8)
    dt = image.dtype
    return ((b * dt.type(0.114) + g * dt.type(0.587)).astype(dt) + r * dt.type(0.299)).astype(dt)


def gray_to_rgb(gray):
    return np.repeat(gray[..., None], 3, axis=-1)


# ----------------------------------------------------------------------------------- HSV, 8-bit
_SHIFT = 12


def _division_tables(hue_range):
    v = np.arange(256, dtype=np.float64)
    with np.errstate(divide="ignore"):
        sdiv = np.where(v > 0, np.rint((255 << _SHIFT) / np.where(v > 0, v, 1)), 0).astype(np.int64)
        hdiv = np.where(v > 0, np.rint((hue_range << _SHIFT) / (6.0 * np.where(v > 0, v, 1))), 0).astype(np.int64)
    return sdiv, hdiv


_SDIV, _HDIV_FULL = _division_tables(256)


def rgb_to_hsv_full(image):
    """``COLOR_RGB2HSV_FULL`` on uint8 (..., H, W, 3): hue over 0..255."""
    rgb = image.astype(np.int64)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = np.maximum(np.maximum(b, g), r)
    vmin = np.minimum(np.minimum(b, g), r)
    diff = v - vmin
    s = (diff * _SDIV[v] + (1 << (_SHIFT - 1))) >> _SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * _HDIV_FULL[diff] + (1 << (_SHIFT - 1))) >> _SHIFT
    h = np.where(h < 0, h + 256, h)
    return np.stack([np.clip(h, 0, 255), s, v], axis=-1).astype(np.uint8)


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def hsv_full_to_rgb(hsv):
    """``COLOR_HSV2RGB_FULL`` on uint8 (..., H, W, 3), through OpenCV's float formula."""
    h = hsv[..., 0].astype(_F32)
    s = (hsv[..., 1].astype(_F32) * _F32(1.0 / 255.0)).astype(_F32)
    v = (hsv[..., 2].astype(_F32) * _F32(1.0 / 255.0)).astype(_F32)
    h = (h * _F32(6.0 / 255.0)).astype(_F32)  # OpenCV converts back with a hue range of 255, not 256
    h = np.where(h >= 6, h - 6, h).astype(_F32)
    sector = np.floor(h).astype(np.int64)
    h = (h - sector).astype(_F32)
    bad = (sector < 0) | (sector >= 6)
    sector = np.where(bad, 0, sector)
    h = np.where(bad, _F32(0), h)
    one = _F32(1)
    tab = np.stack([v, (v * (one - s)).astype(_F32), (v * (one - (s * h).astype(_F32))).astype(_F32),
                    (v * (one - (s * (one - h)).astype(_F32))).astype(_F32)], axis=-1)
    picks = _SECTORS[sector]  # (..., 3): which tab entry gives b, g, r
    bgr = np.take_along_axis(tab, picks, axis=-1)
    grey = s == 0
    bgr = np.where(grey[..., None], v[..., None], bgr)
    rgb = (bgr[..., ::-1] * _F32(255.0)).astype(_F32)
    # OpenCV's vector kernel handles whole runs of 32 pixels of a row and truncates; the rest is rounded
    rounded = np.rint(rgb)
    width = rgb.shape[-2]
    vector_part = (width // 32) * 32
    if vector_part:
        rounded[..., :vector_part, :] = np.trunc(rgb[..., :vector_part, :])
    return np.clip(rounded, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------------- scaling, blending
def scale(image, alpha):
    """``image * alpha`` as OpenCV's ``convertTo`` gives it (saturated and rounded for uint8)."""
    if image.dtype == np.uint8:
        return np.clip(np.rint(fma32(image.astype(_F32), _F32(alpha), _F32(0))), 0, 255).astype(np.uint8)
    return (image * image.dtype.type(alpha)).astype(image.dtype)


def blend(first, alpha, second, beta, gamma=0.0, dtype=None):
    """``cv::addWeighted``: first*alpha + second*beta + gamma, as OpenCV's float32 kernel computes it
    (``fma(first, alpha, fma(second, beta, gamma))``), then rounded for uint8."""
    dtype = dtype or second.dtype
    inner = fma32(second.astype(_F32), _F32(beta), _F32(gamma))
    out = fma32(first.astype(_F32), _F32(alpha), inner)
    if dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(dtype)


def equalize_channel(channel):
    """``cv::equalizeHist`` of one uint8 channel (any leading shape: equalised as one image)."""
    hist = np.bincount(channel.reshape(-1), minlength=256)
    total = channel.size
    nonzero = np.flatnonzero(hist)
    if len(nonzero) == 0:
        return channel.copy()
    first = nonzero[0]
    if hist[first] == total:
        return np.full_like(channel, first)
    factor = _F32(255.0) / _F32(total - hist[first])
    lut = np.zeros(256, np.int64)
    cumulative = np.cumsum(hist[first + 1:])
    lut[first + 1:] = np.clip(np.rint((cumulative.astype(_F32) * factor).astype(_F32)), 0, 255)
    return lut[channel].astype(np.uint8)
