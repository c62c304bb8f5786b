"""Drawing a compiled graph (:class:`cellkit.graph.Graph`): one box per op, edges where values flow.

:func:`ir_graph` turns the IR into a :class:`cellkit.display.graph.Graph`, so
it draws the same way as the cell tree: Graphviz's ``dot`` lays it out when
it is installed, otherwise the built-in layered layout does (each op sits
below the op that produced its first input), and the DOT source is the text
form.  Each box shows the node's number and op, its Cell scope, the output's
dtype and shape, and the Parameters and constants it reads; recomputed,
random and state-changing nodes are marked.  Graph inputs and the returned
value are boxes too.  Every string from the model is escaped.

:func:`mimebundle` is what ``Graph._repr_mimebundle_`` returns: SVG, HTML and
the listing as plain text.  The HTML is the drawing's box form (nested boxes
that fit the output and survive an untrusted notebook, the SVG at full size
one click away) and the IR listing.  A graph of more than
:data:`FOLD_ABOVE` nodes is drawn *folded per Cell*: each call of a child of
the network is one box (``GPTBlock: 18 ops · dense ×4, matmul ×2 …``), the
network's own ops stay single, so a small GPT draws as a dozen readable boxes
instead of 3-pixel text (``ir_graph(graph, fold=True)``).

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(3, 2), nn.ReLU())
>>> drawing = ir_graph(ms.graph.build_graph(net, ms.ops.ones((1, 3))))
>>> [n.lines[0] for n in drawing.nodes]
['input %input_data', '%0 dense', '%1 relu', 'return']
>>> drawing.svg(engine="fallback").startswith("<svg")
True
"""
from __future__ import annotations

from .graph import Graph, _GNode
from .html import escape, one_line, plural

__all__ = ["ir_graph", "mimebundle", "FOLD_ABOVE"]

DEFAULT_MAX_NODES = 300
FOLD_ABOVE = 24


def ir_graph(graph, max_nodes=DEFAULT_MAX_NODES, engine="auto", fold=False) -> Graph:
    """The dataflow drawing of a compiled graph; never raises (a failure draws one box saying why).

    ``fold=True`` draws each call of a child Cell of the network as one box.
    """
    try:
        if fold:
            return _folded(graph, engine)
        return _ir_graph(graph, max_nodes, engine)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return Graph("graph", [_GNode("error", [f"ir_graph failed: {type(exc).__name__}: {exc}"], style="mark")],
                     [], engine)


