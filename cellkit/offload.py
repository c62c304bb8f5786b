"""Offload: keep a Cell's activations in host memory between forward and backward.

A Cell marked with ``Cell.offload()`` runs its forward recording as usual,
on a tape of its own.  As soon as its forward is done, every array that
tape keeps for backward (the Cell's activations, not its Parameters or its
inputs) is moved to host memory; device memory holds only the Cell's output.
When the backward sweep comes back to the Cell, the arrays return to the
device and the sweep runs through the Cell's tape.

``backward_prefetch`` says when they come back: ``'Auto'`` -- just before
the Cell's backward needs them; an int ``n`` -- together with the ``n``
offloaded Cells the sweep will reach next, so their copies can overlap
with compute on a real device.

On a GPU (CuPy, or any non-NumPy backend such as the strict test device)
the arrays really move (``cupy.asnumpy`` / ``cupy.asarray``).
On the CPU there is no separate device memory: nothing is copied, but the
moves are reported to :mod:`cellkit.memory`, so a memory report shows the
device/host split exactly as it would be on a GPU -- what a student needs
to see what offload does.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(3, 8), nn.GELU(), nn.Dense(8, 1))
>>> x = ms.Tensor(np.ones((2, 3), np.float32))
>>> plain = ms.grad(lambda x: net(x).sum())(x).asnumpy()
>>> net[1].offload()
>>> bool((ms.grad(lambda x: net(x).sum())(x).asnumpy() == plain).all())
True
"""
from __future__ import annotations

import weakref

from . import autograd as _ag
from . import backend as _backend
from . import recompute as _rc
from .tensor import Tensor

__all__ = ["offloaded", "set_offload", "run_cell"]

# Offloaded regions of the forward passes in flight, in forward order (weak: a region lives
# as long as the tape that needs it).
_in_flight = []


class _OffloadedRegion:
    """One offloaded call: the arrays its tape keeps, moved to the host, and how to bring them back."""

    def __init__(self, label, prefetch):
        self.label = label
        self.prefetch = prefetch
        self.swapped = []     # tape nodes whose saved arrays are now host copies (non-NumPy backends)
        self.moved = []       # the device arrays that left, one per memory block (for cellkit.memory)
        self.on_host = False

    def to_host(self, nodes, keep_roots):
        be = _backend.current()
        moved_roots = set()
        for node in nodes:
            saved = node.saved
            if not saved:
                continue
            host = tuple(self._send(be, a, keep_roots, moved_roots) if _ag.is_array(a) else a for a in saved)
            if any(h is not s for h, s in zip(host, saved)):
                self.swapped.append(node)
                node.saved = host
        probe = _rc._probe
        if probe is not None:
            for array in self.moved:
                probe.moved(array, "host")
        self.on_host = True

    def _send(self, be, array, keep_roots, moved_roots):
        root = _ag.memory_owner(array)
        if id(root) in keep_roots:  # a Parameter's, an input's or the output's memory is not ours to move
            return array
        if id(root) not in moved_roots:
            moved_roots.add(id(root))
            self.moved.append(array)
        return array if be.is_numpy else be.to_host(array)

    def to_device(self):
        if not self.on_host:
            return
        be = _backend.current()
        for node in self.swapped:
            # A fresh device copy of the host values (what a GPU holds again); NumPy swapped nothing.
            if node.saved is not None:
                node.saved = tuple(be.from_host(a) if _ag.is_array(a) else a for a in node.saved)
        probe = _rc._probe
        if probe is not None:
            for array in self.moved:
                probe.moved(array, probe.device)
        self.swapped, self.moved = [], []
        self.on_host = False


def _tape_nodes(outputs, stop):
    """The nodes recorded by the region: reachable from its outputs, not crossing ``stop`` nodes."""
    found, stack, seen = [], [o._node for o in outputs if isinstance(o, Tensor) and o._node is not None], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or id(node) in stop:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(node.inputs)
    return found


