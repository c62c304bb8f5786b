"""Memory accounting: every array the runtime creates or keeps, on a timeline.

:func:`profile` runs a function once while a probe listens to the runtime:

- each array an op produces (``Tensor._from_array``) is *allocated*, with its
  bytes, device, the Cell it was made in and the op that made it;
- each tape node notes the arrays its backward rule keeps: an activation
  kept this way becomes *saved* for backward;
- each gradient the backward sweep produces is a *gradient*;
- arrays made while a recomputed region replays are *recomputed*;
- an array is *released* when its memory is freed (a weak-reference
  finalizer on the array that owns the memory), and *moved* when offload
  sends it to the host.

Views share their base's memory and are counted once.  Parameters and the
inputs exist before the call: they are the *baseline*, and the peak is
measured above it, as an allocator would see it.  The same run is measured
by the allocator itself -- ``tracemalloc`` for NumPy (NumPy reports its data
allocations to it), the memory pool for CuPy -- so the two figures can be
compared (:attr:`MemoryReport.allocator_peak_bytes`).  What the accounting
cannot see is the scratch space *inside* one op (NumPy's temporaries while
it evaluates an expression); it lives only while that op runs.  The
NumPy fast paths' buffer cache (:mod:`cellkit.buffer_cache`) is bypassed
while a profile runs, so every array is a fresh allocation both sides see.

Nothing here costs anything when no profile runs: the runtime checks one
module-level slot that is ``None``.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn, memory
>>> net = nn.SequentialCell(nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 1))
>>> x = ms.Tensor(np.ones((128, 256), np.float32))
>>> report = memory.profile(ms.grad(lambda x: net(x).sum(), weights=net.trainable_params()), x, net=net)
>>> report.peak_bytes > 128 * 256 * 4   # at least one activation of the batch was alive
True
>>> sorted(report.by_role_at_peak())[:2]
['activation', 'gradient']
"""
from __future__ import annotations

import sys
import time
import tracemalloc
import weakref
from collections import namedtuple

from . import autograd as _ag
from . import backend as _backend
from . import buffer_cache as _buffer_cache
from . import recompute as _rc
from . import observers as _observers
from .tensor import Tensor

# ``cellkit.tensor`` the attribute is the ``tensor()`` function; the module holds the probe slot.
_tensor = sys.modules[Tensor.__module__]

__all__ = ["ROLES", "MemoryEvent", "MemoryReport", "MemoryComparison", "profile", "compare"]

ROLES = ("parameter", "optimizer state", "input", "activation", "saved", "recomputed", "gradient")

MemoryEvent = namedtuple("MemoryEvent", "step kind nbytes role device path op")
MemoryEvent.__doc__ = """One entry of the timeline.

``kind`` is ``'alloc'``, ``'free'``, ``'retag'`` (the array's role changed to
``role``), ``'move'`` (it moved to ``device``) or ``'mark'`` (a phase
boundary; ``op`` says which).
"""




def _is_array(value):
    return hasattr(value, "nbytes") and hasattr(value, "shape") and hasattr(value, "dtype")


