"""More activation Cells: ELU family, shrinks, hard functions, PReLU/RReLU, GLU, Softmin, Softmax2d ...

Each Cell is a thin object around the functional op of the same name in
:mod:`cellkit.ops`, so gradients of any order, recompute, hooks and graph
mode come from the op.  Constructor arguments, defaults and the errors they
raise follow MindSpore 2.10; as there, most of these Cells print with empty
parentheses (``CELU()``), and an argument the underlying op refuses is
reported when the Cell is called.

>>> import cellkit as ms
>>> from cellkit import nn
>>> print(nn.LeakyReLU(0.1)(ms.Tensor([-2.0, 3.0])))
[-0.2  3. ]
>>> print(nn.Hardtanh(-0.5, 0.5)(ms.Tensor([-2.0, 0.25, 3.0])))
[-0.5   0.25  0.5 ]
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import dtype as _dt
from ... import ops
from ...common.initializer import initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell
from . import activation as _activation

__all__ = ["CELU", "ELU", "FastGelu", "GLU", "HShrink", "HSigmoid", "HSwish", "Hardtanh", "LeakyReLU",
           "LogSigmoid", "Mish", "PReLU", "RReLU", "ReLU6", "SeLU", "SoftShrink", "Softmax2d", "Softmin",
           "Softsign", "Tanhshrink", "Threshold"]


def _float_input(x, cell, allowed=("Float16", "Float32", "Float64")):
    """``x`` if it is a Tensor of one of ``allowed`` float dtypes (MindSpore's CPU kernels refuse the rest)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', the input must be a Tensor, but got {type(x).__name__}.")
    if str(x.dtype) not in allowed:
        raise TypeError(f"For '{cell}', the input must be a Tensor of {', '.join(allowed)}, but got {x.dtype}.")
    return x


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


class CELU(Cell):
    """Continuously differentiable ELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    ``alpha`` (a non-zero float, default 1.0) is checked by :func:`cellkit.ops.celu` when called.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.CELU(2.0)(ms.Tensor([1.0, 0.0])))
    [1. 0.]
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.celu(x, self.alpha)


class ELU(Cell):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Notes
    -----
    MindSpore 2.10's CPU kernel refuses any ``alpha`` other than 1.0 when the
    Cell is called, although its documentation describes ``alpha`` as a free
    float; cellkit computes the documented formula for every ``alpha``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ELU()(ms.Tensor([2.0, 0.0])))
    [2. 0.]
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(_float_input(x, "ELU"), self.alpha)


class FastGelu(Cell):
    """The sigmoid-based fast approximation of GELU: ``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.FastGelu()(ms.Tensor([0.0])))
    [0.]
    """

    def construct(self, x):
        return ops.fast_gelu(_float_input(x, "FastGelu", ("Float16", "Float32")))


class GLU(Cell):
    """Gated linear unit: split ``x`` in two halves ``a, b`` along ``axis``, return ``a * sigmoid(b)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.GLU()(ms.Tensor([[3.0, 0.0]])))
    [[1.5]]
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.dim = axis

    def construct(self, x):
        return ops.glu(x, self.dim)


