"""``CosineSimilarity``: the pairwise similarity matrix of the rows of one input."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_choice, check_type, explain_errors, rearrange_inputs

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """The similarity of every pair of rows of the last input given to ``update``.

    ``update(x)`` with ``x`` of shape ``(N, D)``; ``eval()`` returns the ``(N, N)`` matrix of
    cosines (or dot products), or its row sums or row means.

    Parameters
    ----------
    similarity : {'cosine', 'dot'}
        Cosine of the angle between rows, or their plain dot product.
    reduction : {'none', 'sum', 'mean'}
        The matrix, or the sum or mean of each row.
    zero_diagonal : bool
        Set each row's similarity with itself to 0 first.

    Raises
    ------
    TypeError
        If ``similarity``/``reduction`` is not a str or ``zero_diagonal`` not a bool.
    ValueError
        If ``similarity`` or ``reduction`` is none of the choices.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import CosineSimilarity
    >>> metric = CosineSimilarity()
    >>> metric.update(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> metric.eval().round(4).tolist()
    [[0.0, 0.7071], [0.7071, 0.0]]
    """

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        self.similarity = check_choice("similarity", similarity, ["dot", "cosine"])
        self.reduction = check_choice("reduction", reduction, ["none", "sum", "mean"])
        self.zero_diagonal = check_type("zero_diagonal", zero_diagonal, [bool])
        self.clear()

    def clear(self):
        """Forget the stored matrix."""
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    @explain_errors
    def update(self, inputs):
        """Compute the similarity matrix of ``inputs`` (it replaces the one before)."""
        data = self._convert_data(inputs)
        if self.similarity == "cosine":
            data = data / np.expand_dims(np.linalg.norm(data, ord=2, axis=1), 1)
        self.sqr_mtx_res = np.dot(data, data.transpose(1, 0))
        self._is_update = True

    @explain_errors
    def eval(self):
        """The matrix, or its row sums or means.

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        """
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        result = self.sqr_mtx_res.copy()       # eval leaves the stored matrix as it is (MindSpore reduces it in place)
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "mean":
            return np.mean(result, axis=-1)
        if self.reduction == "sum":
            return np.sum(result, axis=-1)
        return result
