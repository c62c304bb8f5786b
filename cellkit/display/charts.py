"""Small charts drawn with styled HTML boxes (no SVG, no script), and their text twins.

>>> from cellkit.display.stats import Summary
>>> s = Summary(6); s.hist, s.lo, s.hi = [1, 3, 2], 0.0, 3.0
>>> sparkline(s.hist)
'▃█▆'
>>> histogram_html(s).count('title=')
3
"""
from __future__ import annotations

from .html import GREY_FILL, Raw, el, format_count, format_number, line, themed

__all__ = ["histogram_html", "sparkline", "bar_html"]

_BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(counts) -> str:
    """One character per bin, its height proportional to the count (empty bins are blank)."""
    top = max(counts) if counts else 0
    if not top:
        return ""
    chars = []
    for c in counts:
        if c == 0:
            chars.append(" ")
        else:
            chars.append(_BLOCKS[min(len(_BLOCKS) - 1, int(round((len(_BLOCKS) - 1) * c / top)))])
    return "".join(chars)


def histogram_html(summary, width=120, height=28, labels=True) -> Raw:
    """The histogram of a :class:`~cellkit.display.stats.Summary` as a row of bars.

    Bars are inline blocks standing on a common baseline (no flexbox, which
    an untrusted notebook strips).  With ``labels`` the range ends are
    written under the bars and each bar carries a ``title`` (hover text) with
    its range and count; without, the chart is a compact sparkline (for
    table rows) with one title for all.
    """
    counts = summary.hist
    if not counts:
        return Raw("")
    top = max(counts) or 1
    step = (summary.hi - summary.lo) / len(counts)
    bar_width = max(1, width // len(counts) - 1)
    colour = themed("background-color", "accent")
    bars = []
    for i, c in enumerate(counts):
        pct = 0 if c == 0 else max(4.0, 100.0 * c / top)
        style = (f"display:inline-block;vertical-align:bottom;width:{bar_width}px;height:{pct:.0f}%;"
                 f"margin-right:1px;{colour}")
        if labels:
            start = summary.lo + i * step
            bars.append(el("span", "", style=style,
                           title=f"[{format_number(start)}, {format_number(start + step)}): {format_count(c)}"))
        else:
            bars.append(Raw(f'<span style="{style}"></span>'))
    chart_width = (bar_width + 1) * len(counts)
    chart = el("span", bars, style=(f"display:inline-block;height:{height}px;width:{chart_width}px;line-height:0;"
                                    f"font-size:0;white-space:nowrap;vertical-align:middle;{line('border-bottom')}"))
    if not labels:
        tip = f"{format_number(summary.min)} .. {format_number(summary.max)}: " + " ".join(map(str, counts))
        return el("span", chart, style="display:inline-block;vertical-align:middle", title=tip)
    ends = el("span", el("span", format_number(summary.max), style="float:right"), format_number(summary.min),
              style=f"display:block;width:{chart_width}px;font-size:0.75em;line-height:1.3;opacity:0.75")
    return el("span", chart, ends, style="display:inline-block;vertical-align:top")


def bar_html(fraction, width=60, colour="accent") -> Raw:
    """A horizontal bar filled to ``fraction`` (0..1), e.g. a share of all parameters."""
    fraction = min(max(float(fraction), 0.0), 1.0)
    inner = el("span", "", style=f"display:block;height:100%;width:{100 * fraction:.1f}%;"
                                 f"{themed('background-color', colour)}")
    return el("span", inner, style=(f"display:inline-block;vertical-align:middle;width:{width}px;height:6px;"
                                    f"border-radius:3px;overflow:hidden;background-color:{GREY_FILL}"))
