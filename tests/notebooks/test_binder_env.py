"""The Binder classroom image: binder/ holds what repo2docker needs, and it is enough to run the course.

The quick tests read the files.  The slow one builds a fresh virtual
environment from ``binder/requirements.txt`` alone (with the Python
``binder/runtime.txt`` names), the way Binder does from the repository root,
and runs every notebook in a kernel of that environment -- so a dependency
missing from binder/ fails CI.  It takes minutes, so it runs only when
``CELLKIT_BINDER_TEST=1`` (``.ci/run`` sets it).
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)$")


def requirement_lines():
    lines = (BINDER / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [line.split(" #")[0].strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def pins():
    """``{normalised name: version}`` of the pinned requirements."""
    found = {}
    for line in requirement_lines():
        match = PIN.match(line)
        if match:
            found[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return found


def runtime_version():
    text = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    match = re.fullmatch(r"python-(\d+)\.(\d+)", text)
    assert match, f"binder/runtime.txt should read like 'python-3.11', not {text!r}"
    return int(match.group(1)), int(match.group(2))


# ------------------------------------------------------------------ the files
def test_binder_has_one_environment_file_a_runtime_and_graphviz():
    assert (BINDER / "requirements.txt").is_file()
    assert not (BINDER / "environment.yml").exists(), "repo2docker takes requirements.txt or environment.yml, not both"
    assert runtime_version() >= (3, 10)   # cellkit's requires-python
    apt = [line.partition("#")[0].strip() for line in (BINDER / "apt.txt").read_text(encoding="utf-8").splitlines()]
    assert "graphviz" in apt


def test_binder_requirements_are_pinned_and_install_cellkit_from_the_repository():
    lines = requirement_lines()
    assert "-e .[notebook]" in lines, "Binder installs cellkit itself, with the notebook extra, from the repository root"
    loose = [line for line in lines if line != "-e .[notebook]" and not PIN.match(line)]
    assert not loose, f"every requirement is pinned with ==: {loose}"
    pinned = pins()
    assert pinned["jupyterlab"].startswith("4.")
    assert pinned["notebook"].startswith("7.")
    assert pinned["ipywidgets"].startswith("8.")


def test_binder_pins_everything_the_notebook_extra_and_cellkit_need():
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = project["dependencies"] + project["optional-dependencies"]["notebook"]
    pinned = pins()
    for requirement in needed:
        name = re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", requirement).group(0)).lower()
        assert name in pinned, f"{name} (from pyproject.toml) is not pinned in binder/requirements.txt"


# ------------------------------------------------------------------ the slow one
def _python_for_runtime():
    """A Python of the version binder/runtime.txt names (Binder's), or fail saying why."""
    major, minor = runtime_version()
    for candidate in (f"python{major}.{minor}", sys.executable, "python3"):
        path = shutil.which(candidate) or (candidate if os.path.isabs(candidate) else None)
        if not path:
            continue
        probe = subprocess.run([path, "-c", "import sys; print(*sys.version_info[:2])"],
                               capture_output=True, text=True, timeout=60)
        if probe.returncode == 0 and probe.stdout.split() == [str(major), str(minor)]:
            return path
    pytest.fail(f"no Python {major}.{minor} on this machine to build the Binder environment with")


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CELLKIT_BINDER_TEST") != "1",
                    reason="builds a virtual environment from binder/ (minutes): set CELLKIT_BINDER_TEST=1")
def test_binder_environment_alone_runs_every_notebook(tmp_path):
    started = time.monotonic()
    env_dir = tmp_path / "binder-venv"
    subprocess.run([_python_for_runtime(), "-m", "venv", str(env_dir)], check=True, timeout=300)
    python = str(env_dir / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    def run(args, timeout):
        result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
        return result

    run([python, "-m", "pip", "install", "-r", "binder/requirements.txt"], timeout=1200)   # from the root, as Binder
    run([python, "-m", "pip", "check"], timeout=300)
    # The environment holds cellkit from this checkout and nothing of the test extra.
    where = run([python, "-c", "import cellkit, importlib.util as u; print(cellkit.__file__); "
                               "print(u.find_spec('pytest') is None)"], timeout=120).stdout.split()
    assert Path(where[0]).resolve().is_relative_to(ROOT) and where[1] == "True", where
    installed = time.monotonic()
    # tools/build_notebooks.py runs each notebook in a kernel of the interpreter running it: the venv's.
    result = run([python, "tools/build_notebooks.py", "--check"], timeout=900)
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert f"{len(notebooks)} notebook(s) ran" in result.stdout and "failed" not in result.stdout, result.stdout
    print(f"\nBinder environment: installed in {installed - started:.0f} s, notebooks ran in "
          f"{time.monotonic() - installed:.0f} s\n{result.stdout}")
