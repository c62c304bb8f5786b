"""The parameter table: every Parameter of a network, in registration order, with its statistics.

One row per Parameter *object*: a Parameter tied into two places (a shared
embedding) is listed and counted once, with all the attribute paths that
reach it.  Columns: full name, shape, dtype, trained or frozen, elements,
bytes, share of all elements, device, mean / std / min / max, a histogram,
and the gradient norm when one was recorded (``param._last_grad_norm``).
The totals split trainable from frozen.  Statistics are computed on the
device, and only for the rows shown (``max_rows``); the totals always cover
every Parameter.

>>> from cellkit import nn
>>> table = ParameterTable(nn.SequentialCell(nn.Dense(3, 2), nn.Dense(2, 1)))
>>> [row.name for row in table.rows]
['0.weight', '0.bias', '1.weight', '1.bias']
>>> table.trainable_count, table.total_bytes
(11, 44)
>>> print(table.text().splitlines()[-1])
total: 4 parameters, 11 elements (44 B) · trainable 11 (44 B) · frozen 0 (0 B)
"""
from __future__ import annotations

from ..nn.cell import Cell
from ..parameter import Parameter
from . import charts, render, stats
from .cellinfo import size_and_bytes
from .html import (GREY_FILL, MONO, SANS, badge, el, format_bytes, format_count, format_number, line, one_line,
                   themed)
from .tensor_view import grad_norm_of

__all__ = ["ParameterTable", "ParamRow"]

DEFAULT_MAX_ROWS = 100
_PATH_VISIT_LIMIT = 50_000


class ParamRow:
    """One Parameter of the table (host values only)."""

    __slots__ = ("index", "name", "paths", "param", "shape", "dtype", "requires_grad", "count", "nbytes",
                 "device", "summary", "grad_norm", "note")

    def __init__(self, index, name, param, paths):
        self.index = index
        self.name = name
        self.param = param
        self.paths = paths
        self.shape = tuple(param.shape)
        self.dtype = str(param.dtype)
        self.requires_grad = bool(getattr(param, "requires_grad", True))
        self.count, self.nbytes = size_and_bytes(param)
        self.device = stats.device_of(param._data)
        self.summary = None
        self.grad_norm = grad_norm_of(param)
        self.note = None

    @property
    def aliases(self):
        """Attribute paths other than the name that reach this Parameter (tied / shared places)."""
        return [p for p in self.paths if p != self.name]

    def compute_stats(self, bins):
        data = self.param._data
        if data is None:
            self.note = "lazy: not initialised" if self.param.has_init else "no data"
            return
        try:
            self.summary = stats.summarize(data, bins)
        except Exception as exc:  # noqa: BLE001 -- a display never raises
            self.note = one_line(f"statistics unavailable ({type(exc).__name__})", 80)


def _attribute_paths(net):
    """id(Parameter) -> every attribute path reaching it (all paths, shared cells included), DFS order."""
    paths = {}
    on_path = set()
    visits = 0
    stack = [(net, "", False)]
    while stack:
        cell, path, leaving = stack.pop()
        if leaving:
            on_path.discard(id(cell))
            continue
        if id(cell) in on_path:
            continue  # a cycle: a Cell inside itself
        visits += 1
        if visits > _PATH_VISIT_LIMIT:
            break
        on_path.add(id(cell))
        stack.append((cell, path, True))
        d = cell.__dict__
        for key, p in (d.get("_params") or {}).items():
            if p is not None:
                paths.setdefault(id(p), []).append(f"{path}.{key}" if path else key)
        children = [(n, c) for n, c in (d.get("_cells") or {}).items() if c is not None]
        for name, child in reversed(children):
            stack.append((child, f"{path}.{name}" if path else name, False))
    return paths


def _rows_from(source):
    """(name, Parameter, paths) in registration order, each Parameter object once."""
    if isinstance(source, Cell):
        paths = _attribute_paths(source)
        return [(p.name, p, paths.get(id(p), [path])) for path, p in source.parameters_and_names()]
    if isinstance(source, Parameter):
        source = [source]
    items = source.items() if hasattr(source, "items") else ((getattr(p, "name", str(i)), p)
                                                            for i, p in enumerate(source))
    seen, out = {}, []
    for key, p in items:
        if not isinstance(p, Parameter) and not hasattr(p, "_data"):
            continue
        if id(p) in seen:
            seen[id(p)][2].append(str(key))
            continue
        entry = (getattr(p, "name", str(key)), p, [str(key)])
        seen[id(p)] = entry
        out.append(entry)
    return out


