"""``mindspore.dataset.config``: the pipeline's global settings, above all its random seed.

Without a seed, every new iteration of a shuffled pipeline draws fresh randomness (as in
MindSpore).  After ``set_seed(n)`` -- or ``cellkit.set_seed(n)``, which seeds the datasets too,
as ``mindspore.set_seed`` does -- every shuffle, sampler and random transform is reproducible:
a new iterator over the same pipeline gives the same rows, and later epochs of one iterator
differ from each other as they would in MindSpore.

The parallelism settings are kept and reported but change nothing: cellkit's pipelines run in
one process, working on whole blocks of rows instead.

>>> import cellkit.dataset as ds
>>> ds.config.set_seed(7)
>>> ds.config.get_seed()
7
>>> ds.config.set_num_parallel_workers(4); ds.config.get_num_parallel_workers()
4
"""
from __future__ import annotations

import enum
import json
import os

from .. import seed as _global_seed

__all__ = [
    "set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers", "set_prefetch_size",
    "get_prefetch_size", "set_monitor_sampling_interval", "get_monitor_sampling_interval",
    "set_callback_timeout", "get_callback_timeout", "set_enable_shared_mem", "get_enable_shared_mem",
    "set_auto_num_workers", "get_auto_num_workers", "set_enable_autotune", "get_enable_autotune",
    "set_autotune_interval", "get_autotune_interval", "set_numa_enable", "get_numa_enable",
    "set_auto_offload", "get_auto_offload", "set_enable_watchdog", "get_enable_watchdog",
    "set_multiprocessing_timeout_interval", "get_multiprocessing_timeout_interval", "set_debug_mode",
    "get_debug_mode", "set_error_samples_mode", "get_error_samples_mode", "ErrorSamplesMode",
    "set_sending_batches", "set_fast_recovery", "get_fast_recovery", "set_video_backend",
    "get_video_backend", "set_multiprocessing_start_method", "get_multiprocessing_start_method", "load",
]

UINT32_MAX = 4294967295
INT32_MAX = 2147483647
_DEFAULT_SEED = 5489  # what MindSpore reports before any seed is set (the Mersenne Twister default)

_own_seed = None          # the seed given to dataset.config.set_seed
_own_seed_generator = None  # cellkit.seed's generator at that moment: tells which seed came last
_seed_version = 0          # counts set_seed calls, so a repeated set_seed(n) restarts the streams
_settings = {
    "num_parallel_workers": 2, "prefetch_size": 16, "monitor_sampling_interval": 1000,
    "callback_timeout": 60, "enable_shared_mem": True, "auto_num_workers": False,
    "enable_autotune": False, "autotune_interval": 0, "numa_enable": False, "auto_offload": False,
    "enable_watchdog": True, "multiprocessing_timeout_interval": 300, "debug_mode": False,
    "fast_recovery": True, "video_backend": "CPU", "multiprocessing_start_method": "fork",
    "sending_batches": 0,
}


def _check_int(value, name, low, high, low_open=False):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} isn't of type int.")
    below = value <= low if low_open else value < low
    if below or value > high:
        left = "(" if low_open else "["
        raise ValueError(f"{name} given is not within the required range {left}{low}, {high}], but got {value}.")


def set_seed(seed):
    """Seed every shuffle, sampler and random transform of the pipelines (0 <= seed <= 2**32 - 1).

    >>> import cellkit.dataset as ds
    >>> ds.config.set_seed(0)
    """
    global _own_seed, _own_seed_generator, _seed_version
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError("seed isn't of type int.")
    if not 0 <= seed <= UINT32_MAX:
        raise ValueError(f"seed given is not within the required range [0, UINT32_MAX({UINT32_MAX})], "
                         f"but got {seed}.")
    _own_seed = int(seed)
    _own_seed_generator = _global_seed.generator()
    _seed_version += 1


def _current_seed():
    """The seed in force, or None when no seed was ever set (then every run draws fresh entropy)."""
    global_seed = _global_seed.get_seed()
    if _own_seed is not None and (_own_seed_generator is _global_seed.generator() or global_seed is None):
        return _own_seed
    # cellkit.set_seed was called after dataset.config.set_seed (it replaces the generator)
    return global_seed if global_seed is not None else _own_seed


def get_seed():
    """The seed in force (5489 when none was set, as MindSpore reports)."""
    current = _current_seed()
    return _DEFAULT_SEED if current is None else current


def set_num_parallel_workers(num):
    """Kept for compatibility: cellkit's pipelines run in one process."""
    _check_int(num, "Number of parallel workers", 0, INT32_MAX, low_open=True)
    _settings["num_parallel_workers"] = num


def get_num_parallel_workers():
    return _settings["num_parallel_workers"]


