"""Creating tensors (ones, zeros, fill, arange ...) and casting them.

>>> import cellkit as ms
>>> print(ones((2, 2), ms.float32))
[[1. 1.]
 [1. 1.]]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor, check_allocation
from ._core import describe, dtype_arg, int_arg, record, shape_arg, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

_py_range = range  # ``range`` is also an op of this module

__all__ = ["ones", "zeros", "ones_like", "zeros_like", "fill", "full", "full_like", "cast", "arange", "eye", "range",
           "linspace", "logspace", "tuple_to_array", "scalar_to_tensor", "tril_indices", "triu_indices", "one_hot",
           "sequence_mask", "Eye", "FillV2", "LinSpace", "LogSpace", "OneHot", "ScalarToTensor", "TupleToArray",
           "TrilIndices", "TriuIndices", "RaggedRange"]


def _shape(shape, op, name="shape"):
    return shape_arg(shape, op, name)


def _fill_value(value, name, op):
    """A fill value: a number or bool, or a one-element Tensor."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"For '{op}', '{name}' must be a number or a one-element Tensor, "
                             f"but got a Tensor of shape {value.shape}")
        return tensor_arg(value, name, op).asnumpy().reshape(()).item()
    if not isinstance(value, (numbers.Number, np.number, np.bool_)) or isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"For '{op}', '{name}' must be a number or a bool, but got {describe(value)}")
    return value


def _full(shape, value, dtype, op, value_name="value", dtype_name="dtype"):
    be = _backend._current
    dtype = dtype_arg(dtype, dtype_name, op)
    value = _fill_value(value, value_name, op)
    check_allocation(shape, dtype, op)
    dt = dtype.to_backend(be.xp)
    try:
        if be.is_numpy:
            return be.xp.full(shape, value, dtype=dt)
        return be.xp.full(shape, value, dtype=dt, device=be.device)
    except OverflowError:
        raise ValueError(f"For '{op}', '{value_name}' {value!r} does not fit in dtype {dtype}") from None


def ones(shape, dtype=None):
    """A tensor of ones (Float32 unless ``dtype`` says otherwise)."""
    return wrap(_full(_shape(shape, "ones"), 1, dtype or _dt.float32, "ones"))


def zeros(size, dtype=None):
    """A tensor of zeros (Float32 unless ``dtype`` says otherwise)."""
    return wrap(_full(_shape(size, "zeros", "size"), 0, dtype or _dt.float32, "zeros"))


def ones_like(input, *, dtype=None):
    """Ones with the shape (and, by default, the dtype) of ``input``."""
    x = tensor_arg(input, "input", "ones_like")
    return wrap(_full(x.shape, 1, dtype or x.dtype, "ones_like"))


def zeros_like(input, *, dtype=None):
    """Zeros with the shape (and, by default, the dtype) of ``input``."""
    x = tensor_arg(input, "input", "zeros_like")
    return wrap(_full(x.shape, 0, dtype or x.dtype, "zeros_like"))


def fill(type, shape, value):
    """A tensor of ``shape`` filled with ``value``, of dtype ``type``."""
    return wrap(_full(_shape(shape, "fill"), value, type, "fill", dtype_name="type"))


def full(size, fill_value, *, dtype=None):
    """A tensor of ``size`` filled with ``fill_value``.

    Without ``dtype`` the result is Int64 whatever ``fill_value`` is, as in MindSpore 2.10:
    ``full((2,), 1.5)`` holds ``[1, 1]``; pass ``dtype=ms.float32`` to keep the fraction.

    >>> import cellkit as ms
    >>> print(full((2,), 1.5), full((2,), 1.5, dtype=ms.float32))
    [1 1] [1.5 1.5]
    """
    if dtype is None:
        dtype = _dt.int64
        if isinstance(fill_value, (float, np.floating)) and math.isfinite(fill_value):
            if not -2 ** 63 <= fill_value < 2 ** 63:
                raise ValueError(f"For 'full', 'fill_value' {fill_value!r} does not fit in dtype Int64 (the dtype "
                                 "without 'dtype')")
            fill_value = int(fill_value)  # MindSpore truncates towards zero
    return wrap(_full(_shape(size, "full", "size"), fill_value, dtype, "full", value_name="fill_value"))


