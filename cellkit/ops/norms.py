"""Norms: ``ops.norm``, ``vector_norm``, ``matrix_norm`` and ``cond``, built from differentiable ops.

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

Integer inputs give Float32 norms.  Every norm is composed of ops that have
backward rules (the singular-value norms through ``svd``'s), so gradients of
any order come for free.

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

from .. import dtype as _dt
from ._core import describe, dtype_arg, normalize_axis, tensor_arg, wrap, xp

__all__ = ["norm", "vector_norm", "matrix_norm", "cond"]

_MATRIX_ORDS = ("fro", "nuc")


def _float_input(A, name, op, dtype):
    """``A`` as a float Tensor: cast to ``dtype`` if given; integers and bools become Float32."""
    from .creation import cast

    t = tensor_arg(A, name, op)
    if dtype is not None:
        t = cast(t, dtype_arg(dtype, "dtype", op))
    if t.dtype.kind in ("int", "uint", "bool"):
        t = cast(t, _dt.float32)
    return t


def _keepdim_arg(keepdim, name, op):
    if not isinstance(keepdim, bool):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {describe(keepdim)}")
    return keepdim


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """The norm of ``A`` (see the module docstring for ``ord`` and ``dim``).

    Raises
    ------
    TypeError
        ``ord`` is not a number or ``'fro'`` / ``'nuc'``, ``dim`` is not an
        int or a pair of ints, ``keepdim`` not a bool.
    ValueError
        An ``ord`` that does not fit ``dim`` (a matrix ord on one axis), an
        axis out of range, or a repeated axis.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.norm(ms.Tensor([[3.0, 4.0]]), ord=1, dim=1))
    [7.]
    """
    op = "norm"
    t = _float_input(A, "A", op, dtype)
    keepdim = _keepdim_arg(keepdim, "keepdim", op)
    if ord is not None and not (isinstance(ord, str) or (isinstance(ord, numbers.Real) and not isinstance(ord, bool))):
        raise TypeError(f"For '{op}', 'ord' must be a number, 'fro' or 'nuc', but got {describe(ord)}")
    if isinstance(ord, str) and ord not in _MATRIX_ORDS:
        raise ValueError(f"For '{op}', 'ord' as a string must be 'fro' or 'nuc', but got {ord!r}")
    ndim = len(t.shape)
    axes = _axes(dim, ndim, ord, op)
    if axes is None:  # every element, Euclidean
        return _euclidean(t, None, keepdim)
    if len(axes) == 1:
        return _vector_norm(t, axes[0], ord, keepdim, op)
    return _matrix_norm(t, axes, ord, keepdim, op)


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


def _math_ops():
    from . import math as _math
    from . import reduce as _reduce

    return _math, _reduce


def _euclidean(t, axes, keepdim):
    _math, _reduce = _math_ops()
    if t.dtype.kind == "complex":
        from .fft import _complex_abs
        size = _complex_abs(t, "norm")
        return _math.sqrt(_reduce.sum(size * size, dim=axes, keepdim=keepdim))
    return _math.sqrt(_reduce.sum(t * t, dim=axes, keepdim=keepdim))


def _abs(t):
    _math, _ = _math_ops()
    if t.dtype.kind == "complex":
        from .fft import _complex_abs
        return _complex_abs(t, "norm")
    return _math.abs(t)


def _vector_norm(t, axis, ord, keepdim, op):
    """A vector norm over ``axis`` (an int or a tuple of axes)."""
    _math, _reduce = _math_ops()
    if isinstance(ord, str):
        raise ValueError(f"For '{op}', 'ord' {ord!r} is a matrix norm; 'dim' must name two axes")
    if ord is None or ord == 2:
        return _euclidean(t, axis, keepdim)
    absolute = _abs(t)
    if ord == math.inf:
        return _reduce.amax(absolute, axis, keepdim)
    if ord == -math.inf:
        return _reduce.amin(absolute, axis, keepdim)
    if ord == 0:
        nonzero = xp().astype(t._data != 0, absolute._data.dtype)
        return _reduce.sum(wrap(nonzero), dim=axis, keepdim=keepdim)
    return _math.pow(_reduce.sum(_math.pow(absolute, ord), dim=axis, keepdim=keepdim), 1.0 / ord)


def _matrix_norm(t, axes, ord, keepdim, op):
    _math, _reduce = _math_ops()
    rows, cols = axes
    if ord is None or ord == "fro":
        return _euclidean(t, axes, keepdim)
    if ord in (math.inf, -math.inf, 1, -1):
        # inf: largest row sum (sum across columns); 1: largest column sum (sum across rows)
        summed_axis, kept_axis = (cols, rows) if abs(ord) == math.inf else (rows, cols)
        sums = _reduce.sum(_abs(t), dim=summed_axis, keepdim=True)
        pick = _reduce.amax if ord > 0 else _reduce.amin
        out = pick(sums, kept_axis, True)
        return out if keepdim else _squeeze(out, axes)
    if ord in ("nuc", 2, -2):
        return _singular_value_norm(t, axes, ord, keepdim)
    raise ValueError(f"For '{op}', a matrix norm's 'ord' must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, "
                     f"but got {ord!r}")


def _squeeze(t, axes):
    shape = [d for i, d in enumerate(t.shape) if i not in axes]
    return t.reshape(tuple(shape))


def _singular_values(t, axes):
    """The singular values of the matrices on ``axes`` (moved last): differentiable through ``svd``."""
    from .linalg import svd
    from .shape_ops import transpose

    rows, cols = axes
    others = [i for i in range(t.ndim) if i not in axes]
    moved = transpose(t, tuple(others) + (rows, cols)) if (rows, cols) != (t.ndim - 2, t.ndim - 1) else t
    return svd(moved, False, False)


def _singular_value_norm(t, axes, ord, keepdim):
    _math, _reduce = _math_ops()
    values = _singular_values(t, axes)
    if ord == "nuc":
        out = _reduce.sum(values, -1)
    elif ord == 2:
        out = _reduce.amax(values, -1)
    else:
        out = _reduce.amin(values, -1)
    if keepdim:
        for axis in sorted(axes):
            out = out.expand_dims(axis)
    return out


def _out_dtype(out, t):
    """Complex input keeps a complex dtype (as MindSpore's vector norms do)."""
    if t.dtype.kind == "complex" and out.dtype.kind != "complex":
        from .fft import _as_complex  # a cast whose gradient is the real part
        return _as_complex(out, t._data.dtype)
    return out


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):
    """The vector norm of ``x`` over ``axis`` (an int, a tuple, or ``None``: all elements).

    ``ord``: 2 (default), ``inf`` / ``-inf`` (largest / smallest ``|x|``), 0
    (count of non-zeros), any other number ``p`` (``sum |x|^p ^ 1/p``).

    >>> import cellkit as ms
    >>> print(vector_norm(ms.Tensor([3.0, -4.0]), 1))
    7.0
    """
    op = "vector_norm"
    t = _float_input(x, "x", op, dtype)
    keepdims = _keepdim_arg(keepdims, "keepdims", op)
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise ValueError(f"For '{op}', 'ord' must be an int, a float, inf or -inf, but got {describe(ord)}")
    if axis is None:
        axes = tuple(range(t.ndim))
    elif isinstance(axis, tuple):
        axes = tuple(normalize_axis(a, t.ndim, op, "axis") for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"For '{op}', 'axis' repeats an axis: {axis!r}")
    elif isinstance(axis, int) and not isinstance(axis, bool):
        axes = (normalize_axis(axis, t.ndim, op, "axis"),)
    else:
        raise TypeError(f"For '{op}', 'axis' must be an int or a tuple of ints, but got {describe(axis)}")
    if t.ndim == 0:
        return _out_dtype(_abs(t), t)
    return _out_dtype(_vector_norm(t, axes, ord, keepdims, op), t)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):
    """The matrix norm of ``A`` over the two axes ``axis`` (the last two by default).

    ``ord``: ``'fro'`` (default), ``'nuc'``, ``inf`` / ``-inf`` (largest /
    smallest row sum of ``|A|``), 1 / -1 (columns), 2 / -2 (largest /
    smallest singular value).

    >>> import cellkit as ms
    >>> print(matrix_norm(ms.Tensor([[1.0, -2.0], [3.0, 4.0]]), 1))
    6.0
    """
    op = "matrix_norm"
    t = _float_input(A, "A", op, dtype)
    keepdims = _keepdim_arg(keepdims, "keepdims", op)
    if not isinstance(axis, tuple) or len(axis) != 2 or any(isinstance(a, bool) or not isinstance(a, int)
                                                             for a in axis):
        raise TypeError(f"For '{op}', 'axis' must be a tuple of two ints, but got {describe(axis)}")
    if ord not in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf) or isinstance(ord, bool):
        raise ValueError(f"For '{op}', 'ord' must be one of 2, -2, 1, -1, inf, -inf, 'fro', 'nuc', but got {ord!r}")
    if t.ndim < 2:
        raise ValueError(f"For '{op}', 'A' must have at least 2 dimensions, but got shape {tuple(t.shape)}")
    axes = tuple(normalize_axis(a, t.ndim, op, "axis") for a in axis)
    if axes[0] == axes[1]:
        raise ValueError(f"For '{op}', the two axes of 'axis' must differ, but got {axis!r}")
    return _matrix_norm(t, axes, ord, keepdims, op)


