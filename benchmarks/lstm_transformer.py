"""A recurrent and an attention training step: cellkit against PyTorch CPU, in one process.

Run:  python benchmarks/lstm_transformer.py [--profile] [--repeats N]

1. ``nn.LSTM`` with 2 layers, hidden size 128, sequence 32, batch 32 (input features 64),
   a Dense head on the last output, mean-squared error, SGD.
2. ``nn.TransformerEncoderLayer`` with d_model 128, 4 heads, feed-forward 512, sequence 64,
   batch 16 (``batch_first``, dropout 0.1 in training mode), mean-squared error, SGD.

cellkit runs ``nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(...))``; PyTorch
runs ``zero_grad / forward / backward / step`` on ``torch.nn.LSTM`` / ``TransformerEncoderLayer``
with the same shapes (its fused LSTM kernel and fused attention included), one thread pool each,
both on the CPU.  Each contender is timed in many short interleaved blocks and its best block
counts (as in ``train_step.py``: a shared machine drifts).  Goal: cellkit within 1.5x of PyTorch.

The LSTM runs through ``nn.LSTM``'s fused whole-sequence op (``cellkit/nn/layers/rnn_fused.py``),
added because this benchmark showed the composed recurrence at 1.75-1.95x PyTorch: per step it
multiplied by the weights once more for their gradient, and slicing a stacked sequence made
``T`` full-size gradients.  The encoder layer needs no fused op.

Measured 2026-11-24 on the 2-core shared development VM (load average about 18), PyTorch
2.13.0+cpu, NumPy 2.4.6, ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` (one BLAS thread each):
LSTM 94.6 ms vs 71.7 ms (1.32x), encoder layer 94.8 ms vs 112.9 ms (0.84x).  With both
libraries' default two threads: 1.27x and 0.70x.
"""
from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

import cellkit as ms
from cellkit import nn

SETTLE_SECONDS = 0.2
LR = 0.01


def best_times(fns, number, repeats):
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            settle = time.perf_counter() + SETTLE_SECONDS
            while time.perf_counter() < settle:
                fn()
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number)
    return best


# ----------------------------------------------------------------------------- cellkit
class LSTMNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(64, 128, num_layers=2, batch_first=True)
        self.head = nn.Dense(128, 8)

    def construct(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def cellkit_lstm_step():
    net = LSTMNet()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), LR))
    step.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((32, 32, 64)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((32, 8)).astype(np.float32))
    return lambda: step(x, y)


def cellkit_encoder_step():
    net = nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.1, batch_first=True)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), LR))
    step.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))
    return lambda: step(x, y)


# ----------------------------------------------------------------------------- PyTorch
def torch_steps():
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)

    class TorchLSTM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(64, 128, num_layers=2, batch_first=True)
            self.head = torch.nn.Linear(128, 8)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    def make(net, x, y):
        opt = torch.optim.SGD(net.parameters(), lr=LR)
        loss_fn = torch.nn.MSELoss()
        net.train()

        def step():
            opt.zero_grad()
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            return loss
        return step

    rng = np.random.default_rng(0)
    lstm = make(TorchLSTM(), torch.tensor(rng.standard_normal((32, 32, 64)), dtype=torch.float32),
                torch.tensor(rng.standard_normal((32, 8)), dtype=torch.float32))
    layer = torch.nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.1, batch_first=True)
    encoder = make(layer, torch.tensor(rng.standard_normal((16, 64, 128)), dtype=torch.float32),
                   torch.tensor(rng.standard_normal((16, 64, 128)), dtype=torch.float32))
    return {"lstm": lstm, "encoder": encoder}, torch.__version__, torch.get_num_threads()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="cProfile the cellkit steps")
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    ours = {"lstm": cellkit_lstm_step(), "encoder": cellkit_encoder_step()}
    if args.profile:
        import cProfile
        import pstats
        for name, fn in ours.items():
            fn()
            profile = cProfile.Profile()
            profile.runcall(lambda: [fn() for _ in range(5)])
            print(f"--- {name}")
            pstats.Stats(profile).sort_stats("tottime").print_stats(15)
        return
    theirs = torch_steps()
    labels = {"lstm": "LSTM 2x128, seq 32, batch 32", "encoder": "TransformerEncoderLayer d128 h4, seq 64, batch 16"}
    if theirs is None:
        print("PyTorch is not installed: cellkit timings only")
    else:
        print(f"PyTorch {theirs[1]} ({theirs[2]} threads), NumPy {np.__version__}")
    for name in ("lstm", "encoder"):
        fns = [ours[name]] + ([theirs[0][name]] if theirs else [])
        times = best_times(fns, number=3, repeats=args.repeats)
        line = f"{labels[name]:<52} cellkit {times[0] * 1e3:8.2f} ms"
        if theirs:
            line += f"   PyTorch {times[1] * 1e3:8.2f} ms   ratio {times[0] / times[1]:5.2f}x (goal 1.5x)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
