"""nn.MaxPool2d and nn.AvgPool2d: values against a NumPy reference and MindSpore 2.10, gradients, errors.

Runs on NumPy and on array_api_strict's ``device1``.  The MindSpore numbers
were printed by MindSpore 2.10 (CPU) for the same inputs: ``XR`` (random)
and ``XA`` (small integers, so averages are easy to read).
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from tests.gradcheck import check_grad

T = ms.Tensor
XR = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32)
XA = (np.arange(2 * 5 * 5, dtype=np.float32).reshape(1, 2, 5, 5) % 7).astype(np.float32)


def out_size(size, k, s, d, lo, hi, ceil):
    span = size + lo + hi - d * (k - 1) - 1
    n = (-(-span // s) if ceil else span // s) + 1
    if ceil and (n - 1) * s >= size + lo:
        n -= 1
    return n


def pool_ref(x, kernel, stride, pads=(0, 0, 0, 0), dilation=(1, 1), ceil=False, mode="max",
             count_include_pad=True, divisor=None):
    """Loops over output positions; out-of-bounds taps are skipped (max) or count as zeros (avg)."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    top, bottom, left, right = pads
    ho = out_size(h, kh, sh, dh, top, bottom, ceil)
    wo = out_size(w, kw, sw, dw, left, right, ceil)
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            rows = i * sh - top + dh * np.arange(kh)
            cols = j * sw - left + dw * np.arange(kw)
            r_in = rows[(rows >= 0) & (rows < h)]
            c_in = cols[(cols >= 0) & (cols < w)]
            window = x[:, :, r_in][:, :, :, c_in]
            if mode == "max":
                out[:, :, i, j] = window.max(axis=(2, 3))
                continue
            if divisor:
                count = divisor
            elif count_include_pad:
                count = (((rows >= -top) & (rows < h + bottom)).sum() *
                         ((cols >= -left) & (cols < w + right)).sum())
            else:
                count = len(r_in) * len(c_in)
            out[:, :, i, j] = window.sum(axis=(2, 3)) / count
    return out


def same_pads(size, k, s):
    total = max((-(-size // s) - 1) * s + k - size, 0)
    return total // 2, total - total // 2


# -- MaxPool2d -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel, stride, mode, padding, dilation, ceil", [
    (2, 2, "valid", 0, 1, False),
    ((3, 2), (2, 1), "valid", 0, 1, False),
    (3, 2, "same", 0, 1, False),
    (2, 2, "SAME", 0, 1, False),
    (3, 2, "pad", 1, 1, False),
    (2, 2, "pad", 1, 1, True),
    (3, 3, "pad", (1, 0), (2, 1), True),
])
def test_maxpool2d_matches_numpy_reference(backend, kernel, stride, mode, padding, dilation, ceil):
    x = np.random.default_rng(4).permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6).astype(np.float32)
    pool = nn.MaxPool2d(kernel, stride, pad_mode=mode, padding=padding, dilation=dilation, ceil_mode=ceil)
    k = kernel if isinstance(kernel, tuple) else (kernel, kernel)
    s = stride if isinstance(stride, tuple) else (stride, stride)
    d = dilation if isinstance(dilation, tuple) else (dilation, dilation)
    if mode.lower() == "same":
        pads = same_pads(7, k[0], s[0]) + same_pads(6, k[1], s[1])
    else:
        p = padding if isinstance(padding, tuple) else (padding, padding)
        pads = (p[0], p[0], p[1], p[1])
    out = pool(T(x))
    assert out.dtype is ms.float32
    np.testing.assert_array_equal(out.asnumpy(), pool_ref(x, k, s, pads, d, ceil))


def test_maxpool2d_matches_mindspore_values(backend):
    same = nn.MaxPool2d(3, 2, pad_mode="same")(T(XR)).asnumpy()
    np.testing.assert_allclose(same[0, 0], [[1.304, 1.304, 0.1049001], [1.304, 1.304, 1.0425134],
                                            [1.3664634, 1.3664634, 1.0425134]], rtol=1e-6)
    ceil = nn.MaxPool2d(2, 2, pad_mode="pad", padding=1, ceil_mode=True)(T(XR)).asnumpy()
    np.testing.assert_allclose(ceil[0, 1], [[0.0940123, -0.7434993, 0.2201951], [0.3553727, -0.1296136, 1.4934311],
                                            [-0.3139228, 1.9602584, 1.8016349]], rtol=1e-6)
    same_even = nn.MaxPool2d(2, 2, pad_mode="same")(T(XR)).asnumpy()
    assert same_even.shape == (1, 2, 3, 3)
    np.testing.assert_allclose(same_even[0, 0, 2], [1.3664634, 0.3515101, 0.9034702], rtol=1e-6)


