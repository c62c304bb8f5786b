"""Linear algebra: products, matrix functions and decompositions, norms.

Matrices are written out (well conditioned, distinct singular values and eigenvalues) rather than
drawn, so every sample is far from a singular or degenerate input.  Where MindSpore 2.10 (CPU) has
no gradient for an op (``cholesky``, ``qr``, ``eig``, ``lstsq``, ``lu_solve``, ``geqrf``, ``orgqr``)
its samples differentiate nothing here: cellkit's gradients of those are checked against finite
differences in ``tests/ops/test_linalg_gradients.py``.  SVD and eigenvectors are determined only up
to a sign (a phase): MindSpore's (Eigen) and cellkit's (LAPACK) choices differ, so the samples that
return them are ones where the two agree, and ``tests/mindspore_cases/ops_linalg_extra.py`` compares
sign-free quantities (reconstructions) for the rest.
"""
import math

import numpy as np

from . import Arr, Bad, OpInfo, Sample


def M(rows, dtype="float32"):
    return np.array(rows, dtype=dtype)


SQ3 = M([[2.0, 0.5, -0.25], [0.75, 1.5, 0.5], [-0.5, 0.25, 1.75]])          # well conditioned, non-symmetric
SQ2 = M([[1.5, 0.5], [-0.25, 1.25]])
SPD3 = M([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])            # symmetric positive definite
SPD2 = M([[2.0, 0.5], [0.5, 1.5]])
TALL = M([[1.0, 0.5], [0.25, 2.0], [1.5, -0.75]])                          # 3 x 2, full rank
WIDE = M([[1.0, 0.25, -0.5], [0.5, 1.5, 0.75]])                            # 2 x 3, full rank
BATCH = M([[[2.0, 0.5], [0.25, 1.5]], [[1.25, -0.5], [0.75, 2.0]]])         # 2 x 2 x 2
LOWER3 = M([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.25, 0.75, 1.25]])        # a Cholesky-style factor
NO_TIES = M([[2.0, 0.5], [-0.25, 1.25]])                           # no ties in its (its inverse's) row/column sums
RHS = M([[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]])                          # 3 x 2 right-hand sides


def _slogdet_ref(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign, logabs


def _cond_ref(a, p=None):
    return np.linalg.cond(a, p)


def _vector_norm_ref(x, ord, axis, keepdims):
    if axis is None:
        out = np.linalg.norm(x.reshape(-1), ord)
        return out.reshape((1,) * x.ndim) if keepdims else out
    axes = axis if isinstance(axis, tuple) else (axis,)
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[:moved.ndim - len(axes)] + (-1,))
    out = np.linalg.norm(flat, ord, axis=-1)
    if keepdims:
        out = np.expand_dims(out, axes)
    return out


def _lu_pivots(piv):
    return np.asarray(piv, np.int32)


