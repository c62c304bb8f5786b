"""An ipywidgets form for trying recompute: tick Cells, press Measure, compare with the last run.

``recompute_explorer(net, loss_fn, *inputs)`` lists every sub-Cell of
``net`` (by path) with a checkbox that switches ``cell.recompute()`` on and
off.  **Measure** profiles one gradient step,
``cellkit.grad(loss_fn, grad_position=None, weights=net.trainable_params())(*inputs)``,
with :func:`cellkit.memory.profile` and shows its chart next to the previous
measurement on one scale, with the saving spelled out.  With ``timing`` it
also times both settings, interleaved, ``runs`` times each
(:mod:`cellkit.display.timing`): the time ratio is their median with its
spread -- one run each would be noise, and is never shown as a finding.
The form's bundle carries a static twin (the last comparison) for a
notebook reopened without its kernel.
The checkboxes change the real Cells: after the form, ``net`` keeps the
recompute settings last ticked.

ipywidgets is imported only when the form is built; without it the static
display of one measurement comes back with a note.  The form never raises:
a failed measurement is reported in its status line.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(4, 4), nn.GELU(), nn.Dense(4, 1))
>>> form = recompute_explorer(net, lambda x: net(x).sum(), ms.Tensor(np.ones((2, 4), np.float32)))
>>> hasattr(form, "explorer") or "not available" in form.text()
True
"""
from __future__ import annotations

import base64
import html

from .. import recompute as _recompute
from .html import MONO, SANS, Raw, badge, el, one_line
from .memory_svg import comparison_headline, comparison_svg, report_svg
from .memory_timeline import format_mib

__all__ = ["recompute_explorer", "RecomputeExplorer"]

MAX_TOGGLES = 200
_NOTE_MISSING = "interactive form not available (ipywidgets is not installed): showing one measurement"
_NOTE_FAILED = "interactive form not available ({}): showing one measurement"


