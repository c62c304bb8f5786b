"""``mindspore.mint.nn.functional``: neural-network functions with PyTorch's argument names.

Convolutions take ``padding`` as an int, a tuple (one per spatial dimension) or ``'same'``/``'valid'``;
pooling ``stride`` defaults to ``kernel_size``; ``inplace=True`` writes the result back into ``input``
as well (``relu_``, ``elu_``... always do).

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.mint.nn import functional as F
>>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
>>> print(F.max_pool2d(x, 2).shape, F.avg_pool2d(x, 2).asnumpy().ravel(), F.relu(ms.Tensor([-1.0, 2.0])))
(1, 1, 2, 2) [ 2.5  4.5 10.5 12.5] [0. 2.]
>>> print(F.conv2d(x, ms.Tensor(np.ones((1, 1, 3, 3), np.float32)), padding=1).shape)
(1, 1, 4, 4)
"""
from __future__ import annotations

from ... import ops as _ops
from ...ops import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,  # noqa: F401
                    cosine_embedding_loss, cross_entropy, fold, gelu, grid_sample, group_norm, hardshrink,
                    hardsigmoid, hardswish, interpolate, layer_norm, linear, logsigmoid, mish, mse_loss,
                    pixel_shuffle, prelu, selu, sigmoid, softplus, softshrink, tanh, unfold, upsample)
from ...ops._core import describe
from ...tensor import Tensor
from .._shape import flatten  # noqa: F401
from .._softmax import log_softmax  # noqa: F401

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "cosine_embedding_loss",
           "cross_entropy", "dropout", "dropout2d", "elu", "elu_", "embedding", "flatten", "fold", "gelu", "glu",
           "grid_sample", "group_norm", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_",
           "interpolate", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid",
           "max_pool2d", "max_unpool2d", "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "pad",
           "pixel_shuffle", "prelu", "relu", "relu6", "relu_", "selu", "sigmoid", "sigmoid_", "silu",
           "smooth_l1_loss", "soft_margin_loss", "softmax", "softplus", "softshrink", "tanh", "threshold",
           "threshold_", "unfold", "upsample"]


def _in_place(input, out, inplace, op):
    if not isinstance(inplace, bool):
        raise TypeError(f"For '{op}', 'inplace' must be a bool, but got {describe(inplace)}")
    if inplace:
        from ...ops.inplace import copy_

        copy_(input, out)
        return input
    return out


# ---------------------------------------------------------------- activations
def relu(input, inplace=False):
    """``max(input, 0)``."""
    return _in_place(input, _ops.relu(input), inplace, "relu")


def relu_(input):
    """:func:`relu` written back into ``input``."""
    return relu(input, True)


def relu6(input, inplace=False):
    """``min(max(input, 0), 6)``."""
    return _in_place(input, _ops.relu6(input), inplace, "relu6")


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere."""
    return _in_place(input, _ops.elu(input, alpha), inplace, "elu")


def elu_(input, alpha=1.0):
    """:func:`elu` written back into ``input``."""
    return elu(input, alpha, True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clipped to ``[min_val, max_val]``."""
    return _in_place(input, _ops.hardtanh(input, min_val, max_val), inplace, "hardtanh")


def hardtanh_(input, min_val=-1, max_val=1):
    """:func:`hardtanh` written back into ``input``."""
    return hardtanh(input, min_val, max_val, True)


def leaky_relu(input, negative_slope=0.01):
    """``input`` where positive, ``negative_slope * input`` elsewhere."""
    return _ops.leaky_relu(input, negative_slope)


def silu(input, inplace=False):
    """``input * sigmoid(input)``."""
    return _in_place(input, _ops.silu(input), inplace, "silu")


def sigmoid_(input):
    """:func:`sigmoid` written back into ``input``."""
    return _in_place(input, _ops.sigmoid(input), True, "sigmoid_")


