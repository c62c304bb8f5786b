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
from .. import seed as _seed
from ._core import backend, float_array, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = ["dropout", "Dropout"]

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
