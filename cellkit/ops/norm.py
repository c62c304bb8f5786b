"""Batch and layer normalization, with their gradients.

Both standardise ``x`` to ``x_hat = (x - mean) / sqrt(var + eps)`` and then
scale and shift it (``weight * x_hat + bias``); they differ in which axes
the statistics are taken over: every axis except the channels (batch norm)
or the trailing ``normalized_shape`` axes (layer norm).

In training, :func:`batch_norm` also updates the running statistics *in
place*, MindSpore's way::

    running = (1 - momentum) * running + momentum * batch_statistic

with the *unbiased* batch variance for ``running_var`` (the normalisation
itself uses the biased one).  The update rebinds the running tensors' data
and is never recorded for autograd.

Both are *fused* ops: one node whose rule uses the normalised ``x_hat`` and
``1 / std`` kept from the forward pass.  Those are constants to the rule, so
when a second derivative may be taken (``autograd.higher_order``) the same
forward text (:func:`_normalize`, written in the rule namespace) runs on
Tensors instead, and the op is recorded as its simpler steps.

>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor([[1.0, 2.0], [3.0, 6.0]])
>>> rm, rv = ms.Tensor([0.0, 0.0]), ms.Tensor([1.0, 1.0])
>>> y = ops.batch_norm(x, rm, rv, ms.Tensor([1.0, 1.0]), ms.Tensor([0.0, 0.0]), training=True)
>>> print(rm)
[0.2 0.4]
>>> print(ops.layer_norm(ms.Tensor([[1.0, 3.0]]), (2,)))
[[-0.999995  0.999995]]
"""
from __future__ import annotations

import numbers

from .. import autograd as _ag
from .. import backend as _backend
from .. import batching as _batching
from .. import dtype as _dt
from .. import recompute as _rc
from ..tensor import Tensor
from ._core import float_array, normalize_axis, record, tensor_arg, wrap, xp
from . import _rule_math
from ._rule_math import array_math
from .creation import cast
from .primitive import Primitive, prim_attr_register

__all__ = ["batch_norm", "layer_norm", "BatchNorm", "LayerNorm"]


def _check_float(value, name, op, low, high, low_open):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(value).__name__}")
    ok = (low < value if low_open else low <= value) and value <= high
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"For '{op}', '{name}' must be in {interval}, but got {value}")
    return float(value)


def _param_array(value, name, op, shape, dtype, source=None):
    """The array of an optional per-feature tensor, checked against ``shape`` (taken from ``source``: a
    ``(name, shape)`` pair the message names)."""
    if value is None:
        return None, None
    t = tensor_arg(value, name, op)
    if tuple(t.shape) != tuple(shape):
        where = f" for '{source[0]}' of shape {tuple(source[1])}" if source else ""
        raise ValueError(f"For '{op}', '{name}' must have shape {tuple(shape)}{where}, but got {t.shape}")
    a = t._data
    if a.dtype != dtype:
        a = xp().astype(a, dtype)
    return t, a


def _on_tape(t):
    return t is not None and t._node is not None


