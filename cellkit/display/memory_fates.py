"""The computation of a memory report as a graph: what happened to each Cell's arrays.

:func:`memory_graph` draws one box per Cell path that made or kept arrays
during the profiled call, nested as the Cells are (a parent box over its
children), siblings left to right in the order they first ran, joined by
forward arrows.  Each box says, from the report's events alone:

- **saved** -- arrays kept for the backward pass (an activation a backward
  rule holds on to, or a value made only for it);
- **freed in forward** -- activations released before the backward pass
  (nothing needed them: the memory recompute gives back);
- **recomputed** -- arrays rebuilt while a recomputed Cell replays its
  forward in backward (attributed to the recomputed Cell itself);
- **gradients** -- arrays the backward pass produced there.

Three or more sibling Cells in a row that fared exactly alike (the blocks
of a deep network) share one box, ``1 … 14`` with ``×14 alike``, so a deep
network still draws at a readable width.  Box colours follow the most
telling of these: red recomputed, orange
saved, blue freed in forward only, green gradients only.  The drawing is a
:class:`~cellkit.display.graph.Graph` (Graphviz DOT; SVG through ``dot`` or
the built-in layout).

>>> from cellkit.memory import MemoryEvent as E, MemoryReport
>>> events = [E(0, "alloc", 64, "activation", "CPU", "0", "dense"), E(1, "retag", 64, "saved", "CPU", "0", "dense"),
...           E(2, "alloc", 64, "activation", "CPU", "1", "relu"), E(3, "free", 64, "activation", "CPU", "1", "relu"),
...           E(4, "alloc", 64, "gradient", "CPU", "0", "Dense")]
>>> g = memory_graph(MemoryReport("demo", "CPU", events, 0, {}, None, None, 0.0, None, None))
>>> [n.lines[0] for n in g.nodes], g.nodes[1].lines[1:]
(['demo', '0', '1'], ['ops: dense', 'saved 64 B ×1', 'gradients 64 B ×1'])
"""
from __future__ import annotations

from .graph import Graph, node
from .html import format_bytes, one_line
from .memory_timeline import backward_start

__all__ = ["memory_graph", "cell_fates", "FATE_COLOURS"]

DEFAULT_MAX_NODES = 300
MIN_GROUP = 3          # consecutive look-alike siblings drawn as one box from this many on
MAX_OPS = 4
ROOT = "root"
# (fill, stroke) per fate, in order of precedence for a box's colour
FATE_COLOURS = {
    "recomputed": ("#fde8e8", "#e15759"),
    "saved": ("#fff1e0", "#f28e2b"),
    "freed": ("#e8f0fa", "#4e79a7"),
    "gradients": ("#eaf5e8", "#59a14f"),
}
_FATE_WORDS = {"saved": "saved", "freed": "freed in forward", "recomputed": "recomputed", "gradients": "gradients"}


def _empty_fate(step):
    return {"first": step, "ops": [], "saved": [0, 0], "freed": [0, 0], "recomputed": [0, 0], "gradients": [0, 0]}


def cell_fates(report):
    """Per Cell path (``''`` outside any Cell), in the order paths first appear: what happened to its arrays.

    Each value is ``{'first': step, 'ops': [forward ops], 'saved': [bytes, count], 'freed': [...],
    'recomputed': [...], 'gradients': [...]}``.
    """
    backward = backward_start(report)
    fates = {}
    for event in report.events:
        if event.kind == "mark":
            continue
        fate = fates.setdefault(event.path, _empty_fate(event.step))
        forward = backward is None or event.step < backward
        if event.kind == "alloc":
            if forward and event.op not in fate["ops"] and event.role in ("activation", "saved"):
                fate["ops"].append(event.op)
            key = {"saved": "saved", "recomputed": "recomputed", "gradient": "gradients"}.get(event.role)
        elif event.kind == "retag" and event.role == "saved":
            key = "saved"
        elif event.kind == "free" and forward and event.role == "activation":
            key = "freed"
        else:
            key = None
        if key is not None:
            fate[key][0] += event.nbytes
            fate[key][1] += 1
    return fates


