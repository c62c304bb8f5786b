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
outputs), ``backward`` (its input gradients are known) and ``hook`` (a user
hook ran; ``stage`` says which kind).  Backward events exist only while a
gradient transform records, and no event is emitted in GRAPH_MODE.  A cell
whose inputs need no gradient (the first layer, fed with data) has a
``backward_pre`` event but no ``backward``: no gradient leaves it.

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
>>> net._fast_call  # tracing is over: the Cells are back on their fast path
True
"""
from __future__ import annotations

import json
import math
import time

from .. import backend as _backend
from ..nn import observers as _observers
from ..tensor import Tensor
from .html import format_number as _html_format_number

__all__ = ["trace", "Trace"]

FORMAT = "cellkit.trace"
VERSION = 1
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
    """Shape, dtype and statistics of ``tensor``, computed on its device; only scalars come back.

    >>> import cellkit as ms
    >>> s = tensor_summary(ms.Tensor([3.0, 4.0, float("nan")]), values_limit=8)
    >>> s["norm"], s["min"], s["max"], s["nan"], s["values"]  # the norm is NaN; min/max see the finite part
    ('nan', 3.0, 4.0, 1, [3.0, 4.0, 'nan'])
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
    xp = be.xp
    x = xp.astype(data, xp.float64)
    finite = xp.isfinite(x)
    zero = xp.zeros_like(x)
    clean = xp.where(finite, x, zero)
    n_finite = xp.sum(xp.astype(finite, xp.float64))
    big = xp.full_like(x, math.inf)
    scalars = xp.stack([
        xp.sqrt(xp.sum(clean * clean)),
        xp.sum(clean) / xp.maximum(n_finite, xp.ones_like(n_finite)),
        xp.min(xp.where(finite, x, big)),
        xp.max(xp.where(finite, x, -big)),
        xp.sum(xp.astype(xp.isnan(x), xp.float64)),
        xp.sum(xp.astype(xp.isinf(x), xp.float64)),
        n_finite,
    ])
    norm, mean, low, high, nans, infs, finite_count = (float(v) for v in be.to_host(scalars).tolist())
    # The norm is what the maths gives (NaN or Inf as soon as one element is); min, max and
    # mean describe the finite elements, so a single NaN does not hide the rest.
    summary["norm"] = "nan" if nans else ("inf" if infs else _finite_or_text(norm))
    if finite_count:
        summary.update(mean=_finite_or_text(mean), min=_finite_or_text(low), max=_finite_or_text(high))
    else:
        summary.update(mean=None, min=None, max=None)
    summary["nan"] = int(nans)
    summary["inf"] = int(infs)
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


def _hook_name(hook):
    name = getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None)
    if name is None:
        name = type(hook).__qualname__ + " object"
    return name.rsplit("<locals>.", 1)[-1]  # 'make.<locals>.hook' reads as 'hook'; methods keep 'Class.method'


