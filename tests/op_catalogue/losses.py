"""Losses: regression, classification, margin and embedding losses, KL divergence, CTC.

Margins, deltas and class targets are chosen so that no sample sits on a hinge (where the
loss has a kink and a finite difference would straddle it).
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
G = Arr((2, 3), low=-1.0, high=1.0)
PROB = Arr((2, 3), low=0.1, high=0.9)
SIGNS = np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]], np.float32)


def _softplus(x):
    return np.logaddexp(0, x)


def _reduce(loss, reduction="mean"):
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _ctc_log_probs(shape, seed):
    """Log-probabilities from a fixed integer pattern (the same under any NumPy version)."""
    logits = ((np.arange(int(np.prod(shape))) * (7 * seed + 3)) % 11).reshape(shape) / 5.0
    return _log_softmax(logits, -1).astype(np.float32)


def _ctc(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """CTC's negative log-likelihood and log_alpha (N, T, 2S + 1), by the textbook recursion in float64."""
    T, N, _ = log_probs.shape
    S = targets.shape[1]
    L = 2 * S + 1
    log_alpha = np.full((N, T, L), -np.inf)
    losses = np.zeros(N)
    for n in range(N):
        ext = np.full(L, blank)
        ext[1::2] = targets[n]
        tl = target_lengths[n]
        for t in range(input_lengths[n]):
            for s in range(2 * tl + 1):
                if t == 0:
                    log_alpha[n, t, s] = log_probs[0, n, ext[s]] if s < 2 and (s == 0 or tl > 0) else -np.inf
                    continue
                terms = [log_alpha[n, t - 1, s]]
                if s >= 1:
                    terms.append(log_alpha[n, t - 1, s - 1])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    terms.append(log_alpha[n, t - 1, s - 2])
                log_alpha[n, t, s] = np.logaddexp.reduce(terms) + log_probs[t, n, ext[s]]
        last = log_alpha[n, input_lengths[n] - 1]
        ends = [last[2 * tl]] + ([last[2 * tl - 1]] if tl > 0 else [])
        losses[n] = -np.logaddexp.reduce(ends)
    if zero_infinity:
        losses = np.where(np.isinf(losses), 0.0, losses)
    if reduction == "mean":
        loss = (losses / np.maximum(target_lengths, 1)).mean()
    elif reduction == "sum":
        loss = losses.sum()
    else:
        loss = losses
    return loss, log_alpha


