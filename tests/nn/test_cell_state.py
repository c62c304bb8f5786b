"""State dictionaries: state_dict, load_state_dict, extra state and the four state-dict hooks."""
from collections import OrderedDict

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from cellkit import Parameter, ParameterTuple, Tensor


def param(values, name, dtype=np.float32, **kwargs):
    return Parameter(Tensor(np.array(values, dtype)), name=name, **kwargs)


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", ms.tensor([1, 2]))
        self.w = param([1.0, 2.0], "w")
        self.register_buffer("scratch", ms.tensor([0]), persistent=False)
        self.b = param([0.5], "b")

    def construct(self, x):
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.v = param([3.0], "v")
        self.inner = Inner()
        self.register_buffer("steps", ms.tensor([0]))
        self.last = Inner()

    def construct(self, x):
        return x


KEYS = ["v", "steps", "inner.w", "inner.b", "inner.running", "last.w", "last.b", "last.running"]


def snapshot(cell):
    """Every Parameter and buffer (persistent or not) as (dtype, shape, bytes)."""
    state = {}
    for path, c in cell.cells_and_names():
        for registry in (c._params, c._buffers):
            for name, t in registry.items():
                if t is not None:
                    array = t.asnumpy()
                    state[f"{path}.{name}"] = (array.dtype.str, array.shape, array.tobytes())
    return state


def state_of(cell, scale):
    """A state dict for ``cell`` whose values differ from the current ones."""
    return OrderedDict((k, Tensor(v.asnumpy() * scale + 1)) for k, v in cell.state_dict().items())


# ------------------------------------------------------------------ state_dict
def test_state_dict_orders_each_cell_params_then_persistent_buffers_then_children():
    assert list(Outer().state_dict()) == KEYS


def test_state_dict_values_are_the_parameters_and_buffers_themselves():
    net = Outer()
    sd = net.state_dict()
    assert sd["v"] is net.v and sd["inner.running"] is net.inner.running
    assert net.state_dict(keep_vars=True)["inner.w"] is net.inner.w
    assert type(sd) is not dict and isinstance(sd, OrderedDict)


def test_state_dict_leaves_out_non_persistent_and_none_entries():
    net = Outer()
    net.inner.b = None
    net.inner.register_buffer("empty", None)
    keys = list(net.state_dict())
    assert "inner.scratch" not in keys and "inner.b" not in keys and "inner.empty" not in keys


def test_state_dict_prefix_destination_and_positional_arguments():
    net = Outer()
    assert list(net.state_dict(prefix="model.")) == ["model." + k for k in KEYS]
    target = {}
    assert net.state_dict(destination=target) is target and list(target) == KEYS
    positional = net.state_dict(None, "p.", True)
    assert list(positional) == ["p." + k for k in KEYS]
    with pytest.raises(TypeError, match="prefix"):
        net.state_dict(prefix=3)


def test_state_dict_metadata_has_one_entry_per_cell():
    sd = Outer().state_dict()
    assert list(sd._metadata) == ["", "inner", "last"]
    assert all(v == {} for v in sd._metadata.values())


def test_state_dict_shared_sub_cell_is_saved_under_each_path():
    shared = Inner()
    net = nn.Cell()
    net.a = shared
    net.b = shared
    assert list(net.state_dict()) == ["a.w", "a.b", "a.running", "b.w", "b.b", "b.running"]
    assert net.load_state_dict(net.state_dict()).missing_keys == []


def test_state_dict_includes_parameter_tuple_members():
    net = nn.Cell()
    net.pt = ParameterTuple([param([1.0], None), param([2.0], "named")])
    assert list(net.state_dict()) == ["Parameter$1", "named"]
    other = nn.Cell()
    other.pt = ParameterTuple([param([0.0], None), param([0.0], "named")])
    other.load_state_dict(net.state_dict())
    assert [p.asnumpy().tolist() for p in other.pt] == [[1.0], [2.0]]


