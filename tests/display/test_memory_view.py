"""Memory displays: the report's text / HTML / SVG, comparisons, the memory graph and the recompute form.

The HTML is read back with html.parser (``html_probe``) and the SVG with
xml.etree, and the numbers are checked against the report they show.
"""
import base64
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import cellkit as ms
from cellkit import display, memory, nn
from cellkit.display import memory_fates
from cellkit.display import memory_svg, memory_view
from cellkit.display.html import format_bytes
from cellkit.display.memory_timeline import format_mib, keep_points, peak_index, replay_spans
from cellkit.memory import MemoryEvent, MemoryReport
from tests.blocks import ResidualBlock

from html_probe import assert_safe, parse, contrast_failures

SVG = "{http://www.w3.org/2000/svg}"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


def blocks(n=4, recompute=False):
    ms.set_seed(0)
    net = nn.SequentialCell([ResidualBlock(32, 32) for _ in range(n)])
    if recompute:
        for block in net:
            block.recompute()
    return net


def loss_of(net):
    return lambda x: net(x).sum()


def batch(rows=128):
    """Activations (rows x 32) outweigh the 32 x 32 weights, so recompute has something to save."""
    return ms.Tensor(np.random.default_rng(0).standard_normal((rows, 32)).astype(np.float32))


def measure(net, label, timing=False):
    step = ms.grad(loss_of(net), grad_position=None, weights=net.trainable_params())
    return memory.profile(step, batch(), net=net, label=label, timing=timing)


@pytest.fixture(scope="module")
def plain():
    return measure(blocks(), "no recompute", timing=True)


@pytest.fixture(scope="module")
def recomputed():
    return measure(blocks(recompute=True), "recompute", timing=True)


def svg_root(svg):
    return ET.fromstring(svg)


def svg_texts(root, cls=None):
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if cls is None or t.get("class") == cls]


def mib_in(text):
    """The number before 'MiB' in ``text``."""
    return float(re.search(r"([0-9.]+) MiB", text).group(1))


def assert_mib_close(shown, nbytes):
    assert shown == pytest.approx(nbytes / 2**20, rel=5e-3, abs=5e-5), (shown, nbytes)


def table_titled(root, title):
    return next(t for t in root.find_all("table") if t.attrs.get("title") == title)


def body_rows(table):
    """The text of each cell, row by row, header row left out."""
    rows = [tr for tr in table.find_all("tr") if tr.child_elements("td")]
    return [[td.text().strip() for td in tr.child_elements("td")] for tr in rows]


# ---------------------------------------------------------------------------- one report
def test_memory_view_bundle_has_text_html_and_svg(plain):
    bundle = plain._repr_mimebundle_()
    assert sorted(bundle) == ["image/svg+xml", "text/html", "text/plain"]
    assert_safe(bundle["text/html"])
    root = svg_root(bundle["image/svg+xml"])
    assert root.tag == f"{SVG}svg"
    assert bundle["text/plain"].startswith("Memory: no recompute (CPU): peak")


def test_memory_view_peak_label_shows_the_peak_in_mib(plain):
    bundle = memory_view.report_bundle(plain)
    label = svg_texts(svg_root(bundle["image/svg+xml"]), "peak-label")
    assert len(label) == 1 and f"(event {plain.peak_step}, " in label[0] and (", in " in label[0] or ")" in label[0])
    assert_mib_close(mib_in(label[0]), plain.peak_bytes)
    html_text = parse(bundle["text/html"]).text()
    assert f"peak {format_mib(plain.peak_bytes)} at event {plain.peak_step}" in html_text
    assert_mib_close(mib_in(bundle["text/plain"].splitlines()[0]), plain.peak_bytes)


def test_memory_view_legend_roles_match_the_roles_at_the_peak(plain, recomputed):
    for report in (plain, recomputed):
        root = assert_safe(memory_view.report_bundle(report)["text/html"])
        rows = body_rows(table_titled(root, "roles at the peak"))
        at_peak = report.by_role_at_peak()
        assert [r[0] for r in rows] == list(at_peak)
        assert [r[1] for r in rows] == [format_bytes(n) for n in at_peak.values()]
        svg_legend = svg_texts(svg_root(memory_view.report_bundle(report)["image/svg+xml"]), "legend")
        assert set(at_peak) <= set(svg_legend)
    assert "recomputed" in recomputed.by_role_at_peak() and "recomputed" not in plain.by_role_at_peak()


