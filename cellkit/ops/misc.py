"""Ops that fit no other family: assignment, ``depend``, printing, functional helpers, control flow.

- Assignment (``assign``, ``assign_add``, ``assign_sub``) updates a Parameter or Tensor in place, as the
  in-place Tensor methods do (:mod:`cellkit.ops.inplace`).
- ``depend``, ``Reusing``, ``mixed_precision_cast``, ``move_to`` are about scheduling, graphs, precision and
  devices in MindSpore; in one eager NumPy process they reduce to what they compute.
- ``jet``, ``derivative`` and ``linearize`` are higher-order forward differentiation, built on
  :func:`cellkit.jvp`.
- ``ForiLoop``, ``WhileLoop``, ``Scan``, ``Map``, ``HyperMap`` and ``MultitypeFuncGraph`` are MindSpore's
  graph-friendly control flow and dispatch, here run as the Python loops they describe.

The optimizer Primitives (``ops.ApplyMomentum`` ...) are in :mod:`cellkit.ops.optimizer_ops`, the in-place
Tensor methods in :mod:`cellkit.ops.inplace` and the Tensor object's own API in
:mod:`cellkit.ops.tensor_api`; this module installs their Tensor methods.

>>> import cellkit as ms
>>> from cellkit import ops
>>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
>>> _ = ops.assign_add(w, ms.Tensor([0.5, 0.5]))
>>> print(w.asnumpy())
[1.5 2.5]
"""
from __future__ import annotations

import copy as _copy
import functools
import numbers
import operator

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from . import inplace as _inplace
from . import optimizer_ops as _optimizer_ops
from . import tensor_api as _tensor_api
from ._core import backend, describe, dtype_arg, record, tensor_arg, wrap
from .optimizer_ops import *  # noqa: F401,F403
from .primitive import Primitive, prim_attr_register

__all__ = [
    "assign", "assign_add", "assign_sub", "augassign_add", "augassign_sub", "augassign_mul", "augassign_div",
    "augassign_floordiv", "augassign_mod", "depend", "deepcopy", "print_", "partial", "mixed_precision_cast",
    "move_to", "custom_info_register", "jet", "derivative", "linearize", "kernel", "eps",
    "Assign", "AssignAdd", "AssignSub", "Depend", "Print", "Assert", "HistogramSummary", "ImageSummary",
    "ScalarSummary", "TensorSummary", "InsertGradientOf", "Partial", "Map", "HyperMap", "MultitypeFuncGraph",
    "Reusing", "ForiLoop", "WhileLoop", "Scan", "StopGradient", "MoveTo",
] + list(_optimizer_ops.__all__)


def _ops():
    from .. import ops
    return ops


# ------------------------------------------------------------------ assignment
def _variable(variable, op):
    if not isinstance(variable, Tensor):
        raise TypeError(f"For '{op}', 'variable' must be a Parameter or a Tensor, but got {describe(variable)}")
    return _inplace._receiver(variable, op)


def _value_for(variable, value, op, allow_narrowing):
    if not isinstance(value, Tensor):
        if isinstance(value, (numbers.Number, np.number, np.bool_, list, tuple, np.ndarray)):
            value = Tensor(value)
        else:
            raise TypeError(f"For '{op}', 'value' must be a Tensor, but got {describe(value)}")
    v = tensor_arg(value, "value", op)
    if v.ndim != variable.ndim:
        raise ValueError(f"For '{op}', 'value' must have the same rank as 'variable'. But got 'value' rank: {v.ndim} "
                         f"(shape {tuple(v.shape)}), 'variable' rank: {variable.ndim} (shape {tuple(variable.shape)}).")
    if tuple(v.shape) != tuple(variable.shape):
        raise ValueError(f"For '{op}', 'value' must have the same shape as 'variable'. But got 'value' shape: "
                         f"{tuple(v.shape)}, 'variable' shape: {tuple(variable.shape)}.")
    if not allow_narrowing and v.dtype is not variable.dtype and _narrows(v.dtype, variable.dtype):
        raise TypeError(f"For '{op}', data type conversion is not supported for the variable of an in-place "
                        f"operator: 'value' of dtype {v.dtype} cannot be converted to 'variable''s dtype "
                        f"{variable.dtype} automatically")
    return v


_RANK = {"bool": 0, "uint": 1, "int": 2, "float": 3}


def _narrows(source, target):
    """True if converting ``source`` to ``target`` would lose its kind (float -> int, int -> bool ...)."""
    return _RANK[source.kind] > _RANK[target.kind]


