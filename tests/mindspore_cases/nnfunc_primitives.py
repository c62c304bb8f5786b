"""The nn-functional Primitives whose calls no ``ops`` function spells, as MindSpore 2.10 runs them.

The op catalogue (``tests/op_catalogue``) checks each function against MindSpore, and each
Primitive alias against its function; the Primitives here have conventions of their own
(TensorFlow's resizing modes, sparse CTC labels, detection outputs, NHWC fractional pooling ...),
so each gets a case of its own.  Recorded in ``tests/fixtures/mindspore/nnfunc_primitives.json``
by ``tools/record_mindspore.py nnfunc_primitives``; checked by ``tests/ops/test_nnfunc_primitives.py``.
"""
from . import CaseList

CASES = CaseList()


def _image(ms, np, shape, scale=7.0):
    """A deterministic float32 image whose values are all different."""
    n = int(np.prod(shape))
    return ms.Tensor(((np.arange(n) * 37 % n) / scale - 1.0).reshape(shape).astype(np.float32))



@CASES.case
def prim_Conv2DTranspose(ms, ops, nn, np):
    dout = _image(ms, np, (1, 3, 2, 3))
    weight = _image(ms, np, (3, 2, 2, 2), 5.0)
    # (MindSpore's gradient of Conv2DTranspose builds a Conv2D with out_channel rows: it works when
    # out_channel is the channel count of 'dout', the convolution's output.)
    plain = ops.Conv2DTranspose(3, 2)(dout, weight, (1, 2, 3, 4))
    strided = ops.Conv2DTranspose(3, 2, pad_mode="pad", pad=(1, 0, 0, 1), stride=2)(dout, weight, (1, 2, 4, 6))
    same = ops.Conv2DTranspose(3, 2, pad_mode="same")(dout, weight, (1, 2, 2, 3))
    probe = _image(ms, np, (1, 2, 3, 4), 3.0)
    grads = ms.grad(lambda d, w: (ops.Conv2DTranspose(3, 2)(d, w, (1, 2, 3, 4)) * probe).sum(),
                    grad_position=(0, 1))(dout, weight)
    return (plain, strided, same), grads


@CASES.case
def prim_MaxPool3D(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 3, 4, 3))
    return (ops.MaxPool3D(2, 1)(x), ops.MaxPool3D((1, 2, 2), 2, "same")(x),
            ops.MaxPool3D(2, 2, "pad", (1, 0, 1, 0, 1, 0), ceil_mode=True)(x))


@CASES.case
def prim_MaxPoolWithArgmaxV2(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 4, 5))
    return (ops.MaxPoolWithArgmaxV2(2)(x), ops.MaxPoolWithArgmaxV2((3, 2), (2, 1), (1, 1))(x),
            ops.MaxPoolWithArgmaxV2(2, 1, 0, (1, 2), True)(x))


@CASES.case
def prim_AdaptiveMaxPool3D(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 3, 4, 3))
    return ops.AdaptiveMaxPool3D()(x, ms.Tensor(np.array([2, 3, 2], np.int32)))


@CASES.case
def prim_FractionalMaxPoolWithFixedKsize(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 5, 6))
    samples = ms.Tensor(np.array([[[0.3, 0.7], [0.1, 0.5]]], np.float32))
    return ops.FractionalMaxPoolWithFixedKsize((2, 3), (3, 2))(x, samples)


@CASES.case
def prim_FractionalMaxPool3DWithFixedKsize(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 4, 5, 4))
    samples = ms.Tensor(np.array([[[0.3, 0.7, 0.2], [0.1, 0.5, 0.9]]], np.float32))
    return ops.FractionalMaxPool3DWithFixedKsize((2, 2, 1), (2, 3, 3))(x, samples)


@CASES.case
def prim_FractionalMaxPool_integer_ratio(ms, ops, nn, np):
    x = _image(ms, np, (1, 4, 6, 2))
    return (ops.FractionalMaxPool([1.0, 2.0, 3.0, 1.0])(x),
            ops.FractionalMaxPool([1.0, 2.0, 2.0, 1.0], overlapping=True)(x))


