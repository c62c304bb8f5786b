"""Convolution, pooling, bias and dense layers as functional ops (NCHW).

How ``conv2d`` works here (the classic *im2col* idea): every output pixel
is a dot product between one kernel and one window of the input.  Taking,
for each kernel offset ``(i, j)``, the strided slice of the padded input that
this offset touches gives ``kh * kw`` arrays of the output's size; stacked,
they form a matrix ``cols`` whose product with the reshaped kernel is the
whole convolution.  The gradient runs the same machinery backwards: the
kernel's gradient is ``grad @ cols.T`` and the input's is the product
``W.T @ grad`` added back slice by slice (*col2im*).

Pooling uses the same strided slices: max pooling keeps a running maximum
(and which slice won, for the gradient), average pooling sums them and
divides by each window's count.

This portable code runs on any array namespace (CuPy, array_api_strict):
only the (padded) input is saved for the backward pass, and the window
matrix is rebuilt there.  On NumPy, conv2d and tiled max pooling take the
faster paths in ``_conv_numpy`` and ``_pool_numpy`` (one-copy im2col over
row-flattened images, col2im by row shifts, cached buffers, the winning
corner noted in the forward pass); tests check the two against each other.

>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor(np.ones((1, 1, 4, 4), np.float32))
>>> w = ms.Tensor(np.ones((2, 1, 3, 3), np.float32))
>>> ops.conv2d(x, w).shape
(1, 2, 2, 2)
>>> print(ops.max_pool2d(ms.Tensor(np.arange(16.0).reshape(1, 1, 4, 4)), 2))
[[[[ 5.  7.]
   [13. 15.]]]]
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ._core import backend, float_array, record, tensor_arg, wrap, xp
from . import _conv_numpy, _pool_numpy, conv_grads as _conv_grads, pool_grads as _pool_grads
from .primitive import Primitive, prim_attr_register

__all__ = [
    "conv2d", "max_pool2d", "avg_pool2d", "bias_add", "dense", "linear",
    "Conv2D", "MaxPool", "AvgPool", "BiasAdd", "Dense",
]


# -- argument checking ---------------------------------------------------------------
def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _ints(value, name, op, lengths, minimum):
    """``value`` (an int or a tuple/list whose length is in ``lengths``) as a tuple of ints.

    An int is repeated to the first allowed length.
    """
    if _is_int(value):
        values = (int(value),) * lengths[0]
    elif isinstance(value, (tuple, list)):
        if len(value) not in lengths or not all(_is_int(v) for v in value):
            shapes = " or ".join(f"{n} ints" for n in lengths)
            raise ValueError(f"For '{op}', '{name}' must be an int or a tuple/list of {shapes}, but got {value!r}")
        values = tuple(int(v) for v in value)
    else:
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of ints, but got {type(value).__name__}")
    if any(v < minimum for v in values):
        raise ValueError(f"For '{op}', every value of '{name}' must be >= {minimum}, but got {value!r}")
    if any(v >= 2 ** 31 for v in values):  # window sizes and steps far beyond any tensor
        raise ValueError(f"For '{op}', every value of '{name}' must be less than 2**31, but got {value!r}")
    return values


def _last_pair(values):
    """A 4-tuple written as ``(1, 1, h, w)`` (MindSpore's NCHW attribute form) -> ``(h, w)``."""
    return values[-2:] if len(values) == 4 else values


def _check_4d(t, name, op):
    if t.ndim != 4:
        raise ValueError(f"For '{op}', '{name}' must be a 4-D tensor (N, C, H, W), but got shape {t.shape}")


def _float_pair(a_t, b_t, op, a_name, b_name):
    """The arrays of two float tensors of one dtype (ints become Float32)."""
    A, B = float_array(a_t, op), float_array(b_t, op)
    if A.dtype != B.dtype:
        raise TypeError(
            f"For '{op}', '{a_name}' and '{b_name}' must have the same dtype, "
            f"but got {_dt.dtype_of(A)} and {_dt.dtype_of(B)}"
        )
    return A, B


def _check_mode(pad_mode, allowed, op):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in allowed:
        raise ValueError(f"For '{op}', 'pad_mode' must be one of {list(allowed)}, but got {pad_mode!r}")
    return pad_mode.lower()


# -- array helpers (shared with the gradient ops) ------------------------------------------
_full, _pad, _window_slices = _conv_grads.full, _conv_grads.pad, _conv_grads.window_slices


def _same_pads(size, kernel, stride, dilation):
    """TensorFlow-style 'same' padding: output ceil(size / stride), extra on the far side."""
    out = -(-size // stride)
    total = max((out - 1) * stride + dilation * (kernel - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _out_size(size, kernel, stride, dilation, pad_lo, pad_hi, ceil_mode=False):
    span = size + pad_lo + pad_hi - dilation * (kernel - 1) - 1
    if span < 0:
        return 0
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad_lo:
        out -= 1  # the last window must start inside the input or its leading padding
    return out


# -- convolution ------------------------------------------------------------------------
def _conv2d(input, weight, bias, stride, pads, dilation, groups, op, pad_mode="pad"):
    """Shared body of :func:`conv2d` and :class:`Conv2D` (``pads`` may be 'same')."""
    xt = tensor_arg(input, "input", op)
    wt = tensor_arg(weight, "weight", op)
    _check_4d(xt, "input", op)
    _check_4d(wt, "weight", op)
    if not _is_int(groups) or groups < 1:
        raise ValueError(f"For '{op}', 'groups' must be a positive int, but got {groups!r}")
    X, W = _float_pair(xt, wt, op, "input", "weight")
    n, c, h, w = X.shape
    o, cg, kh, kw = W.shape
    if c != cg * groups:
        raise ValueError(
            f"For '{op}', the input of shape {tuple(X.shape)} has {c} channels but the weight of shape "
            f"{tuple(W.shape)} with "
            f"groups={groups} expects {cg * groups} (weight.shape[1] * groups)"
        )
    if o % groups:
        raise ValueError(f"For '{op}', the weight's {o} output channels cannot be split into groups={groups}")
    if kh < 1 or kw < 1:
        raise ValueError(f"For '{op}', the weight's kernel must be at least 1x1, but the weight has shape "
                         f"{tuple(W.shape)}")
    if pad_mode == "same":
        pads = _same_pads(h, kh, stride[0], dilation[0]) + _same_pads(w, kw, stride[1], dilation[1])
    top, bottom, left, right = pads
    ho = _out_size(h, kh, stride[0], dilation[0], top, bottom)
    wo = _out_size(w, kw, stride[1], dilation[1], left, right)
    if ho < 1 or wo < 1:
        raise ValueError(
            f"For '{op}', the input of shape {tuple(X.shape)}, padded to ({h + top + bottom}, {w + left + right}), "
            f"is smaller than the kernel {(kh, kw)} dilated by {tuple(dilation)}: "
            f"({dilation[0] * (kh - 1) + 1}, {dilation[1] * (kw - 1) + 1})"
        )
    bt = None
    if bias is not None:
        bt = tensor_arg(bias, "bias", op)
        if bt.shape != (o,):
            raise ValueError(f"For '{op}', 'bias' must have shape ({o},) to match the weight of shape "
                             f"{tuple(W.shape)}, but got {bt.shape}")
    recording = _ag._depth != 0 and (xt._node is not None or wt._node is not None or
                                     (bt is not None and bt._node is not None))
    x = xp()
    B = None
    if bt is not None:
        B = bt._data if bt._data.dtype == X.dtype else x.astype(bt._data, X.dtype)
    geometry = _conv_grads.ConvGeometry(X.shape, W.shape, pads, stride, dilation, groups, ho, wo)
    cols = None
    if backend().is_numpy:
        plan = _conv_numpy.Plan(X.shape, W.shape, pads, stride, dilation, groups, ho, wo)
        out, cols = _conv_numpy.forward(X, W, B, plan)
        if not recording:
            return wrap(out)
        geometry.numpy_plan = plan
        if wt._node is None:
            cols = None  # only the weight's gradient needs the windows
    else:
        out = _conv_grads.conv_forward_array(X, W, geometry)
        if B is not None:
            out = out + x.reshape(B, (1, o, 1, 1))
        if not recording:
            return wrap(out)
    # The window matrix (NumPy) makes the weight's gradient one product; the input and the
    # weight themselves let a gradient of the gradient be taken (see conv_grads).
    # The window matrix (NumPy) makes the weight's gradient one product.  A gradient of the gradient needs
    # the input itself (see conv_grads): it is kept only when two transforms record (keeping it always
    # would hold each layer's input until backward, about 5% of a LeNet step).
    keep_input = cols is None or _ag._depth >= 2
    return record(out, "Conv2D", _conv2d_rule, (xt, wt, bt), (cols, X if keep_input else None, W), (None, 0, 1),
                  geometry)


def _conv2d_rule(m, node, g):
    """Input and weight gradients are the convolution's two adjoints (see :mod:`.conv_grads`)."""
    cols, X, W = node.unpack(m)
    geometry = node.info
    need_x, need_w = node.inputs[0] is not None, node.inputs[1] is not None
    gx, gw = m.call(_conv_grads.backward_arrays, _conv_grads.backward_ops, g, cols, X, W, geometry, need_x, need_w)
    gb = m.sum(g, axis=(0, 2, 3)) if node.inputs[2] is not None else None
    return gx, gw, gb


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D cross-correlation of an NCHW ``input`` with an ``(C_out, C_in / groups, kh, kw)`` ``weight``.

    Parameters
    ----------
    stride, dilation : int or tuple of 2 ints
    pad_mode : {'valid', 'same', 'pad'}
        ``'valid'``: no padding, windows that do not fit are dropped;
        ``'same'``: output size ``ceil(input / stride)``, padding split evenly with
        any odd pixel on the bottom/right; ``'pad'``: zero padding given by ``padding``.
    padding : int, tuple of 2 ints or tuple of 4 ints
        With ``pad_mode='pad'``: an int pads all four sides, ``(ph, pw)`` pads top and
        bottom by ``ph`` and left and right by ``pw``.  Must be 0 for other modes.
        cellkit also takes ``(top, bottom, left, right)``, as the ``Conv2D``
        primitive and ``nn.Conv2d`` do (MindSpore's functional form refuses it).
    groups : int
        Input and output channels are split into this many independent groups.

    Raises
    ------
    ValueError
        Bad shapes, channel counts, paddings or modes.
    TypeError
        Mixed dtypes, or arguments of the wrong type.

    >>> import cellkit as ms
    >>> x = ms.Tensor(np.arange(16.0, dtype=np.float32).reshape(1, 1, 4, 4))
    >>> print(conv2d(x, ms.Tensor(np.ones((1, 1, 2, 2), np.float32)), stride=2))
    [[[[10. 18.]
       [42. 50.]]]]
    """
    op = "conv2d"
    mode = _check_mode(pad_mode, ("valid", "same", "pad"), op)
    stride = _ints(stride, "stride", op, (2,), 1)
    dilation = _ints(dilation, "dilation", op, (2,), 1)
    pads = _ints(padding, "padding", op, (2, 4), 0)
    if len(pads) == 2:
        pads = (pads[0], pads[0], pads[1], pads[1])
    if mode != "pad" and any(pads):
        raise ValueError(f"For 'conv2d', 'padding' must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}")
    return _conv2d(input, weight, bias, stride, pads, dilation, groups, op, mode)


# -- pooling ------------------------------------------------------------------------------
def _pool_geometry(X, kernel, stride, dilation, pads, ceil_mode, op):
    """Output size and the extra bottom/right padding ``ceil_mode`` may need."""
    h, w = X.shape[2], X.shape[3]
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    top, bottom, left, right = pads
    ho = _out_size(h, kh, sh, dh, top, bottom, ceil_mode)
    wo = _out_size(w, kw, sw, dw, left, right, ceil_mode)
    if ho < 1 or wo < 1:
        raise ValueError(
            f"For '{op}', the input of shape {tuple(X.shape)}, padded to ({h + top + bottom}, {w + left + right}), "
            f"is smaller than the kernel {(kh, kw)}" + (f" dilated by {(dh, dw)}" if (dh, dw) != (1, 1) else "")
            + f": ({dh * (kh - 1) + 1}, {dw * (kw - 1) + 1})"
        )
    extra_h = max((ho - 1) * sh + dh * (kh - 1) + 1 - (h + top + bottom), 0)
    extra_w = max((wo - 1) * sw + dw * (kw - 1) + 1 - (w + left + right), 0)
    return ho, wo, (top, bottom + extra_h, left, right + extra_w)


def _lowest(array):
    x = xp()
    if _dt.dtype_of(array).kind == "float":
        return -float("inf")
    return int(x.iinfo(array.dtype).min)


def _max_pool(xt, kernel, stride, dilation, pads, ceil_mode, return_indices, op):
    X = xt._data
    if _dt.dtype_of(X) is _dt.bool_:
        X = float_array(xt, op)
    ho, wo, full_pads = _pool_geometry(X, kernel, stride, dilation, pads, ceil_mode, op)
    Xp = _pad(X, full_pads, _lowest(X))
    x = xp()
    recording = _ag._depth != 0 and xt._node is not None
    if (backend().is_numpy and tuple(kernel) == tuple(stride) and tuple(dilation) == (1, 1)
            and not any(full_pads)):
        return _max_pool_tiles(xt, X, kernel, ho, wo, recording, return_indices, stride, dilation)
    need_arg = recording or return_indices
    is_float = _dt.dtype_of(X).kind == "float"
    best = arg = None
    slices = list(_window_slices(*kernel, *stride, *dilation, ho, wo))
    for k, (rs, cs) in enumerate(slices):
        s = Xp[:, :, rs, cs]
        if best is None:
            best = s
            if need_arg:
                arg = x.zeros(s.shape, dtype=x.int64) if backend().is_numpy else \
                    x.zeros(s.shape, dtype=x.int64, device=s.device)
            continue
        if not need_arg:
            best = x.maximum(best, s)
            continue
        better = s > best
        if is_float:  # NaN wins, as in MindSpore and PyTorch
            better = better | (x.isnan(s) & ~x.isnan(best))
        best = x.maximum(best, s)
        arg = arg + x.astype(better, x.int64) * (k - arg)  # integer blend: exact, and no branch per element
    if len(slices) == 1:  # a 1x1 window: the slice is a view of the input, so copy it
        best = x.asarray(best, copy=True)
    if recording:
        plan = _pool_grads.MaxPoolPlan(False, kernel, X.shape, best.shape, slices, full_pads, Xp.shape)
        out = record(best, "MaxPool", _max_pool_rule, (xt,), (arg,), (None,), plan)
    else:
        out = wrap(best)
    if not return_indices:
        return out
    indices = _window_to_flat(arg, kernel, stride, dilation, full_pads, X.shape[3])
    return out, wrap(indices)


def _max_pool_rule(m, node, g):
    """Each output gradient goes to its window's winner (the winners are constants)."""
    (winners,) = node.unpack(m)
    plan = node.info
    return (m.call(plan.scatter, lambda t, w: _pool_grads.max_pool_scatter(t, w, plan), g, winners),)


def _max_pool_tiles(xt, X, kernel, ho, wo, recording, return_indices, stride, dilation):
    """NumPy fast path for windows that tile the input (kernel == stride, no padding or dilation).

    See :mod:`cellkit.ops._pool_numpy`: the maximum of the tiles' corners,
    and for the gradient (and the indices) the first corner holding it.
    """
    best, winner = _pool_numpy.forward(X, kernel, ho, wo, recording or return_indices)
    if recording:
        plan = _pool_grads.MaxPoolPlan(True, kernel, X.shape, best.shape)
        out = record(best, "MaxPool", _max_pool_rule, (xt,), (winner,), (None,), plan)
    else:
        out = wrap(best)
    if not return_indices:
        return out
    indices = _window_to_flat(winner.astype(np.int64), kernel, stride, dilation, (0, 0, 0, 0), X.shape[3])
    return out, wrap(indices)


def _window_to_flat(arg, kernel, stride, dilation, pads, width):
    """Window positions (which kernel offset won) -> flat indices into each input plane."""
    x = xp()
    be = backend()
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = arg.shape[2], arg.shape[3]
    rows = np.arange(ho, dtype=np.int64).reshape(ho, 1) * sh - pads[0]
    cols = np.arange(wo, dtype=np.int64).reshape(1, wo) * sw - pads[2]
    rows, cols = be.from_host(rows), be.from_host(cols)
    return (rows + (arg // kw) * dh) * width + cols + (arg % kw) * dw


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """2-D max pooling over an NCHW tensor.

    ``stride`` defaults to ``kernel_size``; ``padding`` (an int or ``(ph, pw)``,
    at most half the kernel) pads with ``-inf``.  With ``ceil_mode`` a last,
    partial window is kept when it starts inside the input.  With
    ``return_indices`` the result is ``(values, indices)`` where ``indices``
    (Int64) are flat positions ``row * W + col`` in each input plane.  The
    gradient goes to the first maximum of each window.

    >>> import cellkit as ms
    >>> out, idx = max_pool2d(ms.Tensor(np.arange(16.0).reshape(1, 1, 4, 4)), 2, return_indices=True)
    >>> print(idx)
    [[[[ 5  7]
       [13 15]]]]
    """
    op = "max_pool2d"
    xt = tensor_arg(x, "x", op)
    _check_4d(xt, "x", op)
    kernel = _ints(kernel_size, "kernel_size", op, (2,), 1)
    stride = kernel if stride is None else _ints(stride, "stride", op, (2,), 1)
    dilation = _ints(dilation, "dilation", op, (2,), 1)
    ph, pw = _ints(padding, "padding", op, (2,), 0)
    if ph > kernel[0] // 2 or pw > kernel[1] // 2:
        raise ValueError(
            f"For '{op}', 'padding' must be at most half of 'kernel_size' {kernel}, but got {padding!r}"
        )
    return _max_pool(xt, kernel, stride, dilation, (ph, ph, pw, pw), bool(ceil_mode), bool(return_indices), op)


def _avg_divisor(shape, kernel, stride, pads, ho, wo, count_include_pad, divisor_override):
    """The divisor of every output position: a Python number, or an (Ho, Wo) host array."""
    if divisor_override:
        return divisor_override
    h, w = shape[2], shape[3]
    (kh, kw), (sh, sw) = kernel, stride
    top, bottom, left, right = pads

    def counts(size, k, s, lo, hi, n_out):
        start = np.arange(n_out) * s - lo
        end = np.minimum(start + k, size + hi)
        if count_include_pad:
            return end - start
        return np.minimum(end, size) - np.maximum(start, 0)

    table = np.outer(counts(h, kh, sh, top, bottom, ho), counts(w, kw, sw, left, right, wo))
    first = table.flat[0]
    if (table == first).all():
        return int(first)
    return table


def _avg_pool(xt, kernel, stride, pads, ceil_mode, count_include_pad, divisor_override, op):
    X = float_array(xt, op)
    ho, wo, full_pads = _pool_geometry(X, kernel, stride, (1, 1), pads, ceil_mode, op)
    # The divisor follows the padding the caller asked for, not the ceil_mode extra.
    divisor = _avg_divisor(X.shape, kernel, stride, pads, ho, wo, count_include_pad, divisor_override)
    if not isinstance(divisor, int):
        divisor = backend().from_host(divisor.astype(np.dtype(str(X.dtype).rsplit(".", 1)[-1])))
    slices = list(_window_slices(*kernel, *stride, 1, 1, ho, wo))
    h, w = X.shape[2], X.shape[3]
    padded_shape = (X.shape[0], X.shape[1], h + full_pads[0] + full_pads[1], w + full_pads[2] + full_pads[3])
    plan = _pool_grads.AvgPoolPlan(slices, divisor, full_pads, padded_shape, X.shape)
    out = plan.forward(X)
    if _ag._depth == 0 or xt._node is None:
        return wrap(out)
    return record(out, "AvgPool", _pool_grads._avg_rule, (xt,), info=plan)


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """2-D average pooling over an NCHW tensor.

    ``padding`` is an int or ``(top, bottom, left, right)`` (zeros; the two pads of
    one axis may not exceed the kernel).  ``count_include_pad`` decides whether
    padded positions count in the divisor; ``divisor_override`` (if not 0)
    replaces the divisor.  Note ``stride`` defaults to 1, as in MindSpore.

    >>> import cellkit as ms
    >>> print(avg_pool2d(ms.Tensor(np.arange(16.0).reshape(1, 1, 4, 4)), 2, 2))
    [[[[ 2.5  4.5]
       [10.5 12.5]]]]
    """
    op = "avg_pool2d"
    xt = tensor_arg(input_x, "input_x", op)
    _check_4d(xt, "input_x", op)
    kernel = _ints(kernel_size, "kernel_size", op, (2,), 1)
    stride = _ints(stride, "stride", op, (2,), 1)
    pads = _ints(padding, "padding", op, (4,), 0)
    if pads[0] + pads[1] > kernel[0] or pads[2] + pads[3] > kernel[1]:
        raise ValueError(
            f"For '{op}', the paddings of one axis must not add up to more than 'kernel_size' {kernel}, "
            f"but got padding={padding!r}"
        )
    if not _is_int(divisor_override) or divisor_override < 0:
        raise ValueError(f"For '{op}', 'divisor_override' must be a non-negative int, but got {divisor_override!r}")
    return _avg_pool(xt, kernel, stride, pads, bool(ceil_mode), bool(count_include_pad), int(divisor_override), op)


# -- bias and dense ---------------------------------------------------------------------
def _bias_add(input_x, bias, channel_axis, op):
    xt = tensor_arg(input_x, "input_x", op)
    bt = tensor_arg(bias, "bias", op)
    if not 2 <= xt.ndim <= 5:
        raise ValueError(f"For '{op}', 'input_x' must have 2 to 5 dimensions, but got shape {xt.shape}")
    axis = channel_axis % xt.ndim
    channels = xt.shape[axis]
    if bt.shape != (channels,):
        raise ValueError(
            f"For '{op}', 'bias' must have shape ({channels},) to match axis {axis} of 'input_x' "
            f"{xt.shape}, but got {bt.shape}"
        )
    X, B = _float_pair(xt, bt, op, "input_x", "bias") if xt.dtype.kind == "float" or bt.dtype.kind == "float" \
        else (xt._data, bt._data)
    x = xp()
    shape = [1] * xt.ndim
    shape[axis] = channels
    out = X + x.reshape(B, tuple(shape))
    if _ag._depth == 0 or (xt._node is None and bt._node is None):
        return wrap(out)
    return record(out, "BiasAdd", _bias_add_rule, (xt, bt), info=tuple(i for i in range(xt.ndim) if i != axis))


def _bias_add_rule(m, node, g):
    return (g, m.sum(g, axis=node.info) if node.inputs[1] is not None else None)


def bias_add(input_x, bias):
    """Add a per-channel ``bias`` of shape ``(C,)`` along axis 1 of a 2-D to 5-D ``input_x``.

    >>> import cellkit as ms
    >>> print(bias_add(ms.Tensor(np.zeros((2, 3), np.float32)), ms.Tensor([1.0, 2.0, 3.0])))
    [[1. 2. 3.]
     [1. 2. 3.]]
    """
    return _bias_add(input_x, bias, 1, "bias_add")


def dense(input, weight, bias=None):
    """``input @ weight.T + bias``: a fully connected layer.

    ``weight`` has shape ``(out_features, in_features)`` (or ``(in_features,)``,
    which contracts the last axis away); ``input`` has any number of leading axes.

    >>> import cellkit as ms
    >>> x = ms.Tensor([[1.0, 2.0]])
    >>> w = ms.Tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    >>> print(dense(x, w, ms.Tensor([0.5, 0.5, 0.5])))
    [[1.5 3.5 4.5]]
    """
    if _ag._depth == 0 and _backend._current.is_numpy:
        out = _dense_numpy_fast(input, weight, bias)
        if out is not None:
            return wrap(out)
    op = "dense"
    xt = tensor_arg(input, "input", op)
    wt = tensor_arg(weight, "weight", op)
    if xt.ndim < 1 or wt.ndim not in (1, 2):
        raise ValueError(
            f"For '{op}', 'input' must have at least 1 dimension and 'weight' 1 or 2, "
            f"but got shapes {xt.shape} and {wt.shape}"
        )
    X, W = _float_pair(xt, wt, op, "input", "weight")
    if X.shape[-1] != W.shape[-1]:
        raise ValueError(
            f"For '{op}', the last dimension of 'input' {xt.shape} must equal the last dimension of "
            f"'weight' {wt.shape} (in_features)"
        )
    x = xp()
    vector_w = W.ndim == 1
    W2 = x.reshape(W, (1, W.shape[0])) if vector_w else W
    out = x.matmul(X, x.matrix_transpose(W2))
    if out.dtype != X.dtype:  # NumPy computes bfloat16 products in float32
        out = x.astype(out, X.dtype)
    bt = None
    if bias is not None:
        bt = tensor_arg(bias, "bias", op)
        features = W2.shape[0]
        if bt.ndim > 1 or (bt.ndim == 1 and bt.shape[0] not in (1, features)):
            raise ValueError(f"For '{op}', 'bias' must have shape ({features},) for 'weight' of shape "
                             f"{tuple(W.shape)}, but got {bt.shape}")
        B = bt._data if bt._data.dtype == out.dtype else x.astype(bt._data, out.dtype)
        out = out + B
    if vector_w:
        out = x.reshape(out, tuple(out.shape[:-1]))
    if _ag._depth == 0 or (xt._node is None and wt._node is None and (bt is None or bt._node is None)):
        return wrap(out)
    info = (tuple(W.shape), None if bt is None else tuple(bt._data.shape))
    return record(out, "Dense", _dense_rule, (xt, wt, bt), (X, W), (0, 1), info)


def _dense_rule(m, node, g):
    """``x @ W.T + b``: ``dx = g @ W``, ``dW = g.T @ x`` (over all leading axes), ``db = sum g``."""
    X, W = node.unpack(m)
    w_shape, b_shape = node.info
    W2 = W if len(w_shape) == 2 else m.reshape(W, (1, w_shape[0]))
    g2 = m.reshape(g, (-1, W2.shape[0]))
    gx = gw = gb = None
    if node.inputs[0] is not None:
        gx = m.reshape(m.matmul(g2, W2), X.shape)
    if node.inputs[1] is not None:
        gw = m.reshape(m.matmul(m.mT(g2), m.reshape(X, (-1, X.shape[-1]))), w_shape)
    if node.inputs[2] is not None:
        gb = m.sum_to(m.sum(g2, axis=0), b_shape)
    return gx, gw, gb


linear = dense

# NumPy dtypes the dense fast path handles (the dtype objects of NumPy's own floats are singletons).
_FAST_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)})


def _dense_numpy_fast(input, weight, bias):
    """The common inference case on NumPy, with the fewest Python steps; None if it does not apply.

    A small layer call is dominated by Python overhead, so this path checks
    only what it relies on (2-D float weight, identical dtypes, matching
    sizes, a 1-D bias) and leaves everything else, errors included, to the
    general path.
    """
    try:
        X = input._data
        W = weight._data
        B = None if bias is None else bias._data
    except AttributeError:  # not Tensors: the general path converts or complains
        return None
    if X is None or W is None:  # placeholders: the general path says so
        return None
    dtype = X.dtype
    if (dtype not in _FAST_FLOATS or W.dtype is not dtype or W.ndim != 2 or X.ndim == 0
            or X.shape[-1] != W.shape[1]):
        return None
    if bias is None:
        return X @ W.T
    if B is None or B.dtype is not dtype or B.ndim != 1 or B.shape[0] != W.shape[0]:
        return None
    out = X @ W.T
    out += B  # ``out`` is a fresh array: adding in place saves an allocation
    return out


# -- Primitive classes --------------------------------------------------------------------
class Conv2D(Primitive):
    """``Conv2D(out_channel, kernel_size, ...)(x, weight)``: the primitive form of :func:`conv2d`.

    ``pad`` is an int or ``(top, bottom, left, right)``; ``stride`` and
    ``dilation`` may be an int, ``(h, w)`` or ``(1, 1, h, w)``.  ``mode`` is
    kept for compatibility (1 = cross-correlation, the only mode).

    >>> import cellkit as ms
    >>> conv = Conv2D(out_channel=2, kernel_size=3, pad_mode="same")
    >>> conv(ms.Tensor(np.ones((1, 1, 5, 5), np.float32)), ms.Tensor(np.ones((2, 1, 3, 3), np.float32))).shape
    (1, 2, 5, 5)
    """

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCHW"):
        op = "Conv2D"
        if not _is_int(out_channel) or out_channel < 1:
            raise ValueError(f"For '{op}', 'out_channel' must be a positive int, but got {out_channel!r}")
        self._kernel = _ints(kernel_size, "kernel_size", op, (2,), 1)
        self._mode = _check_mode(pad_mode, ("valid", "same", "pad"), op)
        self._pads = _ints(pad, "pad", op, (4,), 0)
        if self._mode != "pad" and any(self._pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 when pad_mode is {pad_mode!r}, but got {pad!r}")
        self._stride = _last_pair(_ints(stride, "stride", op, (2, 4), 1))
        self._dilation = _last_pair(_ints(dilation, "dilation", op, (2, 4), 1))
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format='NCHW' is supported, but got {data_format!r}")
        if not _is_int(group) or group < 1:
            raise ValueError(f"For '{op}', 'group' must be a positive int, but got {group!r}")

    def __call__(self, x, weight):
        w_shape = tuple(tensor_arg(weight, "weight", "Conv2D").shape)
        if len(w_shape) == 4:
            if w_shape[0] != self.out_channel:
                raise ValueError(
                    f"For 'Conv2D', weight.shape[0] ({w_shape[0]}) must equal out_channel ({self.out_channel})"
                )
            if w_shape[2:] != self._kernel:
                raise ValueError(
                    f"For 'Conv2D', the weight's kernel {w_shape[2:]} must equal kernel_size {self._kernel}"
                )
        return _conv2d(x, weight, None, self._stride, self._pads, self._dilation, self.group, "Conv2D",
                       self._mode)


class _PoolPrimitive(Primitive):
    def _setup(self, kernel_size, strides, pad_mode, data_format, op):
        self._kernel = _last_pair(_ints(kernel_size, "kernel_size", op, (2, 4), 1))
        self._stride = _last_pair(_ints(strides, "strides", op, (2, 4), 1))
        self._mode = _check_mode(pad_mode, ("valid", "same"), op)
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format='NCHW' is supported, but got {data_format!r}")

    def _pads(self, xt):
        if self._mode == "valid":
            return (0, 0, 0, 0)
        h, w = xt.shape[2], xt.shape[3]
        return _same_pads(h, self._kernel[0], self._stride[0], 1) + _same_pads(w, self._kernel[1], self._stride[1], 1)


class MaxPool(_PoolPrimitive):
    """``MaxPool(kernel_size=1, strides=1, pad_mode='valid')(x)``.

    ``pad_mode='same'`` pads (with ``-inf``) so the output is ``ceil(input / strides)``.

    >>> import cellkit as ms
    >>> MaxPool(2, 2)(ms.Tensor(np.ones((1, 1, 5, 5), np.float32))).shape
    (1, 1, 2, 2)
    """

    @prim_attr_register
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        self._setup(kernel_size, strides, pad_mode, data_format, "MaxPool")

    def __call__(self, x):
        xt = tensor_arg(x, "x", "MaxPool")
        _check_4d(xt, "x", "MaxPool")
        return _max_pool(xt, self._kernel, self._stride, (1, 1), self._pads(xt), False, False, "MaxPool")


class AvgPool(_PoolPrimitive):
    """``AvgPool(kernel_size=1, strides=1, pad_mode='valid')(x)``.

    With ``pad_mode='same'`` each window is averaged over its positions inside
    the input only (padding is not counted), as MindSpore does.
    """

    @prim_attr_register
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        self._setup(kernel_size, strides, pad_mode, data_format, "AvgPool")

    def __call__(self, x):
        xt = tensor_arg(x, "x", "AvgPool")
        _check_4d(xt, "x", "AvgPool")
        return _avg_pool(xt, self._kernel, self._stride, self._pads(xt), False, False, 0, "AvgPool")


class BiasAdd(Primitive):
    """``BiasAdd(data_format='NCHW')(x, bias)``; ``'NHWC'`` adds along the last axis."""

    @prim_attr_register
    def __init__(self, data_format="NCHW"):
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAdd', 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', but got {data_format!r}")

    def __call__(self, input_x, bias):
        return _bias_add(input_x, bias, -1 if self.data_format == "NHWC" else 1, "BiasAdd")


class Dense(Primitive):
    """``Dense()(x, weight, bias=None)``: see :func:`dense`."""

    def __call__(self, input, weight, bias=None):
        return dense(input, weight, bias)
