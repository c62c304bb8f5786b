"""``mindspore.amp`` as MindSpore 2.10 runs it (PyNative, CPU).

What each level of ``auto_mixed_precision`` does to a small network (the wrapper Cells, the
Parameters' names and dtypes, the outputs' dtype and values), ``custom_mixed_precision``, the
loss scalers (``scale``/``unscale``/``adjust`` over steps), ``all_finite``, the loss-scale
managers over a run with overflows, ``build_train_network`` and ``Model(amp_level=...)``.

Level ``'O1'`` is compared on outputs and Parameters only: MindSpore rewrites every Cell's source
there and renames the classes (``NetOpt``, ``DenseOpt``), cellkit keeps the network.

On the CPU MindSpore 2.10 refuses a loss-scale manager with an update Cell in
``build_train_network`` (its overflow check is an Ascend kernel); the overflow cases therefore build
``TrainOneStepWithLossScaleCell`` by hand with a subclass whose ``get_overflow_status`` tests the
gradients with ``ops.isfinite`` (as ``nn_wrap`` does), fed by the managers' update Cells.
"""
import sys
import types

from . import CaseList

CASES = CaseList()
case = CASES.case

X = [[1.1, 2.3, 3.7], [0.5, -0.5, 2.0], [0.25, 1.0, -1.5], [-1.0, 0.5, 0.75]]
Y = [[0.3, -0.2], [1.0, 0.0], [0.5, 0.5], [-0.5, 1.0]]
W1 = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9], [-0.15, 0.25, 0.35]]
B1 = [0.05, -0.05, 0.1, 0.0]
W2 = [[0.2, -0.1, 0.3, 0.4], [-0.5, 0.6, 0.1, -0.2]]
B2 = [0.01, -0.02]
FP16 = dict(rtol=2e-3, atol=2e-3)


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _net(ms, nn, ops, np, bn=True, prim=True):
    class AmpNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 4, weight_init=_t(ms, np, W1), bias_init=_t(ms, np, B1))
            self.bn = nn.BatchNorm1d(4) if bn else None
            self.relu = nn.ReLU()
            self.fc = nn.Dense(4, 2, weight_init=_t(ms, np, W2), bias_init=_t(ms, np, B2))
            self.mm = ops.MatMul()
            self.use_mm = prim
            self.w = ms.Parameter(_t(ms, np, [[1.0 / 3, 0.5], [0.25, 1.0 / 7]]), name="w")

        def construct(self, x):
            y = self.dense(x)
            if self.bn is not None:
                y = self.bn(y)
            y = self.fc(self.relu(y))
            if self.use_mm:
                y = self.mm(y, self.w)
            return y * 1.0001

    # MindSpore's O1 rewrites the class's source and imports it back from this module by name.
    globals()["AmpNet"] = AmpNet
    module = sys.modules.get(__name__)
    if module is None:
        module = sys.modules[__name__] = types.ModuleType(__name__)
    module.AmpNet = AmpNet
    if ms.__name__ == "mindspore":  # its rewriter imports the class by the file's bare name
        sys.modules.setdefault(__file__.rsplit("/", 1)[-1][:-3], module).AmpNet = AmpNet
    return AmpNet()


def _describe(net, x, ms, train=False):
    net.set_train(train)
    out = net(x)
    return {
        "type": type(net).__name__,
        "cells": [[name, type(cell).__name__] for name, cell in net.cells_and_names()],
        "params": sorted([p.name, str(p.dtype)] for p in net.get_parameters()),
        "out_dtype": str(out.dtype),
        "out": out,
    }


# ------------------------------------------------------------------------------- lists
@case
def white_and_black_lists(ms, ops, nn, np):
    return ([c.__name__ for c in ms.amp.get_white_list()], [c.__name__ for c in ms.amp.get_black_list()],
            ms.amp.get_white_list() is ms.amp.get_white_list())


# ------------------------------------------------------------------------------- levels
@case
def level_o0_is_the_network(ms, ops, nn, np):
    net = _net(ms, nn, ops, np)
    out = ms.amp.auto_mixed_precision(net, "O0")
    return out is net, _describe(out, _t(ms, np, X), ms)


