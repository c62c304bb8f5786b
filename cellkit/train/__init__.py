"""``cellkit.train``: Model, callbacks, metrics and a small dataset -- MindSpore's ``mindspore.train``.

>>> from cellkit.train import Model, LossMonitor, Accuracy, NumpySlicesDataset
"""
from .callback import Callback, History, LambdaCallback, LossMonitor, RunContext, TimeMonitor
from .dataset import NumpySlicesDataset
from .history import TrainingHistory
from .metrics import *  # noqa: F401,F403  (every metric, as mindspore.train has them)
from .metrics import get_metrics
from . import metrics as _metrics
from .model import Model

__all__ = [
    "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History", "LambdaCallback",
    "get_metrics", "NumpySlicesDataset", "TrainingHistory",
] + list(_metrics.__all__)
