"""Recompute: Cell.recompute / Primitive.recompute keep only inputs and replay in backward.

Every test compares against the same run without recompute: gradients must be
bitwise identical (float64 where it matters), the replay must really happen
(construct counts), and nothing may run or update twice that should not.
"""
import tracemalloc

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit import recompute
from cellkit.nn.cell_call import on_fast_path


class Counting(nn.Cell):
    """Wraps a Cell and counts how often its construct runs."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.calls = 0

    def construct(self, x):
        self.calls += 1
        return self.inner(x)


class Block(nn.Cell):
    """The transformer-style MLP block of benchmarks/recompute.py: x + W2 gelu(W1 x)."""

    def __init__(self, width, hidden, dtype=ms.float64):
        super().__init__()
        self.up = nn.Dense(width, hidden, dtype=dtype) if _dense_takes_dtype() else nn.Dense(width, hidden)
        self.act = nn.GELU()
        self.down = nn.Dense(hidden, width, dtype=dtype) if _dense_takes_dtype() else nn.Dense(hidden, width)
        self.runs = 0

    def construct(self, x):
        self.runs += 1
        return x + self.down(self.act(self.up(x)))


def _dense_takes_dtype():
    import inspect
    return "dtype" in inspect.signature(nn.Dense.__init__).parameters


def make_net(blocks=3, width=6, hidden=10, seed=0, dropout=None):
    ms.set_seed(seed)
    cells = []
    for _ in range(blocks):
        cells.append(Block(width, hidden))
        if dropout:
            cells.append(nn.Dropout(p=dropout))
    net = nn.SequentialCell(cells)
    for p in net.get_parameters():  # float64 so "identical" means bitwise, not merely close
        p.set_data(ms.Tensor(p.asnumpy().astype(np.float64)))
    return net


def grads_of(net, x):
    def loss(x):
        return (net(x) ** 2).sum()
    fn = ms.grad(loss, grad_position=0, weights=net.trainable_params())
    gx, gw = fn(x)
    return [gx.asnumpy()] + [g.asnumpy() for g in gw]


def assert_bitwise(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype and u.shape == v.shape
        assert np.array_equal(u, v), np.abs(u - v).max()


def x64(rows=4, width=6, seed=1):
    return ms.Tensor(np.random.default_rng(seed).standard_normal((rows, width)))


def x32():
    return ms.Tensor(x64().asnumpy().astype(np.float32))


def test_recompute_per_block_gradients_bitwise_identical_float64():
    net, x = make_net(), x64()
    plain = grads_of(net, x)
    for block in net:
        block.recompute()
    assert_bitwise(plain, grads_of(net, x))


def test_recompute_replays_construct_once_in_backward():
    net, x = make_net(blocks=2), x64()
    for block in net:
        block.recompute()
    grads_of(net, x)
    assert [b.runs for b in net] == [2, 2]  # forward, then the replay in backward
    net(x)  # outside a gradient transform recompute costs nothing
    assert [b.runs for b in net] == [3, 3]


def test_recompute_set_on_parent_covers_children():
    net, x = make_net(blocks=2), x64()
    plain = grads_of(net, x)
    net.recompute()
    again = grads_of(net, x)
    assert_bitwise(plain, again)
    assert [b.runs for b in net] == [3, 3]  # 1 plain run + 1 recomputed forward + 1 replay


def test_recompute_output_is_the_first_runs_value():
    net, x = make_net(blocks=1), x64()
    expected = net(x).asnumpy()
    net.recompute()
    seen = {}

    def loss(x):
        out = net(x)
        seen["out"] = out.asnumpy()
        return out.sum()

    ms.grad(loss)(x)
    assert np.array_equal(seen["out"], expected)


def test_recompute_dropout_replays_same_mask_and_leaves_generator_untouched():
    net, x = make_net(blocks=2, dropout=0.5), x64(rows=8)
    net.set_train()
    ms.set_seed(7)
    plain = grads_of(net, x)
    after_plain = ops.dropout(ms.Tensor(np.ones(16)), p=0.5).asnumpy()
    net.recompute()
    ms.set_seed(7)
    again = grads_of(net, x)
    after_again = ops.dropout(ms.Tensor(np.ones(16)), p=0.5).asnumpy()
    assert_bitwise(plain, again)
    assert np.array_equal(after_plain, after_again)  # the replay drew nothing new


def test_recompute_dropout_with_explicit_seed_primitive():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(6, 6)
            self.drop = ops.Dropout(keep_prob=0.6, Seed0=3, Seed1=4)

        def construct(self, x):
            out, _ = self.drop(self.dense(x))
            return out

    def run(recompute):
        ms.set_seed(0)
        net = Net()
        if recompute:
            net.recompute()
        x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32))
        fn = ms.grad(lambda x: (net(x) ** 2).sum(), grad_position=0, weights=net.trainable_params())
        first = fn(x)
        second = fn(x)  # the primitive's own generator moved on exactly once per step
        return [first[0].asnumpy(), second[0].asnumpy()] + [g.asnumpy() for g in second[1]]

    assert_bitwise(run(False), run(True))


def test_primitive_recompute_false_inside_recomputed_cell_runs_once():
    calls = {"n": 0}

    class CountingExp(ops.Primitive):
        def __call__(self, x):
            calls["n"] += 1
            return ops.exp(x)

    class Net(nn.Cell):
        def __init__(self, keep):
            super().__init__()
            self.dense = nn.Dense(6, 6)
            self.exp = CountingExp()
            if keep:
                self.exp.recompute(False)

        def construct(self, x):
            return self.dense(self.exp(x * 0.1)) * 2

    def run(keep):
        ms.set_seed(0)
        net = Net(keep)
        net.recompute()
        calls["n"] = 0
        x = ms.Tensor(np.linspace(-1, 1, 12).reshape(2, 6).astype(np.float32))
        grads = ms.grad(lambda x: (net(x) ** 2).sum(), weights=net.trainable_params())(x)
        return calls["n"], [grads[0].asnumpy()] + [g.asnumpy() for g in grads[1]]

    n_recomputed, g_recomputed = run(keep=False)
    n_kept, g_kept = run(keep=True)
    assert n_recomputed == 2  # forward + replay
    assert n_kept == 1  # the op's own setting wins: its forward is not repeated
    for a, b in zip(g_recomputed, g_kept):
        np.testing.assert_array_equal(a, b)


def test_primitive_recompute_true_alone_replays_the_op():
    calls = {"n": 0}

    class CountingGelu(ops.Primitive):
        def __call__(self, x):
            calls["n"] += 1
            return ops.gelu(x)

    act = CountingGelu().recompute()
    assert repr(act) == "Prim[CountingGelu]" and isinstance(act, CountingGelu)
    x = ms.Tensor(np.linspace(-2, 2, 7))
    g = ms.grad(lambda x: (act(x) * 3).sum())(x)
    assert calls["n"] == 2
    expected = ms.grad(lambda x: (ops.gelu(x) * 3).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), expected.asnumpy())
    act(x)
    assert calls["n"] == 3


def test_nested_recompute_identical_gradients():
    net, x = make_net(blocks=3), x64()
    plain = grads_of(net, x)
    net.recompute()
    for block in net:
        block.recompute()
    net[1].up.recompute()
    again = grads_of(net, x)
    assert_bitwise(plain, again)


def test_nested_recompute_with_dropout_and_hooks():
    net, x = make_net(blocks=2, dropout=0.3), x64(rows=6)
    net.set_train()
    fired = []
    net[0].act.register_forward_hook(lambda cell, inputs, out: fired.append("fwd"))
    ms.set_seed(3)
    plain = grads_of(net, x)
    plain_fired = len(fired)
    net.recompute()
    net[0].recompute()
    ms.set_seed(3)
    again = grads_of(net, x)
    assert_bitwise(plain, again)
    assert len(fired) - plain_fired == plain_fired == 1


def test_recompute_inside_train_one_step_cell():
    def train(recompute):
        net = make_net(blocks=2)
        if recompute:
            for block in net:
                block.recompute()
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
        step = nn.TrainOneStepCell(loss_net, opt)
        step.set_train()
        x, y = x64(rows=8), x64(rows=8, seed=2)
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy() for p in net.trainable_params()]

    l0, w0 = train(False)
    l1, w1 = train(True)
    assert l0 == l1
    assert_bitwise(w0, w1)


def test_recompute_forward_hooks_fire_once_per_user_forward():
    net, x = make_net(blocks=2), x64()
    log = []
    net[0].register_forward_pre_hook(lambda cell, inputs: log.append("pre-block"))
    net[0].register_forward_hook(lambda cell, inputs, out: log.append("post-block"))
    net[0].up.register_forward_hook(lambda cell, inputs, out: log.append("post-up"))
    net[0].recompute()
    grads_of(net, x)
    assert log == ["pre-block", "post-up", "post-block"]


def test_recompute_replacing_forward_hook_is_rerun_so_gradients_match():
    def build():
        net = make_net(blocks=2)
        calls = []

        def double(cell, inputs, out):
            calls.append(1)
            return out * 2

        net[0].act.register_forward_hook(double)
        return net, calls

    x = x64()
    net, calls = build()
    plain = grads_of(net, x)
    assert len(calls) == 1
    net, calls = build()
    net[0].recompute()
    again = grads_of(net, x)
    assert len(calls) == 2  # the replacement is rebuilt on the replay's tape
    assert_bitwise(plain, again)


def test_recompute_backward_hooks_fire_once_with_the_same_gradients():
    def run(recompute):
        net = make_net(blocks=2)
        seen = []
        net[0].up.register_backward_hook(lambda cell, gi, go: seen.append([g.asnumpy() for g in go]))
        if recompute:
            net.recompute()
        grads = grads_of(net, x64())
        return seen, grads

    seen0, g0 = run(False)
    seen1, g1 = run(True)
    assert len(seen0) == len(seen1) == 1
    assert_bitwise(seen0[0], seen1[0])
    assert_bitwise(g0, g1)


def test_recompute_batchnorm_running_stats_updated_once():
    def run(recompute):
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(4, 5), nn.BatchNorm1d(5), nn.ReLU())
        net.set_train()
        if recompute:
            net.recompute()
        x = ms.Tensor(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))
        grads = ms.grad(lambda x: net(x).sum(), weights=net.trainable_params())(x)
        return net[1].moving_mean.asnumpy(), net[1].moving_variance.asnumpy(), grads

    m0, v0, g0 = run(False)
    m1, v1, g1 = run(True)
    np.testing.assert_array_equal(m0, m1)
    np.testing.assert_array_equal(v0, v1)
    np.testing.assert_array_equal(g0[0].asnumpy(), g1[0].asnumpy())


def test_recompute_tuple_outputs():
    class Split(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(6, 6)

        def construct(self, x):
            h = ops.tanh(self.dense(x))
            return h * 2, h.sum(axis=1)

    def run(recompute):
        ms.set_seed(0)
        cell = Split()
        if recompute:
            cell.recompute()

        def loss(x):
            a, b = cell(x)
            return (a ** 2).sum() + b.sum() * 3
        g = ms.grad(loss, weights=cell.trainable_params())(x32())
        return [g[0].asnumpy()] + [w.asnumpy() for w in g[1]]

    for a, b in zip(run(False), run(True)):
        np.testing.assert_array_equal(a, b)


def test_recompute_uses_a_weight_of_another_cell():
    shared = nn.Dense(6, 6)

    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.own = nn.Dense(6, 6)

        def construct(self, x):
            return self.own(ops.matmul(x, shared.weight))  # not a registered child

    def run(recompute):
        ms.set_seed(0)
        cell = Tied()
        if recompute:
            cell.recompute()
        weights = cell.trainable_params() + [shared.weight]
        g = ms.grad(lambda x: (cell(x) ** 2).sum(), grad_position=None, weights=weights)(x32())
        return [w.asnumpy() for w in g]

    for a, b in zip(run(False), run(True)):
        np.testing.assert_array_equal(a, b)


def test_recompute_options_are_validated_and_recorded():
    net = make_net(blocks=1)
    with pytest.raises(ValueError, match="not recognized"):
        net.recompute(unknown=True)
    with pytest.raises(TypeError, match="mp_comm_recompute"):
        net.recompute(mp_comm_recompute=1)
    net.recompute(mp_comm_recompute=False, parallel_optimizer_comm_recompute=True)
    assert net.parallel_config["recompute"]["mp_comm_recompute"] is False
    assert all(p.parallel_optimizer_comm_recompute for p in net.get_parameters())
    with pytest.raises(ValueError, match="not recognized"):
        net.recompute(mode=False)  # MindSpore 2.10 refuses the 1.x spelling
    recompute.switch_off(net)
    assert net._recompute is None and on_fast_path(net)


def test_recompute_lowers_the_measured_peak():
    def peak(recompute):
        ms.set_seed(0)
        net = nn.SequentialCell([Block(64, 256, dtype=ms.float32) for _ in range(8)])
        if recompute:
            for block in net:
                block.recompute()
        x = ms.Tensor(np.random.default_rng(0).standard_normal((1024, 64)).astype(np.float32))
        fn = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())
        fn(x)  # warm up caches
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        fn(x)
        top = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        return top

    without, with_ = peak(False), peak(True)
    assert with_ < 0.5 * without, (with_, without)


def test_recompute_under_trace_pairs_backward_events_with_first_forward():
    net, x = make_net(blocks=2), x64()
    net[0].recompute()
    with ms.trace(net) as tr:
        grads_of(net, x)
    events = tr.to_dict()["events"]
    kinds = [(e["kind"], e["path"]) for e in events]
    up = [k for k, path in kinds if path.endswith("0.up")]
    assert up.count("forward") == 1 and up.count("backward") == 1  # the replay is not a second forward
    forward_calls = {e["call"] for e in events if e["kind"] == "forward"}
    assert {e["call"] for e in events if e["kind"] == "backward"} <= forward_calls
