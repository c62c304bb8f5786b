"""Gathering and scattering by index: gather_*, index_*, masked_*, scatter_* and the inplace_* family.

Index samples keep duplicates out where MindSpore leaves their result undefined (an overwriting
scatter); the reducing ones (``scatter_add``, ``index_add``) get duplicates on purpose.  The ops
that MindSpore runs in place on their first argument are checked for that in ``CALLS``
(``mutates_*``: the result, then the input afterwards), on a Tensor and on a Parameter.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample
from ._calls import CallInfo, grad_twin, split_wrong_gradients

F = Arr((3, 4))
I32 = "int32"
I64 = "int64"
_NO_TAKE = "MindSpore 2.10's CPU build has no Take kernel (RuntimeError: The kernel Take unregistered)"


def _dup(values, dtype=I32):
    """An index Arr whose values are fixed (low == high) is not possible; literal NumPy arrays are."""
    return np.asarray(values, dtype=dtype)


def _gather_elements_ref(x, dim, index):
    coords = list(np.indices(index.shape))
    coords[dim] = index % x.shape[dim]
    return x[tuple(coords)]


def _gather_nd_ref(x, indices):
    return x[tuple(indices[..., k] for k in range(indices.shape[-1]))]


def _index_add_ref(x, indices, y, axis, *rest):
    out = x.copy()
    np.add.at(out, (slice(None),) * (axis % x.ndim) + (indices,), y)
    return out


def _scatter_elements(x, index, src, axis, add):
    out = x.copy()
    coords = list(np.indices(index.shape))
    coords[axis] = index % x.shape[axis]
    src = np.broadcast_to(src, index.shape)
    if add:
        np.add.at(out, tuple(coords), src)
    else:
        out[tuple(coords)] = src
    return out


def _nd_ref(x, indices, updates, how):
    out = x.copy()
    key = tuple(indices[..., k] for k in range(indices.shape[-1]))
    if how == "add":
        np.add.at(out, key, updates)
    else:
        out[key] = updates
    return out


def _nd_reduce_ref(x, indices, updates, how):
    out = x.copy()
    key = tuple(indices[..., k] for k in range(indices.shape[-1]))
    {"sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum, "min": np.minimum}[how].at(
        out, key, updates)
    return out


def _masked_fill_ref(x, mask, value):
    return np.where(mask, np.asarray(value).astype(x.dtype), x)


def _masked_select_ref(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _rows_ref(x, v, indices, how):
    out = x.copy()
    idx = np.atleast_1d(np.asarray(indices))
    if how == "add":
        np.add.at(out, idx, v)
    elif how == "sub":
        np.subtract.at(out, idx, v)
    else:
        out[idx] = v
    return out


OPS = [
    OpInfo("gather", (
        Sample((F, Arr((2,), I64, 0, 2), 0), grad=(0,), label="rows"),
        Sample((F, Arr((2, 2), I32, 0, 3), 1), grad=(0,), label="index_2d_axis1"),
        Sample((F, np.asarray(1, np.int64), -1), grad=(0,), label="index_0d"),
        Sample((Arr((3, 4), I32, -5, 5), _dup([2, 2], I64), 0), label="int_repeat"),
    ), ref=lambda x, i, axis: np.take(x, i, axis=axis), method="gather",
        primitive=lambda ops, x, i, axis: ops.Gather()(x, i, axis),
        bad=(Bad("out_of_range", (F, _dup([5], I64), 0)), Bad("float_index", (F, Arr((2,)), 0)))),
    OpInfo("take", (
        Sample((F, _dup([0, 5, 11], I64)), label="flat"),
        Sample((F, _dup([[1, -1], [3, 2]], I64)), label="negative_2d"),
        Sample((Arr((2, 3), I32, -5, 5), _dup([4], I32)), label="int32"),
    ), ref=lambda x, i: np.take(x, i), mindspore_wrong={label: _NO_TAKE for label in ("flat", "negative_2d", "int32")}),
    OpInfo("gather_elements", (
        Sample((F, 1, Arr((3, 2), I64, 0, 3)), grad=(0,), label="dim1"),
        Sample((F, 0, Arr((2, 4), I32, 0, 2)), grad=(0,), label="dim0_shorter"),
        Sample((F, -1, Arr((2, 2), I64, -4, 3)), grad=(0,), label="negative"),
        Sample((Arr((3, 4), I32, -5, 5), 1, Arr((3, 3), I64, 0, 3)), label="int"),
        Sample((Arr((2, 3), "float64"), 1, Arr((2, 5), I64, 0, 2)), grad=(0,), label="float64_repeats"),
    ), ref=_gather_elements_ref, method="gather_elements",
        bad=(Bad("float_index", (F, 1, Arr((3, 2)))), Bad("rank", (F, 1, Arr((2,), I64, 0, 1))),
             Bad("out_of_range", (F, 1, np.array([[0, 9]], np.int64))),
             Bad("longer", (F, 0, Arr((2, 5), I64, 0, 1))))),
    OpInfo("gather_d", (
        Sample((F, 1, Arr((3, 2), I64, 0, 3)), grad=(0,), label="dim1"),
        Sample((F, 0, Arr((2, 4), I32, 0, 2)), grad=(0,), label="dim0"),
    ), ref=_gather_elements_ref, bad=(Bad("float_index", (F, 1, Arr((3, 2)))),)),
    OpInfo("gather_nd", (
        Sample((F, Arr((2, 2), I64, 0, 2)), grad=(0,), label="elements"),
        Sample((F, Arr((3, 1), I32, 0, 2)), grad=(0,), label="rows"),
        Sample((Arr((2, 3, 2)), Arr((2, 2, 2), I64, 0, 1)), grad=(0,), label="batched"),
        Sample((Arr((3, 4), I32, 0, 9), Arr((2,), I64, 0, 2)), label="int_point"),
    ), ref=_gather_nd_ref, method="gather_nd",
        bad=(Bad("too_deep", (F, Arr((2, 3), I64, 0, 1))), Bad("out_of_range", (F, np.array([[5, 0]], np.int64))),
             Bad("negative", (F, np.array([[-1, 0]], np.int64))))),
    OpInfo("index_add", (
        Sample((F, _dup([0, 2]), Arr((3, 2)), 1), grad=(0, 2), label="axis1"),
        Sample((F, _dup([1, 1, 0]), Arr((3, 4)), 0), grad=(0, 2), label="duplicates"),
        Sample((Arr((3, 4), I32, -3, 3), _dup([3]), Arr((3, 1), I32, -3, 3), -1), label="int"),
    ), ref=_index_add_ref,
        bad=(Bad("int64_indices", (F, _dup([0, 2], I64), Arr((3, 2)), 1)),
             Bad("dtype", (F, _dup([0, 2]), Arr((3, 2), "float64"), 1)),
             Bad("length", (F, _dup([0, 1, 2]), Arr((3, 2)), 1)))),
    OpInfo("inplace_index_add", (
        Sample((F, _dup([0, 2]), Arr((3, 2)), 1), grad=(0, 2), label="axis1"),
        Sample((F, _dup([2, 2]), Arr((2, 4)), 0), grad=(0, 2), label="duplicates"),
    ), ref=_index_add_ref, bad=(Bad("int64_indices", (F, _dup([0, 2], I64), Arr((3, 2)), 1)),)),
    OpInfo("index_fill", (
        Sample((F, 1, _dup([0, 2]), 0.5), grad=(0,), label="number"),
        Sample((F, 0, _dup([-1]), Arr((), low=0.5)), grad=(0, 3), label="tensor_value"),
        Sample((F, 1, np.asarray(3, np.int32), -2.0), grad=(0,), label="index_0d"),
        Sample((Arr((2, 3), I64, -4, 4), 1, _dup([1]), 2.7), label="int_truncates"),
    ), ref=lambda x, axis, index, value: _index_fill_ref(x, axis, index, value), method="index_fill",
        primitive=lambda ops, x, axis, index, value: ops.IndexFill()(x, axis, index, value)
        if not isinstance(value, float) else ops.index_fill(x, axis, index, value),
        bad=(Bad("int64_index", (F, 1, _dup([0], I64), 0.5)), Bad("vector_value", (F, 1, _dup([0]), Arr((2,)))),
             Bad("out_of_range", (F, 1, _dup([7]), 0.5)))),
    OpInfo("index_select", (
        Sample((F, 1, Arr((3,), I64, 0, 3)), grad=(0,), label="axis1"),
        Sample((F, 0, _dup([2, 0], I32)), grad=(0,), label="int32"),
        Sample((F, -1, _dup([-1, 0], I64)), grad=(0,), label="negative"),
        Sample((Arr((3, 4), I32, 0, 9), 0, _dup([1, 1], I64)), label="int"),
    ), ref=lambda x, axis, index: np.take(x, index, axis=axis), method="index_select",
        bad=(Bad("index_0d", (F, 0, np.asarray(1, np.int64))), Bad("float_index", (F, 0, Arr((2,)))),
             Bad("out_of_range", (F, 1, _dup([7], I64))))),
    OpInfo("masked_fill", (
        Sample((F, Arr((3, 4), "bool"), 0.5), grad=(0,), label="number"),
        Sample((F, Arr((4,), "bool"), Arr((), low=0.5)), grad=(0, 2), label="broadcast_tensor_value"),
        Sample((Arr((1, 4)), Arr((3, 1), "bool"), -1.5), grad=(0,), label="broadcast_both"),
        Sample((Arr((3, 4), I32, -3, 3), Arr((3, 4), "bool"), np.asarray(7, np.int32)), label="int"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3), "bool"), 2.0), label="float16"),
        Sample((F, Arr((3, 4), "bool"), 0), label="int_value"),
    ), ref=_masked_fill_ref, method="masked_fill",
        mindspore_wrong={"int_value": "MindSpore 2.10 (CPU) raises TypeError 'Select CPU operator[MaskedFill] fail! "
                                      "Unsupported data type!' for a Python int value with a float tensor; its docs "
                                      "take value as Union[Number, Tensor]: the int is cast to the tensor's dtype"},
        bad=(Bad("int_mask", (F, Arr((3, 4), I64, 0, 1), 0.5)), Bad("shapes", (F, Arr((2,), "bool"), 0.5)))),
    OpInfo("masked_select", (
        Sample((F, Arr((3, 4), "bool")), grad=(0,), label="same_shape"),
        Sample((F, Arr((4,), "bool")), grad=(0,), label="broadcast_mask"),
        Sample((Arr((4,)), Arr((2, 4), "bool")), grad=(0,), label="broadcast_input"),
        Sample((Arr((3, 4), I64, -3, 3), Arr((3, 4), "bool")), label="int"),
    ), ref=_masked_select_ref, method="masked_select",
        bad=(Bad("int_mask", (F, Arr((3, 4), I64, 0, 1))), Bad("shapes", (F, Arr((2,), "bool"))))),
    OpInfo("scatter", (
        Sample((F, 1, Arr((3, 1), I64, 0, 3), Arr((3, 1))), grad=(0, 3), label="axis1"),
        Sample((F, 0, Arr((1, 4), I32, 0, 2), Arr((1, 4))), grad=(0, 3), label="axis0"),
        Sample((F, 1, Arr((2, 1), I64, -4, 3), 2.5), grad=(0,), label="scalar_src"),
    ), ref=lambda x, axis, index, src: _scatter_elements(x, index, src, axis, False), method="scatter",
        bad=(Bad("src_shape", (F, 1, Arr((1, 1), I64, 0, 3), Arr((1, 2)))),
             Bad("dtype", (F, 1, Arr((3, 1), I64, 0, 3), Arr((3, 1), I32, 0, 3))))),
    OpInfo("tensor_scatter_elements", (
        Sample((F, Arr((3, 1), I64, 0, 3), Arr((3, 1)), 1), grad=(0, 2), label="axis1"),
        Sample((F, Arr((2, 4), I32, 0, 2), Arr((2, 4)), 0, "add"), grad=(0, 2), label="add_duplicates"),
        Sample((F, Arr((3, 1), I64, -4, -1), Arr((3, 1)), -1), grad=(0, 2), label="negative"),
    ), ref=lambda x, index, src, axis=0, reduction="none": _scatter_elements(x, index, src, axis,
                                                                               reduction == "add"),
        primitive=lambda ops, x, i, u, axis=0, reduction="none": ops.TensorScatterElements(axis, reduction)(x, i, u),
        bad=(Bad("reduction", (F, Arr((3, 1), I64, 0, 3), Arr((3, 1)), 1, "max")),)),
    OpInfo("tensor_scatter_add", (
        Sample((F, Arr((2, 2), I64, 0, 2), Arr((2,))), grad=(0, 2), label="elements"),
        Sample((F, _dup([[1], [1]], I32), Arr((2, 4))), grad=(0, 2), label="rows_duplicate"),
    ), ref=lambda x, i, u: _nd_ref(x, i, u, "add"),
        bad=(Bad("indices_1d", (F, _dup([0, 1], I64), Arr((2, 4)))),
             Bad("out_of_range", (F, _dup([[5]], I64), Arr((1, 4)))))),
    OpInfo("tensor_scatter_update", (
        Sample((F, _dup([[0, 1], [2, 3]], I64), Arr((2,))), grad=(0, 2), label="elements"),
        Sample((F, _dup([[2], [0]], I32), Arr((2, 4))), grad=(0, 2), label="rows"),
    ), ref=lambda x, i, u: _nd_ref(x, i, u, "update"),
        primitive=lambda ops, x, i, u: ops.TensorScatterUpdate()(x, i, u),
        bad=(Bad("negative", (F, _dup([[-1, 1]], I64), Arr((1,)))),)),
    *[OpInfo(f"tensor_scatter_{how}", (
        Sample((F, _dup([[0, 1], [2, 3]], I64), Arr((2,), low=0.5)), grad=(0, 2), label="elements"),
        Sample((F, _dup([[1], [1]], I32), Arr((2, 4), low=0.5, distinct=True)), grad=(0, 2), label="rows_duplicate"),
    ), ref=lambda x, i, u, how=how: _nd_reduce_ref(x, i, u, how), method=f"scatter_{how}",
        bad=(Bad("indices_1d", (F, _dup([0, 1], I64), Arr((2, 4)))),)) for how in ("sub", "mul", "div", "max", "min")],
    OpInfo("scatter_nd", (
        Sample((Arr((3, 1), I64, 0, 3), Arr((3,)), (4,)), grad=(1,), label="duplicates_add"),
        Sample((_dup([[0, 1]], I64), Arr((1, 3)), (2, 2, 3)), grad=(1,), label="slices"),
        Sample((_dup([[0, 1]], I32), Arr((1,), I32, 1, 5), (2, 2)), label="int"),
    ), ref=lambda i, u, shape: _nd_ref(np.zeros(shape, u.dtype), i, u, "add"),
        bad=(Bad("tensor_shape", (_dup([[0, 1]], I32), Arr((1,)), np.asarray([2, 2]))),
             Bad("out_of_range", (_dup([[5]], I64), Arr((1,)), (4,))))),
    OpInfo("scatter_nd_add", (
        Sample((F, _dup([[0, 1], [0, 1]], I64), Arr((2,))), label="duplicates"),
        Sample((F, _dup([[2]], I32), Arr((1, 4))), label="rows"),
    ), ref=lambda x, i, u: _nd_ref(x, i, u, "add")),
    OpInfo("scatter_nd_update", (
        Sample((F, _dup([[0, 1], [2, 2]], I64), Arr((2,))), grad=(0, 2), label="elements"),
        Sample((F, _dup([[2]], I32), Arr((1, 4))), grad=(0, 2), label="rows"),
    ), ref=lambda x, i, u: _nd_ref(x, i, u, "update")),
    OpInfo("scatter_add", (
        Sample((F, _dup([0, 0]), Arr((2, 4))), label="duplicates"),
        Sample((F, _dup([[0, 1], [1, 1]]), Arr((2, 2, 4))), label="index_2d"),
        Sample((F, np.asarray(1, np.int32), Arr((4,))), label="index_0d"),
        Sample((Arr((3, 4), I64, -3, 3), _dup([2], I64), Arr((1, 4), I64, -3, 3)), label="int"),
    ), ref=lambda x, i, u: _nd_ref(x, i[..., None], u, "add"),
        bad=(Bad("out_of_range", (F, _dup([5]), Arr((1, 4)))), Bad("dtype", (F, _dup([1]), Arr((1, 4), "float64"))))),
    OpInfo("scatter_update", (
        Sample((F, _dup([2, 0]), Arr((2, 4))), grad=(0, 2), label="rows"),
        Sample((F, _dup([1, 1]), Arr((2, 4))), label="duplicates_last_wins"),
        Sample((Arr((3, 4), I64, -3, 3), _dup([2], I64), Arr((1, 4), I64, -3, 3)), label="int"),
    ), ref=lambda x, i, u: _nd_ref(x, i[..., None], u, "update"),
        bad=(Bad("negative", (F, _dup([-1]), Arr((1, 4)))),)),
    OpInfo("inplace_add", (
        Sample((F, Arr((2, 4)), (0, 2)), grad=(0, 1), label="tuple"),
        Sample((F, Arr((1, 4)), 1), grad=(0, 1), label="int"),
        Sample((F, Arr((2, 4)), (1, 1)), grad=(0, 1), label="duplicates"),
    ), ref=lambda x, v, i: _rows_ref(x, v, i, "add"),
        primitive=lambda ops, x, v, i: ops.InplaceAdd(i)(x, v),
        bad=(Bad("tensor_indices", (F, Arr((2, 4)), _dup([0, 2]))), Bad("negative", (F, Arr((1, 4)), -1)))),
    OpInfo("inplace_sub", (
        Sample((F, Arr((2, 4)), (0, 2)), grad=(0, 1), label="tuple"),
        Sample((F, Arr((1, 4)), 2), grad=(0, 1), label="int"),
    ), ref=lambda x, v, i: _rows_ref(x, v, i, "sub"),
        primitive=lambda ops, x, v, i: ops.InplaceSub(i)(x, v)),
    OpInfo("inplace_update", (
        Sample((F, Arr((2, 4)), (0, 2)), grad=(0, 1), label="tuple"),
        Sample((F, Arr((1, 4)), -1), grad=(0, 1), label="negative"),
        Sample((F, Arr((2, 4)), _dup([2, 0])), grad=(0, 1), label="tensor_indices"),
        Sample((F, Arr((2, 4)), (1, 1)), label="duplicates_last_wins"),
    ), ref=lambda x, v, i: _rows_ref(x, v, i, "update"),
        bad=(Bad("out_of_range", (F, Arr((1, 4)), 5)),)),
]


_DUPLICATE_PRODUCT = ("with a duplicated index MindSpore's gradient for each update ignores the other updates of "
                      "that position (d(x*u1*u2)/du1 = x*u2, MindSpore gives x)")
# Ops whose gradient MindSpore 2.10 gets wrong: {name: (sample labels or None for all, how)}.  Their
# samples in OPS keep the output only; grad_<name> in CALLS differentiates the same samples.
_GRAD_WRONG = {
    "scatter_update": (None, "MindSpore passes the whole gradient to 'input_x', also at the rows the updates "
                             "overwrite (where the derivative is 0)"),
    "scatter_nd_update": (None, "MindSpore passes the whole gradient to 'input_x', also at the positions the updates "
                                "overwrite (where the derivative is 0)"),
    "inplace_add": (None, "MindSpore's gradient for 'x' is all zeros (it is the identity)"),
    "inplace_sub": (None, "MindSpore's gradient for 'x' is all zeros (it is the identity)"),
    "inplace_update": (None, "MindSpore's gradient for 'x' is all zeros (it is 1 off the updated rows)"),
    "index_fill": (("tensor_value",), "MindSpore's gradient for a Tensor 'value' is 0 (it is the sum of the "
                                      "gradient over the filled positions)"),
    "tensor_scatter_mul": (("rows_duplicate",), _DUPLICATE_PRODUCT),
    "tensor_scatter_div": (("rows_duplicate",), _DUPLICATE_PRODUCT),
    "index_select": (("negative",), "MindSpore's forward counts a negative index from the end, but its gradient "
                                    "drops the slices picked by negative indices"),
}


def _index_fill_ref(x, axis, index, value):
    out = x.copy()
    key = [slice(None)] * x.ndim
    key[axis] = np.atleast_1d(index) % x.shape[axis]
    out[tuple(key)] = np.asarray(value).astype(x.dtype)
    return out


_ASCEND_ONLY = "MindSpore 2.10 (CPU) raises NotImplementedError 'index only supports Ascend'"


def _parameter(ms, x):
    return ms.Parameter(x, name="p")


def _mutates(op, on_parameter=False):
    """``call`` returning (result, the first argument afterwards)."""
    def call(ms, ops, x, *args, **kwargs):
        target = _parameter(ms, x) if on_parameter else x
        return op(ms, ops, target, *args, **kwargs), target
    return call


def _op(name):
    return lambda ms, ops, *a, **k: getattr(ops, name)(*a, **k)


def _prim(build):
    return lambda ms, ops, *a, **k: build(ops)(*a, **k)


def _m(name):
    return lambda ms, ops, x, *a, **k: getattr(x, name)(*a, **k)


_IDX_ADD = (F, _dup([0, 0]), Arr((3, 2)), 1)
_ROWS = (F, _dup([2, 2]), Arr((2, 4)))
_ND = (F, _dup([[0], [0]]), Arr((2, 4)))


def _mutation_entries():
    out = []
    for name, args, prim in (
            ("index_add", _IDX_ADD, lambda ops: ops.IndexAdd(1)),
            ("inplace_index_add", _IDX_ADD, lambda ops: ops.InplaceIndexAdd(1)),
            ("scatter_add", _ROWS, lambda ops: ops.ScatterAdd()),
            ("scatter_update", (F, _dup([2, 0]), Arr((2, 4))), lambda ops: ops.ScatterUpdate()),
            ("scatter_nd_add", _ND, lambda ops: ops.ScatterNdAdd()),
            ("scatter_nd_update", (F, _dup([[0], [2]]), Arr((2, 4))), lambda ops: ops.ScatterNdUpdate())):
        # MindSpore defines no gradient for ScatterAdd / ScatterNdAdd ("bprop not defined") and a wrong one
        # for the updates (see _GRAD_WRONG): cellkit's is checked against finite differences (grad_*).
        grad = () if name in ("scatter_add", "scatter_nd_add", "scatter_update", "scatter_nd_update") else (0, 2)
        samples = (Sample(args, grad=grad, label="tensor"), Sample(args, label="parameter"))
        out.append(CallInfo(f"mutates_{name}", samples[:1], call=_mutates(_op(name))))
        out.append(CallInfo(f"mutates_{name}_parameter", samples[1:], call=_mutates(_op(name), True)))
        call = (lambda p: lambda ms, ops, x, i, u, *rest: p(ops)(x, i, u))(prim)
        out.append(CallInfo(f"mutates_{name}_primitive", (Sample(args, label="parameter"),),
                            call=_mutates(call, True)))
    # The ops whose names say "inplace" but which MindSpore runs out of place: the input stays as it was.
    for name, args in (("inplace_add", (F, Arr((2, 4)), (0, 2))), ("inplace_sub", (F, Arr((2, 4)), (0, 2))),
                       ("inplace_update", (F, Arr((2, 4)), (0, 2))),
                       ("tensor_scatter_add", _ND), ("masked_fill", (F, Arr((3, 4), "bool"), 0.5))):
        out.append(CallInfo(f"keeps_{name}", (Sample(args, label="parameter"),), call=_mutates(_op(name), True)))
    out.append(CallInfo("keeps_InplaceUpdateV2", (Sample((F, _dup([2, 0]), Arr((2, 4))), label="parameter"),),
                        call=_mutates(_prim(lambda ops: ops.InplaceUpdateV2()), True)))
    return out


OPS, _TWINS = split_wrong_gradients(OPS, _GRAD_WRONG)

CALLS = [
    # First of all the CALLS cases, so that it runs first in its recording process: after any plain
    # Tensor.scatter in the same process, MindSpore 2.10 reuses a cached Scatter kernel and ignores
    # reduce='add' (the updates overwrite).
    CallInfo("Tensor.scatter_reduce_add", (
        Sample((Arr((2, 5)), Arr((2, 5), I64, 0, 1), Arr((2, 5))), grad=(0, 2), label="add"),
    ), call=lambda ms, ops, x, index, src: x.scatter(0, index, src, reduce="add")),
] + _TWINS + [
    CallInfo("grad_take", (Sample((F, _dup([0, 5, 11], I64)), grad=(0,), label="flat"),
                           Sample((F, _dup([[1, -1], [3, 2]], I64)), grad=(0,), label="negative_2d")),
             call=lambda ms, ops, *a: ops.take(*a), ref=lambda x, i: np.take(x, i), mindspore_grad_wrong=_NO_TAKE,
             mindspore_wrong={"flat": _NO_TAKE, "negative_2d": _NO_TAKE}),
    grad_twin("scatter_add", (Sample((F, _dup([0, 0]), Arr((2, 4))), grad=(0, 2), label="duplicates"),
                              Sample((F, _dup([[0, 1], [1, 1]]), Arr((2, 2, 4))), grad=(0, 2), label="index_2d")),
              "MindSpore 2.10 defines no gradient for ScatterAdd (RuntimeError: bprop not defined)"),
    grad_twin("scatter_nd_add", (Sample((F, _dup([[0, 1], [0, 1]], I64), Arr((2,))), grad=(0, 2), label="duplicates"),),
              "MindSpore 2.10 defines no gradient for ScatterNdAdd (RuntimeError: bprop not defined)"),
] + _mutation_entries() + [
    CallInfo("IndexPut", (
        Sample((F, Arr((1,)), (_dup([0, 2]),)), grad=(0, 1), label="rows"),
        Sample((F, Arr((2,)), (_dup([0, 2]), _dup([1, 3]))), grad=(0, 1), label="elements"),
    ), call=lambda ms, ops, x, v, idx: ops.IndexPut()(x, v, tuple(idx))),
    CallInfo("IndexPut_accumulate", (
        Sample((F, Arr((2,)), (_dup([0, 0]), _dup([1, 1]))), grad=(0, 1), label="duplicates"),
    ), call=lambda ms, ops, x, v, idx: ops.IndexPut(1)(x, v, tuple(idx))),
    CallInfo("Tensor.index_put", (
        Sample((F, (_dup([0, 1], I64),), Arr((4,))), grad=(0, 2), label="rows"),
        Sample((F, (_dup([0, 2], I64), _dup([1, 3], I64)), Arr((2,))), grad=(0, 2), label="elements"),
        Sample((F, (_dup([0, 0], I64), _dup([1, 1], I64)), Arr((2,)), True), grad=(0, 2), label="accumulate"),
        Sample((F, (_dup([1], I32),), Arr((1,))), grad=(0, 2), label="broadcast_value"),
    ), call=lambda ms, ops, x, idx, v, *rest: x.index_put(tuple(idx), v, *rest),
        bad=(Bad("dtype", (F, (_dup([0], I64),), Arr((4,), "float64"))),)),
    CallInfo("Tensor.index", (
        Sample((F, (_dup([0, 2], I64),)), grad=(0,), label="rows"),
        Sample((F, (_dup([0, 2], I64), _dup([1, 3], I64))), grad=(0,), label="elements"),
    ), call=lambda ms, ops, x, idx: x.index(tuple(idx)), ref=lambda x, idx: x[tuple(idx)],
        mindspore_grad_wrong=_ASCEND_ONLY, mindspore_wrong={"rows": _ASCEND_ONLY, "elements": _ASCEND_ONLY}),
    CallInfo("Tensor.masked_scatter", (
        Sample((F, Arr((3, 4), "bool"), Arr((12,))), grad=(0, 2), label="same_shape"),
        Sample((F, Arr((4,), "bool"), Arr((3, 5))), grad=(0, 2), label="broadcast_mask"),
    ), call=_m("masked_scatter"), bad=(Bad("int_mask", (F, Arr((3, 4), I64, 0, 1), Arr((12,)))),)),
    CallInfo("Tensor.index_add", (
        Sample((F, 1, _dup([0, 0]), Arr((3, 2))), grad=(0, 3), label="dim_index_source"),
    ), call=lambda ms, ops, x, *a: (x.index_add(*a), x)),
    CallInfo("Tensor.index_add_indices_first", (
        Sample((F, _dup([0, 2]), Arr((3, 2)), 1), grad=(0, 2), label="indices_y_axis"),
    ), call=lambda ms, ops, x, *a: (x.index_add(*a), x)),
    CallInfo("Tensor.index_select_dim", (
        Sample((F, _dup([2, 0], I64)), grad=(0,), label="keyword"),
    ), call=lambda ms, ops, x, index: x.index_select(dim=1, index=index)),
    CallInfo("Tensor.scatter_keywords", (
        Sample((F, Arr((3, 1), I64, 0, 3), Arr((3, 1))), grad=(0, 2), label="dim_index_src"),
    ), call=lambda ms, ops, x, index, src: x.scatter(dim=1, index=index, src=src)),
    CallInfo("Tensor.scatter_add", (
        Sample((F, _dup([[0, 1], [0, 1]], I64), Arr((2,))), grad=(0, 2), label="indices_updates"),
    ), call=_m("scatter_add")),
    CallInfo("Tensor.scatter_add_dim", (
        Sample((F, 1, Arr((3, 2), I64, 0, 3), Arr((3, 2))), label="dim_index_src"),
    ), call=_m("scatter_add"), ref=lambda x, dim, index, src: _scatter_elements(x, index, src, dim, True),
        mindspore_wrong={"dim_index_src": "MindSpore 2.10 (CPU) raises RuntimeError 'The kernel ScatterAddExt "
                                          "unregistered' for Tensor.scatter_add(dim, index, src)"}),
    CallInfo("Tensor.take", (
        Sample((F, _dup([0, 5, 11], I64)), grad=(0,), label="index"),
        Sample((F, _dup([-1, 3], I64)), grad=(0,), label="negative"),
        Sample((F, _dup([0, 30], I64), 1), grad=(0,), label="axis_clip"),
        Sample((F, _dup([0, -1, 5], I64), 1, "wrap"), grad=(0,), label="wrap"),
    ), call=_m("take")),
    CallInfo("Tensor.choose", (
        Sample((Arr((3,), I64, 0, 2), (Arr((3,)), Arr((3,)), Arr((3,)))), label="list"),
        Sample((Arr((2, 3), I64, -1, 3), (Arr((3,)), Arr(()))), label="broadcast_clip"),
        Sample((Arr((3,), I64, -2, 4), (Arr((3,)), Arr((3,)), Arr((3,))), "wrap"), label="wrap"),
    ), call=lambda ms, ops, a, choices, *rest: a.choose(list(choices), *rest),
        ref=lambda a, choices, mode="clip": np.choose(a, choices, mode=mode),
        mindspore_wrong={label: "MindSpore 2.10 (CPU) truncates the chosen values to integers (0.25 comes out as "
                                "0.0) although the result is Float32" for label in ("list", "broadcast_clip", "wrap")}),
]
