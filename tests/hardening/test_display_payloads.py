"""Untrusted names in displays: a model whose every user-controlled string is an HTML/JS payload renders inert.

A stranger's notebook (or a student's model) can name Cell classes,
attributes, Parameters, buffers, flags, hooks, ``extend_repr`` text, extra
state and memory-report labels anything.  Here one model carries the classic
payloads in all of those places; every display is rendered -- the cell
tree, parameter table and tensor view, the trace (HTML and its graph), the
cell graph (DOT and SVG), the memory report, comparison, chart and graph,
the compiled-graph drawing, and the widget forms (``explore(net)``,
``explore(trace)``, ``explore(net, trace=...)``, ``recompute_explorer``,
whose every HTML value and label is collected from the widget tree) -- and
each output is parsed:

- HTML (``html.parser``) and SVG (``xml.etree``, which also proves it is
  well-formed): no ``<script>``, ``<iframe>``, ``<object>``, ``<embed>``,
  ``<foreignObject>``, ``<base>`` or ``<link>`` element, no ``on*``
  attribute, no ``src``, no ``href`` other than an in-page ``#fragment``, no
  raw payload in the source;
- DOT: every string closes on its line and no label is an HTML-like ``<...>``
  label (Graphviz would interpret it);
- no ``http://`` / ``https://`` anywhere (the SVG namespace names aside), no
  CSS ``url(...)`` or ``@import``: nothing loads from the network;
- widget labels and descriptions are plain text (``description_allow_html`` off).

And nothing is lost: the displays that show a name show it as its literal
text, so escaping never garbles what the user wrote.
"""
from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

import cellkit as ms
from cellkit import display, memory, nn
from cellkit.display import graph_ir, memory_view

import reliability

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
BREAKOUT = '"><svg onload=alert(1)>'
JS_URL = "javascript:alert(1)"
TEXTAREA = "</textarea>"
TEMPLATE = "{{7*7}}"
PAYLOADS = (SCRIPT, IMG, BREAKOUT, JS_URL, TEXTAREA, TEMPLATE)
MARKUP = tuple(p for p in PAYLOADS if "<" in p or ">" in p or '"' in p)  # would be markup if left raw

ACTIVE_TAGS = {"script", "iframe", "object", "embed", "foreignobject", "base", "link", "frame", "frameset",
               "applet", "meta"}
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
TALLY = reliability.tally(__name__)
AREA = "Untrusted names in displays"


# -- the hostile model ---------------------------------------------------------------------------------------
def named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def hostile_block_class():
    """A Cell class named with a payload, whose extend_repr and extra state are payloads too."""

    def __init__(self):
        nn.Cell.__init__(self)
        self.insert_child_to_cell(IMG, nn.Dense(4, 4))
        self.insert_child_to_cell(JS_URL, nn.ReLU())
        self.insert_param_to_cell(TEMPLATE, ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name=SCRIPT))
        self.register_buffer(TEXTAREA, ms.Tensor(np.array([0.0, np.nan], np.float32)))

    def construct(self, x):
        return self._cells[JS_URL](self._cells[IMG](x)) * self._params[TEMPLATE]

    def extend_repr(self):
        return " ".join(PAYLOADS)

    def get_extra_state(self):
        return {"note": IMG, TEXTAREA: TEMPLATE, BREAKOUT: [SCRIPT]}

    def set_extra_state(self, state):
        self.extra = state

    return type(SCRIPT, (nn.Cell,), {"__init__": __init__, "construct": construct, "extend_repr": extend_repr,
                                      "get_extra_state": get_extra_state, "set_extra_state": set_extra_state})


def hostile_model():
    """``(root, placements)``: a two-block network with a payload in every user-controlled string."""
    Block = hostile_block_class()
    Root = type(BREAKOUT, (nn.SequentialCell,), {})
    root = Root()
    first, second = Block(), Block()
    # Two Parameters sharing a name would be renamed to their attribute paths on the first call (as in
    # MindSpore), and the payload in the name with them: the second block's get names of their own.
    for p in second.get_parameters():
        p.name = p.name + " (2)"
    root.insert_child_to_cell(BREAKOUT, first)
    root.insert_child_to_cell(TEMPLATE, second)
    first.add_flags(**{BREAKOUT: JS_URL, TEMPLATE: SCRIPT})
    first.register_forward_pre_hook(named(lambda cell, inputs: None, IMG))
    first.register_forward_hook(named(lambda cell, inputs, output: None, SCRIPT))
    second.register_backward_hook(named(lambda cell, grad_input, grad_output: None, BREAKOUT))
    first.shard(((1, 1),), parameter_plan={SCRIPT: (1,)})
    places = ["Cell class name", "attribute name", "Parameter name", "Parameter attribute", "buffer name",
              "extend_repr", "extra state", "flag", "hook name", "parallel plan", "memory label"]
    return root, [(place, payload) for place in places for payload in PAYLOADS]


