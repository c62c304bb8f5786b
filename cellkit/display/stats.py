"""Statistics of a tensor, computed where its values live.

:func:`summarize` works with the backend's array namespace
(``cellkit.backend.current().xp``: NumPy, CuPy, or ``array_api_strict`` on a
pretend device): the reductions and the histogram binning run on the
device, and only a handful of scalars (counts, mean, std, min, max) and the
bin counts are copied to the host, never the tensor.  On a GPU the counts,
mean, std, min and max come from one fused kernel that reads each value
once (:mod:`cellkit.display.stats_kernel`); the histogram, which needs the
range first, is a second pass.  Other namespaces use their reductions.
:func:`preview` copies only the corner values a display shows.

Non-finite values are counted (NaN, +Inf, -Inf) and left out of the mean,
std, min, max and histogram, so one NaN does not hide the rest.

>>> import numpy as np
>>> s = summarize(np.array([1.0, 2.0, np.nan, 3.0, np.inf], dtype=np.float32))
>>> s.size, s.nan, s.posinf, s.finite, s.mean, s.min, s.max
(5, 1, 1, 3, 2.0, 1.0, 3.0)
>>> sum(s.hist)
3
"""
from __future__ import annotations

import math

import numpy as np

from .. import backend as _backend
from .. import dtype as _dt

__all__ = ["Summary", "summarize", "preview", "device_of", "to_host", "namespace_of", "HIST_BINS"]

HIST_BINS = 16


class Summary:
    """What :func:`summarize` found (plain Python numbers, on the host).

    Attributes
    ----------
    size, nan, posinf, neginf, finite : int
        Element counts.
    mean, std, min, max : float or None
        Over the finite values (``None`` when there are none).
    hist : list of int
        Counts of the finite values in ``len(hist)`` equal bins from
        ``lo`` to ``hi`` (integers with a small range get one bin per value).
    """

    __slots__ = ("size", "nan", "posinf", "neginf", "finite", "mean", "std", "min", "max",
                 "hist", "lo", "hi", "kind")

    def __init__(self, size=0, kind="float"):
        self.size = size
        self.kind = kind
        self.nan = self.posinf = self.neginf = 0
        self.finite = size
        self.mean = self.std = self.min = self.max = None
        self.hist = []
        self.lo = self.hi = None

    @property
    def inf(self):
        return self.posinf + self.neginf

    def __repr__(self):
        return (f"Summary(size={self.size}, nan={self.nan}, inf={self.inf}, mean={self.mean}, std={self.std}, "
                f"min={self.min}, max={self.max})")


def namespace_of(array):
    """The namespace to compute on ``array`` with: NumPy for NumPy arrays, else the backend's."""
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    be = _backend.current()
    if be.is_numpy and hasattr(array, "__array_namespace__"):
        return array.__array_namespace__()  # an array made under another backend (a `use` block)
    return be.xp


def to_host(array):
    """A NumPy copy of a (small) device array: the only host transfer this module makes."""
    if isinstance(array, (np.ndarray, np.generic)):
        return np.asarray(array)
    if hasattr(array, "get") and callable(array.get):  # CuPy
        return array.get()
    be = _backend.current()
    if not be.is_numpy:
        return np.asarray(be.to_host(array))
    ns = array.__array_namespace__()
    return np.asarray(array.to_device(ns.Device("CPU_DEVICE")))


def device_of(array) -> str:
    """A short device label: ``'CPU'``, ``'GPU:0'`` or the namespace's own device name."""
    if array is None:
        return "–"
    if isinstance(array, (np.ndarray, np.generic)):
        return "CPU"
    device = getattr(array, "device", None)
    number = getattr(device, "id", None)
    if isinstance(number, int):
        return f"GPU:{number}"
    text = str(device)
    if "(" in text and text.endswith(")"):  # array_api_strict.Device('device1') -> device1
        text = text[text.index("(") + 1:-1].strip("'\"")
    return text or "?"


def _count(xp, mask):
    counter = getattr(xp, "count_nonzero", None)
    if counter is not None:
        return counter(mask)
    return xp.sum(xp.astype(mask, xp.int64))


def _bincount(xp, index, length):
    """Counts of ``0 .. length-1`` in the integer array ``index``, on the device."""
    counter = getattr(xp, "bincount", None)
    if counter is not None:
        return counter(index, minlength=length)[:length]
    return xp.stack([_count(xp, index == k) for k in range(length)])


