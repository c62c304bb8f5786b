"""Gradient flow: per Cell, how much gradient reaches its parameters and flows through its output.

Two numbers per Cell, both computed in float64 so that a vanishing gradient
of 4e-23 reads as 4e-23 and not as 0 (its square underflows float32):

- ``param_norm``: the norm of the latest gradients of the Parameters below
  the Cell (each Parameter counted once), read from ``param._last_grad``,
  which every gradient transform leaves on the Parameters it differentiates;
- ``output_norm``: the norm of the gradient that reached the Cell's output
  in the last backward pass of a :func:`cellkit.trace` recording (its
  ``backward_pre`` event), when a trace is given.

Each gets a status: ``'nan'`` (NaN or Inf), ``'vanishing'`` (below
``vanishing``), ``'exploding'`` (above ``exploding``) or ``'ok'``.  The tree
(``cell_tree(net, gradients=True)``), the parameter table, the explorer and
the heatmap over training (:mod:`cellkit.display.gradflow_history`) all
read these numbers and draw them with :func:`log_bar` on one log scale.

>>> import numpy as np
>>> f"{array_norm(np.array([3e-23, 4e-23], np.float32)):.3g}"   # in float32 the squares underflow: 0
'5e-23'
>>> combine_norms([3.0, 4.0]), combine_norms([]), combine_norms([1.0, float("nan")])
(5.0, None, nan)
>>> status_of(1e-9, 1e-7, 1e3), status_of(2.0, 1e-7, 1e3), status_of(float("inf"), 1e-7, 1e3)
('vanishing', 'ok', 'nan')
"""
from __future__ import annotations

import math

import numpy as np

from .. import backend as _backend
from ..tensor import Tensor
from .html import TONES, Raw, el, format_number, themed

__all__ = ["array_norm", "array_norms", "combine_norms", "param_grad_norm", "status_of", "CellGradient", "cell_gradients",
           "log_bar", "log_position", "STATUS_TONES", "VANISHING", "EXPLODING"]

VANISHING = 1e-7   # the trace's defaults: one pair of thresholds everywhere
EXPLODING = 1e3
LOG_LOW, LOG_HIGH = -24, 6   # the bar's scale: 1e-24 .. 1e6
STATUS_TONES = {"ok": "ok", "vanishing": "vanishing", "exploding": "exploding", "nan": "error"}


def array_norm(data):
    """The Euclidean norm of a backend array as a Python float, computed in float64 on its device.

    Scaled by the largest magnitude first, so neither tiny nor huge values
    underflow or overflow; ``nan`` when any element is NaN, ``inf`` when any
    is infinite (and none is NaN).
    """
    with np.errstate(all="ignore"):  # a display's own arithmetic warns nobody (nor a trace's error watch)
        return _array_norm(data)


def _array_norm(data):
    if isinstance(data, (np.ndarray, np.generic)):
        # The common case, on the host: one float64 dot product (a few microseconds for a layer's weight);
        # the scaled form below only when the sum of squares could have lost the value (tiny, huge, NaN).
        x = np.asarray(data, dtype=np.float64).reshape(-1)
        ssq = float(x @ x) if x.size else 0.0
        if 1e-280 < ssq < 1e280:
            return math.sqrt(ssq)
    be = _backend.current()
    if isinstance(data, (np.ndarray, np.generic)):
        xp = np
    else:
        xp = be.xp
    size = 1
    for d in data.shape:
        size *= int(d)
    if size == 0:
        return 0.0
    x = xp.astype(xp.reshape(data, (-1,)), xp.float64)
    largest = xp.max(xp.abs(x))
    finite_top = xp.where(xp.isfinite(largest), largest, xp.ones_like(largest))
    safe = xp.where(finite_top > 0, finite_top, xp.ones_like(largest))
    scaled = x / safe
    ssq = xp.sum(scaled * scaled)
    both = xp.stack([xp.astype(largest, xp.float64), xp.astype(ssq, xp.float64)])
    host = np.asarray(both) if xp is np else np.asarray(be.to_host(both))
    largest, ssq = float(host[0]), float(host[1])
    if math.isnan(largest) or math.isnan(ssq):
        return math.nan
    if math.isinf(largest):
        return math.inf
    return largest * math.sqrt(ssq)


