"""Record what MindSpore 2.10 prints for each script of examples/tutorials/.

Run it with a Python that has ``mindspore==2.10.0`` and ``numpy<2`` (a scratch venv; MindSpore is
never a dependency of cellkit):

    /path/to/msvenv/bin/python tools/record_tutorials.py            # every script
    /path/to/msvenv/bin/python tools/record_tutorials.py tensor autograd

The scripts are written for cellkit (``import cellkit as ms``).  Here an import hook answers every
``cellkit`` import with the same module of ``mindspore``, so the very same text runs on MindSpore.
Each script runs twice, in fresh processes; the second time ``set_seed`` is given another seed.
Lines that differ between the two runs depend on random initialisation (or on the clock): the
fixture lists them, and ``tests/examples/test_tutorials.py`` compares only their words there, not
their numbers.  The fixtures go to ``tests/fixtures/tutorials/<script>.json``; CI reads only them.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "examples" / "tutorials"
FIXTURES = ROOT / "tests" / "fixtures" / "tutorials"
HELPERS = {"make_data"}  # modules the scripts import, not tutorials

# Runs in the child: alias cellkit -> mindspore, optionally shift the seed, run the script as __main__.
_CHILD = r"""
import importlib, importlib.abc, importlib.util, os, runpy, sys

class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name == "cellkit" or name.startswith("cellkit."):
            return importlib.util.spec_from_loader(name, self)
        return None
    def create_module(self, spec):
        return importlib.import_module("mindspore" + spec.name[len("cellkit"):])
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Alias())
shift = int(os.environ.get("TUTORIAL_SEED_SHIFT", "0"))
if shift:
    import mindspore
    _set_seed = mindspore.set_seed
    mindspore.set_seed = lambda seed: _set_seed(seed + shift)
script = sys.argv[1]
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
"""


def run_once(script, shift):
    env = dict(os.environ, TUTORIAL_SEED_SHIFT=str(shift), GLOG_v="3", PYTHONWARNINGS="ignore")
    run = subprocess.run([sys.executable, "-c", _CHILD, str(script)], capture_output=True, text=True,
                         cwd=script.parent, env=env, timeout=900)
    if run.returncode != 0:
        raise SystemExit(f"{script.name} failed under MindSpore:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return run.stdout.splitlines()


def record(name):
    import mindspore

    script = SCRIPTS / f"{name}.py"
    first, second = run_once(script, 0), run_once(script, 1)
    if len(first) != len(second):
        raise SystemExit(f"{name}: the two runs printed {len(first)} and {len(second)} lines")
    random_lines = [i for i, (a, b) in enumerate(zip(first, second)) if a != b]
    FIXTURES.mkdir(parents=True, exist_ok=True)
    out = FIXTURES / f"{name}.json"
    out.write_text(json.dumps({"mindspore_version": mindspore.__version__, "script": f"examples/tutorials/{name}.py",
                               "lines": first, "random_lines": random_lines}, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}: {len(first)} lines, {len(random_lines)} depend on the seed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="script names without .py (default: all)")
    args = parser.parse_args()
    names = args.names or sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.stem.startswith("_") and p.stem not in HELPERS)
    for name in names:
        record(name)


if __name__ == "__main__":
    main()
