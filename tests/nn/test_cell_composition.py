"""The composed Cell: a small core that holds its concerns as parts, and a call made of named stages.

These tests read the structure itself (what a Cell holds, which stages a call runs), so the
documentation of "what happens when you call net(x)" (docs/overview.md) stays the truth.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.nn import cell_call
from cellkit.nn.cell_precision import MixedPrecisionType


def f32(*shape):
    return ms.Tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10)


# ------------------------------------------------------------------ what a Cell holds
def test_composition_a_bare_dense_carries_at_most_twelve_instance_attributes():
    dense = nn.Dense(3, 2)
    assert len(vars(dense)) <= 12, sorted(vars(dense))
    # The framework's share is the three registries and the creation time; the rest is Dense's own:
    # its settings and Parameters.
    assert sorted(k for k in vars(dense) if k.startswith("_")) == ["_buffers", "_cells", "_create_time", "_params"]
    assert sorted(vars(dense)) == ["_buffers", "_cells", "_create_time", "_params", "activation", "activation_flag",
                                   "bias", "has_bias", "in_channels", "out_channels", "weight"]
    dense(f32(1, 3))
    assert len(vars(dense)) <= 12, sorted(vars(dense))  # still after its first call


def test_composition_parameters_are_stored_once_and_the_registry_reads_them_from_the_cell():
    dense = nn.Dense(3, 2)
    # One object, one place: an ordinary attribute (fast to read); the registry knows its name and order.
    assert vars(dense)["weight"] is dense._params["weight"] is dense.weight
    replacement = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="w2")
    dense.weight = replacement
    assert dense.weight is replacement and dense._params["weight"] is replacement and list(dense._params) == [
        "weight", "bias"]
    del dense.bias
    assert "bias" not in vars(dense) and list(dense._params) == ["weight"]


def test_composition_to_float_holds_floating_parameters_aside_so_reads_are_intercepted():
    dense = nn.Dense(3, 2).to_float(ms.float16)
    assert "weight" not in vars(dense) and dense._params.is_aside("weight")
    assert dense.weight is dense._params["weight"]  # outside a call: the Parameter itself


def test_composition_parts_are_made_when_first_used_and_hold_their_concern():
    dense = nn.Dense(3, 2)
    handle = dense.register_forward_hook(lambda cell, args, output: None)
    dense.to_float(ms.float16)
    dense.recompute()
    dense.shard(((1, 1),))
    made = {k for k in vars(dense) if k in ("_hooks", "_precision", "_recompute", "_parallel", "_state_hooks")}
    assert made == {"_hooks", "_precision", "_recompute", "_parallel"}
    assert dense._hooks.counts() == {"forward": 1} and dense._precision.dst_type is ms.float16
    handle.remove()
    assert dense._hooks.counts() == {}


def test_composition_the_memory_profiler_hears_parameters_and_optimizer_state_announced():
    net = nn.Dense(2, 2)
    opt = nn.Adam(net.trainable_params(), learning_rate=0.1)
    heard = []

    class Listener:
        def on_attach(self, cell, parameters):
            heard.extend((type(cell).__name__, p.name, role) for p, role in parameters)

        def on_event(self, kind, cell, payload):
            pass

    listener = Listener()
    for cell in (net, opt):
        ms.observers.add_observer(cell, listener)
        ms.observers.remove_observer(cell, listener)
    roles = {(owner, role) for owner, _, role in heard}
    assert ("Dense", "parameter") in roles and ("Adam", "optimizer state") in roles
    assert {name for owner, name, role in heard if owner == "Adam" and role == "parameter"} == {"weight", "bias"}


# ------------------------------------------------------------------------ the stages
def test_composition_a_cell_with_hooks_recompute_and_to_float_runs_the_documented_stages():
    dense = nn.Dense(3, 2)
    assert dense._call_plan is cell_call.FIRST_CALL and repr(dense._call_plan) == "CallPlan(first call)"
    dense.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
    dense.to_float(ms.float16)
    dense.recompute()
    dense.register_forward_pre_hook(lambda cell, args: None)
    dense.register_forward_hook(lambda cell, args, output: None)
    dense.register_backward_hook(lambda cell, grad_input, grad_output: None)
    assert dense._call_plan.names == ["check inputs", "cast inputs", "forward pre-hooks", "gate inputs",
                                      "run: recompute", "forward hooks", "gate outputs"]
    assert dense(f32(2, 3)).dtype == ms.float16


@pytest.mark.parametrize("configure, runner", [
    (lambda c: None, None),
    (lambda c: c.recompute(), "run: recompute"),
    (lambda c: c.offload(), "run: offload"),
    (lambda c: c.to_float(ms.float16), "run: construct"),
])
def test_composition_the_runner_is_chosen_when_the_cell_is_configured(configure, runner):
    dense = nn.Dense(3, 2)
    dense(f32(1, 3))
    configure(dense)
    plan = dense._call_plan
    assert (plan is None) if runner is None else (plan.runner.stage_name == runner)


def test_composition_a_custom_bprop_cell_runs_the_bprop_runner():
    class Custom(nn.Cell):
        def construct(self, x):
            return x * 3

        def bprop(self, x, out, dout):
            return (dout * 2,)

    cell = Custom()
    cell(f32(2))
    assert cell._call_plan.names == ["run: bprop"]
    assert ms.grad(lambda x: cell(x).sum())(f32(2)).asnumpy().tolist() == [2.0, 2.0]


def test_composition_removing_everything_returns_to_the_fast_path():
    dense = nn.Dense(3, 2)
    dense(f32(1, 3))
    assert dense._call_plan is None
    handle = dense.register_forward_pre_hook(lambda cell, args: None)
    assert dense._call_plan.names == ["forward pre-hooks", "run: construct"]
    handle.remove()
    assert dense._call_plan is None


def test_composition_the_first_call_gives_duplicate_parameter_names_their_paths():
    class Twin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = ms.Parameter(ms.Tensor([1.0]), name="w")
            self.b = ms.Parameter(ms.Tensor([2.0]), name="w")

        def construct(self, x):
            return x * self.a * self.b

    twin = Twin()
    assert [p.name for p in twin.get_parameters()] == ["w", "w"]
    twin(f32(1))
    assert [p.name for p in twin.get_parameters()] == ["a", "b"]
    assert twin._call_plan is None


# ----------------------------------------------------------------------- to_float
def test_composition_to_float_casts_parameters_at_the_point_of_use_only():
    seen = {}

    class Probe(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="weight")

        def construct(self, x):
            seen["weight"] = self.weight
            seen["again"] = self.weight
            return ops.matmul(x, self.weight)

    probe = Probe().to_float(ms.float16)
    out = probe(f32(1, 2))
    assert out.dtype == ms.float16
    assert seen["weight"].dtype == ms.float16 and seen["weight"] is seen["again"]  # one cast per call
    assert isinstance(probe.weight, ms.Parameter) and probe.weight.dtype == ms.float32  # outside the call
    grad = ms.grad(lambda x: probe(x).sum(), grad_position=None, weights=[probe.weight])(f32(1, 2))
    assert grad[0].dtype == ms.float32


def test_composition_mixed_precision_type_follows_to_float_and_set_only_casts_graphs():
    dense = nn.Dense(2, 2)
    assert dense.get_mixed_precision_type() is MixedPrecisionType.NOTSET
    dense.to_float(ms.bfloat16)
    assert dense.get_mixed_precision_type() is MixedPrecisionType.BF16
    other = nn.Dense(2, 2)
    other.set_mixed_precision_type(MixedPrecisionType.FP16)
    assert other.get_mixed_precision_type() is MixedPrecisionType.FP16
    assert other(f32(1, 2)).dtype == ms.float32  # PyNative: not cast, as in MindSpore
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert other(f32(1, 2)).dtype == ms.float16  # a compiled graph is
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="MixedPrecisionType"):
        other.set_mixed_precision_type("fp16")
    assert str(MixedPrecisionType.FP16) == "MixedPrecisionType.FP16"


# -------------------------------------------------------------------------- hooks
def test_composition_hooks_with_kwargs_see_and_replace_the_keywords():
    class Scale(nn.Cell):
        def construct(self, x, scale=1.0):
            return x * scale

    cell = Scale()
    seen = []

    def pre(cell, args, kwargs):
        seen.append(("pre", dict(kwargs)))
        return args, {"scale": 10.0}

    def post(cell, args, kwargs, output):
        seen.append(("post", dict(kwargs)))

    cell.register_forward_pre_hook(pre, with_kwargs=True)
    cell.register_forward_hook(post, with_kwargs=True)
    assert cell(f32(2), scale=2.0).asnumpy().tolist() == pytest.approx([0.0, 1.0])
    assert seen == [("pre", {"scale": 2.0}), ("post", {"scale": 10.0})]


def test_composition_a_kwargs_pre_hook_returning_one_value_is_a_runtime_error():
    relu = nn.ReLU()
    relu.register_forward_pre_hook(lambda cell, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match="new_args, new_kwargs"):
        relu(f32(2))


def test_composition_prepend_runs_a_hook_first():
    relu, order = nn.ReLU(), []
    relu.register_forward_hook(lambda cell, args, output: order.append("first registered"))
    relu.register_forward_hook(lambda cell, args, output: order.append("prepended"), prepend=True)
    relu(f32(2))
    assert order == ["prepended", "first registered"]


def test_composition_always_call_hooks_run_when_construct_raises():
    class Fails(nn.Cell):
        def construct(self, x):
            raise ValueError("construct failed")

    cell, seen = Fails(), []
    cell.register_forward_hook(lambda c, args, output: seen.append("plain"))
    cell.register_forward_hook(lambda c, args, output: seen.append(output), always_call=True)
    with pytest.raises(ValueError, match="construct failed"):
        cell(f32(2))
    assert seen == [None]


def test_composition_hook_options_must_be_bools():
    with pytest.raises(TypeError, match="with_kwargs"):
        nn.ReLU().register_forward_hook(lambda *a: None, with_kwargs=1)
