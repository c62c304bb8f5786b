"""``RootMeanSquareDistance``: the root-mean-square distance between two mask boundaries."""
from __future__ import annotations

import numpy as np

from .mean_surface_distance import _SurfaceMetric

__all__ = ["RootMeanSquareDistance"]


class RootMeanSquareDistance(_SurfaceMetric):
    """Mean squared distances between the boundaries of a predicted and a true mask.

    ``update(y_pred, y, label_idx)`` as for :class:`MeanSurfaceDistance`.  One way
    (``symmetric=False``) ``eval()`` returns the root of the mean squared distance from the
    predicted boundary to the true one (MindSpore 2.10 leaves the root out); with
    ``symmetric`` the root of the mean squared distance over both boundaries' voxels.

    Parameters
    ----------
    symmetric : bool
        Combine both directions (and take the root).
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
    >>> from cellkit.train import RootMeanSquareDistance
    >>> a = np.zeros((5, 5)); a[1:4, 1:4] = 1
    >>> b = np.zeros((5, 5)); b[1:4, 2:5] = 1
    >>> metric = RootMeanSquareDistance(symmetric=True)
    >>> metric.update(a, b, 1)
    >>> round(float(metric.eval()), 4)
    0.7071
    >>> round(float(RootMeanSquareDistance()(a, b, 1)), 4)
    0.7071
    """

    _name = "RootMeanSquareDistance"
    _label_type_error = TypeError

    def _one_way(self, distances):
        return (distances ** 2).mean()

    def _finish(self, value):
        return np.sqrt(value)
