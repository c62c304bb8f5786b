"""Elementwise math beyond the four operations: trigonometry, special functions, rounding, bit operations, comparisons and Python-scalar ops.

Each op follows the op pattern of ``cellkit/ops/_core.py`` (a forward on raw arrays, a backward
rule written once in the rule namespace ``m``), and is declared in the op catalogue
(``tests/op_catalogue/elementwise.py``) with its samples, aliases and MindSpore fixtures.

Dtypes follow MindSpore 2.10: the float-only functions (trigonometry, logarithms, special
functions) refuse integer and bool tensors with a TypeError; the bit operations refuse floats;
``sinc``, ``exp2``, ``copysign``, ``ldexp`` and ``xlogy`` compute integers in Float32;
``float_power`` always answers in Float64.  Where MindSpore's CPU build merely lacks a kernel for
a dtype its documentation accepts (``hypot`` of Float16, ``lcm`` of Int16 ...), cellkit computes it.

Special functions (Bessel functions, the gamma family, ``erfinv``, ``zeta``, the incomplete
gamma and beta functions) are SciPy's ``scipy.special`` (CuPy's ``cupyx.scipy.special`` on a
GPU).  On a device SciPy cannot reach they copy their arguments to the host and the result back,
explicitly (``backend().to_host`` / ``from_host``); each says so in its docstring.  Their
derivatives are written as rules in other special functions (``bessel_i0`` -> ``bessel_i1``,
``lgamma`` -> ``digamma`` -> ``polygamma(1, .)`` ...), so gradients of gradients work.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.atan2(ms.Tensor([1.0, -1.0]), ms.Tensor([1.0, 1.0])).asnumpy().round(5))  # float32's last digit varies
[ 0.7854 -0.7854]
>>> print(ops.bitwise_xor(ms.Tensor([5, 3]), ms.Tensor([1, 1])))
[4 2]
"""
from __future__ import annotations

import math as _pymath

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..autograd import OUTPUT
from ..tensor import Tensor
from . import creation as _creation
from . import math as _math
from ._core import binary_operands, describe, int_arg, record, tensor_arg, wrap, xp
from .math import FLOAT_KINDS, INT_BOOL_KINDS, INT_KINDS, NUMBER_KINDS, check_kind
from .primitive import Primitive, prim_attr_register

__all__ = [
    # trigonometry, hyperbolic functions, logarithms and powers
    "tan", "cosh", "sinh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan",
    "arcsinh", "arccosh", "arctanh", "atan2", "arctan2", "hypot", "deg2rad", "rad2deg", "sinc", "exp2",
    "log2", "log10", "logaddexp", "logaddexp2", "logit", "xlogy", "xdivy", "float_power", "float_power_ext",
    "ldexp", "inv", "absolute", "positive",
    # special functions
    "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "igamma", "igammac", "zeta",
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e",
    "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "i0",
    # rounding, signs and remainders
    "trunc", "frac", "sgn", "signbit", "copysign", "nan_to_num", "nextafter", "fmod", "floor_mod",
    "truncate_div", "truncate_mod", "fmax", "fmin", "heaviside",
    # several operands
    "lerp", "addcdiv", "addcmul", "addn", "clip_by_value",
    # bits and integers
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "invert",
    "population_count", "gcd", "lcm",
    # comparisons and logic
    "logical_xor", "isclose", "isinf", "isneginf", "isposinf", "isreal", "is_floating_point",
    "approximate_equal",
    # Python scalars and MindSpore's composite spellings
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
    "scalar_eq", "scalar_ge", "scalar_gt", "scalar_le", "scalar_lt", "scalar_max", "scalar_min", "scalar_log",
    "scalar_uadd", "scalar_usub", "tensor_div", "tensor_gt", "tensor_lt", "tensor_sub", "hyper_add",
    # Primitives
    "Addcdiv", "Addcmul", "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1", "BesselK0",
    "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1", "Betainc", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "Digamma", "DivNoNan", "Fmax", "Fmin", "Heaviside", "Hypot", "Igamma", "Igammac", "Inv",
    "Invert", "IsClose", "IsNan", "Lcm", "LeftShift", "RightShift", "Lgamma", "LogicalAnd", "LogicalNot",
    "LogicalOr", "LogicalXor", "Logit", "MulNoNan", "Mvlgamma", "Polygamma", "PopulationCount", "Reciprocal",
    "Rint", "Round", "SquaredDifference", "Tan", "TruncateDiv", "TruncateMod", "Xdivy", "Xlogy", "Zeta",
]

_record_binary, _pair, _compute = _math._record_binary, _math._pair, _math._compute
_LN2 = _pymath.log(2.0)
_LN10 = _pymath.log(10.0)


# ------------------------------------------------------------------------------------------ plumbing
def _tensor(value, name, op):
    """``value`` as a Tensor with data (the common case, a Tensor, costs one type check)."""
    if type(value) is Tensor and value._data is not None:
        return value
    return tensor_arg(value, name, op)


def _as_float32(array):
    x = xp()
    return x.astype(array, _dt.float32.to_backend(x))


def _unary(input, op, name, forward, rule=None, saves=(0,), kinds=FLOAT_KINDS, arg="input", to_float=False):
    """A one-input op: ``forward(array)``, recording ``rule`` with the saved input (0) and/or output.

    ``kinds`` are the dtype kinds MindSpore accepts (others raise its TypeError); ``to_float``
    computes integer and bool inputs in Float32.
    """
    t = _tensor(input, arg, op)
    a = t._data
    kind = _dt.dtype_of(a).kind
    if kinds is not None and kind not in kinds:
        check_kind(t, kinds, op, arg)
    if to_float and kind != "float":
        a = _as_float32(a)
    out = forward(a)
    if rule is None or _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, name, rule, (t,), tuple(a if s == 0 else out for s in saves), saves)


def _saved(m, node):
    return node.unpack(m)[0]


def _operands(input, other, op, kinds=None, to_float=False, names=("input", "other")):
    """Promoted arrays of two operands (Tensors or numbers), both backend arrays of one dtype.

    Returns ``(a, b, A, B)`` as :func:`binary_operands`, with a Python number made an array of
    the other operand's dtype (rules then never meet NumPy's float64 scalars).
    """
    a, b, A, B = binary_operands(input, other, op)
    x = xp()
    if not hasattr(A, "dtype"):
        A = _number_array(A, B.dtype, op, names[0])
    if not hasattr(B, "dtype"):
        B = _number_array(B, A.dtype, op, names[1])
    kind = _dt.dtype_of(A).kind
    if kinds is not None and kind not in kinds:
        for value, name in ((a, names[0]), (b, names[1])):
            if isinstance(value, Tensor):
                check_kind(value, kinds, op, name)
        number, name = (a, names[0]) if not isinstance(a, Tensor) else (b, names[1])
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of {_math._KIND_WORDS.get(kinds, sorted(kinds))} "
                        f"or a number of that kind, but got {describe(number)}")
    if to_float and kind != "float":
        A, B = x.astype(A, _dt.float32.to_backend(x)), x.astype(B, _dt.float32.to_backend(x))
    return a, b, A, B


def _number_array(value, dtype, op, name):
    """A Python number as a 0-d array of ``dtype``; ValueError if an integer does not fit it."""
    if isinstance(value, int) and np.dtype(_dt.dtype_of_array_dtype(dtype).array_name).kind in "iu":
        info = np.iinfo(_dt.dtype_of_array_dtype(dtype).array_name)
        if not info.min <= value <= info.max:
            raise ValueError(f"For '{op}', '{name}' is {value}, which is out of the range of "
                             f"{_dt.dtype_of_array_dtype(dtype)} [{info.min}, {info.max}]")
    if _backend._current.is_numpy:
        return np.asarray(value, dtype)
    return _backend._current.asarray(value, dtype=dtype)


def _binary(input, other, op, name, forward, rule=None, saves=(), kinds=None, to_float=False,
            names=("input", "other")):
    """A two-operand broadcasting op: ``forward(A, B)`` on the promoted arrays.

    ``saves`` lists what the rule needs: 0 (input), 1 (other) or OUTPUT.
    """
    a, b, A, B = _operands(input, other, op, kinds, to_float, names)
    out = _compute(forward, A, B, op, names)
    if rule is None or _ag._depth == 0:
        return wrap(out)
    values = {0: A, 1: B, OUTPUT: out}
    return _record_binary(out, name, a, b, rule, tuple(values[s] for s in saves), saves)


def _steps(m, node, g):
    """Steps (trunc, rint, truncate_div ...): the derivative is zero almost everywhere."""
    return tuple(None if i is None else m.zeros_like(g) for i in node.inputs)


# --- the special-function bridge: SciPy on the host, CuPy's cupyx on a GPU ----------------------------
_scipy_special = None


def _scipy():
    global _scipy_special
    if _scipy_special is None:
        try:
            import scipy.special as special
        except ImportError:  # pragma: no cover - scipy is a dependency
            raise RuntimeError("cellkit's special functions need SciPy: pip install scipy") from None
        _scipy_special = special
    return _scipy_special


def _host_float(a):
    """A host array SciPy can compute on: float16 and bfloat16 in float32 (cast back afterwards)."""
    return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind in "fV" and a.dtype.itemsize < 4 else a


def special(name, *arrays):
    """``scipy.special.<name>`` of backend arrays (Python numbers pass through), in the last array's dtype.

    On NumPy it runs in place; on CuPy through ``cupyx.scipy.special`` where that has the
    function; elsewhere (the strict device) the arrays go to the host and back, explicitly.
    """
    be = _backend._current
    if be.name == "cupy":
        try:
            import cupyx.scipy.special as cupy_special

            fn = getattr(cupy_special, name)
        except (ImportError, AttributeError):
            fn = None
        if fn is not None:
            args = [a if hasattr(a, "shape") else be.xp.asarray(a) for a in arrays]
            return fn(*args).astype(arrays[-1].dtype, copy=False)
    hosts = [be.to_host(a) if hasattr(a, "shape") else a for a in arrays]
    dtype = hosts[-1].dtype
    out = np.asarray(getattr(_scipy(), name)(*[_host_float(h) for h in hosts]))
    out = out.astype(dtype, copy=False)
    return out if be.is_numpy else be.from_host(out)


def _to_host_bool(value):
    """A backend boolean scalar as a Python bool (an explicit host copy)."""
    return bool(_backend._current.to_host(value))


# --------------------------------------------------------------------- trigonometry and hyperbolic functions
def tan(input):
    """Elementwise tangent; float tensors only.

    >>> import cellkit as ms
    >>> print(tan(ms.Tensor([0.0, 0.5])))
    [0.        0.5463025]
    """
    return _unary(input, "tan", "Tan", lambda a: xp().tan(a), _tan_rule, (OUTPUT,))


def _tan_rule(m, node, g):
    out = _saved(m, node)
    return (g * (1 + out * out),)


def _cosh_array(a):
    return xp().cosh(a)


def _sinh_array(a):
    return xp().sinh(a)


def cosh(input):
    """Elementwise hyperbolic cosine; float tensors only (gradient ``sinh``)."""
    return _unary(input, "cosh", "Cosh", _cosh_array, _cosh_rule)


def _cosh_rule(m, node, g):
    return (g * m.call(_sinh_array, sinh, _saved(m, node)),)


def sinh(input):
    """Elementwise hyperbolic sine; float tensors only (gradient ``cosh``)."""
    return _unary(input, "sinh", "Sinh", _sinh_array, _sinh_rule)


def _sinh_rule(m, node, g):
    return (g * m.call(_cosh_array, cosh, _saved(m, node)),)


def asin(input):
    """Elementwise arcsine, in radians; NaN outside [-1, 1].

    >>> import cellkit as ms
    >>> print(asin(ms.Tensor([0.0, 1.0])))
    [0.        1.5707964]
    """
    return _unary(input, "asin", "Asin", lambda a: xp().asin(a), _asin_rule)


def _asin_rule(m, node, g):
    x = _saved(m, node)
    return (g / m.sqrt(1 - x * x),)


