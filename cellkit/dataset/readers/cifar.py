"""CIFAR-10 and CIFAR-100 in their binary versions: ``Cifar10Dataset``, ``Cifar100Dataset``.

CIFAR-10: ``data_batch_1.bin`` ... ``data_batch_5.bin`` (train) and ``test_batch.bin`` (test), each a
run of 3073-byte records (a label byte, then 3x32x32 pixels, plane by plane).  CIFAR-100:
``train.bin`` and ``test.bin``, 3074-byte records (coarse label, fine label, pixels).  Rows are
``image`` (UInt8, 32x32x3, HWC) and ``label`` (UInt32) -- or ``coarse_label`` and ``fine_label``.

Every file is checked before any row is given: its length must be a whole number of records and
every label must be in range (10 classes; 20 coarse and 100 fine), or the file is refused with a
RuntimeError naming it.  MindSpore insists on exactly 10000 records per CIFAR-10 file (50000 and
10000 for CIFAR-100); cellkit reads any whole number of records, so small files in the real
format work too.  The arrays are read once and kept for every later epoch.

>>> import os, tempfile, numpy as np
>>> import cellkit.dataset as ds
>>> folder = tempfile.mkdtemp()
>>> records = np.zeros((2, 3073), np.uint8); records[:, 0] = [4, 9]
>>> records.tofile(os.path.join(folder, "data_batch_1.bin"))
>>> data = ds.Cifar10Dataset(folder, usage="train", shuffle=False)
>>> data.output_shapes(), [int(r[1]) for r in data]
([[32, 32, 3], []], [4, 9])
"""
from __future__ import annotations

import os

import numpy as np

from ..engine.columns import Block
from ..engine.sources import MappableDataset
from .files import check_dir, check_usage, read_file_bytes

__all__ = ["Cifar10Dataset", "Cifar100Dataset", "read_cifar_file"]

PIXELS = 3 * 32 * 32


def read_cifar_file(path, label_bytes, label_limits):
    """(images HWC uint8, labels uint32 of shape (N, label_bytes)) of one binary file, checked."""
    data = read_file_bytes(path, "cifar file")
    record = label_bytes + PIXELS
    if len(data) == 0 or len(data) % record:
        raise RuntimeError(f"Invalid cifar file, {path} is {len(data)} bytes, not a whole number of "
                           f"{record}-byte records: it is damaged or not the CIFAR binary version.")
    raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, record)
    labels = raw[:, :label_bytes].astype(np.uint32)
    for k, limit in enumerate(label_limits):
        bad = np.flatnonzero(labels[:, k] >= limit)
        if len(bad):
            raise RuntimeError(f"Invalid cifar file, record {bad[0]} of {path} has label {labels[bad[0], k]}, "
                               f"outside [0, {limit - 1}]: the file is damaged or of the other CIFAR version.")
    images = raw[:, label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), labels


class _CifarBase(MappableDataset):
    _label_bytes = 1
    _label_limits = (10,)
    _label_names = ("label",)

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = check_dir(dataset_dir)
        self.usage = check_usage(usage, ("train", "test", "all"))
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
        self._images = None
        self._label_array = None

    def _wanted(self, name):
        raise NotImplementedError

    def _files(self):
        names = sorted(n for n in os.listdir(self.dataset_dir) if n.endswith(".bin"))
        files = [os.path.join(self.dataset_dir, n) for n in names if self._wanted(n)]
        if not files:
            raise RuntimeError(f"No {type(self).__name__[:-7]} binary files for usage {self.usage!r} in "
                               f"{self.dataset_dir}.")
        return files

    def _load(self):
        if self._images is not None:
            return
        parts = [read_cifar_file(p, self._label_bytes, self._label_limits) for p in self._files()]
        self._images = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
        self._label_array = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]

    def _column_names(self):
        return ["image", *self._label_names]

    def _num_rows(self):
        self._load()
        return len(self._label_array)

    def _read(self, ids):
        self._load()
        labels = self._label_array[ids]
        return Block([self._images[ids]] + [labels[:, k] for k in range(self._label_bytes)], len(ids))

    def _labels(self):
        self._load()
        return self._label_array[:, -1]

    def _stable_rows(self):
        return True


class Cifar10Dataset(_CifarBase):
    """CIFAR-10, binary version (see the module docstring)."""

    def _wanted(self, name):
        if self.usage == "train":
            return "data_batch" in name
        if self.usage == "test":
            return "test_batch" in name
        return "batch" in name


class Cifar100Dataset(_CifarBase):
    """CIFAR-100, binary version: columns ``image``, ``coarse_label``, ``fine_label``."""

    _label_bytes = 2
    _label_limits = (20, 100)
    _label_names = ("coarse_label", "fine_label")

    def _wanted(self, name):
        if self.usage == "train":
            return "train" in name
        if self.usage == "test":
            return "test" in name
        return "train" in name or "test" in name
