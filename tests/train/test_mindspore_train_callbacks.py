"""cellkit's callbacks and ``Model`` against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/train_callbacks.py`` (what LossMonitor / TimeMonitor /
EarlyStopping / ReduceLROnPlateau print, the files ModelCheckpoint writes and the keys inside them,
History, LambdaCallback's stages, BackupAndRestore, the configuration errors) runs here under cellkit
and is compared with ``tests/fixtures/mindspore/train_callbacks.json``.  MindSpore is never imported.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "train_callbacks"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_train_callbacks_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_train_callbacks_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_train_callbacks_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"
