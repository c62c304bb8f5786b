"""In-place Tensor methods: ``x.add_(y)``, ``x.masked_fill_(mask, v)``, ``x.normal_()`` ...

Each method computes the new value with the out-of-place op (so it is
checked, promoted and differentiated as that op is), casts it to the
tensor's own dtype, and makes the tensor hold it; it returns the tensor
itself.  The tensor keeps its identity, shape and dtype: a Parameter updated
in place is still the same Parameter.

*How "in place" is done.*  The Tensor is re-pointed at the new array rather
than having its old array overwritten.  Arrays saved earlier for a backward
rule therefore keep the values they had, so gradients through in-place
updates are exact (PyTorch needs version counters to catch the cases it
cannot get right; JAX makes every update functional: this is JAX's way).
The price: another Tensor sharing the old array (``Tensor.from_numpy``'s
NumPy array, a NumPy view) does not see the update.

*Gradients.*  Inside a gradient transform an in-place update of an
intermediate value is recorded like the out-of-place op, so
``y = x * 2; y.add_(1); (y * y).sum()`` differentiates to ``4 (2x + 1)``.
An in-place update of a value the transform differentiates with respect to
(an input of ``ms.grad`` or a weight: a *leaf that requires grad*) raises
RuntimeError, as MindSpore's autograd does ("A leaf tensor that requires
grad is being used in an inplace operator"): the gradient with respect to a
value that no longer exists has no meaning.

MindSpore 2.10's CPU build registers few in-place kernels: ``add_``,
``sub_``, ``mul_``, ``div_`` ... return a new tensor there and leave ``self``
unchanged, and ``log_``, ``clamp_``, ``fill_`` ... raise "kernel
unregistered".  cellkit does what MindSpore documents (and does on Ascend):
the tensor is updated.

>>> import cellkit as ms
>>> x = ms.Tensor([1.0, 2.0])
>>> y = x.add_(1.0)
>>> print(x, y is x)
[2. 3.] True
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from ._core import backend, describe, tensor_arg, wrap, xp

__all__ = []

_LEAF_MESSAGE = ("A leaf tensor that requires grad is being used in an inplace operator, "
                 "'{op}' cannot update it: differentiate with respect to a copy, or update it outside the "
                 "gradient transform")


def _ops():
    from .. import ops
    return ops


def _receiver(self, op):
    """``self`` checked: a Tensor with data, not a leaf of a running gradient transform."""
    if not isinstance(self, Tensor):
        raise TypeError(f"For 'Tensor.{op}', self must be a Tensor, but got {describe(self)}")
    if self._data is None:
        self._require_data(f"Tensor.{op}")
    if _ag._depth and isinstance(self._node, _ag.Leaf):
        raise RuntimeError(_LEAF_MESSAGE.format(op=f"Tensor.{op}"))
    return self


def _commit(self, result, op):
    """Make ``self`` hold ``result`` (cast to ``self``'s dtype; the shape must be ``self``'s); return ``self``."""
    if not isinstance(result, Tensor):
        result = tensor_arg(result, "result", op)
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"For 'Tensor.{op}', the result has shape {tuple(result.shape)}, which cannot be "
                           f"written into the tensor of shape {tuple(self.shape)} (the other operands must "
                           f"broadcast to the tensor's own shape)")
    if result.dtype is not self.dtype:
        result = _ops().cast(result, self.dtype)
    self._data = result._data
    self._node = result._node
    return self


def _fill_array(self, host, op):
    """Make ``self`` hold a host array of drawn values (constant for autograd); return ``self``."""
    from .random import _to_device

    self._data = _to_device(np.asarray(host).reshape(self.shape), self.dtype)
    self._node = None
    return self


def _alpha(alpha, op):
    if isinstance(alpha, bool) or not isinstance(alpha, (numbers.Number, np.number)):
        raise TypeError(f"For 'Tensor.{op}', 'alpha' must be a number, but got {describe(alpha)}")
    return alpha


# ------------------------------------------------------------------ arithmetic
def add_(self, other, *, alpha=1):
    """``self += alpha * other`` in place; returns ``self`` (whose dtype and shape stay).

    >>> import cellkit as ms
    >>> x = ms.Tensor([1.0, 2.0])
    >>> print(x.add_(ms.Tensor([1.0, 1.0]), alpha=2))
    [3. 4.]
    """
    _receiver(self, "add_")
    ops = _ops()
    alpha = _alpha(alpha, "add_")
    term = other if alpha == 1 else ops.mul(other, alpha)
    return _commit(self, ops.add(self, term), "add_")


def sub_(self, other, *, alpha=1):
    """``self -= alpha * other`` in place; returns ``self``."""
    _receiver(self, "sub_")
    ops = _ops()
    alpha = _alpha(alpha, "sub_")
    term = other if alpha == 1 else ops.mul(other, alpha)
    return _commit(self, ops.sub(self, term), "sub_")


def mul_(self, other):
    """``self *= other`` in place; returns ``self``."""
    _receiver(self, "mul_")
    return _commit(self, _ops().mul(self, other), "mul_")


def div_(self, other, *, rounding_mode=None):
    """``self /= other`` in place (``rounding_mode`` None, ``'floor'`` or ``'trunc'``); returns ``self``."""
    _receiver(self, "div_")
    return _commit(self, _ops().div(self, other, rounding_mode=rounding_mode), "div_")


def floor_divide_(self, other):
    """``self //= other`` in place; returns ``self``."""
    _receiver(self, "floor_divide_")
    return _commit(self, _ops().floor_divide(self, other), "floor_divide_")


