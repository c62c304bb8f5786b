"""Every user string a display shows comes out as inert text: names, classes, arguments, flags, state."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn

from html_probe import assert_safe

SCRIPT = "<script>alert('x')</script>"
IMG = '<img src=x onerror="alert(1)">'
QUOTES = '"><b onmouseover=alert(2)>'


def hostile_net():
    """A network whose every displayed string is a payload."""

    def construct(self, x):
        return x

    def extend_repr(self):
        return SCRIPT + " & " + IMG

    def get_extra_state(self):
        return {"note": IMG}

    def set_extra_state(self, state):
        pass

    Evil = type(IMG, (nn.Cell,), {"construct": construct, "extend_repr": extend_repr,
                                  "get_extra_state": get_extra_state, "set_extra_state": set_extra_state})
    root = nn.SequentialCell()
    child = Evil()
    child.p = ms.Parameter(ms.Tensor(np.array([1.0, np.nan], np.float32)), name=SCRIPT)
    child.add_flags(**{QUOTES: SCRIPT})
    child.register_buffer(IMG.replace(".", ""), ms.Tensor([1.0]))
    child.shard(((1,),), parameter_plan={SCRIPT: (1,)})
    root.insert_child_to_cell(SCRIPT, child)
    root.insert_child_to_cell(QUOTES, Evil())
    child.p._last_grad_norm = 1.0
    return root, child


def assert_inert(markup, *payloads):
    """Parsed, the HTML holds no active element or attribute, and each payload is plain text in it."""
    root = assert_safe(markup)
    text = root.text() + " ".join(e.attrs.get("title") or "" for e in root.iter())
    for payload in payloads:
        assert payload in text, f"{payload!r} not shown as text"
    return root


def test_escaping_cell_tree_names_classes_arguments_flags_and_state():
    root, _ = hostile_net()
    html = display.cell_tree(root).html()
    assert "<script" not in html and "<img" not in html and "<b " not in html
    assert_inert(html, SCRIPT, IMG, QUOTES, SCRIPT + " & " + IMG)
    assert "&lt;script&gt;" in html and "&amp;" in html


def test_escaping_parameter_table_names_and_aliases():
    root, child = hostile_net()
    root.insert_child_to_cell("alias", child)  # the Parameter is also reached under another path
    html = display.parameter_table(root).html()
    assert "<script" not in html and "<img" not in html
    assert_inert(html, SCRIPT)


def test_escaping_tensor_view_of_a_named_parameter():
    _, child = hostile_net()
    html = display.tensor_view(child.p).html()
    assert "<script" not in html
    assert_inert(html, SCRIPT)


def test_escaping_mimebundles_of_cell_and_parameter():
    root, child = hostile_net()
    for obj in (root, child, child.p):
        bundle = obj._repr_mimebundle_()
        assert_safe(bundle["text/html"])
        assert "<script" not in bundle["text/html"]


def test_escaping_error_notes_are_escaped_too():
    class Loud(nn.Cell):
        def extend_repr(self):
            raise ValueError(SCRIPT)

        def construct(self, x):
            return x

    html = display.cell_tree(Loud()).html()
    assert "<script" not in html
    assert_inert(html, SCRIPT)


@pytest.mark.parametrize("make", [
    lambda: display.cell_tree(hostile_net()[0]).html(),
    lambda: display.parameter_table(hostile_net()[0]).html(),
    lambda: display.tensor_view(ms.Tensor(np.arange(200.0).reshape(10, 20))).html(),
])
def test_escaping_no_external_urls_scripts_or_styles(make):
    html = make()
    lowered = html.lower()
    for forbidden in ("http://", "https://", "<style", "<svg", "<link", "@import", "<script"):
        assert forbidden not in lowered
    assert_safe(html)
