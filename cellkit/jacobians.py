"""Forward mode and Jacobians: ``jvp``, ``jacfwd``, ``jacrev``.

**Forward mode from two reverse passes.**  cellkit has one rule per op, a
reverse one.  A Jacobian-vector product ``J v`` is obtained from it by the
"double vjp" trick: the vector-Jacobian product ``u -> J^T u`` is linear in
the cotangent ``u``, and its own reverse-mode gradient, taken with respect
to ``u`` and seeded with ``v``, is ``J v``.  Because backward rules run on
Tensors when an outer transform records (see :mod:`cellkit.autograd`),
``J^T u`` can be recorded as a function of ``u`` and swept once more.  This
costs one forward pass and two backward passes, and needs no second set of
tangent rules per op -- every op gets forward mode by having a reverse rule.
(Real tangent rules would be faster for one JVP, roughly one pass; the
op catalogue would then have to carry and test two rules for every op.)

``jacfwd`` records ``J^T u`` once and sweeps it once per input element (a
column of ``J`` each); ``jacrev`` keeps the forward tape and sweeps it once
per output element (a row each).  Both return, for an output of shape ``O``
and an input of shape ``I``, a Jacobian of shape ``O + I``.

>>> import cellkit as ms
>>> x = ms.Tensor([1.0, 2.0])
>>> out, tangent = ms.jvp(lambda x: x * x, x, ms.Tensor([1.0, 0.0]))
>>> print(tangent)
[2. 0.]
>>> print(ms.jacrev(lambda x: x * x)(x))
[[2. 0.]
 [0. 4.]]
"""
from __future__ import annotations

import numpy as np

from . import autograd as _ag
from . import backend as _backend
from . import transforms as _tf
from .tensor import Tensor

__all__ = ["jvp", "jacfwd", "jacrev"]


def _as_tuple(value, what):
    if isinstance(value, Tensor):
        return (value,), True
    if isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value):
        return tuple(value), False
    raise TypeError(f"{what} must be a Tensor or a tuple of Tensors, but got {type(value).__name__}")


class _Linearized:
    """``fn`` run once, with ``u -> J^T u`` recorded as a function of fresh cotangent leaves ``u``."""

    def __init__(self, fn, args, positions, has_aux):
        with _ag.recording():  # one level more: the tape is recorded to be differentiated twice
            self.tape = _tf._Tape(fn, args, {}, positions, [], has_aux)
        self.outputs = _tf._flatten(self.tape.output)
        xp = _backend.current().xp
        self.cotangents = []
        seeds = []
        for o in self.outputs:
            u = Tensor._from_array(xp.zeros_like(o._data))
            u._node = _ag.Leaf(u, "cotangent")
            self.cotangents.append(u)
            if o._node is not None:
                seeds.append((o._node, u))
        with _ag.recording():  # the sweep below records its rules, as a function of u
            leaf_grads = _ag.backpropagate(seeds, self.tape.targets(), retain=True) if seeds else {}
            self.pulled = self.tape.input_grads(leaf_grads)

    def push(self, tangents):
        """``J v`` for input tangents ``tangents`` (one per differentiated input; None for zero)."""
        seeds = [(g._node, _value(v, g)) for g, v in zip(self.pulled, tangents)
                 if v is not None and g._node is not None]
        grads = _ag.backpropagate(seeds, [u._node for u in self.cotangents], retain=True) if seeds else {}
        return [_tf._grad_for(grads, u._node, o) for u, o in zip(self.cotangents, self.outputs)]


def _value(tangent, like):
    """A tangent as the sweep's seed: its array, or itself when an outer transform records."""
    if _ag.tensor_mode():
        return _ag.rule_math().astype(tangent, like._data.dtype)
    data = tangent._data
    return data if data.dtype == like._data.dtype else _backend.current().xp.astype(data, like._data.dtype)


def _rebuild(template, flat):
    """``flat`` Tensors laid out like the output ``template`` (a Tensor, or nested tuples/lists/dicts)."""
    it = iter(flat)

    def build(node):
        if isinstance(node, Tensor):
            return next(it)
        if isinstance(node, (tuple, list)):
            return type(node)(build(v) for v in node)
        if isinstance(node, dict):
            return {k: build(v) for k, v in node.items()}
        return node

    return build(template)


