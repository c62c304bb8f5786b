"""Cell hooks: forward pre/post hooks, backward pre/post hooks, and custom ``bprop``.

Forward hooks run around ``construct``.  Backward hooks are attached to the
tape with :class:`~cellkit.nn.hooks.TapeGate`: one gate in front of the
Cell's outputs (it sees ``grad_output`` first and runs the backward
*pre*-hooks), one in front of its inputs (it sees ``grad_input`` last and
runs the backward hooks).  A Cell with no hook registered never reaches
this code: ``Cell.__call__`` goes straight to ``construct``.

Hook signatures (every hook receives the Cell first):

- ``forward_pre_hook(cell, inputs) -> None or new inputs``
- ``forward_hook(cell, inputs, output) -> None or new output``
- ``backward_pre_hook(cell, grad_output) -> None or new grad_output``
- ``backward_hook(cell, grad_input, grad_output) -> None or new grad_input``

``inputs``, ``grad_input`` and ``grad_output`` are tuples.
"""
from __future__ import annotations


from .. import autograd as _ag
from .. import backend as _backend
from .. import batching as _batching
from .. import offload as _offload
from .. import recompute as _rc
from ..tensor import Tensor
from . import observers as _obs
from .hooks import HookRegistry, RemovableHandle, TapeGate, check_hook

__all__ = ["HookMixin"]


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