def assign(variable, value):
    """Give ``variable`` (a Parameter or Tensor) the values of ``value`` (same shape; converted to its dtype).

    Returns ``variable``, updated in place.

    >>> import cellkit as ms
    >>> p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="p")
    >>> print(assign(p, ms.Tensor([5.0, 6.0])).asnumpy())
    [5. 6.]
    """
    op = "assign"
    var = _variable(variable, op)
    v = _value_for(var, value, op, allow_narrowing=True)
    return _inplace._commit(var, v, op)


def assign_add(variable, value):
    """``variable += value`` in place (same shape; ``value`` must not need a narrowing conversion); returns it."""
    op = "assign_add"
    var = _variable(variable, op)
    v = _value_for(var, value, op, allow_narrowing=False)
    return _inplace._commit(var, _ops().add(var, v), op)


def assign_sub(variable, value):
    """``variable -= value`` in place (same shape; ``value`` must not need a narrowing conversion); returns it."""
    op = "assign_sub"
    var = _variable(variable, op)
    v = _value_for(var, value, op, allow_narrowing=False)
    return _inplace._commit(var, _ops().sub(var, v), op)


class Assign(Primitive):
    """``Assign()(variable, value)``: :func:`assign`."""

    def __init__(self):
        super().__init__()

    def __call__(self, variable, value):
        return assign(variable, value)


class AssignAdd(Primitive):
    """``AssignAdd()(variable, value)``: :func:`assign_add`."""

    def __init__(self):
        super().__init__()

    def __call__(self, variable, value):
        return assign_add(variable, value)


class AssignSub(Primitive):
    """``AssignSub()(variable, value)``: :func:`assign_sub`."""

    def __init__(self):
        super().__init__()

    def __call__(self, variable, value):
        return assign_sub(variable, value)


def _augmented(name, python_op, symbol):
    def fn(x, y):
        try:
            return python_op(x, y)
        except TypeError as exc:
            raise TypeError(f"For '{name}', unsupported operand types for {symbol}: {describe(x)} and "
                            f"{describe(y)} ({exc})") from None
        except ValueError as exc:
            raise ValueError(f"For '{name}', {describe(x)} {symbol} {describe(y)} failed: {exc}") from None

    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = fn.__code__.replace(co_name=name)  # a code object of its own: graphs know ops by it
    fn.__doc__ = (f"``x {symbol}= y`` as MindSpore's graph compiler evaluates it: ``x {symbol} y`` (a new value; "
                  f"Tensors, numbers, and for ``+`` strings, tuples and lists).\n\n"
                  f"    >>> {name}(7, 2)\n    {python_op(7, 2)!r}\n")
    return fn


augassign_add = _augmented("augassign_add", operator.add, "+")
augassign_sub = _augmented("augassign_sub", operator.sub, "-")
augassign_mul = _augmented("augassign_mul", operator.mul, "*")
augassign_div = _augmented("augassign_div", operator.truediv, "/")
augassign_floordiv = _augmented("augassign_floordiv", operator.floordiv, "//")
augassign_mod = _augmented("augassign_mod", operator.mod, "%")


# ------------------------------------------------------------------ dependencies, copies, printing
def depend(value, expr):
    """``value`` unchanged; in MindSpore's graphs ``expr`` is then computed before ``value`` is used (an eager
    program has already computed it).

    >>> import cellkit as ms
    >>> print(depend(ms.Tensor([1.0]), ms.Tensor([2.0])))
    [1.]
    """
    return value


class Depend(Primitive):
    """``Depend()(value, expr)``: :func:`depend`."""

    def __init__(self):
        super().__init__()

    def __call__(self, value, expr):
        return value


def deepcopy(input_x):
    """A copy of the Tensor ``input_x`` with its own memory (differentiable, like an identity).

    >>> import cellkit as ms
    >>> x = ms.Tensor([1, 2])
    >>> y = deepcopy(x)
    >>> print(y, y is x)
    [1 2] False
    """
    if not isinstance(input_x, Tensor):
        raise TypeError(f"For 'deepcopy', 'input_x' must be a Tensor, but got {describe(input_x)}")
    return _tensor_api.clone(tensor_arg(input_x, "input_x", "deepcopy"))


def print_(*input_x):
    """Print each argument on its own line (Tensors as their ``repr``, as MindSpore does); returns None.

    >>> import cellkit as ms
    >>> print_("x:", ms.Tensor([1, 2]))
    x:
    Tensor(shape=[2], dtype=Int64, value= [1, 2])
    """
    for item in input_x:
        print(repr(item) if isinstance(item, Tensor) else item)
    return None


