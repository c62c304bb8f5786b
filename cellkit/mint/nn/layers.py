"""``mindspore.mint.nn``'s layers: PyTorch's constructor arguments, computed by :mod:`.functional`.

Weights start as PyTorch starts them (uniform in ``±1/sqrt(fan_in)`` for ``Linear`` and the
convolutions), drawn from ``ms.default_generator`` so ``ms.manual_seed`` repeats them. Parameter names
are PyTorch's: ``weight``, ``bias``, ``running_mean``, ``running_var``.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import mint
>>> net = mint.nn.Linear(3, 2)
>>> [p.name for p in net.get_parameters()]
['weight', 'bias']
>>> print(net(ms.Tensor(np.ones((4, 3), np.float32))).shape, mint.nn.ReLU()(ms.Tensor([-1.0, 1.0])))
(4, 2) [0. 1.]
"""
from __future__ import annotations

import math

from ... import ops as _ops
from ...common.initializer import Uniform, initializer
from ...dtype import float32
from ...nn.cell import Cell
from ...parameter import Parameter
from . import functional as F

__all__ = ["Linear", "Conv1d", "Conv2d", "Conv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "PReLU",
           "Identity", "Flatten", "ReLU", "ReLU6", "ELU", "GELU", "SELU", "SiLU", "Mish", "Sigmoid", "Tanh",
           "LogSigmoid", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "Softmax", "LogSoftmax", "Threshold",
           "Dropout", "Dropout2d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "MaxPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "L1Loss", "MSELoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SmoothL1Loss", "SoftMarginLoss", "CosineEmbeddingLoss",
           "CrossEntropyLoss", "NLLLoss", "PixelShuffle", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
           "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "Fold", "Unfold", "Embedding", "SyncBatchNorm", "MaxUnpool2d",
           "ConvTranspose2d"]


def _uniform(shape, bound, dtype, name):
    return Parameter(initializer(Uniform(bound), shape, dtype or float32), name=name)


# ---------------------------------------------------------------- layers with parameters
class Linear(Cell):
    """``input @ weight.T + bias``, with ``weight`` of shape (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        shape = (out_features, in_features)
        self.weight = (Parameter(initializer(weight_init, shape, dtype or float32), name="weight")
                       if weight_init is not None else _uniform(shape, bound, dtype, "weight"))
        if bias:
            self.bias = (Parameter(initializer(bias_init, (out_features,), dtype or float32), name="bias")
                         if bias_init is not None else _uniform((out_features,), bound, dtype, "bias"))
        else:
            self.bias = None

    def construct(self, input):
        return F.linear(input, self.weight, self.bias)

    def extend_repr(self):
        return (f"input_features={self.in_features}, output_features={self.out_features}, "
                f"has_bias={self.bias is not None}")


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _ConvNd(Cell):
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None):
        super().__init__()
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"For '{type(self).__name__}', 'padding_mode' must be 'zeros', 'reflect', 'replicate' or "
                             f"'circular', but got {padding_mode!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"For '{type(self).__name__}', 'in_channels' ({in_channels}) and 'out_channels' "
                             f"({out_channels}) must be divisible by 'groups' ({groups})")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(kernel_size, self._dims)
        self.stride, self.padding, self.dilation, self.padding_mode = stride, padding, dilation, padding_mode
        fan_in = in_channels // groups * math.prod(self.kernel_size)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        self.weight = _uniform((out_channels, in_channels // groups) + self.kernel_size, bound, dtype, "weight")
        self.bias = _uniform((out_channels,), bound, dtype, "bias") if bias else None

    def construct(self, input):
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._dims - 1]
        padding = self.padding
        if self.padding_mode != "zeros" and not isinstance(padding, str):
            pads = _tuple(padding, self._dims)
            flat = tuple(p for d in reversed(pads) for p in (d, d))
            input = F.pad(input, flat, {"reflect": "reflect", "replicate": "replicate",
                                        "circular": "circular"}[self.padding_mode])
            padding = 0
        return conv(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)

    def extend_repr(self):
        n = self._dims
        padding = self.padding if isinstance(self.padding, str) else _tuple(self.padding, n)
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={_tuple(self.stride, n)}, padding={padding}, "
                f"dilation={_tuple(self.dilation, n)}, groups={self.groups}, bias={self.bias is not None}")


class Conv1d(_ConvNd):
    """1-D convolution layer over (N, C, L) inputs."""

    _dims = 1


class Conv2d(_ConvNd):
    """2-D convolution layer over (N, C, H, W) inputs."""

    _dims = 2


class Conv3d(_ConvNd):
    """3-D convolution layer over (N, C, D, H, W) inputs."""

    _dims = 3


class ConvTranspose2d(Cell):
    """Transposed 2-D convolution layer; ``weight`` of shape (in_channels, out_channels / groups, kh, kw)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f"For 'ConvTranspose2d', only 'zeros' padding_mode is supported, but got {padding_mode!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"For 'ConvTranspose2d', 'in_channels' ({in_channels}) and 'out_channels' "
                             f"({out_channels}) must be divisible by 'groups' ({groups})")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(kernel_size, 2)
        self.stride, self.padding, self.output_padding, self.dilation = stride, padding, output_padding, dilation
        fan_in = out_channels // groups * math.prod(self.kernel_size)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        self.weight = _uniform((in_channels, out_channels // groups) + self.kernel_size, bound, dtype, "weight")
        self.bias = _uniform((out_channels,), bound, dtype, "bias") if bias else None

    def construct(self, input):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)


