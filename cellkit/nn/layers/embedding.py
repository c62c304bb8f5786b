"""``nn.Embedding``: a lookup table from integer ids to learned vectors.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> table = ms.Tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2))
>>> emb = nn.Embedding(3, 2, embedding_table=table)
>>> print(emb(ms.Tensor([[2, 0]], ms.int32)))
[[[4. 5.]
  [0. 1.]]]
"""
from __future__ import annotations

from ... import dtype as _dt
from ... import ops
from ...common.initializer import initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["Embedding"]


def _check_int(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'Embedding', the type of '{name}' should be 'int', but got type '{type(value).__name__}'.")
    return value


class Embedding(Cell):
    """Map each id of an integer tensor to a row of ``embedding_table`` (``vocab_size x embedding_size``).

    The output has shape ``ids.shape + (embedding_size,)``.

    Parameters
    ----------
    vocab_size, embedding_size : int
        The table's shape.
    use_one_hot : bool
        Compute the lookup as ``one_hot(ids) @ table`` instead of gathering rows
        (same values; ids outside ``[0, vocab_size)`` then give zero vectors
        instead of an error).
    embedding_table : str, Initializer or Tensor
        The table's initial value; ``'normal'`` draws from N(0, 0.01^2).
    dtype : cellkit dtype
        As in MindSpore 2.10 this is *not* the table's dtype (the initializer's
        Float32, or the given Tensor's dtype); it is kept as an attribute and
        shown in the repr.
    padding_idx : int, optional
        This row of the table starts as zeros.  As in MindSpore, it still
        receives gradients (unlike PyTorch's ``padding_idx``).

    Raises
    ------
    TypeError
        Non-int sizes or ``padding_idx``, a non-bool ``use_one_hot``, a ``dtype``
        that is not a number type, or non-integer ids.
    ValueError
        Non-positive sizes, ``padding_idx`` outside ``[0, vocab_size)``, a table
        of the wrong shape, or (gather lookup) ids outside ``[0, vocab_size)``.

    >>> from cellkit import nn
    >>> nn.Embedding(10, 3, padding_idx=0)
    Embedding(vocab_size=10, embedding_size=3, use_one_hot=False, embedding_table=Parameter (name=embedding_table, shape=(10, 3), dtype=Float32, requires_grad=True), dtype=Float32, padding_idx=0)
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal", dtype=_dt.float32,
                 padding_idx=None):
        super().__init__()
        self.vocab_size = _check_int(vocab_size, "vocab_size")
        self.embedding_size = _check_int(embedding_size, "embedding_size")
        if not isinstance(use_one_hot, bool):
            raise TypeError(f"For 'Embedding', the type of 'use_one_hot' should be 'bool', but got type "
                            f"'{type(use_one_hot).__name__}'.")
        if not isinstance(dtype, _dt.DType) or dtype.kind not in ("int", "uint", "float"):
            raise TypeError(f"For 'Embedding', 'dtype' must be a number type (int or float), but got {dtype!r}.")
        self.use_one_hot = use_one_hot
        self.dtype = dtype
        table = initializer(embedding_table, [vocab_size, embedding_size])
        self.padding_idx = padding_idx
        if padding_idx is not None:
            _check_int(padding_idx, "padding_idx")
            if not 0 <= padding_idx < vocab_size:
                raise ValueError(f"For 'Embedding', the 'padding_idx' must be in range of [0, {vocab_size}), "
                                 f"but got {padding_idx}.")
            if table.has_init:
                table = table.init_data()
            table = ops.setitem(table.copy(), padding_idx, 0)  # a copy: the caller's Tensor stays as it was
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if not isinstance(ids, Tensor):
            raise TypeError(f"For 'Embedding', 'ids' must be a Tensor, but got {type(ids).__name__}.")
        if ids.dtype.kind not in ("int", "uint"):
            raise TypeError(f"For 'Embedding', 'ids' must hold integers, but got {ids.dtype}.")
        if not self.use_one_hot:
            return ops.gather(self.embedding_table, ids, 0)
        flat = ops.reshape(ids, (-1, 1))
        table = self.embedding_table
        one_hot = ops.cast(ops.equal(flat, ops.arange(self.vocab_size)), table.dtype)
        out = ops.matmul(one_hot, table)
        return ops.reshape(out, tuple(ids.shape) + (self.embedding_size,))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, dtype={self.dtype}, "
                f"padding_idx={self.padding_idx}")
