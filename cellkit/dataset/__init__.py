"""``mindspore.dataset`` on NumPy: sources, pipelines, samplers, and the transforms.

MindSpore's data code runs unchanged::

    import cellkit.dataset as ds
    from cellkit.dataset import vision, transforms

    data = ds.MnistDataset("MNIST_Data/train")
    data = data.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], "image")
    data = data.map(transforms.TypeCast(ms.int32), "label").batch(64)

Pipelines run in one process and are deterministic under ``dataset.config.set_seed`` (or
``cellkit.set_seed``).  Instead of MindSpore's worker threads, every stage works on blocks of rows,
and transforms run on a whole block at once where their semantics allow it.  Files are read,
never executed or unpickled; a damaged file is refused with an error naming it.

>>> import numpy as np
>>> import cellkit.dataset as ds
>>> data = ds.NumpySlicesDataset({"x": np.arange(4.0)}, shuffle=False).batch(2)
>>> [row["x"].shape for row in data.create_dict_iterator()]
[(2,), (2,)]
"""
from __future__ import annotations

import importlib

from . import config
from .engine.batching import BatchInfo
from .engine.combining import zip_datasets as zip  # noqa: A001 -- MindSpore's name
from .engine.dataset import Dataset
from .engine.generator import GeneratorDataset, NumpySlicesDataset
from .engine.iterators import DictIterator, TupleIterator
from .engine.samplers import (DistributedSampler, IterSampler, PKSampler, RandomSampler, Sampler,
                              SequentialSampler, Shuffle, SubsetRandomSampler, SubsetSampler,
                              WeightedRandomSampler)
from .engine.sources import MappableDataset, SourceDataset
from .readers.cifar import Cifar10Dataset, Cifar100Dataset
from .readers.image_folder import ImageFolderDataset
from .readers.mind import MindDataset
from .readers.mnist import FashionMnistDataset, KMnistDataset, MnistDataset
from .readers.padded import PaddedDataset
from .readers.text_file import CSVDataset, TextFileDataset

__all__ = [
    "config", "Dataset", "MappableDataset", "SourceDataset", "GeneratorDataset", "NumpySlicesDataset",
    "MnistDataset", "FashionMnistDataset", "KMnistDataset", "Cifar10Dataset", "Cifar100Dataset",
    "ImageFolderDataset", "MindDataset", "PaddedDataset", "TextFileDataset", "CSVDataset",
    "SequentialSampler", "RandomSampler", "SubsetSampler", "SubsetRandomSampler", "WeightedRandomSampler",
    "DistributedSampler", "PKSampler", "Sampler", "IterSampler", "Shuffle", "BatchInfo", "TupleIterator",
    "DictIterator", "zip", "vision", "transforms", "text",
]

_SUBPACKAGES = ("vision", "transforms", "text")


def __getattr__(name):
    # ds.vision / ds.transforms / ds.text, imported on first use (vision brings in Pillow)
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_seed():
    """The dataset seed (``mindspore.dataset.get_seed`` is ``config.get_seed``)."""
    return config.get_seed()


def set_seed(seed):
    """Seed the pipelines (``mindspore.dataset.set_seed`` is ``config.set_seed``)."""
    config.set_seed(seed)
