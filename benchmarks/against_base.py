"""Time this tree against an earlier commit in one run: the helper the before/after benchmarks share.

A benchmark script defines ``measure() -> {workload: microseconds}`` and
calls :func:`compare`.  The ``cellkit`` package of the base commit is
extracted (``git archive``) into a temporary folder; then both packages
are measured in fresh processes, alternating, ``rounds`` times, and each
figure is the best of its rounds (the least-disturbed run of a shared
machine).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _extract(ref, into):
    archive = subprocess.run(["git", "-C", ROOT, "archive", ref, "cellkit"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)


def _run_child(script, tree):
    env = dict(os.environ, PYTHONPATH=tree, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    result = subprocess.run([sys.executable, script, "--measure"], env=env, capture_output=True, text=True,
                            check=True)
    payload = json.loads(result.stdout.strip().splitlines()[-1])
    if not payload["file"].startswith(tree):
        raise RuntimeError(f"the child imported cellkit from {payload['file']}, not from {tree}")
    return payload["times"]


def report_child(measure):
    """In the child process: measure and print the result for the parent (one JSON line)."""
    times = measure()
    import cellkit

    print(json.dumps({"file": cellkit.__file__, "times": times}))


def compare(script, base, rounds):
    """``{"base": {workload: us}, "this": {...}}``, the best of ``rounds`` alternating runs of ``script``."""
    with tempfile.TemporaryDirectory() as base_tree:
        _extract(base, base_tree)
        best = {"base": {}, "this": {}}
        for _ in range(rounds):
            for label, tree in (("base", base_tree), ("this", ROOT)):
                for key, value in _run_child(script, tree).items():
                    best[label][key] = min(best[label].get(key, float("inf")), value)
    return best
