"""What happens when you call a Cell: ``net(x)``.

Most calls take the *fast path*: ``Cell.__call__`` sees that nothing is
attached to the Cell and calls ``construct`` directly -- one attribute check,
no other cost.

When something is attached (a hook, an observer, ``to_float``,
``set_inputs``, ``recompute()``, ``offload()``, a custom ``bprop``), the
Cell holds a :class:`CallPlan`: the short list of *stages* the call runs, in
order, chosen once when the Cell was configured (``Cell._configure_call``)
rather than worked out on every call.  The full list, with where each
stage lives::

    check inputs        cell_inputs.check_inputs          set_inputs declared shapes and dtypes
    cast inputs         cell_precision.cast_inputs        to_float: floating inputs cast; Parameters
                                                          read as casts while construct runs
    forward pre-hooks   cell_hooks.forward_pre_hooks      observers hear "forward_pre"; hooks may
                                                          replace the inputs
    gate inputs         cell_hooks.gate_inputs            backward hooks: a tape gate in front of
                                                          the inputs (only while a gradient records)
    run: <runner>       one of: construct (here), bprop (cell_bprop.run_bprop), recompute
                        (recompute.run_cell), offload (offload.run_cell)
    forward hooks       cell_hooks.forward_hooks          observers hear "forward"; hooks may
                                                          replace the output
    gate outputs        cell_hooks.gate_outputs           backward pre-hooks: a tape gate behind the
                                                          outputs (only while a gradient records)

Each stage is a function of one :class:`Call` -- the call in flight, whose
``args``, ``kwargs`` and ``output`` the stages read and replace.  A Cell
whose plan is just ``run: construct`` goes back to the fast path.

>>> from cellkit import nn
>>> dense = nn.Dense(2, 2)
>>> print(dense._call_plan)                         # a new Cell: its first call checks names
CallPlan(first call)
>>> handle = dense.register_forward_hook(lambda cell, inputs, output: None)
>>> print(dense._call_plan)
CallPlan(run: construct -> forward hooks)
>>> handle.remove()
"""
from __future__ import annotations

from .. import autograd as _ag
from .. import batching as _batching
from .. import observers as _obs
from .. import recompute as _rc
from ..tensor import Tensor

__all__ = ["Call", "CallPlan", "FIRST_CALL", "run_stages", "run_construct", "stage", "on_fast_path"]

# The calls in flight through their stages, innermost last.  (to_float's Parameter casts read it:
# a Parameter is cast only while its own Cell's call is running.)
in_flight = []


def stage(name, in_graph_mode=False, per_example=False):
    """Name a stage function (``name`` is what :class:`CallPlan` prints).

    ``in_graph_mode``: the stage also runs when a graph is traced (input
    checks and casts become part of the graph; hooks do not run there).
    ``per_example``: under ``vmap`` the stage must see one example at a
    time -- it calls the user's code (hooks, observers, a custom bprop),
    which must run once per real call, or it replays a region -- so
    ``vmap`` calls such a Cell example by example.
    """
    def mark(fn):
        fn.stage_name = name
        fn.in_graph_mode = in_graph_mode
        fn.per_example = per_example
        return fn
    return mark


class CallPlan:
    """The stages a configured Cell's call runs, in order (the runner among them)."""

    __slots__ = ("stages", "runner", "identifies", "on_failure", "per_example", "saved_tensor_hooks", "first_call")

    def __init__(self, stages, runner, identifies=False, on_failure=None, saved_tensor_hooks=None, first_call=False):
        self.stages = tuple(stages)
        self.runner = runner
        # True until the Cell's first call has done its checks (Cell._first_call).
        self.first_call = first_call
        # (pack, unpack) of register_saved_tensors_hooks: the runner runs inside them.
        self.saved_tensor_hooks = saved_tensor_hooks
        self.per_example = any(getattr(s, "per_example", False) for s in self.stages)
        # True when the call needs an id (observers pair events by it) or a recompute replay log (forward hooks).
        self.identifies = identifies
        # Run with the Call when a stage raises, before the error goes on (forward hooks registered with
        # always_call=True); None when there is nothing to run.
        self.on_failure = on_failure

    @property
    def names(self):
        """The stage names in order, e.g. ``['cast inputs', 'run: construct']``."""
        suffix = " (saved tensors hooked)" if self.saved_tensor_hooks is not None else ""
        return [s.stage_name + (suffix if s is self.runner else "") for s in self.stages]

    def __repr__(self):
        return f"CallPlan({' -> '.join(self.names)})" if self.stages else "CallPlan(first call)"


