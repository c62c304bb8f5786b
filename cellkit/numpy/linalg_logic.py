"""``mindspore.numpy``'s products, comparisons of whole arrays, sorting search, dtype rules and random arrays.

>>> import cellkit.numpy as mnp
>>> a = mnp.array([[1.0, 2.0], [3.0, 4.0]])
>>> print(mnp.dot(a, a), mnp.array_equal(a, a), mnp.promote_types(mnp.int32, mnp.float32))
[[ 7. 10.]
 [15. 22.]] True Float32
"""
from __future__ import annotations

import numpy as _np

from .. import dtype as _dt
from .. import ops as _ops
from .. import seed as _seed
from ..ops import random as _random
from ..ops._core import describe, wrap
from ..tensor import Tensor
from ._convert import host, to_dtype, to_tensor

__all__ = ["dot", "inner", "outer", "kron", "tensordot", "multi_dot", "trace", "diagonal", "searchsorted",
           "isclose", "array_equal", "array_equiv", "isscalar", "promote_types", "result_type", "rand", "randn",
           "randint"]


def dot(a, b):
    """The dot product: sum over the last axis of ``a`` and the second-to-last of ``b`` (scalars multiply)."""
    at, bt = to_tensor(a, "dot"), to_tensor(b, "dot")
    if at.ndim == 0 or bt.ndim == 0:
        return _ops.mul(at, bt)
    if at.ndim == 1 and bt.ndim == 1:
        return _ops.sum(_ops.mul(at, bt))
    if bt.ndim == 1:
        return _ops.matmul(at, bt)
    return _ops.tensor_dot(at, bt, ((at.ndim - 1,), (bt.ndim - 2,)))


def inner(a, b):
    """The sum over the last axes of ``a`` and ``b``."""
    at, bt = to_tensor(a, "inner"), to_tensor(b, "inner")
    if at.ndim == 0 or bt.ndim == 0:
        return _ops.mul(at, bt)
    return _ops.tensor_dot(at, bt, ((at.ndim - 1,), (bt.ndim - 1,)))


def outer(a, b):
    """Every product of an element of the flattened ``a`` with one of the flattened ``b``."""
    return _ops.outer(_ops.reshape(to_tensor(a, "outer"), (-1,)), _ops.reshape(to_tensor(b, "outer"), (-1,)))


def kron(a, b):
    """The Kronecker product."""
    return _ops.kron(to_tensor(a, "kron"), to_tensor(b, "kron"))


def tensordot(a, b, axes=2):
    """Sums of products over the last ``axes`` axes of ``a`` and the first of ``b`` (or the listed axes)."""
    return _ops.tensor_dot(to_tensor(a, "tensordot"), to_tensor(b, "tensordot"), axes)


def multi_dot(arrays):
    """The product of a chain of matrices (1-D ends act as vectors)."""
    tensors = [to_tensor(a, "multi_dot") for a in arrays]
    if len(tensors) < 2:
        raise ValueError(f"For 'multi_dot', at least two arrays are needed, but got {len(tensors)}")
    out = tensors[0]
    for t in tensors[1:]:
        out = dot(out, t)
    return out


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal."""
    out = _ops.sum(_ops.diagonal(to_tensor(a, "trace"), offset, axis1, axis2), -1)
    return out if dtype is None else _ops.cast(out, to_dtype(dtype))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal at ``offset`` of the planes ``(axis1, axis2)``."""
    return _ops.diagonal(to_tensor(a, "diagonal"), offset, axis1, axis2)


