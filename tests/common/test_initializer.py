"""initializer() and the Initializer classes: aliases, errors, fans, statistics, seeding.

Aliases, error cases and distribution shapes were checked against MindSpore 2.10.
"""
import math

import numpy as np
import pytest

import cellkit as ms
from cellkit import Parameter, Tensor
from cellkit.common import initializer as init_mod
from cellkit.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity, Initializer, Normal,
                                        One, Orthogonal, Sparse, TruncatedNormal, Uniform, VarianceScaling,
                                        XavierNormal, XavierUniform, Zero, initializer)

N = 200_000  # large draws: sample statistics within ~1%


def _draw(init, shape, dtype=ms.float64, seed=0):
    ms.set_seed(seed)
    return initializer(init, shape, dtype).init_data().asnumpy()


# ------------------------------------------------------------- the lazy Tensor
def test_initializer_returns_a_lazy_tensor():
    t = initializer("ones", (2, 3), ms.float32)
    assert type(t) is Tensor
    assert t.has_init and t.shape == (2, 3) and t.dtype is ms.float32
    assert t.init_data() is t
    assert not t.has_init
    assert t.asnumpy().tolist() == [[1.0] * 3] * 2


def test_initializer_default_dtype_is_float32():
    assert initializer("zeros", (2,)).dtype is ms.float32


def test_initializer_shape_forms():
    assert initializer("ones", 3).shape == (3,)
    assert initializer("ones", [2, 3]).shape == (2, 3)
    assert initializer("ones", (np.int64(2),)).shape == (2,)
    scalar = initializer("ones", (), ms.float32).init_data()
    assert scalar.shape == () and scalar.item() == 1.0


@pytest.mark.parametrize("shape", [(2, 0), (2, -1), (2.0,), (True, 2)])
def test_initializer_refuses_non_positive_or_non_int_dims(shape):
    with pytest.raises(ValueError, match="'shape'"):
        initializer("ones", shape)


def test_initializer_needs_a_shape():
    with pytest.raises(ValueError, match="'shape'"):
        initializer("ones")
    with pytest.raises(TypeError, match="'shape'"):
        initializer("ones", "2x3")


@pytest.mark.parametrize("bad", [None, [1.0, 2.0], {"a": 1}, object()])
def test_initializer_refuses_unsupported_init_types(bad):
    with pytest.raises(TypeError, match="'init'"):
        initializer(bad, (2,))


def test_initializer_refuses_a_bad_dtype():
    with pytest.raises(TypeError, match="dtype"):
        initializer("ones", (2,), "not-a-dtype")


def test_lazy_tensor_via_tensor_init_argument():
    t = Tensor(shape=(2,), dtype=ms.float32, init=One())
    assert t.has_init
    assert t.init_data().asnumpy().tolist() == [1.0, 1.0]


# -------------------------------------------------------------------- aliases
@pytest.mark.parametrize("name, cls", [
    ("zeros", Zero), ("zero", Zero), ("ones", One), ("one", One), ("normal", Normal), ("uniform", Uniform),
    ("truncatedNormal", TruncatedNormal), ("truncatednormal", TruncatedNormal),
    ("he_uniform", HeUniform), ("heuniform", HeUniform), ("HeUniform", HeUniform),
    ("he_normal", HeNormal), ("henormal", HeNormal),
    ("xavier_uniform", XavierUniform), ("xavieruniform", XavierUniform), ("XAVIER_UNIFORM", XavierUniform),
    ("xavier_normal", XavierNormal), ("xaviernormal", XavierNormal),
    ("identity", Identity), ("orthogonal", Orthogonal), ("dirac", Dirac), ("NORMAL", Normal),
])
def test_initializer_alias_table(name, cls):
    assert init_mod._ALIASES[name.lower()] is cls
    t = initializer(name, (4, 4, 3)) if cls is Dirac else initializer(name, (4, 4))
    assert type(t._lazy[2]) is cls


