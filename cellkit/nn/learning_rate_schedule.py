"""``mindspore.nn.learning_rate_schedule``: where MindSpore code imports the schedule Cells from.

The classes live in :mod:`cellkit.nn.optim.lr_schedule`; this module gives them MindSpore's path,
so ``from mindspore.nn.learning_rate_schedule import LearningRateSchedule`` runs after
``import cellkit as ms`` with ``cellkit`` in its place.

>>> from cellkit.nn.learning_rate_schedule import LearningRateSchedule, WarmUpLR
>>> issubclass(WarmUpLR, LearningRateSchedule)
True
"""
from .optim.lr_schedule import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR, LearningRateSchedule,
                                NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR)

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
           "PolynomialDecayLR", "WarmUpLR"]
