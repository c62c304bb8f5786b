"""The NumPy fast paths of conv2d and max pooling agree with the portable code and direct loops.

``cellkit/ops/_conv_numpy.py`` (row-flattened windows, im2col in one
copy, col2im by row shifts) and ``_pool_numpy.py`` (winner noted in the forward
pass) are checked here against the portable array-API code, which
shares none of their tricks (``conv_grads`` for convolutions), over geometries drawn by hypothesis: strides,
dilations, asymmetric paddings and groups.  Every case runs twice, the
second time on the buffers the first one left in the cache, filled with NaN.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cellkit as ms
from cellkit import buffer_cache, ops
from cellkit.ops import _conv_numpy, _pool_numpy, conv_grads, nn_ops
from tests.ops.test_conv_pool import max_pool_ref


@st.composite
def conv_geometries(draw):
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    c = groups * draw(st.integers(1, 2))
    o = groups * draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, 2)) for _ in range(4))
    reach_h, reach_w = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    h = draw(st.integers(max(1, reach_h - pads[0] - pads[1]), 9))
    w = draw(st.integers(max(1, reach_w - pads[2] - pads[3]), 9))
    n = draw(st.integers(1, 5))
    return (n, c, h, w), (o, c // groups, kh, kw), stride, dilation, pads, groups


def _portable(X, W, g, stride, dilation, pads, groups, ho, wo):
    """Output and both gradients by conv_grads' array-API code (no fast path)."""
    geometry = conv_grads.ConvGeometry(X.shape, W.shape, pads, stride, dilation, groups, ho, wo)
    out = conv_grads.conv_forward_array(X, W, geometry)
    gx = conv_grads.input_grad_array(g, W, geometry)
    gw = conv_grads.weight_grad_array(X, g, geometry)
    return out, gx, gw


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(conv_geometries())
def test_conv_fast_path_matches_the_portable_code(geometry):
    x_shape, w_shape, stride, dilation, pads, groups = geometry
    saved, buffer_cache.MIN_BYTES = buffer_cache.MIN_BYTES, 0  # cache even these small buffers
    try:
        _check_against_portable(x_shape, w_shape, stride, dilation, pads, groups)
    finally:
        buffer_cache.MIN_BYTES = saved
        buffer_cache.clear()


