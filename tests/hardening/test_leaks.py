"""Long runs and leaks: memory stays flat, and tools let go of everything when they are done."""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import cellkit as ms
from cellkit import autograd, memory, nn, offload, recompute, seed
from cellkit.nn.cell_call import on_fast_path
from cellkit.nn.cell_hooks import has_hooks
from tests.train.test_digits import MLP  # the digits MLP, trained here for 2,000 steps

sklearn_datasets = pytest.importorskip("sklearn.datasets")


def digits_batches(size=32):
    data = sklearn_datasets.load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int32)
    return [(ms.Tensor(x[i:i + size]), ms.Tensor(y[i:i + size])) for i in range(0, len(x) - size + 1, size)]


def test_two_thousand_training_steps_keep_memory_flat():
    tracemalloc.start()
    try:
        ms.set_seed(0)
        batches = digits_batches()
        net = MLP()
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9))
        step.set_train()
        n = 0
        warm = None
        while n < 2000:
            for image, label in batches:
                step(image, label)
                n += 1
                if n == 200:
                    gc.collect()
                    warm = tracemalloc.get_traced_memory()[0]
                if n == 2000:
                    break
        gc.collect()
        end = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert abs(end - warm) <= 0.05 * warm, (warm, end)
    assert autograd._depth == 0


def grad_call(net):
    return ms.grad(lambda t: net(t).sum(), weights=net.trainable_params())


def watch_outputs(net):
    """Weak references to every Cell output (a hook that keeps nothing but the weakref)."""
    refs = []
    handles = [cell.register_forward_hook(lambda c, i, o: refs.append(weakref.ref(o._data)))
               for _, cell in net.cells_and_names() if cell is not net]
    return refs, handles


def test_trace_keeps_no_live_array_after_it_closes():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.GELU(), nn.Dense(8, 2))
    refs, handles = watch_outputs(net)
    x = ms.Tensor(np.ones((3, 4), np.float32))
    x_ref = weakref.ref(x._data)
    with ms.trace(net) as tr:
        grads = grad_call(net)(x)
    del grads, x
    gc.collect()
    assert len(refs) == 3 and all(r() is None for r in refs)
    assert x_ref() is None
    assert tr.to_dict()["events"]  # the record itself is still there, as copies
    assert all(cell._observers == () and (on_fast_path(cell) or has_hooks(cell)) for _, cell in net.cells_and_names())
    for h in handles:
        h.remove()


def test_memory_profile_keeps_no_live_array_but_the_result():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.GELU(), nn.Dense(8, 2))
    refs, _ = watch_outputs(net)
    x = ms.Tensor(np.ones((3, 4), np.float32))
    report = memory.profile(grad_call(net), x, net=net)
    del x
    gc.collect()
    assert all(r() is None for r in refs)
    assert report.events and report.result is not None
    result_ref = weakref.ref(report.result[0]._data)
    report.result = None
    gc.collect()
    assert result_ref() is None


def test_recompute_and_offload_leave_no_state_behind():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.GELU(), nn.Dropout(p=0.5), nn.Dense(8, 2))
    net.set_train()
    net[1].recompute()
    net[3].offload(backward_prefetch=1)
    refs, _ = watch_outputs(net)
    grads = grad_call(net)(ms.Tensor(np.ones((3, 4), np.float32)))
    del grads
    gc.collect()
    assert all(r() is None for r in refs)
    assert recompute._regions == [] and offload._in_flight == [] and seed._logs == []
    assert autograd._sweeps == [] and autograd._depth == 0
    assert all(p._node is None for p in net.get_parameters())


def test_a_failing_gradient_call_leaves_no_tape():
    net = nn.Dense(4, 2)
    net.recompute()

    def bad_loss(t):
        net(t)
        raise ValueError("broken loss")

    with pytest.raises(ValueError, match="broken loss"):
        ms.grad(bad_loss, weights=net.trainable_params())(ms.Tensor(np.ones((1, 4), np.float32)) * 1)
    assert autograd._depth == 0 and recompute._regions == [] and seed._logs == []
    assert all(p._node is None for p in net.get_parameters())


@pytest.mark.parametrize("kind", ["register_forward_pre_hook", "register_forward_hook",
                                  "register_backward_pre_hook", "register_backward_hook"])
def test_hook_removed_by_handle_keeps_no_reference_to_the_cell(kind):
    cell = nn.Dense(2, 2)
    payload = np.zeros(1000)
    payload_ref = weakref.ref(payload)

    def hook(*args):
        return None if payload is None else None

    handle = getattr(cell, kind)(hook)
    del hook, payload
    handle.remove()
    cell_ref = weakref.ref(cell)
    del cell
    gc.collect()
    assert cell_ref() is None  # the handle, still alive, does not keep the Cell
    assert payload_ref() is None  # nor the hook and what it closed over
    handle.remove()  # removing twice is harmless


def test_hook_handle_as_context_manager_releases_the_hook():
    cell = nn.Dense(2, 2)
    calls = []
    with cell.register_forward_hook(lambda c, i, o: calls.append(1)):
        cell(ms.Tensor(np.ones((1, 2), np.float32)))
    cell(ms.Tensor(np.ones((1, 2), np.float32)))
    assert calls == [1] and on_fast_path(cell)


@pytest.mark.parametrize("setting", ["plain", "recompute", "offload"])
def test_a_gradient_call_makes_no_reference_cycles(setting):
    # Arrays caught in a cycle wait for the cycle collector: memory would depend on when it runs.
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.GELU(), nn.Dense(8, 2))
    if setting == "recompute":
        net[1].recompute()
    elif setting == "offload":
        net[1].offload()
    fn = grad_call(net)
    x = ms.Tensor(np.ones((3, 4), np.float32))
    fn(x)
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        fn(x)
        found = gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert found == 0, garbage
