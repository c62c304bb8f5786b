"""Model: train / fit / eval / predict, history, callbacks and the datasets it accepts."""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from cellkit.train import (Accuracy, Callback, History, LambdaCallback, Loss, LossMonitor, Model, NumpySlicesDataset,
                           TimeMonitor)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 2)).astype(np.float32)
Y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int32)
BATCHES = [(X[i:i + 8], Y[i:i + 8]) for i in range(0, 32, 8)]


def ce():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def make_model(metrics=None, lr=0.5, optimizer=True):
    ms.set_seed(0)
    net = nn.Dense(2, 2)
    opt = nn.SGD(net.trainable_params(), lr) if optimizer else None
    return Model(net, ce(), opt, metrics=metrics if metrics is not None else {"accuracy", "loss"})


class Recorder(Callback):
    def __init__(self):
        self.events = []

    def _record(self, name, run_context):
        p = run_context.original_args()
        self.events.append((name, p.get("cur_epoch_num"), p.get("cur_step_num")))

    def on_train_begin(self, rc): self._record("train_begin", rc)
    def on_train_epoch_begin(self, rc): self._record("epoch_begin", rc)
    def on_train_step_begin(self, rc): self._record("step_begin", rc)
    def on_train_step_end(self, rc): self._record("step_end", rc)
    def on_train_epoch_end(self, rc): self._record("epoch_end", rc)
    def on_train_end(self, rc): self._record("train_end", rc)
    def on_eval_begin(self, rc): self._record("eval_begin", rc)
    def on_eval_end(self, rc): self._record("eval_end", rc)


def test_model_train_learns_and_records_history():
    model = make_model()
    before = model.eval(BATCHES)
    model.train(15, BATCHES)
    after = model.eval(BATCHES)
    assert after["accuracy"] >= 0.9 and after["loss"] < before["loss"]
    history = model.history
    assert len(history.step_loss) == 60 and all(isinstance(v, float) for v in history.step_loss)
    assert history.epochs == list(range(1, 16))
    assert history.epoch_end_step == list(range(4, 61, 4))
    assert history.epoch_loss[0] == pytest.approx(np.mean(history.step_loss[:4]))
    assert history.as_dict()["loss"] == history.step_loss
    assert repr(history).startswith("TrainingHistory(60 steps, 15 epochs")


def test_model_eval_returns_plain_floats_and_matches_the_metrics_by_hand():
    model = make_model()
    result = model.eval(BATCHES)
    assert set(result) == {"accuracy", "loss"} and all(type(v) is float for v in result.values())
    net = model.predict_network
    logits = net(ms.Tensor(X)).asnumpy()
    assert result["accuracy"] == pytest.approx((logits.argmax(1) == Y).mean())
    losses = [float(ce()(net(ms.Tensor(x)), ms.Tensor(y)).asnumpy()) for x, y in BATCHES]
    assert result["loss"] == pytest.approx(np.mean(losses), rel=1e-6)


def test_model_predict_runs_in_inference_mode_and_accepts_numpy():
    model = make_model()
    model.train_network.set_train(True)
    out = model.predict(X[:3])
    assert isinstance(out, ms.Tensor) and out.shape == (3, 2)
    assert model.predict_network.training is False
    np.testing.assert_allclose(out.asnumpy(), model.predict_network(ms.Tensor(X[:3])).asnumpy())


def test_model_builds_train_one_step_cell_and_with_eval_cell():
    model = make_model()
    assert isinstance(model.train_network, nn.TrainOneStepCell)
    assert isinstance(model.train_network.network, nn.WithLossCell)
    assert isinstance(model.eval_network, nn.WithEvalCell)
    assert isinstance(make_model(optimizer=False).train_network, nn.WithLossCell)
    assert "global_step" in model.train_network.parameters_dict()


