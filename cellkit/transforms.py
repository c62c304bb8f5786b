"""Reverse-mode transforms: ``grad``, ``value_and_grad``, ``get_grad``, ``vjp`` and ``GradOperation``.

Each transform runs the user's function once with recording switched on,
with the inputs (and weights) it differentiates wrapped as tape leaves, then
sweeps the tape backwards once.  The return shapes follow MindSpore: one
Tensor for one input, tuples for several, ``(input_grads, weight_grads)``
when both are asked for.

Transforms nest.  A transform running inside another one wraps its inputs
in leaves that remember the outer tape, and its backward sweep records its
rules' own ops (see :mod:`cellkit.autograd`), so what it returns is a
function of the outer transform's inputs that the outer one can
differentiate: ``grad(grad(f))`` is the second derivative.

>>> import cellkit as ms
>>> def f(x, y):
...     return (x * y).sum()
>>> x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])
>>> print(ms.grad(f)(x, y))
[3. 4.]
>>> value, grads = ms.value_and_grad(f, grad_position=(0, 1))(x, y)
>>> print(value, grads[1])
11.0 [1. 2.]
>>> print(ms.grad(ms.grad(lambda x: (x ** 3).sum()))(x))
[ 6. 12.]
"""
from __future__ import annotations

from . import autograd as _ag
from . import backend as _backend
from . import batching as _batching
from .tensor import Tensor

__all__ = ["grad", "value_and_grad", "get_grad", "vjp", "GradOperation"]


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


def _positions(grad_position, n_args, jacobian=False):
    """Normalise ``grad_position`` to a tuple of indices (and whether one Tensor is returned).

    MindSpore's checks and exception types: a float or None where an int
    or tuple is needed is a TypeError, a negative position a ValueError, a
    position past the arguments a RuntimeError (``ValueError`` for the
    Jacobians), an empty tuple a RuntimeError.
    """
    if grad_position is None:
        if jacobian:
            raise TypeError("For 'F.grad', the 'grad_position' must be int or tuple.")
        return (), False
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, list)):
        raise TypeError("For 'F.grad', the 'grad_position' must be int or tuple.")
    single = isinstance(grad_position, int)
    positions = (grad_position,) if single else tuple(grad_position)
    if not positions:
        raise RuntimeError("grad_position should not be empty when grad by position!")
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"For 'F.grad', the element of 'grad_position' must be int, but got {p!r}")
        if p < 0:
            raise ValueError("grad_position must be >= 0." if single else
                             "The element in grad_position must be >= 0.")
        if p >= n_args:
            if jacobian:
                raise ValueError("The element in grad_position must belong to [0, args_num).")
            raise RuntimeError(f"Position index {p} is exceed input size.")
    if len(set(positions)) != len(positions):
        raise ValueError("There are duplicate positions in `grad_position`, please check it")
    # MindSpore returns a lone Tensor for a one-element tuple too.
    return positions, len(positions) == 1


def _positions_cache(grad_position):
    """:func:`_positions` for ``grad_position``, remembered per number of arguments (a transform is called often)."""
    known = {}

    def positions_for(n_args):
        found = known.get(n_args)
        if found is None:
            found = known[n_args] = _positions(grad_position, n_args)
        return found

    return positions_for


def _check_flags(op, **flags):
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"For '{op}', the '{name}' should be bool, but got {type(value).__name__} {value!r:.60}")


