"""Optimizers and learning rates: every optimizer of ``mindspore.nn``, its schedules and rate lists.

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.Dense(4, 2)
>>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
>>> opt
Momentum()

One module per family: ``sgd`` (SGD, Momentum), ``asgd``, ``adam`` (Adam,
AdamWeightDecay), ``adam_variants`` (AdaMax, LazyAdam, AdamOffload),
``adagrad`` (Adagrad, ProximalAdagrad, FTRL), ``rmsprop`` (RMSProp,
Adadelta), ``rprop``, ``adafactor``, ``layerwise`` (Lamb, LARS); the base
class in ``optimizer``; schedules (Cells) in ``lr_schedule`` and
precomputed lists in ``dynamic_lr``.
"""
from .adafactor import AdaFactor
from .adagrad import FTRL, Adagrad, ProximalAdagrad
from .adam import Adam, AdamWeightDecay
from .adam_variants import AdaMax, AdamOffload, LazyAdam
from .asgd import ASGD
from .dynamic_lr import (cosine_decay_lr, exponential_decay_lr, inverse_decay_lr, natural_exp_decay_lr,
                         piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from .layerwise import LARS, Lamb
from .lr_schedule import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR, LearningRateSchedule, NaturalExpDecayLR,
                          PolynomialDecayLR, WarmUpLR)
from .optimizer import Optimizer
from .rmsprop import Adadelta, RMSProp
from .rprop import Rprop
from .sgd import SGD, Momentum

__all__ = [
    "Optimizer", "SGD", "Momentum", "ASGD", "Adam", "AdamWeightDecay", "AdaMax", "LazyAdam", "AdamOffload",
    "Adagrad", "ProximalAdagrad", "FTRL", "RMSProp", "Adadelta", "Rprop", "AdaFactor", "Lamb", "LARS",
    "LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
    "PolynomialDecayLR", "WarmUpLR",
    "piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr", "cosine_decay_lr",
    "polynomial_decay_lr", "warmup_lr",
]
