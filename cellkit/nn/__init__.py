"""``cellkit.nn``: Cell, Buffer and layers -- MindSpore's ``mindspore.nn``.

>>> from cellkit import nn
>>> nn.SequentialCell(nn.Dense(4, 1, has_bias=False), nn.ReLU())
SequentialCell(
  (0): Dense(input_channels=4, output_channels=1)
  (1): ReLU()
)
"""
from .buffer import Buffer
from .cell import Cell
from .cell_state import IncompatibleKeys
from .hooks import RemovableHandle
from .layers import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .optim import *  # noqa: F401,F403  (optimizers and learning-rate schedules)
from .wrap import *  # noqa: F401,F403  (WithLossCell, TrainOneStepCell, WithEvalCell ...)
from .loss_scale import *  # noqa: F401,F403  (TrainOneStepWithLossScaleCell and the loss-scale update Cells)
from .distributed import DistributedGradReducer  # noqa: F401,E402  (issue 17: data parallelism over one process)
from . import dynamic_lr, learning_rate_schedule  # noqa: E402  (MindSpore's module paths of the rates)
# MindSpore's nn re-exports the metrics of mindspore.train (the same objects) and get_metrics.
from ..metrics import *  # noqa: F401,F403,E402
from ..metrics import get_metrics  # noqa: F401,E402
