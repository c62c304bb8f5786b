"""``mindspore.mint.nn``: layers with PyTorch's constructor arguments, and ``mint.nn.functional``.

>>> import cellkit as ms
>>> from cellkit import mint
>>> print(mint.nn.functional.relu(ms.Tensor([-1.0, 1.0])))
[0. 1.]
"""
from ...nn.cell import Cell  # noqa: F401
from . import functional  # noqa: F401
from .layers import *  # noqa: F401,F403

F = functional
