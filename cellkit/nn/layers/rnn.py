"""Multi-layer recurrent layers: ``RNN``, ``LSTM``, ``GRU``.

A layer owns the Parameters of every layer and direction, named as MindSpore 2.10 names them
(``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, ``..._reverse`` for the
backward direction; held in ``ParameterTuple`` attributes ``w_ih_list`` ... as MindSpore holds
them), so checkpoints move both ways.  The recurrence itself runs in a child Cell named ``rnn``
(``_DynamicLSTMCPUGPU``, ``_DynamicGRUCPUGPU``, ``_DynamicRNNTanh``, ``_DynamicRNNRelu``: the
cell tree MindSpore prints), and the dropout between layers in a child ``dropout_op``.

Everything is composed from cellkit ops: the input projection of all time steps is one
``matmul``, then each step is a small matmul plus the gate arithmetic of ``rnn_cells``.
Gradients of any order, hooks, recompute and graph mode therefore need no recurrent-specific
code.

>>> import cellkit as ms
>>> from cellkit import nn
>>> lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(ms.ops.ones((5, 7, 3)))
>>> out.shape, h.shape, c.shape
((5, 7, 4), (2, 5, 4), (2, 5, 4))
"""
from __future__ import annotations

import math
import warnings

from ... import autograd as _ag
from ... import dtype as _dt
from ... import ops
from ...parameter import ParameterTuple
from ...tensor import Tensor
from ..cell import Cell
from .dropout import Dropout
from .rnn_fused import lstm_layer
from .rnn_cells import (_bool, _check_input, _check_tensor, _check_tuple, _dt_name, _gru_step, _lstm_gates,
                        _positive_int, _uniform_parameter)

__all__ = ["RNN", "LSTM", "GRU"]


class _DynamicRNNBase(Cell):
    """Runs one direction of one layer over a whole sequence (time-major).

    ``x`` is a ``(T, B, I)`` Tensor -- the output is then ``(T, B, H)`` -- or a list of the ``T``
    step inputs ``(B, I)``, as the layer passes them between its layers -- the output is then the
    list of step outputs.  Keeping the steps apart is what makes backward cheap: the gradient of
    one step's slice of a stacked tensor would be a whole ``(T, B, ...)`` array, ``T`` times over.
    """

    _mode = None

    def __init__(self):
        super().__init__()
        self.is_lstm = self._mode == "LSTM"

    def construct(self, x, h_0, seq_length, w_ih, w_hh, b_ih, b_hh):
        stacked = isinstance(x, Tensor)
        if self.is_lstm and stacked and seq_length is None:
            dtype = x.dtype
            w_ih, w_hh = w_ih.astype(dtype), w_hh.astype(dtype)
            bias = None if b_ih is None else b_ih.astype(dtype) + b_hh.astype(dtype)
            if not _ag.higher_order(x, *h_0, w_ih, w_hh, bias):
                # the fused fast path: one op for the whole sequence (first order; see rnn_fused)
                packed = lstm_layer(x, h_0[0], h_0[1], w_ih, w_hh, bias)
                steps = x.shape[0]
                return packed[:steps], (packed[steps - 1], packed[steps])
        steps = ops.unstack(x, 0) if stacked else list(x)
        dtype = steps[0].dtype
        w_ih, w_hh = w_ih.astype(dtype), w_hh.astype(dtype)
        if b_ih is not None:
            b_ih, b_hh = b_ih.astype(dtype), b_hh.astype(dtype)
        mode = self._mode
        outputs = []
        state = h_0
        if mode == "GRU":
            w_ih_t = ops.transpose(w_ih, (1, 0))
            w_hh_t = ops.transpose(w_hh, (1, 0))

            def advance(x_t, state):
                gi = ops.matmul(x_t, w_ih_t)
                return _gru_step(gi if b_ih is None else gi + b_ih, state, w_hh_t, b_hh)
        else:
            # LSTM and Elman steps see only x @ W_ih.T + h @ W_hh.T + b_ih + b_hh: one product of
            # [x, h] with the two weights side by side, and the two biases added once
            w_t = ops.transpose(ops.concat((w_ih, w_hh), 1), (1, 0))
            bias = None if b_ih is None else b_ih + b_hh
            activation = {"RNN_TANH": ops.tanh, "RNN_RELU": ops.relu}.get(mode)

            def advance(x_t, state):
                h = state[0] if self.is_lstm else state
                gates = ops.matmul(ops.concat((x_t, h), 1), w_t)
                if bias is not None:
                    gates = gates + bias
                return _lstm_gates(gates, state[1]) if self.is_lstm else activation(gates)

        if seq_length is None:
            for x_t in steps:
                state = advance(x_t, state)
                outputs.append(state[0] if self.is_lstm else state)
        else:
            # variable lengths: a sequence past its end keeps its state and outputs zeros
            hidden = w_hh.shape[1]
            lengths = ops.broadcast_to(ops.reshape(seq_length, (-1, 1)), (seq_length.shape[0], hidden))
            zero = ops.zeros_like(state[0] if self.is_lstm else state)
            for t, x_t in enumerate(steps):
                new = advance(x_t, state)
                alive = lengths > t
                if self.is_lstm:
                    state = (ops.select(alive, new[0], state[0]), ops.select(alive, new[1], state[1]))
                    outputs.append(ops.select(alive, new[0], zero))
                else:
                    state = ops.select(alive, new, state)
                    outputs.append(ops.select(alive, new, zero))
        return (ops.stack(outputs) if stacked else outputs), state


class _DynamicRNNTanh(_DynamicRNNBase):
    _mode = "RNN_TANH"


class _DynamicRNNRelu(_DynamicRNNBase):
    _mode = "RNN_RELU"


class _DynamicGRUCPUGPU(_DynamicRNNBase):
    _mode = "GRU"


class _DynamicLSTMCPUGPU(_DynamicRNNBase):
    _mode = "LSTM"


_RUNNERS = {"LSTM": _DynamicLSTMCPUGPU, "GRU": _DynamicGRUCPUGPU, "RNN_TANH": _DynamicRNNTanh,
            "RNN_RELU": _DynamicRNNRelu}
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class _RNNBase(Cell):
    """Parameters, argument checks and the layer/direction loop shared by RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=_dt.float32):
        super().__init__()
        cls = type(self).__name__
        _positive_int(hidden_size, "hidden_size", cls)
        _positive_int(input_size, "input_size", cls)
        _positive_int(num_layers, "num_layers", cls)
        if isinstance(dropout, bool) or not isinstance(dropout, float):
            raise TypeError(f"For '{cls}', the type of 'dropout' must be 'float', but got '{type(dropout).__name__}'.")
        _bool(has_bias, "has_bias", cls)
        _bool(batch_first, "batch_first", cls)
        _bool(bidirectional, "bidirectional", cls)
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', the 'dropout' must be a number in range [0, 1) representing the "
                             f"probability of an element being zeroed, but got {dropout}.")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{cls}: dropout is applied after every recurrent layer but the last, so a non-zero "
                          f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=3)
        gate_size = _GATES[mode] * hidden_size
        self.rnn = _RUNNERS[mode]()
        self.hidden_size = hidden_size
        self.batch_first = batch_first
        self.num_layers = num_layers
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        self.bidirectional = bidirectional
        self.has_bias = has_bias
        self.is_lstm = mode == "LSTM"
        directions = 2 if bidirectional else 1
        sizes = {"input_size": input_size, "hidden_size": hidden_size, "num_layers": num_layers}
        stdv = 1 / math.sqrt(hidden_size)
        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                w_ih.append(_uniform_parameter(stdv, (gate_size, layer_input), dtype, f"weight_ih_l{layer}{suffix}", cls, sizes))
                w_hh.append(_uniform_parameter(stdv, (gate_size, hidden_size), dtype, f"weight_hh_l{layer}{suffix}", cls, sizes))
                if has_bias:
                    b_ih.append(_uniform_parameter(stdv, (gate_size,), dtype, f"bias_ih_l{layer}{suffix}", cls, sizes))
                    b_hh.append(_uniform_parameter(stdv, (gate_size,), dtype, f"bias_hh_l{layer}{suffix}", cls, sizes))
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    def _weights(self, index):
        if self.has_bias:
            return self.w_ih_list[index], self.w_hh_list[index], self.b_ih_list[index], self.b_hh_list[index]
        return self.w_ih_list[index], self.w_hh_list[index], None, None

    def _state(self, h, index):
        return (h[0][index], h[1][index]) if self.is_lstm else h[index]

    def _stacked(self, x, h, seq_length):
        """Every layer and direction; without ``seq_length`` the steps travel as lists between layers."""
        directions = 2 if self.bidirectional else 1
        # Steps travel as lists between layers (cheap slices in backward), except for the LSTM's
        # fused whole-sequence op and for seq_length (reverse_sequence works on whole sequences).
        lists = seq_length is None and not self.is_lstm
        layer_input = list(ops.unstack(x, 0)) if lists else x
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                index = layer * directions + direction
                if direction == 0:
                    seq = layer_input
                elif lists:
                    seq = layer_input[::-1]
                elif seq_length is None:
                    seq = ops.flip(layer_input, (0,))
                else:
                    seq = ops.reverse_sequence(layer_input, seq_length, seq_dim=0, batch_dim=1)
                out, last = self.rnn(seq, self._state(h, index), seq_length, *self._weights(index))
                if direction == 1:
                    if lists:
                        out = out[::-1]
                    elif seq_length is None:
                        out = ops.flip(out, (0,))
                    else:
                        out = ops.reverse_sequence(out, seq_length, seq_dim=0, batch_dim=1)
                outs.append(out)
                if self.is_lstm:
                    h_n.append(last[0])
                    c_n.append(last[1])
                else:
                    h_n.append(last)
            if directions == 1:
                output = outs[0]
            elif lists:
                output = [ops.concat(pair, 1) for pair in zip(*outs)]
            else:
                output = ops.concat(outs, 2)
            if self.dropout != 0 and layer < self.num_layers - 1:
                output = [self.dropout_op(o) for o in output] if lists else self.dropout_op(output)
            layer_input = output
        if lists:
            output = ops.stack(output)
        if self.is_lstm:
            return output, (ops.stack(h_n), ops.stack(c_n))
        return output, ops.stack(h_n)

    def construct(self, x, hx=None, seq_length=None):
        cls = type(self).__name__
        _check_input("x", x, cls, 3)
        batch = x.shape[0] if self.batch_first else x.shape[1]
        directions = 2 if self.bidirectional else 1
        dtype = x.dtype
        if hx is not None:
            if not self.is_lstm:
                _check_tensor("h", hx, cls)
                _same_float(cls, [("x", x), ("hx", hx)])
            else:
                _check_tuple("hx", hx, cls)
                _check_tensor("hx[0]", hx[0], cls)
                _check_tensor("hx[1]", hx[1], cls)
                _same_float(cls, [("x", x), ("hx[0]", hx[0]), ("hx[1]", hx[1])])
        else:
            zeros = ops.zeros((self.num_layers * directions, batch, self.hidden_size), dtype)
            hx = (zeros, ops.zeros((self.num_layers * directions, batch, self.hidden_size), dtype)) \
                if self.is_lstm else zeros
        if seq_length is not None:
            if not isinstance(seq_length, Tensor) or seq_length.dtype not in (_dt.int32, _dt.int64):
                got = _dt_name(seq_length.dtype) if isinstance(seq_length, Tensor) else type(seq_length).__name__
                raise TypeError(f"For '{cls}', the 'seq_length' should be one of [mindspore.int32, mindspore.int64], "
                                f"but got 'mindspore.{got}'.")
            if seq_length.shape[0] != batch:
                raise ValueError(f"For '{cls}' batch size of x and seq_length must be equal, but got {batch} of x "
                                 f"and {seq_length.shape[0]} of seq_length.")
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        out, h_n = self._stacked(x, hx, seq_length)
        if self.batch_first:
            out = ops.transpose(out, (1, 0, 2))
        if self.is_lstm:
            return out.astype(dtype), (h_n[0].astype(dtype), h_n[1].astype(dtype))
        return out.astype(dtype), h_n.astype(dtype)


def _same_float(cls, named):
    """MindSpore's rule: ``x`` and the states have one dtype, float32 or float16."""
    first_name, first = named[0]
    for name, value in named[1:]:
        if value.dtype != first.dtype:
            raise TypeError(f"For '{cls}', the type of '{name}' should be same as '{first_name}', but got "
                            f"'{first_name}' with type {first.dtype} and '{name}' with type {value.dtype}.")
    if first.dtype not in (_dt.float32, _dt.float16):
        raise TypeError(f"For '{cls}', the type of '{first_name}' should be in [mindspore.float32, mindspore.float16], "
                        f"but got {first.dtype}.")


_LAYER_DOC = """

    Parameters
    ----------
    input_size, hidden_size : int
        Feature sizes of the input and of the hidden state.
    num_layers : int
        Stacked layers; layer ``k > 0`` reads the (concatenated) outputs of layer ``k - 1``.
    has_bias : bool
        Whether the ``bias_ih_l*`` / ``bias_hh_l*`` Parameters exist.
    batch_first : bool
        Input and output are ``(batch, seq, feature)`` instead of ``(seq, batch, feature)``.
    dropout : float
        Probability of zeroing outputs between layers (not after the last), in training mode.
    bidirectional : bool
        Also run every layer backwards in time (``*_reverse`` Parameters); outputs are concatenated.
    dtype : cellkit dtype
        Of the Parameters, all drawn from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Inputs: ``x``; ``hx``, the initial state(s) of shape ``(num_layers * num_directions, batch,
    hidden_size)`` (zeros when omitted); ``seq_length``, an int32/int64 Tensor of shape ``(batch,)``
    with each sequence's true length: past it the state is kept and the output is zero (the
    backward direction then reverses each sequence within its own length).
"""


class RNN(_RNNBase):
    __doc__ = """A stacked Elman recurrent layer (``nonlinearity='tanh'`` or ``'relu'``).

    Returns ``(output, h_n)``.""" + _LAYER_DOC + """
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> out, h = nn.RNN(3, 4, nonlinearity='relu', bidirectional=True)(ms.ops.ones((6, 2, 3)))
    >>> out.shape, h.shape
    ((6, 2, 8), (2, 2, 4))
    """

    def __init__(self, *args, **kwargs):
        mode = "RNN_TANH"
        if "nonlinearity" in kwargs:
            choice = kwargs.pop("nonlinearity")
            if choice == "relu":
                mode = "RNN_RELU"
            elif choice != "tanh":
                raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], but got {choice}.")
        super().__init__(mode, *args, **kwargs)


class LSTM(_RNNBase):
    __doc__ = """A stacked long short-term memory layer (gates in the order input, forget, cell, output).

    Returns ``(output, (h_n, c_n))``; ``hx`` is the tuple ``(h_0, c_0)``.""" + _LAYER_DOC + """
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> lstm = nn.LSTM(3, 4)
    >>> [name for name, _ in lstm.parameters_and_names()]
    ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    __doc__ = """A stacked gated-recurrent-unit layer (reset, update and new parts in that order).

    Returns ``(output, h_n)``.""" + _LAYER_DOC + """
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> out, h = nn.GRU(3, 4, num_layers=2)(ms.ops.ones((6, 2, 3)))
    >>> out.shape, h.shape
    ((6, 2, 4), (2, 2, 4))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)
