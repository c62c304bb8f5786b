"""A small in-memory dataset: slice NumPy arrays into shuffled batches, reproducibly.

``NumpySlicesDataset`` follows the shape of MindSpore's
``mindspore.dataset.NumpySlicesDataset(...).batch(n)`` for the part a
classroom needs: rows are sliced along the first axis, shuffled afresh every
epoch (the order is fixed by :func:`cellkit.set_seed`, or by ``seed``), and
iterating yields one list of Tensors per batch.  ``Model.train`` accepts it,
or any re-iterable of ``(data, label)`` batches.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.train import NumpySlicesDataset
>>> ms.set_seed(0)
>>> ds = NumpySlicesDataset((np.arange(5), np.arange(5) * 10), column_names=["x", "y"], shuffle=False).batch(2)
>>> ds.get_dataset_size(), ds.get_col_names()
(3, ['x', 'y'])
>>> [x.asnumpy().tolist() for x, y in ds]
[[0, 1], [2, 3], [4]]
"""
from __future__ import annotations

import numpy as np

from .. import seed as _seed
from ..tensor import Tensor

__all__ = ["NumpySlicesDataset"]


class NumpySlicesDataset:
    """Rows of NumPy arrays, optionally shuffled and batched.

    Parameters
    ----------
    data : tuple, list, dict or numpy.ndarray
        A tuple of arrays is several columns; a dict maps column names to
        arrays; a list or a single array is one column.  All columns must
        have the same number of rows.
    column_names : list of str, optional
        Defaults to the dict's keys, else ``column_0``, ``column_1`` ...
    shuffle : bool or None
        Shuffle the rows every epoch (``None``, as in MindSpore, means yes).
    seed : int, optional
        Seeds this dataset's own order; by default the order is drawn from
        cellkit's generator when the dataset is made, so ``ms.set_seed``
        fixes it.

    Raises
    ------
    TypeError
        If ``data`` is none of the accepted types.
    ValueError
        If the columns have different lengths or the names do not match them.
    """

    def __init__(self, data, column_names=None, shuffle=None, seed=None):
        if isinstance(data, dict):
            names = list(data) if column_names is None else list(column_names)
            columns = [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            columns = [np.asarray(v) for v in data]
            names = column_names
        elif isinstance(data, (list, np.ndarray)) or isinstance(data, Tensor):
            columns = [data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)]
            names = column_names
        else:
            raise TypeError(
                f"For 'NumpySlicesDataset', 'data' must be a tuple, list, dict or numpy array, but got {type(data).__name__}"
            )
        columns = [c.asnumpy() if isinstance(c, Tensor) else c for c in columns]
        if not columns or any(c.ndim == 0 for c in columns):
            raise ValueError("For 'NumpySlicesDataset', every column needs at least one axis to slice")
        lengths = {len(c) for c in columns}
        if len(lengths) != 1:
            raise ValueError(f"For 'NumpySlicesDataset', all columns must have the same number of rows, but got {sorted(lengths)}")
        if names is None:
            names = [f"column_{i}" for i in range(len(columns))]
        names = list(names)
        if len(names) != len(columns):
            raise ValueError(
                f"For 'NumpySlicesDataset', got {len(names)} column names for {len(columns)} columns"
            )
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"For 'NumpySlicesDataset', 'shuffle' must be a bool or None, but got {type(shuffle).__name__}")
        self._columns = columns
        self._names = names
        self._shuffle = shuffle is not False
        if seed is None:
            seed = int(_seed.generator().integers(2**63))
        self._rng = np.random.default_rng(seed)
        self._batch_size = None
        self._drop_remainder = False

    # ------------------------------------------------------------------ shape
    def batch(self, batch_size, drop_remainder=False):
        """A dataset yielding ``batch_size`` rows at a time (a new object; this one is unchanged).

        >>> import numpy as np
        >>> from cellkit.train import NumpySlicesDataset
        >>> len(NumpySlicesDataset(np.zeros((10, 3)), shuffle=False).batch(4, drop_remainder=True))
        2
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"For 'batch', 'batch_size' must be a positive int, but got {batch_size!r}")
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"For 'batch', 'drop_remainder' must be a bool, but got {type(drop_remainder).__name__}")
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._batch_size = batch_size
        twin._drop_remainder = drop_remainder
        return twin

    def get_dataset_size(self):
        """Batches per epoch (rows if not batched)."""
        rows = len(self._columns[0])
        if self._batch_size is None:
            return rows
        if self._drop_remainder:
            return rows // self._batch_size
        return -(-rows // self._batch_size)

    def __len__(self):
        return self.get_dataset_size()

    def get_col_names(self):
        """The column names."""
        return list(self._names)

    def get_batch_size(self):
        """Rows per batch (1 if not batched)."""
        return self._batch_size or 1

    # --------------------------------------------------------------- iterating
    def _row_batches(self):
        rows = len(self._columns[0])
        order = self._rng.permutation(rows) if self._shuffle else np.arange(rows)
        size = self._batch_size
        if size is None:
            for index in order:
                yield [c[index] for c in self._columns]
            return
        stop = rows - rows % size if self._drop_remainder else rows
        for start in range(0, stop, size):
            chosen = order[start:start + size]
            yield [c[chosen] for c in self._columns]

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """One epoch of rows (or batches), each a list of Tensors (NumPy arrays with ``output_numpy``)."""
        picks = self._pick(columns)
        for row in self._row_batches():
            values = [row[i] for i in picks]
            yield values if output_numpy else [Tensor(v) for v in values]

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """One epoch of ``{column name: Tensor}`` dicts."""
        for row in self.create_tuple_iterator(output_numpy=output_numpy):
            yield dict(zip(self._names, row))

    def __iter__(self):
        return self.create_tuple_iterator()

    def _pick(self, columns):
        if columns is None:
            return list(range(len(self._names)))
        missing = [c for c in columns if c not in self._names]
        if missing:
            raise ValueError(f"Unknown columns {missing}; the dataset has {self._names}")
        return [self._names.index(c) for c in columns]

    def __repr__(self):
        batch = f", batch_size={self._batch_size}" if self._batch_size else ""
        return (f"NumpySlicesDataset(columns={self._names}, rows={len(self._columns[0])}, "
                f"shuffle={self._shuffle}{batch})")
