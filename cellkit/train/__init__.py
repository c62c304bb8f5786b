"""``cellkit.train``: Model, callbacks, metrics and a small dataset -- MindSpore's ``mindspore.train``.

>>> from cellkit.train import Model, LossMonitor, Accuracy, NumpySlicesDataset
"""
from __future__ import absolute_import

from .callback import Callback, History, LambdaCallback, LossMonitor, RunContext, TimeMonitor
from .checkpoint_callback import BackupAndRestore, CheckpointConfig, ModelCheckpoint, OnRequestExit
from .dataset import NumpySlicesDataset
from .dataset_helper import DatasetHelper
from .history import TrainingHistory
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .metrics import *  # noqa: F401,F403  (every metric, as mindspore.train has them)
from .metrics import get_metrics
from . import metrics as _metrics
from .model import Model
from .monitor_callbacks import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau
from .flops_collector import FlopsUtilizationCollector  # noqa: E402  (issue 17: MFU / HFU)
from ..serialization import (async_ckpt_thread_status, ckpt_to_safetensors, load_checkpoint,  # noqa: E402
                             load_checkpoint_async, load_param_into_net, merge_sliced_parameter, safetensors_to_ckpt,
                             save_checkpoint)
from ..amp.mixed_precision import build_train_network  # noqa: E402
from ..graph.export import export, load  # noqa: E402  (mindspore.train re-exports them)

__all__ = [
    "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History", "LambdaCallback",
    "get_metrics", "NumpySlicesDataset", "TrainingHistory", "LossScaleManager", "FixedLossScaleManager",
    "DynamicLossScaleManager", "ModelCheckpoint", "CheckpointConfig", "BackupAndRestore", "OnRequestExit",
    "EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler", "save_checkpoint", "load_checkpoint",
    "load_param_into_net", "ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async",
    "merge_sliced_parameter", "async_ckpt_thread_status", "build_train_network", "DatasetHelper", "export", "load",
] + list(_metrics.__all__)
__all__ += ["FlopsUtilizationCollector"]  # issue 17: MFU / HFU

# issue 17, summary files (MindInsight's format): SummaryRecord, SummaryCollector, SummaryLandscape
from .summary import SummaryCollector, SummaryLandscape, SummaryRecord  # noqa: E402
__all__ += ["SummaryRecord", "SummaryCollector", "SummaryLandscape"]
# issue 17, train row (strategy): the checkpoints of a parallel run, read into one process
from ..serialization import (build_searched_strategy, get_ckpt_path_with_strategy,  # noqa: E402
                             load_distributed_checkpoint, restore_group_info_list)
__all__ += ["build_searched_strategy", "restore_group_info_list", "get_ckpt_path_with_strategy",
            "load_distributed_checkpoint"]
