"""Elementwise math beyond the four operations (``cellkit/ops/elementwise.py``).

Trigonometry, logarithms and powers; the special functions (SciPy is the reference, and their
values stay away from poles and branch cuts); rounding, signs and remainders (divisors keep away
from zero, quotients from integers, so no finite difference straddles a step); ops of several
operands; bits and integers; Python-scalar ops and MindSpore's composite spellings.

The float-only functions carry a ``Bad`` integer input: MindSpore refuses it with a TypeError.
"""
import numpy as np
import scipy.special as sc

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
F16 = Arr((2, 3), "float16")
I32 = Arr((2, 3), "int32", -3, 3)
INT_INPUT = Bad("int_input", (I32,))
STRING_INPUT = Bad("string_input", ("abc",))
SPECIAL_RTOL = 1e-4   # MindSpore's float32 kernels and SciPy's differ in the last digits


def _unary(low=-2.0, high=2.0, away=0.0, f16=True, f64=True, grad=True):
    """Samples of a float-only unary function over ``[low, high]``."""
    g = (0,) if grad else ()
    samples = [Sample((Arr((2, 3), low=low, high=high, away=away),), grad=g, label="float32")]
    if f64:
        samples.append(Sample((Arr((4,), "float64", low, high, away),), grad=g, label="float64"))
    if f16:
        samples.append(Sample((Arr((3,), "float16", low, high, away),), label="float16"))
    samples.append(Sample((Arr((), low=low, high=high, away=away),), grad=g, label="zero_d"))
    return tuple(samples)


def _float_unary(name, ref, low=-2.0, high=2.0, away=0.0, method=True, primitive=None, f16=True, grad=True,
                 rtol=1e-5, atol=1e-6, **kwargs):
    method = name if method is True else (method or None)
    return OpInfo(name, _unary(low, high, away, f16=f16, grad=grad), ref=ref, method=method,
                  primitive=primitive, bad=(INT_INPUT, STRING_INPUT), rtol=rtol, atol=atol, **kwargs)


def _binary(low=-2.0, high=2.0, low2=None, high2=None, away=0.0, away2=None, grad=(0, 1), ints=False,
            f16=True, scalar=2.5, int_float=True):
    """Samples of a binary function: broadcasting, float64, float16, int with float, a Python scalar, 0-d."""
    low2 = low if low2 is None else low2
    high2 = high if high2 is None else high2
    away2 = away if away2 is None else away2
    first = Arr((2, 3), low=low, high=high, away=away)
    second = Arr((3,), low=low2, high=high2, away=away2)
    samples = [
        Sample((first, second), grad=grad, label="broadcast"),
        Sample((Arr((2, 3), "float64", low, high, away), Arr((2, 3), "float64", low2, high2, away2)), grad=grad,
               label="float64"),
        Sample((Arr((), low=low, high=high, away=away), Arr((2, 3), low=low2, high=high2, away=away2)), grad=grad,
               label="zero_d"),
    ]
    if scalar is not None:
        samples.append(Sample((first, scalar), grad=grad[:1], label="float_scalar"))
    if f16:
        samples.append(Sample((Arr((2, 3), "float16", low, high, away), Arr((2, 3), "float16", low2, high2, away2)),
                              label="float16"))
    if int_float:
        samples.append(Sample((Arr((2, 3), "int32", max(int(low), -3), int(high)),
                               Arr((2, 3), low=low2, high=high2, away=away2)), label="int_float"))
    if ints:
        samples.append(Sample((Arr((2, 3), "int32", -5, 5), Arr((2, 3), "int32", 1, 4)), label="int32"))
        samples.append(Sample((Arr((2, 3), "int64", -5, 5), 3), label="int64_scalar"))
    return tuple(samples)


SHAPES = Bad("shapes", (Arr((2, 3)), Arr((4,))))

# Divisors off the 1/64 grid the sample values lie on: no quotient is an integer, so no finite
# difference straddles a jump of a remainder; one is negative (the sign rules differ there).
DIVISORS = np.array([0.7, 1.3, -2.1], np.float32)
DIVISORS64 = np.array([[0.7, 1.3, -2.1], [-0.9, 1.7, 2.3]])


def _remainder_samples(int64=True):
    samples = (
        Sample((Arr((2, 3), low=-3.0, high=3.0), DIVISORS), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), "float64", -3.0, 3.0), DIVISORS64), grad=(0, 1), label="float64"),
        Sample((Arr((2, 3), low=-3.0, high=3.0), 1.7), grad=(0,), label="float_scalar"),
        Sample((Arr((), low=-3.0, high=3.0), DIVISORS), grad=(0, 1), label="zero_d"),
        Sample((Arr((2, 3), "float16", -3.0, 3.0), Arr((2, 3), "float16", 0.625, 2.375)), label="float16"),
        Sample((Arr((2, 3), "int32", -3, 3), DIVISORS), label="int_float"),
        Sample((Arr((2, 3), "int32", -7, 7), np.array([[2, -3, 4], [3, 2, -2]], np.int32)), label="int32"),
    )
    if int64:
        samples += (Sample((Arr((2, 3), "int64", -7, 7), 3), label="int64_scalar"),)
    return samples


