"""Running a graph: a generated straight-line function, or an op-by-op walk that builds the tape.

Two plans are built for every graph:

- the **fast plan** (no gradient transform recording): the graph is turned
  into the source of one Python function -- one line per node, locals for
  values, backend arrays instead of Tensors -- and compiled with ``compile``.
  Nodes with a kernel (:mod:`cellkit.graph.kernels`) call it on arrays; the
  others call their op function.  There is no Cell call, no hook check, no
  argument conversion: that is the Python dispatch graph mode skips.
  ``plan.source`` shows the generated code.
- the **tape plan** (under ``grad`` / ``value_and_grad`` / ``GradOperation``):
  every node calls its op function on Tensors, so each op records its
  backward rule exactly as in PyNative and gradients flow through the graph;
  recomputed segments go through :func:`cellkit.recompute.checkpoint`.

Parameters and buffers are read when the plan runs (``S0._data``), so an
optimizer's updates are always seen; constants that an in-place op writes
into are copied at every run.

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(3, 2), nn.ReLU())
>>> _ = ms.graph.build_graph(net, ms.ops.ones((1, 3)))
>>> print(ms.graph.compiled_of(net).plan.source)  # doctest: +NORMALIZE_WHITESPACE
def graph_SequentialCell(args, kwargs):
    t0 = args[0]
    a0 = t0._data
    v0 = a0 @ S0._data.T
    v0 += S1._data  # dense  Default/0-Dense
    v1 = maximum0(v0, zero1)  # relu  Default/1-ReLU
    return _T(v1)
"""
from __future__ import annotations

import re

from .. import autograd as _ag
from .. import backend as _backend
from .. import recompute as _rc
from ..tensor import Tensor
from .eager import run_opaque
from .ir import ConstRef, InputRef, NodeOutput, Ref, StateRef, TensorSpec
from .kernels import choose_kernel
from .segments import Segment, plan_steps

__all__ = ["Plan", "build_plan"]


class Plan:
    """The runnable forms of one graph.

    Attributes
    ----------
    fast : callable
        ``fast(args, kwargs)``: the generated function (no recording).
    tape : callable
        ``tape(args, kwargs)``: the op-by-op walk (recording, recompute).
    source : str
        The generated function's source.
    kernels : int
        How many nodes run a kernel in the fast plan.
    """

    def __init__(self, fast, tape, source, kernels):
        self.fast = fast
        self.tape = tape
        self.source = source
        self.kernels = kernels

    def __call__(self, args, kwargs):
        if _ag._depth:
            return self.tape(args, kwargs)
        return self.fast(args, kwargs)


def build_plan(graph, use_kernels=True):
    """Both plans for ``graph`` (whose nodes still hold their traced values, for the kernel check)."""
    accessors = _input_accessors(graph)
    steps = plan_steps(graph)
    written = _written_consts(graph)
    fast, source, kernels = _build_fast(graph, accessors, written, use_kernels)
    tape = _build_tape(graph, accessors, steps, written)
    return Plan(fast, tape, source, kernels)


# ------------------------------------------------------------------------------ inputs
def _input_accessors(graph):
    """For each graph input, the Python expression that reaches it in ``(args, kwargs)``."""
    args_t, kwargs_t = graph.input_template
    found = {}

    def walk(value, expr):
        if isinstance(value, InputRef):
            found.setdefault(value.index, expr)
        elif type(value) in (tuple, list):
            for i, v in enumerate(value):
                walk(v, f"{expr}[{i}]")
        elif type(value) is dict:
            for k, v in value.items():
                walk(v, f"{expr}[{k!r}]")

    for i, a in enumerate(args_t):
        walk(a, f"args[{i}]")
    for k, v in kwargs_t.items():
        walk(v, f"kwargs[{k!r}]")
    return [found[i] for i in range(len(graph.inputs))]


def _written_consts(graph):
    """Ids of constants an effectful node takes: they get a fresh copy at every run."""
    return {id(r) for n in graph.nodes if n.effectful for r in n.refs() if isinstance(r, ConstRef)}


def _fresh(array):
    return _backend._current.xp.asarray(array, copy=True)


def _arrays_of(value):
    """An op's output with each Tensor replaced by its array."""
    if isinstance(value, Tensor):
        return value._data
    if type(value) in (tuple, list):
        return type(value)(_arrays_of(v) for v in value)
    return value