# ------------------------------------------------------------- load_state_dict
def test_load_state_dict_copies_values_and_reports_all_matched():
    source, target = Outer(), Outer()
    new = state_of(source, 10)
    result = target.load_state_dict(new)
    assert str(result) == "<All keys matched successfully>" and repr(result) == str(result)
    assert result.missing_keys == [] and result.unexpected_keys == []
    for key, value in new.items():
        np.testing.assert_array_equal(target.state_dict()[key].asnumpy(), value.asnumpy())


def test_load_state_dict_keeps_the_objects_and_does_not_alias_the_source():
    source, target = Outer(), Outer()
    w = target.inner.w
    target.load_state_dict(source.state_dict())
    assert target.inner.w is w and isinstance(target.inner.w, Parameter)
    source.inner.w.set_data(Tensor(np.array([9.0, 9.0], np.float32)))
    assert target.inner.w.asnumpy().tolist() == [1.0, 2.0]


def test_load_state_dict_result_is_a_namedtuple():
    result = Outer().load_state_dict({"v": Tensor(np.array([1.0], np.float32))}, strict=False)
    missing, unexpected = result
    assert missing == result.missing_keys and unexpected == result.unexpected_keys == []
    assert missing == KEYS[1:]
    assert repr(result).startswith("_IncompatibleKeys(missing_keys=['steps'")


def test_load_state_dict_non_strict_reports_missing_and_unexpected():
    net = Outer()
    sd = net.state_dict()
    del sd["inner.w"]
    sd["zz"] = Tensor([1.0])
    sd["inner.qq"] = Tensor([1.0])
    sd["last.scratch"] = Tensor([1])  # non-persistent: not expected
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["inner.w"]
    assert result.unexpected_keys == ["zz", "inner.qq", "last.scratch"]


def test_load_state_dict_strict_mismatch_raises_with_mindspore_layout():
    net = Outer()
    sd = net.state_dict()
    del sd["inner.w"], sd["last.b"]
    sd["zz"] = Tensor([1.0])
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Outer:\n"
        '\tMissing key(s) in state_dict: "inner.w", "last.b". \n'
        '\tUnexpected key(s) in state_dict: "zz". '
    )


def test_load_state_dict_size_mismatch_raises_even_when_not_strict():
    net = Outer()
    sd = net.state_dict()
    sd["inner.w"] = Tensor(np.ones(3, np.float32))
    for strict in (True, False):
        with pytest.raises(RuntimeError) as info:
            net.load_state_dict(sd, strict=strict)
        assert str(info.value) == (
            "Error(s) in loading state_dict for Outer:\n"
            "\tsize mismatch for inner.w: copying a param with shape (3,) from checkpoint, "
            "the shape in current model is (2,)."
        )


def test_load_state_dict_casts_values_to_the_targets_dtype():
    net = Outer()
    sd = net.state_dict()
    sd["inner.w"] = Tensor(np.array([7, 8], np.int32))
    sd["inner.running"] = Tensor(np.array([5.7, 6.2], np.float32))
    net.load_state_dict(sd)
    assert net.inner.w.dtype == ms.float32 and net.inner.w.asnumpy().tolist() == [7.0, 8.0]
    assert net.inner.running.dtype == ms.int64 and net.inner.running.asnumpy().tolist() == [5, 6]


@pytest.mark.parametrize("value", [np.array([1.0], np.float32), 1.0, [1.0]])
def test_load_state_dict_non_tensor_value_raises(value):
    net = Outer()
    sd = net.state_dict()
    sd["v"] = value
    with pytest.raises(RuntimeError, match='parameter named "v", expected Tensor'):
        net.load_state_dict(sd)


def test_load_state_dict_argument_checks():
    with pytest.raises(TypeError, match="dict-like"):
        Outer().load_state_dict([("v", Tensor([1.0]))])
    with pytest.raises(TypeError, match="strict"):
        Outer().load_state_dict({}, strict="yes")


def test_load_state_dict_key_registered_as_none_is_unexpected():
    net = Outer()
    sd = net.state_dict()
    net.inner.b = None
    with pytest.raises(RuntimeError, match='Unexpected key.*"inner.b"'):
        net.load_state_dict(sd)
    assert net.load_state_dict(sd, strict=False).unexpected_keys == ["inner.b"]


