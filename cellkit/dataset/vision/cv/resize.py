"""Resizing as ``cv::resize`` does it (nearest, bilinear, bicubic, area) and MindSpore's PIL-style bicubic.

For 8-bit images OpenCV interpolates with 11-bit fixed-point weights: a horizontal pass in integers,
then a vertical pass whose rounding follows its SIMD kernel (``(b0*(S0>>4) >> 16) + ... + 2 >> 2``).
Float images are interpolated in their own precision.  Exact 2x (and other integer) downscales in
bilinear mode become area averaging, as in OpenCV.

>>> import numpy as np
>>> image = np.arange(16, dtype=np.uint8).reshape(4, 4, 1) * 10
>>> resize(image, 2, 2, "linear")[..., 0]
array([[ 25,  45],
       [105, 125]], dtype=uint8)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["resize", "pil_bicubic"]

_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS
_F32 = np.float32


def _inverse_scale(dst, src):
    # OpenCV keeps inv_scale = dst/src and uses 1/inv_scale, not src/dst (the roundings differ)
    return 1.0 / (dst / src)


def _linear_table(dst, src, clamp, area=False):
    """Source indices and (float32) weights of the two taps of each output position."""
    scale = _inverse_scale(dst, src)
    d = np.arange(dst)
    if area:  # INTER_AREA when enlarging: bilinear with OpenCV's area-style coordinates
        index = np.floor(d * scale).astype(np.int64)
        frac = ((d + 1) - (index + 1) * (dst / src)).astype(_F32)
        frac = np.where(frac <= 0, _F32(0), frac - np.floor(frac)).astype(_F32)
    else:
        pos = ((d + 0.5) * scale - 0.5).astype(_F32)
        index = np.floor(pos).astype(np.int64)
        frac = (pos - index).astype(_F32)
    if clamp:  # OpenCV clamps the horizontal table only; rows are clamped when fetched
        low = index < 0
        frac[low], index[low] = 0, 0
        high = index >= src - 1
        frac[high], index[high] = 0, src - 1
    w1 = frac
    w0 = (_F32(1) - frac).astype(_F32)
    return np.clip(index, 0, src - 1), np.clip(index + 1, 0, src - 1), w0, w1


def _fixed(weights):
    return np.rint((weights * _F32(_COEF_SCALE)).astype(_F32)).astype(np.int64)


def _take(image, index, axis):
    return np.take(image, index, axis=axis)


def _linear_u8(image, h, w, area=False):
    H, W = image.shape[-3], image.shape[-2]
    x0, x1, a0, a1 = _linear_table(w, W, True, area)
    y0, y1, b0, b1 = _linear_table(h, H, False, area)
    src = image.astype(np.int64)
    a0, a1 = _fixed(a0)[:, None], _fixed(a1)[:, None]
    horiz = _take(src, x0, -2) * a0 + _take(src, x1, -2) * a1
    s0, s1 = _take(horiz, y0, -3), _take(horiz, y1, -3)
    b0, b1 = _fixed(b0)[:, None, None], _fixed(b1)[:, None, None]
    out = (((s0 >> 4) * b0 >> 16) + ((s1 >> 4) * b1 >> 16) + 2) >> 2
    return np.clip(out, 0, 255).astype(np.uint8)


def _linear_float(image, h, w, area=False):
    H, W = image.shape[-3], image.shape[-2]
    dt = image.dtype
    x0, x1, a0, a1 = _linear_table(w, W, True, area)
    y0, y1, b0, b1 = _linear_table(h, H, False, area)
    a0, a1 = a0.astype(dt)[:, None], a1.astype(dt)[:, None]
    horiz = (_take(image, x0, -2) * a0 + _take(image, x1, -2) * a1).astype(dt)
    b0, b1 = b0.astype(dt)[:, None, None], b1.astype(dt)[:, None, None]
    return (_take(horiz, y0, -3) * b0 + _take(horiz, y1, -3) * b1).astype(dt)


def _nearest(image, h, w):
    H, W = image.shape[-3], image.shape[-2]
    xs = np.minimum(np.floor(np.arange(w) * _inverse_scale(w, W)).astype(np.int64), W - 1)
    ys = np.minimum(np.floor(np.arange(h) * _inverse_scale(h, H)).astype(np.int64), H - 1)
    return _take(_take(image, ys, -3), xs, -2)


def _cubic_weights(frac):
    a = _F32(-0.75)
    x = frac.astype(_F32)
    one = _F32(1)
    x1 = x + one
    c0 = ((a * x1 - _F32(5) * a) * x1 + _F32(8) * a) * x1 - _F32(4) * a
    c1 = ((a + _F32(2)) * x - (a + _F32(3))) * x * x + one
    g = one - x
    c2 = ((a + _F32(2)) * g - (a + _F32(3))) * g * g + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], -1).astype(_F32)


def _cubic_table(dst, src):
    pos = ((np.arange(dst) + 0.5) * _inverse_scale(dst, src) - 0.5).astype(_F32)
    index = np.floor(pos).astype(np.int64)
    weights = _cubic_weights((pos - index).astype(_F32))
    taps = np.clip(index[:, None] - 1 + np.arange(4)[None, :], 0, src - 1)
    return taps, weights


def _cubic_u8(image, h, w):
    H, W = image.shape[-3], image.shape[-2]
    xt, xw = _cubic_table(w, W)
    yt, yw = _cubic_table(h, H)
    xi = _fixed(xw)
    yi = _fixed(yw)
    src = image.astype(np.int64)
    horiz = sum(_take(src, xt[:, k], -2) * xi[:, k][:, None] for k in range(4))
    rows = [_take(horiz, yt[:, k], -3) for k in range(4)]
    # OpenCV's vector kernel (float, 8 values at a time) for most of a row, fixed point for the tail
    scale = _F32(1.0 / (_COEF_SCALE * _COEF_SCALE))
    acc = None
    for k in range(4):
        term = rows[k].astype(_F32) * (yi[:, k].astype(_F32) * scale)[:, None, None]
        acc = term if acc is None else (acc + term).astype(_F32)
    vector = np.rint(acc).astype(np.int64)
    scalar = sum(rows[k] * yi[:, k][:, None, None] for k in range(4))
    scalar = (scalar + (1 << 21)) >> 22
    width = w * image.shape[-1]
    done = (width // 8) * 8
    flat_v = vector.reshape(vector.shape[:-2] + (width,))
    flat_s = scalar.reshape(scalar.shape[:-2] + (width,)).copy()
    flat_s[..., :done] = flat_v[..., :done]
    return np.clip(flat_s.reshape(scalar.shape), 0, 255).astype(np.uint8)


def _cubic_float(image, h, w):
    H, W = image.shape[-3], image.shape[-2]
    dt = image.dtype
    xt, xw = _cubic_table(w, W)
    yt, yw = _cubic_table(h, H)
    xw, yw = xw.astype(dt), yw.astype(dt)
    horiz = _take(image, xt[:, 0], -2) * xw[:, 0][:, None]
    for k in (1, 2, 3):
        horiz = (horiz + _take(image, xt[:, k], -2) * xw[:, k][:, None]).astype(dt)
    rows = [_take(horiz, yt[:, k], -3) * yw[:, k][:, None, None] for k in range(4)]
    forward = rows[0]
    for k in (1, 2, 3):
        forward = (forward + rows[k]).astype(dt)
    if dt != np.float32:
        return forward
    backward = rows[3]  # float32 rows: OpenCV's vector kernel sums from the last tap
    for k in (2, 1, 0):
        backward = (rows[k] + backward).astype(dt)
    width = w * image.shape[-1]
    done = (width // 4) * 4
    flat_f = forward.reshape(forward.shape[:-2] + (width,)).copy()
    flat_f[..., :done] = backward.reshape(forward.shape[:-2] + (width,))[..., :done]
    return flat_f.reshape(forward.shape)


def _area_table(src, dst, scale):
    entries = []
    for d in range(dst):
        start = d * scale
        end = start + scale
        cell = min(scale, src - start)
        first = int(math.ceil(start))
        last = min(int(math.floor(end)), src - 1)
        first = min(first, last)
        # OpenCV stores these weights as float32
        if first - start > 1e-3:
            entries.append((d, first - 1, float(_F32((first - start) / cell))))
        for s in range(first, last):
            entries.append((d, s, float(_F32(1.0 / cell))))
        if end - last > 1e-3:
            entries.append((d, last, float(_F32(min(min(end - last, 1.0), cell) / cell))))
    return entries


def _area(image, h, w):
    H, W = image.shape[-3], image.shape[-2]
    sx, sy = _inverse_scale(w, W), _inverse_scale(h, H)
    if sx < 1 or sy < 1:  # enlarging: bilinear with area coordinates
        return _linear_u8(image, h, w, True) if image.dtype == np.uint8 else _linear_float(image, h, w, True)
    ix, iy = int(round(sx)), int(round(sy))
    u8 = image.dtype == np.uint8
    wt = _F32 if u8 else image.dtype.type
    if abs(sx - ix) < 2.220446049250313e-16 and abs(sy - iy) < 2.220446049250313e-16:
        blocks = image.reshape(image.shape[:-3] + (h, iy, w, ix, image.shape[-1]))
        if u8:
            total = blocks.astype(np.int64).sum(axis=(-4, -2))
            if ix == 2 and iy == 2:
                out = (total + 2) >> 2
            else:
                out = np.rint((total.astype(_F32) * _F32(1.0 / (ix * iy))).astype(_F32))
            return np.clip(out, 0, 255).astype(np.uint8)
        terms = [blocks[..., :, yy, :, xx, :] for yy in range(iy) for xx in range(ix)]
        acc = np.zeros_like(terms[0])
        k = 0
        while k <= len(terms) - 4:  # OpenCV sums four at a time, then adds to the running sum
            chunk = (((terms[k] + terms[k + 1]).astype(wt) + terms[k + 2]).astype(wt) + terms[k + 3]).astype(wt)
            acc = (acc + chunk).astype(wt)
            k += 4
        while k < len(terms):
            acc = (acc + terms[k]).astype(wt)
            k += 1
        return (acc * wt(1.0 / (ix * iy))).astype(image.dtype)
    src = image.astype(wt)
    buf = np.zeros(image.shape[:-2] + (w, image.shape[-1]), wt)
    for d, s, a in _area_table(W, w, sx):
        buf[..., d, :] = (buf[..., d, :] + src[..., s, :] * wt(a)).astype(wt)
    out = np.zeros(image.shape[:-3] + (h, w, image.shape[-1]), wt)
    started = set()
    for d, s, b in _area_table(H, h, sy):
        term = (wt(b) * buf[..., s, :, :]).astype(wt)
        if d in started:
            out[..., d, :, :] = (out[..., d, :, :] + term).astype(wt)
        else:
            out[..., d, :, :] = term
            started.add(d)
    if u8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(image.dtype)


def resize(image, height, width, mode="linear"):
    """``image`` (..., H, W, C) resized to (height, width); mode: nearest, linear, cubic or area."""
    H, W = image.shape[-3], image.shape[-2]
    if (H, W) == (height, width) and mode in ("nearest",):
        return image.copy()
    if mode == "nearest":
        return _nearest(image, height, width)
    u8 = image.dtype == np.uint8
    if mode == "linear":
        sx, sy = _inverse_scale(width, W), _inverse_scale(height, H)
        if sx == 2 and sy == 2 and image.shape[-1] != 2:  # OpenCV: an exact halving is area averaging
            return _area(image, height, width)
        if u8:
            return _linear_u8(image, height, width)
        return _linear_float(_as_float(image), height, width).astype(_result_dtype(image))
    if mode == "cubic":
        if u8:
            return _cubic_u8(image, height, width)
        return _cubic_float(_as_float(image), height, width).astype(_result_dtype(image))
    if mode == "area":
        return _area(image if u8 else _as_float(image), height, width).astype(_result_dtype(image))
    raise ValueError(f"unknown resize mode {mode!r}")


def _as_float(image):
    return image if image.dtype in (np.float32, np.float64) else image.astype(np.float32)


def _result_dtype(image):
    return image.dtype


# ---------------------------------------------------------------- MindSpore's PIL-style bicubic
_PRECISION = 22


def _pil_filter(x):
    a = -0.5
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    if x < 2.0:
        return (((x - 5) * x + 8) * x - 4) * a
    return 0.0


def _pil_coefficients(src, dst):
    scale = src / dst
    support_scale = max(scale, 1.0)
    support = 2.0 * support_scale
    size = int(math.ceil(support)) * 2 + 1
    bounds, table = [], np.zeros((dst, size), np.int64)
    for d in range(dst):
        center = (d + 0.5) * scale
        first = max(int(center - support + 0.5), 0)
        count = min(int(center + support + 0.5), src) - first
        weights = [_pil_filter((k + first - center + 0.5) / support_scale) for k in range(count)]
        total = sum(weights)
        for k, v in enumerate(weights):
            v = v / total if total != 0.0 else v
            table[d, k] = int(-0.5 + v * (1 << _PRECISION)) if v < 0 else int(0.5 + v * (1 << _PRECISION))
        bounds.append((first, count))
    return bounds, table


def _pil_pass(values, bounds, table, axis):
    out = []
    for (first, count), weights in zip(bounds, table):
        acc = np.full(np.delete(values.shape, axis), 1 << (_PRECISION - 1), np.int64)
        for k in range(count):
            acc = acc + np.take(values, first + k, axis=axis) * int(weights[k])
        acc = ((acc + 2**31) % 2**32) - 2**31  # the C code sums in 32-bit ints
        out.append(np.clip(acc >> _PRECISION, 0, 255))
    return np.stack(out, axis=axis)


def pil_bicubic(image, height, width):
    """``Inter.PILCUBIC``: MindSpore's port of PIL's bicubic resampling, for uint8 (..., H, W, 3) images."""
    H, W = image.shape[-3], image.shape[-2]
    values = image.astype(np.int64)
    xb, xt = _pil_coefficients(W, width)
    yb, yt = _pil_coefficients(H, height)
    if width != W:
        first = yb[0][0]
        last = yb[-1][0] + yb[-1][1]
        values = _pil_pass(values[..., first:last, :, :], xb, xt, values.ndim - 2)
        yb = [(f - first, c) for f, c in yb]
    if height != H:
        values = _pil_pass(values, yb, yt, values.ndim - 3)
    return values.astype(np.uint8)
