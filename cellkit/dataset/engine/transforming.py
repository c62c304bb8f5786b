"""``map`` and ``filter``: stages that run user code or transforms on every row.

A transform of cellkit (:class:`cellkit.dataset.transforms.TensorOperation`) may work on a whole
block at once (``_apply_block``), which is where the pipeline gets its speed: ``Rescale``,
``Normalize``, ``HWC2CHW``, ``TypeCast``, flips and crops run as one NumPy call per block.  A
Python function, or a transform given rows of different shapes, runs row by row.

When a map's first operations are deterministic transforms and its rows come straight from a
file reader (MNIST, CIFAR, an image folder, MindRecord), their results are kept per source row
(up to :data:`CACHE_BYTES`), so later epochs skip decoding and resizing.
"""
from __future__ import annotations

import numpy as np

from . import checks
from .columns import Block, column_rows, pack_rows
from .dataset import Dataset
from .randomness import using
from .values import to_array

__all__ = ["MapDataset", "FilterDataset", "run_operations", "CACHE_BYTES"]

CACHE_BYTES = 1 << 30  # results kept per map for later epochs


def _op_name(op):
    return getattr(op, "__name__", None) or type(op).__name__


def _is_pil(value):
    return type(value).__module__.startswith("PIL.")


def _normalise(value, where):
    """A value passed between operations: arrays and PIL images as they are, the rest as arrays."""
    if isinstance(value, np.ndarray) or _is_pil(value):
        return value
    return to_array(value, where)


def _pack(values):
    if all(isinstance(v, np.ndarray) for v in values):
        return pack_rows(values)
    return list(values)


def run_operations(operations, columns, size, where="map"):
    """Apply ``operations`` in turn to ``columns`` (each dense or a list of row values)."""
    for op in operations:
        block_fn = getattr(op, "_apply_block", None)
        if block_fn is not None and columns and all(isinstance(c, np.ndarray) for c in columns):
            try:
                out = block_fn(columns)
            except Exception as exc:  # noqa: BLE001 -- reported as the pipeline's RuntimeError
                raise _failure(op, exc, where) from exc
            if out is not None:
                columns = out
                continue
        row_fn = getattr(op, "_apply_row", op)
        results = []
        try:
            for values in zip(*[column_rows(c) for c in columns]):
                result = row_fn(*values)
                results.append(result if isinstance(result, tuple) else (result,))
        except Exception as exc:  # noqa: BLE001
            raise _failure(op, exc, where) from exc
        if not results:
            return columns
        width = len(results[0])
        if any(len(r) != width for r in results):
            raise RuntimeError(f"{where}: the operation {_op_name(op)} returned a different number of values "
                               "for different rows")
        columns = [_pack([_normalise(r[k], where) for r in results]) for k in range(width)]
    return columns


def _failure(op, exc, where):
    if isinstance(exc, RuntimeError):
        return exc
    return RuntimeError(f"{where}: the operation {_op_name(op)} failed: {type(exc).__name__}: {exc}")


def _final_columns(columns, where):
    """Columns as the pipeline stores them: every value a NumPy array."""
    out = []
    for col in columns:
        if isinstance(col, np.ndarray):
            out.append(col)
            continue
        values = []
        for v in col:
            if _is_pil(v):
                raise RuntimeError(f"{where}: a column value is a PIL image; end the operations with "
                                   "vision.ToTensor() or numpy conversion (MindSpore cannot store PIL images either)")
            values.append(v if isinstance(v, np.ndarray) else to_array(v, where))
        out.append(pack_rows(values))
    return out


def output_layout(child_names, input_columns, output_columns):
    """The columns after a map: a list of ``(name, ("child", position) | ("out", k))``."""
    layout = []
    if len(input_columns) == len(output_columns):
        for position, name in enumerate(child_names):
            if name in input_columns:
                k = input_columns.index(name)
                layout.append((output_columns[k], ("out", k)))
            elif name not in output_columns:
                layout.append((name, ("child", position)))
        return layout
    layout = [(name, ("out", k)) for k, name in enumerate(output_columns)]
    for position, name in enumerate(child_names):
        if name not in input_columns and name not in output_columns:
            layout.append((name, ("child", position)))
    return layout


