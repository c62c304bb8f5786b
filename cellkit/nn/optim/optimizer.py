"""``nn.Optimizer``: the base of every optimizer (learning rates, weight decay, groups).

An optimizer is a Cell (``auto_prefix=False``, so it never renames the
network's Parameters) holding

- ``parameters`` -- a :class:`~cellkit.ParameterTuple` of what it updates;
- ``learning_rate`` -- a Parameter named ``learning_rate`` (a fixed rate), a
  Cell computing the rate from ``global_step`` (a list, a 1-D Tensor or a
  :class:`~cellkit.nn.LearningRateSchedule`), or one entry per parameter when
  parameter groups set their own ``'lr'``;
- ``global_step`` -- an Int32 Parameter of shape ``(1,)`` counting updates;
- its own state (``moments.<name>`` ...), made by cloning ``parameters``.

Calling ``optimizer(gradients)`` with one gradient per parameter applies one
update in place -- outside any gradient tape -- and returns a tuple of
``True``, one per parameter, as MindSpore 2.10 does in PyNative mode.  A step
checks everything first (the number, types and shapes of the gradients,
floating-point parameters, a finite rate >= 0) and raises before it changes
anything: a failed step leaves the parameters, ``global_step`` and every
moment as they were.

Every update goes through the same preparation, in MindSpore's order:
:meth:`Optimizer.decay_weight` (``g + weight_decay * w``), then
:meth:`Optimizer.gradients_centralization`, then :meth:`Optimizer.scale_grad`
(``g / loss_scale``); :meth:`Optimizer.get_lr` reads the rate for the current
step before ``global_step`` is increased.

>>> import cellkit as ms
>>> from cellkit import nn
>>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
>>> opt = nn.SGD([w], learning_rate=0.5)
>>> opt((ms.Tensor([1.0, -1.0]),))
(True,)
>>> print(w.asnumpy(), opt.global_step.asnumpy())
[0.5 2.5] [1]
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ... import backend as _backend
from ...parameter import Parameter, ParameterTuple
from ...tensor import Tensor
from ..cell import Cell
from ..layers.container import CellList
from .lr_schedule import LearningRateSchedule

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


def _float_tensor(value):
    return Tensor(np.asarray(value, dtype=np.float32))


class Optimizer(Cell):
    """Base class of optimizers; subclasses define ``construct(gradients)``.

    Parameters
    ----------
    learning_rate : float, int, Tensor, Iterable or LearningRateSchedule
        A fixed rate (a number >= 0 or a 0-d Tensor), or a dynamic one: the
        i-th update uses the i-th value of a list / 1-D Tensor, or what the
        schedule returns for step i.
    parameters : list of Parameter, or list of dict
        What to update.  Groups are dicts with the keys ``'params'`` (required),
        ``'lr'``, ``'weight_decay'`` and ``'grad_centralization'``; one extra
        dict ``{'order_params': [...]}`` may fix the order the parameters are
        kept in (it must list exactly the grouped parameters).
    weight_decay : float, int or Cell
        L2 penalty added to the gradients (``g + weight_decay * w``).  Without
        groups it skips parameters whose name contains ``'beta'`` or ``'gamma'``
        (normalisation shifts and scales); with groups each group's value
        applies to all its parameters, and a group with 0 is not decayed.  A
        Cell computes the value from ``global_step``.
    loss_scale : float
        The factor the gradients were multiplied by (mixed precision); they
        are divided by it before the update.  The weight decay is scaled to
        match, so it acts on the true gradients.

    Raises
    ------
    TypeError
        Bad types for ``parameters`` (neither Parameters nor dicts),
        ``learning_rate``, ``weight_decay`` or ``loss_scale``.
    ValueError
        Empty ``parameters``, a negative, infinite or NaN rate (also in a
        Tensor or list of rates) or weight decay, a
        non-positive ``loss_scale``, a learning-rate Tensor with more than one
        dimension, dynamic group rates of different lengths, or
        ``order_params`` that do not match the groups.
    KeyError
        An unknown key in a parameter group.
    RuntimeError
        The same parameter in two groups.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 2)
    >>> groups = [{'params': [net.weight], 'lr': 0.05, 'weight_decay': 0.01},
    ...           {'params': [net.bias]}]
    >>> opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.9)
    >>> [float(opt.get_lr_parameter(p).asnumpy()) for p in (net.weight, net.bias)]
    [0.05000000074505806, 0.10000000149011612]
    >>> opt.decay_flags
    (True, False)
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        parameters = self._parameters_base_check(parameters, "parameters")
        if not all(isinstance(x, Parameter) for x in parameters) and not all(isinstance(x, dict) for x in parameters):
            raise TypeError(
                f"For '{self.cls_name}', all elements of the argument 'parameters' must be Parameters or all must be "
                f"dicts (parameter groups), but got {[type(x).__name__ for x in parameters]}"
            )
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float):
            raise TypeError(f"For '{self.cls_name}', 'loss_scale' must be a float, but got {type(loss_scale).__name__}")
        if not loss_scale > 0:
            raise ValueError(f"For '{self.cls_name}', 'loss_scale' must be > 0, but got {loss_scale}")
        self.loss_scale = loss_scale
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.grad_centralization = False
        self.is_group = False
        self.is_group_lr = False
        self.is_group_params_ordered = False
        self._unique = True
        self.global_step = Parameter(Tensor(np.zeros((1,), np.int32)), name="global_step")
        learning_rate = self._preprocess_single_lr(learning_rate)
        if isinstance(parameters[0], dict):
            self.is_group = True
            self.group_params = []
            self.group_lr = []
            self.group_weight_decay = []
            self.group_grad_centralization = []
            self._init_group_params(parameters, learning_rate, weight_decay, self.grad_centralization)
        self._init_opt_attrs(learning_rate, parameters, weight_decay)

    # ------------------------------------------------------------ construction
    @staticmethod
    def _parameters_base_check(parameters, what):
        if parameters is None:
            raise ValueError(f"For 'Optimizer', the argument {what} can not be None.")
        if isinstance(parameters, (Tensor, dict)) or not isinstance(parameters, Iterable):
            raise TypeError(
                f"For 'Optimizer', the argument {what} must be an iterable of Parameters (or of group dicts), "
                f"but got {type(parameters).__name__}"
            )
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For 'Optimizer', the argument {what} must not be empty.")
        return parameters

    def _init_opt_attrs(self, learning_rate, parameters, weight_decay):
        weight_decay = self._preprocess_weight_decay(weight_decay)
        if self.is_group_lr:
            if self.dynamic_lr:
                self.learning_rate = CellList(self.group_lr, auto_prefix=False)
            else:
                self.learning_rate = ParameterTuple(self.group_lr)
        else:
            self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")
        if self.is_group:
            self.parameters = ParameterTuple(self.group_params)
            self.decay_flags = tuple(isinstance(x, Cell) or x > 0 for x in self.group_weight_decay)
            self.dynamic_decay_flags = tuple(isinstance(x, Cell) for x in self.group_weight_decay)
            self.weight_decay = tuple(x if isinstance(x, Cell) else _float_tensor(x) for x in self.group_weight_decay)
            self.exec_weight_decay = any(self.decay_flags)
            self.grad_centralization_flags = tuple(self.group_grad_centralization)
        else:
            self.parameters = ParameterTuple(parameters)
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in self.parameters)
            self.dynamic_decay_flags = isinstance(weight_decay, Cell)
            self.exec_weight_decay = self.dynamic_decay_flags or weight_decay > 0
            self.weight_decay = weight_decay if self.dynamic_decay_flags else _float_tensor(weight_decay)
        object.__setattr__(self, "_parameters", self.parameters)
        for p in self.parameters:
            if p.unique:
                self._unique = False
                break
        self.reciprocal_scale = _float_tensor(1.0 / self.loss_scale)
        self.need_scale = self.loss_scale != 1.0
        self.param_length = len(self.parameters)
        self.optim_filter = (True,) * self.param_length
        # Host-side copies of the fixed weight decays, one per parameter (None: dynamic or not decayed).
        if self.is_group:
            values = self.group_weight_decay
        else:
            values = [weight_decay] * self.param_length
        self._decay_values = tuple(
            None if not flag or isinstance(v, Cell) else float(v) for flag, v in zip(self.decay_flags, values)
        )

    def _observed_parameters(self):
        """Announced to observers (the memory profiler): the trained Parameters, and the rest as optimizer state."""
        trained = {id(p) for p in self.parameters}
        return [(p, "parameter" if id(p) in trained else "optimizer state") for _, p in self._own_parameters()]

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, (float, int)) and not isinstance(weight_decay, bool):
            weight_decay = float(weight_decay)
            if weight_decay < 0:
                raise ValueError(f"For '{self.cls_name}', 'weight_decay' must be >= 0, but got {weight_decay}")
            return weight_decay * self.loss_scale
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return _ScaledWeightDecay(weight_decay, self.loss_scale)
        raise TypeError(
            f"For '{self.cls_name}', 'weight_decay' must be an int, a float or a Cell, but got {type(weight_decay).__name__}"
        )

    def _preprocess_single_lr(self, learning_rate):
        """Check a learning rate; return a float, a float32 Tensor or a LearningRateSchedule."""
        if isinstance(learning_rate, bool):
            raise TypeError(f"For '{self.cls_name}', 'learning_rate' must not be a bool")
        if isinstance(learning_rate, (float, int)):
            learning_rate = float(learning_rate)
            if not (math.isfinite(learning_rate) and learning_rate >= 0):  # (MindSpore lets inf through)
                raise ValueError(
                    f"For '{self.cls_name}', the 'learning rate' must be float and must >= 0, but got '{learning_rate}'"
                )
            return learning_rate
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            return Tensor(self._checked_rates(learning_rate.asnumpy().astype(np.float32)))
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim > 1:
                raise ValueError(
                    f"For '{self.cls_name}', a Tensor 'learning_rate' must have 0 or 1 dimension, "
                    f"but got {learning_rate.ndim}"
                )
            self.dynamic_lr = True
            return Tensor(self._checked_rates(learning_rate.asnumpy().astype(np.float32)))
        if isinstance(learning_rate, (str, bytes)):
            # MindSpore reads a str as an iterable of rates and fails converting it: a ValueError.
            raise ValueError(
                f"For '{self.cls_name}', 'learning_rate' must be a number, a Tensor, an iterable of numbers or a "
                f"LearningRateSchedule, but got the {type(learning_rate).__name__} {learning_rate!r}"
            )
        if isinstance(learning_rate, Iterable) and not isinstance(learning_rate, Cell):
            self.dynamic_lr = True
            return Tensor(self._checked_rates(np.array(list(learning_rate), dtype=np.float32)))
        raise TypeError(
            f"For '{self.cls_name}', 'learning_rate' must be an int, a float, a Tensor, an Iterable or a "
            f"LearningRateSchedule, but got {type(learning_rate).__name__}"
        )

    def _checked_rates(self, rates):
        """``rates`` (a host array), or ValueError if one is NaN, infinite or negative.

        MindSpore checks only a number given as the rate; a Tensor or a list
        of rates is checked here too, since such a rate can only corrupt the
        weights.
        """
        bad = rates[~(np.isfinite(rates) & (rates >= 0))]
        if bad.size:
            raise ValueError(f"For '{self.cls_name}', every learning rate must be a finite number >= 0, "
                             f"but got {bad.reshape(-1)[0]}")
        return rates

    def _build_single_lr(self, learning_rate, name):
        """A float or 0-d Tensor becomes a Parameter; a 1-D Tensor a Cell indexing it by step."""
        if isinstance(learning_rate, float) or (isinstance(learning_rate, Tensor) and learning_rate.ndim == 0):
            value = learning_rate if isinstance(learning_rate, Tensor) else _float_tensor(learning_rate)
            param = Parameter(value, name=name)
            if self.is_group_lr and self.dynamic_lr:
                return _ConstantLR(param)
            return param
        if isinstance(learning_rate, Tensor):
            return _IteratorLearningRate(learning_rate, name)
        return learning_rate

    def _check_group_params(self, parameters):
        for group in parameters:
            if not isinstance(group, dict):
                raise TypeError(f"For '{self.cls_name}', every parameter group must be a dict, but got {type(group).__name__}")
            unknown = [k for k in group if k not in _GROUP_KEYS]
            if unknown:
                raise KeyError(
                    f"For 'Optimizer', the key in group params must be one of in {list(_GROUP_KEYS)}, but got {unknown}."
                )
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(
                        "For 'Optimizer', the order params dict in group parameters should only include the "
                        f"'order_params' key, but got {list(group)}."
                    )
                if not isinstance(group["order_params"], Iterable):
                    raise TypeError(
                        "For 'Optimizer', the value of 'order_params' in group parameters must be Iterable, "
                        f"but got {type(group['order_params']).__name__}."
                    )
                continue
            if "params" not in group:
                raise KeyError(f"For '{self.cls_name}', every parameter group needs a 'params' key, but got {list(group)}")
            for index, p in enumerate(self._parameters_base_check(group["params"], "group `params`")):
                if not isinstance(p, Parameter):
                    raise TypeError(
                        f"For 'Optimizer', the element in group parameters must be Parameter type, but got "
                        f"{type(p).__name__} at index {index}."
                    )

    def _parse_group_params(self, parameters, learning_rate):
        self._check_group_params(parameters)
        length = learning_rate.size if isinstance(learning_rate, Tensor) and learning_rate.ndim == 1 else 0
        for group in parameters:
            if "order_params" in group:
                self.is_group_params_ordered = True
                continue
            if "lr" in group:
                self.is_group_lr = True
                group_lr = self._preprocess_single_lr(group["lr"])
                if isinstance(group_lr, Tensor) and group_lr.ndim == 1:
                    if length == 0:
                        length = group_lr.size
                    elif group_lr.size != length:
                        raise ValueError(
                            "For 'Optimizer', the Tensor type dynamic learning rate in group must be the same size "
                            "as the argument 'learning_rate'."
                        )

    def _init_group_params(self, parameters, learning_rate, weight_decay, grad_centralization):
        self._parse_group_params(parameters, learning_rate)
        default_lr = self._build_single_lr(learning_rate, "learning_rate")
        seen = []
        order = []
        for group_index, group in enumerate(parameters):
            if "order_params" in group:
                order = list(group["order_params"])
                continue
            members = list(group["params"])
            if "lr" in group:
                lr = self._build_single_lr(self._preprocess_single_lr(group["lr"]), f"learning_rate_group_{group_index}")
            else:
                lr = default_lr
            decay = self._preprocess_weight_decay(group.get("weight_decay", weight_decay))
            centralize = grad_centralization
            if "grad_centralization" in group:
                if not isinstance(group["grad_centralization"], bool):
                    raise TypeError(
                        "For 'Optimizer', the 'gradients_centralization' must be bool type, but got "
                        f"{type(group['grad_centralization']).__name__}."
                    )
                self.grad_centralization = centralize = group["grad_centralization"]
            for p in members:
                if p.name in seen:
                    raise RuntimeError(
                        f"For 'Optimizer', the {p.name} parameter already exists, it does not support repeated "
                        "setting. Please check whether the optimizer parameter has been set multiple times."
                    )
                seen.append(p.name)
                self.group_params.append(p)
                self.group_lr.append(lr)
                self.group_weight_decay.append(decay)
                self.group_grad_centralization.append(centralize)
        if self.is_group_params_ordered and order:
            self._order_group_params(order)

    def _order_group_params(self, order):
        if len(order) != len(self.group_params):
            raise ValueError(
                "For 'Optimizer', the length of order parameters must be the same as the length of group parameters, "
                f"but got order parameters' length {len(order)}, group parameters' length {len(self.group_params)}."
            )
        names = [p.name for p in order]
        slots = [None] * len(order)
        for entry in zip(self.group_params, self.group_lr, self.group_weight_decay, self.group_grad_centralization):
            try:
                slots[names.index(entry[0].name)] = entry
            except ValueError:
                raise ValueError(
                    f"For 'Optimizer', the parameter '{entry[0].name}' is in a group but not in 'order_params'"
                ) from None
        self.group_params = [s[0] for s in slots]
        self.group_lr = [s[1] for s in slots]
        self.group_weight_decay = [s[2] for s in slots]
        self.group_grad_centralization = [s[3] for s in slots]

    # ------------------------------------------------------------- properties
    @property
    def unique(self):
        """Whether sparse gradients would be de-duplicated (recorded; cellkit's gradients are dense)."""
        return self._unique

    @unique.setter
    def unique(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Optimizer', the property 'unique' must be bool, but got {type(value).__name__}")
        self._unique = value

    @property
    def target(self):
        """Where the update runs: ``'CPU'`` on NumPy, ``'GPU'`` on CuPy."""
        return "GPU" if _backend.current().name == "cupy" else "CPU"

    # ------------------------------------------------- MindSpore's public steps
    def get_lr(self):
        """The learning rate for the current step.

        The ``learning_rate`` Parameter for a fixed rate; a 0-d Tensor for a
        dynamic one; a tuple with one entry per parameter when groups set
        their own rates.
        """
        if self.dynamic_lr:
            if self.is_group_lr:
                return tuple(Tensor._from_array(a) for a in self._lr_arrays())
            return Tensor._from_array(self._lr_arrays()[0])
        return self.learning_rate if not self.is_group_lr else tuple(self.learning_rate)

    def get_lr_parameter(self, param):
        """The learning-rate Parameter (or schedule Cell) used for ``param`` (or a list of them).

        Raises
        ------
        TypeError
            If ``param`` is neither a Parameter nor a list.
        ValueError
            If a parameter is not updated by this optimizer.
        """
        if isinstance(param, Parameter):
            params, single = [param], True
        elif isinstance(param, list):
            params, single = param, False
        else:
            raise TypeError(f"For 'get_lr_parameter', the 'param' must be 'Parameter' or 'list' type, but got {type(param)}.")
        ids = [id(p) for p in self.parameters]
        found = []
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'get_lr_parameter', every entry must be a Parameter, but got {type(p).__name__}")
            if id(p) not in ids:
                raise ValueError(
                    f"For 'get_lr_parameter', the parameter {p.name} is not in optimizer, please check whether the "
                    "argument 'param' is correct."
                )
            lr = self.learning_rate[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            found.append(lr.learning_rate if isinstance(lr, (_ConstantLR, _IteratorLearningRate)) else lr)
        return found[0] if single else found

    def get_weight_decay(self):
        """The weight decay for the current step (a Tensor, or one per parameter with groups).

        It is already multiplied by ``loss_scale``.
        """
        if self.dynamic_weight_decay:
            if self.is_group:
                return tuple(wd(self.global_step) if dyn else wd
                             for wd, dyn in zip(self.weight_decay, self.dynamic_decay_flags))
            return self.weight_decay(self.global_step)
        return self.weight_decay

    def decay_weight(self, gradients):
        """``g + weight_decay * w`` for each parameter that is decayed; returns a tuple of Tensors."""
        return _wrap(self._decay_arrays(self._grad_arrays(gradients)))

    def gradients_centralization(self, gradients):
        """Subtract each gradient's mean over all but its first axis (groups that ask for it).

        As in MindSpore only gradients with at least two dimensions and a
        second dimension divisible by 16 (convolution kernels) are centralised.
        """
        return _wrap(self._centralize_arrays(self._grad_arrays(gradients)))

    def scale_grad(self, gradients):
        """Divide the gradients by ``loss_scale`` (returns them unchanged when it is 1)."""
        return _wrap(self._scale_arrays(self._grad_arrays(gradients)))

    def flatten_gradients(self, gradients):
        """The gradients, unchanged: cellkit does not flatten parameters into one buffer."""
        return gradients

    def construct(self, *hyper_params):
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients)")

    # ------------------------------------------------------- array-level steps
    def _grad_arrays(self, gradients):
        """The backend arrays of ``gradients``, checked against the parameters."""
        if isinstance(gradients, Tensor) or not isinstance(gradients, (tuple, list)):
            raise TypeError(
                f"For '{self.cls_name}', the gradients must be a tuple with one Tensor per parameter, "
                f"but got {type(gradients).__name__}"
            )
        if len(gradients) != self.param_length:
            raise ValueError(
                f"For '{self.cls_name}', 'gradients' must hold one Tensor per parameter, but got "
                f"{len(gradients)} gradients for {self.param_length} parameters "
                f"({', '.join(p.name for p in self.parameters)})"
            )
        arrays = []
        for p, g in zip(self.parameters, gradients):
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"For '{self.cls_name}', the gradient of '{p.name}' must be a Tensor, but got {type(g).__name__}"
                )
            if not p.dtype.is_floating_point:
                # Checked before anything is updated: an integer weight would fail (or round the
                # rate to 0) in the middle of a step, after the others had moved (MindSpore's
                # update kernels refuse it too).
                raise TypeError(
                    f"For '{self.cls_name}', only floating-point Parameters can be updated, but '{p.name}' is {p.dtype}"
                )
            a = g._require_data("the optimizer")
            if tuple(a.shape) != tuple(p.shape):
                raise ValueError(
                    f"For '{self.cls_name}', the gradient of '{p.name}' has shape {tuple(a.shape)}, "
                    f"but the parameter has shape {tuple(p.shape)}"
                )
            arrays.append(a)
        return arrays

    def _decay_arrays(self, grads):
        if not self.exec_weight_decay:
            return grads
        values = self._decay_values
        if self.dynamic_weight_decay:
            values = self._dynamic_decays()
        out = []
        for p, g, wd in zip(self.parameters, grads, values):
            out.append(g if wd is None else g + _hyper(wd, p._data) * p._data)
        return out

    def _dynamic_decays(self):
        current = self.get_weight_decay()
        if not self.is_group:
            current = (current,) * self.param_length
        values = []
        for flag, wd in zip(self.decay_flags, current):
            values.append(None if not flag else _scalar(wd, self.weight_decay))
        return values

    def _centralize_arrays(self, grads):
        if not self.is_group or not any(self.grad_centralization_flags):
            return grads
        xp = _backend.current().xp
        out = []
        for g, flag in zip(grads, self.grad_centralization_flags):
            if flag and g.ndim >= 2 and g.shape[1] % 16 == 0:
                g = g - xp.mean(g, axis=tuple(range(1, g.ndim)), keepdims=True)
            out.append(g)
        return out

    def _scale_arrays(self, grads):
        if not self.need_scale:
            return grads
        scale = self.reciprocal_scale._data
        return [g * _hyper(scale, g) for g in grads]

    def _prepare(self, gradients):
        """The gradients after decay, centralisation and loss scaling (arrays)."""
        grads = self._grad_arrays(self.flatten_gradients(gradients))
        return self._scale_arrays(self._centralize_arrays(self._decay_arrays(grads)))

    def _lr_arrays(self):
        """One 0-d array per parameter (dynamic group rates) or a one-element list (shared rate)."""
        if not self.dynamic_lr:
            if self.is_group_lr:
                return [p._data for p in self.learning_rate]
            return [self.learning_rate._data]
        if self.is_group_lr:
            cache = {}
            out = []
            for cell in self.learning_rate:
                if id(cell) not in cache:
                    cache[id(cell)] = _scalar(cell(self.global_step), cell)
                out.append(cache[id(cell)])
            return out
        return [_scalar(self.learning_rate(self.global_step), self.learning_rate)]

    def _per_param_lrs(self):
        lrs = self._lr_arrays()
        self._check_step_rates(lrs)
        return lrs if len(lrs) == self.param_length else lrs * self.param_length

    def _check_step_rates(self, lrs):
        """Refuse a NaN, infinite or negative rate for this step before anything is updated.

        The rate may have been set after construction (``learning_rate.set_data``)
        or come from a schedule; one host read per distinct rate.
        """
        seen = set()
        for index, lr in enumerate(lrs):
            if id(lr) in seen:
                continue
            seen.add(id(lr))
            value = float(_backend.to_host(lr).reshape(-1)[0])
            if not (math.isfinite(value) and value >= 0.0):
                owner = f" of '{self.parameters[index].name}'" if len(lrs) > 1 else ""
                raise ValueError(
                    f"For '{self.cls_name}', the learning rate{owner} is {value} at step "
                    f"{int(_backend.to_host(self.global_step._data).reshape(-1)[0])}; it must be a finite number "
                    ">= 0 (nothing was updated)"
                )

    def _advance(self):
        """``global_step += 1`` in place."""
        step = self.global_step
        step._data = _writable(step)
        step._data += 1

    def _done(self):
        return (True,) * self.param_length

    def extend_repr(self):
        return ""


