"""Comparing what cellkit computes with what MindSpore recorded (shared by the fixture tests).

A fixture (``tests/fixtures/mindspore/<module>.json``, written by ``tools/record_mindspore.py``)
holds, for each case, either ``{"value": V}`` or ``{"raises": ..., "builtin": ..., "message": ...}``.
:func:`check_case` runs a case under cellkit and asserts it agrees:

- the structure: a Tensor where MindSpore returned a Tensor, a tuple where it returned a tuple (a
  list is not a tuple), the same lengths and dict keys, Python numbers and strings equal;
- each Tensor's shape and dtype name (``Float32``...), and its values within the case's
  tolerance;
- for a case MindSpore answered with an exception: cellkit raises the same type (or a subclass
  of it); the message may differ.

A case marked ``mindspore_wrong`` is compared with its own ``expected(np)`` instead (NumPy arrays
there stand for Tensors of the array's dtype).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import cellkit as ms

FIXTURES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"


def read_fixture(module):
    """The recorded fixture of a case module (a dict with ``cases``), or None if there is none yet."""
    path = FIXTURES_DIR / f"{module}.json"
    return json.loads(path.read_text()) if path.exists() else None


def record_command(module, case=None):
    command = f"/work/msvenv/bin/python tools/record_mindspore.py {module}"
    return command + (f" --only {case}" if case else "")


_NUMPY_DTYPE_NAMES = {
    "float16": "Float16", "float32": "Float32", "float64": "Float64",
    "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
    "uint8": "UInt8", "bool": "Bool", "complex64": "Complex64", "complex128": "Complex128",
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
    if entry["dtype"].startswith("Complex"):  # each element is recorded as the pair [real, imag]
        pairs = np.array(_nested_numbers(entry["tensor"]), dtype=np.float64).reshape(list(entry["shape"]) + [2])
        return pairs[..., 0] + 1j * pairs[..., 1]
    dtype = bool if entry["dtype"] == "Bool" else np.float64
    return np.array(_nested_numbers(entry["tensor"]), dtype=dtype).reshape(entry["shape"])


def encode_expected(value):
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
        return {"tuple": [encode_expected(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode_expected(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[k, encode_expected(v)] for k, v in value.items()]}
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
            np.testing.assert_allclose(got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), want,
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


def check_case(case, recorded, module, run):
    """Assert that ``run()`` (the case under cellkit) agrees with its fixture entry ``recorded``."""
    if recorded is None:
        pytest.fail(f"case {case.name!r} has no fixture entry: record it with  {record_command(module, case.name)}")
    if case.mindspore_wrong:
        # MindSpore's answer (kept in the fixture) is wrong here; the case's own reference decides.
        assert_matches(run(), encode_expected(case.expected(np)), case.rtol, case.atol)
        return
    if "raises" in recorded:
        wanted = {recorded["raises"], recorded.get("builtin", recorded["raises"])}
        try:
            result = run()
        except Exception as exc:  # noqa: BLE001 -- which exception is the point of the test
            raised = {klass.__name__ for klass in type(exc).__mro__}
            assert raised & wanted, (
                f"cellkit raised {type(exc).__name__}: {exc}\n"
                f"MindSpore raises {recorded['raises']}: {recorded['message']}")
            return
        pytest.fail(f"cellkit returned {result!r}\nMindSpore raises {recorded['raises']}: {recorded['message']}")
    assert_matches(run(), recorded["value"], case.rtol, case.atol)