def threshold(input, threshold, value, inplace=False):
    """``input`` where it exceeds ``threshold``, ``value`` elsewhere."""
    return _in_place(input, _ops.threshold(input, threshold, value), inplace, "threshold")


def threshold_(input, threshold, value):
    """:func:`threshold` written back into ``input``."""
    return _in_place(input, _ops.threshold(input, threshold, value), True, "threshold_")


def glu(input, dim=-1):
    """The first half of ``input`` along ``dim`` gated by the sigmoid of the second half."""
    return _ops.glu(input, dim)


def softmax(input, dim=None, dtype=None):
    """``exp(input) / sum(exp(input))`` along ``dim`` (the last when None)."""
    return _ops.softmax(input, -1 if dim is None else dim, dtype=dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    norm = _ops.vector_norm(input, p, dim, True)
    return _ops.div(input, _ops.clamp(norm, min=eps))


# ---------------------------------------------------------------- dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """Elements zeroed with probability ``p`` during training, the rest scaled by ``1 / (1 - p)``."""
    return _in_place(input, _ops.dropout(input, p, training), inplace, "dropout")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Whole channels zeroed with probability ``p`` during training."""
    return _in_place(input, _ops.dropout2d(input, p, training), inplace, "dropout2d")


# ---------------------------------------------------------------- convolution and pooling
def _conv_padding(padding, dims, op):
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"For '{op}', 'padding' must be 'same', 'valid', an int or a tuple, but got {padding!r}")
        return padding, 0
    if isinstance(padding, int) and not isinstance(padding, bool):
        return "pad", padding
    if isinstance(padding, (tuple, list)) and len(padding) == dims:
        pads = tuple(padding)
        return "pad", pads if dims == 1 else tuple(p for p in pads for _ in range(2))
    raise TypeError(f"For '{op}', 'padding' must be a str, an int or a tuple of {dims} ints, but got "
                    f"{describe(padding)}")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of ``input`` (N, C, L) with ``weight`` (out, C / groups, k)."""
    mode, pads = _conv_padding(padding, 1, "conv1d")
    if mode == "pad" and isinstance(pads, tuple):
        pads = pads[0]
    return _ops.conv1d(input, weight, bias, stride, mode, pads, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of ``input`` (N, C, H, W) with ``weight`` (out, C / groups, kh, kw)."""
    mode, pads = _conv_padding(padding, 2, "conv2d")
    return _ops.conv2d(input, weight, bias, stride, mode, pads, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of ``input`` (N, C, D, H, W) with ``weight`` (out, C / groups, kd, kh, kw)."""
    mode, pads = _conv_padding(padding, 3, "conv3d")
    return _ops.conv3d(input, weight, bias, stride, mode, pads, dilation, groups)


def _pair(value, op, name):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return tuple(value)
    raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of 2 ints, but got {describe(value)}")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed 2-D convolution (the gradient of :func:`conv2d` with respect to its input).

    ``weight`` has shape (in_channels, out_channels / groups, kh, kw); each output side is
    ``(in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    op = "conv_transpose2d"
    if not isinstance(input, Tensor) or input.ndim != 4 or not isinstance(weight, Tensor) or weight.ndim != 4:
        raise ValueError(f"For '{op}', 'input' and 'weight' must be 4-D Tensors, but got {describe(input)} and "
                         f"{describe(weight)}")
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = (_pair(v, op, n) for v, n in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    kh, kw = weight.shape[2], weight.shape[3]
    out_channels = weight.shape[1] * groups
    height = (input.shape[2] - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
    width = (input.shape[3] - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    transposed = _ops.Conv2DTranspose(out_channels, (kh, kw), pad_mode="pad", pad=(ph, ph, pw, pw), stride=(sh, sw),
                                      dilation=(dh, dw), group=groups)
    out = transposed(input, weight, (input.shape[0], out_channels, height, width))
    if bias is not None:
        out = _ops.add(out, _ops.reshape(bias, (1, -1, 1, 1)))
    return out


def _stride(stride, kernel_size):
    return kernel_size if stride is None else stride


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window of ``kernel_size`` along the last dimension."""
    return _ops.avg_pool1d(input, kernel_size, _stride(stride, kernel_size), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each ``kernel_size`` window over the last two dimensions."""
    return _ops.avg_pool2d(input, kernel_size, _stride(stride, kernel_size), padding, ceil_mode, count_include_pad,
                           0 if divisor_override is None else divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each ``kernel_size`` window over the last three dimensions."""
    return _ops.avg_pool3d(input, kernel_size, _stride(stride, kernel_size), padding, ceil_mode, count_include_pad,
                           0 if divisor_override is None else divisor_override)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest value of each ``kernel_size`` window (and its flat index with ``return_indices``)."""
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of :func:`max_pool2d`: values put back at ``indices``, zeros elsewhere."""
    return _ops.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The largest value of ``output_size`` windows covering the last dimension."""
    values, indices = _adaptive_max(input, output_size, 1)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The largest value of ``output_size`` windows covering the last two dimensions."""
    return _ops.adaptive_max_pool2d(input, output_size, return_indices)


def _adaptive_max(input, output_size, dims):
    out = _ops.adaptive_max_pool1d(input, output_size)
    if isinstance(out, tuple):
        return out
    return out, None


# ---------------------------------------------------------------- normalisation, embedding, padding
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Batch normalisation; ``weight``/``bias`` default to ones/zeros; running statistics updated in training."""
    channels = input.shape[1] if isinstance(input, Tensor) and input.ndim > 1 else None
    if weight is None and channels is not None:
        weight = _ops.ones((channels,), input.dtype)
    if bias is None and channels is not None:
        bias = _ops.zeros((channels,), input.dtype)
    return _ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """The rows of ``weight`` at the indices ``input`` (``max_norm`` renormalises the rows looked up)."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"For 'embedding', 'input' and 'weight' must be Tensors, but got {describe(input)} and "
                        f"{describe(weight)}")
    rows = _ops.gather(weight, input, 0)
    if max_norm is not None:
        norms = _ops.vector_norm(rows, norm_type, -1, True)
        scale = _ops.where(norms > max_norm, max_norm / (norms + 1e-7), _ops.ones_like(norms))
        rows = _ops.mul(rows, _ops.stop_gradient(scale))
    return rows


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot vectors of ``tensor``'s class indices (``num_classes``: the largest index + 1 when -1)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'one_hot', 'tensor' must be a Tensor, but got {describe(tensor)}")
    if num_classes == -1:
        num_classes = int(_ops.amax(tensor).item()) + 1
    from ...dtype import int64

    return _ops.one_hot(_ops.cast(tensor, int64), num_classes, _ops.ones((), int64), _ops.zeros((), int64))


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad`` (pairs for the last dimensions first); ``mode`` constant/reflect/replicate/circular."""
    return _ops.pad(input, pad, mode, value)


# ---------------------------------------------------------------- losses
def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """Binary cross entropy of probabilities ``input`` against ``target``."""
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, computed stably."""
    if weight is None and isinstance(input, Tensor):
        weight = _ops.ones_like(input)
    if pos_weight is None and isinstance(input, Tensor):
        pos_weight = _ops.ones_like(input)
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` (``input`` holds log-probabilities), reduced."""
    if log_target:
        target = _ops.exp(target)
    return _ops.kl_div(input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    """``|input - target|``, reduced."""
    return _ops.l1_loss(input, target, reduction)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """The negative log-likelihood of the classes ``target`` under log-probabilities ``input``."""
    return _ops.nll_loss(input, target, weight, ignore_index, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above, reduced."""
    return _ops.smooth_l1_loss(input, target, beta, reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))``, reduced."""
    loss = _ops.softplus(_ops.neg(_ops.mul(target, input)))
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"For 'soft_margin_loss', 'reduction' must be 'mean', 'sum' or 'none', but got {reduction!r}")
