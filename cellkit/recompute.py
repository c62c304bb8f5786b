"""Recompute: trade compute for memory by rebuilding activations in backward.

A gradient transform normally keeps every intermediate array an op's
backward rule needs (its *activations*) until the backward sweep reaches
it.  A recomputed region keeps only its inputs:

1. **forward** -- the region runs with recording switched off, so its ops
   attach no tape and their intermediate arrays are freed as soon as Python
   drops them.  One node is attached to the region's output instead.
2. **backward** -- when the sweep reaches that node, the region runs again,
   this time recording, on the same input values; the sweep then continues
   through that fresh tape (a sub-sweep) and hands the input and weight
   gradients back to the outer sweep.

The replay must compute exactly what the first run computed, so:

- random draws (dropout) are replayed from the generator states noted in the
  first run (:class:`cellkit.seed.DrawLog`), and the generators are left
  where they were -- gradients are bitwise identical to a run without
  recompute;
- BatchNorm's running statistics are updated only in the first run
  (:func:`replaying` tells the op);
- forward hooks of Cells *inside* the region are not called a second time,
  except a hook that replaced its Cell's inputs or output in the first run:
  it is called again during the replay so the replacement is rebuilt on
  the tape (its side effects then happen twice).  Backward hooks run once,
  during the sub-sweep.  The region Cell's own forward hooks run once,
  around the whole region.

Regions nest: a recomputed Cell inside a recomputed Cell is itself replayed
when the outer replay's sub-sweep reaches it.  A Primitive marked
``recompute(False)`` inside a region keeps its own activations instead: its
forward runs once, recording, and the replay reuses its output.

>>> import cellkit as ms
>>> from cellkit import nn, ops
>>> net = nn.SequentialCell(nn.Dense(3, 4), nn.GELU(), nn.Dense(4, 1))
>>> x = ms.Tensor([[1.0, 2.0, 3.0]])
>>> loss = lambda x: net(x).sum()
>>> plain = ms.grad(loss, grad_position=None, weights=net.trainable_params())(x)
>>> net.recompute()
>>> again = ms.grad(loss, grad_position=None, weights=net.trainable_params())(x)
>>> all((a.asnumpy() == b.asnumpy()).all() for a, b in zip(plain, again))
True
"""
from __future__ import annotations

from . import autograd as _ag
from . import seed as _seed
from .autograd import Leaf, Node
from .tensor import Tensor

__all__ = ["checkpoint", "keep", "attach_outputs", "cut_at_inputs", "sweep_region", "flatten_outputs", "replaying",
           "Region"]

# Regions in use, innermost last: first runs ('forward') and replays ('replay').
_regions = []

# Who wants to know when regions start and end (cellkit.memory); None when nobody.
_probe = None


def replaying() -> bool:
    """True while a region's forward is being replayed in backward."""
    return any(r.mode == "replay" for r in _regions)


class Region:
    """What one recomputed call must remember to replay itself exactly.

    Attributes
    ----------
    label : str
        What is recomputed (the Cell's path or class, or the op).
    draws : cellkit.seed.DrawLog
        Random generator states noted in the first run.
    calls : list
        For each Cell call inside the region, in order: ``(call id, hook
        flags)`` -- the flags say which forward hooks returned a replacement.
    kept : list
        Outputs of ``recompute(False)`` Primitives, with the tape that
        produced them.
    """

    __slots__ = ("label", "draws", "calls", "kept", "mode", "cursor", "kept_cursor")

    def __init__(self, label):
        self.label = label
        self.draws = _seed.DrawLog()
        self.calls = []
        self.kept = []
        self.mode = None
        self.cursor = 0
        self.kept_cursor = 0

    def next_call(self):
        """The next Cell call's ``(call id, hook flags)`` recorded in the first run."""
        if self.cursor >= len(self.calls):
            raise RuntimeError(f"recompute of {self.label}: the replay called more Cells than the first run")
        entry = self.calls[self.cursor]
        self.cursor += 1
        return entry

    def next_kept(self):
        """The next ``recompute(False)`` op's kept output and input leaves (None: not kept)."""
        if self.kept_cursor >= len(self.kept):
            raise RuntimeError(f"recompute of {self.label}: the replay ran more kept ops than the first run")
        entry = self.kept[self.kept_cursor]
        self.kept_cursor += 1
        return entry


class _Using:
    """Context manager: ``region`` is in use in ``mode`` (its draws recorded or replayed)."""

    def __init__(self, region, mode):
        self.region, self.mode = region, mode

    def __enter__(self):
        region = self.region
        region.mode, region.cursor, region.kept_cursor = self.mode, 0, 0
        self._draws = region.draws.recording() if self.mode == "forward" else region.draws.replaying()
        self._draws.__enter__()
        _regions.append(region)
        if _probe is not None:
            _probe.region(self.mode, region, True)
        return region

    def __exit__(self, *exc):
        _regions.remove(self.region)
        self._draws.__exit__(*exc)
        self.region.mode = None
        if _probe is not None:
            _probe.region(self.mode, self.region, False)
        return False


