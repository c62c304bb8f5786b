"""``mindspore.train.FlopsUtilizationCollector`` as MindSpore 2.10 runs it (GRAPH_MODE, CPU).

Each case trains a small network for an epoch or two in GRAPH_MODE with the
collector and returns what it printed: the FLOP line exactly, the step-time
lines with the time masked as ``T`` and the utilizations as ``P`` (their
format is still compared).  The networks: Dense stacks, convolutions with
stride / padding / dilation / groups / bias, ``ops.BatchMatMul`` and
``ops.MatMul`` with transpose flags in custom cells, the functional
spellings, frozen weights, recomputed blocks; then ``full_flops``, the print
interval, evaluation, PyNative mode, ``enable_ma_collector`` and the
constructor's argument checks.

FLOPs (2 per multiply-add) of the Dense stack 10-7-5 on a batch of 32:
forward 2*32*10*7 + 2*32*7*5 = 6720; backward: both weights' gradients
(6720) and the second layer's input gradient (2240) -- the data needs none.
"""
import contextlib
import io
import os
import re
import shutil
import tempfile

from . import CaseList

CASES = CaseList()
case = CASES.case

TIME = re.compile(r"\d+\.\d{3} ms")
UTILIZATION = re.compile(r"(mfu|hfu):\d+\.\d{2}%")


def _mask(text):
    return UTILIZATION.sub(r"\1:P%", TIME.sub("T ms", text))


def _data(ms, np, shape, classes=5, n=64, batch=32):
    count = int(np.prod(shape))
    x = (np.arange(n * count, dtype=np.float32).reshape(n, *shape) % 11) / 11
    y = (np.arange(n) % classes).astype(np.int32)
    return ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def _train(ms, nn, np, net, shape, classes=5, epochs=1, n=64, data_size=None, **kwargs):
    """Train ``net`` in GRAPH_MODE with the collector; what it printed, times masked (or the error)."""
    data = _data(ms, np, shape, classes, n)
    collector = ms.train.FlopsUtilizationCollector(data_size or data.get_dataset_size(), **kwargs)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.01, 0.9))
    buf = io.StringIO()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with contextlib.redirect_stdout(buf):
            model.train(epochs, data, callbacks=[collector], dataset_sink_mode=False)
    except (ValueError, TypeError, RuntimeError) as exc:
        return _mask(buf.getvalue()) + f"{type(exc).__name__}: {exc}"
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return _mask(buf.getvalue())


def _flop_line(model, hardware=None):
    hardware = model if hardware is None else hardware
    return (f"Full model flops is {float(model)}, Full hardware flops is {float(hardware)}, "
            f"Shard model flops is {float(model)}, Shard hardware flops is {float(hardware)}.\n")


STEP = "Train per step time: T ms mfu:P% hfu:P%\n"


def _stack(nn):
    return nn.SequentialCell([nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 5)])


# ---------------------------------------------------------------------------------------- Dense
@case
def dense_stack_two_epochs(ms, ops, nn, np):
    return _train(ms, nn, np, _stack(nn), (10,), epochs=2)


@case
def dense_without_bias(ms, ops, nn, np):
    return _train(ms, nn, np, nn.Dense(10, 5, has_bias=False), (10,))


@case
def dense_frozen_first_weight(ms, ops, nn, np):
    net = _stack(nn)
    net[0].weight.requires_grad = False
    return _train(ms, nn, np, net, (10,))


