"""Write the MindRecord fixtures with real MindSpore 2.10 and record what its MindDataset reads back.

Run from the repository root with MindSpore's Python (never cellkit's)::

    /work/msvenv/bin/python tools/record_mindrecord.py

It writes ``tests/fixtures/mindrecord/*.mindrecord`` (+ ``.db``) with ``mindspore.mindrecord.FileWriter``
from the rows in ``tests/dataset/mindrecord_rows.py``, and ``expected.json``: what
``mindspore.dataset.MindDataset`` reads from them.  ``tests/dataset/test_mindrecord.py`` checks
that cellkit reads the same and writes the same bytes.
"""
import importlib.util
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "tests", "fixtures", "mindrecord")


def main():
    import mindspore
    import mindspore.dataset as ds
    from mindspore.mindrecord import FileWriter

    spec = importlib.util.spec_from_file_location("mindrecord_rows", os.path.join(ROOT, "tests", "dataset",
                                                                                   "mindrecord_rows.py"))
    rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows)
    os.makedirs(FOLDER, exist_ok=True)
    rows.write_all(FileWriter, FOLDER)
    for name in rows.shard_files():
        os.chmod(os.path.join(FOLDER, name), 0o644)
        os.chmod(os.path.join(FOLDER, name + ".db"), 0o644)
    expected = {"mindspore_version": mindspore.__version__, "files": rows.describe(ds, FOLDER)}
    with open(os.path.join(FOLDER, "expected.json"), "w") as handle:
        json.dump(expected, handle, sort_keys=True, indent=0)
    print("wrote", FOLDER, file=sys.stderr)


if __name__ == "__main__":
    main()
