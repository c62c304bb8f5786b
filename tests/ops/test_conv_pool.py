"""conv2d, max/avg pooling, bias_add and dense: values, padding rules, gradients, errors.

Every test runs on NumPy and on array_api_strict's ``device1`` (the
``backend`` fixture).  Expected values come from direct-loop NumPy references
written here and from numbers printed by MindSpore 2.10 (CPU).
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad

T = ms.Tensor
RNG = np.random.default_rng(7)


# -- NumPy references (direct loops, nothing clever) -------------------------------------------------
def conv_ref(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    eh, ew = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    ho = (xp.shape[2] - eh) // stride[0] + 1
    wo = (xp.shape[3] - ew) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    per_group = o // groups
    for oc in range(o):
        g = oc // per_group
        for i in range(ho):
            for j in range(wo):
                r, q = i * stride[0], j * stride[1]
                patch = xp[:, g * cg:(g + 1) * cg, r:r + eh:dilation[0], q:q + ew:dilation[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out


def _pool_out(size, k, s, lo, hi, d, ceil):
    span = size + lo + hi - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= size + lo:
        out -= 1
    return out


def max_pool_ref(x, k, s, p, d=(1, 1), ceil=False):
    n, c, h, w = x.shape
    ho = _pool_out(h, k[0], s[0], p[0], p[0], d[0], ceil)
    wo = _pool_out(w, k[1], s[1], p[1], p[1], d[1], ceil)
    values = np.full((n, c, ho, wo), -np.inf)
    index = np.zeros((n, c, ho, wo), np.int64)
    for i in range(ho):
        for j in range(wo):
            for a in range(k[0]):
                for b in range(k[1]):
                    r, q = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + b * d[1]
                    if 0 <= r < h and 0 <= q < w:
                        v = x[:, :, r, q]
                        better = v > values[:, :, i, j]
                        values[:, :, i, j] = np.where(better, v, values[:, :, i, j])
                        index[:, :, i, j] = np.where(better, r * w + q, index[:, :, i, j])
    return values, index


def avg_pool_ref(x, k, s, pads, ceil=False, count_include_pad=True, divisor=0):
    n, c, h, w = x.shape
    top, bottom, left, right = pads
    ho = _pool_out(h, k[0], s[0], top, bottom, 1, ceil)
    wo = _pool_out(w, k[1], s[1], left, right, 1, ceil)
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            hs, ws = i * s[0] - top, j * s[1] - left
            he, we = min(hs + k[0], h + bottom), min(ws + k[1], w + right)
            full = (he - hs) * (we - ws)
            hs2, ws2, he2, we2 = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            total = x[:, :, hs2:he2, ws2:we2].sum(axis=(2, 3))
            out[:, :, i, j] = total / (divisor or (full if count_include_pad else (he2 - hs2) * (we2 - ws2)))
    return out


# -- conv2d ----------------------------------------------------------------------------------------
CONV_CASES = [
    # (x shape, w shape, kwargs for conv2d, pads (t, b, l, r) for the reference)
    ((2, 3, 6, 7), (4, 3, 3, 3), dict(), (0, 0, 0, 0)),
    ((2, 3, 6, 7), (4, 3, 3, 2), dict(stride=(2, 1)), (0, 0, 0, 0)),
    ((1, 2, 5, 6), (3, 2, 3, 3), dict(pad_mode="pad", padding=1), (1, 1, 1, 1)),
    ((1, 2, 5, 6), (3, 2, 3, 3), dict(pad_mode="pad", padding=(2, 1), stride=2), (2, 2, 1, 1)),
    ((1, 2, 7, 7), (2, 2, 3, 3), dict(dilation=2), (0, 0, 0, 0)),
    ((1, 2, 7, 8), (2, 2, 2, 3), dict(dilation=(2, 1), stride=(1, 2), pad_mode="pad", padding=(1, 0)), (1, 1, 0, 0)),
    ((2, 4, 5, 5), (6, 2, 3, 3), dict(groups=2, pad_mode="pad", padding=1), (1, 1, 1, 1)),
    ((1, 3, 5, 5), (3, 1, 3, 3), dict(groups=3), (0, 0, 0, 0)),                      # depthwise
    ((1, 1, 5, 6), (1, 1, 2, 2), dict(pad_mode="same"), (0, 1, 0, 1)),               # extra pad bottom/right
    ((1, 1, 5, 6), (1, 1, 3, 3), dict(pad_mode="same", stride=2), (1, 1, 0, 1)),
    ((1, 2, 4, 4), (2, 2, 1, 1), dict(), (0, 0, 0, 0)),                              # 1x1 kernel
    ((1, 2, 5, 6), (2, 2, 3, 3), dict(pad_mode="pad", padding=(1, 0, 0, 2)), (1, 0, 0, 2)),  # cellkit extension
    ((1, 2, 5, 6), (2, 2, 3, 3), dict(pad_mode="same", padding=(0, 0, 0, 0)), (1, 1, 1, 1)),
]


def _conv_ref_kwargs(kwargs, pads):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)
    return dict(stride=pair(kwargs.get("stride", 1)), pads=pads, dilation=pair(kwargs.get("dilation", 1)),
                groups=kwargs.get("groups", 1))


@pytest.mark.parametrize("xs, ws, kwargs, pads", CONV_CASES)
def test_conv2d_matches_direct_loop_reference(backend, xs, ws, kwargs, pads):
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    b = RNG.standard_normal(ws[0]).astype(np.float32)
    out = ops.conv2d(T(x), T(w), T(b), **kwargs)
    expected = conv_ref(x.astype(np.float64), w.astype(np.float64), b, **_conv_ref_kwargs(kwargs, pads))
    assert out.dtype is ms.float32 and out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, ws, kwargs, pads", CONV_CASES[2:9])
def test_conv2d_gradients_match_finite_differences(backend, xs, ws, kwargs, pads):
    x = RNG.standard_normal(xs)
    w = RNG.standard_normal(ws)
    b = RNG.standard_normal(ws[0])
    check_grad(lambda a, k, c: ops.conv2d(a, k, c, **kwargs), x, w, b)


def test_conv2d_gradient_of_input_only_and_weight_only(backend):
    x, w = RNG.standard_normal((1, 2, 5, 5)), RNG.standard_normal((3, 2, 3, 3))
    check_grad(lambda a, k: ops.conv2d(a, k, stride=2, pad_mode="same"), x, w, wrt=(0,))
    check_grad(lambda a, k: ops.conv2d(a, k, stride=2, pad_mode="same"), x, w, wrt=(1,))


def test_conv2d_same_padding_matches_mindspore(backend):
    x = T(np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6))
    w = T(np.ones((1, 1, 2, 2), np.float32))
    expected = [[14, 18, 22, 26, 30, 16], [38, 42, 46, 50, 54, 28], [62, 66, 70, 74, 78, 40],
                [86, 90, 94, 98, 102, 52], [49, 51, 53, 55, 57, 29]]
    np.testing.assert_array_equal(ops.conv2d(x, w, pad_mode="same").asnumpy()[0, 0], expected)
    strided = ops.conv2d(x, w, pad_mode="same", stride=2).asnumpy()[0, 0]
    np.testing.assert_array_equal(strided, [[14, 22, 30], [62, 70, 78], [49, 53, 57]])


def test_conv2d_primitive_takes_four_paddings_like_mindspore(backend):
    x = T(np.arange(60, dtype=np.float32).reshape(1, 2, 5, 6))
    w = T(np.ones((2, 2, 3, 3), np.float32))
    conv = ops.Conv2D(out_channel=2, kernel_size=3, pad_mode="pad", pad=(1, 0, 0, 2))
    out = conv(x, w)
    assert out.shape == (1, 2, 4, 6)
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [
        [228, 240, 252, 264, 180, 92], [396, 414, 432, 450, 306, 156],
        [504, 522, 540, 558, 378, 192], [612, 630, 648, 666, 450, 228]])
    assert ops.Conv2D(2, 3, stride=(1, 1, 2, 1))(x, w).shape == (1, 2, 2, 4)
    assert ops.Conv2D(2, (3, 3), pad_mode="same")(x, w).shape == (1, 2, 5, 6)
    assert conv.pad == (1, 0, 0, 2) and conv.out_channel == 2


def test_conv2d_integer_inputs_compute_in_float32(backend):
    out = ops.conv2d(T(np.ones((1, 1, 3, 3), np.int32)), T(np.ones((1, 1, 2, 2), np.int32)))
    assert out.dtype is ms.float32
    np.testing.assert_array_equal(out.asnumpy(), np.full((1, 1, 2, 2), 4.0))


def test_conv2d_records_nothing_outside_a_gradient_transform(backend):
    assert ops.conv2d(T(np.ones((1, 1, 3, 3))), T(np.ones((1, 1, 2, 2))))._node is None


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(pad_mode="foo"), ValueError, "pad_mode"),
    (dict(pad_mode="valid", padding=1), ValueError, "padding"),
    (dict(pad_mode="same", padding=1), ValueError, "padding"),
    (dict(pad_mode="pad", padding=(1, 0, 0)), ValueError, "padding"),
    (dict(pad_mode="same", padding=(0, 0, 0, 1)), ValueError, "padding"),
    (dict(pad_mode="pad", padding=-1), ValueError, "padding"),
    (dict(stride=0), ValueError, "stride"),
    (dict(stride=(1, 2, 1)), ValueError, "stride"),
    (dict(stride="a"), TypeError, "stride"),
    (dict(dilation=0), ValueError, "dilation"),
    (dict(groups=0), ValueError, "groups"),
    (dict(groups=2), ValueError, "channels"),
])
def test_conv2d_rejects_bad_arguments(backend, kwargs, exc, word):
    x, w = T(np.ones((1, 2, 5, 6), np.float32)), T(np.ones((2, 2, 3, 3), np.float32))
    with pytest.raises(exc, match=word):
        ops.conv2d(x, w, **kwargs)


def test_conv2d_rejects_bad_shapes_and_dtypes(backend):
    x, w = T(np.ones((1, 2, 5, 6), np.float32)), T(np.ones((2, 2, 3, 3), np.float32))
    with pytest.raises(ValueError, match="'input'.*4-D"):
        ops.conv2d(T(np.ones((2, 5, 6), np.float32)), w)
    with pytest.raises(ValueError, match="channels"):
        ops.conv2d(x, T(np.ones((2, 3, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="bias"):
        ops.conv2d(x, w, bias=T(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="kernel"):
        ops.conv2d(x, T(np.ones((2, 2, 7, 7), np.float32)))
    with pytest.raises(TypeError, match="same dtype"):
        ops.conv2d(T(np.ones((1, 2, 5, 6), np.float64)), w)
    with pytest.raises(ValueError, match="out_channel"):
        ops.Conv2D(3, 3)(x, w)
    with pytest.raises(ValueError, match="kernel_size"):
        ops.Conv2D(2, 2)(x, w)
    with pytest.raises(ValueError, match="pad"):
        ops.Conv2D(2, 3, pad_mode="pad", pad=(1, 2))


# -- max pooling -------------------------------------------------------------------------------------
POOL_CASES = [
    # (x shape, kernel, stride, padding, dilation, ceil_mode)
    ((2, 2, 5, 7), 2, None, 0, 1, False),
    ((1, 2, 5, 7), 3, 1, 0, 1, False),
    ((1, 2, 5, 7), 3, 2, 1, 1, False),
    ((1, 2, 5, 7), 3, 2, 0, 1, True),
    ((1, 2, 5, 7), 2, 2, 1, 1, True),
    ((1, 1, 7, 7), 3, 2, 1, 2, True),
    ((1, 2, 6, 5), (2, 3), (1, 2), (1, 0), (1, 2), False),
]


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


@pytest.mark.parametrize("xs, k, s, p, d, ceil", POOL_CASES)
def test_max_pool2d_matches_direct_loop_reference(backend, xs, k, s, p, d, ceil):
    x = RNG.standard_normal(xs).astype(np.float32)
    values, index = ops.max_pool2d(T(x), k, s, p, d, return_indices=True, ceil_mode=ceil)
    ref_v, ref_i = max_pool_ref(x, _pair(k), _pair(k if s is None else s), _pair(p), _pair(d), ceil)
    assert values.shape == ref_v.shape and index.dtype is ms.int64
    np.testing.assert_array_equal(values.asnumpy(), ref_v)
    np.testing.assert_array_equal(index.asnumpy(), ref_i)
    plain = ops.max_pool2d(T(x), k, s, p, d, ceil_mode=ceil)
    np.testing.assert_array_equal(plain.asnumpy(), ref_v)


@pytest.mark.parametrize("xs, k, s, p, d, ceil", POOL_CASES)
def test_max_pool2d_gradient_matches_finite_differences(backend, xs, k, s, p, d, ceil):
    x = RNG.permutation(np.prod(xs)).reshape(xs) * 0.1  # distinct values: no ties
    check_grad(lambda t: ops.max_pool2d(t, k, s, p, d, ceil_mode=ceil), x)


def test_max_pool2d_gradient_goes_to_the_first_tied_maximum_like_mindspore(backend):
    g = ms.grad(lambda t: ops.max_pool2d(t, 2, 1).sum())(T(np.ones((1, 1, 3, 3), np.float32)))
    np.testing.assert_array_equal(g.asnumpy()[0, 0], [[1, 1, 0], [1, 1, 0], [0, 0, 0]])


def test_max_pool2d_indices_match_mindspore_with_dilation_and_ceil_mode(backend):
    x = T(-np.arange(49, dtype=np.float32).reshape(1, 1, 7, 7))
    _, index = ops.max_pool2d(x, 3, 2, 1, 2, True, ceil_mode=True)
    np.testing.assert_array_equal(index.asnumpy()[0, 0], [[8, 8, 10], [8, 8, 10], [22, 22, 24]])


def test_max_pool2d_keeps_integer_dtype_and_propagates_nan(backend):
    out = ops.max_pool2d(T(np.arange(16, dtype=np.int32).reshape(1, 1, 4, 4)), 2, padding=1)
    assert out.dtype is ms.int32
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[0, 2, 3], [8, 10, 11], [12, 14, 15]])
    x = np.zeros((1, 1, 2, 2), np.float32)
    x[0, 0, 1, 0] = np.nan
    assert np.isnan(ops.max_pool2d(T(x), 2).asnumpy()).all()


def test_max_pool2d_rejects_bad_arguments(backend):
    x = T(np.ones((1, 1, 7, 7), np.float32))
    with pytest.raises(ValueError, match="padding"):
        ops.max_pool2d(x, 3, 1, 2)
    with pytest.raises(ValueError, match="kernel_size"):
        ops.max_pool2d(x, 0)
    with pytest.raises(ValueError, match="stride"):
        ops.max_pool2d(x, 3, 0)
    with pytest.raises(ValueError, match="'x'.*4-D"):
        ops.max_pool2d(T(np.ones((1, 7, 7), np.float32)), 2)
    with pytest.raises(ValueError, match="kernel"):
        ops.max_pool2d(x, 8)


# -- average pooling ------------------------------------------------------------------------------------
AVG_CASES = [
    # (x shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    ((1, 2, 5, 7), 2, 1, 0, False, True, 0),
    ((1, 2, 5, 7), 3, 2, 1, False, True, 0),
    ((1, 2, 5, 7), 3, 2, 1, False, False, 0),
    ((1, 2, 5, 7), 3, 2, 1, False, True, 2),
    ((1, 2, 6, 6), 3, 2, 1, True, True, 0),
    ((1, 2, 6, 6), 3, 2, 1, True, False, 0),
    ((2, 1, 6, 5), 3, 2, 0, True, True, 0),
    ((1, 1, 5, 5), 3, 1, (2, 0, 0, 1), False, True, 0),
    ((1, 1, 5, 6), (3, 2), (2, 1), (1, 1, 0, 1), True, False, 0),
]


@pytest.mark.parametrize("xs, k, s, p, ceil, cip, div", AVG_CASES)
def test_avg_pool2d_matches_direct_loop_reference(backend, xs, k, s, p, ceil, cip, div):
    x = RNG.standard_normal(xs).astype(np.float32)
    out = ops.avg_pool2d(T(x), k, s, p, ceil, cip, div)
    pads = (p,) * 4 if isinstance(p, int) else p
    expected = avg_pool_ref(x.astype(np.float64), _pair(k), _pair(s), pads, ceil, cip, div)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("xs, k, s, p, ceil, cip, div", AVG_CASES[1:])
def test_avg_pool2d_gradient_matches_finite_differences(backend, xs, k, s, p, ceil, cip, div):
    check_grad(lambda t: ops.avg_pool2d(t, k, s, p, ceil, cip, div), RNG.standard_normal(xs))


def test_avg_pool2d_values_match_mindspore(backend):
    x = T(np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5))
    out = ops.avg_pool2d(x, 3, 1, (2, 0, 0, 0)).asnumpy()[0, 0]
    np.testing.assert_allclose(out, [[1 / 3, 2 / 3, 1], [7 / 3, 3, 11 / 3], [6, 7, 8], [11, 12, 13], [16, 17, 18]],
                               rtol=1e-6)
    g = ms.grad(lambda t: ops.avg_pool2d(t, 2, 1, 1, count_include_pad=False).sum())(
        T(np.ones((1, 1, 3, 3), np.float32)))
    np.testing.assert_allclose(g.asnumpy()[0, 0], [[2.25, 1.5, 2.25], [1.5, 1, 1.5], [2.25, 1.5, 2.25]])


def test_avg_pool2d_rejects_bad_arguments(backend):
    x = T(np.ones((1, 1, 7, 7), np.float32))
    with pytest.raises(ValueError, match="padding"):
        ops.avg_pool2d(x, 3, 1, (1, 0))
    with pytest.raises(ValueError, match="padding"):
        ops.avg_pool2d(x, 3, 1, 2)
    with pytest.raises(TypeError, match="stride"):
        ops.avg_pool2d(x, 3, None)
    with pytest.raises(ValueError, match="divisor_override"):
        ops.avg_pool2d(x, 3, 1, 0, divisor_override=-1)
    with pytest.raises(ValueError, match="kernel"):
        ops.avg_pool2d(x, 8)


# -- pooling primitives -----------------------------------------------------------------------------------
def test_pool_primitives_same_and_valid_modes_match_mindspore(backend):
    x = T(np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6))
    np.testing.assert_array_equal(ops.MaxPool(2, 2)(x).asnumpy()[0, 0], [[7, 9, 11], [19, 21, 23]])
    np.testing.assert_array_equal(ops.MaxPool(2, 2, "same")(x).asnumpy()[0, 0], [[7, 9, 11], [19, 21, 23],
                                                                                 [25, 27, 29]])
    np.testing.assert_array_equal(ops.MaxPool(3, 2, "SAME")(-x).asnumpy()[0, 0],
                                  [[0, -2, -4], [-6, -8, -10], [-18, -20, -22]])
    np.testing.assert_array_equal(ops.AvgPool(2, 2)(x).asnumpy()[0, 0], [[3.5, 5.5, 7.5], [15.5, 17.5, 19.5]])
    np.testing.assert_array_equal(ops.AvgPool(3, 2, "same")(x).asnumpy()[0, 0],
                                  [[4, 6, 7.5], [13, 15, 16.5], [22, 24, 25.5]])
    np.testing.assert_array_equal(ops.AvgPool(3, 2)(x).asnumpy()[0, 0], [[7, 9], [19, 21]])
    np.testing.assert_array_equal(ops.AvgPool(2, 1, "same")(x).asnumpy()[0, 0, -1], [24.5, 25.5, 26.5, 27.5, 28.5, 29])
    check_grad(lambda t: ops.AvgPool(3, 2, "same")(t), RNG.standard_normal((1, 2, 5, 6)))
    check_grad(lambda t: ops.MaxPool((2, 3), 2, "same")(t), RNG.permutation(60).reshape(1, 2, 5, 6) * 0.1)


def test_pool_primitives_reject_bad_modes(backend):
    with pytest.raises(ValueError, match="pad_mode"):
        ops.MaxPool(2, 2, "pad")
    with pytest.raises(ValueError, match="kernel_size"):
        ops.AvgPool(0)
    with pytest.raises(ValueError, match="data_format"):
        ops.MaxPool(2, 2, data_format="NHWC")


# -- bias_add and dense ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 3, 2, 2), (1, 3, 2, 1, 2)])
def test_bias_add_adds_along_axis_1(backend, shape):
    x = RNG.standard_normal(shape)
    b = RNG.standard_normal(3)
    expected = x + b.reshape((1, 3) + (1,) * (len(shape) - 2))
    np.testing.assert_allclose(ops.bias_add(T(x), T(b)).asnumpy(), expected)
    check_grad(ops.bias_add, x, b)


def test_bias_add_nhwc_and_errors(backend):
    x, b = RNG.standard_normal((2, 2, 3)), RNG.standard_normal(3)
    np.testing.assert_allclose(ops.BiasAdd(data_format="NHWC")(T(x), T(b)).asnumpy(), x + b)
    with pytest.raises(ValueError, match="bias"):
        ops.bias_add(T(np.ones((2, 3))), T(np.ones(2)))
    with pytest.raises(ValueError, match="input_x"):
        ops.bias_add(T(np.ones(3)), T(np.ones(3)))


@pytest.mark.parametrize("xs, ws, with_bias", [
    ((2, 3), (4, 3), True), ((3,), (4, 3), True), ((5, 2, 3), (4, 3), True), ((2, 3), (3,), False),
    ((2, 3), (4, 3), False),
])
def test_dense_is_x_times_w_transposed_plus_b(backend, xs, ws, with_bias):
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    b = RNG.standard_normal(ws[0]) if with_bias else None
    expected = x @ w.T + (b if with_bias else 0)
    args = (T(x), T(w)) + ((T(b),) if with_bias else ())
    np.testing.assert_allclose(ops.dense(*args).asnumpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(ops.linear(*args).asnumpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(ops.Dense()(*args).asnumpy(), expected, rtol=1e-12)
    if with_bias:
        check_grad(ops.dense, x, w, b)
    else:
        check_grad(ops.dense, x, w)


def test_dense_rejects_mismatched_features(backend):
    with pytest.raises(ValueError, match="in_features"):
        ops.dense(T(np.ones((2, 3))), T(np.ones((4, 2))))
    with pytest.raises(ValueError, match="bias"):
        ops.dense(T(np.ones((2, 3))), T(np.ones((4, 3))), T(np.ones(3)))
    with pytest.raises(TypeError, match="same dtype"):
        ops.dense(T(np.ones((2, 3), np.float32)), T(np.ones((4, 3))))
