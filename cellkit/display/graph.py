"""Graph drawings: the cell tree and a trace's dataflow as Graphviz DOT, shown as SVG.

:func:`cell_graph` draws one box per Cell (attribute name, class, parameter
elements below it, marks for hooks / recompute / ``to_float``) with an edge
from each parent to each child.  :func:`trace_graph` draws the calls of a
:func:`cellkit.trace` recording in call order: one box per call (path, class,
input and output shapes), a dashed edge from a caller to the first cell it
called and a forward edge, labelled with the shape that flows, from each call
to the next call made by the same caller.

Both return a :class:`Graph`.  In a notebook it shows as HTML
(:mod:`cellkit.display.graph_html`): nested boxes, folded per Cell, that fit
the output's width, survive an untrusted notebook and render on GitHub, with
the drawing itself one click away (an ``<img>`` of the SVG in a scrollable
box, at full size: its text is never shrunk).  The bundle also carries
``image/svg+xml`` for frontends that prefer it: rendered by Graphviz's
``dot`` when the ``graphviz`` package and the ``dot`` program are there,
else by a small pure-Python layered layout (levels top to bottom, siblings
left to right).  The SVG has no background of its own (no white board on a
dark page): boxes carry their fills and every free-standing label a halo.
``text/plain`` is the box outline; ``g.dot()`` the DOT source.
``cellkit.display.explore(g)`` zooms and pans the drawing.  A display never
raises, and every user string is escaped (for DOT, SVG and HTML).

:func:`cell_graph` folds runs of identical blocks into one box (``0–23:
Block × 24``), as the tree does.

>>> from cellkit import nn
>>> g = cell_graph(nn.SequentialCell(nn.Dense(3, 2), nn.ReLU()))
>>> g.source.count("->"), len(g.nodes)
(2, 3)
>>> g.svg(engine="fallback").startswith("<svg")
True
"""
from __future__ import annotations

from xml.sax.saxutils import escape as _xml_escape

import base64

from .html import MUTED, el, format_count, one_line, plural

__all__ = ["Graph", "cell_graph", "trace_graph", "dot_quote", "node"]

DEFAULT_MAX_NODES = 300
ENGINES = ("auto", "graphviz", "fallback")


def dot_quote(text) -> str:
    """``text`` as a quoted DOT string: backslashes, quotes and line breaks escaped.

    >>> print(dot_quote('a "b" \\\\ c'))
    "a \\"b\\" \\\\ c"
    """
    s = str(text).replace("\\", "\\\\").replace('"', '\\"')
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{s}"'


def _xml(text) -> str:
    return _xml_escape(str(text), {'"': "&quot;", "'": "&#39;"})


class _GNode:
    __slots__ = ("id", "lines", "parent", "style")

    def __init__(self, id_, lines, parent=None, style=None):
        self.id = id_
        self.lines = [one_line(str(x), 80) for x in lines if x]
        self.parent = parent   # the id of the tree parent (layout), or None for a root
        self.style = style     # None, 'mark' (hooks / recompute ...), 'more' (left out), or (fill, stroke)


def _paint(style):
    """``(fill, stroke, dashed)`` of a node style; a ``(fill, stroke)`` pair of ``#rrggbb`` colours is its own paint.

    Other drawings (the memory graph) colour nodes by what they mean; colours
    that are not plain hex fall back to the default, so DOT and SVG stay safe.
    """
    if isinstance(style, tuple) and len(style) == 2 and all(_is_hex(c) for c in style):
        return style[0], style[1], False
    if style == "mark":
        return "#fff4e0", "#d08a1c", False
    if style == "more":
        return "#ffffff", "#8a94a6", True
    return "#f4f6fa", "#8a94a6", False


def _is_hex(colour):
    return (isinstance(colour, str) and len(colour) == 7 and colour[0] == "#"
            and all(c in "0123456789abcdefABCDEF" for c in colour[1:]))


def node(id_, lines, parent=None, style=None):
    """A box for :class:`Graph`: ``lines`` of label (the first is bold), a tree ``parent`` id, a style."""
    return _GNode(id_, lines, parent, style)