def _parent_path(path, known):
    """The nearest enclosing path in ``known`` (``''`` -- the root -- when there is none)."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        candidate = ".".join(parts[:cut])
        if candidate in known:
            return candidate
    return ""


def _tree(fates):
    """``children[path]`` in the order each subtree first ran; ancestors with no events of their own added."""
    known = dict(fates)
    known.setdefault("", _empty_fate(0))
    for path in list(known):
        parts = path.split(".") if path else []
        for cut in range(1, len(parts)):  # a Cell whose children made arrays but that made none itself
            known.setdefault(".".join(parts[:cut]), _empty_fate(known[path]["first"]))
    children = {path: [] for path in known}
    for path in known:
        if path:
            children[_parent_path(path, known)].append(path)
    first = {}

    def subtree_first(path):  # iterative enough: Cell nesting is shallow
        if path not in first:
            first[path] = min([known[path]["first"]] + [subtree_first(c) for c in children[path]])
        return first[path]

    for path in children:
        children[path].sort(key=subtree_first)
    return known, children


def _fate_lines(fate):
    """What happened to a Cell's arrays, one line per fate (without its name)."""
    lines = []
    if fate["ops"]:
        ops = fate["ops"][:MAX_OPS] + (["…"] if len(fate["ops"]) > MAX_OPS else [])
        lines.append("ops: " + ", ".join(ops))
    for key in ("saved", "freed", "recomputed", "gradients"):
        nbytes, count = fate[key]
        if count:
            lines.append(f"{_FATE_WORDS[key]} {format_bytes(nbytes)} ×{count}")
    return lines


def _style(fate):
    for key in ("recomputed", "saved", "freed", "gradients"):
        if fate[key][1]:
            return FATE_COLOURS[key]
    return None


class _Shapes:
    """Which sibling sub-trees look alike: same fates, same children (by relative name), recursively."""

    def __init__(self, known, children):
        self.known, self.children, self.memo = known, children, {}

    def of(self, path):
        if path not in self.memo:
            kids = tuple((kid[len(path) + 1:] if path else kid, self.of(kid)) for kid in self.children[path])
            self.memo[path] = (tuple(_fate_lines(self.known[path])), kids)
        return self.memo[path]

    def runs(self, kids, group):
        """``kids`` cut into runs of consecutive look-alikes (each run a list; single kids unless ``group``)."""
        runs = []
        for kid in kids:
            if group and runs and self.of(runs[-1][0]) == self.of(kid):
                runs[-1].append(kid)
            else:
                runs.append([kid])
        out = []
        for run in runs:  # two alike stay two boxes: a group is worth it from three on
            out.extend([run] if len(run) >= MIN_GROUP else [[kid] for kid in run])
        return out


def memory_graph(report, max_nodes=DEFAULT_MAX_NODES, engine="auto", group_repeats=True) -> Graph:
    """The Cells of a :class:`~cellkit.memory.MemoryReport` as a :class:`~cellkit.display.graph.Graph`.

    The root box stands for the profiled call (the report's label, with what
    happened outside any Cell) and carries the colour key.  With
    ``group_repeats``, three or more consecutive sibling Cells whose
    sub-trees fared exactly alike (the blocks of a deep network) are drawn
    once, as ``1 … 14`` with ``×14 alike``, so the drawing stays readable.
    Never raises: a failure gives a one-box graph saying why.
    """
    try:
        return _memory_graph(report, max_nodes, engine, group_repeats)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return Graph("memory", [node("error", [f"memory_graph failed: {type(exc).__name__}: {exc}"], style="mark")],
                     [], engine)


def _box_lines(members, fate, report):
    """A box's label: its path (``first … last`` for a group, the report's label for the root), then its fates."""
    if members == [""]:
        return [one_line(report.label, 60), "(outside any Cell)", *_fate_lines(fate),
                "key: red recomputed · orange saved · blue freed in forward · green gradients"]
    if len(members) == 1:
        return [members[0], *_fate_lines(fate)]
    return [f"{members[0]} … {members[-1]}", f"×{len(members)} alike, each:", *_fate_lines(fate)]


def _memory_graph(report, max_nodes, engine, group_repeats):
    known, children = _tree(cell_fates(report))
    shapes = _Shapes(known, children)
    nodes, edges = [], []
    left_out = 0
    stack = [([""], None, ROOT)]  # (the paths one box stands for, parent box id, this box's id)
    while stack:  # depth first, children in the order they ran
        members, parent, nid = stack.pop()
        first = members[0]
        if len(nodes) >= max_nodes:
            left_out += 1
            continue
        nodes.append(node(nid, _box_lines(members, known[first], report), parent, _style(known[first])))
        kid_boxes = []
        for run in shapes.runs(children[first], group_repeats):
            relative = [kid[len(first) + 1:] if first else kid for kid in run]
            kid_members = [f"{m}.{r}" if m else r for m in members for r in relative]
            kid_boxes.append((kid_members, f"m{len(nodes)}_{len(kid_boxes)}"))
        if kid_boxes:
            edges.append((nid, kid_boxes[0][1], "", "dashed"))
            edges += [(a[1], b[1], "", "forward") for a, b in zip(kid_boxes, kid_boxes[1:])]
        stack.extend((kid_members, nid, kid_id) for kid_members, kid_id in reversed(kid_boxes))
    drawn = {n.id for n in nodes}
    edges = [e for e in edges if e[0] in drawn and e[1] in drawn]
    if left_out:
        nodes.append(node("more", [f"… {left_out} more boxes not drawn"], ROOT, "more"))
        edges.append((ROOT, "more", "", "dashed"))
    return Graph("memory", nodes, edges, engine)
