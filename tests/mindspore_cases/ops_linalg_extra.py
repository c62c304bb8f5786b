"""Linear-algebra cases the catalogue cannot state: Tensor-only methods, Primitive forms, dtype arguments.

Also the quantities that do not depend on the sign choices of SVD and eigenvector routines
(MindSpore's Eigen and cellkit's LAPACK pick different, equally correct signs), and the methods
MindSpore 2.10's CPU build documents but cannot run (``triangular_solve``, ``ormqr``, ``addmm_``):
those are ``mindspore_wrong`` and compared with NumPy's value of what the docs describe.
"""
from . import CaseList

CASES = CaseList()


def _t(ms, np, rows, dtype="float32"):
    return ms.Tensor(np.array(rows, dtype=dtype))


A3 = [[2.0, 0.5, -0.25], [0.75, 1.5, 0.5], [-0.5, 0.25, 1.75]]
TALL = [[1.0, 0.5], [0.25, 2.0], [1.5, -0.75]]
WIDE = [[1.0, 0.25, -0.5], [0.5, 1.5, 0.75]]
UPPER = [[2.0, 1.0, -0.5], [0.0, 1.5, 0.25], [0.0, 0.0, 1.25]]
RHS = [[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]]


# -- Tensor methods with their own signatures
@CASES.case
def tensor_qr_some(ms, ops, nn, np):
    return _t(ms, np, TALL).qr(), _t(ms, np, TALL).qr(False)


@CASES.case
def tensor_trace_offset_axes_dtype(ms, ops, nn, np):
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    m = _t(ms, np, A3)
    return m.trace(), m.trace(1), m.trace(-1), x.trace(0, 1, 2), x.trace(1, 0, 2), m.trace(dtype=ms.float64)


@CASES.case
def tensor_determinants(ms, ops, nn, np):
    m = _t(ms, np, A3)
    return m.matrix_determinant(), m.log_matrix_determinant(), m.slogdet(), m.det(), m.logdet()


@CASES.case
def tensor_H_and_mH(ms, ops, nn, np):
    m = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    z = ms.Tensor(np.array([[1 + 2j, 3 - 1j]], np.complex64))
    b = ms.Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))
    return m.H, z.H, b.mH, z.mH


@CASES.case
def tensor_H_of_a_batch_raises(ms, ops, nn, np):
    return ms.Tensor(np.ones((2, 2, 2), np.float32)).H


@CASES.case
def tensor_mH_of_a_vector_raises(ms, ops, nn, np):
    return ms.Tensor(np.ones(3, np.float32)).mH


@CASES.case
def tensor_dot_of_matrices(ms, ops, nn, np):
    return _t(ms, np, A3).dot(_t(ms, np, RHS))


@CASES.case
def tensor_dot_of_vectors_raises(ms, ops, nn, np):
    return _t(ms, np, [1.0, 2.0]).dot(_t(ms, np, [3.0, 4.0]))


def _triangular_expected(np):
    a = np.array(UPPER, np.float32)
    b = np.array(RHS, np.float32)
    return (np.linalg.solve(a, b).astype(np.float32), a,
            np.linalg.solve(np.tril(a.T), b).astype(np.float32),
            np.linalg.solve(np.triu(a, 1) + np.eye(3, dtype=np.float32), b).astype(np.float32))


@CASES.case(mindspore_wrong=True, expected=_triangular_expected, rtol=1e-5, atol=1e-5,
            note="Tensor.triangular_solve is documented but MindSpore 2.10 (CPU) raises AttributeError")
def tensor_triangular_solve(ms, ops, nn, np):
    a, b = _t(ms, np, UPPER), _t(ms, np, RHS)
    x, a_copy = b.triangular_solve(a)
    x_t, _ = b.triangular_solve(a, upper=True, transpose=True)
    x_u, _ = b.triangular_solve(a, unitriangular=True)
    return x, a_copy, x_t, x_u


def _ormqr_expected(np):
    m = np.array(TALL, np.float32)
    q = np.linalg.qr(m, mode="complete")[0]
    c = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    return (q @ c).astype(np.float32), (q.T @ c).astype(np.float32), (c.T @ q).astype(np.float32)


