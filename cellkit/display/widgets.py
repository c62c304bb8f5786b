"""The interactive (ipywidgets) explorer: click through a network's cells, freeze layers, step through a trace.

``explore(net)`` gives the cell tree (one entry per cell path, indented)
beside a detail pane with the selected cell's class, mode, hooks and
parameter table.  The table filters by a name box and a trainable-only
checkbox, and a checkbox per parameter sets ``requires_grad`` on the real
Parameter -- freezing a layer changes ``net.trainable_params()`` at once.

``explore(net, trace=tr)`` (``tr`` a :func:`cellkit.trace` of ``net``) adds
to the detail pane the selected cell's last recorded call: its forward
inputs and output, and its last backward ``grad_output`` / ``grad_input``
(shape, dtype, norm, min/max, NaN/Inf counts, values of tiny tensors).
Cells are matched to the trace's events by path.

``explore(trace)`` (a :func:`cellkit.trace` result) gives a slider that
steps through the events, drawing the first *n* with
:meth:`~cellkit.display.trace.Trace.to_html` and highlighting the cell path
of event *n*.

ipywidgets is optional (the ``notebook`` extra) and imported only here, inside
the functions.  Without it -- or for an object with no widget form -- the
static display comes back with a one-line note; ``explore`` never raises.

>>> from cellkit import nn
>>> from cellkit.display.widgets import explore
>>> view = explore(nn.SequentialCell(nn.Dense(3, 2), nn.ReLU()))
>>> hasattr(view, "explorer") or "not available" in view.text()
True
"""
from __future__ import annotations

from .html import MONO, SANS, Raw, badge, el, format_bytes, format_count, themed

__all__ = ["explore", "CellExplorer", "TraceExplorer"]

MAX_TOGGLES = 200      # per-parameter checkboxes drawn for the selected cell
MAX_TREE_ROWS = 2000   # cell paths listed in the tree
_NOTE_MISSING = "interactive view not available (ipywidgets is not installed): showing the static view"
_NOTE_NO_WIDGET = "interactive view not available for {}: showing the static view"
_NOTE_FAILED = "interactive view not available ({}): showing the static view"


def _widgets():
    """The ipywidgets module, or None when it cannot be imported."""
    try:
        import ipywidgets
    except Exception:  # noqa: BLE001 -- ImportError, or a broken install: either way no widgets
        return None
    return ipywidgets


def _static(obj, note, **options):
    """The static display of ``obj`` with ``note`` under it (never raises)."""
    from . import Display, _Noted, render

    part = render.render(obj, **options)
    if part is None:
        return Display(render.TextPart(render.safe_repr(obj), note), obj)
    return Display(_Noted(part, note), obj)


def explore(obj, trace=None, **options):
    """The interactive view of ``obj``: a Cell or a Trace; anything else gets its static view and a note.

    ``trace`` (a :class:`~cellkit.display.trace.Trace` recorded on ``obj``,
    for a Cell) makes the detail pane show each cell's last recorded inputs,
    output and gradients.

    The returned ipywidgets box carries its controller as ``.explorer``
    (a :class:`CellExplorer` or :class:`TraceExplorer`), whose attributes are
    the individual widgets -- handy for driving the view from code.
    """
    w = _widgets()
    if w is None:
        return _static(obj, _NOTE_MISSING, **options)
    from ..nn.cell import Cell
    from .trace import Trace

    try:
        if trace is not None and not isinstance(trace, Trace):
            raise TypeError(f"'trace' must be a cellkit trace, but got {type(trace).__name__}")
        if isinstance(obj, Cell):
            return CellExplorer(obj, w, trace=trace).widget
        if isinstance(obj, Trace):
            return TraceExplorer(obj, w).widget
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return _static(obj, _NOTE_FAILED.format(f"{type(exc).__name__}: {exc}"[:120]), **options)
    return _static(obj, _NOTE_NO_WIDGET.format(type(obj).__name__), **options)


# ---------------------------------------------------------------------------- cells
def _label(path, cell):
    """Plain-text tree label: indented (non-breaking spaces survive <select>), last name, class."""
    depth = path.count(".") + 1 if path else 0
    name = path.rsplit(".", 1)[-1] if path else "(root)"
    return "\u00a0\u00a0\u00a0" * depth + f"{name}: {type(cell).__name__}"


