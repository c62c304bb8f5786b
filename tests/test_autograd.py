"""Gradient transforms: grad, value_and_grad, GradOperation -- and the tape beneath them.

The return shapes asserted here were observed in MindSpore 2.10.
"""
import gc

import numpy as np
import pytest

import cellkit as ms
from cellkit import autograd, ops

T = ms.Tensor


def host(t):
    return t.asnumpy().tolist()


def f(x, y):
    return (x * y).sum()


X = [1.0, 2.0]
Y = [3.0, 4.0]


# -- grad -------------------------------------------------------------------------------
def test_grad_default_position_returns_one_tensor(backend):
    g = ms.grad(f)(T(X), T(Y))
    assert isinstance(g, T)
    assert host(g) == Y


def test_grad_tuple_position_returns_tuple(backend):
    gx, gy = ms.grad(f, (0, 1))(T(X), T(Y))
    assert host(gx) == Y and host(gy) == X
    gy, gx = ms.grad(f, (1, 0))(T(X), T(Y))
    assert host(gy) == X and host(gx) == Y


def test_grad_one_element_tuple_returns_one_tensor_as_mindspore(backend):
    g = ms.grad(f, (1,))(T(X), T(Y))
    assert isinstance(g, T) and host(g) == X


def test_grad_negative_position_is_refused_as_mindspore(backend):
    with pytest.raises(ValueError, match=">= 0"):
        ms.grad(f, -1)(T(X), T(Y))


def test_grad_has_aux_returns_grad_and_aux_tuple(backend):
    def g(x):
        return (x * x).sum(), x * 2

    grad_x, aux = ms.grad(g, has_aux=True)(T(X))
    assert host(grad_x) == [2.0, 4.0]
    assert isinstance(aux, tuple) and len(aux) == 1
    assert host(aux[0]) == [2.0, 4.0]
    assert aux[0]._node is None


def test_grad_has_aux_with_several_aux_values(backend):
    grad_x, aux = ms.grad(lambda x: ((x * x).sum(), x * 2, x * 3), has_aux=True)(T(X))
    assert host(grad_x) == [2.0, 4.0]
    assert [host(a) for a in aux] == [[2.0, 4.0], [3.0, 6.0]]


def test_grad_has_aux_without_tuple_output_raises_value_error(backend):
    with pytest.raises(ValueError, match="has_aux=True"):
        ms.grad(lambda x: (x * x).sum(), has_aux=True)(T(X))


def test_grad_tuple_output_sums_the_outputs_gradients(backend):
    assert host(ms.grad(lambda x: (x * 2, x * 3))(T(X))) == [5.0, 5.0]
    assert host(ms.grad(lambda x: [x * 2, x * 3])(T(X))) == [5.0, 5.0]


def test_grad_non_scalar_output_uses_ones_as_sensitivity(backend):
    assert host(ms.grad(lambda x: x * 2)(T(X))) == [2.0, 2.0]


def test_grad_of_unused_input_is_zeros_not_none(backend):
    gx, gy = ms.grad(lambda x, y: x.sum(), (0, 1))(T(X), T([1.0]))
    assert host(gx) == [1.0, 1.0]
    assert isinstance(gy, T) and host(gy) == [0.0]


@pytest.mark.parametrize("fn", [
    lambda x: ops.argmax(x),
    lambda x: x > 1,
    lambda x: ops.equal(x, x),
    lambda x: ops.argmin(x),
    lambda x: ops.max(x, 0)[1],
    lambda x: ops.floor(x),
], ids=["argmax", "greater", "equal", "argmin", "max-indices", "floor"])
def test_grad_through_non_differentiable_outputs_is_zeros(backend, fn):
    g = ms.grad(fn)(T([0.5, 4.0]))
    assert isinstance(g, T)
    assert g.dtype is ms.float32
    assert host(g) == [0.0, 0.0]


def test_grad_keeps_input_dtype(backend):
    assert ms.grad(lambda x: (x * x).sum())(T(np.array([1.0, 2.0]))).dtype is ms.float64
    # An integer input gets an integer gradient (as in MindSpore).
    g = ms.grad(lambda x: (x * 2).sum())(T([1, 2]))
    assert g.dtype is ms.int64 and host(g) == [2, 2]


def test_grad_mixed_precision_casts_each_gradient_back(backend):
    if backend.name == "array_api_strict":
        pytest.skip("array_api_strict has no float16")
    gh, gf = ms.grad(f, (0, 1))(T(X, ms.float16), T(Y))
    assert gh.dtype is ms.float16 and gf.dtype is ms.float32
    assert host(gh) == Y and host(gf) == X


