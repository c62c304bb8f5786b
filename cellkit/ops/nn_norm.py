"""Normalisations and small layers: group norm, LRN, L2 normalisation, cosine similarity, clipping, bilinear, one-hot.

Each is a short composition of cellkit ops (means, square roots, matrix products), so it
differentiates through them to any order; none needs a rule of its own.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.cosine_similarity(ms.Tensor([[1.0, 0.0]]), ms.Tensor([[1.0, 1.0]])))
[0.70710677]
>>> print(ops.one_hot(ms.Tensor([0, 2]), 3))
[[1 0 0]
 [0 0 1]]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor
from . import linalg as _linalg
from . import math as _math
from . import reduce as _reduce
from . import shape_ops as _shape
from ._core import backend, describe, normalize_axis, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

# one_hot / OneHot are exported from ops/creation.py (their gradient reaches Tensor on/off values).
__all__ = ["group_norm", "lrn", "cosine_similarity", "clip_by_norm", "clip_by_global_norm", "bidense",
           "L2Normalize", "LRN", "EmbeddingLookup", "L2Loss"]


def _float(value, name, op, allow_int=True):
    if isinstance(value, bool) or not isinstance(value, (numbers.Real if allow_int else float)):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"For '{op}', '{name}' must be finite, but got {value}")
    return value


def _float_tensor(value, name, op):
    t = tensor_arg(value, name, op)
    if _dt.dtype_of(t._data).kind != "float":
        raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
    return t


# -- group norm ---------------------------------------------------------------------------------------------
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalisation: the channels of ``(N, C, *)`` split into ``num_groups`` groups, each normalised
    over its channels and the spatial axes, then scaled by ``weight`` and shifted by ``bias`` (per channel).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(group_norm(ms.Tensor(np.array([[1.0, 3.0]], np.float32)), 1))
    [[-0.999995  0.999995]]
    """
    op = "group_norm"
    t = _float_tensor(input, "input", op)
    if t.ndim < 2:
        raise ValueError(f"For '{op}', 'input' must have at least 2 dimensions (N, C, ...), but got shape {t.shape}")
    if isinstance(num_groups, bool) or not isinstance(num_groups, (int, np.integer)) or num_groups < 1:
        raise ValueError(f"For '{op}', 'num_groups' must be a positive int, but got {describe(num_groups)}")
    n, c = t.shape[:2]
    if c % num_groups:
        raise ValueError(f"For '{op}', the channels {c} of 'input' (shape {t.shape}) must be divisible by "
                         f"'num_groups' {num_groups}")
    eps = _float(eps, "eps", op)
    if any(d == 0 for d in t.shape):
        raise ValueError(f"For '{op}', 'input' must not be empty, but got shape {t.shape}")
    params = []
    for value, name in ((weight, "weight"), (bias, "bias")):
        if value is None:
            params.append(None)
            continue
        p = _float_tensor(value, name, op)
        if tuple(p.shape) != (c,):
            raise ValueError(f"For '{op}', '{name}' must have shape ({c},), but got {p.shape}")
        params.append(p)
    y = _shape.reshape(t, (n, int(num_groups), -1))
    mean = _reduce.mean(y, -1, True)
    centered = y - mean
    var = _reduce.mean(centered * centered, -1, True)
    out = _shape.reshape(centered / _math.sqrt(var + eps), tuple(t.shape))
    per_channel = (1, c) + (1,) * (t.ndim - 2)
    if params[0] is not None:
        out = out * _shape.reshape(params[0], per_channel)
    if params[1] is not None:
        out = out + _shape.reshape(params[1], per_channel)
    return out


