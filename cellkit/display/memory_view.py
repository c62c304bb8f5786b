"""How a memory report shows itself in a notebook: text, static HTML and an SVG chart.

:meth:`cellkit.memory.MemoryReport._repr_mimebundle_` imports this module
lazily and calls :func:`report_bundle`; a comparison
(``report.compare(other)``) calls :func:`comparison_bundle`.  Each bundle
holds three forms:

- ``text/plain`` -- the peak, the roles at the peak, the cells holding most
  at the peak, the allocator's own figure and how well the two agree (for
  terminals, diffs and tests);
- ``text/html`` -- the static view (:mod:`~cellkit.display.memory_html`),
  with its own chart drawn from boxes: it renders with no kernel, in an
  untrusted notebook and on GitHub / nbviewer;
- ``image/svg+xml`` -- the stacked area chart
  (:mod:`~cellkit.display.memory_chart`).  Notebooks prefer the HTML when
  both are there; :func:`memory_chart` gives the SVG alone as an output.

Nothing here raises: a form that fails to build is left out and the text
says so in one line.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn, memory
>>> net = nn.SequentialCell(nn.Dense(8, 8), nn.GELU(), nn.Dense(8, 1))
>>> x = ms.Tensor(np.ones((4, 8), np.float32))
>>> report = memory.profile(ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params()),
...                         x, net=net, label="mlp")
>>> sorted(report_bundle(report))
['image/svg+xml', 'text/html', 'text/plain']
>>> report_text(report).splitlines()[0].startswith("Memory: mlp (CPU): peak")
True
"""
from __future__ import annotations

from .charts import sparkline
from .html import el, format_bytes, one_line
from .memory_svg import comparison_headline, comparison_svg, report_svg
from .memory_html import comparison_html, report_html
from .memory_timeline import cell_rows, drawn_roles, format_mib, timing_and_replays
from .render import Part, bundle_of, safe_repr

__all__ = ["report_bundle", "comparison_bundle", "report_text", "comparison_text", "memory_chart", "SvgChart",
           "MemoryReportPart", "MemoryComparisonPart"]

TOP_CELLS = 8


