"""``mint``'s random functions: each takes an optional ``generator`` (:class:`cellkit.Generator`).

Without one they draw from ``ms.default_generator``, the stream every cellkit op draws from, so
``ms.manual_seed(n)`` makes them repeat.

>>> import cellkit as ms
>>> from cellkit import mint
>>> g = ms.Generator().manual_seed(1)
>>> a = mint.rand(3, generator=g)
>>> _ = g.manual_seed(1)
>>> bool((mint.rand(3, generator=g) == a).all()), mint.randint(0, 5, (2, 2)).dtype
(True, mindspore.int64)
"""
from __future__ import annotations

import numpy as np

from .. import dtype as _dt
from .. import seed as _seed
from ..ops import random as _random
from ..ops._core import describe, wrap
from ..tensor import Tensor

__all__ = ["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like",
           "randint_like"]


def _stream(generator, op):
    from ..generator import Generator

    if generator is None:
        return _seed.generator()
    if not isinstance(generator, Generator):
        raise TypeError(f"For '{op}', 'generator' must be a Generator or None, but got {describe(generator)}")
    return generator._numpy()


def rand(*size, generator=None, dtype=None, device=None):
    """Uniform samples on ``[0, 1)`` of shape ``size``."""
    dims = _random._size_arg(size, "rand")
    d = _random._float_dtype_arg(dtype, "rand")
    return wrap(_random._to_device(_random._draw(_stream(generator, "rand"), "random", dims), d))


def randn(*size, generator=None, dtype=None, device=None):
    """Standard normal samples of shape ``size``."""
    dims = _random._size_arg(size, "randn")
    d = _random._float_dtype_arg(dtype, "randn")
    return wrap(_random._to_device(_random._draw(_stream(generator, "randn"), "standard_normal", dims), d))


def _like(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {describe(input)}")
    return tuple(input.shape)


def rand_like(input, *, dtype=None, device=None):
    """Uniform samples on ``[0, 1)`` shaped like ``input`` (its dtype unless ``dtype``)."""
    shape = _like(input, "rand_like")
    return rand(shape, dtype=input.dtype if dtype is None else dtype)


def randn_like(input, *, dtype=None, device=None):
    """Standard normal samples shaped like ``input`` (its dtype unless ``dtype``)."""
    shape = _like(input, "randn_like")
    return randn(shape, dtype=input.dtype if dtype is None else dtype)


def _int_bounds(args, op):
    for name, value in args:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(value)}")


def _integers(low, high, dims, generator, dtype, op):
    _int_bounds((("low", low), ("high", high)), op)
    if low >= high:
        raise ValueError(f"For '{op}', 'low' must be less than 'high', but got low={low}, high={high}")
    d = _dt.int64 if dtype is None else _dt.to_dtype(dtype)
    rng = _stream(generator, op)
    values = _random._draw(_Integers(rng, int(low), int(high)), "draw", dims, np.int64)
    return wrap(_random._to_device(values, d))


class _Integers:
    """A draw of integers in ``[low, high)`` through :func:`cellkit.seed.draw` (so recompute replays it)."""

    def __init__(self, rng, low, high):
        self.rng, self.low, self.high = rng, low, high
        self.bit_generator = rng.bit_generator

    def draw(self, size):
        return self.rng.integers(self.low, self.high, size=size)


def randint(*args, generator=None, dtype=None, device=None):
    """Integers drawn uniformly from ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``."""
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError(f"For 'randint', give (high, size) or (low, high, size), but got {len(args)} arguments")
    dims = _random._size_arg((size,), "randint")
    return _integers(low, high, dims, generator, dtype, "randint")


def randint_like(*args, dtype=None, device=None):
    """Integers from ``[low, high)`` shaped like ``input``: ``randint_like(input, high)`` or ``(input, low, high)``."""
    if len(args) == 2:
        (input, high), low = args, 0
    elif len(args) == 3:
        input, low, high = args
    else:
        raise TypeError(f"For 'randint_like', give (input, high) or (input, low, high), but got {len(args)} arguments")
    shape = _like(input, "randint_like")
    return _integers(low, high, shape, None, input.dtype if dtype is None else dtype, "randint_like")


def randperm(n, *, generator=None, dtype=_dt.int64):
    """A random permutation of ``0 .. n-1``."""
    _int_bounds((("n", n),), "randperm")
    if n < 0:
        raise ValueError(f"For 'randperm', 'n' must be non-negative, but got {n}")
    keys = _random._draw(_stream(generator, "randperm"), "random", (int(n),))
    return wrap(_random._to_device(np.argsort(keys, kind="stable").astype(np.int64), _dt.to_dtype(dtype)))


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal samples with ``mean`` and ``std`` (numbers or Tensors, broadcast), of shape ``size`` for numbers."""
    from .. import ops

    rng = _stream(generator, "normal")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        shape = np.broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ())))
        like = mean if isinstance(mean, Tensor) else std
        noise = wrap(_random._to_device(_random._draw(rng, "standard_normal", shape), like.dtype))
        return ops.add(ops.mul(noise, std), mean)
    if size is None:
        raise TypeError("For 'normal', 'size' must be given when 'mean' and 'std' are numbers")
    dims = _random._size_arg((size,), "normal")
    noise = wrap(_random._to_device(_random._draw(rng, "standard_normal", dims), _dt.float32))
    return ops.add(ops.mul(noise, float(std)), float(mean))


def bernoulli(input, *, generator=None):
    """1 with probability ``input`` (element-wise), else 0, in ``input``'s dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'bernoulli', 'input' must be a Tensor, but got {describe(input)}")
    return _random._bernoulli(input, input, _stream(generator, "bernoulli"), "bernoulli")


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` category indices per row, drawn with the (unnormalised) weights ``input``."""
    from ..dtype import int64

    return _random._categorical(input, num_samples, replacement, _stream(generator, "multinomial"), "multinomial",
                                int64)
