"""More losses: Huber, KL divergence, margin and embedding losses, Gaussian NLL, multi-label, CTC.

Every loss is written as cellkit ops on Tensors (differences, maxima, logs, sums), so its
gradient -- and the gradient of that -- comes from those ops' rules.  ``reduction`` is
``'none'``, ``'mean'`` or ``'sum'`` throughout (``kl_div`` also takes ``'batchmean'``).

CTC (:func:`ctc_loss`) runs the forward (alpha) recursion of Graves et al. over the
time steps, in log space, as recorded ops; states no path can reach hold a very negative
finite number rather than ``-inf``, so no ``0 * inf`` ever poisons a gradient.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.huber_loss(ms.Tensor([0.5, 3.0]), ms.Tensor([0.0, 0.0]), reduction="none"))
[0.125 2.5  ]
>>> print(ops.margin_ranking_loss(ms.Tensor([1.0]), ms.Tensor([2.0]), ms.Tensor([1.0])))
1.0
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor
from . import activation as _act
from . import loss as _loss
from . import math as _math
from . import reduce as _reduce
from . import shape_ops as _shape
from ._core import backend, describe, tensor_arg, wrap, xp
from .gradient_control import stop_gradient
from .primitive import Primitive, prim_attr_register

__all__ = [
    "cosine_embedding_loss", "ctc_loss", "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div",
    "margin_ranking_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
    "BinaryCrossEntropy", "CTCLoss", "CTCLossV2", "KLDivLoss", "MultiMarginLoss", "SigmoidCrossEntropyWithLogits",
]


def _reduction(reduction, op, allowed=("none", "mean", "sum")):
    if not isinstance(reduction, str) or reduction not in allowed:
        raise ValueError(f"For '{op}', 'reduction' must be one of {', '.join(repr(a) for a in allowed)}, but got "
                         f"{reduction!r}")
    return reduction


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return _reduce.mean(loss)
    if reduction == "sum":
        return _reduce.sum(loss)
    return loss


def _float_tensor(value, name, op, ints_as_float=False):
    t = tensor_arg(value, name, op)
    kind = _dt.dtype_of(t._data).kind
    if kind != "float":
        if ints_as_float and kind in ("int", "uint"):
            from .creation import cast
            return cast(t, _dt.float32)
        raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
    return t


def _same_dtype(a, b, names, op):
    if a.dtype != b.dtype:
        raise TypeError(f"For '{op}', '{names[0]}' and '{names[1]}' must have the same dtype, but got {a.dtype} and "
                        f"{b.dtype}")


def _broadcastable(a, b, names, op):
    for da, db in zip(reversed(a.shape), reversed(b.shape)):
        if da != db and da != 1 and db != 1:
            raise ValueError(f"For '{op}', the shapes of '{names[0]}' {a.shape} and '{names[1]}' {b.shape} cannot be "
                             "broadcast together")


def _number(value, name, op, types=numbers.Real):
    if isinstance(value, bool) or not isinstance(value, types):
        kind = "a float" if types is float else "a number"
        raise TypeError(f"For '{op}', '{name}' must be {kind}, but got {describe(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"For '{op}', '{name}' must be finite, but got {value}")
    return value


def _relu(t):
    return _math.maximum(t, 0.0)


# -- elementwise losses ---------------------------------------------------------------------------------------
def huber_loss(input, target, reduction="mean", delta=1.0):
    """Huber loss: ``0.5 d ** 2`` where ``|d| < delta``, ``delta * (|d| - 0.5 delta)`` elsewhere (``d = input - target``).

    >>> import cellkit as ms
    >>> print(huber_loss(ms.Tensor([0.0, 2.0]), ms.Tensor([0.5, 0.0])))
    0.8125
    """
    op = "huber_loss"
    _reduction(reduction, op)
    delta = _number(delta, "delta", op)
    if delta <= 0:
        raise ValueError(f"For '{op}', 'delta' must be greater than 0, but got {delta}")
    a = _float_tensor(input, "input", op)
    b = _float_tensor(target, "target", op)
    _broadcastable(a, b, ("input", "target"), op)
    z = _math.abs(a - b)
    inside = wrap(xp().astype(z._data < delta, z._data.dtype))
    loss = inside * (0.5 * z * z) + (1 - inside) * (delta * (z - 0.5 * delta))
    return _reduce_loss(loss, reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood: ``0.5 * (log(max(var, eps)) + (x - target) ** 2 / max(var, eps))``.

    ``var`` has the shape of ``x``, or that shape without its last axis (one variance per
    row); ``full`` adds the constant ``0.5 log(2 pi)``.

    >>> import cellkit as ms
    >>> print(gaussian_nll_loss(ms.Tensor([1.0]), ms.Tensor([1.0]), ms.Tensor([1.0])))
    0.0
    """
    op = "gaussian_nll_loss"
    xt = _float_tensor(x, "x", op)
    tt = _float_tensor(target, "target", op)
    vt = _float_tensor(var, "var", op)
    if not isinstance(full, bool):
        raise TypeError(f"For '{op}', 'full' must be a bool, but got {describe(full)}")
    if isinstance(eps, bool) or not isinstance(eps, float) or not eps > 0 or not math.isfinite(eps):
        raise ValueError(f"For '{op}', 'eps' must be a positive float, but got {describe(eps)}")
    _reduction(reduction, op)
    if vt.shape != xt.shape and tuple(vt.shape) == tuple(xt.shape[:-1]):
        vt = _shape.expand_dims(vt, -1)
    _broadcastable(xt, vt, ("x", "var"), op)
    _broadcastable(xt, tt, ("x", "target"), op)
    v = _math.maximum(vt, eps)
    d = xt - tt
    loss = 0.5 * (_math.log(v) + d * d / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_loss(loss, reduction)


def kl_div(logits, labels, reduction="mean"):
    """Kullback-Leibler divergence with log-probability ``logits``: ``labels * (log(labels) - logits)``.

    ``reduction`` may also be ``'batchmean'`` (the sum divided by the batch size);
    ``'mean'`` divides the sum by the number of elements.

    >>> import cellkit as ms
    >>> print(kl_div(ms.Tensor([0.0]), ms.Tensor([1.0]), reduction="sum"))
    0.0
    """
    return _kl_div(logits, labels, reduction, "kl_div")


def _kl_div(logits, labels, reduction, op):
    if not isinstance(reduction, str) or reduction not in ("none", "mean", "batchmean", "sum"):
        raise ValueError(f"For '{op}', 'reduction' must be one of 'none', 'mean', 'batchmean', 'sum', but got "
                         f"{reduction!r}")
    a = _float_tensor(logits, "logits", op)
    b = _float_tensor(labels, "labels", op)
    _same_dtype(a, b, ("logits", "labels"), op)
    if a.shape != b.shape:
        raise ValueError(f"For '{op}', 'logits' {a.shape} and 'labels' {b.shape} must have the same shape")
    x = xp()
    positive = b._data > 0
    # labels * log(labels), 0 where labels == 0 (its limit), read through a safe log
    safe = wrap(x.where(positive, b._data, x.ones_like(b._data)))
    loss = b * _math.log(_math.where(wrap(positive), b, safe)) - b * a
    if reduction == "none":
        return loss
    total = _reduce.sum(loss)
    if reduction == "sum":
        return total
    if reduction == "batchmean":
        return total / (a.shape[0] if a.ndim else 1)
    return total / max(int(np.prod(a.shape)), 1)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """``inputs`` where ``targets == 1``, ``max(0, margin - inputs)`` where ``targets == -1``.

    >>> import cellkit as ms
    >>> print(hinge_embedding_loss(ms.Tensor([0.3, 0.2]), ms.Tensor([1.0, -1.0]), reduction="none"))
    [0.3 0.8]
    """
    op = "hinge_embedding_loss"
    a = _float_tensor(inputs, "inputs", op)
    t = tensor_arg(targets, "targets", op)
    margin = _number(margin, "margin", op)
    _reduction(reduction, op)
    _broadcastable(a, t, ("inputs", "targets"), op)
    x = xp()
    pos = wrap(x.astype(t._data > 0, a._data.dtype))
    neg = wrap(x.astype(t._data < 0, a._data.dtype))
    loss = pos * a + _relu(neg * margin - neg * a)
    return _reduce_loss(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: ``target = 1`` wants ``input1`` ranked higher.

    >>> import cellkit as ms
    >>> print(margin_ranking_loss(ms.Tensor([3.0]), ms.Tensor([1.0]), ms.Tensor([-1.0]), reduction="sum"))
    2.0
    """
    op = "margin_ranking_loss"
    margin = _number(margin, "margin", op, float)
    a = _float_tensor(input1, "input1", op)
    b = _float_tensor(input2, "input2", op)
    t = _float_tensor(target, "target", op)
    _same_dtype(a, b, ("input1", "input2"), op)
    _same_dtype(t, a, ("target", "input1"), op)
    _reduction(reduction, op)
    _broadcastable(a, b, ("input1", "input2"), op)
    _broadcastable(a, t, ("input1", "target"), op)
    _broadcastable(b, t, ("input2", "target"), op)
    if any(d == 0 for d in a.shape + b.shape + t.shape):
        raise ValueError(f"For '{op}', the inputs must not be empty, but got shapes {a.shape}, {b.shape} and "
                         f"{t.shape}")
    return _reduce_loss(_relu(-t * (a - b) + margin), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target == 1``, ``max(0, cos - margin)`` where ``target == -1``.

    The cosine is taken along axis 1; ``margin`` is in ``[-1, 1]``.

    >>> import cellkit as ms
    >>> print(cosine_embedding_loss(ms.Tensor([[1.0, 0.0]]), ms.Tensor([[0.0, 1.0]]), ms.Tensor([1])))
    1.0
    """
    op = "cosine_embedding_loss"
    a = _float_tensor(input1, "input1", op, ints_as_float=True)
    b = _float_tensor(input2, "input2", op, ints_as_float=True)
    t = tensor_arg(target, "target", op)
    given = margin
    margin = _number(margin, "margin", op)
    if not -1 <= margin <= 1:
        raise ValueError(f"For '{op}', 'margin' must be in [-1, 1], but got {describe(given)}")
    _reduction(reduction, op)
    if a.ndim < 2 or a.shape != b.shape:
        raise ValueError(f"For '{op}', 'input1' and 'input2' must have one shape of at least 2 dimensions, but got "
                         f"{a.shape} and {b.shape}")
    expected = tuple(a.shape[:1]) + tuple(a.shape[2:])
    if tuple(t.shape) != expected:
        raise ValueError(f"For '{op}', 'target' must have shape {expected} (the inputs' shape without axis 1), but "
                         f"got {t.shape}")
    dot = _reduce.sum(a * b, 1)
    cosine = dot / (_math.sqrt(_reduce.sum(a * a, 1)) * _math.sqrt(_reduce.sum(b * b, 1)))
    x = xp()
    pos = wrap(x.astype(t._data == 1, cosine._data.dtype))
    neg = wrap(x.astype(t._data == -1, cosine._data.dtype))
    loss = pos * (1.0 - cosine) + neg * _relu(cosine - margin)
    return _reduce_loss(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """Multi-label one-versus-all loss: the mean over classes of ``y log(1 + e^-x) + (1 - y) log(1 + e^x)``.

    >>> import cellkit as ms
    >>> print(multilabel_soft_margin_loss(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[1.0, 0.0]])))
    0.6931472
    """
    op = "multilabel_soft_margin_loss"
    a = _float_tensor(input, "input", op)
    y = tensor_arg(target, "target", op)
    _reduction(reduction, op)
    if a.ndim == 0:
        raise ValueError(f"For '{op}', 'input' must have a class axis, but got a scalar")
    _broadcastable(a, y, ("input", "target"), op)
    yf = wrap(xp().astype(y._data, a._data.dtype))
    loss = yf * _act.softplus(-a) + (1 - yf) * _act.softplus(a)
    if weight is not None:
        w = _float_tensor(weight, "weight", op)
        _broadcastable(a, w, ("input", "weight"), op)
        loss = loss * w
    loss = _reduce.sum(loss, a.ndim - 1) / a.shape[-1]
    return _reduce_loss(loss, reduction)


def _multi_margin(input, target, p, margin, weight, reduction, op):
    if isinstance(p, bool) or p not in (1, 2):
        raise ValueError(f"For '{op}', 'p' must be 1 or 2, but got {describe(p)}")
    _reduction(reduction, op)
    a = _float_tensor(input, "x" if op == "MultiMarginLoss" else "input", op)
    t = tensor_arg(target, "target", op)
    if a.ndim != 2 or tuple(t.shape) != (a.shape[0],):
        raise ValueError(f"For '{op}', the input must be (N, C) and 'target' (N,), but got shapes {a.shape} and "
                         f"{t.shape}")
    if _dt.dtype_of(t._data).kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'target' must be an int Tensor, but got {t.dtype}")
    n, c = a.shape
    labels = np.asarray(t.asnumpy()).astype(np.int64)
    if ((labels < 0) | (labels >= c)).any():
        raise ValueError(f"For '{op}', 'target' must hold class indices in [0, {c}) for an input of shape {a.shape}, "
                         f"but got {labels.tolist()}")
    onehot = wrap(backend().from_host((labels[:, None] == np.arange(c)[None, :]).astype(
        np.dtype(str(a._data.dtype).rsplit(".", 1)[-1]))))
    picked = _reduce.sum(a * onehot, 1, True)
    terms = _relu(margin - picked + a) * (1 - onehot)
    if p == 2:
        terms = terms * terms
    loss = _reduce.sum(terms, 1) / c
    if weight is not None:
        w = _float_tensor(weight, "weight", op)
        if tuple(w.shape) != (c,):
            raise ValueError(f"For '{op}', 'weight' must have shape ({c},), but got {w.shape}")
        loss = loss * _reduce.sum(onehot * _shape.reshape(w, (1, c)), 1)
    return _reduce_loss(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Multi-class hinge loss: ``sum over i != y of max(0, margin - x[y] + x[i]) ** p / C`` (times ``weight[y]``).

    >>> import cellkit as ms
    >>> print(multi_margin_loss(ms.Tensor([[0.5, 0.2]]), ms.Tensor([0])))
    0.35
    """
    op = "multi_margin_loss"
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"For '{op}', 'margin' must be an int, but got {describe(margin)}")
    return _multi_margin(input, target, p, float(margin), weight, reduction, op)


class MultiMarginLoss(Primitive):
    """``MultiMarginLoss(p=1, margin=1.0, reduction='mean')(x, target, weight=None)``: see :func:`multi_margin_loss`."""

    @prim_attr_register
    def __init__(self, p=1, margin=1.0, reduction="mean"):
        if isinstance(p, bool) or p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', 'p' must be 1 or 2, but got {describe(p)}")
        _number(margin, "margin", "MultiMarginLoss")
        _reduction(reduction, "MultiMarginLoss")

    def __call__(self, x, target, weight=None):
        return _multi_margin(x, target, self.p, float(self.margin), weight, self.reduction, "MultiMarginLoss")


class KLDivLoss(Primitive):
    """``KLDivLoss(reduction='mean')(logits, labels)``: see :func:`kl_div`."""

    @prim_attr_register
    def __init__(self, reduction="mean"):
        _reduction(reduction, "KLDivLoss", ("none", "mean", "batchmean", "sum"))

    def __call__(self, logits, labels):
        return _kl_div(logits, labels, self.reduction, "KLDivLoss")


class BinaryCrossEntropy(Primitive):
    """``BinaryCrossEntropy(reduction='mean')(logits, labels, weight=None)``: see :func:`binary_cross_entropy`."""

    @prim_attr_register
    def __init__(self, reduction="mean"):
        _reduction(reduction, "BinaryCrossEntropy")

    def __call__(self, logits, labels, weight=None):
        return _loss.binary_cross_entropy(logits, labels, weight, self.reduction)


class SigmoidCrossEntropyWithLogits(Primitive):
    """``SigmoidCrossEntropyWithLogits()(logits, label)``: the elementwise binary cross-entropy of logits."""

    def __call__(self, logits, label):
        return _loss.binary_cross_entropy_with_logits(logits, label, reduction="none")


# -- CTC --------------------------------------------------------------------------------------------------------
_UNREACHABLE = -1e30  # log-probability of states no alignment reaches (finite: no 0 * inf in a gradient)


def _int_vector(value, name, op, n):
    if isinstance(value, (tuple, list)):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            raise TypeError(f"For '{op}', '{name}' must be a tuple of {n} ints, but got {describe(value)}") from None
    else:
        t = tensor_arg(value, name, op)
        if _dt.dtype_of(t._data).kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', '{name}' must be an int Tensor, but got {t.dtype}")
        arr = np.asarray(t.asnumpy())
    if arr.dtype.kind not in "iu" or arr.shape != (n,):
        raise ValueError(f"For '{op}', '{name}' must hold {n} ints (one per batch element), but got {describe(value)}")
    return arr.astype(np.int64)


def _ctc_alpha(log_probs, targets, input_lengths, target_lengths, blank, op):
    """``(negative log-likelihood (N,) Tensor, log_alpha array (N, T, 2S + 1))`` of the CTC forward recursion."""
    T, N, C = log_probs.shape
    S = targets.shape[1]
    L = 2 * S + 1
    ext = np.full((N, L), blank, np.int64)
    ext[:, 1::2] = targets
    skip = np.zeros((N, L), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    for n in range(N):  # states past this element's target hold nothing
        skip[n, 2 * target_lengths[n] + 1:] = False
    dtype = np.dtype(str(log_probs._data.dtype).rsplit(".", 1)[-1])
    x = xp()
    columns = (np.arange(N)[:, None] * C + ext).reshape(-1)
    lp = _shape.reshape(_shape.gather(_shape.reshape(log_probs, (T, N * C)), wrap(backend().from_host(columns)), 1),
                        (T, N, L))

    def const(host):
        return wrap(backend().from_host(np.asarray(host, dtype)))

    start = np.zeros((N, L))
    start[:, 0] = 1
    start[:, 1] = (target_lengths > 0)
    reachable = np.arange(L)[None, :] <= 2 * target_lengths[:, None]  # states past the target hold nothing
    skip_c = const(skip)
    start_c = const(start)
    reach_c = const(reachable)
    neg_col1 = const(np.full((N, 1), _UNREACHABLE))
    neg_col2 = const(np.full((N, 2), _UNREACHABLE))
    lp0 = _shape.gather(lp, 0, 0)
    alpha = lp0 * start_c + (1 - start_c) * _UNREACHABLE
    history = [alpha._data]
    for t in range(1, T):
        a1 = _shape.concat([neg_col1, _shape.narrow(alpha, 1, 0, L - 1)], 1)
        a2 = _shape.concat([neg_col2, _shape.narrow(alpha, 1, 0, L - 2)], 1)
        a2 = a2 * skip_c + (1 - skip_c) * _UNREACHABLE
        top = stop_gradient(_math.maximum(_math.maximum(alpha, a1), a2))
        total = _math.exp(alpha - top) + _math.exp(a1 - top) + _math.exp(a2 - top)
        new = top + _math.log(total) + _shape.gather(lp, t, 0)
        new = new * reach_c + (1 - reach_c) * _UNREACHABLE
        running = const((t < input_lengths).astype(np.float64)[:, None])
        alpha = new * running + alpha * (1 - running)
        # log_alpha (an output, off the tape) shows -inf once an element's input has ended
        history.append(x.where(x.asarray(running._data > 0), alpha._data,
                               x.full(alpha._data.shape, _UNREACHABLE, dtype=alpha._data.dtype)
                               if backend().is_numpy else
                               x.full(alpha._data.shape, _UNREACHABLE, dtype=alpha._data.dtype,
                                      device=alpha._data.device)))
    last = np.stack([2 * target_lengths, np.maximum(2 * target_lengths - 1, 0)], 1)
    ends = (np.arange(N)[:, None] * L + last).reshape(-1)
    finals = _shape.reshape(_shape.gather(_shape.reshape(alpha, (-1,)), wrap(backend().from_host(ends)), 0), (N, 2))
    one_end = const((target_lengths == 0).astype(np.float64)[:, None] * np.array([[0.0, 1.0]]))
    finals = finals * (1 - one_end) + one_end * _UNREACHABLE   # an empty target ends in state 0 only
    top = stop_gradient(_reduce.amax(finals, 1, True))
    ll = _shape.reshape(top, (N,)) + _math.log(_reduce.sum(_math.exp(finals - top), 1))
    nll = -ll
    stacked = x.stack(history, axis=1)
    log_alpha = x.where(stacked <= _UNREACHABLE / 2, x.full(stacked.shape, -float("inf"), dtype=stacked.dtype)
                        if backend().is_numpy else
                        x.full(stacked.shape, -float("inf"), dtype=stacked.dtype, device=stacked.device), stacked)
    return nll, log_alpha


def _ctc_checks(log_probs, targets, input_lengths, target_lengths, blank, op):
    lp = _float_tensor(log_probs, "log_probs", op)
    tg = tensor_arg(targets, "targets", op)
    if lp.ndim != 3:
        raise ValueError(f"For '{op}', 'log_probs' must be 3-D (T, N, C), but got shape {lp.shape}")
    if tg.ndim != 2 or tg.shape[0] != lp.shape[1] or tg.shape[1] < 1:
        raise ValueError(f"For '{op}', 'targets' must be 2-D (N, S) with N = {lp.shape[1]} (from 'log_probs' of shape "
                         f"{lp.shape}) and S >= 1, but got shape {tg.shape}")
    if _dt.dtype_of(tg._data).kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', 'targets' must be an int Tensor, but got {tg.dtype}")
    T, N, C = lp.shape
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)) or not 0 <= blank < C:
        raise ValueError(f"For '{op}', 'blank' must be in [0, {C}) for 'log_probs' of shape {lp.shape}, but got "
                         f"{describe(blank)}")
    il = _int_vector(input_lengths, "input_lengths", op, N)
    tl = _int_vector(target_lengths, "target_lengths", op, N)
    if ((il < 0) | (il > T)).any():
        raise RuntimeError(f"For '{op}', 'input_lengths' must be in [0, {T}], but got {il.tolist()}")
    if ((tl < 0) | (tl > il) | (tl > tg.shape[1])).any():
        raise RuntimeError(f"For '{op}', each target length must be in [0, input length], but got target_lengths "
                           f"{tl.tolist()} for input_lengths {il.tolist()}")
    labels = np.asarray(tg.asnumpy()).astype(np.int64)
    used = np.arange(labels.shape[1])[None, :] < tl[:, None]
    if ((labels < 0) | (labels >= C))[used].any():
        raise ValueError(f"For '{op}', 'targets' must hold class indices in [0, {C}) (the classes of 'log_probs' of "
                         f"shape {lp.shape}), but got values from {labels[used].min()} to {labels[used].max()}")
    labels = np.where(used, labels, 0)
    return lp, labels, il, tl, int(blank)


def _finish_ctc(nll, zero_infinity):
    x = xp()
    impossible = nll._data >= -_UNREACHABLE / 2
    keep = wrap(x.astype(x.logical_not(impossible), nll._data.dtype))
    fill = 0.0 if zero_infinity else float("inf")
    filler = wrap(x.where(impossible, x.full(nll._data.shape, fill, dtype=nll._data.dtype) if backend().is_numpy else
                          x.full(nll._data.shape, fill, dtype=nll._data.dtype, device=nll._data.device),
                          x.zeros_like(nll._data)))
    return _math.where(wrap(impossible), filler, nll * keep)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss; returns ``(loss, log_alpha)``.

    Parameters
    ----------
    log_probs : Tensor (T, N, C)
        Log-probabilities (e.g. ``log_softmax``) of C classes, blank included, at T steps.
    targets : int Tensor (N, S)
        Each element's label sequence (padded; only ``target_lengths[n]`` labels count).
    input_lengths, target_lengths : tuple or int Tensor (N,)
    blank : int
        The blank class.
    reduction : {'mean', 'sum', 'none'}
        ``'mean'`` divides each loss by its target length, then averages (as PyTorch and MindSpore do).
    zero_infinity : bool
        Impossible alignments (an infinite loss) give 0 instead.

    Returns
    -------
    loss : Tensor
        The negative log-likelihood (shape (N,) with ``'none'``).
    log_alpha : Tensor (N, T, 2 S + 1)
        The forward variables (``-inf`` where unreachable); no gradient flows through it.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> lp = ms.Tensor(np.log(np.full((1, 1, 2), 0.5, np.float32)))
    >>> loss, _ = ctc_loss(lp, ms.Tensor([[1]]), (1,), (1,))
    >>> print(loss)
    0.6931472
    """
    op = "ctc_loss"
    _reduction(reduction, op)
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"For '{op}', 'zero_infinity' must be a bool, but got {describe(zero_infinity)}")
    lp, labels, il, tl, blank = _ctc_checks(log_probs, targets, input_lengths, target_lengths, blank, op)
    nll, log_alpha = _ctc_alpha(lp, labels, il, tl, blank, op)
    loss = _finish_ctc(nll, zero_infinity)
    if reduction == "mean":
        lengths = wrap(backend().from_host(np.maximum(tl, 1).astype(np.dtype(str(lp._data.dtype).rsplit(".", 1)[-1]))))
        loss = _reduce.mean(loss / lengths)
    elif reduction == "sum":
        loss = _reduce.sum(loss)
    return loss, wrap(log_alpha)


class CTCLossV2(Primitive):
    """``CTCLossV2(blank=0, reduction='none', zero_infinity=False)(log_probs, targets, input_lengths, target_lengths)``.

    Returns ``(neg_log_likelihood, log_alpha)``: see :func:`ctc_loss`.
    """

    @prim_attr_register
    def __init__(self, blank=0, reduction="none", zero_infinity=False):
        _reduction(reduction, "CTCLossV2")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"For 'CTCLossV2', 'zero_infinity' must be a bool, but got {describe(zero_infinity)}")

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)


class CTCLoss(Primitive):
    """``CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True, ...)(x, labels_indices, labels_values,
    sequence_length)`` -> ``(loss, gradient)``: TensorFlow's CTC.

    ``x`` holds logits (T, N, C) (a softmax is taken over C); the blank is class ``C - 1``; the
    labels come as a sparse matrix (``labels_indices`` rows ``[batch, position]`` and their
    ``labels_values``).  ``gradient`` is the loss's gradient with respect to ``x``.  Only
    ``ctc_merge_repeated=True`` (the usual CTC) is implemented.
    """

    @prim_attr_register
    def __init__(self, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                 ignore_longer_outputs_than_inputs=False):
        for name, value in (("preprocess_collapse_repeated", preprocess_collapse_repeated),
                            ("ctc_merge_repeated", ctc_merge_repeated),
                            ("ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CTCLoss', '{name}' must be a bool, but got {describe(value)}")
        if not ctc_merge_repeated:
            raise NotImplementedError("For 'CTCLoss', cellkit implements only ctc_merge_repeated=True")

    def __call__(self, x, labels_indices, labels_values, sequence_length):
        from ..transforms import grad

        op = "CTCLoss"
        xt = _float_tensor(x, "x", op)
        if xt.ndim != 3:
            raise ValueError(f"For '{op}', 'x' must be 3-D (max_time, batch_size, num_classes), but got {xt.shape}")
        T, N, C = xt.shape
        idx = tensor_arg(labels_indices, "labels_indices", op)
        vals = tensor_arg(labels_values, "labels_values", op)
        if idx.ndim != 2 or idx.shape[1] != 2 or vals.shape != (idx.shape[0],):
            raise ValueError(f"For '{op}', 'labels_indices' must be (n, 2) and 'labels_values' (n,), but got "
                             f"{idx.shape} and {vals.shape}")
        seq = _int_vector(sequence_length, "sequence_length", op, N)
        if ((seq < 0) | (seq > T)).any():
            raise ValueError(f"For '{op}', 'sequence_length' must be in [0, {T}], but got {seq.tolist()}")
        where = np.asarray(idx.asnumpy()).astype(np.int64)
        values = np.asarray(vals.asnumpy()).astype(np.int64)
        if ((values < 0) | (values >= C - 1)).any() or ((where[:, 0] < 0) | (where[:, 0] >= N)).any():
            raise ValueError(f"For '{op}', labels must be in [0, {C - 1}) and batch indices in [0, {N})")
        sequences = [[] for _ in range(N)]
        for (b, pos), v in sorted(zip(map(tuple, where), values)):
            sequences[b].append(int(v))
        if self.preprocess_collapse_repeated:
            sequences = [[v for i, v in enumerate(s) if i == 0 or v != s[i - 1]] for s in sequences]
        S = max(1, max(len(s) for s in sequences))
        targets = np.zeros((N, S), np.int64)
        lengths = np.array([len(s) for s in sequences], np.int64)
        for b, s in enumerate(sequences):
            targets[b, :len(s)] = s
        too_long = lengths > seq
        if too_long.any() and not self.ignore_longer_outputs_than_inputs:
            raise ValueError(f"For '{op}', a label sequence is longer than its input: lengths {lengths.tolist()} for "
                             f"sequence_length {seq.tolist()}")
        kept_lengths = np.where(too_long, 0, lengths)

        def losses(logits):
            nll, _ = _ctc_alpha(_act.log_softmax(logits, 2), targets, seq, kept_lengths, C - 1, op)
            keep = wrap(backend().from_host((~too_long).astype(np.dtype(str(xt._data.dtype).rsplit(".", 1)[-1]))))
            return nll * keep

        loss = losses(xt)
        gradient = grad(lambda logits: _reduce.sum(losses(logits)))(xt)
        return _finish_ctc(loss, False), gradient
