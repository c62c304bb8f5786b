"""Creating tensors (ones, zeros, fill, arange ...) and casting them.

>>> import cellkit as ms
>>> print(ones((2, 2), ms.float32))
[[1. 1.]
 [1. 1.]]
"""
from __future__ import annotations

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ._core import attach, tensor_arg, wrap, xp

__all__ = ["ones", "zeros", "ones_like", "zeros_like", "fill", "full", "full_like", "cast", "arange", "eye"]


def _shape(shape, op):
    if isinstance(shape, bool):
        raise TypeError(f"For '{op}', the shape must be an int or a tuple of ints, but got bool")
    if isinstance(shape, int):
        shape = (shape,)
    try:
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"For '{op}', the shape must be an int or a tuple of ints, but got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"For '{op}', the shape must not contain negative sizes, but got {dims}")
    return dims


def _full(shape, value, dtype, op):
    be = _backend._current
    dt = _dt.to_dtype(dtype).to_backend(be.xp)
    return be.xp.full(shape, value, dtype=dt, device=be.device) if not be.is_numpy else be.xp.full(shape, value, dtype=dt)


def ones(shape, dtype=None):
    """A tensor of ones (Float32 unless ``dtype`` says otherwise)."""
    return wrap(_full(_shape(shape, "ones"), 1, dtype or _dt.float32, "ones"))


def zeros(size, dtype=None):
    """A tensor of zeros (Float32 unless ``dtype`` says otherwise)."""
    return wrap(_full(_shape(size, "zeros"), 0, dtype or _dt.float32, "zeros"))


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
    return wrap(_full(_shape(shape, "fill"), value, type, "fill"))


def full(size, fill_value, *, dtype=None):
    """A tensor of ``size`` filled with ``fill_value``."""
    if dtype is None:
        dtype = _dt.bool_ if isinstance(fill_value, bool) else _dt.int64 if isinstance(fill_value, int) else _dt.float32
    return wrap(_full(_shape(size, "full"), fill_value, dtype, "full"))


def full_like(input, fill_value, *, dtype=None):
    x = tensor_arg(input, "input", "full_like")
    return wrap(_full(x.shape, fill_value, dtype or x.dtype, "full_like"))


def arange(start=0, end=None, step=1, *, dtype=None):
    """Evenly spaced values in ``[start, end)``; Int64 for int arguments, else Float32."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise ValueError("For 'arange', 'step' must not be 0")
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(v, int) for v in (start, end, step)) else _dt.float32
    be = _backend._current
    dt = _dt.to_dtype(dtype).to_backend(be.xp)
    if be.is_numpy:
        return wrap(be.xp.arange(start, end, step, dtype=dt))
    return wrap(be.xp.arange(start, end, step, dtype=dt, device=be.device))


def eye(n, m=None, dtype=None):
    """An ``n x m`` identity matrix."""
    be = _backend._current
    dt = _dt.to_dtype(dtype or _dt.float32).to_backend(be.xp)
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
    target = _dt.to_dtype(dtype)
    arr = x._data
    xs = xp()
    if _dt.dtype_of(arr) is target:
        return x if _ag._depth == 0 else attach(arr, "Cast", lambda g: (g,), x)
    out = xs.astype(arr, target.to_backend(xs))
    if _ag._depth == 0 or x._node is None:
        return wrap(out)
    source = arr.dtype
    # As in MindSpore the gradient passes through unchanged (cast back), even
    # through an integer dtype.
    return attach(out, "Cast", lambda g: (xs.astype(g, source),), x)
