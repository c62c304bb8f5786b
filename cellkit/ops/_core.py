"""Shared plumbing for the ops: turning arguments into arrays, promotion, recording.

Every differentiable op follows one pattern: a forward on raw arrays, what
it saves for backward, and a backward rule written once in the rule
namespace ``m`` (see :mod:`cellkit.ops._rule_math`)::

    def exp(input):
        x = tensor_arg(input, "input", "exp")
        out = xp().exp(float_array(x, "exp"))
        if _ag._depth == 0 or x._node is None:    # the usual case: nothing records
            return wrap(out)
        return record(out, "Exp", _exp_rule, (x,), saved=(out,), sources=(OUTPUT,))

    def _exp_rule(m, node, g):
        (out,) = node.unpack(m)                   # arrays, or Tensors linked to the tape
        return (g * out,)                         # one gradient per input

- The forward computes on the current backend's arrays; outside a gradient
  transform it records nothing (one check, then ``wrap``).
- ``saved`` holds every array the rule needs and ``sources`` says where each
  came from: an input's index, :data:`OUTPUT`, or ``None`` for a constant
  whose derivative is zero (a mask, indices).  Nothing else may hold arrays
  for backward: memory accounting counts ``saved`` and offload moves it.
- ``info`` holds what is not an array (shapes, axes, dtypes).
- The rule uses only operators and ``m``'s functions, so the same text runs
  on arrays (fast) and on Tensors (recorded, for a gradient of a gradient).
- A *fused* op whose rule leans on intermediate arrays (batch norm, the
  losses, GELU) writes its forward in ``m`` too and, when
  ``_ag.higher_order(...)`` says a second derivative may be taken, runs that
  forward on Tensors instead: it is then recorded as its simpler ops.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import backend as _backend
from .. import dtype as _dt
from ..autograd import OUTPUT, record, unbroadcast  # noqa: F401  (re-exported for op modules)
from ..tensor import Tensor

wrap = Tensor._from_array


def xp():
    """The array namespace of the current backend."""
    return _backend._current.xp


def backend():
    return _backend._current


def tensor_arg(value, name, op):
    """``value`` as a Tensor (lists, numbers and NumPy arrays are converted).

    Raises TypeError naming ``op`` and the argument ``name`` for anything
    else (or for data no Tensor can hold), and RuntimeError for a placeholder
    Tensor that has no values.
    """
    if isinstance(value, Tensor):
        if value._data is None:
            if not value.has_init:
                raise RuntimeError(
                    f"For '{op}', the argument '{name}' is a placeholder Tensor of shape {list(value.shape)} "
                    "with no data; it can describe inputs (set_inputs) but not be computed with"
                )
            value.init_data()
        return value
    if isinstance(value, (numbers.Number, list, tuple, np.ndarray, np.generic)):
        try:
            return Tensor(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"For '{op}', the argument '{name}' must be a Tensor, a number or a list of numbers, "
                f"but got {describe(value)} ({exc})"
            ) from None
    raise TypeError(
        f"For '{op}', the argument '{name}' must be a Tensor, a number or a list, "
        f"but got {type(value).__name__}"
    )


def describe(value, limit=80):
    """A short description of a user's value for an error message: its type and (clipped) value."""
    if isinstance(value, Tensor):
        return f"Tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return f"{type(value).__name__} {text}"


_INT_LIMIT = 2 ** 63


