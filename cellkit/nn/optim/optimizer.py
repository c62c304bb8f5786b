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

# ----------------------------------------------------------------------------
# Reading the constructor's arguments.
#
# Each argument is read by one function, which checks it and returns plain
# values; the Optimizer then stores what the update step needs:
#
#   _as_parameter_list  'parameters' (or a group's 'params') -> a non-empty list
#   _read_loss_scale    'loss_scale'                         -> a float > 0
#   _read_rate          a learning rate -> (rate, changes_per_step)
#   _read_weight_decay  a weight decay  -> a float or a Cell, times the loss scale
#   _read_groups        group dicts     -> _Group records and the 'order_params' list
#   _rate_holder        a rate          -> what the step reads (Parameter or Cell)
# ----------------------------------------------------------------------------

# The keys a group dict may have, in the order the KeyError message lists them.
_ALLOWED_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


def _float_tensor(value):
    """A float32 Tensor of ``value`` (a number or an array)."""
    return Tensor(np.asarray(value, dtype=np.float32))


def _as_parameter_list(value, what):
    """``value`` as a list, refusing None, a Tensor, a dict, a non-iterable and an empty iterable."""
    if value is None:
        raise ValueError(f"For 'Optimizer', the argument {what} can not be None.")
    if isinstance(value, (Tensor, dict)) or not isinstance(value, Iterable):
        raise TypeError(
            f"For 'Optimizer', the argument {what} must be an iterable of Parameters (or of group dicts), "
            f"but got {type(value).__name__}"
        )
    items = list(value)
    if not items:
        raise ValueError(f"For 'Optimizer', the argument {what} must not be empty.")
    return items


def _uses_groups(items, owner):
    """True for a list of group dicts, False for a list of Parameters (TypeError for anything else)."""
    if all(isinstance(item, dict) for item in items):
        return True
    if all(isinstance(item, Parameter) for item in items):
        return False
    raise TypeError(
        f"For '{owner}', all elements of the argument 'parameters' must be Parameters or all must be "
        f"dicts (parameter groups), but got {[type(item).__name__ for item in items]}"
    )


