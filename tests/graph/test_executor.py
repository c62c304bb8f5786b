"""Running compiled graphs: the same outputs as PyNative, live Parameters, fresh results."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops

from tests.graph.graph_models import Block, assert_same, f32, mlp, pynative_then_graph


def repeat(net, *args, times=3, **kwargs):
    return lambda: [net(*args, **kwargs) for _ in range(times)]


def test_executor_mlp_matches_pynative():
    net = mlp()
    eager, compiled, _, _ = pynative_then_graph(net, repeat(net, f32(5, 4)))
    assert_same(eager, compiled)


def test_executor_conv_pool_flatten_matches_pynative():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Conv2d(2, 3, 3, has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                            nn.Dense(12, 2))
    eager, compiled, _, _ = pynative_then_graph(net, repeat(net, f32(2, 2, 4, 4)))
    assert_same(eager, compiled)


@pytest.mark.parametrize("training", [True, False])
def test_executor_batchnorm_and_dropout_match_pynative(training):
    net = Block().set_train(training)
    eager, compiled, stats_eager, stats_graph = pynative_then_graph(net, repeat(net, f32(5, 4)))
    assert_same(eager, compiled)
    assert_same(stats_eager, stats_graph)  # running statistics updated the same way (training)


def test_executor_dropout_draws_a_fresh_mask_each_run_as_pynative_does():
    net = nn.Dropout(p=0.5).set_train()
    x = ms.ops.ones((64,))
    eager, compiled, _, _ = pynative_then_graph(net, repeat(net, x))
    assert_same(eager, compiled)
    masks = {tuple(t.asnumpy() > 0) for t in compiled}
    assert len(masks) == 3


def test_executor_tuple_dict_and_passthrough_outputs():
    class Outputs(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")

        def construct(self, x, scale=1.0, *, shift):
            y = x * scale + shift
            return (y, ops.relu(y)), {"input": x, "weight": self.w, "n": 3}

    net = Outputs()
    x = f32(2)
    eager, compiled, _, _ = pynative_then_graph(net, repeat(net, x, 2.0, shift=0.5))
    assert_same(eager, compiled)
    (pair, extra) = compiled[-1]
    assert extra["input"] is x and extra["weight"] is net.w and extra["n"] == 3


def test_executor_keyword_arguments_are_graph_inputs():
    class Kw(nn.Cell):
        def construct(self, x, y=None):
            return x - y

    net = Kw()
    ms.set_context(mode=ms.GRAPH_MODE)
    net(f32(3), y=f32(3, seed=1))
    assert_same(net(f32(3, seed=2), y=f32(3, seed=3)), f32(3, seed=2) - f32(3, seed=3))
    assert [i.name for i in ms.graph.graph_of(net).inputs] == ["x", "y"]


def test_executor_reads_parameters_live():
    net = mlp()
    x = f32(2, 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)
    net[0].weight.set_data(net[0].weight * 0.0)  # as an optimizer would, after compiling
    ms.set_context(mode=ms.PYNATIVE_MODE)
    expected = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert_same(net(x), expected)
    assert ms.graph.trace_count(net) == 1


def test_executor_a_constant_output_is_a_new_tensor_each_call():
    class Constant(nn.Cell):
        def construct(self, x):
            return ops.ones((2,)) * 3.0, x

    net = Constant()
    ms.set_context(mode=ms.GRAPH_MODE)
    first, _ = net(f32(1))
    second, _ = net(f32(1))
    third, _ = net(f32(1))
    assert second is not third and second.asnumpy().tolist() == [3.0, 3.0]
    second[0] = 100.0
    assert net(f32(1))[0].asnumpy().tolist() == [3.0, 3.0]


def test_executor_the_generated_source_is_straight_line_code():
    net = mlp()
    ms.graph.build_graph(net, f32(1, 4))
    source = ms.graph.compiled_of(net).plan.source
    assert source.splitlines()[0] == "def graph_SequentialCell(args, kwargs):"
    assert source.splitlines()[-1] == "    return _T(v2)"
    assert "for " not in source and "if " not in source


def test_executor_gradients_flow_through_the_tape_plan():
    net = mlp(ms.float64)
    x = ms.Tensor(np.random.default_rng(3).standard_normal((5, 4)))
    loss = lambda x: (net(x) ** 2).sum()  # noqa: E731
    eager = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)  # compiled outside the transform
    compiled = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    assert_same(eager, compiled)


def test_executor_graph_mode_on_every_backend(backend):
    net = mlp(ms.float64)
    x = ms.Tensor(np.random.default_rng(3).standard_normal((5, 4)))
    loss = lambda x: (net(x) ** 2).sum()  # noqa: E731
    eager = (net(x), ms.grad(loss, grad_position=0, weights=net.trainable_params())(x))
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)
    compiled = (net(x), ms.grad(loss, grad_position=0, weights=net.trainable_params())(x))
    assert_same(eager, compiled)


def test_executor_assignments_in_construct_run_at_every_call():
    class Accumulate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.total = ms.Parameter(ms.Tensor([0.0, 0.0]), name="total", requires_grad=False)

        def construct(self, x):
            self.total = self.total + x      # a Tensor assigned over a Parameter: set_data
            x[0] = 5.0                       # an in-place write into the input
            return self.total * 1.0

    net = Accumulate()
    inputs = [ms.Tensor([1.0, 2.0]) for _ in range(3)]
    eager, compiled, state_eager, state_graph = pynative_then_graph(
        net, lambda: [net(ms.Tensor(x.asnumpy())) for x in inputs])
    assert_same(eager, compiled)
    assert_same(state_eager, state_graph)
    assert state_graph[0].tolist() == [3.0, 6.0]
    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor([1.0, 2.0])
    net(x)
    assert x.asnumpy().tolist() == [5.0, 2.0]  # written in place, as in PyNative
    assert "set_data" in ms.graph.graph_of(net).ops() and "setitem" in ms.graph.graph_of(net).ops()