def test_initializer_alias_table_is_exactly_mindspores():
    assert set(init_mod._ALIASES) == {
        "zero", "zeros", "one", "ones", "xaviernormal", "xavier_normal", "xavieruniform", "xavier_uniform",
        "heuniform", "he_uniform", "henormal", "he_normal", "identity", "sparse", "dirac", "orthogonal",
        "variancescaling", "uniform", "normal", "truncatednormal",
    }


@pytest.mark.parametrize("name", ["bogus", "truncated_normal", "constant"])
def test_initializer_unknown_name(name):
    with pytest.raises(ValueError, match=f"the class corresponding to '{name}' was not found"):
        initializer(name, (2,))


def test_initializer_name_needing_arguments_raises_type_error():
    with pytest.raises(TypeError, match="sparsity"):
        initializer("sparse", (2, 2))


# ------------------------------------------------------ numbers, Tensors, arrays
def test_initializer_number_is_a_constant():
    assert initializer(5, (2,), ms.float32).init_data().asnumpy().tolist() == [5.0, 5.0]
    assert initializer(2.5, (2,), ms.int32).init_data().asnumpy().tolist() == [2, 2]
    assert initializer(True, (2,), ms.float32).init_data().asnumpy().tolist() == [1.0, 1.0]
    assert type(initializer(5, (2,))._lazy[2]) is Constant


def test_initializer_tensor_is_returned_as_it_is():
    t = Tensor([1, 2])
    assert initializer(t, (2,), ms.float32) is t
    assert initializer(t) is t
    assert initializer(t, 2) is t
    assert t.dtype is ms.int64  # dtype is not applied to a Tensor, as in MindSpore
    with pytest.raises(ValueError, match=r"'init' shape \[2\].*\(3,\)"):
        initializer(t, (3,))


def test_initializer_numpy_array_becomes_a_tensor_of_dtype():
    t = initializer(np.array([[1.0, 2.0]]), (1, 2), ms.float16)
    assert type(t) is Tensor and not t.has_init and t.dtype is ms.float16
    assert t.asnumpy().tolist() == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="shape"):
        initializer(np.zeros(3), (2,))


# ---------------------------------------------------------- Initializer objects
def test_initializer_call_fills_a_numpy_array_in_place():
    arr = np.zeros((2, 3), np.float32)
    assert One()(arr) is None
    assert arr.tolist() == [[1.0] * 3] * 2
    Constant(3)(arr)
    assert (arr == 3).all()
    scalar = np.zeros((), np.float32)
    Constant(4)(scalar)
    assert scalar == 4
    ms.set_seed(0)
    big = np.zeros((100, 100), np.float64)
    Normal(sigma=1.0)(big)
    assert big.dtype == np.float64 and abs(big.std() - 1.0) < 0.03


def test_initializer_call_refuses_non_arrays():
    with pytest.raises(TypeError, match="'arr'"):
        One()([0.0, 0.0])


def test_initializer_subclass_works_through_initializer():
    class Twos(Initializer):
        def _initialize(self, arr):
            arr.fill(2)

    assert initializer(Twos(), (2,), ms.int32).init_data().asnumpy().tolist() == [2, 2]
    with pytest.raises(NotImplementedError):
        Initializer()(np.zeros(2))


def test_initializer_repr_and_arguments():
    n = Normal(sigma=0.02)
    assert repr(n) == "Normal(sigma=0.02, mean=0.0)"
    assert (n.sigma, n.mean) == (0.02, 0.0)
    assert n._kwargs == {"sigma": 0.02, "mean": 0.0}
    assert repr(HeUniform()) == "HeUniform(negative_slope=0, mode='fan_in', nonlinearity='leaky_relu')"
    t = TruncatedNormal()
    assert (t.sigma, t.mean, t.a, t.b) == (0.01, 0.0, -2.0, 2.0)
    assert Uniform().scale == 0.07 and XavierUniform().gain == 1 and Constant(3).value == 3


