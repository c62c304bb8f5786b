"""Recurrent layers of ``mindspore.nn`` as MindSpore 2.10 runs them (PyNative, CPU).

``RNN`` (tanh and relu), ``LSTM``, ``GRU`` and the single-step ``RNNCell``, ``LSTMCell``,
``GRUCell``.  Every Parameter is set from a fixed NumPy formula (in ``parameters_and_names``
order, the same under MindSpore and cellkit), so a case returns what the layer computes: the
output sequence, the final states, and the gradients of ``sum(output * probe) + sum(state *
probe)`` with respect to the input, the initial states and every Parameter.  Options: several
layers, bidirectional, ``batch_first``, no bias, given initial states, ``seq_length`` (also with
the backward direction), eval mode with a dropout.  Also the Parameter names and shapes, the
printed cell tree, bad arguments, and a checkpoint round trip: an LSTM saved with
``save_checkpoint`` into a temporary directory and read back with ``load_checkpoint`` / loaded
into a fresh LSTM (names, values, and the same outputs after loading).
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _values(np, shape, k):
    """Fixed values in about [-0.6, 0.6] for the k-th array of a case."""
    n = int(np.prod(shape)) if shape else 1
    return (0.6 * np.sin(0.7 * np.arange(n) + 1.3 * k + 0.2)).reshape(shape).astype("float32")


def _fix(ms, np, net):
    """Set every Parameter of ``net`` from ``_values`` in ``parameters_and_names`` order."""
    for k, (_, p) in enumerate(net.parameters_and_names()):
        p.set_data(ms.Tensor(_values(np, p.shape, k + 1)))
    return net


def _t(ms, np, shape, k):
    return ms.Tensor(_values(np, shape, k))


def _probe_sum(ms, np, out, k0=50):
    """``sum(t * fixed probe)`` over every Tensor in the (nested) output."""
    flat = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for item in v:
                walk(item)
        else:
            flat.append(v)
    walk(out)
    total = 0
    for k, t in enumerate(flat):
        total = total + (t * ms.Tensor(_values(np, t.shape, k0 + k))).sum()
    return total


def _layer_case(name, make, x_shape, hx=None, seq_length=None, rtol=2e-5, atol=2e-6, train=False):
    """Forward, final states and gradients (input, initial states, Parameters) of one layer."""

    def run(ms, ops, nn, np):
        net = _fix(ms, np, make(nn))
        net.set_train(train)
        x = _t(ms, np, x_shape, 30)
        lstm = "LSTM" in type(net).__name__
        args = [x]
        if hx is not None:
            # the states are separate arguments of the differentiated function (a tuple argument's
            # gradient is not returned by MindSpore's grad)
            args += [_t(ms, np, hx, 31), _t(ms, np, hx, 32)] if lstm else [_t(ms, np, hx, 31)]
        seq = None if seq_length is None else ms.Tensor(np.array(seq_length, dtype="int32"))

        def call(x, *states):
            state = None if not states else (tuple(states) if lstm else states[0])
            return net(x, state, seq)

        def loss(*inputs):
            return _probe_sum(ms, np, call(*inputs))

        out = call(*args)
        params = net.trainable_params()
        positions = tuple(range(len(args))) if len(args) > 1 else 0
        grads = ms.grad(loss, grad_position=positions, weights=params)(*args)
        return {"out": out, "grads_inputs": grads[0], "grads_params": grads[1],
                "names": [p.name for p in params]}

    case(_named(run, name), rtol=rtol, atol=atol)


# ------------------------------------------------------------------ full layers
_layer_case("rnn_tanh_default", lambda nn: nn.RNN(3, 4), (5, 2, 3))
_layer_case("rnn_relu_two_layers", lambda nn: nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), (5, 2, 3))
_layer_case("rnn_tanh_bidirectional_hx", lambda nn: nn.RNN(3, 4, bidirectional=True), (4, 2, 3), hx=(2, 2, 4))
_layer_case("rnn_no_bias_batch_first", lambda nn: nn.RNN(3, 4, has_bias=False, batch_first=True), (2, 5, 3))
_layer_case("lstm_default", lambda nn: nn.LSTM(3, 4), (5, 2, 3))
_layer_case("lstm_hx", lambda nn: nn.LSTM(3, 4), (5, 2, 3), hx=(1, 2, 4))
_layer_case("lstm_two_layers_bidirectional", lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
            (4, 2, 3), hx=(4, 2, 4))
_layer_case("lstm_batch_first_no_bias", lambda nn: nn.LSTM(3, 4, has_bias=False, batch_first=True), (2, 5, 3))
_layer_case("lstm_seq_length", lambda nn: nn.LSTM(3, 4), (5, 3, 3), seq_length=[5, 2, 3])
_layer_case("lstm_seq_length_bidirectional", lambda nn: nn.LSTM(3, 4, bidirectional=True, batch_first=True),
            (3, 5, 3), seq_length=[3, 5, 1])
_layer_case("lstm_eval_dropout", lambda nn: nn.LSTM(3, 4, num_layers=2, dropout=0.5), (4, 2, 3))
_layer_case("gru_default", lambda nn: nn.GRU(3, 4), (5, 2, 3))
_layer_case("gru_two_layers_bidirectional_hx", lambda nn: nn.GRU(3, 4, num_layers=2, bidirectional=True),
            (4, 2, 3), hx=(4, 2, 4))
_layer_case("gru_no_bias_batch_first", lambda nn: nn.GRU(3, 4, has_bias=False, batch_first=True), (2, 4, 3))
_layer_case("gru_seq_length", lambda nn: nn.GRU(3, 4, bidirectional=True), (4, 3, 3), seq_length=[4, 1, 2])
_layer_case("rnn_seq_length", lambda nn: nn.RNN(3, 4, num_layers=2), (4, 3, 3), seq_length=[2, 4, 3])


# ------------------------------------------------------------------ single-step Cells
def _cell_case(name, make, lstm=False):
    def run(ms, ops, nn, np):
        cell = _fix(ms, np, make(nn))
        x = _t(ms, np, (3, 5), 40)
        hx = (_t(ms, np, (3, 4), 41), _t(ms, np, (3, 4), 42)) if lstm else _t(ms, np, (3, 4), 41)

        def loss(x, *states):
            return _probe_sum(ms, np, cell(x, tuple(states) if lstm else states[0]))

        args = (x,) + (hx if lstm else (hx,))
        grads = ms.grad(loss, grad_position=tuple(range(len(args))), weights=cell.trainable_params())(*args)
        two = cell(x, cell(x, hx))  # two steps
        return {"out": cell(x, hx), "two_steps": two, "grads_inputs": grads[0], "grads_params": grads[1],
                "names": [(p.name, p.shape) for p in cell.trainable_params()]}

    case(_named(run, name), rtol=2e-5, atol=2e-6)


_cell_case("rnncell_tanh", lambda nn: nn.RNNCell(5, 4))
_cell_case("rnncell_relu_no_bias", lambda nn: nn.RNNCell(5, 4, has_bias=False, nonlinearity="relu"))
_cell_case("lstmcell", lambda nn: nn.LSTMCell(5, 4), lstm=True)
_cell_case("lstmcell_no_bias", lambda nn: nn.LSTMCell(5, 4, has_bias=False), lstm=True)
_cell_case("grucell", lambda nn: nn.GRUCell(5, 4))
_cell_case("grucell_no_bias", lambda nn: nn.GRUCell(5, 4, has_bias=False))


# ------------------------------------------------------------------ names, shapes, trees
@case
def parameter_names_and_shapes(ms, ops, nn, np):
    nets = [nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.GRU(3, 5, has_bias=False),
            nn.RNN(2, 3, num_layers=3), nn.LSTMCell(3, 4), nn.GRUCell(3, 4), nn.RNNCell(3, 4, has_bias=False)]
    return [[(name, p.name, p.shape, p.dtype, p.requires_grad) for name, p in net.parameters_and_names()]
            for net in nets]


@case
def nested_parameter_names(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.encoder = nn.LSTM(3, 4, bidirectional=True)
            self.cell = nn.GRUCell(4, 2)

        def construct(self, x):
            return x

    return list(Net().parameters_dict())


@case
def float16_parameters(ms, ops, nn, np):
    net = nn.GRU(3, 4, dtype=ms.float16)
    return [p.dtype for p in net.get_parameters()]


@case
def init_ranges(ms, ops, nn, np):
    """Every Parameter is drawn from U(-1/sqrt(hidden), 1/sqrt(hidden)): only the bound is fixed."""
    nets = [nn.LSTM(3, 16), nn.GRUCell(3, 25), nn.RNN(2, 4, num_layers=2)]
    bounds = [0.25, 0.2, 0.5]
    return [all(float(abs(p.asnumpy()).max()) <= b for p in net.get_parameters()) for net, b in zip(nets, bounds)]


@case
def reprs(ms, ops, nn, np):
    nets = [nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.GRU(3, 4, num_layers=2, dropout=0.5),
            nn.RNN(3, 4), nn.RNN(3, 4, nonlinearity="relu"), nn.LSTMCell(3, 4), nn.GRUCell(3, 4),
            nn.RNNCell(3, 4, nonlinearity="relu")]
    return [repr(net) for net in nets]


@case
def attributes(ms, ops, nn, np):
    net = nn.LSTM(3, 4, num_layers=2, batch_first=True, dropout=0.25, bidirectional=True, has_bias=False)
    cell = nn.RNNCell(3, 4, nonlinearity="relu")
    return (net.hidden_size, net.num_layers, net.batch_first, net.dropout, net.bidirectional, net.has_bias,
            cell.input_size, cell.hidden_size, cell.has_bias, cell.nonlinearity)


@case
def float16_forward(ms, ops, nn, np):
    net = _fix(ms, np, nn.GRU(3, 4))
    out, h = net(_t(ms, np, (3, 2, 3), 30).astype(ms.float16))
    return out.dtype, h.dtype, out.astype(ms.float32)


# ------------------------------------------------------------------ checkpoints
@case
def lstm_checkpoint_round_trip(ms, ops, nn, np):
    """Save a fixed 2-layer bidirectional LSTM, read the file back, load it into a fresh LSTM."""
    import os
    import tempfile

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
            self.head = nn.Dense(8, 2)

        def construct(self, x):
            out, (h, c) = self.lstm(x)
            return self.head(out), h, c

    net = _fix(ms, np, Net())
    x = _t(ms, np, (2, 5, 3), 30)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "lstm.ckpt")
        ms.save_checkpoint(net, path)
        loaded = ms.load_checkpoint(path)
        fresh = Net()
        not_loaded = ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    return {"params": {key: value for key, value in loaded.items()}, "not_loaded": list(not_loaded[0]),
            "before": net(x), "after": fresh(x)}


# ------------------------------------------------------------------ bad arguments
def _raise_case(name, build):
    def run(ms, ops, nn, np):
        return build(ms, nn, np)
    case(_named(run, name))


def _x(ms, np, shape=(2, 3, 3), dtype="float32"):
    return ms.Tensor(np.ones(shape, dtype=dtype))


_raise_case("bad_input_size_zero", lambda ms, nn, np: nn.LSTM(0, 4))
_raise_case("bad_hidden_size_float", lambda ms, nn, np: nn.LSTM(3, 4.0))
_raise_case("bad_hidden_size_bool", lambda ms, nn, np: nn.GRUCell(3, True))
_raise_case("bad_num_layers_zero", lambda ms, nn, np: nn.GRU(3, 4, num_layers=0))
_raise_case("bad_dropout_int", lambda ms, nn, np: nn.LSTM(3, 4, dropout=1))
_raise_case("bad_dropout_one", lambda ms, nn, np: nn.LSTM(3, 4, dropout=1.0))
_raise_case("bad_has_bias", lambda ms, nn, np: nn.LSTM(3, 4, has_bias=1))
_raise_case("bad_batch_first", lambda ms, nn, np: nn.GRU(3, 4, batch_first="yes"))
_raise_case("bad_bidirectional", lambda ms, nn, np: nn.RNN(3, 4, bidirectional=None))
_raise_case("bad_rnn_nonlinearity", lambda ms, nn, np: nn.RNN(3, 4, nonlinearity="gelu"))
_raise_case("bad_rnncell_nonlinearity", lambda ms, nn, np: nn.RNNCell(3, 4, nonlinearity="gelu"))
_raise_case("bad_rnncell_nonlinearity_type", lambda ms, nn, np: nn.RNNCell(3, 4, nonlinearity=1))
_raise_case("bad_cell_has_bias", lambda ms, nn, np: nn.GRUCell(3, 4, has_bias="a"))
_raise_case("bad_lstm_hx_tensor", lambda ms, nn, np: nn.LSTM(3, 4)(_x(ms, np), _x(ms, np, (1, 3, 4))))
_raise_case("bad_lstm_hx_length", lambda ms, nn, np: nn.LSTM(3, 4)(_x(ms, np), (_x(ms, np, (1, 3, 4)),)))
_raise_case("bad_gru_hx_dtype", lambda ms, nn, np: nn.GRU(3, 4)(_x(ms, np), _x(ms, np, (1, 3, 4), "float16")))
_raise_case("bad_seq_length_size", lambda ms, nn, np: nn.GRU(3, 4)(_x(ms, np), seq_length=ms.Tensor([1, 2])))
_raise_case("bad_seq_length_dtype",
            lambda ms, nn, np: nn.GRU(3, 4)(_x(ms, np), seq_length=ms.Tensor(np.array([1.0, 2.0, 3.0], "float32"))))
_raise_case("bad_grucell_hx_float64",
            lambda ms, nn, np: nn.GRUCell(3, 4)(_x(ms, np, (3, 3)), _x(ms, np, (3, 4), "float64")))
_raise_case("bad_grucell_x_float64",
            lambda ms, nn, np: nn.GRUCell(3, 4)(_x(ms, np, (3, 3), "float64"), _x(ms, np, (3, 4))))
_raise_case("bad_lstmcell_hx_tensor", lambda ms, nn, np: nn.LSTMCell(3, 4)(_x(ms, np, (3, 3)), _x(ms, np, (3, 4))))
_raise_case("bad_lstmcell_hx_length",
            lambda ms, nn, np: nn.LSTMCell(3, 4)(_x(ms, np, (3, 3)), (_x(ms, np, (3, 4)),)))
_raise_case("bad_rnncell_hx_int",
            lambda ms, nn, np: nn.RNNCell(3, 4)(_x(ms, np, (3, 3)), _x(ms, np, (3, 4), "int32")))
