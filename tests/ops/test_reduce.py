"""Reductions: sum, mean, max, min, argmax, argmin, prod -- values, dtypes, axes, gradients."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops

T = ms.Tensor

DATA = np.array([[[1.0, 5.0, 2.0], [3.0, 2.0, 7.0]],
                 [[0.5, 4.0, 6.0], [8.0, 1.0, 3.0]]], dtype=np.float32)


def host(t):
    return t.asnumpy()


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2), (1, -1), (0, 1, 2)])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_sum_and_mean_match_numpy(backend, axis, keep):
    x = T(DATA)
    np.testing.assert_allclose(host(ops.sum(x, axis, keep)), DATA.sum(axis=axis, keepdims=keep), rtol=1e-6)
    np.testing.assert_allclose(host(ops.mean(x, axis, keep)), DATA.mean(axis=axis, keepdims=keep), rtol=1e-6)
    np.testing.assert_allclose(host(ops.reduce_sum(x, axis, keep)), DATA.sum(axis=axis, keepdims=keep), rtol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_max_min_return_values_and_indices(backend, axis, keep):
    x = T(DATA)
    values, indices = ops.max(x, axis, keep)
    np.testing.assert_array_equal(host(values), DATA.max(axis=axis, keepdims=keep if axis is not None else keep))
    if axis is None:  # MindSpore 2.10 returns index 0 without an axis (documented; followed)
        assert indices.shape == () and indices.item() == 0
    else:
        np.testing.assert_array_equal(host(indices), np.argmax(DATA, axis=axis, keepdims=keep))
    assert indices.dtype is ms.int64
    values, indices = ops.min(x, axis, keep)
    np.testing.assert_array_equal(host(values), DATA.min(axis=axis, keepdims=keep))
    if axis is not None:
        np.testing.assert_array_equal(host(indices), np.argmin(DATA, axis=axis, keepdims=keep))


def test_reduce_max_spec_example(backend):
    values, indices = ops.max(T([[1.0, 5.0], [3.0, 2.0]]), 1)
    assert host(values).tolist() == [5.0, 3.0] and host(indices).tolist() == [1, 0]
    values, indices = ops.max(T([[1.0, 5.0], [3.0, 2.0]]))
    assert values.item() == 5.0 and indices.item() == 0  # MindSpore's index without an axis


def test_reduce_amax_amin_accept_tuples_of_axes(backend):
    x = T(DATA)
    np.testing.assert_array_equal(host(ops.amax(x, (0, 2))), DATA.max(axis=(0, 2)))
    np.testing.assert_array_equal(host(ops.amin(x, 1, True)), DATA.min(axis=1, keepdims=True))


def test_reduce_argmax_argmin(backend):
    x = T(DATA)
    out = ops.argmax(x, 2)
    assert out.dtype is ms.int64
    np.testing.assert_array_equal(host(out), DATA.argmax(axis=2))
    np.testing.assert_array_equal(host(ops.argmax(x, -1, True)), DATA.argmax(axis=-1)[..., None])
    assert ops.argmax(x).item() == int(DATA.argmax())
    # MindSpore returns a 0-d index over the flattened tensor even with keepdim=True
    assert ops.argmax(x, None, True).shape == ()
    # ... and Int32 for argmin
    out = ops.argmin(x, 0)
    assert out.dtype is ms.int32
    np.testing.assert_array_equal(host(out), DATA.argmin(axis=0))
    assert ops.argmin(x).item() == int(DATA.argmin())


def test_reduce_sum_of_ints_and_bools_is_int64(backend):
    assert ops.sum(T([1, 2, 3], ms.int32)).dtype is ms.int64
    out = ops.sum(T([True, False, True]))
    assert out.dtype is ms.int64 and out.item() == 2
    assert ops.sum(T([1, 2]), dtype=ms.float32).dtype is ms.float32


def test_reduce_mean_of_ints_keeps_the_dtype_and_truncates(backend):
    # As MindSpore 2.10 documents: the mean of ints is an int, truncated towards zero.
    out = ops.mean(T([1, 2]))
    assert out.dtype is ms.int64 and out.item() == 1
    assert ops.mean(T(np.array([-1, -2], np.int32))).item() == -1


def test_reduce_prod(backend):
    x = T(DATA)
    np.testing.assert_allclose(host(ops.prod(x, 1)), DATA.prod(axis=1), rtol=1e-6)
    np.testing.assert_allclose(host(ops.prod(x)), DATA.prod(), rtol=1e-5)
    g = ms.grad(lambda t: ops.prod(t, 0).sum())(T([[2.0, 3.0], [4.0, 5.0]]))
    assert host(g).tolist() == [[4.0, 5.0], [2.0, 3.0]]


@pytest.mark.parametrize("call", [
    lambda x: ops.sum(x, 3), lambda x: ops.mean(x, -4), lambda x: ops.max(x, 5), lambda x: ops.argmax(x, 3),
    lambda x: ops.amax(x, (0, 7)), lambda x: ops.prod(x, 9), lambda x: ops.argmin(x, -9),
], ids=["sum", "mean", "max", "argmax", "amax", "prod", "argmin"])
def test_reduce_bad_axis_raises_value_error_naming_it(backend, call):
    with pytest.raises(ValueError, match=r"must be in range \[-3, 3\), but got -?\d"):
        call(T(DATA))


def test_reduce_duplicate_axis_raises_value_error(backend):
    with pytest.raises(ValueError, match="duplicate"):
        ops.sum(T(DATA), (0, -3))


def test_reduce_axis_of_wrong_type_raises_type_error(backend):
    with pytest.raises(TypeError, match="'dim' must be an int"):
        ops.sum(T(DATA), 1.0)
    with pytest.raises(TypeError, match="'axis' must be an int"):
        ops.amax(T(DATA), 1.0)


def test_reduce_max_of_empty_raises_value_error(backend):
    with pytest.raises(ValueError, match="empty"):
        ops.max(T(np.zeros((0, 2), np.float32)), 1)


def test_reduce_max_initial_and_where(backend):
    x = T([[1.0, 5.0], [3.0, 2.0]])
    values, indices = ops.max(x, 1, initial=4.0)
    assert host(values).tolist() == [5.0, 4.0] and host(indices).tolist() == [1, 0]
    where = T([[True, False], [False, True]])
    assert host(ops.amax(x, 1, initial=0.0, where=where)).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="initial"):
        ops.amax(x, 1, where=where)


# -- gradient conventions (values checked against finite differences in test_gradcheck_core) -----
def test_reduce_max_along_axis_sends_gradient_to_the_index(backend):
    g = ms.grad(lambda x: ops.max(x, 1)[0].sum())(T([[1.0, 3.0, 3.0]]))
    assert host(g).tolist() == [[0.0, 1.0, 0.0]]
    g = ms.grad(lambda x: ops.min(x, 0, True)[0].sum())(T([[1.0], [1.0]]))
    assert host(g).tolist() == [[1.0], [0.0]]


def test_reduce_full_max_shares_gradient_among_ties(backend):
    assert host(ms.grad(lambda x: ops.max(x)[0])(T([1.0, 3.0, 3.0]))).tolist() == [0.0, 0.5, 0.5]
    assert host(ms.grad(lambda x: x.max())(T([1.0, 3.0, 3.0]))).tolist() == [0.0, 0.5, 0.5]
    assert host(ms.grad(lambda x: ops.amin(x, 1).sum())(T([[2.0, 2.0]]))).tolist() == [[0.5, 0.5]]


def test_reduce_sum_and_mean_gradients(backend):
    x = T(DATA)
    assert host(ms.grad(lambda t: ops.sum(t, (0, 2)).sum())(x)).tolist() == np.ones_like(DATA).tolist()
    np.testing.assert_allclose(host(ms.grad(lambda t: ops.mean(t, 1, True).sum())(x)), np.full_like(DATA, 0.5))
    np.testing.assert_allclose(host(ms.grad(lambda t: ops.mean(t))(x)), np.full_like(DATA, 1 / 12))


def test_reduce_indices_carry_no_gradient(backend):
    g = ms.grad(lambda x: ops.max(x, 1)[1])(T([[1.0, 2.0]]))
    assert host(g).tolist() == [[0.0, 0.0]]