@pytest.mark.parametrize("dtype, expected", [
    (ms.float16, [1.0, 1.0]), (ms.float64, [1.0, 1.0]), (ms.int32, [1, 1]), (ms.bool_, [True, True]),
    (ms.bfloat16, [1.0, 1.0]), (ms.uint8, [1, 1]),
])
def test_initializer_dtypes(dtype, expected):
    t = initializer("ones", (2,), dtype).init_data()
    assert t.dtype is dtype
    assert t.asnumpy().tolist() == expected


def test_initializer_random_into_int_dtype_truncates():
    values = _draw(Normal(sigma=3.0), (1000,), ms.int32)
    assert values.dtype == np.int32 and values.std() > 1


# ---------------------------------------------------------------- fans, gains
@pytest.mark.parametrize("shape, fans", [
    ((3, 7), (7, 3)),                 # Dense weight: (out, in)
    ((64, 3, 5, 5), (75, 1600)),      # Conv2d weight: (out, in, kh, kw)
    ((8, 4, 3), (12, 24)),
])
def test_initializer_fan_in_and_fan_out(shape, fans):
    assert init_mod._calculate_fan_in_and_fan_out(shape) == fans


def test_initializer_fans_need_two_dimensions():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init_mod._calculate_fan_in_and_fan_out((5,))
    for name in ("xavier_uniform", "xavier_normal", "he_uniform", "he_normal"):
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            initializer(name, (5,))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        XavierUniform()(np.zeros(5))


@pytest.mark.parametrize("nonlinearity, param, gain", [
    ("linear", None, 1), ("conv2d", None, 1), ("sigmoid", None, 1), ("tanh", None, 5 / 3),
    ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0, math.sqrt(2)), ("leaky_relu", math.sqrt(5), math.sqrt(1 / 3)),
])
def test_initializer_gains(nonlinearity, param, gain):
    assert init_mod._calculate_gain(nonlinearity, param) == pytest.approx(gain)


def test_initializer_he_argument_errors():
    with pytest.raises(ValueError, match="'mode'"):
        HeUniform(mode="fan_x")
    with pytest.raises(ValueError, match="'nonlinearity'"):
        HeNormal(nonlinearity="gelu")
    with pytest.raises(ValueError, match="'negative_slope'"):
        HeNormal(negative_slope=True)
    assert HeUniform(mode="FAN_OUT").mode == "fan_out"  # case-insensitive, as in MindSpore
    assert HeUniform(negative_slope=True, nonlinearity="relu").nonlinearity == "relu"  # slope unused


@pytest.mark.parametrize("cls", [Normal, TruncatedNormal])
def test_initializer_negative_sigma(cls):
    with pytest.raises(ValueError, match="'sigma'"):
        cls(sigma=-1.0)


def test_initializer_truncated_normal_needs_ordered_bounds():
    with pytest.raises(ValueError, match="a < b"):
        TruncatedNormal(a=1.0, b=-1.0)


# ---------------------------------------------------------------- statistics
def test_initializer_normal_statistics():
    w = _draw(Normal(sigma=0.5, mean=2.0), (N,))
    assert w.mean() == pytest.approx(2.0, abs=0.01)
    assert w.std() == pytest.approx(0.5, rel=0.01)
    default = _draw("normal", (N,))
    assert default.std() == pytest.approx(0.01, rel=0.01)


def test_initializer_uniform_statistics():
    w = _draw(Uniform(scale=0.3), (N,))
    assert -0.3 <= w.min() < -0.299 and 0.299 < w.max() <= 0.3
    assert w.std() == pytest.approx(0.3 / math.sqrt(3), rel=0.01)
    assert abs(_draw("uniform", (N,))).max() <= 0.07


