"""Metrics: accumulate predictions batch by batch, then ``eval()`` -- MindSpore's ``mindspore.train`` metrics.

Metrics compute on the host (NumPy): their inputs are small (logits and
labels) and their results are plain Python numbers.

>>> import numpy as np
>>> from cellkit.train import Accuracy
>>> acc = Accuracy()
>>> acc.update(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
>>> acc.eval()
0.5
"""
from __future__ import annotations

import numpy as np

from .. import backend as _backend
from ..tensor import Tensor

__all__ = ["Metric", "Accuracy", "Loss", "get_metric_fn", "get_metrics", "names"]


class Metric:
    """Base class: subclasses define ``clear()``, ``update(*inputs)`` and ``eval()``.

    ``set_indexes([i, j])`` picks which of the evaluation network's outputs
    ``update`` receives (by default ``Model`` passes ``(logits, label)`` to
    most metrics and the loss to :class:`Loss`).
    """

    def __init__(self):
        self._indexes = None

    @staticmethod
    def _convert_data(data):
        """A NumPy array from a Tensor, array or list."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, np.ndarray):
            return data
        if isinstance(data, (list, tuple, int, float, np.number)):
            return np.asarray(data)
        if hasattr(data, "__array_namespace__") or hasattr(data, "device"):
            return _backend.to_host(data)
        raise TypeError(f"The input data type must be a Tensor, a list or a numpy.ndarray, but got {type(data)}.")

    @property
    def indexes(self):
        """The output positions ``update`` receives, or ``None``."""
        return self._indexes

    def set_indexes(self, indexes):
        """Choose which outputs of the evaluation network ``update`` receives; returns self."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError(f"For 'set_indexes', the argument 'indexes' must be a list of ints, but got {indexes!r}.")
        self._indexes = indexes
        return self

    def _select(self, inputs):
        if self._indexes is None:
            return inputs
        return tuple(inputs[i] for i in self._indexes)

    def __call__(self, *inputs):
        """``clear()``, ``update(*inputs)``, ``eval()`` in one go."""
        self.clear()
        self.update(*inputs)
        return self.eval()

    def clear(self):
        raise NotImplementedError(f"{type(self).__name__} must define clear()")

    def update(self, *inputs):
        raise NotImplementedError(f"{type(self).__name__} must define update(*inputs)")

    def eval(self):
        raise NotImplementedError(f"{type(self).__name__} must define eval()")


class Accuracy(Metric):
    """The fraction of samples whose highest-scoring class is the label.

    Parameters
    ----------
    eval_type : {'classification', 'multilabel'}
        ``'classification'``: ``y_pred`` is ``(N, C)`` scores, ``y`` class
        indices ``(N,)`` or one-hot ``(N, C)``.  ``'multilabel'``: both are
        0/1 arrays ``(N, C)`` and a sample counts when all its labels match.

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.train import Accuracy
    >>> Accuracy()(np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]]), np.array([[0, 1, 0], [0, 0, 1]]))
    0.5
    """

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"For 'Accuracy', 'eval_type' must be 'classification' or 'multilabel', but got {eval_type!r}")
        self._type = eval_type
        self.clear()

    def clear(self):
        """Forget every update."""
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    def update(self, *inputs):
        """Add a batch: ``update(y_pred, y)``.

        Raises
        ------
        ValueError
            Not two inputs, shapes that do not fit, or a class count that
            differs from earlier batches.
        """
        inputs = self._select(inputs)
        if len(inputs) != 2:
            raise ValueError(
                f"For 'Accuracy.update', it needs 2 inputs (predicted value, true value), but got {len(inputs)}"
            )
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim < 2:
            raise ValueError(f"For 'Accuracy.update', the predicted value must be (N, C) scores, but got shape {y_pred.shape}")
        if self._type == "classification" and y.ndim == y_pred.ndim and _is_one_hot(y):
            y = y.argmax(axis=1)
        if self._type == "classification" and y.shape[0] != y_pred.shape[0]:
            raise ValueError(
                f"For 'Accuracy.update', the predicted value has {y_pred.shape[0]} samples but the true value "
                f"has {y.shape[0]}"
            )
        classes = y_pred.shape[1]
        if self._class_num == 0:
            self._class_num = classes
        elif classes != self._class_num:
            raise ValueError(
                f"For 'Accuracy.update', class number not match, last input predicted data contain {self._class_num} "
                f"classes, but current predicted data contain {classes} classes, please check your predicted "
                "value(inputs[0])."
            )
        if self._type == "classification":
            result = (y_pred.argmax(axis=1) == y.reshape(y_pred.shape[0], *y.shape[1:])).reshape(-1)
        else:
            if y.shape != y_pred.shape:
                raise ValueError(f"For 'Accuracy.update', multilabel shapes differ: {y_pred.shape} and {y.shape}")
            last = y_pred.ndim - 1
            result = np.equal(y_pred.swapaxes(1, last).reshape(-1, classes),
                              y.swapaxes(1, last).reshape(-1, classes)).all(axis=1)
        self._correct_num += int(result.sum())
        self._total_num += int(result.shape[0])

    def eval(self):
        """The accuracy so far (a float).

        Raises
        ------
        RuntimeError
            If nothing was added.
        """
        if self._total_num == 0:
            raise RuntimeError(
                "The 'Accuracy' can not be calculated, because the number of samples is 0, please check whether your "
                "inputs(predicted value, true value) are empty, or has called update method before calling eval method."
            )
        return self._correct_num / self._total_num


class Loss(Metric):
    """The mean of the losses given to ``update`` (each batch counts once).

    >>> from cellkit.train import Loss
    >>> loss = Loss()
    >>> loss.update(0.5)
    >>> loss.update([1.0, 2.0])
    >>> loss.eval()
    1.0
    """

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Forget every update."""
        self._sum_loss = 0.0
        self._total_num = 0

    def update(self, *inputs):
        """Add a batch's loss (a scalar, or a 1-D array averaged first)."""
        inputs = self._select(inputs)
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of your input (loss) must be 1, but got {loss.ndim}.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        """The mean loss (a float).

        Raises
        ------
        RuntimeError
            If nothing was added.
        """
        if self._total_num == 0:
            raise RuntimeError(
                "The 'Loss' can not be calculated, because the number of samples is 0, please check whether has "
                "called update method before calling eval method."
            )
        return self._sum_loss / self._total_num


def _is_one_hot(y):
    """True for a 2-D array of 0s and 1s with one 1 per row."""
    if y.ndim != 2:
        return False
    return bool(np.isin(y, (0, 1)).all() and (y.sum(axis=1) == 1).all())


_FACTORY = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss}


def names():
    """The metric names :func:`get_metric_fn` knows (sorted)."""
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs):
    """A new metric by name (``'accuracy'``, ``'acc'``, ``'loss'``).

    >>> from cellkit.train import get_metric_fn
    >>> get_metric_fn("acc")  # doctest: +ELLIPSIS
    <cellkit.train.metrics.Accuracy object at ...>
    """
    if name not in _FACTORY:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name!r}; cellkit knows {names()}")
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics):
    """``{name: Metric}`` from a dict of Metrics or a set of names (``None`` stays ``None``).

    Raises
    ------
    TypeError
        For anything else, or a dict whose keys are not str / values not Metrics.
    """
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError(
                    "For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string and value in "
                    f"'metrics' must be Metric, but got key:{type(name)}, value:{type(metric)}."
                )
        return dict(metrics)
    if isinstance(metrics, (set, frozenset)):
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics!r}")
