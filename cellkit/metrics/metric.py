"""The ``Metric`` base class, ``rearrange_inputs`` and the checks the metrics share.

A metric gathers statistics batch by batch with ``update``, answers with ``eval`` and starts over
with ``clear``.  Metrics are not differentiable: they work on host NumPy arrays made from what
they are given (a cellkit ``Tensor``, a NumPy array or a list).

>>> import numpy as np
>>> from cellkit.train import Metric, rearrange_inputs
>>> class Total(Metric):
...     def clear(self):
...         self.total = 0.0
...     @rearrange_inputs
...     def update(self, *inputs):
...         self.total += float(self._convert_data(inputs[0]).sum())
...     def eval(self):
...         return self.total
>>> metric = Total().set_indexes([1])
>>> metric([9.0], [1.0, 2.0])
3.0
"""
from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from ..tensor import Tensor

__all__ = ["Metric", "rearrange_inputs"]


def rearrange_inputs(func):
    """Decorate a metric's ``update`` so that it receives only the inputs ``set_indexes`` chose.

    Without indexes (the default) every input goes through unchanged.

    >>> import numpy as np
    >>> from cellkit.train import Accuracy
    >>> acc = Accuracy().set_indexes([1, 2])
    >>> acc.update(np.zeros(1), np.array([[0.1, 0.9]]), np.array([1]))
    >>> float(acc.eval())
    1.0
    """

    @functools.wraps(func)
    def chosen(self, *inputs):
        indexes = self.indexes
        if indexes:
            inputs = [inputs[i] for i in indexes]
        return func(self, *inputs)

    return chosen


class Metric(metaclass=ABCMeta):
    """Base class of the metrics: a subclass defines ``clear()``, ``update(*inputs)`` and ``eval()``.

    Calling a metric clears it, updates it with the call's inputs and evaluates it.
    ``set_indexes([i, j])`` picks which inputs ``update`` receives (by position), for updates
    decorated with :func:`rearrange_inputs`.

    >>> import numpy as np
    >>> from cellkit.train import MAE
    >>> float(MAE()(np.array([1.0, 2.0]), np.array([1.5, 2.5])))
    0.5
    """

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data):
        """``data`` as a NumPy array: a Tensor's values, a list converted, an array as it is."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, list):
            return np.array(data)
        if isinstance(data, np.ndarray):
            return data
        raise TypeError("For 'Metric' and its derived classes, the input data type must be tensor, list or "
                        f"numpy.ndarray, but got {type(data)}.")

    @property
    def indexes(self):
        """The input positions ``update`` receives (``None``: all of them)."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Choose the input positions ``update`` receives; returns the metric itself.

        Raises
        ------
        ValueError
            If ``indexes`` is not a list of ints.
        """
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all its elements must be "
                             f"int, but got {indexes!r}.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        """``clear()``, ``update(*inputs)`` and ``eval()`` in one call."""
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self):
        """Forget what earlier updates gathered."""
        raise NotImplementedError(f"{type(self).__name__} must define clear()")

    @abstractmethod
    def eval(self):
        """The metric's value from what the updates gathered."""
        raise NotImplementedError(f"{type(self).__name__} must define eval()")

    @abstractmethod
    def update(self, *inputs):
        """Gather the statistics of one batch."""
        raise NotImplementedError(f"{type(self).__name__} must define update(*inputs)")


# ---------------------------------------------------------------------------- shared helpers
class MetricIndexError(IndexError, ValueError):
    """An input a metric cannot index with (an IndexError, as MindSpore raises, and a ValueError)."""


class MetricZeroDivisionError(ZeroDivisionError, ValueError):
    """An empty input a metric would divide by (a ZeroDivisionError, as MindSpore raises, and a ValueError)."""


def _describe(value):
    if isinstance(value, (Tensor, np.ndarray)):
        return f"{type(value).__name__}(shape={tuple(value.shape)}, dtype={value.dtype})"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}"
    text = f"{type(value).__name__} {value!r}"
    return text if len(text) < 60 else text[:57] + "..."


