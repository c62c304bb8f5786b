"""A 1,000-cell network with 10,000 Parameters: the displays stay small and say what they left out.

Time is measured in ``benchmarks/display.py``, not here.
"""
import re

import pytest

from cellkit import display
from cellkit.display import stats

from html_probe import assert_safe, parameter_table_parts
from models import big_net

LIMIT = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def net():
    return big_net(100)


def test_scale_network_has_a_thousand_cells_and_ten_thousand_parameters(net):
    assert sum(1 for _ in net.cells_and_names()) == 1001
    assert sum(1 for _ in net.get_parameters()) == 10_000


def test_scale_tree_is_small_and_counts_what_it_leaves_out(net):
    tree = display.cell_tree(net)
    html = tree.html()
    assert len(html.encode()) < LIMIT
    root = assert_safe(html)
    notes = [e.text() for e in root.iter("div") if re.search(r"more cells? not shown", e.text()) and not e.find_all("div")]
    hidden = sum(int(n.split("…")[1].split("more")[0].replace(",", "")) for n in notes)
    drawn = sum(1 for s in root.iter("span") if s.style() == "display:block")
    assert drawn == 300 and drawn + hidden == 1001
    text = tree.text()
    assert len(text.encode()) < LIMIT and re.search(r"more cells? not shown", text)
    assert "1,001 cells · 10,000 Parameters" in root.text()


def test_scale_table_is_small_counts_everything_and_computes_shown_rows_only(net, monkeypatch):
    calls = []
    original = stats.summarize
    monkeypatch.setattr(stats, "summarize", lambda data, bins=16: calls.append(1) or original(data, bins))
    table = display.parameter_table(net)
    html = table.html()
    assert len(html.encode()) < LIMIT and len(calls) == 100
    root = assert_safe(html)
    ((_, rows, _),) = parameter_table_parts(root)
    assert len(rows) == 101
    assert "9,900 more parameters not shown" in root.text()
    assert len(table.rows) == 10_000
    assert table.total_count == sum(p.size for p in net.get_parameters())


def test_scale_mimebundle_of_the_big_network(net):
    bundle = net._repr_mimebundle_()
    assert len(bundle["text/html"].encode()) < LIMIT and len(bundle["text/plain"].encode()) < LIMIT
