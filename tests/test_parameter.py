"""Parameter and ParameterTuple: the spec's examples and every method's behaviour.

Expected strings and error cases were observed on MindSpore 2.10 (CPU).
"""
import copy
import pickle
import re

import numpy as np
import pytest

import cellkit as ms
from cellkit import Parameter, ParameterTuple, Tensor
from cellkit.common.initializer import initializer


def _param(values=(1.0, 2.0), name="p", **kwargs):
    return Parameter(Tensor(list(values), ms.float32), name=name, **kwargs)


# ----------------------------------------------------------------- printing
def test_parameter_repr_and_str_match_mindspore(capsys):
    w = Parameter(initializer("ones", (240, 120, 4, 4), ms.float32), name="weight")
    line = "Parameter (name=weight, shape=(240, 120, 4, 4), dtype=Float32, requires_grad=True)"
    assert repr(w) == line
    assert str(w) == line
    print(w)
    assert capsys.readouterr().out == line + "\n"


def test_parameter_repr_shapes_and_dtypes():
    assert repr(Parameter(Tensor(2.0), name="s")) == "Parameter (name=s, shape=(), dtype=Float32, requires_grad=True)"
    assert repr(Parameter(Tensor([1.0]), name="v", requires_grad=False)) == (
        "Parameter (name=v, shape=(1,), dtype=Float32, requires_grad=False)")
    assert repr(Parameter(Tensor([1.0], ms.bfloat16), name="b")) == (
        "Parameter (name=b, shape=(1,), dtype=BFloat16, requires_grad=True)")


def test_parameter_values_are_shown_by_asnumpy_not_print(capsys):
    p = Parameter(Tensor([[1.0, 2.0]]), name="p")
    print(p.asnumpy())
    assert capsys.readouterr().out == "[[1. 2.]]\n"


# ----------------------------------------------------------------- creation
@pytest.mark.parametrize("value, dtype, shape", [
    (3, ms.int32, ()),            # a Python int is Int32, as in MindSpore
    (3.5, ms.float32, ()),
    ([1, 2], ms.int64, (2,)),
    ([1.0, 2], ms.float32, (2,)),
    (np.array([1.0]), ms.float64, (1,)),
    (np.array([1], np.int32), ms.int32, (1,)),
    (np.array([True]), ms.bool_, (1,)),
])
def test_parameter_creation_dtype_rules(value, dtype, shape):
    p = Parameter(value, name="p")
    assert p.dtype is dtype
    assert p.shape == shape


def test_parameter_refuses_bool_default_input():
    with pytest.raises(ValueError, match="default_input"):
        Parameter(True)


@pytest.mark.parametrize("bad", [(1, 2), "abc", None, {"a": 1}])
def test_parameter_refuses_unsupported_default_input(bad):
    with pytest.raises(TypeError, match="default_input"):
        Parameter(bad, name="p")


def test_parameter_copies_its_input_tensor():
    t = Tensor(np.array([1.0, 2.0], np.float32))
    p = Parameter(t, name="p")
    t[0] = 100.0
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_parameter_of_parameter_is_independent():
    p = _param(name="p")
    q = Parameter(p, name="q")
    q.set_data(Tensor([7.0, 7.0]))
    assert p.asnumpy().tolist() == [1.0, 2.0]
    assert q.name == "q"


def test_parameter_from_initializer_is_initialised_at_once():
    ms.set_seed(3)
    lazy = initializer("normal", (2, 3), ms.float32)
    p = Parameter(lazy, name="w")
    assert not p.has_init
    assert p.shape == (2, 3) and p.dtype is ms.float32
    # As in MindSpore, the source tensor is initialised too, with the same values.
    assert not lazy.has_init
    np.testing.assert_array_equal(lazy.asnumpy(), p.asnumpy())
    assert p.inited_param is None


def test_parameter_from_lazy_tensor_with_init_object():
    p = Parameter(Tensor(shape=(2, 3), dtype=ms.float32, init=ms.common.initializer.One()), name="w")
    assert p.asnumpy().tolist() == [[1.0] * 3] * 2


