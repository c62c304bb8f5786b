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
from .context_params import DEFAULTS as _PARAM_DEFAULTS
from .context_params import ms_ctx_param  # noqa: F401  (mindspore.context holds it too)

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

# Every setting MindSpore answers, with MindSpore's values on CPU (cellkit.context_params), then
# cellkit's own: the backend decides the device target.  Names starting with "_" are MindSpore's
# internal ones: MSContext reads them, get_context/set_context refuse them.
_settings = dict(_PARAM_DEFAULTS)
_settings.update({
    "mode": PYNATIVE_MODE,
    "device_target": "GPU" if _backend.current().name == "cupy" else "CPU",
    "jit_config": {},
    "ascend_config": {},
    "gpu_config": {},
    "aoe_config": {},
    "enable_compile_cache": None,
    "reserve_class_name_in_scope": True,
    "support_binary": False,
    "enable_debug_runtime": False,
    "enable_ge": False,
})
# Accepted by set_context, warned about by MindSpore as deprecated, and not stored.
_DEPRECATED_KEYS = ("enable_sparse", "auto_tune_mode", "enable_auto_mixed_precision")


def set_context(**kwargs):
    """Change settings: ``mode`` (GRAPH_MODE / PYNATIVE_MODE), ``device_target`` ...

    ``device_target='GPU'`` switches to CuPy when a CUDA device works and
    otherwise stays on NumPy with a one-time warning saying why.  Settings
    that only matter to MindSpore's runtime are stored and returned by
    :func:`get_context` unchanged.
    """
    # Every keyword and value is checked before anything changes (the device switch included).
    for key in kwargs:
        if (key not in _settings or key.startswith("_")) and key not in _DEPRECATED_KEYS:
            raise ValueError(f"For 'context.set_context', the keyword argument {_shown(key)} is not recognized! "
                             "For detailed usage of 'set_context', please refer to the Mindspore official website.")
    kwargs = {key: _checked(key, value) for key, value in kwargs.items() if key not in _DEPRECATED_KEYS}
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
        chosen = _backend.select(target)  # the last check: it switches the backend (Ascend falls back to CPU)
        kwargs["device_target"] = "GPU" if chosen.name == "cupy" else "CPU"
    previous_mode = _settings["mode"]
    _settings.update(kwargs)
    if _settings["mode"] != previous_mode:
        for listener in list(_mode_listeners):
            listener(_settings["mode"])


def _shown(name):
    """A setting's name in a message: as MindSpore writes it, quoted when it would otherwise not show."""
    return name if name.strip() == name and name else repr(name)


def _checked(key, value):
    """``value`` for setting ``key``, refused as MindSpore refuses it: the type of MindSpore's value, and ranges."""
    if key == "save_graphs":  # True/False stand for the levels 2/0
        value = {True: 2, False: 0}.get(value, value) if isinstance(value, bool) else value
        if isinstance(value, int) and not 0 <= value <= 3:
            raise ValueError(f"value for save_graphs should be 0-3 but got '{value}'")
    default = _PARAM_DEFAULTS.get(key)
    if default is not None and key not in ("mode", "device_target", "jit_syntax_level"):
        expected = type(default)
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            raise TypeError(f"The parameter '{key}' must be {expected}, but got {type(value)}")
    if key == "max_call_depth" and value <= 0:
        raise ValueError(f"For 'context.set_context', the argument 'max_call_depth' must be greater than 0, "
                         f"but got {value}.")
    if key == "runtime_num_threads" and value < 0:
        raise ValueError("The num of thread must bigger than or equal to 0.")
    return value


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
    """The value of one setting (MindSpore's value until ``set_context`` changes it); unknown keys raise ValueError.

    >>> import cellkit as ms
    >>> ms.get_context("max_call_depth")
    1000
    """
    if not isinstance(attr_key, str):
        raise TypeError(f"get_context: 'attr_key' must be a str, but got {type(attr_key).__name__}")
    if attr_key not in _settings or attr_key.startswith("_"):
        raise ValueError(f"For 'context.get_context', the argument {_shown(attr_key)} is not recognized! "
                         "For detailed usage of 'get_context', please refer to the Mindspore official website.")
    return _settings[attr_key]
