"""Cell observers: how tools outside the runtime watch Cells run.

The runtime emits events; it keeps no record of them.  An *observer* is any
object with a method ``on_event(kind, cell, payload)``.  Attaching one to a
Cell turns that Cell's fast path off (``Cell.__call__`` must now run its call
stages, see :mod:`cellkit.nn.cell_call`, and the stages report to it);
detaching the last one turns the fast path back on.  A Cell that nobody
observes holds no observer state at all: the class attribute ``_observers =
()`` answers for it, so running it costs nothing extra.

This module sits below ``cellkit.nn`` (it imports nothing), so tools in any
layer -- :mod:`cellkit.memory`, the displays -- can watch Cells without
importing the Cell class: a Cell is anything with ``_observers``,
``_configure_call()`` and ``_observed_parameters()``.

An observer with an ``on_attach(cell, parameters)`` method is also told, when
it is attached, which Parameters the Cell holds itself and in which role:
``[(parameter, "parameter" | "optimizer state"), ...]``.  An optimizer
announces its moments and step counter as optimizer state; that is how the
memory profiler tells them apart without knowing what an optimizer is.

Events, in the order they happen for one call of one Cell:

``forward_pre``   ``{"call", "inputs"}`` -- the Cell is entered.
``hook``          ``{"call", "stage", "hook", "args", "result", "seconds", "error"}``
                  -- after each user hook call (``stage`` is ``forward_pre``,
                  ``forward``, ``backward_pre`` or ``backward``; ``result`` is
                  what the hook returned, ``None`` for no replacement;
                  ``error`` the exception it raised, if any).
``forward``       ``{"call", "inputs", "output"}`` -- ``construct`` returned
                  (before the forward hooks run).
``backward_pre``  ``{"call", "grad_output"}`` -- the gradient reached the
                  Cell's outputs (before the backward pre-hooks run).
``backward``      ``{"call", "grad_input", "grad_output"}`` -- the Cell's
                  input gradients are known (before the backward hooks run).

An observer with ``wants_backward = False`` gets only the forward events,
and no gate is put on the tape for it (cellkit.memory's probe: a gate holds
on to the gradients it reports, which would change the memory it measures).

``call`` is an int shared by every event of one call, so an observer can
pair a backward event with the forward call it belongs to.  Backward events
are emitted only while a gradient transform records (and never in
GRAPH_MODE, where hooks do not run either); a Cell whose inputs need no
gradient (the data fed to a first layer) gets ``backward_pre`` but no
``backward``, since no gradient leaves it -- exactly when a user's backward
hook would not run either.  Payload values are the live
Tensors: an observer that keeps anything must copy what it needs.

>>> import cellkit as ms
>>> from cellkit import nn
>>> class Printer:
...     def on_event(self, kind, cell, payload):
...         print(kind, type(cell).__name__)
>>> relu, printer = nn.ReLU(), Printer()
>>> add_observer(relu, printer)
>>> _ = relu(ms.Tensor([1.0]))
forward_pre ReLU
forward ReLU
>>> remove_observer(relu, printer)
>>> relu._call_plan is None  # back on the fast path
True
"""
from __future__ import annotations

import itertools
import time

__all__ = ["add_observer", "remove_observer", "observers_of"]

_call_ids = itertools.count()


def add_observer(cell, observer):
    """Report ``cell``'s events to ``observer.on_event(kind, cell, payload)``."""
    if not callable(getattr(observer, "on_event", None)):
        raise TypeError(f"an observer needs an on_event(kind, cell, payload) method, but got {type(observer).__name__}")
    object.__setattr__(cell, "_observers", cell._observers + (observer,))
    cell._configure_call()
    on_attach = getattr(observer, "on_attach", None)
    if on_attach is not None:
        on_attach(cell, cell._observed_parameters())


def remove_observer(cell, observer):
    """Stop reporting to ``observer``; removing one that is not attached is harmless."""
    remaining = tuple(o for o in cell._observers if o is not observer)
    if remaining:
        object.__setattr__(cell, "_observers", remaining)
    elif "_observers" in cell.__dict__:
        object.__delattr__(cell, "_observers")  # back to the class default: nothing held
    cell._configure_call()


def observers_of(cell):
    """The observers attached to ``cell`` (a tuple, empty when none)."""
    return cell._observers


def new_call_id():
    return next(_call_ids)


def emit(observers, kind, cell, payload):
    for observer in observers:
        observer.on_event(kind, cell, payload)


def call_hook(observers, cell, call, stage, hook, args):
    """Call a user hook as the runtime would, and report the call (its result, time, error)."""
    start = time.perf_counter()
    try:
        result = hook(*args)
    except BaseException as error:
        emit(observers, "hook", cell, {"call": call, "stage": stage, "hook": hook, "args": args[1:], "result": None,
                                       "seconds": time.perf_counter() - start, "error": error})
        raise
    seconds = time.perf_counter() - start
    emit(observers, "hook", cell, {"call": call, "stage": stage, "hook": hook, "args": args[1:], "result": result,
                                   "seconds": seconds, "error": None})
    return result