def test_parameter_from_shape_only_tensor_is_zeros():
    p = Parameter(Tensor(shape=(2, 3), dtype=ms.float32), name="z")
    assert p.asnumpy().tolist() == [[0.0] * 3] * 2


def test_parameter_from_dynamic_placeholder_has_shape_but_no_data():
    p = Parameter(Tensor(shape=(2, None), dtype=ms.float32), name="ph")
    assert p.shape == (2, -1) and p.dtype is ms.float32
    assert repr(p) == "Parameter (name=ph, shape=(2, -1), dtype=Float32, requires_grad=True)"
    assert p.init_data() is p
    with pytest.raises(RuntimeError):
        p.asnumpy()


def test_parameter_is_a_tensor_usable_in_ops_and_hashable_by_identity():
    p = _param(name="p")
    q = _param(name="q")
    assert isinstance(p, Tensor)
    out = p * 2 + 1
    assert type(out) is Tensor
    assert out.asnumpy().tolist() == [3.0, 5.0]
    assert len({p, q, p}) == 2
    assert {p: 1}[p] == 1
    assert p._node is None


def test_parameter_gradient_through_weights_leaves_no_tape_link():
    p = _param((1.0, 2.0), name="p")
    x = Tensor([3.0, 4.0])
    loss, (g,) = ms.value_and_grad(lambda x: (p * x).sum(), grad_position=None, weights=[p])(x)
    assert loss.item() == 11.0
    assert g.asnumpy().tolist() == [3.0, 4.0]
    assert p._node is None


def test_parameter_creation_on_every_backend(backend):
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    q = Parameter(initializer("ones", (2,), ms.float32), name="q")
    for param in (p, q):
        assert type(param._data).__module__.split(".")[0] == backend.xp.__name__.split(".")[0]
        if backend.device is not None:
            assert param._data.device == backend.device
    assert (p + q).asnumpy().tolist() == [2.0, 3.0]


# -------------------------------------------------------------------- names
def test_parameter_unnamed_gets_consecutive_generated_names():
    a = Parameter(Tensor([1.0]))
    Parameter(Tensor([1.0]), name="named")  # a given name uses no number
    b = Parameter(Tensor([1.0]))
    match_a = re.fullmatch(r"Parameter#(\d+)", a.name)
    match_b = re.fullmatch(r"Parameter#(\d+)", b.name)
    assert match_a and match_b
    assert int(match_b.group(1)) == int(match_a.group(1)) + 1


def test_parameter_name_was_generated_flag():
    p = Parameter(Tensor([1.0]))
    assert p.name_was_generated is True
    p.name = "weight"
    assert p.name_was_generated is False
    p.name = None  # back to a generated one
    assert p.name_was_generated is True and p.name.startswith("Parameter#")
    # MindSpore decides by the prefix, so a given 'Parameter#...' name counts as generated.
    assert Parameter(Tensor([1.0]), name="Parameter#99").name_was_generated is True
    assert Parameter(Tensor([1.0]), name="Parameter$1").name_was_generated is False
    with pytest.raises(AttributeError):
        p.name_was_generated = False


def test_parameter_name_setter_strips_and_generates_for_blank():
    p = _param(name="param")
    p.name = " param1 "
    assert p.name == "param1"
    p.name = "   "
    assert p.name.startswith("Parameter#")
    assert Parameter(Tensor([1.0]), name="").name.startswith("Parameter#")
    assert Parameter(Tensor([1.0]), name="a.b").name == "a.b"


def test_parameter_name_validation():
    p = _param(name="keep")
    with pytest.raises(ValueError, match="'name'.*str"):
        p.name = 5
    with pytest.raises(ValueError, match="'name'"):
        Parameter(Tensor([1.0]), name=1)
    assert len(Parameter(Tensor([1.0]), name="a" * 1024).name) == 1024
    with pytest.raises(ValueError, match="'name'.*1024"):
        p.name = "a" * 1025
    assert p.name == "keep"


