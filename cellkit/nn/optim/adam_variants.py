"""Relatives of Adam: ``nn.AdaMax``, ``nn.LazyAdam`` and ``nn.AdamOffload``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0, -1.0]), name="w")
>>> opt = nn.AdaMax([w], learning_rate=0.1)
>>> _ = opt((ms.Tensor([0.5, -2.0]),))
>>> print(w.asnumpy().round(4))  # like Adam, the first step moves each weight by about lr
[ 0.9 -0.9]
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter
from ...tensor import Tensor
from ._checks import check_bool, non_negative_float
from .adam import _adam_steps, _check_betas_eps, _float32_constants
from .optimizer import Optimizer, _hyper, _writable

__all__ = ["AdaMax", "LazyAdam", "AdamOffload"]


def _power_parameter(name):
    """A bias-correction power, shape (1,) as MindSpore keeps it for these optimizers, starting at 1."""
    return Parameter(Tensor(np.ones((1,), np.float32)), name=name)


class AdaMax(Optimizer):
    r"""AdaMax (Kingma & Ba): Adam with the infinity norm in place of the second moment.

    Per step ``t``::

        m = beta1 * m + (1 - beta1) * g
        v = max(beta2 * v, |g|)
        w -= lr / (1 - beta1 ** t) * m / (v + eps)

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.001.
    beta1, beta2 : float
        In (0, 1) (defaults 0.9 and 0.999).
    eps : float
        > 0 (default 1e-8).
    weight_decay : float, int or Cell
    loss_scale : float

    Notes
    -----
    State: ``beta1_power`` (shape (1,)), ``moment1.<name>`` and ``moment2.<name>``.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.AdaMax(net.trainable_params())
    >>> [p.name for p in opt.get_parameters()][4:]
    ['beta1_power', 'moment1.weight', 'moment1.bias', 'moment2.weight', 'moment2.bias']
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_betas_eps(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(np.float32(beta1))
        self.beta2 = Tensor(np.float32(beta2))
        self.beta1_power = _power_parameter("beta1_power")
        self.eps = Tensor(np.float32(eps))
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        object.__setattr__(self, "_constants", _float32_constants(beta1, beta2, eps))

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        xp = _backend.current().xp
        beta1, keep1, beta2, _, eps = self._constants
        b1p = _writable(self.beta1_power)
        b1p *= self.beta1._data
        correction = xp.reshape(1.0 / (1.0 - b1p), ())
        for p, m_param, v_param, g, lr in zip(self.parameters, self.moment1, self.moment2, grads, lrs):
            w = _writable(p)
            m = _writable(m_param)
            v = _writable(v_param)
            m *= beta1
            m += keep1 * g
            v_param._data = xp.maximum(v * beta2, xp.abs(g))
            w -= _hyper(lr * correction, w) * m / (v_param._data + eps)
        return self._done()


class LazyAdam(Optimizer):
    r"""Adam whose sparse updates touch only the rows a gradient names.

    cellkit's gradients are dense, so every row is named and the update is
    :class:`Adam`'s (the same numbers as MindSpore gives for dense gradients).

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.001.
    beta1, beta2 : float
        In (0, 1).
    eps : float
        > 0.
    use_locking, use_nesterov : bool
    weight_decay : float
        >= 0 (a number: MindSpore's LazyAdam takes no schedule here).
    loss_scale : float

    Notes
    -----
    State: ``beta1_power``, ``beta2_power`` (shape (1,)), ``moment1.<name>``,
    ``moment2.<name>``.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = nn.LazyAdam([w], learning_rate=0.1)
    >>> _ = opt((ms.Tensor([3.0]),))
    >>> print(w.asnumpy().round(4))
    [0.9]
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _init_dense_adam(self, beta1, beta2, eps, use_locking, use_nesterov, weight_decay)

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        _adam_steps(self, grads, lrs, self.moment1, self.moment2, None, self.use_nesterov)
        return self._done()


class AdamOffload(Optimizer):
    r"""Adam whose update MindSpore computes on the host CPU to save device memory.

    cellkit computes every update where the arrays live, so this is
    :class:`Adam` (the same numbers), kept for code written for MindSpore.

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.001.
    beta1, beta2 : float
        In (0, 1).
    eps : float
        > 0.
    use_locking, use_nesterov : bool
    weight_decay : float, int or Cell
    loss_scale : float

    Notes
    -----
    State: ``beta1_power``, ``beta2_power`` (shape (1,)), ``moment1.<name>``,
    ``moment2.<name>``.  MindSpore leaves out gradient centralisation here;
    so does cellkit.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = nn.AdamOffload([w], learning_rate=0.1)
    >>> _ = opt((ms.Tensor([-3.0]),))
    >>> print(w.asnumpy().round(4))
    [1.1]
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _init_dense_adam(self, beta1, beta2, eps, use_locking, use_nesterov)

    def construct(self, gradients):
        grads = self._scale_arrays(self._decay_arrays(self._grad_arrays(gradients)))
        lrs = self._per_param_lrs()
        self._advance()
        _adam_steps(self, grads, lrs, self.moment1, self.moment2, None, self.use_nesterov)
        return self._done()


def _init_dense_adam(opt, beta1, beta2, eps, use_locking, use_nesterov, weight_decay=None):
    """Checks and state of LazyAdam and AdamOffload (Adam's, with powers of shape (1,))."""
    name = opt.cls_name
    _check_betas_eps(beta1, beta2, eps, name)
    if weight_decay is not None:  # LazyAdam takes a number only
        non_negative_float(weight_decay, "weight_decay", name)
    opt.use_locking = check_bool(use_locking, "use_locking", name)
    opt.use_nesterov = check_bool(use_nesterov, "use_nesterov", name)
    opt.beta1 = Tensor(np.float32(beta1))
    opt.beta2 = Tensor(np.float32(beta2))
    opt.beta1_power = _power_parameter("beta1_power")
    opt.beta2_power = _power_parameter("beta2_power")
    opt.eps = Tensor(np.float32(eps))
    opt.moment1 = opt.parameters.clone(prefix="moment1", init="zeros")
    opt.moment2 = opt.parameters.clone(prefix="moment2", init="zeros")
    object.__setattr__(opt, "_constants", _float32_constants(beta1, beta2, eps))