def test_memory_view_cell_rows_match_by_cell(recomputed):
    root = assert_safe(memory_view.report_bundle(recomputed)["text/html"])
    rows = body_rows(table_titled(root, "cells by bytes at the peak"))
    by_cell = recomputed.by_cell()
    assert sorted(r[0] for r in rows) == sorted(by_cell)
    for path, at_peak, _bar, allocated, count in rows:
        assert at_peak == format_bytes(by_cell[path]["at_peak"])
        assert allocated == format_bytes(by_cell[path]["allocated"])
        assert int(count.replace(",", "")) == by_cell[path]["count"]
    shown_at_peak = [by_cell[r[0]]["at_peak"] for r in rows]
    assert shown_at_peak == sorted(shown_at_peak, reverse=True)  # most held at the peak first


def test_memory_view_replays_are_shaded_and_backward_marked(plain, recomputed):
    root = svg_root(memory_view.report_bundle(recomputed)["image/svg+xml"])
    bands = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "replay"]
    assert len(bands) == len(replay_spans(recomputed)) == 4
    assert "backward →" in svg_texts(root)
    plain_root = svg_root(memory_view.report_bundle(plain)["image/svg+xml"])
    assert not [r for r in plain_root.iter(f"{SVG}rect") if r.get("class") == "replay"]
    assert "4 recompute replays" in memory_view.report_text(recomputed)


def test_memory_view_offloaded_bytes_are_a_dashed_line():
    mib = 2**20
    events = [MemoryEvent(0, "alloc", 4 * mib, "saved", "CPU", "0", "dense"),
              MemoryEvent(1, "move", 4 * mib, "saved", "host", "0", "dense"),
              MemoryEvent(2, "alloc", 2 * mib, "activation", "CPU", "1", "dense"),
              MemoryEvent(3, "move", 4 * mib, "saved", "CPU", "0", "dense"),
              MemoryEvent(4, "free", 2 * mib, "activation", "CPU", "1", "dense")]
    report = MemoryReport("offload", "CPU", events, 0, {}, None, None, 0.0, None, None)
    root = svg_root(memory_svg.report_svg(report))
    host = [p for p in root.iter(f"{SVG}path") if p.get("class") == "host"]
    assert len(host) == 1 and host[0].get("stroke-dasharray")
    assert "offloaded to host" in svg_texts(root, "legend")
    no_host = svg_root(memory_svg.report_svg(MemoryReport("x", "CPU", events[:1], 0, {}, None, None, 0.0, None, None)))
    assert not [p for p in no_host.iter(f"{SVG}path") if p.get("class") == "host"]


def test_memory_view_allocator_figure_and_agreement_are_stated(plain):
    text = memory_view.report_text(plain)
    assert f"{plain.allocator} peak {format_mib(plain.allocator_peak_bytes)}" in text
    assert f"accounted / allocator = {plain.agreement():.2f}" in text
    assert f"accounted / allocator = {plain.agreement():.2f}" in parse(memory_view.report_bundle(plain)["text/html"]).text()


# ---------------------------------------------------------------------------- comparison
def test_memory_view_comparison_states_the_saving_and_time_ratio(plain, recomputed):
    comparison = plain.compare(recomputed)
    saving = 1 - recomputed.peak_bytes / plain.peak_bytes
    assert saving > 0
    stated = f"{saving:.0%} less peak memory"
    # one run each is noise: no ratio is presented as a finding
    single = comparison._repr_mimebundle_()["text/plain"].splitlines()[0]
    assert "time not compared: one run each" in single and "x time" not in single and "×" not in single
    from cellkit.display import timing

    timing.attach(plain, [0.010, 0.011, 0.012, 0.0105, 0.0111])
    timing.attach(recomputed, [0.013, 0.0143, 0.0144, 0.0140, 0.0139])
    ratio = timing.Ratio(timing.runs_of(plain), timing.runs_of(recomputed)).text()
    assert ratio.startswith("×1.") and "median of 5 interleaved runs" in ratio and "spread ×" in ratio
    bundle = comparison._repr_mimebundle_()
    assert sorted(bundle) == ["image/svg+xml", "text/html", "text/plain"]
    html_root = assert_safe(bundle["text/html"])
    svg = svg_root(bundle["image/svg+xml"])
    for text in (bundle["text/plain"], html_root.text(), " ".join(svg_texts(svg, "headline"))):
        assert stated in text and ratio in text
    # both panels on one scale: the same top tick in each, and one peak label per panel
    labels = svg_texts(svg, "peak-label")
    assert len(labels) == 2
    assert_mib_close(mib_in(labels[0]), plain.peak_bytes)
    assert_mib_close(mib_in(labels[1]), recomputed.peak_bytes)


