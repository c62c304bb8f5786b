"""More loss Cells: binary cross-entropy, NLL, KL divergence, Huber, margin and embedding losses, CTC ...

Each loss composes :mod:`cellkit.ops` (its functional twin where there is one,
otherwise :meth:`LossBase.get_loss` over element-wise ops), so gradients of any
order and graph mode work without loss-specific code.  Arguments, defaults,
when they are checked (on construction or on the call) and the exceptions
raised follow MindSpore 2.10; where its CPU build computes a wrong value the
class's docstring says so and cellkit computes the documented one.

>>> import cellkit as ms
>>> from cellkit import nn
>>> print(nn.MAELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 4.0])))
1.5
>>> print(nn.HuberLoss(delta=1.0)(ms.Tensor([0.0, 3.0]), ms.Tensor([0.5, 0.0])))
1.3125
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ...parameter import Parameter
from ...tensor import Tensor
from ..loss import LossBase, MSELoss

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "GaussianNLLLoss",
           "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "MAELoss", "MarginRankingLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss", "RMSELoss", "SmoothL1Loss",
           "TripletMarginWithDistanceLoss"]


def _tensor(value, name, cell):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{cell}', the '{name}' must be a Tensor, but got {type(value).__name__}.")
    return value


def _float(value, name, cell):
    if not isinstance(value, float):
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'float', but got type "
                        f"'{type(value).__name__}'.")
    return value


def _bool(value, name, cell):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'bool', but got type '{type(value).__name__}'.")
    return value


def _reduction(value, cell, allowed=("none", "mean", "sum")):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"For '{cell}', the 'reduction' must be str and must be in {list(allowed)}, but got "
                         f"{value!r}.")
    return value


def _float_weight(weight, cell):
    """``None`` or a float16/float32 Tensor (NLLLoss's rule)."""
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(f"For '{cell}', the type of 'weight' should be 'Tensor', but got type "
                        f"'{type(weight).__name__}'.")
    if weight.dtype not in (_dt.float16, _dt.float32):
        raise TypeError(f"For '{cell}', the 'weight' should be one of [float16, float32], but got {weight.dtype}.")
    return weight


class _DeferredReduction(LossBase):
    """A loss whose ``reduction`` is handed to its op and checked there, on the call (as in MindSpore).

    ``get_loss`` keeps LossBase's default (``'mean'``) for these, as MindSpore's do.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class BCELoss(LossBase):
    """Binary cross-entropy between probabilities ``logits`` and targets ``labels`` (same shape).

    Parameters
    ----------
    weight : Tensor, optional
        A rescaling weight broadcast against the element-wise loss.
    reduction : {'mean', 'sum', 'none'}

    Notes
    -----
    MindSpore 2.10's CPU kernel does not broadcast ``weight``: with a weight of
    another shape than the input (a per-class ``(C,)`` or per-row ``(N, 1)``
    weight) it weights the first elements only and returns zeros or garbage
    for the rest.  cellkit broadcasts the weight, as MindSpore documents.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.BCELoss(reduction="sum")(ms.Tensor([0.5, 0.5]), ms.Tensor([1.0, 0.0])))
    1.3862944
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        if self.weight is not None and not isinstance(self.weight, Tensor):
            raise TypeError(f"For 'BCELoss', the 'weight' must be a Tensor or None, but got "
                            f"{type(self.weight).__name__}.")
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(_DeferredReduction):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target``, computed stably from the logits.

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}
        Checked when the loss is called.
    weight, pos_weight : Tensor, optional
        A weight broadcast against the loss, and one for the positive term
        (broadcast against the last axis).  Parameters are refused.

    Raises
    ------
    TypeError
        ``weight`` or ``pos_weight`` is a Parameter.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.BCEWithLogitsLoss()(ms.Tensor([0.0, 0.0]), ms.Tensor([1.0, 0.0])))
    0.6931472
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        for name, value in (("weight", weight), ("pos_weight", pos_weight)):
            if isinstance(value, Parameter):
                raise TypeError(f"For 'BCEWithLogitsLoss', the '{name}' can not be a Parameter.")
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, input, target):
        _tensor(input, "input", "BCEWithLogitsLoss")
        _tensor(target, "target", "BCEWithLogitsLoss")
        return ops.binary_cross_entropy_with_logits(input, target, self.weight, self.pos_weight, self.reduction)