def acos(input):
    """Elementwise arccosine, in radians; NaN outside [-1, 1]."""
    return _unary(input, "acos", "ACos", lambda a: xp().acos(a), _acos_rule)


def _acos_rule(m, node, g):
    x = _saved(m, node)
    return (-g / m.sqrt(1 - x * x),)


def atan(input):
    """Elementwise arctangent, in radians."""
    return _unary(input, "atan", "Atan", lambda a: xp().atan(a), _atan_rule)


def _atan_rule(m, node, g):
    x = _saved(m, node)
    return (g / (1 + x * x),)


def asinh(input):
    """Elementwise inverse hyperbolic sine."""
    return _unary(input, "asinh", "Asinh", lambda a: xp().asinh(a), _asinh_rule)


def _asinh_rule(m, node, g):
    x = _saved(m, node)
    return (g / m.sqrt(x * x + 1),)


def acosh(input):
    """Elementwise inverse hyperbolic cosine; NaN below 1."""
    return _unary(input, "acosh", "Acosh", lambda a: xp().acosh(a), _acosh_rule)


def _acosh_rule(m, node, g):
    x = _saved(m, node)
    return (g / m.sqrt(x * x - 1),)


def atanh(input):
    """Elementwise inverse hyperbolic tangent; NaN outside [-1, 1]."""
    return _unary(input, "atanh", "Atanh", lambda a: xp().atanh(a), _atanh_rule)


def _atanh_rule(m, node, g):
    x = _saved(m, node)
    return (g / (1 - x * x),)


def arcsin(x):
    """Same as :func:`asin`."""
    return _unary(x, "arcsin", "Asin", lambda a: xp().asin(a), _asin_rule, arg="x")


arccos, arctan, arcsinh, arccosh, arctanh = acos, atan, asinh, acosh, atanh


def atan2(input, other):
    """Elementwise arctangent of ``input / other`` in the right quadrant (radians in [-pi, pi]).

    Integer operands meet a float one in its dtype; two integer tensors are refused, as in MindSpore.

    >>> import cellkit as ms
    >>> print(atan2(ms.Tensor([1.0]), ms.Tensor([-1.0])))
    [2.3561945]
    """
    return _binary(input, other, "atan2", "Atan2", lambda A, B: xp().atan2(A, B), _atan2_rule, (0, 1),
                   FLOAT_KINDS)


def _atan2_rule(m, node, g):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)."""
    Y, X = node.unpack(m)
    scale = g / (X * X + Y * Y)
    ia, ib = node.inputs
    return _pair(m, node, scale * X if ia is not None else None, -scale * Y if ib is not None else None)


arctan2 = atan2


def hypot(input, other):
    """``sqrt(input**2 + other**2)`` elementwise, without overflow on the way.

    >>> import cellkit as ms
    >>> print(hypot(ms.Tensor([3.0]), ms.Tensor([4.0])))
    [5.]
    """
    return _binary(input, other, "hypot", "Hypot", lambda A, B: xp().hypot(A, B), _hypot_rule, (0, 1, OUTPUT),
                   FLOAT_KINDS)


def _hypot_rule(m, node, g):
    A, B, out = node.unpack(m)
    scale = g / out
    ia, ib = node.inputs
    return _pair(m, node, scale * A if ia is not None else None, scale * B if ib is not None else None)


def deg2rad(x):
    """Degrees to radians; float tensors only."""
    return _unary(x, "deg2rad", "Deg2Rad", lambda a: a * _pymath.radians(1.0), _deg2rad_rule, (), arg="x")


def _deg2rad_rule(m, node, g):
    return (g * _pymath.radians(1.0),)


def rad2deg(x):
    """Radians to degrees; float tensors only."""
    return _unary(x, "rad2deg", "Rad2Deg", lambda a: a * _pymath.degrees(1.0), _rad2deg_rule, (), arg="x")


def _rad2deg_rule(m, node, g):
    return (g * _pymath.degrees(1.0),)


def _sinc_array(a):
    x = xp()
    scaled = a * _pymath.pi
    safe = x.where(a == 0, x.ones_like(a), scaled)
    return x.where(a == 0, x.ones_like(a), x.sin(safe) / safe)


def sinc(input):
    """The normalised sinc, ``sin(pi x) / (pi x)`` (1 at 0); integers compute in Float32.

    MindSpore 2.10 (CPU) gives NaN for ``sinc(False)`` (and 1 for an integer or float zero);
    cellkit gives 1.

    >>> import cellkit as ms
    >>> print(sinc(ms.Tensor([0.0, 0.5])).asnumpy().round(5))  # float32's last digit varies by library
    [1.      0.63662]
    """
    return _unary(input, "sinc", "Sinc", _sinc_array, _sinc_rule, (0, OUTPUT), kinds=None, to_float=True)


def _sinc_rule(m, node, g):
    """d sinc(x) = (cos(pi x) - sinc(x)) / x, and 0 at x = 0."""
    x, out = node.unpack(m)
    at_zero = x == 0
    safe = m.where(at_zero, m.ones_like(x), x)
    slope = (m.cos(safe * _pymath.pi) - out) / safe
    return (g * m.where(at_zero, m.zeros_like(slope), slope),)


def exp2(input):
    """``2 ** input``; integer and bool tensors compute in Float32.

    >>> import cellkit as ms
    >>> print(exp2(ms.Tensor([0, 3])))
    [1. 8.]
    """
    return _unary(input, "exp2", "Exp2", lambda a: xp().pow(2.0, a) if not _backend._current.is_numpy
                  else np.exp2(a), _exp2_rule, (OUTPUT,), kinds=None, to_float=True)


def _exp2_rule(m, node, g):
    return (g * _saved(m, node) * _LN2,)


def log2(input):
    """Base-2 logarithm; float tensors only."""
    return _unary(input, "log2", "Log2", lambda a: xp().log2(a), _log2_rule)


def _log2_rule(m, node, g):
    return (g / (_saved(m, node) * _LN2),)


def log10(input):
    """Base-10 logarithm; float tensors only."""
    return _unary(input, "log10", "Log10", lambda a: xp().log10(a), _log10_rule)


def _log10_rule(m, node, g):
    return (g / (_saved(m, node) * _LN10),)


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow; float tensors only.

    >>> import cellkit as ms
    >>> print(logaddexp(ms.Tensor([0.0]), ms.Tensor([0.0])))
    [0.6931472]
    """
    return _binary(input, other, "logaddexp", "LogAddExp", lambda A, B: xp().logaddexp(A, B), _logaddexp_rule,
                   (0, 1), FLOAT_KINDS)


def _logaddexp_rule(m, node, g):
    A, B = node.unpack(m)
    ia, ib = node.inputs
    return _pair(m, node, g * m.sigmoid(A - B) if ia is not None else None,
                 g * m.sigmoid(B - A) if ib is not None else None)


def _logaddexp2_array(A, B):
    x = xp()
    if hasattr(x, "logaddexp2"):  # NumPy, CuPy
        return x.logaddexp2(A, B)
    return x.logaddexp(A * _LN2, B * _LN2) / _LN2


def logaddexp2(input, other):
    """``log2(2**input + 2**other)`` without overflow; float tensors only."""
    return _binary(input, other, "logaddexp2", "LogAddExp2", _logaddexp2_array, _logaddexp2_rule, (0, 1),
                   FLOAT_KINDS)


def _logaddexp2_rule(m, node, g):
    A, B = node.unpack(m)
    ia, ib = node.inputs
    return _pair(m, node, g * m.sigmoid((A - B) * _LN2) if ia is not None else None,
                 g * m.sigmoid((B - A) * _LN2) if ib is not None else None)


def logit(input, eps=None):
    """``log(p / (1 - p))``; with ``eps`` the input is first clamped to ``[eps, 1 - eps]``.

    ``eps=None`` (or a negative ``eps``, as the Primitive's default -1.0) clamps nothing.
    The gradient is zero where the clamp holds the input.

    >>> import cellkit as ms
    >>> print(logit(ms.Tensor([0.5, 0.75])))
    [0.        1.0986123]
    """
    if eps is not None:
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise TypeError(f"For 'logit', 'eps' must be a float or None, but got {describe(eps)}")
        eps = float(eps)
        if eps < 0:
            eps = None
    t = _tensor(input, "input", "logit")
    check_kind(t, FLOAT_KINDS, "logit")
    a = t._data
    x = xp()
    held = None
    if eps is not None:
        held = (a < eps) | (a > 1 - eps)
        a = x.clip(a, eps, 1 - eps)
    out = x.log(a / (1 - a))
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    if held is None:
        held = x.zeros_like(a, dtype=_dt.bool_.to_backend(x))
    return record(out, "Logit", _logit_rule, (t,), (a, held), (0, None))


def _logit_rule(m, node, g):
    a, held = node.unpack(m)
    slope = g / (a * (1 - a))
    return (m.where(held, m.zeros_like(slope), slope),)


def xlogy(input, other):
    """``input * log(other)``, and 0 where ``input`` is 0 (even if ``other`` is 0 or NaN).

    Integer and bool operands compute in Float32.

    >>> import cellkit as ms
    >>> print(xlogy(ms.Tensor([0.0, 2.0]), ms.Tensor([0.0, 1.0])))
    [0. 0.]
    """
    return _binary(input, other, "xlogy", "Xlogy", _xlogy_array, _xlogy_rule, (0, 1), to_float=True)


def _xlogy_array(A, B):
    x = xp()
    zero = A == 0
    return x.where(zero, x.zeros_like(A * B), A * x.log(x.where(zero, x.ones_like(B), B)))


def _xlogy_rule(m, node, g):
    """d/dx = log(y) and d/dy = x / y where x != 0; 0 where x == 0."""
    A, B = node.unpack(m)
    ia, ib = node.inputs
    zero = A == 0
    safe_b = m.where(zero, m.ones_like(B), B)
    ga = m.where(zero, m.zeros_like(g), g * m.log(safe_b)) if ia is not None else None
    gb = m.where(zero, m.zeros_like(g), g * A / safe_b) if ib is not None else None
    return _pair(m, node, ga, gb)


def xdivy(x, y):
    """``x / y``, and 0 where ``x`` is 0 (even if ``y`` is 0); float operands (or int with float)."""
    return _binary(x, y, "xdivy", "Xdivy", _xdivy_array, _xdivy_rule, (0, 1), FLOAT_KINDS, names=("x", "y"))


def _xdivy_array(A, B):
    x = xp()
    zero = A == 0
    return x.where(zero, x.zeros_like(A), A / x.where(zero, x.ones_like(B), B))


def _xdivy_rule(m, node, g):
    A, B = node.unpack(m)
    ia, ib = node.inputs
    zero = A == 0
    safe_b = m.where(zero, m.ones_like(B), B)
    ga = m.where(zero, m.zeros_like(g), g / safe_b) if ia is not None else None
    gb = m.where(zero, m.zeros_like(g), -g * A / (safe_b * safe_b)) if ib is not None else None
    return _pair(m, node, ga, gb)


def float_power(input, exponent):
    """``input ** exponent`` computed and returned in Float64, whatever the operands' dtypes.

    At least one operand must be a Tensor.  Gradients come back in each operand's own dtype.

    >>> import cellkit as ms
    >>> out = float_power(ms.Tensor([2, 3]), 2)
    >>> print(out, out.dtype)
    [4. 9.] Float64
    """
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("For 'float_power', at least one of 'input' and 'exponent' must be a Tensor, but got "
                        f"{describe(input)} and {describe(exponent)}")
    return _math.pow(_in_float64(input, "input"), _in_float64(exponent, "exponent"))


def _in_float64(value, name):
    if isinstance(value, Tensor):
        return _creation.cast(_tensor(value, name, "float_power"), _dt.float64)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _creation.cast(tensor_arg(value, name, "float_power"), _dt.float64)
    return Tensor(np.asarray(value, dtype=np.float64))


def float_power_ext(input, exponent):
    """Same as :func:`float_power`."""
    return float_power(input, exponent)


