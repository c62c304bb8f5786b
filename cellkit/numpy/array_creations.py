"""``mindspore.numpy``'s array makers: ``array``, ``zeros``, ``arange``, ``linspace``, ``eye``, window
functions, index grids.

Float results are Float32 unless ``dtype`` says otherwise, integer ones Int32, as in MindSpore.

>>> import cellkit.numpy as mnp
>>> print(mnp.arange(0, 5, 2), mnp.linspace(0, 1, 3), mnp.eye(2, dtype=mnp.int32))
[0 2 4] [0.  0.5 1. ] [[1 0]
 [0 1]]
"""
from __future__ import annotations

import numpy as _np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops._core import describe
from ..tensor import Tensor
from ._convert import cast_to, host, to_dtype, to_tensor

__all__ = ["array", "asarray", "asfarray", "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri", "tril", "triu",
           "diag", "diagflat", "diag_indices", "indices", "ix_", "meshgrid", "mgrid", "ogrid", "tril_indices",
           "triu_indices", "tril_indices_from", "triu_indices_from", "bartlett", "blackman", "hamming", "hanning",
           "vander", "pad"]


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor of ``obj`` (a copy of a Tensor when ``copy``), with at least ``ndmin`` dimensions."""
    t = to_tensor(obj, "array", dtype)
    if copy and t is obj:
        t = _ops.deepcopy(t)
    while t.ndim < ndmin:
        t = _ops.expand_dims(t, 0)
    return t


def asarray(a, dtype=None):
    """``a`` as a Tensor (itself when it already is one of that dtype)."""
    return to_tensor(a, "asarray", dtype)


def asfarray(a, dtype=_dt.float32):
    """``a`` as a float Tensor (``dtype`` must be a float type; Float32 otherwise)."""
    d = to_dtype(dtype)
    if not str(d).startswith("Float"):
        d = _dt.float32
    return to_tensor(a, "asfarray", d)


def _shape(shape, op):
    if isinstance(shape, (int, _np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, (tuple, list)) and all(isinstance(d, (int, _np.integer)) and not isinstance(d, bool)
                                                for d in shape):
        return tuple(int(d) for d in shape)
    raise TypeError(f"For '{op}', 'shape' must be an int or a tuple of ints, but got {describe(shape)}")


def zeros(shape, dtype=_dt.float32):
    """Zeros of ``shape``."""
    return _ops.zeros(_shape(shape, "zeros"), to_dtype(dtype))


def ones(shape, dtype=_dt.float32):
    """Ones of ``shape``."""
    return _ops.ones(_shape(shape, "ones"), to_dtype(dtype))


def empty(shape, dtype=_dt.float32):
    """A Tensor of ``shape`` whose values are not set (zeros here)."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """``shape`` filled with ``fill_value`` (Int32 for an int, Float32 for a float, Bool for a bool)."""
    if dtype is None:
        if isinstance(fill_value, Tensor):
            dtype = fill_value.dtype
        elif isinstance(fill_value, bool):
            dtype = _dt.bool_
        elif isinstance(fill_value, int):
            dtype = _dt.int32
        else:
            dtype = _dt.float32
    value = fill_value
    if isinstance(fill_value, (list, tuple, Tensor)):
        return _ops.broadcast_to(to_tensor(fill_value, "full", dtype), _shape(shape, "full"))
    return _ops.full(_shape(shape, "full"), value, dtype=to_dtype(dtype))


def _like(a, dtype, shape, op):
    t = to_tensor(a, op)
    return (t.dtype if dtype is None else to_dtype(dtype)), (tuple(t.shape) if shape is None else _shape(shape, op))


def zeros_like(a, dtype=None, shape=None):
    """Zeros shaped like ``a`` (or ``shape``)."""
    d, s = _like(a, dtype, shape, "zeros_like")
    return _ops.zeros(s, d)


def ones_like(a, dtype=None, shape=None):
    """Ones shaped like ``a`` (or ``shape``)."""
    d, s = _like(a, dtype, shape, "ones_like")
    return _ops.ones(s, d)


def empty_like(prototype, dtype=None, shape=None):
    """A Tensor shaped like ``prototype`` whose values are not set (zeros here)."""
    d, s = _like(prototype, dtype, shape, "empty_like")
    return _ops.zeros(s, d)


def full_like(a, fill_value, dtype=None, shape=None):
    """``fill_value`` shaped like ``a`` (or ``shape``)."""
    d, s = _like(a, dtype, shape, "full_like")
    return _ops.full(s, fill_value, dtype=d)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (Int32 for ints, Float32 for floats)."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    values = _np.arange(start, stop, step)
    kind = _np.int32 if values.dtype.kind in "iu" else _np.float32
    return cast_to(Tensor(values.astype(kind)), dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (Float32)."""
    values, step = _np.linspace(host(start, "linspace") if isinstance(start, Tensor) else start,
                                host(stop, "linspace") if isinstance(stop, Tensor) else stop, num, endpoint,
                                retstep=True, axis=axis)
    out = cast_to(Tensor(values.astype(_np.float32)), dtype)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base`` raised to ``num`` evenly spaced exponents."""
    return cast_to(Tensor(_np.logspace(start, stop, num, endpoint, base, axis=axis).astype(_np.float32)), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values evenly spaced on a log scale from ``start`` to ``stop``."""
    return cast_to(Tensor(_np.geomspace(start, stop, num, endpoint, axis=axis).astype(_np.float32)), dtype)


