"""Flags, modes, mixed precision, declared inputs, printing and custom bprop of a Cell."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit import Parameter, Tensor


def f32(*shape, value=1.0):
    return Tensor(np.full(shape, value, np.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seq = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU())
        self.head = nn.Dense(2, 1)

    def construct(self, x):
        return self.head(self.seq(x))


# ---------------------------------------------------------------------- flags
def test_add_flags_sets_attributes_and_get_flags_lists_them():
    net = Net()
    assert net.add_flags(sink_mode=True, level=2) is net
    assert net.sink_mode is True and net.level == 2
    assert net.get_flags() == {"sink_mode": True, "level": 2}
    assert net.seq.get_flags() == {}


def test_add_flags_recursive_reaches_every_cell():
    net = Net()
    net.add_flags_recursive(frozen=True)
    for _, cell in net.cells_and_names():
        assert cell.frozen is True and cell.get_flags()["frozen"] is True


def test_flags_argument_of_cell_init_adds_flags():
    cell = nn.Cell(flags={"dataset": "mnist"})
    assert cell.dataset == "mnist" and cell.get_flags() == {"dataset": "mnist"}
    with pytest.raises(TypeError, match="flags"):
        nn.Cell(flags=3)


def test_add_flags_takes_keywords_only():
    with pytest.raises(TypeError):
        Net().add_flags({"a": 1})


# ---------------------------------------------------------------------- apply
def test_apply_visits_children_first_then_self_and_returns_self():
    net = Net()
    order = []
    assert net.apply(lambda c: order.append(type(c).__name__)) is net
    assert order == ["Dense", "ReLU", "SequentialCell", "Dense", "Net"]


def test_apply_can_initialise_weights():
    net = nn.SequentialCell(nn.Dense(2, 2), nn.Dense(2, 2))

    def ones(cell):
        if isinstance(cell, nn.Dense):
            cell.weight.set_data(ops.ones(cell.weight.shape, cell.weight.dtype))

    net.apply(ones)
    assert all(np.all(c.weight.asnumpy() == 1) for c in net)
    with pytest.raises(TypeError, match="callable"):
        net.apply(3)


# ---------------------------------------------------------------- train / grad
def test_set_train_cells_start_in_inference_mode():
    net = Net()
    assert [c.training for _, c in net.cells_and_names()] == [False] * 5
    assert net.phase == "train"  # MindSpore 2.10: a new Cell's phase is 'train' until set_train says otherwise


def test_set_train_propagates_to_every_cell_and_returns_self():
    net = Net()
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    assert net.phase == "train" and net.seq[0].phase == "train"
    assert net.seq[0].get_flags()["training"] is True  # recorded as a flag, as in MindSpore
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    assert net.get_flags()["training"] is False and net.phase == "predict"


def test_set_train_on_a_child_leaves_the_parent():
    net = Net()
    net.seq.set_train(True)
    assert net.seq.training and net.seq[0].training and not net.training and not net.head.training


def test_set_train_training_branch_is_taken():
    class Branchy(nn.Cell):
        def construct(self, x):
            return x * 2 if self.training else x

    net = Branchy()
    x = f32(2)
    assert net(x).asnumpy().tolist() == [1.0, 1.0]
    assert net.set_train()(x).asnumpy().tolist() == [2.0, 2.0]


def test_set_grad_marks_only_this_cell_and_returns_self():
    net = Net()
    assert net.requires_grad is False
    assert net.set_grad() is net
    assert net.requires_grad is True and net.seq.requires_grad is False
    net.set_grad(False)
    assert net.requires_grad is False


def test_set_train_and_set_grad_refuse_non_bools():
    with pytest.raises(TypeError):
        Net().set_train("yes")
    with pytest.raises(TypeError):
        Net().set_grad("yes")


# ------------------------------------------------------------------- to_float
class Recorder(nn.Cell):
    """Records the dtype its input arrives in."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((2, 2), np.float32)), name="w")
        self.seen = None

    def construct(self, x):
        self.seen = x.dtype
        return ops.matmul(x, self.w)