def test_grad_passes_keyword_arguments_through(backend):
    g = ms.grad(lambda x, scale=2.0: (x * scale).sum())(T(X), scale=T(3.0))
    assert host(g) == [3.0, 3.0]


def test_grad_same_tensor_twice_differentiates_by_position(backend):
    x = T(X)
    # d/dx sum(x*y) at y=x is y; MindSpore 2.10 returns 2x here, which mixes the two positions.
    assert host(ms.grad(f, 0)(x, x)) == X


def test_grad_of_a_cell_like_callable_object(backend):
    class Scale:
        def __call__(self, x):
            return (x * 3).sum()

    assert host(ms.grad(Scale())(T(X))) == [3.0, 3.0]


@pytest.mark.parametrize("position, error, match", [  # MindSpore 2.10's exception types
    (2, RuntimeError, "exceed input size"),
    ((0, 0), ValueError, "duplicate positions"),
    ((), RuntimeError, "should not be empty"),
    (True, TypeError, "int or tuple"),
    ("0", TypeError, "int or tuple"),
    (1.5, TypeError, "int or tuple"),
])
def test_grad_bad_position_raises_clear_error(position, error, match):
    with pytest.raises(error, match=match):
        ms.grad(f, position)(T(X), T(Y))


def test_grad_position_of_non_tensor_argument_gives_no_gradient_as_mindspore():
    assert ms.grad(f, 1)(T(X), 3.0) == ()


def test_grad_without_position_and_weights_raises_value_error():
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.grad(f, None)
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.value_and_grad(f, None)


def test_grad_of_non_callable_raises_type_error():
    with pytest.raises(TypeError, match="callable.*int"):
        ms.grad(3)


def test_grad_nested_transform_gives_the_second_derivative(backend):
    def outer(x):
        return ms.grad(lambda y: (y * y * y).sum())(x).sum()  # sum of 3 x**2

    assert host(ms.grad(outer)(T(X))) == [6.0 * v for v in X]


def test_grad_nested_transform_on_constants_is_allowed(backend):
    c = T([2.0, 3.0])

    def outer(x):
        inner = ms.grad(lambda y: (y * y).sum())(c)  # a constant for the outer transform
        return (x * inner).sum()

    assert host(ms.grad(outer)(T(X))) == [4.0, 6.0]


# -- value_and_grad -------------------------------------------------------------------------
def test_value_and_grad_returns_value_and_grad(backend):
    value, g = ms.value_and_grad(f)(T(X), T(Y))
    assert value.item() == 11.0 and host(g) == Y
    assert value._node is None


def test_value_and_grad_several_positions(backend):
    value, (gx, gy) = ms.value_and_grad(f, grad_position=(0, 1))(T(X), T(Y))
    assert value.item() == 11.0 and host(gx) == Y and host(gy) == X


def test_value_and_grad_has_aux_returns_output_and_aux_together(backend):
    (out, aux), g = ms.value_and_grad(lambda x: ((x * x).sum(), x * 2), has_aux=True)(T(X))
    assert out.item() == 5.0 and host(aux) == [2.0, 4.0] and host(g) == [2.0, 4.0]
    value, g = ms.value_and_grad(lambda x: ((x * x).sum(), x * 2, x * 3), has_aux=True)(T(X))
    assert len(value) == 3 and host(value[2]) == [3.0, 6.0]


def test_value_and_grad_tuple_output(backend):
    (a, b), g = ms.value_and_grad(lambda x: (x * 2, x * 3))(T(X))
    assert host(a) == [2.0, 4.0] and host(b) == [3.0, 6.0] and host(g) == [5.0, 5.0]
    assert a._node is None and b._node is None


# -- weights ---------------------------------------------------------------------------------
@pytest.fixture
def weights(backend):
    w1 = ms.Parameter(T([1.0, 2.0]), name="w1")
    w2 = ms.Parameter(T([3.0]), name="w2")
    return w1, w2


def h_of(w1, w2):
    def h(x):
        return (x * w1).sum() + w2.sum() * 2
    return h


XW = [5.0, 6.0]


def test_grad_weights_only_returns_tuple_of_weight_grads(weights):
    h = h_of(*weights)
    for ws in (list(weights), tuple(weights), ms.ParameterTuple(weights)):
        g1, g2 = ms.grad(h, grad_position=None, weights=ws)(T(XW))
        assert host(g1) == [5.0, 6.0] and host(g2) == [2.0]


