"""Real-browser check of the notebook displays (run by ``.ci/run``, not by pytest).

1. JupyterLab is started on 127.0.0.1 (a free port, a random token, a temporary
   root dir holding a copy of ``display_check.ipynb``; config, data and runtime
   dirs are temporary too, and the notebook signatures live in memory).
2. Headless Chromium (``/usr/bin/chromium``, driven by Playwright) opens the
   notebook, runs all cells from the Run menu and waits for every cell to finish.
3. The static cell tree, the parameter table and the trace are looked up in the
   DOM; the explorer widget's tree (a ``<select>``) gets another cell selected
   and its detail pane must change; "freeze cell" must untick the parameter boxes.
4. The notebook is saved (Ctrl+S) and its outputs are read back from disk.
5. Untrusted check: a second JupyterLab, with a fresh in-memory signature
   database, opens a copy of the saved notebook without running it; the server
   must report its cells untrusted and the static tree HTML must still show.

Screenshots go to ``tests/browser/screenshots/``.  Every server is shut down and
every process it started is gone at the end (checked).  Exit status 0 on success.

6. Course notebooks 02 and 05 (committed with outputs) are opened, their saved
   outputs must show, then they are run from scratch and their cell tree,
   hook trace and explorer widgets are photographed; with ``--readme-images``
   two of those photographs replace ``docs/images/explorer.png`` and
   ``hook_trace.png`` (the README shows them).
7. Notebook 7: the untrusted copy is opened in the Notebook 7 interface of the
   second server; the static tree must show there too.

8. Layout (issue 18): ``layout_check.ipynb`` shows every display of a 71-cell
   ResNet, a small GPT with tied weights, a 1,001-cell net and a NaN maker
   (tree, table, trace, graphs, dataflow, gradient heatmap, explorers).  It
   is run in the first server, then reopened untrusted in the second; in each,
   at 1280 px and 800 px, in the light and the dark theme, every output's
   width is measured: nothing may reach past the output area unless a scroll
   box inside the output holds it, no badge may be cut off, every text of our
   HTML must reach 4.5:1 contrast (computed from the rendered colours), the
   root's disclosure triangle must have room, and the untrusted widgets must
   show their static HTML twin.  The figures go to
   ``screenshots/layout_{trusted,untrusted}.json``, a photograph of each output
   per configuration to ``screenshots/layout_*.png``.

Usage: ``python tests/browser/run_browser_check.py [--headed] [--keep] [--readme-images]``
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTEBOOK = "display_check.ipynb"
SHOTS = HERE / "screenshots"
CHROMIUM = os.environ.get("CELLKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
SERVER_START_S = 90      # JupyterLab must answer /api/status within this
RUN_ALL_S = 120          # all cells must have run within this
UI_S = 60                # page loads, notebook opens, widgets render
N_CODE_CELLS = 4

# What must be in the DOM (text of the rendered outputs).
TREE_TEXTS = ["TinyNet", "4 Parameters", "58 elements", "encoder", "input_channels=4", "head"]
TABLE_TEXTS = ["encoder.weight", "head.bias"]
TRACE_TEXTS = ["Hook trace of TinyNet"]


def log(msg):
    print(f"[browser-check {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class CheckFailed(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise CheckFailed(msg)
    log(f"ok: {msg}")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """One JupyterLab server process on 127.0.0.1, in its own session; always stop() it."""

    def __init__(self, root, work, name):
        self.root = Path(root)
        self.work = Path(work)
        self.name = name
        self.port = free_port()
        self.token = secrets.token_hex(24)
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.logfile = None

    def start(self):
        env = dict(os.environ)
        for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                         ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")]:
            (self.work / sub).mkdir(parents=True, exist_ok=True)
            env[var] = str(self.work / sub)
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env.pop("JUPYTER_TOKEN", None)
        cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               "--port-retries=0", f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
               "--NotebookNotary.db_file=:memory:",   # no signature survives this server
               "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
               "--LabApp.news_url=", "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")   # CI containers run as root
        self.logfile = open(self.work / f"{self.name}.log", "w")
        log(f"starting JupyterLab ({self.name}) on port {self.port}")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdout=self.logfile, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"JupyterLab exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/api/status", timeout=3)
                log(f"JupyterLab ({self.name}) is ready")
                return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise CheckFailed(f"JupyterLab did not answer within {SERVER_START_S}s:\n{self.log_tail()}")

    def api(self, method, path, body=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode() or "null"
        return json.loads(text)

    def url(self, path, app="lab/tree"):
        return f"{self.base}/{app}/{path}?token={self.token}"

    def log_tail(self, n=4000):
        try:
            self.logfile.flush()
            return (self.work / f"{self.name}.log").read_text()[-n:]
        except Exception:  # noqa: BLE001
            return "(no log)"

    def stop(self):
        """Shut the kernels and the server down politely, then by signal; bounded."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            for kernel in self.api("GET", "/api/kernels", timeout=5):
                self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=15)
            self.api("POST", "/api/shutdown", timeout=5)
        except Exception as exc:  # noqa: BLE001 -- fall through to signals
            log(f"polite shutdown of {self.name} failed ({exc}); signalling")
        for sig, wait in [(None, 15), (signal.SIGTERM, 10), (signal.SIGKILL, 5)]:
            if sig is not None:
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    pass
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self.logfile.close()
        log(f"JupyterLab ({self.name}) stopped (exit {self.proc.returncode})")