def ldexp(x, other):
    """``x * 2 ** other``; integer and bool operands compute in Float32.

    >>> import cellkit as ms
    >>> print(ldexp(ms.Tensor([1.0, 3.0]), ms.Tensor([2, 1])))
    [4. 6.]
    """
    return _binary(x, other, "ldexp", "Ldexp", lambda A, B: A * xp().pow(2.0, B) if not _backend._current.is_numpy
                   else A * np.exp2(B), _ldexp_rule, (0, 1, OUTPUT), to_float=True, names=("x", "other"))


def _ldexp_rule(m, node, g):
    A, B, out = node.unpack(m)
    ia, ib = node.inputs
    return _pair(m, node, g * m.exp(B * _LN2) if ia is not None else None,
                 g * out * _LN2 if ib is not None else None)


def inv(x):
    """``1 / x``; integer tensors divide as integers (``inv(2) == 0``), as MindSpore's Inv does.

    >>> import cellkit as ms
    >>> print(inv(ms.Tensor([0.5, 4.0])), inv(ms.Tensor([1, 2])))
    [2.   0.25] [1 0]
    """
    t = _tensor(x, "x", "inv")
    if t.dtype is _dt.bool_:
        check_kind(t, NUMBER_KINDS, "inv", "x")
    if t.dtype.kind == "float":
        return _math.reciprocal(t)
    a = t._data
    one = xp().ones_like(a)
    return wrap(_compute(lambda A, B: _trunc_div_int(A, B), one, a, "inv", ("1", "x")))


def absolute(input):
    """Same as :func:`cellkit.ops.abs`."""
    return _math.abs(input)


def positive(input):
    """Returns ``input`` itself (``+input``); Bool tensors too."""
    return _tensor(input, "input", "positive")


# ----------------------------------------------------------------------------------- special functions
def _erf_array(a):
    return special("erf", a)


def erf(input):
    """The error function; float tensors only.

    >>> import cellkit as ms
    >>> print(erf(ms.Tensor([0.0, 1.0])))
    [0.        0.8427008]
    """
    return _unary(input, "erf", "Erf", _erf_array, _erf_rule)


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)


def _erf_rule(m, node, g):
    x = _saved(m, node)
    return (g * _TWO_OVER_SQRT_PI * m.exp(-(x * x)),)


def erfc(input):
    """``1 - erf(input)``, accurate where it is small; float tensors only."""
    return _unary(input, "erfc", "Erfc", lambda a: special("erfc", a), _erfc_rule)


def _erfc_rule(m, node, g):
    x = _saved(m, node)
    return (-g * _TWO_OVER_SQRT_PI * m.exp(-(x * x)),)


def erfinv(input):
    """The inverse error function on (-1, 1) (+-inf at +-1, NaN outside); float tensors only."""
    return _unary(input, "erfinv", "Erfinv", lambda a: special("erfinv", a), _erfinv_rule, (OUTPUT,))


def _erfinv_rule(m, node, g):
    """d erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2)."""
    out = _saved(m, node)
    return (g * (0.5 * _pymath.sqrt(_pymath.pi)) * m.exp(out * out),)


def _lgamma_array(a):
    return special("gammaln", a)


def _digamma_array(a):
    return special("psi", a)


def lgamma(input):
    """``log(|Gamma(input)|)``; Int32 tensors compute in Float32, as in MindSpore.

    >>> import cellkit as ms
    >>> print(lgamma(ms.Tensor([1.0, 3.0])))
    [0.        0.6931472]
    """
    t = _tensor(input, "input", "lgamma")
    return _unary(t, "lgamma", "Lgamma", _lgamma_array, _lgamma_rule, kinds=NUMBER_KINDS, to_float=True)


def _lgamma_rule(m, node, g):
    return (g * m.call(_digamma_array, digamma, _saved(m, node)),)


def digamma(input):
    """The digamma function ``d/dx log(Gamma(x))`` (``polygamma(0, x)``); float tensors only."""
    return _unary(input, "digamma", "Digamma", _digamma_array, _digamma_rule)


def _digamma_rule(m, node, g):
    return (g * m.call(_polygamma_array, _polygamma_of, 1, _saved(m, node)),)


def _polygamma_array(n, a):
    return special("polygamma", n, a)


def _polygamma_of(n, input):
    """``polygamma(n, input)`` for a Python int ``n``: the op every gamma-family rule leads to."""
    t = _tensor(input, "input", "polygamma")
    out = _polygamma_array(n, t._data)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Polygamma", _polygamma_rule, (t,), (t._data,), (0,), n)


def _polygamma_rule(m, node, g):
    return (g * m.call(_polygamma_array, _polygamma_of, node.info + 1, _saved(m, node)),)


