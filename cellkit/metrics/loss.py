"""``Loss``: the mean of the losses of the batches."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, explain_errors, rearrange_inputs

__all__ = ["Loss"]


class Loss(Metric):
    """The mean over batches of each batch's loss (a scalar, or a 1-D array averaged first).

    >>> import numpy as np
    >>> from cellkit.train import Loss
    >>> metric = Loss()
    >>> metric.update(np.array(0.5))
    >>> metric.update(np.array([1.0, 2.0]))
    >>> float(metric.eval())
    1.0
    """

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._sum_loss = 0
        self._total_num = 0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Add one batch's loss.

        Raises
        ------
        ValueError
            Not one input, or a loss of more than one dimension.
        """
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of your input (loss) must be 1, but got {loss.ndim}.")
        self._sum_loss = self._sum_loss + np.float64(loss.mean(-1))   # float64 sums, as MindSpore reports
        self._total_num += 1

    @explain_errors
    def eval(self):
        """The mean loss.

        Raises
        ------
        RuntimeError
            If nothing was added.
        """
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples is 0, please check "
                               "whether has called update method before calling eval method.")
        return self._sum_loss / self._total_num
