"""Complex numbers: parts, conjugates, angles, polar coordinates, views.

Complex samples are written out (the catalogue draws real numbers only).  The gradient probe of
the catalogue weighs real outputs only, so ``real``, ``imag``, ``angle`` and ``view_as_real`` --
real outputs -- are differentiated here on real inputs; their gradients on complex inputs (and
those of ``conj`` and ``polar``, complex outputs) are checked in ``tests/ops/test_complex.py`` and
against MindSpore in ``tests/mindspore_cases/ops_fft_extra.py``.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

Z = np.array([3 + 4j, -1j, 0.5 - 0.25j, -2 + 1j], np.complex64)
Z2 = np.array([[1 + 2j, -0.5 + 1j], [2 - 1j, 0.25 + 0.75j]], np.complex128)

OPS = [
    OpInfo("real", (Sample((Z,)), Sample((Z2,), label="complex128"), Sample((Arr((2, 3)),), label="float"),
                    Sample((Arr((3,), "int32", -3, 3),), label="int32")),
           ref=np.real, method="real", primitive=lambda ops, x: ops.Real()(x)),
    OpInfo("imag", (Sample((Z,)), Sample((Z2,), label="complex128"), Sample((Arr((2, 3)),), grad=(0,), label="float"),
                    Sample((Arr((3,), "int32", -3, 3),), label="int32")),
           ref=np.imag, method="imag", primitive=lambda ops, x: ops.Imag()(x)),
    OpInfo("conj", (Sample((Z,)), Sample((Z2,), label="complex128"), Sample((Arr((2, 3)),), grad=(0,), label="float"),
                    Sample((Arr((3,), "int32", -3, 3),), label="int32")),
           method="conj", primitive=lambda ops, x: ops.Conj()(x),
           bad=(Bad("bool", (Arr((2,), "bool"),)),)),
    OpInfo("angle", (Sample((Z,)), Sample((Z2,), label="complex128")),
           ref=np.angle, method="angle", primitive=lambda ops, x: ops.Angle()(x),
           bad=(Bad("float", (Arr((2,)),)),)),
    OpInfo("polar", (Sample((Arr((4,), low=0.5, high=2.0), Arr((4,)))),
                     Sample((Arr((2, 2), "float64", low=0.5, high=2.0), Arr((2, 2), "float64")), label="float64")),
           primitive=lambda ops, r, t: ops.Polar()(r, t),
           bad=(Bad("int32", (Arr((2,), "int32"), Arr((2,), "int32"))), Bad("mixed", (Arr((2,)), Arr((2,), "float64"))),
                Bad("shapes", (Arr((2,)), Arr(()))))),
    OpInfo("view_as_real", (Sample((Z,)), Sample((Z2,), label="complex128"),
                            Sample((np.array(1 + 2j, np.complex64),), label="zero_d")),
           ref=lambda z: np.stack([z.real, z.imag], -1),
           bad=(Bad("float", (Arr((2,)),)),)),
    OpInfo("is_complex", (Sample((Z,)), Sample((Arr((2,)),), label="float"),
                          Sample((Arr((2,), "int32"),), label="int32")),
           strict=False, bad=(Bad("list", ([1.0, 2.0],)),)),
]