def cond(A, p=None):
    """The condition number of square matrices in the norm ``p``: ``norm(A) * norm(inverse(A))``.

    ``p`` ``None`` or 2: largest over smallest singular value (-2: the
    reciprocal); ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1: those matrix
    norms.  MindSpore 2.10 returns Float32 for Float64 input; cellkit keeps Float64.

    >>> import cellkit as ms
    >>> print(cond(ms.Tensor([[2.0, 0.0], [0.0, 0.5]])))
    4.0
    """
    from .linalg import _matrix, _F32_F64, inverse

    op = "cond"
    t = _matrix(A, "A", op, _F32_F64)
    if p not in (None, "fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf) or isinstance(p, bool):
        raise ValueError(f"For '{op}', 'p' must be one of None, 2, -2, 1, -1, inf, -inf, 'fro', 'nuc', but got {p!r}")
    if t.shape[-1] != t.shape[-2]:
        raise ValueError(f"For '{op}', 'A' must hold square matrices, but got shape {tuple(t.shape)}")
    axes = (t.ndim - 2, t.ndim - 1)
    if p is None or p in (2, -2):
        _math, _reduce = _math_ops()
        values = _singular_values(t, axes)
        ratio = _math.div(_reduce.amax(values, -1), _reduce.amin(values, -1))
        return ratio if p != -2 else _math.div(1.0, ratio)
    _math, _ = _math_ops()
    return _math.mul(_matrix_norm(t, axes, p, False, op), _matrix_norm(inverse(t), axes, p, False, op))
