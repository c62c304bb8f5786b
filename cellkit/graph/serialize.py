"""The graph's serialised form: what ``Cell.get_func_graph_proto()`` returns.

MindSpore returns its graph as protobuf bytes (``ModelProto``); cellkit
returns **UTF-8 JSON bytes** with the same content a reader needs: inputs,
parameters, constants, one entry per node (op, arguments, output shapes and
dtypes, scope, source line, flags), the output and the graph breaks
(what was read, file and line, the node it follows).  :func:`graph_from_proto`
reads it back into a :class:`~cellkit.graph.ir.Graph` that prints and draws
like the original (it is a description: ops are known by name, Parameters
by name, so it does not run).

Values in ``args``: ``{"input": i}``, ``{"state": name}``, ``{"const": i}``,
``{"node": i, "path": [...]}`` for references; numbers, strings, booleans and
``null`` as themselves; ``{"tuple": [...]}``, lists, ``{"dict": [[k, v], ...]}``;
``{"dtype": "Float32"}``; ``{"primitive": name, "attrs": {...}}``;
``{"object": repr, "type": name}`` for anything else.  Constants carry their
bytes (base64) so a reader can see them exactly.

>>> import json
>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.Dense(2, 1)
>>> ms.set_context(mode=ms.GRAPH_MODE)
>>> net.compile(ms.ops.ones((1, 2)))
>>> ms.set_context(mode=ms.PYNATIVE_MODE)
>>> proto = net.get_func_graph_proto()
>>> data = json.loads(proto)
>>> data["format"], [n["op"] for n in data["nodes"]]
('cellkit.graph', ['dense'])
>>> graph_from_proto(proto).to_dict() == data
True
"""
from __future__ import annotations

import base64
import json

import numpy as np

from .. import backend as _backend
from .. import dtype as _dt
from ..ops.primitive import Primitive
from .ir import ConstRef, Graph, InputRef, Node, NodeOutput, Ref, StateRef, TensorSpec

__all__ = ["graph_to_dict", "graph_to_proto", "graph_from_dict", "graph_from_proto", "FORMAT", "VERSION"]

FORMAT = "cellkit.graph"
VERSION = 1


# ------------------------------------------------------------------------------ writing
def graph_to_proto(graph) -> bytes:
    """The graph as UTF-8 JSON bytes."""
    return json.dumps(graph_to_dict(graph), sort_keys=False).encode("utf-8")


def graph_to_dict(graph):
    """The graph as plain data (dicts, lists, numbers, strings)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": graph.name,
        "jit_level": graph.jit_level,
        "passes": list(graph.passes),
        "inputs": [{"name": i.name, **_spec(i.spec)} for i in graph.inputs],
        "states": [{"name": s.name, "kind": s.kind, **_spec(s.spec)} for s in graph.states],
        "constants": [_constant(c) for c in graph.constants],
        "nodes": [_node(n) for n in graph.nodes],
        "output": _value(graph.output),
        "breaks": [_break(b, graph) for b in getattr(graph, "breaks", ())],
    }


def _break(brk, graph):
    after = brk.after.index if brk.after is not None and any(n is brk.after for n in graph.nodes) else None
    return {"reason": brk.reason, "location": brk.location, "line": brk.line, "after": after}


def _spec(spec):
    return {"shape": list(spec.shape), "dtype": str(spec.dtype)}


def _constant(const):
    host = np.ascontiguousarray(_backend.to_host(const.array))
    return {"id": const.index, **_spec(const.spec), "data": base64.b64encode(host.tobytes()).decode("ascii")}


def _node(node):
    return {
        "id": node.index,
        "op": node.op,
        "kind": node.kind,
        "args": [_value(a) for a in node.args],
        "arg_names": list(node.arg_names),
        "kwargs": {k: _value(v) for k, v in node.kwargs.items()},
        "outputs": _outputs(node.outputs),
        "scope": node.scope,
        "location": node.location,
        "random": node.random,
        "effectful": node.effectful,
        "recompute": node.recompute_label if node.recompute is not None else None,
    }


def _outputs(value):
    if isinstance(value, TensorSpec):
        return {"tensor": _spec(value)}
    if type(value) in (tuple, list):
        return {"tuple": [_outputs(v) for v in value]}
    return _value(value)


def _value(value):
    if isinstance(value, Ref):
        return _ref(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and type(value) in (int, float):
        return value
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    kind = type(value)
    if kind is tuple:
        return {"tuple": [_value(v) for v in value]}
    if kind is list:
        return [_value(v) for v in value]
    if kind is dict:
        return {"dict": [[_value(k), _value(v)] for k, v in value.items()]}
    if isinstance(value, _Described):
        return dict(value)
    if isinstance(value, _dt.DType):
        return {"dtype": str(value)}
    if isinstance(value, Primitive):
        return {"primitive": value.name, "attrs": {str(k): _value(v) for k, v in value.attrs.items()}}
    return {"object": repr(value)[:200], "type": type(value).__name__}


def _ref(ref):
    if isinstance(ref, InputRef):
        return {"input": ref.index}
    if isinstance(ref, StateRef):
        return {"state": ref.name}
    if isinstance(ref, ConstRef):
        return {"const": ref.index}
    return {"node": ref.node.index, "path": list(ref.path)}


# ------------------------------------------------------------------------------ reading
def graph_from_proto(data) -> Graph:
    """A :class:`Graph` from :func:`graph_to_proto`'s bytes (or str); describes, does not run."""
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8")
    return graph_from_dict(json.loads(data))