def batch():
    return ms.Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))


# -- checking one output ---------------------------------------------------------------------------------------
class _Scan(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []  # (tag, attrs)
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag.lower(), [(k.lower(), v or "") for k, v in attrs]))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def _attribute_problems(tag, attrs):
    problems = []
    if tag.rsplit("}", 1)[-1].lower() in ACTIVE_TAGS:
        problems.append(f"<{tag}> element")
    for name, value in attrs:
        local = name.rsplit("}", 1)[-1].lower()
        if local.startswith("on"):
            problems.append(f"event attribute {name}={value!r} on <{tag}>")
        if local == "src":
            problems += _embedded_problems(tag, value)
        if local == "href" and not value.startswith("#"):
            problems.append(f"<{tag} href={value!r}> (a link or load)")
        if value.strip().lower().startswith("javascript:"):
            problems.append(f"javascript: URL in {name} of <{tag}>")
        if re.search(r"url\(\s*(?!['\"]?#)", value, re.IGNORECASE):  # url(#marker) points inside the page
            problems.append(f"url(...) in {name} of <{tag}>")
    return problems


def _embedded_problems(tag, src):
    """A ``src`` may only embed an image in the page itself (a ``data:image/...`` URL, never a fetch); an
    embedded SVG is checked like any other (an ``<img>`` would not run its scripts, but it must be inert too)."""
    if not src.startswith("data:image/"):
        return [f"<{tag} src={src[:60]!r}> (a load)"]
    if src.startswith("data:image/svg+xml;base64,"):
        svg = base64.b64decode(src.split(",", 1)[1]).decode("utf-8")
        return [f"embedded SVG: {p}" for p in check_svg(svg)[0]]
    return []


def _network_problems(source):
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", source)) - NAMESPACES
    problems = [f"network URL {u!r}" for u in sorted(urls)]
    if "@import" in source:
        problems.append("@import")
    return problems


def _raw_payloads(source):
    return [f"raw payload {p!r} in the source" for p in MARKUP if p in source]


def check_html(markup):
    """``(problems, text)`` for an HTML fragment (which may embed inline SVG)."""
    scan = _Scan()
    scan.feed(markup)
    scan.close()
    problems = [p for tag, attrs in scan.elements for p in _attribute_problems(tag, attrs)]
    return problems + _raw_payloads(markup) + _network_problems(markup), "".join(scan.text)


