"""cellkit's loss Cells against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/nn_loss_layers.py`` runs here under cellkit (``ms=cellkit``) and
is compared with ``tests/fixtures/mindspore/nn_loss_layers.json`` (loss values and input gradients for
every reduction and option, ``LossBase.get_loss``, reprs, bad arguments).  MindSpore is never imported; the comparison rules are in
``tests/mindspore_cases/compare.py``.  Record a missing case with
``/work/msvenv/bin/python tools/record_mindspore.py nn_loss_layers --only <case>``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "nn_loss_layers"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_nn_loss_layers_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_nn_loss_layers_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_nn_loss_layers_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_nn_loss_layers_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs (or raised)."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), case.name


def test_layers_and_losses_run_in_graph_mode_with_the_same_gradients():
    """A net of the new layers and a loss: GRAPH_MODE gives PyNative's loss and parameter gradients."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 6)
            self.act = nn.PReLU()
            self.unflatten = nn.Unflatten(1, (2, 3))
            self.bilinear = nn.BiDense(3, 3, 2)
            self.loss = nn.HuberLoss()

        def construct(self, x, y):
            h = self.unflatten(self.act(self.fc(x)))
            return self.loss(self.bilinear(h[:, 0], h[:, 1]), y)

    rng = np.random.default_rng(0)
    x, y = ms.Tensor(rng.random((5, 4), np.float32)), ms.Tensor(rng.random((5, 2), np.float32))
    net = Net()
    eager = ms.value_and_grad(net, None, net.trainable_params())(x, y)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = ms.value_and_grad(net, None, net.trainable_params())(x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph[0].asnumpy(), eager[0].asnumpy(), rtol=1e-6)
    for g, e in zip(graph[1], eager[1]):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-7)
