"""Linear algebra: matrix products, decompositions, solves and their gradients.

Products (``matmul``, ``bmm``, ``addmm`` ...) are compositions of differentiable
ops or small ops of their own.  The matrix functions (``inverse``, ``det``,
``slogdet``, ``cholesky``, ``qr``, ``svd``, ``eig``, ``pinv`` and the solves)
each have a backward *rule* written in the rule namespace ``m`` from the saved
input or output, so the same text gives first derivatives on arrays and, on
Tensors, second derivatives (see ``cellkit/ops/_core.py``).  A rule that needs
another matrix function (an inverse, a solve) calls that function's op through
``m.call``, so its gradient is recorded too.

Conventions of the gradients (the usual ones, and MindSpore's where it has them):

- ``svd`` and ``eig`` assume distinct singular values / eigenvalues (their
  gradients divide by the gaps); ``qr`` assumes a full-rank input; ``pinv``
  and ``lstsq`` a rank that does not change near the input.
- ``cholesky`` reads the lower triangle of its input (the upper one for
  ``upper=True``), as LAPACK does: the gradient is that of the function it
  computes, so it lands in that triangle.
- Complex inputs: a gradient ``g`` of a real loss is ``dL/dRe + i dL/dIm``
  (MindSpore's convention, as PyTorch's): the products, ``inverse`` and the
  solves differentiate complex inputs; the decompositions differentiate real
  inputs only.

Where the CPU build of MindSpore 2.10 has no gradient (``qr``, ``eig``,
``cholesky``, ``lstsq``, ``lu_solve``), cellkit still has one, checked against
finite differences.

>>> import cellkit as ms
>>> a = ms.Tensor([[1.0, 2.0]])
>>> b = ms.Tensor([[3.0], [4.0]])
>>> print(matmul(a, b))
[[11.]]
>>> print(det(ms.Tensor([[2.0, 1.0], [1.0, 3.0]])))
5.0
"""
from __future__ import annotations

import importlib
import numbers

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor, check_allocation
from ._core import OUTPUT, bool_arg, describe, int_arg, normalize_axis, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register
# The norms live in ops/norms.py; cellkit.ops takes only ``norm`` from there, so the others are exported here.
from .norms import cond, matrix_norm, vector_norm  # noqa: E402,F401

__all__ = [
    "matmul", "mm", "bmm", "batch_matmul", "mv", "dot", "inner", "outer", "ger", "vecdot", "tensor_dot",
    "kron", "cross", "trace", "addmm", "addbmm", "baddbmm", "addmv", "addr", "adjoint", "matrix_power",
    "inverse", "det", "slogdet", "logdet", "cholesky", "cholesky_inverse", "cholesky_solve", "matrix_solve",
    "qr", "svd", "eig", "eigvals", "pinv", "lstsq", "lu_unpack", "lu_solve", "geqrf", "orgqr",
    "Cholesky", "CholeskyInverse", "CholeskySolve", "Cross", "Eig", "Ger", "LogMatrixDeterminant",
    "MatrixDeterminant", "MatrixInverse", "MatrixPower", "MatrixSolve", "MatrixTriangularSolve", "Lstsq",
    "LuSolve", "LuUnpack", "Orgqr", "Qr", "Svd", "vector_norm", "matrix_norm", "cond",
]

_F32_F64 = (_dt.float32, _dt.float64)
_FLOATS = (_dt.float16, _dt.float32, _dt.float64)
_COMPLEX = (_dt.complex64, _dt.complex128)


# ------------------------------------------------------------------ argument checks and small helpers
def _names(dtypes):
    return ", ".join(str(d) for d in dtypes)


def _dtype_check(t, name, op, allowed):
    """``t``'s dtype must be one of ``allowed`` (DType objects); TypeError naming the dtype otherwise."""
    if t.dtype not in allowed:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of dtype {_names(allowed)}, but got {t.dtype} "
                        f"(shape {tuple(t.shape)})")
    return t


def _matrix(value, name, op, allowed=_F32_F64, square=False, min_ndim=2, ndim=None):
    """A Tensor argument that holds matrices: dtype in ``allowed``, at least two dimensions, square if asked."""
    t = _dtype_check(tensor_arg(value, name, op), name, op, allowed)
    shape = tuple(t.shape)
    if ndim is not None and len(shape) != ndim:
        raise ValueError(f"For '{op}', '{name}' must have {ndim} dimensions, but got shape {shape} "
                         f"({len(shape)} dimensions)")
    if len(shape) < min_ndim:
        raise ValueError(f"For '{op}', '{name}' must have at least {min_ndim} dimensions, but got shape {shape}")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"For '{op}', '{name}' must hold square matrices (its last two dimensions equal), "
                         f"but got shape {shape}")
    return t


def _same_dtype(a, b, op, names=("input", "other")):
    if a.dtype is not b.dtype:
        raise TypeError(f"For '{op}', '{names[0]}' and '{names[1]}' must have the same dtype, but got "
                        f"{a.dtype} and {b.dtype}")


def _is_complex(array):
    return _dt.dtype_of(array).kind == "complex"


