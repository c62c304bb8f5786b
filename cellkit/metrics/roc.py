"""``ROC``: the receiver operating characteristic curve (false and true positive rates per threshold)."""
from __future__ import annotations

import numpy as np

from .metric import Metric, binary_curve, check_input_count, check_type, explain_errors, rearrange_inputs

__all__ = ["ROC"]


def _shape_inputs(y_pred, y, class_num, pos_label):
    """Flatten a binary problem, or lay a multi-class one out as ``(samples, classes)``."""
    if y_pred.ndim not in (y.ndim, y.ndim + 1):
        raise ValueError("For 'ROC', predicted value (input[0]) must have the dimensions of true value (input[1]) or "
                         f"one more, but got predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError("For 'ROC', when predicted value (input[0]) and true value (input[1]) have the same "
                             f"shape, the 'class_num' must be 1, but got {class_num}.")
        return y_pred.flatten(), y.flatten(), 1, 1 if pos_label is None else pos_label
    if pos_label is not None:
        raise ValueError("For 'ROC', when predicted value (input[0]) has one dimension more than true value "
                         f"(input[1]), the 'pos_label' must be None, but got {pos_label}.")
    if class_num != y_pred.shape[1]:
        raise ValueError("For 'ROC', the 'class_num' must equal the number of classes from predicted value "
                         f"(input[0]), but got 'class_num' {class_num}, the number of classes from predicted value "
                         f"{y_pred.shape[1]}.")
    return np.moveaxis(y_pred, 1, -1).reshape(-1, class_num), y.flatten(), class_num, pos_label


class ROC(Metric):
    """The ROC curve of the last batch given to ``update``: ``(fpr, tpr, thresholds)``.

    ``update(y_pred, y)``: for a binary problem, scores and labels of one shape (``pos_label``
    marks the positive label, 1 by default); for ``class_num`` classes, scores ``(N, C)`` and
    class indices ``(N,)``, giving one curve per class (lists of arrays).  Thresholds run from
    the highest score plus 1 down to the lowest score.

    Parameters
    ----------
    class_num : int, optional
        The number of classes (``None`` or 1 for a binary problem).
    pos_label : int, optional
        The positive label of a binary problem; must be ``None`` for several classes.

    Raises
    ------
    TypeError
        If ``class_num`` or ``pos_label`` is neither ``None`` nor an int.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import ROC
    >>> metric = ROC(pos_label=1)
    >>> metric.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> fpr, tpr, thresholds = metric.eval()
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = class_num if class_num is None else check_type("class_num", class_num, [int])
        self.pos_label = pos_label if pos_label is None else check_type("pos_label", pos_label, [int])
        self.clear()

    def clear(self):
        """Forget the stored batch."""
        self.y_pred = 0
        self.y = 0
        self.sample_weights = None
        self._is_update = False

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Store one batch (it replaces the one before): ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, dimensions that do not fit, or ``class_num``/``pos_label`` that do not
            fit the inputs.
        """
        if len(inputs) != 2:
            raise ValueError(f"For 'ROC.update', it needs 2 inputs (predicted value, true value), but got {len(inputs)}")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _shape_inputs(y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def _curve(self, y_pred, y, class_num, pos_label, sample_weights=None):
        if class_num == 1:
            fps, tps, thresholds = binary_curve(y_pred, y, sample_weights=sample_weights, pos_label=pos_label)
            tps = np.squeeze(np.hstack([np.zeros(1, dtype=tps.dtype), tps]))
            fps = np.squeeze(np.hstack([np.zeros(1, dtype=fps.dtype), fps]))
            thresholds = np.hstack([thresholds[0][None] + 1, thresholds])
            if fps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there is no negative samples in true value, false positive value "
                                 "is meaningless.")
            if tps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there is no positive samples in true value, true positive value is "
                                 "meaningless.")
            return fps / fps[-1], tps / tps[-1], thresholds
        fpr, tpr, thresholds = [], [], []
        for c in range(class_num):
            scores, labels, _, _ = _shape_inputs(y_pred[:, c], y, 1, c)
            curve = self._curve(scores, labels, 1, c, sample_weights)
            fpr.append(curve[0])
            tpr.append(curve[1])
            thresholds.append(curve[2])
        return fpr, tpr, thresholds

    @explain_errors
    def eval(self):
        """``(fpr, tpr, thresholds)``: arrays, or lists of arrays (one per class).

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        ValueError
            If the labels hold no positive or no negative sample.
        """
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._curve(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)
