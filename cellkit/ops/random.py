"""Dropout: randomly zero elements during training, reproducibly.

The random mask is drawn on the host from :func:`cellkit.seed.generator`
(through the backend's ``random_uniform``) and moved to the device, so
``ms.set_seed(n)`` gives the same masks on NumPy, CuPy and every other
backend.  Kept elements are scaled by ``1 / (1 - p)`` so the expected value
of each element is unchanged.

>>> import cellkit as ms
>>> from cellkit import ops
>>> ms.set_seed(0)
>>> y = ops.dropout(ms.Tensor([1.0, 1.0, 1.0, 1.0]), p=0.5)
>>> sorted(set(y.asnumpy().tolist()) | {0.0, 2.0})
[0.0, 2.0]
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import autograd as _ag
from .. import batching as _batching
from .. import dtype as _dt
from .. import seed as _seed
from ._core import backend, float_array, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = ["dropout", "Dropout", "dropout1d", "dropout2d", "dropout3d", "Dropout2D", "Dropout3D"]

# Generators for explicit ``seed=`` arguments: each seed gets its own stream,
# restarted whenever ``set_seed`` replaces the global generator.
_seeded_streams = {"owner": None, "streams": {}}


def _check_seed(value, name, op):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {value}")
    return int(value)


def _stream(seed):
    """The generator a draw with op-level ``seed`` uses (the global one for ``None``)."""
    shared = _seed.generator()
    if seed is None:
        return shared
    if _seeded_streams["owner"] is not shared:  # set_seed was called: start every stream afresh
        _seeded_streams["owner"] = shared
        _seeded_streams["streams"] = {}
    streams = _seeded_streams["streams"]
    if seed not in streams:
        global_seed = _seed.get_seed()
        streams[seed] = np.random.default_rng([seed] if global_seed is None else [global_seed, seed])
    return streams[seed]


def _keep_mask(like, keep_prob, generator):
    """A boolean array shaped like the array ``like``: True with probability ``keep_prob``, drawn on the host."""
    if _batching.is_batched(like):  # one mask would serve every example: vmap draws example by example instead
        raise _batching.Unbatchable("random draws inside vmap are made one example at a time")
    shape = like.shape
    be = backend()
    u = be.random_uniform(generator, shape, xp().float32)
    if keep_prob >= 1:  # float32 rounding can turn a draw just below 1 into 1.0
        return u <= 1
    return u < keep_prob


def _apply_mask(t, a, keep, scale, op):
    x = xp()
    # A multiply (as PyTorch does) rather than ``where``: no branch per element.
    out = a * (x.astype(keep, a.dtype) * scale)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, op, _dropout_rule, (t,), (keep,), (None,), scale)


def _dropout_rule(m, node, g):
    """The same mask and scale as the forward pass (the mask is a constant)."""
    (keep,) = node.unpack(m)
    return (g * (m.mask(keep, g) * node.info),)


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Parameters
    ----------
    p : float in [0, 1)
        The probability of dropping an element.
    training : bool
        When False (or ``p == 0``) the input is returned unchanged.
    seed : int, optional
        Give this call its own random stream (reproducible after ``set_seed``);
        by default the global generator is used.

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1).
    TypeError
        If ``p`` is not a number or ``seed`` not an int.

    >>> import cellkit as ms
    >>> print(dropout(ms.Tensor([1.0, 2.0]), p=0.5, training=False))
    [1. 2.]
    """
    op = "dropout"
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For '{op}', 'p' must be a float, but got {type(p).__name__}")
    if not 0 <= p < 1:
        raise ValueError(f"For '{op}', 'p' must be in [0, 1), but got {p}")
    if seed is not None:
        seed = _check_seed(seed, "seed", op)
    t = tensor_arg(input, "input", op)
    if not training or p == 0:
        return t
    a = float_array(t, op)
    keep = _keep_mask(a, 1 - p, _stream(seed))
    return _apply_mask(t, a, keep, 1 / (1 - p), "Dropout")


class Dropout(Primitive):
    """``Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x)`` -> ``(output, mask)``.

    ``mask`` has the shape and dtype of ``x`` and holds 1 where an element was
    kept, 0 where it was dropped.  With both seeds 0 the global generator is
    used; otherwise the primitive owns a generator seeded by ``(Seed0, Seed1)``.

    >>> import cellkit as ms
    >>> out, mask = Dropout(keep_prob=1.0)(ms.Tensor([1.0, 2.0]))
    >>> print(out, mask)
    [1. 2.] [1. 1.]
    """

    @prim_attr_register
    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        op = "Dropout"
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, numbers.Real):
            raise TypeError(f"For '{op}', 'keep_prob' must be a float, but got {type(keep_prob).__name__}")
        if not 0 < keep_prob <= 1:
            raise ValueError(f"For '{op}', 'keep_prob' must be in (0, 1], but got {keep_prob}")
        seeds = (_check_seed(Seed0, "Seed0", op), _check_seed(Seed1, "Seed1", op))
        self._generator = np.random.default_rng(seeds) if any(seeds) else None

    def __call__(self, x):
        op = "Dropout"
        t = tensor_arg(x, "x", op)
        a = float_array(t, op)
        generator = self._generator if self._generator is not None else _seed.generator()
        keep = _keep_mask(a, self.keep_prob, generator)
        out = _apply_mask(t, a, keep, 1 / self.keep_prob, op)
        return out, wrap(xp().astype(keep, a.dtype))


# ================================================================== random draws
# Every draw is made on the host from a NumPy Generator (the global one of
# ``cellkit.seed``, a stream of its own for an op-level ``seed``, or the one a
# Primitive owns) and moved to the device explicitly, so ``ms.set_seed(n)``
# makes every op reproducible on every backend.  MindSpore's generators are
# different ones: the values never match MindSpore's, only the distributions
# do (``tests/mindspore_cases/random_draws.py`` compares shapes, dtypes,
# supports and moments with MindSpore's).
__all__ = __all__ + [
    "bernoulli", "multinomial", "multinomial_with_replacement", "normal", "uniform", "rand", "randn",
    "randn_like", "randperm", "random_categorical", "shuffle", "standard_normal", "standard_laplace",
    "laplace", "choice_with_mask", "Bernoulli", "Cauchy", "LogNormalReverse", "Multinomial",
    "MultinomialWithReplacement", "RandomCategorical", "RandomChoiceWithMask", "RandomShuffle",
    "StandardLaplace", "StandardNormal",
]

