"""``mindspore.mint.special``: special functions with PyTorch's spellings.

>>> import cellkit as ms
>>> from cellkit.mint import special
>>> print(special.expm1(ms.Tensor([0.0])), special.round(ms.Tensor([1.5, 2.5])))
[0.] [2. 2.]
"""
from .. import ops as _ops
from ._softmax import log_softmax
from ..ops import erfc, exp2, expm1, log1p, sinc

__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]


def round(input):
    """Rounded to the nearest integer, halves to even."""
    return _ops.round(input)
