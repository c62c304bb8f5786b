"""``nn.Buffer``: a Tensor that is part of a Cell's state but not a trainable Parameter.

Assigning a Buffer as an attribute registers it, like ``register_buffer``:
it appears in ``buffers()``, ``named_buffers()`` and ``state_dict()``.

As in MindSpore 2.10 (whose ``Cell`` treats its buffer class this way), ``nn.Buffer(data)``
gives back a plain :class:`~cellkit.Tensor` marked as a buffer: ``type(buf)`` is ``Tensor``
(a state dict shows ``Tensor``), while ``isinstance(buf, nn.Buffer)`` is True for the marked
Tensor, which is how a Cell recognises it on assignment.

>>> import cellkit as ms
>>> from cellkit import nn
>>> class Net(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.counts = nn.Buffer(ms.tensor([1, 2, 3]))
>>> net = Net()
>>> [name for name, _ in net.named_buffers()]
['counts']
>>> type(net.counts).__name__, isinstance(net.counts, nn.Buffer)
('Tensor', True)
"""
from __future__ import annotations

import weakref

from ..tensor import Tensor

__all__ = ["Buffer"]

# The Tensors made by Buffer(...), by id; an entry goes away with its Tensor (so an id reused
# by a later object is never mistaken for a buffer).
_marked = weakref.WeakValueDictionary()
_NOT_MARKED = object()


class _BufferType(type):
    """``isinstance(t, Buffer)`` is True for the Tensors that ``Buffer(...)`` made."""

    def __instancecheck__(cls, instance):
        return _marked.get(id(instance), _NOT_MARKED) is instance or super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferType):
    """A Tensor marked as Cell state (running statistics, counters, masks ...).

    Parameters
    ----------
    data : Tensor or array-like
        The values (shared with ``data`` when it is a Tensor).
    dtype : dtype, optional
        The dtype when ``data`` is not a Tensor.

    Returns
    -------
    Tensor
        A plain Tensor, marked so that ``isinstance(result, Buffer)`` holds.
    """

    __slots__ = ()

    def __new__(cls, data=None, dtype=None):
        if isinstance(data, Tensor) and dtype is None:
            tensor = Tensor.__new__(Tensor)
            tensor._data = data._require_data("Buffer")
            tensor._node = None
            tensor._lazy = None
            tensor.const_arg = False
        else:
            tensor = Tensor(data, dtype=dtype)
        _marked[id(tensor)] = tensor
        return tensor  # not an instance of cls: __init__ is not called
