"""cellkit's Cell and containers against what real MindSpore 2.10 recorded (issue 15, point 3).

Every case in ``tests/mindspore_cases/cell_semantics.py`` runs here under cellkit (``ms=cellkit``)
and is compared with ``tests/fixtures/mindspore/cell_semantics.json``, which
``tools/record_mindspore.py cell_semantics`` wrote by running the same case text under MindSpore
(PyNative, CPU).  MindSpore is never imported here; the comparison rules are in
``tests/mindspore_cases/compare.py``.

``DELIBERATE`` lists the few cases where cellkit differs on purpose (each documented in
``docs/mindspore_differences.md``); they are strict xfails, so one that starts matching MindSpore
fails the suite until its entry is removed.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, encode_expected, read_fixture, record_command

MODULE = "cell_semantics"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)

# The cases where cellkit differs from MindSpore 2.10 on purpose, each listed with its reason in
# docs/mindspore_differences.md.  They are strict xfails: one that starts matching MindSpore fails the
# suite until its entry (and the documented difference) goes.
DELIBERATE = {
    "bhook_grad_input_when_one_position_requested": (
        "a backward hook's grad_input holds None for a Cell input outside grad_position: cellkit records only "
        "what the requested gradients need (MindSpore treats every argument as an input of the gradient "
        "graph and computes that gradient too)"),
    "bhook_grad_input_when_second_position_requested": (
        "as bhook_grad_input_when_one_position_requested: None for the input outside grad_position"),
    "sig_shard_device_keyword_raises": (
        "shard keeps the spec's device= and level= (cell_api_zh.txt documents them; MindSpore 2.10 dropped "
        "them and raises TypeError) and returns the Cell, as the spec says"),
}


def _params():
    for name in CASES.names():
        reason = DELIBERATE.get(name)
        marks = [pytest.mark.xfail(strict=True, reason=f"deliberate difference: {reason}")] if reason else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_cell_semantics_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_cell_semantics_deliberate_list_names_real_cases():
    unknown = sorted(set(DELIBERATE) - set(CASES.names()))
    assert not unknown, f"DELIBERATE names cases that do not exist: {unknown}"


def test_cell_semantics_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_cell_semantics_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_cell_semantics_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore answered otherwise."""
    for case in CASES:
        if not case.mindspore_wrong:
            continue
        entry = RECORDED["cases"][case.name]
        assert case.note, f"{case.name}: say how MindSpore is wrong in the case's note"
        assert "value" not in entry or entry["value"] != _as_json(encode_expected(case.expected(np))), (
            f"{case.name}: MindSpore's recorded answer equals expected(np); drop mindspore_wrong")


def _as_json(value):
    """An encoded expected value in the fixture's JSON form (tuples as lists, arrays as lists)."""
    import json
    return json.loads(json.dumps(value, default=lambda v: v.tolist()))
