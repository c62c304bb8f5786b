"""Calling a Cell: cellkit against the raw NumPy floor (and PyTorch when installed).

Run:  python benchmarks/cell_call.py

Measured in one process with one timer (best of several repeats):

1. ``nn.Dense(64, 64)`` on a batch of 1, against ``x @ W.T + b`` in NumPy.
2. A 10-layer ``SequentialCell`` of Dense(64, 64) + ReLU, against the same
   ten matmuls, adds and ``np.maximum`` in NumPy.
3. The price of hook support: calling the Cell (``dense(x)``, whose
   ``__call__`` checks one flag before going to ``construct``) against an
   object whose ``__call__`` forwards to the same ``construct`` with no hook
   machinery at all.
4. PyTorch's ``nn.Linear`` / ``nn.Sequential`` on the same shapes, if torch
   is importable (skipped otherwise).

Goals: Dense at most 2x its floor, the 10-layer stack at most 2x its floor,
and no measurable cost for hook support when no hook is registered.
"""
from __future__ import annotations

import timeit

import numpy as np

import cellkit as ms
from cellkit import nn

REPEATS = 9


def best_time(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=REPEATS)) / number


def main():
    ms.set_seed(0)
    rows = []

    def compare(label, floor, ours, number):
        t_floor, t_ours = best_time(floor, number), best_time(ours, number)
        rows.append((label, t_floor * 1e6, t_ours * 1e6, t_ours / t_floor))

    # 1. one Dense layer, batch 1
    dense = nn.Dense(64, 64)
    x_host = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    x = ms.Tensor(x_host)
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    compare("Dense(64,64) batch 1", lambda: x_host @ w.T + b, lambda: dense(x), 20000)

    # 2. ten Dense + ReLU layers
    layers = []
    for _ in range(10):
        layers += [nn.Dense(64, 64), nn.ReLU()]
    stack = nn.SequentialCell(layers)
    weights = [(c.weight.asnumpy(), c.bias.asnumpy()) for c in stack if isinstance(c, nn.Dense)]

    def numpy_stack():
        h = x_host
        for wi, bi in weights:
            h = np.maximum(h @ wi.T + bi, 0)
        return h

    compare("10 x (Dense+ReLU) batch 1", numpy_stack, lambda: stack(x), 2000)

    # 3. hook support: Cell.__call__ against a call with no hook machinery at all
    class NoHookSupport:
        def __init__(self, cell):
            self.construct = cell.construct

        def __call__(self, *args, **kwargs):
            return self.construct(*args, **kwargs)

    bare = NoHookSupport(dense)
    compare("hook support: dense(x) vs bare call", lambda: bare(x), lambda: dense(x), 20000)

    print(f"cellkit {ms.__version__} on {ms.backend.current().name}; numpy {np.__version__}")
    print(f"{'case':36s} {'floor us':>9s} {'cellkit us':>11s} {'ratio':>7s}")
    for label, t_floor, t_ours, ratio in rows:
        print(f"{label:36s} {t_floor:9.2f} {t_ours:11.2f} {ratio:6.2f}x")

    try:
        import torch
    except ImportError:
        print("PyTorch not installed: peer comparison skipped")
        return
    torch.set_num_threads(1)
    with torch.no_grad():
        linear = torch.nn.Linear(64, 64)
        xt = torch.from_numpy(x_host)
        t_floor = best_time(lambda: x_host @ w.T + b, 20000)
        t_torch = best_time(lambda: linear(xt), 20000)
        seq = torch.nn.Sequential(*[m for _ in range(10) for m in (torch.nn.Linear(64, 64), torch.nn.ReLU())])
        t_seq_floor = best_time(numpy_stack, 2000)
        t_seq = best_time(lambda: seq(xt), 2000)
    print(f"{'torch nn.Linear(64,64) batch 1':36s} {t_floor * 1e6:9.2f} {t_torch * 1e6:11.2f} {t_torch / t_floor:6.2f}x")
    print(f"{'torch 10 x (Linear+ReLU) batch 1':36s} {t_seq_floor * 1e6:9.2f} {t_seq * 1e6:11.2f} {t_seq / t_seq_floor:6.2f}x")


if __name__ == "__main__":
    main()
