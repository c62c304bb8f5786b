"""The convolution, pooling, padding, normalisation and image layers beyond what MindSpore's fixture checks.

- A ``.ckpt`` of a small Conv3d network written by MindSpore 2.10 (``tests/nn/data``) loads into
  cellkit and gives MindSpore's output (recorded in ``tests/fixtures/mindspore/nn_conv_layers.json``).
- Second derivatives (the layers are compositions of differentiable ops) against finite differences.
- Every layer runs on the strict non-CPU device (no hidden host conversion) and in GRAPH_MODE.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from tests.gradcheck import check_grad
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import read_fixture

CASES = load_case_module("nn_conv_layers")
DATA = Path(__file__).resolve().parent / "data"


class Conv3dNet(nn.Cell):
    """The network of the ``conv3d_checkpoint`` case (the names its checkpoint holds)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(1, 2, 2, pad_mode="valid", has_bias=True)
        self.bn = nn.BatchNorm3d(2)
        self.conv2 = nn.Conv3dTranspose(2, 1, 2, stride=2, pad_mode="valid")

    def construct(self, x):
        return self.conv2(self.bn(self.conv1(x)))


def _recorded(name, key):
    value = read_fixture("nn_conv_layers")["cases"][name]["value"]
    return dict(value["dict"])[key]


def test_conv3d_net_loads_a_mindspore_checkpoint_and_gives_mindspore_output():
    params = ms.load_checkpoint(str(DATA / "mindspore210_conv3d_net.ckpt"))
    assert list(params) == [entry["str"] for entry in _recorded("conv3d_checkpoint", "names")["list"]]
    net = Conv3dNet()
    not_loaded, unused = ms.load_param_into_net(net, params)
    assert not not_loaded and not unused
    out = net(CASES._input(ms, np, (1, 1, 3, 3, 3)))
    want = np.array(_recorded("conv3d_checkpoint", "out")["tensor"], dtype=np.float32)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_conv3d_net_checkpoint_written_by_cellkit_reloads_with_the_same_names_and_output():
    net = Conv3dNet()
    CASES._fix_params(ms, np, net)
    x = CASES._input(ms, np, (1, 1, 3, 3, 3))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.ckpt")
        ms.save_checkpoint(net, path)
        fresh = Conv3dNet()
        ms.load_param_into_net(fresh, ms.load_checkpoint(path))
        names = list(ms.load_checkpoint(path))
    assert names == ["conv1.weight", "conv1.bias", "bn.bn2d.moving_mean", "bn.bn2d.moving_variance",
                     "bn.bn2d.gamma", "bn.bn2d.beta", "conv2.weight"]
    np.testing.assert_array_equal(fresh(x).asnumpy(), net(x).asnumpy())