# ---------------------------------------------------------------------------- recording
class _Recorder:
    """The observer attached to every watched Cell; turns runtime events into plain records."""

    def __init__(self, owner, paths):
        self.owner = owner
        self.paths = paths          # id(cell) -> dotted path ('' for the root)
        self.calls = {}             # runtime call id -> trace call index
        self.depth_of = {}          # trace call index -> depth
        self.stack = []             # trace call indices of the cells now inside construct
        self.start = time.perf_counter()
        self.overhead = 0.0         # time spent here, taken off the clock
        self.active = True

    def on_event(self, kind, cell, payload):
        arrived = time.perf_counter()
        if not self.active:
            return
        try:
            self.owner._add(self._record(kind, cell, payload, arrived))
        finally:
            self.overhead += time.perf_counter() - arrived

    def _record(self, kind, cell, payload, arrived):
        owner = self.owner
        clock = arrived - self.start - self.overhead
        runtime_call = payload["call"]
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
            if kind == "forward" and call in self.stack:
                del self.stack[self.stack.index(call):]
        record = {
            "index": len(owner.events), "kind": kind, "path": self.paths.get(id(cell), "?"),
            "cell": type(cell).__name__, "call": call, "depth": self.depth_of[call],
            "time_ms": clock * 1e3, "duration_ms": None, "tensors": [],
        }
        limit = owner.settings["values"]
        if kind == "forward_pre":
            record["tensors"] = _summaries("inputs", payload["inputs"], limit)
        elif kind == "forward":
            record["tensors"] = _summaries("output", payload["output"], limit)
        elif kind == "backward_pre":
            record["tensors"] = _summaries("grad_output", payload["grad_output"], limit)
        elif kind == "backward":
            record["tensors"] = _summaries("grad_input", payload["grad_input"], limit)
        elif kind == "hook":
            result, error = payload["result"], payload["error"]
            record["duration_ms"] = payload["seconds"] * 1e3
            record["hook"] = {
                "stage": payload["stage"], "name": _hook_name(payload["hook"]),
                "returned": "error" if error is not None else ("None" if result is None else "replacement"),
                "error": None if error is None else f"{type(error).__name__}: {error}",
            }
            if result is not None:
                record["tensors"] = _summaries("result", result, limit)
        return record


