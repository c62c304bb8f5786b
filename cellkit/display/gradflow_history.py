"""Gradient flow over training: a compact heatmap of layer × step.

:class:`GradientRecorder` is a :class:`cellkit.train.Callback`: give it to
``Model.fit`` / ``Model.train`` (``callbacks=[recorder]``) and after every
step it reads, for each Cell that holds Parameters directly (the layers),
the float64 norm of their latest gradients (``param._last_grad``, which
every gradient transform leaves).  In a hand-written loop call
``recorder.record(net)`` after each step instead; :func:`from_traces` reads
the same figures from a list of :func:`cellkit.trace` recordings (their
``param_grads`` events), one per step.

It shows itself as a heatmap -- one row per layer in network order, one
column per step (long runs are binned: each column then shows the smallest
norm of its steps, the one that would vanish first) -- coloured on one log
scale, with vanishing (▼), exploding (▲) and NaN/Inf (✖) cells marked on
fixed colour pairs, and a text twin of one sparkline per layer.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(2, 2), nn.Sigmoid(), nn.Dense(2, 1))
>>> recorder = GradientRecorder(net)
>>> step = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())
>>> for _ in range(3):
...     _ = step(ms.ops.ones((4, 2)))
...     _ = recorder.record()
>>> recorder.layers, len(recorder.steps)
(['0', '2'], 3)
"""
from __future__ import annotations

import math

from ..train.callback import Callback
from . import render
from .gradflow import EXPLODING, VANISHING, combine_norms, log_position, param_grad_norm, status_of
from .html import MONO, MUTED, SANS, TONES, el, format_number, plural

__all__ = ["GradientRecorder", "gradient_heatmap", "from_traces", "HeatmapPart"]

MAX_COLUMNS = 60
MAX_ROWS = 80
# A sequential scale for ok norms (dark blue = small, yellow = large): colour carries no text.
_SCALE = ["#1b2a6b", "#1f4e8c", "#22779e", "#2a9d8f", "#52b86b", "#a6cf4a", "#f0d93b"]
_MARKS = {"vanishing": "▼", "exploding": "▲", "nan": "✖"}


class GradientRecorder(Callback):
    """Per step, the gradient norm of every layer (the Cells that hold Parameters directly).

    Parameters
    ----------
    net : Cell, optional
        The network to read; by default ``Model``'s own network (``cb_params.network``).
    every : int
        Record every ``every``-th step.
    vanishing, exploding : float
        The thresholds the heatmap marks.
    """

    def __init__(self, net=None, every=1, vanishing=VANISHING, exploding=EXPLODING):
        self.net = net
        self.every = max(1, int(every))
        self.vanishing, self.exploding = vanishing, exploding
        self.layers = []      # cell paths, in network order
        self.steps = []       # step numbers
        self.norms = []       # one dict {path: norm} per recorded step
        self._count = 0

    # -- recording -------------------------------------------------------------------------
    def on_train_step_end(self, run_context):
        self._count += 1
        if (self._count - 1) % self.every:
            return
        params = run_context.original_args()
        net = self.net if self.net is not None else getattr(params, "network", None)
        step = getattr(params, "cur_step_num", self._count)
        self.record(net, step=step)

    def record(self, net=None, step=None):
        """Read the layers' latest gradient norms now (call it after each step of a hand-written loop)."""
        net = net if net is not None else self.net
        if net is None:
            raise ValueError("GradientRecorder.record: give the network (GradientRecorder(net) or record(net))")
        row, seen = {}, set()
        for path, cell in net.cells_and_names():
            norms = []
            for p in (cell.__dict__.get("_params") or {}).values():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                norm = param_grad_norm(p)
                if norm is not None:
                    norms.append(norm)
            if norms:
                row[path] = combine_norms(norms)
                if path not in self.layers:
                    self.layers.append(path)
        self.steps.append(step if step is not None else len(self.steps) + 1)
        self.norms.append(row)
        return row

    # -- display ---------------------------------------------------------------------------
    def _repr_mimebundle_(self, include=None, exclude=None):
        return render.bundle_of(HeatmapPart(self), self, include, exclude)

    def __repr__(self):
        return HeatmapPart(self).text()


def from_traces(traces, vanishing=None, exploding=None):
    """A :class:`GradientRecorder` filled from traces, one per step (their ``param_grads`` events).

    A Parameter's row is its owning layer: the part of its name before the last dot.
    """
    traces = list(traces)
    settings = traces[0].settings if traces else {}
    recorder = GradientRecorder(vanishing=vanishing or settings.get("vanishing", VANISHING),
                                exploding=exploding or settings.get("exploding", EXPLODING))
    for step, tr in enumerate(traces, 1):
        for event in tr.select(kind="param_grads"):
            layers = {}
            for t in event["tensors"]:
                layer = t["index"].rsplit(".", 1)[0] if "." in t["index"] else ""
                layers.setdefault(layer, []).append(float(t["norm"]) if "norm" in t else None)
            row = {layer: combine_norms(norms) for layer, norms in layers.items()}
            for layer in row:
                if layer not in recorder.layers:
                    recorder.layers.append(layer)
            recorder.steps.append(step)
            recorder.norms.append(row)
    return recorder


def gradient_heatmap(source):
    """The heatmap display of a :class:`GradientRecorder` or a list of traces (one per step)."""
    from . import Display

    recorder = source if isinstance(source, GradientRecorder) else from_traces(source)
    return Display(HeatmapPart(recorder), recorder)


