"""Gradient flow: per-Cell float64 norms, the tree/table/explorer views and the heatmap over training."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import display, nn
from cellkit.display import gradflow
from cellkit.train import Model

from html_probe import assert_safe, contrast_failures
from models import sigmoid_input, sigmoid_stack


def grads_of(net, x):
    return ms.grad(lambda t: net(t).sum(), grad_position=None, weights=net.trainable_params())(x)


def test_gradflow_norms_per_cell_in_float64_and_thresholds():
    net = sigmoid_stack()
    grads_of(net, sigmoid_input())
    flow = display.cell_gradients(net)
    first = [net[0].weight._last_grad.asnumpy(), net[0].bias._last_grad.asnumpy()]
    expected = float(np.sqrt(sum(np.sum(g.astype(np.float64) ** 2) for g in first)))
    assert flow["0"].param_norm == pytest.approx(expected, rel=1e-9) and flow["0"].status == "vanishing"
    assert flow["24"].status == "ok" and flow["1"].param_norm is None  # a Sigmoid holds no Parameter
    everything = [p._last_grad.asnumpy().astype(np.float64) for p in net.trainable_params()]
    assert flow[""].param_norm == pytest.approx(float(np.sqrt(sum(np.sum(g ** 2) for g in everything))), rel=1e-9)


def test_gradflow_output_norms_come_from_a_trace():
    net = sigmoid_stack()
    with ms.trace(net, vanishing=1e-10) as tr:
        grads_of(net, sigmoid_input())
    flow = display.cell_gradients(net, trace=tr)
    (event,) = tr.select(kind="backward_pre", path="3")
    assert flow["3"].output_norm == pytest.approx(event["tensors"][0]["norm"])
    assert flow["3"].vanishing == 1e-10  # the trace's thresholds
    tree = display.gradient_flow(net, trace=tr)
    assert "vanishing grad ×" in tree.text() and contrast_failures(tree.html()) == []


def test_gradflow_log_bar_places_norms_on_one_scale():
    low, high = gradflow.log_position(1e-24), gradflow.log_position(1e6)
    assert (low, high) == (0.0, 1.0) and gradflow.log_position(1e-9) == pytest.approx(0.5)
    bar = assert_safe(gradflow.log_bar(4e-23, "vanishing"))
    spans = bar.find_all("span")
    assert spans[-1].text() == "4e-23" and "background-color:#3a4f86" in spans[-1].style()
    fill = spans[2].style()  # the bar: track, then its fill
    assert "width:5.3%" in fill  # (log10(4e-23) + 24) / 30


class Steps:
    """A tiny dataset: ten batches of the sigmoid stack's input."""

    def __init__(self):
        self.x = sigmoid_input().asnumpy()
        self.y = np.zeros((4, 1), np.float32)

    def __iter__(self):
        for _ in range(10):
            yield ms.Tensor(self.x), ms.Tensor(self.y)

    def __len__(self):
        return 10

    def get_dataset_size(self):
        return 10


def test_gradflow_heatmap_from_model_fit():
    net = sigmoid_stack()
    recorder = display.GradientRecorder(net)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    model.train(1, Steps(), callbacks=[recorder])
    assert len(recorder.steps) == 10 and recorder.layers == [str(i) for i in range(0, 25, 2)]
    heat = display.gradient_heatmap(recorder)
    root = assert_safe(heat.html())
    rows = root.find_all("tr")[1:]
    assert len(rows) == 13 and all(len(r.child_elements("td")) == 11 for r in rows)
    first_layer = rows[0].child_elements("td")
    assert first_layer[0].text() == "0" and all(td.text() == "▼" for td in first_layer[1:])  # vanishing every step
    assert rows[-1].child_elements("td")[1].text() == ""  # the last layer is healthy
    assert contrast_failures(heat.html()) == []
    lines = heat.text().splitlines()
    assert lines[1].startswith("0 ") and "|vvvvvvvvvv|" in lines[1]


def test_gradflow_heatmap_from_a_trace_per_step():
    net = sigmoid_stack()
    traces = []
    for _ in range(4):
        with ms.trace(net) as tr:
            grads_of(net, sigmoid_input())
        traces.append(tr)
    heat = display.gradient_heatmap(traces)
    assert heat.part.recorder.layers[0] == "0" and len(heat.part.recorder.steps) == 4
    assert "|vvvv|" in heat.text()


def test_gradflow_heatmap_bins_long_runs_and_keeps_the_smallest():
    recorder = display.GradientRecorder()
    recorder.layers = ["a"]
    recorder.steps = list(range(1, 241))
    recorder.norms = [{"a": 1.0 if i != 100 else 1e-12} for i in range(240)]
    part = display.gradient_heatmap(recorder).part
    assert len(part.columns) == 60
    marked = [k for k, column in enumerate(part.columns) if part.cell("a", column) == 1e-12]
    assert marked == [25]
