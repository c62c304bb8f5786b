"""Small models and helpers shared by the graph tests."""
import numpy as np

import cellkit as ms
from cellkit import nn, ops


def f32(*shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def f64(*shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape))


def mlp(dtype=ms.float32, seed=0):
    ms.set_seed(seed)
    return nn.SequentialCell(nn.Dense(4, 8, dtype=dtype), nn.ReLU(), nn.Dense(8, 3, dtype=dtype))


class Block(nn.Cell):
    """Dense -> BatchNorm -> ReLU -> Dropout -> Dense, plus an unused op and a constant subexpression."""

    def __init__(self, dtype=ms.float32):
        super().__init__()
        self.fc1 = nn.Dense(4, 8, dtype=dtype)
        self.bn = nn.BatchNorm1d(8, dtype=dtype)
        self.drop = nn.Dropout(p=0.5)
        self.fc2 = nn.Dense(8, 3, dtype=dtype)

    def construct(self, x):
        h = ops.relu(self.bn(self.fc1(x)))
        unused = ops.exp(x)  # noqa: F841 -- dead code on purpose
        shift = ops.ones((3,), x.dtype) * 2.0
        return self.fc2(self.drop(h)) + shift


def host(value):
    """Tensors (in any nesting) as NumPy arrays, for comparisons."""
    if isinstance(value, ms.Tensor):
        return value.asnumpy()
    if isinstance(value, (tuple, list)):
        return type(value)(host(v) for v in value)
    if isinstance(value, dict):
        return {k: host(v) for k, v in value.items()}
    return value


def assert_same(a, b):
    """Bitwise-equal outputs (same structure, dtypes and values)."""
    a, b = host(a), host(b)
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), f"values differ:\n{a}\n{b}"
    else:
        assert a == b


class StateSnapshot:
    """Parameters' data of a Cell, to run the same model twice from the same start."""

    def __init__(self, net):
        self.net = net
        self.saved = [(p, p.asnumpy().copy()) for p in net.get_parameters()]

    def restore(self):
        for p, value in self.saved:
            p.set_data(ms.Tensor(value))


def pynative_then_graph(net, run):
    """``run()`` in PyNative, then (from the same Parameters and seed) in GRAPH_MODE; both results."""
    snapshot = StateSnapshot(net)
    ms.set_seed(7)
    eager = run()
    after_eager = [p.asnumpy().copy() for p in net.get_parameters()]
    snapshot.restore()
    ms.set_seed(7)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = run()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    after_graph = [p.asnumpy().copy() for p in net.get_parameters()]
    return eager, graph, after_eager, after_graph
