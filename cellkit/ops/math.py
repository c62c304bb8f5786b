"""Elementwise arithmetic, comparisons and unary math, each with its gradient.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.add(ms.Tensor([1, 2, 3], ms.float32), ms.Tensor([4, 5, 6], ms.float32)))
[5. 7. 9.]
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..autograd import OUTPUT
from ._core import binary_operands, check_broadcast, int_arg, record, tensor_arg, wrap, xp

__all__ = [
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "rsqrt", "square", "abs",
    "reciprocal", "maximum", "minimum", "clamp", "clip", "sin", "cos", "floor", "ceil", "round",
    "sign", "floor_div", "floor_divide", "mod", "remainder", "equal", "not_equal", "greater",
    "greater_equal", "less", "less_equal", "gt", "ge", "lt", "le", "eq", "ne", "logical_and",
    "logical_or", "logical_not", "isfinite", "isnan", "where", "subtract", "multiply", "divide",
    "true_divide", "negative", "log1p", "expm1",
]


def _compute(fn, A, B, op, names=("input", "other")):
    """Run a broadcasting binary array function, turning shape errors into ours."""
    try:
        return fn(A, B)
    except (ValueError, TypeError, RuntimeError) as exc:
        check_broadcast(A, B, op, names)  # raises the readable ValueError if shapes are the cause
        if isinstance(exc, TypeError):  # e.g. NumPy refuses ``-`` on bools
            raise TypeError(f"For '{op}', '{names[0]}' and '{names[1]}' of dtypes {_dt.dtype_of(A)} and "
                            f"{_dt.dtype_of(B)} are not supported: {exc}") from None
        raise


def _operand_info(t):
    """``(shape, dtype)`` of an operand's own array (what its gradient must be), None for a number."""
    return (t._data.shape, t._data.dtype) if hasattr(t, "_data") else (None, None)


def _record_binary(out, op, a, b, rule, saved=(), sources=()):
    """Record a binary op; ``node.info`` is ``(shape_a, dtype_a, shape_b, dtype_b)``."""
    return record(out, op, rule, (a, b), saved, sources, _operand_info(a) + _operand_info(b))


def _pair(m, node, ga, gb):
    """The two operands' gradients from their broadcast forms (each None when off the tape)."""
    sa, da, sb, db = node.info
    ia, ib = node.inputs
    return (m.grad_for(ga, sa, da) if ia is not None and ga is not None else None,
            m.grad_for(gb, sb, db) if ib is not None and gb is not None else None)


# -- the four basic operations ------------------------------------------------
def add(input, other):
    """``input + other`` with broadcasting.

    >>> import cellkit as ms
    >>> print(add(ms.Tensor([1.0, 2.0]), 1))
    [2. 3.]
    """
    a, b, A, B = binary_operands(input, other, "add")
    out = _compute(_backend._current.xp.add, A, B, "add")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Add", a, b, _add_rule)


def _add_rule(m, node, g):
    return _pair(m, node, g, g)


def sub(input, other):
    """``input - other`` with broadcasting."""
    a, b, A, B = binary_operands(input, other, "sub")
    out = _compute(_backend._current.xp.subtract, A, B, "sub")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Sub", a, b, _sub_rule)


def _sub_rule(m, node, g):
    return _pair(m, node, g, -g if node.inputs[1] is not None else None)


def mul(input, other):
    """``input * other`` with broadcasting."""
    a, b, A, B = binary_operands(input, other, "mul")
    out = _compute(_backend._current.xp.multiply, A, B, "mul")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Mul", a, b, _mul_rule, (A, B), (0, 1))


def _mul_rule(m, node, g):
    A, B = node.unpack(m)
    ia, ib = node.inputs
    return _pair(m, node, g * B if ia is not None else None, g * A if ib is not None else None)


