"""Hook traces: what ``cellkit.trace`` records, how it shows it, and that it leaves no trace behind."""
import gc
import json
import weakref
from html.parser import HTMLParser

import numpy as np
import pytest

import cellkit as ms
from cellkit import Tensor, nn, ops
from cellkit.display.trace import Trace
from cellkit.nn.cell_call import on_fast_path


class XY(nn.Cell):
    def construct(self, x, y):
        return x * 3 + y * 2


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = XY()

    def construct(self, x, y):
        return self.inner(x, y) * 5


class ReluNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x):
        x = x + x
        return self.relu(x)


def two():
    return Tensor(np.ones(2, np.float32)), Tensor(np.array([1.0, 2.0], np.float32))


def kinds_and_paths(tr):
    return [(e["kind"], e["path"]) for e in tr.events]


def only(tr, kind, path):
    found = tr.select(kind=kind, path=path)
    assert len(found) == 1, (kind, path, found)
    return found[0]


def values(event, role="grad_input"):
    return [t.get("values") for t in event["tensors"] if t["role"] == role]


# ---------------------------------------------------------------------------- recording
def test_trace_nested_order_forward_then_backward_in_reverse():
    net = Outer()
    with ms.trace(net) as tr:
        ops.GradOperation(get_all=True)(net)(*two())
    assert kinds_and_paths(tr) == [
        ("forward_pre", ""), ("forward_pre", "inner"), ("forward", "inner"), ("forward", ""),
        ("backward_pre", ""), ("backward_pre", "inner"), ("backward", "inner"), ("backward", ""),
    ]
    assert [e["depth"] for e in tr.events] == [0, 1, 1, 0, 0, 1, 1, 0]
    assert [e["index"] for e in tr.events] == list(range(8))
    assert tr.events[1]["call"] == tr.events[6]["call"] != tr.events[0]["call"]
    times = [e["time_ms"] for e in tr.events]
    assert times == sorted(times)
    assert only(tr, "forward", "")["duration_ms"] >= only(tr, "forward", "inner")["duration_ms"] >= 0


def test_trace_payload_shapes_dtypes_and_statistics(backend):
    ms.set_seed(1)
    dense = nn.Dense(3, 2)
    x_host = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    with ms.trace(dense) as tr:
        out = dense(Tensor(x_host))
    pre, post = tr.events
    (x,) = pre["tensors"]
    assert (x["role"], x["index"], x["shape"], x["dtype"]) == ("inputs", "0", [4, 3], "Float32")
    assert x["norm"] == pytest.approx(float(np.linalg.norm(x_host)))
    assert (x["min"], x["max"], x["mean"]) == (-5.0, 6.0, pytest.approx(float(x_host.mean())))
    assert (x["nan"], x["inf"]) == (0, 0)
    assert "values" not in x  # 12 elements: more than the 8 kept by default
    (y,) = post["tensors"]
    assert (y["role"], y["shape"], y["dtype"]) == ("output", [4, 2], "Float32")
    assert y["norm"] == pytest.approx(float(np.linalg.norm(out.asnumpy())), rel=1e-6)
    assert post["flags"] == [] and tr.first == {}


def test_trace_keeps_values_of_tiny_tensors_and_describes_other_inputs():
    class Scale(nn.Cell):
        def construct(self, x, factor, label, nothing):
            return x * factor

    net = Scale()
    with ms.trace(net, values=3) as tr:
        net(Tensor([0.1, 2.0], ms.float32), 3, Tensor([1, 0], ms.int32), None)
    inputs = tr.events[0]["tensors"]
    assert inputs[0]["values"] == [0.1, 2.0]  # the shortest decimal of each float32
    assert inputs[1] == {"role": "inputs", "index": "1", "type": "int", "repr": "3"}
    assert inputs[2]["values"] == [1, 0] and inputs[2]["dtype"] == "Int32"
    assert inputs[3] == {"role": "inputs", "index": "3", "none": True}