OPS = [
    # -- regression
    OpInfo("mse_loss", (Sample((F, G), grad=(0, 1), label="mean"),
                        Sample((F, Arr((3,))), {"reduction": "none"}, grad=(0, 1), label="broadcast_none"),
                        Sample((F, G, "sum"), grad=(0, 1), label="sum")),
           ref=lambda x, y, reduction="mean": _reduce((x - y) ** 2, reduction),
           bad=(Bad("reduction", (F, G), {"reduction": "max"}),)),
    OpInfo("l1_loss", (Sample((F, G), grad=(0, 1), label="mean"),
                       Sample((F, G), {"reduction": "none"}, grad=(0,), label="none")),
           ref=lambda x, y, reduction="mean": _reduce(np.abs(x - y), reduction),
           bad=(Bad("reduction", (F, G), {"reduction": "max"}),)),
    OpInfo("smooth_l1_loss", (Sample((F, G), grad=(0, 1), label="none"),
                              Sample((F, G, 0.7, "mean"), grad=(0, 1), label="beta_mean")),
           ref=lambda x, y, beta=1.0, reduction="none": _reduce(
               np.where(np.abs(x - y) < beta, 0.5 * (x - y) ** 2 / beta, np.abs(x - y) - 0.5 * beta), reduction),
           primitive=lambda ops, x, y, beta=1.0, reduction="none": ops.SmoothL1Loss(beta, reduction)(x, y),
           bad=(Bad("shape", (F, Arr((3,)))),)),
    OpInfo("huber_loss", (Sample((F, G), grad=(0, 1), label="mean"),
                          Sample((F, G, "none", 0.7), grad=(0, 1), label="delta_none"),
                          Sample((F, Arr((3,)), "sum"), grad=(0, 1), label="broadcast_sum")),
           ref=lambda x, y, reduction="mean", delta=1.0: _reduce(
               np.where(np.abs(x - y) < delta, 0.5 * (x - y) ** 2, delta * (np.abs(x - y) - 0.5 * delta)), reduction),
           bad=(Bad("delta", (F, G), {"delta": 0.0}),)),
    OpInfo("gaussian_nll_loss", (Sample((F, G, Arr((2, 3), low=0.2, high=2.0)), grad=(0, 1, 2), label="mean"),
                                 Sample((F, G, Arr((2,), low=0.2, high=2.0)), {"full": True, "reduction": "none"},
                                        grad=(0, 1, 2), label="row_var_full"),
                                 Sample((F, G, Arr((2, 3), low=0.2, high=2.0)), {"eps": 0.5, "reduction": "sum"},
                                        grad=(0, 1), label="eps_sum")),
           ref=lambda x, y, v, full=False, eps=1e-6, reduction="mean": _reduce(
               0.5 * (np.log(np.maximum(v if v.shape == x.shape else v[..., None], eps))
                      + (x - y) ** 2 / np.maximum(v if v.shape == x.shape else v[..., None], eps))
               + (0.5 * np.log(2 * np.pi) if full else 0), reduction),
           bad=(Bad("eps", (F, G, PROB), {"eps": 0}),)),
    # -- classification
    OpInfo("binary_cross_entropy", (Sample((PROB, Arr((2, 3), low=0.0, high=1.0)), grad=(0, 1), label="mean"),
                                    Sample((PROB, Arr((2, 3), low=0.0, high=1.0), Arr((2, 3), low=0.5, high=1.5),
                                            "none"), grad=(0, 1), label="weight_none")),
           ref=lambda p, y, w=None, reduction="mean": _reduce(
               -(y * np.log(p) + (1 - y) * np.log(1 - p)) * (1 if w is None else w), reduction),
           primitive=lambda ops, p, y, w=None, reduction="mean": ops.BinaryCrossEntropy(reduction)(p, y, w),
           bad=(Bad("shape", (PROB, Arr((3,)))),)),
    OpInfo("binary_cross_entropy_with_logits",
           (Sample((F, Arr((2, 3), low=0.0, high=1.0)), grad=(0, 1), label="mean"),
            Sample((F, Arr((2, 3), low=0.0, high=1.0), Arr((2, 3), low=0.5, high=1.5), Arr((3,), low=0.5, high=2.0),
                    "sum"), grad=(0, 1), label="weights_sum")),
           ref=lambda x, y, w=None, pw=None, reduction="mean": _reduce(
               ((1 if pw is None else pw) * y * _softplus(-x) + (1 - y) * _softplus(x)) * (1 if w is None else w),
               reduction),
           bad=(Bad("shape", (F, Arr((3,)))),)),
    OpInfo("nll_loss", (Sample((Arr((3, 4)), np.array([0, 3, 1])), grad=(0,), label="mean"),
                        Sample((Arr((3, 4)), np.array([0, 3, 1]), Arr((4,), low=0.5, high=1.5)),
                               {"reduction": "sum", "ignore_index": 3}, grad=(0,), label="weight_ignore_sum")),
           bad=(Bad("target_dtype", (Arr((3, 4)), Arr((3,)))),)),
    OpInfo("cross_entropy", (Sample((Arr((2, 3)), np.array([0, 2])), grad=(0,), label="indices"),
                             Sample((Arr((3, 4)), np.array([0, 3, 1])), {"label_smoothing": 0.2, "reduction": "sum"},
                                    grad=(0,), label="smoothing"),
                             Sample((Arr((2, 3)), Arr((2, 3), low=0.0, high=1.0)), grad=(0, 1),
                                    label="probabilities"),
                             Sample((Arr((2, 3, 2)), np.array([[0, 2], [1, 1]]), Arr((3,), low=0.5, high=1.5)),
                                    grad=(0,), label="spatial_weight")),
           bad=(Bad("reduction", (Arr((3, 4)), np.array([0, 3, 1])), {"reduction": "max"}),)),
    # MindSpore 2.10 gives kl_div no gradient with respect to 'labels' (zeros, where
    # log(labels) + 1 - logits is due); the samples differentiate the logits only.
    OpInfo("kl_div", (Sample((F, PROB), grad=(0,), label="mean"),
                      Sample((F, PROB, "batchmean"), grad=(0,), label="batchmean"),
                      Sample((F, PROB, "none"), grad=(0,), label="none"),
                      Sample((F, PROB, "sum"), grad=(0,), label="sum")),
           ref=lambda x, y, reduction="mean": (lambda l: l.sum() / x.shape[0] if reduction == "batchmean" else
                                               _reduce(l, reduction))(y * (np.log(y) - x)),
           primitive=lambda ops, x, y, reduction="mean": ops.KLDivLoss(reduction)(x, y)
           if reduction != "mean" else ops.kl_div(x, y),
           bad=(Bad("reduction", (F, PROB), {"reduction": "max"}),)),
    OpInfo("multilabel_soft_margin_loss", (Sample((F, np.array([[1, 0, 1], [0, 0, 1]], np.float32)), grad=(0,),
                                                  label="mean"),
                                           Sample((F, np.array([[1, 0, 1], [0, 0, 1]], np.float32),
                                                   Arr((3,), low=0.5, high=1.5), "none"), grad=(0, 2),
                                                  label="weight_none")),
           ref=lambda x, y, w=None, reduction="mean": _reduce(
               ((y * _softplus(-x) + (1 - y) * _softplus(x)) * (1 if w is None else w)).mean(-1), reduction)),
    # (MindSpore 2.10 gives 'weight' a zero gradient: the samples differentiate the input only.)
    OpInfo("multi_margin_loss", (Sample((Arr((3, 4), distinct=True), np.array([0, 3, 1])), grad=(0,), label="p1"),
                                 Sample((Arr((3, 4), distinct=True), np.array([2, 0, 1]), 2, 2,
                                         Arr((4,), low=0.5, high=1.5), "sum"), grad=(0,), label="p2_weight_sum")),
           primitive=lambda ops, x, y, p=1, margin=1, w=None, reduction="mean": ops.MultiMarginLoss(
               p, float(margin), reduction)(x, y, w),
           bad=(Bad("p", (Arr((3, 4)), np.array([0, 3, 1]), 3)),)),
    # -- margins and embeddings
    OpInfo("hinge_embedding_loss", (Sample((G, SIGNS), grad=(0,), label="mean"),
                                    Sample((G, SIGNS, 0.5, "none"), grad=(0,), label="margin_none")),
           ref=lambda x, y, margin=1.0, reduction="mean": _reduce(
               np.where(y > 0, x, 0) + np.where(y < 0, np.maximum(0, margin - x), 0), reduction),
           bad=(Bad("reduction", (G, SIGNS), {"reduction": "max"}),)),
    OpInfo("margin_ranking_loss", (Sample((F, G, SIGNS), grad=(0, 1), label="mean"),
                                   Sample((F, G, SIGNS, 0.3, "none"), grad=(0, 1), label="margin_none")),
           ref=lambda a, b, y, margin=0.0, reduction="mean": _reduce(np.maximum(0, -y * (a - b) + margin), reduction),
           bad=(Bad("margin_int", (F, G, SIGNS), {"margin": 1}),)),
    OpInfo("cosine_embedding_loss", (Sample((Arr((2, 3)), Arr((2, 3)), np.array([1, -1])), grad=(0, 1),
                                            label="mean"),
                                     Sample((Arr((3, 2)), Arr((3, 2)), np.array([-1, 1, -1])), {"margin": -0.5,
                                                                                                "reduction": "none"},
                                            grad=(0, 1), label="margin_none")),
           bad=(Bad("margin", (Arr((2, 3)), Arr((2, 3)), np.array([1, -1])), {"margin": 2.0}),)),
    # -- sequences
    # MindSpore 2.10's ctc_loss gradient with respect to log_probs is exp(log_probs) - posterior, the
    # gradient with respect to the logits *before* a log_softmax (PyTorch's convention), not the
    # derivative of the loss in its own argument (-posterior).  The samples check the forward pass;
    # tests/ops/test_nnfunc_misc.py checks cellkit's gradient against finite differences.
    OpInfo("ctc_loss", (Sample((_ctc_log_probs((4, 2, 3), 1), np.array([[1, 2], [2, 2]], np.int32),
                                np.array([4, 4], np.int32), np.array([2, 2], np.int32)), label="mean"),
                        Sample((_ctc_log_probs((5, 2, 3), 2), np.array([[1, 1, 2], [2, 0, 0]], np.int32),
                                np.array([5, 3], np.int32), np.array([3, 1], np.int32)), {"reduction": "none"},
                               label="lengths_none"),
                        Sample((_ctc_log_probs((3, 1, 3), 3), np.array([[1, 0]], np.int32),
                                np.array([3], np.int32), np.array([2], np.int32), 2, "sum"), label="blank2_sum"),
                        Sample((_ctc_log_probs((2, 2, 3), 4), np.array([[1, 1], [2, 1]], np.int32),
                                np.array([2, 2], np.int32), np.array([2, 2], np.int32)),
                               {"reduction": "none"}, label="impossible")),
           ref=_ctc,
           primitive=lambda ops, lp, t, il, tl, blank=0, reduction="mean", zero_infinity=False: ops.CTCLossV2(
               blank, reduction, zero_infinity)(lp, t, il, tl),
           bad=(Bad("blank", (_ctc_log_probs((4, 2, 3), 1), np.array([[1, 2], [2, 2]], np.int32),
                              np.array([4, 4], np.int32), np.array([2, 2], np.int32)), {"blank": 3}),)),
]