def cut_at_inputs(args, label):
    """``args`` with a fresh leaf in place of each Tensor on the tape, so a sweep stops there.

    Returns ``(cut_args, boundary)``; ``boundary`` maps ``id(original)`` to its
    leaf.  A Tensor passed twice gets one leaf.  Each leaf keeps the input's
    own node as its parent: a gradient of the region's gradient flows on
    through it to whatever computed the input.
    """
    boundary, fresh_by_id, cut = {}, {}, []
    for a in args:
        if isinstance(a, Tensor) and a._node is not None:
            fresh = fresh_by_id.get(id(a))
            if fresh is None:
                fresh = fresh_by_id[id(a)] = Tensor._from_array(a._data)
                fresh._node = Leaf(fresh, label, a._node)
                boundary[id(a)] = fresh._node
            cut.append(fresh)
        else:
            cut.append(a)
    return cut, boundary


def sweep_region(outputs, grads_by_output, inputs, boundary, weights):
    """Sweep a region's own tape from its outputs; one gradient per input, then per weight.

    An input passed twice gets its gradient in its first slot only (its one
    leaf is popped once).  Leaves the region reached without declaring them
    (a weight of another Cell) are handed on to the outer sweep.
    """
    seeds = [(outputs[i]._node, g) for i, g in grads_by_output.items()
             if g is not None and isinstance(outputs[i], Tensor) and outputs[i]._node is not None]
    leaf_grads = _ag.backpropagate(seeds) if seeds else {}  # ends at every leaf: its own and others
    result = [leaf_grads.pop(id(boundary[id(t)]), None) for t in inputs]
    result += [leaf_grads.pop(id(w._node), None) for w in weights]
    for key, g in leaf_grads.items():
        _ag.add_leaf_gradient(key, g)
    return tuple(result)


def flatten_outputs(output):
    """A region's output as a tuple (a single Tensor becomes a 1-tuple)."""
    return output if isinstance(output, tuple) else (output,)


def checkpoint(run, args, weights=(), label="region"):
    """Run ``run(*args)`` keeping only its inputs; rebuild its tape in backward.

    Parameters
    ----------
    run : callable
        The region's computation (a Cell's ``construct``).  It must compute
        from its arguments and from ``weights`` (it may call other Cells).
    args : tuple
        Its positional arguments; Tensors among them are the region's inputs.
    weights : iterable of Parameter
        The Parameters ``run`` may use; those on the tape get gradients.
    label : str
        A name for messages and memory reports.

    Returns
    -------
    The output of ``run`` (a Tensor or a tuple), attached to the tape by one
    node per output.  Outside a gradient transform ``run`` simply runs.
    """
    if _ag._depth == 0:
        return run(*args)
    inputs = [a for a in args if isinstance(a, Tensor) and a._node is not None]
    weights = [w for w in weights if w._node is not None]
    if not inputs and not weights:  # nothing in the region needs a gradient: no tape at all
        with _ag.no_recording():
            return run(*args)
    region = Region(label)
    with _Using(region, "forward"), _ag.no_recording():
        output = run(*args)
    outputs = flatten_outputs(output)
    tensor_outputs = [(i, o) for i, o in enumerate(outputs) if isinstance(o, Tensor)]
    if not tensor_outputs:
        return output
    replay = _Replay(region, run, args, inputs, weights)
    node_inputs = tuple(t._node for t in inputs) + tuple(w._node for w in weights)
    kept = tuple(a._data for a in args if isinstance(a, Tensor))  # what the region keeps: its inputs
    return attach_outputs(output, replay.backward, node_inputs, f"Recompute[{label}]", kept)


def attach_outputs(output, backward, node_inputs, op, kept=()):
    """Put a region's output(s) on the tape behind one node whose backward sees all output gradients.

    ``backward({index: grad})`` gets the gradient of each output that
    received one and returns one gradient per entry of ``node_inputs``.
    With several outputs, each gets a small selector node feeding the hub;
    the sweep adds their gradients into one :class:`_GradPack`.  ``kept``
    are the arrays the region holds for its backward (memory accounting
    counts them on the hub node).
    """
    outputs = flatten_outputs(output)
    hub = Node(op, _hub_rule, node_inputs, kept, (None,) * len(kept), backward)
    if len(outputs) == 1:
        attached = Tensor._from_array(outputs[0]._data)
        attached._node = hub
        return attached
    new_outputs = list(outputs)
    for index, tensor in enumerate(outputs):
        if isinstance(tensor, Tensor):
            attached = Tensor._from_array(tensor._data)
            attached._node = Node(f"{op}.output[{index}]", _select_rule, (hub,), info=index)
            new_outputs[index] = attached
    return tuple(new_outputs)


