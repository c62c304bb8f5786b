"""Containers: SequentialCell (runs children in order), CellList and CellDict (hold them).

The three behave as MindSpore 2.10's, recorded in ``tests/fixtures/mindspore/cell_semantics.json``:

- children are registered under string keys: ``'0'``, ``'1'``, ... for cells given by position,
  the dict's own keys for cells given by name (a SequentialCell built from an ``OrderedDict``
  keeps those keys through slicing, ``seq[i] = cell`` and ``del``);
- a child's Parameters are named ``<prefix><key>.<path>``, where the prefix is the one the
  container's children already carry (``'layers.'`` once the container joined a parent).  It is
  read from the first child that has a Parameter, so Cells added to a container that joined its
  parent while empty keep unprefixed names (the top Cell repairs duplicate names on its first
  call);
- indices are ints (``TypeError`` otherwise) in ``[-len, len)`` (``IndexError`` otherwise);
  ``CellList.insert`` also takes ``len`` and ``-len``; ``append`` and ``insert`` return None,
  ``CellList.extend`` returns the list;
- nesting rules: a CellDict holds no container (CellDict, CellList, SequentialCell) and a
  CellList holds no CellDict: ``TypeError``.

Where MindSpore 2.10 is wrong, these do better (each case is in the fixture, marked
``mindspore_wrong``): a slice does not rename the Parameters it shares with the container it
was taken from; ``CellList`` refuses a CellDict in ``append``/``insert``/``seq[i] =`` as its
constructor does, and a non-Cell in ``cells[i] = x`` with ``TypeError``; a second positional
argument to CellList or CellDict raises ``TypeError`` instead of being dropped; the prefix of a
nested container's children is read from the child's own path.

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

import reprlib
from collections import OrderedDict, abc

from ..cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


# ------------------------------------------------------------------ checks shared by the three
def _shown(value):
    """A short repr of a refused value, for error messages."""
    return reprlib.repr(value)


def _checked_index(count, index, owner):
    """``index`` as a position in ``range(count)``; TypeError for a non-int, IndexError outside ``[-count, count)``."""
    if not isinstance(index, int):
        raise TypeError(f"For '{owner}', the type of 'index' must be int, but got {type(index).__name__} "
                        f"{_shown(index)}.")
    if not -count <= index < count:
        raise IndexError(f"For '{owner}', the value of 'index' must be a number in range "
                         f"[{-count}, {count}), but got {index}.")
    return index % count


def _checked_insert_index(count, index, owner):
    """Where ``insert(index, ...)`` puts the new Cell: ``[-count, count]`` is allowed (``count`` appends)."""
    if not isinstance(index, int):
        raise TypeError(f"For '{owner}', the type of 'index' must be int, but got {type(index).__name__} "
                        f"{_shown(index)}.")
    if not -count <= index <= count:
        raise IndexError(f"For '{owner}', the value of 'index' must be a number in range "
                         f"[{-count}, {count}], but got {index}.")
    return index + count if index < 0 else index


def _checked_cell(cell, owner):
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{owner}', each cell must be a Cell, but got {type(cell).__name__} {_shown(cell)}.")
    return cell


# ------------------------------------------------------------------ naming shared by the three
def _inherited_prefix(cells):
    """The prefix the container's children carry in their Parameter names.

    Read from the first child that has a Parameter: that Parameter's name is
    ``<prefix><key>.<path in the child>`` when the container names its children
    (``'body.0.weight'`` gives ``'body.'``).  ``''`` when no child has a Parameter or the
    name does not have that form (a container with ``auto_prefix=False``, or names set by
    hand).
    """
    for key, cell in cells.items():
        if cell is None:
            continue
        for path, param in cell.parameters_and_names():
            tail = f"{key}.{path}"
            if param.name == tail or param.name.endswith("." + tail):
                return param.name[: len(param.name) - len(tail)]
            return ""
    return ""


def _name_children(cell, prefix):
    """Name ``cell``'s Parameters ``prefix`` + their attribute paths."""
    cell.update_parameters_name(prefix)