from ..tensor import Tensor  # noqa: E402
from ._core import describe, dtype_arg  # noqa: E402

_SEED_MASK = (1 << 63) - 1


def _optional_seed(seed, op, name="seed"):
    """``None`` or an int (any sign: MindSpore takes -1 for "no seed")."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"For '{op}', the type of '{name}' must be 'int', but got {describe(seed)}")
    return int(seed)


def _fixed_generator(*seeds):
    """A fresh generator for these seeds: the same draws at every call (MindSpore's fixed-seed ops)."""
    global_seed = _seed.get_seed()
    key = [s & _SEED_MASK for s in seeds]
    return np.random.default_rng(key if global_seed is None else [global_seed] + key)


def _call_stream(seed):
    """The global generator for ``None`` / -1, else the advancing stream of that seed."""
    return _seed.generator() if seed is None or seed == -1 else _stream(seed & _SEED_MASK)


class _OwnGenerator:
    """A Primitive's generator: the global one when both seeds are 0, else its own, seeded once."""

    def __init__(self, seed, seed2):
        self.seeds = (seed & _SEED_MASK, seed2 & _SEED_MASK)
        self.own = np.random.default_rng(list(self.seeds)) if any(self.seeds) else None

    def get(self):
        return self.own if self.own is not None else _seed.generator()


def _draw(generator, method, shape, dtype=np.float64):
    """``generator.<method>(size=shape)`` on the host (replayable by recompute), as a host array of ``dtype``."""
    return np.asarray(_seed.draw(generator, method, tuple(int(d) for d in shape)), dtype=dtype)


def _to_device(host, dtype):
    """A host array as a device array of cellkit dtype ``dtype``."""
    be = backend()
    if dtype is _dt.bfloat16:
        return be.from_host(host.astype(dtype.to_backend(np)))
    return be.from_host(np.array(host, dtype=np.dtype(dtype.array_name), order="C"))


def _refuse_batched(*arrays):
    for a in arrays:
        if _batching.is_batched(a):  # one draw would serve every example: vmap draws example by example
            raise _batching.Unbatchable("random draws inside vmap are made one example at a time")


def _float_dtype_arg(dtype, op, allowed=None, default=_dt.float32, error=ValueError):
    if dtype is None:
        return default
    d = dtype_arg(dtype, "dtype", op)
    if allowed is None:
        if d.kind != "float":
            raise error(f"For '{op}', the 'dtype' must be a float type, but got {d}")
    elif d not in allowed:
        names = ", ".join(f"mindspore.{a.array_name}" for a in allowed)
        raise TypeError(f"For '{op}', the 'dtype' must be one of [{names}], but got {d!r}")
    return d


def _size_arg(size, op, name="size", allow_zero=True):
    """``*size`` (ints, or one tuple/list of ints) as a tuple of dimensions."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if len(size) == 1 and isinstance(size[0], Tensor):
        size = tuple(size[0].asnumpy().reshape(-1).tolist())
    if len(size) == 0:
        return (1,)  # MindSpore's rand() / randn() with no size give one value
    for d in size:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"For '{op}', '{name}' must be ints or one tuple/list of ints, but got {describe(d)} "
                            f"in {describe(size)}")
    dims = tuple(int(d) for d in size)
    for i, d in enumerate(dims):
        if d < 0 or (d == 0 and not allow_zero) or d >= 2 ** 62:
            raise ValueError(f"For '{op}', dimension {i} of '{name}' must be "
                             f"{'>= 0' if allow_zero else 'positive'} (and below 2**62), but got {d} in {dims}")
    from ..tensor import check_allocation
    check_allocation(dims, _dt.float64, op, f"'{name}' {dims}")
    return dims


def _shape_tuple_arg(shape, op, name="shape", allow_tensor=True, allow_zero=True, allow_list=False):
    """A tuple of non-negative ints (or a 1-D int Tensor), MindSpore's ``shape`` argument of the samplers."""
    if allow_tensor and isinstance(shape, Tensor):
        t = tensor_arg(shape, name, op)
        if t.ndim != 1 or t.dtype.kind not in ("int", "uint"):
            raise ValueError(f"For '{op}', '{name}' as a Tensor must be 1-D with ints, but got a Tensor of "
                             f"shape {tuple(t.shape)} and dtype {t.dtype}")
        shape = tuple(t.asnumpy().tolist())
    if allow_list and isinstance(shape, list):
        shape = tuple(shape)
    if not isinstance(shape, tuple) or any(isinstance(d, bool) or not isinstance(d, (int, np.integer))
                                           for d in shape):
        raise TypeError(f"For '{op}', '{name}' must be a tuple of ints{' or a 1-D int Tensor' if allow_tensor else ''}"
                        f", but got {describe(shape)}")
    return _size_arg(tuple(shape), op, name, allow_zero) if shape else ()


def _tensor_only(value, name, op):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {describe(value)}")
    return tensor_arg(value, name, op)


def _dtype_in(t, allowed, name, op):
    if t.dtype not in allowed:
        names = ", ".join(f"Tensor[{a}]" for a in allowed)
        raise TypeError(f"For '{op}', the input argument '{name}' must be a type of {{{names}}}, "
                        f"but got Tensor[{t.dtype}]")


# ------------------------------------------------------------------ Bernoulli
_BERNOULLI_INPUT = (_dt.bool_, _dt.float32, _dt.float64, _dt.int16, _dt.int32, _dt.int64, _dt.int8, _dt.uint8)


def _bernoulli(input, p, generator, op):
    x = _tensor_only(input, "input", op)
    _dtype_in(x, _BERNOULLI_INPUT, "input", op)
    if isinstance(p, Tensor):
        pt = tensor_arg(p, "p", op)
        _dtype_in(pt, (_dt.float32, _dt.float64), "p", op)
        if tuple(pt.shape) != tuple(x.shape) and pt.size != 1:
            raise ValueError(f"For '{op}', 'input' and 'p' should have the same shape or 'p' a size of 1, but got "
                             f"'input' shape {tuple(x.shape)} and 'p' shape {tuple(pt.shape)}")
        prob = pt._data if pt.size != 1 or pt.ndim == x.ndim else xp().reshape(pt._data, ())
        prob = xp().astype(prob, _dt.float64.to_backend(xp()))
    elif isinstance(p, float):  # a Python int is refused, as MindSpore refuses an Int64 probability
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"For '{op}', 'p' should be in [0, 1], but got {p}")
        prob = float(p)
    else:
        raise TypeError(f"For '{op}', 'p' must be a float in [0, 1] or a float32/float64 Tensor, but got "
                        f"{describe(p)}")
    _refuse_batched(x._data)
    hit = _to_device(_draw(generator, "random", x.shape), _dt.float64) < prob
    return wrap(xp().astype(hit, x._data.dtype))


