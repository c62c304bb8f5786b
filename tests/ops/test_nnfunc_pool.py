"""Pooling behaviour the generated catalogue tests cannot show."""
import numpy as np

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad, check_second_order


def _distinct(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.permutation(np.prod(shape)).reshape(shape) / 7.0 - 1.0


def test_fractional_max_pool2d_gradient_matches_finite_differences():
    # MindSpore 2.10's CPU build has no gradient kernel for it: finite differences are the reference.
    x = _distinct(1, 2, 4, 5)
    samples = ms.Tensor(np.array([[[0.3, 0.7], [0.1, 0.5]]]))

    def fn(t):
        return ops.fractional_max_pool2d(t, (2, 2), output_size=(2, 3), _random_samples=samples)

    check_grad(fn, x)
    check_second_order(fn, x)


def test_fractional_max_pool2d_draws_its_windows_when_no_samples_are_given():
    x = ms.Tensor(_distinct(1, 1, 9, 9).astype(np.float32))
    ms.set_seed(4)
    a, ia = ops.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    ms.set_seed(4)
    b, ib = ops.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    assert a.shape == (1, 1, 4, 4)
    np.testing.assert_array_equal(ia.asnumpy(), ib.asnumpy())
    # every index really holds its window's value
    np.testing.assert_array_equal(x.asnumpy().reshape(-1)[ia.asnumpy().reshape(-1)], a.asnumpy().reshape(-1))


def test_max_pool3d_then_unpool_puts_each_maximum_back():
    x = ms.Tensor(_distinct(1, 2, 4, 4, 4).astype(np.float32))
    out, idx = ops.max_pool3d(x, 2, return_indices=True)
    back = ops.max_unpool3d(out, idx, 2).asnumpy()
    kept = back != 0
    assert kept.sum() == out.size
    np.testing.assert_array_equal(back[kept], x.asnumpy()[kept])


def test_max_pooling_lets_nan_win_its_window():
    x = np.arange(8.0, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    x[0, 0, 0, 1, 0] = np.nan
    out, idx = ops.max_pool3d(ms.Tensor(x), 2, return_indices=True)
    assert np.isnan(out.asnumpy()).all() and idx.asnumpy().item() == 2
