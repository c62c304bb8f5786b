"""Optimizers and learning-rate schedules: ``nn.SGD``, ``nn.Momentum``, ``nn.Adam``, ``nn.AdamWeightDecay``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.Dense(4, 2)
>>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
>>> opt
Momentum()
"""
from .adam import Adam, AdamWeightDecay
from .lr_schedule import CosineDecayLR, ExponentialDecayLR, LearningRateSchedule, PolynomialDecayLR, WarmUpLR
from .optimizer import Optimizer
from .sgd import SGD, Momentum

__all__ = [
    "Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay",
    "LearningRateSchedule", "ExponentialDecayLR", "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR",
]