def array_norms(arrays):
    """The norms of many backend arrays, as :func:`array_norm` gives them, in one pass where it can.

    Host arrays are joined into one float64 vector and summed per segment
    (``numpy.add.reduceat``): ten thousand small gradients take milliseconds,
    not ten thousand calls.  A segment whose sum of squares could have lost
    its value (zero, huge, NaN) is computed again on its own, scaled.

    >>> import numpy as np
    >>> [round(n, 6) for n in array_norms([np.array([3.0, 4.0]), np.zeros(2), np.array([1e-200])])]
    [5.0, 0.0, 0.0]
    >>> array_norms([np.array([1e-200])])[0] > 0
    True
    """
    arrays = list(arrays)
    if not arrays or not all(isinstance(a, np.ndarray) and a.size for a in arrays):
        return [array_norm(a) for a in arrays]
    with np.errstate(all="ignore"):
        return _host_norms(arrays)


def _host_norms(arrays):
    flat = np.concatenate([np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays])
    offsets = np.cumsum([0] + [a.size for a in arrays[:-1]])
    sums = np.add.reduceat(flat * flat, offsets).tolist()
    largest = np.maximum.reduceat(np.abs(flat), offsets).tolist()
    out = []
    for a, ssq, top in zip(arrays, sums, largest):
        if 1e-280 < ssq < 1e280:
            out.append(math.sqrt(ssq))
        elif top == 0.0:
            out.append(0.0)  # all zeros (an unused Parameter's gradient): exactly 0
        else:
            out.append(array_norm(a))
    return out


def combine_norms(norms):
    """The norm of several arrays from their norms (``sqrt`` of the sum of squares, scaled); None if empty."""
    norms = [float(n) for n in norms if n is not None]
    if not norms:
        return None
    if any(math.isnan(n) for n in norms):
        return math.nan
    if any(math.isinf(n) for n in norms):
        return math.inf
    largest = max(norms)
    if largest == 0:
        return 0.0
    return largest * math.sqrt(sum((n / largest) ** 2 for n in norms))


def param_grad_norm(param):
    """The float64 norm of ``param``'s latest gradient, or None if none was recorded.

    ``param._last_grad`` (set by the gradient transforms) is read, on the
    device; anything may instead set ``param._last_grad_norm``.
    """
    d = getattr(param, "__dict__", None) or {}
    value = d.get("_last_grad_norm")
    if value is None:
        grad = d.get("_last_grad")
        if not isinstance(grad, Tensor) or grad._data is None:
            return None
        try:
            return array_norm(grad._data)
        except Exception:  # noqa: BLE001 -- an odd value is shown as missing, not raised
            return None
    try:
        if isinstance(value, Tensor):
            value = value.asnumpy()
        return float(np.asarray(value, dtype=np.float64).reshape(()))
    except Exception:  # noqa: BLE001
        return None


def _grad_norms(params):
    """``param_grad_norm`` of many Parameters, their recorded gradients' norms computed in one pass."""
    out = [None] * len(params)
    arrays, where = [], []
    for i, p in enumerate(params):
        d = getattr(p, "__dict__", None) or {}
        grad = d.get("_last_grad")
        if d.get("_last_grad_norm") is not None or not isinstance(grad, Tensor) or grad._data is None:
            out[i] = param_grad_norm(p)
        else:
            arrays.append(grad._data)
            where.append(i)
    try:
        for i, norm in zip(where, array_norms(arrays)):
            out[i] = norm
    except Exception:  # noqa: BLE001 -- odd arrays: one at a time (and None where that fails too)
        for i in where:
            out[i] = param_grad_norm(params[i])
    return out


def status_of(norm, vanishing=VANISHING, exploding=EXPLODING):
    """``'nan'``, ``'vanishing'``, ``'exploding'``, ``'ok'``, or None for no gradient."""
    if norm is None:
        return None
    norm = float(norm)
    if math.isnan(norm) or math.isinf(norm):
        return "nan"
    if norm < vanishing:
        return "vanishing"
    if norm > exploding:
        return "exploding"
    return "ok"


class CellGradient:
    """The gradient figures of one Cell (see the module docstring)."""

    __slots__ = ("path", "param_norm", "output_norm", "vanishing", "exploding")

    def __init__(self, path, param_norm=None, output_norm=None, vanishing=VANISHING, exploding=EXPLODING):
        self.path = path
        self.param_norm = param_norm
        self.output_norm = output_norm
        self.vanishing = vanishing
        self.exploding = exploding

    @property
    def status(self):
        """The worst status of the two norms (NaN over exploding over vanishing over ok)."""
        found = [status_of(n, self.vanishing, self.exploding) for n in (self.param_norm, self.output_norm)]
        for status in ("nan", "exploding", "vanishing", "ok"):
            if status in found:
                return status
        return None

    @property
    def norm(self):
        """The figure shown first: the parameters' gradient norm, else the output's."""
        return self.param_norm if self.param_norm is not None else self.output_norm

    def __repr__(self):
        return (f"CellGradient({self.path!r}, param_norm={self.param_norm}, output_norm={self.output_norm}, "
                f"status={self.status!r})")