def full_like(input, fill_value, *, dtype=None):
    x = tensor_arg(input, "input", "full_like")
    return wrap(_full(x.shape, fill_value, dtype or x.dtype, "full_like", value_name="fill_value"))


def _real(value, name, op):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', '{name}' must be an int or a float, but got {describe(value)}")
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise ValueError(f"For '{op}', '{name}' must be finite, but got {value}")
    if isinstance(value, (int, np.integer)) and not -2 ** 63 <= int(value) < 2 ** 63:
        raise ValueError(f"For '{op}', '{name}' must be within the Int64 range, but got {value}")
    return value


def arange(start=0, end=None, step=1, *, dtype=None):
    """Evenly spaced values in ``[start, end)``; Int64 for int arguments, else Float32."""
    if end is None:
        start, end = 0, start
    start, end, step = (_real(v, n, "arange") for v, n in ((start, "start"), (end, "end"), (step, "step")))
    if step == 0:
        raise ValueError("For 'arange', 'step' must not be 0")
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) else _dt.float32
    dtype = dtype_arg(dtype, "dtype", "arange")
    count = (end - start) / step
    if not math.isfinite(count) or count >= 2 ** 63:
        raise ValueError(f"For 'arange', [{start}, {end}) in steps of {step} holds too many values")
    check_allocation((max(math.ceil(count), 0),), dtype, "arange", f"start={start}, end={end}, step={step}")
    if count <= 0:  # empty (NumPy refuses some empty ranges of huge endpoints)
        start, end, step = 0, 0, 1
    be = _backend._current
    dt = dtype.to_backend(be.xp)
    if be.is_numpy:
        return wrap(be.xp.arange(start, end, step, dtype=dt))
    return wrap(be.xp.arange(start, end, step, dtype=dt, device=be.device))


def eye(n, m=None, dtype=None):
    """An ``n x m`` identity matrix."""
    n = int_arg(n, "n", "eye", minimum=0)
    m = n if m is None else int_arg(m, "m", "eye", minimum=0)
    dtype = dtype_arg(dtype or _dt.float32, "dtype", "eye")
    check_allocation((n, m), dtype, "eye")
    be = _backend._current
    dt = dtype.to_backend(be.xp)
    if be.is_numpy:
        return wrap(be.xp.eye(n, m, dtype=dt))
    return wrap(be.xp.eye(n, m, dtype=dt, device=be.device))


def cast(input, dtype):
    """The same values converted to ``dtype``; the gradient is cast back to the input's dtype.

    >>> import cellkit as ms
    >>> cast(ms.Tensor([1.7, -1.2]), ms.int32)
    Tensor(shape=[2], dtype=Int32, value= [ 1, -1])
    """
    x = tensor_arg(input, "input", "cast")
    target = dtype_arg(dtype, "dtype", "cast")
    arr = x._data
    xs = xp()
    if _dt.dtype_of(arr) is target:
        return x if _ag._depth == 0 else record(arr, "Cast", _cast_rule, (x,), info=arr.dtype)
    out = xs.astype(arr, target.to_backend(xs))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    # As in MindSpore the gradient passes through unchanged (cast back), even
    # through an integer dtype.
    return record(out, "Cast", _cast_rule, (x,), info=arr.dtype)


def _cast_rule(m, node, g):
    return (m.astype(g, node.info),)


# -- sequences -------------------------------------------------------------------------------------
def _on_device(host):
    host = np.asarray(host)  # (ascontiguousarray would make a 0-D array 1-D)
    return _backend._current.from_host(host if host.flags.c_contiguous else np.ascontiguousarray(host))