def polygamma(n, input):
    """The ``n``-th derivative of the digamma function; ``n`` is a 0-d integer Tensor.

    ``polygamma(0, x)`` is ``digamma(x)``; a negative ``n`` gives NaN, as in MindSpore.  No
    gradient flows to ``n``.

    >>> import cellkit as ms
    >>> print(polygamma(ms.Tensor(1), ms.Tensor([1.0])))
    [1.644934]
    """
    if not isinstance(n, Tensor):
        raise TypeError(f"For 'polygamma', 'n' must be a 0-d integer Tensor, but got {describe(n)}")
    n = _tensor(n, "n", "polygamma")
    check_kind(n, INT_KINDS, "polygamma", "n")
    if n.ndim != 0:
        raise ValueError(f"For 'polygamma', 'n' must be a 0-d Tensor, but got shape {tuple(n.shape)}")
    t = _tensor(input, "input", "polygamma")
    check_kind(t, FLOAT_KINDS, "polygamma")
    order = int(_backend._current.to_host(n._data))
    if order < 0:
        return wrap(xp().full_like(t._data, float("nan")))
    return _polygamma_of(order, t)


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p``, elementwise.

    ``p(p-1)/4 log(pi) + sum_{j<p} lgamma(input - j/2)``; every element must exceed
    ``(p - 1) / 2`` (a ValueError otherwise, as in MindSpore: checking it copies one bool to the host).

    >>> import cellkit as ms
    >>> print(mvlgamma(ms.Tensor([2.5, 3.0]), 2).asnumpy().round(5))  # float32's last digit varies by library
    [0.85705 1.5502 ]
    """
    t = _tensor(input, "input", "mvlgamma")
    check_kind(t, FLOAT_KINDS, "mvlgamma")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"For 'mvlgamma', 'p' must be an int, but got {describe(p)}")
    p = int_arg(p, "p", "mvlgamma", minimum=1, maximum=10_000)
    x = xp()
    if t.size and not _to_host_bool(x.all(t._data > (p - 1) / 2)):
        raise ValueError(f"For 'mvlgamma', every element of 'input' must be greater than (p - 1) / 2 = "
                         f"{(p - 1) / 2} for p = {p}, but the smallest is "
                         f"{float(_backend._current.to_host(x.min(t._data)))}")
    total = lgamma(t)
    for j in range(1, p):
        total = _math.add(total, lgamma(_math.sub(t, j / 2)))
    return _math.add(total, p * (p - 1) / 4 * _pymath.log(_pymath.pi))


def _igamma_operands(input, other, op):
    a, b, A, B = _operands(input, other, op, FLOAT_KINDS)
    return a, b, A, B


def igamma(input, other):
    """The regularised lower incomplete gamma function ``P(input, other)``; float tensors only.

    Computed by SciPy (``gammainc``; copied to the host and back on a device SciPy cannot
    reach).  Differentiable in both arguments: the derivative in ``input`` (the shape ``a``) is a
    series in ``other`` (MindSpore's IgammaGradA), also to higher orders.

    >>> import cellkit as ms
    >>> print(igamma(ms.Tensor([1.0]), ms.Tensor([1.0])))
    [0.63212055]
    """
    a, b, A, B = _igamma_operands(input, other, "igamma")
    out = _compute(lambda P, Q: special("gammainc", P, Q), A, B, "igamma")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Igamma", a, b, _igamma_rule, (A, B), (0, 1))


def igammac(input, other):
    """The regularised upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``.

    Computed by SciPy (``gammaincc``; on the host for a device SciPy cannot reach).
    """
    a, b, A, B = _igamma_operands(input, other, "igammac")
    out = _compute(lambda P, Q: special("gammaincc", P, Q), A, B, "igammac")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Igammac", a, b, _igammac_rule, (A, B), (0, 1))


def _igamma_slopes(m, node, g, sign):
    A, B = node.unpack(m)
    ia, ib = node.inputs
    ga = g * sign * m.call(_igamma_da_array, _igamma_da, 1, A, B) if ia is not None else None
    gb = g * sign * _igamma_dx(m, 0, A, B) if ib is not None else None
    return _pair(m, node, ga, gb)


def _igamma_rule(m, node, g):
    return _igamma_slopes(m, node, g, 1.0)


def _igammac_rule(m, node, g):
    return _igamma_slopes(m, node, g, -1.0)


def _bell(derivatives):
    """Complete Bell polynomial ``B_n(f', f'', ..., f^(n))``: ``d^n exp(f) = exp(f) B_n``."""
    bell = [1.0]
    for k in range(len(derivatives)):
        total = 0.0
        for i in range(k + 1):
            total = total + _pymath.comb(k, i) * bell[k - i] * derivatives[i]
        bell.append(total)
    return bell[-1]


def _igamma_dx(m, order, A, X):
    """``d^order/da^order`` of ``dP/dx = x^(a-1) e^-x / Gamma(a)``, written in ops (differentiable again)."""
    log_x = m.log(X)
    density = m.exp((A - 1) * log_x - X - m.call(_lgamma_array, lgamma, A))
    if order == 0:
        return density
    derivatives = [log_x - m.call(_digamma_array, digamma, A)]
    for k in range(1, order):
        derivatives.append(-m.call(_polygamma_array, _polygamma_of, k, A))
    return density * _bell(derivatives)


def _igamma_da_array(order, A, X):
    """``d^order P(a, x) / da^order`` by the series ``P = sum_k exp((a+k) log x - x - lgamma(a+k+1))``.

    Each term's derivative is the term times a Bell polynomial of ``log x - psi(a+k+1)`` and
    ``-psi^(j)(a+k+1)``.  Terms are summed (in float64, on the host) until they no longer count.
    """
    be = _backend._current
    a64 = be.to_host(A).astype(np.float64)
    x64 = be.to_host(X).astype(np.float64)
    a64, x64 = np.broadcast_arrays(a64, x64)
    sc = _scipy()
    valid = (a64 > 0) & (x64 > 0) & np.isfinite(x64)
    a_ = np.where(valid, a64, 1.0)
    x_ = np.where(valid, x64, 1.0)
    log_x = np.log(x_)
    terms = int(min(np.max(x_, initial=0.0) + 12 * np.sqrt(np.max(x_, initial=0.0)) + 40, 200_000))
    total = np.zeros_like(a_)
    with np.errstate(all="ignore"):
        for k in range(terms):
            shifted = a_ + k + 1
            term = np.exp((a_ + k) * log_x - x_ - sc.gammaln(shifted))
            derivatives = [log_x - sc.psi(shifted)] + [-sc.polygamma(j, shifted) for j in range(1, order)]
            total = total + term * _bell(derivatives)
    out = np.where(valid, total, np.where(x64 == 0, 0.0, np.nan))
    out = out.astype(be.to_host(A).dtype if hasattr(A, "dtype") else np.float64)
    return out if be.is_numpy else be.from_host(out)


def _igamma_da(order, a, x):
    """``d^order P(a, x) / da^order`` as an op: its own rule goes one order up in ``a``."""
    A, X = a._data, x._data
    out = _igamma_da_array(order, A, X)
    if _ag._depth == 0 or (a._node is None and x._node is None):
        return wrap(out)
    return record(out, "IgammaGradA", _igamma_da_rule, (a, x), (A, X), (0, 1),
                  (order, tuple(A.shape), A.dtype, tuple(X.shape), X.dtype))


def _igamma_da_rule(m, node, g):
    A, X = node.unpack(m)
    order, sa, da, sx, dx = node.info
    ia, ix = node.inputs
    ga = g * m.call(_igamma_da_array, _igamma_da, order + 1, A, X) if ia is not None else None
    gx = g * _igamma_dx(m, order, A, X) if ix is not None else None
    return (m.grad_for(ga, sa, da) if ga is not None else None, m.grad_for(gx, sx, dx) if gx is not None else None)


def zeta(input, other):
    """The Hurwitz zeta function ``sum_k (k + other) ** -input``; float tensors only.

    Computed by SciPy (on the host for a device SciPy cannot reach).  The gradient flows to
    ``other`` (``-input * zeta(input + 1, other)``); none flows to ``input``, as in MindSpore
    (SciPy has no derivative of zeta in its first argument).

    >>> import cellkit as ms
    >>> print(zeta(ms.Tensor([2.0]), ms.Tensor([1.0])))
    [1.644934]
    """
    a, b, A, B = _operands(input, other, "zeta", FLOAT_KINDS)
    out = _compute(lambda P, Q: special("zeta", P, Q), A, B, "zeta")
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "Zeta", a, b, _zeta_rule, (A, B), (0, 1))


def _zeta_array(A, B):
    return special("zeta", A, B)


def _zeta_op(x, q):
    return zeta(x, q)


def _zeta_rule(m, node, g):
    A, B = node.unpack(m)
    ib = node.inputs[1]
    gb = -g * A * m.call(_zeta_array, _zeta_op, A + 1, B) if ib is not None else None
    return _pair(m, node, None, gb)


def _bessel(name, scipy_name, rule, doc):
    """One of the Bessel functions: SciPy's ``scipy_name`` on a float tensor ``x``."""
    def array_fn(a):
        return special(scipy_name, a)

    def fn(x):
        return _unary(x, name, _BESSEL_PRIMS[name], array_fn, rule, (0, OUTPUT), arg="x")

    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = fn.__code__.replace(co_name=name)  # a code object of its own: graphs know ops by it
    fn.__doc__ = doc + ("\n\n    Computed by SciPy's ``scipy.special." + scipy_name + "`` (copied to the host and back on a"
                        " device SciPy cannot reach); float tensors only.\n")
    fn.__module__ = __name__
    array_fn.__name__ = f"_{name}_array"
    return fn, array_fn


_BESSEL_PRIMS = {"bessel_i0": "BesselI0", "bessel_i0e": "BesselI0e", "bessel_i1": "BesselI1",
                 "bessel_i1e": "BesselI1e", "bessel_j0": "BesselJ0", "bessel_j1": "BesselJ1",
                 "bessel_k0": "BesselK0", "bessel_k0e": "BesselK0e", "bessel_k1": "BesselK1",
                 "bessel_k1e": "BesselK1e", "bessel_y0": "BesselY0", "bessel_y1": "BesselY1"}


def _over_x(m, x, value, at_zero):
    """``value / x``, with ``at_zero`` where ``x`` is 0 (the limit the caller knows)."""
    zero = x == 0
    ratio = value / m.where(zero, m.ones_like(x), x)
    return m.where(zero, m.zeros_like(ratio) + at_zero, ratio)


def _bessel_i0_rule(m, node, g):
    x, _ = node.unpack(m)
    return (g * m.call(_i1_array, bessel_i1, x),)


def _bessel_i0e_rule(m, node, g):
    x, out = node.unpack(m)
    return (g * (m.call(_i1e_array, bessel_i1e, x) - m.sign(x) * out),)


def _bessel_i1_rule(m, node, g):
    """d I1 = I0 - I1 / x (1/2 at 0)."""
    x, out = node.unpack(m)
    return (g * (m.call(_i0_array, bessel_i0, x) - _over_x(m, x, out, 0.0)),)


def _bessel_i1e_rule(m, node, g):
    """d I1e = I0e - I1e (sign(x) + 1/x) (1/2 at 0)."""
    x, out = node.unpack(m)
    return (g * (m.call(_i0e_array, bessel_i0e, x) - m.sign(x) * out - _over_x(m, x, out, 0.0)),)


def _bessel_j0_rule(m, node, g):
    x, _ = node.unpack(m)
    return (-g * m.call(_j1_array, bessel_j1, x),)


def _bessel_j1_rule(m, node, g):
    """d J1 = J0 - J1 / x (1/2 at 0)."""
    x, out = node.unpack(m)
    return (g * (m.call(_j0_array, bessel_j0, x) - _over_x(m, x, out, 0.0)),)


def _bessel_k0_rule(m, node, g):
    x, _ = node.unpack(m)
    return (-g * m.call(_k1_array, bessel_k1, x),)


def _bessel_k0e_rule(m, node, g):
    x, out = node.unpack(m)
    return (g * (out - m.call(_k1e_array, bessel_k1e, x)),)


def _bessel_k1_rule(m, node, g):
    """d K1 = -K0 - K1 / x."""
    x, out = node.unpack(m)
    return (-g * (m.call(_k0_array, bessel_k0, x) + out / x),)


def _bessel_k1e_rule(m, node, g):
    """d K1e = K1e (1 - 1/x) - K0e."""
    x, out = node.unpack(m)
    return (g * (out - out / x - m.call(_k0e_array, bessel_k0e, x)),)


def _bessel_y0_rule(m, node, g):
    x, _ = node.unpack(m)
    return (-g * m.call(_y1_array, bessel_y1, x),)


def _bessel_y1_rule(m, node, g):
    """d Y1 = Y0 - Y1 / x."""
    x, out = node.unpack(m)
    return (g * (m.call(_y0_array, bessel_y0, x) - out / x),)


bessel_i0, _i0_array = _bessel("bessel_i0", "i0", _bessel_i0_rule,
                               "The modified Bessel function of the first kind of order 0, ``I0(x)``.")
bessel_i0e, _i0e_array = _bessel("bessel_i0e", "i0e", _bessel_i0e_rule,
                                 "The exponentially scaled ``I0``: ``exp(-|x|) I0(x)``.")
bessel_i1, _i1_array = _bessel("bessel_i1", "i1", _bessel_i1_rule,
                               "The modified Bessel function of the first kind of order 1, ``I1(x)``.")
bessel_i1e, _i1e_array = _bessel("bessel_i1e", "i1e", _bessel_i1e_rule,
                                 "The exponentially scaled ``I1``: ``exp(-|x|) I1(x)``.")
bessel_j0, _j0_array = _bessel("bessel_j0", "j0", _bessel_j0_rule, "The Bessel function of the first kind of order 0.")
bessel_j1, _j1_array = _bessel("bessel_j1", "j1", _bessel_j1_rule, "The Bessel function of the first kind of order 1.")
bessel_k0, _k0_array = _bessel("bessel_k0", "k0", _bessel_k0_rule,
                               "The modified Bessel function of the second kind of order 0 (NaN for x < 0).")
bessel_k0e, _k0e_array = _bessel("bessel_k0e", "k0e", _bessel_k0e_rule,
                                 "The exponentially scaled ``K0``: ``exp(x) K0(x)``.")
bessel_k1, _k1_array = _bessel("bessel_k1", "k1", _bessel_k1_rule,
                               "The modified Bessel function of the second kind of order 1 (NaN for x < 0).")
bessel_k1e, _k1e_array = _bessel("bessel_k1e", "k1e", _bessel_k1e_rule,
                                 "The exponentially scaled ``K1``: ``exp(x) K1(x)``.")
bessel_y0, _y0_array = _bessel("bessel_y0", "y0", _bessel_y0_rule,
                               "The Bessel function of the second kind of order 0 (NaN for x < 0).")
bessel_y1, _y1_array = _bessel("bessel_y1", "y1", _bessel_y1_rule,
                               "The Bessel function of the second kind of order 1 (NaN for x < 0).")


def i0(input):
    """Same as :func:`bessel_i0`."""
    return _unary(input, "i0", "BesselI0", _i0_array, _bessel_i0_rule, (0, OUTPUT))


def betainc(a, b, x):
    """The regularised incomplete beta function ``I_x(a, b)``: ``ops.Betainc()(a, b, x)``.

    Float32 or Float64 tensors of one shape (no broadcasting, as in MindSpore).  Computed by
    SciPy (on the host for a device SciPy cannot reach).  The gradient flows to ``x`` only
    (``x^(a-1) (1-x)^(b-1) / B(a, b)``), as in MindSpore.
    """
    ta, tb, tx = (_tensor(v, n, "Betainc") for v, n in ((a, "a"), (b, "b"), (x, "x")))
    for t, n in ((ta, "a"), (tb, "b"), (tx, "x")):
        check_kind(t, FLOAT_KINDS, "Betainc", n)
    if not (ta.dtype is tb.dtype is tx.dtype):
        raise TypeError(f"For 'Betainc', 'a', 'b' and 'x' must have one dtype, but got {ta.dtype}, {tb.dtype} "
                        f"and {tx.dtype}")
    if not (tuple(ta.shape) == tuple(tb.shape) == tuple(tx.shape)):
        raise ValueError(f"For 'Betainc', 'a', 'b' and 'x' must have one shape, but got {tuple(ta.shape)}, "
                         f"{tuple(tb.shape)} and {tuple(tx.shape)}")
    out = special("betainc", ta._data, tb._data, tx._data)
    if _ag._depth == 0 or tx._node is None:
        return wrap(out)
    return record(out, "Betainc", _betainc_rule, (ta, tb, tx), (ta._data, tb._data, tx._data), (0, 1, 2))


def _betainc_rule(m, node, g):
    A, B, X = node.unpack(m)
    log_beta = m.call(_lgamma_array, lgamma, A) + m.call(_lgamma_array, lgamma, B) - \
        m.call(_lgamma_array, lgamma, A + B)
    density = m.exp((A - 1) * m.log(X) + (B - 1) * m.log(1 - X) - log_beta)
    return (None, None, g * density)


# ------------------------------------------------------------------------------ rounding, signs, remainders
def trunc(input):
    """Round towards zero; integer and bool tensors come back unchanged (no gradient: it is a step)."""
    t = _tensor(input, "input", "trunc")
    if t.dtype.kind != "float":
        return wrap(t._data)
    return _unary(t, "trunc", "Trunc", lambda a: xp().trunc(a), None)


def frac(x):
    """The fractional part ``x - trunc(x)`` (its sign is ``x``'s); integers give 0 (Bool: Int64 zeros).

    >>> import cellkit as ms
    >>> print(frac(ms.Tensor([1.25, -2.5])))
    [ 0.25 -0.5 ]
    """
    t = _tensor(x, "x", "frac")
    if t.dtype.kind != "float":
        a = t._data
        if t.dtype is _dt.bool_:
            a = xp().astype(a, _dt.int64.to_backend(xp()))
        return wrap(xp().zeros_like(a))
    return _unary(t, "frac", "Frac", lambda a: a - xp().trunc(a), _frac_rule, (), arg="x")


def _frac_rule(m, node, g):
    """d frac(x) = dx (the jumps at integers have measure zero)."""
    return (g,)


def sgn(input):
    """The sign of each element (-1, 0, 1); same as :func:`cellkit.ops.sign` for real tensors."""
    t = _tensor(input, "input", "sgn")
    check_kind(t, NUMBER_KINDS, "sgn")
    return _math.sign(t)


def signbit(input):
    """True where the sign bit is set (negative numbers, -0.0, NaN with the bit); a Bool tensor."""
    t = _tensor(input, "input", "signbit")
    a = t._data
    kind = t.dtype.kind
    if kind == "float":
        return wrap(xp().signbit(a))
    if kind == "int":
        return wrap(a < 0)
    return wrap(xp().zeros_like(a, dtype=_dt.bool_.to_backend(xp())))


def copysign(x, other):
    """``|x|`` with the sign of ``other`` (its sign bit: -0.0 counts as negative).

    The result has ``x``'s dtype if it is a float, else Float32; Bool is refused, as in MindSpore.
    The gradient flows to ``x`` (none to ``other``).

    >>> import cellkit as ms
    >>> print(copysign(ms.Tensor([1.0, -2.0]), ms.Tensor([-1.0, 3.0])))
    [-1.  2.]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'copysign', 'x' must be a Tensor, but got {describe(x)}")
    t = _tensor(x, "x", "copysign")
    if t.dtype is _dt.bool_:
        check_kind(t, NUMBER_KINDS, "copysign", "x")
    o = _tensor(other, "other", "copysign")
    if o.dtype is _dt.bool_:
        check_kind(o, NUMBER_KINDS, "copysign", "other")
    target = t.dtype if t.dtype.kind == "float" else _dt.float32
    xa = xp()
    A = t._data if t.dtype is target else xa.astype(t._data, target.to_backend(xa))
    B = o._data if o.dtype is target else xa.astype(o._data, target.to_backend(xa))
    out = _compute(xa.copysign, A, B, "copysign", ("x", "other"))
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "CopySign", _copysign_rule, (t,), (A, out), (0, OUTPUT), (tuple(A.shape), t._data.dtype))


def _copysign_rule(m, node, g):
    A, out = node.unpack(m)
    shape, dtype = node.info
    return (m.grad_for(g * m.sign(A) * m.sign(out), shape, dtype),)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by ``nan`` (default 0.0), ``posinf`` and ``neginf``.

    The infinities default to the dtype's largest and lowest finite values.  The gradient flows
    where the input was finite.  MindSpore 2.10's CPU kernel refuses Float64; cellkit computes it.

    >>> import cellkit as ms
    >>> print(nan_to_num(ms.Tensor([float("nan"), 1.0]), 5.0))
    [5. 1.]
    """
    t = _tensor(input, "input", "nan_to_num")
    check_kind(t, FLOAT_KINDS, "nan_to_num")
    values = []
    for name, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"For 'nan_to_num', '{name}' must be a float or None, but got {describe(value)}")
        values.append(value)
    x = xp()
    a = t._data
    info = x.finfo(a.dtype)
    nan = 0.0 if values[0] is None else float(values[0])
    posinf = float(info.max) if values[1] is None else float(values[1])
    neginf = float(info.min) if values[2] is None else float(values[2])
    out = x.where(x.isnan(a), x.full_like(a, nan), a)
    out = x.where(out == float("inf"), x.full_like(a, posinf), out)
    out = x.where(out == float("-inf"), x.full_like(a, neginf), out)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "NanToNum", _nan_to_num_rule, (t,), (x.isfinite(a),), (None,))


