"""Each script of examples/tutorials/ prints on cellkit what it prints on MindSpore 2.10.

The scripts follow MindSpore's own tutorials through ``import cellkit as ms``.  Their MindSpore
output was recorded by ``tools/record_tutorials.py`` (the same text, run on MindSpore) into
``tests/fixtures/tutorials/<script>.json``.  Line by line: the words must be the same and the
numbers equal within a tolerance; on a line that depends on the random seed (it changed when the
recorder ran MindSpore twice with different seeds) only the words are compared.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "examples" / "tutorials"
FIXTURES = ROOT / "tests" / "fixtures" / "tutorials"
HELPERS = {"make_data"}  # modules the scripts import, not tutorials
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.stem.startswith("_") and p.stem not in HELPERS)

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\b(?:nan|inf)\b")
RTOL, ATOL = 2e-3, 2e-4  # float32 printed with 8 digits, sums in another order


def split(line):
    """``(words, numbers)``: the line with every number replaced by ``#``, and the numbers."""
    numbers = [float(n) for n in NUMBER.findall(line)]
    words = " ".join(NUMBER.sub("#", line).split())
    # NumPy pads printed numbers to one width, so the spaces beside brackets depend on the digits.
    return re.sub(r"\s*([\[\]])\s*", r"\1", words), numbers


def differences(got, want, random_lines):
    """Human-readable differences between cellkit's lines and MindSpore's."""
    problems = []
    if len(got) != len(want):
        problems.append(f"cellkit printed {len(got)} lines, MindSpore {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        g_words, g_numbers = split(g)
        w_words, w_numbers = split(w)
        if g_words != w_words or len(g_numbers) != len(w_numbers):
            problems.append(f"line {i + 1}: cellkit {g!r}, MindSpore {w!r}")
        elif i not in random_lines and not all(
                math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL) or (math.isnan(a) and math.isnan(b))
                for a, b in zip(g_numbers, w_numbers)):
            problems.append(f"line {i + 1}: numbers differ: cellkit {g!r}, MindSpore {w!r}")
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_tutorial_prints_what_mindspore_prints(name):
    fixture = FIXTURES / f"{name}.json"
    assert fixture.exists(), f"no recording: run  /path/to/msvenv/bin/python tools/record_tutorials.py {name}"
    recorded = json.loads(fixture.read_text())
    assert recorded["mindspore_version"].startswith("2.10")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py")], capture_output=True, text=True,
                         cwd=SCRIPTS, env=env, timeout=120)
    assert run.returncode == 0, f"{name}.py failed on cellkit:\n{run.stdout[-2000:]}\n{run.stderr[-4000:]}"
    problems = differences(run.stdout.splitlines(), recorded["lines"], set(recorded["random_lines"]))
    assert not problems, f"{name}.py:\n  " + "\n  ".join(problems[:20])


def test_every_recording_has_its_script():
    stale = sorted({p.stem for p in FIXTURES.glob("*.json")} - set(NAMES))
    assert not stale, f"recordings without a script: {stale}"


def test_the_comparison_can_fail():
    """The comparison refuses another word, another number and a lost line, and masks only seeded lines."""
    want = ["loss: 0.6931", "Tensor(shape=[2], dtype=Float32, value= [1. 2.])"]
    assert differences(want, want, set()) == []
    assert differences(["loss: 0.7000", want[1]], want, set())  # beyond the tolerance
    assert differences(["loss: 0.7000", want[1]], want, {0}) == []  # a seeded line: words only
    assert differences(["Loss: 0.6931", want[1]], want, {0})
    assert differences(want[:1], want, set())