# The plan every Cell starts with (a class default, so a new Cell holds nothing): its first call checks
# the Parameter names, then the Cell is configured (see Cell._first_call).
FIRST_CALL = CallPlan((), None, first_call=True)


class Call:
    """One call in flight through its stages.

    Attributes
    ----------
    cell : Cell
    args, kwargs : tuple, dict
        The inputs; stages may replace them (casts, pre-hooks, gates).
    output :
        What the runner returned; stages after it may replace it.
    id : int or None
        Shared by every observer event of this call (None when nobody observes).
    replay : cellkit.recompute.HookReplay or None
        Inside a recomputed region: which forward hooks run (see :func:`cellkit.recompute.run_cell`).
    gate : dict or None
        What the input and output gates share: the gradients of the outputs.
    casts : tuple or None
        to_float: ``(dtype, {id(parameter): its cast})``, the Parameter casts made for this call.
    in_graph : bool
        The call is being traced into a graph (GRAPH_MODE): only stages marked ``in_graph_mode`` run.
    """

    __slots__ = ("cell", "args", "kwargs", "output", "id", "replay", "gate", "casts", "always_called", "in_graph")

    def __init__(self, cell, args, kwargs, plan, in_graph=False):
        self.cell = cell
        self.args = args
        self.kwargs = kwargs
        self.output = None
        self.id = None
        self.replay = None
        self.gate = None
        self.casts = None
        self.always_called = None
        self.in_graph = in_graph
        if plan.identifies:
            observers = cell._observers
            if _rc._regions:  # inside a recomputed region: the region decides the id and which hooks re-run
                self.id, self.replay = _rc.enter_cell_call(_obs.new_call_id if observers else _no_call_id)
            elif observers:
                self.id = _obs.new_call_id()


def on_fast_path(cell):
    """True when nothing is attached to ``cell``: its calls go straight to ``construct`` (after the first)."""
    return cell._call_plan is None or cell._call_plan is FIRST_CALL


def _no_call_id():
    return None


def run_stages(cell, args, kwargs, plan=None, skip=(), in_graph=False):
    """Run ``cell``'s call through its stages (the slow path of ``Cell.__call__``); returns the output.

    ``skip`` leaves out stages by function (``Cell.run_construct`` skips the
    input checks and casts: its inputs are already cast).
    """
    plan = plan or cell._call_plan
    if plan.per_example and any(isinstance(a, Tensor) and _batching.is_batched(a._data) for a in args):
        raise _batching.Unbatchable(f"{type(cell).__name__} has hooks, observers, a bprop or a replayed region; "
                                    "vmap runs it per example")
    call = Call(cell, args, kwargs, plan, in_graph)
    in_flight.append(call)
    try:
        for step in plan.stages:
            if step in skip:
                continue
            if step is plan.runner and plan.saved_tensor_hooks is not None:
                with _ag.saved_tensors_hooks(*plan.saved_tensor_hooks):
                    step(call)
            else:
                step(call)
    except Exception:
        if plan.on_failure is not None:
            plan.on_failure(call)
        raise
    finally:
        in_flight.pop()
    return call.output


def run_graph_stages(cell, args, kwargs):
    """The call as a traced graph sees it: input checks and casts, then ``construct``; hooks do not run."""
    plan = cell._call_plan
    if plan is None or plan is FIRST_CALL:
        return cell.construct(*args, **kwargs)
    graph_plan = CallPlan([s for s in plan.stages if s.in_graph_mode] + [run_construct], run_construct)
    return run_stages(cell, args, kwargs, graph_plan, in_graph=True)


@stage("run: construct")
def run_construct(call):
    """The plain runner: ``construct`` on the (possibly replaced) inputs."""
    call.output = call.cell.construct(*call.args, **call.kwargs)
