"""``mindspore.numpy``: NumPy's spellings over cellkit's op catalogue.

Functions take array-likes (Tensors, Python numbers, nested lists) and return Tensors: Python ints
become Int32 and floats Float32, as in MindSpore. Whatever can be computed by cellkit's ops is, so
gradients flow through it; counting functions (histograms, set operations, index helpers) compute on
the host and return Tensors that carry no gradient.

>>> import cellkit.numpy as mnp
>>> x = mnp.linspace(0, 1, 5)
>>> print(mnp.mean(x), mnp.cumsum(mnp.array([1, 2, 3])), mnp.where(x > 0.5, x, 0.0))
0.5 [1 3 6] [0.   0.   0.   0.75 1.  ]
"""
from ..dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8, uint16,  # noqa: F401
                     uint32, uint64)
from .array_creations import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .linalg_logic import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .math_ops import __all__ as _math_all

int_ = int32
float_ = float32

from . import array_creations as _c, array_ops as _a, linalg_logic as _l  # noqa: E402

__all__ = sorted(set(_c.__all__) | set(_a.__all__) | set(_l.__all__) | set(_math_all)
                 | {"bool_", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                    "uint32", "uint64", "int_", "float_"})