class _Shrink(Cell):
    """A Cell holding a ``lambd`` that must be a number (checked on construction, as MindSpore does)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        if not isinstance(lambd, numbers.Real):
            raise TypeError(f"For '{type(self).__name__}', the type of 'lambd' should be one of "
                            f"'[bool, int, float]', but got {type(lambd)}.")
        self.lambd = lambd


class HShrink(_Shrink):
    """Hard shrink: ``x`` where ``|x| > lambd``, 0 elsewhere.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.HShrink(0.5)(ms.Tensor([-1.0, 0.25, 0.75])))
    [-1.    0.    0.75]
    """

    def construct(self, input):
        return ops.hardshrink(input, self.lambd)


class SoftShrink(_Shrink):
    """Soft shrink: move ``x`` towards 0 by ``lambd``, and set ``|x| <= lambd`` to 0.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.SoftShrink(0.5)(ms.Tensor([-1.0, 0.25, 0.75])))
    [-0.5   0.    0.25]
    """

    def construct(self, input):
        return ops.softshrink(input, self.lambd)


class HSigmoid(Cell):
    """Hard sigmoid: ``relu6(x + 3) / 6``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.HSigmoid()(ms.Tensor([-4.0, 0.0, 4.0])))
    [0.  0.5 1. ]
    """

    def construct(self, input):
        return ops.hardsigmoid(input)


class HSwish(Cell):
    """Hard swish: ``x * relu6(x + 3) / 6``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.HSwish()(ms.Tensor([-4.0, 0.0, 4.0])))
    [0. 0. 4.]
    """

    def construct(self, input):
        return ops.hardswish(input)


class Hardtanh(Cell):
    """Clamp ``x`` to ``[min_val, max_val]``.

    Raises
    ------
    TypeError
        ``min_val`` or ``max_val`` is not a number.
    ValueError
        ``min_val >= max_val``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Hardtanh()(ms.Tensor([-2.0, 0.5])))
    [-1.   0.5]
    """

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        for name, value in (("min_val", min_val), ("max_val", max_val)):
            if not _is_number(value):
                raise TypeError(f"For 'Hardtanh', '{name}' must be a float or an int, but got "
                                f"{type(value).__name__}.")
        if min_val >= max_val:
            raise ValueError(f"For 'Hardtanh', 'min_val' must be less than 'max_val', but got {min_val} and "
                             f"{max_val}.")
        self.min_val = min_val
        self.max_val = max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class LeakyReLU(Cell):
    """``x`` for ``x >= 0``, ``alpha * x`` otherwise (``alpha`` is checked when called).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.LeakyReLU()(ms.Tensor([-1.0, 1.0])))
    [-0.2  1. ]
    """

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class LogSigmoid(Cell):
    """``log(sigmoid(x))``, computed without overflow.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.LogSigmoid()(ms.Tensor([0.0])))
    [-0.6931472]
    """

    def construct(self, input_x):
        return ops.logsigmoid(input_x)


class Mish(Cell):
    """``x * tanh(softplus(x))``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Mish()(ms.Tensor([0.0])))
    [0.]
    """

    def construct(self, input_x):
        return ops.mish(_float_input(input_x, "Mish"))


class PReLU(Cell):
    """Leaky ReLU with a learned slope per channel (axis 1 of the input).

    Parameters
    ----------
    channel : int
        The number of slopes: 1 (shared by every channel) or the input's channel count.
    w : float, list of floats, or Tensor
        The initial slopes: one float for all, a list of ``channel`` floats, or a
        float16/float32 Tensor of shape ``(channel,)``.

    The slopes are the Parameter ``w`` (shape ``(channel,)``, float32 unless a
    float16 Tensor was given); the call casts them to the input's dtype.

    Raises
    ------
    TypeError
        ``channel`` not an int, or ``w`` none of the three kinds.
    ValueError
        ``channel`` not positive, a list of the wrong length or with a
        non-float element, a Tensor of another dtype or shape.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> prelu = nn.PReLU()
    >>> print(prelu(ms.Tensor([[-2.0], [3.0]])))
    [[-0.5]
     [ 3. ]]
    >>> prelu.w.shape
    (1,)
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int):
            raise TypeError(f"For 'PReLU', the 'channel' must be int, but got '{type(channel).__name__}'.")
        if channel <= 0:
            raise ValueError(f"For 'PReLU', the 'channel' must be int and must > 0, but got {channel!r} with type "
                             f"'{type(channel).__name__}'.")
        if isinstance(w, (float, np.floating)):
            w = initializer(float(w), (channel,), _dt.float32)
        elif isinstance(w, list):
            if len(w) != channel:
                raise ValueError(f"For 'PReLU', when 'w' is a list its length must equal 'channel', but got the "
                                 f"length {len(w)} and 'channel' {channel}.")
            for value in w:
                if not isinstance(value, (float, np.floating)):
                    raise ValueError(f"For 'PReLU', every element of a list 'w' must be a float, but got "
                                     f"{value!r}.")
            w = Tensor(np.asarray(w, np.float32))
        elif isinstance(w, Tensor):
            if w.dtype not in (_dt.float16, _dt.float32):
                raise ValueError(f"For 'PReLU', a Tensor 'w' must be float16 or float32, but got {w.dtype}.")
            if w.ndim != 1 or w.shape[0] != channel:
                raise ValueError(f"For 'PReLU', a Tensor 'w' must have shape ({channel},) (one slope per channel), "
                                 f"but got shape {w.shape}.")
        else:
            raise TypeError(f"For 'PReLU', 'w' must be a float, a list of floats or a Tensor, but got "
                            f"{type(w).__name__}.")
        self.w = Parameter(w, name="a")

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'PReLU', the input 'x' must be a Tensor, but got {type(x).__name__}.")
        return ops.prelu(x, ops.cast(self.w, x.dtype))


