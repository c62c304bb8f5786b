"""``mindspore.mint.optim``: ``Adam``, ``AdamW``, ``FusedAdamW`` and ``SGD`` with PyTorch's arguments and updates.

An optimizer is built from Parameters (or parameter groups: dicts with ``'params'`` and their own
``lr``, ``weight_decay``...) and called with the gradients, in the same order, as MindSpore's
optimizers are. Its state lives in Parameters named as MindSpore names them (``exp_avg.w``,
``exp_avg_sq.w``, ``state_step``; ``momentum_buf.w`` and ``step_t`` for SGD), so it is saved with
the network. The updates are PyTorch's: Adam with bias correction (``amsgrad`` keeps the largest second
moment), AdamW with decoupled weight decay, SGD with momentum, dampening and Nesterov.

MindSpore 2.10's CPU build leaves the weights unchanged with ``Adam`` and ``SGD`` and has no kernel for
``AdamW``; cellkit updates them as the documentation describes.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import mint
>>> w = ms.Parameter(ms.Tensor(np.array([1.0, -2.0], np.float32)), name="w")
>>> opt = mint.optim.SGD([w], lr=0.1)
>>> _ = opt((ms.Tensor(np.array([0.5, -1.0], np.float32)),))
>>> print(w.asnumpy())
[ 0.95 -1.9 ]
"""
from __future__ import annotations

import math

import numpy as np

from .. import backend as _backend
from ..nn.cell import Cell
from ..ops._core import describe
from ..parameter import Parameter, ParameterTuple
from ..tensor import Tensor

__all__ = ["Adam", "AdamW", "FusedAdamW", "SGD"]


def _number(value, name, op, low=0.0):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
    if value < low:
        raise ValueError(f"For '{op}', '{name}' must be at least {low}, but got {value}")
    return value


class _Optimizer(Cell):
    """What the PyTorch-style optimizers share: parameter groups, state Parameters, the call."""

    _defaults = {}

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        op = type(self).__name__
        if isinstance(params, Parameter) or not hasattr(params, "__iter__"):
            raise TypeError(f"For '{op}', 'params' must be an iterable of Parameters or of dicts, but got "
                            f"{describe(params)}")
        items = list(params)
        if not items:
            raise ValueError(f"For '{op}', 'params' is an empty list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        self.defaults = dict(defaults)
        self.param_groups = []
        for group in groups:
            if not isinstance(group, dict) or "params" not in group:
                raise TypeError(f"For '{op}', each parameter group must be a dict with 'params', but got "
                                f"{describe(group)}")
            merged = dict(self.defaults)
            merged.update(group)
            merged["params"] = list(group["params"])
            for p in merged["params"]:
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{op}', 'params' must hold Parameters, but got {describe(p)}")
            self._check_group(merged)
            self.param_groups.append(merged)
        self.parameters = ParameterTuple([p for g in self.param_groups for p in g["params"]])

    def _state(self, prefix, param):
        return Parameter(Tensor(np.zeros(param.shape, np.dtype(param.dtype.array_name))),
                         name=f"{prefix}.{param.name}", requires_grad=False)

    def construct(self, gradients):
        grads = list(gradients)
        if len(grads) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', 'gradients' must hold one gradient per parameter "
                             f"({len(self.parameters)}), but got {len(grads)}")
        self._step(grads)
        return True

    def _group_of(self):
        for group in self.param_groups:
            for p in group["params"]:
                yield group, p

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _arrays(grads, params):
    return [g._data if isinstance(g, Tensor) else g for g in grads]


