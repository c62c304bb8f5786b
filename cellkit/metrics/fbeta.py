"""``Fbeta`` and ``F1``: the weighted harmonic mean of precision and recall, per class."""
from __future__ import annotations

import sys

from .metric import (Metric, check_class_count, check_input_count, check_type, explain_errors, is_one_hot,
                     one_hot_pair, rearrange_inputs)

__all__ = ["Fbeta", "F1"]


class Fbeta(Metric):
    """Per-class F-beta score, ``(1 + beta^2) TP / (beta^2 (TP + FN) + TP + FP)``, over every batch.

    ``update(y_pred, y)``: scores ``(N, C)`` and class indices ``(N,)`` or one-hot labels.

    Parameters
    ----------
    beta : float
        How much more recall weighs than precision; must be greater than 0.

    Raises
    ------
    ValueError
        If ``beta`` is not greater than 0.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Fbeta
    >>> metric = Fbeta(1)
    >>> metric.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]), np.array([1, 1, 0]))
    >>> metric.eval().round(3).tolist()
    [0.0, 0.5]
    """

    def __init__(self, beta):
        super().__init__()
        self.eps = sys.float_info.min
        if not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got {beta}.")
        self.beta = beta
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Count one batch: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, a label beyond the class count, or a class count other than the first
            batch's.
        """
        check_input_count(inputs, 2, "Fbeta")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        classes = check_class_count(self, y_pred, "Fbeta")
        y_pred, y = one_hot_pair(y_pred, y, classes, "Fbeta", fbeta=True)
        self._true_positives += (y * y_pred).sum(axis=0)
        self._positives += y_pred.sum(axis=0)
        self._actual_positives += y.sum(axis=0)

    @explain_errors
    def eval(self, average=False):
        """Per-class scores (an array), or their mean with ``average=True``.

        Raises
        ------
        TypeError
            If ``average`` is not a bool.
        RuntimeError
            If nothing was counted.
        """
        check_type("average", average, [bool], type(self).__name__)
        if self._class_num == 0:
            raise RuntimeError("The 'Fbeta' can not be calculated, because the number of samples is 0, please check "
                               "whether your inputs(predicted value, true value) are empty, or has called update "
                               "method before calling eval method.")
        beta2 = self.beta ** 2
        score = (1.0 + beta2) * self._true_positives / (beta2 * self._actual_positives + self._positives + self.eps)
        return score.mean() if average else score


class F1(Fbeta):
    """:class:`Fbeta` with ``beta=1``: the harmonic mean of precision and recall, per class.

    >>> import numpy as np
    >>> from cellkit.train import F1
    >>> metric = F1()
    >>> metric.update(np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([1, 0]))
    >>> metric.eval().tolist()
    [1.0, 1.0]
    """

    def __init__(self):
        super().__init__(1.0)
