"""The interactive (ipywidgets) explorer: click through a network's cells, freeze layers, step through a trace.

``explore(net)`` gives the cell tree (one entry per cell path, indented)
beside a detail pane with the selected cell's class, mode, hooks, gradient
norms (float64, on a log scale, coloured when vanishing or exploding: the
gradient-flow view) and parameter table.  The table filters by a name box
and a trainable-only checkbox, and a checkbox per parameter sets
``requires_grad`` on the real Parameter -- freezing a layer changes
``net.trainable_params()`` at once.  Two things the explorer will not do
behind your back: make a running statistic (BatchNorm's moving mean and
variance) trainable -- its box is disabled, and "unfreeze cell" leaves it
alone -- or change a Parameter tied into the selected cell from another
one (a shared embedding): its box is disabled and says where it is owned,
and "freeze / unfreeze cell" skip it and say so.

``explore(net, trace=tr)`` (``tr`` a :func:`cellkit.trace` of ``net``) adds
to the detail pane the selected cell's last recorded call: its forward
inputs and output, and its last backward ``grad_output`` / ``grad_input``
(shape, dtype, norm, min/max, NaN/Inf counts, values of tiny tensors).
Cells are matched to the trace's events by path.

``explore(trace)`` (a :func:`cellkit.trace` result) gives a slider that
steps through the events, drawing the first *n* with
:meth:`~cellkit.display.trace.Trace.to_html` and highlighting the cell path
of event *n*, with zoom (how deep the timeline unfolds) and pan (which
range of its columns shows).  ``explore(graph)`` (a
:class:`~cellkit.display.graph.Graph`: ``cell_graph``, ``dataflow`` ...)
zooms and pans the SVG drawing, in the notebook's theme colours.

Every widget carries a static twin: its MIME bundle also holds ``text/html``
(the folded tree and the table, the trace's display with its flag summary,
the graph's boxes) and a readable ``text/plain``, so a notebook reopened
without its kernel, an untrusted one, nbviewer and GitHub show a real
display instead of ``HBox(children=(Select(...``.

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

from .html import MONO, MUTED, SANS, Raw, badge, el, format_bytes, format_count, format_number, plural

__all__ = ["explore", "CellExplorer", "TraceExplorer", "GraphExplorer", "with_static_twin"]

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
    from .graph import Graph
    from .trace import Trace

    try:
        if trace is not None and not isinstance(trace, Trace):
            raise TypeError(f"'trace' must be a cellkit trace, but got {type(trace).__name__}")
        if isinstance(obj, Cell):
            return CellExplorer(obj, w, trace=trace).widget
        if isinstance(obj, Trace):
            return TraceExplorer(obj, w).widget
        if isinstance(obj, Graph):
            return GraphExplorer(obj, w).widget
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return _static(obj, _NOTE_FAILED.format(f"{type(exc).__name__}: {exc}"[:120]), **options)
    return _static(obj, _NOTE_NO_WIDGET.format(type(obj).__name__), **options)


# ---------------------------------------------------------------------------- static twins
_TWIN_CLASSES = {}


def with_static_twin(widget, html, text):
    """``widget`` (an ipywidgets Box) whose MIME bundle also carries ``text/html`` and a readable ``text/plain``.

    ``html`` and ``text`` are called when the notebook asks for the bundle,
    so the twin shows the state the widget is in at that moment.  The live
    widget still renders where a widget manager runs (it is preferred); a
    notebook reopened untrusted, nbviewer and GitHub show the twin.
    """
    base = type(widget)
    twin = _TWIN_CLASSES.get(base)
    if twin is None:
        def _repr_mimebundle_(self, **kwargs):
            bundle = base._repr_mimebundle_(self, **kwargs) or {}
            try:
                bundle["text/html"] = str(self._static_html())
                bundle["text/plain"] = self._static_text()
            except Exception as exc:  # noqa: BLE001 -- a display never raises: the widget stays
                bundle["text/plain"] = f"(interactive view; its static form failed: {type(exc).__name__})"
            return bundle

        twin = type(base.__name__, (base,), {"_repr_mimebundle_": _repr_mimebundle_})
        _TWIN_CLASSES[base] = twin
    widget.__class__ = twin
    widget._static_html = html
    widget._static_text = text
    return widget


def _twin_note(what):
    return el("div", f"(the interactive {what} needs a running kernel: this is its static form)",
              style=f"font-size:0.85em;{MUTED};margin-top:4px")


# ---------------------------------------------------------------------------- cells
def _label(path, cell, grad=None):
    """Plain-text tree label: indented (non-breaking spaces survive <select>), last name, class, gradient flag."""
    depth = path.count(".") + 1 if path else 0
    name = path.rsplit(".", 1)[-1] if path else "(root)"
    label = "\u00a0\u00a0\u00a0" * depth + f"{name}: {type(cell).__name__}"
    if grad is not None and grad.norm is not None:
        status = grad.status
        mark = {"vanishing": "  ▼ vanishing", "exploding": "  ▲ exploding", "nan": "  ✖ NaN/Inf"}.get(status, "")
        label += f"  ∇ {format_number(grad.norm, 2)}{mark}"
    return label


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
        from .gradflow import cell_gradients
        from .params import _attribute_paths

        self.net = net
        self.trace = trace
        self.cells = dict(list(net.cells_and_names())[:MAX_TREE_ROWS])
        self._checkbox_params = {}
        self._syncing = False
        self.owners = {key: paths[0] for key, paths in _attribute_paths(net).items() if paths}
        self.gradients = None
        if trace is not None or any("_last_grad" in p.__dict__ for p in net.get_parameters()):
            self.gradients = cell_gradients(net, trace=trace)
        grads = self.gradients or {}
        self.tree = w.Select(options=[(_label(path, cell, grads.get(path)), path) for path, cell in self.cells.items()],
                             value="", rows=min(max(len(self.cells), 2), 18), description="",
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
        controls = w.HBox([self.name_filter, self.trainable_only, self.freeze_button, self.unfreeze_button],
                          layout=w.Layout(flex_flow="row wrap"))
        right = w.VBox([controls, self.status, self.toggles, self.detail], layout=w.Layout(width="100%", min_width="0"))
        # wraps: at a narrow width the detail pane goes under the tree instead of past the edge
        self.widget = with_static_twin(w.HBox([self.tree, right], layout=w.Layout(flex_flow="row wrap")),
                                       self.static_html, self.static_text)
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

    def blocked(self, p):
        """Why the explorer will not change ``p``'s ``requires_grad`` from the selected cell, or None.

        A running statistic is never trainable; a Parameter tied in from a
        Cell outside the selected one is changed where it is owned.
        """
        from .cellinfo import parameter_kind

        owner = self.owners.get(id(p), "")
        if parameter_kind(owner or getattr(p, "name", ""), p) == "statistic":
            return "a running statistic: updated in forward, never trained"
        path = self.tree.value or ""
        if path and owner and not (owner == path or owner.startswith(path + ".")):
            return f"tied: owned by {owner.rsplit('.', 1)[0] or '(root)'} -- select it there to change it"
        return None

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
        """Set ``requires_grad`` on the selected cell's parameters (those in ``names``, or all of them).

        Running statistics and Parameters tied in from outside the cell are
        left as they are (see :meth:`blocked`); the status line says so.
        Returns the names left alone.
        """
        skipped = []
        for name, p in self.cell_params():
            if names is not None and name not in names:
                continue
            if self.blocked(p) is not None:
                skipped.append(name)
                continue
            p.requires_grad = bool(value)
        self.refresh()
        if skipped:
            self.status.value += (f" · left {plural(len(skipped), 'Parameter')} alone "
                                  f"({', '.join(skipped[:3])}{' …' if len(skipped) > 3 else ''}): running statistics "
                                  f"never train, tied Parameters change where they are owned")
        return skipped

    def _toggled(self, change):
        if self._syncing:
            return
        p = self._checkbox_params.get(id(change["owner"]))
        if p is not None:
            if self.blocked(p) is not None:  # a disabled box cannot be ticked from the page; code can try
                change["owner"].value = bool(p.requires_grad)
                return
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
                why = self.blocked(p)
                box = w.Checkbox(value=bool(p.requires_grad), description=name if why is None else f"{name} ({why})",
                                 indent=False, disabled=why is not None, layout=w.Layout(width="auto"))
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
        head = [el("b", path or "(root)", style=MONO), " · ", el("span", info.cls, style="font-weight:600")]
        if info.extra:
            head.append(el("span", f"({info.extra})", style=f"{MONO};{MUTED}"))
        marks = [el("span", f"mode: {mode}", style=badge("ok" if info.training else None))]
        if info.hooks:
            marks += [el("span", f"{kind} hook × {count}", style=badge("hook")) for kind, count in info.hooks]
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
        parts = [el("div", head, style="margin-bottom:3px;word-break:break-word"),
                 el("div", marks, style="margin-bottom:3px"), el("div", own, style=f"{MUTED};margin-bottom:4px")]
        parts.append(self.gradient_html(path))
        parts.append(self.hooks_html(path))
        if shown:
            table = ParameterTable({name: p for name, p in shown})
            parts.append(Raw(str(table.html())))
        else:
            parts.append(el("div", "no parameters match" if self.cell_params() else "this cell holds no parameters",
                            style=f"{MUTED};font-style:italic"))
        parts.append(self.calls_html(path))
        return el("div", parts, style=f"{SANS};font-size:13px;max-width:100%")

    def gradient_html(self, path):
        """The selected cell's gradient flow: its Parameters' and its output's gradient norms, on a log scale."""
        from .gradflow import log_bar, status_of

        grad = (self.gradients or {}).get(path)
        if grad is None or (grad.param_norm is None and grad.output_norm is None):
            return el("div", "gradient: none recorded yet (run a gradient transform, or pass trace=)",
                      style=f"{MUTED};font-size:0.9em;margin-bottom:4px")
        rows = []
        for label, norm in (("parameters' gradient", grad.param_norm), ("gradient at its output", grad.output_norm)):
            if norm is None:
                continue
            status = status_of(norm, grad.vanishing, grad.exploding)
            word = "" if status in (None, "ok") else f" {status}"
            rows.append(el("div", el("span", label, style="display:inline-block;min-width:11em"),
                           log_bar(norm, status, width=80), el("span", word, style="font-weight:600")))
        return el("div", el("div", "gradient flow (float64 norms, log scale)", style="font-weight:600"), rows,
                  style="margin-bottom:4px")

    def hooks_html(self, path):
        """The selected cell's entries of the trace's hook ledger (fired, returned, raised, never fired: why)."""
        if self.trace is None:
            return Raw("")
        entries = [h for h in self.trace.hook_ledger() if h["path"] == path]
        if not entries:
            return Raw("")
        rows = [el("div", el("span", "never fired" if not h["fired"] else f"fired {h['fired']}×",
                             style=badge("warn" if not h["fired"] else ("error" if h["returned"]["error"] else "hook"))),
                       " ", h["summary"]) for h in entries]
        return el("div", el("div", "hooks (from the trace)", style="font-weight:600"), rows, style="margin-bottom:4px")

    def static_html(self):
        """The static twin: the folded tree (with gradients when known) and the selected cell's pane."""
        from .tree import CellTree

        tree = CellTree(self.net, open_depth=1, gradients=self.gradients or False, trace=self.trace)
        return el("div", Raw(str(tree.html())), el("div", self.detail_html(), style="margin-top:6px"),
                  _twin_note("explorer"))

    def static_text(self):
        from .tree import CellTree

        return CellTree(self.net, gradients=self.gradients or False, trace=self.trace).text()

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
    """The widgets of ``explore(trace)``: a slider over the events, and zoom and pan over the timeline.

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        How many events are shown (0 … ``len(trace.events)``); event
        ``slider.value - 1`` is the current one.
    depth : ipywidgets.IntSlider
        Zoom: how many levels of calls the timeline unfolds.
    window : ipywidgets.IntRangeSlider
        Pan: which columns of the timeline (at that depth) are drawn.
    current : ipywidgets.HTML
        The current event: index, kind, cell path (highlighted in ``paths``).
    paths : ipywidgets.HTML
        Every cell path of the trace, the current event's one marked.
    view : ipywidgets.HTML
        ``trace.to_html(upto=slider.value, depth=..., window=...)``.
    """

    def __init__(self, trace, w):
        from .trace_html import build_calls, fold_depth

        self.trace = trace
        events = trace.events
        self.all_paths = list(dict.fromkeys(e.get("path", "?") for e in events))
        roots, calls = build_calls(events)
        deepest = max((c.depth for c in calls), default=0)
        self.slider = w.IntSlider(value=len(events), min=0, max=len(events), step=1, description="events",
                                  continuous_update=False, layout=w.Layout(width="28em"))
        self.depth = w.IntSlider(value=fold_depth(roots) if calls else 0, min=0, max=deepest, step=1,
                                 description="zoom (depth)", continuous_update=False, layout=w.Layout(width="22em"),
                                 style={"description_width": "initial"})
        self.window = w.IntRangeSlider(value=(0, 0), min=0, max=0, step=1, description="pan (columns)",
                                       continuous_update=False, layout=w.Layout(width="28em"),
                                       style={"description_width": "initial"})
        self.current = w.HTML(value="")
        self.paths = w.HTML(value="")
        self.view = w.HTML(value="", layout=w.Layout(width="100%", min_width="0"))
        self._columns_at = {}
        controls = w.HBox([self.slider, self.depth, self.window, self.current], layout=w.Layout(flex_flow="row wrap"))
        self.widget = with_static_twin(
            w.VBox([controls, w.HBox([self.paths, self.view], layout=w.Layout(flex_flow="row wrap"))]),
            self.static_html, lambda: self.trace.table())
        self.widget.explorer = self
        self.slider.observe(lambda change: self.refresh(), names="value")
        self.depth.observe(lambda change: self._reset_window(), names="value")
        self.window.observe(lambda change: self.refresh(), names="value")
        self._reset_window()

    def columns(self, depth):
        """How many columns the timeline has at ``depth`` (all calls unfolded down to it, no runs shared)."""
        from .trace_html import _leaves, build_calls

        if depth not in self._columns_at:
            roots, _ = build_calls(self.trace.events)
            self._columns_at[depth] = max(len(_leaves(roots, depth)), 1)
        return self._columns_at[depth]

    def _reset_window(self):
        n = self.columns(self.depth.value)
        self._syncing = True
        try:
            self.window.max = max(n - 1, 0)
            self.window.value = (0, min(n - 1, 11))
        finally:
            self._syncing = False
        self.refresh()

    @property
    def event(self):
        """The current event (the last one shown), or None before the first."""
        n = self.slider.value
        return self.trace.events[n - 1] if n > 0 else None

    def refresh(self):
        if getattr(self, "_syncing", False):
            return
        e = self.event
        if e is None:
            self.current.value = el("span", "before the first event", style=MUTED)
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
                rows.append(el("div", label, title=path, style=f"{style};{MUTED}"))
        self.paths.value = el("div", el("div", "cells", style="font-weight:600;margin-bottom:2px"), rows,
                              style=f"{SANS};font-size:12px;margin-right:12px;max-height:40em;overflow-y:auto")
        window = tuple(self.window.value)
        full = window == (0, self.columns(self.depth.value) - 1)
        self.view.value = str(self.trace.to_html(upto=self.slider.value, depth=self.depth.value,
                                                 window=None if full else window))

    def static_html(self):
        return el("div", Raw(str(self.trace.to_html())), _twin_note("trace explorer"))