@case(**FP16)
def level_o1_outputs_and_parameters(ms, ops, nn, np):
    net = ms.amp.auto_mixed_precision(_net(ms, nn, ops, np), "O1")
    net.set_train(False)
    out = net(_t(ms, np, X))
    return (sorted([p.name, str(p.dtype)] for p in net.get_parameters()), str(out.dtype), out,
            net._amp_level, str(net.dense(_t(ms, np, X)).dtype), net.dense(_t(ms, np, X)))


@case(**FP16)
def level_o1_without_batchnorm(ms, ops, nn, np):
    net = ms.amp.auto_mixed_precision(_net(ms, nn, ops, np, bn=False), "O1")
    return net(_t(ms, np, X))


@case(**FP16)
def level_o1_leaves_user_to_float(ms, ops, nn, np):
    net = _net(ms, nn, ops, np, bn=False, prim=False)
    net.fc.to_float(ms.float32)
    net = ms.amp.auto_mixed_precision(net, "O1")
    return net(_t(ms, np, X)), str(net.fc(ops.ones((1, 4))).dtype)


@case(**FP16)
def level_o2_structure_and_outputs(ms, ops, nn, np):
    return _describe(ms.amp.auto_mixed_precision(_net(ms, nn, ops, np), "O2"), _t(ms, np, X), ms)


@case(**FP16)
def level_o2_training_mode(ms, ops, nn, np):
    net = ms.amp.auto_mixed_precision(_net(ms, nn, ops, np), "O2")
    d = _describe(net, _t(ms, np, X), ms, train=True)
    bn = net._backbone.bn
    return d, bn._backbone.moving_mean, str(bn(ops.ones((2, 4))).dtype)


@case(**FP16)
def level_o3_structure_and_outputs(ms, ops, nn, np):
    return _describe(ms.amp.auto_mixed_precision(_net(ms, nn, ops, np), "O3"), _t(ms, np, X), ms)


@case(**FP16)
def level_o2_sequential(ms, ops, nn, np):
    seq = nn.SequentialCell([nn.Dense(3, 4, weight_init=_t(ms, np, W1), bias_init=_t(ms, np, B1)),
                             nn.BatchNorm1d(4), nn.ReLU(), nn.LayerNorm((4,))])
    net = ms.amp.auto_mixed_precision(seq, "O2")
    net.set_train(False)
    return ([[n, type(c).__name__] for n, c in net.cells_and_names()], net(_t(ms, np, X)),
            [type(c).__name__ for c in net._backbone.cell_list])


@case
def level_o3_gradients_reach_float32_parameters(ms, ops, nn, np):
    net = ms.amp.auto_mixed_precision(_net(ms, nn, ops, np, bn=False), "O3")
    loss = nn.WithLossCell(net, nn.MSELoss())
    grads = ms.grad(loss, grad_position=None, weights=net.trainable_params())(_t(ms, np, X), _t(ms, np, Y))
    return [str(g.dtype) for g in grads], [tuple(g.shape) for g in grads]


@case
def level_bad_dtype(ms, ops, nn, np):
    return ms.amp.auto_mixed_precision(nn.Dense(2, 2), "O2", ms.float32)


@case
def level_unknown(ms, ops, nn, np):
    return ms.amp.auto_mixed_precision(nn.Dense(2, 2), "O4")


@case
def level_not_a_cell(ms, ops, nn, np):
    return ms.amp.auto_mixed_precision(lambda x: x, "O2")


# -------------------------------------------------------------------------- custom lists
@case(**FP16)
def custom_white_list(ms, ops, nn, np):
    seq = nn.SequentialCell([nn.Dense(3, 4, weight_init=_t(ms, np, W1), bias_init=_t(ms, np, B1)), nn.Flatten()])
    net = ms.amp.custom_mixed_precision(seq, white_list=ms.amp.get_white_list() + [nn.Flatten])
    out = net(_t(ms, np, X))
    return str(out.dtype), out


@case(**FP16)
def custom_black_list(ms, ops, nn, np):
    net = ms.amp.custom_mixed_precision(_net(ms, nn, ops, np), black_list=ms.amp.get_black_list())
    return _describe(net, _t(ms, np, X), ms)


@case(**FP16)
def custom_black_list_dense(ms, ops, nn, np):
    net = ms.amp.custom_mixed_precision(_net(ms, nn, ops, np, bn=False), black_list=[nn.Dense])
    return _describe(net, _t(ms, np, X), ms)