def summarize(data, bins=HIST_BINS) -> Summary:
    """Counts, mean, std, min, max and a histogram of a backend array (see the module doc).

    ``data`` is the array itself (``tensor._data``).  Integers with fewer
    distinct possible values than ``bins`` get one bin per value; booleans
    two bins (False, True).  On a GPU the counts and moments come from one
    fused kernel (:mod:`cellkit.display.stats_kernel`); elsewhere from the
    namespace's reductions.
    """
    kind = _dt.dtype_of(data).kind
    size = 1
    for d in data.shape:
        size *= int(d)
    summary = Summary(size, kind)
    if size == 0:
        return summary
    xp = namespace_of(data)
    fused = _fused_moments(xp, data)
    x = xp.reshape(data, (-1,))
    work = xp.float64  # float32 sums lose digits and its squares underflow (a std of 1e-23 values)
    if x.dtype != work:
        x = xp.astype(x, work)
    finite = xp.isfinite(x) if kind == "float" else None
    zero = xp.zeros_like(x[:1])
    clean = x if finite is None else xp.where(finite, x, zero)
    if fused is not None:  # one pass on the device gave everything but the histogram
        summary.nan, summary.posinf, summary.neginf, summary.finite = (
            fused["nan"], fused["posinf"], fused["neginf"], fused["finite"])
        if summary.finite == 0:
            return summary
        low, high = fused["min"], fused["max"]
        summary.mean, summary.std = fused["mean"], fused["std"]
    else:
        # -- pass 1 on the device: counts, sum, extremes; one small copy to the host
        if finite is not None:
            counts = [_count(xp, xp.isnan(x)), _count(xp, x == math.inf), _count(xp, x == -math.inf),
                      _count(xp, finite)]
            low = xp.min(xp.where(finite, x, zero + math.inf))
            high = xp.max(xp.where(finite, x, zero - math.inf))
        else:
            counts = []
            low, high = xp.min(x), xp.max(x)
        total = xp.sum(clean)
        host = to_host(xp.stack([xp.astype(xp.asarray(v) if not hasattr(v, "dtype") else v, xp.float64)
                                 for v in counts + [total, low, high]]))
        values = [float(v) for v in host.tolist()]
        if finite is not None:
            summary.nan, summary.posinf, summary.neginf, summary.finite = (int(v) for v in values[:4])
            values = values[4:]
        if summary.finite == 0:
            return summary
        total, low, high = values
        summary.mean = total / summary.finite
    # -- the histogram (and, without the fused kernel, the spread): one more small copy
    lo, hi, nbins = low, high, bins
    if kind == "bool":
        lo, hi, nbins = -0.5, 1.5, 2
    elif kind in ("int", "uint") and high - low + 1 <= bins:
        lo, hi, nbins = low - 0.5, high + 0.5, int(high - low + 1)
    elif high == low:
        lo, hi, nbins = low - 0.5, high + 0.5, 1
    scale = nbins / (hi - lo)
    position = xp.floor((clean - lo) * scale)
    position = xp.clip(position, 0, nbins - 1)
    index = xp.astype(position, xp.int64)
    if finite is not None:
        index = xp.where(finite, index, xp.full_like(index[:1], nbins))  # non-finite: an extra bin, dropped
    counts = xp.astype(_bincount(xp, index, nbins + 1)[:nbins], xp.float64)  # the extra bin stays here
    if fused is None:
        spread = clean - summary.mean
        if finite is not None:
            spread = xp.where(finite, spread, xp.zeros_like(spread[:1]))
        counts = xp.concat([xp.reshape(xp.astype(xp.sum(spread * spread), xp.float64), (1,)), counts])
    values = to_host(counts).tolist()
    if fused is None:
        summary.std = math.sqrt(max(values[0], 0.0) / summary.finite)
        values = values[1:]
    summary.min, summary.max = low, high
    summary.hist = [int(v) for v in values]
    summary.lo, summary.hi = lo, hi
    return summary


# Set when the fused GPU kernel failed once (no compiler, a driver problem): use the portable path.
_fused_unavailable = []


def _fused_moments(xp, data):
    """The one-pass GPU figures for a CuPy array, or None (NumPy, strict, or the kernel failed)."""
    if _fused_unavailable or getattr(xp, "RawModule", None) is None:  # only CuPy has RawModule
        return None
    try:
        from . import stats_kernel

        return stats_kernel.moments(xp, data)
    except Exception as exc:  # noqa: BLE001 - a display never fails: fall back, and say so once
        _fused_unavailable.append(exc)
        import warnings

        warnings.warn(f"cellkit.display: the one-pass GPU statistics kernel failed ({type(exc).__name__}: "
                      f"{exc}); using the portable reductions", RuntimeWarning, stacklevel=3)
        return None


def preview(data, rows=8, cols=8):
    """The corner values a display shows: ``(host array, row labels, column labels, leading index)``.

    A tensor of rank > 2 shows its first matrix ``x[0, ..., 0, :, :]`` (the
    leading index is returned); an axis longer than ``rows`` / ``cols`` keeps
    its first and last halves, and its labels get ``None`` where the cut is.
    Only these values are copied to the host.

    >>> import numpy as np
    >>> values, row_labels, col_labels, lead = preview(np.arange(100).reshape(10, 10), rows=4, cols=4)
    >>> values.shape, row_labels, col_labels[:3], lead
    ((4, 4), [0, 1, None, 8, 9], [0, 1, None], ())
    """
    xp = namespace_of(data)
    lead = ()
    if len(data.shape) > 2:
        lead = (0,) * (len(data.shape) - 2)
        data = data[lead + (Ellipsis,)]
    if len(data.shape) == 0:
        return to_host(data), None, None, lead
    if len(data.shape) == 1:
        part, labels = _cut(xp, data, 0, rows * cols // 4 if rows * cols >= 16 else rows)
        return to_host(part), labels, None, lead
    part, row_labels = _cut(xp, data, 0, rows)
    part, col_labels = _cut(xp, part, 1, cols)
    return to_host(part), row_labels, col_labels, lead


def _cut(xp, data, axis, limit):
    n = int(data.shape[axis])
    if n <= limit:
        return data, list(range(n))
    head = limit // 2
    tail = limit - head
    if axis == 0:
        first, last = data[:head, ...], data[n - tail:, ...]
    else:
        first, last = data[:, :head], data[:, n - tail:]
    labels = list(range(head)) + [None] + list(range(n - tail, n))
    return xp.concat([first, last], axis=axis), labels