def test_model_without_optimizer_computes_losses_but_updates_nothing():
    model = make_model(optimizer=False)
    weight = model.predict_network.weight.asnumpy().copy()
    model.train(1, BATCHES)
    np.testing.assert_array_equal(model.predict_network.weight.asnumpy(), weight)
    assert len(model.history.step_loss) == 4


def test_model_callbacks_run_in_order_with_run_context():
    recorder = Recorder()
    make_model().train(2, BATCHES, callbacks=recorder)
    names = [e[0] for e in recorder.events]
    assert names[:3] == ["train_begin", "epoch_begin", "step_begin"]
    assert names[-2:] == ["epoch_end", "train_end"]
    assert names.count("step_end") == 8
    step_ends = [e for e in recorder.events if e[0] == "step_end"]
    assert [e[2] for e in step_ends] == list(range(1, 9))
    assert [e[1] for e in step_ends] == [1] * 4 + [2] * 4


def test_model_callback_sees_mindspore_run_context_fields():
    seen = {}

    def grab(run_context):
        seen.update(run_context.original_args())

    model = make_model()
    model.train(1, BATCHES, callbacks=[LambdaCallback(on_train_step_end=grab)])
    for key in ("train_network", "network", "optimizer", "loss_fn", "epoch_num", "batch_num", "cur_epoch_num",
                "cur_step_num", "net_outputs", "train_dataset_element", "mode", "dataset_sink_mode"):
        assert key in seen, key
    assert seen["batch_num"] == 4 and seen["mode"] == "train"
    assert isinstance(seen["net_outputs"], ms.Tensor) and seen["net_outputs"].shape == ()


def test_model_request_stop_ends_training_after_the_step():
    class StopAtThree(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 3:
                run_context.request_stop()

    model = make_model()
    model.train(5, BATCHES, callbacks=StopAtThree())
    assert len(model.history.step_loss) == 3 and model.history.epochs == [1]


def test_loss_monitor_prints_mindspore_format(capsys):
    make_model().train(2, BATCHES, callbacks=LossMonitor(per_print_times=3))
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("epoch: 1 step: 3, loss is ")
    assert lines[1].startswith("epoch: 2 step: 2, loss is ")
    float(lines[0].rsplit(" ", 1)[1])


def test_loss_monitor_stops_on_nan():
    model = make_model()
    bad = [(np.full((8, 2), np.nan, np.float32), Y[:8])]
    with pytest.raises(ValueError, match="NAN or INF"):
        model.train(1, bad, callbacks=LossMonitor())


def test_time_monitor_and_history_callbacks(capsys):
    history = History()
    make_model().train(2, BATCHES, callbacks=[TimeMonitor(), history])
    assert capsys.readouterr().out.count("per step time:") == 2
    assert history.epoch == {"epoch": [1, 2]} and len(history.history["net_output"]) == 2


def test_model_fit_evaluates_on_schedule_and_reports_metrics(capsys):
    model = make_model()
    recorder = Recorder()
    model.fit(4, BATCHES, BATCHES, valid_frequency=2, callbacks=[LossMonitor(0), recorder])
    out = capsys.readouterr().out
    assert out.count("Eval result: epoch") == 2
    assert model.history.metric_epochs == [2, 4]
    assert set(model.history.metrics) == {"accuracy", "loss"}
    assert [e[0] for e in recorder.events].count("eval_end") == 2
    # training resumes in training mode after each evaluation
    assert model.train_network.training


def test_model_fit_valid_frequency_as_list():
    model = make_model()
    model.fit(3, BATCHES, BATCHES, valid_frequency=[1])
    assert model.history.metric_epochs == [1]  # as MindSpore: the last epoch is not evaluated unless listed


def test_model_train_continues_epoch_numbers_with_initial_epoch():
    recorder = Recorder()
    model = make_model()
    model.train(3, BATCHES, callbacks=recorder, initial_epoch=1)
    assert model.history.epochs == [2, 3]
    assert [e[2] for e in recorder.events if e[0] == "step_end"][0] == 1  # as MindSpore: the step count starts at 0 in each train()


@pytest.mark.parametrize("dataset", [
    pytest.param(lambda: [(ms.Tensor(x), ms.Tensor(y)) for x, y in BATCHES], id="tensors"),
    pytest.param(lambda: [{"data": x, "label": y} for x, y in BATCHES], id="dicts"),
    pytest.param(lambda: NumpySlicesDataset((X, Y)).batch(8), id="NumpySlicesDataset"),
    pytest.param(lambda: tuple(BATCHES), id="tuple"),
])
def test_model_accepts_these_datasets(dataset):
    model = make_model()
    model.train(2, dataset())
    assert len(model.history.step_loss) == 8
    assert model.eval(dataset())["accuracy"] > 0


def test_model_refuses_one_shot_iterators_for_several_epochs():
    with pytest.raises(TypeError, match="one-shot"):
        make_model().train(2, (b for b in BATCHES))
    model = make_model()
    model.train(1, (b for b in BATCHES))  # one epoch is fine
    assert len(model.history.step_loss) == 4


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(epoch=0), ValueError, "epoch"),
    (dict(epoch=2, initial_epoch=2), ValueError, "initial_epoch"),
])
def test_model_train_rejects_bad_epochs(kwargs, error, match):
    epoch = kwargs.pop("epoch")
    with pytest.raises(error, match=match):
        make_model().train(epoch, BATCHES, **kwargs)


