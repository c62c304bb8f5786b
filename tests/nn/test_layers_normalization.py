"""nn.BatchNorm1d, nn.BatchNorm2d and nn.LayerNorm: statistics, parameters, gradients, reprs, errors.

Runs on NumPy and on array_api_strict's ``device1``.  The running
statistics, outputs and reprs are checked against numbers printed by
MindSpore 2.10 (CPU) for the same inputs.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from tests.gradcheck import check_grad
from tests.nn.paramgrad import check_param_grad

T = ms.Tensor
X4 = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
X3 = np.random.default_rng(1).standard_normal((5, 2, 3)).astype(np.float32)
GAMMA = np.array([1.0, 2.0, 0.5], np.float32)
BETA = np.array([0.0, 1.0, -1.0], np.float32)


def bn_ref(x, mean, var, gamma, beta, eps=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * gamma.reshape(shape) + beta.reshape(shape)


def batch_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def ln_ref(x, begin, gamma=1.0, beta=0.0, eps=1e-7):
    axes = tuple(range(begin, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


# -- BatchNorm: statistics --------------------------------------------------------------------------------------
def test_batchnorm2d_training_and_running_stats_match_mindspore(backend):
    bn = nn.BatchNorm2d(3, momentum=0.8, gamma_init=T(GAMMA), beta_init=T(BETA)).set_train()
    y = bn(T(X4))
    np.testing.assert_allclose(y.asnumpy()[0, 1], [[-0.79552686, 1.3230686], [3.5482488, 2.7055016]], rtol=1e-5)
    # moving = momentum * moving + (1 - momentum) * batch, with the unbiased batch variance
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [-0.03696039, 0.0449539, 0.03367005], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [0.9728912, 0.95305854, 0.94813585], rtol=1e-6)
    bn(T(X4 * 2 + 1))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.09651092, 0.32587093, 0.29427612], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.4698777, 1.374681, 1.351052], rtol=1e-6)
    bn.set_train(False)
    before = bn.moving_mean.asnumpy().copy()
    y = bn(T(X4))
    np.testing.assert_allclose(y.asnumpy()[0, 0], [[0.02410059, -0.18856631], [0.44862795, 0.00691956]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), before)  # inference changes nothing
    assert bn.moving_mean.dtype is ms.float32


def test_batchnorm_train_and_inference_follow_numpy_reference(backend):
    x = np.random.default_rng(2).standard_normal((6, 3, 4, 5))
    bn = nn.BatchNorm2d(3, momentum=0.7, eps=1e-3, gamma_init=T(GAMMA), beta_init=T(BETA), dtype=ms.float64)
    bn.set_train(True)
    y = bn(T(x))
    axes = batch_axes(x)
    np.testing.assert_allclose(y.asnumpy(), bn_ref(x, x.mean(axes), x.var(axes), GAMMA, BETA, 1e-3), rtol=1e-10)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.3 * x.mean(axes), rtol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.7 + 0.3 * x.var(axes, ddof=1), rtol=1e-12)
    bn.set_train(False)
    mean, var = bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()
    np.testing.assert_allclose(bn(T(x)).asnumpy(), bn_ref(x, mean, var, GAMMA, BETA, 1e-3), rtol=1e-10)


def test_batchnorm1d_takes_2d_and_3d_inputs_like_mindspore(backend):
    bn = nn.BatchNorm1d(2).set_train()
    y = bn(T(X3))
    np.testing.assert_allclose(y.asnumpy()[0], [[0.77257425, 1.2997307, 0.7558004],
                                                [-2.4368405, 1.0967975, 0.36242378]], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [-0.03520675, 0.02198608], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [0.98736846, 0.9418512], rtol=1e-6)
    bn = nn.BatchNorm1d(2).set_train()
    y = bn(T(X3[:, :, 0]))
    np.testing.assert_allclose(y.asnumpy()[:2], [[1.229384, -1.6485703], [0.34711856, 0.78609574]], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [-0.08841788, -0.02215944], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.0250758, 0.95380074], rtol=1e-6)
    bn.set_train(False)
    np.testing.assert_allclose(bn(T(X3[:, :, 0])).asnumpy()[:2], [[0.42865875, -1.3116479],
                                                                 [-0.44301307, 0.32385975]], rtol=1e-5)
    np.testing.assert_allclose(bn(T(X3)).asnumpy()[0], [[0.42865875, 0.8988319, 0.4136981],
                                                       [-1.3116479, 0.94970775, 0.4797445]], rtol=1e-5)


def test_batchnorm_use_batch_statistics_overrides_the_mode(backend):
    always = nn.BatchNorm2d(3, use_batch_statistics=True)  # inference mode, yet batch statistics
    y = always(T(X4))
    np.testing.assert_allclose(always.moving_mean.asnumpy(), [-0.01848019, 0.02247695, 0.01683502], rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy()[0, 0], [[0.3449426, 0.05853651], [0.9166687, 0.3218043]], rtol=1e-5)
    never = nn.BatchNorm2d(3, use_batch_statistics=False, moving_mean_init="ones",
                           moving_var_init=T(np.full(3, 4.0, np.float32))).set_train()
    y = never(T(X4))
    np.testing.assert_array_equal(never.moving_mean.asnumpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(y.asnumpy()[0, 0], [[-0.4371344, -0.5660518], [-0.17978847, -0.4475494]], rtol=1e-5)


def test_batchnorm_float16_input_gives_float16_and_to_float_still_updates_stats():  # array_api_strict has no float16
    bn = nn.BatchNorm2d(3).set_train()
    assert bn(T(X4.astype(np.float16))).dtype is ms.float16
    assert bn.moving_mean.dtype is ms.float32
    half = nn.BatchNorm2d(3).to_float(ms.float16).set_train()
    assert half(T(X4)).dtype is ms.float16
    np.testing.assert_allclose(half.moving_mean.asnumpy(), [-0.01848019, 0.02247695, 0.01683502], rtol=2e-3)
    assert half.moving_mean.dtype is ms.float32


# -- BatchNorm: parameters and repr ------------------------------------------------------------------------------
def test_batchnorm_parameters_are_named_and_flagged_as_in_mindspore():
    bn = nn.BatchNorm2d(3)
    assert [(path, p.name, p.requires_grad) for path, p in bn.parameters_and_names()] == [
        ("moving_mean", "mean", False), ("moving_variance", "variance", False),
        ("gamma", "gamma", True), ("beta", "beta", True)]
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn1 = nn.BatchNorm1d(2, affine=False)

        def construct(self, x):
            return self.bn1(x)

    net = Net()
    assert list(net.parameters_dict()) == ["bn1.moving_mean", "bn1.moving_variance", "bn1.gamma", "bn1.beta"]
    assert net.trainable_params() == []  # affine=False: gamma and beta stay fixed
    assert all(not p.requires_grad for p in net.get_parameters())


def test_batchnorm_initializers_set_the_starting_values(backend):
    bn = nn.BatchNorm1d(3, gamma_init=T(GAMMA), beta_init="ones", moving_mean_init=T(BETA), moving_var_init="zeros")
    np.testing.assert_array_equal(bn.gamma.asnumpy(), GAMMA)
    np.testing.assert_array_equal(bn.beta.asnumpy(), [1, 1, 1])
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), BETA)
    np.testing.assert_array_equal(bn.moving_variance.asnumpy(), [0, 0, 0])


def test_batchnorm_repr_matches_mindspore():
    assert repr(nn.BatchNorm1d(4, eps=1e-3, momentum=0.8)) == (
        "BatchNorm1d(num_features=4, eps=0.001, momentum=0.8, "
        "gamma=Parameter (name=gamma, shape=(4,), dtype=Float32, requires_grad=True), "
        "beta=Parameter (name=beta, shape=(4,), dtype=Float32, requires_grad=True), "
        "moving_mean=Parameter (name=mean, shape=(4,), dtype=Float32, requires_grad=False), "
        "moving_variance=Parameter (name=variance, shape=(4,), dtype=Float32, requires_grad=False))"
    )


# -- BatchNorm: gradients and errors ------------------------------------------------------------------------------
@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_gradients_match_finite_differences(backend, training):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 2, 3))
    bn = nn.BatchNorm2d(3, gamma_init=T(rng.standard_normal(3)), beta_init=T(rng.standard_normal(3)),
                        moving_mean_init=T(rng.standard_normal(3)), moving_var_init=T(rng.uniform(0.5, 2, 3)),
                        eps=1e-3, dtype=ms.float64).set_train(training)
    check_grad(bn, x)
    check_param_grad(bn, [bn.gamma, bn.beta], T(x))


def test_batchnorm1d_gradient_on_3d_input(backend):
    bn = nn.BatchNorm1d(2, dtype=ms.float64).set_train()
    check_grad(bn, np.random.default_rng(4).standard_normal((3, 2, 4)))


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(num_features=2.0), TypeError, "num_features"),
    (dict(num_features=0), ValueError, "num_features"),
    (dict(momentum=1.5), ValueError, "momentum"),
    (dict(momentum="a"), TypeError, "momentum"),
    (dict(eps=0.0), ValueError, "eps"),
    (dict(eps=-1.0), ValueError, "eps"),
    (dict(eps="a"), TypeError, "eps"),
    (dict(affine=1), TypeError, "affine"),
    (dict(use_batch_statistics=1), ValueError, "use_batch_statistics"),
    (dict(data_format="NHWC"), ValueError, "NHWC"),
    (dict(data_format="ABC"), ValueError, "data_format"),
])
def test_batchnorm_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    args = dict(num_features=3)
    args.update(kwargs)
    with pytest.raises(error, match=word):
        nn.BatchNorm2d(**args)


def test_batchnorm_refuses_inputs_of_the_wrong_rank_or_width(backend):
    with pytest.raises(ValueError, match="4 dimensions"):
        nn.BatchNorm2d(3)(T(X4[:, :, 0]))
    with pytest.raises(ValueError, match="2 or 3 dimensions"):
        nn.BatchNorm1d(3)(T(X4))
    with pytest.raises(ValueError, match="num_features"):
        nn.BatchNorm2d(2)(T(X4))


# -- LayerNorm --------------------------------------------------------------------------------------------------------
def test_layernorm_matches_mindspore_values(backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(nn.LayerNorm((4,))(T(x)).asnumpy()[0, 0],
                               [-0.20931038, -1.1239092, 1.6164191, -0.28319943], rtol=1e-5)
    ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1,
                      gamma_init=T(np.arange(12, dtype=np.float32).reshape(3, 4) / 6), beta_init="ones", epsilon=1e-5)
    np.testing.assert_allclose(ln(T(x)).asnumpy()[1, 2], [1.1704744, 3.5455246, 0.27428937, 2.1581428], rtol=1e-5)
    # statistics over axes 1: but parameters over the last axis only
    mixed = nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1)
    np.testing.assert_allclose(mixed(T(x)).asnumpy()[0, 0], [0.14720695, -0.21894516, 0.8781227, 0.11762609],
                               rtol=1e-5)


@pytest.mark.parametrize("shape, normalized, begin, params_axis", [
    ((4, 5), (5,), -1, -1),
    ((2, 3, 4), (3, 4), 1, 1),
    ((2, 3, 4), [4], 1, 2),
    ((2, 3, 4), (3, 4), -2, -2),
])
def test_layernorm_matches_numpy_reference(backend, shape, normalized, begin, params_axis):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    gamma, beta = rng.standard_normal(tuple(normalized)), rng.standard_normal(tuple(normalized))
    ln = nn.LayerNorm(normalized, begin, params_axis, gamma_init=T(gamma), beta_init=T(beta), dtype=ms.float64)
    np.testing.assert_allclose(ln(T(x)).asnumpy(), ln_ref(x, begin % len(shape), gamma, beta), rtol=1e-10)


def test_layernorm_gradients_match_finite_differences(backend):
    rng = np.random.default_rng(6)
    ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, gamma_init=T(rng.standard_normal((3, 4))),
                      beta_init=T(rng.standard_normal((3, 4))), epsilon=1e-5, dtype=ms.float64)
    x = rng.standard_normal((2, 3, 4))
    check_grad(ln, x)
    check_param_grad(ln, [ln.gamma, ln.beta], T(x))


def test_layernorm_parameters_and_repr():
    ln = nn.LayerNorm((2, 3), begin_norm_axis=1, begin_params_axis=1)
    assert [(path, p.shape) for path, p in ln.parameters_and_names()] == [("gamma", (2, 3)), ("beta", (2, 3))]
    # MindSpore 2.10 prints "gammaParameter (...)": cellkit restores the missing '='.
    assert repr(ln) == (
        "LayerNorm(normalized_shape=(2, 3), begin_norm_axis=1, begin_params_axis=1, "
        "gamma=Parameter (name=gamma, shape=(2, 3), dtype=Float32, requires_grad=True), "
        "beta=Parameter (name=beta, shape=(2, 3), dtype=Float32, requires_grad=True))"
    )


def test_layernorm_keeps_float16_inputs_in_float16():  # array_api_strict has no float16
    out = nn.LayerNorm((4,))(T(np.ones((2, 4), np.float16)))
    assert out.dtype is ms.float16


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(normalized_shape=4), TypeError, "normalized_shape"),
    (dict(normalized_shape=()), ValueError, "normalized_shape"),
    (dict(begin_norm_axis=1.0), TypeError, "begin_norm_axis"),
    (dict(begin_params_axis="1"), TypeError, "begin_params_axis"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
])
def test_layernorm_bad_arguments_raise(kwargs, error, word):
    args = dict(normalized_shape=(4,))
    args.update(kwargs)
    with pytest.raises(error, match=word):
        nn.LayerNorm(**args)


def test_layernorm_shape_mismatch_raises_value_error(backend):
    x = T(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="shape"):
        nn.LayerNorm((3,))(x)
    with pytest.raises(ValueError, match="begin_norm_axis"):
        nn.LayerNorm((4,), begin_norm_axis=3)(x)