def jvp(fn, inputs, v, has_aux=False):
    """The value of ``fn`` at ``inputs`` and its Jacobian-vector product with tangents ``v``.

    ``inputs`` and ``v`` are a Tensor or tuples of Tensors of the same
    shapes.  Returns ``(output, jvp_output)`` -- each shaped like ``fn``'s
    output -- or ``(output, jvp_output, aux)`` with ``has_aux``.

    >>> import cellkit as ms
    >>> out, t = ms.jvp(lambda x, y: x * y, (ms.Tensor([2.0]), ms.Tensor([3.0])), (ms.Tensor([1.0]), ms.Tensor([0.0])))
    >>> print(out, t)
    [6.] [3.]
    """
    _tf._check_callable(fn)
    _tf._check_flags("jvp", has_aux=has_aux)
    primals, _ = _as_tuple(inputs, "jvp: 'inputs'")
    tangents, _ = _as_tuple(v, "jvp: 'v'")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: 'v' must hold one tangent per input ({len(primals)}), but got {len(tangents)}")
    for p, t in zip(primals, tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise ValueError(f"jvp: each tangent must have its input's shape {p.shape}, but got {t.shape}")
    lin = _Linearized(fn, primals, tuple(range(len(primals))), has_aux)
    pushed = lin.push(tangents)
    output = _tf._result(lin.tape.output)
    jvp_output = _rebuild(lin.tape.output, pushed)
    if has_aux:
        return output, jvp_output, lin.tape.aux
    return output, jvp_output


def _stack_last(columns, shape):
    """Stack Tensors (each of the output's shape) along a new last axis, reshaped to ``shape``."""
    m = _ag.rule_math()
    values = [m.as_value(c) for c in columns]
    stacked = m.concat([m.expand_dims(v, -1) for v in values], -1)
    return m.as_tensor(m.reshape(stacked, tuple(shape)))


def _basis(like):
    """The unit tangents of ``like``'s elements, in order (as Tensors of its shape)."""
    xp = _backend.current().xp
    size = 1
    for d in like.shape:
        size *= d
    flat_eye = _backend.current().from_host(np.eye(max(size, 1), dtype=_np_dtype(like)))
    for k in range(size):
        yield Tensor._from_array(xp.reshape(flat_eye[k], tuple(like.shape)))


def _np_dtype(t):
    return np.dtype(str(t._data.dtype).rsplit(".", 1)[-1])


def _jacobian_shape(out, x):
    return tuple(out.shape) + tuple(x.shape)


def _arrange(per_output, single_output, positions_single):
    """``per_output[i][p]``: one Jacobian per output and position, in MindSpore's nesting."""
    rows = [row[0] if positions_single else tuple(row) for row in per_output]
    return rows[0] if single_output else tuple(rows)


def jacfwd(fn, grad_position=0, has_aux=False):
    """A function returning the Jacobian of ``fn`` by forward mode (a column per input element).

    ``grad_position`` (an int or a tuple) picks the inputs.  For an output of
    shape ``O`` and an input of shape ``I`` the Jacobian has shape ``O + I``;
    several positions give a tuple, several outputs a tuple of those.

    >>> import cellkit as ms
    >>> print(ms.jacfwd(lambda x: x.sum() * x)(ms.Tensor([1.0, 2.0])))
    [[4. 1.]
     [2. 5.]]
    """
    _tf._check_callable(fn)

    _check_has_aux(has_aux, "jacfwd")

    def jac_fn(*args):
        positions, single = _tf._positions(grad_position, len(args), jacobian=True)
        lin = _Linearized(fn, args, positions, has_aux)
        primals = [args[p] for p in lin.tape.positions]
        columns = [[[] for _ in positions] for _ in lin.outputs]
        for i, x in enumerate(primals):
            for unit in _basis(x):
                tangents = [unit if j == i else None for j in range(len(primals))]
                for o, pushed in enumerate(lin.push(tangents)):
                    columns[o][i].append(pushed)
        jacobians = [[_stack_last(columns[o][i], _jacobian_shape(out, x)) if columns[o][i]
                      else _zeros(_jacobian_shape(out, x), out) for i, x in enumerate(primals)]
                     for o, out in enumerate(lin.outputs)]
        result = _arrange(jacobians, isinstance(lin.tape.output, Tensor), single)
        return (result, lin.tape.aux) if has_aux else result

    jac_fn.__name__ = f"jacfwd_{getattr(fn, '__name__', type(fn).__name__)}"
    return jac_fn


def _check_has_aux(has_aux, op):
    if not isinstance(has_aux, bool):
        raise TypeError(f"For '{op}', the 'has_aux' must be bool type, but got {type(has_aux).__name__} "
                        f"{has_aux!r:.60}")


def _zeros(shape, like):
    xp = _backend.current().xp
    return Tensor._from_array(xp.zeros(shape, dtype=like._data.dtype) if _backend.current().is_numpy
                              else xp.zeros(shape, dtype=like._data.dtype, device=_backend.current().device))


def jacrev(fn, grad_position=0, has_aux=False):
    """A function returning the Jacobian of ``fn`` by reverse mode (a row per output element).

    Same arguments and result layout as :func:`jacfwd`.

    >>> import cellkit as ms
    >>> print(ms.jacrev(lambda x: x.sum() * x)(ms.Tensor([1.0, 2.0])))
    [[4. 1.]
     [2. 5.]]
    """
    _tf._check_callable(fn)

    _check_has_aux(has_aux, "jacrev")

    def jac_fn(*args):
        positions, single = _tf._positions(grad_position, len(args), jacobian=True)
        tape = _tf._Tape(fn, args, {}, positions, [], has_aux)
        outputs = _tf._flatten(tape.output)
        primals = [args[p] for p in tape.positions]
        jacobians = []
        for o, out in enumerate(outputs):
            rows = [[] for _ in primals]
            for unit in _basis(out):
                sens = [unit if j == o else Tensor._from_array(_backend.current().xp.zeros_like(other._data))
                        for j, other in enumerate(outputs)]
                grads = tape.input_grads(tape.sweep(_rebuild(tape.output, sens), retain=True))
                for i, g in enumerate(grads):
                    rows[i].append(g)
            jacobians.append([_rows_to_jacobian(rows[i], out, x) for i, x in enumerate(primals)])
        result = _arrange(jacobians, isinstance(tape.output, Tensor), single)
        return (result, tape.aux) if has_aux else result

    jac_fn.__name__ = f"jacrev_{getattr(fn, '__name__', type(fn).__name__)}"
    return jac_fn


def _rows_to_jacobian(rows, out, x):
    """Rows (each shaped like ``x``), one per output element, stacked to ``out.shape + x.shape``."""
    if not rows:
        return _zeros(_jacobian_shape(out, x), x)
    m = _ag.rule_math()
    stacked = m.concat([m.expand_dims(m.as_value(r), 0) for r in rows], 0)
    return m.as_tensor(m.reshape(stacked, _jacobian_shape(out, x)))
