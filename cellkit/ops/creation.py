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

__all__ = ["ones", "zeros", "ones_like", "zeros_like", "fill", "full", "full_like", "cast", "arange", "eye"]


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
    """A tensor of ``size`` filled with ``fill_value``."""
    if dtype is None:
        dtype = _dt.bool_ if isinstance(fill_value, bool) else _dt.int64 if isinstance(fill_value, int) else _dt.float32
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
