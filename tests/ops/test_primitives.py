"""Primitive classes (``ops.Add()``, ``ops.MatMul()`` ...): built once, called like functions.

Results were compared with MindSpore 2.10 on the same inputs.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops

T = ms.Tensor

M = np.array([[1.0, 5.0], [3.0, 2.0]], dtype=np.float32)
X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def host(t):
    return t.asnumpy()


@pytest.mark.parametrize("prim, args, expected", [
    (ops.Add(), (M, 1.0), M + 1),
    (ops.TensorAdd(), (M, M), M + M),
    (ops.Sub(), (M, M), M - M),
    (ops.Mul(), (M, 2), M * 2),
    (ops.RealDiv(), (M, 2.0), M / 2),
    (ops.Div(), (M, 2.0), M / 2),
    (ops.Neg(), (M,), -M),
    (ops.Pow(), (M, 2.0), M ** 2),
    (ops.Exp(), (M,), np.exp(M)),
    (ops.Log(), (M,), np.log(M)),
    (ops.Sqrt(), (M,), np.sqrt(M)),
    (ops.Rsqrt(), (M,), 1 / np.sqrt(M)),
    (ops.Square(), (M,), M * M),
    (ops.Abs(), (-M,), M),
    (ops.Maximum(), (M, 2.0), np.maximum(M, 2)),
    (ops.Minimum(), (M, 2.0), np.minimum(M, 2)),
    (ops.Sin(), (M,), np.sin(M)),
    (ops.Cos(), (M,), np.cos(M)),
    (ops.Floor(), (M / 2,), np.floor(M / 2)),
    (ops.Mod(), (M, 2.0), np.mod(M, 2)),
    (ops.FloorDiv(), (M, 2.0), M // 2),
    (ops.MatMul(), (M, M), M @ M),
    (ops.MatMul(transpose_a=True), (M, M), M.T @ M),
    (ops.MatMul(transpose_b=True), (M, M), M @ M.T),
    (ops.MatMul(True, True), (M, M), M.T @ M.T),
    (ops.Transpose(), (X3, (2, 0, 1)), X3.transpose(2, 0, 1)),
    (ops.Reshape(), (X3, (6, 4)), X3.reshape(6, 4)),
    (ops.ExpandDims(), (M, 0), M[None]),
    (ops.Tile(), (M, (1, 2)), np.tile(M, (1, 2))),
    (ops.Identity(), (M,), M),
    (ops.OnesLike(), (M,), np.ones_like(M)),
    (ops.ZerosLike(), (M,), np.zeros_like(M)),
    (ops.Flatten(), (X3,), X3.reshape(2, 12)),
    (ops.BroadcastTo((3, 2, 2)), (M,), np.broadcast_to(M, (3, 2, 2))),
    (ops.ReduceSum(), (M,), M.sum()),
    (ops.ReduceSum(), (M, 1), M.sum(1)),
    (ops.ReduceSum(keep_dims=True), (M, 1), M.sum(1, keepdims=True)),
    (ops.ReduceSum(), (X3, (0, 2)), X3.sum((0, 2))),
    (ops.ReduceMean(True), (M, 0), M.mean(0, keepdims=True)),
    (ops.ReduceMax(), (M, 0), M.max(0)),
    (ops.ReduceMin(), (M,), M.min()),
    (ops.Squeeze(), (np.ones((1, 2, 1), np.float32),), np.ones(2)),
    (ops.Squeeze(0), (np.ones((1, 2, 1), np.float32),), np.ones((2, 1))),
    (ops.Squeeze((0, 2)), (np.ones((1, 2, 1), np.float32),), np.ones(2)),
], ids=lambda v: repr(v) if isinstance(v, ops.Primitive) else "")
def test_primitives_compute_like_their_functions(backend, prim, args, expected):
    inputs = [T(a) if isinstance(a, np.ndarray) else a for a in args]
    out = prim(*inputs)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(host(out), expected, rtol=1e-6)


def test_primitives_batch_matmul(backend):
    a = T(X3)
    assert ops.BatchMatMul()(a, T(np.ones((2, 4, 1), np.float32))).shape == (2, 3, 1)
    out = ops.BatchMatMul(transpose_b=True)(a, a)
    np.testing.assert_allclose(host(out), X3 @ X3.transpose(0, 2, 1))
    assert ops.BatchMatMul(transpose_a=True)(a, a).shape == (2, 4, 4)


def test_primitives_concat_stack_split(backend):
    m = T(M)
    assert ops.Concat(1)((m, m)).shape == (2, 4)
    assert ops.Concat()([m, m]).shape == (4, 2)
    assert ops.Stack(1)((m, m)).shape == (2, 2, 2)
    left, right = ops.Split(1, 2)(m)
    assert host(left).tolist() == [[1.0], [3.0]] and host(right).tolist() == [[5.0], [2.0]]
    (whole,) = ops.Split()(m)
    assert whole.shape == (2, 2)
    with pytest.raises(ValueError, match="cannot be split into 3 equal parts"):
        ops.Split(0, 3)(m)


def test_primitives_gather_cast_and_creation(backend):
    m = T(M)
    assert host(ops.Gather()(m, T([1, 0]), 0)).tolist() == [[3.0, 2.0], [1.0, 5.0]]
    assert ops.Cast()(m, ms.int32).dtype is ms.int32
    ones = ops.Ones()((2, 2), ms.float32)
    assert ones.dtype is ms.float32 and host(ones).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert ops.Ones()(3, ms.int32).dtype is ms.int32
    assert host(ops.Zeros()((2,), ms.float32)).tolist() == [0.0, 0.0]
    assert host(ops.Fill()(ms.float32, (2,), 3.0)).tolist() == [3.0, 3.0]


def test_primitives_argmax_argmin_default_to_int32_last_axis(backend):
    m = T(M)
    out = ops.Argmax()(m)
    assert out.dtype is ms.int32 and host(out).tolist() == [1, 0]
    assert host(ops.Argmax(axis=0)(m)).tolist() == [1, 0]
    assert ops.Argmax(output_type=ms.int64)(m).dtype is ms.int64
    out = ops.Argmin()(m)
    assert out.dtype is ms.int32 and host(out).tolist() == [0, 1]


def test_primitives_shape_rank_size(backend):
    m = T(X3)
    assert ops.Shape()(m) == (2, 3, 4)
    assert ops.Rank()(m) == 3
    assert ops.Size()(m) == 24


def test_primitives_comparisons_select_addn(backend):
    m = T(M)
    assert host(ops.Equal()(m, 1.0)).tolist() == [[True, False], [False, False]]
    assert host(ops.Greater()(m, 2.0)).tolist() == [[False, True], [True, False]]
    assert host(ops.Less()(m, 2.0)).tolist() == [[True, False], [False, False]]
    assert host(ops.Select()(m > 2, m, m * 0)).tolist() == [[0.0, 5.0], [3.0, 0.0]]
    assert host(ops.AddN()((m, m, m))).tolist() == (M * 3).tolist()
    with pytest.raises(ValueError, match="must not be empty"):
        ops.AddN()([])


def test_primitives_are_differentiable(backend):
    m = T(M)
    g = ms.grad(lambda a: ops.ReduceSum()(ops.MatMul(transpose_b=True)(a, a)))(m)
    expected = np.ones((2, 2)) @ M + np.ones((2, 2)).T @ M
    np.testing.assert_allclose(host(g), expected)
    g = ms.grad(lambda a: ops.ReduceSum()(ops.BatchMatMul(transpose_a=True)(a, a)))(T(X3))
    assert g.shape == (2, 3, 4)


def test_primitives_repr_as_mindspore():
    assert repr(ops.Add()) == "Prim[Add]"
    assert repr(ops.MatMul(transpose_b=True)) == "Prim[MatMul]<transpose_a=False, transpose_b=True>"
    assert repr(ops.ReduceSum(keep_dims=True)) == "Prim[ReduceSum]<keep_dims=True>"


def test_primitives_record_their_constructor_arguments():
    mm = ops.MatMul(transpose_a=True)
    assert mm.attrs == {"transpose_a": True, "transpose_b": False}
    assert mm.transpose_a is True and mm.name == "MatMul"
    mm.add_prim_attr("tag", 1)
    assert mm.attrs["tag"] == 1 and mm.tag == 1
    mm.del_prim_attr("tag")
    assert "tag" not in mm.attrs and not hasattr(mm, "tag")


def test_primitives_recompute_and_shard_are_recorded():
    p = ops.MatMul()
    assert p.recompute() is p and p._recompute is True
    with pytest.raises(TypeError, match="'mode' must be a bool"):
        p.recompute(1)
    assert p.shard(((1, 1), (1, 1))) is p
    with pytest.raises(TypeError, match="'in_strategy' must be a tuple"):
        p.shard([1])


def test_primitives_user_defined_with_prim_attr_register(backend):
    class Scale(ops.Primitive):
        @ops.prim_attr_register
        def __init__(self, factor=2.0):
            pass

        def __call__(self, x):
            return ops.mul(x, self.factor)

    s = Scale(3.0)
    assert s.attrs == {"factor": 3.0}
    assert repr(s) == "Prim[Scale]<factor=3.0>"
    assert host(s(T([1.0, 2.0]))).tolist() == [3.0, 6.0]
    assert isinstance(s, ops.PrimitiveWithInfer)
