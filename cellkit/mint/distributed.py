"""``mindspore.mint.distributed``: PyTorch-style collectives answered by one process (rank 0 of a world of 1).

``init_process_group()`` starts the one-member world; collectives then mean what their definitions
give for one member: ``all_reduce`` leaves the tensor as it is, ``all_gather``/``gather`` put it in
the one slot of the output list, ``all_gather_into_tensor``/``reduce_scatter_tensor`` copy it into the
output, ``broadcast``/``scatter`` from rank 0 reach rank 0. Point-to-point ``send``/``recv`` need a
second process and are not provided. Groups are those of :mod:`cellkit.ops.communication`.

>>> import cellkit as ms
>>> from cellkit.mint import distributed as dist
>>> dist.init_process_group()
>>> dist.get_rank(), dist.get_world_size(), dist.is_initialized()
(0, 1, True)
>>> out = ms.Tensor([0.0, 0.0])
>>> dist.all_gather_into_tensor(out, ms.Tensor([1.0, 2.0]))
>>> print(out)
[1. 2.]
"""
from __future__ import annotations

import copy as _copy

from ..ops import communication as _comm
from ..ops.communication import all_gather, all_reduce, barrier, get_backend, get_process_group_ranks, new_group
from ..ops._core import describe
from ..tensor import Tensor

__all__ = ["init_process_group", "destroy_process_group", "get_rank", "get_world_size", "new_group", "get_backend",
           "get_global_rank", "get_process_group_ranks", "get_group_rank", "all_reduce", "all_gather",
           "all_gather_into_tensor", "reduce_scatter_tensor", "reduce_scatter", "broadcast", "reduce", "gather",
           "scatter", "barrier", "all_to_all", "all_to_all_single", "all_gather_object", "broadcast_object_list",
           "gather_object", "scatter_object_list", "is_available", "is_initialized"]

_state = {"initialized": False}


def is_available():
    """Whether collectives can be used: always (one process)."""
    return True


def is_initialized():
    """Whether :func:`init_process_group` has been called (and not undone)."""
    return _state["initialized"]


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Start the world: this process, rank 0 of 1. ``world_size`` and ``rank`` may only say so."""
    if not isinstance(backend, str) or backend not in ("hccl", "nccl", "mccl"):
        raise ValueError(f"For 'init_process_group', 'backend' must be 'hccl', 'nccl' or 'mccl', but got {backend!r}")
    if world_size not in (-1, 1):
        raise ValueError(f"For 'init_process_group', 'world_size' must be 1 (or -1): cellkit runs one process, but "
                         f"got {world_size!r}")
    if rank not in (-1, 0):
        raise ValueError(f"For 'init_process_group', 'rank' must be 0 (or -1) in a one-process world, but got "
                         f"{rank!r}")
    _state["initialized"] = True


def destroy_process_group(group=None):
    """Forget ``group`` (or, with None, the whole world and every group)."""
    if group is None:
        for name in [n for n in _comm._groups if n != _comm.WORLD_GROUP]:
            del _comm._groups[name]
        _state["initialized"] = False
        return
    _comm._group(group, "destroy_process_group")
    if group != _comm.WORLD_GROUP:
        del _comm._groups[group]


def get_rank(group=None):
    """This process's rank in ``group``: 0."""
    return _comm.get_rank(group)


def get_world_size(group=None):
    """How many processes ``group`` holds: 1."""
    return len(_comm.get_process_group_ranks(group))


def _rank(value, name, op):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(value)}")
    if value != 0:
        raise ValueError(f"For '{op}', '{name}' must be 0: this one-process world has rank 0 only, but got {value}")
    return 0


def get_global_rank(group, group_rank):
    """The world rank of ``group``'s member ``group_rank`` (0 -> 0)."""
    _comm._group(group, "get_global_rank")
    return _rank(group_rank, "group_rank", "get_global_rank")


def get_group_rank(group, global_rank):
    """The rank in ``group`` of world rank ``global_rank`` (0 -> 0)."""
    _comm._group(group, "get_group_rank")
    return _rank(global_rank, "global_rank", "get_group_rank")


