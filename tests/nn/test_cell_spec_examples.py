"""Every example of the Cell spec (spec/cell_api_zh.txt and the tutorial), run on cellkit.

Each test reproduces one documented example and asserts the printed output.
Where real MindSpore 2.10 prints something other than the doc (the doc was
written by hand), the test follows MindSpore and says so.
"""
import re

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit import Tensor, Parameter
from cellkit.common.initializer import One, initializer


def printed(capsys):
    return capsys.readouterr().out.rstrip("\n")


def test_cell_class_example_auto_prefix_false_keeps_names(capsys):
    class MyCell(nn.Cell):
        def __init__(self, forward_net):
            super(MyCell, self).__init__(auto_prefix=False)
            self.net = forward_net
            self.relu = ops.ReLU()

        def construct(self, x):
            y = self.net(x)
            return self.relu(y)

    inner_net = nn.Conv2d(120, 240, 4, has_bias=False, weight_init="normal")
    my_net = MyCell(inner_net)
    print(my_net.trainable_params())
    assert printed(capsys) == "[Parameter (name=weight, shape=(240, 120, 4, 4), dtype=Float32, requires_grad=True)]"


def test_cell_tutorial_example_auto_prefix_true_prefixes_names(capsys):
    class MyCell(nn.Cell):
        def __init__(self, forward_net):
            super(MyCell, self).__init__(auto_prefix=True)
            self.net = forward_net
            self.relu = ops.ReLU()

        def construct(self, x):
            y = self.net(x)
            return self.relu(y)

    my_net = MyCell(nn.Conv2d(120, 240, 4, has_bias=False))
    print(my_net.trainable_params())
    assert printed(capsys) == "[Parameter (name=net.weight, shape=(240, 120, 4, 4), dtype=Float32, requires_grad=True)]"


class ReluNet(nn.Cell):
    def __init__(self):
        super(ReluNet, self).__init__()
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(x)


def test_cell_add_flags_example(capsys):
    net = ReluNet()
    net.add_flags(sink_mode=True)
    print(net.sink_mode)
    assert printed(capsys) == "True"


def test_cell_add_flags_recursive_example(capsys):
    net = ReluNet()
    net.add_flags_recursive(sink_mode=True)
    print(net.sink_mode, net.relu.sink_mode)
    assert printed(capsys) == "True True"


def test_cell_get_flags_example(capsys):
    net = ReluNet()
    net.add_flags(sink_mode=True)
    print(net.get_flags())
    # The doc shows {'sink_mode':True}; get_flags returns a dict, which Python prints with a space.
    assert printed(capsys) == "{'sink_mode': True}"


def test_cell_apply_example(capsys):
    net = nn.SequentialCell(nn.Dense(2, 2), nn.Dense(2, 2))

    def func(cell):
        if isinstance(cell, nn.Dense):
            cell.weight.set_data(initializer(One(), cell.weight.shape, cell.weight.dtype))

    print(net.apply(func))
    print(net[0].weight.asnumpy())
    assert printed(capsys) == (
        "SequentialCell(\n"
        "  (0): Dense(input_channels=2, output_channels=2, has_bias=True)\n"
        "  (1): Dense(input_channels=2, output_channels=2, has_bias=True)\n"
        ")\n"
        "[[1. 1.]\n [1. 1.]]"
    )


def _buffer_nets(with_c=False, with_dense=False):
    class NetC(nn.Cell):
        def __init__(self):
            super().__init__()
            self.buffer_c = nn.Buffer(ms.tensor([0, 0, 0]))
            if with_dense:
                self.dense_c = nn.Dense(5, 3)

        def construct(self, x):
            return x + self.buffer_c

    class NetB(nn.Cell):
        def __init__(self, net_c=None):
            super().__init__()
            if net_c is not None:
                self.net_c = net_c
            self.buffer_b = nn.Buffer(ms.tensor([1, 2, 3]))

        def construct(self, x):
            return x + self.buffer_b

    class NetA(nn.Cell):
        def __init__(self, net_b):
            super().__init__()
            self.net_b = net_b
            self.buffer_a = nn.Buffer(ms.tensor([4, 5, 6]))

        def construct(self, x):
            return self.net_b(x) + self.buffer_a

    net_b = NetB(NetC()) if with_c else NetB()
    return NetA(net_b)