def _columns(steps, limit=MAX_COLUMNS):
    """Step indices per column: each step alone, or bins of consecutive steps."""
    n = len(steps)
    if n <= limit:
        return [[i] for i in range(n)]
    return [list(range(k * n // limit, (k + 1) * n // limit)) for k in range(limit)]


def _worst(values):
    """The column's figure: NaN/Inf if any, else the smallest norm (the first to vanish)."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    bad = [v for v in values if math.isnan(v) or math.isinf(v)]
    return bad[0] if bad else min(values)


class HeatmapPart(render.Part):
    """The heatmap of a recorder (HTML: a table of coloured cells; text: one sparkline per layer)."""

    def __init__(self, recorder):
        self.recorder = recorder
        self.columns = _columns(recorder.steps)
        self.rows = recorder.layers[:MAX_ROWS]

    def cell(self, layer, column):
        return _worst([self.recorder.norms[i].get(layer) for i in column])

    def status(self, norm):
        return status_of(norm, self.recorder.vanishing, self.recorder.exploding)

    def text(self):
        r = self.recorder
        if not r.steps:
            return "gradient heatmap: nothing recorded yet"
        blocks = "▁▂▃▄▅▆▇█"
        lines = [f"gradient norm per layer over {plural(len(r.steps), 'step')} (log scale; "
                 f"v vanishing < {r.vanishing:g}, ^ exploding > {r.exploding:g}, x NaN/Inf)"]
        width = max(len(layer or "(root)") for layer in self.rows)
        for layer in self.rows:
            chars = []
            for column in self.columns:
                norm = self.cell(layer, column)
                status = self.status(norm)
                if norm is None:
                    chars.append(" ")
                elif status in ("vanishing", "exploding", "nan"):
                    chars.append({"vanishing": "v", "exploding": "^", "nan": "x"}[status])
                else:
                    chars.append(blocks[min(7, int(log_position(norm) * 8))])
            values = [v for row in r.norms for k, v in row.items() if k == layer and v is not None]
            finite = [v for v in values if math.isfinite(v)]
            ends = f"{format_number(min(finite), 3)} … {format_number(max(finite), 3)}" if finite else "no finite norm"
            lines.append(f"{(layer or '(root)').ljust(width)}  |{''.join(chars)}|  {ends}")
        if len(r.layers) > MAX_ROWS:
            lines.append(f"… {plural(len(r.layers) - MAX_ROWS, 'more layer')}")
        return "\n".join(lines)

    def html(self):
        r = self.recorder
        if not r.steps:
            return el("div", "gradient heatmap: nothing recorded yet", style=MUTED)
        cell_style = "padding:0;height:14px;border:1px solid transparent;text-align:center;font-size:10px;line-height:12px"
        head = [el("th", "layer", style="text-align:left;font-weight:600;padding:0 6px 0 0;white-space:nowrap")]
        first, last = r.steps[0], r.steps[-1]
        head.append(el("th", el("span", f"step {last}", style="float:right"), f"step {first}",
                       colspan=str(len(self.columns)), style="text-align:left;font-weight:normal;font-size:11px"))
        rows = [el("tr", head, style="background-color:transparent")]
        for layer in self.rows:
            tds = [el("td", layer or "(root)", style=f"{MONO};font-size:11px;padding:0 6px 0 0;white-space:nowrap;"
                                                      f"text-align:left;max-width:16em;overflow:hidden;"
                                                      f"text-overflow:ellipsis", title=layer)]
            for column in self.columns:
                norm = self.cell(layer, column)
                status = self.status(norm)
                steps = [r.steps[i] for i in column]
                tip = (f"{layer}, step {steps[0]}" + (f"–{steps[-1]}" if len(steps) > 1 else "")
                       + f": {format_number(norm, 4) if norm is not None else 'no gradient'}"
                       + (f" ({status})" if status not in (None, "ok") else ""))
                if norm is None:
                    tds.append(el("td", "", style=cell_style + ";background-color:transparent", title=tip))
                elif status in _MARKS:
                    background, text = TONES["error" if status == "nan" else status]
                    tds.append(el("td", _MARKS[status], title=tip,
                                  style=cell_style + f";background-color:{background};color:{text}"))
                else:
                    colour = _SCALE[min(len(_SCALE) - 1, int(log_position(norm) * len(_SCALE)))]
                    tds.append(el("td", "", style=cell_style + f";background-color:{colour}", title=tip))
            rows.append(el("tr", tds, style="background-color:transparent"))
        table = el("table", rows, style="border-collapse:collapse;table-layout:fixed;width:100%;margin:2px 0")
        legend = [el("span", "log scale:", style=MUTED), " "]
        legend += [el("span", "", style=f"display:inline-block;width:14px;height:10px;background-color:{c}")
                   for c in _SCALE]
        legend.append(el("span", " 1e-24 … 1e6 ", style=MUTED))
        for status, mark in _MARKS.items():
            background, text = TONES["error" if status == "nan" else status]
            legend.append(el("span", f"{mark} {status if status != 'nan' else 'NaN/Inf'}",
                             style=f"background-color:{background};color:{text};padding:0 4px;margin-left:4px;"
                                   f"border-radius:3px;font-size:11px"))
        title = el("div", el("b", "Gradient flow over training"),
                   f" · {plural(len(r.layers), 'layer')} × {plural(len(r.steps), 'step')}"
                   + (f" (each column: the smallest norm of {len(self.columns[0])}+ steps)"
                      if len(self.columns[0]) > 1 else ""), style="margin-bottom:2px")
        parts = [title, table, el("div", legend, style="font-size:11px;line-height:1.8")]
        if len(r.layers) > MAX_ROWS:
            parts.append(el("div", f"… {plural(len(r.layers) - MAX_ROWS, 'more layer')}", style=MUTED))
        return el("div", parts, style=f"{SANS};font-size:12px;max-width:100%;text-align:left")