def test_grad_single_parameter_weight_returns_one_tensor(weights):
    w1, w2 = weights
    g = ms.grad(h_of(w1, w2), grad_position=None, weights=w1)(T(XW))
    assert isinstance(g, T) and host(g) == [5.0, 6.0]
    # ... but a list of one stays a tuple.
    g = ms.grad(h_of(w1, w2), grad_position=None, weights=[w1])(T(XW))
    assert isinstance(g, tuple) and len(g) == 1


def test_grad_position_and_weights_returns_pair(weights):
    gx, (g1, g2) = ms.grad(h_of(*weights), 0, weights=list(weights))(T(XW))
    assert host(gx) == [1.0, 2.0] and host(g1) == [5.0, 6.0] and host(g2) == [2.0]


def test_grad_position_weights_and_aux(weights):
    h = h_of(*weights)
    (gx, (g1, g2)), aux = ms.grad(lambda x: (h(x), x), 0, weights=list(weights), has_aux=True)(T(XW))
    assert host(gx) == [1.0, 2.0] and host(g2) == [2.0] and host(aux[0]) == XW


def test_value_and_grad_with_weights(weights):
    value, (gx, (g1, g2)) = ms.value_and_grad(h_of(*weights), 0, weights=list(weights))(T(XW))
    assert value.item() == 23.0 and host(gx) == [1.0, 2.0] and host(g1) == [5.0, 6.0]
    value, (g1, g2) = ms.value_and_grad(h_of(*weights), None, weights=list(weights))(T(XW))
    assert value.item() == 23.0 and host(g2) == [2.0]


def test_grad_of_unused_weight_is_zeros(weights):
    w1, _ = weights
    gx, (gw,) = ms.grad(lambda x: x.sum(), 0, weights=[w1])(T(XW))
    assert host(gx) == [1.0, 1.0] and host(gw) == [0.0, 0.0]


def test_grad_return_ids_pairs_positions_and_names(weights):
    h = h_of(*weights)
    (pos, gx), ((n1, g1), (n2, g2)) = ms.grad(h, (0,), weights=list(weights), return_ids=True)(T(XW))
    assert pos == 0 and host(gx) == [1.0, 2.0]
    assert (n1, n2) == ("w1", "w2") and host(g2) == [2.0]
    pos, gx = ms.grad(h, 0, return_ids=True)(T(XW))
    assert pos == 0
    name, g = ms.grad(h, None, weights[0], return_ids=True)(T(XW))
    assert name == "w1" and host(g) == [5.0, 6.0]


def test_grad_leaves_weights_and_inputs_unrecorded(weights):
    x = T(XW)
    ms.grad(h_of(*weights), 0, weights=list(weights))(x)
    assert x._node is None
    assert all(w._node is None for w in weights)
    assert host(weights[0]) == [1.0, 2.0]


def test_grad_restores_weights_after_an_error(weights):
    w1, w2 = weights

    def broken(x):
        (x * w1).sum()
        raise KeyError("inside fn")

    with pytest.raises(KeyError):
        ms.grad(broken, 0, weights=[w1, w2])(T(XW))
    assert w1._node is None and w2._node is None
    assert not autograd.is_recording()


def test_grad_weights_of_wrong_type_raise_type_error():
    with pytest.raises(TypeError, match="weights must be a Parameter"):
        ms.grad(f, 0, weights=3)
    with pytest.raises(TypeError, match="only Parameters.*float"):
        ms.grad(f, 0, weights=[1.0])


# -- GradOperation ---------------------------------------------------------------------------
def test_grad_operation_default_differentiates_first_input(backend):
    g = ops.GradOperation()(f)(T(X), T(Y))
    assert isinstance(g, T) and host(g) == Y


def test_grad_operation_get_all_returns_all_input_grads(backend):
    gx, gy = ops.GradOperation(get_all=True)(f)(T(X), T(Y))
    assert host(gx) == Y and host(gy) == X
    single = ops.GradOperation(get_all=True)(lambda x: (x * x).sum())(T(X))
    assert isinstance(single, tuple) and len(single) == 1


def test_grad_operation_get_all_skips_non_tensor_arguments(backend):
    grads = ops.GradOperation(get_all=True)(lambda x, n: (x * n).sum())(T(X), 3)
    assert len(grads) == 1 and host(grads[0]) == [3.0, 3.0]


def test_grad_operation_sens_param(backend):
    g = ops.GradOperation(sens_param=True)(lambda a: a * 2)(T(X), T([1.0, 10.0]))
    assert host(g) == [2.0, 20.0]
    ga, gb = ops.GradOperation(get_all=True, sens_param=True)(lambda a, b: a * b)(T(X), T(Y), T([1.0, 10.0]))
    assert host(ga) == [3.0, 40.0] and host(gb) == [1.0, 20.0]


