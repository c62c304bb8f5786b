"""Model training: the steps of tutorials/source_en/beginner/train.md.

Build the MNIST pipeline (small idx files from make_data.py instead of the download), define the
network, set the hyper-parameters, the loss and the optimizer, write the training loop (a forward
function, value_and_grad, one step) and the test loop, and run them for three epochs.  The
hidden layers are 128 wide instead of 512 and the data is read in file order from fixed NumPy
starting weights, so that MindSpore and cellkit print the same losses and accuracies.
"""
import numpy as np

import cellkit
from cellkit import nn
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
    label_transform = transforms.TypeCast(cellkit.int32)
    dataset = MnistDataset(path, shuffle=False)
    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(label_transform, "label")
    return dataset.batch(batch_size)


train_dataset = datapipe("MNIST_Data/train", batch_size=64)
test_dataset = datapipe("MNIST_Data/test", batch_size=64)
print(train_dataset.get_dataset_size(), test_dataset.get_dataset_size())


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


def fixed_weights(net, seed=1):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        bound = 1 / np.sqrt(param.shape[-1]) if len(param.shape) > 1 else 0.05
        param.set_data(cellkit.Tensor(rng.uniform(-bound, bound, param.shape).astype(np.float32)))
    return net


model = fixed_weights(Network())
print([(p.name, p.shape) for p in model.trainable_params()])

# Hyper-parameters.
epochs = 3
batch_size = 64
learning_rate = 1e-2

loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), learning_rate=learning_rate)
print(optimizer.learning_rate.asnumpy())


def forward_fn(data, label):
    logits = model(data)
    loss = loss_fn(logits, label)
    return loss, logits


grad_fn = cellkit.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss


def train_loop(model, dataset):
    size = dataset.get_dataset_size()
    model.set_train()
    for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
        loss = train_step(data, label)
        if batch % 3 == 0:
            loss, current = loss.asnumpy(), batch
            print(f"loss: {loss:>7f}  [{current:>3d}/{size:>3d}]")


def test_loop(model, dataset, loss_fn):
    num_batches = dataset.get_dataset_size()
    model.set_train(False)
    total, test_loss, correct = 0, 0, 0
    for data, label in dataset.create_tuple_iterator():
        pred = model(data)
        total += len(data)
        test_loss += loss_fn(pred, label).asnumpy()
        correct += (pred.argmax(1) == label).asnumpy().sum()
    test_loss /= num_batches
    correct /= total
    print(f"Test: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(epochs):
    print(f"Epoch {t + 1}\n-------------------------------")
    train_loop(model, train_dataset)
    test_loop(model, test_dataset, loss_fn)
print("Done!")