class Parent(nn.Cell):
    def __init__(self):
        super().__init__()
        self.child = Recorder()

    def construct(self, x):
        return self.child(x)


@pytest.mark.parametrize("dtype", [ms.float16, ms.float32, ms.bfloat16])
def test_to_float_runs_the_cell_in_the_given_type(dtype):
    net = Parent()
    assert net.to_float(dtype) is net
    out = net(f32(2, 2))
    assert net.child.seen == dtype and out.dtype == dtype
    assert net.child.w.dtype == ms.float32  # the Parameter itself keeps its dtype


@pytest.mark.parametrize("bad", [ms.int32, ms.float64, "float16", None])
def test_to_float_other_types_raise_value_error(bad):
    net = Parent()
    with pytest.raises(ValueError, match="dst_type"):
        net.to_float(bad)
    assert net(f32(2, 2)).dtype == ms.float32  # nothing was set


def test_to_float_most_recent_call_wins_even_a_parents_after_its_childrens():
    net = Parent()
    net.child.to_float(ms.float32)
    net.to_float(ms.float16)
    assert net(f32(2, 2)).dtype == ms.float16
    net = Parent()
    net.to_float(ms.float16)
    net.child.to_float(ms.float32)
    assert net(f32(2, 2)).dtype == ms.float32
    assert net.child.seen == ms.float32


def test_to_float_leaves_integer_inputs_alone():
    class Pair(nn.Cell):
        def construct(self, x, idx):
            return x, idx

    x, idx = Pair().to_float(ms.float16)(f32(2), ms.tensor([1, 2]))
    assert x.dtype == ms.float16 and idx.dtype == ms.int64


def test_to_float_dense_and_conv2d_compute_in_float16():
    dense = nn.Dense(3, 2).to_float(ms.float16)
    out = dense(f32(4, 3))
    assert out.dtype == ms.float16 and dense.weight.dtype == ms.float32
    expected = (np.ones((4, 3), np.float16) @ dense.weight.asnumpy().astype(np.float16).T
                + dense.bias.asnumpy().astype(np.float16))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-3)
    conv = nn.Conv2d(1, 2, 3, has_bias=True).to_float(ms.float16)
    out = conv(f32(1, 1, 4, 4))
    assert out.dtype == ms.float16 and out.shape == (1, 2, 4, 4) and conv.weight.dtype == ms.float32


def test_to_float_gradients_reach_the_float32_parameters():
    dense = nn.Dense(3, 2).to_float(ms.float16)
    grads = ms.grad(lambda x: dense(x).sum(), grad_position=None, weights=dense.trainable_params())(f32(4, 3))
    assert [g.dtype for g in grads] == [ms.float32, ms.float32]
    np.testing.assert_allclose(grads[0].asnumpy(), np.full((2, 3), 4.0))
    np.testing.assert_allclose(grads[1].asnumpy(), np.full((2,), 4.0))
    assert dense.weight.dtype == ms.float32 and isinstance(dense.weight, Parameter)


def test_cast_inputs_casts_floating_tensors_only():
    net = Net()
    x, i, other = net.cast_inputs((f32(2), ms.tensor([1]), "text"), ms.float16)
    assert x.dtype == ms.float16 and i.dtype == ms.int64 and other == "text"
    nested = net.cast_inputs(((f32(1), f32(1)),), ms.bfloat16)
    assert [t.dtype for t in nested[0]] == [ms.bfloat16, ms.bfloat16]


def test_auto_cast_inputs_follows_to_float():
    net = Net()
    x = f32(2)
    assert net.auto_cast_inputs((x,))[0] is x  # nothing set: unchanged
    net.to_float(ms.float16)
    assert net.auto_cast_inputs((x,))[0].dtype == ms.float16


def test_cast_param_gives_a_cast_for_computing_and_leaves_the_parameter():
    dense = nn.Dense(2, 2)
    assert dense.cast_param(dense.weight) is dense.weight
    dense.to_float(ms.float16)
    cast = dense.cast_param(dense.weight)
    assert cast.dtype == ms.float16 and dense.weight.dtype == ms.float32
    np.testing.assert_allclose(cast.asnumpy(), dense.weight.asnumpy().astype(np.float16))