def bernoulli(input, p=0.5, seed=None):
    """Draw 0 or 1 for each element of ``input``: 1 with probability ``p``; the result has ``input``'s dtype.

    Parameters
    ----------
    input : Tensor
        Gives the shape and dtype (Bool, Float32/64, Int8/16/32/64 or UInt8; not Float16).
    p : float or Tensor
        The probability of a 1, in [0, 1]; a Float32/Float64 Tensor of ``input``'s shape (or of one element).
    seed : int, optional
        With a seed the draw is the same at every call (until ``ms.set_seed`` changes the global seed);
        ``None`` or ``-1`` draws from the global generator.

    >>> import cellkit as ms
    >>> print(bernoulli(ms.Tensor([1.0, 2.0, 3.0]), p=1.0))
    [1. 1. 1.]
    """
    op = "bernoulli"
    seed = _optional_seed(seed, op)
    generator = _seed.generator() if seed is None or seed == -1 else _fixed_generator(seed)
    return _bernoulli(input, p, generator, op)


class Bernoulli(Primitive):
    """``Bernoulli(seed=-1, offset=0)(x, p)``: :func:`bernoulli` with the Primitive's own generator.

    With ``seed=-1`` the global generator is used; any other seed gives the Primitive a generator of
    its own (seeded by ``seed`` and ``offset``), which advances at every call.

    >>> import cellkit as ms
    >>> print(Bernoulli()(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 1.0])))
    [0. 1.]
    """

    @prim_attr_register
    def __init__(self, seed=-1, offset=0):
        seed = _optional_seed(seed, "Bernoulli")
        offset = _optional_seed(offset, "Bernoulli", "offset")
        self._generator = None if seed == -1 else np.random.default_rng([seed & _SEED_MASK, offset & _SEED_MASK])

    def __call__(self, x, p):
        generator = self._generator if self._generator is not None else _seed.generator()
        return _bernoulli(x, p, generator, "Bernoulli")


# ------------------------------------------------------------------ continuous samplers
def _normal_array(generator, shape, dtype):
    return _to_device(_draw(generator, "standard_normal", shape), dtype)


def _parameter_tensor(value, name, op, numbers=True):
    if isinstance(value, Tensor):
        return tensor_arg(value, name, op)
    if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        return Tensor(float(value))
    raise TypeError(f"For '{op}', '{name}' must be a Tensor{' or a number' if numbers else ''}, but got "
                    f"{describe(value)}")


def _broadcast_shape(op, *shapes):
    out = []
    for dims in zip(*[(1,) * (max(map(len, shapes)) - len(s)) + tuple(s) for s in shapes]):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"For '{op}', the shapes {[tuple(s) for s in shapes]} cannot be broadcast together")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _shifted_scaled(noise, loc, scale, op, dtype):
    """``loc + scale * noise`` as recorded ops (so ``loc`` and ``scale`` are differentiable)."""
    from . import math as _math
    from .creation import cast

    loc = cast(loc, dtype) if loc.dtype is not dtype else loc
    scale = cast(scale, dtype) if scale.dtype is not dtype else scale
    return _math.add(_math.mul(wrap(noise), scale), loc)


def _sampler_dtype(*tensors):
    return _dt.float64 if any(t.dtype is _dt.float64 for t in tensors) else _dt.float32


def normal(shape, mean, stddev, seed=None):
    """Samples of the normal distribution ``N(mean, stddev**2)``.

    The draw has shape ``shape``; ``mean`` and ``stddev`` (Tensors or numbers) broadcast against it, so
    the result has the broadcast shape (a draw of shape ``(3, 1, 2)`` with a ``mean`` of shape ``(2, 2)``
    gives ``(3, 2, 2)``, the same draw repeated along the broadcast axis, as in MindSpore).  Float64
    parameters give a Float64 result, all others Float32.  The result is differentiable with respect to
    ``mean`` and ``stddev``.

    >>> import cellkit as ms
    >>> print(normal((2,), ms.Tensor(1.5), ms.Tensor(0.0)))
    [1.5 1.5]
    """
    op = "normal"
    dims = _shape_tuple_arg(shape, op, allow_tensor=False, allow_zero=False)
    mean_t = _parameter_tensor(mean, "mean", op)
    std_t = _parameter_tensor(stddev, "stddev", op)
    seed = _optional_seed(seed, op)
    _broadcast_shape(op, dims, mean_t.shape, std_t.shape)
    dtype = _sampler_dtype(mean_t, std_t)
    _refuse_batched(mean_t._data, std_t._data)
    noise = _normal_array(_call_stream(seed), dims, dtype)
    return _shifted_scaled(noise, mean_t, std_t, op, dtype)


