"""Adaptive moment estimation: ``nn.Adam`` and ``nn.AdamWeightDecay``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0, -1.0]), name="w")
>>> opt = nn.Adam([w], learning_rate=0.1)
>>> _ = opt((ms.Tensor([0.5, -2.0]),))
>>> print(w.asnumpy().round(4))  # the first Adam step moves each weight by about lr
[ 0.9 -0.9]
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter
from ...tensor import Tensor
from .optimizer import Optimizer, _hyper, _writable

__all__ = ["Adam", "AdamWeightDecay"]


def _check_betas_eps(beta1, beta2, eps, cls):
    for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if not isinstance(value, float):
            raise TypeError(f"For '{cls}', the argument '{name}' must be a float, but got {type(value).__name__}")
    for name, value in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"For '{cls}', the '{name}' must be in range of (0.0, 1.0), but got {value} with type 'float'.")
    if not eps > 0.0:
        raise ValueError(f"For '{cls}', the 'eps' must be > 0, but got {eps}")


def _float32_constants(beta1, beta2, eps):
    """``beta1, 1 - beta1, beta2, 1 - beta2, eps`` rounded as float32 arithmetic rounds them.

    MindSpore stores the betas as float32 and subtracts in float32; doing the
    same keeps the moments equal to MindSpore's to the last bit (``1 - 0.999``
    is 0.0009999871 in float32, not 0.001).
    """
    one = np.float32(1.0)
    b1, b2 = np.float32(beta1), np.float32(beta2)
    return float(b1), float(one - b1), float(b2), float(one - b2), float(np.float32(eps))


def _check_bool(value, name, cls):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', the argument '{name}' must be a bool, but got {type(value).__name__}")
    return value


class Adam(Optimizer):
    r"""Adam (Kingma & Ba), with MindSpore's optional Nesterov and AMSGrad variants.

    Per step ``t`` (``beta1_power = beta1 ** t``, ``beta2_power = beta2 ** t``)::

        m  = m + (g - m) * (1 - beta1)
        v  = v + (g * g - v) * (1 - beta2)
        lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
        w  = w - lr_t * m / (sqrt(v) + eps)

    ``use_nesterov`` replaces ``m`` in the last line by
    ``beta1 * m + (1 - beta1) * g``; ``use_amsgrad`` divides by the running
    maximum ``vhat`` of ``v`` instead.  ``weight_decay`` is L2 (added to the
    gradient before the moments), as in MindSpore's ``Adam``; for decoupled
    decay use :class:`AdamWeightDecay`.

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, Tensor, Iterable or LearningRateSchedule
    beta1, beta2 : float
        In (0, 1).
    eps : float
        > 0.
    use_locking : bool
        Accepted for compatibility (updates never race in cellkit).
    use_nesterov, use_amsgrad : bool
        Not both.
    weight_decay : float, int or Cell
    loss_scale : float
    **kwargs
        ``use_lazy`` / ``use_offload`` (bools) are accepted: with cellkit's
        dense gradients both give the ordinary update.

    Notes
    -----
    State: ``beta1_power``, ``beta2_power``, ``moment1.<name>``,
    ``moment2.<name>`` (and ``vhat.<name>`` with AMSGrad).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(3, 2)
    >>> opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    >>> [p.name for p in opt.get_parameters()][2:]
    ['weight', 'bias', 'beta1_power', 'beta2_power', 'moment1.weight', 'moment1.bias', 'moment2.weight', 'moment2.bias']
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(
                "For 'Adam', invalid keys are passed as kwargs, supported keys are 'use_lazy' and 'use_offload', "
                f"but got {sorted(unknown)}."
            )
        use_lazy = _check_bool(kwargs.get("use_lazy", False), "use_lazy", "Adam")
        use_offload = _check_bool(kwargs.get("use_offload", False), "use_offload", "Adam")
        _check_betas_eps(beta1, beta2, eps, "Adam")
        self.use_locking = _check_bool(use_locking, "use_locking", "Adam")
        self.use_nesterov = _check_bool(use_nesterov, "use_nesterov", "Adam")
        self.use_amsgrad = _check_bool(use_amsgrad, "use_amsgrad", "Adam")
        if use_lazy and use_offload:
            raise ValueError("For 'Adam', 'use_lazy' and 'use_offload' can not both be True.")
        if use_amsgrad and (use_lazy or use_offload):
            raise ValueError("For lazy Adam and Adam with offload, there is no parameter named 'use_amsgrad'.")
        self.use_lazy = use_lazy
        self.use_offload = use_offload
        self.beta1 = Tensor(np.float32(beta1))
        self.beta2 = Tensor(np.float32(beta2))
        self.eps = Tensor(np.float32(eps))
        self.beta1_power = Parameter(Tensor(np.ones((), np.float32)), name="beta1_power")
        self.beta2_power = Parameter(Tensor(np.ones((), np.float32)), name="beta2_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        if use_amsgrad:
            self.vhat = self.parameters.clone(prefix="vhat", init="zeros")
        object.__setattr__(self, "_constants", _float32_constants(beta1, beta2, eps))

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        vhats = self.vhat if self.use_amsgrad else None
        _adam_steps(self, grads, lrs, self.moment1, self.moment2, vhats, self.use_nesterov)
        return self._done()


def _adam_steps(opt, grads, lrs, moment1, moment2, vhats, use_nesterov):
    """One Adam update of every parameter of ``opt`` (shared by Adam, LazyAdam and AdamOffload).

    ``opt.beta1_power`` and ``opt.beta2_power`` are multiplied by the betas
    first, so step ``t`` corrects by ``beta ** t``.
    """
    xp = _backend.current().xp
    beta1, keep1, _, keep2, eps = opt._constants
    b1p = _writable(opt.beta1_power)
    b1p *= opt.beta1._data
    b2p = _writable(opt.beta2_power)
    b2p *= opt.beta2._data
    correction = xp.reshape(xp.sqrt(1.0 - b2p) / (1.0 - b1p), ())
    vhats = (None,) * opt.param_length if vhats is None else vhats
    for p, m_param, v_param, vhat_param, g, lr in zip(opt.parameters, moment1, moment2, vhats, grads, lrs):
        w = _writable(p)
        m = _writable(m_param)
        v = _writable(v_param)
        m += (g - m) * keep1
        v += (g * g - v) * keep2
        if vhat_param is not None:
            vhat_param._data = xp.maximum(vhat_param._data, v)
            denominator = xp.sqrt(vhat_param._data) + eps
        else:
            denominator = xp.sqrt(v) + eps
        numerator = m * beta1 + keep1 * g if use_nesterov else m
        w -= _hyper(lr * correction, w) * numerator / denominator


class AdamWeightDecay(Optimizer):
    r"""Adam with decoupled weight decay (AdamW), as MindSpore implements it.

    Per step, with no bias correction (MindSpore's ``AdamWeightDecay``)::

        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        w = w - lr * (m / (sqrt(v) + eps) + weight_decay * w)

    The gradients are used as given: no L2 term, no loss scaling.  Without
    groups, parameters whose name contains ``'beta'`` or ``'gamma'`` are not
    decayed.

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, Tensor, Iterable or LearningRateSchedule
    beta1, beta2 : float
        In (0, 1).
    eps : float
        > 0.
    weight_decay : float, int or Cell

    Notes
    -----
    State: ``adam_m.<name>`` and ``adam_v.<name>`` (attributes ``moments1``
    and ``moments2``).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = nn.AdamWeightDecay([w], learning_rate=0.1, weight_decay=0.5)
    >>> _ = opt((ms.Tensor([0.0]),))
    >>> print(w.asnumpy())  # no gradient: only the decay, 1 - 0.1 * 0.5 * 1
    [0.95]
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas_eps(beta1, beta2, eps, "AdamWeightDecay")
        self.beta1 = Tensor(np.array([beta1], np.float32))
        self.beta2 = Tensor(np.array([beta2], np.float32))
        self.eps = Tensor(np.array([eps], np.float32))
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")
        object.__setattr__(self, "_constants", _float32_constants(beta1, beta2, eps))

    def construct(self, gradients):
        grads = self._grad_arrays(gradients)
        decays = self._dynamic_decays() if self.dynamic_weight_decay else self._decay_values
        lrs = self._per_param_lrs()
        self._advance()
        xp = _backend.current().xp
        beta1, keep1, beta2, keep2, eps = self._constants
        for p, m_param, v_param, g, lr, wd in zip(self.parameters, self.moments1, self.moments2, grads, lrs, decays):
            w = _writable(p)
            m = _writable(m_param)
            v = _writable(v_param)
            m *= beta1
            m += keep1 * g
            v *= beta2
            v += keep2 * (g * g)
            update = m / (xp.sqrt(v) + eps)
            if wd is not None:
                update = update + _hyper(wd, w) * w
            w -= _hyper(lr, w) * update
        return self._done()
