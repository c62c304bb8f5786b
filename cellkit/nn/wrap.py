"""Training wrappers: ``WithLossCell``, ``TrainOneStepCell``, ``WithEvalCell`` and friends.

They are Cells with ``auto_prefix=False``: wrapping a network never renames
its Parameters, so ``fc.weight`` stays ``fc.weight`` inside the wrapper, and a
checkpoint of the wrapper loads into the bare network.

>>> import cellkit as ms
>>> from cellkit import nn
>>> ms.set_seed(0)
>>> net = nn.Dense(3, 2)
>>> loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
>>> train_net = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params(), learning_rate=0.1))
>>> x, y = ms.ops.ones((4, 3)), ms.Tensor([0, 1, 1, 0], ms.int32)
>>> first = train_net(x, y)
>>> second = train_net(x, y)
>>> list(train_net.parameters_dict())
['weight', 'bias', 'global_step', 'learning_rate', 'momentum', 'accum.weight', 'accum.bias', 'stat.weight', 'stat.bias']
"""
from __future__ import annotations

import numbers

from .. import dtype as _dt
from .. import ops
from ..parameter import Parameter, ParameterTuple
from ..tensor import Tensor
from ..transforms import GradOperation, value_and_grad
from .cell import Cell

__all__ = ["WithLossCell", "WithGradCell", "TrainOneStepCell", "WithEvalCell", "ForwardValueAndGrad", "ParameterUpdate",
           "GradAccumulationCell"]


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: a network and its loss as one Cell.

    Parameters
    ----------
    backbone : Cell
        The network; called with ``data`` alone.
    loss_fn : Cell or callable
        Called with ``(output, label)``.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    >>> loss_net = nn.WithLossCell(net, nn.MSELoss())
    >>> print(loss_net(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[2.0]])))
    1.0
    >>> loss_net.backbone_network is net
    True
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        _check_cell(backbone, "backbone", "WithLossCell")
        _check_callable(loss_fn, "loss_fn", "WithLossCell")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


class WithGradCell(Cell):
    """Returns the gradients of the loss with respect to the network's trainable parameters.

    ``loss_fn=None`` means ``network`` already returns the loss.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    >>> grads = nn.WithGradCell(net, nn.MSELoss())(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[2.0]]))
    >>> print(grads[0], grads[1])
    [[2. 4.]] [2.]
    """

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        _check_cell(network, "network", "WithGradCell")
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        fn = self.grad(self.network_with_loss, self.weights)
        if self.sens is None:
            return fn(*inputs)
        return fn(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """Returns ``(network(*inputs), gradients)`` with ``GradOperation``'s choice of gradients.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    >>> step = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_by_list=True)
    >>> value, grads = step(ms.Tensor([[1.0, 2.0]]))
    >>> print(value, grads[0])
    [[3.]] [[1. 2.]]
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        _check_callable(network, "network", "ForwardValueAndGrad")
        for name, value in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'ForwardValueAndGrad', the type of '{name}' must be bool, but got '{type(value)}'")
        if get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError(
                "For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the argument 'weights' must be "
                f"Parameters array, but got '{type(weights)}'"
            )
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = weights
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        self.grad = GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)

    def construct(self, *inputs):
        forward_inputs = inputs[:-1] if self.sens_param else inputs
        value = self.network(*forward_inputs)
        fn = self.grad(self.network, self.weights) if self.get_by_list else self.grad(self.network)
        return value, fn(*inputs)


class Identity(Cell):
    """Returns its input (stands where a distributed gradient reducer would be)."""

    def construct(self, x):
        return x


class TrainOneStepCell(Cell):
    """One training step per call: loss, gradients, optimizer update; returns the loss.

    The loss and the gradients with respect to ``optimizer.parameters`` come
    from one forward pass recorded by :func:`cellkit.value_and_grad`; the
    optimizer then updates the parameters in place.

    Parameters
    ----------
    network : Cell
        Returns the loss (usually a :class:`WithLossCell`).
    optimizer : Optimizer
        Updates ``optimizer.parameters``.
    sens : numbers.Number, optional
        The gradient fed into the loss (default 1.0): the gradients are
        multiplied by it, the returned loss is not.
    return_grad : bool
        Also return ``{parameter name: gradient}``.

    Notes
    -----
    As in MindSpore, the optimizer is a child Cell, so ``parameters_dict()``,
    ``trainable_params()`` and checkpoints of the TrainOneStepCell include its
    state (``global_step``, ``learning_rate``, ``moments.*`` ...).  MindSpore
    runs the network once for the loss and once more to differentiate it;
    cellkit runs it once, so layers with running statistics (BatchNorm)
    update them once per step.

    Raises
    ------
    TypeError
        If ``sens`` is not a number, or ``network``/``optimizer`` are not Cells.
    ValueError
        If ``sens`` is 0.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1, weight_init="zeros", bias_init="zeros")
    >>> train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    >>> print(train(ms.Tensor([[1.0, 1.0]]), ms.Tensor([[1.0]])))
    1.0
    >>> print(net.weight.asnumpy())
    [[0.2 0.2]]
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        _check_cell(network, "network", "TrainOneStepCell")
        _check_cell(optimizer, "optimizer", "TrainOneStepCell")
        if sens is not None and (isinstance(sens, bool) or not isinstance(sens, numbers.Number)):
            raise TypeError(f"For 'TrainOneStepCell', 'sens' must be a number or None, but got {type(sens).__name__}")
        if sens == 0:
            raise ValueError("The input argument of 'sens' can not be 0.")
        if not isinstance(return_grad, bool):
            raise TypeError(f"For 'TrainOneStepCell', 'return_grad' must be a bool, but got {type(return_grad).__name__}")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        self.grad_reducer = Identity()
        self.reducer_flag = False
        object.__setattr__(self, "_value_and_grad", value_and_grad(network, grad_position=None, weights=self.weights))

    def construct(self, *inputs):
        loss, grads = self._value_and_grad(*inputs)
        if self.sense_flag and self.sens != 1:
            grads = _scaled(grads, self.sens)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, {p.name: g for p, g in zip(self.weights, grads)}
        return loss