def _check_against_portable(x_shape, w_shape, stride, dilation, pads, groups):
    rng = np.random.default_rng(sum(x_shape) * 1000 + sum(w_shape) * 10 + groups)
    X = rng.standard_normal(x_shape)
    W = rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[0])
    ho = nn_ops._out_size(x_shape[2], w_shape[2], stride[0], dilation[0], pads[0], pads[1])
    wo = nn_ops._out_size(x_shape[3], w_shape[3], stride[1], dilation[1], pads[2], pads[3])
    g = rng.standard_normal((x_shape[0], w_shape[0], ho, wo))
    out_ref, gx_ref, gw_ref = _portable(X, W, g, stride, dilation, pads, groups, ho, wo)
    for _ in range(2):  # the second round runs on the buffers the first one left, poisoned
        plan = _conv_numpy.Plan(x_shape, w_shape, pads, stride, dilation, groups, ho, wo)
        out, cols = _conv_numpy.forward(X, W, b, plan)
        gx, gw = _conv_numpy.backward(g, cols, W, plan, True, True)
        np.testing.assert_allclose(out, out_ref + b[None, :, None, None], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(gx, gx_ref, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(gw, gw_ref, rtol=1e-10, atol=1e-10)
        del out, cols, gx, gw
        _poison_idle_buffers()


def _poison_idle_buffers():
    """Fill every cached float buffer with NaN: a value the code forgot to write then shows up.

    Call it only when the buffers are idle (nothing of the last run is still held).
    """
    for buffers in buffer_cache._buffers.values():
        for buffer in buffers:
            if buffer.dtype.kind == "f":
                buffer.fill(np.nan)


@pytest.mark.parametrize("dilation, groups", [((1, 1), 1), ((2, 1), 1), ((1, 2), 2), ((2, 2), 3)])
def test_col2im_by_row_shifts_equals_col2im_by_windows(dilation, groups):
    """The two input-gradient forms give the same sums wherever the row-shift form applies."""
    rng = np.random.default_rng(3)
    x_shape, w_shape = (3, 6, 9, 20), (6, 6 // groups, 3, 4)
    plan = _conv_numpy.Plan(x_shape, w_shape, (1, 2, 0, 1), (1, 1), dilation, groups,
                            nn_ops._out_size(9, 3, 1, dilation[0], 1, 2), nn_ops._out_size(20, 4, 1, dilation[1], 0, 1))
    assert plan.row == plan.wp  # full rows: the row-shift form applies
    W = rng.standard_normal(w_shape)
    g_mat = _conv_numpy._grad_matrix(rng.standard_normal((3, 6, plan.ho, plan.wo)), plan).copy()
    by_windows = np.zeros((plan.c, plan.n, plan.length))
    by_rows = np.zeros((plan.c, plan.n, plan.length))
    _conv_numpy._col2im(g_mat, W, by_windows, plan)
    _conv_numpy._col2im_by_rows(g_mat, W, by_rows, plan)
    np.testing.assert_allclose(by_rows, by_windows, rtol=1e-12, atol=1e-12)
    assert np.abs(by_windows).sum() > 0


def test_conv_gradient_is_not_overwritten_by_the_next_step():
    """A gradient handed out from a cached buffer stays intact while the caller holds it."""
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((4, 2, 9, 9)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((3, 2, 3, 3)).astype(np.float32))
    grad_x = ms.grad(lambda x: ops.conv2d(x, w).sum())
    first = grad_x(x)
    kept = first.asnumpy().copy()
    for _ in range(3):
        grad_x(ms.Tensor(rng.standard_normal((4, 2, 9, 9)).astype(np.float32)))
    np.testing.assert_array_equal(first.asnumpy(), kept)
    buffer_cache.clear()


# -- max pooling over tiles --------------------------------------------------------------------------
@settings(max_examples=100)
@given(n=st.integers(1, 3), c=st.integers(1, 3), kh=st.integers(1, 3), kw=st.integers(1, 3),
       extra_h=st.integers(0, 2), extra_w=st.integers(0, 2), ho=st.integers(1, 4), wo=st.integers(1, 4),
       levels=st.sampled_from([2, 3, 100]), nan=st.booleans())
def test_max_pool_tiles_matches_direct_loops_with_ties_and_nan(n, c, kh, kw, extra_h, extra_w, ho, wo, levels, nan):
    rng = np.random.default_rng(n * 1000 + kh * 100 + kw * 10 + levels)
    # Rows and columns past the last whole tile (fewer than a tile) are left out of every window.
    x = rng.integers(0, levels, (n, c, ho * kh + extra_h % kh, wo * kw + extra_w % kw)).astype(np.float32)
    if nan:
        x[tuple(rng.integers(0, s) for s in x.shape)] = np.nan
    best, winner = _pool_numpy.forward(x, (kh, kw), ho, wo, True)
    values, index = max_pool_ref(np.nan_to_num(x, nan=np.inf), (kh, kw), (kh, kw), (0, 0, 0, 0), (1, 1))
    np.testing.assert_array_equal(np.isnan(best), np.isinf(values))
    np.testing.assert_array_equal(best[~np.isnan(best)], values[~np.isinf(values)])
    rows, cols = np.divmod(index, x.shape[3])
    np.testing.assert_array_equal(winner, (rows % kh) * kw + cols % kw)
    g = rng.standard_normal(best.shape).astype(np.float32)
    dx = _pool_numpy.backward(g, winner, (kh, kw), x.shape)
    expected = np.zeros(x.shape, np.float32)
    for a in range(n):
        for b in range(c):
            np.add.at(expected[a, b].reshape(-1), index[a, b].reshape(-1), g[a, b].reshape(-1))
    np.testing.assert_array_equal(dx, expected)
