"""Affine and perspective warps as OpenCV 4.11's ``warpAffine``/``warpPerspective`` compute them.

Bilinear warps follow OpenCV 4.11's float kernels: the source position of each output pixel is
computed in float32 with fused multiply-adds, and the pixel is interpolated in float32 and rounded
half to even.  Nearest and bicubic warps follow the older fixed-point path: positions in 1/1024
pixel, a 32x32 table of interpolation weights in 15-bit fixed point.  Pixels that fall outside the
image take the border value (``BORDER_CONSTANT``).

>>> import numpy as np
>>> image = np.arange(9, dtype=np.uint8).reshape(3, 3, 1)
>>> warp_affine(image, np.array([[1.0, 0, 1], [0, 1, 0]]), 3, 3, "nearest", (0,))[..., 0]
array([[0, 0, 1],
       [0, 3, 4],
       [0, 6, 7]], dtype=uint8)
"""
from __future__ import annotations

import numpy as np

__all__ = ["warp_affine", "warp_perspective", "invert_affine", "rotation_matrix"]

_F32 = np.float32
_AB_BITS = 10
_AB_SCALE = 1 << _AB_BITS
_INTER_BITS = 5
_TAB = 1 << _INTER_BITS
_REMAP_BITS = 15
_REMAP_SCALE = 1 << _REMAP_BITS


def rotation_matrix(cx, cy, degrees, scale=1.0):
    """``cv::getRotationMatrix2D``: the forward 2x3 matrix of a rotation about (cx, cy)."""
    angle = np.deg2rad(degrees)
    alpha = np.cos(angle) * scale
    beta = np.sin(angle) * scale
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]], dtype=np.float64)


def invert_affine(m):
    """The inverse of a 2x3 affine matrix, computed as OpenCV does (in doubles)."""
    m = np.asarray(m, dtype=np.float64).reshape(-1)
    d = m[0] * m[4] - m[1] * m[3]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22 = m[4] * d, m[0] * d
    a12, a21 = -m[1] * d, -m[3] * d
    b1 = -a11 * m[2] - a12 * m[5]
    b2 = -a21 * m[2] - a22 * m[5]
    return np.array([a11, a12, b1, a21, a22, b2])


def _fma32(a, b, c):
    """float32 fused multiply-add (one rounding), as OpenCV's AVX2 kernels compute it."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(_F32)


def _border(image, fill):
    cn = image.shape[-1]
    values = np.zeros(cn, dtype=np.float64)
    fill = tuple(fill)
    for k in range(min(cn, 4)):
        values[k] = fill[k] if k < len(fill) else 0.0
    return values


def _saturate(values, dtype):
    if dtype == np.uint8:
        return np.clip(np.rint(values), 0, 255).astype(np.uint8)
    return values.astype(dtype)


def _gather(image, ix, iy, fill_values):
    """Pixels at integer positions (any shape), the border value where outside."""
    H, W = image.shape[-3], image.shape[-2]
    inside = (ix >= 0) & (ix < W) & (iy >= 0) & (iy < H)
    px = image[..., np.clip(iy, 0, H - 1), np.clip(ix, 0, W - 1), :].astype(np.float64)
    return np.where(inside[..., None], px, fill_values)


def _linear_float_path(image, sx, sy, fill_values):
    """OpenCV 4.11's float bilinear kernel at float32 source positions (sx, sy)."""
    H, W = image.shape[-3], image.shape[-2]
    ix = np.floor(sx).astype(np.int64)
    iy = np.floor(sy).astype(np.int64)
    fx = (sx - ix).astype(_F32)[..., None]
    fy = (sy - iy).astype(_F32)[..., None]
    p00 = _gather(image, ix, iy, fill_values).astype(_F32)
    p01 = _gather(image, ix + 1, iy, fill_values).astype(_F32)
    p10 = _gather(image, ix, iy + 1, fill_values).astype(_F32)
    p11 = _gather(image, ix + 1, iy + 1, fill_values).astype(_F32)
    v0 = _fma32(fx, (p01 - p00).astype(_F32), p00)
    v1 = _fma32(fx, (p11 - p10).astype(_F32), p10)
    v0 = _fma32(fy, (v1 - v0).astype(_F32), v0)
    outside = (ix < -1) | (ix >= W) | (iy < -1) | (iy >= H)
    v0 = np.where(outside[..., None], fill_values.astype(_F32), v0)
    return _saturate(v0, image.dtype)


