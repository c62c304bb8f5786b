"""The graph IR: what tracing records (ops, shapes, dtypes, scopes, references) and how it prints."""
import cellkit as ms
from cellkit import nn, ops
from cellkit.graph.ir import ConstRef, InputRef, NodeOutput, StateRef, TensorSpec

from tests.graph.graph_models import Block, f32, mlp


def test_ir_records_the_shape_and_dtype_of_every_node():
    graph = ms.graph.build_graph(mlp(), f32(5, 4))
    assert graph.ops() == ["dense", "relu", "dense"]
    assert [n.outputs for n in graph.nodes] == [TensorSpec((5, 8), ms.float32), TensorSpec((5, 8), ms.float32),
                                                TensorSpec((5, 3), ms.float32)]
    assert [i.spec for i in graph.inputs] == [TensorSpec((5, 4), ms.float32)]


def test_ir_arguments_are_references_to_inputs_states_and_earlier_nodes():
    graph = ms.graph.build_graph(mlp(), f32(5, 4))
    first, relu, second = graph.nodes
    assert isinstance(first.args[0], InputRef)
    assert [type(a) for a in first.args[1:]] == [StateRef, StateRef]
    assert [s.name for s in graph.states] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert isinstance(relu.args[0], NodeOutput) and relu.args[0].node is first
    assert isinstance(graph.output, NodeOutput) and graph.output.node is second


def test_ir_nodes_remember_their_cell_scope_and_source_line():
    graph = ms.graph.build_graph(Block(), f32(5, 4))
    scopes = {n.op: n.scope for n in graph.nodes}
    assert scopes["dense"] == "Default/fc1-Dense" or scopes["dense"] == "Default/fc2-Dense"
    assert scopes["batch_norm"] == "Default/bn-BatchNorm1d"
    assert scopes["relu"] == "Default"
    relu = next(n for n in graph.nodes if n.op == "relu")
    assert relu.location.endswith(f"graph_models.py:{_line_of('h = ops.relu(')}")


def _line_of(text):
    from pathlib import Path

    lines = (Path(__file__).parent / "graph_models.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def test_ir_marks_random_and_state_changing_nodes():
    graph = ms.graph.build_graph(Block().set_train(), f32(5, 4))
    flags = {n.op: (n.random, n.effectful) for n in graph.nodes}
    assert flags["dropout"] == (True, False)
    assert flags["batch_norm"] == (False, True)
    assert flags["dense"] == (False, False)


def test_ir_constants_are_numbered_and_not_dynamic():
    class AddConstant(nn.Cell):
        def construct(self, x):
            return x + ms.Tensor([1.0, 2.0])

    graph = ms.graph.build_graph(AddConstant(), f32(2))
    (const,) = graph.constants
    assert isinstance(const, ConstRef) and const.index == 0 and not const.dynamic
    assert const.array.tolist() == [1.0, 2.0]


def test_ir_listing_shows_inputs_states_nodes_scopes_and_passes():
    text = str(ms.graph.build_graph(Block().set_train(), f32(5, 4)))
    assert text.startswith("graph Block(%x: Float32[5, 4]) {  # jit_level O1")
    assert "# parameter %fc1.weight: Float32[8, 4]" in text
    assert "= dense(%x, %fc1.weight, %fc1.bias) : Float32[5, 8]  # Default/fc1-Dense" in text
    assert "[random]" in text and "[effect]" in text
    assert "# pass dead code elimination: 1 node(s) (exp)" in text
    assert repr(ms.graph.build_graph(mlp(), f32(5, 4))) == "<Graph SequentialCell: 1 input(s), 3 node(s), jit_level O1>"


def test_ir_tuple_outputs_have_one_spec_per_tensor():
    class Split(nn.Cell):
        def construct(self, x):
            return ops.split(x, 2, axis=1)

    graph = ms.graph.build_graph(Split(), f32(3, 4))
    (node,) = graph.nodes
    assert node.outputs == (TensorSpec((3, 2), ms.float32), TensorSpec((3, 2), ms.float32))
    assert [r.path for r in graph.output] == [(0,), (1,)]
