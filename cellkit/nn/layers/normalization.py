"""Normalization layers: ``nn.BatchNorm1d``, ``nn.BatchNorm2d`` and ``nn.LayerNorm``.

Batch normalization keeps *running statistics* for inference.  They are
Parameters that are not trained (``requires_grad=False``) and are called
``moving_mean`` and ``moving_variance`` on the Cell (their own names start
as ``mean`` and ``variance``, and become ``bn1.moving_mean`` ... once the
layer is placed in a network as ``bn1``).  MindSpore's ``momentum`` is the
weight of the *old* value::

    moving_mean = momentum * moving_mean + (1 - momentum) * batch_mean

(the opposite of PyTorch's convention; MindSpore's default 0.9 is PyTorch's
0.1), and the running variance is fed the *unbiased* batch variance.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> bn = nn.BatchNorm1d(2).set_train()
>>> y = bn(ms.Tensor([[1.0, 2.0], [3.0, 6.0]]))
>>> bn.moving_mean.asnumpy()
array([0.2, 0.4], dtype=float32)
>>> print(nn.LayerNorm((2,))(ms.Tensor([[1.0, 3.0]])))
[[-1.  1.]]
"""
from __future__ import annotations

import numbers

from ... import dtype as _dt
from ... import ops
from ...common.initializer import initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm"]


def _real(value, name, cell):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'float', but got type '{type(value).__name__}'.")
    return value


