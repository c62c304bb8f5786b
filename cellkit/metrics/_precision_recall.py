"""What ``Precision`` and ``Recall`` share: they differ only in the count they divide by."""
from __future__ import annotations

import sys

import numpy as np

from .metric import (Metric, check_binary, check_class_count, check_eval_type, check_input_count, check_shapes,
                     check_type, explain_errors, is_one_hot, rearrange_inputs)


class _PerClassRate(Metric):
    """True positives over a per-class count (predicted positives or actual positives)."""

    _name = ""

    def __init__(self, eval_type="classification"):
        super().__init__()
        self._type = check_eval_type(eval_type)
        self.eps = sys.float_info.min
        self.clear()

    def _counted(self, y_pred, y):
        raise NotImplementedError

    def clear(self):
        """Forget every batch."""
        self._class_num = 0
        if self._type == "multilabel":
            self._true_positives = np.empty(0)
            self._counts = np.empty(0)
            self._rate_sum = 0
            self._rate_num = 0
        else:
            self._true_positives = 0
            self._counts = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Count one batch: ``update(y_pred, y)`` (shapes as for :class:`Accuracy`).

        Raises
        ------
        ValueError
            Not two inputs, shapes that do not fit, non-0/1 multilabel values, a label beyond the
            class count, or a class count other than the first batch's.
        """
        name = self._name
        check_input_count(inputs, 2, name)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        check_shapes(self._type, y_pred, y)
        check_binary(self._type, y_pred, y)
        classes = check_class_count(self, y_pred, name)
        if self._type == "classification":
            if y.max() + 1 > classes:
                raise ValueError(f"For '{name}.update', predicted value (input[0]) should have the same classes number "
                                 f"as true value (input[1]), but got predicted value classes {classes}, true value "
                                 f"classes {y.max() + 1}.")
            eye = np.eye(classes)
            y = eye[y.reshape(-1)]
            y_pred = eye[y_pred.argmax(axis=1).reshape(-1)]
        else:
            y_pred = y_pred.swapaxes(1, 0).reshape(classes, -1)
            y = y.swapaxes(1, 0).reshape(classes, -1)
        counts = self._counted(y_pred, y).sum(axis=0)
        true_positives = (y * y_pred).sum(axis=0)
        if self._type == "multilabel":
            # per-sample rates in the inputs' dtype (float32 loses eps: an empty row is 0/0, as in MindSpore),
            # summed in float64 as MindSpore's NumPy 1 promotion does
            self._rate_sum = self._rate_sum + np.float64(np.sum(true_positives / (counts + self.eps)))
            self._rate_num += len(counts)
            self._true_positives = np.concatenate((self._true_positives, true_positives), axis=0)
            self._counts = np.concatenate((self._counts, counts), axis=0)
        else:
            self._true_positives += true_positives
            self._counts += counts

    @explain_errors
    def eval(self, average=False):
        """Per-class values (an array), or their mean with ``average=True``.

        Raises
        ------
        RuntimeError
            If nothing was counted.
        TypeError
            If ``average`` is not a bool.
        """
        if self._class_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of samples is 0, please "
                               "check whether your inputs (predicted value, true value) are empty, or has called "
                               "update method before calling eval method.")
        check_type("average", average, [bool], self._name)
        result = self._true_positives / (self._counts + self.eps)
        if average:
            if self._type == "multilabel":
                result = self._rate_sum / (self._rate_num + self.eps)
            return result.mean()
        return result
