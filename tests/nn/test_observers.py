"""Cell observers: the events the runtime emits, and that watching changes nothing."""
import gc
import weakref

import numpy as np
import pytest

import cellkit as ms
from cellkit import Tensor, nn, ops
from cellkit.nn import observers
from cellkit.nn.cell_call import on_fast_path


class Recorder:
    def __init__(self):
        self.events = []

    def on_event(self, kind, cell, payload):
        entry = (kind, type(cell).__name__)
        if kind == "hook":
            entry += (payload["stage"], payload["hook"].__name__, payload["result"] is not None)
        self.events.append(entry)


class Inner(nn.Cell):
    def construct(self, x, y):
        return x * 3 + y * 2


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x, y):
        return self.inner(x, y) * 5


def two():
    return Tensor(np.ones(2, np.float32)), Tensor(np.array([1.0, 2.0], np.float32))


def watch(net, recorder):
    cells = [cell for _, cell in net.cells_and_names()]
    for cell in cells:
        observers.add_observer(cell, recorder)
    return cells


def unwatch(cells, recorder):
    for cell in cells:
        observers.remove_observer(cell, recorder)


def test_observers_nested_order_forward_then_backward_in_reverse():
    net, rec = Outer(), Recorder()
    cells = watch(net, rec)
    ops.GradOperation(get_all=True)(net)(*two())
    unwatch(cells, rec)
    assert rec.events == [
        ("forward_pre", "Outer"), ("forward_pre", "Inner"), ("forward", "Inner"), ("forward", "Outer"),
        ("backward_pre", "Outer"), ("backward_pre", "Inner"), ("backward", "Inner"), ("backward", "Outer"),
    ]


def test_observers_report_every_user_hook_call_after_its_cell_event():
    def pre(cell, inputs):
        return (inputs[0] * 2, inputs[1])

    def post(cell, inputs, output):
        return None

    def bpre(cell, grad_output):
        return None

    def back(cell, grad_input, grad_output):
        return (grad_input[0] * 0, grad_input[1])

    net, rec = Outer(), Recorder()
    net.inner.register_forward_pre_hook(pre)
    net.inner.register_forward_hook(post)
    net.inner.register_backward_pre_hook(bpre)
    net.inner.register_backward_hook(back)
    cells = watch(net, rec)
    grads = ops.GradOperation(get_all=True)(net)(*two())
    unwatch(cells, rec)
    assert rec.events == [
        ("forward_pre", "Outer"), ("forward_pre", "Inner"), ("hook", "Inner", "forward_pre", "pre", True),
        ("forward", "Inner"), ("hook", "Inner", "forward", "post", False), ("forward", "Outer"),
        ("backward_pre", "Outer"), ("backward_pre", "Inner"), ("hook", "Inner", "backward_pre", "bpre", False),
        ("backward", "Inner"), ("hook", "Inner", "backward", "back", True), ("backward", "Outer"),
    ]
    assert [g.asnumpy().tolist() for g in grads] == [[0.0, 0.0], [10.0, 10.0]]


def test_observers_payloads_carry_the_live_values_and_one_call_id():
    seen = []

    class Keep:
        def on_event(self, kind, cell, payload):
            seen.append((kind, payload))

    net, keep = Outer(), Keep()
    observers.add_observer(net.inner, keep)
    ops.GradOperation(get_all=True)(net)(*two())
    observers.remove_observer(net.inner, keep)
    kinds = {kind: payload for kind, payload in seen}
    assert len({payload["call"] for _, payload in seen}) == 1
    assert [t.asnumpy().tolist() for t in kinds["forward_pre"]["inputs"]] == [[1.0, 1.0], [1.0, 2.0]]
    assert kinds["forward"]["output"].asnumpy().tolist() == [5.0, 7.0]
    assert [g.asnumpy().tolist() for g in kinds["backward_pre"]["grad_output"]] == [[5.0, 5.0]]
    assert [g.asnumpy().tolist() for g in kinds["backward"]["grad_input"]] == [[15.0, 15.0], [10.0, 10.0]]


def test_observers_do_not_change_what_hooks_see_or_the_gradients():
    def run(observe):
        seen = []
        net = Outer()
        net.inner.register_backward_hook(
            lambda c, gi, go: seen.append(([g.asnumpy().tolist() for g in gi], [g.asnumpy().tolist() for g in go])))
        net.inner.register_forward_hook(lambda c, i, o: seen.append(o.asnumpy().tolist()))
        rec = Recorder()
        cells = watch(net, rec) if observe else []
        grads = ops.GradOperation(get_all=True)(net)(*two())
        unwatch(cells, rec)
        return seen, [g.asnumpy().tolist() for g in grads]

    assert run(observe=True) == run(observe=False)


def test_observers_nothing_reported_after_removal():
    net, rec = Outer(), Recorder()
    cells = watch(net, rec)
    unwatch(cells, rec)
    ops.GradOperation(get_all=True)(net)(*two())
    assert rec.events == []


def test_observers_backward_pre_only_when_inputs_need_no_gradient():
    net = nn.SequentialCell(nn.Dense(2, 2, weight_init="ones"), nn.ReLU())
    rec = Recorder()
    cells = watch(net, rec)
    ms.value_and_grad(net, grad_position=None, weights=net.trainable_params())(Tensor(np.ones((1, 2), np.float32)))
    unwatch(cells, rec)
    dense_events = [kind for kind, name in rec.events if name == "Dense"]
    assert dense_events == ["forward_pre", "forward", "backward_pre"]  # its input is data: no grad_input


def test_observers_no_backward_events_without_a_gradient_transform():
    net, rec = Outer(), Recorder()
    cells = watch(net, rec)
    net(*two())
    unwatch(cells, rec)
    assert [kind for kind, _ in rec.events] == ["forward_pre", "forward_pre", "forward", "forward"]


def test_observers_removal_restores_fast_path_and_drops_the_observer():
    net, rec = Outer(), Recorder()
    cells = watch(net, rec)
    assert not on_fast_path(net) and not on_fast_path(net.inner)
    unwatch(cells, rec)
    assert on_fast_path(net) and on_fast_path(net.inner)
    assert "_observers" not in vars(net) and "_observers" not in vars(net.inner)
    ref = weakref.ref(rec)
    del rec
    gc.collect()
    assert ref() is None


def test_observers_removal_keeps_slow_path_for_a_cell_with_hooks():
    net, rec = Outer(), Recorder()
    net.inner.register_forward_hook(lambda c, i, o: None)
    observers.add_observer(net.inner, rec)
    observers.remove_observer(net.inner, rec)
    observers.remove_observer(net.inner, rec)  # twice is harmless
    assert on_fast_path(net.inner) is False


def test_observers_hook_that_raises_is_reported_then_the_error_propagates():
    def broken(cell, inputs):
        raise ValueError("broken hook")

    net = Outer()
    seen = []

    class Keep:
        def on_event(self, kind, cell, payload):
            seen.append((kind, payload.get("error")))

    net.inner.register_forward_pre_hook(broken)
    observers.add_observer(net.inner, Keep())
    with pytest.raises(ValueError, match="broken hook"):
        net(*two())
    assert seen[0] == ("forward_pre", None)
    assert seen[1][0] == "hook" and isinstance(seen[1][1], ValueError)


def test_observers_silent_in_graph_mode():
    net, rec = Outer(), Recorder()
    cells = watch(net, rec)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(*two())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        unwatch(cells, rec)
    assert rec.events == []


def test_observers_must_have_on_event():
    with pytest.raises(TypeError, match="on_event"):
        observers.add_observer(Outer(), object())