# ------------------------------------------------------- a failed load changes nothing
def failing_cases():
    def missing_in_last(net):
        sd = state_of(net, 10)
        del sd["last.b"]
        return sd

    def size_mismatch_in_last(net):
        sd = state_of(net, 10)
        sd["last.running"] = ms.tensor([1, 2, 3])
        return sd

    def unexpected_key(net):
        sd = state_of(net, 10)
        sd["last.extra"] = Tensor([1.0])
        return sd

    def bad_value_in_last(net):
        sd = state_of(net, 10)
        sd["last.w"] = "not a tensor"
        return sd

    return [missing_in_last, size_mismatch_in_last, unexpected_key, bad_value_in_last]


@pytest.mark.parametrize("make_state", failing_cases(), ids=lambda f: f.__name__)
def test_load_state_dict_failing_strict_load_leaves_everything_bit_identical(make_state):
    net = Outer()
    before = snapshot(net)
    with pytest.raises(RuntimeError):
        net.load_state_dict(make_state(net))
    assert snapshot(net) == before


def test_load_state_dict_failing_post_hook_check_rolls_back_written_values():
    net = Outer()
    before = snapshot(net)
    seen = []

    def add_missing(cell, incompatible_keys):
        seen.append(cell.v.asnumpy().tolist())  # the hook runs after the values were written
        incompatible_keys.missing_keys.append("made.up")

    net.register_load_state_dict_post_hook(add_missing)
    new = state_of(net, 10)
    with pytest.raises(RuntimeError, match='Missing key.*"made.up"'):
        net.load_state_dict(new)
    assert seen == [[31.0]]
    assert snapshot(net) == before


def test_load_state_dict_raising_post_hook_rolls_back():
    net = Outer()
    before = snapshot(net)

    def boom(cell, incompatible_keys):
        raise ValueError("hook failed")

    net.last.register_load_state_dict_post_hook(boom)
    with pytest.raises(ValueError, match="hook failed"):
        net.load_state_dict(state_of(net, 10), strict=False)
    assert snapshot(net) == before


def test_load_state_dict_failing_set_extra_state_in_a_later_cell_rolls_back():
    class WithExtra(Inner):
        def __init__(self, fail=False):
            super().__init__()
            self.fail = fail
            self.config = {"k": 1}

        def get_extra_state(self):
            return dict(self.config)

        def set_extra_state(self, state):
            if self.fail:
                raise ValueError("cannot take it")
            self.config = dict(state)

    net = nn.Cell()
    net.first = WithExtra()
    net.second = WithExtra(fail=True)
    sd = net.state_dict()
    sd["first._extra_state"] = {"k": 2}
    before = snapshot(net)
    with pytest.raises(ValueError, match="cannot take it"):
        net.load_state_dict(sd)
    assert snapshot(net) == before and net.first.config == {"k": 1}


# ------------------------------------------------------------------ extra state
class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = param([1.0], "w")
        self.count = 0

    def get_extra_state(self):
        return {"count": self.count}

    def set_extra_state(self, state):
        self.count = state["count"]

    def construct(self, x):
        return x


def test_extra_state_round_trip():
    net = nn.Cell()
    net.counter = Counter()
    net.counter.count = 5
    sd = net.state_dict()
    assert list(sd) == ["counter.w", "counter._extra_state"] and sd["counter._extra_state"] == {"count": 5}
    fresh = nn.Cell()
    fresh.counter = Counter()
    assert fresh.load_state_dict(sd).missing_keys == []
    assert fresh.counter.count == 5


def test_extra_state_missing_key_is_reported():
    result = Counter().load_state_dict({"w": Tensor([2.0])}, strict=False)
    assert result.missing_keys == ["_extra_state"]


def test_extra_state_key_for_a_cell_without_it_is_unexpected():
    result = Inner().load_state_dict(dict(Inner().state_dict(), _extra_state=1), strict=False)
    assert result.unexpected_keys == ["_extra_state"]


