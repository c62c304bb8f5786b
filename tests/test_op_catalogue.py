"""Tests generated from the op catalogue (``tests/op_catalogue``): one set per op and sample.

For every :class:`OpInfo` of every family:

- ``test_op_matches_mindspore``: each sample (output, and gradients where the sample
  differentiates) and each bad input agree with what MindSpore 2.10 recorded in
  ``tests/fixtures/mindspore/ops_<family>.json`` (a sample without a fixture entry fails);
- ``test_op_matches_numpy``: the float64 output equals the NumPy reference, where there is one;
- ``test_op_gradient_matches_finite_differences`` / ``test_op_second_order_matches_finite_differences``:
  first and second derivatives of every differentiated argument, in float64;
- ``test_op_aliases_agree``: the Tensor method and the Primitive give the function's result;
- ``test_op_runs_on_the_strict_device``: the same values on ``array_api_strict``'s non-CPU
  device as on NumPy, with no hidden host conversion.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import nn, ops
from tests.gradcheck import check_grad, check_second_order
from tests.mindspore_cases import catalogue_cases, to_tensors
from tests.mindspore_cases.compare import check_case, read_fixture
from tests.op_catalogue import families, load_family, package

Arr = package().Arr  # the class the family modules build their samples with

FAMILIES = {name: load_family(name).OPS for name in families()}
CASES = {name: catalogue_cases(name) for name in FAMILIES}
FIXTURES = {name: read_fixture(f"ops_{name}") for name in FAMILIES}


def _samples(predicate=lambda info, sample: True):
    for family, infos in FAMILIES.items():
        for info in infos:
            for index, sample in enumerate(info.samples):
                if predicate(info, sample):
                    yield pytest.param(family, info, index, id=f"{info.name}-{info.sample_label(index)}")


def _case_names():
    for family, cases in CASES.items():
        for name in cases.names():
            yield pytest.param(family, name, id=name)


@pytest.mark.parametrize("family, name", list(_case_names()))
def test_op_matches_mindspore(family, name):
    case = CASES[family][name]
    fixture = FIXTURES[family]
    recorded = None if fixture is None else fixture["cases"].get(name)
    check_case(case, recorded, f"ops_{family}", lambda: case(ms, ops, nn, np))


def _float64(values):
    """Float arrays as float64 (the finite-difference and reference checks run in double precision)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        return values.astype(np.float64)
    if isinstance(values, (tuple, list)):
        return type(values)(_float64(v) for v in values)
    return values


def _call(info, args, kwargs):
    return getattr(ops, info.name)(*to_tensors(args, ms, np), **kwargs)


def _host(out):
    if isinstance(out, ms.Tensor):
        return out.asnumpy()
    return tuple(_host(o) for o in out)


@pytest.mark.parametrize("family, info, index", list(_samples(lambda info, s: info.ref is not None)))
def test_op_matches_numpy(family, info, index):
    sample = info.samples[index]
    args = _float64(info.host_args(index))
    got = _host(_call(info, args, sample.kwargs))
    want = info.ref(*args, **sample.kwargs)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        # Values, within the precision of the dtype cellkit returns (dtypes are the fixtures' business).
        tolerance = {8: 1e-10, 4: 2e-6, 2: 2e-3}.get(g.dtype.itemsize, 0) if g.dtype.kind == "f" else 0
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance * 1e-2, equal_nan=True)


def _differentiable(info, sample):
    return bool(sample.grad)


def _grad_inputs(info, index):
    sample = info.samples[index]
    args = list(_float64(info.host_args(index)))

    def fn(*diff):
        call_args = list(args)
        for position, value in zip(sample.grad, diff):
            call_args[position] = value
        out = getattr(ops, info.name)(*to_tensors(call_args, ms, np), **sample.kwargs)
        return out if isinstance(out, ms.Tensor) else out[0]

    return fn, [args[p] for p in sample.grad]


@pytest.mark.parametrize("family, info, index", list(_samples(_differentiable)))
def test_op_gradient_matches_finite_differences(backend, family, info, index):
    fn, inputs = _grad_inputs(info, index)
    check_grad(fn, *inputs)


@pytest.mark.parametrize("family, info, index",
                         list(_samples(lambda info, s: bool(s.grad) and info.second_order)))
def test_op_second_order_matches_finite_differences(family, info, index):
    fn, inputs = _grad_inputs(info, index)
    check_second_order(fn, *inputs)


def _assert_same(got, want, rtol=0.0, atol=0.0, what="result"):
    """Equal host values (arrays, or tuples of them), dtypes included."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{what}: {len(want)} outputs expected"
        for k, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, rtol, atol, f"{what}[{k}]")
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (
        f"{what}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("family, info, index",
                         list(_samples(lambda info, s: info.method is not None or info.primitive is not None)))
def test_op_aliases_agree(family, info, index):
    sample = info.samples[index]
    args = to_tensors(info.host_args(index), ms, np)
    want = _host(getattr(ops, info.name)(*args, **sample.kwargs))
    if info.method is not None and isinstance(args[0], ms.Tensor):
        _assert_same(_host(getattr(args[0], info.method)(*args[1:], **sample.kwargs)), want,
                     what=f"Tensor.{info.method}")
    if info.primitive is not None:
        _assert_same(_host(info.primitive(ops, *args, **sample.kwargs)), want, what="the Primitive")


def _sample_results(family, info, index):
    """The sample's case under cellkit -- output, and gradients where it differentiates -- on the host."""
    case = CASES[family][f"{info.name}__{info.sample_label(index)}"]
    out = case(ms, ops, nn, np)
    if info.samples[index].grad:
        out, grads = out
        return _host(out), _host(grads if isinstance(grads, tuple) else (grads,))
    return _host(out), ()


def _dtypes(values):
    if isinstance(values, Arr):
        yield values.dtype
    elif isinstance(values, (tuple, list)):
        for v in values:
            yield from _dtypes(v)


def _strict_can_hold(sample):
    """array_api_strict has no float16 (the array API's floats are float32 and float64)."""
    return "float16" not in set(_dtypes(sample.args))


@pytest.mark.parametrize("family, info, index", list(_samples(lambda info, s: info.strict and _strict_can_hold(s))))
def test_op_runs_on_the_strict_device(family, info, index):
    want = _sample_results(family, info, index)
    with _backend.use("strict"):
        got = _sample_results(family, info, index)
    _assert_same(got, want, rtol=1e-6, atol=1e-7, what="strict device against NumPy")


def test_op_catalogue_has_no_stale_fixture_entries():
    for family, cases in CASES.items():
        fixture = FIXTURES[family]
        if fixture is not None:
            stale = sorted(set(fixture["cases"]) - set(cases.names()))
            assert not stale, f"ops_{family}.json has entries without a sample: {stale}"


def test_op_catalogue_names_each_op_once_and_every_op_exists():
    seen = {}
    for family, infos in FAMILIES.items():
        for info in infos:
            assert info.name not in seen, f"{info.name} is in both {seen[info.name]} and {family}"
            seen[info.name] = family
            assert callable(getattr(ops, info.name, None)), f"ops.{info.name} does not exist"
