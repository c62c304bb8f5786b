"""``nn.EmbeddingLookup``: rows of a table looked up by index, with an optional norm cap.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> table = ms.Tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2))
>>> lookup = nn.EmbeddingLookup(3, 2, param_init=table)
>>> print(lookup(ms.Tensor([[2, 0]], ms.int32)))
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

__all__ = ["EmbeddingLookup"]

_SLICE_MODES = ("batch_slice", "field_slice", "table_row_slice", "table_column_slice")


def _positive_int(value, name, cell):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cell}', the '{name}' must be int, but got '{type(value).__name__}'.")
    if value <= 0:
        raise ValueError(f"For '{cell}', the '{name}' must be int and must > 0, but got {value!r}.")
    return value


class EmbeddingLookup(Cell):
    """Look up rows of ``embedding_table`` (``vocab_size x embedding_size``) by integer index.

    Parameters
    ----------
    vocab_size, embedding_size : int
        The table's shape (positive ints).
    param_init : str, Initializer or Tensor
        How to fill the table (default ``'normal'``).
    target : {'CPU', 'DEVICE'}
        Where MindSpore runs the lookup.  ``'CPU'`` returns zero rows for indices
        outside ``[0, vocab_size)``; ``'DEVICE'`` refuses them.
    slice_mode, manual_shapes :
        Model-parallel table layouts; with one process (as always in cellkit)
        they change nothing, as in MindSpore outside auto-parallel mode.
    max_norm : float, optional
        Scale each looked-up row whose L2 norm exceeds ``max_norm`` down to that norm.
    sparse : bool
        MindSpore's choice of gradient kernel; must be True with ``target='CPU'``.
    dtype : cellkit dtype
        The table's dtype.

    The output has shape ``indices.shape + (embedding_size,)``.

    Raises
    ------
    TypeError
        ``sparse`` not a bool, sizes not ints, ``max_norm`` not a float, indices
        that are not an int32/int64 Tensor.
    ValueError
        Sizes not positive, a ``target`` other than the two, ``sparse=False``
        with ``target='CPU'``, ``max_norm <= 0``; with ``target='DEVICE'``,
        indices out of range.

    Notes
    -----
    MindSpore 2.10 (CPU) computes the ``max_norm`` cap from the wrong slices of
    the output (rows can end up longer than ``max_norm``); cellkit caps each
    row's own L2 norm, as documented.
    """

    BATCH_SLICE = "batch_slice"
    FIELD_SLICE = "field_slice"
    TABLE_ROW_SLICE = "table_row_slice"
    TABLE_COLUMN_SLICE = "table_column_slice"

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=_dt.float32):
        super().__init__()
        name = "EmbeddingLookup"
        if not isinstance(sparse, bool):
            raise TypeError(f"For '{name}', the type of 'sparse' should be 'bool', but got type "
                            f"'{type(sparse).__name__}'.")
        self.vocab_size = _positive_int(vocab_size, "vocab_size", name)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{name}', the 'target' must be str and must be in ['CPU', 'DEVICE'], but got "
                             f"{target!r}.")
        if not sparse and target == "CPU":
            raise ValueError(f"For '{name}', 'sparse' must be True when 'target' is \"CPU\", but got 'sparse': "
                             f"{sparse} and 'target': {target}")
        self.embedding_size = _positive_int(embedding_size, "embedding_size", name)
        self.target = target
        self.sparse = sparse
        self.slice_mode = slice_mode
        self.manual_shapes = manual_shapes
        self.forward_unique = False
        self.embedding_table = Parameter(initializer(param_init, [vocab_size, embedding_size], dtype=dtype),
                                         name="embedding_table")
        if max_norm is not None:
            if not isinstance(max_norm, float):
                raise TypeError(f"For '{name}', the 'max_norm' must be float, but got '{type(max_norm).__name__}'")
            if not max_norm > 0:
                raise ValueError(f"For '{name}', the 'max_norm' must be float and must > 0, but got {max_norm}.")
        self.max_norm = max_norm

    def construct(self, indices):
        name = "EmbeddingLookup"
        if not isinstance(indices, Tensor):
            raise TypeError(f"For '{name}', 'indices' must be a Tensor, but got {type(indices).__name__}.")
        if indices.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"For '{name}', 'indices' must be an int32 or int64 Tensor, but got {indices.dtype}.")
        if self.target == "CPU":
            out = ops.EmbeddingLookup()(self.embedding_table, indices, 0)  # out-of-range rows are zeros
        else:
            out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norms = ops.sqrt(ops.sum(out * out, -1, keepdim=True))
            cap = ops.cast(Tensor(self.max_norm), out.dtype)
            out = out * cap / ops.maximum(norms, cap)
        return out
