"""Turning a value into the fields of a ``Summary.Value``: scalar, tensor, image, histogram.

These follow what MindSpore 2.10 writes, field for field, so that the files of
both compare equal and MindInsight shows them the same way:

- **scalar**: the one element as a 32-bit float (a value with more elements gives
  its first; an empty value is left out of the event);
- **tensor**: ``dims`` = the shape, ``data_type`` = the dtype's ``DT_*`` code, and
  every element in ``float_data`` (as MindSpore does, even for integers: values
  past 2**24 lose digits);
- **histogram**: the count, the NaN / +inf / -inf counts, ``min`` / ``max`` / ``sum``
  of the finite values and equal-width buckets between min and max -- 2 buckets
  for 1..5 finite values, 3 for 6..10, ``n // 10 + 1`` up to 880, then 90.  The
  edges are computed in the value's own dtype, as MindSpore does;
- **image**: an ``NCHW`` batch laid out on a canvas of up to 8 images a row (grey
  images repeated to RGB), scaled to 0..255 (values in [0, 1] are multiplied by
  255; any other range is mapped linearly from its minimum by
  ``255 / (max - min + 1)`` -- uint8 images included, as in MindSpore, whose
  canvas is always float) and stored as a PNG.

>>> import numpy as np
>>> from cellkit.train.summary.messages import message_class
>>> value = message_class("Summary").Value(tag="w")
>>> fill_histogram(np.array([0.0, 1.0, 2.0, np.nan], np.float32), value.histogram)
>>> value.histogram.count, value.histogram.nan_count, [b.count for b in value.histogram.buckets]
(4, 1, [1, 2])
"""
from __future__ import annotations

import io
import logging

import numpy as np

from .messages import DATA_TYPES

__all__ = ["fill_scalar", "fill_tensor", "fill_histogram", "fill_image", "histogram_bins", "proto_dtype"]

_log = logging.getLogger("cellkit.train.summary")

_DTYPE_CODES = {
    np.bool_: "DT_BOOL", np.int8: "DT_INT8", np.int16: "DT_INT16", np.int32: "DT_INT32", np.int64: "DT_INT64",
    np.uint8: "DT_UINT8", np.uint16: "DT_UINT16", np.uint32: "DT_UINT32", np.uint64: "DT_UINT64",
    np.float16: "DT_FLOAT16", np.float32: "DT_FLOAT32", np.float64: "DT_FLOAT64",
}
_F32 = np.finfo(np.float32)
_IMAGE_COLUMNS = 8


def proto_dtype(array):
    """The ``DataType`` number of a NumPy array's dtype; TypeError for a dtype a summary cannot hold."""
    name = _DTYPE_CODES.get(array.dtype.type)
    if name is None:
        raise TypeError("Transform numpy type failed in Summary, expect numpy type is one of ['np.bool_', 'np.int8', "
                        "'np.int16', 'np.int32', 'np.int64', 'np.uint8', 'np.uint16', 'np.uint32', 'np.uint64', "
                        f"'np.float16', 'np.float32', 'np.float64'], but got {array.dtype}.")
    return DATA_TYPES[name]


def fill_scalar(tag, array, value):
    """Set ``value.scalar_value``; False (nothing set) for an empty array."""
    if array.size == 0:
        _log.error("The summary value %r holds no element: it is left out of the event.", tag)
        return False
    value.scalar_value = array.reshape(-1)[0].item()
    return True


def fill_tensor(tag, array, tensor):
    """Fill a ``TensorProto``: dims, data type and the elements as floats."""
    tensor.data_type = proto_dtype(array)
    tensor.float_data.extend(array.reshape(-1).tolist())
    tensor.dims.extend(array.shape)


def histogram_bins(count):
    """How many buckets a histogram of ``count`` finite values gets."""
    if not count:
        return 1
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    if count <= 880:
        return count // 10 + 1
    return 90


def fill_histogram(array, histogram):
    """Fill a ``Summary.Histogram`` from ``array`` (any shape)."""
    finite = np.ma.masked_invalid(array)
    total, valid = array.size, int(finite.count())
    # MindSpore counts each kind of non-finite value only while some remain uncounted.
    counts = []
    for test in (np.isnan, np.isposinf, np.isneginf):
        counts.append(int(np.count_nonzero(test(array))) if total - valid > sum(counts) else 0)
    histogram.count = total
    histogram.nan_count, histogram.pos_inf_count, histogram.neg_inf_count = counts
    if not valid:
        _log.warning("There are no finite values in the array (size=%d, shape=%s) of a histogram", total, array.shape)
        return
    if issubclass(array.dtype.type, np.floating):
        histogram.min = finite.min(fill_value=np.inf)
        histogram.max = finite.max(fill_value=-np.inf)
        if histogram.min < _F32.min or histogram.max > _F32.max:
            _log.warning("Histogram values (%s, %s) are beyond float32's range", histogram.min, histogram.max)
    else:
        histogram.min = finite.min()
        histogram.max = finite.max()
    histogram.sum = finite.sum(dtype=np.float64)
    low, high = histogram.min, histogram.max
    if not low < high:
        low, high = low - 0.5, high + 0.5
    edges = np.linspace(low, high, histogram_bins(valid) + 1, dtype=array.dtype)
    counts, edges = np.histogram(array, bins=edges)
    for count, left, right in zip(counts, edges, edges[1:]):
        bucket = histogram.buckets.add()
        bucket.width = right - left
        bucket.count = count
        bucket.left = left


def _canvas(nchw):
    """The images of an NCHW batch side by side, up to 8 a row, as a float CHW array with 3 channels."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw, nchw, nchw], 1)
    n, _, h, w = nchw.shape
    cols = min(n, _IMAGE_COLUMNS)
    rows = int(np.ceil(float(n) / cols))
    canvas = np.zeros((3, h * rows, w * cols))
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = nchw[i]
    return canvas


def fill_image(tag, array, image):
    """Fill a ``Summary.Image`` (a PNG) from an NCHW array; False (nothing set) if it is no image."""
    if array.ndim != 4 or array.shape[1] not in (1, 3):
        _log.error("The summary value %r (shape %s) is not an image: expected N x C x H x W with C = 1 or 3; "
                   "it is left out of the event.", tag, array.shape)
        return False
    if 0 in array.shape:
        _log.error("The summary value %r has shape %s, which contains zero; it is left out of the event.",
                   tag, array.shape)
        return False
    hwc = _canvas(array).transpose(1, 2, 0)
    scale, shift = 1, 0
    high, low = np.max(hwc), np.min(hwc)
    if hwc.dtype == np.uint8:  # never true for the float canvas: kept to mirror MindSpore's reading
        scale = 1
    elif high <= 1 and low >= 0:
        scale = 255
    else:
        if high != low:
            scale = 255 / (high - low + 1)
        shift = low
    pixels = ((hwc.astype(np.float32) - shift) * scale).astype(np.uint8)
    height, width, channels = pixels.shape
    from PIL import Image

    picture = Image.fromarray(pixels)
    picture = picture.resize((width, height), Image.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    image.height, image.width, image.colorspace = height, width, channels
    image.encoded_image = buffer.getvalue()
    return True
