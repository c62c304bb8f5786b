"""``cellkit.train``: Model, callbacks, metrics and a small dataset -- MindSpore's ``mindspore.train``.

>>> from cellkit.train import Model, LossMonitor, Accuracy, NumpySlicesDataset
"""
from .callback import Callback, History, LambdaCallback, LossMonitor, RunContext, TimeMonitor
from .checkpoint_callback import BackupAndRestore, CheckpointConfig, ModelCheckpoint, OnRequestExit
from .dataset import NumpySlicesDataset
from .history import TrainingHistory
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .metrics import Accuracy, Loss, Metric, get_metric_fn, get_metrics, names
from .model import Model
from .monitor_callbacks import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau

__all__ = [
    "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History", "LambdaCallback",
    "Metric", "Accuracy", "Loss", "get_metric_fn", "get_metrics", "names", "NumpySlicesDataset",
    "TrainingHistory", "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager",
    "ModelCheckpoint", "CheckpointConfig", "BackupAndRestore", "OnRequestExit", "EarlyStopping",
    "ReduceLROnPlateau", "LearningRateScheduler",
]
