"""Real training, offline: scikit-learn's bundled 8x8 digits (1797 images, no download).

An MLP trained step by step with ``TrainOneStepCell``, the same through
``Model``, and a small LeNet-style CNN (Conv2d, BatchNorm2d, MaxPool2d) each
reach at least 95% accuracy on a held-out quarter of the data.  Each takes
well under a second on two CPU cores.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from cellkit.train import Model, NumpySlicesDataset

sklearn_datasets = pytest.importorskip("sklearn.datasets")
model_selection = pytest.importorskip("sklearn.model_selection")


@pytest.fixture(scope="module")
def digits():
    data = sklearn_datasets.load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int32)
    return model_selection.train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(64, 128, activation="relu")
        self.fc2 = nn.Dense(128, 10)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def softmax_ce():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def accuracy(net, x, y):
    net.set_train(False)
    return float((net(ms.Tensor(x)).asnumpy().argmax(axis=1) == y).mean())


def test_digits_mlp_with_train_one_step_cell_reaches_95_percent(digits):
    x_train, x_test, y_train, y_test = digits
    ms.set_seed(0)
    net = MLP()
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, softmax_ce()),
                                     nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9))
    train_step.set_train()
    batches = NumpySlicesDataset((x_train, y_train), column_names=["image", "label"]).batch(32)
    first = None
    for _ in range(10):
        for image, label in batches:
            loss = float(train_step(image, label).asnumpy())
            first = loss if first is None else first
    assert loss < first / 5
    assert accuracy(net, x_test, y_test) >= 0.95
    assert int(train_step.optimizer.global_step.asnumpy()[0]) == 10 * len(batches)


def test_digits_mlp_with_model_reaches_95_percent(digits):
    x_train, x_test, y_train, y_test = digits
    ms.set_seed(0)
    net = MLP()
    model = Model(net, softmax_ce(), nn.Adam(net.trainable_params(), learning_rate=3e-3), metrics={"accuracy", "loss"})
    train = NumpySlicesDataset((x_train, y_train)).batch(64)
    test = NumpySlicesDataset((x_test, y_test), shuffle=False).batch(128)
    model.fit(16, train, test, valid_frequency=8)
    result = model.eval(test)
    assert result["accuracy"] >= 0.95
    assert model.history.metric_epochs == [8, 16]
    assert model.history.metrics["accuracy"][-1] == result["accuracy"]
    assert model.history.epoch_loss[-1] < model.history.epoch_loss[0]


needs_cnn_layers = pytest.mark.skipif(
    not all(hasattr(nn, name) for name in ("Conv2d", "MaxPool2d", "BatchNorm2d")),
    reason="the LeNet-style test needs nn.Conv2d, nn.MaxPool2d and nn.BatchNorm2d",
)


class LeNetDigits(nn.Cell):
    """LeNet's shape scaled to 8x8 inputs: two conv-BN-ReLU-pool blocks, then a classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(16 * 2 * 2, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.pool(self.relu(self.bn2(self.conv2(x))))
        return self.fc(self.flatten(x))


@needs_cnn_layers
def test_digits_lenet_with_batchnorm_and_pooling_reaches_95_percent(digits):
    x_train, x_test, y_train, y_test = digits
    x_train, x_test = x_train.reshape(-1, 1, 8, 8), x_test.reshape(-1, 1, 8, 8)
    ms.set_seed(0)
    net = LeNetDigits()
    model = Model(net, softmax_ce(), nn.Momentum(net.trainable_params(), 0.05, 0.9), metrics={"accuracy"})
    model.train(6, NumpySlicesDataset((x_train, y_train)).batch(32))
    assert model.eval(NumpySlicesDataset((x_test, y_test), shuffle=False).batch(128))["accuracy"] >= 0.95
    # BatchNorm's running statistics were learnt, and inference used them.
    assert not np.allclose(net.bn1.moving_mean.asnumpy(), 0.0)
    assert net.training is False
