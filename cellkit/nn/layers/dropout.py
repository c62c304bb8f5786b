"""``nn.Dropout``: randomly zero elements while training.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> drop = nn.Dropout(p=0.5)
>>> x = ms.ops.ones((2, 3))
>>> drop(x) is x                       # a new Cell is in inference mode: identity
True
>>> ms.set_seed(0)
>>> y = drop.set_train()(x)
>>> sorted(set(np.unique(y.asnumpy()).tolist()) | {0.0, 2.0})
[0.0, 2.0]
"""
from __future__ import annotations

import numbers

from ... import dtype as _dt
from ... import ops
from ..cell import Cell

__all__ = ["Dropout"]


class Dropout(Cell):
    """Zero each element with probability ``p`` in training and scale the rest by ``1 / (1 - p)``.

    In inference (a new Cell, or after ``set_train(False)``) the input is
    returned unchanged.  The random masks come from the global generator, so
    ``ms.set_seed(n)`` makes them reproducible, on every backend.

    Parameters
    ----------
    keep_prob : float in (0, 1]
        The probability of *keeping* an element (deprecated in MindSpore; used
        only when ``p`` is None).
    p : float in [0, 1), optional
        The probability of *dropping* an element; takes precedence over ``keep_prob``.
    dtype : cellkit dtype
        Accepted for compatibility and unused (MindSpore ignores it too).

    Raises
    ------
    TypeError
        ``keep_prob`` not a float (when ``p`` is None), or ``p`` not a number.
    ValueError
        ``keep_prob`` outside (0, 1] or ``p`` outside [0, 1).

    Notes
    -----
    MindSpore 2.10 also returns the input unchanged when ``p`` is given and
    ``keep_prob`` happens to be 1.0 (its check looks at both); cellkit looks
    only at the argument in effect.

    >>> from cellkit import nn
    >>> nn.Dropout(p=0.2), nn.Dropout(keep_prob=0.8)
    (Dropout(p=0.2), Dropout(keep_prob=0.8))
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=_dt.float32):
        super().__init__()
        if p is None:
            if not isinstance(keep_prob, float):
                raise TypeError(f"For 'Dropout', the type of 'keep_prob' should be 'float', but got type "
                                f"'{type(keep_prob).__name__}'.")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], "
                                 f"but got {keep_prob}.")
            self._drop = 1.0 - keep_prob
        else:
            if isinstance(p, bool) or not isinstance(p, numbers.Real):
                raise TypeError(f"For 'Dropout', the type of 'p' should be one of ['float', 'int'], but got type "
                                f"'{type(p).__name__}'.")
            if not 0 <= p < 1:
                raise ValueError(f"For 'Dropout', the 'p' must be a number in range [0, 1), but got {p}.")
            self._drop = float(p)
        self.keep_prob = keep_prob
        self.p = p
        self.dtype = dtype

    def construct(self, x):
        if not self.training or self._drop == 0:
            return x
        return ops.dropout(x, p=self._drop, training=True)

    def extend_repr(self):
        return f"keep_prob={self.keep_prob}" if self.p is None else f"p={self.p}"
