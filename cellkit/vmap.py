"""``vmap``: run a function over a batch axis as if it were written for one example.

``vmap(fn, in_axes, out_axes)(*args)`` runs ``fn``, written for one
example, over a batch axis of its arguments.  On NumPy it calls ``fn`` once
for the whole batch: each mapped argument becomes a *batched* Tensor
(:mod:`cellkit.batching`) that looks like one example but carries them all,
so every op -- and every backward rule -- runs once on the batch.  Where
that cannot work (a Python value read from a batched tensor that differs
between examples, random numbers, hooks, a value written into an unbatched
array) it falls back to calling ``fn`` once per example and stacking the
results; on other backends it always does.  Both ways give the same values.

The moves into and out of the batched form are recorded ops, so ``vmap``
composes with every transform: ``vmap(grad(f))`` gives per-example
gradients, ``grad(vmap(f))`` differentiates through the batch, and
``vmap(vmap(f))`` maps two axes.

``in_axes`` is an int (every argument mapped along that axis), ``None``
(not mapped: passed whole to every call), or a tuple with one entry per
argument -- itself nested for a tuple argument.  ``out_axes`` is the same
for the outputs.  When ``fn`` is a ``CellList``, the i-th Cell runs on the
i-th example (model ensembling).

>>> import cellkit as ms
>>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
>>> print(ms.vmap(lambda row: row.sum())(x))
[3. 7.]
>>> print(ms.vmap(lambda row, w: row * w, in_axes=(1, None))(x, ms.Tensor(10.0)))
[[10. 30.]
 [20. 40.]]
"""
from __future__ import annotations

import itertools

from . import autograd as _ag
from . import backend as _backend
from . import batching as _batching
from . import seed as _seed
from .tensor import Tensor

__all__ = ["vmap"]

# Each vmap call running now gets a batching level; a nested one a higher level than its caller's.
_levels = itertools.count(1)


def _check_axes_spec(spec, name):
    """Raise for an axis spec that is not an int, None, or a (nested) tuple/list of them."""
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            _check_axes_spec(s, name)
        return
    raise RuntimeError(f"The axis in vmap`s '{name}' can only be of type Int or None, "
                       f"but got {type(spec).__name__} {spec!r}.")


