"""The NumPy fast path of max pooling when the windows tile the input.

When ``kernel == stride`` with no padding or dilation, every window is a
``kh x kw`` tile and the ``kh * kw`` kernel offsets each pick one strided
*corner* view of the input (offset ``(i, j)`` of every tile).  The output
is the running maximum of the corners; no window is ever copied.

For the gradient the forward pass notes, per output, which corner won: the
first one holding the maximum, NaN counting as the maximum (as MindSpore
and PyTorch do).  Each corner of the input's gradient is then the output
gradient where that corner won and zero elsewhere: one comparison and one
product per corner, and every element of the gradient written once.

>>> import numpy as np
>>> x = np.array([[[[1., 5., 7., 2.], [3., 0., 2., 7.]]]], np.float32)
>>> best, winner = forward(x, (2, 2), 1, 2, True)    # the second tile has a tie: its first 7 wins
>>> print(best, winner)
[[[[5. 7.]]]] [[[[1 0]]]]
>>> print(backward(np.ones((1, 1, 1, 2), np.float32), winner, (2, 2), x.shape))
[[[[0. 1. 1. 0.]
   [0. 0. 0. 0.]]]]
"""
from __future__ import annotations

import numpy as np

from .. import buffer_cache

__all__ = ["forward", "backward", "corners"]


def corners(X, kernel, ho, wo):
    """The ``kh * kw`` strided views, one per kernel offset, in row-major offset order."""
    kh, kw = kernel
    return [X[:, :, i:ho * kh:kh, j:wo * kw:kw] for i in range(kh) for j in range(kw)]


def forward(X, kernel, ho, wo, need_winner):
    """The maximum over each tile, and (if ``need_winner``) the number of the corner that won."""
    views = corners(X, kernel, ho, wo)
    if len(views) == 1:  # a 1x1 window: the corner is a view of the input, so copy it
        best = views[0].copy()
        return best, (np.zeros(best.shape, np.uint8) if need_winner else None)
    best = np.maximum(views[0], views[1])  # np.maximum propagates NaN: a NaN tile gives NaN
    if not need_winner:
        for view in views[2:]:
            np.maximum(best, view, out=best)
        return best, None
    winner = np.zeros(best.shape, np.min_scalar_type(len(views) - 1))
    np.greater(views[1], views[0], out=winner, casting="unsafe")  # strictly greater: a tie keeps the first
    for k, view in enumerate(views[2:], start=2):
        beats = np.greater(view, best).view(np.uint8)
        # winner = k where this corner beats all before it: winner + (k - winner) * beats, in
        # integer arithmetic (winner < k, so nothing wraps).  ~50x faster than np.copyto(where=).
        step = np.subtract(winner.dtype.type(k), winner)
        np.multiply(step, beats, out=step)
        np.add(winner, step, out=winner)
        np.maximum(best, view, out=best)
    if best.dtype.kind == "f":
        _nan_wins(views, best, winner)
    return best, winner


def _nan_wins(views, best, winner):
    """Where a tile holds NaN, its first NaN corner is the winner (comparisons with NaN are all False)."""
    nan = np.isnan(best)
    if not nan.any():
        return
    for k in range(len(views) - 1, -1, -1):  # backwards, so the first NaN corner is written last
        np.copyto(winner, k, where=nan & np.isnan(views[k]))


def backward(g, winner, kernel, in_shape):
    """The input's gradient: each output gradient goes to its tile's winning corner."""
    n, c, ho, wo = g.shape
    kh, kw = kernel
    dX = buffer_cache.empty(in_shape, g.dtype)
    if in_shape[2] > ho * kh or in_shape[3] > wo * kw:
        dX.fill(0)  # rows and columns no tile covers get no gradient
    for k, corner in enumerate(corners(dX, kernel, ho, wo)):
        np.multiply(winner == k, g, out=corner)
    return dX
