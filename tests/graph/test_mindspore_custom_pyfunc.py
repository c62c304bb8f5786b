"""``ops.Custom(func_type="pyfunc")`` against what real MindSpore 2.10 recorded, and cellkit's own checks.

Every case of ``tests/mindspore_cases/custom_pyfunc.py`` runs here under cellkit and is compared with
``tests/fixtures/mindspore/custom_pyfunc.json``.  Record a missing case with
``/work/msvenv/bin/python tools/record_mindspore.py custom_pyfunc --only <case>``.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "custom_pyfunc"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_custom_pyfunc_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_custom_pyfunc_fixture_is_from_mindspore_2_10_and_current():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_custom_checks_what_the_function_returns():
    wrong_shape = ops.Custom(lambda a: a[:1], out_shape=lambda s: s, out_dtype=lambda t: t)
    with pytest.raises(ValueError, match=r"shape \(1,\), but out_shape says \(2,\)"):
        wrong_shape(ms.Tensor([1.0, 2.0]))
    wrong_dtype = ops.Custom(lambda a: a.astype(np.float64), out_shape=lambda s: s, out_dtype=lambda t: t)
    with pytest.raises(RuntimeError, match="dtype float64, but out_dtype says Float32"):
        wrong_dtype(ms.Tensor([1.0, 2.0]))


def test_custom_kernel_func_types_are_refused_honestly():
    with pytest.raises(NotImplementedError, match="pyfunc"):
        ops.Custom("kernel.cc:add", out_shape=lambda s: s, out_dtype=lambda t: t, func_type="aot")


def test_custom_is_one_node_of_a_graph_and_runs_at_every_call():
    calls = []

    def double(a):
        calls.append(1)
        return a * 2

    op = ops.Custom(double, out_shape=lambda s: s, out_dtype=lambda t: t)
    f = ms.jit(lambda x: op(x) + 1)
    for v in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(f(ms.Tensor([v])).asnumpy(), [2 * v + 1])
    assert ms.graph.function_graph(f).ops() == ["Custom", "add"] and len(calls) == 3


def test_custom_graph_cannot_be_exported(tmp_path):
    op = ops.Custom(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda t: t)
    with pytest.raises(ValueError, match="ops.Custom"):
        ms.export(lambda x: op(x), ms.Tensor([1.0]), file_name=str(tmp_path / "c"), file_format="MINDIR")
