"""Pooling beyond max_pool2d / avg_pool2d: 1-D and 3-D, adaptive, Lp, fractional pooling and max-unpooling.

Every pooling here is described by a *window table*: for each output position, the flat
(row-major) indices of the input elements its window covers, ``-1`` where the window lies
on padding.  Regular windows (kernel, stride, dilation, padding, ``ceil_mode``), adaptive
windows (``floor(i * L / out)`` to ``ceil((i + 1) * L / out)``) and fractional windows
(pseudo-random starts) only differ in how the table is built, on the host, from the
shapes alone.  Then:

- average pooling reads the table's elements and takes a weighted sum (the weights are
  ``1 / divisor`` on real elements, 0 on padding);
- max pooling finds each window's winner (NaN wins, then the first maximum) and reads
  the winners.

Both are written as cellkit's own gather, multiply and sum on Tensors while a gradient
transform records, so their gradients (scatter-adds of the output gradient into the
window elements or the winners) differentiate again to any order; outside a transform
they run on plain arrays.  ``max_unpool`` is the scatter itself.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor(np.arange(8.0, dtype=np.float32).reshape(1, 1, 8))
>>> print(ops.avg_pool1d(x, kernel_size=2, stride=2))
[[[0.5 2.5 4.5 6.5]]]
>>> print(ops.adaptive_max_pool1d(x, 2))
[[[3. 7.]]]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from . import nn_ops as _nn_ops
from . import reduce as _reduce
from . import shape_ops as _shape
from ._core import backend, describe, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = [
    "avg_pool1d", "avg_pool3d", "max_pool3d", "lp_pool1d", "lp_pool2d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "AvgPool3D", "MaxPool3D",
    "MaxPool3DWithArgmax", "MaxPoolWithArgmaxV2", "MaxUnpool2D", "MaxUnpool3D", "FractionalMaxPool",
    "FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize",
]

_MAX_ELEMENTS = 2 ** 31  # a window table or an output larger than this is refused before it is built
_ints = _nn_ops._ints


# -- window tables (host NumPy, from shapes only) ------------------------------------------------------
def _combine(axis_positions, spatial):
    """Per-axis ``(out_i, k_i)`` position tables (``-1`` = padding) -> the (P, K) flat index table."""
    ndim = len(spatial)
    strides = [int(np.prod(spatial[i + 1:], dtype=np.int64)) for i in range(ndim)]
    outs = [p.shape[0] for p in axis_positions]
    ks = [p.shape[1] for p in axis_positions]
    flat = np.zeros(tuple(outs) + tuple(ks), np.int64)
    bad = np.zeros(flat.shape, bool)
    for i, pos in enumerate(axis_positions):
        shape = [1] * (2 * ndim)
        shape[i], shape[ndim + i] = pos.shape
        p = pos.reshape(shape)
        flat = flat + np.where(p < 0, 0, p) * strides[i]
        bad = bad | (p < 0)
    flat = np.where(bad, -1, flat)
    return flat.reshape(int(np.prod(outs)), int(np.prod(ks)))


def _regular_positions(n, k, s, d, lo, out):
    """The input positions of each window along one axis (``-1`` outside the input)."""
    pos = (np.arange(out) * s - lo)[:, None] + (np.arange(k) * d)[None, :]
    return np.where((pos >= 0) & (pos < n), pos, -1)


def _adaptive_positions(n, out):
    """Adaptive windows ``[floor(i n / out), ceil((i + 1) n / out))``, padded by repeating their last element."""
    starts = (np.arange(out) * n) // out
    ends = -((-(np.arange(out) + 1) * n) // out)
    width = int((ends - starts).max())
    pos = starts[:, None] + np.arange(width)[None, :]
    return np.minimum(pos, (ends - 1)[:, None])


def _check_size(elements, what, op):
    if elements >= _MAX_ELEMENTS:
        raise ValueError(f"For '{op}', the {what} would hold {elements} elements, more than this op allows "
                         f"({_MAX_ELEMENTS})")


# -- the two engines ------------------------------------------------------------------------------------
def _device(host):
    return backend().from_host(host)


def _global_table(table, n_planes, plane_size):
    """A (planes, P, K) table of indices into the whole flattened input; ``-1`` stays ``-1``.

    ``table`` is (P, K) (the same windows for every plane) or (planes, P, K).
    """
    offsets = (np.arange(n_planes, dtype=np.int64) * plane_size).reshape(-1, 1, 1)
    table = np.broadcast_to(table, (n_planes,) + table.shape[-2:])
    return np.where(table < 0, -1, table + offsets)


def _pool_avg(xt, X, table, weights, out_shape, op):
    """``sum_k x[table[.., k]] * weights[.., k]``: average pooling (and every other linear window sum)."""
    n_planes = int(np.prod(X.shape[:2]))
    plane = int(np.prod(X.shape[2:], dtype=np.int64))
    glob = _global_table(table, n_planes, plane)
    _check_size(glob.size, "window table", op)
    valid = glob >= 0
    index = _device(np.where(valid, glob, 0).reshape(-1))
    w = np.broadcast_to(np.where(valid, weights, 0.0), glob.shape)
    x = xp()
    if _ag._depth == 0 or xt._node is None:
        flat = x.reshape(X, (-1,))
        vals = x.reshape(x.take(flat, index, axis=0), glob.shape)
        out = x.sum(vals * _device(w.astype(_host_dtype(X))), axis=-1)
        return wrap(x.reshape(out, out_shape))
    flat_t = _shape.reshape(xt, (-1,))
    vals = _shape.reshape(_shape.gather(flat_t, wrap(index), 0), glob.shape)
    out = _reduce.sum(vals * wrap(_device(w.astype(_host_dtype(X)))), -1)
    return _shape.reshape(out, out_shape)


def _host_dtype(a):
    return np.dtype(str(a.dtype).rsplit(".", 1)[-1])


def _lowest(X):
    if _dt.dtype_of(X).kind == "float":
        return -float("inf")
    return int(np.iinfo(_host_dtype(X)).min)


def _pool_max(xt, X, table, out_shape, op):
    """Each window's maximum (NaN wins, then the first maximum) and its flat index within its plane."""
    n_planes = int(np.prod(X.shape[:2]))
    plane = int(np.prod(X.shape[2:], dtype=np.int64))
    glob = _global_table(table, n_planes, plane)
    _check_size(glob.size, "window table", op)
    x = xp()
    total = n_planes * plane
    flat = x.reshape(X, (-1,))
    if _dt.dtype_of(X) is _dt.bool_:
        flat = x.astype(flat, x.int8)
    lowest = x.full((1,), _lowest(flat), dtype=flat.dtype) if backend().is_numpy else \
        x.full((1,), _lowest(flat), dtype=flat.dtype, device=flat.device)
    extended = x.concat([flat, lowest], axis=0)
    index = _device(np.where(glob < 0, total, glob).reshape(-1))
    vals = x.reshape(x.take(extended, index, axis=0), glob.shape)
    K = glob.shape[-1]
    if _dt.dtype_of(vals).kind == "float":
        # NaN wins: put NaN positions above everything (argmax alone does not promise it on every namespace)
        nan = x.isnan(vals)
        key = x.where(nan, x.full(vals.shape, float("inf"), dtype=vals.dtype) if backend().is_numpy else
                      x.full(vals.shape, float("inf"), dtype=vals.dtype, device=vals.device), vals)
        arg = x.argmax(key, axis=-1)
        if backend().is_numpy and K > 1:  # a NaN among infinities: the first NaN, not the first inf
            has_nan = nan.any(axis=-1)
            if has_nan.any():
                arg = np.where(has_nan, np.argmax(nan, axis=-1), arg)
    else:
        arg = x.argmax(vals, axis=-1)
    arange = _device(np.arange(glob.size // K, dtype=np.int64) * K)
    winners = x.take(index, arange + x.reshape(x.astype(arg, x.int64), (-1,)), axis=0)
    best = x.take(extended, winners, axis=0)
    if _dt.dtype_of(X) is _dt.bool_:
        best = x.astype(best, X.dtype)
    offsets = _device(np.repeat(np.arange(n_planes, dtype=np.int64) * plane, glob.shape[1]))
    local = winners - offsets
    if _ag._depth == 0 or xt._node is None:
        out = wrap(x.reshape(best, out_shape))
    else:
        out = _shape.reshape(_shape.gather(_shape.reshape(xt, (-1,)), wrap(winners), 0), out_shape)
    return out, x.reshape(local, out_shape)


# -- shared argument handling -----------------------------------------------------------------------------
def _input(value, name, op, ndims, layout, floats_only=False, allow_int=True):
    t = tensor_arg(value, name, op)
    if t.ndim not in ndims:
        expected = " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(f"For '{op}', '{name}' must be a {expected} Tensor {layout}, but got shape {t.shape} "
                         f"({t.ndim} dimensions)")
    kind = _dt.dtype_of(t._data).kind
    if (floats_only and kind != "float") or kind == "bool" or (not allow_int and kind != "float"):
        raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
    if any(d == 0 for d in t.shape):
        raise ValueError(f"For '{op}', '{name}' must not be empty, but got shape {t.shape}")
    return t


def _batched(t, ndim):
    """A Tensor with ``ndim`` spatial axes viewed as (N, C, *spatial): an unbatched one gets N = 1."""
    if t.ndim == ndim + 2:
        return t, False
    return _shape.expand_dims(t, 0), True


def _unbatch(out, was_unbatched):
    if not was_unbatched:
        return out
    if isinstance(out, tuple):
        return tuple(_unbatch(o, True) for o in out)
    if isinstance(out, Tensor):
        return _shape.squeeze(out, 0)
    return out[0]


def _bool(value, name, op):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {describe(value)}")
    return bool(value)


def _out_sizes(spatial, kernel, stride, dilation, pads, ceil_mode, op, shape):
    outs = []
    for n, k, s, d, (lo, hi) in zip(spatial, kernel, stride, dilation, pads):
        o = _nn_ops._out_size(n, k, s, d, lo, hi, ceil_mode)
        if o < 1:
            raise ValueError(f"For '{op}', the input of shape {tuple(shape)}, padded by {tuple(pads)}, is smaller "
                             f"than the kernel {tuple(kernel)} dilated by {tuple(dilation)}")
        outs.append(o)
    return tuple(outs)


def _regular_table(spatial, kernel, stride, dilation, pads, outs):
    return _combine([_regular_positions(n, k, s, d, lo, o)
                     for n, k, s, d, (lo, _), o in zip(spatial, kernel, stride, dilation, pads, outs)], spatial)


def _divisors(spatial, kernel, stride, pads, outs, count_include_pad, divisor_override):
    """The divisor of each output position, shaped (P, 1): the window's size, counted MindSpore's way."""
    if divisor_override:
        return np.full((int(np.prod(outs)), 1), float(divisor_override))
    per_axis = []
    for n, k, s, (lo, hi), o in zip(spatial, kernel, stride, pads, outs):
        start = np.arange(o) * s - lo
        end = np.minimum(start + k, n + hi)
        per_axis.append(end - start if count_include_pad else np.minimum(end, n) - np.maximum(start, 0))
    grid = per_axis[0]
    for counts in per_axis[1:]:
        grid = np.multiply.outer(grid, counts)
    return grid.reshape(-1, 1).astype(np.float64)


def _avg_pool_nd(xt, kernel, stride, pads, ceil_mode, count_include_pad, divisor_override, op):
    X = xt._data
    if _dt.dtype_of(X).kind != "float":
        raise TypeError(f"For '{op}', 'input_x' must be a float Tensor, but got {xt.dtype}")
    spatial = tuple(X.shape[2:])
    for k, (lo, hi) in zip(kernel, pads):
        if lo > k or hi > k:
            raise ValueError(f"For '{op}', the padding {tuple(pads)} must not exceed the kernel {tuple(kernel)}")
    outs = _out_sizes(spatial, kernel, stride, (1,) * len(kernel), pads, ceil_mode, op, X.shape)
    _check_size(int(np.prod(X.shape[:2])) * int(np.prod(outs)) * int(np.prod(kernel)), "window table", op)
    table = _regular_table(spatial, kernel, stride, (1,) * len(kernel), pads, outs)
    weights = 1.0 / _divisors(spatial, kernel, stride, pads, outs, count_include_pad, divisor_override)
    return _pool_avg(xt, X, table, weights, tuple(X.shape[:2]) + outs, op)


def _max_pool_nd(xt, kernel, stride, dilation, pads, ceil_mode, op):
    X = xt._data
    spatial = tuple(X.shape[2:])
    for k, (lo, hi) in zip(kernel, pads):
        if lo > k // 2 or hi > k // 2:
            raise ValueError(f"For '{op}', the padding {tuple(p[0] for p in pads)} must be at most half of the "
                             f"kernel {tuple(kernel)}")
    outs = _out_sizes(spatial, kernel, stride, dilation, pads, ceil_mode, op, X.shape)
    _check_size(int(np.prod(X.shape[:2])) * int(np.prod(outs)) * int(np.prod(kernel)), "window table", op)
    table = _regular_table(spatial, kernel, stride, dilation, pads, outs)
    return _pool_max(xt, X, table, tuple(X.shape[:2]) + outs, op)


def _indices(local, dtype=_dt.int64):
    x = xp()
    return wrap(x.astype(local, dtype.to_backend(x)))


# -- average pooling ------------------------------------------------------------------------------------------
def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling of an ``(N, C, L)`` tensor.

    ``padding`` (an int or a tuple of one int) adds zeros at both ends; ``count_include_pad``
    decides whether they count in each window's divisor.

    >>> import cellkit as ms
    >>> print(avg_pool1d(ms.Tensor([[[1.0, 2.0, 3.0]]]), kernel_size=2, stride=1))
    [[[1.5 2.5]]]
    """
    op = "avg_pool1d"
    xt = _input(input_x, "input_x", op, (3,), "(N, C, L)")
    (k,) = _ints(kernel_size, "kernel_size", op, (1,), 1)
    (s,) = _ints(stride, "stride", op, (1,), 1)
    (p,) = _ints(padding, "padding", op, (1,), 0)
    return _avg_pool_nd(xt, (k,), (s,), ((p, p),), _bool(ceil_mode, "ceil_mode", op),
                        _bool(count_include_pad, "count_include_pad", op), 0, op)


def _pads_pairs(padding, op, ndim, name="padding", lengths=None):
    lengths = lengths or (ndim, 2 * ndim)
    values = _ints(padding, name, op, lengths, 0)
    if len(values) == ndim:
        return tuple((v, v) for v in values)
    return tuple(zip(values[0::2], values[1::2]))


def _divisor(value, op):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0 or value >= 2 ** 31:
        raise ValueError(f"For '{op}', 'divisor_override' must be a non-negative int, but got {describe(value)}")
    return int(value)


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """3-D average pooling of an ``(N, C, D, H, W)`` tensor.

    ``padding`` is an int or ``(head, tail, top, bottom, left, right)``; ``divisor_override``
    (if not 0) replaces every window's divisor.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(8.0, dtype=np.float32).reshape(1, 1, 2, 2, 2))
    >>> print(avg_pool3d(x, kernel_size=2).reshape(-1))
    [3.5]
    """
    op = "avg_pool3d"
    xt = _input(input_x, "input_x", op, (5,), "(N, C, D, H, W)")
    kernel = _ints(kernel_size, "kernel_size", op, (3,), 1)
    stride = _ints(stride, "stride", op, (3,), 1)
    pads = _pads_pairs(padding, op, 3, lengths=(6,))
    return _avg_pool_nd(xt, kernel, stride, pads, _bool(ceil_mode, "ceil_mode", op),
                        _bool(count_include_pad, "count_include_pad", op), _divisor(divisor_override, op), op)


# -- max pooling -----------------------------------------------------------------------------------------------
def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling of an ``(N, C, D, H, W)`` tensor; ``return_indices`` adds each maximum's flat index.

    The index counts within one channel's ``D * H * W`` volume (Int64); NaN wins a window.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(8.0, dtype=np.float32).reshape(1, 1, 2, 2, 2))
    >>> out, idx = max_pool3d(x, 2, return_indices=True)
    >>> print(out.reshape(-1), idx.reshape(-1))
    [7.] [7]
    """
    op = "max_pool3d"
    xt = _input(x, "x", op, (5,), "(N, C, D, H, W)")
    kernel = _ints(kernel_size, "kernel_size", op, (3,), 1)
    stride = kernel if stride is None else _ints(stride, "stride", op, (3,), 1)
    dilation = _ints(dilation, "dilation", op, (3,), 1)
    pads = _pads_pairs(padding, op, 3, lengths=(3,))
    out, local = _max_pool_nd(xt, kernel, stride, dilation, pads, _bool(ceil_mode, "ceil_mode", op), op)
    return (out, _indices(local)) if _bool(return_indices, "return_indices", op) else out


# -- Lp pooling -------------------------------------------------------------------------------------------------
def _lp_pool(x, norm_type, kernel_size, stride, ceil_mode, op, ndim):
    from . import math as _math

    if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real):
        raise TypeError(f"For '{op}', 'norm_type' must be a float or an int, but got {describe(norm_type)}")
    if norm_type == 0 or math.isnan(norm_type):
        raise ValueError(f"For '{op}', 'norm_type' must not be 0, but got {norm_type}")
    layout = "(N, C, L)" if ndim == 1 else "(N, C, H, W)"
    xt = _input(x, "x", op, (ndim + 1, ndim + 2), layout, floats_only=True)
    kernel = _ints(kernel_size, "kernel_size", op, (ndim,), 1)
    stride = kernel if stride is None else _ints(stride, "stride", op, (ndim,), 1)
    ceil_mode = _bool(ceil_mode, "ceil_mode", op)
    t, unbatched = _batched(xt, ndim)
    pads = ((0, 0),) * ndim
    if math.isinf(norm_type):
        out, _ = _max_pool_nd(t, kernel, stride, (1,) * ndim, pads, ceil_mode, op)
        return _unbatch(out, unbatched)
    p = float(norm_type)
    powered = _math.pow(t, p)
    summed = _avg_pool_nd(powered, kernel, stride, pads, ceil_mode, True, 1, op)
    # sign(s) * relu(|s|) ** (1 / p), as PyTorch and MindSpore write it (a negative sum of odd powers keeps its sign)
    out = _math.sign(summed) * _math.pow(_math.abs(summed), 1.0 / p)
    return _unbatch(out, unbatched)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling ``(sum over the window of x ** p) ** (1 / p)`` of an ``(N, C, L)`` or ``(C, L)`` tensor.

    ``norm_type`` is ``p`` (not 0; ``inf`` gives max pooling).

    >>> import cellkit as ms
    >>> print(lp_pool1d(ms.Tensor([[[3.0, 4.0]]]), 2, 2))
    [[[5.]]]
    """
    return _lp_pool(x, norm_type, kernel_size, stride, ceil_mode, "lp_pool1d", 1)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D power-average pooling of an ``(N, C, H, W)`` tensor: see :func:`lp_pool1d`.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(lp_pool2d(ms.Tensor(np.ones((1, 1, 2, 2), np.float32)), 1, 2))
    [[[[4.]]]]
    """
    return _lp_pool(x, norm_type, kernel_size, stride, ceil_mode, "lp_pool2d", 2)


