"""Execute the course notebooks and store their outputs: ``python tools/build_notebooks.py``.

Every notebook in ``notebooks/`` whose name starts with two digits
(``01_tensors_and_devices.ipynb`` ...) is run from top to bottom in a fresh
Python kernel -- the interpreter running this script, whatever kernelspecs
are installed elsewhere -- with its working directory set to ``notebooks/``.
The outputs and the state of every widget (progress bars, explorers) are
written back into the file, so GitHub and nbviewer show the displays with no
kernel.  To keep rebuilds to small diffs, nothing volatile is stored: no
execution timestamps, and the widget model ids are renumbered from the
notebook's name instead of being random.

Usage (from the repository root)::

    .venv/bin/python tools/build_notebooks.py                     # all notebooks, in place
    .venv/bin/python tools/build_notebooks.py notebooks/05_*.ipynb
    .venv/bin/python tools/build_notebooks.py --check             # run them all, write nothing

A failing cell stops that notebook with its traceback and the exit status is
1; the files of notebooks that failed are left untouched.  The tests
(``tests/notebooks/``) import :func:`execute` from here.
"""
from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
CELL_TIMEOUT_S = 120          # one cell; the whole course runs in about a minute on 2 cores
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

__all__ = ["course_notebooks", "execute", "normalise", "build", "main"]


def course_notebooks(directory=NOTEBOOK_DIR):
    """The course's notebooks in order: ``NN_name.ipynb`` in ``directory``."""
    return sorted(p for p in Path(directory).glob("[0-9][0-9]_*.ipynb"))


def _kernel_manager_class(python):
    """A kernel manager whose ``python3`` kernel is ``python -m ipykernel_launcher``.

    A ``python3`` kernelspec installed in a user or system Jupyter directory
    could point at another interpreter; this one cannot, so a notebook is
    always run by the environment that runs this script.
    """
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
    from jupyter_client.manager import AsyncKernelManager

    spec = KernelSpec(argv=[python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                      display_name="Python 3 (ipykernel)", language="python",
                      metadata={"debugger": False}, resource_dir=tempfile.gettempdir())

    class ThisPythonSpecs(KernelSpecManager):
        def find_kernel_specs(self):
            return {"python3": spec.resource_dir}

        def get_kernel_spec(self, kernel_name):
            if kernel_name != "python3":
                raise NoSuchKernel(kernel_name)
            return spec

    class ThisPythonKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            kwargs.setdefault("kernel_spec_manager", ThisPythonSpecs())
            super().__init__(**kwargs)

    return ThisPythonKernelManager


def client_for(nb, path, timeout=CELL_TIMEOUT_S, python=None):
    """An ``nbclient.NotebookClient`` set up as the course runs: this Python, widget state kept."""
    from nbclient import NotebookClient

    return NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                          record_timing=False, allow_errors=False,
                          kernel_manager_class=_kernel_manager_class(python or sys.executable),
                          resources={"metadata": {"path": str(Path(path).resolve().parent)}})


def execute(path, timeout=CELL_TIMEOUT_S):
    """Run the notebook at ``path`` top to bottom; return it (a NotebookNode) with its outputs.

    Raises ``nbclient.exceptions.CellExecutionError`` (with the cell and its
    traceback) when a cell fails, ``CellTimeoutError`` when one runs longer
    than ``timeout`` seconds.
    """
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    client_for(nb, path, timeout).execute()
    return normalise(nb, Path(path).stem)


