"""``TopKCategoricalAccuracy`` and its ``k=1`` and ``k=5`` forms."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, explain_errors, is_one_hot, rearrange_inputs

__all__ = ["TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy"]


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose label is among their ``k`` highest scores.

    ``update(y_pred, y)``: scores ``(N, C)`` and class indices ``(N,)`` or one-hot labels.

    Parameters
    ----------
    k : int
        How many of the highest scores count; at least 1.

    Raises
    ------
    TypeError
        If ``k`` is not an int.
    ValueError
        If ``k`` is less than 1.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import TopKCategoricalAccuracy
    >>> metric = TopKCategoricalAccuracy(2)
    >>> metric.update(np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]]), np.array([2, 2]))
    >>> float(metric.eval())
    0.5
    """

    def __init__(self, k):
        super().__init__()
        if not isinstance(k, int):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' should be int, but got 'k' "
                            f"type: {type(k)}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, but got 'k' "
                             f"value: {k}.")
        self.k = k
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Count one batch: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs.
        """
        if len(inputs) != 2:
            raise ValueError("For 'TopKCategoricalAccuracy.update', it needs 2 inputs (predicted value, true value), "
                             f"but got 'inputs' size: {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        best = np.argsort(-y_pred, axis=1)[:, :self.k]
        labels = y.reshape(-1, 1).repeat(self.k, axis=1)
        self._correct_num += np.equal(best, labels).sum(axis=1).sum()
        self._samples_num += labels.shape[0]

    @explain_errors
    def eval(self):
        """The top-k accuracy so far.

        Raises
        ------
        RuntimeError
            If nothing was counted.
        """
        if self._samples_num == 0:
            raise RuntimeError("The 'TopKCategoricalAccuracy' can not be calculated, because the number of samples is "
                               "0, please check whether your inputs (predicted value, true value) are empty, or has "
                               "called update method before calling eval method.")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """:class:`TopKCategoricalAccuracy` with ``k=1``.

    >>> import numpy as np
    >>> from cellkit.train import Top1CategoricalAccuracy
    >>> float(Top1CategoricalAccuracy()(np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([1, 1])))
    0.5
    """

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """:class:`TopKCategoricalAccuracy` with ``k=5``.

    >>> import numpy as np
    >>> from cellkit.train import Top5CategoricalAccuracy
    >>> float(Top5CategoricalAccuracy()(np.arange(12.0).reshape(2, 6), np.array([0, 5])))
    0.5
    """

    def __init__(self):
        super().__init__(5)
