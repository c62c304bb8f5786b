"""The parameter table: rows, numbers, totals, tied parameters and limits, read back from the HTML."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn
from cellkit.display import stats

from html_probe import assert_safe, parameter_table_parts
from models import Net, fixed_dense

COLUMNS = ["#", "name", "shape", "mean", "std", "histogram", "min", "max", "dtype", "kind", "elements", "bytes",
           "share", "device"]


def table(markup):
    """(header texts, body rows as lists of field texts, footer text) of the parameter table."""
    (found,) = parameter_table_parts(assert_safe(markup))
    return found


def as_float(text):
    return float(text)


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = fixed_dense(3, 2, 0)
        self.scale = ms.Parameter(ms.Tensor(np.array([2.0, -1.0], np.float32)), name="scale", requires_grad=False)
        self.second = fixed_dense(2, 1, 1)

    def construct(self, x):
        return self.second(self.first(x) * self.scale)


def test_params_rows_in_registration_order_with_shapes_and_bytes():
    net = Small()
    heads, body, foot = table(display.parameter_table(net).html())
    assert heads == COLUMNS
    names = [r[1] for r in body]
    # MindSpore's order: the Cell's own Parameters, then each child's, in registration order
    assert names == ["scale", "first.weight", "first.bias", "second.weight", "second.bias"]
    assert names == [p.name for p in net.get_parameters()]
    by_name = {r[1]: dict(zip(COLUMNS, r)) for r in body}
    w = by_name["first.weight"]
    assert (w["#"], w["shape"], w["dtype"], w["kind"], w["elements"], w["bytes"], w["device"]) == \
        ("1", "[2, 3]", "Float32", "trainable", "6", "24 B", "CPU")
    assert by_name["scale"]["kind"] == "frozen"
    assert sum(int(r[COLUMNS.index("elements")]) for r in body) == 6 + 2 + 2 + 2 + 1


def test_params_statistics_match_numpy():
    net = Small()
    _, body, _ = table(display.parameter_table(net).html())
    for row in body:
        cells = dict(zip(COLUMNS, row))
        values = net.parameters_dict()[cells["name"]].asnumpy().astype(np.float64)
        for key, expected in (("mean", values.mean()), ("std", values.std()), ("min", values.min()),
                              ("max", values.max())):
            assert as_float(cells[key]) == pytest.approx(expected, rel=1e-3, abs=1e-6), (cells["name"], key)


def test_params_totals_split_trainable_and_frozen():
    net = Small()
    t = display.parameter_table(net)
    assert (t.total_count, t.trainable_count, t.frozen_count) == (13, 11, 2)
    assert (t.total_bytes, t.trainable_bytes, t.frozen_bytes) == (52, 44, 8)
    _, _, foot = table(t.html())
    assert "5 parameters · 13 elements · 52 B" in foot
    assert "trainable 11 (44 B)" in foot and "frozen 2 (8 B)" in foot
    assert t.text().splitlines()[-1] == \
        "total: 5 parameters, 13 elements (52 B) · trainable 11 (44 B) · frozen 2 (8 B)"


def test_params_tied_parameter_listed_once_with_aliases():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = fixed_dense(4, 4, 1)
            self.dec = fixed_dense(4, 4, 2)
            self.dec.weight = self.enc.weight

        def construct(self, x):
            return x

    t = display.parameter_table(Tied())
    _, body, foot = table(t.html())
    names = [r[1] for r in body]
    assert len(names) == 3  # enc.weight (shared), enc.bias, dec.bias
    assert names[0].startswith("enc.weight") and "also at: dec.weight" in names[0]
    assert t.total_count == 16 + 4 + 4
    assert "1 shared, counted once" in foot
    assert "is also at: dec.weight" in t.text()


def test_params_gradient_norm_column_reads_the_recorded_value():
    net = Small()
    net.first.weight._last_grad_norm = 0.125
    net.second.bias._last_grad_norm = ms.Tensor(3.5)
    heads, body, _ = table(display.parameter_table(net).html())
    assert heads[3] == "grad norm"  # right after name and shape: what matters first
    norms = {r[1]: r[3] for r in body}
    assert norms["first.weight"] == "0.125" and norms["second.bias"] == "3.5" and norms["scale"] == "–"
    assert "grad norm" not in table(display.parameter_table(Small()).html())[0]


def test_params_flags_nan_and_inf_in_the_name_cell():
    net = Small()
    values = net.first.weight.asnumpy()
    values[0, 0], values[1, 2], values[0, 1] = np.nan, np.inf, np.nan
    net.first.weight.set_data(ms.Tensor(values))
    _, body, _ = table(display.parameter_table(net).html())
    assert "NaN 2" in body[1][1] and "Inf 1" in body[1][1]
    assert "NaN" not in body[0][1]
    finite = values[np.isfinite(values)]
    assert as_float(body[1][COLUMNS.index("mean")]) == pytest.approx(finite.mean(), rel=1e-3)
    assert "over the 3 finite values of 6" in body[1][1]
    assert "[NaN 2, Inf 1]" in display.parameter_table(net).text()


def test_params_max_rows_truncates_and_computes_only_shown_statistics(monkeypatch):
    net = Net(n_blocks=4)
    calls = []
    original = stats.summarize
    monkeypatch.setattr(stats, "summarize", lambda data, bins=16: calls.append(1) or original(data, bins))
    t = display.parameter_table(net, max_rows=5)
    _, body, foot = table(t.html())
    total = len(list(net.get_parameters()))
    assert len(body) == 6 and len(calls) == 5
    assert f"… {total - 5} more parameters not shown" in body[-1][0]
    assert f"{total} parameters" in foot and t.total_count == 40 + 4 * 352 + 18
    assert f"… {total - 5} more parameters not shown" in t.text()


def test_params_table_of_a_parameter_list():
    a = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="a")
    b = ms.Parameter(ms.Tensor(np.zeros((3,), np.float32)), name="b", requires_grad=False)
    t = display.parameter_table([a, b, a])
    assert [r.name for r in t.rows] == ["a", "b"]
    assert (t.trainable_count, t.frozen_count) == (4, 3)


def test_params_text_twin_lists_every_shown_row():
    net = Small()
    lines = display.parameter_table(net).text().splitlines()
    assert lines[0].split()[:4] == ["#", "name", "shape", "mean"]
    assert [line.split()[1] for line in lines[1:6]] == ["scale", "first.weight", "first.bias", "second.weight",
                                                        "second.bias"]


def test_params_show_the_norm_of_the_latest_gradient_from_a_transform():
    import cellkit as ms
    from cellkit import nn, ops
    from cellkit.display.tensor_view import grad_norm_of

    net = nn.Dense(3, 2)
    assert grad_norm_of(net.weight) is None  # nothing recorded yet
    x = ms.Tensor(np.ones((4, 3), np.float32))
    grads = ms.grad(lambda t: net(t).sum(), grad_position=None, weights=net.trainable_params())(x)
    expected = float(np.linalg.norm(grads[0].asnumpy()))
    assert grad_norm_of(net.weight) == pytest.approx(expected, rel=1e-6)
    assert "_last_grad" not in net.weight.clone().__dict__
    table_text = str(display.parameter_table(net).text())
    assert f"{expected:.4g}" in table_text


# ---------------------------------------------------------------------------- issue 18
from html_probe import contrast_failures  # noqa: E402
from models import AutoEncoder, ResNet, sigmoid_input, sigmoid_stack  # noqa: E402


def test_params_vanishing_gradient_norm_is_computed_in_float64():
    net = sigmoid_stack()
    ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(sigmoid_input())
    grad = net[0].weight._last_grad.asnumpy()
    assert float(np.sqrt(np.sum(grad * grad))) == 0.0  # what float32 says
    expected = float(np.linalg.norm(grad.astype(np.float64)))
    t = display.parameter_table(net)
    heads, body, _ = table(t.html())
    first = dict(zip(heads, body[0]))
    assert first["name"] == "0.weight" and float(first["grad norm"]) == pytest.approx(expected, rel=1e-2)
    assert t.rows[0].grad_norm == pytest.approx(expected, rel=1e-9) and 1e-24 < expected < 1e-22
    assert t.status(t.rows[0]) == "vanishing" and "[vanishing]" in t.text()
    view = display.tensor_view(net[0].weight)
    assert view.part.grad_norm == pytest.approx(expected, rel=1e-9)
    assert f"grad norm={expected:.4g}" in view.text()


def test_params_batchnorm_statistics_are_not_counted_as_frozen():
    net = AutoEncoder()
    t = display.parameter_table(net)
    kinds = {r.name: r.kind for r in t.rows}
    assert kinds["norm.moving_mean"] == kinds["norm.moving_variance"] == "statistic"
    assert kinds["encoder.bias"] == "frozen" and kinds["norm.gamma"] == "trainable"
    assert (t.frozen_params, t.statistic_params) == (1, 2)
    assert t.frozen_count == 8 and t.statistic_count == 16
    _, _, foot = table(t.html())
    assert "frozen 8 (32 B)" in foot and "statistics 16 (64 B)" in foot
    assert "statistics 16 (64 B, updated in forward, never trained)" in t.text()


def test_params_rows_fold_instead_of_scrolling():
    t = display.parameter_table(ResNet())
    root = assert_safe(t.html())
    assert "overflow-x" not in t.html() and "<table" not in t.html()
    (_, rows, _), = parameter_table_parts(root)
    outer = root.child_elements("div")[0].child_elements("div")[1]
    head, first = outer.child_elements("div")[:2]
    head_widths = [f.style().split("width:")[1].split(";")[0] for f in head.child_elements("span")]
    row_widths = [f.style().split("width:")[1].split(";")[0]
                  for f in first.child_elements("div")[0].child_elements("span")]
    assert head_widths == row_widths  # every row folds where the header folds
    assert "white-space:normal" in head.style() and all("display:inline-block" in f.style()
                                                         for f in head.child_elements("span"))
    assert [f.text() for f in head.child_elements("span")][:3] == ["#", "name", "shape"]


def test_params_say_when_statistics_cover_only_the_finite_values():
    values = np.full((32,), np.nan, np.float32)
    values[:4] = [1.0, 2.0, 3.0, 4.0]
    p = ms.Parameter(ms.Tensor(values), name="mostly_nan")
    _, body, _ = table(display.parameter_table([p]).html())
    row = dict(zip(COLUMNS, body[0]))
    assert row["mean"] == "2.5" and "NaN 28 of 32" in row["name"]
    assert "mean, std, min, max over the 4 finite values of 32" in row["name"]
    view = display.tensor_view(ms.Tensor(values))
    assert "over the 4 finite values of 32" in view.text()
    assert "over the 4 finite values of 32" in assert_safe(view.html()).text()


def test_params_and_tensor_view_meet_contrast_in_both_themes():
    net = AutoEncoder()
    values = net.decoder.bias.asnumpy().copy()
    values[0] = np.nan
    net.decoder.bias.set_data(ms.Tensor(values))
    ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(ms.ops.ones((4, 8)))
    assert contrast_failures(display.parameter_table(net).html()) == []
    assert contrast_failures(display.tensor_view(net.decoder.bias).html()) == []
    assert contrast_failures(display.tensor_view(ms.Tensor([1, 2, 3], ms.int32)).html()) == []