# -- adaptive pooling ---------------------------------------------------------------------------------------------
def _output_size(output_size, spatial, op, name="output_size", allow_none=True):
    ndim = len(spatial)
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        values = (int(output_size),) * ndim
    elif isinstance(output_size, (tuple, list)) and len(output_size) == ndim:
        values = tuple(output_size)
    elif isinstance(output_size, (tuple, list)):
        raise ValueError(f"For '{op}', '{name}' must be an int or a tuple of {ndim} ints, but got {output_size!r}")
    else:
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of ints, but got {describe(output_size)}")
    out = []
    for v, n in zip(values, spatial):
        if v is None and allow_none:
            out.append(int(n))
            continue
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For '{op}', '{name}' must hold ints{' or None' if allow_none else ''}, but got "
                            f"{output_size!r}")
        if not 1 <= v < _MAX_ELEMENTS:
            raise ValueError(f"For '{op}', '{name}' must hold positive sizes, but got {output_size!r}")
        out.append(int(v))
    return tuple(out)


def _adaptive(input, output_size, op, ndim, kind, return_indices=False, index_dtype=_dt.int64, divisible=False):
    layouts = {1: "(N, C, L)", 2: "(N, C, H, W) or (C, H, W)", 3: "(N, C, D, H, W) or (C, D, H, W)"}
    ndims = (3,) if ndim == 1 else (ndim + 1, ndim + 2)
    xt = _input(input, "input", op, ndims, layouts[ndim], floats_only=True)
    t, unbatched = _batched(xt, ndim)
    spatial = tuple(t.shape[2:])
    outs = _output_size(output_size, spatial, op, allow_none=ndim > 1)
    if divisible:
        (o,), (n,) = outs, spatial
        if n < o or n % o:
            raise ValueError(f"For '{op}', the input's last dimension {n} must be divisible by (and at least) "
                             f"'output_size' {o}")
    _check_size(int(np.prod(t.shape[:2])) * int(np.prod(outs)), "output", op)
    positions = [_adaptive_positions(n, o) for n, o in zip(spatial, outs)]
    _check_size(int(np.prod(t.shape[:2])) * int(np.prod([p.size for p in positions], dtype=np.float64)),
                "window table", op)
    table = _combine(positions, spatial)
    out_shape = tuple(t.shape[:2]) + outs
    if kind == "avg":
        starts = [(np.arange(o) * n) // o for n, o in zip(spatial, outs)]
        ends = [-((-(np.arange(o) + 1) * n) // o) for n, o in zip(spatial, outs)]
        sizes = ends[0] - starts[0]
        for s, e in zip(starts[1:], ends[1:]):
            sizes = np.multiply.outer(sizes, e - s)
        # windows are padded by repeating their last element: only the first `size` entries count
        weights = np.zeros(table.shape)
        counts = [e - s for s, e in zip(starts, ends)]
        ks = [p.shape[1] for p in positions]
        mask = np.ones([len(c) for c in counts] + ks, bool)
        for i, c in enumerate(counts):
            shape = [1] * (2 * ndim)
            shape[i], shape[ndim + i] = len(c), ks[i]
            within = (np.arange(ks[i])[None, :] < c[:, None]).reshape(shape)
            mask = mask & within
        weights = mask.reshape(table.shape) / sizes.reshape(-1, 1)
        return _unbatch(_pool_avg(t, t._data, table, weights, out_shape, op), unbatched)
    out, local = _pool_max(t, t._data, table, out_shape, op)
    if not return_indices:
        return _unbatch(out, unbatched)
    return _unbatch((out, _indices(local, index_dtype)), unbatched)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of an ``(N, C, L)`` tensor down to ``output_size`` windows of ``L / output_size``.

    As in MindSpore, ``L`` must be a multiple of ``output_size``.

    >>> import cellkit as ms
    >>> print(adaptive_avg_pool1d(ms.Tensor([[[1.0, 3.0, 5.0, 7.0]]]), 2))
    [[[2. 6.]]]
    """
    return _adaptive(input, output_size, "adaptive_avg_pool1d", 1, "avg", divisible=True)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` ``(H_out, W_out)`` (an int for both; ``None`` keeps an axis).

    Window ``i`` of an axis of length ``n`` covers ``[floor(i n / out), ceil((i + 1) n / out))``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(9.0, dtype=np.float32).reshape(1, 1, 3, 3))
    >>> print(adaptive_avg_pool2d(x, 2))
    [[[[2. 3.]
       [5. 6.]]]]
    """
    return _adaptive(input, output_size, "adaptive_avg_pool2d", 2, "avg")


def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling to a fixed ``output_size`` ``(D_out, H_out, W_out)``: see :func:`adaptive_avg_pool2d`.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(adaptive_avg_pool3d(ms.Tensor(np.ones((1, 1, 2, 2, 2), np.float32)), 1).reshape(-1))
    [1.]
    """
    return _adaptive(input, output_size, "adaptive_avg_pool3d", 3, "avg")


def adaptive_max_pool1d(input, output_size):
    """Max pooling of an ``(N, C, L)`` tensor down to ``output_size`` windows (``L`` a multiple of it).

    >>> import cellkit as ms
    >>> print(adaptive_max_pool1d(ms.Tensor([[[1.0, 3.0, 5.0, 2.0]]]), 2))
    [[[3. 5.]]]
    """
    return _adaptive(input, output_size, "adaptive_max_pool1d", 1, "max", divisible=True)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed ``output_size`` (windows as in :func:`adaptive_avg_pool2d`).

    With ``return_indices`` the flat ``h * W + w`` index of each maximum comes too (Int64).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(9.0, dtype=np.float32).reshape(1, 1, 3, 3))
    >>> print(adaptive_max_pool2d(x, 1, return_indices=True)[1])
    [[[[8]]]]
    """
    op = "adaptive_max_pool2d"
    return _adaptive(input, output_size, op, 2, "max", _bool(return_indices, "return_indices", op))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D max pooling to a fixed ``output_size``; the indices (if asked for) are Int32, as in MindSpore.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(adaptive_max_pool3d(ms.Tensor(np.ones((1, 1, 2, 2, 2), np.float32)), 1).reshape(-1))
    [1.]
    """
    op = "adaptive_max_pool3d"
    return _adaptive(input, output_size, op, 3, "max", _bool(return_indices, "return_indices", op), _dt.int32)


# -- max unpooling ---------------------------------------------------------------------------------------------------
def _unpool(x, indices, kernel_size, stride, padding, output_size, op, ndim):
    layouts = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}
    xt = _input(x, "x", op, (ndim + 1, ndim + 2), layouts[ndim])
    it = tensor_arg(indices, "indices", op)
    if _dt.dtype_of(it._data).kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'indices' must be an int32 or int64 Tensor, but got {it.dtype}")
    if tuple(it.shape) != tuple(xt.shape):
        raise ValueError(f"For '{op}', 'indices' must have the shape of 'x' {xt.shape}, but got {it.shape}")
    kernel = _ints(kernel_size, "kernel_size", op, (ndim,), 1)
    stride = kernel if stride is None else _ints(stride, "stride", op, (ndim,), 0)
    stride = tuple(k if s == 0 else s for k, s in zip(kernel, stride))
    pads = _ints(padding, "padding", op, (ndim,), 0)
    t, unbatched = _batched(xt, ndim)
    ind = it._data if not unbatched else xp().expand_dims(it._data, axis=0)
    spatial = tuple(t.shape[2:])
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, stride, pads, kernel))
    if output_size is None or (isinstance(output_size, (tuple, list)) and len(output_size) == 0):
        outs = default
    else:
        if not isinstance(output_size, (tuple, list)) or len(output_size) not in (ndim, ndim + 1, ndim + 2):
            raise ValueError(f"For '{op}', 'output_size' must be a tuple of {ndim}, {ndim + 1} or {ndim + 2} ints, "
                             f"but got {output_size!r}")
        outs = _ints(tuple(output_size)[-ndim:], "output_size", op, (ndim,), 1)
        for o, dflt, s in zip(outs, default, stride):
            if not dflt - s < o < dflt + s:
                raise ValueError(f"For '{op}', 'output_size' {tuple(output_size)} must be within one stride "
                                 f"{tuple(stride)} of the default size {default}")
    if any(o < 1 for o in outs):
        raise ValueError(f"For '{op}', the output size {outs} (from kernel_size {kernel}, stride {stride} and padding "
                         f"{pads}) must be positive")
    n_planes = int(np.prod(t.shape[:2]))
    plane = int(np.prod(outs))
    _check_size(n_planes * plane, "output", op)
    x_ = xp()
    if bool(backend().to_host(x_.any((ind < 0) | (ind >= plane)))):
        host = backend().to_host(ind)
        raise RuntimeError(f"For '{op}', every value of 'indices' must be in [0, {plane}) for an output of spatial "
                           f"size {outs}, but got values from {host.min().item()} to {host.max().item()}")
    offsets = x_.reshape(_device(np.arange(n_planes, dtype=np.int64) * plane),
                         (t.shape[0], t.shape[1]) + (1,) * ndim)
    glob = x_.reshape(x_.astype(ind, x_.int64) + offsets, (-1,))
    if _dt.dtype_of(t._data).kind != "float" or _ag._depth == 0 or t._node is None:
        flat = x_.reshape(t._data, (-1,))
        out = backend().scatter_add_rows(flat, glob, n_planes * plane)
        out = wrap(x_.reshape(out, tuple(t.shape[:2]) + outs))
    else:
        out = _shape.reshape(_shape.scatter_add_rows(_shape.reshape(t, (-1,)), glob, n_planes * plane),
                             tuple(t.shape[:2]) + outs)
    return _unbatch(out, unbatched)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Put each value of ``x`` back at its ``indices`` (flat, per channel) in a zero ``(N, C, L_out)`` tensor.

    The inverse of max pooling with ``return_indices``: ``L_out = (L - 1) * stride - 2 * padding +
    kernel_size`` unless ``output_size`` says otherwise (within one stride of it).

    >>> import cellkit as ms
    >>> print(max_unpool1d(ms.Tensor([[[5.0, 7.0]]]), ms.Tensor([[[1, 3]]]), 2))
    [[[0. 5. 0. 7.]]]
    """
    return _unpool(x, indices, kernel_size, stride, padding, output_size, "max_unpool1d", 1)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of 2-D max pooling: see :func:`max_unpool1d` (indices count ``h * W_out + w``).

    >>> import cellkit as ms
    >>> print(max_unpool2d(ms.Tensor([[[[5.0]]]]), ms.Tensor([[[[3]]]]), 2))
    [[[[0. 0.]
       [0. 5.]]]]
    """
    return _unpool(x, indices, kernel_size, stride, padding, output_size, "max_unpool2d", 2)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of 3-D max pooling: see :func:`max_unpool1d`.

    >>> import cellkit as ms
    >>> print(max_unpool3d(ms.Tensor([[[[[5.0]]]]]), ms.Tensor([[[[[1]]]]]), (1, 1, 2)).reshape(-1))
    [0. 5.]
    """
    return _unpool(x, indices, kernel_size, stride, padding, output_size, "max_unpool3d", 3)


# -- fractional max pooling -------------------------------------------------------------------------------------------
def _fractional_starts(u, n, o, k):
    """PyTorch's and MindSpore's window starts for one axis: pseudo-random, from one sample ``u`` in [0, 1)."""
    if o == 1:
        return np.array([n - k])
    alpha = (n - k) / (o - 1)
    i = np.arange(o - 1)
    starts = np.floor((i + u) * alpha).astype(np.int64) - int(math.floor(u * alpha))
    return np.concatenate([starts, [n - k]])


def _fractional(input, kernel_size, output_size, output_ratio, return_indices, samples, op, ndim):
    from . import random as _random

    layouts = {2: "(N, C, H, W) or (C, H, W)", 3: "(N, C, D, H, W) or (C, D, H, W)"}
    xt = _input(input, "input", op, (ndim + 1, ndim + 2), layouts[ndim], floats_only=True)
    return_indices = _bool(return_indices, "return_indices", op)
    t, unbatched = _batched(xt, ndim)
    spatial = tuple(t.shape[2:])
    kernel = _ints(kernel_size, "kernel_size", op, (ndim,), 1)
    if output_size is None and output_ratio is None:
        raise ValueError(f"For '{op}', one of 'output_size' and 'output_ratio' must be given, but both are None")
    if output_size is not None:
        outs = _ints(output_size, "output_size", op, (ndim,), 1)
    else:
        ratios = (output_ratio,) * ndim if isinstance(output_ratio, numbers.Real) else tuple(output_ratio)
        if len(ratios) != ndim or not all(isinstance(r, numbers.Real) and not isinstance(r, bool) and 0 < r < 1
                                          for r in ratios):
            raise ValueError(f"For '{op}', 'output_ratio' must be a float or {ndim} floats in (0, 1), "
                             f"but got {output_ratio!r}")
        outs = tuple(int(n * r) for n, r in zip(spatial, ratios))
    for n, k, o in zip(spatial, kernel, outs):
        if o < 1 or o + k - 1 >= n:
            raise ValueError(f"For '{op}', 'output_size' {outs} plus 'kernel_size' {kernel} minus 1 must be smaller "
                             f"than the spatial size of 'input' of shape {xt.shape}")
    n_planes = t.shape[0] * t.shape[1]
    if samples is None:
        u = backend().to_host(_random._uniform_like(xp().zeros((n_planes, ndim), dtype=xp().float32)
                                                    if backend().is_numpy else
                                                    xp().zeros((n_planes, ndim), dtype=xp().float32,
                                                               device=t._data.device),
                                                    _random._stream(None))).astype(np.float64)
    else:
        st = tensor_arg(samples, "_random_samples", op)
        if tuple(st.shape) != (t.shape[0], t.shape[1], ndim):
            raise ValueError(f"For '{op}', '_random_samples' must have shape {(t.shape[0], t.shape[1], ndim)}, "
                             f"but got {st.shape}")
        if _dt.dtype_of(st._data).kind != "float":
            raise TypeError(f"For '{op}', '_random_samples' must be a float Tensor, but got {st.dtype}")
        u = np.asarray(st.asnumpy(), np.float64).reshape(n_planes, ndim)
        if not (np.isfinite(u) & (u >= 0) & (u < 1)).all():
            raise ValueError(f"For '{op}', '_random_samples' must hold values in [0, 1), but got values from "
                             f"{u.min()} to {u.max()}")
    # The samples of each plane, in PyTorch's order: the last axis (W) takes sample 0 in 2-D.
    order = (1, 0) if ndim == 2 else (0, 1, 2)
    tables = np.empty((n_planes, int(np.prod(outs)), int(np.prod(kernel))), np.int64)
    for plane in range(n_planes):
        positions = []
        for axis in range(ndim):
            starts = _fractional_starts(u[plane, order[axis]], spatial[axis], outs[axis], kernel[axis])
            positions.append(starts[:, None] + np.arange(kernel[axis])[None, :])
        tables[plane] = _combine(positions, spatial)
    out, local = _pool_max(t, t._data, tables, tuple(t.shape[:2]) + outs, op)
    if not return_indices:
        return _unbatch(out, unbatched)
    return _unbatch((out, _indices(local)), unbatched)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling: ``kernel_size`` windows at pseudo-random, increasing starts.

    Give the output size, or ``output_ratio`` (of the input size).  ``_random_samples``
    (shape ``(N, C, 2)``, values in [0, 1)) fixes the starts; otherwise they are drawn from
    cellkit's generator.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(16.0, dtype=np.float32).reshape(1, 1, 4, 4))
    >>> print(fractional_max_pool2d(x, 2, output_size=(2, 2), _random_samples=ms.Tensor([[[0.5, 0.5]]])))
    [[[[ 5.  7.]
       [13. 15.]]]]
    """
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples,
                       "fractional_max_pool2d", 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-D fractional max pooling (``_random_samples`` of shape ``(N, C, 3)``): see :func:`fractional_max_pool2d`.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(8.0, dtype=np.float32).reshape(1, 1, 2, 2, 2))
    >>> print(fractional_max_pool3d(x, 1, output_size=(1, 1, 1), _random_samples=ms.Tensor([[[0.0, 0.0, 0.0]]])))
    [[[[[7.]]]]]
    """
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples,
                       "fractional_max_pool3d", 3)


# -- Primitive classes ------------------------------------------------------------------------------------------
class AdaptiveAvgPool2D(Primitive):
    """``AdaptiveAvgPool2D(output_size)(input_x)``: see :func:`adaptive_avg_pool2d`."""

    @prim_attr_register
    def __init__(self, output_size):
        _output_size(output_size, (1, 1), "AdaptiveAvgPool2D")

    def __call__(self, input_x):
        return _adaptive(input_x, self.output_size, "AdaptiveAvgPool2D", 2, "avg")


class AdaptiveAvgPool3D(Primitive):
    """``AdaptiveAvgPool3D(output_size)(input_x)``: see :func:`adaptive_avg_pool3d`."""

    @prim_attr_register
    def __init__(self, output_size):
        _output_size(output_size, (1, 1, 1), "AdaptiveAvgPool3D")

    def __call__(self, input_x):
        return _adaptive(input_x, self.output_size, "AdaptiveAvgPool3D", 3, "avg")


class AdaptiveMaxPool2D(Primitive):
    """``AdaptiveMaxPool2D(output_size)(input_x)`` -> ``(output, argmax)``: see :func:`adaptive_max_pool2d`."""

    @prim_attr_register
    def __init__(self, output_size):
        _output_size(output_size, (1, 1), "AdaptiveMaxPool2D")

    def __call__(self, input_x):
        return _adaptive(input_x, self.output_size, "AdaptiveMaxPool2D", 2, "max", True)


class AdaptiveMaxPool3D(Primitive):
    """``AdaptiveMaxPool3D()(x, output_size)`` -> ``(output, argmax)``; ``output_size`` is a 1-D int Tensor of 3."""

    def __call__(self, x, output_size):
        op = "AdaptiveMaxPool3D"
        st = tensor_arg(output_size, "output_size", op)
        if st.shape != (3,) or _dt.dtype_of(st._data).kind not in ("int", "uint"):
            raise ValueError(f"For '{op}', 'output_size' must be a 1-D int Tensor of 3 elements, but got "
                             f"{describe(st)}")
        sizes = tuple(int(v) for v in st.asnumpy().tolist())
        return _adaptive(x, sizes, op, 3, "max", True, _dt.int32)


def _strip(values, n):
    """``(1, 1, d, h, w)`` attribute forms -> the last ``n`` values."""
    return tuple(values[-n:]) if len(values) == n + 2 else tuple(values)


class AvgPool3D(Primitive):
    """``AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False, count_include_pad=True,
    divisor_override=0)(x)``: see :func:`avg_pool3d` (``pad_mode='same'`` pads for ``ceil(D / stride)`` outputs)."""

    @prim_attr_register
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=0, data_format="NCDHW"):
        op = "AvgPool3D"
        self._kernel = _strip(_ints(kernel_size, "kernel_size", op, (3, 5), 1), 3)
        self._stride = _strip(_ints(strides, "strides", op, (3, 5), 1), 3)
        self._mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
        self._pads = _pads_pairs(pad, op, 3, "pad", (6,))
        if self._mode != "pad" and any(lo or hi for lo, hi in self._pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 when pad_mode is {pad_mode!r}, but got {pad!r}")
        _bool(ceil_mode, "ceil_mode", op)
        _bool(count_include_pad, "count_include_pad", op)
        _divisor(divisor_override, op)
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format='NCDHW' is supported, but got {data_format!r}")

    def __call__(self, x):
        op = "AvgPool3D"
        xt = _input(x, "x", op, (5,), "(N, C, D, H, W)")
        pads = self._pads
        if self._mode == "same":
            pads = tuple(_nn_ops._same_pads(n, k, s, 1) for n, k, s in zip(xt.shape[2:], self._kernel, self._stride))
        return _avg_pool_nd(xt, self._kernel, self._stride, pads, self.ceil_mode, self.count_include_pad,
                            self.divisor_override, op)


class MaxPool3D(Primitive):
    """``MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None)(x)``."""

    @prim_attr_register
    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None, data_format="NCDHW"):
        op = "MaxPool3D"
        self._kernel = _strip(_ints(kernel_size, "kernel_size", op, (3, 5), 1), 3)
        self._stride = _strip(_ints(strides, "strides", op, (3, 5), 1), 3)
        self._mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
        self._pads = _pads_pairs(pad_list, op, 3, "pad_list", (3, 6))
        if self._mode != "pad" and any(lo or hi for lo, hi in self._pads):
            raise ValueError(f"For '{op}', 'pad_list' must be 0 when pad_mode is {pad_mode!r}, but got {pad_list!r}")
        if ceil_mode is not None:
            _bool(ceil_mode, "ceil_mode", op)
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format='NCDHW' is supported, but got {data_format!r}")

    def __call__(self, x):
        op = "MaxPool3D"
        xt = _input(x, "x", op, (5,), "(N, C, D, H, W)")
        pads = self._pads
        if self._mode == "same":
            pads = tuple(_nn_ops._same_pads(n, k, s, 1) for n, k, s in zip(xt.shape[2:], self._kernel, self._stride))
        X = xt._data
        outs = _out_sizes(X.shape[2:], self._kernel, self._stride, (1, 1, 1), pads, bool(self.ceil_mode), op, X.shape)
        table = _regular_table(tuple(X.shape[2:]), self._kernel, self._stride, (1, 1, 1), pads, outs)
        return _pool_max(xt, X, table, tuple(X.shape[:2]) + outs, op)[0]


def _argmax_dtype(value, op):
    from .. import dtype as dt
    target = dt.to_dtype(value) if not isinstance(value, dt.DType) else value
    if target not in (dt.int32, dt.int64):
        raise TypeError(f"For '{op}', 'argmax_type' must be int32 or int64, but got {value!r}")
    return target


class MaxPool3DWithArgmax(Primitive):
    """``MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False, argmax_type=int64)(x)``.

    Returns ``(output, argmax)``: see :func:`max_pool3d` with ``return_indices=True``.
    """

    @prim_attr_register
    def __init__(self, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW",
                 argmax_type=_dt.int64):
        op = "MaxPool3DWithArgmax"
        self._kernel = _strip(_ints(ksize, "ksize", op, (3, 5), 1), 3)
        self._stride = _strip(_ints(strides, "strides", op, (3, 5), 1), 3)
        self._pads = _pads_pairs(pads, op, 3, "pads", (3,))
        self._dilation = _strip(_ints(dilation, "dilation", op, (3, 5), 1), 3)
        _bool(ceil_mode, "ceil_mode", op)
        self._argmax = _argmax_dtype(argmax_type, op)

    def __call__(self, x):
        op = "MaxPool3DWithArgmax"
        xt = _input(x, "x", op, (5,), "(N, C, D, H, W)")
        out, local = _max_pool_nd(xt, self._kernel, self._stride, self._dilation, self._pads, self.ceil_mode, op)
        return out, _indices(local, self._argmax)


class MaxPoolWithArgmaxV2(Primitive):
    """``MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False)(x)``.

    Returns ``(output, argmax)`` of 2-D max pooling (the argmax counts ``h * W + w``).
    """

    @prim_attr_register
    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False, argmax_type=_dt.int64):
        op = "MaxPoolWithArgmaxV2"
        self._kernel = _strip(_ints(kernel_size, "kernel_size", op, (2, 4), 1), 2)
        self._stride = self._kernel if strides is None else _strip(_ints(strides, "strides", op, (2, 4), 1), 2)
        self._pads = _pads_pairs(pads, op, 2, "pads", (2,))
        self._dilation = _strip(_ints(dilation, "dilation", op, (2, 4), 1), 2)
        _bool(ceil_mode, "ceil_mode", op)
        self._argmax = _argmax_dtype(argmax_type, op)

    def __call__(self, x):
        op = "MaxPoolWithArgmaxV2"
        xt = _input(x, "x", op, (4,), "(N, C, H, W)")
        out, local = _max_pool_nd(xt, self._kernel, self._stride, self._dilation, self._pads, self.ceil_mode, op)
        return out, _indices(local, self._argmax)


