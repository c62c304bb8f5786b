"""Counting the floating-point operations of one training step from its compiled graph.

:class:`~cellkit.train.FlopsUtilizationCollector` asks this module how much
arithmetic one step does.  It reads the graph GRAPH_MODE already traced for
the network (:func:`cellkit.graph.graph_of`), so nothing is run again and a
network trained without the collector pays nothing.

What is counted, as MindSpore's collector counts it: matrix products and
1-D / 2-D convolutions, two operations (a multiply and an add) per
multiply-add.  An op with output ``out`` that sums over ``K`` products per
output element costs ``2 * out.size * K``:

- ``dense`` (``nn.Dense``, ``ops.dense``): ``K`` = the weight's input size;
- ``matmul``, ``mm``, ``bmm``, ``batch_matmul`` (``ops.MatMul`` /
  ``ops.BatchMatMul``, any transpose flags), ``addmm``, ``baddbmm``,
  ``tensor_dot``: ``K`` = the contracted length;
- ``conv1d``, ``conv2d``, ``ops.Conv2D``: ``K`` = the weight's
  ``in_channels / groups * kernel size``, so stride, padding and dilation act
  through the output's size and groups through the weight's shape.

Bias additions, activations and losses are not counted.

The backward pass of such an op computes one product per operand that
needs a gradient (``dX = dY @ W.T``, ``dW = X.T @ dY``; a convolution's
input and filter gradients), each costing what the forward cost.  An operand
needs a gradient when it depends on a weight being trained: the data fed to
the first layer does not, so the first layer counts its weight's gradient
only -- as MindSpore's graph, which drops the unused product, does.

Model FLOPs are forward + backward.  Hardware FLOPs add the forward ops a
recomputed Cell (``cell.recompute()``) must run again in backward: those
whose results the backward rules read and that are not the Cell's own
outputs (which are kept).  cellkit's own replay runs the whole Cell again;
the figure reported is what MindSpore's graph executes.

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 5))
>>> graph = ms.graph.build_graph(net, ms.ops.ones((32, 10)))
>>> count = count_flops(graph, net.trainable_params())
>>> count.forward, count.model, count.hardware
(6720, 15680, 15680)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..graph.ir import NodeOutput, StateRef
from ..graph.segments import Segment, plan_steps

__all__ = ["FlopCount", "count_flops", "node_flops"]


@dataclass(frozen=True)
class FlopCount:
    """The FLOPs of one step: ``forward``, ``model`` (forward + backward) and ``hardware`` (plus recompute)."""

    forward: int
    model: int
    hardware: int


# -- which ops are products, and of which two operands ---------------------------------------------------------
# The ops counted.  Their two factors are the first two Tensors they are called with (a Primitive's node
# holds the Primitive first, which is no Tensor); ``addmm`` / ``baddbmm`` add their first Tensor to the product.
_PRODUCTS = frozenset({"dense", "matmul", "mm", "bmm", "batch_matmul", "MatMul", "BatchMatMul", "addmm", "baddbmm",
                       "tensor_dot", "conv1d", "conv2d", "Conv2D"})
_ADDED_FIRST = frozenset({"addmm", "baddbmm"})
_CONVOLUTIONS = frozenset({"conv1d", "conv2d", "Conv2D"})


def _argument(node, name):
    """The value ``node`` was called with for parameter ``name``, or None."""
    if name in node.arg_names:
        position = node.arg_names.index(name)
        if position < len(node.args):
            return node.args[position]
    return node.kwargs.get(name)


def _factors(node):
    """The two Tensor operands (Refs) of a counted product, or None."""
    tensors = [v for v in list(node.args) + list(node.kwargs.values()) if getattr(v, "spec", None) is not None]
    if node.op in _ADDED_FIRST:
        tensors = tensors[1:]
    return tensors[:2] if len(tensors) >= 2 else None


def _contracted_length(node, a, b, out_shape):
    """``K``: how many products are summed into one output element."""
    if node.op in _CONVOLUTIONS:
        return math.prod(b[1:])  # weight: (out_channels, in_channels / groups, *kernel)
    if node.op == "dense":
        return b[-1]  # weight: (out_features, in_features)
    if node.op == "tensor_dot":  # no batch dimensions: size(a) * size(b) = size(out) * K**2
        return math.isqrt(math.prod(a) * math.prod(b) // max(math.prod(out_shape), 1))
    if len(a) == 1:
        return a[0]
    transpose_a = _argument(node, "transpose_a")
    if transpose_a is None and node.kind == "primitive":
        transpose_a = getattr(node.target, "transpose_a", False)
    return a[-2] if transpose_a else a[-1]


def node_flops(node):
    """The forward FLOPs of one graph node (0 for an op that is not counted).

    >>> import cellkit as ms
    >>> graph = ms.graph.build_graph(ms.nn.Dense(3, 2), ms.ops.ones((4, 3)))
    >>> node_flops(graph.nodes[0])  # 2 * (4 * 2 outputs) * 3 products each
    48
    """
    specs = node.output_specs()
    factors = _factors(node) if node.op in _PRODUCTS else None
    if factors is None or len(specs) != 1:
        return 0
    out_shape = specs[0].shape
    a, b = (f.spec.shape for f in factors)
    return 2 * math.prod(out_shape) * _contracted_length(node, a, b, out_shape)


# -- which values need a gradient -------------------------------------------------------------------------------
def _needs_gradient(graph, weights):
    """``needs(ref)``: whether a value depends on a trained weight (and is a float), so backward reaches it."""
    trained = {id(w) for w in weights}
    needing = set()

    def needs(ref):
        if isinstance(ref, StateRef):
            return id(ref.tensor) in trained
        if isinstance(ref, NodeOutput):
            return id(ref.node) in needing
        return False  # graph inputs (the data) and constants

    for node in graph.nodes:
        floats = any(s.dtype.kind in ("float", "complex") for s in node.output_specs())
        if floats and any(needs(ref) for ref in node.refs()):
            needing.add(id(node))
    return needs


# -- what backward reads again: the values a recomputed Cell must rebuild -----------------------------------------
# Ops whose backward rule uses no forward value (linear in their input) ...
_READS_NOTHING = frozenset({
    "add", "sub", "neg", "reshape", "flatten", "transpose", "permute", "expand_dims", "squeeze", "unsqueeze",
    "bias_add", "sum", "mean", "cast", "identity", "concat", "cat", "split", "tile", "broadcast_to", "view",
})
# ... and ops whose rule uses only their own output (MindSpore's bprop of these reads ``out``).
_READS_OUTPUT = frozenset({"relu", "relu6", "sigmoid", "tanh", "softmax", "log_softmax", "exp", "sqrt"})


def _read_by_backward(node, needs):
    """The refs ``node``'s backward reads (it runs only if the node's output needs a gradient)."""
    if node.op in _PRODUCTS and _factors(node) is not None:
        first, second = _factors(node)
        read = []
        if needs(second):
            read.append(first)  # dB = A.T @ dY reads A
        if needs(first):
            read.append(second)  # dA = dY @ B.T reads B
        return read
    if node.op in _READS_NOTHING:
        return []
    if node.op in _READS_OUTPUT:
        return [NodeOutput(node, (), None)]
    return list(node.refs())  # by default a rule may read every input


def _recomputed_flops(segment, needs):
    """Forward FLOPs of the nodes of a recomputed segment that backward needs to run again."""
    inside = {id(n): n for n in segment.nodes}
    kept = {id(ref.node) for ref in segment.outputs}  # the segment's outputs are saved, not rebuilt
    rerun = {}
    pending = []
    for node in segment.nodes:
        if needs(NodeOutput(node, (), None)):
            pending += [ref.node for ref in _read_by_backward(node, needs) if isinstance(ref, NodeOutput)]
    while pending:
        node = pending.pop()
        if id(node) not in inside or id(node) in kept or id(node) in rerun:
            continue
        rerun[id(node)] = node
        pending += [ref.node for ref in node.refs() if isinstance(ref, NodeOutput)]
    return sum(node_flops(n) for n in rerun.values())


def count_flops(graph, weights=(), backward=True):
    """Count the FLOPs of a training step whose forward pass is ``graph``.

    Parameters
    ----------
    graph : cellkit.graph.Graph
        The forward graph (the network with its loss), as GRAPH_MODE compiled it.
    weights : iterable of Parameter
        The Parameters the step differentiates (an optimizer's parameters).
    backward : bool
        False for a step without backward (evaluation): forward FLOPs only.

    Returns
    -------
    FlopCount
    """
    needs = _needs_gradient(graph, weights if backward else ())
    forward = gradients = 0
    for node in graph.nodes:
        flops = node_flops(node)
        if not flops:
            continue
        forward += flops
        if backward and needs(NodeOutput(node, (), None)):
            gradients += flops * sum(1 for factor in _factors(node) if needs(factor))
    extra = 0
    if backward:
        for step in plan_steps(graph):
            if isinstance(step, Segment):
                extra += _recomputed_flops(step, needs)
    return FlopCount(forward, forward + gradients, forward + gradients + extra)

