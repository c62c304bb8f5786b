"""Constant folding and dead-code elimination, and which jit levels run them."""
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.graph import passes

from tests.graph.graph_models import Block, assert_same, f32, pynative_then_graph


def test_passes_dce_removes_an_unused_op():
    graph = ms.graph.build_graph(Block(), f32(5, 4))
    assert "exp" not in graph.ops()
    assert "dead code elimination: 1 node(s) (exp)" in graph.passes


def test_passes_dce_keeps_unused_random_and_state_changing_ops():
    class SideEffects(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(4)

        def construct(self, x):
            ops.dropout(x, p=0.5)     # unused, but it moves the random generator
            self.bn(x)                # unused, but it updates the running statistics
            return x * 2

    net = SideEffects().set_train()
    graph = ms.graph.build_graph(net, f32(6, 4))
    assert graph.ops() == ["dropout", "batch_norm", "mul"]
    eager, compiled, stats_eager, stats_graph = pynative_then_graph(net, lambda: [net(f32(6, 4)) for _ in range(2)])
    assert_same(eager, compiled)
    assert all((a == b).all() for a, b in zip(stats_eager, stats_graph))


def test_passes_constant_folding_replaces_a_constant_subexpression():
    graph = ms.graph.build_graph(Block(), f32(5, 4))
    assert "constant folding: 2 node(s) (ones, mul)" in graph.passes
    add = graph.nodes[-1]
    assert add.op == "add" and add.args[1].array.tolist() == [2.0, 2.0, 2.0]


def test_passes_never_fold_random_ops_even_on_constants():
    class RandomConstant(nn.Cell):
        def construct(self, x):
            return x + ops.dropout(ops.ones((4,)), p=0.5)

    graph = ms.graph.build_graph(RandomConstant(), f32(4))
    assert graph.ops() == ["dropout", "add"]  # ones was folded, dropout was not
    net = RandomConstant()
    eager, compiled, _, _ = pynative_then_graph(net, lambda: [net(f32(4)) for _ in range(3)])
    assert_same(eager, compiled)
    assert not (compiled[0].asnumpy() == compiled[1].asnumpy()).all() or not (
        compiled[1].asnumpy() == compiled[2].asnumpy()).all()  # fresh masks each run


def test_passes_never_fold_what_an_in_place_op_writes_into():
    class WritesIntoConstant(nn.Cell):
        def construct(self, x):
            buffer = ops.zeros((3,))
            buffer[0] = x.sum()
            return buffer

    net = WritesIntoConstant()
    graph = ms.graph.build_graph(net, f32(3))
    assert graph.ops()[0] == "zeros" and "setitem" in graph.ops()
    eager, compiled, _, _ = pynative_then_graph(net, lambda: [net(f32(3, seed=s)) for s in range(3)])
    assert_same(eager, compiled)


def test_passes_o0_runs_the_graph_as_traced():
    net = Block()
    net.set_jit_config(ms.JitConfig(jit_level="O0"))
    graph = ms.graph.build_graph(net, f32(5, 4))
    assert "exp" in graph.ops() and "ones" in graph.ops() and graph.passes == []
    assert graph.jit_level == "O0"


def test_passes_levels_and_errors():
    assert passes.LEVELS["O2"] == passes.LEVELS["O1"]
    graph = ms.graph.build_graph(Block(), f32(5, 4))
    with pytest.raises(ValueError, match="jit_level"):
        passes.run_passes(graph, "O3")


def test_passes_context_jit_config_sets_the_default_level():
    ms.set_context(jit_config={"jit_level": "O0"})
    assert "exp" in ms.graph.build_graph(Block(), f32(5, 4)).ops()
    ms.set_context(jit_config={"jit_level": "O2"})
    assert "exp" not in ms.graph.build_graph(Block(), f32(5, 4)).ops()
    with pytest.raises(ValueError, match="jit_level"):
        ms.set_context(jit_config={"jit_level": "O9"})
