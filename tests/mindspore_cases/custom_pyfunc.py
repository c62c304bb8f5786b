"""``ops.Custom`` with ``func_type="pyfunc"``: NumPy functions as ops, as MindSpore 2.10 runs them (CPU).

The custom-operator tutorial's shapes of use: several outputs with ``out_shape``/``out_dtype`` callables,
values instead of callables, a ``bprop`` that is itself a pyfunc Custom, integer inputs, a Python number
as an input, use inside ``jit``, gradients through ``bprop`` (one and several outputs), and the errors:
no ``bprop`` when a gradient reaches the op, bad constructor arguments.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _f32(ms, np, values):
    return ms.Tensor(np.array(values, np.float32))


def _cube_op(ms, ops, np):
    def cube(x):
        return x * x * x

    def cube_grad(x, dout):
        return 3 * x * x * dout

    grad_op = ops.Custom(cube_grad, lambda x, _: x, lambda x, _: x, "pyfunc")

    def bprop(x, out, dout):
        return (grad_op(x, dout),)

    return ops.Custom(cube, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc", bprop=bprop)


@case
def two_outputs_with_shape_and_dtype_functions(ms, ops, nn, np):
    def add_and_sub(x1, x2):
        return x1 + x2, x1 - x2

    op = ops.Custom(add_and_sub, lambda x, _: (x, x), lambda x, _: (x, x), "pyfunc")
    return op(_f32(ms, np, [1.0, 2.0]), _f32(ms, np, [0.5, 3.0]))


@case
def shape_and_dtype_as_values(ms, ops, nn, np):
    op = ops.Custom(lambda a: np.sum(a, axis=0), out_shape=[2], out_dtype=ms.float32, func_type="pyfunc")
    return op(ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)))


@case
def func_type_defaults_to_pyfunc(ms, ops, nn, np):
    op = ops.Custom(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda t: t)
    return [op(_f32(ms, np, [1.0, -2.0])), op.func_type if hasattr(op, "func_type") else None]


@case
def integer_inputs(ms, ops, nn, np):
    op = ops.Custom(lambda a, b: a * b, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="pyfunc")
    return op(ms.Tensor(np.array([1, 2], np.int32)), ms.Tensor(np.array([3, 4], np.int32)))


@case
def python_number_as_an_input(ms, ops, nn, np):
    op = ops.Custom(lambda a, b: a * b, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="pyfunc")
    return op(_f32(ms, np, [1.0, 2.0]), 2.0)


@case
def cube_forward_and_gradient_through_bprop(ms, ops, nn, np):
    cube = _cube_op(ms, ops, np)
    x = _f32(ms, np, [1.0, 2.0, -0.5])
    return [cube(x), ms.grad(lambda a: cube(a))(x)]


@case
def gradient_of_a_sum_through_bprop(ms, ops, nn, np):
    cube = _cube_op(ms, ops, np)
    x = _f32(ms, np, [1.0, 2.0, -0.5])
    return ms.grad(lambda a: (cube(a) * a).sum())(x)


@case
def gradient_of_two_outputs_through_bprop(ms, ops, nn, np):
    def add_and_sub(x1, x2):
        return x1 + x2, x1 - x2

    def bprop(a, b, out, dout):
        return dout[0] + dout[1], dout[0] - dout[1]

    op = ops.Custom(add_and_sub, lambda a, b: (a, a), lambda a, b: (a, a), "pyfunc", bprop=bprop)
    x, y = _f32(ms, np, [1.0, 2.0]), _f32(ms, np, [0.5, 3.0])
    return ms.grad(lambda a, b: (op(a, b)[0] * 2 + op(a, b)[1] * 3).sum(), grad_position=(0, 1))(x, y)


@case
def custom_inside_jit(ms, ops, nn, np):
    cube = _cube_op(ms, ops, np)

    @ms.jit
    def f(a):
        return cube(a) + 1

    return [f(_f32(ms, np, [1.0, 2.0])), f(_f32(ms, np, [0.5, 3.0]))]


@case
def custom_in_a_cell_trained_one_step(ms, ops, nn, np):
    cube = _cube_op(ms, ops, np)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_f32(ms, np, [0.5, -1.0]), name="w")

        def construct(self, x):
            return cube(x * self.w).sum()

    net = Net()
    grads = ms.grad(net, grad_position=None, weights=net.trainable_params())(_f32(ms, np, [1.0, 2.0]))
    return grads


@case
def gradient_without_bprop_raises(ms, ops, nn, np):
    op = ops.Custom(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")
    return ms.grad(lambda a: op(a).sum())(_f32(ms, np, [1.0, 2.0]))


@case
def func_must_be_a_function(ms, ops, nn, np):
    ops.Custom(3, func_type="pyfunc")


@case
def unknown_func_type(ms, ops, nn, np):
    ops.Custom(lambda a: a, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="nope")


@case
def pyfunc_needs_out_shape_when_called(ms, ops, nn, np):
    op = ops.Custom(lambda a: a, func_type="pyfunc")
    return op(_f32(ms, np, [1.0]))
