"""``ms.mutable`` and ``ms.jit_class``: what a compiled graph treats as a variable, and classes usable inside one.

``mutable(value)`` marks a Python scalar (or a tuple, list or dict of
scalars and Tensors) passed to a ``jit`` function or a Cell in GRAPH_MODE as
a *variable*: a new value does not trace a new graph.  cellkit passes each
marked scalar into the graph as a 0-d Tensor (``int`` -> int64, ``float`` ->
float32, ``bool`` -> bool) and hands it back as the Python value if the
function returns it unchanged.  Unmarked Python scalars are constants of the
graph (each new value is a new trace), as in MindSpore.

``jit_class`` marks a plain class whose instances a compiled function may
use: attributes read as constants, methods are traced through.

>>> import cellkit as ms
>>> @ms.jit
... def scale(x, n):
...     return x * n
>>> scale(ms.Tensor([1.0, 2.0]), ms.mutable(2)), scale(ms.Tensor([1.0, 2.0]), ms.mutable(3))
(Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00]), Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  6.00000000e+00]))
>>> ms.graph.function_trace_count(scale)
1
"""
from __future__ import annotations

__all__ = ["mutable", "jit_class", "has_mutable", "unwrap_mutable", "restore_mutable"]


class _Int(int):
    """An ``int`` marked by :func:`mutable`."""


class _Float(float):
    """A ``float`` marked by :func:`mutable`."""


class _Bool(int):
    """A ``bool`` marked by :func:`mutable` (``bool`` cannot be subclassed: an int that prints as a bool)."""

    def __repr__(self):
        return repr(bool(self))

    __str__ = __repr__


class _Tuple(tuple):
    """A ``tuple`` marked by :func:`mutable`."""


class _List(list):
    """A ``list`` marked by :func:`mutable`."""


class _Dict(dict):
    """A ``dict`` marked by :func:`mutable`."""


_SCALARS = {_Int: "int64", _Float: "float32", _Bool: "bool"}
_MARKED = frozenset({_Int, _Float, _Bool, _Tuple, _List, _Dict})


def mutable(input_data, dynamic_len=False):
    """Mark ``input_data`` as a variable input of a compiled graph (a new value does not recompile).

    Parameters
    ----------
    input_data : bool, int, float, Tensor, tuple, list or dict
        The value; containers may nest these (no self-reference).
    dynamic_len : bool
        For a tuple or list: its length may change too.  cellkit accepts it
        and traces each new length once.

    Returns
    -------
    The same value, marked (a Tensor is returned as it is: Tensors are always variables).

    Raises
    ------
    TypeError
        ``input_data`` of another type (or containing one), ``dynamic_len``
        not a bool, or ``dynamic_len=True`` on something not a tuple or list.

    >>> import cellkit as ms
    >>> n = ms.mutable(3)
    >>> n + 1, isinstance(n, int)
    (4, True)
    """
    from ..tensor import Tensor

    if not isinstance(dynamic_len, bool):
        raise TypeError(f"For 'mutable', the second input should be bool, but got: {type(dynamic_len).__name__}")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when the variable_len is True, the first input should be list or tuple, "
                        f"but got: {type(input_data).__name__}")
    if not _valid(input_data, set(), Tensor):
        raise TypeError(
            "For 'mutable', the 'input_data' should be one of (bool, int, float, Tensor, tuple, list, dict) or "
            f"their nested structures with no self-reference, but got {type(input_data).__name__}: {input_data}.")
    if isinstance(input_data, Tensor):
        return input_data  # a Tensor input is a variable of the graph already
    return _mark(input_data)


def _valid(value, seen, tensor_type):
    if isinstance(value, (bool, int, float, tensor_type)):
        return True
    if isinstance(value, (tuple, list, dict)):
        if id(value) in seen:
            return False
        seen = seen | {id(value)}
        items = value.values() if isinstance(value, dict) else value
        return all(_valid(v, seen, tensor_type) for v in items)
    return False


def _mark(value):
    if isinstance(value, bool):
        return _Bool(value)
    if isinstance(value, int):
        return _Int(value)
    if isinstance(value, float):
        return _Float(value)
    if isinstance(value, tuple):
        return _Tuple(_mark(v) for v in value)
    if isinstance(value, list):
        return _List(_mark(v) for v in value)
    if isinstance(value, dict):
        return _Dict({k: _mark(v) for k, v in value.items()})
    return value


def has_mutable(args, kwargs):
    """True when a marked value is among the call's arguments (checked at every jit call: kept cheap)."""
    for a in args:
        if type(a) in _MARKED:
            return True
    if kwargs:
        for a in kwargs.values():
            if type(a) in _MARKED:
                return True
    return False


def unwrap_mutable(args, kwargs):
    """The arguments with marked scalars as 0-d Tensors; and ``{id(array): value}`` to hand them back."""
    from ..tensor import Tensor

    made = {}

    def convert(value):
        kind = type(value)
        if kind in _SCALARS:
            python = bool(value) if kind is _Bool else (int(value) if kind is _Int else float(value))
            tensor = Tensor(python, dtype=_dtype(_SCALARS[kind]))
            made[id(tensor._data)] = python
            return tensor
        if kind is _Tuple or kind is _List:
            items = [convert(v) for v in value]
            return tuple(items) if kind is _Tuple else list(items)
        if kind is _Dict:
            return {k: convert(v) for k, v in value.items()}
        return value

    return tuple(convert(a) for a in args), {k: convert(v) for k, v in kwargs.items()}, made


def _dtype(name):
    from .. import dtype as _dt

    return getattr(_dt, name)


def restore_mutable(output, made):
    """``output`` with each Tensor that is an unchanged marked scalar handed back as the Python value."""
    from ..tensor import Tensor

    if isinstance(output, Tensor):
        return made.get(id(output._data), output)
    kind = type(output)
    if kind is tuple or kind is list:
        return kind(restore_mutable(v, made) for v in output)
    if kind is dict:
        return {k: restore_mutable(v, made) for k, v in output.items()}
    return output


def jit_class(cls):
    """Mark a plain class as usable inside ``jit`` / GRAPH_MODE (its attributes are constants there).

    Parameters
    ----------
    cls : type
        A user-defined class (not a Cell).

    Returns
    -------
    type
        ``cls`` itself, marked with ``__ms_class__ = True``.

    Raises
    ------
    TypeError
        ``cls`` is not a class, or is a Cell subclass.

    >>> import cellkit as ms
    >>> @ms.jit_class
    ... class Scale:
    ...     def __init__(self, k):
    ...         self.k = k
    ...     def apply(self, x):
    ...         return x * self.k
    >>> s = Scale(3)
    >>> ms.jit(lambda x: s.apply(x))(ms.Tensor([1, 2]))
    Tensor(shape=[2], dtype=Int64, value= [3, 6])
    """
    from ..nn.cell import Cell

    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type: the argument 'cls' must be a class, "
                        f"but got {type(cls).__name__} {cls!r}.")
    if issubclass(cls, Cell):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be used for nn.Cell: {cls}.")
    cls.__ms_class__ = True
    return cls
