"""A Cell with its own ``bprop``: the gradient comes from the Cell, not from the tape.

A Cell class that defines ``bprop(self, *inputs, out, dout)`` replaces the
gradient of its ``construct``: under a gradient transform ``construct`` runs
off the tape and one node stands for the whole Cell; in backward that node
calls ``bprop`` with the inputs, the output and the output's gradient, and
takes one gradient per input from it (as MindSpore does).  Outside a
gradient transform the Cell simply runs ``construct``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> class Doubled(nn.Cell):
...     def construct(self, x):
...         return x * 3
...     def bprop(self, x, out, dout):
...         return (dout * 2,)              # not the true gradient (3): bprop decides
>>> ms.grad(lambda x: Doubled()(x).sum())(ms.Tensor([1.0, 2.0]))
Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  2.00000000e+00])
"""
from __future__ import annotations

from .. import autograd as _ag
from .. import backend as _backend
from ..tensor import Tensor
from .cell_call import stage

__all__ = ["has_custom_bprop", "run_bprop", "run_custom_bprop", "bprop_debug"]


def has_custom_bprop(cell):
    """Whether ``cell``'s class defines ``bprop``."""
    return callable(getattr(type(cell), "bprop", None))


@stage("run: bprop", per_example=True)
def run_bprop(call):
    """The ``bprop`` runner of a Cell's call (while a gradient records; ``construct`` otherwise)."""
    if _ag._depth > 0:
        call.output = run_custom_bprop(call.cell, call.args, call.kwargs)
    else:
        call.output = call.cell.construct(*call.args, **call.kwargs)


def run_custom_bprop(cell, args, kwargs):
    """Run ``construct`` off the tape; the Cell's ``bprop`` gives the input gradients."""
    with _ag.no_recording():
        plain = tuple(Tensor._from_array(a._data) if isinstance(a, Tensor) else a for a in args)
        output = cell.construct(*plain, **kwargs)
    tensor_inputs = [a for a in args if isinstance(a, Tensor)]
    if not any(t._node is not None for t in tensor_inputs) or not isinstance(output, Tensor):
        return output
    saved = tuple(t._data for t in tensor_inputs) + (output._data,)
    sources = tuple(range(len(tensor_inputs))) + (_ag.OUTPUT,)
    return _ag.record(output._data, "CustomBprop", _bprop_rule, tensor_inputs, saved, sources, (cell, plain))


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
    grads = grads if isinstance(grads, tuple) else (grads,)
    if len(grads) < len(plain):  # more than one per input: MindSpore ignores the rest
        raise RuntimeError(f"Grad size should lager than forward inputs, but got {len(grads)} vs {len(plain)}: "
                           f"{type(cell).__name__}.bprop must return one gradient per input")
    return tuple(_fit_gradient(m, grad, arg) for arg, grad in zip(plain, grads) if isinstance(arg, Tensor))


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


def _get_bprop_debug(self):
    """Whether a custom ``bprop`` is run in debug mode (graph mode; recorded here)."""
    return self._bprop_debug


def _set_bprop_debug(self, value):
    if not isinstance(value, bool):
        raise TypeError(f"For 'Cell', 'bprop_debug' must be a bool, but got {type(value).__name__}")
    object.__setattr__(self, "_bprop_debug", value)


bprop_debug = property(_get_bprop_debug, _set_bprop_debug)


def _has_bprop(self):
    """Whether the Cell's class defines its own ``bprop`` (MindSpore's ``has_bprop``)."""
    return has_custom_bprop(self)


has_bprop = property(_has_bprop)