def leftover_processes(marker):
    """PIDs (not ours) whose command line mentions ``marker`` (the temp dir: servers and their kernels)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append((int(entry.name), cmdline.strip()[:200]))
    return found


def dismiss_dialogs(page):
    """Close a 'Select Kernel' or similar modal if one shows up (accept its default)."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count():
        log("a dialog was open; accepting its default button")
        dialog.locator(".jp-mod-accept").first.click()


def dismiss_news_toast(page):
    """Answer 'No' to JupyterLab's 'notified about official Jupyter news?' toast (it covers the screenshots)."""
    try:
        page.locator(".jp-toast-button, .jp-Notification-Toast-button", has_text=re.compile(r"^\s*No\s*$")) \
            .first.click(timeout=3000)
    except Exception:  # noqa: BLE001 -- no toast this time: nothing to dismiss
        pass


def open_notebook(page, lab, path, app="lab/tree"):
    page.goto(lab.url(path, app=app), timeout=UI_S * 1000)
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=UI_S * 1000)
    page.wait_for_timeout(500)
    dismiss_dialogs(page)
    dismiss_news_toast(page)


def wait_kernel_idle(page, timeout_s):
    page.wait_for_function(
        """() => { const el = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) '
                                                + '.jp-Notebook-ExecutionIndicator');
                   return !el || el.getAttribute('data-status') === 'idle'; }""",
        timeout=timeout_s * 1000)