class HookMixin:
    """The hook half of ``nn.Cell``."""

    # Observers watching this Cell (see cellkit.nn.observers); set on the instance only while watched.
    _observers = ()

    def _init_hooks(self):
        setattr_ = object.__setattr__
        setattr_(self, "_forward_pre_hooks", HookRegistry())
        setattr_(self, "_forward_hooks", HookRegistry())
        setattr_(self, "_backward_pre_hooks", HookRegistry())
        setattr_(self, "_backward_hooks", HookRegistry())
        setattr_(self, "_bprop_debug", False)

    def _has_hooks(self):
        return bool(self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks or self._backward_hooks)

    def _has_custom_bprop(self):
        return callable(getattr(type(self), "bprop", None))

    def _add_hook(self, registry, hook, method):
        check_hook(hook, method)
        handle = RemovableHandle(registry, on_remove=self._refresh_call_path)
        registry[handle.id] = hook
        self._refresh_call_path()
        return handle

    def register_forward_pre_hook(self, hook_fn):
        """Call ``hook_fn(cell, inputs)`` before each ``construct``; it may return new inputs.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        return self._add_hook(self._forward_pre_hooks, hook_fn, "register_forward_pre_hook")

    def register_forward_hook(self, hook_fn):
        """Call ``hook_fn(cell, inputs, output)`` after each ``construct``; it may return a new output."""
        return self._add_hook(self._forward_hooks, hook_fn, "register_forward_hook")

    def register_backward_pre_hook(self, hook_fn):
        """Call ``hook_fn(cell, grad_output)`` when the gradient reaches the Cell's outputs.

        It may return a new ``grad_output`` (a tuple, one entry per output).
        Runs only in PyNative mode, during a gradient transform.
        """
        return self._add_hook(self._backward_pre_hooks, hook_fn, "register_backward_pre_hook")

    def register_backward_hook(self, hook_fn):
        """Call ``hook_fn(cell, grad_input, grad_output)`` once the Cell's input gradients are known.

        ``grad_input`` holds one gradient per input (``None`` for an input
        whose gradient was not requested); returning a tuple replaces them.
        """
        return self._add_hook(self._backward_hooks, hook_fn, "register_backward_hook")

    @property
    def bprop_debug(self):
        """Whether a custom ``bprop`` is run in debug mode (graph mode; recorded here)."""
        return self._bprop_debug

    @bprop_debug.setter
    def bprop_debug(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Cell', 'bprop_debug' must be a bool, but got {type(value).__name__}")
        object.__setattr__(self, "_bprop_debug", value)

    # ------------------------------------------------------------------ running
    def _run_with_hooks(self, args, kwargs):
        if any(isinstance(a, Tensor) and _batching.is_batched(a._data) for a in args):
            # Hooks and observers are the user's code, run once per call: vmap calls this Cell example by example.
            raise _batching.Unbatchable(f"{type(self).__name__} has hooks or observers; vmap runs it per example")
        observers = self._observers  # () unless a tool (cellkit.trace) watches this Cell
        call = None
        replay_flags = record_flags = None
        if _rc._regions:  # inside a recomputed region: see cellkit.recompute for the replay rules
            call, replay_flags, record_flags = _rc.enter_cell_call(
                _obs.new_call_id if observers else _no_call_id)
        elif observers:
            call = _obs.new_call_id()
        if observers and replay_flags is None:
            _obs.emit(observers, "forward_pre", self, {"call": call, "inputs": args})
        for hook in list(self._forward_pre_hooks.values()):
            if replay_flags is not None and not replay_flags.pop(0):
                continue  # it ran in the first run and changed nothing
            if observers:
                result = _obs.call_hook(observers, self, call, "forward_pre", hook, (self, args))
            else:
                result = hook(self, args)
            if record_flags is not None:
                record_flags.append(result is not None)
            if result is not None:
                args = _as_tuple(result)
        recording = _ag._depth > 0
        gate_state = None
        # Gates on the tape only for backward hooks and for observers that want backward events
        # (a memory probe does not: a gate would keep gradients alive and change what it measures).
        watch_backward = observers and any(getattr(o, "wants_backward", True) for o in observers)
        if recording and (self._backward_hooks or self._backward_pre_hooks or watch_backward):
            gate_state = {"grad_output": None, "call": call}
            if self._backward_hooks or watch_backward:
                args = self._gate_inputs(args, gate_state)
        if recording and self._has_custom_bprop():
            output = self._run_custom_bprop(args, kwargs)
        elif self._recompute_mode and recording:
            output = self._run_recomputed(args, kwargs)
        elif self._offload_prefetch is not None and recording:
            output = _offload.offloaded(lambda *a: self.construct(*a, **kwargs), args, self.get_parameters(),
                                        label=type(self).__name__, backward_prefetch=self._offload_prefetch)
        else:
            output = self.construct(*args, **kwargs)
        if observers and replay_flags is None:
            _obs.emit(observers, "forward", self, {"call": call, "inputs": args, "output": output})
        for hook in list(self._forward_hooks.values()):
            if replay_flags is not None and not replay_flags.pop(0):
                continue
            if observers:
                result = _obs.call_hook(observers, self, call, "forward", hook, (self, args, output))
            else:
                result = hook(self, args, output)
            if record_flags is not None:
                record_flags.append(result is not None)
            if result is not None:
                output = result
        if gate_state is not None:
            output = self._gate_outputs(output, gate_state)
        return output

    def _run_recomputed(self, args, kwargs):
        """Run ``construct`` as a recomputed region (see :mod:`cellkit.recompute`).

        Only the inputs are kept in forward; backward runs ``construct``
        again, recording, and sweeps the fresh tape.  The Cell's own forward
        hooks ran once around this call.  Inside the region, a child's forward
        hook is called again during the replay only if it replaced its
        Cell's inputs or output in the first run (so the replacement is
        rebuilt on the tape); backward hooks run once, during the replay's
        sweep; dropout draws the same mask; BatchNorm updates its running
        statistics once.
        """
        def run(*inputs):
            return self.construct(*inputs, **kwargs)

        return _rc.checkpoint(run, args, self.get_parameters(), label=type(self).__name__)

    def _gate_inputs(self, args, gate_state):
        observers = self._observers

        def on_backward(grad_input, m):
            grads = tuple(None if g is None else m.as_tensor(g) for g in grad_input)
            grad_output = gate_state["grad_output"] or ()
            if observers:
                _obs.emit(observers, "backward", self,
                          {"call": gate_state["call"], "grad_input": grads, "grad_output": grad_output})
            for hook in list(self._backward_hooks.values()):
                if observers:
                    result = _obs.call_hook(observers, self, gate_state["call"], "backward", hook,
                                            (self, grads, grad_output))
                else:
                    result = hook(self, grads, grad_output)
                if result is not None:
                    grads = _check_replacement(result, grads, "backward hook", "grad_input")
            return tuple(None if g is None else m.as_value(g) for g in grads)

        gate = TapeGate(args, on_backward, "CellInputsHook")
        return gate.outputs

    def _gate_outputs(self, output, gate_state):
        single = not isinstance(output, tuple)
        outputs = _as_tuple(output)
        observers = self._observers

        def on_backward(grad_output, m):
            if observers and not (self._backward_pre_hooks or self._backward_hooks):
                # Only watched: report the gradients as they are and change nothing.
                grads = tuple(None if g is None or not isinstance(o, Tensor) else m.as_tensor(g)
                              for o, g in zip(outputs, grad_output))
                gate_state["grad_output"] = grads
                _obs.emit(observers, "backward_pre", self, {"call": gate_state["call"], "grad_output": grads})
                return None
            grads = tuple(
                (Tensor._from_array(_backend.current().xp.zeros_like(o._data)) if g is None else m.as_tensor(g))
                if isinstance(o, Tensor) else None
                for o, g in zip(outputs, grad_output)
            )
            if observers:
                _obs.emit(observers, "backward_pre", self, {"call": gate_state["call"], "grad_output": grads})
            for hook in list(self._backward_pre_hooks.values()):
                if observers:
                    result = _obs.call_hook(observers, self, gate_state["call"], "backward_pre", hook, (self, grads))
                else:
                    result = hook(self, grads)
                if result is not None:
                    grads = _check_replacement(result, grads, "backward pre-hook", "grad_output")
            gate_state["grad_output"] = grads
            return tuple(None if g is None else m.as_value(g) for g in grads)

        gate = TapeGate(outputs, on_backward, "CellOutputsHook")
        return gate.outputs[0] if single else gate.outputs

    # -------------------------------------------------------------- custom bprop
    def _run_custom_bprop(self, args, kwargs):
        """Run ``construct`` off the tape; the Cell's ``bprop`` gives the input gradients."""
        with _ag.no_recording():
            plain = tuple(Tensor._from_array(a._data) if isinstance(a, Tensor) else a for a in args)
            output = self.construct(*plain, **kwargs)
        tensor_inputs = [a for a in args if isinstance(a, Tensor)]
        if not any(t._node is not None for t in tensor_inputs) or not isinstance(output, Tensor):
            return output
        saved = tuple(t._data for t in tensor_inputs) + (output._data,)
        sources = tuple(range(len(tensor_inputs))) + (_ag.OUTPUT,)
        return _ag.record(output._data, "CustomBprop", _bprop_rule, tensor_inputs, saved, sources, (self, plain))


