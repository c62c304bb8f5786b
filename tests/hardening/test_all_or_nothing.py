"""All or nothing: an operation that fails changes nothing; one that succeeds changes everything it should.

For ``load_state_dict``, ``load_param_into_net``, ``Parameter.set_data``,
``Cell.to_float``, ``Cell.flatten_weights`` and optimizer steps, hypothesis
picks which entry breaks and how (a wrong shape in the middle of a dict, a
value that is not a Tensor, a missing or unexpected key with ``strict``, a
hook that raises, a bad argument, a gradient of the wrong shape, a NaN
learning rate ...).  Every Parameter and buffer of the model -- a Dense,
BatchNorm running statistics, a frozen Parameter, an integer Parameter,
persistent and non-persistent buffers, extra state -- and the optimizer state
are snapshotted (bytes, dtype, shape, requires_grad, name, identity) before the
call and compared after it: bit-identical after a failure, and after a
success exactly the loaded / cast values.

A hook (forward pre, forward, backward pre, backward) that raises inside a
gradient transform, on a plain, recomputed or offloaded Cell: the exception
reaches the caller, recording is off (``autograd._depth == 0``), no
Parameter keeps a tape node, no tape node stays alive, the hook registries
are as they were, and the next call -- with the hook still registered and
quiet, then removed -- gives the gradients of a twin that never failed.

Each area's counts go to the reliability table through tests/hardening/reliability.py.
"""
import contextlib
import gc
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cellkit as ms
from cellkit import autograd, nn, offload, recompute, seed
from cellkit.display.cellinfo import hook_registries as cell_hook_registries
from cellkit.nn.cell_call import on_fast_path

import reliability

TALLY = reliability.tally(__name__)
EXAMPLES = settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])


def expect(condition, message, area, lost=False):
    """``assert condition``, counting a failure (and a loss, when state was left changed) first."""
    if not condition:
        TALLY.add(area, failures=1, lost=int(lost))
    assert condition, message


def tried(area, fault):
    TALLY.add(area, inputs_tried=1, faults_injected=int(fault))


class Boom(Exception):
    """What the faulty hooks raise."""


def raise_boom(*args):
    raise Boom("a hook refused")


# ================================================================== the model
class Model(nn.Cell):
    """Dense -> BatchNorm -> Dense, a frozen scale, an Int32 counter, two buffers and extra state."""

    def __init__(self, seed_value=0):
        super().__init__()
        rng = np.random.default_rng(seed_value)
        self.dense = nn.Dense(4, 3)
        self.norm = nn.BatchNorm1d(3)
        self.head = nn.Dense(3, 2)
        self.scale = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="scale", requires_grad=False)
        self.steps = ms.Parameter(ms.Tensor(np.array([3], np.int32)), name="steps", requires_grad=False)
        self.register_buffer("offset", ms.Tensor(rng.standard_normal(2).astype(np.float32)))
        self.register_buffer("scratch", ms.Tensor(rng.standard_normal(2).astype(np.float32)), persistent=False)
        self.extra = {"epoch": seed_value}
        for _, p in self.parameters_and_names():
            p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(p.asnumpy().dtype) + 1))
        self.norm.moving_variance.set_data(ms.Tensor(np.abs(self.norm.moving_variance.asnumpy()) + 0.5))

    def construct(self, x):
        return self.head(self.norm(self.dense(x))) * self.scale + self.offset

    def get_extra_state(self):
        return dict(self.extra)

    def set_extra_state(self, state):
        if "bad" in state:
            raise Boom("set_extra_state refused the state")
        self.extra = dict(state)


def snapshot(*cells, dst_types=False):
    """Everything a failed operation must leave as it was."""
    rows = []
    for cell in cells:
        for path, p in cell.parameters_and_names():
            rows.append(("parameter", path, id(p), p.name, p.dtype.name, tuple(p.shape), p.requires_grad,
                         p.asnumpy().tobytes()))
        for path, b in cell.named_buffers():
            rows.append(("buffer", path, id(b), b.dtype.name, tuple(b.shape), b.asnumpy().tobytes()))
        for path, c in cell.cells_and_names():
            if isinstance(c, Model):
                rows.append(("extra", path, sorted(c.extra.items())))
            if dst_types:
                rows.append(("dst_type", path, c._precision and c._precision.dst_type))
    return rows


