"""``ConfusionMatrix`` and ``ConfusionMatrixMetric`` (the rates derived from binary confusion counts)."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_choice, check_input_count, check_type, explain_errors, rearrange_inputs

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]

_NORMALIZE = ("target", "prediction", "all", "no_norm")


class ConfusionMatrix(Metric):
    """The ``(num_classes, num_classes)`` confusion matrix: row = true class, column = predicted class.

    ``update(y_pred, y)``: ``y`` holds class indices; ``y_pred`` holds scores with one more axis
    (axis 1, the classes: the highest wins), or class indices of ``y``'s shape; float indices
    are first turned into 0/1 by ``threshold``.

    Parameters
    ----------
    num_classes : int
        The number of classes.
    normalize : {'no_norm', 'target', 'prediction', 'all'}
        Counts as they are, or divided by each row's sum, each column's sum or the total
        (a division by 0 gives 0).
    threshold : float
        Float predictions of ``y``'s shape at or above it count as class 1, below as class 0.

    Raises
    ------
    TypeError
        If ``num_classes`` is not an int or ``threshold`` not a float.
    ValueError
        If ``normalize`` is none of the four.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import ConfusionMatrix
    >>> metric = ConfusionMatrix(num_classes=2)
    >>> metric.update(np.array([1, 0, 1, 0]), np.array([1, 0, 0, 1]))
    >>> metric.eval().tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        self.num_classes = check_type("num_classes", num_classes, [int])
        if normalize not in _NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be one of {list(_NORMALIZE)}, but "
                             f"got {normalize!r}.")
        self.normalize = normalize
        self.threshold = check_type("threshold", threshold, [float])
        try:
            self.clear()
        except (ValueError, MemoryError) as exc:       # a negative or impossibly large matrix
            raise ValueError(f"For 'ConfusionMatrix', the argument 'num_classes' must give a num_classes x num_classes "
                             f"matrix that fits in memory (a non-negative int), but got {num_classes}: {exc}") from None

    def clear(self):
        """Reset the counts to zero."""
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Add one batch's counts: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, or ``y_pred`` with neither ``y``'s dimensions nor one more.
        """
        check_input_count(inputs, 2, "ConfusionMatrix")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim not in (y.ndim, y.ndim + 1):
            raise ValueError("For 'ConfusionMatrix.update', predicted value (input[0]) must have the dimensions of true "
                             "value (input[1]) or one more, but got predicted value ndim: "
                             f"{y_pred.ndim}, true value ndim: {y.ndim}.")
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        if y_pred.ndim == y.ndim and y_pred.dtype in (np.float16, np.float32, np.float64):
            y_pred = (y_pred >= self.threshold).astype(int)
        cells = (y.reshape(-1) * self.num_classes + y_pred.reshape(-1)).astype(int)
        counts = np.bincount(cells, minlength=self.num_classes ** 2)
        self.confusion_matrix += counts.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    @explain_errors
    def eval(self):
        """The matrix (float64), normalised as asked.

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        """
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        matrix = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return matrix
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.normalize == "target":
                matrix = matrix / matrix.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                matrix = matrix / matrix.sum(axis=0, keepdims=True)
            else:
                matrix = matrix / matrix.sum()
        matrix[np.isnan(matrix)] = 0
        return matrix


# --------------------------------------------------------------------- ConfusionMatrixMetric
_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}
_SHORT = {alias: short for short, aliases in _ALIASES.items() for alias in aliases}
_DECREASE = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _short_name(metric_name):
    short = _SHORT.get(metric_name.replace(" ", "_").lower())
    if short is None:
        raise NotImplementedError(f"The metric {metric_name!r} is not implemented; known names: {sorted(_SHORT)}.")
    return short


def _rate(numerator, denominator):
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def _fraction(short, counts):
    """(numerator, denominator) of the rate ``short`` from ``counts[..., (tp, fp, tn, fn)]``."""
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    if short == "tpr":
        return tp, p
    if short == "tnr":
        return tn, n
    if short == "ppv":
        return tp, tp + fp
    if short == "npv":
        return tn, tn + fn
    if short == "fnr":
        return fn, p
    if short == "fpr":
        return fp, n
    if short == "fdr":
        return fp, fp + tp
    if short == "for":
        return fn, fn + tn
    if short == "ts":
        return tp, tp + fn + fp
    if short == "acc":
        return tp + tn, p + n
    if short == "f1":
        return tp * 2.0, tp * 2.0 + fn + fp
    if short == "mcc":
        return tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    tpr, tnr = _rate(tp, p), _rate(tn, n)
    if short == "pt":
        return np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0
    if short == "ba":
        return tpr + tnr, 2.0
    if short == "fm":
        return np.sqrt(_rate(tp, tp + fp) * tpr), 1.0
    if short == "bm":
        return tpr + tnr - 1.0, 1.0
    return _rate(tp, tp + fp) + _rate(tn, tn + fn) - 1.0, 1.0          # mk


def _confusion_rate(metric_name, counts):
    """The rate ``metric_name`` from confusion counts ``(..., 4)`` (NaN where it is 0/0)."""
    short = _short_name(metric_name)
    if counts.ndim == 1:
        counts = counts[None]
    if counts.shape[-1] != 4:
        raise ValueError("For 'ConfusionMatrix', the size of the last dimension of confusion_matrix must be 4, but "
                         f"got {counts.shape[-1]}.")
    with np.errstate(divide="ignore", invalid="ignore"):
        numerator, denominator = _fraction(short, counts)
        if isinstance(denominator, np.ndarray):
            return np.where(denominator != 0, numerator / denominator, np.nan)
        return numerator / denominator


def _reduce(chart, decrease):
    """``(chart, count of non-NaN entries)`` reduced over batch and/or channel as ``decrease`` says."""
    nans = np.isnan(chart)
    valid = (~nans).astype(float)
    chart[nans] = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if decrease == "mean":
            valid = valid.sum(axis=1)
            chart = np.where(valid > 0, chart.sum(axis=1) / valid, np.zeros(1, dtype=float))
            valid = (valid > 0).astype(float).sum(axis=0)
            chart = np.where(valid > 0, chart.sum(axis=0) / valid, np.zeros(1, dtype=float))
        elif decrease == "sum":
            valid = valid.sum(axis=(0, 1))
            chart = np.sum(chart, axis=(0, 1))
        elif decrease in ("mean_batch", "mean_channel"):
            axis = 0 if decrease == "mean_batch" else 1
            valid = valid.sum(axis=axis)
            chart = np.where(valid > 0, chart.sum(axis=axis) / valid, np.zeros(1, dtype=float))
        elif decrease in ("sum_batch", "sum_channel"):
            axis = 0 if decrease == "sum_batch" else 1
            valid = valid.sum(axis=axis)
            chart = chart.sum(axis=axis)
    return chart, valid


def _binary_counts(y_pred, y, skip_channel):
    """Per sample and channel ``(tp, fp, tn, fn)``: shape ``(N, C, 4)``."""
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    y = y.astype(float)
    y_pred = y_pred.astype(float)
    if y.shape != y_pred.shape:
        raise ValueError(f"The 'y_shape' should be equal to y_pred_shape: {y_pred.shape}, but got {y.shape}.")
    batch, channels = y_pred.shape[:2]
    y_pred = y_pred.reshape(batch, channels, -1)
    y = y.reshape(batch, channels, -1)
    tp = (y_pred + y == 2).astype(float).sum(axis=2)
    tn = (y_pred + y == 0).astype(float).sum(axis=2)
    positives = y.sum(axis=2)
    negatives = y.shape[-1] - positives
    return np.stack([tp, negatives - tn, tn, positives - tp], axis=-1)


class ConfusionMatrixMetric(Metric):
    """A rate from binary confusion counts (true/false positives/negatives) of one-hot masks.

    ``update(y_pred, y)``: 0/1 arrays of one shape ``(N, C, ...)`` (batch, channels, spatial).
    With ``calculation_method=False`` the counts of every sample and channel are summed and
    ``eval()`` returns the rate of the totals (an array of one element).  With
    ``calculation_method=True`` the rate is computed per sample and channel, reduced with
    ``decrease``, and ``eval()`` returns the mean of the batches' values weighted by how many
    of them were defined (a float).

    Parameters
    ----------
    skip_channel : bool
        False drops channel 0 (the background) when there is more than one channel.
    metric_name : str
        The rate, by any of its names (case and spaces ignored): ``'sensitivity'``
        (``'recall'``, ``'hit_rate'``, ``'tpr'``...), ``'specificity'``, ``'precision'``,
        ``'negative_predictive_value'``, ``'miss_rate'``, ``'fall_out'``,
        ``'false_discovery_rate'``, ``'false_omission_rate'``, ``'prevalence_threshold'``,
        ``'threat_score'``, ``'accuracy'``, ``'balanced_accuracy'``, ``'f1_score'``,
        ``'matthews_correlation_coefficient'``, ``'fowlkes_mallows_index'``,
        ``'informedness'``, ``'markedness'``.  An unknown name raises ``NotImplementedError``
        at the first ``update``.
    calculation_method : bool
        Per-sample rates (True) or the rate of the summed counts (False).
    decrease : {'mean', 'sum', 'none', 'mean_batch', 'sum_batch', 'mean_channel', 'sum_channel'}
        How per-sample rates are reduced (with ``calculation_method=True``).  The batch value
        must come out as one number.

    Raises
    ------
    TypeError
        If ``skip_channel`` or ``calculation_method`` is not a bool, ``metric_name`` or
        ``decrease`` not a str.
    ValueError
        If ``decrease`` is none of the seven.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import ConfusionMatrixMetric
    >>> metric = ConfusionMatrixMetric(metric_name="precision")
    >>> metric.update(np.array([[[1, 0], [1, 1]]]), np.array([[[1, 0], [0, 1]]]))
    >>> metric.eval().round(4).tolist()
    [0.6667]
    """

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        super().__init__()
        self.skip_channel = check_type("skip_channel", skip_channel, [bool])
        self.calculation_method = check_type("calculation_method", calculation_method, [bool])
        self.metric_name = check_type("metric_name", metric_name, [str])
        self.decrease = check_choice("decrease", decrease, _DECREASE)
        self.clear()

    def clear(self):
        """Forget every batch."""
        self._total_num = 0
        self._class_num = 0
        self._total_tp = 0.0
        self._total_fp = 0.0
        self._total_tn = 0.0
        self._total_fn = 0.0

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Add one batch: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, a non-binary ``y``, ``y_pred`` of fewer than 2 dimensions, shapes that
            differ, per-sample rates asked of inputs without spatial axes, or a reduced batch
            value of more than one number.
        NotImplementedError
            With ``calculation_method=True``, if ``metric_name`` names no rate (otherwise ``eval``
            raises it).
        """
        check_input_count(inputs, 2, "ConfusionMatrixMetric")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrix.update', the true value (input[1]) must be a binarized ndarray.")
        if y_pred.ndim < 2:
            raise ValueError("For 'ConfusionMatrix.update', the predicted value (input[0]) must have at least 2 "
                             f"dimensions, but got {y_pred.ndim}.")
        counts = _binary_counts(y_pred, y, self.skip_channel)
        if self.calculation_method:
            if y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1):
                raise ValueError("For 'ConfusionMatrixMetric.update', calculation_method=True needs predicted values "
                                 f"with spatial axes (N, C, ...), but got shape {y_pred.shape}.")
            score, valid = _reduce(_confusion_rate(self.metric_name, counts), self.decrease)
            valid = int(valid.item())
            self._total_num += score.item() * valid
            self._class_num += valid
        else:
            totals = counts.sum(axis=(0, 1))
            self._total_tp += totals[0].item()
            self._total_fp += totals[1].item()
            self._total_tn += totals[2].item()
            self._total_fn += totals[3].item()

    @explain_errors
    def eval(self):
        """The rate: a one-element array, or a float with ``calculation_method=True``.

        Raises
        ------
        RuntimeError
            With ``calculation_method=True``, if no defined value was gathered.
        NotImplementedError
            If ``metric_name`` names no rate.
        """
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because the number of samples "
                                   "is 0, please check whether your inputs(predicted value, true value) are empty, or "
                                   "has called update method before calling eval method.")
            return self._total_num / self._class_num
        counts = np.array([self._total_tp, self._total_fp, self._total_tn, self._total_fn])
        return _confusion_rate(self.metric_name, counts)
