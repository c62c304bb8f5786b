"""``Accuracy``: the fraction of samples predicted right."""
from __future__ import annotations

import numpy as np

from .metric import (Metric, check_binary, check_class_count, check_eval_type, check_input_count, check_shapes,
                     explain_errors, is_one_hot, rearrange_inputs)

__all__ = ["Accuracy"]


class Accuracy(Metric):
    """The fraction of samples predicted right, over every batch given to ``update``.

    Parameters
    ----------
    eval_type : {'classification', 'multilabel'}
        ``'classification'``: ``update(y_pred, y)`` with scores ``(N, C, ...)`` and class indices
        ``(N, ...)`` (or one-hot labels of the scores' shape); a sample is right when its
        highest score is at its label.  ``'multilabel'``: 0/1 arrays of one shape; a sample is
        right when all its labels match.

    Raises
    ------
    TypeError
        If ``eval_type`` is neither.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Accuracy
    >>> acc = Accuracy()
    >>> acc.update(np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]]), np.array([1, 2]))
    >>> float(acc.eval())
    0.5
    """

    def __init__(self, eval_type="classification"):
        super().__init__()
        self._type = check_eval_type(eval_type)
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Count one batch: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, shapes that do not fit, non-0/1 multilabel values, or a class count
            other than the first batch's.
        """
        check_input_count(inputs, 2, "Accuracy")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        check_shapes(self._type, y_pred, y)
        check_binary(self._type, y_pred, y)
        classes = check_class_count(self, y_pred, "Accuracy")
        if self._type == "classification":
            right = (np.equal(y_pred.argmax(axis=1), y) * 1).reshape(-1)
        else:
            last = y_pred.ndim - 1
            rows_pred = y_pred.swapaxes(1, last).reshape(-1, classes)
            rows_true = y.swapaxes(1, last).reshape(-1, classes)
            right = np.equal(rows_pred, rows_true).all(axis=1) * 1
        self._correct_num += right.sum()
        self._total_num += right.shape[0]

    @explain_errors
    def eval(self):
        """The accuracy so far (a NumPy float).

        Raises
        ------
        RuntimeError
            If no sample was counted.
        """
        if self._total_num == 0:
            raise RuntimeError("The 'Accuracy' can not be calculated, because the number of samples is 0, please "
                               "check whether your inputs(predicted value, true value) are empty, or has called "
                               "update method before calling eval method.")
        return self._correct_num / self._total_num