class CTCLoss(_DeferredReduction):
    """Connectionist temporal classification loss.

    ``log_probs`` has shape ``(T, N, C)`` (or ``(T, C)`` for one unbatched
    sequence, whose ``targets`` are then 1-D or ``(1, S)``); ``targets`` holds
    class indices padded to ``(N, S)``; ``input_lengths`` and
    ``target_lengths`` give each sample's lengths.

    Parameters
    ----------
    blank : int
        The blank label (default 0).
    reduction : {'mean', 'sum', 'none'}
        ``'mean'`` divides each loss by its target length, then averages.
    zero_infinity : bool
        Replace infinite losses (and their gradients) by zero.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> log_probs = ms.ops.log_softmax(ms.Tensor(np.zeros((3, 1, 2), np.float32)), -1)
    >>> loss = nn.CTCLoss()(log_probs, ms.Tensor([[1]], ms.int32), ms.Tensor([3], ms.int32),
    ...                     ms.Tensor([1], ms.int32))
    >>> round(float(loss), 4)    # 6 of the 8 equally likely paths collapse to [1]: -log(6/8)
    0.2877
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        _tensor(log_probs, "log_probs", "CTCLoss")
        _tensor(targets, "targets", "CTCLoss")
        if log_probs.ndim == 2:
            if targets.ndim > 2:
                raise ValueError(f"For 'CTCLoss', when 'log_probs' is 2-D (T, C), 'targets' must be 1-D or 2-D, "
                                 f"but got {targets.ndim} dimensions.")
            if targets.ndim == 2 and targets.shape[0] != 1:
                raise ValueError(f"For 'CTCLoss', when 'log_probs' is 2-D (T, C), a 2-D 'targets' must have 1 row, "
                                 f"but got shape {targets.shape}.")
            if targets.ndim == 1:
                targets = ops.expand_dims(targets, 0)
            loss, _ = ops.ctc_loss(ops.expand_dims(log_probs, -2), targets, input_lengths, target_lengths,
                                   self.blank, self.reduction, self.zero_infinity)
            return ops.squeeze(loss, 0) if loss.ndim else loss
        loss, _ = ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                               self.zero_infinity)
        return loss


class CosineEmbeddingLoss(LossBase):
    """``1 - cos(x1, x2)`` where ``labels == 1``, ``max(0, cos(x1, x2) - margin)`` where ``labels == -1``.

    The cosine is taken along axis 1; other labels contribute 0.

    Parameters
    ----------
    margin : float in [-1, 1]
    reduction : {'mean', 'sum', 'none'}

    Raises
    ------
    TypeError
        ``margin`` not a float, inputs that are not Tensors.
    ValueError
        ``margin`` outside [-1, 1], a bad ``reduction``, ``logits_x1`` and
        ``logits_x2`` of different shapes or dtypes.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x1 = ms.Tensor([[1.0, 0.0], [1.0, 0.0]])
    >>> x2 = ms.Tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> print(nn.CosineEmbeddingLoss(reduction="none")(x1, x2, ms.Tensor([1, -1])))
    [1.         0.70710677]
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        _float(margin, "margin", "CosineEmbeddingLoss")
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', the 'margin' must be in range of [-1.0, 1.0], but got "
                             f"{margin}.")
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        name = "CosineEmbeddingLoss"
        _tensor(logits_x1, "logits_x1", name)
        _tensor(logits_x2, "logits_x2", name)
        _tensor(labels, "labels", name)
        if logits_x1.shape != logits_x2.shape or logits_x1.dtype != logits_x2.dtype:
            raise ValueError(f"For '{name}', 'logits_x1' and 'logits_x2' must have the same shape and dtype, but got "
                             f"{logits_x1.shape} {logits_x1.dtype} and {logits_x2.shape} {logits_x2.dtype}.")
        dot = ops.sum(logits_x1 * logits_x2, (1,))
        norm = ops.sqrt(ops.sum(ops.square(logits_x1), (1,))) * ops.sqrt(ops.sum(ops.square(logits_x2), (1,)))
        cosine = dot / norm
        zeros = ops.zeros_like(cosine)
        positive = ops.select(labels == 1, 1.0 - cosine, zeros)
        negative = ops.select(labels == -1, ops.maximum(cosine - self.margin, zeros), zeros)
        return self.get_loss(positive + negative)