# -- batch norm -----------------------------------------------------------------------------
def _batch_norm(input_x, running_mean, running_var, weight, bias, training, momentum, eps, op):
    """Returns ``(output Tensor, batch_mean array or None, batch_var array or None)``."""
    if not isinstance(training, bool):
        raise TypeError(f"For '{op}', 'training' must be a bool, but got {type(training).__name__}")
    momentum = _check_float(momentum, "momentum", op, 0.0, 1.0, False)
    eps = _check_float(eps, "eps", op, 0.0, 1.0, True)
    xt = tensor_arg(input_x, "input_x", op)
    if xt.ndim < 2:
        raise ValueError(f"For '{op}', 'input_x' must have at least 2 dimensions (N, C, ...), but got shape {xt.shape}")
    X = float_array(xt, op)
    channels = X.shape[1]
    per_channel = (channels,)
    wt, W = _param_array(weight, "weight", op, per_channel, X.dtype, ("input_x", X.shape))
    bt, B = _param_array(bias, "bias", op, per_channel, X.dtype, ("input_x", X.shape))
    stats = []
    for value, name in ((running_mean, "running_mean"), (running_var, "running_var")):
        if value is None:
            if not training:
                raise ValueError(f"For '{op}', '{name}' is required when training=False")
            stats.append(None)
            continue
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor or Parameter, but got {type(value).__name__}")
        if value.shape != per_channel:
            raise ValueError(f"For '{op}', '{name}' must have shape {per_channel} for 'input_x' of shape "
                             f"{tuple(X.shape)}, but got {value.shape}")
        stats.append(value)
    rm_t, rv_t = stats

    axes = (0,) + tuple(range(2, X.ndim))
    bshape = (1, channels) + (1,) * (X.ndim - 2)
    count = X.size // channels
    if training and count < 2:
        raise ValueError(
            f"For '{op}', training needs more than one value per channel to compute a variance, "
            f"but the input has shape {xt.shape}"
        )
    eval_inputs = () if training else (rm_t, rv_t)
    if _ag.higher_order(xt, wt, bt, *eval_inputs):
        out, mean, var = _batch_norm_composite(xt, X, wt, bt, rm_t, rv_t, axes, bshape, eps, training)
    else:
        m = array_math(_backend._current)
        stats = (None, None) if training else (_as_dtype(rm_t._data, X.dtype), _as_dtype(rv_t._data, X.dtype))
        out, mean, var, x_hat, rstd = _normalize(m, X, W, B, *stats, axes, bshape, eps)
    batch_stats = (None, None)
    if training:
        x = xp()
        mean, var = x.reshape(mean, (channels,)), x.reshape(var, (channels,))
        if not (_rc._regions and _rc.replaying()):  # a recompute replay must not count the batch twice
            _update_running(rm_t, mean, momentum)
            _update_running(rv_t, var * (count / (count - 1)), momentum)
        batch_stats = (mean, var)
    if not isinstance(out, Tensor):
        if _ag._depth == 0 or not any(_on_tape(t) for t in (xt, wt, bt) + eval_inputs):
            return wrap(out), batch_stats
        out = record(out, "BatchNorm", _batch_norm_rule, (xt, wt, bt) + eval_inputs,
                     (x_hat, rstd, W), (None, None, None), (axes, bshape, training))
    return out, batch_stats


def _normalize(m, X, W, B, mean, var, axes, shape, eps):
    """``(x - mean) / sqrt(var + eps) * W + B`` in namespace ``m``; batch statistics when ``mean`` is None.

    Returns ``(out, mean, var, x_hat, rstd)``, the statistics with their axes kept.
    ``W``, ``B``, ``mean`` and ``var`` are reshaped to ``shape`` (per channel),
    or used as they are when ``shape`` is None (layer norm).
    """
    if mean is None:
        mean = m.mean(X, axis=axes, keepdims=True)
        centered = X - mean
        var = m.mean(centered * centered, axis=axes, keepdims=True)
    else:
        if shape is not None:
            mean, var = m.reshape(mean, shape), m.reshape(var, shape)
        centered = X - mean
    rstd = 1 / m.sqrt(var + eps)
    x_hat = centered * rstd
    out = x_hat
    if W is not None:
        out = out * (W if shape is None else m.reshape(W, shape))
    if B is not None:
        out = out + (B if shape is None else m.reshape(B, shape))
    return out, mean, var, x_hat, rstd


def _float_like(t, dtype):
    """A Tensor input as the backend ``dtype`` (recorded, so its gradient flows back), or None."""
    return None if t is None else cast(t, _dt.dtype_of_array_dtype(dtype))


def _batch_norm_composite(xt, X, wt, bt, rm_t, rv_t, axes, bshape, eps, training):
    """Batch norm recorded step by step (for a gradient of a gradient); returns arrays of the statistics."""
    m = _rule_math.TENSOR_MATH
    x_t = _float_like(xt, X.dtype)
    stats = (None, None) if training else (_float_like(rm_t, X.dtype), _float_like(rv_t, X.dtype))
    out, mean, var, _, _ = _normalize(m, x_t, _float_like(wt, X.dtype), _float_like(bt, X.dtype), *stats,
                                      axes, bshape, eps)
    return out, mean._data, var._data


def _batch_norm_rule(m, node, g):
    """The batch-norm backward from the kept ``x_hat`` and ``1 / std`` (first order)."""
    x_hat, rstd, W = node.unpack(m)
    axes, bshape, training = node.info
    inputs = node.inputs
    gw = m.sum(g * x_hat, axis=axes) if inputs[1] is not None else None
    gb = m.sum(g, axis=axes) if inputs[2] is not None else None
    g_hat = g if W is None else g * m.reshape(W, bshape)
    if training:
        # x_hat depends on x through the batch mean and variance as well.
        mean_g = m.mean(g_hat, axis=axes, keepdims=True)
        mean_gx = m.mean(g_hat * x_hat, axis=axes, keepdims=True)
        return (g_hat - mean_g - x_hat * mean_gx) * rstd, gw, gb
    gx = g_hat * rstd if inputs[0] is not None else None
    g_mean = -m.reshape(m.sum(g_hat, axis=axes, keepdims=True) * rstd, (-1,)) if inputs[3] is not None else None
    g_var = (m.reshape(m.sum(g_hat * x_hat, axis=axes, keepdims=True) * rstd * rstd * -0.5, (-1,))
             if inputs[4] is not None else None)
    return gx, gw, gb, g_mean, g_var