class ParameterTable(render.Part):
    """The table of a network's Parameters (HTML ``<table>`` and a text twin).

    Parameters
    ----------
    source : Cell, or an iterable / dict of Parameters
    max_rows : int
        Rows drawn (with statistics); the totals count every Parameter.
    bins : int
        Histogram bins per row.
    """

    def __init__(self, source, max_rows=DEFAULT_MAX_ROWS, bins=12):
        self.title = type(source).__name__ if isinstance(source, Cell) else "Parameters"
        entries = _rows_from(source)
        self.rows = [ParamRow(i, name, p, paths) for i, (name, p, paths) in enumerate(entries)]
        self.max_rows = max(0, int(max_rows))
        for row in self.rows[: self.max_rows]:
            row.compute_stats(bins)
        self.total_count = sum(r.count for r in self.rows)
        self.total_bytes = sum(r.nbytes for r in self.rows)
        self.trainable_count = sum(r.count for r in self.rows if r.requires_grad)
        self.trainable_bytes = sum(r.nbytes for r in self.rows if r.requires_grad)
        self.trainable_params = sum(1 for r in self.rows if r.requires_grad)
        self.frozen_count = self.total_count - self.trainable_count
        self.frozen_bytes = self.total_bytes - self.trainable_bytes
        self.frozen_params = len(self.rows) - self.trainable_params
        self.shared_params = sum(1 for r in self.rows if len(r.paths) > 1)
        self.has_grad_norm = any(r.grad_norm is not None for r in self.rows[: self.max_rows])

    @property
    def shown(self):
        return self.rows[: self.max_rows]

    @property
    def hidden(self):
        return len(self.rows) - len(self.shown)

    def _totals_text(self):
        text = (f"total: {format_count(len(self.rows))} parameter{'s' if len(self.rows) != 1 else ''}, "
                f"{format_count(self.total_count)} elements ({format_bytes(self.total_bytes)}) · "
                f"trainable {format_count(self.trainable_count)} ({format_bytes(self.trainable_bytes)}) · "
                f"frozen {format_count(self.frozen_count)} ({format_bytes(self.frozen_bytes)})")
        if self.shared_params:
            text += f" · {format_count(self.shared_params)} shared, counted once"
        return text

    # -- text ------------------------------------------------------------------
    def text(self):
        heads = ["#", "name", "shape", "dtype", "grad", "elements", "bytes", "device", "mean", "std", "min", "max",
                 "histogram"]
        if self.has_grad_norm:
            heads.append("grad norm")
        table = [heads]
        notes = []
        for r in self.shown:
            s = r.summary
            name = one_line(r.name, 48)
            if s is not None and (s.nan or s.inf):
                name += f" [NaN {s.nan}, Inf {s.inf}]"
            cells = [str(r.index), name, str(list(r.shape)), r.dtype, "yes" if r.requires_grad else "frozen",
                     format_count(r.count), format_bytes(r.nbytes), r.device]
            if s is not None and s.finite:
                cells += [format_number(s.mean), format_number(s.std), format_number(s.min), format_number(s.max),
                          charts.sparkline(s.hist)]
            else:
                cells += ["–", "–", "–", "–", r.note or ""]
            if self.has_grad_norm:
                cells.append(format_number(r.grad_norm) if r.grad_norm is not None else "–")
            table.append(cells)
            if r.aliases:
                notes.append(f"  #{r.index} {one_line(r.name, 48)} is also at: "
                             + ", ".join(one_line(a, 60) for a in r.aliases))
        widths = [max(len(row[i]) for row in table) for i in range(len(heads))]
        right = {0, 5, 6, 8, 9, 10, 11, 13}
        lines = []
        for row in table:
            lines.append("  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                                   for i, c in enumerate(row)).rstrip())
        if self.hidden:
            lines.append(f"… {format_count(self.hidden)} more parameters not shown (included in the totals; "
                         f"parameter_table(net, max_rows=...) shows more)")
        lines.extend(notes)
        lines.append(self._totals_text())
        return "\n".join(lines)

    # -- html ------------------------------------------------------------------
    def html(self):
        heads = [("#", True), ("name", False), ("shape", False), ("dtype", False), ("grad", False),
                 ("elements", True), ("bytes", True), ("share", False), ("device", False), ("mean", True),
                 ("std", True), ("min", True), ("max", True), ("histogram", False)]
        if self.has_grad_norm:
            heads.append(("grad norm", True))
        head = el("thead", el("tr", [el("th", h, style=_TH + (";text-align:right" if r else ";text-align:left"))
                                     for h, r in heads], style="background:transparent"))
        body = [self._html_row(r, i) for i, r in enumerate(self.shown)]
        if self.hidden:
            body.append(el("tr", el("td", f"… {format_count(self.hidden)} more parameters not shown (included in "
                                          f"the totals; parameter_table(net, max_rows=...) shows more)",
                                    colspan=len(heads), style=_TD + ";opacity:0.7;font-style:italic;text-align:left")))
        foot = el("tfoot", el("tr", el("td", self._totals_html(), colspan=len(heads),
                                       style=f"{_TD};{line('border-top', width='2px')};padding-top:5px"),
                            style="background:transparent"))
        title = el("div", el("b", f"{self.title}"), f" · {format_count(len(self.rows))} parameters, "
                   f"{format_count(self.total_count)} elements ({format_bytes(self.total_bytes)})",
                   style="margin-bottom:4px;opacity:0.85")
        table = el("table", head, el("tbody", body), foot,
                   style="border-collapse:collapse;border:none;margin:0;font-size:12px;width:auto;table-layout:auto")
        return el("div", title, el("div", table, style="overflow-x:auto;max-width:100%"),
                  style=f"{SANS};font-size:13px;line-height:1.4")

    def _totals_html(self):
        parts = [el("b", "total "), f"{format_count(len(self.rows))} parameters · "
                 f"{format_count(self.total_count)} elements · {format_bytes(self.total_bytes)}",
                 el("span", f"trainable {format_count(self.trainable_count)} ({format_bytes(self.trainable_bytes)})",
                    style=badge("ok")),
                 el("span", f"frozen {format_count(self.frozen_count)} ({format_bytes(self.frozen_bytes)})",
                    style=badge())]
        if self.shared_params:
            parts.append(el("span", f"{format_count(self.shared_params)} shared, counted once", style=badge("accent")))
        return parts

    def _html_row(self, r, i):
        s = r.summary
        name = [r.name]
        if s is not None and (s.nan or s.inf):
            if s.nan:
                name.append(el("span", f"NaN {format_count(s.nan)}", style=badge("error") + ";font-weight:bold"))
            if s.inf:
                name.append(el("span", f"Inf {format_count(s.inf)}", style=badge("error") + ";font-weight:bold"))
        if r.aliases:
            name.append(el("div", "also: " + ", ".join(r.aliases[:8]) + (" …" if len(r.aliases) > 8 else ""),
                           style=f"font-size:0.85em;{themed('color', 'accent')}"))
        share = r.count / self.total_count if self.total_count else 0.0
        cells = [
            el("td", str(r.index), style=_TD_NUM + ";opacity:0.5"),
            el("td", name, style=_TD),
            el("td", "[" + ", ".join(str(d) for d in r.shape) + "]", style=_TD),
            el("td", r.dtype, style=_TD),
            el("td", el("span", "✓", title="requires_grad=True", style=f"{themed('color', 'ok')};font-weight:bold")
               if r.requires_grad else el("span", "frozen", style="opacity:0.7"), style=_TD),
            el("td", format_count(r.count), style=_TD_NUM),
            el("td", format_bytes(r.nbytes), style=_TD_NUM),
            el("td", charts.bar_html(share, 48), title=f"{100 * share:.1f}% of all elements", style=_TD),
            el("td", r.device, style=_TD),
        ]
        if s is not None and s.finite:
            cells += [el("td", format_number(v), style=_TD_NUM) for v in (s.mean, s.std, s.min, s.max)]
            cells.append(el("td", charts.histogram_html(s, 72, 16, labels=False), style=_TD))
        else:
            cells += [el("td", "–", style=_TD_NUM) for _ in range(4)]
            cells.append(el("td", r.note or "", style=_TD + ";opacity:0.7;font-size:0.9em"))
        if self.has_grad_norm:
            cells.append(el("td", format_number(r.grad_norm) if r.grad_norm is not None else "–", style=_TD_NUM))
        # Striped rows; the plain fill comes first so an untrusted notebook keeps the stripes.
        background = f"background-color:{GREY_FILL}" if i % 2 else "background-color:transparent"
        return el("tr", cells, style=f"{background};{MONO}")


_TH = f"padding:3px 8px;border:none;{line('border-bottom')};font-weight:600;white-space:nowrap;background:transparent"
# JupyterLab styles every td (padding, alignment, wrapping), so those stay per cell; the font is set per row.
_TD = "padding:2px 8px;white-space:nowrap;text-align:left"
_TD_NUM = "padding:2px 8px;white-space:nowrap;text-align:right"
