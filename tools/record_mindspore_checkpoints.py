"""Write the .ckpt files of an LSTM and a TransformerEncoder with real MindSpore 2.10, and their outputs.

Run it in a scratch venv with ``mindspore==2.10.0`` and ``numpy<2`` (MindSpore is never a dependency of
cellkit):

    /path/to/msvenv/bin/python tools/record_mindspore_checkpoints.py          # write the fixtures
    /path/to/msvenv/bin/python tools/record_mindspore_checkpoints.py --check DIR
        # load the .ckpt files cellkit wrote into DIR (tests/nn/test_mindspore_checkpoints.py --write DIR)
        # into MindSpore's layers and compare the outputs: the other direction, by hand

The layers get fixed values from a NumPy generator (through ``set_data``), run in eval mode on a fixed input,
and are saved with ``mindspore.save_checkpoint``: ``tests/nn/data/mindspore210_<name>.ckpt`` holds the file,
``tests/nn/data/mindspore210_checkpoint_outputs.json`` the output.  ``tests/nn/test_mindspore_checkpoints.py``
loads each file into cellkit's layer of the same configuration and compares.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "nn", "data")


def build(ms, nn, name):
    """The two networks, the same text under MindSpore and cellkit."""
    if name == "lstm":
        return nn.LSTM(3, 4, num_layers=2, has_bias=True, batch_first=True, bidirectional=True)
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2)


def fix_values(ms, net, seed=0):
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        param.set_data(ms.Tensor(rng.uniform(-0.4, 0.4, param.shape).astype(np.float32)))


def inputs(ms, name):
    rng = np.random.default_rng(7)
    shape = (2, 5, 3) if name == "lstm" else (2, 4, 8)
    return ms.Tensor(rng.standard_normal(shape).astype(np.float32))


def run(ms, net, name):
    net.set_train(False)
    out = net(inputs(ms, name))
    return out[0] if isinstance(out, tuple) else out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="DIR", help="compare MindSpore with the .ckpt files cellkit wrote in DIR")
    args = parser.parse_args()
    import mindspore as ms
    from mindspore import nn

    if args.check:
        for name in ("lstm", "transformer_encoder"):
            net = build(ms, nn, name)
            not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(args.check, f"{name}.ckpt")))
            want = np.load(os.path.join(args.check, f"{name}.npy"))
            got = run(ms, net, name).asnumpy()
            print(name, "not loaded:", not_loaded, "max difference:", float(np.abs(got - want).max()))
        return
    outputs = {}
    for name in ("lstm", "transformer_encoder"):
        net = build(ms, nn, name)
        fix_values(ms, net)
        outputs[name] = run(ms, net, name).asnumpy().tolist()
        ms.save_checkpoint(net, os.path.join(DATA, f"mindspore210_{name}.ckpt"))
    with open(os.path.join(DATA, "mindspore210_checkpoint_outputs.json"), "w") as f:
        json.dump({"mindspore_version": ms.__version__, "outputs": outputs}, f)
    print("wrote", sorted(os.listdir(DATA)))


if __name__ == "__main__":
    sys.exit(main())
