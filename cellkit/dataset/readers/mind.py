"""``MindDataset``: the rows of MindRecord files, in MindSpore's layout (see :mod:`cellkit.mindrecord`).

Each shard file is read whole once, checked against its ``.db`` index (a damaged file is refused
with a RuntimeError naming it), and its decoded rows are kept for later epochs.  Columns come
in name order (or ``columns_list``'s); scalar fields as 0-d arrays, array fields with the
schema's shape, ``bytes`` fields as a one-element bytes array, as MindSpore gives them.
"""
from __future__ import annotations

import os

import numpy as np

from ..engine.columns import Block, pack_rows
from ..engine.sources import MappableDataset

__all__ = ["MindDataset", "shard_paths"]


def shard_paths(dataset_files):
    """The shard files: a list as given, or every shard of the set one file belongs to."""
    from ...mindrecord.layout import read_header

    if isinstance(dataset_files, str):
        if not os.path.isfile(dataset_files):
            raise ValueError(f"The file {dataset_files} does not exist or permission denied!")
        header = read_header(dataset_files)
        folder = os.path.dirname(os.path.abspath(dataset_files))
        paths = [os.path.join(folder, os.path.basename(n)) for n in header["shard_addresses"]]
        return paths or [dataset_files]
    if isinstance(dataset_files, list) and dataset_files and all(isinstance(p, str) for p in dataset_files):
        for path in dataset_files:
            if not os.path.isfile(path):
                raise ValueError(f"The file {path} does not exist or permission denied!")
        return list(dataset_files)
    raise TypeError(f"Argument dataset_files with value {dataset_files!r} is not of type [<class 'str'>, "
                    f"<class 'list'>], but got {type(dataset_files)}.")


class MindDataset(MappableDataset):
    """Rows of MindRecord files (``dataset_files``: one file of a shard set, or a list of files)."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None):
        from ...mindrecord.layout import read_header

        self.dataset_files = shard_paths(dataset_files)
        schema = read_header(self.dataset_files[0])["schema"][0]["schema"]
        if columns_list is not None:
            if not isinstance(columns_list, list) or not columns_list or \
                    not all(isinstance(c, str) for c in columns_list):
                raise TypeError(f"Argument columns_list with value {columns_list!r} is not a non-empty list of str.")
            missing = [c for c in columns_list if c not in schema]
            if missing:
                raise RuntimeError(f"Invalid data, column(s) {missing} of columns_list are not in the schema of "
                                   f"{self.dataset_files[0]} (fields {sorted(schema)}).")
        self.columns_list = list(columns_list) if columns_list is not None else sorted(schema)
        if (padded_sample is None) != (num_padded is None or num_padded == 0):
            if padded_sample is None:
                raise RuntimeError("padded_sample should be given when num_padded is set.")
        if padded_sample is not None and not isinstance(padded_sample, dict):
            raise TypeError(f"Argument padded_sample with value {padded_sample!r} is not of type [<class 'dict'>].")
        if num_padded is not None and (not isinstance(num_padded, int) or num_padded < 0):
            raise TypeError(f"Argument num_padded with value {num_padded!r} should be a non-negative int.")
        self.padded_sample, self.num_padded = padded_sample, num_padded or 0
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
        self._columns = None

    def _load(self):
        if self._columns is not None:
            return
        from ...mindrecord.layout import read_shard

        rows = []
        for path in self.dataset_files:
            rows += read_shard(path)[1]
        for _ in range(self.num_padded):
            rows.append({name: np.asarray(self.padded_sample[name]) for name in self.columns_list})
        self._count = len(rows)
        self._columns = [pack_rows([row[name] for row in rows]) for name in self.columns_list]

    def _column_names(self):
        return list(self.columns_list)

    def _num_rows(self):
        self._load()
        return self._count

    def _read(self, ids):
        self._load()
        from ..engine.columns import take_rows

        return Block([take_rows(c, ids) for c in self._columns], len(ids))

    def _stable_rows(self):
        return True
