"""docs/mindspore_wrong.md lists every case marked mindspore_wrong, as tools/list_mindspore_wrong.py writes it."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_mindspore_wrong_page_is_current():
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "list_mindspore_wrong.py"), "--check"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr or run.stdout