class Print(Primitive):
    """``Print()(*inputs)``: :func:`print_`."""

    def __init__(self):
        super().__init__()

    def __call__(self, *input_x):
        return print_(*input_x)


def partial(func, *args):
    """``func`` with its first arguments fixed: ``partial(ops.add, x)(y) == ops.add(x, y)``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(partial(ops.add, ms.Tensor([1.0]))(ms.Tensor([2.0])))
    [3.]
    """
    if not callable(func):
        raise TypeError(f"For 'partial', 'func' must be callable, but got {describe(func)}")
    return functools.partial(func, *args)


class Partial(Primitive):
    """``Partial()(func, *args)``: :func:`partial`."""

    def __init__(self):
        super().__init__()

    def __call__(self, func, *args):
        return partial(func, *args)


def mixed_precision_cast(dst_dtype, x):
    """``x`` with its float Tensors converted to ``dst_dtype`` (also inside tuples and lists; anything else as is).

    >>> import cellkit as ms
    >>> print(mixed_precision_cast(ms.float16, ms.Tensor([1.0, 2.0])).dtype)
    Float16
    """
    d = dtype_arg(dst_dtype, "dst_dtype", "mixed_precision_cast")
    if isinstance(x, Tensor):
        return _ops().cast(x, d) if x.dtype.kind == "float" else x
    if isinstance(x, (tuple, list)):
        return tuple(mixed_precision_cast(d, item) for item in x)
    return x


_DEVICES = ("Ascend", "GPU", "CPU")


def move_to(input, to="CPU", blocking=True):
    """A copy of ``input`` on device ``to`` (``'Ascend'``, ``'GPU'`` or ``'CPU'``): with one device per backend,
    the copy stays where the backend computes.

    MindSpore 2.10's CPU build has no MoveTo kernel (it raises RuntimeError although its documentation lists
    CPU); cellkit copies.

    >>> import cellkit as ms
    >>> print(move_to(ms.Tensor([1, 2]), "CPU"))
    [1 2]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'move_to', 'input' must be a Tensor, but got {describe(input)}")
    if to not in _DEVICES:
        raise ValueError(f"For 'move_to', 'to' must be one of {list(_DEVICES)}, but got {to!r}")
    if not isinstance(blocking, bool):
        raise TypeError(f"For 'move_to', 'blocking' must be a bool, but got {describe(blocking)}")
    return _tensor_api.clone(tensor_arg(input, "input", "move_to"))


class MoveTo(Primitive):
    """``MoveTo()(input, to='CPU', blocking=True)``: :func:`move_to`."""

    def __init__(self):
        super().__init__()

    def __call__(self, input, to="CPU", blocking=True):
        return move_to(input, to, blocking)


def custom_info_register(*reg_info):
    """A decorator attaching registration information to a function for ``ops.Custom`` (kept as ``reg_info``).

    >>> @custom_info_register({"op_name": "my_add"})
    ... def my_add(x, y):
    ...     return x + y
    >>> my_add.reg_info
    [{'op_name': 'my_add'}]
    """
    def decorator(func):
        if not callable(func):
            raise TypeError(f"For 'custom_info_register', the decorated object must be callable, but got "
                            f"{describe(func)}")
        info = list(getattr(func, "reg_info", []))
        info.extend(reg_info)
        try:
            func.reg_info = info
        except AttributeError:
            pass
        return func

    return decorator


def eps(x):
    """A tensor shaped like ``x`` holding its dtype's machine epsilon (Float16/32/64).

    >>> import cellkit as ms
    >>> print(eps(ms.Tensor([1.0, 2.0])))
    [1.1920929e-07 1.1920929e-07]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'eps', 'x' must be a Tensor, but got {describe(x)}")
    t = tensor_arg(x, "x", "eps")
    if t.dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise TypeError(f"For 'eps', 'x' must be a Float16, Float32 or Float64 Tensor, but got Tensor[{t.dtype}]")
    return _ops().full(tuple(t.shape), float(np.finfo(np.dtype(t.dtype.array_name)).eps), dtype=t.dtype)


