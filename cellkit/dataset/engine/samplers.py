"""Samplers: which rows of a random-access source an epoch reads, and in what order.

A sampler turns the number of rows of its source into an array of row indices, once per pass
over the source (a new permutation every epoch for the random ones).  A sampler with a child
samples from the child's output: ``parent_ids`` index into the child's ids, as in MindSpore.

>>> import numpy as np
>>> SequentialSampler(2, 3)._ids(10, np.random.default_rng(0)).tolist()
[2, 3, 4]
>>> DistributedSampler(3, 1, shuffle=False)._ids(7, None).tolist()
[1, 4, 0]
>>> SubsetSampler([4, 1, 1])._ids(5, None).tolist()
[4, 1, 1]
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

__all__ = [
    "BuiltinSampler", "Sampler", "SequentialSampler", "RandomSampler", "SubsetSampler", "SubsetRandomSampler",
    "WeightedRandomSampler", "DistributedSampler", "PKSampler", "IterSampler", "Shuffle", "select_sampler",
]

INT64_MAX = 9223372036854775807


class Shuffle(str, enum.Enum):
    """How a source shuffles (MindSpore's ``dataset.Shuffle``)."""

    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def _check_num_samples(num_samples):
    if num_samples is not None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int):
            raise TypeError(f"num_samples must be integer but was: {num_samples}.")
        if num_samples < 0 or num_samples > INT64_MAX:
            raise ValueError(f"num_samples exceeds the boundary between 0 and {INT64_MAX}(INT64_MAX)!")


class BuiltinSampler:
    """The base of every sampler: ``num_samples``, child samplers, and the ids of one pass."""

    def __init__(self, num_samples=None):
        _check_num_samples(num_samples)
        self.child_sampler = None
        self.num_samples = num_samples

    # -- MindSpore's public methods
    def add_child(self, sampler):
        """Sample from ``sampler``'s output instead of from the source's rows directly."""
        if self.child_sampler is not None:
            raise RuntimeError("Cannot add child sampler, this sampler already has a child.")
        if sampler is not None and not isinstance(sampler, BuiltinSampler):
            raise TypeError(f"add_child: sampler must be a sampler, but got {type(sampler).__name__}.")
        self.child_sampler = sampler

    def get_child(self):
        return self.child_sampler

    def get_num_samples(self):
        """``num_samples`` as given (None for all), or that of the child when this one has none."""
        if self.num_samples is None and self.child_sampler is not None:
            return self.child_sampler.get_num_samples()
        return self.num_samples

    def is_shuffled(self):
        child = self.child_sampler is not None and self.child_sampler.is_shuffled()
        return self._shuffles() or child

    def is_sharded(self):
        child = self.child_sampler is not None and self.child_sampler.is_sharded()
        return isinstance(self, DistributedSampler) or child

    def get_shuffle_mode(self):
        return Shuffle.GLOBAL if self._shuffles() else Shuffle.FALSE

    # -- what the engine calls
    def _shuffles(self):
        return False

    def _ids(self, num_rows, rng) -> np.ndarray:
        """The row ids of one pass over a source of ``num_rows`` rows (``rng`` for random ones)."""
        if self.child_sampler is not None:
            child_ids = self.child_sampler._ids(num_rows, rng)
            own = self._own_ids(len(child_ids), rng)
            if len(own) and (own.min() < 0 or own.max() >= len(child_ids)):
                bad = own[(own < 0) | (own >= len(child_ids))][0]
                raise RuntimeError(f"Sample ID ({bad}) is out of bound, expected range [0, {len(child_ids) - 1}]")
            return child_ids[own]
        return self._own_ids(num_rows, rng)

    def _count(self, num_rows) -> int:
        """How many ids a pass yields (without drawing them)."""
        if self.child_sampler is not None:
            num_rows = self.child_sampler._count(num_rows)
        return self._own_count(num_rows)

    def _own_ids(self, num_rows, rng) -> np.ndarray:
        raise NotImplementedError

    def _own_count(self, num_rows) -> int:
        return len(self._own_ids(num_rows, np.random.default_rng(0)))

    def _limit(self, count):
        return count if not self.num_samples else min(count, self.num_samples)

    def __repr__(self):
        return f"{type(self).__name__}(num_samples={self.num_samples})"


