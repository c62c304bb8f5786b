"""Reverse-mode automatic differentiation: the tape and the backward sweep.

Recording is switched on only while a gradient transform (:func:`grad`,
:func:`value_and_grad`, ``ops.GradOperation`` ...) runs its function.  The
transform wraps each input it differentiates in a :class:`Leaf`; every op
whose inputs carry a node then attaches a :class:`Node` to its output.
Outside a transform ops attach nothing, so inference costs nothing extra.

A node holds, explicitly:

- ``rule``: the op's backward rule, ``rule(m, node, g)``, returning one
  gradient (or ``None``) per input;
- ``saved``: the arrays the rule needs, and ``sources``: where each came
  from -- input ``i`` of the op, the op's own output (:data:`OUTPUT`), or a
  constant (``None``: a mask, indices, a value whose derivative is zero);
- ``info``: anything else the rule needs that is not an array (shapes, axes).

Memory accounting reads ``saved``; offload moves it to the host and back.

**One rule, two ways to run.**  ``m`` is a small math namespace
(:mod:`cellkit.ops._rule_math`).  When nothing records a higher order, the
sweep passes the *array* namespace: the rule computes on raw backend arrays,
as fast as hand-written NumPy.  When the sweep itself runs inside another
gradient transform (a gradient of a gradient), it passes the *Tensor*
namespace: the same rule text now calls cellkit ops on Tensors, so the
outer transform records the rule's own computation and can differentiate
it.  :meth:`Node.unpack` hands the rule its saved values in the matching
form; in the Tensor form an input or output comes back linked to its place
on the tape, which is what makes the second derivative flow.

The backward sweep (:func:`backpropagate`) orders the nodes topologically
(deterministically: lists, never sets), keeps only those that lead to the
wanted gradients, and walks them once in reverse.

>>> import cellkit as ms
>>> ms.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
>>> ms.grad(ms.grad(lambda x: (x * x * x).sum()))(ms.Tensor([1.0, 2.0]))
Tensor(shape=[2], dtype=Float32, value= [ 6.00000000e+00,  1.20000000e+01])
"""
from __future__ import annotations

import weakref as _weakref

from . import backend as _backend
from . import batching as _batching
from .hook_handles import HookRegistry
from .tensor import Tensor

__all__ = ["Node", "Leaf", "OUTPUT", "is_recording", "record", "backpropagate", "unbroadcast", "saved_tensors_hooks",
           "no_recording", "recording", "tensor_mode"]

# How many gradient transforms are running right now (they may nest).
_depth = 0

# Set by cellkit.memory.profile while it measures (saved arrays, gradients); None otherwise.
_probe = None

# Set by cellkit.vmap while it runs a function on batched tensors (it notes the nodes made inside, and
# puts a batch sum between an op and an input from outside); None otherwise.
_batch_watch = None

# The source of a saved value that is the op's own output (others are input indices, or None).
OUTPUT = -1

# The two math namespaces rules run with, registered by cellkit.ops (which sits above this
# module): a factory of the array namespace for a backend, and the Tensor namespace.
_array_math_for = None
_tensor_math = None

# Hooks registered on nodes (Tensor.register_hook, ops.HookBackward): node -> HookRegistry.
_node_hooks = _weakref.WeakKeyDictionary()


def is_recording() -> bool:
    """True while a gradient transform is running its function."""
    return _depth > 0


def tensor_mode() -> bool:
    """True when a backward sweep running now would record for an outer transform."""
    return _depth > 0


def set_rule_math(array_math_for, tensor_math):
    """Register the namespaces backward rules compute with (called once by :mod:`cellkit.ops`)."""
    global _array_math_for, _tensor_math
    _array_math_for = array_math_for
    _tensor_math = tensor_math


def rule_math():
    """The namespace a rule run now gets: Tensors if an outer transform records, else arrays."""
    return _tensor_math if _depth > 0 else _array_math_for(_backend._current)