def test_extra_state_default_methods_raise_runtime_error():
    with pytest.raises(RuntimeError, match="get_extra_state"):
        Inner().get_extra_state()
    with pytest.raises(RuntimeError, match="set_extra_state"):
        Inner().set_extra_state({})


# ------------------------------------------------------------------------ hooks
def test_state_dict_pre_and_post_hooks_signatures_and_order():
    net = Outer()
    log = []
    net.register_state_dict_pre_hook(lambda cell, prefix, keep_vars: log.append(("pre", cell, prefix, keep_vars)))
    net.inner.register_state_dict_pre_hook(lambda cell, prefix, keep_vars: log.append(("pre", cell, prefix, keep_vars)))

    def post(cell, state_dict, prefix, local_metadata):
        log.append(("post", cell, prefix, list(state_dict), local_metadata))

    net.register_state_dict_post_hook(post)
    net.inner.register_state_dict_post_hook(post)
    net.state_dict(prefix="m.", keep_vars=True)
    assert log == [
        ("pre", net, "m.", True),
        ("pre", net.inner, "m.inner.", True),
        ("post", net.inner, "m.inner.", ["m.v", "m.steps", "m.inner.w", "m.inner.b", "m.inner.running"], {}),
        ("post", net, "m.", ["m." + k for k in KEYS], {}),
    ]


def test_state_dict_pre_hook_spec_example_adds_extra_param():
    class NetA(nn.Cell):
        def __init__(self):
            super().__init__()
            self.buffer_a = nn.Buffer(ms.tensor([1, 2, 3]))
            self.param_a = Parameter(ms.tensor([1, 2, 3]))

        def construct(self, x):
            return x + self.buffer_a + self.param_a

    def _add_extra_param(cell, prefix, keep_vars):
        cell._params["extra_param"] = Parameter(ms.tensor([4, 5, 6]))

    net = NetA()
    handle = net.register_state_dict_pre_hook(_add_extra_param)
    net_state_dict = net.state_dict()
    handle.remove()
    assert "extra_param" in net_state_dict
    assert list(net_state_dict) == ["param_a", "extra_param", "buffer_a"]
    assert net.extra_param.asnumpy().tolist() == [4, 5, 6]


def test_state_dict_post_hook_may_edit_the_dict():
    net = Inner()
    def drop_running(cell, sd, prefix, metadata):
        del sd[prefix + "running"]

    net.register_state_dict_post_hook(drop_running)
    assert list(net.state_dict()) == ["w", "b"]


def test_state_dict_post_hook_returning_a_value_is_a_runtime_error_as_mindspore():
    net = Inner()
    net.register_state_dict_post_hook(lambda cell, sd, prefix, md: sd)
    with pytest.raises(RuntimeError, match="must return None"):
        net.state_dict()


