"""The graph IR: a flat list of op calls, each argument a reference to a value.

A :class:`Graph` is what tracing ``construct`` once produces:

- ``inputs`` -- the Tensors the caller passes (:class:`InputRef`);
- ``states`` -- Parameters and buffers, read *live* at every run so an
  optimizer's updates are seen (:class:`StateRef`);
- ``nodes`` -- one :class:`Node` per op call, in the order they ran; each
  argument is a Python value or a reference to an input, a state, a baked
  constant (:class:`ConstRef`) or an earlier node's output (:class:`NodeOutput`);
- ``output`` -- the returned structure, with references at its Tensor leaves.

Every value carries its shape and dtype (:class:`TensorSpec`), known from the
traced run.  ``str(graph)`` prints a listing in the spirit of MindSpore's IR
dumps; :meth:`Graph.to_dict` is the serialisable form (see
:mod:`cellkit.graph.serialize`); in a notebook the graph draws itself.

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(3, 2), nn.ReLU())
>>> graph = ms.graph.build_graph(net, ms.ops.ones((1, 3)))
>>> [node.op for node in graph.nodes]
['dense', 'relu']
>>> graph.nodes[1].outputs
Float32[1, 2]
"""
from __future__ import annotations

from .. import dtype as _dt

__all__ = ["TensorSpec", "InputRef", "StateRef", "ConstRef", "NodeOutput", "Node", "Graph", "Ref",
           "map_refs", "iter_refs", "iter_leaves"]


class TensorSpec:
    """The static description of a Tensor value: its shape and dtype.

    >>> import cellkit as ms
    >>> TensorSpec((2, 3), ms.float32)
    Float32[2, 3]
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @classmethod
    def of_array(cls, array):
        return cls(tuple(getattr(array, "shape", ())), _dt.dtype_of(array))

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self.shape == other.shape and self.dtype is other.dtype

    def __hash__(self):
        return hash((self.shape, str(self.dtype)))

    def __repr__(self):
        return f"{self.dtype}[{', '.join(str(d) for d in self.shape)}]"


class Ref:
    """Base of the references an argument or output may hold (a value of the graph)."""

    __slots__ = ("spec",)

    #: True when the value can change from run to run (inputs, states, what depends on them).
    dynamic = True


class InputRef(Ref):
    """Graph input ``index``: the ``index``-th Tensor found in the call's arguments."""

    __slots__ = ("index", "name")

    def __init__(self, index, name, spec):
        self.index = index
        self.name = name
        self.spec = spec

    def __repr__(self):
        return f"%{self.name}"


class StateRef(Ref):
    """A Parameter or buffer, read when the graph runs (never copied into the graph)."""

    __slots__ = ("tensor", "name", "kind")

    def __init__(self, tensor, name, kind, spec):
        self.tensor = tensor
        self.name = name
        self.kind = kind  # 'parameter' or 'buffer'
        self.spec = spec

    def __repr__(self):
        return f"%{self.name}"


class ConstRef(Ref):
    """A value baked into the graph: a Tensor made in ``construct`` or a folded result."""

    __slots__ = ("array", "index")
    dynamic = False

    def __init__(self, array, spec):
        self.array = array
        self.spec = spec
        self.index = None  # numbered by Graph.finish

    def __repr__(self):
        return f"$c{self.index}" if self.index is not None else "$const"


class NodeOutput(Ref):
    """The output of ``node``; ``path`` indexes into a tuple output (``()`` for the whole)."""

    __slots__ = ("node", "path")

    def __init__(self, node, path, spec):
        self.node = node
        self.path = tuple(path)
        self.spec = spec

    @property
    def dynamic(self):
        return self.node.dynamic

    def __repr__(self):
        return f"%{self.node.index}" + "".join(f"[{i}]" for i in self.path)


