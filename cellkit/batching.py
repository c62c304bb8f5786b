"""Batched arrays: how ``vmap`` runs a function once for a whole batch.

A :class:`Batched` array stands for one example of a batch.  It holds the
whole batch (``physical``, the batch axis first) but shows only one
example's shape: ``shape``, ``ndim``, indexing, reductions and reshapes
all speak of one example.  NumPy's dispatch protocols (``__array_ufunc__``
and ``__array_function__``) send every NumPy call that meets one here, so
cellkit's ops -- written for one example -- run unchanged on the batch:
an op computes ``np.tanh(x)``, NumPy calls :meth:`Batched.__array_ufunc__`,
which runs ``np.tanh`` on the whole batch and wraps the result again.
Backward rules run the same way, which is why ``vmap(grad(f))`` gives
per-example gradients in one pass: a weight's gradient comes out batched.

Batch-wise rules, by family:

- elementwise (ufuncs, ``where``, ``clip``): one example's shapes are
  broadcast as NumPy would, with the batch axis kept in front;
- reductions and axis arguments (``sum``, ``max``, ``argmax``, ``concat``,
  ``stack``, ``expand_dims`` ...): every axis is moved one place right;
- shapes (``reshape``, ``transpose``, ``broadcast_to``, indexing): the batch
  axis is put in front of the new shape or key;
- ``matmul``: vectors become rows and columns, then the batch broadcasts;
- anything else NumPy dispatches (``linalg``, ``einsum`` ...): run once per
  example and stacked (the slow fallback, still exact).

What cannot be batched raises :class:`Unbatchable` -- turning a batched
value into a Python number that differs between examples, writing a batched
value into an array that is not batched, drawing random numbers, running a
hook -- and ``vmap`` then runs the function once per example instead.

Several ``vmap`` can be nested: each has a *level*, and a NumPy call is
handled for the innermost level first (the others' arrays look unbatched
to it, and their own handlers run on its results).

>>> import numpy as np
>>> x = Batched(np.arange(6.0).reshape(3, 2), level=1)   # 3 examples of shape (2,)
>>> x.shape
(2,)
>>> total = np.sum(x)                                      # one example's sum, for each example
>>> total.physical
array([1., 5., 9.])
>>> (x * np.array([10.0, 1.0])).physical[0]
array([0., 1.])
"""
from __future__ import annotations

import numpy as np

__all__ = ["Batched", "Unbatchable", "is_batched", "batch", "unbatch", "level_of"]


class Unbatchable(RuntimeError):
    """This step cannot run on a whole batch at once (``vmap`` falls back to one call per example)."""


def is_batched(value):
    """True for a :class:`Batched` array."""
    return type(value) is Batched


def level_of(values):
    """The innermost batching level among ``values`` (0 when none is batched)."""
    level = 0
    for v in values:
        if type(v) is Batched and v.level > level:
            level = v.level
    return level


def batch(array, level, axis=0):
    """A :class:`Batched` view of ``array`` whose axis ``axis`` is the batch."""
    return Batched(np.moveaxis(array, axis, 0) if axis else array, level)


def unbatch(value, level, size, axis=0):
    """The whole batch as one array with the batch at ``axis`` (a value that is not batched is repeated)."""
    if type(value) is Batched and value.level == level:
        physical = value.physical
    else:
        physical = np.broadcast_to(np.expand_dims(value, 0), (size,) + tuple(np.shape(value)))
    return np.moveaxis(physical, 0, axis) if axis else physical


def _physical(value, level, ndim):
    """``value``'s whole-batch array with its example shape left-padded to ``ndim`` axes; as is if not batched."""
    if type(value) is Batched and value.level == level:
        p = value.physical
        missing = ndim - (p.ndim - 1)
        if missing > 0:
            p = p.reshape(p.shape[:1] + (1,) * missing + p.shape[1:])
        return p
    return value


def _example_ndim(value):
    return value.ndim if type(value) is Batched else np.ndim(value)


