"""Convolutions (1-D, 2-D, 3-D, transposed) and pooling (max, average, Lp, adaptive, fractional, unpooling).

Max-pooling samples use ``distinct`` values, so no window has a tie (a finite difference
across a tie would see the winner change).  Shapes are tiny: every differentiated input
has about a dozen elements.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample


def D(*shape, **kw):
    """A float32 input with well-separated values (no ties for max pooling)."""
    return Arr(tuple(shape), distinct=True, **kw)


def _np_conv2d(x, w, stride=1, padding=0):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    p = padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    ho, wo = (h + 2 * p - kh) // stride + 1, (wd + 2 * p - kw) // stride + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def _lp_pool1d(x, p, k, s=None, ceil_mode=False):
    """``(sum over each window of x ** p) ** (1 / p)``; a ceil_mode window sums what lies inside the input."""
    s = k if s is None else s
    n = x.shape[-1]
    count = (-(-(n - k) // s) if ceil_mode else (n - k) // s) + 1
    if ceil_mode and (count - 1) * s >= n:
        count -= 1
    sums = np.stack([(x[..., i * s:min(i * s + k, n)] ** p).sum(-1) for i in range(count)], -1)
    return np.sign(sums) * np.abs(sums) ** (1 / p)


OPS = [
    # -- convolutions
    OpInfo("conv2d", (Sample((Arr((1, 2, 3, 3)), Arr((2, 2, 2, 2))), grad=(0, 1), label="valid"),
                      Sample((Arr((1, 1, 4, 3)), Arr((2, 1, 2, 2)), Arr((2,))),
                             {"stride": 2, "pad_mode": "pad", "padding": 1}, grad=(0, 1, 2), label="stride_pad"),
                      Sample((Arr((1, 2, 3, 3)), Arr((2, 1, 2, 2))), {"groups": 2, "pad_mode": "same"}, grad=(0, 1),
                             label="groups_same"),
                      Sample((Arr((1, 1, 4, 4)), Arr((1, 1, 2, 2))), {"dilation": 2}, grad=(0, 1), label="dilation")),
           primitive=lambda ops, x, w, *b, **k: ops.Conv2D(w.shape[0], w.shape[2:])(x, w) if not k and not b
           else ops.conv2d(x, w, *b, **k),
           bad=(Bad("rank", (Arr((3, 4, 4)), Arr((2, 3, 2, 2)))),)),
    OpInfo("conv1d", (Sample((Arr((1, 2, 5)), Arr((2, 2, 2))), grad=(0, 1), label="valid"),
                      Sample((Arr((2, 2, 4)), Arr((2, 1, 3)), Arr((2,))),
                             {"stride": 2, "pad_mode": "pad", "padding": 1, "groups": 2}, grad=(0, 1, 2),
                             label="stride_pad_groups"),
                      Sample((Arr((1, 1, 6)), Arr((1, 1, 2))), {"dilation": 2, "pad_mode": "same"}, grad=(0, 1),
                             label="dilation_same")),
           bad=(Bad("rank", (Arr((1, 2, 3, 3)), Arr((2, 2, 2)))), Bad("padding", (Arr((1, 2, 5)), Arr((2, 2, 2))),
                                                                      {"padding": 1}))),
    OpInfo("conv3d", (Sample((Arr((1, 1, 2, 2, 3)), Arr((2, 1, 1, 2, 2))), grad=(0, 1), label="valid"),
                      Sample((Arr((1, 2, 2, 2, 2)), Arr((2, 1, 2, 1, 2)), Arr((2,))),
                             {"pad_mode": "pad", "padding": (1, 0, 1), "stride": (2, 1, 2), "groups": 2},
                             grad=(0, 1, 2), label="pad_stride_groups"),
                      Sample((Arr((1, 1, 3, 2, 2)), Arr((1, 1, 2, 2, 1))), {"pad_mode": "same", "dilation": (2, 1, 1)},
                             grad=(0, 1), label="same_dilation")),
           primitive=lambda ops, x, w, *b, **k: ops.Conv3D(w.shape[0], w.shape[2:])(x, w) if not k and not b
           else ops.conv3d(x, w, *b, **k),
           bad=(Bad("rank", (Arr((1, 2, 3, 3)), Arr((2, 2, 2, 2)))),
                Bad("channels", (Arr((1, 3, 2, 2, 2)), Arr((2, 2, 1, 1, 1)))))),
    OpInfo("conv3d_transpose", (Sample((Arr((1, 2, 1, 2, 2)), Arr((2, 1, 2, 2, 1))), grad=(0, 1), label="valid"),
                                Sample((Arr((1, 1, 2, 2, 1)), Arr((1, 2, 1, 2, 2))),
                                       {"pad_mode": "pad", "padding": (0, 0, 1, 1, 0, 1), "stride": (1, 2, 2),
                                        "output_padding": (0, 1, 0)}, grad=(0, 1), label="pad_stride_output_padding"),
                                Sample((Arr((1, 1, 2, 1, 2)), Arr((1, 1, 1, 1, 2))), {"pad_mode": "same",
                                                                                      "stride": 2},
                                       grad=(0, 1), label="same")),
           primitive=lambda ops, x, w, **k: ops.Conv3DTranspose(w.shape[0], w.shape[1], w.shape[2:])(x, w) if not k
           else ops.conv3d_transpose(x, w, **k),
           bad=(Bad("rank", (Arr((1, 2, 3, 3)), Arr((2, 1, 2, 2)))),
                Bad("channels", (Arr((1, 3, 2, 2, 2)), Arr((2, 1, 1, 1, 1)))))),
    OpInfo("deformable_conv2d", (Sample((Arr((1, 2, 3, 3)), Arr((2, 2, 2, 2)), Arr((1, 12, 2, 2), low=-0.9, high=0.9),
                                         (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)), grad=(0, 1, 2), label="valid"),
                                 Sample((Arr((1, 2, 3, 2)), Arr((2, 1, 1, 2)), Arr((1, 12, 2, 2), low=-0.9, high=0.9),
                                         (1, 2), (1, 1, 2, 1), (1, 0, 0, 1), Arr((2,))),
                                        {"groups": 2, "deformable_groups": 2}, grad=(0, 1, 2, 6),
                                        label="stride_pad_groups")),
           bad=(Bad("offsets", (Arr((1, 2, 3, 3)), Arr((2, 2, 2, 2)), Arr((1, 6, 2, 2)), (2, 2), (1, 1, 1, 1),
                                (0, 0, 0, 0))),)),
    # -- max pooling
    OpInfo("max_pool2d", (Sample((D(1, 1, 4, 4), 2), grad=(0,), label="tiles"),
                          Sample((D(1, 2, 3, 3), 2, 1), grad=(0,), label="overlap"),
                          Sample((D(1, 1, 4, 3), 3, 2, 1), {"return_indices": True}, grad=(0,), label="pad_indices"),
                          Sample((D(1, 1, 3, 4), 2, 2), {"ceil_mode": True}, grad=(0,), label="ceil"),
                          Sample((Arr((1, 1, 4, 4), "int32", -9, 9), 2), label="int32")),
           primitive=lambda ops, x, k, s=None, *a, **kw: ops.MaxPool(k, s or k)(x) if not a and not kw
           else ops.max_pool2d(x, k, s, *a, **kw),
           bad=(Bad("rank", (Arr((4, 4)), 2)), Bad("padding", (Arr((1, 1, 4, 4)), 2, 2, 2)))),
    OpInfo("max_pool3d", (Sample((D(1, 1, 2, 2, 3), 2, 1), grad=(0,), label="overlap"),
                          Sample((D(1, 1, 2, 3, 2), (1, 3, 2), (1, 2, 1), (0, 1, 1)), {"return_indices": True},
                                 grad=(0,), label="pad_indices"),
                          Sample((D(1, 1, 3, 3, 2), 2, 2), {"ceil_mode": True}, grad=(0,), label="ceil"),
                          Sample((D(1, 1, 3, 3, 3), 2, 1, 0, (1, 2, 1)), grad=(0,), label="dilation")),
           primitive=lambda ops, x, k, s=None, p=0, d=1, **kw: (lambda r: r if kw.get("return_indices") else r[0])(
               ops.MaxPool3DWithArgmax(k, s or k, p, d, kw.get("ceil_mode", False))(x)),
           bad=(Bad("rank", (Arr((1, 4, 4, 4)), 2)), Bad("kernel", (Arr((1, 1, 2, 2, 2)), 3)))),
    OpInfo("adaptive_max_pool1d", (Sample((D(1, 2, 6), 3), grad=(0,), label="grad"),),
           bad=(Bad("not_divisible", (Arr((1, 2, 6)), 4)),)),
    OpInfo("adaptive_max_pool2d", (Sample((D(1, 1, 3, 4), (2, 3)), grad=(0,), label="grad"),
                                   Sample((D(2, 3, 3), 2), {"return_indices": True}, grad=(0,), label="unbatched_indices"),
                                   Sample((D(1, 1, 3, 4), (None, 2)), label="keep_axis")),
           primitive=lambda ops, x, size, **kw: ops.AdaptiveMaxPool2D(size)(x) if kw.get("return_indices")
           else ops.AdaptiveMaxPool2D(size)(x)[0],
           bad=(Bad("rank", (Arr((3, 4)), 2)),)),
    OpInfo("adaptive_max_pool3d", (Sample((D(1, 1, 2, 3, 2), (1, 2, 2)), grad=(0,), label="grad"),
                                   Sample((D(1, 2, 2, 3), 2), {"return_indices": True}, grad=(0,),
                                          label="unbatched_indices")),
           bad=(Bad("rank", (Arr((3, 4)), 2)),)),
    # MindSpore 2.10's CPU build cannot differentiate fractional_max_pool2d (its gradient kernel
    # FractionalMaxPoolGradWithFixedKsize refuses float32 and float16 alike), so these samples
    # check the forward pass; tests/ops/test_nnfunc_pool.py checks the gradients against finite
    # differences.  (fractional_max_pool3d's gradient kernel works on float16.)
    OpInfo("fractional_max_pool2d", (Sample((D(1, 1, 4, 5), 2, (2, 3), None, True, Arr((1, 1, 2), low=0.0, high=0.9)),
                                            label="samples"),
                                     Sample((D(1, 2, 4, 4), (2, 1), (2, 3), None, False,
                                             Arr((1, 2, 2), low=0.0, high=0.9)), label="two_planes"),
                                     Sample((D(1, 1, 4, 5, dtype="float16"), 2, (2, 3), None, True,
                                             Arr((1, 1, 2), "float16", low=0.0, high=0.9)), label="float16")),
           bad=(Bad("no_size", (Arr((1, 1, 4, 4)), 2)),)),
    OpInfo("fractional_max_pool3d", (Sample((D(1, 1, 3, 3, 3), (2, 1, 2), (1, 2, 1), None, True,
                                             Arr((1, 1, 3), low=0.0, high=0.9)), label="samples"),
                                     Sample((D(1, 1, 3, 3, 3, dtype="float16"), (2, 1, 2), (1, 2, 1), None, True,
                                             Arr((1, 1, 3), "float16", low=0.0, high=0.9)), grad=(0,),
                                            label="samples_float16"),),
           bad=(Bad("no_size", (Arr((1, 1, 3, 3, 3)), 2)),)),
    # -- average pooling
    OpInfo("avg_pool2d", (Sample((Arr((1, 1, 4, 4)), 2, 2), grad=(0,), label="tiles"),
                          Sample((Arr((1, 2, 3, 3)), 2, 1), grad=(0,), label="overlap"),
                          Sample((Arr((1, 1, 3, 4)), 3, 2, 1), {"count_include_pad": False}, grad=(0,),
                                 label="pad_exclude"),
                          Sample((Arr((1, 1, 3, 4)), 2, 2), {"ceil_mode": True, "divisor_override": 3}, grad=(0,),
                                 label="ceil_divisor")),
           primitive=lambda ops, x, k=1, s=1, *a, **kw: ops.AvgPool(k, s)(x) if not a and not kw
           else ops.avg_pool2d(x, k, s, *a, **kw),
           bad=(Bad("rank", (Arr((4, 4)), 2)),)),
    OpInfo("avg_pool1d", (Sample((Arr((1, 2, 6)), 2, 2), grad=(0,), label="tiles"),
                          Sample((Arr((1, 1, 5)), 3, 2, 1), {"count_include_pad": False, "ceil_mode": True}, grad=(0,),
                                 label="pad_ceil")),
           bad=(Bad("rank", (Arr((1, 6)), 2)),)),
    OpInfo("avg_pool3d", (Sample((Arr((1, 1, 2, 2, 3)), 2, 1), grad=(0,), label="overlap"),
                          Sample((Arr((1, 1, 2, 3, 2)), (1, 2, 2), (1, 2, 1), (0, 0, 1, 1, 1, 0)),
                                 {"count_include_pad": False}, grad=(0,), label="pad_exclude"),
                          Sample((Arr((1, 1, 3, 2, 2)), 2, 2), {"ceil_mode": True, "divisor_override": 5}, grad=(0,),
                                 label="ceil_divisor")),
           primitive=lambda ops, x, k=1, s=1, p=0, **kw: ops.AvgPool3D(k, s, "pad" if p else "valid", p,
                                                                      kw.get("ceil_mode", False),
                                                                      kw.get("count_include_pad", True),
                                                                      kw.get("divisor_override", 0))(x),
           bad=(Bad("rank", (Arr((1, 2, 2, 2)), 2)),)),
    OpInfo("adaptive_avg_pool1d", (Sample((Arr((1, 2, 6)), 3), grad=(0,), label="grad"),),
           bad=(Bad("not_divisible", (Arr((1, 2, 6)), 4)),)),
    OpInfo("adaptive_avg_pool2d", (Sample((Arr((1, 1, 3, 4)), (2, 3)), grad=(0,), label="grad"),
                                   Sample((Arr((2, 3, 3)), 2), grad=(0,), label="unbatched"),
                                   Sample((Arr((1, 1, 3, 4)), (None, 2)), label="keep_axis")),
           primitive=lambda ops, x, size: ops.AdaptiveAvgPool2D(size)(x),
           bad=(Bad("rank", (Arr((3, 4)), 2)),)),
    OpInfo("adaptive_avg_pool3d", (Sample((Arr((1, 1, 2, 3, 2)), (1, 2, 2)), grad=(0,), label="grad"),
                                   Sample((Arr((1, 2, 2, 3)), 2), grad=(0,), label="unbatched")),
           primitive=lambda ops, x, size: ops.AdaptiveAvgPool3D(size)(x),
           bad=(Bad("rank", (Arr((3, 4)), 2)),)),
    # -- Lp pooling
    OpInfo("lp_pool1d", (Sample((Arr((1, 2, 6), low=0.25), 2, 2), grad=(0,), label="p2"),
                         Sample((Arr((2, 5), low=0.25), 3, 3, 2), grad=(0,), label="p3_unbatched"),
                         Sample((Arr((1, 1, 5), low=0.25), 1.5, 2, 2, True), label="ceil")),
           ref=_lp_pool1d,
           mindspore_wrong={"ceil": "with ceil_mode the last, partial window's power sum is scaled by kernel_size / "
                                    "(elements inside): 2.53 instead of 1.59 = (x[4] ** 1.5) ** (1 / 1.5) for a "
                                    "window holding only x[4]"},
           bad=(Bad("norm_zero", (Arr((1, 2, 6)), 0, 2)),)),
    OpInfo("lp_pool2d", (Sample((Arr((1, 1, 4, 4), low=0.25), 2, 2), grad=(0,), label="p2"),
                         Sample((Arr((1, 1, 3, 4), low=0.25), 3, (2, 3), 1), grad=(0,), label="p3")),
           bad=(Bad("norm_zero", (Arr((1, 1, 4, 4)), 0, 2)),)),
    # -- unpooling
    OpInfo("max_unpool1d", (Sample((Arr((1, 1, 3)), np.array([[[1, 2, 5]]]), 2), grad=(0,), label="grad"),
                            Sample((Arr((1, 2, 2)), np.array([[[0, 3], [1, 4]]]), 2, 2, 0, (1, 2, 5)), grad=(0,),
                                   label="output_size")),
           bad=(Bad("index_range", (Arr((1, 1, 2)), Arr((1, 1, 2), "int64", 7, 9), 2)),)),
    OpInfo("max_unpool2d", (Sample((Arr((1, 1, 2, 2)), np.array([[[[0, 3], [9, 14]]]]), 2), grad=(0,), label="grad"),
                            Sample((Arr((2, 1, 2)), np.array([[[0, 4]], [[2, 5]]]), 2, 1, 0), grad=(0,),
                                   label="unbatched")),
           primitive=lambda ops, x, i, k, s=None, p=0, **kw: ops.MaxUnpool2D(k, s or 0, p)(x, i),
           bad=(Bad("shape", (Arr((1, 1, 2, 2)), Arr((1, 1, 2, 3), "int64", 0, 1), 2)),)),
    OpInfo("max_unpool3d", (Sample((Arr((1, 1, 1, 2, 2)), np.array([[[[[0, 5], [17, 30]]]]]), 2), grad=(0,),
                                   label="grad"),),
           primitive=lambda ops, x, i, k, s=None, p=0, **kw: ops.MaxUnpool3D(k, s or 0, p)(x, i),
           bad=(Bad("shape", (Arr((1, 1, 1, 2, 2)), Arr((1, 1, 2, 2), "int64", 0, 1), 2)),)),
]
