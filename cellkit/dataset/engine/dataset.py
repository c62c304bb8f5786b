"""The ``Dataset`` every source and stage is: MindSpore's pipeline methods and getters.

A pipeline is a tree of nodes: sources at the leaves, stages (``map``, ``batch``, ``shuffle``...)
above them.  Each method returns a new node whose child is ``self``; nothing runs until an
iterator asks for rows.  A node knows three things (see ``_column_names``, ``_rows_per_epoch``
and ``_blocks``): its column names, how many rows an epoch has when that is known without
running it, and how to produce one epoch as a stream of :class:`~.columns.Block`.

>>> import numpy as np
>>> import cellkit.dataset as ds
>>> data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False)
>>> data = data.map(lambda x: x * 10, input_columns="x").batch(4)
>>> [b[0].asnumpy().tolist() for b in data]
[[0, 10, 20, 30], [40, 50]]
>>> data.get_dataset_size(), data.get_col_names()
(2, ['x'])
"""
from __future__ import annotations

import copy
import inspect

import numpy as np

from . import checks
from .columns import Block

__all__ = ["Dataset"]


class Dataset:
    """The base of every pipeline node (MindSpore's ``mindspore.dataset.Dataset``)."""

    def __init__(self, children=None, num_parallel_workers=None):
        checks.check_workers(num_parallel_workers)
        if children is None:
            children = []
        elif isinstance(children, Dataset):
            children = [children]
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._known_size = None

    # ------------------------------------------------------------------ what every node defines
    def _column_names(self) -> list:
        """The column names of this node's rows."""
        return self.children[0]._column_names()

    def _rows_per_epoch(self):
        """Rows in one epoch when known without running the pipeline, else None."""
        return self.children[0]._rows_per_epoch()

    def _blocks(self, run):
        """One epoch of this node's rows, as Blocks (``run``: the iterator's random state)."""
        raise NotImplementedError

    def _stable_rows(self) -> bool:
        """True when a row id always names the same row content (file readers): decoding may be cached."""
        return False

    # ------------------------------------------------------------------ stages
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, cache=None, callbacks=None, max_rowsize=None, offload=None, **kwargs):
        """Apply ``operations`` (a transform or function, or a list of them, chained) to every row.

        The operations get the ``input_columns`` values (the first column by default) and their
        results become ``output_columns`` (by default the input columns).  When the number of
        output columns equals the number of input columns, they take the input columns' places;
        otherwise they come first, followed by the columns that were not inputs.

        >>> import cellkit.dataset as ds
        >>> d = ds.NumpySlicesDataset({"a": [1, 2], "b": [3, 4]}, shuffle=False)
        >>> d.map(lambda b: (b, b * 2), input_columns="b", output_columns=["x", "y"]).get_col_names()
        ['x', 'y', 'a']
        """
        from .transforming import MapDataset

        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers,
                          python_multiprocessing, cache, callbacks, max_rowsize, offload, kwargs)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack ``batch_size`` consecutive rows into one (``per_batch_map`` may rewrite each batch).

        ``batch_size`` may be a function of a :class:`BatchInfo`.  Rows of different shapes cannot
        be stacked (use :meth:`padded_batch`).
        """
        from .batching import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, kwargs)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None):
        """Batch rows after padding them: ``pad_info={column: (shape or None, value)}``.

        A ``None`` shape (or a ``None`` dimension) pads to the largest row of the batch; a
        given shape pads (or cuts) every row to it.  Without ``pad_info`` every column is
        padded to its largest row with 0.
        """
        from .batching import PaddedBatchDataset

        return PaddedBatchDataset(self, batch_size, drop_remainder, num_parallel_workers, pad_info)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of ``buffer_size`` rows (a full shuffle when it holds every row).

        Each row out is drawn at random from the buffer, and the next input row takes its place,
        as MindSpore does; each epoch shuffles differently.
        """
        from .reordering import ShuffleDataset

        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """The rows ``count`` times over (``None`` or -1: without end)."""
        from .selecting import RepeatDataset

        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first ``count`` rows (-1: all)."""
        from .selecting import TakeDataset

        return TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first ``count``."""
        from .selecting import SkipDataset

        return SkipDataset(self, count)

    def project(self, columns):
        """Keep only ``columns``, in that order."""
        from .selecting import ProjectDataset

        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename ``input_columns`` to ``output_columns``."""
        from .selecting import RenameDataset

        return RenameDataset(self, input_columns, output_columns)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which ``predicate(*values of input_columns)`` is true (all columns by default)."""
        from .transforming import FilterDataset

        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def zip(self, datasets):
        """Rows side by side with those of ``datasets`` (a Dataset or a tuple of them); stops at the shortest."""
        from .combining import ZipDataset

        if isinstance(datasets, tuple):
            datasets = (self, *datasets)
        elif isinstance(datasets, Dataset):
            datasets = (self, datasets)
        else:
            raise TypeError(f"Invalid datasets, expected Dataset object or tuple of Dataset, but got {datasets}!")
        return ZipDataset(datasets)

    def concat(self, datasets):
        """These rows, then those of ``datasets`` (a Dataset or a list of them)."""
        from .combining import ConcatDataset

        if isinstance(datasets, Dataset):
            datasets = [datasets]
        if not isinstance(datasets, list):
            raise TypeError(f"Invalid datasets, expected Dataset object or list of Dataset, but got {datasets}!")
        return ConcatDataset([self, *datasets])

    def __add__(self, datasets):
        return self.concat(datasets)

    def split(self, sizes, randomize=True):
        """Split into datasets of the given sizes (ints summing to the size, or fractions summing to 1).

        With ``randomize`` the rows are dealt at random, drawn once when ``split`` is called, so
        the parts never overlap (MindSpore draws again in each part unless a seed is set, and
        its parts can then overlap).
        """
        from .splitting import split_dataset

        return split_dataset(self, sizes, randomize)

    def apply(self, apply_func):
        """``apply_func(self)``: a function that builds a pipeline from this dataset (it must return a Dataset)."""
        if not callable(apply_func):
            raise TypeError(f"apply_func must be a function, but got {type(apply_func).__name__}.")
        dataset = apply_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"apply_func must return a dataset, but got {type(dataset).__name__}.")
        return dataset

    def flat_map(self, func):
        """The datasets ``func`` makes from each row (given as NumPy arrays), concatenated in row order."""
        if not callable(func):
            raise TypeError(f"func must be a function, but got {type(func).__name__}.")
        result = None
        for row in self.create_tuple_iterator(num_epochs=1, output_numpy=True):
            part = func(row[0] if len(row) == 1 else row)
            if not isinstance(part, Dataset):
                raise TypeError(f"flat_map: func must return a dataset, but got {type(part).__name__}.")
            result = part if result is None else result.concat(part)
        if result is None:
            raise RuntimeError("flat_map: the dataset has no rows to map.")
        return result

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                               drop_remainder=False):
        """Batch rows of similar length together (buckets split at ``bucket_boundaries``)."""
        from .batching import BucketBatchByLengthDataset

        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                          element_length_function, pad_info, pad_to_bucket_boundary,
                                          drop_remainder)

    # ------------------------------------------------------------------ iterating
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator of rows as lists of Tensors (NumPy arrays with ``output_numpy=True``).

        ``num_epochs`` is how many times it may be run through (-1: without limit); strings
        and bytes come as NumPy arrays, as in MindSpore.
        """
        from .iterators import TupleIterator

        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator of rows as ``{column name: Tensor}`` dicts."""
        from .iterators import DictIterator

        return DictIterator(self, None, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    # ------------------------------------------------------------------ getters
    def get_col_names(self):
        """The column names."""
        return list(self._column_names())

    def get_dataset_size(self):
        """Rows (or batches) in one epoch; pipelines whose size depends on the data are run to count them."""
        size = self._rows_per_epoch()
        if size is not None:
            return int(size)
        if self._known_size is None:
            from .randomness import Run

            run = Run(self)
            self._known_size = sum(block.size for block in self._blocks(run))
        return self._known_size

    def _first_row(self):
        from .randomness import Run

        run = Run(self)
        for block in self._blocks(run):
            if block.size:
                return block.row(0)
        raise RuntimeError("The dataset is empty: output_shapes and output_types need at least one row.")

    def output_shapes(self, estimate=False):
        """The shape of each column in the first row (a list per column)."""
        return [list(value.shape) for value in self._first_row()]

    def output_types(self):
        """The NumPy dtype of each column in the first row."""
        return [np.dtype(value.dtype.kind + "") if value.dtype.kind in "US" else value.dtype
                for value in self._first_row()]

    def get_batch_size(self):
        """The batch size of the nearest ``batch`` below (1 when there is none)."""
        node = self
        while node is not None:
            size = getattr(node, "_batch_size_for_getter", None)
            if size is not None:
                return size
            node = node.children[0] if node.children else None
        return 1

    def get_repeat_count(self):
        """The count of the nearest ``repeat`` below (1 when there is none)."""
        node = self
        while node is not None:
            count = getattr(node, "_repeat_count_for_getter", None)
            if count is not None:
                return count
            node = node.children[0] if node.children else None
        return 1

    def get_class_indexing(self):
        """The class name to label map of the source (``{}`` when it has none)."""
        node = self
        while node.children:
            node = node.children[0]
        return dict(node._class_indexing()) if hasattr(node, "_class_indexing") else {}

    def num_classes(self):
        """The number of classes of the source, or None."""
        indexing = self.get_class_indexing()
        return len(indexing) if indexing else None

    def reset(self):
        """Forget what was counted (``get_dataset_size`` of data-dependent pipelines is counted again)."""
        self._known_size = None

    def is_shuffled(self):
        return any(child.is_shuffled() for child in self.children)

    def is_sharded(self):
        return any(child.is_sharded() for child in self.children)

    def save(self, file_name, num_files=1, file_type="mindrecord"):
        """Write every row to MindRecord files (``file_name`` and its ``.db`` index), as MindSpore's ``save``."""
        from .saving import save_dataset

        save_dataset(self, file_name, num_files, file_type)

    def device_que(self, send_epoch_end=True, create_data_info_queue=False, queue_name=""):
        raise RuntimeError("device_que: cellkit has no device queue; iterate the dataset instead "
                           "(Model.train accepts dataset_sink_mode=True and iterates it).")

    def __deepcopy__(self, memo):
        # A deep copy copies the tree, not the data a source has read (split copies pipelines).
        clone = copy.copy(self)
        memo[id(self)] = clone
        clone.children = [copy.deepcopy(c, memo) for c in self.children]
        for name in getattr(self, "_deepcopy_fields", ()):
            setattr(clone, name, copy.deepcopy(getattr(self, name), memo))
        return clone

    def __repr__(self):
        return f"<{type(self).__name__} columns={self._safe_names()}>"

    def _safe_names(self):
        try:
            return self._column_names()
        except Exception:  # noqa: BLE001 -- a repr must not raise
            return "?"


def signature_arity(function):
    """How many positional parameters ``function`` takes (None when it cannot be read)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return None
    return sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def empty_block(ncols):
    return Block([[] for _ in range(ncols)], 0)
