"""Coverage of MindSpore 2.10's API never falls below the figures recorded in docs/api_coverage.md.

The names MindSpore 2.10 exports are data: a copy of ``../shared/reference`` lives in
``tests/fixtures/api_reference/`` so that this test runs in CI on a checkout of its own.  The count
follows ``../shared/tools/api_coverage.py``: a name is covered when the same attribute path exists
in cellkit.  Where ``../shared`` is beside the checkout, a second test keeps the copy current.
"""
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COPY = ROOT / "tests" / "fixtures" / "api_reference"
SHARED = ROOT.parent / "shared" / "reference"
DOC = ROOT / "docs" / "api_coverage.md"

# row -> (namespace in the reference, where cellkit keeps it, which names count)
ROWS = {
    "ops.functions": ("ops", "cellkit.ops", "cpu, lower case"),
    "ops.primitives": ("ops", "cellkit.ops", "cpu, upper case"),
    "nn": ("nn", "cellkit.nn", "cpu"),
    "Tensor": ("Tensor", "cellkit:Tensor", "all"),
    "top-level": ("mindspore", "cellkit", "cpu"),
    "amp": ("amp", "cellkit.amp", "cpu or no platform line"),
    "train": ("train", "cellkit.train", "cpu or no platform line"),
    "dataset.vision": ("dataset.vision", "cellkit.dataset.vision", "cpu or no platform line"),
    "dataset.transforms": ("dataset.transforms", "cellkit.dataset.transforms", "cpu or no platform line"),
}


def _counts(cpu, name, rule):
    """Whether a reference name with this ``cpu`` flag (True, False or None) is in the row's target."""
    if rule == "all":
        return True
    if rule == "cpu or no platform line":
        return cpu is not False
    if not cpu:
        return False
    if rule == "cpu, lower case":
        return name[0].islower()
    if rule == "cpu, upper case":
        return name[0].isupper()
    return True


def _excluded():
    pairs = set()
    for line in (COPY / "api_exclusions.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            namespace, name = line.split()[:2]
            pairs.add((namespace, name))
    return pairs


def _holder(path):
    module, _, attribute = path.partition(":")
    try:
        obj = importlib.import_module(module)
    except ImportError:
        return None
    return getattr(obj, attribute) if attribute else obj


def measured_rows():
    """``{row: covered}`` for cellkit as it is now."""
    reference = json.loads((COPY / "mindspore-2.10-api.json").read_text(encoding="utf-8"))["namespaces"]
    excluded = _excluded()
    rows = {}
    for row, (namespace, path, rule) in ROWS.items():
        names = [n for n, cpu in reference.get(namespace, {}).items()
                 if _counts(cpu, n, rule) and (namespace, n) not in excluded]
        holder = _holder(path)
        rows[row] = sum(1 for n in names if holder is not None and hasattr(holder, n))
    return rows


def recorded_rows():
    """``{row: covered}`` from the table in docs/api_coverage.md."""
    table = DOC.read_text().split("<!-- coverage-table -->")[1].split("<!-- /coverage-table -->")[0]
    rows = {}
    for line in table.splitlines():
        match = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+\d+%$", line.strip())
        if match:
            rows[match.group(1)] = int(match.group(2))
    return rows


def test_api_coverage_does_not_fall_below_the_recorded_figures():
    measured, recorded = measured_rows(), recorded_rows()
    assert set(recorded) == set(ROWS), "docs/api_coverage.md must list every row"
    fallen = {row: (measured[row], covered) for row, covered in recorded.items() if measured[row] < covered}
    assert not fallen, f"coverage fell below docs/api_coverage.md (now, recorded): {fallen}"


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/reference is not beside this checkout")
def test_the_reference_copy_is_current():
    for name in ("mindspore-2.10-api.json", "api_exclusions.txt"):
        assert (COPY / name).read_bytes() == (SHARED / name).read_bytes(), f"tests/fixtures/api_reference/{name} is stale"
