"""The convolution's two adjoints, as ops, so convolutions differentiate to any order.

A 2-D convolution ``y = conv(x, w)`` is linear in ``x`` and linear in ``w``.
Its gradients are its two *adjoints*:

- ``conv2d_input_grad(g, w)`` -- the input's gradient, the transposed
  convolution of ``g`` by ``w`` (col2im of ``w.T @ g``);
- ``conv2d_weight_grad(x, g)`` -- the weight's gradient, the correlation of
  ``x`` with ``g`` (``g @ im2col(x).T``).

Both are again bilinear, and their adjoints close the family::

    <input_grad(g, w), h>  = <g, conv(h, w)>       =  <w, weight_grad(h, g)>
    <weight_grad(x, g), k> = <g, conv(x, k)>       =  <x, input_grad(g, k)>

so each op's backward rule is one of the three others, and a gradient of a
gradient of a convolution is again made of convolutions.  The array code
here is the portable im2col form (any array namespace); the NumPy fast path
of the first-order gradient lives in ``_conv_numpy``.

>>> import numpy as np
>>> import cellkit as ms
>>> x = ms.Tensor(np.arange(16.0).reshape(1, 1, 4, 4))
>>> w = ms.Tensor(np.ones((1, 1, 2, 2)))
>>> geometry = ConvGeometry((1, 1, 4, 4), (1, 1, 2, 2), (0, 0, 0, 0), (1, 1), (1, 1), 1, 3, 3)
>>> g = ms.Tensor(np.ones((1, 1, 3, 3)))
>>> print(conv2d_input_grad(g, w, geometry).asnumpy()[0, 0])
[[1. 2. 2. 1.]
 [2. 4. 4. 2.]
 [2. 4. 4. 2.]
 [1. 2. 2. 1.]]
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from . import _conv_numpy
from ._core import backend, record, tensor_arg, wrap, xp

__all__ = ["ConvGeometry", "conv2d_input_grad", "conv2d_weight_grad", "conv_forward_array"]


class ConvGeometry:
    """One convolution's shapes, padding ``(top, bottom, left, right)``, stride, dilation and groups."""

    __slots__ = ("x_shape", "w_shape", "pads", "stride", "dilation", "groups", "ho", "wo", "numpy_plan")

    def __init__(self, x_shape, w_shape, pads, stride, dilation, groups, ho, wo):
        self.x_shape, self.w_shape = tuple(x_shape), tuple(w_shape)
        self.pads, self.stride, self.dilation, self.groups = tuple(pads), tuple(stride), tuple(dilation), groups
        self.ho, self.wo = ho, wo
        self.numpy_plan = None  # the _conv_numpy.Plan of a forward pass that took the NumPy path

    @property
    def padded_shape(self):
        n, c, h, w = self.x_shape
        top, bottom, left, right = self.pads
        return n, c, h + top + bottom, w + left + right


# -- array helpers shared with pooling ------------------------------------------------------
def full(shape, value, like):
    """A new array of ``like``'s dtype and device filled with ``value``."""
    if backend().is_numpy:
        return np.full(shape, value, dtype=like.dtype)
    return xp().full(shape, value, dtype=like.dtype, device=like.device)


def pad(X, pads, value):
    """``X`` (N, C, H, W) padded by ``pads = (top, bottom, left, right)`` with ``value``."""
    top, bottom, left, right = pads
    if not (top or bottom or left or right):
        return X
    n, c, h, w = X.shape
    out = full((n, c, h + top + bottom, w + left + right), value, X)
    out[:, :, top:top + h, left:left + w] = X
    return out


def window_slices(kh, kw, sh, sw, dh, dw, ho, wo):
    """For each kernel offset, the (row, column) slices of the padded input it visits."""
    for i in range(kh):
        for j in range(kw):
            r, c = i * dh, j * dw
            yield slice(r, r + sh * (ho - 1) + 1, sh), slice(c, c + sw * (wo - 1) + 1, sw)


def crop(dX, pads, h, w):
    """The unpadded (h, w) part of a padded array."""
    top, left = pads[0], pads[2]
    return dX[:, :, top:top + h, left:left + w]


