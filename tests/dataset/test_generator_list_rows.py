"""GeneratorDataset takes a list returned by its source as the row's columns, as MindSpore 2.10 does.

Recorded by hand from MindSpore 2.10 (CPU): ``GeneratorDataset([[1, 2], [3, 4]], ["a", "b"])`` gives
rows ``[1, 2]`` and ``[3, 4]`` as two columns; with ``["a"]`` it raises RuntimeError; a generator
yielding ``[np.array(1), np.array([2, 3])]`` gives two columns; and a Dataset (whose rows are lists
of Tensors) can be a GeneratorDataset's source, as the GAN tutorial does with MnistDataset.
"""
import numpy as np
import pytest

from cellkit.dataset import GeneratorDataset, NumpySlicesDataset


def rows(dataset):
    return [[x.tolist() for x in r] for r in dataset.create_tuple_iterator(output_numpy=True)]


def test_list_rows_are_columns():
    assert rows(GeneratorDataset([[1, 2], [3, 4]], ["a", "b"], shuffle=False)) == [[1, 2], [3, 4]]
    with pytest.raises(RuntimeError, match="2 values"):
        rows(GeneratorDataset([[1, 2], [3, 4]], ["a"], shuffle=False))

    def gen():
        yield [np.array(1), np.array([2, 3])]

    assert rows(GeneratorDataset(gen, ["a", "b"])) == [[1, [2, 3]]]


def test_a_dataset_as_source():
    inner = NumpySlicesDataset((np.arange(3), np.arange(3) * 10), ["x", "y"], shuffle=False)
    assert rows(GeneratorDataset(inner, ["x", "y"], shuffle=False)) == [[0, 0], [1, 10], [2, 20]]
