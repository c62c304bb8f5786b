"""The list of differentiable ops with small sample inputs: the seed of the op catalogue.

Each :class:`Diff` entry names an op, says how to call it on Tensors, gives
float64 sample inputs (kept away from kinks: no ties in a maximum, no
element at ReLU's corner, positive values under a log) and which of them
are differentiated.  ``test_second_order.py`` generates a second-order
check for every entry, on every backend; an op joins the check by being
listed here.
"""
from __future__ import annotations

import numpy as np

from cellkit import ops


class Diff:
    """One differentiable op: ``call(*tensors)``, sample ``inputs(rng)`` and the positions ``wrt``."""

    def __init__(self, name, call, inputs, wrt=None, rtol=2e-4, atol=2e-6):
        self.name, self.call, self.inputs, self.wrt = name, call, inputs, wrt
        self.rtol, self.atol = rtol, atol

    def __repr__(self):
        return self.name


def normal(*shape, low=None):
    """A sampler of a standard normal array of ``shape``, kept at least ``low`` away from 0 if given."""
    def sample(rng):
        x = rng.standard_normal(shape)
        if low is not None:
            x = np.where(np.abs(x) < low, np.sign(x + 1e-12) * (low + np.abs(x)), x)
        return x
    return sample


def positive(*shape, low=0.5, high=2.0):
    return lambda rng: rng.uniform(low, high, shape)


def distinct(*shape):
    """Well-separated values in random order: a maximum without ties."""
    def sample(rng):
        n = int(np.prod(shape))
        return (rng.permutation(n) * 0.37 - n * 0.15 + rng.uniform(-0.05, 0.05, n)).reshape(shape)
    return sample


def fixed(value):
    return lambda rng: np.asarray(value)


def index(values):
    """An integer input (never differentiated): passed through as a NumPy int array."""
    return lambda rng: np.asarray(values, dtype=np.int64)


