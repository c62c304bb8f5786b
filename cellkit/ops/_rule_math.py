"""The two math namespaces backward rules are written in: arrays and Tensors.

A backward rule is written once, with operators (``g * out``) and the
functions of a namespace ``m`` (``m.sum(g, axis=0)``, ``m.exp(x)``).  The
backward sweep picks the namespace:

- :class:`ArrayMath` -- the rule computes on raw backend arrays (NumPy,
  CuPy, array_api_strict).  This is the usual, fast case: nothing records.
- :class:`TensorMath` -- the same functions are cellkit ops on Tensors.  The
  sweep uses it when it runs inside another gradient transform, so the
  rule's computation is recorded and can be differentiated again.

Every function exists in both, with the same signature, so a rule cannot
tell which one it has (except through ``m.tensors``, which only
:meth:`as_tensor`-style glue needs).

>>> import numpy as np
>>> from cellkit import backend
>>> m = array_math(backend.current())
>>> m.sum_to(np.ones((2, 3)), (1, 3)).tolist()
[[2.0, 2.0, 2.0]]
>>> import cellkit as ms
>>> print(TENSOR_MATH.sum_to(ms.Tensor(np.ones((2, 3))), (3,)))
[2. 2. 2.]
"""
from __future__ import annotations

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor

__all__ = ["ArrayMath", "TensorMath", "array_math", "TENSOR_MATH"]


class ArrayMath:
    """Rule functions on the raw arrays of one backend."""

    tensors = False

    def __init__(self, backend):
        xp = backend.xp
        self.backend = backend
        self.xp = xp
        # Elementwise functions are the namespace's own (bound once: the hot path).
        for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "abs", "sign", "expm1", "log1p",
                     "where", "maximum", "minimum", "matmul", "reshape", "broadcast_to", "zeros_like",
                     "ones_like", "floor", "sinh", "cosh", "atan", "asin", "acos"):
            fn = getattr(xp, name, None)
            if fn is not None:
                setattr(self, name, fn)
        from .activation import _sigmoid_array, _softplus_array

        self.sigmoid = _sigmoid_array
        self.softplus = _softplus_array
        self.permute = xp.permute_dims if hasattr(xp, "permute_dims") else xp.transpose
        self.mT = xp.matrix_transpose if hasattr(xp, "matrix_transpose") else _swap_last(xp)
        self.pow = xp.pow if hasattr(xp, "pow") else xp.power

    def sum(self, x, axis=None, keepdims=False):
        return self.xp.sum(x, axis=axis, keepdims=keepdims)

    def log_softmax(self, x, axis):
        """``log(softmax(x))`` along ``axis``, stably (the maximum is subtracted first)."""
        xp = self.xp
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))

    def mean(self, x, axis=None, keepdims=False):
        return self.xp.mean(x, axis=axis, keepdims=keepdims)

    def astype(self, x, dtype):
        """``x`` in the backend dtype ``dtype`` (returned as is if it already is)."""
        return x if x.dtype == dtype else self.xp.astype(x, dtype)

    def mask(self, condition, like):
        """A boolean array as 0/1 in ``like``'s dtype (a constant: no gradient flows into it)."""
        return self.xp.astype(condition, like.dtype)

    def sum_to(self, g, shape):
        """Sum ``g`` down to ``shape``: the backward of broadcasting."""
        return _ag.unbroadcast(g, shape)

    def grad_for(self, g, shape, dtype):
        """``g`` summed down to ``shape`` and cast to ``dtype``: one input's gradient."""
        g = _ag.unbroadcast(g, shape)
        return g if g.dtype == dtype else self.xp.astype(g, dtype)

    def expand_dims(self, x, axis):
        return self.xp.expand_dims(x, axis=axis)

    def concat(self, values, axis=0):
        return self.xp.concat(values, axis=axis)

    def take(self, x, index, axis):
        return self.xp.take(x, index, axis=axis)

    def moveaxis(self, x, source, destination):
        return self.permute(x, _moved_axes(x.ndim, source, destination))

    def scatter_add_rows(self, rows, index, length):
        """Sum ``rows[i]`` into row ``index[i]`` of zeros with ``length`` rows (the backward of a gather)."""
        return self.backend.scatter_add_rows(rows, index, length)

    def as_tensor(self, value):
        """A gradient as the Tensor a user hook receives."""
        return Tensor._from_array(value)

    def as_value(self, tensor):
        """A Tensor a user hook returned, as this namespace's gradient."""
        return tensor._data

    def call(self, array_fn, op_fn, *args):
        """Run a helper of the op's own module: ``array_fn`` here (``op_fn`` is its Tensor twin)."""
        return array_fn(*args)