def test_trace_records_user_hook_calls_and_what_they_returned():
    def double_inputs(cell, inputs):
        return (inputs[0] * 2, inputs[1])

    def look(cell, inputs, output):
        return None

    net = Outer()
    net.inner.register_forward_pre_hook(double_inputs)
    net.inner.register_forward_hook(look)
    net.inner.register_backward_hook(lambda cell, gi, go: (gi[0] * 0, gi[1]))
    with ms.trace(net) as tr:
        grads = ops.GradOperation(get_all=True)(net)(*two())
    hooks = tr.select(kind="hook")
    assert [(h["hook"]["stage"], h["hook"]["name"], h["hook"]["returned"]) for h in hooks] == [
        ("forward_pre", "double_inputs", "replacement"),
        ("forward", "look", "None"),
        ("backward", "<lambda>", "replacement"),
    ]
    assert [t["values"] for t in hooks[0]["tensors"]] == [[2.0, 2.0], [1.0, 2.0]]
    assert hooks[1]["tensors"] == []
    assert [t["values"] for t in hooks[2]["tensors"]] == [[0.0, 0.0], [10.0, 10.0]]
    assert all(h["path"] == "inner" and h["duration_ms"] >= 0 for h in hooks)
    # each hook event follows its cell event
    order = [(e["kind"], e["path"]) for e in tr.events if e["path"] == "inner"]
    assert order == [("forward_pre", "inner"), ("hook", "inner"), ("forward", "inner"), ("hook", "inner"),
                     ("backward_pre", "inner"), ("backward", "inner"), ("hook", "inner")]
    assert [g.asnumpy().tolist() for g in grads] == [[0.0, 0.0], [10.0, 10.0]]


def test_trace_spec_backward_hook_example_shows_the_spec_gradients(capsys):
    def backward_hook_fn(cell, grad_input, grad_output):
        print("backward input: ", grad_output)
        print("backward output: ", grad_input)

    net = ReluNet()
    net.relu.register_backward_hook(backward_hook_fn)
    with ms.trace(net) as tr:
        output = ops.GradOperation(get_all=True)(net)(Tensor(np.ones([1]).astype(np.float32)))
    print(output)
    assert capsys.readouterr().out == (  # tracing changes nothing the spec prints
        "backward input:  (Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]),)\n"
        "backward output:  (Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]),)\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]),)\n"
    )
    assert values(only(tr, "backward_pre", "relu"), "grad_output") == [[1.0]]
    assert values(only(tr, "backward", "relu"), "grad_input") == [[1.0]]
    hook = only(tr, "hook", "relu")
    assert (hook["hook"]["name"], hook["hook"]["returned"], hook["index"]) == (
        "backward_hook_fn", "None", only(tr, "backward", "relu")["index"] + 1)
    assert values(only(tr, "backward", ""), "grad_input") == [[2.0]]  # what GradOperation returns
    text = tr.table()
    assert "grad_output[0]: [1] Float32 norm=1 min=1 max=1 [1.]" in text
    assert "grad_input[0]: [1] Float32 norm=2 min=2 max=2 [2.]" in text
    assert "backward hook backward_hook_fn returned None" in text


def test_trace_train_one_step_cell_step_matches_an_untraced_step():
    def build():
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 3))
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        return net, nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))

    x = Tensor(np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32))
    y = Tensor(np.array([0, 1, 2, 0, 1, 2], np.int32))
    plain_net, plain_step = build()
    traced_net, traced_step = build()
    plain_loss = plain_step(x, y)
    with ms.trace(traced_step) as tr:
        traced_loss = traced_step(x, y)
    assert traced_loss.asnumpy() == plain_loss.asnumpy()
    for a, b in zip(plain_net.trainable_params(), traced_net.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())

    paths = {e["path"] for e in tr.events}
    assert {"", "network", "network._backbone", "network._backbone.0", "network._backbone.1",
            "network._backbone.2", "network._loss_fn", "optimizer"} <= paths
    # the gradient reaches the loss first and the first layer last
    backward_pre = [e["path"] for e in tr.select(kind="backward_pre")]
    assert backward_pre[0] == "network"
    assert backward_pre.index("network._backbone.2") < backward_pre.index("network._backbone.0")
    assert only(tr, "backward", "network._backbone.2")["tensors"][0]["shape"] == [6, 5]
    # the first layer's input is data: its backward ends at its weights, with no grad_input event
    assert tr.select(kind="backward", path="network._backbone.0") == []
    assert [e["kind"] for e in tr.events if e["path"] == "network._backbone.0"] == [
        "forward_pre", "forward", "backward_pre"]
    # the optimizer runs after the backward pass and receives the four gradients
    optimizer_pre = only(tr, "forward_pre", "optimizer")
    assert optimizer_pre["index"] > max(e["index"] for e in tr.events if e["kind"].startswith("backward"))
    assert [t["shape"] for t in optimizer_pre["tensors"]] == [[5, 4], [5], [3, 5], [3]]


