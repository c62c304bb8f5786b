"""dropout and the Dropout primitive: reproducibility, scaling, gradients, validation.

Every test runs on NumPy and on array_api_strict's ``device1``; one test
checks that a seed gives the same mask on both.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as backend_mod
from cellkit import ops
from tests.gradcheck import check_grad

T = ms.Tensor


def _kept(out):
    return out.asnumpy() != 0


def test_dropout_is_reproducible_after_set_seed(backend):
    x = T(np.ones((4, 5), np.float32))
    ms.set_seed(11)
    first = ops.dropout(x, p=0.4).asnumpy()
    second = ops.dropout(x, p=0.4).asnumpy()
    ms.set_seed(11)
    again = ops.dropout(x, p=0.4).asnumpy()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)  # the stream moves on between calls


def test_dropout_gives_the_same_mask_on_every_backend():
    results = []
    for name in ("numpy", "strict"):
        with backend_mod.use(name):
            ms.set_seed(5)
            results.append(ops.dropout(T(np.ones((3, 7), np.float32)), p=0.5).asnumpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_dropout_scales_kept_values_and_drops_about_p(backend):
    ms.set_seed(0)
    x = np.random.default_rng(1).uniform(1, 2, (200, 100)).astype(np.float32)
    out = ops.dropout(T(x), p=0.3)
    kept = _kept(out)
    assert out.dtype is ms.float32 and out.shape == x.shape
    np.testing.assert_allclose(out.asnumpy()[kept], x[kept] / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.01  # 20000 draws: the standard deviation is 0.003


def test_dropout_off_in_inference_or_with_p_zero(backend):
    x = T([1.0, 2.0, 3.0])
    assert ops.dropout(x, p=0.5, training=False) is x
    assert ops.dropout(x, p=0.0) is x


def test_dropout_integer_input_computes_in_float32(backend):
    ms.set_seed(2)
    assert ops.dropout(T([1, 2, 3, 4]), p=0.5).dtype is ms.float32


def test_dropout_gradient_is_the_scaled_mask(backend):
    x = np.random.default_rng(3).standard_normal((6, 5))
    ms.set_seed(9)
    out = ops.dropout(T(x), p=0.25).asnumpy()
    ms.set_seed(9)
    g = ms.grad(lambda t: ops.dropout(t, p=0.25).sum())(T(x)).asnumpy()
    np.testing.assert_allclose(g, np.where(out != 0, 1 / 0.75, 0.0))


def test_dropout_gradient_matches_finite_differences(backend):
    def fixed_mask_dropout(t):
        ms.set_seed(4)  # the same mask for every evaluation
        return ops.dropout(t, p=0.5)

    check_grad(fixed_mask_dropout, np.random.default_rng(5).standard_normal((3, 4)))


def test_dropout_explicit_seed_has_its_own_reproducible_stream(backend):
    x = T(np.ones(64, np.float32))
    ms.set_seed(1)
    a1, a2 = ops.dropout(x, 0.5, seed=7).asnumpy(), ops.dropout(x, 0.5, seed=7).asnumpy()
    ms.set_seed(1)
    b1 = ops.dropout(x, 0.5, seed=7).asnumpy()
    ops.dropout(x, 0.5)  # draws from the global stream do not disturb seed 7's stream
    b2 = ops.dropout(x, 0.5, seed=7).asnumpy()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5])
def test_dropout_rejects_p_outside_zero_one(backend, p):
    with pytest.raises(ValueError, match=f"'p'.*{p}"):
        ops.dropout(T([1.0]), p=p)


def test_dropout_rejects_bad_argument_types(backend):
    with pytest.raises(TypeError, match="'p'"):
        ops.dropout(T([1.0]), p="0.5")
    with pytest.raises(TypeError, match="'seed'"):
        ops.dropout(T([1.0]), p=0.5, seed=1.5)
    with pytest.raises(ValueError, match="'seed'"):
        ops.dropout(T([1.0]), p=0.5, seed=-1)


def test_dropout_primitive_returns_output_and_mask(backend):
    ms.set_seed(3)
    x = np.random.default_rng(0).uniform(1, 2, (4, 6)).astype(np.float32)
    out, mask = ops.Dropout(keep_prob=0.8)(T(x))
    assert mask.dtype is ms.float32 and mask.shape == x.shape
    m = mask.asnumpy()
    assert set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), x * m / 0.8, rtol=1e-6)
    out, mask = ops.Dropout(keep_prob=1.0)(T(x))
    np.testing.assert_array_equal(mask.asnumpy(), np.ones_like(x))
    np.testing.assert_array_equal(out.asnumpy(), x)


def test_dropout_primitive_gradient_and_seeds(backend):
    x = np.random.default_rng(6).standard_normal((3, 4))
    check_grad(lambda t: ops.Dropout(0.6, Seed0=1, Seed1=2)(t)[0], x)
    first = ops.Dropout(0.5, Seed0=1, Seed1=2)(T(np.ones(32)))[1].asnumpy()
    second = ops.Dropout(0.5, Seed0=1, Seed1=2)(T(np.ones(32)))[1].asnumpy()
    np.testing.assert_array_equal(first, second)  # seeded primitives repeat from their construction


def test_dropout_primitive_validates_keep_prob():
    with pytest.raises(ValueError, match="keep_prob"):
        ops.Dropout(keep_prob=0.0)
    with pytest.raises(ValueError, match="keep_prob"):
        ops.Dropout(keep_prob=1.5)
    with pytest.raises(TypeError, match="keep_prob"):
        ops.Dropout(keep_prob="a")
    assert repr(ops.Dropout(0.8)) == "Prim[Dropout]<keep_prob=0.8, Seed0=0, Seed1=0>"
