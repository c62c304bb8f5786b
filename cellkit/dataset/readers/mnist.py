"""MNIST-format datasets read from idx files: ``MnistDataset``, ``FashionMnistDataset``, ``KMnistDataset``.

The directory holds ``train-images-idx3-ubyte`` / ``train-labels-idx1-ubyte`` and
``t10k-images-idx3-ubyte`` / ``t10k-labels-idx1-ubyte`` (``usage`` picks train, test or all: the
test files first, as MindSpore orders them).  Rows are ``image`` (UInt8, 28x28x1) and ``label``
(UInt32).  Each file is checked whole -- magic number, 28x28 images, a length that is exactly
its header's count, images and labels of equal number -- and a file that fails is refused with a
RuntimeError naming it.  The arrays are read once and kept for every later epoch.

>>> import os, struct, tempfile, numpy as np
>>> import cellkit.dataset as ds
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "train-images-idx3-ubyte"), "wb") as f:
...     _ = f.write(struct.pack(">IIII", 2051, 2, 28, 28) + bytes(2 * 784))
>>> with open(os.path.join(folder, "train-labels-idx1-ubyte"), "wb") as f:
...     _ = f.write(struct.pack(">II", 2049, 2) + bytes([3, 7]))
>>> data = ds.MnistDataset(folder, usage="train", shuffle=False)
>>> data.output_shapes(), data.output_types(), [int(r[1]) for r in data]
([[28, 28, 1], []], [dtype('uint8'), dtype('uint32')], [3, 7])
"""
from __future__ import annotations

import os
import struct

import numpy as np

from ..engine.columns import Block
from ..engine.sources import MappableDataset
from .files import check_dir, check_usage, read_file_bytes

__all__ = ["MnistDataset", "FashionMnistDataset", "KMnistDataset", "read_idx_images", "read_idx_labels"]

IMAGE_MAGIC, LABEL_MAGIC = 2051, 2049
SIDE = 28
_PREFIX = {"train": ("train",), "test": ("t10k",), "all": ("t10k", "train")}


def read_idx_images(path):
    """The images of an idx3 file as a (N, 28, 28, 1) uint8 array; RuntimeError if the file is damaged."""
    data = read_file_bytes(path, "mnist file")
    if len(data) < 16:
        raise RuntimeError(f"Invalid mnist file, {path} is {len(data)} bytes: too short for an idx3 header.")
    magic, count, rows, cols = struct.unpack(">IIII", data[:16])
    if magic != IMAGE_MAGIC:
        raise RuntimeError(f"Invalid mnist file, the image number of {path} should be {IMAGE_MAGIC}, but got {magic}")
    if (rows, cols) != (SIDE, SIDE):
        raise RuntimeError(f"Invalid mnist file, shape of image in {path} should be ({SIDE}, {SIDE}), "
                           f"but got ({rows}, {cols}).")
    expected = 16 + count * rows * cols
    if len(data) != expected:
        raise RuntimeError(f"Invalid mnist file, data length of {path} should be {expected} bytes for {count} images, "
                           f"but got {len(data)}.")
    return np.frombuffer(data, dtype=np.uint8, offset=16).reshape(count, rows, cols, 1)


def read_idx_labels(path):
    """The labels of an idx1 file as a uint32 array; RuntimeError if the file is damaged."""
    data = read_file_bytes(path, "mnist file")
    if len(data) < 8:
        raise RuntimeError(f"Invalid mnist file, {path} is {len(data)} bytes: too short for an idx1 header.")
    magic, count = struct.unpack(">II", data[:8])
    if magic != LABEL_MAGIC:
        raise RuntimeError(f"Invalid mnist file, the label number of {path} should be {LABEL_MAGIC}, but got {magic}")
    if len(data) != 8 + count:
        raise RuntimeError(f"Invalid mnist file, data length of {path} should be {8 + count} bytes for {count} labels, "
                           f"but got {len(data)}.")
    return np.frombuffer(data, dtype=np.uint8, offset=8).astype(np.uint32)


class MnistDataset(MappableDataset):
    """The MNIST handwritten digits from idx files (see the module docstring)."""

    _what = "MNIST"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = check_dir(dataset_dir)
        self.usage = check_usage(usage, ("train", "test", "all"))
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
        self._images = None
        self._labels_array = None

    def _load(self):
        if self._images is not None:
            return
        images, labels = [], []
        for prefix in _PREFIX[self.usage]:
            image_path = os.path.join(self.dataset_dir, f"{prefix}-images-idx3-ubyte")
            label_path = os.path.join(self.dataset_dir, f"{prefix}-labels-idx1-ubyte")
            if not os.path.exists(image_path) and not os.path.exists(label_path):
                continue
            for path in (image_path, label_path):
                if not os.path.isfile(path):
                    raise RuntimeError(f"Invalid mnist file, {path} is missing (its pair is in {self.dataset_dir}).")
            part_images = read_idx_images(image_path)
            part_labels = read_idx_labels(label_path)
            if len(part_images) != len(part_labels):
                raise RuntimeError(f"Invalid mnist file, the number of images in {image_path} ({len(part_images)}) "
                                   f"does not match the number of labels in {label_path} ({len(part_labels)}).")
            images.append(part_images)
            labels.append(part_labels)
        if not images:
            wanted = " and ".join(f"{p}-images-idx3-ubyte" for p in _PREFIX[self.usage])
            raise RuntimeError(f"No {self._what} data found: {self.dataset_dir} has no {wanted} "
                               f"(usage={self.usage!r}).")
        self._images = images[0] if len(images) == 1 else np.concatenate(images)
        self._labels_array = labels[0] if len(labels) == 1 else np.concatenate(labels)

    def _column_names(self):
        return ["image", "label"]

    def _num_rows(self):
        self._load()
        return len(self._labels_array)

    def _read(self, ids):
        self._load()
        return Block([self._images[ids], self._labels_array[ids]], len(ids))

    def _labels(self):
        self._load()
        return self._labels_array

    def _stable_rows(self):
        return True


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: the same idx layout and columns as MNIST."""

    _what = "Fashion-MNIST"


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST: the same idx layout and columns as MNIST."""

    _what = "KMNIST"