# ------------------------------------------------------------------------------ the fast plan
class _Source:
    """Builds the generated function: names for objects, expressions for references."""

    def __init__(self, graph):
        self.graph = graph
        self.namespace = {"_T": Tensor._from_array, "_A": _arrays_of, "_fresh": _fresh, "_opaque": run_opaque}
        self.names = {}
        self.state_index = {id(s.tensor): j for j, s in enumerate(graph.states)}
        self.arrays_needed = set()

    def bind(self, prefix, obj):
        key = (prefix, id(obj))
        name = self.names.get(key)
        if name is None:
            name = f"{prefix}{len(self.names)}"
            self.names[key] = name
            self.namespace[name] = obj
        return name

    def state(self, ref):
        name = f"S{self.state_index[id(ref.tensor)]}"
        self.namespace[name] = ref.tensor
        return name

    def array(self, ref):
        if isinstance(ref, InputRef):
            self.arrays_needed.add(ref.index)
            return f"a{ref.index}"
        if isinstance(ref, StateRef):
            return f"{self.state(ref)}._data"
        if isinstance(ref, ConstRef):
            return f"C{ref.index}"
        return f"v{ref.node.index}" + "".join(f"[{i}]" for i in ref.path)

    def tensor(self, ref, written=()):
        if isinstance(ref, InputRef):
            return f"t{ref.index}"
        if isinstance(ref, StateRef):
            return self.state(ref)
        if isinstance(ref, ConstRef):
            if id(ref) in written:
                return f"_T(_fresh(C{ref.index}))"
            return f"W{ref.index}"
        return f"_T({self.array(ref)})"

    def value(self, value, leaf):
        """The expression building ``value`` (Refs through ``leaf``, other objects by name)."""
        if isinstance(value, Ref):
            return leaf(value)
        kind = type(value)
        if kind in (tuple, list) and _has_ref(value):
            inner = ", ".join(self.value(v, leaf) for v in value)
            return f"({inner},)" if kind is tuple else f"[{inner}]"
        if kind is dict and _has_ref(value):
            return "{" + ", ".join(f"{self.bind('L', k)}: {self.value(v, leaf)}" for k, v in value.items()) + "}"
        if value is None or value is True or value is False:
            return repr(value)
        if kind is int or kind is str:
            return repr(value)
        return self.bind("L", value)


def _has_ref(value):
    if isinstance(value, Ref):
        return True
    if type(value) in (tuple, list):
        return any(_has_ref(v) for v in value)
    if type(value) is dict:
        return any(_has_ref(v) for v in value.values())
    return False


def _build_fast(graph, accessors, written, use_kernels):
    src = _Source(graph)
    ns = src.namespace
    for c in graph.constants:
        ns[f"C{c.index}"] = c.array
        if isinstance(c.spec, TensorSpec):
            ns[f"W{c.index}"] = Tensor._from_array(c.array)
    use_kernels = use_kernels and _backend._current.is_numpy
    body = []
    kernels = 0
    for node in graph.nodes:
        comment = f"  # {node.op}  {node.scope}"
        made = choose_kernel(node, _traced_array_lookup(node)) if use_kernels else None
        if made is not None:
            kernel, refs = made
            arguments = [src.array(r) for r in refs]
            inline = getattr(kernel, "inline", None)
            if inline is not None:
                statements = inline(arguments, f"v{node.index}", lambda obj, hint="B": src.bind(hint, obj))
                body += statements[:-1] + [statements[-1] + comment]
            else:
                ns[f"K{node.index}"] = kernel
                body.append(f"v{node.index} = K{node.index}({', '.join(arguments)}){comment}")
            kernels += 1
            continue

        def leaf(ref, node=node):
            return src.tensor(ref, written if node.effectful else ())

        call = _call_expression(src, node, leaf)
        if isinstance(node.outputs, TensorSpec):
            body.append(f"v{node.index} = {call}._data{comment}")
        else:
            body.append(f"v{node.index} = _A({call}){comment}")
    output = src.value(graph.output, lambda ref: _output_leaf(src, ref))
    head = []
    for i, expr in enumerate(accessors):
        head.append(f"t{i} = {expr}")
        if i in src.arrays_needed:
            head.append(f"a{i} = t{i}._data")
    name = "graph_" + (re.sub(r"\W", "_", graph.name) or "anonymous")
    lines = [f"def {name}(args, kwargs):"] + ["    " + line for line in head + body] + [f"    return {output}"]
    source = "\n".join(lines)
    exec(compile(source, f"<cellkit graph {graph.name}>", "exec"), ns)  # noqa: S102 -- our own generated code
    return ns[name], source, kernels


def _traced_array_lookup(node):
    traced = node.trace_arrays or {}

    def lookup(ref):
        if isinstance(ref, ConstRef):
            return ref.array
        return traced.get(id(ref))

    return lookup


