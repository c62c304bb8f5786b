"""cellkit's autodiff transforms against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/transforms.py`` runs here under cellkit (``ms=cellkit``)
and is compared with ``tests/fixtures/mindspore/transforms.json``, which
``tools/record_mindspore.py transforms`` wrote by running the same case text under MindSpore
(PyNative, CPU).  This test reads only the fixture: MindSpore is never imported.

What must agree:

- the structure: a Tensor where MindSpore returned a Tensor, a tuple where it returned a tuple (a
  list is not a tuple), the same lengths and dict keys, Python numbers and strings equal;
- each Tensor's shape and dtype name (``Float32``...), and its values within the case's
  tolerance (``rtol=1e-5, atol=1e-6`` unless the case says otherwise);
- for a case MindSpore answered with an exception: cellkit raises the same type (or a subclass
  of it); the message may differ.

A case marked ``mindspore_wrong`` is compared with its own ``expected(np)`` instead (NumPy arrays
there stand for Tensors of the array's dtype): MindSpore's recorded answer is kept in the fixture
as evidence, not as the reference.  A case with no fixture entry fails: record it first with
``/work/msvenv/bin/python tools/record_mindspore.py transforms --only <case>``.
"""
from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops

MODULE = "transforms"
TESTS_DIR = Path(__file__).resolve().parent
CASES_DIR = TESTS_DIR / "mindspore_cases"
FIXTURE = TESTS_DIR / "fixtures" / "mindspore" / f"{MODULE}.json"
RECORD_COMMAND = f"/work/msvenv/bin/python tools/record_mindspore.py {MODULE}"


