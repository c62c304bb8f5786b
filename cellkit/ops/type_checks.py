"""``ops.is_tensor``: whether a value is a cellkit Tensor (Parameters included).

>>> import numpy as np
>>> import cellkit as ms
>>> ms.is_tensor(ms.Tensor([1.0])), ms.is_tensor(ms.Parameter(ms.Tensor(1.0))), ms.is_tensor(np.ones(1))
(True, True, False)
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["is_tensor"]


def is_tensor(obj):
    """True when ``obj`` is a Tensor (a Parameter is one); False for NumPy arrays, numbers and the rest."""
    return isinstance(obj, Tensor)
