"""The array backend: CPU default, GPU fallback, explicit host transfers."""
import os
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import cellkit as ms
from cellkit import backend, context


@pytest.fixture
def restore_backend(monkeypatch):
    """Undo any backend switch and forget which fallback messages were shown."""
    monkeypatch.setattr(backend, "_reported", set())
    saved_backend = backend._current
    saved_settings = dict(context._settings)
    yield
    backend._current = saved_backend
    context._settings.clear()
    context._settings.update(saved_settings)


class CUDARuntimeError(RuntimeError):
    """Named like CuPy's error for a machine without a usable CUDA driver."""


def _broken_cupy():
    """A cupy module that imports fine but fails on first use, as on a machine without a GPU."""
    fake = types.ModuleType("cupy")

    def fail(*args, **kwargs):
        raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")

    fake.arange = fake.asarray = fake.zeros = fake.ones = fail
    fake.float32 = np.float32
    return fake


@pytest.mark.skipif(os.environ.get("CELLKIT_DEVICE", "").upper() in ("GPU", "CUDA"),
                    reason="CELLKIT_DEVICE asks for the GPU in this session")
def test_backend_default_is_numpy_on_cpu():
    assert backend.current().name == "numpy"
    assert backend.current().xp is np
    assert ms.get_context("device_target") == "CPU"
    assert isinstance(ms.Tensor([1.0])._data, np.ndarray)


def test_backend_select_cpu_gives_numpy(restore_backend):
    assert backend.select("CPU") is backend.NUMPY
    assert backend.select("cpu").name == "numpy"


def test_backend_select_gpu_with_broken_cupy_falls_back_with_one_warning(restore_backend, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _broken_cupy())
    with pytest.warns(RuntimeWarning, match="GPU requested but unavailable.*CUDARuntimeError") as record:
        chosen = backend.select("GPU")
    assert chosen.name == "numpy"
    assert len(record) == 1
    # Asking again says nothing new: the reason was already given.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert backend.select("GPU").name == "numpy"
    assert backend.current() is backend.NUMPY


def test_backend_select_gpu_without_cupy_falls_back_naming_import_error(restore_backend, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes ``import cupy`` raise ImportError
    with pytest.warns(RuntimeWarning, match="cupy cannot be imported"):
        assert backend.select("GPU").name == "numpy"


def test_backend_make_cupy_raises_backend_unavailable_on_broken_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _broken_cupy())
    with pytest.raises(backend.BackendUnavailable, match="no working CUDA device"):
        backend._make_cupy()


def test_backend_select_ascend_falls_back_with_warning(restore_backend):
    with pytest.warns(RuntimeWarning, match="Ascend"):
        assert backend.select("Ascend").name == "numpy"


def test_backend_select_unknown_target_raises_value_error(restore_backend):
    with pytest.raises(ValueError, match="'CPU', 'GPU', 'Ascend'.*'TPU'"):
        backend.select("TPU")


def test_backend_set_context_device_target_gpu_falls_back_to_cpu(restore_backend, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _broken_cupy())
    with pytest.warns(RuntimeWarning, match="GPU requested"):
        ms.set_context(device_target="GPU")
    assert ms.get_context("device_target") == "CPU"
    assert backend.current().name == "numpy"
    ms.set_context(device_target="CPU")
    assert ms.get_context("device_target") == "CPU"


def test_backend_set_context_rejects_bad_values(restore_backend):
    with pytest.raises(TypeError, match="device_target"):
        ms.set_context(device_target=1)
    with pytest.raises(ValueError, match="'TPU'"):
        ms.set_context(device_target="TPU")
    with pytest.raises(ValueError, match="mode"):
        ms.set_context(mode=5)


def test_backend_use_switches_and_restores():
    before = backend.current()
    with backend.use("strict") as chosen:
        assert backend.current() is chosen
        assert chosen.name == "array_api_strict"
        assert str(chosen.device) == "array_api_strict.Device('device1')"
    assert backend.current() is before