def host(t):
    return np.asarray(t.asnumpy())


def values(*cells):
    """The snapshot without object identities: what a twin that never failed must equal."""
    return [row[:2] + row[3:] if row[0] in ("parameter", "buffer") else row for row in snapshot(*cells)]


X = ms.Tensor(np.random.default_rng(7).standard_normal((5, 4)).astype(np.float32))


# ============================================================ load_state_dict
LSD = "load_state_dict"
LSD_FAULTS = {
    # fault: (exception with strict=True, exception with strict=False); None: it succeeds
    "shape": (RuntimeError, RuntimeError), "ndarray": (RuntimeError, RuntimeError),
    "list": (RuntimeError, RuntimeError), "none": (RuntimeError, RuntimeError),
    "number": (RuntimeError, RuntimeError), "missing": (RuntimeError, None),
    "unexpected": (RuntimeError, None), "pre_hook_raises": (Boom, Boom), "post_hook_raises": (Boom, Boom),
    "post_hook_adds_missing": (RuntimeError, None), "extra_state_refused": (Boom, Boom),
    "strict_not_bool": (TypeError, TypeError), "not_a_mapping": (TypeError, TypeError),
    "other_dtype": (None, None), "none_injected": (None, None),
}


@EXAMPLES
@given(fault=st.sampled_from(sorted(LSD_FAULTS)), index=st.integers(0, 63), strict=st.booleans(),
       hook_cell=st.sampled_from(["", "dense", "norm", "head"]))
def test_load_state_dict_fails_whole_or_loads_everything(fault, index, strict, hook_cell):
    net, source = Model(0), Model(1)
    state = OrderedDict((k, v if isinstance(v, dict) else ms.Tensor(host(v)))
                        for k, v in source.state_dict().items())
    keys = [k for k in state if k != "_extra_state"]
    key = keys[index % len(keys)]
    handles = []
    hooked = net.get_sub_cell(hook_cell) if hook_cell else net
    call_strict = strict
    if fault == "shape":
        state[key] = ms.Tensor(np.zeros(tuple(state[key].shape) + (2,), np.float32))
    elif fault == "ndarray":
        state[key] = host(state[key])
    elif fault == "list":
        state[key] = host(state[key]).tolist()
    elif fault == "none":
        state[key] = None
    elif fault == "number":
        state[key] = 1.5
    elif fault == "missing":
        del state[key]
    elif fault == "unexpected":
        state[f"{key}_bogus"] = ms.Tensor(np.ones(2, np.float32))
    elif fault == "pre_hook_raises":
        handles.append(hooked.register_load_state_dict_pre_hook(raise_boom))
    elif fault == "post_hook_raises":
        handles.append(hooked.register_load_state_dict_post_hook(raise_boom))
    elif fault == "post_hook_adds_missing":
        handles.append(hooked.register_load_state_dict_post_hook(lambda cell, keys: keys.missing_keys.append("x")))
    elif fault == "extra_state_refused":
        state["_extra_state"] = {"bad": True}
    elif fault == "strict_not_bool":
        call_strict = "yes"
    elif fault == "not_a_mapping":
        state = list(state.items())
    elif fault == "other_dtype":
        state[key] = ms.Tensor(host(state[key]).astype(np.float64))
    error = LSD_FAULTS[fault][0 if strict else 1]
    tried(LSD, fault != "none_injected")

    before = snapshot(net)
    if error is not None:
        with pytest.raises(error):
            net.load_state_dict(state, strict=call_strict)
        expect(snapshot(net) == before, f"a failed load_state_dict ({fault} at {key}) changed the model", LSD,
               lost=True)
    else:
        result = net.load_state_dict(state, strict=call_strict)
        targets = dict(net.state_dict())
        for k, value in state.items():
            if k == "_extra_state":
                expect(net.extra == value, "the extra state was not loaded", LSD)
            elif k in targets:
                want = host(value).astype(host(targets[k]).dtype)
                expect(host(targets[k]).tobytes() == want.tobytes(), f"{k} was not loaded ({fault})", LSD)
        if fault == "missing":
            expect(result.missing_keys == [key], f"missing keys {result.missing_keys}", LSD)
            old = {row[1]: row for row in before}
            now = {row[1]: row for row in snapshot(net)}
            expect(now[key] == old[key], f"the missing {key} changed", LSD, lost=True)
    for handle in handles:
        handle.remove()
    net.load_state_dict(source.state_dict())  # the next load works (everything but the non-persistent buffer)
    assert [r for r in values(net) if r[1] != "scratch"] == [r for r in values(source) if r[1] != "scratch"]


