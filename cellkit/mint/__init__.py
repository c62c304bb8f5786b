"""``mindspore.mint``: the op catalogue spelled as PyTorch spells it (``input``, ``other``, ``dim``, ``keepdim``).

Every function is either the :mod:`cellkit.ops` function itself (where MindSpore's ``ops`` and
``mint`` share the signature) or a thin adapter that renames and reorders arguments before calling
it, so gradients, recompute, hooks and graph mode apply unchanged. ``mint.nn``, ``mint.nn.functional``,
``mint.special`` and ``mint.linalg`` are its sub-namespaces.

>>> import cellkit as ms
>>> from cellkit import mint
>>> x = ms.Tensor([[1.0, -2.0], [3.0, 4.0]])
>>> print(mint.sum(x, dim=0), mint.abs(x).max(), mint.argmax(x, dim=1))
[4. 2.] 4.0 [0 1]
"""
from ..ops import (abs, acos, acosh, addbmm, addmm, addmv, arange, arccos, arccosh, arcsin, arcsinh,  # noqa: F401
                   arctan, arctan2, arctanh, argmax, asin, asinh, atan, atan2, atanh, bincount, bitwise_and,
                   bitwise_or, bitwise_xor, broadcast_to, ceil, cos, cosh, cross, cumprod, dstack, erf,
                   erfc, erfinv, exp, exp2, expm1, eye, flip, float_power, floor, full_like, gcd, greater,
                   gt, hstack, inverse, isclose, isfinite, isinf, isneginf, le, less_equal, log, log10, log1p,
                   log2, logaddexp, logaddexp2, logical_and, logical_not, logical_or, logical_xor, logsumexp,
                   masked_select, matmul, maximum, minimum, mm, nan_to_num, ne, neg, negative, nonzero, not_equal,
                   ones_like, outer, polar, pow, ravel, reciprocal, roll, round, rsqrt, searchsorted, sigmoid,
                   sign, sin, sinc, sinh, square, sum, swapaxes, tan, tanh, tile, trace, tril, triu, unbind,
                   unique_consecutive, unsqueeze, zeros_like)
from ._arith import *  # noqa: F401,F403
from ._batch_norm_stats import *  # noqa: F401,F403
from ._creation import *  # noqa: F401,F403
from ._random import *  # noqa: F401,F403
from ._reduce import *  # noqa: F401,F403
from ._shape import *  # noqa: F401,F403
from ._softmax import softmax  # noqa: F401
from . import linalg, special  # noqa: F401,E402
from . import nn  # noqa: F401,E402
from . import optim  # noqa: F401,E402
from . import distributed  # noqa: F401,E402
from ..tensor import Tensor  # noqa: F401,E402  (mint.Tensor, as in MindSpore)
from .nn.functional import conv2d  # noqa: F401,E402
