"""The array backend: which array library computes, and on which device.

cellkit keeps every tensor's values in an array of one *array namespace*
(``xp``): NumPy on the CPU, CuPy on an NVIDIA GPU, or -- in the test suite --
``array_api_strict`` placed on a pretend non-CPU device.  Everything that
computes asks this module for ``xp``; nothing else in cellkit imports cupy.

Host and device meet only at explicit boundaries: :func:`to_host` (used by
``Tensor.asnumpy``, printing and saving) and :func:`from_host`.  CuPy refuses
implicit conversions, and so does ``array_api_strict`` on ``device1``, which
is how the suite proves the ops never convert behind the user's back.

>>> from cellkit import backend
>>> backend.current().name
'numpy'
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings

import numpy as np

from . import seed as _seed

__all__ = ["Backend", "current", "use", "select", "to_host", "from_host", "BackendUnavailable"]


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run on this machine."""


class Backend:
    """One array namespace plus the device its arrays live on.

    Parameters
    ----------
    name : str
        ``'numpy'``, ``'cupy'`` or ``'array_api_strict'``.
    xp : module
        The namespace whose functions compute (``numpy``, ``cupy`` ...).
    device : object or None
        Where new arrays are placed; ``None`` means the namespace default.
    """

    __slots__ = ("name", "xp", "device", "is_numpy", "_host")

    def __init__(self, name, xp, device=None):
        self.name = name
        self.xp = xp
        self.device = device
        # NumPy arrays already live on the host: many conversions become no-ops.
        self.is_numpy = xp is np
        self._host = None

    def __repr__(self):
        where = "" if self.device is None else f", device={self.device!r}"
        return f"Backend({self.name!r}{where})"

    # -- creating arrays -------------------------------------------------
    def asarray(self, obj, dtype=None):
        """Put ``obj`` (nested lists, scalars, host arrays) on this backend."""
        if self.is_numpy:
            return np.asarray(obj, dtype=dtype)
        if isinstance(obj, np.ndarray) or np.isscalar(obj) or isinstance(obj, (list, tuple)):
            host = np.asarray(obj, dtype=_host_dtype(dtype))
            return self.from_host(host)
        return self.xp.asarray(obj, dtype=dtype, device=self.device)

    def from_host(self, host_array):
        """Copy a NumPy array to this backend's device (explicitly)."""
        if self.is_numpy:
            return host_array
        if self.name == "cupy":
            return self.xp.asarray(host_array)
        # array_api_strict: build on the CPU device, then move explicitly.
        cpu = self.xp.asarray(host_array)
        return cpu if self.device is None else cpu.to_device(self.device)

    def copy(self, array):
        """An independent copy of a backend array, on the same device."""
        try:
            return self.xp.asarray(array, copy=True)
        except TypeError:  # a namespace whose asarray has no ``copy`` argument
            return array.copy()

    def to_host(self, array):
        """Copy ``array`` to a NumPy array on the host (explicitly)."""
        if self.is_numpy or isinstance(array, np.ndarray):
            return array
        if self.name == "cupy":
            return array.get()  # a CuPy ndarray copies itself to the host
        cpu = self.xp.Device("CPU_DEVICE")
        return np.asarray(array.to_device(cpu))

    # -- scatter-add (the backward of gathers and fancy indexing) ----------
    def scatter_add_rows(self, rows, index, length):
        """Sum ``rows[i]`` into row ``index[i]`` of a zero array with ``length`` rows.

        NumPy has ``add.at`` and CuPy ``cupyx.scatter_add``; any other
        namespace multiplies by a one-hot matrix, which it can do on its own
        device.
        """
        out_shape = (length,) + tuple(rows.shape[1:])
        if self.is_numpy:
            out = np.zeros(out_shape, dtype=rows.dtype)
            np.add.at(out, index, rows)
            return out
        if self.name == "cupy":
            import cupy
            import cupyx

            out = cupy.zeros(out_shape, dtype=rows.dtype)
            cupyx.scatter_add(out, index, rows)
            return out
        xp = self.xp
        positions = xp.arange(length, device=self.device)
        one_hot = xp.astype(xp.reshape(index, (-1, 1)) == xp.reshape(positions, (1, -1)), rows.dtype)
        width = 1
        for d in rows.shape[1:]:
            width *= d
        flat = xp.reshape(rows, (rows.shape[0], width))  # explicit: -1 is ambiguous with no rows
        return xp.reshape(xp.matmul(xp.matrix_transpose(one_hot), flat), out_shape)

    # -- random numbers --------------------------------------------------
    def random_uniform(self, generator, shape, dtype):
        """Uniform [0, 1) samples drawn on the host and moved explicitly.

        Drawing on the host keeps ``set_seed`` reproducible on every backend.
        """
        host = _seed.draw(generator, "random", tuple(shape)).astype(_host_dtype(dtype) or np.float32)
        return self.from_host(host)

    def random_normal(self, generator, shape, dtype):
        host = _seed.draw(generator, "standard_normal", tuple(shape)).astype(_host_dtype(dtype) or np.float32)
        return self.from_host(host)


