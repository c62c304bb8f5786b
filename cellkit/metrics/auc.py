"""``auc``: the area under a curve given by points, by the trapezoidal rule."""
from __future__ import annotations

import numpy as np

__all__ = ["auc"]


def _samples(x):
    if hasattr(x, "fit") and callable(x.fit):
        raise TypeError(f"Expected sequence or array-like, got estimator {x}.")
    if x.ndim == 0:
        raise TypeError(f"Singleton array {x} cannot be considered as a valid collection.")
    return x.shape[0]


def _as_vector(v):
    if v.ndim == 1 or (v.ndim == 2 and v.shape[1] == 1):
        return np.ravel(v)
    raise ValueError("For 'auc', the input must be a 1-dimensional array, or a 2-dimensional array with the second "
                     f"dimension of 1, but got shape {v.shape}.")


def auc(x, y, reorder=False):
    """The area under the curve through the points ``(x[i], y[i])`` (trapezoidal rule).

    Parameters
    ----------
    x, y : numpy.ndarray
        1-D (or ``(n, 1)``) arrays of the same length, at least 2; ``x`` increasing or
        decreasing unless ``reorder``.
    reorder : bool
        Sort the points by ``x`` (then ``y``) first.

    Returns
    -------
    numpy.float64

    Raises
    ------
    TypeError
        If ``x`` or ``y`` is not a NumPy array.
    ValueError
        Lengths that differ, fewer than 2 points, more than one column, or an ``x`` neither
        increasing nor decreasing (without ``reorder``).

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import auc
    >>> float(auc(np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])))
    0.75
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got {type(x)}, {type(y)}")
    lengths = [_samples(x), _samples(y)]
    if lengths[0] != lengths[1]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {[int(n) for n in lengths]}.")
    x = _as_vector(x)
    y = _as_vector(y)
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', the argument 'x' needs at least 2 points in axis 0, but got {x.shape[0]}.")
    direction = 1.0
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        steps = np.diff(x)
        if np.any(steps < 0):
            if not np.all(steps <= 0):
                raise ValueError("For 'auc', if the argument 'reorder' is False, the argument 'x' array must be "
                                 f"increasing or decreasing, but got 'x': {x}")
            direction = -1.0
    # float64, as MindSpore reports it (NumPy 1 promotes the integer direction with the area).
    return np.float64(direction) * np.trapezoid(y, x)