def div(input, other, *, rounding_mode=None):
    """``input / other``; integer inputs give a Float32 result, as in MindSpore.

    ``rounding_mode`` may be ``None`` (true division), ``'floor'`` or ``'trunc'``.
    """
    if rounding_mode not in (None, "floor", "trunc"):
        raise ValueError(f"For 'div', rounding_mode must be None, 'floor' or 'trunc', but got {rounding_mode!r}")
    a, b, A, B = binary_operands(input, other, "div")
    x = xp()
    # One operand may be a Python number (on NumPy); the other's dtype decides.
    ref = A if hasattr(A, "dtype") else B
    integral = _dt.dtype_of(ref).kind != "float"
    if rounding_mode is not None:
        if rounding_mode == "floor":
            out = _compute(x.floor_divide, A, B, "div")
        elif integral:
            # Integer truncation without a detour through floats: floor, then
            # step back towards zero where the signs differ and it did not divide.
            out = _compute(x.floor_divide, A, B, "div")
            inexact = (A - out * B) != 0
            out = x.where(inexact & ((A < 0) != (B < 0)), out + 1, out)
        else:
            out = x.trunc(_compute(x.divide, A, B, "div"))
        return wrap(out)
    if integral:
        f32 = _dt.float32.to_backend(x)
        A = x.astype(A, f32) if hasattr(A, "dtype") else A
        B = x.astype(B, f32) if hasattr(B, "dtype") else B
    out = _compute(x.divide, A, B, "div")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "RealDiv", a, b, _div_rule, (B, out), (1, OUTPUT))


def _div_rule(m, node, g):
    """d(a / b) = da / b - (a / b) db / b."""
    B, out = node.unpack(m)
    ga = g / B
    return _pair(m, node, ga, -ga * out if node.inputs[1] is not None else None)


def neg(input):
    """``-input``."""
    x = tensor_arg(input, "input", "neg")
    if x.dtype is _dt.bool_:
        raise TypeError("For 'neg', 'input' of dtype Bool is not supported: use ops.logical_not to flip bools")
    out = xp().negative(x._data)
    if _ag._depth == 0:
        return wrap(out)
    return record(out, "Neg", _neg_rule, (x,))


def _neg_rule(m, node, g):
    return (-g,)


def pow(input, exponent):
    """``input ** exponent`` (either may be a Tensor or a number)."""
    a, b, A, B = binary_operands(input, exponent, "pow")
    out = _compute(xp().pow, A, B, "pow")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Pow", a, b, _pow_rule, (A, B, out), (0, 1, OUTPUT))


def _pow_rule(m, node, g):
    """d x**y = y x**(y-1) dx + x**y log(x) dy; the log term is 0 at x == 0 and NaN for x < 0 (as MindSpore)."""
    A, B, out = node.unpack(m)
    ia, ib = node.inputs
    grad_base = g * B * m.pow(A, B - 1) if ia is not None else None
    grad_exponent = None
    if ib is not None:
        safe = m.where(A > 0, A, m.ones_like(A))
        grad_exponent = g * out * m.log(safe)
        grad_exponent = m.where(A < 0, m.zeros_like(grad_exponent) + float("nan"), grad_exponent)
        grad_exponent = m.where(A == 0, m.zeros_like(grad_exponent), grad_exponent)
    return _pair(m, node, grad_base, grad_exponent)


# -- unary math ---------------------------------------------------------------
_SAVE_INPUT, _SAVE_OUTPUT = (0,), (OUTPUT,)


# Which dtype kinds an op accepts (``DType.kind``), as MindSpore's kernels do; None: every kind.
FLOAT_KINDS = frozenset(("float",))
NUMBER_KINDS = frozenset(("float", "int", "uint"))
INT_KINDS = frozenset(("int", "uint"))
INT_BOOL_KINDS = frozenset(("int", "uint", "bool"))
_KIND_WORDS = {FLOAT_KINDS: "float16, float32 or float64", NUMBER_KINDS: "a number dtype (not bool)",
               INT_KINDS: "an integer dtype (int8, int16, int32, int64 or uint8)",
               INT_BOOL_KINDS: "an integer or bool dtype"}


def check_kind(t, kinds, op, name="input"):
    """Raise MindSpore's TypeError if Tensor ``t``'s dtype is not of one of ``kinds``."""
    if _dt.dtype_of(t._data).kind not in kinds:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of {_KIND_WORDS.get(kinds, sorted(kinds))}, "
                        f"but got a Tensor of dtype {t.dtype}")


def _unary(input, op, forward, rule, saves=_SAVE_INPUT, to_float=True, name=None, kinds=None):
    """A unary op: ``forward(array)``; ``rule(m, node, g)`` sees the input or output it ``saves``.

    ``kinds`` (None: all) are the dtype kinds MindSpore accepts; others raise its TypeError.
    """
    t = tensor_arg(input, "input", op)
    arr = t._data
    kind = _dt.dtype_of(arr).kind  # one lookup serves the dtype check and the cast
    if kinds is not None and kind not in kinds:
        check_kind(t, kinds, op)
    if to_float and kind != "float":
        arr = xp().astype(arr, _dt.float32.to_backend(xp()))
    try:
        out = forward(arr)
    except TypeError as exc:  # e.g. NumPy has no sign of bools
        raise TypeError(f"For '{op}', 'input' of dtype {t.dtype} is not supported: {exc}") from None
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    saved = (arr,) if saves is _SAVE_INPUT else (out,)
    return record(out, name or op.capitalize(), rule, (t,), saved, saves)


