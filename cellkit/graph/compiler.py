"""Compiling: trace, run the passes, build the plans -- and cache the result per input signature.

A graph is specialised to what it was traced with: the inputs' shapes and
dtypes, the Python values passed beside them, which inputs were the same
Tensor, the Cells' configuration (``set_train``, hooks, recompute ...), the
jit level and the backend.  :func:`signature` condenses the call into a
hashable key; :class:`GraphCache` keeps the compiled entries of one Cell or
jitted function (a bounded, least-recently-used dict) and counts traces.

A new shape is a new key, so it is traced again (as MindSpore compiles a new
graph for a new static shape); ``set_inputs`` with dynamic dimensions
checks the declared dimensions and then does the same: each new concrete
shape is one more trace, kept in the cache.

>>> import cellkit as ms
>>> key1 = signature((ms.ops.ones((2, 3)),), {})
>>> key1 == signature((ms.ops.zeros((2, 3)),), {}), key1 == signature((ms.ops.ones((4, 3)),), {})
(True, False)
"""
from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import context as _context
from .. import seed as _seed
from ..nn import cell as _cell_mod
from ..tensor import Tensor
from .errors import user_stacklevel
from .executor import build_plan
from .fallback import MAX_VARIANTS
from .ir import Graph, NodeOutput
from .passes import DEFAULT_LEVEL, run_passes
from .tracer import Tracer

__all__ = ["signature", "GraphCache", "CompiledGraph", "EagerEntry", "GuardedEntry", "compile_call", "level_for"]

MAX_ENTRIES = 16


# ------------------------------------------------------------------------------ keys
def signature(args, kwargs):
    """A hashable key for a call: Tensor shapes and dtypes, other values, and which Tensors are shared."""
    arrays = []
    key = tuple([_key(a, arrays) for a in args])
    if kwargs:
        key += (tuple((k, _key(kwargs[k], arrays)) for k in sorted(kwargs)),)
    if len(arrays) > 1:
        first = {}
        key += (tuple(first.setdefault(id(a), i) for i, a in enumerate(arrays)),)
    return key


def _key(value, arrays):
    if isinstance(value, Tensor):
        data = value._data
        if data is None:
            return ("placeholder", value.shape, str(value.dtype))
        arrays.append(data)
        return (data.shape, data.dtype)
    kind = type(value)
    if kind is tuple or kind is list:
        return (kind, tuple(_key(v, arrays) for v in value))
    if kind is dict:
        return (kind, tuple((k, _key(value[k], arrays)) for k in value))
    try:
        hash(value)
    except TypeError:
        return (kind, id(value))
    return (kind, value)


# ------------------------------------------------------------------------------ entries
class CompiledGraph:
    """A graph ready to run, with what it was compiled for.

    Attributes
    ----------
    graph : Graph
    plan : cellkit.graph.executor.Plan
    """

    kind = "graph"
    guard = None  # (run, values) when the trace had graph breaks

    def __init__(self, graph, plan, stamp):
        self.graph = graph
        self.plan = plan
        self.stamp = stamp

    def __call__(self, args, kwargs):
        if _ag._depth:
            return self.plan.tape(args, kwargs)
        return self.plan.fast(args, kwargs)


class EagerEntry:
    """A call the IR cannot capture (a gradient transform inside): ``construct`` runs op by op.

    Cells it calls are still compiled, and hooks still do not run.
    """

    kind = "eager"

    def __init__(self, fn, reason, stamp, name):
        self.fn = fn
        self.reason = reason
        self.stamp = stamp
        self.graph = None  # for a function with graph breaks: the traced graph, for display
        self.name = name

    def __call__(self, args, kwargs):
        return self.fn(*args, **kwargs)


class GraphCache:
    """The compiled entries of one Cell or jitted function, by signature (least recently used first out)."""

    def __init__(self):
        self.entries = OrderedDict()
        self.traces = 0
        self.last = None

    def get(self, key, stamp):
        entry = self.entries.get(key)
        if entry is None or entry.stamp != stamp:
            return None
        return entry

    def put(self, key, entry):
        self.entries[key] = entry
        self.entries.move_to_end(key)
        while len(self.entries) > MAX_ENTRIES:
            self.entries.popitem(last=False)
        self.last = entry

    def clear(self):
        self.entries.clear()

    # A copied or pickled Cell starts with an empty cache: compiled graphs hold the original Cell's
    # Parameters (and generated code, which does not pickle), so a copy compiles its own.
    def __reduce__(self):
        return (GraphCache, ())

    def __deepcopy__(self, memo):
        return GraphCache()


