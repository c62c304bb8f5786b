"""Controlling gradients: ``stop_gradient``, ``HookBackward`` and ``Tensor.register_hook``.

- :func:`stop_gradient` returns its input with the tape cut: in a gradient
  transform it counts as a constant (its forward value is unchanged).
- :class:`HookBackward` is an identity Primitive whose hook sees, and may
  replace, the gradients flowing back to its inputs (a tuple, one per input).
- ``Tensor.register_hook(hook)`` calls ``hook(grad)`` with the gradient of
  that tensor once it is complete; a returned Tensor replaces it.  A hook
  on a tensor that is not on a tape yet (an input, a Parameter) waits for
  the transform that differentiates it.  ``Tensor.hooks()`` lists them and
  the handle's ``remove()`` (or ``Tensor.remove_hook(handle_id)``) removes one.

All of them work inside nested transforms: hooks then see Tensors that the
outer transform records.

>>> import cellkit as ms
>>> from cellkit import ops
>>> def f(x):
...     return (x * ops.stop_gradient(x)).sum()
>>> print(ms.grad(f)(ms.Tensor([1.0, 2.0])))
[1. 2.]
>>> def g(x):
...     y = x * 3
...     y.register_hook(lambda grad: grad * 10)
...     return y.sum()
>>> print(ms.grad(g)(ms.Tensor([1.0, 2.0])))
[30. 30.]
"""
from __future__ import annotations

from .. import autograd as _ag
from .. import batching as _batching
from ..hook_handles import RemovableHandle
from ..tape_gate import TapeGate
from ..tensor import Tensor
from ._core import describe
from .primitive import Primitive

__all__ = ["stop_gradient", "HookBackward"]


def stop_gradient(value):
    """``value`` with no gradient flowing back through it (Tensors inside tuples and lists too).

    >>> import cellkit as ms
    >>> print(stop_gradient(ms.Tensor([1.0])))
    [1.]
    """
    if isinstance(value, Tensor):
        if value._data is None:
            value._require_data("stop_gradient")
        return Tensor._from_array(_ag.alias(value._data))  # its own value to a graph trace (see alias)
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    return value


def _check_hook(hook, op, name):
    if not callable(hook):
        raise TypeError(f"For '{op}', '{name}': Expected a callable hook function (a function or an object with "
                        f"__call__), but got {describe(hook)}.")


class HookBackward(Primitive):
    """``HookBackward(hook_fn, cell_id="")(*inputs)``: the inputs unchanged; ``hook_fn`` sees their gradients.

    In backward, ``hook_fn(grads)`` is called with a tuple holding the
    gradient of each input; returning a tuple (or, for one input, a Tensor)
    replaces them, returning None keeps them.

    >>> import cellkit as ms
    >>> seen = []
    >>> hook = HookBackward(lambda grads: seen.append(grads[0].asnumpy().tolist()))
    >>> _ = ms.grad(lambda x: (hook(x * 2) * x).sum())(ms.Tensor([1.0, 3.0]))
    >>> seen
    [[1.0, 3.0]]
    """

    def __init__(self, hook_fn, cell_id=""):
        super().__init__()
        _check_hook(hook_fn, "HookBackward", "hook_fn")
        if not isinstance(cell_id, str):
            raise TypeError(f"For 'HookBackward', 'cell_id' must be a str, but got {type(cell_id).__name__}")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs):
        for value in inputs:
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'HookBackward', the element of 'input' must be Tensor, but got "
                                f"{describe(value)}")
        if _ag._depth == 0 or not any(t._node is not None for t in inputs):
            outputs = inputs
        else:
            outputs = TapeGate(inputs, self._on_backward, "HookBackward").outputs
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _on_backward(self, grads, m):
        if any(g is not None and _batching.is_batched(g._data if m.tensors else g) for g in grads):
            raise _batching.Unbatchable("HookBackward's hook is the user's code: vmap runs it example by example")
        result = self.hook_fn(tuple(None if g is None else m.as_tensor(g) for g in grads))
        if result is None:
            return None
        replaced = (result,) if isinstance(result, Tensor) else tuple(result)
        if len(replaced) != len(grads):
            raise ValueError(f"For 'HookBackward', the hook returned {len(replaced)} gradient(s) for "
                             f"{len(grads)} input(s)")
        return tuple(None if r is None else m.as_value(r) for r in replaced)


# -- Tensor.register_hook / remove_hook / hooks -------------------------------------------------
def _registry_of(tensor):
    """Where ``tensor``'s hooks live: its tape node, or (off the tape) the Tensor itself."""
    return _ag.node_hooks(tensor._node) if tensor._node is not None else _ag.tensor_hooks(tensor)


def register_hook(self, hook):
    """Call ``hook(grad)`` when this tensor's gradient is complete; returns a handle with ``remove()``.

    A returned Tensor replaces the gradient; hooks run in registration order.
    """
    _check_hook(hook, "Tensor.register_hook", "hook")
    registry = _registry_of(self)
    handle = RemovableHandle(registry)
    registry[handle.id] = hook
    return handle


def remove_hook(self, handle_id):
    """Remove the hook registered under ``handle_id`` (the handle's ``id``); an unknown id is ignored."""
    if isinstance(handle_id, bool) or not isinstance(handle_id, int):
        raise TypeError(f"For 'Tensor.remove_hook', 'handle_id' must be an int (a handle's id), "
                        f"but got {describe(handle_id)}")
    registry = _registry_of(self)
    registry.pop(handle_id, None)


def hooks(self):
    """The hooks registered on this tensor, in order (a list)."""
    return list(_registry_of(self).values())
