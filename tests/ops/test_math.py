"""Elementwise math ops: values, dtypes, broadcasting, errors and MindSpore's gradient rules.

Every test takes the ``backend`` fixture, so it runs on NumPy and on
array_api_strict's ``device1`` (which refuses hidden host conversions).
Finite-difference checks of all gradients live in ``test_gradcheck_core.py``.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops

T = ms.Tensor


def host(t):
    return t.asnumpy()


A = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], dtype=np.float32)
B = np.array([1.5, 2.0, -4.0], dtype=np.float32)
POSITIVE = np.array([[0.5, 1.5, 2.0], [3.0, 0.25, 1.0]], dtype=np.float32)


@pytest.mark.parametrize("op, reference", [
    (ops.add, np.add), (ops.sub, np.subtract), (ops.mul, np.multiply), (ops.div, np.divide),
    (ops.maximum, np.maximum), (ops.minimum, np.minimum), (ops.subtract, np.subtract),
    (ops.multiply, np.multiply), (ops.divide, np.divide), (ops.true_divide, np.divide),
    (ops.floor_div, np.floor_divide), (ops.mod, np.mod), (ops.remainder, np.mod),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_math_binary_ops_broadcast_like_numpy(backend, op, reference):
    out = op(T(A), T(B))
    assert out.shape == (2, 3) and out.dtype is ms.float32
    np.testing.assert_allclose(host(out), reference(A, B), rtol=1e-6)
    # and with a Python number on either side
    np.testing.assert_allclose(host(op(T(A), 2.0)), reference(A, np.float32(2.0)), rtol=1e-6)
    np.testing.assert_allclose(host(op(3.0, T(B))), reference(np.float32(3.0), B), rtol=1e-6)


def test_math_pow_with_tensor_and_number_exponents(backend):
    np.testing.assert_allclose(host(ops.pow(T(POSITIVE), T(B))), POSITIVE ** B, rtol=1e-5)
    np.testing.assert_allclose(host(ops.pow(T(POSITIVE), 2)), POSITIVE ** 2, rtol=1e-6)
    np.testing.assert_allclose(host(ops.pow(2.0, T(B))), 2.0 ** B, rtol=1e-6)
    assert ops.pow(T([1, 2, 3]), 2).dtype is ms.int64


@pytest.mark.parametrize("op, reference, data", [
    (ops.neg, np.negative, A), (ops.negative, np.negative, A), (ops.exp, np.exp, A),
    (ops.log, np.log, POSITIVE), (ops.sqrt, np.sqrt, POSITIVE), (ops.abs, np.abs, A),
    (ops.square, np.square, A), (ops.rsqrt, lambda v: 1 / np.sqrt(v), POSITIVE),
    (ops.reciprocal, np.reciprocal, A), (ops.sin, np.sin, A), (ops.cos, np.cos, A),
    (ops.floor, np.floor, A), (ops.ceil, np.ceil, A), (ops.round, np.round, A), (ops.sign, np.sign, A),
    (ops.log1p, np.log1p, POSITIVE), (ops.expm1, np.expm1, A),
], ids=lambda v: getattr(v, "__name__", "data"))
def test_math_unary_ops_match_numpy(backend, op, reference, data):
    out = op(T(data))
    assert out.dtype is ms.float32 and out.shape == data.shape
    np.testing.assert_allclose(host(out), reference(data), rtol=1e-6)


def test_math_unary_float_ops_refuse_integers_as_mindspore(backend):
    # MindSpore 2.10's CPU kernels of these ops take floats only (TypeError for an Int64 tensor) ...
    for op in (ops.exp, ops.log, ops.sin):
        with pytest.raises(TypeError, match="Int64"):
            op(T([1, 2]))
    # ... while its sqrt computes integers in Float32.
    assert ops.sqrt(T([1, 4])).dtype is ms.float32
    # value-preserving ops keep integers
    assert ops.abs(T([-1, 2])).dtype is ms.int64
    assert ops.neg(T([1, 2])).dtype is ms.int64
    assert ops.square(T([3])).dtype is ms.int64


def test_math_float64_stays_float64(backend):
    d = T(np.array([1.0, 4.0]))
    for out in (ops.sqrt(d), d + 1.5, d * d, ops.exp(d), d / 2):
        assert out.dtype is ms.float64


def test_math_int_division_gives_float32(backend):
    out = ops.div(T([1, 2, 3]), T([2, 2, 2]))
    assert out.dtype is ms.float32
    np.testing.assert_allclose(host(out), [0.5, 1.0, 1.5])
    assert ops.div(1, T([2, 4])).dtype is ms.float32


def test_math_div_rounding_modes(backend):
    a, b = T([7.0, -7.0]), T([2.0, 2.0])
    assert host(ops.div(a, b, rounding_mode="floor")).tolist() == [3.0, -4.0]
    assert host(ops.div(a, b, rounding_mode="trunc")).tolist() == [3.0, -3.0]
    out = ops.div(T([7, -7]), T([2, 2]), rounding_mode="trunc")
    assert out.dtype is ms.int64 and host(out).tolist() == [3, -3]
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(a, b, rounding_mode="up")


def test_math_add_spec_example(backend, capsys):
    print(ops.add(T([1, 2, 3], ms.float32), T([4, 5, 6], ms.float32)))
    assert capsys.readouterr().out == "[5. 7. 9.]\n"


def test_math_scalar_keeps_tensor_dtype(backend):
    assert (T([1, 2], ms.int32) + 1).dtype is ms.int32
    assert (T([1.0], ms.float64) * 2.5).dtype is ms.float64
    assert (T([1, 2], ms.int32) * 2.5).dtype is ms.float32
    assert (T([True]) + 1).dtype is ms.int64


def test_math_accepts_lists_numbers_and_numpy_arrays(backend):
    assert host(ops.add([1.0, 2.0], T([1.0, 1.0]))).tolist() == [2.0, 3.0]
    assert host(ops.exp([0.0])).tolist() == [1.0]
    assert host(ops.mul(T([1.0, 2.0]), np.array([2.0, 2.0], dtype=np.float32))).tolist() == [2.0, 4.0]


@pytest.mark.parametrize("op", [ops.add, ops.sub, ops.mul, ops.div, ops.maximum, ops.pow, ops.equal])
def test_math_binary_shape_mismatch_raises_value_error_with_both_shapes(backend, op):
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        op(T(np.ones((2, 3), np.float32)), T(np.ones(4, np.float32)))


@pytest.mark.parametrize("bad", ["a", None, {"x": 1}, object()], ids=["str", "None", "dict", "object"])
def test_math_non_tensor_argument_raises_type_error_naming_it(backend, bad):
    with pytest.raises(TypeError, match="For 'add', the argument 'other'"):
        ops.add(T([1.0]), bad)
    with pytest.raises(TypeError, match="For 'mul', the argument 'input'"):
        ops.mul(bad, T([1.0]))
    with pytest.raises(TypeError, match="For 'exp', the argument 'input'"):
        ops.exp(bad)


@pytest.mark.parametrize("op, expected", [
    (ops.equal, [False, True, False]), (ops.not_equal, [True, False, True]),
    (ops.greater, [False, False, True]), (ops.greater_equal, [False, True, True]),
    (ops.less, [True, False, False]), (ops.less_equal, [True, True, False]),
    (ops.gt, [False, False, True]), (ops.ge, [False, True, True]), (ops.lt, [True, False, False]),
    (ops.le, [True, True, False]), (ops.eq, [False, True, False]), (ops.ne, [True, False, True]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_math_comparisons_give_bool(backend, op, expected):
    out = op(T([1.0, 2.0, 3.0]), T([2, 2, 2]))
    assert out.dtype is ms.bool_
    assert host(out).tolist() == expected
    assert host(op(T([1.0, 2.0, 3.0]), 2)).tolist() == expected


def test_math_logical_ops(backend):
    a, b = T([True, True, False]), T([True, False, False])
    assert host(ops.logical_and(a, b)).tolist() == [True, False, False]
    assert host(ops.logical_or(a, b)).tolist() == [True, True, False]
    assert host(ops.logical_not(a)).tolist() == [False, False, True]
    assert host(ops.logical_and(T([1, 0, 2]), T([1.0, 1.0, 0.0]))).tolist() == [True, False, False]


def test_math_isfinite_isnan(backend):
    x = T([1.0, float("inf"), float("nan")])
    assert host(ops.isfinite(x)).tolist() == [True, False, False]
    assert host(ops.isnan(x)).tolist() == [False, False, True]


def test_math_where_selects_and_routes_gradients(backend):
    cond = T([True, False, True])
    a, b = T([1.0, 2.0, 3.0]), T([10.0, 20.0, 30.0])
    assert host(ops.where(cond, a, b)).tolist() == [1.0, 20.0, 3.0]
    assert host(ops.where(cond, a, 0.0)).tolist() == [1.0, 0.0, 3.0]
    ga, gb = ms.grad(lambda x, y: ops.where(cond, x, y).sum(), (0, 1))(a, b)
    assert host(ga).tolist() == [1.0, 0.0, 1.0] and host(gb).tolist() == [0.0, 1.0, 0.0]


def test_math_clamp_values_and_dtypes(backend):
    x = T([-1.0, 0.5, 2.0])
    assert host(ops.clamp(x, 0, 1)).tolist() == [0.0, 0.5, 1.0]
    assert host(ops.clamp(x, min=0.0)).tolist() == [0.0, 0.5, 2.0]
    assert host(ops.clamp(x, max=0.0)).tolist() == [-1.0, 0.0, 0.0]
    assert host(ops.clip(x, T(0.0), T(1.0))).tolist() == [0.0, 0.5, 1.0]
    ints = ops.clamp(T([1, 2, 3]), 1, 2)
    assert ints.dtype is ms.int64 and host(ints).tolist() == [1, 2, 2]
    floats = ops.clamp(T([1, 2, 3]), 1.5, 2.5)
    assert floats.dtype is ms.float32 and host(floats).tolist() == [1.5, 2.0, 2.5]
    # min above max: everything becomes max, as in MindSpore
    assert host(ops.clamp(x, 1.0, 0.0)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="at least one of 'min' and 'max'"):
        ops.clamp(x)


# -- gradient rules where MindSpore chose a convention ----------------------------------------------
def test_math_clamp_gradient_includes_the_bounds(backend):
    x = T([-1.0, 0.0, 0.5, 1.0, 2.0])
    assert host(ms.grad(lambda t: ops.clamp(t, 0.0, 1.0).sum())(x)).tolist() == [0, 1, 1, 1, 0]
    gx, glo, ghi = ms.grad(lambda t, lo, hi: ops.clamp(t, lo, hi).sum(), (0, 1, 2))(x, T(0.0), T(1.0))
    assert host(gx).tolist() == [0, 1, 1, 1, 0]
    assert glo.shape == () and glo.item() == 1.0 and ghi.item() == 1.0


def test_math_maximum_minimum_split_gradient_on_ties(backend):
    a, b = T([1.0, 3.0]), T([1.0, 2.0])
    ga, gb = ms.grad(lambda x, y: ops.maximum(x, y).sum(), (0, 1))(a, b)
    assert host(ga).tolist() == [0.5, 1.0] and host(gb).tolist() == [0.5, 0.0]
    ga, gb = ms.grad(lambda x, y: ops.minimum(x, y).sum(), (0, 1))(a, b)
    assert host(ga).tolist() == [0.5, 0.0] and host(gb).tolist() == [0.5, 1.0]


def test_math_abs_gradient_is_zero_at_zero(backend):
    assert host(ms.grad(lambda x: ops.abs(x).sum())(T([0.0, -2.0, 3.0]))).tolist() == [0.0, -1.0, 1.0]


def test_math_pow_exponent_gradient_at_zero_and_negative_base(backend):
    gx, gy = ms.grad(lambda x, y: ops.pow(x, y).sum(), (0, 1))(T([0.0, 2.0, -1.0]), T([2.0, 3.0, 2.0]))
    assert host(gx).tolist() == [0.0, 12.0, -2.0]
    got = host(gy)
    assert got[0] == 0.0
    np.testing.assert_allclose(got[1], 8 * np.log(2.0), rtol=1e-6)
    assert np.isnan(got[2])  # x**y is not differentiable in y for x < 0 (MindSpore: NaN too)


def test_math_sqrt_gradient_at_zero_is_inf(backend):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g = host(ms.grad(lambda x: ops.sqrt(x).sum())(T([0.0, 4.0])))
    assert g[0] == np.inf and g[1] == 0.25


def test_math_broadcast_gradient_is_summed_back(backend):
    ga, gb = ms.grad(lambda x, y: (x * y).sum(), (0, 1))(T(A), T(B))
    assert ga.shape == (2, 3) and gb.shape == (3,)
    np.testing.assert_allclose(host(gb), A.sum(axis=0), rtol=1e-6)
    g = ms.grad(lambda x: (x + T(A)).sum())(T(2.0))
    assert g.shape == () and g.item() == 6.0


def test_math_gradient_through_number_operands(backend):
    x = T([1.0, 2.0])
    assert host(ms.grad(lambda t: (3.0 - t * 2.0 + 1.0 / t).sum())(x)).tolist() == [-3.0, -2.25]
    assert host(ms.grad(lambda t: (2.0 ** t).sum())(T([1.0])))[0] == pytest.approx(2 * np.log(2.0))


def test_math_integer_and_comparison_ops_have_no_gradient_path(backend):
    x = T([1.5, -2.5])
    g = ms.grad(lambda t: (ops.floor_div(t, 1.0) + ops.mod(t, 1.0) * 0 + (t > 0)).sum())(x)
    assert host(g).tolist() == [0.0, 0.0]


def test_math_mod_gradient(backend):
    gx, gy = ms.grad(lambda a, b: ops.mod(a, b).sum(), (0, 1))(T([7.0, -7.0]), T([2.0, 2.0]))
    assert host(gx).tolist() == [1.0, 1.0] and host(gy).tolist() == [-3.0, 4.0]


def test_math_ops_do_not_record_outside_transforms(backend):
    x = T([1.0, 2.0])
    for out in (ops.add(x, x), ops.exp(x), ops.clamp(x, 0, 1), ops.maximum(x, 1.0), ops.pow(x, x), ops.where(x > 1, x, x)):
        assert out._node is None


def test_math_round_is_half_to_even_with_optional_decimals(backend):
    assert host(ops.round(T([0.5, 1.5, 2.5, -0.5, 1.26]))).tolist() == [0.0, 2.0, 2.0, -0.0, 1.0]
    np.testing.assert_allclose(host(ops.round(T([1.26, -2.35]), decimals=1)), [1.3, -2.4], rtol=1e-6)


def test_math_subtract_with_alpha(backend):
    assert host(ops.subtract(T([5.0]), T([1.0]), alpha=2)).tolist() == [3.0]
    assert host(ops.subtract(T([5.0]), 1.0)).tolist() == [4.0]


def test_math_where_and_clamp_shape_errors_name_every_operand(backend):
    with pytest.raises(ValueError, match=r"'condition' \(3,\), 'input' \(2,\) and 'other' \(\)"):
        ops.where(T([True, False, True]), T([1.0, 2.0]), 0.0)
    with pytest.raises(ValueError, match=r"'input' \(2,\) and 'min' \(1, 3\)"):
        ops.clamp(T([1.0, 5.0]), T([[0.0, 0.0, 0.0]]), 1.0)
    with pytest.raises(ValueError, match=r"'input' \(2,\) and 'max' \(3,\)"):
        ops.clamp(T([1.0, 5.0]), None, T([1.0, 1.0, 1.0]))


def test_math_bfloat16_stays_bfloat16_on_numpy():
    b = T([1.5, 2.0], ms.bfloat16)
    for out in (b + 1.0, 1.0 + b, b * 2, b / 3.0, b ** 2.0, ops.maximum(b, 1.0), ops.clamp(b, 0.0, 1.7),
                ops.exp(b), b @ b, ops.where(b > 1.6, b, 0.5)):
        assert out.dtype is ms.bfloat16
    assert host(b + 1.0).astype(np.float32).tolist() == [2.5, 3.0]
    # Float16 and BFloat16 meet in Float32, as in MindSpore
    assert (T([1.0, 1.0], ms.float16) + b).dtype is ms.float32
    g = ms.grad(lambda x: (x * x).sum())(b)
    assert g.dtype is ms.bfloat16 and host(g).astype(np.float32).tolist() == [3.0, 4.0]
