"""Asking for a GPU on a machine without a working CUDA driver: everything runs on NumPy, one warning.

Each test starts a fresh Python (the backend is chosen at import), puts a fake
``cupy`` in front of it whose every call fails the way CuPy does without a
driver (or hides CuPy entirely), asks for the GPU through ``CELLKIT_DEVICE=GPU``
or ``set_context(device_target="GPU")``, and then walks through every entry
point a course uses: tensors and ops, gradients, Cells with hooks, a trace,
recompute, offload, a memory profile, training with ``TrainOneStepCell`` and
``Model``, checkpoints in both formats, and the displays.
"""
import os
import subprocess
import sys
import textwrap

import pytest

FAKE_BROKEN_CUPY = """
import sys, types
class CUDARuntimeError(RuntimeError):
    pass
fake = types.ModuleType("cupy")
def _no_driver(*args, **kwargs):
    raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")
for _name in ("arange", "asarray", "zeros", "ones", "empty"):
    setattr(fake, _name, _no_driver)
fake.float32 = "float32"
sys.modules["cupy"] = fake
"""

HIDE_CUPY = """
import sys
sys.modules["cupy"] = None  # import cupy raises ImportError
"""

TOUR = """
import os, tempfile
import numpy as np
import cellkit as ms
from cellkit import nn, ops, memory

if os.environ.get("ASK_BY_CONTEXT"):
    ms.set_context(device_target="GPU")
assert ms.backend.current().name == "numpy", ms.backend.current().name
assert ms.get_context("device_target") == "CPU"

# tensors, ops, gradients
x = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
assert float(ops.relu(x).sum().asnumpy()) > 0
g = ms.grad(lambda t: (t * t).sum())(x)
assert np.allclose(g.asnumpy(), 2 * x.asnumpy())

# Cells with hooks, a trace, recompute, offload
ms.set_seed(0)
net = nn.SequentialCell(nn.Dense(4, 8), nn.GELU(), nn.Dropout(p=0.2), nn.Dense(8, 3))
seen = []
handle = net[0].register_forward_hook(lambda cell, inputs, out: seen.append(out.shape))
with ms.trace(net) as tr:
    ms.grad(lambda t: net(t).sum(), weights=net.trainable_params())(x)
assert seen == [(3, 8)] and len(tr.to_dict()["events"]) > 4
handle.remove()
net.set_train()
ms.set_seed(1)
plain = ms.grad(lambda t: net(t).sum(), grad_position=None, weights=net.trainable_params())(x)
net[1].recompute()
net[3].offload()
ms.set_seed(1)
again = ms.grad(lambda t: net(t).sum(), grad_position=None, weights=net.trainable_params())(x)
assert all(np.array_equal(a.asnumpy(), b.asnumpy()) for a, b in zip(plain, again))
report = memory.profile(ms.grad(lambda t: net(t).sum(), weights=net.trainable_params()), x, net=net)
assert report.peak_bytes > 0

# training
net.set_train(False)
labels = ms.Tensor(np.array([0, 1, 2], np.int32))
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.Adam(net.trainable_params(), 0.01))
step.set_train()
first = float(step(x, labels).asnumpy())
for _ in range(30):
    last = float(step(x, labels).asnumpy())
assert last < first
from cellkit.train import Model
model = Model(net, loss_fn=loss_fn, optimizer=nn.SGD(net.trainable_params(), 0.01), metrics={"acc"})
model.train(1, [(x, labels)], callbacks=[], dataset_sink_mode=False)

# checkpoints in both formats
with tempfile.TemporaryDirectory() as folder:
    for fmt, ext in (("ckpt", ".ckpt"), ("safetensors", ".safetensors")):
        path = os.path.join(folder, "net" + ext)
        ms.save_checkpoint(net, path, format=fmt)
        params = ms.load_checkpoint(path, format=fmt)
        not_loaded, _ = ms.load_param_into_net(net, params)
        assert not_loaded == [], not_loaded

# displays (static HTML; no widget needed)
from cellkit import display
bundle = net._repr_mimebundle_()
assert "text/html" in bundle and "Dense" in bundle["text/html"]
assert "text/html" in display.parameter_table(net)._repr_mimebundle_()
assert "text/plain" in report._repr_mimebundle_()
assert "text/html" in tr._repr_mimebundle_()
print("TOUR OK")
"""


def run_tour(prelude, **env_changes):
    env = {k: v for k, v in os.environ.items() if k != "CELLKIT_DEVICE"}
    env.update(env_changes)
    code = textwrap.dedent(prelude) + textwrap.dedent(TOUR)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180)


@pytest.mark.parametrize("how", ["env", "set_context"])
@pytest.mark.parametrize("cupy", ["broken driver", "not installed"])
def test_gpu_requested_without_cuda_every_entry_point_runs_on_numpy_with_one_warning(how, cupy):
    prelude = FAKE_BROKEN_CUPY if cupy == "broken driver" else HIDE_CUPY
    env = {"CELLKIT_DEVICE": "GPU"} if how == "env" else {"ASK_BY_CONTEXT": "1"}
    result = run_tour(prelude, **env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "TOUR OK" in result.stdout
    assert result.stderr.count("GPU requested but unavailable") == 1, result.stderr
    reason = "CUDARuntimeError" if cupy == "broken driver" else "cupy cannot be imported"
    assert reason in result.stderr  # the warning says why
    where = result.stderr.split("RuntimeWarning")[0]
    assert where.startswith("<string>:"), where  # and points at the user's line, not inside cellkit
