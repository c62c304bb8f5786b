"""The static HTML form of memory reports: a column chart, the roles at the peak, the cells.

Jupyter shows ``text/html`` in preference to ``image/svg+xml`` and keeps no
inline ``<svg>`` in an untrusted notebook, so the HTML carries its own chart:
one column of stacked, role-coloured boxes per slice of the timeline (the
slice's highest point, so the peak column is the peak), recompute replays
tinted, the peak column capped in red, and under the columns a band naming
the phase (forward, backward) with the Cell the peak happened in.  Below it the roles live at the peak
(the legend), the allocator's own figure, and a table of the Cells by bytes
at the peak with bars.  :func:`comparison_html` sets two reports side by
side on one scale under the saving and the time ratio.

Only what an untrusted notebook keeps: ``div``/``span``/``table`` with
inline styles, no script, style element, SVG or URL; every label and cell
path escaped (:func:`cellkit.display.html.el`).

>>> from cellkit.memory import MemoryEvent, MemoryReport
>>> events = [MemoryEvent(0, "alloc", 2**20, "activation", "CPU", "<b>", "dense")]
>>> html = report_html(MemoryReport("demo", "CPU", events, 0, {}, None, None, 0.0, None, None))
>>> "&lt;b&gt;" in html, html.count("<b>")   # the path is text; the one <b> is the heading's
(True, 1)
"""
from __future__ import annotations

from .html import MONO, MUTED, SANS, Raw, badge, el, format_bytes, format_count, format_number, line, themed
from .memory_svg import comparison_headline, y_top
from .memory_timeline import (PEAK_COLOUR, ROLE_COLOURS, backward_start, cell_rows, drawn_roles, format_mib,
                              peak_index, replay_spans, stack_at, timing_and_replays)

__all__ = ["report_html", "comparison_html", "column_chart"]

CHART_HEIGHT = 150      # px
CHART_WIDTH = 600       # px, about
MAX_COLUMNS = 120
MAX_CELL_ROWS = 60
_MUTED = MUTED
# Table styles are set once per row and table, not per cell: a 60-row table stays a few dozen KiB.
_CELL = "padding:1px 8px;text-align:left"
_NUM = "padding:1px 8px;text-align:right"
_HEAD = "padding:1px 8px;text-align:left;font-weight:600"
_ROW = line("border-bottom") + ";background-color:transparent"
_TABLE = "border-collapse:collapse;font-size:12px;margin:4px 0;white-space:nowrap"


def _swatch(role):
    return el("span", "", style=(f"display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:middle;"
                                 f"background-color:{ROLE_COLOURS.get(role, '#999999')}"))


def _buckets(report, columns):
    """``[(first index, last index, representative index)]``: the timeline cut into ``columns`` slices."""
    n = len(report.live)
    columns = max(1, min(columns, n))
    out = []
    for b in range(columns):
        lo, hi = b * n // columns, (b + 1) * n // columns
        if lo < hi:
            top = max(range(lo, hi), key=report.live.__getitem__)  # the first highest: the peak's own index
            out.append((lo, hi - 1, top))
    return out


def _column(report, roles, first, last, index, px_per_byte, width, replayed, is_peak):
    stack = [(role, n) for role, n in stack_at(report, index, roles) if n > 0]
    tops, total = [], 0
    for role, n in stack:
        total += n
        tops.append(round(total * px_per_byte))
    heights = [top - (tops[k - 1] if k else 0) for k, top in enumerate(tops)]
    used = tops[-1] if tops else 0
    parts = []
    full_height = replayed or is_peak  # a tinted or capped column fills the chart's height; others stand on the base
    if full_height:
        cap = 2 if is_peak else 0
        parts.append(Raw(f'<span style="display:block;height:{max(CHART_HEIGHT - used - cap, 0)}px"></span>'))
        if cap:
            parts.append(Raw(f'<span style="display:block;height:{cap}px;background:{PEAK_COLOUR}"></span>'))
    for (role, _), h in reversed(list(zip(stack, heights))):  # top of the stack first
        if h > 0:
            parts.append(Raw(f'<span style="display:block;height:{h}px;background:{ROLE_COLOURS.get(role, "#999")}">'
                             '</span>'))
    a, b = report.steps[first], report.steps[last]
    title = f"event {a}" if a == b else f"events {a}–{b}"
    title += f" ({phase_of(report, report.steps[index])}, {cell_at(report, report.steps[index]) or 'outside the Cells'})"
    title += f": {format_mib(report.live[index])} live"
    if stack:
        title += " (" + ", ".join(f"{role} {format_bytes(n)}" for role, n in stack) + ")"
    if replayed:
        title += "; recompute replay"
    if is_peak:
        title = "PEAK — " + title
    box = f"display:inline-block;vertical-align:bottom;width:{width}px;margin-right:1px"
    if full_height:
        box += f";height:{CHART_HEIGHT}px" + (";background:rgba(225,87,89,0.14)" if replayed else "")
    return el("span", parts, title=title, style=box)


