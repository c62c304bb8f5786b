"""``mint.batch_norm_stats`` / ``batch_norm_gather_stats_with_counts`` / ``batch_norm_elemt``: the three steps of
synchronised batch normalisation, written with cellkit's ops (so gradients flow).

Each device computes its batch's statistics (``batch_norm_stats``), the statistics of all devices are
combined, weighted by how many elements each saw (``batch_norm_gather_stats_with_counts``, which also
updates the running statistics), and every device normalises with the combined ones
(``batch_norm_elemt``). In cellkit's one process the "devices" are the rows of the gathered statistics.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import mint
>>> x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
>>> mean, invstd = mint.batch_norm_stats(x, 1e-5)
>>> print(mean)
[2.5 4.5]
>>> y = mint.batch_norm_elemt(x, None, None, mean, invstd, 1e-5)
>>> print(np.round(y.asnumpy().mean(axis=(0, 2)), 6))
[0. 0.]
"""
from __future__ import annotations

from .. import ops as _ops
from ..ops._core import describe
from ..tensor import Tensor

__all__ = ["batch_norm_stats", "batch_norm_gather_stats_with_counts", "batch_norm_elemt"]


def _channel_view(t, ndim):
    return _ops.reshape(t, (1, -1) + (1,) * (ndim - 2))


def _input(input, op):
    if not isinstance(input, Tensor) or input.ndim < 2:
        raise TypeError(f"For '{op}', 'input' must be a Tensor of at least 2 dimensions (N, C, ...), but got "
                        f"{describe(input)}")
    return input


def batch_norm_stats(input, eps):
    """``(mean, invstd)`` per channel (axis 1): the batch mean and ``1 / sqrt(biased variance + eps)``."""
    x = _input(input, "batch_norm_stats")
    axes = (0,) + tuple(range(2, x.ndim))
    mean = _ops.mean(x, axes)
    var = _ops.mean(_ops.square(_ops.sub(x, _channel_view(mean, x.ndim))), axes)
    return mean, _ops.rsqrt(_ops.add(var, eps))


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None, momentum=0.1,
                                        eps=1e-05, counts=None):
    """Combine per-device ``mean``/``invstd`` rows (weights: ``counts``) into one ``(mean, invstd)``.

    ``running_mean`` and ``running_var`` (Parameters or Tensors) are updated in place with ``momentum``,
    the running variance with the unbiased estimate.
    """
    op = "batch_norm_gather_stats_with_counts"
    _input(input, op)
    for name, value in (("mean", mean), ("invstd", invstd), ("counts", counts)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {describe(value)}")
    w = _ops.reshape(_ops.cast(counts, mean.dtype), (-1, 1))
    total = _ops.sum(w)
    global_mean = _ops.div(_ops.sum(_ops.mul(mean, w), 0), total)
    var = _ops.sub(_ops.reciprocal(_ops.square(invstd)), eps)
    second = _ops.div(_ops.sum(_ops.mul(_ops.add(var, _ops.square(mean)), w), 0), total)
    global_var = _ops.sub(second, _ops.square(global_mean))
    from ..ops.inplace import copy_

    n = float(total.asnumpy())
    if running_mean is not None:
        copy_(running_mean, _ops.add(_ops.mul(running_mean, 1.0 - momentum), _ops.mul(global_mean, momentum)))
    if running_var is not None:
        unbiased = _ops.mul(global_var, n / (n - 1.0)) if n > 1 else global_var
        copy_(running_var, _ops.add(_ops.mul(running_var, 1.0 - momentum), _ops.mul(unbiased, momentum)))
    return global_mean, _ops.rsqrt(_ops.add(global_var, eps))


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-05):
    """``(input - mean) * invstd * weight + bias`` per channel (axis 1)."""
    x = _input(input, "batch_norm_elemt")
    if not isinstance(mean, Tensor) or not isinstance(invstd, Tensor):
        raise TypeError(f"For 'batch_norm_elemt', 'mean' and 'invstd' must be Tensors, but got {describe(mean)} "
                        f"and {describe(invstd)}")
    out = _ops.mul(_ops.sub(x, _channel_view(mean, x.ndim)), _channel_view(invstd, x.ndim))
    if weight is not None:
        out = _ops.mul(out, _channel_view(weight, x.ndim))
    if bias is not None:
        out = _ops.add(out, _channel_view(bias, x.ndim))
    return out