def test_initializer_truncated_normal_statistics_match_mindspore():
    # Bounds are absolute: MindSpore gives std 0.2842 on [-0.5, 0.5] with sigma 1.
    w = _draw(TruncatedNormal(sigma=1.0, a=-0.5, b=0.5), (N,))
    assert -0.5 <= w.min() and w.max() <= 0.5
    assert w.std() == pytest.approx(0.2842, abs=0.003)
    # ... and mean 1.717 for N(5, 1) restricted to [-2, 2].
    w = _draw(TruncatedNormal(sigma=1.0, mean=5.0, a=-2.0, b=2.0), (N,))
    assert -2 <= w.min() and w.max() <= 2
    assert w.mean() == pytest.approx(1.717, abs=0.01)
    # Window around the mean: symmetric, mean 5.
    w = _draw(TruncatedNormal(sigma=1.0, mean=5.0, a=3.0, b=7.0), (N,))
    assert 3 <= w.min() and w.max() <= 7 and w.mean() == pytest.approx(5.0, abs=0.01)
    # The defaults (sigma 0.01 inside [-2, 2]) do not truncate at all.
    assert _draw("truncatedNormal", (N,)).std() == pytest.approx(0.01, rel=0.01)


def test_initializer_truncated_normal_far_tail_window():
    w = _draw(TruncatedNormal(sigma=1.0, a=40.0, b=41.0), (N,))
    assert 40 <= w.min() and w.max() <= 41
    assert w.mean() == pytest.approx(40 + 1 / 40, abs=0.002)  # exponential tail: mean a + 1/a
    w = _draw(TruncatedNormal(sigma=1.0, a=-9.0, b=-8.0), (N,))
    assert -9 <= w.min() and w.max() <= -8 and np.isfinite(w).all()


def test_initializer_he_uniform_bound_for_a_conv_weight():
    shape = (64, 3, 5, 5)  # fan_in 75
    w = _draw(HeUniform(negative_slope=math.sqrt(5), nonlinearity="leaky_relu"), shape)
    bound = math.sqrt(1 / 3) * math.sqrt(3 / 75)  # = 1 / sqrt(75)
    assert abs(w).max() <= bound and abs(w).max() > 0.99 * bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    w = _draw("he_uniform", (400, 500))  # default gain sqrt(2), fan_in 500
    assert abs(w).max() == pytest.approx(math.sqrt(2) * math.sqrt(3 / 500), rel=0.01)
    w = _draw(HeUniform(mode="fan_out", nonlinearity="relu"), (400, 500))
    assert abs(w).max() == pytest.approx(math.sqrt(2) * math.sqrt(3 / 400), rel=0.01)


def test_initializer_he_normal_std():
    w = _draw(HeNormal(mode="fan_out", nonlinearity="relu"), (500, 400))
    assert w.std() == pytest.approx(math.sqrt(2) / math.sqrt(500), rel=0.01)
    w = _draw("he_normal", (500, 400))
    assert w.std() == pytest.approx(math.sqrt(2) / math.sqrt(400), rel=0.01)
    w = _draw(HeNormal(nonlinearity="tanh"), (100, 20, 3, 3))
    assert w.std() == pytest.approx((5 / 3) / math.sqrt(180), rel=0.02)


def test_initializer_xavier_bounds_and_std():
    w = _draw("xavier_uniform", (400, 600))
    bound = math.sqrt(6 / 1000)
    assert abs(w).max() <= bound and abs(w).max() == pytest.approx(bound, rel=0.01)
    w = _draw(XavierUniform(gain=2), (40, 20, 3, 3))
    bound = 2 * math.sqrt(6 / (180 + 360))
    assert abs(w).max() <= bound and abs(w).max() == pytest.approx(bound, rel=0.01)
    w = _draw(XavierNormal(gain=3), (400, 600))
    assert w.std() == pytest.approx(3 * math.sqrt(2 / 1000), rel=0.01)
    assert _draw("xavier_normal", (400, 600)).std() == pytest.approx(math.sqrt(2 / 1000), rel=0.01)