class _Probe:
    """What the runtime reports to while a profile runs; builds the event list."""

    wants_backward = False  # as a Cell observer: forward events only, no gates on the tape

    def __init__(self, cell_paths, device):
        self.events = []
        self.live = {}            # id(root) -> [nbytes, role, device, path, op, finalizer]
        self.cell_paths = cell_paths
        self.device = device
        self.path_stack = []
        self.backward_nodes = []  # nodes whose backward rule is running, innermost last
        self.node_scope = {}      # id(node) -> the Cell path it was recorded in
        self.replaying = 0
        self.closed = False
        self.pool_used = None     # CuPy: the pool's used_bytes, sampled at every event
        self.pool_peak = 0
        self.announced = []       # (Parameter, role) as the watched Cells announced them

    # -- what the runtime calls ------------------------------------------
    def array(self, array, role=None, path=None, op=None):
        root = _ag.memory_owner(array)
        key = id(root)
        if key in self.live or not _is_array(root):
            return
        if role is None:
            role = "recomputed" if self.replaying else ("gradient" if self.backward_nodes else "activation")
        self._add(root, key, int(root.nbytes), role, path or self._path(), op or _op_name())

    def node(self, node):
        self.node_scope[id(node)] = self._path()
        for value in _ag.saved_arrays(node):
            self._mark_saved(value, node.op)

    def run_backward(self, node, grad, m):
        self.backward_nodes.append(node)
        try:
            grads = node.rule(m, node, grad)
        finally:
            self.backward_nodes.pop()
        path = self.node_scope.get(id(node), self._path())
        for g in grads:
            if g is not None and _is_array(g):
                self.array(g, "gradient", path, node.op)
        return grads

    def region(self, mode, region, entering):
        if mode == "replay":
            self.replaying += 1 if entering else -1
        self._event("mark", 0, "", self.device, region.label,
                    f"{'recompute' if mode == 'replay' else 'region'} {'start' if entering else 'end'}")

    def moved(self, array, device):
        rec = self.live.get(id(_ag.memory_owner(array)))
        if rec is not None and rec[2] != device:
            rec[2] = device
            self._event("move", rec[0], rec[1], device, rec[3], rec[4])

    def on_attach(self, cell, parameters):  # a Cell announces its Parameters (cellkit.observers)
        self.announced.extend(parameters)

    def on_event(self, kind, cell, payload):  # a Cell observer (cellkit.observers)
        if kind == "forward_pre":
            self.path_stack.append(self.cell_paths.get(id(cell), type(cell).__name__))
        elif kind == "forward" and self.path_stack:
            self.path_stack.pop()

    def mark(self, label):
        self._event("mark", 0, "", self.device, "", label)

    # -- bookkeeping -------------------------------------------------------
    def _path(self):
        if self.backward_nodes:
            return self.node_scope.get(id(self.backward_nodes[-1]), "")
        return self.path_stack[-1] if self.path_stack else ""

    def _add(self, root, key, nbytes, role, path, op, device=None):
        device = device or self.device
        try:
            finalizer = weakref.finalize(root, self._free, key)
        except TypeError:  # an array type without weak references: counted as live to the end
            finalizer = None
        self.live[key] = [nbytes, role, device, path, op, finalizer]
        self._event("alloc", nbytes, role, device, path, op)

    def _mark_saved(self, array, op):
        root = _ag.memory_owner(array)
        key = id(root)
        rec = self.live.get(key)
        if rec is None:
            if _is_array(root):  # made inside the op and kept only by its backward rule
                role = "recomputed" if self.replaying else "saved"
                self._add(root, key, int(root.nbytes), role, self._path(), op)
        elif rec[1] == "activation":
            rec[1] = "saved"
            self._event("retag", rec[0], "saved", rec[2], rec[3], rec[4])

    def _free(self, key):
        rec = self.live.pop(key, None)
        if rec is not None and not self.closed:
            self._event("free", rec[0], rec[1], rec[2], rec[3], rec[4])

    def _event(self, kind, nbytes, role, device, path, op):
        self.events.append(MemoryEvent(len(self.events), kind, nbytes, role, device, path, op))
        if self.pool_used is not None:
            self.pool_peak = max(self.pool_peak, self.pool_used())

    def close(self):
        self.closed = True
        for rec in self.live.values():
            if rec[5] is not None:
                rec[5].detach()


def _op_name():
    """The public op that is producing an array (found on the call stack), e.g. ``'dense'``."""
    frame = sys._getframe(3)
    for _ in range(10):
        if frame is None:
            break
        module = frame.f_globals.get("__name__", "")
        name = frame.f_code.co_name
        if module.startswith("cellkit.ops") and not name.startswith("_") and name not in ("record", "wrap"):
            return name
        frame = frame.f_back
    return "tensor"


