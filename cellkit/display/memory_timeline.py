"""What the memory displays draw, read from a :class:`cellkit.memory.MemoryReport`.

The charts, the HTML view and the text summary all start here: the points of
the timeline to draw (:func:`keep_points` thins a long one without losing
its peak), the recompute replays to shade (:func:`replay_spans`), where the
backward pass starts, the role colours and the MiB format.  Nothing here
builds markup.

>>> keep_points([0, 5, 1, 9, 2, 3], budget=4)   # two buckets: each keeps its low and high point
[0, 1, 3, 4, 5]
>>> format_mib(3 * 2**20), format_mib(0.25 * 2**20)
('3.00 MiB', '0.25 MiB')
"""
from __future__ import annotations

from collections import namedtuple

__all__ = ["ROLE_COLOURS", "HOST_COLOUR", "REPLAY_COLOUR", "PEAK_COLOUR", "format_mib", "keep_points",
           "peak_index", "replay_spans", "backward_start", "drawn_roles", "stacked_totals", "stack_at", "cell_rows", "Span"]

# One colour per role, the same in the SVG chart (which cannot read the notebook's theme) and in the
# HTML legend, so a student matches them by eye.  Chosen to read on white and on a dark page.
ROLE_COLOURS = {
    "parameter": "#8c8c8c",
    "optimizer state": "#b07aa1",
    "input": "#9c755f",
    "activation": "#4e79a7",
    "saved": "#f28e2b",
    "recomputed": "#e15759",
    "gradient": "#59a14f",
}
HOST_COLOUR = "#7b4fb8"
REPLAY_COLOUR = "#e15759"
PEAK_COLOUR = "#c62828"

Span = namedtuple("Span", "start end label")
Span.__doc__ = "A recompute replay: event steps ``start`` .. ``end`` and the region's label."


def format_mib(nbytes) -> str:
    """Bytes as MiB: two decimals from 1 MiB up, three significant digits below (never off by more than 0.5%).

    >>> format_mib(0), format_mib(70_000), format_mib(0.2656 * 2**20), format_mib(123.456 * 2**20)
    ('0.00 MiB', '0.0668 MiB', '0.266 MiB', '123.46 MiB')
    """
    value = nbytes / 2**20
    if value == 0 or abs(value) >= 1:
        return f"{value:.2f} MiB"
    return f"{value:.3g} MiB"


def peak_index(report) -> int:
    """The index into ``report.live`` where the peak is reached (its first occurrence; -1 if empty)."""
    live = report.live
    if not live:
        return -1
    for i, step in enumerate(report.steps):
        if step == report.peak_step and live[i] == report.peak_bytes:
            return i
    return max(range(len(live)), key=live.__getitem__)


def keep_points(values, budget=1200, must_keep=()):
    """Indices of ``values`` to draw: all of them, or per bucket its lowest and highest point.

    A long timeline is cut into ``budget // 2`` buckets; each keeps its
    minimum and its maximum (in order), so spikes and dips stay visible and
    the highest point of all -- the peak -- is always kept, exactly.  The
    first and last points and ``must_keep`` are kept too.

    >>> keep_points(list(range(10)), budget=100) == list(range(10))
    True
    >>> keep_points([1, 7, 2, 2, 3, 1, 0, 4], budget=4, must_keep=[3])
    [0, 1, 3, 6, 7]
    """
    n = len(values)
    if n <= budget:
        return list(range(n))
    buckets = max(budget // 2, 1)
    kept = {0, n - 1}
    kept.update(i for i in must_keep if 0 <= i < n)
    for b in range(buckets):
        lo, hi = b * n // buckets, (b + 1) * n // buckets
        if lo >= hi:
            continue
        low = high = lo
        for i in range(lo + 1, hi):
            v = values[i]
            if v < values[low]:
                low = i
            if v > values[high]:
                high = i
        kept.add(low)
        kept.add(high)
    return sorted(kept)


def timing_and_replays(report):
    """``(timing, replays)``: the two lines every form prints under a report (``replays`` None if none)."""
    from .html import format_number

    timing = f"time {format_number(report.seconds * 1e3)} ms profiled"
    if report.clean_seconds is not None:
        timing += f", {format_number(report.clean_seconds * 1e3)} ms without profiling"
    count = len(replay_spans(report))
    replays = f"{count} recompute replay{'s' if count != 1 else ''}" if count else None
    return timing, replays


def replay_spans(report):
    """The recompute replays in the report's markers, as :class:`Span` (nested ones included)."""
    spans, open_ = [], []
    for step, op, path in report.markers:
        if op == "recompute start":
            open_.append((step, path))
        elif op == "recompute end" and open_:
            start, label = open_.pop()
            spans.append(Span(start, step, label))
    spans.sort(key=lambda s: s.start)
    return spans


def backward_start(report):
    """The event step of the first gradient (where the backward pass begins), or None."""
    for event in report.events:
        if event.kind == "alloc" and event.role == "gradient":
            return event.step
    return None


def drawn_roles(report):
    """The roles with bytes on the device at some point of the timeline, in stacking order."""
    return [role for role, values in report.by_role.items() if values and max(values) > 0]


def stacked_totals(report, roles):
    """The height of the stacked chart at every timeline point: the roles' bytes, negatives as 0."""
    columns = [values if min(values) >= 0 else [max(v, 0) for v in values]
               for values in (report.by_role[role] for role in roles) if values]
    return [sum(point) for point in zip(*columns)] if columns else []


def stack_at(report, index, roles):
    """``[(role, bytes), ...]`` at timeline ``index``; negative counts (freed baseline arrays) as 0."""
    return [(role, max(report.by_role[role][index], 0)) for role in roles]


def cell_rows(report, limit=None):
    """``report.by_cell()`` as rows ``(path, row)``, most bytes at the peak first (then most allocated)."""
    rows = sorted(report.by_cell().items(), key=lambda item: (-item[1]["at_peak"], -item[1]["allocated"], item[0]))
    return rows if limit is None else rows[:limit]