def test_initializer_identity():
    assert _draw("identity", (2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="2-D"):
        initializer("identity", (2, 3, 4))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)])
def test_initializer_orthogonal(shape):
    w = _draw(Orthogonal(gain=2.0), shape).reshape(shape[0], -1)
    small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(small, 4 * np.eye(small.shape[0]), atol=1e-10)
    with pytest.raises(ValueError, match="at least 2"):
        initializer("orthogonal", (4,))


def test_initializer_dirac_is_an_identity_convolution():
    w = _draw(Dirac(), (2, 2, 3))
    assert w.tolist() == [[[0, 1, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0]]]
    w = _draw(Dirac(groups=2), (4, 2, 3, 3))
    assert w.sum() == 4 and w[2, 0, 1, 1] == 1 and w[3, 1, 1, 1] == 1
    with pytest.raises(ValueError, match="3, 4 or 5"):
        initializer("dirac", (2, 2))
    with pytest.raises(ValueError, match="divisible"):
        initializer(Dirac(groups=2), (3, 2, 3))
    with pytest.raises(ValueError, match="groups"):
        Dirac(groups=0)


def test_initializer_sparse():
    w = _draw(Sparse(sparsity=0.25, sigma=1.0), (8, 50))
    assert ((w == 0).sum(axis=0) == 2).all()
    with pytest.raises(ValueError, match="2-D"):
        initializer(Sparse(0.5), (2, 2, 2))


@pytest.mark.parametrize("mode, n", [("fan_in", 300), ("fan_out", 200), ("fan_avg", 250)])
def test_initializer_variance_scaling_variance(mode, n):
    for distribution in ("uniform", "untruncated_normal", "truncated_normal"):
        w = _draw(VarianceScaling(scale=2.0, mode=mode, distribution=distribution), (200, 300))
        assert w.var() == pytest.approx(2.0 / n, rel=0.03), distribution
    w = _draw(VarianceScaling(mode=mode, distribution="truncated_normal"), (200, 300))
    std = math.sqrt(1.0 / n) / 0.87962566103423978
    assert abs(w).max() <= 2 * std


def test_initializer_variance_scaling_argument_errors():
    with pytest.raises(ValueError, match="'scale'"):
        VarianceScaling(scale=0)
    with pytest.raises(ValueError, match="'mode'"):
        VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match="'distribution'"):
        VarianceScaling(distribution="normal")


# ----------------------------------------------------------- seeds & backends
@pytest.mark.parametrize("name", ["normal", "uniform", "truncatedNormal", "he_uniform", "he_normal",
                                  "xavier_uniform", "xavier_normal", "orthogonal"])
def test_initializer_is_reproducible_under_set_seed(name):
    first = _draw(name, (8, 6), ms.float32, seed=42)
    again = _draw(name, (8, 6), ms.float32, seed=42)
    other = _draw(name, (8, 6), ms.float32, seed=43)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_initializer_parameters_reproducible_under_set_seed():
    ms.set_seed(7)
    a = Parameter(initializer("normal", (3, 4)), name="a").asnumpy()
    ms.set_seed(7)
    b = Parameter(initializer("normal", (3, 4)), name="b").asnumpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("init", ["ones", "normal", "he_uniform", Constant(2.5), TruncatedNormal(sigma=1.0)])
def test_initializer_values_on_every_backend(backend, init):
    ms.set_seed(11)
    t = initializer(init, (4, 5), ms.float32).init_data()
    if backend.device is not None:
        assert t._data.device == backend.device
    with ms.backend.use("numpy"):
        ms.set_seed(11)
        expected = initializer(init, (4, 5), ms.float32).init_data().asnumpy()
    np.testing.assert_array_equal(t.asnumpy(), expected)
    p = Parameter(initializer(init, (4, 5), ms.float32), name="w")
    assert p.shape == (4, 5) and not p.has_init
