"""Layer-wise trust ratios for large batches: ``nn.Lamb`` and ``nn.LARS``.

Both scale each parameter's step by ``||w|| / ||step||``, so every layer
moves by a similar fraction of its own size whatever its gradient's scale.

MindSpore 2.10 has no CPU kernel for either update (``Lamb``, ``LARSUpdate``):
there they raise RuntimeError at the first step.  cellkit runs the updates
their documentation describes.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([3.0, 4.0]), name="w")
>>> opt = nn.Lamb([w], learning_rate=0.1)
>>> _ = opt((ms.Tensor([1.0, 1.0]),))
>>> print(w.asnumpy().round(4))  # the step has length lr * ||w|| = 0.5
[2.6464 3.6464]
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter, ParameterTuple
from ...tensor import Tensor
from ._checks import check_bool, is_float
from .adam import _check_betas_eps, _float32_constants
from .optimizer import Optimizer, _hyper, _writable

__all__ = ["Lamb", "LARS"]


class Lamb(Optimizer):
    r"""LAMB (You et al.): Adam's direction, rescaled per parameter by a trust ratio.

    At step ``t``::

        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        r = (m / (1 - beta1 ** t)) / (sqrt(v / (1 - beta2 ** t)) + eps) + weight_decay * w
        w -= lr * ||w|| / ||r|| * r

    The ratio is 1 when ``||w||`` or ``||r||`` is 0 (so a parameter that starts
    at zero still moves), as in the paper's reference implementation.

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Required.
    beta1, beta2 : float
        In (0, 1) (defaults 0.9 and 0.999).
    eps : float
        > 0 (default 1e-6).
    weight_decay : float, int or Cell
        Decoupled, inside ``r``; without groups not applied to ``beta``/``gamma`` names.

    Notes
    -----
    State: ``lamb_m.<name>`` and ``lamb_v.<name>``.  There is no loss scale.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.Lamb(net.trainable_params(), learning_rate=0.01, weight_decay=0.01)
    >>> [p.name for p in opt.get_parameters()][4:]
    ['lamb_m.weight', 'lamb_m.bias', 'lamb_v.weight', 'lamb_v.bias']
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas_eps(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(np.array([beta1], np.float32))
        self.beta2 = Tensor(np.array([beta2], np.float32))
        self.eps = Tensor(np.array([eps], np.float32))
        self.params = self.parameters
        self.moments1 = self.parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="lamb_v", init="zeros")
        object.__setattr__(self, "_constants", _float32_constants(beta1, beta2, eps))

    def construct(self, gradients):
        grads = self._centralize_arrays(self._grad_arrays(gradients))
        decays = self._dynamic_decays() if self.dynamic_weight_decay else self._decay_values
        lrs = self._per_param_lrs()
        self._advance()
        be = _backend.current()
        xp = be.xp
        beta1, keep1, beta2, keep2, eps = self._constants
        t = int(be.to_host(self.global_step._data).reshape(-1)[0])
        correction1 = 1.0 / (1.0 - float(np.float32(beta1) ** t))
        correction2 = 1.0 / (1.0 - float(np.float32(beta2) ** t))
        for p, m_param, v_param, g, lr, wd in zip(self.parameters, self.moments1, self.moments2, grads, lrs, decays):
            w = _writable(p)
            m = _writable(m_param)
            v = _writable(v_param)
            m *= beta1
            m += keep1 * g
            v *= beta2
            v += keep2 * (g * g)
            ratio_step = (m * correction1) / (xp.sqrt(v * correction2) + eps)
            if wd is not None:
                ratio_step = ratio_step + _hyper(wd, w) * w
            w -= _hyper(lr, w) * _trust_ratio(xp, w, ratio_step) * ratio_step
        return self._done()


def _trust_ratio(xp, w, step):
    """``||w|| / ||step||`` as a 0-d array, 1 where either norm is 0."""
    w_norm = xp.sqrt(xp.sum(w * w))
    step_norm = xp.sqrt(xp.sum(step * step))
    usable = (w_norm > 0) & (step_norm > 0)
    return xp.where(usable, w_norm / xp.where(usable, step_norm, xp.ones_like(step_norm)), xp.ones_like(w_norm))


