"""The display of one Tensor, Parameter or Buffer: what it is, what is in it, and whether it is healthy.

Shape, dtype, device, element count and bytes; mean / std / min / max
over the finite values; NaN and Inf counts (highlighted when not zero); a
histogram; and a preview of the corner values.  For a Parameter also its
name, whether it is trained, and the gradient norm when one was recorded
(an optional ``param._last_grad_norm`` set by whoever computed it).

The statistics are computed on the device (:mod:`cellkit.display.stats`);
only a few numbers and the previewed corner come to the host.

>>> import cellkit as ms
>>> view = TensorView(ms.Tensor([[1.0, 2.0], [3.0, float("nan")]]))
>>> print(view.text().splitlines()[0])
Tensor  shape=[2, 2]  dtype=Float32  device=CPU  4 elements (16 B)
>>> "NaN 1" in view.text()
True
"""
from __future__ import annotations

import numpy as np

from ..parameter import Parameter
from ..tensor import Tensor
from . import charts, render, stats
from .gradflow import param_grad_norm
from .html import MONO, MUTED, SANS, badge, el, format_bytes, format_count, format_number, line, one_line, themed, tone

__all__ = ["TensorView", "grad_norm_of", "finite_note"]


def grad_norm_of(param):
    """The norm of ``param``'s latest gradient as a float (computed in float64), or None if none was recorded.

    Gradient transforms leave each Parameter's latest gradient in
    ``param._last_grad``; its norm is computed on the device, in float64 so
    that a vanishing gradient of 4e-23 is not shown as 0, only when a display
    asks (:func:`cellkit.display.gradflow.param_grad_norm`).
    """
    return param_grad_norm(param)


class TensorView(render.Part):
    """A tensor's header, statistics, histogram and value preview (HTML and text)."""

    def __init__(self, tensor, bins=stats.HIST_BINS, rows=8, cols=8):
        self.tensor = tensor
        self.kind = type(tensor).__name__
        self.shape = list(tensor.shape)
        self.dtype = str(tensor.dtype)
        data = tensor._data
        self.device = stats.device_of(data)
        self.size = tensor.size
        self.nbytes = tensor.nbytes
        self.is_param = isinstance(tensor, Parameter)
        self.name = tensor.name if self.is_param else None
        self.requires_grad = tensor.requires_grad if self.is_param else None
        self.grad_norm = grad_norm_of(tensor) if self.is_param else None
        self.note = None
        self.summary = None
        self.values = None
        if data is None:
            self.note = "not initialised yet (lazy initializer)" if tensor.has_init else "placeholder: no data"
            return
        try:
            self.summary = stats.summarize(data, bins)
            if self.size:
                self.values = stats.preview(data, rows, cols)
        except Exception as exc:  # noqa: BLE001 -- a display never raises
            self.note = one_line(f"statistics unavailable ({type(exc).__name__}: {exc})", 200)

    # -- text ------------------------------------------------------------------
    def _head_text(self):
        head = f"{self.kind}"
        if self.name is not None:
            head += f" {one_line(self.name)!s}"
        head += (f"  shape={self.shape}  dtype={self.dtype}  device={self.device}  "
                 f"{_elements(self.size)} ({format_bytes(self.nbytes)})")
        if self.is_param:
            head += "  trainable" if self.requires_grad else "  frozen"
        return head

    def text(self):
        lines = [self._head_text()]
        s = self.summary
        if s is not None and s.size:
            parts = []
            if s.finite:
                parts.append(f"mean={format_number(s.mean)} std={format_number(s.std)} "
                             f"min={format_number(s.min)} max={format_number(s.max)}")
            parts.append(f"NaN {s.nan}" + ("  <-- !" if s.nan else ""))
            parts.append(f"Inf {s.inf}" + ("  <-- !" if s.inf else ""))
            if self.grad_norm is not None:
                parts.append(f"grad norm={format_number(self.grad_norm)}")
            lines.append("  ".join(parts))
            partial = finite_note(s)
            if partial:
                lines.append(f"({partial})")
            if s.hist:
                lines.append(f"histogram [{format_number(s.min)} .. {format_number(s.max)}]: "
                             f"|{charts.sparkline(s.hist)}|")
        elif self.grad_norm is not None:
            lines.append(f"grad norm={format_number(self.grad_norm)}")
        if self.values is not None:
            lines.append(_preview_text(*self.values))
        if self.note:
            lines.append(f"({self.note})")
        return "\n".join(lines)

    # -- html ------------------------------------------------------------------
    def html(self):
        chips = [el("span", f"[{', '.join(str(d) for d in self.shape)}]", style=_chip()),
                 el("span", self.dtype, style=_chip()),
                 el("span", self.device, style=_chip()),
                 el("span", f"{_elements(self.size)} · {format_bytes(self.nbytes)}",
                    style="opacity:0.75;margin-left:6px")]
        if self.is_param:
            chips.append(el("span", "trainable", style=badge("ok")) if self.requires_grad
                         else el("span", "frozen", style=badge()))
        title = [el("b", self.kind)]
        if self.name is not None:
            title.append(el("code", one_line(self.name), style=f"{MONO};margin-left:6px"))
        header = el("div", title, " ", chips, style="margin-bottom:6px")
        body = [header]
        s = self.summary
        if s is not None and s.size:
            body.append(_stats_table(s, self.grad_norm))
            partial = finite_note(s)
            if partial:
                body.append(el("div", partial, style=f"font-size:0.85em;{MUTED}"))
        elif self.grad_norm is not None:
            body.append(el("div", f"grad norm {format_number(self.grad_norm)}"))
        lower = []
        if s is not None and s.hist:
            lower.append(el("div", el("div", "histogram", style=_caption()), charts.histogram_html(s, 160, 40),
                            style=_LOWER))
        if self.values is not None:
            lower.append(el("div", el("div", _preview_caption(self.shape, self.values[3]), style=_caption()),
                            _preview_html(*self.values), style=_LOWER))
        if lower:
            body.append(el("div", lower, style="margin-top:6px"))
        if self.note:
            body.append(el("div", self.note, style="opacity:0.75;font-style:italic"))
        return el("div", body, style=(f"display:inline-block;max-width:100%;box-sizing:border-box;{SANS};"
                                      f"font-size:13px;"
                                      f"line-height:1.4;border-radius:6px;padding:8px 12px;{line('border')}"))


