"""Counts for the reliability table (docs/reliability.md): what each hardening module tried, and what it found.

When the environment variable ``CELLKIT_RELIABILITY_DIR`` names a folder,
every module of tests/hardening leaves ``<module>.json`` there at the end of
the session: a list of ``{"area", "inputs_tried", "faults_injected",
"failures", "lost"}`` rows.  A module that counts for itself uses
:class:`Tally`; for the others, tests/hardening/conftest.py counts test cases.
``tools/reliability_table.py`` runs tests/hardening with the variable set
and prints the table.

- ``inputs_tried``: calls, files, steps or renders the module ran;
- ``faults_injected``: how many of them were deliberately bad (a corrupted
  argument, a mutated file, a missing CUDA driver, a hostile name ...);
- ``failures``: how many of those broke the module's rule (a leaked
  exception, an unescaped payload ...);
- ``lost``: how many left something damaged behind (a changed Parameter, a
  half-written file, memory not given back).
"""
from __future__ import annotations

import json
import os

ENV = "CELLKIT_RELIABILITY_DIR"
FIELDS = ("inputs_tried", "faults_injected", "failures", "lost")
_tallies = {}


def enabled():
    return bool(os.environ.get(ENV))


class Tally:
    """Counts per area for one module; written by :func:`write_all` at the end of the session."""

    def __init__(self, module):
        self.module = module
        self.areas = {}
        _tallies[module] = self

    def add(self, area, inputs_tried=0, faults_injected=0, failures=0, lost=0):
        row = self.areas.setdefault(area, dict.fromkeys(FIELDS, 0))
        row["inputs_tried"] += inputs_tried
        row["faults_injected"] += faults_injected
        row["failures"] += failures
        row["lost"] += lost

    def rows(self):
        return [{"area": area, **counts} for area, counts in self.areas.items()]


def tally(module):
    """The Tally of ``module`` (a test module's ``__name__``), created on first use."""
    name = module.rsplit(".", 1)[-1]
    return _tallies.get(name) or Tally(name)


def counted(module):
    name = module.rsplit(".", 1)[-1]
    return name in _tallies and bool(_tallies[name].areas)


def write_all(folder=None):
    folder = folder or os.environ.get(ENV)
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    for name, t in _tallies.items():
        if t.areas:
            with open(os.path.join(folder, name + ".json"), "w") as f:
                json.dump(t.rows(), f, indent=1)
