"""More normalization layers: ``nn.BatchNorm3d``, ``nn.SyncBatchNorm``, ``nn.GroupNorm``,
``nn.InstanceNorm1d/2d/3d`` and ``nn.LRN``.

- ``BatchNorm3d`` is a ``BatchNorm2d`` child named ``bn2d`` run on ``(N, C, D*H, W)``: its
  Parameters are ``bn2d.moving_mean``, ``bn2d.moving_variance``, ``bn2d.gamma``, ``bn2d.beta``,
  as in MindSpore checkpoints.
- ``SyncBatchNorm`` synchronises the batch statistics over a process group; in one process
  (cellkit's case) it is exactly ``BatchNorm`` over ``(N, C)`` or ``(N, C, H, W)`` inputs.
- ``GroupNorm`` normalises groups of channels of each example; ``InstanceNorm*`` each channel
  of each example; ``LRN`` divides by a power of the sum of squares of neighbouring channels.

>>> import cellkit as ms
>>> from cellkit import nn
>>> print(nn.GroupNorm(1, 2)(ms.Tensor([[[1.0], [3.0]]])))
[[[-0.999995]
  [ 0.999995]]]
>>> [p.name for p in nn.BatchNorm3d(2).get_parameters()]
['bn2d.moving_mean', 'bn2d.moving_variance', 'bn2d.gamma', 'bn2d.beta']
"""
from __future__ import annotations

import numbers

from ... import dtype as _dt
from ... import ops
from ...common.initializer import Initializer, initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell
from ._where import raised_in
from .normalization import BatchNorm2d, _BatchNorm

__all__ = ["BatchNorm3d", "SyncBatchNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LRN"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_rank(x, ranks, cell):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', the input must be a Tensor, but got {type(x).__name__}.")
    if x.ndim not in ranks:
        raise ValueError(f"For '{cell}', the input must have {' or '.join(map(str, ranks))} dimensions, but got "
                         f"{x.ndim} (shape {x.shape}).")


class BatchNorm3d(Cell):
    """Batch normalization of ``(N, C, D, H, W)`` inputs, per channel ``C``.

    The arguments are :class:`BatchNorm2d`'s (without ``data_format``); the layer runs its
    ``bn2d`` child on the input seen as ``(N, C, D * H, W)``, which normalises with the same
    per-channel statistics.

    Raises
    ------
    TypeError, ValueError
        As :class:`BatchNorm2d`; ``ValueError`` for an input that is not 5-D.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> bn = nn.BatchNorm3d(2).set_train()
    >>> bn(ms.ops.ones((2, 2, 1, 2, 2))).shape
    (2, 2, 1, 2, 2)
    >>> bn.bn2d.moving_mean.asnumpy()
    array([0.1, 0.1], dtype=float32)
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, dtype=_dt.float32):
        super().__init__()
        with raised_in("BatchNorm3d", "num_features", "gamma_init", "beta_init", "moving_mean_init", "moving_var_init"):
                self.bn2d = BatchNorm2d(num_features=num_features, eps=eps, momentum=momentum, affine=affine,
                                    gamma_init=gamma_init, beta_init=beta_init, moving_mean_init=moving_mean_init,
                                    moving_var_init=moving_var_init, use_batch_statistics=use_batch_statistics,
                                    data_format="NCHW", dtype=dtype)

    def construct(self, x):
        _check_rank(x, (5,), "BatchNorm3d")
        n, c, d, h, w = x.shape
        return ops.reshape(self.bn2d(ops.reshape(x, (n, c, d * h, w))), (n, c, d, h, w))


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics are shared across a group of processes.

    cellkit runs in one process, where the layer is plain batch normalization of ``(N, C)`` or
    ``(N, C, H, W)`` inputs (see :class:`BatchNorm1d` for the arguments and the train /
    inference behaviour).  ``process_groups`` is checked as MindSpore checks it in a world of
    one process: ``None``, ``0``, or a list of lists of rank ids, each in ``[0, 1)`` and none
    repeated.

    Raises
    ------
    ValueError
        A ``process_groups`` (or one of its groups) that is not a list (MindSpore's type, kept),
        a rank id outside ``[0, 1)`` or repeated; the :class:`BatchNorm1d` errors.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> bn = nn.SyncBatchNorm(2, process_groups=[[0]])
    >>> print(bn(ms.Tensor([[1.0, 2.0]])))
    [[0.999995 1.99999 ]]
    """

    _ranks = (2, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=_dt.float32):
        with raised_in("SyncBatchNorm", "num_features", "gamma_init", "beta_init", "moving_mean_init",
                       "moving_var_init"):
            super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                             moving_var_init, use_batch_statistics, dtype=dtype)
        if process_groups not in (None, 0):
            if not isinstance(process_groups, list):
                raise ValueError(f"For 'SyncBatchNorm', the 'process_groups' must be a list of lists of rank ids, "
                                f"but got {type(process_groups).__name__}.")
            seen = set()
            for group in process_groups:
                if not isinstance(group, list):
                    raise ValueError(f"For 'SyncBatchNorm', every group of 'process_groups' must be a list, but got "
                                    f"{type(group).__name__}.")
                for rank in group:
                    if not _is_int(rank) or not 0 <= rank < 1:
                        raise ValueError(f"For 'SyncBatchNorm', the rank ids in 'process_groups' must be in [0, 1) "
                                         f"(one process), but got {rank!r}.")
                    if rank in seen:
                        raise ValueError(f"For 'SyncBatchNorm', a rank id in 'process_groups' must not repeat, "
                                         f"but got {process_groups}.")
                    seen.add(rank)
        self.process_groups = process_groups
        self.is_global = False
        self.group_name = None