@case
def dense_on_three_dimensional_input(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(5, 4)
            self.out = nn.Dense(8, 5)

        def construct(self, x):
            return self.out(self.fc(x.reshape(-1, 2, 5)).reshape(-1, 8))

    return _train(ms, nn, np, Net(), (10,))


# ---------------------------------------------------------------------------------------- convolutions
@case
def conv_stride_padding_bias(ms, ops, nn, np):
    net = nn.SequentialCell([nn.Conv2d(3, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True), nn.ReLU(),
                             nn.Flatten(), nn.Dense(4 * 4 * 4, 5)])
    return _train(ms, nn, np, net, (3, 8, 8))


@case
def conv_two_layers_tuple_stride_and_padding(ms, ops, nn, np):
    net = nn.SequentialCell([nn.Conv2d(3, 4, 3, has_bias=True), nn.ReLU(),
                             nn.Conv2d(4, 4, (3, 5), stride=(1, 2), pad_mode="pad", padding=(1, 1, 2, 2)),
                             nn.Flatten(), nn.Dense(4 * 8 * 4, 5)])
    return _train(ms, nn, np, net, (3, 8, 8))


@case
def conv_dilation(ms, ops, nn, np):
    net = nn.SequentialCell([nn.Conv2d(4, 6, 3, dilation=2, pad_mode="valid"), nn.Flatten(), nn.Dense(6 * 4 * 4, 5)])
    return _train(ms, nn, np, net, (4, 8, 8))


@case
def conv1d_layer(ms, ops, nn, np):
    net = nn.SequentialCell([nn.Conv1d(2, 3, 3, pad_mode="same"), nn.Flatten(), nn.Dense(3 * 5, 5)])
    return _train(ms, nn, np, net, (2, 5))


_GROUPS_NOTE = ("MindSpore 2.10 counts a grouped convolution as if every output channel read every input channel: "
                "2*N*Cout*Hout*Wout*Cin*k*k instead of Cin/groups, so its FLOPs are `groups` times too many")


def _grouped_expected(conv_flops, dense_flops, data_grad=False):
    """Forward, weight gradient and (when the input needs one) input gradient of a conv, then a Dense."""
    total = conv_flops * (3 if data_grad else 2) + dense_flops * 3
    return _flop_line(total) + STEP


@case(mindspore_wrong=True, note=_GROUPS_NOTE,
      expected=lambda np: _grouped_expected(2 * 32 * 6 * 16 * 2 * 9, 2 * 32 * 96 * 5))
def conv_groups_and_dilation(ms, ops, nn, np):
    net = nn.SequentialCell([nn.Conv2d(4, 6, 3, group=2, dilation=2, pad_mode="valid"), nn.Flatten(),
                             nn.Dense(6 * 4 * 4, 5)])
    return _train(ms, nn, np, net, (4, 8, 8))


@case(mindspore_wrong=True, note=_GROUPS_NOTE,
      expected=lambda np: _grouped_expected(2 * 32 * 4 * 64 * 1 * 9, 2 * 32 * 256 * 5))
def conv_depthwise(ms, ops, nn, np):
    net = nn.SequentialCell([nn.Conv2d(4, 4, 3, group=4, pad_mode="same"), nn.Flatten(), nn.Dense(4 * 8 * 8, 5)])
    return _train(ms, nn, np, net, (4, 8, 8))


# ---------------------------------------------------------------------------------------- products in custom cells
def _attention_like(ms, ops, nn, transpose_a, transpose_b):
    class Net(nn.Cell):
        """Two Dense projections multiplied by ops.BatchMatMul, then a Dense."""

        def __init__(self):
            super().__init__()
            self.q = nn.Dense(12, 12)
            self.k = nn.Dense(12, 12)
            self.bmm = ops.BatchMatMul(transpose_a=transpose_a, transpose_b=transpose_b)
            self.flat = nn.Flatten()
            self.fc = nn.Dense(16, 5)

        def construct(self, x):
            q = self.q(x).reshape(-1, 3, 4) if transpose_a else self.q(x).reshape(-1, 4, 3)
            k = self.k(x).reshape(-1, 4, 3) if transpose_b else self.k(x).reshape(-1, 3, 4)
            return self.fc(self.flat(self.bmm(q, k)))

    return Net()


@case
def batch_matmul_primitive(ms, ops, nn, np):
    return _train(ms, nn, np, _attention_like(ms, ops, nn, False, False), (12,))


@case
def batch_matmul_primitive_transposed(ms, ops, nn, np):
    return (_train(ms, nn, np, _attention_like(ms, ops, nn, False, True), (12,)),
            _train(ms, nn, np, _attention_like(ms, ops, nn, True, False), (12,)))


class _Product:
    """A custom cell multiplying its input by a weight with one spelling of a matrix product."""

    @staticmethod
    def build(ms, ops, nn, np, kind):
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                w = (np.arange(50, dtype=np.float32).reshape(5, 10) % 7) / 7
                self.w = ms.Parameter(ms.Tensor(w), name="w")
                self.w3 = ms.Parameter(ms.Tensor(np.tile(w.T[None], (32, 1, 1))), name="w3")
                self.matmul = ops.MatMul(transpose_b=True)

            def construct(self, x):
                if kind == "MatMul":
                    return self.matmul(x, self.w)
                if kind == "bmm":
                    return ops.bmm(x.reshape(32, 1, 10), self.w3).reshape(32, 5)
                if kind == "tensor_dot":
                    return ops.tensor_dot(x, self.w, ((1,), (1,)))
                if kind == "addmm":
                    return ops.addmm(ops.zeros((32, 5), ms.float32), x, self.w.T)
                if kind == "baddbmm":
                    return ops.baddbmm(ops.zeros((32, 1, 5), ms.float32), x.reshape(32, 1, 10), self.w3).reshape(32, 5)
                if kind == "ops.matmul":
                    return ops.matmul(x, self.w.T)
                if kind == "@":
                    return x @ self.w.T
                if kind == "ops.dense":
                    return ops.dense(x, self.w)
                raise ValueError(kind)

        return Net()


@case
def matmul_primitive_transpose_b(ms, ops, nn, np):
    return _train(ms, nn, np, _Product.build(ms, ops, nn, np, "MatMul"), (10,))


@case
def functional_products(ms, ops, nn, np):
    return {kind: _train(ms, nn, np, _Product.build(ms, ops, nn, np, kind), (10,))
            for kind in ("bmm", "tensor_dot", "addmm", "baddbmm")}


@case(mindspore_wrong=True,
      note="MindSpore 2.10 counts only its MatMul / BatchMatMul / Conv2D primitives: ops.matmul (MatMulExt), "
           "Tensor @ and ops.dense (the Dense primitive) are matrix products it documents as counted, yet it "
           "reports 0 FLOPs for them; cellkit counts them (forward 2*32*10*5 and the weight's gradient)",
      expected=lambda np: {kind: _flop_line(6400) + STEP for kind in ("ops.matmul", "@", "ops.dense")})
def matrix_products_mindspore_does_not_see(ms, ops, nn, np):
    return {kind: _train(ms, nn, np, _Product.build(ms, ops, nn, np, kind), (10,))
            for kind in ("ops.matmul", "@", "ops.dense")}


# ---------------------------------------------------------------------------------------- recompute
@case
def recompute_block_whose_output_is_kept(ms, ops, nn, np):
    """Dense+ReLU recomputed: backward reads only the ReLU's output (kept) and the block's input: nothing reruns."""
    first = nn.SequentialCell([nn.Dense(10, 7), nn.ReLU()])
    first.recompute()
    middle = nn.SequentialCell([nn.Dense(7, 7), nn.ReLU()])
    middle.recompute()
    return (_train(ms, nn, np, nn.SequentialCell([first, nn.Dense(7, 5)]), (10,)),
            _train(ms, nn, np, nn.SequentialCell([nn.Dense(10, 7), middle, nn.Dense(7, 5)]), (10,)))


@case
def recompute_block_rebuilds_its_inside(ms, ops, nn, np):
    """Dense-ReLU-Dense recomputed: the second Dense's weight gradient reads the ReLU output, rebuilt by the first Dense."""
    inner = nn.SequentialCell([nn.Dense(7, 7), nn.ReLU(), nn.Dense(7, 7)])
    inner.recompute()
    first = nn.SequentialCell([nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 7)])
    first.recompute()
    return (_train(ms, nn, np, nn.SequentialCell([nn.Dense(10, 7), inner, nn.ReLU(), nn.Dense(7, 5)]), (10,)),
            _train(ms, nn, np, nn.SequentialCell([first, nn.ReLU(), nn.Dense(7, 5)]), (10,)))


