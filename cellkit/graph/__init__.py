"""GRAPH_MODE: trace ``construct`` once into a graph IR, optimise it, and run it without Python dispatch.

::

    import cellkit as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    y = net(x)                 # first call with this input signature: traced, compiled, cached
    y = net(x)                 # later calls: the compiled graph runs
    ms.graph.graph_of(net)     # the IR (prints as a listing, draws itself in a notebook)
    ms.graph.build_graph(net, x)  # compile and return the IR, whatever the mode
    net.get_func_graph_proto() # its serialised form (JSON bytes)

    @ms.jit                    # or compile one function / method / Cell, whatever the mode
    def f(x): ...

The pieces, one concern each:

- :mod:`~cellkit.graph.ir` -- Graph, Node and the value references;
- :mod:`~cellkit.graph.registry` -- which functions are ops;
- :mod:`~cellkit.graph.tracer` -- recording a run (and refusing data-dependent Python);
- :mod:`~cellkit.graph.passes` -- constant folding and dead-code elimination, per ``jit_level``;
- :mod:`~cellkit.graph.segments` -- recompute at graph level;
- :mod:`~cellkit.graph.kernels` -- array kernels for the common ops;
- :mod:`~cellkit.graph.executor` -- the generated fast plan and the tape plan;
- :mod:`~cellkit.graph.compiler` -- signatures, caches, compiling;
- :mod:`~cellkit.graph.runtime` -- what Cell calls do in GRAPH_MODE;
- :mod:`~cellkit.graph.jit` -- the ``jit`` decorator;
- :mod:`~cellkit.graph.serialize` -- ``get_func_graph_proto``'s JSON form;
- :mod:`~cellkit.graph.fallback` -- graph breaks, print nodes (MindSpore's JIT Fallback);
- :mod:`~cellkit.graph.mutable` -- ``ms.mutable`` and ``ms.jit_class``.

>>> import cellkit as ms
>>> ms.jit is jit
True
"""
from .errors import GraphCompileError
from .ir import Graph, Node, TensorSpec
from .jit import function_graph, function_trace_count, jit
from .runtime import build_graph, compiled_of, graph_of, install, trace_count
from .serialize import graph_from_proto, graph_to_proto
from .fallback import GraphBreak
from .mutable import jit_class, mutable
from .graph_cell import GraphCell

install()
# ``nn.GraphCell`` as MindSpore spells it: the graph layer puts its Cell into ``nn`` (nn itself imports no graph).
from .. import nn as _nn  # noqa: E402
_nn.GraphCell = GraphCell

__all__ = ["jit", "Graph", "Node", "TensorSpec", "GraphCompileError", "build_graph", "graph_of", "compiled_of",
           "trace_count", "function_graph", "function_trace_count", "graph_to_proto", "graph_from_proto",
           "GraphBreak", "jit_class", "mutable", "GraphCell"]