def explain_errors(method):
    """Decorate a built-in metric's ``update``/``eval``: an error NumPy raises on inputs that do not fit says which
    metric refused and what it was given, keeping its type (an IndexError or ZeroDivisionError also becomes a
    ValueError)."""

    @functools.wraps(method)
    def run(self, *inputs, **kwargs):
        try:
            return method(self, *inputs, **kwargs)
        except (TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
            text = str(exc)
            if text.startswith("For '") and type(exc) in (TypeError, ValueError, MetricIndexError,
                                                          MetricZeroDivisionError):
                raise
            given = ", ".join(_describe(v) for v in inputs) or "nothing"
            message = f"For '{type(self).__name__}.{method.__name__}', the inputs ({given}) cannot be used: {text}"
            if isinstance(exc, IndexError):
                raise MetricIndexError(message) from exc
            if isinstance(exc, ZeroDivisionError):
                raise MetricZeroDivisionError(message) from exc
            raise (TypeError if isinstance(exc, TypeError) else ValueError)(message) from exc

    return run

_EVAL_TYPES = ("classification", "multilabel")


def check_type(name, value, types, owner=None):
    """``value`` if it is one of ``types`` (a bool is no int, an int no float); TypeError otherwise."""
    types = tuple(types)
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        wanted = " or ".join(f"'{t.__name__}'" for t in types)
        prefix = f"For '{owner}', the" if owner else "The"
        raise TypeError(f"{prefix} type of '{name}' should be {wanted}, but got {value!r} of type "
                        f"'{type(value).__name__}'.")
    return value


def check_choice(name, value, choices, owner=None):
    """``value`` if it is a str among ``choices``; TypeError for a non-str, ValueError otherwise."""
    check_type(name, value, [str], owner)
    if value not in choices:
        prefix = f"For '{owner}', the" if owner else "The"
        raise ValueError(f"{prefix} '{name}' must be one of {list(choices)}, but got '{value}'.")
    return value


def check_eval_type(eval_type):
    """``eval_type`` if it is 'classification' or 'multilabel'; TypeError otherwise."""
    if eval_type not in _EVAL_TYPES:
        raise TypeError(f"The argument 'eval_type' must be one of {list(_EVAL_TYPES)}, but got {eval_type!r}")
    return eval_type


def check_input_count(inputs, count, owner, what="predicted value, true value"):
    """ValueError unless ``update`` received ``count`` inputs."""
    if len(inputs) != count:
        plural = "input" if count == 1 else "inputs"
        raise ValueError(f"For '{owner}.update', it needs {count} {plural} ({what}), but got {len(inputs)}.")


def check_shapes(eval_type, y_pred, y):
    """The shape rule of the classification metrics.

    ``'classification'``: ``y`` is ``y_pred``'s shape without axis 1 (the classes);
    ``'multilabel'``: both have the same shape.
    """
    if eval_type == "classification":
        if y_pred.ndim != y.ndim + 1:
            raise ValueError("In classification case, y_pred (predicted value) must have one dimension more than y "
                             f"(true value), but got y_pred dimension: {y_pred.ndim} and y dimension: {y.ndim}.")
        if y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
            raise ValueError("In classification case, y (true value) must have the shape of y_pred (predicted value) "
                             f"without its axis 1, but got y_pred shape {y_pred.shape} and y shape {y.shape}.")
    elif y_pred.shape != y.shape:
        raise ValueError(f"In {eval_type} case, y_pred (predicted value) and y (true value) must have the same shape, "
                         f"but got y_pred shape: {y_pred.shape} and y shape: {y.shape}.")


def check_binary(eval_type, y_pred, y):
    """In the multilabel case every element must be 0 or 1."""
    if eval_type != "classification" and not (np.equal(y_pred ** 2, y_pred).all() and np.equal(y ** 2, y).all()):
        raise ValueError("In multilabel case, all elements in y_pred (predicted value) and y (true value) must be "
                         "0 or 1.")


def is_one_hot(data):
    """True when ``data`` (at least 2-D) holds 0/1 values with exactly one 1 along axis 1."""
    if data.ndim < 2 or not np.equal(data ** 2, data).all():
        return False
    return bool(np.equal(data.sum(axis=1), 1).all())


def check_class_count(metric, y_pred, owner):
    """Remember the class count of the first batch; ValueError when a later batch has another."""
    classes = y_pred.shape[1]
    if metric._class_num == 0:
        metric._class_num = classes
    elif classes != metric._class_num:
        raise ValueError(f"For '{owner}.update', class number not match, last input predicted data contain "
                         f"{metric._class_num} classes, but current predicted data contain {classes} classes, please "
                         "check your predicted value(inputs[0]).")
    return metric._class_num


def one_hot_pair(y_pred, y, class_num, owner, fbeta=False):
    """One-hot rows of the labels ``y`` and of ``y_pred``'s highest-scoring classes."""
    if y.max() + 1 > class_num:
        if fbeta:
            raise ValueError(f"For '{owner}.update', predicted value(inputs[0]) and true value(inputs[1]) should "
                             f"contain same classes, but got predicted value contains {class_num} classes and true "
                             f"value contains {y.max() + 1} classes.")
        raise ValueError(f"For '{owner}.update', predicted value (input[0]) should have the same classes number as "
                         f"true value (input[1]), but got predicted value classes {class_num}, true value classes "
                         f"{y.max() + 1}.")
    eye = np.eye(class_num)
    return eye[y_pred.argmax(axis=1).reshape(-1)], eye[y.reshape(-1)]


def binary_curve(preds, target, sample_weights=None, pos_label=1):
    """False and true positive counts at each distinct score, scores taken in decreasing order.

    Returns ``(fps, tps, thresholds)``.
    """
    if sample_weights is not None and not isinstance(sample_weights, np.ndarray):
        sample_weights = np.array(sample_weights)
    if preds.ndim > target.ndim:
        preds = preds[:, 0]
    order = np.argsort(-preds)
    preds = preds[order]
    target = target[order]
    weight = 1.0 if sample_weights is None else sample_weights[order]
    cuts = np.where(preds[1:] - preds[:-1])[0]
    cuts = np.pad(cuts, (0, 1), constant_values=target.shape[0] - 1)
    hits = np.array(target == pos_label).astype(np.int64)
    tps = np.cumsum(hits * weight, axis=0)[cuts]
    if sample_weights is None:
        fps = 1 + cuts - tps
    else:
        fps = np.cumsum((1 - hits) * weight, axis=0)[cuts]
    return fps, tps, preds[cuts]
