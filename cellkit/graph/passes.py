"""Optimisation passes on the graph IR, and which run at each ``jit_level``.

- :func:`eliminate_dead_code` -- drop the nodes whose results reach neither
  an output nor a node that changes state.  Nodes that change state
  (BatchNorm's running statistics, in-place writes, ``set_data``, an
  optimizer) and random nodes are always kept: a random op advances the
  generator even when its result is unused, and removing it would change
  every later draw compared with PyNative.
- :func:`fold_constants` -- a node whose arguments are all constants (it
  depends on no input, no Parameter, nothing random) has the same result at
  every run: the traced result replaces it as a constant.  Random nodes,
  nodes with effects, and nodes whose result an in-place op later writes
  into are never folded.

Levels (``JitConfig(jit_level=...)``, ``set_context(jit_config=...)``,
``jit(jit_level=...)``): ``O0`` runs the graph as traced; ``O1`` and ``O2``
fold constants and then eliminate dead code.  Recompute is not an
optimisation but a memory choice the model made, so it applies at every
level (see :mod:`cellkit.graph.segments`).

>>> LEVELS["O0"], LEVELS["O1"]
((), ('constant folding', 'dead code elimination'))
"""
from __future__ import annotations

from .ir import ConstRef, NodeOutput, iter_refs, map_refs

__all__ = ["eliminate_dead_code", "fold_constants", "run_passes", "LEVELS", "DEFAULT_LEVEL"]

DEFAULT_LEVEL = "O1"


def eliminate_dead_code(graph):
    """Remove the nodes nothing needs; returns the names of the ops removed."""
    live = set()
    for ref in iter_refs(graph.output):
        if isinstance(ref, NodeOutput):
            live.add(id(ref.node))
    kept = []
    for node in reversed(graph.nodes):
        if id(node) in live or node.effectful or node.random:
            kept.append(node)
            for ref in node.refs():
                if isinstance(ref, NodeOutput):
                    live.add(id(ref.node))
    kept.reverse()
    removed = [n.op for n in graph.nodes if id(n) not in live and not (n.effectful or n.random)]
    graph.nodes = kept
    graph.finish()
    return removed


def fold_constants(graph):
    """Replace constant-only nodes by their traced results; returns the names of the ops folded."""
    written_into = _written_into(graph)
    folded = {}  # id(node) -> node
    consts = {}  # (id(node), path) -> ConstRef

    def substitute(ref):
        if isinstance(ref, NodeOutput) and id(ref.node) in folded:
            key = (id(ref.node), ref.path)
            const = consts.get(key)
            if const is None:
                const = consts[key] = ConstRef(_leaf(ref.node.trace_value, ref.path), ref.spec)
            return const
        return ref

    for node in graph.nodes:
        node.args = map_refs(node.args, substitute)
        node.kwargs = map_refs(node.kwargs, substitute)
        if node.random or node.effectful or node.opaque or node.trace_value is None:
            continue
        if id(node) in written_into or any(r.dynamic for r in node.refs()):
            continue
        folded[id(node)] = node
    graph.output = map_refs(graph.output, substitute)
    names = [n.op for n in graph.nodes if id(n) in folded]
    graph.nodes = [n for n in graph.nodes if id(n) not in folded]
    graph.finish()
    return names


def _written_into(graph):
    """Ids of the nodes whose output an effectful node takes (it may write into it in place)."""
    result = set()
    for node in graph.nodes:
        if node.effectful:
            for ref in node.refs():
                if isinstance(ref, NodeOutput):
                    result.add(id(ref.node))
    return result


def _leaf(value, path):
    for i in path:
        value = value[i]
    return getattr(value, "_data", value)


LEVELS = {
    "O0": (),
    "O1": ("constant folding", "dead code elimination"),
    "O2": ("constant folding", "dead code elimination"),
}

_PASSES = {"constant folding": fold_constants, "dead code elimination": eliminate_dead_code}


def run_passes(graph, level):
    """Run the passes of ``level`` on ``graph`` (in place); each leaves a line in ``graph.passes``."""
    if level not in LEVELS:
        raise ValueError(f"jit_level must be one of {sorted(LEVELS)}, but got {level!r}")
    graph.jit_level = level
    for name in LEVELS[level]:
        changed = _PASSES[name](graph)
        if changed:
            graph.passes.append(f"{name}: {len(changed)} node(s) ({', '.join(changed)})")
        else:
            graph.passes.append(f"{name}: nothing to do")
    return graph
