"""Drawing a compiled graph (:class:`cellkit.graph.Graph`): one box per op, edges where values flow.

:func:`ir_graph` turns the IR into a :class:`cellkit.display.graph.Graph`, so
it draws the same way as the cell tree: Graphviz's ``dot`` lays it out when
it is installed, otherwise the built-in layered layout does (each op sits
below the op that produced its first input), and the DOT source is the text
form.  Each box shows the node's number and op, its Cell scope, the output's
dtype and shape, and the Parameters and constants it reads; recomputed,
random and state-changing nodes are marked.  Graph inputs and the returned
value are boxes too.  Every string from the model is escaped.

:func:`mimebundle` is what ``Graph._repr_mimebundle_`` returns: SVG, an HTML
page holding the SVG and the IR listing, and the listing as plain text.

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
from .html import escape, one_line

__all__ = ["ir_graph", "mimebundle"]

DEFAULT_MAX_NODES = 300


def ir_graph(graph, max_nodes=DEFAULT_MAX_NODES, engine="auto") -> Graph:
    """The dataflow drawing of a compiled graph; never raises (a failure draws one box saying why)."""
    try:
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
    drawing = ir_graph(graph)
    svg = drawing.svg()
    bundle = {"text/plain": listing}
    # The built-in layout writes its note into the SVG itself; say it once.
    shown_in_svg = svg is not None and drawing.renderer == "fallback"
    note = (f'<p style="font-style:italic;color:#6b7280">{escape(drawing.note)}</p>'
            if drawing.note and not shown_in_svg else "")
    if svg is not None:
        bundle["image/svg+xml"] = svg
        picture = f"<div>{svg}</div>"
    else:
        picture = f"<pre>{escape(drawing.source)}</pre>"
    bundle["text/html"] = (f'<div class="cellkit-graph-ir">{note}{picture}'
                           f"<details><summary>IR listing</summary><pre>{escape(listing)}</pre></details></div>")
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle
