"""Cases that run unchanged under real MindSpore and under cellkit.

A *case* is a plain function ``case(ms, ops, nn, np)`` that uses only MindSpore's public API
through the modules it is given and returns what it computed: a Tensor, a Python number, a
string, ``None``, or tuples / lists / dicts of those.  A case whose call raises is a case too:
what is recorded is the exception's type and message.

The same function text runs twice:

- under MindSpore 2.10, by ``tools/record_mindspore.py <module>``, which writes the results to
  ``tests/fixtures/mindspore/<module>.json``;
- under cellkit, by ``tests/test_mindspore_<module>.py``, which compares what cellkit computes
  with that fixture (CI never has MindSpore: it reads only the fixture).

Each module here holds one ``CASES = CaseList()`` and registers its functions with
``@CASES.case(...)``, giving tolerance hints (``rtol``, ``atol``) where float32 rounding needs
them.  A case may give ``expected(np)``: the correct result computed with NumPy alone
(analytically or by central finite differences), in the case's result structure, with NumPy
arrays standing for Tensors of the array's dtype.  The recorder then notes how far MindSpore is
from it.  Where MindSpore is wrong (``MINDSPORE_NOTES.md``, or found by a case), the case says
``mindspore_wrong=True`` and its ``note`` says how: the fixture still records what MindSpore
returned or raised, and cellkit is compared with ``expected`` instead.

Importing a case module imports neither MindSpore nor cellkit: the modules arrive as arguments.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

__all__ = ["Case", "CaseList", "load_case_module", "CASES_DIR"]

CASES_DIR = Path(__file__).resolve().parent

# The defaults the comparison uses when a case gives no hint: float32 results computed in a
# different order (or by a different but equivalent formula) differ in the last bits.
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6


@dataclass(frozen=True)
class Case:
    """One registered case and its comparison hints."""

    name: str
    fn: Callable
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    mindspore_wrong: bool = False
    expected: Optional[Callable] = None
    note: str = ""

    def __call__(self, ms, ops, nn, np):
        return self.fn(ms, ops, nn, np)


class CaseList:
    """An ordered registry of cases; ``@cases.case(rtol=..., ...)`` registers a function."""

    def __init__(self):
        self._cases: dict[str, Case] = {}

    def case(self, fn=None, *, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, mindspore_wrong=False,
             expected=None, note=""):
        """Register ``fn`` under its own name; usable bare (``@case``) or with hints."""

        def register(f):
            name = f.__name__
            if name in self._cases:
                raise ValueError(f"case {name!r} is registered twice")
            if mindspore_wrong and expected is None:
                raise ValueError(f"case {name!r}: mindspore_wrong=True needs an expected(np) function")
            self._cases[name] = Case(name, f, float(rtol), float(atol), bool(mindspore_wrong),
                                     expected, note)
            return f

        return register(fn) if fn is not None else register

    def __iter__(self):
        return iter(self._cases.values())

    def __len__(self):
        return len(self._cases)

    def __getitem__(self, name) -> Case:
        return self._cases[name]

    def names(self) -> list[str]:
        return list(self._cases)


_PACKAGE = "_mindspore_cases"


def load_case_module(module_name: str):
    """Import ``tests/mindspore_cases/<module_name>.py`` and return its module.

    The package is loaded under a private name from its file, so the recorder (run from a
    MindSpore venv, with no ``tests`` package on the path) and pytest (whatever import mode it
    uses) load the same text the same way.
    """
    if _PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            _PACKAGE, CASES_DIR / "__init__.py", submodule_search_locations=[str(CASES_DIR)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[_PACKAGE] = package
        spec.loader.exec_module(package)
    if not (CASES_DIR / f"{module_name}.py").is_file():
        raise FileNotFoundError(f"no case module {module_name!r} in {CASES_DIR}")
    return importlib.import_module(f"{_PACKAGE}.{module_name}")


# ------------------------------------------------------------------ cases made from the op catalogue
def _catalogue():
    """``tests/op_catalogue`` loaded by path (it too imports neither MindSpore nor cellkit)."""
    spec_name = "_op_catalogue"
    if spec_name not in sys.modules:
        directory = CASES_DIR.parent / "op_catalogue"
        spec = importlib.util.spec_from_file_location(
            spec_name, directory / "__init__.py", submodule_search_locations=[str(directory)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[spec_name] = package
        spec.loader.exec_module(package)
    return sys.modules[spec_name]


def to_tensors(value, ms, np):
    """NumPy arrays (also inside tuples and lists) as Tensors of their dtype; other values as they are."""
    if isinstance(value, np.ndarray):
        return ms.Tensor(value)
    if isinstance(value, (tuple, list)):
        return type(value)(to_tensors(v, ms, np) for v in value)
    return value


def probe_sum(out, ms, np, seed):
    """``sum(out * probe)`` over every float Tensor of ``out``: a scalar whose gradient tests the whole Jacobian.

    The probes are fixed numbers (the catalogue's own generator), the same under MindSpore and cellkit.
    """
    package = _catalogue()
    tensors = [out] if isinstance(out, ms.Tensor) else [t for t in out if isinstance(t, ms.Tensor)]
    total = None
    for k, t in enumerate(tensors):
        if "Float" not in str(t.dtype):  # Float16/32/64 and BFloat16 outputs take part; ints and bools do not
            continue
        probe = package.materialize(package.Arr(tuple(t.shape), "float32", -1.0, 1.0), seed + k)
        term = (t * ms.Tensor(probe.astype(np.float32)).astype(t.dtype)).sum()
        total = term if total is None else total + term
    return total


def catalogue_cases(family):
    """A :class:`CaseList` with one case per sample of each op in ``tests/op_catalogue/<family>.py``.

    Sample ``label`` of op ``name`` is the case ``name__label``: it returns the op's output, or
    ``(output, gradients)`` when the sample differentiates some arguments (the gradients of
    :func:`probe_sum` of the output).  Each bad input is a case ``name__bad_label`` that must raise.
    """
    package = _catalogue()
    cases = CaseList()
    for info in package.load_family(family).OPS:
        for index, sample in enumerate(info.samples):
            label = info.sample_label(index)
            wrong = label in info.mindspore_wrong
            expected = None
            if wrong:
                if sample.grad or info.ref is None:
                    raise ValueError(f"{info.name} sample {label}: mindspore_wrong needs a reference and no gradient")
                expected = _reference_for(info, index)
            cases.case(_sample_case(info, index), rtol=info.rtol, atol=info.atol, mindspore_wrong=wrong,
                       expected=expected, note=info.mindspore_wrong.get(label, ""))
        for bad in info.bad:
            cases.case(_bad_case(info, bad))
    return cases


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _sample_case(info, index):
    sample = info.samples[index]

    def case(ms, ops, nn, np):
        op = getattr(ops, info.name)
        args = to_tensors(info.host_args(index), ms, np)
        out = op(*args, **sample.kwargs)
        if not sample.grad:
            return out

        def weighted(*diff_args):
            call_args = list(args)
            for position, value in zip(sample.grad, diff_args):
                call_args[position] = value
            return probe_sum(op(*call_args, **sample.kwargs), ms, np, info.seed(index) + 1000)

        grads = ms.grad(weighted, grad_position=tuple(range(len(sample.grad))))(*[args[p] for p in sample.grad])
        return out, grads

    return _named(case, f"{info.name}__{info.sample_label(index)}")


def _bad_case(info, bad):
    def case(ms, ops, nn, np):
        args = to_tensors(_catalogue().materialize(bad.args, 7), ms, np)
        return getattr(ops, info.name)(*args, **bad.kwargs)

    return _named(case, f"{info.name}__bad_{bad.label}")


def _reference_for(info, index):
    """``expected(np)`` of a sample MindSpore gets wrong: the catalogue's NumPy reference."""
    def expected(np):
        return info.ref(*info.host_args(index), **info.samples[index].kwargs)
    return expected