def _wrap(arrays):
    return tuple(Tensor._from_array(a) for a in arrays)


def _scalar(value, source):
    """The 0-d array of a learning rate returned by a schedule."""
    if not isinstance(value, Tensor):
        if isinstance(value, (float, int)) and not isinstance(value, bool):
            return _backend.current().asarray(np.float32(value))
        raise TypeError(
            f"The learning-rate schedule {type(source).__name__} must return a Tensor or a float, "
            f"but returned {type(value).__name__}"
        )
    if value.size != 1:
        raise ValueError(
            f"The learning-rate schedule {type(source).__name__} must return one value, but returned shape {value.shape}"
        )
    xp = _backend.current().xp
    return xp.reshape(value._data, ())


def _hyper(value, like):
    """A hyper-parameter (float or 0-d array) in the dtype of the array ``like``."""
    if isinstance(value, float):
        return value
    if value.dtype != like.dtype:
        return _backend.current().xp.astype(value, like.dtype)
    return value


# Rows of at most this many elements per slice when an update runs in slices (NumPy only).
_SLICE = 1 << 15


def _subtract_scaled(w, scale, step):
    """``w -= scale * step`` in place; on NumPy, slice by slice for big arrays.

    ``scale * step`` would otherwise be a temporary as big as the weight --
    the largest allocation of a plain SGD step.  In slices it stays in the
    CPU cache and the step's peak memory does not grow with the model.
    """
    if type(w) is not np.ndarray or w.size <= 2 * _SLICE or not w.flags.c_contiguous or step.shape != w.shape:
        w -= scale * step
        return
    flat_w, flat_step = w.reshape(-1), step.reshape(-1)
    for start in range(0, flat_w.size, _SLICE):
        end = start + _SLICE
        flat_w[start:end] -= scale * flat_step[start:end]