def _nan_to_num_rule(m, node, g):
    (finite,) = node.unpack(m)
    return (m.where(finite, g, m.zeros_like(g)),)


def nextafter(input, other):
    """The next representable float after ``input`` towards ``other``; Float32 or Float64 tensors.

    The gradient is 1 for ``input`` and 0 for ``other``, as in MindSpore.
    """
    return _binary(input, other, "nextafter", "NextAfter", lambda A, B: xp().nextafter(A, B), _nextafter_rule,
                   (), FLOAT_KINDS)


def _nextafter_rule(m, node, g):
    ib = node.inputs[1]
    return _pair(m, node, g, m.zeros_like(g) if ib is not None else None)


def _trunc_div_int(A, B):
    """Integer division rounding towards zero (C's ``/``), without a detour through floats."""
    x = xp()
    q = x.floor_divide(A, B)
    inexact = (A - q * B) != 0
    return x.where(inexact & ((A < 0) != (B < 0)), q + 1, q)


def _fmod_array(A, B):
    x = xp()
    if hasattr(x, "fmod"):  # NumPy, CuPy (the array API has no fmod)
        return x.fmod(A, B)
    if _dt.dtype_of(A).kind == "float":
        return A - x.trunc(A / B) * B
    return A - _trunc_div_int(A, B) * B


def fmod(input, other):
    """The remainder of truncating division, with the sign of ``input`` (C's ``fmod``).

    >>> import cellkit as ms
    >>> print(fmod(ms.Tensor([5, -7]), 3))
    [ 2 -1]
    """
    return _binary(input, other, "fmod", "FMod", _fmod_array, _trunc_mod_rule, (0, 1))


def _trunc_mod_rule(m, node, g):
    """d fmod(a, b) = da - trunc(a / b) db (the quotient is piecewise constant)."""
    A, B = node.unpack(m)
    ib = node.inputs[1]
    ratio = A / B
    quotient = m.where(ratio < 0, -m.floor(-ratio), m.floor(ratio))
    return _pair(m, node, g, -g * quotient if ib is not None else None)


def truncate_mod(x, y):
    """Same as :func:`fmod` (MindSpore's TruncateMod): the remainder has the sign of ``x``."""
    return _binary(x, y, "truncate_mod", "TruncateMod", _fmod_array, _trunc_mod_rule, (0, 1), NUMBER_KINDS,
                   names=("x", "y"))


def floor_mod(x, y):
    """The remainder of flooring division, with the sign of ``y`` (Python's ``%``)."""
    return _binary(x, y, "floor_mod", "FloorMod", lambda A, B: xp().remainder(A, B), _floor_mod_rule, (0, 1),
                   NUMBER_KINDS, names=("x", "y"))


def _floor_mod_rule(m, node, g):
    A, B = node.unpack(m)
    ib = node.inputs[1]
    return _pair(m, node, g, -g * m.floor(A / B) if ib is not None else None)


def _truncate_div_array(A, B):
    if _dt.dtype_of(A).kind == "float":
        return xp().trunc(A / B)
    return _trunc_div_int(A, B)


def truncate_div(x, y):
    """Division rounded towards zero; integers stay integers (no gradient: it is a step).

    >>> import cellkit as ms
    >>> print(truncate_div(ms.Tensor([7, -7]), 2))
    [ 3 -3]
    """
    return _binary(x, y, "truncate_div", "TruncateDiv", _truncate_div_array, None, (), NUMBER_KINDS,
                   names=("x", "y"))


def _fmax_array(A, B):
    x = xp()
    if hasattr(x, "fmax"):  # NumPy, CuPy
        return x.fmax(A, B)
    if _dt.dtype_of(A).kind != "float":
        return x.maximum(A, B)
    return x.where(x.isnan(B), A, x.where(x.isnan(A), B, x.maximum(A, B)))


def _fmin_array(A, B):
    x = xp()
    if hasattr(x, "fmin"):  # NumPy, CuPy
        return x.fmin(A, B)
    if _dt.dtype_of(A).kind != "float":
        return x.minimum(A, B)
    return x.where(x.isnan(B), A, x.where(x.isnan(A), B, x.minimum(A, B)))


def fmax(input, other):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN).

    The gradient goes to the larger operand (half each on a tie), as for :func:`cellkit.ops.maximum`.

    >>> import cellkit as ms
    >>> print(fmax(ms.Tensor([1.0, float("nan")]), ms.Tensor([2.0, 3.0])))
    [2. 3.]
    """
    return _binary(input, other, "fmax", "Fmax", _fmax_array, _fmax_rule, (0, 1), NUMBER_KINDS)


def fmin(input, other):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    return _binary(input, other, "fmin", "Fmin", _fmin_array, _fmin_rule, (0, 1), NUMBER_KINDS)


def _nan_mask(m, values):
    return values != values


def _fmax_rule(m, node, g):
    A, B = node.unpack(m)
    tied = A == B
    a_wins = (A > B) | _nan_mask(m, B)
    b_wins = (B > A) | (_nan_mask(m, A) & ~_nan_mask(m, B))
    return _pair(m, node, _math._share(m, g, a_wins, tied), _math._share(m, g, b_wins, tied))


def _fmin_rule(m, node, g):
    A, B = node.unpack(m)
    tied = A == B
    a_wins = (A < B) | _nan_mask(m, B)
    b_wins = (B < A) | (_nan_mask(m, A) & ~_nan_mask(m, B))
    return _pair(m, node, _math._share(m, g, a_wins, tied), _math._share(m, g, b_wins, tied))


def heaviside(input, values):
    """The Heaviside step: 0 where ``input < 0``, ``values`` where it is 0, 1 where it is positive.

    No gradient flows (MindSpore defines none).
    """
    return _binary(input, values, "heaviside", "Heaviside", _heaviside_array, None, (), NUMBER_KINDS,
                   names=("input", "values"))


def _heaviside_array(A, V):
    x = xp()
    return x.where(A == 0, V, x.astype(A > 0, A.dtype))


# --------------------------------------------------------------------------------- several operands
def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` is a float or a float tensor (cast to ``input``'s dtype).

    >>> import cellkit as ms
    >>> print(lerp(ms.Tensor([0.0, 1.0]), ms.Tensor([2.0, 3.0]), 0.25))
    [0.5 1.5]
    """
    start = _tensor(input, "input", "lerp")
    check_kind(start, FLOAT_KINDS, "lerp")
    if not isinstance(end, Tensor):
        raise TypeError(f"For 'lerp', 'end' must be a Tensor, but got {describe(end)}")
    end = _tensor(end, "end", "lerp")
    check_kind(end, FLOAT_KINDS, "lerp", "end")
    if isinstance(weight, Tensor):
        weight = _tensor(weight, "weight", "lerp")
        check_kind(weight, FLOAT_KINDS, "lerp", "weight")
        if weight.dtype is not start.dtype:
            weight = _creation.cast(weight, start.dtype)
    elif isinstance(weight, bool) or not isinstance(weight, float):
        raise TypeError(f"For 'lerp', 'weight' must be a float or a float Tensor, but got {describe(weight)}")
    if end.dtype is not start.dtype:
        end = _creation.cast(end, start.dtype)
    return _math.add(start, _math.mul(weight, _math.sub(end, start)))


def _same_dtype(op, names, tensors):
    first = tensors[0].dtype
    for name, t in zip(names[1:], tensors[1:]):
        if t.dtype is not first:
            raise TypeError(f"For '{op}', '{names[0]}' and '{name}' must have one dtype, but got {first} "
                            f"and {t.dtype}")


def addcdiv(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 / tensor2``, broadcasting; one float dtype (or Int64) for all tensors.

    >>> import cellkit as ms
    >>> print(addcdiv(ms.Tensor([1.0]), ms.Tensor([3.0]), ms.Tensor([2.0]), 0.5))
    [1.75]
    """
    return _addc("addcdiv", input, tensor1, tensor2, value)


def addcmul(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 * tensor2``, broadcasting; one dtype for all tensors (not Bool)."""
    return _addc("addcmul", input, tensor1, tensor2, value)


def _addc(op, input, tensor1, tensor2, value):
    names = ("input", "tensor1", "tensor2")
    tensors = [_tensor(v, n, op) for v, n in zip((input, tensor1, tensor2), names)]
    if op == "addcdiv":
        for t, n in zip(tensors, names):
            if t.dtype.kind != "float" and t.dtype is not _dt.int64:
                raise TypeError(f"For 'addcdiv', '{n}' must be a Tensor of float16, float32, float64 or int64, "
                                f"but got a Tensor of dtype {t.dtype}")
    else:
        for t, n in zip(tensors, names):
            check_kind(t, NUMBER_KINDS, op, n)
    _same_dtype(op, names, tensors)
    shapes = [tuple(t.shape) for t in tensors]
    if isinstance(value, Tensor):
        shapes.append(tuple(_tensor(value, "value", op).shape))
    try:
        np.broadcast_shapes(*shapes)  # shape arithmetic only
    except ValueError:
        described = ", ".join(f"'{n}' {sh}" for n, sh in zip(names + ("value",), shapes))
        raise ValueError(f"For '{op}', the shapes of {described} cannot be broadcast together") from None
    if isinstance(value, Tensor):
        value = _tensor(value, "value", op)
        if value.dtype is not tensors[0].dtype:
            value = _creation.cast(value, tensors[0].dtype)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{op}', 'value' must be a number or a Tensor, but got {describe(value)}")
    start, t1, t2 = tensors
    if op == "addcdiv":
        if start.dtype.kind != "float":
            quotient = wrap(_compute(_trunc_div_int, t1._data, t2._data, op, ("tensor1", "tensor2")))
        else:
            quotient = _math.div(t1, t2)
        update = _math.mul(value, quotient)
    else:
        update = _math.mul(value, _math.mul(t1, t2))
    if isinstance(value, float) and start.dtype.kind != "float":
        update = _creation.cast(update, start.dtype)
    return _math.add(start, update)


def addn(x):
    """The sum of a list or tuple of tensors of one shape and dtype.

    >>> import cellkit as ms
    >>> print(addn([ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])]))
    [4. 6.]
    """
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"For 'addn', 'x' must be a list or tuple of Tensors, but got {describe(x)}")
    if not x:
        raise ValueError("For 'addn', 'x' must hold at least one Tensor, but got an empty sequence")
    tensors = []
    for k, value in enumerate(x):
        if not isinstance(value, Tensor):
            raise TypeError(f"For 'addn', every element of 'x' must be a Tensor, but element {k} is {describe(value)}")
        tensors.append(_tensor(value, f"x[{k}]", "addn"))
    first = tensors[0]
    for k, t in enumerate(tensors[1:], 1):
        if t.dtype is not first.dtype:
            raise TypeError(f"For 'addn', every Tensor of 'x' must have one dtype, but x[0] is {first.dtype} "
                            f"and x[{k}] is {t.dtype}")
        if tuple(t.shape) != tuple(first.shape):
            raise ValueError(f"For 'addn', every Tensor of 'x' must have one shape, but x[0] has shape "
                             f"{tuple(first.shape)} and x[{k}] has shape {tuple(t.shape)}")
    if len(tensors) == 1:  # a new Tensor with the same values (and, on the tape, the same gradient)
        return _copy_op(first)
    total = first
    for t in tensors[1:]:
        total = _math.add(total, t)
    return total


