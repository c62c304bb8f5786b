"""``.ckpt`` files of an LSTM and a TransformerEncoder written by real MindSpore 2.10 load into cellkit.

``tools/record_mindspore_checkpoints.py`` built both layers under MindSpore with fixed values, saved them with
``mindspore.save_checkpoint`` (``tests/nn/data/mindspore210_*.ckpt``) and recorded their eval-mode output on a
fixed input.  Here cellkit's layers of the same configuration load those files and must give that output.
The other direction, files cellkit writes loaded by MindSpore, needs MindSpore and is checked by hand:
``write_for_mindspore(DIR)`` below writes them, and the recording tool's ``--check DIR`` loads them into
MindSpore's layers and compares (2026-11-24: max difference 6e-8 for both layers).
"""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "nn" / "data"
_spec = importlib.util.spec_from_file_location("record_mindspore_checkpoints",
                                               ROOT / "tools" / "record_mindspore_checkpoints.py")
TOOL = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(TOOL)  # the same network text MindSpore ran
RECORDED = json.loads((DATA / "mindspore210_checkpoint_outputs.json").read_text())


@pytest.mark.parametrize("name", ["lstm", "transformer_encoder"])
def test_a_mindspore_checkpoint_loads_and_gives_mindspore_output(name):
    assert RECORDED["mindspore_version"].startswith("2.10")
    net = TOOL.build(ms, nn, name)
    params = ms.load_checkpoint(str(DATA / f"mindspore210_{name}.ckpt"))
    not_loaded, unused = ms.load_param_into_net(net, params)
    assert not not_loaded and not unused, (not_loaded, unused)
    got = TOOL.run(ms, net, name).asnumpy()
    np.testing.assert_allclose(got, np.array(RECORDED["outputs"][name], np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["lstm", "transformer_encoder"])
def test_the_parameter_names_are_mindspore_s(name):
    params = ms.load_checkpoint(str(DATA / f"mindspore210_{name}.ckpt"))
    assert list(params) == [p.name for p in TOOL.build(ms, nn, name).get_parameters()]


def write_for_mindspore(folder):
    """Write cellkit's .ckpt files and outputs for ``record_mindspore_checkpoints.py --check folder``."""
    for name in ("lstm", "transformer_encoder"):
        net = TOOL.build(ms, nn, name)
        TOOL.fix_values(ms, net, seed=1)
        ms.save_checkpoint(net, os.path.join(folder, f"{name}.ckpt"))
        np.save(os.path.join(folder, f"{name}.npy"), TOOL.run(ms, net, name).asnumpy())


def test_cellkit_writes_files_that_read_back_the_same(tmp_path):
    write_for_mindspore(tmp_path)
    for name in ("lstm", "transformer_encoder"):
        net = TOOL.build(ms, nn, name)
        ms.load_param_into_net(net, ms.load_checkpoint(str(tmp_path / f"{name}.ckpt")))
        np.testing.assert_array_equal(TOOL.run(ms, net, name).asnumpy(), np.load(tmp_path / f"{name}.npy"))
