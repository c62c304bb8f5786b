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
