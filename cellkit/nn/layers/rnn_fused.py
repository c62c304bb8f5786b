"""A fused LSTM layer: one op for a whole sequence, the fast path of ``nn.LSTM``'s training step.

Composed from cellkit ops, an LSTM layer records about a dozen nodes per time step, and its
backward multiplies by the weights once per step for the weight gradients.  This op runs the
same arithmetic on raw arrays, keeps the gate activations and cell states (the only things the
backward needs), and in backward runs the recurrence in reverse on arrays, then computes the
weight gradients of all steps at once (one matrix product each, as cuDNN and PyTorch do).

It is a fused op in the sense of ``cellkit/ops/_core.py``: its rule leans on intermediate
arrays, so when a second derivative may be taken (``autograd.higher_order``) the layer runs as
its composition of ops instead (``rnn._DynamicRNNBase``), and every order of gradient stays
exact.  ``benchmarks/lstm_transformer.py`` measured the difference that justifies it.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.nn.layers.rnn_fused import lstm_layer
>>> x = ms.Tensor(np.ones((5, 2, 3), np.float32))
>>> h0 = c0 = ms.Tensor(np.zeros((2, 4), np.float32))
>>> w_ih, w_hh = ms.ops.ones((16, 3)) * 0.1, ms.ops.ones((16, 4)) * 0.1
>>> packed = lstm_layer(x, h0, c0, w_ih, w_hh, None)
>>> packed.shape                      # the 5 outputs, then the last cell state
(6, 2, 4)
"""
from __future__ import annotations

from ... import autograd as _ag
from ...ops._core import backend, record, wrap, xp

__all__ = ["lstm_layer"]


def _zeros(shape, dtype):
    be = backend()
    return be.xp.zeros(shape, dtype=dtype, device=be.device)


def lstm_layer(x, h0, c0, w_ih, w_hh, bias):
    """One LSTM layer over a time-major sequence, returned packed as ``(T + 1, B, H)``.

    Rows ``0 .. T-1`` are the hidden outputs of every step and row ``T`` is the last cell state
    (so the last hidden state is row ``T - 1``).  ``bias`` is ``b_ih + b_hh`` or None.  First
    order only: callers run the composition of ops when ``autograd.higher_order`` is true.
    """
    a = xp()
    X, H0, C0, Wih, Whh = x._data, h0._data, c0._data, w_ih._data, w_hh._data
    steps, batch, features = X.shape
    hidden = Whh.shape[1]
    gi = a.reshape(a.matmul(a.reshape(X, (steps * batch, features)), Wih.T), (steps, batch, 4 * hidden))
    if bias is not None:
        gi = gi + bias._data
    whh_t = Whh.T
    acts = _zeros((steps, batch, 4 * hidden), X.dtype)
    cells = _zeros((steps + 1, batch, hidden), X.dtype)
    tanh_cells = _zeros((steps, batch, hidden), X.dtype)
    packed = _zeros((steps + 1, batch, hidden), X.dtype)
    cells[0, ...] = C0
    h, c = H0, C0
    for t in range(steps):
        gates = gi[t, ...] + a.matmul(h, whh_t)
        act = 0.5 * (a.tanh(0.5 * gates) + 1.0)
        act[:, 2 * hidden:3 * hidden] = a.tanh(gates[:, 2 * hidden:3 * hidden])
        c = act[:, hidden:2 * hidden] * c + act[:, :hidden] * act[:, 2 * hidden:3 * hidden]
        tc = a.tanh(c)
        h = act[:, 3 * hidden:] * tc
        acts[t, ...], cells[t + 1, ...], tanh_cells[t, ...], packed[t, ...] = act, c, tc, h
    packed[steps, ...] = c
    inputs = (x, h0, c0, w_ih, w_hh, bias)
    if _ag._depth == 0 or not any(t is not None and t._node is not None for t in inputs):
        return wrap(packed)
    return record(packed, "LSTMLayer", _lstm_layer_rule, inputs, saved=(X, H0, packed, acts, cells, tanh_cells, Wih, Whh),
                  sources=(0, 1, None, None, None, None, 3, 4), info=(bias is not None,))


def _lstm_layer_rule(m, node, g):
    """Backpropagation through time on the kept gate activations and cell states (first order)."""
    X, H0, packed, acts, cells, tanh_cells, Wih, Whh = node.unpack(m)
    a = xp()
    steps, batch, features = X.shape
    hidden = Whh.shape[1]
    d_steps = [None] * steps
    dh_next = _zeros((batch, hidden), X.dtype)
    dc = g[steps, ...]
    for t in range(steps - 1, -1, -1):
        act = acts[t, ...]
        i, f, gg, o = (act[:, k * hidden:(k + 1) * hidden] for k in range(4))
        tc = tanh_cells[t, ...]
        dh = g[t, ...] + dh_next
        dc = dc + dh * o * (1.0 - tc * tc)
        d = a.concat((dc * gg * i * (1.0 - i), dc * cells[t, ...] * f * (1.0 - f), dc * i * (1.0 - gg * gg),
                      dh * tc * o * (1.0 - o)), axis=1)
        d_steps[t] = d
        dh_next = a.matmul(d, Whh)
        dc = dc * f
    flat = a.reshape(a.stack(d_steps), (steps * batch, 4 * hidden))
    inputs = node.inputs
    dx = a.reshape(a.matmul(flat, Wih), (steps, batch, features)) if inputs[0] is not None else None
    dwih = a.matmul(flat.T, a.reshape(X, (steps * batch, features))) if inputs[3] is not None else None
    dwhh = None
    if inputs[4] is not None:
        prev = a.concat((a.reshape(H0, (1, batch, hidden)), packed[:steps - 1, ...]), axis=0)
        dwhh = a.matmul(flat.T, a.reshape(prev, (steps * batch, hidden)))
    dbias = a.sum(flat, axis=0) if node.info[0] and inputs[5] is not None else None
    return (dx, dh_next if inputs[1] is not None else None, dc if inputs[2] is not None else None,
            dwih, dwhh, dbias)
