"""The cell tree: structure, numbers and marks read back from the HTML (and the text twin)."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn
from cellkit.display import render

from html_probe import assert_safe
from models import Block, Net, fixed_dense


def rows(markup):
    """Every drawn row: (name, class, count text, bytes text, badge texts, row element)."""
    root = assert_safe(markup)
    found = []
    for span in root.iter("span"):
        children = span.child_elements("span")
        if span.style() != "display:block" or not children or not children[0].style().startswith("float:right"):
            continue
        right, left = children
        count, size = right.child_elements("span")
        parts = left.child_elements("span")
        if parts[0].style().startswith("color:"):  # the root row has no attribute name
            name, cls, rest = None, parts[0].text(), parts[1:]
        else:
            name, cls, rest = parts[0].text(), parts[2].text(), parts[3:]
        badges = [p.text() for p in rest if "border-radius:8px" in p.style()]
        found.append({"name": name, "cls": cls, "count": count.text(), "bytes": size.text(), "badges": badges,
                      "element": span})
    return found


def row(markup, name):
    matches = [r for r in rows(markup) if r["name"] == name]
    assert len(matches) == 1, f"{len(matches)} rows named {name!r}"
    return matches[0]


def test_tree_counts_parameters_and_bytes_per_subtree():
    net = Net()
    html = display.cell_tree(net).html()
    top = rows(html)[0]
    assert (top["name"], top["cls"], top["count"], top["bytes"]) == (None, "Net", "8,506", "33.2 KiB")
    assert row(html, "embed")["count"] == "40" and row(html, "embed")["bytes"] == "160 B"
    assert row(html, "head")["count"] == "18" and row(html, "head")["bytes"] == "72 B"
    assert row(html, "blocks")["count"] == f"{24 * 352:,}"
    assert row(html, "mlp")["count"] == "280"  # 8*16+16 + 16*8+8
    assert row(html, "1")["count"] == "–"      # ReLU holds nothing
    assert sum(1 for _ in net.cells_and_names()) == 1 + 1 + 1 + 24 * 6 + 1  # a Block is 6 Cells
    assert len(list(net.get_parameters())) == 2 + 24 * 6 + 2
    assert "148 cells · 148 Parameters · 8,506 elements (33.2 KiB)" in assert_safe(html).text()


def test_tree_folds_identical_blocks_into_one_row():
    net = Net()
    html = display.cell_tree(net).html()
    blocks = row(html, "0–23")
    assert blocks["cls"] == "Block" and "× 24" in blocks["badges"] and blocks["count"] == "8,448"
    # one Block drawn, not 24
    assert len([r for r in rows(html) if r["name"] == "attn"]) == 1
    text = display.cell_tree(net).text()
    assert "0–23: Block × 24" in text and text.count("attn:") == 1


def test_tree_splits_a_run_where_one_block_differs():
    net = Net()
    net.blocks[3].recompute()
    names = [r["name"] for r in rows(display.cell_tree(net).html()) if r["cls"] == "Block"]
    assert names == ["0–2", "3", "4–23"]
    assert "recompute" in row(display.cell_tree(net).html(), "3")["badges"]


def test_tree_without_grouping_draws_every_block():
    html = display.cell_tree(Net(n_blocks=3), group_repeats=False).html()
    assert [r["name"] for r in rows(html) if r["cls"] == "Block"] == ["0", "1", "2"]


class Marked(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = fixed_dense(3, 2, 1)
        self.counter = nn.Buffer(ms.Tensor(np.zeros((4,), np.float32)))

    def construct(self, x):
        return self.dense(x)

    def bprop(self, x, out, dout):
        return (dout,)

    def get_extra_state(self):
        return {"step": 7}

    def set_extra_state(self, state):
        pass


def test_tree_shows_hooks_modes_and_recorded_settings():
    net = nn.SequentialCell(Marked(), fixed_dense(2, 2, 2), fixed_dense(2, 2, 3))
    marked, second, third = net[0], net[1], net[2]
    marked.register_forward_pre_hook(lambda cell, inputs: None)
    marked.register_forward_hook(lambda cell, inputs, output: None)
    marked.register_forward_hook(lambda cell, inputs, output: None)
    marked.register_backward_hook(lambda cell, gi, go: None)
    marked.dense.register_backward_pre_hook(lambda cell, go: None)
    second.recompute()
    second.to_float(ms.float16)
    second.shard(((2, 1),))
    second.offload()
    third.pipeline_stage = 2
    third.add_flags(note="x")
    net.set_train(True)
    third.set_train(False)

    html = display.cell_tree(net).html()
    top = rows(html)[0]
    assert "train" in top["badges"]
    m = row(html, "0")
    assert {"forward_pre hook ×1", "forward hook ×2", "backward hook ×1", "custom bprop",
            "1 buffer · 16 B", "extra state {'step': 7}"} <= set(m["badges"])
    assert "train" not in m["badges"]  # same mode as its parent: not repeated
    assert "backward_pre hook ×1" in row(html, "dense")["badges"]
    s = set(row(html, "1")["badges"])
    assert {"recompute", "to_float Float16", "shard in=((2, 1),)", "offload prefetch=Auto"} <= s
    t = set(row(html, "2")["badges"])
    assert {"pipeline_stage 2", "inference", "flags note='x'"} <= t
    assert "5 hooks" in assert_safe(html).text()
    text = display.cell_tree(net).text()
    assert "[forward hook ×2]" in text and "[to_float Float16]" in text and "[pipeline_stage 2]" in text


def test_tree_collapsible_details_open_for_small_networks_only():
    small = assert_safe(display.cell_tree(Net(n_blocks=2)).html())
    details = small.find_all("details")
    assert details and all("open" in d.attrs for d in details)
    assert all(d.child_elements("summary") for d in details)
    big = assert_safe(display.cell_tree(Net(), open_depth=1).html())
    opened = [d for d in big.find_all("details") if "open" in d.attrs]
    assert len(opened) == 1  # only the root


def test_tree_shared_cell_and_tied_parameter_counted_once():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = fixed_dense(4, 4, 1)
            self.dec = fixed_dense(4, 4, 2)
            self.dec.weight = self.enc.weight  # tied weights
            self.again = self.enc              # the same Cell under a second name

        def construct(self, x):
            return x

    net = Tied()
    html = display.cell_tree(net).html()
    assert rows(html)[0]["count"] == "24"  # 16 (shared weight) + 4 + 4 biases
    ref = [r for r in rows(html) if r["name"] == "again"][0]
    assert "same cell as enc" in ref["element"].text()
    assert "shared parameters counted once" in assert_safe(html).text()
    assert "→ same cell as enc" in display.cell_tree(net).text()


def test_tree_stops_after_max_nodes_and_counts_the_rest():
    net = Net(n_blocks=6)
    for i, block in enumerate(net.blocks):
        block.add_flags(index=i)  # every block differs: nothing folds
    tree = display.cell_tree(net, max_nodes=10)
    drawn = rows(tree.html())
    assert len(drawn) == 10
    total = sum(1 for _ in net.cells_and_names())
    hidden_texts = [e.text() for e in assert_safe(tree.html()).iter("div") if "more cells not shown" in
                    "".join(c for c in e.children if isinstance(c, str))]
    hidden = sum(int(t.split("…")[1].split("more")[0].replace(",", "")) for t in hidden_texts)
    assert len(drawn) + hidden == total
    assert "more cells not shown" in tree.text()


def test_tree_mimebundle_through_the_cell_keeps_mindspore_repr():
    net = nn.SequentialCell(fixed_dense(3, 2, 0), nn.ReLU())
    bundle = net._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert bundle["text/plain"] == display.cell_tree(net).text()
    assert_safe(bundle["text/html"])
    assert repr(net).startswith("SequentialCell<") or repr(net).startswith("SequentialCell(")
    assert "params" not in repr(net)
    assert set(net._repr_mimebundle_(include={"text/plain"})) == {"text/plain"}
    assert set(net._repr_mimebundle_(exclude={"text/html"})) == {"text/plain"}


def test_tree_never_raises_when_extend_repr_fails():
    class Broken(nn.Cell):
        def extend_repr(self):
            raise ValueError("boom")

        def construct(self, x):
            return x

    html = display.cell_tree(nn.SequentialCell(Broken())).html()
    assert any("extend_repr failed: ValueError: boom" in b for b in row(html, "0")["badges"])


def test_tree_display_falls_back_to_text_when_html_fails():
    class HalfBroken(render.Part):
        def text(self):
            return "plain tree"

        def html(self):
            raise RuntimeError("no html today")

    def handler(obj, options):
        return HalfBroken() if isinstance(obj, Block) else NotImplemented

    remove = render.register(handler)
    try:
        bundle = Block()._repr_mimebundle_()
    finally:
        remove()
    assert bundle["text/plain"].startswith("plain tree")
    assert "RuntimeError: no html today" in bundle["text/plain"]
    assert "plain tree" in assert_safe(bundle["text/html"]).text()


def test_tree_handler_that_raises_gives_repr_with_note():
    def handler(obj, options):
        raise KeyError("handler bug")

    remove = render.register(handler)
    try:
        bundle = display.mimebundle(Block())
    finally:
        remove()
    assert list(bundle) == ["text/plain"]
    assert bundle["text/plain"].startswith("Block<") or bundle["text/plain"].startswith("Block(")
    assert "display note" in bundle["text/plain"]


@pytest.mark.parametrize("obj", [object(), 3, "text"])
def test_tree_mimebundle_of_unknown_objects_is_their_repr(obj):
    assert display.mimebundle(obj) == {"text/plain": repr(obj)}
