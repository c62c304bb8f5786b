"""Creating tensors: filled tensors, ranges, identity and triangle indices, one-hot and sequence masks, casts.

A dtype argument cannot be a sample value (the catalogue imports neither MindSpore nor cellkit),
so the samples that pass one are in ``CALLS``, naming the dtype by its attribute name
(``'int32'`` -> ``ms.int32``).  One-hot with Tensor on/off values and cast are differentiable.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample
from ._calls import CallInfo, grad_twin

F = Arr((2, 3))
I64 = "int64"
I32 = "int32"


def _i(values, dtype=I64):
    return np.asarray(values, dtype=dtype)


def _f(value, dtype="float32"):
    return np.asarray(value, dtype=dtype)


def _one_hot_ref(indices, depth, on_value=1, off_value=0, axis=-1):
    hot = np.expand_dims(indices, axis) == np.arange(depth).reshape(
        [-1 if d == axis % (indices.ndim + 1) else 1 for d in range(indices.ndim + 1)])
    return np.where(hot, on_value, off_value)


OPS = [
    OpInfo("ones", (Sample(((2, 3),), label="tuple"), Sample((3,), label="int"), Sample(((),), label="zero_d")),
           ref=lambda shape: np.ones(shape, np.float32), bad=(Bad("negative", ((2, -1),)), Bad("float", ((2.5,),))),
           mindspore_wrong={"zero_d": "MindSpore 2.10 (CPU) raises TypeError ('Select CPU operator[Ones] fail! "
                                      "Unsupported data type!') for the empty shape (); a 0-D tensor of 1.0 is meant"}),
    OpInfo("zeros", (Sample(((2, 3),), label="tuple"), Sample(([1, 2],), label="list")),
           ref=lambda shape: np.zeros(shape, np.float32)),
    OpInfo("ones_like", (Sample((F,),), Sample((Arr((2,), I32, 0, 3),), label="int32"),
                         Sample((Arr((2,), "bool"),), label="bool")),
           ref=np.ones_like, primitive=lambda ops, x: ops.OnesLike()(x)),
    OpInfo("zeros_like", (Sample((F,),), Sample((Arr((2,), I64, 0, 3),), label="int")),
           ref=np.zeros_like, primitive=lambda ops, x: ops.ZerosLike()(x)),
    OpInfo("full", (Sample(((2, 3), 1.5), label="float"), Sample(((2,), 7), label="int"),
                    Sample(((2,), True), label="bool")),
           bad=(Bad("string", ((2,), "a")),)),
    OpInfo("full_like", (Sample((F, 2.5), label="float"), Sample((Arr((2,), I32, 0, 3), 7), label="int32"),
                         Sample((Arr((2,), I64, 0, 3), 2.7), label="int_truncates")),
           ref=lambda x, v: np.full_like(x, v)),
    OpInfo("arange", (
        Sample((5,), label="end"),
        Sample((1, 7, 2), label="ints"),
        Sample((0.5, 2.0, 0.5), label="floats"),
        Sample((7, 1, -2), label="negative_step"),
        Sample((1, 2.5), label="mixed"),
    ), ref=lambda *a: np.arange(*a).astype(np.int64 if all(isinstance(v, int) for v in a) else np.float32),
        bad=(Bad("zero_step", (0, 3, 0)),)),
    OpInfo("eye", (Sample((2,), label="square"), Sample((2, 3), label="wide")),
           ref=lambda n, m=None: np.eye(n, m, dtype=np.float32), bad=(Bad("negative", (-1,)),)),
    OpInfo("range", (
        Sample((_i(1), _i(7), _i(2)), label="int_tensors"),
        Sample((_f(1.0), _f(2.0), _f(0.25)), label="float_tensors"),
        Sample((_i(1, I32), _i(7, I32), _i(2, I32)), label="int32_tensors"),
        Sample((_i(7), _i(1), _i(-2)), label="negative_step"),
        Sample((1, 7, 2), label="python_ints"),
    ), bad=(Bad("mixed", (_i(1), _f(7.0), _i(2))),)),
    OpInfo("linspace", (
        Sample((1, 10, 4), label="numbers"),
        Sample((_f(1.0), _f(10.0), 4), label="tensors"),
        Sample((_f(1.0, "float64"), _f(10.0, "float64"), 3), label="float64"),
        Sample((1, 10, _i(3)), label="tensor_steps"),
        Sample((0.5, 0.5, 1), label="one_step"),
    ), ref=lambda a, b, n: np.linspace(a, b, n), bad=(Bad("int_tensor", (_i(1, I32), 10.0, 1)),)),
    OpInfo("logspace", (
        Sample((_f(1.0), _f(3.0), 3), label="base10"),
        Sample((_f(0.0), _f(2.0), 3, 2), label="base2"),
        Sample((1.0, 3.0, 3), label="numbers"),
    ), ref=lambda a, b, n, base=10: np.logspace(a, b, n, base=base), rtol=1e-5, atol=1e-4),
    OpInfo("tuple_to_array", (
        Sample(((1, 2, 3),), label="ints"),
        Sample(((1.0, 2, 3),), label="floats"),
        Sample((((1, 2), (3, 4)),), label="nested"),
    ), primitive=lambda ops, x: ops.TupleToArray()(x)),
    OpInfo("scalar_to_tensor", (Sample((1,), label="int"), Sample((2.5,), label="float"),
                                Sample((True,), label="bool")),
           primitive=lambda ops, x: ops.ScalarToTensor()(x)),
    OpInfo("tril_indices", (Sample((3, 4, 1), label="above"), Sample((3, 3), label="square"),
                            Sample((0, 4), label="empty")),
           ref=lambda r, c, k=0: np.stack(np.tril_indices(r, k, c))),
    OpInfo("triu_indices", (Sample((3, 4, -1), label="below"), Sample((2, 2), label="square")),
           ref=lambda r, c, k=0: np.stack(np.triu_indices(r, k, c))),
    OpInfo("one_hot", (
        Sample((_i([0, 2, 1]), 3), label="default_int"),
        Sample((_i([0, 2, 1], I32), 3, _f(5.0), _f(-1.0), 0), label="tensor_values_axis0"),
        Sample((_i([0, 2, -1, 5]), 3, 2, 0), label="out_of_range"),
        Sample((_i([[0, 2]]), 3, 1.5, 0.5), label="float_numbers"),
    ), ref=_one_hot_ref, primitive=lambda ops, i, depth, on=1, off=0, axis=-1: ops.OneHot(axis)(i, depth, on, off)
        if hasattr(on, "shape") else ops.one_hot(i, depth, on, off, axis),
        bad=(Bad("float_indices", (Arr((2,)), 3)),)),
    OpInfo("sequence_mask", (
        Sample((_i([1, 3, 0]), 4), label="maxlen"),
        Sample((_i([[1, 3], [2, 0]]),), label="inferred"),
        Sample((_i([1, 3], I32),), label="int32"),
    ), ref=lambda lengths, maxlen=None: np.arange(lengths.max() if maxlen is None else maxlen) < lengths[..., None],
        bad=(Bad("float", (Arr((2,)), 3)),)),
]


def _dt(ms, name):
    return getattr(ms, name)


CALLS = [
    grad_twin("one_hot", (Sample((_i([0, 2, 1], I32), 3, _f(5.0), _f(-1.0), 0), grad=(2, 3), label="tensor_values"),
                          Sample((_i([[1, 0]]), 2, _f(0.5), _f(2.0)), grad=(2, 3), label="tensor_values_last")),
              "MindSpore's gradient for Tensor on_value / off_value is 0 (it is the sum of the gradient where each "
              "is placed)"),
    CallInfo("ones_dtype", (Sample(((2, 2), "int32"), label="int32"), Sample((3, "bool_"), label="bool")),
             call=lambda ms, ops, shape, dt: ops.ones(shape, _dt(ms, dt))),
    CallInfo("zeros_dtype", (Sample(((2, 2), "float64"), label="float64"),),
             call=lambda ms, ops, shape, dt: ops.zeros(shape, _dt(ms, dt))),
    CallInfo("full_dtype", (Sample(((2,), 2.7, "int32"), label="int32_truncates"),),
             call=lambda ms, ops, shape, v, dt: ops.full(shape, v, dtype=_dt(ms, dt))),
    CallInfo("ones_like_dtype", (Sample((F, "int64"), label="int64"),),
             call=lambda ms, ops, x, dt: ops.ones_like(x, dtype=_dt(ms, dt))),
    CallInfo("arange_dtype", (Sample((0, 3, 1, "float64"), label="float64"),),
             call=lambda ms, ops, a, b, c, dt: ops.arange(a, b, c, dtype=_dt(ms, dt))),
    CallInfo("eye_dtype", (Sample((2, 3, "int32"), label="int32"),),
             call=lambda ms, ops, n, m, dt: ops.eye(n, m, _dt(ms, dt))),
    CallInfo("fill", (Sample(("float32", (2, 3), 1.5), label="float"), Sample(("int32", (2,), 4), label="int32")),
             call=lambda ms, ops, dt, shape, v: ops.fill(_dt(ms, dt), shape, v)),
    CallInfo("cast", (
        Sample((F, "float64"), grad=(0,), label="float64"),
        Sample((F, "float16"), label="float16"),
        Sample((Arr((3,), low=-2.5, high=2.5), "int32"), label="to_int32"),
        Sample((Arr((3,), I64, -2, 2), "bool_"), label="to_bool"),
        Sample((Arr((3,), "bool"), "float32"), label="from_bool"),
    ), call=lambda ms, ops, x, dt: ops.cast(x, _dt(ms, dt)), ref=lambda x, dt: x.astype(dt)),
    CallInfo("Cast", (Sample((F, "float64"), grad=(0,), label="float64"),),
             call=lambda ms, ops, x, dt: ops.Cast()(x, _dt(ms, dt))),
    CallInfo("Ones", (Sample(((2, 3), "float32"), label="float32"),),
             call=lambda ms, ops, shape, dt: ops.Ones()(shape, _dt(ms, dt))),
    CallInfo("Zeros", (Sample(((2, 3), "int32"), label="int32"),),
             call=lambda ms, ops, shape, dt: ops.Zeros()(shape, _dt(ms, dt))),
    CallInfo("Fill", (Sample(("float32", (2, 3), 1.5), label="float"),),
             call=lambda ms, ops, dt, shape, v: ops.Fill()(_dt(ms, dt), shape, v)),
    CallInfo("Eye", (Sample((2, 3, "int32"), label="int32"),),
             call=lambda ms, ops, n, m, dt: ops.Eye()(n, m, _dt(ms, dt))),
    CallInfo("FillV2", (Sample(((2, 3), _f(1.5)), label="tuple"), Sample((_i([2, 3]), _i(2, I32)), label="tensor")),
             call=lambda ms, ops, shape, v: ops.FillV2()(shape, v)),
    CallInfo("LinSpace", (Sample((_f(1.0), _f(10.0), 4), label="tensors"),),
             call=lambda ms, ops, a, b, n: ops.LinSpace()(a, b, n)),
    CallInfo("LogSpace", (Sample((_f(1.0), _f(3.0)), label="base2"),
                          Sample((_f(1.0, "float16"), _f(3.0, "float16"), "float16"), label="float16")),
             call=lambda ms, ops, a, b, dt="float32": ops.LogSpace(3, 2, _dt(ms, dt))(a, b)),
    CallInfo("logspace_dtype", (Sample((_f(1.0), _f(3.0), 3, 2, "float64"), label="float64"),),
             call=lambda ms, ops, a, b, n, base, dt: ops.logspace(a, b, n, base, dtype=_dt(ms, dt)),
             bad=(Bad("int_dtype", (_f(1.0), _f(3.0), 3, 2, "int32")),)),
    CallInfo("scalar_to_tensor_dtype", (Sample((1.5, "int32"), label="int32"),),
             call=lambda ms, ops, x, dt: ops.scalar_to_tensor(x, _dt(ms, dt))),
    CallInfo("ScalarToTensor_dtype", (Sample((3, "int64"), label="int64"),),
             call=lambda ms, ops, x, dt: ops.ScalarToTensor()(x, _dt(ms, dt))),
    CallInfo("triu_indices_dtype", (Sample((3, 4, -1, "int32"), label="int32"),),
             call=lambda ms, ops, r, c, k, dt: ops.triu_indices(r, c, k, dtype=_dt(ms, dt))),
    CallInfo("TrilIndices", (Sample((3, 2, 0), label="int32"),), call=lambda ms, ops, *a: ops.TrilIndices(*a)()),
    CallInfo("TriuIndices", (Sample((3, 2, 0, "int64"), label="int64"),),
             call=lambda ms, ops, r, c, k, dt: ops.TriuIndices(r, c, k, _dt(ms, dt))()),
    CallInfo("RaggedRange", (
        Sample((_i([2, 5, 8], I32), _i([3, 5, 12], I32), _i([1, 1, 1], I32), "int64"), label="ints"),
        Sample((_f([0.0, 1.0]), _f([2.0, 2.5]), _f([0.5, 0.5]), "int32"), label="floats"),
    ), call=lambda ms, ops, a, b, d, dt: ops.RaggedRange(_dt(ms, dt))(a, b, d),
        bad=(Bad("shapes", (_i([2, 5, 8], I32), _i([3, 5, 12], I32), _i([1], I32), "int64")),)),
]