def uniform(shape, minval, maxval, seed=None, dtype=_dt.float32):
    """Samples of the uniform distribution on ``[minval, maxval)``.

    ``dtype`` is Float32 (``minval + (maxval - minval) * U``, ``minval``/``maxval`` broadcasting against
    ``shape`` as in :func:`normal`) or Int32 (integers in ``[minval, maxval)``, one-element bounds).
    ``minval`` and ``maxval`` must be Tensors of that dtype.

    >>> import cellkit as ms
    >>> print(uniform((3,), ms.Tensor(1, ms.int32), ms.Tensor(2, ms.int32), dtype=ms.int32))
    [1 1 1]
    """
    op = "uniform"
    dims = _shape_tuple_arg(shape, op)
    if not isinstance(minval, Tensor) or not isinstance(maxval, Tensor):
        raise TypeError(f"For '{op}', 'minval' and 'maxval' must be Tensors, but got {describe(minval)} and "
                        f"{describe(maxval)}")
    lo = tensor_arg(minval, "minval", op)
    hi = tensor_arg(maxval, "maxval", op)
    seed = _optional_seed(seed, op)
    d = dtype_arg(dtype, "dtype", op)
    if d not in (_dt.int32, _dt.float32):
        raise TypeError(f"For '{op}', 'dtype' must be mindspore.int32 or mindspore.float32, but got {d!r}")
    for name, t in (("minval", lo), ("maxval", hi)):
        if t.dtype is not d:
            raise TypeError(f"For '{op}', the dtype of '{name}' ({t.dtype}) must be the 'dtype' asked for ({d})")
    _refuse_batched(lo._data, hi._data)
    generator = _call_stream(seed)
    if d is _dt.int32:
        for name, t in (("minval", lo), ("maxval", hi)):
            if t.size != 1:
                raise ValueError(f"For '{op}', an int32 '{name}' must be a scalar Tensor, but got shape "
                                 f"{tuple(t.shape)}")
        low, high = int(lo.asnumpy().reshape(())), int(hi.asnumpy().reshape(()))
        if high <= low:
            raise ValueError(f"For '{op}', 'minval' must be less than 'maxval' for int32, but got {low} and {high}")
        u = _draw(generator, "random", dims)
        return wrap(_to_device(np.minimum(np.floor(low + u * (high - low)), high - 1), _dt.int32))
    _broadcast_shape(op, dims, lo.shape, hi.shape)
    from . import math as _math
    noise = _to_device(_draw(generator, "random", dims), _dt.float32)
    return _math.add(_math.mul(wrap(noise), _math.sub(hi, lo)), lo)


def rand(*size, dtype=None, seed=None):
    """Uniform samples on ``[0, 1)`` of shape ``size`` (ints, or one tuple/list); a float ``dtype`` (Float32).

    >>> rand(2, 3).shape
    (2, 3)
    """
    op = "rand"
    dims = _size_arg(size, op)
    d = _float_dtype_arg(dtype, op)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"For '{op}', the 'seed' must be int and must >= 0, but got {describe(seed)}")
    return wrap(_to_device(_draw(_call_stream(seed), "random", dims), d))


def randn(*size, dtype=None, seed=None):
    """Standard normal samples of shape ``size`` (ints, or one tuple/list); a float ``dtype`` (Float32).

    >>> randn((2, 2), dtype=ms.float64).dtype if False else randn(2, 2).shape
    (2, 2)
    """
    op = "randn"
    dims = _size_arg(size, op)
    d = _float_dtype_arg(dtype, op)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"For '{op}', the 'seed' must be int and must >= 0, but got {describe(seed)}")
    return wrap(_normal_array(_call_stream(seed), dims, d))


def randn_like(input, seed=None, *, dtype=None):
    """Standard normal samples shaped like ``input``; Float32 unless ``dtype`` says otherwise (as MindSpore 2.10).

    >>> import cellkit as ms
    >>> print(randn_like(ms.Tensor([1, 2])).dtype)
    Float32
    """
    op = "randn_like"
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor, but got {describe(input)}")
    x = tensor_arg(input, "input", op)
    d = _float_dtype_arg(dtype, op)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"For '{op}', the 'seed' must be int and must >= 0, but got {describe(seed)}")
    _refuse_batched(x._data)
    return wrap(_normal_array(_call_stream(seed), x.shape, d))


def standard_normal(shape, seed=None):
    """Float32 samples of ``N(0, 1)``; ``shape`` is a tuple of ints or a 1-D int Tensor.

    >>> standard_normal((2, 3)).shape
    (2, 3)
    """
    op = "standard_normal"
    dims = _shape_tuple_arg(shape, op)
    seed = _optional_seed(seed, op)
    return wrap(_normal_array(_call_stream(seed), dims, _dt.float32))


def standard_laplace(shape, seed=None):
    """Float32 samples of the Laplace distribution with mean 0 and scale 1 (density ``exp(-|x|) / 2``).

    >>> standard_laplace((2, 3)).shape
    (2, 3)
    """
    op = "standard_laplace"
    dims = _shape_tuple_arg(shape, op)
    seed = _optional_seed(seed, op)
    return wrap(_to_device(_draw(_call_stream(seed), "laplace", dims), _dt.float32))


def laplace(shape, mean, lambda_param, seed=None):
    """Samples of the Laplace distribution ``exp(-|x - mean| / lambda) / (2 lambda)``.

    ``mean`` and ``lambda_param`` are Float32 Tensors broadcasting against ``shape`` (as in :func:`normal`);
    the result is differentiable with respect to both.

    >>> import cellkit as ms
    >>> print(laplace((2,), ms.Tensor(1.5), ms.Tensor(0.0)))
    [1.5 1.5]
    """
    op = "laplace"
    dims = _shape_tuple_arg(shape, op, allow_tensor=False)
    loc = _parameter_tensor(mean, "mean", op, numbers=False)
    scale = _parameter_tensor(lambda_param, "lambda_param", op, numbers=False)
    for name, t in (("mean", loc), ("lambda_param", scale)):
        if t.dtype is not _dt.float32:
            raise TypeError(f"For '{op}', '{name}' must be a Float32 Tensor, but got {t.dtype}")
    seed = _optional_seed(seed, op)
    _broadcast_shape(op, dims, loc.shape, scale.shape)
    _refuse_batched(loc._data, scale._data)
    noise = _to_device(_draw(_call_stream(seed), "laplace", dims), _dt.float32)
    return _shifted_scaled(noise, loc, scale, op, _dt.float32)


class StandardNormal(Primitive):
    """``StandardNormal(seed=0, seed2=0)(shape)``: Float32 ``N(0, 1)`` samples (own generator unless both seeds are 0).

    >>> StandardNormal(seed=2)((2, 3)).shape
    (2, 3)
    """

    @prim_attr_register
    def __init__(self, seed=0, seed2=0):
        self._gen = _OwnGenerator(_check_seed(seed, "seed", "StandardNormal"),
                                  _check_seed(seed2, "seed2", "StandardNormal"))

    def __call__(self, shape):
        dims = _shape_tuple_arg(shape, "StandardNormal")
        return wrap(_normal_array(self._gen.get(), dims, _dt.float32))


