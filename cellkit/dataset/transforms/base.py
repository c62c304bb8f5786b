"""The base of every transform: called directly on arrays, or run by ``map`` on rows and blocks.

A transform computes on NumPy arrays (``_compute``).  Called directly (``op(image)``) it takes
NumPy arrays, lists, Tensors or PIL images and returns NumPy arrays (a tuple when it has several
outputs), as MindSpore's transforms do; given a PIL image, a transform that has a Pillow
implementation (``_compute_pil``) uses it and returns a PIL image, as MindSpore's do.

Inside a pipeline, ``map`` gives a transform whole blocks of rows (``_apply_block``): when its
rows are stacked in one array and the transform declares how many dimensions a row has
(``_row_rank``), ``_compute_batch`` runs once for all of them -- the same numbers as row by row,
much faster.  Random transforms draw from :func:`cellkit.dataset.engine.randomness.generator`,
so pipelines are reproducible under the dataset seed.
"""
from __future__ import annotations

import numpy as np

__all__ = ["TensorOperation", "PyTensorOperation", "is_pil", "as_array", "not_random"]


def is_pil(value):
    return type(value).__module__.startswith("PIL.")


def as_array(value, what="input"):
    """An eager input as a NumPy array (Tensors, lists and PIL images converted)."""
    if isinstance(value, np.ndarray):
        return value
    asnumpy = getattr(value, "asnumpy", None)
    if callable(asnumpy):
        return np.asarray(asnumpy())
    if isinstance(value, (list, tuple, int, float, bool, str, bytes, np.generic)) or is_pil(value):
        try:
            array = np.asarray(value)
        except ValueError as exc:
            raise TypeError(f"Invalid user input. Got {type(value)}: {value!r:.60}, cannot be converted into "
                            f"tensor ({exc}).") from None
        if array.dtype.kind != "O":
            return array
    raise TypeError(f"Invalid user input. Got {type(value)}: {value!r:.60}, cannot be converted into tensor.")


def not_random(function):
    """Mark a Python function used in ``map`` as deterministic (its results may then be cached).

    >>> @not_random
    ... def double(x):
    ...     return x * 2
    >>> double.is_not_random
    True
    """
    function.is_not_random = True
    return function


class TensorOperation:
    """Base of cellkit's transforms (MindSpore's ``TensorOperation``)."""

    _deterministic = True   # False for transforms that draw random numbers
    _row_rank = None        # dimensions of one row that _compute_batch accepts (None: no block path)

    def __call__(self, *inputs):
        if len(inputs) == 1 and is_pil(inputs[0]) and hasattr(self, "_compute_pil"):
            return self._compute_pil(inputs[0])
        arrays = [self._eager_input(x) for x in inputs]
        return self._compute(*arrays)

    def _eager_input(self, value):
        return as_array(value)

    # -- what map calls
    def _apply_row(self, *values):
        if len(values) == 1 and is_pil(values[0]):
            if hasattr(self, "_compute_pil"):
                return self._compute_pil(values[0])
            values = (np.asarray(values[0]),)
        return self._compute(*values)

    def _apply_block(self, columns):
        if self._row_rank is None or len(columns) != 1:
            return None
        column = columns[0]
        if column.ndim != self._row_rank + 1 or not self._block_ok(column):
            return None
        out = self._compute_batch(column)
        if out is None:
            return None
        return list(out) if isinstance(out, tuple) else [out]

    def _block_ok(self, column):
        return True

    # -- what a transform defines
    def _compute(self, *arrays):
        raise NotImplementedError

    def _compute_batch(self, stacked):
        return None

    def __repr__(self):
        return f"{type(self).__name__}()"


class PyTensorOperation(TensorOperation):
    """Base of the transforms MindSpore runs in Python (on PIL images or NumPy arrays)."""
