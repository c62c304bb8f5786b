"""The cell tree: every Cell of a network, what it holds, and what is attached to it.

Each row shows the attribute name, the class, its ``extend_repr``
arguments, the parameter elements and bytes below it (its own ones too
when it also has children), and marks for what the Cell records: hooks
(kind and count), a custom ``bprop``, ``recompute``, ``to_float``,
shard / offload / pipeline / place settings, flags, buffers, extra state,
and the train / inference mode where it differs from the parent's.

Repeated identical sub-trees -- the 24 blocks of a transformer -- are shown
once, as ``0–23: Block × 24``.  A Cell held under two names is shown in full
once and referred to at its other places; shared Parameters are counted once.
Beyond ``max_nodes`` rows the tree stops and says how many cells it left out.

>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(2, 2), nn.Dense(2, 2), nn.Dense(2, 2), nn.ReLU())
>>> print(CellTree(net).text())
SequentialCell  [inference]                                              18 elements   72 B
├── 0–2: Dense(input_channels=2, output_channels=2, has_bias=True) × 3   18 elements   72 B
└── 3: ReLU                                                              –
"""
from __future__ import annotations

from ..nn.cell import Cell
from . import render
from .cellinfo import inspect_cell, setting_label, size_and_bytes
from .html import MONO, SANS, badge, el, format_bytes, format_count, line, one_line, themed

__all__ = ["CellTree"]

DEFAULT_MAX_NODES = 300


class _Node:
    """One place in the tree: a Cell (with its children), or a reference to a Cell shown elsewhere."""

    __slots__ = ("name", "path", "cell", "info", "children", "ref", "sig", "count", "nbytes", "ids",
                 "n_cells", "rows", "parent_training")

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


