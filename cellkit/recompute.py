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

The replay must compute exactly what the first run computed: random draws
(dropout) are replayed from the generator states noted in the first run
(:class:`cellkit.seed.DrawLog`), and the generators are left where they
were, so gradients are bitwise identical to a run without recompute.  What
a recomputed *Cell* runs twice and what once (hooks, BatchNorm statistics)
is said in one place: :func:`run_cell`, the Cell's recompute runner.

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
           "Region", "HookReplay", "set_recompute", "switch_off", "run_cell"]

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


class HookReplay:
    """Which of one Cell call's forward hooks run, inside a recomputed region (rules: :func:`run_cell`).

    In the first run every hook runs and :meth:`hook_returned` notes whether
    it returned a replacement; in the replay :meth:`runs_next_hook` answers,
    hook by hook, from those notes.
    """

    __slots__ = ("flags", "replaying", "_cursor")

    def __init__(self, flags, replaying):
        self.flags = flags
        self.replaying = replaying
        self._cursor = 0

    def runs_next_hook(self):
        if not self.replaying:
            return True
        ran = self.flags[self._cursor] if self._cursor < len(self.flags) else False
        self._cursor += 1
        return ran

    def hook_returned(self, result):
        if not self.replaying:
            self.flags.append(result is not None)


def enter_cell_call(new_call_id):
    """A Cell with hooks or observers is called inside a region: its call id and its :class:`HookReplay`.

    In a replay the id is the one the first run used (so backward events
    pair with the forward events observers already saw).
    """
    source, recorders = _replay_source()
    if source is not None:
        call, flags = source.next_call()
        for region in recorders:  # a region starting inside a replay records the same call
            region.calls.append((call, flags))
        return call, HookReplay(flags, replaying=True)
    call = new_call_id()
    flags = []
    for region in recorders:
        region.calls.append((call, flags))
    return call, HookReplay(flags, replaying=False)


# ------------------------------------------------------------------------- Cell.recompute()
_RECOMPUTE_KEYS = ("mp_comm_recompute", "parallel_optimizer_comm_recompute", "recompute_slice_activation")


class RecomputeSetting:
    """A Cell's ``recompute()`` options (the Cell holds one while recompute is on)."""

    __slots__ = ("use_reentrant", "output_recompute", "early_stop", "context_fn", "options")

    def __init__(self, use_reentrant, output_recompute, early_stop, context_fn, options):
        self.use_reentrant = use_reentrant
        self.output_recompute = output_recompute
        self.early_stop = early_stop
        self.context_fn = context_fn
        self.options = options

    def record(self):
        """The settings as a dict (what ``Cell.parallel_config['recompute']`` shows)."""
        return dict(self.options, mode=True)


