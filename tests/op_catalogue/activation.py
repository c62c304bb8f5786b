"""Activation functions: the ReLU family, sigmoid-shaped ones, GELU, the shrinks, softmax and its relatives.

Thresholds in the samples (``lambd=0.3``, ``thr=0.1``...) are kept off the 1/64 grid the sample
values lie on, so no value sits on a kink where a finite difference would straddle it.  Ops that
draw random numbers are sampled where the draw cannot change the answer (``rrelu`` with
``lower == upper``; ``gumbel_softmax`` with logits far apart, whose soft sample is one-hot to
float32 precision).
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
F16 = Arr((2, 3), "float16")
F64 = Arr((2, 3), "float64")
I32 = Arr((2, 3), "int32", -3, 3)
WIDE = Arr((3, 4), low=-4.0, high=4.0)   # both sides of the -3 / 3 corners of the hard functions
AWAY = Arr((2, 3), away=0.05)            # no value at the kink at 0


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _erf(x):
    from math import erf
    return np.vectorize(erf)(x)


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


def _softplus(x, beta=1, threshold=20):
    return np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta)


def _unary_samples(grad_input=AWAY, f16=True, f64=True, int32=False):
    samples = [Sample((grad_input,), grad=(0,), label="grad")]
    if f16:
        samples.append(Sample((F16,), label="float16"))
    if f64:
        samples.append(Sample((F64,), label="float64"))
    if int32:
        samples.append(Sample((I32,), label="int32"))
    samples.append(Sample((Arr((), away=0.05),), grad=(0,), label="zero_d"))
    return tuple(samples)


_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

STRING_ARG = Bad("string_input", ("abc",))

OPS = [
    # -- the ReLU family
    OpInfo("relu", _unary_samples(int32=True, f64=True), ref=lambda x: np.maximum(x, 0),
           primitive=lambda ops, x: ops.ReLU()(x), bad=(STRING_ARG,)),
    OpInfo("relu6", (Sample((Arr((3, 4), low=-2.0, high=8.0, away=0.05),), grad=(0,), label="grad"),
                     Sample((F16,), label="float16")),
           ref=lambda x: np.clip(x, 0, 6), primitive=lambda ops, x: ops.ReLU6()(x),
           bad=(Bad("string", ("abc",)),)),
    OpInfo("leaky_relu", (Sample((AWAY,), grad=(0,), label="grad"),
                          Sample((AWAY, 0.1), grad=(0,), label="alpha"),
                          Sample((I32, 2), label="int32")),
           ref=lambda x, alpha=0.2: np.where(x >= 0, x, alpha * x)),
    OpInfo("elu", (Sample((AWAY,), grad=(0,), label="grad"), Sample((F16,), label="float16"),
                   Sample((F64,), label="float64")),
           ref=lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x)),
           primitive=lambda ops, x, alpha=1.0: ops.Elu(alpha)(x), rtol=2e-5),
    OpInfo("celu", (Sample((AWAY,), grad=(0,), label="grad"),
                    Sample((AWAY,), {"alpha": 0.5}, grad=(0,), label="alpha"),
                    Sample((F16,), label="float16"), Sample((F64,), label="float64")),
           ref=lambda x, alpha=1.0: np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha)),
           primitive=lambda ops, x, alpha=1.0: ops.CeLU(alpha)(x), rtol=2e-5,
           bad=(Bad("int32", (I32,)), Bad("alpha_zero", (F,), {"alpha": 0.0}))),
    # MindSpore 2.10's SeLU gradient is wrong for x < 0 (at x = -1.5 it gives -0.384 instead of
    # scale * alpha * exp(-1.5) = 0.392): the gradient sample stays on the positive side, and
    # tests/ops/test_nnfunc_activation.py checks the negative side against finite differences.
    OpInfo("selu", (Sample((Arr((2, 3), low=0.05, high=2.0),), grad=(0,), label="grad"),
                    Sample((AWAY,), label="both_signs"),
                    Sample((F64,), label="float64")),
           ref=lambda x: _SELU_S * (np.maximum(x, 0) + np.minimum(0, _SELU_A * np.expm1(x))),
           primitive=lambda ops, x: ops.SeLU()(x), rtol=2e-5, bad=(Bad("int64", (Arr((2, 3), "int64", -3, 3),)),)),
    OpInfo("prelu", (Sample((Arr((2, 3, 2), away=0.05), Arr((3,), low=0.1, high=0.5)), grad=(0, 1), label="channels"),
                     Sample((Arr((2, 3), away=0.05), Arr((1,), low=0.1, high=0.5)), grad=(0, 1), label="one_weight"),
                     Sample((Arr((4,), away=0.05), Arr((1,), low=0.1, high=0.5)), grad=(0, 1), label="vector")),
           ref=lambda x, w: np.where(x > 0, x, x * (w.reshape((1, -1) + (1,) * (x.ndim - 2)) if x.ndim >= 2 else w)),
           primitive=lambda ops, x, w: ops.PReLU()(x, w),
           bad=(Bad("weight_size", (Arr((2, 3, 2)), Arr((2,)))), Bad("weight_2d", (Arr((2, 3)), Arr((1, 3)))))),
    OpInfo("rrelu", (Sample((AWAY, 0.25, 0.25), grad=(0,), label="fixed_slope"),
                     Sample((Arr((2, 3), "int32", -3, 3), 0.5, 0.5), label="int32")),
           ref=lambda x, lower, upper: np.where(x >= 0, x, x * (lower if x.dtype.kind == "f" else np.trunc(lower))),
           bad=(Bad("lower_above_upper", (F, 0.5, 0.25)),)),
    # -- sigmoid-shaped and smooth
    OpInfo("sigmoid", _unary_samples(grad_input=F), ref=_sigmoid, method="sigmoid",
           primitive=lambda ops, x: ops.Sigmoid()(x)),
    OpInfo("logsigmoid", _unary_samples(grad_input=F, f16=False), ref=lambda x: -np.logaddexp(0, -x),
           primitive=lambda ops, x: ops.LogSigmoid()(x), bad=(Bad("int32", (I32,)),), rtol=2e-5),
    OpInfo("tanh", _unary_samples(grad_input=F), ref=np.tanh, primitive=lambda ops, x: ops.Tanh()(x)),
    OpInfo("tanhshrink", _unary_samples(grad_input=F, int32=True, f16=False), ref=lambda x: x - np.tanh(x),
           rtol=1e-4, atol=1e-6),
    OpInfo("softsign", _unary_samples(grad_input=F), ref=lambda x: x / (1 + np.abs(x)),
           primitive=lambda ops, x: ops.Softsign()(x), bad=(Bad("int32", (I32,)),)),
    OpInfo("silu", _unary_samples(grad_input=F), ref=lambda x: x * _sigmoid(x), primitive=lambda ops, x: ops.SiLU()(x)),
    OpInfo("softplus", (Sample((F,), grad=(0,), label="grad"),
                        Sample((Arr((2, 3), low=-4.0, high=4.0),), {"beta": 2, "threshold": 5}, grad=(0,),
                               label="beta_threshold"),
                        Sample((F64,), label="float64")),
           ref=_softplus, primitive=lambda ops, x, **k: ops.Softplus()(x) if not k else ops.softplus(x, **k)),
    OpInfo("mish", _unary_samples(grad_input=F, f16=False), ref=lambda x: x * np.tanh(np.logaddexp(0, x)),
           primitive=lambda ops, x: ops.Mish()(x), rtol=2e-5),
    OpInfo("gelu", (Sample((F,), grad=(0,), label="exact"),
                    Sample((F,), {"approximate": "tanh"}, grad=(0,), label="tanh"),
                    Sample((F64,), label="float64")),
           ref=_gelu, rtol=2e-5,
           primitive=lambda ops, x, approximate="none": ops.GeLU()(x) if approximate == "tanh" else ops.gelu(x),
           bad=(Bad("approximate", (F,), {"approximate": "fast"}),)),
    OpInfo("fast_gelu", (Sample((F,), grad=(0,), label="grad"),),
           ref=lambda x: x * _sigmoid(1.702 * x), primitive=lambda ops, x: ops.FastGeLU()(x), rtol=2e-5),
    # -- piecewise linear
    OpInfo("hardswish", (Sample((Arr((3, 4), low=-4.0, high=4.0, away=0.05),), grad=(0,), label="grad"),),
           ref=lambda x: x * np.clip(x + 3, 0, 6) / 6, primitive=lambda ops, x: ops.HSwish()(x)),
    OpInfo("hardsigmoid", (Sample((Arr((3, 4), low=-4.0, high=4.0, away=0.05),), grad=(0,), label="grad"),),
           ref=lambda x: np.clip(x + 3, 0, 6) / 6, primitive=lambda ops, x: ops.HSigmoid()(x)),
    OpInfo("hardtanh", (Sample((Arr((3, 4), low=-2.0, high=2.0),), {"min_val": -0.7, "max_val": 1.3}, grad=(0,),
                               label="grad"),
                        Sample((F16,), label="float16"), Sample((F64,), label="float64"),
                        Sample((I32, -1, 2), label="int32")),
           ref=lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val)),
    OpInfo("hardshrink", (Sample((Arr((3, 4)),), {"lambd": 0.3}, grad=(0,), label="grad"),
                          Sample((F,), label="default"), Sample((F16,), label="float16")),
           ref=lambda x, lambd=0.5: np.where(np.abs(x) > lambd, x, 0), method="hardshrink",
           primitive=lambda ops, x, lambd=0.5: ops.HShrink(lambd)(x),
           bad=(Bad("int32", (I32,)),)),
    OpInfo("softshrink", (Sample((Arr((3, 4)),), {"lambd": 0.3}, grad=(0,), label="grad"),
                          Sample((F,), label="default"), Sample((F16,), label="float16")),
           ref=lambda x, lambd=0.5: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)),
           primitive=lambda ops, x, lambd=0.5: ops.SoftShrink(lambd)(x),
           bad=(Bad("int32", (I32,)), Bad("negative_lambd", (F,), {"lambd": -1.0}))),
    OpInfo("soft_shrink", (Sample((Arr((3, 4)),), {"lambd": 0.3}, grad=(0,), label="grad"),
                           Sample((F,), label="default")),
           ref=lambda x, lambd=0.5: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)),
           method="soft_shrink"),
    OpInfo("threshold", (Sample((Arr((3, 4)), 0.1, 20.0), grad=(0,), label="grad"),
                         Sample((F16, 0.1, -1.0), label="float16"),
                         Sample((Arr((2, 3), "int32", -3, 3), 0, 5), label="int32")),
           ref=lambda x, thr, value: np.where(x > thr, x, value)),
    # -- softmax and relatives
    OpInfo("softmax", (Sample((F,), grad=(0,), label="last"),
                       Sample((Arr((2, 3, 2)), 1), grad=(0,), label="axis1"),
                       Sample((F64, 0), label="float64"),
                       Sample((F16,), label="float16")),
           ref=lambda x, axis=-1, dtype=None: _softmax(x, axis), method="softmax",
           primitive=lambda ops, x, axis=-1, **k: ops.Softmax(axis)(x) if not k else ops.softmax(x, axis, **k),
           bad=(Bad("axis", (F, 2)),)),
    OpInfo("log_softmax", (Sample((F,), grad=(0,), label="last"),
                           Sample((Arr((2, 3, 2)), 1), grad=(0,), label="axis1"),
                           Sample((F64, 0), label="float64")),
           ref=lambda x, axis=-1: np.log(_softmax(x, axis)), primitive=lambda ops, x, axis=-1: ops.LogSoftmax(axis)(x),
           rtol=5e-5,
           bad=(Bad("axis", (F, -3)),)),
    OpInfo("softmin", (Sample((F,), grad=(0,), label="last"),
                       Sample((Arr((2, 3, 2)), 1), grad=(0,), label="axis1"),
                       Sample((F64, 0), label="float64")),
           ref=lambda x, axis=-1: _softmax(-x, axis), bad=(Bad("int32", (I32,)), Bad("axis", (F, 2)))),
    OpInfo("glu", (Sample((Arr((2, 4)),), grad=(0,), label="last"),
                   Sample((Arr((4, 3)), 0), grad=(0,), label="axis0"),
                   Sample((Arr((2, 4), "float64"),), label="float64")),
           ref=lambda x, axis=-1: np.split(x, 2, axis)[0] * _sigmoid(np.split(x, 2, axis)[1]),
           primitive=lambda ops, x, axis=-1: ops.GLU(axis)(x), bad=(Bad("odd", (Arr((2, 3)),)),)),
    OpInfo("gumbel_softmax", (Sample((Arr((2, 3), low=-200.0, high=200.0, distinct=True),), label="soft"),
                              Sample((Arr((2, 3), low=-200.0, high=200.0, distinct=True),), {"hard": True, "tau": 0.5},
                                     label="hard")),
           bad=(Bad("int32", (I32,)), Bad("tau", (F,), {"tau": -1.0}))),
]
