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
    assert (tr.events[first]["kind"], tr.events[first]["path"]) == ("forward", "log")
    assert tr.events[first]["first"] == ["nan"] and tr.events[first]["tensors"][0]["nan"] == 2
    assert tr.events[first]["tensors"][0]["norm"] == "nan"
    later = only(tr, "forward", "")
    assert later["flags"] == ["nan"] and later["first"] == []
    assert all("nan" not in e["flags"] for e in tr.events[:first])
    assert first == 4 and "first NaN: #4 forward of log (Log)" in tr.table()


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
        assert tr.recording and not net._fast_call and not net.inner._fast_call
        ops.GradOperation(get_all=True)(net)(*two())
    assert not tr.recording
    assert net._fast_call and net.inner._fast_call
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
    assert len(tr) == 4 and net._fast_call and net.inner._fast_call


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
    assert chunks[relu_backward:relu_backward + 5] == [
        "#5→#6", "relu", "ReLU", "grad out [1] · norm 1 · [1.]", "grad in [1] · norm 1 · [1.]"]
    assert "#7 <lambda> → None" in chunks  # the hook's badge, in the same bar
    net_backward = chunks.index("#4→#8")
    assert chunks[net_backward:net_backward + 4] == [
        "#4→#8", "ReluNet", "grad out [1] · norm 1 · [1.]", "grad in [1] · norm 2 · [2.]"]  # GradOperation's result
    # two tables: the timeline (2 headings + 2 forward lanes + 2 backward lanes), the events (header + 9)
    assert page.tags.count("table") == 2
    assert page.tags.count("tr") == 6 + 1 + len(tr)
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
