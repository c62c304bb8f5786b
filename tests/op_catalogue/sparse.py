"""Sparse index conversions and ops on plain arrays: ``coo2csr``, ``csr2coo``, ``coalesce``, ``csr_gather``.

``COOTensor`` / ``CSRTensor`` and the ``coo_*`` / ``csr_*`` functions take sparse tensors, which a
catalogue sample (plain arrays) cannot describe: their cases are in
``tests/mindspore_cases/sparse_tensors.py``.  ``coo2csr`` / ``csr2coo`` take Int32 only, as MindSpore.
MindSpore has no gradient for ``csr_gather`` ("bprop not defined") and a wrong one for ``coalesce``'s
values (5 entries for 4 values); cellkit's (a gather's, a scatter-add's) are checked in
``tests/ops/test_misc_behaviour.py``.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

ROWS = np.array([0, 1, 1, 2], np.int32)
INDPTR = np.array([0, 1, 3, 4, 4], np.int32)
COO_INDICES = np.array([[1, 0, 1, 0], [0, 1, 0, 2]], np.int64)   # (ndims, N): one column per entry
COO_SHAPE = np.array([2, 3], np.int64)


def _coo2csr_ref(rows, height):
    return np.searchsorted(np.sort(rows), np.arange(height + 1)).astype(rows.dtype)


def _csr2coo_ref(indptr, nnz):
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)).astype(indptr.dtype)


def _csr_gather_ref(indptr, indices, dense, shape):
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return dense[rows, indices]


OPS = [
    OpInfo("coo2csr",
           (Sample((ROWS, 4), label="rows"), Sample((ROWS[:3], 2), label="short"),
            Sample((np.zeros(0, np.int32), 2), label="empty")),
           ref=_coo2csr_ref,
           mindspore_wrong={"empty": "MindSpore 2.10 (CPU) fails to build its kernel for no rows (RuntimeError "
                                     "'Response is empty')"},
           bad=(Bad("int64", (ROWS.astype(np.int64), 3)),)),
    OpInfo("csr2coo",
           (Sample((INDPTR, 4), label="indptr"), Sample((INDPTR[:3], 3), label="short")),
           ref=_csr2coo_ref,
           bad=(Bad("int64", (INDPTR.astype(np.int64), 4)),)),
    OpInfo("coalesce",
           (Sample((COO_INDICES, Arr((4,)), COO_SHAPE), label="duplicates"),
            Sample((COO_INDICES[:, :2], Arr((2,), "float64"), COO_SHAPE), label="float64")),
           bad=(Bad("int32_indices", (COO_INDICES.astype(np.int32), Arr((4,)), COO_SHAPE)),)),
    OpInfo("csr_gather",
           (Sample((INDPTR[:4], np.array([1, 0, 2, 3], np.int32), Arr((3, 4)), (3, 4)), label="rows"),),
           ref=_csr_gather_ref),
]
