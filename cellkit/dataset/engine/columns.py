"""Rows that travel through a pipeline together: a :class:`Block`.

A pipeline does not pass rows one by one: sources read a few hundred rows at a time, and every
stage works on such a block.  A block holds one entry per column; an entry is either

- *dense*: one NumPy array whose first axis runs over the rows (every row has the same shape and
  dtype), which lets a transform work on all rows at once, or
- *ragged*: a Python list with one NumPy array per row (shapes differ, or strings/bytes of
  different lengths).

Every row value is a NumPy array (0-d for a scalar).  ``ids`` optionally names the source row of
each block row (for the decode cache); stages that mix rows set it to ``None``.

>>> import numpy as np
>>> b = Block([np.arange(6).reshape(3, 2), [np.array(1), np.array([2, 3]), np.array(4)]], 3)
>>> b.row(1)
(array([2, 3]), array([2, 3]))
>>> b.take([2, 0]).row(0)
(array([4, 5]), array(4))
"""
from __future__ import annotations

import numpy as np

__all__ = ["Block", "is_dense", "column_rows", "take_rows", "slice_rows", "join_columns", "pack_rows"]


def is_dense(column) -> bool:
    """True when the column is one array with the rows along its first axis."""
    return isinstance(column, np.ndarray)


def column_rows(column) -> list:
    """The column as a list of per-row arrays."""
    return list(column) if isinstance(column, np.ndarray) else column


def take_rows(column, index):
    """The rows at ``index`` (a sequence of ints), keeping the column's kind."""
    if isinstance(column, np.ndarray):
        return column[np.asarray(index, dtype=np.intp)]
    return [column[i] for i in index]


def slice_rows(column, start, stop):
    return column[start:stop]


def pack_rows(rows: list):
    """Per-row arrays as a dense column when they agree in shape and dtype, else as a list."""
    if not rows:
        return rows
    first = rows[0]
    shape, dtype = first.shape, first.dtype
    if dtype.kind in "OUSV":
        if dtype.kind == "O" or any(r.shape != shape or r.dtype != dtype for r in rows):
            return list(rows)
        return np.stack(rows)
    for r in rows:
        if r.shape != shape or r.dtype != dtype:
            return list(rows)
    return np.stack(rows)


def join_columns(parts: list):
    """Columns of consecutive blocks as one column (dense when every part is dense and alike)."""
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(p, np.ndarray) for p in parts):
        first = parts[0]
        if all(p.shape[1:] == first.shape[1:] and p.dtype == first.dtype for p in parts):
            return np.concatenate(parts)
    rows = []
    for p in parts:
        rows.extend(column_rows(p))
    return rows


class Block:
    """Rows moving through the pipeline together (see the module docstring)."""

    __slots__ = ("columns", "size", "ids")

    def __init__(self, columns, size, ids=None):
        self.columns = list(columns)
        self.size = int(size)
        self.ids = ids

    def row(self, i) -> tuple:
        return tuple(c[i] for c in self.columns)

    def rows(self):
        """The rows as tuples of per-column arrays."""
        cols = [column_rows(c) for c in self.columns]
        return list(zip(*cols)) if cols else [() for _ in range(self.size)]

    def take(self, index) -> "Block":
        index = list(index) if not isinstance(index, np.ndarray) else index
        ids = None if self.ids is None else self.ids[np.asarray(index, dtype=np.intp)]
        return Block([take_rows(c, index) for c in self.columns], len(index), ids)

    def slice(self, start, stop) -> "Block":
        stop = min(stop, self.size)
        ids = None if self.ids is None else self.ids[start:stop]
        return Block([c[start:stop] for c in self.columns], max(0, stop - start), ids)

    def select(self, positions) -> "Block":
        """A block of some of the columns, in the order given."""
        return Block([self.columns[p] for p in positions], self.size, self.ids)

    @staticmethod
    def concat(blocks) -> "Block":
        blocks = [b for b in blocks if b.size]
        if len(blocks) == 1:
            return blocks[0]
        if not blocks:
            return Block([], 0)
        ncols = len(blocks[0].columns)
        columns = [join_columns([b.columns[k] for b in blocks]) for k in range(ncols)]
        ids = None
        if all(b.ids is not None for b in blocks):
            ids = np.concatenate([b.ids for b in blocks])
        return Block(columns, sum(b.size for b in blocks), ids)

    @staticmethod
    def from_rows(rows, ncols) -> "Block":
        """A block from a list of row tuples (each a tuple of arrays)."""
        if not rows:
            return Block([[] for _ in range(ncols)], 0)
        return Block([pack_rows([r[k] for r in rows]) for k in range(ncols)], len(rows))


def rebatch(blocks, size):
    """Blocks of exactly ``size`` rows (the last may be shorter) from blocks of any size."""
    pending, count = [], 0
    for block in blocks:
        if block.size == 0:
            continue
        pending.append(block)
        count += block.size
        while count >= size:
            joined = Block.concat(pending)
            yield joined.slice(0, size)
            rest = joined.slice(size, joined.size)
            pending, count = ([rest] if rest.size else []), rest.size
    if count:
        yield Block.concat(pending)
