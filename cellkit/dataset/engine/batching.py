"""``batch``, ``padded_batch`` and ``bucket_batch_by_length``: stacking rows into batches.

Every output row is one batch: each column becomes an array with the batch along its first axis.
Rows already stored as one dense array become batches by slicing (and a reshape when several
whole batches sit in one block), without copying row by row.
"""
from __future__ import annotations

import numpy as np

from . import checks
from .columns import Block, column_rows
from .dataset import Dataset, signature_arity
from .transforming import output_layout
from .values import to_array

__all__ = ["BatchInfo", "BatchDataset", "PaddedBatchDataset", "BucketBatchByLengthDataset", "stack_rows"]


class BatchInfo:
    """What a callable ``batch_size`` or a ``per_batch_map`` learns about the batch being made.

    >>> info = BatchInfo(3, 1)
    >>> info.get_batch_num(), info.get_epoch_num()
    (3, 1)
    """

    def __init__(self, batch_num, epoch_num):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self):
        """The index of this batch within the epoch (from 0)."""
        return self._batch_num

    def get_epoch_num(self):
        """The index of the epoch (from 0)."""
        return self._epoch_num


def stack_rows(rows, column_index):
    """Per-row arrays of one column stacked into a batch; RuntimeError when shapes differ."""
    first = rows[0]
    for r in rows[1:]:
        if r.shape != first.shape:
            raise RuntimeError(f"Cannot batch tensors with different shapes in column {column_index}. First element "
                               f"had shape <{_shape_text(first.shape)}> and this element had shape "
                               f"<{_shape_text(r.shape)}>")
    if first.dtype.kind in "US":
        return np.stack([np.asarray(r) for r in rows])
    dtypes = {r.dtype for r in rows}
    if len(dtypes) > 1:
        raise RuntimeError(f"Cannot batch tensors with different types in column {column_index}: "
                           f"{sorted(str(d) for d in dtypes)}")
    return np.stack(rows)


def _shape_text(shape):
    return ",".join(str(d) for d in shape)


class _Rows:
    """A queue of blocks from which batches of any size are cut."""

    def __init__(self, blocks):
        self._blocks = iter(blocks)
        self._pending = []   # blocks not yet fully used; the first one from _offset
        self._offset = 0
        self._count = 0
        self._ended = False

    def _fill(self, wanted):
        while self._count < wanted and not self._ended:
            try:
                block = next(self._blocks)
            except StopIteration:
                self._ended = True
                break
            if block.size:
                self._pending.append(block)
                self._count += block.size

    def cut(self, size):
        """The next ``size`` rows (fewer at the end of the epoch; None when there are none)."""
        self._fill(size)
        if self._count == 0:
            return None
        parts, need = [], min(size, self._count)
        while need:
            block = self._pending[0]
            available = block.size - self._offset
            take = min(available, need)
            parts.append(block.slice(self._offset, self._offset + take))
            need -= take
            self._count -= take
            if take == available:
                self._pending.pop(0)
                self._offset = 0
            else:
                self._offset += take
        return Block.concat(parts)

    def whole_batches(self, size):
        """When the next rows sit in one dense block, as many whole batches of them as it holds."""
        self._fill(size)
        if not self._pending:
            return None
        block = self._pending[0]
        available = block.size - self._offset
        k = available // size
        if k < 2 or not all(isinstance(c, np.ndarray) for c in block.columns):
            return None
        part = block.slice(self._offset, self._offset + k * size)
        self._offset += k * size
        self._count -= k * size
        if self._offset == block.size:
            self._pending.pop(0)
            self._offset = 0
        return Block([c.reshape((k, size) + c.shape[1:]) for c in part.columns], k)