class StandardLaplace(Primitive):
    """``StandardLaplace(seed=0, seed2=0)(shape)``: Float32 samples of the standard Laplace distribution.

    >>> StandardLaplace()((2,)).shape
    (2,)
    """

    @prim_attr_register
    def __init__(self, seed=0, seed2=0):
        self._gen = _OwnGenerator(_check_seed(seed, "seed", "StandardLaplace"),
                                  _check_seed(seed2, "seed2", "StandardLaplace"))

    def __call__(self, shape):
        dims = _shape_tuple_arg(shape, "StandardLaplace")
        return wrap(_to_device(_draw(self._gen.get(), "laplace", dims), _dt.float32))


class Cauchy(Primitive):
    """``Cauchy(size, median=0.0, sigma=1.0)()``: Float32 samples of the Cauchy distribution, of shape ``size`` (a list).

    >>> print(Cauchy([2], 1.0, 0.0)())
    [1. 1.]
    """

    @prim_attr_register
    def __init__(self, size, median=0.0, sigma=1.0):
        op = "Cauchy"
        if not isinstance(size, list):
            raise TypeError(f"For '{op}', the type of 'size' should be 'list', but got {describe(size)}")
        self._dims = _size_arg(tuple(size), op, allow_zero=False) if size else ()
        for name, v in (("median", median), ("sigma", sigma)):
            if not isinstance(v, float):
                raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(v)}")
        if sigma < 0:
            raise ValueError(f"For '{op}', 'sigma' must be non-negative, but got {sigma}")

    def __call__(self):
        host = _draw(_seed.generator(), "standard_cauchy", self._dims)
        return wrap(_to_device(self.median + self.sigma * host, _dt.float32))


class LogNormalReverse(Primitive):
    """``LogNormalReverse(mean=1.0, std=2.0)(input)``: ``exp(N(mean, std**2))`` samples shaped like ``input``.

    ``input`` (Float16/32/64) gives only the shape and dtype.

    >>> import cellkit as ms
    >>> out = LogNormalReverse(0.0, 0.0)(ms.Tensor([0.0, 0.0]))
    >>> print(out)
    [1. 1.]
    """

    @prim_attr_register
    def __init__(self, mean=1.0, std=2.0):
        for name, v in (("mean", mean), ("std", std)):
            if isinstance(v, bool) or not isinstance(v, float):
                raise TypeError(f"For 'LogNormalReverse', '{name}' must be a float, but got {describe(v)}")

    def __call__(self, input):
        op = "LogNormalReverse"
        x = _tensor_only(input, "input", op)
        _dtype_in(x, (_dt.float16, _dt.float32, _dt.float64), "input", op)
        _refuse_batched(x._data)
        host = np.exp(self.mean + self.std * _draw(_seed.generator(), "standard_normal", x.shape))
        return wrap(_to_device(host, x.dtype))


# ------------------------------------------------------------------ discrete samplers
def _probabilities(input, op, name="input", ndims=(1, 2)):
    x = _tensor_only(input, name, op)
    if x.ndim not in ndims:
        raise ValueError(f"For '{op}', the dimension of '{name}' must be {' or '.join(f'{n}d' for n in ndims)}, "
                         f"but got {x.ndim} (shape {tuple(x.shape)})")
    if x.dtype.kind not in ("float", "int", "uint"):
        raise TypeError(f"For '{op}', '{name}' must hold numbers, but got {x.dtype}")
    if x.shape[-1] == 0:
        raise ValueError(f"For '{op}', '{name}' must have at least one category, but got shape {tuple(x.shape)}")
    _refuse_batched(x._data)
    host = backend().to_host(x._data)
    return x, np.asarray(host, dtype=np.float64).reshape((-1, x.shape[-1]) if x.ndim else (1, 1))


def _draw_categories(weights, num_samples, replacement, generator):
    """Indices drawn from each row of ``weights`` (host float64, rows not necessarily summing to 1)."""
    rows, classes = weights.shape
    if replacement:
        w = np.clip(np.nan_to_num(weights, nan=0.0), 0.0, None)
        cdf = np.cumsum(w, axis=1)
        total = cdf[:, -1:]
        u = _draw(generator, "random", (rows, num_samples)) * np.where(total > 0, total, 1.0)
        idx = np.stack([np.searchsorted(cdf[r], u[r], side="right") for r in range(rows)]) if rows else \
            np.zeros((0, num_samples), np.int64)
        # a row of zeros (or a draw at the top edge) picks the last category
        return np.minimum(idx, classes - 1)
    # Without replacement: the largest ``log(w) + Gumbel`` keys (categories of weight 0 come last, in random order).
    gumbel = _draw(generator, "gumbel", (rows, classes))
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = np.where(weights > 0, np.log(np.where(weights > 0, weights, 1.0)) + gumbel, -1e300 + gumbel)
    return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]


def _num_samples_arg(value, op, name="num_samples", rows=1):
    if isinstance(value, Tensor) and value.size == 1 and value.dtype.kind in ("int", "uint"):
        value = int(value.asnumpy().reshape(()))
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(value)}")
    if value < 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {value}")
    from ..tensor import check_allocation
    check_allocation((max(rows, 1), int(value)), _dt.float64, op, f"'{name}' {value}")
    return int(value)


def _categorical(input, num_samples, replacement, generator, op, dtype):
    x, weights = _probabilities(input, op)
    n = _num_samples_arg(num_samples, op, rows=weights.shape[0])
    if not replacement and n > weights.shape[1]:
        raise ValueError(f"For '{op}', 'num_samples' ({n}) cannot exceed the number of categories "
                         f"({weights.shape[1]}) without replacement")
    idx = _draw_categories(weights, n, replacement, generator)
    if x.ndim == 1:
        idx = idx.reshape(n)
    return wrap(_to_device(idx, dtype))