class Node:
    """One recorded op: how to send its output's gradient back to its inputs.

    Attributes
    ----------
    op : str
        The op's name (``'Mul'``), for error messages and displays.
    rule : callable
        ``rule(m, node, grad_output) -> tuple`` with one gradient (or ``None``)
        per input; ``m`` is the math namespace (arrays or Tensors).
    inputs : tuple of Node or None
        The nodes of the op's inputs; ``None`` for inputs that need no gradient.
    saved : tuple
        The arrays the rule needs (``None`` once the rule has run and let them go).
    sources : tuple
        For each saved array: the index of the input it is, :data:`OUTPUT`, or
        ``None`` for a constant.
    info : object
        Whatever else the rule needs (shapes, axes, flags); never arrays.
    """

    __slots__ = ("op", "rule", "inputs", "saved", "sources", "info", "__weakref__")

    def __init__(self, op, rule, inputs, saved=(), sources=(), info=None):
        self.op = op
        self.rule = rule
        self.inputs = inputs
        self.saved = saved
        self.sources = sources
        self.info = info
        if _probe is not None:  # cellkit.memory is measuring: note what this node keeps alive
            _probe.node(self)
        if _batch_watch is not None:  # vmap is running a batch: this node is made inside it
            _batch_watch.note(self)

    def unpack(self, m):
        """The saved values in ``m``'s form: the arrays, or Tensors linked to the tape.

        In the Tensor form a saved input comes back attached to that input's
        node and the saved output to this node, so ops the rule runs on them
        are recorded as functions of the op's inputs (second derivatives);
        constants come back as Tensors with no node.
        """
        saved = self.saved
        if saved is None:
            _spent(m, self, None)
        if type(saved) is _Packed:
            saved = saved.unpacked()
        if not m.tensors:
            return saved
        values = []
        for array, source in zip(saved, self.sources):
            if array is None or not hasattr(array, "shape"):  # absent, or a Python number
                values.append(array)
                continue
            t = Tensor._from_array(array)
            if source == OUTPUT:
                t._node = self
            elif source is not None:
                t._node = self.inputs[source]
            values.append(t)
        return tuple(values)

    def __repr__(self):
        return f"<Node {self.op}>"


def _identity_rule(m, node, g):
    return (g,)


class Leaf(Node):
    """A value we want the gradient of: a transform's input, a weight, a region's input.

    When the value it stands for is itself on a tape (a transform nested in
    another, a recomputed region's input), ``parent`` is that value's node:
    for an outer sweep the leaf is then a plain identity link, so an inner
    gradient stays a function of the outer transform's inputs.
    """

    __slots__ = ("_tensor_ref",)

    def __init__(self, tensor, label="Leaf", parent=None):
        super().__init__(label, _identity_rule, () if parent is None else (parent,))
        # Weak: the Tensor holds its Leaf in ``_node``; a strong link back would make a
        # reference cycle, and its array would then wait for the cycle collector to be freed.
        self._tensor_ref = _weakref.ref(tensor)

    @property
    def tensor(self):
        """The Tensor this leaf stands for (None once it is gone)."""
        return self._tensor_ref()


def leaf_for(value, label):
    """A fresh Tensor with ``value``'s data standing for it as a :class:`Leaf` on the tape.

    Hooks registered on ``value`` (``Tensor.register_hook``) move to the leaf.
    """
    fresh = Tensor._from_array(value._data)
    fresh._node = Leaf(fresh, label, value._node)
    if _tensor_hooks:
        copy_tensor_hooks(value, fresh._node)
    return fresh


def alias(array):
    """A new array object over ``array``'s memory (no copy), for an op whose output is its input's values.

    ``stop_gradient`` and ``InsertGradientOf`` change what flows backward, not the values.  Graph
    tracing tells values apart by their array's identity, so handing back the input's own array
    would make the op invisible to a traced graph, and its replay would differentiate as if the op
    were not there.
    """
    return array.view() if hasattr(array, "view") else array[...]


def record(out_array, op, rule, inputs, saved=(), sources=(), info=None):
    """Wrap ``out_array`` in a Tensor and, if any input is on the tape, record the op.

    ``inputs`` are the op's Tensor inputs (anything else counts as a
    constant).  ``saved``/``sources``/``info`` are stored on the node as
    described in :class:`Node`; the rule is called only if the sweep reaches it.
    Inside :class:`saved_tensors_hooks` the saved arrays are kept as what the
    pack hook made of them.
    """
    out = Tensor._from_array(out_array)
    nodes = tuple([t._node if isinstance(t, Tensor) else None for t in inputs])
    for n in nodes:
        if n is not None:
            if _batch_watch is not None:
                nodes = _batch_watch.adapt(out_array, nodes, inputs)
            if _saved_hooks and saved:
                saved = _Packed.pack(saved, *_saved_hooks[-1])
            out._node = Node(op, rule, nodes, saved, sources, info)
            break
    return out