def test_load_state_dict_with_values_that_are_other_targets_swaps_them():
    """Values that are the model's own arrays (two layers swapped) used to be overwritten before they were read."""
    net = nn.SequentialCell(nn.Dense(3, 3), nn.Dense(3, 3))
    first, second = host(net[0].weight).copy(), host(net[1].weight).copy()
    net.load_state_dict({"0.weight": net[1].weight, "1.weight": net[0].weight}, strict=False)
    assert np.array_equal(host(net[0].weight), second) and np.array_equal(host(net[1].weight), first)
    buffers = net.flatten_weights()  # the same, through views into one flat buffer
    net.load_state_dict({"0.weight": net[1].weight, "1.weight": net[0].weight,
                         "0.bias": net[1].bias, "1.bias": net[0].bias})
    assert np.array_equal(host(net[0].weight), first) and np.array_equal(host(net[1].weight), second)
    assert np.shares_memory(net[0].weight._data, buffers[0]._data)  # still in the flat buffer
    tried(LSD, False)


# ========================================================= load_param_into_net
LPN = "load_param_into_net"
LPN_FAULTS = {
    "shape": (RuntimeError, RuntimeError), "int_into_float": (RuntimeError, RuntimeError),
    "float64": (RuntimeError, None), "tensor_value": (TypeError, TypeError),
    "ndarray_value": (TypeError, TypeError), "key_not_str": (TypeError, TypeError),
    "strict_not_bool": (TypeError, TypeError), "remove_redundancy": (TypeError, TypeError),
    "net_not_cell": (TypeError, TypeError), "not_a_dict": (TypeError, TypeError),
    "trailing_ones": (None, None), "missing": (None, None), "none_injected": (None, None),
}


@EXAMPLES
@given(fault=st.sampled_from(sorted(LPN_FAULTS)), index=st.integers(0, 63), strict=st.booleans())
def test_load_param_into_net_fails_whole_or_loads_everything(fault, index, strict):
    net, source = Model(0), Model(1)
    names = [p.name for p in net.get_parameters()]
    params = {p.name: ms.Parameter(ms.Tensor(host(p)), name=p.name) for p in source.get_parameters()}
    name = names[index % len(names)]
    float_names = [n for n in names if n != "steps"]
    target, kwargs = net, {"strict_load": strict}
    if fault == "shape":
        params[name] = ms.Parameter(ms.Tensor(np.zeros(tuple(params[name].shape) + (2,), np.float32)), name=name)
    elif fault == "int_into_float":
        name = float_names[index % len(float_names)]
        params[name] = ms.Parameter(ms.Tensor(np.ones(params[name].shape, np.int32)), name=name)
    elif fault == "float64":
        name = float_names[index % len(float_names)]
        params[name] = ms.Parameter(ms.Tensor(host(params[name]).astype(np.float64)), name=name)
    elif fault == "tensor_value":
        params[name] = ms.Tensor(host(params[name]))
    elif fault == "ndarray_value":
        params[name] = host(params[name])
    elif fault == "key_not_str":
        params[7] = params.pop(name)
    elif fault == "strict_not_bool":
        kwargs["strict_load"] = "yes"
    elif fault == "remove_redundancy":
        kwargs["remove_redundancy"] = True
    elif fault == "net_not_cell":
        target = net.get_parameters()
    elif fault == "not_a_dict":
        params = list(params.values())
    elif fault == "trailing_ones":
        params[name] = ms.Parameter(ms.Tensor(host(params[name]).reshape(tuple(params[name].shape) + (1, 1))),
                                    name=name)
    elif fault == "missing":
        del params[name]
    error = LPN_FAULTS[fault][0 if strict else 1]
    tried(LPN, fault != "none_injected")

    before = snapshot(net)
    if error is not None:
        with pytest.raises(error):
            ms.load_param_into_net(target, params, **kwargs)
        expect(snapshot(net) == before, f"a failed load_param_into_net ({fault} at {name}) changed the model", LPN,
               lost=True)
        return
    not_loaded, _ = ms.load_param_into_net(target, params, **kwargs)
    for p in net.get_parameters():
        if p.name in params:
            want = host(params[p.name]).astype(host(p).dtype).reshape(p.shape)
            expect(host(p).tobytes() == want.tobytes(), f"{p.name} was not loaded ({fault})", LPN)
            # The network gets its own memory: loading one dict into two networks must not tie them.
            expect(not np.shares_memory(p._data, params[p.name]._data), f"{p.name} shares the dict's memory", LPN)
    if fault == "missing":
        expect(not_loaded == [name], f"not loaded: {not_loaded}", LPN)
        expect([r for r in snapshot(net) if r[1] == name] == [r for r in before if r[1] == name],
               f"the missing {name} changed", LPN, lost=True)