def test_trace_flags_nan_where_it_first_appears():
    class Log(nn.Cell):
        def construct(self, x):
            return ops.log(x)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
            self.log = Log()

        def construct(self, x):
            return self.log(self.scale(x)).sum()

    net = Net()
    with np.errstate(invalid="ignore"), ms.trace(net) as tr:
        ms.grad(net)(Tensor([[1.0, -3.0]]))
    first = tr.first["nan"]
    # the op that made it, inside the Cell it ran in, before that Cell returned
    assert (tr.events[first]["kind"], tr.events[first]["path"], tr.events[first]["op"]["op"]) == ("op", "log", "log")
    assert tr.events[first]["first"] == ["nan"] and tr.events[first]["tensors"][0]["nan"] == 2
    assert tr.events[first]["tensors"][0]["norm"] == "nan" and tr.events[first]["op"]["inputs_finite"]
    log_out = only(tr, "forward", "log")
    assert log_out["flags"] == ["nan"] and log_out["first"] == [] and log_out["index"] == first + 1
    later = only(tr, "forward", "")
    assert later["flags"] == ["nan"] and later["first"] == []
    assert all("nan" not in e["flags"] for e in tr.events[:first])
    assert first == 4 and "first NaN: #4 made by log" in tr.table()


def test_trace_flags_vanishing_and_exploding_gradients():
    class Scale(nn.Cell):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def construct(self, x):
            return x * self.factor

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.tiny = Scale(1e-9)
            self.huge = Scale(1e6)

        def construct(self, x):
            return self.tiny(x).sum() + self.huge(x).sum()

    net = Net()
    with ms.trace(net) as tr:
        ms.grad(net)(Tensor([1.0, 1.0]))
    exploding = tr.events[tr.first["exploding"]]
    assert (exploding["kind"], exploding["path"]) == ("backward", "huge")  # 1e6 * [1, 1]
    assert exploding["tensors"][0]["norm"] == pytest.approx(1e6 * 2 ** 0.5)
    vanishing = tr.events[tr.first["vanishing"]]
    assert (vanishing["kind"], vanishing["path"]) == ("backward", "tiny")  # 1e-9 * [1, 1]
    assert "nan" not in tr.first and "inf" not in tr.first
    last = tr.events[-1]  # the network's own input gradient, 1e6 + 1e-9: exploding, but not first
    assert (last["kind"], last["path"], last["flags"], last["first"]) == ("backward", "", ["exploding"], [])
    with ms.trace(net, exploding=1e7, vanishing=1e-12) as quiet:
        ms.grad(net)(Tensor([1.0, 1.0]))
    assert quiet.first == {}


def test_trace_records_forward_events_only_without_a_gradient_transform():
    net = Outer()
    with ms.trace(net) as tr:
        net(*two())
    assert [e["kind"] for e in tr.events] == ["forward_pre", "forward_pre", "forward", "forward"]


# ---------------------------------------------------------------------------- leaving no trace
def test_trace_restores_the_fast_path_and_keeps_no_reference():
    net = Outer()
    with ms.trace(net) as tr:
        assert tr.recording and not on_fast_path(net) and not on_fast_path(net.inner)
        ops.GradOperation(get_all=True)(net)(*two())
    assert not tr.recording
    assert on_fast_path(net) and on_fast_path(net.inner)
    assert "_observers" not in vars(net) and "_observers" not in vars(net.inner)
    ref = weakref.ref(tr)
    del tr
    gc.collect()
    assert ref() is None


def test_trace_records_nothing_after_the_block():
    net = Outer()
    with ms.trace(net) as tr:
        net(*two())
    count = len(tr)
    ops.GradOperation(get_all=True)(net)(*two())
    assert len(tr) == count == 4


def test_trace_stops_even_when_the_block_raises():
    net = Outer()
    with pytest.raises(ZeroDivisionError):
        with ms.trace(net) as tr:
            net(*two())
            1 / 0
    assert len(tr) == 4 and on_fast_path(net) and on_fast_path(net.inner)


