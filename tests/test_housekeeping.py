"""How a newcomer runs the suite: plain ``pytest`` from the repository root must work.

``python -m pytest`` puts the current directory on ``sys.path``; the ``pytest``
script does not.  ``pyproject.toml`` adds the root (``pythonpath``) so the
test modules' ``from tests.x import ...`` resolve either way.
"""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P (no current directory on sys.path) needs 3.11")
def test_plain_pytest_collects_modules_that_import_the_tests_package():
    # -P runs pytest the way its console script does: without the current directory on sys.path.
    result = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", "--collect-only", "-q", "-n", "0",
         "tests/ops/test_second_order.py", "tests/test_memory.py", "tests/graph/test_registry.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "error" not in result.stdout.lower().splitlines()[-1]
