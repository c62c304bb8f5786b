"""Adafactor: Adam-like steps with a factored second moment -- ``nn.AdaFactor``.

For a matrix the second moment is kept as one running average per row and
one per column (``n + m`` numbers instead of ``n * m``), and their outer
product, normalised, stands for the full matrix.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([[1.0, -1.0], [0.5, 2.0]]), name="w")
>>> opt = nn.AdaFactor([w])
>>> _ = opt((ms.Tensor([[0.1, 0.2], [0.3, 0.4]]),))
>>> [p.name for p in opt.get_parameters()][3:]
['exp_avg.w', 'exp_avg_sq_row_w', 'exp_avg_sq_col_w', 'exp_avg_sq_w', 'afactor_step']
"""
from __future__ import annotations

import logging

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter, ParameterTuple
from ...tensor import Tensor
from ._checks import check_bool, float_in_range, non_negative_float
from .optimizer import Optimizer, _writable

__all__ = ["AdaFactor"]


class AdaFactor(Optimizer):
    r"""Adafactor (Shazeer & Stern) with MindSpore's options.

    At step ``t`` (``beta2t = 1 - t ** -decay_rate``), for each parameter ``X``
    with gradient ``G``::

        lr_t   = min(0.01, 1 / sqrt(t))        relative_step (min(1e-6 t, 1/sqrt(t)) with warmup_init)
        alpha  = lr_t * max(eps[1], RMS(X))    scale_parameter (else lr_t)
        V      = beta2t * V + (1 - beta2t) * (G*G + eps[0])     (rows and columns for a matrix)
        U      = G / sqrt(V)
        U      = alpha * U / max(1, RMS(U) / clip_threshold)
        M      = beta1 * M + (1 - beta1) * U   (with beta1 > 0; then U = M)
        X      = X - weight_decay * alpha * X - U

    For two or more dimensions ``V`` is the outer product of the row averages
    ``R`` and the column averages ``C`` divided by the mean of ``R``.

    Parameters
    ----------
    params : list of Parameter or list of dict
    learning_rate : float, int, LearningRateSchedule or None
        ``None`` with ``relative_step=True`` (the default): the rate follows
        the step count.  A number needs ``relative_step=False``.  With a
        schedule neither the relative step nor the parameter scale applies.
    eps : tuple of 2 floats
        ``(eps1, eps2)``: added to the squared gradient / lower bound of the
        parameter scale (default ``(1e-30, 1e-3)``).
    clip_threshold : float
        >= 0 (default 1.0).
    decay_rate : float
        In (0, 1) (default 0.8).
    beta1 : float or None
        First-moment decay; 0 or None keeps no first moment (default 0.9).
    weight_decay : float
        In [0, 1): decoupled decay, applied to every parameter.
    scale_parameter, relative_step, warmup_init, compression : bool
        ``compression`` keeps the second moment of vectors in float16.
    loss_scale : float
        Recorded; as in MindSpore the gradients are used as given (not
        divided by it), and weight decay is not scaled.

    Notes
    -----
    State, named as MindSpore names it: ``exp_avg.<name>`` (or one shared 0-d
    placeholder without a first moment), ``exp_avg_sq_row_<name>``,
    ``exp_avg_sq_col_<name>``, ``exp_avg_sq_<name>`` and ``afactor_step``.

    Raises
    ------
    ValueError
        A ``learning_rate`` together with ``relative_step``, ``warmup_init``
        without ``relative_step``, no rate without ``relative_step``, an
        ``eps`` of another length, values out of range.
    TypeError
        Arguments of the wrong type.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(4, 3)
    >>> opt = nn.AdaFactor(net.trainable_params(), learning_rate=0.01, relative_step=False, scale_parameter=False)
    >>> opt.exp_avg_sq_row[0].shape, opt.exp_avg_sq_col[0].shape
    ((3,), (4,))
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
                 loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("For 'AdaFactor', a 'learning_rate' cannot be combined with relative_step=True "
                             f"(the rate then follows the step count), but got learning_rate={learning_rate!r}.")
        if warmup_init and not relative_step:
            raise ValueError("For 'AdaFactor', 'warmup_init' requires relative_step=True.")
        if learning_rate is None and not relative_step:
            raise ValueError("For 'AdaFactor', relative_step=False needs a 'learning_rate', but got None.")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        # A schedule or a list cannot be rescaled step by step: it is used as given.
        self_scale_lr = isinstance(learning_rate, (float, int))
        if not self_scale_lr and (relative_step or scale_parameter):
            logging.getLogger(__name__).warning(
                "AdaFactor: with a learning-rate schedule neither relative_step nor scale_parameter applies")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        if not isinstance(eps, (list, tuple)):
            raise TypeError(f"For '{name}', 'eps' must be a list or tuple of 2 floats, but got {type(eps).__name__}.")
        if len(eps) != 2:
            raise ValueError(f"For '{name}', 'eps' must hold 2 values (eps1, eps2), but got {len(eps)}.")
        for index, value in enumerate(eps):
            non_negative_float(value, f"eps{index}", name)
        non_negative_float(clip_threshold, "clip_threshold", name)
        float_in_range(decay_rate, "decay_rate", name, 0.0, 1.0)
        if isinstance(weight_decay, int) and not isinstance(weight_decay, bool) and not 0 <= weight_decay < 1:
            raise ValueError(f"For '{name}', 'weight_decay' must be in the range [0.0, 1.0), but got {weight_decay}.")
        float_in_range(float(weight_decay) if isinstance(weight_decay, int) else weight_decay, "weight_decay", name,
                       0.0, 1.0, closed=(True, False))
        for arg, value in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                           ("compression", compression)):
            check_bool(value, arg, name)
        if isinstance(beta1, bool) or not isinstance(beta1, (int, float)):
            raise TypeError(f"For '{name}', the type of 'beta1' should be 'int' or 'float', but got type "
                            f"'{type(beta1).__name__}'.")
        non_negative_float(float(beta1), "beta1", name)
        self.scale_lr = self_scale_lr
        self.eps = tuple(float(np.float32(value)) for value in eps)
        self.clip_threshold = float(np.float32(clip_threshold))
        self.decay_rate = -decay_rate
        self.beta1 = float(np.float32(beta1))
        self.weight_decay = float(np.float32(weight_decay))
        self.weight_decay_flag = bool(weight_decay)
        self.scale_parameter = scale_parameter and self_scale_lr
        self.relative_step = relative_step
        self.warmup_init = warmup_init
        self.compression = compression
        self.use_first_moment = beta1 > 0
        self._init_state()
        self.step = Parameter(Tensor(np.zeros((1,), np.float32)), name="afactor_step")

    def _init_state(self):
        if self.use_first_moment:
            self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        else:
            placeholder = Parameter(Tensor(np.float32(0.0)))
            self.exp_avg = ParameterTuple([placeholder] * self.param_length)
        rows, cols, squares = [], [], []
        for p in self.parameters:
            shape, dtype = tuple(p.shape), p.dtype
            if len(shape) > 1:
                rows.append(_zeros(shape[:-1], dtype, f"exp_avg_sq_row_{p.name}"))
                cols.append(_zeros(shape[:-2] + shape[-1:], dtype, f"exp_avg_sq_col_{p.name}"))
                squares.append(_zeros((1,), dtype, f"exp_avg_sq_{p.name}"))
            else:
                rows.append(_zeros((1,), dtype, f"exp_avg_sq_row_{p.name}"))
                cols.append(_zeros((1,), dtype, f"exp_avg_sq_col_{p.name}"))
                squares.append(_zeros(shape, "float16" if self.compression else dtype, f"exp_avg_sq_{p.name}"))
        self.exp_avg_sq_row = ParameterTuple(rows)
        self.exp_avg_sq_col = ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(squares)

    @property
    def supports_memory_efficient_fp16(self):
        """True: the state may be kept in float16."""
        return True

    @property
    def supports_flat_params(self):
        """False: parameters are updated one by one, never as one flat buffer."""
        return False

    def construct(self, gradients):
        grads = self._grad_arrays(gradients)
        lrs = self._per_param_lrs()
        self._advance()
        be = _backend.current()
        xp = be.xp
        counter = _writable(self.step)
        counter += 1.0
        t = np.float32(be.to_host(counter).reshape(-1)[0])
        if self.scale_lr and self.relative_step:
            first = np.float32(1e-6) * t if self.warmup_init else np.float32(1e-2)
            rate = min(first, np.float32(1.0) / np.sqrt(t))
            lrs = [be.asarray(rate, dtype=np.float32)] * self.param_length
        beta2t = np.float32(1.0) - t ** np.float32(self.decay_rate)
        for index, (p, g, lr) in enumerate(zip(self.parameters, grads, lrs)):
            self._update(xp, index, _writable(p), g, xp.reshape(lr, ()), beta2t)
        return self._done()

    def _update(self, xp, index, w, g, lr, beta2t):
        work = np.float32 if w.dtype == np.float16 else w.dtype
        x = w if w.dtype == work else xp.astype(w, work)
        g = g if g.dtype == work else xp.astype(g, work)
        lr = xp.astype(lr, work)
        if self.scale_parameter:
            lr = lr * xp.maximum(xp.asarray(self.eps[1], dtype=work), _rms(xp, x))
        squared = g * g + self.eps[0]
        if g.ndim >= 2:
            row = _moving(xp, self.exp_avg_sq_row[index], xp.mean(squared, axis=-1), beta2t)
            col = _moving(xp, self.exp_avg_sq_col[index], xp.mean(squared, axis=-2), beta2t)
            row_factor = 1.0 / xp.sqrt(row / xp.mean(row, axis=-1, keepdims=True))
            update = xp.expand_dims(row_factor, -1) * (1.0 / xp.sqrt(xp.expand_dims(col, -2))) * g
        else:
            average = _moving(xp, self.exp_avg_sq[index], squared, beta2t)
            update = g / xp.sqrt(average)
        update = update / xp.maximum(_rms(xp, update) / self.clip_threshold, 1.0) * lr
        if self.use_first_moment:
            m = self.exp_avg[index]
            m._data = xp.astype(_as(xp, m._data, work) * self.beta1 + update * (1.0 - self.beta1), m._data.dtype)
            update = _as(xp, m._data, work)
        if self.weight_decay_flag:
            x = x + x * (-self.weight_decay * lr)
        w[...] = _as(xp, x - update, w.dtype)


def _zeros(shape, dtype, name):
    from ...common.initializer import initializer

    return Parameter(initializer(0, shape, dtype), name=name)


def _rms(xp, array):
    return xp.sqrt(xp.mean(array * array))


def _moving(xp, param, value, beta2t):
    """``param = beta2t * param + (1 - beta2t) * value`` (stored in the Parameter's dtype); the new value."""
    current = param._data
    work = value.dtype
    new = _as(xp, current, work) * beta2t + value * (np.float32(1.0) - beta2t)
    param._data = _as(xp, new, current.dtype)
    return _as(xp, param._data, work)


def _as(xp, array, dtype):
    return array if array.dtype == dtype else xp.astype(array, dtype)
