"""The cell tree: every Cell of a network, what it holds, and what is attached to it.

Each row shows the attribute name, the class, marks for what the Cell
records -- hooks (kind and count), a custom ``bprop``, ``recompute``,
``to_float``, shard / offload / pipeline / place settings, flags, buffers,
extra state, and the train / inference mode where it differs from the
parent's -- then its ``extend_repr`` arguments (whole: they wrap rather
than being cut), and on the right the parameter elements and bytes below
it (its own ones too when it also has children).  A row with children also
carries what is *inside* it (hooks, recompute, frozen Parameters, NaN and
vanishing / exploding gradients), so a folded row still says it.

Repeated sub-trees -- the 24 blocks of a transformer -- are shown once, as
``0–23: Block × 24``, with the spread of their values across the repeats.
Blocks count as repeats when their structure matches: classes, arguments,
shapes and settings, not the names of their Parameters (which MindSpore
prints inside BatchNorm's, LayerNorm's and Embedding's arguments; the tree
shows their shapes instead).  A Cell held under two names is shown in full
once and referred to at its other places; shared Parameters are counted
once.  Beyond ``max_nodes`` rows the tree stops and says how many cells it
left out.

Optional columns: ``gradients=True`` adds each Cell's gradient norm (the
Parameters' latest gradients, float64, on a log scale, coloured when
vanishing or exploding: :mod:`cellkit.display.gradflow`), and
``example=(x,)`` runs the network once on that input to add input / output
shapes and multiply-adds per row (:mod:`cellkit.display.shapes`).

>>> from cellkit import nn
>>> dense = lambda: nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
>>> print(CellTree(nn.SequentialCell(dense(), dense(), dense(), nn.ReLU())).text())
SequentialCell  [inference]                                              18 elements   72 B
├── 0–2: Dense(input_channels=2, output_channels=2, has_bias=True) × 3   18 elements   72 B
│       (each: 6 elements   24 B; across the 3: parameter RMS 0.816 (all equal))
└── 3: ReLU                                                              –
"""
from __future__ import annotations

import math

from ..nn.cell import Cell
from . import render
from .cellinfo import inspect_cell, parameter_kind, setting_label, size_and_bytes
from .html import (MONO, MUTED, SANS, badge, el, format_bytes, format_count, format_number, line, one_line,
                   plural)

__all__ = ["CellTree"]

DEFAULT_MAX_NODES = 300
SPREAD_MEMBERS = 256   # repeats whose values are summarised per group (beyond: the first ones, and it says so)


class _Node:
    """One place in the tree: a Cell (with its children), or a reference to a Cell shown elsewhere."""

    __slots__ = ("name", "path", "cell", "info", "children", "ref", "sig", "count", "nbytes", "ids",
                 "n_cells", "rows", "inside")

    def __init__(self, name, path, cell):
        self.name = name
        self.path = path
        self.cell = cell
        self.info = None
        self.children = []  # _Node, in registration order (refs included)
        self.ref = None     # the path where a shared Cell is shown in full
        self.sig = None
        self.count = self.nbytes = 0
        self.ids = None
        self.n_cells = 1
        self.rows = None    # children grouped into runs of identical sub-trees
        self.inside = None  # what the sub-tree below holds (hooks, frozen ...), for the rolled-up marks


class _Group:
    """A run of consecutive sibling sub-trees with the same structure."""

    __slots__ = ("members", "count", "nbytes", "n_cells")

    def __init__(self, members, count, nbytes):
        self.members = members
        self.count = count
        self.nbytes = nbytes
        self.n_cells = sum(m.n_cells for m in members)


def _build(net):
    """Walk the network once (depth first, as ``cells_and_names``); returns (root, post-order nodes)."""
    root = _Node("", "", net)
    shown_at = {}
    post = []
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            post.append(node)
            continue
        key = id(node.cell)
        if key in shown_at:
            node.ref = shown_at[key]
            node.info = None
            continue
        shown_at[key] = node.path
        node.info = inspect_cell(node.cell)
        stack.append((node, True))
        cells = node.cell.__dict__.get("_cells") or {}
        for name, child in cells.items():
            if child is None:
                continue
            path = f"{node.path}.{name}" if node.path else name
            node.children.append(_Node(name, path, child))
        for child in reversed(node.children):
            stack.append((child, False))
    return root, post