OPS = [
    # -- products
    OpInfo("matmul", (Sample((Arr((2, 3)), Arr((3, 2))), grad=(0, 1), label="matrices"),
                      Sample((Arr((3,)), Arr((3, 2))), grad=(0, 1), label="vector_matrix"),
                      Sample((Arr((2, 2, 3)), Arr((3, 2))), grad=(0, 1), label="broadcast"),
                      Sample((Arr((2, 3), "int32", -3, 3), Arr((3, 2), "int32", -3, 3)), label="int32"),
                      Sample((Arr((2, 3), "float64"), Arr((3,), "float64")), label="float64")),
           ref=np.matmul, method="matmul",
           bad=(Bad("inner_mismatch", (Arr((2, 3)), Arr((2, 3)))),
                Bad("mixed_dtypes", (Arr((2, 3), "float16"), Arr((3, 2)))))),
    OpInfo("mm", (Sample((Arr((2, 3)), Arr((3, 2))), grad=(0, 1)),
                  Sample((Arr((2, 3), "float64"), Arr((3, 1), "float64")), label="float64")),
           ref=np.matmul, method="mm", primitive=lambda ops, a, b: ops.MatMul()(a, b),
           bad=(Bad("inner_mismatch", (Arr((2, 3)), Arr((2, 3)))),)),
    OpInfo("bmm", (Sample((Arr((2, 2, 3)), Arr((2, 3, 2))), grad=(0, 1)),
                   Sample((Arr((1, 2, 2), "float64"), Arr((1, 2, 3), "float64")), label="float64"),
                   Sample((Arr((2, 3)), Arr((3, 2))), label="two_dims")),
           ref=np.matmul, method="bmm", primitive=lambda ops, a, b: ops.BatchMatMul()(a, b),
           bad=(Bad("vector", (Arr((3,)), Arr((3, 2)))),)),
    OpInfo("mv", (Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1)),
                  Sample((Arr((2, 2), "int32", -3, 3), Arr((2,), "int32", -3, 3)), label="int32")),
           ref=np.matmul,
           bad=(Bad("length_mismatch", (Arr((2, 3)), Arr((2,)))),)),
    OpInfo("dot", (Sample((Arr((2, 3)), Arr((3, 2))), grad=(0, 1)),
                   Sample((Arr((2, 2, 2)), Arr((2, 2, 3))), grad=(0, 1), label="three_dims"),
                   Sample((Arr((2, 3), "float16"), Arr((3, 2), "float16")), label="float16")),
           ref=np.dot, method="dot",
           # MindSpore 2.10 refuses Float64 (cellkit takes it: the finite-difference checks run in Float64).
           bad=(Bad("vectors", (Arr((3,)), Arr((3,)))), Bad("int32", (Arr((2, 2), "int32"), Arr((2, 2), "int32"))))),
    OpInfo("inner", (Sample((Arr((3,)), Arr((3,))), grad=(0, 1)),
                     Sample((Arr((2, 3)), Arr((4, 3))), grad=(0, 1), label="matrices"),
                     Sample((Arr(()), Arr((2, 2))), grad=(0, 1), label="zero_d"),
                     Sample((Arr((3,), "int32", -3, 3), Arr((3,), "int32", -3, 3)), label="int32")),
           ref=np.inner, method="inner",
           bad=(Bad("length_mismatch", (Arr((2,)), Arr((3,)))),)),
    OpInfo("outer", (Sample((Arr((3,)), Arr((2,))), grad=(0, 1)),
                     Sample((Arr((2,), "int32", -3, 3), Arr((3,), "int32", -3, 3)), label="int32"),
                     Sample((Arr((2,), "int32", -3, 3), Arr((2,))), label="int_float")),
           ref=np.outer, method="outer"),
    OpInfo("ger", (Sample((Arr((3,)), Arr((2,))), grad=(0, 1)),
                   Sample((Arr((2,), "float64"), Arr((2,), "float64")), label="float64")),
           ref=np.outer, method="ger", primitive=lambda ops, a, b: ops.Ger()(a, b),
           bad=(Bad("int32", (Arr((2,), "int32"), Arr((2,), "int32"))), Bad("matrix", (Arr((2, 2)), Arr((2,)))))),
    OpInfo("vecdot", (Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1)),
                      Sample((Arr((2, 3)), Arr((2, 1))), {"axis": 0}, grad=(0, 1), label="axis0"),
                      Sample((Arr((3,), "int32", -3, 3), Arr((3,), "int32", -3, 3)), label="int32")),
           ref=lambda x, y, axis=-1: np.sum(x * y, axis=axis)),
    OpInfo("tensor_dot", (Sample((Arr((2, 3)), Arr((3, 2)), 1), grad=(0, 1)),
                          Sample((Arr((2, 2, 3)), Arr((3, 2, 2)), ((1, 2), (1, 0))), grad=(0, 1), label="pairs"),
                          Sample((Arr((2,)), Arr((3,)), 0), grad=(0, 1), label="outer"),
                          Sample((Arr((2, 2), "int32", -3, 3), Arr((2, 2), "int32", -3, 3), 1), label="int32")),
           ref=np.tensordot,
           bad=(Bad("mixed_dtypes", (Arr((2, 2), "float64"), Arr((2, 2)), 1)),)),
    OpInfo("kron", (Sample((Arr((2, 2)), Arr((2, 1))), grad=(0, 1)),
                    Sample((Arr((2,)), Arr((2, 2))), grad=(0, 1), label="mixed_ranks"),
                    Sample((Arr((2,), "int32", -3, 3), Arr((2,), "int32", -3, 3)), label="int32"),
                    Sample((Arr((2,), "int32", -3, 3), Arr((2,))), label="int_float")),
           ref=np.kron),
    OpInfo("cross", (Sample((Arr((3,)), Arr((3,))), grad=(0, 1)),
                     Sample((Arr((3, 2)), Arr((3, 2))), grad=(0, 1), label="default_dim"),
                     Sample((Arr((2, 3)), Arr((2, 3))), {"dim": 1}, grad=(0, 1), label="dim1"),
                     Sample((Arr((3,), "float64"), Arr((3,), "float64")), label="float64")),
           ref=lambda a, b, dim=None: np.cross(a, b, axis=0 if dim is None else dim), method="cross",
           primitive=lambda ops, a, b, dim=None: ops.Cross(dim=-65530 if dim is None else dim)(a, b),
           bad=(Bad("no_length_3", (Arr((2, 2)), Arr((2, 2)))),
                Bad("dim_not_3", (Arr((3, 2)), Arr((3, 2))), {"dim": 1}))),
    OpInfo("trace", (Sample((Arr((3, 3)),), grad=(0,)),
                     Sample((Arr((2, 3)),), grad=(0,), label="rectangular"),
                     Sample((Arr((2, 2), "int32", -3, 3),), label="int32"),
                     Sample((Arr((2, 2), "float64"),), label="float64")),
           ref=np.trace,
           bad=(Bad("three_dims", (Arr((2, 2, 2)),)), Bad("vector", (Arr((3,)),)))),
    OpInfo("addmm", (Sample((Arr((2, 2)), Arr((2, 3)), Arr((3, 2))), {"beta": 0.5, "alpha": 2.0}, grad=(0, 1, 2)),
                     Sample((Arr((2,)), Arr((3, 2)), Arr((2, 2))), grad=(0, 1, 2), label="broadcast"),
                     Sample((Arr((1, 2), "int32", -3, 3), Arr((1, 2), "int32", -3, 3), Arr((2, 2), "int32", -3, 3)),
                            {"beta": 2, "alpha": 3}, label="int32"),
                     Sample((Arr((1, 2), "int32", -3, 3), Arr((1, 2), "int32", -3, 3), Arr((2, 2), "int32", -3, 3)),
                            {"beta": 0.5}, label="int_float_beta")),
           ref=lambda x, a, b, beta=1, alpha=1: beta * x + alpha * (a @ b), method="addmm"),
    OpInfo("addbmm", (Sample((Arr((2, 2)), Arr((3, 2, 2)), Arr((3, 2, 2))), {"beta": 0.5, "alpha": 2.0},
                             grad=(0, 1, 2)),
                      Sample((Arr((2, 2), "float64"), Arr((2, 2, 3), "float64"), Arr((2, 3, 2), "float64")),
                             label="float64")),
           ref=lambda x, a, b, beta=1, alpha=1: beta * x + alpha * (a @ b).sum(0), method="addbmm"),
    OpInfo("baddbmm", (Sample((Arr((2, 2, 2)), Arr((2, 2, 3)), Arr((2, 3, 2)), 0.5, 2.0), grad=(0, 1, 2)),
                       Sample((Arr((2, 1, 2)), Arr((2, 2, 2)), Arr((2, 2, 2))), grad=(0, 1, 2), label="broadcast"),
                       Sample((Arr((1, 2, 2), "int32", -3, 3), Arr((1, 2, 2), "int32", -3, 3),
                               Arr((1, 2, 2), "int32", -3, 3), 2, 3), label="int32")),
           ref=lambda x, a, b, beta=1, alpha=1: beta * x + alpha * (a @ b),
           bad=(Bad("int_float_beta", (Arr((1, 2, 2), "int32"), Arr((1, 2, 2), "int32"), Arr((1, 2, 2), "int32"),
                                       0.5)),)),
    OpInfo("addmv", (Sample((Arr((2,)), Arr((2, 3)), Arr((3,))), {"beta": 0.5, "alpha": 2.0}, grad=(0, 1, 2)),
                     Sample((Arr((2,), "float64"), Arr((2, 2), "float64"), Arr((2,), "float64")), label="float64")),
           ref=lambda x, a, v, beta=1, alpha=1: beta * x + alpha * (a @ v), method="addmv"),
    OpInfo("addr", (Sample((Arr((3, 2)), Arr((3,)), Arr((2,))), {"beta": 0.5, "alpha": 2.0}, grad=(0, 1, 2)),
                    Sample((Arr((2,)), Arr((3,)), Arr((2,))), grad=(0, 1, 2), label="broadcast"),
                    Sample((Arr((2, 2)), Arr((2,)), Arr((2,))), {"beta": True, "alpha": False}, label="bool_scales")),
           ref=lambda x, a, b, beta=1, alpha=1: beta * x + alpha * np.outer(a, b)),
    OpInfo("adjoint", (Sample((Arr((2, 3)),), grad=(0,)),
                       Sample((Arr((2, 2, 3)),), grad=(0,), label="batch"),
                       Sample((Arr((2, 2), "int32", -3, 3),), label="int32")),
           ref=lambda x: np.swapaxes(x, -1, -2), method="adjoint",
           bad=(Bad("vector", (Arr((3,)),)),)),
    OpInfo("matrix_power", (Sample((SQ3, 3), grad=(0,)),
                            Sample((SQ2, -2), grad=(0,), label="negative"),
                            Sample((SQ2, 0), label="zero"),
                            Sample((BATCH, 2), grad=(0,), label="batch"),
                            Sample((Arr((2, 2), "int32", -2, 2), 3), label="int32"),
                            Sample((M(SQ2, "float64"), 2), label="float64")),
           ref=np.linalg.matrix_power, method="matrix_power",
           primitive=lambda ops, x, n: ops.MatrixPower(n)(x),
           bad=(Bad("not_square", (TALL, 2)), Bad("float16", (M(SQ2, "float16"), 2)))),
    # -- inverse, determinants, solves
    OpInfo("inverse", (Sample((SQ3,), grad=(0,)),
                       Sample((BATCH,), grad=(0,), label="batch"),
                       Sample((M(SQ2, "float64"),), label="float64")),
           ref=np.linalg.inv, method="inverse", primitive=lambda ops, x: ops.MatrixInverse()(x),
           bad=(Bad("not_square", (TALL,)), Bad("int32", (Arr((2, 2), "int32"),)))),
    OpInfo("det", (Sample((SQ3,), grad=(0,)),
                   Sample((BATCH,), grad=(0,), label="batch"),
                   Sample((M(SQ2, "float64"),), label="float64")),
           ref=np.linalg.det, method="det", primitive=lambda ops, x: ops.MatrixDeterminant()(x),
           bad=(Bad("not_square", (TALL,)), Bad("vector", (Arr((3,)),)))),
    OpInfo("slogdet", (Sample((SQ3,), grad=(0,)),
                       Sample((M([[0.5, 1.5], [1.25, 0.25]]),), grad=(0,), label="negative_det"),
                       Sample((BATCH,), grad=(0,), label="batch"),
                       Sample((M(SQ2, "float64"),), label="float64")),
           ref=_slogdet_ref, method="slogdet", primitive=lambda ops, x: ops.LogMatrixDeterminant()(x),
           bad=(Bad("not_square", (TALL,)),)),
    OpInfo("logdet", (Sample((SPD3,), grad=(0,)),
                      Sample((M([[0.5, 1.5], [1.25, 0.25]]),), label="negative_det"),
                      Sample((M(SPD2, "float64"),), label="float64")),
           ref=lambda a: np.log(np.linalg.det(a)), method="logdet",
           bad=(Bad("not_square", (TALL,)),)),
    OpInfo("matrix_solve", (Sample((SQ3, RHS), grad=(0, 1)),
                            Sample((SQ3, RHS), {"adjoint": True}, grad=(0, 1), label="adjoint"),
                            Sample((BATCH, M([[[1.0], [0.5]], [[-0.5], [2.0]]])), grad=(0, 1), label="batch"),
                            Sample((M(SQ2, "float64"), M([[1.0], [2.0]], "float64")), label="float64")),
           ref=lambda a, b, adjoint=False: np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b),
           primitive=lambda ops, a, b, adjoint=False: ops.MatrixSolve(adjoint)(a, b),
           bad=(Bad("rank_mismatch", (SQ3, M([1.0, 2.0, 3.0]))),
                Bad("mixed_dtypes", (SQ2, M([[1.0], [2.0]], "float64"))))),
    OpInfo("cholesky", (Sample((SPD3,)),
                        Sample((SPD3,), {"upper": True}, label="upper"),
                        Sample((M([SPD2, [[3.0, 1.0], [1.0, 2.5]]]),), label="batch"),
                        Sample((M(SPD2, "float64"),), label="float64")),
           ref=lambda a, upper=False: np.swapaxes(np.linalg.cholesky(a), -1, -2) if upper else np.linalg.cholesky(a),
           method="cholesky", primitive=lambda ops, x, upper=False: ops.Cholesky(upper)(x),
           bad=(Bad("not_symmetric", (SQ3,)), Bad("not_positive", (M([[1.0, 2.0], [2.0, 1.0]]),)),
                Bad("int32", (Arr((2, 2), "int32"),)))),
    # MindSpore 2.10's gradient of cholesky_inverse disagrees with finite differences of its own forward:
    # no gradient here (tests/ops/test_linalg_gradients.py checks cellkit's).
    OpInfo("cholesky_inverse", (Sample((LOWER3,)),
                                Sample((LOWER3.T.copy(),), {"upper": True}, label="upper"),
                                Sample((M([[[2.0, 0.0], [1.0, 1.0]], [[1.5, 0.0], [-0.5, 2.0]]]),), label="batch"),
                                Sample((M([[2.0, 0.0], [1.0, 1.0]], "float64"),), label="float64")),
           ref=lambda u, upper=False: np.linalg.inv(np.swapaxes(u, -1, -2) @ u if upper
                                                    else u @ np.swapaxes(u, -1, -2)),
           method="cholesky_inverse",
           mindspore_wrong={"batch": "MindSpore 2.10 documents 2-D input only; given a batch it returns wrong values "
                                     "for the matrices after the first"},
           primitive=lambda ops, x, upper=False: ops.CholeskyInverse(upper)(x),
           bad=(Bad("vector", (M([1.0, 2.0]),)), Bad("int32", (Arr((2, 2), "int32"),)))),
    OpInfo("cholesky_solve", (Sample((RHS, LOWER3), grad=(0, 1)),
                              Sample((RHS, LOWER3.T.copy()), {"upper": True}, grad=(0, 1), label="upper"),
                              Sample((M([[1.0], [2.0]], "float64"), M([[2.0, 0.0], [1.0, 1.0]], "float64")),
                                     label="float64")),
           ref=lambda b, u, upper=False: np.linalg.solve(u.T @ u if upper else u @ u.T, b), method="cholesky_solve",
           primitive=lambda ops, b, u, upper=False: ops.CholeskySolve(upper)(b, u),
           bad=(Bad("rank_mismatch", (M([[[1.0], [2.0]]]), M([[2.0, 0.0], [1.0, 1.0]]))),)),
    # -- decompositions
    OpInfo("qr", (Sample((TALL,)),
                  Sample((TALL,), {"mode": "complete"}, label="complete"),
                  Sample((WIDE,), label="wide"),
                  Sample((M([TALL, TALL[::-1]]),), label="batch"),
                  Sample((M(SQ2, "float64"),), label="float64"),
                  Sample((Arr((2, 2), "float16", low=0.5),), label="float16")),
           primitive=lambda ops, x, mode="reduced": ops.Qr(mode == "complete")(x),
           bad=(Bad("vector", (M([1.0, 2.0]),)), Bad("int32", (Arr((2, 2), "int32"),)),
                Bad("bad_mode", (SQ2,), {"mode": "r"}))),
    OpInfo("svd", (Sample((TALL,), {"compute_uv": False}, grad=(0,)),
                   Sample((WIDE,), {"compute_uv": False}, grad=(0,), label="wide"),
                   Sample((BATCH,), {"compute_uv": False}, grad=(0,), label="batch"),
                   Sample((M(TALL, "float64"),), {"compute_uv": False}, label="float64")),
           ref=lambda a, full_matrices=False, compute_uv=True: np.linalg.svd(a, compute_uv=False),
           primitive=lambda ops, a, full_matrices=False, compute_uv=True: ops.Svd(full_matrices, compute_uv)(a)[0],
           bad=(Bad("vector", (M([1.0, 2.0]),)), Bad("int32", (Arr((2, 2), "int32"),)))),
    OpInfo("eig", (Sample((M([[1.0, 2.0], [3.0, 4.0]]),)),
                   Sample((M([[1.0, 2.0], [3.0, 4.0]], "float64"),), label="float64")),
           primitive=lambda ops, a: ops.Eig(True)(a),
           bad=(Bad("not_square", (TALL,)), Bad("int32", (Arr((2, 2), "int32"),)))),
    OpInfo("eigvals", (Sample((M([[1.0, 2.0], [3.0, 4.0]]),)),
                       Sample((M([[0.0, -1.0], [1.0, 0.0]]),), label="complex_values"),
                       Sample((M([[1.0, 2.0], [3.0, 4.0]], "float64"),), label="float64")),
           method="eigvals", primitive=lambda ops, a: ops.Eig(False)(a)[0],
           bad=(Bad("not_square", (TALL,)),)),
    OpInfo("pinv", (Sample((TALL,), grad=(0,)),
                    Sample((WIDE,), grad=(0,), label="wide"),
                    Sample((M([TALL, TALL[::-1]]),), grad=(0,), label="batch"),
                    Sample((TALL,), {"atol": 1.5}, label="atol"),
                    Sample((TALL,), {"rtol": 0.6}, label="rtol"),
                    Sample((SPD3,), {"hermitian": True}, label="hermitian"),
                    Sample((M(SQ2, "float64"),), label="float64")),
           ref=lambda a, atol=None, rtol=None, hermitian=False: np.linalg.pinv(
               a, rcond=(rtol if rtol is not None else (atol / np.linalg.svd(a, compute_uv=False)[0]
                                                         if atol is not None else 1e-15))),
           bad=(Bad("vector", (M([1.0, 2.0]),)), Bad("int32", (Arr((2, 2), "int32"),)))),
    OpInfo("lstsq", (Sample((TALL, M([[1.0], [0.5], [-1.0]])),),
                     Sample((WIDE, M([[1.0, 0.5], [-0.5, 2.0]])), label="underdetermined"),
                     Sample((TALL, M([1.0, 0.5, -1.0])), label="vector_rhs"),
                     Sample((M(TALL, "float64"), M([[1.0], [0.5], [-1.0]], "float64")), label="float64")),
           ref=lambda a, b: np.linalg.lstsq(a, b.reshape(b.shape[0], -1), rcond=None)[0], method="lstsq",
           primitive=lambda ops, a, b: ops.Lstsq()(a, b),
           bad=(Bad("batch", (M([TALL, TALL]), M([[[1.0], [2.0], [3.0]]] * 2))),
                Bad("mixed_dtypes", (TALL, M([[1.0], [0.5], [-1.0]], "float64"))))),
    OpInfo("lu_unpack", (Sample((SQ3, _lu_pivots([2, 3, 3])), grad=(0,)),
                         Sample((M([[3.0, 4.0, 1.0], [0.5, 2.0, -1.0]]), _lu_pivots([2, 2])), grad=(0,), label="wide")),
           primitive=lambda ops, d, p, unpack_data=True, unpack_pivots=True: ops.LuUnpack(unpack_data,
                                                                                          unpack_pivots)(d, p),
           bad=(Bad("pivots_shape", (SQ3, _lu_pivots([1, 2]))),)),
    OpInfo("lu_solve", (Sample((RHS, SQ3, _lu_pivots([2, 3, 3])),),
                        Sample((M([[1.0], [2.0]], "float64"), M([[3.0, 4.0], [1 / 3, 2 / 3]], "float64"),
                                _lu_pivots([2, 2])), label="float64")),
           primitive=lambda ops, b, d, p: ops.LuSolve()(b, d, p),
           bad=(Bad("rhs_rows", (M([[1.0], [2.0]]), SQ3, _lu_pivots([1, 2, 3]))),)),
    OpInfo("geqrf", (Sample((TALL,)),
                     Sample((WIDE,), label="wide"),
                     Sample((M([TALL, TALL[::-1]]),), label="batch"),
                     Sample((M(SQ2, "float64"),), label="float64")),
           method="geqrf",
           bad=(Bad("vector", (M([1.0, 2.0]),)),)),
    OpInfo("orgqr", (Sample((M([[-1.875, -0.3333], [0.0833, 2.0817], [0.5, -0.4]]), M([1.533, 1.1])),),
                     Sample((TALL, M([0.5])), label="one_reflector"),
                     Sample((M([[[-1.875, -0.3333], [0.0833, 2.0817], [0.5, -0.4]]] * 2), M([[1.533, 1.1]] * 2)),
                            label="batch")),
           method="orgqr", primitive=lambda ops, a, t: ops.Orgqr()(a, t),
           bad=(Bad("too_many_tau", (TALL, M([0.5, 0.5, 0.5]))),)),
    # -- norms
    # ops.norm is catalogued by the reductions family; its singular-value orders are in ops_linalg_extra.py.
    OpInfo("vector_norm", (Sample((Arr((2, 3)),), grad=(0,)),
                           Sample((Arr((2, 3), away=0.25),), {"ord": 1, "axis": 1}, grad=(0,), label="ord1"),
                           Sample((Arr((2, 3), low=0.25, high=2.0, distinct=True),), {"ord": -math.inf, "axis": (0, 1)},
                                  grad=(0,),
                                  label="minus_inf"),
                           Sample((Arr((2, 3)),), {"ord": 0}, label="ord0"),
                           Sample((Arr((2, 3), away=0.25),), {"ord": 3, "axis": 0, "keepdims": True}, grad=(0,),
                                  label="p3_keepdims"),
                           Sample((Arr((2, 3), away=0.25),), {"ord": -1, "axis": 1}, grad=(0,), label="minus_one"),
                           Sample((Arr((3,), "int32", -3, 3),), label="int32"),
                           Sample((Arr((3,), "float16"),), label="float16")),
           ref=lambda x, ord=2, axis=None, keepdims=False: _vector_norm_ref(x, ord, axis, keepdims),
           bad=(Bad("list_axis", (Arr((2, 3)),), {"axis": [0, 1]}), Bad("str_ord", (Arr((2, 3)),), {"ord": "fro"}))),
    OpInfo("matrix_norm", (Sample((Arr((2, 3)),), grad=(0,)),
                           Sample((TALL,), {"ord": "nuc"}, grad=(0,), label="nuc"),
                           Sample((TALL,), {"ord": 2}, grad=(0,), label="two"),
                           Sample((TALL,), {"ord": -2}, grad=(0,), label="minus_two"),
                           Sample((Arr((2, 3), away=0.25, distinct=True),), {"ord": 1}, grad=(0,), label="one"),
                           Sample((Arr((2, 3), away=0.25, distinct=True),), {"ord": -math.inf}, grad=(0,),
                                  label="minus_inf"),
                           Sample((Arr((2, 2, 2)),), {"ord": "fro", "axis": (-2, -1), "keepdims": True}, grad=(0,),
                                  label="batch_keepdims"),
                           Sample((BATCH,), {"ord": 2, "axis": (0, 2)}, grad=(0,), label="axes_0_2"),
                           Sample((Arr((2, 2), "int32", -3, 3),), label="int32")),
           ref=lambda a, ord="fro", axis=(-2, -1), keepdims=False: np.linalg.norm(a, ord, axis, keepdims),
           bad=(Bad("vector", (Arr((3,)),)), Bad("ord3", (Arr((2, 2)),), {"ord": 3}))),
    OpInfo("cond", (Sample((SQ3,), grad=(0,)),
                    Sample((SQ3,), {"p": "fro"}, grad=(0,), label="fro"),
                    Sample((SQ3,), {"p": "nuc"}, grad=(0,), label="nuc"),
                    Sample((NO_TIES,), {"p": 1}, grad=(0,), label="one"),
                    Sample((NO_TIES,), {"p": -math.inf}, grad=(0,), label="minus_inf"),
                    Sample((SQ3,), {"p": -2}, grad=(0,), label="minus_two"),
                    Sample((BATCH,), grad=(0,), label="batch"),
                    Sample((M(SQ2, "float64"),), label="float64")),
           ref=_cond_ref,
           mindspore_wrong={"float64": "MindSpore 2.10 returns the condition number of a Float64 matrix as Float32"},
           bad=(Bad("rectangular", (TALL,)), Bad("int32", (Arr((2, 2), "int32"),)), Bad("p3", (SQ2,), {"p": 3}))),
]
