"""``HausdorffDistance``: the largest (or a percentile of the) distance between two mask boundaries."""
from __future__ import annotations

import numpy as np

from ._surface import check_distance_metric, checked_masks, edges, surface_distances
from .metric import Metric, check_type, explain_errors, rearrange_inputs

__all__ = ["HausdorffDistance"]


class HausdorffDistance(Metric):
    """The Hausdorff distance between the boundaries of a predicted and a true mask.

    ``update(y_pred, y, label_idx)``: two arrays of one shape and the label whose region is
    measured (each array's voxels equal to it form its mask).  ``eval()`` measures the last
    update: the largest distance from a predicted boundary voxel to the true boundary (or the
    given percentile of those distances), and, unless ``directed``, the same the other way
    round, returning the larger.  ``inf`` when a boundary is empty.

    Parameters
    ----------
    distance_metric : {'euclidean', 'chessboard', 'taxicab'}
        How voxel distances are measured.
    percentile : float, optional
        A percentile (0 to 100) of the distances instead of their maximum.
    directed : bool
        Only from the prediction to the truth.
    crop : bool
        Cut both masks to the box around their union first.

    Raises
    ------
    TypeError
        Wrong argument types (``percentile`` must be a float).
    ValueError
        If ``distance_metric`` is none of the three.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import HausdorffDistance
    >>> a = np.zeros((5, 5)); a[1:4, 1:4] = 1
    >>> b = np.zeros((5, 5)); b[1:4, 2:5] = 1
    >>> metric = HausdorffDistance()
    >>> metric.update(a, b, 1)
    >>> float(metric.eval())
    1.0
    """

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        self.distance_metric = check_distance_metric(distance_metric)
        self.percentile = percentile if percentile is None else check_type("percentile", percentile, [float])
        self.directed = directed if directed is None else check_type("directed", directed, [bool])
        self.crop = crop if crop is None else check_type("crop", crop, [bool])
        self.clear()

    def clear(self):
        """Forget the stored boundaries."""
        self.y_pred_edges = 0
        self.y_edges = 0
        self._is_update = False

    def _boundaries(self, y_pred, y):
        if self.crop:
            if not np.any(y_pred | y):
                return np.zeros_like(y_pred), np.zeros_like(y)
            union = y_pred | y
            nonzero = np.nonzero(union)
            box = tuple(slice(max(0, int(np.min(i))), min(n, int(np.max(i)) + 1)) for i, n in zip(nonzero, union.shape))
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        return edges(y_pred), edges(y)

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Store the boundaries of one pair of masks: ``update(y_pred, y, label_idx)``.

        Raises
        ------
        ValueError
            Not three inputs, a label that is not a number or is in neither array, or arrays
            empty or of different shapes.
        """
        self._is_update = True
        y_pred, y, label_idx = checked_masks(self, inputs, "HausdorffDistance")
        self.y_pred_edges, self.y_edges = self._boundaries(y_pred == label_idx, y == label_idx)

    def _one_way(self, from_edges, to_edges):
        distances = surface_distances(from_edges, to_edges, self.distance_metric)
        if distances.shape == (0,):
            return np.inf
        if not self.percentile:
            return distances.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(distances, self.percentile)
        raise ValueError("For 'HausdorffDistance', the value of the argument 'percentile' must be [0, 100], but got "
                         f"{self.percentile}.")

    @explain_errors
    def eval(self):
        """The distance (a NumPy number, or ``inf``).

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        ValueError
            If ``percentile`` is outside 0..100.
        """
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        forward = self._one_way(self.y_pred_edges, self.y_edges)
        if self.directed:
            return forward
        return max(forward, self._one_way(self.y_edges, self.y_pred_edges))
