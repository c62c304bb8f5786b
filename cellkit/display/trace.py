"""Hook traces: every forward, backward and hook event of a network, in order.

``with cellkit.trace(net) as tr:`` watches every Cell of ``net`` while the
block runs (one forward and backward pass, a few training steps ...) and
records, for each event, the cell's path, the shapes, dtypes and statistics
(norm, min, max, mean, NaN and Inf counts) of the tensors involved, the
values of tiny tensors, wall time, and what each user hook returned.  The
statistics are computed on the device with the backend's array namespace;
only a few scalars per tensor travel to the host.

In a notebook ``tr`` shows as a timeline (forward read left to right,
backward right to left, one lane per call depth) over an event table;
``print(tr)`` gives the table as text, and :meth:`Trace.to_dict` /
:meth:`Trace.to_json` export everything as plain data.  NaN/Inf and
vanishing (gradient norm below ``vanishing``) or exploding (above
``exploding``) gradients are flagged, and marked where they *first* appear.

Event kinds: ``forward_pre`` (a Cell is entered), ``forward`` (its
``construct`` returned), ``backward_pre`` (the gradient reached its
outputs), ``backward`` (its input gradients are known), ``hook`` (a user
hook ran; ``stage`` says which kind), ``op`` (an op made a NaN or an Inf:
see below) and ``param_grads`` (the Parameters' new gradients, once a
backward pass has finished: their float64 norms and NaN/Inf counts, so a
NaN in a weight's gradient is flagged too).  Backward events exist only
while a gradient transform records, and no event is emitted in GRAPH_MODE.
A cell whose inputs need no gradient (the first layer, fed with data) has
a ``backward_pre`` event but no ``backward``: no gradient leaves it.

Where a NaN or an Inf is *made*.  On NumPy the trace watches floating-point
errors (:mod:`cellkit.display.nanwatch`): the first op that turned finite
inputs into NaN/Inf becomes an ``op`` event -- its name, forward or
backward, the user's file, line and source text, the Cell it ran in --
and that event is where the flag first appears.  Other backends report no
floating-point errors; there the first event whose tensors hold the
NaN/Inf is flagged, and when it is a child's input while the parent's
inputs and its previous child's output were finite, an ``op`` event (op
unknown) says the parent's own code made it, between those two children.

The hook ledger (:meth:`Trace.hook_ledger`): every hook registered on a
watched Cell when the trace started, how often it fired, what it returned
(the norm before and after a replacement), what it raised, and for a hook
that never fired, why.

The widget form, ``cellkit.display.explore(tr)``, is a slider stepping
through the events (:mod:`cellkit.display.widgets`), drawn with
:meth:`Trace.to_html` and ``upto=``.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn, ops
>>> class Net(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.relu = nn.ReLU()
...     def construct(self, x):
...         x = x + x
...         return self.relu(x)
>>> net = Net()
>>> with ms.trace(net) as tr:
...     grads = ops.GradOperation(get_all=True)(net)(ms.Tensor(np.ones([1]).astype(np.float32)))
>>> [(e["kind"], e["path"]) for e in tr.events]  # doctest: +NORMALIZE_WHITESPACE
[('forward_pre', ''), ('forward_pre', 'relu'), ('forward', 'relu'), ('forward', ''),
 ('backward_pre', ''), ('backward_pre', 'relu'), ('backward', 'relu'), ('backward', '')]
>>> tr.events[-1]["tensors"][0]["values"]  # the gradient GradOperation returns
[2.0]
>>> net._call_plan is None  # tracing is over: the Cells are back on their fast path
True
"""
from __future__ import annotations

import json
import math
import time

import numpy as np

from .. import backend as _backend
from .. import observers as _observers
from ..tensor import Tensor
from .cellinfo import hook_registries
from .html import format_number as _html_format_number

__all__ = ["trace", "Trace"]

FORMAT = "cellkit.trace"
VERSION = 2
FLAG_KINDS = ("nan", "inf", "vanishing", "exploding")
FLAG_TITLES = {"nan": "NaN", "inf": "Inf", "vanishing": "vanishing gradient", "exploding": "exploding gradient"}
GRADIENT_ROLES = ("grad_output", "grad_input")
MAX_TENSORS_PER_ROLE = 16
MAX_TEXT_ROWS = 400


def trace(net, *, values=8, vanishing=1e-7, exploding=1e3):
    """Record every forward, backward and hook event of ``net`` and its sub-cells.

    Parameters
    ----------
    net : Cell
        The network; every Cell in ``net.cells_and_names()`` is watched.
    values : int
        Tensors with at most this many elements also keep their values.
    vanishing, exploding : float
        A gradient whose norm is below ``vanishing`` (or above ``exploding``)
        is flagged.

    Returns
    -------
    Trace
        A context manager: recording starts on ``with`` and stops when the
        block ends, leaving every Cell as it was (fast path included).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> dense = nn.Dense(3, 2)
    >>> with ms.trace(dense) as tr:
    ...     _ = dense(ms.ops.ones((4, 3)))
    >>> [e["kind"] for e in tr.events], tr.events[1]["tensors"][-1]["shape"]
    (['forward_pre', 'forward'], [4, 2])
    """
    return Trace(net, values=values, vanishing=vanishing, exploding=exploding)


