"""Hook handles, and the tape gates that let backward hooks see a Cell's gradients.

Forward hooks are plain Python calls around ``construct``.  Backward hooks
need the gradients flowing *into* a Cell's outputs and *out of* its inputs,
which only exist during the backward sweep.  A :class:`TapeGate` makes
them visible: it puts one joint node on the tape in front of a group of
tensors (the Cell's outputs, or its inputs) and hands each tensor a small
*select* node that reports its gradient to the joint.  The backward sweep
reaches every select node before the joint, so when the joint runs it holds
the gradients of the whole group at once -- the tuple a hook expects -- and
may pass back replacements.

>>> registry = HookRegistry()
>>> handle = RemovableHandle(registry)
>>> registry[handle.id] = print
>>> handle.remove()
>>> len(registry)
0
"""
from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict

from .. import autograd as _ag
from ..tensor import Tensor

__all__ = ["RemovableHandle", "HookRegistry", "TapeGate", "check_hook"]

_next_id = itertools.count()


class HookRegistry(OrderedDict):
    """Hooks by handle id, in registration order (weak-referenceable, unlike a plain dict)."""


class RemovableHandle:
    """A handle that removes a hook from the registry it was added to.

    Holds only a weak reference to the registry, so a handle kept by the
    user never keeps a deleted Cell alive.  Usable as a context manager:
    the hook is removed when the ``with`` block ends.
    """

    __slots__ = ("id", "_registry_ref", "_on_remove")

    def __init__(self, registry, on_remove=None):
        self.id = next(_next_id)
        self._registry_ref = weakref.ref(registry)
        self._on_remove = _weak_callable(on_remove)

    def remove(self):
        """Remove the hook; calling it twice is harmless."""
        registry = self._registry_ref()
        if registry is not None and self.id in registry:
            del registry[self.id]
            callback = self._on_remove() if self._on_remove is not None else None
            if callback is not None:
                callback()
        self._on_remove = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __repr__(self):
        return f"<RemovableHandle id={self.id}>"


def _weak_callable(fn):
    """A zero-argument function giving back ``fn``; a bound method is held weakly.

    The handle's callback is the Cell's ``_refresh_call_path``: a strong
    reference to it would keep the Cell alive as long as the user keeps the
    handle.  Returns None when there is no callback.
    """
    if fn is None:
        return None
    if hasattr(fn, "__self__"):
        return weakref.WeakMethod(fn)  # calling it gives None once the Cell is gone
    return lambda: fn


def check_hook(hook, method):
    """Raise TypeError unless ``hook`` can be called (functions and callable objects)."""
    if not callable(hook):
        raise TypeError(
            f"For '{method}', the hook function must be callable (a function or an object with "
            f"__call__), but got {type(hook).__name__}"
        )


class _SlotGrads:
    """Gradients for the members of a gate, keyed by position; ``+`` merges them."""

    __slots__ = ("grads",)

    def __init__(self, grads):
        self.grads = grads

    def __add__(self, other):
        merged = dict(self.grads)
        for slot, g in other.grads.items():
            merged[slot] = g if slot not in merged else merged[slot] + g
        return _SlotGrads(merged)


class TapeGate:
    """Route a group of tensors through one joint tape node.

    Parameters
    ----------
    tensors : sequence
        The group (non-Tensors and tensors off the tape pass through untouched).
    on_backward : callable
        ``on_backward(grads) -> grads or None`` is called once per backward
        sweep with a tuple holding each member's gradient (``None`` for a
        member that received none, or is off the tape); returning a tuple
        replaces the gradients passed further back.
    label : str
        The joint node's op name (shown by displays).

    After construction, :attr:`outputs` holds the tensors to use in place of
    ``tensors``.
    """

    def __init__(self, tensors, on_backward, label):
        tensors = tuple(tensors)
        self.on_backward = on_backward
        parents = tuple(t._node if isinstance(t, Tensor) else None for t in tensors)
        self.joint = _ag.Node(label, self._backward, parents)
        self.outputs = tuple(
            self._select(t, slot) if parent is not None else t
            for slot, (t, parent) in enumerate(zip(tensors, parents))
        )
        self.size = len(tensors)

    def _select(self, tensor, slot):
        out = Tensor._from_array(tensor._data)
        out._node = _ag.Node(self.joint.op + "Select", lambda g: (_SlotGrads({slot: g}),), (self.joint,))
        return out

    def _backward(self, slot_grads):
        grads = tuple(slot_grads.grads.get(i) for i in range(self.size))
        replaced = self.on_backward(grads)
        return grads if replaced is None else replaced