def remainder_(self, other):
    """``self %= other`` in place (the sign of the divisor, as :func:`ops.remainder`); returns ``self``."""
    _receiver(self, "remainder_")
    return _commit(self, _ops().remainder(self, other), "remainder_")


def clamp_(self, min=None, max=None):
    """Clamp ``self`` into ``[min, max]`` in place; returns ``self``."""
    _receiver(self, "clamp_")
    return _commit(self, _ops().clamp(self, min, max), "clamp_")


def _unary_inplace(name, op_name=None):
    op_name = op_name or name

    def method(self):
        _receiver(self, name + "_")
        return _commit(self, getattr(_ops(), op_name)(self), name + "_")

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"``self = {op_name}(self)`` in place; returns ``self``."
    return method


exp_ = _unary_inplace("exp")
log_ = _unary_inplace("log")
floor_ = _unary_inplace("floor")
sign_ = _unary_inplace("sign")
sigmoid_ = _unary_inplace("sigmoid")
tanh_ = _unary_inplace("tanh")
erfinv_ = _unary_inplace("erfinv")  # ops.erfinv: the elementwise family's op


# ------------------------------------------------------------------ filling and copying
def _fill_value(value, op):
    if isinstance(value, Tensor):
        v = tensor_arg(value, "value", op)
        if v.ndim > 1 or v.size != 1:
            raise RuntimeError(f"For 'Tensor.{op}', a Tensor 'value' must be 0-D or of shape [1], but got shape "
                               f"{tuple(v.shape)}")
        return v.reshape(())
    if isinstance(value, (bool, numbers.Number, np.number, np.bool_)) and not isinstance(value, complex):
        return value
    raise TypeError(f"For 'Tensor.{op}', 'value' must be a number, a bool or a one-element Tensor, but got "
                    f"{describe(value)}")


def fill_(self, value):
    """Set every element of ``self`` to ``value`` (a number, a bool or a one-element Tensor); returns ``self``.

    >>> import cellkit as ms
    >>> print(ms.Tensor([1.0, 2.0]).fill_(3))
    [3. 3.]
    """
    _receiver(self, "fill_")
    value = _fill_value(value, "fill_")
    ops = _ops()
    if isinstance(value, Tensor):
        # zeros + value keeps a Tensor value's gradient
        return _commit(self, ops.add(ops.zeros_like(self), ops.cast(value, self.dtype)), "fill_")
    return _commit(self, ops.full(tuple(self.shape), value, dtype=self.dtype), "fill_")