# ------------------------------------------------------------------ Assert and summaries
class Assert(Primitive):
    """``Assert(summarize=3)(condition, input_data)``: raise RuntimeError (after printing the first ``summarize``
    values of each tensor of ``input_data``) when ``condition`` is False; returns an Int32 ``[0]`` otherwise.

    >>> import cellkit as ms
    >>> print(Assert()(ms.Tensor(True), [ms.Tensor([1.0])]))
    [0]
    """

    @prim_attr_register
    def __init__(self, summarize=3):
        if isinstance(summarize, bool) or not isinstance(summarize, int):
            raise TypeError(f"For 'Assert', 'summarize' must be an int, but got {describe(summarize)}")

    def __call__(self, condition, input_data):
        op = "Assert"
        if isinstance(condition, Tensor):
            c = tensor_arg(condition, "condition", op)
            if c.size != 1:
                raise ValueError(f"For '{op}', 'condition' must hold one bool, but got shape {tuple(c.shape)}")
            ok = bool(c.asnumpy().reshape(()))
        elif isinstance(condition, (bool, np.bool_)):
            ok = bool(condition)
        else:
            raise TypeError(f"For '{op}', 'condition' must be a bool or a bool Tensor, but got {describe(condition)}")
        if not isinstance(input_data, (tuple, list)):
            raise TypeError(f"For '{op}', 'input_data' must be a tuple or list of Tensors, but got "
                            f"{describe(input_data)}")
        if not ok:
            print(f"For '{op}' condition is false.")
            for item in input_data:
                values = item.asnumpy().reshape(-1)[:self.summarize] if isinstance(item, Tensor) else item
                print("input data:", values)
            raise RuntimeError(f"For '{op}', assert failed: the condition is False")
        return Tensor(np.zeros(1, np.int32))


_SUMMARIES = {}


def _summary(kind):
    class Summary(Primitive):
        def __init__(self):
            super().__init__()

        def __call__(self, name, value):
            if not isinstance(name, str):
                raise TypeError(f"For '{kind}', 'name' must be a str, but got {describe(name)}")
            if not isinstance(value, Tensor):
                raise TypeError(f"For '{kind}', 'value' must be a Tensor, but got {describe(value)}")
            _SUMMARIES[(kind, name)] = Tensor._from_array(tensor_arg(value, "value", kind)._data)
            return None

    Summary.__name__ = Summary.__qualname__ = kind
    Summary.__doc__ = (f"``{kind}()(name, value)``: note ``value`` under ``name`` for a summary writer (kept in "
                       f"memory: cellkit writes no summary files); returns None.")
    return Summary


HistogramSummary = _summary("HistogramSummary")
ImageSummary = _summary("ImageSummary")
ScalarSummary = _summary("ScalarSummary")
TensorSummary = _summary("TensorSummary")


# ------------------------------------------------------------------ gradients
class InsertGradientOf(Primitive):
    """``InsertGradientOf(f)(x)``: ``x`` unchanged; in backward, ``f`` receives ``x``'s gradient and returns the
    gradient that flows on.

    >>> import cellkit as ms
    >>> double = InsertGradientOf(lambda g: g * 2)
    >>> print(ms.grad(lambda x: double(x).sum())(ms.Tensor([1.0, 2.0])))
    [2. 2.]
    """

    @prim_attr_register
    def __init__(self, f):
        if not callable(f):
            raise TypeError(f"For 'InsertGradientOf', 'f' must be callable, but got {describe(f)}")

    def __call__(self, x):
        t = tensor_arg(x, "x", "InsertGradientOf")
        values = _ag.alias(t._data)  # its own value to a graph trace, or replaying the graph would drop it
        if _ag._depth == 0 or t._node is None:
            return Tensor._from_array(values)
        return record(values, "InsertGradientOf", _insert_gradient_rule, (t,), info=self.f)


def _insert_gradient_rule(m, node, g):
    out = node.info(m.as_tensor(g))
    if not isinstance(out, Tensor):
        raise TypeError(f"For 'InsertGradientOf', the function must return a Tensor gradient, but returned "
                        f"{describe(out)}")
    return (m.as_value(out),)


