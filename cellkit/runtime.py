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

__all__ = ["empty_cache", "memory_reserved", "memory_allocated", "max_memory_allocated", "max_memory_reserved",
           "memory_stats", "memory_summary", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "reset_peak_memory_stats", "set_memory", "launch_blocking", "synchronize"]


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


# ---------------------------------------------------------------- what is allocated now, and the peaks
# ``memory_allocated`` counts the memory that live Tensors (Parameters included) hold, each buffer
# once however many views share it: the same rule as :mod:`cellkit.memory`'s accounting.  On the CPU
# the Tensors are found by walking the objects the garbage collector tracks, so the call costs time
# in proportion to the objects alive (nothing is paid while ops run); on a GPU CuPy's pool knows.
# The ``max_*`` figures are the largest values these calls have seen since the last reset (a peak
# between two calls needs :func:`cellkit.memory.profile`, whose timeline sees every allocation).
_peaks = {"allocated": 0, "reserved": 0}


def _live_tensor_bytes():
    import gc

    from .autograd import memory_owner
    from .tensor import Tensor

    seen, total = set(), 0
    for obj in gc.get_objects():
        if isinstance(obj, Tensor):
            data = obj._data
            if data is None:
                continue
            owner = memory_owner(data)
            if id(owner) in seen:
                continue
            seen.add(id(owner))
            total += int(getattr(owner, "nbytes", 0))
    return total


def _note(allocated=None, reserved=None):
    if allocated is not None and allocated > _peaks["allocated"]:
        _peaks["allocated"] = int(allocated)
    if reserved is not None and reserved > _peaks["reserved"]:
        _peaks["reserved"] = int(reserved)


def memory_allocated():
    """Bytes held by live Tensors and Parameters now (on a GPU: what CuPy's pool has handed out).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> before = ms.runtime.memory_allocated()
    >>> big = ms.Tensor(np.zeros((1000, 1000), np.float32))
    >>> ms.runtime.memory_allocated() - before >= 4_000_000
    True
    """
    pool = _cupy_pool()
    value = int(pool.used_bytes()) if pool is not None else _live_tensor_bytes()
    _note(allocated=value)
    return value


def max_memory_allocated():
    """The largest :func:`memory_allocated` these calls have seen since the last reset."""
    memory_allocated()
    return _peaks["allocated"]


def max_memory_reserved():
    """The largest :func:`memory_reserved` seen since the last reset."""
    _note(reserved=memory_reserved())
    return _peaks["reserved"]


def reset_max_memory_allocated():
    """Start the allocated peak again from what is allocated now."""
    _peaks["allocated"] = 0
    memory_allocated()


def reset_max_memory_reserved():
    """Start the reserved peak again from what is reserved now."""
    _peaks["reserved"] = memory_reserved()


def reset_peak_memory_stats():
    """Reset both peaks (:func:`reset_max_memory_allocated` and :func:`reset_max_memory_reserved`)."""
    reset_max_memory_allocated()
    reset_max_memory_reserved()


def memory_stats():
    """The memory figures as a dict with MindSpore's keys (``total_allocated_memory``, ``max_reserved_memory``...).

    The pool statistics MindSpore reports for its device allocator describe CuPy's pool on a GPU and
    are empty on the CPU.

    >>> import cellkit as ms
    >>> sorted(ms.runtime.memory_stats())[:3]
    ['common_mem_pool_stats', 'max_allocated_memory', 'max_reserved_memory']
    """
    allocated = memory_allocated()
    reserved = memory_reserved()
    _note(reserved=reserved)
    pool = _cupy_pool()
    blocks = {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}}
    if pool is not None:
        blocks = {"block_unit_size": 512, "block_counts": int(pool.n_free_blocks()), "blocks_info": {}}
    return {
        "total_reserved_memory": reserved,
        "total_allocated_memory": allocated,
        "total_idle_memory": max(reserved - (int(pool.used_bytes()) if pool is not None else 0), 0)
        if pool is not None else _buffer_cache.reserved_bytes(),
        "total_eager_free_memory": 0,
        "max_reserved_memory": _peaks["reserved"],
        "max_allocated_memory": _peaks["allocated"],
        "common_mem_pool_stats": blocks,
        "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}},
    }


def _format_bytes(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def memory_summary():
    """A text table of :func:`memory_stats`, laid out as MindSpore prints it.

    >>> import cellkit as ms
    >>> print(ms.runtime.memory_summary().splitlines()[1])
    |               Memory summary                |
    """
    stats = memory_stats()
    rows = [("Reserved memory", stats["total_reserved_memory"]), ("Allocated memory", stats["total_allocated_memory"]),
            ("Idle memory", stats["total_idle_memory"]), ("Eager free memory", stats["total_eager_free_memory"]),
            ("Max reserved memory", stats["max_reserved_memory"]),
            ("Max allocated memory", stats["max_allocated_memory"])]
    line, rule = "|" + "=" * 45 + "|", "|" + "-" * 45 + "|"
    out = [line, "|" + " " * 15 + "Memory summary" + " " * 16 + "|", line, f"| {'Metric':<20} | {'Data':<20} |", rule]
    for i, (name, value) in enumerate(rows):
        out.append(f"| {name:<20} | {_format_bytes(value):>8}{'':<12} |")
        out.append(line if i == len(rows) - 1 else rule)
    return "\n".join(out) + "\n"


def _check_size(value, name):
    import re

    if not isinstance(value, str) or not re.fullmatch(r"[1-9][0-9]*(\.)?[0-9]*GB|0\.[0-9]*GB|0GB", value):
        raise ValueError(f"For 'set_memory', '{name}' must be a size in GB such as '2GB', but got {value!r}")
    return value


def set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
               huge_page_reserve_size="0GB"):
    """Check and record the device memory pool settings (MindSpore sizes its pool with them).

    NumPy and CuPy size their own memory, so the figures are kept for inspection only
    (``ms.runtime._memory_settings``); bad values are refused as MindSpore refuses them, and, as
    there, the settings can be made once per process (a second call raises ``RuntimeError``).
    """
    global _memory_settings, _memory_set
    settings = {"init_size": _check_size(init_size, "init_size"),
                "increase_size": _check_size(increase_size, "increase_size"),
                "max_size": _check_size(max_size, "max_size"),
                "huge_page_reserve_size": _check_size(huge_page_reserve_size, "huge_page_reserve_size")}
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"The optimize_level must be one of ['O0', 'O1'], but got {optimize_level}.")
    settings["optimize_level"] = optimize_level
    if _memory_set:
        raise RuntimeError("The 'set_memory' can not be set repeatedly.")
    _memory_settings, _memory_set = settings, True


_memory_set = False


_memory_settings = {"init_size": "2GB", "increase_size": "2GB", "max_size": "1024GB", "optimize_level": "O0",
                    "huge_page_reserve_size": "0GB"}

# ---------------------------------------------------------------- launch and synchronisation
_launch_blocking = False


def launch_blocking():
    """Make device kernels run synchronously, so an error is reported at the op that caused it.

    cellkit's NumPy ops always finish before they return. For CuPy this sets
    ``CUDA_LAUNCH_BLOCKING=1``, which CUDA reads when its context starts: call it before the
    first GPU op, as MindSpore asks to call it before the first op.
    """
    global _launch_blocking
    import os

    os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
    _launch_blocking = True


def synchronize():
    """Wait until the device has finished all queued work (nothing to wait for on the CPU)."""
    be = _backend.current()
    if be.name == "cupy":
        be.xp.cuda.Device().synchronize()
