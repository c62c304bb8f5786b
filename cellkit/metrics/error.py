"""``MAE`` and ``MSE``: mean absolute and mean squared errors per sample."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, explain_errors, rearrange_inputs

__all__ = ["MAE", "MSE"]


class _ErrorSum(Metric):
    _name = ""

    def __init__(self):
        super().__init__()
        self.clear()

    @staticmethod
    def _error(difference):
        raise NotImplementedError

    def clear(self):
        """Forget every batch."""
        self._error_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Add one batch: ``update(y_pred, y)``; ``y`` is reshaped to ``y_pred``'s shape.

        Raises
        ------
        ValueError
            Not two inputs, or a ``y`` whose size differs from ``y_pred``'s.
        """
        check_input_count(inputs, 2, self._name)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        # The sum over batches is kept in float64 (NumPy 1's scalar promotion, which MindSpore's answers reflect).
        self._error_sum = self._error_sum + np.float64(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += y.shape[0]

    @explain_errors
    def eval(self):
        """The summed error over the number of samples (rows of ``y``).

        Raises
        ------
        RuntimeError
            If nothing was added.
        """
        if self._samples_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of samples is 0, please "
                               "check whether your inputs(predicted value, true value) are empty, or has called update "
                               "method before calling eval method.")
        return self._error_sum / self._samples_num


class MAE(_ErrorSum):
    """Mean absolute error: the sum of ``|y - y_pred|`` over the number of samples (rows).

    >>> import numpy as np
    >>> from cellkit.train import MAE
    >>> metric = MAE()
    >>> metric.update(np.array([[0.1, 0.2], [0.6, 0.5]]), np.array([[0.0, 0.2], [0.5, 0.5]]))
    >>> round(float(metric.eval()), 6)
    0.1
    """

    _name = "MAE"

    @staticmethod
    def _error(difference):
        return np.abs(difference)


class MSE(_ErrorSum):
    """Mean squared error: the sum of ``(y - y_pred)^2`` over the number of samples (rows).

    >>> import numpy as np
    >>> from cellkit.train import MSE
    >>> metric = MSE()
    >>> metric.update(np.array([[1.0, 2.0]]), np.array([[0.0, 0.0]]))
    >>> float(metric.eval())
    5.0
    """

    _name = "MSE"

    @staticmethod
    def _error(difference):
        return np.power(difference, 2)