class CellExplorer:
    """The widgets of ``explore(net)`` and the logic that ties them together.

    Attributes
    ----------
    tree : ipywidgets.Select
        One option per cell path (value: the path, ``''`` for the root).
    name_filter : ipywidgets.Text
        Keeps the parameters whose name contains this text (case-insensitive).
    trainable_only : ipywidgets.Checkbox
    toggles : ipywidgets.VBox
        One ``Checkbox`` per shown parameter (its ``description`` is the
        parameter name); ticking sets ``requires_grad``.
    freeze_button, unfreeze_button : ipywidgets.Button
        Set ``requires_grad`` on every parameter of the selected cell.
    detail : ipywidgets.HTML
        The selected cell's summary and parameter table.
    widget : ipywidgets.HBox
        The whole layout (what :func:`explore` returns).
    trace : Trace or None
        Where the detail pane's recorded inputs/outputs/gradients come from.
    """

    def __init__(self, net, w, trace=None):
        self.net = net
        self.trace = trace
        self.cells = dict(list(net.cells_and_names())[:MAX_TREE_ROWS])
        self._checkbox_params = {}
        self._syncing = False
        self.tree = w.Select(options=[(_label(path, cell), path) for path, cell in self.cells.items()], value="",
                             rows=min(max(len(self.cells), 2), 18), description="",
                             layout=w.Layout(width="auto", min_width="16em"))
        self.name_filter = w.Text(value="", placeholder="filter parameters by name", description="",
                                  layout=w.Layout(width="16em"))
        self.trainable_only = w.Checkbox(value=False, description="trainable only", indent=False)
        self.freeze_button = w.Button(description="freeze cell", tooltip="requires_grad=False for every "
                                      "parameter of the selected cell")
        self.unfreeze_button = w.Button(description="unfreeze cell", tooltip="requires_grad=True for every "
                                        "parameter of the selected cell")
        self.toggles = w.VBox([], layout=w.Layout(max_height="18em", overflow="auto"))
        self.status = w.Label(value="")
        self.detail = w.HTML(value="")
        self._w = w
        controls = w.HBox([self.name_filter, self.trainable_only, self.freeze_button, self.unfreeze_button])
        right = w.VBox([controls, self.status, self.toggles, self.detail], layout=w.Layout(width="100%"))
        self.widget = w.HBox([self.tree, right])
        self.widget.explorer = self
        self.tree.observe(lambda change: self.refresh(), names="value")
        self.name_filter.observe(lambda change: self.refresh(), names="value")
        self.trainable_only.observe(lambda change: self.refresh(), names="value")
        self.freeze_button.on_click(lambda button: self.set_trainable(False))
        self.unfreeze_button.on_click(lambda button: self.set_trainable(True))
        self.refresh()

    # -- what is shown ---------------------------------------------------------------------------------------------
    @property
    def selected(self):
        """The selected Cell."""
        return self.cells.get(self.tree.value, self.net)

    def cell_params(self):
        """(full name, Parameter) of the selected cell and everything below it, each Parameter once."""
        path = self.tree.value or ""
        return [(p.name if getattr(p, "name", None) else (f"{path}.{key}" if path else key), p)
                for key, p in self.selected.parameters_and_names()]

    def shown_params(self):
        """The parameters after the name and trainable-only filters."""
        needle = (self.name_filter.value or "").strip().lower()
        out = []
        for name, p in self.cell_params():
            if needle and needle not in name.lower():
                continue
            if self.trainable_only.value and not p.requires_grad:
                continue
            out.append((name, p))
        return out

    # -- actions -------------------------------------------------------------------------------------------------
    def set_trainable(self, value, names=None):
        """Set ``requires_grad`` on the selected cell's parameters (those in ``names``, or all of them)."""
        for name, p in self.cell_params():
            if names is None or name in names:
                p.requires_grad = bool(value)
        self.refresh()

    def _toggled(self, change):
        if self._syncing:
            return
        p = self._checkbox_params.get(id(change["owner"]))
        if p is not None:
            p.requires_grad = bool(change["new"])
            self.refresh()

    def refresh(self):
        """Redraw the toggles and the detail pane from the model (the Parameters are the truth)."""
        w = self._w
        shown = self.shown_params()
        self._syncing = True
        try:
            boxes = []
            self._checkbox_params = {}
            for name, p in shown[:MAX_TOGGLES]:
                box = w.Checkbox(value=bool(p.requires_grad), description=name, indent=False,
                                 layout=w.Layout(width="auto"))
                box.observe(self._toggled, names="value")
                self._checkbox_params[id(box)] = p
                boxes.append(box)
            self.toggles.children = boxes
        finally:
            self._syncing = False
        total = len(self.cell_params())
        more = f" (first {MAX_TOGGLES} as checkboxes)" if len(shown) > MAX_TOGGLES else ""
        self.status.value = f"{len(shown)} of {total} parameters shown{more} · tick = trainable"
        self.detail.value = self.detail_html(shown)

    def detail_html(self, shown=None):
        """The detail pane's HTML: the cell's summary, then its (filtered) parameter table."""
        from .cellinfo import inspect_cell
        from .params import ParameterTable

        shown = self.shown_params() if shown is None else shown
        cell = self.selected
        path = self.tree.value or ""
        info = inspect_cell(cell)
        mode = "train" if info.training else "inference"
        head = [el("b", path or "(root)", style=MONO), " · ", el("span", info.cls, style=themed("color", "accent")
                                                                   + ";font-weight:600")]
        if info.extra:
            head.append(el("span", f"({info.extra})", style=MONO + ";opacity:0.75"))
        marks = [el("span", f"mode: {mode}", style=badge("ok" if info.training else None))]
        if info.hooks:
            marks += [el("span", f"{kind} hook × {count}", style=badge("accent")) for kind, count in info.hooks]
        else:
            marks.append(el("span", "no hooks", style=badge()))
        if info.bprop:
            marks.append(el("span", "custom bprop", style=badge("accent")))
        if info.recompute:
            marks.append(el("span", "recompute", style=badge("accent")))
        if info.to_float:
            marks.append(el("span", f"to_float {info.to_float}", style=badge("accent")))
        for note in info.notes:
            marks.append(el("span", note, style=badge("error")))
        own = (f"own parameters: {len(info.own_params)} ({format_count(info.own_count)} elements, "
               f"{format_bytes(info.own_bytes)})")
        parts = [el("div", head, style="margin-bottom:3px"), el("div", marks, style="margin-bottom:3px"),
                 el("div", own, style="opacity:0.8;margin-bottom:4px")]
        if shown:
            table = ParameterTable({name: p for name, p in shown})
            parts.append(Raw(str(table.html())))
        else:
            parts.append(el("div", "no parameters match" if self.cell_params() else "this cell holds no parameters",
                            style="opacity:0.7;font-style:italic"))
        parts.append(self.calls_html(path))
        return el("div", parts, style=f"{SANS};font-size:13px")

    def last_call(self, path=None):
        """The trace's last recorded events of the cell at ``path`` (default: the selected one).

        A dict with the keys ``forward_pre``, ``forward``, ``backward_pre`` and
        ``backward`` (each an event record or None): the last forward call's
        two events, and the last backward pass's two events.
        """
        path = (self.tree.value or "") if path is None else path
        found = dict.fromkeys(("forward_pre", "forward", "backward_pre", "backward"))
        if self.trace is None:
            return found
        events = [e for e in self.trace.events if e.get("path") == path]
        for pre, post in (("forward_pre", "forward"), ("backward_pre", "backward")):
            last_pre = next((e for e in reversed(events) if e.get("kind") == pre), None)
            if last_pre is None:  # a call that began before the trace: only its end was seen
                found[post] = next((e for e in reversed(events) if e.get("kind") == post), None)
                continue
            found[pre] = last_pre
            found[post] = next((e for e in events if e.get("kind") == post and e.get("call") == last_pre.get("call")
                                and e.get("index", 0) > last_pre.get("index", 0)), None)
        return found

    def calls_html(self, path):
        """The "last recorded call" section of the detail pane."""
        title = el("div", "last recorded call", style="font-weight:600;margin:6px 0 2px 0")
        found = self.last_call(path)
        if not any(found.values()):
            note = el("div", "no recorded call for this cell — run it inside ",
                      el("code", "cellkit.trace(net)", style=MONO), " and pass the trace: ",
                      el("code", "explore(net, trace=tr)", style=MONO), style="opacity:0.7;font-style:italic")
            return el("div", title, note)
        rows = []
        for kind, heading, role in (("forward_pre", "forward inputs", "inputs"), ("forward", "forward output", "output"),
                                    ("backward_pre", "backward grad_output", "grad_output"),
                                    ("backward", "backward grad_input", "grad_input")):
            event = found[kind]
            if event is None:
                if kind == "backward" and found["backward_pre"] is not None:
                    missing = "none: no gradient leaves this cell (its inputs need none)"
                elif kind.startswith("backward") and found["forward_pre"] is not None and found["backward_pre"] is None:
                    missing = "not recorded (no gradient pass reached this cell in the trace)"
                else:
                    missing = "not recorded"
                rows.append(el("div", el("b", heading), ": ", el("span", missing, style="opacity:0.7;font-style:italic"),
                               title=role))
                continue
            tensors = [t for t in event.get("tensors", []) if t.get("role") == role]
            head = el("div", el("b", heading), el("span", f"#{event.get('index', '?')}", style=badge()),
                      title=role)
            items = [el("li", _tensor_line(t)) for t in tensors] or [el("li", "(nothing)", style="opacity:0.7")]
            rows.append(el("div", head, el("ul", items, style="margin:1px 0 4px 0;padding-left:1.4em")))
        return el("div", title, rows)