class _MaxUnpoolPrimitive(Primitive):
    _ndim = 2

    def _setup(self, ksize, strides, pads, output_shape, data_format, layout):
        op = type(self).__name__
        n = self._ndim
        self._kernel = _strip(_ints(ksize, "ksize", op, (n, n + 2), 1), n)
        self._stride = _strip(_ints(strides, "strides", op, (n, n + 2), 0), n)
        self._pads = _strip(_ints(pads, "pads", op, (n, n + 2), 0), n)
        if not isinstance(output_shape, (tuple, list)):
            raise TypeError(f"For '{op}', 'output_shape' must be a tuple, but got {describe(output_shape)}")
        if data_format != layout:
            raise ValueError(f"For '{op}', only data_format={layout!r} is supported, but got {data_format!r}")

    def __call__(self, x, argmax):
        op = type(self).__name__
        size = tuple(self.output_shape) or None
        return _unpool(x, argmax, self._kernel, self._stride, self._pads, size, op, self._ndim)


class MaxUnpool2D(_MaxUnpoolPrimitive):
    """``MaxUnpool2D(ksize, strides=0, pads=0, output_shape=())(x, argmax)``: see :func:`max_unpool2d`."""

    _ndim = 2

    @prim_attr_register
    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
        self._setup(ksize, strides, pads, output_shape, data_format, "NCHW")


