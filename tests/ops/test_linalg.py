"""Matrix products: matmul (NumPy broadcasting rules), bmm, BatchMatMul with transposes."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops

T = ms.Tensor

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def host(t):
    return t.asnumpy()


@pytest.mark.parametrize("sa, sb", [
    ((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((4, 1, 2, 3), (5, 3, 2)), ((1, 3), (3, 1)),
])
def test_linalg_matmul_matches_numpy(backend, sa, sb):
    a, b = r(*sa), r(*sb)
    out = ops.matmul(T(a), T(b))
    assert out.shape == np.matmul(a, b).shape
    np.testing.assert_allclose(host(out), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(T(a) @ T(b)), np.matmul(a, b), rtol=1e-5, atol=1e-6)


def test_linalg_matmul_of_integers(backend):
    out = ops.matmul(T([[1, 2]]), T([[3], [4]]))
    assert out.dtype is ms.int64 and host(out).tolist() == [[11]]


def test_linalg_matmul_shape_mismatch_shows_both_shapes(backend):
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4, 4\) \(3 != 4\)"):
        ops.matmul(T(r(2, 3)), T(r(4, 4)))
    with pytest.raises(ValueError, match=r"batch dimensions of shapes \(2, 2, 3\) and \(3, 3, 4\)"):
        ops.matmul(T(r(2, 2, 3)), T(r(3, 3, 4)))
    with pytest.raises(ValueError, match="must not be scalars"):
        ops.matmul(T(1.0), T(r(2)))


def test_linalg_matmul_mixed_dtypes_raise_type_error(backend):
    # MindSpore 2.10: MatMul of Float16 by Float32 raises TypeError rather than promoting.
    with pytest.raises(TypeError, match="same dtype.*Float64 and Float32"):
        ops.matmul(T(np.ones((2, 2))), T(r(2, 2)))


def test_linalg_matmul_non_tensor_argument_raises_type_error(backend):
    with pytest.raises(TypeError, match="'other'"):
        ops.matmul(T(r(2, 2)), "x")


def test_linalg_bmm(backend):
    a, b = r(5, 2, 3), r(5, 3, 4)
    np.testing.assert_allclose(host(ops.bmm(T(a), T(b))), a @ b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"at least 2 dimensions.*\(3,\)"):
        ops.bmm(T(r(3)), T(b))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_linalg_batch_matmul_transposes(backend, ta, tb):
    a, b = r(4, 2, 3), r(4, 3, 5)
    a_in = a.transpose(0, 2, 1) if ta else a
    b_in = b.transpose(0, 2, 1) if tb else b
    out = ops.batch_matmul(T(a_in), T(b_in), ta, tb)
    np.testing.assert_allclose(host(out), a @ b, rtol=1e-5, atol=1e-6)


def test_linalg_matmul_gradients_match_the_closed_form(backend):
    a, b = r(2, 3), r(3, 4)
    probe = r(2, 4)
    ga, gb = ms.grad(lambda x, y: (ops.matmul(x, y) * T(probe)).sum(), (0, 1))(T(a), T(b))
    np.testing.assert_allclose(host(ga), probe @ b.T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(gb), a.T @ probe, rtol=1e-5, atol=1e-6)


def test_linalg_matmul_broadcast_gradient_sums_over_the_batch(backend):
    a, b = r(5, 2, 3), r(3, 4)
    ga, gb = ms.grad(lambda x, y: ops.matmul(x, y).sum(), (0, 1))(T(a), T(b))
    assert ga.shape == (5, 2, 3) and gb.shape == (3, 4)
    np.testing.assert_allclose(host(gb), np.einsum("bij->j", a)[:, None].repeat(4, 1), rtol=1e-5)


def test_linalg_vector_gradients_keep_vector_shapes(backend):
    ga, gb = ms.grad(lambda x, y: ops.matmul(x, y), (0, 1))(T([1.0, 2.0]), T([3.0, 4.0]))
    assert host(ga).tolist() == [3.0, 4.0] and host(gb).tolist() == [1.0, 2.0]


def test_linalg_only_the_recorded_side_gets_a_gradient(backend):
    b = T(r(3, 2))
    g = ms.grad(lambda x: ops.matmul(x, b).sum())(T(r(2, 3)))
    assert g.shape == (2, 3)
    assert ops.matmul(T(r(2, 3)), b)._node is None