def multinomial(input, num_samples, replacement=True, seed=None):
    """Draw ``num_samples`` category indices from each row of ``input`` (1-D or 2-D weights); Int32.

    The weights need not sum to 1.  Without replacement each row gives distinct indices (categories of
    weight 0 come only once the others are used up).

    >>> import cellkit as ms
    >>> print(multinomial(ms.Tensor([[0.0, 0.0, 1.0]]), 3))
    [[2 2 2]]
    """
    op = "multinomial"
    replacement = _bool(replacement, "replacement", op)
    seed = _optional_seed(seed, op)
    return _categorical(input, num_samples, replacement, _call_stream(seed), op, _dt.int32)


def _bool(value, name, op):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {describe(value)}")
    return bool(value)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """Draw ``numsamples`` indices from each row of ``x``; Int64; the same draw at every call for a given
    ``seed`` and ``offset`` (``seed=-1, offset=0`` draws from the global generator).

    >>> import cellkit as ms
    >>> print(multinomial_with_replacement(ms.Tensor([[0.0, 1.0]]), 2, 5, 3, True))
    [[1 1 1]]
    """
    op = "multinomial_with_replacement"
    seed = _optional_seed(seed, op)
    offset = _optional_seed(offset, op, "offset")
    if seed is None or offset is None:
        raise TypeError(f"For '{op}', 'seed' and 'offset' must be ints, but got {describe(seed)} and "
                        f"{describe(offset)}")
    replacement = _bool(replacement, "replacement", op)
    generator = _seed.generator() if seed == -1 and offset == 0 else _fixed_generator(seed, offset)
    return _categorical(x, numsamples, replacement, generator, op, _dt.int64)


class Multinomial(Primitive):
    """``Multinomial(seed=0, seed2=0, dtype=mindspore.int32)(x, num_samples)``: draws with replacement.

    >>> import cellkit as ms
    >>> print(Multinomial()(ms.Tensor([[0.0, 1.0]]), 2))
    [[1 1]]
    """

    @prim_attr_register
    def __init__(self, seed=0, seed2=0, dtype=_dt.int32):
        op = "Multinomial"
        self._gen = _OwnGenerator(_check_seed(seed, "seed", op), _check_seed(seed2, "seed2", op))
        self._dtype = dtype_arg(dtype, "dtype", op)
        if self._dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"For '{op}', 'dtype' must be mindspore.int32 or mindspore.int64, but got {dtype!r}")

    def __call__(self, x, num_samples):
        return _categorical(x, num_samples, True, self._gen.get(), "Multinomial", self._dtype)


class MultinomialWithReplacement(Primitive):
    """``MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)``; ``seed`` and ``offset``
    are int64 scalar Tensors (as in :func:`multinomial_with_replacement`).

    >>> import cellkit as ms
    >>> prim = MultinomialWithReplacement(2, True)
    >>> print(prim(ms.Tensor([[0.0, 1.0]]), ms.Tensor(2), ms.Tensor(5)))
    [[1 1]]
    """

    @prim_attr_register
    def __init__(self, numsamples, replacement=False):
        _num_samples_arg(numsamples, "MultinomialWithReplacement", "numsamples")
        _bool(replacement, "replacement", "MultinomialWithReplacement")

    def __call__(self, x, seed, offset):
        op = "MultinomialWithReplacement"
        values = []
        for name, v in (("seed", seed), ("offset", offset)):
            if isinstance(v, Tensor):
                v = tensor_arg(v, name, op)
                if v.size != 1 or v.dtype.kind not in ("int", "uint"):
                    raise TypeError(f"For '{op}', '{name}' must be an int scalar Tensor, but got {describe(v)}")
                v = int(v.asnumpy().reshape(()))
            values.append(v)
        return multinomial_with_replacement(x, values[0], values[1], self.numsamples, self.replacement)


_CATEGORICAL_DTYPES = (_dt.int16, _dt.int32, _dt.int64)


def _random_categorical(logits, num_sample, seed, dtype, op, generator=None):
    x = _tensor_only(logits, "logits", op)
    if x.ndim != 2:
        raise ValueError(f"For '{op}', 'logits' must be 2-D (batch_size, num_classes), but got shape "
                         f"{tuple(x.shape)}")
    if x.dtype.kind != "float":
        raise TypeError(f"For '{op}', 'logits' must be a float Tensor, but got {x.dtype}")
    n = _num_samples_arg(num_sample, op, "num_sample", rows=x.shape[0])
    seed = _optional_seed(seed, op)
    if seed is None:
        raise TypeError(f"For '{op}', 'seed' must be an int, but got None")
    d = dtype_arg(dtype, "dtype", op)
    if d not in _CATEGORICAL_DTYPES:
        raise TypeError(f"For '{op}', the 'dtype' should be one of [mindspore.int32, mindspore.int16, "
                        f"mindspore.int64], but got {describe(dtype)}")
    if x.shape[1] == 0:
        raise ValueError(f"For '{op}', 'logits' must have at least one class, but got shape {tuple(x.shape)}")
    _refuse_batched(x._data)
    host = np.asarray(backend().to_host(x._data), dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(host - np.max(host, axis=1, keepdims=True))
    if generator is None:
        generator = _seed.generator() if seed == 0 else _fixed_generator(seed)
    return wrap(_to_device(_draw_categories(weights, n, True, generator), d))


def random_categorical(logits, num_sample, seed=0, dtype=_dt.int64):
    """Draw ``num_sample`` class indices per row of the 2-D ``logits`` (unnormalised log-probabilities).

    A non-zero ``seed`` gives the same draw at every call; ``seed=0`` uses the global generator.
    ``dtype`` is Int16, Int32 or Int64.

    >>> import cellkit as ms
    >>> print(random_categorical(ms.Tensor([[-1e30, 0.0, -1e30]]), 3))
    [[1 1 1]]
    """
    return _random_categorical(logits, num_sample, seed, dtype, "random_categorical")


class RandomCategorical(Primitive):
    """``RandomCategorical(dtype=mindspore.int64)(logits, num_samples, seed=0)``.

    >>> import cellkit as ms
    >>> print(RandomCategorical()(ms.Tensor([[-1e30, 0.0]]), 2, 0))
    [[1 1]]
    """

    @prim_attr_register
    def __init__(self, dtype=_dt.int64):
        d = dtype_arg(dtype, "dtype", "RandomCategorical")
        if d not in _CATEGORICAL_DTYPES:
            raise TypeError(f"For 'RandomCategorical', the 'dtype' should be one of [mindspore.int32, "
                            f"mindspore.int16, mindspore.int64], but got {d!r}")

    def __call__(self, logits, num_samples, seed=0):
        return _random_categorical(logits, num_samples, seed, self.dtype, "RandomCategorical")


def _permutation(generator, n):
    return np.argsort(_draw(generator, "random", (n,)), kind="stable")


_RANDPERM_DTYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int16, _dt.int32, _dt.int64, _dt.int8, _dt.uint8)


