"""MindSpore's context parameters: their names, their enum numbers and their values on a CPU machine.

MindSpore keeps its settings in a C++ object (``MSContext``) indexed by the
enum ``ms_ctx_param``; ``set_context``/``get_context`` are a Python layer over
it.  cellkit keeps the same settings in a dict (:mod:`cellkit.context`) and
uses this table for two things:

* ``get_context(name)`` answers every name MindSpore answers, with MindSpore's
  value until ``set_context`` changes it (a script that reads
  ``get_context("max_call_depth")`` works unchanged);
* :class:`cellkit.amp.MSContext` (``MSContext.get_instance().get_param(ms_ctx_param.mode)``)
  speaks the enum, numbers included.

The defaults were read from MindSpore 2.10 on CPU (``tools/record_mindspore.py
context_params``); the number of runtime threads is the machine's core count,
as in MindSpore, capped at its limit of 30.

>>> from cellkit.context_params import ms_ctx_param, DEFAULTS
>>> int(ms_ctx_param.mode), DEFAULTS["max_call_depth"]
(41, 1000)
"""
from __future__ import annotations

import enum
import os

__all__ = ["ms_ctx_param", "DEFAULTS"]

# (name, MindSpore's enum number, MindSpore's value on CPU before any set_context), in MindSpore's order
_TABLE = (
    ('check_bprop', 0, False),
    ('enable_graph_kernel', 3, False),
    ('enable_reduce_precision', 8, True),
    ('enable_profiling', 13, False),
    ('save_graphs', 43, 0),
    ('enable_parallel_split', 15, False),
    ('max_device_memory', 59, 1024.0),
    ('mempool_block_size', 60, 1.0),
    ('mode', 41, 1),
    ('device_target', 61, 'CPU'),
    ('inter_op_parallel_num', 54, 0),
    ('runtime_num_threads', 53, 2),
    ('_graph_memory_max_size', 62, '0'),
    ('print_file_path', 63, ''),
    ('profiling_options', 64, 'training_trace'),
    ('deterministic', 75, 'OFF'),
    ('precision_mode', 76, ''),
    ('jit_compile', 77, ''),
    ('atomic_clean_policy', 78, ''),
    ('matmul_allow_hf32', 79, ''),
    ('conv_allow_hf32', 80, ''),
    ('op_precision_mode', 81, ''),
    ('ge_options', 82, ''),
    ('save_graphs_path', 65, '.'),
    ('enable_compile_cache', 50, -1),
    ('compile_cache_path', 66, ''),
    ('variable_memory_max_size', 67, '0'),
    ('device_id', 52, 0),
    ('aoe_tune_mode', 71, ''),
    ('aoe_job_type', 72, '2'),
    ('max_call_depth', 56, 1000),
    ('env_config_path', 70, ''),
    ('graph_kernel_flags', 73, ''),
    ('pynative_synchronize', 17, False),
    ('disable_format_transform', 21, False),
    ('memory_optimize_level', 42, 0),
    ('op_timeout', 58, 900),
    ('jit_syntax_level', 44, 2),
    ('conv_fprop_algo', 83, 'normal'),
    ('conv_dgrad_algo', 84, 'normal'),
    ('conv_wgrad_algo', 85, 'normal'),
    ('conv_allow_tf32', 29, True),
    ('recompute_comm_overlap', 94, ''),
    ('matmul_grad_comm_overlap', 95, ''),
    ('pp_1f1b_overlap', 93, ''),
    ('recompute_allgather_overlap_fagrad', 22, False),
    ('matmul_allow_tf32', 30, False),
    ('jit_level', 87, ''),
    ('infer_boost', 88, 'off'),
    ('enable_task_opt', 23, False),
    ('enable_grad_comm_opt', 24, False),
    ('enable_opt_shard_comm_opt', 25, False),
    ('compute_communicate_fusion_level', 48, 0),
    ('dataset_broadcast_opt_level', 49, 0),
    ('debug_level', 51, 0),
    ('interleaved_matmul_comm', 26, False),
    ('interleaved_layernorm_comm', 27, False),
    ('bias_add_comm_swap', 28, False),
    ('enable_begin_end_inline_opt', 32, False),
    ('enable_concat_eliminate_opt', 33, False),
    ('enable_fused_cast_add_opt', 38, False),
    ('host_scheduling_max_threshold', 89, ''),
    ('topo_order', 90, ''),
    ('exec_order', 91, 'bfs'),
    ('cur_step_num', 45, 0),
    ('need_ckpt', 39, False),
    ('save_checkpoint_steps', 46, 0),
    ('last_triggered_step', 47, 0),
    ('hccl_watchdog', 31, True),
    ('enable_flash_attention_load_balance', 34, False),
    ('enable_allreduce_slice_to_reducescatter', 35, False),
    ('enable_interleave_split_concat_branch', 36, False),
    ('enable_interleave_parallel_branch', 37, False),
    ('enable_offloading_packed_experts', 40, True),
    ('op_debug_option', 92, ''),
)


class _ParamEnum(enum.IntEnum):
    """Members compare equal to their numbers, as pybind11's enums do, and print as ``ms_ctx_param.mode``."""

    def __str__(self):
        return f"ms_ctx_param.{self.name}"


ms_ctx_param = _ParamEnum("ms_ctx_param", [(name, number) for name, number, _ in _TABLE], module=__name__)
ms_ctx_param.__doc__ = "The names of MindSpore's context parameters (``MSContext.get_param(ms_ctx_param.mode)``)."

DEFAULTS = {name: value for name, _, value in _TABLE}
DEFAULTS["runtime_num_threads"] = min(os.cpu_count() or 1, 30)
