"""Timings a display may present as a finding: several runs, their median and spread, or nothing.

One run of a notebook-sized step varies by tens of percent from run to run
(the same recompute comparison read 0.85x, 1.57x and 1.31x), so a ratio of
two single runs is noise.  :func:`time_pairs` runs two variants in turn,
interleaved (A B A B ...), so drift in the machine hits both alike;
:class:`Ratio` keeps every per-pair ratio and reports their median and
their spread; :func:`attach` hangs a list of run times on a memory report
(without touching the report) for :func:`~cellkit.display.memory_svg.comparison_headline`
to find.  Fewer than :data:`MIN_RUNS` runs give no ratio at all.

>>> r = Ratio([0.010, 0.011, 0.012], [0.013, 0.0143, 0.0144])
>>> r.text()
'×1.30 (median of 3 interleaved runs each; spread ×1.20–1.30)'
>>> Ratio([0.01], [0.02]).text() is None
True
"""
from __future__ import annotations

import statistics
import time
import weakref

__all__ = ["MIN_RUNS", "Ratio", "time_pairs", "attach", "runs_of", "summary"]

MIN_RUNS = 3
_RUNS = weakref.WeakKeyDictionary()   # report -> list of seconds, set by whoever measured it several times


def attach(report, seconds):
    """Remember ``seconds`` (a list of run times) for ``report``; returns the report."""
    _RUNS[report] = [float(s) for s in seconds]
    return report


def runs_of(report):
    """The run times attached to ``report`` (an empty list when none were)."""
    try:
        return list(_RUNS.get(report, ()))
    except TypeError:  # not weak-referenceable: nothing was attached
        return []


def summary(seconds):
    """``'12.1 ms (median of 5; 11.8–13.0)'``, or ``'12.1 ms (one run)'``."""
    from .html import format_number

    if not seconds:
        return "not timed"
    if len(seconds) == 1:
        return f"{format_number(seconds[0] * 1e3)} ms (one run)"
    return (f"{format_number(statistics.median(seconds) * 1e3)} ms (median of {len(seconds)}; "
            f"{format_number(min(seconds) * 1e3)}–{format_number(max(seconds) * 1e3)})")


class Ratio:
    """Second over first, from paired runs: the median of the per-pair ratios and their spread."""

    def __init__(self, first, second):
        self.first = list(first)
        self.second = list(second)
        n = min(len(self.first), len(self.second))
        self.ratios = [b / a for a, b in zip(self.first[:n], self.second[:n]) if a > 0]

    @property
    def enough(self):
        return len(self.ratios) >= MIN_RUNS

    @property
    def median(self):
        return statistics.median(self.ratios) if self.enough else None

    def text(self):
        """``'×1.30 (median of 3 interleaved runs each; spread ×1.20–1.30)'``, or None (too few runs)."""
        if not self.enough:
            return None
        return (f"×{self.median:.2f} (median of {len(self.ratios)} interleaved runs each; "
                f"spread ×{min(self.ratios):.2f}–{max(self.ratios):.2f})")


def time_pairs(first, second, runs=5, warmup=1):
    """Run ``first()`` and ``second()`` in turn, ``runs`` times each after ``warmup`` of each; their seconds."""
    for _ in range(warmup):
        first()
        second()
    a, b = [], []
    for _ in range(runs):
        start = time.perf_counter()
        first()
        a.append(time.perf_counter() - start)
        start = time.perf_counter()
        second()
        b.append(time.perf_counter() - start)
    return a, b
