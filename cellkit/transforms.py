"""Gradient transforms: ``grad``, ``value_and_grad`` and ``GradOperation``.

Each transform runs the user's function once with recording switched on,
with the inputs (and weights) it differentiates wrapped as tape leaves, then
sweeps the tape backwards once.  The return shapes follow MindSpore: one
Tensor for one input, tuples for several, ``(input_grads, weight_grads)``
when both are asked for.

>>> import cellkit as ms
>>> def f(x, y):
...     return (x * y).sum()
>>> x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])
>>> print(ms.grad(f)(x, y))
[3. 4.]
>>> value, grads = ms.value_and_grad(f, grad_position=(0, 1))(x, y)
>>> print(value, grads[1])
11.0 [1. 2.]
"""
from __future__ import annotations

from . import autograd as _ag
from . import backend as _backend
from .autograd import Leaf
from .tensor import Tensor

__all__ = ["grad", "value_and_grad", "GradOperation"]


def _as_weight_list(weights):
    """``weights`` as a list of Parameters, and whether a single one was given."""
    if weights is None:
        return [], False
    if isinstance(weights, Tensor):
        return [weights], True
    try:
        items = list(weights)
    except TypeError:
        raise TypeError(
            "weights must be a Parameter, a ParameterTuple or a list of Parameters, "
            f"but got {type(weights).__name__}"
        ) from None
    if isinstance(weights, (dict, str)):
        items = [weights]  # iterating would give its keys (or characters): name the container itself
    for w in items:
        if not isinstance(w, Tensor):
            raise TypeError(f"weights must contain only Parameters, but got {type(w).__name__}")
    return items, False


def _positions(grad_position, n_args):
    """Normalise ``grad_position`` to a tuple of indices (and whether it was an int)."""
    if grad_position is None:
        return (), False
    if isinstance(grad_position, bool):
        raise TypeError("grad_position must be an int, a tuple of ints or None, but got bool")
    single = isinstance(grad_position, int)
    try:
        positions = (grad_position,) if single else tuple(grad_position)
    except TypeError:
        raise TypeError(
            f"grad_position must be an int, a tuple of ints or None, but got {type(grad_position).__name__}"
        ) from None
    if not positions:
        raise ValueError("grad_position must not be an empty tuple")
    # MindSpore returns a lone Tensor for a one-element tuple too.
    single = len(positions) == 1
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"grad_position must contain ints, but got {p!r}")
        if not -n_args <= p < n_args:
            raise IndexError(
                f"grad_position {p} is out of range: the function was called with {n_args} positional argument(s)"
            )
    positions = tuple(p % n_args for p in positions)
    if len(set(positions)) != len(positions):
        raise ValueError(f"grad_position {grad_position} names the same argument twice")
    return positions, single


class _Run:
    """The outcome of running a function on the tape: outputs and leaf gradients."""

    def __init__(self, fn, args, kwargs, positions, weights, has_aux, sens):
        args = list(args)
        if _ag._depth:
            _refuse_higher_order(args, positions, weights)
        self.input_leaves = []
        for p in positions:
            arg = args[p]
            if not isinstance(arg, Tensor):
                raise TypeError(
                    f"the argument at grad_position {p} must be a Tensor to take its gradient, "
                    f"but got {type(arg).__name__}"
                )
            leaf = Tensor._from_array(arg._require_data("grad"))
            leaf._node = Leaf(leaf, f"input{p}")
            args[p] = leaf
            self.input_leaves.append(leaf)
        self.weights = weights
        saved_nodes = [w._node for w in weights]
        weight_nodes = []
        try:
            for w in weights:
                w._require_data("grad")
                w._node = Leaf(w, getattr(w, "name", "weight"))
                weight_nodes.append(w._node)
            with _ag.recording():
                out = fn(*args, **kwargs)
            self.output, self.aux = _split_aux(out, has_aux)
            # The weights stay on the tape through the sweep: backward rules may ask
            # which of their inputs are being differentiated.
            self.leaf_grads = _ag.backpropagate(_seeds(self.output, sens))
        finally:
            for w, node in zip(weights, saved_nodes):
                w._node = node
        self.weight_nodes = weight_nodes

    def input_grads(self):
        return tuple(self._grad_for(leaf._node, leaf) for leaf in self.input_leaves)

    def weight_grads(self):
        grads = tuple(self._grad_for(node, w) for node, w in zip(self.weight_nodes, self.weights))
        for w, g in zip(self.weights, grads):
            # Each Parameter keeps its latest gradient (a reference, like PyTorch's ``.grad``),
            # replaced by the next one, so displays can show gradient norms.  Plain Tensors
            # (no ``__dict__``) are left alone.
            if hasattr(w, "__dict__"):
                w.__dict__["_last_grad"] = g
        return grads

    def _grad_for(self, node, like):
        """The gradient reaching ``node``: zeros if none did, cast to ``like``'s dtype."""
        be = _backend.current()
        g = self.leaf_grads.get(id(node))
        data = like._data
        if g is None:
            g = be.xp.zeros_like(data)
        elif g.dtype != data.dtype:
            g = be.xp.astype(g, data.dtype)
        if tuple(g.shape) != tuple(data.shape):
            g = be.xp.broadcast_to(g, data.shape)
        return Tensor._from_array(g)


