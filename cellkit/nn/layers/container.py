"""Containers: SequentialCell (runs children in order), CellList and CellDict (hold them).

>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU())
>>> net
SequentialCell(
  (0): Dense(input_channels=2, output_channels=2, has_bias=True)
  (1): ReLU()
)
>>> [p.name for p in net.get_parameters()]
['0.weight', '0.bias']
"""
from __future__ import annotations

from collections import OrderedDict

from ..cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


def _check_cell(value, container):
    if not isinstance(value, Cell):
        raise TypeError(f"For '{container}', every item must be a Cell, but got {type(value).__name__}")
    return value


def _inherited_prefix(cells):
    """The name prefix the container's children already carry (``'layers.'`` once it joined a parent).

    Read from the first child that has a Parameter: its name is
    ``<prefix><key>.<path>``.  Empty when no child has a Parameter.
    """
    for key, cell in cells.items():
        if cell is None:
            continue
        for path, param in cell.parameters_and_names():
            suffix = f"{key}.{path}"
            if param.name.endswith(suffix):
                return param.name[: len(param.name) - len(suffix)]
            return ""
    return ""


def _add_child(container, key, cell, prefix=""):
    """Register ``cell`` as ``key`` and, with auto_prefix, name its Parameters ``<prefix><key>.<path>``."""
    container.insert_child_to_cell(key, cell)
    if container._auto_prefix:
        cell.update_parameters_name(prefix + key + ".")


class _IndexedCells(Cell):
    """Shared list behaviour: children named '0', '1', ... in order."""

    def _items(self):
        return list(self._cells.values())

    def _reset(self, cells):
        """Re-register ``cells`` as '0', '1', ... (renaming their Parameters to match the new keys)."""
        prefix = _inherited_prefix(self._cells)
        for name in list(self._cells):
            del self._cells[name]
            object.__delattr__(self, name) if name in self.__dict__ else None
        for i, cell in enumerate(cells):
            _add_child(self, str(i), cell, prefix)

    def _index(self, index):
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"For '{type(self).__name__}', indices must be ints or slices, but got {type(index).__name__}")
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"For '{type(self).__name__}', index {index} is out of range for {n} cells")
        return index % n

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._items())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(self._items()[index])
        return self._items()[self._index(index)]

    def __setitem__(self, index, cell):
        cells = self._items()
        cells[self._index(index)] = _check_cell(cell, type(self).__name__)
        self._reset(cells)

    def __delitem__(self, index):
        cells = self._items()
        if isinstance(index, slice):
            del cells[index]
        else:
            del cells[self._index(index)]
        self._reset(cells)

    def append(self, cell):
        """Add ``cell`` at the end; returns self."""
        _check_cell(cell, type(self).__name__)
        _add_child(self, str(len(self._cells)), cell, _inherited_prefix(self._cells))
        return self

    def extend(self, cells):
        """Add every Cell of ``cells`` at the end; returns self."""
        if isinstance(cells, (str, bytes, dict)) or not hasattr(cells, "__iter__"):
            raise TypeError(f"For '{type(self).__name__}', 'cells' must be a list or tuple of Cells, "
                            f"but got {type(cells).__name__}")
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index, cell):
        """Insert ``cell`` before position ``index``."""
        cells = self._items()
        cells.insert(index, _check_cell(cell, type(self).__name__))
        self._reset(cells)


class SequentialCell(_IndexedCells):
    """Run child Cells one after another, each on the previous one's output.

    Built from Cells (``SequentialCell(a, b)``), a list (``SequentialCell([a, b])``)
    or an OrderedDict of named Cells.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, cell in args[0].items():
                _add_child(self, name, _check_cell(cell, "SequentialCell"))
            return
        if len(args) == 1 and isinstance(args[0], list):
            args = tuple(args[0])
        for i, cell in enumerate(args):
            _add_child(self, str(i), _check_cell(cell, "SequentialCell"))

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_IndexedCells):
    """A list of Cells registered as children (iterate it in your own ``construct``)."""

    # ``ms.vmap(cell_list)`` runs the i-th Cell on the i-th example (model ensembling).
    _vmap_ensemble = True

    def __init__(self, *args, **kwargs):
        super().__init__(**kwargs)
        if len(args) == 1:
            self.extend(args[0])
        elif args:
            raise TypeError(f"CellList takes one iterable of Cells, but got {len(args)} arguments")

    def construct(self, *inputs):
        raise NotImplementedError("CellList cannot be called: iterate over it inside construct instead")


class CellDict(Cell):
    """A dict of named Cells registered as children."""

    def __init__(self, *args, **kwargs):
        super().__init__(**{k: v for k, v in kwargs.items() if k in ("auto_prefix", "flags")})
        if len(args) == 1:
            self.update(args[0])
        elif args:
            raise TypeError(f"CellDict takes one mapping of Cells, but got {len(args)} arguments")

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        _check_cell(cell, "CellDict")
        prefix = _inherited_prefix(self._cells)
        if key in self._cells:
            del self[key]
        _add_child(self, key, cell, prefix)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def pop(self, key):
        cell = self._cells[key]
        del self[key]
        return cell

    def clear(self):
        for key in list(self._cells):
            del self[key]

    def update(self, cells):
        items = cells.items() if hasattr(cells, "items") else cells
        if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
            raise TypeError(f"For 'CellDict', 'cells' must be a dict or a list of (name, Cell) pairs, "
                            f"but got {type(cells).__name__}")
        for item in items:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(f"For 'CellDict', 'cells' must be a dict or a list of (name, Cell) pairs, "
                                f"but got an item {item!r}")
            key, cell = item
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict cannot be called: look up its Cells inside construct instead")