class RReLU(Cell):
    """Randomized leaky ReLU: each negative element is scaled by a slope drawn from ``U(lower, upper)``.

    As in MindSpore the slopes are drawn on every call, in training and in
    inference alike, from cellkit's generator (``ms.set_seed`` fixes them).

    Raises
    ------
    TypeError
        ``lower`` or ``upper`` is not a float or an int.
    ValueError
        ``lower > upper``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.RReLU(0.5, 0.5)(ms.Tensor([-2.0, 3.0])))
    [-1.  3.]
    """

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for name, value in (("upper", upper), ("lower", lower)):
            if not _is_number(value):
                raise TypeError(f"For 'RReLU', the type of '{name}' should be one of ['float', 'int'], but got "
                                f"type '{type(value).__name__}'.")
        if lower > upper:
            raise ValueError(f"For 'RReLU', 'upper' must be greater than or equal to 'lower', but got upper: "
                             f"{upper}, lower: {lower}.")
        self.lower = Tensor(lower, _dt.float32)
        self.upper = Tensor(upper, _dt.float32)
        self._bounds = (float(lower), float(upper))

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'RReLU', the input must be a Tensor, but got {type(x).__name__}.")
        return ops.rrelu(x, *self._bounds)


class ReLU6(Cell):
    """``min(max(x, 0), 6)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ReLU6()(ms.Tensor([-1.0, 7.0])))
    [0. 6.]
    """

    def construct(self, x):
        return ops.relu6(x)


class SeLU(Cell):
    """Scaled ELU with the self-normalising constants (scale 1.0507..., alpha 1.6732...).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.SeLU()(ms.Tensor([0.0])))
    [0.]
    """

    def construct(self, input_x):
        return ops.selu(input_x)


class Softmax2d(Cell):
    """Softmax over the channel axis (``-3``) of a ``(C, H, W)`` or ``(N, C, H, W)`` input.

    Raises
    ------
    ValueError
        An input that is not 3-D or 4-D.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Softmax2d()(ms.ops.zeros((2, 1, 1))).reshape(-1))
    [0.5 0.5]
    """

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'Softmax2d', the input 'x' must be a Tensor, but got {type(x).__name__}.")
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the input must have 3 or 4 dims, but got {x.ndim} "
                             f"(shape {x.shape}).")
        return ops.softmax(x, -3)


class Softmin(Cell):
    """``softmax(-x)`` along ``axis``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Softmin()(ms.Tensor([1.0, 1.0])))
    [0.5 0.5]
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmin(x, self.axis)


class Softsign(Cell):
    """``x / (1 + |x|)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Softsign()(ms.Tensor([1.0, -3.0])))
    [ 0.5  -0.75]
    """

    def construct(self, x):
        return ops.softsign(x)


class Tanhshrink(Cell):
    """``x - tanh(x)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Tanhshrink()(ms.Tensor([0.0])))
    [0.]
    """

    def construct(self, x):
        return ops.tanhshrink(x)


class Threshold(Cell):
    """``x`` where ``x > threshold``, ``value`` elsewhere (both numbers, checked when called).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.Threshold(0.5, -1.0)(ms.Tensor([0.25, 2.0])))
    [-1.  2.]
    """

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


# ``get_activation`` knows these too, under MindSpore's names.
_activation._BY_NAME.update({
    "softmin": Softmin, "softmax2d": Softmax2d, "relu6": ReLU6, "rrelu": RReLU, "tanhshrink": Tanhshrink,
    "hardtanh": Hardtanh, "fast_gelu": FastGelu, "elu": ELU, "softsign": Softsign, "prelu": PReLU,
    "leakyrelu": LeakyReLU, "hswish": HSwish, "hsigmoid": HSigmoid, "logsigmoid": LogSigmoid,
    "softshrink": SoftShrink, "hshrink": HShrink, "threshold": Threshold, "mish": Mish,
})
