"""cellkit.buffer_cache: a buffer is handed out again only when nothing else refers to it."""
import threading

import numpy as np
import pytest

import cellkit as ms
from cellkit import buffer_cache, memory, nn

SHAPE = (256, 1024)  # 1 MiB of float32: above MIN_BYTES


@pytest.fixture(autouse=True)
def fresh_cache():
    buffer_cache.clear()
    yield
    buffer_cache.clear()


def test_buffer_cache_reuses_an_idle_buffer():
    a = buffer_cache.empty(SHAPE, np.float32)
    address = a.ctypes.data
    del a
    b = buffer_cache.empty(SHAPE, np.float32)
    assert b.ctypes.data == address
    assert buffer_cache.reserved_bytes() == b.nbytes


@pytest.mark.parametrize("holder", ["array", "view", "reshape", "tensor", "memoryview"])
def test_buffer_cache_never_hands_out_a_buffer_still_in_use(holder):
    a = buffer_cache.empty(SHAPE, np.float32)
    a.fill(7)
    kept = {"array": lambda: a, "view": lambda: a[3:, ::2], "reshape": lambda: a.reshape(-1),
            "tensor": lambda: ms.Tensor(a), "memoryview": lambda: memoryview(a)}[holder]()
    del a
    b = buffer_cache.empty(SHAPE, np.float32)
    b.fill(-1)
    values = kept.asnumpy() if isinstance(kept, ms.Tensor) else np.asarray(kept)
    assert (values == 7).all()


def test_buffer_cache_keys_on_shape_and_dtype():
    a = buffer_cache.empty(SHAPE, np.float32)
    address = a.ctypes.data
    del a
    assert buffer_cache.empty(SHAPE, np.float64).ctypes.data != address
    assert buffer_cache.empty((1024, 256), np.float32).ctypes.data != address


def test_buffer_cache_leaves_small_arrays_to_the_allocator():
    buffer_cache.empty((4, 4), np.float32)
    assert buffer_cache.reserved_bytes() == 0


def test_buffer_cache_keeps_at_most_max_per_shape():
    held = [buffer_cache.empty(SHAPE, np.float32) for _ in range(buffer_cache.MAX_PER_SHAPE + 3)]
    assert len({a.ctypes.data for a in held}) == len(held)  # all in use: all distinct
    assert buffer_cache.reserved_bytes() == buffer_cache.MAX_PER_SHAPE * held[0].nbytes


def test_buffer_cache_evicts_idle_buffers_of_the_least_recently_used_shape(monkeypatch):
    monkeypatch.setattr(buffer_cache, "MAX_BYTES", 3 * 1024 * 1024)
    first = buffer_cache.empty((256, 1024), np.float32)  # 1 MiB
    second = buffer_cache.empty((512, 512), np.float32)  # 1 MiB, still in use below
    del first
    third = buffer_cache.empty((128, 2048), np.float32)
    fourth = buffer_cache.empty((64, 4096), np.float32)  # no room: the idle first one goes
    assert buffer_cache.reserved_bytes() == 3 * 1024 * 1024
    assert ((256, 1024), np.dtype(np.float32)) not in buffer_cache._buffers
    assert second.nbytes == third.nbytes == fourth.nbytes


def test_buffer_cache_zeros_clears_a_reused_buffer():
    a = buffer_cache.empty(SHAPE, np.float32)
    a.fill(3)
    del a
    assert not buffer_cache.zeros(SHAPE, np.float32).any()


def test_buffer_cache_threads_never_share_a_buffer():
    seen, errors = [], []

    def worker(tag):
        for _ in range(200):
            a = buffer_cache.empty(SHAPE, np.float32)
            a.fill(tag)
            if not (a == tag).all():  # another thread wrote into our buffer
                errors.append(tag)
            seen.append(a.ctypes.data)
            del a

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(seen)) <= buffer_cache.MAX_PER_SHAPE + 4


def test_buffer_cache_is_bypassed_while_memory_profiles():
    net = nn.SequentialCell(nn.Conv2d(3, 8, 3), nn.ReLU())
    x = ms.Tensor(np.ones((8, 3, 32, 32), np.float32))
    net(x)  # warm the cache
    reserved = buffer_cache.reserved_bytes()
    report = memory.profile(ms.grad(lambda x: net(x).sum(), weights=net.trainable_params()), x, net=net)
    assert buffer_cache.reserved_bytes() == reserved  # nothing new taken from or given to the cache
    assert not buffer_cache.bypass
    assert report.peak_bytes > 0


def test_buffer_cache_clear_forgets_everything():
    buffer_cache.empty(SHAPE, np.float32)
    buffer_cache.clear()
    assert buffer_cache.reserved_bytes() == 0 and not buffer_cache._buffers


def test_runtime_reports_and_empties_the_cache_like_mindspore_runtime():
    held = buffer_cache.empty(SHAPE, np.float32)
    idle = buffer_cache.empty(SHAPE, np.float32)
    del idle
    assert ms.runtime.memory_reserved() == 2 * held.nbytes
    ms.runtime.empty_cache()
    assert ms.runtime.memory_reserved() == 0
    held.fill(1)  # still the caller's array
    assert buffer_cache.empty(SHAPE, np.float32).ctypes.data != held.ctypes.data
