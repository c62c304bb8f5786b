"""``ms.set_auto_parallel_context`` and ``ms.ParallelMode``: how a program asks to be parallelised.

A cellkit program is one process (rank 0 of 1, see :mod:`cellkit.communication`), so every mode
computes what stand-alone computes: data parallelism over one device averages one gradient.
The settings are checked as MindSpore checks them and returned by ``get_auto_parallel_context``,
so tutorial code that sets and reads them runs unchanged.

>>> import cellkit as ms
>>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
>>> ms.get_auto_parallel_context("parallel_mode")
'data_parallel'
>>> ms.reset_auto_parallel_context()
>>> ms.get_auto_parallel_context("parallel_mode")
'stand_alone'
"""
from __future__ import annotations

import copy

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context"]


class ParallelMode:
    """The names of MindSpore's parallel modes."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = ["stand_alone", "data_parallel", "hybrid_parallel", "semi_auto_parallel", "auto_parallel"]


_DEFAULTS = {
    "parallel_mode": "stand_alone", "gradients_mean": False, "device_num": 1, "global_rank": 0,
    "gradient_fp32_sync": True, "loss_repeated_mean": True, "search_mode": "recursive_programming",
    "auto_parallel_search_mode": "recursive_programming", "parameter_broadcast": False, "full_batch": False,
    "dataset_strategy": "data_parallel", "enable_parallel_optimizer": False, "pipeline_stages": 1,
    "strategy_ckpt_load_file": "", "strategy_ckpt_save_file": "", "all_reduce_fusion_config": [],
    "comm_fusion": {"openstate": True, "allreduce": {"mode": "auto", "config": None},
                    "allgather": {"mode": "auto", "config": None},
                    "reducescatter": {"mode": "auto", "config": None}},
    "grad_accumulation_step": 1,
}
_BOOLS = {"gradients_mean", "gradient_fp32_sync", "loss_repeated_mean", "parameter_broadcast", "full_batch",
          "enable_parallel_optimizer"}
_POSITIVE_INTS = {"device_num", "pipeline_stages", "grad_accumulation_step"}
_settings = copy.deepcopy(_DEFAULTS)


def _check(key, value):
    if key not in _DEFAULTS:
        raise ValueError(f"For 'set_auto_parallel_context': Set context keyword {key!r} is not recognized!")
    if key == "parallel_mode":
        if value not in ParallelMode.MODE_LIST:
            raise ValueError("The context configuration parameter 'parallel_mode' only support 'stand_alone', "
                             "'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' and 'auto_parallel', "
                             f"but got the value : {value}.")
    elif key in _BOOLS:
        if not isinstance(value, bool):
            raise TypeError(f"The parameter '{key}' must be {bool}, but got {type(value)}")
    elif key in _POSITIVE_INTS:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"The context configuration parameter '{key}' must be a positive integer, but got "
                             f"the value of {key} : {value}.")
    elif key == "global_rank":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"The context configuration parameter 'global_rank' must be a non-negative integer, "
                             f"but got {value}.")


def set_auto_parallel_context(**kwargs):
    """Set parallel options (``parallel_mode``, ``gradients_mean``, ``device_num`` ...); unknown keys are refused."""
    for key, value in kwargs.items():
        _check(key, value)
    _settings.update(kwargs)


def get_auto_parallel_context(attr_key):
    """The value of one parallel option."""
    if not isinstance(attr_key, str):
        raise TypeError(f"For 'get_auto_parallel_context', 'attr_key' must be a str, but got {type(attr_key).__name__}")
    if attr_key not in _settings:
        raise ValueError(f"For 'get_auto_parallel_context', 'attr_key': Get context keyword {attr_key!r} is not "
                         "recognized!")
    return _settings[attr_key]


def reset_auto_parallel_context():
    """Put every parallel option back to its default."""
    _settings.clear()
    _settings.update(copy.deepcopy(_DEFAULTS))
