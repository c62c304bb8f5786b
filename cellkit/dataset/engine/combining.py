"""Stages over several pipelines: ``zip`` (side by side) and ``concat`` (one after another)."""
from __future__ import annotations

from .columns import Block
from .dataset import Dataset

__all__ = ["ZipDataset", "ConcatDataset", "zip_datasets"]


def zip_datasets(datasets):
    """``mindspore.dataset.zip``: the rows of a tuple of datasets side by side.

    >>> import cellkit.dataset as ds
    >>> a = ds.NumpySlicesDataset({"a": [1, 2, 3]}, shuffle=False)
    >>> b = ds.NumpySlicesDataset({"b": [4, 5]}, shuffle=False)
    >>> [[int(v) for v in row] for row in ds.zip((a, b)).create_tuple_iterator(output_numpy=True)]
    [[1, 4], [2, 5]]
    """
    if not isinstance(datasets, tuple):
        raise TypeError(f"Invalid datasets, expected tuple of Dataset, but got {type(datasets).__name__}!")
    if len(datasets) <= 1:
        raise ValueError("Can't zip empty or just one dataset!")
    return ZipDataset(datasets)


class ZipDataset(Dataset):
    """The result of :meth:`Dataset.zip`: stops with the shortest child."""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid dataset, expected Dataset object, but got {type(d).__name__}!")
        super().__init__(list(datasets))

    def _column_names(self):
        names = []
        for child in self.children:
            for name in child._column_names():
                if name in names:
                    raise RuntimeError(f"Invalid data, duplicate column {name} already exists when zipping datasets; "
                                       "rename the columns first.")
                names.append(name)
        return names

    def _rows_per_epoch(self):
        sizes = [c._rows_per_epoch() for c in self.children]
        return None if any(s is None for s in sizes) else min(sizes)

    def _blocks(self, run):
        self._column_names()
        streams = [c._blocks(run) for c in self.children]
        current = [None] * len(streams)
        offsets = [0] * len(streams)
        try:
            while True:
                for k, stream in enumerate(streams):
                    while current[k] is None or offsets[k] >= current[k].size:
                        block = next(stream, None)
                        if block is None:
                            return
                        current[k], offsets[k] = block, 0
                take = min(current[k].size - offsets[k] for k in range(len(streams)))
                columns = []
                for k in range(len(streams)):
                    part = current[k].slice(offsets[k], offsets[k] + take)
                    offsets[k] += take
                    columns.extend(part.columns)
                yield Block(columns, take)
        finally:
            for stream in streams:
                stream.close()


class ConcatDataset(Dataset):
    """The result of :meth:`Dataset.concat`."""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid dataset, expected Dataset object, but got {type(d).__name__}!")
        super().__init__(list(datasets))

    def _column_names(self):
        names = self.children[0]._column_names()
        for child in self.children[1:]:
            other = child._column_names()
            if other != names:
                raise RuntimeError(f"Invalid data, the column names of the datasets to concatenate must be the same, "
                                   f"but got {names} and {other}.")
        return names

    def _rows_per_epoch(self):
        sizes = [c._rows_per_epoch() for c in self.children]
        return None if any(s is None for s in sizes) else sum(sizes)

    def _blocks(self, run):
        self._column_names()
        for child in self.children:
            for block in child._blocks(run):
                yield Block(block.columns, block.size)
