"""Activation, dropout and basic layer Cells of ``mindspore.nn`` as MindSpore 2.10 runs them (PyNative, CPU).

Each forward case builds a Cell, calls it on fixed inputs and returns the output together with
the gradients of ``sum(output * probe)`` (a fixed probe) with respect to the inputs and, for Cells
with Parameters set to fixed values, the Parameters.  Other cases return ``repr`` text, parameter
names and shapes, ``get_activation`` results, train/eval behaviour of the dropout Cells
(shapes, which values appear, the scale of the kept values, identity in inference), and bad
arguments (cases that must raise).  Random Cells (``RReLU``, the dropouts) are compared through
properties of their output, never through the random values themselves.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

X = [[-1.5, 0.5, 2.0, -0.25], [0.3, -0.7, 1.2, -2.2]]
X4 = [[[[-1.5, 0.5], [2.0, -0.25]], [[0.3, -0.7], [1.2, -2.2]]]]  # (1, 2, 2, 2)


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _probe(ms, np, shape, dtype):
    size = int(np.prod(shape)) if shape else 1
    values = np.linspace(-1.0, 1.3, size).reshape(shape) if shape else np.array(0.7)
    return ms.Tensor(values.astype(np.float32)).astype(dtype)


def _fwd_grad(ms, np, cell, *inputs):
    """``(output, input gradients[, parameter gradients])`` of ``sum(cell(*inputs) * probe)``."""
    out = cell(*inputs)
    probe = _probe(ms, np, tuple(out.shape), out.dtype)

    def objective(*xs):
        return (cell(*xs) * probe).sum()

    positions = tuple(range(len(inputs))) if len(inputs) > 1 else 0
    weights = cell.trainable_params()
    if weights:
        grads = ms.grad(objective, grad_position=positions, weights=weights)(*inputs)
    else:
        grads = ms.grad(objective, grad_position=positions)(*inputs)
    return out, grads


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _fwd(name, make, values=X, dtype="float32", **hints):
    """Register ``name``: forward and gradients of ``make(nn)`` on ``values``."""
    def run(ms, ops, nn, np):
        return _fwd_grad(ms, np, make(ms, nn, np), _t(ms, np, values, dtype))
    case(_named(run, name), **hints)


def _out(name, make, values=X, dtype="float32", **hints):
    """Register ``name``: forward only (integer inputs, dtypes)."""
    def run(ms, ops, nn, np):
        return make(ms, nn, np)(_t(ms, np, values, dtype))
    case(_named(run, name), **hints)


def _raise(name, make):
    """Register ``name``: building (or calling) must raise."""
    def run(ms, ops, nn, np):
        return make(ms, nn, np)
    case(_named(run, name))


def _repr(name, make):
    def run(ms, ops, nn, np):
        cell = make(ms, nn, np)
        return repr(cell), [(n, p.name, tuple(p.shape), str(p.dtype), p.requires_grad)
                            for n, p in cell.parameters_and_names()]
    case(_named(run, name))


# ---------------------------------------------------------------------------- activations
_fwd("celu__default", lambda ms, nn, np: nn.CELU())
_fwd("celu__alpha2", lambda ms, nn, np: nn.CELU(2.0))
_raise("celu__alpha0_call", lambda ms, nn, np: nn.CELU(0.0)(_t(ms, np, X)))
_raise("celu__int_input", lambda ms, nn, np: nn.CELU()(_t(ms, np, [1, 2], "int64")))
_fwd("elu__default", lambda ms, nn, np: nn.ELU())
_fwd("elu__float16", lambda ms, nn, np: nn.ELU(), dtype="float16", rtol=2e-3, atol=2e-3)


def _elu2_expected(np):
    x = np.array(X, np.float64)
    out = np.where(x > 0, x, 2.0 * np.expm1(x))
    probe = np.linspace(-1.0, 1.3, x.size).reshape(x.shape)
    grad = probe * np.where(x > 0, 1.0, 2.0 * np.exp(x))
    return out.astype(np.float32), grad.astype(np.float32)


_fwd("elu__alpha2", lambda ms, nn, np: nn.ELU(2.0), mindspore_wrong=True, expected=_elu2_expected, rtol=1e-5,
     note="MindSpore 2.10 (CPU) raises 'alpha must be 1.0f' when nn.ELU(alpha != 1.0) is called; its docs "
          "give alpha as a free float, so cellkit computes alpha * (exp(x) - 1) for x <= 0")
_raise("elu__int_input", lambda ms, nn, np: nn.ELU()(_t(ms, np, [1, 2], "int64")))
_fwd("fast_gelu", lambda ms, nn, np: nn.FastGelu(), rtol=1e-4)
_raise("fast_gelu__int_input", lambda ms, nn, np: nn.FastGelu()(_t(ms, np, [1, 2], "int64")))
_fwd("glu__last", lambda ms, nn, np: nn.GLU())
_fwd("glu__axis0", lambda ms, nn, np: nn.GLU(0))
_raise("glu__odd_axis", lambda ms, nn, np: nn.GLU(1)(_t(ms, np, [[1.0, 2.0, 3.0]])))
_fwd("hshrink__default", lambda ms, nn, np: nn.HShrink())
_fwd("hshrink__lambd", lambda ms, nn, np: nn.HShrink(0.4))
_fwd("hshrink__int_lambd", lambda ms, nn, np: nn.HShrink(1))
_raise("hshrink__bad_lambd", lambda ms, nn, np: nn.HShrink("a"))
_fwd("softshrink__default", lambda ms, nn, np: nn.SoftShrink())
_fwd("softshrink__lambd", lambda ms, nn, np: nn.SoftShrink(0.4))
_raise("softshrink__bad_lambd", lambda ms, nn, np: nn.SoftShrink("a"))
_raise("softshrink__negative_lambd_call", lambda ms, nn, np: nn.SoftShrink(-1.0)(_t(ms, np, X)))
_fwd("hsigmoid", lambda ms, nn, np: nn.HSigmoid())
_fwd("hsigmoid__wide", lambda ms, nn, np: nn.HSigmoid(), values=[[-4.0, -2.0, 1.0, 3.5]])
_fwd("hswish", lambda ms, nn, np: nn.HSwish())
_fwd("hswish__wide", lambda ms, nn, np: nn.HSwish(), values=[[-4.0, -2.0, 1.0, 3.5]])
_fwd("hardtanh__default", lambda ms, nn, np: nn.Hardtanh())
_fwd("hardtanh__range", lambda ms, nn, np: nn.Hardtanh(-0.5, 0.6))
_fwd("hardtanh__int_bounds", lambda ms, nn, np: nn.Hardtanh(-2, 1))
_raise("hardtanh__min_ge_max", lambda ms, nn, np: nn.Hardtanh(1.0, 0.0))
_raise("hardtanh__equal", lambda ms, nn, np: nn.Hardtanh(0.5, 0.5))
_raise("hardtanh__str", lambda ms, nn, np: nn.Hardtanh("a", 1))
_fwd("leaky_relu__default", lambda ms, nn, np: nn.LeakyReLU())
_fwd("leaky_relu__alpha", lambda ms, nn, np: nn.LeakyReLU(0.1))
_fwd("leaky_relu__int_alpha", lambda ms, nn, np: nn.LeakyReLU(2))
_raise("leaky_relu__str_alpha_call", lambda ms, nn, np: nn.LeakyReLU("a")(_t(ms, np, X)))
_fwd("logsigmoid", lambda ms, nn, np: nn.LogSigmoid())
_fwd("mish", lambda ms, nn, np: nn.Mish(), rtol=1e-4)
_raise("mish__int_input", lambda ms, nn, np: nn.Mish()(_t(ms, np, [1, 2], "int64")))
_raise("mish__list_input", lambda ms, nn, np: nn.Mish()([1.0]))
_fwd("relu6", lambda ms, nn, np: nn.ReLU6(), values=[[-1.5, 0.5, 6.5, 3.0]])
def _selu_expected(np):
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    x = np.array(X, np.float64)
    out = scale * np.where(x > 0, x, alpha * np.expm1(x))
    probe = np.linspace(-1.0, 1.3, x.size).reshape(x.shape)
    grad = probe * scale * np.where(x > 0, 1.0, alpha * np.exp(x))
    return out.astype(np.float32), grad.astype(np.float32)


_fwd("selu", lambda ms, nn, np: nn.SeLU(), mindspore_wrong=True, expected=_selu_expected,
     note="MindSpore 2.10 (CPU) gives wrong gradients of nn.SeLU at negative inputs (e.g. +0.384 instead of "
          "-0.392 at x=-1.5 with probe -1); the forward values agree with the formula")
_fwd("softmin__last", lambda ms, nn, np: nn.Softmin())
_fwd("softmin__axis0", lambda ms, nn, np: nn.Softmin(0))
_raise("softmin__bad_axis", lambda ms, nn, np: nn.Softmin(5)(_t(ms, np, X)))
_raise("softmin__int_input", lambda ms, nn, np: nn.Softmin()(_t(ms, np, [1, 2], "int64")))
_fwd("softmax2d__4d", lambda ms, nn, np: nn.Softmax2d(), values=X4)
_fwd("softmax2d__3d", lambda ms, nn, np: nn.Softmax2d(), values=X4[0])
_raise("softmax2d__2d", lambda ms, nn, np: nn.Softmax2d()(_t(ms, np, X)))
_fwd("softsign", lambda ms, nn, np: nn.Softsign())
_raise("softsign__int_input", lambda ms, nn, np: nn.Softsign()(_t(ms, np, [1, 2], "int64")))
_fwd("tanhshrink", lambda ms, nn, np: nn.Tanhshrink(), rtol=1e-4, atol=1e-6)
_fwd("threshold__float", lambda ms, nn, np: nn.Threshold(0.1, 20.0))
_fwd("threshold__int", lambda ms, nn, np: nn.Threshold(1, 2))
_raise("threshold__str_call", lambda ms, nn, np: nn.Threshold("a", 1)(_t(ms, np, X)))
_raise("threshold__missing_args", lambda ms, nn, np: nn.Threshold())


# PReLU: the slopes are a Parameter; gradients for the input and the slopes.
_fwd("prelu__default", lambda ms, nn, np: nn.PReLU())
_fwd("prelu__channels_list", lambda ms, nn, np: nn.PReLU(2, [0.1, 0.3]), values=X4)
_fwd("prelu__channels_tensor", lambda ms, nn, np: nn.PReLU(2, _t(ms, np, [0.2, -0.1])), values=X4)
_fwd("prelu__float16_input", lambda ms, nn, np: nn.PReLU(), dtype="float16", rtol=2e-3, atol=2e-3)
_repr("prelu__repr_params", lambda ms, nn, np: nn.PReLU(3))
_repr("prelu__repr_params_float16", lambda ms, nn, np: nn.PReLU(2, _t(ms, np, [0.2, 0.1], "float16")))
_raise("prelu__channel0", lambda ms, nn, np: nn.PReLU(0))
_raise("prelu__list_length", lambda ms, nn, np: nn.PReLU(2, [0.1]))
_raise("prelu__list_int", lambda ms, nn, np: nn.PReLU(2, [0.1, 1]))
_raise("prelu__int_w", lambda ms, nn, np: nn.PReLU(1, 1))
_raise("prelu__int_tensor", lambda ms, nn, np: nn.PReLU(3, ms.Tensor(np.array([1, 2, 3]))))
_raise("prelu__tensor_shape", lambda ms, nn, np: nn.PReLU(3, _t(ms, np, [0.1, 0.2])))
_raise("prelu__channel_mismatch_call", lambda ms, nn, np: nn.PReLU(3)(_t(ms, np, X4)))


@case
def rrelu__properties(ms, ops, nn, np):
    """Positive elements pass; each negative one is scaled by a slope within [lower, upper]; train = eval."""
    x = _t(ms, np, X)
    results = []
    for cell in (nn.RReLU(), nn.RReLU(0.2, 0.4).set_train(), nn.RReLU(1, 2)):
        y = cell(x).asnumpy()
        xs = x.asnumpy()
        ratio = y / xs
        low, high = float(cell.lower.asnumpy()), float(cell.upper.asnumpy())
        results.append((y.shape, bool(np.all(ratio[xs > 0] == 1.0)),
                        bool(np.all((ratio[xs < 0] >= low - 1e-6) & (ratio[xs < 0] <= high + 1e-6)))))
    return results


@case
def rrelu__fixed_slope(ms, ops, nn, np):
    return nn.RReLU(0.5, 0.5)(_t(ms, np, X))


_raise("rrelu__lower_gt_upper", lambda ms, nn, np: nn.RReLU(0.5, 0.1))
_raise("rrelu__str", lambda ms, nn, np: nn.RReLU("a"))
_raise("rrelu__list_input", lambda ms, nn, np: nn.RReLU()([1.0]))


@case
def reprs(ms, ops, nn, np):
    cells = [nn.CELU(2.0), nn.ELU(), nn.FastGelu(), nn.GLU(), nn.HShrink(), nn.HSigmoid(), nn.HSwish(),
             nn.Hardtanh(), nn.LeakyReLU(), nn.LogSigmoid(), nn.Mish(), nn.RReLU(), nn.ReLU6(), nn.SeLU(),
             nn.SoftShrink(), nn.Softmax2d(), nn.Softmin(), nn.Softsign(), nn.Tanhshrink(),
             nn.Threshold(1.0, 2.0)]
    return [repr(c) for c in cells]


@case
def get_activation_names(ms, ops, nn, np):
    names = ["softmin", "softmax2d", "relu6", "rrelu", "tanhshrink", "hardtanh", "fast_gelu", "elu", "softsign",
             "prelu", "leakyrelu", "hswish", "hsigmoid", "logsigmoid", "softshrink", "hshrink", "mish"]
    return [type(nn.get_activation(n)).__name__ for n in names]


# ---------------------------------------------------------------------------- channel dropout
_DROP_SHAPES = {"Dropout1d": (4, 6, 5), "Dropout2d": (2, 6, 3, 3), "Dropout3d": (2, 6, 2, 2, 2)}


def _drop_properties(ms, nn, np, name, p, dtype="float32", shape=None):
    """Shape, dtype, values in {0, 1/(1-p)}, whole channels alike, and the gradient equal to the mask."""
    shape = shape or _DROP_SHAPES[name]
    cell = getattr(nn, name)(p).set_train()
    x = ms.Tensor(np.ones(shape, dtype))

    def f(x):
        return cell(x)

    out, grad = ms.value_and_grad(lambda x: (f(x) * 1).sum())(x) if dtype != "int32" else (None, None)
    y = cell(x).asnumpy().astype(np.float64)
    flat = y.reshape((-1,) + shape[-1:]) if len(shape) == 2 else y.reshape(shape[0] * shape[1], -1)
    scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    values = sorted(set(np.unique(y).tolist()))
    return (tuple(cell(x).shape), str(cell(x).dtype),
            all(v in (0.0, scale) or abs(v - scale) < 1e-3 * scale for v in values),
            bool(np.all(flat == flat[:, :1])),
            None if grad is None else bool(np.all((grad.asnumpy() == 0) | (abs(grad.asnumpy() - scale) < 1e-3))))


for _name in ("Dropout1d", "Dropout2d", "Dropout3d"):
    case(_named(lambda ms, ops, nn, np, _n=_name: _drop_properties(ms, nn, np, _n, 0.5), f"{_name.lower()}__train"))
    case(_named(lambda ms, ops, nn, np, _n=_name: _drop_properties(ms, nn, np, _n, 0.2), f"{_name.lower()}__p02"))
    case(_named(lambda ms, ops, nn, np, _n=_name: _drop_properties(ms, nn, np, _n, 0.5, "float16"),
                f"{_name.lower()}__float16"))
    case(_named(lambda ms, ops, nn, np, _n=_name: _drop_properties(ms, nn, np, _n, 0.5, "int32"),
                f"{_name.lower()}__int32"))
    case(_named(lambda ms, ops, nn, np, _n=_name: getattr(nn, _n)(1.0).set_train()(
        ms.Tensor(np.ones(_DROP_SHAPES[_n], np.float32))), f"{_name.lower()}__p1_zeros"))

    def _identity(ms, ops, nn, np, _n=_name):
        x = ms.Tensor(np.ones(_DROP_SHAPES[_n], np.float32))
        cell = getattr(nn, _n)(0.5)
        first = cell(x) is x
        cell.set_train()
        cell.set_train(False)
        return first, cell(x) is x, getattr(nn, _n)(0.0).set_train()(x) is x, cell.training
    case(_named(_identity, f"{_name.lower()}__eval_identity"))
    _raise(f"{_name.lower()}__int_p", lambda ms, nn, np, _n=_name: getattr(nn, _n)(1))
    _raise(f"{_name.lower()}__p_above_1", lambda ms, nn, np, _n=_name: getattr(nn, _n)(1.5))
    _raise(f"{_name.lower()}__p_negative", lambda ms, nn, np, _n=_name: getattr(nn, _n)(-0.1))
    _raise(f"{_name.lower()}__str_p", lambda ms, nn, np, _n=_name: getattr(nn, _n)("a"))
    _raise(f"{_name.lower()}__bad_rank", lambda ms, nn, np, _n=_name: getattr(nn, _n)().set_train()(
        ms.Tensor(np.ones((2, 3, 2, 2, 2, 2), np.float32))))

case(_named(lambda ms, ops, nn, np: _drop_properties(ms, nn, np, "Dropout1d", 0.5, shape=(6, 5)),
            "dropout1d__unbatched"))
_raise("dropout2d__3d_input", lambda ms, nn, np: nn.Dropout2d().set_train()(ms.Tensor(np.ones((4, 6, 5), np.float32))))
_raise("dropout3d__4d_input", lambda ms, nn, np: nn.Dropout3d().set_train()(
    ms.Tensor(np.ones((2, 6, 3, 3), np.float32))))


@case
def dropout1d__repr(ms, ops, nn, np):
    return repr(nn.Dropout1d()), repr(nn.Dropout1d(0.2))


def _dropout_repr_expected(np):
    return ("Dropout2d(p=0.5)", "Dropout2d(p=0.2)", "Dropout3d(p=0.5)", "Dropout3d(p=0.2)"), (0.5, 0.2, 0.5, 0.2)


@case(mindspore_wrong=True, expected=_dropout_repr_expected,
      note="MindSpore 2.10 prints the keep probability 1 - p under the name p (Dropout2d(0.2) shows p=0.8)")
def dropout23d__repr(ms, ops, nn, np):
    """The repr texts, and the number each shows as ``p``."""
    texts = repr(nn.Dropout2d()), repr(nn.Dropout2d(0.2)), repr(nn.Dropout3d()), repr(nn.Dropout3d(0.2))
    return texts, tuple(float(t.split("p=")[1].rstrip(")")) for t in texts)


# ---------------------------------------------------------------------------- Identity, Unflatten
@case
def identity__same_object(ms, ops, nn, np):
    x = _t(ms, np, X)
    cell = nn.Identity(1, 2, a=3)
    return cell(x) is x, cell(3), repr(cell), list(cell.parameters_and_names())


_fwd("identity__grad", lambda ms, nn, np: nn.Identity())

X3 = [[[float(i + 6 * j + 24 * k) / 10 - 2.0 for i in range(6)] for j in range(4)] for k in range(2)]
_fwd("unflatten__axis1", lambda ms, nn, np: nn.Unflatten(1, (2, 2)), values=X3)
_fwd("unflatten__last_list", lambda ms, nn, np: nn.Unflatten(-1, [3, 2]), values=X3)
_fwd("unflatten__neg2", lambda ms, nn, np: nn.Unflatten(-2, (2, -1)), values=X3)
_fwd("unflatten__axis0", lambda ms, nn, np: nn.Unflatten(0, (1, 2)), values=X3)
_fwd("unflatten__singleton", lambda ms, nn, np: nn.Unflatten(2, (6,)), values=X3)
_raise("unflatten__size_mismatch", lambda ms, nn, np: nn.Unflatten(1, (3, 2))(_t(ms, np, X3)))
_raise("unflatten__float_axis", lambda ms, nn, np: nn.Unflatten(1.0, (2, 2)))
_raise("unflatten__int_size", lambda ms, nn, np: nn.Unflatten(1, 2))


@case
def unflatten__repr(ms, ops, nn, np):
    return repr(nn.Unflatten(1, [2, 2])), nn.Unflatten(1, [2, 2]).unflattened_size


# ---------------------------------------------------------------------------- Linear
W23 = [[0.5, -1.0, 0.25], [2.0, 0.3, -0.7]]
B2 = [0.1, -0.2]


_fwd("linear__bias", lambda ms, nn, np: nn.Linear(3, 2, weight_init=_t(ms, np, W23), bias_init=_t(ms, np, B2)),
     values=[[1.0, 2.0, -0.5], [0.3, -1.2, 0.8]])
_fwd("linear__no_bias", lambda ms, nn, np: nn.Linear(3, 2, bias=False, weight_init=_t(ms, np, W23)),
     values=[[1.0, 2.0, -0.5], [0.3, -1.2, 0.8]])
_fwd("linear__3d", lambda ms, nn, np: nn.Linear(3, 2, weight_init=_t(ms, np, W23), bias_init=_t(ms, np, B2)),
     values=[[[1.0, 2.0, -0.5]], [[0.3, -1.2, 0.8]]])
_fwd("linear__ones_init", lambda ms, nn, np: nn.Linear(3, 2, weight_init="ones", bias_init="zeros"),
     values=[[1.0, 2.0, -0.5]])
_repr("linear__repr_params", lambda ms, nn, np: nn.Linear(3, 2))
_repr("linear__repr_no_bias", lambda ms, nn, np: nn.Linear(3, 2, bias=False))
_repr("linear__float16", lambda ms, nn, np: nn.Linear(3, 2, dtype=ms.float16))


@case
def linear__default_init_ranges(ms, ops, nn, np):
    layer = nn.Linear(16, 8)
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    bound_w = np.sqrt(6.0 / ((1 + 5.0) * 16))  # He-uniform with a = sqrt(5)
    return bool(np.all(np.abs(w) <= bound_w + 1e-6)), bool(np.all(np.abs(b) <= 0.25 + 1e-6)), bool(w.std() > 0)


_raise("linear__zero_in", lambda ms, nn, np: nn.Linear(0, 2))
_raise("linear__float_out", lambda ms, nn, np: nn.Linear(3, 2.0))
_raise("linear__int_bias", lambda ms, nn, np: nn.Linear(3, 2, bias=1))
_raise("linear__weight_shape", lambda ms, nn, np: nn.Linear(3, 2, weight_init=_t(ms, np, np.ones((3, 2)))))
_raise("linear__bias_shape", lambda ms, nn, np: nn.Linear(3, 2, bias_init=_t(ms, np, [1.0, 2.0, 3.0])))
_raise("linear__input_features", lambda ms, nn, np: nn.Linear(3, 2)(_t(ms, np, np.ones((2, 4)))))

# ---------------------------------------------------------------------------- BiDense
WB = [[[0.5, -1.0, 0.25], [2.0, 0.3, -0.7]], [[0.1, 0.2, -0.3], [-0.4, 0.6, 0.9]]]  # (2, 2, 3)
X1 = [[1.0, -0.5], [0.3, 2.0]]
X2 = [[0.2, -1.0, 0.7], [1.5, 0.4, -0.3]]


def _bidense_case(name, make, x1, x2, **hints):
    def run(ms, ops, nn, np):
        return _fwd_grad(ms, np, make(ms, nn, np), _t(ms, np, x1), _t(ms, np, x2))
    case(_named(run, name), **hints)


_bidense_case("bidense__bias", lambda ms, nn, np: nn.BiDense(2, 3, 2, weight_init=_t(ms, np, WB),
                                                             bias_init=_t(ms, np, B2)), X1, X2)
_bidense_case("bidense__no_bias", lambda ms, nn, np: nn.BiDense(2, 3, 2, weight_init=_t(ms, np, WB), has_bias=False),
              X1, X2)
_bidense_case("bidense__1d", lambda ms, nn, np: nn.BiDense(2, 3, 2, weight_init=_t(ms, np, WB),
                                                           bias_init=_t(ms, np, B2)), X1[0], X2[0])
_bidense_case("bidense__3d", lambda ms, nn, np: nn.BiDense(2, 3, 2, weight_init=_t(ms, np, WB),
                                                           bias_init=_t(ms, np, B2)), [X1, X1], [X2, X2])
_repr("bidense__repr_params", lambda ms, nn, np: nn.BiDense(2, 3, 4))
_repr("bidense__repr_no_bias", lambda ms, nn, np: nn.BiDense(2, 3, 4, has_bias=False))
_raise("bidense__zero_in1", lambda ms, nn, np: nn.BiDense(0, 3, 4))
_raise("bidense__int_has_bias", lambda ms, nn, np: nn.BiDense(2, 3, 4, has_bias=1))
_raise("bidense__weight_shape", lambda ms, nn, np: nn.BiDense(2, 3, 4, weight_init=_t(ms, np, np.ones((4, 3, 2)))))
_raise("bidense__bias_shape", lambda ms, nn, np: nn.BiDense(2, 3, 4, bias_init=_t(ms, np, np.ones((3,)))))
_raise("bidense__in1_mismatch", lambda ms, nn, np: nn.BiDense(2, 3, 4)(_t(ms, np, np.ones((5, 3))),
                                                                       _t(ms, np, np.ones((5, 3)))))
_raise("bidense__batch_mismatch", lambda ms, nn, np: nn.BiDense(2, 3, 4)(_t(ms, np, np.ones((5, 2))),
                                                                         _t(ms, np, np.ones((4, 3)))))
_raise("bidense__list_input", lambda ms, nn, np: nn.BiDense(2, 3, 4)([1.0, 2.0], _t(ms, np, np.ones((3,)))))


# ---------------------------------------------------------------------------- EmbeddingLookup
TABLE = [[0.5, -1.0, 0.25], [2.0, 0.3, -0.7], [0.1, 0.2, -0.3], [3.0, 4.0, 1.0]]


def _lookup_case(name, make, ids, **hints):
    """Register ``name``: the rows looked up, and the gradient for the table."""
    def run(ms, ops, nn, np):
        cell = make(ms, nn, np)
        indices = ms.Tensor(np.array(ids, np.int32))
        out = cell(indices)
        probe = _probe(ms, np, tuple(out.shape), out.dtype)
        grads = ms.grad(lambda i: (cell(i) * probe).sum(), grad_position=None, weights=cell.trainable_params())(
            indices)
        return out, grads
    case(_named(run, name), **hints)


def _lookup_expected(ids):
    """The rows of TABLE at ``ids`` (zeros out of range) and the table gradient: probe rows added at ``ids``."""
    def expected(np):
        table = np.array(TABLE, np.float64)
        flat = np.array(ids).reshape(-1)
        probe = np.linspace(-1.0, 1.3, flat.size * 3).reshape(flat.size, 3)
        rows = np.array([table[i] if 0 <= i < 4 else np.zeros(3) for i in flat])
        grad = np.zeros_like(table)
        for k, i in enumerate(flat):
            if 0 <= i < 4:
                grad[i] += probe[k]
        return rows.reshape(np.array(ids).shape + (3,)).astype(np.float32), (grad.astype(np.float32),)
    return expected


_LOOKUP_NOTE = ("MindSpore 2.10's EmbeddingLookup (target 'CPU', sparse) has a sparse row gradient; ms.grad returns "
                "its values in lookup order, unscattered (row k of the result is the k-th looked-up row's "
                "gradient), not the gradient of the table: repeated ids are not added, out-of-range ids not dropped")
_lookup_case("embedding_lookup__cpu", lambda ms, nn, np: nn.EmbeddingLookup(4, 3, param_init=_t(ms, np, TABLE)),
             [[0, 3], [1, 1]], mindspore_wrong=True, expected=_lookup_expected([[0, 3], [1, 1]]), note=_LOOKUP_NOTE)
_lookup_case("embedding_lookup__out_of_range_rows", lambda ms, nn, np: nn.EmbeddingLookup(
    4, 3, param_init=_t(ms, np, TABLE)), [[0, -1], [5, 2]], mindspore_wrong=True,
    expected=_lookup_expected([[0, -1], [5, 2]]), note=_LOOKUP_NOTE)
_lookup_case("embedding_lookup__device_dense", lambda ms, nn, np: nn.EmbeddingLookup(
    4, 3, param_init=_t(ms, np, TABLE), target="DEVICE", sparse=False), [[0, 3], [2, 1]])


def _lookup_max_norm_expected(np):
    table = np.array(TABLE, np.float64)
    ids = np.array([[0, 3], [1, 2]])
    rows = table[ids]
    norms = np.sqrt((rows ** 2).sum(-1, keepdims=True))
    return (rows * 2.0 / np.maximum(norms, 2.0)).astype(np.float32)


@case(mindspore_wrong=True, expected=_lookup_max_norm_expected,
      note="MindSpore 2.10 (CPU) caps EmbeddingLookup rows with norms taken over the wrong slices of the output "
           "(with max_norm=2.0 the row [3, 4, 1] comes out with norm 3.2); its docs cap each row's L2 norm at "
           "max_norm")
def embedding_lookup__max_norm(ms, ops, nn, np):
    cell = nn.EmbeddingLookup(4, 3, param_init=_t(ms, np, TABLE), max_norm=2.0)
    return cell(ms.Tensor(np.array([[0, 3], [1, 2]], np.int32)))


@case
def embedding_lookup__params(ms, ops, nn, np):
    cell = nn.EmbeddingLookup(4, 3)
    half = nn.EmbeddingLookup(5, 2, dtype=ms.float16)
    ids64 = nn.EmbeddingLookup(4, 3, param_init=_t(ms, np, TABLE))(ms.Tensor(np.array([[3, 0]], np.int64)))
    return (repr(cell), [(n, p.name, tuple(p.shape), str(p.dtype)) for n, p in cell.parameters_and_names()],
            str(half.embedding_table.dtype), ids64, nn.EmbeddingLookup(4, 3, slice_mode="table_row_slice").target)


_raise("embedding_lookup__cpu_dense", lambda ms, nn, np: nn.EmbeddingLookup(4, 3, target="CPU", sparse=False))
_raise("embedding_lookup__bad_target", lambda ms, nn, np: nn.EmbeddingLookup(4, 3, target="GPU"))
_raise("embedding_lookup__zero_vocab", lambda ms, nn, np: nn.EmbeddingLookup(0, 3))
_raise("embedding_lookup__int_sparse", lambda ms, nn, np: nn.EmbeddingLookup(4, 3, sparse=1))
_raise("embedding_lookup__negative_max_norm", lambda ms, nn, np: nn.EmbeddingLookup(4, 3, max_norm=-1.0))
_raise("embedding_lookup__int_max_norm", lambda ms, nn, np: nn.EmbeddingLookup(4, 3, max_norm=1))
_raise("embedding_lookup__float_ids", lambda ms, nn, np: nn.EmbeddingLookup(4, 3)(_t(ms, np, [[0.0]])))
_raise("embedding_lookup__device_out_of_range", lambda ms, nn, np: nn.EmbeddingLookup(
    4, 3, target="DEVICE", sparse=False)(ms.Tensor(np.array([[0, 7]], np.int32))))


# ---------------------------------------------------------------------------- ReduceLogSumExp, IGamma
XL = [[0.5, -1.0, 0.25, 2.0], [1.2, 0.3, -0.7, 0.1], [3.0, -2.0, 0.0, 1.5]]
_fwd("reduce_logsumexp__axis1", lambda ms, nn, np: nn.ReduceLogSumExp(1), values=XL)
_fwd("reduce_logsumexp__axis0_keep", lambda ms, nn, np: nn.ReduceLogSumExp(0, True), values=XL)
_fwd("reduce_logsumexp__negative_axis", lambda ms, nn, np: nn.ReduceLogSumExp(-1), values=XL)
_fwd("reduce_logsumexp__list_axis", lambda ms, nn, np: nn.ReduceLogSumExp([0, 1]), values=XL)
_fwd("reduce_logsumexp__all", lambda ms, nn, np: nn.ReduceLogSumExp(()), values=XL)
_fwd("reduce_logsumexp__all_keep", lambda ms, nn, np: nn.ReduceLogSumExp((0, 1), True), values=XL)
XBIG = [[1000.0, 1001.0], [-5.0, 2.0]]


def _logsumexp_large_expected(np):
    x = np.array(XBIG, np.float64)
    m = x.max(1, keepdims=True)
    out = (np.log(np.exp(x - m).sum(1, keepdims=True)) + m)[:, 0]
    return out[:1].astype(np.float32), np.ones(2, np.float32), np.ones((2, 2), np.float32)


@case(mindspore_wrong=True, expected=_logsumexp_large_expected,
      note="MindSpore 2.10 nn.ReduceLogSumExp shifts by the global maximum: the row [-5, 2] next to a row near 1000 "
           "underflows to -inf, and every gradient is NaN (log(e^-5 + e^2) = 2.0009; tests/nn checks the values)")
def reduce_logsumexp__large(ms, ops, nn, np):
    """The first row's value, and which values and gradients are finite (MindSpore's are not)."""
    cell = nn.ReduceLogSumExp(1)
    x = _t(ms, np, XBIG)
    out = cell(x)
    grad = ms.grad(lambda x: (cell(x) * _t(ms, np, [-1.0, 1.3])).sum())(x)
    return out[:1], ops.isfinite(out).astype(ms.float32), ops.isfinite(grad).astype(ms.float32)


_raise("reduce_logsumexp__float_axis", lambda ms, nn, np: nn.ReduceLogSumExp(1.5))
_raise("reduce_logsumexp__int_keep_dims", lambda ms, nn, np: nn.ReduceLogSumExp(1, 1))
_raise("reduce_logsumexp__axis_range", lambda ms, nn, np: nn.ReduceLogSumExp(5)(_t(ms, np, XL)))
_raise("reduce_logsumexp__int_input", lambda ms, nn, np: nn.ReduceLogSumExp(1)(_t(ms, np, [[1, 2]], "int64")))


@case
def reduce_logsumexp__repr(ms, ops, nn, np):
    return repr(nn.ReduceLogSumExp(1))


@case(rtol=1e-4, atol=1e-6)
def igamma__values(ms, ops, nn, np):
    a = _t(ms, np, [0.5, 1.0, 2.0, 3.5, 0.8])
    x = _t(ms, np, [0.3, 1.0, 3.0, 2.0, 5.0])
    return nn.IGamma()(a, x)


@case(rtol=1e-4, atol=1e-6)
def igamma__broadcast_edges(ms, ops, nn, np):
    cell = nn.IGamma()
    return (cell(_t(ms, np, [[0.5], [2.0]]), _t(ms, np, [0.3, 1.5])),
            cell(_t(ms, np, [0.5, 2.0]), _t(ms, np, [0.0, 0.0])),
            cell(_t(ms, np, [-0.5, 1.0]), _t(ms, np, [0.3, -1.0])))


@case(rtol=1e-4, atol=1e-6)
def igamma__grad_x(ms, ops, nn, np):
    a = _t(ms, np, [0.5, 1.0, 2.0, 3.5])
    x = _t(ms, np, [0.3, 1.0, 3.0, 2.0])
    return ms.grad(lambda x: (nn.IGamma()(a, x) * _t(ms, np, [1.0, -0.5, 0.25, 2.0])).sum())(x)


_raise("igamma__float64", lambda ms, nn, np: nn.IGamma()(_t(ms, np, [0.5], "float64"), _t(ms, np, [0.3], "float64")))
_raise("igamma__mixed", lambda ms, nn, np: nn.IGamma()(_t(ms, np, [0.5]), _t(ms, np, [0.3], "float64")))


# ---------------------------------------------------------------------------- SparseTensorDenseMatmul, SparseToDense
def _st(ms, np):
    return ms.Tensor(np.array([[0, 1], [1, 2], [2, 0]], np.int32)), _t(ms, np, [1.5, -2.0, 0.5])


DENSE = [[0.5, -1.0], [2.0, 0.3], [0.1, 0.2], [3.0, 4.0]]


def _stdm_case(name, make, dense_values, shape=(3, 4)):
    def run(ms, ops, nn, np):
        cell = make(nn)
        indices, values = _st(ms, np)
        dense = _t(ms, np, dense_values)
        out = cell(indices, values, shape, dense)
        probe = _probe(ms, np, tuple(out.shape), out.dtype)
        grads = ms.grad(lambda v, d: (cell(indices, v, shape, d) * probe).sum(), grad_position=(0, 1))(values, dense)
        return out, grads
    case(_named(run, name))


_stdm_case("sparse_dense_matmul__plain", lambda nn: nn.SparseTensorDenseMatmul(), DENSE)
_stdm_case("sparse_dense_matmul__adjoint_st", lambda nn: nn.SparseTensorDenseMatmul(adjoint_st=True), DENSE[:3])
_stdm_case("sparse_dense_matmul__adjoint_dt", lambda nn: nn.SparseTensorDenseMatmul(adjoint_dt=True),
           [list(r) for r in zip(*DENSE)])
_stdm_case("sparse_dense_matmul__both", lambda nn: nn.SparseTensorDenseMatmul(True, True),
           [list(r) for r in zip(*DENSE[:3])])


@case
def sparse_dense_matmul__shape_tensor(ms, ops, nn, np):
    indices, values = _st(ms, np)
    return nn.SparseTensorDenseMatmul()(indices.astype(ms.int64), values, ms.Tensor(np.array([3, 4])),
                                        _t(ms, np, DENSE)), repr(nn.SparseTensorDenseMatmul())


_raise("sparse_dense_matmul__int_adjoint", lambda ms, nn, np: nn.SparseTensorDenseMatmul(adjoint_st=1))


@case
def sparse_to_dense__coo(ms, ops, nn, np):
    indices, values = _st(ms, np)
    cell = nn.SparseToDense()
    return cell(ms.COOTensor(indices, values, (3, 4))), repr(cell)