def normalise(nb, name):
    """Take what changes from run to run out of an executed notebook (in place; returns it).

    - no execution metadata (timestamps) on the cells;
    - widget model ids renumbered in order of first appearance, derived from
      ``name``, so the same notebook gets the same ids on every build;
    - a progress bar's text form (what a viewer without widget support
      shows) is its final state, not the empty bar it started as;
    - consecutive pieces of one stream (stdout, stderr) are one output, however
      the kernel happened to flush them.
    """
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
        if cell.get("outputs"):
            cell["outputs"] = _merge_streams(cell["outputs"])
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        nb.metadata.pop("widgets", None)
        return nb
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            text = view and _progress_text(state, view.get("model_id"))
            if text:
                output["data"]["text/plain"] = text
    # Number the models in reading order: each view in the outputs, then (depth first) the models it
    # refers to.  Models no view reaches cannot be drawn and are left out.
    order, seen = [], set()

    def visit(model_id):
        if model_id in seen or model_id not in state:
            return
        seen.add(model_id)
        order.append(model_id)
        for child in re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(state[model_id], sort_keys=True)):
            visit(child)

    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view:
                visit(view.get("model_id"))
    mapping = {old: hashlib.sha256(f"{name}:{i}".encode()).hexdigest()[:32] for i, old in enumerate(order)}
    # One pass, so that an id already renumbered is never renamed twice (a rebuild is a fixed point).
    text = re.sub(r"[0-9a-f]{32}", lambda m: mapping.get(m.group(0), m.group(0)), json.dumps(nb))
    renumbered = json.loads(text)
    state = renumbered["metadata"]["widgets"][WIDGET_STATE]["state"]
    renumbered["metadata"]["widgets"][WIDGET_STATE]["state"] = {mapping[old]: state[mapping[old]] for old in order}
    import nbformat

    return nbformat.from_dict(renumbered)


def _merge_streams(outputs):
    """``outputs`` with each run of same-stream outputs joined into one."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] = _text(previous["text"]) + _text(output["text"])
        else:
            merged.append(output)
    return merged


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def _progress_text(state, model_id):
    """The text of a tqdm bar (an HBox of HTML, progress, HTML) from its saved state, or None."""
    box = state.get(model_id, {})
    children = box.get("state", {}).get("children", []) if box.get("model_name") == "HBoxModel" else []
    if len(children) != 3:
        return None
    left, bar, right = (state.get(str(child).replace("IPY_MODEL_", ""), {}) for child in children)
    if (left.get("model_name"), right.get("model_name")) != ("HTMLModel", "HTMLModel") or \
            bar.get("model_name") not in ("FloatProgressModel", "IntProgressModel"):
        return None
    bar_state = bar.get("state", {})
    maximum, value = bar_state.get("max") or 0, bar_state.get("value") or 0
    filled = int(round(10 * min(value / maximum, 1.0))) if maximum else 0

    def plain(widget):
        text = re.sub(r"<[^>]*>", "", str(widget.get("state", {}).get("value", "")))
        return html.unescape(text).replace("\u2007", " ")

    return f"{plain(left)}|{'█' * filled}{' ' * (10 - filled)}|{plain(right)}"


def build(paths, write=True, timeout=CELL_TIMEOUT_S, out=print):
    """Execute ``paths`` one after another; write each back unless ``write`` is false.

    Returns ``{path: seconds}`` for the notebooks that ran and ``{path: error}``
    for those that failed.
    """
    import nbformat

    times, failures = {}, {}
    for path in paths:
        path = Path(path)
        start = time.perf_counter()
        try:
            nb = execute(path, timeout=timeout)
        except Exception as exc:  # noqa: BLE001 -- report every notebook, then fail
            failures[path] = exc
            out(f"FAILED {path.name} after {time.perf_counter() - start:.1f} s\n{exc}")
            continue
        times[path] = time.perf_counter() - start
        if write:
            nbformat.validate(nb)
            text = nbformat.writes(nb) + "\n"
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
        out(f"{'built' if write else 'ran'} {path.name} in {times[path]:.1f} s")
    return times, failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every NN_*.ipynb in notebooks/)")
    parser.add_argument("--check", action="store_true", help="run the notebooks but write nothing")
    parser.add_argument("--timeout", type=int, default=CELL_TIMEOUT_S, help="seconds one cell may take")
    args = parser.parse_args(argv)
    paths = args.notebooks or course_notebooks()
    if not paths:
        parser.error(f"no notebooks found in {NOTEBOOK_DIR}")
    start = time.perf_counter()
    times, failures = build(paths, write=not args.check, timeout=args.timeout)
    print(f"{len(times)} notebook(s) ran in {time.perf_counter() - start:.1f} s"
          + (f"; {len(failures)} failed: {', '.join(p.name for p in failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
