"""Activation functions: values, dtypes, gradients (finite differences), errors, Primitives.

Every test takes the ``backend`` fixture, so it runs on NumPy and on
array_api_strict's ``device1``.  Expected values come from NumPy references
written here and from numbers printed by MindSpore 2.10 (CPU).
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import cellkit as ms
from cellkit import ops
from cellkit.ops import activation as act
from tests.gradcheck import check_grad

T = ms.Tensor
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

_erf = np.vectorize(math.erf)


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _softplus(v, beta=1.0, threshold=20.0):
    return np.where(v * beta > threshold, v, np.log1p(np.exp(np.minimum(v * beta, threshold))) / beta)


def _softmax(v, axis=-1):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# name -> (function, NumPy reference, points where the derivative jumps)
CASES = {
    "relu": (ops.relu, lambda v: np.maximum(v, 0), (0.0,)),
    "relu6": (ops.relu6, lambda v: np.clip(v, 0, 6), (0.0, 6.0)),
    "leaky_relu": (lambda t: ops.leaky_relu(t, 0.1), lambda v: np.where(v >= 0, v, 0.1 * v), (0.0,)),
    "elu": (lambda t: ops.elu(t, 0.7), lambda v: np.where(v > 0, v, 0.7 * np.expm1(np.minimum(v, 0))), (0.0,)),
    "sigmoid": (ops.sigmoid, _sig, ()),
    "tanh": (ops.tanh, np.tanh, ()),
    "gelu": (ops.gelu, lambda v: 0.5 * v * (1 + _erf(v / math.sqrt(2))), ()),
    "gelu_tanh": (lambda t: ops.gelu(t, approximate="tanh"),
                  lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))), ()),
    "fast_gelu": (ops.fast_gelu, lambda v: v * _sig(1.702 * v), ()),
    "silu": (ops.silu, lambda v: v * _sig(v), ()),
    "softplus": (lambda t: ops.softplus(t, 2, 3), lambda v: _softplus(v, 2, 3), (1.5,)),
    "hardswish": (ops.hardswish, lambda v: v * np.clip(v + 3, 0, 6) / 6, (-3.0, 3.0)),
    "hardsigmoid": (ops.hardsigmoid, lambda v: np.clip(v + 3, 0, 6) / 6, (-3.0, 3.0)),
    "mish": (ops.mish, lambda v: v * np.tanh(np.log1p(np.exp(v))), ()),
    "softmax": (lambda t: ops.softmax(t, axis=-1), _softmax, ()),
    "log_softmax": (lambda t: ops.log_softmax(t, -1), lambda v: np.log(_softmax(v)), ()),
}
VALUES = np.array([[-7.0, -3.5, -1.0, -0.25, 0.3, 1.0, 2.5, 4.0, 8.0]], dtype=np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_forward_matches_numpy_reference(backend, name):
    fn, ref, _ = CASES[name]
    out = fn(T(VALUES))
    assert out.dtype is ms.float32 and out.shape == VALUES.shape
    np.testing.assert_allclose(out.asnumpy(), ref(VALUES.astype(np.float64)), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_float64_stays_float64_and_is_precise(backend, name):
    fn, ref, _ = CASES[name]
    data = VALUES.astype(np.float64) * 0.9
    out = fn(T(data))
    assert out.dtype is ms.float64
    np.testing.assert_allclose(out.asnumpy(), ref(data), rtol=1e-12, atol=1e-14)


def _away_from(points, margin=1e-3):
    def ok(array):
        return all(np.all(np.abs(array - p) > margin) for p in points)
    return ok


@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_activation_gradient_matches_finite_differences(backend, name, data):
    fn, _, kinks = CASES[name]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), label="shape")
    values = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-5, 5, allow_nan=False)), label="x")
    if not _away_from(kinks)(values):
        values = values + 2.5e-3  # nudge off the kink: the derivative is one-sided there
    if not _away_from(kinks)(values):
        return
    check_grad(fn, values)


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_records_nothing_outside_a_gradient_transform(backend, name):
    out = CASES[name][0](T(VALUES))
    assert out._node is None


# -- values observed in MindSpore 2.10 ---------------------------------------------------------
MS_INPUT = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 25.0], np.float32)


@pytest.mark.parametrize("fn, expected", [
    (ops.gelu, [-4.0496886e-03, -1.5865526e-01, -1.5426877e-01, 0.0, 3.4573123e-01, 8.4134471e-01,
                2.9959502e+00, 2.5e+01]),
    (lambda t: ops.gelu(t, approximate="tanh"),
     [-3.6374331e-03, -1.5880799e-01, -1.5428600e-01, 0.0, 3.4571400e-01, 8.4119201e-01, 2.9963627e+00, 2.5e+01]),
    (ops.GeLU(), [-3.6374331e-03, -1.5880799e-01, -1.5428600e-01, 0.0, 3.4571400e-01, 8.4119201e-01,
                  2.9963627e+00, 2.5e+01]),
    (ops.FastGeLU(), [-1.8071311e-02, -1.5420423e-01, -1.4961156e-01, 0.0, 3.5038844e-01, 8.4579575e-01,
                      2.9819288e+00, 2.5e+01]),
    (ops.softplus, [0.04858733, 0.3132612, 0.47407684, 0.693147, 0.97407687, 1.313261, 3.048587, 25.0]),
    (lambda t: ops.softplus(t, 2, 1), [1.237826e-03, 6.346397e-02, 1.566306e-01, 3.465735e-01, 6.566305e-01,
                                       1.0, 3.0, 25.0]),
    (ops.hardswish, [0.0, -0.33333334, -0.20833333, 0.0, 0.29166666, 0.6666667, 3.0, 25.0]),
    (ops.hardsigmoid, [0.0, 0.33333334, 0.41666666, 0.5, 0.5833333, 0.6666667, 1.0, 1.0]),
    (ops.leaky_relu, [-0.6, -0.2, -0.1, 0.0, 0.5, 1.0, 3.0, 25.0]),
    (ops.elu, [-0.95021296, -0.6321212, -0.3934695, 0.0, 0.5, 1.0, 3.0, 25.0]),
    (ops.mish, [-0.14564738, -0.30340102, -0.22074372, 0.0, 0.3752452, 0.86509824, 2.986535, 25.0]),
    (ops.log_softmax, [-28.0, -26.0, -25.5, -25.0, -24.5, -24.0, -22.0, 0.0]),
])
def test_activation_values_match_mindspore(backend, fn, expected):
    # Within float32 rounding of MindSpore's kernels (its tanh-GELU loses digits for negative inputs).
    np.testing.assert_allclose(fn(T(MS_INPUT)).asnumpy(), np.array(expected, np.float32), rtol=3e-5, atol=2e-7)


@pytest.mark.parametrize("fn, point, expected", [
    (ops.relu, [0.0, 1.0], [0.0, 1.0]),
    (ops.relu6, [-1.0, 0.0, 6.0, 7.0], [0.0, 0.0, 1.0, 0.0]),
    (ops.hardswish, [-3.0, 3.0, 0.0, -4.0, 4.0], [-0.5, 1.5, 0.5, 0.0, 1.0]),
    (ops.hardsigmoid, [-3.0, 3.0, 0.0, -4.0, 4.0], [0.0, 0.0, 1 / 6, 0.0, 0.0]),
    (lambda t: ops.softplus(t, 1, 2), [-1.0, 0.0, 2.0, 2.5], [0.26894155, 0.5, 0.88079715, 1.0]),
])
def test_activation_gradient_at_kinks_follows_mindspore(backend, fn, point, expected):
    g = ms.grad(lambda t: fn(t).sum())(T(point))
    np.testing.assert_allclose(g.asnumpy(), expected, rtol=1e-6)


# -- erf -------------------------------------------------------------------------------------------
def test_activation_erf_is_accurate_in_float64(backend):
    xs = np.concatenate([np.linspace(-7, 7, 4001), [0.0, 1e-9, -1e-9, 1.999999, 2.0, 2.000001, 12.5, 40.0, -40.0]])
    got = backend.to_host(act._erf(backend.from_host(xs)))
    expected = _erf(xs)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-300)


def test_activation_erf_is_accurate_in_float32(backend):
    xs = np.linspace(-6, 6, 2001).astype(np.float32)
    got = backend.to_host(act._erf(backend.from_host(xs)))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _erf(xs.astype(np.float64)), atol=3e-7)


def test_activation_gelu_keeps_relative_precision_far_in_the_negative_tail(backend):
    x = np.array([-8.0, -12.0, -16.0])
    expected = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(ops.gelu(T(x)).asnumpy(), expected, rtol=1e-10)


# -- dtypes, special values ---------------------------------------------------------------------------
def test_activation_relu_keeps_integer_dtype(backend):
    out = ops.relu(T([-2, 0, 3]))
    assert out.dtype is ms.int64
    assert out.asnumpy().tolist() == [0, 0, 3]


def test_activation_float_functions_cast_integers_to_float32(backend):
    for fn in (ops.sigmoid, ops.tanh, ops.gelu, ops.softmax, ops.silu, ops.relu6):
        assert fn(T([-2, 0, 3])).dtype is ms.float32


def test_activation_half_precision_stays_half(backend):
    if not hasattr(backend.xp, "float16"):
        pytest.skip(f"{backend.name} has no float16")
    x = T(np.array([-1.0, 0.5, 2.0], np.float16))
    for fn in (ops.gelu, ops.sigmoid, ops.softmax, ops.tanh):
        out = fn(x)
        assert out.dtype is ms.float16
    np.testing.assert_allclose(ops.gelu(x).asnumpy(), [-0.1587, 0.3457, 1.954], rtol=2e-3)


def test_activation_sigmoid_and_softmax_do_not_overflow(backend):
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        s = ops.sigmoid(T([-1000.0, 1000.0])).asnumpy()
        p = ops.softmax(T([1000.0, 0.0, -1000.0])).asnumpy()
        sp = ops.softplus(T([-1000.0, 1000.0])).asnumpy()
    np.testing.assert_allclose(s, [0.0, 1.0])
    np.testing.assert_allclose(p, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(sp, [0.0, 1000.0])


def test_activation_relu_inplace_replaces_the_input_values(backend):
    x = T([-1.0, 2.0])
    out = ops.relu(x, inplace=True)
    assert out is x
    assert x.asnumpy().tolist() == [0.0, 2.0]


# -- softmax ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_activation_softmax_along_any_axis(backend, axis):
    data = np.random.default_rng(1).standard_normal((2, 3, 4))
    np.testing.assert_allclose(ops.softmax(T(data), axis).asnumpy(), _softmax(data, axis), rtol=1e-12)
    np.testing.assert_allclose(ops.log_softmax(T(data), axis).asnumpy(), np.log(_softmax(data, axis)), rtol=1e-12)
    check_grad(lambda t: ops.softmax(t, axis), data)
    check_grad(lambda t: ops.log_softmax(t, axis), data)


def test_activation_softmax_dtype_argument_casts_first(backend):
    out = ops.softmax(T([1.0, 2.0]), dtype=ms.float64)
    assert out.dtype is ms.float64
    g = ms.grad(lambda t: (ops.softmax(t, dtype=ms.float64) * T(np.array([1.0, 0.0]))).sum())(T([1.0, 2.0]))
    assert g.dtype is ms.float32


def test_activation_softmax_primitive_accepts_a_tuple_of_axes(backend):
    data = np.random.default_rng(2).standard_normal((2, 3, 4))
    out = ops.Softmax(axis=(1, 2))(T(data)).asnumpy()
    flat = _softmax(data.reshape(2, 12)).reshape(2, 3, 4)
    np.testing.assert_allclose(out, flat, rtol=1e-12)
    check_grad(lambda t: ops.Softmax(axis=(0, 2))(t), data)


def test_activation_softmax_of_a_scalar_is_one(backend):
    assert ops.softmax(T(3.0)).asnumpy() == 1.0


# -- errors ---------------------------------------------------------------------------------------------
def test_activation_softmax_rejects_bad_axis(backend):
    with pytest.raises(ValueError, match="axis"):
        ops.softmax(T([1.0, 2.0]), axis=2)
    with pytest.raises(TypeError, match="axis"):
        ops.softmax(T([1.0, 2.0]), axis=1.0)
    with pytest.raises(TypeError, match="axis"):
        ops.softmax(T([1.0, 2.0]), axis=(0,))
    with pytest.raises(ValueError, match="axis"):
        ops.log_softmax(T([1.0, 2.0]), 3)
    with pytest.raises(TypeError, match="dtype"):
        ops.softmax(T([1.0, 2.0]), dtype=ms.int32)


def test_activation_gelu_rejects_unknown_approximation(backend):
    with pytest.raises(ValueError, match="approximate.*'fast'"):
        ops.gelu(T([1.0]), approximate="fast")


def test_activation_rejects_non_tensor_inputs_and_bad_parameters(backend):
    with pytest.raises(TypeError, match="input"):
        ops.sigmoid("abc")
    with pytest.raises(TypeError, match="alpha"):
        ops.leaky_relu(T([1.0]), alpha="x")
    with pytest.raises(ValueError, match="beta"):
        ops.softplus(T([1.0]), beta=0)
    with pytest.raises(TypeError, match="inplace"):
        ops.relu([1.0, -1.0], inplace=True)


# -- Primitives -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("prim, fn", [
    (ops.ReLU(), ops.relu), (ops.ReLU6(), ops.relu6), (ops.Sigmoid(), ops.sigmoid), (ops.Tanh(), ops.tanh),
    (ops.SiLU(), ops.silu), (ops.HSwish(), ops.hardswish), (ops.HSigmoid(), ops.hardsigmoid),
    (ops.Softplus(), ops.softplus), (ops.Mish(), ops.mish), (ops.FastGeLU(), ops.fast_gelu),
    (ops.Elu(), ops.elu), (ops.Softmax(), ops.softmax), (ops.LogSoftmax(), ops.log_softmax),
], ids=lambda v: type(v).__name__ if isinstance(v, ops.Primitive) else "fn")
def test_activation_primitives_call_their_functional_op(backend, prim, fn):
    np.testing.assert_array_equal(prim(T(VALUES)).asnumpy(), fn(T(VALUES)).asnumpy())


def test_activation_primitives_record_their_arguments():
    assert repr(ops.ReLU()) == "Prim[ReLU]"
    assert ops.Softmax(axis=0).axis == 0
    assert repr(ops.LogSoftmax(axis=1)) == "Prim[LogSoftmax]<axis=1>"
    assert ops.Elu(alpha=1.0).attrs == {"alpha": 1.0}
    with pytest.raises(TypeError, match="axis"):
        ops.Softmax(axis=1.5)


def test_gelu_in_cache_sized_slices_matches_one_piece(monkeypatch):
    from cellkit.ops import activation
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 1000)) * 4
    x = ms.Tensor(a)
    sliced_out = activation.gelu(x).asnumpy()
    sliced_grad = ms.grad(lambda t: (activation.gelu(t) * 3).sum())(x).asnumpy()
    monkeypatch.setattr(activation, "_CHUNK", 10**9)  # one piece
    np.testing.assert_array_equal(sliced_out, activation.gelu(x).asnumpy())
    np.testing.assert_array_equal(sliced_grad, ms.grad(lambda t: (activation.gelu(t) * 3).sum())(x).asnumpy())