def _entries():
    e = []
    add = e.append
    # -- elementwise arithmetic, with broadcasting
    add(Diff("add", ops.add, [normal(2, 3), normal(3)]))
    add(Diff("sub", ops.sub, [normal(2, 3), normal(2, 1)]))
    add(Diff("mul", ops.mul, [normal(2, 3), normal(3)]))
    add(Diff("div", ops.div, [normal(2, 3), positive(3)]))
    add(Diff("neg", ops.neg, [normal(4)]))
    add(Diff("pow", ops.pow, [positive(2, 2), normal(2, 2)]))
    add(Diff("pow_scalar_exponent", lambda x: ops.pow(x, 3), [normal(4)]))
    add(Diff("square", ops.square, [normal(4)]))
    add(Diff("maximum", ops.maximum, [distinct(2, 3), normal(2, 3, low=0.2)]))
    add(Diff("minimum", ops.minimum, [distinct(2, 3), normal(2, 3, low=0.2)]))
    add(Diff("clamp_tensor_bounds", lambda x, lo, hi: ops.clamp(x, lo, hi),
             [fixed([-2.0, -0.4, 0.1, 0.6, 2.0]), fixed([-1.0] * 5), fixed([1.0] * 5)]))
    add(Diff("mod", ops.mod, [fixed([2.3, -1.7, 5.2]), fixed([1.1, 0.9, 1.6])]))
    add(Diff("where", lambda a, b: ops.where(ops.greater(a, 0), a, b), [normal(2, 3, low=0.1), normal(2, 3)]))
    # -- unary math
    for name in ("exp", "expm1", "sin", "cos"):
        add(Diff(name, getattr(ops, name), [normal(5)]))
    for name in ("log", "log1p", "sqrt", "rsqrt", "reciprocal"):
        add(Diff(name, getattr(ops, name), [positive(5)]))
    add(Diff("abs", ops.abs, [normal(5, low=0.1)]))
    add(Diff("cast_float32_round_trip", lambda x: ops.cast(x * 2, "float64"), [normal(3)]))
    # -- reductions
    add(Diff("sum", lambda x: ops.sum(x * x, 1), [normal(3, 4)]))
    add(Diff("sum_keepdim", lambda x: ops.sum(x * x, (0, 2), True), [normal(2, 3, 2)]))
    add(Diff("mean", lambda x: ops.mean(x * x, 0), [normal(3, 4)]))
    add(Diff("amax", lambda x: ops.amax(x * x, 1), [distinct(3, 4)]))
    add(Diff("amin", lambda x: ops.amin(x * x * x, 0), [distinct(3, 4)]))
    add(Diff("max_with_index", lambda x: ops.max(x * x, 1)[0], [distinct(3, 4)]))
    add(Diff("prod", lambda x: ops.prod(x, 1), [positive(2, 3)]))
    add(Diff("norm_2", lambda x: ops.norm(x, dim=1), [normal(3, 4)]))
    add(Diff("norm_fro", lambda x: ops.norm(x, "fro"), [normal(3, 4)]))
    # -- linear algebra
    add(Diff("matmul", ops.matmul, [normal(2, 3), normal(3, 2)]))
    add(Diff("matmul_vector", ops.matmul, [normal(3), normal(3, 2)]))
    add(Diff("matmul_batched_broadcast", ops.matmul, [normal(2, 2, 3), normal(3, 2)]))
    add(Diff("bmm", ops.bmm, [normal(2, 2, 3), normal(2, 3, 2)]))
    # -- shape and indexing (linear ops: the check shows their rules are themselves differentiable)
    add(Diff("reshape", lambda x: ops.reshape(x * x, (3, 2)), [normal(2, 3)]))
    add(Diff("transpose", lambda x: ops.transpose(x * x, (1, 0)), [normal(2, 3)]))
    add(Diff("expand_squeeze", lambda x: ops.squeeze(ops.expand_dims(x * x, 1)), [normal(3)]))
    add(Diff("concat", lambda a, b: ops.concat([a * a, b * a[:1]], 0), [normal(2, 3), normal(1, 3)]))
    add(Diff("stack", lambda a, b: ops.stack([a * b, b], 1), [normal(3), normal(3)]))
    add(Diff("split", lambda x: ops.split(x * x, 1, 0)[1], [normal(2, 3)]))
    add(Diff("tile", lambda x: ops.tile(x * x, (2, 1)), [normal(2, 3)]))
    add(Diff("broadcast_to", lambda x: ops.broadcast_to(x * x, (2, 3)), [normal(1, 3)]))
    add(Diff("gather", lambda x: ops.gather(x * x, ms_index([2, 0, 2]), 0), [normal(3, 2)]))
    add(Diff("getitem_basic", lambda x: (x * x)[1:, ::2], [normal(3, 4)]))
    add(Diff("getitem_advanced", lambda x: (x * x)[[0, 2, 0]], [normal(3, 2)]))
    add(Diff("getitem_mask", lambda x: (x * x)[ops.greater(x, 0)], [normal(6, low=0.1)]))
    # -- activations
    for name in ("relu", "relu6", "leaky_relu", "elu", "hardsigmoid", "hardswish"):
        add(Diff(name, getattr(ops, name), [normal(6, low=0.1)]))
    for name in ("sigmoid", "tanh", "fast_gelu", "silu", "softplus", "mish"):
        add(Diff(name, getattr(ops, name), [normal(6)]))
    add(Diff("gelu", ops.gelu, [normal(6)]))
    add(Diff("gelu_tanh", lambda x: ops.gelu(x, "tanh"), [normal(6)]))
    add(Diff("softmax", lambda x: ops.softmax(x, 1), [normal(2, 3)]))
    add(Diff("log_softmax", lambda x: ops.log_softmax(x, 0), [normal(3, 2)]))
    # -- layers
    add(Diff("dense", ops.dense, [normal(2, 3), normal(4, 3), normal(4)]))
    add(Diff("bias_add", lambda x, b: ops.bias_add(x * x, b), [normal(2, 3, 2), normal(3)]))
    add(Diff("conv2d", lambda x, w: ops.conv2d(x, w, pad_mode="pad", padding=1, stride=(1, 2)),
             [normal(1, 2, 4, 4), normal(2, 2, 2, 2)]))
    add(Diff("conv2d_groups_dilation", lambda x, w: ops.conv2d(x, w, dilation=2, groups=2),
             [normal(1, 2, 5, 5), normal(2, 1, 2, 2)]))
    add(Diff("max_pool2d_tiles", lambda x: ops.max_pool2d(x * x, 2), [distinct(1, 1, 4, 4)]))
    add(Diff("max_pool2d_windows", lambda x: ops.max_pool2d(x * x, 3, 1, padding=1), [distinct(1, 1, 3, 3)]))
    add(Diff("avg_pool2d", lambda x: ops.avg_pool2d(x * x, 2, 1), [normal(1, 1, 3, 3)]))
    add(Diff("batch_norm_training", lambda x, w, b: ops.batch_norm(x, None, None, w, b, training=True),
             [normal(4, 2), normal(2), normal(2)]))
    add(Diff("batch_norm_inference", lambda x, m, v: ops.batch_norm(x, m, v, None, None),
             [normal(3, 2), normal(2), positive(2)]))
    add(Diff("layer_norm", lambda x, w, b: ops.layer_norm(x, (3,), w, b), [normal(2, 3), normal(3), normal(3)]))
    add(Diff("dropout", _dropout_with_one_mask, [normal(8)]))
    # -- losses
    add(Diff("mse_loss", ops.mse_loss, [normal(2, 3), normal(2, 3)]))
    add(Diff("l1_loss", lambda a, b: ops.l1_loss(a * a, b), [normal(2, 3), normal(2, 3)]))
    add(Diff("smooth_l1_loss", lambda a, b: ops.smooth_l1_loss(a, b, 0.5, "sum"),
             [fixed([0.1, 2.0, -0.2, -1.5]), fixed([0.0, 0.3, 0.1, 0.2])]))
    add(Diff("binary_cross_entropy_with_logits", ops.binary_cross_entropy_with_logits,
             [normal(2, 3), positive(2, 3, low=0.1, high=0.9)]))
    add(Diff("binary_cross_entropy", ops.binary_cross_entropy,
             [positive(2, 3, low=0.2, high=0.8), positive(2, 3, low=0.1, high=0.9)]))
    add(Diff("cross_entropy_indices", lambda x: ops.cross_entropy(x, ms_index([2, 0]), label_smoothing=0.1),
             [normal(2, 3)]))
    add(Diff("cross_entropy_probabilities", ops.cross_entropy, [normal(2, 3), positive(2, 3)]))
    add(Diff("nll_loss", lambda x: ops.nll_loss(ops.log_softmax(x, 1), ms_index([1, 0])), [normal(2, 3)]))
    return e


def _dropout_with_one_mask(x):
    import cellkit as ms

    ms.set_seed(3)  # every evaluation of the check draws the same mask
    return ops.dropout(x * x, p=0.5)


def ms_index(values):
    import cellkit as ms

    return ms.Tensor(np.asarray(values, dtype=np.int64))


DIFFERENTIABLE = _entries()
