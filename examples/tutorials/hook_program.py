"""Hooks: the hook programming tutorial's steps (tutorials/source_en/custom_program/hook_program.md).

``ops.HookBackward`` on an intermediate value, forward pre-hooks and forward hooks (reading and
replacing what flows), backward pre-hooks and backward hooks on a BatchNorm, and removing hooks
through their handles.
"""
import numpy as np

import cellkit as ms
from cellkit import nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)


# --- HookBackward: see the gradient that flows through z
def show_gradient(grad_out):
    print("gradient at z:", grad_out)


hook = ops.HookBackward(show_gradient)


def product(x, y):
    z = hook(x * y)
    return z * y


print("grads:", ms.grad(product, grad_position=(0, 1))(ms.Tensor(1, ms.float32), ms.Tensor(2, ms.float32)))

# Two Tensors, not one passed twice: MindSpore adds up the gradients of one Tensor given at two positions.
x = ms.Tensor(np.ones([1]).astype(np.float32))
y = ms.Tensor(np.ones([1]).astype(np.float32))


class AddRelu(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x, y):
        return self.relu(x + y)


# --- a forward pre-hook reads the inputs; returning a Tensor replaces them
def show_inputs(cell, inputs):
    print("relu inputs:", inputs)
    return inputs[0]


net = AddRelu()
handle = net.relu.register_forward_pre_hook(show_inputs)
print(net(x, y))
grad_net = ms.grad(net, grad_position=(0, 1))
print(grad_net(x, y))
handle.remove()
print("after remove:", grad_net(x, y))


def replace_inputs(cell, inputs):
    return ms.Tensor(np.ones([1]).astype(np.float32))


net = AddRelu()
net.relu.register_forward_pre_hook(replace_inputs)
print("inputs replaced by a constant:", ms.grad(net, grad_position=(0, 1))(x, y))


# --- a forward hook sees inputs and output; returning a value replaces the output
def double_output(cell, inputs, output):
    print("relu output:", output)
    return output + output


net = AddRelu()
handle = net.relu.register_forward_hook(double_output)
grad_net = ms.grad(net, grad_position=(0, 1))
print(grad_net(x, y))
handle.remove()
print("after remove:", grad_net(x, y))


# --- backward hooks on a BatchNorm inside a small convolutional network
class ConvBnRelu(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones", pad_mode="valid")
        self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


image = ms.Tensor(np.arange(16).reshape(1, 1, 4, 4).astype(np.float32))


def show_grad_output(cell, grad_output):
    print("bn grad_output:", grad_output)


net = ConvBnRelu()
handle = net.bn.register_backward_pre_hook(show_grad_output)
print(ms.grad(net)(image))
handle.remove()


def show_both(cell, grad_input, grad_output):
    print("bn grad_input:", grad_input)
    print("bn grad_output:", grad_output)


net = ConvBnRelu()
handle = net.bn.register_backward_hook(show_both)
print(ms.grad(net)(image))
handle.remove()
print("-------------\n", ms.grad(net)(image))
