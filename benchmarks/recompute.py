"""Recompute: peak memory and time of a gradient call, with and without per-block recompute.

Run:  python benchmarks/recompute.py [--batch 2048] [--repeats 3]

The network is 16 transformer-style MLP blocks, each
``x + Dense(1024, 256)(GELU(Dense(256, 1024)(x)))``, float32, batch 2048.  The
call is the gradient of ``net(x).sum()`` with respect to every weight.

Measured in one process:

1. **Peak memory** of the gradient call above what existed before it, as
   tracemalloc counts it (NumPy reports its data allocations to it), for the
   plain network and with ``block.recompute()`` on every block; and the same
   peak as :func:`cellkit.memory.profile` accounts it (the two must agree).
2. **Time** of the call with nothing tracing (best of ``--repeats``).
3. The gradients of the two runs, compared bitwise.
4. ``torch.utils.checkpoint`` on the same network when PyTorch is installed
   (optional): time ratio, and peak resident memory measured in a fresh
   subprocess per variant (tracemalloc does not see PyTorch's allocator).

Goals: peak with recompute at most 35% of the peak without; time at most 1.4x.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np

import cellkit as ms
from cellkit import memory, nn

WIDTH, HIDDEN, BLOCKS = 256, 1024, 16


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.up = nn.Dense(WIDTH, HIDDEN)
        self.act = nn.GELU()
        self.down = nn.Dense(HIDDEN, WIDTH)

    def construct(self, x):
        return x + self.down(self.act(self.up(x)))


def build(recompute):
    ms.set_seed(0)
    net = nn.SequentialCell([Block() for _ in range(BLOCKS)])
    if recompute:
        for block in net:
            block.recompute()
    return net


def gradient_call(net):
    return ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())


def traced_peak(fn, x):
    """Bytes tracemalloc saw allocated at the peak of ``fn(x)``, above what existed before."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    fn(x)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def best_seconds(fn, x, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return min(times)


def measure(recompute, x, repeats):
    net = build(recompute)
    fn = gradient_call(net)
    grads = [g.asnumpy() for g in fn(x)]  # also the warm-up
    peak = traced_peak(fn, x)
    accounted = memory.profile(fn, x, net=net).peak_bytes
    seconds = best_seconds(fn, x, repeats)
    return {"peak": peak, "accounted": accounted, "seconds": seconds, "grads": grads}


TORCH_CHILD = r"""
import json, resource, sys, time
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
torch.set_num_threads(int(sys.argv[3]))
batch, use_checkpoint = int(sys.argv[1]), sys.argv[2] == "1"
blocks = torch.nn.ModuleList(torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256))
                             for _ in range(16))
def forward(x):
    for b in blocks:
        x = x + (checkpoint(b, x, use_reentrant=False) if use_checkpoint else b(x))
    return x
x = torch.randn(batch, 256)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
forward(x).sum().backward()  # the first call: its high-water mark is the peak
peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
times = []
for _ in range(int(sys.argv[4])):
    for p in blocks.parameters():
        p.grad = None
    start = time.perf_counter(); forward(x).sum().backward(); times.append(time.perf_counter() - start)
print(json.dumps({"peak": peak, "seconds": min(times)}))
"""


def torch_row(batch, repeats):
    try:
        import torch
    except ImportError:
        return None
    threads = torch.get_num_threads()
    results = {}
    for variant in ("0", "1"):
        out = subprocess.run([sys.executable, "-c", TORCH_CHILD, str(batch), variant, str(threads), str(repeats)],
                             capture_output=True, text=True, check=True)
        results[variant] = json.loads(out.stdout.strip().splitlines()[-1])
    return results


def mib(n):
    return f"{n / 2**20:8.1f} MiB"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((args.batch, WIDTH)).astype(np.float32))
    plain = measure(False, x, args.repeats)
    recomputed = measure(True, x, args.repeats)
    identical = all(np.array_equal(a, b) for a, b in zip(plain["grads"], recomputed["grads"]))

    print(f"{BLOCKS} blocks x + Dense({HIDDEN},{WIDTH})(GELU(Dense({WIDTH},{HIDDEN})(x))), batch {args.batch}, float32")
    print(f"{'':24} {'tracemalloc peak':>16} {'accounted peak':>16} {'time':>9}")
    for label, r in (("no recompute", plain), ("recompute per block", recomputed)):
        print(f"{label:24} {mib(r['peak']):>16} {mib(r['accounted']):>16} {r['seconds']:8.3f}s")
    peak_ratio = recomputed["peak"] / plain["peak"]
    time_ratio = recomputed["seconds"] / plain["seconds"]
    print(f"peak with / without: {peak_ratio:.1%} (goal <= 35%)   time: {time_ratio:.2f}x (goal <= 1.4x)")
    print(f"accounted / tracemalloc: {plain['accounted'] / plain['peak']:.3f} (plain), "
          f"{recomputed['accounted'] / recomputed['peak']:.3f} (recompute)")
    print(f"gradients bitwise identical: {identical}")
    torch_results = torch_row(args.batch, args.repeats)
    if torch_results is None:
        print("PyTorch not installed: torch.utils.checkpoint comparison skipped")
    else:
        t0, t1 = torch_results["0"], torch_results["1"]
        print(f"PyTorch: peak RSS growth {mib(t0['peak'])} -> {mib(t1['peak'])} with checkpoint "
              f"({t1['peak'] / max(t0['peak'], 1):.1%}), time {t0['seconds']:.3f}s -> {t1['seconds']:.3f}s "
              f"({t1['seconds'] / t0['seconds']:.2f}x)")
        print(f"cellkit time / PyTorch time: {plain['seconds'] / t0['seconds']:.2f}x plain, "
              f"{recomputed['seconds'] / t1['seconds']:.2f}x with recompute/checkpoint")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