@CASES.case
def prim_DeformableOffsets(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 3, 4))
    offsets = ms.Tensor(((np.arange(72) * 5 % 72) / 40.0 - 0.8).reshape(1, 12, 2, 3).astype(np.float32))
    return ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))(x, offsets)




@CASES.case
def prim_ResizeBilinearV2_modes(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 3, 4))
    size = ms.Tensor(np.array([5, 3], np.int32))
    return (ops.ResizeBilinearV2()(x, size), ops.ResizeBilinearV2(align_corners=True)(x, size),
            ops.ResizeBilinearV2(half_pixel_centers=True)(x, size))


@CASES.case
def prim_ResizeBilinearV2_grad(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 3, 2))
    probe = _image(ms, np, (1, 1, 4, 5), 3.0)
    resize = ops.ResizeBilinearV2(half_pixel_centers=True)
    return ms.grad(lambda t: (resize(t, ms.Tensor(np.array([4, 5], np.int32))) * probe).sum())(x)


@CASES.case(rtol=1e-4, atol=1e-5)
def prim_ResizeBicubic_modes(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 3, 4))
    size = ms.Tensor(np.array([5, 3], np.int32))
    return (ops.ResizeBicubic()(x, size), ops.ResizeBicubic(align_corners=True)(x, size),
            ops.ResizeBicubic(half_pixel_centers=True)(x, size))


@CASES.case
def prim_ResizeLinear1D_modes(ms, ops, nn, np):
    x = _image(ms, np, (1, 2, 4))
    size = ms.Tensor(np.array([7], np.int64))
    return tuple(ops.ResizeLinear1D(mode)(x, size) for mode in ("align_corners", "half_pixel"))


@CASES.case
def prim_ResizeNearestNeighbor_modes(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 3, 4))
    return ops.ResizeNearestNeighbor((5, 7))(x), ops.ResizeNearestNeighbor((2, 3), align_corners=True)(x)


def _half_pixel_nearest(np):
    """TensorFlow's half-pixel nearest resize of the case's image: source index floor((dst + 0.5) * in / out)."""
    x = ((np.arange(12) * 37 % 12) / 7.0 - 1.0).reshape(1, 1, 3, 4).astype(np.float32)
    rows = np.minimum(np.floor((np.arange(5) + 0.5) * 3 / 5).astype(int), 2)
    cols = np.minimum(np.floor((np.arange(7) + 0.5) * 4 / 7).astype(int), 3)
    return x[:, :, rows][:, :, :, cols]


@CASES.case(mindspore_wrong=True, expected=_half_pixel_nearest,
            note="MindSpore 2.10's CPU ResizeNearestNeighbor ignores half_pixel_centers=True (its output is the "
                 "legacy floor(dst * in / out) one), against its docs")
def prim_ResizeNearestNeighbor_half_pixel(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 3, 4))
    return ops.ResizeNearestNeighbor((5, 7), half_pixel_centers=True)(x)


@CASES.case
def prim_ResizeNearestNeighborV2_int(ms, ops, nn, np):
    x = ms.Tensor(np.arange(12, dtype=np.uint8).reshape(1, 1, 3, 4))
    return ops.ResizeNearestNeighborV2()(x, ms.Tensor(np.array([5, 2], np.int64)))


@CASES.case
def prim_UpsampleNearest3D(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 2, 2, 3))
    return ops.UpsampleNearest3D()(x, (3, 3, 5)), ops.UpsampleNearest3D()(x, None, (1.5, 2.0, 0.7))


@CASES.case
def prim_UpsampleTrilinear3D(ms, ops, nn, np):
    x = _image(ms, np, (1, 1, 2, 2, 3))
    return (ops.UpsampleTrilinear3D()(x, (3, 3, 5)), ops.UpsampleTrilinear3D(True)(x, (3, 1, 2)),
            ops.UpsampleTrilinear3D()(x, None, (1.5, 2.0, 0.7)))