class GaussianNLLLoss(_DeferredReduction):
    """Negative log-likelihood of ``labels`` under Gaussians of mean ``logits`` and variance ``var``.

    ``0.5 * (log(max(var, eps)) + (logits - labels) ** 2 / max(var, eps))`` (plus
    ``0.5 * log(2 * pi)`` with ``full=True``), then ``reduction``.

    Parameters
    ----------
    full : bool (keyword only)
    eps : float > 0 (keyword only)
    reduction : {'mean', 'sum', 'none'} (keyword only)

    Raises
    ------
    TypeError
        ``full`` not a bool, ``eps`` not a float.
    ValueError
        ``eps <= 0``, a bad ``reduction``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.GaussianNLLLoss()(ms.Tensor([1.0]), ms.Tensor([3.0]), ms.Tensor([1.0])))
    2.0
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(eps, float):
            raise TypeError(f"For 'GaussianNLLLoss', the 'eps' must be 'float', but got '{type(eps).__name__}'.")
        if not eps > 0 or math.isinf(eps):
            raise ValueError(f"For 'GaussianNLLLoss', the 'eps' must be in range of (0, inf), but got {eps}.")
        _bool(full, "full", "GaussianNLLLoss")
        _reduction(reduction, "GaussianNLLLoss")
        self.full = full
        self.eps = eps

    def construct(self, logits, labels, var):
        for name, value in (("logits", logits), ("labels", labels), ("var", var)):
            _tensor(value, name, "GaussianNLLLoss")
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class HingeEmbeddingLoss(_DeferredReduction):
    """``x`` where ``labels == 1``, ``max(0, margin - x)`` where ``labels == -1``, then ``reduction``.

    Raises
    ------
    TypeError
        ``margin`` not a float or an int.
    ValueError
        A bad ``reduction``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.HingeEmbeddingLoss(reduction="none")(ms.Tensor([0.3, 0.3]), ms.Tensor([1.0, -1.0])))
    [0.3 0.7]
    """

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, (float, int)):
            raise TypeError(f"For 'HingeEmbeddingLoss', the type of 'margin' should be one of ['float', 'int'], "
                            f"but got type '{type(margin).__name__}'.")
        _reduction(reduction, "HingeEmbeddingLoss")
        self.margin = margin

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class HuberLoss(LossBase):
    """Squared error below ``delta``, linear above: ``0.5 d**2`` if ``|d| < delta`` else ``delta (|d| - 0.5 delta)``.

    ``delta`` (a positive number) is checked when the loss is called.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.HuberLoss(reduction="none")(ms.Tensor([0.5, 3.0]), ms.Tensor([0.0, 0.0])))
    [0.125 2.5  ]
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return ops.huber_loss(logits, labels, self.reduction, self.delta)


class KLDivLoss(_DeferredReduction):
    """Kullback-Leibler divergence ``labels * (log(labels) - logits)`` with ``logits`` given as log-probabilities.

    ``reduction`` is one of ``'none'``, ``'mean'``, ``'batchmean'`` (the sum
    divided by the batch size, the mathematically right choice) and ``'sum'``,
    checked when called.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.KLDivLoss("sum")(ms.Tensor([0.0, 0.0]), ms.Tensor([0.5, 0.5])))
    -0.6931472
    """

    def construct(self, logits, labels):
        _tensor(logits, "logits", "KLDivLoss")
        _tensor(labels, "labels", "KLDivLoss")
        return ops.kl_div(logits, labels, self.reduction)


class MAELoss(LossBase):
    """Mean absolute error ``|logits - labels|`` (broadcast), reduced by :meth:`LossBase.get_loss`.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.MAELoss("none")(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 4.0])))
    [1. 2.]
    """

    def construct(self, logits, label):
        _tensor(logits, "logits", "MAELoss")
        _tensor(label, "labels", "MAELoss")
        return self.get_loss(ops.abs(logits - label))


