"""Shared fixtures: run op tests on every backend that can run here.

``backend`` is parametrized over NumPy and ``array_api_strict`` placed on a
non-CPU device (``device1``), which raises on any implicit host conversion or
device mix -- the same discipline CuPy enforces on a GPU.  When a CUDA device
works, CuPy joins the list under the ``gpu`` marker.
"""
import pytest
from hypothesis import settings

from cellkit import backend as _backend

# The same examples on every run: a property test that fails does so on every machine and every run,
# never as a one-off in CI.  (Loaded before the test modules build their own settings objects, which
# inherit it.)
settings.register_profile("cellkit", derandomize=True, deadline=None)
settings.load_profile("cellkit")


def _cupy_works():
    try:
        _backend._make_cupy()
        return True
    except _backend.BackendUnavailable:
        return False


BACKENDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("strict", id="strict-device1"),
    pytest.param("cupy", id="cupy", marks=[
        pytest.mark.gpu,
        pytest.mark.skipif(not _cupy_works(), reason="no working CUDA device for CuPy"),
    ]),
]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Run the test on one backend; yields the Backend object."""
    with _backend.use(request.param) as chosen:
        yield chosen
