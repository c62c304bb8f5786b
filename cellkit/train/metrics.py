"""``mindspore.train.metrics``: the metrics (they live in :mod:`cellkit.metrics`, below ``nn``, which
re-exports them as MindSpore's ``nn`` does)."""
from ..metrics import *  # noqa: F401,F403
from ..metrics import __all__, get_metrics  # noqa: F401