# ---------------------------------------------------------------------------- text
def _timeline_sparkline(report, width=60):
    """The live bytes as one line of block characters (each the highest point of its slice)."""
    live = report.live
    if not live:
        return ""
    n = len(live)
    columns = min(width, n)
    return sparkline([max(live[b * n // columns:(b + 1) * n // columns] or [0]) for b in range(columns)])


def report_text(report) -> str:
    """The plain-text summary of one report."""
    lines = [f"Memory: {one_line(report.label, 80)} ({report.device}): peak {format_mib(report.peak_bytes)} at event "
             f"{report.peak_step}, above a baseline of {format_mib(report.baseline_bytes)}; {len(report.events)} events"]
    spark = _timeline_sparkline(report)
    if spark:
        lines.append(f"  live  {spark}")
    at_peak = report.by_role_at_peak()
    if at_peak:
        lines.append("  at the peak:")
        total = report.peak_bytes or 1
        lines += [f"    {role:<16}{format_bytes(n):>11}  {n / total:>4.0%}" for role, n in at_peak.items()]
    others = [r for r in drawn_roles(report) if r not in at_peak]
    if others:
        lines.append("  also during the call: " + ", ".join(others))
    rows = [(path, row) for path, row in cell_rows(report, TOP_CELLS) if row["at_peak"] > 0]
    if rows:
        lines.append("  cells holding most at the peak:")
        width = max(len(one_line(path, 40)) for path, _ in rows)
        lines += [f"    {one_line(path, 40):<{width}}  {format_bytes(row['at_peak']):>11}" for path, row in rows]
    if report.allocator_peak_bytes:
        lines.append(f"  {report.allocator} peak {format_mib(report.allocator_peak_bytes)} "
                     f"(accounted / allocator = {report.agreement():.2f})")
    timing, replays = timing_and_replays(report)
    lines.append(f"  {timing}")
    if replays:
        lines.append(f"  {replays}")
    return "\n".join(lines)


def comparison_text(comparison) -> str:
    """The headline (saving, time ratio), then both reports' summaries."""
    return "\n".join([comparison_headline(comparison), "", report_text(comparison.before), "",
                      report_text(comparison.after)])


# ---------------------------------------------------------------------------- parts
class MemoryReportPart(Part):
    """A report as a display part: ``text()``, ``html()`` and ``svg()``."""

    def __init__(self, report):
        self.report = report

    def text(self):
        return report_text(self.report)

    def html(self):
        return report_html(self.report)

    def svg(self):
        return report_svg(self.report)


class MemoryComparisonPart(Part):
    """A comparison as a display part: ``text()``, ``html()`` and ``svg()``."""

    def __init__(self, comparison):
        self.comparison = comparison

    def text(self):
        return comparison_text(self.comparison)

    def html(self):
        return comparison_html(self.comparison)

    def svg(self):
        return comparison_svg(self.comparison)


def _note(what, exc):
    return one_line(f"display note: the {what} failed ({type(exc).__name__}: {exc})", 300)


def _bundle(part, obj, include, exclude):
    try:
        bundle = bundle_of(part, obj, include, exclude)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return {"text/plain": f"{safe_repr(obj)}\n({_note('display', exc)})"}
    if (include is None or "image/svg+xml" in include) and not (exclude and "image/svg+xml" in exclude):
        try:
            bundle["image/svg+xml"] = part.svg()
        except Exception as exc:  # noqa: BLE001
            bundle["text/plain"] += f"\n({_note('SVG chart', exc)})"
    return bundle


def report_bundle(report, include=None, exclude=None) -> dict:
    """The MIME bundle of a :class:`~cellkit.memory.MemoryReport`: text, static HTML, SVG chart."""
    return _bundle(MemoryReportPart(report), report, include, exclude)


def comparison_bundle(comparison, include=None, exclude=None) -> dict:
    """The MIME bundle of a :class:`~cellkit.memory.MemoryComparison`: both charts on one scale."""
    return _bundle(MemoryComparisonPart(comparison), comparison, include, exclude)


# ---------------------------------------------------------------------------- the chart alone
class SvgChart:
    """The SVG chart of a report or a comparison as a notebook output of its own.

    Its bundle is ``image/svg+xml`` with the HTML chart as ``text/html`` (a
    notebook shows that one: it follows the theme, where an SVG output cannot)
    and ``text/plain``.
    ``.svg`` is the SVG text (None when it failed, see ``.note``).
    """

    def __init__(self, obj, part):
        self.obj = obj
        self._part = part
        self.note = None
        try:
            self.svg = part.svg()
        except Exception as exc:  # noqa: BLE001 -- a display never raises
            self.svg, self.note = None, _note("SVG chart", exc)
        try:
            self._text = part.text()
        except Exception as exc:  # noqa: BLE001
            self._text = f"{safe_repr(obj)}\n({_note('text summary', exc)})"

    def text(self):
        return self._text if self.note is None else f"{self._text}\n({self.note})"

    def html(self):
        """The HTML chart of the same report(s): it follows the notebook's theme and survives untrusted."""
        try:
            return self._part.html()
        except Exception:  # noqa: BLE001 -- a display never raises
            return el("pre", self.text(), style="margin:0")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text()}
        try:
            bundle["text/html"] = str(self.html())
        except Exception:  # noqa: BLE001
            pass
        if self.svg is not None:
            bundle["image/svg+xml"] = self.svg
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include or k == "text/plain"}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude or k == "text/plain"}
        return bundle

    def __repr__(self):
        return self.text()


def memory_chart(obj) -> SvgChart:
    """The SVG chart of a :class:`~cellkit.memory.MemoryReport` or a ``MemoryComparison``, as an output.

    >>> from cellkit.memory import MemoryEvent, MemoryReport
    >>> report = MemoryReport("demo", "CPU", [MemoryEvent(0, "alloc", 1024, "activation", "CPU", "", "ones")],
    ...                       0, {}, None, None, 0.0, None, None)
    >>> sorted(memory_chart(report)._repr_mimebundle_())
    ['image/svg+xml', 'text/html', 'text/plain']
    """
    if hasattr(obj, "before") and hasattr(obj, "after"):
        return SvgChart(obj, MemoryComparisonPart(obj))
    return SvgChart(obj, MemoryReportPart(obj))
