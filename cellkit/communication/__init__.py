"""``mindspore.communication`` for one process: ``init()``, rank 0 of a group of 1, and its collectives.

Data-parallel tutorial code runs unchanged on one machine: after ``init()``, ``get_rank()`` is 0,
``get_group_size()`` is 1, and the collectives (``comm_func``, ``ops.AllReduce``, ``ops.all_reduce``)
return what one device holds.

>>> import cellkit as ms
>>> from cellkit.communication import init, get_rank, get_group_size
>>> init()
>>> get_rank(), get_group_size()
(0, 1)
"""
from . import comm_func  # noqa: F401
from .management import (GlobalComm, HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP,
                         create_group, destroy_group, get_comm_name, get_group_rank_from_world_rank, get_group_size,
                         get_local_rank, get_local_rank_size, get_process_group_ranks, get_rank,
                         get_world_rank_from_group_rank, init, release)

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "get_comm_name", "HCCL_WORLD_COMM_GROUP",
           "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "get_local_rank", "get_local_rank_size",
           "destroy_group", "get_process_group_ranks"]
