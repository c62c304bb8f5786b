"""``ops.norm``: vector and matrix norms, built from differentiable ops.

MindSpore's ``ops.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)``:

- ``dim`` an int (or ``None`` on a 1-D tensor): a vector norm along it --
  ``ord`` ``None``/2 (Euclidean), any other number ``p`` (``sum |x|^p ^ 1/p``),
  ``inf`` / ``-inf`` (largest / smallest ``|x|``), ``0`` (count of non-zeros);
- ``dim`` a pair (or ``None`` on a 2-D tensor with a matrix ``ord``): a matrix
  norm over those two axes -- ``'fro'`` (and ``None``), ``'nuc'`` (sum of
  singular values), ``inf`` / ``-inf`` (largest / smallest row sum of
  ``|x|``), ``1`` / ``-1`` (the same over columns), ``2`` / ``-2`` (largest /
  smallest singular value);
- ``dim=None`` and ``ord=None``: the Euclidean norm of all elements.

Every norm except the singular-value ones is composed of ops that have
backward rules, so gradients come for free.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.norm(ms.Tensor([[3.0, 4.0], [0.0, 0.0]])))
5.0
>>> print(ops.norm(ms.Tensor([[1.0, -2.0], [3.0, 4.0]]), ord=float("inf"), dim=1))
[2. 4.]
"""
from __future__ import annotations

import math
import numbers

from .. import autograd as _ag
from .. import dtype as _dt
from ._core import normalize_axis, tensor_arg, wrap, xp

__all__ = ["norm"]

_MATRIX_ORDS = ("fro", "nuc")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """The norm of ``A`` (see the module docstring for ``ord`` and ``dim``).

    Raises
    ------
    TypeError
        ``A`` is not a float Tensor, ``ord`` is not a number or ``'fro'`` /
        ``'nuc'``, ``dim`` is not an int or a pair of ints, ``keepdim`` not a bool.
    ValueError
        An ``ord`` that does not fit ``dim`` (a matrix ord on one axis), an
        axis out of range, or a repeated axis.
    """
    from . import math as _math
    from . import reduce as _reduce

    op = "norm"
    t = tensor_arg(A, "A", op)
    if dtype is not None:
        t = t.astype(dtype)
    if _dt.dtype_of(t._data).kind != "float":
        raise TypeError(f"For '{op}', 'A' must be a float Tensor, but got {_dt.dtype_of(t._data)}")
    if not isinstance(keepdim, bool):
        raise TypeError(f"For '{op}', 'keepdim' must be a bool, but got {type(keepdim).__name__}")
    if ord is not None and not (isinstance(ord, str) or (isinstance(ord, numbers.Real) and not isinstance(ord, bool))):
        raise TypeError(f"For '{op}', 'ord' must be a number, 'fro' or 'nuc', but got {type(ord).__name__}")
    if isinstance(ord, str) and ord not in _MATRIX_ORDS:
        raise ValueError(f"For '{op}', 'ord' as a string must be 'fro' or 'nuc', but got {ord!r}")
    ndim = len(t.shape)
    axes = _axes(dim, ndim, ord, op)
    absolute = _math.abs(t)
    if axes is None:  # every element, Euclidean
        return _euclidean(t, None, keepdim, _math, _reduce)
    if len(axes) == 1:
        return _vector_norm(t, absolute, axes[0], ord, keepdim, op, _math, _reduce)
    return _matrix_norm(t, absolute, axes, ord, keepdim, op, _math, _reduce)


def _axes(dim, ndim, ord, op):
    """The axes the norm runs over: None (all elements), one axis, or two."""
    if dim is None:
        if ord is None:
            return None
        if ndim == 1:
            return (0,)
        if ndim == 2:
            return (0, 1)
        raise ValueError(f"For '{op}', 'dim' must be given when 'ord' is set on a {ndim}-D Tensor")
    if isinstance(dim, (tuple, list)):
        if len(dim) not in (1, 2):
            raise ValueError(f"For '{op}', 'dim' must be an int or a pair of ints, but got {dim!r}")
        axes = tuple(normalize_axis(d, ndim, op, "dim") for d in dim)
        if len(set(axes)) != len(axes):
            raise ValueError(f"For '{op}', 'dim' repeats an axis: {dim!r}")
        return axes
    return (normalize_axis(dim, ndim, op, "dim"),)


def _euclidean(t, axes, keepdim, _math, _reduce):
    return _math.sqrt(_reduce.sum(t * t, dim=axes, keepdim=keepdim))


def _vector_norm(t, absolute, axis, ord, keepdim, op, _math, _reduce):
    if isinstance(ord, str):
        raise ValueError(f"For '{op}', 'ord' {ord!r} is a matrix norm; 'dim' must name two axes")
    if ord is None or ord == 2:
        return _euclidean(t, axis, keepdim, _math, _reduce)
    if ord == math.inf:
        return _reduce.amax(absolute, axis, keepdim)
    if ord == -math.inf:
        return _reduce.amin(absolute, axis, keepdim)
    if ord == 0:
        nonzero = xp().astype(t._data != 0, t._data.dtype)
        return _reduce.sum(wrap(nonzero), dim=axis, keepdim=keepdim)
    return _math.pow(_reduce.sum(_math.pow(absolute, ord), dim=axis, keepdim=keepdim), 1.0 / ord)


def _matrix_norm(t, absolute, axes, ord, keepdim, op, _math, _reduce):
    rows, cols = axes
    if ord is None or ord == "fro":
        return _euclidean(t, axes, keepdim, _math, _reduce)
    if ord in (math.inf, -math.inf, 1, -1):
        # inf: largest row sum (sum across columns); 1: largest column sum (sum across rows)
        summed_axis, kept_axis = (cols, rows) if abs(ord) == math.inf else (rows, cols)
        sums = _reduce.sum(absolute, dim=summed_axis, keepdim=True)
        pick = _reduce.amax if ord > 0 else _reduce.amin
        out = pick(sums, kept_axis, True)
        return out if keepdim else _squeeze(out, axes)
    if ord in ("nuc", 2, -2):
        return _singular_value_norm(t, axes, ord, keepdim, op)
    raise ValueError(f"For '{op}', a matrix norm's 'ord' must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, "
                     f"but got {ord!r}")


def _squeeze(t, axes):
    shape = [d for i, d in enumerate(t.shape) if i not in axes]
    return t.reshape(tuple(shape))


def _singular_value_norm(t, axes, ord, keepdim, op):
    if _ag._depth > 0 and t._node is not None:
        raise RuntimeError(f"For '{op}', ord={ord!r} (singular values) has no gradient in cellkit; "
                           "use 'fro' or a vector norm inside a gradient transform")
    x = xp()
    moved = x.moveaxis(t._data, axes, (-2, -1)) if hasattr(x, "moveaxis") else t._data
    values = x.linalg.svdvals(moved) if hasattr(x.linalg, "svdvals") else x.linalg.svd(moved, compute_uv=False)
    if ord == "nuc":
        out = x.sum(values, axis=-1)
    elif ord == 2:
        out = x.max(values, axis=-1)
    else:
        out = x.min(values, axis=-1)
    if keepdim:
        for axis in sorted(axes):
            out = x.expand_dims(out, axis=axis)
    return wrap(out)
