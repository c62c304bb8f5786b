"""Tape gates: one joint node that sees the gradients of a group of tensors at once.

A backward hook needs the gradients flowing into a group of tensors (a
Cell's outputs, a Cell's inputs, the inputs of ``ops.HookBackward``), which
only exist during the backward sweep.  A :class:`TapeGate` puts one joint
node on the tape in front of the group and hands each tensor a small
*select* node that reports its gradient to the joint.  The backward sweep
reaches every select node before the joint, so when the joint runs it holds
the gradients of the whole group at once -- the tuple a hook expects -- and
may pass back replacements.

When the sweep records for an outer transform (a gradient of a gradient),
the gradients a gate sees are Tensors on that outer tape, and so are the
replacements a hook returns: they stay differentiable.

>>> import cellkit as ms
>>> seen = []
>>> def double(grads, m):
...     seen.append(len(grads))
...     return tuple(None if g is None else g * 2 for g in grads)
>>> def f(x):
...     (y,) = TapeGate((x * 1,), double, "Doubler").outputs
...     return (y * y).sum()
>>> print(ms.grad(f)(ms.Tensor([1.0, 3.0])), seen)
[ 4. 12.] [1]
"""
from __future__ import annotations

from . import autograd as _ag
from .tensor import Tensor

__all__ = ["TapeGate"]


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
        ``on_backward(grads, m) -> grads or None`` is called once per backward
        sweep with a tuple holding each member's gradient (``None`` for a
        member that received none, or is off the tape) and the sweep's math
        namespace ``m`` (arrays, or Tensors for a higher order); returning a
        tuple replaces the gradients passed further back.
    label : str
        The joint node's op name (shown by displays).

    After construction, :attr:`outputs` holds the tensors to use in place of
    ``tensors``.
    """

    def __init__(self, tensors, on_backward, label):
        tensors = tuple(tensors)
        self.on_backward = on_backward
        parents = tuple(t._node if isinstance(t, Tensor) else None for t in tensors)
        self.joint = _ag.Node(label, _joint_rule, parents, info=self)
        self.outputs = tuple(
            self._select(t, slot) if parent is not None else t
            for slot, (t, parent) in enumerate(zip(tensors, parents))
        )
        self.size = len(tensors)

    def _select(self, tensor, slot):
        out = Tensor._from_array(tensor._data)
        out._node = _ag.Node(self.joint.op + "Select", _select_rule, (self.joint,), info=slot)
        return out


def _select_rule(m, node, g):
    """A member's gradient, labelled with its slot for the joint."""
    return (_SlotGrads({node.info: g}),)


def _joint_rule(m, node, slot_grads):
    """All members' gradients at once: the gate's callback may replace them."""
    gate = node.info
    grads = tuple(slot_grads.grads.get(i) for i in range(gate.size))
    replaced = gate.on_backward(grads, m)
    return grads if replaced is None else replaced