def searchsorted(a, v, side="left", sorter=None):
    """Where each value of ``v`` would be inserted into the sorted ``a`` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"For 'searchsorted', 'side' must be 'left' or 'right', but got {side!r}")
    at = to_tensor(a, "searchsorted")
    if sorter is not None:
        at = _ops.gather(at, to_tensor(sorter, "searchsorted"), 0)
    vt = to_tensor(v, "searchsorted")
    if vt.dtype != at.dtype:
        vt = _ops.cast(vt, at.dtype)
    return _ops.searchsorted(at, vt, out_int32=True, right=side == "right")


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``|a - b| <= atol + rtol * |b|`` element-wise."""
    at, bt = to_tensor(a, "isclose"), to_tensor(b, "isclose")
    if at.dtype != bt.dtype:
        at, bt = _ops.cast(at, _dt.float32), _ops.cast(bt, _dt.float32)
    return _ops.isclose(at, bt, rtol, atol, equal_nan)


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have the same shape and elements: a Bool Tensor of shape ()."""
    at, bt = to_tensor(a1, "array_equal"), to_tensor(a2, "array_equal")
    if tuple(at.shape) != tuple(bt.shape):
        return Tensor(False)
    same = _ops.eq(at, bt)
    if equal_nan:
        same = _ops.logical_or(same, _ops.logical_and(_ops.isnan(at), _ops.isnan(bt)))
    return _ops.all(same)


def array_equiv(a1, a2):
    """Whether the arrays are equal after broadcasting: a Bool Tensor of shape ()."""
    at, bt = to_tensor(a1, "array_equiv"), to_tensor(a2, "array_equiv")
    try:
        _np.broadcast_shapes(tuple(at.shape), tuple(bt.shape))
    except ValueError:
        return Tensor(False)
    return _ops.all(_ops.eq(at, bt))


def isscalar(element):
    """Whether ``element`` is a Python number, bool or str (a Tensor is not)."""
    return isinstance(element, (int, float, bool, complex, str))


def promote_types(type1, type2):
    """The dtype two dtypes combine to: the float one when a float meets an integer (MindSpore's rule, where
    NumPy would widen ``int32`` with ``float32`` to ``float64``), NumPy's promotion otherwise."""
    a, b = to_dtype(type1), to_dtype(type2)
    a_float, b_float = str(a).startswith("Float"), str(b).startswith("Float")
    if a_float != b_float:
        return a if a_float else b
    return _dt.to_dtype(_np.promote_types(_np_name(a), _np_name(b)).name)


def _np_name(d):
    return "bool" if str(d) == "Bool" else str(d).lower()


def result_type(*arrays_and_dtypes):
    """The dtype the inputs combine to by :func:`promote_types` (Python floats count as Float32, ints as Int32)."""
    if not arrays_and_dtypes:
        raise ValueError("For 'result_type', at least one array or dtype is needed")
    kinds = []
    for x in arrays_and_dtypes:
        if isinstance(x, Tensor):
            kinds.append(x.dtype)
        elif isinstance(x, bool):
            kinds.append(_dt.bool_)
        elif isinstance(x, int):
            kinds.append(_dt.int32)
        elif isinstance(x, float):
            kinds.append(_dt.float32)
        else:
            kinds.append(to_dtype(x))
    out = kinds[0]
    for k in kinds[1:]:
        out = promote_types(out, k)
    return out


def _shape_args(shape, op):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _random._size_arg(shape, op)


def rand(*shape, dtype=_dt.float32):
    """Uniform samples on ``[0, 1)`` of ``shape``."""
    dims = _shape_args(shape, "rand")
    return wrap(_random._to_device(_random._draw(_seed.generator(), "random", dims), to_dtype(dtype)))


def randn(*shape, dtype=_dt.float32):
    """Standard normal samples of ``shape``."""
    dims = _shape_args(shape, "randn")
    return wrap(_random._to_device(_random._draw(_seed.generator(), "standard_normal", dims), to_dtype(dtype)))


def randint(minval, maxval=None, shape=None, dtype=_dt.int32):
    """Integers drawn uniformly from ``[minval, maxval)`` (``[0, minval)`` when ``maxval`` is None)."""
    from ..mint._random import _Integers

    if maxval is None:
        minval, maxval = 0, minval
    for name, value in (("minval", minval), ("maxval", maxval)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For 'randint', '{name}' must be an int, but got {describe(value)}")
    if minval >= maxval:
        raise ValueError(f"For 'randint', 'minval' must be less than 'maxval', but got {minval} and {maxval}")
    dims = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    values = _random._draw(_Integers(_seed.generator(), minval, maxval), "draw", dims, _np.int64)
    return wrap(_random._to_device(values, to_dtype(dtype)))
