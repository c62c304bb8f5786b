"""Run the hardening tests and print the reliability table (docs/reliability.md) as Markdown.

    .venv/bin/python tools/reliability_table.py            # print the table
    .venv/bin/python tools/reliability_table.py --write    # also rewrite the table in docs/reliability.md

Runs ``pytest tests/hardening`` with ``CELLKIT_RELIABILITY_DIR`` set to a
temporary folder; each hardening module leaves its counts there (see
tests/hardening/reliability.py), one JSON list of rows per module.  The
table has one row per area: how many inputs were tried, how many of them
were deliberate faults, how many broke the area's rule, and how many left
something lost.  The script exits non-zero if the tests fail, so a table is
only printed for a passing run.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reliability.md"
BEGIN, END = "<!-- reliability-table:begin -->", "<!-- reliability-table:end -->"

# The order of the rows: the points, then anything a new module adds.
MODULE_ORDER = ["test_api_walk", "test_all_or_nothing", "test_checkpoint_fuzz", "test_display_payloads",
                "test_leaks", "test_gpu_fallback"]


def run_tests(folder, extra_args=()):
    env = dict(os.environ, CELLKIT_RELIABILITY_DIR=str(folder))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "tests/hardening", *extra_args]
    return subprocess.run(command, cwd=ROOT, env=env).returncode


def read_rows(folder):
    """``[(module, row)]`` from every ``<module>.json`` in ``folder``, in MODULE_ORDER."""
    files = sorted(pathlib.Path(folder).glob("*.json"),
                   key=lambda p: (MODULE_ORDER.index(p.stem) if p.stem in MODULE_ORDER else len(MODULE_ORDER),
                                  p.stem))
    return [(path.stem, row) for path in files for row in json.loads(path.read_text())]


def markdown(rows):
    head = ["Area", "Module", "Inputs tried", "Faults injected", "Rule broken", "Lost"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", "---", "---:", "---:", "---:", "---:"]) + "|"]
    total = dict.fromkeys(("inputs_tried", "faults_injected", "failures", "lost"), 0)
    for module, row in rows:
        for key in total:
            total[key] += int(row.get(key, 0))
        lines.append(f"| {row['area']} | `{module}` | {row['inputs_tried']:,} | {row['faults_injected']:,} | "
                     f"{row['failures']:,} | {row['lost']:,} |")
    lines.append(f"| **All areas** | | **{total['inputs_tried']:,}** | **{total['faults_injected']:,}** | "
                 f"**{total['failures']:,}** | **{total['lost']:,}** |")
    return "\n".join(lines) + "\n"


def write_doc(table):
    text = DOC.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + table + text[end:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the table in docs/reliability.md")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cellkit-reliability-") as folder:
        code = run_tests(folder, args.pytest_args)
        if code != 0:
            print(f"tests/hardening failed (exit {code}): no table", file=sys.stderr)
            return code
        table = markdown(read_rows(folder))
    print(table)
    if args.write:
        write_doc(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
