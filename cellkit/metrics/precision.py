"""``Precision``: of the samples predicted as a class, the fraction that belong to it."""
from __future__ import annotations

from ._precision_recall import _PerClassRate

__all__ = ["Precision"]


class Precision(_PerClassRate):
    """Per-class precision: true positives over predicted positives, over every batch.

    Parameters
    ----------
    eval_type : {'classification', 'multilabel'}
        As for :class:`Accuracy`.  In the multilabel case the counts are per sample (its labels
        are the classes) and ``eval(average=True)`` is the mean of the per-sample precisions.

    Raises
    ------
    TypeError
        If ``eval_type`` is neither.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Precision
    >>> metric = Precision()
    >>> metric.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]), np.array([1, 1, 0]))
    >>> metric.eval().round(3).tolist(), round(float(metric.eval(average=True)), 3)
    ([0.0, 0.5], 0.25)
    """

    _name = "Precision"

    def _counted(self, y_pred, y):
        return y_pred
