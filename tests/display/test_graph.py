"""cell_graph / trace_graph: DOT structure, escaping, the pure-Python SVG fallback, never raising."""
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn
from cellkit.display import graph as graph_mod

from html_probe import assert_safe

SVG = "{http://www.w3.org/2000/svg}"
NASTY = '<script>alert("x")</script> \\ {a|b} "q"'


def _net():
    net = nn.SequentialCell(nn.Dense(3, 4), nn.SequentialCell(nn.ReLU(), nn.Dense(4, 2)), nn.Dense(2, 2))
    return net


def _boxes(svg):
    root = ET.fromstring(svg)
    return root, root.findall(f".//{SVG}rect[@class='box']")


def _node_lines(source):
    return [l for l in source.splitlines() if re.match(r'\s+"[^"]*" \[label=', l)]


def _edge_lines(source, visible=True):
    lines = [l for l in source.splitlines() if " -> " in l]
    return [l for l in lines if "style=invis" not in l] if visible else lines


def test_cell_graph_dot_matches_tree():
    net = _net()
    g = display.cell_graph(net)
    n_cells = len(list(net.cells_and_names()))
    assert len(g.nodes) == n_cells == len(_node_lines(g.source))
    assert len(_edge_lines(g.source)) == n_cells - 1
    assert g.source.startswith('digraph "cells" {') and g.source.rstrip().endswith("}")
    assert g.dot() == g.source == str(g)
    first = g.nodes[0].lines
    assert first == ["SequentialCell", "32 elements"]  # 16 + 10 + 6 (the tree's word and number)
    assert g.nodes[1].lines[0] == "0: Dense"


def test_cell_graph_marks_and_shared_cells():
    shared = nn.Dense(2, 2)
    net = nn.SequentialCell(shared, shared)
    g = display.cell_graph(net)
    assert len(g.nodes) == 2  # the shared Dense is drawn once
    assert len(_edge_lines(g.source)) == 2 and "style=dashed" in g.source
    assert g.nodes[0].lines[1] == "6 elements"  # shared Parameters counted once
    dense = nn.Dense(2, 2)
    dense.register_forward_hook(lambda c, i, o: None)
    dense.recompute()
    lines = display.cell_graph(dense).nodes[0].lines
    assert "forward hook ×1" in lines[-1] and "recompute" in lines[-1]


def test_escaping_in_dot_and_svg():
    net = nn.SequentialCell(nn.ReLU())
    net._cells[NASTY] = type(NASTY, (nn.ReLU,), {})()
    g = display.cell_graph(net)
    line = _node_lines(g.source)[-1]
    # in DOT: every quote and backslash inside the label is escaped
    label = line.split("[label=", 1)[1]
    assert re.fullmatch(r'"(?:[^"\\]|\\.)*"\];', label), label
    assert '\\"x\\"' in line and "\\\\ " in line
    svg = g.svg(engine="fallback")
    assert "<script" not in svg and "&lt;script&gt;" in svg
    root, boxes = _boxes(svg)  # parses as XML
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert any(NASTY in t for t in texts)


def test_fallback_svg_one_box_per_cell_and_no_overlap():
    net = nn.SequentialCell(*[nn.SequentialCell(nn.Dense(2, 2 + k), nn.ReLU()) for k in range(4)])  # no repeats
    g = display.cell_graph(net, engine="fallback")
    svg = g.svg()
    assert g.renderer == "fallback"
    root, boxes = _boxes(svg)
    assert len(boxes) == len(list(net.cells_and_names()))
    assert len(root.findall(f".//{SVG}line")) == len(g.edges)
    rects = [tuple(float(b.get(k)) for k in ("x", "y", "width", "height")) for b in boxes]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            overlap = a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
            assert not overlap, (a, b)
    assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_mimebundle_keys_and_missing_dot(monkeypatch):
    g = display.cell_graph(_net())
    bundle = g._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/html", "text/plain"}
    assert bundle["text/plain"] == g.text() and bundle["text/plain"].startswith("SequentialCell · 32 elements")
    assert len(bundle["text/plain"].splitlines()) == 6  # an outline, not 150 lines of DOT
    ET.fromstring(bundle["image/svg+xml"])
    assert g._repr_mimebundle_(include={"text/plain"}).keys() == {"text/plain"}


