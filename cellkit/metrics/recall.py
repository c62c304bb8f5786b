"""``Recall``: of the samples of a class, the fraction predicted as it."""
from __future__ import annotations

from ._precision_recall import _PerClassRate

__all__ = ["Recall"]


class Recall(_PerClassRate):
    """Per-class recall: true positives over actual positives, over every batch.

    Parameters
    ----------
    eval_type : {'classification', 'multilabel'}
        As for :class:`Accuracy`.  In the multilabel case the counts are per sample and
        ``eval(average=True)`` is the mean of the per-sample recalls.

    Raises
    ------
    TypeError
        If ``eval_type`` is neither.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Recall
    >>> metric = Recall()
    >>> metric.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]), np.array([1, 1, 0]))
    >>> metric.eval().round(3).tolist(), round(float(metric.eval(average=True)), 3)
    ([0.0, 0.5], 0.25)
    """

    _name = "Recall"

    def _counted(self, y_pred, y):
        return y