def _lapack(op, what, fn, *args, **kwargs):
    """Run a LAPACK-backed function; its LinAlgError becomes a ValueError that names the op and the input."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- only LinAlgError (a NumPy type) is translated
        if type(exc).__name__ != "LinAlgError":
            raise
        raise ValueError(f"For '{op}', {what}: {exc}") from None


def _const(host, dtype):
    """A host NumPy array as a backend array of the backend dtype ``dtype`` (a constant for a rule)."""
    be = _backend._current
    return be.from_host(np.ascontiguousarray(host, dtype=_dt.dtype_of_array_dtype(dtype).to_backend(np)))


def _eye(n, dtype, batch=(), cols=None):
    """The identity matrix (broadcast over ``batch``) in the backend dtype ``dtype``."""
    eye = _const(np.eye(n, n if cols is None else cols), dtype)
    return xp().broadcast_to(eye, tuple(batch) + tuple(eye.shape)) if batch else eye


def _tri_mask(n, cols, dtype, k=0, upper=False):
    """0/1 mask of the lower (``upper``: upper) triangle of an ``n`` x ``cols`` matrix from diagonal ``k``."""
    return _const(np.triu(np.ones((n, cols)), k) if upper else np.tril(np.ones((n, cols)), k), dtype)


def _any(condition):
    """``any(condition)`` as a Python bool, read on the host explicitly (devices refuse ``bool(array)``)."""
    be = _backend._current
    found = be.xp.any(condition)
    return bool(found if be.is_numpy else be.to_host(found))


def _finite(A, name, op):
    """Refuse NaN and infinities (LAPACK's iterations would not converge on them)."""
    x = xp()
    if A.size and _any(~x.isfinite(A)):
        raise ValueError(f"For '{op}', '{name}' must hold finite numbers, but a matrix of shape {tuple(A.shape)} "
                         "holds NaN or inf")


def _zeros(shape, dtype):
    be = _backend._current
    return np.zeros(shape, dtype=dtype) if be.is_numpy else be.xp.zeros(shape, dtype=dtype, device=be.device)


def _mT(a):
    x = xp()
    return x.matrix_transpose(a) if hasattr(x, "matrix_transpose") else x.swapaxes(a, -1, -2)


def _conj_mT(a):
    return _mT(xp().conj(a)) if _is_complex(a) else _mT(a)


def _scalar_arg(value, name, op, allow_bool=True):
    if (isinstance(value, bool) and not allow_bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{op}', '{name}' must be an int or a float, but got {describe(value)}")
    return value


def _ops():
    """The math, shape and reduce op modules (imported late: they import this module's namespace users)."""
    from . import math as _math
    from . import reduce as _reduce
    from . import shape_ops as _shape

    return _math, _shape, _reduce


def _reduce_errors():
    """cellkit.ops.reduce, which holds the exception types that are both a ValueError and a RuntimeError."""
    from . import reduce as _reduce

    return _reduce


def _fft():
    """The module ``cellkit.ops.fft`` (the package attribute ``fft`` is the function ``ops.fft``)."""
    return importlib.import_module(".fft", __package__)


# ------------------------------------------------------------------ products
def _check_operands(A, B, op):
    da, db = _dt.dtype_of(A), _dt.dtype_of(B)
    if da is not db:
        # MindSpore refuses to mix, e.g., Float16 with Float32 in a matrix product.
        raise TypeError(
            f"For '{op}', the two inputs must have the same dtype, but got {da} and {db}"
        )
    if A.ndim == 0 or B.ndim == 0:
        raise ValueError(f"For '{op}', the inputs must not be scalars, but got shapes {tuple(A.shape)} and {tuple(B.shape)}")
    inner_a = A.shape[-1]
    inner_b = B.shape[0] if B.ndim == 1 else B.shape[-2]
    if inner_a != inner_b:
        # MindSpore documents ValueError; its kernel raises RuntimeError: either catches it.
        raise _reduce_errors().ValueRuntimeError(
            f"For '{op}', the last dimension of 'input' must equal the second-to-last of 'other', "
            f"but got shapes {tuple(A.shape)} and {tuple(B.shape)} ({inner_a} != {inner_b})"
        )


def matmul(input, other):
    """Matrix product with broadcasting over leading (batch) dimensions.

    1-D operands are treated as a row (left) or column (right) vector and the
    added dimension is removed from the result, as in NumPy.  Complex inputs
    differentiate too (``dA = g @ B^H``, ``dB = A^H @ g``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.matmul(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0], [4.0]])))
    [[11.]]
    """
    a = tensor_arg(input, "input", "matmul")
    b = tensor_arg(other, "other", "matmul")
    A, B = a._data, b._data
    _check_operands(A, B, "matmul")
    xs = xp()
    try:
        out = xs.matmul(A, B)
    except ValueError:
        raise ValueError(
            f"For 'matmul', the batch dimensions of shapes {tuple(A.shape)} and {tuple(B.shape)} cannot be broadcast"
        ) from None
    if out.dtype != A.dtype:  # NumPy computes bfloat16 products in float32
        out = xs.astype(out, A.dtype)
    if _ag._depth == 0 or (a._node is None and b._node is None):
        return wrap(out)
    if _is_complex(A):
        return record(out, "MatMul", _matmul_complex_rule, (a, b), (A, B), (0, 1))
    return record(out, "MatMul", _matmul_rule, (a, b), (A, B), (0, 1))


def _matmul_grads(m, node, g, A, B, left, right):
    """The two gradients of ``A @ B``: ``left(B2)`` is ``B^T`` (or ``B^H``), ``right(A2)`` likewise."""
    A2 = A if A.ndim > 1 else m.reshape(A, (1, A.shape[0]))
    B2 = B if B.ndim > 1 else m.reshape(B, (B.shape[0], 1))
    # Shape arithmetic only (no data): NumPy's helper works for every backend.
    batch = np.broadcast_shapes(tuple(A2.shape[:-2]), tuple(B2.shape[:-2]))
    g2 = m.reshape(g, batch + (A2.shape[-2], B2.shape[-1]))
    ga = gb = None
    if node.inputs[0] is not None:
        ga = m.reshape(m.sum_to(m.matmul(g2, left(B2)), A2.shape), A.shape)
    if node.inputs[1] is not None:
        gb = m.reshape(m.sum_to(m.matmul(right(A2), g2), B2.shape), B.shape)
    return ga, gb


def _matmul_rule(m, node, g):
    """d(A @ B) = dA @ B + A @ dB, each summed back over broadcast batch axes.

    Vectors are viewed as a row (left) or a column (right) so one rule covers them.
    """
    A, B = node.unpack(m)
    return _matmul_grads(m, node, g, A, B, m.mT, m.mT)


def _matmul_complex_rule(m, node, g):
    """The complex product: the gradients use conjugate transposes."""
    A, B = node.unpack(m)
    return _matmul_grads(m, node, g, A, B, lambda x: _conj_T(m, x), lambda x: _conj_T(m, x))


def _conj_T(m, x):
    """``x^H`` in the rule namespace (the conjugate is an op of its own, so it is recorded)."""
    fft = _fft()
    return m.mT(m.call(xp().conj, fft.conj, x))


def mm(input, mat2):
    """Matrix product of two 2-D tensors (no broadcasting).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.mm(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0], [4.0]])))
    [[11.]]
    """
    a = tensor_arg(input, "input", "mm")
    b = tensor_arg(mat2, "mat2", "mm")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"For 'mm', 'input' and 'mat2' must be 2-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    return matmul(a, b)


def bmm(input_x, mat2):
    """Batched matrix product (of 2-D matrices too, as in MindSpore 2.10).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.bmm(ms.Tensor([[[1.0, 2.0]]]), ms.Tensor([[[3.0], [4.0]]])).shape)
    (1, 1, 1)
    """
    a = tensor_arg(input_x, "input_x", "bmm")
    b = tensor_arg(mat2, "mat2", "bmm")
    if a.ndim < 2 or b.ndim < 2:  # MindSpore 2.10 multiplies 2-D matrices too
        raise ValueError(
            f"For 'bmm', both inputs must have at least 2 dimensions, but got shapes {a.shape} and {b.shape}"
        )
    return matmul(a, b)


def batch_matmul(x, y, transpose_a=False, transpose_b=False):
    """``BatchMatMul``: batched product with optional transposes of the last two axes.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.batch_matmul(ms.Tensor([[[1.0, 2.0]]]), ms.Tensor([[[3.0, 4.0]]]), transpose_b=True))
    [[[11.]]]
    """
    from .shape_ops import swapaxes

    x = tensor_arg(x, "x", "BatchMatMul")
    y = tensor_arg(y, "y", "BatchMatMul")
    transpose_a = bool_arg(transpose_a, "transpose_a", "BatchMatMul")
    transpose_b = bool_arg(transpose_b, "transpose_b", "BatchMatMul")
    if transpose_a:
        x = swapaxes(x, -1, -2)
    if transpose_b:
        y = swapaxes(y, -1, -2)
    return matmul(x, y)


def mv(mat, vec):
    """The product of a matrix ``mat`` (N, M) and a vector ``vec`` (M,): a vector (N,).

    >>> import cellkit as ms
    >>> print(mv(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), ms.Tensor([1.0, 1.0])))
    [3. 7.]
    """
    a = tensor_arg(mat, "mat", "mv")
    v = tensor_arg(vec, "vec", "mv")
    if a.ndim != 2 or v.ndim != 1:
        raise ValueError(f"For 'mv', 'mat' must be 2-D and 'vec' 1-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(v.shape)}")
    return matmul(a, v)


def dot(input, other):
    """The dot product of two tensors of at least two dimensions (MindSpore's ``ops.dot``).

    Sums over the last axis of ``input`` and the second-to-last of ``other``:
    the result's shape is ``input.shape[:-1] + other.shape[:-2] + other.shape[-1:]``.
    Float inputs only (MindSpore 2.10 also refuses Float64; cellkit takes it).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.dot(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0], [4.0]])))
    [[11.]]
    """
    a = _dtype_check(tensor_arg(input, "input", "dot"), "input", "dot", _FLOATS)
    b = _dtype_check(tensor_arg(other, "other", "dot"), "other", "dot", _FLOATS)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"For 'dot', 'input' and 'other' must have at least 2 dimensions, but got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    _same_dtype(a, b, "dot")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For 'dot', the last dimension of 'input' must equal the second-to-last of 'other', "
                         f"but got shapes {tuple(a.shape)} and {tuple(b.shape)}")
    return tensor_dot(a, b, ((a.ndim - 1,), (b.ndim - 2,)))


def _tensor_dot_dot(a, b, axes_a, axes_b, op):
    """Contract ``axes_a`` of ``a`` with ``axes_b`` of ``b``: permute, reshape, one matmul (differentiable)."""
    _math, _shape, _ = _ops()
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"For '{op}', the contracted axes must have equal lengths, but axis {i} of "
                             f"shape {tuple(a.shape)} and axis {j} of shape {tuple(b.shape)} differ")
    k = int(np.prod([a.shape[i] for i in axes_a], dtype=np.int64))
    left = _shape.reshape(_shape.transpose(a, tuple(free_a) + tuple(axes_a)),
                          (int(np.prod([a.shape[i] for i in free_a], dtype=np.int64)), k))
    right = _shape.reshape(_shape.transpose(b, tuple(axes_b) + tuple(free_b)),
                           (k, int(np.prod([b.shape[i] for i in free_b], dtype=np.int64))))
    out = matmul(left, right)
    return _shape.reshape(out, tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def tensor_dot(x1, x2, axes):
    """Contract axes of ``x1`` with axes of ``x2`` (NumPy's ``tensordot``).

    ``axes`` is an int ``k`` (the last ``k`` axes of ``x1`` with the first
    ``k`` of ``x2``) or a pair of axis lists.

    >>> import cellkit as ms
    >>> print(tensor_dot(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0], [4.0]]), 1))
    [[11.]]
    """
    op = "tensor_dot"
    a = tensor_arg(x1, "x1", op)
    b = tensor_arg(x2, "x2", op)
    if a.dtype is not b.dtype:
        raise TypeError(f"For '{op}', 'x1' and 'x2' must have the same dtype, but got {a.dtype} and {b.dtype}")
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        k = int(axes)
        if not 0 <= k <= min(a.ndim, b.ndim):
            raise ValueError(f"For '{op}', 'axes' as an int must be in [0, {min(a.ndim, b.ndim)}] for shapes "
                             f"{tuple(a.shape)} and {tuple(b.shape)}, but got {k}")
        axes_a = tuple(range(a.ndim - k, a.ndim))
        axes_b = tuple(range(k))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        pair = []
        for side, t in zip(axes, (a, b)):
            side = (side,) if isinstance(side, (int, np.integer)) and not isinstance(side, bool) else side
            if not isinstance(side, (tuple, list)):
                raise TypeError(f"For '{op}', 'axes' must be an int or a pair of int lists, but got {axes!r}")
            pair.append(tuple(normalize_axis(i, t.ndim, op, "axes") for i in side))
        axes_a, axes_b = pair
        if len(axes_a) != len(axes_b) or len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
            raise ValueError(f"For '{op}', 'axes' must pair as many distinct axes of 'x1' as of 'x2', "
                             f"but got {axes!r}")
    else:
        raise TypeError(f"For '{op}', 'axes' must be an int or a pair of int lists, but got {describe(axes)}")
    return _tensor_dot_dot(a, b, axes_a, axes_b, op)


def inner(input, other):
    """Sum of products over the last axis of both inputs (a dot product of 1-D tensors).

    A 0-d input multiplies elementwise instead.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.inner(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])))
    11.0
    """
    op = "inner"
    a = tensor_arg(input, "input", op)
    b = tensor_arg(other, "other", op)
    _math, _, _ = _ops()
    if a.ndim == 0 or b.ndim == 0:
        return _math.mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"For '{op}', the last dimension of 'input' and 'other' must be the same, but got "
                         f"input.shape: {tuple(a.shape)} and other.shape: {tuple(b.shape)}")
    if a.dtype is not b.dtype:
        raise TypeError(f"For '{op}', 'input' and 'other' must have the same dtype, but got {a.dtype} and {b.dtype}")
    return _tensor_dot_dot(a, b, (a.ndim - 1,), (b.ndim - 1,), op)


def outer(input, vec2):
    """The outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``.

    A tensor with more dimensions is flattened first; the dtypes promote.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.outer(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])))
    [[3. 4.]
     [6. 8.]]
    """
    op = "outer"
    a = tensor_arg(input, "input", op)
    b = tensor_arg(vec2, "vec2", op)
    _math, _shape, _ = _ops()
    return _math.mul(_shape.reshape(a, (-1, 1)), _shape.reshape(b, (1, -1)))


def ger(input, vec2):
    """The outer product of two 1-D float tensors of one dtype (MindSpore's ``Ger``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ger(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])))
    [[3. 4.]
     [6. 8.]]
    """
    op = "ger"
    a = _dtype_check(tensor_arg(input, "input", op), "input", op, _FLOATS)
    b = _dtype_check(tensor_arg(vec2, "vec2", op), "vec2", op, _FLOATS)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"For '{op}', 'input' and 'vec2' must be 1-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    _same_dtype(a, b, op, ("input", "vec2"))
    return outer(a, b)


def vecdot(x, y, *, axis=-1):
    """``sum(conj(x) * y, axis)`` with broadcasting: dot products of vectors along ``axis``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.vecdot(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), ms.Tensor([1.0, 1.0])))
    [3. 7.]
    """
    op = "vecdot"
    a = tensor_arg(x, "x", op)
    b = tensor_arg(y, "y", op)
    _math, _, _reduce = _ops()
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape)) if _broadcastable(a, b) else None
    if shape is None:
        raise ValueError(f"For '{op}', the shapes of 'x' {tuple(a.shape)} and 'y' {tuple(b.shape)} cannot be "
                         "broadcast together")
    axis = normalize_axis(axis, len(shape), op)
    if a.dtype.kind == "complex":
        a = _fft().conj(a)
    return _reduce.sum(_math.mul(a, b), axis)


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
        return True
    except ValueError:
        return False


def kron(input, other):
    """The Kronecker product: every element of ``input`` times all of ``other``, in blocks.

    >>> import cellkit as ms
    >>> print(kron(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 10.0])))
    [ 1. 10.  2. 20.]
    """
    op = "kron"
    a = tensor_arg(input, "input", op)
    b = tensor_arg(other, "other", op)
    _math, _shape, _ = _ops()
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + tuple(a.shape)
    sb = (1,) * (n - b.ndim) + tuple(b.shape)
    # a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...], then merge each (i, j) pair of axes.
    ea = _shape.reshape(a, tuple(d for s in sa for d in (s, 1)))
    eb = _shape.reshape(b, tuple(d for s in sb for d in (1, s)))
    return _shape.reshape(_math.mul(ea, eb), tuple(x * y for x, y in zip(sa, sb)))


