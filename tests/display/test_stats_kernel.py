"""The one-pass GPU statistics: the kernel's combination, its use by summarize, and its fallback.

No GPU runs here, so a stand-in for CuPy plays the kernel in NumPy exactly as
the CUDA source describes it (per-block figures around a shift); the real
kernel runs in the ``gpu``-marked test on a machine with CUDA.
"""
import math
import types
import warnings

import numpy as np
import pytest

from cellkit.display import stats, stats_kernel


def play_kernel(x, shift, blocks, threads):
    """What the CUDA kernel writes: one row of eight figures per block (grid-stride ownership)."""
    table = np.zeros((blocks, 8))
    table[:, 6], table[:, 7] = math.inf, -math.inf
    owner = (np.arange(x.size) // threads) % blocks
    for b in range(blocks):
        v = x[owner == b].astype(np.float64)
        fin = v[np.isfinite(v)]
        d = fin - shift
        table[b, :6] = [np.isnan(v).sum(), (v == np.inf).sum(), (v == -np.inf).sum(), fin.size, d.sum(), (d * d).sum()]
        if fin.size:
            table[b, 6], table[b, 7] = fin.min(), fin.max()
    return table


class FakeDeviceArray(np.ndarray):
    """A NumPy array standing for a CuPy one (``.get()`` copies to the host)."""

    def get(self):
        return np.asarray(self)


def fake_cupy(fail=False):
    cp = types.SimpleNamespace()
    launches = []

    class RawModule:
        def __init__(self, code, options, name_expressions):
            if fail:
                raise RuntimeError("nvrtc: compilation failed")
            assert "cellkit_stats" in code and "cellkit_stats<float>" in name_expressions

        def get_function(self, name):
            def launch(grid, block, args):
                x, n, shift, table = args
                launches.append((grid, block, int(n)))
                table[...] = play_kernel(np.asarray(x), float(shift), grid[0], block[0])
            return launch

    cp.RawModule = RawModule
    cp.ascontiguousarray = lambda a: np.ascontiguousarray(a).view(FakeDeviceArray)
    cp.empty = lambda shape, dtype: np.empty(shape, dtype).view(FakeDeviceArray)
    cp.float64 = np.float64
    cp.launches = launches
    return cp


@pytest.fixture(autouse=True)
def fresh_kernel_cache():
    stats_kernel._modules.clear()
    stats._fused_unavailable.clear()
    yield
    stats_kernel._modules.clear()
    stats._fused_unavailable.clear()


def test_moments_read_the_array_once_and_match_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(100_000).astype(np.float32)
    x[[3, 500, 70_000]] = [np.nan, np.inf, -np.inf]
    cp = fake_cupy()
    figures = stats_kernel.moments(cp, x.view(FakeDeviceArray))
    assert len(cp.launches) == 1  # one kernel launch over the whole array
    (grid,), (threads,), n = cp.launches[0]
    assert n == x.size and threads == stats_kernel.THREADS and grid <= stats_kernel.MAX_BLOCKS
    finite = x[np.isfinite(x)].astype(np.float64)
    assert (figures["nan"], figures["posinf"], figures["neginf"], figures["finite"]) == (1, 1, 1, x.size - 3)
    assert figures["mean"] == pytest.approx(finite.mean(), rel=1e-12)
    assert figures["std"] == pytest.approx(finite.std(), rel=1e-9)
    assert (figures["min"], figures["max"]) == (finite.min(), finite.max())


def test_moments_keep_their_digits_when_the_mean_is_large():
    x = (1e8 + np.random.default_rng(1).standard_normal(50_000)).astype(np.float64)
    figures = stats_kernel.moments(fake_cupy(), x.view(FakeDeviceArray))
    assert figures["std"] == pytest.approx(x.std(), rel=1e-6)  # naive sum of squares would lose them all


def test_moments_with_no_finite_value_and_an_unknown_dtype():
    figures = stats_kernel.moments(fake_cupy(), np.array([np.nan, np.inf]).view(FakeDeviceArray))
    assert figures["finite"] == 0 and figures["mean"] is None
    assert stats_kernel.moments(fake_cupy(), np.array([1 + 2j]).view(FakeDeviceArray)) is None


def test_summarize_uses_the_kernel_for_device_arrays_and_agrees_with_the_portable_path(monkeypatch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(4_096).astype(np.float32)
    x[7] = np.nan
    portable = stats.summarize(x)
    cp = fake_cupy()
    device = x.view(FakeDeviceArray)
    assert stats._fused_moments(cp, device) is not None and len(cp.launches) == 1
    monkeypatch.setattr(stats, "namespace_of", lambda data: _numpy_with(cp))
    fused = stats.summarize(device)
    assert len(cp.launches) == 2
    assert (fused.nan, fused.finite, fused.min, fused.max) == (portable.nan, portable.finite, portable.min, portable.max)
    assert fused.mean == pytest.approx(portable.mean, rel=1e-6)
    assert fused.std == pytest.approx(portable.std, rel=1e-5)
    assert fused.hist == portable.hist


def test_summarize_falls_back_once_with_a_warning_when_the_kernel_cannot_build(monkeypatch):
    x = np.arange(10, dtype=np.float32)
    cp = fake_cupy(fail=True)
    monkeypatch.setattr(stats, "namespace_of", lambda data: _numpy_with(cp))
    device = x.view(FakeDeviceArray)
    with pytest.warns(RuntimeWarning, match="one-pass GPU statistics kernel failed"):
        first = stats.summarize(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = stats.summarize(device)  # no second warning: the failure is remembered
    assert first.mean == second.mean == 4.5 and first.hist == second.hist


def _numpy_with(cp):
    """NumPy's namespace plus the fake CuPy's RawModule (summarize computes the histogram with it)."""
    ns = types.SimpleNamespace(**{name: getattr(np, name) for name in dir(np) if not name.startswith("_")})
    ns.RawModule = cp.RawModule
    ns.ascontiguousarray, ns.empty = cp.ascontiguousarray, cp.empty
    ns.astype = lambda a, dtype: np.asarray(a).astype(dtype)
    ns.concat = np.concatenate
    return ns


@pytest.mark.gpu
def test_real_kernel_on_cupy_matches_numpy():
    cp = pytest.importorskip("cupy")
    try:
        cp.arange(1)
    except Exception:  # noqa: BLE001
        pytest.skip("no working CUDA device")
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64, np.float16, np.int32, np.uint8, np.bool_):
        host = (rng.standard_normal(300_001) * 5).astype(dtype)
        figures = stats_kernel.moments(cp, cp.asarray(host))
        ref = host.astype(np.float64)
        ref = ref[np.isfinite(ref)]
        assert figures["finite"] == ref.size
        assert figures["mean"] == pytest.approx(ref.mean(), rel=1e-6, abs=1e-9)
        assert figures["std"] == pytest.approx(ref.std(), rel=1e-5, abs=1e-9)
        assert (figures["min"], figures["max"]) == (ref.min(), ref.max())
