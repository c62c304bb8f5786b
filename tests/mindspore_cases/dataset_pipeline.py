"""``mindspore.dataset`` pipelines as MindSpore 2.10 runs them: sources, readers, operations, samplers.

Each case builds a small pipeline through ``ms.dataset`` (files in the real formats are written
into a temporary folder by the case itself), iterates it with ``output_numpy=True`` and returns
the rows as Tensors / Python values.  Unshuffled pipelines are compared value for value; where
the order depends on MindSpore's own random generator the case returns what does not (sorted
rows, sizes, shapes).
"""
import importlib

from . import CaseList

CASES = CaseList()
case = CASES.case


def _ds(ms):
    return importlib.import_module(ms.__name__ + ".dataset")


def _tr(ms):
    return importlib.import_module(ms.__name__ + ".dataset.transforms")


def _rows(ms, data, columns=None):
    """Every row as a tuple of Tensors (strings as str)."""
    out = []
    for row in data.create_tuple_iterator(columns=columns, output_numpy=True):
        out.append(tuple(str(v) if v.dtype.kind in "US" else ms.Tensor(v) for v in row))
    return out


def _flat(np, data):
    """Every value of the first column, flattened, as a sorted list of numbers."""
    values = []
    for row in data.create_tuple_iterator(output_numpy=True):
        values += np.asarray(row[0]).reshape(-1).tolist()
    return sorted(values)


def _slices(ms, np, n=10, shuffle=False):
    return _ds(ms).NumpySlicesDataset({"x": np.arange(n, dtype=np.int32),
                                        "y": np.arange(n, dtype=np.float32) * 0.5}, shuffle=shuffle)


# ---------------------------------------------------------------------------------- sources
@case
def numpy_slices_dict(ms, ops, nn, np):
    data = _slices(ms, np, 4)
    return (data.get_col_names(), data.get_dataset_size(), _rows(ms, data))


@case
def numpy_slices_list_and_names(ms, ops, nn, np):
    data = _ds(ms).NumpySlicesDataset([[1, 2], [3, 4], [5, 6]], column_names=["a"], shuffle=False)
    return (data.get_col_names(), _rows(ms, data), data.output_shapes(), [str(t) for t in data.output_types()])


@case
def numpy_slices_tuple(ms, ops, nn, np):
    data = _ds(ms).NumpySlicesDataset((np.arange(3), np.ones((3, 2), np.float32)), shuffle=False)
    return (data.get_col_names(), _rows(ms, data))


@case
def generator_iterable(ms, ops, nn, np):
    def gen():
        for i in range(5):
            yield np.array([i, i * 2], np.int64), np.array(i * 0.5, np.float32)
    data = _ds(ms).GeneratorDataset(gen, ["a", "b"], shuffle=False)
    return (data.get_col_names(), _rows(ms, data))


@case
def generator_random_access(ms, ops, nn, np):
    class Source:
        def __getitem__(self, i):
            return np.full((2,), i, np.float32), np.array(i % 3, np.int32)

        def __len__(self):
            return 6
    data = _ds(ms).GeneratorDataset(Source(), ["data", "label"], shuffle=False)
    return (data.get_dataset_size(), _rows(ms, data))


@case
def generator_random_access_num_samples(ms, ops, nn, np):
    class Source:
        def __getitem__(self, i):
            return (np.array(i, np.int32),)

        def __len__(self):
            return 10
    data = _ds(ms).GeneratorDataset(Source(), ["x"], shuffle=False, num_samples=4)
    return (data.get_dataset_size(), _rows(ms, data))


@case
def generator_shuffled_keeps_rows(ms, ops, nn, np):
    class Source:
        def __getitem__(self, i):
            return (np.array(i, np.int32),)

        def __len__(self):
            return 10
    data = _ds(ms).GeneratorDataset(Source(), ["x"], shuffle=True)
    return _flat(np, data)


@case
def generator_sampler_list(ms, ops, nn, np):
    class Source:
        def __getitem__(self, i):
            return (np.array(i * 10, np.int32),)

        def __len__(self):
            return 10
    data = _ds(ms).GeneratorDataset(Source(), ["x"], sampler=[7, 2, 5])
    return _rows(ms, data)


