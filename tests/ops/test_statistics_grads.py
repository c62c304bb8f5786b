"""Gradients of the statistics family that the op catalogue cannot check against MindSpore.

MindSpore 2.10's CPU build cannot differentiate ``cummax`` / ``cummin`` (no InplaceScatterAdd
kernel) and returns NaN for ``cumprod`` at zeros; Primitives with options (``CumSum(exclusive,
reverse)`` ...), Tensor methods without a function (``kthvalue``, ``ptp``) and keyword Tensors
(``where=``, ``fweights=``) are not catalogue samples.  Each is checked here against central
finite differences, first and second order (float64), on NumPy and on the strict device.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad, check_second_order

X = np.array([[0.7, -1.3, 2.1, 0.4], [1.6, 0.2, -0.9, 1.1], [-0.5, 2.4, 0.3, -1.7]])
POSITIVE = np.array([[0.7, 1.3, 2.1, 0.4], [1.6, 0.6, 0.9, 1.1]])
MASK = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])


def first(out):
    return out[0] if isinstance(out, tuple) else out


CASES = {
    "cummax": (lambda x: first(ops.cummax(x, 1)), X),
    "cummax_axis0": (lambda x: first(ops.cummax(x, 0)), X),
    "cummin": (lambda x: first(ops.cummin(x, 1)), X),
    "Cummin_primitive": (lambda x: first(ops.Cummin(0)(x)), X),
    "cumsum_exclusive_reverse": (lambda x: ops.CumSum(True, True)(x, 1), X),
    "cumsum_exclusive": (lambda x: ops.CumSum(True)(x, 0), X),
    "cumprod_exclusive_reverse": (lambda x: ops.CumProd(True, True)(x, 1), X),
    "cumprod_reverse": (lambda x: ops.CumProd(False, True)(x, 0), X),
    # (the exclusive scan's first value is the dtype's lowest number: left out of the probe)
    "logcumsumexp_exclusive_reverse": (lambda x: ops.CumulativeLogsumexp(True, True)(x, ms.Tensor(1))[:, :-1], X),
    "logcumsumexp_wide_range": (lambda x: ops.logcumsumexp(x, 1), X * 40.0),
    "kthvalue": (lambda x: first(x.kthvalue(2, 1)), X),
    "kthvalue_keepdim": (lambda x: first(x.kthvalue(3, 0, True)), X),
    "ptp": (lambda x: x.ptp(1), X),
    "quantile": (lambda x: ops.quantile(x, 0.3, 1), X),
    "quantile_vector_q": (lambda x: ops.quantile(x, ms.Tensor(np.array([0.2, 0.9])), 0, True), X),
    "nanquantile": (lambda x: ops.nanquantile(x, 0.6), X),
    "median_global": (lambda x: first(ops.Median(True)(x)), X),
    "nanmedian": (lambda x: first(ops.nanmedian(x, 0)), X),
    "amax_where": (lambda x: ops.amax(x, 1, initial=-5.0, where=ms.Tensor(MASK)), X),
    "max_initial": (lambda x: first(ops.max(x, 1, initial=1.0)), X),
    "ArgMaxWithValue": (lambda x: ops.ArgMaxWithValue(1)(x)[1], X),
    "argmin_with_value": (lambda x: first(x.argmin_with_value(0)), X),
    "L2Loss": (lambda x: ops.L2Loss()(x), X),
    "LpNorm": (lambda x: ops.LpNorm(1, 3)(x), X),
    "LpNorm_tuple": (lambda x: ops.LpNorm((0, 1), 2, True)(x), X),
    "ReduceStd": (lambda x: first(ops.ReduceStd(1, True)(x)), X),
    "ReduceStd_mean": (lambda x: ops.ReduceStd(0, False, True)(x)[1], X),
    "SquareSumAll": (lambda x: ops.SquareSumAll()(x, x * 2.0)[0] + ops.SquareSumAll()(x, x * 2.0)[1], X),
    "cov_weights": (lambda x: ops.cov(x, fweights=ms.Tensor(np.array([1, 2, 1, 3], np.int32)),
                                      aweights=ms.Tensor(np.array([0.5, 1.0, 2.0, 1.5]))), X),
    "unsorted_segment_prod": (lambda x: ops.unsorted_segment_prod(x, ms.Tensor(np.array([1, 0, 1], np.int32)), 2), X),
    "var_mean_mean": (lambda x: ops.var_mean(x, 1, 1)[1], X),
    "std_mean_std": (lambda x: ops.std_mean(x, (0, 1))[0], X),
    "renorm_scaled_columns": (lambda x: ops.renorm(x, 3, 1, 1.0), X),
    "pdist_batched": (lambda x: ops.pdist(ms.ops.reshape(x, (2, 3, 2))), X),
}


@pytest.mark.parametrize("name", list(CASES))
def test_statistics_gradient_matches_finite_differences(backend, name):
    fn, x = CASES[name]
    check_grad(fn, x)


@pytest.mark.parametrize("name", list(CASES))
def test_statistics_second_order_matches_finite_differences(name):
    fn, x = CASES[name]
    check_second_order(fn, x)


def test_statistics_cumprod_gradient_is_exact_at_zeros(backend):
    # MindSpore 2.10 returns NaN there (it divides by the input); the rule never divides by a zero.
    x = np.array([[1.5, 0.0, 3.0, 2.0], [0.5, 4.0, 0.0, 0.0], [0.0, 2.0, -1.0, 3.0]])
    check_grad(lambda t: ops.cumprod(t, 1), x)
    check_grad(lambda t: ops.CumProd(True, True)(t, 1), x)
    g = ms.grad(lambda t: ops.cumprod(t, 1).sum())(ms.Tensor(x))
    assert np.isfinite(g.asnumpy()).all()


def test_statistics_cumprod_second_order_before_the_first_zero():
    # Exact wherever the input has no zero, and for the elements before a slice's first zero.
    x = np.array([[1.5, 0.7, 3.0, 2.0], [0.5, 4.0, -1.2, 0.8]])
    check_second_order(lambda t: ops.cumprod(t, 1), x)


def test_statistics_logcumsumexp_gradient_stays_finite_for_huge_inputs():
    x = ms.Tensor(np.array([[-300.0, 0.0, 300.0, 250.0]], np.float32))
    g = ms.grad(lambda t: (ops.logcumsumexp(t, 1) * ms.Tensor(np.array([[1.0, -2.0, 0.5, 3.0]], np.float32))).sum())(x)
    assert np.isfinite(g.asnumpy()).all()
    np.testing.assert_allclose(g.asnumpy().sum(), 1.0 - 2.0 + 0.5 + 3.0, rtol=1e-5)


def test_statistics_sort_second_order_flows_through_the_indices():
    # take_along and put_along are each other's rule: a gradient of a gradient picks again.
    x = ms.Tensor(np.array([3.0, -1.0, 2.0]))
    weights = ms.Tensor(np.array([1.0, 2.0, 3.0]))

    def inner(t):
        return ms.grad(lambda u: (ops.sort(u)[0] ** 2 * weights).sum())(t)

    hessian_diag = ms.grad(lambda t: inner(t).sum())(x)
    np.testing.assert_allclose(hessian_diag.asnumpy(), [6.0, 2.0, 4.0])
