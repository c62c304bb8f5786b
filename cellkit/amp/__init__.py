"""``cellkit.amp``: mixed precision -- MindSpore's ``mindspore.amp``.

* whole networks: :func:`auto_mixed_precision` (levels ``'O0'``-``'O3'``),
  :func:`custom_mixed_precision`, :func:`build_train_network`, :func:`get_white_list`,
  :func:`get_black_list` (see :mod:`cellkit.amp.mixed_precision`);
* hand-written steps: :class:`StaticLossScaler`, :class:`DynamicLossScaler`, :func:`all_finite`
  (see :mod:`cellkit.amp.loss_scaler`);
* ``Model``: :class:`LossScaleManager`, :class:`FixedLossScaleManager`,
  :class:`DynamicLossScaleManager` (also in :mod:`cellkit.train`).

>>> import cellkit as ms
>>> from cellkit import amp, nn
>>> net = amp.auto_mixed_precision(nn.Dense(3, 2), "O3")
>>> net(ms.ops.ones((1, 3))).dtype
mindspore.float32
"""
from __future__ import absolute_import

# Names mindspore.amp also holds (its own imports): re-exported so ``from mindspore.amp import ...`` code runs.
from abc import ABC, abstractmethod  # noqa: F401

from ..graph import jit, jit_class, mutable  # noqa: F401
from ..ops import constexpr  # noqa: F401
from ..ms_context import MSContext  # noqa: F401  (MindSpore's context object; in mindspore.amp's namespace)
from ..parameter import Parameter  # noqa: F401
from ..tensor import Tensor  # noqa: F401
from ..train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
# AllFinite: the primitive all_finite runs (in mindspore.amp's namespace too)
from .loss_scaler import AllFinite, DynamicLossScaler, LossScaler, StaticLossScaler, all_finite  # noqa: F401
from .mixed_precision import (auto_mixed_precision, build_train_network, custom_mixed_precision, get_black_list,
                              get_white_list)

__all__ = [
    "DynamicLossScaleManager", "LossScaleManager", "FixedLossScaleManager",
    "build_train_network", "DynamicLossScaler", "StaticLossScaler", "LossScaler",
    "auto_mixed_precision", "all_finite", "custom_mixed_precision",
    "get_white_list", "get_black_list",
]