def set_recompute(self, *, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None, **kwargs):
    """Recompute this Cell's activations in backward instead of keeping them (``Cell.recompute``).

    During a gradient transform the Cell keeps only its inputs; when the
    backward sweep reaches it, ``construct`` runs again (recording) and the
    sweep continues through that fresh tape -- see :func:`run_cell` for
    what runs twice and what once.  Set on a parent it covers every child;
    the Cell's output is kept, not recomputed; a Primitive's own
    ``recompute()`` setting wins.  Gradients are identical to the run
    without recompute.

    ``context_fn`` (with ``use_reentrant=False``) returns two context
    managers: the first wraps the forward run, the second the replay.
    ``output_recompute=True`` implies ``use_reentrant=False``; cellkit keeps
    the Cell's output either way (it has no adjacent-cell merging), and
    ``early_stop`` changes nothing here (the replay always runs to the end).
    Keyword options (bools): ``mp_comm_recompute``,
    ``parallel_optimizer_comm_recompute``, ``recompute_slice_activation``
    (they only matter in parallel runs; recorded); anything else -- ``mode``
    of MindSpore 1.x included -- is a ValueError, as in MindSpore 2.10.
    (:func:`switch_off` turns recompute off again; MindSpore has no such call.)

    >>> from cellkit import nn
    >>> block = nn.SequentialCell(nn.Dense(4, 16), nn.GELU(), nn.Dense(16, 4))
    >>> block.recompute()
    >>> block.parallel_config["recompute"]["mode"]
    True
    """
    for name, value in (("use_reentrant", use_reentrant), ("output_recompute", output_recompute),
                        ("early_stop", early_stop)):
        if not isinstance(value, bool):
            raise TypeError(f"For 'recompute', '{name}' must be a bool, but got {type(value).__name__}")
    if context_fn is not None and not callable(context_fn):
        raise TypeError(f"For 'recompute', 'context_fn' must be callable or None, but got {type(context_fn).__name__}")
    for key, value in kwargs.items():
        if key not in _RECOMPUTE_KEYS:
            raise ValueError(
                f"For 'recompute', keyword '{key}' is not recognized! the key kwargs must be "
                + ", ".join(f"'{k}'" for k in _RECOMPUTE_KEYS)
            )
        if not isinstance(value, bool):
            raise TypeError(f"The parameter '{key}' must be <class 'bool'>, but got {type(value)}")
    if output_recompute:
        use_reentrant = False
    options = {"mp_comm_recompute": True, "parallel_optimizer_comm_recompute": False,
               "recompute_slice_activation": False}
    options.update(kwargs)
    if "parallel_optimizer_comm_recompute" in kwargs:
        for p in self.get_parameters():
            p.parallel_optimizer_comm_recompute = kwargs["parallel_optimizer_comm_recompute"]
    object.__setattr__(self, "_recompute",
                       RecomputeSetting(use_reentrant, output_recompute, early_stop, context_fn, options))
    self._configure_call()


def switch_off(cell):
    """Stop recomputing ``cell`` (the memory explorer's checkboxes untick with it)."""
    if cell._recompute is not None:
        object.__setattr__(cell, "_recompute", None)
        cell._configure_call()


def run_cell(call):
    """The ``recompute`` runner of a Cell's call: ``construct`` as a recomputed region.

    Outside a gradient transform ``construct`` simply runs.  Under one, only
    the inputs are kept in forward, and backward runs ``construct`` again.
    What runs twice and what once -- the replay rules, in one place:

    - the recomputed Cell's own forward pre-hooks and forward hooks run
      once, around this runner (they are stages of its call, outside it);
    - a Cell *inside* the region has its forward hooks called again during
      the replay only if the hook replaced that Cell's inputs or output in
      the first run (so the replacement is rebuilt on the replayed tape; its
      side effects then happen twice) -- :class:`HookReplay` applies this;
    - backward hooks run once, during the replay's sweep;
    - dropout draws the same masks (the generator states are replayed);
    - BatchNorm updates its running statistics once (:func:`replaying`).
    """
    cell, setting = call.cell, call.cell._recompute
    kwargs = call.kwargs

    def run(*inputs):
        return cell.construct(*inputs, **kwargs)

    label = type(cell).__name__
    if setting is not None and setting.context_fn is not None and not setting.use_reentrant:
        call.output = checkpoint_with_contexts(run, call.args, cell.get_parameters(), label, setting.context_fn)
    else:
        call.output = checkpoint(run, call.args, cell.get_parameters(), label=label)


run_cell.stage_name = "run: recompute"
run_cell.in_graph_mode = False
run_cell.per_example = True  # vmap runs a region example by example


def checkpoint_with_contexts(run, args, weights, label, context_fn):
    """:func:`checkpoint` with ``context_fn()``'s two context managers around the forward run and the replay."""
    contexts = context_fn()
    if not (isinstance(contexts, tuple) and len(contexts) == 2):
        raise TypeError(f"For 'recompute', 'context_fn' must return a tuple of two context managers, "
                        f"but got {type(contexts).__name__}")
    forward_context, replay_context = contexts
    phase = {"replay": False}

    def run_in_context(*inputs):
        context = replay_context if phase["replay"] else forward_context
        phase["replay"] = True
        with context:
            return run(*inputs)

    return checkpoint(run_in_context, args, weights, label=label)


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
