"""Errors of graph compilation, and finding the user's line they are about.

Tracing runs ``construct`` once on real inputs and records its ops; a Python
decision taken on a Tensor's *value* (``if x.sum() > 0:``, ``int(n)``) would be
baked into the graph silently, so it is refused instead with
:class:`GraphCompileError`, naming the file and line.  MindSpore raises
ValueError when its strict graph syntax meets a non-constant value where a
constant is needed ("the inputs should be constant, but found variable"), so
the error is a ValueError too.

>>> issubclass(GraphCompileError, ValueError)
True
"""
from __future__ import annotations

import linecache
import os
import sys

__all__ = ["GraphCompileError", "user_frame", "describe_frame"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Inside cellkit, these directories hold machinery rather than model code: an op's location is
# the first frame outside them (a layer's construct counts as model code).
_MACHINERY = tuple(_PACKAGE_DIR + part for part in ("ops" + os.sep, "graph" + os.sep)) + tuple(
    _PACKAGE_DIR + name for name in ("tensor.py", "autograd.py", "transforms.py", "recompute.py",
                                     "parameter.py", "nn" + os.sep + "cell.py",
                                     "nn" + os.sep + "cell_hooks.py", "nn" + os.sep + "cell_precision.py"))


class GraphCompileError(ValueError):
    """``construct`` did something a traced graph cannot capture (raised while compiling)."""


def user_frame(frame, outside_package=True):
    """The first frame, walking outwards from ``frame``, that is user code.

    With ``outside_package`` the first frame outside cellkit altogether
    (where the user wrote the call); otherwise the first one outside
    cellkit's machinery (a layer's ``construct`` counts).  Falls back to
    ``frame`` itself.
    """
    f = frame
    while f is not None:
        filename = os.path.abspath(f.f_code.co_filename)
        if outside_package:
            if not filename.startswith(_PACKAGE_DIR):
                return f
        elif not filename.startswith(_MACHINERY):
            return f
        f = f.f_back
    return frame


def describe_frame(frame):
    """``'file.py:12 in construct: if x.sum() > 0:'`` for a frame."""
    filename = frame.f_code.co_filename
    line = linecache.getline(filename, frame.f_lineno).strip()
    text = f"{_short_path(filename)}:{frame.f_lineno} in {frame.f_code.co_name}"
    return f"{text}: {line}" if line else text


def location(frame):
    """``'file.py:12'`` for a frame (short path)."""
    return f"{_short_path(frame.f_code.co_filename)}:{frame.f_lineno}"


def _short_path(filename):
    """Paths inside cellkit relative to the package's parent; others as they are."""
    path = os.path.abspath(filename)
    parent = os.path.dirname(_PACKAGE_DIR.rstrip(os.sep)) + os.sep
    if path.startswith(parent):
        return path[len(parent):]
    return filename


def user_stacklevel():
    """The ``stacklevel`` for :func:`warnings.warn` that points at the first frame outside cellkit.

    Called from the function that warns (its own frame is level 1).
    """
    level = 1
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
