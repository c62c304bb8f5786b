"""cellkit's activation, dropout and basic layer Cells against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/nn_activation_layers.py`` runs here under cellkit (``ms=cellkit``) and
is compared with ``tests/fixtures/mindspore/nn_activation_layers.json`` (forward values, input and
Parameter gradients, reprs and Parameter names, dropout train/eval behaviour, bad arguments).  MindSpore is never imported; the comparison rules are in
``tests/mindspore_cases/compare.py``.  Record a missing case with
``/work/msvenv/bin/python tools/record_mindspore.py nn_activation_layers --only <case>``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "nn_activation_layers"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_nn_activation_layers_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_nn_activation_layers_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_nn_activation_layers_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_nn_activation_layers_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs (or raised)."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), case.name


# -- beyond the fixture: where MindSpore gives no usable reference ---------------------------------------------
def test_reduce_logsumexp_stable_per_row():
    """Rows far apart keep their own shift (MindSpore's global shift underflows the second row)."""
    x = np.array([[1000.0, 1001.0], [-5.0, 2.0]])
    want = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    got = nn.ReduceLogSumExp(1)(ms.Tensor(x.astype(np.float32))).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    grad = ms.grad(lambda t: nn.ReduceLogSumExp(1)(t).sum())(ms.Tensor(x.astype(np.float32))).asnumpy()
    np.testing.assert_allclose(grad, np.exp(x - want[:, None]), rtol=1e-5)


def test_sparse_dense_matmul_refuses_operands_that_do_not_fit():
    """MindSpore 2.10 multiplies a (3, 4) sparse matrix by a (3, 2) dense one without complaint; cellkit refuses."""
    with pytest.raises(ValueError, match="SparseTensorDenseMatmul"):
        nn.SparseTensorDenseMatmul()(ms.Tensor([[0, 1]], ms.int32), ms.Tensor([1.0]), (3, 4), ops.ones((3, 2)))


def test_sparse_to_dense_refuses_a_dense_tensor():
    with pytest.raises(TypeError, match="COOTensor"):
        nn.SparseToDense()(ms.Tensor([1.0]))


@pytest.mark.parametrize("make, shapes", [
    (lambda: nn.Linear(3, 2, dtype=ms.float64), [(4, 3)]),
    (lambda: nn.BiDense(2, 3, 2, dtype=ms.float64), [(4, 2), (4, 3)]),
])
def test_layer_parameter_gradients_match_finite_differences(make, shapes):
    """float64 layers (PReLU's slopes are float32 only, as in MindSpore: the fixture checks them)."""
    from tests.nn.paramgrad import check_param_grad
    cell = make()
    for p in cell.get_parameters():
        p.set_data(ms.Tensor(p.asnumpy().astype(np.float64)))
    rng = np.random.default_rng(3)
    args = [ms.Tensor(rng.standard_normal(s)) for s in shapes]
    check_param_grad(cell, cell.trainable_params(), *args)


@pytest.mark.parametrize("cell", [nn.CELU(1.5), nn.SeLU(), nn.Mish(), nn.Softsign(), nn.LogSigmoid(), nn.Softmin(),
                                  nn.GLU(), nn.Tanhshrink(), nn.ELU(0.5)], ids=lambda c: type(c).__name__)
def test_activation_second_derivative_matches_finite_differences(cell):
    """d2/dx2 of sum(cell(x)) through the ops' own rules, against central differences of the first derivative."""
    x = np.array([[-1.3, 0.4, 2.1, -0.6]])

    def first(t):
        return ms.grad(lambda u: cell(u).sum())(t)

    second = ms.grad(lambda t: (first(t) * ms.Tensor(np.array([[0.3, -0.7, 1.1, 0.5]]))).sum())(ms.Tensor(x))
    eps, numeric = 1e-6, np.zeros_like(x)
    for i in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi.flat[i] += eps
        lo.flat[i] -= eps
        numeric.flat[i] = ((first(ms.Tensor(hi)).asnumpy() - first(ms.Tensor(lo)).asnumpy())
                           * np.array([[0.3, -0.7, 1.1, 0.5]])).sum() / (2 * eps)
    np.testing.assert_allclose(second.asnumpy(), numeric, rtol=1e-4, atol=1e-6)
