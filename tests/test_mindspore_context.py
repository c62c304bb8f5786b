"""``get_context``/``set_context`` and ``MSContext`` against MindSpore 2.10 (``tests/fixtures/mindspore/context_params.json``)."""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "context_params"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_context_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_context_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_a_refused_set_context_changes_nothing():
    before = ms.get_context("max_call_depth")
    with pytest.raises(TypeError):
        ms.set_context(max_call_depth=2000, enable_reduce_precision=1)
    assert ms.get_context("max_call_depth") == before


def test_runtime_threads_follow_the_machine():
    import os
    assert ms.get_context("runtime_num_threads") == min(os.cpu_count() or 1, 30)