def _totals(post):
    """Parameter totals per sub-tree; shared Parameters (or Cells) are counted once."""
    owners = {}
    shared = False
    for node in post:
        for _, p in node.info.own_params:
            if owners.setdefault(id(p), node) is not node:
                shared = True
        if any(c.ref is not None for c in node.children):
            shared = True
    finished = {}
    for node in post:
        if shared:
            ids = {id(p): size_and_bytes(p) for _, p in node.info.own_params}
            for child in node.children:
                source = child if child.ref is None else finished.get(id(child.cell))
                if source is not None and source.ids is not None:
                    ids.update(source.ids)
            node.ids = ids
            node.count = sum(c for c, _ in ids.values())
            node.nbytes = sum(b for _, b in ids.values())
        else:
            node.count = node.info.own_count + sum(c.count for c in node.children)
            node.nbytes = node.info.own_bytes + sum(c.nbytes for c in node.children)
        node.n_cells = 1 + sum(c.n_cells for c in node.children if c.ref is None)
        finished[id(node.cell)] = node
    return shared


# What a sub-tree holds, rolled up onto its row: (key, label, tone) in the order shown.
_INSIDE = (("hooks", "hook", "hook"), ("recompute", "recompute", "accent"), ("frozen", "frozen", None),
           ("nan", "NaN/Inf", "error"), ("exploding", "exploding grad", "exploding"),
           ("vanishing", "vanishing grad", "vanishing"))


def _roll_up(post, gradients, flags):
    """``node.inside``: counts of hooks, recompute marks, frozen Parameters and flagged Cells below each node."""
    for node in post:
        inside = dict.fromkeys((key for key, _, _ in _INSIDE), 0)
        for child in node.children:
            if child.ref is not None or child.inside is None:
                continue
            info = child.info
            inside["hooks"] += sum(n for _, n in info.hooks)
            inside["recompute"] += int(info.recompute)
            inside["frozen"] += sum(1 for k, p in info.own_params if parameter_kind(k, p) == "frozen")
            for status in _statuses(child.path, gradients, flags):
                inside[status] += 1
            for key in inside:
                inside[key] += child.inside[key]
        node.inside = inside


def _statuses(path, gradients, flags):
    """The flags of one Cell: from its gradients (status) and from a trace (NaN/Inf seen in its events)."""
    found = set()
    grad = gradients.get(path) if gradients else None
    if grad is not None and grad.status in ("nan", "vanishing", "exploding"):
        found.add(grad.status)
    for flag in (flags.get(path, ()) if flags else ()):
        found.add("nan" if flag in ("nan", "inf") else flag)
    return found


def _signatures(post):
    """Give each node an int naming its structure: equal ints, identical sub-trees (Parameter names ignored)."""
    table = {}
    for node in post:
        info = node.info
        key = (
            type(node.cell).__module__, info.cls, info.extra, info.training, tuple(info.hooks), info.bprop,
            info.recompute, info.to_float, tuple((k, str(v)) for k, v in info.settings),
            tuple((k, str(v)) for k, v in info.flags), info.extra_state,
            tuple((k, tuple(p.shape), str(p.dtype), bool(p.requires_grad)) for k, p in info.own_params),
            tuple((k, tuple(b.shape), str(b.dtype)) for k, b in info.buffers),
            tuple((c.name, ("ref", c.ref) if c.ref is not None else c.sig) for c in node.children),
        )
        node.sig = table.setdefault(key, len(table))


def _group(node, shared):
    """Split ``node.children`` into rows: single nodes, and runs of identical siblings (``_Group``)."""
    rows = []
    run = []

    def flush():
        if len(run) >= 2:
            if shared:
                ids = {}
                for m in run:
                    ids.update(m.ids or {})
                count, nbytes = sum(c for c, _ in ids.values()), sum(b for _, b in ids.values())
            else:
                count, nbytes = sum(m.count for m in run), sum(m.nbytes for m in run)
            rows.append(_Group(list(run), count, nbytes))
        else:
            rows.extend(run)
        run.clear()

    for child in node.children:
        if child.ref is None and run and run[-1].sig == child.sig:
            run.append(child)
            continue
        flush()
        if child.ref is None:
            run.append(child)
        else:
            rows.append(child)
    flush()
    return rows


def _run_label(members):
    names = [m.name for m in members]
    if all(n.isdigit() for n in names):
        numbers = [int(n) for n in names]
        if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return f"{numbers[0]}–{numbers[-1]}"
    return f"{names[0]} … {names[-1]}"