class StopGradient(Primitive):
    """``StopGradient()(x)``: :func:`ops.stop_gradient`."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return _ops().stop_gradient(x)


# ------------------------------------------------------------------ functional helpers and control flow
class Reusing(Primitive):
    """``Reusing()(fn_or_value)``: marks a function's graph as not to be inlined in MindSpore; returns its argument.

    >>> reuse = Reusing()
    >>> reuse(abs)(-2)
    2
    """

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return x


_MAX_STEPS = 2 ** 31 - 1  # a loop of more Int32 steps than this is a mistake, not a computation


class ForiLoop(Primitive):
    """``ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``: ``val = loop_func(i, val)`` for ``i`` in
    ``range(lower, upper)``; returns ``val``.

    >>> ForiLoop()(0, 3, lambda i, v: v + i, 10)
    13
    """

    def __init__(self):
        super().__init__()

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        op = "ForiLoop"
        bounds = []
        for name, v in (("lower", lower), ("upper", upper)):
            if isinstance(v, Tensor):
                v = tensor_arg(v, name, op).asnumpy().reshape(()).item()
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(v)}")
            bounds.append(int(v))
        if not callable(loop_func):
            raise TypeError(f"For '{op}', 'loop_func' must be callable, but got {describe(loop_func)}")
        if not isinstance(unroll, bool):
            raise TypeError(f"For '{op}', 'unroll' must be a bool, but got {describe(unroll)}")
        if bounds[1] - bounds[0] > _MAX_STEPS:
            raise ValueError(f"For '{op}', 'lower' {bounds[0]} and 'upper' {bounds[1]} ask for more than "
                             f"{_MAX_STEPS} iterations")
        val = init_val
        for i in range(bounds[0], bounds[1]):
            val = loop_func(i, val)
        return val


class WhileLoop(Primitive):
    """``WhileLoop()(cond_func, loop_func, init_val)``: ``while cond_func(val): val = loop_func(val)``.

    >>> WhileLoop()(lambda v: v < 10, lambda v: v + 3, 1)
    10
    """

    def __init__(self):
        super().__init__()

    def __call__(self, cond_func, loop_func, init_val):
        for name, f in (("cond_func", cond_func), ("loop_func", loop_func)):
            if not callable(f):
                raise TypeError(f"For 'WhileLoop', '{name}' must be callable, but got {describe(f)}")
        val = init_val
        while cond_func(val):
            val = loop_func(val)
        return val


class Scan(Primitive):
    """``Scan()(loop_func, init, xs, length=None, unroll=True)``: ``carry, y = loop_func(carry, x)`` over ``xs``
    (a tuple or list; ``None`` for ``length`` steps with ``x = None``); returns ``(carry, [y, ...])``.

    >>> Scan()(lambda c, x: (c + x, c + x), 0, [1, 2, 3, 4])
    (10, [1, 3, 6, 10])
    """

    def __init__(self):
        super().__init__()

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        op = "Scan"
        if not callable(loop_func):
            raise TypeError(f"For '{op}', 'loop_func' must be callable, but got {describe(loop_func)}")
        if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
            raise TypeError(f"For '{op}', 'length' must be an int or None, but got {describe(length)}")
        if not isinstance(unroll, bool):
            raise TypeError(f"For '{op}', 'unroll' must be a bool, but got {describe(unroll)}")
        if xs is None:
            if length is None:
                raise ValueError(f"For '{op}', 'length' is needed when 'xs' is None")
            if not 0 <= length <= _MAX_STEPS:
                raise ValueError(f"For '{op}', 'length' must be in [0, {_MAX_STEPS}], but got {length}")
            xs = [None] * length
        elif not isinstance(xs, (tuple, list)):
            raise TypeError(f"For '{op}', 'xs' must be a tuple, a list or None, but got {describe(xs)}")
        carry, ys = init, []
        for x in xs:
            result = loop_func(carry, x)
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise ValueError(f"For '{op}', 'loop_func' must return a tuple (carry, y), but returned "
                                 f"{describe(result)}")
            carry, y = result
            ys.append(y)
        return carry, ys


# MindSpore's type names for MultitypeFuncGraph.register, and what they accept.
def _type_test(name):
    tests = {
        "Tensor": lambda v: isinstance(v, Tensor),
        "Number": lambda v: isinstance(v, (numbers.Number, np.number)) and not isinstance(v, complex),
        "Int": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool),
        "Float": lambda v: isinstance(v, (float, np.floating)),
        "Bool": lambda v: isinstance(v, (bool, np.bool_)),
        "String": lambda v: isinstance(v, str),
        "Tuple": lambda v: isinstance(v, tuple),
        "List": lambda v: isinstance(v, list),
        "Dictionary": lambda v: isinstance(v, dict),
        "None": lambda v: v is None,
        "Function": callable,
    }
    key = name if isinstance(name, str) else getattr(name, "__name__", str(name))
    key = {"Dict": "Dictionary", "Str": "String", "NoneType": "None", "tensor": "Tensor", "number": "Number",
           "int": "Int", "float": "Float", "bool": "Bool", "str": "String", "tuple": "Tuple", "list": "List",
           "dict": "Dictionary"}.get(key, key)
    if key not in tests:
        raise ValueError(f"For 'MultitypeFuncGraph.register', unknown type name {name!r}; expected one of "
                         f"{sorted(tests)}")
    return tests[key]


class MultitypeFuncGraph:
    """A function overloaded on its arguments' types: ``register("Tensor", "Number")`` adds an implementation.

    A call runs the first registered implementation whose type names all match (``"Number"`` matches ints
    and floats, ``"Tensor"`` Tensors, ``"Tuple"``, ``"List"``, ``"String"``, ``"Bool"``, ``"None"``,
    ``"Function"``, ``"Dictionary"``); none matching raises ValueError, as in MindSpore.

    >>> add = MultitypeFuncGraph("add")
    >>> @add.register("Number", "Number")
    ... def _(x, y):
    ...     return x + y
    >>> add(1, 2)
    3
    """

    def __init__(self, name, read_value=False):
        if not isinstance(name, str):
            raise TypeError(f"For 'MultitypeFuncGraph', 'name' must be a str, but got {describe(name)}")
        self.name = name
        self.read_value = read_value
        self.entries = []

    def register(self, *type_names):
        """Decorator: register an implementation for arguments of these types."""
        tests = tuple(_type_test(n) for n in type_names)

        def deco(fn):
            self.entries.append((type_names, tests, fn))
            return fn

        return deco

    def __call__(self, *args):
        for names, tests, fn in self.entries:
            if len(tests) == len(args) and all(test(a) for test, a in zip(tests, args)):
                return fn(*args)
        given = ", ".join(type(a).__name__ for a in args)
        registered = [names for names, _, _ in self.entries]
        raise ValueError(f"For 'MultitypeFuncGraph', cannot find fn match given args. Got (sigs, fn): {registered}, "
                         f"and args of types ({given}) for {self.name!r}.")

    def __repr__(self):
        return f"MultitypeFuncGraph({self.name!r})"


class _Mapper:
    def __init__(self, ops=None, reverse=False):
        if ops is not None and not callable(ops):
            raise TypeError(f"For '{type(self).__name__}', 'ops' must be callable, but got {describe(ops)}")
        if not isinstance(reverse, bool):
            raise TypeError(f"For '{type(self).__name__}', 'reverse' must be a bool, but got {describe(reverse)}")
        self.ops = ops
        self.reverse = reverse

    def _split(self, args):
        if self.ops is not None:
            return self.ops, args
        if not args or not callable(args[0]):
            raise TypeError(f"For '{type(self).__name__}', the first argument must be the function to apply, "
                            f"but got {describe(args[0]) if args else 'nothing'}")
        return args[0], args[1:]

    def __repr__(self):
        return f"{type(self).__name__}(ops={self.ops!r}, reverse={self.reverse})"


class Map(_Mapper):
    """``Map(ops=None, reverse=False)(fn, *sequences)``: ``fn`` applied to the items of the sequences in step
    (one level deep), as a tuple.

    >>> Map()(lambda a, b: a * b, (1, 2), (3, 4))
    (3, 8)
    """

    def __call__(self, *args):
        fn, seqs = self._split(args)
        return _map_level(fn, seqs, self.reverse, deep=False, name="Map")


class HyperMap(_Mapper):
    """``HyperMap(ops=None, reverse=False)(fn, *trees)``: ``fn`` applied to the leaves of nested tuples and lists
    in step (the nesting is kept; every level comes back as a tuple, as in MindSpore).

    >>> HyperMap()(lambda a, b: a + b, ((1, 2), [3]), ((10, 20), [30]))
    ((11, 22), (33,))
    """

    def __call__(self, *args):
        fn, seqs = self._split(args)
        if not seqs:
            raise TypeError("For 'HyperMap', at least one input is needed")
        return _map_level(fn, seqs, self.reverse, deep=True, name="HyperMap")


def _map_level(fn, seqs, reverse, deep, name):
    first = seqs[0]
    if not isinstance(first, (tuple, list)):
        if deep:
            return fn(*seqs)
        raise TypeError(f"For '{name}', the inputs must be tuples or lists, but got {describe(first)}")
    length = len(first)
    for s in seqs[1:]:
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"For '{name}', the inputs must all be sequences, but got {describe(s)}")
        length = min(length, len(s))
    order = range(length - 1, -1, -1) if reverse else range(length)
    results = {}
    for i in order:
        items = [s[i] for s in seqs]
        results[i] = _map_level(fn, items, reverse, deep, name) if deep and isinstance(items[0], (tuple, list)) \
            else fn(*items)
    return tuple(results[i] for i in range(length))  # MindSpore gives tuples, for lists too


# ------------------------------------------------------------------ higher-order forward differentiation
def _as_tensor_tuple(value, name, op, to_float=True):
    single = isinstance(value, Tensor)
    items = (value,) if single else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(v, Tensor) for v in items):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor or a tuple of Tensors, but got {describe(value)}")
    items = tuple(tensor_arg(v, name, op) for v in items)
    if to_float:
        items = tuple(v if v.dtype.kind == "float" else _ops().cast(v, _dt.float32) for v in items)
    return items, single


# Each order nests one more forward-mode transform (each built from two reverse sweeps): the cost doubles
# per order, so orders are kept to what that can afford.
_MAX_ORDER = 8


def _taylor(fn, primals, series, op):
    """``f(x(t))`` and its first ``n`` derivatives in ``t`` at 0, for ``x(t) = x + sum_k s_k t^(k+1)/(k+1)!``."""
    from ..jacobians import jvp
    import math

    n = series[0].shape[0]

    def path(t):
        points = []
        for x, s in zip(primals, series):
            point = x
            power = t
            for k in range(n):  # t ** (k + 1) as a product: pow's exponent gradient is NaN at t = 0
                if k:
                    power = _ops().mul(power, t)
                point = _ops().add(point, _ops().mul(s[k], _ops().div(power, float(math.factorial(k + 1)))))
            points.append(point)
        return fn(*points)

    derivatives = []
    current = path
    for _ in range(n):
        current = (lambda f: (lambda t: jvp(f, t, Tensor(np.ones((), np.float32)).astype(t.dtype))[1]))(current)
        derivatives.append(current)
    t0 = Tensor(np.zeros((), np.dtype(primals[0].dtype.array_name)))
    out = fn(*primals)
    return out, [d(t0) for d in derivatives]


def _stack_series(outs):
    if isinstance(outs[0], Tensor):
        return _ops().stack(list(outs), 0)
    return [_ops().stack([o[i] for o in outs], 0) for i in range(len(outs[0]))]


def jet(fn, primals, series):
    """``fn(primals)`` and the derivatives of ``fn`` along the curve given by ``series``.

    ``series[i]`` (for each primal) is the ``(i + 1)``-th derivative of the input along a curve; the result's
    ``out_series[i]`` is the ``(i + 1)``-th derivative of the output along it (Taylor mode).  With
    ``series = [1, 0, 0 ...]`` these are the ordinary derivatives of an elementwise ``fn``.  Each order nests one
    more forward-mode transform (MindSpore propagates Taylor series instead), so the cost doubles per order;
    orders up to 8 are accepted.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> out, series = jet(ops.sin, ms.Tensor([0.0]), ms.Tensor([[1.0], [0.0], [0.0]]))
    >>> print((series.asnumpy().round(4).ravel() + 0.0).tolist())
    [1.0, 0.0, -1.0]
    """
    op = "jet"
    if not callable(fn):
        raise TypeError(f"For '{op}', 'fn' must be callable, but got {describe(fn)}")
    prim, single = _as_tensor_tuple(primals, "primals", op)
    ser, single_series = _as_tensor_tuple(series, "series", op)
    if len(ser) != len(prim):
        raise ValueError(f"For '{op}', 'series' must hold one Tensor per primal ({len(prim)}), but got {len(ser)}")
    for p, s in zip(prim, ser):
        if s.ndim != p.ndim + 1 or tuple(s.shape[1:]) != tuple(p.shape) or s.shape[0] < 1:
            raise ValueError(f"For '{op}', each series must have shape (n,) + the primal's shape {tuple(p.shape)}, "
                             f"but got {tuple(s.shape)}")
    if len({s.shape[0] for s in ser}) != 1:
        raise ValueError(f"For '{op}', every series must have the same order (first dimension)")
    if ser[0].shape[0] > _MAX_ORDER:
        raise ValueError(f"For '{op}', the series' order (first dimension) must be at most {_MAX_ORDER}, but got "
                         f"{ser[0].shape[0]}")
    out, derivatives = _taylor(fn, prim, ser, op)
    return out, _stack_series(derivatives)


def derivative(fn, primals, order):
    """``fn(primals)`` and its ``order``-th derivative along all primals at once (tangent 1, higher terms 0).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> out, d3 = derivative(ops.sin, ms.Tensor([0.0]), 3)
    >>> print(d3)
    [-1.]
    """
    op = "derivative"
    if not callable(fn):
        raise TypeError(f"For '{op}', 'fn' must be callable, but got {describe(fn)}")
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError(f"For '{op}', 'order' must be an int, but got {describe(order)}")
    if not 1 <= order <= _MAX_ORDER:
        raise ValueError(f"For '{op}', 'order' must be in [1, {_MAX_ORDER}], but got {order}")
    prim, single = _as_tensor_tuple(primals, "primals", op)
    ser = []
    for p in prim:
        host = np.zeros((order,) + tuple(p.shape), np.dtype(p.dtype.array_name))
        host[0] = 1
        ser.append(Tensor(host))
    out, derivatives = _taylor(fn, prim, tuple(ser), op)
    return out, derivatives[-1]


def linearize(fn, inputs):
    """``(fn(inputs), jvp_fn)``: ``jvp_fn(v)`` is the Jacobian of ``fn`` at ``inputs`` applied to tangents ``v``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> out, jvp_fn = linearize(ops.sin, ms.Tensor([0.0, 1.0]))
    >>> print(jvp_fn(ms.Tensor([1.0, 1.0])))
    [1.        0.5403023]
    """
    from ..jacobians import jvp

    op = "linearize"
    if not callable(fn):
        raise TypeError(f"For '{op}', 'fn' must be callable, but got {describe(fn)}")
    prim, single = _as_tensor_tuple(inputs, "inputs", op, to_float=False)
    out = fn(*prim)

    def jvp_fn(*v):
        tangents = v[0] if len(v) == 1 else v
        return jvp(fn, prim[0] if single else prim, tangents)[1]

    return out, jvp_fn


# ------------------------------------------------------------------ Hybrid DSL kernels
def _output_tensor(shape, dtype):
    return np.zeros(tuple(shape), dtype=np.dtype(str(dtype)) if not isinstance(dtype, _dt.DType)
                    else np.dtype(dtype.array_name))


_DSL = {
    "output_tensor": _output_tensor, "allocate": _output_tensor, "grid": lambda shape: np.ndindex(*shape),
    "serial": range, "parallel": range, "vectorize": range, "reduce": range,
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "power": np.power, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "max": max, "min": min,
    "float32": np.float32, "float16": np.float16, "int32": np.int32, "int64": np.int64,
}


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Decorate a MindSpore Hybrid-DSL function so it runs as Python on NumPy arrays.

    Inside, ``output_tensor(shape, dtype)`` / ``allocate`` make arrays and ``range``-like loops
    (``serial``, ``parallel``, ``vectorize``, ``reduce``, ``grid``) run in order.  Tensors passed in are
    converted to NumPy arrays and array results back to Tensors.

    >>> import numpy as np
    >>> @kernel
    ... def add(a, b):
    ...     c = output_tensor(a.shape, a.dtype)
    ...     for i in range(a.shape[0]):
    ...         c[i] = a[i] + b[i]
    ...     return c
    >>> add(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    array([4., 6.])
    """
    if fn is None:
        return lambda f: kernel(f, reg_info, compile_attrs)
    if not callable(fn):
        raise TypeError(f"For 'kernel', 'fn' must be a function, but got {describe(fn)}")
    if compile_attrs is not None and not isinstance(compile_attrs, dict):
        raise TypeError(f"For 'kernel', 'compile_attrs' must be a dict, but got {describe(compile_attrs)}")

    code = getattr(fn, "__code__", None)

    @functools.wraps(fn)
    def run(*args):
        tensors = any(isinstance(a, Tensor) for a in args)
        host_args = [a.asnumpy() if isinstance(a, Tensor) else a for a in args]
        scope = dict(fn.__globals__)
        for key, value in _DSL.items():
            scope.setdefault(key, value)
        import types
        body = types.FunctionType(code, scope, fn.__name__, fn.__defaults__, fn.__closure__) if code else fn
        out = body(*host_args)
        if tensors:
            if isinstance(out, np.ndarray):
                return Tensor(out)
            if isinstance(out, tuple):
                return tuple(Tensor(o) if isinstance(o, np.ndarray) else o for o in out)
        return out

    run.reg_info = reg_info
    run.compile_attrs = compile_attrs or {}
    return run


TENSOR_METHODS = {**_inplace.methods(), **_tensor_api.TENSOR_METHODS}
