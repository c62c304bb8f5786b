"""Tests generated from the ``CALLS`` of the layout, indexing and creation catalogue families.

``CALLS`` hold what ``ops.<name>(...)`` cannot reach (``tests/op_catalogue/_calls.py``):
Primitives with no function, Tensor-only methods, in-place checks, and the gradients MindSpore
gets wrong.  The checks are those of ``tests/test_op_catalogue.py``: each case against the
MindSpore fixture ``ops_layout_calls.json`` (an entry without one fails), the NumPy reference,
first and second derivatives against finite differences, and the strict device against NumPy.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import nn, ops
from tests.gradcheck import check_grad, check_second_order
from tests.mindspore_cases import load_case_module, to_tensors
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "ops_layout_calls"
_CASES_MODULE = load_case_module(MODULE)
CASES = _CASES_MODULE.CASES
ENTRIES = _CASES_MODULE.entries()
RECORDED = read_fixture(MODULE)


def _samples(predicate=lambda info, sample: True):
    for info in ENTRIES:
        for index, sample in enumerate(info.samples):
            if predicate(info, sample):
                yield pytest.param(info, index, id=f"{info.name}-{info.sample_label(index)}")


@pytest.mark.parametrize("name", CASES.names())
def test_call_matches_mindspore(name):
    case = CASES[name]
    check_case(case, None if RECORDED is None else RECORDED["cases"].get(name), MODULE,
               lambda: case(ms, ops, nn, np))


def test_call_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def _float64(values):
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        return values.astype(np.float64)
    if isinstance(values, (tuple, list)):
        return type(values)(_float64(v) for v in values)
    return values


def _host(out):
    if isinstance(out, ms.Tensor):
        return out.asnumpy()
    if out is None or isinstance(out, (int, float, bool, str, ms.DType)):
        return out
    return tuple(_host(o) for o in out)


@pytest.mark.parametrize("info, index", list(_samples(lambda info, s: info.ref is not None)))
def test_call_matches_numpy(info, index):
    sample = info.samples[index]
    args = _float64(info.host_args(index))
    got = _host(info.run(ms, ops, *to_tensors(args, ms, np), **sample.kwargs))
    want = info.ref(*args, **sample.kwargs)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _grad_inputs(info, index):
    sample = info.samples[index]
    args = list(_float64(info.host_args(index)))

    def fn(*diff):
        call_args = list(args)
        for position, value in zip(sample.grad, diff):
            call_args[position] = value
        out = info.run(ms, ops, *to_tensors(call_args, ms, np), **sample.kwargs)
        return out if isinstance(out, ms.Tensor) else out[0]

    return fn, [args[p] for p in sample.grad]


@pytest.mark.parametrize("info, index", list(_samples(lambda info, s: bool(s.grad))))
def test_call_gradient_matches_finite_differences(backend, info, index):
    fn, inputs = _grad_inputs(info, index)
    check_grad(fn, *inputs)


@pytest.mark.parametrize("info, index", list(_samples(lambda info, s: bool(s.grad) and info.second_order)))
def test_call_second_order_matches_finite_differences(info, index):
    fn, inputs = _grad_inputs(info, index)
    check_second_order(fn, *inputs)


def _same(got, want, what="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{what}[{k}]")
        return
    if not isinstance(want, np.ndarray):
        assert got == want, what
        return
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=what)


def _has_float16(values):
    if isinstance(values, (tuple, list)):
        return any(_has_float16(v) for v in values)
    return getattr(values, "dtype", None) == "float16"


def _results(info, index):
    case = CASES[f"{info.name}__{info.sample_label(index)}"]
    out = case(ms, ops, nn, np)
    if info.samples[index].grad and not info.mindspore_grad_wrong:
        out, grads = out
        return _host(out), _host(grads if isinstance(grads, tuple) else (grads,))
    return _host(out), ()


@pytest.mark.parametrize("info, index", list(_samples(lambda info, s: info.strict and not any(
    getattr(a, "dtype", "") == "float16" or a == "float16" for a in s.args if not isinstance(a, np.ndarray)))))
def test_call_runs_on_the_strict_device(info, index):
    want = _results(info, index)
    with _backend.use("strict"):
        got = _results(info, index)
    _same(got, want, "strict device against NumPy")