def _saved_one(m, node):
    return node.unpack(m)[0]


def exp(input):
    """Elementwise ``e ** input``."""
    return _unary(input, "exp", lambda a: xp().exp(a), _exp_rule, _SAVE_OUTPUT, kinds=FLOAT_KINDS)


def _exp_rule(m, node, g):
    return (g * _saved_one(m, node),)


def expm1(input):
    return _unary(input, "expm1", lambda a: xp().expm1(a), _expm1_rule, _SAVE_OUTPUT, kinds=FLOAT_KINDS)


def _expm1_rule(m, node, g):
    return (g * (_saved_one(m, node) + 1),)


def log(input):
    """Natural logarithm."""
    return _unary(input, "log", lambda a: xp().log(a), _log_rule, kinds=FLOAT_KINDS)


def _log_rule(m, node, g):
    return (g / _saved_one(m, node),)


def log1p(input):
    return _unary(input, "log1p", lambda a: xp().log1p(a), _log1p_rule, kinds=FLOAT_KINDS)


def _log1p_rule(m, node, g):
    return (g / (_saved_one(m, node) + 1),)


def sqrt(x):
    """Elementwise square root."""
    return _unary(x, "sqrt", lambda a: xp().sqrt(a), _sqrt_rule, _SAVE_OUTPUT)


def _sqrt_rule(m, node, g):
    return (g / (2 * _saved_one(m, node)),)


def rsqrt(input):
    """``1 / sqrt(input)``."""
    return _unary(input, "rsqrt", lambda a: 1 / xp().sqrt(a), _rsqrt_rule, _SAVE_OUTPUT, kinds=FLOAT_KINDS)


def _rsqrt_rule(m, node, g):
    out = _saved_one(m, node)
    return (-0.5 * g * out * out * out,)


def square(input):
    return _unary(input, "square", lambda a: a * a, _square_rule, to_float=False, kinds=NUMBER_KINDS)


def _square_rule(m, node, g):
    return (2 * g * _saved_one(m, node),)


def reciprocal(input):
    return _unary(input, "reciprocal", lambda a: 1 / a, _reciprocal_rule, _SAVE_OUTPUT)


def _reciprocal_rule(m, node, g):
    out = _saved_one(m, node)
    return (-g * out * out,)


def abs(input):
    """Elementwise absolute value (gradient ``sign(input)``; 0 at 0)."""
    return _unary(input, "abs", _abs_array, _abs_rule, to_float=False)


def _abs_array(a):
    x = xp()
    return x.asarray(a, copy=True) if a.dtype == x.bool else x.abs(a)


def _abs_rule(m, node, g):
    return (g * m.sign(_saved_one(m, node)),)


def sin(input):
    return _unary(input, "sin", lambda a: xp().sin(a), _sin_rule, kinds=FLOAT_KINDS)


def _sin_rule(m, node, g):
    return (g * m.cos(_saved_one(m, node)),)


def cos(input):
    return _unary(input, "cos", lambda a: xp().cos(a), _cos_rule, kinds=FLOAT_KINDS)


def _cos_rule(m, node, g):
    return (-g * m.sin(_saved_one(m, node)),)


def _zero_rule(m, node, g):
    """Steps (floor, ceil, round, sign): the derivative is zero almost everywhere."""
    return (m.zeros_like(g),)


def floor(input):
    return _unary(input, "floor", lambda a: xp().floor(a), _zero_rule, (), to_float=False, kinds=FLOAT_KINDS)


def ceil(input):
    return _unary(input, "ceil", lambda a: xp().ceil(a), _zero_rule, (), to_float=False, kinds=FLOAT_KINDS)


def round(input, *, decimals=0):
    """Round half to even, to ``decimals`` places (no gradient: it is zero almost everywhere)."""
    decimals = int_arg(decimals, "decimals", "round", minimum=-300, maximum=300)
    if decimals == 0:
        return _unary(input, "round", lambda a: xp().round(a), _zero_rule, (), to_float=False)
    scale = 10.0 ** decimals
    return _unary(input, "round", lambda a: xp().round(a * scale) / scale, _zero_rule, ())


