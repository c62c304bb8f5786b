"""Record MindSpore 2.10's summary files and errors as fixtures for cellkit's summary tests.

Run from the repository root with MindSpore's Python (never cellkit's)::

    /work/msvenv/bin/python tools/record_summary.py

It runs the scenarios of ``tests/train/summary_scenarios.py`` with real ``mindspore.SummaryRecord`` and
``mindspore.train.SummaryCollector`` and copies what they write into ``tests/fixtures/summary/`` under stable
names (the real names carry the time, the device and the host):

- ``values_MS``: every kind of value, ``plugin_filter``, the summary ops, eval mode;
- ``small_x``: one scalar at one step (the fixed-content record of the framing test);
- ``collect_MS`` / ``collect_lineage``: ``SummaryCollector`` over a 2-epoch ``Model.train``;
  ``collect_eval_lineage``: over ``Model.eval``; ``collect_landscape.json``: its landscape files;
- ``specified_MS``: ``collect_specified_data`` with ``keep_default_action=False``;
- ``landscape_MS``: ``SummaryLandscape``'s PCA and random landscapes after a 3-epoch training;
- ``frame.bin``: MindSpore's C++ writer framing fixed bytes;
- ``expected.json``: the file-name patterns, the eval metrics, the exception type and message of every
  error case.
"""
import glob
import json
import os
import shutil
import sys
import tempfile
import importlib.util

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "tests", "fixtures", "summary")


def _scenarios():
    spec = importlib.util.spec_from_file_location("summary_scenarios",
                                                  os.path.join(ROOT, "tests", "train", "summary_scenarios.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy(pattern, name):
    found = sorted(glob.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"expected one file for {pattern}, found {found}")
    target = os.path.join(FOLDER, name)
    shutil.copyfile(found[0], target)
    os.chmod(target, 0o644)
    return os.path.basename(found[0])


def main():
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore._c_expression import EventWriter_

    scenarios = _scenarios()
    os.makedirs(FOLDER, exist_ok=True)
    expected = {"mindspore_version": ms.__version__, "names": {}, "errors": {}}
    work = tempfile.mkdtemp()
    try:
        path = scenarios.record_values(ms, os.path.join(work, "values"))
        expected["names"]["values"] = os.path.basename(path)
        _copy(os.path.join(work, "values", "*_MS"), "values_MS")
        expected["names"]["values_files"] = sorted(os.listdir(os.path.join(work, "values")))

        path = scenarios.record_small(ms, os.path.join(work, "small"))
        expected["names"]["small"] = _copy(os.path.join(work, "small", "*_x"), "small_x")

        metrics = scenarios.collect_training(ms, ds, os.path.join(work, "collect"), os.path.join(work, "ceval"))
        expected["eval_metrics"] = metrics
        _copy(os.path.join(work, "collect", "*_MS"), "collect_MS")
        _copy(os.path.join(work, "collect", "*_lineage"), "collect_lineage")
        _copy(os.path.join(work, "ceval", "*_lineage"), "collect_eval_lineage")
        expected["names"]["collect_files"] = sorted(os.listdir(os.path.join(work, "collect")))
        expected["names"]["collect_eval_files"] = sorted(os.listdir(os.path.join(work, "ceval")))
        ckpt_dir = os.path.join(work, "collect", "ckpt_dir")
        with open(os.path.join(ckpt_dir, "train_metadata.json")) as handle:
            meta = json.load(handle)
        meta["model_params_file_map"] = {k: os.path.relpath(v, work)
                                         for k, v in meta["model_params_file_map"].items()}
        with open(os.path.join(FOLDER, "collect_landscape.json"), "w") as handle:
            json.dump({"files": sorted(os.listdir(ckpt_dir)), "metadata": meta}, handle, indent=0, sort_keys=True)

        scenarios.collect_specified(ms, ds, os.path.join(work, "specified"))
        _copy(os.path.join(work, "specified", "*_MS"), "specified_MS")
        expected["names"]["specified_files"] = sorted(os.listdir(os.path.join(work, "specified")))

        scenarios.landscape(ms, ds, os.path.join(work, "landscape"))
        _copy(os.path.join(work, "landscape", "landscape", "*_MS"), "landscape_MS")

        frame_path = os.path.join(work, "frame.bin")
        writer = EventWriter_(frame_path)
        for data in (b"", b"cellkit", bytes(range(256)) * 3):
            writer.Write(data)
        writer.Flush()
        writer.Shut()
        shutil.copyfile(frame_path, os.path.join(FOLDER, "frame.bin"))

        err_folder = os.path.join(work, "errors")
        for label, thunk in scenarios.error_cases(ms, err_folder):
            ms.SummaryRecord.count = 0
            try:
                thunk()
            except Exception as exc:  # noqa: BLE001 -- recording what MindSpore raises
                expected["errors"][label] = {"type": type(exc).__name__, "message": str(exc).replace(work, "<work>")}
            else:
                expected["errors"][label] = None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(FOLDER, "expected.json"), "w") as handle:
        json.dump(expected, handle, indent=1, sort_keys=True)
    print("wrote", FOLDER, file=sys.stderr)


if __name__ == "__main__":
    main()
