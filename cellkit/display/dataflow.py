"""The dataflow of one call of a network, folded per Cell: which call fed which, and the adds between them.

:func:`dataflow` runs the network once on an example input
(:func:`cellkit.display.shapes.measure`: nothing in the network changes) and
draws what happened: one box per Cell call, inside its parent's box, in the
order they ran, with the output shape and multiply-adds; the ops a Cell runs
in its own ``construct`` -- the residual ``add`` of a ResNet block, an
attention's products -- are boxes of their own between its children.  Each
box says where its inputs come from when that is not the box just before it
(``← input of layer1.0`` on a block's add: the skip connection).  Calls
deeper than ``depth`` are folded into their parent's box, which counts what
it holds.  The result is a :class:`~cellkit.display.graph.Graph`: HTML boxes
that fit the output, an SVG drawing, DOT.

>>> import cellkit as ms
>>> from cellkit import nn, ops
>>> class Residual(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.fc = nn.Dense(4, 4)
...     def construct(self, x):
...         return self.fc(x) + x
>>> g = dataflow(Residual(), ms.ops.ones((2, 4)))
>>> print(g.text())
Residual · [2, 4] → [2, 4] · 32 MACs
  fc: Dense · → [2, 4] · 32 MACs
  → add · → [2, 4]  ← input of Residual
"""
from __future__ import annotations

from .graph import Graph, _GNode
from .graph_html import Box
from .html import plural

__all__ = ["dataflow"]

MAX_ITEMS = 150


def _short(n):
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(int(n))


def _shape(described):
    shapes = [s for _, s in described if isinstance(s, list)]
    if not shapes:
        return "()"
    text = ", ".join("[" + ", ".join(str(d) for d in s) + "]" for s in shapes[:3])
    return text if len(shapes) == 1 else f"({text}{', …' if len(shapes) > 3 else ''})"


def _auto_depth(calls, ops):
    """The deepest fold level that draws at most MAX_ITEMS boxes."""
    deepest = max((c.depth for c in calls), default=0)
    chosen = 0
    for depth in range(deepest + 1):
        items = sum(1 for c in calls if c.depth <= depth) + sum(
            1 for op in ops if op.call is not None and calls[op.call].depth < depth)
        if items <= MAX_ITEMS:
            chosen = depth
        else:
            break
    return chosen


def dataflow(net, *example, depth=None, engine="auto"):
    """The dataflow drawing of ``net(*example)``, folded at ``depth`` (default: as deep as stays readable).

    Never raises: a failed run draws one box saying why.
    """
    from .shapes import measure

    try:
        shapes, note = measure(net, *example)
        return _build(net, shapes, note, depth, engine)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return Graph("dataflow", [_GNode("error", [f"dataflow failed: {type(exc).__name__}: {exc}"], style="mark")],
                     [], engine)