# -- local response normalisation ----------------------------------------------------------------------------
def _lrn(x, depth_radius, bias, alpha, beta, norm_region, op):
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, (int, np.integer)) or depth_radius < 0 \
            or depth_radius >= 2 ** 31:
        raise TypeError(f"For '{op}', 'depth_radius' must be a non-negative int, but got {describe(depth_radius)}")
    bias = _float(bias, "bias", op, allow_int=False)
    alpha = _float(alpha, "alpha", op, allow_int=False)
    beta = _float(beta, "beta", op, allow_int=False)
    if not isinstance(norm_region, str):
        raise TypeError(f"For '{op}', 'norm_region' must be a str, but got {describe(norm_region)}")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For '{op}', 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}")
    t = _float_tensor(x, "x", op)
    if t.ndim != 4:
        raise ValueError(f"For '{op}', 'x' must be a 4-D Tensor (N, C, H, W), but got shape {t.shape}")
    c = t.shape[1]
    idx = np.arange(c)
    band = (np.abs(idx[:, None] - idx[None, :]) <= depth_radius).astype(np.float64)
    squares = t * t
    n = t.shape[0]
    rest = int(np.prod(t.shape[2:]))
    m = wrap(backend().from_host(band.astype(np.dtype(str(t._data.dtype).rsplit(".", 1)[-1]))))
    window = _linalg.matmul(m, _shape.reshape(squares, (n, c, rest)))
    scale = _math.pow(_shape.reshape(window, tuple(t.shape)) * alpha + bias, -beta)
    return t * scale


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation across channels (TensorFlow's): ``x / (bias + alpha * s) ** beta``.

    ``s`` sums the squares of the channels within ``depth_radius`` of each channel (at the
    same position).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(lrn(ms.Tensor(np.ones((1, 2, 1, 1), np.float32)), 1, 1.0, 1.0, 1.0).reshape(-1))
    [0.33333334 0.33333334]
    """
    return _lrn(x, depth_radius, bias, alpha, beta, norm_region, "lrn")


class LRN(Primitive):
    """``LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')(x)``: see :func:`lrn`."""

    @prim_attr_register
    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        pass

    def __call__(self, x):
        return _lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region, "LRN")


class L2Normalize(Primitive):
    """``L2Normalize(axis=0, epsilon=1e-4)(x)``: ``x / sqrt(max(sum(x ** 2 along axis), epsilon))``.

    >>> import cellkit as ms
    >>> print(L2Normalize()(ms.Tensor([3.0, 4.0])))
    [0.6 0.8]
    """

    @prim_attr_register
    def __init__(self, axis=0, epsilon=1e-4):
        op = "L2Normalize"
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"For '{op}', 'axis' must be an int, a tuple or a list, but got {describe(axis)}")
        if isinstance(axis, (tuple, list)) and len(axis) != 1:
            raise TypeError(f"For '{op}', 'axis' must hold exactly one axis (as in MindSpore 2.10), but got {axis!r}")
        _float(epsilon, "epsilon", op, allow_int=False)

    def __call__(self, x):
        op = "L2Normalize"
        t = _float_tensor(x, "x", op)
        if t.ndim == 0:
            raise ValueError(f"For '{op}', 'x' must have at least 1 dimension, but got a scalar")
        axes = self.axis if isinstance(self.axis, (tuple, list)) else (self.axis,)
        axes = tuple(normalize_axis(a, t.ndim, op) for a in axes)
        total = _reduce.sum(t * t, axes, True)
        return t / _math.sqrt(_math.maximum(total, float(self.epsilon)))


