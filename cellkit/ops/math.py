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
from ..tensor import Tensor
from ._core import attach, binary_operands, check_broadcast, float_array, grad_like, int_arg, tensor_arg, wrap, xp

__all__ = [
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "rsqrt", "square", "abs",
    "reciprocal", "maximum", "minimum", "clamp", "clip", "sin", "cos", "floor", "ceil", "round",
    "sign", "floor_div", "floor_divide", "mod", "remainder", "equal", "not_equal", "greater",
    "greater_equal", "less", "less_equal", "gt", "ge", "lt", "le", "eq", "ne", "logical_and",
    "logical_or", "logical_not", "isfinite", "isnan", "where", "subtract", "multiply", "divide",
    "true_divide", "negative", "log1p", "expm1",
]


def _on_tape(t):
    return isinstance(t, Tensor) and t._node is not None


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


def _record_binary(out, op, a, b, grad_a, grad_b):
    """Attach a binary op whose partial gradients are ``grad_a(g)`` and ``grad_b(g)``."""
    track_a, track_b = _on_tape(a), _on_tape(b)

    def backward(g):
        return (
            grad_like(grad_a(g), a._data) if track_a else None,
            grad_like(grad_b(g), b._data) if track_b else None,
        )

    return attach(out, op, backward, a, b)


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
    return _record_binary(out, "Add", a, b, lambda g: g, lambda g: g)


def sub(input, other):
    """``input - other`` with broadcasting."""
    a, b, A, B = binary_operands(input, other, "sub")
    out = _compute(_backend._current.xp.subtract, A, B, "sub")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Sub", a, b, lambda g: g, lambda g: -g)


def mul(input, other):
    """``input * other`` with broadcasting."""
    a, b, A, B = binary_operands(input, other, "mul")
    out = _compute(_backend._current.xp.multiply, A, B, "mul")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Mul", a, b, lambda g: g * B, lambda g: g * A)


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
    return _record_binary(out, "RealDiv", a, b, lambda g: g / B, lambda g: -g * out / B)


def neg(input):
    """``-input``."""
    x = tensor_arg(input, "input", "neg")
    if x.dtype is _dt.bool_:
        raise TypeError("For 'neg', 'input' of dtype Bool is not supported: use ops.logical_not to flip bools")
    out = xp().negative(x._data)
    if _ag._depth == 0:
        return wrap(out)
    return attach(out, "Neg", lambda g: (-g,), x)


def pow(input, exponent):
    """``input ** exponent`` (either may be a Tensor or a number)."""
    a, b, A, B = binary_operands(input, exponent, "pow")
    out = _compute(xp().pow, A, B, "pow")
    if _ag._depth == 0:
        return wrap(out)

    def grad_base(g):
        return g * B * xp().pow(A, B - 1)

    def grad_exponent(g):
        # d/dy x**y = x**y * log(x): 0 where x == 0, undefined (NaN) where x < 0,
        # as in MindSpore.
        x = xp()
        safe = x.where(A > 0, A, x.ones_like(A))
        grad = g * out * x.log(safe)
        grad = x.where(A < 0, x.full_like(grad, float("nan")), grad)
        return x.where(A == 0, x.zeros_like(grad), grad)

    return _record_binary(out, "Pow", a, b, grad_base, grad_exponent)


# -- unary math ---------------------------------------------------------------
def _unary(input, op, forward, backward, to_float=True):
    """A unary op: ``forward(array)``; ``backward(g, x_array, out_array)``."""
    t = tensor_arg(input, "input", op)
    arr = float_array(t, op) if to_float else t._data
    try:
        out = forward(arr)
    except TypeError as exc:  # e.g. NumPy has no sign of bools
        raise TypeError(f"For '{op}', 'input' of dtype {t.dtype} is not supported: {exc}") from None
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return attach(out, op.capitalize(), lambda g: (backward(g, arr, out),), t)


def exp(input):
    """Elementwise ``e ** input``."""
    return _unary(input, "exp", lambda a: xp().exp(a), lambda g, a, o: g * o)


def expm1(input):
    return _unary(input, "expm1", lambda a: xp().expm1(a), lambda g, a, o: g * (o + 1))


def log(input):
    """Natural logarithm."""
    return _unary(input, "log", lambda a: xp().log(a), lambda g, a, o: g / a)


def log1p(input):
    return _unary(input, "log1p", lambda a: xp().log1p(a), lambda g, a, o: g / (a + 1))


def sqrt(x):
    """Elementwise square root."""
    return _unary(x, "sqrt", lambda a: xp().sqrt(a), lambda g, a, o: g / (2 * o))


def rsqrt(input):
    """``1 / sqrt(input)``."""
    return _unary(input, "rsqrt", lambda a: 1 / xp().sqrt(a), lambda g, a, o: -0.5 * g * o * o * o)


def square(input):
    return _unary(input, "square", lambda a: a * a, lambda g, a, o: 2 * g * a, to_float=False)


