"""Detection helpers: bounding-box coding, IoU, validity checks, non-maximum suppression, ROI align,
greedy CTC decoding and colour adjustments.

Box coding, IoU and ROI align are arithmetic on cellkit ops (differentiable like any
composition).  Non-maximum suppression, greedy decoding and the validity check select
and count: they return indices, masks and copies, computed on the host (they are
sequential by nature) and moved back to the device.

Boxes follow MindSpore's (MMDetection's legacy) pixel convention where it has one: a box
``(x0, y0, x1, y1)`` covers ``x1 - x0 + 1`` pixels across.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.iou(ms.Tensor([[0.0, 0.0, 1.0, 1.0]]), ms.Tensor([[0.0, 0.0, 1.0, 1.0]])))
[[1.]]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor
from . import math as _math
from . import reduce as _reduce
from . import shape_ops as _shape
from ._core import backend, describe, tensor_arg, wrap, xp
from .nn_resize import sample_points
from .primitive import Primitive, prim_attr_register

__all__ = ["bounding_box_decode", "bounding_box_encode", "iou", "check_valid", "ctc_greedy_decoder",
           "BoundingBoxDecode", "BoundingBoxEncode", "IOU", "CTCGreedyDecoder", "NMSWithMask",
           "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression", "ROIAlign", "AdjustHue", "AdjustSaturation"]


def _boxes(value, name, op, floats=("Float16", "Float32", "Float64")):
    t = tensor_arg(value, name, op)
    if t.ndim != 2 or t.shape[1] != 4:
        raise ValueError(f"For '{op}', '{name}' must have shape (n, 4), but got {t.shape}")
    if str(t.dtype) not in floats:
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of {', '.join(floats)}, but got {t.dtype}")
    return t


def _four(values, name, op):
    if not isinstance(values, (tuple, list)) or len(values) != 4 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        raise TypeError(f"For '{op}', '{name}' must be a tuple of 4 floats, but got {describe(values)}")
    return tuple(float(v) for v in values)


def _column(t, k):
    return _shape.gather(t, k, 1)


def _host(a):
    return backend().to_host(a)


def _device(a):
    return backend().from_host(np.ascontiguousarray(a))


# -- bounding-box coding ------------------------------------------------------------------------------------
def _decode(anchor_box, deltas, max_shape, means, stds, wh_ratio_clip, op):
    a = _boxes(anchor_box, "anchor_box", op)
    d = _boxes(deltas, "deltas", op)
    if a.shape != d.shape or a.dtype != d.dtype:
        raise ValueError(f"For '{op}', 'anchor_box' and 'deltas' must have one shape and dtype, but got "
                         f"{describe(a)} and {describe(d)}")
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in max_shape):
        raise TypeError(f"For '{op}', 'max_shape' must be a tuple (height, width), but got {describe(max_shape)}")
    means, stds = _four(means, "means", op), _four(stds, "stds", op)
    if isinstance(wh_ratio_clip, bool) or not isinstance(wh_ratio_clip, float) or not wh_ratio_clip > 0:
        raise TypeError(f"For '{op}', 'wh_ratio_clip' must be a positive float, but got {describe(wh_ratio_clip)}")
    from .math import clamp

    dx, dy, dw, dh = (_column(d, k) * stds[k] + means[k] for k in range(4))
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = clamp(dw, -limit, limit), clamp(dh, -limit, limit)
    x0, y0, x1, y1 = (_column(a, k) for k in range(4))
    px, py = (x0 + x1) * 0.5, (y0 + y1) * 0.5
    pw, ph = x1 - x0 + 1.0, y1 - y0 + 1.0
    gx, gy = px + pw * dx, py + ph * dy
    gw, gh = pw * _math.exp(dw), ph * _math.exp(dh)
    h_max, w_max = float(max_shape[0]), float(max_shape[1])  # MindSpore's kernel clips to the size itself
    out = [clamp(gx - gw * 0.5 + 0.5, 0.0, w_max), clamp(gy - gh * 0.5 + 0.5, 0.0, h_max),
           clamp(gx + gw * 0.5 - 0.5, 0.0, w_max), clamp(gy + gh * 0.5 - 0.5, 0.0, h_max)]
    return _shape.stack(out, 1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """Apply box ``deltas`` ``(dx, dy, dw, dh)`` to ``anchor_box`` rows ``(x0, y0, x1, y1)``.

    The deltas are first de-normalised (``* stds + means``), ``dw``/``dh`` clipped to
    ``|log(wh_ratio_clip)|``; the decoded corners are clipped to ``[0, width]`` and ``[0, height]``
    for the image ``max_shape = (height, width)``.

    >>> import cellkit as ms
    >>> print(bounding_box_decode(ms.Tensor([[0.0, 0.0, 3.0, 3.0]]), ms.Tensor([[0.0, 0.0, 0.0, 0.0]]), (10, 10)))
    [[0. 0. 3. 3.]]
    """
    return _decode(anchor_box, deltas, max_shape, means, stds, wh_ratio_clip, "bounding_box_decode")


def _encode(anchor_box, groundtruth_box, means, stds, op):
    a = _boxes(anchor_box, "anchor_box", op)
    g = _boxes(groundtruth_box, "groundtruth_box", op)
    if a.shape != g.shape or a.dtype != g.dtype:
        raise ValueError(f"For '{op}', 'anchor_box' and 'groundtruth_box' must have one shape and dtype, but got "
                         f"{describe(a)} and {describe(g)}")
    means, stds = _four(means, "means", op), _four(stds, "stds", op)
    x0, y0, x1, y1 = (_column(a, k) for k in range(4))
    u0, v0, u1, v1 = (_column(g, k) for k in range(4))
    px, py, pw, ph = (x0 + x1) * 0.5, (y0 + y1) * 0.5, x1 - x0 + 1.0, y1 - y0 + 1.0
    gx, gy, gw, gh = (u0 + u1) * 0.5, (v0 + v1) * 0.5, u1 - u0 + 1.0, v1 - v0 + 1.0
    deltas = [(gx - px) / pw, (gy - py) / ph, _math.log(gw / pw), _math.log(gh / ph)]
    return _shape.stack([(dv - means[k]) / stds[k] for k, dv in enumerate(deltas)], 1)


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas ``(dx, dy, dw, dh)`` that turn ``anchor_box`` into ``groundtruth_box`` (normalised by means/stds).

    >>> import cellkit as ms
    >>> print(bounding_box_encode(ms.Tensor([[0.0, 0.0, 3.0, 3.0]]), ms.Tensor([[1.0, 1.0, 4.0, 4.0]])))
    [[0.25 0.25 0.   0.  ]]
    """
    return _encode(anchor_box, groundtruth_box, means, stds, "bounding_box_encode")