def test_to_float_parameter_attribute_is_restored_after_the_call():
    net = Recorder().to_float(ms.float16)
    net(f32(2, 2))
    assert isinstance(net.w, Parameter) and net.w.dtype == ms.float32

    class Failing(Recorder):
        def construct(self, x):
            raise RuntimeError("boom")

    failing = Failing().to_float(ms.float16)
    with pytest.raises(RuntimeError, match="boom"):
        failing(f32(2, 2))
    assert isinstance(failing.w, Parameter)


# ----------------------------------------------------------------- set_inputs
class Add(nn.Cell):
    def construct(self, x, y):
        return x + y


def test_set_inputs_full_mode_with_dynamic_dims():
    net = Add()
    dyn = Tensor(shape=[3, None], dtype=ms.float32)
    net.set_inputs(dyn, Tensor(shape=[None, None], dtype=ms.float32))
    assert [t.shape for t in net.get_inputs()] == [(3, -1), (-1, -1)]
    assert net(f32(3, 4), f32(3, 4)).shape == (3, 4)
    assert net(f32(3, 7), f32(3, 7)).shape == (3, 7)


def test_set_inputs_incremental_mode_checks_only_the_named_inputs():
    net = Add()
    net.set_inputs(y=Tensor(shape=[None], dtype=ms.float32))
    assert [t.shape for t in net.get_inputs()] == [(-1,)]
    assert net(f32(3, 4), f32(4)).shape == (3, 4)
    assert net(f32(3, 4), y=f32(4)).shape == (3, 4)
    with pytest.raises(ValueError, match="'y'"):
        net(f32(3, 4), f32(3, 4))


@pytest.mark.parametrize("x, error, words", [
    (f32(2, 4), ValueError, ["'x'", "dimension 0 must be 3"]),
    (f32(3, 4, 1), ValueError, ["'x'", "rank 2", "rank 3"]),
    (Tensor(np.ones((3, 4), np.int32)), TypeError, ["'x'", "Float32", "Int32"]),
    (np.ones((3, 4), np.float32), TypeError, ["'x'", "Tensor"]),
])
def test_set_inputs_contradicting_call_raises_naming_the_input(x, error, words):
    net = Add()
    net.set_inputs(Tensor(shape=[3, None], dtype=ms.float32), Tensor(shape=[None, None], dtype=ms.float32))
    with pytest.raises(error) as info:
        net(x, f32(3, 4))
    for word in words:
        assert word in str(info.value)


def test_set_inputs_wrong_number_of_inputs_raises_value_error():
    net = Add()
    net.set_inputs(Tensor(shape=[None], dtype=ms.float32), Tensor(shape=[None], dtype=ms.float32))
    with pytest.raises(ValueError, match="2 input"):
        net(f32(2))


def test_set_inputs_argument_errors():
    net = Add()
    dyn = Tensor(shape=[None], dtype=ms.float32)
    with pytest.raises(ValueError, match="not both"):
        net.set_inputs(dyn, y=dyn)
    with pytest.raises(ValueError, match="'z'"):
        net.set_inputs(z=dyn)
    with pytest.raises(TypeError):
        net.set_inputs("x")
    assert net.get_inputs() is None


def test_set_inputs_later_call_replaces_the_declaration():
    net = Add()
    net.set_inputs(Tensor(shape=[2], dtype=ms.float32), Tensor(shape=[2], dtype=ms.float32))
    net.set_inputs(x=Tensor(shape=[None], dtype=ms.float32))
    assert net(f32(5), f32(5)).shape == (5,)


# ---------------------------------------------------------------- printing
def test_repr_dense_with_and_without_bias():
    assert repr(nn.Dense(2, 2)) == "Dense(input_channels=2, output_channels=2, has_bias=True)"
    assert repr(nn.Dense(4, 1, has_bias=False)) == "Dense(input_channels=4, output_channels=1)"
    assert str(nn.Dense(4, 1, has_bias=False)) == repr(nn.Dense(4, 1, has_bias=False))