@CASES.case
def prim_L2Normalize(ms, ops, nn, np):
    x = _image(ms, np, (2, 3))
    out = (ops.L2Normalize()(x), ops.L2Normalize(axis=1, epsilon=0.5)(x), ops.L2Normalize(axis=(-1,))(x))
    probe = _image(ms, np, (2, 3), 3.0)
    return out, ms.grad(lambda t: (ops.L2Normalize(axis=1)(t) * probe).sum())(x)


@CASES.case
def prim_EmbeddingLookup(ms, ops, nn, np):
    table = _image(ms, np, (4, 2))
    return ops.EmbeddingLookup()(table, ms.Tensor(np.array([[1, 5], [3, 0]], np.int32)), 1)


@CASES.case
def prim_NMSWithMask(ms, ops, nn, np):
    boxes = ms.Tensor(np.array([[0, 0, 4, 4, 0.9], [1, 1, 5, 5, 0.8], [0.5, 0.5, 4, 4, 0.95], [6, 6, 9, 9, 0.6],
                                [6, 6.5, 9, 9.5, 0.7]], np.float32))
    return ops.NMSWithMask(0.5)(boxes)


@CASES.case
def prim_NonMaxSuppressionWithOverlaps(ms, ops, nn, np):
    overlaps = ms.Tensor(np.array([[1.0, 0.7, 0.1, 0.3], [0.7, 1.0, 0.2, 0.6], [0.1, 0.2, 1.0, 0.4],
                                   [0.3, 0.6, 0.4, 1.0]], np.float32))
    scores = ms.Tensor(np.array([0.6, 0.9, 0.3, 0.5], np.float32))
    op = ops.NonMaxSuppressionWithOverlaps()
    return (op(overlaps, scores, ms.Tensor(3, ms.int32), ms.Tensor(0.5, ms.float32), ms.Tensor(0.0, ms.float32)),
            op(overlaps, scores, ms.Tensor(1, ms.int32), ms.Tensor(0.5, ms.float32), ms.Tensor(0.0, ms.float32)),
            op(overlaps, scores, ms.Tensor(4, ms.int32), ms.Tensor(0.65, ms.float32), ms.Tensor(0.4, ms.float32)))


@CASES.case
def prim_CombinedNonMaxSuppression(ms, ops, nn, np):
    boxes = ms.Tensor(np.array([[[[0.0, 0.0, 0.5, 0.5]], [[0.05, 0.0, 0.55, 0.5]], [[0.6, 0.6, 1.2, 1.0]],
                                 [[0.2, 0.1, 0.4, 0.3]]]], np.float32))
    scores = ms.Tensor(np.array([[[0.9, 0.1], [0.8, 0.7], [0.3, 0.6], [0.05, 0.4]]], np.float32))
    args = (boxes, scores, ms.Tensor(2, ms.int32), ms.Tensor(3, ms.int32), ms.Tensor(0.5, ms.float32),
            ms.Tensor(0.2, ms.float32))
    return (ops.CombinedNonMaxSuppression()(*args),
            ops.CombinedNonMaxSuppression(pad_per_class=True, clip_boxes=False)(*args))


@CASES.case(rtol=1e-4, atol=1e-5)
def prim_ROIAlign(ms, ops, nn, np):
    features = _image(ms, np, (2, 2, 5, 6))
    rois = ms.Tensor(np.array([[0, 0.4, 1.2, 6.1, 5.3], [1, 2.2, 0.5, 9.0, 7.5], [0, 8.0, 8.0, 12.0, 11.0]],
                              np.float32))
    out = (ops.ROIAlign(2, 3, 0.5, 2)(features, rois), ops.ROIAlign(3, 2, 0.5, 1, 0)(features, rois),
           ops.ROIAlign(2, 2, 0.5, 0)(features, rois))
    probe = _image(ms, np, (3, 2, 2, 3), 3.0)
    return out, ms.grad(lambda f: (ops.ROIAlign(2, 3, 0.5, 2)(f, rois) * probe).sum())(features)


