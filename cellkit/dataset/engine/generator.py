"""``GeneratorDataset`` and ``NumpySlicesDataset``: rows from Python objects.

``GeneratorDataset`` reads a *random-access* source (``__getitem__`` and ``__len__``: it gets a
sampler, ``shuffle``, shards) or an *iterable* one (a generator function, an object with
``__iter__``, a generator: read in order).  ``NumpySlicesDataset`` slices arrays along their first
axis; it reads whole blocks with one indexing operation.

>>> import numpy as np
>>> import cellkit.dataset as ds
>>> def rows():
...     for i in range(3):
...         yield np.array([i, i]), i * 0.5
>>> data = ds.GeneratorDataset(rows, column_names=["pair", "half"])
>>> [(p.tolist(), float(h)) for p, h in data.create_tuple_iterator(output_numpy=True)]
[([0, 0], 0.0), ([1, 1], 0.5), ([2, 2], 1.0)]
"""
from __future__ import annotations

import numpy as np

from .columns import Block
from .sources import MappableDataset, check_num_samples
from .values import to_row

__all__ = ["GeneratorDataset", "NumpySlicesDataset"]


def _names(column_names, schema):
    if column_names is None:
        if schema is None:
            raise ValueError("Neither columns_names nor schema are provided.")
        names = schema.column_names() if hasattr(schema, "column_names") else None
        if not names:
            raise ValueError("Neither columns_names nor schema are provided.")
        return names
    if isinstance(column_names, str):
        column_names = [column_names]
    if not isinstance(column_names, list) or not column_names or not all(isinstance(n, str) and n for n in column_names):
        raise TypeError(f"Argument column_names with value {column_names!r} is not a non-empty list of str.")
    if len(set(column_names)) != len(column_names):
        raise ValueError(f"column_names should not contain duplicate names, but got {column_names}.")
    return list(column_names)