# --------------------------------------------------------------------------- saved-tensor hooks
# The (pack, unpack) pairs in force, innermost last (see saved_tensors_hooks).
_saved_hooks = []


class _Packed(tuple):
    """A node's saved values as a pack hook made them, with the unpack hook that gives them back."""

    __slots__ = ()

    @classmethod
    def pack(cls, saved, pack_hook, unpack_hook):
        """``(packed values..., which were packed, unpack_hook)``: arrays go through the pack hook as Tensors."""
        mask = tuple(is_array(a) for a in saved)
        packed = tuple(pack_hook(Tensor._from_array(a)) if was_array else a for a, was_array in zip(saved, mask))
        return cls(packed + (mask, unpack_hook))

    def unpacked(self):
        """The saved arrays again, each packed one given back by the unpack hook."""
        *packed, mask, unpack_hook = self
        values = []
        for value, was_array in zip(packed, mask):
            if was_array:
                value = unpack_hook(value)
                value = value._data if isinstance(value, Tensor) else value
            values.append(value)
        return tuple(values)


class saved_tensors_hooks:
    """Context manager: every array an op saves for backward goes through ``pack_hook`` while it runs.

    ``pack_hook(tensor) -> anything`` is called when a recorded op saves a
    Tensor for its backward rule; ``unpack_hook(packed) -> Tensor`` when the
    rule needs it back.  Outside a gradient transform nothing is saved, so
    neither is called.  Use it to move saved activations elsewhere, compress
    them, or (in a lesson) to see what backward keeps.

    >>> import cellkit as ms
    >>> seen = []
    >>> def pack(t):
    ...     seen.append(t.shape)
    ...     return t
    >>> with ms.saved_tensors_hooks(pack, lambda t: t):
    ...     g = ms.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
    >>> seen, g
    ([(2,), (2,)], Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00]))
    """

    def __init__(self, pack_hook, unpack_hook):
        for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"For 'saved_tensors_hooks', '{name}' must be callable, but got {type(hook).__name__}")
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self):
        _saved_hooks.append(self.hooks)
        return self

    def __exit__(self, *exc):
        _saved_hooks.remove(self.hooks)
        return False


def higher_order(*tensors) -> bool:
    """True if an op on ``tensors`` may be differentiated twice: two transforms record and one input is on a tape.

    Fused ops (whose rules lean on intermediate arrays) then run as their
    composition of simpler ops instead, so the outer transform sees every step.
    """
    if _depth < 2:
        return False
    for t in tensors:
        if isinstance(t, Tensor) and t._node is not None:
            return True
    return False


class no_recording:
    """Context manager: run a block without recording (e.g. a custom bprop).

    >>> from cellkit import autograd
    >>> with autograd.no_recording():
    ...     autograd.is_recording()
    False
    """

    def __enter__(self):
        global _depth
        self._saved, _depth = _depth, 0
        return self

    def __exit__(self, *exc):
        global _depth
        _depth = self._saved
        return False


class recording:
    """Context manager: record ops in this block (used by the transforms)."""

    def __enter__(self):
        global _depth
        _depth += 1
        return self

    def __exit__(self, *exc):
        global _depth
        _depth -= 1
        return False


