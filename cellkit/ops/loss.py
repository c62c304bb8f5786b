"""Loss functions: MSE, L1, smooth L1, (binary) cross-entropy and NLL, with gradients.

Every loss first builds the per-element loss, then applies ``reduction``:
``'none'`` (keep every element), ``'sum'`` or ``'mean'``.  The gradient of
the reduction is folded into the op's own backward rule, so a loss costs
one node on the tape.

Each backward rule computes from the saved inputs (the logits, the
targets), never from intermediate arrays, so the same rule run on Tensors
gives exact second derivatives.

Cross-entropy is written as ``-sum_c q[c] * log_softmax(x)[c]`` where ``q``
is the *weighted target distribution*: a one-hot row (class-index targets)
or the given probabilities, mixed with the uniform distribution by
``label_smoothing`` and scaled by the class ``weight``.  Its gradient with
respect to the logits is then simply ``softmax(x) * sum(q) - q``.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.mse_loss(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
2.0
>>> logits = ms.Tensor([[2.0, 0.0], [0.0, 2.0]])
>>> print(ops.cross_entropy(logits, ms.Tensor([0, 1])))
0.12692805
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ._core import backend, check_broadcast, float_array, record, tensor_arg, wrap, xp
from ._rule_math import array_math
from .primitive import Primitive, prim_attr_register

__all__ = [
    "mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits", "binary_cross_entropy",
    "nll_loss", "cross_entropy",
    "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "NLLLoss", "BCEWithLogitsLoss",
    "SmoothL1Loss",
]

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction, op):
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"For '{op}', 'reduction' must be one of 'none', 'mean' or 'sum', but got {reduction!r}")
    return reduction


def _on_tape(t):
    return t is not None and t._node is not None


def _recording(*tensors):
    return _ag._depth != 0 and any(_on_tape(t) for t in tensors)


def _float_operands(input, target, op, names=("input", "target")):
    """Tensors and float arrays of two loss operands (one common float dtype)."""
    it = tensor_arg(input, names[0], op)
    tt = tensor_arg(target, names[1], op)
    A, B = float_array(it, op), float_array(tt, op)
    if A.dtype != B.dtype:
        wider = A.dtype if _dt.dtype_of(A).itemsize >= _dt.dtype_of(B).itemsize else B.dtype
        x = xp()
        A, B = x.astype(A, wider), x.astype(B, wider)
    return it, tt, A, B


def _reduce(L, reduction, op, rule, inputs, saved, sources, info, count=None):
    """Apply ``reduction`` to the elementwise loss ``L`` and record one node.

    ``count`` (a number or a 0-d array) replaces ``L.size`` as the divisor
    of ``'mean'``.  The node saves ``saved + (count array or None,)`` and its
    ``info`` is ``(reduction, L's shape, count number or None, info)``; the
    rule gets the gradient of ``L`` from :func:`_loss_grad`.
    """
    x = xp()
    if reduction == "none":
        out = L
    elif reduction == "sum":
        out = x.sum(L)
    else:
        out = x.sum(L) / (L.size if count is None else count)
    if not _recording(*inputs):
        return wrap(out)
    count_array = count if hasattr(count, "shape") else None
    count_number = None if count_array is not None else (L.size if count is None else count)
    return record(out, op, rule, inputs, tuple(saved) + (count_array,), tuple(sources) + (None,),
                  (reduction, tuple(L.shape), count_number, info))


def _loss_grad(m, node, g, count_array):
    """The gradient of the elementwise loss from the gradient ``g`` of the reduced one."""
    reduction, shape, count_number, _ = node.info
    if reduction == "none":
        return g
    if reduction == "mean":
        g = g / (count_number if count_array is None else count_array)
    return m.broadcast_to(g, shape)


def _pair_loss(input, target, reduction, op, name, value, slope, same_shape=False, extra=None):
    """A loss of ``d = input - target``: ``value(m, d, extra)`` per element, ``slope(m, d, extra)`` its derivative."""
    _check_reduction(reduction, op)
    it, tt, A, B = _float_operands(input, target, op)
    if same_shape and it.shape != tt.shape:
        raise ValueError(f"For '{op}', 'input' {it.shape} and 'target' {tt.shape} must have the same shape")
    check_broadcast(A, B, op)
    L = value(array_math(_backend._current), A - B, extra)
    return _reduce(L, reduction, name, _pair_rule, (it, tt), (A, B), (0, 1), (slope, extra))


def _pair_rule(m, node, g):
    A, B, count = node.unpack(m)
    slope, extra = node.info[3]
    s = _loss_grad(m, node, g, count) * slope(m, A - B, extra)
    return (m.sum_to(s, A.shape) if node.inputs[0] is not None else None,
            m.sum_to(-s, B.shape) if node.inputs[1] is not None else None)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error ``(input - target) ** 2`` (broadcasting), then ``reduction``.

    >>> import cellkit as ms
    >>> print(mse_loss(ms.Tensor([0.0, 3.0]), ms.Tensor([1.0, 1.0]), reduction='none'))
    [1. 4.]
    """
    return _pair_loss(input, target, reduction, "mse_loss", "MSELoss", _squared, _squared_slope)


def _squared(m, d, extra):
    return d * d


def _squared_slope(m, d, extra):
    return 2 * d


def l1_loss(input, target, reduction="mean"):
    """Mean absolute error ``|input - target|``; the gradient at 0 difference is 0.

    >>> import cellkit as ms
    >>> print(l1_loss(ms.Tensor([0.0, 3.0]), ms.Tensor([1.0, 1.0])))
    1.5
    """
    return _pair_loss(input, target, reduction, "l1_loss", "L1Loss", _absolute, _absolute_slope)


def _absolute(m, d, extra):
    return m.abs(d)


def _absolute_slope(m, d, extra):
    return m.sign(d)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """Huber-style loss: ``0.5 d**2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere.

    ``input`` and ``target`` must have the same shape.  Note ``reduction``
    defaults to ``'none'``, as in MindSpore.

    >>> import cellkit as ms
    >>> print(smooth_l1_loss(ms.Tensor([0.5, 3.0]), ms.Tensor([0.0, 0.0])))
    [0.125 2.5  ]
    """
    op = "smooth_l1_loss"
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"For '{op}', 'beta' must be a float, but got {type(beta).__name__}")
    if beta <= 0:
        raise ValueError(f"For '{op}', 'beta' must be greater than 0, but got {beta}")
    return _pair_loss(input, target, reduction, op, "SmoothL1Loss", _huber, _huber_slope, same_shape=True,
                      extra=float(beta))