def _number_or_scalar_tensor(value, name, op):
    """A Python number, or the value of a 0-D (or one-element) Tensor, and the dtype it carries (None: Python)."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"For '{op}', '{name}' must be a number or a 0-D Tensor, but got a Tensor of shape "
                             f"{tuple(value.shape)}")
        return tensor_arg(value, name, op).asnumpy().reshape(()).item(), value.dtype
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', '{name}' must be a number or a 0-D Tensor, but got {describe(value)}")
    return value, None


def range(start, end, step, maxlen=1000000):
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``.

    The three are numbers or 0-D Tensors of one dtype; ints give Int64, floats Float32 (a
    Tensor's own float dtype is kept).

    >>> import cellkit as ms
    >>> print(range(ms.Tensor(1), ms.Tensor(7), ms.Tensor(2)))
    [1 3 5]
    """
    values, dtypes = [], []
    for v, n in ((start, "start"), (end, "end"), (step, "step")):
        value, dt = _number_or_scalar_tensor(v, n, "range")
        values.append(value)
        dtypes.append(dt)
    kinds = {("float" if isinstance(v, float) else "int") if d is None else d for v, d in zip(values, dtypes)}
    if len(kinds) != 1:
        raise TypeError(f"For 'range', the dtypes of 'start', 'end' and 'step' must be the same, but got "
                        f"{[str(d) if d is not None else type(v).__name__ for v, d in zip(values, dtypes)]}")
    (kind,) = kinds
    if isinstance(kind, _dt.DType):
        dtype = _dt.int64 if kind.kind in ("int", "uint") else kind
    else:
        dtype = _dt.int64 if kind == "int" else _dt.float32
    begin, stop, delta = values
    if delta == 0:
        raise ValueError("For 'range', 'step' must not be 0")
    if (stop - begin) * delta < 0:
        raise ValueError(f"For 'range', 'step' {delta} must move 'start' {begin} towards 'end' {stop}")
    return arange(begin, stop, delta, dtype=dtype)


def linspace(start, end, steps):
    """``steps`` evenly spaced values from ``start`` to ``end`` (both included).

    ``start`` and ``end`` are numbers or 0-D float Tensors of one dtype (Float32 for numbers).

    >>> print(linspace(1, 10, 4))
    [ 1.  4.  7. 10.]
    """
    return _linspace(start, end, steps, "linspace")


def _linspace(start, end, steps, op):
    (a, da), (b, db) = _number_or_scalar_tensor(start, "start", op), _number_or_scalar_tensor(end, "end", op)
    if da is not None and db is not None and da is not db:
        raise TypeError(f"For '{op}', 'start' and 'end' must have the same dtype, but got {da} and {db}")
    dtype = da or db or _dt.float32
    if dtype.kind != "float":
        raise TypeError(f"For '{op}', 'start' and 'end' must be float, but got {dtype}")
    if isinstance(steps, Tensor):
        steps = int(steps.item())
    steps = int_arg(steps, "steps", op, minimum=1)
    check_allocation((steps,), dtype, op)
    host = np.linspace(float(a), float(b), steps).astype(dtype.to_backend(np))
    return wrap(_on_device(host))


def logspace(start, end, steps, base=10, *, dtype=_dt.float32):
    """``steps`` values ``base ** t`` for ``t`` evenly spaced from ``start`` to ``end``; ``dtype`` must be a float."""
    return _logspace(start, end, steps, base, dtype, "logspace")


def _logspace(start, end, steps, base, dtype, op):
    dtype = dtype_arg(dtype, "dtype", op)
    if dtype.kind != "float":
        raise TypeError(f"For '{op}', the 'dtype' should be one of [mindspore.float16, mindspore.float32, "
                        f"mindspore.float64], but got {dtype}")
    a, _ = _number_or_scalar_tensor(start, "start", op)
    b, _ = _number_or_scalar_tensor(end, "end", op)
    steps = int_arg(steps, "steps", op, minimum=0)
    base = int_arg(base, "base", op)
    check_allocation((steps,), dtype, op)
    host = np.power(float(base), np.linspace(float(a), float(b), steps)).astype(dtype.to_backend(np))
    return wrap(_on_device(host))