# -------------------------------------------------------------------- flags
@pytest.mark.parametrize("attr, default", [
    ("requires_grad", True), ("layerwise_parallel", False), ("parallel_optimizer", True),
    ("parallel_optimizer_comm_recompute", False), ("cache_enable", False), ("unique", False),
    ("sliced", False),
])
def test_parameter_bool_properties_default_set_and_validate(attr, default):
    p = _param()
    assert getattr(p, attr) is default
    setattr(p, attr, not default)
    assert getattr(p, attr) is (not default)
    for bad in (1, "x", None):
        with pytest.raises(TypeError, match=attr):
            setattr(p, attr, bad)
    assert getattr(p, attr) is (not default)


@pytest.mark.parametrize("arg", ["requires_grad", "layerwise_parallel", "parallel_optimizer"])
def test_parameter_constructor_flags_must_be_bools(arg):
    assert getattr(Parameter(Tensor([1.0]), name="p", **{arg: False}), arg) is False
    with pytest.raises(TypeError, match=arg):
        Parameter(Tensor([1.0]), name="p", **{arg: 1})


def test_parameter_requires_grad_shows_in_repr():
    p = _param(name="p")
    p.requires_grad = False
    assert repr(p).endswith("requires_grad=False)")


def test_parameter_comm_fusion():
    p = _param()
    assert p.comm_fusion == 1
    p.comm_fusion = 3
    assert p.comm_fusion == 3
    p.comm_fusion = 0
    assert p.comm_fusion == 0
    with pytest.raises(ValueError, match="comm_fusion"):
        p.comm_fusion = -1
    for bad in (1.5, True, "2"):
        with pytest.raises(TypeError, match="comm_fusion"):
            p.comm_fusion = bad
    assert p.comm_fusion == 0


def test_parameter_cache_shape():
    p = _param()
    assert p.cache_shape == []
    p.cache_shape = (4, 3)
    assert p.cache_shape == [4, 3]
    p.cache_shape = [2]
    assert p.cache_shape == [2]
    with pytest.raises(TypeError, match="cache_shape"):
        p.cache_shape = 5
    assert p.cache_shape == [2]


def test_parameter_key_is_unique_and_settable():
    a, b = _param(name="a"), _param(name="b")
    assert isinstance(a.key, int) and a.key != b.key
    a.key = 2
    assert a.key == 2
    for bad in ("a", 2.5, True):
        with pytest.raises(TypeError, match="key"):
            a.key = bad
    assert a.key == 2


def test_parameter_add_pipeline_stage():
    p = _param()
    assert p.pipeline_stages == []
    p.add_pipeline_stage(2)
    p.add_pipeline_stage(0)  # MindSpore counts stages from 0
    assert p.pipeline_stages == [2, 0]
    for bad in (-1, 1.0, True, "1"):
        with pytest.raises(TypeError, match="stage"):
            p.add_pipeline_stage(bad)
    assert p.pipeline_stages == [2, 0]


def test_parameter_set_param_ps():
    p = _param()
    assert p.is_param_ps is False
    p.set_param_ps()
    assert p.is_param_ps is True and p.init_in_server is False
    p.set_param_ps(init_in_server=True)
    assert p.init_in_server is True
    with pytest.raises(TypeError, match="init_in_server"):
        p.set_param_ps(init_in_server=1)


# --------------------------------------------------------------------- data
def test_parameter_data_is_the_parameter_and_assignable():
    p = _param(name="p")
    assert p.data is p
    p.data = Tensor([5.0, 6.0])
    assert p.asnumpy().tolist() == [5.0, 6.0]


def test_parameter_value_is_a_snapshot_tensor():
    p = _param((1.0, 2.0), name="p")
    v = p.value()
    assert type(v) is Tensor
    assert v.asnumpy().tolist() == [1.0, 2.0]
    p[0] = 9.0
    p.set_data(Tensor([4.0, 4.0]))
    assert v.asnumpy().tolist() == [1.0, 2.0]


def test_parameter_set_data_keeps_identity_and_returns_self(capsys):
    x = Parameter(Tensor(np.array([[1, 2], [3, 4]], dtype=np.float32)), name="param")
    same = x.set_data(Tensor(np.array([[6, 6], [6, 6]], dtype=np.float32)))
    assert same is x
    print(same)
    assert capsys.readouterr().out == "Parameter (name=param, shape=(2, 2), dtype=Float32, requires_grad=True)\n"
    assert x.asnumpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]


