"""``DatasetHelper``: a dataset as the batches a hand-written training loop feeds a network.

Iterating a ``DatasetHelper`` runs one epoch of the dataset and yields each batch as a list
of Tensors, ready for ``train_network(*batch)``; iterate it again for the next epoch.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.train import DatasetHelper
>>> batches = [(np.ones((2, 3), np.float32), np.zeros((2,), np.int32))] * 3
>>> helper = DatasetHelper(batches, dataset_sink_mode=False, epoch_num=2)
>>> [len(batch) for batch in helper], type(next(iter(helper))[0]).__name__
([2, 2, 2], 'Tensor')
"""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor

__all__ = ["DatasetHelper"]


class DatasetHelper:
    """Batches of ``dataset`` as lists of Tensors, one epoch per iteration.

    Parameters
    ----------
    dataset : dataset or iterable
        A ``cellkit.dataset`` pipeline (anything with ``create_tuple_iterator``),
        or a re-iterable of batches (tuples of arrays or Tensors).
    dataset_sink_mode : bool
        MindSpore feeds the device from a queue in sink mode; cellkit has no
        device queue, so ``True`` feeds batches from Python as ``False`` does
        (with a warning).  MindSpore 2.10 refuses sink mode on the CPU.
    sink_size : int
        -1, or the number of batches :meth:`sink_size` reports.
    epoch_num : int
        How many epochs the helper serves (further iterations are empty).

    Raises
    ------
    TypeError
        ``dataset_sink_mode`` not a bool, ``sink_size`` / ``epoch_num`` not ints.
    ValueError
        ``sink_size`` neither -1 nor positive, ``epoch_num`` below 1.
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"For 'DatasetHelper', 'dataset_sink_mode' must be bool, but got "
                            f"{type(dataset_sink_mode).__name__}.")
        for name, value in (("sink_size", sink_size), ("epoch_num", epoch_num)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'DatasetHelper', '{name}' must be int, but got {type(value).__name__}.")
        if sink_size != -1 and sink_size <= 0:
            raise ValueError(f"For 'DatasetHelper', 'sink_size' must be -1 or positive, but got {sink_size}.")
        if epoch_num < 1:
            raise ValueError(f"For 'DatasetHelper', 'epoch_num' must be a positive int, but got {epoch_num}.")
        if dataset_sink_mode:
            warnings.warn("cellkit has no device queue: DatasetHelper(dataset_sink_mode=True) feeds batches from "
                          "Python, one per step", stacklevel=2)
        self.dataset = dataset
        self.dataset_sink_mode = dataset_sink_mode
        self._sink_size = sink_size
        self._epochs_left = epoch_num

    def __iter__(self):
        if self._epochs_left <= 0:
            return iter(())
        self._epochs_left -= 1
        return self._one_epoch()

    def _one_epoch(self):
        dataset = self.dataset
        if hasattr(dataset, "create_tuple_iterator"):
            source = dataset.create_tuple_iterator(num_epochs=1)
        else:
            source = iter(dataset)
        for item in source:
            if isinstance(item, dict):
                item = list(item.values())
            elif not isinstance(item, (list, tuple)):
                item = [item]
            yield [v if isinstance(v, Tensor) else Tensor(np.asarray(v)) for v in item]

    def sink_size(self):
        """Batches per sink: ``sink_size`` when given, else the dataset's size."""
        if self._sink_size != -1:
            return self._sink_size
        size = getattr(self.dataset, "get_dataset_size", None)
        return int(size()) if callable(size) else len(self.dataset)

    def types_shapes(self):
        """``(types, shapes)`` of the dataset's columns (MindSpore dtypes and shape lists), from its first batch."""
        first = next(iter(self._one_epoch()))
        return [t.dtype for t in first], [list(t.shape) for t in first]
