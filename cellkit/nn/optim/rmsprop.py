"""Optimizers that divide by a moving average of squared gradients: ``nn.RMSProp`` and ``nn.Adadelta``.

Unlike Adagrad's ever-growing sum, a moving average forgets old gradients,
so the step size does not shrink to zero over a long run.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
>>> opt = nn.RMSProp([w], learning_rate=0.1, decay=0.0)
>>> _ = opt((ms.Tensor([4.0]),))
>>> print(w.asnumpy())  # decay=0: the step is lr * g / |g|
[0.9]
"""
from __future__ import annotations

from ... import backend as _backend
from ...tensor import Tensor
from ._checks import check_bool, float_in_range, is_float, non_negative_float, positive_float
from .optimizer import Optimizer, _hyper, _writable

__all__ = ["RMSProp", "Adadelta"]


class RMSProp(Optimizer):
    r"""Root Mean Square propagation (Tieleman & Hinton), optionally centred and with momentum.

    Per step::

        ms = decay * ms + (1 - decay) * g * g
        mom = momentum * mom + lr * g / sqrt(ms + epsilon)
        w -= mom

    With ``centered`` the running mean ``mg`` of the gradients is kept too
    and the denominator is ``sqrt(ms - mg * mg + epsilon)`` (an estimate of
    the variance instead of the second moment).

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 0.1.
    decay : float
        >= 0 (default 0.9).
    momentum : float
        >= 0 (default 0.0).
    epsilon : float
        > 0 (default 1e-10).
    use_locking : bool
        Accepted (updates never race in cellkit).
    centered : bool
    loss_scale : float
    weight_decay : float, int or Cell

    Notes
    -----
    State, as in MindSpore: ``mean_grad.<name>`` (centred only, zeros),
    ``mean_square.<name>`` (ones) and ``moment.<name>`` (zeros).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.RMSProp(net.trainable_params(), centered=True)
    >>> [p.name for p in opt.get_parameters()][4:]
    ['mean_grad.weight', 'mean_grad.bias', 'mean_square.weight', 'mean_square.bias', 'moment.weight', 'moment.bias']
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        self.decay = non_negative_float(decay, "decay", name)
        self.momentum = non_negative_float(momentum, "momentum", name)
        self.epsilon = positive_float(epsilon, "epsilon", name)
        self.use_locking = check_bool(use_locking, "use_locking", name)
        self.centered = check_bool(centered, "centered", name)
        if centered:
            self.mg = self.parameters.clone(prefix="mean_grad", init="zeros")
        self.ms = self.parameters.clone(prefix="mean_square", init="ones")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")

    def construct(self, gradients):
        grads = self._prepare(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        sqrt = _backend.current().xp.sqrt
        keep = 1.0 - self.decay
        means = self.mg if self.centered else (None,) * self.param_length
        for p, mg_param, ms_param, mom_param, g, lr in zip(self.parameters, means, self.ms, self.moment, grads, lrs):
            w = _writable(p)
            mean_square = _writable(ms_param)
            mom = _writable(mom_param)
            mean_square *= self.decay
            mean_square += keep * (g * g)
            if mg_param is None:
                denominator = sqrt(mean_square + self.epsilon)
            else:
                mean_grad = _writable(mg_param)
                mean_grad *= self.decay
                mean_grad += keep * g
                denominator = sqrt(mean_square - mean_grad * mean_grad + self.epsilon)
            mom *= self.momentum
            mom += _hyper(lr, w) * g / denominator
            w -= mom
        return self._done()


class Adadelta(Optimizer):
    r"""Adadelta (Zeiler): steps scaled by the ratio of two moving root-mean-squares.

    Per step::

        accum = rho * accum + (1 - rho) * g * g
        update = sqrt(accum_update + epsilon) * g / sqrt(accum + epsilon)
        accum_update = rho * accum_update + (1 - rho) * update * update
        w -= lr * update

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        Default 1.0.
    rho : float
        In [0, 1] (default 0.9).
    epsilon : float
        >= 0 (default 1e-6).
    loss_scale : float
    weight_decay : float, int or Cell

    Notes
    -----
    State: ``accum.<name>`` and ``accum_update.<name>`` (zeros).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = nn.Adadelta([w], rho=0.0, epsilon=1e-6)
    >>> _ = opt((ms.Tensor([2.0]),))
    >>> print(w.asnumpy().round(6))  # the first step is about sqrt(epsilon): Adadelta starts slowly
    [0.999]
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        is_float(rho, "rho", name)
        is_float(epsilon, "epsilon", name)
        self.rho = float_in_range(rho, "rho", name, 0.0, 1.0, closed=(True, True))
        self.epsilon = non_negative_float(epsilon, "epsilon", name)
        self.accum = self.parameters.clone(prefix="accum", init=0)
        self.accum_update = self.parameters.clone(prefix="accum_update", init=0)

    def construct(self, grads):
        if not isinstance(grads, tuple) or (grads and not isinstance(grads[0], Tensor)):
            raise TypeError(f"For '{self.cls_name}', the 'grads' must be a tuple of Tensors, but got "
                            f"{type(grads).__name__}.")
        grads = self._prepare(grads)
        lrs = self._per_param_lrs()
        self._advance()
        sqrt = _backend.current().xp.sqrt
        keep = 1.0 - self.rho
        for p, acc_param, upd_param, g, lr in zip(self.parameters, self.accum, self.accum_update, grads, lrs):
            w = _writable(p)
            accum = _writable(acc_param)
            accum_update = _writable(upd_param)
            accum *= self.rho
            accum += keep * (g * g)
            update = sqrt(accum_update + self.epsilon) * g / sqrt(accum + self.epsilon)
            accum_update *= self.rho
            accum_update += keep * (update * update)
            w -= _hyper(lr, w) * update
        return self._done()