class BoundingBoxDecode(Primitive):
    """``BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip=0.016)(anchor_box, deltas)``."""

    @prim_attr_register
    def __init__(self, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
        if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
            raise TypeError(f"For 'BoundingBoxDecode', 'max_shape' must be a tuple (height, width), but got "
                            f"{describe(max_shape)}")
        _four(means, "means", "BoundingBoxDecode")
        _four(stds, "stds", "BoundingBoxDecode")

    def __call__(self, anchor_box, deltas):
        return _decode(anchor_box, deltas, self.max_shape, self.means, self.stds, self.wh_ratio_clip,
                       "BoundingBoxDecode")


class BoundingBoxEncode(Primitive):
    """``BoundingBoxEncode(means, stds)(anchor_box, groundtruth_box)``: see :func:`bounding_box_encode`."""

    @prim_attr_register
    def __init__(self, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
        _four(means, "means", "BoundingBoxEncode")
        _four(stds, "stds", "BoundingBoxEncode")

    def __call__(self, anchor_box, groundtruth_box):
        return _encode(anchor_box, groundtruth_box, self.means, self.stds, "BoundingBoxEncode")


# -- overlaps --------------------------------------------------------------------------------------------------
def _iou(anchor_boxes, gt_boxes, mode, op):
    a = _boxes(anchor_boxes, "anchor_boxes", op)
    g = _boxes(gt_boxes, "gt_boxes", op)
    if a.dtype != g.dtype:
        raise TypeError(f"For '{op}', 'anchor_boxes' and 'gt_boxes' must have the same dtype, but got {a.dtype} and "
                        f"{g.dtype}")
    if mode not in ("iou", "iof"):
        raise KeyError(f"For '{op}', 'mode' must be 'iou' or 'iof', but got {mode!r}")
    n, m = a.shape[0], g.shape[0]
    ax0, ay0, ax1, ay1 = (_shape.reshape(_column(a, k), (1, n)) for k in range(4))
    gx0, gy0, gx1, gy1 = (_shape.reshape(_column(g, k), (m, 1)) for k in range(4))
    w = _math.maximum(_math.minimum(ax1, gx1) - _math.maximum(ax0, gx0) + 1.0, 0.0)
    h = _math.maximum(_math.minimum(ay1, gy1) - _math.maximum(ay0, gy0) + 1.0, 0.0)
    overlap = w * h
    area_g = (gx1 - gx0 + 1.0) * (gy1 - gy0 + 1.0)
    if mode == "iof":
        return overlap / area_g
    area_a = (ax1 - ax0 + 1.0) * (ay1 - ay0 + 1.0)
    return overlap / (area_a + area_g - overlap)


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """Intersection over union (or over the ground truth's area, ``mode='iof'``) of every pair of boxes.

    ``anchor_boxes`` (N, 4) and ``gt_boxes`` (M, 4) hold ``(x0, y0, x1, y1)``; the result is (M, N).
    A box covers ``x1 - x0 + 1`` by ``y1 - y0 + 1`` pixels, as in MindSpore.

    >>> import cellkit as ms
    >>> print(iou(ms.Tensor([[0.0, 0.0, 1.0, 1.0]]), ms.Tensor([[1.0, 0.0, 2.0, 1.0]])))
    [[0.33333334]]
    """
    return _iou(anchor_boxes, gt_boxes, mode, "iou")


class IOU(Primitive):
    """``IOU(mode='iou')(anchor_boxes, gt_boxes)``: see :func:`iou`."""

    @prim_attr_register
    def __init__(self, mode="iou"):
        if mode not in ("iou", "iof"):
            raise KeyError(f"For 'IOU', 'mode' must be 'iou' or 'iof', but got {mode!r}")

    def __call__(self, anchor_boxes, gt_boxes):
        return _iou(anchor_boxes, gt_boxes, self.mode, "IOU")


def check_valid(bboxes, img_metas):
    """Whether each box ``(x0, y0, x1, y1)`` lies inside the image ``img_metas = (height, width, ratio)``.

    >>> import cellkit as ms
    >>> print(check_valid(ms.Tensor([[2.0, 2.0, 9.0, 9.0], [3.0, 3.0, 11.0, 12.0]]), ms.Tensor([10.0, 10.0, 1.0])))
    [ True False]
    """
    op = "check_valid"
    b = _boxes(bboxes, "bboxes", op, ("Float16", "Float32"))
    meta = tensor_arg(img_metas, "img_metas", op)
    if str(meta.dtype) not in ("Float16", "Float32"):
        raise TypeError(f"For '{op}', 'img_metas' must be a float16 or float32 Tensor, but got {meta.dtype}")
    if meta.shape != (3,):
        raise ValueError(f"For '{op}', 'img_metas' must have shape (3,) (height, width, ratio), but got "
                         f"{meta.shape}")
    x = xp()
    B = b._data
    height, width, ratio = (float(v) for v in _host(meta._data).tolist())
    ok = (B[:, 0] >= 0) & (B[:, 1] >= 0) & (B[:, 2] <= width * ratio - 1) & (B[:, 3] <= height * ratio - 1)
    return wrap(x.asarray(ok))


# -- greedy CTC decoding -----------------------------------------------------------------------------------------
def _greedy(inputs, sequence_length, merge_repeated, op):
    it = tensor_arg(inputs, "inputs", op)
    if it.ndim != 3:
        raise ValueError(f"For '{op}', 'inputs' must be 3-D (max_time, batch_size, num_classes), but got {it.shape}")
    if str(it.dtype) not in ("Float32", "Float64"):
        raise TypeError(f"For '{op}', 'inputs' must be a float32 or float64 Tensor, but got {it.dtype}")
    st = tensor_arg(sequence_length, "sequence_length", op)
    T, N, C = it.shape
    if C == 0:
        raise ValueError(f"For '{op}', 'inputs' must have at least one class, but got shape {it.shape}")
    if st.shape != (N,) or _dt.dtype_of(st._data).kind not in ("int", "uint"):
        raise ValueError(f"For '{op}', 'sequence_length' must be an int Tensor of shape ({N},), but got "
                         f"{describe(st)}")
    if not isinstance(merge_repeated, bool):
        raise TypeError(f"For '{op}', 'merge_repeated' must be a bool, but got {describe(merge_repeated)}")
    lengths = _host(st._data).astype(np.int64)
    if ((lengths < 0) | (lengths > T)).any():
        raise ValueError(f"For '{op}', 'sequence_length' must be in [0, {T}], but got {lengths.tolist()}")
    scores = _host(it._data)
    blank = C - 1
    indices, values, log_prob = [], [], np.zeros((N, 1), scores.dtype)
    longest = 0
    for b in range(N):
        best = scores[:lengths[b], b].argmax(axis=1)
        log_prob[b, 0] = -scores[np.arange(lengths[b]), b, best].sum()
        decoded, previous = [], -1
        for c in best:
            if c != blank and not (merge_repeated and c == previous):
                decoded.append(int(c))
            previous = c
        indices += [[b, i] for i in range(len(decoded))]
        values += decoded
        longest = max(longest, len(decoded))
    return (wrap(_device(np.array(indices, np.int64).reshape(-1, 2))), wrap(_device(np.array(values, np.int64))),
            wrap(_device(np.array([N, longest], np.int64))), wrap(_device(log_prob)))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Greedy (best-path) CTC decoding of ``(max_time, batch, classes)`` scores; the blank is the last class.

    Returns ``(decoded_indices, decoded_values, decoded_shape, log_probability)``: the decoded
    labels as a sparse matrix (rows ``[batch, position]`` and their values), its dense shape
    ``[batch, longest]``, and minus the sum of each step's best score.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> scores = ms.Tensor(np.array([[[0.9, 0.1, 0.0]], [[0.8, 0.1, 0.1]], [[0.1, 0.1, 0.8]]], np.float32))
    >>> idx, vals, shape, logp = ctc_greedy_decoder(scores, ms.Tensor([3], ms.int32))
    >>> print(vals, shape)
    [0] [1 1]
    """
    return _greedy(inputs, sequence_length, merge_repeated, "ctc_greedy_decoder")


class CTCGreedyDecoder(Primitive):
    """``CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)``: see :func:`ctc_greedy_decoder`."""

    @prim_attr_register
    def __init__(self, merge_repeated=True):
        if not isinstance(merge_repeated, bool):
            raise TypeError(f"For 'CTCGreedyDecoder', 'merge_repeated' must be a bool, but got "
                            f"{describe(merge_repeated)}")

    def __call__(self, inputs, sequence_length):
        return _greedy(inputs, sequence_length, self.merge_repeated, "CTCGreedyDecoder")


# -- non-maximum suppression --------------------------------------------------------------------------------------
def _iou_matrix(boxes, plus_one):
    """Pairwise IoU of (n, 4) host boxes ``(x0, y0, x1, y1)``."""
    extra = 1.0 if plus_one else 0.0
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    area = (x1 - x0 + extra) * (y1 - y0 + extra)
    w = np.maximum(np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None]) + extra, 0)
    h = np.maximum(np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None]) + extra, 0)
    inter = w * h
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (area[:, None] + area[None] - inter)


def _greedy_nms(order, overlaps, threshold, limit):
    """Indices kept by greedy suppression: in ``order``, keep a box unless it overlaps a kept one above ``threshold``."""
    kept = []
    for i in order:
        if len(kept) >= limit:
            break
        if all(not overlaps[i, j] > threshold for j in kept):
            kept.append(int(i))
    return kept


def _scalar(value, name, op, kind):
    if isinstance(value, Tensor):
        if value.ndim > 1 or value.size != 1:
            raise ValueError(f"For '{op}', '{name}' must be a scalar, but got {describe(value)}")
        value = value.asnumpy().reshape(-1)[0].item()
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"For '{op}', '{name}' must be a {'n int' if kind is int else ' float'} scalar, but got "
                        f"{describe(value)}")
    return value


class NMSWithMask(Primitive):
    """``NMSWithMask(iou_threshold=0.5)(bboxes)`` -> ``(output_boxes, output_idx, selected_mask)``.

    ``bboxes`` rows are ``(x0, y0, x1, y1, score)``.  The boxes come back sorted by score
    (descending), with the indices of those rows (Int32, ``0 .. N-1``, as MindSpore's CPU kernel
    returns them) and a Bool mask of those greedy non-maximum suppression keeps (a box is
    dropped when its IoU with a kept, higher-scoring box exceeds ``iou_threshold``).

    >>> import cellkit as ms
    >>> boxes = ms.Tensor([[0.0, 0.0, 2.0, 2.0, 0.6], [0.0, 0.0, 2.0, 2.1, 0.9], [5.0, 5.0, 6.0, 6.0, 0.3]])
    >>> out, idx, mask = NMSWithMask(0.5)(boxes)
    >>> print(out[:, 4], mask)
    [0.9 0.6 0.3] [ True False  True]
    """

    @prim_attr_register
    def __init__(self, iou_threshold=0.5):
        if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, float):
            raise ValueError(f"For 'NMSWithMask', 'iou_threshold' must be a float, but got {describe(iou_threshold)}")

    def __call__(self, bboxes):
        op = "NMSWithMask"
        t = tensor_arg(bboxes, "bboxes", op)
        if t.ndim != 2 or t.shape[1] != 5 or t.shape[0] < 1:
            raise ValueError(f"For '{op}', 'bboxes' must have shape (N, 5) with N > 0, but got {t.shape}")
        if str(t.dtype) not in ("Float16", "Float32"):
            raise TypeError(f"For '{op}', 'bboxes' must be a float16 or float32 Tensor, but got {t.dtype}")
        host = _host(t._data)
        order = np.argsort(-host[:, 4].astype(np.float64), kind="stable")
        overlaps = _iou_matrix(host[:, :4].astype(np.float64), plus_one=False)
        kept = set(_greedy_nms(order, overlaps, float(self.iou_threshold), len(order)))
        mask = np.array([i in kept for i in order])
        # output_idx numbers the rows of output_boxes (MindSpore's CPU kernel returns 0 .. N-1)
        return (wrap(_device(host[order])), wrap(_device(np.arange(len(order), dtype=np.int32))),
                wrap(_device(mask)))


class NonMaxSuppressionWithOverlaps(Primitive):
    """``NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold, score_threshold)``.

    Greedy selection by descending score from a given (n, n) overlap matrix: boxes scoring at
    most ``score_threshold`` are skipped, and a box is dropped when it overlaps a selected one
    by more than ``overlap_threshold``.  Returns the selected indices (Int32, at most
    ``max_output_size``).
    """

    def __call__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        op = "NonMaxSuppressionWithOverlaps"
        ot = tensor_arg(overlaps, "overlaps", op)
        st = tensor_arg(scores, "scores", op)
        if ot.ndim != 2 or ot.shape[0] != ot.shape[1] or st.shape != (ot.shape[0],):
            raise ValueError(f"For '{op}', 'overlaps' must be (n, n) and 'scores' (n,), but got {ot.shape} and "
                             f"{st.shape}")
        for t, name in ((ot, "overlaps"), (st, "scores")):
            if _dt.dtype_of(t._data).kind != "float":
                raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
        limit = _scalar(max_output_size, "max_output_size", op, int)
        if limit < 0:
            raise ValueError(f"For '{op}', 'max_output_size' must be at least 0, but got {limit}")
        threshold = float(_scalar(overlap_threshold, "overlap_threshold", op, numbers.Real))
        floor = float(_scalar(score_threshold, "score_threshold", op, numbers.Real))
        s = _host(st._data).astype(np.float64)
        order = [i for i in np.argsort(-s, kind="stable") if s[i] > floor]
        kept = _greedy_nms(order, _host(ot._data).astype(np.float64), threshold, limit)
        return wrap(_device(np.array(kept, np.int32)))


class CombinedNonMaxSuppression(Primitive):
    """``CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores, max_output_size_per_class,
    max_total_size, iou_threshold, score_threshold)``: TensorFlow's batched, per-class NMS.

    ``boxes`` is (batch, num_boxes, q, 4) with rows ``(y0, x0, y1, x1)`` (q = 1: shared by every
    class) and ``scores`` (batch, num_boxes, classes).  Each class keeps up to
    ``max_output_size_per_class`` boxes scoring above ``score_threshold``; the survivors of all
    classes are sorted by score and the best ``max_total_size`` returned (padded with zeros),
    with their scores, classes (as floats) and the count of valid detections per image.
    """

    @prim_attr_register
    def __init__(self, pad_per_class=False, clip_boxes=True):
        for name, value in (("pad_per_class", pad_per_class), ("clip_boxes", clip_boxes)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CombinedNonMaxSuppression', '{name}' must be a bool, but got {describe(value)}")

    def __call__(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold):
        op = "CombinedNonMaxSuppression"
        bt = tensor_arg(boxes, "boxes", op)
        st = tensor_arg(scores, "scores", op)
        if bt.ndim != 4 or bt.shape[-1] != 4 or st.ndim != 3 or st.shape[:2] != bt.shape[:2] or \
                bt.shape[2] not in (1, st.shape[2]):
            raise ValueError(f"For '{op}', 'boxes' must be (batch, num_boxes, q, 4) and 'scores' (batch, num_boxes, "
                             f"num_classes) with q 1 or num_classes, but got {bt.shape} and {st.shape}")
        per_class = _scalar(max_output_size_per_class, "max_output_size_per_class", op, int)
        total = _scalar(max_total_size, "max_total_size", op, int)
        if per_class < 0 or total <= 0:
            raise ValueError(f"For '{op}', 'max_output_size_per_class' must be >= 0 and 'max_total_size' > 0, but got "
                             f"{per_class} and {total}")
        if bt.shape[0] * total * 4 >= 2 ** 31:
            raise ValueError(f"For '{op}', 'max_total_size' {total} makes an output too large for a batch of "
                             f"{bt.shape[0]}")
        threshold = float(_scalar(iou_threshold, "iou_threshold", op, numbers.Real))
        if not 0 <= threshold <= 1:
            raise ValueError(f"For '{op}', 'iou_threshold' must be in [0, 1], but got {threshold}")
        floor = float(_scalar(score_threshold, "score_threshold", op, numbers.Real))
        B = _host(bt._data).astype(np.float64)
        S = _host(st._data).astype(np.float64)
        batch, n, q, _ = B.shape
        classes = S.shape[2]
        size = min(total, per_class * classes) if self.pad_per_class else total
        out_boxes = np.zeros((batch, size, 4), np.float32)
        out_scores = np.zeros((batch, size), np.float32)
        out_classes = np.zeros((batch, size), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found = []
            for c in range(classes):
                cb = B[b, :, 0 if q == 1 else c]
                corners = np.stack([np.minimum(cb[:, 1], cb[:, 3]), np.minimum(cb[:, 0], cb[:, 2]),
                                    np.maximum(cb[:, 1], cb[:, 3]), np.maximum(cb[:, 0], cb[:, 2])], 1)
                order = [i for i in np.argsort(-S[b, :, c], kind="stable") if S[b, i, c] > floor]
                kept = _greedy_nms(order, _iou_matrix(corners, plus_one=False), threshold, per_class)
                found += [(S[b, i, c], c, cb[i]) for i in kept]
            found.sort(key=lambda item: -item[0])
            found = found[:size]
            valid[b] = len(found)
            for k, (score, c, box) in enumerate(found):
                out_boxes[b, k] = np.clip(box, 0, 1) if self.clip_boxes else box
                out_scores[b, k] = score
                out_classes[b, k] = c
        return (wrap(_device(out_boxes)), wrap(_device(out_scores)), wrap(_device(out_classes)),
                wrap(_device(valid)))


# -- ROI align -------------------------------------------------------------------------------------------------------
class ROIAlign(Primitive):
    """``ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(features, rois)``.

    Each ROI ``(image_index, x0, y0, x1, y1)`` is divided into ``pooled_height x
    pooled_width`` bins; each bin averages ``sample_num x sample_num`` bilinear samples of the
    (N, C, H, W) features (Mask R-CNN).  ``roi_end_mode=1`` shifts the ROI's far corner by
    ``+1 * spatial_scale``.  Differentiable in the features.
    """

    @prim_attr_register
    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
        op = "ROIAlign"
        for name, value in (("pooled_height", pooled_height), ("pooled_width", pooled_width),
                            ("sample_num", sample_num), ("roi_end_mode", roi_end_mode)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(value)}")
        if pooled_height < 1 or pooled_width < 1 or pooled_height * pooled_width >= 2 ** 24 or sample_num < 0 \
                or sample_num > 64:
            raise ValueError(f"For '{op}', the pooled size must be positive and 'sample_num' in [0, 64], but got "
                             f"{(pooled_height, pooled_width)} and {sample_num}")
        if roi_end_mode not in (0, 1):
            raise ValueError(f"For '{op}', 'roi_end_mode' must be 0 or 1, but got {roi_end_mode}")
        if isinstance(spatial_scale, bool) or not isinstance(spatial_scale, float):
            raise TypeError(f"For '{op}', 'spatial_scale' must be a float, but got {describe(spatial_scale)}")

    def __call__(self, features, rois):
        from .math import clamp

        op = "ROIAlign"
        ft = tensor_arg(features, "features", op)
        rt = tensor_arg(rois, "rois", op)
        if ft.ndim != 4 or rt.ndim != 2 or rt.shape[1] != 5:
            raise ValueError(f"For '{op}', 'features' must be (N, C, H, W) and 'rois' (rois_n, 5), but got "
                             f"{ft.shape} and {rt.shape}")
        for t, name in ((ft, "features"), (rt, "rois")):
            if str(t.dtype) not in ("Float16", "Float32", "Float64"):
                raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
        n, c, h, w = ft.shape
        ph, pw = self.pooled_height, self.pooled_width
        r = rt.shape[0]
        host = _host(rt._data).astype(np.float64)
        index = host[:, 0].astype(np.int64)
        if ((index < 0) | (index >= n)).any():
            raise ValueError(f"For '{op}', the image index of every roi must be in [0, {n}), but got {index.tolist()}")
        scale = float(self.spatial_scale)
        mode = self.roi_end_mode
        x0, y0 = host[:, 1] * scale, host[:, 2] * scale
        x1, y1 = (host[:, 3] + mode) * scale, (host[:, 4] + mode) * scale
        roi_w, roi_h = x1 - x0, y1 - y0
        if mode == 0:  # the legacy mode makes malformed rois at least 1 x 1
            roi_w, roi_h = np.maximum(roi_w, 1.0), np.maximum(roi_h, 1.0)
        bin_w, bin_h = roi_w / pw, roi_h / ph
        # sample_num=0: as many samples as whole pixels per bin (MindSpore's CPU kernel truncates, at least 1)
        grid_h = np.full(r, self.sample_num) if self.sample_num > 0 else np.maximum(np.floor(roi_h / ph), 1).astype(
            np.int64)
        grid_w = np.full(r, self.sample_num) if self.sample_num > 0 else np.maximum(np.floor(roi_w / pw), 1).astype(
            np.int64)
        gh, gw = int(grid_h.max()), int(grid_w.max())
        # sample points (r, ph, pw, gh, gw), with a weight 1/count for the samples each roi really takes
        iy = np.arange(gh)[None, :]
        ix = np.arange(gw)[None, :]
        ys = (y0[:, None, None] + np.arange(ph)[None, :, None] * bin_h[:, None, None]
              + ((iy + 0.5) / grid_h[:, None])[:, None, :] * bin_h[:, None, None])          # (r, ph, gh)
        xs = (x0[:, None, None] + np.arange(pw)[None, :, None] * bin_w[:, None, None]
              + ((ix + 0.5) / grid_w[:, None])[:, None, :] * bin_w[:, None, None])          # (r, pw, gw)
        Y = np.broadcast_to(ys[:, :, None, :, None], (r, ph, pw, gh, gw))
        X = np.broadcast_to(xs[:, None, :, None, :], (r, ph, pw, gh, gw))
        use = ((iy[0] < grid_h[:, None])[:, None, None, :, None] & (ix[0] < grid_w[:, None])[:, None, None, None, :])
        inside = (Y >= -1.0) & (Y <= h) & (X >= -1.0) & (X <= w)
        count = (grid_h * grid_w).astype(np.float64)
        weight = (use & inside) / count[:, None, None, None, None]
        dtype = np.dtype(str(ft._data.dtype).rsplit(".", 1)[-1])
        yy = clamp(wrap(_device(np.ascontiguousarray(Y).reshape(-1).astype(dtype))), 0.0, float(h - 1))
        xx = clamp(wrap(_device(np.ascontiguousarray(X).reshape(-1).astype(dtype))), 0.0, float(w - 1))
        rows = _shape.reshape(_shape.transpose(ft, (0, 2, 3, 1)), (-1, c))
        batch = _device(np.repeat(index, ph * pw * gh * gw))
        vals = sample_points(rows, batch, [yy, xx], (h, w), "bilinear")            # (r*ph*pw*gh*gw, C)
        vals = vals * wrap(_device(weight.reshape(-1, 1).astype(dtype)))
        pooled = _reduce.sum(_shape.reshape(vals, (r, ph, pw, gh * gw, c)), 3)
        return _shape.transpose(pooled, (0, 3, 1, 2))


# -- colour adjustments ------------------------------------------------------------------------------------------------
def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    mn = rgb.min(-1)
    d = v - mn
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, d / v, 0.0)
        rc = np.where(d > 0, (v - r) / d, 0.0)
        gc = np.where(d > 0, (v - g) / d, 0.0)
        bc = np.where(d > 0, (v - b) / d, 0.0)
    h = np.where(r == v, bc - gc, np.where(g == v, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(d > 0, (h / 6.0) % 1.0, 0.0)
    return h, s, v


def _hsv_to_rgb(h, s, v):
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    r = np.choose(i, [v, q, p, p, t, v])
    g = np.choose(i, [t, v, v, q, p, p])
    b = np.choose(i, [p, p, t, v, v, q])
    return np.stack([r, g, b], -1)


def _adjust(image, amount, op, names, fn):
    it = tensor_arg(image, names[0], op)
    at = tensor_arg(amount, names[1], op)
    if str(it.dtype) not in ("Float16", "Float32"):
        raise TypeError(f"For '{op}', '{names[0]}' must be a float16 or float32 Tensor, but got {it.dtype}")
    if str(at.dtype) != "Float32" or at.ndim != 0:
        raise TypeError(f"For '{op}', '{names[1]}' must be a 0-D float32 Tensor, but got {describe(at)}")
    if it.ndim < 3 or it.shape[-1] != 3:
        raise ValueError(f"For '{op}', '{names[0]}' must have at least 3 dimensions and 3 channels last, but got "
                         f"shape {it.shape}")
    host = _host(it._data)
    h, s, v = _rgb_to_hsv(host.astype(np.float64))
    out = _hsv_to_rgb(*fn(h, s, v, float(_host(at._data))))
    return wrap(_device(out.astype(host.dtype)))


class AdjustHue(Primitive):
    """``AdjustHue()(image, delta)``: shift the hue of RGB images (last axis) by ``delta`` (in turns, wrapping).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(AdjustHue()(ms.Tensor(np.array([[[1.0, 0.0, 0.0]]], np.float32)), ms.Tensor(0.5, ms.float32)))
    [[[0. 1. 1.]]]
    """

    def __call__(self, image, delta):
        return _adjust(image, delta, "AdjustHue", ("image", "delta"), lambda h, s, v, d: ((h + d) % 1.0, s, v))


class AdjustSaturation(Primitive):
    """``AdjustSaturation()(image, scale)``: multiply the saturation of RGB images by ``scale`` (clipped to [0, 1])."""

    def __call__(self, image, scale):
        return _adjust(image, scale, "AdjustSaturation", ("image", "scale"),
                       lambda h, s, v, k: (h, np.clip(s * k, 0.0, 1.0), v))
