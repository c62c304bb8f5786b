"""Iterators over a pipeline: rows as lists (``create_tuple_iterator``) or dicts.

An iterator may be run through ``num_epochs`` times (every ``for`` loop over it is one epoch;
-1: no limit).  Asking for more raises MindSpore's RuntimeError.  Numbers come as
:class:`cellkit.Tensor` (NumPy arrays with ``output_numpy=True``); strings and bytes always as
NumPy arrays, as in MindSpore.
"""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from ...tensor import wrap
from .columns import column_rows
from .randomness import Run

__all__ = ["TupleIterator", "DictIterator"]


def _as_tensor(value, do_copy):
    if isinstance(value, np.generic):  # a NumPy scalar (a row of a string column): a 0-d array
        value = np.asarray(value)
    if value.dtype.kind in "USO":
        return value
    if do_copy and (not value.flags.writeable or value.base is not None):
        value = np.array(value)
    elif not value.flags.c_contiguous:
        value = np.ascontiguousarray(value)
    return wrap(_backend.current().from_host(value))


def _as_numpy(value, do_copy):
    if isinstance(value, np.generic):
        return np.asarray(value)
    if do_copy and not value.flags.writeable:
        return np.array(value)
    return value


class _Iterator:
    def __init__(self, dataset, columns, num_epochs, output_numpy, do_copy):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int):
            raise TypeError(f"Argument num_epochs with value {num_epochs!r} is not of type [<class 'int'>], "
                            f"but got {type(num_epochs)}.")
        if num_epochs != -1 and num_epochs <= 0:
            raise RuntimeError(f"RootNode: num_epochs should be either -1 or positive integer, num_epochs: "
                               f"{num_epochs}")
        if not isinstance(output_numpy, bool):
            raise TypeError(f"Argument output_numpy with value {output_numpy!r} is not of type [<class 'bool'>].")
        self._dataset = dataset
        names = dataset._column_names()
        if columns is not None:
            if isinstance(columns, str):
                columns = [columns]
            for name in columns:
                if name not in names:
                    raise RuntimeError(f"Invalid column, column name: {name} does not exist in the dataset "
                                       f"columns {names}.")
            self._positions = [names.index(n) for n in columns]
            self._names = list(columns)
        else:
            self._positions = None
            self._names = names
        self._num_epochs = num_epochs
        self._convert = _as_numpy if output_numpy else _as_tensor
        self._do_copy = do_copy
        self._run = Run(dataset)
        self._run.epoch = 0
        self._epochs_started = 0
        self._stream = None
        self._rows = []
        self._row_at = 0

    def __iter__(self):
        return self

    def _start_epoch(self):
        if self._num_epochs != -1 and self._epochs_started >= self._num_epochs:
            raise RuntimeError("EOF buffer encountered. User tries to fetch data beyond the specified number of "
                               f"epochs (num_epochs={self._num_epochs}).")
        self._run.epoch = self._epochs_started
        self._epochs_started += 1
        self._stream = self._dataset._blocks(self._run)

    def _next_values(self):
        while self._row_at >= len(self._rows):
            if self._stream is None:
                self._start_epoch()
            block = next(self._stream, None)
            if block is None:
                self._stream = None
                raise StopIteration
            columns = block.columns if self._positions is None else [block.columns[p] for p in self._positions]
            self._rows = list(zip(*[column_rows(c) for c in columns])) if columns else []
            self._row_at = 0
        values = self._rows[self._row_at]
        self._row_at += 1
        return [self._convert(v, self._do_copy) for v in values]

    def get_col_names(self):
        return list(self._names)

    def stop(self):
        """End the iteration early (the remaining rows are dropped)."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None


class TupleIterator(_Iterator):
    """Rows as lists of column values (see :meth:`Dataset.create_tuple_iterator`)."""

    def __next__(self):
        return self._next_values()


class DictIterator(_Iterator):
    """Rows as ``{column name: value}`` dicts (see :meth:`Dataset.create_dict_iterator`)."""

    def __next__(self):
        return dict(zip(self._names, self._next_values()))