def randperm(n, seed=0, offset=0, dtype=_dt.int64):
    """A random permutation of ``0 .. n-1``; the same permutation at every call for a given ``seed`` and
    ``offset`` (``seed=-1, offset=0`` draws from the global generator).

    >>> print(randperm(1))
    [0]
    """
    op = "randperm"
    if isinstance(n, Tensor):
        t = tensor_arg(n, "n", op)
        if t.size != 1 or t.dtype.kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', 'n' must be an int or an int scalar Tensor, but got {describe(n)}")
        n = int(t.asnumpy().reshape(()))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"For '{op}', 'n' must be an int, but got {describe(n)}")
    if n <= 0:
        raise ValueError(f"For '{op}', the input 'n' must be greater than 0, but got {n}")
    seed = _optional_seed(seed, op)
    offset = _optional_seed(offset, op, "offset")
    if seed is None or offset is None:
        raise TypeError(f"For '{op}', 'seed' and 'offset' must be ints, but got {describe(seed)}, {describe(offset)}")
    if offset < 0:
        raise ValueError(f"For '{op}', 'offset' must be non-negative, but got {offset}")
    d = dtype_arg(dtype, "dtype", op)
    if d not in _RANDPERM_DTYPES:
        raise TypeError(f"For '{op}', 'dtype' must be a float or an int8/16/32/64 or uint8 type, but got {d!r}")
    limit = {"float16": 2 ** 11, "int8": 2 ** 7, "uint8": 2 ** 8, "int16": 2 ** 15}.get(d.array_name)
    if limit is not None and n > limit:
        raise ValueError(f"For '{op}', the value of 'n' is {n}, it's too large for 'dtype' {d}")
    from ..tensor import check_allocation
    check_allocation((n,), _dt.float64, op, f"'n' {n}")
    generator = _seed.generator() if seed == -1 and offset == 0 else _fixed_generator(seed, offset)
    return wrap(_to_device(_permutation(generator, n), d))


def _shuffle(x, generator, op):
    t = _tensor_only(x, "x", op)
    _refuse_batched(t._data)
    if t.ndim == 0 or t.shape[0] <= 1:
        return wrap(backend().copy(t._data))
    order = _to_device(_permutation(generator, t.shape[0]), _dt.int64)
    return wrap(xp().take(t._data, order, axis=0))


def shuffle(x, seed=None):
    """``x`` with its first dimension randomly permuted (a 0-d tensor comes back unchanged).

    >>> import cellkit as ms
    >>> print(shuffle(ms.Tensor([5.0])))
    [5.]
    """
    op = "shuffle"
    seed = _optional_seed(seed, op)
    return _shuffle(x, _call_stream(seed), op)


class RandomShuffle(Primitive):
    """``RandomShuffle(seed=0, seed2=0)(x)``: :func:`shuffle` with the Primitive's own generator.

    >>> import cellkit as ms
    >>> print(RandomShuffle()(ms.Tensor([[1.0, 1.0], [1.0, 1.0]])))
    [[1. 1.]
     [1. 1.]]
    """

    @prim_attr_register
    def __init__(self, seed=0, seed2=0):
        self._gen = _OwnGenerator(_check_seed(seed, "seed", "RandomShuffle"),
                                  _check_seed(seed2, "seed2", "RandomShuffle"))

    def __call__(self, x):
        return _shuffle(x, self._gen.get(), "RandomShuffle")


def _choice_with_mask(input_x, count, generator, op):
    x = _tensor_only(input_x, "input_x", op)
    if x.dtype is not _dt.bool_:
        raise TypeError(f"For '{op}', 'input_x' must be a Bool Tensor, but got Tensor[{x.dtype}]")
    if not 1 <= x.ndim <= 5:
        raise ValueError(f"For '{op}', the rank of 'input_x' must be between 1 and 5, but got {x.ndim}")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"For '{op}', 'count' must be an int, but got {describe(count)}")
    if count <= 0:
        raise ValueError(f"For '{op}', the 'count' must be int and must > 0, but got {count}")
    from ..tensor import check_allocation
    check_allocation((count, x.ndim), _dt.int32, op, f"'count' {count}")
    _refuse_batched(x._data)
    where = np.argwhere(np.asarray(backend().to_host(x._data)))
    picked = where[_permutation(generator, len(where))][:count]
    index = np.zeros((count, x.ndim), np.int32)
    index[:len(picked)] = picked
    mask = np.zeros(count, bool)
    mask[:len(picked)] = True
    return wrap(_to_device(index, _dt.int32)), wrap(_to_device(mask, _dt.bool_))


def choice_with_mask(input_x, count=256, seed=None):
    """Pick up to ``count`` of the True positions of ``input_x`` at random.

    Returns ``(index, mask)``: ``index`` (Int32, shape ``(count, rank)``) holds the chosen coordinates,
    padded with zeros; ``mask`` (Bool, shape ``(count,)``) says which rows are real.

    >>> import cellkit as ms
    >>> index, mask = choice_with_mask(ms.Tensor([False, True, False]), count=2)
    >>> print(index.asnumpy().tolist(), mask.asnumpy().tolist())
    [[1], [0]] [True, False]
    """
    op = "choice_with_mask"
    seed = _optional_seed(seed, op)
    return _choice_with_mask(input_x, count, _call_stream(seed), op)


