"""batch_norm and layer_norm: values, running statistics, gradients, errors, Primitives.

Every test runs on NumPy and on array_api_strict's ``device1``.  The running
statistics and Primitive outputs are checked against numbers printed by
MindSpore 2.10 (CPU).
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad

T = ms.Tensor
RNG = np.random.default_rng(3)
# The input MindSpore was run on: default_rng(0).standard_normal((4, 3, 2, 2)) in float32.
MS_X = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
WEIGHT = np.array([1.0, 2.0, 3.0], np.float32)
BIAS = np.array([0.0, 1.0, -1.0], np.float32)


def bn_ref(x, mean, var, w, b, eps=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)


def ln_ref(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


# -- batch_norm ----------------------------------------------------------------------------------------------
def test_batch_norm_training_updates_running_stats_like_mindspore(backend):
    rm, rv = T(np.zeros(3, np.float32)), T(np.ones(3, np.float32))
    out = ops.batch_norm(T(MS_X), rm, rv, T(WEIGHT), T(BIAS), training=True, momentum=0.1)
    # (1 - momentum) * running + momentum * batch, with the unbiased batch variance.
    np.testing.assert_allclose(rm.asnumpy(), [-0.01848019, 0.02247695, 0.01683502], rtol=1e-5)
    np.testing.assert_allclose(rv.asnumpy(), [0.98644555, 0.97652924, 0.9740679], rtol=1e-6)
    axes = (0, 2, 3)
    expected = bn_ref(MS_X.astype(np.float64), MS_X.mean(axis=axes), MS_X.var(axis=axes), WEIGHT, BIAS)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)
    assert rm.dtype is ms.float32 and rv.dtype is ms.float32


def test_batch_norm_inference_uses_running_stats_and_changes_nothing(backend):
    mean, var = np.array([0.1, -0.2, 0.3], np.float32), np.array([0.5, 1.5, 2.0], np.float32)
    rm, rv = T(mean), T(var)
    out = ops.batch_norm(T(MS_X), rm, rv, T(WEIGHT), T(BIAS))
    np.testing.assert_allclose(out.asnumpy(), bn_ref(MS_X, mean, var, WEIGHT, BIAS), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(rm.asnumpy(), mean)
    np.testing.assert_array_equal(rv.asnumpy(), var)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 5), (2, 3, 2, 2, 2)])
def test_batch_norm_handles_2d_3d_and_5d_inputs(backend, shape):
    x = RNG.standard_normal(shape)
    rm, rv = T(np.zeros(3)), T(np.ones(3))
    out = ops.batch_norm(T(x), rm, rv, T(np.ones(3)), T(np.zeros(3)), training=True, momentum=0.3, eps=1e-3)
    axes = (0,) + tuple(range(2, len(shape)))
    np.testing.assert_allclose(out.asnumpy(), bn_ref(x, x.mean(axis=axes), x.var(axis=axes), np.ones(3),
                                                     np.zeros(3), 1e-3), rtol=1e-10)
    np.testing.assert_allclose(rm.asnumpy(), 0.3 * x.mean(axis=axes), rtol=1e-12)
    np.testing.assert_allclose(rv.asnumpy(), 0.7 + 0.3 * x.var(axis=axes, ddof=1), rtol=1e-12)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradients_match_finite_differences(backend, training):
    x, w, b = RNG.standard_normal((4, 3, 2, 3)), RNG.standard_normal(3), RNG.standard_normal(3)
    mean, var = RNG.standard_normal(3), RNG.uniform(0.5, 2.0, 3)

    def f(a, weight, bias):
        # fresh running statistics each call: the in-place update must not leak between evaluations
        return ops.batch_norm(a, T(mean), T(var), weight, bias, training=training, eps=1e-3)

    check_grad(f, x, w, b)


def test_batch_norm_inference_gradient_reaches_running_stats(backend):
    x, w, b = RNG.standard_normal((3, 2, 2)), RNG.standard_normal(2), RNG.standard_normal(2)
    check_grad(lambda a, m, v: ops.batch_norm(a, m, v, T(w), T(b)), x, RNG.standard_normal(2),
               RNG.uniform(0.5, 2.0, 2))


def test_batch_norm_without_affine_parameters(backend):
    x = RNG.standard_normal((6, 2))
    out = ops.batch_norm(T(x), T(np.zeros(2)), T(np.ones(2)), None, None, training=True)
    np.testing.assert_allclose(out.asnumpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-10)
    check_grad(lambda a: ops.batch_norm(a, None, None, None, None, training=True), x)


def test_batch_norm_running_update_is_not_recorded(backend):
    rm, rv = T(np.zeros(2)), T(np.ones(2))
    x = T(RNG.standard_normal((5, 2)))
    g = ms.grad(lambda a: (ops.batch_norm(a, rm, rv, T(np.ones(2)), T(np.zeros(2)), training=True) ** 2).sum())(x)
    assert rm._node is None and rv._node is None
    assert not np.allclose(rm.asnumpy(), 0)
    assert g.shape == (5, 2)


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(momentum=1.5), ValueError, "momentum"),
    (dict(momentum="a"), TypeError, "momentum"),
    (dict(eps=-1.0), ValueError, "eps"),
    (dict(eps=0.0), ValueError, "eps"),
    (dict(training=1), TypeError, "training"),
])
def test_batch_norm_rejects_bad_hyperparameters(backend, kwargs, exc, word):
    with pytest.raises(exc, match=word):
        ops.batch_norm(T(MS_X), T(np.zeros(3)), T(np.ones(3)), T(WEIGHT), T(BIAS), **kwargs)


def test_batch_norm_rejects_bad_shapes(backend):
    ones = T(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="weight"):
        ops.batch_norm(T(MS_X), ones, ones, T(np.ones(4, np.float32)), ones)
    with pytest.raises(ValueError, match="running_mean"):
        ops.batch_norm(T(MS_X), T(np.ones(2, np.float32)), ones, ones, ones)
    with pytest.raises(ValueError, match="input_x"):
        ops.batch_norm(T(np.ones(3, np.float32)), ones, ones, ones, ones)
    with pytest.raises(ValueError, match="more than one value"):
        ops.batch_norm(T(np.ones((1, 3), np.float32)), ones, ones, ones, ones, training=True)
    with pytest.raises(ValueError, match="running_var"):
        ops.batch_norm(T(MS_X), ones, None, ones, ones)
    with pytest.raises(TypeError, match="running_mean"):
        ops.batch_norm(T(MS_X), [0.0, 0.0, 0.0], ones, ones, ones)


def test_batch_norm_primitive_returns_five_tensors_like_mindspore(backend):
    rm, rv = T(np.zeros(3, np.float32)), T(np.ones(3, np.float32))
    bn = ops.BatchNorm(is_training=True, momentum=0.1)
    y, batch_mean, batch_var, reserve_1, reserve_2 = bn(T(MS_X), T(WEIGHT), T(BIAS), rm, rv)
    assert y.shape == MS_X.shape
    np.testing.assert_allclose(batch_mean.asnumpy(), [-0.1848019, 0.2247695, 0.16835022], rtol=1e-5)
    np.testing.assert_allclose(batch_var.asnumpy(), [0.8104273, 0.7174618, 0.6943867], rtol=1e-5)
    np.testing.assert_array_equal(reserve_1.asnumpy(), batch_mean.asnumpy())
    np.testing.assert_array_equal(reserve_2.asnumpy(), batch_var.asnumpy())
    np.testing.assert_allclose(rv.asnumpy(), [0.98644555, 0.97652924, 0.9740679], rtol=1e-6)
    outs = ops.BatchNorm()(T(MS_X), T(WEIGHT), T(BIAS), rm, rv)
    assert len(outs) == 5 and all(o.shape == (3,) and not o.asnumpy().any() for o in outs[1:])
    assert bn.momentum == 0.1 and bn.epsilon == 1e-5 and bn.is_training is True
    with pytest.raises(ValueError, match="momentum"):
        ops.BatchNorm(momentum=2.0)


# -- layer_norm ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, normalized", [((4, 5), 5), ((2, 3, 4), (3, 4)), ((2, 3, 4), [4]), ((6,), (6,))])
def test_layer_norm_matches_reference(backend, shape, normalized):
    x = RNG.standard_normal(shape)
    k = 1 if isinstance(normalized, int) else len(normalized)
    w, b = RNG.standard_normal(shape[-k:]), RNG.standard_normal(shape[-k:])
    np.testing.assert_allclose(ops.layer_norm(T(x), normalized).asnumpy(), ln_ref(x, k), rtol=1e-10, atol=1e-12)
    out = ops.layer_norm(T(x), normalized, T(w), T(b), eps=1e-3)
    np.testing.assert_allclose(out.asnumpy(), ln_ref(x, k, w, b, 1e-3), rtol=1e-10, atol=1e-12)
    check_grad(lambda a, c, d: ops.layer_norm(a, normalized, c, d, eps=1e-3), x, w, b)
    check_grad(lambda a: ops.layer_norm(a, normalized), x)


def test_layer_norm_float32_values(backend):
    out = ops.layer_norm(T(MS_X), (2, 2))
    assert out.dtype is ms.float32
    np.testing.assert_allclose(out.asnumpy(), ln_ref(MS_X.astype(np.float64), 2), rtol=1e-4, atol=1e-5)


def test_layer_norm_rejects_bad_shapes(backend):
    x = T(MS_X)
    with pytest.raises(ValueError, match="normalized_shape"):
        ops.layer_norm(x, (3,))
    with pytest.raises(ValueError, match="normalized_shape"):
        ops.layer_norm(x, (1, 4, 3, 2, 2))
    with pytest.raises(TypeError, match="normalized_shape"):
        ops.layer_norm(x, 2.0)
    with pytest.raises(ValueError, match="weight"):
        ops.layer_norm(x, (2, 2), T(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="bias"):
        ops.layer_norm(x, (2, 2), None, T(np.ones(3, np.float32)))


def test_layer_norm_primitive_returns_mean_and_variance_like_mindspore(backend):
    y, mean, var = ops.LayerNorm()(T(MS_X), T(np.ones((3, 2, 2), np.float32)), T(np.zeros((3, 2, 2), np.float32)))
    assert y.shape == MS_X.shape and mean.shape == (4, 1, 1, 1) and var.shape == (4, 1, 1, 1)
    np.testing.assert_allclose(mean.asnumpy().ravel(), [0.0220708, -0.25034767, -0.09770119, 0.6037351], rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy().ravel(), [0.49586204, 0.9076987, 0.3270197, 0.94593775], rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), ln_ref(MS_X.astype(np.float64), 3, eps=1e-7), rtol=1e-4, atol=1e-5)
    outs = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)(T(MS_X), T(np.ones(2, np.float32)),
                                                                 T(np.zeros(2, np.float32)))
    assert [o.shape for o in outs] == [(4, 3, 2, 2), (4, 3, 2, 1), (4, 3, 2, 1)]
    outs = ops.LayerNorm(begin_norm_axis=2, begin_params_axis=3)(T(MS_X), T(np.ones(2, np.float32)),
                                                                T(np.zeros(2, np.float32)))
    assert [o.shape for o in outs] == [(4, 3, 2, 2), (4, 3, 1, 1), (4, 3, 1, 1)]


def test_layer_norm_primitive_gradients(backend):
    x, g, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal(4), RNG.standard_normal(4)
    check_grad(lambda a, c, d: ops.LayerNorm(1, 2, 1e-5)(a, c, d)[0], x, g, b)
    assert ops.LayerNorm().epsilon == 1e-7
