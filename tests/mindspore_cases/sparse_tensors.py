"""COOTensor, CSRTensor and the ``coo_*`` / ``csr_*`` functions.

A sparse tensor is not a value a fixture can hold, so each case returns ``to_tuple()`` (or the dense
tensor).  The unary functions (``coo_exp``, ``csr_sqrt`` ...) get one case each, on a matrix whose
stored values suit every one of them (all in (0, 1), away from the poles of ``atanh``).
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

# Unary sparse ops whose dense op belongs to another family (skipped until it exists).
_ELEMENTWISE = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan", "isinf", "softsign")
_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
          "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round",
          "sigmoid", "sin", "sinh", "softsign", "sqrt", "square", "tan", "tanh")
NEEDS = {f"{kind}_{name}": (name,) for kind in ("coo", "csr") for name in _ELEMENTWISE}


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _coo(ms, np, values=(0.25, 0.75, 0.5), index_dtype="int64"):
    indices = _t(ms, np, [[0, 1], [1, 2], [2, 0]], index_dtype)
    return ms.COOTensor(indices, _t(ms, np, list(values)), (3, 4))


def _csr(ms, np, values=(0.25, 0.75, 0.5), index_dtype="int32"):
    return ms.CSRTensor(_t(ms, np, [0, 1, 3, 3], index_dtype), _t(ms, np, [1, 0, 3], index_dtype),
                        _t(ms, np, list(values)), (3, 4))


# ------------------------------------------------------------------ COOTensor
@case
def coo_construct_and_properties(ms, ops, nn, np):
    x = _coo(ms, np, index_dtype="int32")
    return x.to_tuple(), x.shape, str(x.dtype), x.ndim, x.size, x.itemsize, x.indices, x.values


@case
def coo_copy_constructor(ms, ops, nn, np):
    return ms.COOTensor(coo_tensor=_coo(ms, np)).to_tuple()


@case
def coo_to_dense(ms, ops, nn, np):
    return _coo(ms, np, index_dtype="int32").to_dense()


@case
def coo_to_dense_adds_duplicates(ms, ops, nn, np):
    x = ms.COOTensor(_t(ms, np, [[0, 1], [0, 1]], "int32"), _t(ms, np, [1.0, 2.0]), (2, 2))
    return x.to_dense()


@case
def coo_to_dense_gradient(ms, ops, nn, np):
    indices = _t(ms, np, [[0, 1], [1, 2]], "int32")

    def f(values):
        dense = ms.COOTensor(indices, values, (3, 4)).to_dense()
        return (dense * ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))).sum()
    return ms.grad(f)(_t(ms, np, [1.0, 2.0]))


@case
def coo_to_csr(ms, ops, nn, np):
    return _coo(ms, np, index_dtype="int32").to_csr().to_tuple()


@case
def coo_coalesce(ms, ops, nn, np):
    x = ms.COOTensor(_t(ms, np, [[1, 0], [0, 1], [1, 0]], "int64"), _t(ms, np, [1.0, 2.0, 3.0]), (2, 2))
    return x.coalesce().to_tuple()


@case
def coo_coalesce_int32_refused(ms, ops, nn, np):
    x = ms.COOTensor(_t(ms, np, [[1, 0]], "int32"), _t(ms, np, [1.0]), (2, 2))
    return x.coalesce()


@case
def coo_abs_astype_neg(ms, ops, nn, np):
    x = _coo(ms, np, (-0.25, 0.75, -0.5))
    return x.abs().to_tuple(), x.astype(ms.float64).to_tuple(), (-x).to_tuple()


@case
def coo_add_coo(ms, ops, nn, np):
    x = _coo(ms, np)
    y = ms.COOTensor(_t(ms, np, [[0, 1], [2, 3]], "int64"), _t(ms, np, [-0.25, 5.0]), (3, 4))
    return (x + y).to_dense(), (x - y).to_dense()


@case
def coo_add_dense(ms, ops, nn, np):
    return _coo(ms, np) + ms.Tensor(np.ones((3, 4), np.float32))


@case
def coo_mul_div_dense(ms, ops, nn, np):
    x = _coo(ms, np)
    dense = ms.Tensor(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
    return (x * dense).to_tuple(), (x / dense).to_tuple()


@case
def coo_three_dims_refused(ms, ops, nn, np):
    return ms.COOTensor(_t(ms, np, [[0, 1, 1]], "int32"), _t(ms, np, [1.0]), (2, 2, 2))


@case
def coo_float_indices_refused(ms, ops, nn, np):
    return ms.COOTensor(_t(ms, np, [[0.0, 1.0]]), _t(ms, np, [1.0]), (2, 2))


@case
def coo_length_mismatch_refused(ms, ops, nn, np):
    return ms.COOTensor(_t(ms, np, [[0, 1]], "int32"), _t(ms, np, [1.0, 2.0]), (2, 2))


@case
def coo_list_shape_refused(ms, ops, nn, np):
    return ms.COOTensor(_t(ms, np, [[0, 1]], "int32"), _t(ms, np, [1.0]), [2, 2])


@case
def coo_out_of_range_to_dense(ms, ops, nn, np):
    return ms.COOTensor(_t(ms, np, [[0, 5]], "int32"), _t(ms, np, [1.0]), (2, 2)).to_dense()


@case
def coo_add_function(ms, ops, nn, np):
    y = ms.COOTensor(_t(ms, np, [[0, 1], [2, 3]], "int64"), _t(ms, np, [-0.2, 5.0]), (3, 4))
    return ops.coo_add(_coo(ms, np), y, ms.Tensor(0.1)).to_tuple()


@case
def coo_add_int32_refused(ms, ops, nn, np):
    x = _coo(ms, np, index_dtype="int32")
    return ops.coo_add(x, x, ms.Tensor(0.0))


@case
def coo_concat_rows(ms, ops, nn, np):
    return ops.coo_concat((_coo(ms, np), _coo(ms, np, (1.0, 2.0, 3.0))), 0).to_tuple()


@case
def coo_concat_columns(ms, ops, nn, np):
    return ops.coo_concat((_coo(ms, np), _coo(ms, np, (1.0, 2.0, 3.0))), 1).to_tuple()


@case
def coo_function_refuses_a_tensor(ms, ops, nn, np):
    return ops.coo_abs(ms.Tensor(np.ones(2, np.float32)))


# ------------------------------------------------------------------ CSRTensor
@case
def csr_construct_and_properties(ms, ops, nn, np):
    x = _csr(ms, np)
    return x.to_tuple(), x.shape, str(x.dtype), x.ndim, x.size, x.itemsize, x.indptr, x.indices, x.values


@case
def csr_copy_constructor(ms, ops, nn, np):
    return ms.CSRTensor(csr_tensor=_csr(ms, np)).to_tuple()


@case
def csr_to_dense_and_to_coo(ms, ops, nn, np):
    x = _csr(ms, np)
    return x.to_dense(), x.to_coo().to_tuple()


@case
def csr_mv_and_mm(ms, ops, nn, np):
    x = _csr(ms, np)
    dense = ms.Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    return x.mv(ms.Tensor(np.ones((4, 1), np.float32))), x.mm(dense), ops.csr_mv(x, dense[:, :1])


@case
def csr_mv_one_d_refused(ms, ops, nn, np):
    return _csr(ms, np).mv(ms.Tensor(np.ones((4,), np.float32)))


@case
def csr_mv_gradient(ms, ops, nn, np):
    def f(values, dense):
        x = ms.CSRTensor(_t(ms, np, [0, 1, 3, 3], "int32"), _t(ms, np, [1, 0, 3], "int32"), values, (3, 4))
        return (ops.csr_mv(x, dense) * ms.Tensor(np.array([[1.0], [2.0], [3.0]], np.float32))).sum()
    return ms.grad(f, grad_position=(0, 1))(_t(ms, np, [0.25, 0.75, 0.5]),
                                            ms.Tensor(np.arange(4, dtype=np.float32).reshape(4, 1)))


@case
def csr_sum(ms, ops, nn, np):
    x = _csr(ms, np)
    return x.sum(1), ops.csr_reduce_sum(x, 1)


@case
def csr_sum_axis0_refused(ms, ops, nn, np):
    return ops.csr_reduce_sum(_csr(ms, np), 0)


@case
def csr_abs_astype_neg(ms, ops, nn, np):
    x = _csr(ms, np, (-0.25, 0.75, -0.5))
    return x.abs().to_tuple(), x.astype(ms.float64).to_tuple(), (-x).to_tuple()


@case
def csr_add_method_and_operators(ms, ops, nn, np):
    x = _csr(ms, np)
    return x.add(x, ms.Tensor(1.0), ms.Tensor(2.0)).to_tuple(), (x + x).to_tuple(), (x - x).to_tuple()


@case
def csr_add_function(ms, ops, nn, np):
    x = _csr(ms, np)
    y = ms.CSRTensor(_t(ms, np, [0, 1, 1, 2], "int32"), _t(ms, np, [1, 2], "int32"), _t(ms, np, [1.0, 2.0]), (3, 4))
    return ops.csr_add(x, y, ms.Tensor(1.0), ms.Tensor(-1.0)).to_dense()


@case
def csr_mul_div(ms, ops, nn, np):
    x = _csr(ms, np)
    dense = ms.Tensor(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
    row = ms.Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    return (ops.csr_mul(x, dense).to_tuple(), ops.csr_div(x, dense).to_tuple(), (x * row).to_tuple(),
            (x / dense).to_tuple())


@case
def csr_softmax(ms, ops, nn, np):
    x = ms.CSRTensor(_t(ms, np, [0, 2, 3, 3], "int32"), _t(ms, np, [0, 2, 1], "int32"),
                     _t(ms, np, [1.0, 2.0, 0.5]), (3, 4))
    return ops.csr_softmax(x, ms.float32).to_tuple()


@case
def csr_to_coo(ms, ops, nn, np):
    return ops.csr_to_coo(_csr(ms, np)).to_tuple()


@case
def csr_gather(ms, ops, nn, np):
    dense = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    return ops.csr_gather(_t(ms, np, [0, 1, 3, 3], "int32"), _t(ms, np, [1, 0, 3], "int32"), dense, (3, 4))


@case
def csr_int64_indptr(ms, ops, nn, np):
    return ms.CSRTensor(_t(ms, np, [0, 1, 2, 2], "int64"), _t(ms, np, [1, 2], "int64"), _t(ms, np, [1.0, 2.0]),
                        (3, 4)).to_dense()


@case
def csr_bad_indptr_length_refused(ms, ops, nn, np):
    return ms.CSRTensor(_t(ms, np, [0, 1, 2], "int32"), _t(ms, np, [1, 2], "int32"), _t(ms, np, [1.0, 2.0]), (3, 4))


@case
def csr_function_refuses_a_tensor(ms, ops, nn, np):
    return ops.csr_abs(ms.Tensor(np.ones(2, np.float32)))


# ------------------------------------------------------------------ index conversions and Primitives
@case
def coo2csr(ms, ops, nn, np):
    return ops.coo2csr(_t(ms, np, [0, 1, 1, 2], "int32"), 4)


@case
def csr2coo(ms, ops, nn, np):
    return ops.csr2coo(_t(ms, np, [0, 1, 3, 4, 4], "int32"), 4)


@case
def coalesce_primitive(ms, ops, nn, np):
    return ops.Coalesce()(_t(ms, np, [[1, 0, 1], [0, 1, 0]], "int64"), _t(ms, np, [1.0, 2.0, 3.0]),
                          _t(ms, np, [2, 2], "int64"))


@case
def sparse_to_dense_primitive(ms, ops, nn, np):
    return ops.SparseToDense()(_t(ms, np, [[0, 1], [1, 2]], "int32"), _t(ms, np, [1.0, 2.0]), (3, 4))


def _unary_case(kind, name):
    def run(ms, ops, nn, np):  # noqa: D401
        x = _coo(ms, np) if kind == "coo" else _csr(ms, np)
        return getattr(ops, f"{kind}_{name}")(x).to_tuple()

    run.__name__ = run.__qualname__ = f"{kind}_{name}"
    return run


for _kind in ("coo", "csr"):
    for _name in _UNARY:
        case(_unary_case(_kind, _name), rtol=1e-5, atol=1e-6)
