"""Training wrappers of ``mindspore.nn`` as MindSpore 2.10 runs them (PyNative, CPU).

``WithLossCell``, ``WithGradCell``, ``WithEvalCell``, ``ForwardValueAndGrad``, ``TrainOneStepCell``
(``sens``, ``return_grad``), ``ParameterUpdate``, ``GradAccumulationCell``, the loss-scale update
Cells and ``TrainOneStepWithLossScaleCell``, on a small ``Dense`` network with fixed weights.

MindSpore 2.10's ``TrainOneStepWithLossScaleCell`` cannot check for overflow on the CPU (its
check uses ``NPUGetFloatStatusV2``, an Ascend kernel): the cases record it through a subclass
whose ``get_overflow_status`` (a documented method) tests the gradients with ``ops.isfinite``,
and one case calls the plain Cell, compared with a NumPy reference (``mindspore_wrong``).
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

X = [[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [0.0, 1.0, 1.0], [-1.0, 0.5, 0.25]]
Y = [[0.3, -0.2], [1.0, 0.0], [0.5, 0.5], [-0.5, 1.0]]
W = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]
B = [0.05, -0.05]


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _dense(ms, nn, np):
    return nn.Dense(3, 2, weight_init=_t(ms, np, W), bias_init=_t(ms, np, B))


def _net(ms, nn, np):
    """A Cell holding one Dense as ``dense`` (so its Parameters are ``dense.weight`` ...)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = _dense(ms, nn, np)

        def construct(self, x):
            return self.dense(x)

    return Net()


def _snapshot(ms, net):
    return {p.name: ms.Tensor(p.asnumpy().copy()) for p in net.get_parameters()}