def test_grad_operation_sens_for_tuple_output(backend):
    g = ops.GradOperation(sens_param=True)(lambda a: (a * 2, a * 3))(T(X), (T([1.0, 1.0]), T([1.0, 10.0])))
    assert host(g) == [5.0, 32.0]


def test_grad_operation_sens_of_wrong_shape_raises_value_error(backend):
    with pytest.raises(ValueError, match=r"The shape should be \[2\]"):
        ops.GradOperation(sens_param=True)(lambda a: a * 2)(T(X), T([1.0, 2.0, 3.0]))


def test_grad_operation_get_by_list(weights):
    h = h_of(*weights)
    g1, g2 = ops.GradOperation(get_by_list=True)(h, ms.ParameterTuple(weights))(T(XW))
    assert host(g1) == [5.0, 6.0] and host(g2) == [2.0]


def test_grad_operation_get_all_and_get_by_list(weights):
    h = h_of(*weights)
    (gx,), (g1, g2) = ops.GradOperation(get_all=True, get_by_list=True)(h, ms.ParameterTuple(weights))(T(XW))
    assert host(gx) == [1.0, 2.0] and host(g1) == [5.0, 6.0] and host(g2) == [2.0]


def test_grad_operation_get_by_list_with_sens(weights):
    h = h_of(*weights)
    g1, g2 = ops.GradOperation(get_by_list=True, sens_param=True)(h, ms.ParameterTuple(weights))(T(XW), T(2.0))
    assert host(g1) == [10.0, 12.0] and host(g2) == [4.0]


def test_grad_operation_get_by_list_without_weights_raises_value_error():
    with pytest.raises(ValueError, match="needs weights"):
        ops.GradOperation(get_by_list=True)(f)


def test_grad_operation_flags_must_be_bools():
    with pytest.raises(TypeError, match="'get_all' must be a bool"):
        ops.GradOperation(get_all=1)


def test_grad_operation_repr():
    assert repr(ops.GradOperation(get_all=True)) == "GradOperation(get_all=True, get_by_list=False, sens_param=False)"


def test_grad_operation_sens_param_without_arguments_raises_value_error():
    with pytest.raises(ValueError, match="sens"):
        ops.GradOperation(sens_param=True)(lambda: T(1.0))()


def test_grad_operation_is_exposed_in_both_namespaces():
    assert ops.GradOperation is ms.GradOperation
    assert ops.grad is ms.grad and ops.value_and_grad is ms.value_and_grad


# -- the tape -------------------------------------------------------------------------------
def test_autograd_records_only_inside_a_transform(backend):
    x = T(X)
    assert not autograd.is_recording()
    seen = []

    def fn(t):
        seen.append(autograd.is_recording())
        out = t * 2
        seen.append(out._node is not None)
        return out.sum()

    ms.grad(fn)(x)
    assert seen == [True, True]
    assert not autograd.is_recording()
    assert (x * 2)._node is None


def test_autograd_keeps_no_tape_after_the_transform(backend):
    def fn(x, y):
        z = ops.matmul(x.reshape(1, 2), y.reshape(2, 1))
        return (ops.exp(z) + x.sum() * y).sum()

    gc.collect()
    ms.value_and_grad(fn, (0, 1))(T(X), T(Y))
    gc.collect()
    leftover = [o for o in gc.get_objects() if isinstance(o, autograd.Node)]
    assert leftover == []


def test_autograd_no_recording_switches_recording_off(backend):
    def fn(x):
        with autograd.no_recording():
            constant = x * 3
        assert constant._node is None
        return (x * constant).sum()

    assert host(ms.grad(fn)(T(X))) == [3.0, 6.0]


def test_autograd_unbroadcast_sums_to_shape():
    g = np.ones((4, 2, 3))
    assert autograd.unbroadcast(g, (3,)).tolist() == [8.0, 8.0, 8.0]
    assert autograd.unbroadcast(g, (2, 1)).shape == (2, 1)
    assert autograd.unbroadcast(g, ()).item() == 24.0
    assert autograd.unbroadcast(g, (4, 2, 3)) is g


def test_autograd_diamond_graph_accumulates(backend):
    # y is used by two branches: both gradients must arrive.
    def fn(x):
        y = x * 2
        return (y * y + y).sum()

    assert host(ms.grad(fn)(T(X))) == [10.0, 18.0]


def test_autograd_deep_chain_does_not_hit_recursion_limit(backend):
    def fn(x):
        for _ in range(3000):
            x = x + 1.0
        return x.sum()

    assert host(ms.grad(fn)(T(X))) == [1.0, 1.0]