def test_trace_rejects_bad_arguments():
    with pytest.raises(TypeError, match="Cell"):
        ms.trace("not a cell")
    with pytest.raises(ValueError, match="exploding"):
        ms.trace(Outer(), exploding=-1)
    tr = ms.trace(Outer())
    with tr, pytest.raises(RuntimeError, match="already recording"):
        tr.start()


# ---------------------------------------------------------------------------- displays
class Structure(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.attrs = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.text.append(data)


def parse(page):
    parser = Structure()
    parser.feed(page)
    parser.close()
    return parser


def spec_trace():
    net = ReluNet()
    net.relu.register_backward_hook(lambda cell, grad_input, grad_output: None)
    with ms.trace(net) as tr:
        ops.GradOperation(get_all=True)(net)(Tensor(np.ones([1]).astype(np.float32)))
    return tr


def test_trace_html_is_a_static_timeline_and_table():
    tr = spec_trace()
    bundle = tr._repr_mimebundle_()
    assert sorted(bundle) == ["text/html", "text/plain"]
    page = parse(bundle["text/html"])
    assert not {"script", "style", "svg", "iframe", "link", "img"} & set(page.tags)
    assert not any(name.startswith("on") for name, _ in page.attrs)  # no event handlers
    assert not any(value and "http" in value for _, value in page.attrs)  # no external URL
    text = " ".join(page.text)
    assert "forward →" in text and "← backward" in text
    assert "depth 0" in text and "depth 1" in text
    chunks = [t.strip() for t in page.text]
    relu_backward = chunks.index("#5→#6")  # relu's backward bar: the spec's gradients, in order
    assert chunks[relu_backward - 2:relu_backward + 3] == [
        "relu", "ReLU", "#5→#6", "grad out [1] · norm 1 · [1.]", "grad in [1] · norm 1 · [1.]"]
    assert "#7 <lambda> → None" in chunks  # the hook's badge, in the same bar
    net_backward = chunks.index("#4→#8")
    assert chunks[net_backward - 1:net_backward + 3] == [
        "ReluNet", "#4→#8", "grad out [1] · norm 1 · [1.]", "grad in [1] · norm 2 · [2.]"]  # GradOperation's result
    # two tables: the timeline (a sizing row, 2 headings, 2 forward lanes, 2 backward lanes), the events
    # (a header, then two rows per event: its facts, then its tensors across the width)
    assert page.tags.count("table") == 2
    assert page.tags.count("tr") == 7 + 1 + 2 * len(tr)
    assert bundle["text/plain"] == tr.table() == str(tr)


def test_trace_html_escapes_names():
    Evil = type("<script>alert(1)</script>", (nn.Cell,), {"construct": lambda self, x: x * 2})

    def hook(cell, inputs):
        return None

    hook.__qualname__ = "<img src=x onerror=alert(2)>"
    evil = Evil()
    evil.register_forward_pre_hook(hook)
    with ms.trace(evil) as tr:
        evil(Tensor([1.0]))
    page_text = tr.to_html()
    assert "<script" not in page_text and "<img" not in page_text
    parsed = parse(page_text)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    assert any("<script>alert(1)</script>" in t for t in parsed.text)
    assert any("<img src=x onerror=alert(2)>" in t for t in parsed.text)


def test_trace_html_marks_first_appearance_and_upto_shows_a_prefix():
    class Bad(nn.Cell):
        def construct(self, x):
            return x / 0.0

    net = Bad()
    with np.errstate(divide="ignore"), ms.trace(net) as tr:
        net(Tensor([1.0]))
    page = " ".join(parse(tr.to_html()).text)
    assert "first Inf" in page
    partial = parse(tr.to_html(upto=1))
    assert "first Inf" not in " ".join(partial.text)
    assert "showing the first 1" in " ".join(partial.text)


def test_trace_empty_trace_displays():
    tr = Trace()
    assert "no events" in tr.table()
    assert "no events" in tr.to_html()
    assert repr(tr) == "<Trace of no network: 0 events>"


# ---------------------------------------------------------------------------- export
def test_trace_json_round_trip():
    class Bad(nn.Cell):
        def construct(self, x):
            return ops.sqrt(x)

    net = Bad()
    with np.errstate(invalid="ignore"), ms.trace(net) as tr:
        ms.grad(net)(Tensor([-1.0, 4.0]))
    text = tr.to_json()
    data = json.loads(text, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))
    assert data["format"] == "cellkit.trace" and data["root"] == "Bad"
    assert data == tr.to_dict()
    again = Trace.from_json(text)
    assert again.to_dict() == tr.to_dict()
    assert again.table() == tr.table()
    assert again.to_html() == tr.to_html()
    assert again.first["nan"] == tr.first["nan"]
    with pytest.raises(RuntimeError, match="no network"):
        again.start()
    with pytest.raises(ValueError, match="not a cellkit trace"):
        Trace.from_dict({"events": []})


