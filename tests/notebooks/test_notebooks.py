"""The course notebooks (notebooks/NN_*.ipynb).

Each notebook runs top to bottom in a fresh kernel and its check cell passes;
run again on the exercise's starter code, the same check fails with an
AssertionError, so the checks really check.  The committed copies carry the
outputs of one clean run (built by ``tools/build_notebooks.py``) that a
reader without a kernel can see: static HTML with no script and no external
URL, and saved state for every widget.
"""
import ast
import json
import re

import pytest

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# Namespace names inside inline <svg> elements: identifiers that nothing ever fetches.
XML_NAMESPACES = ('xmlns="http://www.w3.org/2000/svg"', 'xmlns:xlink="http://www.w3.org/1999/xlink"')


def read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def joined(text):
    """Notebook JSON stores multi-line strings as lists of lines."""
    return "".join(text) if isinstance(text, list) else text


def source(cell):
    return joined(cell["source"])


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def exercise_cells(cells):
    """Indices of the exercise's starter code cell and of the check cell."""
    starter = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "exercise" in tags(c)]
    check = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "check" in tags(c)]
    return starter, check


# ------------------------------------------------------------------ running them
@pytest.mark.notebook
def test_notebook_runs_and_its_check_passes_only_when_the_exercise_is_solved(notebook_path, build_tool):
    import nbformat
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(str(notebook_path), as_version=4)
    starter, check = exercise_cells(nb.cells)
    assert len(starter) == 1 and len(check) == 1, "one exercise cell and one check cell"
    client = build_tool.client_for(nb, notebook_path)
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):   # a failing cell raises CellExecutionError with its traceback
            client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
        # The student's starting point: the check must reject it.
        client.execute_cell(nb.cells[starter[0]], starter[0])
        with pytest.raises(CellExecutionError) as failed:
            client.execute_cell(nb.cells[check[0]], check[0])
    assert failed.value.ename == "AssertionError", f"the check should fail by an assert, not {failed.value.ename}"


# ------------------------------------------------------------------ the committed copies
def test_course_has_its_notebooks_in_order_and_the_index_lists_them(build_tool):
    names = [p.name for p in build_tool.course_notebooks()]
    assert len(names) >= 8
    assert [n[:2] for n in names] == sorted(n[:2] for n in names) and len({n[:2] for n in names}) == len(names)
    index = (build_tool.NOTEBOOK_DIR / "README.md").read_text(encoding="utf-8")
    for name in names:
        assert f"({name})" in index, f"notebooks/README.md has no line linking {name}"


def test_notebook_is_mindspore_style_and_ends_with_exercise_solution_check(notebook_path):
    nb = read(notebook_path)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert any("import cellkit as ms" in source(c) for c in code_cells(nb))
    last_three = [tags(c) for c in code_cells(nb)[-3:]]
    assert last_three == [["exercise"], ["solution"], ["check"]], last_three
    assert re.search(r"^#+ Exercise", "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "markdown"),
                     re.MULTILINE)


def test_committed_notebook_ran_top_to_bottom_without_errors(notebook_path):
    import nbformat

    nbformat.validate(nbformat.read(str(notebook_path), as_version=4))
    cells = code_cells(read(notebook_path))
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1)), "rebuild: tools/build_notebooks.py"
    for cell in cells:
        assert not [o for o in cell["outputs"] if o["output_type"] == "error"], source(cell)[:80]
        assert "execution" not in cell["metadata"], "timestamps are stripped by tools/build_notebooks.py"
    assert "check passed" in "".join(joined(o.get("text", "")) for o in cells[-1]["outputs"])


def test_every_display_cell_has_its_output(notebook_path):
    """A cell ending in an expression (not silenced by ';') shows something; so does one that plots or prints."""
    for cell in code_cells(read(notebook_path)):
        text = source(cell).rstrip()
        body = ast.parse(text).body
        shows = (body and isinstance(body[-1], ast.Expr) and not text.endswith(";")) or "plt.show()" in text
        if shows:
            assert cell["outputs"], f"no output committed for:\n{text[:200]}"


def test_html_outputs_are_static_and_need_no_network(notebook_path):
    html_outputs = 0
    for cell in code_cells(read(notebook_path)):
        for output in cell["outputs"]:
            html = output.get("data", {}).get("text/html")
            if html is None:
                continue
            html_outputs += 1
            html = joined(html)
            assert "<script" not in html.lower()
            for namespace in XML_NAMESPACES:
                html = html.replace(namespace, "")
            assert not re.search(r"https?://", html), re.search(r".{0,60}https?://.{0,60}", html).group(0)
    assert html_outputs, "every notebook shows at least one of cellkit's HTML displays"


def test_widgets_are_saved_with_the_notebook(notebook_path, build_tool):
    nb = read(notebook_path)
    state = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    views = [o["data"][WIDGET_VIEW]["model_id"] for c in code_cells(nb) for o in c["outputs"]
             if WIDGET_VIEW in o.get("data", {})]
    for model_id in views:
        assert model_id in state, f"widget {model_id} has no saved state: rebuild with tools/build_notebooks.py"
    # A viewer without widgets shows a progress bar's text: it must be the finished bar, not the empty one.
    bars = [joined(o["data"]["text/plain"]) for c in code_cells(nb) for o in c["outputs"]
            if WIDGET_VIEW in o.get("data", {}) and "step/s" in joined(o["data"].get("text/plain", ""))]
    assert not [bar for bar in bars if "100%|" not in bar], bars
    # The file is what the build tool writes: normalising it again changes nothing (deterministic ids ...).
    import nbformat

    again = build_tool.normalise(nbformat.from_dict(json.loads(json.dumps(nb))), notebook_path.stem)
    assert nbformat.writes(again) + "\n" == notebook_path.read_text(encoding="utf-8")
