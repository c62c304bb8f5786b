"""The top-level names of issue 17 (generators, devices, memory figures, checkpoint conversion,
``recompute``, the parallel context, ``mindspore.communication``) against MindSpore 2.10's answers
(``tests/fixtures/mindspore/toplevel.json``) and by their own behaviour.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "toplevel"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_toplevel_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_toplevel_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


# ---------------------------------------------------------------- generators drive the ops' draws
def test_rng_state_replays_every_kind_of_draw():
    ms.manual_seed(21)
    ops.rand(3)
    ms.seed.generator().integers(0, 10, size=3, dtype=np.uint32)  # leaves half a 64-bit word waiting
    state = ms.get_rng_state()
    first = (ops.rand(4).asnumpy(), ops.randn(2, 2).asnumpy(), ops.bernoulli(ms.Tensor(np.full(6, 0.5, np.float32))).asnumpy())
    ms.set_rng_state(state)
    again = (ops.rand(4).asnumpy(), ops.randn(2, 2).asnumpy(), ops.bernoulli(ms.Tensor(np.full(6, 0.5, np.float32))).asnumpy())
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert ms.get_rng_state().asnumpy()[:8].tolist() == [21, 0, 0, 0, 0, 0, 0, 0]


def test_rng_state_offset_grows_with_draws():
    ms.manual_seed(4)
    offsets = []
    for _ in range(3):
        ops.rand(10)
        offsets.append(int(ms.get_rng_state().asnumpy()[8:].view("<u8")[0]))
    assert offsets[0] > 0 and offsets[0] < offsets[1] < offsets[2]


def test_manual_seed_and_set_seed_restart_the_same_stream():
    ms.manual_seed(8)
    a = ops.rand(5).asnumpy()
    ms.set_seed(8)
    b = ops.rand(5).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert ms.initial_seed() == 8


def test_manual_seed_makes_initializers_and_dropout_reproducible():
    def draw():
        w = nn.Dense(4, 3).weight.asnumpy()
        d = ops.dropout(ms.Tensor(np.ones((20,), np.float32)), p=0.5).asnumpy()
        return w, d

    ms.manual_seed(123)
    first = draw()
    ms.manual_seed(123)
    np.testing.assert_array_equal(first[0], draw()[0])
    ms.manual_seed(123)
    np.testing.assert_array_equal(first[1], draw()[1])


def test_generator_streams_are_independent_of_the_default():
    g = ms.Generator().manual_seed(5)
    state = g.get_state()
    x = g._numpy().random(3)
    ms.manual_seed(1)
    ops.rand(7)
    g.set_state(state)
    np.testing.assert_array_equal(g._numpy().random(3), x)


def test_seed_module_is_callable_and_still_a_module():
    from cellkit import seed

    chosen = ms.seed()
    assert chosen == ms.initial_seed()
    assert seed.generator() is ms.seed.generator()


def test_set_rng_state_refuses_a_lone_half_word():
    state = np.zeros(16, np.uint8)
    state[8] = 1
    with pytest.raises(ValueError, match="offset 1"):
        ms.set_rng_state(ms.Tensor(state))


# ---------------------------------------------------------------- memory figures
def test_memory_allocated_counts_live_tensors_once():
    before = ms.memory_allocated()
    big = ms.Tensor(np.zeros((500, 1000), np.float32))
    view = big[:10]
    after = ms.memory_allocated()
    assert 2_000_000 <= after - before < 2_100_000
    assert ms.max_memory_allocated() >= after
    del big, view
    assert ms.memory_allocated() < after


def test_reset_peak_brings_the_maximum_down():
    big = ms.Tensor(np.zeros((1000, 1000), np.float32))
    peak = ms.max_memory_allocated()
    del big
    ms.reset_peak_memory_stats()
    assert ms.max_memory_allocated() <= peak - 4_000_000


def test_memory_summary_reports_the_figures():
    keep = ms.Tensor(np.zeros(256, np.float32))  # noqa: F841
    text = ms.runtime.memory_summary()
    assert "Allocated memory" in text and text.count("\n") == 17
    assert ms.hal.memory_allocated("CPU") == ms.runtime.memory_allocated()


# ---------------------------------------------------------------- checkpoint conversion of a distributed save
def test_conversion_walks_rank_directories(tmp_path):
    for rank in ("rank_0", "rank_1"):
        os.makedirs(tmp_path / rank)
        ms.save_checkpoint(nn.Dense(2, 1), str(tmp_path / rank / "net.ckpt"))
        ms.save_checkpoint(nn.Dense(2, 1), str(tmp_path / rank / "other.ckpt"))
    out = tmp_path / "converted"
    ms.ckpt_to_safetensors(str(tmp_path), save_path=str(out), file_name_regex="net")
    assert sorted(os.listdir(out)) == ["rank_0", "rank_1"]
    assert os.listdir(out / "rank_1") == ["net.safetensors"]
    ms.safetensors_to_ckpt(str(out))
    assert sorted(os.listdir(out / "rank_0")) == ["net.ckpt", "net.safetensors"]
    original = ms.load_checkpoint(str(tmp_path / "rank_0" / "net.ckpt"))
    back = ms.load_checkpoint(str(out / "rank_0" / "net.ckpt"))
    for name in original:
        np.testing.assert_array_equal(original[name].asnumpy(), back[name].asnumpy())


# ---------------------------------------------------------------- recompute
def test_recompute_function_gives_the_plain_gradients():
    ms.manual_seed(0)
    block = nn.SequentialCell(nn.Dense(3, 4), nn.Tanh(), nn.Dense(4, 2))
    x = ms.Tensor(np.array([[0.1, -0.3, 0.7]], np.float32))
    weights = block.trainable_params()
    plain = ms.grad(lambda v: block(v).sum(), 0, weights)(x)
    recomputed = ms.grad(lambda v: ms.recompute(block, v).sum(), 0, weights)(x)
    np.testing.assert_allclose(plain[0].asnumpy(), recomputed[0].asnumpy(), rtol=1e-6)
    for a, b in zip(plain[1], recomputed[1]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_recompute_refuses_bad_flags():
    with pytest.raises(TypeError, match="use_reentrant"):
        ms.recompute(nn.ReLU(), ms.Tensor([1.0]), use_reentrant=1)


# ---------------------------------------------------------------- communication as one process
def test_data_parallel_code_runs_on_one_process():
    from cellkit.communication import GlobalComm, create_group, destroy_group, get_group_size, get_rank, init

    init()
    assert GlobalComm.INITED and get_rank() == 0 and get_group_size() == 1
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 device_num=get_group_size())
    create_group("pair_group", [0])
    assert get_group_size("pair_group") == 1
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    out = ops.AllReduce(group="pair_group")(x)
    np.testing.assert_array_equal(out.asnumpy(), [1.0, 2.0])
    destroy_group("pair_group")
    with pytest.raises(ValueError, match="rank 0 only"):
        create_group("bigger", [0, 1])
    ms.reset_auto_parallel_context()


def test_comm_func_results_are_new_tensors_with_identity_gradients():
    from cellkit.communication import comm_func

    x = ms.Tensor(np.array([1.0, -2.0], np.float32))
    out, handle = comm_func.all_reduce(x, op="max")
    assert handle is None and out is not x
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    _, handle = comm_func.all_reduce(x, async_op=True)
    assert handle.wait() is None and handle.is_completed()
    grad = ms.grad(lambda v: (comm_func.broadcast(v, 0) * 3.0).sum())(x)
    np.testing.assert_array_equal(grad.asnumpy(), [3.0, 3.0])
    with pytest.raises(ValueError, match="rank 0 only"):
        comm_func.reduce(x, dst=1)
    with pytest.raises(TypeError, match="'op'"):
        comm_func.all_reduce(x, op="mean")


def test_data_parallel_tutorial_loop_runs_unchanged_on_one_process():
    import cellkit.dataset as ds
    from cellkit.communication import get_group_size, get_rank, init

    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal(4).astype(np.float32), np.float32(i % 2)) for i in range(16)]
    dataset = ds.GeneratorDataset(data, column_names=["x", "y"], shuffle=False, num_shards=get_group_size(),
                                  shard_id=get_rank()).batch(4)
    assert dataset.get_dataset_size() == 4
    ms.manual_seed(1)
    net = nn.Dense(4, 1)
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)
    loss_fn = nn.MSELoss()

    def forward(x, y):
        return loss_fn(net(x).squeeze(-1), y)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
    losses = []
    for x, y in dataset.create_tuple_iterator(num_epochs=1):
        loss, grads = grad_fn(x, y)
        reduced = grad_reducer(grads)
        for g, r in zip(grads, reduced):  # the mean over a group of one is the gradient itself
            np.testing.assert_array_equal(g.asnumpy(), r.asnumpy())
        optimizer(reduced)
        losses.append(float(loss.asnumpy()))
    assert len(losses) == 4 and all(np.isfinite(losses))
    ms.reset_auto_parallel_context()


def test_grad_reducer_divides_by_an_explicit_degree():
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    reducer = nn.DistributedGradReducer([w], mean=True, degree=4)
    np.testing.assert_array_equal(reducer((ms.Tensor(np.array([4.0, 8.0], np.float32)),))[0].asnumpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="degree"):
        nn.DistributedGradReducer([w], degree=0)