def _call_expression(src, node, leaf):
    args = [src.value(a, leaf) for a in node.args]
    kwargs = [f"{k}={src.value(v, leaf)}" for k, v in node.kwargs.items()]
    if node.kind == "primitive":
        callee, args = src.bind("F", node.args[0]), args[1:]
    elif node.kind == "cell":
        cell = src.bind("O", node.target)
        packed_kwargs = "{" + ", ".join(f"{k!r}: {src.value(v, leaf)}" for k, v in node.kwargs.items()) + "}"
        return f"_opaque({cell}, ({''.join(a + ', ' for a in args)}), {packed_kwargs})"
    else:
        callee = src.bind("F", node.target)
    return f"{callee}({', '.join(args + kwargs)})"


def _output_leaf(src, ref):
    if isinstance(ref, (InputRef, StateRef)):
        return src.tensor(ref)
    if isinstance(ref, ConstRef):
        return f"_T(_fresh(C{ref.index}))"  # a new Tensor per call: the caller may write into it
    return f"_T({src.array(ref)})"


# ------------------------------------------------------------------------------ the tape plan
def _build_tape(graph, accessors, steps, written):
    getters = [eval(f"lambda args, kwargs: {expr}") for expr in accessors]  # noqa: S307 -- our own expressions
    output = graph.output

    def run(args, kwargs):
        inputs = [get(args, kwargs) for get in getters]
        whole = {}   # id(node) -> its output
        leaves = {}  # segment outputs: (id(node), path) -> Tensor

        def leaf_for(effectful):
            def leaf(ref):
                if isinstance(ref, NodeOutput):
                    value = leaves.get((id(ref.node), ref.path))
                    if value is not None:
                        return value
                    value = whole[id(ref.node)]
                    for i in ref.path:
                        value = value[i]
                    return value
                if isinstance(ref, InputRef):
                    return inputs[ref.index]
                if isinstance(ref, StateRef):
                    return ref.tensor
                if effectful and id(ref) in written:
                    return Tensor._from_array(_fresh(ref.array))
                return Tensor._from_array(ref.array)
            return leaf

        plain, effect = leaf_for(False), leaf_for(True)
        for step in steps:
            if isinstance(step, Segment):
                _run_segment(step, plain, leaves)
            else:
                leaf = effect if step.effectful else plain
                whole[id(step)] = _call(step, _resolve(step.args, leaf), _resolve(step.kwargs, leaf))
        return _resolve(output, _output_resolver(plain))

    return run


def _output_resolver(leaf):
    def resolve(ref):
        if isinstance(ref, ConstRef):
            return Tensor._from_array(_fresh(ref.array))
        return leaf(ref)
    return resolve


def _resolve(value, leaf):
    if isinstance(value, Ref):
        return leaf(value)
    kind = type(value)
    if kind is tuple or kind is list:
        return kind(_resolve(v, leaf) for v in value) if _has_ref(value) else value
    if kind is dict:
        return {k: _resolve(v, leaf) for k, v in value.items()} if _has_ref(value) else value
    return value


def _call(node, args, kwargs):
    if node.kind == "primitive":
        return args[0](*args[1:], **kwargs)
    if node.kind == "cell":
        return run_opaque(node.target, args, kwargs)
    return node.target(*args, **kwargs)


def _run_segment(segment, leaf, leaves):
    """Run a recomputed segment through :func:`cellkit.recompute.checkpoint`."""
    keys = [_ref_key(r) for r in segment.inputs]

    def run(*values):
        given = dict(zip(keys, values))
        local = {}

        def local_leaf(ref):
            key = _ref_key(ref) if isinstance(ref, (InputRef, NodeOutput)) else None
            if key is not None and key in given:
                return given[key]
            if isinstance(ref, NodeOutput) and id(ref.node) in local:
                value = local[id(ref.node)]
                for i in ref.path:
                    value = value[i]
                return value
            return leaf(ref)

        for node in segment.nodes:
            local[id(node)] = _call(node, _resolve(node.args, local_leaf), _resolve(node.kwargs, local_leaf))
        return tuple(local_leaf(r) for r in segment.outputs)

    result = _rc.checkpoint(run, tuple(leaf(r) for r in segment.inputs),
                            [s.tensor for s in segment.states], label=segment.label)
    if not isinstance(result, tuple):
        result = (result,)
    for ref, value in zip(segment.outputs, result):
        leaves[(id(ref.node), ref.path)] = value


def _ref_key(ref):
    if isinstance(ref, InputRef):
        return ("input", ref.index)
    return ("node", id(ref.node), ref.path)
