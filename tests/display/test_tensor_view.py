"""Tensor and Parameter views: statistics on the device, NaN/Inf, histogram, value preview."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import display
from cellkit.display import stats

from html_probe import assert_safe


def stat_cells(markup):
    """{label: text} of the statistics row of a tensor view."""
    root = assert_safe(markup)
    table = root.find_all("table")[0]
    head, values = table.child_elements("tr")
    return {th.text(): td.text() for th, td in zip(head.child_elements("th"), values.child_elements("td"))}


def preview_rows(markup):
    """The value preview as rows of cell texts (labels included)."""
    root = assert_safe(markup)
    table = root.find_all("table")[1]
    return [[td.text() for td in tr.child_elements("td")] for tr in table.child_elements("tr")]


def test_tensor_view_summary_matches_numpy_on_every_backend(backend):
    host = np.random.default_rng(0).standard_normal((37, 23)).astype(np.float32)
    host[3, 4], host[5, 6], host[7, 8] = np.nan, np.inf, -np.inf
    data = backend.from_host(host)
    s = stats.summarize(data, bins=10)
    finite = host[np.isfinite(host)].astype(np.float64)
    assert (s.size, s.nan, s.posinf, s.neginf, s.finite) == (host.size, 1, 1, 1, host.size - 3)
    assert s.mean == pytest.approx(finite.mean(), rel=1e-5)
    assert s.std == pytest.approx(finite.std(), rel=1e-4)
    assert (s.min, s.max) == (pytest.approx(finite.min()), pytest.approx(finite.max()))
    expected, _ = np.histogram(finite, bins=10, range=(finite.min(), finite.max()))
    assert sum(s.hist) == finite.size
    assert np.abs(np.array(s.hist) - expected).sum() <= 2  # float32 binning may move an edge value


def test_tensor_view_copies_only_a_few_numbers_to_the_host(backend, monkeypatch):
    copied = []
    original = stats.to_host

    def spy(array):
        copied.append(int(np.prod(array.shape)))
        return original(array)

    monkeypatch.setattr(stats, "to_host", spy)
    data = backend.from_host(np.arange(100_000, dtype=np.float32).reshape(100, 1000))
    s = stats.summarize(data, bins=16)
    assert len(copied) == 2 and max(copied) <= 17
    stats.preview(data, rows=8, cols=8)
    assert len(copied) == 3 and copied[-1] == 64
    assert s.hist == [6250] * 16


def test_tensor_view_integer_and_bool_histograms():
    s = stats.summarize(np.array([0, 1, 1, 3, 3, 3], dtype=np.int32))
    assert s.hist == [1, 2, 0, 3] and (s.lo, s.hi) == (-0.5, 3.5)
    b = stats.summarize(np.array([True, False, True, True]))
    assert b.hist == [1, 3] and b.mean == 0.75
    c = stats.summarize(np.full((5,), 2.5, np.float32))
    assert c.hist == [5] and c.std == 0.0


def test_tensor_view_shows_header_statistics_and_flags_nan_inf():
    t = ms.Tensor(np.array([[1.0, np.nan, 3.0], [np.inf, 5.0, 6.0]], np.float32))
    view = display.tensor_view(t)
    html = view.html()
    root = assert_safe(html)
    header = root.find_all("div")[1].text()
    assert header.startswith("Tensor") and "[2, 3]" in header and "Float32" in header and "CPU" in header
    assert "6 elements · 24 B" in header
    cells = stat_cells(html)
    assert cells["mean"] == "3.75" and cells["min"] == "1" and cells["max"] == "6"
    assert cells["NaN"] == "NaN 1" and cells["Inf"] == "Inf 1"
    flagged = [s for s in root.iter("span") if s.text() in ("NaN 1", "Inf 1")]
    assert len(flagged) == 2 and all("background" in s.style() for s in flagged)
    assert "NaN 1  <-- !" in view.text() and "Inf 1  <-- !" in view.text()


def test_tensor_view_preview_shows_the_corners():
    host = np.arange(20 * 30, dtype=np.float32).reshape(20, 30)
    rows = preview_rows(display.tensor_view(ms.Tensor(host), rows=4, cols=4).html())
    assert rows[0] == ["", "0", "1", "⋯", "28", "29"]
    assert rows[1] == ["0", "0.0", "1.0", "⋯", "28.0", "29.0"]  # floats look like floats
    assert rows[3][0] == "⋮"
    assert rows[-1] == ["19", "570.0", "571.0", "⋯", "598.0", "599.0"]


def test_tensor_view_rank_three_shows_the_first_matrix():
    view = display.tensor_view(ms.Tensor(np.arange(24).reshape(2, 3, 4)))
    assert "values of x[0, :, :]" in assert_safe(view.html()).text()
    rows = preview_rows(view.html())
    assert rows[-1] == ["2", "8", "9", "10", "11"]
    assert "x[0, :, :] =" in view.text()


def test_tensor_view_parameter_name_trainable_and_grad_norm():
    p = ms.Parameter(ms.Tensor(np.ones((3,), np.float32)), name="layer.weight", requires_grad=False)
    p._last_grad_norm = 0.5
    html = display.tensor_view(p).html()
    root = assert_safe(html)
    assert root.find_all("b")[0].text() == "Parameter"
    assert root.find_all("code")[0].text() == "layer.weight"
    assert "frozen" in root.text()
    assert stat_cells(html)["grad norm"] == "0.5"
    assert p._repr_mimebundle_()["text/plain"].startswith("Parameter layer.weight  shape=[3]")
    assert repr(p) == "Parameter (name=layer.weight, shape=(3,), dtype=Float32, requires_grad=False)"


def test_tensor_view_mimebundle_keeps_mindspore_repr():
    t = ms.Tensor([1.0, 2.0])
    bundle = t._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert bundle["text/plain"].splitlines()[0] == "Tensor  shape=[2]  dtype=Float32  device=CPU  2 elements (8 B)"
    assert repr(t) == "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])"


def test_tensor_view_on_a_strict_device(backend):
    t = ms.Tensor(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))
    view = display.tensor_view(t)
    assert view.summary.mean == 1.5 and view.summary.max == 4.0
    assert view.device == ("CPU" if backend.name == "numpy" else stats.device_of(t._data))
    assert_safe(view.html())


@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16, ms.int8, ms.uint8, ms.bool_, ms.float64])
def test_tensor_view_every_dtype(dtype):
    t = ms.Tensor(np.array([[0, 1], [1, 1]]), dtype=dtype)
    view = display.tensor_view(t)
    assert view.summary.mean == pytest.approx(0.75)
    assert str(dtype) in view.text()
    assert_safe(view.html())


def test_tensor_view_empty_placeholder_and_lazy_tensors():
    from cellkit.common.initializer import initializer

    empty = display.tensor_view(ms.Tensor(np.zeros((0, 3), np.float32)))
    assert empty.summary.size == 0 and "0 elements" in empty.text()
    assert_safe(empty.html())
    placeholder = display.tensor_view(ms.Tensor(shape=(None, 3), dtype=ms.float32))
    assert "placeholder" in placeholder.text()
    lazy_tensor = initializer("ones", (2, 3), ms.float32)
    lazy = display.tensor_view(lazy_tensor)
    if lazy_tensor.has_init:
        assert "not initialised" in lazy.text() and lazy_tensor._data is None  # the display does not initialise
    assert_safe(lazy.html())