def _member_rms(node):
    """The root mean square of every parameter value below ``node`` (float64), or None if it holds none."""
    from .gradflow import array_norms

    arrays = [p._data for p in node.cell.get_parameters() if p._data is not None and math.prod(p.shape)]
    if not arrays:
        return None
    norms = array_norms(arrays)
    count = sum(math.prod(a.shape) for a in arrays)
    return math.sqrt(sum(n * n for n in norms) / count)


def _spread(values):
    """``'0.48–0.52'`` (min–max of the finite values), or None."""
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return None
    low, high = min(values), max(values)
    if low == high:
        return f"{format_number(low, 3)} (all equal)"
    return f"{format_number(low, 3)}–{format_number(high, 3)}"


class CellTree(render.Part):
    """The tree of a Cell (HTML with collapsible ``<details>``, and a text twin).

    Parameters
    ----------
    net : Cell
    max_nodes : int
        Rows shown before the tree stops (the rest is counted, not drawn).
    open_depth : int or None
        Levels shown unfolded in HTML; ``None`` unfolds everything for small
        networks (up to 40 cells) and two levels otherwise.
    group_repeats : bool
        Summarise runs of identical sibling sub-trees as ``Block × 24``.
    gradients : bool or dict
        Add a gradient-norm column: True reads the Parameters' latest
        gradients (and ``trace``'s output gradients); a dict is the result of
        :func:`cellkit.display.gradflow.cell_gradients`.
    example : tuple or None
        Inputs to run the network on once (nothing is changed: inference
        mode, the random state restored) to add shapes and multiply-adds.
    trace : Trace or None
        A :func:`cellkit.trace` recording: NaN/Inf flags roll up the tree,
        and with ``gradients=True`` the output gradients come from it.
    """

    def __init__(self, net, max_nodes=DEFAULT_MAX_NODES, open_depth=None, group_repeats=True, gradients=False,
                 example=None, trace=None):
        self.net = net
        self.max_nodes = max(1, int(max_nodes))
        self.group_repeats = group_repeats
        self.root, post = _build(net)
        self.shared = _totals(post)
        self.gradients = None
        if isinstance(gradients, dict):
            self.gradients = gradients
        elif gradients:
            from .gradflow import cell_gradients

            self.gradients = cell_gradients(net, trace=trace)
        self.flags = _trace_flags(trace)
        self.ledger = _ledger_by_place(trace)
        self.shapes = None
        self.shape_note = None
        if example is not None:
            from .shapes import measure

            self.shapes, self.shape_note = measure(net, *(example if isinstance(example, tuple) else (example,)))
        _roll_up(post, self.gradients, self.flags)
        if group_repeats:
            _signatures(post)
        for node in post:
            node.rows = _group(node, self.shared) if group_repeats else list(node.children)
        self.n_cells = len(post)
        self.open_depth = open_depth if open_depth is not None else (99 if self.n_cells <= 40 else 2)
        self.n_hooks = sum(n for node in post for _, n in node.info.hooks)
        self.n_params = len({id(p) for node in post for _, p in node.info.own_params})

    # -- facts for both forms ----------------------------------------------------
    def _marks(self, node, parent_training):
        """(label, tone or None, tooltip) marks of a node, in a fixed order."""
        info = node.info
        marks = []
        if parent_training is None or info.training != parent_training:
            marks.append(("train" if info.training else "inference", "ok" if info.training else None,
                          "cell.training"))
        for kind, count in info.hooks:
            label, tone, tip, href = f"{kind} hook ×{count}", "hook", f"{count} {kind} hook(s) registered", None
            entries = self.ledger.get((node.path, kind)) if self.ledger else None
            if entries:
                fired = sum(h["fired"] for h in entries)
                raised = sum(h["returned"]["error"] for h in entries)
                label += f" · raised {raised}×" if raised else (f" · fired {fired}×" if fired else " · never fired")
                tone = "error" if raised else ("warn" if not fired else "hook")
                tip = "\n".join(h["summary"] for h in entries)
                href = "#" + entries[0]["anchor"]  # the entry of the trace's hook ledger, when both are shown
            marks.append((label, tone, tip, href))
        if info.bprop:
            marks.append(("custom bprop", "warn", "the Cell defines bprop"))
        if info.recompute:
            marks.append(("recompute", "accent", "activations recomputed in backward"))
        if info.to_float:
            marks.append((f"to_float {info.to_float}", "accent", "inputs and parameters cast while construct runs"))
        for key, value in info.settings:
            marks.append((setting_label(key, value), "accent", one_line(f"parallel_config[{key!r}] = {value!r}", 300)))
        frozen = [k for k, p in info.own_params if parameter_kind(k, p) == "frozen"]
        if frozen:
            marks.append((f"frozen {len(frozen)}/{len(info.own_params)}", None, "requires_grad=False: " + ", ".join(frozen)))
        if info.buffers:
            marks.append((f"{len(info.buffers)} buffer{'s' if len(info.buffers) > 1 else ''} · "
                          f"{format_bytes(info.buffer_bytes)}", None, ", ".join(k for k, _ in info.buffers)))
        if info.flags:
            marks.append(("flags " + one_line(", ".join(f"{k}={v!r}" for k, v in info.flags), 60), None,
                          one_line(", ".join(f"{k}={v!r}" for k, v in info.flags), 300)))
        if info.extra_state is not None:
            marks.append(("extra state " + one_line(info.extra_state, 60), None, info.extra_state))
        for status in sorted(_statuses(node.path, self.gradients, self.flags)):
            label = {"nan": "NaN/Inf", "vanishing": "vanishing grad", "exploding": "exploding grad"}.get(status, status)
            marks.append((label, {"nan": "error"}.get(status, status), f"{label} at this cell"))
        for note in info.notes:
            marks.append((note, "warn", note))
        return marks

    def _inside_marks(self, node):
        """The rolled-up marks of what lies below ``node`` (its row shows them even when folded)."""
        inside = node.inside or {}
        marks = []
        for key, word, tone in _INSIDE:
            n = inside.get(key, 0)
            if not n:
                continue
            if key == "hooks":
                label = f"{plural(n, 'hook')} inside"
            elif key == "frozen":
                label = f"{plural(n, 'frozen Parameter')} inside"
            else:
                label = f"{word} ×{n} inside"
            marks.append((label, tone, f"below this cell: {label}"))
        return marks

    def _columns(self):
        """The right-hand columns: (title, width in em)."""
        cols = [("elements", 7.5)]
        if self.gradients is not None:
            cols.append(("gradient norm", 10.5))
        if self.shapes is not None:
            cols.append(("mult-adds", 6.5))
        if len(cols) == 1:
            cols.append(("bytes", 6.5))
        return cols

    def _right_values(self, node_or_group, path):
        """The right-hand cells of a row: text twins and HTML."""
        count, nbytes = node_or_group.count, node_or_group.nbytes
        values = [(format_count(count) if count else "–", format_count(count) if count else "–")]
        names = [c for c, _ in self._columns()]
        if "gradient norm" in names:
            grad = self.gradients.get(path) if path is not None else None
            if isinstance(node_or_group, _Group):
                grad = _group_gradient(node_or_group, self.gradients)
            if grad is None or grad.norm is None:
                values.append(("–", el("span", "–", style=MUTED)))
            else:
                from .gradflow import log_bar

                status = grad.status
                text = format_number(grad.norm, 3) + (f" [{status}]" if status not in (None, "ok") else "")
                tip = (f"parameters' gradient norm {format_number(grad.param_norm, 4)}; "
                       f"output gradient norm {format_number(grad.output_norm, 4)}")
                values.append((text, log_bar(grad.norm, status, width=44, title=tip)))
        if "mult-adds" in names:
            macs = self.shapes.macs_below(path) if path is not None else None
            if isinstance(node_or_group, _Group):
                macs = sum(self.shapes.macs_below(m.path) or 0 for m in node_or_group.members)
            text = _short_count(macs) if macs else "–"
            values.append((text, text))
        if "bytes" in names:
            text = format_bytes(nbytes) if count else ""
            values.append((text, text))
        return values

    def _shape_text(self, path):
        if self.shapes is None or path is None:
            return None
        return self.shapes.shape_text(path)

    # -- text ----------------------------------------------------------------------
    def text(self):
        lines = []  # (left, right)
        budget = [self.max_nodes]
        root = self.root
        marks = " ".join(f"[{m[0]}]" for m in self._marks(root, None) + self._inside_marks(root))
        head = _text_class(root.info) + (f"  {marks}" if marks else "")
        shape = self._shape_text("")
        if shape:
            head += f"  {shape}"
        lines.append((head, self._text_right(root, "")))
        budget[0] -= 1
        self._text_rows(root, "", lines, budget, root.info.training)
        width = min(max((len(left) for left, right in lines if right), default=0), 88)  # notes do not widen it
        out = []
        for left, right in lines:
            out.append(f"{left.ljust(width)}   {right}".rstrip() if right else left)
        if self.shared:
            out.append("(shared parameters and cells are counted once)")
        if self.shape_note:
            out.append(f"({self.shape_note})")
        return "\n".join(out)

    def _text_right(self, node_or_group, path):
        values = self._right_values(node_or_group, path)
        names = [c for c, _ in self._columns()]
        if values[0][0] == "–" and len(values) == 2 and names[1] == "bytes":
            return "–"
        parts = []
        for (text, _), name in zip(values, names):
            if name == "elements":
                parts.append(f"{text} elements" if text != "–" else "–")
            elif name == "gradient norm":
                parts.append(f"grad {text}")
            elif name == "mult-adds":
                parts.append(f"{text} MACs" if text != "–" else "– MACs")
            else:
                parts.append(text)
        return "   ".join(p for p in parts if p)

    def _text_rows(self, node, prefix, lines, budget, parent_training):
        rows = node.rows
        for i, row in enumerate(rows):
            last = i == len(rows) - 1
            branch, follow = ("└── ", "    ") if last else ("├── ", "│   ")
            if budget[0] <= 0:
                hidden = sum(r.n_cells for r in rows[i:] if not (isinstance(r, _Node) and r.ref))
                lines.append((f"{prefix}└── … {plural(hidden, 'more cell')} not shown "
                              f"(cell_tree(net, max_nodes=...))", ""))
                return
            budget[0] -= 1
            if isinstance(row, _Group):
                first = row.members[0]
                marks = self._marks(first, parent_training) + self._inside_marks(first)
                left = f"{prefix}{branch}{_run_label(row.members)}: {_text_class(first.info)} × {len(row.members)}"
                if marks:
                    left += "  " + " ".join(f"[{m[0]}]" for m in marks)
                shape = self._shape_text(first.path)
                if shape:
                    left += f"  {shape}"
                lines.append((left, self._text_right(row, None)))
                spread = self._spread_text(row)
                if first.rows or spread:
                    note = f"each: {_text_size(first.count, first.nbytes)}"
                    if first.rows:
                        note += f"; showing {one_line(first.path)}"
                    if spread:
                        note += f"; across the {len(row.members)}: {spread}"
                    lines.append((f"{prefix}{follow}    ({note})", ""))
                if first.rows:
                    self._text_rows(first, prefix + follow, lines, budget, first.info.training)
            elif row.ref is not None:
                lines.append((f"{prefix}{branch}{one_line(row.name)}: {type(row.cell).__name__} "
                              f"→ same cell as {one_line(row.ref) or '(root)'}", "(counted once)"))
            else:
                marks = self._marks(row, parent_training) + self._inside_marks(row)
                left = f"{prefix}{branch}{one_line(row.name)}: {_text_class(row.info)}"
                if row.rows and row.info.own_count:
                    left += f"  (own {format_count(row.info.own_count)})"
                if marks:
                    left += "  " + " ".join(f"[{m[0]}]" for m in marks)
                shape = self._shape_text(row.path)
                if shape:
                    left += f"  {shape}"
                lines.append((left, self._text_right(row, row.path)))
                self._text_rows(row, prefix + follow, lines, budget, row.info.training)

    def _spread_text(self, group):
        """How the repeats of a group differ in value: RMS of their Parameters, and their gradient norms."""
        members = group.members[:SPREAD_MEMBERS]
        if not any(m.count for m in members):
            return None
        parts = []
        rms = _spread(_member_rms(m) for m in members)
        if rms:
            parts.append(f"parameter RMS {rms}")
        if self.gradients is not None:
            grads = _spread(self.gradients[m.path].norm for m in members if m.path in self.gradients)
            if grads:
                parts.append(f"gradient norm {grads}")
        if len(group.members) > SPREAD_MEMBERS and parts:
            parts.append(f"(first {SPREAD_MEMBERS})")
        return ", ".join(parts) or None

    # -- html ----------------------------------------------------------------------
    def html(self):
        root = self.root
        budget = [self.max_nodes - 1]
        summary = el("div",
                     el("b", root.info.cls), " · ",
                     f"{plural(self.n_cells, 'cell')} · {plural(self.n_params, 'Parameter')} · "
                     f"{format_count(root.count)} elements ({format_bytes(root.nbytes)})",
                     f" · {plural(self.n_hooks, 'hook')}" if self.n_hooks else "",
                     " · shared parameters counted once" if self.shared else "",
                     style=f"margin-bottom:4px;{MUTED}")
        columns = self._columns()
        header = el("div", el("span", [el("span", title, style=_col(width)) for title, width in columns],
                              style=_RIGHT), "cell",
                    style=f"font-size:0.8em;{MUTED};{line('border-bottom')};padding:0 0 2px 1.1em;margin-bottom:2px")
        parts = [summary, header, self._html_node(root, None, 0, budget, label=None)]
        if self.shape_note:
            parts.append(el("div", self.shape_note, style=f"font-size:0.85em;{MUTED};margin-top:2px"))
        return el("div", parts,
                  style=f"{SANS};font-size:13px;line-height:1.5;max-width:100%;text-align:left;padding-left:2px")

    def _html_row(self, name, node_or_group, parent_training, times=None):
        first = node_or_group.members[0] if isinstance(node_or_group, _Group) else node_or_group
        info = first.info
        left = []
        if name is not None:
            left.append(el("span", name, style=_NAME))
            left.append(el("span", ": ", style=MUTED))
        left.append(el("span", info.cls, style=_CLASS))
        if times:
            left.append(el("span", f"× {times}", style=badge("accent") + ";font-weight:bold"))
        if isinstance(node_or_group, _Node) and node_or_group.rows and info.own_count:
            left.append(el("span", f"own {format_count(info.own_count)}", style=badge()))
        for label, tone, tip, *href in self._marks(first, parent_training) + self._inside_marks(first):
            if href and href[0]:
                left.append(el("a", label, href=href[0], style=badge(tone) + ";text-decoration:none", title=tip))
            else:
                left.append(el("span", label, style=badge(tone), title=tip))
        if info.extra:
            left.append(el("span", f"({info.extra})", style=_ARGS))
        shape = self._shape_text(first.path)
        if shape:
            left.append(el("span", shape, style=_SHAPES))
        path = None if isinstance(node_or_group, _Group) else first.path
        values = self._right_values(node_or_group, path)
        return _row(left, [(html, width) for (_, html), (_, width) in zip(values, self._columns())])

    def _html_node(self, node, parent_training, depth, budget, label):
        row = self._html_row(label, node, parent_training)
        return self._wrap(row, node, depth, budget, node.info.training)

    def _wrap(self, row, node, depth, budget, training, note=None):
        if not node.rows:
            if note:
                return el("div", row, el("div", note, style=_NOTE), style=_LEAF)
            return el("div", row, style=_LEAF)
        inner = []
        if note:
            inner.append(el("div", note, style=_NOTE))
        inner.extend(self._html_children(node, depth + 1, budget, training))
        return el("details", el("summary", row, style=_SUMMARY), el("div", inner, style=_CHILDREN),
                  open=depth < self.open_depth)

    def _html_children(self, node, depth, budget, training):
        out = []
        rows = node.rows
        for i, row in enumerate(rows):
            if budget[0] <= 0:
                hidden = sum(r.n_cells for r in rows[i:] if not (isinstance(r, _Node) and r.ref))
                out.append(el("div", f"… {plural(hidden, 'more cell')} not shown "
                                     f"(cellkit.display.cell_tree(net, max_nodes=...) shows more)",
                              style=_LEAF + f";{MUTED};font-style:italic"))
                break
            budget[0] -= 1
            if isinstance(row, _Group):
                first = row.members[0]
                html_row = self._html_row(_run_label(row.members), row, training, times=len(row.members))
                note = f"each: {format_count(first.count)} elements ({format_bytes(first.nbytes)})"
                if first.rows:
                    note += f"; showing {first.path}"
                spread = self._spread_text(row)
                if spread:
                    note += f" · across the {len(row.members)}: {spread}"
                out.append(self._wrap(html_row, first, depth, budget, first.info.training, note))
            elif row.ref is not None:
                left = [el("span", row.name, style=_NAME), el("span", ": ", style=MUTED),
                        el("span", type(row.cell).__name__, style=_CLASS),
                        el("span", f" → same cell as {row.ref or '(root)'} (counted once)", style=MUTED)]
                ref = _row(left, [("", width) for _, width in self._columns()])
                out.append(el("div", ref, style=_LEAF))
            else:
                out.append(self._html_node(row, training, depth, budget, row.name))
        return out