class BatchDataset(Dataset):
    """The result of :meth:`Dataset.batch`."""

    _padding = None  # PaddedBatchDataset sets {column: (shape, value)} (or "all")

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, extra):
        super().__init__(child, num_parallel_workers)
        allowed = {"per_batch_map", "input_columns", "output_columns", "python_multiprocessing", "max_rowsize"}
        for name in extra:
            if name not in allowed:
                raise TypeError(f"BatchDataset.__init__() got an unexpected keyword argument '{name}'")
        self._check_size(batch_size)
        checks.check_bool(drop_remainder, "drop_remainder")
        self.batch_size = batch_size
        self.drop_remainder = drop_remainder
        self.per_batch_map = extra.get("per_batch_map")
        self.input_columns = checks.column_list(extra.get("input_columns"), "input_columns")
        self.output_columns = checks.column_list(extra.get("output_columns"), "output_columns")
        if extra.get("python_multiprocessing") is not None:
            checks.check_bool(extra["python_multiprocessing"], "python_multiprocessing")
        if self.input_columns is not None and self.per_batch_map is None:
            raise ValueError("input_columns can be specified only when per_batch_map is set.")
        if self.per_batch_map is not None and not callable(self.per_batch_map):
            raise TypeError(f"per_batch_map should be callable, but got {type(self.per_batch_map).__name__}.")
        if self.input_columns is not None:
            arity = signature_arity(self.per_batch_map)
            if arity is not None and arity != len(self.input_columns) + 1:
                raise ValueError("The signature of per_batch_map should match with input columns.")
        self._batch_size_for_getter = batch_size if isinstance(batch_size, int) else None

    @staticmethod
    def _check_size(batch_size):
        if isinstance(batch_size, bool) or not (isinstance(batch_size, int) or callable(batch_size)):
            raise TypeError("batch_size should either be an int or a callable.")
        if callable(batch_size):
            if signature_arity(batch_size) not in (1, None):
                raise ValueError("callable batch_size should take one parameter (BatchInfo).")
        else:
            checks.check_positive_int32(batch_size, "batch_size")

    # -- structure
    def _layout(self):
        names = self.children[0]._column_names()
        if self.per_batch_map is None:
            return [(n, ("child", k)) for k, n in enumerate(names)], names
        wanted = self.input_columns or names
        for name in wanted:
            if name not in names:
                raise RuntimeError(f"Invalid parameter, input column name: {name} doesn't exist in the dataset "
                                   f"columns {names}.")
        return output_layout(names, wanted, self.output_columns or wanted), wanted

    def _column_names(self):
        return [name for name, _ in self._layout()[0]]

    def _rows_per_epoch(self):
        if callable(self.batch_size):
            return None
        rows = self.children[0]._rows_per_epoch()
        if rows is None:
            return None
        return rows // self.batch_size if self.drop_remainder else -(-rows // self.batch_size)

    # -- running
    def _blocks(self, run):
        epoch = getattr(run, "epoch", 0)
        source = _Rows(self.children[0]._blocks(run))
        batch_num = 0
        fixed = self.batch_size if isinstance(self.batch_size, int) else None
        simple = self.per_batch_map is None and self._padding is None and fixed is not None
        while True:
            if simple:
                many = source.whole_batches(fixed)
                if many is not None:
                    batch_num += many.size
                    yield many
                    continue
            size = fixed if fixed is not None else self._size_for(batch_num, epoch)
            rows = source.cut(size)
            if rows is None or (rows.size < size and self.drop_remainder):
                return
            yield self._make_batch(rows, batch_num, epoch)
            batch_num += 1

    def _size_for(self, batch_num, epoch):
        try:
            size = self.batch_size(BatchInfo(batch_num, epoch))
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(f"batch: the batch_size function failed: {type(exc).__name__}: {exc}") from exc
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
            raise RuntimeError(f"batch: the batch_size function must return a positive int, but returned {size!r}")
        return int(size)

    def _make_batch(self, rows, batch_num, epoch):
        columns = rows.columns
        if self.per_batch_map is not None:
            columns = self._apply_per_batch_map(columns, batch_num, epoch)
        batched = []
        for k, col in enumerate(columns):
            if isinstance(col, np.ndarray) and self._padding is None:
                batched.append(col[None])
            else:
                batched.append(self._stack(column_rows(col), k)[None])
        return Block(batched, 1)

    def _stack(self, rows, k):
        return stack_rows(rows, k)

    def _apply_per_batch_map(self, columns, batch_num, epoch):
        layout, wanted = self._layout()
        names = self.children[0]._column_names()
        inputs = [[np.asarray(v) for v in column_rows(columns[names.index(n)])] for n in wanted]
        try:
            result = self.per_batch_map(*inputs, BatchInfo(batch_num, epoch))
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(f"batch: per_batch_map failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(result, tuple):
            result = (result,)
        outputs = self.output_columns or wanted
        if len(result) != len(outputs):
            raise RuntimeError(f"batch: per_batch_map returned {len(result)} columns, but {len(outputs)} output "
                               f"columns {outputs} are expected.")
        produced = []
        for k, value in enumerate(result):
            if isinstance(value, np.ndarray):
                produced.append(value)   # already one array with the batch first
            elif isinstance(value, (list, tuple)):
                produced.append([to_array(v, "per_batch_map") for v in value])
            else:
                raise RuntimeError(f"batch: per_batch_map must return lists of arrays (one per row) or arrays, "
                                   f"but column {k} is a {type(value).__name__}")
        return [produced[ref] if kind == "out" else columns[ref] for _, (kind, ref) in layout]


class PaddedBatchDataset(BatchDataset):
    """The result of :meth:`Dataset.padded_batch`."""

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, pad_info):
        super().__init__(child, batch_size, drop_remainder, num_parallel_workers, {})
        self._padding = _check_pad_info(pad_info)

    def _stack(self, rows, k):
        name = self._column_names()[k]
        if self._padding == "all":
            shape, value = None, None
        elif name in self._padding:
            shape, value = self._padding[name]
        else:
            return stack_rows(rows, k)
        return pad_and_stack(rows, shape, value)

    def _blocks(self, run):
        if isinstance(self._padding, dict):
            names = self.children[0]._column_names()
            for name in self._padding:
                if name not in names:
                    raise RuntimeError(f"Invalid pad_info, column name: {name} doesn't exist in the dataset "
                                       f"columns {names}.")
        return super()._blocks(run)