@case
def custom_neither_list(ms, ops, nn, np):
    return ms.amp.custom_mixed_precision(nn.Dense(2, 2))


@case
def custom_both_lists(ms, ops, nn, np):
    return ms.amp.custom_mixed_precision(nn.Dense(2, 2), white_list=[nn.Dense], black_list=[nn.ReLU])


@case
def custom_list_not_a_list(ms, ops, nn, np):
    return ms.amp.custom_mixed_precision(nn.Dense(2, 2), white_list=(nn.Dense,))


@case
def custom_list_of_instances(ms, ops, nn, np):
    return ms.amp.custom_mixed_precision(nn.Dense(2, 2), black_list=[nn.ReLU()])


@case
def custom_black_list_of_primitive(ms, ops, nn, np):
    return ms.amp.custom_mixed_precision(nn.Dense(2, 2), black_list=[ops.MatMul])


@case
def custom_not_a_cell(ms, ops, nn, np):
    return ms.amp.custom_mixed_precision("net", white_list=[nn.Dense])


# ---------------------------------------------------------------------------- loss scalers
@case
def static_scaler_scale_unscale(ms, ops, nn, np):
    s = ms.amp.StaticLossScaler(1024)
    a = _t(ms, np, [1.5, -2.0], "float16")
    b = _t(ms, np, [1.2], "float32")
    return (s.scale(a), s.scale((a, b)), s.unscale((a, b)), s.unscale(b), s.scale_value, s.scale_value.name,
            s.adjust(ms.Tensor(False)))


@case
def static_scaler_bad_values(ms, ops, nn, np):
    out = []
    for v in (0.5, "2", None):
        try:
            ms.amp.StaticLossScaler(v)
            out.append("ok")
        except (TypeError, ValueError) as e:
            out.append(type(e).__name__)
    return out


@case
def dynamic_scaler_over_steps(ms, ops, nn, np):
    s = ms.amp.DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=3)
    trace = []
    for finite in (True, True, True, False, True, False, False, True, True, True, True):
        r = s.adjust(ms.Tensor(finite))
        trace.append([float(s.scale_value.asnumpy()), int(s.counter.asnumpy()), r])
    return trace, str(s.counter.dtype), s.counter.name, s.scale_window, s.scale_factor


@case
def dynamic_scaler_floor_at_one(ms, ops, nn, np):
    s = ms.amp.DynamicLossScaler(2, 4, 1)
    vals = []
    for finite in (False, False, True, True):
        s.adjust(ms.Tensor(finite))
        vals.append(float(s.scale_value.asnumpy()))
    return vals


@case
def dynamic_scaler_does_not_overflow_float32(ms, ops, nn, np):
    s = ms.amp.DynamicLossScaler(2.0 ** 127, 2, 1)
    s.adjust(ms.Tensor(True))
    return float(s.scale_value.asnumpy())


@case
def dynamic_scaler_unscale_float16(ms, ops, nn, np):
    s = ms.amp.DynamicLossScaler(1024, 2, 1000)
    grads = (_t(ms, np, [1.5, 1.0], "float16"), _t(ms, np, [1.2], "float16"))
    return s.unscale(grads), s.scale(_t(ms, np, [0.25], "float16"))


@case
def dynamic_scaler_bad_arguments(ms, ops, nn, np):
    out = []
    for args in ((0.5, 2, 10), (1024, 0, 10), (1024, 2, 0), (1024, 2.0, 10), (1024, 2, -1)):
        try:
            ms.amp.DynamicLossScaler(*args)
            out.append("ok")
        except (TypeError, ValueError) as e:
            out.append(type(e).__name__)
    return out


@case
def scaler_in_a_training_step(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), 0.1)
    scaler = ms.amp.DynamicLossScaler(2 ** 12, 2, 2)

    def forward(x, y):
        return scaler.scale(loss_fn(net(x), y))

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
    trace = []
    for step in range(5):
        x = _t(ms, np, X)
        if step == 2:
            x = _t(ms, np, [[np.inf, 1.0, 1.0]] + X[1:])
        loss, grads = grad_fn(x, _t(ms, np, Y))
        loss = scaler.unscale(loss)
        grads = scaler.unscale(grads)
        finite = ms.amp.all_finite(grads)
        scaler.adjust(finite)
        if bool(finite.asnumpy()):
            opt(grads)
        trace.append([bool(finite.asnumpy()), float(scaler.scale_value.asnumpy()), net.weight.asnumpy().copy()])
    return [[f, s, ms.Tensor(w)] for f, s, w in trace]


