"""Averaged stochastic gradient descent: ``nn.ASGD``.

Plain SGD on the weights with a slowly decaying rate ``eta``, plus a running
average ``ax`` of the weights that starts after step ``t0`` (Polyak-Ruppert
averaging): ``ax`` is what one evaluates with.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
>>> opt = nn.ASGD([w], learning_rate=0.1, lambd=0.0, t0=0.0)
>>> for _ in range(3):
...     _ = opt((ms.Tensor([1.0]),))
...     print(w.asnumpy().round(4), opt.ax[0].asnumpy().round(4))  # from step 3, ax averages
[0.9] [0.9]
[0.8] [0.8]
[0.7] [0.75]
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter, ParameterTuple
from ...tensor import Tensor
from ._checks import is_float
from .optimizer import Optimizer, _writable

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD (Polyak & Juditsky), with MindSpore's (and PyTorch's) rate schedule.

    At step ``t`` (from 1), with ``eta`` the learning rate at the first step::

        w  = w * (1 - lambd * eta) - eta * g
        ax = w                       if mu == 1
        ax = ax + (w - ax) * mu      otherwise
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu  = 1 / max(1, t - t0)

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.1.
    lambd : float
        Decay term of ``eta`` and of the weights (default 1e-4).
    alpha : float
        Power of the ``eta`` decay (default 0.75).
    t0 : float
        The step after which averaging starts (default 1e6).
    weight_decay : float, int or Cell

    Notes
    -----
    State, named as MindSpore names it: ``mu_<name>`` and ``eta_<name>`` (0-d)
    and ``ax_.<name>`` (the averages).  The update runs in float32.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.ASGD(net.trainable_params())
    >>> [p.name for p in opt.get_parameters()][4:]
    ['mu_weight', 'mu_bias', 'eta_weight', 'eta_bias', 'ax_.weight', 'ax_.bias']
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        name = self.cls_name
        self.lambd = is_float(lambd, "lambd", name)
        self.alpha = is_float(alpha, "alpha", name)
        self.t0 = Tensor(np.array([is_float(t0, "t0", name)], np.float32))
        self.mu = ParameterTuple([Parameter(Tensor(np.float32(1.0)), name=f"mu_{p.name}") for p in self.parameters])
        self.eta = ParameterTuple([Parameter(Tensor(np.float32(0.0)), name=f"eta_{p.name}") for p in self.parameters])
        self.ax = self.parameters.clone(prefix="ax_", init="zeros")

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        be = _backend.current()
        xp = be.xp
        step = np.float32(be.to_host(self.global_step._data).reshape(-1)[0])
        t0 = np.float32(be.to_host(self.t0._data).reshape(-1)[0])
        lambd, alpha = np.float32(self.lambd), np.float32(self.alpha)
        mu_next = np.float32(1.0) / max(np.float32(1.0), step - t0)
        for p, mu_param, eta_param, ax_param, g, lr in zip(self.parameters, self.mu, self.eta, self.ax, grads, lrs):
            w = _writable(p)
            lr = xp.astype(xp.reshape(lr, ()), xp.float32) if lr.dtype != np.float32 else xp.reshape(lr, ())
            eta = lr if step == 1 else eta_param._data
            w32 = _float32(xp, w) * (np.float32(1.0) - lambd * eta) - eta * _float32(xp, g)
            w[...] = w32 if w.dtype == np.float32 else xp.astype(w32, w.dtype)
            ax = _writable(ax_param)
            if float(be.to_host(mu_param._data)) != 1.0:
                ax += xp.astype((w32 - _float32(xp, ax)) * mu_param._data, ax.dtype)
            else:
                ax[...] = w
            eta_param._data = lr / (np.float32(1.0) + lambd * lr * step) ** alpha
            mu_param._data = be.asarray(mu_next, dtype=np.float32)
        return True


def _float32(xp, array):
    return array if array.dtype == np.float32 else xp.astype(array, xp.float32)