def test_parameter_set_data_casts_to_the_parameter_dtype():
    p = _param()
    p.set_data(Tensor(np.zeros(2, np.float64)))
    assert p.dtype is ms.float32
    p.set_data(Tensor([1, 2]))
    assert p.dtype is ms.float32 and p.asnumpy().tolist() == [1.0, 2.0]
    i = Parameter(Tensor([1, 2], ms.int32), name="i")
    i.set_data(Tensor([2.7, -1.5]))
    assert i.dtype is ms.int32 and i.asnumpy().tolist() == [2, -1]


def test_parameter_set_data_scalars():
    p = _param()
    assert p.set_data(3).asnumpy().tolist() == 3.0 and p.dtype is ms.float32
    assert p.set_data(2.5).asnumpy().tolist() == 2.5
    assert p.set_data(True).asnumpy().tolist() == 1.0
    i = Parameter(Tensor([1, 2], ms.int32), name="i")
    assert i.set_data(3).asnumpy().tolist() == 3
    with pytest.raises(TypeError, match="float"):
        i.set_data(2.5)
    assert i.asnumpy().tolist() == 3


def test_parameter_set_data_shape_may_change_and_slice_shape_marks_sliced():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
    p.set_data(Tensor(np.zeros(4, np.float32)))
    assert p.shape == (4,) and p.sliced is False
    p.set_data(Tensor(np.zeros(5, np.float32)), slice_shape=True)
    assert p.shape == (5,) and p.sliced is True


@pytest.mark.parametrize("bad", [np.zeros(2), [1.0], None, "x"])
def test_parameter_set_data_refuses_other_types_and_changes_nothing(bad):
    p = _param()
    with pytest.raises(TypeError, match="'data'"):
        p.set_data(bad)
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_parameter_set_data_bad_slice_shape_changes_nothing():
    p = _param()
    with pytest.raises(TypeError, match="slice_shape"):
        p.set_data(Tensor([5.0, 5.0]), slice_shape=1)
    assert p.asnumpy().tolist() == [1.0, 2.0] and p.sliced is False


def test_parameter_set_data_shares_the_tensor_array_as_mindspore():
    p = _param()
    t = Tensor(np.array([1.0, 2.0], np.float32))
    p.set_data(t)
    t[0] = 100.0
    assert p.asnumpy().tolist() == [100.0, 2.0]


def test_parameter_set_data_initialises_a_lazy_tensor():
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="w")
    p.set_data(initializer("ones", (3,), ms.float32))
    assert not p.has_init and p.asnumpy().tolist() == [1.0, 1.0, 1.0]


def test_parameter_set_data_on_every_backend(backend):
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    p.set_data(Tensor([3, 4]))
    assert p.dtype is ms.float32 and p.asnumpy().tolist() == [3.0, 4.0]
    if backend.device is not None:
        assert p._data.device == backend.device
    assert p.value().asnumpy().tolist() == [3.0, 4.0]


def test_parameter_init_data_lazy_placeholder_records_inited_param_and_sliced():
    p = Parameter(Tensor(shape=(2, None), dtype=ms.float32), name="ph")
    assert p.set_data(initializer("ones", (2, 3), ms.float32)) is p
    assert p.has_init and p.inited_param is None and p.shape == (2, 3)
    assert p.init_data(set_sliced=True) is p
    assert not p.has_init and p.sliced is True and p.inited_param is p
    assert p.asnumpy().tolist() == [[1.0] * 3] * 2


def test_parameter_init_data_layout_checks():
    p = Parameter(Tensor([[1.0, 2.0], [3.0, 4.0]]), name="param")
    assert p.init_data() is p
    assert p.init_data(layout=([1], [0], [2, 2], 0, True, "")) is p
    with pytest.raises(TypeError, match="layout"):
        p.init_data(layout=[1, 2, 3, 4, 5, 6])
    with pytest.raises(ValueError, match="layout"):
        p.init_data(layout=(1, 2, 3))
    with pytest.raises(TypeError, match="set_sliced"):
        p.init_data(set_sliced="yes")
    assert p.asnumpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


