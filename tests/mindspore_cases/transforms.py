"""Autodiff transforms as MindSpore 2.10 runs them (PyNative, CPU).

Covers ``grad`` / ``value_and_grad`` / ``get_grad``, ``ops.GradOperation``, gradients of
gradients, ``jvp`` / ``vjp`` / ``jacfwd`` / ``jacrev``, ``vmap``, and gradient control
(``ops.stop_gradient``, ``ops.HookBackward``, ``Tensor.register_hook``, frozen Parameters,
custom ``bprop`` Cells).  See ``tests/mindspore_cases/__init__.py`` for what a case is; the
recorded answers are in ``tests/fixtures/mindspore/transforms.json``.

Conventions: inputs are small float32 arrays with fixed values; a case that needs a Cell
defines it inside the case (so ``nn.Cell`` is the one under test); hooks append what they see to
a list that the case returns, so the fixture records what the hook received.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _t(ms, np, values, dtype="float32"):
    """A Tensor from fixed values (float32 unless told)."""
    return ms.Tensor(np.array(values, dtype=dtype))


def _param(ms, np, values, name, requires_grad=True):
    return ms.Parameter(_t(ms, np, values), name=name, requires_grad=requires_grad)


def _fd_grad(np, f, x, eps=1e-6):
    """Central finite differences of a scalar NumPy function ``f`` at ``x`` (float64)."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        g[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return g


# ---------------------------------------------------------------------------------------------
# ms.grad: positions, weights, has_aux, return_ids, output structures, bad arguments
# ---------------------------------------------------------------------------------------------

def _xy(ms, np):
    return _t(ms, np, [1.0, 2.0, 3.0]), _t(ms, np, [0.5, -1.0, 2.0])


def _f_xy(x, y):
    return (x * x * y).sum()


@case
def grad_default_position(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy)(x, y)


@case
def grad_position_int(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=1)(x, y)


@case
def grad_position_tuple(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=(0, 1))(x, y)


@case
def grad_position_tuple_of_one(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=(1,))(x, y)


@case
def grad_position_tuple_reversed(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=(1, 0))(x, y)


@case
def grad_position_negative(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=-1)(x, y)


@case
def grad_position_negative_in_tuple(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=(-2, -1))(x, y)


@case
def grad_position_duplicate(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=(0, 0))(x, y)


@case
def grad_position_out_of_range(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=2)(x, y)


@case
def grad_position_negative_out_of_range(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=-3)(x, y)


@case
def grad_position_float(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=1.0)(x, y)


@case
def grad_position_empty_tuple(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=())(x, y)


@case
def grad_position_none_and_no_weights(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=None, weights=None)(x, y)


@case
def grad_not_callable(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return ms.grad(3)(x)


def _wb(ms, np):
    w = _param(ms, np, [[1.0, -1.0], [0.5, 2.0]], "w")
    b = _param(ms, np, [0.1, -0.2], "b")
    return w, b


def _loss_wb(ops, w, b):
    def loss(x):
        h = ops.tanh(x * w[0] + b) * w[1]
        return (h * h).sum()
    return loss


@case
def grad_weights_parameter(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=w)(x)


@case
def grad_weights_parameter_tuple(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=ms.ParameterTuple((w, b)))(x)


@case
def grad_weights_list(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=[b, w])(x)


@case
def grad_weights_list_of_one(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=[b])(x)


@case
def grad_inputs_and_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=0, weights=[w, b])(x)


@case
def grad_inputs_tuple_and_single_weight(ms, ops, nn, np):
    w, b = _wb(ms, np)

    def loss(x, y):
        return ((x * w[0] + y * w[1] + b) ** 2).sum()
    x, y = _t(ms, np, [0.3, -0.7]), _t(ms, np, [1.0, 2.0])
    return ms.grad(loss, grad_position=(0, 1), weights=b)(x, y)


@case
def grad_weights_unused_parameter(ms, ops, nn, np):
    w, b = _wb(ms, np)
    unused = _param(ms, np, [[1.0, 2.0, 3.0]], "unused")
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=[w, unused])(x)


@case
def grad_weights_frozen_parameter(ms, ops, nn, np):
    w, b = _wb(ms, np)
    b.requires_grad = False
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=[w, b])(x)


@case
def grad_weights_not_parameters(ms, ops, nn, np):
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(lambda x: (x * x).sum(), grad_position=None, weights=3)(x)


@case
def grad_weights_plain_tensor(ms, ops, nn, np):
    x = _t(ms, np, [0.3, -0.7])
    c = _t(ms, np, [2.0, 3.0])
    return ms.grad(lambda x: (x * c).sum(), grad_position=None, weights=c)(x)


@case
def grad_has_aux_one(ms, ops, nn, np):
    def f(x, y):
        return (x * y).sum(), x + y
    x, y = _xy(ms, np)
    return ms.grad(f, has_aux=True)(x, y)


@case
def grad_has_aux_several(ms, ops, nn, np):
    def f(x, y):
        return (x * y).sum(), x * 2, y.sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1), has_aux=True)(x, y)


@case
def grad_has_aux_aux_does_not_contribute(ms, ops, nn, np):
    def f(x):
        return (x * x).sum(), (x * x * x).sum()
    x, _ = _xy(ms, np)
    return ms.grad(f, has_aux=True)(x)


@case
def grad_has_aux_with_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)

    def f(x):
        y = x * w[0] + b
        return (y * y).sum(), y
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(f, grad_position=0, weights=[w, b], has_aux=True)(x)


@case
def grad_has_aux_single_output(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return ms.grad(lambda x: (x * x).sum(), has_aux=True)(x)


@case
def grad_has_aux_not_bool(ms, ops, nn, np):
    def f(x):
        return (x * x).sum(), x
    x, _ = _xy(ms, np)
    return ms.grad(f, has_aux=1)(x)


@case
def grad_return_ids_positions(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=(0, 1), return_ids=True)(x, y)


def _return_ids_single_expected(np):
    return (1, np.array([1.0, 4.0, 9.0], np.float32))


@case(mindspore_wrong=True, expected=_return_ids_single_expected,
      note="MindSpore 2.10 pairs the position with the gradient's first *element*: ((1, Tensor(1.0)),); "
           "the documented answer is the pair (1, gradient)")
def grad_return_ids_single_position(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(_f_xy, grad_position=1, return_ids=True)(x, y)


@case
def grad_return_ids_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=[w, b], return_ids=True)(x)


@case
def grad_return_ids_inputs_and_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.grad(_loss_wb(ops, w, b), grad_position=0, weights=ms.ParameterTuple((w, b)), return_ids=True)(x)


@case
def grad_return_ids_has_aux(ms, ops, nn, np):
    def f(x, y):
        return (x * y).sum(), x - y
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1), has_aux=True, return_ids=True)(x, y)


@case
def grad_tuple_output_summed(ms, ops, nn, np):
    def f(x, y):
        return (x * y).sum(), (x * x).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y)


@case
def grad_list_output_summed(ms, ops, nn, np):
    def f(x):
        return [x * 2, x * x]
    x, _ = _xy(ms, np)
    return ms.grad(f)(x)


@case
def grad_dict_output(ms, ops, nn, np):
    def f(x):
        return {"a": x * 2, "b": x * x}
    x, _ = _xy(ms, np)
    return ms.grad(f)(x)


@case
def grad_non_scalar_output(ms, ops, nn, np):
    x = _t(ms, np, [[1.0, 2.0], [3.0, 4.0]])
    return ms.grad(lambda x: x * x * 3)(x)


@case
def grad_python_number_argument(ms, ops, nn, np):
    def f(x, scale, power):
        return (x ** power * scale).sum()
    x, _ = _xy(ms, np)
    return ms.grad(f)(x, 2.5, 3)


@case
def grad_position_names_python_number(ms, ops, nn, np):
    def f(x, scale):
        return (x * scale).sum()
    x, _ = _xy(ms, np)
    return ms.grad(f, grad_position=1)(x, 2.5)


