"""Metrics: Accuracy and Loss behave as MindSpore's (inputs, errors, results); the full comparison with
MindSpore 2.10 is tests/train/test_mindspore_metrics.py."""
import numpy as np
import pytest

import cellkit as ms
from cellkit.train import Accuracy, Loss, Metric, get_metric_fn, get_metrics, names


def test_accuracy_accumulates_over_batches_with_indices_or_one_hot():
    acc = Accuracy()
    acc.update(ms.Tensor(np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)), ms.Tensor(np.array([1, 1], np.int32)))
    acc.update(np.array([[0.3, 0.7]]), np.array([[0, 1]]))
    assert acc.eval() == pytest.approx(2 / 3)
    acc.clear()
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        acc.eval()


def test_accuracy_call_is_clear_update_eval():
    acc = Accuracy()
    acc.update(np.array([[0.0, 1.0]]), np.array([0]))
    assert acc(np.array([[0.0, 1.0]]), np.array([1])) == 1.0


def test_accuracy_multilabel_counts_rows_matching_exactly():
    acc = Accuracy("multilabel")
    acc.update(np.array([[1, 0, 1], [0, 1, 0]]), np.array([[1, 0, 1], [0, 1, 1]]))
    assert acc.eval() == 0.5


def test_accuracy_errors():
    acc = Accuracy()
    with pytest.raises(ValueError, match="2 inputs"):
        acc.update(np.zeros((2, 3)))
    acc.update(np.zeros((2, 3)), np.array([0, 1]))
    with pytest.raises(ValueError, match="class number not match"):
        acc.update(np.zeros((2, 4)), np.array([0, 1]))
    with pytest.raises(TypeError, match="eval_type"):
        Accuracy("regression")
    with pytest.raises(TypeError, match="tensor, list or numpy.ndarray"):
        acc.update(object(), np.array([0]))


def test_loss_metric_averages_batches():
    loss = Loss()
    loss.update(ms.Tensor(np.float32(1.0)))
    loss.update(np.array([2.0, 4.0]))
    assert loss.eval() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="dimension"):
        loss.update(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="1 input"):
        loss.update(1.0, 2.0)


def test_metric_set_indexes_picks_inputs():
    acc = Accuracy().set_indexes([1, 2])
    acc.update("ignored", np.array([[0.2, 0.8]]), np.array([1]))
    assert acc.indexes == [1, 2] and acc.eval() == 1.0
    with pytest.raises(ValueError, match="must be a list and all its elements must be int"):
        Accuracy().set_indexes((0, 1))


def test_get_metrics_by_name_or_dict():
    metrics = get_metrics({"accuracy", "loss"})
    assert isinstance(metrics["accuracy"], Accuracy) and isinstance(metrics["loss"], Loss)
    custom = Accuracy()
    assert get_metrics({"top": custom}) == {"top": custom}
    assert get_metrics(None) is None
    assert "acc" in names()
    with pytest.raises(KeyError, match="unsupported metric"):
        get_metric_fn("bleu")
    with pytest.raises(TypeError):
        get_metrics(["accuracy"])
    with pytest.raises(TypeError):
        get_metrics({"a": 1})


def test_metric_subclass_needs_its_three_methods():
    class Half(Metric):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Half()


def test_inputs_that_do_not_fit_name_the_metric_and_keep_mindspores_type():
    from cellkit.train import F1, Dice

    with pytest.raises(IndexError, match=r"For 'F1.update', the inputs \(ndarray\(shape=\(2, 3\)"):
        F1().update(np.zeros((2, 3), np.float32), np.array([0.0, 1.0]))   # float labels cannot index
    with pytest.raises(ValueError, match="For 'F1.update'"):                  # ... and it is a ValueError too
        F1().update(np.zeros((2, 3), np.float32), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="For 'Dice.update'"):
        Dice().update(np.zeros((2, 3)), [[1.0], [2.0, 3.0]])


def test_every_metric_name_builds_and_runs_in_a_model_evaluation():
    from cellkit import nn
    from cellkit.train import Model, NumpySlicesDataset

    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    data = NumpySlicesDataset((np.eye(3, dtype=np.float32)[[0, 1, 2, 0]], np.array([0, 1, 1, 0], np.int32)),
                              shuffle=False).batch(2)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  metrics={"acc", "top_1_accuracy", "loss", "F1"})
    result = model.eval(data)
    assert set(result) == {"acc", "top_1_accuracy", "loss", "F1"}
    assert result["acc"] == result["top_1_accuracy"] == 0.5          # all-ones weights: every row scores a tie
    assert isinstance(result["F1"], np.ndarray) and result["F1"].shape == (2,)