class GroupNorm(Cell):
    """Group normalization: the channels of each example split into ``num_groups`` groups, each
    normalised by its own mean and (biased) variance, then scaled by ``gamma`` and shifted by
    ``beta`` per channel.

    Parameters
    ----------
    num_groups, num_channels : int
        ``num_channels`` (the input's axis 1) must be divisible by ``num_groups``.
    eps : float
        Added to the variance.
    affine : bool
        Whether ``gamma`` and ``beta`` are trained (they always exist).
    gamma_init, beta_init : str, Initializer or Tensor
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        A non-float ``eps`` or a non-bool ``affine``.
    ValueError
        Non-positive counts, channels not divisible by groups; when called, an input whose
        axis 1 is not ``num_channels``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> gn = nn.GroupNorm(2, 4)
    >>> gn
    GroupNorm(num_groups=2, num_channels=4)
    >>> gn(ms.ops.ones((2, 4, 3, 3))).shape
    (2, 4, 3, 3)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=_dt.float32):
        super().__init__()
        for name, value in (("num_groups", num_groups), ("num_channels", num_channels)):
            if not _is_int(value):
                raise TypeError(f"For 'GroupNorm', the type of '{name}' should be 'int', but got type "
                                f"'{type(value).__name__}'.")
            if value < 1:
                raise ValueError(f"For 'GroupNorm', the '{name}' must be a positive int, but got {value}.")
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divisible by 'num_groups', but got "
                             f"'num_channels': {num_channels}, 'num_groups': {num_groups}.")
        if not isinstance(eps, float):
            raise TypeError(f"For 'GroupNorm', the type of 'eps' should be 'float', but got type "
                            f"'{type(eps).__name__}'.")
        if not isinstance(affine, bool):
            raise TypeError(f"For 'GroupNorm', the type of 'affine' should be 'bool', but got type "
                            f"'{type(affine).__name__}'.")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        with raised_in("GroupNorm", "num_channels", "gamma_init", "beta_init"):
            self.gamma = Parameter(initializer(gamma_init, num_channels, dtype), name="gamma", requires_grad=affine)
            self.beta = Parameter(initializer(beta_init, num_channels, dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'GroupNorm', the input must be a Tensor, but got {type(x).__name__}.")
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the input's channel axis (axis 1) must have num_channels="
                             f"{self.num_channels} entries, but got shape {x.shape}.")
        return ops.group_norm(x, self.num_groups, ops.cast(self.gamma, x.dtype), ops.cast(self.beta, x.dtype),
                              self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    """The body shared by InstanceNorm1d/2d/3d; subclasses give the input rank."""

    _rank = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=_dt.float32):
        super().__init__()
        cell = type(self).__name__
        for name, value, kind in (("num_features", num_features, int), ("eps", eps, float),
                                  ("momentum", momentum, float), ("affine", affine, bool)):
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise TypeError(f"For '{cell}', the type of '{name}' should be '{kind.__name__}', but got type "
                                f"'{type(value).__name__}'.")
        for name, value in (("gamma_init", gamma_init), ("beta_init", beta_init)):
            if not isinstance(value, (Tensor, numbers.Number, str, Initializer)):
                raise TypeError(f"For '{cell}', the type of '{name}' must be a Tensor, a number, a str or an "
                                f"Initializer, but got type {type(value).__name__}.")
            if isinstance(value, Tensor) and value.dtype != _dt.float32:
                raise TypeError(f"For '{cell}', a Tensor '{name}' must be float32, but got {value.dtype}.")
        if num_features < 1:
            raise ValueError(f"For '{cell}', the 'num_features' must be at least 1, but got {num_features}.")
        if not 0 <= momentum <= 1:
            raise ValueError(f"For '{cell}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        self.num_features = num_features
        self.eps = eps
        with raised_in(cell, "num_features", "gamma_init", "beta_init"):
            self.moving_mean = Parameter(initializer("zeros", num_features, dtype), name="mean", requires_grad=False)
            self.moving_variance = Parameter(initializer("ones", num_features, dtype), name="variance",
                                             requires_grad=False)
            self.gamma = Parameter(initializer(gamma_init, num_features, dtype), name="gamma", requires_grad=affine)
            self.beta = Parameter(initializer(beta_init, num_features, dtype), name="beta", requires_grad=affine)
        self.momentum = momentum

    def construct(self, x):
        cell = type(self).__name__
        _check_rank(x, (self._rank,), cell)
        if x.shape[1] != self.num_features:
            raise ValueError(f"For '{cell}', the input's channel axis (axis 1) must have num_features="
                             f"{self.num_features} entries, but got shape {x.shape}.")
        axes = tuple(range(2, x.ndim))
        mean = ops.mean(x, axes, keep_dims=True)
        centered = x - mean
        var = ops.mean(centered * centered, axes, keep_dims=True)
        shape = (1, self.num_features) + (1,) * (x.ndim - 2)
        out = centered / ops.sqrt(var + self.eps) * ops.reshape(self.gamma, shape) + ops.reshape(self.beta, shape)
        if self.training:
            self._update_running(x, mean, centered)
        return out

    def _update_running(self, x, mean, centered):
        """Running statistics: the batch's average instance mean and unbiased instance variance."""
        count = 1
        for size in x.shape[2:]:
            count *= size
        axes = tuple(range(2, x.ndim))
        with_grad_off = ops.stop_gradient
        batch_mean = ops.mean(ops.reshape(with_grad_off(mean), (x.shape[0], self.num_features)), 0)
        unbiased = ops.sum(with_grad_off(centered) ** 2, axes) / max(count - 1, 1)
        batch_var = ops.mean(unbiased, 0)
        params = self._params
        m = self.momentum
        params["moving_mean"].set_data((1 - m) * params["moving_mean"] + m * batch_mean)
        params["moving_variance"].set_data((1 - m) * params["moving_variance"] + m * batch_var)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, "
                f"beta={self.beta}, moving_mean={self.moving_mean}, moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` inputs: each channel of each example is
    normalised by its own mean and (biased) variance, then scaled by ``gamma`` and shifted by
    ``beta``; in training the running statistics ``moving_mean`` / ``moving_variance`` (Parameters
    ``mean`` / ``variance``) move towards the batch's average instance statistics by ``momentum``.

    MindSpore 2.10 has no CPU kernel for this layer (it runs on GPU only); cellkit computes it
    from its ops on every device.

    Parameters
    ----------
    num_features : int
    eps : float
    momentum : float in [0, 1]
        Weight of the new value in the running statistics (default 0.1).
    affine : bool
    gamma_init, beta_init : str, number, Initializer or float32 Tensor
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        Arguments of the wrong type (``eps`` and ``momentum`` must be floats).
    ValueError
        ``num_features`` < 1, ``momentum`` outside [0, 1], an input of the wrong rank or channel count.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.InstanceNorm1d(1)(ms.Tensor([[[1.0, 3.0]]])))
    [[[-0.999995  0.999995]]]
    """

    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` inputs; see :class:`InstanceNorm1d`.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.InstanceNorm2d(3)(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` inputs; see :class:`InstanceNorm1d`.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.InstanceNorm3d(2)(ms.ops.ones((1, 2, 2, 2, 2))).shape
    (1, 2, 2, 2, 2)
    """

    _rank = 5


