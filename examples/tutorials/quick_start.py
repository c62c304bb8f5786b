"""Quick start: the beginner tutorial's steps (tutorials/source_en/beginner/quick_start.md).

Read MNIST (small idx files made by make_data.py instead of the download), build the pipeline
(Rescale, Normalize, HWC2CHW, TypeCast, batch), define a network, train it with value_and_grad and
SGD, test it, save a checkpoint and load it into a fresh network.  The dataset is read in file
order and the weights start from fixed NumPy values, so MindSpore and cellkit print the same losses.
"""
import numpy as np

import cellkit as ms
from cellkit import nn
from cellkit.dataset import MnistDataset, transforms, vision

import make_data

make_data.mnist("MNIST_Data")
train_dataset = MnistDataset("MNIST_Data/train", shuffle=False)
test_dataset = MnistDataset("MNIST_Data/test", shuffle=False)
print(train_dataset.get_col_names())


def datapipe(dataset, batch_size):
    image_transforms = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW(),
    ]
    label_transform = transforms.TypeCast(ms.int32)
    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(label_transform, "label")
    return dataset.batch(batch_size)


train_dataset = datapipe(train_dataset, 64)
test_dataset = datapipe(test_dataset, 64)

for image, label in test_dataset.create_tuple_iterator():
    print(f"Shape of image [N, C, H, W]: {image.shape} {image.dtype}")
    print(f"Shape of label: {label.shape} {label.dtype}")
    break
for data in test_dataset.create_dict_iterator():
    print(f"Shape of image [N, C, H, W]: {data['image'].shape} {data['image'].dtype}")
    print(f"Shape of label: {data['label'].shape} {data['label'].dtype}")
    break


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 64), nn.ReLU(), nn.Dense(64, 64), nn.ReLU(), nn.Dense(64, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


def fixed_weights(net, seed=0):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        bound = 1 / np.sqrt(param.shape[-1]) if len(param.shape) > 1 else 0.05
        param.set_data(ms.Tensor(rng.uniform(-bound, bound, param.shape).astype(np.float32)))
    return net


model = fixed_weights(Network())
print(model)

loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-2)


def forward_fn(data, label):
    logits = model(data)
    return loss_fn(logits, label), logits


grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss


def train(model, dataset):
    size = dataset.get_dataset_size()
    model.set_train()
    for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
        loss = train_step(data, label)
        if batch % 4 == 0:
            print(f"loss: {loss.asnumpy():>7f}  [{batch:>3d}/{size:>3d}]")


def test(model, dataset, loss_fn):
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


for epoch in range(3):
    print(f"Epoch {epoch + 1}\n-------------------------------")
    train(model, train_dataset)
    test(model, test_dataset, loss_fn)
print("Done!")

ms.save_checkpoint(model, "model.ckpt")
print("Saved Model to model.ckpt")
model = Network()
param_dict = ms.load_checkpoint("model.ckpt")
param_not_load, _ = ms.load_param_into_net(model, param_dict)
print(param_not_load)

model.set_train(False)
for data, label in test_dataset:
    predicted = model(data).argmax(1)
    print(f'Predicted: "{predicted[:10]}", Actual: "{label[:10]}"')
    break