def unbroadcast(grad, shape):
    """Sum an array ``grad`` down to ``shape``: the backward of NumPy broadcasting.

    >>> import numpy as np
    >>> unbroadcast(np.ones((2, 3)), (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    xp = _backend._current.xp
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = xp.sum(grad, axis=tuple(range(extra)))
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and grad.shape[i] != 1)
    if axes:
        grad = xp.sum(grad, axis=axes, keepdims=True)
    return grad


# ------------------------------------------------------------------ hooks on nodes
def node_hooks(node):
    """The registry of hooks called when ``node``'s gradient is complete (made on first use).

    ``Tensor.register_hook`` and ``ops.HookBackward`` put hooks here; a hook
    returning a Tensor replaces the gradient.
    """
    registry = _node_hooks.get(node)
    if registry is None:
        registry = _node_hooks[node] = HookRegistry()
    return registry


def tensor_hooks(tensor):
    """The registry of hooks of a Tensor that is not on a tape (yet): a Parameter, an input."""
    entry = _tensor_hooks.get(id(tensor))
    if entry is None:
        key = id(tensor)
        # Keyed by identity (a Tensor's ``==`` is elementwise); the entry goes with the Tensor.
        entry = _tensor_hooks[key] = (_weakref.ref(tensor, lambda _, key=key: _tensor_hooks.pop(key, None)),
                                      HookRegistry())
    return entry[1]


# Hooks registered on Tensors that are not on a tape yet: they follow the Tensor onto the leaf
# a transform makes for it (the same registry object, so removing a hook removes it there too).
_tensor_hooks = {}


def copy_tensor_hooks(tensor, node):
    """Let ``node`` run the hooks registered on ``tensor`` while it was off the tape."""
    if _tensor_hooks:
        entry = _tensor_hooks.get(id(tensor))
        registry = entry[1] if entry is not None and entry[0]() is tensor else None
        if registry:
            existing = _node_hooks.get(node)
            if existing is None:
                _node_hooks[node] = registry
            else:
                existing.update(registry)


def _run_node_hooks(node, g, m):
    registry = _node_hooks.get(node)
    if not registry:
        return g
    if _batching.is_batched(g._data if m.tensors else g):
        raise _batching.Unbatchable("a gradient hook is the user's code: vmap runs it example by example")
    for hook in list(registry.values()):
        as_tensor = g if m.tensors else Tensor._from_array(g)
        result = hook(as_tensor)
        if result is None:
            continue
        if isinstance(result, (tuple, list)) and len(result) == 1:
            result = result[0]
        if not isinstance(result, Tensor):
            raise TypeError(f"a gradient hook must return a Tensor or None, but got {type(result).__name__}")
        if tuple(result.shape) != tuple(as_tensor.shape):
            raise ValueError(f"a gradient hook returned a gradient of shape {result.shape} for a tensor "
                             f"of shape {as_tensor.shape}")
        g = result if m.tensors else result._data
    return g


# ------------------------------------------------------------------ the sweep
def _topological_order(roots, stop):
    """Every node reachable from ``roots``, each after all of its inputs (post-order DFS).

    Iterative, to survive deep networks.  The inputs of a stop node (its id
    in the set ``stop``; with ``stop`` None, every :class:`Leaf`) are not
    followed: the sweep ends there.  Returns ``(order, dead_ends)``:
    ``dead_ends`` says whether some path ends in a node that is not a stop
    node (a leaf of another transform), in which case not every node of
    ``order`` leads to a wanted gradient.
    """
    order = []
    seen = set()
    dead_ends = False
    leaves = stop is None
    for root in roots:
        key = id(root)
        if key in seen:
            continue
        seen.add(key)
        ends = isinstance(root, Leaf) if leaves else key in stop
        stack = [(root, iter(() if ends else root.inputs))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child is None:
                    continue
                key = id(child)
                if key not in seen:
                    seen.add(key)
                    ends = isinstance(child, Leaf) if leaves else key in stop
                    inputs = child.inputs
                    if not ends and inputs.count(None) == len(inputs):
                        dead_ends = True
                    stack.append((child, iter(() if ends else inputs)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order, dead_ends


def _leading_to(order, stop):
    """The nodes of ``order`` from which a node in ``stop`` can be reached (order kept)."""
    needed = set()
    kept = []
    for node in order:  # inputs come before the nodes that use them
        key = id(node)
        if key in stop or any(i is not None and id(i) in needed for i in node.inputs):
            needed.add(key)
            kept.append(node)
    return kept


def backpropagate(seeds, targets=None, retain=False):
    """Run the backward sweep.

    Parameters
    ----------
    seeds : list of (Node, gradient)
        Output nodes and the gradients flowing into them (arrays, or
        Tensors when an outer transform records).
    targets : list of Node, optional
        The nodes whose gradients are wanted; the sweep stops at them and
        skips every node that leads to none of them.  ``None``: every
        :class:`Leaf` reached (a recomputed region's own sweep).
    retain : bool
        Keep the tape for another sweep (a ``vjp`` function called twice).
        Sweeps that record for an outer transform always keep it.

    Returns
    -------
    dict
        ``{id(node): gradient}`` for every target (or leaf) reached.
    """
    tensors = _depth > 0
    m = _tensor_math if tensors else _array_math_for(_backend._current)
    leaf_grads = {}
    _sweeps.append(leaf_grads)
    try:
        _sweep(seeds, targets, m, retain or tensors, leaf_grads)
    finally:
        _sweeps.pop()
    return leaf_grads


# The leaf-gradient dicts of the sweeps running now (a recompute replay runs a sweep inside a sweep).
_sweeps = []


def add_leaf_gradient(key, grad):
    """Add ``grad`` to leaf ``key`` (``id(leaf)``) in the sweep that is running.

    A recompute replay sweeps its own fresh tape; a leaf it reaches but does
    not own (a weight it was not told about) is handed on to the outer sweep.
    """
    target = _sweeps[-1]
    target[key] = grad if key not in target else target[key] + grad


def _spent(m, node, grad):
    raise RuntimeError(
        "this part of the tape was already used by a backward sweep and has been freed; "
        "run the forward again to differentiate again"
    )


def _sweep(seeds, targets, m, retain, leaf_grads):
    grads = {}
    for node, g in seeds:
        key = id(node)
        grads[key] = g if key not in grads else grads[key] + g
    roots = [node for node, _ in seeds]
    stop = None if targets is None else {id(t) for t in targets}
    order, dead_ends = _topological_order(roots, stop)
    if dead_ends and stop is not None:  # some nodes lead elsewhere (another transform's tape): skip them
        order = _leading_to(order, stop)
    try:
        _sweep_in_order(order, grads, leaf_grads, stop, m, retain)
    except BaseException:
        # A rule or a backward hook raised: free the rest of the tape now, as a finished sweep
        # does, rather than when the garbage collector finds its cycles (a TapeGate and its joint
        # node refer to each other) -- or never, while a notebook keeps the traceback.
        if not retain:
            for node in order:
                if type(node) is not Leaf:
                    node.rule, node.saved, node.info = _spent, None, None
        grads.clear()
        raise


def _sweep_in_order(order, grads, leaf_grads, stop, m, retain):
    probe = _probe if not m.tensors else None
    hooks = _node_hooks.data  # the plain dict under the weak one: an empty check costs nothing
    leaves = stop is None
    for node in reversed(order):
        key = id(node)
        g = grads.pop(key, None)
        if g is None:
            continue
        if hooks:
            g = _run_node_hooks(node, g, m)
        if isinstance(node, Leaf) if leaves else key in stop:
            leaf_grads[key] = g if key not in leaf_grads else leaf_grads[key] + g
            continue
        if probe is None:
            input_grads = node.rule(m, node, g)
        else:
            input_grads = probe.run_backward(node, g, m)
        if not retain:
            # The rule has run: let go of what it kept, so activations are freed as the sweep
            # passes them rather than when it ends (memory falls during backward, as it should).
            node.rule, node.saved, node.info = _spent, None, None
        for parent, pg in zip(node.inputs, input_grads):
            if parent is None or pg is None:
                continue
            key = id(parent)
            previous = grads.get(key)
            if previous is None:
                grads[key] = pg
            else:
                grads[key] = previous + pg
                if probe is not None:
                    probe.array(grads[key], "gradient")


def memory_owner(array):
    """The array that owns ``array``'s memory (views point at it through ``.base``).

    Memory accounting counts an allocation once per owner, and offload moves
    each owner once; an ``array_api_strict`` array is looked through to the
    NumPy array it wraps.
    """
    inner = getattr(array, "_array", None)
    if inner is not None and not hasattr(array, "base"):
        array = inner
    base = getattr(array, "base", None)
    while base is not None and hasattr(base, "nbytes") and hasattr(base, "base"):
        array, base = base, base.base
    return array


def is_array(value):
    """A backend array (NumPy, CuPy, array_api_strict): has a shape and a dtype, and is not a Tensor."""
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, Tensor)


def saved_arrays(node):
    """The arrays ``node`` keeps for its rule (what memory accounting counts and offload moves)."""
    saved = node.saved
    if not saved:
        return []
    return [a for a in saved if a is not None and is_array(a)]
