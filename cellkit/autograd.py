"""Reverse-mode automatic differentiation: the tape and the backward sweep.

Recording is switched on only while a gradient transform (:func:`grad`,
:func:`value_and_grad`, ``ops.GradOperation``) runs its function.  The
transform wraps each input it differentiates in a *leaf* node; every op whose
inputs carry a node then attaches a :class:`Node` to its output, holding a
small ``backward`` closure that maps the output's gradient to its inputs'
gradients (the op's vector-Jacobian product).  Outside a transform, ``ops``
see ``recording() == False`` and attach nothing, so inference costs nothing
extra.

The backward sweep (:func:`backpropagate`) orders the nodes topologically
(deterministically: lists, never sets) and walks them once in reverse.

Gradients are computed on raw backend arrays, so first-order gradients are
supported; gradients of gradients are not.

>>> import cellkit as ms
>>> from cellkit import ops
>>> ms.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
"""
from __future__ import annotations

import weakref as _weakref

from . import backend as _backend
from .tensor import Tensor

__all__ = ["Node", "Leaf", "is_recording", "attach", "backpropagate", "unbroadcast", "no_recording"]

# How many gradient transforms are running right now (they may nest).
_depth = 0

# Set by cellkit.memory.profile while it measures (saved arrays, gradients); None otherwise.
_probe = None


def is_recording() -> bool:
    """True while a gradient transform is running its function."""
    return _depth > 0


class Node:
    """One recorded op: how to send its output's gradient back to its inputs.

    Attributes
    ----------
    op : str
        The op's name (``'Add'``), for error messages and displays.
    backward : callable
        ``backward(grad_output) -> tuple`` with one gradient (or ``None``) per
        input node.
    inputs : tuple of Node or None
        The nodes of the op's inputs; ``None`` for inputs that need no gradient.
    """

    __slots__ = ("op", "backward", "inputs")

    def __init__(self, op, backward, inputs):
        self.op = op
        self.backward = backward
        self.inputs = inputs
        if _probe is not None:  # cellkit.memory is measuring: note what this node keeps alive
            _probe.node(self)

    def __repr__(self):
        return f"<Node {self.op}>"


class Leaf(Node):
    """A value we want the gradient of: a transform's input or a weight."""

    __slots__ = ("_tensor_ref",)

    def __init__(self, tensor, label="Leaf"):
        super().__init__(label, None, ())
        # Weak: the Tensor holds its Leaf in ``_node``; a strong link back would make a
        # reference cycle, and its array would then wait for the cycle collector to be freed.
        self._tensor_ref = _weakref.ref(tensor)

    @property
    def tensor(self):
        """The Tensor this leaf stands for (None once it is gone)."""
        return self._tensor_ref()


def attach(out_array, op, backward, *inputs):
    """Wrap ``out_array`` in a Tensor and, if any input is on the tape, record the op.

    ``inputs`` are the op's tensor inputs (anything that is not a Tensor counts
    as a constant).  ``backward(g)`` must return one gradient per input, in
    the same order; it is called only for recorded ops.
    """
    out = Tensor._from_array(out_array)
    nodes = tuple(t._node if type(t) is Tensor or isinstance(t, Tensor) else None for t in inputs)
    for n in nodes:
        if n is not None:
            out._node = Node(op, backward, nodes)
            break
    return out


