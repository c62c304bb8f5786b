"""Training wrappers: WithLossCell, TrainOneStepCell, WithEvalCell, WithGradCell, ForwardValueAndGrad.

``TrainOneStepCell`` is checked against MindSpore 2.10: a 4-5-3 ReLU MLP with
fixed weights (``make_net``), softmax cross-entropy, three steps; the losses and
the final ``parameters_dict()`` (network and optimizer state) are in
``data/mindspore210_optim.json``.
"""
import json
import pathlib

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "mindspore210_optim.json").read_text())["train_one_step"]

_rng = np.random.default_rng(0)
W1 = _rng.normal(size=(5, 4)).astype(np.float32) * 0.5
B1 = _rng.normal(size=(5,)).astype(np.float32) * 0.1
W2 = _rng.normal(size=(3, 5)).astype(np.float32) * 0.5
B2 = np.zeros(3, np.float32)
X = _rng.normal(size=(6, 4)).astype(np.float32)
Y = np.array([0, 1, 2, 1, 0, 2], np.int32)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 5, weight_init=ms.Tensor(W1), bias_init=ms.Tensor(B1))
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(5, 3, weight_init=ms.Tensor(W2), bias_init=ms.Tensor(B2))

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def loss_fn():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


OPTIMIZERS = {
    "momentum": (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.01), None),
    "adam": (lambda p: nn.Adam(p, 0.01), None),
    "sgd_sens": (lambda p: nn.SGD(p, 0.1), 2.0),
}


@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_train_one_step_cell_matches_mindspore(case):
    make_opt, sens = OPTIMIZERS[case]
    net = MLP()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), make_opt(net.trainable_params()), sens=sens)
    train.set_train()
    losses = [float(train(ms.Tensor(X), ms.Tensor(Y)).asnumpy()) for _ in range(3)]
    expected = DATA[case]
    np.testing.assert_allclose(losses, expected["losses"], rtol=2e-6)
    state = train.parameters_dict()
    assert list(state) == list(expected["params"])
    for name, value in expected["params"].items():
        np.testing.assert_allclose(state[name].asnumpy(), np.asarray(value), rtol=2e-5, atol=1e-7, err_msg=name)
    assert [p.name for p in train.trainable_params()] == expected["trainable"]


def test_train_one_step_cell_keeps_network_names_and_returns_a_scalar_loss():
    net = MLP()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), nn.SGD(net.trainable_params(), 0.1))
    assert [p.name for p in net.get_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    loss = train(ms.Tensor(X), ms.Tensor(Y))
    assert isinstance(loss, ms.Tensor) and loss.shape == () and loss._node is None
    assert train.optimizer.global_step.asnumpy().tolist() == [1]
    assert repr(train).splitlines()[-3:] == ["  (optimizer): SGD()", "  (grad_reducer): Identity()", ")"]


def test_train_one_step_cell_return_grad_names_every_gradient():
    net = MLP()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), nn.SGD(net.trainable_params(), 0.0),
                                return_grad=True)
    loss, grads = train(ms.Tensor(X), ms.Tensor(Y))
    assert list(grads) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    reference = nn.WithGradCell(MLP(), loss_fn())(ms.Tensor(X), ms.Tensor(Y))
    for g, r in zip(grads.values(), reference):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=1e-6)


def test_train_one_step_cell_sens_scales_gradients_not_the_loss():
    plain = MLP()
    scaled = MLP()
    a = nn.TrainOneStepCell(nn.WithLossCell(plain, loss_fn()), nn.SGD(plain.trainable_params(), 0.2))
    b = nn.TrainOneStepCell(nn.WithLossCell(scaled, loss_fn()), nn.SGD(scaled.trainable_params(), 0.1), sens=2.0)
    assert float(a(ms.Tensor(X), ms.Tensor(Y)).asnumpy()) == float(b(ms.Tensor(X), ms.Tensor(Y)).asnumpy())
    np.testing.assert_allclose(plain.fc1.weight.asnumpy(), scaled.fc1.weight.asnumpy(), rtol=1e-6)


