"""Creating tensors (ones, zeros, fill, full, arange, eye) and casting them."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import ops

T = ms.Tensor


def host(t):
    return t.asnumpy()


def on_device(t, backend):
    if backend.device is not None:
        assert t._data.device == backend.device


def test_creation_ones_and_zeros(backend):
    o = ops.ones((2, 3))
    assert o.dtype is ms.float32 and host(o).tolist() == [[1.0] * 3] * 2
    on_device(o, backend)
    z = ops.zeros(4, ms.int32)
    assert z.dtype is ms.int32 and host(z).tolist() == [0, 0, 0, 0]
    on_device(z, backend)
    assert ops.ones([2], dtype=ms.bool_).dtype is ms.bool_
    assert ops.zeros(()).shape == ()


def test_creation_like_ops_keep_shape_and_dtype(backend):
    x = T([[1, 2, 3]])
    o = ops.ones_like(x)
    assert o.dtype is ms.int64 and o.shape == (1, 3) and host(o).tolist() == [[1, 1, 1]]
    z = ops.zeros_like(T([1.0, 2.0]))
    assert z.dtype is ms.float32 and host(z).tolist() == [0.0, 0.0]
    assert ops.ones_like(x, dtype=ms.float32).dtype is ms.float32
    f = ops.full_like(x, 7)
    assert host(f).tolist() == [[7, 7, 7]]
    on_device(f, backend)


def test_creation_fill_and_full(backend):
    f = ops.fill(ms.float32, (2, 2), 3)
    assert f.dtype is ms.float32 and host(f).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert ops.full((2,), 3).dtype is ms.int64
    assert ops.full((2,), 3.5).dtype is ms.int64  # MindSpore 2.10: Int64 without a dtype (the 3.5 truncated)
    assert ops.full((2,), True).dtype is ms.int64
    assert host(ops.full((2,), 2, dtype=ms.float64)).tolist() == [2.0, 2.0]


def test_creation_arange(backend):
    a = ops.arange(5)
    assert a.dtype is ms.int64 and host(a).tolist() == [0, 1, 2, 3, 4]
    on_device(a, backend)
    b = ops.arange(0, 1, 0.25)
    assert b.dtype is ms.float32 and host(b).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert host(ops.arange(5, 1, -2)).tolist() == [5, 3]
    assert ops.arange(3, dtype=ms.float64).dtype is ms.float64
    with pytest.raises(ValueError, match="'step' must not be 0"):
        ops.arange(0, 5, 0)


def test_creation_eye(backend):
    e = ops.eye(2)
    assert e.dtype is ms.float32 and host(e).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert ops.eye(2, 3, ms.int32).shape == (2, 3)
    on_device(e, backend)


@pytest.mark.parametrize("bad, error", [((-1, 2), ValueError), ("ab", TypeError), (True, TypeError), ((1.5, None), TypeError)])
def test_creation_bad_shape_raises(backend, bad, error):
    with pytest.raises(error, match="shape"):
        ops.ones(bad)


def test_creation_bad_dtype_raises_type_error(backend):
    with pytest.raises(TypeError, match="dtype must be one of"):
        ops.zeros((2,), "float128")


def test_creation_cast(backend):
    out = ops.cast(T([1.7, -1.2]), ms.int32)
    assert out.dtype is ms.int32 and host(out).tolist() == [1, -1]
    assert ops.cast(T([0, 3]), ms.bool_).dtype is ms.bool_
    assert ops.cast(T([1, 2]), "float64").dtype is ms.float64
    x = T([1.0])
    assert ops.cast(x, ms.float32) is x  # nothing to convert: no copy


def test_creation_cast_repr_example(backend):
    assert repr(ops.cast(T([1.7, -1.2]), ms.int32)) == "Tensor(shape=[2], dtype=Int32, value= [ 1, -1])"


def test_creation_cast_gradient_is_cast_back(backend):
    g = ms.grad(lambda x: ops.cast(x, ms.float64).sum())(T([1.0, 2.0]))
    assert g.dtype is ms.float32 and host(g).tolist() == [1.0, 1.0]
    # As in MindSpore, the gradient passes through an integer cast unchanged.
    g = ms.grad(lambda x: ops.cast(x, ms.int32).sum())(T([1.5, 2.5]))
    assert g.dtype is ms.float32 and host(g).tolist() == [1.0, 1.0]
    g = ms.grad(lambda x: (ops.cast(x, ms.float32) * 3).sum())(T([1.0]))
    assert host(g).tolist() == [3.0]


def test_creation_ops_follow_the_current_backend():
    with _backend.use("strict") as b:
        assert ops.ones((2,))._data.device == b.device
    assert isinstance(ops.ones((2,))._data, np.ndarray)