# ----------------------------------------------------------------- WithLossCell / WithEvalCell
@case
def with_loss_cell(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    return loss_net(_t(ms, np, X), _t(ms, np, Y)), loss_net.backbone_network is net, list(loss_net.parameters_dict())


@case
def with_eval_cell(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    return nn.WithEvalCell(net, nn.MSELoss())(_t(ms, np, X), _t(ms, np, Y))


@case
def with_eval_cell_cast_fp32(ms, ops, nn, np):
    net = _dense(ms, nn, np).to_float(ms.float16)
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(_t(ms, np, X),
                                                                               _t(ms, np, Y, "float16"))
    return loss.dtype, out.dtype, label.dtype, out, label


@case
def with_eval_cell_int_label(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    _, out, label = nn.WithEvalCell(net, lambda o, y: o.sum(), add_cast_fp32=True)(_t(ms, np, X),
                                                                                  _t(ms, np, [0, 1, 1, 0], "int32"))
    return out.dtype, label


@case
def with_eval_cell_bad_flag(ms, ops, nn, np):
    return nn.WithEvalCell(_dense(ms, nn, np), nn.MSELoss(), add_cast_fp32=1)


# -------------------------------------------------------------------------------- WithGradCell
@case
def with_grad_cell(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    return nn.WithGradCell(net, nn.MSELoss())(_t(ms, np, X), _t(ms, np, Y))


@case
def with_grad_cell_sens(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    return nn.WithGradCell(net, nn.MSELoss(), sens=_t(ms, np, 3.0))(_t(ms, np, X), _t(ms, np, Y))


@case
def with_grad_cell_no_loss(ms, ops, nn, np):
    net = nn.WithLossCell(_dense(ms, nn, np), nn.MSELoss())
    return nn.WithGradCell(net)(_t(ms, np, X), _t(ms, np, Y))


# ----------------------------------------------------------------------- ForwardValueAndGrad
@case
def forward_value_and_grad_inputs(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    return nn.ForwardValueAndGrad(net, get_all=True)(_t(ms, np, X))


@case
def forward_value_and_grad_weights(ms, ops, nn, np):
    loss_net = nn.WithLossCell(_dense(ms, nn, np), nn.MSELoss())
    weights = ms.ParameterTuple(loss_net.trainable_params())
    return nn.ForwardValueAndGrad(loss_net, weights=weights, get_by_list=True)(_t(ms, np, X), _t(ms, np, Y))


@case
def forward_value_and_grad_all_and_weights_sens(ms, ops, nn, np):
    net = _dense(ms, nn, np)
    weights = ms.ParameterTuple(net.trainable_params())
    step = nn.ForwardValueAndGrad(net, weights=weights, get_all=True, get_by_list=True, sens_param=True)
    return step(_t(ms, np, X), _t(ms, np, [[1.0, 0.0]] * 4))


@case
def forward_value_and_grad_first_input(ms, ops, nn, np):
    loss_net = nn.WithLossCell(_dense(ms, nn, np), nn.MSELoss())
    return nn.ForwardValueAndGrad(loss_net)(_t(ms, np, X), _t(ms, np, Y))


@case
def forward_value_and_grad_bad_flag(ms, ops, nn, np):
    return nn.ForwardValueAndGrad(_dense(ms, nn, np), get_all=1)


@case
def forward_value_and_grad_no_weights(ms, ops, nn, np):
    return nn.ForwardValueAndGrad(_dense(ms, nn, np), get_by_list=True)


@case
def forward_value_and_grad_not_callable(ms, ops, nn, np):
    return nn.ForwardValueAndGrad(3)


# -------------------------------------------------------------------------- TrainOneStepCell
def _train_steps(ms, np, train, net, steps=2):
    results = []
    for _ in range(steps):
        results.append(train(_t(ms, np, X), _t(ms, np, Y)))
    return results, _snapshot(ms, net)


@case
def train_one_step_sens(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1), sens=4.0)
    return _train_steps(ms, np, train, net)


@case
def train_one_step_return_grad(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9),
                                return_grad=True)
    return _train_steps(ms, np, train, net)


@case
def train_one_step_attributes(ms, ops, nn, np):
    net = _net(ms, nn, np)
    opt = nn.Adam(net.trainable_params(), 0.01)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=2.0)
    return (train.sens, train.sense_flag, train.return_grad, train.reducer_flag, train.weights is opt.parameters,
            list(train.parameters_dict()), [p.name for p in train.trainable_params()])


@case
def train_one_step_sens_zero(ms, ops, nn, np):
    net = _net(ms, nn, np)
    return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()), sens=0.0)


# ---------------------------------------------------------------------------- ParameterUpdate
@case
def parameter_update(ms, ops, nn, np):
    param = ms.Parameter(_t(ms, np, [1.0, 2.0]), name="w")
    update = nn.ParameterUpdate(param)
    out = update(_t(ms, np, [3.0, -4.0]))
    return out, ms.Tensor(param.asnumpy()), list(update.parameters_dict())


@case
def parameter_update_in_network(ms, ops, nn, np):
    net = _net(ms, nn, np)
    update = nn.ParameterUpdate(net.dense.bias)
    update(_t(ms, np, [0.5, 0.25]))
    return net(_t(ms, np, X))


@case
def parameter_update_not_parameter(ms, ops, nn, np):
    return nn.ParameterUpdate(_t(ms, np, [1.0]))


# ----------------------------------------------------------------------- GradAccumulationCell
@case
def grad_accumulation_cell(ms, ops, nn, np):
    loss_net = nn.WithLossCell(_dense(ms, nn, np), nn.MSELoss())
    accumulated = nn.GradAccumulationCell(loss_net, 2)
    return accumulated(_t(ms, np, X), _t(ms, np, Y)), accumulated.micro_size, list(accumulated.parameters_dict())


@case
def grad_accumulation_cell_gradients(ms, ops, nn, np):
    loss_net = nn.WithLossCell(_dense(ms, nn, np), nn.MSELoss())
    accumulated = nn.GradAccumulationCell(loss_net, 4)
    weights = ms.ParameterTuple(loss_net.trainable_params())
    return ms.value_and_grad(accumulated, None, weights)(_t(ms, np, X), _t(ms, np, Y))


@case
def grad_accumulation_cell_indivisible(ms, ops, nn, np):
    accumulated = nn.GradAccumulationCell(_dense(ms, nn, np), 3)
    return accumulated(_t(ms, np, X))


@case
def grad_accumulation_cell_bad_size(ms, ops, nn, np):
    return nn.GradAccumulationCell(_dense(ms, nn, np), 2.0)


@case
def grad_accumulation_cell_zero_size(ms, ops, nn, np):
    return nn.GradAccumulationCell(_dense(ms, nn, np), 0)


@case
def grad_accumulation_cell_not_cell(ms, ops, nn, np):
    return nn.GradAccumulationCell(lambda x: x, 2)


# --------------------------------------------------------------------- loss-scale update Cells
@case
def fixed_loss_scale_update_cell(ms, ops, nn, np):
    update = nn.FixedLossScaleUpdateCell(1024.0)
    scale = ms.Parameter(_t(ms, np, 1024.0), name="scale")
    out = [update(scale, ms.Tensor(flag)) for flag in (False, True)]
    return update.get_loss_scale(), out, scale, list(update.parameters_dict())


@case
def dynamic_loss_scale_update_cell(ms, ops, nn, np):
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=16.0, scale_factor=2, scale_window=2)
    scale = ms.Parameter(_t(ms, np, 16.0), name="scale")
    trace = []
    for flag in (False, False, False, True, False, True, True, False, False, False):
        returned = update(scale, ms.Tensor(flag))
        trace.append((returned, ms.Tensor(scale.asnumpy()), ms.Tensor(update.cur_iter.asnumpy()),
                      ms.Tensor(update.last_overflow_iter.asnumpy())))
    return update.get_loss_scale(), trace, list(update.parameters_dict())


@case
def dynamic_loss_scale_update_cell_floor(ms, ops, nn, np):
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=4.0, scale_factor=4, scale_window=1000)
    scale = ms.Parameter(_t(ms, np, 4.0), name="scale")
    values = []
    for _ in range(3):
        update(scale, ms.Tensor(True))
        values.append(ms.Tensor(scale.asnumpy()))
    return values