def _prim(name, *init):
    return lambda ops, *args, **kwargs: getattr(ops, name)(*init)(*args, **kwargs)


# --- references ---------------------------------------------------------------------------------------------
def _logit(x, eps=None):
    if eps is not None and eps >= 0:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _xlogy(x, y):
    """``x * log(y)``, and 0 wherever ``x`` is 0 (as MindSpore's Xlogy documentation says)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y)))
    return out.astype(np.result_type(x, y, np.float32))


def _xdivy(x, y):
    with np.errstate(divide="ignore"):
        return np.where(x == 0, 0.0, x / np.where(x == 0, 1.0, y)).astype(np.result_type(x, y))


def _trunc_div(x, y):
    if np.result_type(x, y).kind == "f":
        return np.trunc(np.true_divide(x, y))
    q = np.floor_divide(x, y)
    return np.where((x - q * y != 0) & ((x < 0) != (y < 0)), q + 1, q)


def _popcount(x):
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]
    return np.bitwise_count(x.view(unsigned)).astype(np.uint8)


def _mvlgamma(x, p):
    return p * (p - 1) / 4 * np.log(np.pi) + sum(sc.gammaln(x - j / 2) for j in range(p))


def _sinc(x):
    if x.dtype.kind == "f":
        return np.sinc(x)
    scaled = x.astype(np.float32) * np.float32(np.pi)   # integers compute in float32, as cellkit and MindSpore do
    return np.where(x == 0, np.float32(1), np.sin(scaled) / np.where(x == 0, np.float32(1), scaled))


def _frac(x):
    if x.dtype.kind == "f":
        return x - np.trunc(x)
    return np.zeros(x.shape, np.int64 if x.dtype == bool else x.dtype)


def _nan_to_num(x, nan=None, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def _lerp(start, end, weight):
    return start + weight * (end - start)


def _addcdiv(x, t1, t2, value=1):
    if x.dtype.kind != "f":  # integer tensors divide as integers, rounding towards zero (as MindSpore)
        return x + value * _trunc_div(t1, t2)
    return x + value * t1 / t2


def _addcmul(x, t1, t2, value=1):
    return x + value * t1 * t2


def _polygamma(n, x):
    return sc.polygamma(int(n), x)


# --- values -------------------------------------------------------------------------------------------------
UNIT = dict(low=-0.875, high=0.875)            # inside (-1, 1): asin, acos, atanh, erfinv
POSITIVE = dict(low=0.5, high=3.0)             # logarithms, gamma family, K and Y Bessel functions
NUMBER_WITH_SPECIALS = Arr((6,), "float32")    # materialised, then NaN / inf placed by the sample's own values


def _specials():
    return np.array([np.nan, np.inf, -np.inf, 1.5, -0.0, 2.0], dtype=np.float32)


OPS = [
    # --- trigonometry, hyperbolic functions -------------------------------------------------------------------
    _float_unary("tan", np.tan, -1.25, 1.25, primitive=_prim("Tan")),
    _float_unary("cosh", np.cosh),
    _float_unary("sinh", np.sinh),
    _float_unary("asin", np.arcsin, **UNIT),
    _float_unary("acos", np.arccos, **UNIT),
    _float_unary("atan", np.arctan),
    _float_unary("arcsin", np.arcsin, **UNIT),
    _float_unary("arccos", np.arccos, **UNIT),
    _float_unary("arctan", np.arctan),
    _float_unary("asinh", np.arcsinh),
    _float_unary("acosh", np.arccosh, 1.25, 3.0),
    _float_unary("atanh", np.arctanh, **UNIT),
    _float_unary("arcsinh", np.arcsinh),
    _float_unary("arccosh", np.arccosh, 1.25, 3.0),
    _float_unary("arctanh", np.arctanh, **UNIT),
    OpInfo("atan2", _binary(away=0.25), ref=np.arctan2, method="atan2", bad=(SHAPES,
           Bad("int_input", (I32, Arr((2, 3), "int32", 1, 3))))),
    OpInfo("arctan2", _binary(away=0.25)[:3], ref=np.arctan2, method="arctan2"),
    OpInfo("hypot", _binary(away=0.25, f16=False), ref=np.hypot, method="hypot", primitive=_prim("Hypot"),
           bad=(SHAPES,)),
    _float_unary("deg2rad", np.deg2rad, -200.0, 200.0),
    _float_unary("rad2deg", np.rad2deg),
    OpInfo("sinc", _unary(away=0.125) + (
        Sample((np.array([[1, -2, 3], [-3, 2, 5]], np.int32),), label="int32"),), ref=_sinc, method="sinc"),
    OpInfo("exp2", _unary() + (Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
                               Sample((Arr((2, 3), "bool"),), label="bool")), ref=np.exp2),
    _float_unary("log2", np.log2, **POSITIVE, method="log2", mindspore_wrong={
        "float16": "MindSpore 2.10's CPU log2 of float16 is 1-2 ulps off the correctly rounded value "
                   "(log2(1.797) = 0.8452, not 0.8457); cellkit gives NumPy's correctly rounded float16"}),
    _float_unary("log10", np.log10, **POSITIVE, method="log10", mindspore_wrong={
        "float16": "MindSpore 2.10's CPU log10 of float16 is 1 ulp off the correctly rounded value "
                   "(log10(2.797) = 0.4465, not 0.4468); cellkit gives NumPy's correctly rounded float16"}),
    OpInfo("logaddexp", _binary(scalar=None, int_float=False), ref=np.logaddexp, method="logaddexp",
           bad=(SHAPES, Bad("int_input", (I32, Arr((2, 3), "int32", 1, 3)))), mindspore_wrong={
               "float16": "MindSpore 2.10's CPU logaddexp of float16 is 1 ulp off the correctly rounded value "
                          "(-0.978 for -0.9777); cellkit gives NumPy's correctly rounded float16"}),
    OpInfo("logaddexp2", _binary(scalar=None, int_float=False), ref=np.logaddexp2, method="logaddexp2",
           mindspore_wrong={"float16": "MindSpore 2.10's CPU logaddexp2 of float16 is 1-2 ulps off the correctly "
                                       "rounded value (1.334 for 1.3349); cellkit gives NumPy's correctly rounded "
                                       "float16"}),
    OpInfo("logit", _unary(0.125, 0.875) + (
        Sample((Arr((2, 3), low=0.0, high=1.0),), {"eps": 0.2}, grad=(0,), label="eps"),
        Sample((Arr((2, 3), low=0.125, high=0.875),), {"eps": -1.0}, label="negative_eps")),
        ref=_logit, method="logit", primitive=lambda ops, x, eps=None: ops.Logit(-1.0 if eps is None else eps)(x),
        bad=(INT_INPUT,)),
    OpInfo("xlogy", (
        Sample((Arr((2, 3), low=0.5, high=2.0), Arr((3,), low=0.5, high=2.0)), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), "float64", -2.0, 2.0, away=0.25), Arr((2, 3), "float64", 0.5, 2.0)), grad=(0, 1),
               label="float64"),
        Sample((Arr((2, 3), low=0.5, high=2.0), 2.5), grad=(0,), label="float_scalar"),
        Sample((Arr((2, 3), "int32", 0, 3), Arr((2, 3), low=0.5, high=2.0)), label="int_float"),
        # (False, False) is left out here: MindSpore gives NaN there (ops_elementwise_extra's xlogy cases)
        Sample((np.array([[False, True, False], [True, True, False]]), np.array([[True, True, True], [True, False, True]])),
               label="bool"),
        Sample((Arr((2, 3), "int32", -3, 3), 2), label="int_scalar")),
        ref=_xlogy, method="xlogy", primitive=_prim("Xlogy"), bad=(SHAPES,)),
    OpInfo("xdivy", (
        Sample((Arr((2, 3)), Arr((3,), low=0.5, high=2.0)), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), "float64"), Arr((2, 3), "float64", 0.5, 2.0)), grad=(0, 1), label="float64"),
        Sample((Arr((2, 3)), 2.5), grad=(0,), label="float_scalar"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), low=0.5, high=2.0)), label="int_float"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3), "float16", 0.5, 2.0)), label="float16"),
        Sample((np.array([0.0, 0.0, 1.5], np.float32), np.array([0.0, 2.0, 0.0], np.float32)), label="zero_input")),
        ref=_xdivy, method="xdivy", primitive=_prim("Xdivy"),
        bad=(SHAPES, Bad("int_input", (I32, Arr((2, 3), "int32", 1, 3))))),
    OpInfo("float_power", (
        Sample((Arr((2, 3), low=0.5, high=2.0), Arr((3,))), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int32", 0, 3)), label="int32"),
        Sample((Arr((2, 3), low=0.5, high=2.0), 2), grad=(0,), label="int_exponent"),
        Sample((2.0, Arr((2, 3))), grad=(1,), label="scalar_base"),
        Sample((Arr((2, 3), "float16", 0.5, 2.0), Arr((2, 3), "float16")), label="float16")),
        ref=lambda a, b: np.power(np.asarray(a, np.float64), b), method="float_power",
        bad=(Bad("two_numbers", (2.0, 3.0)),)),
    OpInfo("float_power_ext", (
        Sample((Arr((2, 3), low=0.5, high=2.0), Arr((3,))), grad=(0, 1), label="broadcast"),
        Sample((2, Arr((2, 3))), grad=(1,), label="scalar_base")),
        ref=lambda a, b: np.power(np.asarray(a, np.float64), b)),
    OpInfo("ldexp", (
        Sample((Arr((2, 3)), Arr((3,), "int32", -2, 3)), grad=(0,), label="int_exponent"),
        Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1), label="float_exponent"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int32", -2, 3)), label="int32"),
        Sample((Arr((2, 3), "float64"), 2), grad=(0,), label="int_scalar"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3), "float16")), label="float16")),
        ref=lambda x, other: x * np.power(2.0, other), method="ldexp", bad=(SHAPES,)),
    OpInfo("inv", (
        Sample((Arr((2, 3), away=0.25),), grad=(0,), label="float32"),
        Sample((Arr((4,), "float64", away=0.25),), grad=(0,), label="float64"),
        Sample((Arr((2, 3), "int32", 1, 4),), label="int32")),
        ref=lambda x: 1 / x if x.dtype.kind == "f" else np.floor_divide(1, x), method="inv",
        primitive=_prim("Inv"), bad=(Bad("bool_input", (Arr((2, 3), "bool"),)),)),
    OpInfo("absolute", (
        Sample((Arr((2, 3), away=0.125),), grad=(0,), label="float32"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool")),
        ref=np.abs, method="absolute"),
    OpInfo("positive", (
        Sample((F,), grad=(0,), label="float32"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool")),
        ref=lambda x: x, method="positive"),

    # --- special functions ------------------------------------------------------------------------------------
    _float_unary("erf", sc.erf, rtol=SPECIAL_RTOL),
    _float_unary("erfc", sc.erfc, rtol=SPECIAL_RTOL),
    _float_unary("erfinv", sc.erfinv, **UNIT, rtol=SPECIAL_RTOL),
    OpInfo("lgamma", _unary(**POSITIVE) + (Sample((Arr((2, 3), low=-2.75, high=-0.25, away=0.25),), grad=(0,),
                                                  label="negative"),
                                           Sample((Arr((2, 3), "int32", 1, 4),), label="int32")),
           ref=sc.gammaln, method="lgamma", primitive=_prim("Lgamma"), rtol=SPECIAL_RTOL, atol=1e-5),
    _float_unary("digamma", sc.psi, **POSITIVE, primitive=_prim("Digamma"), rtol=SPECIAL_RTOL, atol=1e-5),
    OpInfo("polygamma", (
        Sample((Arr((), "int64", 1, 1), Arr((2, 3), low=0.5, high=3.0)), grad=(1,), label="n1"),
        Sample((Arr((), "int64", 0, 0), Arr((2, 3), low=0.5, high=3.0)), grad=(1,), label="n0"),
        Sample((Arr((), "int32", 2, 2), Arr((4,), "float64", 0.5, 3.0)), grad=(1,), label="n2_float64"),
        Sample((Arr((), "int64", 3, 3), Arr((3,), "float16", 0.75, 3.0)), label="n3_float16")),
        ref=_polygamma, primitive=_prim("Polygamma"), rtol=SPECIAL_RTOL, atol=1e-4,
        bad=(Bad("python_n", (1, Arr((2, 3), low=0.5, high=3.0))),
             Bad("vector_n", (Arr((2,), "int64", 1, 2), Arr((2, 3), low=0.5, high=3.0))),
             Bad("int_input", (Arr((), "int64", 1, 1), I32)))),
    OpInfo("mvlgamma", (
        Sample((Arr((2, 3), low=1.5, high=3.0), 2), grad=(0,), label="p2"),
        Sample((Arr((4,), "float64", 2.0, 3.0), 3), grad=(0,), label="p3_float64"),
        Sample((Arr((2, 3), low=1.0, high=3.0), 1), grad=(0,), label="p1")),
        ref=_mvlgamma, method="mvlgamma", primitive=lambda ops, x, p: ops.Mvlgamma(p)(x), rtol=SPECIAL_RTOL,
        atol=1e-5,
        bad=(Bad("too_small", (Arr((2, 3), low=0.25, high=3.0), 3)), Bad("p_zero", (Arr((2, 3), low=1.5), 0)),
             Bad("p_float", (Arr((2, 3), low=1.5), 2.0)), Bad("int_input", (I32, 1)))),
    OpInfo("igamma", (
        Sample((Arr((2, 3), low=0.5, high=2.5), Arr((3,), low=0.5, high=3.0)), grad=(0, 1), label="broadcast"),
        Sample((Arr((4,), "float64", 0.5, 3.0), Arr((4,), "float64", 0.25, 4.0)), grad=(0, 1), label="float64"),
        Sample((Arr((2, 3), low=0.5, high=2.5), Arr((), low=0.5, high=3.0)), grad=(1,), label="zero_d")),
        ref=sc.gammainc, method="igamma", primitive=_prim("Igamma"), rtol=SPECIAL_RTOL, atol=1e-5,
        bad=(SHAPES, Bad("int_input", (I32, Arr((2, 3), "int32", 1, 3))))),
    OpInfo("igammac", (
        Sample((Arr((2, 3), low=0.5, high=2.5), Arr((3,), low=0.5, high=3.0)), grad=(0, 1), label="broadcast"),
        Sample((Arr((4,), "float64", 0.5, 3.0), Arr((4,), "float64", 0.25, 4.0)), grad=(0, 1), label="float64")),
        ref=sc.gammaincc, method="igammac", primitive=_prim("Igammac"), rtol=SPECIAL_RTOL, atol=1e-5),
    OpInfo("zeta", (
        Sample((Arr((2, 3), low=2.0, high=4.0), Arr((3,), low=0.5, high=2.0)), grad=(1,), label="broadcast"),
        Sample((Arr((4,), "float64", 1.5, 4.0), Arr((4,), "float64", 0.5, 3.0)), grad=(1,), label="float64"),
        Sample((Arr((2, 3), low=2.0, high=4.0), 1.5), label="float_scalar")),
        ref=sc.zeta, primitive=_prim("Zeta"), rtol=SPECIAL_RTOL, atol=1e-5,
        bad=(Bad("int_input", (I32, Arr((2, 3), "int32", 1, 3))),)),
    _float_unary("bessel_i0", sc.i0, method=False, primitive=_prim("BesselI0"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_i0e", sc.i0e, away=0.125, method=False, primitive=_prim("BesselI0e"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_i1", sc.i1, method=False, primitive=_prim("BesselI1"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_i1e", sc.i1e, away=0.125, method=False, primitive=_prim("BesselI1e"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_j0", sc.j0, -4.0, 4.0, method=False, primitive=_prim("BesselJ0"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_j1", sc.j1, -4.0, 4.0, method=False, primitive=_prim("BesselJ1"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_k0", sc.k0, **POSITIVE, method=False, primitive=_prim("BesselK0"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_k0e", sc.k0e, **POSITIVE, method=False, primitive=_prim("BesselK0e"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_k1", sc.k1, **POSITIVE, method=False, primitive=_prim("BesselK1"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_k1e", sc.k1e, **POSITIVE, method=False, primitive=_prim("BesselK1e"), rtol=SPECIAL_RTOL),
    _float_unary("bessel_y0", sc.y0, **POSITIVE, method=False, primitive=_prim("BesselY0"), rtol=SPECIAL_RTOL,
                 atol=1e-5),
    _float_unary("bessel_y1", sc.y1, **POSITIVE, method=False, primitive=_prim("BesselY1"), rtol=SPECIAL_RTOL,
                 atol=1e-5),
    _float_unary("i0", sc.i0, method="i0", rtol=SPECIAL_RTOL),

    # --- rounding, signs and remainders -----------------------------------------------------------------------
    OpInfo("trunc", (
        Sample((Arr((2, 3), low=-3.0, high=3.0, away=0.125),), label="float32"),
        Sample((Arr((4,), "float64", -3.0, 3.0),), label="float64"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool")),
        ref=np.trunc, method="trunc"),
    OpInfo("frac", (
        Sample((Arr((2, 3), low=-3.0, high=3.0, away=0.125),), grad=(0,), label="float32"),
        Sample((Arr((4,), "float64", -3.0, 3.0, away=0.125),), grad=(0,), label="float64"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool")),
        ref=_frac, method="frac"),
    OpInfo("sgn", (
        Sample((Arr((2, 3), away=0.125),), label="float32"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "int64", -3, 3),), label="int64")),
        ref=np.sign, method="sgn", bad=(Bad("bool_input", (Arr((2, 3), "bool"),)),)),
    OpInfo("signbit", (
        Sample((Arr((2, 3), away=0.125),), label="float32"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool"),
        Sample((Arr((2, 3), "float16"),), label="float16")),
        ref=np.signbit, method="signbit"),
    OpInfo("copysign", (
        Sample((Arr((2, 3), away=0.125), Arr((3,), away=0.125)), grad=(0,), label="broadcast"),
        Sample((Arr((2, 3), "float64", away=0.125), -1.5), grad=(0,), label="float_scalar"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int64", -3, 3)), label="ints"),
        Sample((Arr((2, 3), "float16", away=0.125), Arr((2, 3), away=0.125)), label="float16_float32")),
        ref=lambda x, y: np.copysign(x, y).astype(x.dtype if x.dtype.kind == "f" else np.float32),
        method="copysign", bad=(Bad("bool_input", (Arr((2, 3), "bool"), F)), Bad("number_x", (1.5, F)))),
    OpInfo("nan_to_num", (
        Sample((F,), grad=(0,), label="float32"),
        Sample((F,), {"nan": 1.5, "posinf": 9.0, "neginf": -9.0}, label="values"),
        Sample((Arr((3,), "float16"),), label="float16")),
        ref=_nan_to_num, method="nan_to_num", bad=(INT_INPUT,)),
    OpInfo("nextafter", (
        Sample((Arr((2, 3)), Arr((3,))), label="broadcast"),
        Sample((Arr((2, 3)), Arr((2, 3))), grad=(0, 1), label="float32"),
        Sample((Arr((2, 3), "float64"), Arr((2, 3), "float64")), grad=(0, 1), label="float64")),
        ref=np.nextafter, method="nextafter", bad=(Bad("int_input", (I32, Arr((2, 3), "int32", 1, 3))),)),
    OpInfo("fmod", _remainder_samples(), ref=np.fmod, method="fmod", bad=(SHAPES,)),
    OpInfo("floor_mod", _remainder_samples(), ref=np.mod,
           bad=(SHAPES, Bad("bool_input", (Arr((2, 3), "bool"), Arr((2, 3), "bool"))))),
    OpInfo("truncate_mod", _remainder_samples(int64=False), ref=np.fmod, primitive=_prim("TruncateMod"),
           bad=(SHAPES,)),
    OpInfo("truncate_div", (
        Sample((Arr((2, 3), low=-3.0, high=3.0), DIVISORS), label="broadcast"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), label="int32"),
        Sample((Arr((2, 3), "int64", -7, 7), -2), label="int64_scalar"),
        Sample((Arr((2, 3), "int32", -7, 7), DIVISORS), label="int_float")),
        ref=_trunc_div, primitive=_prim("TruncateDiv"), bad=(SHAPES,)),
    OpInfo("fmax", (
        Sample((Arr((2, 3), distinct=True), Arr((3,), distinct=True, low=-1.9, high=1.9)), grad=(0, 1), label="broadcast"),
        Sample((np.array([np.nan, 1.0, np.nan], np.float32), Arr((3,))), grad=(1,), label="nan"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int64", -3, 3)), label="ints"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3))), label="float16_float32")),
        ref=np.fmax, method="fmax", primitive=_prim("Fmax"), bad=(SHAPES,)),
    OpInfo("heaviside", (
        Sample((Arr((2, 3), "float32", -2, 2), Arr((2, 3))), label="float32"),
        Sample((Arr((2, 3), "int32", -2, 2), Arr((2, 3), "int32", 5, 7)), label="int32"),
        Sample((Arr((2, 3), "float64", -2, 2), Arr((), "float64")), label="zero_d_values")),
        ref=np.heaviside, method="heaviside", primitive=_prim("Heaviside"), bad=(SHAPES,)),

    # --- several operands -------------------------------------------------------------------------------------
    OpInfo("lerp", (
        Sample((Arr((2, 3)), Arr((3,)), 0.375), grad=(0, 1), label="float_weight"),
        Sample((Arr((2, 3)), Arr((2, 3)), Arr((2, 3), low=0.0, high=1.0)), grad=(0, 1, 2), label="tensor_weight"),
        Sample((Arr((2, 3)), Arr((2, 3)), Arr((2, 3), "float64", 0.0, 1.0)), label="float64_weight")),
        ref=_lerp, method="lerp",
        bad=(Bad("int_input", (I32, I32, 0.5)), Bad("number_end", (F, 2.0, 0.5)), Bad("int_weight", (F, F, 1)))),
    OpInfo("addcdiv", (
        Sample((Arr((2, 3)), Arr((3,)), Arr((3,), low=0.5, high=2.0)), grad=(0, 1, 2), label="default_value"),
        Sample((Arr((2, 3)), Arr((2, 3)), Arr((2, 3), low=0.5, high=2.0), 0.5), grad=(0, 1, 2), label="float_value"),
        Sample((Arr((2, 3)), Arr((2, 3)), Arr((2, 3), low=0.5, high=2.0), Arr((1,))), grad=(0, 1, 2, 3),
               label="tensor_value"),
        Sample((Arr((2, 3), "int64", -5, 5), Arr((2, 3), "int64", -5, 5), Arr((2, 3), "int64", 1, 3)),
               label="int64")),
        ref=_addcdiv, primitive=lambda ops, x, t1, t2, value=None: ops.Addcdiv()(
            x, t1, t2, value if value is not None and not isinstance(value, float) else
            type(x)(np.array([1.0 if value is None else value], np.float32))),
        bad=(Bad("int32_input", (I32, I32, I32)), Bad("mixed", (F, F, Arr((2, 3), "float64"))))),
    OpInfo("addcmul", (
        Sample((Arr((2, 3)), Arr((3,)), Arr((3,))), grad=(0, 1, 2), label="default_value"),
        Sample((Arr((2, 3)), Arr((2, 3)), Arr((2, 3)), 0.5), grad=(0, 1, 2), label="float_value"),
        Sample((Arr((2, 3)), Arr((2, 3)), Arr((2, 3)), Arr((1,))), grad=(0, 1, 2, 3), label="tensor_value"),
        Sample((Arr((2, 3), "int32", -5, 5), Arr((2, 3), "int32", -5, 5), Arr((2, 3), "int32", -3, 3), 2),
               label="int32")),
        ref=_addcmul, primitive=lambda ops, x, t1, t2, value=None: ops.Addcmul()(
            x, t1, t2, value if value is not None and not isinstance(value, (int, float)) else
            type(x)(np.array([1 if value is None else value], x.asnumpy().dtype))),
        bad=(Bad("bool_input", (Arr((2, 3), "bool"),) * 3), Bad("mixed", (F, F, I32)))),
    OpInfo("addn", (
        Sample(([Arr((2, 3)), Arr((2, 3))],), label="two"),
        Sample(((Arr((2, 3)), Arr((2, 3)), Arr((2, 3))),), label="three"),
        Sample(([Arr((3,), "int32", -3, 3)],), label="one_int"),
        Sample(([Arr((2, 3), "float64"), Arr((2, 3), "float64")],), label="float64")),
        ref=lambda x: sum(x[1:], x[0]), primitive=_prim("AddN"), strict=True,
        bad=(Bad("empty", ([],)), Bad("dtypes", ([F, I32],)), Bad("shapes", ([F, Arr((3,))],)),
             Bad("not_a_list", (F,)), Bad("numbers", ([1, 2],)))),
    OpInfo("clip_by_value", (
        Sample((Arr((2, 3)), -0.5, 0.75), grad=(0,), label="floats"),
        Sample((Arr((2, 3)), Arr((), low=-0.5, high=-0.25), Arr((), low=0.5, high=0.75)), grad=(0, 1, 2),
               label="tensor_bounds"),
        Sample((Arr((2, 3)), 0.25), grad=(0,), label="min_only"),
        Sample((Arr((2, 3)), None, 0.25), grad=(0,), label="max_only"),
        Sample((Arr((2, 3), "int32", -5, 5), 1.5, 2.5), label="int_float_bounds"),
        Sample((Arr((2, 3)), 0.75, -0.5), label="min_above_max"),
        Sample(([Arr((2, 3)), Arr((3,))], -0.5, 0.75), label="list")),
        ref=None, bad=(Bad("no_bounds", (F,)),)),

    # --- bits and integers ------------------------------------------------------------------------------------
    *[OpInfo(name, (
        Sample((Arr((2, 3), "int32", -9, 9), Arr((3,), "int32", -9, 9)), label="broadcast"),
        Sample((Arr((2, 3), "int64", -9, 9), Arr((2, 3), "int32", -9, 9)), label="int64_int32"),
        Sample((Arr((2, 3), "uint8", 0, 255), Arr((2, 3), "uint8", 0, 255)), label="uint8"),
        Sample((Arr((2, 3), "bool"), Arr((2, 3), "bool")), label="bool"),
        Sample((Arr((2, 3), "int16", -9, 9), 6), label="int_scalar")),
        ref=ref, method=name, primitive=_prim(prim),
        bad=(Bad("float_input", (F, F)), SHAPES))
      for name, ref, prim in (("bitwise_and", np.bitwise_and, "BitwiseAnd"), ("bitwise_or", np.bitwise_or, "BitwiseOr"),
                              ("bitwise_xor", np.bitwise_xor, "BitwiseXor"))],
    *[OpInfo(name, (
        Sample((Arr((2, 3), "int32", -9, 9), Arr((3,), "int32", 0, 4)), label="broadcast"),
        Sample((Arr((2, 3), "int64", -99, 99), Arr((2, 3), "int64", 0, 8)), label="int64"),
        Sample((Arr((2, 3), "uint8", 0, 255), Arr((2, 3), "uint8", 0, 3)), label="uint8"),
        Sample((Arr((2, 3), "int8", -9, 9), 2), label="int_scalar")),
        ref=ref, method=name, primitive=_prim(prim),
        bad=(Bad("float_input", (F, F)), Bad("bool_input", (Arr((2, 3), "bool"), Arr((2, 3), "bool"))),
             Bad("float_scalar", (Arr((2, 3), "int32", 0, 3), 1.5))))
      for name, ref, prim in (("bitwise_left_shift", np.left_shift, "LeftShift"),
                              ("bitwise_right_shift", np.right_shift, "RightShift"))],
    OpInfo("invert", (
        Sample((Arr((2, 3), "int32", -9, 9),), label="int32"),
        Sample((Arr((2, 3), "int64", -9, 9),), label="int64"),
        Sample((Arr((2, 3), "uint8", 0, 255),), label="uint8"),
        Sample((Arr((2, 3), "int16", -9, 9),), label="int16")),
        ref=np.invert, method="invert", primitive=_prim("Invert"),
        bad=(Bad("bool_input", (Arr((2, 3), "bool"),)), Bad("float_input", (F,)))),
    OpInfo("population_count", (
        Sample((Arr((2, 3), "int32", -99, 99),), label="int32"),
        Sample((Arr((2, 3), "int64", -99, 99),), label="int64"),
        Sample((Arr((2, 3), "uint8", 0, 255),), label="uint8"),
        Sample((Arr((2, 3), "int8", -99, 99),), label="int8"),
        Sample((Arr((2, 3), "int16", -999, 999),), label="int16")),
        ref=_popcount, primitive=_prim("PopulationCount"),
        bad=(Bad("bool_input", (Arr((2, 3), "bool"),)), Bad("float_input", (F,)))),
    OpInfo("gcd", (
        Sample((Arr((2, 3), "int32", -20, 20), Arr((3,), "int32", -20, 20)), label="broadcast"),
        Sample((Arr((2, 3), "int64", -99, 99), Arr((2, 3), "int64", 1, 30)), label="int64"),
        Sample((Arr((2, 3), "int32", 0, 30), Arr((2, 3), "int64", 0, 30)), label="int32_int64")),
        ref=np.gcd, method="gcd",
        bad=(Bad("float_input", (F, F)), Bad("shapes", (Arr((2, 3), "int32", 1, 9), Arr((4,), "int32", 1, 9))))),
    OpInfo("lcm", (
        Sample((Arr((2, 3), "int32", -20, 20), Arr((3,), "int32", -20, 20)), label="broadcast"),
        Sample((Arr((2, 3), "int64", -99, 99), Arr((2, 3), "int64", 1, 30)), label="int64"),
        Sample((Arr((2, 3), "int32", 0, 30), 6), label="int_scalar")),
        ref=np.lcm, method="lcm", primitive=_prim("Lcm"), bad=(Bad("float_input", (F, F)),)),

    # --- Python scalars and MindSpore's composite spellings -----------------------------------------------------
    *[OpInfo(name, tuple(Sample(args, label=label) for label, args in cases), strict=False,
             bad=(() if name == "scalar_mul" else (Bad("string", ("a", 1)),)) + extra_bad)
      for name, cases, extra_bad in (
          ("scalar_add", (("ints", (1, 2)), ("int_float", (1, 2.5)), ("bools", (True, False)),
                          ("big", (2 ** 62, 2 ** 62))), ()),
          ("scalar_sub", (("ints", (3, 5)), ("int_float", (3, 4.5)), ("bools", (True, True))), ()),
          ("scalar_mul", (("ints", (3, 4)), ("int_float", (3, 4.5)), ("bools", (True, True)),
                          ("string", ("a", 2))), ()),
          ("scalar_div", (("ints", (1, 2)), ("exact", (6, 3)), ("negative", (-7, 2)), ("floats", (1.0, 4.0))),
           (Bad("zero", (1, 0)), Bad("float_zero", (1.0, 0.0)))),
          ("scalar_floordiv", (("ints", (7, 2)), ("negative", (-7, 2)), ("float", (-7.5, 2))),
           (Bad("zero", (7, 0)),)),
          ("scalar_mod", (("negative", (-7, 3)), ("negative_divisor", (7, -3)), ("float", (-7.5, 2))),
           (Bad("zero", (7, 0)),)),
          ("scalar_pow", (("ints", (2, 10)), ("negative_exponent", (2, -1)), ("floats", (2.0, 0.5)),
                          ("big", (2, 100))), (Bad("overflow", (10.0, 400)),)),
          ("scalar_eq", (("int_float", (1, 1.0)), ("different", (1, 2)), ("bool_int", (True, 1))), ()),
          ("scalar_ge", (("ints", (1, 2)), ("equal", (2, 2.0))), ()),
          ("scalar_gt", (("float_int", (2.5, 2)), ("ints", (1, 2))), ()),
          ("scalar_le", (("equal", (1, 1)), ("float", (1.5, 1))), ()),
          ("scalar_lt", (("equal", (1, 1)), ("ints", (1, 2))), ()),
          ("scalar_max", (("int_float", (1, 2.5)), ("ints", (3, 2)), ("bool_int", (True, 0))), ()),
          ("scalar_min", (("int_float", (1, 2.5)), ("ints", (3, 2))), ()),
      )],
    OpInfo("scalar_log", (Sample((2.0,), label="float"), Sample((1,), label="int")), strict=False,
           bad=(Bad("zero", (0,)), Bad("negative", (-1.0,)), Bad("string", ("a",)))),
    OpInfo("scalar_uadd", (Sample((3,), label="int"), Sample((-2.5,), label="float"), Sample((True,), label="bool"),
                           Sample(("a",), label="string")), strict=False),
    OpInfo("scalar_usub", (Sample((3,), label="int"), Sample((-2.5,), label="float"), Sample((True,), label="bool")),
           strict=False, bad=(Bad("string", ("a",)),)),
    OpInfo("tensor_div", (
        Sample((Arr((2, 3)), Arr((3,), low=0.5, high=2.0)), grad=(0, 1), label="floats"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), "int32", 1, 3)), label="int32"),
        Sample((Arr((2, 3), "int32", -7, 7), 2), label="int_scalar"),
        Sample((Arr((2, 3), "int32", -7, 7), Arr((2, 3), low=0.5, high=2.0)), label="int_float"),
        Sample((1, 2), label="python_ints"),
        Sample((1.0, 2.0), label="python_floats")),
        ref=lambda x, y: _trunc_div(x, y) if np.result_type(x, y).kind != "f" else np.true_divide(x, y),
        bad=(Bad("bools", (Arr((2, 3), "bool"), Arr((2, 3), "bool"))),)),
    OpInfo("tensor_sub", (
        Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1), label="floats"),
        Sample((Arr((2, 3), "int32", -7, 7), 2), label="int_scalar"),
        Sample((3, 1), label="python_ints")),
        ref=np.subtract),
    OpInfo("tensor_gt", (
        Sample((Arr((2, 3)), Arr((3,))), label="floats"),
        Sample((Arr((2, 3), "int32", -3, 3), 0), label="int_scalar"),
        Sample((1, 2), label="python_ints")),
        ref=np.greater),
    OpInfo("tensor_lt", (
        Sample((Arr((2, 3)), Arr((3,))), label="floats"),
        Sample((Arr((2, 3), "int32", -3, 3), 0), label="int_scalar")),
        ref=np.less, bad=(Bad("python_ints", (1, 2)), Bad("number_first", (1.0, F)))),
    OpInfo("hyper_add", (
        Sample((Arr((2, 3)), Arr((2, 3))), grad=(0, 1), label="tensors"),
        Sample(((Arr((3,)), Arr((2,))), (Arr((3,)), Arr((2,)))), label="tuples"),
        Sample(([Arr((3,)), 1], [Arr((3,)), 2]), label="lists"),
        Sample((1, 2.5), label="numbers")),
        strict=False,
        bad=(Bad("tensor_number", (F, 1.0)), Bad("tensor_tuple", (F, (F,))), Bad("dicts", ({"a": 1}, {"a": 2})))),
    OpInfo("is_floating_point", (
        Sample((Arr((2, 3)),), label="float32"),
        Sample((Arr((2, 3), "float16"),), label="float16"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool")),
        strict=False),
]
