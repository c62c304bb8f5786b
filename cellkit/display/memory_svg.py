"""The memory timeline as an SVG chart: live bytes per role over the events, the peak marked.

One panel shows a :class:`~cellkit.memory.MemoryReport`: a stacked area per
role (activation, saved, recomputed, gradient ...) over the event steps,
drawn as steps (memory changes at an event, then stays), the recompute
replays shaded, the start of the backward pass dotted, bytes offloaded to
the host as a dashed line, and the peak marked with a line and its value in
MiB.  :func:`comparison_svg` puts two panels side by side on one y scale
under a line stating the saving and the time ratio.

The SVG is a standalone document (an ``image/svg+xml`` output, never inlined
in HTML): fixed colours and no background of its own -- labels carry a light
halo, so the chart reads on a light and on a dark page without a white
board -- no script, no external reference, every label escaped.  A
notebook shows the HTML chart (:mod:`~cellkit.display.memory_html`), which
follows the theme; the SVG is for exports and other frontends.  Long timelines are thinned to about
``budget`` points (:func:`~cellkit.display.memory_timeline.keep_points`),
which keeps the peak exactly, so a 100,000-event report stays small.

>>> from cellkit.memory import MemoryEvent, MemoryReport
>>> events = [MemoryEvent(0, "alloc", 2**20, "activation", "CPU", "0", "dense"),
...           MemoryEvent(1, "free", 2**20, "activation", "CPU", "0", "dense")]
>>> report = MemoryReport("demo", "CPU", events, 0, {}, None, None, 0.0, None, None)
>>> svg = report_svg(report)
>>> svg.startswith("<svg") and "peak 1.00 MiB" in svg
True
"""
from __future__ import annotations

import html
import math

from .html import one_line
from .memory_timeline import (HOST_COLOUR, PEAK_COLOUR, REPLAY_COLOUR, ROLE_COLOURS, backward_start, drawn_roles,
                              format_mib, keep_points, peak_index, replay_spans, stacked_totals)

__all__ = ["report_svg", "comparison_svg", "comparison_headline"]

BUDGET = 1200            # points drawn per panel at most (the peak always among them)
FONT = "Helvetica, Arial, sans-serif"
AXIS = "#4b5563"
GRID = "#e5e7eb"
TEXT = "#1f2937"
# Labels are dark with a light halo: readable on a light page and on a dark one (no white board behind).
_TEXT_HALO = 'stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'



def _x(text, limit=120) -> str:
    """``text`` on one line, cut, escaped for XML text and attribute values."""
    return html.escape(one_line(text, limit), quote=True)


def _n(v) -> str:
    """A coordinate with one decimal, no trailing ``.0``."""
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _nice_step(top, ticks=4):
    """A round tick step (1, 2, 2.5 or 5 times a power of ten) giving about ``ticks`` ticks up to ``top``."""
    raw = max(top, 1e-12) / ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw:
            return factor * magnitude
    return 10 * magnitude  # pragma: no cover  (the loop always returns)


def y_top(report):
    """The highest value any layer of ``report``'s chart reaches (bytes)."""
    stacked = max(stacked_totals(report, drawn_roles(report)), default=0)
    return max(stacked, report.peak_bytes, max(report.host, default=0), 1)


class _Frame:
    """Maps event steps and bytes to pixels inside a plot rectangle."""

    def __init__(self, left, top, width, height, x_max, y_max):
        self.left, self.top, self.width, self.height = left, top, width, height
        self.x_max = max(x_max, 1)
        self.y_max = max(y_max, 1)

    @property
    def bottom(self):
        return self.top + self.height

    @property
    def right(self):
        return self.left + self.width

    def x(self, step):
        return self.left + self.width * step / self.x_max

    def y(self, nbytes):
        return self.bottom - self.height * min(max(nbytes, 0), self.y_max) / self.y_max