class _Tape:
    """A function run once on the tape: its leaves, its outputs, its weights' leaves.

    The forward pass happens at construction; :meth:`sweep` may run any
    number of times when ``retain`` is true (``vjp``, the Jacobians).
    """

    def __init__(self, fn, args, kwargs, positions, weights, has_aux):
        args = list(args)
        self.input_leaves = []
        self.positions = tuple([p for p in positions if isinstance(args[p], Tensor)])  # MindSpore skips the rest
        for p in self.positions:
            arg = args[p]
            if arg._data is None:
                arg._require_data("grad")
            leaf = _ag.leaf_for(arg, _input_label(p))
            args[p] = leaf
            self.input_leaves.append(leaf)
        self.weights = weights
        self._outer_nodes = [w._node for w in weights]
        self.weight_nodes = []
        try:
            for w in weights:
                w._require_data("grad")
                if not _differentiable_weight(w):
                    self.weight_nodes.append(None)  # a frozen Parameter or a plain Tensor: zeros, as MindSpore
                    continue
                node = _ag.Leaf(w, getattr(w, "name", None) or "weight", w._node)
                _ag.copy_tensor_hooks(w, node)
                w._node = node
                self.weight_nodes.append(node)
            _ag._depth += 1  # record (a context manager would cost more than the rest of a small call)
            try:
                out = fn(*args, **kwargs)
            finally:
                _ag._depth -= 1
            self.output, self.aux = _split_aux(out, has_aux)
        except BaseException:
            self.restore_weights()
            raise

    def restore_weights(self):
        """Give the weights back the tape links they had before (an outer transform's, or none)."""
        for w, node in zip(self.weights, self._outer_nodes):
            w._node = node

    def targets(self):
        return [leaf._node for leaf in self.input_leaves] + [n for n in self.weight_nodes if n is not None]

    def sweep(self, sens, retain=False):
        """The leaves' gradients for output sensitivity ``sens`` (None: ones)."""
        seeds = _seeds(self.output, sens)
        if not seeds:
            return {}
        return _ag.backpropagate(seeds, self.targets(), retain)

    def input_grads(self, leaf_grads):
        return tuple([_grad_for(leaf_grads, leaf._node, leaf) for leaf in self.input_leaves])

    def weight_grads(self, leaf_grads):
        grads = tuple(_grad_for(leaf_grads, node, w) for node, w in zip(self.weight_nodes, self.weights))
        if not _ag.tensor_mode() and not any(_batching.is_batched(g._data) for g in grads):
            for w, g in zip(self.weights, grads):
                # Each Parameter keeps its latest gradient (a reference, like PyTorch's ``.grad``),
                # replaced by the next one, so displays can show gradient norms.  Plain Tensors
                # (no ``__dict__``) are left alone.
                if hasattr(w, "__dict__"):
                    w.__dict__["_last_grad"] = g
        return grads


_INPUT_LABELS = tuple(f"input{p}" for p in range(8))


def _input_label(position):
    return _INPUT_LABELS[position] if position < len(_INPUT_LABELS) else f"input{position}"


def _differentiable_weight(w):
    """Only Parameters that require a gradient are differentiated as weights (others get zeros)."""
    return getattr(w, "requires_grad", False) is True and hasattr(w, "name")


def _run(fn, args, kwargs, positions, weights, has_aux, sens):
    """Run ``fn`` on the tape and sweep once: ``(tape, leaf gradients)``."""
    tape = _Tape(fn, args, kwargs, positions, weights, has_aux)
    try:
        leaf_grads = tape.sweep(sens)
    finally:
        tape.restore_weights()
    return tape, leaf_grads


def _grad_for(leaf_grads, node, like):
    """The gradient that reached ``node``: zeros if none did, in ``like``'s dtype and shape.

    Inside an outer transform it is a Tensor that stays on that transform's
    tape (a function of its inputs); otherwise a plain Tensor.
    """
    g = leaf_grads.get(id(node)) if node is not None else None
    data = like._data
    if isinstance(g, Tensor):  # the sweep recorded for an outer transform
        m = _ag.rule_math()
        g = m.astype(g, data.dtype)
        if tuple(g.shape) != tuple(data.shape):
            g = m.broadcast_to(g, tuple(data.shape))
        return g
    xp = _backend.current().xp
    if g is None:
        g = xp.zeros_like(data)
    elif g.dtype != data.dtype:
        g = xp.astype(g, data.dtype)
    if tuple(g.shape) != tuple(data.shape):
        g = xp.broadcast_to(g, data.shape)
    return Tensor._from_array(g)


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
    if isinstance(value, dict):
        return {k: _detach(v) for k, v in value.items()}
    return value