def wait_kernel_connected(lab, timeout_s):
    """Until the server has a kernel that is idle and has a browser connected to it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        kernels = lab.api("GET", "/api/kernels")
        if any(k.get("execution_state") == "idle" and k.get("connections", 0) >= 1 for k in kernels):
            return
        time.sleep(0.5)
    raise CheckFailed(f"no kernel became idle and connected within {timeout_s}s: {lab.api('GET', '/api/kernels')}")


def run_all_cells(page, lab, n_code_cells=N_CODE_CELLS, timeout_s=RUN_ALL_S):
    """Run menu -> Run All Cells, then wait until every code cell has an execution count and the kernel is idle."""
    page.locator(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
        timeout=UI_S * 1000)   # the kernel is up ...
    wait_kernel_connected(lab, UI_S)   # ... and connected, as the server sees it
    page.wait_for_timeout(1000)
    started = "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].some(e => /\\S/.test(" \
              "e.textContent.replace(/[\\[\\]: ]/g, '')))"
    for attempt in range(2):   # a click that lands while the session is still being wired up is retried once
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all'], .lm-Menu-item[data-command='notebook:run-all-cells']",
                     has_text="Run All Cells").first.click()
        try:
            page.wait_for_function(started, timeout=20_000)
            break
        except Exception:  # noqa: BLE001
            if attempt:
                raise CheckFailed("Run All Cells did not start any cell (twice)")
            log("Run All Cells started nothing within 20s; clicking it again")
    page.wait_for_function(
        f"""() => {{ const p = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
                                .map(e => e.textContent.trim());
                    return p.length >= {n_code_cells} && p.every(t => /^\\[\\d+\\]:$/.test(t)); }}""",
        timeout=timeout_s * 1000)
    wait_kernel_idle(page, timeout_s)


def output_text(page):
    return page.locator(".jp-NotebookPanel .jp-OutputArea").all_inner_texts()


def check_no_errors(page, what):
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
                          ".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    check(errors.count() == 0, f"{what}: no cell printed an error or a traceback"
          + ("" if errors.count() == 0 else f": {errors.first.inner_text()[:2000]}"))


def check_static_tree(page, what):
    """The static cell tree of display_check.ipynb is in the DOM, as <details>/<summary> elements."""
    html_outputs = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    tree_text = html_outputs.nth(0).inner_text()
    for t in TREE_TEXTS:
        check(t in tree_text, f"{what}: static tree shows {t!r}")
    check(page.locator(".jp-OutputArea-output details summary", has_text="TinyNet").count() >= 1,
          f"{what}: the tree is built from <details>/<summary> elements (the sanitiser kept them)")


def first_run(page, lab, shots):
    log("opening the notebook and running all cells")
    open_notebook(page, lab, NOTEBOOK)
    t0 = time.monotonic()
    run_all_cells(page, lab)
    log(f"all {N_CODE_CELLS} code cells ran in {time.monotonic() - t0:.1f}s")
    check_no_errors(page, "display check")
    html_outputs = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    check(html_outputs.count() >= 3, f"static HTML outputs rendered (tree, table, trace): {html_outputs.count()}")
    check_static_tree(page, "trusted")
    all_text = "\n".join(output_text(page))
    for t in TABLE_TEXTS:
        check(t in all_text, f"parameter table shows {t!r}")
    for t in TRACE_TEXTS:
        check(t in all_text, f"trace shows {t!r}")

    # -- the explorer widget
    select = page.locator(".jp-OutputArea-output .widget-select select")
    select.wait_for(timeout=UI_S * 1000)
    explorer = page.locator(".jp-OutputArea-output .widget-hbox", has=page.locator(".widget-select")).first
    detail = explorer.locator(".widget-html-content").last
    page.wait_for_function("(el) => el.textContent.includes('(root)')", arg=detail.element_handle(),
                           timeout=UI_S * 1000)
    before = detail.inner_text()
    check("(root)" in before and "TinyNet" in before, "explorer detail pane starts at the root cell")
    options = [o.replace("\u00a0", " ").strip() for o in select.locator("option").all_inner_texts()]
    check(any("head: Dense" in o for o in options), f"explorer tree lists the cells: {options}")
    explorer.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "1_explorer_before.png"), full_page=False)
    head_index = next(i for i, o in enumerate(options) if "head: Dense" in o)
    select.select_option(index=head_index)
    page.wait_for_function("(el) => el.textContent.includes('head') && !el.textContent.includes('(root)')",
                           arg=detail.element_handle(), timeout=UI_S * 1000)
    after = detail.inner_text()
    check(after != before and "head" in after and "Dense" in after,
          "selecting 'head' in the explorer tree changed the detail pane to the head Dense cell")
    boxes = explorer.locator(".widget-checkbox input[type=checkbox]")
    # the first checkbox is 'trainable only'; the rest are the per-parameter requires_grad toggles
    check(boxes.count() == 3 and boxes.nth(1).is_checked() and boxes.nth(2).is_checked(),
          "head's two parameters are shown as ticked (trainable) toggles")
    explorer.locator("button", has_text="freeze cell").first.click()
    page.wait_for_function(
        "(el) => [...el.querySelectorAll('.widget-checkbox input')].slice(1).every(b => !b.checked)",
        arg=explorer.element_handle(), timeout=UI_S * 1000)
    check(not boxes.nth(1).is_checked() and not boxes.nth(2).is_checked(),
          "'freeze cell' unticked head's parameters (requires_grad=False in the kernel)")
    page.wait_for_timeout(300)
    explorer.screenshot(path=str(shots / "2_explorer_after_click.png"))
    page.screenshot(path=str(shots / "1_explorer_page.png"))

    # full-page-ish view of the tree and table: scroll the notebook to the top
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Home")
    page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon").first.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots / "0_tree_and_table.png"))

    # -- save (keyboard shortcut) and read back
    saved = lab.root / NOTEBOOK
    mtime = saved.stat().st_mtime
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + UI_S
    while time.monotonic() < deadline and saved.stat().st_mtime == mtime:
        time.sleep(0.2)
    check(saved.stat().st_mtime != mtime, "Ctrl+S saved the notebook")
    time.sleep(0.5)
    nb = json.loads(saved.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    check(all(c.get("outputs") for c in code), "the saved notebook has outputs in every code cell")
    check(any("text/html" in o.get("data", {}) and "4 Parameters" in "".join(o["data"]["text/html"])
              for o in code[0]["outputs"]), "the saved tree output carries the static text/html")
    return saved


# The course notebooks the check runs, and which outputs it photographs (text that identifies each).
COURSE = {
    "02_building_cells.ipynb": [("course_02_cell_tree.png", "html", "Parameters"),
                                ("course_02_explorer.png", "widget", None)],
    "05_forward_hooks.ipynb": [("course_05_hook_trace.png", "html", "Hook trace of"),
                               ("course_05_trace_explorer.png", "widget", None)],
}
README_IMAGES = {"course_02_explorer.png": "explorer.png", "course_05_hook_trace.png": "hook_trace.png",
                 "layout_trusted-light_1280_01_resnet_tree.png": "gradient_flow.png",
                 "layout_trusted-dark_800_13_nan_trace.png": "nan_at_the_op.png"}


def course_notebook(page, lab, name, shots):
    """Open a committed course notebook, check its saved outputs show, run it, photograph its displays."""
    log(f"course notebook {name}: saved outputs, then a fresh run")
    nb = json.loads((lab.root / name).read_text())
    # Cells whose input the notebook keeps collapsed (the exercise solutions) show no prompt.
    n_code = sum(1 for c in nb["cells"] if c["cell_type"] == "code"
                 and not c.get("metadata", {}).get("jupyter", {}).get("source_hidden"))
    # A workspace of its own, so JupyterLab does not restore the tabs of the earlier check beside it.
    open_notebook(page, lab, name, app=f"lab/workspaces/course{name[:2]}/tree")
    html_outputs = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    html_outputs.first.wait_for(timeout=UI_S * 1000)
    check(html_outputs.count() >= 1, f"{name}: the committed static outputs render before anything runs")
    t0 = time.monotonic()
    run_all_cells(page, lab, n_code, timeout_s=RUN_ALL_S)
    log(f"{name}: all {n_code} code cells ran in {time.monotonic() - t0:.1f}s")
    check_no_errors(page, name)
    for shot, kind, text in COURSE[name]:
        if kind == "html":
            target = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon", has_text=text).first
        else:
            target = page.locator(".jp-OutputArea-output .widget-hbox, .jp-OutputArea-output .widget-vbox").first
        target.wait_for(timeout=UI_S * 1000)
        target.scroll_into_view_if_needed()
        page.wait_for_timeout(400)
        check(target.bounding_box() is not None and target.bounding_box()["height"] > 40,
              f"{name}: the {kind} display for {shot} is on the page")
        target.screenshot(path=str(shots / shot))
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")   # keep the server quiet about unsaved changes at shutdown
    page.wait_for_timeout(500)


def notebook7_view(page, lab, path, shots):
    """The same untrusted notebook in the Notebook 7 interface: the static tree must show there too."""
    page.goto(lab.url(path, app="notebooks"), timeout=UI_S * 1000)
    html_outputs = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    html_outputs.first.wait_for(timeout=UI_S * 1000)
    dismiss_dialogs(page)
    check_static_tree(page, "Notebook 7, untrusted")
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots / "4_notebook7_untrusted.png"))


def untrusted_view(page, lab, path, shots):
    log("opening the saved copy as an untrusted notebook (not running it)")
    model = lab.api("GET", f"/api/contents/{path}?content=1")
    trusted = [c["metadata"].get("trusted") for c in model["content"]["cells"] if c["cell_type"] == "code"]
    check(trusted and not any(trusted), f"the server reports the copy's code cells untrusted: {trusted}")
    open_notebook(page, lab, path)
    outputs = page.locator(".jp-OutputArea-output")
    outputs.first.wait_for(timeout=UI_S * 1000)
    prompts = page.locator(".jp-CodeCell .jp-InputArea-prompt").all_inner_texts()
    html_outputs = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    check(html_outputs.count() >= 3, f"untrusted: static HTML outputs still rendered ({html_outputs.count()})")
    check_static_tree(page, "untrusted")
    all_text = "\n".join(output_text(page))
    for t in TABLE_TEXTS + TRACE_TEXTS:
        check(t in all_text, f"untrusted: {t!r} still shows")
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots / "3_untrusted_static.png"))
    log(f"untrusted prompts (nothing was run in this server): {prompts}")


# ---------------------------------------------------------------------------- layout (issue 18)
# The displays of the models of issue 18, measured in JupyterLab at two widths, in the light and the
# dark theme, trusted (run here) and untrusted (reopened in a second server without running).
LAYOUT_NOTEBOOK = "layout_check.ipynb"
LAYOUT_WIDTHS = (1280, 800)
# What each code cell of layout_check.ipynb shows (the first cell only prepares the models).
LAYOUT_CELLS = ["setup", "resnet_tree", "resnet_table", "resnet_trace", "resnet_graph", "resnet_dataflow",
                "gpt_tree", "gpt_table", "gpt_trace", "gpt_ir_graph", "big_tree", "big_table", "big_trace",
                "nan_trace", "gradient_heatmap", "resnet_explorer", "trace_explorer"]
LAYOUT_WIDGETS = {"resnet_explorer", "trace_explorer"}

# For each output: its width, how far anything reaches past its right edge where no scroll box of its
# own (inside the output, short enough that its scrollbar shows beside its content) lets the reader get
# there, badges cut off by a clipping ancestor, and the lowest text contrast in our HTML (computed
# colours, opacity included, over the painted background).
MEASURE_JS = """(names) => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(',').map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lin = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const over = (top, below) => [0, 1, 2].map(i => top[i] * top[3] + below[i] * (1 - top[3])).concat([1]);
  const background = (e) => { const layers = [];
    for (let p = e; p; p = p.parentElement) { const b = parse(getComputedStyle(p).backgroundColor);
      if (b && b[3] > 0) { layers.push(b); if (b[3] >= 1) break; } }
    let bg = [255, 255, 255, 1];
    if (layers.length && layers[layers.length - 1][3] >= 1) bg = layers.pop();
    else { const body = parse(getComputedStyle(document.body).backgroundColor); if (body) bg = body; }
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg; };
  const opacity = (e, stop) => { let o = 1; for (let p = e; p && p !== stop.parentElement; p = p.parentElement)
    o *= Number(getComputedStyle(p).opacity); return o; };
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')];
  const found = [];
  cells.forEach((cell, i) => {
    const outputs = [...cell.querySelectorAll('.jp-OutputArea-output')];
    outputs.forEach((o) => {
      const box = o.getBoundingClientRect();
      let worst = 0, culprit = '', clipped = 0, minContrast = 99, lowText = '';
      for (const e of o.querySelectorAll('*')) {
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        const ours = e.closest('.jp-RenderedHTMLCommon, .widget-html-content');
        if (own && ours && getComputedStyle(e).visibility !== 'hidden') {
          const fg = parse(getComputedStyle(e).color);
          if (fg) {
            const bg = background(e);
            const seen = over([fg[0], fg[1], fg[2], fg[3] * opacity(e, ours)], bg);
            const a = lum(seen), b = lum(bg);
            const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
            if (ratio < minContrast) { minContrast = ratio; lowText = (e.textContent || '').trim().slice(0, 40); }
          }
        }
        let right = r.right, scrollable = false, clipRight = Infinity;
        for (let q = e.parentElement; q && q !== o; q = q.parentElement) {
          const s = getComputedStyle(q);
          // a scroll box of the output's own counts as a way to reach what it holds only when its scrollbar
          // is on screen with its content (not 1,700 px below it, at the end of a long table); a taller
          // one hides what it holds as far as the reader can tell: that is overflow too
          const qr = q.getBoundingClientRect();
          if (s.overflowX === 'auto' || s.overflowX === 'scroll') {
            if (qr.right <= box.right + 1 && qr.height <= 600) { scrollable = true; break; }
            continue;
          }
          if (s.overflowX !== 'visible') clipRight = Math.min(clipRight, qr.right);
        }
        if (scrollable) continue;
        if (e.tagName === 'SPAN' && getComputedStyle(e).borderRadius === '8px' && r.right > clipRight + 1) clipped++;
        right = Math.min(right, clipRight);
        if (right - box.right > worst) { worst = right - box.right; culprit = e.tagName + ' ' + (e.textContent || '').trim().slice(0, 50); }
      }
      const summary = o.querySelector('details > summary');
      const marker = summary ? summary.getBoundingClientRect().left - box.left : null;
      found.push({cell: i, name: names[i] || ('cell ' + i), width: Math.round(box.width), height: Math.round(box.height),
                  overflow: Math.round(worst), culprit, clipped, contrast: Math.round(minContrast * 100) / 100, lowText,
                  marker: marker === null ? null : Math.round(marker),
                  html: o.classList.contains('jp-RenderedHTMLCommon'),
                  widget: !!o.querySelector('.jupyter-widgets'),
                  text: (o.innerText || '').slice(0, 80)});
    });
  });
  return found;
}"""


def set_theme(page, dark):
    """Settings → Theme → JupyterLab Dark / Light, then wait until the page says so."""
    wanted = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.keyboard.press("Escape")
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Settings$")).click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^\s*Theme\s*$")).first.hover()
    page.locator(".lm-Menu-item", has_text=wanted).first.click()
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{'false' if dark else 'true'}'",
                           timeout=UI_S * 1000)
    page.wait_for_timeout(600)


def close_sidebar(page):
    """Collapse the left sidebar, so the notebook gets the window's width (as a student would at 800 px)."""
    if page.locator("#jp-left-stack:not(.lm-mod-hidden)").count():
        page.keyboard.press("Escape")
        page.keyboard.press("Control+b")
        page.wait_for_timeout(400)


