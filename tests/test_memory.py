"""cellkit.memory: the accounting of every array, checked against the allocator's own count."""
import tracemalloc

import numpy as np
import pytest

import cellkit as ms
from cellkit import autograd, memory, nn, recompute
from cellkit import tensor as _unused  # noqa: F401  (the function; the module holds the probe slot)
from cellkit.nn.cell_call import on_fast_path
from tests.blocks import ResidualBlock


def blocks_net(n=8, width=64, hidden=256, recompute_blocks=False):
    ms.set_seed(0)
    net = nn.SequentialCell([ResidualBlock(width, hidden) for _ in range(n)])
    if recompute_blocks:
        for block in net:
            block.recompute()
    return net


def grad_fn(net):
    return ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())


def batch(rows=512, width=64):
    return ms.Tensor(np.random.default_rng(0).standard_normal((rows, width)).astype(np.float32))


def probe_slots():
    import sys
    return (sys.modules["cellkit.tensor"]._alloc_probe, autograd._probe, recompute._probe)


@pytest.mark.parametrize("with_recompute", [False, True])
def test_profile_peak_agrees_with_tracemalloc_on_the_benchmark_blocks(with_recompute):
    # benchmarks/recompute.py's network at a smaller batch (256 rows instead of 2048)
    net = blocks_net(n=16, width=256, hidden=1024, recompute_blocks=with_recompute)
    fn, x = grad_fn(net), batch(rows=256, width=256)
    fn(x)  # warm-up: lazily built caches are not part of the call
    report = memory.profile(fn, x, net=net)
    assert report.allocator == "tracemalloc"
    assert 0.9 <= report.agreement() <= 1.1, report.summary()


def test_profile_peak_agrees_on_an_mlp_training_step():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.01))
    step.set_train()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((128, 784)).astype(np.float32))
    y = ms.Tensor(np.random.default_rng(1).integers(0, 10, 128).astype(np.int32))
    step(x, y)
    report = memory.profile(step, x, y)
    assert 0.9 <= report.agreement() <= 1.1, report.summary()
    assert report.baseline_roles["parameter"] == sum(p.nbytes for p in net.get_parameters())
    opt = step.optimizer
    state = [p for p in opt.get_parameters() if all(p is not q for q in opt.parameters)]
    assert report.baseline_roles["optimizer state"] == sum(p.nbytes for p in state)


def test_profile_recompute_peak_far_lower_and_roles_change():
    x = batch()
    plain = memory.profile(grad_fn(blocks_net()), x)
    saved = memory.profile(grad_fn(blocks_net(recompute_blocks=True)), x)
    assert saved.peak_bytes < 0.6 * plain.peak_bytes
    assert "saved" in plain.by_role_at_peak()
    roles = {e.role for e in saved.events if e.kind == "alloc"}
    assert "recomputed" in roles and "recomputed" not in {e.role for e in plain.events if e.kind == "alloc"}
    comparison = plain.compare(saved)
    assert comparison.saving == pytest.approx(1 - saved.peak_bytes / plain.peak_bytes)
    assert "less" in comparison.summary()


def test_profile_accounts_each_activation_with_its_cell_op_and_role():
    net = blocks_net(n=2, width=8, hidden=32)
    x = batch(rows=16, width=8)
    report = memory.profile(grad_fn(net), x, net=net)
    allocs = [e for e in report.events if e.kind == "alloc"]
    hidden = 16 * 32 * 4
    ups = [e for e in allocs if e.path == "0.up" and e.op == "dense"]
    assert len(ups) == 1 and ups[0].nbytes == hidden and ups[0].role == "activation"
    # GELU keeps its slope for backward: an array made inside the op, saved.
    assert any(e.path == "0.act" and e.role == "saved" and e.nbytes == hidden for e in allocs)
    # The GELU output is an activation the next Dense keeps: it becomes saved.
    assert any(e.kind == "retag" and e.path == "0.act" and e.role == "saved" for e in report.events)
    assert any(e.role == "gradient" and e.path == "1.down" for e in allocs)
    # Everything allocated during the call was released by its end except the returned gradients.
    weight_grads = sum(p.nbytes for p in net.trainable_params())
    assert weight_grads <= report.live[-1] <= weight_grads + 16  # + the scalar loss
    by_cell = report.by_cell()
    assert by_cell["0.up"]["allocated"] >= hidden


def test_profile_releases_everything_and_costs_nothing_after():
    net = blocks_net(n=2, width=8, hidden=16)
    fn, x = grad_fn(net), batch(rows=4, width=8)
    memory.profile(fn, x, net=net)
    assert probe_slots() == (None, None, None)
    assert all(cell._observers == () for _, cell in net.cells_and_names())
    assert all(on_fast_path(cell) for _, cell in net.cells_and_names())
    assert not tracemalloc.is_tracing()


def test_profile_restores_slots_when_fn_raises():
    def boom(x):
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        memory.profile(boom, batch(rows=2))
    assert probe_slots() == (None, None, None)


def test_profile_refuses_nesting_and_non_callables():
    with pytest.raises(TypeError, match="'fn' must be callable"):
        memory.profile(42)
    inner = {}

    def outer(x):
        with pytest.raises(RuntimeError, match="already running"):
            memory.profile(lambda: None)
        inner["ok"] = True
        return x

    memory.profile(outer, batch(rows=2))
    assert inner["ok"]


def test_profile_timeline_and_report_serialise():
    net = blocks_net(n=1, width=8, hidden=16)
    report = memory.profile(grad_fn(net), batch(rows=4, width=8), net=net, label="one block", timing=True)
    d = report.to_dict()
    assert d["label"] == "one block" and d["peak_bytes"] == report.peak_bytes
    assert len(report.steps) == len(report.live) == len(report.by_role["gradient"])
    assert max(report.live) == report.peak_bytes
    assert report.clean_seconds is not None and report.clean_seconds > 0
    assert "peak" in repr(report)
    import json
    json.dumps(d)


def test_profile_with_a_cell_finds_its_paths_without_net():
    net = blocks_net(n=1, width=8, hidden=16)
    report = memory.profile(net, batch(rows=4, width=8))
    assert {"0.up", "0.act", "0.down"} <= {e.path for e in report.events if e.kind == "alloc"}
    assert report.baseline_roles["input"] == 4 * 8 * 4
