"""Graph breaks, print nodes, global assignments and iterator results inside jit / GRAPH_MODE."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops

from tests.graph.graph_models import assert_same


def _with_break(x):
    if x.sum() < 0:  # <break & escape>
        return x * 3
    return x - 1


def test_break_results_equal_pynative_and_every_outcome_is_one_variant():
    f = ms.jit(_with_break)
    inputs = [ms.Tensor([1.0, 2.0]), ms.Tensor([-5.0, 1.0]), ms.Tensor([3.0, 0.0]), ms.Tensor([-1.0, -1.0])]
    for x in inputs:
        assert_same(f(x), _with_break(x))
    assert ms.graph.function_trace_count(f) == 2


def test_break_is_drawn_with_its_file_and_line_escaped():
    f = ms.jit(_with_break)
    f(ms.Tensor([1.0]))
    graph = ms.graph.function_graph(f)
    (brk,) = graph.breaks
    assert brk.location.endswith(f"test_fallback.py:{_with_break.__code__.co_firstlineno + 1}")
    html = graph._repr_mimebundle_()["text/html"]
    assert "graph break" in html and "test_fallback.py:" in html
    assert "&lt;break &amp; escape&gt;" in html and "<break & escape>" not in html
    from cellkit.display.graph_ir import ir_graph

    drawing = ir_graph(graph)
    assert any(box.lines[0] == "graph break: bool()" for box in drawing.nodes)
    svg = drawing.svg()
    assert svg is None or "<break & escape>" not in svg


def test_values_that_never_repeat_run_op_by_op_after_a_few_variants():
    @ms.jit
    def scale(x):
        return x * float(x.sum())

    for i in range(12):
        x = ms.Tensor([float(i), 1.0])
        assert_same(scale(x), x * (i + 1.0))
    assert ms.graph.function_trace_count(scale) <= 9


def test_break_after_a_random_op_runs_op_by_op_with_pynative_results():
    def f(x):
        y = ops.dropout(x, p=0.5)
        return y * 2 if y.sum() > 0 else y

    x = ms.Tensor(np.ones((4, 4), np.float32))
    ms.set_seed(3)
    expected = [f(x), f(x)]
    ms.set_seed(3)
    g = ms.jit(f)
    got = [g(x), g(x)]
    for a, b in zip(got, expected):
        assert_same(a, b)


def test_gradient_through_a_cell_with_a_break(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor([2.0, -1.0]), name="w")

        def construct(self, x):
            y = x * self.w
            return y * 3 if y.sum() > 0 else y

    net = Net()
    grad = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())
    np.testing.assert_allclose(grad(ms.Tensor([1.0, 1.0]))[0].asnumpy(), [3.0, 3.0])
    np.testing.assert_allclose(grad(ms.Tensor([-1.0, 1.0]))[0].asnumpy(), [-1.0, 1.0])


def test_print_in_a_graph_prints_at_every_call(capsys):
    @ms.jit
    def show(x):
        print("x:", x)
        return x + 1

    show(ms.Tensor([1.0, 2.0]))
    show(ms.Tensor([5.0, 6.0]))
    out = capsys.readouterr().out
    assert out == ("x:\nTensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])\n"
                   "x:\nTensor(shape=[2], dtype=Float32, value=[ 5.00000000e+00  6.00000000e+00])\n")
    assert "Print" in ms.graph.function_graph(show).ops()


def test_global_augmented_assignment_runs_at_every_call():
    global COUNTER
    COUNTER = 0

    @ms.jit
    def bump(x):
        global COUNTER
        COUNTER += 1
        return x + COUNTER

    assert_same(bump(ms.Tensor([1.0])), ms.Tensor([2.0]))
    assert_same(bump(ms.Tensor([1.0])), ms.Tensor([3.0]))
    assert COUNTER == 2
    graph = ms.graph.function_graph(bump)
    assert graph.breaks[0].reason == "assigns the global 'COUNTER'"


COUNTER = 0


@pytest.mark.parametrize("make, expected", [
    (lambda: map(lambda v: v * 2, (1, 2, 3)), (2, 4, 6)),
    (lambda: zip((1, 2), (3, 4)), ((1, 3), (2, 4))),
    (lambda: range(3), (0, 1, 2)),
    (lambda: enumerate((5, 6)), ((0, 5), (1, 6))),
    (lambda: filter(lambda v: v > 1, [1, 2, 3]), [2, 3]),
    (lambda: (v + 1 for v in (1, 2)), (2, 3)),
    (lambda: (1, 2.5, True), (1, 2.5, True)),
])
def test_iterators_returned_from_jit_are_tuples_and_lists(make, expected):
    @ms.jit
    def f(x):
        return make()

    for _ in range(2):
        got = f(ms.Tensor([1.0]))
        assert got == expected and type(got) is type(expected)
        assert [type(v) for v in got] == [type(v) for v in expected]


def test_fullgraph_true_refuses_a_break_naming_the_line():
    from cellkit.graph import GraphCompileError

    f = ms.jit(_with_break, fullgraph=True)
    with pytest.raises(GraphCompileError) as info:
        f(ms.Tensor([1.0]))
    message = str(info.value)
    assert isinstance(info.value, ValueError) and "bool()" in message and "input 'x'" in message
    assert "test_fallback.py:" in message and "if x.sum() < 0:" in message


def test_breaks_survive_the_json_form():
    f = ms.jit(_with_break)
    f(ms.Tensor([1.0]))
    graph = ms.graph.function_graph(f)
    back = ms.graph.graph_from_proto(ms.graph.graph_to_proto(graph))
    assert [(b.reason, b.location, b.line) for b in back.breaks] == [(b.reason, b.location, b.line)
                                                                     for b in graph.breaks]
    assert back.to_dict() == graph.to_dict()
