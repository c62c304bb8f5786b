"""``ms.set_device`` / ``ms.get_current_device`` / ``ms.set_deterministic``: the device a program runs on.

``set_device("GPU")`` is ``set_context(device_target="GPU")``: CuPy when a CUDA device works,
otherwise NumPy with a warning that says why; ``"CPU"`` is NumPy. ``"Ascend"`` is accepted and
runs on NumPy, as every other program written for it would on this machine.

>>> import cellkit as ms
>>> ms.set_device("CPU")
>>> ms.get_current_device()
('CPU', 0)
>>> ms.get_current_device().device_target
'CPU'
"""
from __future__ import annotations

from collections import namedtuple

from . import context as _context

__all__ = ["set_device", "get_current_device", "set_deterministic", "DeviceInfo"]

_TARGETS = ["CPU", "GPU", "Ascend"]

DeviceInfo = namedtuple("DeviceInfo", ["device_target", "device_id"])
DeviceInfo.__doc__ = "The device a program runs on: ``(device_target, device_id)``, also by name."
DeviceInfo.__repr__ = tuple.__repr__  # prints as MindSpore's: ('CPU', 0)


def set_device(device_target, device_id=None):
    """Choose the device: ``device_target`` one of ``'CPU'``, ``'GPU'``, ``'Ascend'``; ``device_id`` >= 0.

    Raises
    ------
    TypeError
        ``device_target`` is not a str, or ``device_id`` not an int.
    ValueError
        An unknown target, or a negative ``device_id``.
    """
    if not isinstance(device_target, str):
        raise TypeError(f"The parameter 'device_target' must be {str}, but got {type(device_target)}")
    if device_target not in _TARGETS:
        raise ValueError(f"The argument 'device_target' must be one of {_TARGETS}, but got {device_target!r}.")
    if device_id is not None:
        if isinstance(device_id, bool) or not isinstance(device_id, int):
            raise TypeError(f"The parameter 'device_id' must be {int}, but got {type(device_id)}")
        if device_id < 0:
            raise ValueError("The device id must bigger than or equal to 0.")
    settings = {"device_target": device_target}
    if device_id is not None:
        settings["device_id"] = device_id
    _context.set_context(**settings)


def get_current_device():
    """The device in use, as a :data:`DeviceInfo` ``(device_target, device_id)``."""
    return DeviceInfo(_context.get_context("device_target"), _context.get_context("device_id"))


_deterministic_set = [False]


def set_deterministic(deterministic):
    """Ask for run-to-run identical results (``get_context("deterministic")`` becomes ``'ON'``/``'OFF'``).

    cellkit's NumPy ops are deterministic already; on CuPy, reductions and scatters that add in
    parallel may differ in the last bits between runs, and this flag is what a program states about
    that, as in MindSpore. As there, it can be set once per process.

    Raises
    ------
    TypeError
        ``deterministic`` is not a bool.
    RuntimeError
        It was set already.
    """
    if not isinstance(deterministic, bool):
        raise TypeError(f"The parameter 'deterministic' must be {bool}, but got {type(deterministic)}")
    if _deterministic_set[0]:
        raise RuntimeError("The 'mindspore.set_deterministic' can not be set repeatedly.")
    _deterministic_set[0] = True
    _context.set_context(deterministic="ON" if deterministic else "OFF")