def _build(net, shapes, note, depth, engine):
    calls, ops = shapes.calls, shapes.ops
    if not calls:
        return Graph("dataflow", [_GNode("empty", [note or "nothing ran"], style="more")], [], engine)
    depth = _auto_depth(calls, ops) if depth is None else max(0, int(depth))

    def shown_call(index):
        """The call drawn for a call (itself, or its ancestor at the fold depth)."""
        call = calls[index]
        while call.depth > depth:
            call = calls[call.parent]
        return call

    # every drawn item, in the order it began: ("call", CellCall) or ("op", OpCall).  Ops are drawn where a
    # Cell with children runs them in its own construct; a layer's own ops are what the layer is.
    has_children = {c.parent for c in calls if c.parent is not None}
    ops = [op for op in ops if op.outputs]  # ops on raw arrays (helpers) made no Tensor: nothing to draw
    items = [("call", c) for c in calls if c.depth <= depth]
    items += [("op", op) for op in ops if op.call is not None and calls[op.call].depth < depth
              and op.call in has_children]
    items += [("op", op) for op in ops if op.call is None]
    items.sort(key=lambda item: item[1].seq)
    key_of = {}
    for kind, obj in items:
        key_of[(kind, id(obj))] = f"{kind[0]}{len(key_of)}"
    producer = {}   # array id -> (item key, title)
    titles = {}
    for kind, obj in items:
        key = key_of[(kind, id(obj))]
        if kind == "call":
            name = obj.path.rsplit(".", 1)[-1] if obj.path else ""
            titles[key] = (f"{name}: {obj.cls}" if name else obj.cls)
        else:
            titles[key] = obj.name
    # which drawn item made each array: an op's own box, or the folded call holding the op
    for op in ops:
        key = key_of.get(("op", id(op)))
        if key is None:
            key = key_of[("call", id(shown_call(op.call)))]
        for array, _ in op.outputs:
            producer[array] = key
    for c in calls:  # arrays a Cell made without a recorded op (a layer computing on raw arrays)
        for array, _ in c.outputs or ():
            if array is not None and array not in producer:
                producer[array] = key_of[("call", id(shown_call(c.index)))]
    boxes, nodes, edges, raw, parent_key = {}, [], [], {}, {}
    for kind, obj in items:
        key = key_of[(kind, id(obj))]
        if kind == "call":
            macs = shapes.macs_below(obj.path) if shapes.count.get(obj.path, 1) == 1 else 0
            lines = [titles[key], f"→ {_shape(obj.outputs or [])}" if obj.parent is not None else
                     f"{_shape(obj.inputs)} → {_shape(obj.outputs or [])}"]
            if macs:
                lines.append(f"{_short(macs)} MACs")
            if obj.depth == depth:
                inner = sum(1 for c in calls if c.depth > depth and _under(calls, c, obj.index))
                if inner:  # a layer's own ops are what the layer is: only folded calls are worth a line
                    inner_ops = sum(1 for op in ops if op.call is not None and _under(calls, calls[op.call],
                                                                                      obj.index, inclusive=True))
                    lines.append(f"folded: {plural(inner, 'call')}, {plural(inner_ops, 'op')}")
            box = Box(lines, arrows=True, key=key)
            parent = None if obj.parent is None else key_of.get(("call", id(calls[obj.parent])))
        else:
            lines = [obj.name, f"→ {_shape(obj.outputs)}"]
            if obj.macs:
                lines.append(f"{_short(obj.macs)} MACs")
            box = Box(lines, tone="accent" if obj.name in ("add", "mul", "concat", "cat") else None, key=key)
            parent = None if obj.call is None else key_of.get(("call", id(calls[obj.call])))
        boxes[key] = box
        parent_key[key] = parent
        found = []
        for array, _ in obj.inputs:
            if array is None or array in shapes.params:
                continue
            source = producer.get(array)
            if source is None:
                found.append((None, array))  # made outside every op: an input, or a constant
            elif source != key:
                found.append((source, titles[source]))
        raw[key] = list(dict.fromkeys(found))
        nodes.append(_GNode(key, lines, parent, "mark" if box.tone == "accent" else None))
        if parent is not None:
            edges.append((parent, key, "", "dashed"))
    # siblings in order: an input from the box just before needs no "←" (the arrow says it), nor does the
    # first box's input when it is what its container received
    root = None
    children = {}
    for kind, obj in items:
        key = key_of[(kind, id(obj))]
        parent = parent_key[key]
        if parent is None:
            if root is None:
                root = boxes[key]
            else:
                root.children.append(boxes[key])
        else:
            children.setdefault(parent, []).append(key)
    def lift(src, container):
        """The child of ``container`` that holds the item ``src`` (None when ``src`` lies outside it)."""
        while src is not None and parent_key.get(src) != container:
            src = parent_key.get(src)
        return src

    names = {key_of[(kind, id(obj))]: (obj.path or obj.cls) for kind, obj in items if kind == "call"}
    received = {key_of[(kind, id(obj))]: {a for a, _ in obj.inputs if a is not None}
                for kind, obj in items if kind == "call"}
    for parent, keys in children.items():
        boxes[parent].children = [boxes[k] for k in keys]
        outside = f"input of {names[parent]}"
        previous = None
        for k in keys:
            shown = []
            for src, label in raw[k]:
                lifted = lift(src, parent) if src is not None else None
                if lifted is not None:
                    edges.append((lifted, k, "", "forward"))
                    if lifted == previous:
                        continue  # the arrow from the box before says it
                    shown.append(titles[lifted])
                elif src is None and label not in received[parent] and label not in producer:
                    shown.append("a constant")  # made in construct from Python data (a mask, positions)
                elif previous is not None:
                    shown.append(outside)  # what the container received: a skip connection
            boxes[k].inputs = list(dict.fromkeys(shown))
            previous = k
    caption = (f"dataflow of {calls[0].cls} on {_shape(calls[0].inputs)}: calls deeper than depth {depth} folded"
               + (f" ({note})" if note else ""))
    return Graph("dataflow", nodes, edges, engine, box=root, caption=caption)


def _under(calls, call, ancestor, inclusive=False):
    """Whether ``call`` runs inside the call ``ancestor`` (``inclusive``: or is it)."""
    node = call
    if inclusive and node.index == ancestor:
        return True
    while node.parent is not None:
        node = calls[node.parent]
        if node.index == ancestor:
            return True
    return False
