"""The hand-written fft cases (``tests/mindspore_cases/ops_fft_extra.py``) against MindSpore 2.10's fixture.

These are what the op catalogue cannot declare (see the case module's docstring); the fixture
``tests/fixtures/mindspore/ops_fft_extra.json`` was written by
``/work/msvenv/bin/python tools/record_mindspore.py ops_fft_extra``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, encode_expected, read_fixture, record_command

MODULE = "ops_fft_extra"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_fft_extra_case_matches_mindspore(name):
    case = CASES[name]
    check_case(case, (RECORDED or {"cases": {}})["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_fft_extra_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_fft_extra_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            recorded_dtypes = _dtypes(entry["value"])
            expected_dtypes = _dtypes(encode_expected(case.expected(np)))
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3) or recorded_dtypes != expected_dtypes, (
                f"{case.name}: MindSpore agrees with expected(np); drop mindspore_wrong")


def _dtypes(value):
    """The dtype names of the tensors in a fixture value, in order."""
    if isinstance(value, dict):
        if "dtype" in value and "tensor" in value:
            return [value["dtype"]]
        return [d for v in value.values() if isinstance(v, (dict, list)) for d in _dtypes(v)]
    if isinstance(value, list):
        return [d for v in value for d in _dtypes(v)]
    return []
