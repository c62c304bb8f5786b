"""Convolutions in 1, 2 and 3 dimensions and their transposes (the N-d im2col family).

``conv2d`` keeps its tuned NumPy path (``nn_ops`` / ``_conv_numpy``); ``conv1d`` runs on it
by viewing a length-``L`` signal as a ``1 x L`` image.  Everything with three spatial axes,
and every transposed convolution, runs on the portable N-d code here, which is the 2-D
family of ``conv_grads`` written for any number of spatial axes:

- ``conv_nd(x, w)``: each kernel offset picks one strided slice of the padded input; the
  slices stacked form the window matrix ``cols`` and the convolution is ``W @ cols``;
- ``conv_nd_input_grad(g, w)``: the adjoint in ``x`` (``W.T @ g`` added back slice by slice),
  which is also what a *transposed* convolution computes;
- ``conv_nd_weight_grad(x, g)``: the adjoint in ``w`` (``g @ cols.T``).

Each of the three is an op whose backward rule is made of the other two, so convolutions
differentiate to any order (the same closure as ``conv_grads``).

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor(np.ones((1, 1, 3, 3, 3), np.float32))
>>> print(ops.conv3d(x, ms.Tensor(np.ones((1, 1, 2, 2, 2), np.float32))).shape)
(1, 1, 2, 2, 2)
>>> print(ops.conv1d(ms.Tensor([[[1.0, 2.0, 3.0]]]), ms.Tensor([[[1.0, -1.0]]])))
[[[-1. -1.]]]
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from . import conv_grads as _conv_grads
from . import nn_ops as _nn_ops
from . import shape_ops as _shape
from ._core import backend, describe, record, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = ["conv1d", "conv3d", "conv3d_transpose", "deformable_conv2d", "Conv3D", "Conv3DTranspose", "Conv2DTranspose",
           "DeformableOffsets"]

_MAX_ELEMENTS = 2 ** 31  # an output larger than this is refused before anything is allocated


# -- geometry ------------------------------------------------------------------------------------
class ConvGeometryND:
    """One N-d convolution: shapes, paddings ``((lo, hi), ...)``, stride, dilation, groups, output size."""

    __slots__ = ("x_shape", "w_shape", "pads", "stride", "dilation", "groups", "out")

    def __init__(self, x_shape, w_shape, pads, stride, dilation, groups, out):
        self.x_shape, self.w_shape = tuple(x_shape), tuple(w_shape)
        self.pads = tuple(tuple(p) for p in pads)
        self.stride, self.dilation, self.groups = tuple(stride), tuple(dilation), int(groups)
        self.out = tuple(out)

    @property
    def padded_shape(self):
        return self.x_shape[:2] + tuple(n + lo + hi for n, (lo, hi) in zip(self.x_shape[2:], self.pads))

    @property
    def kernel(self):
        return self.w_shape[2:]

    def window_slices(self):
        """For each kernel offset (row-major), the index of the padded input's slice it reads."""
        head = (slice(None), slice(None))
        for offset in itertools.product(*(range(k) for k in self.kernel)):
            yield head + tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                               for o, d, s, n in zip(offset, self.dilation, self.stride, self.out))


def _zeros(shape, like):
    return _conv_grads.full(shape, 0, like)


def pad_nd(X, pads, value=0):
    """``X`` (N, C, *spatial) padded by ``pads = ((lo, hi), ...)`` with ``value``."""
    if not any(lo or hi for lo, hi in pads):
        return X
    shape = tuple(X.shape[:2]) + tuple(n + lo + hi for n, (lo, hi) in zip(X.shape[2:], pads))
    out = _conv_grads.full(shape, value, X)
    out[(slice(None), slice(None)) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(X.shape[2:], pads))] = X
    return out


def crop_nd(X, pads, spatial):
    return X[(slice(None), slice(None)) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(spatial, pads))]


