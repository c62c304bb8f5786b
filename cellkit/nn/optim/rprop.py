"""Resilient backpropagation: ``nn.Rprop`` -- steps that follow the sign of the gradient only.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
>>> opt = nn.Rprop([w], learning_rate=0.1)
>>> for g in (5.0, 0.01, -3.0):
...     _ = opt((ms.Tensor([g]),))
...     print(w.asnumpy().round(4), opt.step_size[0].asnumpy().round(4))
[0.9] [0.1]
[0.78] [0.12]
[0.78] [0.06]
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ._checks import float_in_range, is_float
from .optimizer import Optimizer, _writable

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop (Riedmiller & Braun): a step size per weight, grown while the gradient keeps its sign.

    Per step, with ``s`` the sign of ``g * g_prev``::

        step = clip(step * (etaplus if s > 0 else etaminus if s < 0 else 1), *step_sizes)
        g = 0 where s < 0        (after a sign change the weight waits one step)
        w -= sign(g) * step
        g_prev = g

    The first update starts every step size at the learning rate.

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        The starting step size (default 0.1); read at the first update only.
    etas : tuple of 2 floats
        ``(etaminus, etaplus)`` with ``0 < etaminus < 1 < etaplus`` (default ``(0.5, 1.2)``).
    step_sizes : tuple of 2 floats
        ``(min_step, max_step)`` (default ``(1e-6, 50.0)``).
    weight_decay : float, int or Cell

    Notes
    -----
    State: ``prev.<name>`` (the last gradient used) and ``step_size.<name>``.
    A float16 or bfloat16 parameter is updated in its own type, any other in
    float32, as in MindSpore.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.Rprop(net.trainable_params(), etas=(0.4, 1.5), step_sizes=(1e-4, 1.0))
    >>> [p.name for p in opt.step_size]
    ['step_size.weight', 'step_size.bias']
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0), weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        name = self.cls_name
        for arg, value in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(value, tuple):
                raise TypeError(f"For '{name}', '{arg}' must be a tuple of 2 floats, but got {type(value).__name__}.")
            if len(value) != 2:
                raise ValueError(f"For '{name}', '{arg}' must be a tuple of 2 floats, but got {len(value)} values.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"For '{name}', the maximal step size must not be less than the minimal one, but got "
                             f"step_sizes={step_sizes}.")
        float_in_range(etas[0], "etaminus", name, 0.0, 1.0)
        is_float(etas[1], "etaplus", name)
        if not etas[1] > 1.0:
            raise ValueError(f"For '{name}', 'etaplus' must be greater than 1.0, but got {etas[1]}.")
        is_float(step_sizes[0], "min_step_sizes", name)
        is_float(step_sizes[1], "max_step_sizes", name)
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = step_sizes
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = self.parameters.clone(prefix="step_size", init="zeros")

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        be = _backend.current()
        xp = be.xp
        first = int(be.to_host(self.global_step._data).reshape(-1)[0]) == 1
        for p, prev_param, step_param, g, lr in zip(self.parameters, self.prev, self.step_size, grads, lrs):
            w = _writable(p)
            compute = w.dtype if w.dtype in _LOW_PRECISION else np.float32
            g = _as(xp, g, compute)
            if first:
                step = xp.ones_like(g) * _as(xp, lr, compute)
            else:
                step = _as(xp, step_param._data, compute)
            agreement = g * _as(xp, prev_param._data, compute)
            factor = xp.where(agreement > 0, xp.full_like(g, self.etaplus),
                              xp.where(agreement < 0, xp.full_like(g, self.etaminus), xp.ones_like(g)))
            step = xp.clip(step * factor, self.step_size_min, self.step_size_max)
            used = xp.where(agreement < 0, xp.zeros_like(g), g)
            w[...] = _as(xp, _as(xp, w, compute) - xp.sign(used) * step, w.dtype)
            prev_param._data = _as(xp, used, prev_param._data.dtype)
            step_param._data = _as(xp, step, step_param._data.dtype)
        return True


def _low_precision():
    import ml_dtypes

    return {np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)}


_LOW_PRECISION = _low_precision()


def _as(xp, array, dtype):
    """``array`` in ``dtype`` (itself when it already is)."""
    return array if array.dtype == dtype else xp.astype(array, dtype)