def test_maxpool2d_return_indices_match_mindspore(backend):
    pool = nn.MaxPool2d(2, 1, pad_mode="pad", padding=(1, 0), dilation=2, return_indices=True)
    out, idx = pool(T(XR))
    assert out.shape == idx.shape == (1, 2, 5, 3)
    assert idx.dtype is ms.int64
    np.testing.assert_array_equal(idx.asnumpy()[0], [[[7, 6, 7], [2, 3, 2], [7, 6, 19], [20, 21, 24], [17, 18, 19]],
                                                     [[7, 8, 9], [10, 13, 14], [17, 16, 17], [22, 23, 22],
                                                      [17, 16, 17]]])
    np.testing.assert_allclose(out.asnumpy()[0, 0, 0], [0.947081, 1.304, 0.947081], rtol=1e-6)
    # each index points at the value it reports
    flat = XR.reshape(1, 2, -1)
    picked = np.take_along_axis(flat, idx.asnumpy().reshape(1, 2, -1), axis=2).reshape(out.shape)
    np.testing.assert_array_equal(picked, out.asnumpy())


def test_maxpool2d_takes_chw_inputs(backend):
    pool = nn.MaxPool2d(2, 2)
    out = pool(T(XR[0]))
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out.asnumpy(), pool(T(XR)).asnumpy()[0])
    out, idx = nn.MaxPool2d(2, 2, pad_mode="pad", return_indices=True)(T(XR[0]))
    assert out.shape == idx.shape == (2, 2, 2)


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2, stride=2),
    dict(kernel_size=3, stride=2, pad_mode="same"),
    dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, ceil_mode=True),
    dict(kernel_size=2, stride=1, pad_mode="pad", dilation=2),
])
def test_maxpool2d_gradient_matches_finite_differences(backend, kwargs):
    x = np.random.default_rng(5).permutation(2 * 6 * 5).reshape(1, 2, 6, 5) / 7.0  # distinct: no ties
    check_grad(nn.MaxPool2d(**kwargs), x)


def test_maxpool2d_repr_matches_mindspore():
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=VALID)"
    assert repr(nn.MaxPool2d((2, 3), (1, 2), pad_mode="pad")) == \
        "MaxPool2d(kernel_size=(2, 3), stride=(1, 2), pad_mode=PAD)"
    assert repr(nn.MaxPool2d((2,), (2,), pad_mode="Same")) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=SAME)"


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(kernel_size=2.0), TypeError, "kernel_size"),
    (dict(kernel_size=[2, 2]), TypeError, "kernel_size"),
    (dict(kernel_size=0), ValueError, "kernel_size"),
    (dict(kernel_size=(2, 2, 2)), ValueError, "kernel_size"),
    (dict(stride=-1), ValueError, "stride"),
    (dict(pad_mode=1), TypeError, "pad_mode"),
    (dict(pad_mode="full"), ValueError, "pad_mode"),
    (dict(padding=1), ValueError, "pad_mode"),
    (dict(ceil_mode=True), ValueError, "ceil_mode"),
    (dict(return_indices=True), ValueError, "return_indices"),
    (dict(dilation=2), ValueError, "dilation"),
    (dict(pad_mode="pad", padding=(1, 1, 1)), ValueError, "padding"),
    (dict(pad_mode="pad", padding=-1), ValueError, "padding"),
    (dict(pad_mode="pad", padding=2), ValueError, "padding"),
    (dict(pad_mode="pad", dilation=(1, 1, 1)), ValueError, "dilation"),
    (dict(pad_mode="pad", dilation=1.0), ValueError, "dilation"),
    (dict(data_format="NHWC"), ValueError, "NHWC"),
])
def test_maxpool2d_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    args = dict(kernel_size=2, stride=2)
    args.update(kwargs)
    with pytest.raises(error, match=word):
        nn.MaxPool2d(**args)


def test_pooling_refuses_inputs_that_are_not_3d_or_4d(backend):
    for pool in (nn.MaxPool2d(2, 2), nn.AvgPool2d(2, 2)):
        with pytest.raises(ValueError, match="3-D"):
            pool(T(XR[0, 0]))