def test_cell_buffers_example(capsys):
    net_a = _buffer_nets()
    for buffer in net_a.buffers():
        print(f"buffer is {buffer}")
    # The doc shows "[4, 5, 6]"; MindSpore prints tensors NumPy-style, as cellkit does.
    assert printed(capsys) == "buffer is [4 5 6]\nbuffer is [1 2 3]"


def test_cell_named_buffers_example(capsys):
    net_a = _buffer_nets()
    for name, buffer in net_a.named_buffers():
        print(f"buffer name is {name}, buffer is {buffer}")
    assert printed(capsys) == (
        "buffer name is buffer_a, buffer is [4 5 6]\nbuffer name is net_b.buffer_b, buffer is [1 2 3]"
    )


def test_cell_get_buffer_example(capsys):
    net_a = _buffer_nets(with_c=True)
    buffer_c = net_a.get_buffer("net_b.net_c.buffer_c")
    print(f"buffer_c is {buffer_c}")
    assert printed(capsys) == "buffer_c is [0 0 0]"


def test_cell_get_sub_cell_example(capsys):
    net_a = _buffer_nets(with_c=True, with_dense=True)
    net_c = net_a.get_sub_cell("net_b.net_c")
    print(f"net_c is {net_c}")
    assert printed(capsys) == "net_c is NetC(\n  (dense_c): Dense(input_channels=5, output_channels=3, has_bias=True)\n)"


class DenseNet(nn.Cell):
    def __init__(self):
        super(DenseNet, self).__init__()
        self.dense = nn.Dense(2, 2)

    def construct(self, x):
        return self.dense(x)


def test_cell_cells_example(capsys):
    print(DenseNet().cells())
    assert printed(capsys) == "odict_values([Dense(input_channels=2, output_channels=2, has_bias=True)])"


def test_cell_cells_and_names_example():
    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.conv = nn.Conv2d(3, 64, 3)

        def construct(self, x):
            return self.conv(x)

    names = [m[0] for m in Net().cells_and_names() if m[0]]
    assert names == ["conv"]


def test_cell_set_inputs_get_inputs_example(capsys):
    net = ReluNet()
    input_dyn = Tensor(shape=[3, None], dtype=ms.float32)
    net.set_inputs(input_dyn)
    print(net.get_inputs())
    # The doc shows "value= )"; MindSpore 2.10 prints a placeholder as "value=\n)", as cellkit does.
    assert printed(capsys) == "(Tensor(shape=[3, -1], dtype=Float32, value=\n),)"
    x = Tensor(np.random.random([3, 10]), dtype=ms.float32)
    assert net(x).shape == (3, 10)
    net2 = ReluNet()
    net2.set_inputs(x=input_dyn)
    assert net2(x).shape == (3, 10)


def test_cell_get_parameters_example(capsys):
    class TestNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.my_w1 = ms.Parameter(Tensor(np.ones([4, 4]), ms.float32))
            self.my_w2 = ms.Parameter(Tensor(np.ones([16]), ms.float32))

        def construct(self, x):
            x += self.my_w1
            return ops.reshape(x, (16,)) - self.my_w2

    class TestNet2(nn.Cell):
        def __init__(self):
            super().__init__()
            self.my_t1 = ms.Parameter(Tensor(np.ones([4, 4]), ms.float32))
            self.subcell = TestNet()

        def construct(self, x):
            return x

    net = TestNet2()
    print([p for p in net.get_parameters(expand=True)])
    assert printed(capsys) == (
        "[Parameter (name=my_t1, shape=(4, 4), dtype=Float32, requires_grad=True), "
        "Parameter (name=subcell.my_w1, shape=(4, 4), dtype=Float32, requires_grad=True), "
        "Parameter (name=subcell.my_w2, shape=(16,), dtype=Float32, requires_grad=True)]"
    )