def _copy_op(t):
    out = _backend._current.copy(t._data)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Identity", _identity_rule, (t,))


def _identity_rule(m, node, g):
    return (g,)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clamp ``x`` (a Tensor, or a list/tuple of Tensors: a tuple comes back) to ``[min, max]``.

    The lower bound applies first, then the upper (so ``min > max`` gives ``max``).  Bounds take
    ``x``'s dtype (an integer tensor clipped by 1.5 is clipped by 1).

    >>> import cellkit as ms
    >>> print(clip_by_value(ms.Tensor([0.5, 1.5, 2.5]), 1.0, 2.0))
    [1.  1.5 2. ]
    """
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("For 'clip_by_value', at least one of 'clip_value_min' and 'clip_value_max' must not be "
                         "None, but both are None")
    if isinstance(x, (list, tuple)):
        return tuple(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    t = _tensor(x, "x", "clip_by_value")

    def bound(value, name):
        if value is None:
            return None
        if isinstance(value, Tensor):
            value = _tensor(value, name, "clip_by_value")
            return value if value.dtype is t.dtype else _creation.cast(value, t.dtype)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For 'clip_by_value', '{name}' must be a number, a Tensor or None, but got "
                            f"{describe(value)}")
        if t.dtype.kind != "float":
            return _creation.cast(Tensor(value), t.dtype)
        return float(value)

    return _math.clamp(t, bound(clip_value_min, "clip_value_min"), bound(clip_value_max, "clip_value_max"))


def div_no_nan(x, y):
    """``x / y``, and 0 where ``y`` is 0 (MindSpore's DivNoNan); integer operands alone are refused."""
    a, b, A, B = _operands(x, y, "DivNoNan", names=("x1", "x2"))
    if _dt.dtype_of(A).kind != "float":
        raise TypeError(f"For 'DivNoNan', 'x1' and 'x2' must not both be integer or bool Tensors, but got "
                        f"{_dt.dtype_of(A)}")
    xa = xp()
    zero = B == 0
    out = _compute(lambda P, Q: xa.where(zero, xa.zeros_like(P * Q), P / xa.where(zero, xa.ones_like(Q), Q)),
                   A, B, "DivNoNan", ("x1", "x2"))
    if _ag._depth == 0:
        return wrap(out)
    return _record_binary(out, "DivNoNan", a, b, _div_no_nan_rule, (B, out), (1, OUTPUT))


def _div_no_nan_rule(m, node, g):
    B, out = node.unpack(m)
    zero = B == 0
    safe = m.where(zero, m.ones_like(B), B)
    ga = m.where(zero, m.zeros_like(g), g / safe)
    return _pair(m, node, ga, -ga * out if node.inputs[1] is not None else None)


def mul_no_nan(x, y):
    """``x * y``, and 0 where ``y`` is 0 even if ``x`` is inf or NaN (MindSpore's MulNoNan)."""
    a, b, A, B = _operands(x, y, "MulNoNan")
    xa = xp()
    with np.errstate(invalid="ignore"):  # inf * 0 where y is 0: that product is replaced by 0
        out = _compute(lambda P, Q: xa.where(Q == 0, xa.zeros_like(P * Q), P * Q), A, B, "MulNoNan", ("x", "y"))
    if _ag._depth == 0 or _dt.dtype_of(out).kind != "float":
        return wrap(out)
    return _record_binary(out, "MulNoNan", a, b, _mul_no_nan_rule, (A, B), (0, 1))


def _mul_no_nan_rule(m, node, g):
    A, B = node.unpack(m)
    ia, ib = node.inputs
    return _pair(m, node, g * B if ia is not None else None, g * A if ib is not None else None)


def squared_difference(x, y):
    """``(x - y) ** 2`` (MindSpore's SquaredDifference); not Bool."""
    a, b, A, B = _operands(x, y, "SquaredDifference", NUMBER_KINDS, names=("x", "y"))
    out = _compute(lambda P, Q: (P - Q) * (P - Q), A, B, "SquaredDifference", ("x", "y"))
    if _ag._depth == 0 or _dt.dtype_of(out).kind != "float":
        return wrap(out)
    return _record_binary(out, "SquaredDifference", a, b, _squared_difference_rule, (A, B), (0, 1))


def _squared_difference_rule(m, node, g):
    A, B = node.unpack(m)
    twice = 2 * g * (A - B)
    return _pair(m, node, twice, -twice if node.inputs[1] is not None else None)


def rint(x):
    """Round half to even (MindSpore's Rint); float tensors only, no gradient."""
    return _unary(x, "Rint", "Rint", lambda a: xp().round(a), None, arg="x")


# ------------------------------------------------------------------------------------- bits and integers
def _bitwise(input, other, op, forward, names=("input", "other")):
    a, b, A, B = _operands(input, other, op, INT_BOOL_KINDS, names=names)
    return wrap(_compute(forward, A, B, op, names))


def bitwise_and(input, other):
    """Elementwise bitwise AND of integer or bool tensors (an int and a bool meet in the int's dtype).

    >>> import cellkit as ms
    >>> print(bitwise_and(ms.Tensor([12, 10]), ms.Tensor([10, 6])))
    [8 2]
    """
    return _bitwise(input, other, "bitwise_and", lambda A, B: xp().bitwise_and(A, B))


def bitwise_or(input, other):
    """Elementwise bitwise OR of integer or bool tensors."""
    return _bitwise(input, other, "bitwise_or", lambda A, B: xp().bitwise_or(A, B))


def bitwise_xor(input, other):
    """Elementwise bitwise XOR of integer or bool tensors."""
    return _bitwise(input, other, "bitwise_xor", lambda A, B: xp().bitwise_xor(A, B))


def _shift(input, other, op):
    a, b, A, B = _operands(input, other, op, INT_KINDS)
    forward = xp().bitwise_left_shift if op == "bitwise_left_shift" else xp().bitwise_right_shift
    return wrap(_compute(forward, A, B, op))


def bitwise_left_shift(input, other):
    """``input << other`` elementwise, for integer tensors (or Python ints).

    >>> import cellkit as ms
    >>> print(bitwise_left_shift(ms.Tensor([1, -3]), 2))
    [  4 -12]
    """
    _refuse_scalar_pair(input, other, "bitwise_left_shift")
    return _shift(input, other, "bitwise_left_shift")


def bitwise_right_shift(input, other):
    """``input >> other`` elementwise (arithmetic: negative numbers stay negative), for integer tensors."""
    _refuse_scalar_pair(input, other, "bitwise_right_shift")
    return _shift(input, other, "bitwise_right_shift")


def _refuse_scalar_pair(input, other, op):
    for value, name in ((input, "input"), (other, "other")):
        if isinstance(value, float):
            raise TypeError(f"For '{op}', '{name}' must be an integer Tensor or an int, but got {describe(value)}")


def invert(x):
    """Bitwise NOT (``~x``) of an integer tensor; Bool is refused, as in MindSpore's Invert.

    >>> import cellkit as ms
    >>> print(invert(ms.Tensor([0, 5])))
    [-1 -6]
    """
    return _unary(x, "invert", "Invert", lambda a: xp().bitwise_invert(a), None, kinds=INT_KINDS, arg="x")


def bitwise_not(input):
    """Bitwise NOT of an integer tensor, logical NOT of a Bool tensor (``Tensor.bitwise_not``)."""
    t = _tensor(input, "input", "bitwise_not")
    if t.dtype is _dt.bool_:
        return wrap(xp().logical_not(t._data))
    return _unary(t, "bitwise_not", "BitwiseNot", lambda a: xp().bitwise_invert(a), None, kinds=INT_KINDS)


_UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16, np.dtype(np.int32): np.uint32,
             np.dtype(np.int64): np.uint64, np.dtype(np.uint8): np.uint8}


def _popcount_array(a):
    """The number of set bits of each element's two's-complement pattern, as UInt8."""
    x = xp()
    if _backend._current.is_numpy:
        return np.bitwise_count(a.view(_UNSIGNED[a.dtype])).astype(np.uint8)
    bits = 8 * _dt.dtype_of(a).itemsize
    count = x.zeros_like(a)
    for k in range(bits):  # arithmetic shifts fill with the sign bit, but only the low ``bits`` are read
        count = count + x.bitwise_and(x.bitwise_right_shift(a, k), x.ones_like(a))
    return x.astype(count, x.uint8)


def population_count(input_x):
    """The number of 1 bits of each element (its two's-complement pattern), as UInt8; integer tensors only.

    >>> import cellkit as ms
    >>> print(population_count(ms.Tensor([7, -1], ms.int8)))
    [3 8]
    """
    return _unary(input_x, "population_count", "PopulationCount", _popcount_array, None, kinds=INT_KINDS,
                  arg="input_x")


def _on_host(fn, A, B):
    """``fn`` (a NumPy function) of two backend arrays: on NumPy in place, elsewhere via the host, explicitly."""
    be = _backend._current
    if be.is_numpy:
        return fn(A, B)
    return be.from_host(np.asarray(fn(be.to_host(A), be.to_host(B))))


def gcd(input, other):
    """The greatest common divisor, elementwise, of integer tensors (always non-negative).

    NumPy's ``gcd``; on a device other than the CPU the operands are copied to the host and back.

    >>> import cellkit as ms
    >>> print(gcd(ms.Tensor([12, -18]), ms.Tensor([8, 12])))
    [4 6]
    """
    a, b, A, B = _operands(input, other, "gcd", INT_BOOL_KINDS)
    if _dt.dtype_of(A) is _dt.bool_:
        check_kind(wrap(A), INT_KINDS, "gcd")
    return wrap(_compute(lambda P, Q: _on_host(np.gcd, P, Q), A, B, "gcd"))


def lcm(input, other):
    """The least common multiple, elementwise, of integer tensors (always non-negative).

    NumPy's ``lcm``; on a device other than the CPU the operands are copied to the host and back.
    """
    a, b, A, B = _operands(input, other, "lcm", INT_BOOL_KINDS)
    if _dt.dtype_of(A) is _dt.bool_:
        check_kind(wrap(A), INT_KINDS, "lcm")
    return wrap(_compute(lambda P, Q: _on_host(np.lcm, P, Q), A, B, "lcm"))


# -------------------------------------------------------------------------------- comparisons and logic
def logical_xor(input, other):
    """Elementwise exclusive OR of the operands' truth values; a Bool tensor.

    >>> import cellkit as ms
    >>> print(logical_xor(ms.Tensor([True, True]), ms.Tensor([False, True])))
    [ True False]
    """
    a, b = _tensor(input, "input", "logical_xor"), _tensor(other, "other", "logical_xor")
    return wrap(_compute(xp().logical_xor, _math._as_bool(a), _math._as_bool(b), "logical_xor"))


