"""Gradients of the matrix functions the catalogue cannot differentiate against MindSpore.

MindSpore 2.10 (CPU) has no gradient for ``cholesky``, ``qr``, ``eig``, ``lstsq`` or ``lu_solve``,
and a wrong one for ``cholesky_inverse``: cellkit's are checked here against central finite
differences, to first and second order (``eig`` to first order: its rule is first order only),
on NumPy and on the strict non-CPU device.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad, check_second_order

SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
SQ = np.array([[2.0, 0.5, -0.25], [0.75, 1.5, 0.5], [-0.5, 0.25, 1.75]])
TALL = np.array([[1.0, 0.5], [0.25, 2.0], [1.5, -0.75]])
WIDE = np.array([[1.0, 0.25, -0.5], [0.5, 1.5, 0.75]])
LOWER = np.array([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.25, 0.75, 1.25]])
RHS = np.array([[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]])
PIVOTS = ms.Tensor(np.array([2, 3, 3], np.int32))

CASES = {
    "cholesky": (ops.cholesky, [SPD]),
    "cholesky_upper": (lambda a: ops.cholesky(a, upper=True), [SPD]),
    "cholesky_batch": (ops.cholesky, [np.stack([SPD[:2, :2], SPD[1:, 1:]])]),
    "cholesky_inverse": (ops.cholesky_inverse, [LOWER]),
    "cholesky_inverse_upper": (lambda u: ops.cholesky_inverse(u, True), [LOWER.T.copy()]),
    "qr_q": (lambda a: ops.qr(a)[0], [TALL]),
    "qr_r": (lambda a: ops.qr(a)[1], [TALL]),
    "qr_square": (lambda a: ops.matmul(ops.qr(a)[0], ops.qr(a)[1] * 0.5), [SQ]),
    "qr_wide_q": (lambda a: ops.qr(a)[0], [WIDE]),
    "qr_wide_r": (lambda a: ops.qr(a)[1], [WIDE]),
    "qr_batch": (lambda a: ops.qr(a)[1], [np.stack([TALL, TALL[::-1]])]),
    "qr_complete_wide": (lambda a: ops.qr(a, "complete")[0], [WIDE]),
    "svd_vectors": (lambda a: ops.svd(a)[1] * ops.svd(a)[2].sum(), [TALL]),
    "svd_wide_vectors": (lambda a: ops.svd(a)[2], [WIDE]),
    "svd_full_matrices": (lambda a: ops.svd(a, full_matrices=True)[1][:, :2], [TALL]),
    "lstsq": (ops.lstsq, [TALL, RHS]),
    "lstsq_underdetermined": (ops.lstsq, [WIDE, RHS[:2]]),
    "lu_solve": (lambda b, lu: ops.lu_solve(b, lu, PIVOTS), [RHS, SQ]),
    "pinv_hermitian": (lambda a: ops.pinv(a, hermitian=True), [SPD]),
    "triangular_solve": (lambda b, a: b.triangular_solve(a)[0], [RHS, LOWER.T.copy()]),
    "triangular_solve_unit_transposed": (lambda b, a: b.triangular_solve(a, upper=False, transpose=True,
                                                                          unitriangular=True)[0], [RHS, LOWER]),
    "matrix_triangular_solve": (lambda a, b: ops.MatrixTriangularSolve(adjoint=True)(a, b), [LOWER, RHS]),
    "addmm_method": (lambda x, a: x.addmm(a, a, beta=0.5), [SQ, SQ.T.copy()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_gradient_matches_finite_differences(backend, name):
    fn, inputs = CASES[name]
    check_grad(fn, *inputs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_second_order_matches_finite_differences(name):
    fn, inputs = CASES[name]
    check_second_order(fn, *inputs)


REAL_EIGENVALUES = np.array([[2.0, 1.0, 0.3], [0.5, 3.0, 1.0], [0.2, 0.4, 5.0]])
COMPLEX_EIGENVALUES = np.array([[0.0, -2.0, 1.0], [1.5, 0.3, 0.0], [0.2, 0.1, 1.0]])


@pytest.mark.parametrize("fn, matrix", [
    (lambda a: ops.real(ops.eigvals(a)) + 0.3 * ops.imag(ops.eigvals(a)), COMPLEX_EIGENVALUES),
    (lambda a: ops.real(ops.eig(a)[1]), REAL_EIGENVALUES),                # a real gauge: the sign is fixed
    (lambda a: ops.ComplexAbs()(ops.eig(a)[1]), COMPLEX_EIGENVALUES),     # |V| does not depend on the phase
    (lambda a: ops.ComplexAbs()(ops.eig(a)[0]), REAL_EIGENVALUES),
], ids=["eigvals", "real_vectors", "vector_moduli", "eig_values"])
def test_linalg_eig_gradient_matches_finite_differences(backend, fn, matrix):
    check_grad(fn, matrix)


def test_linalg_eig_second_order_says_it_is_not_supported():
    with pytest.raises(NotImplementedError, match="eig"):
        check_second_order(lambda a: ops.real(ops.eigvals(a)), REAL_EIGENVALUES)


def test_linalg_qr_complete_gradient_of_a_tall_matrix_is_refused():
    with pytest.raises(RuntimeError, match="mode='complete'"):
        ms.grad(lambda a: ops.qr(a, "complete")[0].sum())(ms.Tensor(TALL))


def test_linalg_gradients_of_complex_products_and_solves():
    """A complex matmul / solve / inverse: gradients are dL/dRe + i dL/dIm, as in MindSpore."""
    re = np.array([[1.0, 0.5], [-0.25, 1.5]])
    im = np.array([[0.25, -0.5], [0.75, 0.5]])

    def f(a, b):
        z = ops.Complex()(a, b)
        y = ops.matmul(ops.inverse(z), ops.matrix_solve(z, ops.matmul(z, z)))
        return ops.real(y) + 0.5 * ops.imag(y) + ops.ComplexAbs()(ops.det(z))

    check_grad(f, re, im)
    check_second_order(f, re, im)