def _signatures(post):
    """Give each node an int naming its structure: equal ints, identical sub-trees."""
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
    """

    def __init__(self, net, max_nodes=DEFAULT_MAX_NODES, open_depth=None, group_repeats=True):
        self.net = net
        self.max_nodes = max(1, int(max_nodes))
        self.group_repeats = group_repeats
        self.root, post = _build(net)
        self.shared = _totals(post)
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
        """(label, palette colour or None, tooltip) marks of a node, in a fixed order."""
        info = node.info
        marks = []
        if parent_training is None or info.training != parent_training:
            marks.append(("train" if info.training else "inference", "ok" if info.training else None,
                          "cell.training"))
        for kind, count in info.hooks:
            marks.append((f"{kind} hook ×{count}", "warn", f"{count} {kind} hook(s) registered"))
        if info.bprop:
            marks.append(("custom bprop", "warn", "the Cell defines bprop"))
        if info.recompute:
            marks.append(("recompute", "accent", "activations recomputed in backward"))
        if info.to_float:
            marks.append((f"to_float {info.to_float}", "accent", "inputs and parameters cast while construct runs"))
        for key, value in info.settings:
            marks.append((setting_label(key, value), "accent", one_line(f"parallel_config[{key!r}] = {value!r}", 300)))
        if info.buffers:
            marks.append((f"{len(info.buffers)} buffer{'s' if len(info.buffers) > 1 else ''} · "
                          f"{format_bytes(info.buffer_bytes)}", None, ", ".join(k for k, _ in info.buffers)))
        if info.flags:
            marks.append(("flags " + one_line(", ".join(f"{k}={v!r}" for k, v in info.flags), 60), None,
                          one_line(", ".join(f"{k}={v!r}" for k, v in info.flags), 300)))
        if info.extra_state is not None:
            marks.append(("extra state " + one_line(info.extra_state, 60), None, info.extra_state))
        for note in info.notes:
            marks.append((note, "warn", note))
        return marks

    # -- text ----------------------------------------------------------------------
    def text(self):
        lines = []  # (left, right)
        budget = [self.max_nodes]
        root = self.root
        marks = " ".join(f"[{m[0]}]" for m in self._marks(root, None))
        head = _text_class(root.info) + (f"  {marks}" if marks else "")
        lines.append((head, _text_size(root.count, root.nbytes)))
        budget[0] -= 1
        self._text_rows(root, "", lines, budget, root.info.training)
        width = min(max(len(left) for left, _ in lines), 88)
        out = []
        for left, right in lines:
            out.append(f"{left.ljust(width)}   {right}".rstrip() if right else left)
        if self.shared:
            out.append("(shared parameters and cells are counted once)")
        return "\n".join(out)

    def _text_rows(self, node, prefix, lines, budget, parent_training):
        rows = node.rows
        for i, row in enumerate(rows):
            last = i == len(rows) - 1
            branch, follow = ("└── ", "    ") if last else ("├── ", "│   ")
            if budget[0] <= 0:
                hidden = sum(r.n_cells for r in rows[i:] if not (isinstance(r, _Node) and r.ref))
                lines.append((f"{prefix}└── … {format_count(hidden)} more cells not shown "
                              f"(cell_tree(net, max_nodes=...))", ""))
                return
            budget[0] -= 1
            if isinstance(row, _Group):
                first = row.members[0]
                marks = self._marks(first, parent_training)
                left = f"{prefix}{branch}{_run_label(row.members)}: {_text_class(first.info)} × {len(row.members)}"
                if marks:
                    left += "  " + " ".join(f"[{m[0]}]" for m in marks)
                lines.append((left, _text_size(row.count, row.nbytes)))
                if first.rows:
                    lines.append((f"{prefix}{follow}    (each: {_text_size(first.count, first.nbytes)}; "
                                  f"showing {one_line(first.path)})", ""))
                    self._text_rows(first, prefix + follow, lines, budget, first.info.training)
            elif row.ref is not None:
                lines.append((f"{prefix}{branch}{one_line(row.name)}: {type(row.cell).__name__} "
                              f"→ same cell as {one_line(row.ref) or '(root)'}", "(counted once)"))
            else:
                marks = self._marks(row, parent_training)
                left = f"{prefix}{branch}{one_line(row.name)}: {_text_class(row.info)}"
                if row.rows and row.info.own_count:
                    left += f"  (own {format_count(row.info.own_count)})"
                if marks:
                    left += "  " + " ".join(f"[{m[0]}]" for m in marks)
                lines.append((left, _text_size(row.count, row.nbytes)))
                self._text_rows(row, prefix + follow, lines, budget, row.info.training)

    # -- html ----------------------------------------------------------------------
    def html(self):
        root = self.root
        budget = [self.max_nodes - 1]
        summary = el("div",
                     el("b", root.info.cls), " · ",
                     f"{format_count(self.n_cells)} cell{'s' if self.n_cells != 1 else ''} · "
                     f"{format_count(self.n_params)} Parameter{'s' if self.n_params != 1 else ''} · "
                     f"{format_count(root.count)} elements ({format_bytes(root.nbytes)})",
                     f" · {format_count(self.n_hooks)} hook{'s' if self.n_hooks != 1 else ''}" if self.n_hooks else "",
                     " · shared parameters counted once" if self.shared else "",
                     style="margin-bottom:4px;opacity:0.85")
        header = el("div", el("span", el("span", "elements", style=_COL_COUNT), el("span", "bytes", style=_COL_BYTES),
                              style=_RIGHT), "cell",
                    style=f"font-size:0.8em;opacity:0.6;{line('border-bottom')};padding:0 0 2px 0;margin-bottom:2px")
        tree = self._html_node(root, None, 0, budget, label=None)
        return el("div", summary, header, tree,
                  style=f"{SANS};font-size:13px;line-height:1.5;max-width:100%;overflow-x:auto")

    def _html_row(self, name, node_or_group, parent_training, times=None):
        first = node_or_group.members[0] if isinstance(node_or_group, _Group) else node_or_group
        info = first.info
        left = []
        if name is not None:
            left.append(el("span", name, style=_NAME))
            left.append(el("span", ": ", style="opacity:0.6"))
        left.append(el("span", info.cls, style=_CLASS))
        if info.extra:
            left.append(el("span", f"({info.extra})", style=_ARGS, title=info.extra))
        if times:
            left.append(el("span", f"× {times}", style=badge("accent") + ";font-weight:bold"))
        if isinstance(node_or_group, _Node) and node_or_group.rows and info.own_count:
            left.append(el("span", f"own {format_count(info.own_count)}", style=badge()))
        for label, colour, tip in self._marks(first, parent_training):
            left.append(el("span", label, style=badge(colour), title=tip))
        count, nbytes = node_or_group.count, node_or_group.nbytes
        return _row(left, format_count(count) if count else "–", format_bytes(nbytes) if count else "")

    def _html_node(self, node, parent_training, depth, budget, label):
        row = self._html_row(label, node, parent_training)
        return self._wrap(row, node, depth, budget, node.info.training)

    def _wrap(self, row, node, depth, budget, training, note=None):
        if not node.rows:
            return el("div", row, style=_LEAF)
        inner = []
        if note:
            inner.append(el("div", note, style="font-size:0.8em;opacity:0.65;padding-left:1.1em"))
        inner.extend(self._html_children(node, depth + 1, budget, training))
        return el("details", el("summary", row, style=_SUMMARY), el("div", inner, style=_CHILDREN),
                  open=depth < self.open_depth)

    def _html_children(self, node, depth, budget, training):
        out = []
        rows = node.rows
        for i, row in enumerate(rows):
            if budget[0] <= 0:
                hidden = sum(r.n_cells for r in rows[i:] if not (isinstance(r, _Node) and r.ref))
                out.append(el("div", f"… {format_count(hidden)} more cells not shown "
                                     f"(cellkit.display.cell_tree(net, max_nodes=...) shows more)",
                              style=_LEAF + ";opacity:0.65;font-style:italic"))
                break
            budget[0] -= 1
            if isinstance(row, _Group):
                first = row.members[0]
                html_row = self._html_row(_run_label(row.members), row, training, times=len(row.members))
                note = (f"each: {format_count(first.count)} elements ({format_bytes(first.nbytes)}); "
                        f"showing {first.path}") if first.rows else None
                out.append(self._wrap(html_row, first, depth, budget, first.info.training, note))
            elif row.ref is not None:
                left = [el("span", row.name, style=_NAME), el("span", ": ", style="opacity:0.6"),
                        el("span", type(row.cell).__name__, style=_CLASS),
                        el("span", f" → same cell as {row.ref or '(root)'} (counted once)", style="opacity:0.7")]
                ref = _row(left, "", "")
                out.append(el("div", ref, style=_LEAF))
            else:
                out.append(self._html_node(row, training, depth, budget, row.name))
        return out


def _row(left, count, nbytes):
    """One line of the tree: the numbers float right; the rest is cut with an ellipsis before them."""
    right = el("span", el("span", count, style=_COL_COUNT), el("span", nbytes, style=_COL_BYTES), style=_RIGHT)
    return el("span", right, el("span", left, style=_LEFT), style=_ROW)


# Floats and inline blocks only: an untrusted notebook's sanitizer strips flexbox and calc().
_ROW = "display:block"
_RIGHT = "float:right;white-space:nowrap"
_LEFT = "display:block;overflow:hidden;white-space:nowrap;text-overflow:ellipsis"
_NAME = f"{MONO};font-weight:600"
_CLASS = themed("color", "accent") + ";font-weight:600"
# Long arguments are cut (full text on hover) so the marks after them stay visible.
_ARGS = (f"display:inline-block;max-width:38em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;"
         f"vertical-align:bottom;{MONO};font-size:0.9em;opacity:0.75")
_COL_COUNT = f"display:inline-block;width:7.5em;text-align:right;{MONO};font-size:0.92em"
_COL_BYTES = f"display:inline-block;width:6.5em;text-align:right;{MONO};font-size:0.92em;opacity:0.7"
_SUMMARY = "cursor:pointer;padding:1px 0;list-style-position:outside;margin-left:1.1em;display:list-item"
_LEAF = "padding:1px 0 1px 1.1em"
_CHILDREN = f"margin-left:0.45em;padding-left:0.75em;{line('border-left')}"


def _text_class(info):
    return f"{info.cls}({info.extra})" if info.extra else info.cls


def _text_size(count, nbytes):
    if not count:
        return "–"
    return f"{format_count(count)} elements   {format_bytes(nbytes)}"


def _cell_handler(obj, options):
    if isinstance(obj, Cell):
        keys = ("max_nodes", "open_depth", "group_repeats")
        return CellTree(obj, **{k: v for k, v in options.items() if k in keys})
    return NotImplemented


render.register(_cell_handler, first=False)
