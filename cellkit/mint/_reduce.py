"""``mint``'s reductions and searches: ``dim`` and ``keepdim`` where ``ops`` says ``axis`` and ``keep_dims``.

``mint.max(input)`` is the largest element; ``mint.max(input, dim)`` the ``(values, indices)`` pair along
``dim``; ``mint.max(input, other)`` the element-wise maximum -- MindSpore's three overloads (``min`` too).
``std``/``var`` take ``correction`` (1 by default: the unbiased estimate).

>>> import cellkit as ms
>>> from cellkit import mint
>>> x = ms.Tensor([[1.0, 5.0], [3.0, 2.0]])
>>> print(mint.max(x), mint.mean(x, dim=1), mint.var(x, dim=0))
5.0 [3.  2.5] [2.  4.5]
>>> values, indices = mint.max(x, dim=1, keepdim=True)
>>> print(values.shape, indices.asnumpy().ravel())
(2, 1) [1 0]
"""
from __future__ import annotations

from .. import ops as _ops
from ..tensor import Tensor

__all__ = ["mean", "prod", "max", "min", "amax", "amin", "all", "any", "argmin", "argsort", "std", "var", "std_mean",
           "var_mean", "median", "nansum", "cumsum", "cummax", "cummin", "count_nonzero", "topk", "sort", "kthvalue",
           "norm", "histc", "cdist", "diff", "unique"]


def _dims(dim):
    if isinstance(dim, list):
        return tuple(dim)
    if dim == ():
        return None
    return dim


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` (all dimensions when None)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.mean(input, _dims(dim), keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product over ``dim``."""
    return _ops.prod(input, dim, keepdim, dtype)


def _extreme(name, op_reduce, op_pair, input, dim, keepdim):
    if dim is None:
        return op_reduce(input)
    if isinstance(dim, Tensor):  # max(input, other): the element-wise extreme
        if keepdim is not False:
            raise TypeError(f"For '{name}', 'keepdim' is not accepted with a Tensor 'other'")
        return op_pair(input, dim)
    values, indices = getattr(_ops, name)(input, dim, keepdim)
    return values, indices


def max(input, dim=None, keepdim=False):
    """The largest element; with ``dim`` the ``(values, indices)`` along it; with a Tensor the element-wise max."""
    return _extreme("max", lambda x: _ops.amax(x), _ops.maximum, input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """The smallest element; with ``dim`` the ``(values, indices)`` along it; with a Tensor the element-wise min."""
    return _extreme("min", lambda x: _ops.amin(x), _ops.minimum, input, dim, keepdim)


def amax(input, dim=(), keepdim=False):
    """The largest values over ``dim`` (all dimensions for ``()``)."""
    return _ops.amax(input, _dims(dim), keepdim)


def amin(input, dim=(), keepdim=False):
    """The smallest values over ``dim`` (all dimensions for ``()``)."""
    return _ops.amin(input, _dims(dim), keepdim)


def all(input, dim=None, keepdim=False):
    """Whether every element over ``dim`` is true."""
    return _ops.all(input, _dims(dim), keepdim)


def any(input, dim=None, keepdim=False):
    """Whether any element over ``dim`` is true."""
    return _ops.any(input, _dims(dim), keepdim)


def argmin(input, dim=None, keepdim=False):
    """The index of the smallest element (over the flattened Tensor when ``dim`` is None)."""
    return _ops.argmin(input, dim, keepdim)


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort ``input`` along ``dim`` (a stable sort either way)."""
    return _ops.argsort(input, dim, descending)


def std(input, dim=None, *, correction=1, keepdim=False):
    """The standard deviation over ``dim`` with ``correction`` subtracted from the count."""
    return _ops.std(input, _dims(dim), correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    """The variance over ``dim`` with ``correction`` subtracted from the count."""
    return _ops.var(input, _dims(dim), correction, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    """``(std, mean)`` over ``dim``."""
    return _ops.std_mean(input, _dims(dim), correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    """``(var, mean)`` over ``dim``."""
    return _ops.var_mean(input, _dims(dim), correction, keepdim)


def median(input, dim=None, keepdim=False):
    """The median of all elements; with ``dim``, ``(values, indices)`` along it (the lower of two middles)."""
    if dim is None:
        flat = _ops.reshape(input, (-1,))
        values, _ = _ops.median(flat, 0, False)
        return values
    return _ops.median(input, dim, keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum over ``dim`` with NaN counted as 0."""
    return _ops.nansum(input, _dims(dim), keepdim, dtype=dtype)


def cumsum(input, dim, dtype=None):
    """Running sums along ``dim``."""
    return _ops.cumsum(input, dim, dtype)


def cummax(input, dim):
    """Running maxima along ``dim`` and their indices."""
    return _ops.cummax(input, dim)


def cummin(input, dim):
    """Running minima along ``dim`` and their indices."""
    return _ops.cummin(input, dim)


def count_nonzero(input, dim=None):
    """How many elements are not zero (over ``dim``), as int64."""
    from ..dtype import int64, int8

    if isinstance(input, Tensor) and str(input.dtype) == "Bool":
        input = _ops.cast(input, int8)
    return _ops.count_nonzero(input, () if dim is None else dim, False, int64)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    return _ops.topk(input, k, dim, largest, sorted)


def sort(input, *, dim=-1, descending=False, stable=False):
    """``(sorted values, indices)`` along ``dim``."""
    return _ops.sort(input, dim, descending)


def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` (``k`` counts from 1) and its index."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"For 'kthvalue', 'k' must be an int, but got {type(k).__name__}")
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'kthvalue', 'input' must be a Tensor, but got {type(input).__name__}")
    size = input.shape[dim] if input.ndim else 1
    if not 1 <= k <= size:
        raise ValueError(f"For 'kthvalue', 'k' must be in [1, {size}], but got {k}")
    values, indices = _ops.sort(input, dim, False)
    index = _ops.full((1,), k - 1, dtype=indices.dtype)
    picked_values = _ops.index_select(values, dim, index)
    picked_indices = _ops.index_select(indices, dim, index)
    if not keepdim:
        picked_values, picked_indices = _ops.squeeze(picked_values, dim), _ops.squeeze(picked_indices, dim)
    return picked_values, picked_indices


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """The ``p``-norm of ``input`` over ``dim`` (all elements, as one vector, when None); ``'fro'``: the 2-norm."""
    order = None if p == "fro" else p
    if dim is None and order is not None and not keepdim and isinstance(input, Tensor):
        return _ops.norm(_ops.reshape(input, (-1,)), order, None, False, dtype=dtype)
    return _ops.norm(input, order, dim, keepdim, dtype=dtype)


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0)."""
    return _ops.histc(input, bins, float(min), float(max))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each pair of rows of ``x1`` and ``x2``."""
    return _ops.cdist(x1, x2, p)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``."""
    return _ops.diff(input, n, dim, prepend, append)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of ``input`` (sorted), with optional inverse indices and counts."""
    import numpy as np

    from ..ops._core import describe

    if not isinstance(input, Tensor):
        raise TypeError(f"For 'unique', 'input' must be a Tensor, but got {describe(input)}")
    if dim is not None:
        raise ValueError(f"For 'unique', 'dim' is not supported by cellkit's mint.unique, but got {dim}")
    host = input.asnumpy()
    values, inverse, counts = np.unique(host, return_inverse=True, return_counts=True)
    out = [Tensor(values)]
    if return_inverse:
        out.append(Tensor(inverse.reshape(host.shape).astype(np.int64)))
    if return_counts:
        out.append(Tensor(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)