# ------------------------------------------------------------------------ report
class MemoryReport:
    """What :func:`profile` measured.  Displays as a chart in a notebook.

    Attributes
    ----------
    label : str
    events : list of MemoryEvent
    steps, live, by_role, host : lists
        The timeline: after event ``steps[i]`` the device held ``live[i]``
        bytes above the baseline, ``by_role[role][i]`` of them in each role;
        ``host[i]`` bytes had been offloaded to the host.
    peak_bytes, peak_step : int
        The highest point of ``live`` and where it was reached.
    baseline_bytes : int
        Parameters, optimizer state and inputs that existed before the call.
    allocator_peak_bytes : int or None
        The allocator's own peak over the same call (tracemalloc / CuPy pool).
    seconds : float
        Wall time of the profiled call (profiling slows it down).
    clean_seconds : float or None
        Wall time of one more call without any profiling (``timing=True``).
    """

    def __init__(self, label, device, events, baseline_bytes, baseline_roles, allocator, allocator_peak,
                 seconds, clean_seconds, result):
        self.label = label
        self.device = device
        self.events = events
        self.baseline_bytes = baseline_bytes
        self.baseline_roles = baseline_roles
        self.allocator = allocator
        self.allocator_peak_bytes = allocator_peak
        self.seconds = seconds
        self.clean_seconds = clean_seconds
        self.result = result
        self._build_timeline()

    def _build_timeline(self):
        by_role = {role: 0 for role in ROLES}
        host = 0
        live = 0
        self.steps, self.live, self.host = [], [], []
        self.by_role = {role: [] for role in ROLES}
        self.markers = []
        peak, peak_step, peak_index = 0, 0, -1
        for event in self.events:
            kind = event.kind
            if kind == "mark":
                self.markers.append((event.step, event.op, event.path))
                continue
            n = event.nbytes
            if kind == "alloc":
                if event.device == "host":
                    host += n
                else:
                    live += n
                    by_role[event.role] += n
            elif kind == "free":
                if event.device == "host":
                    host -= n
                else:
                    live -= n
                    by_role[event.role] -= n
            elif kind == "retag":  # a retag only ever turns an activation into a saved array
                by_role["activation"] -= n
                by_role[event.role] += n
            elif kind == "move":
                if event.device == "host":
                    host += n
                    live -= n
                    by_role[event.role] -= n
                else:
                    host -= n
                    live += n
                    by_role[event.role] += n
            self.steps.append(event.step)
            self.live.append(live)
            self.host.append(host)
            for role in ROLES:
                self.by_role[role].append(by_role[role])
            if live > peak:
                peak, peak_step, peak_index = live, event.step, len(self.live) - 1
        self.peak_bytes = peak
        self.peak_step = peak_step
        self._peak_index = peak_index

    def by_role_at_peak(self):
        """``{role: bytes}`` live at the peak (roles with nothing live are left out)."""
        if self._peak_index < 0:
            return {}
        return {role: values[self._peak_index] for role, values in self.by_role.items()
                if values[self._peak_index] > 0}

    def by_cell(self):
        """Per Cell path: bytes allocated over the call, and bytes still live at the peak."""
        table = {}
        live = {}
        for event in self.events:
            if event.kind == "mark":
                continue
            path = event.path or "(outside any Cell)"
            row = table.setdefault(path, {"allocated": 0, "at_peak": 0, "count": 0})
            if event.kind == "alloc":
                row["allocated"] += event.nbytes
                row["count"] += 1
            if event.step <= self.peak_step:
                if event.kind == "alloc" and event.device != "host":
                    live[path] = live.get(path, 0) + event.nbytes
                elif event.kind == "free" and event.device != "host":
                    live[path] = live.get(path, 0) - event.nbytes
        for path, n in live.items():
            table[path]["at_peak"] = n
        return table

    def agreement(self):
        """``accounted peak / allocator peak`` (None when no allocator figure exists)."""
        if not self.allocator_peak_bytes:
            return None
        return self.peak_bytes / self.allocator_peak_bytes

    def compare(self, other):
        """This report against ``other`` (e.g. without and with recompute)."""
        return MemoryComparison(self, other)

    def to_dict(self):
        return {
            "label": self.label, "device": self.device, "peak_bytes": self.peak_bytes,
            "peak_step": self.peak_step, "baseline_bytes": self.baseline_bytes,
            "allocator": self.allocator, "allocator_peak_bytes": self.allocator_peak_bytes,
            "seconds": self.seconds, "clean_seconds": self.clean_seconds,
            "by_role_at_peak": self.by_role_at_peak(), "by_cell": self.by_cell(),
            "markers": [list(m) for m in self.markers],
            "events": [e._asdict() for e in self.events],
        }

    def summary(self):
        """A few lines of text: the peak, its roles, the allocator's figure."""
        lines = [f"MemoryReport({self.label!r}, device={self.device}): peak {_mb(self.peak_bytes)} above a "
                 f"baseline of {_mb(self.baseline_bytes)}, {len(self.events)} events"]
        roles = ", ".join(f"{role} {_mb(n)}" for role, n in self.by_role_at_peak().items())
        if roles:
            lines.append(f"  at the peak: {roles}")
        if self.allocator_peak_bytes:
            lines.append(f"  {self.allocator} peak {_mb(self.allocator_peak_bytes)} "
                         f"(accounted / allocator = {self.agreement():.2f})")
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            from .display import memory_view
        except Exception:  # noqa: BLE001 - a display never raises: fall back to text
            return {"text/plain": self.summary()}
        return memory_view.report_bundle(self)