def test_trace_is_exposed_by_cellkit_and_cellkit_display():
    import cellkit.display

    assert cellkit.display.trace is not None
    net = nn.ReLU()
    with cellkit.display.trace(net) as tr:
        net(Tensor([1.0]))
    assert isinstance(tr, Trace) and len(tr) == 2


# ---------------------------------------------------------------------------- issue 18
import warnings  # noqa: E402

from html_probe import assert_safe, contrast_failures  # noqa: E402
from html_probe import parse as parse_tree  # noqa: E402
from models import NAN_LINE, GPT, NaNMaker, big_net, gpt_tokens, sigmoid_input, sigmoid_stack  # noqa: E402

from cellkit.display import contrast, nanwatch, trace_html  # noqa: E402


def nan_trace(**options):
    net = NaNMaker()
    with np.errstate(invalid="ignore"), ms.trace(net, **options) as tr:
        ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(
            Tensor(np.ones((2, 4), np.float32)))
    return tr


def nan_line():
    import models

    lines = open(models.__file__).read().splitlines()
    return next(i + 1 for i, text in enumerate(lines) if text.strip() == NAN_LINE)


def bars(page):
    """(text, style) of every timeline bar box."""
    root = parse_tree(page)
    table = root.find_all("table")[0]
    return [(div.text(), div.style()) for td in table.iter("td") for div in td.child_elements("div")]


def test_trace_nan_made_in_a_parents_own_code_is_blamed_on_that_code_and_op():
    tr = nan_trace()
    origin = tr.origin("nan")
    assert origin["kind"] == "op" and origin["path"] == "" and origin["cell"] == "NaNMaker"
    assert origin["op"]["op"] == "log" and origin["op"]["phase"] == "forward" and origin["op"]["inputs_finite"]
    assert origin["op"]["file"].endswith("models.py") and origin["op"]["line"] == nan_line()
    assert origin["op"]["code"] == NAN_LINE
    fc3_in = only(tr, "forward_pre", "fc3")
    assert fc3_in["flags"] == ["nan"] and fc3_in["first"] == []  # seen there, but not made there
    summary = tr.table().splitlines()[1]
    assert summary.startswith("first NaN: #5 made by log at ") and "models.py" in summary and "fc3" not in summary
    page = tr.to_html()
    ringed = [text for text, style in bars(page) if f"border:2px solid {trace_html.RING}" in style]
    assert len(ringed) == 1 and ringed[0].startswith("NaNMaker #0→#8")
    assert not any(text.startswith("fc3") for text in ringed)
    flags_line = next(d.text() for d in parse_tree(page).iter("div") if d.text().startswith("first NaN"))
    assert "made by log" in flags_line and NAN_LINE in flags_line and "inputs were finite" in flags_line


def test_trace_nan_in_a_weight_gradient_is_flagged():
    tr = nan_trace()
    (grads,) = tr.select(kind="param_grads")
    flagged = [t["index"] for t in grads["tensors"] if t.get("nan")]
    assert flagged == ["fc3.weight"] and grads["flags"] == ["nan"]
    assert len(grads["tensors"]) == 6  # every Parameter's new gradient is looked at
    assert "param_grad[fc3.weight]: [2, 4] Float32 norm=nan NaN×4" in tr.table()
    assert "NaN/Inf in fc3.weight" in parse_tree(tr.to_html()).text()


def test_trace_without_op_errors_names_the_parents_own_code(monkeypatch):
    monkeypatch.setattr(nanwatch, "supported", lambda: False)  # as on CuPy: no floating-point error reports
    tr = nan_trace()
    origin = tr.origin("nan")
    assert origin["kind"] == "op" and origin["path"] == "" and origin["op"]["op"] is None
    assert (origin["op"]["after"], origin["op"]["before"]) == ("fc2", "fc3")
    assert "made by the own code of NaNMaker, between fc2 and fc3" in tr.table()
    assert any("no floating-point errors" in note for note in tr.notes)


