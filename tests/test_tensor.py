"""Tensor: construction, properties, conversions, operators, indexing and printing.

The printing cases were recorded from MindSpore 2.10 (``repr`` and ``str`` of
the same tensors), so a mismatch means cellkit prints differently.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import ops

T = ms.Tensor


def host(t):
    return t.asnumpy()


def skip_float16_on_strict(backend, *dtypes):
    """array_api_strict has no float16 (CuPy does): those cases run on NumPy only."""
    if backend.name == "array_api_strict" and ms.float16 in dtypes:
        pytest.skip("array_api_strict does not support float16")


# -- construction ------------------------------------------------------------------
def test_tensor_from_list_scalar_numpy_and_tensor(backend):
    assert host(T([1, 2, 3])).tolist() == [1, 2, 3]
    assert T(2.5).shape == () and T(2.5).item() == 2.5
    a = np.arange(6.0).reshape(2, 3)
    t = T(a)
    assert t.shape == (2, 3) and t.dtype is ms.float64
    np.testing.assert_array_equal(host(t), a)
    again = T(t)
    assert again.dtype is ms.float64 and host(again).tolist() == a.tolist()
    assert T(t, dtype=ms.float32).dtype is ms.float32


def test_tensor_from_numpy_copies_the_values(backend):
    a = np.array([1.0, 2.0])
    t = T(a)
    a[0] = 100.0
    assert host(t).tolist() == [1.0, 2.0]


def test_tensor_asnumpy_returns_a_copy(backend):
    t = T([1.0, 2.0])
    h = t.asnumpy()
    h[0] = 50.0
    assert host(t).tolist() == [1.0, 2.0]
    assert isinstance(h, np.ndarray)


@pytest.mark.parametrize("dtype", [ms.float16, ms.float32, ms.float64, ms.int8, ms.int16, ms.int32,
                                   ms.int64, ms.uint8, ms.bool_], ids=str)
def test_tensor_dtype_argument_casts(backend, dtype):
    skip_float16_on_strict(backend, dtype)
    t = T([0, 1, 2], dtype=dtype)
    assert t.dtype is dtype
    assert host(t).dtype == dtype.to_backend(np)


def test_tensor_dtype_argument_accepts_names(backend):
    assert T([1, 2], dtype="float32").dtype is ms.float32
    assert T([1.7], "int32").dtype is ms.int32


def test_tensor_bfloat16_on_numpy():
    t = T([1.5, -2.25], ms.bfloat16)
    assert t.dtype is ms.bfloat16
    assert host(t).astype(np.float32).tolist() == [1.5, -2.25]


def test_tensor_functional_constructor(backend):
    t = ms.tensor([1, 2, 3], ms.float32)
    assert isinstance(t, T) and t.dtype is ms.float32
    assert ms.tensor(2).dtype is ms.int64


def test_tensor_placeholder_with_dynamic_dimension():
    t = T(shape=[3, None], dtype=ms.float32)
    assert t.shape == (3, -1)
    assert t.dtype is ms.float32
    assert t.ndim == 2
    assert repr(t) == "Tensor(shape=[3, -1], dtype=Float32, value=\n)"
    with pytest.raises(RuntimeError, match=r"placeholder of shape \[3, -1\]"):
        t.asnumpy()
    with pytest.raises(RuntimeError, match="placeholder"):
        ops.add(t, 1.0)


def test_tensor_static_shape_without_data_is_zeros(backend):
    t = T(shape=(2, 3), dtype=ms.int32)
    assert t.dtype is ms.int32
    assert host(t).tolist() == [[0, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("kwargs, error, match", [
    ({}, ValueError, "shape"),
    ({"shape": (2,)}, ValueError, "dtype"),
    ({"shape": "ab", "dtype": ms.float32}, TypeError, "shape"),
    ({"input_data": [1.0], "shape": (1,)}, ValueError, "either input_data"),
    ({"input_data": [[1, 2], [3]]}, (TypeError, ValueError), "ragged|inhomogeneous"),
    ({"input_data": "text"}, TypeError, "input_data"),
    ({"input_data": {"a": 1}}, TypeError, "dict"),
    ({"input_data": [1.0], "dtype": "float33"}, TypeError, "float33"),
])
def test_tensor_bad_construction_raises_clear_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        T(**kwargs)


# -- properties and conversions ---------------------------------------------------------
def test_tensor_properties(backend):
    t = T(np.zeros((2, 3, 4), dtype=np.float32))
    assert t.shape == (2, 3, 4)
    assert t.ndim == 3
    assert t.size == 24
    assert t.itemsize == 4
    assert t.nbytes == 96
    assert t.dtype is ms.float32
    assert T(1.0).shape == () and T(1.0).size == 1


def test_tensor_item_and_python_conversions(backend):
    assert T([[3.5]]).item() == 3.5
    assert isinstance(T([7]).item(), int)
    assert T([1.0, 2.0, 3.0]).item(1) == 2.0
    assert float(T(2.5)) == 2.5
    assert int(T([4])) == 4
    assert bool(T(True)) is True
    assert T([1, 2]).tolist() == [1, 2]
    assert [10, 20, 30][T(1)] == 20


def test_tensor_item_of_many_elements_raises_value_error(backend):
    with pytest.raises(ValueError, match=r"one element.*shape \(3,\)"):
        T([1.0, 2.0, 3.0]).item()


def test_tensor_index_of_float_tensor_raises_type_error():
    with pytest.raises(TypeError, match="integer"):
        [1, 2][T(1.0)]


def test_tensor_astype(backend):
    t = T([1.7, -1.2])
    assert t.astype(ms.int32).dtype is ms.int32
    assert host(t.astype(ms.int32)).tolist() == [1, -1]
    assert t.astype("float64").dtype is ms.float64
    assert t.astype(ms.float32) .dtype is ms.float32
    assert host(T([0, 2]).astype(ms.bool_)).tolist() == [False, True]


def test_tensor_reshape_spellings(backend):
    t = T(np.arange(6.0))
    assert t.reshape(2, 3).shape == (2, 3)
    assert t.reshape((3, 2)).shape == (3, 2)
    assert t.reshape([1, -1]).shape == (1, 6)
    assert t.view(6, 1).shape == (6, 1)
    assert host(t.reshape(2, 3)).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_tensor_reshape_bad_shape_raises_value_error_with_both_shapes(backend):
    with pytest.raises(ValueError, match=r"\(3,\).*\(2, 2\)"):
        T([1.0, 2.0, 3.0]).reshape(2, 2)


def test_tensor_transpose_spellings(backend):
    t = T(np.arange(24.0).reshape(2, 3, 4))
    assert t.transpose().shape == (4, 3, 2)
    assert t.transpose(1, 0, 2).shape == (3, 2, 4)
    assert t.transpose((2, 0, 1)).shape == (4, 2, 3)
    assert t.T.shape == (4, 3, 2)
    assert t.mT.shape == (2, 4, 3)
    np.testing.assert_array_equal(host(t.transpose(2, 0, 1)), np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1))


def test_tensor_transpose_bad_permutation_raises_value_error(backend):
    with pytest.raises(ValueError, match="permutation"):
        T(np.zeros((2, 3))).transpose(0, 0)
    with pytest.raises(ValueError, match="dims"):
        T(np.zeros((2, 3))).transpose(0, 2)


def test_tensor_math_methods(backend):
    t = T([1.0, 4.0, 9.0])
    np.testing.assert_allclose(host(t.sqrt()), [1, 2, 3])
    np.testing.assert_allclose(host(t.exp()), np.exp([1, 4, 9]), rtol=1e-6)
    np.testing.assert_allclose(host(t.log()), np.log([1, 4, 9]), rtol=1e-6)
    np.testing.assert_allclose(host(t.pow(2)), [1, 16, 81])
    assert host(T([-1.5, 2.0]).abs()).tolist() == [1.5, 2.0]
    assert host(abs(T([-3, 2]))).tolist() == [3, 2]
    assert t.sum().item() == 14.0
    np.testing.assert_allclose(t.mean().item(), 14 / 3, rtol=1e-6)


def test_tensor_reduction_methods_follow_mindspore_overloads(backend):
    m = T([[1.0, 5.0], [3.0, 2.0]])
    assert m.max().item() == 5.0
    assert m.min().item() == 1.0
    # Positional or ``dim=`` axis: (values, indices), like MindSpore 2.10.
    values, indices = m.max(1)
    assert host(values).tolist() == [5.0, 3.0] and host(indices).tolist() == [1, 0]
    values, indices = m.min(dim=1, keepdim=True)
    assert values.shape == (2, 1) and host(indices).tolist() == [[0], [1]]
    # ``axis=`` keyword: values only.
    assert host(m.max(axis=0)).tolist() == [3.0, 5.0]
    assert m.max(0, keepdims=True).shape == (1, 2)
    assert m.max((0, 1)).item() == 5.0
    v, i = m.max(axis=1, return_indices=True)
    assert host(i).tolist() == [1, 0]
    assert host(m.sum(1)).tolist() == [6.0, 5.0]
    assert m.sum(axis=1, keepdims=True).shape == (2, 1)
    assert m.sum(1, keepdim=True).shape == (2, 1)
    assert host(m.sum(dim=0)).tolist() == [4.0, 7.0]
    assert host(m.mean(0)).tolist() == [2.0, 3.5]
    assert m.mean(axis=1, keep_dims=True).shape == (2, 1)
    assert m.argmax().item() == 1
    assert host(m.argmax(1)).tolist() == [1, 0]
    assert host(m.argmin(dim=1)).tolist() == [0, 1]
    with pytest.raises(TypeError, match="ops.maximum"):
        m.max(m)


# -- operators ------------------------------------------------------------------------
def test_tensor_arithmetic_operators(backend):
    a = T([1.0, 2.0, 3.0])
    b = T([4.0, 5.0, 6.0])
    assert host(a + b).tolist() == [5, 7, 9]
    assert host(b - a).tolist() == [3, 3, 3]
    assert host(a * b).tolist() == [4, 10, 18]
    assert host(b / a).tolist() == [4, 2.5, 2]
    assert host(b // a).tolist() == [4, 2, 2]
    assert host(b % a).tolist() == [0, 1, 0]
    assert host(a ** 2).tolist() == [1, 4, 9]
    assert host(-a).tolist() == [-1, -2, -3]
    assert host(+a).tolist() == [1, 2, 3]
    assert (a @ b).item() == 32


def test_tensor_reflected_operators_with_numbers(backend):
    a = T([1.0, 2.0, 4.0])
    assert host(1 + a).tolist() == [2, 3, 5]
    assert host(1 - a).tolist() == [0, -1, -3]
    assert host(2 * a).tolist() == [2, 4, 8]
    assert host(4 / a).tolist() == [4, 2, 1]
    assert host(2 ** a).tolist() == [2, 4, 16]
    assert host(5 // a).tolist() == [5, 2, 1]


@pytest.mark.parametrize("expr, dtype, values", [
    # (expression on i=[1,2,3] Int64, f=[1.,2.,3.] Float32, b=[T,F,T], h Float16, d Float64), as MindSpore 2.10
    ("i + 1.5", ms.float32, [2.5, 3.5, 4.5]),
    ("i + 1", ms.int64, [2, 3, 4]),
    ("i / i", ms.float32, [1.0, 1.0, 1.0]),
    ("i32 / i32", ms.float32, [1.0, 1.0, 1.0]),
    ("1 / i", ms.float32, [1.0, 0.5, 1 / 3]),
    ("i / 2", ms.float32, [0.5, 1.0, 1.5]),
    ("i // 2", ms.int64, [0, 1, 1]),
    ("i % 2", ms.int64, [1, 0, 1]),
    ("f // 2", ms.float32, [0.0, 1.0, 1.0]),
    ("i * f", ms.float32, [1.0, 4.0, 9.0]),
    ("i + h", ms.float16, [2.0, 4.0, 6.0]),
    ("h + f", ms.float32, [2.0, 4.0, 6.0]),
    ("f + d", ms.float64, [2.0, 4.0, 6.0]),
    ("i32 + i", ms.int64, [2, 4, 6]),
    ("b + b", ms.bool_, [True, False, True]),
    ("b + 1", ms.int64, [2, 1, 2]),
    ("b + 1.5", ms.float32, [2.5, 1.5, 2.5]),
    ("b * i", ms.int64, [1, 0, 3]),
    ("b + True", ms.bool_, [True, True, True]),
    ("i + True", ms.int64, [2, 3, 4]),
    ("f ** 2", ms.float32, [1.0, 4.0, 9.0]),
    ("i ** 2", ms.int64, [1, 4, 9]),
    ("i ** 0.5", ms.float32, [1.0, 2 ** 0.5, 3 ** 0.5]),
    ("2 ** i", ms.int64, [2, 4, 8]),
    ("1 - f", ms.float32, [0.0, -1.0, -2.0]),
    ("-i", ms.int64, [-1, -2, -3]),
    ("h * 2.5", ms.float16, [2.5, 5.0, 7.5]),
    ("f == i", ms.bool_, [True, True, True]),
    ("f > 2", ms.bool_, [False, False, True]),
    ("i > 1.5", ms.bool_, [False, True, True]),
    ("i != 2", ms.bool_, [True, False, True]),
    ("f <= 2", ms.bool_, [True, True, False]),
    ("f < i", ms.bool_, [False, False, False]),
    ("i >= 2", ms.bool_, [False, True, True]),
    ("b & (i > 1)", ms.bool_, [False, False, True]),
    ("b | (i > 1)", ms.bool_, [True, True, True]),
    ("~b", ms.bool_, [False, True, False]),
])
def test_tensor_operator_result_dtypes_follow_mindspore(backend, expr, dtype, values):
    if "h" in expr.split():
        skip_float16_on_strict(backend, ms.float16)
    if expr in ("b + b", "b + True") and backend.name == "array_api_strict":
        pytest.skip("array_api_strict refuses arithmetic on two booleans (NumPy and CuPy allow it)")
    env = {
        "i": T([1, 2, 3]), "i32": T([1, 2, 3], ms.int32), "f": T([1.0, 2.0, 3.0]),
        "b": T([True, False, True]), "d": T(np.array([1.0, 2.0, 3.0])),
    }
    if "h" in expr.split():
        env["h"] = T([1.0, 2.0, 3.0], ms.float16)
    out = eval(expr, {}, env)
    assert out.dtype is dtype
    np.testing.assert_allclose(host(out).astype(np.float64), np.array(values, dtype=np.float64), rtol=1e-6)


def test_tensor_operator_with_numpy_array_on_either_side():
    a = T([1.0, 2.0])
    out = np.array([1.0, 1.0], dtype=np.float32) + a
    assert isinstance(out, T) and host(out).tolist() == [2.0, 3.0]
    assert isinstance(a * np.array([2.0], dtype=np.float32), T)


def test_tensor_operator_bad_operand_raises_type_error_naming_it(backend):
    with pytest.raises(TypeError, match="'other'.*str"):
        T([1.0]) + "a"
    with pytest.raises(TypeError, match="'other'.*NoneType"):
        T([1.0]) * None


def test_tensor_operator_shape_mismatch_raises_value_error_with_both_shapes(backend):
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        T(np.ones((2, 3))) + T(np.ones(4))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4, 4\)"):
        T(np.ones((2, 3))) @ T(np.ones((4, 4)))


def test_tensor_equality_is_elementwise_and_hash_is_identity(backend):
    a = T([1.0, 2.0])
    assert host(a == a).tolist() == [True, True]
    assert len({a, a, T([1.0, 2.0])}) == 2


# -- indexing -------------------------------------------------------------------------
def test_tensor_index_scalar_gives_0d_tensor(backend):
    x = T([1.0, 2.0, 3.0])
    first = x[0]
    assert isinstance(first, T)
    assert first.shape == () and first.dtype is ms.float32
    assert first.item() == 1.0
    assert x[-1].item() == 3.0
    assert x[T(1)].item() == 2.0


def test_tensor_slicing_and_advanced_indexing(backend):
    m = T(np.arange(12.0).reshape(3, 4))
    ref = np.arange(12.0).reshape(3, 4)
    cases = [
        (lambda z: z[1], lambda r: r[1]),
        (lambda z: z[1:], lambda r: r[1:]),
        (lambda z: z[:, 1], lambda r: r[:, 1]),
        (lambda z: z[::2, 1:3], lambda r: r[::2, 1:3]),
        (lambda z: z[..., -1], lambda r: r[..., -1]),
        (lambda z: z[None], lambda r: r[None]),
        (lambda z: z[1, None, 2:], lambda r: r[1, None, 2:]),
        (lambda z: z[[0, 2]], lambda r: r[[0, 2]]),
        (lambda z: z[T([2, 0, 2])], lambda r: r[[2, 0, 2]]),
        (lambda z: z[T([True, False, True])], lambda r: r[[True, False, True]]),
        (lambda z: z[z > 5], lambda r: r[r > 5]),
        (lambda z: z[:, [0, 2]], lambda r: r[:, [0, 2]]),
        (lambda z: z[[0, 2], 1:3], lambda r: r[[0, 2], 1:3]),
        (lambda z: z[[0, 2], [1, 1]], lambda r: r[[0, 2], [1, 1]]),
        (lambda z: z[T([[0], [2]]), T([1, 3])], lambda r: r[[[0], [2]], [1, 3]]),
        (lambda z: z[1, T([3, 0])], lambda r: r[1, [3, 0]]),
        (lambda z: z[[-1, 0]], lambda r: r[[-1, 0]]),
        (lambda z: z[::-1, 0], lambda r: r[::-1, 0]),
    ]
    for pick, expected in cases:
        np.testing.assert_array_equal(host(pick(m)), expected(ref))


def test_tensor_index_out_of_bounds_raises_index_error(backend):
    with pytest.raises(IndexError, match=r"shape \(3,\)"):
        T([1.0, 2.0, 3.0])[5]
    m = T(np.ones((2, 2)))
    for key in ([5], [-3], (0, [2]), T([2])):
        with pytest.raises(IndexError, match=r"out of bounds for a tensor of shape \(2, 2\)"):
            m[key]


def test_tensor_index_with_bad_key_raises_type_error(backend):
    with pytest.raises(TypeError, match="indices"):
        T([1.0, 2.0])["a"]
    with pytest.raises(TypeError, match="indices"):
        T([1.0, 2.0])[1.5]


def test_tensor_indexing_is_differentiable(backend):
    x = T([1.0, 2.0, 3.0, 4.0])
    g = ms.grad(lambda t: (t[1:3] * T([10.0, 20.0])).sum())(x)
    assert host(g).tolist() == [0, 10, 20, 0]
    g = ms.grad(lambda t: t[[0, 0, 3]].sum())(x)
    assert host(g).tolist() == [2, 0, 0, 1]
    g = ms.grad(lambda t: t[t > 2].sum())(x)
    assert host(g).tolist() == [0, 0, 1, 1]
    m = T(np.arange(6.0).reshape(2, 3))
    g = ms.grad(lambda t: t[:, 1].sum() + t[1, 2] * 3)(m)
    assert host(g).tolist() == [[0, 1, 0], [0, 1, 3]]
    g = ms.grad(lambda t: t[:, [0, 0, 2]].sum() + t[[1, 1], [2, 2]].sum())(m)
    assert host(g).tolist() == [[2, 0, 1], [2, 0, 3]]
    g = ms.grad(lambda t: t[None, 1].sum())(m)
    assert host(g).tolist() == [[0, 0, 0], [1, 1, 1]]


def test_tensor_empty_selections_have_zero_gradient(backend):
    m = T(np.ones((2, 3)))
    assert m[[]].shape == (0, 3) and m[[], 1:].shape == (0, 2)
    g = ms.grad(lambda t: t[[]].sum() + t[[0, 0], 3:].sum() + t[T([False, False])].sum()
                + ops.gather(t, T(np.zeros(0, np.int64)), 1).sum())(m)
    assert host(g).tolist() == [[0, 0, 0], [0, 0, 0]]


def test_tensor_setitem_in_place(backend):
    x = T([1.0, 2.0, 3.0])
    x[0] = 10.0
    x[1:] = T([20.0, 30.0])
    assert host(x).tolist() == [10, 20, 30]
    m = T(np.zeros((2, 2)))
    m[1] = 5
    assert host(m).tolist() == [[0, 0], [5, 5]]


def test_tensor_setitem_while_recording_raises_runtime_error():
    def f(x):
        x[0] = 1.0
        return x.sum()

    with pytest.raises(RuntimeError, match="ops.where"):
        ms.grad(f)(T([1.0, 2.0]))


def test_tensor_len_and_iter(backend):
    m = T(np.arange(6.0).reshape(3, 2))
    assert len(m) == 3
    rows = list(m)
    assert len(rows) == 3 and all(r.shape == (2,) for r in rows)
    assert host(rows[2]).tolist() == [4.0, 5.0]
    assert [t.item() for t in T([7, 8])] == [7, 8]


def test_tensor_len_and_iter_of_0d_raise_type_error():
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(T(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(T(1.0))


def test_tensor_compares_unequal_to_none(backend):
    assert (T([1.0]) == None) is False  # noqa: E711  (MindSpore's answer)
    assert (T([1.0]) != None) is True  # noqa: E711


def test_tensor_dtype_shortcut_methods(backend):
    t = T([[1.5, 2.0]])
    assert t.dim() == 2 and t.numel() == 2 and t.nelement() == 2
    assert t.float().dtype is ms.float32
    assert t.double().dtype is ms.float64
    assert t.int().dtype is ms.int32 and host(t.int()).tolist() == [[1, 2]]
    assert t.long().dtype is ms.int64
    assert t.bool().dtype is ms.bool_
    if backend.name == "numpy":
        assert t.half().dtype is ms.float16


def test_tensor_astype_returns_a_new_tensor_even_for_the_same_dtype(backend):
    t = T([1.0, 2.0])
    same = t.astype(ms.float32)
    assert same is not t
    same[0] = 9.0
    assert host(t).tolist() == [1.0, 2.0]
    assert t.float() is not t


# -- no recording outside a transform --------------------------------------------------------
def test_tensor_ops_record_nothing_outside_a_transform(backend):
    x = T([1.0, 2.0])
    y = T([3.0, 4.0])
    outs = [x + y, x * y, x @ y, x.reshape(2, 1), ops.exp(x), x.sum(), x[0], x.astype(ms.float64),
            ops.concat([x, y]), ops.matmul(x.reshape(1, 2), y.reshape(2, 1)), ops.max(x)[0], -x]
    for out in outs:
        assert out._node is None


# -- printing -------------------------------------------------------------------------
def test_tensor_print_spec_example(backend, capsys):
    print(ops.add(T([1, 2, 3], ms.float32), T([4, 5, 6], ms.float32)))
    print(T([4, 5, 6]))
    assert capsys.readouterr().out == "[5. 7. 9.]\n[4 5 6]\n"


def test_tensor_repr_spec_example(backend):
    assert repr(T([4, 5, 6])) == "Tensor(shape=[3], dtype=Int64, value= [4, 5, 6])"


def test_tensor_print_of_strict_device_tensor_transfers_explicitly():
    with _backend.use("strict"):
        t = T(np.arange(2000, dtype=np.float32))
        assert str(t) == "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"
PRINT_CASES = [
    ('T([4, 5, 6])',
     'Tensor(shape=[3], dtype=Int64, value= [4, 5, 6])',
     '[4 5 6]'),
    ('T([5., 7., 9.])',
     'Tensor(shape=[3], dtype=Float32, value= [ 5.00000000e+00,  7.00000000e+00,  9.00000000e+00])',
     '[5. 7. 9.]'),
    ('T([2.0, 3.5])',
     'Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  3.50000000e+00])',
     '[2.  3.5]'),
    ('T(np.arange(8, dtype=np.float32).reshape(2, 4))',
     'Tensor(shape=[2, 4], dtype=Float32, value=\n[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00,  3.00000000e+00],\n [ 4.00000000e+00,  5.00000000e+00,  6.00000000e+00,  7.00000000e+00]])',
     '[[0. 1. 2. 3.]\n [4. 5. 6. 7.]]'),
    ('T(np.arange(12).reshape(3, 4))',
     'Tensor(shape=[3, 4], dtype=Int64, value=\n[[ 0,  1,  2,  3],\n [ 4,  5,  6,  7],\n [ 8,  9, 10, 11]])',
     '[[ 0  1  2  3]\n [ 4  5  6  7]\n [ 8  9 10 11]]'),
    ('T(np.arange(8).reshape(2, 4))',
     'Tensor(shape=[2, 4], dtype=Int64, value=\n[[0, 1, 2, 3],\n [4, 5, 6, 7]])',
     '[[0 1 2 3]\n [4 5 6 7]]'),
    ('T(2.5)',
     'Tensor(shape=[], dtype=Float32, value= 2.5)',
     '2.5'),
    ('T(1.0)',
     'Tensor(shape=[], dtype=Float32, value= 1)',
     '1.0'),
    ('T(123456789.0)',
     'Tensor(shape=[], dtype=Float32, value= 1.23457e+08)',
     '123456790.0'),
    ('T(1 / 3)',
     'Tensor(shape=[], dtype=Float32, value= 0.333333)',
     '0.33333334'),
    ('T([True, False])',
     'Tensor(shape=[2], dtype=Bool, value= [ True, False])',
     '[ True False]'),
    ('T(True)',
     'Tensor(shape=[], dtype=Bool, value= True)',
     'True'),
    ('T(3)',
     'Tensor(shape=[], dtype=Int64, value= 3)',
     '3'),
    ('T(np.array([1.5, -2.25], np.float16))',
     'Tensor(shape=[2], dtype=Float16, value= [ 1.5000e+00, -2.2500e+00])',
     '[ 1.5  -2.25]'),
    ('T(np.arange(2000, dtype=np.float32))',
     'Tensor(shape=[2000], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00 ...  1.99700000e+03,  1.99800000e+03,  1.99900000e+03])',
     '[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]'),
    ('T(np.arange(24.0).reshape(2, 3, 4))',
     'Tensor(shape=[2, 3, 4], dtype=Float64, value=\n[[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00,  3.00000000e+00],\n  [ 4.00000000e+00,  5.00000000e+00,  6.00000000e+00,  7.00000000e+00],\n  [ 8.00000000e+00,  9.00000000e+00,  1.00000000e+01,  1.10000000e+01]],\n [[ 1.20000000e+01,  1.30000000e+01,  1.40000000e+01,  1.50000000e+01],\n  [ 1.60000000e+01,  1.70000000e+01,  1.80000000e+01,  1.90000000e+01],\n  [ 2.00000000e+01,  2.10000000e+01,  2.20000000e+01,  2.30000000e+01]]])',
     '[[[ 0.  1.  2.  3.]\n  [ 4.  5.  6.  7.]\n  [ 8.  9. 10. 11.]]\n\n [[12. 13. 14. 15.]\n  [16. 17. 18. 19.]\n  [20. 21. 22. 23.]]]'),
    ('T([1, 2, 3], ms.bfloat16)',
     'Tensor(shape=[3], dtype=BFloat16, value= [1, 2, 3])',
     '[1.000000 2.000000 3.000000]'),
    ('T([1.5, -2.25, 100.0], ms.bfloat16)',
     'Tensor(shape=[3], dtype=BFloat16, value= [  1.5, -2.25,   100])',
     '[1.500000 -2.250000 100.000000]'),
    ('T(0.1, ms.bfloat16)',
     'Tensor(shape=[], dtype=BFloat16, value= 0.100098)',
     '0.100098'),
    ('T(np.array([0.1, 1e-5, 123.0]))',
     'Tensor(shape=[3], dtype=Float64, value= [ 1.00000000e-01,  1.00000000e-05,  1.23000000e+02])',
     '[1.00e-01 1.00e-05 1.23e+02]'),
    ('T([-1, 10, 100])',
     'Tensor(shape=[3], dtype=Int64, value= [ -1,  10, 100])',
     '[ -1  10 100]'),
    ('T(np.float64(2.0))',
     'Tensor(shape=[], dtype=Float64, value= 2)',
     '2.0'),
    ('T(np.arange(2000).reshape(40, 50))',
     'Tensor(shape=[40, 50], dtype=Int64, value=\n[[   0,    1,    2 ...   47,   48,   49],\n [  50,   51,   52 ...   97,   98,   99],\n [ 100,  101,  102 ...  147,  148,  149],\n ...\n [1850, 1851, 1852 ... 1897, 1898, 1899],\n [1900, 1901, 1902 ... 1947, 1948, 1949],\n [1950, 1951, 1952 ... 1997, 1998, 1999]])',
     '[[   0    1    2 ...   47   48   49]\n [  50   51   52 ...   97   98   99]\n [ 100  101  102 ...  147  148  149]\n ...\n [1850 1851 1852 ... 1897 1898 1899]\n [1900 1901 1902 ... 1947 1948 1949]\n [1950 1951 1952 ... 1997 1998 1999]]'),
    ('T([[1.5]])',
     'Tensor(shape=[1, 1], dtype=Float32, value=\n[[ 1.50000000e+00]])',
     '[[1.5]]'),
    ('T(np.zeros((0, 3), np.float32))',
     'Tensor(shape=[0, 3], dtype=Float32, value=\n)',
     '[]'),
    ('T(np.zeros((0,), np.float32))',
     'Tensor(shape=[0], dtype=Float32, value= )',
     '[]'),
    ('T([1e10, 1])',
     'Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+10,  1.00000000e+00])',
     '[1.e+10 1.e+00]'),
    ('T(np.array(7, np.int32))',
     'Tensor(shape=[], dtype=Int32, value= 7)',
     '7'),
    ('T(-0.0)',
     'Tensor(shape=[], dtype=Float32, value= -0)',
     '-0.0'),
    ("T(float('nan'))",
     'Tensor(shape=[], dtype=Float32, value= nan)',
     'nan'),
    ("T([float('inf'), 1.0])",
     'Tensor(shape=[2], dtype=Float32, value= [            inf,  1.00000000e+00])',
     '[inf  1.]'),
    ("T([float('nan'), -1.0])",
     'Tensor(shape=[2], dtype=Float32, value= [            nan, -1.00000000e+00])',
     '[nan -1.]'),
    ('T(np.array([1, 2], np.uint8))',
     'Tensor(shape=[2], dtype=UInt8, value= [1, 2])',
     '[1 2]'),
    ('T(1.5, ms.float16)',
     'Tensor(shape=[], dtype=Float16, value= 1.5)',
     '1.5'),
    ('T(np.arange(100, dtype=np.float32))',
     'Tensor(shape=[100], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00,  3.00000000e+00,  4.00000000e+00,  5.00000000e+00,  6.00000000e+00,  7.00000000e+00,  8.00000000e+00,  9.00000000e+00,  1.00000000e+01,  1.10000000e+01, \n  1.20000000e+01,  1.30000000e+01,  1.40000000e+01,  1.50000000e+01,  1.60000000e+01,  1.70000000e+01,  1.80000000e+01,  1.90000000e+01,  2.00000000e+01,  2.10000000e+01,  2.20000000e+01,  2.30000000e+01, \n  2.40000000e+01,  2.50000000e+01,  2.60000000e+01,  2.70000000e+01,  2.80000000e+01,  2.90000000e+01,  3.00000000e+01,  3.10000000e+01,  3.20000000e+01,  3.30000000e+01,  3.40000000e+01,  3.50000000e+01, \n  3.60000000e+01,  3.70000000e+01,  3.80000000e+01,  3.90000000e+01,  4.00000000e+01,  4.10000000e+01,  4.20000000e+01,  4.30000000e+01,  4.40000000e+01,  4.50000000e+01,  4.60000000e+01,  4.70000000e+01, \n  4.80000000e+01,  4.90000000e+01,  5.00000000e+01,  5.10000000e+01,  5.20000000e+01,  5.30000000e+01,  5.40000000e+01,  5.50000000e+01,  5.60000000e+01,  5.70000000e+01,  5.80000000e+01,  5.90000000e+01, \n  6.00000000e+01,  6.10000000e+01,  6.20000000e+01,  6.30000000e+01,  6.40000000e+01,  6.50000000e+01,  6.60000000e+01,  6.70000000e+01,  6.80000000e+01,  6.90000000e+01,  7.00000000e+01,  7.10000000e+01, \n  7.20000000e+01,  7.30000000e+01,  7.40000000e+01,  7.50000000e+01,  7.60000000e+01,  7.70000000e+01,  7.80000000e+01,  7.90000000e+01,  8.00000000e+01,  8.10000000e+01,  8.20000000e+01,  8.30000000e+01, \n  8.40000000e+01,  8.50000000e+01,  8.60000000e+01,  8.70000000e+01,  8.80000000e+01,  8.90000000e+01,  9.00000000e+01,  9.10000000e+01,  9.20000000e+01,  9.30000000e+01,  9.40000000e+01,  9.50000000e+01, \n  9.60000000e+01,  9.70000000e+01,  9.80000000e+01,  9.90000000e+01])',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29. 30. 31. 32. 33. 34. 35.\n 36. 37. 38. 39. 40. 41. 42. 43. 44. 45. 46. 47. 48. 49. 50. 51. 52. 53.\n 54. 55. 56. 57. 58. 59. 60. 61. 62. 63. 64. 65. 66. 67. 68. 69. 70. 71.\n 72. 73. 74. 75. 76. 77. 78. 79. 80. 81. 82. 83. 84. 85. 86. 87. 88. 89.\n 90. 91. 92. 93. 94. 95. 96. 97. 98. 99.]'),
    ('T(np.arange(100))',
     'Tensor(shape=[100], dtype=Int64, value= [ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, \n 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, \n 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, \n 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, \n 96, 97, 98, 99])',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47\n 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71\n 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95\n 96 97 98 99]'),
    ('T(np.arange(30) % 2 == 0)',
     'Tensor(shape=[30], dtype=Bool, value= [ True, False,  True, False,  True, False,  True, False,  True, False,  True, False, \n  True, False,  True, False,  True, False,  True, False,  True, False,  True, False, \n  True, False,  True, False,  True, False])',
     '[ True False  True False  True False  True False  True False  True False\n  True False  True False  True False  True False  True False  True False\n  True False  True False  True False]'),
    ('T(np.arange(12, dtype=np.float32))',
     'Tensor(shape=[12], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00,  3.00000000e+00,  4.00000000e+00,  5.00000000e+00,  6.00000000e+00,  7.00000000e+00,  8.00000000e+00,  9.00000000e+00,  1.00000000e+01,  1.10000000e+01\n ])',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11.]'),
    ('T(np.arange(13, dtype=np.float32))',
     'Tensor(shape=[13], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00,  3.00000000e+00,  4.00000000e+00,  5.00000000e+00,  6.00000000e+00,  7.00000000e+00,  8.00000000e+00,  9.00000000e+00,  1.00000000e+01,  1.10000000e+01, \n  1.20000000e+01])',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12.]'),
    ('T(np.arange(24))',
     'Tensor(shape=[24], dtype=Int64, value= [ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23\n ])',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23]'),
    ('T(np.arange(1001))',
     'Tensor(shape=[1001], dtype=Int64, value= [   0,    1,    2 ...  998,  999, 1000])',
     '[   0    1    2 ...  998  999 1000]'),
    ('T(np.arange(1008, dtype=np.float32))',
     'Tensor(shape=[1008], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00 ...  1.00500000e+03,  1.00600000e+03,  1.00700000e+03])',
     '[0.000e+00 1.000e+00 2.000e+00 ... 1.005e+03 1.006e+03 1.007e+03]'),
    ('T(np.arange(14).reshape(2, 7))',
     'Tensor(shape=[2, 7], dtype=Int64, value=\n[[ 0,  1,  2 ...  4,  5,  6],\n [ 7,  8,  9 ... 11, 12, 13]])',
     '[[ 0  1  2  3  4  5  6]\n [ 7  8  9 10 11 12 13]]'),
    ('T(np.arange(16).reshape(8, 2))',
     'Tensor(shape=[8, 2], dtype=Int64, value=\n[[ 0,  1],\n [ 2,  3],\n [ 4,  5],\n ...\n [10, 11],\n [12, 13],\n [14, 15]])',
     '[[ 0  1]\n [ 2  3]\n [ 4  5]\n [ 6  7]\n [ 8  9]\n [10 11]\n [12 13]\n [14 15]]'),
    ('T(np.arange(7 * 7 * 7).reshape(7, 7, 7))',
     'Tensor(shape=[7, 7, 7], dtype=Int64, value=\n[[[  0,   1,   2 ...   4,   5,   6],\n  [  7,   8,   9 ...  11,  12,  13],\n  [ 14,  15,  16 ...  18,  19,  20],\n  ...\n  [ 28,  29,  30 ...  32,  33,  34],\n  [ 35,  36,  37 ...  39,  40,  41],\n  [ 42,  43,  44 ...  46,  47,  48]],\n [[ 49,  50,  51 ...  53,  54,  55],\n  [ 56,  57,  58 ...  60,  61,  62],\n  [ 63,  64,  65 ...  67,  68,  69],\n  ...\n  [ 77,  78,  79 ...  81,  82,  83],\n  [ 84,  85,  86 ...  88,  89,  90],\n  [ 91,  92,  93 ...  95,  96,  97]],\n [[ 98,  99, 100 ... 102, 103, 104],\n  [105, 106, 107 ... 109, 110, 111],\n  [112, 113, 114 ... 116, 117, 118],\n  ...\n  [126, 127, 128 ... 130, 131, 132],\n  [133, 134, 135 ... 137, 138, 139],\n  [140, 141, 142 ... 144, 145, 146]],\n ...\n [[196, 197, 198 ... 200, 201, 202],\n  [203, 204, 205 ... 207, 208, 209],\n  [210, 211, 212 ... 214, 215, 216],\n  ...\n  [224, 225, 226 ... 228, 229, 230],\n  [231, 232, 233 ... 235, 236, 237],\n  [238, 239, 240 ... 242, 243, 244]],\n [[245, 246, 247 ... 249, 250, 251],\n  [252, 253, 254 ... 256, 257, 258],\n  [259, 260, 261 ... 263, 264, 265],\n  ...\n  [273, 274, 275 ... 277, 278, 279],\n  [280, 281, 282 ... 284, 285, 286],\n  [287, 288, 289 ... 291, 292, 293]],\n [[294, 295, 296 ... 298, 299, 300],\n  [301, 302, 303 ... 305, 306, 307],\n  [308, 309, 310 ... 312, 313, 314],\n  ...\n  [322, 323, 324 ... 326, 327, 328],\n  [329, 330, 331 ... 333, 334, 335],\n  [336, 337, 338 ... 340, 341, 342]]])',
     '[[[  0   1   2   3   4   5   6]\n  [  7   8   9  10  11  12  13]\n  [ 14  15  16  17  18  19  20]\n  [ 21  22  23  24  25  26  27]\n  [ 28  29  30  31  32  33  34]\n  [ 35  36  37  38  39  40  41]\n  [ 42  43  44  45  46  47  48]]\n\n [[ 49  50  51  52  53  54  55]\n  [ 56  57  58  59  60  61  62]\n  [ 63  64  65  66  67  68  69]\n  [ 70  71  72  73  74  75  76]\n  [ 77  78  79  80  81  82  83]\n  [ 84  85  86  87  88  89  90]\n  [ 91  92  93  94  95  96  97]]\n\n [[ 98  99 100 101 102 103 104]\n  [105 106 107 108 109 110 111]\n  [112 113 114 115 116 117 118]\n  [119 120 121 122 123 124 125]\n  [126 127 128 129 130 131 132]\n  [133 134 135 136 137 138 139]\n  [140 141 142 143 144 145 146]]\n\n [[147 148 149 150 151 152 153]\n  [154 155 156 157 158 159 160]\n  [161 162 163 164 165 166 167]\n  [168 169 170 171 172 173 174]\n  [175 176 177 178 179 180 181]\n  [182 183 184 185 186 187 188]\n  [189 190 191 192 193 194 195]]\n\n [[196 197 198 199 200 201 202]\n  [203 204 205 206 207 208 209]\n  [210 211 212 213 214 215 216]\n  [217 218 219 220 221 222 223]\n  [224 225 226 227 228 229 230]\n  [231 232 233 234 235 236 237]\n  [238 239 240 241 242 243 244]]\n\n [[245 246 247 248 249 250 251]\n  [252 253 254 255 256 257 258]\n  [259 260 261 262 263 264 265]\n  [266 267 268 269 270 271 272]\n  [273 274 275 276 277 278 279]\n  [280 281 282 283 284 285 286]\n  [287 288 289 290 291 292 293]]\n\n [[294 295 296 297 298 299 300]\n  [301 302 303 304 305 306 307]\n  [308 309 310 311 312 313 314]\n  [315 316 317 318 319 320 321]\n  [322 323 324 325 326 327 328]\n  [329 330 331 332 333 334 335]\n  [336 337 338 339 340 341 342]]]'),
    ('T(np.array([-1e100, 1.0]))',
     'Tensor(shape=[2], dtype=Float64, value= [-1.00000000e+100,  1.00000000e+00])',
     '[-1.e+100  1.e+000]'),
    ('T(np.array([[1.5, -2.0]], np.float32), ms.bfloat16)',
     'Tensor(shape=[1, 2], dtype=BFloat16, value=\n[[1.5,  -2]])',
     '[[1.500000 -2.000000]]'),
    ('T(np.array(2.0 ** 40, np.float32))',
     'Tensor(shape=[], dtype=Float32, value= 1.09951e+12)',
     '1099511600000.0'),
    ('T(np.array(0.0001, np.float32))',
     'Tensor(shape=[], dtype=Float32, value= 0.0001)',
     '1e-04'),
    ('T(np.array(1e16))',
     'Tensor(shape=[], dtype=Float64, value= 1e+16)',
     '1e+16'),
    ('T(np.arange(30, dtype=np.float16))',
     'Tensor(shape=[30], dtype=Float16, value= [ 0.0000e+00,  1.0000e+00,  2.0000e+00,  3.0000e+00,  4.0000e+00,  5.0000e+00,  6.0000e+00,  7.0000e+00,  8.0000e+00,  9.0000e+00,  1.0000e+01,  1.1000e+01, \n  1.2000e+01,  1.3000e+01,  1.4000e+01,  1.5000e+01,  1.6000e+01,  1.7000e+01,  1.8000e+01,  1.9000e+01,  2.0000e+01,  2.1000e+01,  2.2000e+01,  2.3000e+01, \n  2.4000e+01,  2.5000e+01,  2.6000e+01,  2.7000e+01,  2.8000e+01,  2.9000e+01])',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]'),
    ('T(np.arange(30, dtype=np.float32) + 0.5, ms.bfloat16)',
     'Tensor(shape=[30], dtype=BFloat16, value= [ 0.5,  1.5,  2.5,  3.5,  4.5,  5.5,  6.5,  7.5,  8.5,  9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, \n 24.5, 25.5, 26.5, 27.5, 28.5, 29.5])',
     '[0.500000 1.500000 2.500000 3.500000 4.500000 5.500000 6.500000 7.500000\n 8.500000 9.500000 10.500000 11.500000 12.500000 13.500000 14.500000\n 15.500000 16.500000 17.500000 18.500000 19.500000 20.500000 21.500000\n 22.500000 23.500000 24.500000 25.500000 26.500000 27.500000 28.500000\n 29.500000]'),
    ('T(np.ones((1001, 2), np.float32))',
     'Tensor(shape=[1001, 2], dtype=Float32, value=\n[[ 1.00000000e+00,  1.00000000e+00],\n [ 1.00000000e+00,  1.00000000e+00],\n [ 1.00000000e+00,  1.00000000e+00],\n ...\n [ 1.00000000e+00,  1.00000000e+00],\n [ 1.00000000e+00,  1.00000000e+00],\n [ 1.00000000e+00,  1.00000000e+00]])',
     '[[1. 1.]\n [1. 1.]\n [1. 1.]\n ...\n [1. 1.]\n [1. 1.]\n [1. 1.]]'),
    ('T(np.arange(6, dtype=np.float16).reshape(2, 3))',
     'Tensor(shape=[2, 3], dtype=Float16, value=\n[[ 0.0000e+00,  1.0000e+00,  2.0000e+00],\n [ 3.0000e+00,  4.0000e+00,  5.0000e+00]])',
     '[[0. 1. 2.]\n [3. 4. 5.]]'),
    ('T(shape=(2, 3), dtype=ms.int32)',
     'Tensor(shape=[2, 3], dtype=Int32, value=\n[[0, 0, 0],\n [0, 0, 0]])',
     '[[0 0 0]\n [0 0 0]]'),
]


@pytest.mark.parametrize("expr, expected_repr, expected_str", PRINT_CASES, ids=[c[0] for c in PRINT_CASES])
def test_tensor_repr_and_str_match_mindspore(expr, expected_repr, expected_str):
    t = eval(expr, {"T": T, "np": np, "ms": ms})
    assert repr(t) == expected_repr
    assert str(t) == expected_str
