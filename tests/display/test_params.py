"""The parameter table: rows, numbers, totals, tied parameters and limits, read back from the HTML."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn
from cellkit.display import stats

from html_probe import assert_safe
from models import Net, fixed_dense

COLUMNS = ["#", "name", "shape", "dtype", "grad", "elements", "bytes", "share", "device", "mean", "std", "min",
           "max", "histogram"]


def table(markup):
    """(header texts, body rows as lists of cell texts, footer text) of the parameter table."""
    root = assert_safe(markup)
    (tbl,) = root.find_all("table")
    (thead,) = tbl.child_elements("thead")
    (tbody,) = tbl.child_elements("tbody")
    (tfoot,) = tbl.child_elements("tfoot")
    heads = [th.text() for th in thead.find_all("th")]
    body = [[td.text() for td in tr.child_elements("td")] for tr in tbody.child_elements("tr")]
    return heads, body, tfoot.text()


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
    assert (w["#"], w["shape"], w["dtype"], w["grad"], w["elements"], w["bytes"], w["device"]) == \
        ("1", "[2, 3]", "Float32", "✓", "6", "24 B", "CPU")
    assert by_name["scale"]["grad"] == "frozen"
    assert sum(int(r[5]) for r in body) == 6 + 2 + 2 + 2 + 1


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
    assert names[0].startswith("enc.weight") and "also: dec.weight" in names[0]
    assert t.total_count == 16 + 4 + 4
    assert "1 shared, counted once" in foot
    assert "is also at: dec.weight" in t.text()


def test_params_gradient_norm_column_reads_the_recorded_value():
    net = Small()
    net.first.weight._last_grad_norm = 0.125
    net.second.bias._last_grad_norm = ms.Tensor(3.5)
    heads, body, _ = table(display.parameter_table(net).html())
    assert heads[-1] == "grad norm"
    norms = {r[1]: r[-1] for r in body}
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
    assert lines[0].split()[:4] == ["#", "name", "shape", "dtype"]
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
