"""The other nn functionals: resizing and resampling, normalisations, dropout, dense and bilinear layers, clipping.

Dropout samples are the deterministic ones (``training=False`` or ``p=0``): the random masks
come from each library's own generator.  Their random behaviour is tested in
``tests/ops/test_nnfunc_activation.py``.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
IMG = Arr((1, 1, 2, 3))


def _nearest_1d(n_in, n_out):
    return np.minimum(np.floor(np.arange(n_out) * n_in / n_out).astype(int), n_in - 1)


def _l2n(x, axis=0, epsilon=1e-4):
    return x / np.sqrt(np.maximum((x * x).sum(axis=axis, keepdims=True), epsilon))


def _group_norm(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    y = x.reshape(n, g, -1)
    y = (y - y.mean(-1, keepdims=True)) / np.sqrt(y.var(-1, keepdims=True) + eps)
    y = y.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * (1 if w is None else w.reshape(shape)) + (0 if b is None else b.reshape(shape))


def _lrn(x, r=5, bias=1.0, alpha=1.0, beta=0.5):
    c = x.shape[1]
    s = np.stack([(x[:, max(0, i - r):i + r + 1] ** 2).sum(1) for i in range(c)], 1)
    return x / (bias + alpha * s) ** beta


def _layer_norm(x, shape, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def _clip_by_norm(x, max_norm, norm_type=2.0):
    tensors = x if isinstance(x, (list, tuple)) else [x]
    total = sum((np.abs(t) ** norm_type).sum() for t in tensors) ** (1 / norm_type)
    coef = max_norm / (total + 1e-6)
    out = [t * coef if coef < 1 else t for t in tensors]
    return tuple(out) if isinstance(x, (list, tuple)) else out[0]


def _cosine(a, b, dim=1, eps=1e-8):
    return (a * b).sum(dim) / np.maximum(np.sqrt((a * a).sum(dim)) * np.sqrt((b * b).sum(dim)), eps)


def _bidense(a, b, w, bias=None):
    out = np.einsum("...i,oij,...j->...o", a, w, b)
    return out if bias is None else out + bias


def _pixel_shuffle(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    y = y.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return y.reshape(*lead, c // (r * r), h * r, w * r)


def _affine_grid(theta, size, align_corners=False):
    spatial = size[2:]

    def axis(n):
        if n == 1:
            return np.zeros(1)
        line = np.linspace(-1, 1, n)
        return line if align_corners else line * (n - 1) / n

    mesh = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")
    base = np.stack(list(reversed(mesh)) + [np.ones(spatial)], -1)
    return np.einsum("...k,nak->n...a", base, theta)


OPS = [
    # -- interpolate, every mode
    OpInfo("interpolate", (Sample((IMG,), {"size": (3, 5), "mode": "bilinear"}, grad=(0,), label="bilinear"),
                           Sample((IMG,), {"size": (4, 2), "mode": "bilinear", "align_corners": True}, grad=(0,),
                                  label="bilinear_align"),
                           Sample((IMG,), {"size": (3, 4), "mode": "bicubic"}, grad=(0,), label="bicubic"),
                           Sample((Arr((1, 1, 3, 3)),), {"size": (4, 2), "mode": "bicubic", "align_corners": True},
                                  grad=(0,), label="bicubic_align"),
                           Sample((Arr((1, 2, 4)),), {"size": 7, "mode": "linear"}, grad=(0,), label="linear"),
                           Sample((Arr((1, 2, 4)),), {"size": 3, "mode": "linear", "align_corners": True}, grad=(0,),
                                  label="linear_align"),
                           Sample((Arr((1, 1, 2, 2, 3)),), {"size": (3, 1, 4), "mode": "trilinear"}, grad=(0,),
                                  label="trilinear"),
                           Sample((Arr((1, 1, 2, 2, 3)),), {"scale_factor": (1.5, 2.0, 0.7), "mode": "trilinear",
                                                            "align_corners": True}, grad=(0,),
                                  label="trilinear_scale_align"),
                           Sample((IMG,), {"size": (3, 5), "mode": "nearest"}, grad=(0,), label="nearest"),
                           Sample((Arr((1, 2, 5)),), {"size": 3, "mode": "nearest"}, grad=(0,), label="nearest_1d"),
                           Sample((Arr((1, 1, 2, 2, 3)),), {"scale_factor": (1.5, 2.0, 0.7), "mode": "nearest"},
                                  grad=(0,), label="nearest_3d_scale"),
                           Sample((Arr((1, 1, 3, 4)),), {"size": (2, 6), "mode": "nearest-exact"}, grad=(0,),
                                  label="nearest_exact"),
                           Sample((Arr((1, 1, 3, 4)),), {"size": (2, 3), "mode": "area"}, grad=(0,), label="area"),
                           Sample((Arr((1, 2, 6)),), {"scale_factor": 0.5, "mode": "area"}, grad=(0,),
                                  label="area_scale"),
                           Sample((Arr((1, 1, 2, 2, 3)),), {"size": (1, 2, 2), "mode": "area"}, grad=(0,),
                                  label="area_3d"),
                           Sample((Arr((1, 1, 2, 3), "float64"),), {"size": (3, 4), "mode": "bilinear"},
                                  label="float64")),
           primitive=lambda ops, x, **k: ops.upsample(x, **k),
           bad=(Bad("linear_4d", (IMG,), {"size": (3, 3), "mode": "linear"}),
                Bad("size_and_scale", (IMG,), {"size": (3, 3), "scale_factor": 2.0}),
                Bad("align_nearest", (IMG,), {"size": (3, 3), "mode": "nearest", "align_corners": True}),
                Bad("mode", (IMG,), {"size": (3, 3), "mode": "cubic"}),
                Bad("area_1d_not_divisible", (Arr((1, 2, 5)),), {"size": 2, "mode": "area"}))),
    OpInfo("upsample", (Sample((IMG,), {"size": (3, 5), "mode": "bilinear"}, grad=(0,), label="bilinear"),
                        Sample((Arr((1, 2, 3)),), {"size": 5}, label="nearest")),
           bad=(Bad("no_size", (IMG,)),)),
    # -- sampling
    OpInfo("grid_sample", (Sample((IMG, Arr((1, 2, 2, 2), low=-1.1, high=1.1)), grad=(0, 1), label="bilinear"),
                           Sample((IMG, Arr((1, 2, 2, 2), low=-1.2, high=1.2)),
                                  {"padding_mode": "border", "align_corners": True}, grad=(0, 1), label="border"),
                           Sample((Arr((1, 1, 3, 3)), Arr((1, 1, 3, 2), low=-1.3, high=1.3)),
                                  {"padding_mode": "reflection"}, grad=(0, 1), label="reflection"),
                           Sample((IMG, Arr((1, 2, 2, 2), low=-0.9, high=0.9)), {"mode": "nearest"}, grad=(0,),
                                  label="nearest"),
                           Sample((Arr((1, 1, 2, 2, 2)), Arr((1, 1, 2, 2, 3), low=-1.1, high=1.1)), grad=(0, 1),
                                  label="volume")),
           primitive=lambda ops, x, g, mode="bilinear", padding_mode="zeros", align_corners=False: (
               ops.GridSampler2D(mode, padding_mode, align_corners) if x.ndim == 4 else
               ops.GridSampler3D(mode, padding_mode, align_corners))(x, g),
           bad=(Bad("mode", (IMG, Arr((1, 2, 2, 2))), {"mode": "cubic"}),
                Bad("grid_shape", (IMG, Arr((1, 2, 2, 3)))))),
    OpInfo("affine_grid", (Sample((Arr((1, 2, 3)), (1, 1, 2, 3)), grad=(0,), label="2d"),
                           Sample((Arr((2, 2, 3)), (2, 3, 3, 1), True), grad=(0,), label="align"),
                           Sample((Arr((1, 3, 4)), (1, 1, 2, 1, 2)), grad=(0,), label="3d")),
           ref=_affine_grid, primitive=lambda ops, t, size, align_corners=False: ops.AffineGrid(align_corners)(t, size),
           bad=(Bad("size", (Arr((1, 2, 3)), (1, 1, 2, 2, 2))),)),
    OpInfo("crop_and_resize", (Sample((Arr((1, 3, 4, 2)), Arr((2, 4), low=0.05, high=0.95),
                                       np.array([0, 0], np.int32), (2, 3)), grad=(0, 1), label="bilinear"),
                               Sample((Arr((2, 3, 3, 1)), np.array([[0.1, 0.2, 0.8, 0.7], [-0.3, 0.4, 0.6, 1.4]],
                                                                   np.float32),
                                       np.array([1, 0], np.int32), (3, 2)), {"extrapolation_value": 0.5},
                                      grad=(0,), label="extrapolate"),
                               Sample((Arr((1, 3, 4, 1)), np.array([[0.1, 0.2, 0.9, 0.8]], np.float32),
                                       np.array([0], np.int32), (2, 2), "nearest"), label="nearest")),
           primitive=lambda ops, img, boxes, idx, size, method="bilinear", extrapolation_value=0.0: ops.CropAndResize(
               method, extrapolation_value)(img, boxes, idx, size),
           bad=(Bad("boxes", (Arr((1, 3, 4, 2)), Arr((2, 3)), np.array([0, 0], np.int32), (2, 3))),)),
    OpInfo("pixel_shuffle", (Sample((Arr((1, 4, 1, 2)), 2), grad=(0,), label="batched"),
                             Sample((Arr((4, 2, 1)), 2), grad=(0,), label="unbatched")),
           ref=_pixel_shuffle, bad=(Bad("channels", (Arr((1, 3, 2, 2)), 2)),)),
    OpInfo("pixel_unshuffle", (Sample((Arr((1, 1, 2, 4)), 2), grad=(0,), label="batched"),),
           bad=(Bad("size", (Arr((1, 1, 3, 4)), 2)),)),
    # MindSpore 2.10 has no gradient for ChannelShuffle: the samples check the forward pass and
    # tests/ops/test_nnfunc_misc.py the gradient (a permutation's) against finite differences.
    OpInfo("channel_shuffle", (Sample((Arr((1, 6, 2, 1)), 3), label="float32"),
                               Sample((Arr((2, 4, 1, 1), "int32", 0, 9), 2), label="int32")),
           primitive=lambda ops, x, g: ops.ChannelShuffle(g)(x),
           bad=(Bad("groups", (Arr((1, 6, 2, 1)), 4)), Bad("rank", (Arr((1, 6, 2)), 3)))),
    # -- normalisations
    OpInfo("batch_norm", (Sample((Arr((3, 2)), Arr((2,)), Arr((2,), low=0.5, high=2.0), Arr((2,)), Arr((2,))),
                                 grad=(0, 3, 4), label="inference"),
                          Sample((Arr((2, 2, 3)), Arr((2,)), Arr((2,), low=0.5, high=2.0), Arr((2,)), Arr((2,)),
                                  True, 0.2), grad=(0, 3, 4), label="training")),
           primitive=lambda ops, x, m, v, w, b, training=False, momentum=0.1, eps=1e-5: ops.BatchNorm(
               training, eps, momentum)(x, w, b, m, v)[0]),
    # MindSpore 2.10's CPU build has no kernel for ops.layer_norm (LayerNormExt); the samples are
    # checked against NumPy, and the LayerNorm primitive against MindSpore (a case of its own).
    OpInfo("layer_norm", (Sample((Arr((2, 3)), (3,)), label="plain"),
                          Sample((Arr((2, 2, 3)), (2, 3), Arr((2, 3)), Arr((2, 3))), label="affine")),
           ref=lambda x, shape, w=None, b=None, eps=1e-5: _layer_norm(x, shape, w, b, eps),
           mindspore_wrong={"plain": "CPU has no LayerNormExt kernel (RuntimeError)",
                            "affine": "CPU has no LayerNormExt kernel (RuntimeError)"},
           bad=(Bad("shape", (Arr((2, 3)), (2,))),)),
    OpInfo("group_norm", (Sample((Arr((2, 4, 2)), 2), grad=(0,), label="plain"),
                          Sample((Arr((1, 4, 3)), 2, Arr((4,)), Arr((4,))), grad=(0, 2, 3), label="affine"),
                          Sample((Arr((2, 2, 3)), 1), {"eps": 0.1}, grad=(0,), label="eps")),
           ref=_group_norm, bad=(Bad("groups", (Arr((2, 3, 2)), 2)),)),
    OpInfo("lrn", (Sample((Arr((1, 4, 1, 2)),), grad=(0,), label="default"),
                   Sample((Arr((1, 3, 2, 2)), 1, 2.0, 0.5, 0.75), grad=(0,), label="params")),
           ref=_lrn, primitive=lambda ops, x, *a: ops.LRN(*a)(x),
           bad=(Bad("rank", (Arr((2, 3)),)),)),
    OpInfo("cosine_similarity", (Sample((Arr((2, 3)), Arr((2, 3))), grad=(0, 1), label="dim1"),
                                 Sample((Arr((3, 2)), Arr((1, 2)), 0), grad=(0, 1), label="broadcast_dim0")),
           ref=_cosine, bad=(Bad("int", (Arr((2, 3), "int32", 0, 3), Arr((2, 3), "int32", 0, 3))),)),
    OpInfo("bidense", (Sample((Arr((2, 2)), Arr((2, 3)), Arr((2, 2, 3))), grad=(0, 1, 2), label="plain"),
                       Sample((Arr((1, 2, 2)), Arr((1, 2, 1)), Arr((3, 2, 1)), Arr((3,))), grad=(0, 1, 2, 3),
                              label="bias_batched")),
           ref=_bidense, bad=(Bad("leading", (Arr((2, 2)), Arr((3, 3)), Arr((2, 2, 3)))),)),
    OpInfo("clip_by_norm", (Sample((Arr((2, 3)), 1.0), grad=(0,), label="clipped"),
                            Sample((Arr((3,), low=0.1, high=0.2), 5), label="unchanged"),
                            Sample((Arr((2, 3)), 0.5, 1.0), label="l1"),
                            Sample(([Arr((2,)), Arr((3,))], 1.0), label="list")),
           ref=_clip_by_norm,
           mindspore_wrong={"l1": "the norm of order 1 is taken without absolute values (sum of x, not of |x|): "
                                  "MindSpore's _old_norm computes (sum x ** p) ** (1 / p), so negative entries "
                                  "cancel (and odd orders give NaN)"},
           bad=(Bad("string", ("abc", 1.0)),)),
    OpInfo("clip_by_global_norm", (Sample(((Arr((2,)), Arr((3,))),), label="default"),
                                   Sample(((Arr((2,)), Arr((1, 2))), 10.0), label="unchanged")),
           bad=(Bad("clip_norm", ((Arr((2,)),), -1.0)),)),
    OpInfo("one_hot", (Sample((np.array([0, 2, 1]), 3), label="default"),
                       Sample((np.array([[0, 3], [1, -1]], np.int32), 3, 1.0, 0.0), label="float_values"),
                       Sample((np.array([1, 0]), 2, 5, -5, 0), label="axis0")),
           bad=(Bad("float_indices", (Arr((3,)), 3)),)),
    # -- detection helpers
    # (MindSpore 2.10 defines no gradient for the box codings: tests/ops/test_nnfunc_misc.py checks cellkit's.)
    OpInfo("bounding_box_encode", (Sample((np.array([[2, 2, 4, 5], [0, 1, 3, 2]], np.float32),
                                           np.array([[1, 2, 4, 6], [1, 0, 3, 3]], np.float32)), label="default"),
                                   Sample((np.array([[2, 2, 4, 5]], np.float32), np.array([[1, 2, 4, 6]], np.float32),
                                           (0.1, 0.0, -0.1, 0.2), (0.5, 1.0, 2.0, 1.0)), label="means_stds")),
           primitive=lambda ops, a, g, means=(0.0,) * 4, stds=(1.0,) * 4: ops.BoundingBoxEncode(means, stds)(a, g),
           bad=(Bad("shape", (Arr((2, 4)), Arr((3, 4)))),)),
    OpInfo("bounding_box_decode", (Sample((np.array([[4, 1, 10, 12], [3, 2, 8, 9]], np.float32),
                                           Arr((2, 4), low=-0.5, high=0.5), (20, 15)), label="default"),
                                   Sample((np.array([[4, 1, 10, 12]], np.float32), np.array([[0.3, -0.2, 5.0, -6.0]],
                                                                                            np.float32),
                                           (11, 9), (0.1, 0.0, -0.1, 0.2), (0.5, 1.0, 2.0, 1.0), 0.1),
                                          label="clipped")),
           primitive=lambda ops, a, d, shape, means=(0.0,) * 4, stds=(1.0,) * 4, clip=0.016: ops.BoundingBoxDecode(
               shape, means, stds, clip)(a, d),
           bad=(Bad("max_shape", (Arr((2, 4)), Arr((2, 4)), 5)),)),
    OpInfo("iou", (Sample((np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32),
                           np.array([[0, 0, 2, 2], [1, 1, 3, 4], [2, 2, 5, 5]], np.float32)), label="iou"),
                   Sample((np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32),
                           np.array([[0, 1, 2, 2], [1, 1, 4, 4]], np.float32), "iof"), label="iof")),
           primitive=lambda ops, a, g, mode="iou": ops.IOU(mode)(a, g),
           bad=(Bad("mode", (Arr((2, 4)), Arr((2, 4)), "area")),)),
    OpInfo("check_valid", (Sample((np.array([[2, 2, 9, 9], [3, 3, 11, 12], [-1, 0, 4, 4]], np.float32),
                                   np.array([10, 12, 1], np.float32)), label="default"),),
           bad=(Bad("metas", (Arr((2, 4)), Arr((2,)))),)),
    OpInfo("ctc_greedy_decoder", (Sample((Arr((4, 2, 3), distinct=True), np.array([4, 3], np.int32)), label="merge"),
                                  Sample((Arr((5, 2, 3), distinct=True), np.array([5, 2], np.int32), False),
                                         label="no_merge")),
           primitive=lambda ops, x, lengths, merge=True: ops.CTCGreedyDecoder(merge)(x, lengths),
           bad=(Bad("rank", (Arr((4, 3)), np.array([4], np.int32))),)),
    # -- dense layers
    OpInfo("dense", (Sample((Arr((2, 3)), Arr((4, 3))), grad=(0, 1), label="plain"),
                     Sample((Arr((2, 1, 3)), Arr((2, 3)), Arr((2,))), grad=(0, 1, 2), label="bias_batched")),
           ref=lambda x, w, b=None: x @ w.T + (0 if b is None else b),
           primitive=lambda ops, x, w, *b: ops.Dense()(x, w, *b),
           bad=(Bad("features", (Arr((2, 3)), Arr((4, 2)))),)),
    OpInfo("bias_add", (Sample((Arr((2, 3)), Arr((3,))), grad=(0, 1), label="2d"),
                        Sample((Arr((1, 2, 2, 1)), Arr((2,))), grad=(0, 1), label="4d")),
           ref=lambda x, b: x + b.reshape((1, -1) + (1,) * (x.ndim - 2)),
           primitive=lambda ops, x, b: ops.BiasAdd()(x, b),
           bad=(Bad("channels", (Arr((2, 3)), Arr((2,)))),)),
    # -- dropout (deterministic samples)
    OpInfo("dropout", (Sample((F,), {"p": 0.5, "training": False}, grad=(0,), label="eval"),
                       Sample((F,), {"p": 0.0}, label="p0")),
           bad=(Bad("p_type", (F,), {"p": "0.5"}),)),
    OpInfo("dropout1d", (Sample((Arr((2, 2, 3)),), {"training": False}, grad=(0,), label="eval"),
                         Sample((Arr((2, 3)),), {"p": 0.0}, label="p0_unbatched")),
           bad=(Bad("p", (Arr((2, 2, 3)),), {"p": 1.5}), Bad("rank", (Arr((2, 2, 2, 2)),)))),
    OpInfo("dropout2d", (Sample((Arr((1, 2, 2, 3)),), {"training": False}, grad=(0,), label="eval"),
                         Sample((Arr((1, 2, 2, 3)),), {"p": 0.0}, label="p0")),
           bad=(Bad("p", (Arr((1, 2, 2, 3)),), {"p": -0.5}), Bad("rank", (Arr((2, 2, 3)),)))),
    OpInfo("dropout3d", (Sample((Arr((1, 2, 1, 2, 3)),), {"training": False}, grad=(0,), label="eval"),
                         Sample((Arr((1, 2, 1, 2, 3)),), {"p": 0.0}, label="p0")),
           bad=(Bad("rank", (Arr((2, 2, 3)),)), Bad("unbatched", (Arr((2, 1, 2, 3)),), {"p": 0.0}))),
]