class MaxUnpool3D(_MaxUnpoolPrimitive):
    """``MaxUnpool3D(ksize, strides=0, pads=0, output_shape=())(x, argmax)``: see :func:`max_unpool3d`."""

    _ndim = 3

    @prim_attr_register
    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
        self._setup(ksize, strides, pads, output_shape, data_format, "NCDHW")


class _FixedKsize(Primitive):
    _ndim = 2

    def _setup(self, ksize, output_shape, data_format, layout):
        op = type(self).__name__
        self._kernel = _ints(ksize, "ksize", op, (self._ndim,), 1)
        self._outs = _ints(output_shape, "output_shape", op, (self._ndim,), 1)
        if data_format != layout:
            raise ValueError(f"For '{op}', only data_format={layout!r} is supported, but got {data_format!r}")

    def __call__(self, input_x, random_samples):
        op = type(self).__name__
        return _fractional(input_x, self._kernel, self._outs, None, True, random_samples, op, self._ndim)


class FractionalMaxPoolWithFixedKsize(_FixedKsize):
    """``FractionalMaxPoolWithFixedKsize(ksize, output_shape)(input_x, random_samples)`` -> ``(y, argmax)``."""

    _ndim = 2

    @prim_attr_register
    def __init__(self, ksize, output_shape, data_format="NCHW"):
        self._setup(ksize, output_shape, data_format, "NCHW")


