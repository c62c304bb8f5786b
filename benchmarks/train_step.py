"""One training step: cellkit against a hand-written NumPy floor (and PyTorch CPU when installed).

Run:  python benchmarks/train_step.py [--profile]

Two workloads, each a full step (forward, softmax cross-entropy, backward,
SGD update, lr 0.01, no momentum), all measured in this one process with one
timer (best of several repeats):

1. MLP 784-512-512-10 with ReLU, batch 128.
2. LeNet-5 (conv 5x5 1->6, ReLU, max-pool 2, conv 5x5 6->16, ReLU, max-pool 2,
   Dense 400-120-84-10 with ReLU), batch 64 of 1x32x32 images, ``pad_mode='valid'``.

cellkit runs ``nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(...))``.
The NumPy floor is the same arithmetic written out by hand (plain im2col
convolutions of the whole batch, one BLAS product per pass, max-pooling over the
four strided corners), no framework.  cellkit's own convolution
(``cellkit/ops/_conv_numpy.py``) is not this naive one: it builds the windows of
a few images at a time so they stay in the CPU cache, copies them in one
contiguous pass, and adds the input gradient back with ``kh`` row shifts instead
of ``kh * kw`` window additions -- so cellkit can beat this floor.
PyTorch runs ``zero_grad / forward / backward / step`` with the same shapes.

Goals: the MLP step no slower than PyTorch; the LeNet step within 1.5x of PyTorch.
``--profile`` prints a cProfile summary of the cellkit steps.

``--tune-malloc`` asks glibc to keep freed memory instead of returning it to
the system (``mallopt``: mmap threshold 32 MiB, no trimming).  The floor frees
and reallocates the large temporaries of a convolution (im2col matrices, pooled
gradients) on every step; with glibc's defaults each reallocation page-faults
its memory in again, which on a 2-core machine costs about as much as the
arithmetic.  cellkit's convolution and pooling take those buffers from
``cellkit.buffer_cache`` instead (PyTorch keeps its own cache too), so the flag
mostly changes the floor.  The same effect is had with
``MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1000000000`` in the
environment.

Timings on a shared virtual machine drift in phases of several seconds (we
saw the same cellkit step take 5.5 ms and 7.9 ms in one process, minutes
apart).  Each contender is therefore timed in many short blocks, interleaved,
and its best block counts: the ratio compares each at its quietest.
"""
from __future__ import annotations

import argparse
import os
import time
import timeit

import numpy as np

import cellkit as ms
from cellkit import nn

REPEATS = 15
SETTLE_SECONDS = 0.3
LR = 0.01


def best_times(fns, number):
    """Best time per call of each function, measured in interleaved rounds.

    Interleaving (a round times every contender once) keeps slow drifts of the
    machine from favouring whichever contender happened to be timed first.
    Before each timed block the contender runs untimed for ``SETTLE_SECONDS``:
    thread pools keep spinning after their work (PyTorch's OpenMP for about
    200 ms, OpenBLAS briefly), and would otherwise steal the cores from the
    next contender.
    """
    best = [float("inf")] * len(fns)
    for _ in range(REPEATS):
        for i, fn in enumerate(fns):
            settle = time.perf_counter() + SETTLE_SECONDS
            while time.perf_counter() < settle:
                fn()
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number)
    return best


# ----------------------------------------------------------------------------- cellkit


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(784, 512)
        self.fc2 = nn.Dense(512, 512)
        self.fc3 = nn.Dense(512, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def cellkit_step(net):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), LR))
    step.set_train()
    return step


# ----------------------------------------------------------------------------- NumPy floor


