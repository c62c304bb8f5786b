"""cellkit's ``FlopsUtilizationCollector`` against what real MindSpore 2.10 printed.

Every case in ``tests/mindspore_cases/train_flops.py`` (Dense stacks, convolutions with stride / padding /
dilation / groups, ``ops.BatchMatMul`` / ``ops.MatMul`` in custom cells, functional products, recomputed
blocks, the print interval, evaluation, PyNative mode, ``enable_ma_collector``, the argument checks) runs here
under cellkit and is compared with ``tests/fixtures/mindspore/train_flops.json``: the FLOP lines exactly, the
utilization lines' format (times and percentages masked).  MindSpore is never imported.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.train import FlopsUtilizationCollector, Model, RunContext
from cellkit.train.callback import _CallbackParams
from cellkit.train.flop_count import count_flops, node_flops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "train_flops"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)


@pytest.fixture(autouse=True)
def _pynative_afterwards():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "TrainOneStepCell cannot be compiled ... op by op"
        yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("name", CASES.names())
def test_train_flops_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_train_flops_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]


def test_train_flops_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


# ------------------------------------------------------------------------------------------ cellkit's own checks
def test_flops_collector_is_exported_where_mindspore_has_it():
    assert ms.FlopsUtilizationCollector is ms.train.FlopsUtilizationCollector is FlopsUtilizationCollector


@pytest.mark.parametrize("computility, error", [("x", TypeError), (True, TypeError), (None, TypeError),
                                                (0, ValueError), (-3.0, ValueError), (float("nan"), ValueError),
                                                (float("inf"), ValueError)])
def test_flops_collector_refuses_a_bad_computility_when_built(computility, error):
    # MindSpore 2.10 accepts these and fails at the end of the first step (ZeroDivisionError for 0).
    with pytest.raises(error, match="computility"):
        FlopsUtilizationCollector(2, computility=computility)


def test_flop_count_forward_only_and_transposes():
    graph = ms.graph.build_graph(nn.Dense(10, 7), ops.ones((32, 10)))
    assert count_flops(graph, backward=False).model == 2 * 32 * 10 * 7

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ops.ones((4, 6, 3)), name="w")
            self.bmm = ops.BatchMatMul(transpose_a=True, transpose_b=True)

        def construct(self, x):
            return self.bmm(x, self.w)

    graph = ms.graph.build_graph(Net(), ops.ones((4, 3, 5)))  # x.T (4, 5, 3) @ w.T (4, 3, 6) -> (4, 5, 6), K = 3
    assert node_flops(graph.nodes[0]) == 2 * 4 * 5 * 6 * 3
    count = count_flops(graph, [graph.states[0].tensor])
    assert (count.forward, count.model) == (2 * 4 * 5 * 6 * 3, 2 * 2 * 4 * 5 * 6 * 3)


def test_flops_collector_costs_nothing_until_used():
    # the collector reads the graph GRAPH_MODE compiled anyway: a run without it traces the same number of times
    def traces(callbacks):
        net = nn.SequentialCell(nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 5))
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      nn.Momentum(net.trainable_params(), 0.01, 0.9))
        data = ms.dataset.NumpySlicesDataset({"x": np.ones((64, 10), np.float32), "y": np.zeros(64, np.int32)},
                                             shuffle=False).batch(32)
        ms.set_context(mode=ms.GRAPH_MODE)
        model.train(2, data, callbacks=callbacks)
        return ms.graph.trace_count(model.train_network.network)

    assert traces([FlopsUtilizationCollector(2, computility=1e12)]) == traces(None) == 1


def test_flops_collector_outside_model_needs_train_or_eval_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    collector = FlopsUtilizationCollector(1)
    ctx = RunContext(_CallbackParams(mode="predict", cur_step_num=1))
    collector.step_begin(ctx)
    with pytest.raises(ValueError, match="only support train and eval mode"):
        collector.step_end(ctx)