@CASES.case(mindspore_wrong=True, expected=_ormqr_expected, rtol=1e-5, atol=1e-5,
            note="Tensor.ormqr is documented but MindSpore 2.10 has no CPU kernel for it (RuntimeError)")
def tensor_ormqr(ms, ops, nn, np):
    y, tau = ops.geqrf(_t(ms, np, TALL))
    c = _t(ms, np, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return y.ormqr(tau, c), y.ormqr(tau, c, transpose=True), y.ormqr(tau, c.T, left=False)


def _addmm_expected(np):
    base = np.ones((2, 2), np.float32)
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    return (2 * base + 0.5 * a @ a).astype(np.float32)


@CASES.case(mindspore_wrong=True, expected=_addmm_expected,
            note="Tensor.addmm_ is documented but MindSpore 2.10 has no CPU kernel for it (RuntimeError)")
def tensor_addmm_in_place(ms, ops, nn, np):
    base = ms.Tensor(np.ones((2, 2), np.float32))
    a = _t(ms, np, [[1.0, 2.0], [3.0, 4.0]])
    base.addmm_(a, a, beta=2, alpha=0.5)
    return base


@CASES.case
def tensor_lstsq_and_lu_solve(ms, ops, nn, np):
    m = _t(ms, np, TALL)
    return m.lstsq(_t(ms, np, [[1.0], [0.5], [-1.0]]))


# -- Primitive forms whose outputs differ from the functions'
@CASES.case
def matrix_triangular_solve_primitive(ms, ops, nn, np):
    a, b = _t(ms, np, UPPER), _t(ms, np, RHS)
    return (ops.MatrixTriangularSolve(lower=False)(a, b), ops.MatrixTriangularSolve()(a.T, b),
            ops.MatrixTriangularSolve(lower=False, adjoint=True)(a, b))


@CASES.case
def matrix_inverse_adjoint_primitive(ms, ops, nn, np):
    return ops.MatrixInverse(adjoint=True)(_t(ms, np, A3))


@CASES.case
def eig_primitive_without_vectors(ms, ops, nn, np):
    values, vectors = ops.Eig()(_t(ms, np, [[1.0, 2.0], [3.0, 4.0]]))
    return values, vectors.shape, vectors.dtype  # MindSpore leaves the 0-d vectors' value uninitialised


@CASES.case
def svd_primitive_without_vectors(ms, ops, nn, np):
    return ops.Svd(compute_uv=False)(_t(ms, np, TALL))


@CASES.case
def lu_unpack_parts(ms, ops, nn, np):
    data, piv = _t(ms, np, A3), ms.Tensor(np.array([2, 3, 3], np.int32))
    p, l, u = ops.lu_unpack(data, piv)
    return p, l, u, ops.LuUnpack()(data, piv)[0]


@CASES.case
def lu_unpack_pivots_only(ms, ops, nn, np):
    data, piv = _t(ms, np, A3), ms.Tensor(np.array([2, 3, 3], np.int32))
    p, l, u = ops.lu_unpack(data, piv, unpack_data=False)
    return p, l is None, u is None


@CASES.case
def lu_solve_from_a_factorisation(ms, ops, nn, np):
    # A = P L U with P swapping rows 0 and 1: lu_solve must solve A x = b.
    data = _t(ms, np, [[3.0, 4.0, 1.0], [1 / 3, 2 / 3, 0.5], [0.5, -0.25, 2.0]])
    piv = ms.Tensor(np.array([2, 2, 3], np.int32))
    b = _t(ms, np, [[1.0], [2.0], [3.0]])
    x = ops.lu_solve(b, data, piv)
    p, l, u = ops.lu_unpack(data, piv)
    return x, ops.matmul(ops.matmul(p, ops.matmul(l, u)), x)


# -- sign-free quantities of the SVD and of eigenvectors
@CASES.case(atol=1e-5)
def svd_reconstructs_its_input(ms, ops, nn, np):
    out = []
    for rows in (TALL, WIDE, A3):
        a = _t(ms, np, rows)
        s, u, v = ops.svd(a)
        k = s.shape[0]
        recon = ops.matmul(u * s.reshape((1, k)), v.T)
        out += [s, recon, ops.matmul(u.T, u), ops.matmul(v.T, v)]
    s, u, v = ops.svd(_t(ms, np, WIDE), full_matrices=True)
    out += [s, u.shape, v.shape, ops.matmul(v.T, v), ops.abs(u)]
    return tuple(out)


@CASES.case(atol=1e-5)
def eig_of_a_symmetric_matrix_satisfies_a_v_equals_v_lambda(ms, ops, nn, np):
    a = _t(ms, np, [[2.0, 0.5, 0.0], [0.5, 1.5, 0.25], [0.0, 0.25, 1.0]])
    values, vectors = ops.eig(a)
    residual = ops.matmul(a.astype(ms.complex64), vectors) - vectors * values.reshape((1, 3))
    return ms.Tensor(np.sort(ops.real(values).asnumpy())), ops.ComplexAbs()(residual).max() < 1e-5


# -- dtype arguments (the catalogue cannot name a MindSpore dtype)
@CASES.case
def norms_with_a_dtype(ms, ops, nn, np):
    a = _t(ms, np, [[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]])
    return (ops.norm(a, dtype=ms.float64), ops.vector_norm(a, 1, 1, dtype=ms.float64),
            ops.matrix_norm(a, "fro", dtype=ms.float64), a.norm(1, 1))


def _nuc_float64(np):
    a = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]], np.float32).astype(np.float64)
    return np.linalg.norm(a, "nuc"), np.linalg.norm(a, 2)


