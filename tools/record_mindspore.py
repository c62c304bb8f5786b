"""Record what real MindSpore returns for a module of cases, as a small JSON fixture.

Run from the repository root with a Python that has ``mindspore==2.10.0`` (never cellkit's venv)::

    /work/msvenv/bin/python tools/record_mindspore.py transforms          # all cases
    /work/msvenv/bin/python tools/record_mindspore.py transforms --only grad_position_int --print
    /work/msvenv/bin/python tools/record_mindspore.py ops_math --batch 40      # 40 cases per process

It imports ``tests/mindspore_cases/<module>.py``, runs every case once in PyNative mode on the
CPU with ``(mindspore, mindspore.ops, mindspore.nn, numpy)``, ``--batch`` cases per new
interpreter (1 by default) -- and never a case after one that raised in the same interpreter
(MindSpore keeps PyNative grad state across an exception raised inside a transform, so in one
process a raising case can change the answers of the cases after it) --, ``--jobs`` at a time, and
writes ``tests/fixtures/mindspore/<module>.json``.  With ``--only`` the named cases are
re-recorded and merged into the existing file.  The tool imports nothing from cellkit.

Fixture format (read by ``tests/test_mindspore_<module>.py``), one case per line::

    {"mindspore_version": "2.10.0", "numpy_version": ..., "mode": "PYNATIVE_MODE", "device": "CPU",
     "module": "transforms",
     "cases": {"<case name>": {"value": V}                       # the case returned V
                             | {"raises": "TypeError", "builtin": "TypeError", "message": "..."},
               ...}}

where a value ``V`` is one of::

    {"tensor": nested lists, "dtype": "Float32", "shape": [2, 2]}    # Tensor (and Parameter); a complex
                                                                    # element is a pair [real, imag]
    {"tuple": [V, ...]}  {"list": [V, ...]}  {"dict": [[key, V], ...]}
    {"int": 3}  {"float": 1.5}  {"bool": true}  {"str": "w"}  {"none": null}
    {"dtype": "Float32"}                                            # a mindspore dtype object

Float values are written with the shortest decimal text that reads back as the same float32 (or
float64); NaN and infinities as the strings "nan", "inf", "-inf"; Float16/BFloat16 tensors via
float32.  A case returning anything else (a function, a NumPy array, an arbitrary object) is an
error of the case: the tool stops and says which.  For an exception, ``raises`` is the type's
name, ``builtin`` its nearest built-in base class (what a cellkit test can match), and
``message`` its first 300 characters, with memory addresses blanked to ``0x?``.

A case that gives ``expected(np)`` (a NumPy reference) also records ``"expected_max_abs_diff"``
when its result has the reference's structure: the evidence that MindSpore agrees with the
reference, or, for a case marked ``mindspore_wrong``, that it does not.  A ``mindspore_wrong``
case whose result has another structure records ``"expected_structure_differs": true``.
"""
from __future__ import annotations

import argparse
import builtins
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES_DIR = ROOT / "tests" / "mindspore_cases"
FIXTURES_DIR = ROOT / "tests" / "fixtures" / "mindspore"
MESSAGE_CHARS = 300