class MemoryComparison:
    """Two reports side by side: how much the second saves and what it costs in time."""

    def __init__(self, before, after):
        self.before = before
        self.after = after

    @property
    def saving(self):
        """Fraction of the first peak the second avoids (0.7 = 70% less)."""
        if not self.before.peak_bytes:
            return 0.0
        return 1 - self.after.peak_bytes / self.before.peak_bytes

    @property
    def time_ratio(self):
        """Second time / first time (clean timings when both have them)."""
        a, b = self.before.clean_seconds, self.after.clean_seconds
        if a is None or b is None:
            a, b = self.before.seconds, self.after.seconds
        return b / a if a else float("nan")

    def summary(self):
        change = f"{self.saving:.0%} less" if self.saving >= 0 else f"{-self.saving:.0%} more"
        return (f"{self.after.label}: peak {_mb(self.after.peak_bytes)} vs {_mb(self.before.peak_bytes)} "
                f"for {self.before.label} ({change}), time x{self.time_ratio:.2f}")

    def __repr__(self):
        return self.summary()

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            from .display import memory_view
        except Exception:  # noqa: BLE001
            return {"text/plain": self.summary()}
        return memory_view.comparison_bundle(self)


def _mb(n):
    return f"{n / 2**20:.2f} MiB"


# ------------------------------------------------------------------------ running
def _is_cell(value):
    # Duck-typed: this module sits below cellkit.nn and never imports the Cell class.
    return callable(getattr(value, "cells_and_names", None)) and hasattr(value, "_observers")


def _cells_of(fn, net):
    if net is None:
        if _is_cell(fn):
            net = fn
        elif _is_cell(getattr(fn, "__self__", None)):
            net = fn.__self__
    if net is None:
        return None, {}
    if not _is_cell(net):
        raise TypeError(f"memory.profile: 'net' must be a Cell (or None), but got {type(net).__name__}")
    paths = {}
    for name, cell in net.cells_and_names():
        paths.setdefault(id(cell), name or type(net).__name__)
    return net, paths


def _baseline(announced, args, kwargs):
    """Arrays that exist before the call: Parameters and optimizer state (as the Cells announced them), inputs."""
    found = []
    roles = {}
    for p, role in announced:
        if roles.setdefault(id(p), role) == "optimizer state" and role == "parameter":
            roles[id(p)] = "parameter"  # an optimizer's own copy of a trained Parameter is the Parameter
    seen = set()
    for p, _ in announced:
        if id(p) not in seen and p._data is not None:
            seen.add(id(p))
            found.append((p._data, roles[id(p)]))
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, Tensor) and value._data is not None:
            found.append((value._data, "input"))
    return found


