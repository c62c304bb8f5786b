"""Calling and compiling a Cell, and every parallel / placement setting.

cellkit runs in one process, so parallel settings are validated as
MindSpore 2.10 validates them and recorded (``cell.parallel_config`` and the
Parameters); ``flatten_weights`` really regroups the weights.
"""
import warnings

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from cellkit import Parameter, Tensor
from cellkit.common.initializer import One, initializer


def f32(*shape, value=1.0):
    return Tensor(np.full(shape, value, np.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(3, 4)
        self.relu = nn.ReLU()
        self.dense2 = nn.Dense(4, 2)
        self.frozen = Parameter(Tensor(np.ones(2, np.float32)), name="frozen", requires_grad=False)
        self.calls = 0

    def construct(self, x):
        self.calls += 1
        return self.dense2(self.relu(self.dense1(x))) + self.frozen


# ------------------------------------------------------------ construct & call
def test_construct_is_what_calling_runs():
    net = Net()
    x = f32(5, 3)
    np.testing.assert_array_equal(net(x).asnumpy(), net.construct(x).asnumpy())
    assert net.calls == 2


def test_call_passes_keyword_arguments():
    class Scale(nn.Cell):
        def construct(self, x, factor=2.0):
            return x * factor

    assert Scale()(f32(2), factor=3.0).asnumpy().tolist() == [3.0, 3.0]


def test_construct_not_defined_raises_attribute_error_as_mindspore():
    # MindSpore 2.10: AttributeError "For 'Cell', the method 'construct' is not defined."
    with pytest.raises(AttributeError, match="construct' is not defined"):
        nn.Cell()(f32(1))


# --------------------------------------------------------------------- compile
def test_compile_checks_the_construct_signature_without_running_it():
    net = Net()
    net.compile(f32(5, 3))
    assert net.calls == 0
    with pytest.raises(TypeError, match="construct"):
        net.compile(f32(5, 3), f32(1))
    with pytest.raises(TypeError, match="construct"):
        net.compile()


def test_compile_validates_inputs_against_set_inputs():
    net = Net()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    net.compile(f32(7, 3))
    with pytest.raises(ValueError, match="'x'"):
        net.compile(f32(7, 4))
    with pytest.raises(TypeError, match="'x'"):
        net.compile(Tensor(np.ones((7, 3), np.int32)))


def test_compile_initialises_lazy_parameters():
    net = nn.Cell()
    net.w = Parameter(Tensor(shape=[None, 2], dtype=ms.float32), name="w")
    net.w.set_data(initializer(One(), (3, 2), ms.float32))
    net.construct = lambda x: x  # a construct for this bare Cell
    assert net.w.has_init
    net.compile(f32(1))
    assert not net.w.has_init and net.w.asnumpy().tolist() == [[1.0, 1.0]] * 3


def test_compile_and_run_returns_the_output():
    net = Net()
    x = f32(2, 3)
    np.testing.assert_array_equal(net.compile_and_run(x).asnumpy(), net(x).asnumpy())
    with pytest.raises(TypeError):
        net.compile_and_run()


def test_run_construct_runs_construct_with_the_hooks():
    net = Net()
    seen = []
    net.register_forward_hook(lambda cell, inputs, output: seen.append(len(inputs)))
    out = net.run_construct((f32(2, 3),), {})
    assert out.shape == (2, 2) and seen == [1]
    with pytest.raises(TypeError, match="tuple"):
        net.run_construct([f32(2, 3)], {})


def test_exec_checkpoint_graph_gives_the_parameters_to_save():
    net = Net()
    saved = net.exec_checkpoint_graph()
    assert list(saved) == ["frozen", "dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias"]
    assert saved["frozen"] is net.frozen


def test_get_func_graph_proto_without_a_graph_raises_a_clear_runtime_error():
    with pytest.raises(RuntimeError, match="GRAPH_MODE.*compile"):
        Net().get_func_graph_proto()


# ----------------------------------------------------------------------- shard
def test_shard_records_the_strategy_and_returns_the_callable_cell():
    net = Net()
    sharded = net.shard(((2, 1),), parameter_plan={"dense1.weight": (4, 1), "self.dense2.weight": (2, 1),
                                                   "no.such.param": (2,)})
    assert sharded is net
    np.testing.assert_array_equal(sharded(f32(2, 3)).asnumpy(), net(f32(2, 3)).asnumpy())
    config = net.parallel_config["shard"]
    assert config["in_strategy"] == ((2, 1),) and config["out_strategy"] is None
    assert config["device"] == "Ascend" and config["level"] == 0
    assert net.dense1.weight.shard_strategy == (4, 1) and net.dense2.weight.shard_strategy == (2, 1)


def test_shard_parameter_with_a_strategy_already_is_skipped():
    net = Net()
    net.shard(((2, 1),), parameter_plan={"dense1.weight": (4, 1)})
    net.shard(((2, 1),), parameter_plan={"dense1.weight": (2, 1)})
    assert net.dense1.weight.shard_strategy == (4, 1)


def test_shard_accepts_lists():
    net = Net()
    net.shard([[2, 1]], out_strategy=[[1, 1]])
    assert net.parallel_config["shard"]["in_strategy"] == ((2, 1),)


@pytest.mark.parametrize("kwargs, error", [
    ({"in_strategy": 3}, TypeError),
    ({"in_strategy": ((2, "a"),)}, ValueError),
    ({"in_strategy": ((0, 1),)}, ValueError),
    ({"in_strategy": ((2, 1),), "out_strategy": 3}, TypeError),
    ({"in_strategy": ((2, 1),), "parameter_plan": 3}, TypeError),
    ({"in_strategy": ((2, 1),), "parameter_plan": {"dense1.weight": (0,)}}, ValueError),
    ({"in_strategy": ((2, 1),), "device": "TPU"}, ValueError),
    ({"in_strategy": ((2, 1),), "level": 5}, ValueError),
])
def test_shard_invalid_arguments_raise_and_record_nothing(kwargs, error):
    net = Net()
    with pytest.raises(error):
        net.shard(**kwargs)
    assert "shard" not in net.parallel_config
    assert getattr(net.dense1.weight, "shard_strategy", None) is None


# ----------------------------------------------------------------------- place
def test_place_records_role_and_rank_on_every_cell():
    net = Net()
    assert net.place("MS_WORKER", 0) is None
    assert all(c.parallel_config["place"] == {"role": "MS_WORKER", "rank_id": 0} for _, c in net.cells_and_names())


@pytest.mark.parametrize("role, rank_id, error", [
    ("MS_SCHED", 0, ValueError), ("MS_WORKER", -1, ValueError), ("MS_WORKER", "0", TypeError),
    ("MS_WORKER", True, TypeError),
])
def test_place_invalid_arguments(role, rank_id, error):
    net = Net()
    with pytest.raises(error):
        net.place(role, rank_id)
    assert "place" not in net.parallel_config


# --------------------------------------------------------------------- offload
@pytest.mark.parametrize("prefetch", ["Auto", 0, 1, 20])
def test_offload_records_the_prefetch(prefetch):
    net = Net()
    assert net.offload(prefetch) is None
    assert net.parallel_config["offload"] == {"backward_prefetch": prefetch}


def test_offload_default_is_auto():
    net = Net()
    net.offload()
    assert net.parallel_config["offload"] == {"backward_prefetch": "Auto"}


@pytest.mark.parametrize("prefetch, error, message", [
    (-1, ValueError, ">= 0"),
    ("x", ValueError, "must be in '['Auto']'"),
    (1.5, TypeError, "must be int"),
    (True, TypeError, "must be int"),
])
def test_offload_invalid_prefetch(prefetch, error, message):
    net = Net()
    with pytest.raises(error) as info:
        net.offload(backward_prefetch=prefetch)
    assert message in str(info.value)
    assert "offload" not in net.parallel_config


# ------------------------------------------------------------- set_comm_fusion
def test_set_comm_fusion_sets_the_trainable_parameters():
    net = Net()
    assert net.set_comm_fusion(3) is net
    assert [p.comm_fusion for p in net.trainable_params()] == [3, 3, 3, 3]
    assert net.frozen.comm_fusion == 1  # not trainable: untouched
    assert net.parallel_config["comm_fusion"] == 3
    net.set_comm_fusion(0)
    assert {p.comm_fusion for p in net.trainable_params()} == {0}


def test_set_comm_fusion_recurse_false_sets_only_own_parameters():
    outer = nn.Cell()
    outer.w = Parameter(Tensor([1.0]), name="w")
    outer.inner = nn.Dense(1, 1)
    outer.set_comm_fusion(5, recurse=False)
    assert outer.w.comm_fusion == 5 and outer.inner.weight.comm_fusion == 1


@pytest.mark.parametrize("value, error", [("a", TypeError), (-1, ValueError), (True, TypeError), (1.0, TypeError)])
def test_set_comm_fusion_invalid_type(value, error):
    net = Net()
    with pytest.raises(error, match="fusion_type"):
        net.set_comm_fusion(value)
    assert {p.comm_fusion for p in net.get_parameters()} == {1}


# ------------------------------------------------------ data parallel / auto parallel
def test_set_data_parallel_records_on_every_cell():
    net = Net()
    net.set_data_parallel()
    assert all(c.parallel_config["data_parallel"] is True for _, c in net.cells_and_names())


def test_set_auto_parallel_and_broadcast_flag_are_recorded():
    net = Net()
    net.set_auto_parallel()
    assert net.set_broadcast_flag() is net
    assert net.parallel_config["auto_parallel"] is True and net.parallel_config["broadcast"] is True
    net.set_broadcast_flag(False)
    assert net.parallel_config["broadcast"] is False


def test_set_parallel_input_with_inputs_records_the_shapes():
    net = Net()
    net.set_parallel_input_with_inputs(f32(8, 3))
    assert net.parallel_config["parallel_inputs"] == ((8, 3),)


def test_load_parameter_slice_sets_values_by_name():
    net = Net()
    net.load_parameter_slice({"dense2.bias": Tensor(np.array([7.0, 8.0], np.float32)), "unknown": f32(1)})
    assert net.dense2.bias.asnumpy().tolist() == [7.0, 8.0]
    net.load_parameter_slice(None)
    with pytest.raises(TypeError, match="dict"):
        net.load_parameter_slice([("dense2.bias", f32(2))])
    with pytest.raises(TypeError, match="Tensor"):
        net.load_parameter_slice({"dense1.bias": [1.0, 2.0, 3.0, 4.0], "dense2.bias": f32(2)})
    assert net.dense2.bias.asnumpy().tolist() == [7.0, 8.0]


# --------------------------------------------------------------- set_param_ps
def test_set_param_ps_marks_trainable_parameters():
    net = Net()
    assert net.set_param_ps(init_in_server=True) is None
    assert all(p.is_param_ps and p.init_in_server for p in net.trainable_params())
    assert not net.frozen.is_param_ps
    assert net.parallel_config["param_ps"] == {"init_in_server": True}


def test_set_param_ps_recurse_false_and_type_check():
    outer = nn.Cell()
    outer.w = Parameter(Tensor([1.0]), name="w")
    outer.inner = nn.Dense(1, 1)
    outer.set_param_ps(recurse=False)
    assert outer.w.is_param_ps and not outer.w.init_in_server and not outer.inner.weight.is_param_ps
    with pytest.raises(TypeError, match="init_in_server"):
        outer.set_param_ps(init_in_server="yes")


# ---------------------------------------------------------------- pipeline stages
def test_pipeline_stage_default_set_and_invalid():
    net = Net()
    with pytest.raises(AttributeError, match="pipeline_stage"):  # MindSpore 2.10: not there until set
        net.pipeline_stage
    net.pipeline_stage = 2
    assert net.pipeline_stage == 2 and net.parallel_config["pipeline_stage"] == 2
    with pytest.raises(ValueError, match="can not be less than 0"):
        net.pipeline_stage = -1
    with pytest.raises(TypeError, match="must be int type"):
        net.pipeline_stage = "a"
    with pytest.raises(TypeError, match="must be int type"):
        net.pipeline_stage = True
    assert net.pipeline_stage == 2


def test_pipeline_stage_marks_the_trainable_parameters():
    net = Net()
    net.dense1.pipeline_stage = 0
    net.dense2.pipeline_stage = 1
    assert net.dense1.weight.pipeline_stages == [0] and net.dense2.bias.pipeline_stages == [1]
    assert net.frozen.pipeline_stages == []


def test_infer_param_pipeline_stage_returns_the_current_stages_parameters():
    net = Net()
    net.dense1.pipeline_stage = 0
    net.dense2.pipeline_stage = 1
    # One process: rank 0, so stage 0 is the current one.
    assert net.infer_param_pipeline_stage() == [net.dense1.weight, net.dense1.bias]
    net.dense2.weight.add_pipeline_stage(0)
    assert net.infer_param_pipeline_stage() == [net.dense1.weight, net.dense1.bias, net.dense2.weight]


def test_infer_param_pipeline_stage_parameter_without_stage_raises():
    net = Net()
    net.dense1.pipeline_stage = 0
    with pytest.raises(RuntimeError, match="dense2.weight does not belong to any stage"):
        net.infer_param_pipeline_stage()


def test_parameter_layout_dict_is_empty_in_one_process():
    assert Net().parameter_layout_dict == {}


# -------------------------------------------------------------- boost & jit config
def test_set_boost():
    net = Net()
    assert net.set_boost("less_bn") is net
    assert net.parallel_config["boost"] == "less_bn"
    with pytest.raises(ValueError, match="boost_type"):
        net.set_boost("xx")
    with pytest.raises(ValueError, match="boost_type"):
        net.set_boost(3)


def test_set_jit_config_records_it_once():
    net = Net()
    first = ms.JitConfig(jit_level="O1")
    net.set_jit_config(first)
    assert net.parallel_config["jit_config"]["jit_level"] == "O1"
    with pytest.warns(RuntimeWarning, match="only be set once"):
        net.set_jit_config(ms.JitConfig(jit_level="O0"))
    assert net.parallel_config["jit_config"]["jit_level"] == "O1"
    with pytest.raises(TypeError, match="JitConfig"):
        Net().set_jit_config({"jit_level": "O1"})


# ------------------------------------------------------------------- recompute
def test_recompute_records_options_and_keeps_results_and_gradients():
    net, plain = Net(), Net()
    plain.load_state_dict(net.state_dict())
    net.recompute(mp_comm_recompute=False)
    assert net.parallel_config["recompute"] == {
        "mp_comm_recompute": False, "parallel_optimizer_comm_recompute": False,
        "recompute_slice_activation": False, "mode": True}
    x = f32(2, 3)
    np.testing.assert_allclose(net(x).asnumpy(), plain(x).asnumpy())
    grads = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(x)
    expected = ms.grad(lambda x: plain(x).sum(), grad_position=None, weights=plain.trainable_params())(x)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6)


def test_recompute_parallel_optimizer_comm_recompute_is_set_on_parameters():
    net = Net()
    net.recompute(parallel_optimizer_comm_recompute=True)
    assert all(p.parallel_optimizer_comm_recompute for p in net.get_parameters())
    net.recompute(parallel_optimizer_comm_recompute=False)
    assert not any(p.parallel_optimizer_comm_recompute for p in net.get_parameters())


def test_recompute_unknown_keyword_raises_value_error():
    with pytest.raises(ValueError, match="keyword 'foo' is not recognized"):
        Net().recompute(foo=True)


@pytest.mark.parametrize("key", ["mp_comm_recompute", "parallel_optimizer_comm_recompute",
                                 "recompute_slice_activation"])
def test_recompute_non_bool_raises_type_error(key):
    net = Net()
    with pytest.raises(TypeError, match=f"'{key}' must be <class 'bool'>"):
        net.recompute(**{key: 1})
    assert "recompute" not in net.parallel_config


# ------------------------------------------------------------- flatten_weights
def test_flatten_weights_groups_trainable_parameters_into_one_buffer_per_dtype():
    net = Net()
    net.half = Parameter(Tensor(np.ones(3, np.float16)), name="half")
    before = {p.name: p.asnumpy() for p in net.get_parameters()}
    buffers = net.flatten_weights()
    # Groups in the order their first Parameter comes (the Cell's own 'half' first).
    assert [(b.dtype, b.shape) for b in buffers] == [(ms.float16, (3,)), (ms.float32, (12 + 4 + 8 + 2,))]
    flat16, flat32 = buffers[0]._data, buffers[1]._data
    for p in net.trainable_params():
        target = flat16 if p.dtype == ms.float16 else flat32
        assert np.shares_memory(p._data, target), p.name
    assert not np.shares_memory(net.frozen._data, flat32)  # not trainable: left alone
    # The values did not change, in the order of the Parameters.
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), before[p.name])
    np.testing.assert_array_equal(flat32[:12].reshape(4, 3), before["dense1.weight"])


