"""The op catalogue: every op declared once, every test generated from the declarations.

In the manner of PyTorch's OpInfo and JAX's ``lax_reference`` tests.  Each family module here
(``math.py``, ``reduce.py`` ...) holds ``OPS``, a list of :class:`OpInfo`: an op's MindSpore
name, its sample inputs, which of them are differentiated, its Tensor-method and Primitive
aliases, a NumPy reference where one computes the same thing, and inputs that must be refused.
From that list:

- ``tests/mindspore_cases/ops_<family>.py`` makes one MindSpore case per sample (the op's
  output, and its gradients where the sample differentiates) and one per bad input, which
  ``tools/record_mindspore.py ops_<family>`` records under real MindSpore 2.10;
- ``tests/test_op_catalogue.py`` checks cellkit against those fixtures, against the NumPy
  reference, against finite differences (first and second order, in float64), its aliases
  against the function, and the strict non-CPU device against NumPy.

Adding an op is: its forward and backward (the op pattern, ``cellkit/ops/_core.py``), one
``OpInfo`` here, and recording its fixture.  An entry without a fixture fails the tests.

This package imports neither cellkit nor MindSpore (the recorder loads it under MindSpore):
sample inputs are :class:`Arr` descriptions, turned into NumPy arrays by :func:`materialize`
with a generator of our own, so the same numbers come out under any NumPy version.

>>> a = Arr((2, 3), low=0.5, high=2.0)
>>> x = materialize(a, seed=7)
>>> x.shape, x.dtype.name, bool((x >= 0.5).all() and (x <= 2.0).all())
((2, 3), 'float32', True)
>>> bool((materialize(a, seed=7) == x).all())
True
"""
from __future__ import annotations

import importlib.util
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

__all__ = ["Arr", "Sample", "Bad", "OpInfo", "materialize", "families", "load_family", "package", "CATALOGUE_DIR"]

CATALOGUE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Arr:
    """A sample array: shape, dtype (a NumPy dtype name) and value range.

    Floats are drawn in ``[low, high]`` on a grid of 1/64 (exact in float16 and up); with
    ``away`` they keep at least that distance from 0 (for ops with a kink or pole there).
    ``distinct`` gives well-separated values (no ties for max, sort ...).  Integers are drawn
    in ``[low, high]``, bools are half True.
    """

    shape: tuple
    dtype: str = "float32"
    low: float = -2.0
    high: float = 2.0
    away: float = 0.0
    distinct: bool = False


def _unit(n, seed):
    """``n`` deterministic values in [0, 1): a 64-bit mixing function on integers (no NumPy RNG)."""
    out = np.empty(n, dtype=np.float64)
    mask = (1 << 64) - 1
    for i in range(n):
        z = (seed * 0x9E3779B97F4A7C15 + (i + 1) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        out[i] = (z >> 11) / float(1 << 53)
    return out


def materialize(value, seed):
    """A sample argument as the value to pass: :class:`Arr` -> a NumPy array; tuples and lists recursively."""
    if isinstance(value, Arr):
        n = int(np.prod(value.shape, dtype=np.int64))
        u = _unit(n, seed)
        kind = np.dtype(value.dtype).kind
        if kind == "b":
            return (u < 0.5).reshape(value.shape)
        if kind in "iu":
            return np.floor(value.low + u * (value.high - value.low + 1)).astype(value.dtype).reshape(value.shape)
        if value.distinct:
            order = np.argsort(u, kind="stable")
            x = np.empty(n)
            x[order] = np.linspace(value.low, value.high, n) if n > 1 else value.low
        else:
            x = value.low + u * (value.high - value.low)
        x = np.round(x * 64) / 64
        if value.away:
            x = np.where(np.abs(x) < value.away, np.where(x < 0, -value.away, value.away), x)
        return x.astype(value.dtype).reshape(value.shape)
    if isinstance(value, (tuple, list)):
        return type(value)(materialize(v, seed * 31 + i + 1) for i, v in enumerate(value))
    return value


@dataclass(frozen=True)
class Sample:
    """One call of an op: positional ``args``, ``kwargs``, and the argument positions to differentiate."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    grad: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class Bad:
    """A call the op must refuse, with the exception type MindSpore raises (recorded)."""

    label: str
    args: tuple
    kwargs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class OpInfo:
    """One op of ``mindspore.ops`` and how to test it (see the module docstring).

    ``method`` names the Tensor method that takes the same arguments after the first;
    ``primitive(ops, *args, **kwargs)`` calls the Primitive form; ``ref(*arrays, **kwargs)`` is
    a NumPy reference (float64 in, compared with the op's float64 output).  ``second_order``:
    the second derivative is checked too.  ``mindspore_wrong`` maps a sample label to a note
    saying how MindSpore's recorded answer is wrong; that sample is compared with ``ref``.
    """

    name: str
    samples: tuple
    ref: Optional[Callable] = None
    method: Optional[str] = None
    primitive: Optional[Callable] = None
    bad: tuple = ()
    second_order: bool = True
    strict: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    mindspore_wrong: dict = field(default_factory=dict)

    def sample_label(self, index):
        sample = self.samples[index]
        return sample.label or f"s{index}"

    def seed(self, index):
        return zlib.crc32(f"{self.name}/{index}".encode())

    def host_args(self, index):
        """The sample's arguments with every :class:`Arr` made a NumPy array."""
        return materialize(self.samples[index].args, self.seed(index))


_PACKAGE = "_op_catalogue"


def package():
    """This package as the family modules see it (loaded by path under a private name, as the recorder loads it)."""
    if _PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            _PACKAGE, CATALOGUE_DIR / "__init__.py", submodule_search_locations=[str(CATALOGUE_DIR)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[_PACKAGE] = package
        spec.loader.exec_module(package)
    return sys.modules[_PACKAGE]


def families():
    """The family modules of the catalogue, in name order."""
    return sorted(p.stem for p in CATALOGUE_DIR.glob("*.py") if not p.stem.startswith("_"))


def load_family(name):
    """The family module ``tests/op_catalogue/<name>.py`` (loaded by path, as the recorder loads it)."""
    package()
    return importlib.import_module(f"{_PACKAGE}.{name}")
