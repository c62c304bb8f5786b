"""``MeanSurfaceDistance``: the mean distance between two mask boundaries."""
from __future__ import annotations

import numpy as np

from ._surface import check_distance_metric, checked_masks, edges, surface_distances
from .metric import Metric, check_type, explain_errors, rearrange_inputs

__all__ = ["MeanSurfaceDistance"]


class _SurfaceMetric(Metric):
    _name = ""
    _label_type_error = ValueError

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = check_distance_metric(distance_metric)
        self.symmetric = check_type("symmetric", symmetric, [bool])
        self.clear()

    def clear(self):
        """Forget the stored boundaries."""
        self._y_pred_edges = 0
        self._y_edges = 0
        self._is_update = False

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Store the boundaries of one pair of masks: ``update(y_pred, y, label_idx)``.

        Raises
        ------
        ValueError
            Not three inputs, a label in neither array, or arrays empty or of different shapes.
        """
        y_pred, y, label_idx = checked_masks(self, inputs, self._name, self._label_type_error)
        if y_pred.dtype != bool:
            y_pred = y_pred == label_idx
        if y.dtype != bool:
            y = y == label_idx
        self._y_pred_edges = edges(y_pred)
        self._y_edges = edges(y)
        self._is_update = True

    def _one_way(self, from_edges, to_edges):
        raise NotImplementedError

    def _finish(self, value):
        return value

    @explain_errors
    def eval(self):
        """The distance (a NumPy float, or ``inf`` when a boundary is empty).

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        """
        if not self._is_update:         # also before any update (MindSpore 2.10 answers inf then)
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        forward = surface_distances(self._y_pred_edges, self._y_edges, self.distance_metric)
        if forward.shape == (0,):
            return np.inf
        if not self.symmetric:
            return self._finish(self._one_way(forward))
        backward = surface_distances(self._y_edges, self._y_pred_edges, self.distance_metric)
        if backward.shape == (0,):
            return np.inf
        # both boundaries' distances pooled, as the documented formula (MindSpore 2.10 averages the two means)
        return self._finish(self._one_way(np.concatenate([forward, backward])))


class MeanSurfaceDistance(_SurfaceMetric):
    """The mean distance from the predicted mask's boundary to the true mask's boundary.

    ``update(y_pred, y, label_idx)``: two arrays of one shape and the label whose region is
    measured (boolean arrays are masks already).  With ``symmetric`` the mean over both
    boundaries' voxels of their distance to the other boundary.  ``eval()`` measures the last
    update; ``inf`` when a boundary it needs is empty.

    Parameters
    ----------
    symmetric : bool
        Average both directions.
    distance_metric : {'euclidean', 'chessboard', 'taxicab'}
        How voxel distances are measured.

    Raises
    ------
    TypeError
        If ``symmetric`` is not a bool or ``distance_metric`` not a str.
    ValueError
        If ``distance_metric`` is none of the three.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import MeanSurfaceDistance
    >>> a = np.zeros((5, 5)); a[1:4, 1:4] = 1
    >>> b = np.zeros((5, 5)); b[1:4, 2:5] = 1
    >>> metric = MeanSurfaceDistance()
    >>> metric.update(a, b, 1)
    >>> round(float(metric.eval()), 4)
    0.5
    """

    _name = "MeanSurfaceDistance"

    def _one_way(self, distances):
        return distances.mean()