class Trace:
    """The events recorded by :func:`trace`, and their displays.

    Attributes
    ----------
    events : list of dict
        One plain record per event, in the order they happened (see the module
        docstring for the kinds).  Each has ``index``, ``kind``, ``path``
        (``''`` for the traced network itself), ``cell`` (class name),
        ``call`` (the same for every event of one call of one Cell),
        ``depth`` (how many traced calls enclose it), ``time_ms`` (since the
        trace began, tracing overhead excluded), ``duration_ms`` (for
        ``forward``/``backward``: since the matching ``*_pre`` event; for a
        hook: the hook's own time), ``tensors`` (a summary per tensor:
        ``role``, ``index``, ``shape``, ``dtype``, ``norm``, ``min``, ``max``,
        ``mean``, ``nan``, ``inf`` and, for tiny tensors, ``values``),
        ``flags`` and ``first`` (the flags seen here, and those seen here
        for the first time in the trace), and for hooks ``hook`` (``stage``,
        ``name``, ``returned``: ``'None'``, ``'replacement'`` or ``'error'``).
    first : dict
        ``{flag: index of the event where it first appeared}`` for the flags
        ``'nan'``, ``'inf'``, ``'vanishing'`` and ``'exploding'`` that occur.
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
        self.root = ""
        self._cells = None
        self._recorder = None
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
        cells = list(self._net.cells_and_names())
        self._recorder = _Recorder(self, {id(cell): path for path, cell in cells})
        self._cells = [cell for _, cell in cells]
        for cell in self._cells:
            _observers.add_observer(cell, self._recorder)
        return self

    def stop(self):
        """Detach from every Cell: they return to exactly the state they had (fast path included)."""
        recorder = self._recorder
        if recorder is None or not recorder.active:
            return self
        recorder.active = False
        for cell in self._cells or ():
            _observers.remove_observer(cell, recorder)
        recorder.owner = None  # a tape that outlives the trace keeps nothing of it alive
        self._cells = None
        self._net = None
        self._recorder = None
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _add(self, record):
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

    # -- export --------------------------------------------------------------------
    def to_dict(self):
        """Everything as plain lists, dicts, strings and numbers (JSON-ready: no NaN floats).

        >>> Trace().to_dict()["events"]
        []
        """
        return {
            "format": FORMAT, "version": VERSION, "root": self.root, "settings": dict(self.settings),
            "first": dict(self.first), "events": json.loads(json.dumps(self.events)),
        }

    def to_json(self, **kwargs):
        """:meth:`to_dict` as a JSON string (``kwargs`` go to ``json.dumps``, e.g. ``indent=1``)."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    @classmethod
    def from_dict(cls, data):
        """A trace rebuilt from :meth:`to_dict` (displays work; it cannot record).

        >>> t = Trace.from_dict(Trace().to_dict())
        >>> len(t)
        0
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"Trace.from_dict: not a cellkit trace (expected format '{FORMAT}')")
        if data.get("version") != VERSION:
            raise ValueError(f"Trace.from_dict: unsupported trace version {data.get('version')!r} (expected {VERSION})")
        settings = data["settings"]
        trace_ = cls(values=settings["values"], vanishing=settings["vanishing"], exploding=settings["exploding"])
        trace_.root = data["root"]
        trace_.events = json.loads(json.dumps(data["events"]))
        trace_.first = {k: int(v) for k, v in data["first"].items()}
        return trace_

    @classmethod
    def from_json(cls, text):
        """A trace rebuilt from :meth:`to_json`."""
        return cls.from_dict(json.loads(text))

    # -- displays --------------------------------------------------------------------
    def table(self, limit=MAX_TEXT_ROWS):
        """The events as a plain-text table (what ``print(trace)`` shows)."""
        return _text_table(self, limit)

    def to_html(self, upto=None):
        """The static HTML display: timeline, then event table.

        ``upto`` shows only the first ``upto`` events -- the seam for a widget
        whose slider steps through the trace.
        """
        from .trace_html import render_trace

        return render_trace(self, upto)

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
    gradient_event = record["kind"] in ("backward_pre", "backward") or (
        record["kind"] == "hook" and record["hook"]["stage"].startswith("backward"))
    for t in record["tensors"]:
        if t.get("nan") and "nan" not in flags:
            flags.append("nan")
        if t.get("inf") and "inf" not in flags:
            flags.append("inf")
        if gradient_event and "norm" in t and not t.get("nan") and not t.get("inf"):
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
    """One line for a tensor summary: ``inputs[0]: [4, 3] Float32 norm=2 min=0 max=1 [..]``."""
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
        if t["min"] is not None:
            parts.append(f"min={format_number(t['min'])} max={format_number(t['max'])}")
        if t["nan"]:
            parts.append(f"NaN×{t['nan']}")
        if t["inf"]:
            parts.append(f"Inf×{t['inf']}")
    values = format_values(t)
    if values:
        parts.append(values)
    return " ".join(parts)


def describe_hook(event):
    hook = event["hook"]
    stage = hook["stage"].replace("_", " ")
    if hook["returned"] == "error":
        outcome = f"raised {hook['error']}"
    elif hook["returned"] == "None":
        outcome = "returned None (no change)"
    else:
        outcome = "returned a replacement"
    return f"{stage} hook {hook['name']} {outcome}"


def flag_text(event):
    words = []
    for f in event.get("flags", []):
        words.append(FLAG_TITLES[f] + (" (first)" if f in event.get("first", []) else ""))
    return ("!! " + ", ".join(words)) if words else ""


def summary_lines(root, events):
    """The heading of a display: counts, then where each flag first appeared (within ``events``)."""
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
    lines.append("; ".join(f"first {FLAG_TITLES[f]}: #{firsts[f]['index']} {firsts[f]['kind']} of {label_of(firsts[f])}"
                           for f in FLAG_KINDS if f in firsts)
                 or "no NaN, Inf, vanishing or exploding gradient seen")
    return lines


def _text_table(trace_, limit):
    lines = summary_lines(trace_.root, trace_.events)
    if not trace_.events:
        lines.append("(no events: run the network inside the 'with' block)")
        return "\n".join(lines)
    rows = [("#", "t ms", "event", "cell", "what")]
    for e in trace_.events[:limit]:
        indent = "  " * e["depth"]
        details = []
        if e["kind"] == "hook":
            details.append(describe_hook(e))
        details += [describe_tensor(t) for t in e["tensors"]]
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
    return "\n".join(lines)
