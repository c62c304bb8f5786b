"""Custom operators written in Python: the pyfunc example of MindSpore's custom-operator tutorials
(mindspore-ai/docs: tutorials/source_en/custom_program/operation/op_custom_prim.rst, and the
backward function of op_custom_adv.md).

``ops.Custom(func, out_shape, out_dtype, func_type="pyfunc")`` turns a NumPy function into an op:
``out_shape`` and ``out_dtype`` say what it returns from what it is given, and an optional ``bprop``
gives its gradient.  The steps: a sine op run in graph mode and in PyNative mode, the same op inside
a Cell, an op with two inputs, and a square op whose backward is a second pyfunc op.
"""
import numpy as np

import cellkit as ms
from cellkit import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)
ms.set_device(device_target="CPU")


# --- a sine op: the computation on NumPy arrays, and what it returns (same shape and dtype as its input)
def numpy_sine(x):
    return np.sin(x)


def same_shape(x_shape):
    return x_shape


def same_dtype(x_dtype):
    return x_dtype


sine_op = ops.Custom(func=numpy_sine, out_shape=same_shape, out_dtype=same_dtype, func_type="pyfunc")

angles = ms.Tensor([0, 1, 0.2, 0.3, 0.4], dtype=ms.float32)
print("graph mode:", sine_op(angles))

ms.set_context(mode=ms.PYNATIVE_MODE)
print("PyNative mode:", sine_op(angles))
print("matches ops.sin:", bool(ops.isclose(sine_op(angles), ops.sin(angles)).all()))


# --- the op inside a Cell, called in graph mode
class SineOfScaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sine = ops.Custom(numpy_sine, same_shape, same_dtype, func_type="pyfunc")

    def construct(self, x):
        return self.sine(x * 2)


ms.set_context(mode=ms.GRAPH_MODE)
print("in a Cell:", SineOfScaled()(angles))


# --- two inputs: out_shape and out_dtype are given both inputs' shapes and dtypes
def numpy_hypotenuse(a, b):
    return np.sqrt(a * a + b * b)


hypotenuse = ops.Custom(numpy_hypotenuse, lambda a, b: a, lambda a, b: a, func_type="pyfunc")
print("two inputs:", hypotenuse(ms.Tensor([3.0, 5.0, 8.0], ms.float32), ms.Tensor([4.0, 12.0, 15.0], ms.float32)))


# --- a backward function: it receives the forward input, the forward output and the output's gradient,
# and returns one gradient per input (a tuple, even for one input)
def numpy_square(x):
    return x * x


def numpy_square_grad(x, dout):
    return 2.0 * x * dout


def make_square_bprop():
    square_grad = ops.Custom(numpy_square_grad, lambda x, _: x, lambda x, _: x, func_type="pyfunc")

    def square_bprop(x, out, dout):
        return (square_grad(x, dout),)

    return square_bprop


class Square(nn.Cell):
    def __init__(self):
        super().__init__()
        self.square = ops.Custom(numpy_square, lambda x: x, lambda x: x, bprop=make_square_bprop(),
                                 func_type="pyfunc")

    def construct(self, x):
        return self.square(x)


points = ms.Tensor(np.array([1.0, 4.0, 9.0], np.float32))
print("square:", Square()(points))
print("gradient of the square:", ms.grad(Square())(points))

ms.set_context(mode=ms.PYNATIVE_MODE)
print("gradient in PyNative mode:", ms.grad(Square())(points))
