"""Drawing the IR: SVG boxes per node with escaped labels, HTML with the listing, never raising."""
import xml.etree.ElementTree as ET

import cellkit as ms
from cellkit import nn, ops
from cellkit.display import graph_ir

from tests.graph.graph_models import Block, f32, mlp

SVG = "{http://www.w3.org/2000/svg}"


def svg_texts(svg):
    root = ET.fromstring(svg)
    return [t.text for t in root.iter(f"{SVG}text") if t.text]


def test_graph_ir_draws_one_box_per_node_with_its_op_scope_and_shape():
    graph = ms.graph.build_graph(Block().set_train(), f32(5, 4))
    drawing = graph_ir.ir_graph(graph)
    firsts = [n.lines[0] for n in drawing.nodes]
    assert firsts == ["input %x", "%0 dense", "%1 batch_norm", "%2 relu", "%3 dropout", "%4 dense", "%5 add",
                      "return"]
    texts = svg_texts(drawing.svg(engine="fallback"))
    for expected in ("%0 dense", "fc1-Dense", "Float32[5, 8]", "reads fc1.weight, fc1.bias", "random",
                     "changes state", "return"):
        assert any(expected in t for t in texts), expected
    assert ("n0", "n1", "Float32[5, 8]", "solid") in drawing.edges


def test_graph_ir_dot_source_has_every_node_and_edge():
    drawing = graph_ir.ir_graph(ms.graph.build_graph(mlp(), f32(1, 4)))
    source = drawing.source
    assert source.startswith('digraph "graph SequentialCell"')
    assert source.count("->") == len(drawing.edges) and '"n2" -> "out"' in source


def test_graph_ir_mimebundle_has_svg_html_listing_and_parses():
    graph = ms.graph.build_graph(mlp(), f32(1, 4))
    bundle = graph._repr_mimebundle_()
    assert sorted(bundle) == ["image/svg+xml", "text/html", "text/plain"]
    assert bundle["text/plain"] == graph.text()
    ET.fromstring(bundle["image/svg+xml"])
    assert "<details><summary>IR listing</summary><pre>graph SequentialCell" in bundle["text/html"]
    assert list(graph._repr_mimebundle_(include=["text/plain"])) == ["text/plain"]


def test_graph_ir_escapes_user_strings():
    Nasty = type('Cell<script>alert("x")</script>&', (nn.Cell,), {"construct": lambda self, x: ops.relu(x)})
    outer = nn.SequentialCell(Nasty())
    graph = ms.graph.build_graph(outer, f32(2))
    bundle = graph._repr_mimebundle_()
    assert "<script>" not in bundle["text/html"] and "<script>" not in bundle["image/svg+xml"]
    texts = svg_texts(graph_ir.ir_graph(graph).svg(engine="fallback"))
    assert any('Cell<script>alert("x")</script>&' in t for t in texts)  # shown, as text


def test_graph_ir_draws_at_most_max_nodes():
    net = nn.SequentialCell([nn.Dense(2, 2) for _ in range(6)])
    drawing = graph_ir.ir_graph(ms.graph.build_graph(net, f32(1, 2)), max_nodes=3)
    assert [n.lines[0] for n in drawing.nodes][-1] == "… 3 more nodes not drawn"


def test_graph_ir_never_raises():
    class Broken:
        name = "broken"
        inputs = None

    drawing = graph_ir.ir_graph(Broken())
    assert drawing.nodes[0].lines[0].startswith("ir_graph failed")
    bundle = graph_ir.mimebundle(Broken())
    assert "text/plain" in bundle and "text/html" in bundle