def int_arg(value, name, op, minimum=None, maximum=None):
    """``value`` as a Python int in Int64's range (and ``[minimum, maximum]``); TypeError / ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(value)}")
    value = int(value)
    low = -_INT_LIMIT if minimum is None else minimum
    high = _INT_LIMIT - 1 if maximum is None else maximum
    if not low <= value <= high:
        bounds = (f"at least {low}" if maximum is None else f"in [{low}, {high}]") if minimum is not None else \
            (f"at most {high}" if maximum is not None else "within the Int64 range")
        raise ValueError(f"For '{op}', '{name}' must be {bounds}, but got {value}")
    return value


def dtype_arg(value, name, op):
    """``value`` as a cellkit DType; TypeError naming ``op`` and ``name`` if it names none."""
    try:
        return _dt.to_dtype(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"For '{op}', '{name}': {exc}") from None


def shape_arg(shape, op, name="shape", allow_int=True):
    """``shape`` (an int or a tuple/list of ints) as a tuple of non-negative ints in Int64's range."""
    if allow_int and isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or any(isinstance(d, bool) or not isinstance(d, (int, np.integer))
                                                    for d in shape):
        raise TypeError(f"For '{op}', '{name}' must be {'an int or ' if allow_int else ''}a tuple of ints, "
                        f"but got {describe(shape)}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 or d >= _INT_LIMIT for d in dims):
        raise ValueError(f"For '{op}', '{name}' must hold sizes in [0, 2**63), but got {dims}")
    return dims


def bool_arg(value, name, op):
    """``value`` if it is a bool; TypeError otherwise (MindSpore refuses truthy stand-ins)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {describe(value)}")
    return bool(value)


def _promote_pair(a, b, op):
    """Arrays ``a`` and ``b`` cast to one dtype by MindSpore's rules.

    Float beats int and bool (and keeps its own width: Int64 + Float32 is
    Float32, unlike NumPy's Float64); within one kind the wider type wins.
    """
    da, db = _dt.dtype_of(a), _dt.dtype_of(b)
    if da is db:
        return a, b
    x = xp()
    if da.kind == "float" and db.kind != "float":
        return a, x.astype(b, a.dtype)
    if db.kind == "float" and da.kind != "float":
        return x.astype(a, b.dtype), b
    if da.kind == "float":  # two floats: the wider; Float16 with BFloat16 meet in Float32
        if da.itemsize == db.itemsize:
            target = _dt.float32.to_backend(x)
            return x.astype(a, target), x.astype(b, target)
        return (a, x.astype(b, a.dtype)) if da.itemsize > db.itemsize else (x.astype(a, b.dtype), b)
    if _backend._current.is_numpy:
        target = np.result_type(a.dtype, b.dtype)
        return a.astype(target, copy=False), b.astype(target, copy=False)
    # Bool meets an integer: the integer's dtype (the array API has no cross-kind promotion).
    if da is _dt.bool_:
        return x.astype(a, b.dtype), b
    if db is _dt.bool_:
        return a, x.astype(b, a.dtype)
    target = x.result_type(a, b)
    return x.astype(a, target), x.astype(b, target)


def _scalar_operand(value, array, op):
    """A Python number combined with ``array``: MindSpore's weak-scalar rules.

    Returns ``(array, scalar)``.  The scalar adopts the array's dtype, except
    that an int/bool array meeting a Python float becomes Float32 first, and a
    bool array meeting a Python int becomes Int64.
    """
    be = _backend._current
    if isinstance(value, float):
        if _dt.dtype_of(array).kind != "float":
            array = be.xp.astype(array, _dt.float32.to_backend(be.xp))
    elif not isinstance(value, bool) and _dt.dtype_of(array) is _dt.bool_:
        array = be.xp.astype(array, _dt.int64.to_backend(be.xp))
    if be.is_numpy:
        if array.dtype.kind == "V":  # bfloat16: NumPy would promote a Python float to float32
            return array, array.dtype.type(value)
        return array, value
    return array, be.xp.asarray(value, dtype=array.dtype, device=be.device)


def binary_operands(a, b, op):
    """Arrays for a binary op on Tensor/number operands, after promotion.

    Returns ``(ta, tb, A, B)``: the Tensor operands (a number stays a number)
    and the arrays to compute on.
    """
    if isinstance(a, Tensor):
        A = a._data if a._data is not None else a._require_data(op)
        if isinstance(b, Tensor):
            B = b._data if b._data is not None else b._require_data(op)
            if A.dtype != B.dtype:
                A, B = _promote_pair(A, B, op)
            return a, b, A, B
        if isinstance(b, (int, float)):
            A, B = _scalar_operand(b, A, op)
            return a, b, A, B
        b = tensor_arg(b, "other", op)
        return binary_operands(a, b, op)
    if isinstance(b, Tensor):
        if isinstance(a, (int, float)):
            B, A = _scalar_operand(a, b._data if b._data is not None else b._require_data(op), op)
            return a, b, A, B
        return binary_operands(tensor_arg(a, "input", op), b, op)
    return binary_operands(tensor_arg(a, "input", op), tensor_arg(b, "other", op), op)


def check_broadcast(A, B, op, names=("input", "other")):
    """Raise a ValueError naming both shapes if ``A`` and ``B`` cannot broadcast."""
    sa, sb = tuple(getattr(A, "shape", ())), tuple(getattr(B, "shape", ()))
    for da, db in zip(reversed(sa), reversed(sb)):
        if da != db and da != 1 and db != 1:
            raise ValueError(
                f"For '{op}', the shapes of '{names[0]}' {sa} and '{names[1]}' {sb} cannot be broadcast "
                f"together (dimension {da} against {db})"
            )


def normalize_axis(axis, ndim, op, name="axis"):
    """An axis in ``[-ndim, ndim)`` as a non-negative int; ValueError otherwise."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(axis).__name__}")
    lo = -max(ndim, 1)
    hi = max(ndim, 1)
    if not lo <= axis < hi:
        raise ValueError(
            f"For '{op}', '{name}' must be in range [{lo}, {hi}), but got {axis} (the tensor has {ndim} dimensions)"
        )
    return int(axis) % hi


def normalize_axes(axis, ndim, op):
    """``None`` (all axes), an int or a tuple/list of ints -> a sorted tuple of axes."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        axes = tuple(normalize_axis(a, ndim, op) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"For '{op}', 'axis' contains a duplicate: {axis}")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, op),)


def float_array(x, op):
    """The array of Tensor ``x``, cast to Float32 if it is an int or bool tensor."""
    a = x._data
    if _dt.dtype_of(a).kind != "float":
        a = xp().astype(a, _dt.float32.to_backend(xp()))
    return a