# ================================================================= set_data
SET = "Parameter.set_data"
SET_FAULTS = {"list": TypeError, "ndarray": TypeError, "none": TypeError, "str": TypeError,
              "float_into_int": TypeError, "slice_shape_not_bool": TypeError,
              "other_shape": None, "other_dtype": None, "int": None}


@EXAMPLES
@given(fault=st.sampled_from(sorted(SET_FAULTS)), index=st.integers(0, 63))
def test_set_data_fails_whole_or_replaces_one_parameter(fault, index):
    net = Model(0)
    params = dict(net.parameters_and_names())
    path = sorted(params)[index % len(params)]
    if fault == "float_into_int":
        path = "steps"
    param = params[path]
    kwargs = {}
    data = {"list": [1.0, 2.0], "ndarray": np.ones(param.shape, np.float32), "none": None, "str": "1.0",
            "float_into_int": 2.5, "slice_shape_not_bool": ms.Tensor(host(param)),
            "other_shape": ms.Tensor(np.full((2, 5), 3, np.int64)), "other_dtype": ms.Tensor(host(param) * 2),
            "int": 4}[fault]
    if fault == "other_dtype":
        data = ms.Tensor(host(param).astype(np.float64) * 2)
    if fault == "slice_shape_not_bool":
        kwargs["slice_shape"] = "yes"
    error = SET_FAULTS[fault]
    tried(SET, error is not None)
    before = snapshot(net)
    if error is not None:
        with pytest.raises(error):
            param.set_data(data, **kwargs)
        expect(snapshot(net) == before, f"a failed set_data ({fault}) changed the model", SET, lost=True)
        return
    dtype = param.dtype
    assert param.set_data(data) is param
    # MindSpore 2.10 lets set_data change the shape (MINDSPORE_NOTES.md); the dtype stays.
    want = np.asarray(data.asnumpy() if isinstance(data, ms.Tensor) else np.full(param.shape, data))
    expect(param.dtype is dtype and host(param).tobytes() == want.astype(host(param).dtype).tobytes(),
           f"set_data ({fault}) stored other values", SET)
    expect([r for r in snapshot(net) if r[1] != path] == [r for r in before if r[1] != path],
           f"set_data on {path} changed another entry", SET, lost=True)


# ================================================================= to_float
FLOAT = "Cell.to_float"
BAD_DST_TYPES = [ms.int32, ms.float64, ms.bool_, "float16", np.float16, None, 16,
                 ms.Tensor(np.ones(2, np.float32)), np.array([1, 2])]


@pytest.mark.parametrize("dst_type", BAD_DST_TYPES, ids=lambda v: type(v).__name__ + ":" + str(v)[:12])
@pytest.mark.parametrize("cell", ["", "norm"])
def test_to_float_with_a_bad_type_changes_nothing(dst_type, cell):
    net = Model(0)
    net.head.to_float(ms.bfloat16)  # something to keep
    target = net.get_sub_cell(cell) if cell else net
    tried(FLOAT, True)
    before = snapshot(net, dst_types=True)
    with pytest.raises(ValueError, match="dst_type"):
        target.to_float(dst_type)
    expect(snapshot(net, dst_types=True) == before, f"a failed to_float({dst_type!r}) changed the model", FLOAT,
           lost=True)
    target.to_float(ms.float16)  # the next call works, on every Cell below
    assert all(c._precision.dst_type is ms.float16 for _, c in target.cells_and_names())
    tried(FLOAT, False)