class _BatchNorm(Cell):
    _ndims = (2, 3)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        d = dtype or float32
        self.weight = Parameter(_ops.ones((num_features,), d), name="weight", requires_grad=affine)
        self.bias = Parameter(_ops.zeros((num_features,), d), name="bias", requires_grad=affine)
        self.running_mean = Parameter(_ops.zeros((num_features,), d), name="running_mean", requires_grad=False)
        self.running_var = Parameter(_ops.ones((num_features,), d), name="running_var", requires_grad=False)
        from ...dtype import int64

        self.num_batches_tracked = Parameter(_ops.zeros((), int64), name="num_batches_tracked", requires_grad=False)

    def construct(self, input):
        if input.ndim not in self._ndims:
            raise ValueError(f"For '{type(self).__name__}', the input must have {' or '.join(map(str, self._ndims))} "
                             f"dimensions, but got {input.ndim}")
        use_batch = self.training or not self.track_running_stats
        if self.training and self.track_running_stats:
            self.num_batches_tracked.set_data(_ops.add(self.num_batches_tracked, 1))
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, use_batch,
                            self.momentum, self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) inputs."""

    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs."""

    _ndims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) inputs."""

    _ndims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation with statistics over every device of ``process_group``: here the one process,
    so it is :class:`BatchNorm2d`'s computation for inputs of 2 to 5 dimensions."""

    _ndims = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        if process_group is not None and not isinstance(process_group, str):
            raise TypeError(f"For 'SyncBatchNorm', 'process_group' must be a str or None, but got "
                            f"{type(process_group).__name__}")
        self.process_group = process_group


