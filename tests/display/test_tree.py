"""The cell tree: structure, numbers and marks read back from the HTML (and the text twin)."""
import re

import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn
from cellkit.display import render

from html_probe import assert_safe
from models import Block, Net, fixed_dense


def rows(markup):
    """Every drawn row: name, class, the right-hand column texts (count, bytes ...), badge texts, the element."""
    root = assert_safe(markup)
    found = []
    for span in root.iter("span"):
        children = span.child_elements("span")
        if span.style() != "display:block" or not children or not children[0].style().startswith("float:right"):
            continue
        right, left = children
        columns = [c.text() for c in right.child_elements("span")]
        parts = left.child_elements("span")
        if parts[0].style() == "font-weight:600":  # the root row has no attribute name
            name, cls, rest = None, parts[0].text(), parts[1:]
        else:
            name, cls, rest = parts[0].text(), parts[2].text(), parts[3:]
        badges = [p.text() for p in rest if "border-radius:8px" in p.style()]
        found.append({"name": name, "cls": cls, "count": columns[0], "bytes": columns[-1], "columns": columns,
                      "badges": badges, "element": span})
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
    # Marked defines bprop, so (as in MindSpore) forward hooks on it are not registered: put them on its child.
    marked.dense.register_forward_hook(lambda cell, inputs, output: None)
    marked.dense.register_forward_hook(lambda cell, inputs, output: None)
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
    assert {"forward_pre hook ×1", "backward hook ×1", "custom bprop",
            "1 buffer · 16 B", "extra state {'step': 7}"} <= set(m["badges"])
    assert "train" not in m["badges"]  # same mode as its parent: not repeated
    assert {"forward hook ×2", "backward_pre hook ×1"} <= set(row(html, "dense")["badges"])
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
    hidden_texts = [e.text() for e in assert_safe(tree.html()).iter("div")
                    if re.search(r"more cells? not shown", "".join(c for c in e.children if isinstance(c, str)))]
    hidden = sum(int(t.split("…")[1].split("more")[0].replace(",", "")) for t in hidden_texts)
    assert len(drawn) + hidden == total
    assert re.search(r"more cells? not shown", tree.text())


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


# ---------------------------------------------------------------------------- issue 18
from html_probe import contrast_failures  # noqa: E402
from models import GPT, AutoEncoder, ResNet, resnet_input, sigmoid_input, sigmoid_stack  # noqa: E402


class NormBlock(nn.Cell):
    def __init__(self, d=8):
        super().__init__()
        self.norm = nn.LayerNorm((d,))
        self.fc = nn.Dense(d, d)

    def construct(self, x):
        return self.fc(self.norm(x))


def test_tree_groups_blocks_whose_parameters_only_differ_in_name():
    net = nn.SequentialCell([NormBlock() for _ in range(200)])
    assert "name=0.norm.gamma" in repr(net[0].norm.gamma) or "0.norm.gamma" in net[0].norm.gamma.name
    tree = display.cell_tree(net)
    drawn = rows(tree.html())
    blocks = [r for r in drawn if r["cls"] == "NormBlock"]
    assert [(b["name"], b["badges"][:1]) for b in blocks] == [("0–199", ["× 200"])]
    assert len(drawn) == 4  # the root, the group, and the one block's two children
    assert row(tree.html(), "norm")["cls"] == "LayerNorm"
    text = assert_safe(tree.html()).text()
    assert "gamma=[8], beta=[8]" in text and "0.norm.gamma" not in text
    assert "0–199: NormBlock × 200" in tree.text()


def test_tree_groups_the_repeated_blocks_of_real_networks():
    resnet = ResNet()
    # layer1's two blocks are alike (later stages begin with a downsampling block); names never split them
    text = display.cell_tree(resnet).text()
    assert "0–1: BasicBlock × 2" in text and "moving_mean=[4]" in text and "name=" not in text
    gpt = GPT(n_blocks=6)
    gpt_text = display.cell_tree(gpt).text()
    assert "0–5: GPTBlock × 6" in gpt_text and "embedding_table=[64, 16]" in gpt_text
    assert len(rows(display.cell_tree(gpt).html())) < 20


def test_tree_shows_the_spread_of_values_across_repeats():
    net = Net(n_blocks=4)
    tree = display.cell_tree(net)
    rms = [float(np.sqrt(np.mean(np.concatenate([p.asnumpy().ravel() for p in b.get_parameters()]).astype(np.float64) ** 2)))
           for b in net.blocks]
    note = [e.text() for e in assert_safe(tree.html()).iter("div") if e.text().startswith("each:") and not e.find_all("div")][0]
    spread = note.split("parameter RMS ")[1].split(" ")[0]
    low, high = (float(v) for v in spread.split("–"))
    assert low == pytest.approx(min(rms), rel=1e-3) and high == pytest.approx(max(rms), rel=1e-3)
    assert "across the 4: parameter RMS" in tree.text()


def test_tree_rolls_marks_up_onto_rows_with_children():
    net = Net(n_blocks=3)
    net.blocks[1].mlp[0].register_forward_hook(lambda cell, inputs, output: None)
    net.blocks[2].mlp[2].recompute()
    net.blocks[0].attn.bias.requires_grad = False
    html = display.cell_tree(net, open_depth=0).html()
    top = rows(html)[0]
    assert {"1 hook inside", "recompute ×1 inside", "1 frozen Parameter inside"} <= set(top["badges"])
    assert "1 hook inside" in row(html, "blocks")["badges"]
    assert "frozen 1/2" in [r for r in rows(html) if r["name"] == "attn"][0]["badges"]
    # the root's <details> is folded (open_depth=0) and its summary row still carries them
    details = assert_safe(html).find_all("details")[0]
    assert "open" not in details.attrs and "1 hook inside" in details.child_elements("summary")[0].text()