def tuple_to_array(input_x):
    """A tuple of numbers as a tensor: Int32 for ints, Float32 when any is a float (nested tuples too)."""
    if not isinstance(input_x, tuple) or not input_x:
        raise TypeError(f"For 'tuple_to_array', 'input_x' must be a non-empty tuple of numbers, but got "
                        f"{describe(input_x)}")
    host = np.asarray(input_x)
    if host.dtype.kind not in "iuf" or host.dtype == object:
        raise TypeError(f"For 'tuple_to_array', 'input_x' must hold numbers, but got {describe(input_x)}")
    flat_ints = host.ndim == 1 and host.dtype.kind in "iu"
    return wrap(_on_device(host.astype(np.int32 if flat_ints else np.float32)))


def scalar_to_tensor(input_x, dtype=_dt.float32):
    """A Python number (or bool) as a 0-D tensor of ``dtype`` (Float32 by default)."""
    if not isinstance(input_x, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"For 'scalar_to_tensor', 'input_x' must be a number or a bool, but got {describe(input_x)}")
    dtype = dtype_arg(dtype, "dtype", "scalar_to_tensor")
    return wrap(_on_device(np.asarray(input_x).astype(dtype.to_backend(np))))


def _tri_indices(row, col, offset, dtype, lower, op):
    row = int_arg(row, "row", op, minimum=0)
    col = int_arg(col, "col", op, minimum=0)
    offset = int_arg(offset, "offset", op)
    dtype = dtype_arg(dtype, "dtype", op)
    if dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"For '{op}', 'dtype' must be int32 or int64, but got {dtype}")
    check_allocation((2, row * col), dtype, op, f"row={row}, col={col}")
    found = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return wrap(_on_device(np.stack(found).astype(dtype.to_backend(np)).reshape(2, -1)))


def tril_indices(row, col, offset=0, *, dtype=_dt.int64):
    """The coordinates ``(2, N)`` of the lower triangle (on and below the ``offset`` diagonal) of a ``row x col`` matrix.

    >>> print(tril_indices(2, 2))
    [[0 1 1]
     [0 0 1]]
    """
    return _tri_indices(row, col, offset, dtype, True, "tril_indices")


def triu_indices(row, col, offset=0, *, dtype=_dt.int64):
    """The coordinates ``(2, N)`` of the upper triangle (on and above the ``offset`` diagonal)."""
    return _tri_indices(row, col, offset, dtype, False, "triu_indices")


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """A new axis ``axis`` of length ``depth`` holding ``on_value`` at each index, ``off_value`` elsewhere.

    Indices outside ``[0, depth)`` give a row of ``off_value``.  The dtype is that of
    ``on_value`` (Int64 for Python ints, Float32 for Python floats); Tensor values are
    differentiable.

    >>> import cellkit as ms
    >>> print(one_hot(ms.Tensor([0, 2]), 3))
    [[1 0 0]
     [0 0 1]]
    """
    return _one_hot(indices, depth, on_value, off_value, axis, "one_hot")