def stamp_for(level):
    """What a cached entry must still match: the Cells' configuration version, the level and the backend."""
    return (_cell_mod._config_version, level, id(_backend._current))


def level_for(cell):
    """The jit level for ``cell``: its own ``set_jit_config``, else the context's ``jit_config``, else O1."""
    record = getattr(cell, "_parallel", None) if cell is not None else None
    config = None if record is None else record.jit_config
    level = config.jit_config_dict.get("jit_level", "") if config is not None else ""
    if not level:
        context_config = _context._settings["jit_config"]
        if isinstance(context_config, dict):
            level = context_config.get("jit_level", "")
        elif context_config is not None and hasattr(context_config, "jit_config_dict"):
            level = context_config.jit_config_dict.get("jit_level", "")
    return level or DEFAULT_LEVEL


# ------------------------------------------------------------------------------ compiling
_warned_hook_cells = weakref.WeakSet()
_warned_eager = weakref.WeakSet()


def compile_call(fn, args, kwargs, *, name, root, cache, key, level, arg_names=(), restore=False, fullgraph=False):
    """Trace ``fn(*args, **kwargs)``, compile it and store it in ``cache`` under ``key``.

    Returns ``(entry, output)``: the traced run's real output (with
    ``restore``, Parameters, buffers and the random generator are put back
    afterwards, so compiling has no effect on the model's state).  A trace
    with graph breaks gives a :class:`GuardedEntry`.
    """
    stamp = stamp_for(level)
    traced, output = _trace(fn, args, kwargs, name, root, level, arg_names, restore, fullgraph)
    if isinstance(traced, CompiledGraph) and traced.graph.breaks:
        entry = GuardedEntry(fn, stamp, name, root, level, arg_names)
        entry.add(traced)
    else:
        entry = traced
    cache.traces += 1
    entry.cache = cache
    cache.put(key, entry)
    return entry, output


def _trace(fn, args, kwargs, name, root, level, arg_names, restore, fullgraph=False):
    """One trace: ``(CompiledGraph or EagerEntry, output)``."""
    stamp = stamp_for(level)
    tracer = Tracer(name, root, fullgraph=fullgraph)
    saved = _StateSnapshot(root) if restore else None
    try:
        output = tracer.run(fn, args, kwargs, arg_names)
    finally:
        if saved is not None:
            saved.restore()
    _warn_hooks(tracer.hooked_cells)
    if tracer.untraceable is not None:
        entry = EagerEntry(fn, tracer.untraceable, stamp, name)
        _warn_eager(root, name, tracer.untraceable)
        return entry, output
    graph = tracer.graph()
    guard = None
    if tracer.global_stores:
        reason = tracer.global_stores[0].reason + f" ({tracer.global_stores[0].location})"
        entry = EagerEntry(fn, reason, stamp, name)
        entry.graph = graph
        _clear_trace_values(graph)
        return entry, output
    if tracer.breaks:
        guard = _guard_plan(graph, tracer.breaks)
        if guard is None:
            where = tracer.breaks[0]
            entry = EagerEntry(fn, f"a graph break ({where.reason} at {where.location}) reads a value made by "
                                   "a random or state-changing op", stamp, name)
            entry.graph = graph
            _clear_trace_values(graph)
            return entry, output
        graph.finish()  # the guard graph numbered the shared nodes its own way
    run_passes(graph, level)
    plan = build_plan(graph)
    _clear_trace_values(graph)
    entry = CompiledGraph(graph, plan, stamp)
    entry.guard = guard
    return entry, output


def _clear_trace_values(graph):
    for node in graph.nodes:  # the traced values served folding and the kernel checks
        node.trace_value = None
        node.trace_arrays = None


def _guard_plan(graph, breaks):
    """The plan computing the Tensors the breaks read, with their traced values; None if it cannot be rerun."""
    wanted = [b.ref for b in breaks]
    live = set()
    for ref in wanted:
        if isinstance(ref, NodeOutput):
            live.add(id(ref.node))
    nodes = []
    for node in reversed(graph.nodes):
        if id(node) in live:
            if node.random or node.effectful or node.opaque:
                return None
            nodes.append(node)
            for ref in node.refs():
                if isinstance(ref, NodeOutput):
                    live.add(id(ref.node))
    nodes.reverse()
    guard = Graph(graph.name + "/guard", graph.inputs, graph.states, nodes, tuple(wanted), graph.jit_level)
    guard.input_template = graph.input_template
    plan = build_plan(guard)
    return plan.fast, [b.value for b in breaks]


