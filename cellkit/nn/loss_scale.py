"""Loss scaling: ``TrainOneStepWithLossScaleCell`` and the Cells that update the scale.

Small float16 gradients underflow to zero.  Multiplying the loss by a large
*scale* before the backward pass lifts them into range; dividing the
gradients by the same scale afterwards gives the true gradients back.  Too
large a scale overflows instead: the gradients hold Inf or NaN, the step is
skipped, and a :class:`DynamicLossScaleUpdateCell` lowers the scale (and
raises it again after ``scale_window`` clean steps).

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.Dense(2, 1, weight_init="zeros", bias_init="zeros")
>>> train = nn.TrainOneStepWithLossScaleCell(
...     nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
...     scale_sense=nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2, scale_window=1000))
>>> loss, overflow, scale = train(ms.Tensor([[1.0, 1.0]]), ms.Tensor([[1.0]]))
>>> print(loss, overflow, scale.asnumpy())  # scale is the Parameter 'scale_sense'
1.0 False 1024.0
>>> with np.errstate(invalid="ignore"):  # inf * 0 in the backward pass: NumPy would warn
...     loss, overflow, scale = train(ms.Tensor([[float("inf"), 1.0]]), ms.Tensor([[1.0]]))
>>> print(overflow, scale.asnumpy(), net.weight.asnumpy())  # skipped, and the scale halved
True 512.0 [[0.2 0.2]]
"""
from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .. import ops
from ..parameter import Parameter
from ..tensor import Tensor
from ..transforms import value_and_grad
from .cell import Cell
from .wrap import TrainOneStepCell

