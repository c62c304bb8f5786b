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
        return x


class Group(Leaf):
    """Ten Parameters of its own and nine Leaves: ten Cells, a hundred Parameters."""

    def __init__(self, widths):
        super().__init__(widths[0])
        for k, w in enumerate(widths):
            setattr(self, f"leaf{k}", Leaf(w))


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
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
    print("\n(the tree stops after 300 rows and the table after 100 rows, both with counts of what is left out)")


if __name__ == "__main__":
    main()
