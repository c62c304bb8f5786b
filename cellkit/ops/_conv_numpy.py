"""The NumPy fast path of conv2d: one big matrix product per pass.

The portable convolution in ``nn_ops`` works on any array namespace and
does one small matrix product per sample.  On NumPy one BLAS call over the
whole batch is faster, with the im2col matrix laid out channels-first:

``cols[c, i, j, n, y, x] = Xp[n, c, y*sh + i*dh, x*sw + j*dw]``, reshaped to
``(C/groups * kh * kw, N * Ho * Wo)``.

It is filled by ``kh * kw`` strided slice copies, each writing a contiguous
block, and is kept from the forward pass for the weight gradient.  Then:

- forward: ``W (O, K) @ cols (K, NP)``;
- weight gradient: ``g (O, NP) @ cols.T``;
- input gradient: ``W.T @ g``, scattered back by ``kh * kw`` strided adds (col2im).

Every function takes and returns NumPy arrays; groups are handled one at a time.
"""
from __future__ import annotations

import numpy as np

__all__ = ["forward", "backward_input", "backward_weight"]


def _offsets(kernel, stride, dilation, ho, wo):
    """For each kernel offset (i, j): the row and column slices of the padded input it reads."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    for i in range(kh):
        for j in range(kw):
            r, q = i * dh, j * dw
            yield i, j, slice(r, r + sh * (ho - 1) + 1, sh), slice(q, q + sw * (wo - 1) + 1, sw)


def _im2col(Xc, kernel, stride, dilation, ho, wo):
    """Channels-first windows of ``Xc`` (C, N, Hp, Wp) as a (C * kh * kw, N * Ho * Wo) matrix."""
    c, n = Xc.shape[:2]
    kh, kw = kernel
    cols = np.empty((c, kh, kw, n, ho, wo), dtype=Xc.dtype)
    for i, j, rows, columns in _offsets(kernel, stride, dilation, ho, wo):
        cols[:, i, j] = Xc[:, :, rows, columns]
    return cols.reshape(c * kh * kw, n * ho * wo)


def forward(Xp, W, stride, dilation, groups, ho, wo):
    """Convolve the padded ``Xp`` (N, C, Hp, Wp) with ``W``; returns ``(out, cols per group)``."""
    n = Xp.shape[0]
    o, cg, kh, kw = W.shape
    og = o // groups
    Xc = Xp.transpose(1, 0, 2, 3)  # channels first: each slice copy writes whole (N, Ho, Wo) blocks
    outs, cols = [], []
    for group in range(groups):
        col = _im2col(Xc[group * cg:(group + 1) * cg], (kh, kw), stride, dilation, ho, wo)
        w_mat = W[group * og:(group + 1) * og].reshape(og, cg * kh * kw)
        outs.append(w_mat @ col)  # (O/groups, N*Ho*Wo)
        cols.append(col)
    out = outs[0] if groups == 1 else np.concatenate(outs, axis=0)
    out = np.ascontiguousarray(out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3))
    return out, cols


def grad_matrix(g):
    """(N, O, Ho, Wo) -> (O, N*Ho*Wo), the layout of the forward product.

    Both gradients start from it: compute it once and pass it to each.
    """
    n, o, ho, wo = g.shape
    return np.ascontiguousarray(g.transpose(1, 0, 2, 3)).reshape(o, n * ho * wo)


def backward_weight(g_mat, cols, W_shape, groups):
    """Gradient with respect to the weight: ``g @ cols.T`` per group (``g_mat`` from :func:`grad_matrix`)."""
    o = W_shape[0]
    og = o // groups
    parts = [g_mat[group * og:(group + 1) * og] @ cols[group].T for group in range(groups)]
    dw = parts[0] if groups == 1 else np.concatenate(parts, axis=0)
    return dw.reshape(W_shape)


def backward_input(g_mat, out_hw, W, padded_shape, pads, stride, dilation, groups):
    """Gradient with respect to the (unpadded) input: ``W.T @ g`` then col2im."""
    n, c, hp, wp = padded_shape
    o, cg, kh, kw = W.shape
    og = o // groups
    ho, wo = out_hw
    dXc = np.zeros((c, n, hp, wp), dtype=g_mat.dtype)
    for group in range(groups):
        w_mat = W[group * og:(group + 1) * og].reshape(og, cg * kh * kw)
        dcols = (w_mat.T @ g_mat[group * og:(group + 1) * og]).reshape(cg, kh, kw, n, ho, wo)
        target = dXc[group * cg:(group + 1) * cg]
        for i, j, rows, columns in _offsets((kh, kw), stride, dilation, ho, wo):
            target[:, :, rows, columns] += dcols[:, i, j]
    top, bottom, left, right = pads
    return dXc.transpose(1, 0, 2, 3)[:, :, top:hp - bottom, left:wp - right]
