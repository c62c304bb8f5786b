"""Graph breaks and the Python that a traced graph runs beside its ops (MindSpore's JIT Fallback).

A traced graph is straight-line code.  When ``construct`` (or a ``jit``
function) takes a Python decision on a Tensor's value -- ``if x.sum() > 0:``,
``int(n)``, ``float(loss)``, ``x.item()``, ``x.asnumpy()`` -- the trace
cannot stand for every later call.  cellkit then *breaks the graph* there,
as ``torch.compile`` does, instead of refusing the function:

- the trace goes on with the value the Python code saw, and the break is
  recorded (:class:`GraphBreak`: what was read, the file and line) and
  drawn in the graph display;
- the compiled entry keeps, for each break, a *guard*: the part of the
  graph that computes the Tensor that was read.  At every later call the
  guards run first; when each read gives what it gave while tracing, the
  traced graph is exactly what the Python code would do, so it runs;
  otherwise the function is traced again for these values (one more
  variant, kept beside the others).  A function whose reads never repeat
  (a counter, a loss) runs op by op after a few variants, as PyNative
  would run it.

So results always equal PyNative's; the price of a break is one small
guard graph per call (and a trace per new outcome).

Two other things make a graph run Python at every call:

- ``print`` inside a traced function becomes a graph node that prints when
  the graph runs, in MindSpore's graph-print layout (:func:`graph_print`);
- a function that assigns a global (``global n; n += 1``) must run that
  assignment at every call: it runs op by op (a break says so).

>>> import cellkit as ms
>>> from cellkit import ops
>>> @ms.jit
... def halve_if_big(x):
...     if x.sum() > 4:
...         return x / 2
...     return x
>>> halve_if_big(ms.Tensor([3.0, 3.0])), halve_if_big(ms.Tensor([1.0, 1.0]))
(Tensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00,  1.50000000e+00]), Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  1.00000000e+00]))
>>> [b.reason for b in ms.graph.function_graph(halve_if_big).breaks]
['bool()']
"""
from __future__ import annotations

import builtins
import dis
import sys

import numpy as np

__all__ = ["GraphBreak", "graph_print", "format_for_print", "stored_globals", "normalize_output",
           "MAX_VARIANTS"]

#: How many traced variants (outcomes of the breaks) one signature keeps before running op by op.
MAX_VARIANTS = 8


class GraphBreak:
    """One place where the trace read a Tensor's value (or ran Python it cannot capture).

    Attributes
    ----------
    reason : str
        What happened (``'bool()'``, ``'float()'``, ``'asnumpy()'``, ``"assigns the global 'n'"``).
    location : str
        ``'file.py:12'``.
    line : str
        The source line.
    after : Node or None
        The last graph node recorded before the break (the display draws the break after it).
    """

    __slots__ = ("reason", "location", "line", "after", "ref", "value")

    def __init__(self, reason, location, line="", after=None, ref=None, value=None):
        self.reason = reason
        self.location = location
        self.line = line
        self.after = after
        self.ref = ref        # the Ref read (None for a break that is not a read)
        self.value = value    # the array it held while tracing

    def text(self):
        """``'graph break at file.py:12 (bool()): if x.sum() > 0:'``."""
        tail = f": {self.line}" if self.line else ""
        return f"graph break at {self.location} ({self.reason}){tail}"

    def __repr__(self):
        return f"<GraphBreak {self.reason} at {self.location}>"


# ------------------------------------------------------------------------------ print
def format_for_print(value):
    """How MindSpore's graph-mode ``print`` shows one value (one line or block per argument).

    >>> import cellkit as ms
    >>> print(format_for_print(ms.Tensor([1.5, -2.0])))
    Tensor(shape=[2], dtype=Float32, value=[ 1.50000000e+00 -2.00000000e+00])
    >>> format_for_print((1, 2)), format_for_print(ms.Tensor(2.5))
    ('(1, 2)', '2.5')
    """
    from ..tensor import Tensor

    if isinstance(value, Tensor):
        host = value.asnumpy() if value._data is not None else None
        if host is None:
            return repr(value)
        if host.ndim == 0:
            return str(host.reshape(()).astype(host.dtype).item() if host.dtype == np.bool_ else host[()])
        kind = host.dtype
        if kind.kind == "f":
            digits = {2: 4, 4: 8}.get(kind.itemsize, 16)
            body = np.array2string(host, separator=" ", threshold=1000,
                                   formatter={"float_kind": lambda v, d=digits: f"{v: .{d}e}"})
        else:
            body = np.array2string(host, separator=" ", threshold=1000)
        shape = ", ".join(str(d) for d in host.shape)
        joiner = "" if host.ndim == 1 else "\n"
        return f"Tensor(shape=[{shape}], dtype={value.dtype}, value={joiner}{body})"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(format_for_print(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def graph_print(*values):
    """The node ``print(...)`` becomes in a traced graph: each value on its own line, as MindSpore prints.

    Returns None.  Registered as an op with an effect, so the graph keeps it
    and runs it at every call, in order with the other nodes.

    >>> import cellkit as ms
    >>> graph_print("x:", ms.Tensor([1, 2]))
    x:
    Tensor(shape=[2], dtype=Int64, value=[1 2])
    """
    text = "\n".join(format_for_print(v) for v in values)
    _PRINT(text)
    sys.stdout.flush()


_PRINT = builtins.print


def make_traced_print(tracer):
    """The ``print`` installed while ``tracer`` runs: user prints become :func:`graph_print` nodes."""

    def traced_print(*values, sep=" ", end="\n", file=None, flush=False):
        if file is not None or sep != " " or end != "\n" or tracer.hard is not None or tracer.soft is not None:
            return _PRINT(*values, sep=sep, end=end, file=file, flush=flush)
        tracer.printing += 1
        try:
            return graph_print(*values)
        finally:
            tracer.printing -= 1

    return traced_print


# ------------------------------------------------------------------------------ globals
_STORES = {}


def stored_globals(code):
    """The ``(name, line)`` pairs of the global assignments in ``code`` (cached per code object)."""
    found = _STORES.get(code)
    if found is None:
        found = ()
        if "STORE_GLOBAL" in _GLOBAL_OPNAMES and code.co_names:
            found = tuple((ins.argval, _line_of(ins)) for ins in dis.get_instructions(code)
                          if ins.opname == "STORE_GLOBAL")
        _STORES[code] = found
    return found


_GLOBAL_OPNAMES = set(dis.opname)


def _line_of(instruction):
    positions = getattr(instruction, "positions", None)
    if positions is not None and positions.lineno is not None:
        return positions.lineno
    return instruction.starts_line or 0


# ------------------------------------------------------------------------------ outputs
_SEQUENCES = (map, zip, range, enumerate, reversed)


def normalize_output(value):
    """A jitted function's result as MindSpore returns it: iterators become tuples (``filter``: a list).

    >>> normalize_output(map(abs, (-1, 2))), normalize_output(filter(None, [0, 3]))
    ((1, 2), [3])
    >>> normalize_output(enumerate("ab"))
    ((0, 'a'), (1, 'b'))
    """
    kind = type(value)
    if kind is tuple or kind is list:
        items = [normalize_output(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else kind(items)
    if kind is filter:
        return [normalize_output(v) for v in value]
    if isinstance(value, _SEQUENCES) or kind.__name__ == "generator":
        return tuple(normalize_output(v) for v in value)
    return value
