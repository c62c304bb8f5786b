"""The four operations and powers: broadcasting, dtype promotion, scalars and 0-d tensors.

Binary ops get samples over the promotion table MindSpore applies (int with float, int32 with
int64, float16 with float32, bool, Python scalars, 0-d tensors); the recorded output dtypes are
MindSpore's answer for each.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))                     # a float32 2x3 input
ROW = Arr((3,))                     # broadcasts against F
POS = Arr((2, 3), low=0.5, high=2.0)


def _binary_samples(positive_second=False):
    """Broadcasting, promotion and scalar samples for a binary arithmetic op."""
    second = Arr((3,), low=0.5, high=2.0) if positive_second else ROW
    return (
        Sample((F, second), grad=(0, 1), label="broadcast"),
        Sample((Arr((2, 1)), Arr((1, 3), low=0.5, high=2.0) if positive_second else Arr((1, 3))), grad=(0, 1),
               label="outer"),
        Sample((F, 2.5), grad=(0,), label="float_scalar"),
        Sample((Arr((2, 3), "int32", -3, 3), Arr((2, 3), "int64", 1, 4)), label="int32_int64"),
        Sample((Arr((2, 3), "int64", 1, 4), F), label="int_float"),
        Sample((Arr((2, 3), "float16"), Arr((2, 3), low=0.5)), label="float16_float32"),
        Sample((Arr((2, 3), "bool"), Arr((2, 3), "int32", 1, 3)), label="bool_int"),
        Sample((Arr((), low=0.5), F), grad=(0, 1), label="zero_d"),
        Sample((Arr((2, 3), "int32", 1, 5), 3), label="int_scalar"),
    )


OPS = [
    OpInfo("add", _binary_samples(), ref=np.add, method="add", primitive=lambda ops, x, y: ops.Add()(x, y),
           bad=(Bad("shapes", (Arr((2, 3)), Arr((4,)))),)),
    OpInfo("sub", _binary_samples(), ref=np.subtract, method="sub", primitive=lambda ops, x, y: ops.Sub()(x, y),
           bad=(Bad("shapes", (Arr((2, 3)), Arr((2,)))),)),
    OpInfo("mul", _binary_samples(), ref=np.multiply, method="mul", primitive=lambda ops, x, y: ops.Mul()(x, y)),
    OpInfo("div", _binary_samples(positive_second=True), ref=np.true_divide, method="div"),
    OpInfo("pow", (Sample((POS, ROW), grad=(0, 1), label="tensor_exponent"),
                   Sample((F, 3), grad=(0,), label="int_exponent"),
                   Sample((2.0, F), grad=(1,), label="scalar_base")),
           ref=np.power, method="pow"),
    OpInfo("neg", (Sample((F,), grad=(0,)), Sample((Arr((4,), "int32", -5, 5),), label="int")),
           ref=np.negative, method="neg"),
]
