"""How long the notebook displays take, and how much HTML they write, as networks grow.

    python benchmarks/display.py

Builds networks of 10, 100 and 1,000 Cells (plus a root) holding ten
Parameters each (so the largest holds 10,000 Parameters), in two shapes:

- ``distinct``: every Cell differs (no run of identical blocks to fold), the
  worst case for the tree;
- ``repeated``: a stack of identical blocks, which the tree folds into
  ``Block × N``.

For each it times ``cell_tree(net).html()``, ``parameter_table(net).html()``
and the text forms (best of a few runs) and reports the HTML size.  The
targets (issue 5): under 0.2 s and under 2 MB for the 1,000-Cell network.

Then, for the 1,000-Cell network (issue 18), the four figures a notebook
user waits for: the tree and the table (HTML), building the explorer
widget, and one gradient step recorded by a trace (recording, then its HTML).
Every Leaf adds one of its Parameters to the value it passes on, so the
step reaches all 10,000 Parameters.  Only APIs that existed before issue 18
are used, so the same script measures the code before and after::

    python benchmarks/display.py --only-issue18                      # this checkout
    PYTHONPATH=/path/to/old/checkout python benchmarks/display.py --only-issue18
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import cellkit as ms
from cellkit import display, nn


class Leaf(nn.Cell):
    """A Cell with ten small Parameters, sized by ``width`` so that Leaves can differ."""

    def __init__(self, width):
        super().__init__()
        for i in range(10):
            setattr(self, f"p{i}", ms.Parameter(ms.Tensor(np.full((width,), 0.5 + i, np.float32))))

    def construct(self, x):
        return x + self.p0[:1]


class Group(Leaf):
    """Ten Parameters of its own and nine Leaves: ten Cells, a hundred Parameters."""

    def __init__(self, widths):
        super().__init__(widths[0])
        self.leaves = [f"leaf{k}" for k in range(len(widths))]
        for k, w in enumerate(widths):
            setattr(self, f"leaf{k}", Leaf(w))

    def construct(self, x):
        x = x + self.p0[:1]
        for name in self.leaves:
            x = getattr(self, name)(x)
        return x


def build(n_cells, distinct=True):
    """A network of ``n_cells`` + 1 Cells (a root and groups of ten) with ten Parameters per Cell."""
    groups = []
    for g in range(max(1, n_cells // 10)):
        widths = [1 + (g * 9 + k) % 97 for k in range(9)] if distinct else [8] * 9
        groups.append(Group(widths))
    return nn.SequentialCell(groups)


def best_of(fn, repeat):
    best = float("inf")
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def issue18(repeat):
    """Tree, table, explorer build and a traced gradient step on the distinct 1,000-Cell network."""
    net = build(1000, distinct=True)
    x = ms.Tensor(np.ones((2,), np.float32))
    step = ms.grad(lambda t: net(t).sum(), grad_position=None, weights=net.trainable_params())
    step(x)  # warm: the first call builds caches a notebook would already have
    t_tree, _ = best_of(lambda: display.cell_tree(net).html(), repeat)
    t_table, _ = best_of(lambda: display.parameter_table(net).html(), repeat)
    try:
        import ipywidgets  # noqa: F401  (the explorer is a widget: time it only where it can be built)
        t_explore, _ = best_of(lambda: display.explore(net), repeat)
    except ImportError:
        t_explore = float("nan")

    def traced():
        with ms.trace(net) as tr:
            step(x)
        return tr

    t_trace, tr = best_of(traced, max(1, repeat // 2))
    t_trace_html, page = best_of(lambda: tr.to_html(), max(1, repeat // 2))
    cells = sum(1 for _ in net.cells_and_names())
    params = sum(1 for _ in net.get_parameters())
    print(f"the {cells - 1:,}-cell network ({params:,} Parameters), best of {repeat}:")
    print(f"  tree html          {t_tree * 1e3:8.1f} ms   (target < 200 ms)")
    print(f"  table html         {t_table * 1e3:8.1f} ms   (target < 200 ms)")
    print(f"  explorer build     {t_explore * 1e3:8.1f} ms")
    print(f"  trace of one step  {t_trace * 1e3:8.1f} ms   recording {len(tr.events):,} events")
    print(f"  trace html         {t_trace_html * 1e3:8.1f} ms   {len(page.encode()) / 1024:.0f} KB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only-issue18", action="store_true", help="only the 1,000-cell figures of issue 18")
    args = parser.parse_args()
    if args.only_issue18:
        issue18(args.repeat)
        return
    print(f"cellkit display benchmark (backend: {ms.backend.current().name}; best of {args.repeat})\n")
    header = (f"{'network':>20} {'cells':>6} {'params':>7} | {'tree html':>10} {'size':>9} {'tree text':>10} | "
              f"{'table html':>10} {'size':>9} {'table text':>10}")
    print(header)
    print("-" * len(header))
    for shape in ("distinct", "repeated"):
        for n in (10, 100, 1000):
            net = build(n, distinct=shape == "distinct")
            cells = sum(1 for _ in net.cells_and_names())
            params = sum(1 for _ in net.get_parameters())
            t_tree, tree_html = best_of(lambda: display.cell_tree(net).html(), args.repeat)
            t_tree_text, _ = best_of(lambda: display.cell_tree(net).text(), args.repeat)
            t_table, table_html = best_of(lambda: display.parameter_table(net).html(), args.repeat)
            t_table_text, _ = best_of(lambda: display.parameter_table(net).text(), args.repeat)
            print(f"{shape + ' ' + str(n):>20} {cells:>6} {params:>7} | {t_tree * 1e3:>8.1f}ms "
                  f"{len(tree_html.encode()) / 1024:>7.1f}KB {t_tree_text * 1e3:>8.1f}ms | "
                  f"{t_table * 1e3:>8.1f}ms {len(table_html.encode()) / 1024:>7.1f}KB {t_table_text * 1e3:>8.1f}ms")
    print("\n(the tree stops after 300 rows and the table after 100 rows, both with counts of what is left out)\n")
    issue18(args.repeat)


if __name__ == "__main__":
    main()