def _writable(param):
    """The Parameter's array, copied once if NumPy marks it read-only (so it can be updated in place)."""
    data = param._data
    if data is None:
        param.init_data()
        data = param._data
    flags = getattr(data, "flags", None)
    if flags is not None and not getattr(flags, "writeable", True):
        data = data.copy()
        param._data = data
    return data


class _ConstantLR(LearningRateSchedule):
    """A fixed group rate beside dynamic ones: returns its Parameter whatever the step."""

    def __init__(self, learning_rate):
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return self.learning_rate


class _IteratorLearningRate(LearningRateSchedule):
    """A list of rates: step i uses entry i."""

    def __init__(self, learning_rate, name):
        super().__init__()
        if not isinstance(learning_rate, Tensor) or learning_rate.ndim != 1:
            raise ValueError("For 'Optimizer', a dynamic 'learning_rate' must be a 1-D Tensor")
        self.learning_rate = Parameter(learning_rate, name=name)

    def construct(self, global_step):
        rates = self.learning_rate
        step = int(_backend.to_host(global_step._data).reshape(-1)[0])
        if not 0 <= step < rates.shape[0]:
            raise RuntimeError(
                f"The dynamic learning rate '{rates.name}' has {rates.shape[0]} values (one per step), "
                f"but the optimizer is at step {step}: give a longer list or a LearningRateSchedule"
            )
        return Tensor._from_array(rates._data[step:step + 1])


class _ScaledWeightDecay(Cell):
    """A weight-decay schedule multiplied by the loss scale."""

    def __init__(self, weight_decay, loss_scale):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = loss_scale

    def construct(self, global_step):
        value = self.weight_decay(global_step)
        return value * self.loss_scale
