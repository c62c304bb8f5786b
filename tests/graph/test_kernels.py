"""Array kernels: chosen only when they reproduce the op bit for bit; otherwise the op runs."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.graph.kernels import same_bits

from tests.graph.graph_models import assert_same, f32, mlp


def test_kernels_same_bits_sees_dtype_shape_signed_zero_and_nan_payloads():
    assert same_bits(np.float32([1.0, np.nan]), np.float32([1.0, np.nan]))
    assert not same_bits(np.float32([0.0]), np.float32([-0.0]))
    assert not same_bits(np.float32([1.0]), np.float64([1.0]))
    assert not same_bits(np.float32([1.0]), np.float32([[1.0]]))


def test_kernels_run_every_node_of_an_mlp():
    net = mlp()
    ms.graph.build_graph(net, f32(2, 4))
    plan = ms.graph.compiled_of(net).plan
    assert plan.kernels == 3
    assert "v0 = a0 @ S0._data.T" in plan.source and "v0 += S1._data" in plan.source


CASES = {
    "dense": lambda x: ops.dense(x, x),
    "relu": ops.relu,
    "sigmoid": ops.sigmoid,
    "tanh": ops.tanh,
    "add": lambda x: x + x,
    "add scalar": lambda x: x + 2.5,
    "scalar minus": lambda x: 1.0 - x,
    "mul": lambda x: x * x,
    "div": lambda x: x / (x * x + 1.0),
    "scalar over": lambda x: 2.0 / (x * x + 1.0),
    "neg": lambda x: -x,
    "exp": ops.exp,
    "log": lambda x: ops.log(x * x + 1.0),
    "sqrt": lambda x: ops.sqrt(x * x),
    "matmul": lambda x: ops.matmul(x, x.T),
    "reshape": lambda x: x.reshape(-1),
    "flatten": lambda x: ops.flatten(x.reshape(2, 2, 2)),
    "transpose": lambda x: ops.transpose(x, (1, 0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_kernels_each_kernel_matches_its_op(name):
    fn = CASES[name]

    class One(nn.Cell):
        def construct(self, x):
            return fn(x)

    net = One()
    x = f32(4, 2)
    graph = ms.graph.build_graph(net, x)
    plan = ms.graph.compiled_of(net).plan
    assert plan.kernels == len(graph.nodes), plan.source  # every node found its kernel
    ms.set_context(mode=ms.GRAPH_MODE)
    for seed in range(3):
        assert_same(net(f32(4, 2, seed=seed)), fn(f32(4, 2, seed=seed)))


def test_kernels_mixed_dtypes_fall_back_to_the_op():
    class Mixed(nn.Cell):
        def construct(self, x, y):
            return x + y

    net = Mixed()
    x, y = f32(3), ms.Tensor(np.arange(3.0))  # float32 + float64
    ms.graph.build_graph(net, x, y)
    assert ms.graph.compiled_of(net).plan.kernels == 0
    ms.set_context(mode=ms.GRAPH_MODE)
    assert_same(net(x, y), ops.add(x, y))
    assert_same(net(x, y), ops.add(x, y))


def test_kernels_int_relu_and_int_arithmetic():
    class Ints(nn.Cell):
        def construct(self, x):
            return ops.relu(x - 1) * 3

    net = Ints()
    x = ms.Tensor(np.arange(-2, 3))
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)
    assert_same(net(x), ops.relu(x - 1) * 3)
    assert ms.graph.compiled_of(net).plan.kernels == 3


def test_kernels_not_used_on_other_backends():
    from cellkit import backend

    with backend.use("strict"):
        net = mlp()
        ms.graph.build_graph(net, f32(2, 4))
        assert ms.graph.compiled_of(net).plan.kernels == 0