def measure_layout(page, config, shots, widths=LAYOUT_WIDTHS, shoot=True):
    """Measure every output at each width (and photograph it); returns the rows, logged."""
    rows = []
    for width in widths:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(700)
        found = page.evaluate(MEASURE_JS, LAYOUT_CELLS)
        for row in found:
            row.update(config=config, viewport=width)
            rows.append(row)
            log(f"{config} {width}px {row['name']:<16} width {row['width']:>5} overflow {row['overflow']:>4} "
                f"clipped {row['clipped']} contrast {row['contrast']:>5} ({row['lowText'][:24]!r}) height {row['height']}")
        if shoot:
            cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell")
            for i in range(cells.count()):
                name = LAYOUT_CELLS[i] if i < len(LAYOUT_CELLS) else f"cell{i}"
                if name == "setup":
                    continue
                output = cells.nth(i).locator(".jp-OutputArea-output").first
                if not output.count():
                    continue
                output.evaluate("e => e.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(120)
                box = output.bounding_box()
                if not box:
                    continue
                top = max(box["y"], 0)
                clip = {"x": max(box["x"] - 4, 0), "y": top, "width": min(box["width"] + 8, width - max(box["x"] - 4, 0)),
                        "height": max(min(box["height"], 1000 - top), 10)}
                page.screenshot(path=str(shots / f"layout_{config}_{width}_{i:02d}_{name}.png"), clip=clip)
    return rows


def check_layout(rows, config, untrusted=False):
    """What must hold for every output at every width (issue 18's layout defects, each a failure here)."""
    for row in rows:
        where = f"{config} {row['viewport']}px {row['name']}"
        if row["name"] == "setup":
            continue
        check(row["overflow"] <= 2, f"{where}: fits the output area (overflow {row['overflow']} px"
              + (f": {row['culprit']}" if row["overflow"] > 2 else "") + ")")
        check(row["clipped"] == 0, f"{where}: no badge cut off ({row['clipped']} clipped)")
        if row["html"] or row["widget"]:
            check(row["contrast"] >= 4.5, f"{where}: every text at least 4.5:1 (lowest {row['contrast']} "
                  f"for {row['lowText']!r})")
        if row["marker"] is not None and row["name"].endswith("tree"):
            check(row["marker"] >= 10, f"{where}: the root's disclosure triangle has room ({row['marker']} px)")
        if untrusted and row["name"] in LAYOUT_WIDGETS:
            check(row["html"] and "HBox(children" not in row["text"] and "VBox(children" not in row["text"],
                  f"{where}: the widget's static twin shows as HTML, not a widget repr")


def layout_check(page, lab, shots, trusted):
    """Run (trusted) or open (untrusted) layout_check.ipynb; measure in the light and dark themes."""
    config = "trusted" if trusted else "untrusted"
    name = LAYOUT_NOTEBOOK if trusted else "layout_check_untrusted.ipynb"
    open_notebook(page, lab, name, app="lab/workspaces/layout/tree")
    if trusted:
        n_code = len(LAYOUT_CELLS)
        t0 = time.monotonic()
        run_all_cells(page, lab, n_code, timeout_s=RUN_ALL_S)
        log(f"{name}: all {n_code} code cells ran in {time.monotonic() - t0:.1f}s")
        check_no_errors(page, name)
        page.locator(".jp-OutputArea-output .widget-select select").first.wait_for(timeout=UI_S * 1000)
    else:
        page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon").first.wait_for(timeout=UI_S * 1000)
    close_sidebar(page)
    rows = []
    for dark in (False, True):
        theme = "dark" if dark else "light"
        if dark:
            set_theme(page, True)
        found = measure_layout(page, f"{config}-{theme}", shots)
        check_layout(found, f"{config}-{theme}", untrusted=not trusted)
        rows += found
    set_theme(page, False)
    page.set_viewport_size({"width": 1400, "height": 1000})
    if trusted:
        page.locator(".jp-NotebookPanel .jp-Cell").first.click()
        page.keyboard.press("Escape")
        saved = lab.root / LAYOUT_NOTEBOOK
        mtime = saved.stat().st_mtime
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + UI_S
        while time.monotonic() < deadline and saved.stat().st_mtime == mtime:
            time.sleep(0.2)
        check(saved.stat().st_mtime != mtime, "Ctrl+S saved the layout notebook")
        time.sleep(0.5)
    (shots / f"layout_{config}.json").write_text(json.dumps(rows, indent=1))
    return rows


def main(argv):
    from playwright.sync_api import sync_playwright  # the 'browser' extra; imported here so pytest can import us

    headed = "--headed" in argv
    keep = "--keep" in argv
    readme_images = "--readme-images" in argv
    if not Path(CHROMIUM).exists():
        raise CheckFailed(f"{CHROMIUM} is missing (apt-get install chromium)")
    SHOTS.mkdir(exist_ok=True)
    for old in SHOTS.glob("*.png"):
        old.unlink()
    tmp = Path(tempfile.mkdtemp(prefix="cellkit-browser-"))
    marker = str(tmp)
    labs = []
    started = time.monotonic()
    try:
        root1, root2 = tmp / "root1", tmp / "root2"
        root1.mkdir()
        root2.mkdir()
        shutil.copy(HERE / NOTEBOOK, root1 / NOTEBOOK)
        shutil.copy(HERE / LAYOUT_NOTEBOOK, root1 / LAYOUT_NOTEBOOK)
        for root in (root1, root2):  # the models of issue 18, imported by layout_check.ipynb
            shutil.copy(HERE.parents[0] / "display" / "models.py", root / "models.py")
        for name in COURSE:
            shutil.copy(HERE.parents[1] / "notebooks" / name, root1 / name)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=not headed, args=CHROMIUM_ARGS,
                                         timeout=UI_S * 1000)
            try:
                lab1 = Lab(root1, tmp / "lab1", "lab1")
                labs.append(lab1)
                lab1.start()
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(UI_S * 1000)
                page.on("pageerror", lambda exc: log(f"page error: {exc}"))
                try:
                    saved = first_run(page, lab1, SHOTS)
                    for name in COURSE:
                        page.close()
                        page = browser.new_page(viewport={"width": 1400, "height": 1000})
                        page.set_default_timeout(UI_S * 1000)
                        course_notebook(page, lab1, name, SHOTS)
                    page.close()
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    page.set_default_timeout(UI_S * 1000)
                    layout_check(page, lab1, SHOTS, trusted=True)
                except Exception:
                    page.screenshot(path=str(SHOTS / "failure_run.png"))
                    raise
                finally:
                    page.close()
                lab1.stop()
                if readme_images:
                    images = HERE.parents[1] / "docs" / "images"
                    images.mkdir(parents=True, exist_ok=True)
                    for shot, target in README_IMAGES.items():
                        shutil.copy(SHOTS / shot, images / target)
                    log(f"README images updated in {images}")

                untrusted = "display_check_untrusted.ipynb"
                shutil.copy(saved, root2 / untrusted)
                shutil.copy(root1 / LAYOUT_NOTEBOOK, root2 / "layout_check_untrusted.ipynb")
                shutil.copy(saved, SHOTS / "display_check_executed.ipynb")
                lab2 = Lab(root2, tmp / "lab2", "lab2")
                labs.append(lab2)
                lab2.start()
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(UI_S * 1000)
                try:
                    untrusted_view(page, lab2, untrusted, SHOTS)
                    notebook7_view(page, lab2, untrusted, SHOTS)
                    page.close()
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    page.set_default_timeout(UI_S * 1000)
                    layout_check(page, lab2, SHOTS, trusted=False)
                except Exception:
                    page.screenshot(path=str(SHOTS / "failure_untrusted.png"))
                    raise
                finally:
                    page.close()
            finally:
                browser.close()
    except Exception:
        for lab in labs:
            log(f"--- {lab.name} log tail ---\n{lab.log_tail()}")
        raise
    finally:
        for lab in labs:
            lab.stop()
        left = leftover_processes(marker)
        for pid, cmd in left:
            log(f"killing leftover process {pid}: {cmd}")
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    check(not left, "no JupyterLab server or kernel was left running")
    log(f"browser check passed in {time.monotonic() - started:.1f}s; screenshots in {SHOTS}")
    return 0


if __name__ == "__main__":
    # a SIGTERM (the CI's outer `timeout`) unwinds through main's finally blocks: the servers are stopped
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(124))
    try:
        sys.exit(main(sys.argv[1:]))
    except CheckFailed as exc:
        log(f"FAILED: {exc}")
        sys.exit(1)