def test_train_one_step_cell_runs_the_network_once_per_step():
    calls = []

    class Counting(MLP):
        def construct(self, x):
            calls.append(1)
            return super().construct(x)

    net = Counting()
    nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), nn.SGD(net.trainable_params(), 0.1))(
        ms.Tensor(X), ms.Tensor(Y))
    assert len(calls) == 1


def test_train_one_step_cell_updates_only_the_optimizer_parameters():
    net = MLP()
    frozen = net.fc1.weight.asnumpy().copy()
    opt = nn.SGD([net.fc2.weight, net.fc2.bias], 0.5)
    nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), opt)(ms.Tensor(X), ms.Tensor(Y))
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), frozen)
    assert not np.allclose(net.fc2.weight.asnumpy(), W2)


@pytest.mark.parametrize("sens, error", [(0, ValueError), ("1", TypeError)])
def test_train_one_step_cell_rejects_bad_sens(sens, error):
    net = MLP()
    with pytest.raises(error):
        nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), nn.SGD(net.trainable_params()), sens=sens)


def test_with_loss_cell_keeps_names_and_exposes_the_backbone():
    net = MLP()
    loss_net = nn.WithLossCell(net, loss_fn())
    assert loss_net.backbone_network is net
    assert list(loss_net.parameters_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    expected = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(net(ms.Tensor(X)), ms.Tensor(Y))
    assert float(loss_net(ms.Tensor(X), ms.Tensor(Y)).asnumpy()) == pytest.approx(float(expected.asnumpy()))


def test_with_eval_cell_returns_loss_outputs_and_label():
    net = MLP()
    loss, out, label = nn.WithEvalCell(net, loss_fn())(ms.Tensor(X), ms.Tensor(Y))
    assert loss.shape == () and out.shape == (6, 3) and label.asnumpy().tolist() == Y.tolist()
    half = nn.WithEvalCell(net, loss_fn(), add_cast_fp32=True)
    assert half(ms.Tensor(X), ms.Tensor(Y))[1].dtype == ms.float32
    with pytest.raises(TypeError, match="add_cast_fp32"):
        nn.WithEvalCell(net, loss_fn(), add_cast_fp32=1)


def test_forward_value_and_grad_returns_value_and_weight_gradients():
    net = nn.WithLossCell(MLP(), loss_fn())
    weights = ms.ParameterTuple(net.trainable_params())
    value, grads = nn.ForwardValueAndGrad(net, weights=weights, get_by_list=True)(ms.Tensor(X), ms.Tensor(Y))
    reference = nn.WithGradCell(net)(ms.Tensor(X), ms.Tensor(Y))
    assert value.shape == ()
    for g, r in zip(grads, reference):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="weights"):
        nn.ForwardValueAndGrad(net, get_by_list=True)


@pytest.mark.parametrize("make_opt", [
    lambda p: nn.SGD(p, 0.1, momentum=0.9),
    lambda p: nn.Adam(p, 0.01, use_amsgrad=True),
    lambda p: nn.Momentum(p, [0.1, 0.05, 0.02], 0.9),
], ids=["sgd", "adam", "momentum-dynamic-lr"])
def test_train_one_step_cell_checkpoint_resumes_training_exactly(tmp_path, make_opt):
    def make():
        net = MLP()
        return nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), make_opt(net.trainable_params()))

    x, y = ms.Tensor(X), ms.Tensor(Y)
    straight = make()
    for _ in range(2):
        straight(x, y)
    path = str(tmp_path / "step2.ckpt")
    ms.save_checkpoint(straight, path)
    straight(x, y)

    resumed = make()
    ms.load_param_into_net(resumed, ms.load_checkpoint(path))
    assert int(resumed.optimizer.global_step.asnumpy()[0]) == 2
    resumed(x, y)
    for name, p in straight.parameters_dict().items():
        np.testing.assert_allclose(resumed.parameters_dict()[name].asnumpy(), p.asnumpy(), rtol=1e-6, err_msg=name)
