"""The NumPy fast path of conv2d: row-flattened windows, one matrix product per chunk of images.

The portable convolution in ``nn_ops`` works on any array namespace and
does one small matrix product per sample.  On NumPy, BLAS over many images
at once is faster, and most of the remaining time goes into copying
windows in and out (im2col and col2im).  This module makes those copies
long and contiguous, and keeps them in the CPU's cache.

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

With ``R`` the row length (``Wp`` or ``Wo``) the window matrix of a chunk
of ``b`` images is::

    cols[c, i, j, n, y, x] = window(i, j)[c, n, y, x]  ->  (C * kh * kw, b * Ho * R)

**Chunks.**  The window matrix is ``kh * kw`` times the input's size.  Built
for a whole batch it would go out to main memory and come back, twice per
step; built for a chunk of images (about :data:`CHUNK_BYTES`) it stays in
the cache.  Per chunk, group by group:

- forward: ``W (O, K) @ cols``, then the kept columns, transposed to NCHW
  with the bias added, in one pass;
- weight gradient: ``g @ cols.T``, with ``cols`` rebuilt from the input
  (cheaper than keeping ``kh * kw`` copies of it until the backward pass);
- input gradient: ``W.T @ g``, added back into a zeroed ``flat`` buffer
  through the same windows (col2im).

The large buffers come from :mod:`cellkit.buffer_cache`, so a training step
reuses last step's memory instead of faulting in fresh pages.  Every
function takes and returns NumPy arrays.

>>> import numpy as np
>>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
>>> w = np.ones((1, 1, 2, 2), np.float32)
>>> plan = Plan(x.shape, w.shape, (0, 0, 0, 0), (1, 1), (1, 1), 1, 3, 3)
>>> out = forward(x, w, None, plan)
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

# A chunk of images is convolved at a time so that its window matrix (and, in
# the backward pass, its input-gradient windows) stay in the CPU's cache:
# materialising the windows of a whole batch at once multiplies the input's
# size by kh * kw and sends it through main memory twice.
CHUNK_BYTES = 1024 * 1024


class Plan:
    """The geometry of one convolution: shapes, padding, the row length ``R`` and the chunk size."""

    __slots__ = ("n", "c", "h", "w", "o", "kh", "kw", "pads", "stride", "dilation", "groups",
                 "hp", "wp", "ho", "wo", "row", "length", "chunk")

    def __init__(self, x_shape, w_shape, pads, stride, dilation, groups, ho, wo, itemsize=4):
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
        per_image = self.c * self.kh * self.kw * ho * self.row * itemsize
        self.chunk = max(1, min(self.n, CHUNK_BYTES // max(per_image, 1)))

    def chunks(self):
        """``(start, stop)`` of each chunk of images."""
        for start in range(0, self.n, self.chunk):
            yield start, min(start + self.chunk, self.n)

    def all_windows(self, flat):
        """Every window of ``flat`` (C, n, length) at once: the (C, kh, kw, n, Ho, R) view im2col copies.

        The views stay inside ``flat``: the last one ends at
        ``((Ho-1)*sh + (kh-1)*dh) * Wp + (kw-1)*dw + R <= length``.
        """
        item = flat.itemsize
        channel_step, image_step = flat.strides[:2]
        (sh, sw), (dh, dw) = self.stride, self.dilation
        shape = (self.c, self.kh, self.kw, flat.shape[1], self.ho, self.row)
        strides = (channel_step, dh * self.wp * item, dw * item, image_step, sh * self.wp * item, sw * item)
        return as_strided(flat, shape, strides)

    def image(self, flat):
        """The (C, N, Hp, Wp) padded images inside a ``flat`` buffer (a view)."""
        return flat[:, :, :self.hp * self.wp].reshape(self.c, self.n, self.hp, self.wp)


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


def _scratch(plan, rows, dtype):
    """A reusable (rows, chunk * Ho * R) buffer; chunk ``b`` uses its first ``b * Ho * R`` columns."""
    return buffer_cache.empty((rows * plan.chunk * plan.ho * plan.row,), dtype)


def _matrix(buffer, rows, images, plan):
    return buffer[:rows * images * plan.ho * plan.row].reshape(rows, images * plan.ho * plan.row)


def _im2col(flat, start, stop, cols_buffer, plan):
    """The window matrix (C * kh * kw, b * Ho * R) of images ``start:stop``, in one copy."""
    rows = plan.c * plan.kh * plan.kw
    cols = _matrix(cols_buffer, rows, stop - start, plan)
    np.copyto(cols.reshape(plan.c, plan.kh, plan.kw, stop - start, plan.ho, plan.row),
              plan.all_windows(flat[:, start:stop]))
    return cols


def forward(X, W, bias, plan):
    """Convolve ``X`` (N, C, H, W) with ``W``, adding ``bias`` (O,) if given; returns (N, O, Ho, Wo)."""
    o, cg, kh, kw = W.shape
    k = plan.c * kh * kw
    flat = _flat_input(X, plan)
    cols_buffer, wide_buffer = _scratch(plan, k, X.dtype), _scratch(plan, o, X.dtype)
    w_mat = W.reshape(o, cg * kh * kw)
    out = buffer_cache.empty((plan.n, o, plan.ho, plan.wo), X.dtype)
    for start, stop in plan.chunks():
        cols = _im2col(flat, start, stop, cols_buffer, plan)
        wide = _matrix(wide_buffer, o, stop - start, plan)
        for group in range(plan.groups):
            outs, ins = _group_rows(o, plan.groups, group), _group_rows(k, plan.groups, group)
            np.matmul(w_mat[outs], cols[ins], out=wide[outs])
        # The kept columns, back to NCHW, plus the bias: one pass.
        kept = wide.reshape(o, stop - start, plan.ho, plan.row)[..., :plan.wo].transpose(1, 0, 2, 3)
        if bias is None:
            np.copyto(out[start:stop], kept)
        else:
            np.add(kept, bias.reshape(1, o, 1, 1), out=out[start:stop])
    return out


def _grad_matrix(g, start, stop, buffer, plan):
    """Output gradients of images ``start:stop`` in the forward product's layout (O, b * Ho * R).

    The thrown-away columns get a zero gradient, so they add nothing below.
    """
    o = plan.o
    wide = _matrix(buffer, o, stop - start, plan).reshape(o, stop - start, plan.ho, plan.row)
    if plan.row > plan.wo:
        wide[..., plan.wo:] = 0
    wide[..., :plan.wo] = g[start:stop].transpose(1, 0, 2, 3)
    return wide.reshape(o, (stop - start) * plan.ho * plan.row)


def _add_weight_gradient(dw_t, g_mat, cols, plan):
    """``dw_t += (g @ cols.T).T`` group by group, for the (K / groups, O) transposed weight gradient.

    Both products have a small result and a long inner dimension.  OpenBLAS
    splits such a product between threads along the result's rows, so the
    factor with more rows (usually ``cols``) goes first when it has many.
    """
    o, k = g_mat.shape[0], cols.shape[0]
    for group in range(plan.groups):
        outs, ins = _group_rows(o, plan.groups, group), _group_rows(k, plan.groups, group)
        if k // plan.groups >= 64:
            dw_t[:, outs] += cols[ins] @ g_mat[outs].T
        else:
            dw_t[:, outs] += (g_mat[outs] @ cols[ins].T).T


def _col2im(g_mat, W, dflat, plan, buffer):
    """Add ``W.T @ g`` back into ``dflat`` (C, b, length) through the kh * kw windows."""
    o, cg, kh, kw = W.shape
    k = plan.c * kh * kw
    images = dflat.shape[1]
    dcols = _matrix(buffer, k, images, plan)
    w_mat = W.reshape(o, cg * kh * kw)
    for group in range(plan.groups):
        outs, ins = _group_rows(o, plan.groups, group), _group_rows(k, plan.groups, group)
        np.matmul(w_mat[outs].T, g_mat[outs], out=dcols[ins])
    dcols = dcols.reshape(plan.c, kh, kw, images, plan.ho, plan.row)
    windows = plan.all_windows(dflat)
    for i in range(kh):
        for j in range(kw):
            windows[:, i, j] += dcols[:, i, j]


def _col2im_by_rows(g_mat, W, dflat, plan, buffers):
    """The same sum as :func:`_col2im` with ``kh`` additions instead of ``kh * kw`` (stride 1, full rows).

    Window ``(i, j)`` starts ``i*dh*Wp + j*dw`` values into each image, so
    ``dflat[c, n, q] = sum over o, i, j of W[o, c, i, j] * G[o, n, q - i*dh*Wp - j*dw]``
    (``G`` the gradient rows, zero outside them).  The ``j`` shifts go into
    the matrix product: with ``shifted[(o, j), (n, r)] = G[o, n, r - j*dw]``
    (one strided copy), ``E = W' @ shifted`` with ``W'[(c, i), (o, j)] = W[o, c, i, j]``
    is summed over ``o`` and ``j`` at once, and only the ``kh`` row shifts
    ``dflat[c, n, i*dh*Wp + r] += E[(c, i), (n, r)]`` are left -- each a
    long contiguous run.  The product has as many multiply-adds as
    ``W.T @ g``; the additions after it are ``kw`` times fewer.
    """
    o, cg, kh, kw = W.shape
    dh, dw = plan.dilation
    images = dflat.shape[1]
    rows = plan.ho * plan.wp  # L: the gradient's values per image
    pad = (kw - 1) * dw
    span = rows + pad  # each E row covers its window's whole reach
    padded_buffer, shifted_buffer, e_buffer = buffers
    padded = padded_buffer[:o * images * (rows + 2 * pad)].reshape(o, images, rows + 2 * pad)
    padded[:, :, :pad] = 0
    padded[:, :, pad + rows:] = 0
    padded[:, :, pad:pad + rows] = g_mat.reshape(o, images, rows)
    item = padded.itemsize
    # shifted[o, j, n, r] = padded[o, n, pad + r - j*dw]: a negative stride along j, which
    # for j = kw - 1 starts at index 0 and for r = span - 1, j = 0 ends at rows + 2 * pad - 1.
    view = as_strided(padded[:, :, pad:], (o, kw, images, span),
                      (padded.strides[0], -dw * item, padded.strides[1], item))
    shifted = shifted_buffer[:o * kw * images * span].reshape(o, kw, images, span)
    np.copyto(shifted, view)
    shifted = shifted.reshape(o * kw, images * span)
    e = e_buffer[:plan.c * kh * images * span].reshape(plan.c * kh, images * span)
    og = o // plan.groups
    for group in range(plan.groups):
        w_group = W[group * og:(group + 1) * og]  # (og, cg, kh, kw) -> (cg * kh, og * kw)
        w_rows = w_group.transpose(1, 2, 0, 3).reshape(cg * kh, og * kw)
        np.matmul(w_rows, shifted[group * og * kw:(group + 1) * og * kw],
                  out=e[group * cg * kh:(group + 1) * cg * kh])
    e = e.reshape(plan.c, kh, images, span)
    for i in range(kh):
        start = i * dh * plan.wp  # ends at (kh-1)*dh*Wp + Ho*Wp + (kw-1)*dw = length
        dflat[:, :, start:start + span] += e[:, i]


def backward(g, X, W, plan, need_input, need_weight):
    """Gradients with respect to the (unpadded) input and the weight; ``None`` for those not needed.

    Chunk by chunk: the weight's gradient adds up ``g @ cols.T`` (the
    windows rebuilt from ``X``, cheaper than keeping kh * kw copies of it),
    and the input's gradient ``W.T @ g`` is added back through the same
    windows into a zeroed ``flat`` buffer (col2im).  The input gradient is an
    (N, C, H, W) view into a cached buffer.
    """
    o, cg, kh, kw = W.shape
    k = plan.c * kh * kw
    g_buffer = _scratch(plan, o, g.dtype)
    if need_weight:
        flat = _flat_input(X, plan)
        cols_buffer = _scratch(plan, k, g.dtype)
        dw_t = np.zeros((cg * kh * kw, o), g.dtype)  # transposed: see _add_weight_gradient
    if need_input:
        dflat = buffer_cache.zeros((plan.c, plan.n, plan.length), g.dtype)
        by_rows = plan.stride == (1, 1) and plan.row == plan.wp
        if by_rows:
            span = plan.ho * plan.wp + 2 * (kw - 1) * plan.dilation[1]
            buffers = [buffer_cache.empty((rows * plan.chunk * span,), g.dtype) for rows in (o, o * kw, plan.c * kh)]
        else:
            dcols_buffer = _scratch(plan, k, g.dtype)
    for start, stop in plan.chunks():
        g_mat = _grad_matrix(g, start, stop, g_buffer, plan)
        if need_weight:
            cols = _im2col(flat, start, stop, cols_buffer, plan)
            _add_weight_gradient(dw_t, g_mat, cols, plan)
        if need_input and by_rows:
            _col2im_by_rows(g_mat, W, dflat[:, start:stop], plan, buffers)
        elif need_input:
            _col2im(g_mat, W, dflat[:, start:stop], plan, dcols_buffer)
    dx = None
    if need_input:
        top, bottom, left, right = plan.pads
        dx = plan.image(dflat)[:, :, top:plan.hp - bottom, left:plan.wp - right].transpose(1, 0, 2, 3)
    return dx, (dw_t.T.reshape(W.shape) if need_weight else None)