@case
def generator_python_scalars(ms, ops, nn, np):
    data = _ds(ms).GeneratorDataset(lambda: ((i, float(i) / 4, "s%d" % i) for i in range(3)), ["i", "f", "s"],
                                    shuffle=False)
    return (_rows(ms, data), [str(t) for t in data.output_types()])


# ---------------------------------------------------------------------------------- operations
@case
def batch_drop_remainder(ms, ops, nn, np):
    return (_rows(ms, _slices(ms, np, 7).batch(3)), _rows(ms, _slices(ms, np, 7).batch(3, drop_remainder=True)),
            _slices(ms, np, 7).batch(3).get_dataset_size(), _slices(ms, np, 7).batch(3, True).get_batch_size())


@case
def batch_per_batch_map(ms, ops, nn, np):
    def double(x, y, info):
        return [(v * 2).astype(np.int32) for v in x], [v + np.float32(info.get_batch_num()) for v in y]
    data = _slices(ms, np, 5).batch(2, per_batch_map=double, input_columns=["x", "y"])
    return _rows(ms, data)


@case
def batch_pad_info(ms, ops, nn, np):
    rows = [np.arange(n, dtype=np.int32) for n in (1, 3, 2)]
    data = _ds(ms).GeneratorDataset(lambda: ((r,) for r in rows), ["x"], shuffle=False)
    return (_rows(ms, data.batch(3, pad_info={"x": ([4], -1)})),
            _rows(ms, _ds(ms).GeneratorDataset(lambda: ((r,) for r in rows), ["x"], shuffle=False)
                  .batch(2, pad_info={"x": (None, 0)})))


@case
def padded_batch(ms, ops, nn, np):
    rows = [np.arange(n, dtype=np.float32) for n in (2, 1, 3)]
    data = _ds(ms).GeneratorDataset(lambda: ((r,) for r in rows), ["x"], shuffle=False)
    return _rows(ms, data.padded_batch(2, pad_info={"x": ([3], 9.0)}))


@case
def map_with_output_columns(ms, ops, nn, np):
    data = _slices(ms, np, 3).map(lambda x: (x, x * x), input_columns="x", output_columns=["x", "sq"])
    return (data.get_col_names(), _rows(ms, data))


@case
def map_chain_and_type_cast(ms, ops, nn, np):
    tr = _tr(ms)
    data = _slices(ms, np, 4).map([lambda x: x + 1, tr.TypeCast(ms.float32)], "x")
    return _rows(ms, data)


@case
def repeat_take_skip(ms, ops, nn, np):
    base = _slices(ms, np, 4)
    return (_rows(ms, base.repeat(2), ["x"]), _rows(ms, _slices(ms, np, 4).take(3), ["x"]),
            _rows(ms, _slices(ms, np, 4).skip(3), ["x"]), _slices(ms, np, 4).repeat(3).get_dataset_size(),
            _slices(ms, np, 4).skip(1).take(2).get_dataset_size())


@case
def project_rename(ms, ops, nn, np):
    data = _slices(ms, np, 3).project(["y", "x"]).rename(["y", "x"], ["b", "a"])
    return (data.get_col_names(), _rows(ms, data))


@case
def zip_and_concat(ms, ops, nn, np):
    ds = _ds(ms)
    left = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False)
    right = ds.NumpySlicesDataset({"b": np.arange(4) * 10}, shuffle=False)
    zipped = ds.zip((left, right))
    joined = ds.NumpySlicesDataset({"a": np.arange(2)}, shuffle=False) + \
        ds.NumpySlicesDataset({"a": np.arange(3) + 5}, shuffle=False)
    return (zipped.get_col_names(), _rows(ms, zipped), _rows(ms, joined), joined.get_dataset_size())


@case
def filter_rows(ms, ops, nn, np):
    data = _slices(ms, np, 8).filter(lambda x: x % 3 == 0, input_columns=["x"])
    return _rows(ms, data, ["x"])


@case
def split_sizes_in_order(ms, ops, nn, np):
    a, b = _slices(ms, np, 10).split([0.7, 0.3], randomize=False)
    c, d = _slices(ms, np, 10).split([4, 6], randomize=False)
    return (_rows(ms, a, ["x"]), _rows(ms, b, ["x"]), c.get_dataset_size(), d.get_dataset_size())


