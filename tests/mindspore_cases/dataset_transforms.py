"""``dataset.transforms`` (the transforms for any data) as MindSpore 2.10 computes them.

Eager calls on small NumPy arrays, a few pipelines (``NumpySlicesDataset(...).map(...)``), and
the errors MindSpore raises for bad arguments.  Random compositions run with settings that make
them deterministic (``prob=1.0``, one choice) or return only what does not depend on the draw.
"""
import importlib

from . import CaseList

CASES = CaseList()
case = CASES.case


def _tr(ms):
    return importlib.import_module(ms.__name__ + ".dataset.transforms")


def _vision(ms):
    return importlib.import_module(ms.__name__ + ".dataset.vision")


def _dataset(ms):
    return importlib.import_module(ms.__name__ + ".dataset")


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _wrap(ms, np, out):
    if isinstance(out, (tuple, list)):
        return tuple(_wrap(ms, np, o) for o in out)
    return ms.Tensor(np.asarray(out))


def _eager(name, make, inputs):
    def run(ms, ops, nn, np):
        return _wrap(ms, np, make(_tr(ms), ms, np)(*inputs(np)))
    case(_named(run, name))


def _outcome(np, out):
    if hasattr(out, "shape"):
        return ("accepted", tuple(int(s) for s in np.asarray(out).shape))
    return "accepted"


def _error(name, make):
    def run(ms, ops, nn, np):
        return _outcome(np, make(_tr(ms), ms, np))
    case(_named(run, name))


ints = lambda np: (np.array([3, 1, 2, 3, 0], np.int32),)            # noqa: E731
floats = lambda np: (np.array([[1.5, -2.25], [0.5, 4.0]], np.float32),)  # noqa: E731
labels = lambda np: (np.array([0, 2, 1], np.int64),)                 # noqa: E731
scalar_label = lambda np: (np.array(2, np.int32),)                   # noqa: E731
strings = lambda np: (np.array(["a", "bc"]),)                        # noqa: E731

_eager("type_cast_int_to_float", lambda t, ms, np: t.TypeCast(ms.float32), ints)
_eager("type_cast_float_to_int", lambda t, ms, np: t.TypeCast(ms.int32), floats)
_eager("type_cast_numpy_dtype", lambda t, ms, np: t.TypeCast(np.float16), floats)
_eager("type_cast_to_bool", lambda t, ms, np: t.TypeCast(ms.bool_), ints)
_eager("one_hot", lambda t, ms, np: t.OneHot(4), labels)
_eager("one_hot_scalar", lambda t, ms, np: t.OneHot(3), scalar_label)
_eager("one_hot_smoothing_scalar", lambda t, ms, np: t.OneHot(4, 0.2), scalar_label)


def _smoothed(np):
    out = np.full((3, 4), 0.05)
    out[[0, 1, 2], [0, 2, 1]] = 0.85
    return out


@case(mindspore_wrong=True, expected=_smoothed,
      note="MindSpore 2.10's OneHot with smoothing_rate on a 1-D label array smooths every row but sets the "
           "hot value only in the last row (the others stay all smoothing_rate / num_classes)")
def one_hot_smoothing(ms, ops, nn, np):
    return ms.Tensor(_tr(ms).OneHot(4, 0.2)(np.array([0, 2, 1], np.int64)))


_eager("pad_end", lambda t, ms, np: t.PadEnd([7], 9), ints)
_eager("pad_end_cut", lambda t, ms, np: t.PadEnd([3]), ints)
_eager("pad_end_2d", lambda t, ms, np: t.PadEnd([3, 3], -1.0), floats)


@case
def pad_end_strings(ms, ops, nn, np):
    return [str(s) for s in _tr(ms).PadEnd([4], "x")(np.array(["a", "bc"]))]


_eager("fill", lambda t, ms, np: t.Fill(7), ints)
_eager("fill_float", lambda t, ms, np: t.Fill(0.5), floats)
_eager("concatenate", lambda t, ms, np: t.Concatenate(0, np.array([9, 8], np.int32), np.array([7], np.int32)), ints)
_eager("concatenate_plain", lambda t, ms, np: t.Concatenate(), lambda np: (np.array([1, 2]),))
_eager("duplicate", lambda t, ms, np: t.Duplicate(), ints)
_eager("mask_greater", lambda t, ms, np: t.Mask(t.Relational.GT, 1), ints)
_eager("mask_equal_int_dtype", lambda t, ms, np: t.Mask(t.Relational.EQ, 3, ms.int32), ints)
_eager("mask_le_float", lambda t, ms, np: t.Mask(t.Relational.LE, 0.5), floats)
_eager("slice_int", lambda t, ms, np: t.Slice(1), ints)
_eager("slice_object", lambda t, ms, np: t.Slice(slice(1, 4, 2)), ints)
_eager("slice_list", lambda t, ms, np: t.Slice([0, 3, 4]), ints)
_eager("slice_2d", lambda t, ms, np: t.Slice(1, slice(0, 1)), floats)
_eager("slice_ellipsis", lambda t, ms, np: t.Slice(Ellipsis), ints)
_eager("unique", lambda t, ms, np: t.Unique(), lambda np: (np.array([[3, 1, 2], [3, 0, 1]], np.int32),))
_eager("unique_3d", lambda t, ms, np: t.Unique(), lambda np: (np.array([[[3.5, 1.0]], [[3.5, 2.0]]], np.float32),))
_eager("compose_two", lambda t, ms, np: t.Compose([t.PadEnd([6], 0), t.TypeCast(ms.float32)]), ints)
_eager("compose_vision",
       lambda t, ms, np: t.Compose([_vision(ms).Rescale(0.5, 1.0), _vision(ms).HWC2CHW()]),
       lambda np: (np.arange(12, dtype=np.uint8).reshape(2, 2, 3),))