def _ir_graph(graph, max_nodes, engine):
    from ..graph.ir import ConstRef, InputRef, NodeOutput, StateRef, iter_refs

    boxes, edges = [], []
    box_of_input = {}
    for ref in graph.inputs:
        box = _GNode(f"in{ref.index}", [f"input %{ref.name}", str(ref.spec)])
        boxes.append(box)
        box_of_input[ref.index] = box.id
    shown = graph.nodes[:max_nodes]
    box_of_node = {}

    def source_of(ref):
        if isinstance(ref, InputRef):
            return box_of_input.get(ref.index)
        if isinstance(ref, NodeOutput):
            return box_of_node.get(id(ref.node))
        return None

    breaks = list(getattr(graph, "breaks", ()) or ())
    present = {id(n) for n in shown}
    last_box = [None]

    def add_breaks(after):
        for b in [b for b in breaks if b.after is after or (after is None and id(b.after) not in present)]:
            breaks.remove(b)
            bid = f"brk{len(boxes)}"
            boxes.append(_GNode(bid, [f"graph break: {b.reason}", b.location, b.line], last_box[0], BREAK_STYLE))
            if last_box[0] is not None:
                edges.append((last_box[0], bid, "", "dashed"))

    add_breaks(None)
    for node in shown:
        nid = f"n{node.index}"
        lines = [f"%{node.index} {node.op}", _short_scope(node.scope), _spec_text(node.outputs)]
        reads = []
        for ref in node.refs():
            if isinstance(ref, StateRef):
                reads.append(ref.name)
            elif isinstance(ref, ConstRef):
                reads.append(f"$c{ref.index} {ref.spec}")
        if reads:
            lines.append("reads " + ", ".join(dict.fromkeys(reads)))
        flags = [f for f, on in (("recompute", node.recompute is not None), ("random", node.random),
                                 ("changes state", node.effectful)) if on]
        if flags:
            lines.append(" · ".join(flags))
        sources = []
        for ref in node.refs():
            src = source_of(ref)
            if src is not None and src not in [s for s, _ in sources]:
                sources.append((src, str(ref.spec)))
        parent = sources[0][0] if sources else None
        box = _GNode(nid, lines, parent, "mark" if flags else None)
        boxes.append(box)
        box_of_node[id(node)] = nid
        for src, label in sources:
            edges.append((src, nid, one_line(label, 30), "solid"))
        last_box[0] = nid
        add_breaks(node)
    if len(graph.nodes) > len(shown):
        last = box_of_node[id(shown[-1])] if shown else None
        boxes.append(_GNode("more", [f"… {len(graph.nodes) - len(shown)} more nodes not drawn"], last, "more"))
        if last is not None:
            edges.append((last, "more", "", "dashed"))
    else:
        outputs = [source_of(r) for r in iter_refs(graph.output)]
        outputs = [o for o in dict.fromkeys(outputs) if o is not None]
        box = _GNode("out", ["return", one_line(_output_text(graph.output), 60)], outputs[0] if outputs else None)
        boxes.append(box)
        for src in outputs:
            edges.append((src, "out", "", "solid"))
    return Graph(f"graph {graph.name}", boxes, edges, engine)


#: Fill and stroke of a graph-break box (the place the trace read a Tensor's value).
BREAK_STYLE = ("#fde8e8", "#c0392b")


def breaks_html(graph):
    """An HTML list of the graph's breaks (file:line and source, escaped), or '' if it has none."""
    breaks = list(getattr(graph, "breaks", ()) or ())
    if not breaks:
        return ""
    items = "".join(f"<li><code>{escape(b.location)}</code> &mdash; {escape(b.reason)}"
                    + (f": <code>{escape(b.line)}</code>" if b.line else "") + "</li>" for b in breaks)
    return (f'<div style="border-left:4px solid {BREAK_STYLE[1]};background:{BREAK_STYLE[0]};padding:4px 8px;'
            f'margin:4px 0"><b>{len(breaks)} graph break(s)</b>: Python read a Tensor\'s value here; the graph '
            f"runs guarded on it (see cellkit.graph.fallback)<ul style=\"margin:2px 0\">{items}</ul></div>")


def _segments(scope):
    return scope.split("/")[1:] if scope.startswith("Default") else scope.split("/")