def test_flatten_weights_buffer_writes_are_seen_by_the_parameters():
    net = Net()
    buffer, = net.flatten_weights()
    buffer._data[:] = 0.5
    assert all(np.all(p.asnumpy() == 0.5) for p in net.trainable_params())


def test_flatten_weights_respects_fusion_size():
    net = Net()
    # float32: dense1.weight 48 bytes, dense1.bias 16, dense2.weight 32, dense2.bias 8.
    buffers = net.flatten_weights(fusion_size=48)
    assert [b.shape[0] * 4 for b in buffers] == [48, 48, 8]
    assert all(b.shape[0] * 4 <= 48 for b in buffers)
    assert np.shares_memory(net.dense1.bias._data, buffers[1]._data)
    assert np.shares_memory(net.dense2.weight._data, buffers[1]._data)
    # A Parameter larger than fusion_size gets a buffer of its own.
    assert [b.shape[0] for b in Net().flatten_weights(fusion_size=8)] == [12, 4, 8, 2]


def test_flatten_weights_invalid_fusion_size():
    with pytest.raises(ValueError, match="fusion_size"):
        Net().flatten_weights(-1)
    with pytest.raises(TypeError, match="fusion_size"):
        Net().flatten_weights("big")


def test_flatten_weights_training_still_works_afterwards():
    flat, plain = Net(), Net()
    plain.load_state_dict(flat.state_dict())
    flat.flatten_weights()
    x, lr = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), 0.1
    for _ in range(3):
        for net in (flat, plain):
            params = net.trainable_params()
            loss, grads = ms.value_and_grad(lambda x: (net(x) ** 2).sum(), grad_position=None, weights=params)(x)
            for p, g in zip(params, grads):
                p.set_data(p - lr * g)
    for a, b in zip(flat.get_parameters(), plain.get_parameters()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_flatten_weights_load_state_dict_keeps_the_parameters_in_their_buffer():
    net, other = Net(), Net()
    buffer = net.flatten_weights()[0]
    net.load_state_dict(other.state_dict())
    for p, q in zip(net.trainable_params(), other.trainable_params()):
        assert np.shares_memory(p._data, buffer._data)
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())


