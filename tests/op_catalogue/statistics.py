"""Cumulative ops, sorting and searching, unique values, statistics, distances and segment reductions.

Inputs that must have a structure (a sorted sequence, repeated values for ``unique``, segment
ids) are written out as NumPy arrays; the rest are drawn.  Samples that are differentiated have
distinct values (sorting, picking) or stay away from zero (products, distances with ``p = 1``).
MindSpore 2.10's CPU build lacks a few kernels (``quantile``, ``searchsorted`` of a 1-D sequence with Int64 output,
``nonzero(as_tuple=True)``, ``diff`` with ``n > 1``): those samples say so in
``mindspore_wrong`` and are compared with the NumPy reference.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
D = Arr((2, 3), distinct=True)
D34 = Arr((3, 4), distinct=True)
POS = Arr((2, 3), low=0.5, high=2.0)
I32 = Arr((2, 3), "int32", -3, 3)
B = Arr((2, 3), "bool")
H = Arr((2, 3), "float16")
F64 = Arr((2, 3), "float64")

INT_DISTINCT = np.array([[4, -2, 7], [0, 9, -5]], np.int32)
REPEATS = np.array([3, 1, 3, 0, 1, 5], np.int32)
RUNS = np.array([1, 1, 2, 2, 3, 1, 1], np.int32)
SORTED = np.array([-1.5, 0.0, 0.5, 2.0, 3.25], np.float32)
SORTED_ROWS = np.array([[0.0, 1.0, 3.0, 5.0], [2.0, 4.0, 6.0, 8.0]], np.float32)
QUERIES = np.array([[1.0, 4.5, -2.0], [5.0, 0.0, 8.0]], np.float32)
SEGMENTS = np.array([0, 2, 0], np.int32)          # segment 1 stays empty
FULL_SEGMENTS = np.array([1, 0, 1], np.int32)     # every segment has rows (differentiated samples)
NAN_ROWS = np.array([[1.5, np.nan, 3.0, -0.5], [0.5, 4.0, -1.0, 2.0]], np.float32)

NO_KERNEL = "MindSpore 2.10's CPU build has no kernel for it (it raises instead of computing the documented result)"


def _cumulative_extreme(is_max):
    def ref(x, axis):
        fn = np.maximum if is_max else np.minimum
        values = fn.accumulate(x, axis=axis)
        positions = np.arange(x.shape[axis]).reshape([-1 if i == axis % x.ndim else 1 for i in range(x.ndim)])
        index = np.maximum.accumulate(np.where(x == values, positions, 0), axis=axis)
        return values, index
    return ref


def _sort_ref(x, axis=-1, descending=False):
    order = np.argsort(-x if descending else x, axis=axis, kind="stable")
    return np.take_along_axis(x, order, axis=axis), order


def _topk_ref(x, k, dim=None, largest=True, sorted=True):
    axis = -1 if dim is None else dim
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis=axis), order


def _median_ref(ignore_nan):
    def ref(x, axis=-1, keepdims=False):
        if x.ndim == 0:
            return x, np.int64(0)
        work = np.where(np.isnan(x), np.inf, x) if x.dtype.kind == "f" else x
        order = np.argsort(work, axis=axis, kind="stable")
        n = x.shape[axis]
        count = n - np.sum(np.isnan(x), axis=axis, keepdims=True) if x.dtype.kind == "f" else np.full(
            np.sum(x, axis=axis, keepdims=True).shape, n)
        position = np.where(count > 0, (count - 1) // 2, 0)
        if not ignore_nan:
            position = np.where(count < n, count, position)
        index = np.take_along_axis(order, position, axis=axis)
        values = np.take_along_axis(x, index, axis=axis)
        if not keepdims:
            values, index = np.squeeze(values, axis), np.squeeze(index, axis)
        return values, index
    return ref


def _quantile_ref(nan):
    def ref(x, q, axis=None, keepdims=False):
        fn = np.nanquantile if nan else np.quantile
        return fn(x, q, axis=axis, keepdims=keepdims).astype(x.dtype)
    return ref


def _unique_ref(x):
    values, first, inverse = np.unique(x.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.argsort(order)
    return values[order], rank[inverse.reshape(-1)].reshape(x.shape).astype(np.int32)


def _histc_ref(x, bins=100, min=0.0, max=0.0):
    low, high = (float(x.min()), float(x.max())) if min == 0 and max == 0 else (min, max)
    counts, _ = np.histogram(x, bins=bins, range=(low, high))
    return counts.astype(x.dtype)


def _trapz_ref(y, x=None, *, dx=1.0, dim=-1):
    out = np.trapezoid(y, x=x, dx=dx, axis=dim) if hasattr(np, "trapezoid") else np.trapz(y, x=x, dx=dx, axis=dim)
    return np.asarray(out)


def _p_dist(d, p, axis):
    if p == 0:
        return np.sum(d != 0, axis=axis).astype(d.dtype)
    if p == np.inf:
        return np.max(np.abs(d), axis=axis)
    return np.sum(np.abs(d) ** p, axis=axis) ** (1.0 / p)


def _cdist_ref(a, b, p=2.0):
    return _p_dist(a[..., :, None, :] - b[..., None, :, :], p, -1)


def _pdist_ref(x, p=2.0):
    i, j = np.triu_indices(x.shape[-2], 1)
    return _p_dist(x[..., i, :] - x[..., j, :], p, -1)


def _renorm_ref(x, p, axis, maxnorm):
    others = tuple(i for i in range(x.ndim) if i != axis)
    norms = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    return np.where(norms > maxnorm, x * (maxnorm / (norms + 1e-7)), x)


def _segment_ref(kind):
    def ref(x, ids, num):
        rest = x.shape[ids.ndim:]
        rows = x.reshape((-1,) + rest)
        fill = {"sum": 0, "prod": 1, "max": -np.inf, "min": np.inf}[kind]
        out = np.full((num,) + rest, fill, dtype=np.float64)
        fn = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind]
        fn.at(out, ids.reshape(-1), rows)
        if kind in ("max", "min"):
            info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
            out = np.where(np.isinf(out), info.min if kind == "max" else info.max, out)
        return out.astype(x.dtype)
    return ref


def _asked_for(outputs, inverse, counts):
    """The Primitive's three outputs cut down to what the function returns."""
    kept = tuple(o for o, wanted in zip(outputs, (True, inverse, counts)) if wanted)
    return kept[0] if len(kept) == 1 else kept


