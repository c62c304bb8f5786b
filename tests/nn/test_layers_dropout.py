"""nn.Dropout: identity in inference, scaled masks in training, reproducibility, gradients, errors.

Runs on NumPy and on array_api_strict's ``device1``.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as backend_mod
from cellkit import nn
from tests.gradcheck import check_grad

T = ms.Tensor


def test_dropout_is_identity_in_inference(backend):
    x = T(np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32))
    drop = nn.Dropout(p=0.5)
    assert drop.training is False and drop(x) is x            # a new Cell is in inference mode
    drop.set_train(True)
    drop.set_train(False)
    assert drop(x) is x


def test_dropout_in_training_zeroes_about_p_and_scales_the_rest(backend):
    x = np.random.default_rng(1).uniform(1, 2, (200, 100)).astype(np.float32)
    ms.set_seed(0)
    out = nn.Dropout(p=0.3).set_train()(T(x)).asnumpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.01   # 20000 draws: the standard deviation is 0.003
    ms.set_seed(0)
    out = nn.Dropout(keep_prob=0.8).set_train()(T(x)).asnumpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / 0.8, rtol=1e-6)
    assert abs(kept.mean() - 0.8) < 0.01


def test_dropout_is_reproducible_under_set_seed(backend):
    x = T(np.ones((6, 7), np.float32))
    drop = nn.Dropout(p=0.5).set_train()
    ms.set_seed(3)
    first, second = drop(x).asnumpy(), drop(x).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(drop(x).asnumpy(), first)
    np.testing.assert_array_equal(drop(x).asnumpy(), second)
    assert not np.array_equal(first, second)   # a new mask on every call


def test_dropout_gives_the_same_masks_on_every_backend():
    results = []
    for name in ("numpy", "strict"):
        with backend_mod.use(name):
            ms.set_seed(9)
            results.append(nn.Dropout(p=0.4).set_train()(T(np.ones((5, 8), np.float32))).asnumpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_dropout_with_nothing_to_drop_is_identity_in_training(backend):
    x = T([1.0, 2.0, 3.0])
    assert nn.Dropout(p=0).set_train()(x) is x
    assert nn.Dropout(keep_prob=1.0).set_train()(x) is x


def test_dropout_p_takes_precedence_over_keep_prob(backend):
    # MindSpore 2.10 would return x here (it also tests keep_prob == 1); cellkit uses p alone.
    drop = nn.Dropout(keep_prob=1.0, p=0.5).set_train()
    ms.set_seed(1)
    out = drop(T(np.ones(1000, np.float32))).asnumpy()
    assert set(np.unique(out)) == {0.0, 2.0}


def test_dropout_follows_set_train_of_its_parent(backend):
    net = nn.SequentialCell(nn.Dense(3, 3), nn.Dropout(p=0.9))
    x = T(np.ones((50, 3), np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), net(x).asnumpy())
    net.set_train()
    ms.set_seed(0)
    assert (net(x).asnumpy() == 0).mean() > 0.5


def test_dropout_gradient_uses_the_same_mask(backend):
    drop = nn.Dropout(p=0.4).set_train()

    def seeded(x):
        ms.set_seed(7)   # every evaluation draws the same mask
        return drop(x)

    grads = check_grad(seeded, np.random.default_rng(2).standard_normal((3, 4)))
    ms.set_seed(7)
    mask = drop(T(np.ones((3, 4)))).asnumpy()
    assert grads[0].shape == (3, 4)
    assert set(np.unique(mask)) <= {0.0, 1 / 0.6}


def test_dropout_repr_matches_mindspore():
    assert repr(nn.Dropout()) == "Dropout(keep_prob=0.5)"
    assert repr(nn.Dropout(keep_prob=0.8)) == "Dropout(keep_prob=0.8)"
    assert repr(nn.Dropout(p=0.2)) == "Dropout(p=0.2)"


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(keep_prob=1), TypeError, "keep_prob"),
    (dict(keep_prob=0.0), ValueError, "keep_prob"),
    (dict(keep_prob=1.5), ValueError, "keep_prob"),
    (dict(p=1), ValueError, "'p'"),
    (dict(p=-0.1), ValueError, "'p'"),
    (dict(p="a"), TypeError, "'p'"),
    (dict(p=True), TypeError, "'p'"),
])
def test_dropout_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    with pytest.raises(error, match=word):
        nn.Dropout(**kwargs)