def profile(fn, *args, net=None, label=None, timing=False, **kwargs):
    """Run ``fn(*args, **kwargs)`` once and account every array it makes or keeps.

    Parameters
    ----------
    fn : callable
        What to measure: a Cell, a gradient function, a training step...
    net : Cell, optional
        The network, for attributing arrays to Cell paths and counting its
        Parameters as the baseline (found automatically when ``fn`` is a
        Cell or a Cell's bound method).
    label : str, optional
        A name for displays (default: the function's or Cell's name).
    timing : bool
        Also time one more call with nothing profiling (``clean_seconds``);
        that call runs ``fn`` again, so leave it off for calls with side
        effects you do not want twice.

    Returns
    -------
    MemoryReport
    """
    if not callable(fn):
        raise TypeError(f"memory.profile: 'fn' must be callable, but got {type(fn).__name__}")
    if _tensor._alloc_probe is not None:
        raise RuntimeError("memory.profile: another profile is already running; profiles do not nest")
    net, cell_paths = _cells_of(fn, net)
    be = _backend.current()
    device = "GPU" if be.name == "cupy" else "CPU"
    probe = _Probe(cell_paths, device)
    watched = [cell for _, cell in net.cells_and_names()] if net is not None else []
    for cell in watched:
        _observers.add_observer(cell, probe)  # each announces its Parameters (probe.on_attach)
    baseline_arrays = _baseline(probe.announced, args, kwargs)
    baseline_roles = {}
    for array, role in baseline_arrays:
        root = _ag.memory_owner(array)
        if id(root) not in probe.live and _is_array(root):
            probe.live[id(root)] = [int(root.nbytes), role, device, "", "baseline", None]
            baseline_roles[role] = baseline_roles.get(role, 0) + int(root.nbytes)
    baseline_bytes = sum(rec[0] for rec in probe.live.values())

    allocator, sample = _allocator(be)
    if allocator != "tracemalloc":
        probe.pool_used = sample
    started_tracing = False
    if allocator == "tracemalloc":
        started_tracing = not tracemalloc.is_tracing()
        if started_tracing:
            tracemalloc.start()
    base_mark = sample()
    if allocator == "tracemalloc":
        tracemalloc.reset_peak()
    _tensor._alloc_probe = _ag._probe = _rc._probe = probe
    # Cached buffers would be reused without an allocation and never released: while the
    # profile runs every array is a fresh one, so the timeline and the allocator both see it.
    bypassing, _buffer_cache.bypass = _buffer_cache.bypass, True
    probe.mark("call start")
    start = time.perf_counter()
    try:
        result = fn(*args, **kwargs)
        _sync(be)
    finally:
        seconds = time.perf_counter() - start
        probe.mark("call end")
        _tensor._alloc_probe = _ag._probe = _rc._probe = None
        _buffer_cache.bypass = bypassing
        for cell in watched:
            _observers.remove_observer(cell, probe)
        if allocator == "tracemalloc":
            allocator_peak = tracemalloc.get_traced_memory()[1] - base_mark
            if started_tracing:
                tracemalloc.stop()
        else:
            allocator_peak = max(probe.pool_peak - base_mark, 0) or None
        probe.close()
    clean_seconds = None
    if timing:
        start = time.perf_counter()
        fn(*args, **kwargs)
        _sync(be)
        clean_seconds = time.perf_counter() - start
    label = label or getattr(fn, "__name__", None) or type(fn).__name__
    # Baseline arrays freed during the call (replaced Parameter data) appear as frees of
    # never-allocated bytes; the timeline counts from the baseline, like the allocator.
    return MemoryReport(label, device, probe.events, baseline_bytes, baseline_roles, allocator,
                        allocator_peak, seconds, clean_seconds, result)


def compare(before, after):
    """``before.compare(after)``: two reports side by side."""
    return MemoryComparison(before, after)


def _allocator(be):
    if be.name == "cupy":
        pool = be.xp.get_default_memory_pool()
        return "CuPy memory pool", pool.used_bytes
    return "tracemalloc", lambda: tracemalloc.get_traced_memory()[0]


def _sync(be):
    if be.name == "cupy":
        be.xp.cuda.Device().synchronize()