def _fixed_positions(mat, out_h, out_w, nearest):
    """OpenCV's fixed-point source positions: (X, Y) in 1/32 pixel (or whole pixels for nearest)."""
    m = mat
    round_delta = _AB_SCALE // 2 if nearest else _AB_SCALE // _TAB // 2
    xs = np.arange(out_w)
    ys = np.arange(out_h)
    adelta = np.rint(m[0] * xs * _AB_SCALE).astype(np.int64)
    bdelta = np.rint(m[3] * xs * _AB_SCALE).astype(np.int64)
    x0 = np.rint((m[1] * ys + m[2]) * _AB_SCALE).astype(np.int64) + round_delta
    y0 = np.rint((m[4] * ys + m[5]) * _AB_SCALE).astype(np.int64) + round_delta
    shift = _AB_BITS if nearest else _AB_BITS - _INTER_BITS
    X = (x0[:, None] + adelta[None, :]) >> shift
    Y = (y0[:, None] + bdelta[None, :]) >> shift
    return X, Y


def _cubic_1d():
    a = _F32(-0.75)
    out = np.zeros((_TAB, 4), _F32)
    for i in range(_TAB):
        x = _F32(i) * _F32(1.0 / _TAB)
        one = _F32(1)
        c0 = ((a * (x + one) - _F32(5) * a) * (x + one) + _F32(8) * a) * (x + one) - _F32(4) * a
        c1 = ((a + _F32(2)) * x - (a + _F32(3))) * x * x + one
        c2 = ((a + _F32(2)) * (one - x) - (a + _F32(3))) * (one - x) * (one - x) + one
        out[i] = [c0, c1, c2, one - c0 - c1 - c2]
    return out


def _table_2d(one_d):
    """OpenCV's 2-D fixed-point weight table (rows: y fraction, x fraction) with its sum correction."""
    k = one_d.shape[1]
    table = np.zeros((_TAB, _TAB, k, k), np.int64)
    for i in range(_TAB):
        for j in range(_TAB):
            block = np.rint((one_d[i][:, None] * one_d[j][None, :]).astype(_F32) * _F32(_REMAP_SCALE)).astype(np.int64)
            block = np.clip(block, -32768, 32767)
            diff = int(block.sum()) - _REMAP_SCALE
            if diff:
                flat = block.reshape(-1)
                half = k // 2
                lo = hi = (half, half)
                for k1 in range(half, half + 2):
                    for k2 in range(half, half + 2):
                        if flat[k1 * k + k2] < flat[lo[0] * k + lo[1]]:
                            lo = (k1, k2)
                        elif flat[k1 * k + k2] > flat[hi[0] * k + hi[1]]:
                            hi = (k1, k2)
                if diff < 0:
                    flat[hi[0] * k + hi[1]] -= diff
                else:
                    flat[lo[0] * k + lo[1]] -= diff
            table[i, j] = block
    return table


def _linear_1d():
    out = np.zeros((_TAB, 2), _F32)
    for i in range(_TAB):
        x = _F32(i) * _F32(1.0 / _TAB)
        out[i] = [_F32(1) - x, x]
    return out


def _linear_table_2d():
    """The bilinear table.  OpenCV's sum correction reads past a 2x2 block (its indices start at
    ksize/2 = 1); the effect is that a sum short of 32768 is topped up on the bottom-right weight
    and a sum over it is left as it is."""
    one_d = _linear_1d()
    table = np.zeros((_TAB, _TAB, 2, 2), np.int64)
    floats = np.zeros((_TAB, _TAB, 2, 2), _F32)
    for i in range(_TAB):
        for j in range(_TAB):
            block = (one_d[i][:, None] * one_d[j][None, :]).astype(_F32)
            floats[i, j] = block
            fixed = np.rint(block * _F32(_REMAP_SCALE)).astype(np.int64)
            diff = int(fixed.sum()) - _REMAP_SCALE
            if diff < 0:
                fixed[1, 1] -= diff
            table[i, j] = fixed
    return table, floats


_CUBIC_TABLE = None
_LINEAR_TABLES = None


def _remap_fixed(image, X, Y, mode, fill_values):
    if mode == "nearest":
        return _saturate(_gather(image, X, Y, fill_values), image.dtype) if image.dtype == np.uint8 \
            else _gather(image, X, Y, fill_values).astype(image.dtype)
    global _CUBIC_TABLE, _LINEAR_TABLES
    if mode in ("linear", "area"):
        return _remap_linear_fixed(image, X, Y, fill_values)
    if _CUBIC_TABLE is None:
        _CUBIC_TABLE = _table_2d(_cubic_1d())
    ix, iy = (X >> _INTER_BITS) - 1, (Y >> _INTER_BITS) - 1
    weights = _CUBIC_TABLE[Y & (_TAB - 1), X & (_TAB - 1)]  # (h, w, 4, 4)
    H, W = image.shape[-3], image.shape[-2]
    total = 0
    for r in range(4):
        for c in range(4):
            px = _gather(image, ix + c, iy + r, fill_values)
            total = total + px * weights[..., r, c][..., None]
    if image.dtype == np.uint8:
        out = np.clip((total.astype(np.int64) + (1 << (_REMAP_BITS - 1))) >> _REMAP_BITS, 0, 255).astype(np.uint8)
    else:
        out = (total / _REMAP_SCALE).astype(image.dtype)
    outside = (ix >= W) | (ix + 4 <= 0) | (iy >= H) | (iy + 4 <= 0)
    return np.where(outside[..., None], _saturate(fill_values, image.dtype), out)