# ------------------------------------------------------------------- copies
def test_parameter_clone_same_copies_values_and_settings():
    p = _param((1.0, 2.0), name="w", requires_grad=False, layerwise_parallel=True)
    p.comm_fusion = 3
    p.parallel_optimizer = False
    p.parallel_optimizer_comm_recompute = True
    p.cache_enable = True
    p.cache_shape = (2,)
    p.unique = True
    p.sliced = True
    p.add_pipeline_stage(3)
    c = p.clone()
    assert c is not p and type(c) is Parameter
    assert repr(c) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=False)"
    assert (c.layerwise_parallel, c.comm_fusion, c.parallel_optimizer) == (True, 3, False)
    assert c.parallel_optimizer_comm_recompute is True
    assert c.cache_enable is True and c.cache_shape == [2]
    # These start afresh, as in MindSpore.
    assert c.unique is False and c.sliced is False and c.pipeline_stages == []
    assert c.key != p.key
    c.set_data(Tensor([5.0, 5.0]))
    c[1] = 7.0
    assert p.asnumpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("init, expected", [
    ("zeros", [0.0, 0.0]), ("ones", [1.0, 1.0]), (7, [7.0, 7.0]), (Tensor([6.0, 6.0]), [6.0, 6.0]),
    (Tensor([6, 6]), [6.0, 6.0]),
])
def test_parameter_clone_with_init(init, expected):
    p = _param(name="w")
    c = p.clone(init)
    assert c.name == "w" and c.dtype is ms.float32
    assert c.asnumpy().tolist() == expected
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_parameter_clone_with_init_on_int_parameter_truncates():
    i = Parameter(Tensor([1, 2]), name="i")
    assert i.clone("ones").asnumpy().tolist() == [1, 1]
    assert i.clone(7.5).asnumpy().tolist() == [7, 7]


def test_parameter_clone_bad_init():
    p = _param(name="w")
    with pytest.raises(ValueError, match="shape"):
        p.clone(Tensor([6.0, 6.0, 6.0]))
    with pytest.raises(ValueError, match="bogus"):
        p.clone("bogus")
    with pytest.raises(TypeError, match="init"):
        p.clone(None)


def test_parameter_copy_is_clone_same():
    p = _param(name="w")
    c = p.copy()
    assert type(c) is Parameter and c is not p
    assert c.name == "w" and c.asnumpy().tolist() == [1.0, 2.0]
    c.set_data(Tensor([0.0, 0.0]))
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_parameter_clone_on_every_backend(backend):
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    for c in (p.clone(), p.clone("zeros"), p.copy()):
        if backend.device is not None:
            assert c._data.device == backend.device
    assert p.clone().asnumpy().tolist() == [1.0, 2.0]
    assert p.clone("zeros").asnumpy().tolist() == [0.0, 0.0]


def test_parameter_copy_module_and_pickle_round_trip():
    p = _param((1.0, 2.0), name="w", requires_grad=False)
    p.comm_fusion = 4
    for other in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(other) is Parameter and other is not p
        assert repr(other) == repr(p)
        assert other.comm_fusion == 4
        assert other.asnumpy().tolist() == [1.0, 2.0]
    shared = [p, p]
    twin = copy.deepcopy(shared)
    assert twin[0] is twin[1] and twin[0] is not p


# ------------------------------------------------------------ ParameterTuple
def test_parameter_tuple_is_a_tuple_with_mindspore_repr():
    x = _param(name="x")
    pt = ParameterTuple([x])
    assert isinstance(pt, tuple) and pt[0] is x and len(pt) == 1
    assert repr(pt) == "(Parameter (name=x, shape=(2,), dtype=Float32, requires_grad=True),)"


def test_parameter_tuple_alone_renames_nothing():
    a, b = Parameter(Tensor([3.0])), Parameter(Tensor([4.0]))
    names = [a.name, b.name]
    pt = ParameterTuple([a, b])
    assert [p.name for p in pt] == names


def test_parameter_tuple_rule3_duplicate_names_raise():
    param_a = Parameter(Tensor([1], ms.float32), name="name_a")
    other = Parameter(Tensor([5], ms.float32), name="name_a")
    with pytest.raises(ValueError, match="its name 'name_a' already exists"):
        ParameterTuple((param_a, other, Parameter(Tensor([6], ms.float32))))