def test_trace_numpy_warning_points_at_the_users_line():
    net = NaNMaker()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ms.trace(net):
            net(Tensor(np.ones((2, 4), np.float32)))
    (warning,) = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert warning.filename.endswith("models.py") and warning.lineno == nan_line()
    assert "invalid value encountered in log" in str(warning.message)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError, match="log"):
        with ms.trace(net):
            net(Tensor(np.ones((2, 4), np.float32)))
    assert np.geterr()["invalid"] == "warn" and np.geterrcall() is None  # left as it was


def test_trace_op_watch_reports_no_nan_where_an_error_left_none():
    net = sigmoid_stack()
    with np.errstate(over="ignore"), ms.trace(net) as tr:
        net(Tensor(np.full((2, 8), -1e4, np.float32)))  # exp overflows inside sigmoid, the output is finite
    assert tr.select(kind="op") == [] and "nan" not in tr.first and "inf" not in tr.first


def test_trace_html_keeps_its_warning_colours_untrusted_and_in_both_themes():
    page = nan_trace().to_html()
    assert_safe(page)
    assert contrast_failures(page) == []
    chips = [e for e in parse_tree(page).iter("span") if e.text() == "first NaN"]
    assert chips
    for chip in chips:
        background = contrast.effective_declaration(chip.style(), "background-color", trusted=False)
        colour = contrast.effective_declaration(chip.style(), "color", trusted=False)
        assert background and colour and contrast.contrast_ratio(background, colour) >= 4.5
    assert "var(" not in page or all("var(" not in v for v in [chip.style() for chip in chips])


def test_trace_a_hook_that_raised_is_reported_in_red():
    net = Outer()

    def broken(cell, inputs, output):
        raise ValueError("bad shape")

    net.inner.register_forward_hook(broken)
    with pytest.raises(ValueError), ms.trace(net) as tr:
        net(*two())
    lines = tr.table().splitlines()
    assert "no NaN, Inf" in lines[1]
    assert "hook broken (forward) on inner (XY) raised ValueError: bad shape" in lines[2]
    page = parse_tree(tr.to_html())
    raised = [e for e in page.iter("span") if e.text() == "hooks"]
    assert raised and "background-color:#b42318" in raised[0].style()
    assert any(e.text().startswith("#") and "broken raised" in e.text() for e in page.iter("span"))


def test_trace_bar_shows_a_forward_hooks_replacement_output():
    net = Outer()
    net.inner.register_forward_hook(lambda cell, inputs, output: output * 0.5)
    with ms.trace(net) as tr:
        net(*two())
    (hook,) = tr.select(kind="hook")
    assert hook["hook"]["before_norm"] == pytest.approx(float(np.linalg.norm([5.0, 7.0])))
    assert hook["hook"]["after_norm"] == pytest.approx(float(np.linalg.norm([2.5, 3.5])))
    inner_bar = [text for text, _ in bars(tr.to_html()) if "inner" in text and "XY" in text][0]
    assert "after <lambda>: norm 8.602 → 4.301" in inner_bar
    assert "replaced 1× (norm 8.602 → 4.301)" in tr.table()


def test_trace_ledger_reports_a_backward_hook_that_never_fired():
    net = NaNMaker()
    net.fc1.register_backward_hook(lambda cell, grad_input, grad_output: None)
    net.fc2.register_forward_pre_hook(lambda cell, inputs: None)
    with np.errstate(invalid="ignore"), ms.trace(net) as tr:
        ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(
            Tensor(np.ones((2, 4), np.float32)))
    ledger = {(h["path"], h["stage"]): h for h in tr.hook_ledger()}
    silent = ledger[("fc1", "backward")]
    assert silent["fired"] == 0 and "no gradient leaves this Cell" in silent["reason"]
    assert ledger[("fc2", "forward_pre")]["fired"] == 1
    assert "1 registered hook never fired: backward hook <lambda> on fc1" in tr.table()
    page = parse_tree(tr.to_html())
    ledger_text = [d.text() for d in page.iter("details") if d.text().startswith("Hook ledger")][0]
    assert "registered but never fired" in ledger_text and "fired 1×" in ledger_text
    with np.errstate(invalid="ignore"), ms.trace(net) as forward_only:
        net(Tensor(-np.ones((2, 4), np.float32)))
    reasons = {(h["path"], h["stage"]): h["reason"] for h in forward_only.hook_ledger()}
    assert reasons[("fc1", "backward")] == "no gradient transform ran inside the trace"