@CASES.case(mindspore_wrong=True, expected=_nuc_float64,
            note="matrix_norm(..., dtype=ms.float64) with ord 'nuc' or 2 returns Float32 in MindSpore 2.10")
def matrix_norm_of_singular_values_with_a_dtype(ms, ops, nn, np):
    a = _t(ms, np, [[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]])
    return ops.matrix_norm(a, "nuc", dtype=ms.float64), ops.matrix_norm(a, 2, dtype=ms.float64)


@CASES.case
def vector_norm_of_a_complex_tensor(ms, ops, nn, np):
    return ops.vector_norm(ms.Tensor(np.array([3 + 4j, 1j], np.complex64)))


# -- gradients MindSpore has, through real-valued functions
@CASES.case(rtol=1e-4, atol=1e-5)
def svd_gradient_through_singular_vectors(ms, ops, nn, np):
    a = _t(ms, np, TALL)

    def f(x):
        s, u, v = ops.svd(x)
        return (s * s).sum() + (ops.matmul(u * s.reshape((1, 2)), v.T) * _t(ms, np, RHS)).sum()
    return ms.grad(f)(a)


@CASES.case(rtol=1e-4, atol=1e-5)
def slogdet_and_det_gradients_of_a_batch(ms, ops, nn, np):
    a = _t(ms, np, [A3, [[1.0, 0.25, 0.0], [0.5, -1.5, 0.25], [0.0, 0.75, 1.25]]])
    return ms.grad(lambda x: ops.slogdet(x)[1].sum() + (ops.det(x) * _t(ms, np, [0.5, -2.0])).sum())(a)


@CASES.case(rtol=1e-4, atol=1e-5)
def norm_singular_value_orders_and_their_gradients(ms, ops, nn, np):
    a = _t(ms, np, TALL)
    batch = _t(ms, np, [TALL, TALL[::-1]])
    values = (ops.norm(a, "nuc"), ops.norm(a, 2), ops.norm(a, -2), ops.norm(batch, -2, (1, 2), True),
              ops.norm(ms.Tensor(np.array([3, -4, 0], np.int32))), a.norm("nuc"))
    grads = (ms.grad(lambda x: ops.norm(x, "nuc"))(a), ms.grad(lambda x: ops.norm(x, 2))(a),
             ms.grad(lambda x: ops.norm(x, -2, (1, 2), True).sum())(batch))
    return values, grads
