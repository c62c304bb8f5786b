"""Second-order work against ``torch.func`` in the same process: a Hessian-vector product and per-example gradients.

Run:  python benchmarks/higher_order.py

A small MLP (32 -> 64 -> 64 -> 10, tanh, mean softmax cross-entropy),
float32, on the CPU:

1. **Hessian-vector product** of the loss with respect to all weights, at a
   batch of 64: cellkit's ``ms.jvp(ms.grad(loss), ...)`` (forward over
   reverse) and ``grad`` of ``<grad(loss), v>`` (reverse over reverse),
   against ``torch.func.jvp(torch.func.grad(loss))``.
2. **Per-example gradients** of the loss with respect to all weights, for a
   batch of 64: ``ms.vmap(ms.grad(loss_one), in_axes=(None, 0, 0))`` against
   ``torch.func.vmap(torch.func.grad(loss_one))``.

Each figure is the best of several interleaved rounds (the least-disturbed
run of a shared machine); both libraries use one thread.  The goal is within
2x of PyTorch.  The results are checked against each other first.
"""
from __future__ import annotations

import time
import timeit

import numpy as np

import cellkit as ms
from cellkit import ops

ROUNDS = 7
BATCH = 64
SIZES = (32, 64, 64, 10)


def best_times(fns, number):
    best = [float("inf")] * len(fns)
    for _ in range(ROUNDS):
        for i, fn in enumerate(fns):
            settle = time.perf_counter() + 0.1
            while time.perf_counter() < settle:
                fn()
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number)
    return best


def make_data():
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        weights.append((rng.standard_normal((fan_out, fan_in)) / np.sqrt(fan_in)).astype(np.float32))
        weights.append(np.zeros(fan_out, np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)
    v = [rng.standard_normal(w.shape).astype(np.float32) for w in weights]
    return weights, x, y, v


# ----------------------------------------------------------------------------- cellkit
def ck_logits(params, x):
    h = x
    for i in range(0, len(params) - 2, 2):
        h = ops.tanh(ops.dense(h, params[i], params[i + 1]))
    return ops.dense(h, params[-2], params[-1])


def ck_loss(*args):
    *params, x, y = args
    return ops.cross_entropy(ck_logits(params, x), y)


def cellkit_workloads(weights, x, y, v):
    params = [ms.Tensor(w) for w in weights]
    xt, yt = ms.Tensor(x), ms.Tensor(y.astype(np.int32))
    vt = [ms.Tensor(a) for a in v]
    n = len(params)
    positions = tuple(range(n))
    grad_loss = ms.grad(ck_loss, grad_position=positions)

    def hvp_forward_over_reverse():
        return ms.jvp(lambda *p: grad_loss(*p, xt, yt), tuple(params), tuple(vt))[1]

    def hvp_reverse_over_reverse():
        def dot(*p):
            gs = grad_loss(*p, xt, yt)
            total = (gs[0] * vt[0]).sum()
            for g, t in zip(gs[1:], vt[1:]):
                total = total + (g * t).sum()
            return total
        return ms.grad(dot, grad_position=positions)(*params)

    def loss_one(*args):
        *p, xi, yi = args
        return ops.cross_entropy(ck_logits(p, ops.expand_dims(xi, 0)), ops.expand_dims(yi, 0))

    per_example = ms.vmap(ms.grad(loss_one, grad_position=positions), in_axes=(None,) * n + (0, 0))

    def per_example_grads():
        return per_example(*params, xt, yt)

    return hvp_forward_over_reverse, hvp_reverse_over_reverse, per_example_grads


# ----------------------------------------------------------------------------- PyTorch
def torch_workloads(weights, x, y, v):
    import torch
    from torch.func import grad, jvp, vmap

    torch.set_num_threads(1)
    params = tuple(torch.from_numpy(w) for w in weights)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    vt = tuple(torch.from_numpy(a) for a in v)

    def logits(p, x):
        h = x
        for i in range(0, len(p) - 2, 2):
            h = torch.tanh(torch.nn.functional.linear(h, p[i], p[i + 1]))
        return torch.nn.functional.linear(h, p[-2], p[-1])

    def loss(p, x, y):
        return torch.nn.functional.cross_entropy(logits(p, x), y)

    def hvp():
        return jvp(lambda p: grad(loss)(p, xt, yt), (params,), (vt,))[1]

    def loss_one(p, xi, yi):
        return loss(p, xi.unsqueeze(0), yi.unsqueeze(0))

    per_example = vmap(grad(loss_one), in_dims=(None, 0, 0))

    def per_example_grads():
        return per_example(params, xt, yt)

    return hvp, per_example_grads


def main():
    weights, x, y, v = make_data()
    fwd_rev, rev_rev, per_ex = cellkit_workloads(weights, x, y, v)
    ours_hvp = [t.asnumpy() for t in fwd_rev()]
    for a, b in zip(ours_hvp, rev_rev()):
        np.testing.assert_allclose(a, b.asnumpy(), rtol=1e-3, atol=1e-5)
    rows = []
    try:
        t_hvp, t_per_ex = torch_workloads(weights, x, y, v)
    except ImportError:
        t_hvp = t_per_ex = None
        print("(torch not installed: cellkit timings only)")
    if t_hvp is not None:
        for a, b in zip(ours_hvp, t_hvp()):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-3, atol=1e-5)
        for a, b in zip(per_ex(), t_per_ex()):
            np.testing.assert_allclose(a.asnumpy(), b.numpy(), rtol=1e-3, atol=1e-5)
        times = best_times([fwd_rev, rev_rev, t_hvp], 20)
        rows.append(("HVP, forward over reverse", times[0], times[2]))
        rows.append(("HVP, reverse over reverse", times[1], times[2]))
        times = best_times([per_ex, t_per_ex], 5)
        rows.append((f"per-example grads, batch {BATCH}", times[0], times[1]))
    else:
        for label, fn, n in (("HVP, forward over reverse", fwd_rev, 20), ("HVP, reverse over reverse", rev_rev, 20),
                             (f"per-example grads, batch {BATCH}", per_ex, 5)):
            rows.append((label, best_times([fn], n)[0], float("nan")))
    print(f"MLP {'-'.join(map(str, SIZES))}, tanh, batch {BATCH}, float32, one thread")
    print(f"{'workload':34s} {'cellkit ms':>11s} {'torch.func ms':>14s} {'ratio':>7s}")
    for label, ours, theirs in rows:
        print(f"{label:34s} {ours * 1e3:11.3f} {theirs * 1e3:14.3f} {ours / theirs:6.2f}x")
    print("goal: within 2x of torch.func")


if __name__ == "__main__":
    main()
