"""cellkit's jit / GRAPH_MODE fallbacks against what real MindSpore 2.10 recorded.

Every case of ``tests/mindspore_cases/jit_fallback.py`` (data-dependent ``if``/``while``, ``int``/``float``/
``item``/``asnumpy`` inside jit, built-in iterators, graph ``print`` text, globals, ``jit_class``, ``mutable``)
runs here under cellkit and is compared with ``tests/fixtures/mindspore/jit_fallback.json``.  Record a
missing case with ``/work/msvenv/bin/python tools/record_mindspore.py jit_fallback --only <case>``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "jit_fallback"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_jit_fallback_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_jit_fallback_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]


def test_jit_fallback_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_jit_fallback_mindspore_wrong_cases_are_evidenced():
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry:
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), case.name


def test_jit_fallback_mutable_really_does_not_retrace():
    @ms.jit
    def f(x, n):
        return x * n

    x = ms.Tensor([1.0, 2.0])
    for n in (2, 3, 4):
        f(x, ms.mutable(n))
    assert ms.graph.function_trace_count(f) == 1
    for n in (2, 3):
        f(x, n)  # plain Python numbers are constants of the graph: one trace each
    assert ms.graph.function_trace_count(f) == 3