def test_load_pre_hook_signature_gets_strict_true_and_its_own_keys():
    net = Outer()
    calls = []

    def pre(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        calls.append((cell, prefix, local_metadata, strict, list(state_dict)))
        assert isinstance(missing_keys, list) and isinstance(unexpected_keys, list)
        assert isinstance(error_msgs, list)

    net.register_load_state_dict_pre_hook(pre)
    net.inner.register_load_state_dict_pre_hook(pre)
    net.load_state_dict(net.state_dict(), strict=False)
    assert calls[0] == (net, "", {}, True, KEYS)
    # MindSpore passes strict=True even when the caller passed False; a child sees only its keys.
    assert calls[1] == (net.inner, "inner.", {}, True, ["inner.w", "inner.b", "inner.running"])


def test_load_pre_hook_may_rename_keys_in_place():
    def rename(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        old = prefix + "old_w"
        if old in state_dict:
            state_dict[prefix + "w"] = state_dict.pop(old)

    net = Outer()
    net.inner.register_load_state_dict_pre_hook(rename)
    sd = net.state_dict()
    sd["inner.old_w"] = sd.pop("inner.w")
    sd["inner.old_w"] = Tensor(np.array([5.0, 6.0], np.float32))
    assert str(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert net.inner.w.asnumpy().tolist() == [5.0, 6.0]
    assert "inner.old_w" in sd  # the caller's dict is not edited


def test_load_pre_hook_error_message_fails_the_load():
    net = Inner()

    def complain(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        error_msgs.append("custom problem")

    net.register_load_state_dict_pre_hook(complain)
    before = snapshot(net)
    with pytest.raises(RuntimeError, match="Error\\(s\\) in loading state_dict for Inner:\n\tcustom problem"):
        net.load_state_dict(state_of(net, 3), strict=False)
    assert snapshot(net) == before


def test_load_post_hook_runs_children_first_with_the_incompatible_keys():
    net = Outer()
    calls = []
    net.register_load_state_dict_post_hook(lambda cell, keys: calls.append((cell, keys)))
    net.inner.register_load_state_dict_post_hook(lambda cell, keys: calls.append((cell, keys)))
    sd = net.state_dict()
    sd["zz"] = Tensor([1.0])
    result = net.load_state_dict(sd, strict=False)
    assert [c for c, _ in calls] == [net.inner, net]
    assert all(keys is result for _, keys in calls)
    assert result.unexpected_keys == ["zz"]


def test_load_post_hook_clearing_the_keys_avoids_the_strict_error():
    net = Outer()
    net.register_load_state_dict_post_hook(lambda cell, keys: (keys.missing_keys.clear(), keys.unexpected_keys.clear()))
    sd = state_of(net, 2)
    del sd["v"]
    sd["zz"] = Tensor([1.0])
    assert str(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert net.inner.w.asnumpy().tolist() == [3.0, 5.0]


def test_state_hook_handles_remove_the_hooks():
    net = Inner()
    fired = []
    handles = [
        net.register_state_dict_pre_hook(lambda *a: fired.append("pre")),
        net.register_state_dict_post_hook(lambda *a: fired.append("post")),
        net.register_load_state_dict_pre_hook(lambda *a: fired.append("load_pre")),
        net.register_load_state_dict_post_hook(lambda *a: fired.append("load_post")),
    ]
    net.load_state_dict(net.state_dict())
    assert fired == ["pre", "post", "load_pre", "load_post"]
    for handle in handles:
        handle.remove()
        handle.remove()  # twice is harmless
    fired.clear()
    net.load_state_dict(net.state_dict())
    assert fired == []


def test_state_hook_handle_as_context_manager():
    net = Inner()
    fired = []
    with net.register_state_dict_pre_hook(lambda *a: fired.append(1)):
        net.state_dict()
    net.state_dict()
    assert fired == [1]


def test_state_hook_registration_refuses_non_callables():
    net = Inner()
    for register in (net.register_state_dict_pre_hook, net.register_state_dict_post_hook,
                     net.register_load_state_dict_pre_hook, net.register_load_state_dict_post_hook):
        with pytest.raises(TypeError, match="callable"):
            register("not a function")


def test_load_state_dict_does_not_run_the_state_dict_hooks():
    net = Inner()
    fired = []
    net.register_state_dict_pre_hook(lambda *a: fired.append("pre"))
    sd = net.state_dict()
    fired.clear()
    net.load_state_dict(sd)
    assert fired == []


def test_load_state_dict_on_every_backend_loads_and_rolls_back(backend):
    net, other = Outer(), Outer()
    before = snapshot(net)
    handle = net.register_load_state_dict_post_hook(lambda cell, keys: keys.missing_keys.append("made.up"))
    with pytest.raises(RuntimeError, match="made.up"):
        net.load_state_dict(state_of(other, 10))
    assert snapshot(net) == before
    handle.remove()
    net.load_state_dict(state_of(other, 10))
    assert snapshot(net) != before
    for key, value in state_of(other, 10).items():
        np.testing.assert_array_equal(net.state_dict()[key].asnumpy(), value.asnumpy().astype(
            net.state_dict()[key].asnumpy().dtype))