def softmax_ce_grad(logits, labels):
    """Mean softmax cross-entropy and its gradient with respect to the logits."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    probs = exp / exp.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    loss = -np.log(probs[np.arange(n), labels]).mean()
    probs[np.arange(n), labels] -= 1.0
    probs /= n
    return loss, probs


class NumpyMLP:
    def __init__(self, params):
        self.params = params  # [(W, b)] * 3, float32, W of shape (out, in)

    def step(self, x, y):
        (w1, b1), (w2, b2), (w3, b3) = self.params
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        logits = h2 @ w3.T + b3
        loss, g = softmax_ce_grad(logits, y)
        gw3, gb3 = g.T @ h2, g.sum(0)
        g = (g @ w3) * (z2 > 0)
        gw2, gb2 = g.T @ h1, g.sum(0)
        g = (g @ w2) * (z1 > 0)
        gw1, gb1 = g.T @ x, g.sum(0)
        for (w, b), (gw, gb) in zip(self.params, ((gw1, gb1), (gw2, gb2), (gw3, gb3))):
            w -= LR * gw
            b -= LR * gb
        return loss


def conv_forward(x, w, b):
    """Valid, stride-1 convolution (N,C,H,W) x (O,C,k,k) -> (N,O,Ho,Wo) by im2col and one matrix product.

    Returns the output and the column matrix (kept for the weight gradient).
    """
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    ho, wo = h - k + 1, wd - k + 1
    xc = x.transpose(1, 0, 2, 3)  # channels first, so every copy below writes whole (N, Ho, Wo) blocks
    cols = np.empty((c, k, k, n, ho, wo), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            cols[:, i, j] = xc[:, :, i:i + ho, j:j + wo]
    cols = cols.reshape(c * k * k, n * ho * wo)
    out = w.reshape(o, -1) @ cols + b[:, None]  # (O, N*Ho*Wo)
    return np.ascontiguousarray(out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3)), cols


def conv_backward(g, cols, w, input_shape, need_input_grad):
    n, c, h, wd = input_shape
    o, _, k, _ = w.shape
    ho, wo = g.shape[2], g.shape[3]
    g_mat = np.ascontiguousarray(g.transpose(1, 0, 2, 3)).reshape(o, n * ho * wo)
    gw = (g_mat @ cols.T).reshape(w.shape)
    gb = g_mat.sum(axis=1)
    gx = None
    if need_input_grad:
        dcols = (w.reshape(o, -1).T @ g_mat).reshape(c, k, k, n, ho, wo)
        gxc = np.zeros((c, n, h, wd), dtype=g.dtype)
        for i in range(k):
            for j in range(k):
                gxc[:, :, i:i + ho, j:j + wo] += dcols[:, i, j]
        gx = gxc.transpose(1, 0, 2, 3)
    return gw, gb, gx


def pool_forward(x):
    """2x2, stride-2 max-pooling as the maximum of the four strided corners."""
    corners = (x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2], x[:, :, 1::2, 0::2], x[:, :, 1::2, 1::2])
    return np.maximum(np.maximum(corners[0], corners[1]), np.maximum(corners[2], corners[3])), corners


def pool_backward(g, corners, out):
    """Send each gradient to the first corner that held the maximum."""
    n, c, h2, w2 = out.shape
    grad = np.zeros((n, c, h2 * 2, w2 * 2), dtype=g.dtype)
    taken = np.zeros(out.shape, dtype=bool)
    for (di, dj), corner in zip(((0, 0), (0, 1), (1, 0), (1, 1)), corners):
        hit = (corner == out) & ~taken
        grad[:, :, di::2, dj::2] = g * hit
        taken |= hit
    return grad


class NumpyLeNet:
    def __init__(self, conv1, conv2, dense):
        self.conv1, self.conv2, self.dense = conv1, conv2, dense  # (W, b) pairs

    def step(self, x, y):
        (c1w, c1b), (c2w, c2b) = self.conv1, self.conv2
        (w1, b1), (w2, b2), (w3, b3) = self.dense
        a1, cols1 = conv_forward(x, c1w, c1b)
        r1 = np.maximum(a1, 0)
        p1, blocks1 = pool_forward(r1)
        a2, cols2 = conv_forward(p1, c2w, c2b)
        r2 = np.maximum(a2, 0)
        p2, blocks2 = pool_forward(r2)
        f = p2.reshape(p2.shape[0], -1)
        z1 = f @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        logits = h2 @ w3.T + b3
        loss, g = softmax_ce_grad(logits, y)
        gw3, gb3 = g.T @ h2, g.sum(0)
        g = (g @ w3) * (z2 > 0)
        gw2, gb2 = g.T @ h1, g.sum(0)
        g = (g @ w2) * (z1 > 0)
        gw1, gb1 = g.T @ f, g.sum(0)
        g = (g @ w1).reshape(p2.shape)
        g = pool_backward(g, blocks2, p2) * (a2 > 0)
        gc2w, gc2b, g = conv_backward(g, cols2, c2w, p1.shape, need_input_grad=True)
        g = pool_backward(g, blocks1, p1) * (a1 > 0)
        gc1w, gc1b, _ = conv_backward(g, cols1, c1w, x.shape, need_input_grad=False)
        pairs = [(c1w, gc1w), (c1b, gc1b), (c2w, gc2w), (c2b, gc2b), (w1, gw1), (b1, gb1), (w2, gw2), (b2, gb2),
                 (w3, gw3), (b3, gb3)]
        for p, gp in pairs:
            p -= LR * gp
        return loss


def copy_params(cells):
    return [(c.weight.asnumpy().copy(), c.bias.asnumpy().copy()) for c in cells]


def check_same_step(ck_step, cells, make_floor, x, y, x_host, y_host, label):
    params = copy_params(cells)
    floor_loss = float(make_floor(params).step(x_host, y_host))
    ck_loss = float(ck_step(x, y).asnumpy())
    assert abs(ck_loss - floor_loss) <= 1e-4 * max(1.0, abs(floor_loss)), f"{label}: losses differ"
    for cell, (w, b) in zip(cells, params):
        np.testing.assert_allclose(cell.weight.asnumpy(), w, rtol=1e-4, atol=1e-6, err_msg=f"{label} weight")
        np.testing.assert_allclose(cell.bias.asnumpy(), b, rtol=1e-4, atol=1e-6, err_msg=f"{label} bias")


# ----------------------------------------------------------------------------- PyTorch


def torch_steps(mlp_params, lenet_params, x_mlp, y_mlp, x_lenet, y_lenet):
    try:
        import torch
    except ImportError:
        return None
    tnn = torch.nn

    def load(linear_or_conv, wb):
        with torch.no_grad():
            linear_or_conv.weight.copy_(torch.from_numpy(wb[0]))
            linear_or_conv.bias.copy_(torch.from_numpy(wb[1]))
        return linear_or_conv

    mlp = tnn.Sequential(load(tnn.Linear(784, 512), mlp_params[0]), tnn.ReLU(),
                         load(tnn.Linear(512, 512), mlp_params[1]), tnn.ReLU(),
                         load(tnn.Linear(512, 10), mlp_params[2]))
    lenet = tnn.Sequential(load(tnn.Conv2d(1, 6, 5), lenet_params[0]), tnn.ReLU(), tnn.MaxPool2d(2),
                           load(tnn.Conv2d(6, 16, 5), lenet_params[1]), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(),
                           load(tnn.Linear(400, 120), lenet_params[2]), tnn.ReLU(),
                           load(tnn.Linear(120, 84), lenet_params[3]), tnn.ReLU(),
                           load(tnn.Linear(84, 10), lenet_params[4]))
    loss_fn = tnn.CrossEntropyLoss()

    def make(model, x, y):
        opt = torch.optim.SGD(model.parameters(), lr=LR)
        xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

        def step():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xt), yt)
            loss.backward()
            opt.step()
            return loss

        return step

    return make(mlp, x_mlp, y_mlp), make(lenet, x_lenet, y_lenet), torch


# ----------------------------------------------------------------------------- main


def tune_malloc():
    """Keep freed memory in the process (glibc only); returns whether it was applied."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name)
        m_trim_threshold, m_mmap_threshold = -1, -3
        return bool(libc.mallopt(m_mmap_threshold, 32 * 1024 * 1024)) and bool(libc.mallopt(m_trim_threshold, 2**30))
    except (OSError, AttributeError):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of the cellkit steps")
    parser.add_argument("--tune-malloc", action="store_true",
                        help="keep freed memory in the process (glibc mallopt) to avoid page faults on every step")
    args = parser.parse_args()
    malloc_note = ""
    if args.tune_malloc:
        malloc_note = "; glibc malloc tuned" if tune_malloc() else "; --tune-malloc not applied (no glibc)"

    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x_mlp = rng.standard_normal((128, 784)).astype(np.float32)
    y_mlp = rng.integers(0, 10, 128).astype(np.int32)
    x_lenet = rng.standard_normal((64, 1, 32, 32)).astype(np.float32)
    y_lenet = rng.integers(0, 10, 64).astype(np.int32)

    mlp = MLP()
    lenet = LeNet5()
    mlp_params = copy_params([mlp.fc1, mlp.fc2, mlp.fc3])
    lenet_params = copy_params([lenet.conv1, lenet.conv2, lenet.fc1, lenet.fc2, lenet.fc3])
    ck_mlp, ck_lenet = cellkit_step(mlp), cellkit_step(lenet)
    xm, ym, xl, yl = ms.Tensor(x_mlp), ms.Tensor(y_mlp), ms.Tensor(x_lenet), ms.Tensor(y_lenet)
    np_mlp = NumpyMLP(mlp_params[:])
    np_lenet = NumpyLeNet(lenet_params[0], lenet_params[1], lenet_params[2:])

    # The floor and cellkit compute the same first step: same loss, same updated parameters.
    check_same_step(ck_mlp, [mlp.fc1, mlp.fc2, mlp.fc3], lambda p: NumpyMLP(p), xm, ym, x_mlp, y_mlp, "MLP")
    check_same_step(ck_lenet, [lenet.conv1, lenet.conv2, lenet.fc1, lenet.fc2, lenet.fc3],
                    lambda p: NumpyLeNet(p[0], p[1], p[2:]), xl, yl, x_lenet, y_lenet, "LeNet")

    torch_parts = torch_steps(mlp_params, lenet_params, x_mlp, y_mlp, x_lenet, y_lenet)

    rows = []
    cases = [
        ("MLP 784-512-512-10, batch 128", lambda: ck_mlp(xm, ym), lambda: np_mlp.step(x_mlp, y_mlp),
         torch_parts[0] if torch_parts else None, 20),
        ("LeNet-5 1x32x32, batch 64", lambda: ck_lenet(xl, yl), lambda: np_lenet.step(x_lenet, y_lenet),
         torch_parts[1] if torch_parts else None, 5),
    ]
    for label, ours, floor, torch_step, number in cases:
        times = best_times([ours, floor] + ([torch_step] if torch_step else []), number)
        rows.append((label, times[1], times[0], times[2] if torch_step else None))

    threads = os.environ.get("OMP_NUM_THREADS", "default")
    torch_info = f"; torch {torch_parts[2].__version__} ({torch_parts[2].get_num_threads()} threads)" if torch_parts else \
        "; torch not installed"
    print(f"cellkit {ms.__version__} on {ms.backend.current().name}; numpy {np.__version__}; "
          f"{os.cpu_count()} CPUs, OMP_NUM_THREADS={threads}{torch_info}{malloc_note}")
    print(f"{'step':32s} {'numpy ms':>9s} {'cellkit ms':>11s} {'torch ms':>9s} {'ck/numpy':>9s} {'ck/torch':>9s}")
    for label, t_floor, t_ours, t_torch in rows:
        torch_ms = f"{t_torch * 1e3:9.3f}" if t_torch else f"{'-':>9s}"
        torch_ratio = f"{t_ours / t_torch:8.2f}x" if t_torch else f"{'-':>9s}"
        print(f"{label:32s} {t_floor * 1e3:9.3f} {t_ours * 1e3:11.3f} {torch_ms} {t_ours / t_floor:8.2f}x {torch_ratio}")
    if torch_parts:
        mlp_ratio = rows[0][2] / rows[0][3]
        lenet_ratio = rows[1][2] / rows[1][3]
        print(f"goals: MLP <= 1.0x torch: {'met' if mlp_ratio <= 1.0 else 'MISSED'} ({mlp_ratio:.2f}x); "
              f"LeNet <= 1.5x torch: {'met' if lenet_ratio <= 1.5 else 'MISSED'} ({lenet_ratio:.2f}x)")

    if args.profile:
        import cProfile
        import pstats

        for label, step, n in (("MLP", lambda: ck_mlp(xm, ym), 200), ("LeNet", lambda: ck_lenet(xl, yl), 100)):
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(n):
                step()
            profiler.disable()
            print(f"\ncProfile, cellkit {label} step x{n} (by internal time)")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