def sign(input):
    return _unary(input, "sign", lambda a: xp().sign(a), _zero_rule, (), to_float=False, kinds=NUMBER_KINDS)


def maximum(input, other):
    """Elementwise maximum; on ties the gradient is split equally between the inputs."""
    a, b, A, B = binary_operands(input, other, "maximum")
    out = _compute(xp().maximum, A, B, "maximum")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Maximum", a, b, _maximum_rule, (A, B), (0, 1))


def minimum(input, other):
    """Elementwise minimum; on ties the gradient is split equally between the inputs."""
    a, b, A, B = binary_operands(input, other, "minimum")
    out = _compute(xp().minimum, A, B, "minimum")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Minimum", a, b, _minimum_rule, (A, B), (0, 1))


def _share(m, g, won, tied):
    """The winner's part of ``g``: all of it where it won, half on a tie (as MindSpore)."""
    return g * (m.mask(won, g) + 0.5 * m.mask(tied, g))


def _maximum_rule(m, node, g):
    A, B = node.unpack(m)
    tied = A == B
    return _pair(m, node, _share(m, g, A > B, tied), _share(m, g, B > A, tied))


def _minimum_rule(m, node, g):
    A, B = node.unpack(m)
    tied = A == B
    return _pair(m, node, _share(m, g, A < B, tied), _share(m, g, B < A, tied))


