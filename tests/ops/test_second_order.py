"""Second derivatives of every differentiable op, against finite differences of the first derivative.

Generated from ``differentiable_ops.DIFFERENTIABLE``: each entry runs on
every backend (NumPy and the strict non-CPU device), in float64.
"""
import zlib

import numpy as np
import pytest

from tests.gradcheck import check_second_order
from tests.ops.differentiable_ops import DIFFERENTIABLE


@pytest.mark.parametrize("entry", DIFFERENTIABLE, ids=repr)
def test_second_order_matches_finite_differences(backend, entry):
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    arrays = [sample(rng) for sample in entry.inputs]
    check_second_order(entry.call, *arrays, wrt=entry.wrt, rtol=entry.rtol, atol=entry.atol)


def test_second_order_list_names_are_unique():
    names = [entry.name for entry in DIFFERENTIABLE]
    assert len(names) == len(set(names))