# =========================================================== flatten_weights
FLAT = "Cell.flatten_weights"


@pytest.mark.parametrize("fusion_size, error", [(-1, ValueError), (1.5, TypeError), ("8", TypeError),
                                                 (None, TypeError), (True, TypeError), ([8], TypeError)])
def test_flatten_weights_with_a_bad_size_changes_nothing(fusion_size, error):
    net = Model(0)
    tried(FLAT, True)
    before = snapshot(net)
    config = dict(net.parallel_config)
    with pytest.raises(error):
        net.flatten_weights(fusion_size)
    expect(snapshot(net) == before and net.parallel_config == config and net._parallel is None,
           f"a failed flatten_weights({fusion_size!r}) changed the model", FLAT, lost=True)
    buffers = net.flatten_weights(16)  # the next call works: same values, now views into the buffers
    assert snapshot(net) == before
    assert all(any(np.shares_memory(p._data, b._data) for b in buffers) for p in net.trainable_params())
    tried(FLAT, False)


# ============================================================= optimizer steps
OPT = "Optimizer steps"


class NanAfter(nn.LearningRateSchedule):
    """0.1, then NaN from step ``n`` on (a schedule gone wrong)."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def construct(self, global_step):
        step = int(global_step.asnumpy().reshape(-1)[0])
        return ms.Tensor(np.float32("nan") if step >= self.n else np.float32(0.1))


def make_optimizer(kind, net, with_int=False):
    params = net.trainable_params() + ([net.steps] if with_int else [])
    if kind == "momentum":
        return nn.Momentum(params, learning_rate=0.1, momentum=0.9)
    if kind == "sgd":
        return nn.SGD(params, learning_rate=0.05, momentum=0.9, nesterov=True)
    if kind == "adam":
        return nn.Adam(params, learning_rate=0.01, weight_decay=0.01)
    if kind == "adamw":
        return nn.AdamWeightDecay(params, learning_rate=0.01, weight_decay=0.1)
    if kind == "groups":
        first, rest = params[:2], params[2:]
        return nn.Momentum([{"params": first, "lr": 0.05}, {"params": rest}], learning_rate=0.1, momentum=0.9)
    if kind == "dynamic":
        return nn.Adam(params, learning_rate=[0.1, 0.05, 0.02])
    if kind == "schedule":
        return nn.Momentum(params, learning_rate=NanAfter(2), momentum=0.9)
    raise AssertionError(kind)


def gradients(opt, step):
    rng = np.random.default_rng(100 + step)
    return tuple(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32)) for p in opt.parameters)


OPT_FAULTS = {"grad_shape": ValueError, "grad_count": ValueError, "grad_not_tensor": TypeError,
              "grads_not_tuple": TypeError, "nan_lr": ValueError, "negative_lr": ValueError, "inf_lr": ValueError,
              "int_parameter": TypeError, "lr_exhausted": RuntimeError, "schedule_gives_nan": ValueError,
              "none_injected": None}


@settings(EXAMPLES, max_examples=60)
@given(kind=st.sampled_from(["momentum", "sgd", "adam", "adamw", "groups"]),
       fault=st.sampled_from(sorted(OPT_FAULTS)), index=st.integers(0, 63))
def test_optimizer_step_fails_whole_and_the_next_step_is_exact(kind, fault, index):
    if fault == "lr_exhausted":
        kind = "dynamic"
    if fault == "schedule_gives_nan":
        kind = "schedule"
    net, twin = Model(0), Model(0)
    opt, twin_opt = (make_optimizer(kind, n, with_int=fault == "int_parameter") for n in (net, twin))
    warm = 2 if fault in ("lr_exhausted", "schedule_gives_nan") else 1
    if fault == "lr_exhausted":
        warm = 3  # the rates run out at the fourth step
    if fault != "int_parameter":
        for step in range(warm):
            opt(gradients(opt, step))
            twin_opt(gradients(twin_opt, step))
    grads = list(gradients(opt, warm))
    i = index % len(grads)
    restore = None
    if fault == "grad_shape":
        grads[i] = ms.Tensor(np.zeros(tuple(grads[i].shape) + (1,), np.float32))
    elif fault == "grad_count":
        del grads[i]
    elif fault == "grad_not_tensor":
        grads[i] = host(grads[i])
    elif fault == "grads_not_tuple":
        grads = grads[i]
    elif fault in ("nan_lr", "negative_lr", "inf_lr"):
        rates = opt.learning_rate if isinstance(opt.learning_rate, ms.ParameterTuple) else [opt.learning_rate]
        lr = rates[i % len(rates)]
        restore = (lr, host(lr).copy())
        lr.set_data(ms.Tensor(np.float32({"nan_lr": "nan", "negative_lr": "-0.1", "inf_lr": "inf"}[fault])))
    error = OPT_FAULTS[fault]
    if not isinstance(grads, ms.Tensor):
        grads = tuple(grads)
    tried(OPT, error is not None)

    before = snapshot(net, opt)
    if error is None:
        opt(grads)
        twin_opt(gradients(twin_opt, warm))
    else:
        with pytest.raises(error):
            opt(grads)
        expect(snapshot(net, opt) == before, f"a failed {kind} step ({fault}) changed the model or its state", OPT,
               lost=True)
        if restore is not None:
            restore[0].set_data(ms.Tensor(restore[1]))
        if fault in ("int_parameter", "lr_exhausted", "schedule_gives_nan"):
            return  # nothing more this optimizer can do
    # The next step works and is exactly the twin's (which never saw a fault): no hidden state moved.
    step = warm + (error is None)
    opt(gradients(opt, step))
    twin_opt(gradients(twin_opt, step))
    expect(values(net, opt) == values(twin, twin_opt),
           f"after a failed {kind} step ({fault}) the next step differs from a twin's", OPT)


@pytest.mark.parametrize("rate", [ms.Tensor(np.float32("nan")), float("inf"), ms.Tensor(np.float32(-1.0)),
                                  [0.1, float("nan")], ms.Tensor(np.array([0.1, np.inf], np.float32))],
                         ids=["nan-tensor", "inf", "negative-tensor", "nan-in-list", "inf-in-tensor"])
def test_optimizer_refuses_a_bad_learning_rate_when_built(rate):
    net = Model(0)
    tried(OPT, True)
    before = snapshot(net)
    with pytest.raises(ValueError, match="learning rate"):
        nn.Momentum(net.trainable_params(), learning_rate=rate, momentum=0.9)
    expect(snapshot(net) == before, "building an optimizer changed the model", OPT, lost=True)


# ======================================================= hooks that raise
HOOKS = "Hooks raising inside gradient transforms"
REGISTER = {"forward_pre": "register_forward_pre_hook", "forward": "register_forward_hook",
            "backward_pre": "register_backward_pre_hook", "backward": "register_backward_hook"}


def hook_registries(net, state=False):
    """The hooks registered on every Cell of ``net`` (forward/backward ones, or with ``state`` the state-dict ones)."""
    return [(path, kind, list(registry.items()))
            for path, c in net.cells_and_names()
            for kind, registry in cell_hook_registries(c)
            if registry and (kind.startswith(("state_dict", "load_state_dict")) == state)]


def live_nodes():
    return sum(isinstance(o, autograd.Node) for o in gc.get_objects())


def build(mode):
    net = Model(0)
    net.set_train()
    if mode == "recompute":
        net.norm.recompute()
    elif mode == "recompute_model":  # every hooked Cell inside one recomputed region, replayed in backward
        net.recompute()
    elif mode == "offload":
        net.head.offload(backward_prefetch=1)
    return net


def run_transform(transform, net, step=None):
    """Gradients (host arrays) of the model's summed output by ``transform``; the TrainOneStepCell updates instead."""
    weights = net.trainable_params()
    loss = lambda x: net(x).sum()  # noqa: E731
    if transform == "grad":
        grads = ms.grad(loss, grad_position=0, weights=weights)(X)
        grads = (grads[0],) + tuple(grads[1])
    elif transform == "value_and_grad":
        value, grads = ms.value_and_grad(loss, grad_position=0, weights=weights)(X)
        grads = (value, grads[0]) + tuple(grads[1])
    elif transform == "grad_operation":
        inputs, weight_grads = ms.ops.GradOperation(get_all=True, get_by_list=True)(loss, weights)(X)
        grads = tuple(inputs) + tuple(weight_grads)
    else:
        step(X)
        grads = tuple(net.trainable_params())
    return [host(g).copy() for g in grads]