# ---------------------------------------------------------------------------- statistics
def _finite_or_text(x):
    """A float for JSON: non-finite values become the strings 'nan', 'inf', '-inf'."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def as_float(x):
    """Undo :func:`_finite_or_text` (``None`` stays ``None``)."""
    return None if x is None else float(x)


def tensor_summary(tensor, values_limit):
    """Shape, dtype and statistics of ``tensor``, computed on its device in float64; only scalars come back.

    Floating tensors get a norm (scaled by the largest magnitude, so 1e-200
    does not underflow), mean, min and max over the finite values, and the
    NaN, Inf and finite counts; integer and boolean tensors (token ids,
    masks) only min and max -- a norm or a mean of ids means nothing.

    >>> import cellkit as ms
    >>> s = tensor_summary(ms.Tensor([3.0, 4.0, float("nan")]), values_limit=8)
    >>> s["norm"], s["min"], s["max"], s["nan"], s["finite"], s["values"]  # the norm is NaN; min/max see the rest
    ('nan', 3.0, 4.0, 1, 2, [3.0, 4.0, 'nan'])
    >>> sorted(tensor_summary(ms.Tensor([1, 7], ms.int32), values_limit=0))
    ['dtype', 'max', 'min', 'shape']
    """
    dtype = tensor.dtype
    shape = [int(d) for d in tensor.shape]
    summary = {"shape": shape, "dtype": str(dtype)}
    data = tensor._data
    size = 1
    for d in shape:
        size *= d
    if data is None or size <= 0:
        return summary
    be = _backend.current()
    if be.is_numpy:
        with np.errstate(all="ignore"):  # the trace's own arithmetic must not trip its floating-point watch
            return _summary_of(tensor, summary, data, size, dtype, be, values_limit)
    return _summary_of(tensor, summary, data, size, dtype, be, values_limit)


def _summary_of(tensor, summary, data, size, dtype, be, values_limit):
    xp = be.xp
    x = xp.astype(xp.reshape(data, (-1,)), xp.float64)
    if dtype.kind != "float":
        host = be.to_host(xp.stack([xp.min(x), xp.max(x)])).tolist()
        summary.update(min=_finite_or_text(host[0]), max=_finite_or_text(host[1]))
    else:
        finite = xp.isfinite(x)
        zero = xp.zeros_like(x)
        clean = xp.where(finite, x, zero)
        n_finite = xp.sum(xp.astype(finite, xp.float64))
        big = xp.full_like(x, math.inf)
        largest = xp.max(xp.abs(clean))
        scale = xp.where(largest > 0, largest, xp.ones_like(largest))
        scaled = clean / scale
        scalars = xp.stack([
            largest, xp.sum(scaled * scaled),
            xp.sum(clean) / xp.maximum(n_finite, xp.ones_like(n_finite)),
            xp.min(xp.where(finite, x, big)),
            xp.max(xp.where(finite, x, -big)),
            xp.sum(xp.astype(xp.isnan(x), xp.float64)),
            xp.sum(xp.astype(xp.isinf(x), xp.float64)),
            n_finite,
        ])
        largest, ssq, mean, low, high, nans, infs, finite_count = (float(v) for v in be.to_host(scalars).tolist())
        norm = largest * math.sqrt(ssq)
        # The norm is what the maths gives (NaN or Inf as soon as one element is); min, max and
        # mean describe the finite elements, so a single NaN does not hide the rest.
        summary["norm"] = "nan" if nans else ("inf" if infs else _finite_or_text(norm))
        if finite_count:
            summary.update(mean=_finite_or_text(mean), min=_finite_or_text(low), max=_finite_or_text(high))
        else:
            summary.update(mean=None, min=None, max=None)
        summary["nan"] = int(nans)
        summary["inf"] = int(infs)
        summary["finite"] = int(finite_count)
    if size <= values_limit:
        host = be.to_host(data).reshape(-1).tolist() if dtype.kind != "float" else be.to_host(data).reshape(-1)
        if dtype.kind == "bool":
            summary["values"] = [bool(v) for v in host]
        elif dtype.kind in ("int", "uint"):
            summary["values"] = [int(v) for v in host]
        else:  # the shortest decimal that gives back the same float16/32/64: 0.1, not 0.10000000149
            summary["values"] = [_finite_or_text(float(str(v))) for v in host]
    return summary


def _flatten(value, label, out):
    """(label, leaf) pairs for the Tensors and plain values inside nested tuples/lists."""
    if isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            _flatten(item, f"{label}.{i}" if label else str(i), out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{label}.{key}" if label else str(key), out)
    else:
        out.append((label, value))


def _summaries(role, value, values_limit):
    """The summaries of one payload entry (``inputs``, ``output`` ...), one per leaf."""
    leaves = []
    _flatten(value, "", leaves)
    rows = []
    for label, leaf in leaves[:MAX_TENSORS_PER_ROLE]:
        row = {"role": role, "index": label}
        if leaf is None:
            row["none"] = True
        elif isinstance(leaf, Tensor):
            row.update(tensor_summary(leaf, values_limit))
        else:
            text = repr(leaf)
            row.update(type=type(leaf).__name__, repr=text if len(text) <= 80 else text[:79] + "…")
        rows.append(row)
    if len(leaves) > MAX_TENSORS_PER_ROLE:
        rows.append({"role": role, "index": "…", "omitted": len(leaves) - MAX_TENSORS_PER_ROLE})
    return rows


def _as_tensors(value):
    """``value`` with each raw backend array (what a gradient rule returns) wrapped as a Tensor."""
    if isinstance(value, (tuple, list)):
        return type(value)(_as_tensors(v) for v in value)
    if value is None or isinstance(value, Tensor):
        return value
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        try:
            return Tensor._from_array(value)
        except Exception:  # noqa: BLE001 -- shown as it is
            return value
    return value


def norm_of(tensors):
    """The norm of several tensor summaries together (``'nan'`` / ``'inf'`` kept), or None."""
    from .gradflow import combine_norms

    norms = [as_float(t["norm"]) for t in tensors if "norm" in t]
    norm = combine_norms(norms)
    return None if norm is None else _finite_or_text(norm)


def bad(tensors):
    """Whether any of these tensor summaries holds a NaN or an Inf."""
    return any(t.get("nan") or t.get("inf") for t in tensors)


def _hook_name(hook):
    name = getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None)
    if name is None:
        name = type(hook).__qualname__ + " object"
    return name.rsplit("<locals>.", 1)[-1]  # 'make.<locals>.hook' reads as 'hook'; methods keep 'Class.method'


# ---------------------------------------------------------------------------- recording
class _CallState:
    """What the recorder remembers of one open Cell call (for the own-code NaN attribution)."""

    __slots__ = ("index", "path", "cell", "inputs_bad", "last_child", "last_child_bad", "made_here")

    def __init__(self, index, path, cell, inputs_bad):
        self.index = index
        self.path = path
        self.cell = cell
        self.inputs_bad = inputs_bad
        self.last_child = None
        self.last_child_bad = False
        self.made_here = False


class _Recorder:
    """The observer attached to every watched Cell; turns runtime events into plain records."""

    def __init__(self, owner, paths, params):
        self.owner = owner
        self.paths = paths          # id(cell) -> dotted path ('' for the root)
        self.params = params        # [(name, Parameter)] whose new gradients are checked
        self.grads_seen = {id(p): p.__dict__.get("_last_grad") for _, p in params}
        self.calls = {}             # runtime call id -> trace call index
        self.depth_of = {}          # trace call index -> depth
        self.stack = []             # trace call indices of the cells now inside construct
        self.states = {}            # trace call index -> _CallState (open forward calls)
        self.backward_stack = []    # (trace call index, path) of the cells the gradient is passing through
        self.backward_seen = False  # a backward event since the last look at the Parameters' gradients
        self.start = time.perf_counter()
        self.overhead = 0.0         # time spent here, taken off the clock
        self.active = True

    def clock(self, arrived):
        return (arrived - self.start - self.overhead) * 1e3

    def on_event(self, kind, cell, payload):
        arrived = time.perf_counter()
        if not self.active:
            return
        try:
            if kind == "forward_pre" and self.backward_seen:
                self.check_param_grads(arrived)
            for record in self._record(kind, cell, payload, arrived):
                self.owner._add(record)
        finally:
            self.overhead += time.perf_counter() - arrived

    # -- ops that made a NaN/Inf (from nanwatch) ---------------------------------------------
    def on_op(self, found):
        arrived = time.perf_counter()
        if not self.active:
            return
        try:
            if found["phase"] == "backward" and self.backward_stack:
                call, path = self.backward_stack[-1]
            elif found["phase"] == "forward" and self.stack:
                call = self.stack[-1]
                path = self.states[call].path if call in self.states else ""
            else:
                call, path = None, ""
            if found["phase"] == "forward" and call in self.states:
                self.states[call].made_here = True
            record = self._base("op", path, self._cell_class(path), call, arrived)
            record["depth"] = (self.depth_of.get(call, -1) + 1) if call is not None else 0
            record["tensors"] = _summaries("result", _as_tensors(found.get("output")), self.owner.settings["values"])
            record["op"] = {k: found[k] for k in ("op", "phase", "file", "line", "function", "code",
                                                  "inputs_finite", "error")}
            self.owner._add(record)
        finally:
            self.overhead += time.perf_counter() - arrived

    def _cell_class(self, path):
        for cell_id, p in self.paths.items():
            if p == path:
                return self.owner._classes.get(cell_id, "?")
        return "?"

    # -- the Parameters' gradients ------------------------------------------------------------
    def check_param_grads(self, arrived=None):
        """One ``param_grads`` event for the Parameters whose gradient changed since the last look."""
        arrived = arrived if arrived is not None else time.perf_counter()
        self.backward_seen = False
        from .gradflow import array_norms

        changed = []
        for name, p in self.params:
            grad = p.__dict__.get("_last_grad")
            if grad is None or grad is self.grads_seen.get(id(p)) or not isinstance(grad, Tensor):
                continue
            self.grads_seen[id(p)] = grad
            changed.append((name, grad))
        try:
            norms = array_norms([grad._data for _, grad in changed])
        except Exception:  # noqa: BLE001 -- odd gradients are listed without figures
            norms = [None] * len(changed)
        tensors = []
        for (name, grad), norm in zip(changed, norms):
            row = {"role": "param_grad", "index": name, "shape": [int(d) for d in grad.shape],
                   "dtype": str(grad.dtype)}
            if norm is not None:
                row["norm"] = _finite_or_text(norm)
                if row["norm"] in ("nan", "inf"):
                    summary = tensor_summary(grad, 0)
                    row.update(nan=summary.get("nan", 0), inf=summary.get("inf", 0))
                else:
                    row.update(nan=0, inf=0)
            tensors.append(row)
        if tensors:
            record = self._base("param_grads", "", self.owner.root, None, arrived)
            record["tensors"] = tensors
            self.owner._add(record)

    # -- cell events -------------------------------------------------------------------------
    def _base(self, kind, path, cls, call, arrived):
        return {"index": None, "kind": kind, "path": path, "cell": cls, "call": call,
                "depth": self.depth_of.get(call, 0) if call is not None else 0,
                "time_ms": self.clock(arrived), "duration_ms": None, "tensors": []}

    def _record(self, kind, cell, payload, arrived):
        """The records one runtime event makes (a NaN made by a parent's own code adds an ``op`` first)."""
        runtime_call = payload["call"]
        path = self.paths.get(id(cell), "?")
        if kind == "forward_pre":
            call = len(self.calls)
            self.calls[runtime_call] = call
            self.depth_of[call] = len(self.stack)
            self.stack.append(call)
        else:
            call = self.calls.get(runtime_call)
            if call is None:  # a call that began before the trace did
                call = self.calls[runtime_call] = len(self.calls)
                self.depth_of[call] = len(self.stack)
        record = self._base(kind, path, type(cell).__name__, call, arrived)
        limit = self.owner.settings["values"]
        out = []
        if kind == "forward_pre":
            record["tensors"] = _summaries("inputs", payload["inputs"], limit)
            parent = self.states.get(self.stack[-2]) if len(self.stack) > 1 else None
            inputs_bad = bad(record["tensors"])
            if inputs_bad and parent is not None and not parent.inputs_bad and not parent.last_child_bad \
                    and not parent.made_here:
                out.append(self._own_code(parent, path, record, arrived))
            self.states[call] = _CallState(call, path, type(cell).__name__, inputs_bad)
        elif kind == "forward":
            record["tensors"] = _summaries("output", payload["output"], limit)
            state = self.states.pop(call, None)
            if call in self.stack:
                del self.stack[self.stack.index(call):]
            output_bad = bad(record["tensors"])
            if output_bad and state is not None and state.last_child is not None and not state.inputs_bad \
                    and not state.last_child_bad and not state.made_here:
                out.append(self._own_code(state, None, record, arrived))
            parent = self.states.get(self.stack[-1]) if self.stack else None
            if parent is not None:
                parent.last_child = path.rsplit(".", 1)[-1] if path else type(cell).__name__
                parent.last_child_bad = output_bad
        elif kind == "backward_pre":
            record["tensors"] = _summaries("grad_output", payload["grad_output"], limit)
            while self.backward_stack and not _inside(path, self.backward_stack[-1][1]):
                self.backward_stack.pop()
            self.backward_stack.append((call, path))
            self.backward_seen = True
        elif kind == "backward":
            record["tensors"] = _summaries("grad_input", payload["grad_input"], limit)
            for i in range(len(self.backward_stack) - 1, -1, -1):
                if self.backward_stack[i][0] == call:
                    del self.backward_stack[i:]
                    break
            self.backward_seen = True
        elif kind == "hook":
            result, error = payload["result"], payload["error"]
            record["duration_ms"] = payload["seconds"] * 1e3
            stage = payload["stage"]
            args = payload.get("args") or ()
            before = _summaries("before", args[-1] if stage == "forward" else (args[0] if args else None), limit)
            hook = payload["hook"]
            record["hook"] = {
                "stage": stage, "name": _hook_name(hook),
                "returned": "error" if error is not None else ("None" if result is None else "replacement"),
                "error": None if error is None else f"{type(error).__name__}: {error}",
                "before_norm": norm_of(before),
                "after_norm": None,
                "ledger": self.owner._ledger_entry(id(cell), path, type(cell).__name__, stage, hook),
            }
            if result is not None:
                record["tensors"] = _summaries("result", result, limit)
                record["hook"]["after_norm"] = norm_of(record["tensors"])
        out.append(record)
        return out

    def _own_code(self, state, child_path, seen, arrived):
        """An ``op`` record: the NaN/Inf was made by the own code of the call ``state`` (op unknown)."""
        state.made_here = True
        record = self._base("op", state.path, state.cell, state.index, arrived)
        record["depth"] = self.depth_of.get(state.index, 0) + 1
        record["tensors"] = [dict(t, role="result") for t in seen["tensors"]]
        after = state.last_child
        before = child_path.rsplit(".", 1)[-1] if child_path else None
        record["op"] = {"op": None, "phase": "forward", "file": None, "line": None, "function": "construct",
                        "code": None, "inputs_finite": True, "error": None, "after": after, "before": before}
        return record


def _inside(path, outer):
    """Whether the Cell at ``path`` lies inside (or is) the Cell at ``outer``."""
    return outer == "" or path == outer or path.startswith(outer + ".")


class Trace:
    """The events recorded by :func:`trace`, and their displays.

    Attributes
    ----------
    events : list of dict
        One plain record per event, in the order they happened (see the module
        docstring for the kinds).  Each has ``index``, ``kind``, ``path``
        (``''`` for the traced network itself), ``cell`` (class name),
        ``call`` (the same for every event of one call of one Cell; None for
        ``param_grads``), ``depth`` (how many traced calls enclose it),
        ``time_ms`` (since the trace began, tracing overhead excluded),
        ``duration_ms`` (for ``forward``/``backward``: since the matching
        ``*_pre`` event; for a hook: the hook's own time), ``tensors`` (a
        summary per tensor: ``role``, ``index``, ``shape``, ``dtype``,
        ``norm``, ``min``, ``max``, ``mean``, ``nan``, ``inf``, ``finite`` and,
        for tiny tensors, ``values``), ``flags`` and ``first`` (the flags seen
        here, and those seen here for the first time in the trace); hooks
        have ``hook`` (``stage``, ``name``, ``returned``: ``'None'``,
        ``'replacement'`` or ``'error'``, ``error``, ``before_norm``,
        ``after_norm``, ``ledger``: its index in :attr:`hooks`), and ops
        ``op`` (``op``, ``phase``, ``file``, ``line``, ``code``,
        ``inputs_finite``, ``error``; ``after`` / ``before`` for a parent's
        own code).
    first : dict
        ``{flag: index of the event where it first appeared}`` for the flags
        ``'nan'``, ``'inf'``, ``'vanishing'`` and ``'exploding'`` that occur.
    hooks : list of dict
        The hook ledger's raw entries: ``path``, ``cell``, ``stage``, ``name``
        and ``registered`` (``'before'`` the trace, or ``'during'`` it); see
        :meth:`hook_ledger` for what each did.
    """

    def __init__(self, net=None, *, values=8, vanishing=1e-7, exploding=1e3):
        if not isinstance(values, int) or isinstance(values, bool) or values < 0:
            raise ValueError(f"trace: 'values' must be an int >= 0, but got {values!r}")
        for name, bound in (("vanishing", vanishing), ("exploding", exploding)):
            if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not bound > 0:
                raise ValueError(f"trace: '{name}' must be a positive number, but got {bound!r}")
        self.settings = {"values": values, "vanishing": float(vanishing), "exploding": float(exploding)}
        self.events = []
        self.first = {}
        self.hooks = []
        self.notes = []
        self.root = ""
        self._cells = None
        self._classes = {}
        self._ledger_index = {}
        self._recorder = None
        self._watch = None
        self._open_pre = {}   # (call, phase) -> index of the *_pre event, for durations
        self._net = None
        if net is not None:
            from ..nn.cell import Cell

            if not isinstance(net, Cell):
                raise TypeError(f"trace: 'net' must be a Cell, but got {type(net).__name__}")
            self._net = net
            self.root = type(net).__name__

    # -- recording ---------------------------------------------------------------
    @property
    def recording(self):
        """True between :meth:`start` and :meth:`stop`."""
        return self._recorder is not None and self._recorder.active

    def start(self):
        """Attach to every Cell of the network (``with`` calls this); returns the trace."""
        if self._net is None:
            raise RuntimeError("trace: this trace was loaded from data and has no network to record")
        if self.recording:
            raise RuntimeError("trace: already recording")
        from .. import context as _context
        from .nanwatch import OpErrorWatch, supported

        cells = list(self._net.cells_and_names())
        self._classes = {id(cell): type(cell).__name__ for _, cell in cells}
        for path, cell in cells:
            for stage, registry in hook_registries(cell)[:4]:  # the forward and backward hooks
                for hook in registry.values():
                    self._ledger_entry(id(cell), path, type(cell).__name__, stage, hook, registered="before")
        if _context.get_context("mode") == _context.GRAPH_MODE:
            self.notes.append("GRAPH_MODE: Cells run as compiled graphs, so no event is recorded and no hook runs")
        if not supported():
            self.notes.append("this backend reports no floating-point errors: a NaN/Inf is found in the events, "
                              "not at the op that made it")
        params = list(self._net.parameters_and_names())
        self._recorder = _Recorder(self, {id(cell): path for path, cell in cells}, params)
        self._cells = [cell for _, cell in cells]
        for cell in self._cells:
            _observers.add_observer(cell, self._recorder)
        self._watch = OpErrorWatch(self._recorder.on_op).start()
        return self

    def stop(self):
        """Detach from every Cell: they return to exactly the state they had (fast path included)."""
        recorder = self._recorder
        if recorder is None or not recorder.active:
            return self
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
        recorder.check_param_grads()
        recorder.active = False
        for cell in self._cells or ():
            _observers.remove_observer(cell, recorder)
        recorder.owner = None  # a tape that outlives the trace keeps nothing of it alive
        recorder.params = recorder.grads_seen = None
        self._cells = None
        self._net = None
        self._recorder = None
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _ledger_entry(self, cell_id, path, cls, stage, hook, registered="during"):
        key = (cell_id, stage, id(hook))
        index = self._ledger_index.get(key)
        if index is None:
            index = self._ledger_index[key] = len(self.hooks)
            self.hooks.append({"path": path, "cell": cls, "stage": stage, "name": _hook_name(hook),
                               "registered": registered})
        return index

    def _add(self, record):
        record["index"] = len(self.events)
        kind = record["kind"]
        if kind in ("forward_pre", "backward_pre"):
            self._open_pre[(record["call"], kind[:-4])] = record["index"]
        elif kind in ("forward", "backward"):
            pre = self._open_pre.pop((record["call"], kind), None)
            if pre is not None:
                record["duration_ms"] = record["time_ms"] - self.events[pre]["time_ms"]
        flags = _flags_of(record, self.settings)
        record["flags"] = flags
        record["first"] = [f for f in flags if f not in self.first]
        for f in record["first"]:
            self.first[f] = record["index"]
        self.events.append(record)

    # -- reading -------------------------------------------------------------------
    def __len__(self):
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def select(self, kind=None, path=None):
        """The events of one ``kind`` and/or one cell ``path`` (``''`` is the network itself)."""
        return [e for e in self.events if (kind is None or e["kind"] == kind) and (path is None or e["path"] == path)]

    def origin(self, flag="nan"):
        """Where ``flag`` (``'nan'`` or ``'inf'``) was first made: the ``op`` event, or the first event seen.

        >>> Trace().origin("nan") is None
        True
        """
        index = self.first.get(flag)
        return None if index is None else self.events[index]

    def hook_ledger(self):
        """Every hook the trace knows, with what it did: a list of dicts (see :mod:`cellkit.display.hookledger`)."""
        from .hookledger import ledger

        return ledger(self)

    # -- export --------------------------------------------------------------------
    def to_dict(self):
        """Everything as plain lists, dicts, strings and numbers (JSON-ready: no NaN floats).

        >>> Trace().to_dict()["events"]
        []
        """
        return {
            "format": FORMAT, "version": VERSION, "root": self.root, "settings": dict(self.settings),
            "first": dict(self.first), "events": json.loads(json.dumps(self.events)),
            "hooks": json.loads(json.dumps(self.hooks)), "notes": list(self.notes),
        }

    def to_json(self, **kwargs):
        """:meth:`to_dict` as a JSON string (``kwargs`` go to ``json.dumps``, e.g. ``indent=1``)."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    @classmethod
    def from_dict(cls, data):
        """A trace rebuilt from :meth:`to_dict` (displays work; it cannot record).

        Version 1 traces (before ``op``, ``param_grads`` and the hook ledger) load too.

        >>> t = Trace.from_dict(Trace().to_dict())
        >>> len(t)
        0
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"Trace.from_dict: not a cellkit trace (expected format '{FORMAT}')")
        if data.get("version") not in (1, VERSION):
            raise ValueError(f"Trace.from_dict: unsupported trace version {data.get('version')!r} (expected {VERSION})")
        settings = data["settings"]
        trace_ = cls(values=settings["values"], vanishing=settings["vanishing"], exploding=settings["exploding"])
        trace_.root = data["root"]
        trace_.events = json.loads(json.dumps(data["events"]))
        trace_.first = {k: int(v) for k, v in data["first"].items()}
        trace_.hooks = json.loads(json.dumps(data.get("hooks", [])))
        trace_.notes = list(data.get("notes", []))
        return trace_

    @classmethod
    def from_json(cls, text):
        """A trace rebuilt from :meth:`to_json`."""
        return cls.from_dict(json.loads(text))

    # -- displays --------------------------------------------------------------------
    def table(self, limit=MAX_TEXT_ROWS):
        """The events as a plain-text table (what ``print(trace)`` shows)."""
        return _text_table(self, limit)

    def to_html(self, upto=None, depth=None, window=None):
        """The static HTML display: summary and flags, hook ledger, timeline, event table.

        ``upto`` shows only the first ``upto`` events -- the seam for a widget
        whose slider steps through the trace; ``depth`` and ``window`` (a
        ``(first, last)`` range of timeline columns) zoom the timeline.
        """
        from .trace_html import render_trace

        return render_trace(self, upto, depth=depth, window=window)

    def _repr_html_(self):
        return self.to_html()

    def _repr_mimebundle_(self, include=None, exclude=None):
        text = self.table()
        try:
            page = self.to_html()
        except Exception as error:  # a display never raises: fall back to the text
            import html

            page = (f"<pre>{html.escape(text)}</pre><div>(the trace's HTML display failed: "
                    f"{html.escape(type(error).__name__)})</div>")
        return {"text/plain": text, "text/html": page}

    def __str__(self):
        return self.table()

    def __repr__(self):
        state = ", recording" if self.recording else ""
        return f"<Trace of {self.root or 'no network'}: {len(self.events)} events{state}>"


