"""The misc family's hand-written MindSpore cases against their recorded fixtures.

The op catalogue covers the ``ops`` functions whose arguments are plain arrays; what it cannot hold
is here, one case module each (``tests/mindspore_cases/<module>.py``, recorded into
``tests/fixtures/mindspore/<module>.json`` by ``tools/record_mindspore.py``):

- ``random_draws``: distributions (shapes, dtypes, supports, moments), fixed-seed repeats, ``dtype=``;
- ``tensor_inplace``: the in-place Tensor methods (the value returned *and* the tensor afterwards);
- ``tensor_api``: the Tensor object's own API (storage, conversions, ``new_*``, ``clone`` ...);
- ``sparse_tensors``: ``COOTensor`` / ``CSRTensor`` and the ``coo_*`` / ``csr_*`` functions;
- ``misc_api``: printing, functional helpers, control flow, summaries, communication, Primitives;
- ``optimizer_prims``: the optimizer Primitives from fixed weights, moments and gradients.

A case whose op needs another family's op that this tree does not have yet is skipped (it names the op).
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULES = ("random_draws", "tensor_inplace", "tensor_api", "sparse_tensors", "misc_api", "optimizer_prims")
CASES = {m: load_case_module(m).CASES for m in MODULES}
RECORDED = {m: read_fixture(m) for m in MODULES}


def _params():
    for module, cases in CASES.items():
        for name in cases.names():
            yield pytest.param(module, name, id=f"{module}-{name}")


@pytest.mark.parametrize("module, name", list(_params()))
def test_misc_case_matches_mindspore(module, name):
    case = CASES[module][name]
    recorded = RECORDED[module]
    needs = getattr(load_case_module(module), "NEEDS", {}).get(name, ())
    missing = [n for n in needs if not hasattr(ops, n) and not hasattr(ms.Tensor, n)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} from another op family")
    check_case(case, None if recorded is None else recorded["cases"].get(name), module,
               lambda: case(ms, ops, nn, np))


@pytest.mark.parametrize("module", MODULES)
def test_misc_fixture_is_from_mindspore_2_10(module):
    recorded = RECORDED[module]
    assert recorded is not None, f"no fixture: record it with  {record_command(module)}"
    assert recorded["mindspore_version"].startswith("2.10"), recorded["mindspore_version"]
    assert recorded["mode"] == "PYNATIVE_MODE" and recorded["device"] == "CPU"


@pytest.mark.parametrize("module", MODULES)
def test_misc_fixture_has_no_stale_cases(module):
    stale = sorted(set(RECORDED[module]["cases"]) - set(CASES[module].names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(module)}): {stale}"


@pytest.mark.parametrize("module", MODULES)
def test_misc_mindspore_wrong_cases_are_evidenced(module):
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs."""
    for case in CASES[module]:
        entry = RECORDED[module]["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), (
                f"{case.name}: MindSpore agrees with expected(np) (max difference "
                f"{entry['expected_max_abs_diff']}); drop mindspore_wrong")