def _tensor_line(t):
    """One tensor summary of a trace event as HTML: name, shape, dtype, statistics, NaN/Inf flags, values."""
    from .trace import format_number, format_values

    name = t.get("role", "?") + (f"[{t['index']}]" if t.get("index", "") != "" else "")
    if t.get("omitted"):
        return el("span", f"… {t['omitted']} more", style="opacity:0.7")
    if t.get("none"):
        return [el("span", name, style=MONO), ": None"]
    if "repr" in t:
        return [el("span", name, style=MONO), f": {t.get('type', '')} ", el("span", t["repr"], style=MONO)]
    parts = [el("span", name, style=MONO), ": ",
             el("span", str(list(t.get("shape", []))), style=MONO,
                title="shape"),
             " ", el("span", t.get("dtype", "?"), style=MONO, title="dtype")]
    if "norm" in t:
        parts += [" norm=", el("span", format_number(t["norm"]), title="norm")]
        if t.get("min") is not None:
            parts += [" min=", el("span", format_number(t["min"]), title="min"),
                      " max=", el("span", format_number(t["max"]), title="max")]
        if t.get("nan"):
            parts.append(el("span", f"NaN × {t['nan']}", style=badge("error")))
        if t.get("inf"):
            parts.append(el("span", f"Inf × {t['inf']}", style=badge("error")))
    values = format_values(t) if "shape" in t and "dtype" in t else ""
    if values:
        parts += [" ", el("span", values, style=MONO, title="values")]
    return parts


