"""Data loading and processing: the steps of tutorials/source_en/beginner/dataset.md.

Custom sources through GeneratorDataset (a random-access class, a list, an iterable class, a
generator function), a MindRecord file written with FileWriter and read with MindDataset, MNIST
idx files (made by make_data.py instead of the download) read with MnistDataset, built-in and
user-defined transforms through map, batch, and the tuple and dict iterators.  The pipeline
operations the tutorial mentions in passing (shuffle, take, skip, repeat, zip, concat, project,
rename, filter, split) are shown on small NumPy data too.  The plotting step prints the labels
of the first nine images instead of drawing them.
"""
import os

import numpy as np

import cellkit as ms
from cellkit import dtype as mstype
from cellkit.dataset import transforms
from cellkit.dataset import vision
from cellkit.dataset import MindDataset, GeneratorDataset, MnistDataset, NumpySlicesDataset
from cellkit.mindrecord import FileWriter

import make_data

make_data.mnist("MNIST_Data")


# A random-access source: __getitem__ and __len__.
class RandomAccessDataset:
    def __init__(self):
        self._data = np.arange(10, dtype=np.float64).reshape(5, 2)
        self._label = np.arange(5, dtype=np.float64).reshape(5, 1)

    def __getitem__(self, index):
        return self._data[index], self._label[index]

    def __len__(self):
        return len(self._data)


loader = RandomAccessDataset()
dataset = GeneratorDataset(source=loader, column_names=["data", "label"], shuffle=False)
for data in dataset:
    print(data)
print(dataset.get_dataset_size(), dataset.get_col_names())

# A list works as a random-access source too; shuffled (the order follows the seed).
ms.set_seed(1)
loader = [np.array(0), np.array(1), np.array(2)]
dataset = GeneratorDataset(source=loader, column_names=["data"])
for data in dataset:
    print(data[0].shape, data[0].dtype)
print(sorted(int(d[0]) for d in dataset))


# An iterable source: __iter__ and __next__.
class IterableDataset:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def __next__(self):
        return next(self.data)

    def __iter__(self):
        self.data = iter(range(self.start, self.end))
        return self


loader = IterableDataset(1, 5)
dataset = GeneratorDataset(source=loader, column_names=["data"])
for d in dataset:
    print(d)


# A generator function, wrapped in a lambda so every epoch gets a fresh generator.
def my_generator(start, end):
    for i in range(start, end):
        yield i


dataset = GeneratorDataset(source=lambda: my_generator(3, 6), column_names=["data"])
for d in dataset:
    print(d)
for epoch in range(2):
    print(epoch, [int(d[0]) for d in dataset.create_tuple_iterator(num_epochs=2)])

# MindRecord: write four samples with FileWriter, read them back with MindDataset.
for path in ("test.mindrecord", "test.mindrecord.db"):
    if os.path.exists(path):
        os.remove(path)
writer = FileWriter(file_name="test.mindrecord", shard_num=1, overwrite=True)
schema_json = {"file_name": {"type": "string"},
               "label": {"type": "int32"},
               "data": {"type": "int32", "shape": [-1]}}
writer.add_schema(schema_json, "test_schema")
for i in range(4):
    writer.write_raw_data([{"file_name": f"{i}.jpg", "label": i, "data": np.array([i] * (i + 1), dtype=np.int32)}])
writer.commit()
dataset = MindDataset("test.mindrecord", shuffle=False)
for data in dataset:
    print(data)

# MNIST from its idx files.
train_dataset = MnistDataset("MNIST_Data/train", shuffle=False)
print(type(train_dataset).__name__)
print(train_dataset.get_dataset_size(), train_dataset.get_col_names())
labels = []
for idx, (image, label) in enumerate(train_dataset.create_tuple_iterator()):
    labels.append(int(label))
    if idx == 0:
        print(image.shape, image.dtype, int(image.asnumpy().max()))
    if idx == 8:
        break
print("first nine labels:", labels)

# Built-in transforms on the image and label columns.
train_dataset = MnistDataset("MNIST_Data/train")
train_dataset = train_dataset.map(operations=[vision.Rescale(1.0 / 255.0, 0),
                                              vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                                              vision.HWC2CHW()],
                                  input_columns=["image"])