def test_repr_dense_with_activation_shows_it_as_a_child():
    assert repr(nn.Dense(2, 3, activation="relu")) == (
        "Dense(\n"
        "  input_channels=2, output_channels=3, has_bias=True, activation=ReLU()\n"
        "  (activation): ReLU()\n"
        ")"
    )


def test_repr_nested_cells():
    assert repr(Net()) == (
        "Net(\n"
        "  (seq): SequentialCell(\n"
        "    (0): Dense(input_channels=2, output_channels=2, has_bias=True)\n"
        "    (1): ReLU()\n"
        "  )\n"
        "  (head): Dense(input_channels=2, output_channels=1, has_bias=True)\n"
        ")"
    )


def test_repr_custom_extend_repr_single_and_multi_line():
    class OneLine(nn.Cell):
        def extend_repr(self):
            return "alpha=1"

    class TwoLines(nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = nn.Dense(2, 1)

        def extend_repr(self):
            return "alpha=1\nbeta=2"

    assert repr(OneLine()) == "OneLine(alpha=1)"
    assert repr(TwoLines()) == (
        "TwoLines(\n  alpha=1\n  beta=2\n  (head): Dense(input_channels=2, output_channels=1, has_bias=True)\n)"
    )
    assert nn.Cell().extend_repr() == ""
    assert repr(nn.ReLU()) == "ReLU()"


def test_repr_containers():
    assert repr(nn.CellList([nn.ReLU(), nn.Dense(1, 1)])) == (
        "CellList(\n  (0): ReLU()\n  (1): Dense(input_channels=1, output_channels=1, has_bias=True)\n)"
    )
    assert repr(nn.CellDict({"act": nn.ReLU()})) == "CellDict(\n  (act): ReLU()\n)"


# --------------------------------------------------------------------- bprop
def test_bprop_debug_is_a_bool_property():
    net = Net()
    assert net.bprop_debug is False
    net.bprop_debug = True
    assert net.bprop_debug is True
    with pytest.raises(TypeError, match="bprop_debug"):
        net.bprop_debug = 1


class ScaledMul(nn.Cell):
    calls = 0

    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        ScaledMul.calls += 1
        return dout * 10, dout * 100


def test_user_bprop_replaces_the_gradient():
    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mul = ScaledMul()

        def construct(self, x, y):
            return self.mul(x, y) * 2

    x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])
    ScaledMul.calls = 0
    gx, gy = ops.GradOperation(get_all=True)(Outer())(x, y)
    assert gx.asnumpy().tolist() == [20.0, 20.0] and gy.asnumpy().tolist() == [200.0, 200.0]
    assert ScaledMul.calls == 1
    # The forward value is construct's.
    assert Outer()(x, y).asnumpy().tolist() == [6.0, 16.0]


def test_user_bprop_receives_inputs_output_and_incoming_gradient():
    seen = {}

    class Square(nn.Cell):
        def construct(self, x):
            return x * x

        def bprop(self, x, out, dout):
            seen.update(x=x.asnumpy().tolist(), out=out.asnumpy().tolist(), dout=dout.asnumpy().tolist())
            return (2 * x * dout,)

    g = ops.GradOperation(sens_param=True)(Square())(ms.Tensor([3.0]), ms.Tensor([0.5]))
    assert seen == {"x": [3.0], "out": [9.0], "dout": [0.5]}
    assert g.asnumpy().tolist() == [3.0]


def test_user_bprop_is_not_called_without_a_gradient_transform():
    ScaledMul.calls = 0
    ScaledMul()(ms.Tensor([1.0]), ms.Tensor([2.0]))
    assert ScaledMul.calls == 0


def test_update_cell_type_records_the_type():
    net = Net()
    assert net.cell_type is None
    net.update_cell_type("quant")
    assert net.cell_type == "quant" and net.seq.cell_type is None
    net.cell_type = "second-order"
    assert net.cell_type == "second-order"