_LOWER = "display:inline-block;vertical-align:top;margin-right:18px"


def finite_note(summary):
    """``'mean, std, min, max over the 4 finite values of 32'`` when some values are NaN or Inf, else None."""
    if summary is None or not (summary.nan or summary.inf):
        return None
    if not summary.finite:
        return f"no finite value among {format_count(summary.size)}: no statistics"
    return (f"mean, std, min, max over the {format_count(summary.finite)} finite values of "
            f"{format_count(summary.size)}")


def _elements(n):
    return f"{format_count(n)} element{'' if n == 1 else 's'}"


def _chip():
    return (f"display:inline-block;padding:0 6px;margin-left:4px;border-radius:4px;"
            f"{themed('background-color', 'fill')};{MONO};font-size:0.92em")


def _caption():
    return f"font-size:0.8em;{MUTED};margin-bottom:2px"


def _stats_table(s, grad_norm):
    heads, cells = [], []
    if s.finite:
        for label, value in (("mean", s.mean), ("std", s.std), ("min", s.min), ("max", s.max)):
            heads.append(label)
            cells.append(el("td", format_number(value), style=_num_cell()))
    for label, count in (("NaN", s.nan), ("Inf", s.inf)):
        heads.append(label)
        if count:
            flag = el("span", f"{label} {format_count(count)}",
                      style=f"{tone('error')};font-weight:bold;border-radius:3px;padding:0 5px")
            cells.append(el("td", flag, style=_num_cell()))
        else:
            cells.append(el("td", "0", style=_num_cell() + f";{MUTED}"))
    if grad_norm is not None:
        heads.append("grad norm")
        cells.append(el("td", format_number(grad_norm), style=_num_cell()))
    head_row = el("tr", [el("th", h, style="padding:1px 10px 1px 0;text-align:right;font-weight:normal;"
                                           f"{MUTED};font-size:0.85em;border:none;background:transparent")
                         for h in heads], style="background:transparent")
    return el("table", head_row, el("tr", cells, style="background:transparent"),
              style="border-collapse:collapse;border:none;margin:0;table-layout:auto")


