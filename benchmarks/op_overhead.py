"""Per-op overhead of cellkit against the raw NumPy call it wraps -- now, and before, in one run.

Run:  python benchmarks/op_overhead.py [--base b553e8c] [--rounds 3]
      python benchmarks/op_overhead.py --this-only

For each op on 64x64 float32 inputs it times, in the same process and with
the same timer:

- the NumPy floor (``np.add(a, b)``, ``a @ b``, ``a[3]``, ``np.concatenate``),
- the cellkit op outside any gradient transform (``ops.add(x, y)``),
- a gradient transform around the op (``ms.grad``), against a NumPy floor
  that computes the same forward pass and the hand-written backward pass.

The ops students call in loops are here: elementwise arithmetic, matmul,
activations, reductions (``sum``, ``mean`` along an axis, ``max``,
``argmax``), indexing (an int, a slice, a boolean mask), ``cat``, ``stack``
and ``where``.  With ``--base`` (default: the commit before the op
catalogue and the op families, issue 14) the same rows are timed with that
commit's ``cellkit`` too, alternating in fresh processes
(``benchmarks/against_base.py``); a row the base cannot run is left blank.

Goal: small ops outside a transform within 2x of NumPy, and no op slower than before.
Each figure is the best of several repeats (the least-disturbed run).
"""
from __future__ import annotations

import argparse
import timeit

import against_base

DEFAULT_BASE = "b553e8c"  # the last commit before the op catalogue (issue 14)
REPEATS = 7


def best_us(fn, number):
    """Microseconds per call: the minimum over REPEATS runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=REPEATS)) / number * 1e6


def workloads():
    """``[(label, numpy floor, cellkit call, calls per repeat), ...]`` -- rows whose op is missing are left out."""
    import numpy as np

    import cellkit as ms
    from cellkit import ops

    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    x, y = ms.Tensor(a), ms.Tensor(b)
    mask_np = a > 0
    mask = ms.Tensor(mask_np)
    ones = np.ones_like(a)
    rows = [
        ("add (forward)", lambda: np.add(a, b), lambda: ops.add(x, y), 20000),
        ("x + y operator", lambda: a + b, lambda: x + y, 20000),
        ("mul (forward)", lambda: np.multiply(a, b), lambda: ops.mul(x, y), 20000),
        ("matmul (forward)", lambda: np.matmul(a, b), lambda: ops.matmul(x, y), 5000),
        ("relu (forward)", lambda: np.maximum(a, 0), lambda: ops.relu(x), 20000),
        ("sum (forward)", lambda: np.sum(a), lambda: ops.sum(x), 20000),
        ("mean(axis=1)", lambda: np.mean(a, axis=1), lambda: ops.mean(x, 1), 20000),
        ("max (all)", lambda: np.max(a), lambda: ops.amax(x), 20000),
        ("argmax(axis=1)", lambda: np.argmax(a, axis=1), lambda: ops.argmax(x, 1), 20000),
        ("x[3] (int index)", lambda: a[3], lambda: x[3], 20000),
        ("x[:, 1:5] (slice)", lambda: a[:, 1:5], lambda: x[:, 1:5], 20000),
        ("x[mask] (bool mask)", lambda: a[mask_np], lambda: x[mask], 10000),
        ("cat([x, y])", lambda: np.concatenate([a, b]), lambda: ops.cat([x, y]), 20000),
        ("stack([x, y])", lambda: np.stack([a, b]), lambda: ops.stack([x, y]), 20000),
        ("where(mask, x, y)", lambda: np.where(mask_np, a, b), lambda: ops.where(mask, x, y), 20000),
    ]

    def numpy_add_grad():
        np.add(a, b).sum()
        return ones.copy(), ones.copy()

    def numpy_matmul_grad():
        (a @ b).sum()
        g = np.ones((64, 64), np.float32)
        return g @ b.T, a.T @ g

    grad_add = ms.grad(lambda p, q: ops.add(p, q).sum(), grad_position=(0, 1))
    grad_matmul = ms.grad(lambda p, q: ops.matmul(p, q).sum(), grad_position=(0, 1))
    rows += [("add + grad transform", numpy_add_grad, lambda: grad_add(x, y), 2000),
             ("matmul + grad transform", numpy_matmul_grad, lambda: grad_matmul(x, y), 1000)]
    usable = []
    for label, floor, ours, number in rows:
        try:
            ours()
        except (AttributeError, TypeError, NotImplementedError):
            continue  # this cellkit has no such op (an older commit)
        usable.append((label, floor, ours, number))
    return usable


def measure():
    """``{label: cellkit us, "floor:" + label: NumPy us}`` for every row this cellkit can run."""
    out = {}
    for label, floor, ours, number in workloads():
        out["floor:" + label] = best_us(floor, number)
        out[label] = best_us(ours, number)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--this-only", action="store_true", help="time this tree only (no base commit)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        against_base.report_child(measure)
        return
    if args.this_only:
        this, base = measure(), {}
    else:
        best = against_base.compare(__file__, args.base, args.rounds)
        this, base = best["this"], best["base"]
    labels = [k for k in this if not k.startswith("floor:")]
    title = "this tree" if args.this_only else f"this tree and {args.base} (best of {args.rounds} alternating rounds)"
    print(f"per-op overhead on 64x64 float32: {title}")
    print(f"{'op':26s} {'numpy us':>9s} {'this us':>8s} {'ratio':>7s} {'base us':>8s} {'ratio':>7s}")
    for label in labels:
        floor = this["floor:" + label]
        line = f"{label:26s} {floor:9.2f} {this[label]:8.2f} {this[label] / floor:6.2f}x"
        if label in base:
            line += f" {base[label]:8.2f} {base[label] / base['floor:' + label]:6.2f}x"
        print(line)
    forward = [k for k in labels if "grad" not in k]
    worst = max(forward, key=lambda k: this[k] / this["floor:" + k])
    print(f"worst forward ratio: {this[worst] / this['floor:' + worst]:.2f}x ({worst}); goal <= 2x")


if __name__ == "__main__":
    main()
