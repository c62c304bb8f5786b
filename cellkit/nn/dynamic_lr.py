"""``mindspore.nn.dynamic_lr``: the learning-rate list functions under MindSpore's module path.

They live in :mod:`cellkit.nn.optim.dynamic_lr`.

>>> from cellkit.nn.dynamic_lr import warmup_lr
>>> warmup_lr(0.1, 3, 1, 2)
[0.0, 0.05, 0.1]
"""
from .optim.dynamic_lr import (cosine_decay_lr, exponential_decay_lr, inverse_decay_lr, natural_exp_decay_lr,
                               piecewise_constant_lr, polynomial_decay_lr, warmup_lr)

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]
