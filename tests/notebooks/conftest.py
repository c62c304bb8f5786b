"""Shared helpers of the notebook tests: the course's notebooks and the tool that runs them."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_build_tool():
    spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_notebooks = _load_build_tool()
NOTEBOOKS = build_notebooks.course_notebooks()


def pytest_configure(config):
    config.addinivalue_line("markers", "notebook: executes a course notebook in a Jupyter kernel (seconds each)")


@pytest.fixture(scope="session")
def build_tool():
    """``tools/build_notebooks.py`` as a module (``execute``, ``client_for``, ``normalise`` ...)."""
    return build_notebooks


def pytest_generate_tests(metafunc):
    """A test asking for ``notebook_path`` runs once per course notebook (id: its file name)."""
    if "notebook_path" in metafunc.fixturenames:
        metafunc.parametrize("notebook_path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