def _num_cell():
    return f"padding:1px 10px 1px 0;text-align:right;{MONO};border:none;background:transparent"


def _format_value(v):
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    text = format_number(v)
    return text + ".0" if text.lstrip("-").isdigit() else text  # a float looks like one: 1.0, not 1


def _preview_caption(shape, lead):
    if lead:
        return f"values of x[{', '.join(str(i) for i in lead)}, :, :]  (first of {' × '.join(map(str, shape[:-2]))})"
    return "values"


def _preview_text(values, row_labels, col_labels, lead):
    if row_labels is None:
        return f"value: {_format_value(values.reshape(()).item())}"
    if values.dtype.kind == "V" or str(values.dtype) == "bfloat16":
        values = values.astype(np.float32)
    flat = [_format_value(v) for v in values.reshape(-1).tolist()]
    prefix = f"x[{', '.join(str(i) for i in lead)}, :, :] = " if lead else "values: "
    if col_labels is None:
        shown, it = [], iter(flat)
        for label in row_labels:
            shown.append("..." if label is None else next(it))
        return prefix + "[" + ", ".join(shown) + "]"
    width = max(len(t) for t in flat)
    rows, it = [], iter(flat)
    for r in row_labels:
        if r is None:
            rows.append(" ...")
            continue
        cells = []
        for c in col_labels:
            cells.append("..." .rjust(width) if c is None else next(it).rjust(width))
        rows.append(" [" + " ".join(cells) + "]")
    return prefix + "\n" + "\n".join(rows)


def _preview_html(values, row_labels, col_labels, lead):
    if str(values.dtype) == "bfloat16":
        values = values.astype(np.float32)
    if row_labels is None:
        return el("span", _format_value(values.reshape(()).item()), style=f"{MONO};font-size:0.92em")
    plain = "border:none;background:transparent;white-space:nowrap"
    label_style = f"{MUTED};font-size:0.8em;text-align:right;padding:0 6px 0 0;{plain}"
    cell_style = f"text-align:right;padding:1px 6px;{plain}"
    bad_style = f"{cell_style};{tone('error')};font-weight:bold"
    gap_style = f"{cell_style};{MUTED}"
    clear = "background:transparent"

    def cell(v):
        text = _format_value(v)
        bad = text in ("nan", "inf", "-inf")
        return el("td", text, style=bad_style if bad else cell_style)

    flat = values.reshape(-1).tolist()
    it = iter(flat)
    rows = []
    if col_labels is None:  # a vector: one row, index labels above
        head = el("tr", [el("td", "⋯" if i is None else str(i), style=label_style) for i in row_labels], style=clear)
        body = el("tr", [el("td", "⋯", style=gap_style) if i is None else cell(next(it)) for i in row_labels],
                  style=clear)
        rows = [head, body]
    else:
        rows.append(el("tr", el("td", "", style=label_style),
                       [el("td", "⋯" if c is None else str(c), style=label_style) for c in col_labels], style=clear))
        for r in row_labels:
            if r is None:
                rows.append(el("tr", el("td", "⋮", style=label_style),
                               [el("td", "⋮" if c is not None else "⋱", style=gap_style) for c in col_labels],
                               style=clear))
                continue
            tds = [el("td", "⋯", style=gap_style) if c is None else cell(next(it)) for c in col_labels]
            rows.append(el("tr", el("td", str(r), style=label_style), tds, style=clear))
    return el("table", rows, style=f"border-collapse:collapse;border:none;margin:0;table-layout:auto;{MONO};"
                                   f"font-size:0.92em;{line('border-left', 'accent', '2px')}")


def _tensor_handler(obj, options):
    if isinstance(obj, Tensor):
        return TensorView(obj, **{k: v for k, v in options.items() if k in ("bins", "rows", "cols")})
    return NotImplemented


render.register(_tensor_handler, first=False)