def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (the first axis of length 3 when ``None``).

    >>> import cellkit as ms
    >>> print(cross(ms.Tensor([1.0, 0.0, 0.0]), ms.Tensor([0.0, 1.0, 0.0])))
    [0. 0. 1.]
    """
    op = "cross"
    a = tensor_arg(input, "input", op)
    b = tensor_arg(other, "other", op)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{op}', 'input' and 'other' must have the same shape, but got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    if a.dtype is not b.dtype:
        raise TypeError(f"For '{op}', 'input' and 'other' must have the same dtype, but got {a.dtype} and {b.dtype}")
    if a.dtype is _dt.bool_:
        raise TypeError(f"For '{op}', 'input' of dtype Bool is not supported")
    if dim is None:
        dim = next((i for i, d in enumerate(a.shape) if d == 3), None)
        if dim is None:
            raise ValueError(f"For '{op}', no dimension of length 3 in shape {tuple(a.shape)} ('dim' is None)")
    dim = normalize_axis(dim, a.ndim, op, "dim")
    if a.shape[dim] != 3:
        raise ValueError(f"For '{op}', dimension {dim} must be 3, but got {a.shape[dim]} (shape {tuple(a.shape)})")
    out = _cross_array(a._data, b._data, dim)
    if _ag._depth == 0 or (a._node is None and b._node is None):
        return wrap(out)
    return record(out, "Cross", _cross_rule, (a, b), (a._data, b._data), (0, 1), info=dim)


def _cross_array(A, B, dim):
    x = xp()
    a0, a1, a2 = (x.take(A, x.asarray([i], device=_backend._current.device) if not _backend._current.is_numpy
                         else np.asarray([i]), axis=dim) for i in range(3))
    b0, b1, b2 = (x.take(B, x.asarray([i], device=_backend._current.device) if not _backend._current.is_numpy
                         else np.asarray([i]), axis=dim) for i in range(3))
    return x.concat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)


def _cross_op(a, b, dim):
    return cross(a, b, dim)


def _cross_rule(m, node, g):
    """d(a x b) = da x b + a x db; the adjoint of ``u -> u x b`` is ``g -> b x g``."""
    A, B = node.unpack(m)
    dim = node.info
    ga = m.call(_cross_array, _cross_op, B, g, dim) if node.inputs[0] is not None else None
    gb = m.call(_cross_array, _cross_op, g, A, dim) if node.inputs[1] is not None else None
    return ga, gb


def trace(input):
    """The sum of the diagonal of a matrix (2-D only, as in MindSpore); the dtype is kept.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.trace(ms.Tensor([[1.0, 2.0], [3.0, 4.0]])))
    5.0
    """
    op = "trace"
    t = tensor_arg(input, "input", op)
    if t.ndim != 2:  # MindSpore's kernel raises RuntimeError
        raise _reduce_errors().ValueRuntimeError(f"For '{op}', the rank of 'input' must be 2, but got shape "
                                                 f"{tuple(t.shape)}")
    if t.dtype is _dt.bool_:
        raise TypeError(f"For '{op}', 'input' of dtype Bool is not supported")
    return _trace(t, 0, 0, 1, op)


def _trace(t, offset, axis1, axis2, op):
    """Sum of the ``offset`` diagonal of the matrices on axes ``axis1``, ``axis2`` (a differentiable op)."""
    x = xp()
    arr = t._data
    n = arr.ndim
    a1, a2 = normalize_axis(axis1, n, op, "axis1"), normalize_axis(axis2, n, op, "axis2")
    if a1 == a2:
        raise ValueError(f"For '{op}', 'axis1' and 'axis2' must differ, but both are {a1}")
    rows, cols = arr.shape[a1], arr.shape[a2]
    mask_shape = [1] * n
    mask_shape[a1], mask_shape[a2] = rows, cols
    mask = _const(np.eye(rows, cols, k=int(offset)).reshape(mask_shape), arr.dtype)
    out = x.sum(arr * mask, axis=(a1, a2))
    if out.dtype != arr.dtype:
        out = x.astype(out, arr.dtype)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Trace", _trace_rule, (t,), (mask,), (None,), info=(a1, a2))


def _trace_rule(m, node, g):
    (mask,) = node.unpack(m)
    a1, a2 = node.info
    return (m.expand_dims(m.expand_dims(g, min(a1, a2)), max(a1, a2)) * mask,)


# -- scaled sums of products: addmm, addbmm, baddbmm, addmv, addr
def _scale_args(beta, alpha, op, integral, strict_ints=False, dtype=None):
    for name, value in (("beta", beta), ("alpha", alpha)):
        _scalar_arg(value, name, op)
        if strict_ints and integral and isinstance(value, float):
            raise TypeError(f"For '{op}', for inputs of a dtype that is not float ('batch1' is {dtype}), "
                            f"'{name}' must be an integer, but got {value!r}")


def _scaled_sum(base, product, beta, alpha, op):
    """``beta * base + alpha * product`` (``base`` ignored when ``beta`` is 0), keeping integer dtypes for ints."""
    _math, _, _ = _ops()
    if isinstance(alpha, bool):
        alpha = int(alpha)
    if isinstance(beta, bool):
        beta = int(beta)
    scaled = product if alpha == 1 else _math.mul(product, alpha)
    if beta == 0:
        shape = np.broadcast_shapes(tuple(base.shape), tuple(scaled.shape))
        from .shape_ops import broadcast_to
        return broadcast_to(scaled, shape) if tuple(scaled.shape) != shape else scaled
    return _math.add(base if beta == 1 else _math.mul(base, beta), scaled)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-D ``mat1`` and ``mat2``.

    >>> import cellkit as ms
    >>> print(addmm(ms.Tensor([[1.0]]), ms.Tensor([[2.0]]), ms.Tensor([[3.0]]), beta=2))
    [[8.]]
    """
    op = "addmm"
    base = tensor_arg(input, "input", op)
    a = tensor_arg(mat1, "mat1", op)
    b = tensor_arg(mat2, "mat2", op)
    _scale_args(beta, alpha, op, base.dtype.kind in ("int", "uint", "bool"))
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"For '{op}', 'mat1' and 'mat2' must be 2-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    product = matmul(a, b)
    _check_base(base, product, op, factors=(("mat1", a), ("mat2", b)))
    return _scaled_sum(base, product, beta, alpha, op)