class _BatchNorm(Cell):
    """The shared body of BatchNorm1d and BatchNorm2d; subclasses say which input ranks they take."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, data_format="NCHW",
                 dtype=_dt.float32):
        super().__init__()
        name = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int):
            raise TypeError(f"For '{name}', the type of 'num_features' should be 'int', but got type "
                            f"'{type(num_features).__name__}'.")
        if num_features < 1:
            raise ValueError(f"For '{name}', the 'num_features' must be at least 1, but got {num_features}.")
        if not 0 <= _real(momentum, "momentum", name) <= 1:
            raise ValueError(f"For '{name}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        # MindSpore checks eps only when the layer first runs; checking here reports it where it was written.
        if not 0 < _real(eps, "eps", name) <= 1:
            raise ValueError(f"For '{name}', the 'eps' must be in (0, 1], but got {eps}.")
        if not isinstance(affine, bool):
            raise TypeError(f"For '{name}', 'affine' must be a bool, but got {type(affine).__name__}.")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"For '{name}', the 'use_batch_statistics' must be a boolean value or None, "
                             f"but got {use_batch_statistics!r}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format='NCHW' is supported (MindSpore supports 'NHWC' "
                             f"on GPU only), but got {data_format!r}.")
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.use_batch_statistics = use_batch_statistics
        self.format = data_format
        self.gamma_init = gamma_init
        self.beta_init = beta_init
        self.moving_mean_init = moving_mean_init
        self.moving_var_init = moving_var_init
        # Registered in MindSpore's order, which is the order of parameters_and_names and of checkpoints.
        self.moving_mean = Parameter(initializer(moving_mean_init, num_features, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, num_features, dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{name}', the input must be a Tensor, but got {type(x).__name__}.")
        if x.ndim not in self._ranks:
            ranks = " or ".join(str(r) for r in self._ranks)
            raise ValueError(f"For '{name}', the input must have {ranks} dimensions, but got {x.ndim} "
                             f"(shape {x.shape}).")
        if x.shape[1] != self.num_features:
            raise ValueError(f"For '{name}', the input's channel axis (axis 1) must have num_features="
                             f"{self.num_features} entries, but got shape {x.shape}.")
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        # The running statistics come from the registry, not the attributes: under to_float the
        # attributes are casts while construct runs, and the in-place update must reach the Parameters.
        params = self._params
        return ops.batch_norm(x, params["moving_mean"], params["moving_variance"], self.gamma, self.beta,
                              training=training, momentum=1.0 - self.momentum, eps=self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs, per channel ``C``.

    In training (``set_train(True)``) the layer normalises with the batch's
    mean and (biased) variance and updates ``moving_mean`` / ``moving_variance``;
    in inference it normalises with those running statistics.
    ``use_batch_statistics=True`` or ``False`` fixes the choice whatever the mode.

    Parameters
    ----------
    num_features : int
        The number of channels ``C``.
    eps : float in (0, 1]
        Added to the variance before the square root.
    momentum : float in [0, 1]
        Weight of the old running value (MindSpore's convention, see the module notes).
    affine : bool
        Whether ``gamma`` and ``beta`` are trained (they always exist).
    gamma_init, beta_init, moving_mean_init, moving_var_init : str, Initializer or Tensor
    use_batch_statistics : bool or None
    data_format : 'NCHW'
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        A non-int ``num_features``, a non-number ``eps``/``momentum``, a non-bool ``affine``.
    ValueError
        Values out of range, a non-bool ``use_batch_statistics``, ``'NHWC'``, or
        an input of the wrong rank or channel count.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> bn = nn.BatchNorm1d(2, affine=False)
    >>> [p.name for p in bn.get_parameters()]
    ['mean', 'variance', 'gamma', 'beta']
    >>> print(bn(ms.Tensor([[1.0, 2.0]])))
    [[0.999995 1.99999 ]]
    """

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs, per channel ``C``.

    See :class:`BatchNorm1d` for the arguments and the train/inference behaviour.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> bn = nn.BatchNorm2d(3)
    >>> bn
    BatchNorm2d(num_features=3, eps=1e-05, momentum=0.9, gamma=Parameter (name=gamma, shape=(3,), dtype=Float32, requires_grad=True), beta=Parameter (name=beta, shape=(3,), dtype=Float32, requires_grad=True), moving_mean=Parameter (name=mean, shape=(3,), dtype=Float32, requires_grad=False), moving_variance=Parameter (name=variance, shape=(3,), dtype=Float32, requires_grad=False))
    >>> bn.set_train()(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    _ranks = (4,)


class LayerNorm(Cell):
    """Layer normalization over the axes from ``begin_norm_axis`` on.

    ``y = (x - mean) / sqrt(var + epsilon) * gamma + beta``, the statistics taken
    over axes ``begin_norm_axis:``; ``gamma`` and ``beta`` have shape
    ``normalized_shape``, which must equal the input's axes ``begin_params_axis:``.

    Parameters
    ----------
    normalized_shape : tuple or list of ints
    begin_norm_axis, begin_params_axis : int
        First normalised axis and first axis of the parameters (negative counts from the end).
    gamma_init, beta_init : str, Initializer or Tensor
    epsilon : float
        Note MindSpore's default is ``1e-7`` (PyTorch's is ``1e-5``).
    dtype : cellkit dtype

    Raises
    ------
    TypeError
        ``normalized_shape`` not a tuple or list, axes that are not ints.
    ValueError
        An empty ``normalized_shape``, a negative ``epsilon``; when called, axes
        out of range or a shape that does not match the input.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> ln = nn.LayerNorm((3,))
    >>> ln
    LayerNorm(normalized_shape=(3,), begin_norm_axis=-1, begin_params_axis=-1, gamma=Parameter (name=gamma, shape=(3,), dtype=Float32, requires_grad=True), beta=Parameter (name=beta, shape=(3,), dtype=Float32, requires_grad=True))
    >>> print(ln(ms.Tensor([[1.0, 2.0, 3.0]])))
    [[-1.2247448  0.         1.2247448]]
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=_dt.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] or list[int], "
                            f"but got {normalized_shape!r} of type {type(normalized_shape).__name__}.")
        if not normalized_shape:
            raise ValueError(f"For 'LayerNorm', 'normalized_shape' must contain at least one element, "
                             f"but got {normalized_shape!r}.")
        self.normalized_shape = normalized_shape
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(initializer(gamma_init, normalized_shape, dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, normalized_shape, dtype), name="beta")
        # The primitive checks the axes' types and epsilon now, not at the first call.
        self.layer_norm = ops.LayerNorm(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis,
                                        epsilon=epsilon)

    def construct(self, input_x):
        y, _, _ = self.layer_norm(input_x, self.gamma, self.beta)
        return y

    def extend_repr(self):
        # MindSpore 2.10 prints "gammaParameter (...)"; the '=' it forgets is restored here.
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")