def train_step(net):
    class SumLoss(nn.Cell):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def construct(self, x):
            return self.inner(x).sum()

    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    return nn.TrainOneStepCell(SumLoss(net), opt), opt


@settings(EXAMPLES, max_examples=60)
@given(kind=st.sampled_from(sorted(REGISTER)), where=st.sampled_from(["", "dense", "norm", "head"]),
       mode=st.sampled_from(["plain", "recompute", "recompute_model", "offload"]),
       transform=st.sampled_from(["grad", "value_and_grad", "grad_operation", "train_step"]),
       traced=st.booleans())
def test_a_raising_hook_leaves_no_recording_no_tape_and_the_next_call_is_exact(kind, where, mode, transform,
                                                                                traced):
    if transform == "train_step" and where in ("", "dense") and kind == "backward":
        where = "norm"  # the data is not differentiated: the model's (and dense's) input gradient never exists
    net, twin = build(mode), build(mode)
    step = twin_step = opt = None
    if transform == "train_step":
        step, opt = train_step(net)
        twin_step, _ = train_step(twin)
    cell = net.get_sub_cell(where) if where else net
    armed = {"raise": True}

    def hook(*args):
        if armed["raise"]:
            raise Boom(f"{kind} hook of '{where or 'the model'}'")

    gc.collect()
    nodes_before = live_nodes()
    registries = hook_registries(net)
    handle = getattr(cell, REGISTER[kind])(hook)
    registered = hook_registries(net)
    tried(HOOKS, True)
    if step is not None:
        weights_before = [r for r in snapshot(net, opt) if "moving" not in r[1]]

    with contextlib.ExitStack() as stack:
        if traced:  # a trace watching the failed call detaches from every Cell when it closes
            stack.enter_context(ms.trace(net))
        with pytest.raises(Boom):
            run_transform(transform, net, step)
    expect(all("_observers" not in c.__dict__ for _, c in net.cells_and_names()), "a trace observer stayed",
           HOOKS)
    expect(autograd._depth == 0, "recording is still on after the hook raised", HOOKS)
    expect(autograd._sweeps == [] and recompute._regions == [] and seed._logs == [],
           "a sweep, recompute region or random-draw log is left open", HOOKS)
    expect(all(p._node is None for p in net.get_parameters()), "a Parameter kept its tape node", HOOKS)
    expect(hook_registries(net) == registered, "the hook registries changed", HOOKS)
    if not traced:  # (a closed trace's events wait for the garbage collector)
        expect(live_nodes() == nodes_before, "the failed call's tape is still alive", HOOKS)
    gc.collect()
    expect(live_nodes() == nodes_before, "the failed call's tape leaked", HOOKS)
    expect(all(ref() is None for ref in offload._in_flight), "an offloaded region is still alive", HOOKS)
    if step is not None:  # a failed training step updates no weight and no optimizer state
        # (BatchNorm's running statistics moved: the forward pass ran before the hook raised.)
        expect([r for r in snapshot(net, opt) if "moving" not in r[1]] == weights_before,
               "a failed training step changed the weights or the optimizer state", HOOKS, lost=True)

    # The next call, hook registered but quiet: exactly what the twin gives.
    armed["raise"] = False
    got, want = run_transform(transform, net, step), run_transform(transform, twin, twin_step)
    expect(all(np.array_equal(a, b) for a, b in zip(got, want)), "the next call gave other gradients", HOOKS)
    if mode == "offload":  # (dead entries are pruned by the next offloaded backward)
        expect(offload._in_flight == [], "offload bookkeeping is stale after the next call", HOOKS)
    # ... and with the hook removed: the registries are as they were before it was added.
    handle.remove()
    expect(hook_registries(net) == registries, "removing the hook left something registered", HOOKS)
    got, want = run_transform(transform, net, step), run_transform(transform, twin, twin_step)
    expect(all(np.array_equal(a, b) for a, b in zip(got, want)), "a call after removing the hook differs", HOOKS)
    expect(autograd._depth == 0 and all(p._node is None for p in net.get_parameters()), "recording leaked", HOOKS)