def map_refs(value, fn):
    """``value`` with every :class:`Ref` leaf replaced by ``fn(ref)`` (containers rebuilt only if needed)."""
    if isinstance(value, Ref):
        return fn(value)
    kind = type(value)
    if kind is tuple or kind is list:
        items = [map_refs(v, fn) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return kind(items)
    if kind is dict:
        items = {k: map_refs(v, fn) for k, v in value.items()}
        if all(items[k] is v for k, v in value.items()):
            return value
        return items
    return value


def iter_leaves(value, kind):
    """Every leaf of type ``kind`` in a nested tuple / list / dict, in order."""
    if isinstance(value, kind):
        yield value
    elif type(value) in (tuple, list):
        for v in value:
            yield from iter_leaves(v, kind)
    elif type(value) is dict:
        for v in value.values():
            yield from iter_leaves(v, kind)


def iter_refs(value):
    """Every :class:`Ref` leaf of a nested tuple / list / dict, in order."""
    return iter_leaves(value, Ref)


class Node:
    """One op call.

    Attributes
    ----------
    op : str
        The op's name (``'dense'``, ``'ReLU'`` for a Primitive).
    target : callable
        What runs it: the op function, or the Primitive / Cell instance.
    args, kwargs : tuple, dict
        The call's arguments: Python values, with :class:`Ref` leaves for Tensors.
    arg_names : tuple of str
        The op's names for the leading positional arguments (for kernels and displays).
    outputs : TensorSpec, tuple or other value
        The output's structure with a :class:`TensorSpec` at each Tensor leaf.
    scope : str
        The Cell path the call happened in (``Default/fc1-Dense``).
    location : str
        ``file:line`` of the call in the code that made it.
    random, effectful : bool
        Draws random numbers / changes state (never folded, never removed).
    recompute : object or None
        The recomputed Cell call (or Primitive) this node belongs to.
    """

    __slots__ = ("index", "op", "target", "kind", "args", "kwargs", "arg_names", "outputs", "scope",
                 "location", "random", "effectful", "opaque", "recompute", "recompute_label", "primitive",
                 "_dynamic", "trace_value", "trace_arrays")

    def __init__(self, op, target, kind, args, kwargs, arg_names, scope="Default", location="",
                 random=False, effectful=False, opaque=False, primitive=None):
        self.index = None
        self.op = op
        self.target = target
        self.kind = kind  # 'function', 'primitive' (target(*args)), 'cell' (opaque Cell call)
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.arg_names = tuple(arg_names)
        self.outputs = None
        self.scope = scope
        self.location = location
        self.random = random
        self.effectful = effectful
        self.opaque = opaque
        self.recompute = None
        self.recompute_label = None
        self.primitive = primitive
        self._dynamic = None
        self.trace_value = None   # the traced output (for constant folding and kernel checks, then dropped)
        self.trace_arrays = None  # id(ref) -> the array it held when the node was traced

    def refs(self):
        """The references among the arguments, in order."""
        yield from iter_refs(self.args)
        yield from iter_refs(self.kwargs)

    @property
    def dynamic(self):
        """Whether the output can differ from run to run (so it cannot be folded into a constant)."""
        if self._dynamic is None:
            self._dynamic = self.random or self.effectful or self.opaque or any(r.dynamic for r in self.refs())
        return self._dynamic

    def output_specs(self):
        """The :class:`TensorSpec` of every Tensor the node returns, in order."""
        return [s for s in _iter_specs(self.outputs)]

    def signature_text(self):
        """``dense(%x, %fc1.weight, %fc1.bias)``: the call with its arguments."""
        parts = [_value_text(a) for a in self.args]
        parts += [f"{k}={_value_text(v)}" for k, v in self.kwargs.items()]
        if self.kind == "primitive" and parts:
            parts = parts[1:]  # the Primitive itself is shown as the op
        return f"{self.op}({', '.join(parts)})"

    def __repr__(self):
        return f"<Node %{self.index} = {self.signature_text()}>"


def _iter_specs(value):
    if isinstance(value, TensorSpec):
        yield value
    elif type(value) in (tuple, list):
        for v in value:
            yield from _iter_specs(v)


def _value_text(value):
    if isinstance(value, Ref):
        return repr(value)
    if type(value) is tuple:
        inner = ", ".join(_value_text(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if type(value) is list:
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{k!r}: {_value_text(v)}" for k, v in value.items()) + "}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Graph:
    """A traced computation: inputs, states, nodes and the output structure.

    Attributes
    ----------
    name : str
        What was traced (the Cell's class or the function's name).
    inputs : list of InputRef
    states : list of StateRef
        Parameters and buffers, in first-use order.
    nodes : list of Node
    output : object
        The returned structure with :class:`Ref` leaves.
    jit_level : str
        The optimisation level the passes ran at (``'O0'`` ... ``'O2'``).
    passes : list of str
        What each pass did (``'dce: removed 1 node'``).
    breaks : list of GraphBreak
        Where the trace read a Tensor's value or ran Python it cannot capture
        (see :mod:`cellkit.graph.fallback`), in order.
    """

    def __init__(self, name, inputs, states, nodes, output, jit_level="O0"):
        self.name = name
        self.inputs = list(inputs)
        self.states = list(states)
        self.nodes = list(nodes)
        self.output = output
        self.jit_level = jit_level
        self.passes = []
        self.breaks = []
        self.constants = []
        self.input_template = None  # (args, kwargs) with InputRef leaves: where each input is found in a call
        self.finish()

    def finish(self):
        """Number the nodes and the constants after the node list changed."""
        for i, node in enumerate(self.nodes):
            node.index = i
            node._dynamic = None
        constants = []
        seen = set()

        def note(ref):
            if isinstance(ref, ConstRef) and id(ref) not in seen:
                seen.add(id(ref))
                ref.index = len(constants)
                constants.append(ref)
            return ref

        for node in self.nodes:
            for ref in node.refs():
                note(ref)
        for ref in iter_refs(self.output):
            note(ref)
        self.constants = constants
        used = set()
        for node in self.nodes:
            used.update(id(r.tensor) for r in node.refs() if isinstance(r, StateRef))
        used.update(id(r.tensor) for r in iter_refs(self.output) if isinstance(r, StateRef))
        self.states = [s for s in self.states if id(s.tensor) in used]
        return self

    # -- reading ---------------------------------------------------------------------------
    def __len__(self):
        return len(self.nodes)

    def ops(self):
        """The op names, in order (``['dense', 'relu', ...]``)."""
        return [n.op for n in self.nodes]

    def text(self):
        """The listing: one line per node with its output spec and scope."""
        head = ", ".join(f"%{i.name}: {i.spec}" for i in self.inputs)
        lines = [f"graph {self.name}({head}) {{  # jit_level {self.jit_level}"]
        for s in self.states:
            lines.append(f"  # {s.kind} %{s.name}: {s.spec}")
        for c in self.constants:
            spec = c.spec if c.spec is not None else type(c.array).__name__
            lines.append(f"  # constant $c{c.index}: {spec}")
        pending = list(self.breaks)
        present = {id(n) for n in self.nodes}
        for b in [b for b in pending if b.after is None or id(b.after) not in present]:
            if b.after is None:
                lines.append(f"  # {b.text()}")
                pending.remove(b)
        for node in self.nodes:
            flags = [f for f, on in (("random", node.random), ("effect", node.effectful),
                                     ("recompute", node.recompute is not None)) if on]
            mark = f" [{', '.join(flags)}]" if flags else ""
            lines.append(f"  %{node.index} = {node.signature_text()} : {_spec_text(node.outputs)}"
                         f"  # {node.scope}{mark}")
            for b in [b for b in pending if b.after is node]:
                lines.append(f"  # {b.text()}")
                pending.remove(b)
        for b in pending:  # after a node the passes removed
            lines.append(f"  # {b.text()}")
        lines.append(f"  return {_value_text(self.output)}")
        lines.append("}")
        for p in self.passes:
            lines.append(f"# pass {p}")
        return "\n".join(lines)

    def __str__(self):
        return self.text()

    def __repr__(self):
        return f"<Graph {self.name}: {len(self.inputs)} input(s), {len(self.nodes)} node(s), jit_level {self.jit_level}>"

    def to_dict(self):
        """The graph as plain JSON-ready data (see :mod:`cellkit.graph.serialize`)."""
        from .serialize import graph_to_dict

        return graph_to_dict(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The notebook display: the dataflow drawing (SVG) and the listing as text."""
        from ..display.graph_ir import mimebundle  # lazy: the runtime never needs the display layer

        return mimebundle(self, include, exclude)


def _spec_text(value):
    if isinstance(value, TensorSpec):
        return repr(value)
    if type(value) in (tuple, list):
        return "(" + ", ".join(_spec_text(v) for v in value) + ")"
    return type(value).__name__