def _host_dtype(dtype):
    """The NumPy dtype matching a backend dtype (or None)."""
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype).rsplit(".", 1)[-1])


NUMPY = Backend("numpy", np)
_current = NUMPY
_reported = set()


def current() -> Backend:
    """The backend new tensors and ops use now."""
    return _current


def _say_once(message):
    if message not in _reported:
        _reported.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=_user_stacklevel())


def _user_stacklevel():
    """The ``stacklevel`` that points a warning at the first caller outside cellkit (the user's line)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None:
        name = frame.f_code.co_filename
        internal = "importlib" in name and "_bootstrap" in name  # warnings.warn skips these itself
        if not (internal or os.path.abspath(name).startswith(package)):
            break  # the first frame of the user's code (at `import cellkit`, the import line)
        frame, level = frame.f_back, level + (0 if internal else 1)
    return level


def _make_cupy():
    """A CuPy backend if a CUDA device really works, else raise BackendUnavailable.

    ``import cupy`` succeeds on machines without a usable driver; the failure
    comes on first use as ``CUDARuntimeError``.  So we allocate and compute
    once before trusting it.
    """
    try:
        import cupy  # noqa: F401  (the only import of cupy in cellkit)
    except Exception as exc:  # ImportError, or a broken install
        raise BackendUnavailable(f"cupy cannot be imported ({type(exc).__name__}: {exc})") from exc
    try:
        probe = cupy.arange(4, dtype=cupy.float32)
        float((probe * 2).sum().get())
        device = cupy.cuda.Device()
    except Exception as exc:  # CUDARuntimeError and friends
        raise BackendUnavailable(f"cupy found no working CUDA device ({type(exc).__name__}: {exc})") from exc
    try:
        import array_api_compat.cupy as xp  # array-API names (permute_dims, concat ...) for CuPy
    except ImportError:
        xp = cupy
    return Backend("cupy", xp, device)


def _make_strict(device_name="device1"):
    import array_api_strict

    return Backend("array_api_strict", array_api_strict, array_api_strict.Device(device_name))


def select(device_target: str) -> Backend:
    """Switch to the backend for a MindSpore ``device_target``.

    ``'CPU'`` selects NumPy.  ``'GPU'`` selects CuPy when a CUDA device works;
    otherwise cellkit stays on NumPy and says why, once.  ``'Ascend'`` is not
    available anywhere cellkit runs, so it also falls back with a message.
    """
    global _current
    target = str(device_target).upper()
    if target == "CPU":
        _current = NUMPY
    elif target == "GPU":
        try:
            _current = _make_cupy()
        except BackendUnavailable as exc:
            _say_once(f"cellkit: GPU requested but unavailable, using NumPy on the CPU: {exc}")
            _current = NUMPY
    elif target == "ASCEND":
        _say_once("cellkit: Ascend devices are not supported, using NumPy on the CPU")
        _current = NUMPY
    else:
        raise ValueError(
            f"device_target must be one of 'CPU', 'GPU', 'Ascend', but got {device_target!r}"
        )
    return _current


@contextlib.contextmanager
def use(backend):
    """Run a block on another backend (``'numpy'``, ``'cupy'``, ``'strict'`` or a Backend).

    >>> from cellkit import backend
    >>> with backend.use("numpy") as b:
    ...     b.name
    'numpy'
    """
    global _current
    if isinstance(backend, Backend):
        chosen = backend
    elif backend == "numpy":
        chosen = NUMPY
    elif backend == "cupy":
        chosen = _make_cupy()
    elif backend in ("strict", "array_api_strict"):
        chosen = _make_strict()
    else:
        raise ValueError(f"backend must be 'numpy', 'cupy' or 'strict', but got {backend!r}")
    previous, _current = _current, chosen
    try:
        yield chosen
    finally:
        _current = previous


def to_host(array):
    """Copy an array of the current backend to a NumPy array."""
    return _current.to_host(array)


def from_host(host_array):
    """Copy a NumPy array to the current backend's device."""
    return _current.from_host(host_array)


# The environment chooses the starting backend, as set_context would.
if os.environ.get("CELLKIT_DEVICE", "").upper() in ("GPU", "CUDA"):
    select("GPU")
