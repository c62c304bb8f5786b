"""What a notebook shows: the cell tree, the parameter table, tensor views.

Every display here has three forms through IPython's display protocol
(``_repr_mimebundle_``): ``text/plain`` (a readable tree or table for
terminals and diffs) and static ``text/html`` that renders in JupyterLab,
Notebook, VS Code, Colab and on GitHub / nbviewer without a kernel.  The
interactive widget form is :func:`explore` (ipywidgets: the tree beside a
detail pane, filters and freeze toggles; a slider through a hook trace),
which falls back to the static view when ipywidgets is missing.  Graphs
(:func:`cell_graph`, :func:`trace_graph`) draw with Graphviz, or with a
pure-Python layout when the ``dot`` program is absent.  Memory reports
(:func:`cellkit.memory.profile`) show as a chart of live bytes per role;
:func:`memory_chart` gives that chart alone as SVG, :func:`memory_graph`
draws which arrays each Cell saved, freed and recomputed, and
:func:`recompute_explorer` is a form to switch recompute per Cell and
measure again.

The runtime never imports this package: ``Cell._repr_mimebundle_`` and
``Tensor._repr_mimebundle_`` import it when a notebook asks, and hand the
object to :func:`mimebundle`.  Which display an object gets is decided by a
list of handlers (:func:`register`), so support for a type is added from
outside the type.

>>> from cellkit import nn
>>> from cellkit import display
>>> net = nn.SequentialCell(nn.Dense(3, 2), nn.ReLU())
>>> print(display.cell_tree(net))
SequentialCell  [inference]                                        8 elements   32 B
├── 0: Dense(input_channels=3, output_channels=2, has_bias=True)   8 elements   32 B
└── 1: ReLU                                                        –
>>> sorted(display.mimebundle(net))
['text/html', 'text/plain']
>>> display.parameter_table(net).rows[0].name
'0.weight'
"""
from __future__ import annotations

from . import render
from .params import ParameterTable
from .render import Display, mimebundle, register
from .tensor_view import TensorView
from .tree import CellTree
from .trace import Trace, trace  # noqa: F401  (cellkit.display.trace(net): the hook trace)
from .graph import Graph, cell_graph, trace_graph  # noqa: F401  (graph drawings: HTML boxes, SVG, DOT)
from .dataflow import dataflow  # noqa: F401  (one call's dataflow folded per Cell: residual adds, shapes, MACs)
from .gradflow import cell_gradients  # noqa: F401  (per Cell: float64 gradient norms of its Parameters and output)
from .gradflow_history import GradientRecorder, gradient_heatmap  # noqa: F401  (layer x step, from Model.fit)
from .memory_view import memory_chart  # noqa: F401  (a memory report's or comparison's SVG chart as an output)
from .memory_fates import memory_graph  # noqa: F401  (saved / freed / recomputed arrays per Cell, as a Graph)
from .memory_widgets import recompute_explorer  # noqa: F401  (tick Cells to recompute, measure, compare)

__all__ = ["cell_tree", "parameter_table", "tensor_view", "mimebundle", "register", "explore", "Display",
           "memory_chart", "memory_graph", "recompute_explorer", "dataflow", "cell_graph", "trace_graph", "trace",
           "gradient_flow", "cell_gradients", "GradientRecorder", "gradient_heatmap"]


def cell_tree(net, max_nodes=300, open_depth=None, group_repeats=True, gradients=False, example=None,
              trace=None) -> Display:
    """The tree of ``net``'s Cells: names, classes, arguments, parameter counts, hooks and settings.

    Runs of sibling sub-trees with the same structure are summarised
    (``Block × 24``, with the spread of their values); beyond ``max_nodes``
    rows the tree stops with a count of what it left out.  ``gradients=True``
    adds each Cell's gradient norm on a log scale (the gradient-flow view),
    ``example=(x,)`` input / output shapes and multiply-adds from one run on
    ``x``, and ``trace`` (a :func:`cellkit.trace`) its NaN/Inf flags and
    output gradients.

    >>> from cellkit import nn
    >>> from cellkit import display
    >>> "Dense" in display.cell_tree(nn.Dense(2, 1)).text()
    True
    """
    return Display(CellTree(net, max_nodes=max_nodes, open_depth=open_depth, group_repeats=group_repeats,
                            gradients=gradients, example=example, trace=trace), net)


def gradient_flow(net, trace=None, **options) -> Display:
    """The gradient-flow view: the cell tree with each Cell's gradient norm on a log scale.

    Per Cell, the float64 norm of its Parameters' latest gradients and (with
    ``trace``) of the gradient at its output, coloured where it vanishes or
    explodes, rolled up onto folded rows.  Same as
    ``cell_tree(net, gradients=True, trace=trace)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> from cellkit import display
    >>> net = nn.Dense(2, 1)
    >>> _ = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(ms.ops.ones((1, 2)))
    >>> "gradient norm" in display.gradient_flow(net).html()
    True
    """
    return cell_tree(net, gradients=True, trace=trace, **options)


def parameter_table(net, max_rows=100, bins=12) -> Display:
    """The table of ``net``'s Parameters (a Cell, or Parameters) with statistics and totals.

    The returned object shows itself in a notebook; ``.text()`` and
    ``.html()`` give the two forms, and ``.part`` (a
    :class:`~cellkit.display.params.ParameterTable`) the numbers: ``rows``,
    ``total_count``, ``trainable_count`` ...

    >>> from cellkit import nn
    >>> from cellkit import display
    >>> display.parameter_table(nn.Dense(3, 2)).part.total_count
    8
    """
    return Display(ParameterTable(net, max_rows=max_rows, bins=bins), net)


def tensor_view(tensor, bins=16, rows=8, cols=8) -> Display:
    """A Tensor or Parameter: shape, dtype, device, statistics, NaN/Inf counts, histogram, values.

    >>> import cellkit as ms
    >>> from cellkit import display
    >>> display.tensor_view(ms.Tensor([1.0, 2.0, 3.0])).part.summary.mean
    2.0
    """
    return Display(TensorView(tensor, bins=bins, rows=rows, cols=cols), tensor)


def explore(obj, **options):
    """The interactive (ipywidgets) view of ``obj``, where one exists.

    The widget form lives in ``cellkit.display.widgets``; when it cannot be
    used (ipywidgets missing) the static display is returned with a note, so
    a notebook cell never fails.  ``explore(net, trace=tr)`` adds each
    cell's last recorded inputs, output and gradients from the hook trace
    ``tr`` to the detail pane.
    """
    try:
        from .widgets import explore as _explore  # the widget layer (needs ipywidgets only when called)
    except ImportError:
        options.pop("trace", None)  # only the widget form uses it
        part = render.render(obj, **options)
        if part is None:
            return Display(render.TextPart(render.safe_repr(obj), "no display for this type"), obj)
        return Display(_Noted(part, "interactive view not available: showing the static view"), obj)
    return _explore(obj, **options)


class _Noted(render.Part):
    """A part with a one-line note under it."""

    def __init__(self, part, note):
        self.part = part
        self.note = note

    def text(self):
        return f"{self.part.text()}\n({self.note})"

    def html(self):
        from .html import Raw, el

        return el("div", Raw(str(self.part.html())),
                  el("div", self.note, style="font-size:0.8em;opacity:0.75;margin-top:4px"))