def test_graphviz_path_and_executable_not_found(monkeypatch):
    graphviz = pytest.importorskip("graphviz")
    g = display.cell_graph(_net())

    def missing(self, *a, **k):
        raise graphviz.ExecutableNotFound(["dot"])

    monkeypatch.setattr(graphviz.Source, "pipe", missing)
    svg = g.svg()
    assert g.renderer == "fallback" and "dot program was not found" in g.note
    assert "dot program was not found" in svg
    monkeypatch.setattr(graphviz.Source, "pipe", lambda self, *a, **k: "<svg>from dot</svg>")
    assert g.svg() == "<svg>from dot</svg>" and g.renderer == "graphviz"
    assert g.svg(engine="fallback") != "<svg>from dot</svg>"


def test_graphviz_package_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz -> ImportError
    g = display.cell_graph(_net())
    bundle = g._repr_mimebundle_()
    assert "image/svg+xml" in bundle and g.renderer == "fallback"
    assert "not installed" in g.note


def test_everything_fails_gives_dot_with_note(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)

    def broken(*a, **k):
        raise RuntimeError("layout broke")

    monkeypatch.setattr(graph_mod, "layered_svg", broken)
    g = display.cell_graph(_net())
    bundle = g._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}  # no drawing, but the boxes and the note
    assert "layout broke" in bundle["text/html"] and "0: Dense" in bundle["text/plain"]


def test_broken_inputs_never_raise():
    for g in (display.cell_graph(object()), display.trace_graph(object()), display.trace_graph({"events": []}),
              display.cell_graph(nn.Dense(2, 2), max_nodes=0)):
        b = g._repr_mimebundle_()
        assert "text/plain" in b


def test_max_nodes_counts_what_is_left_out():
    net = nn.SequentialCell(*[nn.Dense(1, k + 1) for k in range(10)])  # ten different cells
    g = display.cell_graph(net, max_nodes=4)
    assert len(g.nodes) == 5 and "7 more cells" in g.nodes[-1].lines[0]


def test_cell_graph_folds_repeated_blocks_and_fits():
    from models import ResNet

    same = nn.SequentialCell(*[nn.ReLU() for _ in range(10)])
    g = display.cell_graph(same)
    assert [n.lines[0] for n in g.nodes] == ["SequentialCell", "0–9: ReLU × 10"]
    resnet = display.cell_graph(ResNet())
    html = resnet.html()
    root = assert_safe(html, images=True)
    assert "layer1: SequentialCell" in root.text() and "0–1: BasicBlock × 2" in root.text()
    outer = root.find_all("div")[0]
    assert "max-width:100%" in outer.style()
    boxes = [d for d in root.iter("div") if "display:inline-block" in d.style()]
    assert boxes and all("max-width:100%" in b.style() for b in boxes)
    (image,) = root.find_all("img")  # the drawing, at full size, in a closed details in a scroll box
    assert image.parent.style().startswith("overflow-x:auto") and image.parent.parent.tag == "details"
    assert "open" not in image.parent.parent.attrs


def _traced():
    net = nn.SequentialCell(nn.Dense(3, 4), nn.SequentialCell(nn.ReLU(), nn.Dense(4, 2)))
    with ms.trace(net) as tr:
        net(ms.Tensor(np.ones((5, 3), np.float32)))
    return tr


def test_trace_graph_calls_in_order_with_shapes():
    tr = _traced()
    g = display.trace_graph(tr)
    assert [n.lines[0] for n in g.nodes] == ["SequentialCell", "0: Dense", "1: SequentialCell", "0: ReLU",
                                             "1: Dense"]
    forward = [e for e in g.edges if e[3] == "forward"]
    assert [(e[2]) for e in forward] == ["(5, 4)", "(5, 4)"]
    assert len(_node_lines(g.source)) == 5
    assert "out (5, 2)" in g.nodes[0].lines
    # the same from the exported data
    assert display.trace_graph(tr.to_dict()).source == g.source
    root, boxes = _boxes(g.svg(engine="fallback"))
    assert len(boxes) == 5