def column_chart(report, y_max=None, columns=MAX_COLUMNS, width=CHART_WIDTH) -> Raw:
    """The timeline of ``report`` as columns of role-coloured boxes (``y_max`` bytes = full height)."""
    index = peak_index(report)
    if index < 0:
        return el("div", "no allocations were recorded", style=_MUTED)
    y_max = y_max or y_top(report) * 1.08
    roles = drawn_roles(report)
    buckets = _buckets(report, columns)
    col_width = max(2, min(12, width // len(buckets) - 1))
    spans = replay_spans(report)
    cols = []
    for first, last, rep in buckets:
        a, b = report.steps[first], report.steps[last]
        replayed = any(s.start <= b and s.end >= a for s in spans)
        cols.append(_column(report, roles, first, last, rep, CHART_HEIGHT / y_max, col_width, replayed,
                            first <= index <= last))
    chart_width = (col_width + 1) * len(buckets)
    # a full-height strut makes the line box as tall as the chart, so every column stands on its base line
    strut = Raw(f'<span style="display:inline-block;vertical-align:bottom;width:0;height:{CHART_HEIGHT}px"></span>')
    plot = el("div", strut, cols, style=(f"line-height:0;font-size:0;white-space:nowrap;height:{CHART_HEIGHT}px;"
                                  f"width:{chart_width}px;{line('border-bottom')};{line('border-left')}"))
    last_step = report.events[-1].step if report.events else 0
    axis = el("div", el("span", f"event {last_step}", style="float:right"), "event 0",
              style=f"width:{chart_width}px;font-size:11px;{_MUTED};text-align:left")
    band = _phase_band(report, buckets, col_width + 1, chart_width)
    peak_col = next(k for k, (first, last, _) in enumerate(buckets) if first <= index <= last)
    marker = _peak_marker(report, peak_col, len(buckets), col_width + 1)
    scale = el("td", el("div", format_mib(y_max), style=f"height:{CHART_HEIGHT - 10}px"), "0", title="chart scale",
               style="vertical-align:top;text-align:right;font-size:11px;padding:0 4px 0 0;white-space:nowrap;"
                     + _MUTED)
    table = el("table", el("tr", scale, el("td", plot, band, axis, marker, style="padding:0;text-align:left"),
                           style="background-color:transparent"),
               style="border-collapse:collapse;margin:4px 0")
    return table


def phase_of(report, step):
    """``'forward'`` or ``'backward'`` (from the first gradient on), for an event step."""
    start = backward_start(report)
    return "backward" if start is not None and step >= start else "forward"


def cell_at(report, step):
    """The Cell path of the last event at or before ``step`` that happened inside a Cell ('' if none)."""
    found = ""
    for event in report.events:
        if event.step > step:
            break
        if event.kind != "mark" and event.path:
            found = event.path
    return found


def _phase_band(report, buckets, pitch, width):
    """A strip under the columns: where the forward pass ends and the backward pass begins, labelled."""
    start = backward_start(report)
    split = len(buckets)
    if start is not None:
        split = next((k for k, (first, last, _) in enumerate(buckets) if report.steps[last] >= start), len(buckets))
    parts = []
    for label, columns, fill in (("forward", split, "rgba(47,127,209,0.25)"),
                                 ("backward", len(buckets) - split, "rgba(217,119,6,0.3)")):
        if columns <= 0:
            continue
        parts.append(el("span", label if columns * pitch >= 60 else "", title=f"{label} pass",
                        style=(f"display:inline-block;width:{columns * pitch}px;background-color:{fill};"
                               f"font-size:10px;line-height:14px;overflow:hidden;white-space:nowrap;"
                               f"text-align:center;vertical-align:top")))
    return el("div", parts, style=f"width:{width}px;white-space:nowrap;line-height:0;margin-top:1px")


def _peak_marker(report, column, columns, pitch):
    """``▲ peak …`` under the peak column, with its phase and Cell (text running left when the column is far right)."""
    where = cell_at(report, report.peak_step)
    context = f" ({phase_of(report, report.peak_step)}{', in ' + where if where else ''})"
    text = f"▲ peak {format_mib(report.peak_bytes)} at event {report.peak_step}{context}"
    style = "font-size:11px;white-space:nowrap;font-weight:600;"
    if column < columns * 0.6:
        return el("div", text, style=style + f"padding-left:{max(column * pitch - 3, 0)}px;text-align:left")
    text = f"peak {format_mib(report.peak_bytes)} at event {report.peak_step}{context} ▲"
    return el("div", text, style=style + f"width:{(column + 1) * pitch + 3}px;text-align:right")


def _roles_table(report):
    """The legend: every role live at the peak, its bytes and share of the peak."""
    at_peak = report.by_role_at_peak()
    total = report.peak_bytes or 1
    rows = [el("tr", [el("th", h, style=_HEAD) for h in ("role", "at the peak", "share", "")], style=_ROW)]
    for role, n in at_peak.items():
        share = n / total
        rows.append(el("tr", el("td", _swatch(role), role, style=_CELL), el("td", format_bytes(n), style=_NUM + ";" + MONO),
                       el("td", f"{share:.0%}", style=_NUM), el("td", _bar(share, ROLE_COLOURS.get(role)), style=_CELL),
                       style=_ROW))
    table = el("table", rows, title="roles at the peak", style=_TABLE)
    others = [r for r in drawn_roles(report) if r not in at_peak]
    if others:
        note = el("div", "also on the chart: ", [el("span", _swatch(r), r, " ", style="white-space:nowrap") for r in others],
                  style="font-size:12px;" + _MUTED)
        return el("div", table, note)
    return table


def _bar(fraction, colour=None, width=80):
    """A bar ``fraction`` of ``width`` pixels long (one element: tables repeat it per row)."""
    fraction = min(max(fraction, 0.0), 1.0)
    fill = f"background:{colour}" if colour else themed("background", "accent")
    return Raw(f'<span style="display:inline-block;vertical-align:middle;height:7px;width:{round(width * fraction)}px;'
               f'{fill}"></span>')


def _cells_table(report):
    rows = cell_rows(report)
    top = max((max(row["at_peak"], 0) for _, row in rows), default=0) or 1
    head = el("tr", [el("th", h, style=_HEAD) for h in ("cell", "at the peak", "", "allocated over the call", "arrays")],
              style=_ROW)
    body = [head]
    for path, row in rows[:MAX_CELL_ROWS]:
        body.append(el("tr", el("td", path, style=_CELL), el("td", format_bytes(row["at_peak"]), style=_NUM),
                       el("td", _bar(row["at_peak"] / top), style=_CELL),
                       el("td", format_bytes(row["allocated"]), style=_NUM),
                       el("td", format_count(row["count"]), style=_NUM), style=_ROW))
    parts = [el("table", body, title="cells by bytes at the peak", style=_TABLE + ";" + MONO)]
    if len(rows) > MAX_CELL_ROWS:
        parts.append(el("div", f"… {len(rows) - MAX_CELL_ROWS} more cells (all of them are in report.by_cell())",
                        style=_MUTED))
    summary = el("summary", f"Cells by bytes at the peak ({len(rows)})", style="cursor:pointer;font-weight:600")
    return el("details", summary, parts, open=len(rows) <= 30)


def _facts(report):
    """One line each: allocator figure and agreement, timings, recompute replays."""
    lines = []
    if report.allocator_peak_bytes:
        agreement = report.agreement()
        lines.append(f"{report.allocator} peak {format_mib(report.allocator_peak_bytes)}: accounted / allocator = "
                     f"{agreement:.2f}" + ("" if 0.9 <= agreement <= 1.1 else
                                         " (the allocator also sees scratch space inside ops and Python's own objects)"))
    elif report.allocator:
        lines.append(f"{report.allocator}: no figure for this call")
    timing, replays = timing_and_replays(report)
    lines.append(timing)
    if replays:
        lines.append(f"{replays} (tinted columns)")
    return [el("div", text, style="font-size:12px;" + _MUTED) for text in lines]


def _heading(report):
    return el("div", el("b", f"Memory: {report.label}"), el("span", report.device, style=badge()), " ",
              el("span", f"peak {format_mib(report.peak_bytes)}", style=badge("error") + ";font-weight:600"),
              f" at event {report.peak_step}, above a baseline of {format_mib(report.baseline_bytes)} "
              f"(parameters, inputs); {format_count(len(report.events))} events",
              style="margin-bottom:2px")


def _short_heading(report):
    return el("div", el("b", report.label), el("span", report.device, style=badge()), " ",
              el("span", f"peak {format_mib(report.peak_bytes)}", style=badge("error") + ";font-weight:600"),
              f" · {format_count(len(report.events))} events", style="margin-bottom:2px;white-space:nowrap")


def report_html(report) -> Raw:
    """The whole static view of one report."""
    parts = [_heading(report), column_chart(report), _roles_table(report), *_facts(report), _cells_table(report)]
    return el("div", parts, style=f"{SANS};font-size:13px;line-height:1.35")


def comparison_html(comparison) -> Raw:
    """Two reports side by side on one scale, the saving and the time ratio above them."""
    before, after = comparison.before, comparison.after
    y_max = max(y_top(before), y_top(after)) * 1.08
    headline = el("div", comparison_headline(comparison), style="font-weight:600;font-size:14px;margin-bottom:4px")
    panels = [el("div", _short_heading(r), column_chart(r, y_max, columns=80, width=400), _roles_table(r),
                 style="display:inline-block;vertical-align:top;margin-right:24px;width:470px")
              for r in (before, after)]
    return el("div", headline, el("div", panels), _comparison_table(comparison),
              style=f"{SANS};font-size:13px;line-height:1.35")


def _comparison_table(comparison):
    before, after = comparison.before, comparison.after
    roles = [r for r in ROLE_COLOURS if r in before.by_role_at_peak() or r in after.by_role_at_peak()]
    rows = [("peak", format_mib(before.peak_bytes), format_mib(after.peak_bytes))]
    for role in roles:
        rows.append((f"{role} at the peak", format_bytes(before.by_role_at_peak().get(role, 0)),
                     format_bytes(after.by_role_at_peak().get(role, 0))))
    rows.append(("time, profiled", f"{format_number(before.seconds * 1e3)} ms", f"{format_number(after.seconds * 1e3)} ms"))
    if before.clean_seconds is not None and after.clean_seconds is not None:
        rows.append(("time, clean", f"{format_number(before.clean_seconds * 1e3)} ms",
                     f"{format_number(after.clean_seconds * 1e3)} ms"))
    rows.append(("recompute replays", str(len(replay_spans(before))), str(len(replay_spans(after)))))
    head = el("tr", [el("th", h, style=_HEAD) for h in ("", before.label, after.label)], style=_ROW)
    body = [head] + [el("tr", el("td", a, style=_CELL), el("td", b, style=_NUM + ";" + MONO),
                        el("td", c, style=_NUM + ";" + MONO), style=_ROW) for a, b, c in rows]
    return el("table", body, title="comparison", style=_TABLE)