def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]``; the gradient flows where the input was inside (bounds included).

    Tensor bounds receive the gradient where they replaced the input.

    >>> import cellkit as ms
    >>> print(clamp(ms.Tensor([-1.0, 0.5, 2.0]), 0, 1))
    [0.  0.5 1. ]
    """
    if min is None and max is None:
        raise ValueError("For 'clamp', at least one of 'min' and 'max' must be given")
    out = tensor_arg(input, "input", "clamp")
    if min is not None:
        out = _limit(out, min, xp().maximum, _clamp_min_rule, "min")
    if max is not None:
        out = _limit(out, max, xp().minimum, _clamp_max_rule, "max")
    return out


def _limit(input, bound, find, rule, name):
    """One side of clamp: the gradient stays with ``input`` where it is within (or on) the bound."""
    a, b, A, B = binary_operands(input, bound, "clamp")
    out = _compute(find, A, B, "clamp", ("input", name))
    if _ag._depth == 0:
        return wrap(out)
    x = xp()
    inside = x.greater_equal(A, B) if name == "min" else x.less_equal(A, B)
    return _record_binary(out, "Clamp", a, b, rule, (inside,), (None,))


def _clamp_rule(m, node, g):
    (inside,) = node.unpack(m)
    zeros = m.zeros_like(g)
    return _pair(m, node, m.where(inside, g, zeros), m.where(inside, zeros, g))


_clamp_min_rule = _clamp_max_rule = _clamp_rule


clip = clamp


def floor_div(x, y):
    """Floor division (no gradient); two Bool tensors give a Bool tensor, as in MindSpore."""
    a, b, A, B = binary_operands(x, y, "floor_div")
    P, Q = (A, B) if _backend._current.is_numpy else _bools_as_ints(A, B)
    return wrap(_keep_bool(_compute(xp().floor_divide, P, Q, "floor_div"), A, B))


def _keep_bool(out, A, B):
    """``out`` back in Bool when both operands were Bool (NumPy computes bools as int8)."""
    if _dt.dtype_of(out).kind == "int" and hasattr(A, "dtype") and _dt.dtype_of(A) is _dt.bool_ \
            and getattr(B, "dtype", None) == A.dtype:
        x = xp()
        return x.astype(out, _dt.bool_.to_backend(x))
    return out


def floor_divide(input, other):
    """Same as :func:`floor_div`."""
    return floor_div(input, other)


def mod(input, other):
    """Remainder with the sign of the divisor; gradient ``1`` for ``input``."""
    a, b, A, B = binary_operands(input, other, "mod")
    P, Q = (A, B) if _backend._current.is_numpy else _bools_as_ints(A, B)
    out = _keep_bool(_compute(xp().remainder, P, Q, "mod"), A, B)
    if _ag._depth == 0 or _dt.dtype_of(out).kind != "float":
        return wrap(out)
    quotient = xp().floor(A / B)  # piecewise constant: a constant for the rule
    return _record_binary(out, "Mod", a, b, _mod_rule, (quotient,), (None,))


def _mod_rule(m, node, g):
    (quotient,) = node.unpack(m)
    return _pair(m, node, g, -g * quotient if node.inputs[1] is not None else None)


remainder = mod


# -- comparisons and logic (no gradient: their outputs are booleans) ------------
# Each comparison is its own function (not one closure made six times): graph mode
# recognises an op by its code object, and six closures would share one.
def _comparison(input, other, name):
    a, b, A, B = binary_operands(input, other, name)
    if not _backend._current.is_numpy:
        A, B = _bools_as_ints(A, B)
    return wrap(_compute(getattr(xp(), name), A, B, name))


def _bools_as_ints(A, B):
    """Bool arrays as UInt8 (the array API orders and divides no bools; NumPy does, as MindSpore)."""
    x = xp()
    if getattr(A, "dtype", None) == x.bool:
        A = x.astype(A, x.uint8)
    if getattr(B, "dtype", None) == x.bool:
        B = x.astype(B, x.uint8)
    return A, B


def equal(input, other):
    """Elementwise ``input == other``; a Bool tensor with no gradient."""
    return _comparison(input, other, "equal")


def not_equal(input, other):
    """Elementwise ``input != other``; a Bool tensor with no gradient."""
    return _comparison(input, other, "not_equal")


def greater(input, other):
    """Elementwise ``input > other``; a Bool tensor with no gradient."""
    return _comparison(input, other, "greater")


def greater_equal(input, other):
    """Elementwise ``input >= other``; a Bool tensor with no gradient."""
    return _comparison(input, other, "greater_equal")


def less(input, other):
    """Elementwise ``input < other``; a Bool tensor with no gradient."""
    return _comparison(input, other, "less")


def less_equal(input, other):
    """Elementwise ``input <= other``; a Bool tensor with no gradient."""
    return _comparison(input, other, "less_equal")


eq, ne, gt, ge, lt, le = equal, not_equal, greater, greater_equal, less, less_equal


def _as_bool(t):
    arr = t._data
    x = xp()
    return arr if _dt.dtype_of(arr) is _dt.bool_ else x.astype(arr, _dt.bool_.to_backend(x))


def logical_and(input, other):
    a, b = tensor_arg(input, "input", "logical_and"), tensor_arg(other, "other", "logical_and")
    return wrap(_compute(xp().logical_and, _as_bool(a), _as_bool(b), "logical_and"))


def logical_or(input, other):
    a, b = tensor_arg(input, "input", "logical_or"), tensor_arg(other, "other", "logical_or")
    return wrap(_compute(xp().logical_or, _as_bool(a), _as_bool(b), "logical_or"))


def logical_not(input):
    return wrap(xp().logical_not(_as_bool(tensor_arg(input, "input", "logical_not"))))


def isfinite(input):
    return wrap(xp().isfinite(tensor_arg(input, "input", "isfinite")._data))


def isnan(input):
    return wrap(xp().isnan(tensor_arg(input, "input", "isnan")._data))


def where(condition, input, other):
    """Pick ``input`` where ``condition`` holds, else ``other``; differentiable in both."""
    cond = _as_bool(tensor_arg(condition, "condition", "where"))
    a, b, A, B = binary_operands(input, other, "where")
    x = xp()
    if not hasattr(B, "shape"):
        B = x.asarray(B, dtype=A.dtype, device=_backend._current.device) if not _backend._current.is_numpy else B
    if not hasattr(A, "shape"):
        A = x.asarray(A, dtype=B.dtype, device=_backend._current.device) if not _backend._current.is_numpy else A
    try:
        out = x.where(cond, A, B)
    except (ValueError, TypeError, RuntimeError):
        shapes = [tuple(getattr(v, "shape", ())) for v in (cond, A, B)]
        try:
            np.broadcast_shapes(*shapes)  # shape arithmetic only
        except ValueError:
            raise ValueError(
                f"For 'where', the shapes of 'condition' {shapes[0]}, 'input' {shapes[1]} and "
                f"'other' {shapes[2]} cannot be broadcast together"
            ) from None
        raise
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Select", a, b, _where_rule, (cond,), (None,))


def _where_rule(m, node, g):
    (cond,) = node.unpack(m)
    zeros = m.zeros_like(g)
    return _pair(m, node, m.where(cond, g, zeros), m.where(cond, zeros, g))


# MindSpore's alternative spellings.


def subtract(input, other, *, alpha=1):
    """``input - alpha * other``."""
    return sub(input, other if alpha == 1 else mul(other, alpha))


def true_divide(dividend, divisor):
    """``dividend / divisor`` (true division: integers give Float32)."""
    return div(dividend, divisor)


multiply = mul
divide = div
negative = neg
