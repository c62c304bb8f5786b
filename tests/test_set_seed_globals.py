"""``ms.set_seed`` also seeds NumPy's and Python's global generators, as MindSpore 2.10's does.

Checked by hand on MindSpore 2.10 (CPU): after ``set_seed(5)`` twice, ``np.random.rand()`` and
``random.random()`` repeat their values.
"""
import random

import numpy as np

import cellkit as ms


def test_set_seed_repeats_numpy_and_python_draws():
    ms.set_seed(5)
    a, r = np.random.rand(), random.random()
    ms.set_seed(5)
    assert np.random.rand() == a and random.random() == r
    ms.set_seed(6)
    assert np.random.rand() != a
