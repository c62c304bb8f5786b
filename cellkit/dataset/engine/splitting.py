"""``Dataset.split``: dividing a dataset into parts of given sizes.

The sizes follow MindSpore's rules (ints summing to the dataset size, or fractions summing to 1
that are rounded, the rounding difference given to or taken from the first part that can take
it).  With ``randomize=True`` the rows are dealt at random with one permutation drawn when
``split`` is called (from the dataset seed when one is set), so the parts are disjoint and keep
the same rows every epoch.
"""
from __future__ import annotations

import copy
import math
import secrets

import numpy as np

from .. import config
from .columns import Block
from .dataset import Dataset

__all__ = ["split_dataset", "absolute_sizes"]


def absolute_sizes(sizes, dataset_size):
    """The row count of every part (MindSpore's rounding rules).

    >>> absolute_sizes([0.33, 0.33, 0.34], 10)
    [4, 3, 3]
    """
    if dataset_size is None or dataset_size <= 0:
        raise RuntimeError("dataset_size is unknown, unable to split.")
    if not isinstance(sizes, list):
        raise RuntimeError("sizes must be a list.")
    if not sizes:
        raise ValueError("sizes cannot be empty.")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError(f"sizes should hold positive ints, but got {sizes}.")
        if sum(sizes) != dataset_size:
            raise RuntimeError(f"Sum of split sizes {sum(sizes)} is not equal to dataset size {dataset_size}.")
        return list(sizes)
    if not all(isinstance(s, float) for s in sizes):
        raise TypeError(f"sizes should be a list of ints or a list of floats, but got {sizes}.")
    if any(not 0 < s <= 1 for s in sizes) or not math.isclose(sum(sizes), 1.0, abs_tol=1e-6):
        raise ValueError(f"Sizes are a list of floats, all of which should be in (0, 1] and sum to 1, but got {sizes}.")
    result = []
    for s in sizes:
        count = int(round(s * dataset_size))
        if count == 0:
            raise RuntimeError(f"Split percentage {s} is too small.")
        result.append(count)
    difference = dataset_size - sum(result)
    if difference > 0:
        result[0] += difference
    else:
        for i, count in enumerate(result):
            if count + difference > 0:
                result[i] += difference
                break
    if sum(result) != dataset_size:
        raise RuntimeError(f"Sum of calculated split sizes {sum(result)} is not equal to dataset size {dataset_size}.")
    return result


def split_dataset(dataset, sizes, randomize):
    if not isinstance(randomize, bool):
        raise TypeError(f"Argument randomize with value {randomize!r} is not of type [<class 'bool'>].")
    if dataset.is_sharded():
        raise RuntimeError("Dataset should not be sharded before split.")
    counts = absolute_sizes(sizes, dataset.get_dataset_size())
    total = sum(counts)
    if randomize:
        seed = config._current_seed()
        rng = np.random.default_rng(seed if seed is not None else secrets.randbits(63))
        order = rng.permutation(total)
    else:
        order = np.arange(total)
    parts, start = [], 0
    for count in counts:
        positions = order[start:start + count]
        start += count
        parts.append(_subset(dataset, positions))
    return tuple(parts)


def _subset(dataset, positions):
    """The rows of ``dataset`` at ``positions`` (row numbers within an epoch), in that order."""
    from .sources import MappableDataset
    from .samplers import SubsetSampler

    if isinstance(dataset, MappableDataset):
        part = copy.deepcopy(dataset)
        sampler = SubsetSampler(positions.tolist())
        sampler.add_child(part.sampler)
        part.sampler = sampler
        return part
    return RowSubsetDataset(dataset, positions)


class RowSubsetDataset(Dataset):
    """The rows of the child at given positions of its epoch (used by split)."""

    def __init__(self, child, positions):
        super().__init__(child)
        self.positions = np.asarray(positions, dtype=np.int64)

    def _rows_per_epoch(self):
        return len(self.positions)

    def _blocks(self, run):
        wanted = np.zeros(0, np.int64) if not len(self.positions) else self.positions
        keep = set(wanted.tolist())
        collected, seen = [], 0
        for block in self.children[0]._blocks(run):
            numbers = np.arange(seen, seen + block.size)
            seen += block.size
            chosen = [i for i, n in enumerate(numbers.tolist()) if n in keep]
            if chosen:
                collected.append((numbers[chosen], block.take(chosen)))
        if not collected:
            return
        numbers = np.concatenate([n for n, _ in collected])
        joined = Block.concat([b for _, b in collected])
        where = {int(n): i for i, n in enumerate(numbers)}
        order = [where[int(p)] for p in wanted if int(p) in where]
        for k in range(0, len(order), 256):
            yield joined.take(order[k:k + 256])