class SequentialSampler(BuiltinSampler):
    """Rows in order from ``start_index`` (``num_samples`` of them, or to the end).

    >>> SequentialSampler(1)._ids(4, None).tolist()
    [1, 2, 3]
    """

    def __init__(self, start_index=None, num_samples=None):
        if start_index is not None and (isinstance(start_index, bool) or not isinstance(start_index, int)):
            raise TypeError(f"start_index must be integer but was: {start_index}.")
        super().__init__(num_samples)
        self.start_index = start_index

    def _own_ids(self, num_rows, rng):
        start = self.start_index or 0
        if start < 0:
            raise RuntimeError(f"SequentialSampler: start_index_ must be greater than or equal to 0, but got: {start}")
        if start >= num_rows and num_rows > 0:
            raise RuntimeError(f"Invalid parameter, start_index must be less than num_rows, but got start_index: "
                               f"{start}, num_rows: {num_rows}.")
        return np.arange(start, start + self._own_count(num_rows), dtype=np.int64)

    def _own_count(self, num_rows):
        start = self.start_index or 0
        return self._limit(max(0, num_rows - start))


class RandomSampler(BuiltinSampler):
    """A random permutation of the rows (or draws with replacement); a new one every pass.

    >>> import numpy as np
    >>> sorted(RandomSampler()._ids(5, np.random.default_rng(1)).tolist())
    [0, 1, 2, 3, 4]
    """

    def __init__(self, replacement=False, num_samples=None, shuffle=Shuffle.GLOBAL):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a boolean value but was: {replacement}.")
        if shuffle not in tuple(Shuffle) and not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be valid shuffle mode but was: {shuffle}.")
        super().__init__(num_samples)
        self.replacement = replacement
        self.shuffle = shuffle
        self.reshuffle_each_epoch = True

    def _shuffles(self):
        return True

    def _own_ids(self, num_rows, rng):
        count = self._own_count(num_rows)
        if self.replacement:
            return rng.integers(0, max(num_rows, 1), size=count, dtype=np.int64) if num_rows else np.zeros(0, np.int64)
        return rng.permutation(num_rows).astype(np.int64)[:count]

    def _own_count(self, num_rows):
        return self._limit(num_rows)


class SubsetSampler(BuiltinSampler):
    """The rows at ``indices``, in that order (repeats allowed).

    >>> SubsetSampler([3, 0], num_samples=1)._ids(5, None).tolist()
    [3]
    """

    def __init__(self, indices, num_samples=None):
        if isinstance(indices, np.ndarray):
            indices = indices.tolist()
        if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
            indices = [int(indices)]
        if not isinstance(indices, (list, tuple)):
            raise TypeError(f"Unsupported sampler object of type ({type(indices)})")
        for item in indices:
            if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
                raise TypeError(f"SubsetSampler: Type of indices element must be int, but got list[{indices.index(item)}]: "
                                f"{item}, type: {type(item)}.")
        super().__init__(num_samples)
        self.indices = [int(i) for i in indices]

    def _chosen(self, rng):
        return np.asarray(self.indices, dtype=np.int64)

    def _own_ids(self, num_rows, rng):
        ids = self._chosen(rng)[: self._own_count(num_rows)]
        bad = ids[(ids < 0) | (ids >= num_rows)]
        if len(bad):
            raise RuntimeError(f"Sample ID ({bad[0]}) is out of bound, expected range [0, {num_rows - 1}]")
        return ids

    def _own_count(self, num_rows):
        return self._limit(len(self.indices))


class SubsetRandomSampler(SubsetSampler):
    """The rows at ``indices`` in a random order (a new one every pass).

    >>> import numpy as np
    >>> sorted(SubsetRandomSampler([4, 1, 2])._ids(5, np.random.default_rng(0)).tolist())
    [1, 2, 4]
    """

    def _shuffles(self):
        return True

    def _chosen(self, rng):
        return rng.permutation(np.asarray(self.indices, dtype=np.int64))