def _as_dtype(a, dtype):
    return a if a.dtype == dtype else xp().astype(a, dtype)


def _update_running(t, batch_value, momentum):
    """``t = (1 - momentum) * t + momentum * batch_value``, in place and off the tape."""
    if t is None:
        return
    if _batching.is_batched(batch_value):  # running statistics are not per example: vmap runs one at a time
        raise _batching.Unbatchable("batch-norm running statistics cannot be updated from a batched value")
    current = t._data
    new = current * (1 - momentum) + _as_dtype(batch_value, current.dtype) * momentum
    t._data = _as_dtype(new, current.dtype)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-05):
    """Batch normalization over every axis of ``(N, C, ...)`` except the channel axis 1.

    Parameters
    ----------
    running_mean, running_var : Tensor or Parameter of shape (C,)
        Used for normalising when ``training=False``; updated in place
        (``(1 - momentum) * running + momentum * batch``, unbiased variance)
        when ``training=True``.
    weight, bias : Tensor of shape (C,) or None
        The affine scale and shift (``None``: 1 and 0).
    momentum : float in [0, 1]
    eps : float in (0, 1]

    Raises
    ------
    ValueError
        Wrong shapes, a momentum or eps out of range, or a single value per
        channel in training.
    TypeError
        ``training`` not a bool, or running statistics that are not Tensors.

    >>> import cellkit as ms
    >>> x = ms.Tensor([[1.0], [3.0]])
    >>> print(batch_norm(x, ms.Tensor([2.0]), ms.Tensor([1.0]), ms.Tensor([1.0]), ms.Tensor([0.0])))
    [[-0.999995]
     [ 0.999995]]
    """
    return _batch_norm(input_x, running_mean, running_var, weight, bias, training, momentum, eps,
                       "batch_norm")[0]


# -- layer norm --------------------------------------------------------------------------------
def _layer_norm(xt, begin_axis, params_axis, weight, bias, eps, op):
    """Normalise over axes ``begin_axis:``; weight/bias cover axes ``params_axis:``.

    Returns ``(output Tensor, mean array, variance array)`` (statistics keep their axes).
    """
    X = float_array(xt, op)
    ndim = X.ndim
    axes = tuple(range(begin_axis, ndim))
    param_shape = tuple(X.shape[params_axis:])
    wt, W = _param_array(weight, "weight", op, param_shape, X.dtype, ("input", X.shape))
    bt, B = _param_array(bias, "bias", op, param_shape, X.dtype, ("input", X.shape))
    if _ag.higher_order(xt, wt, bt):
        m = _rule_math.TENSOR_MATH
        out, mean, var, _, _ = _normalize(m, _float_like(xt, X.dtype), _float_like(wt, X.dtype),
                                          _float_like(bt, X.dtype), None, None, axes, None, eps)
        return out, mean._data, var._data
    out, mean, var, x_hat, rstd = _normalize(array_math(_backend._current), X, W, B, None, None, axes, None, eps)
    if _ag._depth == 0 or not any(_on_tape(t) for t in (xt, wt, bt)):
        return wrap(out), mean, var
    return record(out, "LayerNorm", _layer_norm_rule, (xt, wt, bt), (x_hat, rstd, W), (None, None, None),
                  (axes, tuple(range(params_axis)))), mean, var


