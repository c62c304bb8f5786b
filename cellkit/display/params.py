"""The parameter table: every Parameter of a network, in registration order, with its statistics.

One row per Parameter *object*: a Parameter tied into two places (a shared
embedding) is listed and counted once, with all the attribute paths that
reach it.  Columns, in the order of what matters most: name, shape, the
gradient norm (float64, on a log scale, coloured when vanishing or
exploding) when one was recorded, mean / std / histogram / min / max over
the finite values (with how many of them there are when some are NaN or
Inf), dtype, kind (trainable, frozen, or a *statistic* such as a
BatchNorm's running mean, which no optimizer trains), elements, bytes,
share of all elements and device.  The totals split trainable, frozen and
statistics.  Statistics are computed on the device, and only for the rows
shown (``max_rows``); the totals always cover every Parameter.

The HTML form fits the output area at any width without a scrollbar: each
row is a line of fixed-width fields in that order, and where the line is
too narrow the last fields fold onto a second line -- the header folds the
same way, so the columns stay aligned.  (No media query is needed, so it
works in an untrusted notebook too.)

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
from .cellinfo import parameter_kind, size_and_bytes
from .gradflow import log_bar, status_of
from .html import (GREY_FILL, MONO, MUTED, SANS, badge, el, format_bytes, format_count, format_number, line,
                   one_line, plural)
from .tensor_view import finite_note, grad_norm_of

__all__ = ["ParameterTable", "ParamRow", "COLUMNS"]

DEFAULT_MAX_ROWS = 100
_PATH_VISIT_LIMIT = 50_000
# (title, width in em, right-aligned): the order is the priority; narrow outputs fold the tail.
COLUMNS = (("#", 2.2, True), ("name", None, False), ("shape", None, False), ("grad norm", 10.0, False),
           ("mean", 5.2, True), ("std", 5.2, True), ("histogram", 6.4, False), ("min", 5.2, True),
           ("max", 5.2, True), ("dtype", 5.4, False), ("kind", 5.6, False), ("elements", 6.2, True),
           ("bytes", 5.8, True), ("share", 4.6, False), ("device", 4.2, False))
_CHAR_EM = 0.62   # width of one monospace character at the table's font size, in em


class ParamRow:
    """One Parameter of the table (host values only)."""

    __slots__ = ("index", "name", "paths", "param", "shape", "dtype", "requires_grad", "kind", "count", "nbytes",
                 "device", "summary", "grad_norm", "note")

    def __init__(self, index, name, param, paths):
        self.index = index
        self.name = name
        self.param = param
        self.paths = paths
        self.shape = tuple(param.shape)
        self.dtype = str(param.dtype)
        self.requires_grad = bool(getattr(param, "requires_grad", True))
        self.kind = parameter_kind(paths[0] if paths else name, param)
        self.count, self.nbytes = size_and_bytes(param)
        self.device = stats.device_of(param._data)
        self.summary = None
        self.grad_norm = None  # computed with the statistics, for the rows shown only
        self.note = None

    @property
    def aliases(self):
        """Attribute paths other than the name that reach this Parameter (tied / shared places)."""
        return [p for p in self.paths if p != self.name]

    def compute_stats(self, bins):
        self.grad_norm = grad_norm_of(self.param)
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
    """The table of a network's Parameters (folding HTML rows and a text twin).

    Parameters
    ----------
    source : Cell, or an iterable / dict of Parameters
    max_rows : int
        Rows drawn (with statistics); the totals count every Parameter.
    bins : int
        Histogram bins per row.
    vanishing, exploding : float
        Gradient norms below / above these are flagged.
    """

    def __init__(self, source, max_rows=DEFAULT_MAX_ROWS, bins=12, vanishing=1e-7, exploding=1e3):
        self.title = type(source).__name__ if isinstance(source, Cell) else "Parameters"
        entries = _rows_from(source)
        self.rows = [ParamRow(i, name, p, paths) for i, (name, p, paths) in enumerate(entries)]
        self.max_rows = max(0, int(max_rows))
        self.vanishing, self.exploding = vanishing, exploding
        for row in self.rows[: self.max_rows]:
            row.compute_stats(bins)
        self.total_count = sum(r.count for r in self.rows)
        self.total_bytes = sum(r.nbytes for r in self.rows)
        trainable = [r for r in self.rows if r.kind == "trainable"]
        frozen = [r for r in self.rows if r.kind == "frozen"]
        statistics = [r for r in self.rows if r.kind == "statistic"]
        self.trainable_count = sum(r.count for r in trainable)
        self.trainable_bytes = sum(r.nbytes for r in trainable)
        self.trainable_params = len(trainable)
        self.frozen_count = sum(r.count for r in frozen)
        self.frozen_bytes = sum(r.nbytes for r in frozen)
        self.frozen_params = len(frozen)
        self.statistic_count = sum(r.count for r in statistics)
        self.statistic_bytes = sum(r.nbytes for r in statistics)
        self.statistic_params = len(statistics)
        self.shared_params = sum(1 for r in self.rows if len(r.paths) > 1)
        self.has_grad_norm = any(r.grad_norm is not None for r in self.rows[: self.max_rows])
        self._value_cache = {}

    @property
    def shown(self):
        return self.rows[: self.max_rows]

    @property
    def hidden(self):
        return len(self.rows) - len(self.shown)

    def status(self, row):
        """The gradient status of a row: ``'vanishing'``, ``'exploding'``, ``'nan'``, ``'ok'`` or None."""
        return status_of(row.grad_norm, self.vanishing, self.exploding)

    def _totals_text(self):
        text = (f"total: {plural(len(self.rows), 'parameter')}, "
                f"{format_count(self.total_count)} elements ({format_bytes(self.total_bytes)}) · "
                f"trainable {format_count(self.trainable_count)} ({format_bytes(self.trainable_bytes)}) · "
                f"frozen {format_count(self.frozen_count)} ({format_bytes(self.frozen_bytes)})")
        if self.statistic_params:
            text += (f" · statistics {format_count(self.statistic_count)} ({format_bytes(self.statistic_bytes)}, "
                     f"updated in forward, never trained)")
        if self.shared_params:
            text += f" · {format_count(self.shared_params)} shared, counted once"
        return text

    def _columns(self):
        return [c for c in COLUMNS if c[0] != "grad norm" or self.has_grad_norm]

    # -- text ------------------------------------------------------------------
    def text(self):
        heads = [c[0] for c in self._columns()]
        right = {i for i, c in enumerate(self._columns()) if c[2]}
        table = [heads]
        notes = []
        for r in self.shown:
            values = self._values(r)
            cells = []
            for head in heads:
                text = values[head][0]
                if head == "name" and r.summary is not None and (r.summary.nan or r.summary.inf):
                    text += f" [NaN {r.summary.nan}, Inf {r.summary.inf}]"
                cells.append(text)
            table.append(cells)
            if r.aliases:
                notes.append(f"  #{r.index} {one_line(r.name, 48)} is also at: "
                             + ", ".join(one_line(a, 60) for a in r.aliases))
            partial = _partial_note(r.summary)
            if partial:
                notes.append(f"  #{r.index} {one_line(r.name, 48)}: {partial}")
        widths = [max(len(row[i]) for row in table) for i in range(len(heads))]
        lines = []
        for row in table:
            lines.append("  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                                   for i, c in enumerate(row)).rstrip())
        if self.hidden:
            lines.append(f"… {plural(self.hidden, 'more parameter')} not shown (included in the totals; "
                         f"parameter_table(net, max_rows=...) shows more)")
        lines.extend(notes)
        lines.append(self._totals_text())
        return "\n".join(lines)

    def _values(self, r):
        """``{column: (text, html)}`` of one row (built once per row)."""
        cached = self._value_cache.get(r.index)
        if cached is not None:
            return cached
        cached = self._value_cache[r.index] = self._build_values(r)
        return cached

    def _build_values(self, r):
        s = r.summary
        out = {"#": (str(r.index), str(r.index)),
               "name": (one_line(r.name, 48), r.name),
               "shape": ("[" + ", ".join(str(d) for d in r.shape) + "]",) * 2,
               "dtype": (r.dtype, r.dtype),
               "kind": (r.kind, r.kind),
               "elements": (format_count(r.count),) * 2,
               "bytes": (format_bytes(r.nbytes),) * 2,
               "device": (r.device, r.device)}
        share = r.count / self.total_count if self.total_count else 0.0
        out["share"] = (f"{100 * share:.0f}%", charts.bar_html(share, 44))
        if s is not None and s.finite:
            for key, value in (("mean", s.mean), ("std", s.std), ("min", s.min), ("max", s.max)):
                out[key] = (format_number(value), format_number(value))
            out["histogram"] = (charts.sparkline(s.hist), charts.histogram_html(s, 72, 16, labels=False))
        else:
            for key in ("mean", "std", "min", "max"):
                out[key] = ("–", "–")
            out["histogram"] = (r.note or "", r.note or "")
        if r.grad_norm is None:
            out["grad norm"] = ("–", "–")
        else:
            status = self.status(r)
            text = format_number(r.grad_norm) + (f" [{status}]" if status not in (None, "ok") else "")
            out["grad norm"] = (text, log_bar(r.grad_norm, status, width=44))
        return out

    # -- html ------------------------------------------------------------------
    def html(self):
        columns = self._columns()
        shown = self.shown
        widths = {}
        for title, width, _ in columns:
            if width is None:  # name and shape: as wide as their longest entry (names capped; full on hover)
                longest = max([len(title)] + [len(self._values(r)[title][0]) for r in shown])
                width = min(longest * _CHAR_EM + 1.2, 30.0 if title == "name" else 14.0)
            widths[title] = width
        head = el("div", [self._field(title, widths[title], right, el("b", title)) for title, _, right in columns],
                  style=f"{_LINE};{line('border-bottom')};padding-bottom:2px")
        body = [self._html_row(r, i, columns, widths) for i, r in enumerate(shown)]
        if self.hidden:
            body.append(el("div", f"… {plural(self.hidden, 'more parameter')} not shown (included in "
                                  f"the totals; parameter_table(net, max_rows=...) shows more)",
                           style=f"{MUTED};font-style:italic;padding:2px 4px"))
        foot = el("div", self._totals_html(), style=f"{line('border-top', width='2px')};padding-top:5px;margin-top:2px")
        title = el("div", el("b", f"{self.title}"), f" · {plural(len(self.rows), 'parameter')}, "
                   f"{format_count(self.total_count)} elements ({format_bytes(self.total_bytes)})",
                   style=f"margin-bottom:4px;{MUTED}")
        table = el("div", head, body, foot, style=f"{MONO};font-size:12px")
        return el("div", title, table, style=f"{SANS};font-size:13px;line-height:1.45;text-align:left")

    @staticmethod
    def _field(title, width, right, content, tip=None):
        # kept short: a 100-row table repeats it 1,500 times (the container is left-aligned already)
        style = (f"display:inline-block;vertical-align:middle;width:{width:.1f}em;padding:0 4px;"
                 f"white-space:nowrap;overflow:hidden;text-overflow:ellipsis" + (";text-align:right" if right else ""))
        return el("span", content, style=style, title=tip)

    def _totals_html(self):
        parts = [el("b", "total "), f"{plural(len(self.rows), 'parameter')} · "
                 f"{format_count(self.total_count)} elements · {format_bytes(self.total_bytes)}",
                 el("span", f"trainable {format_count(self.trainable_count)} ({format_bytes(self.trainable_bytes)})",
                    style=badge("ok")),
                 el("span", f"frozen {format_count(self.frozen_count)} ({format_bytes(self.frozen_bytes)})",
                    style=badge())]
        if self.statistic_params:
            parts.append(el("span", f"statistics {format_count(self.statistic_count)} "
                                    f"({format_bytes(self.statistic_bytes)})", style=badge(),
                            title="running statistics (BatchNorm's moving mean and variance): updated in forward, "
                                  "never trained"))
        if self.shared_params:
            parts.append(el("span", f"{format_count(self.shared_params)} shared, counted once", style=badge("accent")))
        return el("span", parts, style=f"{SANS};white-space:normal")

    def _html_row(self, r, i, columns, widths):
        s = r.summary
        values = self._values(r)
        fields = []
        for title, _, right in columns:
            text, html = values[title]
            tip = None
            if title == "name":
                tip = r.name if len(r.name) * _CHAR_EM + 1.2 > widths["name"] else None
            elif title == "kind":
                html = _kind_html(r.kind)
            elif title == "histogram" and s is not None and s.finite:
                tip = f"{format_number(s.min)} .. {format_number(s.max)}"
            fields.append(self._field(title, widths[title], right, html, tip))
        extra = []
        if s is not None and (s.nan or s.inf):
            flags = []
            if s.nan:
                flags.append(el("span", f"NaN {format_count(s.nan)} of {format_count(s.size)}",
                                style=badge("error") + ";font-weight:bold"))
            if s.inf:
                flags.append(el("span", f"Inf {format_count(s.inf)} of {format_count(s.size)}",
                                style=badge("error") + ";font-weight:bold"))
            extra.append(el("div", flags, " ", _partial_note(s) or "", style=f"{SANS};padding:0 4px 1px 2.6em"))
        if r.aliases:
            extra.append(el("div", "also at: " + ", ".join(r.aliases[:8]) + (" …" if len(r.aliases) > 8 else ""),
                            style=f"{SANS};font-size:0.9em;{MUTED};padding:0 4px 1px 2.6em"))
        # Striped rows; the plain fill comes first so an untrusted notebook keeps the stripes.
        background = f"background-color:{GREY_FILL}" if i % 2 else "background-color:transparent"
        return el("div", el("div", fields, style=_LINE), extra, style=background)


# A row's fields: inline blocks that wrap (fold) onto a second line when the output is narrow.
_LINE = "white-space:normal;line-height:1.6"


def _kind_html(kind):
    if kind == "trainable":
        return el("span", "trainable", style=badge("ok") + ";margin-left:0", title="requires_grad=True")
    if kind == "statistic":
        return el("span", "statistic", style=badge() + ";margin-left:0",
                  title="a running statistic: updated in forward, never trained")
    return el("span", "frozen", style=badge() + ";margin-left:0", title="requires_grad=False")


def _partial_note(summary):
    """The tensor view's note on statistics that cover only the finite values."""
    return finite_note(summary)