class Graph:
    """A drawing: nodes, edges, the DOT source and its SVG forms.

    Attributes
    ----------
    nodes : list
        One entry per box (``.id``, ``.lines``: the label lines).
    edges : list of (src id, dst id, label, style)
        ``style`` is ``'solid'``, ``'dashed'`` or ``'forward'``.
    source : str
        The DOT source (also :meth:`dot`).
    engine : str
        ``'auto'`` (``dot`` if it can, else the built-in layout),
        ``'graphviz'`` or ``'fallback'``.
    """

    def __init__(self, name, nodes, edges, engine="auto", rankdir="TB", box=None, caption=None):
        self.name = name
        self.nodes = nodes
        self.edges = edges
        self.engine = engine if engine in ENGINES else "auto"
        self.rankdir = rankdir
        self.note = None       # why the last render was not graphviz's
        self.renderer = None   # 'graphviz', 'fallback' or None (no SVG), set by svg()
        self.source = self._dot()
        self.caption = caption
        self._box = box        # the HTML form's box tree (built from the nodes when not given)

    @property
    def box(self):
        """The root :class:`~cellkit.display.graph_html.Box` of the HTML form."""
        if self._box is None:
            from .graph_html import boxes_from_graph

            self._box = boxes_from_graph(self.nodes, self.edges)
        return self._box

    def text(self):
        """The text twin: the boxes as an indented outline (``dot()`` is the DOT source)."""
        from .graph_html import text_outline

        return text_outline(self.box)

    def html(self, drawing=True):
        """The HTML form: nested boxes that fit the width, then the SVG drawing in a closed, scrollable box."""
        from .graph_html import render

        parts = [render(self.box, title=self.caption)]
        if drawing:
            svg = self.svg()
            if svg is not None:
                data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
                image = el("img", src=f"data:image/svg+xml;base64,{data}", alt=f"drawing of {self.name}",
                           style="max-width:none")
                summary = el("summary", f"drawing ({len(self.nodes)} boxes; scroll to pan, "
                                        f"cellkit.display.explore(graph) to zoom)", style="cursor:pointer")
                parts.append(el("details", summary, el("div", image, style="overflow-x:auto;max-width:100%")))
            if self.note:
                parts.append(el("div", self.note, style=f"font-size:0.85em;{MUTED}"))
        return el("div", parts, style="max-width:100%;text-align:left")

    # -- DOT ---------------------------------------------------------------------------
    def dot(self) -> str:
        """The DOT source."""
        return self.source

    def _dot(self) -> str:
        out = [f"digraph {dot_quote(self.name)} {{",
               f"  graph [rankdir={self.rankdir}, fontname=Helvetica, nodesep=0.25, ranksep=0.45];",
               '  node [shape=box, style="rounded,filled", fillcolor="#f4f6fa", color="#8a94a6", '
               'fontname=Helvetica, fontsize=10];',
               '  edge [color="#8a94a6", fontname=Helvetica, fontsize=9];']
        for n in self.nodes:
            extra = ""
            if n.style == "more":
                extra = ', style="dashed", fillcolor="#ffffff"'
            elif n.style is not None:
                fill, stroke, _ = _paint(n.style)
                extra = f', fillcolor="{fill}", color="{stroke}"'
            out.append(f"  {dot_quote(n.id)} [label={dot_quote(chr(10).join(n.lines))}{extra}];")
        for src, dst, label, style in self.edges:
            attrs = []
            if label:
                attrs.append(f"label={dot_quote(label)}")
            if style == "dashed":
                attrs.append("style=dashed")
            elif style == "forward":
                attrs.append('color="#3b6fd6"')
                attrs.append("constraint=false" if self.rankdir == "TB" else "penwidth=1.2")
            out.append(f"  {dot_quote(src)} -> {dot_quote(dst)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
        linked = {(src, dst) for src, dst, _, _ in self.edges}
        for n in self.nodes:  # keep every box a level below its tree parent (forward edges do not rank)
            if n.parent is not None and (n.parent, n.id) not in linked:
                out.append(f"  {dot_quote(n.parent)} -> {dot_quote(n.id)} [style=invis];")
        out.append("}")
        return "\n".join(out) + "\n"

    # -- SVG ---------------------------------------------------------------------------
    def svg(self, engine=None):
        """The SVG text, or ``None`` when nothing could draw it (see :attr:`note`); never raises."""
        engine = engine or self.engine
        self.note = None
        if engine in ("auto", "graphviz"):
            try:
                import graphviz

                svg = graphviz.Source(self.source).pipe(format="svg", encoding="utf-8")
                self.renderer = "graphviz"
                return svg
            except ImportError:
                self.note = "the graphviz package is not installed: drawn with the built-in layout"
            except Exception as exc:  # noqa: BLE001 -- ExecutableNotFound, a failed dot run ...
                if type(exc).__name__ == "ExecutableNotFound":
                    self.note = "Graphviz's dot program was not found: drawn with the built-in layout"
                else:
                    self.note = one_line(f"dot failed ({type(exc).__name__}): drawn with the built-in layout", 160)
        try:
            svg = layered_svg(self.nodes, self.edges, note=self.note)
            self.renderer = "fallback"
            return svg
        except Exception as exc:  # noqa: BLE001 -- a display never raises
            self.renderer = None
            self.note = one_line(f"no drawing ({type(exc).__name__}: {exc}): showing the DOT source", 200)
            return None

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            svg = self.svg()
        except Exception:  # noqa: BLE001 -- belt and braces: svg() already never raises
            svg = None
        try:
            text = self.text()
        except Exception:  # noqa: BLE001
            text = self.source
        bundle = {"text/plain": text}
        try:
            bundle["text/html"] = str(self.html())
        except Exception as exc:  # noqa: BLE001 -- the drawing and the text remain
            bundle["text/plain"] += f"\n(display note: the HTML form failed: {type(exc).__name__})"
        if svg is not None:
            bundle["image/svg+xml"] = svg
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle

    def __str__(self):
        return self.source

    def __repr__(self):
        return f"<Graph {self.name!r}: {len(self.nodes)} nodes, {len(self.edges)} edges>"


# ---------------------------------------------------------------------------- the fallback layout
_CHAR_W = 6.6     # px per character at 11px sans-serif (a generous average)
_LINE_H = 14
_PAD_X, _PAD_Y = 8, 6
_GAP_X, _GAP_Y = 18, 42


# A label that is not on a box gets a halo of the box colour: it reads on a light and a dark page alike.
_HALO = 'stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'


def layered_svg(nodes, edges, note=None, theme=False) -> str:
    """A tree drawing as SVG: levels top to bottom, siblings left to right, in source order.

    Parents are centred over their children; edges whose ends are not parent
    and child (forward edges between siblings) are drawn as blue arrows.
    There is no background: boxes carry their fills, other labels a halo.
    ``theme=True`` (for SVG inlined in a live page, as the widget does) adds
    JupyterLab's theme colours as CSS, so boxes and text follow a dark theme.
    """
    by_id = {n.id: n for n in nodes}
    children = {n.id: [] for n in nodes}
    roots = []
    for n in nodes:
        if n.parent is not None and n.parent in by_id:
            children[n.parent].append(n.id)
        else:
            roots.append(n.id)
    size = {}
    for n in nodes:
        w = max((len(s) for s in n.lines), default=1) * _CHAR_W + 2 * _PAD_X
        h = max(len(n.lines), 1) * _LINE_H + 2 * _PAD_Y
        size[n.id] = (max(w, 40.0), h)
    depth = {}
    order = []
    stack = [(r, 0) for r in reversed(roots)]
    while stack:  # depth first, iteratively (deep trees do not hit the recursion limit)
        nid, d = stack.pop()
        if nid in depth:
            continue
        depth[nid] = d
        order.append(nid)
        stack.extend((c, d + 1) for c in reversed(children[nid]))
    levels = max(depth.values(), default=0) + 1
    level_h = [0.0] * levels
    for nid, d in depth.items():
        level_h[d] = max(level_h[d], size[nid][1])
    # x: every box starts at 0; _separate places sibling subtrees side by side, bottom up,
    # each parent centred over its children
    x = {nid: size[nid][0] / 2 for nid in order}
    gap = 48.0 if any(style == "forward" for _, _, _, style in edges) else _GAP_X  # room for edge labels
    _separate(roots, children, depth, size, x, levels, gap)
    top = 12.0 + (_LINE_H + 6 if note else 0)
    y_of = []
    y = top
    for d in range(levels):
        y_of.append(y)
        y += level_h[d] + _GAP_Y
    min_x = min((x[n] - size[n][0] / 2 for n in x), default=0.0)
    shift = 12.0 - min_x
    for n in x:
        x[n] += shift
    width = max((x[n] + size[n][0] / 2 for n in x), default=100.0) + 12
    if note:
        width = max(width, len(note) * 6.2 + 24)
    height = y - _GAP_Y + 12

    def box(nid):
        w, h = size[nid]
        return x[nid] - w / 2, y_of[depth[nid]], w, h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           '<defs><marker id="ck-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8a94a6"/></marker>'
           '<marker id="ck-fwd" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#3b6fd6"/></marker></defs>',
           ]
    box_style = text_style = edge_style = ""
    if theme:
        box_style = ' style="fill:var(--jp-layout-color2,#f4f6fa);stroke:var(--jp-border-color1,#8a94a6)"'
        text_style = ' style="fill:var(--jp-content-font-color1,#1f2937)"'
        edge_style = ' style="stroke:var(--jp-border-color1,#8a94a6)"'
    if note:
        out.append(f'<text class="note" x="12" y="{12 + _LINE_H - 3}" fill="#374151" {_HALO} font-style="italic">'
                   f'{_xml(note)}</text>')
    for src, dst, label, style in edges:
        if src not in x or dst not in x:
            continue
        sx, sy, sw, sh = box(src)
        dx, dy, dw, dh = box(dst)
        if depth[src] == depth[dst]:  # a forward edge between siblings: side to side
            x1, x2 = (sx + sw, dx) if sx < dx else (sx, dx + dw)
            y1 = sy + sh / 2
            y2 = dy + dh / 2
        else:
            x1, y1 = sx + sw / 2, sy + sh
            x2, y2 = dx + dw / 2, dy
        colour, marker = ("#3b6fd6", "ck-fwd") if style == "forward" else ("#8a94a6", "ck-arrow")
        dash = ' stroke-dasharray="4 3"' if style == "dashed" else ""
        out.append(f'<line class="edge" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   f'stroke="{colour}" stroke-width="1"{dash} marker-end="url(#{marker})"'
                   f'{edge_style if style != "forward" else ""}/>')
        if label:
            out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 3:.1f}" text-anchor="middle" '
                       f'font-size="9" fill="#1d4ed8" {_HALO}>{_xml(one_line(label, 40))}</text>')
    for nid in order:
        n = by_id[nid]
        bx, by, w, h = box(nid)
        fill, stroke, dashed = _paint(n.style)
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        plain = n.style is None
        out.append(f'<g class="node"><title>{_xml(" ".join(n.lines))}</title>'
                   f'<rect class="box" x="{bx:.1f}" y="{by:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
                   f'fill="{fill}" stroke="{stroke}"{dash}{box_style if plain else ""}/>')
        for i, text in enumerate(n.lines):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(f'<text x="{bx + w / 2:.1f}" y="{by + _PAD_Y + (i + 1) * _LINE_H - 3:.1f}" '
                       f'text-anchor="middle" fill="#1f2937"{weight}{text_style if plain else ""}>{_xml(text)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _separate(roots, children, depth, size, x, levels, gap=_GAP_X):
    """Shift each subtree right until it clears every earlier subtree at every level (contours)."""
    def contour(nid):
        right = {}
        stack = [nid]
        while stack:
            n = stack.pop()
            d = depth[n]
            right[d] = max(right.get(d, -1e18), x[n] + size[n][0] / 2)
            stack.extend(children[n])
        return right

    def left_contour(nid):
        left = {}
        stack = [nid]
        while stack:
            n = stack.pop()
            d = depth[n]
            left[d] = min(left.get(d, 1e18), x[n] - size[n][0] / 2)
            stack.extend(children[n])
        return left

    def move(nid, dx):
        stack = [nid]
        while stack:
            n = stack.pop()
            x[n] += dx
            stack.extend(children[n])

    def place(siblings):
        edge = {}
        for s in siblings:
            left = left_contour(s)
            need = max((edge[d] + gap - left[d] for d in left if d in edge), default=0.0)
            if need > 0:
                move(s, need)
            for d, r in contour(s).items():
                edge[d] = max(edge.get(d, -1e18), r)

    # bottom up: separate the children of every node, then re-centre the node over them
    post = []
    stack = [(r, False) for r in roots]
    while stack:
        n, done = stack.pop()
        if done:
            post.append(n)
            continue
        stack.append((n, True))
        stack.extend((c, False) for c in children[n])
    for n in post:
        kids = children[n]
        if kids:
            place(kids)
            x[n] = (x[kids[0]] + x[kids[-1]]) / 2
    place(roots)


# ---------------------------------------------------------------------------- the drawings
def _cell_marks(info):
    marks = []
    for kind, count in info.hooks:
        marks.append(f"{kind} hook ×{count}")
    if info.bprop:
        marks.append("custom bprop")
    if info.recompute:
        marks.append("recompute")
    if info.to_float:
        marks.append(f"to_float {info.to_float}")
    return marks


def cell_graph(net, max_nodes=DEFAULT_MAX_NODES, engine="auto") -> Graph:
    """The cell tree of ``net`` as a :class:`Graph`: one box per Cell, edges parent -> child.

    Each box shows the attribute name, the class, the parameter elements below
    the Cell (shared Parameters and Cells counted once) and marks for hooks,
    a custom ``bprop``, ``recompute`` and ``to_float``.  A Cell held under two
    names is drawn once, with an edge from each holder.  Beyond ``max_nodes``
    boxes the drawing stops with a box saying how many it left out.

    >>> from cellkit import nn
    >>> g = cell_graph(nn.SequentialCell(nn.Dense(3, 2)))
    >>> [n.lines for n in g.nodes]
    [['SequentialCell', '8 elements'], ['0: Dense', '8 elements']]
    """
    try:
        return _cell_graph(net, max_nodes, engine)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return Graph("cells", [_GNode("error", [f"cell_graph failed: {type(exc).__name__}: {exc}"], style="mark")],
                     [], engine)


def _cell_graph(net, max_nodes, engine):
    from .graph_html import Box
    from .tree import CellTree, _Group, _run_label

    tree = CellTree(net, max_nodes=10 ** 9)
    nodes, edges = [], []
    shown = {}        # id(cell) -> node id
    left_out = 0

    def add(label, node, parent, times=None):
        nonlocal left_out
        if len(nodes) >= max_nodes:
            left_out += node.n_cells if times is None else sum(m.n_cells for m in times)
            return None
        nid = f"c{len(nodes)}"
        info = node.info
        count = node.count if times is None else sum(m.count for m in times)
        lines = [f"{label}: {info.cls}" if label else info.cls]
        if times is not None:
            lines[0] += f" × {len(times)}"
        lines.append(f"{format_count(count)} elements" if count else "no parameters")
        marks = _cell_marks(info)
        if marks:
            lines.append(", ".join(marks))
        g = _GNode(nid, lines, parent, "mark" if marks else None)
        nodes.append(g)
        shown[id(node.cell)] = nid
        if parent is not None:
            edges.append((parent, nid, "", "solid"))
        box = Box(lines, tone="mark" if marks else None, key=nid)
        for row in node.rows:
            if isinstance(row, _Group):
                child = add(_run_label(row.members), row.members[0], nid, row.members)
            elif row.ref is not None:
                target = shown.get(id(row.cell))
                if target is not None:
                    edges.append((nid, target, "", "dashed"))
                box.children.append(Box([f"{row.name}: {type(row.cell).__name__}",
                                         f"→ same cell as {row.ref or '(root)'}"], tone="more"))
                continue
            else:
                child = add(row.name, row, nid)
            if child is not None:
                box.children.append(child)
        return box

    root_box = add("", tree.root, None)
    if left_out:
        last_parent = nodes[0].id if nodes else None
        nodes.append(_GNode("more", [f"… {plural(left_out, 'more cell')} not drawn"], last_parent, "more"))
        if last_parent is not None:
            edges.append((last_parent, "more", "", "dashed"))
        root_box.folded += left_out
    caption = (f"{tree.root.info.cls}: {plural(tree.n_cells, 'cell')}, {format_count(tree.root.count)} elements"
               + (" (runs of identical blocks drawn once)" if any(isinstance(r, _Group) for n in [tree.root]
                                                                  for r in n.rows) else ""))
    return Graph("cells", nodes, edges, engine, box=root_box, caption=caption)


def _prod(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _shapes(event, role):
    out = []
    for t in event.get("tensors") or ():
        if t.get("role") != role:
            continue
        if "shape" in t:
            out.append("(" + ", ".join(str(d) for d in t["shape"]) + ")")
        elif t.get("none"):
            out.append("None")
        elif "omitted" in t:
            out.append(f"… {t['omitted']} more")
        elif "type" in t:
            out.append(str(t["type"]))
    return ", ".join(out)


def trace_graph(trace, max_nodes=DEFAULT_MAX_NODES, engine="auto") -> Graph:
    """The forward calls of a :func:`cellkit.trace` recording as a :class:`Graph`.

    One box per call, in call order (path, class, input and output shapes);
    a dashed edge from a caller to the first cell it called, and a forward
    edge, labelled with the shape that flows, from each call to the next call
    made by the same caller.  ``trace`` is a ``Trace`` or its ``to_dict()``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.SequentialCell(nn.Dense(3, 2), nn.ReLU())
    >>> with ms.trace(net) as tr:
    ...     _ = net(ms.ops.ones((4, 3)))
    >>> g = trace_graph(tr)
    >>> [n.lines[0] for n in g.nodes], [(e[2], e[3]) for e in g.edges]
    (['SequentialCell', '0: Dense', '1: ReLU'], [('', 'dashed'), ('(4, 2)', 'forward')])
    """
    try:
        events = trace["events"] if isinstance(trace, dict) else list(getattr(trace, "events", trace))
        return _trace_graph(events, max_nodes, engine)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return Graph("trace", [_GNode("error", [f"trace_graph failed: {type(exc).__name__}: {exc}"], style="mark")],
                     [], engine)


def _trace_graph(events, max_nodes, engine):
    nodes, edges = [], []
    node_of = {}       # trace call index -> node
    outputs = {}       # node id -> output shapes text
    last_child = {}    # parent node id (or None) -> the last node it called
    stack = []         # node ids of the calls now open
    left_out = 0
    for e in events:
        kind = e.get("kind")
        call = e.get("call")
        if kind == "forward_pre":
            parent = stack[-1] if stack else None
            if len(nodes) >= max_nodes:
                left_out += 1
                stack.append(None)
                continue
            nid = f"t{len(nodes)}"
            path, cls = e.get("path") or "", e.get("cell") or "?"
            label = f"{path.rsplit('.', 1)[-1]}: {cls}" if path else cls
            lines = [label]
            if "." in path:
                lines.append(path)
            shapes = _shapes(e, "inputs")
            if shapes:
                lines.append("in " + shapes)
            node = _GNode(nid, lines, parent)
            nodes.append(node)
            node_of[call] = node
            prev = last_child.get(parent)
            if prev is not None:
                edges.append((prev, nid, outputs.get(prev, ""), "forward"))
            elif parent is not None:
                edges.append((parent, nid, "", "dashed"))
            last_child[parent] = nid
            stack.append(nid)
        elif kind == "forward":
            node = node_of.get(call)
            if node is not None:
                shapes = _shapes(e, "output")
                if shapes:
                    node.lines.append(one_line("out " + shapes, 80))
                    outputs[node.id] = one_line(shapes, 40)
                while stack:
                    if stack.pop() == node.id:
                        break
            elif stack and stack[-1] is None:
                stack.pop()
    if left_out:
        nodes.append(_GNode("more", [f"… {left_out} more calls not drawn"], nodes[0].id if nodes else None, "more"))
        if len(nodes) > 1:
            edges.append((nodes[0].id, "more", "", "dashed"))
    if not nodes:
        nodes.append(_GNode("empty", ["no forward calls recorded"], style="more"))
    return Graph("trace", nodes, edges, engine)
