"""Reusable host buffers for the large temporaries of a training step.

Why a cache: a training step allocates the same big arrays on every step
(a convolution's window matrix, its padded input, the gradients it scatters
back).  Arrays this large come from the operating system page by page, and
the C allocator often hands them back after each step, so every step pays a
page fault (and the kernel zeroing the page) for each 4 KiB it touches.  On
a small classroom VM that costs as much as the arithmetic.  PyTorch keeps a
cache of freed blocks for the same reason.

How it stays safe: a buffer is handed out again only when nothing else
refers to it.  Every NumPy view keeps its base array alive, so a buffer
that a tensor, a saved activation or a view of either still uses has a
reference count above the cache's own, and is skipped.

The cache is bounded (:data:`MAX_BYTES` in all, :data:`MAX_PER_SHAPE`
buffers of one shape); when full, it drops idle buffers of the shapes used
least recently.  :func:`clear` (``cellkit.runtime.empty_cache()``) frees
them all.  While :mod:`cellkit.memory` profiles a run the cache is bypassed,
so its report sees every allocation as it happens.

Only the NumPy fast paths use it; CuPy has its own memory pool.

>>> import numpy as np
>>> from cellkit import buffer_cache
>>> a = buffer_cache.empty((256, 1024), np.float32)
>>> b = buffer_cache.empty((256, 1024), np.float32)   # a is still referenced: a new buffer
>>> a is b
False
>>> address = a.ctypes.data
>>> del a
>>> c = buffer_cache.empty((256, 1024), np.float32)   # a's buffer is idle again: reused
>>> c.ctypes.data == address
True
"""
from __future__ import annotations

import sys
import threading

import numpy as np

__all__ = ["empty", "zeros", "clear", "reserved_bytes", "MAX_BYTES", "MAX_PER_SHAPE", "MIN_BYTES"]

MAX_BYTES = 512 * 1024 * 1024
MAX_PER_SHAPE = 4
# Below this the C allocator reuses freed memory by itself, and a cache lookup would cost more.
MIN_BYTES = 64 * 1024

_lock = threading.Lock()
_buffers = {}  # (shape, dtype) -> [array, ...]; dict order = least recently used first
_held = 0  # bytes held by the cache
bypass = False  # set by cellkit.memory while it profiles


def _references(buffer):
    return sys.getrefcount(buffer)


def _idle_references():
    """What :func:`_references` says of a cached buffer nobody else holds, seen from a loop over its list.

    Measured on this interpreter rather than assumed: the count depends on
    how the running Python counts the list slot, the loop variable and the
    arguments.
    """
    cached = [np.empty(1)]
    for buffer in cached:
        return _references(buffer)


_IDLE = _idle_references()


def _references_tell_use():
    """Whether one more holder of a buffer shows in its reference count on this interpreter.

    A free-threaded Python (no GIL) counts references per thread and merges
    them lazily, so the count cannot prove a buffer idle: the cache stays off there.
    """
    if hasattr(sys, "_is_gil_enabled") and not sys._is_gil_enabled():
        return False
    cached = [np.empty(1)]
    holder = cached[0]
    for buffer in cached:
        return _references(buffer) == _IDLE + 1 and holder is buffer


if not _references_tell_use():
    bypass = True


def _take_idle(buffers):
    for buffer in buffers:
        if _references(buffer) == _IDLE:
            return buffer
    return None


def _make_room(nbytes, asking):
    """Drop idle buffers, least recently used shapes first, until ``nbytes`` more fit.

    ``asking`` is the key of the shape being served; its list stays in the cache.
    """
    global _held
    for key in list(_buffers):
        if _held + nbytes <= MAX_BYTES:
            return True
        if key == asking:
            continue
        buffers = _buffers[key]
        idle = [buffer for buffer in buffers if _references(buffer) == _IDLE]
        for buffer in idle:
            buffers.remove(buffer)
            _held -= buffer.nbytes
        if not buffers:
            del _buffers[key]
    return _held + nbytes <= MAX_BYTES


def empty(shape, dtype):
    """An uninitialised array of ``shape`` and ``dtype``, reused from the cache when one is idle."""
    global _held
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if bypass or nbytes < MIN_BYTES:
        return np.empty(shape, dtype)
    key = (shape, dtype)
    with _lock:
        buffers = _buffers.pop(key, None)
        if buffers is None:
            buffers = []
        _buffers[key] = buffers  # re-inserted: now the most recently used shape
        buffer = _take_idle(buffers)
        if buffer is not None:
            return buffer
        buffer = np.empty(shape, dtype)
        if len(buffers) < MAX_PER_SHAPE and _make_room(nbytes, key):
            buffers.append(buffer)
            _held += nbytes
        return buffer


def zeros(shape, dtype):
    """Like :func:`empty`, filled with zeros."""
    buffer = empty(shape, dtype)
    buffer.fill(0)
    return buffer


def clear():
    """Forget every cached buffer (those still in use live on with their users)."""
    global _held
    with _lock:
        _buffers.clear()
        _held = 0


def reserved_bytes():
    """Bytes the cache holds, idle or in use."""
    return _held