# -- the portable arithmetic -------------------------------------------------------------------------
def _cols(X, geometry):
    """The (N, groups, C/groups * K, P) window matrix of the (unpadded) ``X``."""
    x = xp()
    Xp = pad_nd(X, geometry.pads)
    n, c = Xp.shape[:2]
    k = int(np.prod(geometry.kernel))
    p = int(np.prod(geometry.out))
    stacked = x.stack([Xp[index] for index in geometry.window_slices()], axis=2)
    return x.reshape(stacked, (n, geometry.groups, (c // geometry.groups) * k, p))


def _w_matrix(W, geometry):
    o = W.shape[0]
    return xp().reshape(W, (geometry.groups, o // geometry.groups, -1))


def conv_forward_array(X, W, geometry):
    """The N-d convolution of ``X`` by ``W`` (no bias)."""
    x = xp()
    out = x.matmul(_w_matrix(W, geometry), _cols(X, geometry))
    return x.reshape(out, (X.shape[0], W.shape[0]) + geometry.out)


def input_grad_array(g, W, geometry):
    """``W.T @ g`` added back through the windows: the adjoint in the input (a transposed convolution)."""
    x = xp()
    n, c = geometry.x_shape[:2]
    o = W.shape[0]
    groups = geometry.groups
    p = int(np.prod(geometry.out))
    g2 = x.reshape(g, (n, groups, o // groups, p))
    dcols = x.matmul(x.matrix_transpose(_w_matrix(W, geometry)), g2)
    k = int(np.prod(geometry.kernel))
    dcols = x.reshape(dcols, (n, c, k) + geometry.out)
    dX = _zeros(geometry.padded_shape, g)
    for j, index in enumerate(geometry.window_slices()):
        dX[index] += dcols[:, :, j, ...]
    return crop_nd(dX, geometry.pads, geometry.x_shape[2:])


def weight_grad_array(X, g, geometry):
    """``g @ cols(X).T`` summed over the batch: the adjoint in the weight."""
    x = xp()
    o = geometry.w_shape[0]
    groups = geometry.groups
    g2 = x.reshape(g, (g.shape[0], groups, o // groups, int(np.prod(geometry.out))))
    dw = x.sum(x.matmul(g2, x.matrix_transpose(_cols(X, geometry))), axis=0)
    return x.reshape(dw, geometry.w_shape)


# -- the three ops of the family ---------------------------------------------------------------------
def conv_nd(x, weight, geometry):
    """The convolution of ``geometry`` as a differentiable op (no bias)."""
    xt, wt = tensor_arg(x, "input", "ConvND"), tensor_arg(weight, "weight", "ConvND")
    out = conv_forward_array(xt._data, wt._data, geometry)
    if _ag._depth == 0 or (xt._node is None and wt._node is None):
        return wrap(out)
    return record(out, "ConvND", _conv_rule, (xt, wt), (xt._data, wt._data), (0, 1), geometry)


def _conv_rule(m, node, g):
    X, W = node.unpack(m)
    geometry = node.info
    gx = m.call(input_grad_array, conv_nd_input_grad, g, W, geometry) if node.inputs[0] is not None else None
    gw = m.call(weight_grad_array, conv_nd_weight_grad, X, g, geometry) if node.inputs[1] is not None else None
    return gx, gw


def conv_nd_input_grad(g, weight, geometry):
    """The input's gradient of the convolution of ``geometry`` (a transposed convolution), as an op."""
    gt, wt = tensor_arg(g, "grad", "ConvNDBackpropInput"), tensor_arg(weight, "weight", "ConvNDBackpropInput")
    out = input_grad_array(gt._data, wt._data, geometry)
    if _ag._depth == 0 or (gt._node is None and wt._node is None):
        return wrap(out)
    return record(out, "ConvNDBackpropInput", _input_grad_rule, (gt, wt), (gt._data, wt._data), (0, 1), geometry)


def _input_grad_rule(m, node, h):
    """<input_grad(g, w), h> = <g, conv(h, w)> = <w, weight_grad(h, g)>."""
    g, W = node.unpack(m)
    geometry = node.info
    dg = m.call(conv_forward_array, conv_nd, h, W, geometry) if node.inputs[0] is not None else None
    dw = m.call(weight_grad_array, conv_nd_weight_grad, h, g, geometry) if node.inputs[1] is not None else None
    return dg, dw


def conv_nd_weight_grad(x, g, geometry):
    """The weight's gradient of the convolution of ``geometry``, as an op."""
    xt, gt = tensor_arg(x, "input", "ConvNDBackpropFilter"), tensor_arg(g, "grad", "ConvNDBackpropFilter")
    out = weight_grad_array(xt._data, gt._data, geometry)
    if _ag._depth == 0 or (xt._node is None and gt._node is None):
        return wrap(out)
    return record(out, "ConvNDBackpropFilter", _weight_grad_rule, (xt, gt), (xt._data, gt._data), (0, 1), geometry)


def _weight_grad_rule(m, node, k):
    """<weight_grad(x, g), k> = <g, conv(x, k)> = <x, input_grad(g, k)>."""
    X, g = node.unpack(m)
    geometry = node.info
    dx = m.call(input_grad_array, conv_nd_input_grad, g, k, geometry) if node.inputs[0] is not None else None
    dg = m.call(conv_forward_array, conv_nd, X, k, geometry) if node.inputs[1] is not None else None
    return dx, dg


# -- argument checking -------------------------------------------------------------------------------
_ints = _nn_ops._ints


def _check_ndim(t, name, op, ndim, layout):
    if t.ndim != ndim:
        raise ValueError(f"For '{op}', '{name}' must be a {ndim}-D Tensor {layout}, but got shape {t.shape} "
                         f"({t.ndim} dimensions)")


def _float_operands(xt, wt, op, names=("input", "weight")):
    for t, name in ((xt, names[0]), (wt, names[1])):
        if _dt.dtype_of(t._data).kind != "float":
            raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
    if xt.dtype != wt.dtype:
        raise TypeError(f"For '{op}', '{names[0]}' and '{names[1]}' must have the same dtype, but got {xt.dtype} "
                        f"and {wt.dtype}")
    return xt._data, wt._data


def _groups(groups, op, name="groups"):
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1 or groups >= 2 ** 31:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {describe(groups)}")
    return int(groups)


def _out_sizes(spatial, kernel, stride, dilation, pads, op, shape, w_shape=None):
    out = []
    for n, k, s, d, (lo, hi) in zip(spatial, kernel, stride, dilation, pads):
        span = n + lo + hi - d * (k - 1) - 1
        if span < 0:
            weight = f" of the weight of shape {tuple(w_shape)}" if w_shape is not None else ""
            raise ValueError(f"For '{op}', the input of shape {tuple(shape)}, padded to "
                             f"{tuple(n + a + b for n, (a, b) in zip(spatial, pads))}, is smaller than the kernel "
                             f"{tuple(kernel)}{weight} dilated by {tuple(dilation)}")
        out.append(span // s + 1)
    return tuple(out)


def _same_pads(spatial, kernel, stride, dilation):
    return tuple(_nn_ops._same_pads(n, k, s, d) for n, k, s, d in zip(spatial, kernel, stride, dilation))


def _bias_array(bias, o, op, dtype):
    if bias is None:
        return None, None
    bt = tensor_arg(bias, "bias", op)
    if tuple(bt.shape) != (o,):
        raise ValueError(f"For '{op}', 'bias' must have shape ({o},), but got {bt.shape}")
    b = bt._data
    return bt, (b if b.dtype == dtype else xp().astype(b, dtype))


def _with_bias(out, bt, b):
    """``out + b`` along the channel axis (recorded when the bias is on the tape)."""
    if bt is None:
        return out
    shape = (1, -1) + (1,) * (out.ndim - 2)
    if _ag._depth == 0 or (out._node is None and bt._node is None):
        return wrap(out._data + xp().reshape(b, shape))
    return out + _shape.reshape(bt, shape)


# -- conv1d ------------------------------------------------------------------------------------------
def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """1-D cross-correlation of an ``(N, C_in, L)`` ``input`` with a ``(C_out, C_in / groups, k)`` ``weight``.

    It runs as :func:`conv2d` on ``(N, C, 1, L)`` images (so it shares conv2d's NumPy fast path).

    Parameters
    ----------
    stride, dilation : int or tuple of 1 int
    pad_mode : {'valid', 'same', 'pad'}
    padding : int or tuple of 1 int
        Zeros on both ends when ``pad_mode='pad'``; must be 0 otherwise.
    groups : int

    >>> import cellkit as ms
    >>> print(conv1d(ms.Tensor([[[1.0, 2.0, 3.0, 4.0]]]), ms.Tensor([[[1.0, 1.0]]]), stride=2))
    [[[3. 7.]]]
    """
    op = "conv1d"
    mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
    (s,) = _ints(stride, "stride", op, (1,), 1)
    (d,) = _ints(dilation, "dilation", op, (1,), 1)
    (p,) = _ints(padding, "padding", op, (1,), 0)
    if mode != "pad" and p:
        raise ValueError(f"For '{op}', 'padding' must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}")
    xt = tensor_arg(input, "input", op)
    wt = tensor_arg(weight, "weight", op)
    _check_ndim(xt, "input", op, 3, "(N, C, L)")
    _check_ndim(wt, "weight", op, 3, "(C_out, C_in / groups, k)")
    if any(d == 0 for d in xt.shape + wt.shape):
        raise ValueError(f"For '{op}', 'input' and 'weight' must not be empty, but got shapes {xt.shape} and "
                         f"{wt.shape}")
    span = xt.shape[2] + 2 * p if mode == "pad" else xt.shape[2]
    if mode != "same" and span < d * (wt.shape[2] - 1) + 1:
        raise ValueError(f"For '{op}', the input of shape {xt.shape} (padded by {p}) must be at least as long as the "
                         f"kernel of the weight of shape {wt.shape} dilated by {d}")
    x4 = _shape.expand_dims(xt, 2)
    w4 = _shape.expand_dims(wt, 2)
    out = _nn_ops._conv2d(x4, w4, bias, (1, s), (0, 0, p, p), (1, d), _groups(groups, op), op, mode)
    return _shape.squeeze(out, 2)


# -- conv3d ------------------------------------------------------------------------------------------
def _conv3d(input, weight, bias, stride, pads, dilation, groups, op, mode):
    xt = tensor_arg(input, "input", op)
    wt = tensor_arg(weight, "weight", op)
    _check_ndim(xt, "input", op, 5, "(N, C, D, H, W)")
    _check_ndim(wt, "weight", op, 5, "(C_out, C_in / groups, kd, kh, kw)")
    X, W = _float_operands(xt, wt, op)
    groups = _groups(groups, op)
    n, c = X.shape[:2]
    o, cg = W.shape[:2]
    if c != cg * groups or o % groups:
        raise ValueError(f"For '{op}', the input of shape {tuple(X.shape)} and the weight of shape {tuple(W.shape)} "
                         f"do not fit groups={groups}: need input channels = weight.shape[1] * groups and "
                         "weight.shape[0] divisible by groups")
    kernel = tuple(W.shape[2:])
    if min(kernel) < 1 or min(X.shape) < 1:
        raise ValueError(f"For '{op}', 'input' and 'weight' must not be empty, but got shapes {tuple(X.shape)} and "
                         f"{tuple(W.shape)}")
    if mode == "same":
        pads = _same_pads(X.shape[2:], kernel, stride, dilation)
    out_sizes = _out_sizes(X.shape[2:], kernel, stride, dilation, pads, op, X.shape, W.shape)
    if n * o * int(np.prod(out_sizes)) >= _MAX_ELEMENTS:
        raise ValueError(f"For '{op}', the output of shape {(n, o) + out_sizes} would be too large")
    bt, b = _bias_array(bias, o, op, X.dtype)
    geometry = ConvGeometryND(X.shape, W.shape, pads, stride, dilation, groups, out_sizes)
    return _with_bias(conv_nd(xt, wt, geometry), bt, b)


def _pads3(padding, op, name, lengths=(3,)):
    values = _ints(padding, name, op, lengths, 0)
    if len(values) == 3:
        return tuple((v, v) for v in values)
    return tuple(zip(values[0::2], values[1::2]))


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """3-D cross-correlation of an ``(N, C_in, D, H, W)`` ``input`` with a ``(C_out, C_in / groups, kd, kh, kw)`` ``weight``.

    Parameters
    ----------
    stride, dilation : int or tuple of 3 ints
    pad_mode : {'valid', 'same', 'pad'}
    padding : int or tuple of 3 ints
        With ``pad_mode='pad'``, zeros before and after each of D, H and W.
    groups : int

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.ones((1, 1, 2, 2, 2), np.float32))
    >>> print(conv3d(x, ms.Tensor(np.ones((1, 1, 2, 2, 2), np.float32))).reshape(-1))
    [8.]
    """
    op = "conv3d"
    mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
    stride = _ints(stride, "stride", op, (3,), 1)
    dilation = _ints(dilation, "dilation", op, (3,), 1)
    pads = _pads3(padding, op, "padding")
    if mode != "pad" and any(lo or hi for lo, hi in pads):
        raise ValueError(f"For '{op}', 'padding' must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}")
    return _conv3d(input, weight, bias, stride, pads, dilation, groups, op, mode)


# -- transposed convolutions -------------------------------------------------------------------------
def _transpose_geometry(g_shape, w_shape, stride, dilation, pads, output_padding, groups, mode, op, out_channels):
    """The convolution whose input gradient a transposed convolution computes.

    ``g_shape`` is the transposed convolution's input (N, C_in, *spatial); the forward
    convolution's input is the transposed convolution's output.
    """
    spatial = g_shape[2:]
    kernel = w_shape[2:]
    sizes, all_pads = [], []
    for i, (n, k, s, d) in enumerate(zip(spatial, kernel, stride, dilation)):
        reach = (n - 1) * s + d * (k - 1) + 1
        if mode == "same":
            size = n * s
            total = max(reach - size, 0)
            lo, hi = total // 2, total - total // 2
        else:
            lo, hi = pads[i]
            size = reach - lo - hi + output_padding[i]
        if size < 1:
            raise ValueError(f"For '{op}', the output size along spatial axis {i} would be {size} (input {n}, "
                             f"kernel {k}, stride {s}, dilation {d}, padding {(lo, hi)})")
        sizes.append(size)
        # output_padding adds rows past the last window: they belong to the far padding's side
        all_pads.append((lo, hi))
    x_shape = (g_shape[0], out_channels) + tuple(sizes)
    if int(np.prod(x_shape, dtype=np.float64)) >= _MAX_ELEMENTS:
        raise ValueError(f"For '{op}', the output of shape {x_shape} would be too large")
    # the forward convolution's padding must make its output exactly the transposed input's size
    fwd_pads = []
    for (lo, hi), size, n, k, s, d in zip(all_pads, sizes, spatial, kernel, stride, dilation):
        # output_padding rows lie past the last window: no window reads them (their gradient is 0)
        hi_eff = max((n - 1) * s + d * (k - 1) + 1 - size - lo, 0)
        fwd_pads.append((lo, hi_eff))
    return ConvGeometryND(x_shape, w_shape, fwd_pads, stride, dilation, groups, spatial)


def _conv_transpose(inputs, weight, stride, dilation, pads, output_padding, groups, mode, op, ndim,
                    names=("inputs", "weight")):
    gt = tensor_arg(inputs, names[0], op)
    wt = tensor_arg(weight, names[1], op)
    layout = "(N, C, " + ", ".join("DHW"[3 - ndim + i] for i in range(ndim)) + ")"
    _check_ndim(gt, names[0], op, ndim + 2, layout)
    _check_ndim(wt, names[1], op, ndim + 2, "(C_in, C_out / group, *kernel)")
    G, W = _float_operands(gt, wt, op, names)
    groups = _groups(groups, op, "group")
    c_in, cg = W.shape[:2]
    if any(d == 0 for d in tuple(G.shape) + tuple(W.shape)):
        raise ValueError(f"For '{op}', '{names[0]}' and '{names[1]}' must not be empty, but got shapes "
                         f"{tuple(G.shape)} and {tuple(W.shape)}")
    if G.shape[1] != c_in or c_in % groups:
        raise ValueError(f"For '{op}', '{names[0]}' of shape {tuple(G.shape)} must have weight.shape[0] = {c_in} "
                         f"channels (the '{names[1]}' of shape {tuple(W.shape)}), divisible by group={groups}")
    if min(W.shape[2:]) < 1:
        raise ValueError(f"For '{op}', the weight's kernel must be at least 1 in each axis, but got shape "
                         f"{tuple(W.shape)}")
    for i, (op_pad, s, d) in enumerate(zip(output_padding, stride, dilation)):
        if op_pad >= max(s, d):
            raise ValueError(f"For '{op}', 'output_padding' must be smaller than the stride or the dilation, "
                             f"but got {tuple(output_padding)} with stride {tuple(stride)}")
    geometry = _transpose_geometry(G.shape, W.shape, stride, dilation, pads, output_padding, groups, mode, op,
                                   cg * groups)
    return conv_nd_input_grad(gt, wt, geometry)


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1, output_padding=0):
    """3-D transposed convolution (the input gradient of :func:`conv3d`).

    ``inputs`` is ``(N, C_in, D, H, W)`` and ``weight`` ``(C_in, C_out / group, kd, kh, kw)``;
    along each axis the output has ``(n - 1) * stride + dilation * (k - 1) + 1 - pad_lo - pad_hi
    + output_padding`` elements (``n * stride`` with ``pad_mode='same'``).

    Parameters
    ----------
    pad_mode : {'valid', 'same', 'pad'}
    padding : int or tuple of 6 ints (head, tail, top, bottom, left, right)
    stride, dilation, output_padding : int or tuple of 3 ints
    group : int

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.ones((1, 1, 1, 1, 2), np.float32))
    >>> print(conv3d_transpose(x, ms.Tensor(np.ones((1, 1, 1, 1, 2), np.float32))).reshape(-1))
    [1. 2. 1.]
    """
    op = "conv3d_transpose"
    mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
    stride = _ints(stride, "stride", op, (3,), 1)
    dilation = _ints(dilation, "dilation", op, (3,), 1)
    output_padding = _ints(output_padding, "output_padding", op, (3,), 0)
    pads = _pads3(padding, op, "padding", (6,))
    if mode != "pad" and any(lo or hi for lo, hi in pads):
        raise ValueError(f"For '{op}', 'padding' must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}")
    if mode == "valid" and any(output_padding):
        raise ValueError(f"For '{op}', 'output_padding' must be 0 when pad_mode is 'valid', but got "
                         f"{output_padding!r}")
    return _conv_transpose(inputs, weight, stride, dilation, pads, output_padding, group, mode, op, 3)


# -- Primitive classes ------------------------------------------------------------------------------
def _last(values, n):
    """MindSpore's attribute forms ``(1, 1, d, h, w)`` -> ``(d, h, w)``."""
    return values[-n:] if len(values) == n + 2 else values


class Conv3D(Primitive):
    """``Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, dilation=1, group=1)(x, weight)``.

    ``pad`` is an int or ``(head, tail, top, bottom, left, right)``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> conv = Conv3D(out_channel=2, kernel_size=2)
    >>> conv(ms.Tensor(np.ones((1, 1, 3, 3, 3), np.float32)), ms.Tensor(np.ones((2, 1, 2, 2, 2), np.float32))).shape
    (1, 2, 2, 2, 2)
    """

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCDHW"):
        op = "Conv3D"
        if isinstance(out_channel, bool) or not isinstance(out_channel, int) or out_channel < 1:
            raise ValueError(f"For '{op}', 'out_channel' must be a positive int, but got {describe(out_channel)}")
        self._kernel = _ints(kernel_size, "kernel_size", op, (3,), 1)
        self._mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
        self._pads = _pads3(pad, op, "pad", (6,))
        if self._mode != "pad" and any(lo or hi for lo, hi in self._pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 when pad_mode is {pad_mode!r}, but got {pad!r}")
        self._stride = _last(_ints(stride, "stride", op, (3, 5), 1), 3)
        self._dilation = _last(_ints(dilation, "dilation", op, (3, 5), 1), 3)
        _groups(group, op, "group")
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format='NCDHW' is supported, but got {data_format!r}")

    def __call__(self, x, weight, bias=None):
        w_shape = tuple(tensor_arg(weight, "weight", "Conv3D").shape)
        if len(w_shape) == 5 and (w_shape[0] != self.out_channel or w_shape[2:] != self._kernel):
            raise ValueError(f"For 'Conv3D', the weight of shape {w_shape} must have out_channel={self.out_channel} "
                             f"rows and kernel {self._kernel}")
        return _conv3d(x, weight, bias, self._stride, self._pads, self._dilation, self.group, "Conv3D", self._mode)


class Conv3DTranspose(Primitive):
    """``Conv3DTranspose(in_channel, out_channel, kernel_size, ...)(dout, weight)``: see :func:`conv3d_transpose`."""

    @prim_attr_register
    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
                 group=1, output_padding=0, data_format="NCDHW"):
        op = "Conv3DTranspose"
        for name, value in (("in_channel", in_channel), ("out_channel", out_channel)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {describe(value)}")
        self._kernel = _ints(kernel_size, "kernel_size", op, (3,), 1)
        self._mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
        self._pads = _pads3(pad, op, "pad", (6,))
        if self._mode != "pad" and any(lo or hi for lo, hi in self._pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 when pad_mode is {pad_mode!r}, but got {pad!r}")
        self._stride = _last(_ints(stride, "stride", op, (3, 5), 1), 3)
        self._dilation = _last(_ints(dilation, "dilation", op, (3, 5), 1), 3)
        self._output_padding = _last(_ints(output_padding, "output_padding", op, (3, 5), 0), 3)
        _groups(group, op, "group")
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format='NCDHW' is supported, but got {data_format!r}")

    def __call__(self, dout, weight):
        op = "Conv3DTranspose"
        w_shape = tuple(tensor_arg(weight, "weight", op).shape)
        if len(w_shape) == 5 and (w_shape[0] != self.in_channel or w_shape[1] * self.group != self.out_channel
                                  or w_shape[2:] != self._kernel):
            raise ValueError(f"For '{op}', the weight must have shape ({self.in_channel}, "
                             f"{self.out_channel // self.group}, *{self._kernel}), but got {w_shape}")
        return _conv_transpose(dout, weight, self._stride, self._dilation, self._pads, self._output_padding,
                               self.group, self._mode, op, 3, ("dout", "weight"))


class Conv2DTranspose(Primitive):
    """``Conv2DTranspose(out_channel, kernel_size, pad_mode='valid', pad=0, ...)(dout, weight, input_size)``.

    The input gradient of a 2-D convolution: ``dout`` is ``(N, C_out, H_out, W_out)``,
    ``weight`` the convolution's ``(C_out, C_in / group, kh, kw)`` kernel, and ``input_size``
    the shape ``(N, C_in, H, W)`` of the result.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> up = Conv2DTranspose(out_channel=1, kernel_size=2)
    >>> print(up(ms.Tensor(np.ones((1, 1, 1, 1), np.float32)), ms.Tensor(np.ones((1, 1, 2, 2), np.float32)),
    ...          (1, 1, 2, 2)))
    [[[[1. 1.]
       [1. 1.]]]]
    """

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        op = "Conv2DTranspose"
        if isinstance(out_channel, bool) or not isinstance(out_channel, int) or out_channel < 1:
            raise ValueError(f"For '{op}', 'out_channel' must be a positive int, but got {describe(out_channel)}")
        self._kernel = _nn_ops._last_pair(_ints(kernel_size, "kernel_size", op, (2, 4), 1))
        self._mode = _nn_ops._check_mode(pad_mode, ("valid", "same", "pad"), op)
        pads = _ints(pad_list if pad_list is not None else pad, "pad", op, (4,), 0)
        if self._mode != "pad" and any(pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 when pad_mode is {pad_mode!r}, but got {pad!r}")
        self._pads = pads
        self._stride = _nn_ops._last_pair(_ints(stride, "stride", op, (2, 4), 1))
        self._dilation = _nn_ops._last_pair(_ints(dilation, "dilation", op, (2, 4), 1))
        _groups(group, op, "group")
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format='NCHW' is supported, but got {data_format!r}")

    def __call__(self, dout, weight, input_size):
        op = "Conv2DTranspose"
        gt = tensor_arg(dout, "dout", op)
        wt = tensor_arg(weight, "weight", op)
        _check_ndim(gt, "dout", op, 4, "(N, C_out, H_out, W_out)")
        _check_ndim(wt, "weight", op, 4, "(C_out, C_in / group, kh, kw)")
        if isinstance(input_size, Primitive) or not isinstance(input_size, (tuple, list)):
            if hasattr(input_size, "asnumpy"):
                input_size = tuple(int(v) for v in input_size.asnumpy().tolist())
        size = _ints(tuple(input_size) if isinstance(input_size, (tuple, list)) else input_size,
                     "input_size", op, (4,), 1)
        G, W = _float_operands(gt, wt, op, ("dout", "weight"))
        if W.shape[0] != G.shape[1] or W.shape[1] * self.group != size[1]:
            raise ValueError(f"For '{op}', 'dout' {tuple(G.shape)}, 'weight' {tuple(W.shape)} and 'input_size' "
                             f"{size} do not describe one convolution with group={self.group}")
        kh, kw = W.shape[2:]
        if self._mode == "same":
            pads = _nn_ops._same_pads(size[2], kh, self._stride[0], self._dilation[0]) + \
                _nn_ops._same_pads(size[3], kw, self._stride[1], self._dilation[1])
        else:
            pads = self._pads
        ho = _nn_ops._out_size(size[2], kh, self._stride[0], self._dilation[0], pads[0], pads[1])
        wo = _nn_ops._out_size(size[3], kw, self._stride[1], self._dilation[1], pads[2], pads[3])
        if (ho, wo) != tuple(G.shape[2:]) or size[0] != G.shape[0]:
            raise ValueError(f"For '{op}', a convolution of an input of shape {size} gives an output of spatial "
                             f"size {(ho, wo)}, but 'dout' has shape {tuple(G.shape)}")
        geometry = _conv_grads.ConvGeometry(size, W.shape, pads, self._stride, self._dilation, self.group, ho, wo)
        return _conv_grads.conv2d_input_grad(gt, wt, geometry)


# -- deformable convolution --------------------------------------------------------------------------------------
def _deformable_offsets(x, offsets, kernel, strides, pads, dilations, deformable_groups, modulated, op,
                        names=("x", "offsets")):
    """Sample ``x`` at every kernel tap moved by its offset: ``(N, C, H_out * kh, W_out * kw)``.

    ``offsets`` is ``(N, 3 * deformable_groups * kh * kw, H_out, W_out)``, its channels the
    x offsets, the y offsets and the modulation masks, each block ordered by group, then
    kernel row, then kernel column.  A convolution with stride ``(kh, kw)`` of the result is
    the deformable convolution.
    """
    from .nn_resize import sample_points

    xt = tensor_arg(x, names[0], op)
    ot = tensor_arg(offsets, names[1], op)
    _check_ndim(xt, names[0], op, 4, "(N, C, H, W)")
    _check_ndim(ot, names[1], op, 4, "(N, 3 * deformable_groups * kh * kw, H_out, W_out)")
    _float_operands(xt, ot, op, names)
    if not isinstance(modulated, bool):
        raise TypeError(f"For '{op}', 'modulated' must be a bool, but got {describe(modulated)}")
    if not modulated:
        raise ValueError(f"For '{op}', only 'modulated=True' (deformable convolution v2) is supported")
    dg = _groups(deformable_groups, op, "deformable_groups")
    n, c, h, w = xt.shape
    if c % dg:
        raise ValueError(f"For '{op}', the channels {c} of '{names[0]}' must be divisible by deformable_groups={dg}")
    kh, kw = kernel
    (sh, sw), (dh, dw) = strides, dilations
    top, bottom, left, right = pads
    ho = _nn_ops._out_size(h, kh, sh, dh, top, bottom)
    wo = _nn_ops._out_size(w, kw, sw, dw, left, right)
    if ho < 1 or wo < 1:
        raise ValueError(f"For '{op}', the input of shape {tuple(xt.shape)} is smaller than the kernel {kernel}")
    if tuple(ot.shape) != (n, 3 * dg * kh * kw, ho, wo):
        raise ValueError(f"For '{op}', '{names[1]}' must have shape {(n, 3 * dg * kh * kw, ho, wo)}, but got "
                         f"{ot.shape}")
    if n * c * ho * kh * wo * kw >= _MAX_ELEMENTS:
        raise ValueError(f"For '{op}', the sampled tensor would be too large")
    dtype = np.dtype(str(xt._data.dtype).rsplit(".", 1)[-1])
    parts = _shape.reshape(ot, (n, 3, dg, kh, kw, ho, wo))
    base_y = (np.arange(ho)[:, None] * sh - top + np.arange(kh)[None, :] * dh).reshape(1, ho, kh, 1, 1)
    base_x = (np.arange(wo)[:, None] * sw - left + np.arange(kw)[None, :] * dw).reshape(1, 1, 1, wo, kw)
    shape5 = (n, ho, kh, wo, kw)
    base_y = backend().from_host(np.broadcast_to(base_y, shape5).reshape(-1).astype(dtype))
    base_x = backend().from_host(np.broadcast_to(base_x, shape5).reshape(-1).astype(dtype))
    batch = backend().from_host(np.repeat(np.arange(n, dtype=np.int64), ho * kh * wo * kw))
    cg = c // dg
    outs = []
    for g in range(dg):
        def block(k):
            picked = _shape.gather(_shape.gather(parts, k, 1), g, 1)          # (N, kh, kw, Ho, Wo)
            return _shape.reshape(_shape.transpose(picked, (0, 3, 1, 4, 2)), (-1,))   # (N, Ho, kh, Wo, kw)
        off_x, off_y, mask = block(0), block(1), block(2)
        ys = off_y + wrap(base_y)
        xs = off_x + wrap(base_x)
        channels = _shape.narrow(xt, 1, g * cg, cg)
        rows = _shape.reshape(_shape.transpose(channels, (0, 2, 3, 1)), (-1, cg))
        vals = sample_points(rows, batch, [ys, xs], (h, w), "bilinear")         # (P, cg)
        outs.append(vals * _shape.reshape(mask, (-1, 1)))
    sampled = outs[0] if dg == 1 else _shape.concat(outs, 1)
    sampled = _shape.reshape(sampled, (n, ho * kh, wo * kw, c))
    return _shape.transpose(sampled, (0, 3, 1, 2))


def _four_ints(value, name, op, ones_first=False):
    values = _ints(value, name, op, (4,), 0 if not ones_first else 1)
    if ones_first and values[:2] != (1, 1):
        raise ValueError(f"For '{op}', the N and C entries of '{name}' must be 1, but got {value!r}")
    return values


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1), groups=1,
                      deformable_groups=1, modulated=True):
    """Deformable convolution v2: each kernel tap reads ``x`` at its place moved by a learnt offset, times a mask.

    Parameters
    ----------
    offsets : Tensor (N, 3 * deformable_groups * kh * kw, H_out, W_out)
        The x offsets, y offsets and masks (in that order of channel blocks).
    kernel_size : tuple of 2 ints
    strides, dilations : tuple of 4 ints ``(1, 1, h, w)``
    padding : tuple of 4 ints ``(top, bottom, left, right)``

    The gradient flows to ``x``, ``weight``, ``offsets`` (through the bilinear weights) and ``bias``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.ones((1, 1, 2, 2), np.float32))
    >>> offsets = ms.Tensor(np.concatenate([np.zeros((1, 2, 2, 2)), np.ones((1, 1, 2, 2))], 1).astype(np.float32))
    >>> print(deformable_conv2d(x, ms.Tensor(np.ones((1, 1, 1, 1), np.float32)), offsets, (1, 1), (1, 1, 1, 1),
    ...                         (0, 0, 0, 0)).shape)
    (1, 1, 2, 2)
    """
    op = "deformable_conv2d"
    if not isinstance(kernel_size, (tuple, list)):
        raise TypeError(f"For '{op}', 'kernel_size' must be a tuple of 2 ints, but got {describe(kernel_size)}")
    kernel = _ints(kernel_size, "kernel_size", op, (2,), 1)
    for name, value in (("strides", strides), ("padding", padding), ("dilations", dilations)):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"For '{op}', '{name}' must be a tuple of 4 ints, but got {describe(value)}")
    stride = _four_ints(strides, "strides", op, True)[2:]
    dilation = _four_ints(dilations, "dilations", op, True)[2:]
    pads = _four_ints(padding, "padding", op)
    wt = tensor_arg(weight, "weight", op)
    _check_ndim(wt, "weight", op, 4, "(C_out, C_in / groups, kh, kw)")
    if tuple(wt.shape[2:]) != kernel:
        raise ValueError(f"For '{op}', the kernel of the weight of shape {wt.shape} must equal kernel_size {kernel}")
    sampled = _deformable_offsets(x, offsets, kernel, stride, pads, dilation, deformable_groups, modulated, op)
    return _nn_ops._conv2d(sampled, wt, bias, kernel, (0, 0, 0, 0), (1, 1), _groups(groups, op), op)


class DeformableOffsets(Primitive):
    """``DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format='NCHW', deformable_groups=1,
    modulated=True)(x, offsets)``: the sampling step of :func:`deformable_conv2d`, ``(N, C, H_out * kh, W_out * kw)``."""

    @prim_attr_register
    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW", deformable_groups=1,
                 modulated=True):
        op = "DeformableOffsets"
        self._stride = _four_ints(strides, "strides", op, True)[2:]
        self._pads = _four_ints(pads, "pads", op)
        self._kernel = _ints(ksize, "ksize", op, (2,), 1)
        self._dilation = _four_ints(dilations, "dilations", op, True)[2:]
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format='NCHW' is supported, but got {data_format!r}")

    def __call__(self, x, offsets):
        return _deformable_offsets(x, offsets, self._kernel, self._stride, self._pads, self._dilation,
                                   self.deformable_groups, self.modulated, "DeformableOffsets")
