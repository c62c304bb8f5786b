"""``nn.DistributedGradReducer``: gradients all-reduced over the data-parallel group -- here a group of one.

A data-parallel training step sums (or averages) each gradient over the devices before the update.
cellkit is one process, rank 0 of a group of 1, so the all-reduce of each gradient is that gradient;
with ``mean`` the result is divided by ``degree`` (the group size, 1, unless given), exactly the
arithmetic MindSpore does. Tutorial code that builds a reducer from ``optimizer.parameters`` and calls
it on the gradients runs unchanged.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
>>> reducer = nn.DistributedGradReducer([w])
>>> print(reducer((ms.Tensor([0.5, -1.0]),))[0])
[ 0.5 -1. ]
"""
from __future__ import annotations

from .. import ops as _ops
from ..common import parallel_context as _parallel
from ..ops import communication as _comm
from ..ops._core import describe
from .cell import Cell

__all__ = ["DistributedGradReducer"]


class DistributedGradReducer(Cell):
    """All-reduce each gradient over ``group`` (sum, or mean with ``mean``), then return the tuple."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=_comm.WORLD_GROUP):
        super().__init__(auto_prefix=False)
        if not isinstance(parameters, (list, tuple)) and not hasattr(parameters, "__iter__"):
            raise TypeError(f"For 'DistributedGradReducer', 'parameters' must be a list of Parameters, but got "
                            f"{describe(parameters)}")
        params = list(parameters)
        if mean is None:
            mean = _parallel.get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"For 'DistributedGradReducer', 'mean' must be a bool or None, but got {describe(mean)}")
        if not isinstance(group, str):
            raise TypeError(f"For 'DistributedGradReducer', 'group' must be a str, but got {describe(group)}")
        size = len(_comm.get_process_group_ranks(group) if group in _comm._groups else [0])
        if degree is None:
            degree = size
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"For 'DistributedGradReducer', 'degree' must be a positive int, but got {degree!r}")
        if isinstance(fusion_type, bool) or not isinstance(fusion_type, int):
            raise TypeError(f"For 'DistributedGradReducer', 'fusion_type' must be an int, but got "
                            f"{describe(fusion_type)}")
        self.mean, self.degree, self.group, self.fusion_type = mean, degree, group, fusion_type
        self._count = len(params)
        self._reduce = _comm.AllReduce(op="sum", group=group)

    def construct(self, grads):
        if not isinstance(grads, (tuple, list)):
            raise TypeError(f"For 'DistributedGradReducer', 'grads' must be a tuple of Tensors, but got "
                            f"{describe(grads)}")
        out = []
        for grad in grads:
            reduced = self._reduce(grad)
            out.append(_ops.div(reduced, self.degree) if self.mean and self.degree != 1 else reduced)
        return tuple(out)