def test_parameter_tuple_rule4_same_object_checked_once():
    param_a = Parameter(Tensor([1], ms.float32), name="name_a")
    pt = ParameterTuple((param_a, param_a))
    assert [p.name for p in pt] == ["name_a", "name_a"]


def test_parameter_tuple_refuses_non_parameters():
    with pytest.raises(TypeError, match="index 1.*int"):
        ParameterTuple([_param(name="a"), 2])
    with pytest.raises(TypeError, match="Tensor"):
        ParameterTuple([_param(name="a"), Tensor([1.0])])
    with pytest.raises(TypeError, match="single Parameter"):
        ParameterTuple(_param(name="a"))


def test_parameter_tuple_rule2_name_members_gives_dollar_names():
    a, b = Parameter(Tensor([3], ms.float32)), Parameter(Tensor([4], ms.float32))
    named = Parameter(Tensor([5.0]), name="named")
    pt = ParameterTuple([a, named, b, a])
    assert pt.name_members() == 3
    assert [p.name for p in pt] == ["Parameter$1", "named", "Parameter$2", "Parameter$1"]
    assert not a.name_was_generated
    # A Cell's counter runs across its tuples; renamed members are not renamed again.
    second = ParameterTuple([Parameter(Tensor([6.0])), a])
    assert second.name_members(3) == 4
    assert [p.name for p in second] == ["Parameter$3", "Parameter$1"]


def test_parameter_tuple_name_members_clash_renames_nothing():
    taken = Parameter(Tensor([1.0]), name="Parameter$1")
    fresh = Parameter(Tensor([2.0]))
    old = fresh.name
    pt = ParameterTuple([taken, fresh])
    with pytest.raises(ValueError, match="'Parameter\\$1' already exists"):
        pt.name_members()
    assert fresh.name == old


def test_parameter_tuple_clone_prefixes_names():
    x = Parameter(Tensor(np.array([[1, 2], [3, 4]], dtype=np.float32)), name="param")
    y = Parameter(Tensor(np.array([[5, 6], [7, 8]], dtype=np.float32)), name="param1", requires_grad=False)
    pt = ParameterTuple([x, y])
    new = pt.clone(prefix="new")
    assert type(new) is ParameterTuple
    assert repr(new) == (
        "(Parameter (name=new.param, shape=(2, 2), dtype=Float32, requires_grad=True), "
        "Parameter (name=new.param1, shape=(2, 2), dtype=Float32, requires_grad=False))")
    assert new[0] is not x and new[0].asnumpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert [p.name for p in pt] == ["param", "param1"]
    assert pt.clone("z", init="zeros")[1].asnumpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert pt.clone("five", init=5)[0].asnumpy().tolist() == [[5.0, 5.0], [5.0, 5.0]]


def test_parameter_tuple_clone_keeps_repeated_members_shared():
    x = _param(name="x")
    new = ParameterTuple([x, x]).clone("c")
    assert new[0] is new[1] and new[0].name == "c.x"


@pytest.mark.parametrize("prefix", ["a.b", "1a", "_a", "layer_1"])
def test_parameter_tuple_clone_accepts_valid_prefixes(prefix):
    assert ParameterTuple([_param(name="w")]).clone(prefix)[0].name == f"{prefix}.w"


@pytest.mark.parametrize("prefix", ["", "a b", "a-b", ".a"])
def test_parameter_tuple_clone_refuses_invalid_prefixes(prefix):
    with pytest.raises(ValueError, match="prefix"):
        ParameterTuple([_param(name="w")]).clone(prefix)


@pytest.mark.parametrize("prefix", [None, 5])
def test_parameter_tuple_clone_prefix_must_be_str(prefix):
    with pytest.raises(TypeError, match="prefix"):
        ParameterTuple([_param(name="w")]).clone(prefix)


def test_parameter_tuple_pickles_and_deep_copies():
    pt = ParameterTuple([_param(name="a"), _param(name="b")])
    for other in (pickle.loads(pickle.dumps(pt)), copy.deepcopy(pt)):
        assert type(other) is ParameterTuple
        assert [p.name for p in other] == ["a", "b"]
        assert other[0] is not pt[0]
