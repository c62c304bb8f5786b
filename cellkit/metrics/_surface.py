"""What the surface-distance metrics share: input checks, mask edges and distance transforms."""
from __future__ import annotations

import numpy as np

from .metric import check_choice

DISTANCE_METRICS = ("euclidean", "chessboard", "taxicab")


def check_distance_metric(distance_metric):
    return check_choice("distance_metric", distance_metric, DISTANCE_METRICS)


def checked_masks(metric, inputs, owner, label_type_error=ValueError):
    """``(y_pred, y, label_idx)`` from ``update``'s three inputs, after MindSpore's checks."""
    if len(inputs) != 3:
        raise ValueError(f"For '{owner}.update', it needs 3 inputs (predicted value, true value, label index), but "
                         f"got {len(inputs)}.")
    y_pred = metric._convert_data(inputs[0])
    y = metric._convert_data(inputs[1])
    label_idx = inputs[2]
    if not isinstance(label_idx, (int, float)):
        raise label_type_error(f"For '{owner}.update', the label index (input[2]) must be int or float, but got "
                               f"{type(label_idx)}.")
    if label_idx not in y_pred and label_idx not in y:
        raise ValueError(f"For '{owner}.update', the label index (input[2]) must be in predicted value (input[0]) or "
                         f"true value (input[1]), but {label_idx} is not.")
    if y_pred.size == 0 or y_pred.shape != y.shape:
        raise ValueError(f"For '{owner}.update', predicted value (input[0]) and true value (input[1]) must be "
                         "non-empty and of one shape, but got predicted value size: "
                         f"{y_pred.size}, shape: {y_pred.shape}, true value size: {y.size}, shape: {y.shape}.")
    return y_pred, y, label_idx


def edges(mask):
    """The boundary of a boolean mask: its voxels that erosion removes."""
    from scipy import ndimage

    return ndimage.binary_erosion(mask) ^ mask


def surface_distances(from_edges, to_edges, distance_metric):
    """The distance from each voxel of ``from_edges`` to the nearest voxel of ``to_edges``.

    Empty when ``from_edges`` is; all infinite when ``to_edges`` is.
    """
    from scipy import ndimage

    if not np.any(from_edges):
        return np.array([])
    if not np.any(to_edges):
        return np.full(to_edges.shape, np.inf)[from_edges]
    if distance_metric == "euclidean":
        dist = ndimage.distance_transform_edt(~to_edges)
    else:
        dist = ndimage.distance_transform_cdt(~to_edges, metric=distance_metric)
    return dist[from_edges]