def _one_hot(indices, depth, on_value, off_value, axis, op):
    from . import math as _math
    idx = tensor_arg(indices, "indices", op)
    if _dt.dtype_of(idx._data).kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'indices' must be an int Tensor, but got dtype {idx.dtype}")
    if isinstance(depth, Tensor):
        depth = int(depth.item())
    depth = int_arg(depth, "depth", op, minimum=0)
    ndim = idx.ndim + 1
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -1 <= axis < ndim:
        raise ValueError(f"For '{op}', 'axis' must be an int in [-1, {ndim}), but got {axis!r}")
    axis = axis % ndim
    values = []
    for value, name in ((on_value, "on_value"), (off_value, "off_value")):
        if isinstance(value, Tensor):
            values.append(tensor_arg(value, name, op))
        elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            values.append(value)
        else:
            raise TypeError(f"For '{op}', '{name}' must be a number or a Tensor, but got {describe(value)}")
    on, off = values
    if isinstance(on, Tensor) and isinstance(off, Tensor) and on.dtype is not off.dtype:
        raise TypeError(f"For '{op}', 'on_value' and 'off_value' must have the same dtype, but got {on.dtype} and "
                        f"{off.dtype}")
    dtype = on.dtype if isinstance(on, Tensor) else off.dtype if isinstance(off, Tensor) else (
        _dt.float32 if isinstance(on, float) or isinstance(off, float) else _dt.int64)
    on = on if isinstance(on, Tensor) else _scalar(on, dtype, op, "on_value")
    off = off if isinstance(off, Tensor) else _scalar(off, dtype, op, "off_value")
    be = _backend._current
    xs = be.xp
    shape = [1] * ndim
    shape[axis] = depth
    positions = xs.reshape(arange(depth, dtype=_dt.dtype_of(idx._data))._data, tuple(shape))
    hit = xs.expand_dims(idx._data, axis=axis) == positions
    return _math.where(wrap(hit), on, off)


def _scalar(value, dtype, op="one_hot", name="on_value"):
    from .indexing import number_tensor
    return number_tensor(value, dtype, op, name)


def sequence_mask(lengths, maxlen=None):
    """``out[..., j] = j < lengths[...]``: a Bool mask with a new last axis of length ``maxlen``.

    >>> import cellkit as ms
    >>> print(sequence_mask(ms.Tensor([1, 3]), 4))
    [[ True False False False]
     [ True  True  True False]]
    """
    t = tensor_arg(lengths, "lengths", "sequence_mask")
    if _dt.dtype_of(t._data).kind not in ("int", "uint"):
        raise TypeError(f"For 'sequence_mask', 'lengths' must be an int Tensor, but got dtype {t.dtype}")
    if maxlen is None:
        host = t.asnumpy()
        maxlen = int(host.max()) if host.size else 0
    else:
        maxlen = int_arg(maxlen, "maxlen", "sequence_mask", minimum=1)
    xs = xp()
    steps = arange(maxlen, dtype=t.dtype)._data
    return wrap(xs.expand_dims(t._data, axis=-1) > steps)


# -- Primitives ----------------------------------------------------------------------------------
class Eye(Primitive):
    """``Eye()(n, m, t)``: an ``n x m`` identity matrix of dtype ``t``."""

    def __call__(self, n, m, t):
        return eye(n, m, t)


class FillV2(Primitive):
    """``FillV2()(shape, value)``: a tensor of ``shape`` filled with the 0-D Tensor ``value`` (its dtype)."""

    def __call__(self, shape, value):
        if isinstance(shape, Tensor):
            shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
        v = tensor_arg(value, "value", "FillV2")
        if v.size != 1:
            raise ValueError(f"For 'FillV2', 'value' must be a 0-D Tensor, but got shape {tuple(v.shape)}")
        return wrap(_full(_shape(shape, "FillV2"), v.asnumpy().reshape(()).item(), v.dtype, "FillV2"))


class LinSpace(Primitive):
    """``LinSpace()(start, stop, num)``: :func:`linspace`."""

    def __call__(self, start, stop, num):
        return _linspace(start, stop, num, "LinSpace")


class LogSpace(Primitive):
    """``LogSpace(steps=10, base=10, dtype=float32)(start, end)``: :func:`logspace`."""

    @prim_attr_register
    def __init__(self, steps=10, base=10, dtype=_dt.float32):
        int_arg(steps, "steps", "LogSpace", minimum=0)

    def __call__(self, start, end):
        return _logspace(start, end, self.steps, self.base, self.dtype, "LogSpace")


