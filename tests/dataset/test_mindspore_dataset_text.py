"""cellkit's dataset.text against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/dataset_text.py`` runs here under cellkit (``ms=cellkit``)
and is compared with ``tests/fixtures/mindspore/dataset_text.json``, which
``tools/record_mindspore.py dataset_text`` wrote by running the same case text under MindSpore
(PyNative, CPU).  This test reads only the fixture: MindSpore is never imported.  The rules of
the comparison are in ``tests/mindspore_cases/compare.py``.  A case with no fixture entry
fails: record it first with
``/work/msvenv/bin/python tools/record_mindspore.py dataset_text --only <case>``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "dataset_text"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_dataset_text_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_dataset_text_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_dataset_text_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def _strings_of(value):
    """The strings of a fixture value, in order (string results are what the text cases differ in)."""
    if isinstance(value, dict):
        if "str" in value:
            return [value["str"]]
        return [s for v in value.values() if isinstance(v, (list, dict)) for s in _strings_of(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings_of(v)]
    return []


def _plain_strings(value):
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _plain_strings(v)]
    return []


def test_dataset_text_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs (numbers or strings)."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if not case.mindspore_wrong or "value" not in entry or entry.get("expected_structure_differs"):
            continue
        differs_in_numbers = entry["expected_max_abs_diff"] > max(case.atol, 1e-3)
        differs_in_strings = _strings_of(entry["value"]) != _plain_strings(case.expected(np))
        assert differs_in_numbers or differs_in_strings, f"{case.name}: MindSpore agrees with expected(np)"
