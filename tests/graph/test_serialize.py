"""get_func_graph_proto: JSON bytes that read back into the same graph."""
import base64
import json

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.graph.serialize import graph_from_dict, graph_from_proto, graph_to_proto

from tests.graph.graph_models import Block, f32


def compiled_block(graph_mode=True):
    net = Block().set_train()
    ms.set_context(mode=ms.GRAPH_MODE)
    net(f32(5, 4))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return net


def test_serialize_proto_is_utf8_json_describing_the_graph():
    net = compiled_block()
    proto = net.get_func_graph_proto()
    data = json.loads(proto.decode("utf-8"))
    assert data["format"] == "cellkit.graph" and data["version"] == 1 and data["name"] == "Block"
    assert data["inputs"] == [{"name": "x", "shape": [5, 4], "dtype": "Float32"}]
    ops_ = [n["op"] for n in data["nodes"]]
    assert ops_ == ["dense", "batch_norm", "relu", "dropout", "dense", "add"]
    dense = data["nodes"][0]
    assert dense["args"] == [{"input": 0}, {"state": "fc1.weight"}, {"state": "fc1.bias"}]
    assert dense["outputs"] == {"tensor": {"shape": [5, 8], "dtype": "Float32"}}
    assert data["nodes"][2]["args"][0] == {"node": 1, "path": []}
    assert data["nodes"][3]["random"] and data["nodes"][1]["effectful"]


def test_serialize_constants_keep_their_exact_bytes():
    data = json.loads(compiled_block().get_func_graph_proto())
    (const,) = data["constants"]
    values = np.frombuffer(base64.b64decode(const["data"]), np.float32)
    assert values.tolist() == [2.0, 2.0, 2.0] and const["shape"] == [3]


def test_serialize_round_trips():
    net = compiled_block()
    proto = net.get_func_graph_proto()
    again = graph_from_proto(proto)
    assert again.to_dict() == json.loads(proto)
    assert graph_to_proto(again) == proto
    assert again.ops() == ms.graph.graph_of(net).ops()
    assert str(again).splitlines()[1:] == str(ms.graph.graph_of(net)).splitlines()[1:]


def test_serialize_primitives_tuples_and_dtypes_round_trip():
    class Mixed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dropout = ops.Dropout(keep_prob=0.9)

        def construct(self, x):
            out, _ = self.dropout(x)
            return ops.cast(out, ms.float64), ops.split(x, 2, axis=0)

    graph = ms.graph.build_graph(Mixed(), f32(4, 2))
    proto = graph_to_proto(graph)
    data = json.loads(proto)
    assert data["nodes"][0]["args"][0] == {"primitive": "Dropout", "attrs": {"keep_prob": 0.9, "Seed0": 0, "Seed1": 0}}
    assert {"dtype": "Float64"} in data["nodes"][1]["args"]
    assert graph_from_proto(proto).to_dict() == data


def test_serialize_refuses_other_documents():
    with pytest.raises(ValueError, match="cellkit.graph"):
        graph_from_dict({"format": "onnx"})
    with pytest.raises(ValueError, match="newer"):
        graph_from_dict({"format": "cellkit.graph", "version": 99})
