"""Text sources: ``TextFileDataset`` (one row per non-empty line) and ``CSVDataset``.

Files are read as UTF-8 text; a file that cannot be read is refused with an error naming it.

>>> import os, tempfile
>>> import cellkit.dataset as ds
>>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
>>> _ = open(path, "w").write("first\\n\\nsecond\\n")
>>> [str(r[0]) for r in ds.TextFileDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True)]
['first', 'second']
"""
from __future__ import annotations

import csv
import io
import os

import numpy as np

from ..engine.columns import Block
from ..engine.sources import MappableDataset

__all__ = ["TextFileDataset", "CSVDataset"]


def _files(dataset_files):
    if isinstance(dataset_files, (str, os.PathLike)):
        dataset_files = [dataset_files]
    if not isinstance(dataset_files, list) or not dataset_files:
        raise TypeError(f"Argument dataset_files with value {dataset_files!r} is not a file name or a list of them.")
    paths = [os.fspath(p) for p in dataset_files]
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError(f"The file {path} does not exist or permission denied!")
    return paths


def _read_text(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise RuntimeError(f"Invalid file, failed to read {path} as UTF-8 text: {exc}") from None


def _shuffle_flag(shuffle):
    if shuffle is None or shuffle is True:
        return None
    if shuffle is False:
        return False
    value = getattr(shuffle, "value", shuffle)
    return False if value == "false" else None


class TextFileDataset(MappableDataset):
    """The non-empty lines of text files, in the column ``text``."""

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
                 shard_id=None, cache=None):
        self.dataset_files = _files(dataset_files)
        super().__init__(num_samples, _shuffle_flag(shuffle), None, num_shards, shard_id, num_parallel_workers)
        self._lines = None

    def _load(self):
        if self._lines is None:
            lines = []
            for path in self.dataset_files:
                lines.extend(line for line in _read_text(path).splitlines() if line)
            self._lines = np.array(lines) if lines else np.zeros(0, dtype="<U1")
        return self._lines

    def _column_names(self):
        return ["text"]

    def _num_rows(self):
        return len(self._load())

    def _read(self, ids):
        return Block([list(self._load()[ids])], len(ids))

    def _stable_rows(self):
        return True


class CSVDataset(MappableDataset):
    """Rows of CSV files: the first line names the columns unless ``column_names`` is given.

    Values are strings, unless ``column_defaults`` gives a default per column whose type (int:
    Int32, float: Float32, str) the column takes, as in MindSpore.
    """

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None, num_samples=None,
                 num_parallel_workers=None, shuffle=True, num_shards=None, shard_id=None, cache=None):
        self.dataset_files = _files(dataset_files)
        if not isinstance(field_delim, str) or len(field_delim) != 1:
            raise ValueError(f"field_delim should be one character, but got {field_delim!r}.")
        self.field_delim = field_delim
        self.column_defaults = column_defaults
        self.given_names = column_names
        super().__init__(num_samples, _shuffle_flag(shuffle), None, num_shards, shard_id, num_parallel_workers)
        self._table = None

    def _load(self):
        if self._table is not None:
            return self._table
        names, rows = self.given_names, []
        for path in self.dataset_files:
            records = list(csv.reader(io.StringIO(_read_text(path)), delimiter=self.field_delim))
            if self.given_names is None:
                if not records:
                    raise RuntimeError(f"Invalid file, {path} is empty: it has no header line naming the columns.")
                header, records = records[0], records[1:]
                if names is None:
                    names = header
            rows.extend(r for r in records if r)
        width = len(names)
        for k, r in enumerate(rows):
            if len(r) != width:
                raise RuntimeError(f"Invalid CSV data, row {k + 1} has {len(r)} fields but there are {width} columns.")
        columns = []
        for c in range(width):
            values = [r[c] for r in rows]
            default = self.column_defaults[c] if self.column_defaults else ""
            try:
                if isinstance(default, bool) or isinstance(default, str):
                    columns.append(np.array(values))
                elif isinstance(default, int):
                    columns.append(np.array([int(v) if v else default for v in values], dtype=np.int32))
                else:
                    columns.append(np.array([float(v) if v else default for v in values], dtype=np.float32))
            except ValueError as exc:
                raise RuntimeError(f"Invalid CSV data in column {names[c]!r}: {exc}") from None
        self._table = (list(names), columns)
        return self._table

    def _column_names(self):
        return list(self._load()[0])

    def _num_rows(self):
        columns = self._load()[1]
        return len(columns[0]) if columns else 0

    def _read(self, ids):
        return Block([c[ids] for c in self._load()[1]], len(ids))

    def _stable_rows(self):
        return True