# ---------------------------------------------------------------------------------------- what is printed, and when
@case
def shard_figures_only(ms, ops, nn, np):
    return _train(ms, nn, np, _stack(nn), (10,), full_flops=False, computility=2)


_INTERVAL_NOTE = ("MindSpore 2.10 documents data_size as the number of steps between two printed lines, but "
                  "prints at every step that is not a multiple of data_size (never, for data_size=1); cellkit "
                  "prints at step 1 and every data_size steps after it (the same lines when data_size is 2)")


@case(mindspore_wrong=True, note=_INTERVAL_NOTE,
      expected=lambda np: _flop_line(15680) + STEP * 2)
def print_interval_of_three_steps(ms, ops, nn, np):
    return _train(ms, nn, np, _stack(nn), (10,), epochs=2, n=96, data_size=3)  # steps 1..6


@case(mindspore_wrong=True, note=_INTERVAL_NOTE,
      expected=lambda np: _flop_line(15680) + STEP * 4)
def print_interval_of_one_step(ms, ops, nn, np):
    return _train(ms, nn, np, _stack(nn), (10,), epochs=2, data_size=1)  # steps 1..4


@case
def print_interval_of_two_steps_over_five(ms, ops, nn, np):
    return _train(ms, nn, np, _stack(nn), (10,), n=160, data_size=2)  # steps 1..5: lines at 1, 3, 5