def _rename_moved(cell, prefix, old_key, new_key):
    """A child moved from ``old_key`` to ``new_key``: rewrite the ``<prefix><old key>.`` part of its names.

    The rest of each name is kept (as MindSpore does when it renumbers a CellList or
    SequentialCell); a name without that part is rebuilt from the attribute path.
    """
    head = f"{prefix}{old_key}."
    for path, param in cell.parameters_and_names():
        rest = param.name[len(head):] if param.name.startswith(head) else path
        param.name = f"{prefix}{new_key}.{rest}"


def _register(container, pairs):
    """Make ``pairs`` ((key, cell), ...) the container's children, in that order."""
    for key in list(container._cells):
        delattr(container, key)  # the registry entry and the attribute view go together
    for key, cell in pairs:
        container.insert_child_to_cell(key, cell)


def _without_renaming(cells, build):
    """``build()``'s result, with the Parameter names of ``cells`` put back as they were.

    Slicing builds a new container over the same Cells; building one renames their
    Parameters, which must not change the container the slice was taken from.
    """
    names = [(param, param.name) for cell in cells for param in cell.get_parameters()]
    try:
        return build()
    finally:
        for param, name in names:
            param.name = name


# ------------------------------------------------------------------------------ SequentialCell
class SequentialCell(Cell):
    """Run child Cells one after another, each on the previous one's output.

    Built from Cells (``SequentialCell(a, b)``), one Cell, a list (``SequentialCell([a, b])``,
    children ``'0'``, ``'1'``) or an ``OrderedDict`` of named Cells (children keep the names).

    Indexing takes an int or a slice; a slice is a SequentialCell holding the same Cells under
    the same keys.  ``seq[i] = cell`` replaces a child and keeps its key; ``del seq[i]`` (or a
    slice) renumbers the children that were given by position and keeps the names of those
    given by name.  ``append`` adds a child under the key ``str(len(seq))``.  As in MindSpore
    there is no ``insert``, ``extend`` or ``+=``.

    Raises
    ------
    TypeError
        If the single argument is not a Cell, list or OrderedDict, or a child is not a Cell.
    """

    def __init__(self, *args):
        super().__init__()
        # One flag per child: True when its key is its position (renumbered by del), False for a name.
        self._is_dynamic_name = []
        if len(args) == 1 and not isinstance(args[0], Cell):
            cells = args[0]
            if isinstance(cells, list):
                pairs = [(str(i), cell) for i, cell in enumerate(cells)]
                dynamic = True
            elif isinstance(cells, OrderedDict):
                pairs = list(cells.items())
                dynamic = False
            else:
                raise TypeError(f"For '{type(self).__name__}', the 'args[0]' must be Cell, list or OrderedDict, "
                                f"but got {type(cells).__name__} {_shown(cells)}")
        else:
            pairs = [(str(i), cell) for i, cell in enumerate(args)]
            dynamic = True
        for key, cell in pairs:
            _checked_cell(cell, type(self).__name__)
            self.insert_child_to_cell(key, cell)  # checks the key
            _name_children(cell, key + ".")
            self._is_dynamic_name.append(dynamic)

    @property
    def cell_list(self):
        """The children in order (a new list)."""
        return list(self._cells.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            items = list(self._cells.items())[index]
            return _without_renaming([cell for _, cell in items], lambda: type(self)(OrderedDict(items)))
        return list(self._cells.values())[_checked_index(len(self), index, type(self).__name__)]

    def __setitem__(self, index, cell):
        owner = type(self).__name__
        _checked_cell(cell, owner)
        prefix = _inherited_prefix(self._cells)
        key = list(self._cells)[_checked_index(len(self), index, owner)]
        self.insert_child_to_cell(key, cell)  # same key, same place
        _name_children(cell, prefix + key + ".")

    def __delitem__(self, index):
        owner = type(self).__name__
        keys = list(self._cells)
        if isinstance(index, slice):
            doomed = set(range(len(keys))[index])
        elif isinstance(index, int):
            doomed = {_checked_index(len(keys), index, owner)}
        else:
            raise TypeError(f"For '{owner}', the type of index must be int type or slice type, "
                            f"but got {type(index).__name__} {_shown(index)}")
        # A child registered behind the container's back (insert_child_to_cell) counts as given by position.
        flags = list(self._is_dynamic_name[:len(keys)]) + [True] * (len(keys) - len(self._is_dynamic_name))
        kept = [(key, self._cells[key], dynamic)
                for position, (key, dynamic) in enumerate(zip(keys, flags)) if position not in doomed]
        prefix = _inherited_prefix(OrderedDict((key, cell) for key, cell, _ in kept))
        pairs = []
        for position, (key, cell, dynamic) in enumerate(kept):
            if dynamic:  # a child given by position is renumbered; one given by name keeps its name
                _rename_moved(cell, prefix, key, str(position))
                key = str(position)
            pairs.append((key, cell))
        _register(self, pairs)
        self._is_dynamic_name = [dynamic for _, _, dynamic in kept]

    def __len__(self):
        return len(self._cells)

    def __bool__(self):
        return len(self._cells) != 0

    def __iter__(self):
        return iter(list(self._cells.values()))

    def append(self, cell):
        """Add ``cell`` at the end, under the key ``str(len(self))``; returns None."""
        _checked_cell(cell, type(self).__name__)
        prefix = _inherited_prefix(self._cells)
        key = str(len(self))
        _name_children(cell, prefix + key + ".")
        self.insert_child_to_cell(key, cell)
        self._is_dynamic_name.append(True)

    def set_grad(self, flag=True):
        """Set ``requires_grad`` on this Cell and on each child (each child's own ``set_grad``); returns self."""
        super().set_grad(flag)
        for cell in self._cells.values():
            cell.set_grad(flag)
        return self

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


# ------------------------------------------------------------------------------------ CellList
class CellList(Cell):
    """A list of Cells registered as children ``'0'``, ``'1'``, ... (iterate it in your own ``construct``).

    Built from a list of Cells (nothing else: a tuple or a generator raises TypeError), with
    ``auto_prefix=False`` to leave the children's Parameter names alone.  Indexing takes an
    int or a slice (a new CellList of the same Cells); ``insert`` takes any index in
    ``[-len, len]``; ``append``/``insert`` return None, ``extend`` and ``+=`` take a list and
    return the CellList.  A CellList may hold other CellLists and SequentialCells, not a
    CellDict.  Calling a CellList raises NotImplementedError.
    """

    # ``ms.vmap(cell_list)`` runs the i-th Cell on the i-th example (model ensembling).
    _vmap_ensemble = True

    def __init__(self, *args, auto_prefix=True, **kwargs):
        super().__init__(auto_prefix=auto_prefix, **kwargs)
        if len(args) > 1:
            # MindSpore silently ignores every argument in this case (an empty list): say it instead.
            raise TypeError(f"For 'CellList', give one list of Cells, but got {len(args)} positional arguments")
        if args:
            self.extend(args[0])

    def _check_item(self, cell):
        owner = type(self).__name__
        if isinstance(cell, CellDict):
            raise TypeError(f"For '{owner}', the type of cell can not be CellDict, but got {type(cell).__name__}.")
        return _checked_cell(cell, owner)

    def __getitem__(self, index):
        if isinstance(index, slice):
            cells = list(self._cells.values())[index]
            return _without_renaming(cells, lambda: CellList(cells))
        if isinstance(index, int):
            return self._cells[str(_checked_index(len(self), index, type(self).__name__))]
        raise TypeError(f"For '{type(self).__name__}', the type of 'index' must be int or slice, "
                        f"but got {type(index).__name__} {_shown(index)}.")

    def __setitem__(self, index, cell):
        position = _checked_index(len(self), index, type(self).__name__)
        self._check_item(cell)
        if self._auto_prefix:
            _name_children(cell, f"{_inherited_prefix(self._cells)}{position}.")
        self.insert_child_to_cell(str(position), cell)

    def __delitem__(self, index):
        owner = type(self).__name__
        if isinstance(index, int):
            doomed = {str(_checked_index(len(self), index, owner))}
        elif isinstance(index, slice):
            doomed = set(list(self._cells)[index])
        else:
            raise TypeError(f"For '{owner}', the type of 'index' must be int or slice, "
                            f"but got {type(index).__name__} {_shown(index)}.")
        kept = [(key, cell) for key, cell in self._cells.items() if key not in doomed]
        self._renumber(kept, _inherited_prefix(OrderedDict(kept)))

    def _renumber(self, pairs, prefix):
        """Register the cells of ``pairs`` ((old key, cell), ...) as '0', '1', ...

        With auto_prefix, each moved cell's Parameter names follow its new key.
        """
        for position, (old_key, cell) in enumerate(pairs):
            if self._auto_prefix and old_key is not None:
                _rename_moved(cell, prefix, old_key, str(position))
        _register(self, [(str(position), cell) for position, (_, cell) in enumerate(pairs)])

    def __len__(self):
        return len(self._cells)

    def __bool__(self):
        return len(self._cells) != 0

    def __iter__(self):
        return iter(list(self._cells.values()))

    def __iadd__(self, cells):
        self.extend(cells)
        return self

    def insert(self, index, cell):
        """Insert ``cell`` before position ``index`` (``len(self)`` appends); returns None."""
        position = _checked_insert_index(len(self), index, type(self).__name__)
        self._check_item(cell)
        prefix = _inherited_prefix(self._cells)
        pairs = list(self._cells.items())
        self._renumber(pairs[:position] + [(None, cell)] + pairs[position:], prefix)
        if self._auto_prefix:
            _name_children(cell, f"{prefix}{position}.")

    def extend(self, cells):
        """Add every Cell of the list ``cells`` at the end; returns the CellList.

        Raises
        ------
        TypeError
            If ``cells`` is not a list, or holds something that is not a Cell, or a CellDict
            (the Cells before it are added).
        """
        owner = type(self).__name__
        if not isinstance(cells, list):
            raise TypeError(f"For '{owner}', the new cells wanted to append should be instance of list, "
                            f"but got {type(cells).__name__} {_shown(cells)}.")
        prefix = _inherited_prefix(self._cells)
        for cell in cells:
            self._check_item(cell)
            key = str(len(self))
            if self._auto_prefix:
                _name_children(cell, f"{prefix}{key}.")
            self.insert_child_to_cell(key, cell)
        return self

    def append(self, cell):
        """Add ``cell`` at the end; returns None."""
        self._check_item(cell)
        key = str(len(self))
        if self._auto_prefix:
            _name_children(cell, f"{_inherited_prefix(self._cells)}{key}.")
        self.insert_child_to_cell(key, cell)

    def set_grad(self, flag=True):
        """Set ``requires_grad`` on this Cell and on each child; returns self."""
        super().set_grad(flag)
        for cell in self._cells.values():
            cell.set_grad(flag)
        return self

    def construct(self, *inputs):
        raise NotImplementedError("CellList cannot be called: iterate over it inside construct instead")


# ------------------------------------------------------------------------------------ CellDict
class CellDict(Cell):
    """A dict of named Cells registered as children (look them up in your own ``construct``).

    Built from a mapping (a dict, an OrderedDict, another CellDict) or an iterable of
    ``(key, cell)`` pairs, with ``auto_prefix=False`` to leave the children's Parameter names
    alone.  Replacing a key keeps its place.  Keys are non-empty strings without ``'.'`` that
    do not name an attribute of the CellDict (``KeyError``); values are Cells other than
    CellDict, CellList and SequentialCell (``TypeError``).  A CellDict is always true, even
    empty (as every Cell); calling it raises NotImplementedError.
    """

    def __init__(self, *args, auto_prefix=True, **kwargs):
        super().__init__(auto_prefix=auto_prefix, **kwargs)
        if len(args) > 1:
            # MindSpore silently ignores every argument in this case (an empty dict): say it instead.
            raise TypeError(f"For 'CellDict', give one mapping or iterable of (key, Cell) pairs, "
                            f"but got {len(args)} positional arguments")
        if args:
            self.update(args[0])

    def _check_key(self, key):
        owner = type(self).__name__
        if not isinstance(key, str):
            raise TypeError(f"For '{owner}', the type of key should be string but got {type(key).__name__} "
                            f"{_shown(key)}.")
        if key not in self._cells and hasattr(self, key):
            raise KeyError(f"For '{owner}', the key can not be same with the attributes of Cell, but got key {key!r}.")
        if "." in key:
            raise KeyError(f"For '{owner}', key can not contain \".\", but got key {key!r}")
        if key == "":
            raise KeyError(f"For '{owner}', key can not be empty string \"\", but got key {key!r}")

    def _check_value(self, cell):
        owner = type(self).__name__
        if cell is None:
            raise TypeError(f"For '{owner}', cell can not be None.")
        if not isinstance(cell, Cell):
            raise TypeError(f"For '{owner}', the type of cell should be Cell, but got {type(cell).__name__} "
                            f"{_shown(cell)}.")
        if isinstance(cell, (CellDict, CellList, SequentialCell)):
            raise TypeError(f"For '{owner}', the type of cell can not be CellDict, CellList or SequentialCell, "
                            f"but got {type(cell).__name__}.")

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check_key(key)
        self._check_value(cell)
        if self._auto_prefix:
            _name_children(cell, _inherited_prefix(self._cells) + key + ".")
        self.insert_child_to_cell(key, cell)  # a replaced key keeps its place

    def __delitem__(self, key):
        if key not in self._cells:
            raise KeyError(f"For '{type(self).__name__}', there is no key {_shown(key)} to delete")
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __bool__(self):
        return True

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        """The keys (an ``odict_keys`` view, in order, as MindSpore returns)."""
        return OrderedDict(self._cells.items()).keys()

    def values(self):
        """The Cells (an ``odict_values`` view, in order)."""
        return OrderedDict(self._cells.items()).values()

    def items(self):
        """The (key, Cell) pairs (an ``odict_items`` view, in order)."""
        return OrderedDict(self._cells.items()).items()

    def pop(self, key):
        """Remove ``key`` and return its Cell (KeyError if absent)."""
        cell = self[key]
        del self[key]
        return cell

    def clear(self):
        """Remove every Cell; returns None."""
        for key in list(self._cells):
            delattr(self, key)

    def update(self, cells):
        """Add or replace Cells from a mapping or an iterable of ``(key, cell)`` pairs, in order.

        Raises
        ------
        TypeError
            If ``cells`` is not iterable, an item is not iterable, a key is not a str, or a
            value is not an allowed Cell.  The items before it are kept.
        ValueError
            If an item does not have two elements.
        KeyError
            If a key is empty, contains ``'.'`` or names an attribute of the CellDict.
        """
        if not isinstance(cells, abc.Iterable):
            raise TypeError(f"CellDict.update() should be called with an iterable of key-value pairs, "
                            f"but got {type(cells).__name__} {_shown(cells)}")
        if isinstance(cells, (abc.Mapping, CellDict)):
            for key, cell in list(cells.items()):
                self[key] = cell
            return
        for number, item in enumerate(cells):
            if not isinstance(item, abc.Iterable):
                raise TypeError(f"CellDict update sequence element #{number} should be Iterable; "
                                f"but got {type(item).__name__} {_shown(item)} (in {_shown(cells)})")
            item = tuple(item)
            if len(item) != 2:
                raise ValueError(f"CellDict update sequence element #{number} ({_shown(item)} in {_shown(cells)}) "
                                 f"should be a (key, cell) pair, but has length {len(item)}")
            self[item[0]] = item[1]

    def construct(self, *inputs):
        raise NotImplementedError("CellDict cannot be called: look up its Cells inside construct instead")
