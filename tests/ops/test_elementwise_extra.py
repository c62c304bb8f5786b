"""The elementwise family beyond what the op catalogue generates.

- the hand-written MindSpore cases of ``tests/mindspore_cases/ops_elementwise_extra.py``
  (Primitives with no functional twin, Tensor methods with no ``ops`` function) against their
  fixture, and their gradients against finite differences;
- ``fmin`` and ``Tensor.bitwise_not`` (MindSpore 2.10's CPU build has no kernel for them: NumPy decides);
- gradients to third order through the special functions' rule chains;
- every Tensor method the family installs exists and agrees with its function.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

import cellkit as ms
from cellkit import backend as _backend
from cellkit import nn, ops
from tests.gradcheck import check_grad, check_second_order
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "ops_elementwise_extra"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


def T(values, dtype=np.float64):
    return ms.Tensor(np.asarray(values, dtype=dtype))


@pytest.mark.parametrize("name", CASES.names())
def test_elementwise_extra_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name) if RECORDED else None, MODULE, lambda: case(ms, ops, nn, np))


def test_elementwise_extra_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


# -- gradients of the Primitives without a functional twin, to second order ----------------------------------
A = np.array([[0.7, 1.3, -2.1], [1.5, -0.4, 0.9]])
B = np.array([[1.1, -0.6, 0.8], [2.3, 1.7, -1.4]])


@pytest.mark.parametrize("prim", ["DivNoNan", "MulNoNan", "SquaredDifference"])
def test_no_nan_primitives_gradients_match_finite_differences(prim):
    op = getattr(ops, prim)()
    check_grad(op, A, B)
    check_second_order(op, A, B)


def test_betainc_gradient_flows_to_x_only_and_matches_finite_differences():
    a = np.array([0.5, 2.0, 1.5, 3.0])
    b = np.array([1.5, 3.0, 0.5, 2.0])
    x = np.array([0.3, 0.6, 0.2, 0.7])
    check_grad(lambda x_: ops.Betainc()(T(a), T(b), x_), x)
    check_second_order(lambda x_: ops.Betainc()(T(a), T(b), x_), x)
    ga, gb = ms.grad(lambda a_, b_: ops.Betainc()(a_, b_, T(x)).sum(), grad_position=(0, 1))(T(a), T(b))
    assert not ga.asnumpy().any() and not gb.asnumpy().any()


def test_div_no_nan_gives_zero_and_zero_gradient_where_the_divisor_is_zero():
    x, y = T([1.0, 2.0]), T([0.0, 4.0])
    assert ops.DivNoNan()(x, y).asnumpy().tolist() == [0.0, 0.5]
    gx, gy = ms.grad(lambda a, b: ops.DivNoNan()(a, b).sum(), grad_position=(0, 1))(x, y)
    assert gx.asnumpy().tolist() == [0.0, 0.25] and gy.asnumpy().tolist() == [0.0, -0.125]


# -- fmin: no MindSpore CPU kernel, NumPy decides ------------------------------------------------------------
def test_fmin_matches_numpy_and_ignores_nan(backend):
    x = np.array([np.nan, 1.0, np.nan, -2.0], np.float32)
    y = np.array([3.0, np.nan, np.nan, 5.0], np.float32)
    want = np.fmin(x, y)
    for got in (ops.fmin(T(x, np.float32), T(y, np.float32)), ops.Fmin()(T(x, np.float32), T(y, np.float32)),
                T(x, np.float32).fmin(T(y, np.float32))):
        np.testing.assert_array_equal(got.asnumpy(), want)
    assert ops.fmin(T([1, 5], np.int32), T([3, 2], np.int64)).dtype is ms.int64


def test_tensor_bitwise_not_matches_numpy(backend):
    for values, dtype in (([0, 5, -3], np.int32), ([0, 5, 255], np.uint8), ([True, False], np.bool_)):
        got = T(values, dtype).bitwise_not()
        np.testing.assert_array_equal(got.asnumpy(), np.invert(np.array(values, dtype)))
        assert got.asnumpy().dtype == np.dtype(dtype)


def test_fmin_gradient_goes_to_the_smaller_operand():
    check_grad(ops.fmin, A, B)
    check_second_order(ops.fmin, A, B)
    gx, gy = ms.grad(lambda a, b: ops.fmin(a, b).sum(), grad_position=(0, 1))(T([np.nan, 1.0]), T([2.0, 3.0]))
    assert gx.asnumpy().tolist() == [0.0, 1.0] and gy.asnumpy().tolist() == [1.0, 0.0]


# -- higher orders through the special functions' rules -------------------------------------------------------
def _third(fn, x):
    """d^3/dx^3 of sum(fn(x)) by cellkit, three transforms deep."""
    return ms.grad(ms.grad(ms.grad(lambda t: fn(t).sum())))(T(x)).asnumpy()


@pytest.mark.parametrize("fn, third", [
    (ops.lgamma, lambda x: sc.polygamma(2, x)),
    (ops.bessel_i0, lambda x: 0.25 * (3 * sc.i1(x) + sc.iv(3, x))),         # third derivative (3 I1 + I3) / 4
    (ops.bessel_j0, lambda x: 0.25 * (3 * sc.j1(x) - sc.jv(3, x))),         # third derivative (3 J1 - J3) / 4
    (ops.erf, lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x) * (4 * x * x - 2)),
], ids=["lgamma", "bessel_i0", "bessel_j0", "erf"])
def test_special_functions_third_derivatives(fn, third):
    x = np.array([0.6, 1.3, 2.2])
    np.testing.assert_allclose(_third(fn, x), third(x), rtol=1e-7, atol=1e-9)


def test_igamma_shape_derivative_to_third_order_matches_finite_differences():
    x = T([0.8, 1.7, 3.0])

    def second(a):
        return ms.grad(ms.grad(lambda t: ops.igamma(t, x).sum()))(a)

    a = np.array([0.7, 1.4, 2.5])
    eps = 1e-5
    numeric = (second(T(a + eps)).asnumpy() - second(T(a - eps)).asnumpy()) / (2 * eps)
    analytic = ms.grad(lambda t: second(t).sum())(T(a)).asnumpy()
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-8)


def test_special_functions_compute_on_the_strict_device_by_an_explicit_host_copy():
    want = ops.bessel_k1(T([0.5, 2.0])).asnumpy()
    with _backend.use("strict"):
        got = ops.bessel_k1(T([0.5, 2.0]))
        assert "device1" in repr(got._data.device)
        grad = ms.grad(lambda t: ops.bessel_k1(t).sum())(T([0.5, 2.0]))
        got, grad = got.asnumpy(), grad.asnumpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(grad, -sc.k0([0.5, 2.0]) - sc.k1([0.5, 2.0]) / [0.5, 2.0], rtol=1e-12)


# -- Tensor methods -----------------------------------------------------------------------------------------
METHODS = ("absolute acos acosh arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan atan2 atanh "
           "cos cosh sin sinh tan tanh sigmoid erf erfc erfinv expm1 log10 log1p log2 floor ceil round trunc frac "
           "sign sgn signbit reciprocal remainder fmod fmax fmin floor_divide true_divide divide multiply subtract "
           "negative positive logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit xlogy xdivy "
           "hypot heaviside i0 igamma igammac lcm gcd ldexp lerp lgamma mvlgamma nextafter nan_to_num copysign "
           "deg2rad rad2deg digamma bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift "
           "bitwise_right_shift inv invert float_power sinc eq ne ge gt le lt greater greater_equal less less_equal "
           "not_equal isfinite isinf isnan isneginf isposinf isreal isclose allclose approximate_equal").split()


def test_elementwise_tensor_methods_exist():
    missing = [name for name in METHODS if not callable(getattr(ms.Tensor, name, None))]
    assert not missing


def test_tensor_round_takes_decimals_and_tanh_sigmoid_match_ops():
    x = T([0.125, 1.375, -2.5])
    np.testing.assert_array_equal(x.round().asnumpy(), [0.0, 1.0, -2.0])
    np.testing.assert_array_equal(x.round(decimals=1).asnumpy(), np.round([0.125, 1.375, -2.5], 1))
    np.testing.assert_array_equal(x.tanh().asnumpy(), ops.tanh(x).asnumpy())
    np.testing.assert_array_equal(x.sigmoid().asnumpy(), ops.sigmoid(x).asnumpy())
    assert x.allclose(x) is True and x.allclose(x + 1.0) is False
