"""Learning-rate schedules: Cells that map the optimizer's ``global_step`` to a learning rate.

An optimizer given a :class:`LearningRateSchedule` as ``learning_rate`` calls
it with its ``global_step`` (an Int32 Tensor of shape ``(1,)``) before every
update, as MindSpore does.

>>> import cellkit as ms
>>> from cellkit import nn
>>> schedule = nn.ExponentialDecayLR(0.1, 0.9, decay_steps=4)
>>> print(schedule(ms.Tensor([4], ms.int32)))
[0.09]
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ..cell import Cell
from ._checks import check_bool, non_negative_float, positive_float, positive_int

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
           "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base class of learning-rate schedules: define ``construct(global_step)``.

    >>> import cellkit as ms
    >>> from cellkit import nn, ops
    >>> class Halving(nn.LearningRateSchedule):
    ...     def construct(self, global_step):
    ...         return 0.1 * ops.pow(0.5, ops.cast(global_step, ms.float32))
    >>> print(Halving()(ms.Tensor([2], ms.int32)))
    [0.025]
    """

    def __init__(self):
        super().__init__()

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


def _positive_float(value, name, cls, allow_zero=False):
    return non_negative_float(value, name, cls) if allow_zero else positive_float(value, name, cls)


_positive_int = positive_int
_check_bool = check_bool


def _steps(global_step):
    return ops.cast(global_step, _dt.float32)


class ExponentialDecayLR(LearningRateSchedule):
    """``learning_rate * decay_rate ** p`` with ``p = step / decay_steps`` (floored if ``is_stair``).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)(ms.Tensor([3], ms.int32)))
    [0.1]
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        name = type(self).__name__
        self.decay_steps = _positive_int(decay_steps, "decay_steps", name)
        self.learning_rate = _positive_float(learning_rate, "learning_rate", name)
        self.decay_rate = _positive_float(decay_rate, "decay_rate", name)
        self.is_stair = _check_bool(is_stair, "is_stair", name)

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return ops.pow(self.decay_rate, p) * self.learning_rate


class NaturalExpDecayLR(LearningRateSchedule):
    r"""``learning_rate * e ** (-decay_rate * p)`` with ``p = step / decay_steps`` (floored if ``is_stair``).

    This is the formula MindSpore 2.10 documents (and TensorFlow's
    ``natural_exp_decay``).  MindSpore 2.10's Cell computes something else:
    ``p = step`` without ``is_stair`` and ``floor(step / decay_steps) *
    decay_steps`` with it -- ``decay_steps`` times the documented exponent;
    cellkit follows the documentation.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.NaturalExpDecayLR(0.1, 0.5, 2)(ms.Tensor([4], ms.int32)))
    [0.03678794]
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        name = type(self).__name__
        self.decay_steps = _positive_int(decay_steps, "decay_steps", name)
        self.learning_rate = _positive_float(learning_rate, "learning_rate", name)
        self.decay_rate = _positive_float(decay_rate, "decay_rate", name)
        self.is_stair = _check_bool(is_stair, "is_stair", name)
        self.math_e = math.e

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.exp(-self.decay_rate * p)


class InverseDecayLR(LearningRateSchedule):
    """``learning_rate / (1 + decay_rate * p)`` with ``p = step / decay_steps`` (floored if ``is_stair``).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.InverseDecayLR(0.1, 0.5, 2)(ms.Tensor([4], ms.int32)))
    [0.05]
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        name = type(self).__name__
        self.decay_steps = _positive_int(decay_steps, "decay_steps", name)
        self.learning_rate = _positive_float(learning_rate, "learning_rate", name)
        self.decay_rate = _positive_float(decay_rate, "decay_rate", name)
        self.is_stair = _check_bool(is_stair, "is_stair", name)

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1.0 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """Half a cosine from ``max_lr`` down to ``min_lr`` over ``decay_steps``, then ``min_lr``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.CosineDecayLR(0.01, 0.1, 10)(ms.Tensor([5], ms.int32)))
    [0.055]
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        name = type(self).__name__
        self.min_lr = _positive_float(min_lr, "min_lr", name, allow_zero=True)
        self.max_lr = _positive_float(max_lr, "max_lr", name)
        self.decay_steps = _positive_int(decay_steps, "decay_steps", name)
        if min_lr >= max_lr:
            raise ValueError(f"For '{name}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr}, "
                             f"min_lr={min_lr}")
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = ops.minimum(_steps(global_step), float(self.decay_steps))
        # sin(pi * (p/T + 1/2)) is cos(pi * p/T), written as MindSpore computes it.
        return self.min_lr + self.delta * (1.0 + ops.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    """``(lr - end_lr) * (1 - step / decay_steps) ** power + end_lr``.

    With ``update_decay_steps`` the horizon grows by ``decay_steps`` each time
    it is reached; otherwise the step stops at ``decay_steps``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0)(ms.Tensor([2], ms.int32)))
    [0.0325]
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        name = type(self).__name__
        self.start_learning_rate = _positive_float(learning_rate, "learning_rate", name)
        self.end_learning_rate = _positive_float(end_learning_rate, "end_learning_rate", name, allow_zero=True)
        self.decay_steps = _positive_int(decay_steps, "decay_steps", name)
        self.update_decay_steps = _check_bool(update_decay_steps, "update_decay_steps", name)
        self.power = _positive_float(power, "power", name)
        self.diff_learning_rate = learning_rate - end_learning_rate

    def construct(self, global_step):
        step = _steps(global_step)
        horizon = float(self.decay_steps)
        if self.update_decay_steps:
            horizon = ops.maximum(ops.ceil(step / horizon), 1.0) * horizon
        else:
            step = ops.minimum(step, horizon)
        p = step / horizon
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.WarmUpLR(0.1, 4)(ms.Tensor([1], ms.int32)))
    [0.025]
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        name = type(self).__name__
        self.learning_rate = _positive_float(learning_rate, "learning_rate", name, allow_zero=True)
        self.warmup_steps = _positive_int(warmup_steps, "warmup_steps", name)

    def construct(self, global_step):
        fraction = ops.minimum(_steps(global_step), float(self.warmup_steps)) / self.warmup_steps
        return self.learning_rate * fraction
