"""``set_context`` / ``get_context``: execution mode and device target.

>>> import cellkit as ms
>>> ms.get_context("mode") == ms.PYNATIVE_MODE
True
"""
from __future__ import annotations

from . import backend as _backend

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_settings = {
    "mode": PYNATIVE_MODE,
    "device_target": "GPU" if _backend.current().name == "cupy" else "CPU",
    "device_id": 0,
    "save_graphs": False,
    "jit_config": None,
}


def set_context(**kwargs):
    """Change settings: ``mode`` (GRAPH_MODE / PYNATIVE_MODE), ``device_target`` ...

    ``device_target='GPU'`` switches to CuPy when a CUDA device works and
    otherwise stays on NumPy with a one-time warning saying why.  Settings
    that only matter to MindSpore's runtime are stored and returned by
    :func:`get_context` unchanged.
    """
    if "mode" in kwargs:
        mode = kwargs["mode"]
        if mode not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(
                f"set_context: 'mode' must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {mode!r}"
            )
    if "device_target" in kwargs:
        target = kwargs["device_target"]
        if not isinstance(target, str):
            raise TypeError(f"set_context: 'device_target' must be a str, but got {type(target).__name__}")
        chosen = _backend.select(target)
        kwargs["device_target"] = "GPU" if chosen.name == "cupy" else (
            "CPU" if target.upper() != "ASCEND" else "CPU")
    _settings.update(kwargs)


def get_context(attr_key):
    """The value of one setting; KeyError-free: unknown keys raise ValueError."""
    if attr_key not in _settings:
        raise ValueError(f"get_context: unknown setting {attr_key!r}; known: {sorted(_settings)}")
    return _settings[attr_key]
