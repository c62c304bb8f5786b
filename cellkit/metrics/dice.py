"""``Dice``: the Dice coefficient of predicted and true masks."""
from __future__ import annotations

import math

import numpy as np

from .metric import Metric, check_input_count, explain_errors, rearrange_inputs

__all__ = ["Dice"]


class Dice(Metric):
    """The Dice coefficient ``2 <y_pred, y> / (<y_pred, y_pred> + <y, y> + smooth)``.

    Each ``update(y_pred, y)`` (arrays of one shape) adds its batch's coefficient;
    ``eval()`` divides the sum by the number of samples (rows) seen.

    Parameters
    ----------
    smooth : float
        Added to the denominator; a float greater than 0.

    Raises
    ------
    TypeError
        If ``smooth`` is not a float.
    ValueError
        If it is not greater than 0 (or not finite).

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Dice
    >>> metric = Dice()
    >>> metric.update(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> round(metric.eval(), 4)
    0.4
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float):
            raise TypeError(f"The 'smooth' must be float, but got '{type(smooth).__name__}'")
        if math.isinf(smooth) or math.isnan(smooth):
            raise ValueError(f"The 'smooth' must be a legal value, but got '{smooth}'.")
        if not smooth > 0:
            raise ValueError(f"The 'smooth' must be float and must > 0, but got '{smooth}' with type 'float'.")
        self.smooth = smooth
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._dice_coeff_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Add one batch's coefficient: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, or shapes that differ.
        """
        check_input_count(inputs, 2, "Dice")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError("For 'Dice.update', predicted value (input[0]) and true value (input[1]) should have "
                             f"same shape, but got predicted value shape: {y_pred.shape}, true value shape: {y.shape}.")
        pred, true = y_pred.flatten(), y.flatten()
        overlap = np.dot(pred, true)
        total = np.dot(pred, pred) + np.dot(true, true)
        self._dice_coeff_sum += 2 * float(overlap) / float(total + self.smooth)

    @explain_errors
    def eval(self):
        """The summed coefficients over the number of samples (a float).

        Raises
        ------
        RuntimeError
            If nothing was added.
        """
        if self._samples_num == 0:
            raise RuntimeError("The 'Dice coefficient' can not be calculated, because the number of samples is 0, "
                               "please check whether your inputs(predicted value, true value) are empty, or has called "
                               "update method before calling eval method.")
        return self._dice_coeff_sum / float(self._samples_num)