def _group_gradient(group, gradients):
    """A group's gradient figures: the norms of all its members combined."""
    from .gradflow import CellGradient, combine_norms

    grads = [gradients.get(m.path) for m in group.members]
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    return CellGradient(group.members[0].path, combine_norms(g.param_norm for g in grads),
                        combine_norms(g.output_norm for g in grads), grads[0].vanishing, grads[0].exploding)


def _ledger_by_place(trace):
    """``{(path, stage): [ledger entries]}`` of a trace, each with the anchor its display gives it."""
    if trace is None or not getattr(trace, "hooks", None):
        return {}
    from .hookledger import anchor
    from .trace_html import anchor_prefix

    prefix = anchor_prefix(trace, trace.events)
    found = {}
    for entry in trace.hook_ledger():
        entry["anchor"] = anchor(prefix, entry)
        found.setdefault((entry["path"], entry["stage"]), []).append(entry)
    return found


def _trace_flags(trace):
    """path -> flags (``nan``, ``inf``, ``vanishing``, ``exploding``) seen in a trace's events at that Cell."""
    if trace is None:
        return {}
    found = {}
    settings = getattr(trace, "settings", {}) or {}
    for event in getattr(trace, "events", ()):
        if event.get("kind") == "param_grads":  # each gradient belongs to the layer holding its Parameter
            for t in event.get("tensors", ()):
                layer = t["index"].rsplit(".", 1)[0] if "." in t["index"] else ""
                norm = t.get("norm")
                if t.get("nan") or t.get("inf") or norm in ("nan", "inf"):
                    found.setdefault(layer, set()).add("nan")
                elif norm is not None and float(norm) < settings.get("vanishing", 1e-7):
                    found.setdefault(layer, set()).add("vanishing")
                elif norm is not None and float(norm) > settings.get("exploding", 1e3):
                    found.setdefault(layer, set()).add("exploding")
            continue
        for flag in event.get("flags", ()):
            found.setdefault(event.get("path", "?"), set()).add(flag)
    return found