# ---------------------------------------------------------------------------- traces
class TraceExplorer:
    """The widgets of ``explore(trace)``: a slider over the events and the trace drawn up to it.

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        How many events are shown (0 … ``len(trace.events)``); event
        ``slider.value - 1`` is the current one.
    current : ipywidgets.HTML
        The current event: index, kind, cell path (highlighted in ``paths``).
    paths : ipywidgets.HTML
        Every cell path of the trace, the current event's one marked.
    view : ipywidgets.HTML
        ``trace.to_html(upto=slider.value)``.
    """

    def __init__(self, trace, w):
        self.trace = trace
        events = trace.events
        self.all_paths = list(dict.fromkeys(e.get("path", "?") for e in events))
        self.slider = w.IntSlider(value=len(events), min=0, max=len(events), step=1, description="events",
                                  continuous_update=False, layout=w.Layout(width="32em"))
        self.current = w.HTML(value="")
        self.paths = w.HTML(value="")
        self.view = w.HTML(value="")
        self.widget = w.VBox([w.HBox([self.slider, self.current]), w.HBox([self.paths, self.view])])
        self.widget.explorer = self
        self.slider.observe(lambda change: self.refresh(), names="value")
        self.refresh()

    @property
    def event(self):
        """The current event (the last one shown), or None before the first."""
        n = self.slider.value
        return self.trace.events[n - 1] if n > 0 else None

    def refresh(self):
        e = self.event
        if e is None:
            self.current.value = el("span", "before the first event", style="opacity:0.7")
        else:
            path = e.get("path", "?")
            self.current.value = el("span", el("b", f"#{e.get('index', self.slider.value - 1)} {e.get('kind', '?')}"),
                                    " ", el("span", path or "(root)", style=f"{MONO};{badge('accent')}"),
                                    f" {e.get('cell', '')}")
        here = None if e is None else e.get("path", "?")
        rows = []
        for path in self.all_paths:
            depth = path.count(".") + 1 if path else 0
            label = (path.rsplit(".", 1)[-1] if path else "(root)")
            style = f"{MONO};padding-left:{depth}em;white-space:nowrap"
            if path == here:
                rows.append(el("div", el("span", el("b", label), style=badge("accent") + ";margin-left:0"),
                               title=path, style=style))
            else:
                rows.append(el("div", label, title=path, style=style + ";opacity:0.75"))
        self.paths.value = el("div", el("div", "cells", style="font-weight:600;margin-bottom:2px"), rows,
                              style=f"{SANS};font-size:12px;margin-right:12px")
        self.view.value = str(self.trace.to_html(upto=self.slider.value))