@case(mindspore_wrong=True,
      note="MindSpore 2.10 divides the full FLOPs by computility and multiplies them back before printing them, "
           "so with computility=1e9 it prints 15679.999999999998 for 15680; cellkit prints the count",
      expected=lambda np: _flop_line(15680) + STEP)
def large_computility(ms, ops, nn, np):
    return _train(ms, nn, np, _stack(nn), (10,), computility=1e9)


@case
def evaluation_counts_the_forward_pass(ms, ops, nn, np):
    net = _stack(nn)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"loss"})
    buf = io.StringIO()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with contextlib.redirect_stdout(buf):
            model.eval(_data(ms, np, (10,), n=96), callbacks=[ms.train.FlopsUtilizationCollector(2)],
                       dataset_sink_mode=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return _mask(buf.getvalue())


@case
def fit_evaluation_is_not_collected(ms, ops, nn, np):
    net = _stack(nn)
    data = _data(ms, np, (10,), n=96)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"loss"})
    buf = io.StringIO()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with contextlib.redirect_stdout(buf):
            model.fit(1, data, data, callbacks=[ms.train.FlopsUtilizationCollector(2)], dataset_sink_mode=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return _mask(buf.getvalue())


@case
def pynative_mode_is_refused(ms, ops, nn, np):
    data = _data(ms, np, (10,))
    net = _stack(nn)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.01, 0.9))
    try:
        model.train(1, data, callbacks=[ms.train.FlopsUtilizationCollector(2)], dataset_sink_mode=False)
    except ValueError as exc:
        return f"ValueError: {exc}"
    return "trained"


@case
def ma_collector_writes_files(ms, ops, nn, np):
    folder = tempfile.mkdtemp()
    before = os.environ.get("MA_LOG_DIR")
    os.environ["MA_LOG_DIR"] = folder
    try:
        printed = (_train(ms, nn, np, _stack(nn), (10,), enable_ma_collector=True),
                   _train(ms, nn, np, _stack(nn), (10,), computility=2, enable_ma_collector=True))
        files = {}
        for name in sorted(os.listdir(folder)):  # each file's lines, time stamps (ms) and step times masked
            with open(os.path.join(folder, name)) as f:
                lines = f.read().splitlines()
            if name.startswith("time_step"):
                lines = [re.sub(r"\} \S+ ", "} T ", lines[0])]  # the last step's time (MindSpore leaves junk after it)
            files[name] = [re.sub(r" \d{10,}$", " STAMP", line) for line in lines]
        return printed, files
    finally:
        if before is None:
            os.environ.pop("MA_LOG_DIR", None)
        else:
            os.environ["MA_LOG_DIR"] = before
        shutil.rmtree(folder, ignore_errors=True)