def _short_count(n):
    """``'1.2M'``, ``'350k'``, ``'12'``: a large count in three digits."""
    if n is None:
        return "–"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(int(n))


def _row(left, right_cells):
    """One line of the tree: the numbers float right; the rest wraps in the space left of them."""
    right = el("span", [el("span", html, style=_col(width)) for html, width in right_cells], style=_RIGHT)
    return el("span", right, el("span", left, style=_LEFT), style=_ROW)


def _col(width):
    return f"display:inline-block;width:{width}em;text-align:right;{MONO};font-size:0.92em"


# Floats and inline blocks only: an untrusted notebook's sanitizer strips flexbox and calc().
_ROW = "display:block"
_RIGHT = "float:right;white-space:nowrap;margin-left:8px"
# The left part is a block beside the float: it takes the rest of the line and wraps there, so long
# arguments go onto a second line instead of being cut, and the marks before them always show.
_LEFT = "display:block;overflow:hidden;white-space:normal;word-break:break-word"
_NAME = f"{MONO};font-weight:600"
_CLASS = "font-weight:600"
_ARGS = f"{MONO};font-size:0.9em;{MUTED};margin-left:4px"
_SHAPES = f"{MONO};font-size:0.85em;{MUTED};margin-left:6px;white-space:nowrap"
_SUMMARY = "cursor:pointer;padding:1px 0;list-style-position:outside;margin-left:1.1em;display:list-item"
_LEAF = "padding:1px 0 1px 1.1em"
_NOTE = f"font-size:0.8em;{MUTED};padding-left:1.1em"
_CHILDREN = f"margin-left:0.45em;padding-left:0.75em;{line('border-left')}"


def _text_class(info):
    return f"{info.cls}({info.extra})" if info.extra else info.cls


def _text_size(count, nbytes):
    if not count:
        return "–"
    return f"{format_count(count)} elements   {format_bytes(nbytes)}"


def _cell_handler(obj, options):
    if isinstance(obj, Cell):
        keys = ("max_nodes", "open_depth", "group_repeats", "gradients", "example", "trace")
        return CellTree(obj, **{k: v for k, v in options.items() if k in keys})
    return NotImplemented


render.register(_cell_handler, first=False)