class GeneratorDataset(MappableDataset):
    """Rows from a Python source (see the module docstring)."""

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None, batch_sampler=None, collate_fn=None):
        self.source = source
        self.column_names = _names(column_names, schema)
        self.column_types = self._check_types(column_types)
        self._random_access = hasattr(source, "__getitem__") and not isinstance(source, (str, bytes))
        if not self._random_access and not callable(source) and not hasattr(source, "__iter__") \
                and not hasattr(source, "__next__"):
            raise TypeError("Input `source` function of GeneratorDataset should be callable, iterable or random "
                            "accessible, commonly it should implement one of the method like yield, __getitem__ "
                            "or __next__(__iter__).")
        if batch_sampler is not None or collate_fn is not None:
            raise NotImplementedError("GeneratorDataset: batch_sampler and collate_fn are not supported by cellkit; "
                                      "use .batch() (with per_batch_map) instead.")
        if self._random_access:
            if not hasattr(source, "__len__"):
                raise TypeError("GeneratorDataset: a random-access source needs __len__ as well as __getitem__.")
            super().__init__(num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
        else:
            if num_shards is not None or shard_id is not None:
                raise ValueError("num_shards is not supported if source does not have attribute '__getitem__'.")
            if sampler is not None:
                raise ValueError("sampler is not supported if source does not have attribute '__getitem__'.")
            check_num_samples(num_samples)
            super().__init__(num_samples, False, None, None, None, num_parallel_workers)
        self.python_multiprocessing = python_multiprocessing

    @staticmethod
    def _check_types(column_types):
        if column_types is None:
            return None
        from ... import dtype as _dtype

        return [np.dtype(_dtype.to_dtype(t).to_backend(np)) for t in column_types]

    # -- structure
    def _column_names(self):
        return list(self.column_names)

    def _num_rows(self):
        return len(self.source)

    def _rows_per_epoch(self):
        if self._random_access:
            return super()._rows_per_epoch()
        if hasattr(self.source, "__len__"):
            n = len(self.source)
            return n if not self.num_samples else min(n, self.num_samples)
        return None

    def _row(self, value, where):
        if isinstance(value, list):  # as in MindSpore: a list is the row's columns, like a tuple
            value = tuple(value)
        try:
            row = to_row(value, where)
        except TypeError as exc:
            raise RuntimeError(f"GeneratorDataset: {exc}") from exc
        if len(row) != len(self.column_names):
            raise RuntimeError(f"GeneratorDataset: the source gave {len(row)} values for a row, but column_names "
                               f"names {len(self.column_names)} columns {self.column_names}; make them agree.")
        if self.column_types is not None:
            for k, (value, want) in enumerate(zip(row, self.column_types)):
                if value.dtype != want:
                    raise RuntimeError(f"GeneratorDataset: column {self.column_names[k]!r} holds {value.dtype}, "
                                       f"but column_types says {want}.")
        return row

    def _read(self, ids):
        rows = []
        for i in ids:
            try:
                value = self.source[np.int64(i)]
            except Exception as exc:  # noqa: BLE001 -- user code: reported as the pipeline's error
                raise RuntimeError(f"GeneratorDataset: the source's __getitem__({int(i)}) failed: "
                                   f"{type(exc).__name__}: {exc}") from exc
            rows.append(self._row(value, f"GeneratorDataset row {int(i)}"))
        return Block.from_rows(rows, len(self.column_names))

    def _iterate(self):
        source = self.source
        if callable(source) and not hasattr(source, "__next__"):
            return iter(source())
        return iter(source)

    def _blocks(self, run):
        if self._random_access:
            yield from super()._blocks(run)
            return
        try:
            iterator = self._iterate()
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(f"GeneratorDataset: starting the source failed: {type(exc).__name__}: {exc}") from exc
        limit = self.num_samples or None
        rows, count = [], 0
        while limit is None or count < limit:
            try:
                value = next(iterator)
            except StopIteration:
                break
            except Exception as exc:  # noqa: BLE001
                raise RuntimeError(f"GeneratorDataset: the source failed: {type(exc).__name__}: {exc}") from exc
            rows.append(self._row(value, f"GeneratorDataset row {count}"))
            count += 1
            if len(rows) == self.block_rows:
                yield Block.from_rows(rows, len(self.column_names))
                rows = []
        if rows:
            yield Block.from_rows(rows, len(self.column_names))

    def is_shuffled(self):
        return self._random_access and super().is_shuffled()

    def is_sharded(self):
        return self._random_access and super().is_sharded()


def _column_array(values, name):
    if isinstance(values, np.ndarray):
        array = values
    else:
        try:
            array = np.array(values)
        except ValueError as exc:
            raise TypeError(f"NumpySlicesDataset: column {name} cannot be an array: {exc}") from None
    if array.ndim == 0:
        raise TypeError(f"NumpySlicesDataset: column {name} is a scalar; give a list or an array of rows.")
    if array.dtype.kind == "O":
        raise TypeError(f"NumpySlicesDataset: column {name} holds Python objects that are not numbers or strings.")
    return array


class NumpySlicesDataset(GeneratorDataset):
    """Rows sliced from arrays along their first axis (a list, tuple of columns, dict or array).

    >>> import cellkit.dataset as ds
    >>> d = ds.NumpySlicesDataset({"a": [1, 2], "b": [[1, 2], [3, 4]]}, shuffle=False)
    >>> d.get_col_names(), d.output_shapes()
    (['a', 'b'], [[], [2]])
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        if not isinstance(data, (list, tuple, dict, np.ndarray)):
            raise TypeError(f"Argument data with value {data!r} is not of type [<class 'list'>, <class 'tuple'>, "
                            f"<class 'dict'>, <class 'numpy.ndarray'>], but got {type(data)}.")
        if isinstance(data, dict):
            keys = list(data.keys())
            columns = [_column_array(data[k], k) for k in keys]
            default_names = [str(k) for k in keys]
        elif isinstance(data, tuple):
            columns = [_column_array(v, f"column_{k}") for k, v in enumerate(data)]
            default_names = [f"column_{k}" for k in range(len(columns))]
        else:
            columns = [_column_array(data, "column_0")]
            default_names = ["column_0"]
        if column_names is not None and not isinstance(data, dict):
            if isinstance(column_names, str):
                column_names = [column_names]
            if len(column_names) != len(columns):
                raise ValueError(f"Num of input column names is {len(column_names)}, but required is "
                                 f"{len(columns)}.")
        if len({len(c) for c in columns}) > 1:
            raise ValueError("Data length in each column is not equal.")
        self._arrays = columns
        names = default_names if (column_names is None or isinstance(data, dict)) else column_names
        super().__init__(_SliceSource(len(columns[0])), names, None, None, num_samples, num_parallel_workers,
                         shuffle, sampler, num_shards, shard_id)

    def _read(self, ids):
        return Block([a[ids] for a in self._arrays], len(ids))

    def _stable_rows(self):
        return True

    def _labels(self):
        return None


class _SliceSource:
    """Stands for the arrays as a random-access source (its length is all GeneratorDataset asks)."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        raise NotImplementedError  # NumpySlicesDataset reads blocks itself