train_dataset = train_dataset.map(operations=[transforms.TypeCast(mstype.int32)], input_columns=["label"])
for data in train_dataset:
    print(data[0].shape, data[0].dtype)
    print(data[1].shape, data[1].dtype)
    break

# The same steps as user-defined NumPy functions; both pipelines give the same numbers.
builtin = MnistDataset("MNIST_Data/train", shuffle=False, num_samples=4).map(
    [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()], "image")


def rescale_normalize_hwc2chw(input_col):
    trans_result = input_col / 255.0
    trans_result = (trans_result - 0.1307) / 0.3081
    trans_result = trans_result.transpose(2, 0, 1)
    return trans_result.astype(np.float32)


def typecast(input_col):
    return input_col.astype(np.int32)


custom = MnistDataset("MNIST_Data/train", shuffle=False, num_samples=4)
custom = custom.map(operations=rescale_normalize_hwc2chw, input_columns=["image"])
custom = custom.map(operations=typecast, input_columns=["label"])
for a, b in zip(builtin.create_tuple_iterator(output_numpy=True), custom.create_tuple_iterator(output_numpy=True)):
    print(b[0].shape, b[0].dtype, b[1].dtype, f"{np.abs(a[0] - b[0]).max():.6f}", f"{b[0].mean():.5f}")

# Batching.
data = ([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]], [0, 1, 0, 1, 0, 1])
dataset = NumpySlicesDataset(data=data, column_names=["data", "label"], shuffle=False)
dataset = dataset.batch(2)
for data in dataset.create_tuple_iterator():
    print(data[0].shape, data[1].shape)
print(dataset.get_dataset_size(), dataset.get_batch_size())
dataset = NumpySlicesDataset(data=np.arange(7), column_names=["x"], shuffle=False).batch(3, drop_remainder=True)
print([d["x"].tolist() for d in dataset.create_dict_iterator(output_numpy=True)])

# Iterating: tuples, then dicts.
data = ([1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 0, 1, 0, 1, 0, 1])
dataset = NumpySlicesDataset(data=data, column_names=["data", "label"], shuffle=False)
dataset = dataset.map(lambda x: x * 2, input_columns=["data"])
dataset = dataset.batch(2)
for data in dataset.create_tuple_iterator():
    print(data)
for data in dataset.create_dict_iterator():
    print(data)

# More pipeline operations on small NumPy data (a pipeline is a tree: each node feeds one consumer,
# so every example starts from a fresh source).
def numbers():
    return NumpySlicesDataset(data=np.arange(10, dtype=np.int32), column_names=["x"], shuffle=False)


def squares():
    return NumpySlicesDataset(data=np.arange(10, dtype=np.int32) ** 2, column_names=["y"], shuffle=False)


print("take/skip:", [int(d[0]) for d in numbers().skip(2).take(5)])
print("repeat:", [int(d[0]) for d in numbers().take(3).repeat(2)])
print("filter:", [int(d[0]) for d in numbers().filter(lambda x: x % 3 == 0, input_columns=["x"])])
zipped = numbers().zip(squares())
print("zip:", zipped.get_col_names(), [(int(a), int(b)) for a, b in zipped.take(4)])
print("project/rename:", numbers().zip(squares()).project(["y"]).rename(["y"], ["square"]).get_col_names())
print("concat:", [int(d[0]) for d in numbers().take(2) + numbers().skip(8)])
mapped = numbers().map(lambda x: (x, x * 10), input_columns=["x"], output_columns=["x", "tens"])
print("map to two columns:", mapped.get_col_names(), [d[1].tolist() for d in mapped.take(3)])
first, second = numbers().split([0.7, 0.3], randomize=False)
print("split:", first.get_dataset_size(), second.get_dataset_size())
ms.set_seed(2)
order = [int(d[0]) for d in numbers().shuffle(buffer_size=10)]
print("shuffle:", order)
print("shuffle keeps every sample:", sorted(order) == list(range(10)))