@case
def all_finite_values(ms, ops, nn, np):
    a = _t(ms, np, [1.0, 2.0])
    b = _t(ms, np, [np.inf], "float16")
    c = _t(ms, np, [np.nan, 0.0])
    return (ms.amp.all_finite((a,)), ms.amp.all_finite([a, a]), ms.amp.all_finite((a, b)), ms.amp.all_finite((c,)),
            ms.amp.all_finite((_t(ms, np, [1, 2], "int32"), a)), ms.amp.all_finite((a,)).shape)


@case
def loss_scaler_is_abstract(ms, ops, nn, np):
    try:
        ms.amp.LossScaler()
        return "instantiated"
    except TypeError:
        return "TypeError"


# --------------------------------------------------------------------------- managers
@case
def fixed_manager(ms, ops, nn, np):
    m = ms.amp.FixedLossScaleManager(1024.0, drop_overflow_update=True)
    cell = m.get_update_cell()
    m.update_loss_scale(True)
    m2 = ms.train.FixedLossScaleManager()
    return (m.get_loss_scale(), m.get_drop_overflow_update(), type(cell).__name__, cell.get_loss_scale(),
            m2.get_loss_scale(), m2.get_drop_overflow_update(),
            ms.amp.FixedLossScaleManager(16, False).get_update_cell() is None,
            isinstance(m, ms.amp.LossScaleManager), ms.FixedLossScaleManager is ms.amp.FixedLossScaleManager)


@case
def fixed_manager_below_one(ms, ops, nn, np):
    return ms.amp.FixedLossScaleManager(0.5)


@case
def dynamic_manager_over_steps(ms, ops, nn, np):
    m = ms.amp.DynamicLossScaleManager(init_loss_scale=2 ** 10, scale_factor=2, scale_window=3)
    trace = []
    for overflow in (False, False, False, True, False, False, False, True, True, False):
        m.update_loss_scale(overflow)
        trace.append([m.get_loss_scale(), m.cur_iter, m.last_overflow_iter, m.bad_step])
    cell = m.get_update_cell()
    d = ms.amp.DynamicLossScaleManager()
    return (trace, type(cell).__name__, cell.get_loss_scale(), d.get_loss_scale(), d.scale_window, d.scale_factor,
            d.get_drop_overflow_update(), d.decrease_ratio)


@case
def dynamic_manager_bad_arguments(ms, ops, nn, np):
    out = []
    for kwargs in ({"init_loss_scale": 0.5}, {"scale_factor": 0}, {"scale_window": 0}, {"scale_window": 2.5}):
        try:
            ms.amp.DynamicLossScaleManager(**kwargs)
            out.append("ok")
        except (TypeError, ValueError) as e:
            out.append(type(e).__name__)
    return out


def _overflow_checked_cell(ms, nn, ops):
    class CheckedStep(nn.TrainOneStepWithLossScaleCell):
        """MindSpore's CPU has no overflow status kernel: test the gradients as MindSpore does on GPU."""

        def get_overflow_status(self, status, compute_output):
            flags = [ops.logical_not(ops.isfinite(g)).any() for g in compute_output]
            return ops.stack(flags).any()

    return CheckedStep


