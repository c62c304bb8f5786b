"""Automatic mixed precision: the steps of tutorials/source_en/beginner/mixed_precision.md.

The MNIST pipeline (small idx files from make_data.py instead of the download, read in file
order), the network cast to float16 three ways (``auto_mixed_precision(..., 'O2')``,
``Dense(...).to_float(float16)``, ``astype`` inside ``construct``), a training step with a
``DynamicLossScaler`` and ``all_finite`` under ``ms.jit``, ``build_train_network`` with a
``FixedLossScaleManager``, and ``Model(..., amp_level="O2", loss_scale_manager=...)`` trained with
a ``LossMonitor``.  The hidden layers are 128 wide instead of 512, the epochs fewer, and the
weights start from fixed NumPy values so that the printed losses are comparable.

Adapted: the tutorial's manual network casts the input to float16 but keeps float32 Dense
weights, which MindSpore 2.10 refuses on CPU ("For 'MatMul', the type of 'x2' should be same as
'x1'"); here its Dense layers are built with ``dtype=ms.float16``.  On CPU MindSpore 2.10 accepts only
``FixedLossScaleManager(drop_overflow_update=False)`` in ``build_train_network`` and ``Model`` (the
default ``True`` raises ValueError there), so the script passes it, and gives the optimizer the
same ``loss_scale`` (128) so that the scaled gradients are divided back as MindSpore's documentation
of ``FixedLossScaleManager`` asks.
"""
import numpy as np

import cellkit as ms
from cellkit import nn
from cellkit import value_and_grad
from cellkit.dataset import vision, transforms
from cellkit.dataset import MnistDataset

import make_data

make_data.mnist("MNIST_Data")


def datapipe(path, batch_size):
    image_transforms = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW(),
    ]
    label_transform = transforms.TypeCast(ms.int32)
    dataset = MnistDataset(path, shuffle=False)
    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(label_transform, "label")
    return dataset.batch(batch_size)


train_dataset = datapipe("MNIST_Data/train", 64)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 128),
            nn.ReLU(),
            nn.Dense(128, 128),
            nn.ReLU(),
            nn.Dense(128, 10),
        )

    def construct(self, x):
        x = self.flatten(x)
        return self.dense_relu_sequential(x)


def fixed_weights(net, seed=3):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        bound = 1 / np.sqrt(param.shape[-1]) if len(param.shape) > 1 else 0.05
        param.set_data(ms.Tensor(rng.uniform(-bound, bound, param.shape).astype(np.float32), param.dtype))
    return net


from cellkit.amp import auto_mixed_precision  # noqa: E402

model = fixed_weights(Network())
model = auto_mixed_precision(model, "O2")
sample = next(train_dataset.create_tuple_iterator())[0]
print("O2 output:", model(sample).dtype, "weights:", model.trainable_params()[0].dtype)


class NetworkFP16(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 128).to_float(ms.float16),
            nn.ReLU(),
            nn.Dense(128, 128).to_float(ms.float16),
            nn.ReLU(),
            nn.Dense(128, 10).to_float(ms.float16),
        )

    def construct(self, x):
        x = self.flatten(x)
        return self.dense_relu_sequential(x)


class NetworkFP16Manual(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 128, dtype=ms.float16),
            nn.ReLU(),
            nn.Dense(128, 128, dtype=ms.float16),
            nn.ReLU(),
            nn.Dense(128, 10, dtype=ms.float16),
        )

    def construct(self, x):
        x = self.flatten(x)
        x = x.astype(ms.float16)
        logits = self.dense_relu_sequential(x)
        return logits.astype(ms.float32)


reference = fixed_weights(Network())(sample).asnumpy()
for net in (fixed_weights(NetworkFP16()), fixed_weights(NetworkFP16Manual())):
    out = net(sample)
    print(type(net).__name__, out.dtype, "close to float32:", np.allclose(out.asnumpy(), reference, atol=2e-2))

from cellkit.amp import DynamicLossScaler  # noqa: E402

loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-2)
loss_scaler = DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=50)


def forward_fn(data, label):
    logits = model(data)
    loss = loss_fn(logits, label)
    loss = loss_scaler.scale(loss)
    return loss, logits


grad_fn = value_and_grad(forward_fn, None, model.trainable_params(), has_aux=True)

from cellkit.amp import all_finite  # noqa: E402


@ms.jit
def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    loss = loss_scaler.unscale(loss)
    is_finite = all_finite(grads)
    if is_finite:
        grads = loss_scaler.unscale(grads)
        optimizer(grads)
    loss_scaler.adjust(is_finite)
    return loss


size = train_dataset.get_dataset_size()
model.set_train()
for epoch in range(2):
    for batch, (data, label) in enumerate(train_dataset.create_tuple_iterator()):
        loss = train_step(data, label)
        if batch % 3 == 0:
            loss, current = loss.asnumpy(), batch
            print(f"loss: {loss:>7f}  [{current:>3d}/{size:>3d}]")
print("loss scale:", loss_scaler.scale_value.asnumpy())

# The loss scaler alone: an overflow halves the scale, 50 finite steps double it.
scaler = DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=2)
print(scaler.scale(ms.Tensor(np.float32(1.5))), scaler.unscale(ms.Tensor(np.float32(2048.0))))
for finite in (False, True, True, True):
    scaler.adjust(ms.Tensor(finite))
    print("after", finite, scaler.scale_value.asnumpy())
print(all_finite((ms.Tensor(np.array([1.0, np.inf], np.float32)),)), all_finite((ms.Tensor(np.ones(2, np.float32)),)))

from cellkit.amp import build_train_network, FixedLossScaleManager  # noqa: E402

model = fixed_weights(Network())
# The loss is scaled by 128 and, with drop_overflow_update=False, the optimizer divides it out.
optimizer = nn.SGD(model.trainable_params(), 1e-2, loss_scale=128.0)
loss_scale_manager = FixedLossScaleManager(128.0, drop_overflow_update=False)
train_network = build_train_network(model, optimizer, loss_fn, level="O2", loss_scale_manager=loss_scale_manager)
train_network.set_train()
for batch, (data, label) in enumerate(train_dataset.create_tuple_iterator()):
    loss = train_network(data, label)
    if batch % 3 == 0:
        print(f"build_train_network loss: {loss.asnumpy():>7f}  [{batch:>3d}/{size:>3d}]")

from cellkit.train import Model, LossMonitor  # noqa: E402

model = fixed_weights(Network())
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-2, loss_scale=128.0)
loss_scale_manager = FixedLossScaleManager(128.0, drop_overflow_update=False)
trainer = Model(model, loss_fn=loss_fn, optimizer=optimizer, metrics={"accuracy"}, amp_level="O2",
                loss_scale_manager=loss_scale_manager)
loss_callback = LossMonitor(5)
trainer.train(2, train_dataset, callbacks=[loss_callback])