def _bprop_rule(m, node, g):
    """Call the Cell's ``bprop(*inputs, out, dout)``; fit each gradient to its input (as MindSpore does).

    On arrays the bprop runs unrecorded, as in a first-order sweep; when the
    sweep records for an outer transform it runs recorded, on Tensors linked
    to the inputs, so its own computation can be differentiated again.
    """
    cell, plain = node.info
    values = node.unpack(m)
    tensors = iter(values[:-1])
    inputs = tuple(m.as_tensor(next(tensors)) if isinstance(a, Tensor) else a for a in plain)
    out, dout = m.as_tensor(values[-1]), m.as_tensor(g)
    if m.tensors:
        grads = cell.bprop(*inputs, out, dout)
    else:
        with _ag.no_recording():
            grads = cell.bprop(*inputs, out, dout)
    grads = _as_tuple(grads)
    if len(grads) < len(plain):  # more than one per input: MindSpore ignores the rest
        raise RuntimeError(f"Grad size should lager than forward inputs, but got {len(grads)} vs {len(plain)}: "
                           f"{type(cell).__name__}.bprop must return one gradient per input")
    return tuple(_fit_gradient(m, grad, arg) for arg, grad in zip(plain, grads) if isinstance(arg, Tensor))


def _no_call_id():
    return None


def _fit_gradient(m, grad, like):
    """A bprop gradient fitted to its input as MindSpore fits it: summed down to its shape, cast to its dtype.

    ``None`` stands for zeros.  A gradient that cannot be summed down to the
    input's shape (a smaller one included: MindSpore does not broadcast it up)
    is a RuntimeError.
    """
    if grad is None:
        return m.as_value(Tensor._from_array(_backend.current().xp.zeros_like(like._data)))
    value = m.as_value(grad if isinstance(grad, Tensor) else Tensor(grad))
    shape = tuple(like.shape)
    if tuple(value.shape) != shape:
        if not _sums_down_to(tuple(value.shape), shape):
            raise RuntimeError(
                f"For grad interface or custom function, grad tensor should be broadcast to expected shape, but "
                f"got {list(value.shape)} vs {list(shape)}: a custom bprop returned a gradient that does not fit "
                "its input"
            )
        value = m.sum_to(value, shape)
    return m.astype(value, like._data.dtype)


def _sums_down_to(shape, target):
    """Can a gradient of ``shape`` be summed over broadcast axes to ``target`` (``target`` broadcasts to it)?"""
    if len(shape) < len(target):
        return False
    return all(t == s or t == 1 for s, t in zip(shape[len(shape) - len(target):], target))


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