def _pair_axes(spec, value, name):
    """``spec`` laid out like ``value``: an axis (or None) for each Tensor in it."""
    if isinstance(spec, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(spec) != len(value):
            length = len(value) if isinstance(value, (tuple, list)) else 1
            if name == "out_axes":
                raise RuntimeError(f"The size of vmap's 'out_axes' should be equal to the result size: {length}, "
                                   f"but got size: {len(spec)}.")
            raise RuntimeError(f"When vmap`s 'in_axes' is a tuple or list, and its size must be equal to the "
                               f"number of arguments of 'fn': {length}, but got size: {len(spec)}.")
        return type(value)(_pair_axes(s, v, name) for s, v in zip(spec, value))
    if isinstance(value, (tuple, list)):
        return type(value)(_pair_axes(spec, v, name) for v in value)
    return spec


def _batch_sizes(value, axes, found, name):
    if isinstance(value, (tuple, list)):
        for v, a in zip(value, axes):
            _batch_sizes(v, a, found, name)
        return
    if axes is None:
        return
    if not isinstance(value, Tensor):
        raise RuntimeError(f"For 'vmap', '{name}' maps a value that is not a Tensor ({type(value).__name__}) "
                           f"along axis {axes}")
    ndim = value.ndim
    if not -ndim <= axes < ndim:
        raise RuntimeError(f"The axis: {axes} in '{name}' is out of bounds for array of dimension "
                           f"[{-ndim},{ndim}).")
    found.append(value.shape[axes % ndim])


def _take(value, axes, i):
    """Example ``i`` of ``value`` (a recorded slice), or ``value`` itself where it is not mapped."""
    if isinstance(value, (tuple, list)):
        return type(value)(_take(v, a, i) for v, a in zip(value, axes))
    if axes is None:
        return value
    return value[(slice(None),) * (axes % value.ndim) + (i,)]


def _stack(results, axes, size):
    """Per-example outputs stacked along ``axes`` (an output with axis None is returned from example 0)."""
    from . import ops

    first = results[0]
    if isinstance(first, (tuple, list)):
        return type(first)(_stack([r[k] for r in results], a, size) for k, a in enumerate(axes))
    if axes is None:
        return first
    if not isinstance(first, Tensor):
        first = Tensor(first)
        results = [Tensor(r) for r in results]
    ndim = first.ndim + 1
    if not -ndim <= axes < ndim:
        raise RuntimeError(f"The axis: {axes} in 'out_axes' is out of bounds for array of dimension "
                           f"[{-ndim},{ndim}).")
    return ops.stack(list(results), axes % ndim)


def _run_per_example(fn, args, axes, out_axes, size, ensemble):
    """``fn`` once per example (the i-th Cell of a CellList for example i), results stacked."""
    results = []
    for i in range(size):
        call = fn[i] if ensemble else fn
        results.append(call(*_take(args, axes, i)))
    out_spec = _pair_axes(out_axes, results[0], "out_axes")
    return _stack(results, out_spec, size)


def _run_batched(fn, args, axes, out_axes, size):
    """``fn`` once, on batched Tensors standing for one example each."""
    level = next(_levels)
    with _watching(level, size):
        result = fn(*_to_batched_args(args, axes, level))
        out_spec = _pair_axes(out_axes, result, "out_axes")
        return _from_batched(result, out_spec, level, size)


class _BatchWatch:
    """What the tape must know while vmap runs batches: which nodes were made inside each run.

    A Tensor from outside the run (a weight the function closes over, a
    value computed before ``vmap`` was called) is the same for every
    example, so the gradient it receives from the batch is the *sum* of the
    examples' gradients.  :meth:`adapt` puts a summing node between such an
    input and the op that used it.  A node made inside the run (a leaf of a
    ``grad`` called inside, as in ``vmap(grad(f))``) keeps its gradient per
    example.
    """

    def __init__(self):
        self.runs = []  # (level, nodes made inside), innermost last

    def note(self, node):
        for _, inside in self.runs:
            inside.add(node)

    def adapt(self, out_array, nodes, inputs):
        if not _batching.is_batched(out_array):
            return nodes
        adapted = list(nodes)
        for i, node in enumerate(nodes):
            if node is None:
                continue
            levels = tuple(level for level, inside in reversed(self.runs) if node not in inside)
            if levels:
                adapted[i] = _ag.Node("VmapSum", _sum_rule, (node,), info=levels)
        return tuple(adapted)


class _watching:
    """Context manager: a batched run at ``level`` is in progress."""

    def __init__(self, level, size):
        self.run = (level, set())

    def __enter__(self):
        if _ag._batch_watch is None:
            _ag._batch_watch = _BatchWatch()
        _ag._batch_watch.runs.append(self.run)

    def __exit__(self, *exc):
        runs = _ag._batch_watch.runs
        runs.remove(self.run)
        if not runs:
            _ag._batch_watch = None
        return False


def _sum_rule(m, node, g):
    """The gradient of a value from outside the batch: the sum over the examples, level by level."""
    for level in node.info:
        g = m.call(lambda g, level=level: _sum_examples(g, level), lambda t, level=level: _sum_batch_op(t, level), g)
    return (g,)


def _sum_examples(g, level):
    return _batching.unbatch(g, level, None).sum(axis=0) if _is_batched_at(g, level) else g


def _is_batched_at(value, level):
    return _batching.is_batched(value) and value.level == level


def _sum_batch_op(t, level):
    """Sum a batched Tensor over its examples (recorded: its gradient repeats over the batch)."""
    data = t._data
    if not _is_batched_at(data, level):
        return t
    out = Tensor._from_array(_sum_examples(data, level))
    if _ag._depth and t._node is not None:
        out._node = _ag.Node("VmapSumExamples", _repeat_rule, (t._node,), info=(level, data.batch_size))
    return out


def _repeat_rule(m, node, g):
    level, size = node.info
    return (m.call(lambda g: _repeat(g, level, size), lambda t: _repeat_op(t, level, size), g),)


def _repeat(g, level, size):
    return _batching.Batched(_batching.unbatch(g, level, size), level)


def _repeat_op(t, level, size):
    """The same value for every example, as a batched Tensor (recorded: its gradient sums the examples)."""
    out = Tensor._from_array(_repeat(t._data, level, size))
    if _ag._depth and t._node is not None:
        out._node = _ag.Node("VmapRepeat", _sum_rule, (t._node,), info=(level,))
    return out


def _to_batched_args(value, axes, level):
    if isinstance(value, (tuple, list)):
        return type(value)(_to_batched_args(v, a, level) for v, a in zip(value, axes))
    if axes is None:
        return value
    moved = value if axes % value.ndim == 0 else _move(value, axes % value.ndim, 0)
    return _batch_tensor(moved, level)


def _move(t, source, destination):
    """``t`` with axis ``source`` moved to ``destination`` (a recorded transpose)."""
    from . import ops

    perm = list(range(t.ndim))
    perm.insert(destination, perm.pop(source))
    return ops.transpose(t, tuple(perm))


def _from_batched(value, axes, level, size):
    if isinstance(value, (tuple, list)):
        return type(value)(_from_batched(v, a, level, size) for v, a in zip(value, axes))
    value = value if isinstance(value, Tensor) else Tensor(value)
    whole = _unbatch_tensor(value, level, size)
    if axes is None:
        return whole[0]  # not mapped: every example's value is the same
    ndim = whole.ndim
    if not -ndim <= axes < ndim:
        raise RuntimeError(f"The axis: {axes} in 'out_axes' is out of bounds for array of dimension "
                           f"[{-ndim},{ndim}).")
    return whole if axes % ndim == 0 else _move(whole, 0, axes % ndim)


# -- the two recorded moves between a whole batch and its batched form ---------------------------------
def _batch_tensor(t, level):
    """The batched Tensor standing for one example of ``t`` (batch axis first), on the tape."""
    out = Tensor._from_array(_batching.Batched(t._data, level))
    if _ag._depth and t._node is not None:
        out._node = _ag.Node("VmapIn", _batch_rule, (t._node,), info=(level, t.shape[0]))
    return out


def _batch_rule(m, node, g):
    """One example's gradient, batched, is the whole batch's gradient (repeated if it is the same for all)."""
    level, size = node.info
    return (m.call(lambda g: _batching.unbatch(g, level, size), lambda t: _unbatch_tensor(t, level, size), g),)


def _unbatch_tensor(t, level, size):
    """The whole batch as a Tensor (batch axis first); a value that is not batched is repeated."""
    data = t._data
    whole = _batching.unbatch(data, level, size)
    out = Tensor._from_array(whole)
    if _ag._depth and t._node is not None:
        out._node = _ag.Node("VmapOut", _unbatch_rule, (t._node,), info=(level, _batching.is_batched(data)
                                                                        and data.level == level))
    return out


def _unbatch_rule(m, node, g):
    level, was_batched = node.info
    if was_batched:
        return (m.call(lambda g: _batching.Batched(g, level), lambda t: _batch_tensor(t, level), g),)
    return (m.sum(g, axis=0),)  # a value repeated over the batch: its gradient is the sum


def vmap(fn, in_axes=0, out_axes=0):
    """Map ``fn`` over a batch axis of its arguments (see the module docstring).

    Raises
    ------
    TypeError
        ``fn`` is not callable.
    RuntimeError
        As MindSpore (whose vmap fails while compiling): an axis spec that is
        not an int, None or a tuple of them, an axis out of bounds, an axes
        tuple of the wrong length, mapped arguments of different batch
        sizes, or nothing mapped at all.
    """
    ensemble = getattr(fn, "_vmap_ensemble", False)  # a CellList: one Cell per example
    if not ensemble and not callable(fn):
        raise TypeError(f"For 'vmap', 'fn' must be a function, a Cell or a CellList, but got {type(fn).__name__}")
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    def vmapped(*args):
        if in_axes is None and not ensemble:
            raise RuntimeError("The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'.")
        axes = _pair_axes(in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args), args, "in_axes")
        sizes = []
        _batch_sizes(args, axes, sizes, "in_axes")
        if not sizes:
            raise RuntimeError("For 'vmap', 'in_axes' maps no argument: at least one must be mapped (not None)")
        if len(set(sizes)) != 1:
            raise RuntimeError(f"The 'axis_size' of each argument in the scope of 'vmap' should be equal, "
                               f"but got {sizes[0]} and {next(s for s in sizes if s != sizes[0])}.")
        size = sizes[0]
        if ensemble and len(fn) != size:
            raise ValueError(f"For 'vmap', a CellList of {len(fn)} Cells needs a batch of {len(fn)}, but got {size}")
        if _backend.current().is_numpy and not ensemble:
            rng_state = _seed.generator().bit_generator.state
            try:
                return _run_batched(fn, args, axes, out_axes, size)
            except _batching.Unbatchable:
                _seed.generator().bit_generator.state = rng_state  # the per-example run draws afresh
        return _run_per_example(fn, args, axes, out_axes, size, ensemble)

    vmapped.__name__ = f"vmap_{getattr(fn, '__name__', type(fn).__name__)}"
    return vmapped
