"""``ms.export`` / ``ms.load`` / ``nn.GraphCell``: MindSpore 2.10's behaviour (recorded) and cellkit's file format."""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "graph_export"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_graph_export_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_graph_export_fixture_is_from_mindspore_2_10_and_current():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def _conv_net():
    ms.set_seed(2)
    net = nn.SequentialCell(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Dense(32, 3))
    net.set_train(False)
    return net


def test_export_load_round_trip_gives_the_same_outputs(tmp_path):
    net = _conv_net()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32))
    ms.export(net, x, file_name=str(tmp_path / "conv"), file_format="MINDIR")
    cell = nn.GraphCell(ms.load(str(tmp_path / "conv.mindir")))
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    y = ms.Tensor(np.random.default_rng(1).standard_normal((2, 1, 4, 4)).astype(np.float32))
    np.testing.assert_array_equal(cell(y).asnumpy(), net(y).asnumpy())
    assert [p.requires_grad for p in cell.get_parameters()] == [p.requires_grad for p in net.get_parameters()]


def test_the_file_is_documented_json_with_raw_arrays_and_no_code(tmp_path):
    net = nn.Dense(3, 2)
    path = tmp_path / "dense.mindir"
    ms.export(net, ms.ops.ones((1, 3)), file_name=str(path), file_format="MINDIR")
    document = json.loads(path.read_bytes().decode("utf-8"))
    assert document["format"] == "cellkit.export" and document["version"] == 1
    assert document["targets"] == ["cellkit.ops.nn_ops:dense"] or document["targets"][0].startswith("cellkit.")
    weight = document["parameters"]["weight"]
    raw = np.frombuffer(base64.b64decode(weight["data"]), np.float32).reshape(weight["shape"])
    np.testing.assert_array_equal(raw, net.weight.asnumpy())
    assert b"pickle" not in path.read_bytes()


def test_load_resolves_ops_only_inside_cellkit(tmp_path):
    path = tmp_path / "evil.mindir"
    ms.export(nn.ReLU(), ms.Tensor([1.0, -1.0]), file_name=str(path), file_format="MINDIR")
    document = json.loads(path.read_text())
    document["targets"] = ["os:system"]
    path.write_text(json.dumps(document))
    with pytest.raises(RuntimeError, match="not an op of cellkit"):
        ms.load(str(path))


def test_graph_cell_params_init_replaces_values(tmp_path):
    net = nn.Dense(2, 1, has_bias=False)
    path = str(tmp_path / "d.mindir")
    ms.export(net, ms.ops.ones((1, 2)), file_name=path, file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path), params_init={"weight": ms.Tensor([[2.0, 3.0]])})
    np.testing.assert_allclose(cell(ms.Tensor([[1.0, 1.0]])).asnumpy(), [[5.0]])
    with pytest.raises(ValueError, match="not a Parameter"):
        nn.GraphCell(ms.load(path), params_init={"nope": ms.Tensor([1.0])})


def test_export_refuses_graph_breaks_naming_the_line(tmp_path):
    def f(x):
        return x * 2 if x.sum() > 0 else x

    with pytest.raises(ValueError, match="graph break at .*test_export.py"):
        ms.export(f, ms.Tensor([1.0]), file_name=str(tmp_path / "f"), file_format="MINDIR")


def test_export_onnx_is_refused_honestly(tmp_path):
    with pytest.raises(ValueError, match="no 'ONNX'"):
        ms.export(nn.ReLU(), ms.Tensor([1.0]), file_name=str(tmp_path / "f"), file_format="ONNX")