@case
def grad_keyword_argument(ms, ops, nn, np):
    def f(x, y=None):
        return (x * y).sum()
    x, y = _xy(ms, np)
    return ms.grad(f)(x, y=y)


@case
def grad_unused_input(ms, ops, nn, np):
    def f(x, y):
        return (x * 3).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y)


@case
def grad_output_independent_of_input(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(lambda x, y: (y * y).sum())(x, y)


@case
def grad_integer_input(ms, ops, nn, np):
    x = _t(ms, np, [1, 2, 3], "int32")
    return ms.grad(lambda x: (x * x).sum())(x)


@case
def grad_float64_input(ms, ops, nn, np):
    x = _t(ms, np, [1.0, 2.0, 3.0], "float64")
    return ms.grad(lambda x: (x * x * x).sum())(x)


@case
def grad_function_returns_python_float(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return ms.grad(lambda x: 3.0)(x)


@case
def grad_of_cell(ms, ops, nn, np):
    class Net(nn.Cell):
        def construct(self, x, y, z):
            return x * y * z
    x, y, z = _t(ms, np, [1.0, 2.0]), _t(ms, np, [-2.0, 3.0]), _t(ms, np, [0.0, 3.0])
    return ms.grad(Net(), grad_position=(1, 2))(x, y, z)


@case
def grad_of_cell_trainable_params(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_t(ms, np, [[1.0, 2.0], [0.5, -1.0]]), name="w")
            self.s = ms.Parameter(_t(ms, np, [0.5]), name="s")

        def construct(self, x):
            return (self.w * x * self.s).sum()
    net = Net()
    x = _t(ms, np, [1.0, -2.0])
    return ms.grad(net, grad_position=None, weights=net.trainable_params())(x)


@case
def grad_sens_param(ms, ops, nn, np):
    x, y = _xy(ms, np)
    sens = _t(ms, np, [1.0, 2.0, 3.0])
    return ms.grad(lambda x, y: x * y, grad_position=(0, 1), sens_param=True)(x, y, sens)


@case
def ops_grad_is_the_same_transform(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ops.grad(_f_xy, grad_position=(0, 1))(x, y), ops.value_and_grad(_f_xy)(x, y)


# ---------------------------------------------------------------------------------------------
# ms.value_and_grad and ms.get_grad
# ---------------------------------------------------------------------------------------------

@case
def value_and_grad_default(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.value_and_grad(_f_xy)(x, y)


@case
def value_and_grad_position_tuple(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.value_and_grad(_f_xy, grad_position=(0, 1))(x, y)


@case
def value_and_grad_weights_only(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.value_and_grad(_loss_wb(ops, w, b), grad_position=None, weights=[w, b])(x)


@case
def value_and_grad_inputs_and_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.value_and_grad(_loss_wb(ops, w, b), grad_position=0, weights=w)(x)


@case
def value_and_grad_has_aux(ms, ops, nn, np):
    def f(x, y):
        return (x * y).sum(), x * 2, y - 1
    x, y = _xy(ms, np)
    return ms.value_and_grad(f, grad_position=(0, 1), has_aux=True)(x, y)


@case
def value_and_grad_has_aux_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)

    def f(x):
        y = x * w[1] + b
        return (y * y).sum(), y.sum()
    x = _t(ms, np, [0.3, -0.7])
    return ms.value_and_grad(f, grad_position=None, weights=[w, b], has_aux=True)(x)


@case
def value_and_grad_tuple_output(ms, ops, nn, np):
    def f(x):
        return (x * x).sum(), x * 3
    x, _ = _xy(ms, np)
    return ms.value_and_grad(f)(x)


@case
def value_and_grad_return_ids(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    return ms.value_and_grad(_loss_wb(ops, w, b), grad_position=0, weights=[w, b], return_ids=True)(x)


@case
def value_and_grad_both_none(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.value_and_grad(_f_xy, grad_position=None)(x, y)


@case
def value_and_grad_sens_param(ms, ops, nn, np):
    x, y = _xy(ms, np)
    sens = _t(ms, np, [1.0, 2.0, 3.0])
    return ms.value_and_grad(lambda x, y: x * y, grad_position=1, sens_param=True)(x, y, sens)


@case
def get_grad_by_position(ms, ops, nn, np):
    x, y = _xy(ms, np)
    grads = ms.grad(_f_xy, grad_position=(0, 1), return_ids=True)(x, y)
    return ms.get_grad(grads, 1), ms.get_grad(grads, 0)


@case
def get_grad_by_parameter(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    grads = ms.grad(_loss_wb(ops, w, b), grad_position=0, weights=[w, b], return_ids=True)(x)
    return ms.get_grad(grads, b), ms.get_grad(grads, w), ms.get_grad(grads, 0)


@case
def get_grad_from_value_and_grad(ms, ops, nn, np):
    w, b = _wb(ms, np)
    x = _t(ms, np, [0.3, -0.7])
    _, grads = ms.value_and_grad(_loss_wb(ops, w, b), grad_position=None, weights=[w, b], return_ids=True)(x)
    return ms.get_grad(grads, w)


@case
def get_grad_missing_position(ms, ops, nn, np):
    x, y = _xy(ms, np)
    grads = ms.grad(_f_xy, grad_position=(0, 1), return_ids=True)(x, y)
    return ms.get_grad(grads, 5)


@case
def get_grad_missing_parameter(ms, ops, nn, np):
    w, b = _wb(ms, np)
    other = _param(ms, np, [1.0], "other")
    x = _t(ms, np, [0.3, -0.7])
    grads = ms.grad(_loss_wb(ops, w, b), grad_position=None, weights=[w, b], return_ids=True)(x)
    return ms.get_grad(grads, other)


@case
def get_grad_bad_identifier(ms, ops, nn, np):
    x, y = _xy(ms, np)
    grads = ms.grad(_f_xy, grad_position=(0, 1), return_ids=True)(x, y)
    return ms.get_grad(grads, "x")


# ---------------------------------------------------------------------------------------------
# ops.GradOperation
# ---------------------------------------------------------------------------------------------

def _go_net(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_t(ms, np, [[1.0, -2.0], [0.5, 1.5]]), name="w")
            self.b = ms.Parameter(_t(ms, np, [0.25, -0.5]), name="b")

        def construct(self, x, y):
            return ops.tanh(x * self.w + y * self.b)
    return Net()


def _go_inputs(ms, np):
    return _t(ms, np, [[0.5, 1.0], [-1.0, 0.5]]), _t(ms, np, [1.0, -1.0])  # pre-activations |z| < 1.5


def _go(ms, ops, nn, np, sens=None, **options):
    net = _go_net(ms, ops, nn, np)
    x, y = _go_inputs(ms, np)
    grad_op = ops.GradOperation(**options)
    fn = grad_op(net, net.trainable_params()) if options.get("get_by_list") else grad_op(net)
    return fn(x, y, sens) if options.get("sens_param") else fn(x, y)


_SENS = [[1.0, 2.0], [-1.0, 0.5]]


@case
def grad_operation_default(ms, ops, nn, np):
    return _go(ms, ops, nn, np)


@case
def grad_operation_get_all(ms, ops, nn, np):
    return _go(ms, ops, nn, np, get_all=True)


@case
def grad_operation_get_by_list(ms, ops, nn, np):
    return _go(ms, ops, nn, np, get_by_list=True)


@case
def grad_operation_get_all_and_by_list(ms, ops, nn, np):
    return _go(ms, ops, nn, np, get_all=True, get_by_list=True)


@case
def grad_operation_sens(ms, ops, nn, np):
    return _go(ms, ops, nn, np, sens=_t(ms, np, _SENS), sens_param=True)


@case
def grad_operation_get_all_sens(ms, ops, nn, np):
    return _go(ms, ops, nn, np, sens=_t(ms, np, _SENS), get_all=True, sens_param=True)


@case
def grad_operation_by_list_sens(ms, ops, nn, np):
    return _go(ms, ops, nn, np, sens=_t(ms, np, _SENS), get_by_list=True, sens_param=True)


@case
def grad_operation_all_by_list_sens(ms, ops, nn, np):
    return _go(ms, ops, nn, np, sens=_t(ms, np, _SENS), get_all=True, get_by_list=True, sens_param=True)


@case
def grad_operation_get_all_single_input(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return ops.GradOperation(get_all=True)(_sin_times(ops))(x)


@case
def grad_operation_by_list_without_weights(ms, ops, nn, np):
    net = _go_net(ms, ops, nn, np)
    x, y = _go_inputs(ms, np)
    return ops.GradOperation(get_by_list=True)(net)(x, y)


@case
def grad_operation_by_list_frozen_weight(ms, ops, nn, np):
    net = _go_net(ms, ops, nn, np)
    net.b.requires_grad = False
    x, y = _go_inputs(ms, np)
    return ops.GradOperation(get_by_list=True)(net, ms.ParameterTuple((net.w, net.b)))(x, y)


@case
def grad_operation_by_list_trainable_after_freezing(ms, ops, nn, np):
    net = _go_net(ms, ops, nn, np)
    net.w.requires_grad = False
    x, y = _go_inputs(ms, np)
    return ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x, y)


@case
def grad_operation_by_list_single_parameter(ms, ops, nn, np):
    net = _go_net(ms, ops, nn, np)
    x, y = _go_inputs(ms, np)
    return ops.GradOperation(get_by_list=True)(net, net.w)(x, y)


@case
def grad_operation_sens_tuple_outputs(ms, ops, nn, np):
    def f(x, y):
        return x * y, x + y
    x, y = _xy(ms, np)
    sens = (_t(ms, np, [1.0, 2.0, 3.0]), _t(ms, np, [10.0, 20.0, 30.0]))
    return ops.GradOperation(get_all=True, sens_param=True)(f)(x, y, sens)


@case
def grad_operation_sens_dict_outputs(ms, ops, nn, np):
    def f(x, y):
        return {"prod": x * y, "sum": x + y}
    x, y = _xy(ms, np)
    sens = {"prod": _t(ms, np, [1.0, 2.0, 3.0]), "sum": _t(ms, np, [10.0, 20.0, 30.0])}
    return ops.GradOperation(get_all=True, sens_param=True)(f)(x, y, sens)


@case
def grad_operation_sens_wrong_shape(ms, ops, nn, np):
    x, y = _xy(ms, np)
    sens = _t(ms, np, [1.0, 2.0])
    return ops.GradOperation(sens_param=True)(lambda x, y: x * y)(x, y, sens)


@case
def grad_operation_sens_missing(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ops.GradOperation(sens_param=True)(lambda x, y: x * y)(x, y)


@case
def grad_operation_python_number_argument(ms, ops, nn, np):
    def f(x, k):
        return (x * k).sum()
    x, _ = _xy(ms, np)
    return ops.GradOperation(get_all=True)(f)(x, 4.0)


@case
def grad_operation_in_cell_construct(ms, ops, nn, np):
    class GradNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.params = ms.ParameterTuple(net.trainable_params())
            self.grad_op = ops.GradOperation(get_all=True, get_by_list=True)

        def construct(self, x, y):
            return self.grad_op(self.net, self.params)(x, y)
    x, y = _go_inputs(ms, np)
    return GradNet(_go_net(ms, ops, nn, np))(x, y)


# ---------------------------------------------------------------------------------------------
# Higher order: gradients of gradients, Hessians, a transform inside construct, a penalty
# ---------------------------------------------------------------------------------------------

_X3 = [0.5, -1.0, 2.0]


def _analytic(formula):
    """An expected(np) from a formula in x = _X3 (the cases below differentiate elementwise sums)."""
    def expected(np):
        value = formula(np, np.array(_X3))
        if isinstance(value, tuple):
            return tuple(v.astype(np.float32) for v in value)
        return value.astype(np.float32)
    return expected


@case(expected=_analytic(lambda np, x: 6 * x - 4))
def second_order_polynomial(ms, ops, nn, np):
    f = lambda x: (x ** 3 - 2 * x * x).sum()  # noqa: E731
    return ms.grad(ms.grad(f))(_t(ms, np, _X3))


@case(expected=_analytic(lambda np, x: 24 * x))
def third_order_polynomial(ms, ops, nn, np):
    f = lambda x: (x ** 4).sum()  # noqa: E731
    g3 = ms.grad(ms.grad(ms.grad(f)))
    return g3(_t(ms, np, _X3))


@case(expected=_analytic(lambda np, x: 4 * np.exp(2 * x)))
def second_order_exp(ms, ops, nn, np):
    return ms.grad(ms.grad(lambda x: ops.exp(x * 2).sum()))(_t(ms, np, _X3))


@case(expected=_analytic(lambda np, x: (-np.sin(x), -np.cos(x))))
def second_and_third_order_sin(ms, ops, nn, np):
    f = lambda x: ops.sin(x).sum()  # noqa: E731
    x = _t(ms, np, _X3)
    return ms.grad(ms.grad(f))(x), ms.grad(ms.grad(ms.grad(f)))(x)


@case(expected=_analytic(lambda np, x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)))
def second_order_tanh(ms, ops, nn, np):
    return ms.grad(ms.grad(lambda x: ops.tanh(x).sum()))(_t(ms, np, _X3))


def _sigmoid_log_expected(np):
    def first(x):  # d/dx log(sigmoid(x) + 1) = s (1 - s) / (s + 1)
        s = 1 / (1 + np.exp(-x))
        return (s * (1 - s) / (s + 1)).sum()
    return _fd_grad(np, first, _X3).astype(np.float32)


@case(expected=_sigmoid_log_expected, rtol=1e-4, atol=1e-6)
def second_order_sigmoid_log(ms, ops, nn, np):
    f = lambda x: ops.log(ops.sigmoid(x) + 1).sum()  # noqa: E731
    return ms.grad(ms.grad(f))(_t(ms, np, _X3))


_SOFTMAX_WEIGHTS = [1.0, -2.0, 0.5]


def _softmax_second_expected(np):
    c = np.array(_SOFTMAX_WEIGHTS)

    def first_grad_sum(x):  # d/dx sum(softmax(x) * c) = s * (c - s.c), summed
        s = np.exp(x - x.max())
        s = s / s.sum()
        return (s * (c - (s * c).sum())).sum()
    return _fd_grad(np, first_grad_sum, _X3).astype(np.float32)


@case(mindspore_wrong=True, expected=_softmax_second_expected, rtol=1e-4, atol=1e-5,
      note="MindSpore 2.10 CPU fails inside its own softmax double backward (RuntimeError "
           "'The pointer[input_tensor] is null', a framework error)")
def second_order_softmax(ms, ops, nn, np):
    weights = _t(ms, np, _SOFTMAX_WEIGHTS)

    def f(x):
        return (ops.softmax(x, axis=-1) * weights).sum()
    return ms.grad(ms.grad(f))(_t(ms, np, _X3))


def _zeros3_expected(np):
    return np.zeros(3, np.float32)


_REDUCTION_BUG = ("MindSpore 2.10 treats the gradient flowing into a sum's backward as a constant "
                  "under a second derivative: when the function applies a nonlinearity after a "
                  ".sum(), grad(grad(f)) misses the term through the sum")


@case(mindspore_wrong=True, expected=_zeros3_expected,
      note=_REDUCTION_BUG + " (here it returns softmax(x), the first derivative; the gradient of "
           "sum(softmax(x)) = 1 is zero)")
def second_order_logsumexp(ms, ops, nn, np):
    f = lambda x: ops.log(ops.exp(x).sum())  # noqa: E731
    return ms.grad(ms.grad(f))(_t(ms, np, _X3))


def _square_of_sum_expected(np):
    return np.full(3, 6.0, np.float32)  # the Hessian of (sum x)^2 is 2 everywhere; rows sum to 6


@case(mindspore_wrong=True, expected=_square_of_sum_expected, note=_REDUCTION_BUG + " (returns zeros)")
def second_order_square_of_sum(ms, ops, nn, np):
    def f(x):
        return x.sum() ** 2
    return ms.grad(ms.grad(f))(_t(ms, np, _X3))


def _norm_expected(np):
    return _fd_grad(np, lambda x: (x / np.sqrt((x * x).sum())).sum(), _X3).astype(np.float32)


@case(mindspore_wrong=True, expected=_norm_expected, rtol=1e-4, atol=1e-5, note=_REDUCTION_BUG)
def second_order_norm(ms, ops, nn, np):
    def f(x):
        return ops.sqrt((x * x).sum())
    return ms.grad(ms.grad(f))(_t(ms, np, _X3))


def _lse_hessian_expected(np):
    x = np.array(_X3)
    s = np.exp(x) / np.exp(x).sum()
    return (np.diag(s) - np.outer(s, s)).astype(np.float32)


@case(expected=_lse_hessian_expected, rtol=1e-4, atol=1e-6,
      note="the Hessian of logsumexp by jacrev(grad): compare with second_order_logsumexp")
def hessian_jacrev_of_grad_logsumexp(ms, ops, nn, np):
    def f(x):
        return ops.log(ops.exp(x).sum())
    return ms.jacrev(ms.grad(f))(_t(ms, np, _X3))


@case
def second_order_two_inputs_mixed(ms, ops, nn, np):
    def f(x, y):
        return (x * x * y * y * y).sum()

    def dfdx_sum(x, y):
        return ms.grad(f, grad_position=0)(x, y).sum()
    x, y = _xy(ms, np)
    return ms.grad(dfdx_sum, grad_position=(0, 1))(x, y)


@case(expected=_analytic(lambda np, x: 3 * x * x + 6 * x))
def second_order_grad_of_value_and_grad(ms, ops, nn, np):
    f = lambda x: (x ** 3).sum()  # noqa: E731
    return ms.grad(ms.value_and_grad(f))(_t(ms, np, _X3))


@case
def second_order_value_and_grad_of_grad(ms, ops, nn, np):
    f = lambda x: (ops.sin(x) * x).sum()  # noqa: E731
    return ms.value_and_grad(lambda x: ms.grad(f)(x).sum())(_t(ms, np, _X3))


@case
def second_order_grad_operation_nested(ms, ops, nn, np):
    f = lambda x, y: (x * x * x * y).sum()  # noqa: E731
    inner = ops.GradOperation()(f)
    outer = ops.GradOperation(get_all=True)(inner)
    x, y = _xy(ms, np)
    return outer(x, y)


_W3 = [0.5, -1.0, 2.0]
_X3B = [1.0, 0.5, -0.25]


def _wrt_weights_expected(np):
    def penalty(x, w):  # g = d/dx sum(sin(x w) w) = cos(x w) w^2
        g = np.cos(x * w) * w * w
        return (g * g).sum()
    x0, w0 = np.array(_X3B), np.array(_W3)
    return (_fd_grad(np, lambda x: penalty(x, w0), x0).astype(np.float32),
            _fd_grad(np, lambda w: penalty(x0, w), w0).astype(np.float32))


@case(expected=_wrt_weights_expected, rtol=1e-4, atol=1e-5)
def second_order_wrt_weights(ms, ops, nn, np):
    w = _param(ms, np, _W3, "w")

    def loss(x):
        return (ops.sin(x * w) * w).sum()

    def input_grad_norm(x):
        g = ms.grad(loss)(x)
        return (g * g).sum()
    x = _t(ms, np, _X3B)
    return ms.grad(input_grad_norm, grad_position=0, weights=w)(x)


def _hessian_expected(np):
    x = np.array(_X3)
    # f(x) = sum(x_i^3) + x0*x1*x2; H = diag(6x) + off-diagonal products
    h = np.diag(6 * x)
    h[0, 1] = h[1, 0] = x[2]
    h[0, 2] = h[2, 0] = x[1]
    h[1, 2] = h[2, 1] = x[0]
    return h.astype(np.float32)


def _cubic_coupled(x):
    return (x ** 3).sum() + x[0] * x[1] * x[2]


@case(expected=_hessian_expected)
def hessian_jacrev_of_grad(ms, ops, nn, np):
    return ms.jacrev(ms.grad(_cubic_coupled))(_t(ms, np, _X3))


@case(expected=_hessian_expected)
def hessian_jacfwd_of_jacrev(ms, ops, nn, np):
    return ms.jacfwd(ms.jacrev(_cubic_coupled))(_t(ms, np, _X3))


@case(expected=_hessian_expected)
def hessian_jacfwd_of_grad(ms, ops, nn, np):
    return ms.jacfwd(ms.grad(_cubic_coupled))(_t(ms, np, _X3))


@case
def hessian_vector_product_jvp_of_grad(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    v = _t(ms, np, [1.0, 0.0, -1.0])
    return ms.jvp(ms.grad(_cubic_coupled), x, v)


def _hvp_expected(np):
    x = np.array(_X3)
    return ((6 * x + np.exp(x)) * np.array([1.0, 0.5, -1.0])).astype(np.float32)


@case(expected=_hvp_expected, rtol=1e-5, atol=1e-5)
def hessian_vector_product_reverse_over_reverse(ms, ops, nn, np):
    v = _t(ms, np, [1.0, 0.5, -1.0])

    def f(x):
        return (x ** 3 + ops.exp(x)).sum()

    def grad_dot_v(x):
        return (ms.grad(f)(x) * v).sum()
    return ms.grad(grad_dot_v)(_t(ms, np, _X3))


def _hvp_indexing_expected(np):
    return _hessian_expected(np) @ np.array([1.0, 0.0, -1.0], np.float32)


@case(mindspore_wrong=True, expected=_hvp_indexing_expected,
      note="MindSpore 2.10 raises TypeError ('Only support integers, ... as index, but got 0 with "
           "type int') when a gradient of a gradient goes through x[0]; jacrev(grad) of the same "
           "function works (hessian_jacrev_of_grad)")
def second_order_through_integer_indexing(ms, ops, nn, np):
    v = _t(ms, np, [1.0, 0.0, -1.0])

    def grad_dot_v(x):
        return (ms.grad(_cubic_coupled)(x) * v).sum()
    return ms.grad(grad_dot_v)(_t(ms, np, _X3))


def _grad_inside_construct_expected(np):
    def penalty(x):  # g = d/dx sum(sin(x^2)) = 2 x cos(x^2)
        g = 2 * x * np.cos(x * x)
        return (g * g).sum()
    return _fd_grad(np, penalty, _X3).astype(np.float32)


@case(expected=_grad_inside_construct_expected, rtol=1e-4, atol=1e-4)
def second_order_grad_inside_construct(ms, ops, nn, np):
    class InputGradNorm(nn.Cell):
        """construct takes a gradient: the squared norm of d(sum(sin(x*x)))/dx."""

        def construct(self, x):
            g = ms.grad(lambda t: ops.sin(t * t).sum())(x)
            return (g * g).sum()
    return ms.grad(InputGradNorm())(_t(ms, np, _X3))


def _dense_fixed(ms, np, nn):
    dense = nn.Dense(3, 2)
    dense.weight.set_data(_t(ms, np, [[0.5, -1.0, 0.25], [1.5, 0.5, -0.75]]))
    dense.bias.set_data(_t(ms, np, [0.1, -0.2]))
    return dense


_PENALTY_X = [[0.2, -0.4, 0.6], [1.0, 0.5, -0.5]]


def _penalty_numpy(np, weight, bias):
    x = np.array(_PENALTY_X)
    y = np.tanh(x @ weight.T + bias)
    g = (1 - y * y) @ weight  # d sum(tanh(xW^T+b)) / dx
    return (g * g).sum()


def _gradient_penalty_expected(np):
    w0 = np.array([[0.5, -1.0, 0.25], [1.5, 0.5, -0.75]])
    b0 = np.array([0.1, -0.2])
    gw = _fd_grad(np, lambda w: _penalty_numpy(np, w, b0), w0)
    gb = _fd_grad(np, lambda b: _penalty_numpy(np, w0, b), b0)
    return (gw.astype(np.float32), gb.astype(np.float32))


@case(expected=_gradient_penalty_expected, rtol=1e-4, atol=1e-5,
      note="a second derivative through Dense's MatMul: MindSpore gets this one right "
           "(its expected_max_abs_diff in the fixture), unlike ops.matmul of a matrix by a vector")
def gradient_penalty_dense(ms, ops, nn, np):
    dense = _dense_fixed(ms, np, nn)
    x = _t(ms, np, _PENALTY_X)

    def penalty(x):
        g = ms.grad(lambda t: ops.tanh(dense(t)).sum())(x)
        return (g * g).sum()
    return ms.grad(penalty, grad_position=None, weights=dense.trainable_params())(x)


def _matmul_second_expected(np):
    a = np.array([[1.0, 2.0], [-1.0, 0.5]])
    x0 = np.array([0.5, -0.25])

    def first_grad_norm(x):
        y = a @ x
        g = a.T @ (3 * y * y)  # d sum((a x)^3) / dx
        return (g * g).sum()
    return _fd_grad(np, first_grad_norm, x0).astype(np.float32)


@case(mindspore_wrong=True, expected=_matmul_second_expected, rtol=1e-4, atol=1e-4,
      note="MINDSPORE_NOTES: second derivatives through ops.matmul come out as zeros")
def second_order_through_matmul(ms, ops, nn, np):
    a = _t(ms, np, [[1.0, 2.0], [-1.0, 0.5]])

    def f(x):
        return (ops.matmul(a, x) ** 3).sum()

    def first_grad_norm(x):
        g = ms.grad(f)(x)
        return (g * g).sum()
    return ms.grad(first_grad_norm)(_t(ms, np, [0.5, -0.25]))


@case
def second_order_through_cell_backward_hook(ms, ops, nn, np):
    seen = []

    class Square(nn.Cell):
        def construct(self, x):
            return x * x * x

    def backward_hook(cell, grad_input, grad_output):
        seen.append(len(grad_input))
    net = Square()
    net.register_backward_hook(backward_hook)

    def f(x):
        return net(x).sum()
    return ms.grad(ms.grad(f))(_t(ms, np, _X3)), len(seen) > 0


def _recompute_expected(np):
    x = np.array(_X3)
    first = np.sin(x) + x * np.cos(x)
    second = 2 * np.cos(x) - x * np.sin(x)
    return (first.astype(np.float32), second.astype(np.float32))


@case(mindspore_wrong=True, expected=_recompute_expected,
      note="MindSpore 2.10 returns zeros for the second derivative through a recompute() Cell")
def second_order_through_recompute_cell(ms, ops, nn, np):
    class Block(nn.Cell):
        def construct(self, x):
            return ops.sin(x) * x
    block = Block()
    block.recompute()

    def f(x):
        return block(x).sum()
    return ms.grad(f)(_t(ms, np, _X3)), ms.grad(ms.grad(f))(_t(ms, np, _X3))


# ---------------------------------------------------------------------------------------------
# jvp, vjp, jacfwd, jacrev
# (MindSpore compiles the function given to jvp / jacfwd / jacrev / vmap, and its parser cannot
# read a lambda written inside a call's arguments: the functions below are defs.)
# ---------------------------------------------------------------------------------------------

def _sin_times(ops):
    """x -> sin(x) * x, written with the ops module under test."""
    def sin_times(x):
        return ops.sin(x) * x
    return sin_times


def _x2y(x, y):
    return x * x * y


@case
def jvp_single_input(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    v = _t(ms, np, [1.0, 1.0, 0.5])
    return ms.jvp(_sin_times(ops), x, v)


@case
def jvp_tuple_inputs(ms, ops, nn, np):
    x, y = _xy(ms, np)
    vx, vy = _t(ms, np, [1.0, 0.0, 1.0]), _t(ms, np, [0.5, 0.5, 0.5])
    return ms.jvp(_x2y, (x, y), (vx, vy))


@case
def jvp_list_inputs(ms, ops, nn, np):
    x, y = _xy(ms, np)
    vx, vy = _t(ms, np, [1.0, 0.0, 1.0]), _t(ms, np, [0.5, 0.5, 0.5])
    return ms.jvp(_x2y, [x, y], [vx, vy])


@case
def jvp_tuple_outputs(ms, ops, nn, np):
    def f(x):
        return x * x, ops.exp(x).sum()
    x = _t(ms, np, _X3)
    v = _t(ms, np, [1.0, -1.0, 2.0])
    return ms.jvp(f, x, v)


@case
def jvp_has_aux(ms, ops, nn, np):
    def f(x):
        return x * x * x, x + 1, x * 0
    x = _t(ms, np, _X3)
    v = _t(ms, np, [1.0, -1.0, 2.0])
    return ms.jvp(f, x, v, has_aux=True)


@case
def jvp_has_aux_single_output(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    return ms.jvp(_sin_times(ops), x, x, has_aux=True)


@case
def jvp_tangent_shape_mismatch(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    return ms.jvp(_sin_times(ops), x, _t(ms, np, [1.0, 2.0]))


@case
def jvp_tangent_count_mismatch(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.jvp(_x2y, (x, y), (x,))


@case
def jvp_inputs_not_tensor(ms, ops, nn, np):
    return ms.jvp(_sin_times(ops), 2.0, 1.0)


@case
def jvp_of_cell(ms, ops, nn, np):
    class Net(nn.Cell):
        def construct(self, x, y):
            return x ** 3 + y
    x, y = _xy(ms, np)
    return ms.jvp(Net(), (x, y), (_t(ms, np, [1.0, 1.0, 1.0]), _t(ms, np, [1.0, 1.0, 1.0])))


@case
def vjp_single_input(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    out, vjp_fn = ms.vjp(_sin_times(ops), x)
    return out, vjp_fn(_t(ms, np, [1.0, 2.0, 3.0]))


@case
def vjp_several_inputs(ms, ops, nn, np):
    x, y = _xy(ms, np)
    out, vjp_fn = ms.vjp(_x2y, x, y)
    return out, vjp_fn(_t(ms, np, [1.0, -1.0, 0.5]))


@case
def vjp_tuple_outputs(ms, ops, nn, np):
    def f(x, y):
        return x * y, (x + y).sum()
    x, y = _xy(ms, np)
    out, vjp_fn = ms.vjp(f, x, y)
    return out, vjp_fn((_t(ms, np, [1.0, 2.0, 3.0]), _t(ms, np, 2.0)))


@case
def vjp_tuple_outputs_cotangent_not_tuple(ms, ops, nn, np):
    def f(x, y):
        return x * y, x + y
    x, y = _xy(ms, np)
    _, vjp_fn = ms.vjp(f, x, y)
    return vjp_fn(_t(ms, np, [1.0, 2.0, 3.0]))


@case
def vjp_has_aux(ms, ops, nn, np):
    def f(x):
        return x * x, x + 1, x.sum()
    x = _t(ms, np, _X3)
    out, vjp_fn, aux = ms.vjp(f, x, has_aux=True)
    return out, vjp_fn(_t(ms, np, [1.0, 1.0, 1.0])), aux


@case
def vjp_weights(ms, ops, nn, np):
    w, b = _wb(ms, np)

    def f(x):
        return x * w[0] + b
    x = _t(ms, np, [0.3, -0.7])
    out, vjp_fn = ms.vjp(f, x, weights=[w, b])
    return out, vjp_fn(_t(ms, np, [1.0, 2.0]))


@case
def vjp_called_twice(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    _, vjp_fn = ms.vjp(_sin_times(ops), x)
    return vjp_fn(_t(ms, np, [1.0, 0.0, 0.0])), vjp_fn(_t(ms, np, [0.0, 1.0, 2.0]))


@case
def vjp_cotangent_wrong_shape(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    _, vjp_fn = ms.vjp(_sin_times(ops), x)
    return vjp_fn(_t(ms, np, [1.0, 2.0]))


@case
def vjp_of_vjp(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    ones = _t(ms, np, [1.0, 1.0, 1.0])

    def first(x):
        _, vjp_fn = ms.vjp(_sin_times(ops), x)
        return vjp_fn(ones)[0]
    out, vjp_fn = ms.vjp(first, x)
    return out, vjp_fn(_t(ms, np, [1.0, 0.5, 2.0]))


def _sin_scaled_by_sum(ops):
    def sin_scaled_by_sum(x):
        return ops.sin(x) * x.sum()
    return sin_scaled_by_sum


def _xyy(x, y):
    return x * y * y


def _prod_sum_aux(x, y):
    return x * y, x + y, y.sum()


def _square_and_sum(x):
    return x * x, x.sum()


def _times_column_sums(x):
    return x * x.sum(axis=0)


def _jacobian_expected(np):
    x = np.array(_X3)
    return (np.diag(np.cos(x)) * x.sum() + np.sin(x)[:, None]).astype(np.float32)


@case(expected=_jacobian_expected)
def jacfwd_single_input(ms, ops, nn, np):
    return ms.jacfwd(_sin_scaled_by_sum(ops))(_t(ms, np, _X3))


@case
def jacfwd_position_tuple(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.jacfwd(_xyy, grad_position=(0, 1))(x, y)


@case
def jacfwd_has_aux(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.jacfwd(_prod_sum_aux, grad_position=1, has_aux=True)(x, y)


@case
def jacfwd_tuple_outputs(ms, ops, nn, np):
    return ms.jacfwd(_square_and_sum)(_t(ms, np, _X3))


@case
def jacfwd_matrix_input(ms, ops, nn, np):
    return ms.jacfwd(_times_column_sums)(_t(ms, np, [[1.0, 2.0], [3.0, -1.0]]))


@case
def jacfwd_position_out_of_range(ms, ops, nn, np):
    return ms.jacfwd(_sin_times(ops), grad_position=1)(_t(ms, np, _X3))


@case
def jacfwd_has_aux_not_bool(ms, ops, nn, np):
    return ms.jacfwd(_square_and_sum, has_aux="yes")(_t(ms, np, _X3))


@case(expected=_jacobian_expected)
def jacrev_single_input(ms, ops, nn, np):
    return ms.jacrev(_sin_scaled_by_sum(ops))(_t(ms, np, _X3))


@case
def jacrev_position_tuple(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.jacrev(_xyy, grad_position=(0, 1))(x, y)


@case
def jacrev_has_aux(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.jacrev(_prod_sum_aux, grad_position=1, has_aux=True)(x, y)


@case
def jacrev_tuple_outputs(ms, ops, nn, np):
    return ms.jacrev(_square_and_sum)(_t(ms, np, _X3))


@case
def jacrev_matrix_input(ms, ops, nn, np):
    return ms.jacrev(_times_column_sums)(_t(ms, np, [[1.0, 2.0], [3.0, -1.0]]))


@case
def jacrev_scalar_output(ms, ops, nn, np):
    def f(x):
        return (x * x).sum()
    return ms.jacrev(f)(_t(ms, np, _X3))


@case
def jacrev_of_cell_with_parameter(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            # |x * w| <= 1: MindSpore's CPU tanh gradient loses ~2% of 1 - tanh^2 near tanh(4)
            self.w = ms.Parameter(_t(ms, np, [1.0, -1.0, 0.5]), name="w")

        def construct(self, x):
            return ops.tanh(x * self.w)
    return ms.jacrev(Net())(_t(ms, np, _X3))


@case
def jacrev_position_out_of_range(ms, ops, nn, np):
    return ms.jacrev(_sin_times(ops), grad_position=1)(_t(ms, np, _X3))


@case
def jacrev_position_none(ms, ops, nn, np):
    return ms.jacrev(_sin_times(ops), grad_position=None)(_t(ms, np, _X3))


@case
def ops_jacobian_twins(ms, ops, nn, np):
    x = _t(ms, np, _X3)
    ones = _t(ms, np, [1.0, 1.0, 1.0])
    _, vjp_fn = ops.vjp(_sin_times(ops), x)
    return (ops.jacfwd(_sin_times(ops))(x), ops.jacrev(_sin_times(ops))(x), ops.jvp(_sin_times(ops), x, ones),
            vjp_fn(ones))


# ---------------------------------------------------------------------------------------------
# vmap
# ---------------------------------------------------------------------------------------------

_BATCH = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]


def _sum_of_squares(x):
    return (x * x).sum()


def _mul(a, b):
    return a * b


def _sub(a, b):
    return a - b


def _add(a, b):
    return a + b


def _double(x):
    return x * 2


def _row_sum(x):
    return x.sum()


def _times_own_sum(x):
    return x * x.sum()


@case
def vmap_default_axes(ms, ops, nn, np):
    return ms.vmap(_sum_of_squares)(_t(ms, np, _BATCH))


@case
def vmap_in_axes_none(ms, ops, nn, np):
    return ms.vmap(_mul, in_axes=(0, None))(_t(ms, np, _BATCH), _t(ms, np, [1.0, 10.0, 100.0]))


@case
def vmap_in_axes_one(ms, ops, nn, np):
    return ms.vmap(_times_own_sum, in_axes=1)(_t(ms, np, _BATCH))


@case
def vmap_in_axes_negative(ms, ops, nn, np):
    return ms.vmap(_row_sum, in_axes=-1)(_t(ms, np, _BATCH))


@case
def vmap_in_axes_list(ms, ops, nn, np):
    return ms.vmap(_sub, in_axes=[1, 0])(_t(ms, np, _BATCH), _t(ms, np, [1.0, 2.0, 3.0]))


@case
def vmap_nested_in_axes(ms, ops, nn, np):
    def f(pair, scale):
        a, b = pair
        return (a * b).sum() * scale
    a = _t(ms, np, _BATCH)
    b = _t(ms, np, [[1.0, -1.0], [0.5, 0.5], [2.0, 0.0]])
    return ms.vmap(f, in_axes=((0, 1), None))((a, b), _t(ms, np, 3.0))


@case
def vmap_out_axes_one(ms, ops, nn, np):
    return ms.vmap(_double, in_axes=0, out_axes=1)(_t(ms, np, _BATCH))


@case
def vmap_out_axes_tuple(ms, ops, nn, np):
    def f(x):
        return x * 2, x.sum()
    return ms.vmap(f, out_axes=(1, 0))(_t(ms, np, _BATCH))


@case
def vmap_tuple_output(ms, ops, nn, np):
    def f(x, y):
        return x + y, x * y
    return ms.vmap(f)(_t(ms, np, _BATCH), _t(ms, np, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]))


@case
def vmap_output_not_mapped(ms, ops, nn, np):
    c = _t(ms, np, [7.0, 8.0])

    def f(x):
        return x.sum(), c
    return ms.vmap(f)(_t(ms, np, _BATCH))


@case
def vmap_output_not_mapped_out_axes_none(ms, ops, nn, np):
    c = _t(ms, np, [7.0, 8.0])

    def f(x):
        return x.sum(), c
    return ms.vmap(f, out_axes=(0, None))(_t(ms, np, _BATCH))


@case
def vmap_nested(ms, ops, nn, np):
    x = _t(ms, np, [[1.0, 2.0], [3.0, 4.0]])
    y = _t(ms, np, [10.0, 20.0, 30.0])
    inner = ms.vmap(_mul, in_axes=(None, 0))
    outer = ms.vmap(inner, in_axes=(0, None))
    return outer(x, y)


@case
def vmap_of_grad_per_example(ms, ops, nn, np):
    w = _t(ms, np, [0.5, -0.5, 0.25])  # |x * w| <= 1: MindSpore's tanh gradient is imprecise near saturation

    def loss(x, target):
        return (ops.tanh(x * w).sum() - target) ** 2
    xs = _t(ms, np, _BATCH)
    targets = _t(ms, np, [1.0, -1.0])
    return ms.vmap(ms.grad(loss), in_axes=(0, 0))(xs, targets)


@case
def vmap_of_grad_wrt_broadcast_weights(ms, ops, nn, np):
    def loss(w, x):
        return ((x * w).sum() - 1.0) ** 2
    w = _t(ms, np, [0.5, -1.0, 2.0])
    return ms.vmap(ms.grad(loss), in_axes=(None, 0))(w, _t(ms, np, _BATCH))


@case
def vmap_of_grad_dense_per_example(ms, ops, nn, np):
    dense = _dense_fixed(ms, np, nn)
    weights = dense.trainable_params()

    def loss(x):
        return (dense(x.reshape(1, 3)) ** 2).sum()
    return ms.vmap(ms.grad(loss, grad_position=None, weights=weights))(_t(ms, np, _BATCH))


@case
def grad_of_vmap(ms, ops, nn, np):
    def per_row(x):
        return ops.sin(x).sum()
    batched = ms.vmap(per_row)

    def total(xs):
        return batched(xs).sum()
    return ms.grad(total)(_t(ms, np, _BATCH))


@case
def vmap_cell(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_t(ms, np, [1.0, 2.0, -1.0]), name="w")

        def construct(self, x):
            return (x * self.w).sum()
    return ms.vmap(Net())(_t(ms, np, _BATCH))


@case
def vmap_cell_list_ensemble(ms, ops, nn, np):
    class Scale(nn.Cell):
        def __init__(self, k):
            super().__init__()
            self.k = ms.Parameter(_t(ms, np, [k]), name="k")

        def construct(self, x):
            return x * self.k
    models = nn.CellList([Scale(2.0), Scale(-1.0)])
    return ms.vmap(models, in_axes=0)(_t(ms, np, _BATCH))


def _vmap_matmul_expected(np):
    m = np.array([[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]], np.float32)
    v = np.array([[1.0, -1.0], [2.0, 3.0]], np.float32)
    return np.einsum("bij,bj->bi", m, v)


@case(mindspore_wrong=True, expected=_vmap_matmul_expected,
      note="MindSpore 2.10 ignores the batch axis of the vector: each example is multiplied by the "
           "whole (2, 2) batch of vectors, giving shape (2, 2, 2) instead of (2, 2)")
def vmap_matmul_per_example(ms, ops, nn, np):
    m = _t(ms, np, [[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]])
    v = _t(ms, np, [[1.0, -1.0], [2.0, 3.0]])
    return ms.vmap(ops.matmul)(m, v)


@case
def vmap_of_jacrev_per_example(ms, ops, nn, np):
    return ms.vmap(ms.jacrev(_sin_times(ops)))(_t(ms, np, _BATCH))


@case
def vmap_mismatched_axis_sizes(ms, ops, nn, np):
    return ms.vmap(_add)(_t(ms, np, _BATCH), _t(ms, np, [[1.0, 2.0, 3.0]] * 3))


@case
def vmap_in_axes_string(ms, ops, nn, np):
    return ms.vmap(_double, in_axes="0")(_t(ms, np, _BATCH))


@case
def vmap_in_axes_float(ms, ops, nn, np):
    return ms.vmap(_double, in_axes=0.0)(_t(ms, np, _BATCH))


@case
def vmap_in_axes_wrong_length(ms, ops, nn, np):
    return ms.vmap(_add, in_axes=(0, 0, 0))(_t(ms, np, _BATCH), _t(ms, np, _BATCH))


@case
def vmap_in_axes_all_none(ms, ops, nn, np):
    return ms.vmap(_double, in_axes=None)(_t(ms, np, _BATCH))


@case
def vmap_in_axes_out_of_bounds(ms, ops, nn, np):
    return ms.vmap(_double, in_axes=2)(_t(ms, np, _BATCH))


@case
def vmap_out_axes_out_of_bounds(ms, ops, nn, np):
    return ms.vmap(_double, out_axes=3)(_t(ms, np, _BATCH))


@case
def vmap_out_axes_wrong_length(ms, ops, nn, np):
    return ms.vmap(_double, out_axes=(0, 1))(_t(ms, np, _BATCH))


@case
def ops_vmap_twin(ms, ops, nn, np):
    def column_max(x):
        return x.max()
    return ops.vmap(column_max, in_axes=1)(_t(ms, np, _BATCH))


# ---------------------------------------------------------------------------------------------
# Gradient control: stop_gradient, HookBackward, register_hook, frozen Parameters, bprop
# ---------------------------------------------------------------------------------------------

@case
def stop_gradient_in_sum(ms, ops, nn, np):
    def f(x, y):
        return (x * y + ops.stop_gradient(x * x)).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y)


@case
def stop_gradient_in_product(ms, ops, nn, np):
    def f(x, y):
        return (ops.stop_gradient(x * y) * x * y).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y)


@case
def stop_gradient_whole_output(ms, ops, nn, np):
    x, y = _xy(ms, np)
    return ms.grad(lambda x: ops.stop_gradient((x * x).sum()))(x)


@case
def stop_gradient_on_tuple(ms, ops, nn, np):
    def f(x, y):
        a, b = ops.stop_gradient((x * 2, y * 3))
        return (a * x + b * y).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y)


@case
def stop_gradient_forward_value(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return ops.stop_gradient(x * 2), ops.stop_gradient(3.0)


@case
def stop_gradient_second_order(ms, ops, nn, np):
    def f(x):
        return (x * x * ops.stop_gradient(x)).sum()
    x = _t(ms, np, _X3)
    return ms.grad(f)(x), ms.grad(ms.grad(f))(x)


def _hook_graph(hook, x, y):
    z = x * y
    z = hook(z)
    return (z * y).sum()


@case
def hook_backward_observes(ms, ops, nn, np):
    seen = []

    def hook_fn(grad):
        seen.append(grad)
    hook = ops.HookBackward(hook_fn)
    x, y = _xy(ms, np)
    grads = ms.grad(lambda x, y: _hook_graph(hook, x, y), grad_position=(0, 1))(x, y)
    return grads, seen


@case
def hook_backward_replaces_with_tuple(ms, ops, nn, np):
    seen = []

    def hook_fn(grad):
        seen.append(grad)
        return (grad[0] * 10,)
    hook = ops.HookBackward(hook_fn)
    x, y = _xy(ms, np)
    return ms.grad(lambda x, y: _hook_graph(hook, x, y), grad_position=(0, 1))(x, y), seen


@case
def hook_backward_replaces_with_tensor(ms, ops, nn, np):
    def hook_fn(grad):
        return grad[0] * 10
    hook = ops.HookBackward(hook_fn)
    x, y = _xy(ms, np)
    return ms.grad(lambda x, y: _hook_graph(hook, x, y), grad_position=(0, 1))(x, y)


@case
def hook_backward_forward_value(ms, ops, nn, np):
    hook = ops.HookBackward(lambda g: None)
    x, _ = _xy(ms, np)
    return hook(x * 2)


@case
def hook_backward_two_inputs(ms, ops, nn, np):
    seen = []

    def hook_fn(grad):
        seen.append(grad)
    hook = ops.HookBackward(hook_fn)

    def f(x, y):
        a, b = hook(x * 2, y * 3)
        return (a * b).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y), seen


@case
def hook_backward_not_callable(ms, ops, nn, np):
    return ops.HookBackward(5)


@case
def hook_backward_input_not_tensor(ms, ops, nn, np):
    hook = ops.HookBackward(lambda g: None)
    return hook(3.0)


@case
def hook_backward_under_grad_operation(ms, ops, nn, np):
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g))
    x, y = _t(ms, np, 1.0), _t(ms, np, 2.0)
    grads = ops.GradOperation(get_all=True)(lambda x, y: _hook_graph(hook, x, y))(x, y)
    return grads, seen


@case
def hook_backward_second_order(ms, ops, nn, np):
    seen = []

    def hook_fn(grad):
        seen.append(grad)
    hook = ops.HookBackward(hook_fn)

    def f(x):
        return (hook(x * x) * x).sum()
    return ms.grad(ms.grad(f))(_t(ms, np, _X3)), len(seen)


@case
def register_hook_doubles_gradient(ms, ops, nn, np):
    def f(x, y):
        z = x * y
        z.register_hook(lambda g: g * 2)
        return (z * y).sum()
    x, y = _xy(ms, np)
    return ms.grad(f, grad_position=(0, 1))(x, y)


@case
def register_hook_sees_gradient(ms, ops, nn, np):
    seen = []

    def hook_fn(grad):
        seen.append(grad)
        return grad

    def f(x, y):
        z = x * y
        z.register_hook(hook_fn)
        return (z * z).sum()
    x, y = _xy(ms, np)
    return ms.grad(f)(x, y), seen


@case
def register_hook_returns_none(ms, ops, nn, np):
    seen = []

    def f(x):
        z = x * 3
        z.register_hook(lambda g: seen.append(g))
        return (z * z).sum()
    x, _ = _xy(ms, np)
    return ms.grad(f)(x), seen


@case
def register_hook_handle_remove(ms, ops, nn, np):
    fired = []

    def f(x, remove):
        z = x * x
        handle = z.register_hook(lambda g: fired.append(1) or g * 100)
        before = len(z.hooks())
        if remove:
            handle.remove()
        return (z * 2).sum() + before * 0
    x, _ = _xy(ms, np)
    kept = ms.grad(f)(x, False)
    removed = ms.grad(f)(x, True)
    return kept, removed, len(fired)


@case
def register_hook_on_input(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    handle = x.register_hook(lambda g: g * 2)
    with_hook = ms.grad(lambda x: (x * x).sum())(x)
    count = len(x.hooks())
    handle.remove()
    without = ms.grad(lambda x: (x * x).sum())(x)
    return with_hook, count, len(x.hooks()), without


@case
def register_hook_several_in_order(ms, ops, nn, np):
    order = []

    def f(x):
        z = x * 1
        z.register_hook(lambda g: order.append("first") or g + 1)
        z.register_hook(lambda g: order.append("second") or g * 10)
        return (z * x).sum()
    x = _t(ms, np, [1.0, 2.0])
    return ms.grad(f)(x), order


@case
def register_hook_hooks_list(ms, ops, nn, np):
    def hook_fn(g):
        return g
    x, _ = _xy(ms, np)
    z = x * 2
    h1 = z.register_hook(hook_fn)
    z.register_hook(hook_fn)
    hooks = z.hooks()
    result = (type(hooks).__name__, len(hooks), hooks[0] is hook_fn)
    h1.remove()
    return result, len(z.hooks())


@case
def register_hook_not_callable(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return x.register_hook("not a function")


@case
def remove_hook_unknown_id(ms, ops, nn, np):
    x, _ = _xy(ms, np)
    return x.remove_hook(12345)


@case
def register_hook_on_parameter(ms, ops, nn, np):
    w = _param(ms, np, [1.0, -1.0], "w")
    w.register_hook(lambda g: g * 3)
    x = _t(ms, np, [2.0, 5.0])
    return ms.grad(lambda x: (x * w).sum(), grad_position=None, weights=w)(x)


def _frozen_nested_expected(np):
    frozen = np.array([1.0, 2.0, 3.0])

    def penalty(x, w):  # g = d/dx sum(sin(x w) frozen) = cos(x w) w frozen
        g = np.cos(x * w) * w * frozen
        return (g * g).sum()
    x0, w0 = np.array(_X3B), np.array(_W3)
    gx = _fd_grad(np, lambda x: penalty(x, w0), x0).astype(np.float32)
    gw = _fd_grad(np, lambda w: penalty(x0, w), w0).astype(np.float32)
    return (gx, (gw, np.zeros(3, np.float32)))  # a frozen Parameter gets zeros, as MindSpore gives


@case(expected=_frozen_nested_expected, rtol=1e-4, atol=1e-4)
def frozen_parameter_in_nested_grad(ms, ops, nn, np):
    w = _param(ms, np, _W3, "w")
    frozen = _param(ms, np, [1.0, 2.0, 3.0], "frozen", requires_grad=False)

    def loss(x):
        return (ops.sin(x * w) * frozen).sum()

    def outer(x):
        g = ms.grad(loss)(x)
        return (g * g).sum()
    x = _t(ms, np, _X3B)
    return ms.grad(outer, grad_position=0, weights=[w, frozen])(x)


@case
def frozen_parameter_trainable_params(ms, ops, nn, np):
    net = _go_net(ms, ops, nn, np)
    net.b.requires_grad = False
    return [p.name for p in net.trainable_params()], [p.name for p in net.get_parameters()]


def _bprop_cell(nn, bprop_fn):
    class Custom(nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return bprop_fn(x, y, out, dout)
    return Custom()


@case
def bprop_custom_gradients(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (dout * 2, y * 0 + 5))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_sees_out_and_dout(ms, ops, nn, np):
    seen = []

    def bprop_fn(x, y, out, dout):
        seen.append((out, dout))
        return dout * y, dout * x
    net = _bprop_cell(nn, bprop_fn)
    x, y = _xy(ms, np)
    return ms.grad(lambda x, y: (net(x, y) * 3).sum(), grad_position=(0, 1))(x, y), seen


@case
def bprop_wrong_shape_broadcastable(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (ms.Tensor(np.array(1.0, np.float32)), dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_wrong_shape_reducible(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (ms.Tensor(np.ones((2, 3), np.float32)), dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_wrong_shape_incompatible(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (ms.Tensor(np.ones((2,), np.float32)), dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_integer_gradient(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (ms.Tensor(np.array([1, 2, 3], np.int32)), dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_float64_gradient(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (ms.Tensor(np.array([1.5, 2.5, 3.5])), dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_too_many_values(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (dout, dout, dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_too_few_values(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (dout * 7,))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_returns_single_tensor(ms, ops, nn, np):
    class Custom(nn.Cell):
        def construct(self, x):
            return x * x

        def bprop(self, x, out, dout):
            return dout * 4
    x, _ = _xy(ms, np)
    return ms.grad(Custom())(x)


@case
def bprop_returns_none(ms, ops, nn, np):
    net = _bprop_cell(nn, lambda x, y, out, dout: (None, dout))
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_calls_grad(ms, ops, nn, np):
    def inner_grad(x, y, out, dout):
        gx = ms.grad(lambda a: (a * a * y).sum())(x)
        return gx * dout, dout * x
    net = _bprop_cell(nn, inner_grad)
    x, y = _xy(ms, np)
    return ms.grad(net, grad_position=(0, 1))(x, y)


@case
def bprop_construct_not_recorded(ms, ops, nn, np):
    class Custom(nn.Cell):
        def construct(self, x):
            return ops.sin(x)

        def bprop(self, x, out, dout):
            return (dout * 100,)
    net = Custom()
    x = _t(ms, np, _X3)
    return net(x), ms.grad(lambda x: net(x * 2).sum())(x)


@case(expected=_analytic(lambda np, x: 6 * x))
def bprop_under_second_order(ms, ops, nn, np):
    class Cube(nn.Cell):
        def construct(self, x):
            return x * x * x

        def bprop(self, x, out, dout):
            return (3 * x * x * dout,)
    net = Cube()
    return ms.grad(ms.grad(lambda x: net(x).sum()))(_t(ms, np, _X3))


@case
def bprop_with_parameter(ms, ops, nn, np):
    class Scaled(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_t(ms, np, [2.0, 3.0, 4.0]), name="w")

        def construct(self, x):
            return x * self.w

        def bprop(self, x, out, dout):
            return (dout * self.w,)
    net = Scaled()
    x = _t(ms, np, _X3)
    return ms.grad(lambda x: net(x).sum(), grad_position=0, weights=net.w)(x)
