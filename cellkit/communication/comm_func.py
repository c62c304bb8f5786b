"""``mindspore.communication.comm_func``: collectives that return their result, over a group of one.

With one member every collective's result follows from its definition: a reduction or a gather
of one contribution is that contribution, a broadcast from rank 0 reaches rank 0 with what it
already has. Each result is a new Tensor (the input is left alone); under a gradient transform the
result is joined to its input by the identity, which is the gradient of each of these collectives
on a group of one. Point-to-point ``send``/``recv`` need a second process and are not provided.

>>> import cellkit as ms
>>> from cellkit.communication import comm_func
>>> out, handle = comm_func.all_reduce(ms.Tensor([1.0, 2.0]))
>>> print(out), handle
[1. 2.]
(None, None)
"""
from __future__ import annotations

from ..ops import communication as _comm
from ..ops._core import describe
from ..tensor import Tensor

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "reduce", "broadcast", "barrier",
           "gather_into_tensor", "scatter_tensor"]

_WORLD = "hccl_world_group"


def _check(tensor, group, op, reduce_op=None):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For '{op}', the input tensor must be a Tensor, but got {describe(tensor)}")
    if not isinstance(group, str):
        raise TypeError(f"For '{op}', 'group' must be a str, but got {describe(group)}")
    from .management import _group_arg

    _group_arg(group, op)
    if reduce_op is not None and (not isinstance(reduce_op, str) or reduce_op not in _comm._REDUCE_OPS):
        raise TypeError(f"For '{op}', 'op' must be one of {list(_comm._REDUCE_OPS)}, but got {describe(reduce_op)}")


def _own_rank(value, name, op):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {describe(value)}")
    if value != 0:
        raise ValueError(f"For '{op}', '{name}' must be 0: this single-process world has rank 0 only, but got "
                         f"{value}")


def _result(tensor):
    if tensor._node is not None:  # on a tape: the identity, so the gradient flows straight through
        return tensor + 0
    from ..ops._core import xp

    return Tensor._from_array(xp().asarray(tensor._data, copy=True))


def _async(async_op, op):
    if not isinstance(async_op, bool):
        raise TypeError(f"For '{op}', 'async_op' must be a bool, but got {describe(async_op)}")
    return _comm.CommHandle() if async_op else None


def all_reduce(tensor, op="sum", group=_WORLD, async_op=False):
    """``(reduced tensor, handle)``: the reduction of one contribution is that contribution."""
    _check(tensor, group, "all_reduce", op)
    return _result(tensor), _async(async_op, "all_reduce")


def all_gather_into_tensor(tensor, group=_WORLD, async_op=False):
    """``(gathered tensor, handle)``: the members' tensors joined along axis 0 -- here the one tensor."""
    _check(tensor, group, "all_gather_into_tensor")
    return _result(tensor), _async(async_op, "all_gather_into_tensor")


def reduce_scatter_tensor(tensor, op="sum", group=_WORLD, async_op=False):
    """``(this member's slice of the reduction, handle)``: with one member, the whole tensor."""
    _check(tensor, group, "reduce_scatter_tensor", op)
    return _result(tensor), _async(async_op, "reduce_scatter_tensor")


def reduce(tensor, dst, op="sum", group=_WORLD):
    """The reduction, delivered to rank ``dst`` (0)."""
    _check(tensor, group, "reduce", op)
    _own_rank(dst, "dst", "reduce")
    return _result(tensor)


def broadcast(tensor, src=0, group=_WORLD):
    """Rank ``src``'s tensor (0: this process's own)."""
    _check(tensor, group, "broadcast")
    _own_rank(src, "src", "broadcast")
    return _result(tensor)


def gather_into_tensor(tensor, dst=0, group=_WORLD):
    """Every member's tensor joined along axis 0 at rank ``dst`` (0): the one tensor."""
    _check(tensor, group, "gather_into_tensor")
    _own_rank(dst, "dst", "gather_into_tensor")
    return _result(tensor)


def scatter_tensor(tensor, src=0, group=_WORLD):
    """This member's share of rank ``src``'s tensor split along axis 0: all of it."""
    _check(tensor, group, "scatter_tensor")
    _own_rank(src, "src", "scatter_tensor")
    return _result(tensor)


def barrier(group=_WORLD):
    """Wait for every member of ``group``: with one, return at once."""
    if not isinstance(group, str):
        raise TypeError(f"For 'barrier', 'group' must be a str, but got {describe(group)}")
    from .management import _group_arg

    _group_arg(group, "barrier")