def set_prefetch_size(size):
    _check_int(size, "size", 0, INT32_MAX, low_open=True)
    _settings["prefetch_size"] = size


def get_prefetch_size():
    return _settings["prefetch_size"]


def _boolean_setting(name):
    def setter(value):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be of type bool, but got {type(value).__name__}.")
        _settings[name] = value

    def getter():
        return _settings[name]

    setter.__name__, getter.__name__ = f"set_{name}", f"get_{name}"
    setter.__doc__ = f"Record ``{name}`` (accepted for compatibility; one process needs none of it)."
    getter.__doc__ = f"The recorded ``{name}``."
    return setter, getter


def _int_setting(name, low=0, low_open=True):
    def setter(value):
        _check_int(value, name, low, INT32_MAX, low_open=low_open)
        _settings[name] = value

    def getter():
        return _settings[name]

    setter.__name__, getter.__name__ = f"set_{name}", f"get_{name}"
    setter.__doc__ = f"Record ``{name}`` (accepted for compatibility)."
    getter.__doc__ = f"The recorded ``{name}``."
    return setter, getter


set_enable_shared_mem, get_enable_shared_mem = _boolean_setting("enable_shared_mem")
set_auto_num_workers, get_auto_num_workers = _boolean_setting("auto_num_workers")
set_numa_enable, get_numa_enable = _boolean_setting("numa_enable")
set_auto_offload, get_auto_offload = _boolean_setting("auto_offload")
set_enable_watchdog, get_enable_watchdog = _boolean_setting("enable_watchdog")
set_debug_mode, get_debug_mode = _boolean_setting("debug_mode")
set_fast_recovery, get_fast_recovery = _boolean_setting("fast_recovery")
set_monitor_sampling_interval, get_monitor_sampling_interval = _int_setting("monitor_sampling_interval")
set_callback_timeout, get_callback_timeout = _int_setting("callback_timeout")
set_autotune_interval, get_autotune_interval = _int_setting("autotune_interval", low_open=False)
set_multiprocessing_timeout_interval, get_multiprocessing_timeout_interval = _int_setting(
    "multiprocessing_timeout_interval")


def set_enable_autotune(enable, filepath_prefix=None):
    """Record the autotune switch (accepted for compatibility)."""
    if not isinstance(enable, bool):
        raise TypeError(f"enable must be of type bool, but got {type(enable).__name__}.")
    _settings["enable_autotune"] = enable


def get_enable_autotune():
    return _settings["enable_autotune"]


def set_sending_batches(batch_num):
    _check_int(batch_num, "batch_num", 0, INT32_MAX, low_open=False)
    _settings["sending_batches"] = batch_num


class ErrorSamplesMode(enum.IntEnum):
    """What a pipeline does with a sample that fails: raise (the default), replace it, or skip it."""

    RETURN = 0
    REPLACE = 1
    SKIP = 2


_settings["error_samples_mode"] = ErrorSamplesMode.RETURN


def set_error_samples_mode(error_samples_mode):
    """Only ``ErrorSamplesMode.RETURN`` is carried out: a failing sample always raises in cellkit."""
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError("error_samples_mode must be of type ErrorSamplesMode, "
                        f"but got {type(error_samples_mode).__name__}.")
    _settings["error_samples_mode"] = error_samples_mode


def get_error_samples_mode():
    return _settings["error_samples_mode"]


def set_video_backend(backend):
    if backend not in ("CPU", "Ascend"):
        raise ValueError(f"backend must be 'CPU' or 'Ascend', but got {backend!r}.")
    _settings["video_backend"] = backend


def get_video_backend():
    return _settings["video_backend"]


def set_multiprocessing_start_method(start_method="fork"):
    if start_method not in ("fork", "spawn"):
        raise ValueError(f"start_method must be 'fork' or 'spawn', but got {start_method!r}.")
    _settings["multiprocessing_start_method"] = start_method


def get_multiprocessing_start_method():
    return _settings["multiprocessing_start_method"]


def load(file):
    """Read settings from a JSON file (keys as MindSpore's config file: ``seed``, ``numParallelWorkers`` ...).

    The file is parsed as JSON only; nothing in it is executed.
    """
    path = os.fspath(file)
    try:
        with open(path, encoding="utf-8") as handle:
            values = json.load(handle)
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"Failed to load the dataset config file {path}: {exc}") from None
    if not isinstance(values, dict):
        raise RuntimeError(f"The dataset config file {path} does not hold a JSON object")
    keys = {"numParallelWorkers": set_num_parallel_workers, "seed": set_seed,
            "monitorSamplingInterval": set_monitor_sampling_interval, "callbackTimeout": set_callback_timeout,
            "prefetchSize": set_prefetch_size}
    for key, setter in keys.items():
        if key in values:
            setter(values[key])
