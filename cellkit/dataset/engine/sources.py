"""The base of the sources: random-access sources read the rows their sampler picks.

A :class:`MappableDataset` knows how many rows it has (``_num_rows``) and reads any set of them
at once (``_read``, given an array of row ids).  Its sampler decides the ids of each pass; they
are read in blocks of :attr:`block_rows` rows, and each block remembers its ids (the decode
cache of ``map`` keys on them).
"""
from __future__ import annotations

import numpy as np

from .dataset import Dataset
from .samplers import BuiltinSampler, PKSampler, select_sampler

__all__ = ["SourceDataset", "MappableDataset", "check_shards"]


def check_shards(num_shards, shard_id):
    """MindSpore's rules for ``num_shards``/``shard_id`` given to a source."""
    if num_shards is None and shard_id is None:
        return
    if num_shards is None:
        raise RuntimeError("shard_id is specified but num_shards is not.")
    if shard_id is None:
        raise RuntimeError("num_shards is specified and currently requires shard_id as well.")
    for name, value in (("num_shards", num_shards), ("shard_id", shard_id)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'int'>], "
                            f"but got {type(value)}.")
    if not 1 <= num_shards <= 2147483647:
        raise ValueError(f"Input num_shards is not within the required interval of [1, 2147483647], "
                         f"but got {num_shards}.")
    if not 0 <= shard_id < num_shards:
        raise ValueError(f"Input shard_id is not within the required interval of [0, {num_shards - 1}], "
                         f"but got {shard_id}.")


def check_num_samples(num_samples):
    if num_samples is None:
        return
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise TypeError(f"Argument num_samples with value {num_samples!r} is not of type [<class 'int'>], "
                        f"but got {type(num_samples)}.")
    if not 0 <= num_samples <= 2147483647:
        raise ValueError(f"Input num_samples is not within the required interval of [0, 2147483647], "
                         f"but got {num_samples}.")


class SourceDataset(Dataset):
    """A leaf of the pipeline."""

    def __init__(self, num_parallel_workers=None):
        super().__init__(None, num_parallel_workers)

    def _column_names(self):
        raise NotImplementedError


class MappableDataset(SourceDataset):
    """A source whose rows can be read by index, with a sampler."""

    block_rows = 512

    def __init__(self, num_samples=None, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 num_parallel_workers=None):
        super().__init__(num_parallel_workers)
        check_num_samples(num_samples)
        check_shards(num_shards, shard_id)
        if shuffle is not None and not isinstance(shuffle, bool) and not hasattr(shuffle, "value"):
            raise TypeError(f"Argument shuffle with value {shuffle!r} is not of type [<class 'bool'>], "
                            f"but got {type(shuffle)}.")
        if sampler is not None and shuffle is not None:
            raise RuntimeError("sampler and shuffle cannot be specified at the same time.")
        if sampler is not None and num_shards is not None:
            raise RuntimeError("sampler and sharding cannot be specified at the same time.")
        self.num_samples = num_samples
        self.shuffle_flag = shuffle
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)

    # -- what a source defines
    def _num_rows(self) -> int:
        raise NotImplementedError

    def _read(self, ids: np.ndarray):
        """A Block of the rows at ``ids``."""
        raise NotImplementedError

    def _labels(self):
        """The label of every row (for PKSampler); None when the source has none."""
        return None

    # -- the engine
    def _ids(self, run):
        rng = run.generator(self)
        if isinstance(self.sampler, PKSampler):
            labels = self._labels()
            if labels is None:
                raise ValueError(f"{type(self).__name__} doesn't support PKSampler.")
            return self.sampler._ids_for_labels(labels, rng)
        return self.sampler._ids(self._num_rows(), rng)

    def _rows_per_epoch(self):
        if isinstance(self.sampler, PKSampler):
            return None
        return self.sampler._count(self._num_rows())

    def _blocks(self, run):
        ids = self._ids(run)
        step = self.block_rows
        for start in range(0, len(ids), step):
            chunk = ids[start:start + step]
            block = self._read(chunk)
            block.ids = chunk
            yield block

    # -- MindSpore's sampler methods
    def use_sampler(self, new_sampler):
        """Replace the sampler."""
        if new_sampler is None:
            raise TypeError("Input sampler can not be None.")
        if not isinstance(new_sampler, (BuiltinSampler, list, tuple, np.ndarray)):
            raise TypeError(f"Input sampler is not an instance of a sampler, but got {type(new_sampler).__name__}.")
        self.sampler = select_sampler(None, new_sampler, None, None, None)

    def add_sampler(self, new_sampler):
        """Sample from the current sampler's output with ``new_sampler`` (it becomes the parent)."""
        new_sampler.add_child(self.sampler)
        self.sampler = new_sampler

    def is_shuffled(self):
        return self.sampler.is_shuffled()

    def is_sharded(self):
        return self.sampler.is_sharded()