def _folded(graph, engine):
    """One box per call of a child of the network (runs of IR nodes in its scope), the root's ops alone."""
    from ..graph.ir import InputRef, NodeOutput, iter_refs
    from .graph_html import Box

    groups = []          # [key, [nodes], child segment] in order
    seen_children = set()
    previous_child = None
    for node in graph.nodes:
        segs = _segments(node.scope)
        if not segs:
            groups.append([f"n{node.index}", [node], None])
            previous_child, seen_children = None, set()
            continue
        child = segs[1] if len(segs) > 1 else ""
        current = groups[-1] if groups and groups[-1][2] == segs[0] else None
        # a new call of the same Cell: it revisits a child the run already left
        if current is not None and child and child in seen_children and child != previous_child:
            current = None
        if current is None:
            groups.append([f"g{len(groups)}", [node], segs[0]])
            seen_children = set()
        else:
            current[1].append(node)
        if child:
            seen_children.add(child)
        previous_child = child
    box_of_node, box_of_input, nodes, edges = {}, {}, [], []
    root = Box([f"graph {graph.name}: {len(graph.nodes)} ops, folded per Cell"], arrows=True)
    for ref in graph.inputs:
        key = f"in{ref.index}"
        box_of_input[ref.index] = key
        nodes.append(_GNode(key, [f"input %{ref.name}", str(ref.spec)]))
        root.children.append(Box([f"input %{ref.name}", str(ref.spec)], tone="more"))
    titles = {}
    for key, members, segment in groups:
        for node in members:
            box_of_node[id(node)] = key
        last = members[-1]
        if segment is None:
            lines = [f"%{last.index} {last.op}", _spec_text(last.outputs)]
        else:
            name, _, cls = segment.rpartition("-")
            counts = {}
            for node in members:
                counts[node.op] = counts.get(node.op, 0) + 1
            top = ", ".join(f"{op} ×{n}" if n > 1 else op for op, n in sorted(counts.items(), key=lambda kv: -kv[1])[:4])
            lines = [f"{name}: {cls}" if name else cls, f"{plural(len(members), 'op')} · {top}" + (" …" if len(counts) > 4 else ""),
                     f"→ {_spec_text(last.outputs)}"]
        titles[key] = lines[0]
        nodes.append(_GNode(key, lines, None, None if segment is None else "mark"))
        box = Box(lines, tone=None if segment is None else "mark", key=key)
        sources = []
        for node in members:
            for ref in node.refs():
                src = box_of_input.get(ref.index) if isinstance(ref, InputRef) else (
                    box_of_node.get(id(ref.node)) if isinstance(ref, NodeOutput) else None)
                if src is not None and src != key and src not in sources:
                    sources.append(src)
        for src in sources:
            edges.append((src, key, "", "solid"))
        previous = root.children[-1].key if root.children else None
        box.inputs = [titles.get(src, src) for src in sources if src != previous and not src.startswith("in")]
        root.children.append(box)
    outputs = [box_of_node.get(id(r.node)) for r in iter_refs(graph.output) if isinstance(r, NodeOutput)]
    nodes.append(_GNode("out", ["return", one_line(_output_text(graph.output), 60)]))
    for src in dict.fromkeys(o for o in outputs if o is not None):
        edges.append((src, "out", "", "solid"))
    root.children.append(Box(["return", one_line(_output_text(graph.output), 60)], tone="more"))
    for i, n in enumerate(nodes[1:], 1):  # the layered layout draws a chain: each box under the one before
        n.parent = nodes[i - 1].id
    return Graph(f"graph {graph.name}", nodes, edges, engine, box=root,
                 caption=f"graph {graph.name}: {len(graph.nodes)} ops; each call of a child Cell is one box")


def _short_scope(scope):
    # The path below the root ("fc1-Dense", "block-Block/fc-Dense"); not split further, since a class
    # name may itself contain "/".
    return scope[len("Default/"):] if scope.startswith("Default/") else scope


def _spec_text(value):
    from ..graph.ir import TensorSpec

    if isinstance(value, TensorSpec):
        return str(value)
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_spec_text(v) for v in value) + ")"
    return type(value).__name__


def _output_text(value):
    from ..graph.ir import Ref

    if isinstance(value, Ref):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_output_text(v) for v in value) + ")"
    return type(value).__name__


def mimebundle(graph, include=None, exclude=None):
    """The notebook forms of a compiled graph: SVG drawing, HTML (drawing and listing), plain listing."""
    try:
        listing = graph.text()
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        listing = f"<graph: no listing ({type(exc).__name__}: {exc})>"
    nodes = getattr(graph, "nodes", None)
    drawing = ir_graph(graph, fold=isinstance(nodes, list) and len(nodes) > FOLD_ABOVE)
    svg = drawing.svg()
    bundle = {"text/plain": listing}
    if svg is not None:
        bundle["image/svg+xml"] = svg
    try:
        picture = str(drawing.html())
    except Exception as exc:  # noqa: BLE001
        picture = f"<pre>{escape(drawing.source)}</pre><div>({escape(type(exc).__name__)})</div>"
    bundle["text/html"] = (f'<div style="max-width:100%;text-align:left">{breaks_html(graph)}{picture}'
                           f"<details><summary>IR listing</summary><pre>{escape(listing)}</pre></details></div>")
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle
