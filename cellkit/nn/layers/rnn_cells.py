"""Single-step recurrent Cells: ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Each Cell advances a recurrence by one time step.  The step functions here (``_rnn_tanh_step``,
``_lstm_step``, ``_gru_step`` ...) are written with cellkit ops only (``matmul``, ``sigmoid``,
``tanh``, slicing), so gradients of every order, hooks and graph mode need nothing special; the
full layers in ``rnn.py`` reuse them.

Parameters are named and shaped as in MindSpore 2.10 (``weight_ih`` of shape
``(gates * hidden_size, input_size)``, ``weight_hh``, ``bias_ih``, ``bias_hh``, gates stacked in
the order input/forget/cell/output for the LSTM and reset/update/new for the GRU), so a MindSpore
checkpoint of the same Cell loads unchanged.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> cell = nn.GRUCell(3, 4)
>>> h = cell(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 4), np.float32)))
>>> h.shape
(2, 4)
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ...common.initializer import Uniform, initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]


# ------------------------------------------------------------------ argument checks (MindSpore's messages)
def _positive_int(value, name, cls):
    if isinstance(value, bool):
        raise TypeError(f"For '{cls}', the '{name}' must be int and must > 0, but got '{value}' with type 'bool'.")
    if not isinstance(value, int):
        raise TypeError(f"For '{cls}', the '{name}' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"For '{cls}', the '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return value


def _bool(value, name, cls):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', the type of '{name}' should be 'bool', but got type '{type(value).__name__}'.")
    return value


def _typename(value):
    if isinstance(value, Tensor):
        return f"Tensor[{value.dtype}]"
    if isinstance(value, tuple):
        return "Tuple"
    if isinstance(value, list):
        return "List"
    return type(value).__name__


def _check_tensor(name, value, cls):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{cls}', the '{name}' must be 'Tensor', but got '{_typename(value)}'")


def _check_tuple(name, value, cls, length=2):
    if not isinstance(value, tuple):
        raise TypeError(f"For '{cls}', the '{name}' must be 'Tuple', but got '{_typename(value)}'")
    if len(value) != length:
        raise TypeError(f"For '{cls}', the length of '{name}' must be '{length}', but got '{len(value)}'")


_FLOATS = (_dt.float32, _dt.float16)


def _check_float(name, value, cls):
    if value.dtype not in _FLOATS:
        raise TypeError(f"For '{cls}', the '{name}' should be one of [mindspore.float32, mindspore.float16], "
                        f"but got 'mindspore.{_dt_name(value.dtype)}'.")


def _dt_name(dtype):
    return repr(dtype).split(".")[-1]


def _uniform_parameter(bound, shape, dtype, name, cls, sizes):
    """A Parameter drawn from ``U(-bound, bound)``; a refusal (too large, bad dtype) names the layer and sizes."""
    try:
        return Parameter(initializer(Uniform(bound), shape, dtype), name=name)
    except (RuntimeError, MemoryError, ValueError, TypeError) as exc:
        given = ", ".join(f"{key}={value}" for key, value in sizes.items())
        raise type(exc)(f"For '{cls}', Parameter '{name}' of shape {shape} cannot be created from {given}: "
                        f"{exc}") from None


def _check_input(name, value, cls, ndim):
    """``value`` is a Tensor of ``ndim`` dimensions (MindSpore's layers assume it)."""
    _check_tensor(name, value, cls)
    if value.ndim != ndim:
        raise ValueError(f"For '{cls}', '{name}' must be a {ndim}-D Tensor, but got shape {tuple(value.shape)}")


# ------------------------------------------------------------------ one time step, in cellkit ops
# ``gi`` is the input projection ``x @ w_ih.T + b_ih`` of the step (the full layers compute it for
# every step at once: one large matmul instead of T small ones); ``w_hh_t`` is ``w_hh.T``.
def _rnn_tanh_step(gi, h, w_hh_t, b_hh):
    gh = ops.matmul(h, w_hh_t)
    pre = gi + gh if b_hh is None else gi + gh + b_hh
    return ops.tanh(pre)


def _rnn_relu_step(gi, h, w_hh_t, b_hh):
    gh = ops.matmul(h, w_hh_t)
    pre = gi + gh if b_hh is None else gi + gh + b_hh
    return ops.relu(pre)


def _lstm_gates(gates, c):
    """The LSTM update from the summed pre-activations ``gates`` (input, forget, cell, output)."""
    hidden = c.shape[-1]
    act = ops.sigmoid(gates)  # one sigmoid over all four blocks; the cell block's is not used
    cellgate = ops.tanh(gates[:, 2 * hidden:3 * hidden])
    c_new = act[:, hidden:2 * hidden] * c + act[:, :hidden] * cellgate
    return act[:, 3 * hidden:] * ops.tanh(c_new), c_new


def _lstm_step(gi, state, w_hh_t, b_hh):
    """``gi`` already holds both biases (they only ever appear summed)."""
    h, c = state
    return _lstm_gates(gi + ops.matmul(h, w_hh_t), c)


def _gru_step(gi, h, w_hh_t, b_hh):
    gh = ops.matmul(h, w_hh_t)
    if b_hh is not None:
        gh = gh + b_hh
    hidden = h.shape[-1]
    rz = ops.sigmoid(gi[:, :2 * hidden] + gh[:, :2 * hidden])
    reset, update = rz[:, :hidden], rz[:, hidden:]
    new = ops.tanh(gi[:, 2 * hidden:] + reset * gh[:, 2 * hidden:])
    return new + update * (h - new)


def _project(x, w_ih, b_ih):
    """``x @ w_ih.T (+ b_ih)`` for a batch of steps or one step."""
    out = ops.matmul(x, ops.transpose(w_ih, (1, 0)))
    return out if b_ih is None else out + b_ih


# ------------------------------------------------------------------ the Cells
class _RNNCellBase(Cell):
    """Parameters and checks shared by the three single-step Cells."""

    _chunks = 1

    def __init__(self, input_size, hidden_size, has_bias, dtype):
        super().__init__()
        cls = type(self).__name__
        _bool(has_bias, "has_bias", cls)
        _positive_int(hidden_size, "hidden_size", cls)
        _positive_int(input_size, "input_size", cls)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.has_bias = has_bias
        gates = self._chunks * hidden_size
        sizes = {"input_size": input_size, "hidden_size": hidden_size}
        stdv = 1 / math.sqrt(hidden_size)
        self.weight_ih = _uniform_parameter(stdv, (gates, input_size), dtype, "weight_ih", cls, sizes)
        self.weight_hh = _uniform_parameter(stdv, (gates, hidden_size), dtype, "weight_hh", cls, sizes)
        if has_bias:
            self.bias_ih = _uniform_parameter(stdv, (gates,), dtype, "bias_ih", cls, sizes)
            self.bias_hh = _uniform_parameter(stdv, (gates,), dtype, "bias_hh", cls, sizes)
        else:
            self.bias_ih = None
            self.bias_hh = None

    def reset_parameters(self, dtype=_dt.float32):
        """Draw every Parameter again from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1 / math.sqrt(self.hidden_size)
        for weight in self.get_parameters():
            weight.set_data(initializer(Uniform(stdv), weight.shape, dtype))

    def _check_tensor_inputs(self, x, hx):
        cls = type(self).__name__
        _check_tensor("x", x, cls)
        _check_tensor("hx", hx, cls)
        _check_float("x", x, cls)
        _check_float("hx", hx, cls)


class RNNCell(_RNNCellBase):
    """One step of an Elman recurrence: ``h' = act(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)``.

    Parameters
    ----------
    input_size, hidden_size : int
        Feature sizes of ``x`` and of the hidden state.
    has_bias : bool
        Whether ``bias_ih`` and ``bias_hh`` exist.
    nonlinearity : {'tanh', 'relu'}
        The activation ``act``.
    dtype : cellkit dtype
        Of the Parameters, all drawn from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Inputs are ``x`` of shape ``(batch, input_size)`` and ``hx`` of shape ``(batch, hidden_size)``,
    both float32 or float16; the output is the new hidden state.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> cell = nn.RNNCell(3, 2, nonlinearity='relu')
    >>> sorted(cell.parameters_dict())
    ['bias_hh', 'bias_ih', 'weight_hh', 'weight_ih']
    >>> cell(ms.ops.ones((4, 3)), ms.ops.zeros((4, 2))).shape
    (4, 2)
    """

    _chunks = 1
    _non_linearity = ["tanh", "relu"]

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype=_dt.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype)
        if not isinstance(nonlinearity, str):
            raise TypeError(f"For 'RNNCell', the type of 'nonlinearity' should be 'str', "
                            f"but got type '{type(nonlinearity).__name__}'.")
        if nonlinearity not in self._non_linearity:
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' must be str and must be in "
                             f"'{self._non_linearity}', but got '{nonlinearity}'.")
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        self._check_tensor_inputs(x, hx)
        step = _rnn_tanh_step if self.nonlinearity == "tanh" else _rnn_relu_step
        w_hh_t = ops.transpose(self.weight_hh, (1, 0))
        return step(_project(x, self.weight_ih, self.bias_ih), hx, w_hh_t, self.bias_hh)


class LSTMCell(_RNNCellBase):
    """One step of a long short-term memory recurrence.

    With gates ``i, f, g, o`` cut in that order from ``x @ W_ih.T + b_ih + h @ W_hh.T + b_hh``:
    ``c' = sigmoid(f) * c + sigmoid(i) * tanh(g)`` and ``h' = sigmoid(o) * tanh(c')``.

    Parameters
    ----------
    input_size, hidden_size : int
    has_bias : bool
    dtype : cellkit dtype
        ``weight_ih`` is ``(4 * hidden_size, input_size)``, ``weight_hh`` ``(4 * hidden_size, hidden_size)``.

    Inputs are ``x`` ``(batch, input_size)`` and the tuple ``hx = (h, c)``, each ``(batch, hidden_size)``;
    the output is the tuple ``(h', c')``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> cell = nn.LSTMCell(3, 2)
    >>> cell.weight_ih.shape
    (8, 3)
    >>> h, c = cell(ms.ops.ones((4, 3)), (ms.ops.zeros((4, 2)), ms.ops.zeros((4, 2))))
    >>> h.shape, c.shape
    ((4, 2), (4, 2))
    """

    _chunks = 4

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=_dt.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx):
        cls = "LSTMCell"
        _check_tensor("x", x, cls)
        _check_tuple("hx", hx, cls)
        _check_tensor("hx[0]", hx[0], cls)
        _check_tensor("hx[1]", hx[1], cls)
        _check_float("x", x, cls)
        _check_float("hx[0]", hx[0], cls)
        _check_float("hx[1]", hx[1], cls)
        gi = ops.matmul(x, ops.transpose(self.weight_ih, (1, 0)))
        if self.has_bias:
            gi = gi + self.bias_ih + self.bias_hh
        return _lstm_step(gi, hx, ops.transpose(self.weight_hh, (1, 0)), None)


class GRUCell(_RNNCellBase):
    """One step of a gated recurrent unit.

    With reset/update/new parts ``r, z, n`` cut in that order from the two projections:
    ``r = sigmoid(xr + hr)``, ``z = sigmoid(xz + hz)``, ``n = tanh(xn + r * hn)`` and
    ``h' = (1 - z) * n + z * h``.

    Parameters
    ----------
    input_size, hidden_size : int
    has_bias : bool
    dtype : cellkit dtype
        ``weight_ih`` is ``(3 * hidden_size, input_size)``, ``weight_hh`` ``(3 * hidden_size, hidden_size)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.GRUCell(3, 2)(ms.ops.ones((4, 3)), ms.ops.zeros((4, 2))).shape
    (4, 2)
    """

    _chunks = 3

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=_dt.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx):
        self._check_tensor_inputs(x, hx)
        w_hh_t = ops.transpose(self.weight_hh, (1, 0))
        return _gru_step(_project(x, self.weight_ih, self.bias_ih), hx, w_hh_t, self.bias_hh)