@CASES.case(rtol=1e-4, atol=1e-5)
def prim_AdjustHue(ms, ops, nn, np):
    image = ms.Tensor((np.arange(24) * 7 % 24 / 23.0).reshape(2, 4, 3).astype(np.float32))
    return ops.AdjustHue()(image, ms.Tensor(0.2, ms.float32)), ops.AdjustHue()(image, ms.Tensor(-0.7, ms.float32))


@CASES.case(rtol=1e-4, atol=1e-5)
def prim_AdjustSaturation(ms, ops, nn, np):
    image = ms.Tensor((np.arange(24) * 7 % 24 / 23.0).reshape(2, 4, 3).astype(np.float32))
    return (ops.AdjustSaturation()(image, ms.Tensor(0.5, ms.float32)),
            ops.AdjustSaturation()(image, ms.Tensor(1.7, ms.float32)))


@CASES.case
def prim_Dropout2D_Dropout3D_keep_all(ms, ops, nn, np):
    x4 = _image(ms, np, (1, 2, 2, 2))
    x5 = _image(ms, np, (1, 2, 1, 2, 2))
    return ops.Dropout2D(keep_prob=1.0)(x4), ops.Dropout3D(keep_prob=1.0)(x5)



@CASES.case
def prim_SigmoidCrossEntropyWithLogits(ms, ops, nn, np):
    logits = ms.Tensor(np.array([[-0.8, 1.2, 0.7], [-0.1, -3.3, 2.2]], np.float32))
    labels = ms.Tensor(np.array([[0.0, 1.0, 0.3], [0.5, 0.0, 1.0]], np.float32))
    return ops.SigmoidCrossEntropyWithLogits()(logits, labels)


@CASES.case(rtol=1e-4, atol=1e-5)
def prim_CTCLoss(ms, ops, nn, np):
    logits = ms.Tensor((((np.arange(30) * 7) % 11) / 4.0 - 1.0).reshape(5, 2, 3).astype(np.float32))
    indices = ms.Tensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64))
    values = ms.Tensor(np.array([1, 0, 1], np.int32))
    # (both sequences run the full 5 steps: MindSpore 2.10's gradient output past a shorter
    # sequence_length holds stray values instead of zeros)
    lengths = ms.Tensor(np.array([5, 5], np.int32))
    return (ops.CTCLoss()(logits, indices, values, lengths),
            ops.CTCLoss(preprocess_collapse_repeated=True)(
                logits, ms.Tensor(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.int64)),
                ms.Tensor(np.array([1, 1, 0, 0], np.int32)), lengths))


@CASES.case
def prim_KLDivLoss_reductions(ms, ops, nn, np):
    logits = ms.Tensor(np.array([[-0.8, 1.2, 0.7], [-0.1, -3.3, 2.2]], np.float32))
    labels = ms.Tensor(np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], np.float32))
    return tuple(ops.KLDivLoss(r)(logits, labels) for r in ("none", "mean", "sum", "batchmean"))


@CASES.case
def prim_OneHot(ms, ops, nn, np):
    indices = ms.Tensor(np.array([[0, 2], [1, -1]], np.int32))
    return (ops.OneHot()(indices, 3, ms.Tensor(1.0, ms.float32), ms.Tensor(0.0, ms.float32)),
            ops.OneHot(axis=0)(indices, 3, ms.Tensor(5, ms.int64), ms.Tensor(-1, ms.int64)))


@CASES.case
def prim_L2Loss(ms, ops, nn, np):
    x = _image(ms, np, (2, 3))
    probe = ms.Tensor(np.float32(0.7))
    return ops.L2Loss()(x), ms.grad(lambda t: ops.L2Loss()(t) * probe)(x)
