"""``nn.Conv2dBnAct`` and ``nn.DenseBnAct``: a convolution (or dense layer), an optional batch
normalization and an optional activation, as one Cell.

The children are named as MindSpore names them (``conv`` / ``dense``, ``batchnorm``,
``activation``), so the Parameters are ``conv.weight``, ``batchnorm.gamma`` ... in checkpoints.

>>> import cellkit as ms
>>> from cellkit import nn
>>> block = nn.DenseBnAct(3, 2, has_bn=True, activation="relu")
>>> [p.name for p in block.trainable_params()]
['dense.weight', 'dense.bias', 'batchnorm.gamma', 'batchnorm.beta']
>>> block(ms.ops.ones((4, 3))).shape
(4, 2)
"""
from __future__ import annotations

from ...ops.primitive import Primitive
from ..cell import Cell
from .activation import get_activation
from .basic import Dense
from .conv import Conv2d
from ._where import raised_in
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["Conv2dBnAct", "DenseBnAct"]


def _flag(value, name, cell):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'bool', but got type '{type(value).__name__}'.")
    return value


def _activation(activation, alpha, cell):
    """The activation Cell (or Primitive) a ``str`` / Cell / Primitive / None argument names."""
    if activation == "leakyrelu":
        from .. import LeakyReLU  # defined with the other activations; looked up when it is asked for

        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not isinstance(act, (Cell, Primitive)):
        raise TypeError(f"For '{cell}', the 'activation' must be a str, a Cell or a Primitive, but got "
                        f"{type(activation).__name__}.")
    return act


class Conv2dBnAct(Cell):
    """``Conv2d``, then (``has_bn``) ``BatchNorm2d``, then (``activation``) an activation.

    Parameters
    ----------
    in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
    weight_init, bias_init
        Passed to :class:`~cellkit.nn.Conv2d` (note the defaults here: ``weight_init='normal'``,
        ``bias_init='zeros'``).
    has_bn : bool
        Add a ``BatchNorm2d(out_channels, eps, momentum)`` child named ``batchnorm``.
    momentum, eps : float
        For the batch normalization (``momentum`` weighs the old running value; default 0.997).
    activation : str, Cell, Primitive or None
        A name known to ``get_activation`` (``'relu'``, ...), ``'leakyrelu'`` (with ``alpha``),
        or a Cell.
    alpha : float
        The negative slope of ``'leakyrelu'``.
    after_fake : bool
        Kept for MindSpore's quantization-aware training; it changes nothing here.

    Raises
    ------
    TypeError
        ``has_bn`` / ``after_fake`` not bools, or an ``activation`` that is not a str, Cell or Primitive.
    KeyError
        An unknown activation name.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> block = nn.Conv2dBnAct(1, 2, 3, has_bn=True, activation="relu")
    >>> [name for name, _ in block.name_cells().items()]
    ['conv', 'batchnorm', 'activation']
    >>> block(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 2, 4, 4)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        with raised_in("Conv2dBnAct", "in_channels", "out_channels", "kernel_size", "weight_init", "bias_init"):
            self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                               padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                               weight_init=weight_init, bias_init=bias_init)
        self.has_bn = _flag(has_bn, "has_bn", "Conv2dBnAct")
        self.has_act = activation is not None
        self.after_fake = _flag(after_fake, "after_fake", "Conv2dBnAct")
        if has_bn:
            with raised_in("Conv2dBnAct", "out_channels", "eps", "momentum"):
                self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "Conv2dBnAct")

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    """``Dense``, then (``has_bn``) ``BatchNorm1d``, then (``activation``) an activation.

    Parameters
    ----------
    in_channels, out_channels, weight_init, bias_init, has_bias
        Passed to :class:`~cellkit.nn.Dense` (defaults here: ``weight_init='normal'``,
        ``bias_init='zeros'``, ``has_bias=True``).
    has_bn, momentum, eps, activation, alpha, after_fake
        As :class:`Conv2dBnAct` (``momentum`` defaults to 0.9 here).

    Raises
    ------
    TypeError, KeyError
        As :class:`Conv2dBnAct`.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> block = nn.DenseBnAct(2, 3, weight_init="ones", activation="relu")
    >>> print(block(ms.Tensor([[1.0, -3.0]])))
    [[0. 0. 0.]]
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        with raised_in("DenseBnAct", "in_channels", "out_channels", "weight_init", "bias_init", "has_bias"):
            self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = _flag(has_bn, "has_bn", "DenseBnAct")
        self.has_act = activation is not None
        self.after_fake = _flag(after_fake, "after_fake", "DenseBnAct")
        if has_bn:
            with raised_in("DenseBnAct", "out_channels", "eps", "momentum"):
                self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "DenseBnAct")

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x
