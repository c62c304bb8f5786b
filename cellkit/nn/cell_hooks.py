"""Cell hooks: forward pre/post hooks and backward pre/post hooks.

A Cell's hooks live in a :class:`CellHooks` part, created by the first
``register_*_hook`` call (a Cell without hooks holds none).  The functions
``register_*`` below are methods of ``nn.Cell`` (``self`` is the Cell); the
stage functions are stages of its call (see :mod:`cellkit.nn.cell_call`).

Forward hooks are plain calls around the runner.  Backward hooks are
attached to the tape with :class:`~cellkit.tape_gate.TapeGate`: one gate in
front of the Cell's inputs (it sees ``grad_input`` last and runs the
backward hooks), one behind its outputs (it sees ``grad_output`` first and
runs the backward *pre*-hooks).

Hook signatures (every hook receives the Cell first):

- ``forward_pre_hook(cell, args) -> None or new args``
  (``with_kwargs=True``: ``(cell, args, kwargs) -> None or (new args, new kwargs)``)
- ``forward_hook(cell, args, output) -> None or new output``
  (``with_kwargs=True``: ``(cell, args, kwargs, output)``)
- ``backward_pre_hook(cell, grad_output) -> None or new grad_output``
- ``backward_hook(cell, grad_input, grad_output) -> None or new grad_input``

``args``, ``grad_input`` and ``grad_output`` are tuples.

>>> import cellkit as ms
>>> from cellkit import nn
>>> relu = nn.ReLU()
>>> handle = relu.register_forward_hook(lambda cell, args, output: output * 10)
>>> relu(ms.Tensor([-1.0, 2.0]))
Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  2.00000000e+01])
>>> handle.remove()
"""
from __future__ import annotations

import warnings
import weakref

from .. import autograd as _ag
from .. import observers as _obs
from ..parameter import Parameter
from ..tensor import Tensor
from .cell_call import stage
from .hooks import HookRegistry, RemovableHandle, TapeGate, check_hook

__all__ = ["CellHooks", "register_forward_pre_hook", "register_forward_hook", "register_backward_pre_hook",
           "register_backward_hook"]


class CellHooks:
    """The hooks registered on one Cell, by kind, in call order; and the options some were registered with."""

    __slots__ = ("forward_pre", "forward", "backward_pre", "backward", "with_kwargs", "always_call",
                 "saved_tensors", "__weakref__")

    def __init__(self):
        self.forward_pre = HookRegistry()
        self.forward = HookRegistry()
        self.backward_pre = HookRegistry()
        self.backward = HookRegistry()
        self.with_kwargs = set()   # handle ids of hooks that also receive the keyword arguments
        self.always_call = set()   # handle ids of forward hooks that run even when construct raises
        self.saved_tensors = None  # (pack_hook, unpack_hook) from register_saved_tensors_hooks

    def counts(self):
        """``{kind: number of hooks}`` for the kinds that have any (what displays show)."""
        kinds = (("forward_pre", self.forward_pre), ("forward", self.forward),
                 ("backward_pre", self.backward_pre), ("backward", self.backward))
        return {kind: len(registry) for kind, registry in kinds if registry}


def hooks_of(cell):
    """``cell``'s hooks part, created on first use."""
    hooks = cell._hooks
    if hooks is None:
        hooks = CellHooks()
        object.__setattr__(cell, "_hooks", hooks)
    return hooks


def _add(cell, kind, hook, method, prepend=False, with_kwargs=False, always_call=False):
    check_hook(hook, method)
    for name, value in (("prepend", prepend), ("with_kwargs", with_kwargs), ("always_call", always_call)):
        if not isinstance(value, bool):
            raise TypeError(f"For '{method}', '{name}' must be a bool, but got {type(value).__name__}")
    hooks = hooks_of(cell)
    registry = getattr(hooks, kind)

    cell_ref = weakref.ref(cell)  # a handle the user keeps must not keep the Cell alive

    def forget():
        hooks.with_kwargs.discard(handle.id)
        hooks.always_call.discard(handle.id)
        owner = cell_ref()
        if owner is not None:
            owner._configure_call()

    handle = RemovableHandle(registry, on_remove=forget)
    registry[handle.id] = hook
    if prepend:
        registry.move_to_end(handle.id, last=False)
    if with_kwargs:
        hooks.with_kwargs.add(handle.id)
    if always_call:
        hooks.always_call.add(handle.id)
    cell._configure_call()
    return handle


