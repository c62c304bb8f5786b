"""GRAPH_MODE against PyNative: a 10-layer Dense(64, 64) + ReLU forward at batch 1.

Run:  python benchmarks/graph_mode.py

Measured in one process with one timer (best of several repeats, as in
``benchmarks/cell_call.py``):

1. PyNative: ``net(x)`` with the context in PYNATIVE_MODE -- every layer is a
   Cell call, every op checks and wraps its arguments.
2. GRAPH_MODE: the same ``net(x)`` after ``set_context(mode=GRAPH_MODE)`` --
   the first call traced ``construct`` into a graph; each call now runs the
   generated straight-line function on arrays (dense and ReLU kernels).
3. ``ms.jit(net)``: the compiled construct called directly (no ``Cell.__call__``).
4. The NumPy floor: the same ten matmuls, adds and ``np.maximum`` by hand.

Both modes compute bit-identical outputs (checked before timing).  Goal:
the compiled graph at least 1.5x faster than PyNative; the script prints
the ratio.
"""
from __future__ import annotations

import timeit

import numpy as np

import cellkit as ms
from cellkit import nn

REPEATS = 9
NUMBER = 2000


def best_time(fn, number=NUMBER):
    return min(timeit.repeat(fn, number=number, repeat=REPEATS)) / number


def build():
    ms.set_seed(0)
    layers = []
    for _ in range(10):
        layers += [nn.Dense(64, 64), nn.ReLU()]
    return nn.SequentialCell(layers)


def main():
    net = build()
    x_host = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    x = ms.Tensor(x_host)
    weights = [(c.weight.asnumpy(), c.bias.asnumpy()) for c in net if isinstance(c, nn.Dense)]

    def numpy_stack():
        h = x_host
        for w, b in weights:
            h = np.maximum(h @ w.T + b, 0)
        return h

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_out = net(x).asnumpy()
    t_pynative = best_time(lambda: net(x))

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_out = net(x).asnumpy()  # the first call traces and compiles
        assert np.array_equal(graph_out, eager_out), "GRAPH_MODE and PyNative outputs differ"
        t_graph = best_time(lambda: net(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    jitted = ms.jit(net)
    assert np.array_equal(jitted(x).asnumpy(), eager_out)
    t_jit = best_time(lambda: jitted(x))
    t_floor = best_time(numpy_stack)

    compiled = ms.graph.compiled_of(net)
    print(f"cellkit {ms.__version__} on {ms.backend.current().name}; numpy {np.__version__}")
    print(f"graph: {len(compiled.graph.nodes)} nodes, {compiled.plan.kernels} on kernels; "
          f"traced {ms.graph.trace_count(net)} time(s)")
    print(f"{'10 x (Dense+ReLU), batch 1':34s} {'us/call':>9s} {'vs PyNative':>12s}")
    for label, t in (("PyNative net(x)", t_pynative), ("GRAPH_MODE net(x)", t_graph),
                     ("ms.jit(net)(x)", t_jit), ("NumPy floor", t_floor)):
        print(f"{label:34s} {t * 1e6:9.2f} {t_pynative / t:11.2f}x")
    ratio = t_pynative / t_graph
    verdict = "meets" if ratio >= 1.5 else "misses"
    print(f"GRAPH_MODE is {ratio:.2f}x faster than PyNative ({verdict} the 1.5x goal)")


if __name__ == "__main__":
    main()