def _layer_norm_rule(m, node, g):
    """The layer-norm backward from the kept ``x_hat`` and ``1 / std`` (first order)."""
    x_hat, rstd, W = node.unpack(m)
    axes, lead = node.info
    gw = m.sum(g * x_hat, axis=lead) if node.inputs[1] is not None else None
    gb = m.sum(g, axis=lead) if node.inputs[2] is not None else None
    gx = None
    if node.inputs[0] is not None:
        g_hat = g if W is None else g * W
        mean_g = m.mean(g_hat, axis=axes, keepdims=True)
        mean_gx = m.mean(g_hat * x_hat, axis=axes, keepdims=True)
        gx = (g_hat - mean_g - x_hat * mean_gx) * rstd
    return gx, gw, gb


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Layer normalization over the trailing axes given by ``normalized_shape``.

    ``weight`` and ``bias`` (optional) must have shape ``normalized_shape``.

    Raises
    ------
    ValueError
        If ``normalized_shape`` does not match the input's trailing shape, or
        ``weight``/``bias`` have another shape.

    >>> import cellkit as ms
    >>> print(layer_norm(ms.Tensor([[0.0, 2.0], [1.0, 1.0]]), 2))
    [[-0.999995  0.999995]
     [ 0.        0.      ]]
    """
    op = "layer_norm"
    xt = tensor_arg(input, "input", op)
    if isinstance(normalized_shape, bool):
        raise TypeError(f"For '{op}', 'normalized_shape' must be an int or a tuple of ints, but got bool")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    if not isinstance(normalized_shape, (tuple, list)) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in normalized_shape):
        raise TypeError(
            f"For '{op}', 'normalized_shape' must be an int or a tuple of ints, but got {normalized_shape!r}"
        )
    shape = tuple(normalized_shape)
    k = len(shape)
    if k == 0 or k > xt.ndim or tuple(xt.shape[xt.ndim - k:]) != shape:
        raise ValueError(
            f"For '{op}', 'normalized_shape' {shape} must equal the trailing dimensions of the input "
            f"shape {xt.shape}"
        )
    if not isinstance(eps, numbers.Real) or isinstance(eps, bool) or eps < 0:
        raise ValueError(f"For '{op}', 'eps' must be a non-negative float, but got {eps!r}")
    begin = xt.ndim - k
    return _layer_norm(xt, begin, begin, weight, bias, float(eps), op)[0]


# -- Primitive classes ------------------------------------------------------------------------
class BatchNorm(Primitive):
    """``BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1)(x, scale, bias, mean, variance)``.

    Returns five tensors ``(y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2)``.  In training the batch statistics (variance biased)
    fill the last four and ``mean``/``variance`` are updated in place as in
    :func:`batch_norm`; in inference the last four are zeros, as MindSpore's
    CPU kernel returns.

    >>> import cellkit as ms
    >>> y, *_ = BatchNorm()(ms.Tensor([[1.0], [3.0]]), ms.Tensor([1.0]), ms.Tensor([0.0]),
    ...                      ms.Tensor([2.0]), ms.Tensor([1.0]))
    >>> print(y)
    [[-0.999995]
     [ 0.999995]]
    """

    @prim_attr_register
    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        if not isinstance(is_training, bool):
            raise TypeError(f"For 'BatchNorm', 'is_training' must be a bool, but got {type(is_training).__name__}")
        _check_float(epsilon, "epsilon", "BatchNorm", 0.0, 1.0, True)
        _check_float(momentum, "momentum", "BatchNorm", 0.0, 1.0, False)
        if data_format != "NCHW":
            raise ValueError(f"For 'BatchNorm', only data_format='NCHW' is supported, but got {data_format!r}")

    def __call__(self, input_x, scale, bias, mean, variance):
        out, (batch_mean, batch_var) = _batch_norm(
            input_x, mean, variance, scale, bias, self.is_training, self.momentum, self.epsilon, "BatchNorm")
        if batch_mean is None:
            # one zero per channel (shaped like the running mean, so also for an empty batch)
            ref = tensor_arg(mean, "mean", "BatchNorm")._data
            extras = tuple(wrap(xp().zeros_like(ref, dtype=out._data.dtype)) for _ in range(4))
        else:
            extras = (wrap(batch_mean), wrap(batch_var), wrap(batch_mean), wrap(batch_var))
        return (out,) + extras


class LayerNorm(Primitive):
    """``LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta)``.

    Normalises over axes ``begin_norm_axis:``; ``gamma`` and ``beta`` have the
    shape of axes ``begin_params_axis:``.  Returns ``(y, mean, variance)``,
    the statistics with the normalised axes kept as 1.  (MindSpore's
    documentation calls the third output ``rstd``, but its CPU kernel returns
    the variance; cellkit follows the kernel.)

    >>> import cellkit as ms
    >>> y, mean, var = LayerNorm()(ms.Tensor([[0.0, 2.0]]), ms.Tensor([1.0, 1.0]), ms.Tensor([0.0, 0.0]))
    >>> print(mean, var)
    [[1.]] [[1.]]
    """

    @prim_attr_register
    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        for name, value in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'LayerNorm', '{name}' must be an int, but got {type(value).__name__}")
        if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or epsilon < 0:
            raise ValueError(f"For 'LayerNorm', 'epsilon' must be a non-negative float, but got {epsilon!r}")

    def __call__(self, input_x, gamma, beta):
        op = "LayerNorm"
        xt = tensor_arg(input_x, "input_x", op)
        begin = normalize_axis(self.begin_norm_axis, xt.ndim, op, "begin_norm_axis")
        params = normalize_axis(self.begin_params_axis, xt.ndim, op, "begin_params_axis")
        out, mean, var = _layer_norm(xt, begin, params, gamma, beta, float(self.epsilon), op)
        return out, wrap(mean), wrap(var)