class Adam(_Optimizer):
    """Adam (bias-corrected moments); ``weight_decay`` is added to the gradient (L2), ``amsgrad`` optional."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize})
        self.exp_avg = ParameterTuple([self._state("exp_avg", p) for p in self.parameters])
        self.exp_avg_sq = ParameterTuple([self._state("exp_avg_sq", p) for p in self.parameters])
        if any(g["amsgrad"] for g in self.param_groups):
            self.max_exp_avg_sq = ParameterTuple([self._state("max_exp_avg_sq", p) for p in self.parameters])
        self.state_step = Parameter(Tensor(np.zeros((), np.int32)), name="state_step", requires_grad=False)

    def _check_group(self, group):
        op = type(self).__name__
        _number(group["lr"], "lr", op)
        _number(group["eps"], "eps", op)
        _number(group["weight_decay"], "weight_decay", op)
        betas = group["betas"]
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise ValueError(f"For '{op}', 'betas' must be two floats in [0, 1), but got {betas!r}")
        for i, beta in enumerate(betas):
            if not 0.0 <= _number(beta, "betas", op) < 1.0:
                raise ValueError(f"For '{op}', invalid 'betas' parameter at index {i}: {beta}")
        for flag in ("amsgrad", "maximize"):
            if not isinstance(group[flag], bool):
                raise TypeError(f"For '{op}', '{flag}' must be a bool, but got {describe(group[flag])}")

    _decoupled = False

    def _step(self, grads):
        xp = _backend.current().xp
        step = int(self.state_step.asnumpy()) + 1
        self.state_step.set_data(Tensor(np.array(step, np.int32)))
        for i, ((group, p), g) in enumerate(zip(self._group_of(), _arrays(grads, self.parameters))):
            lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            w = p._data
            g = -g if group["maximize"] else g
            if self._decoupled:
                w = w * (1.0 - lr * wd)
            elif wd:
                g = g + wd * w
            m = b1 * self.exp_avg[i]._data + (1.0 - b1) * g
            v = b2 * self.exp_avg_sq[i]._data + (1.0 - b2) * g * g
            self.exp_avg[i]._data, self.exp_avg_sq[i]._data = m, v
            if group["amsgrad"]:
                v = xp.maximum(self.max_exp_avg_sq[i]._data, v)
                self.max_exp_avg_sq[i]._data = v
            bias1, bias2 = 1.0 - b1 ** step, 1.0 - b2 ** step
            denominator = xp.sqrt(v) / math.sqrt(bias2) + eps
            p.set_data(Tensor._from_array(xp.astype(w - (lr / bias1) * m / denominator, w.dtype)))


class AdamW(Adam):
    """Adam with decoupled weight decay: the weights shrink by ``lr * weight_decay`` before each Adam step."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class FusedAdamW(AdamW):
    """:class:`AdamW` (MindSpore fuses the update into one kernel; the arithmetic is the same)."""


class SGD(_Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov and L2 weight decay."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False):
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize})
        for group in self.param_groups:  # MindSpore keeps the rate as a float too, and the decay as a float
            group["lr_float"] = float(group["lr"])
            group["weight_decay"] = float(group["weight_decay"])
        self.momentum_buf = ParameterTuple([self._state("momentum_buf", p) for p in self.parameters])
        self.step_t = Parameter(Tensor(np.zeros((), np.int32)), name="step_t", requires_grad=False)

    def _check_group(self, group):
        op = "SGD"
        for name in ("lr", "momentum", "dampening", "weight_decay"):
            _number(group[name], name, op)
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("For 'SGD', 'nesterov' needs a positive 'momentum' and zero 'dampening'")

    def _step(self, grads):
        step = int(self.step_t.asnumpy()) + 1
        self.step_t.set_data(Tensor(np.array(step, np.int32)))
        for i, ((group, p), g) in enumerate(zip(self._group_of(), _arrays(grads, self.parameters))):
            lr, mu, damp, wd = group["lr"], group["momentum"], group["dampening"], group["weight_decay"]
            w = p._data
            g = -g if group["maximize"] else g
            if wd:
                g = g + wd * w
            if mu:
                buf = g if step == 1 else mu * self.momentum_buf[i]._data + (1.0 - damp) * g
                self.momentum_buf[i]._data = buf
                g = g + mu * buf if group["nesterov"] else buf
            p.set_data(Tensor._from_array(_backend.current().xp.astype(w - lr * g, w.dtype)))