def _hub_rule(m, node, pack):
    return node.info(pack if isinstance(pack, _GradPack) else {0: pack})


def _select_rule(m, node, g):
    return (_GradPack({node.info: g}),)


class _GradPack(dict):
    """Gradients of a multi-output region, one per output index; ``+`` merges them.

    The backward sweep adds the gradients that reach a node; for a region with
    several outputs each output's node contributes one entry of the pack.
    """

    def __add__(self, other):
        merged = _GradPack(self)
        for index, g in other.items():
            merged[index] = g if index not in merged else merged[index] + g
        return merged


class _Replay:
    """The backward of a region: run it again, recording, then sweep its fresh tape."""

    def __init__(self, region, run, args, inputs, weights):
        self.region = region
        self.run = run
        self.args = args
        self.inputs = inputs
        self.weights = weights

    def backward(self, grads_by_output):
        args, boundary = cut_at_inputs(self.args, "RecomputeInput")
        with _Using(self.region, "replay"), _ag.recording():
            output = self.run(*args)
        result = sweep_region(flatten_outputs(output), grads_by_output, self.inputs, boundary, self.weights)
        if not _ag.tensor_mode():
            # The replayed activations and their tape go now, not when the outer sweep ends.  (A sweep
            # recording for an outer transform keeps them: that transform may come through here again.)
            self.args = None
        return result


def _replay_source():
    """The innermost replaying region (it supplies what was recorded), and the regions recording after it."""
    source = None
    recorders = []
    for region in _regions:
        if region.mode == "replay":
            source, recorders = region, []
        else:
            recorders.append(region)
    return source, recorders


def enter_cell_call(new_call_id):
    """A Cell is called inside a region: which call it is and which of its forward hooks to run.

    Returns ``(call, replay_flags, record_flags)``.  In a first run,
    ``replay_flags`` is None and the caller appends to ``record_flags`` one
    bool per forward hook (did it return a replacement?).  In a replay,
    ``call`` is the id the first run used (so backward events pair with the
    forward events observers already saw) and ``replay_flags`` says which
    hooks to call again; ``record_flags`` is None.
    """
    source, recorders = _replay_source()
    if source is not None:
        call, flags = source.next_call()
        for region in recorders:  # a region starting inside a replay records the same call
            region.calls.append((call, flags))
        return call, list(flags), None
    call = new_call_id()
    flags = []
    for region in recorders:
        region.calls.append((call, flags))
    return call, None, flags


def keep(run, args, label):
    """Inside a region: run the op ``run(*args)`` once, recording, and keep its tape.

    Used for a Primitive marked ``recompute(False)`` inside a recomputed
    Cell.  The first run records the op on inputs cut from the (unrecorded)
    region; the replay returns the same output, linked to the replayed
    inputs through the kept tape, without running the op again.
    """
    source, recorders = _replay_source()
    if source is not None:
        entry = source.next_kept()
        for region in recorders:
            region.kept.append(entry)
        if entry is None:  # an op with several outputs is recomputed like the rest
            return run(*args)
        return _reuse_kept(entry, args)
    boundary = []
    cut = []
    for a in args:
        if isinstance(a, Tensor):
            fresh = Tensor._from_array(a._data)
            fresh._node = Leaf(fresh, "KeptInput", a._node)
            boundary.append(fresh._node)
            cut.append(fresh)
        else:
            boundary.append(None)
            cut.append(a)
    with _ag.recording():
        output = run(*cut)
    entry = None if isinstance(output, tuple) else (output, boundary)
    for region in recorders:
        region.kept.append(entry)
    outputs = flatten_outputs(output)
    plain = tuple(Tensor._from_array(o._data) if isinstance(o, Tensor) else o for o in outputs)
    return plain if isinstance(output, tuple) else plain[0]


def _reuse_kept(entry, args):
    output, boundary = entry
    replay_nodes = tuple(a._node if isinstance(a, Tensor) else None for a in args)
    result = Tensor._from_array(output._data)
    if _ag._depth > 0 and output._node is not None and any(n is not None for n in replay_nodes):
        result._node = Node(f"Kept[{output._node.op}]", _kept_rule, replay_nodes, info=(output, boundary))
    return result


def _kept_rule(m, node, g):
    """Sweep the kept op's own tape and hand its input gradients to the replayed inputs."""
    output, boundary = node.info
    leaf_grads = _ag.backpropagate([(output._node, g)], [b for b in boundary if b is not None])
    return tuple(None if b is None else leaf_grads.get(id(b)) for b in boundary)