def _result(value):
    """A transform's value as it leaves: kept on the tape inside an outer transform, detached otherwise."""
    return value if _ag.tensor_mode() else _detach(value)


def _flatten(value):
    """The Tensors of a nested tuple/list/dict output, in order."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flatten(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flatten(v)]
    return []


def _flatten_sens(sens, output):
    """``sens`` laid out like ``output`` (a Tensor per output Tensor); RuntimeError if they do not match."""
    if isinstance(output, Tensor):
        return [sens]
    if isinstance(output, (tuple, list)):
        if not isinstance(sens, (tuple, list)) or len(sens) != len(output):
            raise RuntimeError(f"The given sens gradient's size should be same as out of network! The function "
                               f"returned {len(output)} outputs, but sens is {_describe_sens(sens)}")
        return [s for o, sv in zip(output, sens) for s in _flatten_sens(sv, o)]
    if isinstance(output, dict):
        if isinstance(sens, dict) and set(sens) == set(output):
            return [s for k in output for s in _flatten_sens(sens[k], output[k])]
        if isinstance(sens, (tuple, list)) and len(sens) == len(output):  # by position, as MindSpore allows
            return [s for o, sv in zip(output.values(), sens) for s in _flatten_sens(sv, o)]
        raise RuntimeError(f"The given sens gradient's size should be same as out of network! The function "
                           f"returned a dict with keys {list(output)}, but sens is {_describe_sens(sens)}")
    return []


def _describe_sens(sens):
    return f"a {type(sens).__name__} of {len(sens)}" if isinstance(sens, (tuple, list, dict)) else \
        f"a {type(sens).__name__}"


def _seeds(output, sens):
    """(node, gradient) pairs starting the sweep: ones, or the given sensitivity.

    Inside an outer transform the seeds are Tensors (a given ``sens`` keeps
    its own tape link, so the result is differentiable in it too).
    """
    tensors = _ag._depth > 0
    xp = _backend._current.xp
    if sens is None and type(output) is Tensor:  # the usual case: one output, seeded with ones
        if output._node is None:
            return []
        g = xp.ones_like(output._data)
        return [(output._node, Tensor._from_array(g) if tensors else g)]
    outputs = _flatten(output)
    senses = [None] * len(outputs) if sens is None else _flatten_sens(sens, output)
    seeds = []
    for o, s in zip(outputs, senses):
        if o._node is None:
            continue
        if s is None:
            g = xp.ones_like(o._data)
            seeds.append((o._node, Tensor._from_array(g) if tensors else g))
            continue
        s = s if isinstance(s, Tensor) else Tensor(s)
        if tuple(s.shape) != tuple(o.shape):
            raise ValueError(f"The shape should be {list(o.shape)}, but got {list(s.shape)}: sens must have "
                             "the shape of the output it stands for")
        if tensors:
            seeds.append((o._node, _ag.rule_math().astype(s, o._data.dtype)))
        else:
            seeds.append((o._node, s._data if s._data.dtype == o._data.dtype else xp.astype(s._data, o._data.dtype)))
    return seeds


def _check_callable(fn):
    if not callable(fn):
        raise TypeError(f"fn must be callable (a function or a Cell), but got {type(fn).__name__}")


def _arrange(tape, leaf_grads, single, with_weights, single_weight, return_ids, grad_position):
    inputs = tape.input_grads(leaf_grads)
    if return_ids:
        inputs = tuple(zip(tape.positions, inputs))
    input_part = inputs[0] if single and inputs else inputs
    if not with_weights:
        return input_part
    weights = tape.weight_grads(leaf_grads)
    if return_ids:
        weights = tuple((getattr(w, "name", i), g) for i, (w, g) in enumerate(zip(tape.weights, weights)))
    weight_part = weights[0] if single_weight else weights
    if grad_position is None:
        return weight_part
    return input_part, weight_part


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
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
        Pair each gradient with its position (or its weight's name); see :func:`get_grad`.
    sens_param : bool
        The last positional argument is the gradient flowing into the output
        (its "sensitivity") instead of ones.

    Returns
    -------
    callable
        Returns the input gradients (a Tensor for an int ``grad_position``, a
        tuple for a tuple), the weight gradients, or ``(inputs, weights)``
        when both are asked for; ``(gradients, aux)`` with ``has_aux``.

    >>> import cellkit as ms
    >>> print(ms.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, -2.0])))
    [ 2. -4.]
    """
    _check_transform_arguments(fn, grad_position, weights, has_aux, return_ids, sens_param)
    weight_list, single_weight = _as_weight_list(weights)
    positions_for = _positions_cache(grad_position)

    def grad_fn(*args, **kwargs):
        args, sens = _split_sens(args, sens_param)
        positions, single = positions_for(len(args))
        tape, leaf_grads = _run(fn, args, kwargs, positions, weight_list, has_aux, sens)
        result = _arrange(tape, leaf_grads, single, weights is not None, single_weight, return_ids, grad_position)
        if has_aux:
            return result, tape.aux
        return result

    grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
    return grad_fn


