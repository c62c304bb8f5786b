"""Hand-written cases of the elementwise family that the op catalogue cannot express.

The catalogue declares functions of ``mindspore.ops``; these are the family's Primitives that have
no functional twin in MindSpore 2.10 (``Betainc``, ``DivNoNan``, ``MulNoNan``,
``SquaredDifference``, ``Rint``) and its Tensor methods that have no ``ops`` function
(``Tensor.allclose``); and the samples where MindSpore answers NaN wrongly (the recorder
cannot measure a distance to NaN, so these cases show the NaN as -1 through ``nan_to_num``).  ``Tensor.bitwise_not`` and ``ops.fmin`` have no kernel in MindSpore 2.10's
CPU build (it raises RuntimeError), so ``tests/ops/test_elementwise_extra.py`` checks them against NumPy.  Each differentiable case returns its output and
the gradients of ``sum(output * w)`` for a fixed ``w``.
"""
from . import CaseList

CASES = CaseList()


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _with_grads(ms, np, fn, *args):
    out = fn(*args)
    weight = ms.Tensor(np.linspace(-1.0, 1.0, out.size).reshape(out.shape).astype(np.float32)).astype(out.dtype)
    grads = ms.grad(lambda *a: (fn(*a) * weight).sum(), grad_position=tuple(range(len(args))))(*args)
    return out, grads


@CASES.case(rtol=1e-4, atol=1e-5)
def betainc_float32(ms, ops, nn, np):
    a = _t(ms, np, [[0.5, 2.0, 1.5], [3.0, 0.75, 1.0]])
    b = _t(ms, np, [[1.5, 3.0, 0.5], [2.0, 1.25, 4.0]])
    x = _t(ms, np, [[0.3, 0.6, 0.2], [0.9, 0.45, 0.1]])
    return _with_grads(ms, np, ops.Betainc(), a, b, x)


@CASES.case(rtol=1e-6, atol=1e-8)
def betainc_float64(ms, ops, nn, np):
    a = _t(ms, np, [0.5, 2.0, 1.5], "float64")
    b = _t(ms, np, [1.5, 3.0, 0.5], "float64")
    x = _t(ms, np, [0.3, 0.6, 0.2], "float64")
    return _with_grads(ms, np, ops.Betainc(), a, b, x)


@CASES.case
def betainc_outside(ms, ops, nn, np):
    """A negative shape or x outside [0, 1]: NaN."""
    return ops.Betainc()(_t(ms, np, [-0.5, 2.0]), _t(ms, np, [1.5, 3.0]), _t(ms, np, [0.3, 1.3]))


@CASES.case
def betainc_mixed_dtypes(ms, ops, nn, np):
    return ops.Betainc()(_t(ms, np, [0.5, 2.0]), _t(ms, np, [1.5, 3.0], "float64"), _t(ms, np, [0.3, 0.6]))


@CASES.case
def betainc_shapes(ms, ops, nn, np):
    return ops.Betainc()(_t(ms, np, [0.5]), _t(ms, np, [1.5, 3.0]), _t(ms, np, [0.3, 0.6]))


@CASES.case
def betainc_int(ms, ops, nn, np):
    return ops.Betainc()(_t(ms, np, [1, 2], "int32"), _t(ms, np, [1, 3], "int32"), _t(ms, np, [0, 1], "int32"))


@CASES.case
def div_no_nan_float32(ms, ops, nn, np):
    return _with_grads(ms, np, ops.DivNoNan(), _t(ms, np, [[1.0, 2.0, 0.0], [-1.5, 3.0, 2.5]]),
                       _t(ms, np, [[0.0, 4.0, 0.0], [0.5, -2.0, 0.0]]))


@CASES.case
def div_no_nan_broadcast_float64(ms, ops, nn, np):
    return _with_grads(ms, np, ops.DivNoNan(), _t(ms, np, [[1.0, 2.0, 0.0], [-1.5, 3.0, 2.5]], "float64"),
                       _t(ms, np, [0.0, 4.0, -0.5], "float64"))


@CASES.case
def div_no_nan_scalar(ms, ops, nn, np):
    return ops.DivNoNan()(_t(ms, np, [1.0, 2.0, 0.0]), 2.0)


@CASES.case
def div_no_nan_int_float(ms, ops, nn, np):
    return ops.DivNoNan()(_t(ms, np, [1, 2, 3], "int32"), _t(ms, np, [0.0, 4.0, 2.0]))


@CASES.case
def div_no_nan_float16(ms, ops, nn, np):
    return ops.DivNoNan()(_t(ms, np, [1.0, 2.0, 0.0], "float16"), _t(ms, np, [0.0, 4.0, 0.0], "float16"))


@CASES.case
def div_no_nan_ints(ms, ops, nn, np):
    return ops.DivNoNan()(_t(ms, np, [1, 2, 3], "int32"), _t(ms, np, [0, 4, 2], "int32"))


@CASES.case
def mul_no_nan_specials(ms, ops, nn, np):
    """0 where y is 0, even against inf and NaN; inf and NaN elsewhere."""
    return ops.MulNoNan()(_t(ms, np, [1.0, np.inf, np.nan, np.inf, np.nan]), _t(ms, np, [0.0, 0.0, 0.0, 3.0, 1.0]))