@case(mindspore_wrong=True, expected=lambda np: (5, 5, list(range(10))),
      note="Without a dataset seed, MindSpore 2.10's split(randomize=True) gives parts that overlap and miss rows "
           "(each part draws its rows from its own shuffle of the whole dataset); the purpose of a split asks "
           "for disjoint parts that together hold every row")
def split_randomized_partitions(ms, ops, nn, np):
    a, b = _slices(ms, np, 10).split([0.5, 0.5])
    return (a.get_dataset_size(), b.get_dataset_size(), sorted(_flat(np, a) + _flat(np, b)))


@case
def shuffle_buffer_keeps_rows(ms, ops, nn, np):
    return _flat(np, _slices(ms, np, 20).shuffle(4))


@case
def dict_iterator_and_epochs(ms, ops, nn, np):
    data = _slices(ms, np, 3)
    iterator = data.create_dict_iterator(num_epochs=2, output_numpy=True)
    epochs = []
    for _ in range(2):
        epochs.append([(sorted(row), int(row["x"])) for row in iterator])
    return epochs


@case
def tensor_iterator_gives_tensors(ms, ops, nn, np):
    row = next(_slices(ms, np, 3).create_tuple_iterator())
    return (type(row).__name__, [str(v.dtype) for v in row], [isinstance(v, ms.Tensor) for v in row])


@case
def apply_and_flat_map(ms, ops, nn, np):
    ds = _ds(ms)
    applied = _slices(ms, np, 5).apply(lambda d: d.take(2))
    flat = ds.NumpySlicesDataset({"x": np.array([1, 3], np.int32)}, shuffle=False).flat_map(
        lambda x: ds.NumpySlicesDataset({"y": np.arange(int(x), dtype=np.int32)}, shuffle=False))
    return (_rows(ms, applied, ["x"]), flat.get_col_names(), _rows(ms, flat))


@case
def plain_iteration(ms, ops, nn, np):
    return [[ms.Tensor(v) for v in row] for row in _slices(ms, np, 2)]


# ---------------------------------------------------------------------------------- samplers
@case
def sequential_sampler(ms, ops, nn, np):
    ds = _ds(ms)
    data = ds.NumpySlicesDataset({"x": np.arange(8)}, sampler=ds.SequentialSampler(2, 4))
    return _rows(ms, data)


@case
def subset_sampler(ms, ops, nn, np):
    ds = _ds(ms)
    data = ds.NumpySlicesDataset({"x": np.arange(8)}, sampler=ds.SubsetSampler([5, 1, 6]))
    return _rows(ms, data)


@case
def subset_random_sampler_support(ms, ops, nn, np):
    ds = _ds(ms)
    return _flat(np, ds.NumpySlicesDataset({"x": np.arange(8)}, sampler=ds.SubsetRandomSampler([5, 1, 6])))


@case
def random_sampler_sizes(ms, ops, nn, np):
    ds = _ds(ms)
    a = ds.NumpySlicesDataset({"x": np.arange(8)}, sampler=ds.RandomSampler())
    b = ds.NumpySlicesDataset({"x": np.arange(8)}, sampler=ds.RandomSampler(replacement=True, num_samples=5))
    return (_flat(np, a), b.get_dataset_size(), len(_flat(np, b)))


@case
def weighted_random_sampler_support(ms, ops, nn, np):
    ds = _ds(ms)
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, sampler=ds.WeightedRandomSampler([0, 1, 0, 1], 6))
    values = _flat(np, data)
    return (len(values), set(values) <= {1, 3})   # only rows of non-zero weight


@case
def distributed_sampler_in_order(ms, ops, nn, np):
    ds = _ds(ms)
    out = []
    for shard in range(3):
        data = ds.NumpySlicesDataset({"x": np.arange(7)}, sampler=ds.DistributedSampler(3, shard, shuffle=False))
        out.append(_rows(ms, data))
    return out


@case
def num_shards_shard_id(ms, ops, nn, np):
    ds = _ds(ms)
    return [_rows(ms, ds.NumpySlicesDataset({"x": np.arange(5)}, num_shards=2, shard_id=k, shuffle=False))
            for k in range(2)]


