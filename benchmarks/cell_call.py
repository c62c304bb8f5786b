"""Calling a Cell: this tree against an earlier commit, the raw NumPy floor and PyTorch, in one run.

Run:  python benchmarks/cell_call.py [--base 9e3781c] [--rounds 5]

Each workload is timed with the ``cellkit`` of ``--base`` (by default the
commit before the Cell was composed of parts and stages) and with this
tree, alternating in fresh processes (``benchmarks/against_base.py``); the
floor and PyTorch are timed in the same processes.  Workloads:

1. ``nn.Dense(64, 64)`` on a batch of 1, against ``x @ W.T + b`` in NumPy.
2. A 10-layer ``SequentialCell`` of Dense(64, 64) + ReLU, against the same
   ten matmuls, adds and ``np.maximum`` in NumPy, and against PyTorch's
   ``nn.Sequential`` of ``nn.Linear`` + ``nn.ReLU`` (if torch is importable).
3. The price of hook support: calling the Cell (``dense(x)``, whose
   ``__call__`` checks one attribute before going to ``construct``) against
   an object whose ``__call__`` forwards to the same ``construct`` with no
   hook machinery at all.
4. The slow path: a Dense with one forward hook, and one under ``to_float``.

Goals: Dense at most 2x its floor, hook support at most 1.05x a bare call.
"""
from __future__ import annotations

import argparse
import timeit

import against_base

DEFAULT_BASE = "9e3781c"  # the last commit before the composed Cell (issue 15)
REPEATS = 9


def _best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=REPEATS)) / number * 1e6


def measure():
    """Microseconds per call for every workload, with the cellkit found on sys.path."""
    import numpy as np

    import cellkit as ms
    from cellkit import nn

    ms.set_seed(0)
    out = {}
    dense = nn.Dense(64, 64)
    x_host = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    x = ms.Tensor(x_host)
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    dense(x)  # the first call checks names; time the calls after it
    out["numpy x @ W.T + b"] = _best(lambda: x_host @ w.T + b, 20000)
    out["Dense(64,64) call"] = _best(lambda: dense(x), 20000)

    class NoHookSupport:
        def __init__(self, cell):
            self.construct = cell.construct

        def __call__(self, *args, **kwargs):
            return self.construct(*args, **kwargs)

    bare = NoHookSupport(dense)
    out["bare call (no hook support)"] = _best(lambda: bare(x), 20000)

    layers = []
    for _ in range(10):
        layers += [nn.Dense(64, 64), nn.ReLU()]
    stack = nn.SequentialCell(layers)
    stack(x)
    weights = [(c.weight.asnumpy(), c.bias.asnumpy()) for c in stack if isinstance(c, nn.Dense)]

    def numpy_stack():
        h = x_host
        for wi, bi in weights:
            h = np.maximum(h @ wi.T + bi, 0)
        return h

    out["numpy 10 x (matmul+add+max)"] = _best(numpy_stack, 2000)
    out["10 x (Dense+ReLU) call"] = _best(lambda: stack(x), 2000)

    hooked = nn.Dense(64, 64)
    hooked.register_forward_hook(lambda cell, inputs, output: None)
    hooked(x)
    out["Dense + forward hook"] = _best(lambda: hooked(x), 5000)
    half = nn.Dense(64, 64).to_float(ms.float16)
    half(x)
    out["Dense to_float(float16)"] = _best(lambda: half(x), 5000)

    try:
        import torch
    except ImportError:
        return out
    torch.set_num_threads(1)
    with torch.no_grad():
        xt = torch.from_numpy(x_host)
        linear = torch.nn.Linear(64, 64)
        seq = torch.nn.Sequential(*[m for _ in range(10) for m in (torch.nn.Linear(64, 64), torch.nn.ReLU())])
        out["torch Linear(64,64)"] = _best(lambda: linear(xt), 20000)
        out["torch 10 x (Linear+ReLU)"] = _best(lambda: seq(xt), 2000)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        against_base.report_child(measure)
        return
    best = against_base.compare(__file__, args.base, args.rounds)
    base, this = best["base"], best["this"]
    print(f"Cell call cost: this tree against {args.base} (best of {args.rounds} alternating rounds)")
    print(f"{'workload':32s} {'base us':>9s} {'this us':>9s} {'this/base':>10s}")
    for key in base:
        print(f"{key:32s} {base[key]:9.2f} {this[key]:9.2f} {this[key] / base[key]:9.3f}x")
    print()
    print(f"{'ratio':48s} {'base':>7s} {'this':>7s}")
    ratios = [
        ("Dense call / NumPy floor (goal <= 2x)", "Dense(64,64) call", "numpy x @ W.T + b"),
        ("hook support: dense(x) / bare call (goal <= 1.05x)", "Dense(64,64) call", "bare call (no hook support)"),
        ("10 x (Dense+ReLU) / NumPy floor", "10 x (Dense+ReLU) call", "numpy 10 x (matmul+add+max)"),
        ("10 x (Dense+ReLU) / PyTorch", "10 x (Dense+ReLU) call", "torch 10 x (Linear+ReLU)"),
        ("Dense call / PyTorch Linear", "Dense(64,64) call", "torch Linear(64,64)"),
    ]
    for label, ours, reference in ratios:
        if reference in base:
            print(f"{label:48s} {base[ours] / base[reference]:6.2f}x {this[ours] / this[reference]:6.2f}x")


if __name__ == "__main__":
    main()