def test_a_forward_hook_raising_in_a_recompute_replay_leaves_nothing_open():
    """A child's forward pre-hook that replaced its inputs runs again in the backward replay -- and raises there."""
    net, twin = build("recompute_model"), build("recompute_model")
    calls = []

    def replaces_then_raises(cell, inputs):
        calls.append(len(calls))
        if len(calls) == 2:  # the replay, inside the backward sweep
            raise Boom("raised during the replay")
        return inputs

    handle = net.head.register_forward_pre_hook(replaces_then_raises)
    tried(HOOKS, True)
    with pytest.raises(Boom, match="replay"):
        run_transform("grad", net)
    assert calls == [0, 1]
    expect(autograd._depth == 0 and autograd._sweeps == [] and recompute._regions == [] and seed._logs == [],
           "the replay left recording, a sweep or a region open", HOOKS)
    expect(all(p._node is None for p in net.get_parameters()), "a Parameter kept its tape node", HOOKS)
    handle.remove()
    got, want = run_transform("grad", net), run_transform("grad", twin)
    expect(all(np.array_equal(a, b) for a, b in zip(got, want)), "the next call gave other gradients", HOOKS)


@pytest.mark.parametrize("method", sorted(REGISTER.values()) + [
    "register_load_state_dict_pre_hook", "register_load_state_dict_post_hook",
    "register_state_dict_pre_hook", "register_state_dict_post_hook"])
