"""NaN/Inf at the op: while a trace records on NumPy, find the op that made a NaN or an Inf, and the user's line.

NumPy reports floating-point errors (invalid value, division by zero,
overflow) through :func:`numpy.seterrcall` when its error state says
``'call'``.  :class:`OpErrorWatch` sets that up for the duration of a
:func:`cellkit.trace` block only -- outside it nothing changes and nothing
is paid.  On each error it reads the Python stack:

- the **op**: the cellkit op running (``log``; the first function of
  :mod:`cellkit.ops` on the stack whose name is public), and whether this is
  its forward or its gradient rule (a frame of the autograd sweep is below);
- the **user's line**: the first frame outside the cellkit package, with its
  source text (``model.py:14: x = ops.log(x)``);
- whether the op's **inputs were finite** (it made the NaN) or not (it only
  passed one on).

An error does not always leave a NaN behind (``exp`` may overflow in a
branch ``where`` discards), so the op is confirmed only when it returns:
a profile function (:func:`sys.setprofile`, set just then and removed at
that return) looks at its output, and only a non-finite output is reported.
NumPy's RuntimeWarning, which would point at ``cellkit/ops/math.py``, is
issued at the user's line instead -- or raised, printed, ignored, as the
error state the user had chosen says.

CuPy and the strict array-API namespace report no floating-point errors:
there the trace falls back to finding the first event whose tensors hold a
NaN/Inf, and says whether the Cell's own code made it (see
:mod:`cellkit.display.trace`).

>>> import numpy as np
>>> import cellkit as ms
>>> found = []
>>> with np.errstate(invalid="ignore"), OpErrorWatch(found.append):  # found, but no warning
...     y = ms.ops.log(ms.Tensor([-1.0, 1.0]))
>>> found[0]["op"], found[0]["phase"], found[0]["inputs_finite"], found[0]["error"]
('log', 'forward', True, 'invalid value')
>>> found[0]["file"].endswith(".py") or found[0]["file"].startswith("<doctest")
True
"""
from __future__ import annotations

import linecache
import os
import sys
import warnings

import numpy as np

from .. import backend as _backend
from ..tensor import Tensor