def _load_cases(module_name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "_mindspore_cases", CASES_DIR / "__init__.py", submodule_search_locations=[str(CASES_DIR)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["_mindspore_cases"] = package
    spec.loader.exec_module(package)
    return package.load_case_module(module_name)


def _float_text(x, np):
    """A float32/float64 element as JSON: shortest round-trip text, non-finite as strings."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(str(x)) if isinstance(x, np.floating) else float(x)


def _nested(array, np):
    """A NumPy array as nested lists of JSON scalars."""
    if array.ndim == 0:
        return _scalar(array[()], np)
    return [_nested(row, np) for row in array]


def _scalar(x, np):
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.complexfloating):  # a complex element is the pair [real, imaginary]
        return [_float_text(x.real, np), _float_text(x.imag, np)]
    return _float_text(x, np)


def encode(value, ms, np, where="result"):
    """A case's result as the fixture's JSON structure (see the module docstring)."""
    if isinstance(value, ms.Tensor):
        dtype_name = str(value.dtype)
        if dtype_name in ("BFloat16", "Float16"):
            array = value.astype(ms.float32).asnumpy()
        else:
            array = value.asnumpy()
        return {"tensor": _nested(array, np), "dtype": dtype_name, "shape": list(value.shape)}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": _float_text(value, np)}
    if isinstance(value, str):
        return {"str": value}
    if value is None:
        return {"none": None}
    if isinstance(value, tuple):
        return {"tuple": [encode(v, ms, np, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return {"list": [encode(v, ms, np, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, dict):
        return {"dict": [[k, encode(v, ms, np, f"{where}[{k!r}]")] for k, v in value.items()]}
    if isinstance(value, ms.dtype.Type):
        return {"dtype": str(value)}
    if isinstance(value, np.ndarray):
        raise TypeError(f"{where} is a numpy array: a case returns Tensors (wrap it in ms.Tensor)")
    raise TypeError(f"{where} is a {type(value).__name__}, which a fixture cannot hold")


def _leaves(value, ms):
    """Flatten a result to a list of NumPy arrays (for the mindspore_wrong evidence)."""
    import numpy as np
    if isinstance(value, ms.Tensor):
        array = value.asnumpy()
        return [array.astype(np.complex128 if array.dtype.kind == "c" else np.float64)]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v, ms)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v, ms)]
    if isinstance(value, (int, float)):
        return [np.float64(value)]
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return [np.asarray(value, dtype=np.float64)]
    return []


def _builtin_base(exc_type):
    for klass in exc_type.__mro__:
        if getattr(builtins, klass.__name__, None) is klass:
            return klass.__name__
    return "Exception"


def run_case(case, ms, ops, nn, np, verbose=False):
    """Run one case under MindSpore; its fixture entry."""
    captured = io.StringIO()
    try:
        with redirect_stdout(captured):
            result = case(ms, ops, nn, np)
            _leaves(result, ms)  # MindSpore may run ops asynchronously: an op's error surfaces here
    except NameError:
        raise  # a mistake in the case's own text, not MindSpore's answer
    except Exception as exc:  # noqa: BLE001 -- every other exception is a recorded answer
        # Addresses ("value_ptr: 0x55d0...") change from run to run: keep the fixture stable.
        message = re.sub(r"0x[0-9a-fA-F]+", "0x?", str(exc).strip())
        if verbose:
            traceback.print_exc()
        entry = {"raises": type(exc).__name__, "builtin": _builtin_base(type(exc)),
                 "message": message[:MESSAGE_CHARS]}
        return entry
    entry = {"value": encode(result, ms, np)}
    if case.expected is not None:
        got = _leaves(result, ms)
        want = _leaves(case.expected(np), ms)
        if len(got) != len(want) or any(g.shape != w.shape for g, w in zip(got, want)):
            if not case.mindspore_wrong:
                raise ValueError(f"case {case.name}: expected(np) does not have the structure of the result")
            entry["expected_structure_differs"] = True
            return entry
        diff = max((float(np.max(np.abs(g - w))) if g.size else 0.0 for g, w in zip(got, want)), default=0.0)
        entry["expected_max_abs_diff"] = float(f"{diff:.2g}")  # two digits: stable from run to run
    return entry


_ENTRY_MARK = "@@record_mindspore_entry@@ "


def _worker(module_name, case_names, verbose):
    """Run cases in this (fresh) process, in order, printing each entry on a marked line.

    It stops after the first case that raises: MindSpore's PyNative grad state survives an
    exception raised inside a transform, so no case may run after one in the same process.
    """
    os.environ.setdefault("GLOG_v", "3")  # MindSpore's C++ log: errors only
    import numpy as np
    import mindspore as ms
    from mindspore import nn, ops

    ms.set_device("CPU")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    cases = _load_cases(module_name).CASES
    for name in case_names:
        entry = run_case(cases[name], ms, ops, nn, np, verbose=verbose)
        sys.stdout.write(_ENTRY_MARK + json.dumps([name, entry], allow_nan=False) + "\n")
        sys.stdout.flush()
        if "raises" in entry:
            break


def _record_in_subprocess(module_name, case_names, verbose, timeout):
    """Entries of ``case_names`` recorded by a new interpreter, in order, up to and including the
    first one that raises: ``{name: entry}`` for those it did (the caller re-queues the rest).
    A fresh process keeps every answer independent of the order (see :func:`_worker`)."""
    command = [sys.executable, str(Path(__file__).resolve()), module_name, "--worker", *case_names]
    if verbose:
        command.append("--verbose")
    # A scratch working directory: MindSpore writes debug dumps (rank_0/om/analyze_fail.ir) there.
    with tempfile.TemporaryDirectory(prefix="record_mindspore_") as scratch:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout * len(case_names),
                              cwd=scratch)
    entries = {}
    for line in done.stdout.splitlines():
        if line.startswith(_ENTRY_MARK):
            name, entry = json.loads(line[len(_ENTRY_MARK):])
            entries[name] = entry
    if not entries:
        raise RuntimeError(f"case {case_names[0]}: the MindSpore process ended with status {done.returncode} "
                           f"and no answer:\n{done.stderr[-3000:]}")
    return entries, done.stderr


def _record_all(module_name, names, jobs, batch, verbose, timeout):
    """Every case of ``names`` recorded, ``batch`` cases per process, ``jobs`` processes at once."""
    pending = list(names)
    entries = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        while pending:
            groups = [pending[i:i + batch] for i in range(0, len(pending), batch)]
            results = list(pool.map(lambda g: _record_in_subprocess(module_name, g, verbose, timeout), groups))
            pending = []
            for group, (done, stderr) in zip(groups, results):
                entries.update(done)
                pending += [n for n in group if n not in done]  # after a raising case: again, fresh
                if verbose and stderr.strip():
                    print(f"--- {group[0]}... (stderr)\n{stderr.rstrip()}", file=sys.stderr)
    return entries


def _distribution_version(name):
    from importlib.metadata import version
    return version(name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="case module under tests/mindspore_cases, e.g. transforms")
    parser.add_argument("--only", nargs="+", metavar="CASE", help="re-record these cases and merge them")
    parser.add_argument("--print", action="store_true", help="print each entry as it is recorded")
    parser.add_argument("--verbose", action="store_true", help="print tracebacks of raising cases")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases recorded at once")
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed to one case")
    parser.add_argument("--output", type=Path, help="fixture path (default tests/fixtures/mindspore/<module>.json)")
    parser.add_argument("--batch", type=int, default=1,
                        help="cases per MindSpore process (a process still stops after a raising case)")
    parser.add_argument("--worker", nargs="+", metavar="CASE", help=argparse.SUPPRESS)  # internal: run cases here
    args = parser.parse_args(argv)

    if args.worker:
        _worker(args.module, args.worker, args.verbose)
        return

    cases = _load_cases(args.module).CASES  # the case module imports neither MindSpore nor cellkit
    output = args.output or FIXTURES_DIR / f"{args.module}.json"
    entries = {}
    if args.only:
        unknown = [n for n in args.only if n not in cases.names()]
        if unknown:
            parser.error(f"unknown case(s): {', '.join(unknown)}")
        if output.exists():
            entries = json.loads(output.read_text())["cases"]
    selected = args.only or cases.names()

    recorded = _record_all(args.module, selected, args.jobs, max(1, args.batch), args.verbose, args.timeout)
    for name in selected:
        entries[name] = recorded[name]
        if args.print:
            print(name, json.dumps(recorded[name])[:2000], flush=True)
    # Keep the file in the case list's order, and drop entries of cases that no longer exist.
    ordered = {name: entries[name] for name in cases.names() if name in entries}

    header = {
        "mindspore_version": _distribution_version("mindspore"),
        "numpy_version": _distribution_version("numpy"),
        "mode": "PYNATIVE_MODE",
        "device": "CPU",
        "module": args.module,
    }
    # One case per line: compact, and a changed case is a one-line diff.
    lines = [f"{json.dumps(name)}:{json.dumps(entry, separators=(',', ':'), allow_nan=False)}"
             for name, entry in ordered.items()]
    text = json.dumps(header, separators=(",", ":"))[:-1] + ',"cases":{\n' + ",\n".join(lines) + "\n}}\n"
    json.loads(text)  # the file must read back
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_suffix(".json.tmp")
    tmp.write_text(text)
    os.replace(tmp, output)
    raised = sum("raises" in e for e in ordered.values())
    missing = [n for n in cases.names() if n not in ordered]
    shown = output.relative_to(ROOT) if output.resolve().is_relative_to(ROOT) else output
    print(f"wrote {shown}: {len(ordered)} cases ({raised} raise), {output.stat().st_size} bytes, "
          f"MindSpore {header['mindspore_version']}" + (f"; not recorded: {missing}" if missing else ""))


if __name__ == "__main__":
    main()
