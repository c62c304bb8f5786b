"""``Perplexity``: the exponential of the mean negative log-probability of the labels."""
from __future__ import annotations

import math

import numpy as np

from .metric import Metric, check_type, explain_errors, rearrange_inputs

__all__ = ["Perplexity"]


class Perplexity(Metric):
    """``exp(-mean(log p[label]))`` over every label seen (probabilities below 1e-10 count as 1e-10).

    ``update(preds, labels)``: probabilities ``(N, C)`` and class indices with ``N`` elements.

    Parameters
    ----------
    ignore_label : int, optional
        Labels equal to it are left out of the mean.

    Raises
    ------
    TypeError
        If ``ignore_label`` is neither ``None`` nor an int.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Perplexity
    >>> metric = Perplexity()
    >>> metric.update(np.array([[0.5, 0.5], [0.25, 0.75]]), np.array([0, 0]))
    >>> round(metric.eval(), 4)
    2.8284
    """

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label if ignore_label is None else check_type("ignore_label", ignore_label, [int])
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Add one batch: ``update(preds, labels)``.

        Raises
        ------
        ValueError
            Not two inputs.
        RuntimeError
            If the labels are not one per row of ``preds``.
        """
        if len(inputs) != 2:
            raise ValueError(f"For 'Perplexity.update', it needs 2 inputs (predicted value, label), but got "
                             f"{len(inputs)}.")
        pred = self._convert_data(inputs[0])
        label = self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError("For 'Perplexity.update', predicted value (input[0]) and label (input[1]) should have "
                               f"the same shape, but got predicted value shape {pred.shape}, label shape {label.shape}.")
        label = label.reshape((label.size,))
        rows = np.arange(label.size)[:, None]
        picked = np.squeeze(pred[rows, label.astype(int)[:, None]])
        count = 0
        if self.ignore_label is not None:
            ignored = (label == self.ignore_label).astype(picked.dtype)
            count -= np.sum(ignored)
            picked = picked * (1 - ignored) + ignored
        self._sum_metric += -np.float64(np.sum(np.log(np.maximum(1e-10, picked))))
        self._num_inst += count + picked.size

    @explain_errors
    def eval(self):
        """The perplexity (a float).

        Raises
        ------
        RuntimeError
            If no label was counted.
        """
        if self._num_inst == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of samples is 0, please "
                               "check whether the update method has been called before calling eval method.")
        return math.exp(self._sum_metric / self._num_inst)