class GroupNorm(Cell):
    """Normalisation over groups of channels, with a per-channel ``weight`` and ``bias``."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', 'num_channels' ({num_channels}) must be divisible by 'num_groups' "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        d = dtype or float32
        self.weight = Parameter(_ops.ones((num_channels,), d), name="weight", requires_grad=affine)
        self.bias = Parameter(_ops.zeros((num_channels,), d), name="bias", requires_grad=affine)

    def construct(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class PReLU(Cell):
    """``max(0, x) + weight * min(0, x)`` with a learnt ``weight`` (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.weight = Parameter(_ops.full((num_parameters,), float(init), dtype=dtype or float32), name="weight")

    def construct(self, input):
        return F.prelu(input, self.weight)


class Embedding(Cell):
    """A lookup table of ``num_embeddings`` rows of ``embedding_dim`` (rows drawn from N(0, 1))."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        from ...common.initializer import Normal

        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        if _weight is not None:
            table = _weight
        else:
            table = initializer(Normal(1.0), (num_embeddings, embedding_dim), dtype or float32).init_data()
            if padding_idx is not None:
                host = table.asnumpy().copy()
                host[padding_idx] = 0
                from ...tensor import Tensor

                table = Tensor(host)
        self.weight = Parameter(table, name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type)


# ---------------------------------------------------------------- layers without parameters
def _functional_cell(name, doc, call, params=()):
    """A Cell class whose constructor stores ``params`` (name, default) and whose call applies ``call``."""
    defaults = dict(params)

    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        names = [p for p, _ in params]
        if len(args) > len(names):
            raise TypeError(f"For '{name}', expected at most {len(names)} arguments, but got {len(args)}")
        values = dict(defaults)
        values.update(zip(names, args))
        for key in kwargs:
            if key not in values:
                raise TypeError(f"For '{name}', unexpected argument {key!r}")
        values.update(kwargs)
        missing = [k for k, v in values.items() if v is _REQUIRED]
        if missing:
            raise TypeError(f"For '{name}', missing argument(s) {missing}")
        for key, value in values.items():
            object.__setattr__(self, key, value)
        self._arg_names = names

    def construct(self, *inputs):
        return call(self, *inputs)

    def extend_repr(self):
        return ", ".join(f"{k}={getattr(self, k)!r}" for k in self._arg_names)

    cls = type(name, (Cell,), {"__init__": __init__, "construct": construct, "extend_repr": extend_repr,
                               "__doc__": doc, "__module__": __name__})
    import inspect

    cls.__init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             default=inspect.Parameter.empty if d is _REQUIRED else d) for p, d in params])
    return cls


_REQUIRED = object()
R = _REQUIRED

Identity = _functional_cell("Identity", "Returns its input.", lambda s, x: x)
Flatten = _functional_cell("Flatten", "Dimensions start_dim..end_dim merged.",
                           lambda s, x: F.flatten(x, s.start_dim, s.end_dim), (("start_dim", 1), ("end_dim", -1)))
ReLU = _functional_cell("ReLU", "max(x, 0).", lambda s, x: F.relu(x))
ReLU6 = _functional_cell("ReLU6", "min(max(x, 0), 6).", lambda s, x: F.relu6(x, s.inplace), (("inplace", False),))
ELU = _functional_cell("ELU", "Exponential linear unit.", lambda s, x: F.elu(x, s.alpha, s.inplace),
                       (("alpha", 1.0), ("inplace", False)))
GELU = _functional_cell("GELU", "Gaussian error linear unit.", lambda s, x: F.gelu(x, approximate=s.approximate),
                        (("approximate", "none"),))
SELU = _functional_cell("SELU", "Scaled exponential linear unit.", lambda s, x: F.selu(x))
SiLU = _functional_cell("SiLU", "x * sigmoid(x).", lambda s, x: F.silu(x, s.inplace), (("inplace", False),))
Mish = _functional_cell("Mish", "x * tanh(softplus(x)).", lambda s, x: F.mish(x))
Sigmoid = _functional_cell("Sigmoid", "1 / (1 + exp(-x)).", lambda s, x: F.sigmoid(x))
Tanh = _functional_cell("Tanh", "tanh(x).", lambda s, x: F.tanh(x))
LogSigmoid = _functional_cell("LogSigmoid", "log(sigmoid(x)).", lambda s, x: F.logsigmoid(x))
Hardshrink = _functional_cell("Hardshrink", "x where |x| > lambd, else 0.", lambda s, x: F.hardshrink(x, s.lambd),
                              (("lambd", 0.5),))
Hardsigmoid = _functional_cell("Hardsigmoid", "Piecewise-linear sigmoid.", lambda s, x: F.hardsigmoid(x))
Hardswish = _functional_cell("Hardswish", "x * hardsigmoid(x).", lambda s, x: F.hardswish(x))
Hardtanh = _functional_cell("Hardtanh", "x clipped to [min_val, max_val].",
                            lambda s, x: F.hardtanh(x, s.min_val, s.max_val, s.inplace),
                            (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)))
Softmax = _functional_cell("Softmax", "Softmax along dim.", lambda s, x: F.softmax(x, s.dim), (("dim", None),))
LogSoftmax = _functional_cell("LogSoftmax", "Log-softmax along dim.", lambda s, x: F.log_softmax(x, s.dim),
                              (("dim", None),))
Threshold = _functional_cell("Threshold", "x where x > threshold, else value.",
                             lambda s, x: F.threshold(x, s.threshold, s.value, s.inplace),
                             (("threshold", R), ("value", R), ("inplace", False)))
Dropout = _functional_cell("Dropout", "Elements zeroed with probability p in training.",
                           lambda s, x: F.dropout(x, s.p, s.training), (("p", 0.5), ("inplace", False)))
Dropout2d = _functional_cell("Dropout2d", "Channels zeroed with probability p in training.",
                             lambda s, x: F.dropout2d(x, s.p, s.training), (("p", 0.5), ("inplace", False)))
AvgPool1d = _functional_cell(
    "AvgPool1d", "Mean over windows.", lambda s, x: F.avg_pool1d(x, s.kernel_size, s.stride, s.padding, s.ceil_mode,
                                                                 s.count_include_pad),
    (("kernel_size", R), ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True)))
AvgPool2d = _functional_cell(
    "AvgPool2d", "Mean over windows.", lambda s, x: F.avg_pool2d(x, s.kernel_size, s.stride, s.padding, s.ceil_mode,
                                                                 s.count_include_pad, s.divisor_override),
    (("kernel_size", R), ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True),
     ("divisor_override", None)))
AvgPool3d = _functional_cell(
    "AvgPool3d", "Mean over windows.", lambda s, x: F.avg_pool3d(x, s.kernel_size, s.stride, s.padding, s.ceil_mode,
                                                                 s.count_include_pad, s.divisor_override),
    (("kernel_size", R), ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True),
     ("divisor_override", None)))
MaxPool2d = _functional_cell(
    "MaxPool2d", "Largest value over windows.",
    lambda s, x: F.max_pool2d(x, s.kernel_size, s.stride, s.padding, s.dilation, s.ceil_mode, s.return_indices),
    (("kernel_size", R), ("stride", None), ("padding", 0), ("dilation", 1), ("return_indices", False),
     ("ceil_mode", False)))
AdaptiveAvgPool1d = _functional_cell("AdaptiveAvgPool1d", "Mean over adaptive windows.",
                                     lambda s, x: F.adaptive_avg_pool1d(x, s.output_size), (("output_size", R),))
AdaptiveAvgPool2d = _functional_cell("AdaptiveAvgPool2d", "Mean over adaptive windows.",
                                     lambda s, x: F.adaptive_avg_pool2d(x, s.output_size), (("output_size", R),))
AdaptiveAvgPool3d = _functional_cell("AdaptiveAvgPool3d", "Mean over adaptive windows.",
                                     lambda s, x: F.adaptive_avg_pool3d(x, s.output_size), (("output_size", R),))
AdaptiveMaxPool1d = _functional_cell("AdaptiveMaxPool1d", "Largest value over adaptive windows.",
                                     lambda s, x: F.adaptive_max_pool1d(x, s.output_size, s.return_indices),
                                     (("output_size", R), ("return_indices", False)))
AdaptiveMaxPool2d = _functional_cell("AdaptiveMaxPool2d", "Largest value over adaptive windows.",
                                     lambda s, x: F.adaptive_max_pool2d(x, s.output_size, s.return_indices),
                                     (("output_size", R), ("return_indices", False)))
L1Loss = _functional_cell("L1Loss", "|input - target|, reduced.", lambda s, x, y: F.l1_loss(x, y, s.reduction),
                          (("reduction", "mean"),))
MSELoss = _functional_cell("MSELoss", "(input - target)**2, reduced.", lambda s, x, y: F.mse_loss(x, y, s.reduction),
                           (("reduction", "mean"),))
BCELoss = _functional_cell("BCELoss", "Binary cross entropy of probabilities.",
                           lambda s, x, y: F.binary_cross_entropy(x, y, s.weight, s.reduction),
                           (("weight", None), ("reduction", "mean")))
BCEWithLogitsLoss = _functional_cell(
    "BCEWithLogitsLoss", "Binary cross entropy of logits.",
    lambda s, x, y: F.binary_cross_entropy_with_logits(x, y, s.weight, s.reduction, s.pos_weight),
    (("weight", None), ("reduction", "mean"), ("pos_weight", None)))
KLDivLoss = _functional_cell("KLDivLoss", "Kullback-Leibler divergence.",
                             lambda s, x, y: F.kl_div(x, y, s.reduction, s.log_target),
                             (("reduction", "mean"), ("log_target", False)))
SmoothL1Loss = _functional_cell("SmoothL1Loss", "Smooth L1 loss.",
                                lambda s, x, y: F.smooth_l1_loss(x, y, s.reduction, s.beta),
                                (("reduction", "mean"), ("beta", 1.0)))
SoftMarginLoss = _functional_cell("SoftMarginLoss", "log(1 + exp(-y x)), reduced.",
                                  lambda s, x, y: F.soft_margin_loss(x, y, s.reduction), (("reduction", "mean"),))
CosineEmbeddingLoss = _functional_cell(
    "CosineEmbeddingLoss", "Cosine embedding loss.",
    lambda s, a, b, y: F.cosine_embedding_loss(a, b, y, s.margin, s.reduction), (("margin", 0.0), ("reduction", "mean")))
CrossEntropyLoss = _functional_cell(
    "CrossEntropyLoss", "Cross entropy of logits.",
    lambda s, x, y: F.cross_entropy(x, y, s.weight, s.ignore_index, s.reduction, s.label_smoothing),
    (("weight", None), ("ignore_index", -100), ("reduction", "mean"), ("label_smoothing", 0.0)))
NLLLoss = _functional_cell("NLLLoss", "Negative log-likelihood.",
                           lambda s, x, y: F.nll_loss(x, y, s.weight, s.ignore_index, s.reduction),
                           (("weight", None), ("ignore_index", -100), ("reduction", "mean")))
PixelShuffle = _functional_cell("PixelShuffle", "Channels rearranged into space.",
                                lambda s, x: F.pixel_shuffle(x, s.upscale_factor), (("upscale_factor", R),))
def _resize(x, size, scale_factor, mode, align_corners=None):
    if size is None and scale_factor is not None:  # the output size the scale gives, as PyTorch computes it
        scales = _tuple(scale_factor, x.ndim - 2)
        size = tuple(int(math.floor(d * f)) for d, f in zip(x.shape[2:], scales))
    return F.interpolate(x, size, None, mode, align_corners)


Upsample = _functional_cell(
    "Upsample", "Resize by size or scale_factor.",
    lambda s, x: _resize(x, s.size, s.scale_factor, s.mode, s.align_corners),
    (("size", None), ("scale_factor", None), ("mode", "nearest"), ("align_corners", None),
     ("recompute_scale_factor", None)))
UpsamplingNearest2d = _functional_cell("UpsamplingNearest2d", "Nearest-neighbour resize.",
                                       lambda s, x: _resize(x, s.size, s.scale_factor, "nearest"),
                                       (("size", None), ("scale_factor", None)))
UpsamplingBilinear2d = _functional_cell("UpsamplingBilinear2d", "Bilinear resize (corners aligned).",
                                        lambda s, x: _resize(x, s.size, s.scale_factor, "bilinear", True),
                                        (("size", None), ("scale_factor", None)))
MaxUnpool2d = _functional_cell(
    "MaxUnpool2d", "The inverse of MaxPool2d: values put back at their indices.",
    lambda s, x, indices, output_size=None: F.max_unpool2d(x, indices, s.kernel_size, s.stride, s.padding,
                                                           output_size),
    (("kernel_size", R), ("stride", None), ("padding", 0)))
Fold = _functional_cell("Fold", "Sliding blocks summed into an image.",
                        lambda s, x: F.fold(x, s.output_size, s.kernel_size, s.dilation, s.padding, s.stride),
                        (("output_size", R), ("kernel_size", R), ("dilation", 1), ("padding", 0), ("stride", 1)))
Unfold = _functional_cell("Unfold", "Sliding blocks of an image as columns.",
                          lambda s, x: F.unfold(x, s.kernel_size, s.dilation, s.padding, s.stride),
                          (("kernel_size", R), ("dilation", 1), ("padding", 0), ("stride", 1)))


def _pads(padding, n):
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * n)


def _pad_cell(name, n, mode, with_value=False):
    if with_value:
        return _functional_cell(name, f"Pads the last {n} dimension(s) with a constant.",
                                lambda s, x: F.pad(x, _pads(s.padding, n), "constant", s.value),
                                (("padding", R), ("value", R)))
    if mode == "zeros":
        return _functional_cell(name, f"Pads the last {n} dimension(s) with zeros.",
                                lambda s, x: F.pad(x, _pads(s.padding, n), "constant", 0.0), (("padding", R),))
    return _functional_cell(name, f"Pads the last {n} dimension(s) ({mode}).",
                            lambda s, x: F.pad(x, _pads(s.padding, n), mode), (("padding", R),))


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_pad_cell(f"ConstantPad{n}d", n, "constant", True) for n in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_pad_cell(f"ZeroPad{n}d", n, "zeros") for n in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_pad_cell(f"ReflectionPad{n}d", n, "reflect") for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_pad_cell(f"ReplicationPad{n}d", n, "replicate")
                                                        for n in (1, 2, 3))