def _same(value, traced):
    host = value._data
    if not isinstance(host, np.ndarray):
        host = _backend.current().to_host(host)
    return host.shape == traced.shape and bool(np.array_equal(host, traced))


class GuardedEntry:
    """The compiled variants of a call whose trace had graph breaks (see :mod:`cellkit.graph.fallback`).

    Each variant is a graph traced for one outcome of the breaks; a call runs
    the first variant whose guards see the values it was traced with, or
    traces a new one (up to ``MAX_VARIANTS``; then the function runs op by op).
    """

    kind = "graph"

    def __init__(self, fn, stamp, name, root, level, arg_names):
        self.fn = fn
        self.stamp = stamp
        self.name = name
        self.root = root
        self.level = level
        self.arg_names = arg_names
        self.variants = []
        self.graph = None
        self.plan = None
        self.eager = None   # the reason, once the function runs op by op
        self.cache = None

    def add(self, compiled):
        self.variants.insert(0, compiled)
        self.graph, self.plan = compiled.graph, compiled.plan

    @property
    def breaks(self):
        return self.graph.breaks if self.graph is not None else []

    def __call__(self, args, kwargs):
        if self.eager is not None:
            return self.fn(*args, **kwargs)
        for variant in self.variants:
            if self._matches(variant, args, kwargs):
                self.graph, self.plan = variant.graph, variant.plan
                return variant(args, kwargs)
        if len(self.variants) >= MAX_VARIANTS:
            self.eager = f"its graph breaks gave more than {MAX_VARIANTS} different values"
            return self.fn(*args, **kwargs)
        traced, output = _trace(self.fn, args, kwargs, self.name, self.root, self.level, self.arg_names, False)
        if self.cache is not None:
            self.cache.traces += 1
        if isinstance(traced, CompiledGraph):
            self.add(traced)
        else:
            self.eager = traced.reason
            self.graph = traced.graph
        return output

    @staticmethod
    def _matches(variant, args, kwargs):
        guard = variant.guard
        if guard is None:
            return True
        run, values = guard
        try:
            got = run(args, kwargs)
        except Exception:  # noqa: BLE001 -- a guard computed for other values may not even run: no match
            return False
        return all(_same(g, v) for g, v in zip(got, values))


def _warn_hooks(cells):
    fresh = []
    for cell in cells:
        if cell not in _warned_hook_cells:
            _warned_hook_cells.add(cell)
            fresh.append(cell)
    if fresh:
        names = ", ".join(sorted({type(c).__name__ for c in fresh}))
        warnings.warn(
            f"Hooks do not run in GRAPH_MODE (nor inside jit): the hooks registered on {names} are skipped, "
            "as in MindSpore. Use PYNATIVE_MODE to run them.", UserWarning, stacklevel=user_stacklevel())


def _warn_eager(root, name, reason):
    marker = root if root is not None else _EAGER_FUNCTIONS.setdefault(name, _Marker())
    if marker in _warned_eager:
        return
    _warned_eager.add(marker)
    warnings.warn(
        f"GRAPH_MODE: '{name}' cannot be compiled because {reason}; cellkit runs its construct op by op "
        "(the Cells it calls are compiled, hooks still do not run).", UserWarning, stacklevel=user_stacklevel())


class _Marker:
    """A weak-referenceable stand-in for a function that warned once."""


_EAGER_FUNCTIONS = {}


class _StateSnapshot:
    """The data of a Cell's Parameters and buffers and the random generator, to put back after tracing."""

    def __init__(self, root):
        self.tensors = []
        if root is not None:
            self.tensors = [(p, p._data) for p in root.get_parameters()]
            for _, cell in root.cells_and_names():
                self.tensors += [(b, b._data) for b in cell._buffers.values() if b is not None]
        generator = _seed.generator()
        self.generator = generator
        self.state = generator.bit_generator.state

    def restore(self):
        for tensor, data in self.tensors:
            tensor._data = data
        self.generator.bit_generator.state = self.state