# -- similarity and clipping --------------------------------------------------------------------------------
def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``sum(x1 * x2) / max(|x1| |x2|, eps)`` along ``dim`` (the inputs broadcast).

    >>> import cellkit as ms
    >>> print(cosine_similarity(ms.Tensor([[3.0, 4.0]]), ms.Tensor([[3.0, 4.0]])))
    [1.]
    """
    op = "cosine_similarity"
    a = _float_tensor(x1, "x1", op)
    b = _float_tensor(x2, "x2", op)
    eps = _float(eps, "eps", op)
    ndim = max(a.ndim, b.ndim)
    if ndim == 0:
        raise ValueError(f"For '{op}', the inputs must have at least 1 dimension, but got scalars")
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"For '{op}', 'dim' must be an int, but got {describe(dim)}")
    dim = normalize_axis(dim, ndim, op, "dim")
    try:
        common = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise ValueError(f"For '{op}', the shapes of 'x1' {a.shape} and 'x2' {b.shape} cannot be broadcast "
                         "together") from None
    if any(d == 0 for d in common):
        raise ValueError(f"For '{op}', the inputs must not be empty, but got shapes {a.shape} and {b.shape}")
    # Each input's norm is its own (along its own axis, before broadcasting), as MindSpore computes it.
    a = _shape.reshape(a, (1,) * (ndim - a.ndim) + tuple(a.shape))
    b = _shape.reshape(b, (1,) * (ndim - b.ndim) + tuple(b.shape))
    dot = _reduce.sum(a * b, dim)
    norms = _math.sqrt(_reduce.sum(a * a, dim, True)) * _math.sqrt(_reduce.sum(b * b, dim, True))
    norms = _shape.reshape(norms, tuple(dot.shape)) if tuple(norms.shape) != tuple(dot.shape) else norms
    return dot / _math.maximum(norms, eps)


def _tensors(x, op, name="x"):
    if isinstance(x, Tensor):
        return [x], True
    if not isinstance(x, (tuple, list)) or not x or not all(isinstance(v, Tensor) for v in x):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor or a non-empty tuple/list of Tensors, but got "
                        f"{describe(x)}")
    for v in x:
        if _dt.dtype_of(v._data).kind != "float":
            raise TypeError(f"For '{op}', '{name}' must hold float Tensors, but got {v.dtype}")
    return list(x), False


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale ``x`` (a Tensor or a list/tuple of Tensors) so that its total ``norm_type`` norm is at most ``max_norm``.

    The total norm is the norm of the per-Tensor norms; when it exceeds ``max_norm`` every
    Tensor is multiplied by ``max_norm / (total + 1e-6)``.

    >>> import cellkit as ms
    >>> print(clip_by_norm(ms.Tensor([3.0, 4.0]), 1.0))
    [0.5999999  0.79999983]
    """
    op = "clip_by_norm"
    tensors, single = _tensors(x, op)
    max_norm = _float(max_norm, "max_norm", op)
    if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real) or math.isnan(norm_type) \
            or norm_type == 0:
        raise ValueError(f"For '{op}', 'norm_type' must be a non-zero number, but got {describe(norm_type)}")
    norm_type = float(norm_type)
    if not isinstance(error_if_nonfinite, bool):
        raise TypeError(f"For '{op}', 'error_if_nonfinite' must be a bool, but got {describe(error_if_nonfinite)}")
    if math.isinf(norm_type):
        norms = [_reduce.amax(_math.abs(t)) for t in tensors]
        total = norms[0]
        for v in norms[1:]:
            total = _math.maximum(total, v)
    else:
        p = norm_type
        norms = [_math.pow(_reduce.sum(_math.pow(_math.abs(t), p)), 1.0 / p) for t in tensors]
        total = _math.pow(_reduce.sum(_shape.stack([_math.pow(v, p) for v in norms])), 1.0 / p)
    value = float(total.asnumpy())
    if error_if_nonfinite and not math.isfinite(value):
        raise RuntimeError(f"For '{op}', the total norm of order {norm_type} of the input is not finite: {value}")
    coef = max_norm / (total + 1e-6)
    if float(coef.asnumpy()) < 1:
        out = [t * coef for t in tensors]
    else:
        out = list(tensors)
    if single:
        return out[0]
    return tuple(out)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale a tuple/list of Tensors by ``clip_norm / max(global_norm, clip_norm)``.

    ``global_norm`` is the square root of the sum of every element's square; the result is a
    tuple.  ``use_norm`` must be None (as in MindSpore).

    >>> import cellkit as ms
    >>> print(clip_by_global_norm((ms.Tensor([3.0]), ms.Tensor([4.0])), 1.0))
    (Tensor(shape=[1], dtype=Float32, value= [ 6.00000024e-01]), Tensor(shape=[1], dtype=Float32, value= [ 8.00000012e-01]))
    """
    op = "clip_by_global_norm"
    if isinstance(x, Tensor):
        raise TypeError(f"For '{op}', 'x' must be a tuple or list of Tensors, but got {describe(x)}")
    tensors, _ = _tensors(x, op)
    clip = _float(clip_norm, "clip_norm", op)
    if clip <= 0:
        raise ValueError(f"For '{op}', 'clip_norm' must be greater than 0, but got {clip_norm}")
    if use_norm is not None:
        raise ValueError(f"For '{op}', 'use_norm' only supports None, but got {describe(use_norm)}")
    total = None
    for t in tensors:
        part = _reduce.sum(t * t)
        total = part if total is None else total + part
    norm = _math.sqrt(total)
    limit = _math.maximum(norm, clip)
    return tuple(t * (clip / limit) for t in tensors)


# -- bilinear layer and one-hot ----------------------------------------------------------------------------
def bidense(input1, input2, weight, bias=None):
    """Bilinear layer: ``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> w = ms.Tensor(np.ones((1, 2, 2), np.float32))
    >>> print(bidense(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0, 4.0]]), w))
    [[21.]]
    """
    op = "bidense"
    a = _float_tensor(input1, "input1", op)
    b = _float_tensor(input2, "input2", op)
    w = _float_tensor(weight, "weight", op)
    if w.ndim != 3:
        raise ValueError(f"For '{op}', 'weight' must be 3-D (out, in1, in2), but got shape {w.shape}")
    if a.ndim == 0 or a.shape[:-1] != b.shape[:-1]:
        raise ValueError(f"For '{op}', 'input1' and 'input2' must agree on every axis but the last, but got shapes "
                         f"{a.shape} and {b.shape}")
    o, i1, i2 = w.shape
    if a.shape[-1] != i1 or b.shape[-1] != i2 or o == 0:
        raise ValueError(f"For '{op}', the last axes of 'input1' {a.shape} and 'input2' {b.shape} must be "
                         f"weight.shape[1:] of the (non-empty) 'weight' of shape {w.shape}")
    lead = tuple(a.shape[:-1])
    a2 = _shape.reshape(a, (-1, i1))
    b2 = _shape.reshape(b, (-1, 1, i2))
    mixed = _linalg.matmul(a2, _shape.reshape(_shape.transpose(w, (1, 0, 2)), (i1, o * i2)))
    out = _reduce.sum(_shape.reshape(mixed, (-1, o, i2)) * b2, -1)
    if bias is not None:
        bt = _float_tensor(bias, "bias", op)
        if tuple(bt.shape) != (o,):
            raise ValueError(f"For '{op}', 'bias' must have shape ({o},), but got {bt.shape}")
        if bt.dtype != a.dtype or b.dtype != a.dtype:
            raise TypeError(f"For '{op}', 'bias', 'input1' and 'input2' must have the same dtype, but got "
                            f"{bt.dtype}, {a.dtype} and {b.dtype}")
        out = out + bt
    return _shape.reshape(out, lead + (o,))


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot vectors: ``on_value`` at each index, ``off_value`` elsewhere, along a new axis of size ``depth``.

    Indices outside ``[0, depth)`` give rows of ``off_value``.  The dtype is ``on_value``'s
    (Int64 for the default Python ints, Float32 for Python floats).

    >>> import cellkit as ms
    >>> print(one_hot(ms.Tensor([1, -1]), 2, 5.0, 0.0))
    [[0. 5.]
     [0. 0.]]
    """
    op = "one_hot"
    it = tensor_arg(indices, "indices", op)
    if _dt.dtype_of(it._data).kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'indices' must be an int Tensor, but got {it.dtype}")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0 or depth >= 2 ** 31:
        raise ValueError(f"For '{op}', 'depth' must be a non-negative int, but got {describe(depth)}")
    on = on_value if isinstance(on_value, Tensor) else tensor_arg(on_value, "on_value", op)
    off = off_value if isinstance(off_value, Tensor) else tensor_arg(off_value, "off_value", op)
    if on.ndim or off.ndim:
        raise ValueError(f"For '{op}', 'on_value' and 'off_value' must be scalars, but got shapes {on.shape} and "
                         f"{off.shape}")
    if on.dtype != off.dtype:
        raise TypeError(f"For '{op}', 'on_value' and 'off_value' must have the same dtype, but got "
                        f"{describe(on_value)} ({on.dtype}) and {describe(off_value)} ({off.dtype})")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -1 <= axis <= it.ndim:
        raise ValueError(f"For '{op}', 'axis' must be in [-1, {it.ndim}], but got {describe(axis)}")
    if int(np.prod(it.shape, dtype=np.float64)) * depth >= 2 ** 31:
        raise ValueError(f"For '{op}', the output would be too large: {it.shape} x depth {depth}")
    x = xp()
    position = it.ndim if axis == -1 else int(axis)
    shape = [1] * (it.ndim + 1)
    shape[position] = int(depth)
    classes = backend().from_host(np.arange(int(depth)).reshape(shape))
    hot = x.expand_dims(it._data, axis=position) == classes
    return wrap(x.where(hot, on._data, off._data))


