"""Automatic differentiation: the beginner tutorial's steps (tutorials/source_en/beginner/autograd.md).

Gradients of a function with ``ms.grad``, functions that return more than the loss, stopping a
gradient, auxiliary outputs, and ``ms.value_and_grad`` over a network's trainable parameters.
"""
import numpy as np

import cellkit as ms
from cellkit import Parameter, Tensor, nn, ops

rng = np.random.default_rng(42)
x = ops.ones(5, ms.float32)   # the input
y = ops.zeros(3, ms.float32)  # the target
w = Parameter(Tensor(rng.standard_normal((5, 3)), ms.float32), name="w")
b = Parameter(Tensor(rng.standard_normal((3,)), ms.float32), name="b")


def function(x, y, w, b):
    z = ops.matmul(x, w) + b
    return ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))


print("loss:", function(x, y, w, b))
grad_fn = ms.grad(function, (2, 3))
print(grad_fn(x, y, w, b))


def function_with_logits(x, y, w, b):
    z = ops.matmul(x, w) + b
    return ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z)), z


# Every output is differentiated: z adds its own gradient to the loss's
print(ms.grad(function_with_logits, (2, 3))(x, y, w, b))


def function_stop_gradient(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, ops.stop_gradient(z)


print(ms.grad(function_stop_gradient, (2, 3))(x, y, w, b))

# has_aux: only the first output is differentiated, the rest comes back as it is
grads, (z,) = ms.grad(function_with_logits, (2, 3), has_aux=True)(x, y, w, b)
print(grads, z)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = w
        self.b = b

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


model = Network()
loss_fn = nn.BCEWithLogitsLoss()


def forward_fn(x, y):
    return loss_fn(model(x), y)


grad_fn = ms.value_and_grad(forward_fn, None, weights=model.trainable_params())
loss, grads = grad_fn(x, y)
print("loss:", loss)
print(grads)
