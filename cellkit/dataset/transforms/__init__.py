"""``mindspore.dataset.transforms``: transforms for any kind of data.

>>> import numpy as np
>>> from cellkit.dataset import transforms
>>> transforms.PadEnd([4], 0)(np.array([1, 2]))
array([1, 2, 0, 0])

Left out: ``Plugin`` (it loads a compiled MindSpore plugin library; cellkit runs no native code
from files).
"""
from .base import PyTensorOperation, TensorOperation, not_random
from .compose import Compose, RandomApply, RandomChoice, RandomOrder
from .tensor_ops import (Concatenate, Duplicate, Fill, Mask, OneHot, PadEnd, Relational, Slice, TypeCast,
                         Unique)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd", "RandomApply",
           "RandomChoice", "RandomOrder", "Relational", "Slice", "TypeCast", "Unique", "not_random",
           "TensorOperation", "PyTensorOperation"]