def _load_case_module(module_name):
    """The case module, loaded by path (the same way the recorder loads it)."""
    package_name = "_mindspore_cases"
    if package_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            package_name, CASES_DIR / "__init__.py", submodule_search_locations=[str(CASES_DIR)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[package_name] = package
        spec.loader.exec_module(package)
    return sys.modules[package_name].load_case_module(module_name)


CASES = _load_case_module(MODULE).CASES
RECORDED = json.loads(FIXTURE.read_text())

_NUMPY_DTYPE_NAMES = {
    "float16": "Float16", "float32": "Float32", "float64": "Float64",
    "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
    "uint8": "UInt8", "bool": "Bool",
}


def _number(x):
    """A fixture scalar (NaN and infinities are written as strings) as a Python number."""
    if isinstance(x, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[x]
    return x


def _nested_numbers(values):
    if isinstance(values, list):
        return [_nested_numbers(v) for v in values]
    return _number(values)


def _fixture_array(entry):
    dtype = bool if entry["dtype"] == "Bool" else np.float64
    return np.array(_nested_numbers(entry["tensor"]), dtype=dtype).reshape(entry["shape"])


def _encode_expected(value):
    """A case's ``expected(np)`` value in the fixture's structure (arrays stand for Tensors)."""
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return {"tensor": array, "dtype": _NUMPY_DTYPE_NAMES[array.dtype.name], "shape": list(array.shape)}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": value}
    if isinstance(value, str):
        return {"str": value}
    if value is None:
        return {"none": None}
    if isinstance(value, tuple):
        return {"tuple": [_encode_expected(v) for v in value]}
    if isinstance(value, list):
        return {"list": [_encode_expected(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[k, _encode_expected(v)] for k, v in value.items()]}
    raise TypeError(f"expected(np) returned a {type(value).__name__}, which a comparison cannot hold")


def _kind(value):
    return type(value).__name__


def assert_matches(actual, expected, rtol, atol, path="result"):
    """Compare a cellkit result with a fixture value (see the module docstring for the rules)."""
    (key,) = [k for k in expected if k not in ("dtype", "shape")] or ["dtype"]
    if key == "tensor":
        assert isinstance(actual, ms.Tensor), f"{path}: MindSpore returned a Tensor, cellkit a {_kind(actual)}"
        assert list(actual.shape) == list(expected["shape"]), (
            f"{path}: shape {tuple(actual.shape)}, MindSpore {tuple(expected['shape'])}")
        assert str(actual.dtype) == expected["dtype"], (
            f"{path}: dtype {actual.dtype}, MindSpore {expected['dtype']}")
        want = expected["tensor"]
        want = np.asarray(want) if isinstance(want, np.ndarray) else _fixture_array(expected)
        got = np.asarray(actual.asnumpy())
        if expected["dtype"] == "Bool" or expected["dtype"].startswith(("Int", "UInt")):
            np.testing.assert_array_equal(got, want, err_msg=f"{path}: values differ from MindSpore's")
        else:
            np.testing.assert_allclose(got.astype(np.float64), want,
                                       rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"{path}: values differ from MindSpore's")
    elif key in ("tuple", "list"):
        python_type = tuple if key == "tuple" else list
        assert isinstance(actual, python_type), f"{path}: MindSpore returned a {key}, cellkit a {_kind(actual)}"
        assert len(actual) == len(expected[key]), (
            f"{path}: a {key} of {len(actual)} items, MindSpore's has {len(expected[key])}")
        for i, (a, e) in enumerate(zip(actual, expected[key])):
            assert_matches(a, e, rtol, atol, f"{path}[{i}]")
    elif key == "dict":
        assert isinstance(actual, dict), f"{path}: MindSpore returned a dict, cellkit a {_kind(actual)}"
        keys = [k for k, _ in expected["dict"]]
        assert list(actual) == keys, f"{path}: keys {list(actual)}, MindSpore {keys}"
        for k, e in expected["dict"]:
            assert_matches(actual[k], e, rtol, atol, f"{path}[{k!r}]")
    elif key == "bool":
        assert isinstance(actual, bool) and actual == expected["bool"], (
            f"{path}: {actual!r}, MindSpore {expected['bool']!r}")
    elif key == "int":
        assert isinstance(actual, int) and not isinstance(actual, bool), (
            f"{path}: MindSpore returned an int, cellkit a {_kind(actual)} ({actual!r})")
        assert actual == expected["int"], f"{path}: {actual}, MindSpore {expected['int']}"
    elif key == "float":
        assert isinstance(actual, float), f"{path}: MindSpore returned a float, cellkit a {_kind(actual)}"
        want = _number(expected["float"])
        assert (math.isnan(actual) and math.isnan(want)) or math.isclose(actual, want, rel_tol=rtol, abs_tol=atol), (
            f"{path}: {actual}, MindSpore {want}")
    elif key == "str":
        assert actual == expected["str"], f"{path}: {actual!r}, MindSpore {expected['str']!r}"
    elif key == "none":
        assert actual is None, f"{path}: MindSpore returned None, cellkit a {_kind(actual)}"
    elif key == "dtype":
        assert str(actual) == expected["dtype"], f"{path}: dtype {actual}, MindSpore {expected['dtype']}"
    else:
        raise AssertionError(f"{path}: the fixture holds an unknown kind of value {key!r}")


def _run_case(name):
    return CASES[name](ms, ops, nn, np)


@pytest.mark.parametrize("name", CASES.names())
def test_transforms_match_mindspore(name):
    case = CASES[name]
    recorded = RECORDED["cases"].get(name)
    if recorded is None:
        pytest.fail(f"case {name!r} has no fixture entry: record it with  {RECORD_COMMAND} --only {name}")

    if case.mindspore_wrong:
        # MindSpore's answer (kept in the fixture) is wrong here; the case's own reference decides.
        assert_matches(_run_case(name), _encode_expected(case.expected(np)), case.rtol, case.atol)
        return

    if "raises" in recorded:
        wanted = {recorded["raises"], recorded.get("builtin", recorded["raises"])}
        try:
            result = _run_case(name)
        except Exception as exc:  # noqa: BLE001 -- which exception is the point of the test
            raised = {klass.__name__ for klass in type(exc).__mro__}
            assert raised & wanted, (
                f"cellkit raised {type(exc).__name__}: {exc}\n"
                f"MindSpore raises {recorded['raises']}: {recorded['message']}")
            return
        pytest.fail(f"cellkit returned {result!r}\nMindSpore raises {recorded['raises']}: {recorded['message']}")

    assert_matches(_run_case(name), recorded["value"], case.rtol, case.atol)


def test_transforms_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_transforms_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {RECORD_COMMAND}): {stale}"


def test_transforms_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore differs."""
    for case in CASES:
        entry = RECORDED["cases"].get(case.name, {})
        if case.mindspore_wrong and "value" in entry and not entry.get("expected_structure_differs"):
            assert entry["expected_max_abs_diff"] > max(case.atol, 1e-3), (
                f"{case.name}: MindSpore agrees with expected(np) (max difference "
                f"{entry['expected_max_abs_diff']}); drop mindspore_wrong")
