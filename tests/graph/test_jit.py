"""``cellkit.jit``: functions, construct methods, Cell instances and classes, in either mode."""
import warnings

import pytest

import cellkit as ms
from cellkit import nn, ops

from tests.graph.graph_models import assert_same, f32, mlp


def test_jit_decorates_a_function_with_or_without_arguments():
    @ms.jit
    def plain(x, y):
        return ops.relu(x) * y

    @ms.jit(jit_level="O1")
    def folded(x):
        unused = ops.exp(x)  # noqa: F841
        return x + ops.ones((3,)) * 2.0

    x = f32(3)
    for _ in range(2):
        assert_same(plain(x, x), ops.relu(x) * x)
        assert_same(folded(x), x + 2.0)
    assert ms.graph.function_trace_count(plain) == 1
    assert ms.graph.function_graph(plain).ops() == ["relu", "mul"]
    assert ms.graph.function_graph(folded).ops() == ["add"]


def test_jit_default_level_is_o0_as_in_mindspore():
    @ms.jit
    def keeps_dead_code(x):
        ops.exp(x)
        return x * 2

    keeps_dead_code(f32(2))
    assert ms.graph.function_graph(keeps_dead_code).ops() == ["exp", "mul"]


def test_jit_on_construct_compiles_per_cell_instance():
    class Net(nn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.fc = nn.Dense(3, 3)
            self.scale = scale

        @ms.jit
        def construct(self, x):
            return self.fc(x) * self.scale

    a, b = Net(2.0), Net(3.0)
    x = f32(1, 3)
    for _ in range(2):
        assert_same(a(x), ops.dense(x, a.fc.weight, a.fc.bias) * 2.0)
        assert_same(b(x), ops.dense(x, b.fc.weight, b.fc.bias) * 3.0)
    assert ms.graph.function_trace_count(Net.construct, a) == 1
    assert ms.graph.function_graph(Net.construct, b).ops() == ["dense", "mul"]


def test_jit_on_a_cell_instance_returns_a_bound_compiled_construct():
    net = mlp()
    compiled = ms.jit(net)
    x = f32(2, 4)
    assert_same(compiled(x), net(x))
    assert_same(compiled(x), net(x))
    assert compiled.__self__ is net
    assert ms.graph.function_graph(compiled).ops() == ["dense", "relu", "dense"]


def test_jit_on_a_cell_class_compiles_its_construct():
    @ms.jit
    class Doubler(nn.Cell):
        def construct(self, x):
            return x * 2

    net = Doubler()
    assert_same(net(f32(2)), f32(2) * 2)
    assert ms.graph.function_trace_count(Doubler.construct, net) == 1


def test_jit_runs_without_hooks_even_in_pynative():
    net = mlp()
    calls = []
    net[0].register_forward_hook(lambda *a: calls.append(1))

    @ms.jit
    def run(x):
        return net(x)

    with pytest.warns(UserWarning, match="Hooks do not run"):
        run(f32(1, 4))
    run(f32(1, 4))
    assert calls == []
    net(f32(1, 4))
    assert calls == [1]  # PyNative outside jit: hooks run


def test_jit_inside_a_traced_graph_becomes_part_of_it(graph_mode):
    @ms.jit
    def inner(x):
        return ops.tanh(x)

    class Outer(nn.Cell):
        def construct(self, x):
            return inner(x) + 1.0

    net = Outer()
    net(f32(2))
    assert ms.graph.graph_of(net).ops() == ["tanh", "add"]
    assert ms.graph.function_trace_count(inner) == 0


def test_jit_gradients_flow_through_a_jitted_function():
    w = ms.Parameter(ms.Tensor([[1.0, 2.0], [3.0, 4.0]], ms.float64), name="w")

    @ms.jit
    def model(x):
        return ops.matmul(x, w).sum()

    x = ms.Tensor([[1.0, -1.0]], ms.float64)
    first = ms.grad(model, grad_position=0, weights=[w])(x)
    second = ms.grad(model, grad_position=0, weights=[w])(x)
    assert_same(first, second)
    assert second[1][0].asnumpy().tolist() == [[1.0, 1.0], [-1.0, -1.0]]


@pytest.mark.parametrize("kwargs, error", [
    ({"capture_mode": "magic"}, ValueError), ({"jit_level": "O7"}, ValueError), ({"dynamic": 2}, ValueError),
    ({"fullgraph": "yes"}, TypeError), ({"backend": "GE"}, ValueError),
])
def test_jit_checks_its_options(kwargs, error):
    with pytest.raises(error, match="For 'jit'"):
        ms.jit(lambda x: x, **kwargs)


def test_jit_refuses_what_is_not_callable():
    with pytest.raises(TypeError, match="function"):
        ms.jit(42)


def test_jit_wrapping_twice_is_harmless():
    @ms.jit
    def f(x):
        return x + 1.0

    assert ms.jit(f) is f
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(f(f32(2)), f32(2) + 1.0)
