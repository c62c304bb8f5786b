"""Cell hooks: the spec's four examples, replacement rules, ordering, removal, errors.

Expected values for the non-spec cases were observed with real MindSpore 2.10.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import Tensor, nn, ops
from cellkit.nn.cell_call import on_fast_path


def printed(capsys):
    return capsys.readouterr().out.rstrip("\n")


def ones1():
    return Tensor(np.ones([1]).astype(np.float32))


class MatMulNet(nn.Cell):
    def __init__(self, register):
        super().__init__()
        self.mul = nn.MatMul()
        self.handle = register(self.mul)

    def construct(self, x, y):
        x = x + x
        return self.mul(x, y)


class ReluNet(nn.Cell):
    def __init__(self, register):
        super().__init__()
        self.relu = nn.ReLU()
        self.handle = register(self.relu)

    def construct(self, x):
        x = x + x
        return self.relu(x)


def test_hooks_spec_forward_pre_hook_example(capsys):
    def forward_pre_hook_fn(cell, inputs):
        print("forward inputs: ", inputs)

    net = MatMulNet(lambda c: c.register_forward_pre_hook(forward_pre_hook_fn))
    output = ops.GradOperation(get_all=True)(net)(ones1(), ones1())
    print(output)
    assert printed(capsys) == (
        "forward inputs:  (Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]))\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]))"
    )


def test_hooks_spec_forward_hook_example(capsys):
    def forward_hook_fn(cell, inputs, output):
        print("forward inputs: ", inputs)
        print("forward output: ", output)

    net = MatMulNet(lambda c: c.register_forward_hook(forward_hook_fn))
    output = ops.GradOperation(get_all=True)(net)(ones1(), ones1())
    print(output)
    assert printed(capsys) == (
        "forward inputs:  (Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]))\n"
        "forward output:  2.0\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]))"
    )


def test_hooks_spec_backward_pre_hook_example(capsys):
    def backward_pre_hook_fn(cell, grad_output):
        print("backward input: ", grad_output)

    net = ReluNet(lambda c: c.register_backward_pre_hook(backward_pre_hook_fn))
    output = ops.GradOperation(get_all=True)(net)(ones1())
    print(output)
    assert printed(capsys) == (
        "backward input:  (Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]),)\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]),)"
    )


def test_hooks_spec_backward_hook_example(capsys):
    def backward_hook_fn(cell, grad_input, grad_output):
        print("backward input: ", grad_output)
        print("backward output: ", grad_input)

    net = ReluNet(lambda c: c.register_backward_hook(backward_hook_fn))
    output = ops.GradOperation(get_all=True)(net)(ones1())
    print(output)
    assert printed(capsys) == (
        "backward input:  (Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]),)\n"
        "backward output:  (Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]),)\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]),)"
    )


class XY(nn.Cell):
    def construct(self, x, y):
        return x * 3 + y * 2


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = XY()

    def construct(self, x, y):
        return self.inner(x, y) * 5


def two():
    return Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32))


def values(ts):
    return [None if t is None else t.asnumpy().tolist() for t in ts]


def test_hooks_backward_hook_sees_grad_input_and_grad_output():
    seen = {}

    def hook(cell, grad_input, grad_output):
        seen["cell"] = cell
        seen["in"] = values(grad_input)
        seen["out"] = values(grad_output)

    net = Outer()
    net.inner.register_backward_hook(hook)
    grads = ops.GradOperation(get_all=True)(net)(*two())
    assert seen["cell"] is net.inner
    assert seen["in"] == [[15.0, 15.0], [10.0, 10.0]]
    assert seen["out"] == [[5.0, 5.0]]
    assert values(grads) == [[15.0, 15.0], [10.0, 10.0]]


def test_hooks_backward_hook_replaces_grad_input():
    net = Outer()
    net.inner.register_backward_hook(lambda cell, gi, go: (gi[0] * 0, gi[1] * 10))
    grads = ops.GradOperation(get_all=True)(net)(*two())
    assert values(grads) == [[0.0, 0.0], [100.0, 100.0]]


def test_hooks_backward_pre_hook_replacement_is_seen_by_backward_hook():
    seen = {}
    net = Outer()
    net.inner.register_backward_pre_hook(lambda cell, go: (go[0] * 2,))
    net.inner.register_backward_hook(lambda cell, gi, go: seen.update(gi=values(gi), go=values(go)))
    grads = ops.GradOperation(get_all=True)(net)(*two())
    assert seen == {"gi": [[30.0, 30.0], [20.0, 20.0]], "go": [[10.0, 10.0]]}
    assert values(grads) == [[30.0, 30.0], [20.0, 20.0]]


def test_hooks_forward_hooks_replace_inputs_and_output_and_stay_differentiable():
    net = Outer()
    net.inner.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 2, inputs[1]))
    net.inner.register_forward_hook(lambda cell, inputs, out: out + 1)
    assert net(*two()).asnumpy().tolist() == [45.0, 45.0]
    grads = ops.GradOperation(get_all=True)(net)(*two())
    assert values(grads) == [[30.0, 30.0], [10.0, 10.0]]


def test_hooks_forward_hook_receives_replaced_inputs():
    seen = []
    net = Outer()
    net.inner.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 2, inputs[1]))
    net.inner.register_forward_hook(lambda cell, inputs, out: seen.append(values(inputs)))
    net(*two())
    assert seen == [[[2.0, 2.0], [1.0, 1.0]]]


def test_hooks_nested_order_outer_pre_inner_pre_inner_post_outer_post():
    order = []

    class N1(nn.Cell):
        def __init__(self):
            super().__init__()
            self.r = nn.ReLU()

        def construct(self, x):
            return self.r(x)

    n = N1()
    n.register_forward_pre_hook(lambda c, i: order.append("outer pre"))
    n.r.register_forward_pre_hook(lambda c, i: order.append("inner pre"))
    n.r.register_forward_hook(lambda c, i, o: order.append("inner post"))
    n.register_forward_hook(lambda c, i, o: order.append("outer post"))
    n(Tensor([1.0]))
    assert order == ["outer pre", "inner pre", "inner post", "outer post"]


def test_hooks_several_hooks_fire_in_registration_order_and_chain():
    net = Outer()
    calls = []
    net.inner.register_forward_pre_hook(lambda c, i: calls.append("a") or (i[0] + 1, i[1]))
    net.inner.register_forward_pre_hook(lambda c, i: calls.append(("b", i[0].asnumpy().tolist())))
    net(*two())
    assert calls == ["a", ("b", [2.0, 2.0])]


def test_hooks_handle_remove_restores_original_behaviour():
    net = Outer()
    x, y = two()
    baseline_out = net(x, y).asnumpy().tolist()
    baseline_grads = values(ops.GradOperation(get_all=True)(net)(x, y))
    handles = [
        net.inner.register_forward_pre_hook(lambda c, i: (i[0] * 7, i[1])),
        net.inner.register_forward_hook(lambda c, i, o: o * 3),
        net.inner.register_backward_pre_hook(lambda c, g: (g[0] * 2,)),
        net.inner.register_backward_hook(lambda c, gi, go: (gi[0] * 0, gi[1])),
    ]
    assert net(x, y).asnumpy().tolist() != baseline_out
    assert not on_fast_path(net.inner)
    for h in handles:
        h.remove()
    h.remove()  # twice is harmless
    assert on_fast_path(net.inner)
    assert net(x, y).asnumpy().tolist() == baseline_out
    assert values(ops.GradOperation(get_all=True)(net)(x, y)) == baseline_grads


def test_hooks_handle_works_as_context_manager():
    net = Outer()
    calls = []
    with net.inner.register_forward_hook(lambda c, i, o: calls.append(1)):
        net(*two())
    net(*two())
    assert calls == [1]


@pytest.mark.parametrize("method", [
    "register_forward_pre_hook", "register_forward_hook",
    "register_backward_pre_hook", "register_backward_hook",
])
def test_hooks_non_callable_raises_type_error(method):
    with pytest.raises(TypeError, match=method):
        getattr(nn.ReLU(), method)(1)


def test_hooks_callable_object_is_accepted():
    class Counter:
        def __init__(self):
            self.n = 0

        def __call__(self, cell, inputs):
            self.n += 1

    counter = Counter()
    relu = nn.ReLU()
    relu.register_forward_pre_hook(counter)
    relu(Tensor([1.0]))
    assert counter.n == 1


def test_hooks_registered_inside_construct_accumulate():
    calls = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x):
            self.relu.register_forward_hook(lambda c, i, o: calls.append(1))
            return self.relu(x)

    net = Net()
    net(Tensor([1.0]))
    net(Tensor([1.0]))
    assert len(calls) == 1 + 2


def test_hooks_backward_hooks_do_not_run_without_a_gradient_transform():
    calls = []
    net = Outer()
    net.inner.register_backward_hook(lambda c, gi, go: calls.append(1))
    net(*two())
    assert calls == []


def test_hooks_do_not_run_in_graph_mode():
    calls = []
    net = Outer()
    net.inner.register_forward_hook(lambda c, i, o: calls.append(1))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.warns(UserWarning, match="Hooks do not run in GRAPH_MODE"):
            net(*two())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert calls == []


def test_hooks_custom_bprop_replaces_autograd():
    class B(nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * 100, dout * 0 + 7

    grads = ops.GradOperation(get_all=True)(B())(*two())
    assert values(grads) == [[100.0, 100.0], [7.0, 7.0]]


def test_hooks_custom_bprop_gradients_are_fitted_to_input_shape_and_dtype():
    class B(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (ops.ones((3, 2), ms.float64),)

    grad = ops.GradOperation()(B())(Tensor(np.ones(2, np.float32)))
    assert grad.dtype == ms.float32
    assert grad.asnumpy().tolist() == [3.0, 3.0]
