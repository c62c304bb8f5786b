"""Debugging in PyNative mode: the steps of tutorials/source_en/debug/pynative.md.

Synchronous execution with ``runtime.launch_blocking``, then the three ways the tutorial gives to
look at or change gradients while they flow back: ``Tensor.register_hook`` (double a gradient),
``ops.HookBackward`` (print it), and ``Cell.register_backward_hook`` (print a Cell's gradient
inputs and outputs), plus removing the hook through its handle.  The breakpoint step (pdb) is a
plain Python function run without stopping.

Adapted: the Cell example asks for ``grad_position=(0, 1)`` of a Cell with one input; here it is
``grad_position=0``.
"""
import numpy as np

import cellkit as mindspore
from cellkit import Tensor, nn, ops

mindspore.runtime.launch_blocking()


def some_function():
    x = 10
    y = x + 1  # a breakpoint (import pdb; pdb.set_trace()) would go on the line above
    return y


print(some_function())


def hook_fn(grad):
    return grad * 2


def hook_test(x, y):
    z = x * y
    z.register_hook(hook_fn)
    z = z * y
    return z


ms_grad = mindspore.value_and_grad(hook_test, grad_position=(0, 1))
print(ms_grad(Tensor(1, mindspore.float32), Tensor(2, mindspore.float32)))
print(mindspore.value_and_grad(lambda x, y: x * y * y, grad_position=(0, 1))(
    Tensor(1, mindspore.float32), Tensor(2, mindspore.float32)))


def print_hook(grad):
    print("gradient at z:", grad)


hook = ops.HookBackward(print_hook)


def hook_test2(x, y):
    z = x * y
    z = hook(z)
    z = z * y
    return z


def backward(x, y):
    return mindspore.value_and_grad(hook_test2, grad_position=(0, 1))(x, y)


print(backward(Tensor(1, mindspore.float32), Tensor(2, mindspore.float32)))


def backward_hook_fn(cell_id, grad_input, grad_output):
    print("backward input: ", grad_input)
    print("backward output: ", grad_output)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.handle = self.relu.register_backward_hook(backward_hook_fn)

    def construct(self, x):
        x = x + x
        return self.relu(x)


net = Net()
x = Tensor(np.array([1.0, -1.0, 2.0]).astype(np.float32))
print(mindspore.value_and_grad(net, grad_position=0)(x))
net.handle.remove()
print("after remove:", mindspore.value_and_grad(net, grad_position=0)(x))
