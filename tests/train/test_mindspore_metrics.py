"""cellkit's metrics against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/metrics.py`` runs here under cellkit (``ms=cellkit``) and is
compared with ``tests/fixtures/mindspore/metrics.json``: each metric's ``update``/``eval``/``clear``
answers (values and their types: a NumPy float, a Python float or an array), argument checks and
exceptions, ``get_metric_fn``/``names``, ``set_indexes``/``rearrange_inputs``, and that
``nn``, ``train`` and the top level hold the same objects.  MindSpore is never imported; the
comparison rules are in ``tests/mindspore_cases/compare.py``.  Record a missing case with
``/work/msvenv/bin/python tools/record_mindspore.py metrics --only <case>``.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, encode_expected, read_fixture, record_command

MODULE = "metrics"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_metrics_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_metrics_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_metrics_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_metrics_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs (or raised)."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            same_text = json.dumps(entry["value"]) == json.dumps(encode_expected(case.expected(np)), default=str)
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3) or not same_text, case.name