def _axis(axis, ndim):
    """A one-example axis (possibly negative) as the whole-batch axis."""
    return (axis % max(ndim, 1)) + 1 if ndim else 1


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(_axis(a, ndim) for a in axis)
    return _axis(axis, ndim)


class Batched(np.lib.mixins.NDArrayOperatorsMixin):
    """One example of a batch, holding the whole batch (see the module docstring)."""

    __slots__ = ("physical", "level")
    __array_priority__ = 2000

    def __init__(self, physical, level):
        self.physical = physical
        self.level = level

    # -- what one example looks like ---------------------------------------------------
    @property
    def shape(self):
        return tuple(self.physical.shape[1:])

    @property
    def ndim(self):
        return self.physical.ndim - 1

    @property
    def dtype(self):
        return self.physical.dtype

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self):
        return self.physical.itemsize

    @property
    def nbytes(self):
        return self.physical.nbytes

    @property
    def batch_size(self):
        return self.physical.shape[0]

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self):
        return f"Batched(level={self.level}, example shape {self.shape}, batch {self.batch_size}, {self.dtype})"

    # -- turning into host values: only when every example agrees ----------------------
    def __array__(self, dtype=None, copy=None):
        raise Unbatchable("a batched value cannot become a NumPy array inside vmap")

    def _uniform(self):
        first = self.physical[0]
        if not np.all(self.physical == first):
            raise Unbatchable("a Python value taken from a batched tensor differs between examples")
        return first

    def __bool__(self):
        return bool(self._uniform())

    def __int__(self):
        return int(self._uniform())

    def __float__(self):
        return float(self._uniform())

    def __index__(self):
        return int(self._uniform())

    def item(self, *index):
        return self._uniform().item(*index)

    def tolist(self):
        raise Unbatchable("tolist() of a batched value inside vmap")

    # -- ndarray methods ops use ------------------------------------------------------------
    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return np.reshape(self, tuple(shape))

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return np.transpose(self, axes or None)

    @property
    def T(self):
        return np.transpose(self)

    @property
    def mT(self):
        return np.matrix_transpose(self)

    def astype(self, dtype, copy=True, **kwargs):
        return Batched(self.physical.astype(dtype, copy=copy), self.level)

    def copy(self):
        return Batched(self.physical.copy(), self.level)

    def sum(self, axis=None, dtype=None, keepdims=False, **kwargs):
        return np.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False, **kwargs):
        return np.mean(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False, **kwargs):
        return np.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False, **kwargs):
        return np.min(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, keepdims=False, **kwargs):
        return np.prod(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return np.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return np.all(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return np.argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return np.argmin(self, axis=axis, keepdims=keepdims)

    def clip(self, lo=None, hi=None):
        return np.clip(self, lo, hi)

    def fill(self, value):
        self.physical.fill(value)

    # -- indexing ----------------------------------------------------------------------------------
    def _key(self, key):
        key = key if isinstance(key, tuple) else (key,)
        advanced = [i for i, k in enumerate(key) if isinstance(k, (np.ndarray, list, Batched)) and not
                    (isinstance(k, np.ndarray) and k.ndim == 0)]
        if any(type(k) is Batched for k in key):
            raise Unbatchable("indexing with a batched index inside vmap")
        if advanced and advanced != list(range(advanced[0], advanced[-1] + 1)):
            raise Unbatchable("advanced indices that are not next to each other inside vmap")
        return (slice(None),) + key

    def __getitem__(self, key):
        return Batched(self.physical[self._key(key)], self.level)

    def __setitem__(self, key, value):
        target = self.physical[self._key(key)]
        self.physical[self._key(key)] = _physical(value, self.level, target.ndim - 1)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    # -- NumPy's dispatch ----------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        level = level_of(inputs + tuple(kwargs.get("out", ())))
        if method == "__call__":
            if ufunc is np.matmul:
                return _matmul(level, *inputs, **kwargs)
            return _elementwise(ufunc, level, inputs, kwargs)
        if method in ("reduce", "accumulate") and len(inputs) == 1 and type(inputs[0]) is Batched:
            x = inputs[0]
            kwargs = dict(kwargs)
            kwargs["axis"] = _axes(kwargs.get("axis", 0), x.ndim)
            if "out" in kwargs:
                raise Unbatchable(f"{ufunc.__name__}.{method} with out= inside vmap")
            return Batched(getattr(ufunc, method)(x.physical, **kwargs), level)
        raise Unbatchable(f"{ufunc.__name__}.{method} inside vmap")

    def __array_function__(self, func, types, args, kwargs):
        handler = _HANDLERS.get(func)
        level = level_of(list(_leaves(args)) + list(_leaves(kwargs.values())))
        if handler is not None:
            return handler(level, *args, **kwargs)
        return _per_example(func, level, args, kwargs)


def _leaves(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def _wrap(result, level):
    if isinstance(result, tuple):
        return tuple(_wrap(r, level) for r in result)
    return Batched(result, level)


def _elementwise(func, level, inputs, kwargs):
    """Broadcast one example's shapes, batch axis in front, and run ``func`` on the whole batch."""
    ndim = max((_example_ndim(v) for v in inputs), default=0)
    physical = [_physical(v, level, ndim) for v in inputs]
    out = kwargs.get("out")
    if out is not None:
        if not all(type(o) is Batched and o.level == level for o in out):
            raise Unbatchable("writing a batched result into an array that is not batched")
        kwargs = dict(kwargs, out=tuple(o.physical for o in out))
    if "where" in kwargs:
        raise Unbatchable("a ufunc's where= inside vmap")
    result = func(*physical, **kwargs)
    if out is not None:
        return out[0] if len(out) == 1 else out
    return _wrap(result, level)


def _matmul(level, a, b, **kwargs):
    """Matrix products, with NumPy's vector rules for one example's operands."""
    if kwargs:
        raise Unbatchable("matmul with keyword arguments inside vmap")
    a_nd, b_nd = _example_ndim(a), _example_ndim(b)
    a_batched = type(a) is Batched and a.level == level
    b_batched = type(b) is Batched and b.level == level
    a2 = _as_matrix(a, a_batched, row=True)
    b2 = _as_matrix(b, b_batched, row=False)
    nd = max(max(a_nd, 2), max(b_nd, 2))
    if a_batched:
        a2 = _physical(Batched(a2, level), level, nd)
    if b_batched:
        b2 = _physical(Batched(b2, level), level, nd)
    out = np.matmul(a2, b2)
    if a_nd == 1:
        out = out[..., 0, :]
    if b_nd == 1:
        out = out[..., 0]
    return Batched(out, level)


def _as_matrix(v, batched, row):
    """A vector operand as a one-row (left) or one-column (right) matrix; the whole-batch array if batched."""
    p = v.physical if batched else v
    if _example_ndim(v) == 1:
        p = np.expand_dims(p, -2 if row else -1)
    return p


def _per_example(func, level, args, kwargs):
    """The slow fallback: ``func`` once per example, results stacked (exact for pure functions)."""
    size = next(v.batch_size for v in _leaves(list(args) + list(kwargs.values()))
                if type(v) is Batched and v.level == level)

    def take(value, i):
        if isinstance(value, (list, tuple)):
            return type(value)(take(v, i) for v in value)
        if type(value) is Batched and value.level == level:
            return value.physical[i]
        return value

    results = [func(*take(args, i), **{k: take(v, i) for k, v in kwargs.items()}) for i in range(size)]
    first = results[0]
    if isinstance(first, tuple):
        return tuple(Batched(_stack([r[k] for r in results]), level) for k in range(len(first)))
    if not hasattr(first, "shape"):
        raise Unbatchable(f"{getattr(func, '__name__', func)} returned {type(first).__name__} inside vmap")
    return Batched(_stack(results), level)


def _stack(values):
    return np.stack(values)


# -- the array-function handlers -----------------------------------------------------------------------
def _reduction(numpy_fn, flattens=False):
    def handler(level, a, axis=None, *args, **kwargs):
        if type(a) is not Batched or a.level != level:
            return _per_example(numpy_fn, level, (a, axis) + args, kwargs)
        if axis is None and flattens:
            flat = a.physical.reshape(a.batch_size, -1)
            if kwargs.pop("keepdims", False):
                raise Unbatchable(f"{numpy_fn.__name__} over a flattened batch with keepdims")
            return Batched(numpy_fn(flat, 1, *args, **kwargs), level)
        out = kwargs.get("out")
        if out is not None:
            raise Unbatchable(f"{numpy_fn.__name__} with out= inside vmap")
        return Batched(numpy_fn(a.physical, _axes(axis, a.ndim), *args, **kwargs), level)

    return handler


def _only_batched(level, value, name):
    if type(value) is not Batched or value.level != level:
        raise Unbatchable(f"{name}: its first argument is not the batched one")
    return value


def _reshape(level, a, shape=None, order="C", **kwargs):
    a = _only_batched(level, a, "reshape")
    shape = kwargs.get("newshape", shape)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return Batched(a.physical.reshape((a.batch_size,) + shape, order=order), level)


def _transpose(level, a, axes=None):
    a = _only_batched(level, a, "transpose")
    axes = tuple(reversed(range(a.ndim))) if axes is None else tuple(axes)
    return Batched(np.transpose(a.physical, (0,) + tuple(_axis(x, a.ndim) for x in axes)), level)


def _matrix_transpose(level, a):
    a = _only_batched(level, a, "matrix_transpose")
    if a.ndim < 2:
        raise ValueError("matrix_transpose needs at least 2 dimensions")
    return Batched(np.swapaxes(a.physical, -1, -2), level)


def _swapaxes(level, a, axis1, axis2):
    a = _only_batched(level, a, "swapaxes")
    return Batched(np.swapaxes(a.physical, _axis(axis1, a.ndim), _axis(axis2, a.ndim)), level)


def _moveaxis(level, a, source, destination):
    a = _only_batched(level, a, "moveaxis")
    return Batched(np.moveaxis(a.physical, _axes(source, a.ndim), _axes(destination, a.ndim)), level)


def _expand_dims(level, a, axis):
    a = _only_batched(level, a, "expand_dims")
    out_nd = a.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    return Batched(np.expand_dims(a.physical, _axes(axis, out_nd)), level)


def _squeeze(level, a, axis=None):
    a = _only_batched(level, a, "squeeze")
    if axis is None:
        axis = tuple(i for i, d in enumerate(a.shape) if d == 1)
    return Batched(np.squeeze(a.physical, _axes(axis, a.ndim)), level)


def _broadcast_to(level, a, shape, subok=False):
    a = _only_batched(level, a, "broadcast_to")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return Batched(np.broadcast_to(_physical(a, level, len(shape)), (a.batch_size,) + shape), level)


def _like(numpy_fn):
    def handler(level, a, *args, **kwargs):
        a = _only_batched(level, a, numpy_fn.__name__)
        if "shape" in kwargs and kwargs["shape"] is not None:
            raise Unbatchable(f"{numpy_fn.__name__} with shape= inside vmap")
        if args and type(args[0]) is Batched:  # a batched fill value (full_like)
            return _elementwise(lambda p, v: np.broadcast_to(v, p.shape).astype(p.dtype), level, (a, args[0]), {})
        return Batched(numpy_fn(a.physical, *args, **kwargs), level)

    return handler


def _astype(level, x, dtype, /, *, copy=True, **kwargs):
    x = _only_batched(level, x, "astype")
    return Batched(x.physical.astype(dtype, copy=copy), level)


def _where(level, condition, x=None, y=None):
    if x is None and y is None:
        raise Unbatchable("where(condition) (nonzero) inside vmap")
    return _elementwise(np.where, level, (condition, x, y), {})


def _clip(level, a, a_min=None, a_max=None, **kwargs):
    values = [v for v in (a, a_min, a_max)]
    return _elementwise(lambda x, lo, hi: np.clip(x, lo, hi), level, tuple(values), {})


def _batched_list(level, arrays):
    """A list of arrays, the unbatched ones repeated along the batch: all with the batch axis in front."""
    size = next(a.batch_size for a in arrays if type(a) is Batched and a.level == level)
    return [a.physical if type(a) is Batched and a.level == level
            else np.broadcast_to(np.expand_dims(a, 0), (size,) + tuple(np.shape(a))) for a in arrays]


def _concatenate(level, arrays, axis=0, **kwargs):
    if kwargs.get("out") is not None:
        raise Unbatchable("concatenate with out= inside vmap")
    arrays = list(arrays)
    nd = _example_ndim(arrays[0])
    if axis is None:
        raise Unbatchable("concatenate with axis=None inside vmap")
    return Batched(np.concatenate(_batched_list(level, arrays), axis=_axis(axis, nd)), level)


def _stack_handler(level, arrays, axis=0, **kwargs):
    if kwargs.get("out") is not None:
        raise Unbatchable("stack with out= inside vmap")
    arrays = list(arrays)
    nd = _example_ndim(arrays[0]) + 1
    return Batched(np.stack(_batched_list(level, arrays), axis=_axis(axis, nd)), level)


def _take(level, a, indices, axis=None, **kwargs):
    if type(indices) is Batched or kwargs.get("out") is not None or type(a) is not Batched:
        return _per_example(np.take, level, (a, indices, axis), kwargs)
    if axis is None:
        return Batched(np.take(a.physical.reshape(a.batch_size, -1), indices, axis=1), level)
    return Batched(np.take(a.physical, indices, axis=_axis(axis, a.ndim)), level)


def _copyto(level, dst, src, **kwargs):
    if type(dst) is not Batched or dst.level != level:
        raise Unbatchable("copying a batched value into an array that is not batched")
    np.copyto(dst.physical, _physical(src, level, dst.ndim), **kwargs)


_HANDLERS = {
    np.sum: _reduction(np.sum), np.mean: _reduction(np.mean), np.prod: _reduction(np.prod),
    np.max: _reduction(np.max), np.min: _reduction(np.min), np.amax: _reduction(np.amax),
    np.amin: _reduction(np.amin), np.any: _reduction(np.any), np.all: _reduction(np.all),
    np.std: _reduction(np.std), np.var: _reduction(np.var),
    np.argmax: _reduction(np.argmax, flattens=True), np.argmin: _reduction(np.argmin, flattens=True),
    np.cumsum: _reduction(np.cumsum, flattens=True), np.cumprod: _reduction(np.cumprod, flattens=True),
    np.reshape: _reshape, np.transpose: _transpose, np.permute_dims: _transpose,
    np.matrix_transpose: _matrix_transpose, np.swapaxes: _swapaxes, np.moveaxis: _moveaxis,
    np.expand_dims: _expand_dims, np.squeeze: _squeeze, np.broadcast_to: _broadcast_to,
    np.zeros_like: _like(np.zeros_like), np.ones_like: _like(np.ones_like), np.empty_like: _like(np.empty_like),
    np.full_like: _like(np.full_like), np.astype: _astype, np.where: _where, np.clip: _clip,
    np.concatenate: _concatenate, np.concat: _concatenate, np.stack: _stack_handler, np.take: _take,
    np.copyto: _copyto, np.shape: lambda level, a: a.shape, np.ndim: lambda level, a: a.ndim,
    np.size: lambda level, a, axis=None: a.size if axis is None else a.shape[axis],
    np.result_type: lambda level, *args: np.result_type(*[a.dtype if type(a) is Batched else a for a in args]),
}
