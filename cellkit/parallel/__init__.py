"""``cellkit.parallel``: the part of ``mindspore.parallel`` that means something in one process.

MindSpore's ``parallel`` package cuts a network over many devices; cellkit runs in one process, so what it
keeps are the readers of a parallel run's files, to bring its checkpoints back into one process (the same
functions as at the top level): ``build_searched_strategy``, ``restore_group_info_list``,
``merge_sliced_parameter``, ``load_distributed_checkpoint`` and ``unified_safetensors``.

>>> import cellkit as ms
>>> from cellkit.parallel import load_distributed_checkpoint
>>> load_distributed_checkpoint is ms.load_distributed_checkpoint
True
"""
from ..serialization import (build_searched_strategy, load_distributed_checkpoint, merge_sliced_parameter,
                             restore_group_info_list, unified_safetensors)

__all__ = ["build_searched_strategy", "restore_group_info_list", "merge_sliced_parameter",
           "load_distributed_checkpoint", "unified_safetensors"]