# -------------------------------------------------------------- TrainOneStepWithLossScaleCell
def _checked_cell(ms, ops, nn):
    """TrainOneStepWithLossScaleCell whose overflow check runs on the CPU (ops.isfinite)."""
    class CheckedLossScaleCell(nn.TrainOneStepWithLossScaleCell):
        def get_overflow_status(self, status, compute_output):
            finite = ops.stack([ops.isfinite(g).all() for g in compute_output]).all()
            return ops.logical_not(finite)

    return CheckedLossScaleCell


def _loss_scale_steps(ms, np, train, net, inputs):
    steps = []
    for x in inputs:
        loss, cond, scale = train(_t(ms, np, x), _t(ms, np, Y))
        steps.append((loss, cond, ms.Tensor(scale.asnumpy()), _snapshot(ms, net)))
    return steps


_X_INF = [[float("inf"), 2.0, -1.0]] + X[1:]


@case
def loss_scale_cell_tensor_sense(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = _checked_cell(ms, ops, nn)(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                       scale_sense=_t(ms, np, 1024.0))
    return _loss_scale_steps(ms, np, train, net, [X, _X_INF, X]), list(train.parameters_dict())


@case
def loss_scale_cell_fixed_update(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = _checked_cell(ms, ops, nn)(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1,
                                                                                           0.9),
                                       scale_sense=nn.FixedLossScaleUpdateCell(128.0))
    return _loss_scale_steps(ms, np, train, net, [X, _X_INF, X]), list(train.parameters_dict())


@case
def loss_scale_cell_dynamic_update(ms, ops, nn, np):
    net = _net(ms, nn, np)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2, scale_window=2)
    train = _checked_cell(ms, ops, nn)(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params(), 0.01),
                                       scale_sense=update)
    steps = _loss_scale_steps(ms, np, train, net, [X, X, _X_INF, X, X, X])
    return steps, list(train.parameters_dict()), train.optimizer.global_step


@case
def loss_scale_cell_nan_gradient(ms, ops, nn, np):
    net = _net(ms, nn, np)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=8.0, scale_factor=2, scale_window=100)
    train = _checked_cell(ms, ops, nn)(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                       scale_sense=update)
    x_nan = [[float("nan"), 2.0, -1.0]] + X[1:]
    return _loss_scale_steps(ms, np, train, net, [x_nan, X])


@case
def loss_scale_cell_set_sense_scale(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = _checked_cell(ms, ops, nn)(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                       scale_sense=_t(ms, np, [64.0]))
    train.set_sense_scale(_t(ms, np, [32.0]))
    return _loss_scale_steps(ms, np, train, net, [X])


@case
def loss_scale_cell_set_sense_scale_float(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()),
                                             scale_sense=_t(ms, np, 64.0))
    return train.set_sense_scale(32.0)


@case
def loss_scale_cell_bad_shape(ms, ops, nn, np):
    net = _net(ms, nn, np)
    return nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()),
                                            scale_sense=_t(ms, np, [64.0, 2.0]))


@case
def loss_scale_cell_bad_type(ms, ops, nn, np):
    net = _net(ms, nn, np)
    return nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()),
                                            scale_sense=64.0)


@case
def loss_scale_cell_checkpoint(ms, ops, nn, np):
    import os
    import tempfile

    net = _net(ms, nn, np)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=256.0, scale_factor=2, scale_window=1)
    train = _checked_cell(ms, ops, nn)(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1,
                                                                                           0.9),
                                       scale_sense=update)
    train(_t(ms, np, X), _t(ms, np, Y))
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "scaled.ckpt")
        ms.save_checkpoint(train, path)
        return dict(ms.load_checkpoint(path))


def _plain_loss_scale_expected(np):
    """NumPy: SGD(lr=0.1) on the Dense with MSELoss, loss scale 1024 (the scale cancels out), X then X."""
    w, b = np.array(W, np.float64), np.array(B, np.float64)
    x, y = np.array(X, np.float64), np.array(Y, np.float64)
    steps = []
    for _ in range(2):
        out = x @ w.T + b
        loss = np.mean((out - y) ** 2)
        g_out = 2 * (out - y) / out.size
        w, b = w - 0.1 * g_out.T @ x, b - 0.1 * g_out.sum(axis=0)
        steps.append((np.array(loss, np.float32), np.array(False), np.array(1024.0, np.float32),
                      {"dense.weight": w.astype(np.float32), "dense.bias": b.astype(np.float32)}))
    return steps


@case(mindspore_wrong=True, expected=_plain_loss_scale_expected, rtol=1e-5, atol=1e-6,
      note="MindSpore 2.10 checks for overflow with NPUGetFloatStatusV2, which has no CPU kernel: the step raises "
           "RuntimeError; cellkit tests the gradients for Inf/NaN as MindSpore does on GPU")
def loss_scale_cell_plain(ms, ops, nn, np):
    net = _net(ms, nn, np)
    train = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                             scale_sense=_t(ms, np, 1024.0))
    return _loss_scale_steps(ms, np, train, net, [X, X])
