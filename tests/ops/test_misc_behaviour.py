"""The misc family's behaviour that no MindSpore fixture can show.

- random ops are reproducible under ``ms.set_seed`` and give the same values on every backend;
- in-place updates inside gradient transforms: an intermediate updated in place differentiates
  exactly (to second order), a leaf being differentiated refuses the update (RuntimeError);
- one process is rank 0 of a group of one;
- ``laplace``'s location gradient (Float32 only, out of the catalogue's float64 checks).
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import ops


def _host(value):
    if isinstance(value, ms.Tensor):
        return value.asnumpy()
    return tuple(_host(v) for v in value)


def _same(a, b):
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_array_equal(x, y)


DRAWS = {
    "rand": lambda: ops.rand(3, 2),
    "randn": lambda: ops.randn((4,), dtype=ms.float64),
    "randn_like": lambda: ops.randn_like(ms.Tensor(np.zeros((2, 2), np.float32))),
    "normal": lambda: ops.normal((3,), ms.Tensor(1.0), ms.Tensor(2.0)),
    "uniform": lambda: ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(2.0)),
    "uniform_int": lambda: ops.uniform((5,), ms.Tensor(0, ms.int32), ms.Tensor(9, ms.int32), dtype=ms.int32),
    "standard_normal": lambda: ops.standard_normal((4,)),
    "standard_laplace": lambda: ops.standard_laplace((4,)),
    "laplace": lambda: ops.laplace((3,), ms.Tensor(0.0), ms.Tensor(1.0)),
    "bernoulli": lambda: ops.bernoulli(ms.Tensor(np.zeros(8, np.float32)), 0.5),
    "multinomial": lambda: ops.multinomial(ms.Tensor([[1.0, 2.0, 3.0]]), 6),
    "multinomial_no_replacement": lambda: ops.multinomial(ms.Tensor([[1.0, 2.0, 3.0]]), 3, replacement=False),
    "randperm": lambda: ops.randperm(6, seed=-1),
    "random_categorical": lambda: ops.random_categorical(ms.Tensor([[0.0, 1.0, 2.0]]), 5),
    "shuffle": lambda: ops.shuffle(ms.Tensor(np.arange(6.0, dtype=np.float32))),
    "choice_with_mask": lambda: ops.choice_with_mask(ms.Tensor(np.array([True, True, False, True])), 3),
    "StandardNormal": lambda: ops.StandardNormal()((3,)),
    "Cauchy": lambda: ops.Cauchy([3])(),
    "normal_": lambda: ms.Tensor(np.zeros(3, np.float32)).normal_(),
    "random_": lambda: ms.Tensor(np.zeros(3, np.int32)).random_(0, 100),
    "uniform_": lambda: ms.Tensor(np.zeros(3, np.float32)).uniform_(),
    "exponential_": lambda: ms.Tensor(np.zeros(3, np.float32)).exponential_(),
    "bernoulli_": lambda: ms.Tensor(np.zeros(8, np.float32)).bernoulli_(0.5),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_misc_random_draws_repeat_under_set_seed(name):
    ms.set_seed(123)
    first = _host(DRAWS[name]())
    ms.set_seed(123)
    again = _host(DRAWS[name]())
    _same(first, again)


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_misc_random_draws_are_the_same_on_the_strict_device(name):
    ms.set_seed(7)
    on_numpy = _host(DRAWS[name]())
    with _backend.use("strict"):
        ms.set_seed(7)
        on_strict = _host(DRAWS[name]())
    _same(on_numpy, on_strict)


def test_misc_random_seeded_streams_advance_and_restart():
    ms.set_seed(1)
    a, b = ops.rand(4, seed=5).asnumpy(), ops.rand(4, seed=5).asnumpy()
    assert not np.array_equal(a, b)  # a seeded stream moves on, as MindSpore's does
    ms.set_seed(1)
    np.testing.assert_array_equal(ops.rand(4, seed=5).asnumpy(), a)


def test_misc_random_seeded_primitive_owns_its_generator():
    first = ops.StandardNormal(seed=3, seed2=4)
    again = ops.StandardNormal(seed=3, seed2=4)
    x1, x2 = first((4,)).asnumpy(), first((4,)).asnumpy()
    np.testing.assert_array_equal(again((4,)).asnumpy(), x1)
    assert not np.array_equal(x1, x2)


def test_misc_random_draw_inside_vmap_runs_per_example():
    out = ms.vmap(lambda x: x + ops.bernoulli(x, 1.0))(ms.Tensor(np.zeros((3, 2), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.ones((3, 2)))


def test_misc_laplace_location_gradient():
    grad = ms.grad(lambda m: (ops.laplace((2, 3), m, ms.Tensor(0.0)) * 2).sum())(ms.Tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(grad.asnumpy(), [4.0, 4.0, 4.0])


# ------------------------------------------------------------------ in-place updates and gradients
def test_misc_inplace_keeps_identity_shape_and_dtype():
    x = ms.Tensor(np.array([1, 2, 3], np.int32))
    out = x.add_(ms.Tensor([0.5, 0.5, 0.5]))
    assert out is x and x.dtype == ms.int32
    np.testing.assert_array_equal(x.asnumpy(), [1, 2, 3])  # 1.5, 2.5, 3.5 truncated into Int32
    with pytest.raises(RuntimeError, match="shape"):
        x.add_(ms.Tensor(np.ones((2, 3), np.float32)))


def test_misc_inplace_on_a_leaf_being_differentiated_is_refused():
    def f(x):
        x.add_(1.0)
        return (x * x).sum()

    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        ms.grad(f)(ms.Tensor([1.0, 2.0]))


def test_misc_inplace_on_a_weight_being_differentiated_is_refused():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")

    def f(x):
        w.mul_(2.0)
        return (w * x).sum()

    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        ms.grad(f, grad_position=None, weights=[w])(ms.Tensor([1.0, 1.0]))
    np.testing.assert_array_equal(w.asnumpy(), [1.0, 2.0])  # refused before anything changed


def test_misc_inplace_on_a_tensor_not_differentiated_is_allowed_in_a_transform():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")

    def f(x):
        w.add_(1.0)  # w is not among the differentiated values: a plain update
        return (w * x).sum()

    np.testing.assert_allclose(ms.grad(f)(ms.Tensor([1.0, 1.0])).asnumpy(), [2.0, 3.0])


def test_misc_inplace_intermediate_second_order():
    def f(x):
        y = x * 1
        y.mul_(x)      # y = x^2
        y.exp_()       # y = exp(x^2)
        return y.sum()

    x = ms.Tensor(np.array([0.5, -0.25], np.float64))
    second = ms.grad(ms.grad(f))(x).asnumpy()
    v = x.asnumpy()
    np.testing.assert_allclose(second, (2 + 4 * v * v) * np.exp(v * v), rtol=1e-10)


def test_misc_inplace_earlier_saved_values_are_unchanged():
    def f(x):
        y = x * 2
        z = y * y          # saves y
        y.add_(100.0)      # must not change what z's gradient uses
        return (z + y).sum()

    np.testing.assert_allclose(ms.grad(f)(ms.Tensor([1.0, 2.0])).asnumpy(), [10.0, 18.0])


def test_misc_inplace_methods_on_the_strict_device():
    with _backend.use("strict"):
        x = ms.Tensor(np.array([[1.0, -2.0], [3.0, 0.5]], np.float32))
        x.mul_(2.0).clamp_(-1.0, 4.0)
        x.index_copy_(0, ms.Tensor(np.array([1])), ms.Tensor(np.array([[7.0, 8.0]], np.float32)))
        x.put_(ms.Tensor(np.array([0])), ms.Tensor(np.array([9.0], np.float32)))
        out = x.asnumpy()
    np.testing.assert_array_equal(out, [[9.0, -1.0], [7.0, 8.0]])


def test_misc_optimizer_primitive_refuses_a_weight_being_differentiated():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")

    def f(x):
        ops.ApplyGradientDescent()(w, 0.1, ms.Tensor([1.0, 1.0]))
        return (w * x).sum()

    with pytest.raises(RuntimeError, match="leaf tensor"):
        ms.grad(f, grad_position=None, weights=[w])(ms.Tensor([1.0, 1.0]))


# ------------------------------------------------------------------ one process
def test_misc_new_group_of_rank_zero():
    name = ops.new_group([0], group_desc="mine")
    assert ops.get_process_group_ranks(name) == [0] and ops.get_rank(name) == 0
    with pytest.raises(ValueError, match="only rank 0"):
        ops.new_group([0, 1])


def test_misc_collectives_of_one_process():
    x = ms.Tensor([1.0, 2.0])
    assert ops.all_reduce(x, op="avg") is None and ops.barrier() is None
    np.testing.assert_array_equal(x.asnumpy(), [1.0, 2.0])
    out = [ms.Tensor([0.0, 0.0])]
    ops.all_gather(out, x)
    np.testing.assert_array_equal(out[0].asnumpy(), [1.0, 2.0])
    with pytest.raises(TypeError, match="one Tensor per member"):
        ops.all_gather([x, x], x)


def test_misc_async_collective_returns_a_done_handle():
    handle = ops.all_reduce(ms.Tensor([1.0]), async_op=True)
    assert handle.wait() is None and handle.is_completed()


# ------------------------------------------------------------------ sparse gradients MindSpore lacks or gets wrong
def test_misc_coalesce_values_gradient():
    from tests.gradcheck import check_grad

    indices = ms.Tensor(np.array([[1, 0, 1, 0], [0, 1, 0, 2]], np.int64))
    shape = ms.Tensor(np.array([2, 3], np.int64))
    probe = ms.Tensor(np.array([0.5, -1.0, 2.0]))
    check_grad(lambda v: (ops.coalesce(indices, v, shape)[1] * probe).sum(), np.array([0.1, 0.2, 0.3, 0.4]))


def test_misc_csr_gather_gradient():
    from tests.gradcheck import check_grad

    indptr = ms.Tensor(np.array([0, 1, 3, 4], np.int32))
    indices = ms.Tensor(np.array([1, 0, 2, 3], np.int32))
    probe = ms.Tensor(np.array([1.0, -2.0, 0.5, 3.0]))
    check_grad(lambda d: (ops.csr_gather(indptr, indices, d, (3, 4)) * probe).sum(), np.arange(12.0).reshape(3, 4))