def _copy_into(target, source, op, target_name="output", source_name="input"):
    from ..ops.inplace import copy_

    for name, value in ((target_name, target), (source_name, source)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {describe(value)}")
    if tuple(target.shape) != tuple(source.shape):
        raise ValueError(f"For '{op}', '{target_name}' must have the shape of '{source_name}' in a world of one "
                         f"({tuple(source.shape)}), but got {tuple(target.shape)}")
    copy_(target, source)


def _finish(group, async_op, op):
    _comm._group(group, op)
    return _comm._async(async_op, op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every member's ``input_tensor`` joined along axis 0 into ``output_tensor``: here a copy."""
    _copy_into(output_tensor, input_tensor, "all_gather_into_tensor", "output_tensor", "input_tensor")
    return _finish(group, async_op, "all_gather_into_tensor")


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """This member's slice of the reduction of every member's ``input``: here ``input`` itself."""
    if not isinstance(op, str) or op not in _comm._REDUCE_OPS:
        raise TypeError(f"For 'reduce_scatter_tensor', 'op' must be one of {list(_comm._REDUCE_OPS)}, but got "
                        f"{describe(op)}")
    _copy_into(output, input, "reduce_scatter_tensor")
    return _finish(group, async_op, "reduce_scatter_tensor")


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """``input_list[0]`` reduced over the members into ``output``: here a copy of it."""
    if not isinstance(input_list, list) or len(input_list) != 1:
        raise TypeError(f"For 'reduce_scatter', 'input_list' must be a list of one Tensor per member (1), but got "
                        f"{describe(input_list)}")
    return reduce_scatter_tensor(output, input_list[0], op, group, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Rank ``src``'s tensor sent to every member: rank 0 already holds it."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'broadcast', 'tensor' must be a Tensor, but got {describe(tensor)}")
    _rank(src, "src", "broadcast")
    return _finish(group, async_op, "broadcast")


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """The reduction over the members delivered to ``dst`` (0): the tensor as it is."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'reduce', 'tensor' must be a Tensor, but got {describe(tensor)}")
    if not isinstance(op, str) or op not in _comm._REDUCE_OPS:
        raise TypeError(f"For 'reduce', 'op' must be one of {list(_comm._REDUCE_OPS)}, but got {describe(op)}")
    _rank(dst, "dst", "reduce")
    return _finish(group, async_op, "reduce")


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """Every member's tensor collected into ``gather_list`` at ``dst`` (0): one slot, filled with ``tensor``."""
    _rank(dst, "dst", "gather")
    if not isinstance(gather_list, list) or len(gather_list) != 1:
        raise TypeError(f"For 'gather', 'gather_list' must be a list of one Tensor per member (1), but got "
                        f"{describe(gather_list)}")
    _copy_into(gather_list[0], tensor, "gather", "gather_list[0]", "tensor")
    return _finish(group, async_op, "gather")


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """``scatter_list[i]`` sent to member ``i``: ``tensor`` receives ``scatter_list[0]``."""
    _rank(src, "src", "scatter")
    if not isinstance(scatter_list, list) or len(scatter_list) != 1:
        raise TypeError(f"For 'scatter', 'scatter_list' must be a list of one Tensor per member (1), but got "
                        f"{describe(scatter_list)}")
    _copy_into(tensor, scatter_list[0], "scatter", "tensor", "scatter_list[0]")
    return _finish(group, async_op, "scatter")


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Member ``i`` sends ``input_tensor_list[j]`` to member ``j``: with one member, a copy of slot 0."""
    for name, value in (("output_tensor_list", output_tensor_list), ("input_tensor_list", input_tensor_list)):
        if not isinstance(value, list) or len(value) != 1:
            raise TypeError(f"For 'all_to_all', '{name}' must be a list of one Tensor per member (1), but got "
                            f"{describe(value)}")
    _copy_into(output_tensor_list[0], input_tensor_list[0], "all_to_all", "output_tensor_list[0]",
               "input_tensor_list[0]")
    return _finish(group, async_op, "all_to_all")


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """:func:`all_to_all` on one Tensor split along axis 0: with one member, a copy."""
    _copy_into(output, input, "all_to_all_single")
    return _finish(group, async_op, "all_to_all_single")


def all_gather_object(object_list, obj, group=None):
    """Every member's picklable ``obj`` gathered into ``object_list`` (one slot here)."""
    if not isinstance(object_list, list) or len(object_list) != 1:
        raise TypeError(f"For 'all_gather_object', 'object_list' must be a list with one slot per member (1), but "
                        f"got {describe(object_list)}")
    _comm._group(group, "all_gather_object")
    object_list[0] = _copy.deepcopy(obj)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Rank ``src``'s objects sent to every member: rank 0 already holds them."""
    _rank(src, "src", "broadcast_object_list")
    if not isinstance(object_list, list):
        raise TypeError(f"For 'broadcast_object_list', 'object_list' must be a list, but got {describe(object_list)}")
    _comm._group(group, "broadcast_object_list")


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Every member's object collected into ``object_gather_list`` at ``dst`` (0)."""
    _rank(dst, "dst", "gather_object")
    if not isinstance(object_gather_list, list) or len(object_gather_list) != 1:
        raise TypeError(f"For 'gather_object', 'object_gather_list' must be a list with one slot per member (1), "
                        f"but got {describe(object_gather_list)}")
    _comm._group(group, "gather_object")
    object_gather_list[0] = _copy.deepcopy(obj)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """``scatter_object_input_list[i]`` sent to member ``i``: slot 0 of the output receives entry 0."""
    _rank(src, "src", "scatter_object_list")
    for name, value in (("scatter_object_output_list", scatter_object_output_list),
                        ("scatter_object_input_list", scatter_object_input_list)):
        if not isinstance(value, list) or len(value) < 1:
            raise TypeError(f"For 'scatter_object_list', '{name}' must be a non-empty list, but got {describe(value)}")
    _comm._group(group, "scatter_object_list")
    scatter_object_output_list[0] = _copy.deepcopy(scatter_object_input_list[0])
