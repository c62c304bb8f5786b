"""Learning rates computed ahead of time, one per step: lists to give an optimizer as ``learning_rate``.

Step ``i`` of epoch ``floor(i / step_per_epoch)`` gets the i-th value; an
optimizer given the list uses the i-th value for its i-th update.

>>> from cellkit import nn
>>> nn.piecewise_constant_lr([2, 5], [0.1, 0.05])
[0.1, 0.1, 0.05, 0.05, 0.05]
>>> [round(x, 4) for x in nn.exponential_decay_lr(0.1, 0.5, total_step=4, step_per_epoch=1, decay_epoch=1)]
[0.1, 0.05, 0.025, 0.0125]
"""
from __future__ import annotations

import math

from ._checks import check_bool, is_float, non_negative_float, positive_float, positive_int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone, learning_rates):
    r"""A constant rate per stretch of steps: ``learning_rates[i]`` until step ``milestone[i]``.

    Parameters
    ----------
    milestone : list or tuple of int
        Increasing step counts (> 0); the last one is the length of the result.
    learning_rates : list or tuple of float
        One rate per milestone.

    Returns
    -------
    list of float

    Raises
    ------
    TypeError
        ``milestone`` or ``learning_rates`` not a list or tuple, or an entry of the wrong type.
    ValueError
        Lengths that differ, a milestone <= 0, or milestones that decrease.

    Examples
    --------
    >>> from cellkit import nn
    >>> nn.piecewise_constant_lr([1, 3], [0.5, 0.1])
    [0.5, 0.1, 0.1]
    """
    name = "piecewise_constant_lr"
    for arg, value in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"For '{name}', '{arg}' must be a tuple or list, but got type '{type(value).__name__}'.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{name}', 'milestone' and 'learning_rates' must have the same length, but got "
                         f"{len(milestone)} milestones and {len(learning_rates)} learning rates.")
    rates = []
    last = 0
    for i, (end, rate) in enumerate(zip(milestone, learning_rates)):
        positive_int(end, f"milestone[{i}]", name)
        is_float(rate, f"learning_rates[{i}]", name)
        if end < last:
            raise ValueError(f"For '{name}', the milestones must not decrease, but got milestone[{i}]={end} after "
                             f"milestone[{i - 1}]={last}.")
        rates += [rate] * (end - last)
        last = end
    return rates