def _check_pad_info(pad_info):
    if pad_info is None:
        return "all"
    if not isinstance(pad_info, dict):
        raise TypeError(f"Argument pad_info with value {pad_info!r} is not of type [<class 'dict'>], "
                        f"but got {type(pad_info)}.")
    checked = {}
    for name, spec in pad_info.items():
        if not isinstance(name, str):
            raise TypeError(f"pad_info: column names must be str, but got {name!r}.")
        if not isinstance(spec, tuple) or len(spec) != 2:
            raise TypeError(f"pad_info[{name!r}] should be a tuple of (pad_shape, pad_value), but got {spec!r}.")
        shape, value = spec
        if shape is not None:
            if not isinstance(shape, list):
                raise TypeError(f"pad_info[{name!r}]: pad_shape should be a list or None, but got {shape!r}.")
            for d in shape:
                if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d <= 0):
                    raise ValueError(f"pad_info[{name!r}]: pad_shape entries should be positive ints or None, "
                                     f"but got {shape!r}.")
        if value is not None and not isinstance(value, (int, float, str, bytes)):
            raise TypeError(f"pad_info[{name!r}]: pad_value should be a number or a str, but got {value!r}.")
        checked[name] = (shape, value)
    return checked


def pad_and_stack(rows, shape, value):
    """Rows padded (or cut) to ``shape`` (None entries: the batch's largest) and stacked."""
    rank = rows[0].ndim
    for r in rows:
        if r.ndim != rank:
            raise RuntimeError(f"padded_batch: rows of one column must have the same rank, but got shapes "
                               f"{rows[0].shape} and {r.shape}")
    largest = [max(r.shape[d] for r in rows) for d in range(rank)]
    if shape is None:
        target = largest
    else:
        if len(shape) != rank:
            raise RuntimeError(f"padded_batch: pad_shape {shape} does not have the rank {rank} of the rows")
        target = [largest[d] if s is None else s for d, s in enumerate(shape)]
    dtype = rows[0].dtype
    if dtype.kind in "US":
        dtype = np.result_type(*[r.dtype for r in rows])
        fill = "" if value is None else value
    else:
        fill = 0 if value is None else value
    out = np.full([len(rows)] + target, fill, dtype=dtype)
    for i, r in enumerate(rows):
        region = tuple(slice(0, min(r.shape[d], target[d])) for d in range(rank))
        out[(i,) + region] = r[region]
    return out