class LRN(Cell):
    """Local response normalization across channels of ``(N, C, H, W)`` inputs::

        out[c] = x[c] / (bias + alpha * sum(x[c'] ** 2 for |c' - c| <= depth_radius)) ** beta

    Parameters
    ----------
    depth_radius : int
        Half-width of the channel window (>= 0).
    bias, alpha, beta : float
    norm_region : 'ACROSS_CHANNELS'

    Raises
    ------
    TypeError
        Arguments of the wrong type.
    ValueError
        A negative ``depth_radius`` or another ``norm_region``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.LRN(depth_radius=0, alpha=1.0, beta=1.0)(ms.Tensor(np.full((1, 1, 1, 1), 2.0, np.float32))))
    [[[[0.4]]]]
    """

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if not _is_int(depth_radius):
            raise TypeError(f"For 'LRN', the type of 'depth_radius' should be 'int', but got type "
                            f"'{type(depth_radius).__name__}'.")
        if depth_radius < 0:
            raise ValueError(f"For 'LRN', the 'depth_radius' must be >= 0, but got {depth_radius}.")
        for name, value in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            if not isinstance(value, float):
                raise TypeError(f"For 'LRN', the type of '{name}' should be 'float', but got type "
                                f"'{type(value).__name__}'.")
        if not isinstance(norm_region, str):
            raise TypeError(f"For 'LRN', the type of 'norm_region' should be 'str', but got type "
                            f"'{type(norm_region).__name__}'.")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
        self.lrn_op = ops.LRN(depth_radius, bias, alpha, beta, norm_region)

    def construct(self, input_x):
        return self.lrn_op(input_x)
