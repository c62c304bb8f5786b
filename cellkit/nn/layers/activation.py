"""Activation layers (ReLU, Sigmoid, Tanh, GELU, Softmax ...) and ``get_activation``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> print(nn.ReLU()(ms.Tensor([-1.0, 2.0])))
[0. 2.]
"""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "SiLU", "Softmax", "LogSoftmax", "get_activation"]


class ReLU(Cell):
    """``max(x, 0)`` elementwise."""

    def construct(self, x):
        return ops.relu(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))`` elementwise."""

    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    """Hyperbolic tangent, elementwise."""

    def construct(self, x):
        return ops.tanh(x)


class GELU(Cell):
    """Gaussian error linear unit; ``approximate=True`` uses the tanh formula (MindSpore's default)."""

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', 'approximate' must be a bool, but got {type(approximate).__name__}")
        self.approximate = approximate

    def construct(self, x):
        return ops.gelu(x, approximate="tanh" if self.approximate else "none")


class SiLU(Cell):
    """``x * sigmoid(x)``."""

    def construct(self, x):
        return ops.silu(x)


class Softmax(Cell):
    """Softmax along ``axis``."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    """Log of the softmax along ``axis``."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


_BY_NAME = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU, "silu": SiLU,
            "softmax": Softmax, "logsoftmax": LogSoftmax}


def get_activation(name, prim_name=None):
    """An activation Cell from a name (``'relu'``), a Cell, or None.

    Raises
    ------
    KeyError
        For an unknown name.
    TypeError
        For something that is neither a str, a Cell nor None.
    """
    if name is None or isinstance(name, Cell):
        return name
    if isinstance(name, str):
        cls = _BY_NAME.get(name.lower())
        if cls is None:
            raise KeyError(f"activation {name!r} is unknown; choose one of {sorted(_BY_NAME)}")
        return cls()
    if callable(name):
        return name
    raise TypeError(f"activation must be a str, a Cell or None, but got {type(name).__name__}")
