"""``mindspore.runtime``'s memory calls: how much memory cellkit keeps for reuse, and giving it back.

cellkit keeps two kinds of memory between steps so that it does not ask the
system again on every step:

- on the CPU, :mod:`cellkit.buffer_cache` holds the large temporaries of the
  NumPy convolution and pooling (window matrices, padded inputs, gradients);
- on a GPU, CuPy's memory pool holds freed device blocks.

:func:`memory_reserved` reports both and :func:`empty_cache` releases what
nothing uses any more.  (MindSpore reports 0 on its CPU backend, which has
no such cache.)

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn, runtime
>>> _ = nn.Conv2d(3, 16, 3)(ms.Tensor(np.ones((32, 3, 64, 64), np.float32)))
>>> runtime.memory_reserved() > 0
True
>>> runtime.empty_cache()
>>> runtime.memory_reserved()
0
"""
from __future__ import annotations

from . import backend as _backend
from . import buffer_cache as _buffer_cache

__all__ = ["empty_cache", "memory_reserved"]


def _cupy_pool():
    be = _backend.current()
    if be.name != "cupy":
        return None
    return be.xp.get_default_memory_pool()


def empty_cache():
    """Release the memory cellkit keeps for reuse (arrays still in use stay with their users)."""
    _buffer_cache.clear()
    pool = _cupy_pool()
    if pool is not None:
        pool.free_all_blocks()


def memory_reserved():
    """Bytes held for reuse, in use or idle: the CPU buffer cache plus, on a GPU, CuPy's pool."""
    total = _buffer_cache.reserved_bytes()
    pool = _cupy_pool()
    if pool is not None:
        total += int(pool.total_bytes())
    return total