_eager("compose_python_function", lambda t, ms, np: t.Compose([lambda x: x * 2, t.TypeCast(ms.int64)]), ints)
_eager("random_apply_p1", lambda t, ms, np: t.RandomApply([t.Fill(1), t.TypeCast(ms.float32)], 1.0), ints)
_eager("random_apply_p0", lambda t, ms, np: t.RandomApply([t.Fill(1)], 0.0), ints)
_eager("random_choice_one", lambda t, ms, np: t.RandomChoice([t.Fill(4)]), ints)
_eager("random_order_one", lambda t, ms, np: t.RandomOrder([t.PadEnd([6], 1)]), ints)


@case
def random_choice_gives_one_of(ms, ops, nn, np):
    t = _tr(ms)
    out = t.RandomChoice([t.Fill(4), t.Fill(5)])(np.zeros(3, np.int32))
    return int(out[0]) in (4, 5) and len(set(out.tolist())) == 1


@case
def random_order_same_multiset(ms, ops, nn, np):
    t = _tr(ms)
    out = t.RandomOrder([t.TypeCast(ms.float32), t.PadEnd([4], 0)])(np.array([1, 2], np.int32))
    return ms.Tensor(out)


@case
def pipeline_one_hot_type_cast(ms, ops, nn, np):
    ds = _dataset(ms)
    t = _tr(ms)
    data = ds.NumpySlicesDataset({"label": np.array([0, 1, 2, 1], np.int32)}, shuffle=False)
    data = data.map([t.OneHot(3), t.TypeCast(ms.float32)], "label").batch(3)
    return [ms.Tensor(row[0]) for row in data.create_tuple_iterator(output_numpy=True)]


@case
def pipeline_duplicate_output_columns(ms, ops, nn, np):
    ds = _dataset(ms)
    t = _tr(ms)
    data = ds.NumpySlicesDataset({"x": np.arange(3, dtype=np.int32)}, shuffle=False)
    data = data.map(t.Duplicate(), "x", ["x", "y"])
    return (data.get_col_names(), [[ms.Tensor(v) for v in row] for row in data.create_tuple_iterator(output_numpy=True)])


@case
def pipeline_compose_pad_end_batch(ms, ops, nn, np):
    ds = _dataset(ms)
    t = _tr(ms)
    rows = [np.arange(n, dtype=np.int64) for n in (1, 3, 2)]
    data = ds.GeneratorDataset(lambda: ((r,) for r in rows), ["x"], shuffle=False)
    data = data.map(t.Compose([t.PadEnd([4], -1), t.TypeCast(ms.int32)]), "x").batch(2)
    return [ms.Tensor(row[0]) for row in data.create_tuple_iterator(output_numpy=True)]


_error("type_cast_bad", lambda t, ms, np: t.TypeCast("float33"))
_error("one_hot_zero_classes", lambda t, ms, np: t.OneHot(0))
_error("one_hot_bad_smoothing", lambda t, ms, np: t.OneHot(3, 1.5))
_error("one_hot_label_too_big", lambda t, ms, np: t.OneHot(2)(np.array([3], np.int32)))
_error("one_hot_float_label", lambda t, ms, np: t.OneHot(2)(np.array([1.0], np.float32)))
_error("pad_end_bad_shape", lambda t, ms, np: t.PadEnd(3))
_error("pad_end_rank_mismatch", lambda t, ms, np: t.PadEnd([3, 3])(np.arange(2)))
_error("fill_bad_value", lambda t, ms, np: t.Fill([1]))
_error("concatenate_bad_axis", lambda t, ms, np: t.Concatenate(1.5))
_error("compose_empty", lambda t, ms, np: t.Compose([]))
_error("compose_not_callable", lambda t, ms, np: t.Compose([1]))
_error("random_apply_bad_prob", lambda t, ms, np: t.RandomApply([t.Fill(1)], 2.0))
_error("random_choice_empty", lambda t, ms, np: t.RandomChoice([]))
_error("mask_bad_operator", lambda t, ms, np: t.Mask("==", 1))
_error("slice_bad", lambda t, ms, np: t.Slice("a"))
_error("unique_1d", lambda t, ms, np: t.Unique()(np.array([1, 2, 1], np.int32)))