def test_tree_marks_come_before_the_arguments_which_are_never_cut():
    net = nn.SequentialCell(nn.BatchNorm2d(64))
    net[0].register_forward_hook(lambda cell, inputs, output: None)
    html = display.cell_tree(net).html()
    bn = row(html, "0")
    spans = bn["element"].child_elements("span")[1].child_elements("span")
    texts = [s.text() for s in spans]
    hook = next(i for i, t in enumerate(texts) if t == "forward hook ×1")
    args = next(i for i, t in enumerate(texts) if t.startswith("(num_features=64"))
    assert hook < args
    style = spans[args].style()
    assert "max-width" not in style and "text-overflow" not in style and "nowrap" not in style
    assert "white-space:normal" in bn["element"].child_elements("span")[1].style()


def test_tree_says_one_more_cell_not_one_more_cells():
    net = nn.SequentialCell(nn.ReLU(), nn.Tanh())
    assert "1 more cell not shown" in display.cell_tree(net, max_nodes=2).text()
    assert "1 more cell not shown" in assert_safe(display.cell_tree(net, max_nodes=2).html()).text()


def test_tree_gradient_column_reads_float64_norms():
    net = sigmoid_stack()
    ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(sigmoid_input())
    tree = display.cell_tree(net, gradients=True)
    first = row(tree.html(), "0")
    expected = float(np.linalg.norm(np.concatenate([net[0].weight._last_grad.asnumpy().ravel().astype(np.float64),
                                                    net[0].bias._last_grad.asnumpy().ravel().astype(np.float64)])))
    assert 1e-24 < expected < 1e-22
    shown = first["columns"][1]
    assert float(shown) == pytest.approx(expected, rel=0.01)
    assert "vanishing grad" in first["badges"]
    assert "vanishing grad" not in row(tree.html(), "24")["badges"]  # the last layer gets a healthy gradient
    assert "vanishing grad ×" in " ".join(rows(tree.html())[0]["badges"])
    assert "[vanishing]" in tree.text()


def test_tree_shapes_and_multiply_adds_from_an_example():
    net = ResNet()
    before = {k: p.asnumpy().copy() for k, p in net.parameters_and_names()}
    net.set_train(True)
    tree = display.cell_tree(net, example=(resnet_input(),))
    text = tree.text()
    assert "[2, 3, 32, 32] → [2, 10]" in text
    assert tree.part.shapes.macs_below("stem.0") == 2 * 4 * 32 * 32 * 3 * 9  # Conv2d(3 -> 4, 3x3) on 32x32
    stem = row(tree.html(), "stem")
    assert stem["columns"][1] == f"{2 * 4 * 32 * 32 * 3 * 9 / 1e3:.3g}k"
    # the example run changed nothing: BatchNorm's statistics and every Parameter are as they were
    for k, p in net.parameters_and_names():
        np.testing.assert_array_equal(p.asnumpy(), before[k])
    assert net.training


def test_tree_multiply_adds_count_a_parents_own_matmuls():
    from models import gpt_tokens

    gpt = GPT(n_blocks=1)
    tree = display.cell_tree(gpt, example=(gpt_tokens(),))
    attn = tree.part.shapes.macs_below("blocks.0.attn")
    qkv = tree.part.shapes.macs_below("blocks.0.attn.qkv")
    proj = tree.part.shapes.macs_below("blocks.0.attn.proj")
    # q @ k^T and weights @ v: 2 x (batch 2, 8x8 scores, 16 deep)
    assert attn == qkv + proj + 2 * (2 * 8 * 8 * 16)


def test_tree_text_and_colours_meet_contrast_in_both_themes():
    net = AutoEncoder()
    net.encoder.register_forward_hook(lambda cell, inputs, output: None)
    net.decoder.recompute()
    assert contrast_failures(display.cell_tree(net).html()) == []
    stack = sigmoid_stack()
    ms.grad(lambda x: stack(x).sum(), grad_position=None, weights=stack.trainable_params())(sigmoid_input())
    assert contrast_failures(display.cell_tree(stack, gradients=True).html()) == []


def test_tree_hook_badges_link_to_the_trace_ledger():
    from models import NaNMaker

    net = NaNMaker()
    net.fc1.register_backward_hook(lambda cell, grad_input, grad_output: None)
    net.fc2.register_forward_hook(lambda cell, inputs, output: None)
    with np.errstate(invalid="ignore"), ms.trace(net) as tr:
        ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(
            ms.Tensor(np.ones((2, 4), np.float32)))
    html = display.cell_tree(net, trace=tr).html()
    root = assert_safe(html)
    links = {a.text(): a.attrs["href"] for a in root.iter("a")}
    assert set(links) == {"backward hook ×1 · never fired", "forward hook ×1 · fired 1×"}
    trace_root = assert_safe(tr.to_html())
    ids = {e.attrs["id"] for e in trace_root.iter() if "id" in e.attrs}
    assert all(href[1:] in ids for href in links.values())  # the ledger entries of the trace's display
    assert "never fired" in display.cell_tree(net, trace=tr).text()
