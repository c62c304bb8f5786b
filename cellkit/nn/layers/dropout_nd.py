"""Channel dropout Cells: ``Dropout1d``, ``Dropout2d``, ``Dropout3d``.

In training each zeroes whole channels (axis 1 of a batch; axis 0 of an
unbatched ``(C, L)`` input for ``Dropout1d``) with probability ``p`` and scales
the channels kept by ``1 / (1 - p)``; in inference they return the input
itself.  The masks come from cellkit's global generator (``ms.set_seed``).

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> x = ms.Tensor(np.ones((2, 4, 3, 3), np.float32))
>>> drop = nn.Dropout2d(p=0.5)
>>> drop(x) is x                        # a new Cell is in inference mode
True
>>> y = drop.set_train()(x)
>>> sorted(set(np.unique(y.asnumpy()).tolist()) | {0.0, 2.0})
[0.0, 2.0]
"""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d"]


class _ChannelDropout(Cell):
    """The shared constructor: ``p`` a float in [0, 1]."""

    _fn = None

    def __init__(self, p=0.5):
        super().__init__()
        name = type(self).__name__
        if not isinstance(p, float):
            raise TypeError(f"For '{name}', the type of 'p' should be 'float', but got type '{type(p).__name__}'.")
        if not 0 <= p <= 1:
            raise ValueError(f"For '{name}', the 'p' must be a number in range [0, 1], but got {p}.")
        self.p = p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return type(self)._fn(x, self.p, True)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    """Zero whole channels of an ``(N, C, L)`` (or ``(C, L)``) input with probability ``p`` while training.

    Parameters
    ----------
    p : float in [0, 1]
        The probability of zeroing a channel (default 0.5).

    Raises
    ------
    TypeError
        ``p`` is not a float.
    ValueError
        ``p`` outside [0, 1]; in training, an input that is not 2-D or 3-D.

    It prints with empty parentheses, as in MindSpore.

    >>> from cellkit import nn
    >>> nn.Dropout1d(0.25), nn.Dropout1d(0.25).p
    (Dropout1d(), 0.25)
    """

    _fn = staticmethod(ops.dropout1d)

    def extend_repr(self):
        return ""


class Dropout2d(_ChannelDropout):
    """Zero whole feature maps of an ``(N, C, H, W)`` input with probability ``p`` while training.

    Raises
    ------
    TypeError
        ``p`` is not a float.
    ValueError
        ``p`` outside [0, 1]; in training, an input that is not 4-D.

    Notes
    -----
    MindSpore 2.10 prints the *keep* probability under the name ``p``
    (``Dropout2d(p=0.2)`` shows ``p=0.8``); cellkit prints the ``p`` given.

    >>> from cellkit import nn
    >>> nn.Dropout2d(0.2)
    Dropout2d(p=0.2)
    """

    _fn = staticmethod(ops.dropout2d)


class Dropout3d(_ChannelDropout):
    """Zero whole volumes of an ``(N, C, D, H, W)`` input with probability ``p`` while training.

    Raises
    ------
    TypeError
        ``p`` is not a float.
    ValueError
        ``p`` outside [0, 1]; in training, an input that is not 5-D.

    Notes
    -----
    As for :class:`Dropout2d`, cellkit's repr shows the ``p`` given, where
    MindSpore 2.10 shows ``1 - p``.

    >>> from cellkit import nn
    >>> nn.Dropout3d()
    Dropout3d(p=0.5)
    """

    _fn = staticmethod(ops.dropout3d)
