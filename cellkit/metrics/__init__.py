"""Metrics -- MindSpore's ``mindspore.train.metrics`` (also in ``mindspore.nn`` and at the top level).

A metric gathers statistics batch by batch (``update``), answers with ``eval`` and starts over
with ``clear``.  Metrics are not differentiable: they compute on host NumPy arrays made from the
Tensors, NumPy arrays or lists they are given, and answer with NumPy values (or Python floats)
exactly where MindSpore does.

>>> import numpy as np
>>> from cellkit.train import Accuracy, get_metric_fn
>>> acc = Accuracy()
>>> acc.update(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
>>> float(acc.eval())
0.5
>>> type(get_metric_fn("acc")).__name__
'Accuracy'
"""
from __future__ import annotations

from .accuracy import Accuracy
from .auc import auc
from .bleu_score import BleuScore
from .confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from .cosine_similarity import CosineSimilarity
from .dice import Dice
from .error import MAE, MSE
from .fbeta import F1, Fbeta
from .hausdorff_distance import HausdorffDistance
from .loss import Loss
from .mean_surface_distance import MeanSurfaceDistance
from .metric import Metric, rearrange_inputs
from .occlusion_sensitivity import OcclusionSensitivity
from .perplexity import Perplexity
from .precision import Precision
from .recall import Recall
from .roc import ROC
from .root_mean_square_surface_distance import RootMeanSquareDistance
from .topk import Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy

__all__ = [
    "names", "get_metric_fn", "Accuracy", "MAE", "MSE", "Metric", "rearrange_inputs", "Precision",
    "HausdorffDistance", "Recall", "Fbeta", "BleuScore", "CosineSimilarity", "OcclusionSensitivity", "F1", "Dice",
    "ROC", "auc", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss",
    "MeanSurfaceDistance", "RootMeanSquareDistance", "Perplexity", "ConfusionMatrix", "ConfusionMatrixMetric",
]

_FACTORY = {
    "accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall, "F1": F1, "dice": Dice,
    "roc": ROC, "auc": auc, "bleu_score": BleuScore, "cosine_similarity": CosineSimilarity,
    "occlusion_sensitivity": OcclusionSensitivity, "topk": TopKCategoricalAccuracy,
    "hausdorff_distance": HausdorffDistance, "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy, "mae": MAE, "mse": MSE, "loss": Loss,
    "mean_surface_distance": MeanSurfaceDistance, "root_mean_square_distance": RootMeanSquareDistance,
    "perplexity": Perplexity, "confusion_matrix": ConfusionMatrix, "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names():
    """The names :func:`get_metric_fn` knows, sorted.

    >>> from cellkit.train import names
    >>> names()[:3]
    ['F1', 'acc', 'accuracy']
    """
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs):
    """A new metric (or the ``auc`` function's result) by name: ``_FACTORY[name](*args, **kwargs)``.

    Raises
    ------
    KeyError
        For a name :func:`names` does not list.

    >>> from cellkit.train import get_metric_fn
    >>> get_metric_fn("topk", 3).k
    3
    """
    try:
        known = name in _FACTORY
    except TypeError:           # unhashable
        raise TypeError(f"For 'get_metric_fn', the argument 'name' must be a str, but got {type(name).__name__}.") \
            from None
    if not known:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name!r}; the supported names are {names()}.")
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics):
    """``{name: Metric}`` from a dict of metrics or a set of names (``None`` stays ``None``).

    Raises
    ------
    TypeError
        For anything else, or a dict whose keys are not str or values not Metrics.
    KeyError
        For an unknown name.

    >>> from cellkit.nn import get_metrics
    >>> sorted(get_metrics({"acc", "loss"}))
    ['acc', 'loss']
    """
    if metrics is None:
        return metrics
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError("For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string and "
                                "value in 'metrics' must be Metric, but got key:"
                                f"{type(name)}, value:{type(metric)}.")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics}")