def _close_array(A, B, rtol, atol, equal_nan):
    x = xp()
    if _dt.dtype_of(A).kind != "float":
        if _dt.dtype_of(A) is _dt.bool_:
            return A == B
        A64, B64 = x.astype(A, x.float64), x.astype(B, x.float64)
        return x.abs(A64 - B64) <= atol + rtol * x.abs(B64)
    same = A == B  # equal values, infinities of one sign included
    with np.errstate(invalid="ignore"):
        close = x.abs(A - B) <= atol + rtol * x.abs(B)
    out = same | (close & x.isfinite(A) & x.isfinite(B))
    if equal_nan:
        out = out | (x.isnan(A) & x.isnan(B))
    return out


def _close_args(rtol, atol, equal_nan, op):
    for name, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
    if not isinstance(equal_nan, (bool, np.bool_)):
        raise TypeError(f"For '{op}', 'equal_nan' must be a bool, but got {describe(equal_nan)}")
    return float(rtol), float(atol), bool(equal_nan)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise; a Bool tensor.

    Infinities are close only to themselves; NaN to NaN only with ``equal_nan``.

    >>> import cellkit as ms
    >>> print(isclose(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0 + 1e-7, 2.1])))
    [ True False]
    """
    rtol, atol, equal_nan = _close_args(rtol, atol, equal_nan, "isclose")
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'isclose', 'other' must be a Tensor, but got {describe(other)}")
    a, b, A, B = _operands(input, other, "isclose")
    return wrap(_compute(lambda P, Q: _close_array(P, Q, rtol, atol, equal_nan), A, B, "isclose"))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element is :func:`isclose` (``Tensor.allclose``); a Python bool."""
    close = isclose(input, other, rtol, atol, equal_nan)
    return _to_host_bool(xp().all(close._data))


def approximate_equal(x, y, tolerance=1e-05):
    """``|x - y| < tolerance`` elementwise, for float tensors; a Bool tensor."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
        raise TypeError(f"For 'approximate_equal', 'tolerance' must be a float, but got {describe(tolerance)}")
    a, b, A, B = _operands(x, y, "approximate_equal", FLOAT_KINDS, names=("x", "y"))
    return wrap(_compute(lambda P, Q: xp().abs(P - Q) < tolerance, A, B, "approximate_equal", ("x", "y")))


def isinf(input):
    """True where an element is +inf or -inf; float tensors only."""
    return _unary(input, "isinf", "IsInf", lambda a: xp().isinf(a))


def isposinf(input):
    """True where an element is +inf; float tensors only."""
    return _unary(input, "isposinf", "IsPosInf", lambda a: a == float("inf"))


def isneginf(input):
    """True where an element is -inf; float tensors only."""
    return _unary(input, "isneginf", "IsNegInf", lambda a: a == float("-inf"))


def isreal(input):
    """True everywhere for the real dtypes cellkit holds; a Bool tensor of ``input``'s shape."""
    t = _tensor(input, "input", "isreal")
    return wrap(xp().ones_like(t._data, dtype=_dt.bool_.to_backend(xp())))


def is_floating_point(input):
    """True if ``input`` is a Tensor of a float dtype (Float16, Float32, Float64, BFloat16); a Python bool."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'is_floating_point', 'input' must be a Tensor, but got {describe(input)}")
    return input.dtype.kind == "float"


# ----------------------------------------------------------------- Python scalars and composite spellings
class ScalarOverflowError(OverflowError, ValueError):
    """A scalar op's result does not fit a float (MindSpore raises OverflowError; this is also a ValueError)."""


def _number(value, name, op):
    """Check a one-operand scalar op's argument: a Python number."""
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return value
    raise TypeError(f"For '{op}', '{name}' must be an int, a float or a bool, but got {describe(value)}")


def _scalar_binary(x, y, op, scalar_fn, tensor_fn):
    """Python's operator on two values (as MindSpore's scalar ops run it), a Tensor operand as a Tensor op.

    Python's own refusals come back as a TypeError naming the op; a float overflow as
    :class:`ScalarOverflowError`.
    """
    if isinstance(x, Tensor) or isinstance(y, Tensor):
        return tensor_fn(x, y)
    try:
        return scalar_fn(x, y)
    except TypeError as exc:
        raise TypeError(f"For '{op}', 'x' and 'y' must be numbers, but got {describe(x)} and {describe(y)} "
                        f"({exc})") from None
    except OverflowError as exc:
        raise ScalarOverflowError(f"For '{op}', the result for {describe(x)} and {describe(y)} is out of range "
                                  f"({exc})") from None


def scalar_add(x, y):
    """``x + y`` of Python numbers (a Tensor operand adds as a Tensor).

    >>> scalar_add(1, 2.5)
    3.5
    """
    return _scalar_binary(x, y, "scalar_add", lambda a, b: a + b, _math.add)


def scalar_sub(x, y):
    """``x - y`` of Python numbers."""
    return _scalar_binary(x, y, "scalar_sub", lambda a, b: a - b, _math.sub)


def scalar_mul(x, y):
    """``x * y`` of Python numbers."""
    return _scalar_binary(x, y, "scalar_mul", lambda a, b: a * b, _math.mul)


def _nonzero_divisor(y, op, message):
    if isinstance(y, (bool, int, float, np.integer, np.floating)) and y == 0:
        raise ValueError(f"For '{op}', {message}, but 'y' is {y!r}")


def scalar_div(x, y):
    """``x / y`` of Python numbers: always a float; a zero divisor is a ValueError, as in MindSpore.

    >>> scalar_div(1, 2)
    0.5
    """
    _nonzero_divisor(y, "scalar_div", "the divisor must not be zero")
    return _scalar_binary(x, y, "scalar_div", lambda a, b: a / b, _math.div)


def scalar_floordiv(x, y):
    """``x // y`` of Python numbers; a zero divisor is a ValueError."""
    _nonzero_divisor(y, "scalar_floordiv", "the divisor must not be zero")
    return _scalar_binary(x, y, "scalar_floordiv", lambda a, b: a // b, _math.floor_div)


def scalar_mod(x, y):
    """``x % y`` of Python numbers (the sign of ``y``); a zero divisor is a ValueError."""
    _nonzero_divisor(y, "scalar_mod", "the modulo by zero is not defined")
    return _scalar_binary(x, y, "scalar_mod", lambda a, b: a % b, _math.mod)


_POW_BITS = 1 << 16  # an integer power longer than this is refused (it would take memory, not time)


def _python_pow(a, b):
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)) and b > 0 and abs(a) > 1:
        if b * int(abs(a)).bit_length() > _POW_BITS:
            raise ScalarOverflowError(f"For 'scalar_pow', {a!r} ** {b!r} has more than {_POW_BITS} bits, which "
                                      "is out of range")
    try:
        return a ** b
    except ZeroDivisionError:
        raise ValueError(f"For 'scalar_pow', 0 cannot be raised to the negative power {b!r}") from None


def scalar_pow(x, y):
    """``x ** y`` of Python numbers (a negative base to a fractional power is complex, as in Python).

    A result beyond the float range raises OverflowError, as in MindSpore (cellkit's is also a ValueError).
    """
    return _scalar_binary(x, y, "scalar_pow", _python_pow, _math.pow)


def scalar_max(x, y):
    """The larger of two Python numbers (the first on a tie: ``scalar_max(True, 0)`` is True)."""
    return _scalar_binary(x, y, "scalar_max", lambda a, b: b if b > a else a, _math.maximum)


def scalar_min(x, y):
    """The smaller of two Python numbers (the first on a tie)."""
    return _scalar_binary(x, y, "scalar_min", lambda a, b: b if b < a else a, _math.minimum)


def scalar_eq(x, y):
    """``x == y`` (Python's comparison: ``scalar_eq(1, 1.0)`` is True)."""
    return _scalar_binary(x, y, "scalar_eq", lambda a, b: a == b, _math.equal)


def scalar_ge(x, y):
    """``x >= y`` of Python numbers."""
    return _scalar_binary(x, y, "scalar_ge", lambda a, b: a >= b, _math.greater_equal)


def scalar_gt(x, y):
    """``x > y`` of Python numbers."""
    return _scalar_binary(x, y, "scalar_gt", lambda a, b: a > b, _math.greater)


def scalar_le(x, y):
    """``x <= y`` of Python numbers."""
    return _scalar_binary(x, y, "scalar_le", lambda a, b: a <= b, _math.less_equal)


def scalar_lt(x, y):
    """``x < y`` of Python numbers."""
    return _scalar_binary(x, y, "scalar_lt", lambda a, b: a < b, _math.less)


def scalar_log(x):
    """The natural logarithm of a positive Python number, as a float (ValueError otherwise)."""
    _number(x, "x", "scalar_log")
    if not x > 0:
        raise ValueError(f"For 'scalar_log', 'x' must be positive, but got {x!r}")
    return _pymath.log(x)


def scalar_uadd(x):
    """``+x``: MindSpore returns its argument as it is (``scalar_uadd(True)`` is True)."""
    return x


def scalar_usub(x):
    """``-x`` of a Python number (``scalar_usub(True)`` is -1)."""
    return -_number(x, "x", "scalar_usub")


def _as_tensor_operand(value, name, op):
    if isinstance(value, Tensor):
        return _tensor(value, name, op)
    return tensor_arg(value, name, op)


def tensor_div(x, y):
    """MindSpore's RealDiv as a function: ``x / y`` where two integer tensors divide as integers (truncating).

    Python numbers become Tensors first (``tensor_div(1, 2)`` is the Int64 Tensor 0).

    >>> import cellkit as ms
    >>> print(tensor_div(ms.Tensor([7, -7]), ms.Tensor([2, 2])))
    [ 3 -3]
    """
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = _as_tensor_operand(x, "x", "tensor_div")
    a, b, A, B = _operands(x, y, "tensor_div", NUMBER_KINDS, names=("x", "y"))
    if _dt.dtype_of(A).kind == "float":
        return _math.div(a, b)
    return wrap(_compute(_trunc_div_int, A, B, "tensor_div", ("x", "y")))


def tensor_sub(x, y):
    """``x - y`` (Python numbers become Tensors first: ``tensor_sub(3, 1)`` is the Int64 Tensor 2)."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = _as_tensor_operand(x, "x", "tensor_sub")
    return _math.sub(x, y)


def tensor_gt(input, other):
    """``input > other`` as a Bool Tensor (Python numbers become Tensors first)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = _as_tensor_operand(input, "input", "tensor_gt")
    return _math.greater(input, other)