def _second_order(layer, shape, seed=0):
    """Check d/dx of sum(probe * d/dx sum(layer(x) ** 2)) against finite differences."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    probe = ms.Tensor(rng.standard_normal(shape))

    def inner(t):
        return (layer(t) ** 2).sum()

    def outer(t):
        return (ms.grad(inner)(t) * probe).sum()

    check_grad(outer, x, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.Conv3d(1, 2, 2, pad_mode="pad", padding=1, has_bias=True, weight_init="normal", dtype=ms.float64),
     (1, 1, 2, 2, 2)),
    (lambda: nn.Conv3dTranspose(1, 1, 2, stride=2, pad_mode="valid", weight_init="normal", dtype=ms.float64),
     (1, 1, 1, 2, 2)),
    (lambda: nn.Conv2dTranspose(2, 1, 2, stride=2, pad_mode="pad", padding=1, output_padding=1,
                                weight_init="normal", dtype=ms.float64), (1, 2, 2, 2)),
    (lambda: nn.Conv1dTranspose(1, 2, 3, stride=2, weight_init="normal", dtype=ms.float64), (1, 1, 3)),
    (lambda: nn.GroupNorm(2, 4, dtype=ms.float64), (1, 4, 3)),
    (lambda: nn.InstanceNorm1d(2, dtype=ms.float64), (2, 2, 3)),
    (lambda: nn.AvgPool3d(2, 1, pad_mode="pad", padding=1, count_include_pad=False), (1, 1, 2, 2, 2)),
    (lambda: nn.LPPool1d(2, 2), (1, 2, 4)),
    (lambda: nn.ReflectionPad2d(1), (1, 1, 2, 3)),
    (lambda: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True), (1, 1, 2, 2)),
])
def test_layer_second_derivatives_match_finite_differences(make, shape):
    _second_order(make(), shape)


def test_ssim_is_differentiable_twice():
    net = nn.SSIM(filter_size=3, filter_sigma=1.0)
    other = ms.Tensor(np.random.default_rng(1).random((1, 1, 4, 4)).astype(np.float32))

    def inner(t):
        return net(t, other).sum()

    # float32 layer: compare the Hessian-vector product with a loose tolerance
    x = np.random.default_rng(2).random((1, 1, 4, 4))
    check_grad(lambda t: (ms.grad(inner)(ms.ops.cast(t, ms.float32)) * 1.0).sum(), x, rtol=2e-2, atol=2e-3, eps=1e-3)


_DEVICE_LAYERS = [
    (lambda: nn.Conv3d(2, 2, 2, has_bias=True), (1, 2, 3, 3, 3)),
    (lambda: nn.Conv3dTranspose(2, 2, 2, stride=2, output_padding=1, pad_mode="pad"), (1, 2, 2, 2, 2)),
    (lambda: nn.Conv2dTranspose(2, 2, 3, stride=2, has_bias=True), (1, 2, 3, 3)),
    (lambda: nn.Conv1dTranspose(2, 2, 3), (1, 2, 4)),
    (lambda: nn.Conv2dBnAct(2, 2, 3, has_bn=True, activation="relu"), (2, 2, 3, 3)),
    (lambda: nn.DenseBnAct(3, 2, has_bn=True, activation="relu"), (2, 3)),
    (lambda: nn.MaxPool1d(2, 2), (1, 2, 4)), (lambda: nn.AvgPool1d(2, 1), (1, 2, 5)),
    (lambda: nn.MaxPool3d(2, 1, pad_mode="pad", padding=1), (1, 1, 2, 2, 2)),
    (lambda: nn.AvgPool3d(2, 2), (1, 1, 2, 2, 2)), (lambda: nn.AdaptiveAvgPool1d(2), (1, 2, 4)),
    (lambda: nn.AdaptiveMaxPool2d(2), (1, 2, 4, 4)), (lambda: nn.AdaptiveAvgPool3d(1), (1, 1, 2, 2, 2)),
    (lambda: nn.LPPool2d(2, 2), (1, 1, 4, 4)),
    (lambda: nn.ConstantPad3d(1, 0.5), (1, 2, 2, 2)), (lambda: nn.ZeroPad2d(1), (1, 2, 2)),
    (lambda: nn.ReflectionPad2d(1), (1, 2, 3, 3)), (lambda: nn.ReplicationPad3d(1), (1, 2, 2, 2)),
    (lambda: nn.Pad(((0, 0), (1, 1)), mode="REFLECT"), (2, 3)), (lambda: nn.Pad(((1, 0), (0, 1))), (2, 3)),
    (lambda: nn.Upsample(size=(4, 4), mode="bilinear"), (1, 1, 2, 2)), (lambda: nn.PixelShuffle(2), (1, 4, 2, 2)),
    (lambda: nn.PixelUnshuffle(2), (1, 1, 4, 4)), (lambda: nn.ChannelShuffle(2), (1, 4, 2)),
    (lambda: nn.CentralCrop(0.5), (1, 4, 4)), (lambda: nn.BatchNorm3d(2), (2, 2, 1, 2, 2)),
    (lambda: nn.SyncBatchNorm(2), (2, 2)), (lambda: nn.GroupNorm(1, 2), (1, 2, 3)),
    (lambda: nn.InstanceNorm3d(2), (1, 2, 2, 2, 2)), (lambda: nn.LRN(1), (1, 3, 2, 2)),
]


@pytest.mark.parametrize("make, shape", _DEVICE_LAYERS)
def test_layer_runs_on_every_backend_as_on_numpy(backend, make, shape):
    ms.set_seed(0)
    net = make()
    host = np.random.default_rng(0).random(shape).astype(np.float32)
    out = net(ms.Tensor(host))
    out = out[0] if isinstance(out, tuple) else out
    with_numpy = out.asnumpy()
    assert np.all(np.isfinite(with_numpy))
    grads = ms.grad(lambda t: (net(t) ** 2).sum())(ms.Tensor(host))
    assert grads.shape == shape


@pytest.mark.parametrize("make, shape", _DEVICE_LAYERS[:12] + _DEVICE_LAYERS[24:])
def test_layer_gives_the_same_output_in_graph_mode(make, shape):
    ms.set_seed(0)
    net = make()
    x = ms.Tensor(np.random.default_rng(0).random(shape).astype(np.float32))
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        compiled = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(compiled, eager, rtol=1e-6, atol=1e-6)


def test_psnr_and_ssim_train_an_image_towards_a_target():
    target = ms.Tensor(np.random.default_rng(3).random((1, 1, 6, 6)).astype(np.float32))
    image = ms.Parameter(ms.Tensor(np.full((1, 1, 6, 6), 0.5, np.float32)), name="image")
    ssim = nn.SSIM(filter_size=3, filter_sigma=1.0)
    before = float(ssim(image, target).asnumpy()[0])
    for _ in range(20):
        g = ms.grad(lambda: (1 - ssim(image, target)).sum(), grad_position=None, weights=[image])()[0]
        image.set_data(image - 0.5 * g)
    after = float(ssim(image, target).asnumpy()[0])
    assert after > before + 0.05
    assert float(nn.PSNR()(image, target).asnumpy()[0]) > float(nn.PSNR()(ms.ops.ones_like(target) * 0.5,
                                                                          target).asnumpy()[0])