@CASES.case
def mul_no_nan_float32(ms, ops, nn, np):
    return _with_grads(ms, np, ops.MulNoNan(), _t(ms, np, [[1.0, 2.0, 3.0], [-1.5, 0.5, 2.0]]),
                       _t(ms, np, [[0.0, 4.0, 0.5], [2.0, 0.0, -1.0]]))


@CASES.case
def mul_no_nan_ints(ms, ops, nn, np):
    return ops.MulNoNan()(_t(ms, np, [1, 2, 3], "int32"), _t(ms, np, [0, 4, 2], "int32"))


@CASES.case
def mul_no_nan_int_float(ms, ops, nn, np):
    return ops.MulNoNan()(_t(ms, np, [1, 2, 3], "int32"), _t(ms, np, [0.0, 4.0, 2.0]))


@CASES.case
def squared_difference_float32(ms, ops, nn, np):
    return _with_grads(ms, np, ops.SquaredDifference(), _t(ms, np, [[0.5, 1.5, 2.5], [-1.0, 0.25, 3.0]]),
                       _t(ms, np, [2.0, 0.5, 1.0]))


@CASES.case
def squared_difference_ints(ms, ops, nn, np):
    return ops.SquaredDifference()(_t(ms, np, [5, -7, 3], "int32"), _t(ms, np, [2, 3, -2], "int32"))


@CASES.case
def squared_difference_int_float(ms, ops, nn, np):
    return ops.SquaredDifference()(_t(ms, np, [5, -7, 3], "int32"), _t(ms, np, [2.0, 0.5, 1.0]))


@CASES.case
def squared_difference_scalar(ms, ops, nn, np):
    return ops.SquaredDifference()(_t(ms, np, [0.5, 1.5, 2.5]), 2.0)


@CASES.case
def squared_difference_bool(ms, ops, nn, np):
    return ops.SquaredDifference()(_t(ms, np, [True], "bool"), _t(ms, np, [False], "bool"))


@CASES.case
def rint_float32(ms, ops, nn, np):
    """Half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0."""
    return ops.Rint()(_t(ms, np, [0.5, 1.5, 2.5, -0.5, -1.7, 3.2]))


@CASES.case
def rint_float16(ms, ops, nn, np):
    return ops.Rint()(_t(ms, np, [0.5, 1.5, -2.5], "float16"))


@CASES.case
def rint_float64(ms, ops, nn, np):
    return ops.Rint()(_t(ms, np, [0.5, 1.5, -2.5, 7.49], "float64"))


@CASES.case
def rint_int(ms, ops, nn, np):
    return ops.Rint()(_t(ms, np, [1, 2], "int32"))


@CASES.case
def tensor_allclose(ms, ops, nn, np):
    x = _t(ms, np, [0.5, 1.5, 2.5])
    y = _t(ms, np, [2.0, 0.5, 1.0])
    return x.allclose(y), x.allclose(x), x.allclose(y, 1.0, 2.0), x.allclose(x + 1e-6)


@CASES.case
def tensor_allclose_nan(ms, ops, nn, np):
    x = _t(ms, np, [np.nan, 1.0])
    return x.allclose(x), x.allclose(x, equal_nan=True)


@CASES.case
def tensor_round_decimals_zero(ms, ops, nn, np):
    return _t(ms, np, [0.5, 1.5, 2.5, -0.5]).round(decimals=0)


@CASES.case
def tensor_multiply_value(ms, ops, nn, np):
    return _t(ms, np, [0.5, 1.5]).multiply(_t(ms, np, [2.0, 4.0]))


@CASES.case
def tensor_float_power_scalar(ms, ops, nn, np):
    return _t(ms, np, [0.5, 1.5]).float_power(2)


@CASES.case(mindspore_wrong=True, expected=lambda np: np.array([1.0, 0.0, 1.0], np.float32),
            note="MindSpore 2.10 (CPU) gives NaN for sinc(False): sinc(0) is 1, as it gives for an integer or float "
                 "zero")
def sinc_bool_zero(ms, ops, nn, np):
    return ops.nan_to_num(ops.sinc(_t(ms, np, [False, True, False], "bool")), -1.0)


@CASES.case(mindspore_wrong=True, expected=lambda np: np.array([0.0, 0.0, 0.0, 1.5 * np.log(0.5)], np.float32),
            note="MindSpore 2.10 (CPU) gives NaN for xlogy(0, 0) and xlogy(0, NaN); its Xlogy documentation says "
                 "the result is zero where the input is zero")
def xlogy_zero_input(ms, ops, nn, np):
    out = ops.xlogy(_t(ms, np, [0.0, 0.0, 0.0, 1.5]), _t(ms, np, [0.0, np.nan, 2.0, 0.5]))
    return ops.nan_to_num(out, -1.0)


@CASES.case(mindspore_wrong=True, expected=lambda np: np.array([0.0, 0.0], np.float32),
            note="MindSpore 2.10 (CPU) gives NaN for xlogy(False, False); its Xlogy documentation says the result "
                 "is zero where the input is zero")
def xlogy_bool_zero(ms, ops, nn, np):
    return ops.nan_to_num(ops.xlogy(_t(ms, np, [False, False], "bool"), _t(ms, np, [False, True], "bool")), -1.0)
