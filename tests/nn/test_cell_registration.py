"""Registration and naming: what assigning an attribute of a Cell does.

Behaviour checked against MindSpore 2.10 where the spec is silent (see
MINDSPORE_NOTES.md); deliberate differences are named in the test.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit import Parameter, ParameterTuple, Tensor


def param(values=(1.0,), name=None, **kwargs):
    return Parameter(Tensor(np.array(values, np.float32)), name=name, **kwargs)


class Empty(nn.Cell):
    def construct(self, x):
        return x


# ---------------------------------------------------------------- __setattr__
def test_setattr_registers_parameter_cell_and_buffer():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = param(name="w")
            self.dense = nn.Dense(2, 2)
            self.counts = nn.Buffer(ms.tensor([1, 2, 3]))
            self.plain = 3

        def construct(self, x):
            return x

    net = Net()
    assert list(net._params) == ["w"]
    assert list(net.name_cells()) == ["dense"]
    assert [n for n, _ in net.named_buffers()] == ["counts"]
    assert net.plain == 3 and "plain" not in net._params
    assert [p.name for p in net.get_parameters()] == ["w", "dense.weight", "dense.bias"]
    assert list(net.state_dict()) == ["w", "counts", "dense.weight", "dense.bias"]


def test_setattr_attribute_reads_return_the_registered_objects():
    net = Empty()
    w, child, buf = param(name="w"), nn.ReLU(), nn.Buffer(ms.tensor([1]))
    net.w, net.child, net.buf = w, child, buf
    assert net.w is w and net.child is child and net.buf is buf
    assert net._params["w"] is w and net._cells["child"] is child and net._buffers["buf"] is buf


def test_setattr_before_super_init_raises_attribute_error():
    class ParamFirst(nn.Cell):
        def __init__(self):
            self.w = param()
            super().__init__()

    class CellFirst(nn.Cell):
        def __init__(self):
            self.d = nn.Dense(1, 1)
            super().__init__()

    class PlainFirst(nn.Cell):
        def __init__(self):
            self.k = 3  # plain values are fine before __init__ (as in MindSpore)
            super().__init__()

    with pytest.raises(AttributeError, match="Cell.__init__"):
        ParamFirst()
    with pytest.raises(AttributeError, match="Cell.__init__"):
        CellFirst()
    assert PlainFirst().k == 3


def test_setattr_tensor_over_parameter_sets_its_data():
    net = Empty()
    net.w = param([1.0, 2.0], name="w")
    w = net.w
    net.w = ms.Tensor([5.0, 6.0])
    assert net.w is w and isinstance(net.w, Parameter)
    assert net.w.asnumpy().tolist() == [5.0, 6.0]
    assert net.parameters_dict()["w"] is w


def test_setattr_non_tensor_over_parameter_raises_type_error():
    net = Empty()
    net.w = param(name="w")
    with pytest.raises(TypeError, match="Parameter 'w' already exists"):
        net.w = 3
    assert isinstance(net.w, Parameter)


def test_setattr_none_over_parameter_keeps_the_slot_empty():
    net = Empty()
    net.w = param(name="w")
    net.w = None
    assert net.w is None
    assert list(net.get_parameters()) == [] and list(net.state_dict()) == []


def test_setattr_plain_tensor_over_buffer_raises_type_error():
    net = Empty()
    net.register_buffer("stats", ms.tensor([1, 2]))
    with pytest.raises(TypeError, match="Buffer 'stats' already exists"):
        net.stats = ms.tensor([3, 4])
    with pytest.raises(TypeError, match="Buffer 'stats' already exists"):
        net.stats = 5
    assert net.stats.asnumpy().tolist() == [1, 2]
    assert net._buffers["stats"] is net.stats


def test_setattr_buffer_over_buffer_replaces_it_and_keeps_persistence():
    net = Empty()
    net.register_buffer("hidden", ms.tensor([1]), persistent=False)
    net.hidden = nn.Buffer(ms.tensor([7]))
    assert net.hidden.asnumpy().tolist() == [7]
    assert "hidden" not in net.state_dict()


def test_setattr_non_cell_over_cell_raises_type_error_and_none_empties_it():
    net = Empty()
    net.d = nn.Dense(1, 1)
    with pytest.raises(TypeError, match="Sub cell 'd' already exists"):
        net.d = 3
    net.d = None
    assert net.d is None
    assert list(net.cells()) == [] and list(net.get_parameters()) == []


def test_setattr_one_name_cannot_mean_two_kinds():
    net = Empty()
    net.d = nn.Dense(1, 1)
    net.w = param(name="w")
    net.register_buffer("b", ms.tensor([1]))
    with pytest.raises(KeyError, match="already"):
        net.d = param()
    with pytest.raises(KeyError, match="already"):
        net.w = nn.ReLU()
    with pytest.raises(KeyError, match="already"):
        net.b = param()
    with pytest.raises(KeyError, match="already"):
        net.w = nn.Buffer(ms.tensor([1]))
    # Nothing changed.
    assert isinstance(net.d, nn.Dense) and isinstance(net.w, Parameter)
    assert [p.name for p in net.get_parameters()] == ["w", "d.weight", "d.bias"]


def test_setattr_plain_attribute_is_replaced_by_a_registration():
    net = Empty()
    net.slot = 3
    net.slot = param(name="slot")
    assert net._params["slot"] is net.slot
    net.other = "x"
    net.other = nn.ReLU()
    assert net.name_cells()["other"] is net.other


def test_setattr_cast_phase_cells_are_refused_as_the_spec_warns():
    with pytest.raises(TypeError, match="'cast'"):
        class WithCast(nn.Cell):  # noqa: F841
            def cast(self, x):
                return x

    with pytest.raises(TypeError, match="'phase'"):
        class WithPhase(nn.Cell):  # noqa: F841
            phase = "mine"

    with pytest.raises(TypeError, match="'cells'"):
        class WithCells(nn.Cell):  # noqa: F841
            cells = []

    net = Empty()
    with pytest.raises(AttributeError, match="cells"):
        net.cells = [nn.ReLU()]
    with pytest.raises(TypeError, match="phase"):
        net.phase = 3
    assert callable(net.cells)


def test_delattr_removes_every_kind_of_registration():
    net = Empty()
    net.w = param(name="w")
    net.d = nn.Dense(1, 1)
    net.register_buffer("b", ms.tensor([1]))
    net.pt = ParameterTuple([param(), param()])
    del net.w, net.d, net.b, net.pt
    assert list(net.get_parameters()) == []
    assert list(net.cells()) == [] and list(net.buffers()) == []
    assert list(net.state_dict()) == []
    for name in ("w", "d", "b", "pt"):
        assert not hasattr(net, name)
    with pytest.raises(AttributeError):
        del net.never_set


# ------------------------------------------------------------------ auto_prefix
class Backbone(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = nn.Dense(2, 2)

    def construct(self, x):
        return self.net(x)


class Wrapper(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.net = net

    def construct(self, x):
        return self.net(x)


def test_auto_prefix_true_renames_parameters_by_attribute_path():
    assert [p.name for p in Backbone().get_parameters()] == ["net.weight", "net.bias"]


def test_auto_prefix_false_wrapper_leaves_names_alone():
    backbone = Backbone()
    wrapped = Wrapper(backbone)
    assert [p.name for p in wrapped.get_parameters()] == ["net.weight", "net.bias"]
    assert [p.name for p in Wrapper(nn.Dense(2, 2)).get_parameters()] == ["weight", "bias"]
    # parameters_and_names still yields attribute paths.
    assert [n for n, _ in wrapped.parameters_and_names()] == ["net.net.weight", "net.net.bias"]


def test_auto_prefix_false_cell_inside_normal_cell_is_renamed_by_path():
    class Body(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.w = param(name="w")

        def construct(self, x):
            return x

    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.body = Body()

        def construct(self, x):
            return x

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, x):
            return x

    assert [p.name for p in Outer().get_parameters()] == ["inner.body.w"]


def test_auto_prefix_accepts_any_truthy_value_as_mindspore():
    # MindSpore 2.10 takes auto_prefix as it is given: 1 prefixes, 0 does not.
    outer, inner = nn.Cell(auto_prefix=1), nn.Dense(1, 1)
    outer.inner = inner
    assert inner.weight.name == "inner.weight"
    quiet, other = nn.Cell(auto_prefix=0), nn.Dense(1, 1)
    quiet.other = other
    assert other.weight.name == "weight"


# ---------------------------------------------------------- parameter naming
def test_naming_unnamed_attribute_takes_the_attribute_name():
    net = Empty()
    net.param_b = param()
    named = param(name="kept")
    net.param_c = named
    assert net.param_b.name == "param_b"
    assert named.name == "kept"


def test_naming_unnamed_in_parameter_tuple_gets_dollar_names_per_cell():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.first = ParameterTuple([param(), param()])
            self.second = ParameterTuple([param(), param(name="named")])

        def construct(self, x):
            return x

    net = Net()
    assert [p.name for p in net.first] == ["Parameter$1", "Parameter$2"]
    assert [p.name for p in net.second] == ["Parameter$3", "named"]
    # The counter is per Cell: a new Cell starts again at 1.
    assert [p.name for p in Net().first] == ["Parameter$1", "Parameter$2"]
    # The members are the Cell's Parameters, in the state dict too.
    assert list(net.parameters_dict()) == ["Parameter$1", "Parameter$2", "Parameter$3", "named"]
    assert list(net.state_dict()) == ["Parameter$1", "Parameter$2", "Parameter$3", "named"]
    assert getattr(net, "Parameter$1") is net.first[0]


def test_naming_parameter_tuple_members_are_prefixed_when_nested():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.pt = ParameterTuple([param()])

        def construct(self, x):
            return x

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Holder()

        def construct(self, x):
            return x

    outer = Outer()
    assert [p.name for p in outer.get_parameters()] == ["inner.Parameter$1"]
    assert list(outer.state_dict()) == ["inner.Parameter$1"]


def test_naming_unnamed_in_plain_list_keeps_hash_name_and_is_not_registered():
    net = Empty()
    net.plist = [param(), param()]
    names = [p.name for p in net.plist]
    assert all(n.startswith("Parameter#") for n in names)
    assert names[0] != names[1]
    assert list(net.get_parameters()) == [] and list(net.state_dict()) == []


@pytest.mark.parametrize("container", [list, tuple])
def test_naming_duplicate_names_in_one_list_raise_value_error(container):
    net = Empty()
    with pytest.raises(ValueError, match="'same' already exists"):
        net.items = container([param(name="same"), param(name="same")])
    assert not hasattr(net, "items")


def test_naming_duplicate_names_in_parameter_tuple_raise_value_error():
    with pytest.raises(ValueError, match="'same' already exists"):
        ParameterTuple([param(name="same"), param(name="same")])


def test_naming_same_object_twice_is_checked_once():
    net = Empty()
    shared = param(name="shared")
    net.items = [shared, shared]
    unnamed = param()
    net.pt = ParameterTuple([unnamed, unnamed])
    assert [p.name for p in net.pt] == ["Parameter$1", "Parameter$1"]
    assert list(net.parameters_dict()) == ["Parameter$1"]


def test_naming_reassigning_a_parameter_tuple_replaces_its_members():
    net = Empty()
    net.pt = ParameterTuple([param(name="a"), param(name="b")])
    net.pt = ParameterTuple([param(name="c")])
    assert list(net.parameters_dict()) == ["c"]
    net.pt = None
    assert list(net.parameters_dict()) == []


def test_naming_tuple_member_clashing_with_attribute_parameter_raises():
    net = Empty()
    net.w = param(name="w2")
    net.w2 = param(name="w")
    with pytest.raises(ValueError, match="already exists"):
        net.pt = ParameterTuple([param(name="w")])
    assert not hasattr(net, "pt")
    assert [p.name for p in net.get_parameters()] == ["w2", "w"]


def test_naming_two_attributes_with_one_name_do_not_raise_until_check_names():
    # The spec's own two-attribute example does not raise at assignment (as in MindSpore).
    net = Empty()
    net.a = param(name="same")
    net.b = param(name="same")
    with pytest.raises(ValueError, match="'same'.*already exists"):
        net.check_names()


# ---------------------------------------------------------- insert_* methods
def test_insert_param_to_cell_registers_and_names():
    net = Empty()
    net.insert_param_to_cell("bias", Parameter(Tensor([1, 2, 3])))
    assert net.bias.name == "bias" and list(net.parameters_dict()) == ["bias"]
    net.insert_param_to_cell("bias", None)
    assert net.bias is None and list(net.get_parameters()) == []


def test_insert_param_to_cell_errors():
    net = Empty()
    net.d = nn.ReLU()
    with pytest.raises(KeyError):
        net.insert_param_to_cell("", param())
    with pytest.raises(KeyError, match="'.'"):
        net.insert_param_to_cell("a.b", param())
    with pytest.raises(TypeError, match="Parameter"):
        net.insert_param_to_cell("w", ms.tensor([1.0]))
    with pytest.raises(TypeError, match="str"):
        net.insert_param_to_cell(3, param())
    with pytest.raises(KeyError, match="already exists"):
        net.insert_param_to_cell("d", param())
    with pytest.raises(KeyError, match="already exists"):
        net.insert_param_to_cell("construct", param())
    assert list(net.get_parameters()) == []


def test_insert_param_to_cell_dot_allowed_when_check_is_off():
    net = Empty()
    p = param(name="a.b")
    net.insert_param_to_cell("a.b", p, check_name_contain_dot=False)
    assert net.parameters_dict() == {"a.b": p}
    assert getattr(net, "a.b") is p


def test_insert_child_to_cell_registers_without_renaming():
    parent = nn.ReLU()
    child = nn.Dense(2, 2)
    parent.insert_child_to_cell("child", child)
    assert parent.child is child and list(parent.name_cells()) == ["child"]
    # As MindSpore: inserting does not rename; parameters_and_names gives the path.
    assert [p.name for p in parent.get_parameters()] == ["weight", "bias"]
    assert [n for n, _ in parent.parameters_and_names()] == ["child.weight", "child.bias"]
    assert repr(parent) == "ReLU(\n  (child): Dense(input_channels=2, output_channels=2, has_bias=True)\n)"


def test_insert_child_to_cell_errors():
    net = Empty()
    net.w = param(name="w")
    with pytest.raises(TypeError, match="str"):
        net.insert_child_to_cell(1, nn.ReLU())
    with pytest.raises(KeyError):
        net.insert_child_to_cell("", nn.ReLU())
    with pytest.raises(KeyError):
        net.insert_child_to_cell("a.b", nn.ReLU())
    with pytest.raises(TypeError, match="Cell"):
        net.insert_child_to_cell("c", ops.relu)
    with pytest.raises(KeyError, match="already exists"):
        net.insert_child_to_cell("w", nn.ReLU())
    assert list(net.cells()) == []


# ---------------------------------------------------------------- buffers
def test_register_buffer_holds_the_tensor_itself():
    net = Empty()
    t = ms.tensor([1, 2, 3])
    net.register_buffer("buffer0", t)
    assert net.buffer0 is t and net.get_buffer("buffer0") is t
    assert list(net.state_dict()) == ["buffer0"]


def test_register_buffer_non_persistent_is_left_out_of_state_dict():
    net = Empty()
    net.register_buffer("kept", ms.tensor([1]))
    net.register_buffer("scratch", ms.tensor([2]), persistent=False)
    assert [n for n, _ in net.named_buffers()] == ["kept", "scratch"]
    assert list(net.state_dict()) == ["kept"]


def test_register_buffer_none_is_registered_but_not_saved():
    net = Empty()
    net.register_buffer("later", None)
    assert net.later is None
    assert list(net.buffers()) == [] and list(net.state_dict()) == []
    net.later = None  # None may replace None


def test_register_buffer_type_errors():
    net = Empty()
    with pytest.raises(TypeError, match="buffer 'x'"):
        net.register_buffer("x", 3)
    with pytest.raises(TypeError, match="str"):
        net.register_buffer(3, ms.tensor([1]))
    assert list(net.buffers()) == []


def test_register_buffer_key_errors():
    dense = nn.Dense(2, 2)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        dense.register_buffer("weight", ms.tensor([1]))
    with pytest.raises(KeyError, match=r"\."):
        dense.register_buffer("a.b", ms.tensor([1]))
    with pytest.raises(KeyError, match="empty"):
        dense.register_buffer("", ms.tensor([1]))
    net = Empty()
    net.child = nn.ReLU()
    net.plain = 1
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("child", ms.tensor([1]))
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("plain", ms.tensor([1]))
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("construct", ms.tensor([1]))
    assert list(dense.buffers()) == [] and list(net.buffers()) == []


def test_register_buffer_again_replaces_the_buffer():
    net = Empty()
    net.register_buffer("b", ms.tensor([1]))
    net.register_buffer("b", ms.tensor([7]))
    assert net.b.asnumpy().tolist() == [7]
    assert len(list(net.buffers())) == 1


def test_buffer_assignment_over_plain_attribute_registers_it():
    net = Empty()
    net.stats = 0
    net.stats = nn.Buffer(ms.tensor([1, 2]))
    assert [n for n, _ in net.named_buffers()] == ["stats"]


def test_buffer_is_a_tensor_that_computes():
    buf = nn.Buffer(ms.tensor([1.0, 2.0]))
    assert isinstance(buf, Tensor)
    assert (buf + 1).asnumpy().tolist() == [2.0, 3.0]
    assert repr(buf) == repr(ms.tensor([1.0, 2.0]))


# ------------------------------------------------------------------ containers
def test_containers_name_children_parameters_by_index_and_inherited_prefix():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(1, 1)])
            self.blocks = nn.CellDict({"a": nn.Dense(1, 1)})
            self.seq = nn.SequentialCell(nn.Dense(1, 1), nn.Dense(1, 1))

        def construct(self, x):
            return x

    net = Holder()
    net.layers.append(nn.Dense(1, 1))  # joins after the list joined the Holder: takes its prefix
    net.blocks["b"] = nn.Dense(1, 1)
    del net.seq[0]  # the rest are renumbered
    assert [p.name for p in net.get_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
        "blocks.a.weight", "blocks.a.bias", "blocks.b.weight", "blocks.b.bias",
        "seq.0.weight", "seq.0.bias"]


def test_containers_empty_list_appends_are_named_by_index_only():
    # As in MindSpore: with no Parameter to read the prefix from, only the index is added.
    holder = nn.Cell()
    holder.layers = nn.CellList()
    holder.layers.append(nn.Dense(1, 1))
    assert [p.name for p in holder.get_parameters()] == ["0.weight", "0.bias"]
