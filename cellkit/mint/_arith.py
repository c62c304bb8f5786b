"""``mint``'s element-wise and comparison functions: PyTorch's spellings (``input``, ``other``, ``alpha``).

Each is a thin adapter over the op of :mod:`cellkit.ops` that computes the same thing, so gradients,
recompute, hooks and graph mode behave as they do for the op itself.

>>> import cellkit as ms
>>> from cellkit import mint
>>> x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 5.0])
>>> print(mint.add(x, y, alpha=2), mint.sub(x, y), mint.div(y, x, rounding_mode="floor"))
[ 7. 12.] [-2. -3.] [3. 2.]
"""
from __future__ import annotations

from .. import ops as _ops
from ..tensor import Tensor

__all__ = ["add", "sub", "mul", "div", "divide", "clamp", "clip", "eq", "lt", "less", "greater_equal", "ge",
           "floor_divide", "fmod", "remainder", "lerp", "xlogy", "bitwise_not", "real", "imag", "frac", "sqrt",
           "isnan", "fix", "trunc", "addcdiv", "addcmul", "vdot", "allclose", "equal", "baddbmm", "bmm", "mv", "t",
           "addr_", "dot"]


def _scaled(other, alpha, op):
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"For '{op}', 'alpha' must be an int or a float, but got {type(alpha).__name__}")
    return other if alpha == 1 else _ops.mul(other, alpha)


def add(input, other, *, alpha=1):
    """``input + alpha * other``."""
    return _ops.add(input, _scaled(other, alpha, "add"))


def sub(input, other, *, alpha=1):
    """``input - alpha * other``."""
    return _ops.sub(input, _scaled(other, alpha, "sub"))


def mul(input, other):
    """``input * other``."""
    return _ops.mul(input, other)


def div(input, other, *, rounding_mode=None):
    """``input / other``; ``rounding_mode`` ``'floor'`` or ``'trunc'`` rounds the quotient."""
    return _ops.div(input, other, rounding_mode=rounding_mode)


divide = div


def clamp(input, min=None, max=None):
    """Each element limited to ``[min, max]`` (either may be None, a number or a Tensor)."""
    return _ops.clamp(input, min, max)


clip = clamp


def eq(input, other):
    """``input == other`` element-wise."""
    return _ops.eq(input, other)


def lt(input, other):
    """``input < other`` element-wise."""
    return _ops.lt(input, other)


less = lt


def greater_equal(input, other):
    """``input >= other`` element-wise."""
    return _ops.ge(input, other)


ge = greater_equal


def floor_divide(input, other):
    """The quotient rounded down."""
    return _ops.floor_divide(input, other)


def fmod(input, other):
    """The remainder with the sign of ``input`` (C's ``fmod``)."""
    return _ops.fmod(input, other)


def remainder(input, other):
    """The remainder with the sign of ``other`` (Python's ``%``)."""
    return _ops.remainder(input, other)


def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    return _ops.lerp(input, end, weight)


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0."""
    return _ops.xlogy(input, other)


def bitwise_not(input):
    """Bit-wise NOT of an integer or bool Tensor."""
    return _ops.invert(input)


def real(input):
    """The real part."""
    return _ops.real(input)


def imag(input):
    """The imaginary part."""
    return _ops.imag(input)


def frac(input):
    """The fractional part, with the sign of ``input``."""
    return _ops.frac(input)


def sqrt(input):
    """The square root."""
    return _ops.sqrt(input)


def isnan(tensor):
    """True where ``tensor`` is NaN."""
    return _ops.isnan(tensor)


def trunc(input):
    """Rounded toward zero."""
    return _ops.trunc(input)


fix = trunc


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    return _ops.addcdiv(input, tensor1, tensor2, value)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return _ops.addcmul(input, tensor1, tensor2, value)


def addr_(input, vec1, vec2, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    return _ops.addr(input, vec1, vec2, beta=beta, alpha=alpha)


def vdot(input, other):
    """The dot product of two 1-D Tensors, the first conjugated."""
    for name, value in (("input", input), ("other", other)):
        if not isinstance(value, Tensor) or value.ndim != 1:
            raise ValueError(f"For 'vdot', '{name}' must be a 1-D Tensor, but got "
                             f"{getattr(value, 'shape', type(value).__name__)}")
    return _ops.sum(_ops.mul(_ops.conj(input), other))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``input`` is close to ``other``: a Python bool."""
    return bool(_ops.isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """Whether the two Tensors have the same shape and elements: a Python bool."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"For 'equal', 'input' and 'other' must be Tensors, but got {type(input).__name__} and "
                        f"{type(other).__name__}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(_ops.eq(input, other).all())


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` batch by batch."""
    return _ops.baddbmm(input, batch1, batch2, beta, alpha)


def bmm(input, mat2):
    """Batched matrix product."""
    return _ops.bmm(input, mat2)


def mv(input, vec):
    """Matrix-vector product."""
    return _ops.mv(input, vec)


def t(input):
    """The transpose of a Tensor of at most 2 dimensions."""
    return _ops.t(input)


def dot(input, other):
    """The dot product of two 1-D Tensors."""
    for name, value in (("input", input), ("other", other)):
        if not isinstance(value, Tensor) or value.ndim != 1:
            raise ValueError(f"For 'dot', '{name}' must be a 1-D Tensor, but got "
                             f"{getattr(value, 'shape', type(value).__name__)}")
    return _ops.sum(_ops.mul(input, other))
