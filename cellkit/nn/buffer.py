"""``nn.Buffer``: a Tensor that is part of a Cell's state but not a trainable Parameter.

Assigning a Buffer as an attribute registers it, like ``register_buffer``:
it appears in ``buffers()``, ``named_buffers()`` and ``state_dict()``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> class Net(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.counts = nn.Buffer(ms.tensor([1, 2, 3]))
>>> [name for name, _ in Net().named_buffers()]
['counts']
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["Buffer"]


class Buffer(Tensor):
    """A Tensor marked as Cell state (running statistics, counters, masks ...).

    Parameters
    ----------
    data : Tensor or array-like
        The values (shared with ``data`` when it is a Tensor).
    """

    __slots__ = ()

    def __init__(self, data=None, dtype=None):
        if isinstance(data, Tensor) and dtype is None:
            self._data = data._require_data("Buffer")
            self._node = None
            self._lazy = None
            self.const_arg = False
        else:
            super().__init__(data, dtype=dtype)

    def __repr__(self):
        # A buffer prints as the Tensor it holds.
        return Tensor.__repr__(self)