class MapDataset(Dataset):
    """The result of :meth:`Dataset.map`."""

    def __init__(self, child, operations, input_columns, output_columns, num_parallel_workers,
                 python_multiprocessing, cache, callbacks, max_rowsize, offload, extra):
        super().__init__(child, num_parallel_workers)
        if extra:
            name = next(iter(extra))
            raise TypeError(f"MapDataset.__init__() got an unexpected keyword argument '{name}'")
        if not isinstance(operations, list):
            operations = [operations]
        for op in operations:
            if not callable(op):
                raise ValueError("Parameter operations's element of method map should be a python function or "
                                 f"class method which should be callable, but got: {op}. It doesn't need "
                                 "parentheses for python function or class method.")
        self.operations = operations
        self.input_columns = checks.column_list(input_columns, "input_columns")
        self.output_columns = checks.column_list(output_columns, "output_columns")
        checks.check_bool(python_multiprocessing, "python_multiprocessing")
        self.python_multiprocessing = python_multiprocessing
        self.callbacks = callbacks
        self._cache = {}
        self._cache_bytes = 0
        self._random = any(not getattr(op, "_deterministic", False) for op in operations)

    # -- structure
    def _inputs(self):
        names = self.children[0]._column_names()
        wanted = self.input_columns or names[:1]
        for name in wanted:
            if name not in names:
                raise RuntimeError(f"Invalid parameter, input column name: {name} doesn't exist in the dataset "
                                   f"columns {names}.")
        return names, wanted

    def _layout(self):
        names, wanted = self._inputs()
        outputs = self.output_columns or wanted
        return output_layout(names, wanted, outputs), len(outputs)

    def _column_names(self):
        return [name for name, _ in self._layout()[0]]

    # -- running
    def _cached_prefix(self):
        """How many leading operations may be cached per source row."""
        count = 0
        for op in self.operations:
            if not getattr(op, "_deterministic", False) or not getattr(op, "_cacheable", True):
                break
            count += 1
        return count

    def _blocks(self, run):
        child = self.children[0]
        names, wanted = self._inputs()
        positions = [names.index(n) for n in wanted]
        layout, n_out = self._layout()
        rng = run.generator(self) if self._random else None
        prefix = self._cached_prefix() if child._stable_rows() else 0
        where = f"map (input columns {wanted})"
        for block in child._blocks(run):
            inputs = [block.columns[p] for p in positions]
            with using(rng):
                if prefix and block.ids is not None:
                    inputs = self._through_cache(inputs, block, prefix, where)
                    outputs = run_operations(self.operations[prefix:], inputs, block.size, where)
                else:
                    outputs = run_operations(self.operations, inputs, block.size, where)
            if block.size and len(outputs) != n_out:
                raise RuntimeError("Invalid columns, the number of columns returned in 'map' operations should "
                                   "match the number of 'output_columns', but got the number of columns returned "
                                   f"in 'map' operations: {len(outputs)}, the number of 'output_columns': {n_out}.")
            if not block.size:
                outputs = [[] for _ in range(n_out)]
            outputs = _final_columns(outputs, where)
            columns = [outputs[ref] if kind == "out" else block.columns[ref] for _, (kind, ref) in layout]
            yield Block(columns, block.size, block.ids)

    def _through_cache(self, inputs, block, prefix, where):
        """Results of the first ``prefix`` operations, from the cache where it has them."""
        ids = block.ids.tolist()
        missing = [i for i, key in enumerate(ids) if key not in self._cache]
        if missing:
            part = Block(inputs, block.size).take(missing)
            computed = run_operations(self.operations[:prefix], part.columns, part.size, where)
            computed = _final_columns(computed, where)
            rows = list(zip(*[column_rows(c) for c in computed]))
            for i, values in zip(missing, rows):
                if self._cache_bytes >= CACHE_BYTES:
                    break
                frozen = tuple(np.array(v) for v in values)
                for v in frozen:
                    v.flags.writeable = False
                self._cache[ids[i]] = frozen
                self._cache_bytes += sum(v.nbytes for v in frozen)
            if len(missing) == block.size and not all(k in self._cache for k in ids):
                return computed
            fresh = dict(zip(missing, rows))
        else:
            fresh = {}
        rows = [fresh[i] if i in fresh else self._cache[key] for i, key in enumerate(ids)]
        width = len(rows[0]) if rows else 0
        return [pack_rows([r[k] for r in rows]) for k in range(width)]


class FilterDataset(Dataset):
    """The result of :meth:`Dataset.filter`."""

    def __init__(self, child, predicate, input_columns, num_parallel_workers):
        super().__init__(child, num_parallel_workers)
        if not callable(predicate):
            raise TypeError(f"Argument predicate with value {predicate!r} is not callable.")
        self.predicate = predicate
        self.input_columns = checks.column_list(input_columns, "input_columns")

    def _rows_per_epoch(self):
        return None  # depends on the data

    def _blocks(self, run):
        names = self.children[0]._column_names()
        wanted = self.input_columns or names
        for name in wanted:
            if name not in names:
                raise RuntimeError(f"Invalid parameter, input column name: {name} doesn't exist in the dataset "
                                   f"columns {names}.")
        positions = [names.index(n) for n in wanted]
        for block in self.children[0]._blocks(run):
            keep = []
            rows = zip(*[column_rows(block.columns[p]) for p in positions])
            for i, values in enumerate(rows):
                try:
                    verdict = self.predicate(*values)
                except Exception as exc:  # noqa: BLE001
                    raise RuntimeError(f"filter: the predicate failed: {type(exc).__name__}: {exc}") from exc
                if bool(np.asarray(verdict)):
                    keep.append(i)
            if len(keep) == block.size:
                yield block
            elif keep:
                yield block.take(keep)
