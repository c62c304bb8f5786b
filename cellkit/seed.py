"""The global random seed: ``set_seed`` makes initialisation and dropout reproducible.

All random numbers in cellkit come from one NumPy ``Generator`` drawn on the
host (then moved to the device), so a seed gives the same values on every
backend.

>>> import cellkit as ms
>>> ms.set_seed(1)
>>> a = ms.common.initializer.initializer("normal", (2,), ms.float32).init_data().asnumpy()
>>> ms.set_seed(1)
>>> b = ms.common.initializer.initializer("normal", (2,), ms.float32).init_data().asnumpy()
>>> bool((a == b).all())
True
"""
from __future__ import annotations

import numpy as np

__all__ = ["set_seed", "get_seed", "generator"]

_seed = None
_generator = np.random.default_rng()


def set_seed(seed):
    """Seed every random draw cellkit makes (initializers, dropout, shuffles).

    Raises
    ------
    TypeError
        If ``seed`` is not an int.
    ValueError
        If ``seed`` is negative.
    """
    global _seed, _generator
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"set_seed: 'seed' must be an int, but got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"set_seed: 'seed' must be non-negative, but got {seed}")
    _seed = int(seed)
    _generator = np.random.default_rng(_seed)


def get_seed():
    """The seed last given to :func:`set_seed`, or ``None``."""
    return _seed


def generator() -> np.random.Generator:
    """The shared host random generator."""
    return _generator