def test_trace_timeline_fits_the_width_for_a_thousand_cells():
    net = big_net(100)
    x = Tensor(np.ones((2,), np.float32))
    with ms.trace(net) as tr:
        net(x)
    page = tr.to_html()
    root = assert_safe(page)
    table = root.find_all("table")[0]
    assert "table-layout:fixed" in table.style() and "width:100%" in table.style()
    widths = [sum(int(td.attrs.get("colspan", 1)) for td in tr_.child_elements("td") + tr_.child_elements("th"))
              for tr_ in table.child_elements("tr")]
    assert max(widths) <= trace_html.MAX_FIT_COLUMNS + 1
    assert "calls deeper than depth" in root.text() or "share a bar" in root.text()
    zoomed = assert_safe(tr.to_html(depth=2, window=(10, 14)))
    assert "showing columns 10–14" in zoomed.text()


def test_trace_integer_tensors_get_no_norm_and_statistics_count_finite_values():
    gpt = GPT(n_blocks=1)
    with ms.trace(gpt) as tr:
        gpt(gpt_tokens())
    ids = tr.events[0]["tensors"][0]
    assert ids["dtype"] == "Int32" and "norm" not in ids and "mean" not in ids and ids["max"] < 64
    assert "norm" not in describe_first_free(tr.table().splitlines()[3])
    nan = nan_trace().origin("nan")["tensors"][0]
    assert (nan["nan"], nan["finite"]) == (4, 4)


def describe_first_free(line):
    """The tensor part of a text-table line."""
    return line.split("inputs[0]:", 1)[1]


def test_trace_flag_summary_links_to_the_timeline_bar():
    page = nan_trace().to_html()
    root = parse_tree(page)
    links = [a.attrs["href"] for a in root.iter("a")]
    ids = {e.attrs["id"] for e in root.iter() if "id" in e.attrs}
    assert links and all(link[1:] in ids for link in links)


def test_trace_vanishing_gradient_first_seen_deep_in_a_sigmoid_stack():
    net = sigmoid_stack()
    with ms.trace(net) as tr:
        ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(sigmoid_input())
    first = tr.origin("vanishing")
    assert first["kind"] in ("backward_pre", "backward") and "vanishing" in first["first"]
    (grads,) = tr.select(kind="param_grads")
    first_weight = next(t for t in grads["tensors"] if t["index"] == "0.weight")
    assert 1e-24 < first_weight["norm"] < 1e-22 and grads["flags"] == ["vanishing"]


def test_trace_leaves_a_running_profiler_alone():
    import cProfile
    import sys

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        tr = nan_trace()
        hook = sys.getprofile()
    finally:
        profiler.disable()
    assert hook is not None  # still the profiler's, not ours
    origin = tr.origin("nan")  # found from the events instead: the parent's own code, op unknown
    assert origin["kind"] == "op" and origin["path"] == "" and origin["op"]["op"] is None


def test_trace_finds_an_inf_made_in_backward_by_an_ops_gradient_rule():
    class Root(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")

        def construct(self, x):
            return ops.sqrt(self.scale(x)).sum()  # forward is fine at 0; d sqrt / dx = 1 / (2 sqrt(x)) is not

    net = Root()
    with np.errstate(divide="ignore", invalid="ignore"), ms.trace(net) as tr:
        ms.grad(net, grad_position=None, weights=net.trainable_params())(Tensor([[0.0, 0.0]]))
    origin = tr.origin("inf")
    assert origin["kind"] == "op" and origin["op"]["phase"] == "backward" and origin["op"]["op"] == "sqrt"
    assert origin["path"] == "" and origin["op"]["inputs_finite"]
    assert "made by sqrt in backward (its gradient rule)" in tr.table()
    (grads,) = tr.select(kind="param_grads")
    assert {t["index"] for t in grads["tensors"] if t.get("nan") or t.get("inf")} == {"scale.weight", "scale.bias"}