# ---------------------------------------------------------------------------------- readers
def _mnist_dir(np, n=6):
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    images = (np.arange(n * 784) % 251).astype(np.uint8).reshape(n, 28, 28)
    with open(os.path.join(folder, "train-images-idx3-ubyte"), "wb") as f:
        f.write(np.array([2051, n, 28, 28], ">u4").tobytes() + images.tobytes())
    with open(os.path.join(folder, "train-labels-idx1-ubyte"), "wb") as f:
        f.write(np.array([2049, n], ">u4").tobytes() + (np.arange(n) % 10).astype(np.uint8).tobytes())
    with open(os.path.join(folder, "t10k-images-idx3-ubyte"), "wb") as f:
        f.write(np.array([2051, 2, 28, 28], ">u4").tobytes() + images[:2][::-1].tobytes())
    with open(os.path.join(folder, "t10k-labels-idx1-ubyte"), "wb") as f:
        f.write(np.array([2049, 2], ">u4").tobytes() + bytes([9, 8]))
    return folder


@case
def mnist_train(ms, ops, nn, np):
    data = _ds(ms).MnistDataset(_mnist_dir(np), usage="train", shuffle=False)
    rows = list(data.create_tuple_iterator(output_numpy=True))
    return (data.get_col_names(), data.get_dataset_size(), [ms.Tensor(r[0][::7, ::7]) for r in rows],
            [ms.Tensor(r[1]) for r in rows], data.output_shapes(), [str(t) for t in data.output_types()])


@case
def mnist_all_and_test(ms, ops, nn, np):
    folder = _mnist_dir(np)
    ds = _ds(ms)
    return ([int(r[1]) for r in ds.MnistDataset(folder, usage="all", shuffle=False).create_tuple_iterator(
        output_numpy=True)], ds.MnistDataset(folder, usage="test").get_dataset_size())


@case
def mnist_num_samples_shards(ms, ops, nn, np):
    folder = _mnist_dir(np)
    ds = _ds(ms)
    return ([int(r[1]) for r in ds.MnistDataset(folder, "train", num_samples=3, shuffle=False)
             .create_tuple_iterator(output_numpy=True)],
            [int(r[1]) for r in ds.MnistDataset(folder, "train", num_shards=2, shard_id=1, shuffle=False)
             .create_tuple_iterator(output_numpy=True)])


@case
def mnist_tutorial_pipeline(ms, ops, nn, np):
    ds = _ds(ms)
    vision = importlib.import_module(ms.__name__ + ".dataset.vision")
    data = ds.MnistDataset(_mnist_dir(np), usage="train", shuffle=False)
    data = data.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                     vision.HWC2CHW()], "image")
    data = data.map(_tr(ms).TypeCast(ms.int32), "label").batch(4)
    return [(ms.Tensor(img[:, :, ::9, ::9]), ms.Tensor(label)) for img, label in
            data.create_tuple_iterator(output_numpy=True)]


@case
def mnist_damaged_file(ms, ops, nn, np):
    import os
    folder = _mnist_dir(np)
    path = os.path.join(folder, "train-images-idx3-ubyte")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:-100])
    return _rows(ms, _ds(ms).MnistDataset(folder, usage="train", shuffle=False))


@case
def mnist_bad_magic(ms, ops, nn, np):
    import os
    folder = _mnist_dir(np)
    path = os.path.join(folder, "train-labels-idx1-ubyte")
    data = bytearray(open(path, "rb").read())
    data[3] = 0
    with open(path, "wb") as f:
        f.write(bytes(data))
    return _rows(ms, _ds(ms).MnistDataset(folder, usage="train", shuffle=False))


@case
def mnist_missing_dir(ms, ops, nn, np):
    return _ds(ms).MnistDataset("/nonexistent/cellkit/mnist")


def _cifar_dir(np):
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    rng = np.random.default_rng(3)
    for name in ("data_batch_1.bin", "test_batch.bin"):
        records = np.empty((10000, 3073), np.uint8)
        records[:, 0] = np.arange(10000) % 10
        records[:, 1:] = rng.integers(0, 256, (10000, 3072))
        records.tofile(os.path.join(folder, name))
    return folder