def test_cell_init_parameters_data_example(capsys):
    print(DenseNet().init_parameters_data())
    # The doc writes "shape=(2,2)"; Parameter reprs print tuples, "shape=(2, 2)", in MindSpore and here.
    assert printed(capsys) == (
        "{Parameter (name=dense.weight, shape=(2, 2), dtype=Float32, requires_grad=True): "
        "Parameter (name=dense.weight, shape=(2, 2), dtype=Float32, requires_grad=True), "
        "Parameter (name=dense.bias, shape=(2,), dtype=Float32, requires_grad=True): "
        "Parameter (name=dense.bias, shape=(2,), dtype=Float32, requires_grad=True)}"
    )


def test_cell_insert_child_to_cell_example(capsys):
    net1 = nn.ReLU()
    net1.insert_child_to_cell("child", nn.Dense(2, 2))
    print(net1)
    assert printed(capsys) == "ReLU(\n  (child): Dense(input_channels=2, output_channels=2, has_bias=True)\n)"


def test_cell_insert_param_to_cell_example(capsys):
    net = ReluNet()
    net.insert_param_to_cell("bias", Parameter(Tensor([1, 2, 3])))
    print(net.bias)
    # MindSpore prints "Parameter (name=...": with the space the doc's example leaves out.
    assert printed(capsys) == "Parameter (name=bias, shape=(3,), dtype=Int64, requires_grad=True)"


def _state_model():
    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.buffer_a = nn.Buffer(ms.tensor([4, 5, 6]))
            self.param_a = ms.Parameter(ms.tensor([1, 2, 3]))

        def construct(self, x):
            return x + self.buffer_a + self.param_a

    return Model()


def test_cell_state_dict_example(capsys):
    model = _state_model()
    print(model.state_dict())
    assert printed(capsys) == (
        "OrderedDict([('param_a', Parameter (name=param_a, shape=(3,), dtype=Int64, requires_grad=True)), "
        "('buffer_a', Tensor(shape=[3], dtype=Int64, value= [4, 5, 6]))])"
    )
    state = model.state_dict()
    assert list(state.items()) == [("param_a", model.param_a), ("buffer_a", model.buffer_a)]
    assert repr(state["param_a"]) == "Parameter (name=param_a, shape=(3,), dtype=Int64, requires_grad=True)"
    assert repr(state["buffer_a"]) == "Tensor(shape=[3], dtype=Int64, value= [4, 5, 6])"


def test_cell_load_state_dict_example(capsys, tmp_path):
    model = _state_model()
    print(model.state_dict())
    path = str(tmp_path / "model_state_dict_ckpt")
    ms.save_checkpoint(model.state_dict(), path)
    new_model = _state_model()
    new_model.param_a.set_data(ms.tensor([7, 8, 9]))
    result = new_model.load_state_dict(ms.load_checkpoint(path))
    print(new_model.state_dict())
    expected = (
        "OrderedDict([('param_a', Parameter (name=param_a, shape=(3,), dtype=Int64, requires_grad=True)), "
        "('buffer_a', Tensor(shape=[3], dtype=Int64, value= [4, 5, 6]))])"
    )
    assert printed(capsys) == expected + "\n" + expected
    assert repr(result) == "<All keys matched successfully>"
    assert new_model.param_a.asnumpy().tolist() == [1, 2, 3]


def test_cell_name_cells_example(capsys):
    cells = DenseNet().name_cells()
    assert list(cells) == ["dense"]
    assert repr(cells["dense"]) == "Dense(input_channels=2, output_channels=2, has_bias=True)"


def test_cell_param_prefix_example(capsys):
    net = DenseNet()
    net.update_cell_prefix()
    print(net.dense.param_prefix)
    assert printed(capsys) == "dense"


