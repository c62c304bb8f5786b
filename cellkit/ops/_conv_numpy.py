"""The NumPy fast path of conv2d: row-flattened windows and one matrix product per pass.

The portable convolution in ``nn_ops`` works on any array namespace and
does one small matrix product per sample.  On NumPy, BLAS over many images
at once is faster, and most of the remaining time goes into copying
windows in and out (im2col and col2im).  This module makes those copies
long and contiguous, and fewer.

**Row-flattened input.**  The padded input is stored channels-first with
each image's rows laid end to end::

    flat[c, n, y * Wp + x] = Xp[n, c, y, x]        (then a short zero tail)

For a kernel offset ``(i, j)`` the values that offset reads, for every
output pixel, form one strided *window* of ``flat``.  With stride 1 along
the width we let every output row run the full padded width ``Wp`` instead
of ``Wo``: then output pixel ``(y, x)`` reads ``flat[.., (y*sh + i*dh) * Wp
+ j*dw + x]``, and for a row stride of 1 the whole window is a single
contiguous run of ``Ho * Wp`` values per image and channel, a plain memory
copy.  The ``Wp - Wo`` extra columns of each output row wrap around into
the next input row; they are computed and thrown away, and in the backward
pass their gradient is zero, so they add nothing.  (When they would be more
than half of the useful columns, or the width stride is not 1, rows are
``Wo`` long instead and nothing is wasted.)  All ``kh * kw`` windows
together are a single strided view, so im2col is one copy.

With ``R`` the row length (``Wp`` or ``Wo``) the window matrix is::

    cols[c, i, j, n, y, x] = window(i, j)[c, n, y, x]  ->  (C * kh * kw, N * Ho * R)

and, group by group:

- forward: ``W (O, K) @ cols``, then the kept columns, transposed to NCHW
  with the bias added, in one pass;
- weight gradient: ``g @ cols.T`` (``cols`` is kept from the forward pass);
- input gradient: ``W.T @ g`` added back into a zeroed ``flat`` buffer
  through the windows (col2im).  With stride 1 and full rows the ``kw``
  column shifts of each kernel row go into the matrix product instead, and
  only ``kh`` row shifts are left to add (:func:`_col2im_by_rows`).

The whole batch goes through each step at once: measured against building
the windows a few images at a time (so they stay in the CPU cache), one
large product per pass was faster on every layer of LeNet.

The large buffers come from :mod:`cellkit.buffer_cache`, so a training step
reuses last step's memory instead of faulting in fresh pages -- on a small
VM that alone halves the time of a LeNet step.  Every function takes and
returns NumPy arrays.

>>> import numpy as np
>>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
>>> w = np.ones((1, 1, 2, 2), np.float32)
>>> plan = Plan(x.shape, w.shape, (0, 0, 0, 0), (1, 1), (1, 1), 1, 3, 3)
>>> out, cols = forward(x, w, None, plan)
>>> print(out[0, 0])
[[10. 14. 18.]
 [26. 30. 34.]
 [42. 46. 50.]]
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import buffer_cache

__all__ = ["Plan", "forward", "backward"]


class Plan:
    """The geometry of one convolution: shapes, padding and the row length ``R`` of its windows."""

    __slots__ = ("n", "c", "h", "w", "o", "kh", "kw", "pads", "stride", "dilation", "groups",
                 "hp", "wp", "ho", "wo", "row", "length")

    def __init__(self, x_shape, w_shape, pads, stride, dilation, groups, ho, wo):
        self.n, self.c, self.h, self.w = x_shape
        self.o, _, self.kh, self.kw = w_shape
        self.pads, self.stride, self.dilation, self.groups = pads, stride, dilation, groups
        top, bottom, left, right = pads
        self.hp, self.wp = self.h + top + bottom, self.w + left + right
        self.ho, self.wo = ho, wo
        # Full-width rows turn each window into one contiguous run; worth it unless
        # the thrown-away columns would be more than half of the kept ones.
        full_rows = stride[1] == 1 and 2 * (self.wp - wo) <= wo
        self.row = self.wp if full_rows else wo
        # Full-width rows of the last window run (kw - 1) * dw values past the image.
        tail = (self.kw - 1) * dilation[1] if full_rows else 0
        self.length = self.hp * self.wp + tail

    def all_windows(self, flat):
        """Every window of ``flat`` (C, N, length) at once: the (C, kh, kw, N, Ho, R) view im2col copies.

        The views stay inside ``flat``: the last one ends at
        ``((Ho-1)*sh + (kh-1)*dh) * Wp + (kw-1)*dw + R <= length``.
        """
        item = flat.itemsize
        channel_step, image_step = flat.strides[:2]
        (sh, sw), (dh, dw) = self.stride, self.dilation
        shape = (self.c, self.kh, self.kw, self.n, self.ho, self.row)
        strides = (channel_step, dh * self.wp * item, dw * item, image_step, sh * self.wp * item, sw * item)
        return as_strided(flat, shape, strides)

    def image(self, flat):
        """The (C, N, Hp, Wp) padded images inside a ``flat`` buffer (a view)."""
        return flat[:, :, :self.hp * self.wp].reshape(self.c, self.n, self.hp, self.wp)

    @property
    def columns(self):
        """Columns of the window matrix: one per output position, rows ``R`` long."""
        return self.n * self.ho * self.row


def _flat_input(X, plan):
    """``X`` (N, C, H, W) padded with zeros into a row-flattened (C, N, length) buffer."""
    flat = buffer_cache.empty((plan.c, plan.n, plan.length), X.dtype)
    image = plan.image(flat)
    top, bottom, left, right = plan.pads
    if top or bottom or left or right:  # the buffer may be reused: clear the borders
        image[:, :, :top] = 0
        image[:, :, plan.hp - bottom:] = 0
        image[:, :, top:plan.hp - bottom, :left] = 0
        image[:, :, top:plan.hp - bottom, plan.wp - right:] = 0
    image[:, :, top:top + plan.h, left:left + plan.w] = X.transpose(1, 0, 2, 3)
    flat[:, :, plan.hp * plan.wp:] = 0
    return flat


def _group_rows(total, groups, group):
    size = total // groups
    return slice(group * size, (group + 1) * size)


def forward(X, W, bias, plan):
    """Convolve ``X`` (N, C, H, W) with ``W``, adding ``bias`` (O,) if given.

    Returns ``(out, cols)``: the (N, O, Ho, Wo) output and the window matrix
    (C * kh * kw, N * Ho * R), which :func:`backward` needs for the weight's gradient.
    """
    o, cg, kh, kw = W.shape
    k = plan.c * kh * kw
    flat = _flat_input(X, plan)
    cols = buffer_cache.empty((k, plan.columns), X.dtype)
    np.copyto(cols.reshape(plan.c, kh, kw, plan.n, plan.ho, plan.row), plan.all_windows(flat))  # im2col
    del flat  # back to the cache for the next convolution
    wide = buffer_cache.empty((o, plan.columns), X.dtype)
    w_mat = W.reshape(o, cg * kh * kw)
    for group in range(plan.groups):
        outs, ins = _group_rows(o, plan.groups, group), _group_rows(k, plan.groups, group)
        np.matmul(w_mat[outs], cols[ins], out=wide[outs])
    # The kept columns, back to NCHW, plus the bias: one pass.
    kept = wide.reshape(o, plan.n, plan.ho, plan.row)[..., :plan.wo].transpose(1, 0, 2, 3)
    out = buffer_cache.empty((plan.n, o, plan.ho, plan.wo), X.dtype)
    if bias is None:
        np.copyto(out, kept)
    else:
        np.add(kept, bias.reshape(1, o, 1, 1), out=out)
    return out, cols


def _grad_matrix(g, plan):
    """The output gradient in the forward product's layout (O, N * Ho * R).

    The thrown-away columns get a zero gradient, so they add nothing below.
    """
    wide = buffer_cache.empty((plan.o, plan.n, plan.ho, plan.row), g.dtype)
    if plan.row > plan.wo:
        wide[..., plan.wo:] = 0
    wide[..., :plan.wo] = g.transpose(1, 0, 2, 3)
    return wide.reshape(plan.o, plan.columns)


def _weight_gradient(g_mat, cols, W_shape, groups):
    """``g @ cols.T`` group by group.

    Both factors are long and the result small.  OpenBLAS splits such a
    product between threads along the result's rows, so the factor with more
    rows (usually ``cols``) goes first when it has many: ``(cols @ g.T).T``.
    """
    o, k = g_mat.shape[0], cols.shape[0]
    parts = []
    for group in range(groups):
        outs, ins = _group_rows(o, groups, group), _group_rows(k, groups, group)
        if k // groups >= 64:
            parts.append((cols[ins] @ g_mat[outs].T).T)
        else:
            parts.append(g_mat[outs] @ cols[ins].T)
    dw = parts[0] if groups == 1 else np.concatenate(parts, axis=0)
    return dw.reshape(W_shape)


def _col2im(g_mat, W, dflat, plan):
    """Add ``W.T @ g`` back into ``dflat`` (C, N, length) through the kh * kw windows."""
    o, cg, kh, kw = W.shape
    k = plan.c * kh * kw
    dcols = buffer_cache.empty((k, plan.columns), g_mat.dtype)
    w_mat = W.reshape(o, cg * kh * kw)
    for group in range(plan.groups):
        outs, ins = _group_rows(o, plan.groups, group), _group_rows(k, plan.groups, group)
        np.matmul(w_mat[outs].T, g_mat[outs], out=dcols[ins])
    dcols = dcols.reshape(plan.c, kh, kw, plan.n, plan.ho, plan.row)
    windows = plan.all_windows(dflat)
    for i in range(kh):
        for j in range(kw):
            windows[:, i, j] += dcols[:, i, j]


def _col2im_by_rows(g_mat, W, dflat, plan):
    """The same sum as :func:`_col2im` with ``kh`` additions instead of ``kh * kw`` (stride 1, full rows).

    Window ``(i, j)`` starts ``i*dh*Wp + j*dw`` values into each image, so
    ``dflat[c, n, q] = sum over o, i, j of W[o, c, i, j] * G[o, n, q - i*dh*Wp - j*dw]``
    (``G`` the gradient rows, zero outside them).  The ``j`` shifts go into
    the matrix product: with ``shifted[(o, j), (n, r)] = G[o, n, r - j*dw]``
    (one strided copy), ``E = W' @ shifted`` with ``W'[(c, i), (o, j)] = W[o, c, i, j]``
    sums over ``o`` and ``j`` at once, and only the ``kh`` row shifts
    ``dflat[c, n, i*dh*Wp + r] += E[(c, i), (n, r)]`` are left -- each a
    long contiguous run.  The product has as many multiply-adds as
    ``W.T @ g``; the additions after it are ``kw`` times fewer.
    """
    o, cg, kh, kw = W.shape
    dh, dw = plan.dilation
    n = plan.n
    rows = plan.ho * plan.wp  # L: the gradient's values per image
    pad = (kw - 1) * dw
    span = rows + pad  # each E row covers its windows' whole reach
    padded = buffer_cache.empty((o, n, rows + 2 * pad), g_mat.dtype)
    padded[:, :, :pad] = 0
    padded[:, :, pad + rows:] = 0
    padded[:, :, pad:pad + rows] = g_mat.reshape(o, n, rows)
    item = padded.itemsize
    # shifted[o, j, n, r] = padded[o, n, pad + r - j*dw]: a negative stride along j, which
    # for j = kw - 1 starts at index 0 and for r = span - 1, j = 0 ends at rows + 2 * pad - 1.
    view = as_strided(padded[:, :, pad:], (o, kw, n, span), (padded.strides[0], -dw * item, padded.strides[1], item))
    shifted = buffer_cache.empty((o, kw, n, span), g_mat.dtype)
    np.copyto(shifted, view)
    shifted = shifted.reshape(o * kw, n * span)
    e = buffer_cache.empty((plan.c * kh, n * span), g_mat.dtype)
    og = o // plan.groups
    for group in range(plan.groups):
        w_group = W[group * og:(group + 1) * og]  # (og, cg, kh, kw) -> (cg * kh, og * kw)
        w_rows = w_group.transpose(1, 2, 0, 3).reshape(cg * kh, og * kw)
        np.matmul(w_rows, shifted[group * og * kw:(group + 1) * og * kw],
                  out=e[group * cg * kh:(group + 1) * cg * kh])
    e = e.reshape(plan.c, kh, n, span)
    for i in range(kh):
        start = i * dh * plan.wp  # ends at (kh-1)*dh*Wp + Ho*Wp + (kw-1)*dw = length
        dflat[:, :, start:start + span] += e[:, i]


def backward(g, cols, W, plan, need_input, need_weight):
    """Gradients with respect to the (unpadded) input and the weight; ``None`` for those not needed.

    ``cols`` is the window matrix :func:`forward` returned (needed only for
    the weight).  The input gradient is an (N, C, H, W) view into a cached
    buffer.
    """
    g_mat = _grad_matrix(g, plan)
    dw = _weight_gradient(g_mat, cols, W.shape, plan.groups) if need_weight else None
    dx = None
    if need_input:
        dflat = buffer_cache.zeros((plan.c, plan.n, plan.length), g.dtype)
        if plan.stride == (1, 1) and plan.row == plan.wp:
            _col2im_by_rows(g_mat, W, dflat, plan)
        else:
            _col2im(g_mat, W, dflat, plan)
        top, bottom, left, right = plan.pads
        dx = plan.image(dflat)[:, :, top:plan.hp - bottom, left:plan.wp - right].transpose(1, 0, 2, 3)
    return dx, dw