def zero_(self):
    """Set every element of ``self`` to 0; returns ``self``."""
    _receiver(self, "zero_")
    return _commit(self, _ops().zeros_like(self), "zero_")


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast to ``self``'s shape, cast to its dtype) into ``self``; returns ``self``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([0.0, 0.0])
    >>> print(x.copy_(ms.Tensor([3, 4])))
    [3. 4.]
    """
    _receiver(self, "copy_")
    if not isinstance(src, Tensor):
        raise TypeError(f"For 'Tensor.copy_', 'src' must be a Tensor, but got {describe(src)}")
    if not isinstance(non_blocking, bool):
        raise TypeError(f"For 'Tensor.copy_', 'non_blocking' must be a bool, but got {describe(non_blocking)}")
    ops = _ops()
    src = tensor_arg(src, "src", "copy_")
    value = src if tuple(src.shape) == tuple(self.shape) else _broadcast(src, self.shape, "copy_")
    return _commit(self, value, "copy_")


def _broadcast(t, shape, op):
    try:
        return _ops().broadcast_to(t, tuple(shape))
    except (ValueError, TypeError):
        raise RuntimeError(f"For 'Tensor.{op}', the source of shape {tuple(t.shape)} cannot be broadcast to the "
                           f"tensor's shape {tuple(shape)}") from None


# ------------------------------------------------------------------ masked and indexed updates (other families' ops)
def masked_fill_(self, mask, value):
    """``self = ops.masked_fill(self, mask, value)`` in place; returns ``self``."""
    _receiver(self, "masked_fill_")
    return _commit(self, _ops().masked_fill(self, mask, value), "masked_fill_")


def masked_scatter_(self, mask, source):
    """``self = self.masked_scatter(mask, source)`` in place; returns ``self``."""
    _receiver(self, "masked_scatter_")
    return _commit(self, Tensor.masked_scatter(self, mask, source), "masked_scatter_")


def index_add_(self, dim, index, source, *, alpha=1):
    """``self[..., index[i], ...] += alpha * source[..., i, ...]`` along ``dim``, in place; returns ``self``."""
    _receiver(self, "index_add_")
    return _commit(self, Tensor.index_add(self, dim, index, source, alpha=alpha), "index_add_")


def index_fill_(self, dim, index, value):
    """``self = ops.index_fill(self, dim, index, value)`` in place; returns ``self``."""
    _receiver(self, "index_fill_")
    return _commit(self, _ops().index_fill(self, dim, index, value), "index_fill_")


def index_put_(self, indices, values, accumulate=False):
    """``self[indices] = values`` (or ``+=`` with ``accumulate``), in place; returns ``self``."""
    _receiver(self, "index_put_")
    return _commit(self, Tensor.index_put(self, indices, values, accumulate), "index_put_")


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """``self[index[i][j]][j] = src[i][j]`` along ``dim`` (``ops.scatter``), in place; returns ``self``.

    ``src`` may be a Tensor or a number (``value=`` too, MindSpore's older overload).
    """
    _receiver(self, "scatter_")
    if src is None:
        src = value
    if reduce is not None:
        return _commit(self, Tensor.scatter(self, dim, index, src, reduce=reduce), "scatter_")
    return _commit(self, _ops().scatter(self, dim, index, src), "scatter_")


def scatter_add_(self, dim, index, src):
    """``self[index[i][j]][j] += src[i][j]`` along ``dim``, in place; returns ``self``."""
    _receiver(self, "scatter_add_")
    return _commit(self, Tensor.scatter_add(self, dim, index, src), "scatter_add_")


def fill_diagonal_(self, fill_value, wrap=False):
    """Set the main diagonal of ``self`` to ``fill_value`` in place (``Tensor.fill_diagonal``); returns ``self``."""
    _receiver(self, "fill_diagonal_")
    return _commit(self, Tensor.fill_diagonal(self, fill_value, wrap), "fill_diagonal_")


def _index_vector(index, op, length=None):
    t = tensor_arg(index, "index", op) if isinstance(index, Tensor) else None
    if t is None:
        raise TypeError(f"For 'Tensor.{op}', 'index' must be an int Tensor, but got {describe(index)}")
    if t.dtype.kind not in ("int", "uint"):
        raise TypeError(f"For 'Tensor.{op}', 'index' must hold int32 or int64, but got {t.dtype}")
    return t


def index_copy_(self, dim, index, tensor):
    """Copy the slices of ``tensor`` into ``self`` at positions ``index`` along ``dim``; returns ``self``.

    ``self.index_copy_(0, idx, t)`` sets ``self[idx[i]] = t[i]`` (the last write wins on repeats).

    >>> import cellkit as ms
    >>> x = ms.Tensor([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    >>> print(x.index_copy_(0, ms.Tensor([2, 0]), ms.Tensor([[1.0, 2.0], [3.0, 4.0]])))
    [[3. 4.]
     [0. 0.]
     [1. 2.]]
    """
    op = "index_copy_"
    _receiver(self, op)
    from ._core import normalize_axis

    axis = normalize_axis(dim, self.ndim, f"Tensor.{op}", "dim")
    idx = _index_vector(index, op)
    if idx.ndim > 1:
        raise ValueError(f"For 'Tensor.{op}', 'index' must be 0-D or 1-D, but got shape {tuple(idx.shape)}")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'Tensor.{op}', 'tensor' must be a Tensor, but got {describe(tensor)}")
    src = tensor_arg(tensor, "tensor", op)
    positions = np.asarray(backend().to_host(idx._data)).reshape(-1).astype(np.int64)
    size = self.shape[axis] if self.ndim else 1
    want = list(self.shape) if self.ndim else []
    if want:
        want[axis] = positions.size
    if tuple(src.shape) != tuple(want) and not (self.ndim == 0 and src.size == 1):
        raise ValueError(f"For 'Tensor.{op}', 'tensor' must have shape {tuple(want)} (the tensor's shape with "
                         f"{positions.size} slices along dim {axis}), but got {tuple(src.shape)}")
    if positions.size and (positions.min() < -size or positions.max() >= size):
        raise ValueError(f"For 'Tensor.{op}', 'index' holds {positions.tolist()}, out of range for size {size} "
                         f"of dim {axis}")
    positions = positions % max(size, 1)
    # The last write wins: for each target position, the last i with index[i] == position.
    last = {int(p): i for i, p in enumerate(positions)}
    order = np.arange(size)
    take_from_src = np.full(size, -1)
    for p, i in last.items():
        take_from_src[p] = i
    return _commit(self, _select_slices(self, src, axis, take_from_src, order), op)


def _select_slices(base, src, axis, take_from_src, order):
    """``base`` with slice ``p`` along ``axis`` replaced by ``src``'s slice ``take_from_src[p]`` where it is >= 0."""
    ops = _ops()
    if base.ndim == 0:
        return ops.reshape(src, ()) if take_from_src[0] >= 0 else base
    be = backend()
    pick = be.from_host(np.where(take_from_src >= 0, take_from_src, 0).astype(np.int64))
    gathered = ops.gather(src, wrap(pick), axis) if src.shape[axis] else ops.zeros_like(base)
    keep_shape = [1] * base.ndim
    keep_shape[axis] = base.shape[axis]
    use_src = wrap(be.from_host((take_from_src >= 0).reshape(keep_shape)))
    return ops.where(use_src, ops.cast(gathered, base.dtype), base)


def put_(self, index, source, accumulate=False):
    """Write ``source``'s values at the flat positions ``index`` of ``self`` (add them with ``accumulate``).

    ``index`` and ``source`` have the same number of elements (any shapes); returns ``self``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([[0.0, 0.0], [0.0, 0.0]])
    >>> print(x.put_(ms.Tensor([0, 3]), ms.Tensor([5.0, 6.0])))
    [[5. 0.]
     [0. 6.]]
    """
    op = "put_"
    _receiver(self, op)
    idx = _index_vector(index, op)
    if idx.dtype is not _dt.int64:
        raise TypeError(f"For 'Tensor.{op}', 'index' must be an Int64 (long) Tensor, but got {idx.dtype}")
    if not isinstance(source, Tensor):
        raise TypeError(f"For 'Tensor.{op}', 'source' must be a Tensor, but got {describe(source)}")
    src = tensor_arg(source, "source", op)
    if src.dtype is not self.dtype:
        raise TypeError(f"For 'Tensor.{op}', 'source' must have the tensor's dtype {self.dtype}, but got {src.dtype}")
    if not isinstance(accumulate, bool):
        raise TypeError(f"For 'Tensor.{op}', 'accumulate' must be a bool, but got {describe(accumulate)}")
    positions = np.asarray(backend().to_host(idx._data)).reshape(-1)
    if positions.size != src.size:
        raise ValueError(f"For 'Tensor.{op}', 'index' and 'source' must have the same number of elements, but got "
                         f"{positions.size} and {src.size}")
    n = self.size
    if positions.size and (positions.min() < -n or positions.max() >= n):
        raise ValueError(f"For 'Tensor.{op}', 'index' holds {positions.tolist()}, out of range for a tensor of {n} "
                         f"elements")
    positions = positions % max(n, 1)
    ops = _ops()
    be = backend()
    flat = ops.reshape(self, (n,))
    values = ops.reshape(src, (positions.size,))
    if accumulate:
        from .shape_ops import scatter_add_rows
        added = scatter_add_rows(values, be.from_host(positions.astype(np.int64)), n)
        out = ops.add(flat, ops.cast(added, self.dtype))
    else:  # the last write to a position wins
        source_of = np.full(n, -1, dtype=np.int64)
        source_of[positions] = np.arange(positions.size)
        hit = wrap(be.from_host(source_of >= 0))
        moved = ops.gather(values, wrap(be.from_host(np.maximum(source_of, 0))), 0) if positions.size else flat
        out = ops.where(hit, moved, flat)
    return _commit(self, ops.reshape(out, tuple(self.shape)), op)


# ------------------------------------------------------------------ random fills
def _generator_arg(generator, op):
    from .. import seed as _seed

    if generator is None:
        return _seed.generator()
    if isinstance(generator, np.random.Generator):
        return generator
    inner = getattr(generator, "_generator", None)  # a cellkit Generator object, when one exists
    if isinstance(inner, np.random.Generator):
        return inner
    raise TypeError(f"For 'Tensor.{op}', 'generator' must be a Generator or None, but got {describe(generator)}")


def _number(value, name, op, allow_tensor=True):
    if allow_tensor and isinstance(value, Tensor):
        t = tensor_arg(value, name, op)
        if t.size != 1:
            raise ValueError(f"For 'Tensor.{op}', '{name}' as a Tensor must hold one element, but got shape "
                             f"{tuple(t.shape)}")
        return t.asnumpy().reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"For 'Tensor.{op}', '{name}' must be a number, but got {describe(value)}")
    return value


def _float_receiver(self, op):
    _receiver(self, op)
    if self.dtype.kind != "float":
        raise TypeError(f"For 'Tensor.{op}', the tensor must be a float tensor, but got {self.dtype}")
    return self


def _random_draws(generator, method, shape):
    from .. import seed as _seed
    return np.asarray(_seed.draw(generator, method, tuple(shape)), dtype=np.float64)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill ``self`` with 0/1 draws, 1 with probability ``p`` (a number or a float Tensor broadcasting to ``self``).

    >>> import cellkit as ms
    >>> print(ms.Tensor([5.0, 5.0]).bernoulli_(1.0))
    [1. 1.]
    """
    op = "bernoulli_"
    _receiver(self, op)
    gen = _generator_arg(generator, op)
    if isinstance(p, Tensor):
        pt = tensor_arg(p, "p", op)
        if pt.dtype.kind != "float":
            raise TypeError(f"For 'Tensor.{op}', a Tensor 'p' must be a float tensor, but got {pt.dtype}")
        prob = np.asarray(backend().to_host(pt._data), dtype=np.float64)
        try:
            prob = np.broadcast_to(prob, self.shape)
        except ValueError:
            raise RuntimeError(f"For 'Tensor.{op}', 'p' of shape {tuple(pt.shape)} cannot be broadcast to the "
                               f"tensor's shape {tuple(self.shape)}") from None
    else:
        prob = float(_number(p, "p", op, allow_tensor=False))
    if np.any((np.asarray(prob) < 0) | (np.asarray(prob) > 1)):
        raise ValueError(f"For 'Tensor.{op}', 'p' must be in [0, 1], but got {p if not isinstance(p, Tensor) else 'a Tensor outside it'}")
    return _fill_array(self, _random_draws(gen, "random", self.shape) < prob, op)


def normal_(self, mean=0, std=1, *, generator=None):
    """Fill ``self`` (a float tensor) with draws from ``N(mean, std**2)``; returns ``self``.

    >>> import cellkit as ms
    >>> print(ms.Tensor([0.0, 0.0]).normal_(2.0, 0.0))
    [2. 2.]
    """
    op = "normal_"
    _float_receiver(self, op)
    mean = _number(mean, "mean", op, allow_tensor=False)
    std = _number(std, "std", op, allow_tensor=False)
    gen = _generator_arg(generator, op)
    return _fill_array(self, mean + std * _random_draws(gen, "standard_normal", self.shape), op)


def uniform_(self, from_=0, to=1, *, generator=None):
    """Fill ``self`` with draws from the uniform distribution on ``[from_, to)``; returns ``self``.

    >>> import cellkit as ms
    >>> print(ms.Tensor([0.0, 0.0]).uniform_(3.0, 3.0))
    [3. 3.]
    """
    op = "uniform_"
    _receiver(self, op)
    low = _number(from_, "from_", op)
    high = _number(to, "to", op)
    if low > high:
        raise RuntimeError(f"For 'Tensor.{op}', 'from_' ({low}) must not be larger than 'to' ({high})")
    gen = _generator_arg(generator, op)
    return _fill_array(self, low + (high - low) * _random_draws(gen, "random", self.shape), op)


_INT_RANGE = {"int8": 2 ** 7, "int16": 2 ** 15, "int32": 2 ** 31, "int64": 2 ** 63, "uint8": 2 ** 8, "bool": 2,
              "float16": 2 ** 11 + 1, "bfloat16": 2 ** 8 + 1, "float32": 2 ** 24 + 1, "float64": 2 ** 53 + 1}


def random_(self, from_=0, to=None, *, generator=None):
    """Fill ``self`` with integers drawn uniformly from ``[from_, to - 1]``; returns ``self``.

    Without ``to`` the upper end is the largest value the dtype holds exactly (as PyTorch).

    >>> import cellkit as ms
    >>> print(ms.Tensor([0, 0]).random_(4, 5))
    [4 4]
    """
    op = "random_"
    _receiver(self, op)
    low = _number(from_, "from_", op)
    high = _INT_RANGE[self.dtype.array_name] if to is None else _number(to, "to", op)
    for name, v in (("from_", low), ("to", high)):
        if not np.isfinite(float(v)) or float(v) != int(v):
            raise TypeError(f"For 'Tensor.{op}', '{name}' must be an integer, but got {v!r}")
    if low >= high:
        raise RuntimeError(f"For 'Tensor.{op}', 'from_' ({low!r}) must be less than 'to' ({high!r})")
    low, high = int(low), int(high)
    gen = _generator_arg(generator, op)
    draws = np.floor(low + (float(high) - float(low)) * _random_draws(gen, "random", self.shape))
    return _fill_array(self, np.minimum(draws, high - 1), op)


def exponential_(self, lambd=1, *, generator=None):
    """Fill ``self`` (a float tensor) with draws of density ``lambd * exp(-lambd x)``; returns ``self``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([0.0, 0.0, 0.0]).exponential_(2.0)
    >>> bool((x.asnumpy() >= 0).all())
    True
    """
    op = "exponential_"
    _float_receiver(self, op)
    lambd = _number(lambd, "lambd", op, allow_tensor=False)
    if lambd <= 0:
        raise ValueError(f"For 'Tensor.{op}', 'lambd' must be positive, but got {lambd}")
    gen = _generator_arg(generator, op)
    return _fill_array(self, _random_draws(gen, "standard_exponential", self.shape) / lambd, op)


# ------------------------------------------------------------------ storage
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make ``self`` hold ``source``'s values (its shape and dtype too); with no source, an empty tensor.

    With ``size`` (and ``stride``, ``storage_offset``) ``self`` becomes that strided view of ``source``'s
    flattened values.  cellkit tensors own their arrays, so later updates of ``source`` are not seen by
    ``self`` (MindSpore shares the storage).

    >>> import cellkit as ms
    >>> x = ms.Tensor([0.0, 0.0, 0.0])
    >>> print(x.set_(ms.Tensor([1.0, 2.0])))
    [1. 2.]
    """
    op = "set_"
    _receiver(self, op)
    ops = _ops()
    if source is None:
        self._data = xp().reshape(self._data[...], (-1,))[:0] if self._data.ndim else xp().reshape(self._data, (1,))[:0]
        self._node = None
        return self
    if not isinstance(source, Tensor):
        raise TypeError(f"For 'Tensor.{op}', 'source' must be a Tensor, but got {describe(source)}")
    src = tensor_arg(source, "source", op)
    if size is None:
        if storage_offset not in (0, None) or stride is not None:
            raise ValueError(f"For 'Tensor.{op}', 'storage_offset' and 'stride' need 'size'")
        self._data = src._data
        self._node = src._node if _ag._depth else None
        return self
    from ._core import shape_arg
    dims = shape_arg(size, op, "size")
    if stride is None:
        stride = tuple(int(np.prod(dims[i + 1:], dtype=np.int64)) for i in range(len(dims)))
    strides = shape_arg(stride, op, "stride")
    if len(strides) != len(dims):
        raise ValueError(f"For 'Tensor.{op}', 'size' {dims} and 'stride' {strides} must have the same length")
    if isinstance(storage_offset, bool) or not isinstance(storage_offset, (int, np.integer)) or storage_offset < 0:
        raise ValueError(f"For 'Tensor.{op}', 'storage_offset' must be a non-negative int, but got "
                         f"{describe(storage_offset)}")
    grid = np.full(dims, int(storage_offset), dtype=np.int64)
    for axis, (d, s) in enumerate(zip(dims, strides)):
        shape = [1] * len(dims)
        shape[axis] = d
        grid = grid + (np.arange(d, dtype=np.int64) * s).reshape(shape)
    if grid.size and grid.max() >= src.size:
        raise RuntimeError(f"For 'Tensor.{op}', size {dims} with stride {strides} and offset {storage_offset} "
                           f"reaches element {int(grid.max())} of a source with {src.size} elements")
    flat = ops.reshape(src, (src.size,))
    out = ops.reshape(ops.gather(flat, wrap(backend().from_host(grid.reshape(-1))), 0), dims)
    self._data = out._data
    self._node = out._node
    return self


def itemset(self, *args):
    """A copy of ``self`` with one element set (NumPy's ``itemset``, out of place as MindSpore documents it):
    ``itemset(value)`` for a one-element tensor, ``itemset(flat_index, value)`` or ``itemset((i, j), value)``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([0.0, 0.0, 0.0])
    >>> print(x.itemset(1, 5.0), x)
    [0. 5. 0.] [0. 0. 0.]
    """
    op = "itemset"
    if not isinstance(self, Tensor):
        raise TypeError(f"For 'Tensor.{op}', self must be a Tensor, but got {describe(self)}")
    self._require_data(f"Tensor.{op}")
    if len(args) == 1:
        index, value = None, args[0]
        if self.size != 1:
            raise IndexError(f"For 'Tensor.{op}', itemset(value) needs a one-element tensor, but the tensor has "
                             f"{self.size} elements")
    elif len(args) == 2:
        index, value = args
    else:
        raise TypeError(f"For 'Tensor.{op}', expected (value) or (index, value), but got {len(args)} arguments")
    if isinstance(value, Tensor):
        value = _number(value, "value", op)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Number, np.number)):
        raise TypeError(f"For 'Tensor.{op}', 'value' must be a number, but got {describe(value)}")
    shape = tuple(self.shape)
    if index is None:
        position = 0
    elif isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        if not -self.size <= index < self.size:
            raise ValueError(f"For 'Tensor.{op}', index {index} is out of range for {self.size} elements")
        position = int(index) % self.size
    elif isinstance(index, tuple) and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                                          for i in index):
        if len(index) != len(shape):
            raise ValueError(f"For 'Tensor.{op}', the index {index} must have one entry per dimension "
                             f"({len(shape)})")
        if not all(-d <= i < d for i, d in zip(index, shape)):
            raise ValueError(f"For 'Tensor.{op}', index {index} is out of range for shape {shape}")
        position = int(np.ravel_multi_index(tuple(int(i) % d for i, d in zip(index, shape)), shape))
    else:
        raise TypeError(f"For 'Tensor.{op}', 'index' must be an int or a tuple of {len(shape)} ints, but got "
                        f"{describe(index)}")
    host = np.zeros(self.size, dtype=bool)
    host[position] = True
    ops = _ops()
    hit = wrap(backend().from_host(host.reshape(shape)))
    return ops.where(hit, ops.full(shape, value, dtype=self.dtype), self)


