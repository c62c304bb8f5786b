"""NumpySlicesDataset: slicing, batching, shuffling reproducibly under ms.set_seed."""
import numpy as np
import pytest

import cellkit as ms
from cellkit.train import NumpySlicesDataset

DATA = np.arange(10, dtype=np.float32).reshape(10, 1)
LABELS = np.arange(10, dtype=np.int32)


def orders(dataset, epochs=2):
    return [[int(v) for _, y in dataset for v in y.asnumpy().reshape(-1)] for _ in range(epochs)]


def test_dataset_batches_rows_in_order_without_shuffle():
    ds = NumpySlicesDataset((DATA, LABELS), column_names=["x", "y"], shuffle=False).batch(4)
    batches = list(ds)
    assert [b[1].asnumpy().tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert isinstance(batches[0][0], ms.Tensor) and batches[0][0].dtype == ms.float32
    assert ds.get_dataset_size() == len(ds) == 3 and ds.get_batch_size() == 4
    assert len(NumpySlicesDataset((DATA, LABELS), shuffle=False).batch(4, drop_remainder=True)) == 2


def test_dataset_shuffles_every_epoch_reproducibly_under_set_seed():
    ms.set_seed(7)
    first = orders(NumpySlicesDataset((DATA, LABELS)).batch(3))
    ms.set_seed(7)
    again = orders(NumpySlicesDataset((DATA, LABELS)).batch(3))
    assert first == again
    assert first[0] != first[1]  # a new order each epoch
    assert sorted(first[0]) == list(range(10))
    assert orders(NumpySlicesDataset((DATA, LABELS), seed=3)) == orders(NumpySlicesDataset((DATA, LABELS), seed=3))


def test_dataset_rows_stay_paired_after_shuffling():
    ms.set_seed(1)
    for x, y in NumpySlicesDataset((DATA, LABELS)).batch(4):
        np.testing.assert_array_equal(x.asnumpy().reshape(-1), y.asnumpy())


def test_dataset_iterators_and_column_forms():
    ds = NumpySlicesDataset({"image": DATA, "label": LABELS}, shuffle=False).batch(5)
    assert ds.get_col_names() == ["image", "label"]
    first = next(ds.create_dict_iterator())
    assert list(first) == ["image", "label"] and first["label"].asnumpy().tolist() == [0, 1, 2, 3, 4]
    numpy_rows = next(ds.create_tuple_iterator(output_numpy=True))
    assert isinstance(numpy_rows[0], np.ndarray)
    assert next(ds.create_tuple_iterator(columns=["label"]))[0].shape == (5,)
    single = NumpySlicesDataset([1, 2, 3], shuffle=False)
    assert single.get_col_names() == ["column_0"] and [int(r[0].asnumpy()) for r in single] == [1, 2, 3]


def test_dataset_errors():
    with pytest.raises(ValueError, match="same number of rows"):
        NumpySlicesDataset((DATA, LABELS[:5]))
    with pytest.raises(ValueError, match="column names"):
        NumpySlicesDataset((DATA, LABELS), column_names=["only"])
    with pytest.raises(TypeError, match="'data'"):
        NumpySlicesDataset(5)
    with pytest.raises(ValueError, match="batch_size"):
        NumpySlicesDataset(DATA).batch(0)
    with pytest.raises(ValueError, match="Unknown columns"):
        next(NumpySlicesDataset(DATA).create_tuple_iterator(columns=["nope"]))
