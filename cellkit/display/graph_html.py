"""The HTML form of every graph drawing: nested boxes that fit the output, with no SVG.

An SVG drawing of a 71-cell ResNet is thousands of pixels wide, an untrusted
notebook (and GitHub) will not show it, and scaled down its text is
unreadable.  So each :class:`~cellkit.display.graph.Graph` also has this
form: one box per node, a node's children *inside* it (folded per Cell, as
torchview folds modules), sibling boxes side by side in the order they run
and wrapping onto the next line when the output is narrow, ``→`` between a
box and the next one it feeds, and ``←`` lines in a box for inputs that do
not come from the box just before it (a residual add lists the block input
it adds back).  Boxes deeper than ``max_depth`` are folded into their
parent, which says how many it holds.  Text is never scaled; the boxes carry
their own colours (fixed pairs that read in both themes).

>>> root = Box(["Net", "8 elements"], children=[Box(["0: Dense"]), Box(["1: ReLU"]), Box(["add"], inputs=["x"])],
...            arrows=True)
>>> "→" in render(root) and "0: Dense" in render(root)
True
>>> print(text_outline(root))
Net · 8 elements
  0: Dense
  → 1: ReLU
  → add  ← x
"""
from __future__ import annotations

from .html import MONO, MUTED, SANS, TONES, el, line, plural

__all__ = ["Box", "render", "text_outline", "boxes_from_graph", "MAX_DEPTH"]

MAX_DEPTH = 4
MAX_BOXES = 400
# Box fills by style (fixed, light: their text is the page-independent dark below).
_FILLS = {None: ("rgba(128,128,128,0.07)", None), "mark": ("#fff4e0", "#3d2a00"), "more": ("transparent", None)}
_TEXT_ON_FILL = "#1f2328"


class Box:
    """One node of the HTML form: label lines (the first is the title), children, inputs from elsewhere."""

    __slots__ = ("lines", "children", "inputs", "tone", "arrows", "folded", "key")

    def __init__(self, lines, children=None, inputs=None, tone=None, arrows=False, folded=0, key=None):
        self.lines = [str(x) for x in lines if x]
        self.children = list(children or [])
        self.inputs = list(inputs or [])     # names of boxes this one reads from other than the one before it
        self.tone = tone                     # None, 'mark' (hooks / recompute ...), 'more', or a TONES name
        self.arrows = arrows                 # children run in sequence: draw → between them
        self.folded = folded                 # boxes below this one that are not drawn
        self.key = key


def _style(box, depth):
    fill, text = _FILLS.get(box.tone, (None, None))
    if box.tone in TONES:
        fill, text = TONES[box.tone]
    border = "border:1px dashed rgba(128,128,128,0.6)" if box.tone == "more" else line("border", "line")
    style = (f"display:inline-block;vertical-align:top;{border};border-radius:5px;padding:2px 6px;"
             f"margin:2px 2px 2px 0;max-width:100%;box-sizing:border-box;text-align:left;white-space:normal")
    if fill:
        style += f";background-color:{fill}"
    if text:
        style += f";color:{text}"
    return style


def _box_html(box, depth, max_depth, budget):
    budget[0] -= 1
    title, *rest = box.lines or ["?"]
    parts = [el("div", el("b", title), style="word-break:break-word")]
    if rest:
        parts.append(el("div", [el("div", text) for text in rest],
                        style=f"{MONO};font-size:0.88em;{'' if box.tone in TONES or box.tone == 'mark' else MUTED};"
                              "word-break:break-word"))
    for source in box.inputs:
        parts.append(el("div", f"← {source}", style=f"{MONO};font-size:0.88em;word-break:break-word"))
    folded = box.folded
    if box.children and (depth >= max_depth or budget[0] <= 0):
        folded += _count(box.children)
    elif box.children:
        inner = []
        for i, child in enumerate(box.children):
            if budget[0] <= 0:
                folded += _count(box.children[i:])
                break
            if box.arrows and i:
                inner.append(el("span", "→", style="display:inline-block;vertical-align:top;margin:6px 2px 0 0"))
            inner.append(_box_html(child, depth + 1, max_depth, budget))
        parts.append(el("div", inner, style="white-space:normal;margin-top:2px"))
    if folded:
        parts.append(el("div", f"+{plural(folded, 'box', 'boxes')} folded inside", style=f"font-size:0.85em;{MUTED}"))
    return el("div", parts, style=_style(box, depth))


def _count(boxes):
    total, stack = 0, list(boxes)
    while stack:
        b = stack.pop()
        total += 1 + b.folded
        stack.extend(b.children)
    return total


def render(root, max_depth=MAX_DEPTH, note=None, title=None):
    """The HTML of a box tree (``root`` is drawn, its descendants down to ``max_depth``)."""
    budget = [MAX_BOXES]
    parts = []
    if title:
        parts.append(el("div", title, style=f"{MUTED};margin-bottom:2px"))
    parts.append(_box_html(root, 0, max_depth, budget))
    if note:
        parts.append(el("div", note, style=f"font-size:0.85em;{MUTED};margin-top:2px"))
    return el("div", parts, style=f"{SANS};font-size:12px;line-height:1.35;max-width:100%;text-align:left")


def text_outline(root, max_depth=MAX_DEPTH):
    """The text twin: one line per box, indented; ``→`` where a box follows the one it reads."""
    lines = []

    def walk(box, depth, arrow):
        head = ("→ " if arrow else "") + " · ".join(box.lines)
        if box.inputs:
            head += "  ← " + ", ".join(box.inputs)
        lines.append("  " * depth + head)
        if box.children and depth < max_depth:
            for i, child in enumerate(box.children):
                walk(child, depth + 1, box.arrows and i > 0)
        elif box.children:
            lines.append("  " * (depth + 1) + f"(+{plural(_count(box.children), 'box', 'boxes')} folded)")

    walk(root, 0, False)
    return "\n".join(lines)


def boxes_from_graph(nodes, edges):
    """A box tree from a :class:`~cellkit.display.graph.Graph`'s nodes (nested by ``parent``) and edges."""
    boxes = {}
    for n in nodes:
        style = n.style if isinstance(n.style, str) else ("mark" if n.style else None)
        boxes[n.id] = Box(n.lines, tone=style, key=n.id)
    roots = []
    for n in nodes:
        parent = boxes.get(n.parent) if n.parent is not None else None
        (parent.children if parent is not None else roots).append(boxes[n.id])
    titles = {n.id: (n.lines[0] if n.lines else n.id) for n in nodes}
    parent_of = {n.id: n.parent for n in nodes}
    for src, dst, label, style in edges:
        if dst in boxes and parent_of.get(dst) != src and src in titles:
            boxes[dst].inputs.append(titles[src] + (f" ({label})" if label else ""))
    if len(roots) == 1:
        return roots[0]
    return Box(["graph"], children=roots)
