"""Dropout: randomly zero elements during training, reproducibly.

The random mask is drawn on the host from :func:`cellkit.seed.generator`
(through the backend's ``random_uniform``) and moved to the device, so
``ms.set_seed(n)`` gives the same masks on NumPy, CuPy and every other
backend.  Kept elements are scaled by ``1 / (1 - p)`` so the expected value
of each element is unchanged.

>>> import cellkit as ms
>>> from cellkit import ops
>>> ms.set_seed(0)
>>> y = ops.dropout(ms.Tensor([1.0, 1.0, 1.0, 1.0]), p=0.5)
>>> sorted(set(y.asnumpy().tolist()) | {0.0, 2.0})
[0.0, 2.0]
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import autograd as _ag
from .. import batching as _batching
from .. import dtype as _dt
from .. import seed as _seed
from ._core import backend, float_array, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = ["dropout", "Dropout", "dropout1d", "dropout2d", "dropout3d", "Dropout2D", "Dropout3D"]

# Generators for explicit ``seed=`` arguments: each seed gets its own stream,
# restarted whenever ``set_seed`` replaces the global generator.
_seeded_streams = {"owner": None, "streams": {}}


def _check_seed(value, name, op):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {value}")
    return int(value)


def _stream(seed):
    """The generator a draw with op-level ``seed`` uses (the global one for ``None``)."""
    shared = _seed.generator()
    if seed is None:
        return shared
    if _seeded_streams["owner"] is not shared:  # set_seed was called: start every stream afresh
        _seeded_streams["owner"] = shared
        _seeded_streams["streams"] = {}
    streams = _seeded_streams["streams"]
    if seed not in streams:
        global_seed = _seed.get_seed()
        streams[seed] = np.random.default_rng([seed] if global_seed is None else [global_seed, seed])
    return streams[seed]


def _keep_mask(like, keep_prob, generator):
    """A boolean array shaped like the array ``like``: True with probability ``keep_prob``, drawn on the host."""
    if _batching.is_batched(like):  # one mask would serve every example: vmap draws example by example instead
        raise _batching.Unbatchable("random draws inside vmap are made one example at a time")
    shape = like.shape
    be = backend()
    u = be.random_uniform(generator, shape, xp().float32)
    if keep_prob >= 1:  # float32 rounding can turn a draw just below 1 into 1.0
        return u <= 1
    return u < keep_prob


def _apply_mask(t, a, keep, scale, op):
    x = xp()
    # A multiply (as PyTorch does) rather than ``where``: no branch per element.
    out = a * (x.astype(keep, a.dtype) * scale)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, op, _dropout_rule, (t,), (keep,), (None,), scale)


def _dropout_rule(m, node, g):
    """The same mask and scale as the forward pass (the mask is a constant)."""
    (keep,) = node.unpack(m)
    return (g * (m.mask(keep, g) * node.info),)


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Parameters
    ----------
    p : float in [0, 1)
        The probability of dropping an element.
    training : bool
        When False (or ``p == 0``) the input is returned unchanged.
    seed : int, optional
        Give this call its own random stream (reproducible after ``set_seed``);
        by default the global generator is used.

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1).
    TypeError
        If ``p`` is not a number or ``seed`` not an int.

    >>> import cellkit as ms
    >>> print(dropout(ms.Tensor([1.0, 2.0]), p=0.5, training=False))
    [1. 2.]
    """
    op = "dropout"
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For '{op}', 'p' must be a float, but got {type(p).__name__}")
    if not 0 <= p < 1:
        raise ValueError(f"For '{op}', 'p' must be in [0, 1), but got {p}")
    if seed is not None:
        seed = _check_seed(seed, "seed", op)
    t = tensor_arg(input, "input", op)
    if not training or p == 0:
        return t
    a = float_array(t, op)
    keep = _keep_mask(a, 1 - p, _stream(seed))
    return _apply_mask(t, a, keep, 1 / (1 - p), "Dropout")


class Dropout(Primitive):
    """``Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x)`` -> ``(output, mask)``.

    ``mask`` has the shape and dtype of ``x`` and holds 1 where an element was
    kept, 0 where it was dropped.  With both seeds 0 the global generator is
    used; otherwise the primitive owns a generator seeded by ``(Seed0, Seed1)``.

    >>> import cellkit as ms
    >>> out, mask = Dropout(keep_prob=1.0)(ms.Tensor([1.0, 2.0]))
    >>> print(out, mask)
    [1. 2.] [1. 1.]
    """

    @prim_attr_register
    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        op = "Dropout"
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, numbers.Real):
            raise TypeError(f"For '{op}', 'keep_prob' must be a float, but got {type(keep_prob).__name__}")
        if not 0 < keep_prob <= 1:
            raise ValueError(f"For '{op}', 'keep_prob' must be in (0, 1], but got {keep_prob}")
        seeds = (_check_seed(Seed0, "Seed0", op), _check_seed(Seed1, "Seed1", op))
        self._generator = np.random.default_rng(seeds) if any(seeds) else None

    def __call__(self, x):
        op = "Dropout"
        t = tensor_arg(x, "x", op)
        a = float_array(t, op)
        generator = self._generator if self._generator is not None else _seed.generator()
        keep = _keep_mask(a, self.keep_prob, generator)
        out = _apply_mask(t, a, keep, 1 / self.keep_prob, op)
        return out, wrap(xp().astype(keep, a.dtype))


