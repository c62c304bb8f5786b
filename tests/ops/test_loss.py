"""Loss functions: values (NumPy references and MindSpore numbers), gradients, errors, Primitives.

Every test runs on NumPy and on array_api_strict's ``device1``.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad

T = ms.Tensor
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# The logits MindSpore 2.10 was run on, and its results.
LOGITS = np.array([[0.12573022, -0.13210486, 0.64042264],
                   [0.10490011, -0.5356694, 0.36159506],
                   [1.304, 0.94708097, -0.70373523],
                   [-1.2654215, -0.62327445, 0.04132598]], dtype=np.float32)
LABELS = np.array([0, 2, 1, 2], np.int32)
LABELS_IGNORED = np.array([0, 2, -100, 2], np.int32)
CLASS_WEIGHT = np.array([1.0, 2.0, 0.5], np.float32)
PROBS = np.array([[0.2, 0.3, 0.5], [1, 0, 0], [0, 0.5, 0.5], [0.1, 0.1, 0.8]], np.float32)


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def ce_ref(x, target, weight=None, ignore_index=-100, reduction="mean", smoothing=0.0, from_logits=True):
    """Cross-entropy written the textbook way: gather the target, add the smoothing term."""
    axis = 1 if x.ndim > 1 else 0
    c = x.shape[axis]
    logp = _log_softmax(x, axis) if from_logits else x
    logp = np.moveaxis(logp, axis, -1)  # (..., C)
    w = np.ones(c) if weight is None else weight
    if target.dtype.kind == "f":
        t = np.moveaxis(target, axis, -1) * (1 - smoothing) + smoothing / c
        loss = -(t * w * logp).sum(-1)
        return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / loss.size}[reduction]
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    picked = np.take_along_axis(logp, safe[..., None], -1)[..., 0]
    w_y = w[safe] * valid
    nll = -picked * w_y
    smooth = -(logp * w).sum(-1) * valid
    loss = (1 - smoothing) * nll + smoothing / c * smooth
    if reduction == "mean":
        return loss.sum() / w_y.sum()
    return loss.sum() if reduction == "sum" else loss


# -- MindSpore numbers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, target, expected", [
    (dict(), LABELS, 0.89002156),
    (dict(reduction="none"), LABELS, [1.2371693, 0.779915, 0.9634839, 0.5795181]),
    (dict(reduction="sum"), LABELS, 3.5600863),
    (dict(weight=CLASS_WEIGHT), LABELS, 0.9609634),
    (dict(weight=CLASS_WEIGHT, reduction="none"), LABELS, [1.2371695, 0.38995755, 1.9269679, 0.28975904]),
    (dict(), LABELS_IGNORED, 0.86553425),
    (dict(weight=CLASS_WEIGHT), LABELS_IGNORED, 0.95844305),
    (dict(reduction="none"), LABELS_IGNORED, [1.2371695, 0.7799151, 0.0, 0.5795181]),
    (dict(label_smoothing=0.2), LABELS, 0.95939416),
    (dict(weight=CLASS_WEIGHT, label_smoothing=0.2), LABELS, 1.0666757),
    (dict(weight=CLASS_WEIGHT, reduction="none", label_smoothing=0.2), LABELS,
     [1.2956301, 0.6306945, 1.7976198, 0.542758]),
    (dict(weight=CLASS_WEIGHT, label_smoothing=0.2), LABELS_IGNORED, 1.2345413),
    (dict(weight=CLASS_WEIGHT, reduction="sum", label_smoothing=0.2), LABELS_IGNORED, 2.4690826),
    (dict(), PROBS, 1.1648322),
    (dict(reduction="none"), PROBS, [1.0571736, 1.0366099, 1.788892, 0.7766529]),
    (dict(weight=CLASS_WEIGHT), PROBS, 1.1619955),
    (dict(label_smoothing=0.2), PROBS, 1.1792425),
    (dict(weight=CLASS_WEIGHT, label_smoothing=0.2), PROBS, 1.2275013),
])
def test_loss_cross_entropy_matches_mindspore(backend, kwargs, target, expected):
    kwargs = {k: T(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    out = ops.cross_entropy(T(LOGITS), T(target), **kwargs)
    assert out.dtype is ms.float32
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=2e-6, atol=1e-6)


def test_loss_cross_entropy_spatial_and_single_sample_match_mindspore(backend):
    logits3 = np.array([[[-2.3250308, -0.21879166], [-1.245911, -0.7322674], [-0.544259, -0.31630015]],
                        [[0.41163054, 1.0425134], [-0.12853466, 1.3664634], [-0.6651947, 0.35151008]]], np.float32)
    target = T(np.array([[0, 2], [1, 1]], np.int32))
    np.testing.assert_allclose(ops.cross_entropy(T(logits3), target).asnumpy(), 1.3088717, rtol=3e-6)
    np.testing.assert_allclose(ops.cross_entropy(T(logits3), target, reduction="none").asnumpy(),
                               [[2.2901604, 1.0159993], [1.1942215, 0.735106]], rtol=3e-6)
    single = ops.cross_entropy(T(LOGITS[0]), T(np.array(2, np.int32)))
    assert single.shape == ()
    np.testing.assert_allclose(single.asnumpy(), 0.722477, rtol=3e-6)


def test_loss_nll_matches_mindspore(backend):
    logp = ops.log_softmax(T(LOGITS))
    np.testing.assert_allclose(ops.nll_loss(logp, T(LABELS)).asnumpy(), 0.8900204, rtol=1e-5)
    np.testing.assert_allclose(ops.nll_loss(logp, T(LABELS_IGNORED), T(CLASS_WEIGHT)).asnumpy(), 0.95844144,
                               rtol=1e-5)
    np.testing.assert_allclose(ops.nll_loss(logp, T(LABELS), label_smoothing=0.2).asnumpy(), 0.9593928, rtol=1e-5)
    np.testing.assert_allclose(
        ops.nll_loss(logp, T(LABELS_IGNORED), T(CLASS_WEIGHT), reduction="none").asnumpy(),
        [1.2371681, 0.3899562, 0.0, 0.2897586], rtol=1e-5)


def test_loss_mean_over_only_ignored_targets_is_nan_like_mindspore(backend):
    with np.errstate(invalid="ignore"):
        assert np.isnan(ops.cross_entropy(T(LOGITS), T(np.full(4, -100, np.int32))).asnumpy())


@pytest.mark.parametrize("fn, expected", [
    (lambda a, b: ops.mse_loss(a, b), 1.4316667),
    (lambda a, b: ops.mse_loss(a, b, "sum"), 8.59),
    (lambda a, b: ops.mse_loss(a, b, "none"), [[0.25, 0.25, 4.0], [0.09, 4.0, 0.0]]),
    (lambda a, b: ops.mse_loss(a, b[0], "none"), [[0.25, 0.25, 4.0], [1.0, 20.25, 0.04]]),
    (lambda a, b: ops.l1_loss(a, b), 0.8833334),
    (lambda a, b: ops.l1_loss(a, b, "none"), [[0.5, 0.5, 2.0], [0.3, 2.0, 0.0]]),
    (lambda a, b: ops.smooth_l1_loss(a, b), [[0.125, 0.125, 1.5], [0.045, 1.5, 0.0]]),
    (lambda a, b: ops.smooth_l1_loss(a, b, 0.5, "mean"), 0.6816667),
    (lambda a, b: ops.SmoothL1Loss()(a, b), [[0.125, 0.125, 1.5], [0.045, 1.5, 0.0]]),
])
def test_loss_regression_losses_match_mindspore(backend, fn, expected):
    a = T(np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -0.2]], np.float32))
    b = T(np.array([[1.0, -1.5, 0.0], [0.3, 1.0, -0.2]], np.float32))
    np.testing.assert_allclose(fn(a, b).asnumpy(), expected, rtol=1e-5, atol=1e-7)


def test_loss_bce_with_logits_matches_mindspore(backend):
    a = T(np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -0.2]], np.float32))
    y = T(np.array([[1.0, 0.0, 1.0], [0.0, 0.5, 1.0]], np.float32))
    np.testing.assert_allclose(ops.binary_cross_entropy_with_logits(a, y).asnumpy(), 0.65902334, rtol=1e-6)
    np.testing.assert_allclose(ops.binary_cross_entropy_with_logits(a, y, reduction="none").asnumpy(),
                               [[0.474077, 0.31326163, 0.12692805], [0.6931472, 1.5485873, 0.7981389]], rtol=1e-6)
    w, pw = T(np.array([1.0, 2.0, 3.0], np.float32)), T(np.array([0.5, 1.0, 2.0], np.float32))
    np.testing.assert_allclose(ops.binary_cross_entropy_with_logits(a, y, w, pw, reduction="none").asnumpy(),
                               [[0.2370385, 0.62652326, 0.7615683], [0.6931472, 3.0971746, 4.7888336]], rtol=1e-6)
    ones = T(np.ones(3, np.float32))
    np.testing.assert_allclose(ops.BCEWithLogitsLoss()(a, y, ones, ones).asnumpy(), 0.65902334, rtol=1e-6)


def test_loss_mse_of_integers_is_float32_like_mindspore(backend):
    out = ops.mse_loss(T([1, 2]), T([1, 3]))
    assert out.dtype is ms.float32 and out.asnumpy() == 0.5


# -- NumPy references, with generated shapes ----------------------------------------------------------------
@st.composite
def classification(draw):
    n = draw(st.integers(1, 4))
    c = draw(st.integers(2, 5))
    spatial = draw(st.sampled_from([(), (2,), (2, 3)]))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c) + spatial) * 2
    target = rng.integers(0, c, (n,) + spatial)
    if draw(st.booleans()):
        target = np.where(rng.random(target.shape) < 0.3, -100, target)
        target.flat[0] = 0  # keep at least one counted target
    weight = rng.uniform(0.2, 2.0, c) if draw(st.booleans()) else None
    probs = rng.dirichlet(np.ones(c), (n,) + spatial)
    # contiguous: tests/gradcheck.py's finite differences assume C order
    probs = np.ascontiguousarray(np.moveaxis(probs, -1, 1))
    return x, target, weight, probs


@SETTINGS
@given(case=classification(), reduction=st.sampled_from(["mean", "sum", "none"]),
       smoothing=st.sampled_from([0.0, 0.1, 0.35]))
def test_loss_cross_entropy_matches_reference_and_finite_differences(backend, case, reduction, smoothing):
    x, target, weight, probs = case
    w = None if weight is None else T(weight)
    out = ops.cross_entropy(T(x), T(target), w, reduction=reduction, label_smoothing=smoothing)
    np.testing.assert_allclose(out.asnumpy(), ce_ref(x, target, weight, -100, reduction, smoothing), rtol=1e-10)
    out_p = ops.cross_entropy(T(x), T(probs), w, reduction=reduction, label_smoothing=smoothing)
    np.testing.assert_allclose(out_p.asnumpy(), ce_ref(x, probs, weight, -100, reduction, smoothing), rtol=1e-10)
    tt = T(target)
    check_grad(lambda a: ops.cross_entropy(a, tt, w, reduction=reduction, label_smoothing=smoothing), x)
    check_grad(lambda a, p: ops.cross_entropy(a, p, w, reduction=reduction, label_smoothing=smoothing), x, probs)


@SETTINGS
@given(case=classification(), reduction=st.sampled_from(["mean", "sum", "none"]),
       smoothing=st.sampled_from([0.0, 0.2]), ignore=st.sampled_from([-100, 0, 1]))
def test_loss_nll_matches_reference_and_finite_differences(backend, case, reduction, smoothing, ignore):
    x, target, weight, _ = case
    target = np.where(target == -100, ignore, target)
    logp = _log_softmax(x, 1)
    if reduction == "mean" and not (target != ignore).any():
        target.flat[0] = 1 - abs(ignore) % 2  # keep at least one counted target
    w = None if weight is None else T(weight)
    out = ops.nll_loss(T(logp), T(target), w, ignore, reduction, smoothing)
    np.testing.assert_allclose(out.asnumpy(), ce_ref(logp, target, weight, ignore, reduction, smoothing, False),
                               rtol=1e-10)
    tt = T(target)
    check_grad(lambda a: ops.nll_loss(a, tt, w, ignore, reduction, smoothing), logp)


@SETTINGS
@given(seed=st.integers(0, 2 ** 16), reduction=st.sampled_from(["mean", "sum", "none"]),
       broadcast=st.booleans(), beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_loss_regression_losses_match_reference_and_finite_differences(backend, seed, reduction, broadcast, beta):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((4,) if broadcast else (3, 4))
    diff = a - b
    reduce = {"none": lambda v: v, "sum": np.sum, "mean": np.mean}[reduction]
    np.testing.assert_allclose(ops.mse_loss(T(a), T(b), reduction).asnumpy(), reduce(diff ** 2), rtol=1e-12)
    np.testing.assert_allclose(ops.l1_loss(T(a), T(b), reduction).asnumpy(), reduce(np.abs(diff)), rtol=1e-12)
    check_grad(lambda p, q: ops.mse_loss(p, q, reduction), a, b)
    check_grad(lambda p, q: ops.l1_loss(p, q, reduction), a, b)
    b_full = np.broadcast_to(b, a.shape).copy()
    d = a - b_full
    huber = np.where(np.abs(d) < beta, 0.5 * d * d / beta, np.abs(d) - 0.5 * beta)
    np.testing.assert_allclose(ops.smooth_l1_loss(T(a), T(b_full), beta, reduction).asnumpy(), reduce(huber),
                               rtol=1e-12)
    check_grad(lambda p, q: ops.smooth_l1_loss(p, q, beta, reduction), a, b_full)


@SETTINGS
@given(seed=st.integers(0, 2 ** 16), reduction=st.sampled_from(["mean", "sum", "none"]),
       weighted=st.booleans(), pos=st.booleans())
def test_loss_binary_cross_entropies_match_reference_and_finite_differences(backend, seed, reduction, weighted, pos):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4)) * 3
    y = rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2, (4,)) if weighted else None
    pw = rng.uniform(0.5, 2, (4,)) if pos else None
    reduce = {"none": lambda v: v, "sum": np.sum, "mean": np.mean}[reduction]
    p = 1 / (1 + np.exp(-x))
    ref = -((1 if pw is None else pw) * y * np.log(p) + (1 - y) * np.log(1 - p)) * (1 if w is None else w)
    wt = None if w is None else T(w)
    pwt = None if pw is None else T(pw)
    out = ops.binary_cross_entropy_with_logits(T(x), T(y), wt, pwt, reduction)
    np.testing.assert_allclose(out.asnumpy(), reduce(ref), rtol=1e-10)
    check_grad(lambda a, t: ops.binary_cross_entropy_with_logits(a, t, wt, pwt, reduction), x, y)
    ref_p = -(y * np.log(p) + (1 - y) * np.log(1 - p)) * (1 if w is None else w)
    np.testing.assert_allclose(ops.binary_cross_entropy(T(p), T(y), wt, reduction).asnumpy(), reduce(ref_p),
                               rtol=1e-10)
    # finite differences need p well inside (0, 1): the slope 1/p is steep near 0
    check_grad(lambda a, t: ops.binary_cross_entropy(a, t, wt, reduction), np.clip(p, 0.05, 0.95), y)


def test_loss_binary_cross_entropy_clamps_log_of_zero(backend):
    out = ops.binary_cross_entropy(T([0.0, 1.0]), T([1.0, 0.0]), reduction="none")
    np.testing.assert_allclose(out.asnumpy(), [100.0, 100.0])


def test_loss_records_nothing_outside_a_gradient_transform(backend):
    assert ops.cross_entropy(T(LOGITS), T(LABELS))._node is None
    assert ops.mse_loss(T(LOGITS), T(LOGITS))._node is None


# -- errors -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: ops.mse_loss(T([1.0]), T([1.0]), "avg"),
    lambda: ops.l1_loss(T([1.0]), T([1.0]), reduction="avg"),
    lambda: ops.smooth_l1_loss(T([1.0]), T([1.0]), 1.0, "avg"),
    lambda: ops.cross_entropy(T(LOGITS), T(LABELS), reduction="avg"),
    lambda: ops.nll_loss(T(LOGITS), T(LABELS), reduction="avg"),
    lambda: ops.binary_cross_entropy_with_logits(T([1.0]), T([1.0]), reduction="avg"),
    lambda: ops.binary_cross_entropy(T([0.5]), T([1.0]), reduction="avg"),
    lambda: ops.NLLLoss(reduction="avg"),
])
def test_loss_bad_reduction_raises_value_error_naming_it(backend, call):
    with pytest.raises(ValueError, match="'reduction'.*'avg'"):
        call()


def test_loss_cross_entropy_rejects_bad_targets(backend):
    x = T(LOGITS)
    with pytest.raises(ValueError, match="target.*shape"):
        ops.cross_entropy(x, T(np.array([0, 1], np.int32)))
    with pytest.raises(ValueError, match="class index"):
        ops.cross_entropy(x, T(np.array([0, 1, 5, 1], np.int32)))
    with pytest.raises(ValueError, match="probability targets"):
        ops.cross_entropy(x, T(np.array([0.0, 1.0, 2.0, 1.0], np.float32)))
    with pytest.raises(TypeError, match="class indices"):
        ops.nll_loss(x, T(PROBS))
    with pytest.raises(TypeError, match="class indices"):
        ops.cross_entropy(x, T(np.array([True, False, True, True])))
    with pytest.raises(ValueError, match="label_smoothing"):
        ops.cross_entropy(x, T(LABELS), label_smoothing=1.5)
    with pytest.raises(ValueError, match="weight"):
        ops.cross_entropy(x, T(LABELS), T(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="ignore_index"):
        ops.cross_entropy(x, T(LABELS), ignore_index=1.5)


def test_loss_regression_losses_reject_bad_shapes_and_arguments(backend):
    with pytest.raises(ValueError, match="shape"):
        ops.mse_loss(T(np.ones((2, 3))), T(np.ones((2, 2))))
    with pytest.raises(ValueError, match="same shape"):
        ops.smooth_l1_loss(T(np.ones((2, 3))), T(np.ones(3)))
    with pytest.raises(ValueError, match="beta"):
        ops.smooth_l1_loss(T([1.0]), T([1.0]), beta=0.0)
    with pytest.raises(ValueError, match="same shape"):
        ops.binary_cross_entropy_with_logits(T(np.ones((2, 3))), T(np.ones(3)))


# -- Primitives ---------------------------------------------------------------------------------------
def test_loss_softmax_cross_entropy_primitive_matches_mindspore(backend):
    logits = T(np.array([[2.0, 1.0, 0.1], [0.5, 0.5, 3.0]], np.float32))
    labels = T(np.array([[1, 0, 0], [0, 0, 1]], np.float32))
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(logits, labels)
    np.testing.assert_allclose(loss.asnumpy(), [4.17029947e-01, 1.52008414e-01], rtol=1e-6)
    np.testing.assert_allclose(backprop.asnumpy(), [[-3.40998828e-01, 2.42432997e-01, 9.85658988e-02],
                                                    [7.05094561e-02, 7.05094561e-02, -1.41018927e-01]], rtol=1e-5)
    sparse = ops.SparseSoftmaxCrossEntropyWithLogits()(logits, T(np.array([0, 2], np.int32)))
    np.testing.assert_allclose(sparse.asnumpy(), 0.28451884, rtol=3e-6)
    dlogits = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, T(np.array([0, 2], np.int32)))
    np.testing.assert_allclose(dlogits.asnumpy(), backprop.asnumpy() / 2, rtol=1e-5)
    loss, total = ops.NLLLoss()(ops.log_softmax(logits), T(np.array([0, 2], np.int32)), T(np.ones(3, np.float32)))
    np.testing.assert_allclose(loss.asnumpy(), 0.284517, rtol=1e-5)
    assert total.asnumpy() == 2
    check_grad(lambda z: ops.SoftmaxCrossEntropyWithLogits()(z, T(np.array([[0.3, 0.7], [1.0, 0.0]])))[0],
               np.array([[0.2, -1.0], [2.0, 0.5]]))
