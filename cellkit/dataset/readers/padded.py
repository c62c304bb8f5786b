"""``PaddedDataset``: rows given as a list of dicts (often concatenated to pad a sharded dataset).

>>> import numpy as np
>>> import cellkit.dataset as ds
>>> data = ds.PaddedDataset([{"image": np.zeros(2, np.uint8)}, {"image": np.ones(2, np.uint8)}])
>>> data.get_col_names(), data.get_dataset_size()
(['image'], 2)
"""
from __future__ import annotations

from ..engine.columns import Block
from ..engine.sources import MappableDataset
from ..engine.values import to_array

__all__ = ["PaddedDataset"]


class PaddedDataset(MappableDataset):
    """Rows from a list of dicts that all have the same keys."""

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list) or not padded_samples:
            raise TypeError("padded_samples should be a non-empty list of dict.")
        if not all(isinstance(s, dict) for s in padded_samples):
            raise TypeError("padded_samples should be a list of dict.")
        names = list(padded_samples[0])
        for k, sample in enumerate(padded_samples):
            if list(sample) != names:
                raise ValueError(f"padded_samples[{k}] has the keys {list(sample)}, but the first sample has {names}.")
        super().__init__(None, False, None, None, None)
        self.names = names
        self.rows = [tuple(to_array(s[n], f"padded_samples[{k}][{n!r}]") for n in names)
                     for k, s in enumerate(padded_samples)]

    def _column_names(self):
        return list(self.names)

    def _num_rows(self):
        return len(self.rows)

    def _read(self, ids):
        return Block.from_rows([self.rows[int(i)] for i in ids], len(self.names))

    def _stable_rows(self):
        return True