def _check_decay(name, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    positive_int(total_step, "total_step", name)
    positive_int(step_per_epoch, "step_per_epoch", name)
    positive_int(decay_epoch, "decay_epoch", name)
    positive_float(learning_rate, "learning_rate", name)
    positive_float(decay_rate, "decay_rate", name)
    check_bool(is_stair, "is_stair", name)


def _epochs(total_step, step_per_epoch):
    return (math.floor(i / step_per_epoch) for i in range(total_step))


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    r"""``learning_rate * decay_rate ** (epoch / decay_epoch)`` per step (the exponent floored with ``is_stair``).

    Parameters
    ----------
    learning_rate, decay_rate : float
        > 0.
    total_step, step_per_epoch, decay_epoch : int
        > 0.
    is_stair : bool
        Decay once every ``decay_epoch`` epochs instead of smoothly.

    Returns
    -------
    list of float
        ``total_step`` rates.

    Examples
    --------
    >>> from cellkit import nn
    >>> [round(x, 4) for x in nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, is_stair=True)]
    [0.1, 0.1, 0.1, 0.1, 0.09, 0.09]
    """
    _check_decay("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    rates = []
    for epoch in _epochs(total_step, step_per_epoch):
        exponent = epoch / decay_epoch
        rates.append(learning_rate * decay_rate ** (math.floor(exponent) if is_stair else exponent))
    return rates


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    r"""``learning_rate * e ** (-decay_rate * epoch)`` per step.

    With ``is_stair`` the epoch is rounded down to a multiple of
    ``decay_epoch``; otherwise ``decay_epoch`` is only checked (as MindSpore
    documents and computes it).

    Examples
    --------
    >>> from cellkit import nn
    >>> [round(x, 4) for x in nn.natural_exp_decay_lr(0.1, 0.5, 4, 1, 2, is_stair=True)]
    [0.1, 0.1, 0.0368, 0.0368]
    """
    _check_decay("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    rates = []
    for epoch in _epochs(total_step, step_per_epoch):
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        rates.append(learning_rate * math.e ** (-decay_rate * epoch))
    return rates


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    r"""``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` per step (the ratio floored with ``is_stair``).

    Examples
    --------
    >>> from cellkit import nn
    >>> nn.inverse_decay_lr(0.1, 1.0, 4, 1, 1)
    [0.1, 0.05, 0.03333333333333333, 0.025]
    """
    _check_decay("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    rates = []
    for epoch in _epochs(total_step, step_per_epoch):
        if is_stair:
            rates.append(learning_rate / (1 + decay_rate * math.floor(epoch / decay_epoch)))
        else:
            rates.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return rates


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    r"""Half a cosine from ``max_lr`` down to ``min_lr`` over ``decay_epoch`` epochs, then ``min_lr``.

    Parameters
    ----------
    min_lr : float
        >= 0, below ``max_lr``.
    max_lr : float
        > 0.
    total_step, step_per_epoch, decay_epoch : int
        > 0.

    Examples
    --------
    >>> from cellkit import nn
    >>> [round(x, 4) for x in nn.cosine_decay_lr(0.0, 0.1, 5, 1, 4)]
    [0.1, 0.0854, 0.05, 0.0146, 0.0]
    """
    name = "cosine_decay_lr"
    non_negative_float(min_lr, "min_lr", name)
    positive_float(max_lr, "max_lr", name)
    positive_int(total_step, "total_step", name)
    positive_int(step_per_epoch, "step_per_epoch", name)
    positive_int(decay_epoch, "decay_epoch", name)
    if min_lr >= max_lr:
        raise ValueError(f"For '{name}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr}, "
                         f"min_lr={min_lr}.")
    half = 0.5 * (max_lr - min_lr)
    return [min_lr + half * (1 + math.cos(math.pi * min(epoch, decay_epoch) / decay_epoch))
            for epoch in _epochs(total_step, step_per_epoch)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    r"""``(learning_rate - end) * (1 - epoch / decay_epoch) ** power + end`` per step.

    Without ``update_decay_epoch`` the epoch stops at ``decay_epoch`` (the
    rate stays at ``end_learning_rate``); with it the horizon grows to the
    next multiple of ``decay_epoch`` each time it is reached.

    Examples
    --------
    >>> from cellkit import nn
    >>> [round(x, 4) for x in nn.polynomial_decay_lr(0.1, 0.01, 5, 1, 2, 1.0)]
    [0.1, 0.055, 0.01, 0.01, 0.01]
    """
    name = "polynomial_decay_lr"
    positive_float(learning_rate, "learning_rate", name)
    non_negative_float(end_learning_rate, "end_learning_rate", name)
    positive_float(power, "power", name)
    positive_int(total_step, "total_step", name)
    positive_int(step_per_epoch, "step_per_epoch", name)
    positive_int(decay_epoch, "decay_epoch", name)
    check_bool(update_decay_epoch, "update_decay_epoch", name)
    delta = learning_rate - end_learning_rate
    rates = []
    for epoch in _epochs(total_step, step_per_epoch):
        if update_decay_epoch:
            horizon = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            horizon, epoch = decay_epoch, min(epoch, decay_epoch)
        rates.append(delta * (1 - epoch / horizon) ** power + end_learning_rate)
    return rates


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    r"""``learning_rate * min(epoch, warmup_epoch) / warmup_epoch`` per step.

    Examples
    --------
    >>> from cellkit import nn
    >>> nn.warmup_lr(0.1, 4, 1, 2)
    [0.0, 0.05, 0.1, 0.1]
    """
    name = "warmup_lr"
    non_negative_float(learning_rate, "learning_rate", name)
    positive_int(warmup_epoch, "warmup_epoch", name)
    positive_int(total_step, "total_step", name)
    positive_int(step_per_epoch, "step_per_epoch", name)
    return [learning_rate * min(epoch, warmup_epoch) / warmup_epoch for epoch in _epochs(total_step, step_per_epoch)]