def _refuse_higher_order(args, positions, weights):
    """Refuse a transform nested in another that would differentiate the outer one's values.

    Backward rules compute on raw arrays, so the inner gradient would reach
    the outer transform as a constant: its gradient would silently be zero.
    """
    on_tape = [f"argument {p}" for p in positions if isinstance(args[p], Tensor) and args[p]._node is not None]
    on_tape += [getattr(w, "name", None) or "a weight" for w in weights if w._node is not None]
    if on_tape:
        raise NotImplementedError(
            "gradients of gradients are not supported by cellkit: this gradient transform runs inside "
            f"another one and differentiates values that the outer one records ({', '.join(on_tape)})"
        )


def _split_aux(out, has_aux):
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) < 2:
        raise ValueError("with has_aux=True the function must return a tuple (output, aux, ...)")
    return out[0], tuple(_detach(o) for o in out[1:])


def _detach(value):
    """The same values with no tape attached (results never keep the graph alive)."""
    if isinstance(value, Tensor):
        return Tensor._from_array(value._data)
    if isinstance(value, tuple):
        return tuple(_detach(v) for v in value)
    if isinstance(value, list):
        return [_detach(v) for v in value]
    return value


def _seeds(output, sens):
    """(node, gradient) pairs starting the sweep: ones, or the given sensitivity."""
    outputs = output if isinstance(output, (tuple, list)) else (output,)
    if sens is None:
        senses = (None,) * len(outputs)
    elif isinstance(sens, (tuple, list)) and isinstance(output, (tuple, list)):
        senses = tuple(sens)
    else:
        senses = (sens,)
    if len(senses) != len(outputs):
        raise ValueError(f"sens has {len(senses)} entries but the function returned {len(outputs)} outputs")
    xp = _backend.current().xp
    seeds = []
    for o, s in zip(outputs, senses):
        if not isinstance(o, Tensor) or o._node is None:
            continue
        if s is None:
            g = xp.ones_like(o._data)
        else:
            s = s if isinstance(s, Tensor) else Tensor(s)
            if tuple(s.shape) != tuple(o.shape):
                raise ValueError(f"sens must have the output's shape {o.shape}, but got {s.shape}")
            g = s._data if s._data.dtype == o._data.dtype else xp.astype(s._data, o._data.dtype)
        seeds.append((o._node, g))
    return seeds