class MarginRankingLoss(LossBase):
    """``max(0, -target * (input1 - input2) + margin)``, then ``reduction``.

    ``margin`` (a float) is checked when the loss is called.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> loss = nn.MarginRankingLoss(reduction="none")
    >>> print(loss(ms.Tensor([1.0, 1.0]), ms.Tensor([0.5, 2.0]), ms.Tensor([1.0, 1.0])))
    [0. 1.]
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """Multi-label one-versus-all loss: the mean over classes of the binary cross-entropy with logits.

    Parameters
    ----------
    weight : Tensor, optional
        A weight per class.
    reduction : {'mean', 'sum', 'none'}
        Over the batch.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.MultiLabelSoftMarginLoss()(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[1.0, 0.0]])))
    0.6931472
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        if self.weight is not None and not isinstance(self.weight, Tensor):
            raise TypeError(f"For 'MultiLabelSoftMarginLoss', the 'weight' must be a Tensor or None, but got "
                            f"{type(self.weight).__name__}.")
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: ``sum over i != y of max(0, margin - x[y] + x[i]) ** p / C``.

    Parameters
    ----------
    p : {1, 2}
    margin : float
    reduction : {'mean', 'sum', 'none'}
    weight : Tensor, optional
        One weight per class; overrides the ``weight`` passed to the call.

    Raises
    ------
    ValueError
        ``p`` not 1 or 2, a bad ``reduction``.
    TypeError
        ``margin`` not a float, inputs that are not Tensors.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.MultiMarginLoss()(ms.Tensor([[0.5, 0.2]]), ms.Tensor([0])))
    0.35
    """

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, int) or p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', the 'p' must be int and must in {{1, 2}}, but got {p!r} "
                             f"with type '{type(p).__name__}'.")
        _float(margin, "margin", "MultiMarginLoss")
        _reduction(reduction, "MultiMarginLoss")
        self.multi_margin_loss = ops.MultiMarginLoss(p=p, margin=margin, reduction=reduction)
        self.reduction = reduction
        self.weight = weight

    def construct(self, x, target, weight=None):
        _tensor(x, "x", "MultiMarginLoss")
        _tensor(target, "target", "MultiMarginLoss")
        if self.weight is not None:
            weight = self.weight
        if weight is None:
            weight = ops.ones(x.shape[1:2], x.dtype)
        else:
            _tensor(weight, "weight", "MultiMarginLoss")
        return self.multi_margin_loss(x, target, weight)


class NLLLoss(LossBase):
    """Negative log-likelihood of class indices ``labels`` under log-probabilities ``logits``.

    ``logits`` is ``(N, C)`` or ``(N, C, d1, ...)``; ``labels`` ``(N)`` or ``(N, d1, ...)``.

    Parameters
    ----------
    weight : float16/float32 Tensor of shape (C,), optional
    ignore_index : int
        Targets equal to it add nothing and do not count in the mean.
    reduction : {'mean', 'sum', 'none'}
        ``'mean'`` divides by the total weight of the counted targets.

    Raises
    ------
    TypeError
        ``ignore_index`` not an int, ``weight`` not a float16/float32 Tensor.
    ValueError
        A bad ``reduction``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.NLLLoss()(ms.Tensor([[-0.5, -1.0], [-2.0, -0.1]]), ms.Tensor([0, 1], ms.int32)))
    0.3
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"For 'NLLLoss', the type of 'ignore_index' should be 'int', but got type "
                            f"'{type(ignore_index).__name__}'.")
        self.weight = _float_weight(weight, "NLLLoss")
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class PoissonNLLLoss(LossBase):
    """Poisson negative log-likelihood of counts ``target`` with rate ``exp(input)`` (or ``input``).

    ``exp(x) - y * x`` when ``log_input`` is true, else ``x - y * log(x + eps)``;
    ``full=True`` adds Stirling's term ``y log y - y + 0.5 log(2 pi y)`` where
    ``y > 1``.  ``target`` is cast to ``input``'s dtype.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.PoissonNLLLoss()(ms.Tensor([0.0, 0.0]), ms.Tensor([1.0, 2.0])))
    1.0
    """

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def construct(self, input, target):
        _tensor(input, "input", "PoissonNLLLoss")
        _tensor(target, "target", "PoissonNLLLoss")
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.exp(input) - target * input
        else:
            loss = input - target * ops.log(input + self.eps)
        if self.full:
            target = ops.maximum(target, ops.cast(Tensor(self.eps), target.dtype))
            # Stirling's approximation of log(target!), added only where target > 1.
            stirling = (target + 0.5) * ops.log(target) - target + 0.5 * math.log(2 * math.pi)
            loss = loss + ops.masked_fill(stirling, target <= 1, ops.cast(Tensor(0), stirling.dtype))
        return self.get_loss(loss)