def _flags_of(record, settings):
    flags = []
    gradient_event = record["kind"] in ("backward_pre", "backward", "param_grads") or (
        record["kind"] == "hook" and record["hook"]["stage"].startswith("backward"))
    for t in record["tensors"]:
        if t.get("nan") and "nan" not in flags:
            flags.append("nan")
        if t.get("inf") and "inf" not in flags:
            flags.append("inf")
        if gradient_event and "norm" in t and not t.get("nan") and not t.get("inf") and t["norm"] not in ("nan", "inf"):
            norm = as_float(t["norm"])
            if norm < settings["vanishing"] and "vanishing" not in flags:
                flags.append("vanishing")
            if norm > settings["exploding"] and "exploding" not in flags:
                flags.append("exploding")
    return [f for f in FLAG_KINDS if f in flags]


# ---------------------------------------------------------------------------- text
def format_number(x):
    """``x`` (a float, or 'nan'/'inf' text) in at most four significant digits; ``-`` for None."""
    return "-" if x is None else _html_format_number(x, digits=4)


def _float_text(x):
    """A float as NumPy writes one (``1.``, ``0.25``, ``nan``), in at most four significant digits."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return format_number(x)
    text = f"{x:.4g}"
    return text if any(c in text for c in ".e") else text + "."


def format_values(summary):
    """Tiny tensors' values as NumPy prints them (``[1.]``, ``[[0 1]]``); '' when not kept.

    >>> format_values({"shape": [1, 2], "dtype": "Float32", "values": [1.0, 0.123456]})
    '[[1. 0.1235]]'
    """
    values = summary.get("values")
    if values is None:
        return ""
    if summary["dtype"] == "Bool":
        words = ["True" if v else "False" for v in values]
    elif summary["dtype"].startswith(("Int", "UInt")):
        words = [str(int(v)) for v in values]
    else:
        words = [_float_text(v) for v in values]
    shape = list(summary["shape"])
    if not shape:
        return words[0]

    def nest(items, dims):
        if len(dims) == 1:
            return "[" + " ".join(items) + "]"
        step = len(items) // dims[0] if dims[0] else 0
        return "[" + " ".join(nest(items[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])) + "]"

    return nest(words, shape)


def label_of(event):
    """How a cell is named in displays: its path and class, or the class alone for the network."""
    if event["path"] == "":
        return event["cell"]
    return f"{event['path']} ({event['cell']})"


def describe_tensor(t):
    """One line for a tensor summary: ``inputs[0]: [4, 3] Float32 norm=2 min=0 max=1 [..]``.

    Integer tensors get no norm; statistics of a tensor holding NaN/Inf say
    how many finite values they cover.
    """
    name = t["role"] + (f"[{t['index']}]" if t["index"] != "" else "")
    if t.get("omitted"):
        return f"{t['role']}: … {t['omitted']} more"
    if t.get("none"):
        return f"{name}: None"
    if "repr" in t:
        return f"{name}: {t['type']} {t['repr']}"
    parts = [f"{name}: {list(t['shape'])} {t['dtype']}"]
    if "norm" in t:
        parts.append(f"norm={format_number(t['norm'])}")
    if t.get("min") is not None:
        parts.append(f"min={format_number(t['min'])} max={format_number(t['max'])}")
    if t.get("nan"):
        parts.append(f"NaN×{t['nan']}")
    if t.get("inf"):
        parts.append(f"Inf×{t['inf']}")
    if (t.get("nan") or t.get("inf")) and t.get("finite") is not None and t.get("min") is not None:
        parts.append(f"(min/max of the {t['finite']} finite)")
    values = format_values(t)
    if values:
        parts.append(values)
    return " ".join(parts)


def describe_hook(event):
    """``'forward hook clip returned a replacement (norm 5.2 → 1.0)'``."""
    hook = event["hook"]
    stage = hook["stage"].replace("_", " ")
    if hook["returned"] == "error":
        outcome = f"raised {hook['error']}"
    elif hook["returned"] == "None":
        outcome = "returned None (no change)"
    else:
        outcome = "returned a replacement"
        if hook.get("before_norm") is not None or hook.get("after_norm") is not None:
            outcome += f" (norm {format_number(hook.get('before_norm'))} → {format_number(hook.get('after_norm'))})"
    return f"{stage} hook {hook['name']} {outcome}"


def _place(filename, line):
    """``'model.py:14'``, or ``'a notebook cell, line 14'``."""
    return f"{filename} {line}" if filename.endswith(", line") else f"{filename}:{line}"


def describe_op(event):
    """``'log (forward) at models.py:14: x = ops.log(x), made NaN×4 from finite inputs'``."""
    op = event["op"]
    bad_counts = ", ".join(f"{word}×{sum(t.get(key, 0) for t in event['tensors'])}"
                           for key, word in (("nan", "NaN"), ("inf", "Inf"))
                           if any(t.get(key) for t in event["tensors"]))
    if op["op"] is None:
        where = f"{event['cell']}'s own construct"
        if op.get("after") and op.get("before"):
            where += f", between {op['after']} and {op['before']}"
        elif op.get("after"):
            where += f", after {op['after']}"
        return f"made by {where} (the op is not known on this backend): {bad_counts}"
    text = f"{op['op']} ({op['phase']})"
    if op.get("file"):
        text += f" at {_place(op['file'], op['line'])}"
        if op.get("code"):
            text += f": {op['code']}"
    source = "from finite inputs" if op.get("inputs_finite") else "from inputs already holding NaN/Inf"
    return f"{text} made {bad_counts} {source}" + (f" ({op['error']})" if op.get("error") else "")


def describe_first(event, short=False):
    """Where a flag first appeared, in one phrase (an ``op`` event says what made it).

    ``short`` names the file without its directories.
    """
    if event["kind"] == "op":
        op = event["op"]
        where = f"in {label_of(event)}" if event["path"] or event["cell"] else ""
        if op["op"] is None:
            between = ""
            if op.get("after") and op.get("before"):
                between = f", between {op['after']} and {op['before']}"
            elif op.get("after"):
                between = f", after {op['after']}"
            return f"#{event['index']} made by the own code of {label_of(event)}{between}"
        filename = op.get("file") or ""
        if short:
            filename = filename.replace("\\", "/").rsplit("/", 1)[-1]
        line = f" at {_place(filename, op['line'])}" if filename else ""
        phase = " in backward (its gradient rule)" if op["phase"] == "backward" else ""
        return f"#{event['index']} made by {op['op']}{phase}{line} {where}".rstrip()
    if event["kind"] == "param_grads":
        names = [t["index"] for t in event["tensors"] if t.get("nan") or t.get("inf")
                 or t.get("norm") in ("nan", "inf")]
        return f"#{event['index']} in the gradient of {', '.join(names[:3]) or 'a Parameter'}"
    return f"#{event['index']} {event['kind']} of {label_of(event)}"


def flag_text(event):
    words = []
    for f in event.get("flags", []):
        words.append(FLAG_TITLES[f] + (" (first)" if f in event.get("first", []) else ""))
    return ("!! " + ", ".join(words)) if words else ""


def summary_lines(root, events, hooks=None, notes=()):
    """The heading of a display: counts; where each flag first appeared; hooks that raised or never fired."""
    kinds = {}
    for e in events:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    forward = kinds.get("forward_pre", 0)
    backward = len({e["call"] for e in events if e["kind"] in ("backward_pre", "backward")})
    lines = [
        f"Hook trace of {root or 'a network'}: {len(events)} events "
        f"({forward} forward calls, {backward} backward passes through cells, {kinds.get('hook', 0)} hook calls)"
    ]
    firsts = {}
    for e in events:
        for f in e.get("first", []):
            firsts.setdefault(f, e)
    lines.append("; ".join(f"first {FLAG_TITLES[f]}: {describe_first(firsts[f])}" for f in FLAG_KINDS if f in firsts)
                 or "no NaN, Inf, vanishing or exploding gradient seen")
    raised = [e for e in events if e["kind"] == "hook" and e["hook"]["returned"] == "error"]
    if raised:
        lines.append("; ".join(f"hook {e['hook']['name']} ({e['hook']['stage'].replace('_', ' ')}) on "
                               f"{label_of(e)} raised {e['hook']['error']} (#{e['index']})" for e in raised[:3])
                     + (f"; and {len(raised) - 3} more" if len(raised) > 3 else ""))
    if hooks is not None:
        silent = [h for h in hooks if not h["fired"]]
        if silent:
            lines.append(f"{len(silent)} registered hook{'s' if len(silent) != 1 else ''} never fired: "
                         + "; ".join(f"{h['stage'].replace('_', ' ')} hook {h['name']} on {h['path'] or root} "
                                     f"({h['reason']})" for h in silent[:3])
                         + (f"; and {len(silent) - 3} more" if len(silent) > 3 else ""))
    lines.extend(notes)
    return lines


def _text_table(trace_, limit):
    ledger = trace_.hook_ledger()
    lines = summary_lines(trace_.root, trace_.events, ledger, trace_.notes)
    if not trace_.events:
        lines.append("(no events: run the network inside the 'with' block)")
        return "\n".join(lines)
    rows = [("#", "t ms", "event", "cell", "what")]
    for e in trace_.events[:limit]:
        indent = "  " * e["depth"]
        details = []
        if e["kind"] == "hook":
            details.append(describe_hook(e))
        if e["kind"] == "op":
            details.append(describe_op(e))
        tensors = e["tensors"]
        if e["kind"] == "param_grads":
            details.append(f"{len(tensors)} Parameter gradients")
            tensors = [t for t in tensors if t.get("nan") or t.get("inf") or t.get("norm") in ("nan", "inf")] \
                or tensors[:3]
        details += [describe_tensor(t) for t in tensors]
        if e["duration_ms"] is not None and e["kind"] != "hook":
            details.append(f"took {format_number(e['duration_ms'])} ms")
        flags = flag_text(e)
        if flags:
            details.append(flags)
        details = details or [""]
        rows.append((str(e["index"]), f"{e['time_ms']:.3f}", e["kind"], indent + label_of(e), details[0]))
        rows += [("", "", "", "", d) for d in details[1:]]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        lines.append("  ".join([r[0].rjust(widths[0]), r[1].rjust(widths[1]), r[2].ljust(widths[2]),
                                r[3].ljust(widths[3]), r[4]]).rstrip())
    if len(trace_.events) > limit:
        lines.append(f"... {len(trace_.events) - limit} more events (all of them are in to_dict())")
    if ledger:
        lines.append("hooks:")
        for h in ledger:
            lines.append("  " + h["summary"])
    return "\n".join(lines)
