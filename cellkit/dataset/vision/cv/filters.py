"""Image filters as OpenCV computes them: the Gaussian blur (8-bit: OpenCV's bit-exact fixed-point
version) and the 3x3 smoothing MindSpore blends with for sharpness.

>>> import numpy as np
>>> image = np.zeros((5, 5, 1), np.uint8); image[2, 2] = 255
>>> gaussian_blur(image, (3, 3), (0.8, 0.8))[1:4, 1:4, 0]
array([[14, 32, 14],
       [32, 70, 32],
       [14, 32, 14]], dtype=uint8)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["gaussian_kernel", "gaussian_blur", "sharpness_blur"]

_F32 = np.float32


def gaussian_kernel(size, sigma):
    """OpenCV's exact Gaussian weights (doubles summing to 1) for an odd ``size``."""
    if sigma <= 0:
        sigma = size * 0.15 + 0.35
    scale = -0.125 / (sigma * sigma)
    half = (size - 1) // 2
    values = [math.exp(float(x * x) * scale) for x in range(1 - size, 0, 2)][:half]
    total = 2.0 * sum(values) + 1.0
    weights = [v / total for v in values] + [1.0 / total]
    return np.array(weights + weights[:half][::-1])


def _fixed_kernel(size, sigma, bits=8):
    """The kernel in ``bits``-bit fixed point, rounded with error diffusion so it sums to exactly 1."""
    exact = gaussian_kernel(size, sigma)
    one = 1 << bits
    out = np.zeros(size, np.int64)
    error = 0.0
    total = 0
    half = size // 2
    for i in range(half):
        adjusted = exact[i] * one + error
        value = int(np.rint(adjusted))
        error = adjusted - value
        out[i] = out[size - 1 - i] = value
        total += value
    out[half] = one - 2 * total
    return out


def _reflect101(images, pad_y, pad_x):
    widths = [(0, 0)] * (images.ndim - 3) + [(pad_y, pad_y), (pad_x, pad_x), (0, 0)]
    if images.shape[-3] == 1 or images.shape[-2] == 1:
        return np.pad(images, widths, mode="edge")
    return np.pad(images, widths, mode="reflect")


def gaussian_blur(images, ksize, sigma):
    """(..., H, W, C) blurred with kernel size (kx, ky) and sigma (sx, sy), borders reflected."""
    kx, ky = ksize
    sx, sy = sigma
    if sx <= 0:  # derived from the kernel width, and used for the height too when it has none
        sx = kx * 0.15 + 0.35
    if sy <= 0:
        sy = sx
    sx, sy = float(_F32(sx)), float(_F32(sy))
    h, w = images.shape[-3], images.shape[-2]
    padded = _reflect101(images, ky // 2, kx // 2)
    if images.dtype == np.uint8:
        wx = _fixed_kernel(kx, sx)
        wy = _fixed_kernel(ky, sy)
        src = padded.astype(np.int64)
        rows = sum(src[..., :, i:i + w, :] * wx[i] for i in range(kx))
        total = sum(rows[..., j:j + h, :, :] * wy[j] for j in range(ky))
        return np.clip((total + (1 << 15)) >> 16, 0, 255).astype(np.uint8)
    dt = images.dtype if images.dtype == np.float64 else _F32
    wx = gaussian_kernel(kx, sx).astype(dt)
    wy = gaussian_kernel(ky, sy).astype(dt)
    src = padded.astype(dt)
    rows = sum(src[..., :, i:i + w, :] * wx[i] for i in range(kx))
    total = sum(rows[..., j:j + h, :, :] * wy[j] for j in range(ky))
    return total.astype(images.dtype)


def sharpness_blur(images):
    """The 3x3 smoothing [1 1 1; 1 5 1; 1 1 1] / 13 (``cv::filter2D``), the outermost pixels kept."""
    h, w = images.shape[-3], images.shape[-2]
    padded = _reflect101(images, 1, 1).astype(_F32)
    weights = np.full((3, 3), _F32(1.0 / 13.0), dtype=_F32)
    weights[1, 1] = _F32(5.0 / 13.0)
    total = None
    for dy in range(3):
        for dx in range(3):
            term = (padded[..., dy:dy + h, dx:dx + w, :] * weights[dy, dx]).astype(_F32)
            total = term if total is None else (total + term).astype(_F32)
    if images.dtype == np.uint8:
        out = np.clip(np.rint(total), 0, 255).astype(np.uint8)
    else:
        out = total.astype(images.dtype)
    out[..., 0, :, :] = images[..., 0, :, :]
    out[..., -1, :, :] = images[..., -1, :, :]
    out[..., :, 0, :] = images[..., :, 0, :]
    out[..., :, -1, :] = images[..., :, -1, :]
    return out