__all__ = ["FixedLossScaleUpdateCell", "DynamicLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]


class FixedLossScaleUpdateCell(Cell):
    """A loss scale that never changes: ``cell(loss_scale, overflow)`` returns ``overflow``.

    Parameters
    ----------
    loss_scale_value : float
        The scale; :meth:`get_loss_scale` returns it.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> update = nn.FixedLossScaleUpdateCell(1024.0)
    >>> update.get_loss_scale()
    1024.0
    >>> print(update(ms.Parameter(ms.Tensor(1024.0), name="s"), ms.Tensor(True)))
    True
    """

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        """The loss scale given at construction."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    r"""Lowers the loss scale after an overflow, raises it after ``scale_window`` clean steps.

    Called as ``cell(loss_scale, overflow)`` with the scale Parameter, which
    it updates in place, and returns ``overflow``.  On an overflow the scale
    is divided by ``scale_factor`` (never below 1); when ``scale_window``
    steps have passed since the last overflow or increase, it is multiplied
    by ``scale_factor``.

    Parameters
    ----------
    loss_scale_value : float
        The starting scale (what :meth:`get_loss_scale` returns).
    scale_factor : int or float
    scale_window : int

    Notes
    -----
    State, as in MindSpore: ``current_iterator_step`` (Int32, from 1) and
    ``last_overflow_iterator_step`` (Int32, 0), attributes ``cur_iter`` and
    ``last_overflow_iter``.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> update = nn.DynamicLossScaleUpdateCell(loss_scale_value=8.0, scale_factor=2, scale_window=2)
    >>> scale = ms.Parameter(ms.Tensor(8.0), name="scale")
    >>> for overflow in (False, False, True):
    ...     _ = update(scale, ms.Tensor(overflow))
    ...     print(scale.asnumpy())
    8.0
    16.0
    8.0
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(np.int32(_int32_arg(scale_window, "scale_window")))
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float, np.number)):
            raise TypeError("For 'DynamicLossScaleUpdateCell', 'scale_factor' must be a number, but got "
                            f"{type(scale_factor).__name__}.")
        self.scale_factor = Tensor(np.float32(scale_factor))
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.int32(1)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.int32(0)), name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(np.float32(1.0))

    def get_loss_scale(self):
        """The starting loss scale (not the current one: that is the Parameter the Cell updates)."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        be = _backend.current()
        if not isinstance(loss_scale, Tensor) or loss_scale._data is None or loss_scale.size != 1:
            raise TypeError("For 'DynamicLossScaleUpdateCell', 'loss_scale' must be a Parameter (or Tensor) holding "
                            f"one float, but got {_given(loss_scale)}.")
        overflowed = _flag(overflow)
        current = be.to_host(loss_scale._data)
        factor = np.float32(be.to_host(self.scale_factor._data))
        step = int(be.to_host(self.cur_iter._data))
        last = int(be.to_host(self.last_overflow_iter._data))
        scale = np.maximum(current / factor, np.float32(1.0)) if overflowed else current
        grow = int(be.to_host(self.scale_window._data)) <= step - last
        if overflowed or grow:
            self.last_overflow_iter._data = be.asarray(np.int32(step))
        if grow and not overflowed:
            scale = scale * factor
        loss_scale._data = be.asarray(np.asarray(scale, dtype=current.dtype).reshape(current.shape))
        self.cur_iter._data = be.asarray(np.int32(step + 1))
        return overflow


def _given(value):
    if isinstance(value, Tensor):
        return f"Tensor of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


def _int32_arg(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For 'DynamicLossScaleUpdateCell', '{name}' must be an int, but got {type(value).__name__}.")
    if not -2 ** 31 <= int(value) < 2 ** 31:
        raise ValueError(f"For 'DynamicLossScaleUpdateCell', '{name}' must fit in int32, but got {value}.")
    return value


def _flag(overflow):
    """A Python bool from a Bool Tensor (any shape with one element) or a bool."""
    if isinstance(overflow, Tensor):
        if overflow._data is None or overflow.size != 1:
            raise ValueError(f"The overflow flag must be a Tensor of one element, but got {_given(overflow)}.")
        return bool(_backend.to_host(overflow._data).reshape(-1)[0])
    return bool(overflow)


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    r"""One training step with loss scaling: returns ``(loss, overflow, scale)``.

    The backward pass starts from ``loss * scale``; the gradients are then
    divided by the scale and checked for Inf/NaN.  If any is not finite the
    optimizer is skipped (the Parameters and the optimizer's state stay as
    they were); a loss-scale Cell given as ``scale_sense`` then updates the
    scale.

    Parameters
    ----------
    network : Cell
        Returns the loss.
    optimizer : Optimizer
    scale_sense : Cell or Tensor
        A :class:`DynamicLossScaleUpdateCell` / :class:`FixedLossScaleUpdateCell`
        (the scale starts at its ``get_loss_scale()``), or a Tensor of shape
        ``()`` or ``(1,)`` holding a fixed scale.  Either way the scale lives
        in the Parameter ``scale_sense``.

    Notes
    -----
    MindSpore 2.10 checks for overflow with an Ascend status register
    (``NPUGetFloatStatusV2``) that has no CPU kernel, so on the CPU its step
    raises RuntimeError; cellkit tests the gradients with ``isfinite`` (what
    MindSpore does on GPU).  Subclasses may override
    :meth:`get_overflow_status` as in MindSpore.  MindSpore runs the network
    once for the loss and again for the gradients; cellkit runs it once.

    Raises
    ------
    TypeError
        ``scale_sense`` neither a Cell nor a Tensor; :meth:`set_sense_scale`
        given something other than a Tensor.
    ValueError
        A ``scale_sense`` Tensor of another shape.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> train = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()),
    ...                                          nn.Momentum(net.trainable_params(), 0.1, 0.9),
    ...                                          scale_sense=ms.Tensor(128.0))
    >>> list(train.parameters_dict())[2:4]
    ['scale_sense', 'global_step']
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.base = Tensor(np.float32(1.0))
        self.base0 = Tensor(np.int32(0))
        self.is_distributed = False
        self.gpu_target = _backend.current().name == "cupy"
        self.loss_scaling_manager = None
        self.enable_allfinite = True
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(np.float32(scale_sense.get_loss_scale())), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((1,), ()):
                raise ValueError("For 'TrainOneStepWithLossScaleCell', 'scale_sense' must have shape (1,) or (), "
                                 f"but got {tuple(scale_sense.shape)}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError("For 'TrainOneStepWithLossScaleCell', 'scale_sense' must be a Cell or a Tensor, but got "
                            f"{type(scale_sense).__name__}.")
        object.__setattr__(self, "_scaled_value_and_grad",
                           value_and_grad(self._scaled_loss, grad_position=None, weights=self.weights, has_aux=True))

    def _scaled_loss(self, *inputs):
        """``(loss * scale, loss)``: the backward pass is seeded with the scale, as a sensitivity would seed it."""
        loss = self.network(*inputs)
        return loss * ops.cast(self.scale_sense, loss.dtype), loss

    def construct(self, *inputs):
        (_, loss), grads = self._scaled_value_and_grad(*inputs)
        scaling_sens = self.scale_sense
        status = Tensor(np.zeros((8,), np.int32))
        grads = _unscaled(grads, scaling_sens)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not _flag(overflow):
            self.optimizer(grads)
        return loss, cond, scaling_sens

    def set_sense_scale(self, sens):
        """Set the loss scale (a Tensor of the ``scale_sense`` Parameter's shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError("For 'TrainOneStepWithLossScaleCell', 'sens' must be a Tensor, but got "
                            f"{type(sens).__name__}.")
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """``(status, compute_input)``: a cleared status (eight int32 zeros); nothing to reset on CPU or GPU."""
        return Tensor(np.zeros((8,), np.int32)), compute_input

    def get_overflow_status(self, status, compute_output):
        """A Bool Tensor of shape ``()``: whether any of ``compute_output`` (the gradients) holds Inf or NaN."""
        be = _backend.current()
        xp = be.xp
        finite = True
        for g in compute_output:
            if not bool(be.to_host(xp.all(xp.isfinite(g._data)))):
                finite = False
                break
        return Tensor(np.array(not finite))

    def process_loss_scale(self, overflow):
        """Let the loss-scale Cell (if any) update the scale; returns the overflow flag."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow


def _unscaled(grads, scale):
    """Each gradient times ``1 / scale`` (the reciprocal rounded to float32, as MindSpore computes it).

    A Python float keeps each gradient's dtype on every backend.
    """
    value = np.float32(_backend.to_host(scale._data).reshape(-1)[0])
    reciprocal = float(np.float32(1.0) / value)
    return tuple(Tensor._from_array(g._data * reciprocal) for g in grads)
