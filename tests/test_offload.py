"""Cell.offload: activations go to the host after forward and come back for backward."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import memory, nn, offload
from cellkit.nn.cell_call import on_fast_path
from tests.blocks import ResidualBlock


def blocks(n=4, width=8, hidden=32):
    ms.set_seed(0)
    return nn.SequentialCell([ResidualBlock(width, hidden) for _ in range(n)])


def grads_of(net, x):
    fn = ms.grad(lambda x: (net(x) ** 2).sum(), grad_position=0, weights=net.trainable_params())
    gx, gw = fn(x)
    return [gx.asnumpy()] + [g.asnumpy() for g in gw]


def data(rows=16, width=8):
    return ms.Tensor(np.random.default_rng(0).standard_normal((rows, width)).astype(np.float32))


def test_offload_gradients_identical(backend):
    x = data()
    plain = grads_of(blocks(), x)
    net = blocks()
    for block in net:
        block.offload()
    # On the strict device the activations really leave it: any use of a host array there would raise.
    for a, b in zip(plain, grads_of(net, x)):
        np.testing.assert_array_equal(a, b)
    assert offload._in_flight == []


def test_offload_moves_activations_to_host_in_the_memory_report():
    x = data(rows=256, width=64)
    net = blocks(n=4, width=64, hidden=256)
    fn = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())
    plain = memory.profile(fn, x, net=net)
    for block in net:
        block.offload()
    moved = memory.profile(fn, x, net=net)
    moves = [e for e in moved.events if e.kind == "move"]
    to_host = [e for e in moves if e.device == "host"]
    back = [e for e in moves if e.device != "host"]
    assert to_host and len(to_host) == len(back)  # every array that left came back
    assert max(moved.host) == sum(e.nbytes for e in to_host)  # all four blocks out at once
    assert moved.host[-1] == 0
    assert moved.peak_bytes < 0.7 * plain.peak_bytes  # device memory: activations were on the host
    hidden = 256 * 256 * 4
    assert {e.path for e in to_host} >= {"0.act", "3.act"} and all(e.nbytes <= hidden for e in to_host)


def test_offload_prefetch_brings_the_next_cells_back_early():
    def move_order(prefetch):
        net = blocks(n=4)
        for block in net:
            block.offload(backward_prefetch=prefetch)
        fn = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())
        report = memory.profile(fn, data(), net=net)
        order = []
        for e in report.events:
            if e.kind == "move" and e.device != "host":
                block = e.path.split(".")[0]
                if not order or order[-1] != block:
                    order.append(block)
        grads = [g.asnumpy() for g in report.result]
        return order, grads

    auto, g_auto = move_order("Auto")
    two, g_two = move_order(2)
    assert auto == ["3", "2", "1", "0"]
    assert two == ["3", "2", "1", "0"]  # the same order, but block 3's backward brought 2 and 1 back with it
    for a, b in zip(g_auto, g_two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("prefetch, expected", [(2, [False, False]), ("Auto", [True, True])])
def test_offload_prefetch_two_returns_blocks_before_their_backward(prefetch, expected):
    net = blocks(n=4)
    for block in net:
        block.offload(backward_prefetch=prefetch)
    seen = []
    net[1].register_backward_pre_hook(lambda cell, grads: seen.append([r.on_host for r in _regions()]))
    ms.grad(lambda x: net(x).sum(), weights=net.trainable_params())(data())
    # When block 1's backward starts, blocks 3 and 2 are done; with prefetch 2, blocks 1 and 0
    # came back with them; with 'Auto' both are still on the host.
    assert seen == [expected]


def _regions():
    return [r for r in (ref() for ref in offload._in_flight) if r is not None]


def test_offload_argument_validation_and_record():
    cell = ResidualBlock(8, 32)
    with pytest.raises(ValueError, match="backward_prefetch"):
        cell.offload("Manual")
    with pytest.raises(ValueError, match="backward_prefetch"):
        cell.offload(-1)
    with pytest.raises(TypeError, match="backward_prefetch"):
        cell.offload(1.5)
    assert on_fast_path(cell) and cell._offload is None  # nothing half-changed
    cell.offload(3)
    assert cell.parallel_config["offload"] == {"backward_prefetch": 3}
    assert not on_fast_path(cell)


def test_offload_outside_a_transform_is_a_plain_call():
    net = blocks(n=2)
    expected = net(data()).asnumpy()
    for block in net:
        block.offload()
    np.testing.assert_array_equal(net(data()).asnumpy(), expected)