OPS = [
    # -------------------------------------------------------------- cumulative
    OpInfo("cumsum", (
        Sample((F, 1), grad=(0,), label="axis1"),
        Sample((Arr((3, 2)), 0), grad=(0,), label="axis0"),
        Sample((I32, -1), label="int32"),
        Sample((Arr((4,), "int64", -5, 5), 0), label="int64"),
        Sample((H, 1), label="float16"),
    ), ref=lambda x, axis, dtype=None: np.cumsum(x, axis=axis).astype(x.dtype), method="cumsum",
        primitive=lambda ops, x, axis: ops.CumSum()(x, axis),
        bad=(Bad("bool", (B, 1)), Bad("axis", (F, 2)), Bad("zero_d", (Arr(()), 0)))),
    OpInfo("cumprod", (
        Sample((POS, 1), grad=(0,), label="dim1"),
        Sample((Arr((3, 2), away=0.25), 0), grad=(0,), label="dim0_signs"),
        Sample((Arr((2, 3), "int32", -2, 2), 1), label="int32"),
        Sample((B, 1), label="bool"),
        Sample((F64, -1), label="float64"),
    ), ref=lambda x, dim, dtype=None: np.cumprod(x, axis=dim) if x.dtype.kind == "f" else
        np.cumprod(x.astype(np.int64), axis=dim), method="cumprod", bad=(Bad("dim", (F, -3)),)),
    OpInfo("cummax", (
        Sample((D, 1), label="axis1"),
        Sample((D34, 0), label="axis0"),
        Sample((INT_DISTINCT, 1), label="int32"),
        Sample((np.array([3.0, 1.0, 3.0, 4.0, 4.0], np.float32), 0), label="ties_take_the_latest"),
    ), ref=_cumulative_extreme(True), method="cummax", primitive=lambda ops, x, axis: ops.Cummax(axis)(x),
        bad=(Bad("bool", (B, 1)), Bad("axis", (F, 2)))),
    OpInfo("cummin", (
        Sample((D, 1), label="axis1"),
        Sample((D34, -2), label="axis0"),
        Sample((INT_DISTINCT, 0), label="int32"),
        Sample((np.array([3.0, 1.0, 1.0, 4.0, 1.0], np.float32), 0), label="ties_take_the_latest"),
    ), ref=_cumulative_extreme(False), method="cummin", primitive=lambda ops, x, axis: ops.Cummin(axis)(x),
        bad=(Bad("axis", (F, -3)),)),
    OpInfo("logcumsumexp", (
        Sample((F, 1), grad=(0,), label="axis1"),
        Sample((Arr((3, 2)), 0), grad=(0,), label="axis0"),
        Sample((Arr((2, 3), low=40.0, high=60.0), 1), grad=(0,), label="large"),
        Sample((F64, 1), label="float64"),
    ), ref=lambda x, axis: np.logaddexp.accumulate(x, axis=axis), method="logcumsumexp", atol=1e-5,
        bad=(Bad("int", (I32, 1)), Bad("axis", (F, 2)))),
    # -------------------------------------------------------------- sorting and picking
    OpInfo("sort", (
        Sample((D,), grad=(0,), label="last"),
        Sample((D34, 0, True), grad=(0,), label="axis0_descending"),
        Sample((INT_DISTINCT, -1, True), label="int32_descending"),
        Sample((Arr((5,), "float64", distinct=True),), label="float64"),
        Sample((Arr((2, 3), "float16", distinct=True), 1), label="float16"),
    ), ref=_sort_ref, method="sort", primitive=lambda ops, x, axis=-1, descending=False: ops.Sort(axis, descending)(x),
        bad=(Bad("bool", (B,)), Bad("axis", (F, 2)), Bad("zero_d", (Arr(()),)))),
    OpInfo("argsort", (
        Sample((D,), label="last"),
        Sample((D34, 0, True), label="axis0_descending"),
        Sample((INT_DISTINCT, 1), label="int32"),
    ), ref=lambda x, axis=-1, descending=False: _sort_ref(x, axis, descending)[1], method="argsort",
        bad=(Bad("axis", (F, 2)),)),
    OpInfo("msort", (
        Sample((D,), grad=(0,), label="rows"),
        Sample((Arr((4,), distinct=True),), grad=(0,), label="vector"),
        Sample((INT_DISTINCT,), label="int32"),
    ), ref=lambda x: np.sort(x, axis=0), method="msort"),
    OpInfo("topk", (
        Sample((D, 2), grad=(0,), label="last"),
        Sample((D34, 2, 0), grad=(0,), label="dim0"),
        Sample((D, 2, 1, False), grad=(0,), label="smallest"),
        Sample((D34, 1, None, True, False), label="unsorted"),
        Sample((INT_DISTINCT, 2), label="int32"),
        Sample((Arr((2, 3), "float16", distinct=True), 1), label="float16"),
    ), ref=_topk_ref, method="topk", bad=(Bad("k_zero", (F, 0)), Bad("k_large", (F, 4)), Bad("k_float", (F, 1.0)),
                                          Bad("bool", (B, 1)))),
    OpInfo("top_k", (
        Sample((D, 2), grad=(0,), label="k2"),
        Sample((D34, 3), label="rows"),
    ), ref=lambda x, k, sorted=True: _topk_ref(x, k), method="top_k",
        primitive=lambda ops, x, k, sorted=True: ops.TopK(sorted)(x, k)),
    OpInfo("searchsorted", (
        Sample((SORTED, QUERIES), {"out_int32": True}, label="vector_int32"),
        Sample((SORTED, QUERIES), {"out_int32": True, "right": True}, label="right"),
        Sample((SORTED, QUERIES), {"out_int32": True, "side": "right"}, label="side_right"),
        Sample((SORTED_ROWS, QUERIES), {"out_int32": True}, label="rows"),
        Sample((SORTED, QUERIES), label="int64"),
        Sample((SORTED_ROWS, QUERIES), {"right": True}, label="rows_int64"),
    ), ref=lambda s, v, out_int32=False, right=False, side=None: (
        np.stack([np.searchsorted(r, q, side="right" if right or side == "right" else "left")
                  for r, q in zip(s, v)]) if s.ndim == 2 else
        np.searchsorted(s, v, side="right" if right or side == "right" else "left")).astype(
        np.int32 if out_int32 else np.int64),
        mindspore_wrong={"int64": "MindSpore 2.10's CPU kernel fails for a 1-D sequence with the default Int64 "
                                  "output ('the dimension of v 24 and output 48')"},
        bad=(Bad("side_conflict", (SORTED, QUERIES), {"right": True, "side": "left", "out_int32": True}),)),
    OpInfo("bucketize", (
        Sample((F, [-1.0, 0.0, 1.5]), label="float"),
        Sample((F, [-1.0, 0.0, 1.5]), {"right": True}, label="right"),
        Sample((I32, [-1, 2]), label="int32"),
    ), ref=lambda x, b, right=False: np.searchsorted(np.asarray(b, np.float64), x, side="right" if right else "left"
                                                     ).astype(np.int32)),
    OpInfo("nonzero", (
        Sample((I32,), label="int32"),
        Sample((B,), label="bool"),
        Sample((Arr((2, 2, 2), "int64", -1, 1),), label="rank3"),
        Sample((F,), label="float"),
        Sample((I32,), {"as_tuple": True}, label="as_tuple"),
        Sample((np.zeros((2, 3), np.float32),), label="all_zero"),
    ), ref=lambda x, as_tuple=False: tuple(np.nonzero(x)) if as_tuple else np.argwhere(x), method="nonzero",
        mindspore_wrong={"as_tuple": NO_KERNEL + " (NonZeroExt)"},
        bad=(Bad("zero_d", (Arr(()),)),)),
    OpInfo("argwhere", (
        Sample((I32,), label="int32"),
        Sample((B,), label="bool"),
        Sample((F,), label="float"),
    ), ref=np.argwhere, method="argwhere"),
    OpInfo("unique", (
        Sample((REPEATS,), label="int32"),
        Sample((np.array([[1.5, -2.0], [1.5, 0.25]], np.float32),), label="float_2d"),
        Sample((np.array([7, 7, 7], np.int64),), label="one_value"),
    ), ref=_unique_ref, primitive=lambda ops, x: ops.Unique()(x), bad=(Bad("bool", (B,)),)),
    OpInfo("unique_consecutive", (
        Sample((RUNS,), label="plain"),
        Sample((RUNS, True, True), label="inverse_counts"),
        Sample((np.array([[1, 1], [1, 1], [2, 3], [2, 3]], np.int64), True, True, 0), label="dim0"),
        Sample((np.array([1.0, 1.0, 2.5, 1.0], np.float32),), label="float"),
    ), method="unique_consecutive",
        primitive=lambda ops, x, ri=False, rc=False, dim=None: _asked_for(ops.UniqueConsecutive(ri, rc, dim)(x), ri, rc)),
    OpInfo("unique_with_pad", (
        Sample((REPEATS, 9), label="int32"),
        Sample((REPEATS.astype(np.int64), -1), label="int64"),
    ), method="unique_with_pad", bad=(Bad("rank2", (np.array([[1, 2]], np.int32), 9)),)),
    # -------------------------------------------------------------- medians and quantiles
    OpInfo("median", (
        Sample((D,), grad=(0,), label="last"),
        Sample((D34, 0, True), grad=(0,), label="axis0_keep"),
        Sample((Arr((4,), distinct=True),), grad=(0,), label="even_takes_lower"),
        Sample((INT_DISTINCT, 1), label="int32"),
        Sample((Arr((2, 3), "float64", distinct=True), 0), label="float64"),
        Sample((NAN_ROWS,), label="nan_propagates"),
        Sample((Arr((), low=1.0),), label="zero_d"),
    ), ref=_median_ref(False), method="median",
        primitive=lambda ops, x, axis=-1, keepdims=False: ops.Median(False, axis, keepdims)(x),
        bad=(Bad("float16", (H,)), Bad("bool", (B,)), Bad("axis", (F, 2)))),
    OpInfo("nanmedian", (
        Sample((D,), grad=(0,), label="last"),
        Sample((NAN_ROWS,), label="nan_skipped"),
        Sample((NAN_ROWS, 0, True), label="axis0_keep"),
    ), ref=_median_ref(True), method="nanmedian",
        primitive=lambda ops, x, axis=-1, keepdims=False: ops.Median(False, axis, keepdims, True)(x)),
    OpInfo("quantile", (
        Sample((D, 0.3), label="all"),
        Sample((D34, 0.5, 1, True), label="axis_keep"),
        Sample((D34, np.array([0.25, 0.75], np.float32), 0), label="q_tensor"),
        Sample((Arr((5,), "float64"), 1.0), label="float64"),
    ), ref=_quantile_ref(False), method="quantile",
        mindspore_wrong={"all": NO_KERNEL, "axis_keep": NO_KERNEL, "q_tensor": NO_KERNEL, "float64": NO_KERNEL}),
    OpInfo("nanquantile", (
        Sample((NAN_ROWS, 0.3), label="all"),
        Sample((NAN_ROWS, 0.5, 1), label="axis"),
    ), ref=_quantile_ref(True), method="nanquantile",
        mindspore_wrong={"all": NO_KERNEL, "axis": NO_KERNEL}),
    # -------------------------------------------------------------- statistics
    OpInfo("cov", (
        Sample((F,), grad=(0,), label="rows"),
        Sample((F,), {"correction": 0}, grad=(0,), label="correction0"),
        Sample((Arr((4,)),), grad=(0,), label="vector"),
        Sample((I32,), label="int32"),
    ), ref=lambda x, correction=1: np.asarray(np.cov(x, ddof=correction)).astype(
        x.dtype if x.dtype.kind == "f" else np.float32), method="cov", bad=(Bad("rank3", (Arr((2, 2, 2)),)),)),
    OpInfo("histc", (
        Sample((Arr((3, 4)), 4, -2.0, 2.0), label="range"),
        Sample((Arr((3, 4)), 5), label="data_range"),
        Sample((Arr((3, 4), low=-3.0, high=3.0), 3, -1.0, 1.0), label="outside_ignored"),
        Sample((Arr((3, 4), "int32", 0, 5), 3, 0, 5), label="int32"),
        Sample((Arr((3, 4), "float16"), 4, -2.0, 2.0), label="float16"),
    ), ref=_histc_ref, method="histc",
        primitive=lambda ops, x, bins=100, min=0.0, max=0.0: ops.Histogram(bins, min, max)(x),
        bad=(Bad("bool", (B,)), Bad("int64", (Arr((2, 3), "int64", 0, 3), 3)))),
    OpInfo("bincount", (
        Sample((REPEATS,), label="counts"),
        Sample((REPEATS, Arr((6,), low=0.0, high=2.0)), label="weights"),
        Sample((REPEATS, None, 9), label="minlength"),
        Sample((REPEATS.astype(np.int64), Arr((6,), "float64")), label="int64_float64_weights"),
    ), ref=lambda x, weights=None, minlength=0: np.bincount(x, weights, minlength).astype(np.float32),
        method="bincount", bad=(Bad("rank2", (np.array([[1, 2]], np.int32),)),)),
    OpInfo("diff", (
        Sample((F,), grad=(0,), label="last"),
        Sample((Arr((3, 2)), 1, 0), grad=(0,), label="axis0"),
        Sample((F, 1, -1, Arr((2, 1)), Arr((2, 2))), grad=(0, 3, 4), label="prepend_append"),
        Sample((I32,), label="int32"),
        Sample((B,), label="bool"),
        Sample((F, 2), label="n2"),
    ), ref=lambda x, n=1, axis=-1, prepend=None, append=None: np.diff(
        x, n=n, axis=axis, **({} if prepend is None else {"prepend": prepend}),
        **({} if append is None else {"append": append})),
        method="diff", mindspore_wrong={"n2": "MindSpore 2.10 raises for n > 1 (documented as a current limit); "
                                              "cellkit takes the n-th difference"}),
    OpInfo("trapz", (
        Sample((F,), grad=(0,), label="dx1"),
        Sample((F, Arr((3,), low=0.0, high=3.0, distinct=True)), grad=(0, 1), label="x_vector"),
        Sample((F, Arr((2, 3))), grad=(0, 1), label="x_full"),
        Sample((Arr((3, 2)),), {"dx": 0.5, "dim": 0}, grad=(0,), label="dx_dim0"),
        Sample((I32,), label="int32"),
        Sample((F64,), label="float64"),
    ), ref=_trapz_ref, mindspore_wrong={"float64": "MindSpore 2.10 returns Float32 for a Float64 input (precision "
                                                   "lost); cellkit keeps Float64"}),
    # -------------------------------------------------------------- distances and norms
    OpInfo("dist", (
        Sample((F, Arr((2, 3))), grad=(0, 1), label="p2"),
        Sample((F, Arr((2, 3)), 1), grad=(0, 1), label="p1"),
        Sample((F, Arr((3,)), 3), grad=(0, 1), label="p3_broadcast"),
        Sample((F, Arr((2, 3)), 0), label="p0"),
    ), ref=lambda a, b, p=2: np.asarray(_p_dist(np.broadcast_arrays(a, b)[0] - np.broadcast_arrays(a, b)[1], p, None)),
        bad=(Bad("p_float", (F, F, 2.5)), Bad("int", (I32, I32)))),
    OpInfo("cdist", (
        Sample((Arr((2, 3)), Arr((3, 3))), grad=(0, 1), label="p2"),
        Sample((Arr((1, 2, 3)), Arr((1, 3, 3))), {"p": 1.0}, grad=(0, 1), label="batched_p1"),
        Sample((Arr((2, 2)), Arr((3, 2))), {"p": 2.5}, grad=(0, 1), label="p2_5"),
        Sample((Arr((2, 2)), Arr((3, 2))), {"p": float("inf")}, label="pinf"),
        Sample((Arr((2, 2)), Arr((3, 2))), {"p": 0.0}, label="p0"),
    ), ref=_cdist_ref, bad=(Bad("last_dims", (Arr((2, 3)), Arr((2, 4)))), Bad("p_negative", (F, F, -1.0)))),
    OpInfo("pdist", (
        Sample((Arr((3, 2)),), grad=(0,), label="p2"),
        Sample((Arr((4, 2)), 1.0), grad=(0,), label="p1"),
        Sample((Arr((3, 3)), 3.0), grad=(0,), label="p3"),
    ), ref=_pdist_ref, primitive=lambda ops, x, p=2.0: ops.Pdist(p)(x)),
    OpInfo("renorm", (
        Sample((Arr((2, 3), low=0.5, high=2.0), 2, 0, 1.5), grad=(0,), label="p2_rows"),
        Sample((F, 1, 1, 1.0), grad=(0,), label="p1_columns"),
        Sample((F, 2, 0, 100.0), grad=(0,), label="below_maxnorm"),
    ), ref=_renorm_ref, primitive=lambda ops, x, p, axis, maxnorm: ops.Renorm(p, axis, maxnorm)(x),
        bad=(Bad("p_float", (F, 2.0, 0, 1.0)), Bad("int", (I32, 2, 0, 1.0)))),
    # -------------------------------------------------------------- segments
    OpInfo("unsorted_segment_sum", (
        Sample((Arr((3, 2)), SEGMENTS, 3), grad=(0,), label="rows"),
        Sample((F, np.array([[0, 1, 0], [1, 1, 2]], np.int32), 3), grad=(0,), label="ids_2d"),
        Sample((Arr((3, 2), "int32", -3, 3), SEGMENTS, 4), label="int32"),
    ), ref=_segment_ref("sum"), primitive=lambda ops, x, ids, n: ops.UnsortedSegmentSum()(x, ids, n),
        bad=(Bad("ids_range", (Arr((3, 2)), np.array([0, 5, 1], np.int32), 3)),)),
    OpInfo("unsorted_segment_max", (
        Sample((Arr((3, 2), distinct=True), FULL_SEGMENTS, 2), grad=(0,), label="rows"),
        Sample((Arr((3, 2), "int32", -3, 3), SEGMENTS, 3), label="int32"),
        Sample((Arr((3, 2), distinct=True), SEGMENTS.astype(np.int64), 4), label="int64_ids_empty_segments"),
    ), ref=_segment_ref("max"), method="unsorted_segment_max",
        primitive=lambda ops, x, ids, n: ops.UnsortedSegmentMax()(x, ids, n)),
    OpInfo("unsorted_segment_min", (
        Sample((Arr((3, 2), distinct=True), FULL_SEGMENTS, 2), grad=(0,), label="rows"),
        Sample((Arr((3, 2), "int32", -3, 3), SEGMENTS, 3), label="int32"),
        Sample((Arr((3, 2)), SEGMENTS, 3), label="empty_segment"),
    ), ref=_segment_ref("min"), method="unsorted_segment_min",
        primitive=lambda ops, x, ids, n: ops.UnsortedSegmentMin()(x, ids, n)),
    OpInfo("unsorted_segment_prod", (
        Sample((Arr((3, 2), away=0.25), SEGMENTS, 3), grad=(0,), label="rows"),
        Sample((Arr((3, 2), "int32", -3, 3), SEGMENTS, 3), label="int32"),
    ), ref=_segment_ref("prod"), method="unsorted_segment_prod",
        primitive=lambda ops, x, ids, n: ops.UnsortedSegmentProd()(x, ids, n)),
]