def _step_path(frame, xs, ys, closed):
    """A step line through ``(xs[i], ys[i])`` (the value holds until the next point); ``closed`` fills to 0."""
    if not xs:
        return ""
    base = _n(frame.bottom)
    out = [f"M{_n(frame.x(xs[0]))},{base if closed else _n(frame.y(ys[0]))}"]
    previous = None
    for step, value in zip(xs, ys):
        if value == previous:
            continue  # a flat stretch: the next H carries on
        out.append(f"H{_n(frame.x(step))}V{_n(frame.y(value))}")
        previous = value
    out.append(f"H{_n(frame.right)}")
    if closed:
        out.append(f"V{base}Z")
    return "".join(out)


def _axes(frame):
    """Grid lines, y ticks in MiB, x ticks in events, axis titles."""
    out = []
    step = _nice_step(frame.y_max / 2**20)
    t = 0.0
    while t * 2**20 <= frame.y_max * 1.0001:
        y = frame.y(t * 2**20)
        out.append(f'<line x1="{_n(frame.left)}" y1="{_n(y)}" x2="{_n(frame.right)}" y2="{_n(y)}" stroke="{GRID}"/>')
        out.append(f'<text x="{_n(frame.left - 5)}" y="{_n(y + 3.5)}" text-anchor="end" fill="{AXIS}">{t:g}</text>')
        t = round(t + step, 10)
    x_step = max(1, int(_nice_step(frame.x_max, 5)))
    for s in range(0, frame.x_max + 1, x_step):
        x = frame.x(s)
        out.append(f'<line x1="{_n(x)}" y1="{_n(frame.bottom)}" x2="{_n(x)}" y2="{_n(frame.bottom + 4)}" '
                   f'stroke="{AXIS}"/>')
        out.append(f'<text x="{_n(x)}" y="{_n(frame.bottom + 15)}" text-anchor="middle" fill="{AXIS}">{s}</text>')
    out.append(f'<line x1="{_n(frame.left)}" y1="{_n(frame.bottom)}" x2="{_n(frame.right)}" y2="{_n(frame.bottom)}" '
               f'stroke="{AXIS}"/>')
    out.append(f'<text x="{_n(frame.left + frame.width / 2)}" y="{_n(frame.bottom + 28)}" text-anchor="middle" '
               f'fill="{AXIS}">event (op timeline)</text>')
    middle = frame.top + frame.height / 2
    out.append(f'<text x="{_n(frame.left - 40)}" y="{_n(middle)}" text-anchor="middle" fill="{AXIS}" '
               f'transform="rotate(-90 {_n(frame.left - 40)} {_n(middle)})">MiB above baseline</text>')
    return out


def _replays(frame, report):
    """Shaded bands over the recompute replays (bands closer than a pixel merge, so thousands stay cheap)."""
    bands = []
    for span in replay_spans(report):
        x1, x2 = frame.x(span.start), frame.x(span.end)
        if bands and x1 - bands[-1][1] < 1.0:
            bands[-1][1] = max(bands[-1][1], x2)
            bands[-1][2] += 1
        else:
            bands.append([x1, x2, 1, span.label])
    out = []
    for x1, x2, count, label in bands:
        title = f"recompute of {label}" + (f" (and {count - 1} more)" if count > 1 else "")
        out.append(f'<rect class="replay" x="{_n(x1)}" y="{_n(frame.top)}" width="{_n(max(x2 - x1, 1))}" '
                   f'height="{_n(frame.height)}" fill="{REPLAY_COLOUR}" fill-opacity="0.12">'
                   f'<title>{_x(title)}</title></rect>')
    return out


def _areas(frame, report, kept, roles):
    """One filled step area per role, stacked: each role's area reaches the sum of it and the roles below.

    Drawn top role first, each lower one over it, so no area needs a lower edge.
    """
    xs = [report.steps[i] for i in kept]
    out = []
    for depth in range(len(roles), 0, -1):
        below = roles[:depth]
        ys = [sum(max(report.by_role[r][i], 0) for r in below) for i in kept]
        role = roles[depth - 1]
        out.append(f'<path class="area" data-role="{_x(role)}" d="{_step_path(frame, xs, ys, True)}" '
                   f'fill="{ROLE_COLOURS.get(role, "#999999")}" fill-opacity="0.85" stroke="none">'
                   f'<title>{_x(role)}</title></path>')
    return out