def test_backend_use_restores_after_an_error():
    before = backend.current()
    with pytest.raises(KeyError):
        with backend.use("strict"):
            raise KeyError("boom")
    assert backend.current() is before


def test_backend_use_unknown_name_raises_value_error():
    with pytest.raises(ValueError, match="'numpy', 'cupy' or 'strict'"):
        with backend.use("tpu"):
            pass


def test_backend_strict_device_transfers_are_explicit():
    import array_api_strict as xps

    with backend.use("strict") as b:
        t = ms.Tensor([1.0, 2.0])
        assert t._data.device == b.device
        # The strict device refuses hidden conversions ...
        with pytest.raises((RuntimeError, TypeError, ValueError)):
            np.asarray(t._data)
        # ... while the explicit boundary works.
        host = backend.to_host(t._data)
        assert isinstance(host, np.ndarray)
        np.testing.assert_array_equal(host, [1.0, 2.0])
        back = backend.from_host(np.array([3.0]))
        assert back.device == b.device
        assert isinstance(back, type(xps.asarray([0.0])))


def test_backend_numpy_transfers_are_no_ops():
    a = np.arange(3.0)
    assert backend.NUMPY.from_host(a) is a
    assert backend.NUMPY.to_host(a) is a


def test_backend_random_draws_are_reproducible_on_every_backend():
    rng1, rng2 = np.random.default_rng(3), np.random.default_rng(3)
    on_numpy = backend.NUMPY.random_normal(rng1, (2, 2), np.float32)
    with backend.use("strict") as b:
        on_strict = b.to_host(b.random_normal(rng2, (2, 2), b.xp.float32))
    np.testing.assert_array_equal(on_numpy, on_strict)
    assert on_numpy.dtype == np.float32


def _run_python(code, **env):
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=60)


def test_backend_env_cellkit_device_gpu_falls_back_in_subprocess():
    code = (
        "import sys, types\n"
        "class CUDARuntimeError(RuntimeError): pass\n"
        "fake = types.ModuleType('cupy')\n"
        "def fail(*a, **k): raise CUDARuntimeError('no CUDA driver')\n"
        "fake.arange = fake.asarray = fail\n"
        "fake.float32 = 'float32'\n"
        "sys.modules['cupy'] = fake\n"
        "import cellkit as ms\n"
        "print(ms.backend.current().name, ms.get_context('device_target'))\n"
        "print(ms.Tensor([1.0, 2.0]) * 2)\n"
    )
    result = _run_python(code, CELLKIT_DEVICE="GPU")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["numpy CPU", "[2. 4.]"]
    assert result.stderr.count("GPU requested but unavailable") == 1
    assert "CUDARuntimeError" in result.stderr


def test_backend_env_cellkit_device_gpu_uses_what_the_machine_has():
    result = _run_python("import cellkit as ms; print(ms.backend.current().name)", CELLKIT_DEVICE="GPU")
    assert result.returncode == 0, result.stderr
    name = result.stdout.strip()
    if name == "numpy":
        assert "GPU requested but unavailable" in result.stderr
    else:
        assert name == "cupy"


def test_backend_env_unset_starts_on_numpy_quietly():
    env = {k: v for k, v in os.environ.items() if k != "CELLKIT_DEVICE"}
    result = subprocess.run([sys.executable, "-W", "error", "-c",
                             "import cellkit as ms; print(ms.backend.current().name)"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "numpy"


def test_backend_scatter_add_rows_agrees_on_every_backend():
    rows = np.arange(8.0).reshape(4, 2)
    index = np.array([2, 0, 2, 1])
    expected = np.array([[2.0, 3.0], [6.0, 7.0], [4.0 + 0.0, 6.0 + 0.0]])
    expected[2] = rows[0] + rows[2]
    np.testing.assert_array_equal(backend.NUMPY.scatter_add_rows(rows, index, 3), expected)
    with backend.use("strict") as b:
        got = b.scatter_add_rows(b.from_host(rows), b.from_host(index), 3)
        assert got.device == b.device
        np.testing.assert_array_equal(b.to_host(got), expected)