@case
def cifar10_reads(ms, ops, nn, np):
    ds = _ds(ms)
    folder = _cifar_dir(np)
    data = ds.Cifar10Dataset(folder, usage="train", num_samples=3, shuffle=False)
    rows = list(data.create_tuple_iterator(output_numpy=True))
    return (data.get_col_names(), data.get_dataset_size(), [ms.Tensor(r[0][::8, ::8]) for r in rows],
            [ms.Tensor(r[1]) for r in rows], ds.Cifar10Dataset(folder, usage="test").get_dataset_size(),
            ds.Cifar10Dataset(folder).get_dataset_size())


@case
def cifar10_tutorial_pipeline_shapes(ms, ops, nn, np):
    ds = _ds(ms)
    vision = importlib.import_module(ms.__name__ + ".dataset.vision")
    data = ds.Cifar10Dataset(_cifar_dir(np), usage="test", num_samples=130, shuffle=True)
    data = data.map([vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(),
                     vision.Rescale(1.0 / 255.0, 0.0), vision.HWC2CHW()], "image")
    data = data.map(_tr(ms).TypeCast(ms.int32), "label").batch(64)
    return [(list(img.shape), str(img.dtype), list(label.shape), str(label.dtype))
            for img, label in data.create_tuple_iterator(output_numpy=True)]


@case
def cifar10_damaged(ms, ops, nn, np):
    import os
    folder = _cifar_dir(np)
    path = os.path.join(folder, "data_batch_1.bin")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:-5])
    return _rows(ms, _ds(ms).Cifar10Dataset(folder, usage="train", shuffle=False))


def _image_folder(np):
    import io
    import os
    import tempfile
    from PIL import Image
    folder = tempfile.mkdtemp()
    for k, cls in enumerate(("cat", "dog")):
        os.makedirs(os.path.join(folder, cls))
        for i in range(2):
            buf = io.BytesIO()
            Image.fromarray(np.full((4, 5, 3), 40 * k + i, np.uint8)).save(buf, format="PNG")
            with open(os.path.join(folder, cls, f"{i}.png"), "wb") as f:
                f.write(buf.getvalue())
    return folder


@case
def image_folder_decode(ms, ops, nn, np):
    ds = _ds(ms)
    data = ds.ImageFolderDataset(_image_folder(np), decode=True, shuffle=False)
    return (data.get_col_names(), data.get_class_indexing(), _rows(ms, data))


@case
def image_folder_class_indexing(ms, ops, nn, np):
    ds = _ds(ms)
    data = ds.ImageFolderDataset(_image_folder(np), class_indexing={"dog": 0, "cat": 1}, shuffle=False)
    return (data.get_class_indexing(), [int(r[1]) for r in data.create_tuple_iterator(output_numpy=True)],
            [str(r[0].dtype) for r in data.create_tuple_iterator(output_numpy=True)])


# ---------------------------------------------------------------------------------- errors
@case
def batch_bad_size(ms, ops, nn, np):
    return _slices(ms, np, 3).batch(0)


@case
def map_unknown_column(ms, ops, nn, np):
    return _rows(ms, _slices(ms, np, 3).map(lambda v: v, "nope"))


@case
def project_unknown_column(ms, ops, nn, np):
    return _rows(ms, _slices(ms, np, 3).project(["nope"]))


@case
def take_bad_count(ms, ops, nn, np):
    return _slices(ms, np, 3).take(-5)


@case
def zip_duplicate_columns(ms, ops, nn, np):
    return _rows(ms, _ds(ms).zip((_slices(ms, np, 3), _slices(ms, np, 3))))


@case
def generator_bad_column_names(ms, ops, nn, np):
    return _ds(ms).GeneratorDataset(lambda: iter([]), column_names=[1])


@case
def shard_id_out_of_range(ms, ops, nn, np):
    return _ds(ms).NumpySlicesDataset({"x": np.arange(4)}, num_shards=2, shard_id=2)


@case
def shuffle_bad_buffer(ms, ops, nn, np):
    return _slices(ms, np, 3).shuffle(1)
