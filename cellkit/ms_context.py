"""``MSContext``: the one context object behind ``set_context`` / ``get_context``, spoken to by enum.

MindSpore's settings live in a C++ singleton, ``MSContext``, that its Python
layer (and some user code, and ``mindspore.amp``'s namespace) reaches as
``MSContext.get_instance()``; each setting is named by a member of the enum
``ms_ctx_param``.  cellkit's settings live in :mod:`cellkit.context`; this
class is the same object seen through MindSpore's enum interface, so a value
set one way is read back the other way.

>>> import cellkit as ms
>>> from cellkit.amp import MSContext
>>> from cellkit.context_params import ms_ctx_param
>>> context = MSContext.get_instance()
>>> context.get_param(ms_ctx_param.max_call_depth)
1000
>>> context.set_param(ms_ctx_param.max_call_depth, 1500)
>>> ms.get_context("max_call_depth")
1500
>>> ms.set_context(max_call_depth=1000)
"""
from __future__ import annotations

from . import backend as _backend
from . import context as _context
from .context_params import DEFAULTS, ms_ctx_param

__all__ = ["MSContext"]

_BACKEND_POLICIES = ("ms", "ge", "vm", "vm_prior", "ge_only", "ms_only")


class MSContext:
    """The process's context settings, addressed by :data:`cellkit.context_params.ms_ctx_param`.

    There is one; ``MSContext.get_instance()`` returns it (calling the class
    raises TypeError, as MindSpore's C++ class has no constructor).
    """

    _instance = None

    def __new__(cls, *args, **kwargs):
        if not kwargs.pop("_internal", False):
            raise TypeError("mindspore._c_expression.MSContext: No constructor defined!")
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        self._backend_policy = "ms"
        self._set_env_callbacks = []
        self._check_env_callbacks = []
        self._not_convert_jit = False

    @classmethod
    def get_instance(cls):
        """The single context object of this process."""
        if cls._instance is None:
            cls._instance = cls(_internal=True)
        return cls._instance

    # --------------------------------------------------------------- parameters
    def get_param(self, param):
        """The value of the setting ``param`` (a member of ``ms_ctx_param``)."""
        name = _param_name(param, "get_param")
        value = _context._settings[name]
        if name == "enable_compile_cache":  # get_context says None until it is set; the raw store says -1
            return -1 if value is None else int(value)
        return value

    def set_param(self, param, value):
        """Set ``param`` to ``value``; the value must have the type of the setting (RuntimeError otherwise).

        As in MindSpore this is the raw store: ranges are not checked (``set_context`` checks them),
        and a bool is taken for an int setting.
        """
        name = _param_name(param, "set_param")
        default = DEFAULTS[name]
        accepted = (int,) if isinstance(default, int) and not isinstance(default, bool) else (type(default),)
        if not isinstance(value, accepted) or (isinstance(default, bool) and not isinstance(value, bool)):
            raise RuntimeError(f"Got illegal param {int(param)} and value with type {type(value)}")
        if name == "mode":
            _context.set_context(mode=int(value))
        elif name == "device_target":
            _context.set_context(device_target=value)
        else:
            _context._settings[name] = int(value) if accepted == (int,) else value

    def set_device_target_inner(self, device_target):
        """Switch the device target (``'CPU'``, or ``'GPU'`` where CuPy finds a CUDA device)."""
        _context.set_context(device_target=device_target)

    # --------------------------------------------------------------- backend policy and devices
    def get_backend_policy(self):
        """The graph backend's policy name; cellkit's graphs always run on its own executor (``'ms'``)."""
        return self._backend_policy

    def set_backend_policy(self, policy):
        """Store a policy name MindSpore knows; returns whether it was taken (an unknown name is not)."""
        if not isinstance(policy, str):
            raise TypeError(f"set_backend_policy(): 'policy' must be a str, but got {type(policy).__name__}")
        if policy not in _BACKEND_POLICIES:
            return False
        self._backend_policy = policy
        return True

    def is_pkg_support_device(self, device):
        """Whether this installation can run on ``device``: CPU always, GPU when CuPy sees a CUDA device."""
        if not isinstance(device, str):
            raise TypeError(f"is_pkg_support_device(): 'device' must be a str, but got {type(device).__name__}")
        if device == "CPU":
            return True
        if device == "GPU":
            try:
                _backend._make_cupy()  # the same probe set_context(device_target="GPU") runs
            except _backend.BackendUnavailable:
                return False
            return True
        return False

    def is_ascend_plugin_loaded(self):
        """False: cellkit has no Ascend backend."""
        return False

    def get_ascend_soc_version(self):
        """The Ascend chip's name; empty, as there is none."""
        return ""

    def ascend_soc_supports_feature(self, feature):
        """False for every feature: there is no Ascend chip."""
        return False

    def load_plugin_error(self):
        """Why a device plugin failed to load: cellkit loads no plugins, so there is nothing to report."""
        return ""

    def enable_dump_ir(self):
        """Whether graphs can be dumped as IR files (MindSpore's build says yes; cellkit's displays show them)."""
        return True

    # --------------------------------------------------------------- environment callbacks
    def register_set_env_callback(self, callback):
        """Keep ``callback(device_target, library_path)``; it is called at once for the current device."""
        self._set_env_callbacks.append(callback)
        callback(_context._settings["device_target"], _backend.__file__)

    def register_check_env_callback(self, callback):
        """Keep ``callback`` (MindSpore calls these when it loads a device plugin; cellkit loads none)."""
        self._check_env_callbacks.append(callback)

    def _set_not_convert_jit(self, value):
        self._not_convert_jit = bool(value)


def _param_name(param, method):
    if not isinstance(param, ms_ctx_param):
        raise TypeError(f"{method}(): incompatible function arguments: 'param' must be a member of "
                        f"ms_ctx_param, but got {type(param).__name__} {param!r}")
    return param.name
