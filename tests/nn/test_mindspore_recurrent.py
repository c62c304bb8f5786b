"""cellkit's recurrent layers against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/nn_recurrent.py`` runs here under cellkit (``ms=cellkit``) and
is compared with ``tests/fixtures/mindspore/nn_recurrent.json``: outputs, final states and gradients
(input, initial states, Parameters) of ``RNN``/``LSTM``/``GRU`` and the single-step Cells with fixed
Parameter values, Parameter names and shapes, printed trees, an LSTM checkpoint round trip, bad
arguments.  Below them, checks MindSpore cannot record: second-order gradients against finite
differences (float64), and a checkpoint written by cellkit read back byte-compatible.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "nn_recurrent"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_nn_recurrent_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_nn_recurrent_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_nn_recurrent_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_nn_recurrent_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs (or raised)."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), case.name


# ------------------------------------------------------------------ beyond the fixtures
from tests.gradcheck import check_grad, check_second_order  # noqa: E402
from tests.nn.paramgrad import check_param_grad  # noqa: E402


def _f64(net):
    rng = np.random.default_rng(3)
    for p in net.get_parameters():
        p.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, p.shape)))
    return net


@pytest.mark.parametrize("make", [
    lambda: nn.LSTM(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64),
    lambda: nn.GRU(2, 3, bidirectional=True, batch_first=True, dtype=ms.float64),
    lambda: nn.RNN(2, 3, num_layers=2, dtype=ms.float64),
], ids=["lstm", "gru", "rnn"])
def test_recurrent_layer_gradients_of_first_and_second_order_match_finite_differences(make):
    """Built from cellkit ops, a recurrent layer differentiates to any order (float64 input, no hx)."""
    net = _f64(make())
    x = np.random.default_rng(0).uniform(-1, 1, (3, 2, 2))

    def first(x):
        return net(x)[0]

    check_grad(first, x)
    check_second_order(first, x)
    check_param_grad(first, list(net.trainable_params())[:4], ms.Tensor(x))


def test_recurrent_seq_length_gradients_match_finite_differences():
    net = _f64(nn.LSTM(2, 3, bidirectional=True, dtype=ms.float64))
    lengths = ms.Tensor(np.array([3, 1], np.int32))
    x = np.random.default_rng(1).uniform(-1, 1, (3, 2, 2))
    check_grad(lambda x: net(x, seq_length=lengths)[1][1], x)


def test_lstm_checkpoint_written_by_cellkit_loads_back_with_mindspore_names(tmp_path):
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    path = str(tmp_path / "lstm.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == [p.name for p in net.get_parameters()]
    fresh = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert ms.load_param_into_net(fresh, loaded) == ([], [])
    x = ms.ops.ones((5, 2, 3))
    np.testing.assert_array_equal(fresh(x)[0].asnumpy(), net(x)[0].asnumpy())


def test_recurrent_dropout_between_layers_only_in_training():
    ms.set_seed(1)
    net = nn.GRU(2, 3, num_layers=2, dropout=0.5)
    x = ms.ops.ones((4, 2, 2))
    net.set_train(False)
    a, b = net(x)[0].asnumpy(), net(x)[0].asnumpy()
    np.testing.assert_array_equal(a, b)
    net.set_train(True)
    assert any(not np.array_equal(net(x)[0].asnumpy(), a) for _ in range(3))


def test_recurrent_and_attention_layers_train_on_the_strict_device():
    """No hidden host conversion: forward and first-order gradients (the fused LSTM op too) on array_api_strict."""
    from cellkit import backend as backend_mod

    results = {}
    for name in ("numpy", "strict"):
        with backend_mod.use(name):
            ms.set_seed(0)
            nets = [nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.GRU(3, 4), nn.RNN(3, 4),
                    nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)]
            x = ms.Tensor(np.linspace(-1, 1, 5 * 2 * 3, dtype=np.float32).reshape(5, 2, 3))
            values = []
            for net in nets:
                params = net.trainable_params()
                inp = x if not isinstance(net, nn.TransformerEncoderLayer) else x[:, :, :2].tile((1, 1, 2))

                def loss(v, net=net):
                    out = net(v)
                    return (out[0] if isinstance(out, tuple) else out).sum()

                grads = ms.grad(loss, grad_position=None, weights=params)(inp)
                values.append([g.asnumpy() for g in grads])
            results[name] = values
    for a, b in zip(results["numpy"], results["strict"]):
        for ga, gb in zip(a, b):
            np.testing.assert_allclose(ga, gb, rtol=1e-5, atol=1e-6)
