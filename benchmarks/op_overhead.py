"""Per-op overhead of cellkit against the raw NumPy call it wraps.

Run:  python benchmarks/op_overhead.py

For each op on 64x64 float32 inputs it times, in the same process and with
the same timer:

- the NumPy floor (``np.add(a, b)``, ``a @ b``),
- the cellkit op outside any gradient transform (``ops.add(x, y)``),
- a gradient transform around the op (``ms.grad``), against a NumPy floor
  that computes the same forward pass and the hand-written backward pass.

and prints the ratios.  Goal: small ops outside a transform within 2x of NumPy.
Each figure is the best of several repeats (the least-disturbed run).
"""
from __future__ import annotations

import timeit

import numpy as np

import cellkit as ms
from cellkit import ops

REPEATS = 7


def best_time(fn, number):
    """Seconds per call: the minimum over REPEATS runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=REPEATS)) / number


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    x, y = ms.Tensor(a), ms.Tensor(b)
    ones = np.ones_like(a)

    rows = []

    def compare(label, floor, ours, number):
        t_floor, t_ours = best_time(floor, number), best_time(ours, number)
        rows.append((label, t_floor * 1e6, t_ours * 1e6, t_ours / t_floor))

    compare("add  (forward)", lambda: np.add(a, b), lambda: ops.add(x, y), 20000)
    compare("x + y operator", lambda: a + b, lambda: x + y, 20000)
    compare("mul  (forward)", lambda: np.multiply(a, b), lambda: ops.mul(x, y), 20000)
    compare("matmul (forward)", lambda: np.matmul(a, b), lambda: ops.matmul(x, y), 5000)
    compare("relu (forward)", lambda: np.maximum(a, 0), lambda: ops.relu(x), 20000)
    compare("sum  (forward)", lambda: np.sum(a), lambda: ops.sum(x), 20000)

    grad_add = ms.grad(lambda p, q: ops.add(p, q).sum(), grad_position=(0, 1))

    def numpy_add_grad():
        out = np.add(a, b)
        out.sum()
        return ones.copy(), ones.copy()

    compare("add  + grad transform", numpy_add_grad, lambda: grad_add(x, y), 2000)

    grad_matmul = ms.grad(lambda p, q: ops.matmul(p, q).sum(), grad_position=(0, 1))

    def numpy_matmul_grad():
        out = a @ b
        out.sum()
        g = np.ones_like(out)
        return g @ b.T, a.T @ g

    compare("matmul + grad transform", numpy_matmul_grad, lambda: grad_matmul(x, y), 1000)

    print(f"cellkit {ms.__version__} on {ms.backend.current().name}; numpy {np.__version__}")
    print(f"{'op (64x64 float32)':28s} {'numpy us':>10s} {'cellkit us':>11s} {'ratio':>7s}")
    for label, t_np, t_ck, ratio in rows:
        print(f"{label:28s} {t_np:10.2f} {t_ck:11.2f} {ratio:6.2f}x")
    forward = [r for r in rows if "grad" not in r[0]]
    worst = max(forward, key=lambda r: r[3])
    print(f"worst forward ratio: {worst[3]:.2f}x ({worst[0].strip()}); goal <= 2x")


if __name__ == "__main__":
    main()