def offloaded(run, args, weights=(), label="region", backward_prefetch="Auto"):
    """Run ``run(*args)`` recording, then keep its activations on the host until backward.

    Returns the output with one node per output on the tape, like
    :func:`cellkit.recompute.checkpoint`; outside a gradient transform ``run``
    simply runs.  Inside two transforms at once (a gradient of a gradient)
    the region's tape is swept more than once -- by the inner transform and
    again, through the inner gradient, by the outer one -- so its
    activations stay where they are and ``run`` records on the main tape.
    """
    if _ag._depth == 0 or _ag._depth >= 2:
        return run(*args)
    inputs = [a for a in args if isinstance(a, Tensor) and a._node is not None]
    weights = [w for w in weights if w._node is not None]
    if not inputs and not weights:
        return run(*args)
    # Fresh leaves stand for the inputs: the region's tape ends there, so its sweep stops there.
    cut, boundary = _rc.cut_at_inputs(args, "OffloadInput")
    output = run(*cut)
    outputs = _rc.flatten_outputs(output)
    if not any(isinstance(o, Tensor) and o._node is not None for o in outputs):
        return output
    region = _OffloadedRegion(label, backward_prefetch)
    stop = {id(w._node) for w in weights} | {id(n) for n in boundary.values()}
    nodes = _tape_nodes(outputs, stop)
    owner = _ag.memory_owner
    keep_roots = {id(owner(w._data)) for w in weights}
    keep_roots |= {id(owner(a._data)) for a in args if isinstance(a, Tensor) and a._data is not None}
    keep_roots |= {id(owner(o._data)) for o in outputs if isinstance(o, Tensor)}  # the output stays
    region.to_host(nodes, keep_roots)
    _in_flight[:] = [ref for ref in _in_flight if ref() is not None]  # regions of failed calls are gone
    _in_flight.append(weakref.ref(region, _forget))

    def backward(grads_by_output):
        _prefetch(region)
        return _rc.sweep_region(outputs, grads_by_output, inputs, boundary, weights)

    node_inputs = tuple(t._node for t in inputs) + tuple(w._node for w in weights)
    return _rc.attach_outputs(output, backward, node_inputs, f"Offload[{label}]")


def _forget(ref):
    """A region's tape was freed (its backward ran, or its call failed): drop its entry."""
    if ref in _in_flight:
        _in_flight.remove(ref)


def _prefetch(region):
    """Bring ``region`` back, and with an int prefetch the next regions backward will reach."""
    _in_flight[:] = [ref for ref in _in_flight if ref() is not None]
    live = [ref() for ref in _in_flight]
    region.to_device()
    if region in live:
        index = live.index(region)
        ahead = region.prefetch if isinstance(region.prefetch, int) else 0
        for earlier in reversed(live[max(0, index - ahead):index]):  # the order backward will reach them
            earlier.to_device()
        del _in_flight[index]  # its backward is running: nothing will prefetch it again


# ------------------------------------------------------------------------- Cell.offload()
def set_offload(self, backward_prefetch="Auto"):
    """Keep this Cell's activations in host memory between forward and backward (``Cell.offload``).

    During a gradient transform the Cell's forward records on a tape of
    its own; then every array that tape keeps is moved to the host and
    brought back when backward reaches the Cell (``'Auto'``: just in
    time; an int ``n``: together with the next ``n`` offloaded Cells).
    On CuPy the arrays really move; on NumPy nothing is copied but
    :mod:`cellkit.memory` reports the moves, so the memory graph shows
    the device/host split.  Gradients are unchanged.

    >>> from cellkit import nn
    >>> dense = nn.Dense(3, 3)
    >>> dense.offload(backward_prefetch=2)
    >>> dense.parallel_config["offload"]
    {'backward_prefetch': 2}
    """
    if isinstance(backward_prefetch, str):
        if backward_prefetch != "Auto":
            raise ValueError(
                f"For '{type(self).__name__}', the 'backward_prefetch' must be str and must be in "
                f"'['Auto']', but got '{backward_prefetch}'."
            )
    elif isinstance(backward_prefetch, bool) or not isinstance(backward_prefetch, int):
        raise TypeError(f"The input value of 'backward_prefetch' must be int, but got "
                        f"'{type(backward_prefetch).__name__}'")
    elif backward_prefetch < 0:
        raise ValueError(f"The input value of 'backward_prefetch' must be int and must >= 0, "
                         f"but got '{backward_prefetch}'")
    object.__setattr__(self, "_offload", {"backward_prefetch": backward_prefetch})
    self._configure_call()


def run_cell(call):
    """The ``offload`` runner of a Cell's call: ``construct`` as an offloaded region (see :func:`offloaded`)."""
    cell, kwargs = call.cell, call.kwargs
    call.output = offloaded(lambda *inputs: cell.construct(*inputs, **kwargs), call.args, cell.get_parameters(),
                            label=type(cell).__name__, backward_prefetch=cell._offload["backward_prefetch"])


run_cell.stage_name = "run: offload"
run_cell.in_graph_mode = False
run_cell.per_example = True  # vmap runs a region example by example
