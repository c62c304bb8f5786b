"""cellkit's ``amp`` against what real MindSpore 2.10 recorded.

Every case in ``tests/mindspore_cases/amp.py`` (the levels O0-O3 on a small network, the custom
lists, the loss scalers, ``all_finite``, the loss-scale managers with overflowing steps,
``build_train_network`` and ``Model(amp_level=..., loss_scale_manager=...)``) runs here under cellkit
and is compared with ``tests/fixtures/mindspore/amp.json``.  MindSpore is never imported.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "amp"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)
# MindSpore 2.10 lists classes cellkit does not have yet (Conv3d, the transposed convolutions, the RNN
# cells): the lists are compared as "cellkit's names, in MindSpore's order" by the test below.
LISTS = "white_and_black_lists"


@pytest.mark.parametrize("name", [n for n in CASES.names() if n != LISTS])
def test_amp_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_amp_lists_follow_mindspore_order():
    recorded = RECORDED["cases"][LISTS]["value"]["tuple"]
    white = [item["str"] for item in recorded[0]["list"]]
    black = [item["str"] for item in recorded[1]["list"]]
    mine_white = [c.__name__ for c in ms.amp.get_white_list()]
    mine_black = [c.__name__ for c in ms.amp.get_black_list()]
    assert mine_white == [n for n in white if n in mine_white]
    assert {"Dense", "Conv2d", "MatMul", "ReLU"} <= set(mine_white)
    assert mine_black == [n for n in black if n in mine_black] and {"BatchNorm2d", "LayerNorm"} <= set(mine_black)
    assert ms.amp.get_white_list() is not ms.amp.get_white_list()


def test_amp_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_amp_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"
