"""``mindspore.hal``: what the program can ask about its devices.

cellkit has two: the CPU (NumPy) and, where CuPy finds a working CUDA device, the GPU. Questions
about Ascend are answered as MindSpore answers them on a machine without one.

>>> import cellkit as ms
>>> ms.hal.is_available("CPU"), ms.hal.device_count("CPU")
(True, 1)
"""
from __future__ import annotations

from . import backend as _backend
from . import context as _context
from . import runtime as _runtime

__all__ = ["device_count", "is_available", "is_initialized", "get_device_name", "get_device_properties",
           "get_arch_list", "get_device_capability", "empty_cache", "synchronize", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats", "memory_summary",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats"]

_TARGETS = ("CPU", "GPU", "Ascend")


def _target(device_target, op):
    if device_target is None:
        return _context.get_context("device_target")
    if not isinstance(device_target, str):
        raise TypeError(f"For '{op}', 'device_target' must be a str, but got {type(device_target).__name__}")
    if device_target not in _TARGETS:
        raise ValueError(f"For '{op}', 'device_target' must be one of {list(_TARGETS)}, but got {device_target}")
    return device_target


def _cupy():
    try:
        import cupy  # noqa: F401

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no CuPy, or no working CUDA driver: there is no GPU to use
        return None


def device_count(device_target=None):
    """How many devices of ``device_target`` (default: the current one) this process can use."""
    target = _target(device_target, "device_count")
    if target == "CPU":
        return 1
    if target == "GPU":
        cp = _cupy()
        return int(cp.cuda.runtime.getDeviceCount()) if cp is not None else 0
    return 0


def is_available(device_target):
    """Whether ``device_target`` can run here."""
    return device_count(_target(device_target, "is_available")) > 0


def is_initialized(device_target):
    """Whether ``device_target`` has been started in this process (the one in use, once it is)."""
    target = _target(device_target, "is_initialized")
    current = "GPU" if _backend.current().name == "cupy" else "CPU"
    return target == current and target != "CPU"


def _gpu_props(device_id):
    cp = _cupy()
    if cp is None:
        return None
    return cp.cuda.runtime.getDeviceProperties(device_id)


def get_device_name(device_id, device_target=None):
    """The device's name (``'CPU'`` on the CPU, the card's name on a GPU)."""
    target = _target(device_target, "get_device_name")
    if target == "GPU":
        props = _gpu_props(device_id)
        if props is not None:
            name = props["name"]
            return name.decode() if isinstance(name, bytes) else str(name)
        return None
    return "CPU" if target == "CPU" else None


def get_device_properties(device_id, device_target=None):
    """A GPU's properties (a dict of CUDA's figures); ``None`` for the CPU, as in MindSpore."""
    if _target(device_target, "get_device_properties") == "GPU":
        return _gpu_props(device_id)
    return None


def get_device_capability(device_id, device_target=None):
    """A GPU's compute capability ``(major, minor)``; ``None`` elsewhere."""
    props = get_device_properties(device_id, device_target)
    return None if props is None else (int(props["major"]), int(props["minor"]))


def get_arch_list(device_target=None):
    """The GPU architectures this build runs on; ``None`` for the CPU."""
    if _target(device_target, "get_arch_list") != "GPU" or _cupy() is None:
        return None
    props = _gpu_props(0)
    return [f"sm_{props['major']}{props['minor']}"]


empty_cache = _runtime.empty_cache
synchronize = _runtime.synchronize


def memory_allocated(device_target=None):
    """:func:`cellkit.runtime.memory_allocated` (``device_target`` checked, the current device measured)."""
    _target(device_target, "memory_allocated")
    return _runtime.memory_allocated()


def max_memory_allocated(device_target=None):
    """:func:`cellkit.runtime.max_memory_allocated`."""
    _target(device_target, "max_memory_allocated")
    return _runtime.max_memory_allocated()


def memory_reserved(device_target=None):
    """:func:`cellkit.runtime.memory_reserved`."""
    _target(device_target, "memory_reserved")
    return _runtime.memory_reserved()


def max_memory_reserved(device_target=None):
    """:func:`cellkit.runtime.max_memory_reserved`."""
    _target(device_target, "max_memory_reserved")
    return _runtime.max_memory_reserved()


def memory_stats(device_target=None):
    """:func:`cellkit.runtime.memory_stats`."""
    _target(device_target, "memory_stats")
    return _runtime.memory_stats()


def memory_summary(device_target=None):
    """:func:`cellkit.runtime.memory_summary`."""
    _target(device_target, "memory_summary")
    return _runtime.memory_summary()


def reset_max_memory_allocated(device_target=None):
    """:func:`cellkit.runtime.reset_max_memory_allocated`."""
    _target(device_target, "reset_max_memory_allocated")
    _runtime.reset_max_memory_allocated()


def reset_max_memory_reserved(device_target=None):
    """:func:`cellkit.runtime.reset_max_memory_reserved`."""
    _target(device_target, "reset_max_memory_reserved")
    _runtime.reset_max_memory_reserved()


def reset_peak_memory_stats(device_target=None):
    """:func:`cellkit.runtime.reset_peak_memory_stats`."""
    _target(device_target, "reset_peak_memory_stats")
    _runtime.reset_peak_memory_stats()
