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
