"""Graph mode for Cells: what ``net(x)``, ``compile``, ``compile_and_run`` and ``get_func_graph_proto`` do.

:mod:`cellkit.nn.cell` knows nothing of this package (it sits below it); it
holds two module globals this module sets:

- ``_direct_calls`` -- True while calling a Cell may go straight to its
  ``construct``.  It is False in GRAPH_MODE and while a graph is traced, so
  every Cell call then reaches :func:`call` (one global check on the
  PyNative fast path, nothing more);
- ``_graph_runtime`` -- this module, for the calls below.

In GRAPH_MODE the *outermost* Cell call compiles (on its first call with a
new input signature) and runs the graph; Cells called inside are traced into
that one graph, not compiled separately.  Hooks do not run (a warning says
so once per Cell).

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.Dense(3, 2)
>>> ms.set_context(mode=ms.GRAPH_MODE)
>>> y = net(ms.ops.ones((1, 3)))
>>> ms.set_context(mode=ms.PYNATIVE_MODE)
>>> ms.graph.graph_of(net).ops(), ms.graph.trace_count(net)
(['dense'], 1)
"""
from __future__ import annotations

import inspect

from .. import batching as _batching
from .. import context as _context
from ..nn import cell as _cell_mod
from ..nn import cell_call as _cell_call
from . import eager, tracer as _tracer
from .compiler import GraphCache, compile_call, level_for, signature, stamp_for
from .mutable import has_mutable, restore_mutable, unwrap_mutable
from .serialize import graph_to_proto

__all__ = ["call", "compile_cell", "compile_and_run", "func_graph_proto", "graph_of", "compiled_of",
           "trace_count", "install", "build_graph"]


def install():
    """Plug graph mode into Cell and the context (done once by ``import cellkit``)."""
    _cell_mod._graph_runtime = _Runtime
    if _sync_direct_calls not in _context._mode_listeners:
        _context._mode_listeners.append(_sync_direct_calls)
    _sync_direct_calls(_context.get_context("mode"))


def _sync_direct_calls(mode):
    if _tracer.active() is None:
        _cell_mod._direct_calls = mode != _context.GRAPH_MODE


# ------------------------------------------------------------------------------ calling
def call(cell, args, kwargs):
    """A Cell called in GRAPH_MODE (or while tracing): trace into it, or compile and run it."""
    active = _tracer._active
    if active is not None:
        return active.call_cell(cell, args, kwargs, eager.run_opaque)
    if eager.opaque_depth or batched_args(args, kwargs):
        # inside an optimizer / custom-bprop Cell, or on vmap's batched tensors: op by op
        return _cell_call.run_graph_stages(cell, args, kwargs)
    if _tracer._is_opaque_cell(cell):
        return eager.run_opaque(cell, args, kwargs)
    return _compiled_call(cell, args, kwargs, restore=False)


def _compiled_call(cell, args, kwargs, restore):
    cache = _cache_of(cell)
    level = level_for(cell)
    key = signature(args, kwargs)
    entry = cache.get(key, stamp_for(level))
    if entry is None:
        if has_mutable(args, kwargs):  # checked on a miss only: a marked value is never a key
            args, kwargs, made = unwrap_mutable(args, kwargs)
            return restore_mutable(_compiled_call(cell, args, kwargs, restore), made)
        if any(getattr(t, "_data", True) is None for t in _tensor_args(args, kwargs)):
            return _cell_call.run_graph_stages(cell, args, kwargs)  # placeholders: nothing concrete to trace with
        _entry, output = _compile(cell, args, kwargs, cache, key, level, restore=restore)
        return output
    cache.last = entry
    return entry(args, kwargs)


def _compile(cell, args, kwargs, cache, key, level, restore):
    def run(*args, **kwargs):
        # The Cell's input checks (set_inputs) and casts (to_float) are traced with construct.
        return _cell_call.run_graph_stages(cell, args, kwargs)

    return compile_call(run, args, kwargs, name=type(cell).__name__, root=cell, cache=cache, key=key,
                        level=level, arg_names=_arg_names(cell.construct), restore=restore)


def _arg_names(fn):
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def batched_args(args, kwargs):
    """True when ``vmap`` calls with batched tensors (a graph is traced for one real example, so it runs op by op)."""
    return any(_batching.is_batched(t._data) for t in _tensor_args(args, kwargs))