class WeightedRandomSampler(BuiltinSampler):
    """``num_samples`` rows drawn with probabilities proportional to ``weights``.

    >>> import numpy as np
    >>> WeightedRandomSampler([0, 1, 0], 3)._ids(3, np.random.default_rng(0)).tolist()
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples=None, replacement=True):
        if not isinstance(weights, list):
            weights = [weights]
        for k, w in enumerate(weights):
            if isinstance(w, bool) or not isinstance(w, numbers.Number):
                raise TypeError(f"type of weights element must be number, but got w[{k}]: {w}, type: {type(w)}.")
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a boolean value but was: {replacement}.")
        super().__init__(num_samples)
        self.weights = [float(w) for w in weights]
        self.replacement = replacement

    def _shuffles(self):
        return True

    def _check(self):
        weights = np.asarray(self.weights, dtype=np.float64)
        if len(weights) == 0:
            raise RuntimeError("Invalid parameter, weights vector must not be empty.")
        if (weights < 0).any():
            raise RuntimeError("Invalid parameter, weights vector must not contain negative numbers, "
                               f"but got {self.weights}.")
        if weights.sum() == 0:
            raise RuntimeError("Invalid parameter, elements of weights vector must not be all zero.")
        return weights

    def _own_ids(self, num_rows, rng):
        weights = self._check()
        count = self._own_count(num_rows)
        p = weights / weights.sum()
        if self.replacement:
            return rng.choice(len(weights), size=count, replace=True, p=p).astype(np.int64)
        # Without replacement: rows with weight draw first (in weighted order), then the rest.
        keys = rng.random(len(weights)) ** (1.0 / np.where(weights > 0, weights, 1.0))
        keys = np.where(weights > 0, keys + 1.0, keys)  # weighted rows always before zero-weight rows
        return np.argsort(-keys, kind="stable")[:count].astype(np.int64)

    def _own_count(self, num_rows):
        count = self.num_samples if self.num_samples else len(self.weights)
        # MindSpore draws at most as many samples as the dataset has rows, with replacement too
        return min(count, num_rows) if self.replacement else min(count, len(self.weights), num_rows)


class DistributedSampler(BuiltinSampler):
    """Shard ``shard_id`` of ``num_shards``: rows ``shard_id, shard_id + num_shards, ...``.

    Every shard gets the same number of rows (the first rows again pad the short ones), as in
    MindSpore; with ``shuffle=True`` every shard permutes the rows the same way first, so the
    shards still partition them (given the same seed on every process).

    >>> DistributedSampler(4, 3, shuffle=False)._ids(10, None).tolist()
    [3, 7, 1]
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        if isinstance(num_shards, bool) or not isinstance(num_shards, int):
            raise TypeError(f"num_shards must be integer but was: {num_shards}.")
        if isinstance(shard_id, bool) or not isinstance(shard_id, int):
            raise TypeError(f"shard_id must be integer but was: {shard_id}.")
        if not isinstance(shuffle, bool) and shuffle not in tuple(Shuffle):
            raise TypeError(f"shuffle must be a boolean value or valid shuffle mode but was: {shuffle}.")
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"offset must be integer but was: {offset}.")
        if num_shards <= 0:
            raise ValueError(f"num_shards must be positive, but got {num_shards}.")
        if not 0 <= shard_id < num_shards:
            raise ValueError(f"shard_id must be in [0, {num_shards - 1}], but got {shard_id}.")
        super().__init__(num_samples)
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.shuffle = Shuffle.GLOBAL if shuffle is True else (Shuffle.FALSE if shuffle is False else shuffle)
        self.offset = offset
        self._passes = 0

    def _shuffles(self):
        return self.shuffle != Shuffle.FALSE

    def _order(self, num_rows, rng):
        if not self._shuffles():
            return np.arange(num_rows, dtype=np.int64)
        # Every shard (every process) must permute alike, so the permutation comes from the
        # dataset seed and the number of passes made, never from fresh entropy (MindSpore too
        # seeds it from config.get_seed(), 5489 when none was set).
        from .. import config

        self._passes += 1
        return np.random.default_rng([config.get_seed(), self._passes]).permutation(num_rows)

    def _own_ids(self, num_rows, rng):
        order = self._order(num_rows, rng)
        if self.offset >= 0:
            positions = np.arange(num_rows)
            ids = order[(positions + self.offset) % self.num_shards == self.shard_id]
        else:
            per_shard = -(-num_rows // self.num_shards) if num_rows else 0
            positions = self.shard_id + self.num_shards * np.arange(per_shard)
            ids = order[positions % num_rows] if num_rows else order[:0]
        return ids[: self._limit(len(ids))].astype(np.int64)

    def _own_count(self, num_rows):
        if self.offset >= 0:
            count = len([k for k in range(num_rows) if (k + self.offset) % self.num_shards == self.shard_id])
        else:
            count = -(-num_rows // self.num_shards) if num_rows else 0
        return self._limit(count)


class PKSampler(BuiltinSampler):
    """``num_val`` rows of every class (classes read from the ``label`` column of the source).

    >>> import numpy as np
    >>> s = PKSampler(2)
    >>> s._ids_for_labels(np.array([0, 1, 0, 0, 1]), None).tolist()
    [0, 2, 1, 4]
    """

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label", num_samples=None):
        if isinstance(num_val, bool) or not isinstance(num_val, int):
            raise TypeError(f"num_val must be integer but was: {num_val}.")
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a boolean value but was: {shuffle}.")
        if not isinstance(class_column, str) or not class_column:
            raise TypeError(f"class_column must be a str value but was: {class_column}.")
        super().__init__(num_samples)
        self.num_val = num_val
        self.shuffle = shuffle
        self.class_column = class_column

    def _shuffles(self):
        return self.shuffle

    def _ids_for_labels(self, labels, rng):
        labels = np.asarray(labels).reshape(-1)
        ids = []
        classes = np.unique(labels)
        if self.shuffle:
            classes = rng.permutation(classes)
        for c in classes:
            members = np.flatnonzero(labels == c)
            if self.shuffle:
                members = rng.permutation(members)
            if len(members) >= self.num_val:
                ids.extend(members[: self.num_val].tolist())
            else:  # too few rows of this class: repeat them, as MindSpore does
                ids.extend(np.resize(members, self.num_val).tolist())
        return np.asarray(ids[: self._limit(len(ids))], dtype=np.int64)

    def _own_ids(self, num_rows, rng):
        raise RuntimeError("PKSampler needs the labels of its source; this dataset cannot give them.")

    def _own_count(self, num_rows):
        return -1  # known only from the labels


class Sampler(BuiltinSampler):
    """The base of a sampler written in Python: override ``__iter__`` to yield row ids.

    ``self.dataset_size`` holds the number of rows of the source when ``__iter__`` runs.

    >>> class Backwards(Sampler):
    ...     def __iter__(self):
    ...         return iter(range(self.dataset_size - 1, -1, -1))
    >>> Backwards()._ids(3, None).tolist()
    [2, 1, 0]
    """

    def __init__(self, num_samples=None):
        super().__init__(num_samples)
        self.dataset_size = 0
        if self.num_samples is None and hasattr(self, "__len__"):
            self.num_samples = len(self)

    def __iter__(self):
        raise NotImplementedError

    def reset(self):
        """Called before every pass; override to change state between passes."""

    def _own_ids(self, num_rows, rng):
        self.dataset_size = num_rows
        self.reset()
        ids = []
        for count, item in enumerate(self):
            if isinstance(item, numbers.Number):
                ids.append(item)
            else:
                ids.extend(item)
            if self.num_samples is not None and count + 1 >= self.num_samples:
                break
        array = np.asarray(ids)
        if array.dtype.kind not in "iu" and len(array):
            raise RuntimeError("Fetched indices can not be converted to a valid ndarray.")
        array = array.astype(np.int64)
        bad = array[(array < 0) | (array >= num_rows)]
        if len(bad):
            raise RuntimeError(f"Sample ID ({bad[0]}) is out of bound, expected range [0, {num_rows - 1}]")
        return array

    def _own_count(self, num_rows):
        return len(self._own_ids(num_rows, None))


class IterSampler(Sampler):
    """A sampler from any iterable of row ids.

    >>> IterSampler([2, 0])._ids(3, None).tolist()
    [2, 0]
    """

    def __init__(self, sampler, num_samples=None):
        if num_samples is None and hasattr(sampler, "__len__"):
            num_samples = len(sampler)
        super().__init__(num_samples=num_samples)
        self.sampler = sampler

    def __iter__(self):
        return iter(self.sampler)


def select_sampler(num_samples, input_sampler, shuffle, num_shards, shard_id):
    """The sampler a source uses, from its ``sampler``/``shuffle``/``num_shards``/``num_samples`` arguments.

    As MindSpore chooses: a given sampler excludes the other arguments; ``shuffle`` with
    ``num_samples`` draws with replacement; sharding gives a :class:`DistributedSampler`.
    """
    if input_sampler is not None:
        if isinstance(input_sampler, BuiltinSampler):
            if any(arg is not None for arg in (num_shards, shard_id, shuffle, num_samples)):
                raise ValueError(f"Conflicting arguments during sampler assignments. num_samples: {num_samples}, "
                                 f"num_shards: {num_shards}, shard_id: {shard_id}, shuffle: {shuffle}.")
            return input_sampler
        if isinstance(input_sampler, (np.ndarray, list, tuple)):
            return SubsetSampler(input_sampler, num_samples)
        if isinstance(input_sampler, (int, np.integer)) and not isinstance(input_sampler, bool):
            return SubsetSampler([int(input_sampler)])
        if not isinstance(input_sampler, str) and hasattr(input_sampler, "__iter__"):
            return IterSampler(input_sampler, num_samples)
        raise TypeError(f"Unsupported sampler object of type ({type(input_sampler)})")
    shuffle_on = shuffle is None or (shuffle is not False and shuffle != Shuffle.FALSE)
    if shuffle_on:
        if num_shards is not None:
            return DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=num_samples)
        if num_samples is not None:
            return RandomSampler(replacement=True, num_samples=num_samples)
        return RandomSampler()
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=False, num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)