class OneHot(Primitive):
    """``OneHot(axis=-1)(indices, depth, on_value, off_value)``: see :func:`one_hot` (the values are Tensors).

    >>> import cellkit as ms
    >>> print(OneHot()(ms.Tensor([1]), 2, ms.Tensor(1.0), ms.Tensor(0.0)))
    [[0. 1.]]
    """

    @prim_attr_register
    def __init__(self, axis=-1):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'OneHot', 'axis' must be an int, but got {describe(axis)}")

    def __call__(self, indices, depth, on_value, off_value):
        return one_hot(indices, depth, on_value, off_value, self.axis)


class L2Loss(Primitive):
    """``L2Loss()(input)``: half the sum of the squares, ``sum(x ** 2) / 2`` (a scalar of the input's dtype).

    >>> import cellkit as ms
    >>> print(L2Loss()(ms.Tensor([1.0, 2.0])))
    2.5
    """

    def __call__(self, input):
        t = _float_tensor(input, "input", "L2Loss")
        return _reduce.sum(t * t) / 2


# -- embedding lookup ---------------------------------------------------------------------------------------
class EmbeddingLookup(Primitive):
    """``EmbeddingLookup()(input_params, input_indices, offset)``: rows ``input_indices - offset`` of ``input_params``.

    Indices that fall outside the table after the offset read rows of zeros.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> table = ms.Tensor(np.array([[1.0, 1.0], [2.0, 2.0]], np.float32))
    >>> print(EmbeddingLookup()(table, ms.Tensor([1, 5]), 0))
    [[2. 2.]
     [0. 0.]]
    """

    def __call__(self, input_params, input_indices, offset):
        op = "EmbeddingLookup"
        pt = tensor_arg(input_params, "input_params", op)
        it = tensor_arg(input_indices, "input_indices", op)
        if pt.ndim < 1:
            raise ValueError(f"For '{op}', 'input_params' must have at least 1 dimension, but got a scalar")
        if _dt.dtype_of(it._data).kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', 'input_indices' must be an int Tensor, but got {it.dtype}")
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
            raise TypeError(f"For '{op}', 'offset' must be an int, but got {describe(offset)}")
        if not -2 ** 62 < offset < 2 ** 62:
            raise ValueError(f"For '{op}', 'offset' must be within the Int64 range, but got {offset}")
        x = xp()
        rows = pt.shape[0]
        local = x.astype(it._data, x.int64) - int(offset)
        inside = (local >= 0) & (local < rows)
        picked = _shape.gather(pt, wrap(x.where(inside, local, x.zeros_like(local))), 0)
        mask = x.reshape(inside, tuple(it.shape) + (1,) * (pt.ndim - 1))
        if _dt.dtype_of(pt._data).kind == "float":
            return picked * wrap(x.astype(mask, pt._data.dtype))
        return wrap(x.where(mask, picked._data, x.zeros_like(picked._data)))
