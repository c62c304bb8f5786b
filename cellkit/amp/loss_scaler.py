"""Loss scalers for hand-written training steps: ``StaticLossScaler``, ``DynamicLossScaler`` and ``all_finite``.

In a training step written with ``value_and_grad``, a scaler multiplies the loss by its
``scale_value`` before differentiating (:meth:`~LossScaler.scale`), divides the gradients by it
afterwards (:meth:`~LossScaler.unscale`), and -- for the dynamic one -- changes the scale from
what :func:`all_finite` says of the gradients (:meth:`~LossScaler.adjust`).  Built from cellkit's
ops, so it runs in PyNative and inside ``jit``.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import amp
>>> scaler = amp.DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=1)
>>> grads = (ms.Tensor(np.array([2048.0, 1024.0], np.float32)),)
>>> print(scaler.unscale(grads)[0])
[2. 1.]
>>> is_finite = amp.all_finite(grads)
>>> _ = scaler.adjust(is_finite)
>>> print(scaler.scale_value.asnumpy())
2048.0
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..ops.primitive import Primitive
from ..parameter import Parameter
from ..tensor import Tensor

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite", "AllFinite"]


class AllFinite(Primitive):
    """``AllFinite()(tensors)``: a Bool Tensor of shape ``()``, True when some value is Inf or NaN.

    (Despite its name it answers *is there an overflow*, as MindSpore's primitive does;
    :func:`all_finite` negates it.)

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import amp
    >>> print(amp.AllFinite()((ms.Tensor(np.array([1.0, np.inf], np.float32)),)))
    True
    """

    def __call__(self, inputs):
        tensors = _tensors(inputs, "AllFinite")
        if not tensors:
            return Tensor(np.array(False))
        flags = [ops.logical_not(ops.isfinite(t)).any() for t in tensors]
        return ops.stack(flags).any()


def _tensors(inputs, where):
    if isinstance(inputs, Tensor):
        return [inputs]
    if isinstance(inputs, (tuple, list)):
        for item in inputs:
            if not isinstance(item, Tensor):
                raise TypeError(f"For '{where}', every element of 'inputs' must be a Tensor, "
                                f"but got {type(item).__name__}.")
        return list(inputs)
    raise TypeError(f"For '{where}', 'inputs' must be a tuple or list of Tensors, but got {type(inputs).__name__}.")


def all_finite(inputs):
    """Whether every value of every Tensor in ``inputs`` is finite: a Bool Tensor of shape ``()``.

    Parameters
    ----------
    inputs : tuple or list of Tensor
        Typically the gradients of a step.

    Raises
    ------
    TypeError
        If ``inputs`` is not a tuple or list of Tensors.

    Examples
    --------
    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import amp
    >>> print(amp.all_finite((ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.array([np.nan], np.float32)))))
    False
    """
    return ops.logical_not(AllFinite()(_tensors(inputs, "all_finite")))


def _scale_value(value, where):
    if isinstance(value, bool) or not isinstance(value, (float, int)):
        raise TypeError(f"For '{where}', the type of 'scale_value' must be float or int, but got "
                        f"{type(value).__name__}.")
    if value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {value}")
    return Parameter(Tensor(np.float32(value)), name="scale_value")


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return tuple(fn(x) for x in inputs)
    return fn(inputs)


class LossScaler(ABC):
    """The interface of a loss scaler: :meth:`scale`, :meth:`unscale` and :meth:`adjust`.

    A subclass implements all three.

    >>> from cellkit import amp
    >>> issubclass(amp.StaticLossScaler, amp.LossScaler)
    True
    """

    @abstractmethod
    def scale(self, inputs):
        """``inputs`` (a Tensor or a tuple of Tensors) multiplied by the scale."""
        raise NotImplementedError

    @abstractmethod
    def unscale(self, inputs):
        """``inputs`` (a Tensor or a tuple of Tensors) divided by the scale."""
        raise NotImplementedError

    @abstractmethod
    def adjust(self, grads_finite):
        """Update the scale from ``grads_finite`` (a Bool Tensor of shape ``()``)."""
        raise NotImplementedError


class _ScalerMath:
    """scale / unscale shared by the two scalers: each Tensor keeps its dtype."""

    def scale(self, inputs):
        """``inputs`` times ``scale_value`` (cast to each Tensor's dtype): a Tensor, or a tuple for a tuple."""
        return _map(lambda x: x * self.scale_value.astype(x.dtype), inputs)

    def unscale(self, inputs):
        """``inputs`` times ``1 / scale_value`` (the reciprocal computed in float32, then cast to each dtype)."""
        return _map(lambda x: x * ops.reciprocal(self.scale_value).astype(x.dtype), inputs)


class StaticLossScaler(_ScalerMath, LossScaler):
    """A fixed loss scale.

    Parameters
    ----------
    scale_value : float or int
        The scale (at least 1), held in the float32 Parameter ``scale_value``.

    Raises
    ------
    TypeError
        ``scale_value`` not a float or int.
    ValueError
        ``scale_value`` below 1.

    Examples
    --------
    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import amp
    >>> scaler = amp.StaticLossScaler(1024)
    >>> print(scaler.scale(ms.Tensor(np.array([0.5], np.float32))))
    [512.]
    >>> scaler.adjust(ms.Tensor(True))
    False
    """

    def __init__(self, scale_value):
        self.scale_value = _scale_value(scale_value, "StaticLossScaler")

    def adjust(self, grads_finite):
        """Nothing to adjust: returns False."""
        return False


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The type of '{name}' must be int, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"The '{name}' must be a positive int, but got {value}.")
    return value