@case
def constructor_defaults_and_bad_arguments(ms, ops, nn, np):
    collector = ms.train.FlopsUtilizationCollector(3)
    seen = [collector.data_size, collector.computility, collector.full_flops, collector.verbose,
            ms.train.FlopsUtilizationCollector(3, enable_ma_collector=True).verbose,
            ms.train.FlopsUtilizationCollector(3, computility=5, enable_ma_collector=True).verbose,
            isinstance(collector, ms.train.Callback)]
    for args, kwargs in [((0,), {}), ((-1,), {}), ((1.5,), {}), (("a",), {}), ((True,), {}), ((None,), {}),
                         ((2,), {"full_flops": 1}), ((2,), {"enable_ma_collector": "x"}),
                         ((0,), {"full_flops": 1})]:
        try:
            ms.train.FlopsUtilizationCollector(*args, **kwargs)
            seen.append("ok")
        except (TypeError, ValueError) as exc:
            seen.append(f"{type(exc).__name__}: {exc}")
    return seen


@case
def batchnorm_dropout_and_mixed_precision(ms, ops, nn, np):
    """Normalisation, dropout and float16 (amp_level O2, with its loss-scaling step) change no FLOP count."""
    net = nn.SequentialCell([nn.Dense(10, 7), nn.BatchNorm1d(7), nn.ReLU(), nn.Dropout(p=0.3), nn.Dense(7, 5)])
    data = _data(ms, np, (10,))
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.01, 0.9), amp_level="O2",
                           loss_scale_manager=ms.FixedLossScaleManager(1024.0, drop_overflow_update=False))
    buf = io.StringIO()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with contextlib.redirect_stdout(buf):
            model.train(1, data, callbacks=[ms.train.FlopsUtilizationCollector(2)], dataset_sink_mode=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return _mask(buf.getvalue())


@case
def recompute_reruns_what_backward_reads(ms, ops, nn, np):
    """Recomputed blocks: a Sigmoid / Tanh / Softmax gradient reads its output, GELU / Mul / LayerNorm their input."""

    class Square(nn.Cell):
        def construct(self, x):
            return ops.mul(x, x)

    class Attention(nn.Cell):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = nn.Dense(12, 12), nn.Dense(12, 12), nn.Dense(12, 12)
            self.scores = ops.BatchMatMul(transpose_b=True)
            self.mix = ops.BatchMatMul()
            self.softmax = nn.Softmax()

        def construct(self, x):
            q, k, v = (layer(x).reshape(-1, 4, 3) for layer in (self.q, self.k, self.v))
            return self.mix(self.softmax(self.scores(q, k)), v).reshape(-1, 12)

    blocks = {
        "sigmoid": [nn.Dense(7, 7), nn.Sigmoid(), nn.Dense(7, 7)],
        "gelu_last": [nn.Dense(7, 7), nn.GELU()],
        "softmax_last": [nn.Dense(7, 7), nn.Softmax()],
        "tanh_last": [nn.Dense(7, 7), nn.Tanh()],
        "square_last": [nn.Dense(7, 7), Square()],
        "layernorm": [nn.Dense(7, 7), nn.LayerNorm((7,)), nn.Dense(7, 7)],
        "dropout": [nn.Dense(7, 7), nn.Dropout(p=0.2), nn.Dense(7, 7)],
    }
    printed = {}
    for name, layers in blocks.items():
        block = nn.SequentialCell(layers)
        block.recompute()
        printed[name] = _train(ms, nn, np, nn.SequentialCell([nn.Dense(10, 7), block, nn.Dense(7, 5)]), (10,))
    attention = Attention()
    attention.recompute()
    printed["attention"] = _train(ms, nn, np, nn.SequentialCell([attention, nn.Dense(12, 5)]), (12,))
    convs = nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Conv2d(4, 4, 3, stride=2)])
    convs.recompute()
    printed["conv"] = _train(ms, nn, np, nn.SequentialCell([nn.Conv2d(3, 3, 1), convs, nn.Flatten(), nn.Dense(64, 5)]),
                             (3, 8, 8))
    return printed