def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
    """Call ``hook_fn(cell, args)`` before each ``construct``; it may return new inputs.

    With ``with_kwargs=True`` the hook is ``hook_fn(cell, args, kwargs)`` and
    returns ``None`` or a pair ``(new_args, new_kwargs)`` (anything else is a
    RuntimeError when the Cell is called).  ``prepend=True`` runs it before
    the hooks already registered.  Returns a handle whose ``remove()``
    unregisters the hook.
    """
    return _add(self, "forward_pre", hook_fn, "register_forward_pre_hook", prepend, with_kwargs)


def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False, always_call=False):
    """Call ``hook_fn(cell, args, output)`` after each ``construct``; it may return a new output.

    With ``with_kwargs=True`` the hook is ``hook_fn(cell, args, kwargs,
    output)``.  With ``always_call=True`` it runs even when the call raises
    (its own error is then turned into a warning, and the first error goes
    on).  ``prepend=True`` runs it before the hooks already registered.  On a
    Cell that defines its own ``bprop`` the hook is not registered (the
    handle removes nothing), as in MindSpore.
    """
    if callable(getattr(type(self), "bprop", None)):
        check_hook(hook_fn, "register_forward_hook")
        return RemovableHandle(HookRegistry())  # MindSpore ignores forward hooks on a custom-bprop Cell
    return _add(self, "forward", hook_fn, "register_forward_hook", prepend, with_kwargs, always_call)


def register_backward_pre_hook(self, hook_fn):
    """Call ``hook_fn(cell, grad_output)`` when the gradient reaches the Cell's outputs.

    It may return a new ``grad_output`` (a tuple, one entry per output).
    Runs only in PyNative mode, during a gradient transform.
    """
    return _add(self, "backward_pre", hook_fn, "register_backward_pre_hook")


def register_backward_hook(self, hook_fn):
    """Call ``hook_fn(cell, grad_input, grad_output)`` once the Cell's input gradients are known.

    ``grad_input`` holds one gradient per input (``None`` for an input
    whose gradient was not requested); returning a tuple replaces them.
    """
    return _add(self, "backward", hook_fn, "register_backward_hook")


def register_saved_tensors_hooks(self, pack_hook, unpack_hook):
    """While this Cell runs under a gradient transform, pass every tensor saved for backward through hooks.

    ``pack_hook(tensor)`` is called when an op inside the Cell saves a Tensor
    for its backward rule, and may return anything; ``unpack_hook(packed)``
    gives the Tensor back when backward needs it.  Outside a transform
    nothing is saved, so neither runs (see :class:`cellkit.saved_tensors_hooks`).
    Returns None.
    """
    for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
        check_hook(hook, f"register_saved_tensors_hooks' {name}")
    hooks_of(self).saved_tensors = (pack_hook, unpack_hook)
    self._configure_call()


def register_parameter_forward_hook(self, hook):
    """Hooks on Parameters read during a compiled graph's run (MindSpore applies them in GRAPH_MODE / jit only).

    ``hook`` is a callable (for every Parameter of the Cell) or a list of dicts
    ``{"params": [Parameter, ...], "hook": callable}``.  As in MindSpore 2.10
    the argument is checked and nothing changes in PyNative; cellkit's graphs
    do not apply it either (see docs/mindspore_differences.md).  Returns None.
    """
    items = [{"params": list(self.get_parameters()), "hook": hook}] if callable(hook) else hook
    if not isinstance(items, list):
        raise TypeError(f"For 'register_parameter_forward_hook', 'hook' must be a callable or a list of dicts, "
                        f"but got {type(hook).__name__}")
    for item in items:
        if not isinstance(item, dict) or "params" not in item or "hook" not in item:
            raise ValueError("For 'register_parameter_forward_hook', each dictionary in the hook list must contain "
                             f"both params and hook keys, but got {item!r}")
        if not callable(item["hook"]):
            raise TypeError(f"For 'register_parameter_forward_hook', a 'hook' must be callable, "
                            f"but got {type(item['hook']).__name__}")
        for param in item["params"]:
            if not isinstance(param, Parameter):
                raise TypeError(f"For 'register_parameter_forward_hook', 'params' must hold Parameters, "
                                f"but got {type(param).__name__}")