def test_memory_view_comparison_panels_share_one_y_scale(plain, recomputed):
    svg = svg_root(memory_view.comparison_bundle(plain.compare(recomputed))["image/svg+xml"])
    circles = [c for c in svg.iter(f"{SVG}circle")]
    assert len(circles) == 2
    ys = [float(c.get("cy")) for c in circles]
    # the higher peak sits higher on the page, in proportion to the bytes
    assert ys[0] < ys[1]
    html_root = parse(memory_view.comparison_bundle(plain.compare(recomputed))["text/html"])
    scales = [td.text() for td in html_root.find_all("td") if td.attrs.get("title") == "chart scale"]
    assert len(scales) == 2 and scales[0] == scales[1]
    assert_mib_close(mib_in(scales[0]), 1.08 * plain.peak_bytes)  # the higher peak sets both


# ---------------------------------------------------------------------------- safety
def _nasty_report():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self._cells[SCRIPT] = type(SCRIPT, (nn.Dense,), {})(8, 8)
            self._cells[IMG] = nn.GELU()

        def construct(self, x):
            return self._cells[IMG](self._cells[SCRIPT](x))

    net = Holder()
    x = ms.Tensor(np.ones((2, 8), np.float32))
    step = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())
    return memory.profile(step, x, net=net, label=IMG + SCRIPT)


def _assert_inert_svg(svg):
    root = svg_root(svg)
    for element in root.iter():
        assert not element.tag.endswith("script") and not element.tag.endswith("foreignObject")
        assert not [name for name in element.attrib if name.lower().startswith("on")]
    return root


def test_memory_view_escapes_labels_and_cell_paths():
    report = _nasty_report()
    assert {SCRIPT, IMG} <= {e.path for e in report.events}
    bundle = memory_view.report_bundle(report)
    root = assert_safe(bundle["text/html"])  # no script/img element, no on* attribute
    assert SCRIPT in root.text() and IMG in root.text()
    svg = _assert_inert_svg(bundle["image/svg+xml"])
    assert any(IMG in t for t in svg_texts(svg))
    comparison = memory_view.comparison_bundle(report.compare(report))
    assert_safe(comparison["text/html"])
    _assert_inert_svg(comparison["image/svg+xml"])
    graph = display.memory_graph(report)
    _assert_inert_svg(graph.svg(engine="fallback"))
    assert any(SCRIPT in " ".join(n.lines) for n in graph.nodes)


def test_memory_view_has_no_external_urls(plain, recomputed):
    bundles = [memory_view.report_bundle(plain), memory_view.comparison_bundle(plain.compare(recomputed))]
    for bundle in bundles:
        assert "http:" not in bundle["text/html"] and "https:" not in bundle["text/html"]
        # the one URL-shaped string in the SVG is its XML namespace, which is a name, not a fetch
        svg = bundle["image/svg+xml"].replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "http:" not in svg and "https:" not in svg and "href" not in svg
    graph_svg = display.memory_graph(recomputed).svg(engine="fallback").replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "http:" not in graph_svg and "https:" not in graph_svg