def test_a_refused_or_abandoned_hook_registration_leaves_no_handle(method):
    """A non-callable hook is refused whole; a handle used as a context manager is removed when its block raises."""
    net = build("plain")
    fast = [(path, on_fast_path(c)) for path, c in net.cells_and_names()]
    registries = hook_registries(net)
    state_registries = hook_registries(net, state=True)
    tried(HOOKS, True)
    with pytest.raises(TypeError, match="callable"):
        getattr(net.norm, method)("not a function")
    with pytest.raises(Boom):
        with getattr(net.norm, method)(lambda *args: None):
            raise Boom("the block failed")
    expect(hook_registries(net) == registries and [(p, on_fast_path(c)) for p, c in net.cells_and_names()] == fast,
           f"{method}: a refused or abandoned hook stayed registered", HOOKS)
    expect(hook_registries(net, state=True) == state_registries,
           f"{method}: a state-dict hook stayed registered", HOOKS)


def test_failed_operations_roll_back_on_every_backend(backend):
    """The in-place writes and their undo, and the checks before a step, on NumPy, a strict device and CuPy."""
    net, source = Model(0), Model(1)
    handle = net.norm.register_load_state_dict_post_hook(raise_boom)  # raises after the values were written
    before = snapshot(net)
    with pytest.raises(Boom):
        net.load_state_dict(source.state_dict())
    assert snapshot(net) == before
    handle.remove()
    params = {p.name: ms.Parameter(ms.Tensor(host(p)), name=p.name) for p in source.get_parameters()}
    params["norm.beta"] = ms.Parameter(ms.Tensor(np.zeros(5, np.float32)), name="norm.beta")
    with pytest.raises(RuntimeError, match="shape"):
        ms.load_param_into_net(net, params)
    assert snapshot(net) == before
    opt = make_optimizer("adam", net)
    opt(gradients(opt, 0))
    opt.learning_rate.set_data(ms.Tensor(np.float32("nan")))
    before = snapshot(net, opt)
    with pytest.raises(ValueError, match="learning rate"):
        opt(gradients(opt, 1))
    assert snapshot(net, opt) == before
    first, second = host(net.dense.bias).copy(), host(net.norm.beta).copy()  # two (3,) targets swapped
    net.load_state_dict({"dense.bias": net.norm.beta, "norm.beta": net.dense.bias}, strict=False)
    assert np.array_equal(host(net.dense.bias), second) and np.array_equal(host(net.norm.beta), first)
    tried(LSD, True)
    tried(LPN, True)
    tried(OPT, True)
    tried(LSD, False)