def saved_cells(backward, _depth=0, _seen=None):
    """The closure cells through which a backward rule keeps arrays or Tensors alive.

    Yields ``(cell, value)`` pairs, ``value`` being an array, a Tensor, or a
    tuple/list holding some (``cell`` is None for a value held by the object
    of a bound method the rule keeps).  Looks into the closures of functions the rule
    keeps, a few levels down (``lambda g: (backward(g),)`` keeps
    ``backward``, which keeps the arrays).  Memory accounting reads these
    values; offload swaps them for host copies and back.
    """
    seen = set() if _seen is None else _seen
    if id(backward) in seen or _depth > 3:
        return
    seen.add(id(backward))
    for cell in getattr(backward, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        items = value if isinstance(value, (tuple, list)) else (value,)
        if any(isinstance(i, Tensor) or _is_array(i) for i in items):
            yield cell, value
        elif callable(value) and getattr(value, "__closure__", None):
            yield from saved_cells(value, _depth + 1, seen)
        elif hasattr(value, "__self__") and hasattr(value.__self__, "__dict__"):
            # A bound method (a recompute replay): what its object keeps, not swappable (cell None).
            for field in vars(value.__self__).values():
                fields = field if isinstance(field, (tuple, list)) else (field,)
                if any(isinstance(i, Tensor) or _is_array(i) for i in fields):
                    yield None, field


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


def _is_array(value):
    """A backend array (NumPy, CuPy, array_api_strict): has a shape and a dtype, and is not a Tensor."""
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, Tensor)


def needs_grad(*tensors) -> bool:
    """True if recording and any of ``tensors`` is on the tape."""
    if _depth == 0:
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
    """Sum ``grad`` down to ``shape``: the backward of NumPy broadcasting.

    >>> import numpy as np
    >>> unbroadcast(np.ones((2, 3)), (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    xp = _backend.current().xp
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = xp.sum(grad, axis=tuple(range(extra)))
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and grad.shape[i] != 1)
    if axes:
        grad = xp.sum(grad, axis=axes, keepdims=True)
    return grad


def _topological_order(roots):
    """Every node reachable from ``roots``, each after all nodes that use it... reversed.

    Returns nodes so that a node comes *after* every node it feeds into when
    the list is walked backwards (a post-order DFS, iterative to survive deep
    networks).
    """
    order = []
    seen = set()
    for root in roots:
        if id(root) in seen:
            continue
        stack = [(root, iter(root.inputs))]
        seen.add(id(root))
        while stack:
            node, children = stack[-1]
            for child in children:
                if child is not None and id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child.inputs)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def backpropagate(seeds):
    """Run the backward sweep.

    Parameters
    ----------
    seeds : list of (Node, array)
        Output nodes and the gradients flowing into them.

    Returns
    -------
    dict
        ``{id(leaf): gradient array}`` for every :class:`Leaf` reached.
    """
    grads = {}
    leaf_grads = {}
    _sweeps.append(leaf_grads)
    try:
        _sweep(seeds, grads, leaf_grads)
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


def _spent(grad):
    raise RuntimeError(
        "this part of the tape was already used by a backward sweep and has been freed; "
        "run the forward again to differentiate again"
    )


def _sweep(seeds, grads, leaf_grads):
    for node, g in seeds:
        key = id(node)
        grads[key] = g if key not in grads else grads[key] + g
    order = _topological_order([node for node, _ in seeds])
    try:
        _sweep_in_order(order, grads, leaf_grads)
    except BaseException:
        # A rule or a backward hook raised: free the rest of the tape now, as a finished sweep
        # does, rather than when the garbage collector finds its cycles (a TapeGate and its joint
        # node refer to each other) -- or never, while a notebook keeps the traceback.
        for node in order:
            if node.backward is not None:
                node.backward = _spent
        grads.clear()
        raise


def _sweep_in_order(order, grads, leaf_grads):
    for node in reversed(order):
        g = grads.pop(id(node), None)
        if g is None:
            continue
        if node.backward is None:  # a Leaf
            key = id(node)
            leaf_grads[key] = g if key not in leaf_grads else leaf_grads[key] + g
            continue
        if _probe is None:
            input_grads = node.backward(g)
        else:
            input_grads = _probe.run_backward(node, g)
        # The rule has run: let go of what it kept, so activations are freed as the sweep
        # passes them rather than when it ends (memory falls during backward, as it should).
        node.backward = _spent
        for parent, pg in zip(node.inputs, input_grads):
            if parent is None or pg is None:
                continue
            key = id(parent)
            previous = grads.get(key)
            if previous is None:
                grads[key] = pg
            else:
                grads[key] = previous + pg
                if _probe is not None:
                    _probe.array(grads[key], "gradient")