def _default_lars_filter(param):
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    r"""LARS (You et al.): wraps another optimizer and rescales each gradient by a local rate.

    For each parameter the ``lars_filter`` keeps (by default all but biases
    and LayerNorm parameters), before the wrapped optimizer runs::

        local = coefficient * ||w|| / (||g|| + weight_decay * ||w|| + epsilon)
        local = min(max(local / lr, 0), 1)            with use_clip
        g = local * (g + weight_decay * w)

    ``weight_decay`` and ``loss_scale`` are the wrapped optimizer's: LARS
    takes them over (the wrapped optimizer then neither decays nor rescales),
    so parameters the filter leaves out get no weight decay.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer that applies the rescaled gradients (usually Momentum).
    epsilon : float
        Added to the denominator (default 1e-5).
    coefficient : float
        The trust coefficient (default 0.001).
    use_clip : bool
        Clip the local rate relative to the learning rate.
    lars_filter : callable
        ``lars_filter(param) -> bool``: which parameters LARS rescales.

    Notes
    -----
    As in MindSpore the state adds ``fake_lr`` and ``fake_param`` (0-d
    placeholders) to the wrapped optimizer's, and ``global_step`` is the
    wrapped optimizer's.

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer (MindSpore 2.10 raises
        AttributeError here), or ``epsilon``/``coefficient``/``use_clip`` have
        the wrong type.
    ValueError
        ``use_clip`` with a wrapped optimizer whose rates are per group and dynamic.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.LARS(nn.Momentum(net.trainable_params(), 0.1, 0.9))
    >>> opt.lars_flag
    (True, False)
    """

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=_default_lars_filter):
        fake = Parameter(Tensor(np.float32(0.0)), name="fake_param")
        super().__init__(0.0, [fake])
        name = self.cls_name
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For '{name}', 'optimizer' must be an Optimizer, but got {type(optimizer).__name__}.")
        is_float(epsilon, "epsilon", name)
        is_float(coefficient, "coefficient", name)
        check_bool(use_clip, "use_clip", name)
        self.opt = optimizer
        self.epsilon = epsilon
        self.coefficient = coefficient
        self.use_clip = use_clip
        self.dynamic_decay_flags = optimizer.dynamic_decay_flags
        self.dynamic_weight_decay = optimizer.dynamic_weight_decay
        self.weight_decay = optimizer.weight_decay
        self.global_step = optimizer.global_step
        self.parameters = optimizer.parameters
        self.param_length = optimizer.param_length
        if not callable(lars_filter):
            raise TypeError(f"For 'LARS', 'lars_filter' must be a callable taking a Parameter, but got "
                            f"{type(lars_filter).__name__} {lars_filter!r}")
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self.parameters)
        self.is_group = optimizer.is_group
        self.learning_rate = Parameter(Tensor(np.float32(0.0)), name="fake_lr")
        self.decay_flags = optimizer.decay_flags
        self.reciprocal_scale = optimizer.reciprocal_scale
        self.need_scale = optimizer.need_scale
        self.loss_scale = optimizer.loss_scale
        # The weight decay LARS applies itself, unscaled: the wrapped optimizer multiplied it by loss_scale.
        object.__setattr__(self, "_lars_decays", tuple(
            None if value is None else value / optimizer.loss_scale for value in optimizer._decay_values))
        if use_clip:
            self.is_group_lr = optimizer.is_group_lr
            self.dynamic_lr = optimizer.dynamic_lr
            self.origin_learning_rate = optimizer.learning_rate
            if self.is_group_lr and self.dynamic_lr:
                raise ValueError(f"For '{name}', with use_clip=True the wrapped optimizer cannot have dynamic "
                                 "learning rates per group.")
        # Take weight decay and loss scaling over from the wrapped optimizer.
        optimizer.dynamic_decay_flags = (False,) * optimizer.param_length if optimizer.is_group else False
        optimizer.decay_flags = (False,) * optimizer.param_length
        optimizer.dynamic_weight_decay = False
        optimizer.reciprocal_scale = Tensor(np.float32(1.0))
        optimizer.need_scale = False
        optimizer.exec_weight_decay = False
        self._fake_params = ParameterTuple([fake])
        self._list_fake_param_first()

    def _list_fake_param_first(self):
        """Put ``fake_param`` right after ``fake_lr``, where MindSpore lists it (checkpoint key order)."""
        params = self._params
        fake_lr = self.learning_rate
        moved = params.pop("fake_param")
        items = list(params.items())
        params.clear()
        for key, value in items:
            params[key] = value
            if value is fake_lr:
                params["fake_param"] = moved

    def construct(self, gradients):
        grads = self._grad_arrays(gradients)
        grads = self._scale_arrays(grads)
        xp = _backend.current().xp
        lrs = self._clip_rates() if self.use_clip else None
        decays = self._current_decays()
        out = []
        for index, (p, g) in enumerate(zip(self.parameters, grads)):
            if not self.lars_flag[index]:
                out.append(g)
                continue
            w = p._data
            wd = decays[index]
            w_norm = xp.sqrt(xp.sum(w * w))
            g_norm = xp.sqrt(xp.sum(g * g))
            local = self.coefficient * w_norm / (g_norm + wd * w_norm + self.epsilon)
            if lrs is not None:
                local = xp.clip(local / lrs[index], 0.0, 1.0)
            out.append(_hyper(xp.astype(local, w.dtype), w) * (g + wd * w))
        return self.opt(tuple(Tensor._from_array(g) for g in out))

    def _current_decays(self):
        """The unscaled weight decay of each parameter (0.0 where it is not decayed)."""
        if not self.dynamic_weight_decay:
            return [0.0 if value is None else value for value in self._lars_decays]
        current = self.get_weight_decay()
        if not self.is_group:
            current = (current,) * self.param_length
        values = []
        for flag, value in zip(self.decay_flags, current):
            values.append(float(value.asnumpy().reshape(-1)[0]) / self.loss_scale if flag else 0.0)
        return values

    def _clip_rates(self):
        """The wrapped optimizer's learning rate of each parameter for this step (for use_clip)."""
        rates = self.origin_learning_rate
        if self.dynamic_lr:
            value = _scalar_array(rates(self.global_step))
            return [value] * self.param_length
        if self.is_group_lr:
            return [r._data for r in rates]
        return [rates._data] * self.param_length


def _scalar_array(value):
    return _backend.current().xp.reshape(value._data, ())