# ---------------------------------------------------------------------------- graphs
class GraphExplorer:
    """The widgets of ``explore(graph)``: the SVG drawing with zoom (a slider) and pan (scrolling its box).

    The SVG is inlined with JupyterLab's theme colours, so it follows a dark
    theme.  Attributes: ``zoom`` (ipywidgets.FloatSlider), ``view``
    (ipywidgets.HTML), ``widget``.
    """

    def __init__(self, graph, w):
        from .graph import layered_svg

        self.graph = graph
        self.svg = layered_svg(graph.nodes, graph.edges, theme=True)
        self.zoom = w.FloatSlider(value=1.0, min=0.2, max=2.0, step=0.1, description="zoom",
                                  continuous_update=False, layout=w.Layout(width="24em"))
        self.view = w.HTML(value="", layout=w.Layout(width="100%", min_width="0"))
        self.widget = with_static_twin(w.VBox([self.zoom, self.view]), self.static_html, graph.text)
        self.widget.explorer = self
        self.zoom.observe(lambda change: self.refresh(), names="value")
        self.refresh()

    def refresh(self):
        import re

        scale = float(self.zoom.value)

        def scaled(match):
            return f'{match.group(1)}="{float(match.group(2)) * scale:.0f}"'

        head, rest = self.svg.split(">", 1)
        head = re.sub(r'\b(width|height)="([0-9.]+)"', scaled, head, count=2)
        self.view.value = (f'<div style="overflow:auto;max-width:100%;max-height:40em;border:1px solid '
                           f'rgba(128,128,128,0.35)">{head}>{rest}</div>')

    def static_html(self):
        return el("div", Raw(str(self.graph.html())), _twin_note("graph explorer"))