def graph_from_dict(data) -> Graph:
    """A :class:`Graph` from :func:`graph_to_dict`'s data.

    Raises
    ------
    ValueError
        If ``data`` is not a cellkit graph (wrong ``format``) or is of a newer version.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"graph_from_dict: expected a '{FORMAT}' document, but got format "
                         f"{data.get('format') if isinstance(data, dict) else type(data).__name__!r}")
    if data.get("version", 0) > VERSION:
        raise ValueError(f"graph_from_dict: version {data['version']} is newer than this reader ({VERSION})")
    inputs = [InputRef(i, d["name"], _read_spec(d)) for i, d in enumerate(data["inputs"])]
    states = {d["name"]: StateRef(_Named(d["name"]), d["name"], d["kind"], _read_spec(d)) for d in data["states"]}
    constants = {}
    for d in data["constants"]:
        spec = _read_spec(d)
        host = np.frombuffer(base64.b64decode(d["data"]), dtype=spec.dtype.to_backend(np)).reshape(spec.shape)
        constants[d["id"]] = ConstRef(host, spec)
    nodes = []

    def read(value):
        if isinstance(value, list):
            return [read(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "input" in value:
            return inputs[value["input"]]
        if "state" in value:
            return states[value["state"]]
        if "const" in value:
            return constants[value["const"]]
        if "node" in value:
            node = nodes[value["node"]]
            return NodeOutput(node, value["path"], _spec_at(node.outputs, value["path"]))
        if "tuple" in value:
            return tuple(read(v) for v in value["tuple"])
        if "dict" in value:
            return {_hashable(read(k)): read(v) for k, v in value["dict"]}
        if "dtype" in value and _known_dtype(value["dtype"]):
            return _dt.to_dtype(value["dtype"])
        return _Described(value)

    for d in data["nodes"]:
        node = Node(d["op"], None, d["kind"], [read(a) for a in d["args"]],
                    {k: read(v) for k, v in d["kwargs"].items()}, d.get("arg_names", ()), scope=d["scope"],
                    location=d["location"], random=d["random"], effectful=d["effectful"])
        node.outputs = _read_outputs(d["outputs"], read)
        if d.get("recompute"):
            node.recompute, node.recompute_label = d["recompute"], d["recompute"]
        nodes.append(node)
    graph = Graph(data["name"], inputs, list(states.values()), nodes, read(data["output"]), data["jit_level"])
    graph.passes = list(data["passes"])
    from .fallback import GraphBreak

    graph.breaks = [GraphBreak(b["reason"], b["location"], b.get("line", ""),
                               nodes[b["after"]] if b.get("after") is not None else None)
                    for b in data.get("breaks", ())]
    graph.input_template = None
    # Keep the constants' numbering as written (finish() numbers them in first-use order, which matches).
    return graph


class _Named:
    """Stands for a Parameter known only by name in a read-back graph."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<state {self.name}>"


class _Described(dict):
    """A value written as a description (a Primitive, an object): kept as its dict, printed compactly."""

    def __repr__(self):
        if "primitive" in self:
            return f"Prim[{self['primitive']}]"
        return self.get("object", "?")


def _known_dtype(name):
    try:
        _dt.to_dtype(name)
        return True
    except (TypeError, ValueError, KeyError):
        return False


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def _read_spec(d):
    return TensorSpec(d["shape"], _dt.to_dtype(d["dtype"]))


def _read_outputs(value, read):
    if isinstance(value, dict) and "tensor" in value:
        return _read_spec(value["tensor"])
    if isinstance(value, dict) and "tuple" in value:
        return tuple(_read_outputs(v, read) for v in value["tuple"])
    return read(value)


def _spec_at(outputs, path):
    for i in path:
        outputs = outputs[i]
    return outputs
