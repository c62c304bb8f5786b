"""Which Python functions count as ops when ``construct`` is traced.

The tracer watches every Python call while ``construct`` runs and records
the calls whose code object is listed here.  Three kinds of entries:

- **hard ops** -- the functional ops of :mod:`cellkit.ops` (``ops.dense``,
  ``ops.add`` ...), plus ``Parameter.set_data``.  A call is recorded when no
  other op is running (calls an op makes internally belong to it).
- **soft ops** -- Primitive ``__call__`` methods and the Tensor methods that
  :mod:`cellkit.ops` attaches (``x.copy()``, ``x.T``).  Most of them only
  forward to a hard op, which is then what gets recorded (so
  ``ops.Add()(x, y)`` becomes an ``add`` node that knows its Primitive); a
  soft op that computes on its own (``ops.Dropout()``) is recorded whole.
- everything else -- helpers, Cells, user functions -- is looked through.

Classification is by code object, so an op is recognised however it was
imported (``from cellkit.ops import dense as d``).  The table is built on
first use, so ``import cellkit`` does not pay for it.

>>> from cellkit import ops
>>> info = op_info(ops.dense.__code__)
>>> info.name, info.soft, info.random
('dense', False, False)
>>> op_info(ops.dropout.__code__).random
True
"""
from __future__ import annotations

import inspect
import sys
import types

__all__ = ["OpInfo", "op_info", "bind_frame_locals", "is_transform_start"]

# Ops that change state (never removed as dead code, never folded): in-place writes,
# running-statistics updates, Parameter assignments.
_EFFECTFUL = frozenset({"setitem", "batch_norm", "BatchNorm", "set_data", "Print", "ScalarSummary", "TensorSummary",
                        "ImageSummary", "HistogramSummary"})
# Names outside cellkit.ops.random that draw random numbers.
_RANDOM_NAMES = frozenset({"dropout", "Dropout"})
# Functions of cellkit.ops that are not ops: gradient transforms and decorators.
_NOT_OPS = frozenset({"grad", "value_and_grad", "GradOperation", "prim_attr_register", "vjp", "jvp", "jacfwd",
                      "jacrev", "vmap", "get_grad"})


class OpInfo:
    """What the tracer needs to know about one op's code object."""

    __slots__ = ("name", "function", "soft", "kind", "random", "effectful", "code")

    def __init__(self, name, function, soft, kind, random=False, effectful=False):
        self.name = name
        self.function = function
        self.soft = soft
        # 'function': function(*args); 'primitive': args[0](*args[1:]); 'constructor': Tensor(*args[1:])
        self.kind = kind
        self.random = random
        self.effectful = effectful
        self.code = function.__init__.__code__ if kind == "constructor" else function.__code__

    def __repr__(self):
        return f"<OpInfo {self.name} {'soft' if self.soft else 'hard'} {self.kind}>"


_table = None
_transform_codes = None


def op_info(code):
    """The :class:`OpInfo` of a code object, or ``None`` if it is not an op."""
    table = _table if _table is not None else _build()
    return table.get(code)


def table():
    """The whole table (code object -> OpInfo)."""
    return _table if _table is not None else _build()


def is_transform_start(code):
    """True for the code that starts a gradient transform's run (``grad``, ``value_and_grad``, ``GradOperation``)."""
    if _transform_codes is None:
        _build()
    return code in _transform_codes


def _build():
    global _table, _transform_codes
    from .. import ops
    from .. import transforms
    from ..ops import _tensor_methods
    from ..ops.primitive import Primitive
    from ..parameter import Parameter
    from ..tensor import Tensor

    found = {}

    def add(function, name, soft, kind, module_name):
        code = getattr(function, "__code__", None)
        if code is None or code in found:
            return
        random = module_name.endswith("ops.random") or name in _RANDOM_NAMES
        found[code] = OpInfo(name, function, soft, kind, random=random, effectful=name in _EFFECTFUL)

    for module in _op_modules(ops):
        for name in getattr(module, "__all__", ()):
            if name in _NOT_OPS:
                continue
            value = getattr(module, name, None)
            if isinstance(value, types.FunctionType):
                add(value, value.__name__, False, "function", module.__name__)
            elif isinstance(value, type) and issubclass(value, Primitive) and value is not Primitive:
                call = _own_call(value, Primitive)
                if call is not None:
                    add(call, value.__name__, True, "primitive", module.__name__)
    for method_name, function in _tensor_methods._METHODS.items():
        if isinstance(function, types.FunctionType) and function.__code__ not in found:
            add(function, method_name.strip("_"), True, "function", "tensor methods")
    for prop in ("T", "mT"):
        getter = getattr(getattr(_tensor_methods.Tensor, prop, None), "fget", None)
        if getter is not None:
            add(getter, prop, True, "function", "tensor methods")
    add(Parameter.set_data, "set_data", False, "function", "parameter")
    from .fallback import graph_print

    add(graph_print, "Print", False, "function", "graph")  # print(...) in a traced function
    # ``Tensor(x, dtype)`` in construct: recorded when ``x`` depends on the inputs (else a constant).
    found[Tensor.__init__.__code__] = OpInfo("Tensor", Tensor, False, "constructor")
    _transform_codes = frozenset({transforms._Tape.__init__.__code__})
    _table = found
    return found


def _op_modules(ops):
    """``cellkit.ops`` and its submodules (from sys.modules: ``ops.norm`` the attribute is a function)."""
    yield ops
    prefix = ops.__name__ + "."
    for name in sorted(sys.modules):
        module = sys.modules[name]
        if name.startswith(prefix) and isinstance(module, types.ModuleType):
            yield module


def _own_call(cls, base):
    """The ``__call__`` function ``cls`` uses, unless it is the base class's placeholder."""
    for klass in cls.__mro__:
        if klass is base:
            return None
        call = klass.__dict__.get("__call__")
        if isinstance(call, types.FunctionType):
            if getattr(klass, "_recompute_variant", False):
                continue  # the recompute wrapper: its inner call is the op
            return call
    return None


def bind_frame_locals(code, local_values):
    """The call's ``(args, kwargs, names)`` rebuilt from a frame's locals at its start.

    ``names`` are the parameter names of the leading positional arguments.

    >>> def f(a, b=2, *rest, c=3, **more):
    ...     pass
    >>> bind_frame_locals(f.__code__, {"a": 1, "b": 5, "rest": (6,), "c": 9, "more": {"z": 0}})
    ((1, 5, 6), {'c': 9, 'z': 0}, ('a', 'b'))
    """
    n_pos = code.co_argcount
    n_kw = code.co_kwonlyargcount
    names = code.co_varnames[:n_pos]
    args = [local_values[n] for n in names]
    slot = n_pos + n_kw
    if code.co_flags & inspect.CO_VARARGS:
        args.extend(local_values[code.co_varnames[slot]])
        slot += 1
    kwargs = {n: local_values[n] for n in code.co_varnames[n_pos:n_pos + n_kw]}
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwargs.update(local_values[code.co_varnames[slot]])
    return tuple(args), kwargs, tuple(names)