def _remap_linear_fixed(image, X, Y, fill_values):
    global _LINEAR_TABLES
    if _LINEAR_TABLES is None:
        _LINEAR_TABLES = _linear_table_2d()
    fixed, floats = _LINEAR_TABLES
    ix, iy = X >> _INTER_BITS, Y >> _INTER_BITS
    fy, fx = Y & (_TAB - 1), X & (_TAB - 1)
    H, W = image.shape[-3], image.shape[-2]
    taps = [_gather(image, ix + c, iy + r, fill_values) for r in range(2) for c in range(2)]
    if image.dtype == np.uint8:
        w = fixed[fy, fx].reshape(fy.shape + (4,))
        total = sum(taps[k].astype(np.int64) * w[..., k][..., None] for k in range(4))
        out = np.clip((total + (1 << (_REMAP_BITS - 1))) >> _REMAP_BITS, 0, 255).astype(np.uint8)
    else:
        w = floats[fy, fx].reshape(fy.shape + (4,))
        dt = image.dtype if image.dtype == np.float64 else _F32
        total = (taps[0].astype(dt) * w[..., 0][..., None].astype(dt))
        for k in (1, 2, 3):
            total = (total + taps[k].astype(dt) * w[..., k][..., None].astype(dt)).astype(dt)
        out = total.astype(image.dtype)
    outside = (ix >= W) | (ix + 1 < 0) | (iy >= H) | (iy + 1 < 0)
    return np.where(outside[..., None], _saturate(fill_values, image.dtype), out)


def warp_affine(image, matrix, out_h, out_w, mode, fill):
    """``cv::warpAffine(image, matrix, (out_w, out_h), mode, BORDER_CONSTANT, fill)`` for (..., H, W, C)."""
    fill_values = _border(image, fill)
    inverse = invert_affine(matrix)
    if mode == "float-linear":  # OpenCV 4.11's new float kernels (not what MindSpore 2.10 runs)
        m = inverse
        xs = np.arange(out_w, dtype=_F32)
        mx = (np.arange(out_h) * m[1] + m[2]).astype(_F32)
        my = (np.arange(out_h) * m[4] + m[5]).astype(_F32)
        sx = _fma32(_F32(m[0]), xs[None, :], mx[:, None])
        sy = _fma32(_F32(m[3]), xs[None, :], my[:, None])
        return _linear_float_path(image, sx, sy, fill_values)
    X, Y = _fixed_positions(inverse, out_h, out_w, mode == "nearest")
    return _remap_fixed(image, X, Y, mode, fill_values)


def warp_perspective(image, matrix, out_h, out_w, mode, fill):
    """``cv::warpPerspective`` (forward 3x3 ``matrix``) for (..., H, W, C) images."""
    fill_values = _border(image, fill)
    m = np.linalg.inv(np.asarray(matrix, dtype=np.float64)).reshape(-1)
    if mode == "float-linear":
        xs = np.arange(out_w, dtype=_F32)
        ys = np.arange(out_h)
        mx = (ys * m[1] + m[2]).astype(_F32)
        my = (ys * m[4] + m[5]).astype(_F32)
        mw = (ys * m[7] + m[8]).astype(_F32)
        sx = _fma32(_F32(m[0]), xs[None, :], mx[:, None])
        sy = _fma32(_F32(m[3]), xs[None, :], my[:, None])
        sw = _fma32(_F32(m[6]), xs[None, :], mw[:, None])
        return _linear_float_path(image, (sx / sw).astype(_F32), (sy / sw).astype(_F32), fill_values)
    xs = np.arange(out_w)[None, :]
    ys = np.arange(out_h)[:, None]
    w = m[6] * xs + m[7] * ys + m[8]
    w = np.where(w != 0, 1.0 / np.where(w != 0, w, 1), 0.0)
    fx = (m[0] * xs + m[1] * ys + m[2]) * w
    fy = (m[3] * xs + m[4] * ys + m[5]) * w
    if mode == "nearest":
        X = np.rint(np.clip(fx, -2**31, 2**31 - 1)).astype(np.int64)
        Y = np.rint(np.clip(fy, -2**31, 2**31 - 1)).astype(np.int64)
        return _remap_fixed(image, X, Y, "nearest", fill_values)
    X = np.rint(np.clip(fx * _TAB, -2**31, 2**31 - 1)).astype(np.int64)
    Y = np.rint(np.clip(fy * _TAB, -2**31, 2**31 - 1)).astype(np.int64)
    return _remap_fixed(image, X, Y, mode, fill_values)
