"""The nn-functional Primitives with conventions of their own against what MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/nnfunc_primitives.py`` runs here under cellkit and is
compared with ``tests/fixtures/mindspore/nnfunc_primitives.json`` (written by
``/work/msvenv/bin/python tools/record_mindspore.py nnfunc_primitives``), by the rules of
``tests/mindspore_cases/compare.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "nnfunc_primitives"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_nnfunc_primitive_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_nnfunc_primitives_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_nnfunc_primitives_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"