def _tensor_args(args, kwargs):
    from ..tensor import Tensor

    for value in list(args) + list(kwargs.values()):
        if isinstance(value, Tensor):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from _tensor_args(value, {})


def _cache_of(cell):
    cache = cell.__dict__.get("_graph_cache")
    if cache is None:
        cache = GraphCache()
        object.__setattr__(cell, "_graph_cache", cache)
    return cache


# ------------------------------------------------------------------------------ Cell methods
def build_graph(cell, *args, **kwargs):
    """Compile ``cell`` for these inputs whatever the mode, and return its :class:`~cellkit.graph.ir.Graph`.

    Like ``Cell.compile`` in GRAPH_MODE (model state is left as it was); handy
    for looking at the graph from PyNative code.  Returns None if the Cell
    cannot be compiled (it runs op by op; see the warning).

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> ms.graph.build_graph(nn.Dense(2, 1), ms.ops.ones((1, 2))).ops()
    ['dense']
    """
    cell.init_parameters_data()
    cache = _cache_of(cell)
    level = level_for(cell)
    key = signature(args, kwargs)
    entry = cache.get(key, stamp_for(level))
    if entry is None:
        entry, _ = _compile(cell, args, kwargs, cache, key, level, restore=True)
    cache.last = entry
    return entry.graph


def compile_cell(cell, args, kwargs):
    """``Cell.compile`` in GRAPH_MODE: build and cache the graph for these inputs, leaving the model's state as it was.

    In PyNative mode there is nothing to compile (Cell.compile only validates).
    """
    if _tracer.active() is not None or _context.get_context("mode") != _context.GRAPH_MODE:
        return
    if any(getattr(t, "_data", True) is None for t in _tensor_args(args, kwargs)):
        return  # dynamic placeholders: the graph is traced on the first call with real inputs
    cache = _cache_of(cell)
    level = level_for(cell)
    key = signature(args, kwargs)
    if cache.get(key, stamp_for(level)) is None:
        previous = _cell_mod._direct_calls
        try:
            _compile(cell, args, kwargs, cache, key, level, restore=True)
        finally:
            _cell_mod._direct_calls = previous
    else:
        cache.last = cache.entries[key]


def compile_and_run(cell, args, kwargs):
    """``Cell.compile_and_run``: in GRAPH_MODE compile, then run the compiled graph; in PyNative, call the Cell."""
    if _context.get_context("mode") != _context.GRAPH_MODE:
        return cell(*args, **kwargs)
    compile_cell(cell, args, kwargs)
    entry = _cache_of(cell).get(signature(args, kwargs), stamp_for(level_for(cell)))
    if entry is None:  # dynamic placeholders: nothing was compiled
        return cell(*args, **kwargs)
    return entry(args, kwargs)


def func_graph_proto(cell):
    """``Cell.get_func_graph_proto``: the last compiled graph as JSON bytes."""
    cache = cell.__dict__.get("_graph_cache")
    entry = cache.last if cache is not None else None
    if entry is None or entry.graph is None:
        reason = "" if entry is None else f" ({entry.name} runs op by op: {entry.reason})"
        raise RuntimeError(
            f"{type(cell).__name__} has no compiled graph{reason}: set GRAPH_MODE and call the Cell, "
            "or call compile(...) first"
        )
    return graph_to_proto(entry.graph)


# ------------------------------------------------------------------------------ looking at it
def compiled_of(cell):
    """The last compiled entry of ``cell`` (``.graph``, ``.plan``), or None."""
    cache = cell.__dict__.get("_graph_cache")
    return cache.last if cache is not None else None


def graph_of(cell):
    """The last compiled :class:`~cellkit.graph.ir.Graph` of ``cell``, or None."""
    entry = compiled_of(cell)
    return entry.graph if entry is not None else None


def trace_count(cell):
    """How many times ``cell`` has been traced (each new input signature traces once)."""
    cache = cell.__dict__.get("_graph_cache")
    return cache.traces if cache is not None else 0


class _Runtime:
    """The calls :mod:`cellkit.nn.cell` makes through its ``_graph_runtime`` slot."""

    call = staticmethod(call)
    compile = staticmethod(compile_cell)
    compile_and_run = staticmethod(compile_and_run)
    func_graph_proto = staticmethod(func_graph_proto)