__all__ = ["OpErrorWatch", "supported"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_OPS = os.path.join(_PACKAGE, "ops") + os.sep
_AUTOGRAD = os.path.join(_PACKAGE, "autograd.py")
_FLAGS = (("divide", 1), ("over", 2), ("under", 4), ("invalid", 8))


def supported():
    """Whether op-level detection works with the current backend (NumPy only)."""
    return _backend.current().is_numpy


def _short(filename):
    """A file as a reader knows it: relative to cellkit's parent, or "a notebook cell" for IPython's cell files."""
    if "ipykernel_" in filename or filename.startswith("<ipython-input"):
        return "a notebook cell, line"  # IPython compiles each cell into a temporary file of no meaning to a reader
    parent = os.path.dirname(_PACKAGE.rstrip(os.sep)) + os.sep
    path = os.path.abspath(filename)
    return path[len(parent):] if path.startswith(parent) else filename


def _non_finite(value):
    """(NaN count, Inf count) in the Tensors / arrays of a (nested) value."""
    nan = inf = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(v)
            continue
        data = v._data if isinstance(v, Tensor) else v
        if isinstance(data, np.ndarray) and data.dtype.kind in "fc":
            nan += int(np.count_nonzero(np.isnan(data)))
            inf += int(np.count_nonzero(np.isinf(data)))
    return nan, inf


class OpErrorWatch:
    """A context (also ``start()`` / ``stop()``) reporting each op that turned finite values into NaN/Inf.

    ``report(record)`` receives a dict: ``op``, ``phase`` (``'forward'`` or
    ``'backward'``), ``file``, ``line``, ``code`` (the user's line), ``function``,
    ``inputs_finite``, ``error`` (NumPy's words: ``'invalid value'`` ...), ``nan``
    and ``inf`` (counts in the op's output) and ``output`` (the output itself,
    to summarise; do not keep it).
    """

    def __init__(self, report):
        self.report = report
        self.active = False
        self._state = None
        self._previous_call = None
        self._user_modes = None
        self._pending = None
        self._previous_profile = None

    # -- switching on and off -----------------------------------------------------------
    def start(self):
        if self.active or not supported():
            return self
        self._user_modes = np.geterr()
        self._previous_call = np.seterrcall(self._on_error)
        # Underflow makes no NaN/Inf: it keeps the mode the user chose.
        self._state = np.errstate(divide="call", over="call", invalid="call")
        self._state.__enter__()
        self.active = True
        return self

    def stop(self):
        if not self.active:
            return self
        self.active = False
        self._finish_pending(None, confirmed=False)
        self._state.__exit__(None, None, None)
        np.seterrcall(self._previous_call)
        self._state = None
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- an error ---------------------------------------------------------------------
    def _on_error(self, kind, flag):
        frame = sys._getframe(1)
        found = None
        if flag & ~4:  # not an underflow alone
            try:
                found = self._locate(frame, kind)
            except Exception:  # noqa: BLE001 -- never turn a NumPy warning into a crash of ours
                found = None
        user = found.pop("user_frame", None) if found is not None else None
        if found is not None:
            self._watch_return(found)
        self._as_the_user_wanted(kind, flag, found, user)

    def _locate(self, frame, kind):
        chain = []
        f = frame
        while f is not None:
            chain.append(f)
            f = f.f_back
        op_name, outermost_op, user, phase = None, None, None, "forward"
        for f in chain:
            filename = os.path.abspath(f.f_code.co_filename)
            if filename == _AUTOGRAD:
                phase = "backward"
            if filename.startswith(_OPS):
                head = getattr(f.f_code, "co_qualname", f.f_code.co_name).split(".")[0]
                if op_name is None and not head.startswith("_"):
                    op_name = head
                elif op_name is None and head.endswith("_rule"):  # a backward rule: _sqrt_rule is sqrt's
                    op_name = head[1:-len("_rule")]
                if user is None:
                    outermost_op = f
            elif user is None and not filename.startswith(_PACKAGE):
                user = f
        if outermost_op is None:  # not a cellkit op: NumPy called from elsewhere (a layer, user code)
            outermost_op = chain[0]
            op_name = op_name or chain[0].f_code.co_name
        inputs = [v for v in outermost_op.f_locals.values() if isinstance(v, (Tensor, np.ndarray))]
        nan, inf = _non_finite(inputs)
        code = linecache.getline(user.f_code.co_filename, user.f_lineno).strip() if user is not None else ""
        return {"op": op_name or outermost_op.f_code.co_name, "phase": phase, "frame": outermost_op,
                "file": _short(user.f_code.co_filename) if user is not None else "?",
                "line": user.f_lineno if user is not None else 0,
                "function": user.f_code.co_name if user is not None else "?", "code": code,
                "inputs_finite": not (nan or inf), "error": kind, "user_frame": user}

    def _watch_return(self, found):
        pending = self._pending
        if pending is not None:
            if pending["frame"] is found["frame"]:
                if found["error"] not in pending["error"]:
                    pending["error"] += ", " + found["error"]
                return
            self._finish_pending(None, confirmed=False)
        if sys.getprofile() is not None:
            # A profiler (cProfile, the graph tracer) owns the profile hook: leave it alone; the trace then
            # finds the NaN in its events, as on a backend without floating-point error reports.
            return
        self._pending = found
        self._previous_profile = None

        def profile(frame, event, arg):
            if event == "return" and self._pending is not None and frame is self._pending["frame"]:
                self._finish_pending(arg, confirmed=True)

        sys.setprofile(profile)

    def _finish_pending(self, output, confirmed):
        pending, self._pending = self._pending, None
        if pending is None:
            return
        sys.setprofile(self._previous_profile)
        self._previous_profile = None
        if not confirmed:
            return
        nan, inf = _non_finite(output)
        if not (nan or inf):
            return  # the error left no NaN/Inf behind (a discarded branch): nothing to report
        pending.pop("frame")
        pending.update(nan=nan, inf=inf, output=output)
        self.report(pending)

    def _as_the_user_wanted(self, kind, flag, found, user):
        """Warn, raise, print or call as the error state before the trace said (warnings at the user's line)."""
        modes = self._user_modes or {}
        wanted = [modes.get(name, "warn") for name, bit in _FLAGS if flag & bit]
        if "raise" in wanted:
            raise FloatingPointError(f"{kind} encountered in {found['op'] if found else 'an op'}")
        where = f" (cellkit op '{found['op']}' called at {found['file']}:{found['line']})" if found else ""
        if "warn" in wanted:
            if user is not None:
                registry = user.f_globals.setdefault("__warningregistry__", {})
                warnings.warn_explicit(f"{kind} encountered in {found['op']}", RuntimeWarning,
                                       user.f_code.co_filename, user.f_lineno,
                                       module=user.f_globals.get("__name__"), registry=registry)
            else:
                warnings.warn(f"{kind} encountered{where}", RuntimeWarning, stacklevel=3)
        if "print" in wanted:
            print(f"Warning: {kind} encountered{where}")
        if "call" in wanted and callable(self._previous_call):
            self._previous_call(kind, flag)
        if "log" in wanted and hasattr(self._previous_call, "write"):
            self._previous_call.write(f"Warning: {kind} encountered{where}\n")