TENSOR_METHODS = {
    "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "exp_": exp_, "log_": log_, "floor_": floor_,
    "floor_divide_": floor_divide_, "clamp_": clamp_, "remainder_": remainder_, "sign_": sign_,
    "sigmoid_": sigmoid_, "tanh_": tanh_, "fill_": fill_, "zero_": zero_, "copy_": copy_,
    "index_copy_": index_copy_, "put_": put_, "bernoulli_": bernoulli_, "normal_": normal_, "uniform_": uniform_,
    "random_": random_, "exponential_": exponential_, "set_": set_, "itemset": itemset,
}

# In-place methods whose out-of-place op belongs to another op family: each is given to Tensor once that
# op exists (``cellkit.ops`` imports this module after the other families), so no method is offered that
# would fail for want of its op.
NEEDS_OP = {
    "erfinv_": (erfinv_, "ops", "erfinv"), "masked_fill_": (masked_fill_, "ops", "masked_fill"),
    "index_fill_": (index_fill_, "ops", "index_fill"), "scatter_": (scatter_, "ops", "scatter"),
    "masked_scatter_": (masked_scatter_, "Tensor", "masked_scatter"),
    "index_add_": (index_add_, "Tensor", "index_add"), "index_put_": (index_put_, "Tensor", "index_put"),
    "scatter_add_": (scatter_add_, "Tensor", "scatter_add"),
    "fill_diagonal_": (fill_diagonal_, "Tensor", "fill_diagonal"),
}


def available(kind, name):
    """True if ``ops.<name>`` (kind ``'ops'``) or ``Tensor.<name>`` (kind ``'Tensor'``) exists or will be
    installed by the op families imported so far."""
    import sys

    package = sys.modules.get("cellkit.ops")
    modules = [m for key, m in sys.modules.items() if key.startswith("cellkit.ops.") and m is not None]
    if kind == "ops":
        return package is not None and callable(getattr(package, name, None))
    return hasattr(Tensor, name) or any(name in getattr(m, "TENSOR_METHODS", {}) for m in modules
                                        if m.__name__ not in ("cellkit.ops.inplace", "cellkit.ops.misc"))


def methods():
    """The in-place methods to install now: all of :data:`TENSOR_METHODS`, and those of :data:`NEEDS_OP` whose op
    exists."""
    found = dict(TENSOR_METHODS)
    for name, (fn, kind, needed) in NEEDS_OP.items():
        if available(kind, needed):
            found[name] = fn
    return found