class WithEvalCell(Cell):
    """``(loss, outputs, label)`` for evaluation: what metrics need.

    Parameters
    ----------
    network : Cell
    loss_fn : Cell or callable
    add_cast_fp32 : bool
        Cast the outputs (and float labels) to float32 before the loss.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    >>> loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[2.0]]))
    >>> print(loss, out, label)
    1.0 [[3.]] [[2.]]
    """

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        _check_cell(network, "network", "WithEvalCell")
        _check_callable(loss_fn, "loss_fn", "WithEvalCell")
        if not isinstance(add_cast_fp32, bool):
            raise TypeError(
                f"For 'WithEvalCell', the type of 'add_cast_fp32' must be bool, but got {type(add_cast_fp32).__name__}"
            )
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            if label.dtype.kind == "float":
                label = ops.cast(label, _dt.float32)
            outputs = ops.cast(outputs, _dt.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class ParameterUpdate(Cell):
    """``cell(x)`` writes ``x`` into the Parameter and returns ``x``.

    A Cell standing for "set this Parameter", so that an update can be part of
    a network (MindSpore uses it to change a learning rate from inside a graph).

    Parameters
    ----------
    param : Parameter

    Raises
    ------
    TypeError
        If ``param`` is not a Parameter.
    ValueError
        If ``x`` has another shape than the Parameter (when called).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> lr = ms.Parameter(ms.Tensor(0.1), name="lr")
    >>> update = nn.ParameterUpdate(lr)
    >>> _ = update(ms.Tensor(0.01))
    >>> print(lr.asnumpy())
    0.01
    """

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be a Parameter, but got {type(param).__name__}.")
        self._param = param

    def construct(self, x):
        param = self._param
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'ParameterUpdate', 'x' must be a Tensor of shape {tuple(param.shape)}, but got "
                            f"{type(x).__name__} {x!r}")
        if tuple(x.shape) != tuple(param.shape):
            raise ValueError(f"For 'ParameterUpdate', the value must have the shape {tuple(param.shape)} of "
                             f"'{param.name}', but got {tuple(x.shape)}.")
        param.set_data(ops.cast(x, param.dtype) if x.dtype != param.dtype else x)
        return x


class GradAccumulationCell(Cell):
    """Runs ``network`` on ``micro_size`` slices of the batch and returns the sum of the outputs.

    Every input is cut along its first axis into ``micro_size`` equal parts;
    the i-th call gets the i-th part of each.  The gradient of the sum is the
    sum of the micro-batches' gradients (gradient accumulation).

    Parameters
    ----------
    network : Cell
    micro_size : int
        > 0; must divide the batch size.

    Raises
    ------
    TypeError
        ``network`` not a Cell, or ``micro_size`` not an int.
    ValueError
        ``micro_size`` <= 0, or a batch it does not divide (when called).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.WithLossCell(nn.Dense(2, 1, weight_init="ones", bias_init="zeros"), nn.MSELoss())
    >>> x, y = ms.Tensor([[1.0, 0.0], [0.0, 2.0]]), ms.Tensor([[0.0], [0.0]])
    >>> print(nn.GradAccumulationCell(net, 2)(x, y))  # 1 + 4: each half's mean loss, summed
    5.0
    """

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'GradAccumulationCell', 'network' must be a Cell, but got {type(network).__name__}.")
        if not isinstance(micro_size, int):
            raise TypeError(f"For 'GradAccumulationCell', 'micro_size' must be an int, but got "
                            f"{type(micro_size).__name__}.")
        if micro_size <= 0:
            raise ValueError(f"For 'GradAccumulationCell', 'micro_size' must be > 0, but got {micro_size}.")
        self.network = network
        self.micro_size = micro_size

    def construct(self, *inputs):
        total = None
        for i in range(self.micro_size):
            output = self.network(*(self._slice(x, i) for x in inputs))
            total = output if total is None else total + output
        return total

    def _slice(self, x, index):
        if not isinstance(x, Tensor) or x.ndim == 0:
            raise TypeError(f"For 'GradAccumulationCell', every input must be a Tensor with a batch axis to cut into "
                            f"micro_size {self.micro_size} parts, but got {type(x).__name__} {x!r}")
        batch = x.shape[0]
        if batch % self.micro_size:
            raise ValueError(f"For 'GradAccumulationCell', the batch size {batch} (the first dimension of every "
                             f"input) must be divisible by micro_size {self.micro_size}.")
        size = batch // self.micro_size
        return x[size * index:size * (index + 1)]


def _scaled(grads, factor):
    factor = float(factor)  # a Python float keeps each gradient's dtype on every backend
    return tuple(Tensor._from_array(g._data * factor) for g in grads)


def _check_cell(value, name, owner):
    if not isinstance(value, Cell):
        raise TypeError(f"For '{owner}', the argument '{name}' must be a Cell, but got {type(value).__name__}")


def _check_callable(value, name, owner):
    if not callable(value):
        raise TypeError(f"For '{owner}', the argument '{name}' must be callable (a Cell), but got {type(value).__name__}")
