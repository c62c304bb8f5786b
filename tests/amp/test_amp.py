"""cellkit's ``amp`` beyond the recorded cases: Model skipping overflowing steps, bfloat16, repeated levels."""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import amp, nn, ops
from tests.mindspore_cases import load_case_module

CASES = load_case_module("amp")


class _Poisoned(CASES._Batches):
    """Three batches a epoch; the second batch of the first epoch holds an Inf."""

    def create_tuple_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        x = ms.Tensor(np.array(CASES.X, np.float32))
        y = ms.Tensor(np.array(CASES.Y, np.float32))
        bad = ms.Tensor(np.array([[np.inf, 1.0, 1.0]] + CASES.X[1:], np.float32))
        self.calls = getattr(self, "calls", 0) + 1
        batches = [(x, y), (bad if self.calls == 1 else x, y), (x * 1.5, y)]
        return CASES._EpochIterator(batches, 1)


def test_amp_model_with_dynamic_manager_skips_overflow_steps_as_the_cell_does():
    manager = amp.DynamicLossScaleManager(init_loss_scale=2 ** 8, scale_factor=2, scale_window=2)
    net = CASES._train_net(ms, nn, np)
    model = ms.train.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.05, 0.9),
                           loss_scale_manager=manager)
    seen = []
    cb = ms.train.LambdaCallback(on_train_step_end=lambda ctx: seen.append(
        (bool(ctx.original_args().net_outputs[1].asnumpy()), float(ctx.original_args().net_outputs[2].asnumpy()))))
    with np.errstate(invalid="ignore", over="ignore"):
        model.train(2, _Poisoned(ms, np), callbacks=[cb])
    assert type(model.train_network).__name__ == "TrainOneStepWithLossScaleCell"
    # step 2 overflowed: skipped, scale halved; the manager followed the Cell
    assert seen == [(False, 256.0), (True, 128.0), (False, 128.0), (False, 256.0), (False, 256.0), (False, 512.0)]
    assert manager.get_loss_scale() == 512.0
    # the same steps by hand, with the overflowing one left out, give the same weights
    ref = CASES._train_net(ms, nn, np)
    step = nn.TrainOneStepCell(nn.WithLossCell(ref, nn.MSELoss()), nn.Momentum(ref.trainable_params(), 0.05, 0.9))
    x = ms.Tensor(np.array(CASES.X, np.float32))
    y = ms.Tensor(np.array(CASES.Y, np.float32))
    for data in (x, x * 1.5, x, x, x * 1.5):
        step(data, y)
    np.testing.assert_allclose(net.weight.asnumpy(), ref.weight.asnumpy(), rtol=1e-5, atol=1e-6)


def test_amp_o2_model_on_cpu_trains_with_loss_scaling():
    net = CASES._train_net(ms, nn, np)
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1), amp_level="O2")
    model.train(1, CASES._Batches(ms, np))
    assert type(model.train_network).__name__ == "TrainOneStepWithLossScaleCell"
    assert net.weight.dtype == ms.float32 and model.predict(ms.Tensor(np.ones((1, 3), np.float32))).dtype == ms.float16


def test_amp_o3_bfloat16_computes_in_bfloat16():
    net = amp.auto_mixed_precision(CASES._net(ms, nn, ops, np, bn=False, prim=False), "O3", ms.bfloat16)
    x = ms.Tensor(np.array(CASES.X, np.float32))
    assert net(x).dtype == ms.float32 and net._backbone.dense.get_mixed_precision_type().name == "BF16"
    ref = CASES._net(ms, nn, ops, np, bn=False, prim=False)(x)
    np.testing.assert_allclose(net(x).asnumpy(), ref.asnumpy(), rtol=3e-2, atol=3e-2)


def test_amp_o1_casts_white_listed_primitives_and_warns_on_a_second_level():
    net = CASES._net(ms, nn, ops, np, bn=False)
    amp.auto_mixed_precision(net, "O1")
    assert type(net.mm).__name__ == "_AmpCastPrimitive" and repr(net.mm) == repr(net.mm.primitive)
    assert isinstance(net.dense, nn.Dense) and type(net.dense).__name__ == "Dense"
    with pytest.warns(UserWarning, match="adjusted from O1 to O3"):
        amp.auto_mixed_precision(net, "O3")


def test_amp_loss_scaler_runs_inside_jit():
    scaler = amp.DynamicLossScaler(1024, 2, 1)

    @ms.jit
    def step(g):
        grads = scaler.unscale((g,))
        finite = amp.all_finite(grads)
        scaler.adjust(finite)
        return grads[0]

    out = step(ms.Tensor(np.array([2048.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [2.0])
    assert float(scaler.scale_value.asnumpy()) == 2048.0


def test_amp_all_finite_refuses_non_tensors():
    with pytest.raises(TypeError, match="all_finite"):
        amp.all_finite([1.0])


def test_amp_tutorial_style_step_with_dynamic_loss_scaler():
    """The mixed-precision tutorial's loop: scale in the forward function, unscale, all_finite, adjust."""
    ms.set_seed(1)
    net = amp.auto_mixed_precision(nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)), "O2")
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.SGD(net.trainable_params(), 0.1)
    scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2)

    def forward(x, y):
        logits = net(x)
        return scaler.scale(loss_fn(logits, y)), logits

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params(), has_aux=True)
    x = ms.Tensor(np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32))
    y = ms.Tensor(np.arange(8, dtype=np.int32) % 3)
    losses, scales = [], []
    for _ in range(4):
        (loss, _), grads = grad_fn(x, y)
        loss = scaler.unscale(loss)
        finite = amp.all_finite(grads)
        if finite:
            opt(scaler.unscale(grads))
        scaler.adjust(finite)
        losses.append(float(loss.asnumpy()))
        scales.append(float(scaler.scale_value.asnumpy()))
    assert losses[-1] < losses[0]
    assert scales == [65536.0, 131072.0, 131072.0, 262144.0]