class FractionalMaxPool3DWithFixedKsize(_FixedKsize):
    """``FractionalMaxPool3DWithFixedKsize(ksize, output_shape)(x, random_samples)`` -> ``(y, argmax)``."""

    _ndim = 3

    @prim_attr_register
    def __init__(self, ksize, output_shape, data_format="NCDHW"):
        self._setup(ksize, output_shape, data_format, "NCDHW")


def _pooling_sequence(n, o, pseudo_random, generator):
    """TensorFlow's (and MindSpore's) fractional pooling boundaries: ``o + 1`` increasing cuts of ``[0, n]``."""
    if pseudo_random:
        alpha = n / o
        k = n // o
        u_max = min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (o - 1))
        u = float(generator.random()) * u_max
        cuts = [0] + [int(math.ceil(alpha * (i + u)) - math.ceil(alpha * u)) for i in range(1, o)] + [n]
        return np.array(cuts, np.int64)
    k, extra = divmod(n, o)
    diff = np.full(o, k, np.int64)
    diff[:extra] += 1
    generator.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)])


class FractionalMaxPool(Primitive):
    """``FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False, ...)(x)`` on NHWC input.

    ``pooling_ratio`` is a list ``[1.0, rh, rw, 1.0]`` (each ``>= 1``); the output has
    ``floor(H / rh)`` rows and ``floor(W / rw)`` columns.  Returns ``(y, row_pooling_sequence,
    col_pooling_sequence)``, the sequences being the window boundaries (Int64).  With integer
    ratios the windows are regular; otherwise their boundaries are drawn (from the primitive's
    own seeded generator when ``seed`` or ``seed2`` is set, else cellkit's).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> y, rows, cols = FractionalMaxPool([1.0, 2.0, 2.0, 1.0])(ms.Tensor(np.arange(16.0).reshape(1, 4, 4, 1)))
    >>> print(y.reshape(-1), rows)
    [ 5.  7. 13. 15.] [0 2 4]
    """

    @prim_attr_register
    def __init__(self, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0, seed2=0):
        op = "FractionalMaxPool"
        if not isinstance(pooling_ratio, list):
            raise TypeError(f"For '{op}', 'pooling_ratio' must be a list, but got {describe(pooling_ratio)}")
        if len(pooling_ratio) != 4 or pooling_ratio[0] != 1.0 or pooling_ratio[3] != 1.0 or \
                not all(isinstance(r, numbers.Real) and not isinstance(r, bool) and r >= 1 for r in pooling_ratio):
            raise ValueError(f"For '{op}', 'pooling_ratio' must be [1.0, row ratio, column ratio, 1.0] with ratios "
                             f">= 1, but got {pooling_ratio!r}")
        for name, value in (("pseudo_random", pseudo_random), ("overlapping", overlapping),
                            ("deterministic", deterministic)):
            _bool(value, name, op)
        for name, value in (("seed", seed), ("seed2", seed2)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"For '{op}', '{name}' must be a non-negative int, but got {describe(value)}")
        self._generator = np.random.default_rng([seed, seed2]) if (seed or seed2) else None

    def __call__(self, x):
        from .. import seed as _seed

        op = "FractionalMaxPool"
        xt = _input(x, "x", op, (4,), "(N, H, W, C)", floats_only=False)
        t = _shape.transpose(xt, (0, 3, 1, 2))
        n, c, h, w = t.shape
        oh, ow = int(h // self.pooling_ratio[1]), int(w // self.pooling_ratio[2])
        if oh < 1 or ow < 1:
            raise ValueError(f"For '{op}', 'pooling_ratio' {self.pooling_ratio} leaves no output for the input of "
                             f"shape {xt.shape}")
        generator = self._generator if self._generator is not None else _seed.generator()
        rows = _pooling_sequence(h, oh, self.pseudo_random, generator)
        cols = _pooling_sequence(w, ow, self.pseudo_random, generator)
        extra = 1 if self.overlapping else 0

        def axis_positions(cuts, size):
            lengths = cuts[1:] - cuts[:-1] + extra
            width = int(lengths.max())
            pos = cuts[:-1, None] + np.arange(width)[None, :]
            return np.minimum(pos, np.minimum(cuts[:-1] + lengths - 1, size - 1)[:, None])

        table = _combine([axis_positions(rows, h), axis_positions(cols, w)], (h, w))
        out, _ = _pool_max(t, t._data, table, (n, c, oh, ow), op)
        out = _shape.transpose(out, (0, 2, 3, 1))
        return out, wrap(_device(rows)), wrap(_device(cols))
