"""Collective communication answered by one process: rank 0 of a group of 1.

cellkit runs in one Python process, which is rank 0 of the world group (named ``'hccl_world_group'``
as in MindSpore) and of every group it creates; each group has that one member.  What a collective
means then follows from its definition:

- ``all_reduce`` of one contribution is that contribution (``'avg'`` divides by the group size, 1): the
  tensor is left as it is;
- ``all_gather`` puts the one tensor into the one-slot ``tensor_list``;
- ``barrier`` has nobody to wait for;
- ``send`` and ``recv`` are not provided: point-to-point messages need a second process (MindSpore refuses
  a send to one's own rank, and a receive would wait forever), so they cannot mean anything here.

With ``async_op=True`` the ops return a :class:`CommHandle` whose ``wait()`` returns at once.

>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor([1.0, 2.0])
>>> ops.all_reduce(x) is None, ops.get_rank(), ops.get_process_group_ranks()
(True, 0, [0])
"""
from __future__ import annotations

from ..tensor import Tensor
from ._core import describe, tensor_arg
from .primitive import Primitive, prim_attr_register

__all__ = ["all_gather", "all_reduce", "barrier", "new_group", "get_rank",
           "get_process_group_ranks", "get_backend", "AllReduce"]

WORLD_GROUP = "hccl_world_group"
BACKEND = "hccl"
_groups = {WORLD_GROUP: [0]}
_REDUCE_OPS = ("sum", "prod", "max", "min", "avg")


class CommHandle:
    """The handle of an asynchronous collective: in one process the work is done when the call returns."""

    def wait(self):
        return None

    def is_completed(self):
        return True


def _group(group, op):
    if group is None:
        return WORLD_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For '{op}', 'group' must be a str, but got {describe(group)}")
    if group not in _groups:
        raise ValueError(f"For '{op}', the group {group!r} does not exist (create it with new_group); known groups: "
                         f"{sorted(_groups)}")
    return group


def _async(async_op, op):
    if not isinstance(async_op, bool):
        raise TypeError(f"For '{op}', 'async_op' must be a bool, but got {describe(async_op)}")
    return CommHandle() if async_op else None


def _tensor(value, name, op):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {describe(value)}")
    return tensor_arg(value, name, op)


def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduce ``tensor`` across the group, in place: with one member the tensor already is the result.

    Returns None (a :class:`CommHandle` with ``async_op=True``).

    >>> import cellkit as ms
    >>> x = ms.Tensor([1.0, 2.0])
    >>> all_reduce(x, op="avg")
    >>> print(x)
    [1. 2.]
    """
    name = "all_reduce"
    _tensor(tensor, "tensor", name)
    if not isinstance(op, str) or op not in _REDUCE_OPS:
        raise TypeError(f"For '{name}', 'op' must be one of {list(_REDUCE_OPS)}, but got {describe(op)}")
    _group(group, name)
    return _async(async_op, name)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather ``tensor`` from every member into ``tensor_list`` (one slot per member: here one).

    ``tensor_list[0]`` is given ``tensor``'s values in place; returns None (or a :class:`CommHandle`).

    >>> import cellkit as ms
    >>> out = [ms.Tensor([0.0, 0.0])]
    >>> all_gather(out, ms.Tensor([1.0, 2.0]))
    >>> print(out[0])
    [1. 2.]
    """
    name = "all_gather"
    t = _tensor(tensor, "tensor", name)
    g = _group(group, name)
    if not isinstance(tensor_list, list) or not all(isinstance(v, Tensor) for v in tensor_list):
        raise TypeError(f"For '{name}', 'tensor_list' must be a list of Tensors, but got {describe(tensor_list)}")
    if len(tensor_list) != len(_groups[g]):
        raise TypeError(f"For '{name}', 'tensor_list' must hold one Tensor per member of the group "
                        f"({len(_groups[g])}), but got {len(tensor_list)}")
    target = tensor_list[0]
    if tuple(target.shape) != tuple(t.shape) or target.dtype is not t.dtype:
        raise TypeError(f"For '{name}', the members of 'tensor_list' must have 'tensor''s shape {tuple(t.shape)} "
                        f"and dtype {t.dtype}, but got {tuple(target.shape)} and {target.dtype}")
    from .inplace import copy_
    copy_(target, t)
    return _async(async_op, name)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every member of the group arrives: with one member, return at once (None)."""
    _group(group, "barrier")
    return _async(async_op, "barrier")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """Create a group of the given ``ranks`` (only rank 0 exists) and return its name.

    >>> new_group([0])
    'group_0'
    """
    op = "new_group"
    if ranks is None:
        return WORLD_GROUP
    if not isinstance(ranks, (list, tuple)) or not all(isinstance(r, int) and not isinstance(r, bool)
                                                       for r in ranks):
        raise TypeError(f"For '{op}', 'ranks' must be a list of ints, but got {describe(ranks)}")
    if list(ranks) != [0]:
        raise ValueError(f"For '{op}', 'ranks' must be [0]: this single-process program has only rank 0, but got "
                         f"{list(ranks)}")
    if group_desc is not None and not isinstance(group_desc, str):
        raise TypeError(f"For '{op}', 'group_desc' must be a str, but got {describe(group_desc)}")
    if backend is not None and backend not in ("hccl", "mccl", "nccl"):
        raise ValueError(f"For '{op}', 'backend' must be 'hccl', 'mccl' or 'nccl', but got {backend!r}")
    name = group_desc or "group_0"
    _groups[name] = [0]
    return name


def get_rank(group=None):
    """This process's rank in ``group``: 0."""
    _group(group, "get_rank")
    return 0


def get_process_group_ranks(group=None):
    """The ranks of ``group``'s members: ``[0]``."""
    return list(_groups[_group(group, "get_process_group_ranks")])


def get_backend(group=None):
    """The communication backend's name (``'hccl'``, MindSpore's default)."""
    _group(group, "get_backend")
    return BACKEND


class AllReduce(Primitive):
    """``AllReduce(op='sum', group='hccl_world_group')(x)``: the reduction over a group of one, ``x``'s values.

    >>> import cellkit as ms
    >>> print(AllReduce()(ms.Tensor([1.0, 2.0])))
    [1. 2.]
    """

    @prim_attr_register
    def __init__(self, op="sum", group=WORLD_GROUP):
        if not isinstance(op, str) or op not in _REDUCE_OPS:
            raise TypeError(f"For 'AllReduce', 'op' must be one of {list(_REDUCE_OPS)}, but got {describe(op)}")
        _group(group, "AllReduce")

    def __call__(self, x):
        t = _tensor(x, "x", "AllReduce")
        return Tensor._from_array(t._data) if t._node is None else t


TENSOR_METHODS = {}