def _trace_output_norms(trace):
    """path -> norm of the gradient at the Cell's output in the trace's last backward pass through it."""
    found = {}
    for event in getattr(trace, "events", ()):
        if event.get("kind") != "backward_pre":
            continue
        norms = []
        for t in event.get("tensors", ()):
            if t.get("role") == "grad_output" and "norm" in t:
                norms.append(float(t["norm"]))
        found[event.get("path", "?")] = combine_norms(norms)
    return found


def cell_gradients(net, trace=None, vanishing=None, exploding=None):
    """``{path: CellGradient}`` for every Cell of ``net`` (``''`` is the network itself).

    ``param_norm`` covers the Parameters below each Cell (a Parameter held
    in two places counts at the first); ``output_norm`` comes from
    ``trace`` (None without one).  Thresholds default to the trace's, else
    1e-7 and 1e3.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.SequentialCell(nn.Dense(2, 2), nn.Dense(2, 1))
    >>> _ = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(ms.ops.ones((1, 2)))
    >>> flow = cell_gradients(net)
    >>> flow["1"].param_norm > 0, flow[""].status
    (True, 'ok')
    """
    settings = getattr(trace, "settings", None) or {}
    vanishing = float(vanishing if vanishing is not None else settings.get("vanishing", VANISHING))
    exploding = float(exploding if exploding is not None else settings.get("exploding", EXPLODING))
    outputs = _trace_output_norms(trace) if trace is not None else {}
    paths = []
    holders = []        # (path, Parameter) of every Parameter once, at its first place
    seen = set()
    for path, cell in net.cells_and_names():
        paths.append(path)
        for p in (cell.__dict__.get("_params") or {}).values():
            if p is None or id(p) in seen:
                continue
            seen.add(id(p))
            holders.append((path, p))
    norms = _grad_norms([p for _, p in holders])
    own = {path: [] for path in paths}
    for (path, _), norm in zip(holders, norms):
        if norm is not None:
            own[path].append(norm)
    below = {path: list(norms) for path, norms in own.items()}
    for path in paths:
        norm = combine_norms(own[path])
        if norm is None or not path:
            continue
        parts = path.split(".")
        for k in range(len(parts) - 1, -1, -1):  # every ancestor, the root ('') last
            ancestor = ".".join(parts[:k])
            if ancestor in below:
                below[ancestor].append(norm)
    return {path: CellGradient(path, combine_norms(below[path]), outputs.get(path), vanishing, exploding)
            for path in paths}


def log_position(norm, low=LOG_LOW, high=LOG_HIGH):
    """Where ``norm`` sits on the log scale ``10**low .. 10**high``, from 0 to 1 (0 for zero)."""
    if norm is None or norm <= 0 or math.isnan(norm):
        return 0.0
    if math.isinf(norm):
        return 1.0
    return min(max((math.log10(norm) - low) / (high - low), 0.0), 1.0)


def log_bar(norm, status, width=64, title=None) -> Raw:
    """A gradient norm as a small bar on a log scale (1e-24 .. 1e6) and its value on a coloured chip.

    The bar is filled up to ``log10(norm)``; the chip's colours are a fixed
    pair from :data:`~cellkit.display.html.TONES` (vanishing, exploding,
    NaN or ok), so it reads in both themes.
    """
    if norm is None:
        return el("span", "–", style="opacity:0.75", title=title or "no gradient recorded")
    fraction = log_position(norm)
    background, _ = TONES[STATUS_TONES.get(status or "ok", "ok")]
    fill = el("span", "", style=f"display:block;height:100%;width:{100 * fraction:.1f}%;background-color:{background}")
    track = el("span", fill, style=(f"display:inline-block;vertical-align:middle;width:{width}px;height:6px;"
                                    f"border-radius:3px;overflow:hidden;{themed('background-color', 'fill')}"))
    label = format_number(norm, 3)
    chip = el("span", label, style=(f"display:inline-block;min-width:3.6em;text-align:right;padding:0 4px;"
                                    f"margin-left:4px;border-radius:3px;font-size:0.9em;"
                                    f"background-color:{background};color:{TONES[STATUS_TONES.get(status or 'ok', 'ok')][1]}"))
    return el("span", track, chip, style="white-space:nowrap",
              title=title or f"gradient norm {format_number(norm, 4)} ({status or 'ok'}); scale 1e{LOG_LOW}..1e{LOG_HIGH}")
