"""Tensor methods and Primitives of the reductions and statistics families, as MindSpore 2.10 runs them.

The op catalogue (``tests/op_catalogue/reductions.py``, ``statistics.py``) checks the functions;
these cases check what the catalogue cannot express: the overloads of the Tensor methods
(``x.std(1)`` against ``x.std(dim=1, correction=0)``, ``x.median()``, ``x.count_nonzero()`` ...),
methods that have no function (``kthvalue``, ``ptp``, ``argmax_with_value``), Primitives whose
call differs from their function (``ArgMaxWithValue`` returns the index first, ``CumSum`` has
``exclusive`` / ``reverse``, ``CumulativeLogsumexp`` takes its axis as a Tensor ...), keyword
arguments that are Tensors (``where=``, ``fweights=``), and the gradients of the Primitives.

Where MindSpore 2.10's CPU build has no kernel for a documented call (``kthvalue``, ``quantile``,
``CountNonZero``, Int64 ``SearchSorted``), the case is marked ``mindspore_wrong`` with the
documented result computed in NumPy.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

NO_KERNEL = "MindSpore 2.10's CPU build cannot run this documented call (it raises); cellkit computes the documented result"


def _x(ms, np):
    return ms.Tensor(np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32))


def _x34(ms, np):
    return ms.Tensor(np.array([[0.5, -1.25, 2.0, 0.75], [3.0, 0.25, -0.5, 1.5], [-2.0, 1.0, 0.125, 2.5]],
                              np.float32))


def _ints(ms, np):
    return ms.Tensor(np.array([[1, 0, 3], [0, 4, -1]], np.int32))


def _w(ms, np):
    return ms.Tensor(np.array([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]], np.float32))


def _grad(ms, fn, *args):
    """The gradients of ``sum(first float output * 0.5 + 1)``-weighted... of ``fn`` for every argument."""
    def objective(*xs):
        out = fn(*xs)
        outs = out if isinstance(out, tuple) else (out,)
        total = None
        for k, o in enumerate(outs):
            if "Float" not in str(o.dtype):
                continue
            term = (o * (k + 1.5)).sum() + (o * o).sum() * 0.25
            total = term if total is None else total + term
        return total
    return ms.grad(objective, grad_position=tuple(range(len(args))))(*args)


# -------------------------------------------------------------------------- reductions: methods
@case
def method_sum_mean_variants(ms, ops, nn, np):
    x = _x(ms, np)
    return (x.sum(), x.sum(1), x.sum(1, keepdim=True), x.sum(axis=0, keepdims=True), x.mean(), x.mean(1, True),
            x.mean(axis=0))


@case
def method_max_min_variants(ms, ops, nn, np):
    x = _x(ms, np)
    return x.max(), x.max(1), x.max(axis=1), x.max(0, keepdim=True), x.min(), x.min(1), x.min(axis=(0, 1))


@case
def method_argmax_argmin_prod(ms, ops, nn, np):
    x = _x(ms, np)
    return x.argmax(), x.argmax(1), x.argmin(0, True), x.prod(1), x.prod(), x.prod(0, True)


@case
def method_all_any(ms, ops, nn, np):
    x = _ints(ms, np)
    b = x != 0  # (MindSpore 2.10's CPU ``any`` of an int tensor along an axis is wrong: see the catalogue)
    return x.all(), x.all(1), x.all(axis=0, keep_dims=True), x.all(dim=1, keepdim=True), b.any(), b.any(1, True), \
        b.any(dim=0)


@case
def method_amax_amin_aminmax(ms, ops, nn, np):
    x = _x(ms, np)
    return x.amax(), x.amax(1, True), x.amin(0), x.amin((0, 1)), x.aminmax(), x.aminmax(axis=1, keepdims=True)


@case
def extremes_with_where(ms, ops, nn, np):
    x = _x(ms, np)
    where = ms.Tensor(np.array([[True, False, True], [False, True, False]]))
    return (ops.amax(x, 1, initial=0.0, where=where), ops.amin(x, 0, initial=1.0, where=where),
            ops.max(x, 1, initial=0.0, where=where), ops.min(x, 1, initial=2.0))


@case
def method_argmax_with_value(ms, ops, nn, np):
    x = _x(ms, np)
    return x.argmax_with_value(), x.argmax_with_value(1, True), x.argmin_with_value(1), x.argmin_with_value(0, True)


@case
def method_count_nonzero(ms, ops, nn, np):
    x = _ints(ms, np)
    # (MindSpore 2.10 documents ``count_nonzero(dim=None)`` too, but refuses ``dim=`` on the CPU.)
    return (x.count_nonzero(), x.count_nonzero(1), x.count_nonzero(axis=1, keep_dims=True),
            x.count_nonzero(axis=0, dtype=ms.float32))


@case
def method_nansum_nanmean(ms, ops, nn, np):
    x = ms.Tensor(np.array([[1.5, np.nan, 3.0], [0.5, 4.0, -1.0]], np.float32))
    return x.nansum(), x.nansum(1), x.nansum(axis=0, keepdims=True), x.nanmean(), x.nanmean(1, True)


@case
def method_logsumexp(ms, ops, nn, np):
    x = _x(ms, np)
    return x.logsumexp(1), x.logsumexp(0, True), x.logsumexp((0, 1))


@case
def method_std_overloads(ms, ops, nn, np):
    x = _x(ms, np)
    return (x.std(), x.std(1), x.std(1, 1, True), x.std(axis=0, ddof=1), x.std(dim=1, correction=0),
            x.std(dim=1, correction=1), x.std(dim=(0, 1), correction=2, keepdim=True))


@case(mindspore_wrong=True, note="MindSpore 2.10 on the CPU computes x.std(dim=...) without a correction as if "
                                 "correction were 0; its documentation (and cellkit) use correction=1",
      expected=lambda np: (np.array([2.5658007, 2.5658007], np.float32), np.array([[0.70710677, 4.2426405, 2.828427]],
                                                                                   np.float32)))
def method_std_dim_default_correction(ms, ops, nn, np):
    x = _x(ms, np)
    return x.std(dim=1), x.std(dim=0, keepdim=True)


@case
def method_var_overloads(ms, ops, nn, np):
    x = _x(ms, np)
    return x.var(), x.var(1), x.var(0, 1, True), x.var(axis=(0, 1), ddof=True)


@case(mindspore_wrong=True, note=NO_KERNEL + " (Var: the dim/correction overload)",
      expected=lambda np: (np.array([6.5833335, 6.5833335], np.float32), np.array([[4.4166665]], np.float32)))
def method_var_dim_overload(ms, ops, nn, np):
    x = _x(ms, np)
    return x.var(dim=1), x.var(dim=(0, 1), correction=0, keepdim=True)


@case
def method_ptp(ms, ops, nn, np):
    x = _x(ms, np)
    return x.ptp(), x.ptp(1), x.ptp(0, True), _ints(ms, np).ptp(1)


@case
def grad_ptp(ms, ops, nn, np):
    return _grad(ms, lambda x: x.ptp(1), _x(ms, np))


@case
def grad_extremes_with_where(ms, ops, nn, np):
    where = ms.Tensor(np.array([[True, False, True], [False, True, False]]))
    return _grad(ms, lambda x: ops.amax(x, 1, initial=0.0, where=where), _x(ms, np))


@case
def grad_max_with_initial(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.max(x, 1, initial=2.0)[0], _x(ms, np))


# -------------------------------------------------------------------------- reductions: Primitives
@case
def prim_reduce_family(ms, ops, nn, np):
    x = _x(ms, np)
    b = x > 0
    return (ops.ReduceSum(True)(x, 1), ops.ReduceMean()(x, (0, 1)), ops.ReduceMax(True)(x, 0), ops.ReduceMin()(x),
            ops.ReduceAll()(b, 1), ops.ReduceAll(True)(b), ops.ReduceAny()(b, 0), ops.ReduceAny(True)(b),
            ops.ReduceProd()(x, 1), ops.ReduceProd(True)(_ints(ms, np), 0), ops.Argmax()(x), ops.Argmin(0)(x))


@case
def prim_arg_with_value(ms, ops, nn, np):
    x = _x(ms, np)
    return ops.ArgMaxWithValue()(x), ops.ArgMaxWithValue(1, True)(x), ops.ArgMinWithValue(-1)(x)


@case
def grad_prim_arg_with_value(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.ArgMaxWithValue(1)(x)[1], _x(ms, np))


@case(mindspore_wrong=True, note=NO_KERNEL + " (CountNonZero asks for a second input)",
      expected=lambda np: (np.array(4, np.int64), np.array([2, 2], np.int64)))
def prim_count_nonzero(ms, ops, nn, np):
    x = _ints(ms, np)
    return ops.CountNonZero()(x), ops.CountNonZero([1])(x)


@case
def prim_reduce_std(ms, ops, nn, np):
    x = _x(ms, np)
    return ops.ReduceStd()(x), ops.ReduceStd(1, False, True)(x), ops.ReduceStd([0, 1], True)(x)


@case
def grad_prim_reduce_std(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.ReduceStd(1, True)(x), _x(ms, np))


@case
def prim_l2loss_square_sum_all_equal_count(ms, ops, nn, np):
    x = _x(ms, np)
    return ops.L2Loss()(x), ops.SquareSumAll()(x, _w(ms, np)), ops.EqualCount()(_ints(ms, np), _ints(ms, np) * 0), \
        ops.EqualCount()(x, x)


@case
def grad_prim_l2loss(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.L2Loss()(x), _x(ms, np))


@case
def grad_prim_square_sum_all(ms, ops, nn, np):
    return _grad(ms, lambda x, y: ops.SquareSumAll()(x, y), _x(ms, np), _w(ms, np))


@case
def prim_lp_norm(ms, ops, nn, np):
    x = _x(ms, np)
    return ops.LpNorm(1)(x), ops.LpNorm((0, 1), 1, True)(x), ops.LpNorm(0, 3)(x), ops.LpNorm(0, 0)(x), \
        ops.LpNorm(-1)(x)


@case
def grad_prim_lp_norm(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.LpNorm(1)(x), _x(ms, np))


# -------------------------------------------------------------------------- cumulative
@case
def method_cumulative(ms, ops, nn, np):
    x = _x(ms, np)
    return x.cumsum(1), x.cumsum(dim=0), x.cumprod(1), x.cummax(1), x.cummin(0), x.logcumsumexp(1)


@case
def cumulative_dtypes(ms, ops, nn, np):
    x = _x(ms, np)
    return ops.cumsum(_ints(ms, np), 1, ms.float32), ops.cumprod(x, 1, ms.float64), x.cumsum(1, dtype=ms.float64)


@case
def prim_cumsum_cumprod(ms, ops, nn, np):
    x = _x(ms, np)
    return (ops.CumSum()(x, 1), ops.CumSum(True)(x, 1), ops.CumSum(False, True)(x, 0), ops.CumSum(True, True)(x, 1),
            ops.CumProd()(x, 1), ops.CumProd(True)(x, 1), ops.CumProd(False, True)(x, 0), ops.CumProd(True, True)(x, 1),
            ops.CumProd()(_ints(ms, np), 1), ops.CumSum()(_ints(ms, np), 0))


@case
def grad_prim_cumsum_exclusive_reverse(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.CumSum(True, True)(x, 1), _x(ms, np))


@case
def grad_prim_cumprod_exclusive_reverse(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.CumProd(True, True)(x, 1), _x(ms, np))


@case
def grad_prim_cumprod_exclusive(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.CumProd(True)(x, 0), _x(ms, np))


@case
def prim_cummin_cummax(ms, ops, nn, np):
    x = _x34(ms, np)
    return ops.Cummin(1)(x), ops.Cummax(0)(x), ops.Cummin(-1)(_ints(ms, np))


@case
def prim_cumulative_logsumexp(ms, ops, nn, np):
    x = _x(ms, np)
    axis = ms.Tensor(1)
    return (ops.CumulativeLogsumexp()(x, axis), ops.CumulativeLogsumexp(True)(x, axis),
            ops.CumulativeLogsumexp(False, True)(x, ms.Tensor(0)), ops.CumulativeLogsumexp(True, True)(x, axis))


@case
def prim_cumulative_logsumexp_int_axis(ms, ops, nn, np):
    return ops.CumulativeLogsumexp()(_x(ms, np), 1)


@case
def grad_prim_cumulative_logsumexp(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.CumulativeLogsumexp(False, True)(x, ms.Tensor(1)), _x(ms, np))


# -------------------------------------------------------------------------- sorting and picking
@case
def method_sort_argsort(ms, ops, nn, np):
    x = _x34(ms, np)
    return (x.sort(), x.sort(0, True), x.sort(dim=0), x.sort(dim=1, descending=True, stable=True), x.argsort(),
            x.argsort(0, True), x.argsort(dim=0, descending=False, stable=True), x.msort())


@case
def method_topk(ms, ops, nn, np):
    x = _x34(ms, np)
    return x.topk(2), x.topk(1, 0), x.topk(2, dim=1, largest=False), x.top_k(3)


@case
def prim_sort_topk(ms, ops, nn, np):
    x = _x34(ms, np)
    return ops.Sort()(x), ops.Sort(0, True)(x), ops.TopK()(x, 2), ops.TopK(True)(x, 1)


@case(mindspore_wrong=True, note=NO_KERNEL + " ('should not come here for kthvalue')",
      expected=lambda np: ((np.array([1.5, 0.5], np.float32), np.array([0, 0], np.int64)),
                           (np.array([[0.5, -2.0, -1.0]], np.float32), np.array([[1, 0, 1]], np.int64)),
                           (np.array([3.0, 4.0], np.float32), np.array([2, 1], np.int64))))
def method_kthvalue(ms, ops, nn, np):
    x = _x(ms, np)
    return x.kthvalue(2, 1), x.kthvalue(1, 0, True), x.kthvalue(3)


@case
def method_median(ms, ops, nn, np):
    x = _x34(ms, np)
    return x.median(), x.median(0), x.median(0, True), x.median(dim=1, keepdim=True), x.nanmedian(), x.nanmedian(0)


@case
def prim_median(ms, ops, nn, np):
    x = _x34(ms, np)
    nan = ms.Tensor(np.array([[1.5, np.nan, 3.0], [0.5, 4.0, -1.0]], np.float32))
    # (The index of a global median is documented as meaningless: MindSpore returns 0, or with
    # ignore_nan an uninitialised number, which no case can record.)
    return (ops.Median()(x), ops.Median(False, 1, True)(x), ops.Median(True)(x),
            ops.Median(False, 1, False, True)(nan), ops.Median(True, 0, False, True)(nan)[0])


@case
def prim_median_global_keep_dims_refused(ms, ops, nn, np):
    return ops.Median(True, 0, True)(_x34(ms, np))


@case
def grad_prim_median_global(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.Median(True)(x)[0], _x34(ms, np))


@case(mindspore_wrong=True, note=NO_KERNEL + " (Quantile)",
      expected=lambda np: (np.array(-0.25, np.float32), np.array([[1.5], [0.5]], np.float32),
                           np.array([1.5, -1.0], np.float32)))
def method_quantile(ms, ops, nn, np):
    x = _x(ms, np)
    nan = ms.Tensor(np.array([[1.5, np.nan, 3.0], [0.5, 4.0, -1.0]], np.float32))
    return x.quantile(0.3), x.quantile(0.5, 1, True), nan.nanquantile(0.0, 1)


# -------------------------------------------------------------------------- searching
@case
def method_searchsorted(ms, ops, nn, np):
    s = ms.Tensor(np.array([0.0, 1.0, 3.0, 5.0], np.float32))
    v = ms.Tensor(np.array([1.0, 4.0, 6.0], np.float32))
    return ops.searchsorted(s, v, out_int32=True, side="left"), ops.SearchSorted(ms.int32)(s, v), \
        ops.SearchSorted(ms.int32, True)(s, v)


@case(mindspore_wrong=True, note=NO_KERNEL + " (SearchSorted with its default Int64 output)",
      expected=lambda np: (np.array([1, 3, 4], np.int64), np.array([2, 3, 4], np.int64), np.array([1, 3, 4], np.int64)))
def method_searchsorted_int64(ms, ops, nn, np):
    s = ms.Tensor(np.array([0.0, 1.0, 3.0, 5.0], np.float32))
    v = ms.Tensor(np.array([1.0, 4.0, 6.0], np.float32))
    return s.searchsorted(v), s.searchsorted(v, side="right"), ops.SearchSorted()(s, v)


@case
def prim_bucketize(ms, ops, nn, np):
    x = _x(ms, np)
    return ops.Bucketize([0.0, 1.5, 3.0])(x), ops.Bucketize([-1.0, 0.5])(_ints(ms, np).astype(ms.float32))


@case
def method_nonzero_argwhere(ms, ops, nn, np):
    x = _ints(ms, np)
    return x.nonzero(), x.argwhere(), ops.NonZero()(x), ops.argwhere(x > 0)


# -------------------------------------------------------------------------- unique
@case(mindspore_wrong=True, note=NO_KERNEL + " (Unique2: Tensor.unique's sorted, torch-like overload)",
      expected=lambda np: (np.array([0, 1, 3, 5], np.int32),
                           (np.array([0, 1, 3, 5], np.int32), np.array([2, 1, 2, 0, 1, 3], np.int64)),
                           (np.array([0, 1, 3, 5], np.int32), np.array([2, 1, 2, 0, 1, 3], np.int64),
                            np.array([1, 2, 2, 1], np.int64)),
                           (np.array([0, 1, 3, 5], np.int32), np.array([1, 2, 2, 1], np.int64))))
def method_unique(ms, ops, nn, np):
    x = ms.Tensor(np.array([3, 1, 3, 0, 1, 5], np.int32))
    return x.unique(), x.unique(return_inverse=True), x.unique(return_inverse=True, return_counts=True), \
        x.unique(return_counts=True)


@case
def method_unique_consecutive_with_pad(ms, ops, nn, np):
    x = ms.Tensor(np.array([1, 1, 2, 2, 3, 1, 1], np.int32))
    return (x.unique_consecutive(), x.unique_consecutive(True), x.unique_consecutive(False, True),
            x.unique_with_pad(-1), ops.unique_consecutive(x, return_inverse=True))


@case
def prim_unique(ms, ops, nn, np):
    x = ms.Tensor(np.array([1, 1, 2, 2, 3, 1, 1], np.int32))
    # (UniqueConsecutive always returns three outputs; those not asked for hold uninitialised
    # memory in MindSpore, so only the call asking for both is recorded.)
    return ops.Unique()(x), ops.UniqueConsecutive(True, True)(x)


# -------------------------------------------------------------------------- statistics
@case
def method_statistics(ms, ops, nn, np):
    x = _x(ms, np)
    v = ms.Tensor(np.array([1, 3, 3, 0, 5], np.int32))
    return x.cov(), x.cov(correction=0), x.diff(), x.diff(1, 0), x.histc(4, -2, 4), v.bincount(), \
        v.bincount(minlength=8)


@case
def cov_weights(ms, ops, nn, np):
    x = _x(ms, np)
    fw = ms.Tensor(np.array([1, 2, 1], np.int32))
    aw = ms.Tensor(np.array([1.0, 2.0, 0.5], np.float32))
    return ops.cov(x, fweights=fw), ops.cov(x, aweights=aw), ops.cov(x, correction=0, fweights=fw, aweights=aw)


@case
def grad_cov_weights(ms, ops, nn, np):
    fw = ms.Tensor(np.array([1, 2, 1], np.int32))
    aw = ms.Tensor(np.array([1.0, 2.0, 0.5], np.float32))
    return _grad(ms, lambda x: ops.cov(x, fweights=fw, aweights=aw), _x(ms, np))


@case
def prim_histogram_bincount(ms, ops, nn, np):
    x = _x(ms, np)
    v = ms.Tensor(np.array([1, 3, 3, 0, 5], np.int32))
    w = ms.Tensor(np.array([0.5, 1.0, 1.0, 2.0, 3.0], np.float32))
    return ops.Histogram(4, -2.0, 4.0)(x), ops.Histogram(3)(x), ops.Bincount()(v, ms.Tensor(7, ms.int32), w), \
        ops.Bincount()(v, ms.Tensor(3, ms.int32), w)


@case
def prim_distances(ms, ops, nn, np):
    x = _x34(ms, np)
    return ops.Pdist()(x), ops.Pdist(1.0)(x), ops.Renorm(2, 0, 2.0)(x), ops.Renorm(1, 1, 1.5)(x)


@case
def grad_prim_renorm(ms, ops, nn, np):
    return _grad(ms, lambda x: ops.Renorm(2, 1, 1.5)(x), _x34(ms, np))


# -------------------------------------------------------------------------- segments
@case
def segments_methods_and_primitives(ms, ops, nn, np):
    x = _x34(ms, np)
    ids = ms.Tensor(np.array([1, 0, 1], np.int32))
    return (x.unsorted_segment_max(ids, 2), x.unsorted_segment_min(ids, 3), x.unsorted_segment_prod(ids, 2),
            ops.UnsortedSegmentSum()(x, ids, 2), ops.UnsortedSegmentMax()(x, ids, 2),
            ops.UnsortedSegmentMin()(x, ids, 2), ops.UnsortedSegmentProd()(x, ids, 2))


@case
def grad_segments(ms, ops, nn, np):
    ids = ms.Tensor(np.array([1, 0, 1], np.int32))
    return (_grad(ms, lambda x: ops.unsorted_segment_sum(x, ids, 2), _x34(ms, np)),
            _grad(ms, lambda x: ops.unsorted_segment_prod(x, ids, 2), _x34(ms, np)))
