"""Transforms made of transforms: ``Compose``, ``RandomApply``, ``RandomChoice``, ``RandomOrder``.

Their parts may be cellkit transforms or Python functions.  Inside a pipeline the composite
works on whole blocks where its parts can: ``RandomApply`` draws one decision per row and runs
its parts once on the rows that drew yes, ``RandomChoice`` once per chosen part.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.dataset import transforms
>>> transforms.Compose([transforms.TypeCast(ms.float32), lambda x: x / 2])(np.array([1, 2]))
array([0.5, 1. ], dtype=float32)
"""
from __future__ import annotations

import numbers

import numpy as np

from ..engine.columns import Block
from ..engine.randomness import generator
from .base import TensorOperation, as_array, is_pil

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder", "chain"]


def _check_transforms(transforms, name="transforms"):
    if not isinstance(transforms, list):
        raise TypeError(f"Argument {name} with value {transforms!r} is not of type [<class 'list'>], "
                        f"but got {type(transforms)}.")
    if not transforms:
        raise ValueError(f"{name} list can not be empty.")
    for k, op in enumerate(transforms):
        if not callable(op):
            raise TypeError(f"{name}[{k}] is not callable: {op!r}.")
    return list(transforms)


def _deterministic(op):
    return bool(getattr(op, "_deterministic", False) or getattr(op, "is_not_random", False))


def _call(op, values):
    """One operation on one row's values; the results as a tuple."""
    fn = getattr(op, "_apply_row", None)
    if fn is None:
        values = tuple(v if isinstance(v, np.ndarray) or is_pil(v) else as_array(v) for v in values)
        fn = op
    result = fn(*values)
    return result if isinstance(result, tuple) else (result,)


def chain(operations, values):
    """``operations`` applied in turn to one row's values (a tuple in, a tuple out)."""
    for op in operations:
        values = _call(op, values)
        values = tuple(v if isinstance(v, np.ndarray) or is_pil(v) else as_array(v) for v in values)
    return values


def _unwrap(values):
    return values[0] if len(values) == 1 else values


class _Composite(TensorOperation):
    def __init__(self, transforms):
        self.transforms = _check_transforms(transforms)

    def __call__(self, *inputs):
        values = tuple(x if is_pil(x) else as_array(x) for x in inputs)
        return _unwrap(self._row(values))

    def _apply_row(self, *values):
        return _unwrap(self._row(values))

    def _row(self, values):
        raise NotImplementedError


class Compose(_Composite):
    """The transforms applied one after another (one operation for ``map``)."""

    def __init__(self, transforms):
        super().__init__(transforms)
        self._deterministic = all(_deterministic(op) for op in self.transforms)

    def _row(self, values):
        return chain(self.transforms, values)

    def _apply_block(self, columns):
        from ..engine.transforming import run_operations

        return run_operations(self.transforms, list(columns), len(columns[0]), "Compose")

    @staticmethod
    def reduce(operations):
        """Consecutive Python functions of a list wrapped together (MindSpore's helper); cellkit runs them as given."""
        return list(operations)


def _check_prob(prob):
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
        raise TypeError(f"Argument prob with value {prob!r} is not of type [<class 'float'>, <class 'int'>], "
                        f"but got {type(prob)}.")
    if not 0.0 <= prob <= 1.0:
        raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
    return float(prob)


class RandomApply(_Composite):
    """All the transforms, in order, with probability ``prob`` (per row); otherwise none."""

    _deterministic = False

    def __init__(self, transforms, prob=0.5):
        super().__init__(transforms)
        self.prob = _check_prob(prob)

    def _row(self, values):
        if generator().random() < self.prob:
            return chain(self.transforms, values)
        return values

    def _apply_block(self, columns):
        from ..engine.transforming import run_operations

        size = len(columns[0])
        chosen = np.flatnonzero(generator().random(size) < self.prob)
        if len(chosen) == 0:
            return list(columns)
        if len(chosen) == size:
            return run_operations(self.transforms, list(columns), size, "RandomApply")
        part = Block(list(columns), size).take(chosen)
        done = run_operations(self.transforms, part.columns, part.size, "RandomApply")
        return _merge(columns, chosen, done)


def _merge(columns, chosen, done):
    """Columns whose rows at ``chosen`` are replaced by ``done`` (kept dense when everything agrees)."""
    merged = []
    for original, new in zip(columns, done):
        if isinstance(new, np.ndarray) and new.shape[1:] == original.shape[1:] and new.dtype == original.dtype:
            out = original.copy()
            out[chosen] = new
            merged.append(out)
        else:
            rows = list(original)
            for k, i in enumerate(chosen):
                rows[i] = new[k]
            merged.append(rows)
    return merged


class RandomChoice(_Composite):
    """One of the transforms, chosen uniformly at random for each row."""

    _deterministic = False

    def _row(self, values):
        k = int(generator().random() * len(self.transforms))
        return _call(self.transforms[k], values)

    def _apply_block(self, columns):
        from ..engine.transforming import run_operations

        size = len(columns[0])
        picks = (generator().random(size) * len(self.transforms)).astype(np.int64)
        results = [None] * size
        for k in np.unique(picks):
            rows = np.flatnonzero(picks == k)
            part = Block(list(columns), size).take(rows)
            done = run_operations([self.transforms[k]], part.columns, part.size, "RandomChoice")
            values = list(zip(*[list(c) for c in done]))
            for i, v in zip(rows, values):
                results[i] = v
        from ..engine.columns import pack_rows

        width = len(results[0])
        return [pack_rows([r[j] for r in results]) if all(isinstance(r[j], np.ndarray) for r in results)
                else [r[j] for r in results] for j in range(width)]


class RandomOrder(_Composite):
    """All the transforms, in an order drawn at random for each row."""

    _deterministic = False

    def _row(self, values):
        order = generator().permutation(len(self.transforms))
        return chain([self.transforms[k] for k in order], values)

