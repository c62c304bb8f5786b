"""Comparisons and logic: the six comparisons under their MindSpore names, logical operations,
``where``, the floating-point classifications (``isfinite``, ``isnan``, ``isinf`` ...) and the
tolerant comparisons (``isclose``, ``approximate_equal``).

Outputs are Bool tensors, so nothing here is differentiated except ``where``'s two branches.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
SHAPES = Bad("shapes", (Arr((2, 3)), Arr((4,))))


def _prim(name, *init):
    return lambda ops, *args, **kwargs: getattr(ops, name)(*init)(*args, **kwargs)


def _specials(dtype=np.float32):
    return np.array([[np.nan, np.inf, -np.inf], [1.5, -0.0, -2.0]], dtype=dtype)


# Values on a coarse grid: equal elements occur, so == and <= are tested on ties too.
COARSE = Arr((2, 3), "int32", -2, 2)


def _comparison_samples():
    return (
        Sample((Arr((2, 3), "int32", -2, 2), Arr((3,), "int32", -2, 2)), label="int_broadcast"),
        Sample((Arr((2, 3), low=-1.0, high=1.0), Arr((2, 3), low=-1.0, high=1.0)), label="float32"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3))), label="float16_float32"),
        Sample((Arr((2, 3), "int32", -2, 2), Arr((2, 3), "float64", -2.0, 2.0)), label="int_float64"),
        Sample((Arr((2, 3), "bool"), Arr((2, 3), "bool")), label="bool"),
        Sample((Arr((2, 3), "int64", -2, 2), 1), label="int_scalar"),
        Sample((Arr((2, 3), low=-1.0, high=1.0), 0.25), label="float_scalar"),
        Sample((Arr((), "int32", -2, 2), Arr((2, 3), "int32", -2, 2)), label="zero_d"),
    )


COMPARISONS = (
    ("equal", np.equal, "equal", "Equal"), ("not_equal", np.not_equal, "not_equal", "NotEqual"),
    ("greater", np.greater, "greater", "Greater"), ("greater_equal", np.greater_equal, "greater_equal", None),
    ("less", np.less, "less", "Less"), ("less_equal", np.less_equal, "less_equal", None),
    ("gt", np.greater, "gt", None), ("ge", np.greater_equal, "ge", None), ("lt", np.less, "lt", None),
    ("le", np.less_equal, "le", None), ("eq", np.equal, "eq", None), ("ne", np.not_equal, "ne", None),
)

OPS = [
    *[OpInfo(name, _comparison_samples(), ref=ref, method=method,
             primitive=_prim(prim) if prim in ("Equal", "Greater", "Less") else None, bad=(SHAPES,))
      for name, ref, method, prim in COMPARISONS],
    *[OpInfo(name, (
        Sample((Arr((2, 3), "bool"), Arr((3,), "bool")), label="bool_broadcast"),
        Sample((Arr((2, 3), "int32", -1, 1), Arr((2, 3), "int32", -1, 1)), label="int32"),
        Sample((Arr((2, 3), low=-1.0, high=1.0, away=0.5), Arr((2, 3), "bool")), label="float_bool")),
        ref=ref, method=name, primitive=_prim(prim), bad=(SHAPES,))
      for name, ref, prim in (("logical_and", np.logical_and, "LogicalAnd"),
                              ("logical_or", np.logical_or, "LogicalOr"),
                              ("logical_xor", np.logical_xor, "LogicalXor"))],
    OpInfo("logical_not", (
        Sample((Arr((2, 3), "bool"),), label="bool"),
        Sample((Arr((2, 3), "int32", -1, 1),), label="int32"),
        Sample((Arr((2, 3), low=-1.0, high=1.0, away=0.5),), label="float32")),
        ref=np.logical_not, method="logical_not", primitive=_prim("LogicalNot")),
    OpInfo("isfinite", (
        Sample((_specials(),), label="specials"),
        Sample((_specials(np.float64),), label="float64"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32")),
        ref=np.isfinite, method="isfinite"),
    OpInfo("isnan", (
        Sample((_specials(),), label="specials"),
        Sample((Arr((2, 3), "float16"),), label="float16"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32")),
        ref=np.isnan, method="isnan", primitive=_prim("IsNan")),
    OpInfo("isinf", (
        Sample((_specials(),), label="specials"),
        Sample((_specials(np.float64),), label="float64")),
        ref=np.isinf, method="isinf", bad=(Bad("int_input", (Arr((2, 3), "int32", -3, 3),)),)),
    OpInfo("isposinf", (
        Sample((_specials(),), label="specials"),
        Sample((Arr((2, 3), "float16"),), label="float16")),
        ref=np.isposinf, method="isposinf", bad=(Bad("int_input", (Arr((2, 3), "int32", -3, 3),)),)),
    OpInfo("isneginf", (
        Sample((_specials(),), label="specials"),
        Sample((_specials(np.float64),), label="float64")),
        ref=np.isneginf, method="isneginf", bad=(Bad("int_input", (Arr((2, 3), "int32", -3, 3),)),)),
    OpInfo("isreal", (
        Sample((_specials(),), label="float32"),
        Sample((Arr((2, 3), "int32", -3, 3),), label="int32"),
        Sample((Arr((2, 3), "bool"),), label="bool")),
        ref=lambda x: np.ones(x.shape, bool), method="isreal"),
    OpInfo("isclose", (
        Sample((Arr((2, 3)), Arr((2, 3))), label="float32"),
        Sample((_specials(), _specials()), label="specials"),
        Sample((_specials(), _specials()), {"equal_nan": True}, label="equal_nan"),
        Sample((Arr((2, 3)), Arr((2, 3))), {"rtol": 0.5, "atol": 0.75}, label="tolerances"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int32", -3, 3)), label="int32"),
        Sample((Arr((2, 3), "bool"), Arr((2, 3), "bool")), label="bool")),
        ref=lambda a, b, rtol=1e-05, atol=1e-08, equal_nan=False: np.isclose(a, b, rtol, atol, equal_nan),
        method="isclose",
        primitive=lambda ops, a, b, **k: ops.IsClose(**k)(a, b),
        bad=(Bad("number_other", (F, 1.5)),)),
    OpInfo("approximate_equal", (
        Sample((Arr((2, 3)), Arr((2, 3))), label="float32"),
        Sample((Arr((2, 3)), Arr((2, 3))), {"tolerance": 1.5}, label="tolerance"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3))), label="float16_float32")),
        ref=lambda x, y, tolerance=1e-05: np.abs(x - y) < tolerance, method="approximate_equal",
        bad=(Bad("int_input", (Arr((2, 3), "int32", -1, 1), Arr((2, 3), "int32", -1, 1))),)),
    OpInfo("where", (
        Sample((Arr((2, 3), "bool"), Arr((2, 3)), Arr((3,))), grad=(1, 2), label="broadcast"),
        Sample((Arr((2, 3), "bool"), Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int32", -3, 3)), label="int32"),
        Sample((Arr((2, 3), "bool"), Arr((2, 3)), 0.5), grad=(1,), label="float_scalar"),
        Sample((Arr((3,), "bool"), Arr((2, 3), "float64"), Arr((2, 3), "float64")), grad=(1, 2), label="float64")),
        ref=np.where, primitive=_prim("Select"), bad=(Bad("shapes", (Arr((2, 3), "bool"), F, Arr((4,)))),)),
]