class DynamicLossScaler(_ScalerMath, LossScaler):
    """A loss scale that shrinks on overflow and grows after ``scale_window`` clean steps.

    :meth:`adjust` with ``grads_finite`` False divides the scale by ``scale_factor`` (never
    below 1) and restarts the count; True counts a clean step, and the ``scale_window``-th
    clean step in a row multiplies the scale by ``scale_factor`` (unless that would overflow
    float32).

    Parameters
    ----------
    scale_value : float or int
        The starting scale (at least 1): the float32 Parameter ``scale_value``.
    scale_factor : int
    scale_window : int

    Attributes
    ----------
    counter : Parameter
        Clean steps since the last change (Int32).

    Raises
    ------
    TypeError, ValueError
        For a bad ``scale_value``, or a ``scale_factor`` / ``scale_window`` that is not a
        positive int.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import amp
    >>> scaler = amp.DynamicLossScaler(1024, 2, 2)
    >>> for finite in (True, True, False):
    ...     _ = scaler.adjust(ms.Tensor(finite))
    ...     print(scaler.scale_value.asnumpy(), scaler.counter.asnumpy())
    1024.0 1
    2048.0 0
    1024.0 0
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        self.scale_value = _scale_value(scale_value, "DynamicLossScaler")
        self.scale_window = _positive_int(scale_window, "scale_window")
        self.scale_factor = _positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(np.int32(0)), name="counter")

    def adjust(self, grads_finite):
        """Update ``scale_value`` and ``counter`` from ``grads_finite``; returns True."""
        if not isinstance(grads_finite, Tensor):
            grads_finite = Tensor(np.array(bool(grads_finite)))
        one = ops.ones((), self.scale_value.dtype)
        grown = self.scale_value * self.scale_factor
        at_window = self.counter == (self.scale_window - 1)
        on_finite = ops.select(at_window, ops.select(ops.isfinite(grown), grown, self.scale_value),
                               self.scale_value)
        shrunk = ops.maximum(one, self.scale_value / self.scale_factor)
        ops.assign(self.scale_value, ops.select(grads_finite, on_finite, shrunk))
        counter = ((self.counter + 1) % self.scale_window) * grads_finite.astype(mstype.int32)
        ops.assign(self.counter, counter)
        return True
