"""Coverage of MindSpore 2.10's API never falls below the figures recorded in docs/api_coverage.md.

The reference list lives beside the repository (``../shared``); where it is absent (a checkout on
its own) the test is skipped.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT.parent / "shared" / "tools" / "api_coverage.py"
DOC = ROOT / "docs" / "api_coverage.md"


def recorded_rows():
    """``{row: covered}`` from the table in docs/api_coverage.md."""
    table = DOC.read_text().split("<!-- coverage-table -->")[1].split("<!-- /coverage-table -->")[0]
    rows = {}
    for line in table.splitlines():
        match = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+\d+%$", line.strip())
        if match:
            rows[match.group(1)] = int(match.group(2))
    return rows


@pytest.mark.skipif(not TOOL.exists(), reason="../shared/tools/api_coverage.py is not beside this checkout")
def test_api_coverage_does_not_fall_below_the_recorded_figures(tmp_path):
    out = tmp_path / "coverage.json"
    subprocess.run([sys.executable, str(TOOL), "--json", str(out)], check=True, capture_output=True, timeout=300)
    measured = {row["row"]: row["covered"] for row in json.loads(out.read_text())}
    recorded = recorded_rows()
    assert recorded, "docs/api_coverage.md has no coverage table"
    fallen = {row: (measured.get(row, 0), covered) for row, covered in recorded.items()
              if measured.get(row, 0) < covered}
    assert not fallen, f"coverage fell below docs/api_coverage.md (now, recorded): {fallen}"
