"""``set_context`` / ``get_context``: execution mode, device target, graph compile options.

``mode=GRAPH_MODE`` makes calling a Cell compile it into a graph (see
:mod:`cellkit.graph`); ``jit_config={"jit_level": "O0" | "O1" | "O2"}`` is
the default optimisation level of those graphs.

>>> import cellkit as ms
>>> ms.get_context("mode") == ms.PYNATIVE_MODE
True
"""
from __future__ import annotations

from . import backend as _backend

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_context", "get_context"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1

# jit_syntax_level: how much Python graph mode accepts.  cellkit's tracer breaks the graph where it
# cannot follow (see cellkit.graph), whatever the level; the level is checked and stored.
STRICT = 0
COMPATIBLE = 1
LAX = 2

# Called with the new mode whenever set_context changes it (cellkit.graph switches Cell calls over).
_mode_listeners = []

_settings = {
    "mode": PYNATIVE_MODE,
    "device_target": "GPU" if _backend.current().name == "cupy" else "CPU",
    "device_id": 0,
    "save_graphs": False,
    "jit_config": None,
    "deterministic": "OFF",  # ms.set_deterministic
    "jit_syntax_level": LAX,
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
    if "jit_syntax_level" in kwargs:
        level = kwargs["jit_syntax_level"]
        if isinstance(level, bool) or not isinstance(level, int):
            raise TypeError(f"The parameter 'jit_syntax_level' must be <class 'int'>, but got {type(level)}")
        if level not in (STRICT, COMPATIBLE, LAX):
            raise ValueError(f"For 'jit_syntax_level', the value should be context.STRICT or context.LAX, "
                             f"but got {level}.")
    if "jit_config" in kwargs:
        _check_jit_config(kwargs["jit_config"])
    if "device_target" in kwargs:
        target = kwargs["device_target"]
        if not isinstance(target, str):
            raise TypeError(f"set_context: 'device_target' must be a str, but got {type(target).__name__}")
        chosen = _backend.select(target)
        kwargs["device_target"] = "GPU" if chosen.name == "cupy" else (
            "CPU" if target.upper() != "ASCEND" else "CPU")
    previous_mode = _settings["mode"]
    _settings.update(kwargs)
    if _settings["mode"] != previous_mode:
        for listener in list(_mode_listeners):
            listener(_settings["mode"])


def _check_jit_config(config):
    """``jit_config``: None, a dict (MindSpore's form) or a JitConfig, with a known ``jit_level``."""
    if config is None:
        return
    values = getattr(config, "jit_config_dict", config)
    if not isinstance(values, dict):
        raise TypeError(f"set_context: 'jit_config' must be a dict or a JitConfig, but got {type(config).__name__}")
    level = values.get("jit_level", "")
    if level not in ("", "O0", "O1", "O2"):
        raise ValueError(f"set_context: jit_config['jit_level'] must be '', 'O0', 'O1' or 'O2', but got {level!r}")


def get_context(attr_key):
    """The value of one setting; KeyError-free: unknown keys raise ValueError."""
    if not isinstance(attr_key, str):
        raise TypeError(f"get_context: 'attr_key' must be a str, but got {type(attr_key).__name__}")
    if attr_key not in _settings:
        raise ValueError(f"get_context: unknown setting {attr_key!r}; known: {sorted(_settings)}")
    return _settings[attr_key]