class OneHot(Primitive):
    """``OneHot(axis=-1)(indices, depth, on_value, off_value)``: :func:`one_hot`."""

    @prim_attr_register
    def __init__(self, axis=-1):
        int_arg(axis, "axis", "OneHot")

    def __call__(self, indices, depth, on_value, off_value):
        return _one_hot(indices, depth, on_value, off_value, self.axis, "OneHot")


class ScalarToTensor(Primitive):
    """``ScalarToTensor()(input_x, dtype=float32)``: :func:`scalar_to_tensor`."""

    def __call__(self, input_x, dtype=_dt.float32):
        return scalar_to_tensor(input_x, dtype)


class TupleToArray(Primitive):
    """``TupleToArray()(input_x)``: :func:`tuple_to_array`."""

    def __call__(self, input_x):
        return tuple_to_array(input_x)


class TrilIndices(Primitive):
    """``TrilIndices(row, col, offset=0, dtype=int32)()``: :func:`tril_indices`."""

    @prim_attr_register
    def __init__(self, row, col, offset=0, dtype=_dt.int32):
        int_arg(row, "row", "TrilIndices", minimum=0)
        int_arg(col, "col", "TrilIndices", minimum=0)

    def __call__(self):
        return _tri_indices(self.row, self.col, self.offset, self.dtype, True, "TrilIndices")


class TriuIndices(Primitive):
    """``TriuIndices(row, col, offset=0, dtype=int32)()``: :func:`triu_indices`."""

    @prim_attr_register
    def __init__(self, row, col, offset=0, dtype=_dt.int32):
        int_arg(row, "row", "TriuIndices", minimum=0)
        int_arg(col, "col", "TriuIndices", minimum=0)

    def __call__(self):
        return _tri_indices(self.row, self.col, self.offset, self.dtype, False, "TriuIndices")


class RaggedRange(Primitive):
    """``RaggedRange(Tsplits)(starts, limits, deltas)``: the ranges ``starts[i]:limits[i]:deltas[i]`` back to back.

    Returns ``(splits, values)``: ``values`` concatenates the ranges (the dtype of ``starts``)
    and ``splits`` (dtype ``Tsplits``) says where each begins, with the total at the end.
    """

    @prim_attr_register
    def __init__(self, Tsplits):
        dtype = dtype_arg(Tsplits, "Tsplits", "RaggedRange")
        if dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"For 'RaggedRange', 'Tsplits' must be int32 or int64, but got {dtype}")

    def __call__(self, starts, limits, deltas):
        ts = [tensor_arg(v, n, "RaggedRange") for v, n in ((starts, "starts"), (limits, "limits"),
                                                           (deltas, "deltas"))]
        if len({t.shape for t in ts}) != 1 or ts[0].ndim > 1:
            raise ValueError(f"For RaggedRange, starts, limits, and deltas must have the same shape (0-D or 1-D), "
                             f"but got {[tuple(t.shape) for t in ts]}")
        if len({t.dtype for t in ts}) != 1:
            raise TypeError(f"For 'RaggedRange', starts, limits and deltas must have one dtype, but got "
                            f"{[str(t.dtype) for t in ts]}")
        hosts = [np.atleast_1d(t.asnumpy()) for t in ts]
        if (hosts[2] == 0).any():
            raise ValueError("For 'RaggedRange', 'deltas' must not hold 0")
        pieces = [np.arange(a, b, d, dtype=hosts[0].dtype) for a, b, d in zip(*hosts)]
        splits = np.cumsum([0] + [p.size for p in pieces])
        values = np.concatenate(pieces) if pieces else np.zeros(0, hosts[0].dtype)
        split_dtype = dtype_arg(self.Tsplits, "Tsplits", "RaggedRange")
        return (wrap(_on_device(splits.astype(split_dtype.to_backend(np)))), wrap(_on_device(values)))