def _huber(m, d, beta):
    ad = m.abs(d)
    return m.where(ad < beta, d * d * (0.5 / beta), ad - 0.5 * beta)


def _huber_slope(m, d, beta):
    return m.where(m.abs(d) < beta, d / beta, m.sign(d))


def _optional_weight(value, name, op, like):
    if value is None:
        return None
    t = tensor_arg(value, name, op)
    a = float_array(t, op)
    check_broadcast(like, a, op)
    return a if a.dtype == like.dtype else xp().astype(a, like.dtype)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """Binary cross-entropy on logits, computed stably through softplus.

    ``loss = weight * (pos_weight * t * softplus(-x) + (1 - t) * softplus(x))``;
    ``weight`` and ``pos_weight`` broadcast against ``input``.

    >>> import cellkit as ms
    >>> print(binary_cross_entropy_with_logits(ms.Tensor([0.0]), ms.Tensor([1.0])))
    0.6931472
    """
    op = "binary_cross_entropy_with_logits"
    _check_reduction(reduction, op)
    it, tt, X, T = _float_operands(input, target, op)
    if it.shape != tt.shape:
        raise ValueError(f"For '{op}', 'input' {it.shape} and 'target' {tt.shape} must have the same shape")
    W = _optional_weight(weight, "weight", op, X)
    P = _optional_weight(pos_weight, "pos_weight", op, X)
    L = _bce_logits_terms(array_math(_backend._current), X, T, W, P)
    return _reduce(L, reduction, "BCEWithLogits", _bce_logits_rule, (it, tt), (X, T, W, P), (0, 1, None, None), None)


def _bce_logits_terms(m, X, T, W, P):
    """``weight * (pos_weight * t * softplus(-x) + (1 - t) * softplus(x))`` per element."""
    sp_neg = m.softplus(-X)
    positive = T * sp_neg if P is None else P * T * sp_neg
    L = positive + (1 - T) * m.softplus(X)
    return L if W is None else L * W


def _bce_logits_rule(m, node, g):
    X, T, W, P, count = node.unpack(m)
    gL = _loss_grad(m, node, g, count)
    if W is not None:
        gL = gL * W
    gx = gt = None
    if node.inputs[0] is not None:
        s = m.sigmoid(X)
        positive = T if P is None else P * T
        gx = m.sum_to(gL * ((1 - T) * s - positive * (1 - s)), X.shape)
    if node.inputs[1] is not None:
        sp_neg = m.softplus(-X)
        gt = m.sum_to(gL * ((sp_neg if P is None else P * sp_neg) - m.softplus(X)), T.shape)
    return gx, gt


