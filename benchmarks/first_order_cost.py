"""First-order cost of this tree against an earlier commit, in one run.

Run:  python benchmarks/first_order_cost.py [--base 49e1973] [--rounds 5]

The op pattern (saved state on the node, rules written once in a math
namespace) must not make ordinary, first-order work slower.  This script
extracts the ``cellkit`` package of ``--base`` (by default the commit before
the rewrite) into a temporary folder and times the same workloads with both
packages, alternating between them in fresh processes, ``--rounds`` times;
each figure is the best of its rounds (the least-disturbed run of a shared
machine).  Workloads:

- per-op calls on 64x64 float32 (``add``, ``mul``, ``matmul``, ``relu``,
  ``sum``) outside any transform, and ``add`` / ``matmul`` / ``mul`` under
  ``ms.grad``;
- ``nn.Dense(64, 64)`` on one sample (the Cell call overhead);
- a training step of the MLP 784-512-512-10 (batch 128) and of LeNet-5
  (batch 64), as in ``train_step.py``.

It prints microseconds for both and the ratio this/base; the goal is within
5% (a ratio of at most 1.05).
"""
from __future__ import annotations

import argparse
import os
import sys
import timeit

import against_base

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BASE = "49e1973"  # the last commit before the op pattern and higher-order gradients


def _best(fn, number, repeat=5):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def measure():
    """Microseconds per call for every workload, with the cellkit found on sys.path."""
    import numpy as np

    import cellkit as ms
    from cellkit import nn, ops

    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import train_step

    rng = np.random.default_rng(0)
    a = ms.Tensor(rng.standard_normal((64, 64)).astype(np.float32))
    b = ms.Tensor(rng.standard_normal((64, 64)).astype(np.float32))
    out = {
        "add": _best(lambda: ops.add(a, b), 20000),
        "mul": _best(lambda: ops.mul(a, b), 20000),
        "matmul": _best(lambda: ops.matmul(a, b), 5000),
        "relu": _best(lambda: ops.relu(a), 20000),
        "sum": _best(lambda: ops.sum(a), 20000),
    }
    for name, op in (("add", ops.add), ("mul", ops.mul), ("matmul", ops.matmul)):
        grad = ms.grad(lambda p, q, op=op: op(p, q).sum(), grad_position=(0, 1))
        out[f"{name} + grad"] = _best(lambda grad=grad: grad(a, b), 2000)
    dense = nn.Dense(64, 64)
    x1 = ms.Tensor(rng.standard_normal((1, 64)).astype(np.float32))
    out["Dense(64,64) call"] = _best(lambda: dense(x1), 20000)

    ms.set_seed(0)
    mlp = train_step.cellkit_step(train_step.MLP())
    xm = ms.Tensor(rng.standard_normal((128, 784)).astype(np.float32))
    ym = ms.Tensor(rng.integers(0, 10, 128).astype(np.int32))
    out["MLP step"] = _best(lambda: mlp(xm, ym), 20, repeat=7)
    lenet = train_step.cellkit_step(train_step.LeNet5())
    xl = ms.Tensor(rng.standard_normal((64, 1, 32, 32)).astype(np.float32))
    yl = ms.Tensor(rng.integers(0, 10, 64).astype(np.int32))
    out["LeNet step"] = _best(lambda: lenet(xl, yl), 20, repeat=7)
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
    print(f"first-order cost: this tree against {args.base} (best of {args.rounds} alternating rounds)")
    print(f"{'workload':24s} {'base us':>10s} {'this us':>10s} {'this/base':>10s}")
    for key in best["base"]:
        b, t = best["base"][key], best["this"][key]
        print(f"{key:24s} {b:10.2f} {t:10.2f} {t / b:9.3f}x")


if __name__ == "__main__":
    main()
