"""A string column's rows come out of every source as 0-d NumPy arrays, as MindSpore 2.10 gives them.

Recorded by hand from MindSpore 2.10 (CPU): ``NumpySlicesDataset(["ab", "c"], ["s"], shuffle=False)``
iterates as ``[array('ab', dtype='<U2')]``, ``[array('c', dtype='<U1')]``, and ``MindDataset``'s string
fields the same; a NumPy scalar (``np.str_``) was given before.
"""
import numpy as np

from cellkit.dataset import NumpySlicesDataset


def test_numpy_slices_string_rows_are_zero_d_arrays():
    dataset = NumpySlicesDataset(["ab", "c"], ["s"], shuffle=False)
    for rows in (list(dataset), list(dataset.create_tuple_iterator(output_numpy=True))):
        assert [type(r[0]) for r in rows] == [np.ndarray, np.ndarray]
        assert [r[0].shape for r in rows] == [(), ()]
        assert [r[0].dtype for r in rows] == [np.dtype("<U2"), np.dtype("<U1")]
        assert [str(r[0]) for r in rows] == ["ab", "c"]
    row = next(dataset.create_dict_iterator())
    assert isinstance(row["s"], np.ndarray) and row["s"].shape == ()