def eye(N, M=None, k=0, dtype=_dt.float32):
    """Ones on the ``k``-th diagonal of an ``N`` x ``M`` matrix."""
    return cast_to(Tensor(_np.eye(N, M, k, dtype=_np.float32)), dtype)


def identity(n, dtype=_dt.float32):
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=_dt.float32):
    """Ones at and below the ``k``-th diagonal."""
    return cast_to(Tensor(_np.tri(N, M, k, dtype=_np.float32)), dtype)


def tril(m, k=0):
    """``m`` with the elements above the ``k``-th diagonal zeroed."""
    return _ops.tril(to_tensor(m, "tril"), k)


def triu(m, k=0):
    """``m`` with the elements below the ``k``-th diagonal zeroed."""
    return _ops.triu(to_tensor(m, "triu"), k)


def diag(v, k=0):
    """The ``k``-th diagonal of a matrix, or a matrix with the 1-D ``v`` on it."""
    t = to_tensor(v, "diag")
    if t.ndim == 1:
        return _ops.diag_embed(t, k) if k else _ops.diag(t)
    if t.ndim == 2:
        return _ops.diagonal(t, k)
    raise ValueError(f"For 'diag', 'v' must be 1-D or 2-D, but got {t.ndim}-D")


def diagflat(v, k=0):
    """A matrix with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(_ops.reshape(to_tensor(v, "diagflat"), (-1,)), k)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n`` x ... x ``n`` array."""
    return tuple(Tensor(i.astype(_np.int32)) for i in _np.diag_indices(n, ndim))


def indices(dimensions, dtype=_dt.int32, sparse=False):
    """Index grids for an array of shape ``dimensions``: a list with one grid per dimension (MindSpore's form)."""
    grids = _np.indices(tuple(dimensions), sparse=sparse)
    if sparse:
        return tuple(cast_to(Tensor(g.astype(_np.int32)), dtype) for g in grids)
    return [cast_to(Tensor(g.astype(_np.int32)), dtype) for g in grids]  # one grid per dimension, as a list