# -- the portable im2col arithmetic ----------------------------------------------------------
def _im2col(Xp, kernel, geometry):
    """The (N, groups, C/groups * kh * kw, Ho * Wo) matrix of the windows of a padded ``Xp``."""
    x = xp()
    n, c = Xp.shape[:2]
    kh, kw = kernel
    slices = [Xp[:, :, rs, cs] for rs, cs in window_slices(kh, kw, *geometry.stride, *geometry.dilation,
                                                           geometry.ho, geometry.wo)]
    return x.reshape(x.stack(slices, axis=2), (n, geometry.groups, (c // geometry.groups) * kh * kw,
                                               geometry.ho * geometry.wo))


def conv_forward_array(X, W, geometry):
    """The convolution of the (unpadded) ``X`` by ``W``."""
    x = xp()
    o, cg, kh, kw = W.shape
    groups = geometry.groups
    cols = _im2col(pad(X, geometry.pads, 0), (kh, kw), geometry)
    w_mat = x.reshape(W, (groups, o // groups, cg * kh * kw))
    return x.reshape(x.matmul(w_mat, cols), (X.shape[0], o, geometry.ho, geometry.wo))


def input_grad_array(g, W, geometry):
    """The transposed convolution of ``g`` by ``W``: col2im of ``W.T @ g``, unpadded."""
    n, c, hp, wp = geometry.padded_shape
    o, cg, kh, kw = W.shape
    ho, wo, groups = geometry.ho, geometry.wo, geometry.groups
    x = xp()
    w_mat = x.reshape(W, (groups, o // groups, cg * kh * kw))
    g2 = x.reshape(g, (n, groups, o // groups, ho * wo))
    dcols = x.reshape(x.matmul(x.matrix_transpose(w_mat), g2), (n, c, kh, kw, ho, wo))
    dX = full((n, c, hp, wp), 0, g)
    offsets = [(i, j) for i in range(kh) for j in range(kw)]
    for (i, j), (rs, cs) in zip(offsets, window_slices(kh, kw, *geometry.stride, *geometry.dilation, ho, wo)):
        dX[:, :, rs, cs] += dcols[:, :, i, j, ...]
    return crop(dX, geometry.pads, geometry.x_shape[2], geometry.x_shape[3])


def weight_grad_array(X, g, geometry):
    """The correlation of ``X`` with ``g``: ``g @ im2col(X).T``, summed over the batch."""
    x = xp()
    o, cg, kh, kw = geometry.w_shape
    n = g.shape[0]
    cols = _im2col(pad(X, geometry.pads, 0), (kh, kw), geometry)
    g2 = x.reshape(g, (n, geometry.groups, o // geometry.groups, geometry.ho * geometry.wo))
    dw = x.sum(x.matmul(g2, x.matrix_transpose(cols)), axis=0)
    return x.reshape(dw, geometry.w_shape)


# -- what conv2d's backward rule calls ---------------------------------------------------------
def backward_arrays(g, cols, X, W, geometry, need_x, need_w):
    """First-order gradients on arrays: NumPy's fast path when the forward took it, else portable."""
    plan = geometry.numpy_plan
    if plan is not None and (cols is not None or not need_w):
        return _conv_numpy.backward(g, cols, W, plan, need_x, need_w)
    gx = input_grad_array(g, W, geometry) if need_x else None
    gw = weight_grad_array(X, g, geometry) if need_w else None
    return gx, gw


def backward_ops(g, cols, X, W, geometry, need_x, need_w):
    """The same gradients as recorded ops on Tensors (for a gradient of a gradient)."""
    if need_w and X is None:  # the forward kept only the window matrix: it ran under one transform
        raise RuntimeError("this conv2d was recorded for first-order gradients only (its input was not kept); "
                           "run it inside the outer transform to differentiate its gradient")
    gx = conv2d_input_grad(g, W, geometry) if need_x else None
    gw = conv2d_weight_grad(X, g, geometry) if need_w else None
    return gx, gw


# -- the three ops of the family ----------------------------------------------------------------
def _conv_op(X, W, geometry):
    """``conv(X, W)`` with a fixed geometry (no bias), recorded with the family's rule."""
    xt, wt = tensor_arg(X, "input", "conv2d"), tensor_arg(W, "weight", "conv2d")
    out = conv_forward_array(xt._data, wt._data, geometry)
    if _ag._depth == 0:
        return wrap(out)
    return record(out, "Conv2D", _conv_op_rule, (xt, wt), (xt._data, wt._data), (0, 1), geometry)


def _conv_op_rule(m, node, g):
    X, W = node.unpack(m)
    geometry = node.info
    gx = m.call(input_grad_array, conv2d_input_grad, g, W, geometry) if node.inputs[0] is not None else None
    gw = m.call(weight_grad_array, conv2d_weight_grad, X, g, geometry) if node.inputs[1] is not None else None
    return gx, gw


def conv2d_input_grad(g, weight, geometry):
    """The gradient a convolution of ``geometry`` sends to its input, as a differentiable op."""
    gt, wt = tensor_arg(g, "grad", "Conv2DBackpropInput"), tensor_arg(weight, "weight", "Conv2DBackpropInput")
    out = input_grad_array(gt._data, wt._data, geometry)
    if _ag._depth == 0:
        return wrap(out)
    return record(out, "Conv2DBackpropInput", _input_grad_rule, (gt, wt), (gt._data, wt._data), (0, 1), geometry)


def _input_grad_rule(m, node, h):
    """<input_grad(g, w), h> = <g, conv(h, w)> = <w, weight_grad(h, g)>."""
    g, W = node.unpack(m)
    geometry = node.info
    dg = m.call(conv_forward_array, _conv_op, h, W, geometry) if node.inputs[0] is not None else None
    dw = m.call(weight_grad_array, conv2d_weight_grad, h, g, geometry) if node.inputs[1] is not None else None
    return dg, dw


def conv2d_weight_grad(x, g, geometry):
    """The gradient a convolution of ``geometry`` sends to its weight, as a differentiable op."""
    xt, gt = tensor_arg(x, "input", "Conv2DBackpropFilter"), tensor_arg(g, "grad", "Conv2DBackpropFilter")
    out = weight_grad_array(xt._data, gt._data, geometry)
    if _ag._depth == 0:
        return wrap(out)
    return record(out, "Conv2DBackpropFilter", _weight_grad_rule, (xt, gt), (xt._data, gt._data), (0, 1), geometry)


def _weight_grad_rule(m, node, k):
    """<weight_grad(x, g), k> = <g, conv(x, k)> = <x, input_grad(g, k)>."""
    X, g = node.unpack(m)
    geometry = node.info
    dx = m.call(input_grad_array, conv2d_input_grad, g, k, geometry) if node.inputs[0] is not None else None
    dg = m.call(conv_forward_array, _conv_op, X, k, geometry) if node.inputs[1] is not None else None
    return dx, dg