def _run_with_overflows(ms, ops, nn, np, update_cell, steps=6, bad=(2, 3)):
    net = nn.Dense(3, 2, weight_init=_t(ms, np, [[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]), bias_init=_t(ms, np, B2))
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = _overflow_checked_cell(ms, nn, ops)(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense=update_cell)
    step.set_train()
    trace = []
    for i in range(steps):
        x = _t(ms, np, [[np.inf, 1.0, 1.0]] + X[1:]) if i in bad else _t(ms, np, X)
        with np.errstate(invalid="ignore", over="ignore"):
            loss, cond, scale = step(x, _t(ms, np, Y))
        trace.append([bool(cond.asnumpy()), float(scale.asnumpy()), ms.Tensor(net.weight.asnumpy().copy()),
                      int(opt.global_step.asnumpy().reshape(-1)[0])])
    return trace


@case
def dynamic_manager_update_cell_skips_overflow_steps(ms, ops, nn, np):
    m = ms.amp.DynamicLossScaleManager(init_loss_scale=2 ** 8, scale_factor=2, scale_window=2)
    return _run_with_overflows(ms, ops, nn, np, m.get_update_cell())


@case
def fixed_manager_update_cell_skips_overflow_steps(ms, ops, nn, np):
    m = ms.amp.FixedLossScaleManager(64.0, drop_overflow_update=True)
    return _run_with_overflows(ms, ops, nn, np, m.get_update_cell(), steps=4, bad=(1,))


# -------------------------------------------------------------------- build_train_network
def _train_net(ms, nn, np):
    return nn.Dense(3, 2, weight_init=_t(ms, np, [[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]), bias_init=_t(ms, np, B2))


def _steps(ms, np, train, n=3):
    return [train(_t(ms, np, X), _t(ms, np, Y)) for _ in range(n)]


@case(**FP16)
def build_train_network_levels(ms, ops, nn, np):
    out = {}
    for level in ("O0", "O1", "O3"):
        net = _train_net(ms, nn, np)
        train = ms.amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), nn.MSELoss(), level=level)
        out[level] = [type(train).__name__, type(train.network).__name__, _steps(ms, np, train),
                      net.weight.asnumpy().tolist()]
    return out


@case(**FP16)
def build_train_network_fixed_scale_without_drop(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=128.0)
    train = ms.amp.build_train_network(net, opt, nn.MSELoss(), level="O3",
                                       loss_scale_manager=ms.amp.FixedLossScaleManager(128.0, False))
    return type(train).__name__, _steps(ms, np, train), net.weight


@case(**FP16)
def build_train_network_cast_model_type(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    train = ms.amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), nn.MSELoss(), level="O0",
                                       cast_model_type=ms.float16)
    return type(train.network).__name__, _steps(ms, np, train)


@case(mindspore_wrong=True, expected=lambda np: "TrainOneStepWithLossScaleCell",
      note="MindSpore 2.10 refuses, on the CPU only, a loss-scale manager with an update Cell (documented: its "
           "overflow check is an Ascend kernel); cellkit checks the gradients with isfinite and builds the Cell")
def build_train_network_o2_on_cpu(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    return type(ms.amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), level="O2")).__name__


@case
def build_train_network_bad_level(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    return ms.amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), level="O5")


@case
def build_train_network_level_not_str(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    return ms.amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), level=2)


@case
def build_train_network_bad_kwarg(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    return ms.amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), scale=2)


@case
def build_train_network_bad_optimizer(ms, ops, nn, np):
    return ms.amp.build_train_network(_train_net(ms, nn, np), None, nn.MSELoss())


# ------------------------------------------------------------------------------ Model
class _EpochIterator:
    """A dataset iterator as MindSpore's: it ends each epoch with StopIteration and goes on with the next."""

    def __init__(self, batches, num_epochs):
        self.batches, self.epochs_left, self.position = batches, num_epochs, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.epochs_left == 0:
            raise StopIteration
        if self.position == len(self.batches):
            self.position = 0
            self.epochs_left -= 1
            raise StopIteration
        self.position += 1
        return self.batches[self.position - 1]


class _Batches:
    """What a GeneratorDataset gives ``Model``: ``create_tuple_iterator`` and ``get_dataset_size``."""

    def __init__(self, ms, np, n=3):
        self.ms, self.np, self.n = ms, np, n

    def create_tuple_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        x = _t(self.ms, self.np, X)
        return _EpochIterator([(x * (1 + 0.1 * i), _t(self.ms, self.np, Y)) for i in range(self.n)], num_epochs)

    def get_dataset_size(self):
        return self.n

    def get_batch_size(self):
        return 4

    def get_col_names(self):
        return ["x", "y"]

    def reset(self):
        pass

    def __iter__(self):
        return self.create_tuple_iterator(num_epochs=1)


@case(**FP16)
def model_amp_levels_train(ms, ops, nn, np):
    out = {}
    for level in ("O0", "O3"):
        net = _train_net(ms, nn, np)
        model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1), amp_level=level)
        model.train(2, _Batches(ms, np), dataset_sink_mode=False)
        out[level] = [type(model.train_network).__name__, net.weight]
    return out