def test_model_rejects_empty_datasets_and_missing_metrics():
    with pytest.raises(ValueError, match="no batches"):
        make_model().train(1, [])
    with pytest.raises(ValueError, match="metrics"):
        make_model(metrics={}).eval(BATCHES)
    net = nn.Dense(2, 2)
    with pytest.raises(ValueError, match="eval_network"):
        Model(net, metrics={"accuracy"})
    with pytest.raises(TypeError, match="Cell"):
        Model(lambda x: x)
    with pytest.raises(ValueError, match="optimizer"):
        Model(net, ce(), amp_level="O2")
    with pytest.raises(ValueError, match="kwargs"):
        Model(net, ce(), unknown=True)


def test_model_with_custom_eval_network_and_indexes():
    ms.set_seed(0)
    net = nn.Dense(2, 2)
    eval_net = nn.WithEvalCell(net, ce())
    model = Model(net, ce(), nn.SGD(net.trainable_params(), 0.5), eval_network=eval_net, eval_indexes=[0, 1, 2],
                  metrics={"acc": Accuracy(), "loss": Loss()})
    model.train(5, BATCHES)
    assert set(model.eval(BATCHES)) == {"acc", "loss"}


def test_model_sink_mode_warns_and_trains_step_by_step():
    model = make_model()
    with pytest.warns(UserWarning, match="sink"):
        model.train(1, BATCHES, dataset_sink_mode=True)
    assert len(model.history.step_loss) == 4


def test_model_progress_bar_can_be_forced_on(capsys):
    pytest.importorskip("tqdm")
    model = make_model()
    model.train(1, BATCHES, progress=True)
    model.eval(BATCHES, progress=True)
    err = capsys.readouterr().err
    assert "epoch 1/1" in err and "4/4" in err and "eval" in err


def test_model_is_quiet_when_not_interactive(capsys, monkeypatch):
    monkeypatch.delenv("CELLKIT_PROGRESS", raising=False)
    make_model().train(1, BATCHES)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_model_trains_and_evaluates_on_every_backend(backend):
    model = make_model()
    model.fit(3, BATCHES, BATCHES, valid_frequency=3)
    result = model.eval(NumpySlicesDataset((X, Y), shuffle=False).batch(16))
    assert len(model.history.step_loss) == 12 and model.history.metric_epochs == [3]
    assert 0.0 <= result["accuracy"] <= 1.0
    assert model.predict(X[:2]).shape == (2, 2)