def has_hooks(cell):
    """Whether any forward or backward hook is registered on ``cell``."""
    hooks = cell._hooks
    return hooks is not None and bool(hooks.forward_pre or hooks.forward or hooks.backward_pre or hooks.backward)


# ----------------------------------------------------------------------------- stages
def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _call_user_hook(call, kind, hook, hook_args):
    """Call one hook; observers (a trace) hear of the call, its result, time and error."""
    observers = call.cell._observers
    if observers:
        return _obs.call_hook(observers, call.cell, call.id, kind, hook, hook_args)
    return hook(*hook_args)


@stage("forward pre-hooks", per_example=True)
def forward_pre_hooks(call):
    """Observers hear ``forward_pre``; each pre-hook may replace the inputs (and, with kwargs, the keywords)."""
    cell, replay = call.cell, call.replay
    replaying = replay is not None and replay.replaying
    if cell._observers and not replaying:
        _obs.emit(cell._observers, "forward_pre", cell, {"call": call.id, "inputs": call.args})
    hooks = cell._hooks
    if hooks is None:
        return
    for hook_id, hook in list(hooks.forward_pre.items()):
        if replay is not None and not replay.runs_next_hook():
            continue
        if hook_id in hooks.with_kwargs:
            result = _call_user_hook(call, "forward_pre", hook, (cell, call.args, call.kwargs))
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre hook with kwargs must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}")
                call.args, call.kwargs = _as_tuple(result[0]), result[1]
        else:
            result = _call_user_hook(call, "forward_pre", hook, (cell, call.args))
            if result is not None:
                call.args = _as_tuple(result)
        if replay is not None:
            replay.hook_returned(result)


@stage("forward hooks", per_example=True)
def forward_hooks(call):
    """Observers hear ``forward``; each forward hook may replace the output."""
    cell, replay = call.cell, call.replay
    replaying = replay is not None and replay.replaying
    if cell._observers and not replaying:
        _obs.emit(cell._observers, "forward", cell, {"call": call.id, "inputs": call.args, "output": call.output})
    hooks = cell._hooks
    if hooks is None:
        return
    for hook_id, hook in list(hooks.forward.items()):
        if replay is not None and not replay.runs_next_hook():
            continue
        if hook_id in hooks.always_call:
            call.always_called = (call.always_called or set()) | {hook_id}
        if hook_id in hooks.with_kwargs:
            result = _call_user_hook(call, "forward", hook, (cell, call.args, call.kwargs, call.output))
        else:
            result = _call_user_hook(call, "forward", hook, (cell, call.args, call.output))
        if replay is not None:
            replay.hook_returned(result)
        if result is not None:
            call.output = result


def run_always_call_hooks(call):
    """After a failed call: the ``always_call`` forward hooks that have not run yet, errors turned to warnings."""
    cell, hooks = call.cell, call.cell._hooks
    if hooks is None:
        return
    done = call.always_called or set()
    for hook_id, hook in list(hooks.forward.items()):
        if hook_id not in hooks.always_call or hook_id in done:
            continue
        try:
            if hook_id in hooks.with_kwargs:
                result = hook(cell, call.args, call.kwargs, call.output)
            else:
                result = hook(cell, call.args, call.output)
            if result is not None:
                call.output = result
        except Exception as error:  # noqa: BLE001 - the first error is the one the caller must see
            warnings.warn("cell forward hook with ``always_call=True`` raised an exception that was silenced "
                          f"because another error was already raised in forward: {error}", stacklevel=2)