def ix_(*args):
    """Open meshes from 1-D sequences, for cross indexing."""
    return tuple(Tensor(g) for g in _np.ix_(*[host(a, "ix_") for a in args]))


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from 1-D coordinate vectors."""
    tensors = [to_tensor(x, "meshgrid") for x in xi]
    if sparse:  # each vector keeps its own axis; the shapes NumPy gives sparse grids
        shapes = [g.shape for g in _np.meshgrid(*[_np.zeros(t.size) for t in tensors], sparse=True,
                                                 indexing=indexing)]
        return [_ops.reshape(t, shape) for t, shape in zip(tensors, shapes)]
    return list(_ops.meshgrid(*tensors, indexing=indexing))


class _Grid:
    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        grid = (_np.ogrid if self.sparse else _np.mgrid)[key]
        if isinstance(grid, (list, tuple)):
            return [Tensor(g.astype(_np.float32 if g.dtype.kind == "f" else _np.int32)) for g in grid]
        return Tensor(grid.astype(_np.float32 if grid.dtype.kind == "f" else _np.int32))


mgrid = _Grid(False)
mgrid.__doc__ = "``mgrid[0:3, 0:2]``: dense coordinate grids, one Tensor per dimension stacked."
ogrid = _Grid(True)
ogrid.__doc__ = "``ogrid[0:3, 0:2]``: open coordinate grids, one Tensor per dimension."


def tril_indices(n, k=0, m=None):
    """The row and column indices of the lower triangle of an ``n`` x ``m`` matrix."""
    return tuple(Tensor(i.astype(_np.int32)) for i in _np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """The row and column indices of the upper triangle of an ``n`` x ``m`` matrix."""
    return tuple(Tensor(i.astype(_np.int32)) for i in _np.triu_indices(n, k, m))


def tril_indices_from(arr, k=0):
    """:func:`tril_indices` for ``arr``'s shape."""
    t = to_tensor(arr, "tril_indices_from")
    return tril_indices(t.shape[-2], k, t.shape[-1])


def triu_indices_from(arr, k=0):
    """:func:`triu_indices` for ``arr``'s shape."""
    t = to_tensor(arr, "triu_indices_from")
    return triu_indices(t.shape[-2], k, t.shape[-1])


def _window(fn, M):
    return Tensor(fn(M).astype(_np.float32))


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points."""
    return _window(_np.bartlett, M)


def blackman(M):
    """The Blackman window of ``M`` points."""
    return _window(_np.blackman, M)


def hamming(M):
    """The Hamming window of ``M`` points."""
    return _window(_np.hamming, M)


def hanning(M):
    """The Hann window of ``M`` points."""
    return _window(_np.hanning, M)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of ``x``: columns are powers of ``x``."""
    t = to_tensor(x, "vander")
    n = t.shape[0] if N is None else N
    powers = range(n) if increasing else range(n - 1, -1, -1)
    return _ops.stack([_ops.pow(t, p) if p else _ops.ones_like(t) for p in powers], 1)


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0, reflect_type="even",
        **kwargs):
    """``arr`` padded by ``pad_width`` (per axis ``(before, after)``) in ``mode``."""
    t = to_tensor(arr, "pad")
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64).reshape(-1, 2) if _np.ndim(pad_width) else
                              _np.full((1, 2), pad_width), (t.ndim, 2))
    flat = tuple(int(v) for pair in widths[::-1] for v in pair)
    modes = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "wrap": "circular"}
    if mode not in modes:
        if mode in ("symmetric", "linear_ramp", "maximum", "minimum", "mean", "median", "empty"):
            values = _np.pad(host(t), widths, mode)  # no gradient for these modes
            return Tensor(values)
        raise ValueError(f"For 'pad', 'mode' {mode!r} is not one of NumPy's padding modes")
    if mode == "constant":
        return _ops.pad(t, flat, "constant", constant_values)
    # The ops' reflect/replicate/circular modes pad the trailing dimensions of a batch: give the array two
    # leading dimensions of size one, pad every one of its own, and take them away again.
    padded = _ops.pad(_ops.reshape(t, (1, 1) + tuple(t.shape)), flat, modes[mode])
    return _ops.reshape(padded, tuple(padded.shape[2:]))