def _moved_axes(ndim, source, destination):
    """The permutation that moves axis ``source`` to ``destination``."""
    axes = list(range(ndim))
    axes.insert(destination % ndim, axes.pop(source % ndim))
    return tuple(axes)


def _swap_last(xp):
    def matrix_transpose(x):
        axes = list(range(x.ndim))
        axes[-1], axes[-2] = axes[-2], axes[-1]
        return xp.transpose(x, axes)

    return matrix_transpose


class TensorMath:
    """The same functions as cellkit ops on Tensors: what a rule records for an outer transform."""

    tensors = True

    def __init__(self):
        from . import creation, linalg, math, reduce
        from . import shape_ops as shape

        self._shape = shape
        self._reduce = reduce
        self._creation = creation
        for name in ("exp", "log", "sqrt", "sin", "cos", "abs", "sign", "expm1", "log1p", "maximum",
                     "minimum", "floor"):
            setattr(self, name, getattr(math, name))
        self.where = math.where
        self.pow = math.pow
        self.matmul = linalg.matmul
        self.reshape = shape.reshape
        self.broadcast_to = shape.broadcast_to
        self.permute = shape.transpose
        self.zeros_like = creation.zeros_like
        self.ones_like = creation.ones_like

    def tanh(self, x):
        from .activation import tanh
        return tanh(x)

    def sigmoid(self, x):
        from .activation import sigmoid
        return sigmoid(x)

    def log_softmax(self, x, axis):
        from .activation import log_softmax
        return log_softmax(x, axis)

    def softplus(self, x):
        from .activation import softplus
        return softplus(x)

    def mT(self, x):
        return self._shape.swapaxes(x, -1, -2)

    def sum(self, x, axis=None, keepdims=False):
        return self._reduce.sum(x, axis, keepdims)

    def mean(self, x, axis=None, keepdims=False):
        return self._reduce.mean(x, axis, keepdims)

    def astype(self, x, dtype):
        target = _dt.dtype_of_array_dtype(dtype)
        return x if x.dtype is target else self._creation.cast(x, target)

    def mask(self, condition, like):
        return self._creation.cast(condition, like.dtype)

    def sum_to(self, g, shape):
        shape = tuple(shape)
        gshape = tuple(g.shape)
        if gshape == shape:
            return g
        extra = len(gshape) - len(shape)
        axes = tuple(range(extra)) + tuple(extra + i for i, d in enumerate(shape)
                                           if d == 1 and gshape[extra + i] != 1)
        return self._shape.reshape(self._reduce.sum(g, axes), shape)

    def grad_for(self, g, shape, dtype):
        return self.astype(self.sum_to(g, shape), dtype)

    def expand_dims(self, x, axis):
        return self._shape.expand_dims(x, axis)

    def concat(self, values, axis=0):
        return self._shape.concat(list(values), axis)

    def take(self, x, index, axis):
        return self._shape.gather(x, index, axis)

    def moveaxis(self, x, source, destination):
        return self._shape.transpose(x, _moved_axes(x.ndim, source, destination))

    def scatter_add_rows(self, rows, index, length):
        return self._shape.scatter_add_rows(rows, index, length)

    def as_tensor(self, value):
        return value

    def as_value(self, tensor):
        return tensor

    def call(self, array_fn, op_fn, *args):
        return op_fn(*args)


_by_backend = {}


def array_math(backend):
    """The :class:`ArrayMath` of ``backend`` (one per array namespace and device)."""
    key = (id(backend.xp), backend.device)
    found = _by_backend.get(key)
    if found is None or found.backend.xp is not backend.xp:
        found = _by_backend[key] = ArrayMath(backend)
    return found


TENSOR_MATH = None


def _install():
    """Create the Tensor namespace and hand both to the tape (once, when cellkit.ops is imported)."""
    global TENSOR_MATH
    TENSOR_MATH = TensorMath()
    _ag.set_rule_math(array_math, TENSOR_MATH)