def _watches_backward(cell):
    """Observers that want backward events (a memory probe does not: a gate would keep gradients alive)."""
    return any(getattr(o, "wants_backward", True) for o in cell._observers)


@stage("gate inputs", per_example=True)
def gate_inputs(call):
    """While a gradient records: a tape gate in front of the inputs, which runs the backward hooks."""
    cell = call.cell
    hooks = cell._hooks
    backward = hooks.backward if hooks is not None else {}
    if _ag._depth == 0 or not (backward or _watches_backward(cell)):
        return
    if call.gate is None:
        call.gate = {"grad_output": None}
    gate_state, observers = call.gate, cell._observers

    is_tensor = [isinstance(a, Tensor) for a in call.args]

    def on_backward(grad_input, m):
        # One entry per Tensor input (a Python number input has none), as in MindSpore.
        grads = tuple(None if g is None else m.as_tensor(g) for g, t in zip(grad_input, is_tensor) if t)
        grad_output = gate_state["grad_output"] or ()
        if observers:
            _obs.emit(observers, "backward", cell, {"call": call.id, "grad_input": grads, "grad_output": grad_output})
        for hook in list(backward.values()):
            if observers:
                result = _obs.call_hook(observers, cell, call.id, "backward", hook, (cell, grads, grad_output))
            else:
                result = hook(cell, grads, grad_output)
            if result is not None:
                grads = _check_replacement(result, grads, "backward hook", "grad_input")
        values, result = iter(grads), []
        for tensor_input in is_tensor:
            g = next(values) if tensor_input else None
            result.append(None if g is None else m.as_value(g))
        return tuple(result)

    call.args = TapeGate(call.args, on_backward, "CellInputsHook").outputs


@stage("gate outputs", per_example=True)
def gate_outputs(call):
    """While a gradient records: a tape gate behind the outputs, which runs the backward pre-hooks."""
    cell = call.cell
    hooks = cell._hooks
    backward_pre = hooks.backward_pre if hooks is not None else {}
    has_backward = hooks is not None and bool(hooks.backward)
    if _ag._depth == 0 or not (backward_pre or has_backward or _watches_backward(cell)):
        return
    if call.gate is None:
        call.gate = {"grad_output": None}
    gate_state, observers = call.gate, cell._observers
    single = not isinstance(call.output, tuple)
    outputs = _as_tuple(call.output)

    def on_backward(grad_output, m):
        if observers and not (backward_pre or has_backward):
            # Only watched: report the gradients as they are and change nothing.
            grads = tuple(None if g is None or not isinstance(o, Tensor) else m.as_tensor(g)
                          for o, g in zip(outputs, grad_output))
            gate_state["grad_output"] = grads
            _obs.emit(observers, "backward_pre", cell, {"call": call.id, "grad_output": grads})
            return None
        # An output that received no gradient shows as None (not zeros), as in MindSpore.
        grads = tuple(None if g is None or not isinstance(o, Tensor) else m.as_tensor(g)
                      for o, g in zip(outputs, grad_output))
        if observers:
            _obs.emit(observers, "backward_pre", cell, {"call": call.id, "grad_output": grads})
        for hook in list(backward_pre.values()):
            if observers:
                result = _obs.call_hook(observers, cell, call.id, "backward_pre", hook, (cell, grads))
            else:
                result = hook(cell, grads)
            if result is not None:
                grads = _check_replacement(result, grads, "backward pre-hook", "grad_output")
        gate_state["grad_output"] = grads
        return tuple(None if g is None else m.as_value(g) for g in grads)

    gated = TapeGate(outputs, on_backward, "CellOutputsHook").outputs
    call.output = gated[0] if single else gated


def _check_replacement(result, current, who, what):
    result = _as_tuple(result)
    if len(result) != len(current):
        raise ValueError(
            f"a {who} returned {len(result)} gradient(s) for {what}, but the Cell has {len(current)}"
        )
    for r in result:
        if r is not None and not isinstance(r, Tensor):
            raise TypeError(f"a {who} must return Tensors (or None) for {what}, but got {type(r).__name__}")
    return result
