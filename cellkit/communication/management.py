"""Process groups of ``mindspore.communication`` answered by one process: rank 0 of a world of 1.

``init()`` starts the (one-member) world; ``get_rank()`` is 0 and ``get_group_size()`` is 1, so
data-parallel code -- a dataset sharded with ``num_shards=get_group_size(), shard_id=get_rank()``,
gradients averaged over the group -- runs unchanged and computes what one device computes.
Groups made with :func:`create_group` hold rank 0 only; they are the groups the collectives in
:mod:`cellkit.ops` and :mod:`cellkit.communication.comm_func` accept.

>>> from cellkit.communication import init, get_rank, get_group_size, GlobalComm
>>> init()
>>> get_rank(), get_group_size(), GlobalComm.INITED
(0, 1, True)
"""
from __future__ import annotations

from ..ops import communication as _comm

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size",
           "get_world_rank_from_group_rank", "get_group_rank_from_world_rank", "create_group", "destroy_group",
           "get_comm_name", "get_process_group_ranks", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_WORLD_GROUPS = {"hccl": HCCL_WORLD_COMM_GROUP, "nccl": NCCL_WORLD_COMM_GROUP, "mccl": MCCL_WORLD_COMM_GROUP}


class GlobalComm:
    """The world's settings: ``BACKEND``, ``WORLD_COMM_GROUP``, ``INITED`` (set by :func:`init`)."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


def _world_names():
    return set(_WORLD_GROUPS.values())


def _group_arg(group, op):
    if not isinstance(group, str):
        raise TypeError(f"For '{op}', the argument 'group' must be type of string, but got 'group' type : "
                        f"{type(group)}.")
    if group in _world_names():
        return [0]
    if group not in _comm._groups:
        raise ValueError(f"For '{op}', the group {group!r} does not exist: create it with create_group first")
    return _comm._groups[group]


def _require_init(op):
    if not GlobalComm.INITED:
        raise RuntimeError("Distributed Communication has not been inited.You can't invoke this interface yet. "
                           f"Please call `init()` method first. (in '{op}')")


def init(backend_name=None):
    """Start the world: this process is rank 0 of 1. ``backend_name``: ``'hccl'``, ``'nccl'`` or ``'mccl'``."""
    if backend_name is not None and not isinstance(backend_name, str):
        raise TypeError(f"For 'init', the argument 'backend_name' must be a string, but got the type : "
                        f"{type(backend_name)}")
    if backend_name is not None and backend_name not in _WORLD_GROUPS:
        raise RuntimeError(f"For 'init', the argument 'backend_name' must be one of 'hccl', 'nccl' and 'mccl', "
                           f"but got 'backend_name' : {backend_name}")
    if backend_name is None:
        from ..context import get_context

        backend_name = {"GPU": "nccl", "CPU": "mccl"}.get(get_context("device_target"), "hccl")
    GlobalComm.BACKEND = backend_name
    GlobalComm.WORLD_COMM_GROUP = _WORLD_GROUPS[backend_name]
    GlobalComm.INITED = True
    _comm._groups.setdefault(GlobalComm.WORLD_COMM_GROUP, [0])


def release():
    """Stop the world started by :func:`init` (the groups created since are forgotten)."""
    _require_init("release")
    for name in [n for n in _comm._groups if n != _comm.WORLD_GROUP]:
        del _comm._groups[name]
    GlobalComm.INITED = False


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in ``group``: 0."""
    _group_arg(group, "get_rank")
    return 0


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank on its machine: 0."""
    _group_arg(group, "get_local_rank")
    return 0


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """How many processes ``group`` holds: 1."""
    return len(_group_arg(group, "get_group_size"))


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """How many of ``group``'s processes run on this machine: 1."""
    return len(_group_arg(group, "get_local_rank_size"))


def _rank_arg(value, name, op):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{op}', the argument '{name}' must be type of int, but got '{name}' type : "
                        f"{type(value)}.")
    if value != 0:
        raise ValueError(f"For '{op}', '{name}' must be 0: this single-process world has rank 0 only, but got "
                         f"{value}")
    return value


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of ``group``'s member ``group_rank_id`` (0 -> 0)."""
    _require_init("get_world_rank_from_group_rank")
    _group_arg(group, "get_world_rank_from_group_rank")
    return _rank_arg(group_rank_id, "group_rank_id", "get_world_rank_from_group_rank")


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in ``group`` of world rank ``world_rank_id`` (0 -> 0)."""
    _require_init("get_group_rank_from_world_rank")
    _group_arg(group, "get_group_rank_from_world_rank")
    return _rank_arg(world_rank_id, "world_rank_id", "get_group_rank_from_world_rank")


def create_group(group, rank_ids, options=None):
    """Create the group ``group`` of ``rank_ids`` (which can only be ``[0]`` here).

    >>> from cellkit.communication import init, create_group, get_group_size, destroy_group
    >>> init()
    >>> create_group("pair", [0])
    >>> get_group_size("pair")
    1
    >>> destroy_group("pair")
    """
    op = "create_group"
    _require_init(op)
    if not isinstance(group, str):
        raise TypeError(f"For '{op}', the argument 'group' must be type of string, but got 'group' type : "
                        f"{type(group)}.")
    if group in _world_names():
        raise ValueError(f"For '{op}', the group name cannot be a world group name ({group!r})")
    if not isinstance(rank_ids, list) or not all(isinstance(r, int) and not isinstance(r, bool)
                                                 for r in rank_ids):
        raise TypeError(f"For '{op}', the argument 'rank_ids' must be a list of int, but got {rank_ids!r}")
    if rank_ids != [0]:
        raise ValueError(f"For '{op}', 'rank_ids' must be [0]: this single-process world has rank 0 only, "
                         f"but got {rank_ids}")
    if group in _comm._groups:
        raise ValueError(f"For '{op}', the group {group!r} already exists")
    _comm._groups[group] = [0]


def destroy_group(group):
    """Forget a group made by :func:`create_group`."""
    op = "destroy_group"
    _require_init(op)
    if not isinstance(group, str):
        raise TypeError(f"For '{op}', the argument 'group' must be type of string, but got 'group' type : "
                        f"{type(group)}.")
    if group in _world_names() or group == _comm.WORLD_GROUP:
        raise ValueError(f"For '{op}', the world group {group!r} cannot be destroyed")
    if group not in _comm._groups:
        raise ValueError(f"For '{op}', the group {group!r} does not exist")
    del _comm._groups[group]


def get_comm_name(group=GlobalComm.WORLD_COMM_GROUP):
    """The name the communication library knows ``group`` by (the group's own name here)."""
    _require_init("get_comm_name")
    _group_arg(group, "get_comm_name")
    return group


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks of ``group``'s members: ``[0]``."""
    return list(_group_arg(group, "get_process_group_ranks"))