def test_parallel_config_starts_empty_and_is_per_cell():
    net = Net()
    assert dict(net.parallel_config) == {}
    net.dense1.set_boost("less_bn")
    assert "boost" not in net.parallel_config and net.dense1.parallel_config["boost"] == "less_bn"


def test_parallel_settings_do_not_change_what_the_cell_computes():
    net = Net()
    x = f32(2, 3)
    expected = net(x).asnumpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.shard(((1, 1),))
        net.place("MS_WORKER", 0)
        net.offload()
        net.set_comm_fusion(2)
        net.set_data_parallel()
        net.set_param_ps()
        net.pipeline_stage = 0
        net.set_boost("less_bn")
        net.set_jit_config(ms.JitConfig())
    np.testing.assert_array_equal(net(x).asnumpy(), expected)


def test_flatten_weights_on_every_backend_keeps_values_and_shares_memory(backend):
    net, other = Net(), Net()
    before = [p.asnumpy() for p in net.trainable_params()]
    buffers = net.flatten_weights(fusion_size=48)
    assert [b.shape[0] for b in buffers] == [12, 12, 2]
    for p, values in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), values)
    buffers[1]._data[...] = 0.25  # written through the buffer, seen by its Parameters
    assert np.all(net.dense1.bias.asnumpy() == 0.25) and np.all(net.dense2.weight.asnumpy() == 0.25)
    net.load_state_dict(other.state_dict())  # written in place: still in the buffer
    np.testing.assert_array_equal(buffers[1].asnumpy()[:4], other.dense1.bias.asnumpy())
