"""Pooling gradients as ops, so pooling differentiates to any order.

Max pooling's gradient sends each output gradient to the element that won
its window (*scatter*); the adjoint of that is reading each window's winner
(*pick*).  Both are linear, each is the other's backward rule, and the
winners are constants (which element wins does not change under a small
change of the input), so the pair differentiates to any order.

Average pooling is linear in its input: its gradient spreads each output
gradient over its window, and the gradient of that spreading is average
pooling again.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor(np.array([[[[1.0, 3.0], [2.0, 0.0]]]]))
>>> h = ms.grad(lambda x: ms.grad(lambda y: (ops.max_pool2d(y, 2) ** 2).sum())(x).sum())(x)
>>> print(h.asnumpy()[0, 0])
[[0. 2.]
 [0. 0.]]
"""
from __future__ import annotations

from .. import autograd as _ag
from ..tensor import Tensor
from . import _pool_numpy
from ._core import record, tensor_arg, wrap, xp
from .conv_grads import crop, full, pad

__all__ = ["MaxPoolPlan", "AvgPoolPlan", "max_pool_scatter", "max_pool_pick", "avg_pool_op", "avg_pool_spread"]


def _raw(value):
    return value._data if isinstance(value, Tensor) else value


class MaxPoolPlan:
    """Where each max-pool window lies: as tiles (NumPy fast path) or as kernel-offset slices.

    The winners array says, for each output, which kernel offset (corner)
    won: ``corner`` numbers for tiles, ``k`` in row-major offset order for windows.
    """

    __slots__ = ("tiles", "kernel", "in_shape", "out_shape", "slices", "pads", "padded_shape")

    def __init__(self, tiles, kernel, in_shape, out_shape, slices=None, pads=None, padded_shape=None):
        self.tiles, self.kernel = tiles, tuple(kernel)
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        self.slices, self.pads, self.padded_shape = slices, pads, padded_shape

    def scatter(self, g, winners):
        """The input's gradient: each ``g`` value goes to its window's winner."""
        winners = _raw(winners)
        if self.tiles:
            return _pool_numpy.backward(g, winners, self.kernel, self.in_shape)
        x = xp()
        dX = full(self.padded_shape, 0, g)
        zero = x.zeros_like(g)
        for k, (rs, cs) in enumerate(self.slices):
            dX[:, :, rs, cs] += x.where(winners == k, g, zero)
        return crop(dX, self.pads, self.in_shape[2], self.in_shape[3])

    def pick(self, h, winners):
        """Each window's winner read from ``h`` (shaped like the input): the adjoint of :meth:`scatter`."""
        winners = _raw(winners)
        x = xp()
        if self.tiles:
            ho, wo = self.out_shape[2], self.out_shape[3]
            views = _pool_numpy.corners(h, self.kernel, ho, wo)
        else:
            hp = pad(h, self.pads, 0)
            views = [hp[:, :, rs, cs] for rs, cs in self.slices]
        picked = None
        for k, view in enumerate(views):
            part = view * x.astype(winners == k, h.dtype)
            picked = part if picked is None else picked + part
        return picked


def max_pool_scatter(g, winners, plan):
    """:meth:`MaxPoolPlan.scatter` as a differentiable op."""
    gt = tensor_arg(g, "grad", "MaxPoolGrad")
    out = plan.scatter(gt._data, winners)
    if _ag._depth == 0:
        return wrap(out)
    return record(out, "MaxPoolGrad", _scatter_rule, (gt,), (_raw(winners),), (None,), plan)


def _scatter_rule(m, node, h):
    (winners,) = node.unpack(m)
    return (m.call(node.info.pick, lambda t, w: max_pool_pick(t, w, node.info), h, winners),)


def max_pool_pick(h, winners, plan):
    """:meth:`MaxPoolPlan.pick` as a differentiable op."""
    ht = tensor_arg(h, "input", "MaxPoolPick")
    out = plan.pick(ht._data, winners)
    if _ag._depth == 0:
        return wrap(out)
    return record(out, "MaxPoolPick", _pick_rule, (ht,), (_raw(winners),), (None,), plan)


def _pick_rule(m, node, g):
    (winners,) = node.unpack(m)
    return (m.call(node.info.scatter, lambda t, w: max_pool_scatter(t, w, node.info), g, winners),)


class AvgPoolPlan:
    """The windows of an average pooling and the divisor of each (a number or an (Ho, Wo) array)."""

    __slots__ = ("slices", "divisor", "pads", "padded_shape", "in_shape")

    def __init__(self, slices, divisor, pads, padded_shape, in_shape):
        self.slices, self.divisor, self.pads = slices, divisor, pads
        self.padded_shape, self.in_shape = padded_shape, tuple(in_shape)

    def forward(self, X):
        Xp = pad(X, self.pads, 0)
        total = None
        for rs, cs in self.slices:
            s = Xp[:, :, rs, cs]
            total = s if total is None else total + s
        return total / self.divisor

    def spread(self, g):
        """Each output gradient shared over its window: the adjoint of :meth:`forward`."""
        share = g / self.divisor
        dX = full(self.padded_shape, 0, g)
        for rs, cs in self.slices:
            dX[:, :, rs, cs] += share
        return crop(dX, self.pads, self.in_shape[2], self.in_shape[3])


def avg_pool_op(x, plan):
    """Average pooling with a fixed plan, as a differentiable op."""
    xt = tensor_arg(x, "input", "AvgPool")
    out = plan.forward(xt._data)
    if _ag._depth == 0 or xt._node is None:
        return wrap(out)
    return record(out, "AvgPool", _avg_rule, (xt,), info=plan)


def _avg_rule(m, node, g):
    return (m.call(node.info.spread, lambda t: avg_pool_spread(t, node.info), g),)


def avg_pool_spread(g, plan):
    """:meth:`AvgPoolPlan.spread` as a differentiable op."""
    gt = tensor_arg(g, "grad", "AvgPoolGrad")
    out = plan.spread(gt._data)
    if _ag._depth == 0 or gt._node is None:
        return wrap(out)
    return record(out, "AvgPoolGrad", _spread_rule, (gt,), info=plan)


def _spread_rule(m, node, h):
    return (m.call(node.info.forward, lambda t: avg_pool_op(t, node.info), h),)
