"""``ms.recompute(block, *args)``: run one Cell call as a recomputed region.

``cellkit.recompute`` is also the module of the recompute machinery (:mod:`cellkit.recompute`,
which the runtime imports by that name): this module makes that module callable, so
``ms.recompute(block, x)`` is this function and ``from cellkit import recompute`` still gives the module.

The function form of ``Cell.recompute()``: the call keeps only ``block``'s inputs for backward and
runs ``block`` again when the gradient reaches it, so the activations inside it are not kept
between forward and backward. Gradients are the same as without recompute.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn, ops
>>> dense = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
>>> def loss(x):
...     return ops.sum(ms.recompute(dense, x) ** 2)
>>> print(ms.grad(loss)(ms.Tensor(np.array([[1.0, 2.0]], np.float32))))
[[12. 12.]]
"""
from __future__ import annotations

from . import recompute as _recompute

__all__ = ["recompute"]


def _flag(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"For 'recompute', '{name}' must be a bool, but got {type(value).__name__}")


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
              **kwargs):
    """Call ``block(*args, **kwargs)`` so that its activations are recomputed in backward.

    Parameters
    ----------
    block : Cell
        The Cell to call (MindSpore accepts only Cells: a function has no Parameters to follow).
    *args, **kwargs
        Its inputs.
    use_reentrant, output_recompute, early_stop : bool
        MindSpore's choices of recompute machinery. cellkit has one (the region replays ``block``
        and sweeps its fresh tape, which supports every order of gradient); ``use_reentrant=False``
        is what enables ``context_fn``.
    context_fn : callable, optional
        Returns two context managers: the first wraps the forward run, the second the replay.

    Raises
    ------
    TypeError
        ``block`` is not a Cell, or a flag is not a bool.
    """
    from .nn.cell import Cell

    if not isinstance(block, Cell):
        raise TypeError(f"For 'recompute', 'block' must be a Cell, but got {type(block).__name__}")
    for name, value in (("use_reentrant", use_reentrant), ("output_recompute", output_recompute),
                        ("early_stop", early_stop)):
        _flag(value, name)
    if context_fn is not None and not callable(context_fn):
        raise TypeError(f"For 'recompute', 'context_fn' must be callable, but got {type(context_fn).__name__}")

    def run(*inputs):
        return block(*inputs, **kwargs)

    label = type(block).__name__
    if context_fn is not None and not use_reentrant:
        return _recompute.checkpoint_with_contexts(run, args, block.get_parameters(), label, context_fn)
    return _recompute.checkpoint(run, args, block.get_parameters(), label=label)


class _CallableRecomputeModule(__import__("types").ModuleType):
    def __call__(self, block, *args, **kwargs):
        return recompute(block, *args, **kwargs)


_recompute.__class__ = _CallableRecomputeModule
_recompute.__signature__ = __import__("inspect").signature(recompute)
