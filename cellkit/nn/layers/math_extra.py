"""``ReduceLogSumExp`` and ``IGamma``: two math Cells of ``mindspore.nn``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> print(nn.ReduceLogSumExp(0)(ms.Tensor([0.0, 0.0])))
0.6931472
"""
from __future__ import annotations

from ... import dtype as _dt
from ... import ops
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["ReduceLogSumExp", "IGamma"]


class ReduceLogSumExp(Cell):
    """``log(sum(exp(x), axis))``, computed after subtracting the maximum so it does not overflow.

    Parameters
    ----------
    axis : int, tuple or list of int
        The axes to reduce; ``()`` reduces all of them.
    keep_dims : bool
        Keep the reduced axes with size 1.

    Raises
    ------
    TypeError
        ``axis`` or ``keep_dims`` of the wrong type; a non-float input.
    ValueError
        An axis out of range (when called).

    Notes
    -----
    MindSpore 2.10 subtracts the maximum of the whole input, so a row whose
    values lie far below another row's underflows to ``-inf`` (with NaN
    gradients); cellkit subtracts the maximum along the reduced axes.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ReduceLogSumExp(1, keep_dims=True)(ms.Tensor([[1.0, 1.0]])))
    [[1.6931472]]
    """

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, list, tuple)):
            raise TypeError(f"For 'ReduceLogSumExp', the type of 'axis' should be one of ['int', 'list', 'tuple'], "
                            f"but got type '{type(axis).__name__}'.")
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'ReduceLogSumExp', the type of 'keep_dims' should be 'bool', but got type "
                            f"'{type(keep_dims).__name__}'.")
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'ReduceLogSumExp', the input must be a Tensor, but got {type(x).__name__}.")
        if not x.dtype.is_floating_point:
            raise TypeError(f"For 'ReduceLogSumExp', the input must be a float Tensor, but got {x.dtype}.")
        axis = self.axis
        if isinstance(axis, int):
            axis = (axis,)
        axis = tuple(axis) if axis else tuple(range(x.ndim))  # () reduces every axis, as in MindSpore
        # The shift is the maximum along the reduced axes (MindSpore shifts by the global maximum, which
        # underflows to -inf for rows far below it); it cancels in the value and in the gradient.
        shift = ops.stop_gradient(ops.ReduceMax(True)(x, axis)) if x.size else ops.zeros((), x.dtype)
        shift = ops.select(ops.isfinite(shift), shift, ops.zeros_like(shift))
        out = ops.log(ops.ReduceSum(True)(ops.exp(x - shift), axis)) + shift
        return out if self.keep_dims else ops.squeeze(out, axis)


class IGamma(Cell):
    """The regularized lower incomplete gamma function ``P(a, x)``, for float32 ``a`` and ``x`` (broadcast).

    ``P(a, 0) = 0``; negative ``a`` or ``x`` give NaN.

    Raises
    ------
    TypeError
        ``a`` or ``x`` not a float32 Tensor.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.IGamma()(ms.Tensor([1.0]), ms.Tensor([1.0])))    # 1 - exp(-1)
    [0.63212055]
    """

    def construct(self, a, x):
        for name, value in (("a", a), ("x", x)):
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'IGamma', the '{name}' must be a Tensor, but got {type(value).__name__}.")
            if value.dtype != _dt.float32:
                raise TypeError(f"For 'IGamma', the '{name}' should be Float32, but got {value.dtype}.")
        return ops.igamma(a, x)