class RandomChoiceWithMask(Primitive):
    """``RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)``: :func:`choice_with_mask`.

    >>> import cellkit as ms
    >>> index, mask = RandomChoiceWithMask(1)(ms.Tensor([False, True]))
    >>> print(index.asnumpy().tolist(), mask.asnumpy().tolist())
    [[1]] [True]
    """

    @prim_attr_register
    def __init__(self, count=256, seed=0, seed2=0):
        op = "RandomChoiceWithMask"
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise TypeError(f"For '{op}', 'count' must be an int, but got {describe(count)}")
        if count <= 0:
            raise ValueError(f"For '{op}', 'count' must be > 0, but got {count}")
        self._gen = _OwnGenerator(_check_seed(seed, "seed", op), _check_seed(seed2, "seed2", op))

    def __call__(self, input_x):
        return _choice_with_mask(input_x, self.count, self._gen.get(), "RandomChoiceWithMask")
def _uniform_like(like, generator):
    """Uniform [0, 1) draws shaped like the array ``like`` (in its float dtype), from ``generator``."""
    if _batching.is_batched(like):
        raise _batching.Unbatchable("random draws inside vmap are made one example at a time")
    x = xp()
    dtype = like.dtype if like.dtype in (x.float32, x.float64) else x.float32
    return backend().random_uniform(generator, like.shape, dtype)


# -- channel dropout ----------------------------------------------------------------------------------
def _check_p(p, op, name="p"):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(p).__name__} {p!r}")
    if not 0 <= p <= 1:
        raise ValueError(f"For '{op}', '{name}' must be in [0.0, 1.0], but got {p}")
    return float(p)


def _channel_dropout(t, keep_prob, op, record_name, batched=True):
    """Zero whole channels (axis 1, or axis 0 of an unbatched input) with probability ``1 - keep_prob``.

    Returns ``(output Tensor, keep array shaped like the input)``.  The kept channels are
    scaled by ``1 / keep_prob``; integer tensors keep their dtype (the scaled values are
    truncated, as MindSpore's integer kernels do).
    """
    x = xp()
    a = t._data
    if _dt.dtype_of(a).kind == "bool":
        raise TypeError(f"For '{op}', 'input' must be a Tensor of numbers, but got {t.dtype}")
    channel_axes = 2 if batched else 1
    mask_shape = tuple(a.shape[:channel_axes]) + (1,) * (a.ndim - channel_axes)
    probe = x.zeros(mask_shape, dtype=x.float32) if backend().is_numpy else \
        x.zeros(mask_shape, dtype=x.float32, device=a.device)
    keep = _keep_mask(probe, keep_prob, _stream(None)) if keep_prob < 1 else probe == 0
    keep = x.broadcast_to(keep, tuple(a.shape))
    is_float = _dt.dtype_of(a).kind == "float"
    work = a if is_float else x.astype(a, _dt.float64.to_backend(x))
    scale = 1 / keep_prob if keep_prob > 0 else 0.0
    out = work * (x.astype(keep, work.dtype) * scale)
    if not is_float:
        return wrap(x.astype(out, a.dtype)), keep
    if _ag._depth == 0 or t._node is None:
        return wrap(out), keep
    return record(out, record_name, _dropout_rule, (t,), (keep,), (None,), scale), keep


def _dropout_nd(input, p, training, op, ndims):
    p = _check_p(p, op)
    if not isinstance(training, bool):
        raise TypeError(f"For '{op}', 'training' must be a bool, but got {type(training).__name__} {training!r}")
    t = tensor_arg(input, "input", op)
    if t.ndim not in ndims:
        expected = " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(f"For '{op}', 'input' must be a {expected} Tensor, but got shape {t.shape} "
                         f"({t.ndim} dimensions)")
    if not training or p == 0:
        return t
    return _channel_dropout(t, 1 - p, op, "Dropout", t.ndim == max(ndims))[0]


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` tensor with probability ``p``.

    The channels kept are scaled by ``1 / (1 - p)``.  With ``training=False`` (or ``p=0``)
    the input is returned as it is.

    >>> import cellkit as ms
    >>> print(dropout1d(ms.Tensor([[1.0, 2.0]]), p=0.5, training=False))
    [[1. 2.]]
    """
    return _dropout_nd(input, p, training, "dropout1d", (2, 3))


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels (feature maps ``(H, W)``) of an ``(N, C, H, W)`` tensor with probability ``p``.

    >>> import cellkit as ms
    >>> import numpy as np
    >>> ms.set_seed(1)
    >>> y = dropout2d(ms.Tensor(np.ones((1, 8, 2, 2), np.float32)), p=0.5)
    >>> sorted(set(y.asnumpy().ravel().tolist()) | {0.0, 2.0})
    [0.0, 2.0]
    """
    return _dropout_nd(input, p, training, "dropout2d", (4,))


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels (volumes ``(D, H, W)``) of an ``(N, C, D, H, W)`` tensor with probability ``p``.

    >>> import cellkit as ms
    >>> import numpy as np
    >>> print(dropout3d(ms.Tensor(np.ones((1, 1, 1, 1, 2), np.float32)), training=False))
    [[[[[1. 1.]]]]]
    """
    return _dropout_nd(input, p, training, "dropout3d", (5,))


class _ChannelDropout(Primitive):
    _ndim = 4

    @prim_attr_register
    def __init__(self, keep_prob=0.5):
        _check_p(keep_prob, type(self).__name__, "keep_prob")

    def __call__(self, x):
        op = type(self).__name__
        t = tensor_arg(x, "x", op)
        if t.ndim != self._ndim:
            raise ValueError(f"For '{op}', 'x' must be a {self._ndim}-D Tensor, but got shape {t.shape}")
        out, keep = _channel_dropout(t, float(self.keep_prob), op, op)
        return out, wrap(keep)


class Dropout2D(_ChannelDropout):
    """``Dropout2D(keep_prob=0.5)(x)`` -> ``(output, mask)``: channel dropout of an NCHW tensor.

    ``mask`` is a Bool tensor shaped like ``x``: True where the channel was kept.

    >>> import cellkit as ms
    >>> import numpy as np
    >>> out, mask = Dropout2D(keep_prob=1.0)(ms.Tensor(np.ones((1, 2, 1, 1), np.float32)))
    >>> print(out.shape, mask.dtype)
    (1, 2, 1, 1) Bool
    """

    _ndim = 4


class Dropout3D(_ChannelDropout):
    """``Dropout3D(keep_prob=0.5)(x)`` -> ``(output, mask)``: channel dropout of an NCDHW tensor."""

    _ndim = 5
