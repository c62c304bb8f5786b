"""``mindspore.dataset.transforms.transforms``: the module MindSpore defines its generic transforms in.

>>> from cellkit.dataset.transforms.transforms import PadEnd
>>> PadEnd([3], 0)([1]).tolist()
[1, 0, 0]
"""
from .base import PyTensorOperation, TensorOperation  # noqa: F401
from .compose import Compose, RandomApply, RandomChoice, RandomOrder  # noqa: F401
from .tensor_ops import (Concatenate, Duplicate, Fill, Mask, OneHot, PadEnd, Relational, Slice,  # noqa: F401
                         TypeCast, Unique)