@case(**FP16)
def model_fixed_loss_scale_without_drop(ms, ops, nn, np):
    net = _train_net(ms, nn, np)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=64.0)
    model = ms.train.Model(net, nn.MSELoss(), opt, amp_level="O3",
                           loss_scale_manager=ms.train.FixedLossScaleManager(64.0, drop_overflow_update=False))
    model.train(2, _Batches(ms, np), dataset_sink_mode=False)
    return type(model.train_network).__name__, net.weight


@case
def model_amp_without_optimizer(ms, ops, nn, np):
    return ms.train.Model(_train_net(ms, nn, np), nn.MSELoss(), amp_level="O2")


@case
def model_unknown_kwarg(ms, ops, nn, np):
    return ms.train.Model(_train_net(ms, nn, np), nn.MSELoss(), nn.SGD(_train_net(ms, nn, np).trainable_params()),
                          loss_scale=2)


def _bn_net(ms, nn, np):
    return nn.SequentialCell([nn.Dense(3, 4, weight_init=_t(ms, np, W1), bias_init=_t(ms, np, B1)),
                              nn.BatchNorm1d(4), nn.ReLU(),
                              nn.Dense(4, 2, weight_init=_t(ms, np, W2), bias_init=_t(ms, np, B2))])


@case(**FP16)
def model_o2_without_loss_scaling_on_batchnorm(ms, ops, nn, np):
    out = {}
    for keep in (True, False):
        net = _bn_net(ms, nn, np)
        model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1), metrics={"loss"},
                               amp_level="O2", loss_scale_manager=None, keep_batchnorm_fp32=keep)
        model.train(2, _Batches(ms, np), dataset_sink_mode=False)
        pred = model.predict(_t(ms, np, X))
        out[str(keep)] = [type(model.train_network).__name__, type(model.train_network.network).__name__,
                          [type(c).__name__ for c in net.cell_list], str(pred.dtype), pred,
                          model.eval(_Batches(ms, np, n=1))["loss"], net[0].weight]
    return out


@case(rtol=1e-4, atol=1e-5)
def loss_monitor_prints_a_loss_scale_step(ms, ops, nn, np):
    """A network returning (loss, overflow, scale): LossMonitor prints the first Tensor as it is."""
    import contextlib
    import io
    net = _train_net(ms, nn, np)
    step = _overflow_checked_cell(ms, nn, ops)(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                               scale_sense=ms.amp.DynamicLossScaleManager(16, 2, 2).get_update_cell())
    model = ms.train.Model(step)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.train(1, _Batches(ms, np), callbacks=[ms.train.LossMonitor()], dataset_sink_mode=False)
    lines = buf.getvalue().splitlines()
    return [line.rsplit(" ", 1)[0] for line in lines], [float(line.rsplit(" ", 1)[1]) for line in lines]


def _lenet(ms, nn, np):
    rng = np.random.default_rng(7)
    w1 = ms.Tensor((rng.normal(size=(4, 1, 3, 3)) * 0.3).astype(np.float32))
    w2 = ms.Tensor((rng.normal(size=(3, 4 * 3 * 3)) * 0.2).astype(np.float32))
    return nn.SequentialCell([nn.Conv2d(1, 4, 3, pad_mode="valid", weight_init=w1, has_bias=False), nn.ReLU(),
                              nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(4 * 3 * 3, 3, weight_init=w2,
                                                                        bias_init="zeros")])


def _image(ms, np):
    return ms.Tensor(np.random.default_rng(3).normal(size=(2, 1, 8, 8)).astype(np.float32))


@case(rtol=5e-3, atol=5e-3)
def levels_on_a_small_convnet(ms, ops, nn, np):
    out = {}
    for level in ("O0", "O1", "O2", "O3"):
        net = ms.amp.auto_mixed_precision(_lenet(ms, nn, np), level)
        y = net(_image(ms, np))
        out[level] = [str(y.dtype), y]
    return out


@case(rtol=5e-3, atol=5e-3)
def level_o3_convnet_gradients(ms, ops, nn, np):
    net = ms.amp.auto_mixed_precision(_lenet(ms, nn, np), "O3")
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    label = ms.Tensor(np.array([0, 2], np.int32))
    grads = ms.grad(loss, grad_position=None, weights=net.trainable_params())(_image(ms, np), label)
    return [str(g.dtype) for g in grads], list(grads)