def test_cell_parameters_and_names_example():
    n = nn.Dense(3, 4)
    names = [m[0] for m in n.parameters_and_names() if m[0]]
    assert names == ["weight", "bias"]


def test_cell_parameters_dict_example():
    params = DenseNet().parameters_dict()
    assert list(params) == ["dense.weight", "dense.bias"]
    assert repr(params["dense.bias"]) == "Parameter (name=dense.bias, shape=(2,), dtype=Float32, requires_grad=True)"


def test_cell_place_example():
    fc = nn.Dense(2, 3)
    fc.place("MS_WORKER", 0)
    assert fc.parallel_config["place"] == {"role": "MS_WORKER", "rank_id": 0}


def test_cell_register_buffer_example(capsys):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.register_buffer("buffer0", ms.tensor([1, 2, 3]))

        def construct(self, x):
            return x + self.buffer0

    net = Net()
    print(net.buffer0)
    assert printed(capsys) == "[1 2 3]"


def test_cell_set_data_parallel_example():
    net = nn.Dense(3, 4)
    net.set_data_parallel()
    assert net.parallel_config["data_parallel"] is True


def test_cell_set_jit_config_example():
    net = ReluNet()
    net.set_jit_config(ms.JitConfig())
    assert net.parallel_config["jit_config"]["jit_level"] == ""


def test_cell_to_float_example(capsys):
    net = nn.Conv2d(120, 240, 4, has_bias=False, weight_init="normal")
    print(net.to_float(ms.float16))
    assert printed(capsys) == (
        "Conv2d(input_channels=120, output_channels=240, kernel_size=(4, 4), stride=(1, 1), pad_mode=same, "
        "padding=0, dilation=(1, 1), group=1, has_bias=False, weight_init=normal, bias_init=None, format=NCHW)"
    )


def test_cell_tutorial_functional_in_construct(capsys):
    class MyCell(nn.Cell):
        def construct(self, x, y):
            return ops.add(x, y)

    print(MyCell()(ms.Tensor([1, 2, 3], ms.float32), ms.Tensor([4, 5, 6], ms.float32)))
    assert printed(capsys) == "[5. 7. 9.]"


def test_cell_tutorial_trainable_params_example(capsys):
    net = nn.Dense(2, 1, has_bias=True)
    print(net.trainable_params())
    for param in net.trainable_params():
        if "bias" in param.name:
            param.requires_grad = False
    print(net.trainable_params())
    assert printed(capsys) == (
        "[Parameter (name=weight, shape=(1, 2), dtype=Float32, requires_grad=True), "
        "Parameter (name=bias, shape=(1,), dtype=Float32, requires_grad=True)]\n"
        "[Parameter (name=weight, shape=(1, 2), dtype=Float32, requires_grad=True)]"
    )


def test_cell_tutorial_cells_and_names_example(capsys):
    class MyCell(nn.Cell):
        def __init__(self):
            super(MyCell, self).__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.insert_child_to_cell("conv3", nn.Conv2d(64, 128, 3, 1))
            self.sequential_block = nn.SequentialCell(nn.ReLU(), nn.Conv2d(128, 256, 3, 1), nn.ReLU())

        def construct(self, x):
            x = self.conv1(x)
            x = self.conv2(x)
            x = self.conv3(x)
            return self.sequential_block(x)

    module = MyCell()
    for name, cell_instance in module.cells_and_names():
        print(f"Cell name: {name}, type: {type(cell_instance).__name__}")
    assert printed(capsys) == "\n".join([
        "Cell name: , type: MyCell",
        "Cell name: conv1, type: Conv2d",
        "Cell name: conv2, type: Conv2d",
        "Cell name: conv3, type: Conv2d",
        "Cell name: sequential_block, type: SequentialCell",
        "Cell name: sequential_block.0, type: ReLU",
        "Cell name: sequential_block.1, type: Conv2d",
        "Cell name: sequential_block.2, type: ReLU",
    ])
    out = module(ms.ops.ones((1, 1, 8, 8)))
    assert out.shape == (1, 256, 8, 8)
