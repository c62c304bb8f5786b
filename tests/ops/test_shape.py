"""Shape ops: they move values without changing them; their gradients move gradients back."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops

T = ms.Tensor

DATA = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def host(t):
    return t.asnumpy()


def test_shape_reshape(backend):
    x = T(DATA)
    np.testing.assert_array_equal(host(ops.reshape(x, (6, 4))), DATA.reshape(6, 4))
    assert ops.reshape(x, [4, -1]).shape == (4, 6)
    assert ops.reshape(x, 24).shape == (24,)
    assert ops.reshape(x, T([3, 8])).shape == (3, 8)
    assert ops.reshape(T(5.0), (1, 1)).shape == (1, 1)


def test_shape_reshape_errors(backend):
    with pytest.raises(ValueError, match=r"\(2, 3, 4\).*\(5, 5\)"):
        ops.reshape(T(DATA), (5, 5))
    with pytest.raises(TypeError, match="'shape' must be an int or a tuple"):
        ops.reshape(T(DATA), "abc")


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1), (-1, 0, 1)])
def test_shape_transpose_and_permute(backend, perm):
    np.testing.assert_array_equal(host(ops.transpose(T(DATA), perm)), DATA.transpose(perm))
    np.testing.assert_array_equal(host(ops.permute(T(DATA), perm)), DATA.transpose(perm))


def test_shape_transpose_errors_name_the_problem(backend):
    with pytest.raises(ValueError, match="permutation of the 3 axes"):
        ops.transpose(T(DATA), (0, 1))
    with pytest.raises(ValueError, match="'dims' must be in range"):
        ops.transpose(T(DATA), (0, 1, 3))


def test_shape_swapaxes(backend):
    np.testing.assert_array_equal(host(ops.swapaxes(T(DATA), 0, 2)), DATA.swapaxes(0, 2))
    with pytest.raises(ValueError, match="'axis1'"):
        ops.swapaxes(T(DATA), 0, 3)


@pytest.mark.parametrize("axis, shape", [(0, (1, 2, 3, 4)), (3, (2, 3, 4, 1)), (-1, (2, 3, 4, 1)), (-4, (1, 2, 3, 4))])
def test_shape_expand_dims(backend, axis, shape):
    assert ops.expand_dims(T(DATA), axis).shape == shape
    assert ops.unsqueeze(T(DATA), axis).shape == shape


def test_shape_expand_dims_bad_axis(backend):
    with pytest.raises(ValueError, match=r"'axis' must be in range \[-4, 3\], but got 4"):
        ops.expand_dims(T(DATA), 4)
    with pytest.raises(TypeError, match="'axis' must be an int"):
        ops.expand_dims(T(DATA), 1.0)


def test_shape_squeeze(backend):
    x = T(np.ones((1, 2, 1, 3), np.float32))
    assert ops.squeeze(x).shape == (2, 3)
    assert ops.squeeze(x, 0).shape == (2, 1, 3)
    assert ops.squeeze(x, (0, 2)).shape == (2, 3)
    assert ops.squeeze(x, -2).shape == (1, 2, 3)
    # MindSpore leaves a named axis that is not of length 1 alone
    assert ops.squeeze(x, 1).shape == (1, 2, 1, 3)
    with pytest.raises(ValueError, match="'axis' must be in range"):
        ops.squeeze(x, 4)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_shape_concat_and_stack(backend, axis):
    a, b = DATA, DATA + 100
    np.testing.assert_array_equal(host(ops.concat((T(a), T(b)), axis)), np.concatenate((a, b), axis))
    np.testing.assert_array_equal(host(ops.cat([T(a), T(b)], axis=axis)), np.concatenate((a, b), axis))
    np.testing.assert_array_equal(host(ops.stack([T(a), T(b)], axis)), np.stack((a, b), axis))


def test_shape_concat_promotes_like_mindspore_arithmetic(backend):
    out = ops.concat((T([[1.0, 5.0]]), T([[1, 2]])), 0)
    assert out.dtype is ms.float32
    assert host(out).tolist() == [[1.0, 5.0], [1.0, 2.0]]


def test_shape_concat_and_stack_errors(backend):
    with pytest.raises(ValueError, match=r"except along axis 0.*\(1, 2\), \(1, 3\)"):
        ops.concat((T(np.ones((1, 2))), T(np.ones((1, 3)))), 0)
    with pytest.raises(ValueError, match="same shape"):
        ops.stack((T(np.ones(2)), T(np.ones(3))))
    with pytest.raises(TypeError, match="list or tuple of Tensors"):
        ops.concat(T(np.ones(2)))
    with pytest.raises(ValueError, match="must not be empty"):
        ops.concat([])
    with pytest.raises(ValueError, match="'axis' must be in range"):
        ops.concat((T(np.ones(2)), T(np.ones(2))), 1)
    with pytest.raises(ValueError, match="'axis' must be in range"):
        ops.stack((T(np.ones(2)), T(np.ones(2))), 3)


def test_shape_split_by_size_and_sections(backend):
    x = T(np.arange(10.0).reshape(5, 2))
    assert [p.shape for p in ops.split(x, 2)] == [(2, 2), (2, 2), (1, 2)]
    pieces = ops.split(x, [1, 4])
    assert [p.shape for p in pieces] == [(1, 2), (4, 2)]
    assert host(pieces[1]).tolist() == [[2, 3], [4, 5], [6, 7], [8, 9]]
    assert [p.shape for p in ops.split(x, 1, axis=1)] == [(5, 1), (5, 1)]
    assert isinstance(ops.split(x, 2), tuple)


def test_shape_split_errors(backend):
    x = T(np.ones((5, 2)))
    with pytest.raises(ValueError, match=r"sections \[1, 3\] must add up to the length 5"):
        ops.split(x, [1, 3])
    with pytest.raises(ValueError, match="positive"):
        ops.split(x, 0)
    with pytest.raises(ValueError, match="'axis' must be in range"):
        ops.split(x, 1, axis=2)


def test_shape_chunk_unstack_narrow(backend):
    x = T(np.arange(10.0).reshape(5, 2))
    assert [p.shape for p in ops.chunk(x, 2)] == [(3, 2), (2, 2)]
    rows = ops.unstack(x, 1)
    assert len(rows) == 2 and host(rows[1]).tolist() == [1, 3, 5, 7, 9]
    assert host(ops.narrow(x, 0, 1, 2)).tolist() == [[2, 3], [4, 5]]


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_shape_gather(backend, axis):
    indices = np.array([[0, 1], [1, 0]])
    out = ops.gather(T(DATA), T(indices), axis)
    np.testing.assert_array_equal(host(out), np.take(DATA, indices, axis=axis))
    np.testing.assert_array_equal(host(ops.gather(T(DATA), 1, axis)), np.take(DATA, 1, axis=axis))


def test_shape_gather_and_take_spellings(backend):
    m = T([[1.0, 5.0], [3.0, 2.0]])
    assert host(ops.gather(m, T([1, 0, 1]), 0)).tolist() == [[3, 2], [1, 5], [3, 2]]
    assert host(ops.take(m, T([3, 0]))).tolist() == [2.0, 1.0]
    assert host(ops.take(m, [1], axis=1)).tolist() == [[5.0], [2.0]]


def test_shape_gather_errors(backend):
    m = T([[1.0, 5.0], [3.0, 2.0]])
    with pytest.raises(ValueError, match=r"indices must be in \[0, 2\).*from 2 to 2"):
        ops.gather(m, T([2]), 0)
    with pytest.raises(ValueError, match=r"from -1"):
        ops.gather(m, T([-1]), 0)
    with pytest.raises(TypeError, match="indices must be integers"):
        ops.gather(m, T([0.0]), 0)
    with pytest.raises(NotImplementedError, match="batch_dims"):
        ops.gather(m, T([0]), 1, batch_dims=1)


def test_shape_flatten(backend):
    x = T(DATA)
    assert ops.flatten(x).shape == (2, 12)
    assert ops.flatten(x, start_dim=0).shape == (24,)
    assert ops.flatten(x, start_dim=1, end_dim=1).shape == (2, 3, 4)
    np.testing.assert_array_equal(host(ops.flatten(x, "F")), DATA.transpose(2, 1, 0).reshape(4, 6))
    assert x.flatten().shape == (24,)
    assert ops.flatten(T(3.0)).shape == (1,)
    with pytest.raises(ValueError, match="'start_dim'.*'end_dim'"):
        ops.flatten(x, start_dim=2, end_dim=1)
    with pytest.raises(ValueError, match="'order'"):
        ops.flatten(x, "K")


@pytest.mark.parametrize("reps", [(2,), (2, 1), (1, 3), (2, 2, 2)])
def test_shape_tile(backend, reps):
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_array_equal(host(ops.tile(T(a), reps)), np.tile(a, reps))


def test_shape_broadcast_to(backend):
    assert host(ops.broadcast_to(T([1, 2]), (3, 2))).tolist() == [[1, 2]] * 3
    assert ops.broadcast_to(T([[1], [2]]), (-1, 3)).shape == (2, 3)
    assert ops.broadcast_to(T([[1], [2]]), (4, -1, 3)).shape == (4, 2, 3)


def test_shape_broadcast_to_errors_show_both_shapes(backend):
    with pytest.raises(ValueError, match=r"\(2,\) cannot be broadcast to \(3, 3\)"):
        ops.broadcast_to(T([1, 2]), (3, 3))
    with pytest.raises(ValueError, match="fewer dimensions"):
        ops.broadcast_to(T(np.ones((2, 2))), (2,))
    with pytest.raises(ValueError, match="-1 is not allowed"):
        ops.broadcast_to(T([1, 2]), (-1, 2))


def test_shape_getitem_function(backend):
    x = T(DATA)
    np.testing.assert_array_equal(host(ops.getitem(x, (1, slice(None), 2))), DATA[1, :, 2])


def test_shape_setitem_casts_value_to_the_tensor_dtype(backend):
    x = T([1, 2, 3])
    ops.setitem(x, 0, T(7.9))
    assert x.dtype is ms.int64 and host(x).tolist() == [7, 2, 3]


# -- gradients (values; finite differences in test_gradcheck_core) ---------------------------------------
def test_shape_gradients_move_back_the_same_way(backend):
    x = T(DATA)
    weights = T(np.arange(24, dtype=np.float32).reshape(4, 3, 2))
    g = ms.grad(lambda t: (ops.transpose(t, (2, 1, 0)) * weights).sum())(x)
    np.testing.assert_array_equal(host(g), np.arange(24, dtype=np.float32).reshape(4, 3, 2).transpose(2, 1, 0))
    g = ms.grad(lambda t: (ops.reshape(t, (4, 6)) * T(np.arange(24.0, dtype=np.float32).reshape(4, 6))).sum())(x)
    np.testing.assert_array_equal(host(g), np.arange(24.0).reshape(2, 3, 4))


def test_shape_concat_split_gradients(backend):
    a, b = T([1.0, 2.0]), T([3.0])
    ga, gb = ms.grad(lambda p, q: (ops.concat((p, q)) * T([1.0, 2.0, 3.0])).sum(), (0, 1))(a, b)
    assert host(ga).tolist() == [1.0, 2.0] and host(gb).tolist() == [3.0]
    g = ms.grad(lambda t: ops.split(t, [1, 2])[1].sum() * 2)(T([1.0, 2.0, 3.0]))
    assert host(g).tolist() == [0.0, 2.0, 2.0]
    ga, gb = ms.grad(lambda p, q: (ops.stack((p, q), 1) * T([[1.0, 2.0], [3.0, 4.0]])).sum(), (0, 1))(a, T([5.0, 6.0]))
    assert host(ga).tolist() == [1.0, 3.0] and host(gb).tolist() == [2.0, 4.0]


def test_shape_concat_gradient_casts_back_to_each_input_dtype(backend):
    ga, gb = ms.grad(lambda p, q: ops.concat((p, q)).sum(), (0, 1))(T([1.0]), T(np.array([2.0])))
    assert ga.dtype is ms.float32 and gb.dtype is ms.float64


def test_shape_gather_gradient_accumulates_repeats(backend):
    g = ms.grad(lambda t: ops.gather(t, T([0, 0, 2]), 0).sum())(T([1.0, 2.0, 3.0]))
    assert host(g).tolist() == [2.0, 0.0, 1.0]
    g = ms.grad(lambda t: ops.gather(t, T([[1, 1], [0, 1]]), 1).sum())(T(np.ones((2, 2), np.float32)))
    assert host(g).tolist() == [[1.0, 3.0], [1.0, 3.0]]


def test_shape_tile_and_broadcast_gradients_sum_repeats(backend):
    g = ms.grad(lambda t: ops.tile(t, (2, 3)).sum())(T([[1.0, 2.0]]))
    assert host(g).tolist() == [[6.0, 6.0]]
    g = ms.grad(lambda t: ops.broadcast_to(t, (4, 2)).sum())(T([1.0, 2.0]))
    assert host(g).tolist() == [4.0, 4.0]


def test_shape_ops_do_not_record_outside_transforms(backend):
    x = T(DATA)
    outs = [ops.reshape(x, (24,)), ops.transpose(x, (2, 1, 0)), ops.expand_dims(x, 0), ops.squeeze(x),
            ops.concat((x, x)), ops.stack((x, x)), ops.split(x, 1)[0], ops.gather(x, T([0]), 0),
            ops.flatten(x), ops.tile(x, (2,)), ops.broadcast_to(x, (2, 2, 3, 4)), x[0]]
    assert all(o._node is None for o in outs)
