"""``vmap``: run a function over a batch axis as if it were written for one example.

``vmap(fn, in_axes, out_axes)(*args)`` slices each mapped argument along
its ``in_axes`` entry, calls ``fn`` once per example, and stacks each
output along its ``out_axes`` entry.  Slicing and stacking are recorded
ops, so ``vmap`` composes with every transform: ``vmap(grad(f))`` gives
per-example gradients, ``grad(vmap(f))`` differentiates through the batch,
and ``vmap(vmap(f))`` maps two axes.

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

from .tensor import Tensor

__all__ = ["vmap"]


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
        results = []
        for i in range(size):
            call = fn[i] if ensemble else fn
            results.append(call(*_take(args, axes, i)))
        out_spec = _pair_axes(out_axes, results[0], "out_axes")
        return _stack(results, out_spec, size)

    vmapped.__name__ = f"vmap_{getattr(fn, '__name__', type(fn).__name__)}"
    return vmapped