def _svg_img(svg, alt) -> str:
    """An ``<img>`` holding ``svg`` as a data URI (a live widget shows it; nothing is fetched)."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(one_line(alt, 200), quote=True)}" '
            f'style="max-width:100%;height:auto"/>')


def _setting_label(net, cells):
    """A short name for the current recompute setting: ``'no recompute'``, ``'recompute 0, 2'``, ``'recompute ×16'``."""
    on = [path for path, cell in cells if cell._recompute is not None]
    if getattr(net, "_recompute", None) is not None:
        on.insert(0, "(whole net)")
    if not on:
        return "no recompute"
    if len(on) > 3:
        return f"recompute ×{len(on)}"
    return "recompute " + ", ".join(on)


class RecomputeExplorer:
    """The widgets of :func:`recompute_explorer` and what ties them to the network.

    Attributes
    ----------
    toggles : dict
        Cell path -> ``ipywidgets.Checkbox``; ticking calls ``cell.recompute()``,
        unticking ``cellkit.recompute.switch_off(cell)``.
    measure_button, clear_button : ipywidgets.Button
        Measure one gradient step; untick every Cell.
    status : ipywidgets.HTML
        What the last measurement found (or why it failed).
    chart : ipywidgets.HTML
        The last measurement's chart, beside the one before it when there is one.
    reports : list of MemoryReport
        Every measurement, oldest first.
    widget : ipywidgets.HBox
        The whole form (what :func:`recompute_explorer` returns; ``widget.explorer`` is this object).
    """

    def __init__(self, net, loss_fn, inputs, w, timing=True, warmup=True, max_toggles=MAX_TOGGLES, runs=5):
        self.net = net
        self.loss_fn = loss_fn
        self.inputs = tuple(inputs)
        self.timing = timing
        self.runs = runs
        self.settings = []   # the recompute setting of each measurement ({path: bool}), as self.reports
        self._warm = not warmup
        self.reports = []
        self.cells = [(path, cell) for path, cell in net.cells_and_names() if path][:max_toggles]
        self.toggles = {}
        for path, cell in self.cells:
            box = w.Checkbox(value=cell._recompute is not None, description=f"{path}: {type(cell).__name__}",
                             indent=False, layout=w.Layout(width="auto", margin=f"0 0 0 {path.count('.')}em"))
            box.observe(self._toggled(path, cell), names="value")
            self.toggles[path] = box
        self.measure_button = w.Button(description="Measure", button_style="primary",
                                       tooltip="profile one gradient step with the ticked Cells recomputed")
        self.clear_button = w.Button(description="untick all", tooltip="switch recompute off on every Cell")
        self.status = w.HTML(value=el("span", "tick Cells to recompute, then press Measure", style="opacity:0.7"))
        self.chart = w.HTML(value="")
        heading = w.HTML(value=el("b", "recompute", style=SANS))
        boxes = w.VBox(list(self.toggles.values()), layout=w.Layout(max_height="24em", overflow="auto"))
        left = w.VBox([heading, boxes, w.HBox([self.measure_button, self.clear_button])],
                      layout=w.Layout(min_width="16em"))
        from .widgets import with_static_twin

        self.widget = with_static_twin(
            w.HBox([left, w.VBox([self.status, self.chart], layout=w.Layout(width="100%", min_width="0"))],
                   layout=w.Layout(flex_flow="row wrap")), self.static_html, self.static_text)
        self.widget.explorer = self
        self.measure_button.on_click(lambda button: self.measure())
        self.clear_button.on_click(lambda button: self.clear())

    def _toggled(self, path, cell):
        def on_change(change):
            _set_recompute(cell, bool(change["new"]))
        return on_change

    def clear(self):
        """Switch recompute off on every listed Cell (the checkboxes follow)."""
        for box in self.toggles.values():
            box.value = False

    def grad_step(self):
        """The function measured: the weight gradients of ``loss_fn`` (no input gradients)."""
        from ..transforms import grad

        return grad(self.loss_fn, grad_position=None, weights=self.net.trainable_params())

    def measure(self):
        """Profile one gradient step with the current settings; show it beside the previous one."""
        from .. import memory

        try:
            step = self.grad_step()
            if not self._warm:  # lazily built caches are not part of what a step costs
                step(*self.inputs)
                self._warm = True
            label = _setting_label(self.net, self.cells)
            report = memory.profile(step, *self.inputs, net=self.net, label=label, timing=False)
            setting = self.current_setting()
            if self.timing and self.reports:
                self._time_against(self.reports[-1], self.settings[-1], report, setting, step)
        except Exception as exc:  # noqa: BLE001 -- the form never raises
            self.status.value = el("span", one_line(f"measurement failed: {type(exc).__name__}: {exc}", 300),
                                   style=badge("error"))
            return None
        report.result = None  # the gradients are not needed; do not keep them alive
        self.reports.append(report)
        self.settings.append(setting)
        self.show()
        return report

    def current_setting(self):
        """``{path: recompute on?}`` of every listed Cell now."""
        return {path: cell._recompute is not None for path, cell in self.cells}

    def _apply(self, setting):
        for path, cell in self.cells:
            if (cell._recompute is not None) != setting.get(path, False):
                _set_recompute(cell, setting.get(path, False))

    def _time_against(self, previous, previous_setting, report, setting, step):
        """Time the previous setting and this one in turn, ``runs`` times each; attach the times to both."""
        from .timing import attach, time_pairs

        def run(chosen):
            def go():
                self._apply(chosen)
                step(*self.inputs)
            return go

        try:
            before, after = time_pairs(run(previous_setting), run(setting), runs=self.runs)
        finally:
            self._apply(setting)
        attach(previous, before)
        attach(report, after)

    def show(self):
        """Redraw the status line and the chart from :attr:`reports`."""
        if not self.reports:
            return
        latest = self.reports[-1]
        line = f"#{len(self.reports)} {latest.label}: peak {format_mib(latest.peak_bytes)}"
        if len(self.reports) >= 2:
            comparison = self.reports[-2].compare(latest)
            headline = comparison_headline(comparison)
            self.status.value = el("div", el("div", line, style=MONO), el("b", headline), style=SANS)
            self.chart.value = _svg_img(comparison_svg(comparison), headline)
        else:
            self.status.value = el("div", line, style=MONO)
            self.chart.value = _svg_img(report_svg(latest), line)

    def static_html(self):
        """The static twin: the last comparison (or measurement) as HTML, and the ticked Cells."""
        from .memory_html import comparison_html, report_html

        ticked = [path for path, on in self.current_setting().items() if on]
        head = el("div", "recompute explorer: ", el("b", ", ".join(ticked) if ticked else "no Cell"),
                  " ticked (the interactive form needs a running kernel)", style=f"{SANS};font-size:12px")
        if len(self.reports) >= 2:
            body = comparison_html(self.reports[-2].compare(self.reports[-1]))
        elif self.reports:
            body = report_html(self.reports[-1])
        else:
            body = el("div", "nothing measured yet", style="opacity:0.75")
        return el("div", head, Raw(str(body)))

    def static_text(self):
        if len(self.reports) >= 2:
            return comparison_headline(self.reports[-2].compare(self.reports[-1]))
        if self.reports:
            return f"{self.reports[-1].label}: peak {format_mib(self.reports[-1].peak_bytes)}"
        return "recompute explorer: nothing measured yet"


def recompute_explorer(net, loss_fn, *inputs, timing=True, warmup=True, max_toggles=MAX_TOGGLES, runs=5):
    """A form to switch recompute per Cell of ``net`` and measure a gradient step's memory.

    Parameters
    ----------
    net : Cell
        The network whose sub-Cells get checkboxes.
    loss_fn : callable
        ``loss_fn(*inputs)`` returns the loss (it calls ``net``).
    *inputs
        The arguments of ``loss_fn`` (Tensors: a batch, labels).
    timing : bool
        Also time each new setting against the previous one, ``runs`` times
        each, interleaved: the ratio shown is their median, with its spread.
    runs : int
    warmup : bool
        Run one step before the first measurement.

    Returns
    -------
    ipywidgets.HBox (its ``.explorer`` is a :class:`RecomputeExplorer`), or,
    without ipywidgets, the static display of one measurement with a note.
    """
    from .widgets import _widgets

    w = _widgets()
    if w is None:
        return _static(net, loss_fn, inputs, _NOTE_MISSING)
    try:
        return RecomputeExplorer(net, loss_fn, inputs, w, timing, warmup, max_toggles, runs).widget
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return _static(net, loss_fn, inputs, _NOTE_FAILED.format(one_line(f"{type(exc).__name__}: {exc}", 120)))


def _static(net, loss_fn, inputs, note):
    """One measurement's static display with ``note`` under it (a text note alone if even that fails)."""
    from . import Display, _Noted
    from .. import memory
    from ..transforms import grad
    from .memory_view import MemoryReportPart
    from .render import TextPart

    try:
        step = grad(loss_fn, grad_position=None, weights=net.trainable_params())
        report = memory.profile(step, *inputs, net=net, label="current setting")
        return Display(_Noted(MemoryReportPart(report), note), report)
    except Exception as exc:  # noqa: BLE001
        return Display(TextPart(f"recompute_explorer: {note}", one_line(f"measurement failed: {exc}", 200)))


def _set_recompute(cell, on):
    """Tick or untick recompute on one Cell."""
    if on:
        cell.recompute()
    else:
        _recompute.switch_off(cell)