def check_svg(svg):
    """``(problems, text)`` for a standalone SVG document; it must parse as XML."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        return [f"SVG does not parse: {exc}"], ""
    problems = [p for e in root.iter() for p in _attribute_problems(e.tag, list(e.attrib.items()))]
    text = " ".join("".join(e.itertext()) for e in root.iter() if e.tag.rsplit("}", 1)[-1] in ("text", "title"))
    return problems + _raw_payloads(svg) + _network_problems(svg), text


def _dot_strings(line):
    """The quoted strings of one DOT line (unescaped), or None if a string does not close on the line."""
    strings, i = [], 0
    while i < len(line):
        if line[i] == '"':
            j, chars = i + 1, []
            while j < len(line) and line[j] != '"':
                if line[j] == "\\" and j + 1 < len(line):
                    chars.append(line[j + 1])
                    j += 2
                    continue
                chars.append(line[j])
                j += 1
            if j >= len(line):
                return None
            strings.append("".join(chars))
            i = j + 1
        else:
            i += 1
    return strings


def check_dot(source):
    """``(problems, text)`` for DOT source: strings close on their line, no HTML-like labels, no URLs."""
    problems, texts = [], []
    for number, line in enumerate(source.splitlines(), 1):
        strings = _dot_strings(line)
        if strings is None:
            problems.append(f"DOT line {number}: a string does not close: {line[:80]!r}")
            continue
        texts += strings
        outside = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        if re.search(r"label\s*=\s*<", outside):
            problems.append(f"DOT line {number}: an HTML-like label")
        if re.search(r"\b(URL|href|image)\s*=", outside):
            problems.append(f"DOT line {number}: a link or image attribute")
    return problems + _network_problems(source), "\n".join(texts)


CHECKS = {"html": check_html, "svg": check_svg, "dot": check_dot}


class Findings:
    """Every output checked, the problems found, and the payloads a display lost."""

    def __init__(self):
        self.outputs = 0
        self.problems = []
        self.lost = []
        self.texts = {}

    def check(self, name, kind, content, must_show=()):
        if content is None:
            return ""
        self.outputs += 1
        problems, text = CHECKS[kind](content)
        self.problems += [f"{name} ({kind}): {p}" for p in problems]
        self.lost += [f"{name} ({kind}) does not show {p!r} as text" for p in must_show if p not in text]
        self.texts[name] = text
        return text

    def check_bundle(self, name, bundle, must_show=()):
        if "text/html" in bundle:
            self.check(name, "html", bundle["text/html"], must_show)
        if "image/svg+xml" in bundle:
            self.check(name, "svg", bundle["image/svg+xml"])

    def check_graph(self, name, graph, must_show=()):
        self.check(name + " DOT", "dot", graph.source, must_show)
        self.check(name + " SVG (built-in layout)", "svg", graph.svg(engine="fallback"), must_show)
        self.check_bundle(name + " bundle", graph._repr_mimebundle_())

    def check_widgets(self, name, widget):
        """Every HTML value of the widget tree, as HTML; every label and description, as plain text."""
        for i, w in enumerate(_walk(widget)):
            kind = type(w).__name__
            where = f"{name} / {kind} #{i}"
            if kind in ("HTML", "HTMLMath"):
                self.check(where, "html", w.value)
            if kind in ("Image", "Video", "Audio"):
                self.problems.append(f"{where}: a media widget (a load)")
            if getattr(w, "description_allow_html", False):
                self.problems.append(f"{where}: description_allow_html is on")
            strings = [getattr(w, attr, "") for attr in ("description", "tooltip", "placeholder")]
            strings += [label for label, *_ in _options(w)]
            if kind == "Label":
                strings.append(w.value)
            for s in strings:
                if isinstance(s, str) and s:
                    self.outputs += 1
                    self.problems += [f"{where}: {p}" for p in _network_problems(s)]


def _walk(widget):
    stack, seen = [widget], set()
    while stack:
        w = stack.pop(0)
        if id(w) in seen:
            continue
        seen.add(id(w))
        yield w
        stack += list(getattr(w, "children", ()) or ())


def _options(w):
    options = getattr(w, "options", None) or ()
    return [o if isinstance(o, tuple) else (str(o),) for o in options]


# -- rendering everything --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rendered():
    """The hostile model, its trace and memory reports, every display rendered and checked."""
    root, placements = hostile_model()
    x = batch()
    findings = Findings()
    block = root._cells[BREAKOUT]
    param = block._params[TEMPLATE]

    def step(t):
        return root(t).sum()

    grad_step = ms.grad(step, grad_position=None, weights=root.trainable_params())
    with ms.trace(root) as tr:
        grad_step(x)
    report = memory.profile(grad_step, x, net=root, label=SCRIPT + JS_URL)
    other = memory.profile(grad_step, x, net=root, label=IMG + TEMPLATE)

    names = (SCRIPT, IMG, BREAKOUT, JS_URL, TEMPLATE)  # class, attribute and flag payloads
    # static displays
    findings.check("cell_tree", "html", display.cell_tree(root).html(), must_show=names + (TEXTAREA,))
    findings.check_bundle("Cell mimebundle", root._repr_mimebundle_(), must_show=names)
    findings.check_bundle("sub-Cell mimebundle", block._repr_mimebundle_(), must_show=(SCRIPT, IMG, JS_URL))
    findings.check("parameter_table", "html", display.parameter_table(root).html(), must_show=(SCRIPT,))
    findings.check("tensor_view", "html", display.tensor_view(param).html(), must_show=(SCRIPT,))
    findings.check_bundle("Parameter mimebundle", param._repr_mimebundle_(), must_show=(SCRIPT,))
    # the trace
    findings.check("trace HTML", "html", tr.to_html(), must_show=(SCRIPT, BREAKOUT, IMG, TEMPLATE))
    findings.check("trace HTML, first 3 events", "html", tr.to_html(upto=3))
    findings.check_bundle("trace mimebundle", tr._repr_mimebundle_())
    # graphs
    findings.check_graph("cell_graph", display.cell_graph(root), must_show=(SCRIPT, BREAKOUT, IMG, TEMPLATE))
    findings.check_graph("trace_graph", display.trace_graph(tr), must_show=(SCRIPT, BREAKOUT))
    findings.check_graph("memory_graph", display.memory_graph(report), must_show=(IMG,))
    with pytest.warns(UserWarning, match="Hooks do not run in GRAPH_MODE"):
        compiled = ms.graph.build_graph(root, x)
    findings.check_graph("compiled graph drawing", graph_ir.ir_graph(compiled))
    findings.check_bundle("compiled graph mimebundle", graph_ir.mimebundle(compiled))
    # memory reports
    findings.check_bundle("memory report", memory_view.report_bundle(report), must_show=(SCRIPT + JS_URL, IMG))
    findings.check_bundle("memory report mimebundle", report._repr_mimebundle_())
    findings.check_bundle("memory comparison", memory_view.comparison_bundle(report.compare(other)),
                          must_show=(SCRIPT + JS_URL, IMG + TEMPLATE))
    chart = display.memory_chart(report)
    findings.check("memory_chart HTML", "html", chart.html())
    findings.check_bundle("memory_chart bundle", chart._repr_mimebundle_())
    # widget forms
    if _has_ipywidgets():
        view = display.explore(root)
        for _, path in view.explorer.tree.options:
            view.explorer.tree.value = path
            findings.check_widgets(f"explore(net) at {path!r}", view)
        slider = display.explore(tr)
        for n in range(slider.explorer.slider.max + 1):
            slider.explorer.slider.value = n
            findings.check_widgets(f"explore(trace) at {n}", slider)
        with_trace = display.explore(root, trace=tr)
        for _, path in with_trace.explorer.tree.options:
            with_trace.explorer.tree.value = path
            findings.check_widgets(f"explore(net, trace) at {path!r}", with_trace)
        for label, obj in (("explore(Parameter)", param), ("explore(memory report)", report)):
            shown = display.explore(obj)
            if hasattr(shown, "children"):
                findings.check_widgets(label, shown)
            else:
                findings.check_bundle(label, shown._repr_mimebundle_())
        form = display.recompute_explorer(root, step, x, timing=False, warmup=False)
        findings.check_widgets("recompute_explorer", form)
        for box in form.explorer.toggles.values():
            box.value = True
        form.explorer.measure_button.click()
        findings.check_widgets("recompute_explorer after Measure", form)
    TALLY.add(AREA, inputs_tried=findings.outputs, faults_injected=len(placements),
              failures=len(findings.problems), lost=len(findings.lost))
    return findings


def _has_ipywidgets():
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


# -- the tests -------------------------------------------------------------------------------------------------
def test_display_payloads_reach_no_output_as_markup(rendered):
    assert rendered.outputs > 100
    assert not rendered.problems, "\n".join(rendered.problems[:40])


def test_display_payloads_are_shown_as_their_literal_text(rendered):
    assert not rendered.lost, "\n".join(rendered.lost[:40])
    assert TEMPLATE in rendered.texts["cell_tree"]  # shown as written, never evaluated by a template


def test_display_payloads_widget_forms_are_covered(rendered):
    pytest.importorskip("ipywidgets")
    widget_outputs = [name for name in rendered.texts if name.startswith(("explore", "recompute_explorer"))]
    assert any(name.startswith("explore(net) at") for name in widget_outputs)
    assert any(name.startswith("explore(trace) at") for name in widget_outputs)
    assert any(name.startswith("recompute_explorer after Measure") for name in widget_outputs)
    detail = [t for n, t in rendered.texts.items() if n.startswith("explore(net, trace) at")]
    assert any(SCRIPT in t for t in detail) and any(IMG in t for t in detail)


@pytest.mark.parametrize("check, sample", [
    (check_html, f"<div title=\"{BREAKOUT}\">x</div>"),
    (check_html, f"<b>{SCRIPT}</b>"),
    (check_html, '<a href="javascript:alert(1)">x</a>'),
    (check_html, '<div style="background:url(http://evil.example/x.png)">x</div>'),
    (check_svg, '<svg xmlns="http://www.w3.org/2000/svg"><text onclick="alert(1)">x</text></svg>'),
    (check_svg, f'<svg xmlns="http://www.w3.org/2000/svg"><text>{IMG}</text></svg>'),
    (check_dot, 'digraph "g" {\n  "a" [label="x"><svg onload=alert(1)>"];\n}\n'),
    (check_dot, 'digraph "g" {\n  "a" [label=<<b>x</b>>];\n}\n'),
], ids=["attribute breakout", "raw script", "javascript href", "css url", "svg handler", "svg not xml",
        "dot breakout", "dot html label"])
def test_display_payloads_checks_catch_unescaped_output(check, sample):
    """The checks above are not vacuous: each kind of leak they look for is caught."""
    problems, _ = check(sample)
    assert problems
