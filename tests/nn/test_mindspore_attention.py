"""cellkit's attention and Transformer Cells against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/nn_attention.py`` runs here under cellkit (``ms=cellkit``) and
is compared with ``tests/fixtures/mindspore/nn_attention.json``: outputs, returned attention weights
and gradients (inputs and every Parameter) of ``MultiheadAttention`` with every mask and option,
the encoder/decoder layers and stacks and ``Transformer``, names, trees, a TransformerEncoder
checkpoint round trip, bad arguments.  Below them, checks MindSpore cannot record: second-order
gradients against finite differences (float64), training-mode dropout, hooks inside the block.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "nn_attention"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_nn_attention_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_nn_attention_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_nn_attention_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_nn_attention_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs (or raised)."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), case.name


# ------------------------------------------------------------------ beyond the fixtures
from tests.gradcheck import check_grad, check_second_order  # noqa: E402


def _f64(net):
    rng = np.random.default_rng(5)
    for p in net.get_parameters():
        p.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, p.shape)))
    return net


def test_attention_gradients_of_first_and_second_order_match_finite_differences():
    attn = _f64(nn.MultiheadAttention(4, 2, dtype=ms.float64))
    mask = ms.Tensor(np.triu(np.ones((3, 3), bool), 1))
    x = np.random.default_rng(0).uniform(-1, 1, (3, 2, 4))

    def fn(x):
        out, weights = attn(x, x, x, attn_mask=mask)
        return out + weights.sum()

    check_grad(fn, x)
    check_second_order(fn, x)


def test_encoder_layer_second_order_gradients_match_finite_differences():
    layer = _f64(nn.TransformerEncoderLayer(4, 2, 6, norm_first=True, activation="gelu", dtype=ms.float64))
    x = np.random.default_rng(1).uniform(-1, 1, (3, 2, 4))
    check_grad(lambda x: layer(x), x)
    check_second_order(lambda x: layer(x), x)


def test_attention_dropout_acts_only_in_training():
    ms.set_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = ms.ops.ones((4, 2, 8)) * ms.Tensor(np.arange(8, dtype=np.float32))
    layer.set_train(False)
    a = layer(x).asnumpy()
    np.testing.assert_array_equal(a, layer(x).asnumpy())
    layer.set_train(True)
    assert not np.allclose(layer(x).asnumpy(), a)


def test_forward_hooks_fire_inside_the_attention_block_in_order():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    seen = []
    for name, cell in layer.cells_and_names():
        if name:
            cell.register_forward_hook(lambda c, inputs, out, name=name: seen.append(name))
    layer(ms.ops.ones((3, 2, 8)))
    # out_proj's Parameters are used by the attention function, not by calling the Dense (as in MindSpore)
    assert seen == ["self_attn", "dropout1", "norm1", "dense1", "dropout", "dense2", "dropout2", "norm2"]


def test_encoder_checkpoint_written_by_cellkit_loads_back(tmp_path):
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,)))
    path = str(tmp_path / "enc.ckpt")
    ms.save_checkpoint(enc, path)
    fresh = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,)))
    assert ms.load_param_into_net(fresh, ms.load_checkpoint(path)) == ([], [])
    x = ms.ops.ones((3, 2, 8)) * ms.Tensor(np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(fresh(x).asnumpy(), enc(x).asnumpy())