def reciprocal(input):
    return _unary(input, "reciprocal", lambda a: 1 / a, lambda g, a, o: -g * o * o)


def abs(input):
    """Elementwise absolute value (gradient ``sign(input)``; 0 at 0)."""
    return _unary(input, "abs", lambda a: xp().abs(a), lambda g, a, o: g * xp().sign(a), to_float=False)


def sin(input):
    return _unary(input, "sin", lambda a: xp().sin(a), lambda g, a, o: g * xp().cos(a))


def cos(input):
    return _unary(input, "cos", lambda a: xp().cos(a), lambda g, a, o: -g * xp().sin(a))


def _zero_grad(g, a, o):
    return xp().zeros_like(a)


def floor(input):
    return _unary(input, "floor", lambda a: xp().floor(a), _zero_grad, to_float=False)


def ceil(input):
    return _unary(input, "ceil", lambda a: xp().ceil(a), _zero_grad, to_float=False)


def round(input, *, decimals=0):
    """Round half to even, to ``decimals`` places (no gradient: it is zero almost everywhere)."""
    decimals = int_arg(decimals, "decimals", "round", minimum=-300, maximum=300)
    if decimals == 0:
        return _unary(input, "round", lambda a: xp().round(a), _zero_grad, to_float=False)
    scale = 10.0 ** decimals
    return _unary(input, "round", lambda a: xp().round(a * scale) / scale, _zero_grad)


def sign(input):
    return _unary(input, "sign", lambda a: xp().sign(a), _zero_grad, to_float=False)


def _select_grads(A, B, wins):
    """Gradient rules of maximum / minimum: to the winner; split in half on a tie (as MindSpore)."""
    x = xp()

    def share(g, mine, theirs):
        won = x.astype(wins(mine, theirs), g.dtype)
        tied = x.astype(mine == theirs, g.dtype)
        return g * (won + 0.5 * tied)

    return (lambda g: share(g, A, B)), (lambda g: share(g, B, A))


def maximum(input, other):
    """Elementwise maximum; on ties the gradient is split equally between the inputs."""
    a, b, A, B = binary_operands(input, other, "maximum")
    out = _compute(xp().maximum, A, B, "maximum")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Maximum", a, b, *_select_grads(A, B, xp().greater))


def minimum(input, other):
    """Elementwise minimum; on ties the gradient is split equally between the inputs."""
    a, b, A, B = binary_operands(input, other, "minimum")
    out = _compute(xp().minimum, A, B, "minimum")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Minimum", a, b, *_select_grads(A, B, xp().less))


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
        out = _limit(out, min, xp().maximum, xp().greater_equal, "min")
    if max is not None:
        out = _limit(out, max, xp().minimum, xp().less_equal, "max")
    return out


def _limit(input, bound, find, inside, name):
    """One side of clamp: the gradient stays with ``input`` where it is within (or on) the bound."""
    a, b, A, B = binary_operands(input, bound, "clamp")
    out = _compute(find, A, B, "clamp", ("input", name))
    if _ag._depth == 0:
        return wrap(out)
    x = xp()
    return _record_binary(out, "Clamp", a, b,
                          lambda g: x.where(inside(A, B), g, x.zeros_like(g)),
                          lambda g: x.where(inside(A, B), x.zeros_like(g), g))


clip = clamp


def floor_div(x, y):
    """Floor division (no gradient)."""
    a, b, A, B = binary_operands(x, y, "floor_div")
    return wrap(_compute(xp().floor_divide, A, B, "floor_div"))




def floor_divide(input, other):
    """Same as :func:`floor_div`."""
    return floor_div(input, other)


def mod(input, other):
    """Remainder with the sign of the divisor; gradient ``1`` for ``input``."""
    a, b, A, B = binary_operands(input, other, "mod")
    out = _compute(xp().remainder, A, B, "mod")
    if _ag._depth == 0:
        return wrap(out)
    x = xp()
    return _record_binary(out, "Mod", a, b, lambda g: g, lambda g: -g * x.floor(A / B))


remainder = mod


# -- comparisons and logic (no gradient: their outputs are booleans) ------------
# Each comparison is its own function (not one closure made six times): graph mode
# recognises an op by its code object, and six closures would share one.
def _comparison(input, other, name):
    a, b, A, B = binary_operands(input, other, name)
    return wrap(_compute(getattr(xp(), name), A, B, name))


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

    def grad_a(g):
        return x.where(cond, g, x.zeros_like(g))

    def grad_b(g):
        return x.where(cond, x.zeros_like(g), g)

    return _record_binary(out, "Select", a, b, grad_a, grad_b)


# MindSpore's alternative spellings.


def subtract(input, other, *, alpha=1):
    """``input - alpha * other``."""
    return sub(input, other if alpha == 1 else mul(other, alpha))


multiply = mul
divide = true_divide = div
negative = neg
