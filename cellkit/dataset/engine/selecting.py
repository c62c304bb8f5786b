"""Stages that choose rows or columns: ``repeat``, ``take``, ``skip``, ``project``, ``rename``."""
from __future__ import annotations

from . import checks
from .dataset import Dataset

__all__ = ["RepeatDataset", "TakeDataset", "SkipDataset", "ProjectDataset", "RenameDataset"]


class RepeatDataset(Dataset):
    """The result of :meth:`Dataset.repeat`: the child's rows ``count`` times (a new pass each time)."""

    def __init__(self, child, count):
        super().__init__(child)
        if count is None:
            count = -1
        checks.check_type(count, (int,), "count")
        if count != -1 and not 0 < count <= checks.INT32_MAX:
            raise ValueError(f"count should be either -1 or positive integer, range[1, INT32_MAX], but got {count}.")
        self.count = count
        self._repeat_count_for_getter = count

    def _rows_per_epoch(self):
        rows = self.children[0]._rows_per_epoch()
        if rows is None:
            return None
        return rows if self.count == -1 else rows * self.count

    def _blocks(self, run):
        done = 0
        while self.count == -1 or done < self.count:
            produced = 0
            for block in self.children[0]._blocks(run):
                produced += block.size
                yield block
            done += 1
            if produced == 0:  # an empty child would repeat forever
                return


class TakeDataset(Dataset):
    """The result of :meth:`Dataset.take`."""

    def __init__(self, child, count):
        super().__init__(child)
        checks.check_count(count, "count")
        self.count = count

    def _rows_per_epoch(self):
        rows = self.children[0]._rows_per_epoch()
        if self.count == -1 or rows is None:
            return rows
        return min(rows, self.count)

    def _blocks(self, run):
        if self.count == -1:
            yield from self.children[0]._blocks(run)
            return
        left = self.count
        blocks = self.children[0]._blocks(run)
        try:
            for block in blocks:
                if block.size >= left:
                    yield block.slice(0, left)
                    return
                left -= block.size
                yield block
        finally:
            blocks.close()


class SkipDataset(Dataset):
    """The result of :meth:`Dataset.skip`."""

    def __init__(self, child, count):
        super().__init__(child)
        checks.check_type(count, (int,), "count")
        if not 0 <= count <= checks.INT32_MAX:
            raise ValueError(f"Input count is not within the required interval of [0, {checks.INT32_MAX}], "
                             f"but got {count}.")
        self.count = count

    def _rows_per_epoch(self):
        rows = self.children[0]._rows_per_epoch()
        return None if rows is None else max(0, rows - self.count)

    def _blocks(self, run):
        left = self.count
        for block in self.children[0]._blocks(run):
            if left >= block.size:
                left -= block.size
                continue
            if left:
                block = block.slice(left, block.size)
                left = 0
            yield block


def _missing_column(name, names, what):
    return RuntimeError(f"Invalid column, {what}: {name} does not exist in the dataset columns {names}.")


class ProjectDataset(Dataset):
    """The result of :meth:`Dataset.project`."""

    def __init__(self, child, columns):
        super().__init__(child)
        self.columns = checks.column_list(columns, "columns", allow_none=False)

    def _positions(self):
        names = self.children[0]._column_names()
        for name in self.columns:
            if name not in names:
                raise _missing_column(name, names, "column name")
        return [names.index(n) for n in self.columns]

    def _column_names(self):
        self._positions()
        return list(self.columns)

    def _blocks(self, run):
        positions = self._positions()
        for block in self.children[0]._blocks(run):
            yield block.select(positions)


class RenameDataset(Dataset):
    """The result of :meth:`Dataset.rename`."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__(child)
        self.input_columns = checks.column_list(input_columns, "input_columns", allow_none=False)
        self.output_columns = checks.column_list(output_columns, "output_columns", allow_none=False)
        if len(self.input_columns) != len(self.output_columns):
            raise ValueError(f"Number of column in input_columns and output_columns is not equal: "
                             f"{len(self.input_columns)} and {len(self.output_columns)}.")

    def _column_names(self):
        names = self.children[0]._column_names()
        for name in self.input_columns:
            if name not in names:
                raise _missing_column(name, names, "column to be renamed")
        mapping = dict(zip(self.input_columns, self.output_columns))
        renamed = [mapping.get(n, n) for n in names]
        duplicates = sorted({n for n in renamed if renamed.count(n) > 1})
        if duplicates:
            raise RuntimeError(f"Invalid column, rename gives duplicate column names {duplicates}.")
        return renamed

    def _blocks(self, run):
        self._column_names()
        yield from self.children[0]._blocks(run)