def _check_transform_arguments(fn, grad_position, weights, has_aux, return_ids, sens_param):
    _check_callable(fn)
    _check_flags("_Grad", has_aux=has_aux, return_ids=return_ids, sens_param=sens_param)
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weight` can not be None at the same time.")


def _split_sens(args, sens_param):
    """``(args, sens)``: with ``sens_param`` the last positional argument is the output's sensitivity."""
    if not sens_param:
        return args, None
    if not args:
        raise TypeError("with sens_param=True the last positional argument must be the sensitivity (sens)")
    return args[:-1], args[-1]


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """Like :func:`grad`, but the new function returns ``(value, gradients)``.

    With ``has_aux`` the value is the whole tuple ``(output, aux, ...)``.

    >>> import cellkit as ms
    >>> value, g = ms.value_and_grad(lambda x: (x * x).sum())(ms.Tensor([3.0]))
    >>> print(value, g)
    9.0 [6.]
    """
    _check_transform_arguments(fn, grad_position, weights, has_aux, return_ids, sens_param)
    weight_list, single_weight = _as_weight_list(weights)
    positions_for = _positions_cache(grad_position)

    def value_and_grad_fn(*args, **kwargs):
        args, sens = _split_sens(args, sens_param)
        positions, single = positions_for(len(args))
        tape, leaf_grads = _run(fn, args, kwargs, positions, weight_list, has_aux, sens)
        grads = _arrange(tape, leaf_grads, single, weights is not None, single_weight, return_ids, grad_position)
        value = _result(tape.output)
        if has_aux:
            value = (value,) + tape.aux
        return value, grads

    value_and_grad_fn.__name__ = f"value_and_grad_{getattr(fn, '__name__', type(fn).__name__)}"
    return value_and_grad_fn


def get_grad(gradients, identifier):
    """Pick one gradient out of what ``grad(..., return_ids=True)`` returned.

    ``identifier`` is an input position (an int) or a Parameter (matched by
    its name).  Raises ``RuntimeError`` when no gradient carries it.

    >>> import cellkit as ms
    >>> f = lambda x, y: (x * y).sum()
    >>> gs = ms.grad(f, grad_position=(0, 1), return_ids=True)(ms.Tensor([2.0]), ms.Tensor([5.0]))
    >>> print(ms.get_grad(gs, 1))
    [2.]
    """
    if isinstance(identifier, Tensor):
        key = getattr(identifier, "name", None)
        if key is None:
            raise TypeError("get_grad: a Tensor identifier must be a Parameter (it is matched by name)")
    elif isinstance(identifier, int) and not isinstance(identifier, bool):
        key = identifier
    else:
        raise TypeError(f"get_grad: 'identifier' must be an int position or a Parameter, "
                        f"but got {type(identifier).__name__}")
    found = _find_id(gradients, key)
    if found is None:
        given = repr(gradients)
        given = given if len(given) <= 80 else given[:77] + "..."
        raise RuntimeError(f"Can not find the gradient for position or Parameter {key!r}: for 'get_grad', "
                           f"'gradients' must be what a transform with return_ids=True returned, but got "
                           f"{type(gradients).__name__} {given}")
    return found


def _find_id(value, key):
    if isinstance(value, tuple):
        if len(value) == 2 and isinstance(value[1], Tensor) and not isinstance(value[0], Tensor):
            return value[1] if value[0] == key and type(value[0]) is type(key) else None
        for item in value:
            found = _find_id(item, key)
            if found is not None:
                return found
    return None


def vjp(fn, *inputs, weights=None, has_aux=False):
    """Run ``fn`` once and return its value with a function that pulls cotangents back.

    Returns ``(output, vjp_fn)`` (``(output, vjp_fn, aux)`` with ``has_aux``).
    ``vjp_fn(v)`` -- ``v`` shaped like the output -- returns the gradients of
    ``sum(output * v)`` with respect to each input (a tuple), and with
    ``weights`` also those of the weights: ``(input_grads, weight_grads)``.
    It may be called any number of times: the tape is kept for it.

    >>> import cellkit as ms
    >>> out, pull = ms.vjp(lambda x: x * x, ms.Tensor([1.0, 2.0]))
    >>> print(pull(ms.Tensor([1.0, 10.0])))
    (Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+01]),)
    """
    _check_callable(fn)
    _check_flags("vjp", has_aux=has_aux)
    weight_list, _ = _as_weight_list(weights)
    for i, value in enumerate(inputs):
        if not isinstance(value, Tensor):
            raise TypeError(f"vjp: every input must be a Tensor, but input {i} is {type(value).__name__}")
    with _ag.recording():  # one level more: vjp_fn may itself be differentiated, in its cotangent or beyond
        tape = _Tape(fn, inputs, {}, tuple(range(len(inputs))), weight_list, has_aux)
    tape.restore_weights()

    def vjp_fn(*cotangent):
        v = cotangent[0] if len(cotangent) == 1 else cotangent
        leaf_grads = tape.sweep(v, retain=True)
        input_grads = tape.input_grads(leaf_grads)
        if weights is None:
            return input_grads
        return input_grads, tape.weight_grads(leaf_grads)

    output = _result(tape.output)
    if has_aux:
        return output, vjp_fn, tape.aux
    return output, vjp_fn


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
            if not hasattr(fn, "trainable_params"):
                raise ValueError("GradOperation(get_by_list=True) needs weights: call it as grad_op(fn, weights)")
            weights = fn.trainable_params()  # a Cell's own trainable Parameters, as MindSpore takes them
        weight_list, single_weight = _as_weight_list(weights) if self.get_by_list else ([], False)

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
            tape, leaf_grads = _run(fn, args, kwargs, positions, weight_list, False, sens)
            inputs = tape.input_grads(leaf_grads)
            if self.get_by_list:
                weights_part = tape.weight_grads(leaf_grads)
                if single_weight:
                    weights_part = weights_part[0]
                return (inputs, weights_part) if self.get_all else weights_part
            if self.get_all:
                return inputs
            if not inputs:
                raise ValueError("GradOperation: the function was called without a Tensor input to differentiate: "
                                 "it needs at least one floating-point Tensor argument, but got none")
            return inputs[0]

        grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
        return grad_fn
