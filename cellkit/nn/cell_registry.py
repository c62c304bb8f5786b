"""A Cell's registries: its Parameters, child Cells and buffers, by name, in order.

Each registered object is stored once, as an ordinary attribute of the
Cell -- in its ``__dict__`` -- so reading ``self.weight`` or ``self.fc1`` in
``construct`` is a plain attribute read, the fastest thing Python does.  A
:class:`Registry` keeps the names and their order, and answers like a dict
(``cell._params['weight']``, ``cell._cells.items()``) by reading the
objects from the Cell.  A name may hold ``None``: a slot emptied by
``cell.weight = None``.

One exception: a Parameter can be held *aside* -- out of ``__dict__``, in
the registry itself -- so that reading it goes through ``Cell.__getattr__``.
``to_float`` does that with a Cell's floating Parameters: while the Cell's
call runs, ``__getattr__`` hands out a cast of the Parameter instead (see
:mod:`cellkit.nn.cell_precision`).

>>> from cellkit import nn
>>> dense = nn.Dense(2, 3)
>>> list(dense._params), dense._params["weight"] is vars(dense)["weight"]
(['weight', 'bias'], True)
"""
from __future__ import annotations

from collections.abc import MutableMapping

__all__ = ["Registry"]


class Registry(MutableMapping):
    """Names in registration order; the objects live in the owning Cell's ``__dict__`` (or aside)."""

    __slots__ = ("_home", "_names", "_aside")

    def __init__(self, home):
        self._home = home      # the Cell's __dict__
        self._names = {}       # name -> None: a dict keeps insertion order and answers ``in`` fast
        self._aside = None     # name -> object, for objects held out of __dict__ (created when first needed)

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        aside = self._aside
        if aside is not None and name in aside:
            return aside[name]
        return self._home[name]

    def __setitem__(self, name, value):
        self._names[name] = None  # a name already present keeps its place
        aside = self._aside
        if aside is not None and name in aside:
            aside[name] = value
        else:
            self._home[name] = value

    def __delitem__(self, name):
        del self._names[name]
        aside = self._aside
        if aside is not None and name in aside:
            del aside[name]
        else:
            self._home.pop(name, None)

    def __contains__(self, name):
        return name in self._names

    def __iter__(self):
        return iter(list(self._names))  # a copy: the loop body may register or delete

    def __len__(self):
        return len(self._names)

    # Fast forms of the Mapping methods the runtime loops over (a list, not a live view).
    def values(self):
        return [self[name] for name in self._names] if self._aside else [self._home[name] for name in self._names]

    def items(self):
        return [(name, self[name]) for name in self._names]

    def add_aside(self, name, value):
        """Register ``value`` as ``name``, held out of ``__dict__`` from the start."""
        if self._aside is None:
            self._aside = {}
        if name in self._names and name not in self._aside:
            self._home.pop(name, None)
        self._names[name] = None
        self._aside[name] = value

    def hold_aside(self, name):
        """Keep ``name``'s object out of ``__dict__``: reading the attribute then reaches ``__getattr__``."""
        if self._aside is None:
            self._aside = {}
        if name in self._names and name not in self._aside:
            self._aside[name] = self._home.pop(name, None)

    def is_aside(self, name):
        return self._aside is not None and name in self._aside

    def __repr__(self):
        return f"Registry({dict(self.items())!r})"
