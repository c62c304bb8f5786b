"""The interactive explorer (cellkit.display.explore): driven from code, the way a notebook user would click."""
import sys

import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn

from html_probe import assert_safe, parameter_table_parts, parse

pytest.importorskip("ipywidgets")


class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.encoder = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU())
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.encoder(x))


def _table_names(markup):
    """The parameter names in the detail pane's table (the name field of each row)."""
    names = []
    for _, rows, _ in parameter_table_parts(assert_safe(markup)):
        names += [r[1].split(" ")[0] for r in rows if len(r) > 2]
    return names


def test_widgets_explore_cell_tree_lists_every_path_and_selection_changes_the_detail():
    net = Tiny()
    view = display.explore(net)
    ex = view.explorer
    assert [value for _, value in ex.tree.options] == ["", "encoder", "encoder.0", "encoder.1", "head"]
    assert ex.tree.options[2][0].startswith("\u00a0" * 6) and ex.tree.options[2][0].endswith("0: Dense")
    assert _table_names(ex.detail.value) == ["encoder.0.weight", "encoder.0.bias", "head.weight", "head.bias"]
    before = ex.detail.value
    ex.tree.value = "head"
    assert ex.detail.value != before
    assert _table_names(ex.detail.value) == ["head.weight", "head.bias"]
    text = parse(ex.detail.value).text()
    assert "Dense" in text and "mode: inference" in text and "no hooks" in text
    ex.tree.value = "encoder.1"
    assert "holds no parameters" in parse(ex.detail.value).text()


def test_widgets_explore_shows_mode_and_hooks():
    net = Tiny()
    net.set_train(True)
    net.head.register_forward_hook(lambda cell, inputs, output: None)
    ex = display.explore(net).explorer
    ex.tree.value = "head"
    text = parse(ex.detail.value).text()
    assert "mode: train" in text and "hook × 1" in text


def test_widgets_filters_reduce_the_rows():
    net = Tiny()
    ex = display.explore(net).explorer
    ex.name_filter.value = "weight"
    assert _table_names(ex.detail.value) == ["encoder.0.weight", "head.weight"]
    assert [box.description for box in ex.toggles.children] == ["encoder.0.weight", "head.weight"]
    ex.name_filter.value = "nothing-like-this"
    assert _table_names(ex.detail.value) == [] and "no parameters match" in parse(ex.detail.value).text()
    ex.name_filter.value = ""
    net.head.bias.requires_grad = False
    ex.trainable_only.value = True
    assert _table_names(ex.detail.value) == ["encoder.0.weight", "encoder.0.bias", "head.weight"]


def test_widgets_toggles_freeze_the_real_parameters():
    net = Tiny()
    ex = display.explore(net).explorer
    assert len(net.trainable_params()) == 4
    box = next(b for b in ex.toggles.children if b.description == "head.weight")
    box.value = False
    assert net.head.weight.requires_grad is False
    assert [p.name for p in net.trainable_params()] == ["encoder.0.weight", "encoder.0.bias", "head.bias"]
    assert "frozen" in parse(ex.detail.value).text()
    ex.tree.value = "encoder"
    ex.freeze_button.click()
    assert [p.name for p in net.trainable_params()] == ["head.bias"]
    assert all(not b.value for b in ex.toggles.children)
    ex.unfreeze_button.click()
    assert [p.name for p in net.trainable_params()] == ["encoder.0.weight", "encoder.0.bias", "head.bias"]


def test_widgets_escape_user_strings():
    net = Tiny()
    net.head.weight.name = "<b>evil</b>"
    ex = display.explore(net).explorer
    ex.tree.value = "head"
    assert "<b>evil</b>" not in ex.detail.value
    assert "<b>evil</b>" in parse(ex.detail.value).text()
    assert "<b>evil</b>" in [b.description for b in ex.toggles.children]  # a label: plain text


def test_widgets_trace_slider_steps_through_the_events():
    net = Tiny()
    with ms.trace(net) as tr:
        net(ms.Tensor(np.ones((1, 3), np.float32)))
    n = len(tr.events)
    ex = display.explore(tr).explorer
    assert (ex.slider.min, ex.slider.max, ex.slider.value) == (0, n, n)
    ex.slider.value = 3
    assert "showing the first 3" in parse(ex.view.value).text()
    assert ex.event is tr.events[2]
    marked = [d for d in parse(ex.paths.value).find_all("div") if "title" in d.attrs and d.find_all("b")]
    assert [d.attrs["title"] for d in marked] == [tr.events[2]["path"]] == ["encoder.0"]
    assert "encoder.0" in parse(ex.current.value).text()
    ex.slider.value = 0
    assert "before the first event" in parse(ex.current.value).text()