def test_memory_view_never_raises(plain, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(memory_view, "report_svg", broken)
    bundle = memory_view.report_bundle(plain)
    assert "image/svg+xml" not in bundle and "SVG chart failed (RuntimeError: boom)" in bundle["text/plain"]
    monkeypatch.setattr(memory_view, "report_html", broken)
    bundle = memory_view.report_bundle(plain)
    assert "HTML view failed" in bundle["text/plain"] and "HTML view failed" in bundle["text/html"]
    monkeypatch.setattr(memory_view, "report_text", broken)
    bundle = memory_view.report_bundle(plain)
    assert list(bundle) == ["text/plain"] and "boom" in bundle["text/plain"]
    chart = memory_view.memory_chart(plain)
    assert chart.svg is None and "SVG chart failed" in chart.text()


# ---------------------------------------------------------------------------- long timelines
def _long_report(n=100_000):
    """A random walk of allocations and frees with one spike: the peak, well inside the timeline."""
    rng = np.random.default_rng(0)
    coins, sizes = rng.random(n).tolist(), (rng.integers(1, 64, n) * 4096).tolist()
    events, live, stack = [], 0, []
    spike = n * 2 // 3
    for step in range(n):
        if step == spike:
            events.append(MemoryEvent(step, "alloc", 64 * 2**20, "saved", "CPU", "spike", "dense"))
            stack.append((64 * 2**20, "saved"))
        elif step == spike + 1:
            nbytes, role = stack.pop()
            events.append(MemoryEvent(step, "free", nbytes, role, "CPU", "spike", "dense"))
        elif stack and (coins[step] < 0.5 or live > 48 * 2**20):
            nbytes, role = stack.pop()
            live -= nbytes
            events.append(MemoryEvent(step, "free", nbytes, role, "CPU", "cell", "op"))
        else:
            nbytes = sizes[step]
            role = ("activation", "gradient")[step % 2]
            stack.append((nbytes, role))
            live += nbytes
            events.append(MemoryEvent(step, "alloc", nbytes, role, "CPU", "cell", "op"))
    return MemoryReport("long", "CPU", events, 0, {}, None, None, 0.0, None, None)


def test_memory_chart_thins_a_long_timeline_and_keeps_the_peak():
    report = _long_report()
    index = peak_index(report)
    assert report.events[report.steps[index]].path == "spike"
    kept = keep_points(report.live, 1200, must_keep=[index])
    assert index in kept and len(kept) <= 1200 + 3
    svg = memory_svg.report_svg(report)
    assert len(svg.encode()) < 300_000
    root = svg_root(svg)
    peak_y = float(next(root.iter(f"{SVG}circle")).get("cy"))
    top_area = next(p for p in root.iter(f"{SVG}path") if p.get("class") == "area")  # the whole stack
    highest = min(float(v) for v in re.findall(r"V([0-9.]+)", top_area.get("d")))
    assert highest == pytest.approx(peak_y, abs=0.06)  # the drawn stack reaches the peak, exactly
    assert_mib_close(mib_in(svg_texts(root, "peak-label")[0]), report.peak_bytes)
    bundle = memory_view.report_bundle(report)
    assert len(bundle["text/html"].encode()) < 300_000
    assert f"peak {format_mib(report.peak_bytes)}" in parse(bundle["text/html"]).text()


# ---------------------------------------------------------------------------- memory graph
def test_memory_graph_marks_saved_freed_and_recomputed(plain, recomputed):
    g = display.memory_graph(recomputed, group_repeats=False)
    by_name = {n.lines[0]: n for n in g.nodes}
    assert set(by_name) == {e.path for e in recomputed.events if e.kind != "mark" and e.path} | {"recompute"}
    block = " ".join(by_name["0"].lines)
    assert "recomputed" in block and "saved" in block
    assert "freed in forward" in " ".join(by_name["0.up"].lines)
    dot_line = next(line for line in g.source.splitlines() if line.startswith(f'  "{by_name["0"].id}" [label='))
    assert "\\nsaved " in dot_line and "\\nrecomputed " in dot_line
    assert 'fillcolor="#fde8e8", color="#e15759"' in dot_line  # a recomputed box is drawn red
    plain_lines = " ".join(" ".join(n.lines) for n in display.memory_graph(plain, group_repeats=False).nodes)
    assert not re.search(r"recomputed [0-9]", plain_lines) and re.search(r"saved [0-9]", plain_lines)


def test_memory_graph_follows_forward_order_and_draws_without_dot(recomputed):
    g = display.memory_graph(recomputed, group_repeats=False)
    name = {n.id: n.lines[0] for n in g.nodes}
    forward = [(name[a], name[b]) for a, b, _, style in g.edges if style == "forward"]
    assert ("0", "1") in forward and ("1", "2") in forward and ("0.up", "0.act") in forward
    svg = g.svg(engine="fallback")
    boxes = [r for r in svg_root(svg).iter(f"{SVG}rect") if r.get("class") == "box"]
    assert len(boxes) == len(g.nodes)
    assert "image/svg+xml" in g._repr_mimebundle_()


def test_memory_graph_draws_look_alike_blocks_once():
    recomputed = measure(blocks(5, recompute=True), "recompute")
    g = display.memory_graph(recomputed)
    heads = [n.lines[0] for n in g.nodes]
    # block 0 differs (its input needs no gradient) and so does block 4 (its output is freed in forward: the
    # loss's sum keeps no input); blocks 1-3 fared alike and share one box, as do their children
    assert heads == ["recompute", "0", "0.up", "0.act", "0.down", "1 … 3", "1.up … 3.up", "1.act … 3.act",
                     "1.down … 3.down", "4", "4.up", "4.act", "4.down"]
    group = next(n for n in g.nodes if n.lines[0] == "1 … 3")
    assert group.lines[1] == "×3 alike, each:" and any(line.startswith("recomputed ") for line in group.lines)
    fates = memory_fates.cell_fates(recomputed)
    assert fates["1"]["recomputed"] == fates["2"]["recomputed"] == fates["3"]["recomputed"]


# ---------------------------------------------------------------------------- chart output and form
def test_memory_chart_is_an_svg_output_with_a_themed_html_twin(plain, recomputed):
    for obj in (plain, plain.compare(recomputed)):
        bundle = display.memory_chart(obj)._repr_mimebundle_()
        assert sorted(bundle) == ["image/svg+xml", "text/html", "text/plain"]
        svg = svg_root(bundle["image/svg+xml"])
        # no white board: nothing paints the whole chart, and every label has a halo
        assert not [r for r in svg.iter(f"{SVG}rect") if r.get("width") == svg.get("width")]
        assert all(t.get("stroke") == "#ffffff" for t in svg.iter(f"{SVG}text") if t.get("fill") in ("#1f2937",
                                                                                                    "#4b5563"))
        assert contrast_failures(bundle["text/html"]) == []


def test_recompute_explorer_toggles_recompute_and_measures_again():
    pytest.importorskip("ipywidgets")
    net = blocks(2)
    form = display.recompute_explorer(net, loss_of(net), batch(), timing=False)
    ex = form.explorer
    assert list(ex.toggles) == ["0", "0.up", "0.act", "0.down", "1", "1.up", "1.act", "1.down"]
    ex.measure_button.click()
    assert len(ex.reports) == 1 and ex.reports[0].label == "no recompute"
    assert "recomputed" not in ex.reports[0].by_role_at_peak()
    ex.toggles["0"].value = True
    ex.toggles["1"].value = True
    assert net[0]._recompute is not None and net[1]._recompute is not None
    ex.measure_button.click()
    assert len(ex.reports) == 2 and ex.reports[1].label == "recompute 0, 1"
    assert any(e.role == "recomputed" for e in ex.reports[1].events)
    saving = 1 - ex.reports[1].peak_bytes / ex.reports[0].peak_bytes
    assert f"{saving:.0%} less peak memory" in parse(ex.status.value).text()
    src = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', ex.chart.value).group(1)
    chart = svg_root(base64.b64decode(src).decode())
    assert len(svg_texts(chart, "peak-label")) == 2  # beside the previous measurement
    ex.clear_button.click()
    assert net[0]._recompute is None and net[1]._recompute is None


def test_recompute_explorer_reports_a_failed_measurement():
    pytest.importorskip("ipywidgets")
    net = blocks(1)

    def bad_loss(x):
        raise ValueError("no loss here")

    ex = display.recompute_explorer(net, bad_loss, batch(), timing=False).explorer
    assert ex.measure() is None and not ex.reports
    assert "no loss here" in parse(ex.status.value).text()


def test_recompute_explorer_without_ipywidgets_shows_one_measurement(monkeypatch):
    from cellkit.display import widgets

    monkeypatch.setattr(widgets, "_widgets", lambda: None)
    net = blocks(1)
    view = display.recompute_explorer(net, loss_of(net), batch())
    assert "not available" in view.text() and "peak" in view.text()
    assert_safe(view.html())


def test_recompute_explorer_times_several_interleaved_runs_and_carries_a_twin():
    pytest.importorskip("ipywidgets")
    from cellkit.display import timing

    net = blocks(2)
    form = display.recompute_explorer(net, loss_of(net), batch(), runs=3)
    ex = form.explorer
    ex.measure_button.click()
    assert timing.runs_of(ex.reports[0]) == []  # nothing to compare with yet: no ratio
    ex.toggles["0"].value = True
    ex.measure_button.click()
    assert len(timing.runs_of(ex.reports[0])) == 3 and len(timing.runs_of(ex.reports[1])) == 3
    assert net[0]._recompute is not None and net[1]._recompute is None  # the setting is the one ticked
    status = parse(ex.status.value).text()
    assert "median of 3 interleaved runs each" in status and "spread ×" in status
    bundle = form._repr_mimebundle_()
    assert "median of 3 interleaved runs" in bundle["text/plain"]
    assert "recompute explorer" in assert_safe(bundle["text/html"]).text()


def test_memory_comparison_of_equal_peaks_says_the_same_not_zero_percent_less(plain):
    text = memory_view.comparison_text(plain.compare(plain))
    assert "the same peak memory as" in text and "0% less" not in text


def test_memory_html_chart_names_the_phase_and_the_cell_at_the_peak(recomputed):
    html = memory_view.report_bundle(recomputed)["text/html"]
    root = assert_safe(html)
    marker = next(d.text() for d in root.iter("div") if "peak" in d.text() and "▲" in d.text())
    assert ("(backward, in " in marker or "(forward, in " in marker)
    band = [s.text() for s in root.iter("span") if s.attrs.get("title") in ("forward pass", "backward pass")]
    assert band == ["forward", "backward"]
    assert contrast_failures(html) == []
