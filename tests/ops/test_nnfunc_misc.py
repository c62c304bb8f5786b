"""nn functionals the generated catalogue tests cannot cover alone."""
import numpy as np

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad, check_second_order


def test_channel_shuffle_gradient_matches_finite_differences():
    # MindSpore 2.10 defines no gradient for ChannelShuffle, so the catalogue records only its forward pass.
    x = np.arange(12.0).reshape(1, 6, 2, 1) / 5.0

    def fn(t):
        return ops.channel_shuffle(t, 3)

    check_grad(fn, x)
    check_second_order(fn, x)


def test_ctc_loss_gradient_matches_finite_differences_to_second_order():
    rng = np.random.default_rng(0)
    log_probs = np.log(rng.dirichlet(np.ones(3), (4, 2)))
    targets = ms.Tensor(np.array([[1, 2], [2, 2]]))

    def fn(t):
        return ops.ctc_loss(t, targets, (4, 4), (2, 2), 0, "none")[0]

    check_grad(fn, log_probs)
    check_second_order(fn, log_probs)


def test_ctc_loss_zero_infinity_zeroes_impossible_alignments():
    # MindSpore 2.10 returns inf here even with zero_infinity=True, against its docs ("set infinite loss ... to 0").
    rng = np.random.default_rng(1)
    log_probs = ms.Tensor(np.log(rng.dirichlet(np.ones(3), (2, 2))).astype(np.float32))
    targets = ms.Tensor(np.array([[1, 1], [2, 1]], np.int32))
    loss, _ = ops.ctc_loss(log_probs, targets, (2, 2), (2, 2), reduction="none")
    assert np.isinf(loss.asnumpy()[0]) and np.isfinite(loss.asnumpy()[1])
    zeroed, _ = ops.ctc_loss(log_probs, targets, (2, 2), (2, 2), reduction="none", zero_infinity=True)
    assert zeroed.asnumpy()[0] == 0 and zeroed.asnumpy()[1] == loss.asnumpy()[1]
    g = ms.grad(lambda t: ops.ctc_loss(t, targets, (2, 2), (2, 2), reduction="sum", zero_infinity=True)[0])(log_probs)
    assert np.isfinite(g.asnumpy()).all() and (g.asnumpy()[:, 0] == 0).all()


def test_bounding_box_codings_differentiate_like_their_formulas():
    # MindSpore 2.10 defines no gradient for BoundingBoxEncode/Decode; cellkit's come from the arithmetic.
    anchors = np.array([[2.0, 2.0, 4.0, 5.0], [0.0, 1.0, 3.0, 2.0]])
    truth = np.array([[1.0, 2.0, 4.0, 6.0], [1.0, 0.0, 3.0, 3.0]])
    check_grad(lambda a, g: ops.bounding_box_encode(a, g), anchors, truth)
    check_second_order(lambda a, g: ops.bounding_box_encode(a, g), anchors, truth)
    deltas = np.array([[0.1, -0.2, 0.3, 0.05], [-0.3, 0.2, -0.1, 0.4]])
    check_grad(lambda a, d: ops.bounding_box_decode(a, d, (20, 15)), anchors, deltas)
    check_second_order(lambda a, d: ops.bounding_box_decode(a, d, (20, 15)), anchors, deltas)
