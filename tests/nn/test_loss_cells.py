"""Loss Cells: LossBase, MSELoss, L1Loss, SoftmaxCrossEntropyWithLogits, CrossEntropyLoss.

(Named ``test_loss_cells.py``: ``tests/ops/test_loss.py`` already holds the
module name ``test_loss`` in this package-less test tree.)

Runs on NumPy and on array_api_strict's ``device1``.  Values marked
MindSpore were printed by MindSpore 2.10 (CPU) for the same inputs.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from tests.gradcheck import check_grad

T = ms.Tensor
LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [2.0, 2.0, -2.0], [0.0, 0.3, 0.6]], np.float32)
LABELS = np.array([1, 2, 0, 2], np.int32)
PROBS = np.array([[0.2, 0.7, 0.1], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4]], np.float32)
WEIGHT = np.array([0.5, 2.0, 1.0], np.float32)
A = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
B = np.array([0.5, 1.0], np.float32)


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def reduce(values, reduction):
    return {"none": values, "mean": values.mean(), "sum": values.sum()}[reduction]


# -- LossBase ----------------------------------------------------------------------------------------------------
def test_lossbase_get_loss_weights_and_reduces_like_mindspore(backend):
    a = T(A)
    assert float(nn.LossBase("sum").get_loss(a, T(np.array([[1.0], [2.0]], np.float32))).asnumpy()) == 7.0
    np.testing.assert_array_equal(nn.LossBase("none").get_loss(a, 2.0).asnumpy(), [[2, 4], [6, -2]])
    assert float(nn.LossBase().get_loss(a).asnumpy()) == 1.25
    assert nn.LossBase().get_axis(a) == (0, 1)
    assert nn.LossBase().get_loss(a).dtype is ms.float32


def test_lossbase_attributes_and_construct():
    base = nn.LossBase("sum")
    assert (base.reduction, base.reduce, base.average) == ("sum", True, False)
    assert (nn.LossBase().reduce, nn.LossBase().average) == (True, True)
    assert nn.LossBase("none").reduce is False
    with pytest.raises(NotImplementedError):
        base(T(A), T(A))
    assert repr(base) == "LossBase()"


def test_lossbase_subclass_gets_gradients_through_get_loss(backend):
    class Cubic(nn.LossBase):
        def construct(self, logits, labels):
            diff = logits - labels
            return self.get_loss(diff * diff * diff, T(np.array([1.0, 2.0, 3.0])))

    rng = np.random.default_rng(0)
    for reduction in ("mean", "sum", "none"):
        check_grad(Cubic(reduction), rng.standard_normal((2, 3)), rng.standard_normal((2, 3)))


def test_lossbase_get_loss_of_float16_is_computed_in_float32_and_returned_as_float16():
    out = nn.LossBase("sum").get_loss(T(np.full(3, 40000.0, np.float16)), 0.5)
    assert out.dtype is ms.float16 and float(out.asnumpy()) == 60000.0   # the sum of the inputs would overflow


@pytest.mark.parametrize("cls", [nn.LossBase, nn.MSELoss, nn.L1Loss, nn.CrossEntropyLoss])
def test_bad_reduction_raises_value_error_naming_it(cls):
    with pytest.raises(ValueError, match="reduction"):
        cls(reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="elementwise")


# -- MSELoss and L1Loss ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction, mse, l1", [
    ("none", [[0.25, 1.0], [6.25, 4.0]], [[0.5, 1.0], [2.5, 2.0]]),
    ("mean", 2.875, 1.5),
    ("sum", 11.5, 6.0),
])
def test_mse_and_l1_match_mindspore(backend, reduction, mse, l1):
    np.testing.assert_allclose(nn.MSELoss(reduction)(T(A), T(B)).asnumpy(), mse)
    np.testing.assert_allclose(nn.L1Loss(reduction)(T(A), T(B)).asnumpy(), l1)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_and_l1_gradients_match_finite_differences(backend, reduction):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((4,))   # broadcasting labels
    check_grad(nn.MSELoss(reduction), x, y)
    check_grad(nn.L1Loss(reduction), x, y)


def test_mse_and_l1_refuse_non_tensors_and_unbroadcastable_shapes(backend):
    for loss in (nn.MSELoss(), nn.L1Loss()):
        with pytest.raises(TypeError, match="logits"):
            loss(np.ones(2), T(B))
        with pytest.raises(TypeError, match="labels"):
            loss(T(A), 1.0)
        with pytest.raises(ValueError, match="broadcast"):
            loss(T(A), T(np.ones(3, np.float32)))


# -- SoftmaxCrossEntropyWithLogits -------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction, sparse_expected, dense_expected", [
    ("none", [0.4643688, 0.07077423, 0.7022633, 0.8283902], [0.81436884, 0.07077423, 0.7022633, 1.0983902]),
    ("mean", 0.51644886, 0.6714491),
    ("sum", 2.0657964, 2.6857965),
])
def test_softmax_cross_entropy_matches_mindspore(backend, reduction, sparse_expected, dense_expected):
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)(T(LOGITS), T(LABELS))
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)(T(LOGITS), T(PROBS))
    np.testing.assert_allclose(sparse.asnumpy(), sparse_expected, rtol=1e-5)
    np.testing.assert_allclose(dense.asnumpy(), dense_expected, rtol=1e-5)


def test_softmax_cross_entropy_default_is_dense_and_unreduced(backend):
    loss = nn.SoftmaxCrossEntropyWithLogits()
    assert loss.sparse is False and loss.reduction == "none"
    expected = -(PROBS * log_softmax(LOGITS.astype(np.float64))).sum(axis=1)
    np.testing.assert_allclose(loss(T(LOGITS), T(PROBS)).asnumpy(), expected, rtol=1e-6)
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(T(LOGITS), T(LABELS.astype(np.int64)))
    np.testing.assert_allclose(sparse.asnumpy(), -log_softmax(LOGITS.astype(np.float64))[np.arange(4), LABELS],
                               rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_softmax_cross_entropy_gradients_match_finite_differences(backend, reduction):
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((3, 4))
    probs = rng.dirichlet(np.ones(4), 3)
    check_grad(nn.SoftmaxCrossEntropyWithLogits(reduction=reduction), logits, probs)
    labels = T(np.array([3, 0, 1], np.int32))
    check_grad(lambda z: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)(z, labels), logits)


def test_softmax_cross_entropy_checks_its_inputs(backend):
    with pytest.raises(TypeError, match="sparse"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=1)
    loss, sparse = nn.SoftmaxCrossEntropyWithLogits(), nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    with pytest.raises(TypeError, match="logits"):
        loss(LOGITS, T(PROBS))
    with pytest.raises(ValueError, match="2-D"):
        loss(T(LOGITS[0]), T(PROBS[0]))
    with pytest.raises(ValueError, match="shape"):
        loss(T(LOGITS), T(PROBS[:3]))
    with pytest.raises(TypeError, match="labels"):
        loss(T(LOGITS), T(np.ones((4, 3), np.int32)))
    with pytest.raises(TypeError, match="labels"):
        sparse(T(LOGITS), T(LABELS.astype(np.float32)))
    with pytest.raises(ValueError, match="labels"):
        sparse(T(LOGITS), T(LABELS[:3]))


# -- CrossEntropyLoss ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, labels, expected", [
    (dict(weight=WEIGHT, reduction="none"), LABELS, [0.9287367, 0.07077408, 0.35113156, 0.8283895]),
    (dict(weight=WEIGHT), LABELS, 0.4842293),
    (dict(weight=WEIGHT, reduction="sum"), LABELS, 2.1790318),
    (dict(ignore_index=2), LABELS, 0.58331573),
    (dict(label_smoothing=0.2), LABELS, 0.7547821),
    (dict(weight=WEIGHT, ignore_index=0, label_smoothing=0.1), LABELS, 0.55396396),
    (dict(), PROBS, 0.6714489),
    (dict(weight=WEIGHT, label_smoothing=0.3), PROBS, 1.1432493),
])
def test_cross_entropy_loss_matches_mindspore(backend, kwargs, labels, expected):
    if "weight" in kwargs:
        kwargs = dict(kwargs, weight=T(kwargs["weight"]))
    out = nn.CrossEntropyLoss(**kwargs)(T(LOGITS), T(labels))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)


def test_cross_entropy_loss_takes_extra_axes_and_unbatched_logits(backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 2)).astype(np.float32)
    y = np.array([[0, 2], [1, 1]], np.int32)
    out = nn.CrossEntropyLoss(reduction="none")(T(x), T(y))
    np.testing.assert_allclose(out.asnumpy(), [[1.1597862, 0.8687662], [2.2544677, 2.627035]], rtol=1e-5)   # MindSpore
    expected = -np.take_along_axis(log_softmax(x.astype(np.float64), axis=1), y[:, None], axis=1)[:, 0]
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    single = nn.CrossEntropyLoss()(T(LOGITS[0]), T(np.array(1, np.int32)))
    np.testing.assert_allclose(single.asnumpy(), 0.46436834, rtol=1e-5)                                      # MindSpore


def test_cross_entropy_loss_mean_divides_by_the_weight_of_counted_targets(backend):
    logp = log_softmax(LOGITS.astype(np.float64))
    picked = logp[np.arange(4), LABELS]
    w = WEIGHT[LABELS] * (LABELS != 0)
    out = nn.CrossEntropyLoss(weight=T(WEIGHT), ignore_index=0)(T(LOGITS), T(LABELS))
    np.testing.assert_allclose(out.asnumpy(), -(w * picked).sum() / w.sum(), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_loss_gradients_match_finite_differences(backend, reduction):
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((4, 3, 2))
    labels = T(np.array([[0, 2], [1, 1], [2, -100], [0, 1]], np.int64))
    weight = T(np.array([0.5, 2.0, 1.0]))
    loss = nn.CrossEntropyLoss(weight=weight, reduction=reduction, label_smoothing=0.1)
    check_grad(lambda z: loss(z, labels), logits)
    probs = rng.dirichlet(np.ones(3), 4)
    check_grad(nn.CrossEntropyLoss(reduction=reduction, label_smoothing=0.2), logits[:, :, 0], probs)


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(ignore_index=1.0), TypeError, "ignore_index"),
    (dict(label_smoothing=0), TypeError, "label_smoothing"),
    (dict(label_smoothing=1.5), ValueError, "label_smoothing"),
    (dict(weight=np.ones(3)), TypeError, "weight"),
    (dict(weight=T(np.ones(3, np.int32))), TypeError, "weight"),
])
def test_cross_entropy_loss_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    with pytest.raises(error, match=word):
        nn.CrossEntropyLoss(**kwargs)


def test_cross_entropy_loss_checks_its_inputs(backend):
    loss = nn.CrossEntropyLoss()
    with pytest.raises(TypeError, match="logits"):
        loss(LOGITS, T(LABELS))
    with pytest.raises(TypeError, match="logits"):
        loss(T(LABELS), T(LABELS[:1].reshape(())))
    with pytest.raises(TypeError, match="labels"):
        loss(T(LOGITS), T(PROBS.astype(np.int32)))
    with pytest.raises(TypeError, match="labels"):
        loss(T(LOGITS), T(LABELS.astype(np.float32)))
    with pytest.raises(ValueError, match="shape"):
        loss(T(LOGITS), T(LABELS[:3]))
    with pytest.raises(ValueError, match="shape"):
        loss(T(LOGITS), T(PROBS[:3]))
    with pytest.raises(ValueError, match="rank"):
        loss(T(LOGITS), T(LABELS[:, None, None]))


def test_loss_reprs_match_mindspore():
    assert [repr(c) for c in (nn.MSELoss(), nn.L1Loss(), nn.SoftmaxCrossEntropyWithLogits(sparse=True),
                              nn.CrossEntropyLoss())] == \
        ["MSELoss()", "L1Loss()", "SoftmaxCrossEntropyWithLogits()", "CrossEntropyLoss()"]
