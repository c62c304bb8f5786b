"""Recompute at graph level: segments run through cellkit.recompute.checkpoint with identical gradients."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit import recompute as rc
from cellkit.graph.segments import Segment, plan_steps

from tests.graph.graph_models import assert_same, f64


def net64(seed=0):
    ms.set_seed(seed)
    return nn.SequentialCell(nn.Dense(4, 8, dtype=ms.float64), nn.Tanh(), nn.Dense(8, 8, dtype=ms.float64),
                             nn.Dropout(p=0.3), nn.Dense(8, 2, dtype=ms.float64))


def grads_of(net, x):
    loss = lambda x: (net(x) * net(x)).sum()  # noqa: E731 -- the network runs twice per step
    return ms.value_and_grad(loss, grad_position=0, weights=net.trainable_params())(x)


@pytest.fixture
def count_checkpoints(monkeypatch):
    calls = []
    real = rc.checkpoint

    def counting(run, args, weights=(), label="region"):
        calls.append(label)
        return real(run, args, weights, label)

    monkeypatch.setattr(rc, "checkpoint", counting)
    return calls


def test_segments_group_the_nodes_of_a_recomputed_cell():
    net = net64()
    net[2].recompute()
    graph = ms.graph.build_graph(net, f64(3, 4))
    steps = plan_steps(graph)
    segments = [s for s in steps if isinstance(s, Segment)]
    assert [(len(s.nodes), s.label) for s in segments] == [(1, "Default/2-Dense")]
    (segment,) = segments
    assert [s.name for s in segment.states] == ["2.weight", "2.bias"]
    assert len(segment.inputs) == 1 and len(segment.outputs) == 1


def test_segments_gradients_are_identical_with_recompute(count_checkpoints):
    x = f64(3, 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    plain_net = net64()
    plain_net.set_train()
    ms.set_seed(11)
    grads_of(plain_net, x)  # first call: traced
    ms.set_seed(11)
    plain = grads_of(plain_net, x)
    recomputed_net = net64()
    recomputed_net.set_train()
    for i in (0, 2, 3):
        recomputed_net[i].recompute()
    ms.set_seed(11)
    grads_of(recomputed_net, x)
    count_checkpoints.clear()
    ms.set_seed(11)
    again = grads_of(recomputed_net, x)
    assert count_checkpoints  # the segments really went through checkpoint
    assert_same(plain, again)


def test_segments_a_whole_recomputed_network_replays_dropout_identically(count_checkpoints):
    x = f64(3, 4)
    outer = nn.SequentialCell(net64(), nn.Dense(2, 1, dtype=ms.float64)).set_train()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(5)
    reference = grads_of(outer, x)  # traced, no recompute
    outer[0].recompute()
    count_checkpoints.clear()
    ms.set_seed(5)
    grads_of(outer, x)  # re-traced after the change (the loss's second call already runs the graph)
    ms.set_seed(5)
    recomputed = grads_of(outer, x)
    assert count_checkpoints == ["Default/0-SequentialCell"] * 3
    assert_same(reference, recomputed)


def test_segments_primitive_recompute_marks_single_ops():
    class WithPrimitive(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4, dtype=ms.float64)
            self.act = ops.ReLU().recompute()

        def construct(self, x):
            return self.act(self.fc(x)) * 2

    net = WithPrimitive()
    graph = ms.graph.build_graph(net, f64(2, 4))
    marked = [n.op for n in graph.nodes if n.recompute is not None]
    assert marked == ["relu"]
    x = f64(2, 4)
    loss = lambda x: net(x).sum()  # noqa: E731
    eager = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    compiled = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    assert_same(eager, compiled)


def test_segments_recompute_false_inside_a_recomputed_cell_splits_the_segment():
    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4, dtype=ms.float64)
            self.keep = ops.Sigmoid().recompute(False)

        def construct(self, x):
            return ops.tanh(self.keep(self.fc(x)))

    inner = Inner()
    inner.recompute()
    graph = ms.graph.build_graph(nn.SequentialCell(inner), f64(2, 4))
    assert [n.recompute is not None for n in graph.nodes] == [True, False, True]
    segments = [s for s in plan_steps(graph) if isinstance(s, Segment)]
    assert len(segments) == 2


def test_segments_without_recording_run_as_plain_nodes(count_checkpoints):
    net = net64()
    net[0].recompute()
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net(f64(3, 4))
    out = net(f64(3, 4))
    assert count_checkpoints == [] and out.shape == (3, 2)
    assert np.isfinite(out.asnumpy()).all()
