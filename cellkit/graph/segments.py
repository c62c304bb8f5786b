"""Recompute at graph level: the nodes of a recomputed Cell call run as one checkpointed segment.

While tracing, each node remembers the recomputed Cell call (``cell.recompute()``)
or Primitive (``prim.recompute()``) it ran in.  Consecutive nodes of one such
call form a :class:`Segment`.  When the graph runs under a gradient
transform, a segment is handed to :func:`cellkit.recompute.checkpoint`: its
forward runs without recording (its activations are not kept), and in
backward it runs again, recording, to rebuild them -- with the same random
draws and without counting BatchNorm's batch twice.  Gradients are the same
as without recompute.

Outside a gradient transform nothing is recorded anyway, so segments run
like any other nodes.  The one run that traces the graph (its first call)
is an ordinary recorded run: recompute starts with the compiled graph.

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 1))
>>> net[0].recompute()
>>> graph = ms.graph.build_graph(net, ms.ops.ones((1, 2)))
>>> [(len(s.nodes), s.label) for s in plan_steps(graph) if isinstance(s, Segment)]
[(1, 'Default/0-Dense')]
"""
from __future__ import annotations

from .ir import InputRef, NodeOutput, StateRef, iter_refs

__all__ = ["Segment", "plan_steps"]


class Segment:
    """Consecutive nodes recomputed together.

    Attributes
    ----------
    nodes : list of Node
    label : str
        The recomputed Cell's scope (or the Primitive's name).
    inputs : list of Ref
        Values from outside the segment it reads (graph inputs, earlier nodes' outputs).
    states : list of StateRef
        Parameters and buffers it reads (their gradients flow through the replay).
    outputs : list of NodeOutput
        Its values read after it (by later nodes or the graph's output).
    """

    def __init__(self, nodes, label):
        self.nodes = nodes
        self.label = label
        self.region = None
        self.inputs = []
        self.states = []
        self.outputs = []

    def __repr__(self):
        return f"<Segment {self.label}: {len(self.nodes)} node(s)>"


def plan_steps(graph):
    """The graph's nodes, with each recomputed run of consecutive nodes grouped into a :class:`Segment`."""
    steps = []
    current = None
    for node in graph.nodes:
        region = node.recompute
        if region is None:
            current = None
            steps.append(node)
            continue
        if current is None or current.region is not region:
            current = Segment([], node.recompute_label or node.op)
            current.region = region  # the Cell call (or Primitive call) the nodes ran in
            steps.append(current)
        current.nodes.append(node)
    segments = [s for s in steps if isinstance(s, Segment)]
    if segments:
        _connect(graph, steps, segments)
    return steps


def _connect(graph, steps, segments):
    """Fill in each segment's inputs, states and outputs."""
    owner = {}
    for s in segments:
        for node in s.nodes:
            owner[id(node)] = s
    read_later = {}  # id(segment) -> {key: NodeOutput} read outside it
    for step in steps:
        nodes = step.nodes if isinstance(step, Segment) else [step]
        for node in nodes:
            for ref in node.refs():
                _note_read(ref, step, owner, read_later)
    for ref in iter_refs(graph.output):
        _note_read(ref, None, owner, read_later)
    for s in segments:
        inside = {id(n) for n in s.nodes}
        seen_inputs, seen_states = set(), set()
        for node in s.nodes:
            for ref in node.refs():
                if isinstance(ref, StateRef):
                    if id(ref.tensor) not in seen_states:
                        seen_states.add(id(ref.tensor))
                        s.states.append(ref)
                elif isinstance(ref, InputRef) or (isinstance(ref, NodeOutput) and id(ref.node) not in inside):
                    key = _key(ref)
                    if key not in seen_inputs:
                        seen_inputs.add(key)
                        s.inputs.append(ref)
        s.outputs = list(read_later.get(id(s), {}).values())


def _note_read(ref, reader, owner, read_later):
    if isinstance(ref, NodeOutput):
        producer = owner.get(id(ref.node))
        if producer is not None and producer is not reader:
            read_later.setdefault(id(producer), {}).setdefault(_key(ref), ref)


def _key(ref):
    if isinstance(ref, InputRef):
        return ("input", ref.index)
    return ("node", id(ref.node), ref.path)