class BucketBatchByLengthDataset(Dataset):
    """The result of :meth:`Dataset.bucket_batch_by_length`."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function,
                 pad_info, pad_to_bucket_boundary, drop_remainder):
        super().__init__(child)
        self.length_columns = checks.column_list(column_names, "column_names", allow_none=False)
        if not isinstance(bucket_boundaries, list) or not bucket_boundaries:
            raise ValueError("bucket_boundaries should be a non-empty list of positive ints.")
        if any(isinstance(b, bool) or not isinstance(b, int) or b <= 0 for b in bucket_boundaries):
            raise ValueError(f"bucket_boundaries should hold positive ints, but got {bucket_boundaries}.")
        if any(b >= c for b, c in zip(bucket_boundaries, bucket_boundaries[1:])):
            raise ValueError(f"bucket_boundaries should be strictly increasing, but got {bucket_boundaries}.")
        if not isinstance(bucket_batch_sizes, list) or len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError("bucket_batch_sizes must contain one element more than bucket_boundaries.")
        if any(isinstance(b, bool) or not isinstance(b, int) or b <= 0 for b in bucket_batch_sizes):
            raise ValueError(f"bucket_batch_sizes should hold positive ints, but got {bucket_batch_sizes}.")
        if element_length_function is None and len(self.length_columns) != 1:
            raise ValueError("element_length_function is needed when more than one column is given.")
        self.boundaries = bucket_boundaries
        self.batch_sizes = bucket_batch_sizes
        self.length_function = element_length_function
        self.pad_info = _check_pad_info(pad_info) if pad_info is not None else {}
        self.pad_to_boundary = pad_to_bucket_boundary
        self.drop_remainder = drop_remainder

    def _rows_per_epoch(self):
        return None

    def _blocks(self, run):
        names = self.children[0]._column_names()
        positions = [names.index(n) for n in self.length_columns]
        buckets = [[] for _ in self.batch_sizes]
        for block in self.children[0]._blocks(run):
            for row in block.rows():
                values = [row[p] for p in positions]
                length = int(self.length_function(*values)) if self.length_function else values[0].shape[0]
                k = int(np.searchsorted(self.boundaries, length, side="right"))
                buckets[k].append(row)
                if len(buckets[k]) == self.batch_sizes[k]:
                    yield self._emit(buckets[k], k, names)
                    buckets[k] = []
        if not self.drop_remainder:
            for k, rows in enumerate(buckets):
                if rows:
                    yield self._emit(rows, k, names)

    def _emit(self, rows, k, names):
        columns = []
        for c, name in enumerate(names):
            values = [r[c] for r in rows]
            if name in self.pad_info:
                shape, value = self.pad_info[name]
                if shape is None and self.pad_to_boundary and k < len(self.boundaries):
                    shape = [self.boundaries[k] - 1] + [None] * (values[0].ndim - 1)
                columns.append(pad_and_stack(values, shape, value)[None])
            else:
                columns.append(stack_rows(values, c)[None])
        return Block(columns, 1)