def _uniform_like(like, generator):
    """Uniform [0, 1) draws shaped like the array ``like`` (in its float dtype), from ``generator``."""
    if _batching.is_batched(like):
        raise _batching.Unbatchable("random draws inside vmap are made one example at a time")
    x = xp()
    dtype = like.dtype if like.dtype in (x.float32, x.float64) else x.float32
    return backend().random_uniform(generator, like.shape, dtype)


# -- channel dropout ----------------------------------------------------------------------------------
def _check_p(p, op, name="p"):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(p).__name__} {p!r}")
    if not 0 <= p <= 1:
        raise ValueError(f"For '{op}', '{name}' must be in [0.0, 1.0], but got {p}")
    return float(p)


def _channel_dropout(t, keep_prob, op, record_name, batched=True):
    """Zero whole channels (axis 1, or axis 0 of an unbatched input) with probability ``1 - keep_prob``.

    Returns ``(output Tensor, keep array shaped like the input)``.  The kept channels are
    scaled by ``1 / keep_prob``; integer tensors keep their dtype (the scaled values are
    truncated, as MindSpore's integer kernels do).
    """
    x = xp()
    a = t._data
    if _dt.dtype_of(a).kind == "bool":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got {t.dtype}")
    channel_axes = 2 if batched else 1
    mask_shape = tuple(a.shape[:channel_axes]) + (1,) * (a.ndim - channel_axes)
    probe = x.zeros(mask_shape, dtype=x.float32) if backend().is_numpy else \
        x.zeros(mask_shape, dtype=x.float32, device=a.device)
    keep = _keep_mask(probe, keep_prob, _stream(None)) if keep_prob < 1 else probe == 0
    keep = x.broadcast_to(keep, tuple(a.shape))
    is_float = _dt.dtype_of(a).kind == "float"
    work = a if is_float else x.astype(a, _dt.float64.to_backend(x))
    scale = 1 / keep_prob if keep_prob > 0 else 0.0
    out = work * (x.astype(keep, work.dtype) * scale)
    if not is_float:
        return wrap(x.astype(out, a.dtype)), keep
    if _ag._depth == 0 or t._node is None:
        return wrap(out), keep
    return record(out, record_name, _dropout_rule, (t,), (keep,), (None,), scale), keep


def _dropout_nd(input, p, training, op, ndims):
    p = _check_p(p, op)
    if not isinstance(training, bool):
        raise TypeError(f"For '{op}', 'training' must be a bool, but got {type(training).__name__} {training!r}")
    t = tensor_arg(input, "input", op)
    if t.ndim not in ndims:
        expected = " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(f"For '{op}', 'input' must be a {expected} Tensor, but got shape {t.shape} "
                         f"({t.ndim} dimensions)")
    if not training or p == 0:
        return t
    return _channel_dropout(t, 1 - p, op, "Dropout", t.ndim == max(ndims))[0]


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` tensor with probability ``p``.

    The channels kept are scaled by ``1 / (1 - p)``.  With ``training=False`` (or ``p=0``)
    the input is returned as it is.

    >>> import cellkit as ms
    >>> print(dropout1d(ms.Tensor([[1.0, 2.0]]), p=0.5, training=False))
    [[1. 2.]]
    """
    return _dropout_nd(input, p, training, "dropout1d", (2, 3))


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels (feature maps ``(H, W)``) of an ``(N, C, H, W)`` tensor with probability ``p``.

    >>> import cellkit as ms
    >>> import numpy as np
    >>> ms.set_seed(1)
    >>> y = dropout2d(ms.Tensor(np.ones((1, 8, 2, 2), np.float32)), p=0.5)
    >>> sorted(set(y.asnumpy().ravel().tolist()) | {0.0, 2.0})
    [0.0, 2.0]
    """
    return _dropout_nd(input, p, training, "dropout2d", (4,))


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels (volumes ``(D, H, W)``) of an ``(N, C, D, H, W)`` tensor with probability ``p``.

    >>> import cellkit as ms
    >>> import numpy as np
    >>> print(dropout3d(ms.Tensor(np.ones((1, 1, 1, 1, 2), np.float32)), training=False))
    [[[[[1. 1.]]]]]
    """
    return _dropout_nd(input, p, training, "dropout3d", (5,))


class _ChannelDropout(Primitive):
    _ndim = 4

    @prim_attr_register
    def __init__(self, keep_prob=0.5):
        _check_p(keep_prob, type(self).__name__, "keep_prob")

    def __call__(self, x):
        op = type(self).__name__
        t = tensor_arg(x, "x", op)
        if t.ndim != self._ndim:
            raise ValueError(f"For '{op}', 'x' must be a {self._ndim}-D Tensor, but got shape {t.shape}")
        out, keep = _channel_dropout(t, float(self.keep_prob), op, op)
        return out, wrap(keep)


class Dropout2D(_ChannelDropout):
    """``Dropout2D(keep_prob=0.5)(x)`` -> ``(output, mask)``: channel dropout of an NCHW tensor.

    ``mask`` is a Bool tensor shaped like ``x``: True where the channel was kept.

    >>> import cellkit as ms
    >>> import numpy as np
    >>> out, mask = Dropout2D(keep_prob=1.0)(ms.Tensor(np.ones((1, 2, 1, 1), np.float32)))
    >>> print(out.shape, mask.dtype)
    (1, 2, 1, 1) Bool
    """

    _ndim = 4


class Dropout3D(_ChannelDropout):
    """``Dropout3D(keep_prob=0.5)(x)`` -> ``(output, mask)``: channel dropout of an NCDHW tensor."""

    _ndim = 5