def _legend(x, y, roles, host, replays):
    out, cursor = [], x
    items = [(ROLE_COLOURS.get(r, "#999999"), r, "box") for r in roles]
    if replays:
        items.append((REPLAY_COLOUR, "recompute replay", "band"))
    if host:
        items.append((HOST_COLOUR, "offloaded to host", "dash"))
    for colour, name, kind in items:
        if kind == "dash":
            out.append(f'<line x1="{_n(cursor)}" y1="{_n(y - 4)}" x2="{_n(cursor + 14)}" y2="{_n(y - 4)}" '
                       f'stroke="{colour}" stroke-width="2" stroke-dasharray="4 2"/>')
            width = 14
        else:
            opacity = ' fill-opacity="0.2"' if kind == "band" else ""
            out.append(f'<rect x="{_n(cursor)}" y="{_n(y - 9)}" width="10" height="10" fill="{colour}"{opacity}/>')
            width = 10
        out.append(f'<text class="legend" x="{_n(cursor + width + 4)}" y="{_n(y)}" fill="{TEXT}">{_x(name)}</text>')
        cursor += width + 12 + 6.2 * len(name)
    return out


def _peak(frame, report, index):
    x, y = frame.x(report.steps[index]), frame.y(report.peak_bytes)
    from .memory_html import cell_at, phase_of

    where = cell_at(report, report.peak_step)
    label = (f"peak {format_mib(report.peak_bytes)} (event {report.peak_step}, {phase_of(report, report.peak_step)}"
             + (f", in {where})" if where else ")"))
    anchor, dx = ("end", -6) if x > frame.left + frame.width * 0.6 else ("start", 6)
    return [f'<line class="peak" x1="{_n(frame.left)}" y1="{_n(y)}" x2="{_n(frame.right)}" y2="{_n(y)}" '
            f'stroke="{PEAK_COLOUR}" stroke-width="1" stroke-dasharray="5 3"/>',
            f'<line x1="{_n(x)}" y1="{_n(y)}" x2="{_n(x)}" y2="{_n(frame.bottom)}" stroke="{PEAK_COLOUR}" '
            f'stroke-width="1" stroke-dasharray="2 2"/>',
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="3.5" fill="{PEAK_COLOUR}"/>',
            f'<text class="peak-label" x="{_n(x + dx)}" y="{_n(max(y - 6, frame.top + 10))}" text-anchor="{anchor}" '
            f'fill="{PEAK_COLOUR}" font-weight="bold" {_TEXT_HALO}>{_x(label)}</text>']


def _backward_mark(frame, report):
    step = backward_start(report)
    if step is None:
        return []
    x = frame.x(step)
    return [f'<line x1="{_n(x)}" y1="{_n(frame.top)}" x2="{_n(x)}" y2="{_n(frame.bottom)}" stroke="{AXIS}" '
            f'stroke-dasharray="1 3"/>',
            f'<text x="{_n(x - 4)}" y="{_n(frame.top - 3)}" text-anchor="end" fill="{AXIS}">forward</text>',
            f'<text x="{_n(x + 4)}" y="{_n(frame.top - 3)}" fill="{AXIS}">backward →</text>']