# -- AvgPool2d -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, pads, count_pad, divisor", [
    (dict(kernel_size=2, stride=2), (0, 0, 0, 0), True, None),
    (dict(kernel_size=(3, 2), stride=(2, 1)), (0, 0, 0, 0), True, None),
    (dict(kernel_size=3, stride=2, pad_mode="same"), "same", False, None),      # plain AvgPool: pads not counted
    (dict(kernel_size=3, stride=2, pad_mode="pad", padding=1), (1, 1, 1, 1), True, None),
    (dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False), (1, 1, 1, 1), False, None),
    (dict(kernel_size=(3, 2), stride=(2, 1), pad_mode="pad", padding=(1, 0)), (1, 1, 0, 0), True, None),
    (dict(kernel_size=2, stride=2, ceil_mode=True), (0, 0, 0, 0), True, None),
    (dict(kernel_size=2, stride=2, pad_mode="pad", padding=1, ceil_mode=True), (1, 1, 1, 1), True, None),
    (dict(kernel_size=2, stride=2, divisor_override=3), (0, 0, 0, 0), True, 3),
    (dict(kernel_size=2, stride=2, pad_mode="same", ceil_mode=True), "same", True, None),  # general kernel: counted
])
def test_avgpool2d_matches_numpy_reference(backend, kwargs, pads, count_pad, divisor):
    x = np.random.default_rng(6).standard_normal((2, 3, 7, 6)).astype(np.float32)
    pool = nn.AvgPool2d(**kwargs)
    k = kwargs["kernel_size"] if isinstance(kwargs["kernel_size"], tuple) else (kwargs["kernel_size"],) * 2
    s = kwargs["stride"] if isinstance(kwargs["stride"], tuple) else (kwargs["stride"],) * 2
    if pads == "same":
        pads = same_pads(7, k[0], s[0]) + same_pads(6, k[1], s[1])
    expected = pool_ref(x.astype(np.float64), k, s, pads, ceil=kwargs.get("ceil_mode", False), mode="avg",
                        count_include_pad=count_pad, divisor=divisor)
    out = pool(T(x))
    assert out.dtype is ms.float32
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_avgpool2d_matches_mindspore_values(backend):
    def run(**kwargs):
        return nn.AvgPool2d(**kwargs)(T(XA)).asnumpy()[0]

    np.testing.assert_allclose(run(kernel_size=2, stride=2, pad_mode="same")[1],
                               [[3.5, 3.75, 3.5], [3.0, 1.5, 3.0], [3.5, 5.5, 0.0]])
    np.testing.assert_allclose(run(kernel_size=3, stride=2, pad_mode="pad", padding=1)[0],
                               [[1.3333334, 1.4444444, 1.1111112], [2.3333333, 3.4444444, 2.0],
                                [1.0, 1.3333334, 1.5555556]], rtol=1e-6)
    np.testing.assert_allclose(run(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False)[1],
                               [[3.5, 3.8333333, 3.0], [2.8333333, 2.7777777, 3.5], [4.5, 3.6666667, 2.25]],
                               rtol=1e-6)
    np.testing.assert_allclose(run(kernel_size=2, stride=2, pad_mode="pad", padding=1, ceil_mode=True)[0],
                               [[0.0, 0.75, 1.75], [2.0, 3.75, 2.25], [1.75, 1.5, 3.5]])
    np.testing.assert_allclose(run(kernel_size=2, stride=2, pad_mode="same", ceil_mode=True)[0],
                               [[3.0, 1.5, 1.5], [2.5, 4.5, 1.25], [1.5, 0.75, 0.75]])
    np.testing.assert_allclose(run(kernel_size=2, stride=2, pad_mode="same", divisor_override=2)[0],
                               [[6.0, 3.0, 3.0], [5.0, 9.0, 2.5], [3.0, 1.5, 1.5]])
    np.testing.assert_allclose(run(kernel_size=2, stride=2, ceil_mode=True)[1],
                               [[3.5, 3.75, 3.5], [3.0, 1.5, 3.0], [3.5, 5.5, 0.0]])
    np.testing.assert_allclose(run(kernel_size=(3, 2), stride=(2, 1), pad_mode="pad", padding=(1, 0))[1],
                               [[2.3333333, 3.0, 2.5, 2.0], [2.8333333, 2.6666667, 2.5, 3.5],
                                [3.0, 2.5, 2.0, 1.5]], rtol=1e-6)


def test_avgpool2d_takes_chw_inputs(backend):
    for pool in (nn.AvgPool2d(2, 2), nn.AvgPool2d(2, 2, pad_mode="pad", padding=1)):
        out = pool(T(XA[0]))
        np.testing.assert_array_equal(out.asnumpy(), pool(T(XA)).asnumpy()[0])


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2, stride=2),
    dict(kernel_size=3, stride=2, pad_mode="same"),
    dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False),
    dict(kernel_size=2, stride=2, pad_mode="pad", padding=1, ceil_mode=True, divisor_override=3),
])
def test_avgpool2d_gradient_matches_finite_differences(backend, kwargs):
    check_grad(nn.AvgPool2d(**kwargs), np.random.default_rng(7).standard_normal((1, 2, 5, 6)))


def test_avgpool2d_repr_matches_mindspore():
    assert repr(nn.AvgPool2d(2, 2)) == "AvgPool2d(kernel_size=2, stride=2, pad_mode=VALID)"
    assert repr(nn.AvgPool2d(2, 2, pad_mode="pad", padding=1)) == "AvgPool2d(kernel_size=2, stride=2, pad_mode=PAD)"


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(kernel_size=2.0), TypeError, "kernel_size"),
    (dict(kernel_size=0), ValueError, "kernel_size"),
    (dict(pad_mode=1), TypeError, "pad_mode"),
    (dict(pad_mode="full"), ValueError, "pad_mode"),
    (dict(divisor_override=0), ValueError, "divisor_override"),
    (dict(padding=1), ValueError, "padding"),
    (dict(pad_mode="pad", padding=(1, 1, 1)), ValueError, "padding"),
    (dict(pad_mode="pad", padding=-1), ValueError, "padding"),
    (dict(pad_mode="pad", padding=2), ValueError, "padding"),
    (dict(pad_mode="pad", padding=1.0), TypeError, "padding"),
    (dict(data_format="NHWC"), ValueError, "NHWC"),
])
def test_avgpool2d_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    args = dict(kernel_size=2, stride=2)
    args.update(kwargs)
    with pytest.raises(error, match=word):
        nn.AvgPool2d(**args)
