"""Traversal: walking a Cell tree for its sub-Cells, Parameters, buffers, names and scopes."""
from collections import OrderedDict

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from cellkit import Parameter, Tensor
from cellkit.common.initializer import One, initializer


def param(name, requires_grad=True, **kwargs):
    return Parameter(Tensor(np.ones(1, np.float32)), name=name, requires_grad=requires_grad, **kwargs)


class Leaf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = param("w")
        self.frozen = param("frozen", requires_grad=False)
        self.split = param("split", layerwise_parallel=True)
        self.register_buffer("count", ms.tensor([0]))

    def construct(self, x):
        return x


class Mid(nn.Cell):
    def __init__(self, shared):
        super().__init__()
        self.a = shared
        self.b = shared  # the same Cell under a second name
        self.m = param("m")

    def construct(self, x):
        return x


class Top(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mid = Mid(Leaf())
        self.leaf = Leaf()
        self.register_buffer("top_buf", ms.tensor([9]))

    def construct(self, x):
        return x


# ---------------------------------------------------------------------- cells
def test_cells_returns_direct_children_once_each():
    top = Top()
    assert list(top.cells()) == [top.mid, top.leaf]
    assert list(top.mid.cells()) == [top.mid.a]  # shared under 'a' and 'b': listed once
    assert type(top.cells()).__name__ == "odict_values"


def test_name_cells_is_an_ordered_dict_of_direct_children():
    top = Top()
    assert top.name_cells() == OrderedDict([("mid", top.mid), ("leaf", top.leaf)])
    assert list(top.mid.name_cells()) == ["a"]
    top.leaf = None
    assert list(top.name_cells()) == ["mid"]


def test_cells_and_names_walks_the_tree_depth_first_visiting_shared_cells_once():
    top = Top()
    assert [n for n, _ in top.cells_and_names()] == ["", "mid", "mid.a", "leaf"]
    cells = [c for _, c in top.cells_and_names()]
    assert cells[0] is top and cells[2] is top.mid.a


def test_cells_and_names_name_prefix_and_cells_argument():
    top = Top()
    assert [n for n, _ in top.cells_and_names(name_prefix="net")] == ["net", "net.mid", "net.mid.a", "net.leaf"]
    # 'cells' is the set of Cells already visited: they are skipped, and the walk adds to it.
    visited = {top.mid}
    assert [n for n, _ in top.cells_and_names(cells=visited)] == ["", "leaf"]
    assert visited == {top, top.mid, top.leaf}


def test_get_sub_cell_follows_a_dotted_path():
    top = Top()
    assert top.get_sub_cell("mid.a") is top.mid.a
    assert top.get_sub_cell("leaf") is top.leaf
    assert top.get_sub_cell("") is top


@pytest.mark.parametrize("target", ["abc", "mid.zz", "mid.m", "leaf.w.x"])
def test_get_sub_cell_missing_raises_attribute_error(target):
    with pytest.raises(AttributeError, match="has no sub cell"):
        Top().get_sub_cell(target)


# ----------------------------------------------------------------- parameters
ALL_PATHS = ["mid.m", "mid.a.w", "mid.a.frozen", "mid.a.split", "leaf.w", "leaf.frozen", "leaf.split"]


def test_parameters_and_names_yields_attribute_paths_each_parameter_once():
    top = Top()
    assert [n for n, _ in top.parameters_and_names()] == ALL_PATHS
    assert [n for n, _ in top.parameters_and_names(name_prefix="net")] == ["net." + p for p in ALL_PATHS]


def test_parameters_and_names_expand_false_gives_only_own_parameters():
    top = Top()
    assert list(top.parameters_and_names(expand=False)) == []
    assert [n for n, _ in top.mid.parameters_and_names(expand=False)] == ["m"]


def test_get_parameters_expand():
    top = Top()
    assert [p.name for p in top.get_parameters()] == ALL_PATHS
    assert list(top.get_parameters(expand=False)) == []
    assert [p.name for p in top.mid.get_parameters(expand=False)] == ["mid.m"]
    assert iter(top.get_parameters()) is not None


def test_get_parameters_yields_a_parameter_shared_by_two_cells_once():
    shared = param("shared")
    a, b = nn.Cell(), nn.Cell()
    a.p = shared
    b.p = shared
    holder = nn.Cell()
    holder.a, holder.b = a, b
    assert list(holder.get_parameters()) == [shared]


def test_parameters_dict_is_keyed_by_parameter_name():
    top = Top()
    assert list(top.parameters_dict()) == ALL_PATHS
    assert list(top.parameters_dict(recurse=False)) == []
    assert list(top.mid.parameters_dict(recurse=False)) == ["mid.m"]
    # Keys are the Parameters' names, not attribute paths: an auto_prefix=False wrapper keeps them.
    wrapper = nn.Cell(auto_prefix=False)
    wrapper.net = nn.Dense(2, 2)
    assert list(wrapper.parameters_dict()) == ["weight", "bias"]
    assert [n for n, _ in wrapper.parameters_and_names()] == ["net.weight", "net.bias"]


def test_parameters_broadcast_dict_leaves_out_layerwise_parallel_parameters():
    top = Top()
    expected = [p for p in ALL_PATHS if not p.endswith("split")]
    assert list(top.parameters_broadcast_dict()) == expected
    assert list(top.mid.parameters_broadcast_dict(recurse=False)) == ["mid.m"]
    assert top.parameters_broadcast_dict(recurse=False) is None  # nothing to broadcast (as MindSpore)


def test_trainable_and_untrainable_params():
    top = Top()
    assert [p.name for p in top.trainable_params()] == [p for p in ALL_PATHS if "frozen" not in p]
    assert [p.name for p in top.untrainable_params()] == ["mid.a.frozen", "leaf.frozen"]
    assert [p.name for p in top.mid.trainable_params(recurse=False)] == ["mid.m"]
    assert top.mid.untrainable_params(recurse=False) == []
    top.leaf.w.requires_grad = False
    assert "leaf.w" in [p.name for p in top.untrainable_params()]
    assert isinstance(top.trainable_params(), list)


# -------------------------------------------------------------------- buffers
def test_buffers_and_named_buffers():
    top = Top()
    assert [n for n, _ in top.named_buffers()] == ["top_buf", "mid.a.count", "leaf.count"]
    assert [n for n, _ in top.named_buffers(prefix="net")] == ["net.top_buf", "net.mid.a.count", "net.leaf.count"]
    assert [n for n, _ in top.named_buffers(recurse=False)] == ["top_buf"]
    assert [b.asnumpy().tolist() for b in top.buffers()] == [[9], [0], [0]]
    assert [b.asnumpy().tolist() for b in top.buffers(recurse=False)] == [[9]]


def test_named_buffers_remove_duplicate():
    net = nn.Cell()
    shared = ms.tensor([1])
    net.register_buffer("a", shared)
    net.register_buffer("b", shared)
    assert [n for n, _ in net.named_buffers()] == ["a"]
    assert [n for n, _ in net.named_buffers(remove_duplicate=False)] == ["a", "b"]


def test_get_buffer_follows_a_dotted_path():
    top = Top()
    assert top.get_buffer("leaf.count") is top.leaf.count
    assert top.get_buffer("top_buf") is top.top_buf
    with pytest.raises(AttributeError):
        top.get_buffer("leaf.w")  # a Parameter, not a buffer
    with pytest.raises(AttributeError):
        top.get_buffer("nothing.count")
    with pytest.raises(AttributeError):
        top.get_buffer("leaf.nothing")


# ------------------------------------------------------------- names & prefixes
def test_param_prefix_and_update_cell_prefix():
    top = Top()
    assert top.leaf.param_prefix == ""
    top.update_cell_prefix()
    assert [c.param_prefix for _, c in top.cells_and_names()] == ["", "mid", "mid.a", "leaf"]


def test_update_parameters_name_prefix_and_recurse():
    top = Top()
    top.update_parameters_name("pre.")
    assert [p.name for p in top.get_parameters()] == ["pre." + p for p in ALL_PATHS]
    holder = nn.Cell()
    holder.m = param("m")
    holder.leaf = Leaf()
    holder.update_parameters_name("x.", recurse=False)
    assert [p.name for p in holder.get_parameters()] == ["x.m", "leaf.w", "leaf.frozen", "leaf.split"]


def test_update_parameters_name_checks_the_prefix():
    top = Top()
    with pytest.raises(TypeError):
        top.update_parameters_name(3)
    with pytest.raises(ValueError, match="illegal"):
        top.update_parameters_name("a b")
    assert [p.name for p in top.get_parameters()] == ALL_PATHS


def test_init_parameters_data_initialises_lazy_parameters():
    # A Parameter declared with a dynamic shape and then given an initializer stays lazy.
    lazy = Parameter(Tensor(shape=[None, 3], dtype=ms.float32), name="w")
    lazy.set_data(initializer(One(), (2, 3), ms.float32))
    net = nn.Cell()
    net.w = lazy
    net.b = Parameter(initializer("zeros", (3,), ms.float32), name="b")
    assert net.w.has_init and not net.b.has_init
    result = net.init_parameters_data()
    assert not net.w.has_init
    np.testing.assert_array_equal(net.w.asnumpy(), np.ones((2, 3), np.float32))
    assert result == {net.w: net.w, net.b: net.b}


def test_scope_generate_scope_and_get_scope():
    top = Top()
    assert top.get_scope() is None
    top.generate_scope()
    assert [c.get_scope() for _, c in top.cells_and_names()] == [
        None, "Default/mid-Mid", "Default/mid-Mid/a-Leaf", "Default/leaf-Leaf"]


def test_check_names_duplicate_parameter_names_raise_value_error():
    Top().check_names()  # unique: nothing raised
    net = nn.Cell(auto_prefix=False)
    net.one = nn.Dense(1, 1)
    net.two = nn.Dense(1, 1)  # both keep 'weight' and 'bias'
    with pytest.raises(ValueError, match="'weight'.*already exists"):
        net.check_names()


def test_remove_redundant_parameters_drops_empty_slots():
    top = Top()
    top.leaf.w = None
    top.remove_redundant_parameters()
    assert "w" not in top.leaf._params
    assert [p.name for p in top.get_parameters()] == [p for p in ALL_PATHS if p != "leaf.w"]