def _check_base(base, product, op, name="input", factors=()):
    try:
        shape = np.broadcast_shapes(tuple(base.shape), tuple(product.shape))
    except ValueError:
        shape = None
    if shape != tuple(product.shape):
        of = " and ".join(f"'{n}' of shape {tuple(t.shape)}" for n, t in factors)
        raise ValueError(f"For '{op}', '{name}' of shape {tuple(base.shape)} must broadcast to the shape "
                         f"{tuple(product.shape)} of the product" + (f" of {of}" if of else ""))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])`` for 3-D batches.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.addbmm(ms.Tensor([[1.0]]), ms.Tensor([[[2.0]], [[3.0]]]), ms.Tensor([[[1.0]], [[1.0]]])))
    [[6.]]
    """
    op = "addbmm"
    base = tensor_arg(input, "input", op)
    a = tensor_arg(batch1, "batch1", op)
    b = tensor_arg(batch2, "batch2", op)
    _scale_args(beta, alpha, op, base.dtype.kind in ("int", "uint", "bool"))
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise ValueError(f"For '{op}', 'batch1' and 'batch2' must be 3-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    _, _, _reduce = _ops()
    product = matmul(a, b)
    if product.ndim == 3:
        product = _reduce.sum(product, 0)
    _check_base(base, product, op, factors=(("batch1", a), ("batch2", b)))
    return _scaled_sum(base, product, beta, alpha, op)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for 3-D batches (ints need int ``beta``, ``alpha``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.baddbmm(ms.Tensor([[[1.0]]]), ms.Tensor([[[2.0]]]), ms.Tensor([[[3.0]]]), 0.5))
    [[[6.5]]]
    """
    op = "baddbmm"
    base = tensor_arg(input, "input", op)
    a = tensor_arg(batch1, "batch1", op)
    b = tensor_arg(batch2, "batch2", op)
    _scale_args(beta, alpha, op, a.dtype.kind in ("int", "uint", "bool"), strict_ints=True, dtype=a.dtype)
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise ValueError(f"For '{op}', 'batch1' and 'batch2' must be 3-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    product = matmul(a, b)
    _check_base(base, product, op, factors=(("batch1", a), ("batch2", b)))
    return _scaled_sum(base, product, beta, alpha, op)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` for a matrix and a vector.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.addmv(ms.Tensor([1.0, 1.0]), ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), ms.Tensor([1.0, 0.0])))
    [2. 4.]
    """
    op = "addmv"
    base = tensor_arg(input, "input", op)
    _scale_args(beta, alpha, op, base.dtype.kind in ("int", "uint", "bool"))
    m_t, v_t = tensor_arg(mat, "mat", op), tensor_arg(vec, "vec", op)
    product = mv(m_t, v_t)
    _check_base(base, product, op, factors=(("mat", m_t), ("vec", v_t)))
    return _scaled_sum(base, product, beta, alpha, op)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``beta * x + alpha * outer(vec1, vec2)``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.addr(ms.Tensor([[1.0, 1.0]]), ms.Tensor([2.0]), ms.Tensor([3.0, 4.0])))
    [[7. 9.]]
    """
    op = "addr"
    base = tensor_arg(x, "x", op)
    a = tensor_arg(vec1, "vec1", op)
    b = tensor_arg(vec2, "vec2", op)
    _scale_args(beta, alpha, op, base.dtype.kind in ("int", "uint", "bool"))
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"For '{op}', 'vec1' and 'vec2' must be 1-D, but got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    product = outer(a, b)
    _check_base(base, product, op, "x", factors=(("vec1", a), ("vec2", b)))
    return _scaled_sum(base, product, beta, alpha, op)


def adjoint(x):
    """The conjugate transpose of the last two axes (the transpose for real tensors).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.adjoint(ms.Tensor([[1 + 2j, 3j]])))
    [[1.-2.j]
     [0.-3.j]]
    """
    op = "adjoint"
    t = tensor_arg(x, "x", op)
    if t.ndim < 2:
        raise ValueError(f"For '{op}', 'x' must have at least 2 dimensions, but got shape {tuple(t.shape)}")
    _, _shape, _ = _ops()
    out = _shape.swapaxes(t, -1, -2)
    return _fft().conj(out) if t.dtype.kind == "complex" else out


def matrix_power(input, n):
    """``input`` multiplied by itself ``n`` times (the identity for 0, powers of the inverse for n < 0).

    Computed by repeated squaring, as matrix products (and an inverse), so it is
    differentiable through them.

    >>> import cellkit as ms
    >>> print(matrix_power(ms.Tensor([[1.0, 1.0], [0.0, 1.0]]), 3))
    [[1. 3.]
     [0. 1.]]
    """
    op = "matrix_power"
    t = tensor_arg(input, "input", op)
    if t.dtype not in (_dt.float32, _dt.float64, _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8):
        raise TypeError(f"For '{op}', 'input' must be a Tensor of dtype Float32, Float64 or an integer type, "
                        f"but got {t.dtype}")
    n = int_arg(n, "n", op)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"For '{op}', 'input' must hold square matrices, but got shape {tuple(t.shape)}")
    if n == 0:
        eye = _eye(t.shape[-1], t._data.dtype, tuple(t.shape[:-2]))
        return wrap(xp().asarray(eye, copy=True))
    if n < 0:
        if t.dtype.kind != "float":
            raise ValueError(f"For '{op}', a negative 'n' ({n}) needs a float 'input', but got {t.dtype}")
        t = inverse(t)
        n = -n
    result, square = None, t
    while True:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if not n:
            return result
        square = matmul(square, square)


# ------------------------------------------------------------------ inverse, solves, determinants
def inverse(input):
    """The inverse of one or more square matrices.

    Raises ValueError for a singular matrix (MindSpore 2.10 on the CPU returns
    meaningless numbers instead).  The gradient is ``-inv^T g inv^T``.

    >>> import cellkit as ms
    >>> print(inverse(ms.Tensor([[2.0, 0.0], [0.0, 4.0]])))
    [[0.5  0.  ]
     [0.   0.25]]
    """
    op = "inverse"
    t = _matrix(input, "input", op, _F32_F64 + _COMPLEX, square=True)
    return _inverse(t, op)


def _inverse(t, op="inverse"):
    A = t._data
    out = _lapack(op, f"the matrix 'input' of shape {tuple(A.shape)} must be invertible, but it is singular",
                  xp().linalg.inv, A)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "MatrixInverse", _inverse_rule, (t,), (out,), (OUTPUT,))


def _inv_array(a):
    return _lapack("inverse", f"the matrix of shape {tuple(a.shape)} must be invertible, but it is singular",
                   xp().linalg.inv, a)


def _herm(m, x, cplx):
    return _conj_T(m, x) if cplx else m.mT(x)


def _inverse_rule(m, node, g):
    """d(A^-1) = -A^-1 dA A^-1, so dA = -A^-H g A^-H."""
    (out,) = node.unpack(m)
    outH = _herm(m, out, _is_complex_value(out))
    return (-m.matmul(m.matmul(outH, g), outH),)


def _is_complex_value(v):
    dtype = v.dtype
    return (dtype.kind == "complex") if isinstance(dtype, _dt.DType) else _dt.dtype_of(v).kind == "complex"


def _solve(a, b, op="matrix_solve"):
    """``X`` with ``a @ X = b`` (``b`` holds one column per right-hand side; batch axes broadcast)."""
    A, B = a._data, b._data
    x = xp()
    batch = np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    if tuple(A.shape[:-2]) != batch:
        A = x.broadcast_to(A, batch + tuple(A.shape[-2:]))
    if tuple(B.shape[:-2]) != batch:
        B = x.broadcast_to(B, batch + tuple(B.shape[-2:]))
    out = _lapack(op, f"the matrix of shape {tuple(a.shape)} must be invertible, but it is singular",
                  x.linalg.solve, A, B)
    if _ag._depth == 0 or (a._node is None and b._node is None):
        return wrap(out)
    return record(out, "MatrixSolve", _solve_rule, (a, b), (a._data, out), (0, OUTPUT),
                  info=(tuple(a.shape), tuple(b.shape)))


def _solve_array(a, b):
    x = xp()
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    a = x.broadcast_to(a, batch + tuple(a.shape[-2:]))
    b = x.broadcast_to(b, batch + tuple(b.shape[-2:]))
    return _lapack("matrix_solve", f"the matrix of shape {tuple(a.shape)} must be invertible, but it is singular",
                   x.linalg.solve, a, b)


def _solve_op(a, b):
    return _solve(a, b)


def _solve_rule(m, node, g):
    """X = A^-1 B: dB = A^-H g, dA = -dB X^H (each summed back over broadcast batch axes)."""
    A, X = node.unpack(m)
    shape_a, shape_b = node.info
    cplx = _is_complex_value(X)
    gb = m.call(_solve_array, _solve_op, _herm(m, A, cplx), g)
    ga = None
    if node.inputs[0] is not None:
        ga = m.sum_to(-m.matmul(gb, _herm(m, X, cplx)), shape_a)
    return ga, (m.sum_to(gb, shape_b) if node.inputs[1] is not None else None)


def matrix_solve(matrix, rhs, adjoint=False):
    """``X`` with ``matrix @ X = rhs`` (``adjoint``: with the conjugate transpose of ``matrix``).

    >>> import cellkit as ms
    >>> print(matrix_solve(ms.Tensor([[2.0, 0.0], [0.0, 4.0]]), ms.Tensor([[1.0], [1.0]])))
    [[0.5 ]
     [0.25]]
    """
    op = "matrix_solve"
    a = _matrix(matrix, "matrix", op, _FLOATS + _COMPLEX, square=True)
    b = _matrix(rhs, "rhs", op, _FLOATS + _COMPLEX)
    adjoint = bool_arg(adjoint, "adjoint", op)
    _same_dtype(a, b, op, ("matrix", "rhs"))
    if a.ndim != b.ndim:
        raise ValueError(f"For '{op}', 'matrix' and 'rhs' must have the same number of dimensions, but got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    if tuple(a.shape[:-2]) != tuple(b.shape[:-2]) or a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For '{op}', 'matrix' of shape {tuple(a.shape)} does not fit 'rhs' of shape "
                         f"{tuple(b.shape)}")
    if adjoint:
        a = adjoint_(a)
    return _solve_f16(a, b, op)


def adjoint_(t):
    """The conjugate transpose of the last two axes (no argument checks)."""
    _, _shape, _ = _ops()
    out = _shape.swapaxes(t, -1, -2)
    return _fft().conj(out) if t.dtype.kind == "complex" else out


def _solve_f16(a, b, op):
    """Solve in Float32 for Float16 inputs (LAPACK has no half precision), keeping the dtype."""
    if a.dtype is _dt.float16:
        from .creation import cast
        return cast(_solve(cast(a, _dt.float32), cast(b, _dt.float32), op), _dt.float16)
    return _solve(a, b, op)


def _triangular(t, lower, unit=False):
    """The lower (or upper) triangle of ``t``'s square matrices, with a unit diagonal if ``unit`` (differentiable)."""
    _math, _, _ = _ops()
    n = t.shape[-1]
    dtype = t._data.dtype
    if unit:
        mask = wrap(_tri_mask(n, n, dtype, -1 if lower else 1, upper=not lower))
        return _math.add(_math.mul(t, mask), wrap(_eye(n, dtype)))
    return _math.mul(t, wrap(_tri_mask(n, n, dtype, 0, upper=not lower)))


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Solve ``A X = b`` for a triangular ``A``: returns ``(X, A)`` (``Tensor.triangular_solve``).

    Only the triangle of ``A`` that ``upper`` names is read (its diagonal taken
    as ones if ``unitriangular``); ``transpose`` solves with ``A^T``.
    MindSpore 2.10's CPU build documents this method but raises
    AttributeError when it is called; cellkit computes what its docs describe.
    """
    op = "triangular_solve"
    rhs = _matrix(b, "self", op, _F32_F64 + _COMPLEX)
    a = _matrix(A, "A", op, _F32_F64 + _COMPLEX, square=True)
    upper = bool_arg(upper, "upper", op)
    transpose = bool_arg(transpose, "transpose", op)
    unitriangular = bool_arg(unitriangular, "unitriangular", op)
    _same_dtype(rhs, a, op, ("self", "A"))
    if a.shape[-1] != rhs.shape[-2]:
        raise ValueError(f"For '{op}', 'A' of shape {tuple(a.shape)} does not fit 'self' of shape {tuple(rhs.shape)}")
    tri = _triangular(a, lower=not upper, unit=unitriangular)
    if transpose:
        _, _shape, _ = _ops()
        tri = _shape.swapaxes(tri, -1, -2)
    return _solve(tri, rhs, op), wrap(xp().asarray(a._data, copy=True))


def _triangular_solve_prim(matrix, rhs, lower, adjoint, op="MatrixTriangularSolve"):
    a = _matrix(matrix, "matrix", op, _F32_F64 + _COMPLEX, square=True)
    b = _matrix(rhs, "rhs", op, _F32_F64 + _COMPLEX)
    _same_dtype(a, b, op, ("matrix", "rhs"))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For '{op}', 'matrix' of shape {tuple(a.shape)} does not fit 'rhs' of shape "
                         f"{tuple(b.shape)}")
    tri = _triangular(a, lower=lower)
    if adjoint:
        tri = adjoint_(tri)
    return _solve(tri, b, op)


def det(input):
    """The determinant of one or more square matrices; the gradient is ``g * det * inv(A)^T``.

    >>> import cellkit as ms
    >>> print(det(ms.Tensor([[1.0, 2.0], [3.0, 4.0]])))
    -2.0
    """
    op = "det"
    t = _matrix(input, "input", op, _F32_F64 + _COMPLEX, square=True)
    return _det(t)


def _det(t):
    A = t._data
    out = _lapack("det", f"the matrix of shape {tuple(A.shape)} could not be factorised", xp().linalg.det, A)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "MatrixDeterminant", _det_rule, (t,), (A, out), (0, OUTPUT))


def _inverse_op(a):
    return _inverse(a)


def _det_rule(m, node, g):
    """d det(A) = det(A) tr(A^-1 dA), so dA = g det(A) A^-T (conjugated for complex inputs)."""
    A, out = node.unpack(m)
    inv = m.call(_inv_array, _inverse_op, A)
    if not _is_complex_value(out):
        return (m.expand_dims(m.expand_dims(g * out, -1), -1) * m.mT(inv),)
    scale = _cmul_m(m, g, m.call(xp().conj, _fft().conj, out))
    return (_cmul_m(m, m.expand_dims(m.expand_dims(scale, -1), -1), _conj_T(m, inv)),)


def _cmul_m(m, a, b):
    """``a * b`` of complex values in the rule namespace (the recorded product's rule conjugates)."""
    return m.call(_cmul_array, _cmul, a, b)


def _cmul_array(a, b):
    return a * b


def _cmul(a, b):
    """The product of two complex Tensors whose gradients follow the complex convention (``g conj(b)``)."""
    out = a._data * b._data
    if _ag._depth == 0 or (a._node is None and b._node is None):
        return wrap(out)
    return record(out, "ComplexMul", _cmul_rule, (a, b), (a._data, b._data), (0, 1),
                  info=(tuple(a.shape), tuple(b.shape)))


def _cmul_rule(m, node, g):
    A, B = node.unpack(m)
    shape_a, shape_b = node.info
    conj = _fft().conj
    ga = m.sum_to(_cmul_m(m, g, m.call(xp().conj, conj, B)), shape_a) if node.inputs[0] is not None else None
    gb = m.sum_to(_cmul_m(m, g, m.call(xp().conj, conj, A)), shape_b) if node.inputs[1] is not None else None
    return ga, gb


def slogdet(input):
    """``(sign, log|det|)`` of one or more square matrices.

    For complex input the sign is a complex number of modulus 1 and ``log|det|``
    is real, as MindSpore's documentation says (MindSpore 2.10 returns it as a
    complex tensor).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> sign, logabs = ops.slogdet(ms.Tensor([[0.0, 2.0], [1.0, 0.0]]))
    >>> print(sign, logabs)
    -1.0 0.6931472
    """
    op = "slogdet"
    t = _matrix(input, "input", op, _F32_F64 + _COMPLEX, square=True)
    return _slogdet(t, op)


def _slogdet(t, op):
    A = t._data
    sign, logabs = _lapack(op, f"the matrix of shape {tuple(A.shape)} could not be factorised",
                           xp().linalg.slogdet, A)
    if _ag._depth == 0 or t._node is None or _is_complex(A):
        return wrap(sign), wrap(logabs)
    return wrap(sign), record(logabs, "LogMatrixDeterminant", _slogdet_rule, (t,), (A,), (0,))


def _slogdet_rule(m, node, g):
    """d log|det A| = tr(A^-1 dA): dA = g A^-T."""
    (A,) = node.unpack(m)
    return (m.expand_dims(m.expand_dims(g, -1), -1) * m.mT(m.call(_inv_array, _inverse_op, A)),)


def logdet(input):
    """``log(det(input))``: NaN where the determinant is negative, ``-inf`` where it is 0.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.logdet(ms.Tensor([[2.0, 0.0], [0.0, 1.5]])))
    1.0986123
    """
    op = "logdet"
    t = _matrix(input, "input", op, _F32_F64, square=True)
    sign, logabs = _slogdet(t, op)
    _math, _, _ = _ops()
    x = xp()
    nan = x.where(sign._data < 0, x.full_like(logabs._data, float("nan")), x.zeros_like(logabs._data))
    return _math.add(logabs, wrap(nan))


# ------------------------------------------------------------------ several differentiable outputs
def _record_outputs(op, rule, inputs, outputs, batch_ndim, saved=(), sources=(), info=None):
    """Tensors for ``outputs`` (arrays of one dtype sharing ``batch_ndim`` leading axes), recorded as one node.

    The outputs are packed side by side along a last axis into one array that
    the op records; each output is a slice of it (``getitem`` and ``reshape``
    record those steps), so the rule receives one gradient holding every
    output's gradient (zeros for outputs nobody used) and can unpack it.
    """
    x = xp()
    batch = tuple(outputs[0].shape[:batch_ndim])
    shapes = tuple(tuple(o.shape) for o in outputs)
    flat = [x.reshape(o, batch + (-1,)) for o in outputs]
    packed = x.concat(flat, axis=-1)
    node_t = record(packed, op, rule, inputs, (packed,) + tuple(saved), (OUTPUT,) + tuple(sources),
                    info=(shapes, batch_ndim, info))
    if node_t._node is None:
        return tuple(wrap(o) for o in outputs)
    _, _shape, _ = _ops()
    results, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape[batch_ndim:], dtype=np.int64))
        piece = _shape.getitem(node_t, (Ellipsis, slice(start, start + size)))
        results.append(_shape.reshape(piece, shape))
        start += size
    return tuple(results)


def _unpack_outputs(m, packed, shapes, batch_ndim):
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape[batch_ndim:], dtype=np.int64))
        out.append(m.reshape(packed[..., start:start + size], shape))
        start += size
    return out


# ------------------------------------------------------------------ cholesky
def cholesky(input_x, upper=False):
    """The Cholesky factor of symmetric positive-definite matrices: ``A = L L^T`` (``upper``: ``A = U^T U``).

    Raises RuntimeError if a matrix is not symmetric or not positive definite
    (as MindSpore).  The lower triangle is read (the upper one for
    ``upper=True``), so the gradient lands in that triangle.

    >>> import cellkit as ms
    >>> print(cholesky(ms.Tensor([[4.0, 2.0], [2.0, 2.0]])))
    [[2. 0.]
     [1. 1.]]
    """
    op = "cholesky"
    t = _matrix(input_x, "input_x", op, _F32_F64, square=True)
    upper = bool_arg(upper, "upper", op)
    return _cholesky(t, upper, op)


def _cholesky(t, upper, op):
    A = t._data
    x = xp()
    n = A.shape[-1]
    if A.size:
        scale = x.max(x.abs(A))
        if _any(x.abs(A - _mT(A)) > 1e-4 * scale + 1e-30) or _any(x.isnan(A)):
            raise RuntimeError(f"For '{op}', 'input_x' must hold symmetric positive-definite matrices, but a matrix "
                               f"of shape {tuple(A.shape)} is not symmetric")
    # Read one triangle and mirror it: the function the gradient describes.
    lower_part = A if not upper else _mT(A)
    mask = _tri_mask(n, n, A.dtype, -1)
    sym = lower_part * mask + _mT(lower_part * mask) + lower_part * _eye(n, A.dtype)
    try:
        L = x.linalg.cholesky(sym)
    except Exception as exc:  # noqa: BLE001
        if type(exc).__name__ != "LinAlgError":
            raise
        raise RuntimeError(f"For '{op}', 'input_x' must hold symmetric positive-definite matrices, but a matrix of "
                           f"shape {tuple(A.shape)} is not positive definite") from None
    if _any(x.isnan(L)):
        raise RuntimeError(f"For '{op}', 'input_x' must hold symmetric positive-definite matrices, but a matrix of "
                           f"shape {tuple(A.shape)} is not positive definite")
    out = _mT(L) if upper else L
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Cholesky", _cholesky_rule, (t,), (out, mask, _eye(n, A.dtype)), (OUTPUT, None, None),
                  info=upper)


def _cholesky_rule(m, node, g):
    """A = L L^T: with P = tril(L^T gL) (diagonal halved), X = L^-T P L^-1 is the symmetric gradient.

    The forward reads the lower triangle (A_ij = A_ji for i > j), so the
    gradient there is X_ij + X_ji and X_ii on the diagonal (mirrored for ``upper``).
    """
    out, strict_lower, eye = node.unpack(m)
    upper = node.info
    L = m.mT(out) if upper else out
    gL = m.mT(g) if upper else g
    P = m.matmul(m.mT(L), gL)
    P = P * strict_lower + 0.5 * P * eye
    Linv = m.call(_inv_array, _inverse_op, L)
    X = m.matmul(m.matmul(m.mT(Linv), P), Linv)
    sym = X + m.mT(X)
    grad = sym * strict_lower + X * eye
    return (m.mT(grad) if upper else grad,)


def cholesky_inverse(input_x, upper=False):
    """``inverse(U U^T)`` (``upper``: ``inverse(U^T U)``) of Cholesky factors ``U`` (batches too).

    MindSpore 2.10's gradient of it disagrees with finite differences of its own
    forward; cellkit's is the gradient of the function computed.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.cholesky_inverse(ms.Tensor([[2.0, 0.0], [0.0, 1.0]])))
    [[0.25 0.  ]
     [0.   1.  ]]
    """
    op = "cholesky_inverse"
    u = _matrix(input_x, "input_x", op, _F32_F64, square=True)
    upper = bool_arg(upper, "upper", op)
    _, _shape, _ = _ops()
    ut = _shape.swapaxes(u, -1, -2)
    return inverse(matmul(ut, u) if upper else matmul(u, ut))


def cholesky_solve(input, input2, upper=False):
    """``X`` with ``(L L^T) X = input`` for a Cholesky factor ``L = input2`` (``upper``: ``U^T U``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.cholesky_solve(ms.Tensor([[4.0], [2.0]]), ms.Tensor([[2.0, 0.0], [0.0, 1.0]])))
    [[1.]
     [2.]]
    """
    op = "cholesky_solve"
    b = _matrix(input, "input", op, _F32_F64)
    u = _matrix(input2, "input2", op, _F32_F64, square=True)
    upper = bool_arg(upper, "upper", op)
    _same_dtype(b, u, op, ("input", "input2"))
    if b.ndim != u.ndim:
        raise ValueError(f"For '{op}', 'input' and 'input2' must have the same number of dimensions, but got "
                         f"shapes {tuple(b.shape)} and {tuple(u.shape)}")
    if tuple(b.shape[:-2]) != tuple(u.shape[:-2]) or u.shape[-1] != b.shape[-2]:
        raise ValueError(f"For '{op}', 'input2' of shape {tuple(u.shape)} does not fit 'input' of shape "
                         f"{tuple(b.shape)}")
    _, _shape, _ = _ops()
    ut = _shape.swapaxes(u, -1, -2)
    return _solve(matmul(ut, u) if upper else matmul(u, ut), b, op)


# ------------------------------------------------------------------ qr
def qr(input, mode="reduced"):
    """The QR decomposition ``A = Q R``: ``Q`` with orthonormal columns, ``R`` upper triangular.

    ``mode='reduced'`` gives ``Q`` (m, k) and ``R`` (k, n) with ``k = min(m, n)``;
    ``'complete'`` gives ``Q`` (m, m) and ``R`` (m, n).  Differentiable for
    full-rank real input (MindSpore 2.10 has no gradient for it), except
    ``'complete'`` with more rows than columns, whose extra columns of ``Q``
    are arbitrary.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> q, r = ops.qr(ms.Tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> print(r)
    [[-5.  -2.2]
     [ 0.   0.4]]
    """
    op = "qr"
    t = _matrix(input, "input", op, _FLOATS + _COMPLEX)
    if mode not in ("reduced", "complete"):
        raise TypeError(f"For '{op}', 'mode' must be 'reduced' or 'complete', but got {mode!r}")
    return _qr(t, mode, op)


def _qr(t, mode, op):
    A = t._data
    x = xp()
    half = t.dtype is _dt.float16
    work = x.astype(A, x.float32) if half else A
    Q, R = _lapack(op, f"the matrix of shape {tuple(A.shape)} could not be factorised", x.linalg.qr, work,
                   mode=mode)
    if half:
        Q, R = x.astype(Q, A.dtype), x.astype(R, A.dtype)
    if _ag._depth == 0 or t._node is None or half or _is_complex(A):
        return wrap(Q), wrap(R)
    rows, cols = A.shape[-2], A.shape[-1]
    k = min(rows, cols)
    return _record_outputs("Qr", _qr_rule, (t,), [Q, R], A.ndim - 2,
                           (_tri_mask(k, k, A.dtype, -1), _eye(k, A.dtype)), (None, None),
                           info=(mode, rows, cols))


def _qr_rule(m, node, g):
    (packed, strict_lower, eye) = node.unpack(m)
    shapes, nb, (mode, rows, cols) = node.info
    Q, R = _unpack_outputs(m, packed, shapes, nb)
    gQ, gR = _unpack_outputs(m, g, shapes, nb)
    if mode == "complete" and rows > cols:
        raise RuntimeError("For 'qr', the gradient of mode='complete' with more rows than columns is not defined "
                           "(the extra columns of Q are arbitrary); use mode='reduced'")
    if rows >= cols:
        return (_qr_tall_grad(m, Q, R, gQ, gR, strict_lower, eye),)
    # Wide: A = [X | Y] with X = Q R1 square and Y = Q R2.
    R1, R2 = R[..., :, :rows], R[..., :, rows:]
    gR1, gR2 = gR[..., :, :rows], gR[..., :, rows:]
    Y = m.matmul(Q, R2)
    gX = _qr_tall_grad(m, Q, R1, gQ + m.matmul(Y, m.mT(gR2)), gR1, strict_lower, eye)
    return (m.concat([gX, m.matmul(Q, gR2)], axis=-1),)


def _qr_tall_grad(m, Q, R, gQ, gR, strict_lower, eye):
    """A = QR with R square: M = R gR^T - gQ^T Q; dA = (gQ + Q sym(M)) R^-T, sym copying M's lower triangle up."""
    M = m.matmul(R, m.mT(gR)) - m.matmul(m.mT(gQ), Q)
    lower = M * strict_lower
    sym = lower + m.mT(lower) + M * eye
    b = gQ + m.matmul(Q, sym)
    return m.mT(m.call(_solve_array, _solve_op, R, m.mT(b)))


# ------------------------------------------------------------------ svd
def svd(input, full_matrices=False, compute_uv=True):
    """The singular value decomposition ``A = U diag(S) V^T``: returns ``(S, U, V)`` (or ``S``).

    ``S`` is in decreasing order.  ``V`` is returned, not ``V^T`` (as
    MindSpore).  Differentiable for real input with distinct, non-zero singular
    values; with ``full_matrices=True`` only the first ``min(m, n)`` columns of
    ``U`` and ``V`` carry gradient.  For complex input MindSpore 2.10 returns
    the singular values as a complex tensor; so does cellkit.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> s, u, v = ops.svd(ms.Tensor([[3.0, 0.0], [0.0, -2.0]]))
    >>> print(s)
    [3. 2.]
    """
    op = "svd"
    t = _matrix(input, "input", op, _F32_F64 + _COMPLEX)
    full_matrices = bool_arg(full_matrices, "full_matrices", op)
    compute_uv = bool_arg(compute_uv, "compute_uv", op)
    return _svd(t, full_matrices, compute_uv, op)


def _svd_arrays(A, full_matrices, op):
    x = xp()
    if A.size == 0:
        raise ValueError(f"For '{op}', 'input' must not be empty, but got shape {tuple(A.shape)}")
    _finite(A, "input", op)
    U, S, Vh = _lapack(op, f"the matrix of shape {tuple(A.shape)} did not converge", x.linalg.svd, A,
                       full_matrices=full_matrices)
    return S, U, _conj_mT(Vh)


def _svd(t, full_matrices, compute_uv, op):
    A = t._data
    x = xp()
    S, U, V = _svd_arrays(A, full_matrices, op)
    cplx = _is_complex(A)
    if cplx:  # MindSpore's complex SVD returns complex singular values
        S = x.astype(S, A.dtype)
    recording = _ag._depth > 0 and t._node is not None and not cplx
    if not recording:
        if not compute_uv:
            return wrap(S)
        return wrap(S), wrap(U), wrap(V)
    rows, cols = A.shape[-2], A.shape[-1]
    k = min(rows, cols)
    saved = (_eye(k, A.dtype), _eye(rows, A.dtype), _eye(cols, A.dtype))
    outs = _record_outputs("Svd", _svd_rule, (t,), [S, U, V], A.ndim - 2, saved, (None, None, None),
                           info=(rows, cols, k))
    return outs if compute_uv else outs[0]


def _svd_rule(m, node, g):
    """Townsend's formula: with F_ij = 1/(s_j^2 - s_i^2),

    dA = U [diag(gS) + (F o (U^T gU - gU^T U)) S + S (F o (V^T gV - gV^T V))] V^T
         + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
    """
    packed, eye_k, eye_m, eye_n = node.unpack(m)
    shapes, nb, (rows, cols, k) = node.info
    S, U, V = _unpack_outputs(m, packed, shapes, nb)
    gS, gU, gV = _unpack_outputs(m, g, shapes, nb)
    U, V, gU, gV = U[..., :, :k], V[..., :, :k], gU[..., :, :k], gV[..., :, :k]
    s2 = S * S
    gap = m.expand_dims(s2, -2) - m.expand_dims(s2, -1) + eye_k
    F = (1 - eye_k) / gap
    Ut, Vt = m.mT(U), m.mT(V)
    J = F * (m.matmul(Ut, gU) - m.matmul(m.mT(gU), U))
    K = F * (m.matmul(Vt, gV) - m.matmul(m.mT(gV), V))
    core = J * m.expand_dims(S, -2) + m.expand_dims(S, -1) * K + m.expand_dims(gS, -1) * eye_k
    grad = m.matmul(m.matmul(U, core), Vt)
    if rows > k:
        grad = grad + m.matmul(m.matmul(eye_m - m.matmul(U, Ut), gU / m.expand_dims(S, -2)), Vt)
    if cols > k:
        grad = grad + m.matmul(m.matmul(U / m.expand_dims(S, -2), m.mT(gV)), eye_n - m.matmul(V, Vt))
    return (grad,)


# ------------------------------------------------------------------ eig
def eig(A):
    """Eigenvalues and eigenvectors of square matrices: ``(values, vectors)``, complex, vectors of unit length.

    Real input gives Complex64 (from Float32) or Complex128 (from Float64).
    The order of the eigenvalues and the phase of each eigenvector are LAPACK's;
    MindSpore 2.10 (Eigen) may order or scale them differently -- both are
    correct decompositions.  Differentiable (first order) for distinct
    eigenvalues; MindSpore 2.10 has no gradient for it.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> values, vectors = ops.eig(ms.Tensor([[2.0, 0.0], [0.0, 3.0]]))
    >>> print(values)
    [2.+0.j 3.+0.j]
    """
    op = "eig"
    t = _matrix(A, "A", op, _F32_F64 + _COMPLEX, square=True)
    return _eig(t, True, op)


def eigvals(A):
    """The eigenvalues of square matrices (complex); see :func:`eig`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.eigvals(ms.Tensor([[0.0, -1.0], [1.0, 0.0]])))
    [0.+1.j 0.-1.j]
    """
    op = "eigvals"
    t = _matrix(A, "A", op, _F32_F64 + _COMPLEX, square=True)
    return _eig(t, False, op)


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
               "complex128": "complex128"}


def _eig_arrays(A, op):
    be = _backend._current
    x = be.xp
    _finite(A, "A", op)
    target = _dt.to_dtype(_COMPLEX_OF[_dt.dtype_of(A).array_name])
    if hasattr(x, "linalg") and hasattr(x.linalg, "eig"):
        values, vectors = _lapack(op, f"the matrix of shape {tuple(A.shape)} did not converge", x.linalg.eig, A)
    else:  # CuPy has no general eigensolver: the host computes it (explicitly)
        values, vectors = _lapack(op, f"the matrix of shape {tuple(A.shape)} did not converge", np.linalg.eig,
                                  be.to_host(A))
        values, vectors = be.from_host(np.asarray(values)), be.from_host(np.asarray(vectors))
    cdt = target.to_backend(x)
    return x.astype(values, cdt), x.astype(vectors, cdt)


def _eig(t, vectors_too, op):
    A = t._data
    values, vectors = _eig_arrays(A, op)
    if _ag._depth == 0 or t._node is None:
        return (wrap(values), wrap(vectors)) if vectors_too else wrap(values)
    n = A.shape[-1]
    outs = _record_outputs("Eig", _eig_rule, (t,), [values, vectors], A.ndim - 2,
                           (_eye(n, values.dtype),), (None,), info=_is_complex(A))
    return outs if vectors_too else outs[0]


def _eig_rule(m, node, g):
    """A V = V diag(L) with unit columns of V (first order):

    dA = V^-H [diag(gL) + (V^H gV - V^H V diag(Re(diag(V^H gV)))) / conj(E)] V^H,
    E_ij = L_j - L_i (1 on the diagonal); the real part for a real ``A``.
    """
    if m.tensors:
        raise NotImplementedError("For 'eig', second derivatives are not supported by cellkit (first order only)")
    packed, eye = node.unpack(m)
    shapes, nb, complex_input = node.info
    L, V = _unpack_outputs(m, packed, shapes, nb)
    gL, gV = _unpack_outputs(m, g, shapes, nb)
    x = xp()
    VH = _conj_mT(V)
    VhgV = x.matmul(VH, gV)
    diag_re = x.real(x.sum(VhgV * eye, axis=-1))
    VhgV = VhgV - x.matmul(x.matmul(VH, V), x.astype(x.expand_dims(diag_re, axis=-1), V.dtype) * eye)
    Lc = x.conj(L)
    E = x.expand_dims(Lc, axis=-2) - x.expand_dims(Lc, axis=-1) + eye
    inner = VhgV / E * (1 - eye) + x.expand_dims(gL, axis=-1) * eye
    grad = _solve_array(VH, x.matmul(inner, VH))
    return (grad if complex_input else x.real(grad),)


# ------------------------------------------------------------------ pinv, lstsq
def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse, from the SVD (``hermitian``: of the lower triangle mirrored).

    Singular values at most ``max(atol, rtol * largest)`` count as zero;
    ``rtol`` defaults to ``max(m, n) * eps`` (0 when only ``atol`` is given).
    The gradient assumes a rank that does not change near ``x``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.pinv(ms.Tensor([[2.0, 0.0], [0.0, 0.0]])))
    [[0.5 0. ]
     [0.  0. ]]
    """
    op = "pinv"
    t = _matrix(x, "x", op, _F32_F64)
    hermitian = bool_arg(hermitian, "hermitian", op)
    for name, value in (("atol", atol), ("rtol", rtol)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (numbers.Real, Tensor))):
            raise TypeError(f"For '{op}', '{name}' must be a float or a Tensor, but got {describe(value)}")
    A = t._data
    xs = xp()
    rows, cols = A.shape[-2], A.shape[-1]
    if A.size == 0:
        raise ValueError(f"For '{op}', 'x' must not be empty, but got shape {tuple(A.shape)}")
    eps = float(np.finfo(np.dtype(t.dtype.array_name)).eps)
    if rtol is None:
        only_atol = atol is not None and (isinstance(atol, Tensor) or atol > 0)
        rtol = 0.0 if only_atol else max(rows, cols) * eps
    atol = 0.0 if atol is None else atol
    if hermitian:
        if rows != cols:
            raise ValueError(f"For '{op}', a hermitian 'x' must be square, but got shape {tuple(A.shape)}")
        # Only the lower triangle is read: mirror it (differentiably, so the gradient lands there too).
        _math, _shape, _ = _ops()
        lower = _math.mul(t, wrap(_tri_mask(rows, cols, A.dtype, -1)))
        t = _math.add(_math.add(lower, _shape.swapaxes(lower, -1, -2)), _math.mul(t, wrap(_eye(rows, A.dtype))))
        A = t._data
    S, U, V = _svd_arrays(A, False, op)
    keep = _above(S, atol, rtol, A.dtype)
    inv_s = xs.where(keep, 1 / xs.where(keep, S, xs.ones_like(S)), xs.zeros_like(S))
    out = xs.matmul(V * xs.expand_dims(inv_s, axis=-2), _mT(U))
    if out.dtype != A.dtype:
        out = xs.astype(out, A.dtype)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Pinv", _pinv_rule, (t,), (A, out, _eye(rows, A.dtype), _eye(cols, A.dtype)),
                  (0, OUTPUT, None, None))


def _above(values, atol, rtol, dtype):
    """Which of ``values`` (..., k) exceed ``max(atol, rtol * max(values))``; tolerances may be Tensors."""
    xs = xp()

    def level(tol):
        if isinstance(tol, Tensor):
            return xs.expand_dims(xs.astype(tol._data, dtype), axis=-1)
        return tol

    top = xs.max(values, axis=-1, keepdims=True) if values.shape[-1] else xs.zeros_like(values[..., :1])
    relative = level(rtol) * top
    absolute = level(atol)
    limit = xs.where(relative > absolute, relative, absolute * xs.ones_like(relative))
    return values > limit


def _pinv_rule(m, node, g):
    """P = A^+ (constant rank): dA = -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)."""
    A, P, eye_m, eye_n = node.unpack(m)
    Pt, gt = m.mT(P), m.mT(g)
    grad = -m.matmul(m.matmul(Pt, g), Pt)
    grad = grad + m.matmul(m.matmul(eye_m - m.matmul(A, P), gt), m.matmul(P, Pt))
    grad = grad + m.matmul(m.matmul(m.matmul(Pt, P), gt), eye_n - m.matmul(P, A))
    return (grad,)


def lstsq(input, A):
    """The least-squares solution ``X`` minimising ``||input X - A||`` (minimum norm when underdetermined).

    ``input`` is (m, n); ``A`` is (m, k) or (m,) (then taken as one column).
    Computed as ``pinv(input) @ A``, so it is differentiable (MindSpore 2.10
    has no gradient for it).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.lstsq(ms.Tensor([[1.0], [1.0]]), ms.Tensor([[1.0], [3.0]])))
    [[1.9999999]]
    """
    op = "lstsq"
    a = _matrix(input, "input", op, _FLOATS, ndim=2)
    b = _dtype_check(tensor_arg(A, "A", op), "A", op, _FLOATS)
    _same_dtype(a, b, op, ("input", "A"))
    if b.ndim not in (1, 2):
        raise ValueError(f"For '{op}', 'A' must be 1-D or 2-D, but got shape {tuple(b.shape)}")
    if b.shape[0] != a.shape[0]:
        raise ValueError(f"For '{op}', 'input' of shape {tuple(a.shape)} and 'A' of shape {tuple(b.shape)} must "
                         "have the same number of rows")
    _, _shape, _ = _ops()
    if b.ndim == 1:
        b = _shape.reshape(b, (b.shape[0], 1))
    if a.dtype is _dt.float16:
        from .creation import cast
        return cast(matmul(pinv(cast(a, _dt.float32)), cast(b, _dt.float32)), _dt.float16)
    return matmul(pinv(a), b)


# ------------------------------------------------------------------ LU
def _pivot_permutation(pivots, rows):
    """Row permutations (host int arrays, batch x rows) from LAPACK's 1-based sequential row swaps."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape(-1, pivots.shape[-1])
    perms = np.tile(np.arange(rows), (flat.shape[0], 1))
    for b in range(flat.shape[0]):
        for i, p in enumerate(flat[b]):
            j = int(p) - 1
            perms[b, [i, j]] = perms[b, [j, i]]
    return perms.reshape(batch + (rows,))


def _pivots_host(t, rows, op):
    be = _backend._current
    host = be.to_host(t._data)
    if host.size and (host.min() < 1 or host.max() > rows):
        raise ValueError(f"For '{op}', 'LU_pivots' must hold 1-based row numbers in [1, {rows}], but got values "
                         f"in [{host.min()}, {host.max()}]")
    return host


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """Split a packed LU factorisation into ``(P, L, U)`` with ``A = P L U``.

    ``LU_data`` (m, n) holds ``L`` below the diagonal (its unit diagonal
    implied) and ``U`` on and above it; ``LU_pivots`` (min(m, n),) the 1-based
    row swaps (as ``mindspore.scipy.linalg.lu_factor`` gives them).
    ``unpack_data=False`` returns None for L and U, ``unpack_pivots=False`` for P.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> p, l, u = ops.lu_unpack(ms.Tensor([[2.0, 1.0], [0.5, 1.5]]), ms.Tensor([2, 2], ms.int32))
    >>> print(p)
    [[0. 1.]
     [1. 0.]]
    """
    op = "lu_unpack"
    lu = _matrix(LU_data, "LU_data", op, _FLOATS + (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8))
    piv = tensor_arg(LU_pivots, "LU_pivots", op)
    unpack_data = bool_arg(unpack_data, "unpack_data", op)
    unpack_pivots = bool_arg(unpack_pivots, "unpack_pivots", op)
    rows, cols = lu.shape[-2], lu.shape[-1]
    k = min(rows, cols)
    if piv.dtype.kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'LU_pivots' must be an integer Tensor, but got {piv.dtype}")
    if tuple(piv.shape) != tuple(lu.shape[:-2]) + (k,):
        raise ValueError(f"For '{op}', 'LU_pivots' must have shape {tuple(lu.shape[:-2]) + (k,)} for 'LU_data' of "
                         f"shape {tuple(lu.shape)}, but got {tuple(piv.shape)}")
    P = L = U = None
    if unpack_pivots:
        perms = _pivot_permutation(_pivots_host(piv, rows, op), rows)
        host = np.zeros(perms.shape + (rows,))
        np.put_along_axis(host, perms[..., None], 1.0, axis=-1)   # row i of P^T is e_{perm[i]}
        host = np.swapaxes(host, -1, -2)
        P = wrap(_const(host, lu._data.dtype))
    if unpack_data:
        _math, _shape, _ = _ops()
        dtype = lu._data.dtype
        lower = _shape.getitem(lu, (Ellipsis, slice(None), slice(0, k)))
        L = _math.add(_math.mul(lower, wrap(_tri_mask(rows, k, dtype, -1))), wrap(_eye(rows, dtype, cols=k)))
        upper_part = _shape.getitem(lu, (Ellipsis, slice(0, k), slice(None)))
        U = _math.mul(upper_part, wrap(_tri_mask(k, cols, dtype, 0, upper=True)))
    return P, L, U


def lu_solve(b, LU_data, LU_pivots):
    """``X`` with ``A X = b`` from ``A``'s packed LU factorisation (see :func:`lu_unpack`).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.lu_solve(ms.Tensor([[2.0], [1.0]]), ms.Tensor([[2.0, 0.0], [0.0, 1.0]]), ms.Tensor([1, 2], ms.int32)))
    [[1.]
     [1.]]
    """
    op = "lu_solve"
    rhs = _matrix(b, "b", op, _F32_F64 + (_dt.float16,))
    lu = _matrix(LU_data, "LU_data", op, _F32_F64 + (_dt.float16,), square=True)
    piv = tensor_arg(LU_pivots, "LU_pivots", op)
    _same_dtype(rhs, lu, op, ("b", "LU_data"))
    n = lu.shape[-1]
    if piv.dtype.kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'LU_pivots' must be an integer Tensor, but got {piv.dtype}")
    if rhs.shape[-2] != n or tuple(piv.shape)[-1:] != (n,):
        raise ValueError(f"For '{op}', 'b' of shape {tuple(rhs.shape)}, 'LU_data' of shape {tuple(lu.shape)} and "
                         f"'LU_pivots' of shape {tuple(piv.shape)} do not fit together")
    perms = _pivot_permutation(_pivots_host(piv, n, op), n)
    _math, _shape, _ = _ops()
    # P^T b: row i of the permuted right-hand side is row perm[i] of b.
    host = np.zeros(perms.shape + (n,))
    np.put_along_axis(host, perms[..., None], 1.0, axis=-1)
    pt = wrap(_const(host, rhs._data.dtype))
    y = matmul(pt, rhs)
    lower = _triangular(lu, lower=True, unit=True)
    upper = _triangular(lu, lower=False)
    return _solve_f16(upper, _solve_f16(lower, y, op), op)


# ------------------------------------------------------------------ Householder QR: geqrf, orgqr, ormqr
def _householder_host(a):
    """LAPACK's geqrf on the host: ``(y, tau)`` with the reflectors below the diagonal and R on and above it."""
    h, tau = np.linalg.qr(a, mode="raw")
    return np.ascontiguousarray(np.swapaxes(h, -1, -2)), tau


def geqrf(input):
    """QR as LAPACK stores it: ``(y, tau)``, R on and above the diagonal of ``y``, the reflectors below.

    Reflector ``j`` is ``H_j = I - tau_j w_j w_j^T`` with ``w_j`` 1 at position
    ``j``, zeros above and ``y``'s column ``j`` below.  No gradient (as MindSpore).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> y, tau = ops.geqrf(ms.Tensor([[3.0], [4.0]]))
    >>> print(y, tau)
    [[-5. ]
     [ 0.5]] [1.6]
    """
    op = "geqrf"
    t = _matrix(input, "input", op, _F32_F64 + _COMPLEX)
    be = _backend._current
    host = be.to_host(t._data)
    if host.size and not np.isfinite(host).all():
        raise ValueError(f"For '{op}', 'input' must hold finite numbers, but a matrix of shape {host.shape} holds "
                         "NaN or inf")
    y, tau = _householder_host(host)
    return wrap(be.from_host(y.astype(host.dtype))), wrap(be.from_host(tau.astype(host.dtype)))


def _householder_q(y, tau, cols):
    """``H_1 ... H_k`` applied to the first ``cols`` columns of the identity (host arrays, batched)."""
    rows = y.shape[-2]
    k = tau.shape[-1]
    q = np.broadcast_to(np.eye(rows, cols, dtype=y.dtype), y.shape[:-2] + (rows, cols)).copy()
    for j in reversed(range(k)):
        w = np.zeros(y.shape[:-2] + (rows,), dtype=y.dtype)
        w[..., j] = 1
        w[..., j + 1:] = y[..., j + 1:, j]
        t = tau[..., j][..., None, None]
        q = q - t * w[..., :, None] * (np.conj(w)[..., None, :] @ q)
    return q


def orgqr(input, input2):
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` for reflectors from :func:`geqrf` (the ``Q`` of QR).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.orgqr(ms.Tensor([[-5.0], [0.5]]), ms.Tensor([1.6])))
    [[-0.6]
     [-0.8]]
    """
    op = "orgqr"
    y = _matrix(input, "input", op, _F32_F64 + _COMPLEX)
    tau = tensor_arg(input2, "input2", op)
    _same_dtype(y, tau, op, ("input", "input2"))
    rows, cols = y.shape[-2], y.shape[-1]
    if y.ndim not in (2, 3):
        raise ValueError(f"For '{op}', 'input' must be 2-D or 3-D, but got shape {tuple(y.shape)}")
    if tau.ndim != y.ndim - 1 or tuple(tau.shape[:-1]) != tuple(y.shape[:-2]) or tau.shape[-1] > cols:
        raise ValueError(f"For '{op}', 'input2' must have shape {tuple(y.shape[:-2])} + (k,) with k <= {cols}, but got "
                         f"{tuple(tau.shape)} (input shape {tuple(y.shape)})")
    if cols > rows:
        raise ValueError(f"For '{op}', 'input' must have at least as many rows as columns, but got shape "
                         f"{tuple(y.shape)}")
    be = _backend._current
    q = _householder_q(be.to_host(y._data), be.to_host(tau._data), cols)
    return wrap(be.from_host(q))


def ormqr(input, input2, input3, left=True, transpose=False):
    """``Q @ input3`` (or ``input3 @ Q``, with ``Q^T`` if ``transpose``) for ``Q`` from :func:`geqrf`'s output.

    ``Tensor.ormqr``: ``self`` holds the reflectors, ``input2`` their ``tau``.
    MindSpore 2.10's CPU build has no kernel for it; cellkit computes what its
    docs describe.
    """
    op = "ormqr"
    y = _matrix(input, "self", op, _F32_F64 + _COMPLEX)
    tau = tensor_arg(input2, "input2", op)
    other = _matrix(input3, "input3", op, _F32_F64 + _COMPLEX)
    left = bool_arg(left, "left", op)
    transpose = bool_arg(transpose, "transpose", op)
    _same_dtype(y, tau, op, ("self", "input2"))
    _same_dtype(y, other, op, ("self", "input3"))
    if tau.ndim != y.ndim - 1:
        raise ValueError(f"For '{op}', 'input2' must have {y.ndim - 1} dimensions for 'self' of shape "
                         f"{tuple(y.shape)}, but got shape {tuple(tau.shape)}")
    rows = y.shape[-2]
    need = other.shape[-2] if left else other.shape[-1]
    if need != rows or tau.shape[-1] > min(rows, y.shape[-1]):
        raise ValueError(f"For '{op}', 'self' of shape {tuple(y.shape)}, 'input2' of shape {tuple(tau.shape)} and "
                         f"'input3' of shape {tuple(other.shape)} do not fit together")
    be = _backend._current
    q = _householder_q(be.to_host(y._data), be.to_host(tau._data), rows)
    if transpose:
        q = np.conj(np.swapaxes(q, -1, -2))
    c = be.to_host(other._data)
    out = q @ c if left else c @ q
    return wrap(be.from_host(np.ascontiguousarray(out)))


# ------------------------------------------------------------------ Primitives
class Cholesky(Primitive):
    """``Cholesky(upper=False)(input_x)``: see :func:`cholesky`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Cholesky()(ms.Tensor([[4.0, 2.0], [2.0, 2.0]])))
    [[2. 0.]
     [1. 1.]]
    """

    @prim_attr_register
    def __init__(self, upper=False):
        bool_arg(upper, "upper", "Cholesky")

    def __call__(self, input_x):
        return cholesky(input_x, self.upper)


class CholeskyInverse(Primitive):
    """``CholeskyInverse(upper=False)(x)``: see :func:`cholesky_inverse`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.CholeskyInverse()(ms.Tensor([[2.0, 0.0], [0.0, 1.0]])))
    [[0.25 0.  ]
     [0.   1.  ]]
    """

    @prim_attr_register
    def __init__(self, upper=False):
        bool_arg(upper, "upper", "CholeskyInverse")

    def __call__(self, x):
        return cholesky_inverse(x, self.upper)


class CholeskySolve(Primitive):
    """``CholeskySolve(upper=False)(x1, x2)``: see :func:`cholesky_solve`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.CholeskySolve()(ms.Tensor([[4.0], [2.0]]), ms.Tensor([[2.0, 0.0], [0.0, 1.0]])))
    [[1.]
     [2.]]
    """

    @prim_attr_register
    def __init__(self, upper=False):
        bool_arg(upper, "upper", "CholeskySolve")

    def __call__(self, x1, x2):
        return cholesky_solve(x1, x2, self.upper)


class Cross(Primitive):
    """``Cross(dim=-65530)(x1, x2)``: the cross product (the default ``dim`` means "the first of length 3").

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Cross()(ms.Tensor([1.0, 0.0, 0.0]), ms.Tensor([0.0, 1.0, 0.0])))
    [0. 0. 1.]
    """

    @prim_attr_register
    def __init__(self, dim=-65530):
        int_arg(dim, "dim", "Cross")

    def __call__(self, x1, x2):
        return cross(x1, x2, None if self.dim == -65530 else self.dim)


class Eig(Primitive):
    """``Eig(compute_v=False)(x)``: ``(values, vectors)``; without ``compute_v`` the vectors are a 0-d zero.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> values, vectors = ops.Eig(compute_v=True)(ms.Tensor([[2.0, 0.0], [0.0, 3.0]]))
    >>> print(values)
    [2.+0.j 3.+0.j]
    """

    @prim_attr_register
    def __init__(self, compute_v=False):
        bool_arg(compute_v, "compute_v", "Eig")

    def __call__(self, x):
        if self.compute_v:
            return eig(x)
        values = eigvals(x)
        return values, wrap(_zeros((), values._data.dtype))


class Ger(Primitive):
    """``Ger()(x1, x2)``: the outer product of two 1-D float tensors.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Ger()(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0])))
    [[3.]
     [6.]]
    """

    def __call__(self, x1, x2):
        return ger(x1, x2)


class LogMatrixDeterminant(Primitive):
    """``LogMatrixDeterminant()(x)``: ``(sign, log|det|)``, see :func:`slogdet`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.LogMatrixDeterminant()(ms.Tensor([[2.0, 0.0], [0.0, -1.0]])))
    (Tensor(shape=[], dtype=Float32, value= -1), Tensor(shape=[], dtype=Float32, value= 0.693147))
    """

    def __call__(self, x):
        return slogdet(x)


class MatrixDeterminant(Primitive):
    """``MatrixDeterminant()(x)``: see :func:`det`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.MatrixDeterminant()(ms.Tensor([[2.0, 0.0], [0.0, -1.0]])))
    -2.0
    """

    def __call__(self, x):
        return det(x)


class MatrixInverse(Primitive):
    """``MatrixInverse(adjoint=False)(x)``: the inverse (of the conjugate transpose if ``adjoint``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.MatrixInverse()(ms.Tensor([[2.0, 0.0], [0.0, 4.0]])))
    [[0.5  0.  ]
     [0.   0.25]]
    """

    @prim_attr_register
    def __init__(self, adjoint=False):
        bool_arg(adjoint, "adjoint", "MatrixInverse")

    def __call__(self, x):
        out = inverse(x)
        return adjoint_(out) if self.adjoint else out


class MatrixPower(Primitive):
    """``MatrixPower(n)(x)``: see :func:`matrix_power`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.MatrixPower(2)(ms.Tensor([[[1.0, 1.0], [0.0, 1.0]]])))
    [[[1. 2.]
      [0. 1.]]]
    """

    @prim_attr_register
    def __init__(self, n):
        int_arg(n, "n", "MatrixPower")

    def __call__(self, x):
        return matrix_power(x, self.n)


class MatrixSolve(Primitive):
    """``MatrixSolve(adjoint=False)(matrix, rhs)``: see :func:`matrix_solve`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.MatrixSolve()(ms.Tensor([[2.0, 0.0], [0.0, 4.0]]), ms.Tensor([[2.0], [2.0]])))
    [[1. ]
     [0.5]]
    """

    @prim_attr_register
    def __init__(self, adjoint=False):
        bool_arg(adjoint, "adjoint", "MatrixSolve")

    def __call__(self, matrix, rhs):
        return matrix_solve(matrix, rhs, self.adjoint)


class MatrixTriangularSolve(Primitive):
    """``MatrixTriangularSolve(lower=True, adjoint=False)(matrix, rhs)``: solve with one triangle of ``matrix``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.MatrixTriangularSolve()(ms.Tensor([[2.0, 0.0], [1.0, 1.0]]), ms.Tensor([[2.0], [3.0]])))
    [[1.]
     [2.]]
    """

    @prim_attr_register
    def __init__(self, lower=True, adjoint=False):
        bool_arg(lower, "lower", "MatrixTriangularSolve")
        bool_arg(adjoint, "adjoint", "MatrixTriangularSolve")

    def __call__(self, matrix, rhs):
        return _triangular_solve_prim(matrix, rhs, self.lower, self.adjoint)


class Lstsq(Primitive):
    """``Lstsq(fast=True, l2_regularizer=0.0)(x, b)``: see :func:`lstsq` (only the defaults, as MindSpore).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Lstsq()(ms.Tensor([[1.0], [1.0]]), ms.Tensor([[1.0], [3.0]])))
    [[1.9999999]]
    """

    @prim_attr_register
    def __init__(self, fast=True, l2_regularizer=0.0):
        if fast is not True:
            raise TypeError(f"For 'Lstsq', the 'fast' should be True, but got {fast!r}")
        if isinstance(l2_regularizer, bool) or not isinstance(l2_regularizer, numbers.Real) or l2_regularizer != 0:
            raise TypeError(f"For 'Lstsq', the 'l2_regularizer' should be 0.0, but got {l2_regularizer!r}")

    def __call__(self, x, b):
        return lstsq(x, b)


class LuSolve(Primitive):
    """``LuSolve()(x, lu_data, lu_pivots)``: see :func:`lu_solve`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> lu, pivots = ms.Tensor([[2.0, 0.0], [0.0, 1.0]]), ms.Tensor([1, 2], ms.int32)
    >>> print(ops.LuSolve()(ms.Tensor([[2.0], [1.0]]), lu, pivots))
    [[1.]
     [1.]]
    """

    def __call__(self, x, lu_data, lu_pivots):
        return lu_solve(x, lu_data, lu_pivots)


class LuUnpack(Primitive):
    """``LuUnpack(unpack_data=True, unpack_pivots=True)(LU_data, LU_pivots)``: see :func:`lu_unpack`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> p, l, u = ops.LuUnpack()(ms.Tensor([[2.0, 1.0], [0.5, 1.5]]), ms.Tensor([1, 2], ms.int32))
    >>> print(l)
    [[1.  0. ]
     [0.5 1. ]]
    """

    @prim_attr_register
    def __init__(self, unpack_data=True, unpack_pivots=True):
        bool_arg(unpack_data, "unpack_data", "LuUnpack")
        bool_arg(unpack_pivots, "unpack_pivots", "LuUnpack")

    def __call__(self, LU_data, LU_pivots):
        return lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


class Orgqr(Primitive):
    """``Orgqr()(x, tau)``: see :func:`orgqr`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Orgqr()(ms.Tensor([[-5.0], [0.5]]), ms.Tensor([1.6])))
    [[-0.6]
     [-0.8]]
    """

    def __call__(self, x, tau):
        return orgqr(x, tau)


class Qr(Primitive):
    """``Qr(full_matrices=False)(x)``: ``(Q, R)``; ``full_matrices`` is ``mode='complete'``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> q, r = ops.Qr()(ms.Tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> print(r)
    [[-5.  -2.2]
     [ 0.   0.4]]
    """

    @prim_attr_register
    def __init__(self, full_matrices=False):
        bool_arg(full_matrices, "full_matrices", "Qr")

    def __call__(self, x):
        return qr(x, "complete" if self.full_matrices else "reduced")


class Svd(Primitive):
    """``Svd(full_matrices=False, compute_uv=True)(a)``: ``(s, u, v)``; without ``compute_uv``, u and v are zeros.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> s, u, v = ops.Svd()(ms.Tensor([[3.0, 0.0], [0.0, -2.0]]))
    >>> print(s)
    [3. 2.]
    """

    @prim_attr_register
    def __init__(self, full_matrices=False, compute_uv=True):
        bool_arg(full_matrices, "full_matrices", "Svd")
        bool_arg(compute_uv, "compute_uv", "Svd")

    def __call__(self, a):
        if self.compute_uv:
            return svd(a, self.full_matrices, True)
        s = svd(a, self.full_matrices, False)
        return s, wrap(_zeros((1,), s._data.dtype)), wrap(_zeros((1,), s._data.dtype))


# ------------------------------------------------------------------ Tensor methods (installed through ops/fft.py)
def _tensor_qr(self, some=True):
    """``Tensor.qr(some=True)``: ``some=False`` is ``mode='complete'``."""
    return qr(self, "reduced" if bool_arg(some, "some", "qr") else "complete")


def _tensor_trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    """NumPy's ``trace``: the sum along the ``offset`` diagonal of the axes ``axis1``, ``axis2``."""
    op = "trace"
    t = tensor_arg(self, "self", op)
    if t.ndim < 2:
        raise ValueError(f"For '{op}', the tensor must have at least 2 dimensions, but got shape {tuple(t.shape)}")
    offset = int_arg(offset, "offset", op)
    out = _trace(t, offset, axis1, axis2, op)
    if dtype is not None:
        from .creation import cast
        out = cast(out, dtype)
    return out


def _tensor_addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """``self = beta * self + alpha * (mat1 @ mat2)`` in place; returns ``self``.

    MindSpore 2.10's CPU build has no kernel for it; cellkit computes what its docs describe.
    """
    out = addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    if tuple(out.shape) != tuple(self.shape):
        raise ValueError(f"For 'addmm_', the result of shape {tuple(out.shape)} does not fit 'self' of shape "
                         f"{tuple(self.shape)}")
    if _ag._depth and self._node is not None:
        raise RuntimeError("For 'addmm_', a tensor that a gradient transform is recording cannot be changed in place")
    data = out._data
    if data.dtype != self._data.dtype:
        data = xp().astype(data, self._data.dtype)
    self._data = data
    self._node = out._node
    return self


def _tensor_H(self):
    if self.ndim != 2:
        raise ValueError(f"For 'Tensor.H', only 2-D Tensor is supported, but got {self.ndim}-D "
                         f"(shape {tuple(self.shape)})")
    return adjoint_(self)


def _tensor_mH(self):
    if self.ndim < 2:
        raise ValueError(f"For 'Tensor.mH', the tensor must have at least 2 dimensions, but got shape "
                         f"{tuple(self.shape)}")
    return adjoint_(self)


def _tensor_dot(self, other):
    """``Tensor.dot``: MindSpore's ``ops.dot``."""
    return dot(self, other)


def _tensor_lstsq(self, A):
    return lstsq(self, A)


TENSOR_METHODS = {
    "addbmm": lambda self, batch1, batch2, *, beta=1, alpha=1: addbmm(self, batch1, batch2, beta=beta, alpha=alpha),
    "addmm": lambda self, mat1, mat2, *, beta=1, alpha=1: addmm(self, mat1, mat2, beta=beta, alpha=alpha),
    "addmm_": _tensor_addmm_,
    "addmv": lambda self, mat, vec, *, beta=1, alpha=1: addmv(self, mat, vec, beta=beta, alpha=alpha),
    "addr": lambda self, vec1, vec2, beta=1, alpha=1: addr(self, vec1, vec2, beta=beta, alpha=alpha),
    "adjoint": adjoint,
    "baddbmm": lambda self, batch1, batch2, *, beta=1, alpha=1: baddbmm(self, batch1, batch2, beta, alpha),
    "bmm": bmm, "mm": mm,
    "cholesky": cholesky, "cholesky_inverse": cholesky_inverse,
    "cholesky_solve": cholesky_solve,
    "cross": cross, "det": det, "matrix_determinant": det, "dot": _tensor_dot, "eigvals": eigvals,
    "geqrf": geqrf, "ger": ger, "inner": inner, "inverse": inverse,
    "log_matrix_determinant": slogdet, "logdet": logdet, "slogdet": slogdet, "lstsq": _tensor_lstsq,
    "lu_solve": lu_solve, "matrix_power": matrix_power, "orgqr": orgqr, "ormqr": ormqr, "outer": outer,
    "qr": _tensor_qr, "svd": svd, "trace": _tensor_trace, "triangular_solve": triangular_solve,
    "H": property(_tensor_H), "mH": property(_tensor_mH),
}