def test_widgets_fall_back_without_ipywidgets(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # `import ipywidgets` now raises ImportError
    shown = display.explore(Tiny())
    assert "ipywidgets is not installed" in shown.text()
    assert "Dense" in assert_safe(shown.html()).text()


def test_widgets_other_objects_get_the_static_view():
    shown = display.explore(ms.Tensor([1.0, 2.0]))
    assert "interactive view not available for Tensor" in shown.text()


# ---------------------------------------------------------------- recorded inputs / outputs (explore(net, trace=tr))
def _section(markup, role):
    """The text of the detail pane's 'last recorded call' entry for ``role`` (the <div title=role> and its list)."""
    root = assert_safe(markup)
    heads = [d for d in root.find_all("div") if d.attrs.get("title") == role]
    assert len(heads) == 1, role
    block = heads[0].parent
    return block.text()


def _field(markup, role, field):
    root = assert_safe(markup)
    heads = [d for d in root.find_all("div") if d.attrs.get("title") == role]
    assert len(heads) == 1, role
    return [s.text() for s in heads[0].parent.find_all("span") if s.attrs.get("title") == field]


def test_widgets_explore_with_trace_shows_last_inputs_outputs_and_gradients():
    from cellkit import ops

    net = Tiny()
    x = ms.Tensor(np.ones((1, 3), np.float32))
    with ms.trace(net) as tr:
        grads = ops.GradOperation(get_all=True)(net)(x)
    ex = display.explore(net, trace=tr).explorer
    ex.tree.value = "head"
    markup = ex.detail.value
    assert "last recorded call" in parse(markup).text()
    assert _field(markup, "inputs", "shape") == ["[1, 4]"]
    assert _field(markup, "output", "shape") == ["[1, 2]"]
    assert _field(markup, "grad_output", "shape") == ["[1, 2]"]
    assert _field(markup, "grad_input", "shape") == ["[1, 4]"]
    assert _field(markup, "inputs", "dtype") == ["Float32"]
    assert _field(markup, "grad_output", "values") == ["[[1. 1.]]"]  # GradOperation's sensitivity: ones
    assert _field(markup, "grad_output", "norm") == ["1.414"]
    # the first layer: its input is x, and its grad_input is the gradient GradOperation returned
    ex.tree.value = "encoder.0"
    markup = ex.detail.value
    assert _field(markup, "inputs", "shape") == ["[1, 3]"] and _field(markup, "inputs", "values") == ["[[1. 1. 1.]]"]
    assert _field(markup, "output", "shape") == ["[1, 4]"]
    expected = grads[0].asnumpy().reshape(-1)
    shown = _field(markup, "grad_input", "values")[0].strip("[]").split()
    np.testing.assert_allclose([float(v) for v in shown], expected, rtol=1e-3, atol=1e-4)
    assert float(_field(markup, "grad_input", "min")[0]) == pytest.approx(expected.min(), rel=1e-3)
    assert float(_field(markup, "grad_input", "max")[0]) == pytest.approx(expected.max(), rel=1e-3)
    # the events really are the last ones recorded for the cell
    last_backward = [e for e in tr.events if e["path"] == "encoder.0" and e["kind"] == "backward"][-1]
    assert f"#{last_backward['index']}" in _section(markup, "grad_input")


def test_widgets_explore_trace_uses_the_last_call_and_flags_nan():
    net = Tiny()
    with ms.trace(net) as tr:
        net(ms.Tensor(np.ones((2, 3), np.float32)))
        net(ms.Tensor(np.full((5, 3), np.nan, np.float32)))
    ex = display.explore(net, trace=tr).explorer
    ex.tree.value = "head"
    markup = ex.detail.value
    assert _field(markup, "inputs", "shape") == ["[5, 4]"] and _field(markup, "output", "shape") == ["[5, 2]"]
    assert "NaN × 10" in _section(markup, "output")
    assert "not recorded" in _section(markup, "grad_output")  # forward only: no gradient pass in this trace


def test_widgets_explore_without_a_recorded_call_says_so():
    net = Tiny()
    text = parse(display.explore(net).explorer.detail.value).text()
    assert "no recorded call for this cell" in text and "cellkit.trace(net)" in text
    with ms.trace(net.head) as tr:  # only the head was traced: its path there is '' (the root)
        net.head(ms.Tensor(np.ones((1, 4), np.float32)))
    ex = display.explore(net, trace=tr).explorer
    ex.tree.value = "encoder.0"
    assert "no recorded call for this cell" in parse(ex.detail.value).text()
    assert display.explore(tr).explorer.slider.max == len(tr.events)  # explore(trace) is still the slider


def test_widgets_explore_trace_escapes_a_hostile_cell_name():
    from cellkit import ops

    evil = "<img src=x onerror=alert(1)>"
    net = Tiny()
    net.insert_child_to_cell(evil, nn.ReLU())
    net.construct = lambda x: getattr(net, evil)(net.head(net.encoder(x)))
    with ms.trace(net) as tr:
        ops.GradOperation(get_all=True)(net)(ms.Tensor(np.ones((1, 3), np.float32)))
    assert evil in {e["path"] for e in tr.events}
    ex = display.explore(net, trace=tr).explorer
    ex.tree.value = evil
    markup = ex.detail.value
    assert "<img" not in markup
    assert evil in assert_safe(markup).text()
    assert _field(markup, "output", "shape") == ["[1, 2]"] and _field(markup, "grad_input", "shape") == ["[1, 2]"]


# ---------------------------------------------------------------------------- issue 18
from models import AutoEncoder, ResNet, resnet_input, sigmoid_input, sigmoid_stack  # noqa: E402


def _box(ex, name):
    return next(b for b in ex.toggles.children if b.description.split(" ")[0] == name)


def test_widgets_unfreeze_cell_never_makes_batchnorm_statistics_trainable():
    net = AutoEncoder()
    trainable = [p.name for p in net.trainable_params()]
    ex = display.explore(net).explorer
    ex.tree.value = "norm"
    stats_boxes = [_box(ex, "norm.moving_mean"), _box(ex, "norm.moving_variance")]
    assert all(b.disabled and "running statistic" in b.description for b in stats_boxes)
    ex.unfreeze_button.click()
    assert net.norm.moving_mean.requires_grad is False and net.norm.moving_variance.requires_grad is False
    assert [p.name for p in net.trainable_params()] == trainable
    assert "left 2 Parameters alone" in ex.status.value
    stats_boxes[0].value = True  # what a script could try: the box springs back, the Parameter stays
    assert net.norm.moving_mean.requires_grad is False and _box(ex, "norm.moving_mean").value is False


def test_widgets_a_tied_weight_is_changed_only_where_it_is_owned():
    net = AutoEncoder()
    ex = display.explore(net).explorer
    ex.tree.value = "decoder"
    tied = _box(ex, "encoder.weight")  # decoder.weight *is* encoder.weight
    assert tied.disabled and "owned by encoder" in tied.description
    ex.freeze_button.click()
    assert net.encoder.weight.requires_grad is True and net.decoder.bias.requires_grad is False
    assert "left 1 Parameter alone (encoder.weight)" in ex.status.value
    ex.tree.value = "encoder"
    own = _box(ex, "encoder.weight")
    assert not own.disabled
    own.value = False
    assert net.encoder.weight.requires_grad is False


def test_widgets_carry_a_static_twin_for_reopened_and_untrusted_notebooks():
    net = AutoEncoder()
    view = display.explore(net)
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert not bundle["text/plain"].startswith(("HBox(", "VBox("))
    assert bundle["text/plain"].startswith("AutoEncoder")
    root = assert_safe(bundle["text/html"])
    assert "encoder: Dense" in root.text() and "running statistic" not in bundle["text/plain"]
    with ms.trace(net) as tr:
        net(ms.Tensor(np.ones((4, 8), np.float32)))
    trace_bundle = display.explore(tr)._repr_mimebundle_()
    assert "Hook trace of AutoEncoder" in assert_safe(trace_bundle["text/html"]).text()
    assert trace_bundle["text/plain"] == tr.table()
    graph_bundle = display.explore(display.cell_graph(net))._repr_mimebundle_()
    assert "AutoEncoder" in assert_safe(graph_bundle["text/html"], images=True).text()


def test_widgets_explorer_shows_the_gradient_flow():
    net = sigmoid_stack()
    ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(sigmoid_input())
    ex = display.explore(net).explorer
    labels = dict((value, label) for label, value in ex.tree.options)
    assert "▼ vanishing" in labels["0"] and "▼ vanishing" not in labels["24"]
    ex.tree.value = "0"
    text = parse(ex.detail.value).text()
    assert "gradient flow" in text and "parameters' gradient" in text and "vanishing" in text


def test_widgets_trace_explorer_zooms_and_pans():
    net = ResNet()
    with ms.trace(net) as tr:
        net(resnet_input())
    ex = display.explore(tr).explorer
    assert ex.depth.value == 1
    shallow = parse(ex.view.value).text()
    ex.depth.value = 3
    assert ex.window.max == ex.columns(3) - 1 > 20 and ex.window.value == (0, 11)
    deep = parse(ex.view.value).text()
    assert "showing columns 0–11" in deep and deep != shallow
    ex.window.value = (12, 20)
    assert "showing columns 12–20" in parse(ex.view.value).text()


def test_widgets_graph_explorer_zooms_an_inline_themed_svg():
    ex = display.explore(display.cell_graph(ResNet())).explorer
    assert "var(--jp-layout-color2" in ex.view.value  # follows the notebook's theme
    width = float(ex.view.value.split('width="', 1)[1].split('"', 1)[0])
    ex.zoom.value = 0.5
    assert float(ex.view.value.split('width="', 1)[1].split('"', 1)[0]) == pytest.approx(width * 0.5, abs=1)
