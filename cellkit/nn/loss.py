"""Loss Cells: ``LossBase``, ``MSELoss``, ``L1Loss``, ``SoftmaxCrossEntropyWithLogits``, ``CrossEntropyLoss``.

A loss Cell is called as ``loss(logits, labels)`` and returns the loss
reduced by ``reduction``: ``'mean'``, ``'sum'`` or ``'none'`` (every
element).  :class:`LossBase` is the base for your own losses: compute the
element-wise loss in ``construct`` and hand it to :meth:`LossBase.get_loss`,
which applies the weights and the reduction.

>>> import cellkit as ms
>>> from cellkit import nn
>>> print(nn.MSELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
2.0
>>> class MAE(nn.LossBase):
...     def construct(self, logits, labels):
...         return self.get_loss(ms.ops.abs(logits - labels))
>>> print(MAE(reduction="sum")(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 4.0])))
3.0
"""
from __future__ import annotations

from .. import dtype as _dt
from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss"]

_REDUCTIONS = ("mean", "sum", "none")


def _check_tensor(value, name, cell):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{cell}', the '{name}' must be a Tensor, but got {type(value).__name__}.")
    return value


class LossBase(Cell):
    """Base class of losses: holds ``reduction`` and applies it in :meth:`get_loss`.

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}

    Raises
    ------
    ValueError
        If ``reduction`` is not one of the three.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.LossBase("sum").get_loss(ms.Tensor([[1.0, 2.0], [3.0, -1.0]]), ms.Tensor([[1.0], [2.0]])))
    7.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"For '{type(self).__name__}', the 'reduction' must be in ['mean', 'sum', 'none'], "
                             f"but got {reduction!r}.")
        self.reduction = reduction
        self.reduce = reduction != "none"
        self.average = reduction != "sum"  # as in MindSpore: True for 'none' too (``reduce`` is False there)

    def get_axis(self, x):
        """All axes of ``x``, as a tuple: ``(0, 1, ..., x.ndim - 1)``."""
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        """``weights * x`` reduced by ``reduction``, in ``x``'s dtype.

        As in MindSpore the product and the reduction are computed in float32
        (narrower floats are widened first, so float16 losses do not overflow)
        and the result is cast back to ``x``'s dtype; cellkit keeps float64 as
        float64.  ``weights`` is a number or a Tensor broadcastable to ``x``.
        """
        input_dtype = x.dtype
        compute = _dt.float64 if input_dtype is _dt.float64 else _dt.float32
        x = ops.cast(x, compute)
        weights = ops.cast(weights if isinstance(weights, Tensor) else Tensor(weights), compute)
        x = ops.mul(weights, x)
        if self.reduce and self.average:
            x = ops.mean(x, self.get_axis(x))
        elif self.reduce:
            x = ops.sum(x, self.get_axis(x))
        return ops.cast(x, input_dtype)

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must define construct(logits, labels)")


class MSELoss(LossBase):
    """Mean squared error: ``(logits - labels) ** 2`` (broadcasting), then ``reduction``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.MSELoss(reduction="none")(ms.Tensor([[1.0, 2.0]]), ms.Tensor([0.0, 4.0])))
    [[1. 4.]]
    """

    def construct(self, logits, labels):
        _check_tensor(logits, "logits", "MSELoss")
        _check_tensor(labels, "labels", "MSELoss")
        return ops.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    """Mean absolute error: ``|logits - labels|`` (broadcasting), then ``reduction``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.L1Loss()(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 4.0])))
    1.5
    """

    def construct(self, logits, labels):
        _check_tensor(logits, "logits", "L1Loss")
        _check_tensor(labels, "labels", "L1Loss")
        return ops.l1_loss(logits, labels, self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross-entropy between ``softmax(logits)`` and ``labels`` for ``(N, C)`` logits.

    Parameters
    ----------
    sparse : bool
        ``False``: ``labels`` are probabilities of shape ``(N, C)``; ``True``:
        class indices of shape ``(N,)``.
    reduction : {'none', 'mean', 'sum'}
        Note the default ``'none'``: one loss per sample.

    Raises
    ------
    TypeError
        ``sparse`` not a bool, inputs that are not Tensors, or labels of the wrong kind.
    ValueError
        A bad ``reduction``, logits that are not 2-D, or labels of the wrong shape.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    >>> print(loss(ms.Tensor([[2.0, 0.0], [0.0, 2.0]]), ms.Tensor([0, 1], ms.int32)))
    0.12692805
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', the 'sparse' must be a bool, "
                            f"but got {type(sparse).__name__}.")
        self.sparse = sparse

    def construct(self, logits, labels):
        name = "SoftmaxCrossEntropyWithLogits"
        _check_tensor(logits, "logits", name)
        _check_tensor(labels, "labels", name)
        if logits.ndim != 2:
            raise ValueError(f"For '{name}', the 'logits' must be 2-D (N, C), but got shape {logits.shape}.")
        if self.sparse:
            if labels.dtype.kind not in ("int", "uint"):
                raise TypeError(f"For '{name}', with sparse=True the 'labels' must hold integer class indices, "
                                f"but got {labels.dtype}.")
            if labels.shape != logits.shape[:1]:
                raise ValueError(f"For '{name}', with sparse=True the 'labels' must have shape {logits.shape[:1]}, "
                                 f"but got {labels.shape}.")
        else:
            if not labels.dtype.is_floating_point:
                raise TypeError(f"For '{name}', with sparse=False the 'labels' must be float probabilities, "
                                f"but got {labels.dtype}.")
            if labels.shape != logits.shape:
                raise ValueError(f"For '{name}', the 'labels' shape {labels.shape} must equal the 'logits' shape "
                                 f"{logits.shape}.")
        return ops.cross_entropy(logits, labels, reduction=self.reduction)


class CrossEntropyLoss(LossBase):
    """Cross-entropy of ``logits`` against class indices or class probabilities.

    ``logits`` has shape ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``.  ``labels``
    is either integer class indices (one dimension fewer: ``(N, d1, ...)``) or
    float probabilities shaped like ``logits``.

    Parameters
    ----------
    weight : Tensor of shape (C,), optional
        A float rescaling weight per class.
    ignore_index : int
        Index targets equal to it add nothing, and do not count in the mean.
    reduction : {'mean', 'sum', 'none'}
        With index targets, ``'mean'`` divides by the total weight of the
        counted targets.
    label_smoothing : float in [0, 1]
        Mix the targets with the uniform distribution.

    Raises
    ------
    TypeError
        Arguments of the wrong type (an int ``label_smoothing`` included, as in
        MindSpore), inputs that are not Tensors, or labels of the wrong kind.
    ValueError
        Values out of range, or shapes that do not fit together.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> loss = nn.CrossEntropyLoss()
    >>> print(loss(ms.Tensor([[2.0, 0.0], [0.0, 2.0]]), ms.Tensor([0, 1], ms.int32)))
    0.12692805
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        name = "CrossEntropyLoss"
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"For '{name}', the type of 'ignore_index' should be 'int', but got type "
                            f"'{type(ignore_index).__name__}'.")
        if not isinstance(label_smoothing, float):
            raise TypeError(f"For '{name}', the type of 'label_smoothing' should be 'float', but got type "
                            f"'{type(label_smoothing).__name__}'.")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For '{name}', the 'label_smoothing' must be in range of [0.0, 1.0], "
                             f"but got {label_smoothing}.")
        if weight is not None:
            if not isinstance(weight, Tensor):
                raise TypeError(f"For '{name}', the type of 'weight' should be 'Tensor', but got type "
                                f"'{type(weight).__name__}'.")
            if not weight.dtype.is_floating_point:
                raise TypeError(f"For '{name}', the 'weight' must be a float Tensor, but got {weight.dtype}.")
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        name = "CrossEntropyLoss"
        _check_tensor(logits, "logits", name)
        _check_tensor(labels, "labels", name)
        if not logits.dtype.is_floating_point:
            raise TypeError(f"For '{name}', the 'logits' must be a float Tensor, but got {logits.dtype}.")
        if labels.ndim == logits.ndim:
            if not labels.dtype.is_floating_point:
                raise TypeError(f"For '{name}', 'labels' with the rank of 'logits' are probabilities and must be "
                                f"float, but got {labels.dtype}.")
            if labels.shape != logits.shape:
                raise ValueError(f"For '{name}', probability 'labels' must have the shape of 'logits' "
                                 f"(N, C, d_0, ...), but got 'logits' shape {logits.shape} and 'labels' shape "
                                 f"{labels.shape}.")
        elif labels.ndim == logits.ndim - 1:
            if labels.dtype.kind not in ("int", "uint"):
                raise TypeError(f"For '{name}', 'labels' with one dimension fewer than 'logits' are class "
                                f"indices and must be integers, but got {labels.dtype}.")
            expected = logits.shape[:1] + logits.shape[2:] if logits.ndim > 1 else ()
            if labels.shape != expected:
                raise ValueError(f"For '{name}', index 'labels' must have shape (N, d_0, ...) = {expected} for "
                                 f"'logits' of shape {logits.shape}, but got {labels.shape}.")
        else:
            raise ValueError(f"For '{name}', 'labels' must have the rank of 'logits' (probabilities) or one less "
                             f"(class indices), but got ranks {labels.ndim} and {logits.ndim}.")
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing)
