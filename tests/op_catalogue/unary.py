"""``cellkit/ops/math.py``'s own ops beyond the four operations: exponentials and logarithms, roots,
trigonometry, rounding, extremes and clamping, and MindSpore's alternative spellings of the
arithmetic (``subtract``, ``multiply``, ``divide`` ...).

MindSpore 2.10 refuses integer tensors in ``exp``, ``log``, ``sin``, ``floor`` ... (a TypeError,
recorded as a ``Bad`` input) but computes ``sqrt`` and ``reciprocal`` of integers in Float32.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
I32 = Arr((2, 3), "int32", -3, 3)
INT_INPUT = Bad("int_input", (I32,))
SHAPES = Bad("shapes", (Arr((2, 3)), Arr((4,))))


def _samples(low=-2.0, high=2.0, away=0.0, grad=True, ints=False, bools=False):
    g = (0,) if grad else ()
    samples = [Sample((Arr((2, 3), low=low, high=high, away=away),), grad=g, label="float32"),
               Sample((Arr((4,), "float64", low, high, away),), grad=g, label="float64"),
               Sample((Arr((3,), "float16", low, high, away),), label="float16"),
               Sample((Arr((), low=low, high=high, away=away),), grad=g, label="zero_d")]
    if ints:
        samples.append(Sample((Arr((2, 3), "int32", max(int(low), -3), int(high)),), label="int32"))
        samples.append(Sample((Arr((2, 3), "int64", max(int(low), -3), int(high)),), label="int64"))
    if bools:
        samples.append(Sample((Arr((2, 3), "bool"),), label="bool"))
    return tuple(samples)


def _prim(name, *init):
    return lambda ops, *args, **kwargs: getattr(ops, name)(*init)(*args, **kwargs)


def _binary_samples(grad=(0, 1), low2=-1.9, high2=1.9):
    second = Arr((3,), low=low2, high=high2, distinct=True)
    return (
        Sample((Arr((2, 3), distinct=True), second), grad=grad, label="broadcast"),
        Sample((Arr((2, 3), "float64", distinct=True), Arr((2, 3), "float64", low2, high2, distinct=True)),
               grad=grad, label="float64"),
        Sample((Arr((2, 3), distinct=True), 0.3), grad=grad[:1], label="float_scalar"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int64", 1, 4)), label="int32_int64"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), low=low2, high=high2)), label="int_float"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3), low=low2, high=high2)), label="float16_float32"),
        Sample((Arr((), distinct=True), Arr((2, 3), low=low2, high=high2, distinct=True)), grad=grad, label="zero_d"),
    )


def _round(x, decimals=0):
    return np.round(x, decimals)


OPS = [
    OpInfo("exp", _samples(), ref=np.exp, method="exp", primitive=_prim("Exp"), bad=(INT_INPUT,)),
    OpInfo("expm1", _samples(), ref=np.expm1, method="expm1", bad=(INT_INPUT,),
           mindspore_wrong={"float16": "MindSpore 2.10 computes exp(x) - 1 in float16 on the CPU: near 0 it loses "
                                       "up to 3 ulps to cancellation (expm1(0.0781) = 0.08105, not 0.08124)"}),
    OpInfo("log", _samples(0.25, 3.0), ref=np.log, method="log", primitive=_prim("Log"), bad=(INT_INPUT,)),
    OpInfo("log1p", _samples(-0.75, 2.0), ref=np.log1p, method="log1p", bad=(INT_INPUT,)),
    OpInfo("sqrt", _samples(0.25, 3.0) + (Sample((Arr((2, 3), "int32", 0, 9),), label="int32"),
                                          Sample((Arr((2, 3), "bool"),), label="bool")),
           ref=np.sqrt, method="sqrt", primitive=_prim("Sqrt")),
    OpInfo("rsqrt", _samples(0.25, 3.0), ref=lambda x: 1 / np.sqrt(x), method="rsqrt", primitive=_prim("Rsqrt"),
           bad=(INT_INPUT,)),
    OpInfo("square", _samples(ints=True), ref=np.square, method="square", primitive=_prim("Square"),
           bad=(Bad("bool_input", (Arr((2, 3), "bool"),)),)),
    OpInfo("abs", _samples(away=0.125, ints=True, bools=True), ref=np.abs, method="abs", primitive=_prim("Abs")),
    OpInfo("reciprocal", _samples(away=0.25) + (Sample((Arr((2, 3), "int32", 1, 4),), label="int32"),),
           ref=lambda x: 1 / np.asarray(x, np.float64), method="reciprocal", primitive=_prim("Reciprocal")),
    OpInfo("sin", _samples(), ref=np.sin, method="sin", primitive=_prim("Sin"), bad=(INT_INPUT,)),
    OpInfo("cos", _samples(), ref=np.cos, method="cos", primitive=_prim("Cos"), bad=(INT_INPUT,)),
    OpInfo("floor", _samples(-3.0, 3.0, away=0.125, grad=False), ref=np.floor, method="floor",
           primitive=_prim("Floor"), bad=(INT_INPUT,)),
    OpInfo("ceil", _samples(-3.0, 3.0, away=0.125, grad=False), ref=np.ceil, method="ceil", bad=(INT_INPUT,)),
    OpInfo("round", _samples(-3.0, 3.0, grad=False) + (
        Sample((Arr((2, 3), "int32", -9, 9),), label="int32"),
        Sample((Arr((6,), low=-3.0, high=3.0),), {"decimals": 0}, label="decimals_zero")),
        ref=_round, method="round", primitive=_prim("Round")),
    OpInfo("sign", _samples(away=0.125, grad=False, ints=True), ref=np.sign, method="sign",
           bad=(Bad("bool_input", (Arr((2, 3), "bool"),)),)),
    OpInfo("maximum", _binary_samples(), ref=np.maximum, method="maximum", primitive=_prim("Maximum"),
           bad=(SHAPES,)),
    OpInfo("minimum", _binary_samples(), ref=np.minimum, method="minimum", primitive=_prim("Minimum"),
           bad=(SHAPES,)),
    OpInfo("clamp", (
        Sample((Arr((2, 3)), -0.5, 0.75), grad=(0,), label="floats"),
        Sample((Arr((2, 3)), Arr((3,), low=-1.0, high=-0.25)), grad=(0, 1), label="tensor_min"),
        Sample((Arr((2, 3)), None, Arr((2, 3), low=0.25, high=1.0)), grad=(0, 2), label="tensor_max"),
        Sample((Arr((2, 3), "int32", -5, 5), -2, 3), label="int32"),
        Sample((Arr((2, 3), "float64"), -0.5), grad=(0,), label="min_only")),
        ref=lambda x, min=None, max=None: np.clip(x, min, max), method="clamp",
        bad=(Bad("no_bounds", (F,)),)),
    OpInfo("clip", (
        Sample((Arr((2, 3)), -0.5, 0.75), grad=(0,), label="floats"),
        Sample((Arr((2, 3)), None, 0.25), grad=(0,), label="max_only")),
        ref=lambda x, min=None, max=None: np.clip(x, min, max), method="clip"),
    OpInfo("floor_div", _binary_samples(grad=(), low2=0.625, high2=2.375) + (
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), label="int32"),
        Sample((Arr((2, 3), "bool"), np.ones((2, 3), bool)), label="bool")),
        ref=np.floor_divide, primitive=_prim("FloorDiv"), bad=(SHAPES,)),
    OpInfo("floor_divide", (
        Sample((Arr((2, 3), low=-3.0, high=3.0), Arr((3,), low=0.625, high=2.375)), label="floats"),
        Sample((Arr((2, 3), "int32", -7, 7), 2), label="int_scalar")),
        ref=np.floor_divide, method="floor_divide"),
    OpInfo("remainder", (
        Sample((Arr((2, 3), low=-3.0, high=3.0, away=0.125), np.array([0.7, 1.3, -2.1], np.float32)), grad=(0, 1),
               label="broadcast"),
        Sample((Arr((2, 3), "float64", -3.0, 3.0, away=0.125), 1.7), grad=(0,), label="float_scalar"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), label="int32"),
        Sample((Arr((2, 3), "int32", -7, 7), -3), label="int_scalar"),
        Sample((Arr((2, 3), "bool"), np.ones((2, 3), bool)), label="bool")),
        ref=np.remainder, method="remainder", bad=(SHAPES,)),
    OpInfo("subtract", (
        Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3)), Arr((2, 3))), {"alpha": 2.5}, grad=(0, 1), label="alpha"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int32", -3, 3)), {"alpha": 2}, label="int_alpha")),
        ref=lambda x, y, alpha=1: x - alpha * y, method="subtract"),
    OpInfo("multiply", (
        Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), "int32", -3, 3), 2), label="int_scalar")),
        ref=np.multiply, method="multiply"),
    OpInfo("divide", (
        Sample((Arr((2, 3)), Arr((3,), low=0.5, high=2.0)), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), low=-3.0, high=3.0), Arr((3,), low=0.625, high=2.375)), {"rounding_mode": "floor"},
               label="floor"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), {"rounding_mode": "trunc"},
               label="trunc_int"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), label="int32")),
        ref=lambda x, y, rounding_mode=None: {None: np.true_divide, "floor": np.floor_divide,
                                              "trunc": lambda a, b: np.trunc(a / b).astype(np.result_type(a, b))}[
            rounding_mode](x, y),
        method="divide", bad=(Bad("rounding_mode", (F, F), {"rounding_mode": "ceil"}),)),
    OpInfo("true_divide", (
        Sample((Arr((2, 3)), Arr((3,), low=0.5, high=2.0)), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), label="int32")),
        ref=np.true_divide, method="true_divide"),
    OpInfo("negative", (
        Sample((F,), grad=(0,), label="float32"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32")),
        ref=np.negative, method="negative", bad=(Bad("bool_input", (Arr((2, 3), "bool"),)),)),
]