def tensor_lt(input, other):
    """``input < other`` as a Bool Tensor; ``input`` must be a Tensor, as in MindSpore."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'tensor_lt', 'input' must be a Tensor, but got {describe(input)}")
    return _math.less(input, other)


def hyper_add(x, y):
    """Add two values of one structure leaf by leaf: Tensors, Python numbers, and tuples/lists of them.

    A list comes back as a tuple, as in MindSpore.  A Tensor meets only a Tensor and a number only a
    number (``hyper_add(t, 1.0)`` is a ValueError, as MindSpore's MultitypeFuncGraph finds no match).

    >>> import cellkit as ms
    >>> hyper_add((1, 2.5), (3, 0.5))
    (4, 3.0)
    """
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        if len(x) != len(y):
            raise ValueError(f"For 'hyper_add', 'x' and 'y' must have one length, but got {len(x)} and {len(y)}")
        return tuple(hyper_add(a, b) for a, b in zip(x, y))
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        return _math.add(x, y)
    if isinstance(x, (bool, int, float)) and isinstance(y, (bool, int, float)):
        return x + y
    if isinstance(x, dict) or isinstance(y, dict):
        raise NotImplementedError(f"For 'hyper_add', dicts are not supported, but got {describe(x)} and "
                                  f"{describe(y)}")
    raise ValueError(f"For 'hyper_add', 'x' and 'y' must be two Tensors, two numbers or two tuples of them, but "
                     f"got {describe(x)} and {describe(y)}")


# ------------------------------------------------------------------------------------------- Primitives
def _primitive(name, fn, doc):
    """A Primitive class whose instances take no arguments and call ``fn``."""
    return type(name, (Primitive,), {
        "__init__": lambda self: Primitive.__init__(self),
        "__call__": lambda self, *args: fn(*args),
        "__doc__": doc,
        "__module__": __name__,
    })


BesselI0 = _primitive("BesselI0", bessel_i0, "``BesselI0()(x)``: :func:`bessel_i0`.")
BesselI0e = _primitive("BesselI0e", bessel_i0e, "``BesselI0e()(x)``: :func:`bessel_i0e`.")
BesselI1 = _primitive("BesselI1", bessel_i1, "``BesselI1()(x)``: :func:`bessel_i1`.")
BesselI1e = _primitive("BesselI1e", bessel_i1e, "``BesselI1e()(x)``: :func:`bessel_i1e`.")
BesselJ0 = _primitive("BesselJ0", bessel_j0, "``BesselJ0()(x)``: :func:`bessel_j0`.")
BesselJ1 = _primitive("BesselJ1", bessel_j1, "``BesselJ1()(x)``: :func:`bessel_j1`.")
BesselK0 = _primitive("BesselK0", bessel_k0, "``BesselK0()(x)``: :func:`bessel_k0`.")
BesselK0e = _primitive("BesselK0e", bessel_k0e, "``BesselK0e()(x)``: :func:`bessel_k0e`.")
BesselK1 = _primitive("BesselK1", bessel_k1, "``BesselK1()(x)``: :func:`bessel_k1`.")
BesselK1e = _primitive("BesselK1e", bessel_k1e, "``BesselK1e()(x)``: :func:`bessel_k1e`.")
BesselY0 = _primitive("BesselY0", bessel_y0, "``BesselY0()(x)``: :func:`bessel_y0`.")
BesselY1 = _primitive("BesselY1", bessel_y1, "``BesselY1()(x)``: :func:`bessel_y1`.")
Betainc = _primitive("Betainc", betainc, "``Betainc()(a, b, x)``: the regularised incomplete beta function.")
BitwiseAnd = _primitive("BitwiseAnd", bitwise_and, "``BitwiseAnd()(x, y)``: :func:`bitwise_and`.")
BitwiseOr = _primitive("BitwiseOr", bitwise_or, "``BitwiseOr()(x, y)``: :func:`bitwise_or`.")
BitwiseXor = _primitive("BitwiseXor", bitwise_xor, "``BitwiseXor()(x, y)``: :func:`bitwise_xor`.")
Digamma = _primitive("Digamma", digamma, "``Digamma()(x)``: :func:`digamma`.")
DivNoNan = _primitive("DivNoNan", div_no_nan, "``DivNoNan()(x1, x2)``: ``x1 / x2``, 0 where ``x2`` is 0.")
Fmax = _primitive("Fmax", fmax, "``Fmax()(x1, x2)``: :func:`fmax`.")
Fmin = _primitive("Fmin", fmin, "``Fmin()(x1, x2)``: :func:`fmin`.")
Heaviside = _primitive("Heaviside", heaviside, "``Heaviside()(x, values)``: :func:`heaviside`.")
Hypot = _primitive("Hypot", hypot, "``Hypot()(x1, x2)``: :func:`hypot`.")
Igamma = _primitive("Igamma", igamma, "``Igamma()(a, x)``: :func:`igamma`.")
Igammac = _primitive("Igammac", igammac, "``Igammac()(a, x)``: :func:`igammac`.")
Inv = _primitive("Inv", inv, "``Inv()(x)``: :func:`inv`.")
Invert = _primitive("Invert", invert, "``Invert()(x)``: :func:`invert`.")
IsNan = _primitive("IsNan", _math.isnan, "``IsNan()(x)``: True where ``x`` is NaN.")
Lcm = _primitive("Lcm", lcm, "``Lcm()(x1, x2)``: :func:`lcm`.")
LeftShift = _primitive("LeftShift", bitwise_left_shift, "``LeftShift()(x1, x2)``: ``x1 << x2``.")
RightShift = _primitive("RightShift", bitwise_right_shift, "``RightShift()(input_x, input_y)``: ``input_x >> input_y``.")
Lgamma = _primitive("Lgamma", lgamma, "``Lgamma()(x)``: :func:`lgamma`.")
LogicalAnd = _primitive("LogicalAnd", _math.logical_and, "``LogicalAnd()(x, y)``: elementwise AND of truth values.")
LogicalNot = _primitive("LogicalNot", _math.logical_not, "``LogicalNot()(x)``: elementwise NOT of truth values.")
LogicalOr = _primitive("LogicalOr", _math.logical_or, "``LogicalOr()(x, y)``: elementwise OR of truth values.")
LogicalXor = _primitive("LogicalXor", logical_xor, "``LogicalXor()(x, y)``: :func:`logical_xor`.")
MulNoNan = _primitive("MulNoNan", mul_no_nan, "``MulNoNan()(x, y)``: ``x * y``, 0 where ``y`` is 0.")
PopulationCount = _primitive("PopulationCount", population_count, "``PopulationCount()(x)``: set bits, as UInt8.")
Reciprocal = _primitive("Reciprocal", _math.reciprocal, "``Reciprocal()(x)``: ``1 / x``.")
Rint = _primitive("Rint", rint, "``Rint()(x)``: round half to even (float tensors).")
SquaredDifference = _primitive("SquaredDifference", squared_difference, "``SquaredDifference()(x, y)``: ``(x - y)**2``.")
Tan = _primitive("Tan", tan, "``Tan()(x)``: :func:`tan`.")
TruncateDiv = _primitive("TruncateDiv", truncate_div, "``TruncateDiv()(x, y)``: :func:`truncate_div`.")
TruncateMod = _primitive("TruncateMod", truncate_mod, "``TruncateMod()(x, y)``: :func:`truncate_mod`.")
Xdivy = _primitive("Xdivy", xdivy, "``Xdivy()(x, y)``: :func:`xdivy`.")
Xlogy = _primitive("Xlogy", xlogy, "``Xlogy()(x, y)``: :func:`xlogy`.")
Zeta = _primitive("Zeta", zeta, "``Zeta()(x, q)``: the Hurwitz zeta function.")


def _value_tensor(value, op):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', 'value' must be a Tensor (the functional {op.lower()} also takes a "
                        f"number), but got {describe(value)}")
    return value


class Addcdiv(Primitive):
    """``Addcdiv()(input, tensor1, tensor2, value)``: ``input + value * tensor1 / tensor2`` (``value`` a Tensor)."""

    def __call__(self, input, tensor1, tensor2, value):
        return addcdiv(input, tensor1, tensor2, _value_tensor(value, "Addcdiv"))


class Addcmul(Primitive):
    """``Addcmul()(input, tensor1, tensor2, value)``: ``input + value * tensor1 * tensor2`` (``value`` a Tensor)."""

    def __call__(self, input, tensor1, tensor2, value):
        return addcmul(input, tensor1, tensor2, _value_tensor(value, "Addcmul"))


class IsClose(Primitive):
    """``IsClose(rtol=1e-05, atol=1e-08, equal_nan=False)(input, other)``: :func:`isclose`."""

    @prim_attr_register
    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=False):
        _close_args(rtol, atol, equal_nan, "IsClose")

    def __call__(self, input, other):
        return isclose(input, other, self.rtol, self.atol, self.equal_nan)


class Logit(Primitive):
    """``Logit(eps=-1.0)(x)``: :func:`logit` (a negative ``eps`` clamps nothing)."""

    @prim_attr_register
    def __init__(self, eps=-1.0):
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise TypeError(f"For 'Logit', 'eps' must be a float, but got {describe(eps)}")

    def __call__(self, x):
        return logit(x, self.eps)


class Mvlgamma(Primitive):
    """``Mvlgamma(p)(x)``: :func:`mvlgamma`."""

    @prim_attr_register
    def __init__(self, p):
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise TypeError(f"For 'Mvlgamma', 'p' must be an int, but got {describe(p)}")
        int_arg(p, "p", "Mvlgamma", minimum=1, maximum=10_000)

    def __call__(self, x):
        return mvlgamma(x, self.p)


class Polygamma(Primitive):
    """``Polygamma()(n, x)``: :func:`polygamma` (``n`` a 0-d integer Tensor)."""

    def __call__(self, n, x):
        return polygamma(n, x)


class Round(Primitive):
    """``Round()(input, decimals=0)``: round half to even (MindSpore 2.10 takes only ``decimals=0`` here)."""

    def __call__(self, input, decimals=0):
        return _math.round(input, decimals=decimals)


# ---------------------------------------------------------------------------------------- Tensor methods
def _round_method(self, decimals=0):
    """``Tensor.round(decimals=0)``."""
    return _math.round(self, decimals=decimals)


def _sign_method(self):
    """``Tensor.sign()``."""
    return _math.sign(self)


def _tanh_method(self):
    """``Tensor.tanh()``."""
    from .activation import tanh as _tanh
    return _tanh(self)


def _sigmoid_method(self):
    """``Tensor.sigmoid()``."""
    from .activation import sigmoid as _sigmoid
    return _sigmoid(self)


def _multiply_method(self, value):
    """``Tensor.multiply(value)``: ``self * value``."""
    return _math.mul(self, value)


def _true_divide_method(self, other):
    """``Tensor.true_divide(other)``: ``self / other``."""
    return _math.div(self, other)


def _float_power_method(self, other):
    """``Tensor.float_power(other)``."""
    return float_power(self, other)


TENSOR_METHODS = {
    "addcdiv": addcdiv, "addcmul": addcmul, "is_floating_point": is_floating_point,
    "absolute": absolute, "acos": acos, "acosh": acosh, "arccos": arccos, "arccosh": arccosh, "arcsin": arcsin,
    "arcsinh": arcsinh, "arctan": arctan, "arctan2": arctan2, "arctanh": arctanh, "asin": asin, "asinh": asinh,
    "atan": atan, "atan2": atan2, "atanh": atanh, "cos": _math.cos, "cosh": cosh, "sin": _math.sin, "sinh": sinh,
    "tan": tan, "tanh": _tanh_method, "sigmoid": _sigmoid_method, "erf": erf, "erfc": erfc, "erfinv": erfinv,
    "expm1": _math.expm1, "log10": log10, "log1p": _math.log1p, "log2": log2, "floor": _math.floor,
    "ceil": _math.ceil, "round": _round_method, "trunc": trunc, "frac": frac, "sign": _sign_method, "sgn": sgn,
    "signbit": signbit, "reciprocal": _math.reciprocal, "remainder": _math.remainder, "fmod": fmod, "fmax": fmax,
    "fmin": fmin, "floor_divide": _math.floor_divide, "true_divide": _true_divide_method, "divide": _math.divide,
    "multiply": _multiply_method, "subtract": _math.subtract, "negative": _math.negative, "positive": positive,
    "logaddexp": logaddexp, "logaddexp2": logaddexp2, "logical_and": _math.logical_and,
    "logical_not": _math.logical_not, "logical_or": _math.logical_or, "logical_xor": logical_xor, "logit": logit,
    "xlogy": xlogy, "xdivy": xdivy, "hypot": hypot, "heaviside": heaviside, "i0": i0, "igamma": igamma,
    "igammac": igammac, "lcm": lcm, "gcd": gcd, "ldexp": ldexp, "lerp": lerp, "lgamma": lgamma,
    "mvlgamma": mvlgamma, "nextafter": nextafter, "nan_to_num": nan_to_num, "copysign": copysign,
    "deg2rad": deg2rad, "rad2deg": rad2deg, "digamma": digamma, "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift, "inv": inv,
    "invert": invert, "float_power": _float_power_method, "sinc": sinc, "eq": _math.eq, "ne": _math.ne,
    "ge": _math.ge, "gt": _math.gt, "le": _math.le, "lt": _math.lt, "greater": _math.greater,
    "greater_equal": _math.greater_equal, "less": _math.less, "less_equal": _math.less_equal,
    "not_equal": _math.not_equal, "isfinite": _math.isfinite, "isinf": isinf, "isnan": _math.isnan,
    "isneginf": isneginf, "isposinf": isposinf, "isreal": isreal, "isclose": isclose, "allclose": allclose,
    "approximate_equal": approximate_equal,
}