def _clamped_log(m, p, complement):
    """``log(p)`` (or ``log(1 - p)``) clamped at -100, without a log-of-zero warning."""
    if complement:
        inside = p < 1
        value = m.log1p(-m.where(inside, p, m.zeros_like(p)))
    else:
        inside = p > 0
        value = m.log(m.where(inside, p, m.ones_like(p)))
    return m.where(inside, m.maximum(value, -100.0), m.zeros_like(value) - 100.0)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``logits`` (in [0, 1]) against ``labels``.

    Each log is clamped at -100, so a probability of exactly 0 or 1 gives a
    finite loss.

    >>> import cellkit as ms
    >>> print(binary_cross_entropy(ms.Tensor([0.5]), ms.Tensor([1.0])))
    0.6931472
    """
    op = "binary_cross_entropy"
    _check_reduction(reduction, op)
    pt, lt, Pr, Y = _float_operands(logits, labels, op, ("logits", "labels"))
    if pt.shape != lt.shape:
        raise ValueError(f"For '{op}', 'logits' {pt.shape} and 'labels' {lt.shape} must have the same shape")
    W = _optional_weight(weight, "weight", op, Pr)
    m = array_math(_backend._current)
    L = -(Y * _clamped_log(m, Pr, False) + (1 - Y) * _clamped_log(m, Pr, True))
    if W is not None:
        L = L * W
    return _reduce(L, reduction, "BinaryCrossEntropy", _bce_rule, (pt, lt), (Pr, Y, W), (0, 1, None), None)


def _bce_rule(m, node, g):
    Pr, Y, W, count = node.unpack(m)
    gL = _loss_grad(m, node, g, count)
    if W is not None:
        gL = gL * W
    gp = gy = None
    if node.inputs[0] is not None:
        gp = gL * (Pr - Y) / m.maximum(Pr * (1 - Pr), 1e-12)
    if node.inputs[1] is not None:
        gy = gL * (_clamped_log(m, Pr, True) - _clamped_log(m, Pr, False))
    return gp, gy


# -- cross-entropy and NLL -----------------------------------------------------------------------
def _arange_like(n, like):
    if backend().is_numpy:
        return np.arange(n)
    return xp().arange(n, device=like.device)


def _class_loss(input, target, weight, ignore_index, reduction, label_smoothing, op, from_logits,
                names=("input", "target")):
    """Cross-entropy (``from_logits``) or NLL.  Returns ``(loss Tensor, total weight array)``."""
    _check_reduction(reduction, op)
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, numbers.Real):
        raise TypeError(f"For '{op}', 'label_smoothing' must be a float, but got {type(label_smoothing).__name__}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For '{op}', 'label_smoothing' must be in [0, 1], but got {label_smoothing}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, np.integer)):
        raise TypeError(f"For '{op}', 'ignore_index' must be an int, but got {type(ignore_index).__name__}")
    it = tensor_arg(input, names[0], op)
    tt = tensor_arg(target, names[1], op)
    if it.ndim == 0:
        raise ValueError(f"For '{op}', '{names[0]}' must have a class axis, but got a scalar")
    X = float_array(it, op)
    T = tt._data
    x = xp()
    axis = 1 if X.ndim >= 2 else 0
    n_classes = X.shape[axis]
    along = [1] * X.ndim
    along[axis] = n_classes
    along = tuple(along)
    eps = float(label_smoothing)

    W = None
    if weight is not None:
        wt = tensor_arg(weight, "weight", op)
        if wt.shape != (n_classes,):
            raise ValueError(f"For '{op}', 'weight' must have shape ({n_classes},) for '{names[0]}' of shape "
                             f"{tuple(X.shape)}, but got {wt.shape}")
        W = x.reshape(float_array(wt, op), along)
        if W.dtype != X.dtype:
            W = x.astype(W, X.dtype)

    kind = _dt.dtype_of(T).kind
    probabilities = kind == "float"
    if probabilities:
        if not from_logits:
            raise TypeError(f"For '{op}', '{names[1]}' must hold integer class indices, but got {tt.dtype}")
        if tt.shape != it.shape:
            raise ValueError(
                f"For '{op}', probability targets must have the shape of '{names[0]}' {it.shape}, but got {tt.shape}"
            )
        T = T if T.dtype == X.dtype else x.astype(T, X.dtype)
        q = T * (1 - eps) + eps / n_classes if eps else T
        if W is not None:
            q = q * W
        total = X.size // n_classes
    else:
        if kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', '{names[1]}' must hold integer class indices, but got {tt.dtype}")
        expected = tuple(d for i, d in enumerate(it.shape) if i != axis)
        if tt.shape != expected:
            raise ValueError(
                f"For '{op}', '{names[1]}' must have shape {expected} for '{names[0]}' of shape {it.shape}, "
                f"but got {tt.shape}"
            )
        bad = ((T < 0) | (T >= n_classes)) & (T != ignore_index)
        if bool(backend().to_host(x.any(bad))):
            first = backend().to_host(T[bad]).reshape(-1)[0].item()
            raise ValueError(
                f"For '{op}', every '{names[1]}' value must be a class index in [0, {n_classes}) "
                f"('{names[0]}' has shape {tuple(X.shape)}) or ignore_index={ignore_index}, but got {first}"
            )
        T_axis = x.expand_dims(T, axis=axis)
        onehot = x.astype(T_axis == x.reshape(_arange_like(n_classes, X), along), X.dtype)
        valid = x.astype(T_axis != ignore_index, X.dtype)
        q = onehot * (1 - eps) + eps / n_classes if eps else onehot
        if W is not None:
            q = q * W
            total = x.sum(x.sum(onehot * W, axis=axis, keepdims=True) * valid)
        else:
            total = x.sum(valid)
        q = q * valid

    if from_logits:
        log_p = array_math(_backend._current).log_softmax(X, axis)
        terms = q * log_p
    else:
        log_p = X
        zero = x.zeros_like(X)
        terms = x.where(q != 0, q * log_p, zero)  # log-probability -inf with no target mass adds 0
    L = 0.0 - x.sum(terms, axis=axis)  # (0.0 - s, not -s: ignored targets read 0, not -0)
    name = "CrossEntropy" if from_logits else "NLLLoss"
    if probabilities:  # q is a function of the target: the rule rebuilds it from T
        saved, sources = (X, T, None if W is None else W), (0, 1, None)
    else:
        saved, sources = (X, q, None), (0, None, None)
    info = (axis, from_logits, probabilities, eps, n_classes)
    return _reduce(L, reduction, name, _class_rule, (it, tt), saved, sources, info, total), total


def _target_mass(m, T, eps, n_classes, W):
    """Probability targets mixed with the uniform distribution by ``eps`` and scaled by the class weights."""
    q = T * (1 - eps) + eps / n_classes if eps else T
    return q if W is None else q * W


def _class_rule(m, node, g):
    """Cross-entropy: ``softmax(x) * sum(q) - q``; NLL: ``-q``; probability targets: ``-(1 - eps) log p``."""
    X, target, W, count = node.unpack(m)
    axis, from_logits, probabilities, eps, n_classes = node.info[3]
    gL = m.expand_dims(_loss_grad(m, node, g, count), axis)
    q = _target_mass(m, target, eps, n_classes, W) if probabilities else target
    gx = gt = None
    if node.inputs[0] is not None:
        if from_logits:
            gx = gL * (m.exp(m.log_softmax(X, axis)) * m.sum(q, axis=axis, keepdims=True) - q)
        else:
            gx = -gL * q
    if probabilities and node.inputs[1] is not None:
        scale = -(1 - eps) * gL * m.log_softmax(X, axis)
        gt = scale if W is None else scale * W
    return gx, gt


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Cross-entropy between the logits ``input`` and ``target``.

    ``input`` has shape ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``; ``target`` is
    either class indices (an int tensor of shape ``(N, d1, ...)``) or class
    probabilities (a float tensor shaped like ``input``).

    Parameters
    ----------
    weight : Tensor of shape (C,), optional
        A rescaling weight for each class.
    ignore_index : int
        Class-index targets equal to it contribute nothing (and do not count in
        the mean).
    reduction : {'mean', 'sum', 'none'}
        ``'mean'`` divides by the total weight of the counted targets (by the
        number of samples for probability targets).
    label_smoothing : float in [0, 1]
        Mixes the target with the uniform distribution over the C classes.

    Raises
    ------
    ValueError
        Bad ``reduction``, shapes, ``label_smoothing`` or class indices out of range.
    TypeError
        Targets that are neither integer indices nor float probabilities.

    >>> import cellkit as ms
    >>> loss = cross_entropy(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[0.5, 0.5]]))
    >>> print(loss)
    0.6931472
    """
    return _class_loss(input, target, weight, ignore_index, reduction, label_smoothing, "cross_entropy", True)[0]


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Negative log-likelihood of log-probabilities ``inputs`` at class indices ``target``.

    ``cross_entropy(x, t)`` equals ``nll_loss(log_softmax(x, 1), t)``; the
    arguments mean the same as in :func:`cross_entropy`.

    >>> import cellkit as ms
    >>> print(nll_loss(ms.Tensor([[-0.5, -1.0]]), ms.Tensor([1])))
    1.0
    """
    return _class_loss(inputs, target, weight, ignore_index, reduction, label_smoothing, "nll_loss", False,
                       ("inputs", "target"))[0]


# -- Primitive classes ------------------------------------------------------------------------------
class SoftmaxCrossEntropyWithLogits(Primitive):
    """``SoftmaxCrossEntropyWithLogits()(logits, labels)`` -> ``(loss, backprop)``.

    ``logits`` and ``labels`` (probabilities) have shape ``(N, C)``; ``loss``
    has shape ``(N,)`` and ``backprop`` is ``softmax(logits) - labels``.

    >>> import cellkit as ms
    >>> loss, dlogits = SoftmaxCrossEntropyWithLogits()(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[1.0, 0.0]]))
    >>> print(loss, dlogits)
    [0.6931472] [[-0.5  0.5]]
    """

    def __call__(self, logits, labels):
        op = "SoftmaxCrossEntropyWithLogits"
        lt = tensor_arg(logits, "logits", op)
        if lt.ndim != 2:
            raise ValueError(f"For '{op}', 'logits' must be 2-D (N, C), but got shape {lt.shape}")
        loss, _ = _class_loss(logits, labels, None, -100, "none", 0.0, op, True, ("logits", "labels"))
        x = xp()
        X = float_array(lt, op)
        shifted = X - x.max(X, axis=1, keepdims=True)
        e = x.exp(shifted)
        probs = e / x.sum(e, axis=1, keepdims=True)
        Y = float_array(tensor_arg(labels, "labels", op), op)
        return loss, wrap(probs - (Y if Y.dtype == probs.dtype else x.astype(Y, probs.dtype)))


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """``SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)``.

    Returns the mean cross-entropy of ``(N, C)`` logits at int ``labels``, or with
    ``is_grad=True`` its gradient with respect to the logits.
    """

    @prim_attr_register
    def __init__(self, is_grad=False):
        if not isinstance(is_grad, bool):
            raise TypeError(f"For 'SparseSoftmaxCrossEntropyWithLogits', 'is_grad' must be a bool, "
                            f"but got {type(is_grad).__name__}")

    def __call__(self, logits, labels):
        op = "SparseSoftmaxCrossEntropyWithLogits"
        if not self.is_grad:
            return _class_loss(logits, labels, None, -100, "mean", 0.0, op, True, ("logits", "labels"))[0]
        from ..transforms import grad

        def mean_loss(z):
            return _class_loss(z, labels, None, -100, "mean", 0.0, op, True, ("logits", "labels"))[0]

        return grad(mean_loss)(tensor_arg(logits, "logits", op))


class NLLLoss(Primitive):
    """``NLLLoss(reduction='mean', ignore_index=-100)(logits, labels, weight)`` -> ``(loss, total_weight)``."""

    @prim_attr_register
    def __init__(self, reduction="mean", ignore_index=-100):
        _check_reduction(reduction, "NLLLoss")

    def __call__(self, logits, labels, weight):
        loss, total = _class_loss(logits, labels, weight, self.ignore_index, self.reduction, 0.0, "NLLLoss", False,
                                  ("logits", "labels"))
        return loss, wrap(total)


class BCEWithLogitsLoss(Primitive):
    """``BCEWithLogitsLoss(reduction='mean')(logits, label, weight=None, pos_weight=None)``."""

    @prim_attr_register
    def __init__(self, reduction="mean"):
        _check_reduction(reduction, "BCEWithLogitsLoss")

    def __call__(self, input, target, weight=None, posWeight=None):
        return binary_cross_entropy_with_logits(input, target, weight, posWeight, self.reduction)


class SmoothL1Loss(Primitive):
    """``SmoothL1Loss(beta=1.0, reduction='none')(prediction, target)``: see :func:`smooth_l1_loss`."""

    @prim_attr_register
    def __init__(self, beta=1.0, reduction="none"):
        _check_reduction(reduction, "SmoothL1Loss")

    def __call__(self, prediction, target):
        return smooth_l1_loss(prediction, target, self.beta, self.reduction)
