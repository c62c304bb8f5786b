"""Reductions: sums, means, extremes, products, logical all/any, counts, log-sum-exp, spreads.

Each op gets its axis spellings (an int, a tuple, ``None``/``()`` for every axis, ``keep_dims``),
its dtypes (ints and bools where MindSpore takes them: the recorded output dtypes are MindSpore's
answer), 0-d inputs, and differentiated samples with distinct values (no ties for the extremes).
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))                                  # float32 2x3
D = Arr((2, 3), distinct=True)                   # no ties
D34 = Arr((3, 4), distinct=True)
POS = Arr((2, 3), low=0.5, high=2.0)
I32 = Arr((2, 3), "int32", -3, 3)
I64 = Arr((2, 3), "int64", -3, 3)
B = Arr((2, 3), "bool")
H = Arr((2, 3), "float16")
F64 = Arr((2, 3), "float64")
Z = Arr((), low=0.5)                             # a 0-d float


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else (None if axis == () else axis)


def _np_reduce(fn):
    def ref(x, axis=None, keep=False, *rest, keepdim=None, keepdims=None, keep_dims=None, **kwargs):
        for flag in (keepdim, keepdims, keep_dims):
            keep = keep if flag is None else flag
        return fn(x, axis=_axis(axis), keepdims=keep)
    return ref


def _mean_ref(x, axis=None, keep_dims=False):
    out = np.mean(x, axis=_axis(axis), keepdims=keep_dims)
    if x.dtype.kind in "iu":
        return np.trunc(out).astype(x.dtype)
    return out


def _std_ref(fn):
    def ref(x, axis=None, ddof=0, keepdims=False):
        return fn(x, axis=_axis(axis), ddof=int(ddof), keepdims=keepdims)
    return ref


def _logsumexp_ref(x, dim, keepdim=False):
    axis = _axis(dim)
    peak = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True)) + peak
    return out if keepdim else np.squeeze(out, axis=axis)


def _max_ref(is_max):
    def ref(x, axis=None, keepdims=False, **kwargs):
        fn, arg = (np.max, np.argmax) if is_max else (np.min, np.argmin)
        if axis is None:
            return fn(x), np.int64(0)
        return fn(x, axis=axis, keepdims=keepdims), arg(x, axis=axis, keepdims=keepdims)
    return ref


OPS = [
    OpInfo("sum", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((F, (0, 1), True), grad=(0,), label="tuple_keepdim"),
        Sample((F, -1), {"keepdim": True}, grad=(0,), label="keepdim_kw"),
        Sample((I32, 0), label="int32"),
        Sample((B, 1), label="bool"),
        Sample((H, 1), label="float16"),
        Sample((Z,), grad=(0,), label="zero_d"),
    ), ref=_np_reduce(np.sum), method="sum",
        bad=(Bad("axis", (F, 2)), Bad("keepdim", (F, 1, 1)))),
    OpInfo("reduce_sum", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((F, (0, 1)), grad=(0,), label="tuple"),
        Sample((I32, 1), label="int32"),
    ), ref=_np_reduce(np.sum), primitive=lambda ops, x, axis=(): ops.ReduceSum()(x, axis)),
    OpInfo("mean", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1, True), grad=(0,), label="axis_keep"),
        Sample((F, (0, 1)), grad=(0,), label="tuple"),
        Sample((I32, 1), label="int32_truncates"),
        Sample((I64,), label="int64"),
        Sample((H, 0), label="float16"),
        Sample((F64, 1), grad=(0,), label="float64"),
        Sample((Z,), label="zero_d"),
    ), ref=_mean_ref, method="mean", primitive=lambda ops, x, axis=(), keep_dims=False: ops.ReduceMean(keep_dims)(x, axis),
        bad=(Bad("bool", (B,)), Bad("axis", (F, 3)))),
    OpInfo("reduce_mean", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((I32, 1), label="int32"),
    ), ref=lambda x, axis=(): _mean_ref(x, axis), primitive=lambda ops, x, axis=(): ops.ReduceMean()(x, axis)),
    OpInfo("amax", (
        Sample((D,), grad=(0,), label="all"),
        Sample((D, 1), grad=(0,), label="axis"),
        Sample((D34, (0, 1), True), grad=(0,), label="tuple_keep"),
        Sample((D, 0), {"initial": 0.5}, grad=(0,), label="initial"),
        Sample((I32, 1), label="int32"),
        Sample((H, 1), label="float16"),
        Sample((Z, 0), label="zero_d"),
    ), ref=lambda x, axis=None, keepdims=False, initial=None: np.max(
        x, axis=_axis(axis), keepdims=keepdims, **({} if initial is None else {"initial": initial})),
        method="amax", primitive=lambda ops, x, axis=(), keepdims=False, **kw: (
            ops.amax(x, axis, keepdims, **kw) if kw else ops.ReduceMax(keepdims)(x, () if axis is None else axis)),
        bad=(Bad("bool", (B,)), Bad("axis", (F, 2)), Bad("keepdims", (F, 1, 1)))),
    OpInfo("amin", (
        Sample((D,), grad=(0,), label="all"),
        Sample((D, 1), grad=(0,), label="axis"),
        Sample((D, (0, 1), True), grad=(0,), label="tuple_keep"),
        Sample((I32, 0), label="int32"),
    ), ref=_np_reduce(np.min), method="amin",
        primitive=lambda ops, x, axis=(), keepdims=False: ops.ReduceMin(keepdims)(x, () if axis is None else axis)),
    OpInfo("reduce_max", (
        Sample((D,), grad=(0,), label="all"),
        Sample((D, 1), grad=(0,), label="axis"),
        Sample((I64, (0, 1)), label="int64"),
    ), ref=lambda x, axis=(): np.max(x, axis=_axis(axis)), primitive=lambda ops, x, axis=(): ops.ReduceMax()(x, axis)),
    OpInfo("reduce_min", (
        Sample((D,), grad=(0,), label="all"),
        Sample((D, 0), grad=(0,), label="axis"),
    ), ref=lambda x, axis=(): np.min(x, axis=_axis(axis)), primitive=lambda ops, x, axis=(): ops.ReduceMin()(x, axis)),
    OpInfo("max", (
        Sample((D, 1), grad=(0,), label="axis"),
        Sample((D, 0, True), grad=(0,), label="axis_keep"),
        Sample((D,), grad=(0,), label="all_index_zero"),
        Sample((D, 1), {"initial": 0.5}, grad=(0,), label="initial"),
        Sample((I32, 1), label="int32"),
        Sample((Arr((2, 3), "float64", distinct=True), -1), label="float64"),
        Sample((Z,), label="zero_d"),
    ), ref=_max_ref(True), bad=(Bad("bool", (B, 1)), Bad("axis", (F, 2)), Bad("empty", (Arr((0, 2)), 1)))),
    OpInfo("min", (
        Sample((D, 1), grad=(0,), label="axis"),
        Sample((D, 0, True), grad=(0,), label="axis_keep"),
        Sample((D,), label="all_index_zero"),
        Sample((I32, 0), label="int32"),
    ), ref=_max_ref(False), bad=(Bad("axis", (F, -3)),)),
    OpInfo("aminmax", (
        Sample((D,), grad=(0,), label="default_axis0"),
        Sample((D,), {"axis": 1, "keepdims": True}, grad=(0,), label="axis1_keep"),
        Sample((D,), {"axis": None}, grad=(0,), label="all"),
        Sample((D,), {"axis": None, "keepdims": True}, label="all_keep"),
        Sample((I32,), {"axis": -1}, label="int32"),
    ), ref=lambda x, axis=0, keepdims=False: (np.min(x, axis=axis, keepdims=keepdims),
                                              np.max(x, axis=axis, keepdims=keepdims)),
        method="aminmax", bad=(Bad("bool", (B,)),)),
    OpInfo("argmax", (
        Sample((D,), label="all"),
        Sample((D, 1), label="dim"),
        Sample((D, 0, True), label="keepdim"),
        Sample((I32, 1), label="int32"),
        Sample((Arr((2, 3), "float16", distinct=True), -1), label="float16"),
    ), ref=lambda x, dim=None, keepdim=False: np.argmax(x, axis=dim, keepdims=keepdim if dim is not None else False),
        method="argmax", bad=(Bad("dim", (F, 2)),)),
    OpInfo("argmin", (
        Sample((D,), label="all"),
        Sample((D, 1), label="axis"),
        Sample((D, 0, True), label="keepdims"),
        Sample((I64, 1), label="int64"),
    ), ref=lambda x, axis=None, keepdims=False: np.argmin(x, axis=axis, keepdims=keepdims if axis is not None else False),
        method="argmin", bad=(Bad("axis", (F, 5)),)),
    OpInfo("prod", (
        Sample((POS,), grad=(0,), label="all"),
        Sample((Arr((2, 3), away=0.25), 1), grad=(0,), label="axis"),
        Sample((POS, (0, 1), True), grad=(0,), label="tuple_keep"),
        Sample((Arr((2, 3), "int32", 1, 3), 1), label="int32"),
        Sample((B,), label="bool"),
        Sample((H, 1), label="float16"),
    ), ref=lambda x, axis=None, keep_dims=False: np.prod(x, axis=_axis(axis), keepdims=keep_dims),
        method="prod", bad=(Bad("axis", (F, 2)),)),
    OpInfo("all", (
        Sample((B,), label="bool_all"),
        Sample((B, 1), label="axis"),
        Sample((B, (0, 1), True), label="tuple_keep"),
        Sample((I32, 0), label="int32"),
        Sample((F,), label="float"),
        Sample((Arr((), "bool"),), label="zero_d"),
    ), ref=lambda x, axis=None, keep_dims=False: np.all(x, axis=_axis(axis), keepdims=keep_dims), method="all",
        primitive=lambda ops, x, axis=None, keep_dims=False: ops.ReduceAll(keep_dims)(x, axis),
        bad=(Bad("axis", (B, 2)), Bad("keep_dims", (B, 1, 1)))),
    OpInfo("any", (
        Sample((B,), label="bool_all"),
        Sample((B, 1), label="axis"),
        Sample((B, (0, 1), True), label="tuple_keep"),
        Sample((I32, 0), label="int32"),
        Sample((np.array([[1, 0, 3], [0, 4, -1]], np.int32), 1), label="int32_rows"),
        Sample((F,), label="float"),
    ), ref=lambda x, axis=None, keep_dims=False: np.any(x, axis=_axis(axis), keepdims=keep_dims), method="any",
        mindspore_wrong={"int32_rows": "MindSpore 2.10's CPU 'any' of an Int32 tensor along an axis answers False for "
                                       "the row [0, 4, -1]"},
        primitive=lambda ops, x, axis=(), keep_dims=False: ops.ReduceAny(keep_dims)(x, axis),
        bad=(Bad("axis", (B, -3)),)),
    OpInfo("count_nonzero", (
        Sample((I32,), label="all"),
        Sample((I32, 1), label="axis"),
        Sample((I32, (0, 1), True), label="tuple_keep"),
        Sample((F, 0), label="float"),
        Sample((Arr((2, 3), "float64", -1, 1), 1), label="float64"),
    ), ref=lambda x, axis=(), keep_dims=False: np.count_nonzero(x, axis=_axis(axis), keepdims=keep_dims),
        bad=(Bad("bool", (B,)), Bad("axis", (I32, 2)))),
    OpInfo("nansum", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((F, (0, 1), True), grad=(0,), label="tuple_keep"),
        Sample((I32, 1), label="int32"),
        Sample((B, 1), label="bool"),
        Sample((H, 0), label="float16"),
    ), ref=lambda x, axis=None, keepdims=False: np.nansum(x, axis=_axis(axis), keepdims=keepdims), method="nansum",
        bad=(Bad("axis", (F, 2)),)),
    OpInfo("nanmean", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((F, 0, True), grad=(0,), label="axis_keep"),
        Sample((F64, 1), label="float64"),
    ), ref=lambda x, axis=None, keepdims=False: np.nanmean(x, axis=_axis(axis), keepdims=keepdims), method="nanmean",
        bad=(Bad("int", (I32,)),)),
    OpInfo("logsumexp", (
        Sample((F, 1), grad=(0,), label="dim"),
        Sample((F, 0, True), grad=(0,), label="keepdim"),
        Sample((F, (0, 1)), grad=(0,), label="tuple"),
        Sample((Arr((2, 3), low=50.0, high=60.0), 1), grad=(0,), label="large"),
        Sample((F64, -1), label="float64"),
        Sample((H, 1), label="float16"),
    ), ref=_logsumexp_ref, method="logsumexp", rtol=1e-5, atol=1e-5,
        bad=(Bad("int32", (I32, 1)), Bad("dim", (F, 2)))),
    OpInfo("std", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((F, 1, 1), grad=(0,), label="ddof1"),
        Sample((F, (0, 1), True, True), grad=(0,), label="ddof_true_keep"),
        Sample((F64, 0), label="float64"),
        Sample((H, 1), label="float16"),
    ), ref=_std_ref(np.std), method="std",
        bad=(Bad("int", (I32,)), Bad("axis", (F, 2)), Bad("keepdims", (F, 1, 0, 1)))),
    OpInfo("var", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1), grad=(0,), label="axis"),
        Sample((F, 0, 1, True), grad=(0,), label="ddof1_keep"),
        Sample((F64, (0, 1)), label="float64"),
    ), ref=_std_ref(np.var), method="var",
        bad=(Bad("int", (I64,)), Bad("axis_list", (F, [0, 1])))),
    OpInfo("std_mean", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1, 1), grad=(0,), label="axis_ddof"),
        Sample((F, 0, 0, True), grad=(0,), label="keep"),
    ), ref=lambda x, axis=None, ddof=0, keepdims=False: (np.std(x, axis=axis, ddof=ddof, keepdims=keepdims),
                                                         np.mean(x, axis=axis, keepdims=keepdims))),
    OpInfo("var_mean", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 1, 1), grad=(0,), label="axis_ddof"),
        Sample((F, (0, 1), 0, True), grad=(0,), label="tuple_keep"),
    ), ref=lambda x, axis=None, ddof=0, keepdims=False: (np.var(x, axis=axis, ddof=ddof, keepdims=keepdims),
                                                         np.mean(x, axis=axis, keepdims=keepdims))),
    OpInfo("norm", (
        Sample((F,), grad=(0,), label="all"),
        Sample((F, 2, 1), grad=(0,), label="vector_2"),
        Sample((Arr((2, 3), away=0.25), 1, 1, True), grad=(0,), label="vector_1_keep"),
        Sample((F, "fro"), grad=(0,), label="fro"),
        Sample((F, float("inf"), 0), label="vector_inf"),
    ), ref=lambda x, ord=None, dim=None, keepdim=False: np.linalg.norm(x, ord=ord, axis=dim, keepdims=keepdim)),
]
