"""Tracing: values by identity, soft ops, constructors, and graph breaks at data-dependent Python decisions."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.graph.ir import InputRef

from tests.graph.graph_models import assert_same, f32


class Branchy(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:  # a decision on the input's value
            return x * 2
        return x


def test_tracer_data_dependent_if_breaks_the_graph_naming_the_line(graph_mode):
    net = Branchy()
    x = f32(3)
    positive, negative = x.abs() + 1, -(x.abs() + 1)
    assert_same(net(positive), positive * 2)
    assert_same(net(negative), negative)      # the other outcome: traced again, not the first graph
    assert_same(net(positive), positive * 2)  # both variants are kept
    assert ms.graph.trace_count(net) == 2
    (brk,) = ms.graph.graph_of(net).breaks
    assert brk.reason == "bool()" and "test_tracer.py:" in brk.location and brk.line.startswith("if x.sum() > 0:")
    assert "graph break at" in str(ms.graph.graph_of(net)) and "if x.sum() > 0:" in str(ms.graph.graph_of(net))


@pytest.mark.parametrize("convert, what", [
    (lambda t: int(t), "int()"), (lambda t: float(t), "float()"), (lambda t: t.item(), "item()"),
    (lambda t: [1, 2, 3][t], "__index__()"), (lambda t: int(t.asnumpy()), "asnumpy()"),
])
def test_tracer_every_python_conversion_of_an_input_value_is_a_graph_break(convert, what, graph_mode):
    class Convert(nn.Cell):
        def construct(self, x):
            return x * convert(x.sum().astype(ms.int64))

    net = Convert()
    assert [b.reason for b in ms.graph.build_graph(net, f32(1)).breaks] == [what]
    for value in (0.0, 1.0, 2.0, 1.0):
        x = ms.Tensor([value])
        assert_same(net(x), x * convert(ms.Tensor(int(value))))


def test_tracer_decisions_on_a_parameter_value_break_too(graph_mode):
    class OnWeight(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor([1.0]), name="w")

        def construct(self, x):
            return x * 2 if self.w > 0 else x

    net = OnWeight()
    x = f32(2)
    assert_same(net(x), x * 2)
    net.w.set_data(ms.Tensor([-1.0]))
    assert_same(net(x), x)  # the guard reads the Parameter live
    assert [b.reason for b in ms.graph.graph_of(net).breaks] == ["bool()"]


def test_tracer_python_decisions_on_shapes_flags_and_constants_are_fine(graph_mode):
    class Static(nn.Cell):
        def __init__(self):
            super().__init__()
            self.double = True

        def construct(self, x):
            limit = ms.Tensor(2.0)
            if x.shape[0] > 1 and self.double and float(limit) > 1:
                return x * 2
            return x

    x = f32(3)
    assert_same(Static()(x), x * 2)


def test_tracer_identifies_values_by_their_array():
    class Rewrap(nn.Cell):
        def construct(self, x):
            return ops.relu(ms.Tensor(x))  # same array, new Tensor object: still the input

    graph = ms.graph.build_graph(Rewrap(), f32(3))
    assert isinstance(graph.nodes[0].args[0], InputRef)


def test_tracer_records_a_tensor_made_from_an_input():
    class Cast(nn.Cell):
        def construct(self, x):
            return ms.Tensor(x, ms.float64) * 2

    x = f32(3)
    graph = ms.graph.build_graph(Cast(), x)
    assert graph.ops() == ["Tensor", "mul"]
    with_graph_mode = _in_graph_mode(Cast(), f32(3, seed=1))
    assert_same(with_graph_mode, ms.Tensor(f32(3, seed=1), ms.float64) * 2)


def _in_graph_mode(net, *args):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(*args)
        return net(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_tracer_a_primitive_that_forwards_becomes_its_op_and_remembers_it():
    class UsesPrimitive(nn.Cell):
        def __init__(self):
            super().__init__()
            self.add = ops.Add()

        def construct(self, x):
            return self.add(x, x)

    graph = ms.graph.build_graph(UsesPrimitive(), f32(3))
    (node,) = graph.nodes
    assert node.op == "add" and node.primitive is not None and node.primitive.name == "Add"


def test_tracer_a_soft_op_that_computes_itself_is_recorded_whole():
    class Copies(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dropout = ops.Dropout(keep_prob=0.5)

        def construct(self, x):
            out, mask = self.dropout(x.copy())
            return out, mask

    graph = ms.graph.build_graph(Copies(), f32(4))
    assert graph.ops() == ["copy", "Dropout"]
    assert graph.nodes[1].kind == "primitive" and graph.nodes[1].random


def test_tracer_ops_inside_ops_belong_to_the_outer_op():
    graph = ms.graph.build_graph(nn.SequentialCell(nn.Dense(4, 2), nn.Sigmoid()), f32(1, 4))
    assert graph.ops() == ["dense", "sigmoid"]


def test_tracer_loops_over_python_ranges_unroll():
    class Repeat(nn.Cell):
        def construct(self, x, times):
            for _ in range(times):
                x = ops.relu(x) - 1.0
            return x

    graph = ms.graph.build_graph(Repeat(), f32(3), 3)
    assert graph.ops() == ["relu", "sub"] * 3


def test_tracer_leaves_the_state_as_it_found_it():
    import sys

    from cellkit.nn import cell as cell_mod
    from cellkit.graph import tracer

    class Fails(nn.Cell):
        def construct(self, x):
            if x.sum() > 1e9:  # a graph break, then an error in the user's code
                return x
            raise ValueError("construct failed")

    before = (sys.getprofile(), cell_mod._direct_calls, sys.modules["cellkit.tensor"]._value_guard, print)
    with pytest.raises(ValueError, match="construct failed"):
        ms.graph.build_graph(Fails(), f32(3))
    assert (sys.getprofile(), cell_mod._direct_calls, sys.modules["cellkit.tensor"]._value_guard, print) == before
    assert tracer.active() is None
    assert bool(ms.Tensor([1.0]))  # conversions work again outside tracing


def test_tracer_keeps_stop_gradient_when_the_graph_is_replayed(graph_mode):
    # stop_gradient hands back the same memory; the trace must still see a value of its own, or the
    # replayed graph (second call on) would let the gradient through: d/dw [sg(w*x) * w] is w*x, not 2*w*x.
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.float32(1.5)), name="w")

        def construct(self, x):
            return (ops.stop_gradient(self.w * x) * self.w).sum()

    net = Net()
    grad = ms.grad(net, grad_position=None, weights=net.trainable_params())
    x = ms.Tensor(np.float32(2.0))
    assert [float(grad(x)[0]) for _ in range(3)] == [3.0, 3.0, 3.0]


def test_tracer_keeps_insert_gradient_of_when_the_graph_is_replayed(graph_mode):
    # InsertGradientOf hands back its input's values; like stop_gradient it must stay in the replayed graph.
    double = ops.InsertGradientOf(lambda g: g * 2)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.float32(1.5)), name="w")

        def construct(self, x):
            return double(self.w * x).sum()

    net = Net()
    grad = ms.grad(net, grad_position=None, weights=net.trainable_params())
    x = ms.Tensor(np.float32(2.0))
    assert [float(grad(x)[0]) for _ in range(3)] == [4.0, 4.0, 4.0]