class RMSELoss(LossBase):
    """Root mean squared error: ``sqrt(mean((logits - label) ** 2))`` (always a mean; no arguments).

    Raises
    ------
    TypeError
        Unsigned integer inputs.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.RMSELoss()(ms.Tensor([0.0, 0.0]), ms.Tensor([3.0, 4.0])))
    3.535534
    """

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()

    def construct(self, logits, label):
        for value in (logits, label):
            if isinstance(value, Tensor) and value.dtype in (_dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64):
                raise TypeError(f"For 'RMSELoss', the inputs must not be unsigned integers, but got {value.dtype}.")
        return ops.sqrt(self.MSELoss(logits, label))


class SmoothL1Loss(LossBase):
    """``0.5 d**2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere (``d = logits - labels``).

    Note the default ``reduction='none'``.  ``beta`` (a positive float) is
    checked when the loss is called (a RuntimeError for ``beta <= 0``, as in MindSpore).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.SmoothL1Loss()(ms.Tensor([0.5, 3.0]), ms.Tensor([0.0, 0.0])))
    [0.125 2.5  ]
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits, labels):
        if isinstance(self.beta, (int, float)) and not isinstance(self.beta, bool) and self.beta <= 0:
            # MindSpore's kernel refuses it when called, with a RuntimeError.
            raise RuntimeError(f"For 'SmoothL1Loss', 'beta' must be greater than 0, but got {self.beta}.")
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


def _pairwise_distance(x, y):
    """The Euclidean distance along axis 1 (the default distance of TripletMarginWithDistanceLoss)."""
    d = ops.abs(x - y)
    if d.ndim == 0:
        raise ValueError("For 'pairwise_distance' in 'TripletMarginWithDistanceLoss', 'ndim' of the input must be "
                         f"positive, but got {d.ndim}")
    return ops.sqrt(ops.sum(d * d, (1,)))


class TripletMarginWithDistanceLoss(LossBase):
    """``max(d(x, positive) - d(x, negative) + margin, 0)`` for a distance function ``d``, then ``reduction``.

    Parameters
    ----------
    distance_function : callable, optional
        ``d(a, b)`` returning a Tensor; the default is the Euclidean distance along axis 1.
    swap : bool
        Use ``min(d(x, negative), d(positive, negative))`` as the negative distance.
    reduction : {'mean', 'sum', 'none'}
    margin : float

    Raises
    ------
    TypeError
        ``margin`` not a float, ``swap`` not a bool, inputs that are not Tensors.
    ValueError
        A bad ``reduction``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> loss = nn.TripletMarginWithDistanceLoss(reduction="none")
    >>> print(loss(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[3.0, 4.0]]), ms.Tensor([[1.0, 0.0]])))
    [5.]
    """

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', the type of 'margin' must be 'float', but got "
                            f"'{type(margin).__name__}'.")
        if not isinstance(swap, bool):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', the 'swap' must be a bool, but got "
                            f"{type(swap).__name__}.")
        self.distance_function = _pairwise_distance if distance_function is None else distance_function
        self.swap = swap
        self.margin = margin

    def construct(self, x, positive, negative):
        for name, value in (("x", x), ("positive", positive), ("negative", negative)):
            _tensor(value, name, "TripletMarginWithDistanceLoss")
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        loss = ops.maximum(d1 - d2 + self.margin, ops.zeros_like(d1))
        return self.get_loss(loss)