def _check_callable(fn):
    if not callable(fn):
        raise TypeError(f"fn must be callable (a function or a Cell), but got {type(fn).__name__}")


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """A function that returns the gradient of ``fn`` instead of its value.

    Parameters
    ----------
    fn : callable
        A function or Cell returning a Tensor (or a tuple, whose outputs'
        gradients are summed).
    grad_position : int, tuple of ints or None
        Which positional inputs to differentiate; ``None`` for none.
    weights : Parameter, ParameterTuple or list of Parameters, optional
        Parameters to differentiate as well.
    has_aux : bool
        ``fn`` returns ``(output, aux, ...)``; only ``output`` is differentiated
        and the auxiliary values are returned beside the gradients.
    return_ids : bool
        Pair each gradient with its position (or its weight's name).

    Returns
    -------
    callable
        Returns the input gradients (a Tensor for an int ``grad_position``, a
        tuple for a tuple), the weight gradients, or ``(inputs, weights)``
        when both are asked for; ``(gradients, aux)`` with ``has_aux``.
    """
    _check_callable(fn)
    if grad_position is None and weights is None:
        raise ValueError("grad: grad_position and weights cannot both be None")
    weight_list, single_weight = _as_weight_list(weights)

    def grad_fn(*args, **kwargs):
        positions, single = _positions(grad_position, len(args))
        run = _Run(fn, args, kwargs, positions, weight_list, has_aux, None)
        result = _arrange(run, positions, single, weights is not None, single_weight, return_ids, grad_position)
        if has_aux:
            return result, run.aux
        return result

    grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
    return grad_fn


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """Like :func:`grad`, but the new function returns ``(value, gradients)``.

    With ``has_aux`` the value is the whole tuple ``(output, aux, ...)``.
    """
    _check_callable(fn)
    if grad_position is None and weights is None:
        raise ValueError("value_and_grad: grad_position and weights cannot both be None")
    weight_list, single_weight = _as_weight_list(weights)

    def value_and_grad_fn(*args, **kwargs):
        positions, single = _positions(grad_position, len(args))
        run = _Run(fn, args, kwargs, positions, weight_list, has_aux, None)
        grads = _arrange(run, positions, single, weights is not None, single_weight, return_ids, grad_position)
        value = _detach(run.output)
        if has_aux:
            value = (value,) + run.aux
        return value, grads

    value_and_grad_fn.__name__ = f"value_and_grad_{getattr(fn, '__name__', type(fn).__name__)}"
    return value_and_grad_fn


def _arrange(run, positions, single, with_weights, single_weight, return_ids, grad_position):
    inputs = run.input_grads()
    if return_ids:
        inputs = tuple(zip(positions, inputs))
    input_part = inputs[0] if single else inputs
    if not with_weights:
        return input_part
    weights = run.weight_grads()
    if return_ids:
        weights = tuple((getattr(w, "name", i), g) for i, (w, g) in enumerate(zip(run.weights, weights)))
    weight_part = weights[0] if single_weight else weights
    if grad_position is None:
        return weight_part
    return input_part, weight_part


class GradOperation:
    """MindSpore's higher-order gradient primitive.

    ``GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn)``
    (or ``(fn, weights)`` with ``get_by_list``) returns a function computing:

    - the gradient of the first input (default),
    - all input gradients as a tuple (``get_all=True``),
    - the weights' gradients as a tuple (``get_by_list=True``),
    - ``(input_grads, weight_grads)`` (both flags).

    With ``sens_param=True`` the last positional argument is the gradient
    flowing into the output (the "sensitivity"); otherwise it is all ones.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.GradOperation()(lambda x: x * x)(ms.Tensor([3.0])))
    [6.]
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, value in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'GradOperation', '{name}' must be a bool, but got {type(value).__name__}")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __repr__(self):
        return (f"GradOperation(get_all={self.get_all}, get_by_list={self.get_by_list}, "
                f"sens_param={self.sens_param})")

    def __call__(self, fn, weights=None):
        _check_callable(fn)
        if self.get_by_list and weights is None:
            raise ValueError("GradOperation(get_by_list=True) needs weights: call it as grad_op(fn, weights)")
        weight_list = _as_weight_list(weights)[0] if self.get_by_list else []

        def grad_fn(*args, **kwargs):
            sens = None
            if self.sens_param:
                if not args:
                    raise ValueError("GradOperation(sens_param=True): the last positional argument must be sens")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            else:
                positions = (0,) if args and isinstance(args[0], Tensor) else ()
            run = _Run(fn, args, kwargs, positions, weight_list, False, sens)
            inputs = run.input_grads()
            if self.get_by_list:
                weights_part = run.weight_grads()
                return (inputs, weights_part) if self.get_all else weights_part
            if self.get_all:
                return inputs
            if not inputs:
                raise ValueError("GradOperation: the function was called without a Tensor input to differentiate")
            return inputs[0]

        grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
        return grad_fn
