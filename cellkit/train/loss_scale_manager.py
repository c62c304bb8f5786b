"""Loss-scale managers for ``Model`` and ``build_train_network`` -- MindSpore's ``LossScaleManager`` family.

A manager says which loss scale a training step starts from (:meth:`get_loss_scale`), which
Cell updates it inside the step (:meth:`get_update_cell`, handed to
:class:`~cellkit.nn.TrainOneStepWithLossScaleCell`), and -- when ``Model`` drops overflowing
steps -- follows the same updates on the Python side (:meth:`update_loss_scale`).

>>> from cellkit.train import DynamicLossScaleManager
>>> manager = DynamicLossScaleManager(init_loss_scale=1024, scale_factor=2, scale_window=2)
>>> for overflow in (False, False, True):
...     manager.update_loss_scale(overflow)
...     print(manager.get_loss_scale())
1024
2048
1024.0
"""
from __future__ import annotations

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


def _check_number(value, name, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{where}', the type of '{name}' must be int or float, but got {type(value).__name__}.")


class LossScaleManager:
    """The interface: ``get_loss_scale``, ``update_loss_scale(overflow)``, ``get_update_cell``.

    >>> from cellkit.train import LossScaleManager, FixedLossScaleManager
    >>> isinstance(FixedLossScaleManager(), LossScaleManager)
    True
    """

    def get_loss_scale(self):
        """The current loss scale."""

    def update_loss_scale(self, overflow):
        """Follow one step: ``overflow`` says whether its gradients overflowed."""

    def get_update_cell(self):
        """The Cell that updates the scale inside a training step (or None)."""


class FixedLossScaleManager(LossScaleManager):
    """A loss scale that never changes.

    Parameters
    ----------
    loss_scale : float
        The scale (at least 1).  Default 128.0.
    drop_overflow_update : bool
        True: an overflowing step does not update the Parameters (the training Cell is a
        ``TrainOneStepWithLossScaleCell``).  False: every step updates, the gradients are
        computed from ``loss * loss_scale`` and the optimizer should be given the same
        ``loss_scale`` to divide them back.

    Raises
    ------
    ValueError
        ``loss_scale`` below 1.

    Examples
    --------
    >>> from cellkit.train import FixedLossScaleManager
    >>> m = FixedLossScaleManager(1024.0, drop_overflow_update=False)
    >>> m.get_loss_scale(), m.get_drop_overflow_update(), m.get_update_cell()
    (1024.0, False, None)
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        _check_number(loss_scale, "loss_scale", "FixedLossScaleManager")
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        """The fixed scale."""
        return self._loss_scale

    def get_drop_overflow_update(self):
        """Whether an overflowing step skips the update."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """Nothing changes."""

    def get_update_cell(self):
        """A :class:`~cellkit.nn.FixedLossScaleUpdateCell` when overflowing steps are dropped, else None."""
        if not self._drop_overflow_update:
            return None
        from ..nn.loss_scale import FixedLossScaleUpdateCell
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by ``scale_factor`` on overflow, multiplied by it after ``scale_window`` clean steps.

    Parameters
    ----------
    init_loss_scale : float
        The starting scale (at least 1).  Default ``2**24``.
    scale_factor : int
        Default 2.
    scale_window : int
        Default 2000.

    Raises
    ------
    ValueError
        ``init_loss_scale`` below 1, ``scale_factor`` not positive; ``scale_window`` not a
        positive int (``TypeError`` if not an int).
    RuntimeError
        From :meth:`update_loss_scale`, after more than 1000 overflowing steps in a row.

    Examples
    --------
    >>> from cellkit.train import DynamicLossScaleManager
    >>> cell = DynamicLossScaleManager(2**12, 2, 100).get_update_cell()
    >>> type(cell).__name__, cell.get_loss_scale()
    ('DynamicLossScaleUpdateCell', 4096)
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        _check_number(init_loss_scale, "init_loss_scale", "DynamicLossScaleManager")
        _check_number(scale_factor, "scale_factor", "DynamicLossScaleManager")
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}")
        self.loss_scale = init_loss_scale
        if isinstance(scale_window, bool) or not isinstance(scale_window, int):
            raise TypeError(f"For 'DynamicLossScaleManager', the type of 'scale_window' must be int, "
                            f"but got {type(scale_window).__name__}.")
        if scale_window <= 0:
            raise ValueError(f"For 'DynamicLossScaleManager', 'scale_window' must be a positive int, "
                             f"but got {scale_window}.")
        self.scale_window = scale_window
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        """The current scale."""
        return self.loss_scale

    def update_loss_scale(self, overflow):
        """Shrink on ``overflow`` (never below 1); grow every ``scale_window`` steps after the last overflow."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale: {self.bad_step} overflowing steps in a row, more than the "
                               f"maximum of {self.bad_step_max}.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        """Always True: an overflowing step is skipped."""
        return True

    def get_update_cell(self):
        """A :class:`~cellkit.nn.DynamicLossScaleUpdateCell` starting from the current scale."""
        from ..nn.loss_scale import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