def panel(report, left, top, width, height, y_max=None, budget=BUDGET, title=None):
    """The SVG elements of one chart in the box ``(left, top, width, height)`` (a list of strings)."""
    roles = drawn_roles(report)
    host = any(v > 0 for v in report.host)
    replays = bool(replay_spans(report))
    x_max = report.events[-1].step if report.events else 1
    frame = _Frame(left + 52, top + 54, width - 52 - 14, height - 54 - 34, x_max, y_max or y_top(report) * 1.08)
    heading = title if title is not None else f"{report.label}: peak {format_mib(report.peak_bytes)}"
    out = [f'<text class="title" x="{_n(left + 8)}" y="{_n(top + 14)}" font-weight="bold" font-size="12" '
           f'fill="{TEXT}">{_x(heading)}</text>']
    out += _legend(left + 8, top + 31, roles, host, replays)
    out += _axes(frame)
    out += _replays(frame, report)
    index = peak_index(report)
    if index < 0:
        out.append(f'<text x="{_n(frame.left + 8)}" y="{_n(frame.top + 16)}" fill="{AXIS}">no allocations</text>')
        return out
    kept = keep_points(report.live, budget, must_keep=[index])
    out += _areas(frame, report, kept, roles)
    xs = [report.steps[i] for i in kept]
    stacked = [sum(max(report.by_role[r][i], 0) for r in roles) for i in kept]
    live = [report.live[i] for i in kept]
    if live != stacked:  # freed baseline arrays make some roles negative: the true total is this line
        out.append(f'<path class="live" d="{_step_path(frame, xs, live, False)}" fill="none" stroke="{TEXT}" '
                   f'stroke-width="1"/>')
    if host:
        host_values = [report.host[i] for i in kept]
        out.append(f'<path class="host" d="{_step_path(frame, xs, host_values, False)}" fill="none" '
                   f'stroke="{HOST_COLOUR}" stroke-width="1.5" stroke-dasharray="5 3"/>')
    out += _backward_mark(frame, report)
    out += _peak(frame, report, index)
    return out


def _document(width, height, title, body):
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="10">',
                      f"<title>{_x(title, 300)}</title>",
                      # no background: the chart sits on the page; its labels carry a halo (see _TEXT_HALO)
                      *body, "</svg>"]).replace(' fill="' + TEXT + '"', ' fill="' + TEXT + '" ' + _TEXT_HALO) \
        .replace(' fill="' + AXIS + '"', ' fill="' + AXIS + '" ' + _TEXT_HALO)


def report_svg(report, width=760, height=300, y_max=None, budget=BUDGET) -> str:
    """The chart of one report as an SVG document."""
    title = f"Live bytes of {report.label} over {len(report.events)} events; peak {format_mib(report.peak_bytes)}"
    return _document(width, height, title, panel(report, 0, 0, width, height, y_max, budget))


def comparison_headline(comparison) -> str:
    """``'with recompute: 73% less peak memory than ... (1.20 MiB vs 4.50 MiB); time ×1.31 (median of 5 ...)'``.

    The time ratio is stated only from several interleaved runs
    (:mod:`cellkit.display.timing`): one run each is within run-to-run noise,
    and then the headline says so instead of giving a number.
    """
    from .timing import MIN_RUNS, Ratio, runs_of

    before, after = comparison.before, comparison.after
    saving = comparison.saving
    if abs(saving) < 0.005:
        amount = f"the same peak memory as {before.label}"
    else:
        amount = f"{abs(saving):.0%} {'less' if saving > 0 else 'more'} peak memory than {before.label}"
    ratio = Ratio(runs_of(before), runs_of(after))
    if ratio.enough:
        time_text = f"time {ratio.text()}"
    else:
        a = before.clean_seconds if before.clean_seconds is not None else before.seconds
        b = after.clean_seconds if after.clean_seconds is not None else after.seconds
        time_text = (f"time not compared: one run each ({a * 1e3:.3g} ms vs {b * 1e3:.3g} ms) is within "
                     f"run-to-run noise; {MIN_RUNS}+ interleaved runs are needed (recompute_explorer times 5)")
    return (f"{after.label}: {amount} ({format_mib(after.peak_bytes)} vs {format_mib(before.peak_bytes)}); "
            f"{time_text}")


def comparison_svg(comparison, panel_width=500, height=300, budget=BUDGET // 2) -> str:
    """Both reports of ``comparison`` side by side, on one y scale, under the headline."""
    before, after = comparison.before, comparison.after
    y_max = max(y_top(before), y_top(after)) * 1.08
    headline = comparison_headline(comparison)
    body = [f'<text class="headline" x="8" y="18" font-weight="bold" font-size="13" fill="{TEXT}">{_x(headline, 200)}'
            f'</text>']
    body += panel(before, 0, 26, panel_width, height, y_max, budget)
    body += panel(after, panel_width, 26, panel_width, height, y_max, budget)
    return _document(2 * panel_width, height + 26, headline, body)
