"""``cellkit.mint.distributed``: the PyTorch-style collectives of a one-process world (rank 0 of 1)."""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit.mint import distributed as dist


def _t(values):
    return ms.Tensor(np.array(values, np.float32))


def test_world_of_one():
    dist.init_process_group()
    assert dist.is_available() and dist.is_initialized()
    assert dist.get_rank() == 0 and dist.get_world_size() == 1
    assert dist.get_global_rank("hccl_world_group", 0) == 0 and dist.get_group_rank("hccl_world_group", 0) == 0
    with pytest.raises(ValueError, match="world_size"):
        dist.init_process_group(world_size=2)
    with pytest.raises(ValueError, match="rank 0 only"):
        dist.get_global_rank("hccl_world_group", 1)


def test_collectives_mean_what_one_member_gives():
    x = _t([1.0, -2.0])
    assert dist.all_reduce(x, op="max") is None
    np.testing.assert_array_equal(x.asnumpy(), [1.0, -2.0])
    out = _t([0.0, 0.0])
    dist.reduce_scatter_tensor(out, x)
    np.testing.assert_array_equal(out.asnumpy(), [1.0, -2.0])
    gathered = [_t([0.0, 0.0])]
    handle = dist.gather(x, gathered, async_op=True)
    assert handle.wait() is None
    np.testing.assert_array_equal(gathered[0].asnumpy(), [1.0, -2.0])
    received = _t([9.0, 9.0])
    dist.scatter(received, [_t([3.0, 4.0])])
    np.testing.assert_array_equal(received.asnumpy(), [3.0, 4.0])
    outs = [_t([0.0, 0.0])]
    dist.all_to_all(outs, [x])
    np.testing.assert_array_equal(outs[0].asnumpy(), [1.0, -2.0])
    assert dist.broadcast(x, 0) is None and dist.reduce(x, 0) is None
    with pytest.raises(ValueError, match="shape"):
        dist.all_gather_into_tensor(_t([0.0]), x)
    with pytest.raises(ValueError, match="rank 0 only"):
        dist.broadcast(x, 1)


def test_object_collectives_and_groups():
    objects = [None]
    dist.all_gather_object(objects, {"epoch": 3})
    assert objects == [{"epoch": 3}]
    slot = [None]
    dist.scatter_object_list(slot, ["a"])
    assert slot == ["a"]
    name = dist.new_group([0])
    assert dist.get_world_size(name) == 1
    dist.destroy_process_group(name)
    with pytest.raises(ValueError, match="does not exist"):
        dist.get_rank(name)