def _read_loss_scale(value, owner):
    """``loss_scale`` as a float > 0 (an int is taken as the float it stands for, a bool is refused)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, float):
        raise TypeError(f"For '{owner}', 'loss_scale' must be a float, but got {type(value).__name__}")
    if not value > 0:
        raise ValueError(f"For '{owner}', 'loss_scale' must be > 0, but got {value}")
    return value


def _read_rate(given, owner):
    """A learning-rate argument as ``(rate, changes_per_step)``.

    ``rate`` is a float (a number), a 0-d float32 Tensor (a 0-d Tensor), a
    1-D float32 Tensor holding the rate of step 0, 1, 2 ... (a 1-D Tensor or
    any other iterable of numbers), or the LearningRateSchedule itself.
    ``changes_per_step`` is True for the last two kinds.
    """
    if isinstance(given, bool):
        raise TypeError(f"For '{owner}', 'learning_rate' must not be a bool")
    if isinstance(given, LearningRateSchedule):
        return given, True
    if isinstance(given, Tensor):
        if given.ndim > 1:
            raise ValueError(
                f"For '{owner}', a Tensor 'learning_rate' must have 0 or 1 dimension, but got {given.ndim}"
            )
        return Tensor(_valid_rates(given.asnumpy().astype(np.float32), owner)), given.ndim == 1
    if isinstance(given, (float, int)):
        number = float(given)
        if not (math.isfinite(number) and number >= 0):  # (MindSpore lets inf through)
            raise ValueError(
                f"For '{owner}', the 'learning rate' must be float and must >= 0, but got '{number}'"
            )
        return number, False
    if isinstance(given, (str, bytes)):
        # MindSpore reads a str as an iterable of rates and fails converting it: a ValueError.
        raise ValueError(
            f"For '{owner}', 'learning_rate' must be a number, a Tensor, an iterable of numbers or a "
            f"LearningRateSchedule, but got the {type(given).__name__} {given!r}"
        )
    if isinstance(given, Iterable) and not isinstance(given, Cell):
        return Tensor(_valid_rates(np.array(list(given), dtype=np.float32), owner)), True
    raise TypeError(
        f"For '{owner}', 'learning_rate' must be an int, a float, a Tensor, an Iterable or a "
        f"LearningRateSchedule, but got {type(given).__name__}"
    )


def _valid_rates(rates, owner):
    """``rates`` (a host array), or ValueError if one is NaN, infinite or negative.

    MindSpore checks only a number given as the rate; a Tensor or a list
    of rates is checked here too, since such a rate can only corrupt the
    weights.
    """
    bad = rates[~(np.isfinite(rates) & (rates >= 0))]
    if bad.size:
        raise ValueError(f"For '{owner}', every learning rate must be a finite number >= 0, "
                         f"but got {bad.reshape(-1)[0]}")
    return rates


def _is_rate_list(rate):
    """Whether a rate read by _read_rate is a list of per-step values (a 1-D Tensor)."""
    return isinstance(rate, Tensor) and rate.ndim == 1


def _read_weight_decay(value, loss_scale, owner):
    """A weight-decay argument, multiplied by ``loss_scale``: a float >= 0, or a Cell of the step.

    The gradients still carry the loss scale when the decay is added to
    them, so the decay is scaled the same way.
    """
    if isinstance(value, Cell):
        return _ScaledWeightDecay(value, loss_scale)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"For '{owner}', 'weight_decay' must be an int, a float or a Cell, but got {type(value).__name__}"
        )
    if value < 0:
        raise ValueError(f"For '{owner}', 'weight_decay' must be >= 0, but got {float(value)}")
    return float(value) * loss_scale


def _rate_holder(rate, name, wrap_fixed):
    """What the step reads for one rate from _read_rate.

    A fixed rate becomes a Parameter called ``name`` (inside a Cell that
    ignores the step when ``wrap_fixed``: beside dynamic group rates, every
    rate must be a Cell of the step); a list of rates becomes a Cell picking
    the value of the current step; a schedule is used as it is.
    """
    if isinstance(rate, LearningRateSchedule):
        return rate
    if _is_rate_list(rate):
        return _RatePerStep(rate, name)
    holder = Parameter(rate if isinstance(rate, Tensor) else _float_tensor(rate), name=name)
    return _FixedRate(holder) if wrap_fixed else holder


class _Group:
    """One parameter group, read: its Parameters and the settings they share."""

    def __init__(self, entry, index, params):
        self.entry = entry          # the user's dict
        self.index = index          # its position in 'parameters' (names its rate Parameter)
        self.params = params        # a list of Parameters
        self.rate = None            # its own learning rate as _read_rate returns it; None: the optimizer's
        self.rate_per_step = False
        self.decay = 0.0            # from _read_weight_decay (the group's own or the optimizer's)
        self.centralize = None      # its 'grad_centralization'; None when it does not say


def _read_groups(items, owner, rate, weight_decay, loss_scale):
    """Group dicts as ``(groups, order)``: a list of _Group, and the 'order_params' list (None if absent).

    The dicts are read in three passes, so that the first problem found is
    the same whatever the groups hold: their form (keys, 'params',
    'order_params'), then their learning rates (all per-step lists must have
    the length of ``rate``'s, when it is one), then weight decay, gradient
    centralization and repeated Parameters, group by group.
    """
    groups, order = [], None
    # Pass 1: the form of each dict.
    for index, entry in enumerate(items):
        if not isinstance(entry, dict):
            raise TypeError(f"For '{owner}', every parameter group must be a dict, but got {type(entry).__name__}")
        unknown = [key for key in entry if key not in _ALLOWED_GROUP_KEYS]
        if unknown:
            raise KeyError(
                f"For 'Optimizer', the key in group params must be one of in {list(_ALLOWED_GROUP_KEYS)}, "
                f"but got {unknown}."
            )
        if "order_params" in entry:
            if len(entry) != 1:
                raise ValueError(
                    "For 'Optimizer', the order params dict in group parameters should only include the "
                    f"'order_params' key, but got {list(entry)}."
                )
            if not isinstance(entry["order_params"], Iterable):
                raise TypeError(
                    "For 'Optimizer', the value of 'order_params' in group parameters must be Iterable, "
                    f"but got {type(entry['order_params']).__name__}."
                )
            order = list(entry["order_params"])
            continue
        if "params" not in entry:
            raise KeyError(f"For '{owner}', every parameter group needs a 'params' key, but got {list(entry)}")
        members = _as_parameter_list(entry["params"], "group `params`")
        for position, member in enumerate(members):
            if not isinstance(member, Parameter):
                raise TypeError(
                    f"For 'Optimizer', the element in group parameters must be Parameter type, but got "
                    f"{type(member).__name__} at index {position}."
                )
        groups.append(_Group(entry, index, members))

    # Pass 2: the groups' own learning rates.
    steps = rate.size if _is_rate_list(rate) else 0  # the common length of per-step rate lists (0: none yet)
    for group in groups:
        if "lr" not in group.entry:
            continue
        group.rate, group.rate_per_step = _read_rate(group.entry["lr"], owner)
        if _is_rate_list(group.rate):
            steps = steps or group.rate.size
            if group.rate.size != steps:
                raise ValueError(
                    "For 'Optimizer', the Tensor type dynamic learning rate in group must be the same size "
                    "as the argument 'learning_rate'."
                )

    # Pass 3: weight decay and centralization; a Parameter (by name) may be in one group only.
    seen_names = set()
    for group in groups:
        group.decay = _read_weight_decay(group.entry.get("weight_decay", weight_decay), loss_scale, owner)
        if "grad_centralization" in group.entry:
            group.centralize = group.entry["grad_centralization"]
            if not isinstance(group.centralize, bool):
                raise TypeError(
                    "For 'Optimizer', the 'gradients_centralization' must be bool type, but got "
                    f"{type(group.centralize).__name__}."
                )
        for p in group.params:
            if p.name in seen_names:
                raise RuntimeError(
                    f"For 'Optimizer', the {p.name} parameter already exists, it does not support repeated "
                    "setting. Please check whether the optimizer parameter has been set multiple times."
                )
            seen_names.add(p.name)
    return groups, order


def _in_given_order(rows, order):
    """``rows`` (one per Parameter, the Parameter first) rearranged as ``order`` lists them, by name."""
    if len(order) != len(rows):
        raise ValueError(
            "For 'Optimizer', the length of order parameters must be the same as the length of group parameters, "
            f"but got order parameters' length {len(order)}, group parameters' length {len(rows)}."
        )
    wanted = [p.name for p in order]
    arranged = [None] * len(rows)
    for row in rows:
        name = row[0].name
        if name not in wanted:
            raise ValueError(f"For 'Optimizer', the parameter '{name}' is in a group but not in 'order_params'")
        arranged[wanted.index(name)] = row
    return arranged


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
        owner = self.cls_name
        # 1. Read and check every argument; nothing is stored until all are valid.
        items = _as_parameter_list(parameters, "parameters")
        grouped = _uses_groups(items, owner)
        scale = _read_loss_scale(loss_scale, owner)
        rate, rate_per_step = _read_rate(learning_rate, owner)
        groups, order = _read_groups(items, owner, rate, weight_decay, scale) if grouped else ([], None)
        # One (Parameter, its group) pair per trained Parameter, in the order they are kept.
        members = [(p, group) for group in groups for p in group.params]
        if order:
            members = _in_given_order(members, order)
        decay = _read_weight_decay(weight_decay, scale, owner)

        # 2. Store what the steps read.
        explicit_centralize = [g.centralize for g in groups if g.centralize is not None]
        self.loss_scale = scale
        self.is_group = grouped
        self.is_group_lr = any(g.rate is not None for g in groups)
        self.is_group_params_ordered = order is not None
        self.dynamic_lr = rate_per_step or any(g.rate_per_step for g in groups)
        self.dynamic_weight_decay = any(isinstance(d, Cell) for d in [decay] + [g.decay for g in groups])
        self.grad_centralization = explicit_centralize[-1] if explicit_centralize else False
        self.global_step = Parameter(Tensor(np.zeros((1,), np.int32)), name="global_step")
        if grouped:
            self._store_groups(members, groups, rate, rearranged=bool(order))
        else:
            self._store_single_group(items, rate, decay)
        object.__setattr__(self, "_parameters", self.parameters)
        self._unique = not any(p.unique for p in self.parameters)
        self.reciprocal_scale = _float_tensor(1.0 / scale)
        self.need_scale = scale != 1.0
        self.param_length = len(self.parameters)
        self.optim_filter = (True,) * self.param_length

    # ------------------------------------------------------------ construction
    def _store_single_group(self, params, rate, decay):
        """Without groups: one rate and one weight decay, which skips 'beta' and 'gamma' Parameters."""
        self.learning_rate = _rate_holder(rate, "learning_rate", wrap_fixed=False)
        self.parameters = ParameterTuple(params)
        dynamic = isinstance(decay, Cell)
        self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in self.parameters)
        self.dynamic_decay_flags = dynamic
        self.exec_weight_decay = dynamic or decay > 0
        self.weight_decay = decay if dynamic else _float_tensor(decay)
        # Host copies of the fixed decay, one per Parameter (None: not decayed, or dynamic).
        self._decay_values = tuple(
            float(decay) if flag and not dynamic else None for flag in self.decay_flags
        )

    def _store_groups(self, members, groups, rate, rearranged):
        """With groups: a rate, a weight decay and a centralization flag per Parameter."""
        # Beside a dynamic group rate every rate must be a Cell of the step.
        wrap_fixed = self.is_group_lr and self.dynamic_lr
        shared_rate = _rate_holder(rate, "learning_rate", wrap_fixed)
        rate_of = {}
        for g in groups:
            own = g.rate is not None
            rate_of[g] = _rate_holder(g.rate, f"learning_rate_group_{g.index}", wrap_fixed) if own else shared_rate
        params = [p for p, _ in members]
        rates = [rate_of[g] for _, g in members]
        decays = [g.decay for _, g in members]
        centralize = [bool(g.centralize) for _, g in members]
        # The per-Parameter lists are public.  A Cell remembers the names of the Parameters in
        # a list attribute (exist_names); cellkit's Optimizer lets it do so only when
        # 'order_params' rearranged the lists, and this is kept.
        keep = setattr if rearranged else object.__setattr__
        keep(self, "group_params", params)
        keep(self, "group_lr", rates)
        keep(self, "group_weight_decay", decays)
        keep(self, "group_grad_centralization", centralize)
        if not self.is_group_lr:
            self.learning_rate = _rate_holder(rate, "learning_rate", wrap_fixed=False)
        elif self.dynamic_lr:
            self.learning_rate = CellList(rates, auto_prefix=False)
        else:
            self.learning_rate = ParameterTuple(rates)
        self.parameters = ParameterTuple(params)
        self.decay_flags = tuple(isinstance(d, Cell) or d > 0 for d in decays)
        self.dynamic_decay_flags = tuple(isinstance(d, Cell) for d in decays)
        self.weight_decay = tuple(d if isinstance(d, Cell) else _float_tensor(d) for d in decays)
        self.exec_weight_decay = any(self.decay_flags)
        self.grad_centralization_flags = tuple(centralize)
        # Host copies of the fixed decays, one per Parameter (None: not decayed, or dynamic).
        self._decay_values = tuple(
            float(d) if flag and not isinstance(d, Cell) else None for flag, d in zip(self.decay_flags, decays)
        )

    def _observed_parameters(self):
        """Announced to observers (the memory profiler): the trained Parameters, and the rest as optimizer state."""
        trained = {id(p) for p in self.parameters}
        return [(p, "parameter" if id(p) in trained else "optimizer state") for _, p in self._own_parameters()]

    # ------------------------------------------------------------- properties
    @property
    def unique(self):
        """Whether sparse gradients would be de-duplicated (recorded; cellkit's gradients are dense)."""
        return self._unique

    @unique.setter
    def unique(self, flag):
        if type(flag) is not bool:  # (bool has no subclasses)
            raise TypeError(f"For 'Optimizer', the property 'unique' must be bool, but got {type(flag).__name__}")
        self._unique = flag

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
        single = isinstance(param, Parameter)
        if single:
            params = [param]
        elif isinstance(param, list):
            params = param
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
            found.append(lr.learning_rate if isinstance(lr, (_FixedRate, _RatePerStep)) else lr)
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


def _scalar(returned, source):
    """The 0-d array of a learning rate returned by a schedule."""
    if not isinstance(returned, Tensor):
        if isinstance(returned, (float, int)) and not isinstance(returned, bool):
            return _backend.current().asarray(np.float32(returned))
        raise TypeError(
            f"The learning-rate schedule {type(source).__name__} must return a Tensor or a float, "
            f"but returned {type(returned).__name__}"
        )
    if returned.size != 1:
        raise ValueError(
            f"The learning-rate schedule {type(source).__name__} must return one value, "
            f"but returned shape {returned.shape}"
        )
    xp = _backend.current().xp
    return xp.reshape(returned._data, ())


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


class _FixedRate(LearningRateSchedule):
    """A fixed group rate beside dynamic ones: returns its Parameter whatever the step."""

    def __init__(self, rate_parameter):
        super().__init__()
        self.learning_rate = rate_parameter  # the name get_lr_parameter reads

    def construct(self, global_step):
        return self.learning_rate


class _RatePerStep(LearningRateSchedule):
    """A list of rates: step i uses entry i."""

    def __init__(self, rates, name):
        super().__init__()
        if not isinstance(rates, Tensor) or rates.ndim != 1:
            raise ValueError("For 'Optimizer', a dynamic 'learning_rate' must be a 1-D Tensor")
        self.learning_rate = Parameter(rates, name=name)  # the name get_lr_parameter reads

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

    def __init__(self, schedule, loss_scale):
        super().__init__()
        self.weight_decay = schedule  # (the attribute name prefixes the schedule's own Parameters)
        self.loss_scale = loss_scale

    def construct(self, global_step):
        value = self.weight_decay(global_step)
        return value * self.loss_scale
