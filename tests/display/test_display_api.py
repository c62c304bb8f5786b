"""The public surface of cellkit.display: names, handler precedence, the Display object, the explore seam."""
import cellkit as ms
from cellkit import display, nn
from cellkit.display import render

from html_probe import assert_safe


def test_display_api_public_names_are_stable():
    for name in ("cell_tree", "parameter_table", "tensor_view", "mimebundle", "register", "explore", "Display"):
        assert name in display.__all__ and callable(getattr(display, name))


def test_display_api_user_handler_overrides_a_builtin_and_can_be_removed():
    class Note(render.Part):
        def text(self):
            return "custom"

        def html(self):
            return "<b>custom</b>"

    dense = nn.Dense(2, 2)
    remove = display.register(lambda obj, options: Note() if isinstance(obj, nn.Dense) else NotImplemented)
    try:
        assert display.mimebundle(dense) == {"text/plain": "custom", "text/html": "<b>custom</b>"}
        assert display.mimebundle(nn.ReLU())["text/plain"].startswith("ReLU")  # others keep the built-in
    finally:
        remove()
    assert "Dense(input_channels=2" in display.mimebundle(dense)["text/plain"]


def test_display_api_display_object_forms_and_attributes():
    shown = display.parameter_table(nn.Dense(3, 2))
    assert str(shown) == repr(shown) == shown.text()
    assert set(shown._repr_mimebundle_()) == {"text/plain", "text/html"}
    assert shown.total_count == 8 and shown.part.total_count == 8
    assert_safe(shown.html())


def test_display_api_explore_falls_back_to_the_static_view_with_a_note(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # as if ipywidgets were not installed
    shown = display.explore(nn.Dense(2, 1))
    assert "interactive view not available" in shown.text()
    assert "Dense" in assert_safe(shown.html()).text()
    assert "interactive view not available" in display.explore(ms.Tensor([1.0])).text()