def test_trace_graph_escapes_class_names():
    cls = type(NASTY, (nn.ReLU,), {})
    net = nn.SequentialCell(cls())
    with ms.trace(net) as tr:
        net(ms.Tensor(np.ones((2,), np.float32)))
    g = display.trace_graph(tr)
    svg = g.svg(engine="fallback")
    ET.fromstring(svg)
    assert "<script" not in svg and '\\"x\\"' in g.source


def test_public_api():
    assert display.cell_graph is graph_mod.cell_graph and display.trace_graph is graph_mod.trace_graph


def test_dataflow_shows_residual_adds_between_the_layers_of_a_block():
    from models import ResNet, resnet_input

    net = ResNet()
    g = display.dataflow(net, resnet_input())
    text = g.text().splitlines()
    block = next(i for i, line in enumerate(text) if line.strip() == "0: BasicBlock · → [2, 4, 16, 16] · 147k MACs")
    inside = [line.strip() for line in text[block + 1:block + 8]]
    assert inside[0].startswith("conv1: Conv2d") and inside[4].startswith("→ bn2: BatchNorm2d")
    assert inside[5] == "→ add · → [2, 4, 16, 16]  ← input of layer1.0"  # the skip connection
    downsampled = [line.strip() for line in text if "← downsample: SequentialCell" in line]
    assert len(downsampled) == 3 and downsampled[0] == "→ add · → [2, 8, 8, 8]  ← downsample: SequentialCell"
    html = g.html()
    root = assert_safe(html, images=True)
    adds = [d for d in root.iter("div") if d.text().startswith("add→ [2, 4, 16, 16]")]
    assert adds and "background-color:#1d5fa8" in adds[0].style()  # an accent box: an op in a block's own code
    assert "← input of layer1.0" in adds[0].text()


def test_dataflow_folds_per_cell_and_counts_what_is_inside():
    from models import GPT, gpt_tokens

    g = display.dataflow(GPT(n_blocks=2), gpt_tokens(), depth=1)
    lines = g.text().splitlines()
    assert lines[0].startswith("GPT · [2, 8] → [2, 8, 64]")
    block = next(line.strip() for line in lines if line.strip().startswith("→ 0: GPTBlock"))
    assert "folded: 9 calls" in block and "53.2k MACs" in block
    assert not any("matmul" in line for line in lines)
    deeper = display.dataflow(GPT(n_blocks=1), gpt_tokens(), depth=3).text()
    assert "→ matmul · → [2, 8, 8] · 2.05k MACs  ← split" in deeper  # the attention's own product
    assert "→ add · → [2, 8, 8]  ← a constant" in deeper               # the causal mask


def test_graph_mode_ir_of_a_small_gpt_folds_per_cell_with_readable_boxes():
    from models import GPT, gpt_tokens

    graph = ms.graph.build_graph(GPT(n_blocks=2), gpt_tokens())
    assert len(graph.nodes) > 24
    bundle = graph._repr_mimebundle_()
    root = assert_safe(bundle["text/html"].replace("<pre>", "<div>").replace("</pre>", "</div>"), images=True)
    text = root.text()
    assert text.count("gptblock: GPTBlock") == 2 and "16 ops · dense ×4" in text
    svg = bundle["image/svg+xml"]
    width = float(ET.fromstring(svg).get("width"))
    assert width < 800  # a dozen boxes, drawn at full size: the text is 11 px, not scaled to 3
    (image,) = root.find_all("img")
    assert image.parent.style().startswith("overflow-x:auto")


def test_graph_svg_has_no_white_board_and_inline_form_follows_the_theme():
    g = display.cell_graph(_net(), engine="fallback")
    root = ET.fromstring(g.svg())
    width = root.get("width")
    assert not [r for r in root.iter(f"{SVG}rect") if r.get("width") == width]  # no page-sized background
    labels = [t for t in root.iter(f"{SVG}text") if t.get("class") == "note"]
    assert all(t.get("stroke") == "#ffffff" for t in labels)
    themed = graph_mod.layered_svg(g.nodes, g.edges, theme=True)
    assert "fill:var(--jp-layout-color2,#f4f6fa)" in themed and "fill:var(--jp-content-font-color1,#1f2937)" in themed
