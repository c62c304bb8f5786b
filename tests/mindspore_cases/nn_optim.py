"""Optimizers of ``mindspore.nn`` as MindSpore 2.10 runs them (PyNative, CPU).

Every optimizer starts from the same two Parameters -- ``w`` (2x3) and ``norm.gamma`` (3,),
whose name makes MindSpore leave it out of the weight decay when there are no groups -- and
takes the same three fixed gradients (with zeros and sign changes, for Rprop's and AdaMax's
branches).  A step case returns what each call returned, the Parameters after each step, and
``parameters_dict()`` at the end (names, order, values of every state Parameter).  Option
combinations: defaults, weight decay with a loss scale, parameter groups (own ``lr`` and
``weight_decay``, ``order_params``), dynamic learning rates (a list, a 1-D Tensor, a
``LearningRateSchedule``), and each optimizer's own flags.  Checkpoint cases train a small
``Dense`` network one step with ``TrainOneStepCell`` and read back the keys, shapes, dtypes and
values that ``save_checkpoint`` wrote.  Bad arguments are cases that must raise.

MindSpore 2.10 has no CPU kernel for ``Lamb`` (``ops.Lamb``) and ``LARS`` (``LARSUpdate``): their
steps raise there, so those cases are compared with a NumPy reference of the documented update
(``mindspore_wrong=True``, with a note); their construction and state names are recorded from
MindSpore as usual.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

W0 = [[0.5, -1.0, 0.25], [2.0, 0.3, -0.7]]
GAMMA0 = [0.1, -0.2, 0.4]
GRADS = [
    ([[0.2, -0.1, 0.3], [0.4, 0.05, -0.6]], [0.3, -0.6, 0.1]),
    ([[-0.1, 0.3, 0.0], [0.2, -0.2, -0.3]], [0.1, 0.2, -0.4]),
    ([[0.05, 0.05, -0.2], [-0.3, 0.0, 0.1]], [-0.4, 0.05, 0.0]),
]


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _params(ms, np):
    return [ms.Parameter(_t(ms, np, W0), name="w"), ms.Parameter(_t(ms, np, GAMMA0), name="norm.gamma")]


def _snapshot(ms, np, params):
    return tuple(ms.Tensor(p.asnumpy().copy()) for p in params)


def _run(ms, np, opt, params, steps=3):
    """Three updates with GRADS: what each call returned, the Parameters after each, the final state."""
    returned, values = [], []
    for gw, gg in GRADS[:steps]:
        by_name = {"w": gw, "norm.gamma": gg}
        # In the optimizer's order (order_params may change it), as TrainOneStepCell passes them.
        returned.append(opt(tuple(_t(ms, np, by_name[p.name]) for p in opt.parameters)))
        values.append(_snapshot(ms, np, params))
    return {"returned": returned, "params": values, "state": dict(opt.parameters_dict())}


def _groups(params, first=None, second=None, order=False):
    """Two groups (``w`` / ``norm.gamma``) with the given extra keys; ``order`` adds order_params reversed."""
    groups = [dict({"params": [params[0]]}, **(first or {})), dict({"params": [params[1]]}, **(second or {}))]
    if order:
        groups.append({"order_params": [params[1], params[0]]})
    return groups


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _step_case(name, make, **hints):
    """Register ``name``: build the optimizer with ``make(ms, nn, np, params)`` and run three steps."""
    def run(ms, ops, nn, np):
        params = _params(ms, np)
        opt = make(ms, nn, np, params)
        return _run(ms, np, opt, params)
    case(_named(run, name), **hints)


def _raise_case(name, make):
    """Register ``name``: constructing (or stepping) the optimizer must raise."""
    def run(ms, ops, nn, np):
        return make(ms, nn, np, _params(ms, np))
    case(_named(run, name))


def _schedule(nn):
    return nn.ExponentialDecayLR(0.1, 0.5, 1)


# ------------------------------------------------------------------------------------- Adagrad
_step_case("adagrad__default", lambda ms, nn, np, ps: nn.Adagrad(ps))
_step_case("adagrad__lr_accum", lambda ms, nn, np, ps: nn.Adagrad(ps, accum=0.5, learning_rate=0.1))
def _adagrad_frozen_expected(np):
    """Adagrad with update_slots=False as documented: the accumulators keep their starting value 0.1."""
    w = [np.array(W0, np.float64), np.array(GAMMA0, np.float64)]
    values = []
    for grads in GRADS:
        w = [x - 0.1 * np.array(g, np.float64) / np.sqrt(0.1) for x, g in zip(w, grads)]
        values.append(tuple(x.astype(np.float32) for x in w))
    accum = [np.full_like(x, 0.1, dtype=np.float32) for x in values[-1]]
    state = {"global_step": np.array([3], np.int32), "learning_rate": np.array(0.1, np.float32),
             "w": values[-1][0], "norm.gamma": values[-1][1], "accum.w": accum[0], "accum.norm.gamma": accum[1]}
    return {"returned": [(True, True)] * 3, "params": values, "state": state}


_step_case("adagrad__no_update_slots", lambda ms, nn, np, ps: nn.Adagrad(ps, learning_rate=0.1, update_slots=False),
           mindspore_wrong=True, expected=_adagrad_frozen_expected,
           note="MindSpore 2.10 (CPU) ignores update_slots=False: its accumulators grow as with True")
_step_case("adagrad__wd_ls", lambda ms, nn, np, ps: nn.Adagrad(ps, learning_rate=0.1, weight_decay=0.1, loss_scale=4.0))
_step_case("adagrad__groups", lambda ms, nn, np, ps: nn.Adagrad(
    _groups(ps, {"lr": 0.05, "weight_decay": 0.01}, {"weight_decay": 0.2}), learning_rate=0.1))
_step_case("adagrad__dyn_list", lambda ms, nn, np, ps: nn.Adagrad(ps, learning_rate=[0.1, 0.05, 0.2]))
_raise_case("adagrad__bad_accum", lambda ms, nn, np, ps: nn.Adagrad(ps, accum=-0.1))
_raise_case("adagrad__bad_accum_type", lambda ms, nn, np, ps: nn.Adagrad(ps, accum=1))
_raise_case("adagrad__bad_update_slots", lambda ms, nn, np, ps: nn.Adagrad(ps, update_slots=1))

# ------------------------------------------------------------------------------------ Adadelta
_step_case("adadelta__default", lambda ms, nn, np, ps: nn.Adadelta(ps))
_step_case("adadelta__rho_eps", lambda ms, nn, np, ps: nn.Adadelta(ps, learning_rate=0.5, rho=0.5, epsilon=1e-3))
_step_case("adadelta__wd_ls", lambda ms, nn, np, ps: nn.Adadelta(ps, weight_decay=0.1, loss_scale=2.0))
_step_case("adadelta__groups_order", lambda ms, nn, np, ps: nn.Adadelta(
    _groups(ps, {"lr": 0.5}, {"weight_decay": 0.1}, order=True), learning_rate=1.0))
_raise_case("adadelta__bad_rho", lambda ms, nn, np, ps: nn.Adadelta(ps, rho=1.5))
_raise_case("adadelta__bad_epsilon", lambda ms, nn, np, ps: nn.Adadelta(ps, epsilon=-1e-6))
_raise_case("adadelta__bad_rho_type", lambda ms, nn, np, ps: nn.Adadelta(ps, rho=1))
_raise_case("adadelta__grads_not_tuple", lambda ms, nn, np, ps: nn.Adadelta(ps)([_t(ms, np, W0), _t(ms, np, GAMMA0)]))

# -------------------------------------------------------------------------------------- AdaMax
_step_case("adamax__default", lambda ms, nn, np, ps: nn.AdaMax(ps))
_step_case("adamax__lr_betas", lambda ms, nn, np, ps: nn.AdaMax(ps, learning_rate=0.1, beta1=0.8, beta2=0.5, eps=1e-3))
_step_case("adamax__wd_ls", lambda ms, nn, np, ps: nn.AdaMax(ps, learning_rate=0.1, weight_decay=0.1, loss_scale=8.0))
_step_case("adamax__groups", lambda ms, nn, np, ps: nn.AdaMax(
    _groups(ps, {"lr": 0.05}, {"lr": 0.2, "weight_decay": 0.1}), learning_rate=0.1))
_step_case("adamax__schedule", lambda ms, nn, np, ps: nn.AdaMax(ps, learning_rate=_schedule(nn)))
_raise_case("adamax__bad_beta1", lambda ms, nn, np, ps: nn.AdaMax(ps, beta1=1.0))
_raise_case("adamax__bad_eps", lambda ms, nn, np, ps: nn.AdaMax(ps, eps=0.0))

# ---------------------------------------------------------------------------------------- ASGD
_step_case("asgd__default", lambda ms, nn, np, ps: nn.ASGD(ps))
_step_case("asgd__averaging", lambda ms, nn, np, ps: nn.ASGD(ps, learning_rate=0.1, lambd=0.1, alpha=0.5, t0=1.0))
_step_case("asgd__wd", lambda ms, nn, np, ps: nn.ASGD(ps, learning_rate=0.1, lambd=0.01, t0=0.0, weight_decay=0.1))
_step_case("asgd__groups", lambda ms, nn, np, ps: nn.ASGD(
    _groups(ps, {"lr": 0.05}, {"weight_decay": 0.1}), learning_rate=0.1, t0=1.0))
_step_case("asgd__dyn_tensor", lambda ms, nn, np, ps: nn.ASGD(ps, learning_rate=_t(ms, np, [0.1, 0.2, 0.05]), t0=2.0))
_raise_case("asgd__bad_lambd_type", lambda ms, nn, np, ps: nn.ASGD(ps, lambd=1))
_raise_case("asgd__bad_t0_type", lambda ms, nn, np, ps: nn.ASGD(ps, t0=10))

# ------------------------------------------------------------------------------------- RMSProp
_step_case("rmsprop__default", lambda ms, nn, np, ps: nn.RMSProp(ps))
_step_case("rmsprop__momentum", lambda ms, nn, np, ps: nn.RMSProp(ps, learning_rate=0.01, decay=0.8, momentum=0.9,
                                                                   epsilon=1e-6))
_step_case("rmsprop__centered", lambda ms, nn, np, ps: nn.RMSProp(ps, learning_rate=0.01, centered=True))
_step_case("rmsprop__centered_momentum", lambda ms, nn, np, ps: nn.RMSProp(
    ps, learning_rate=0.01, momentum=0.5, centered=True, epsilon=1e-4))
_step_case("rmsprop__wd_ls", lambda ms, nn, np, ps: nn.RMSProp(ps, learning_rate=0.01, weight_decay=0.1, loss_scale=2.0))
_step_case("rmsprop__groups", lambda ms, nn, np, ps: nn.RMSProp(
    _groups(ps, {"lr": 0.05, "weight_decay": 0.01}, {}), learning_rate=0.01, momentum=0.9))
_step_case("rmsprop__centered_groups_dyn", lambda ms, nn, np, ps: nn.RMSProp(
    _groups(ps, {"lr": [0.05, 0.02, 0.01]}, {}), learning_rate=[0.01, 0.02, 0.03], centered=True))
_raise_case("rmsprop__bad_decay", lambda ms, nn, np, ps: nn.RMSProp(ps, decay=-0.1))
_raise_case("rmsprop__bad_epsilon", lambda ms, nn, np, ps: nn.RMSProp(ps, epsilon=0.0))
_raise_case("rmsprop__bad_momentum_type", lambda ms, nn, np, ps: nn.RMSProp(ps, momentum=1))
_raise_case("rmsprop__bad_centered", lambda ms, nn, np, ps: nn.RMSProp(ps, centered=1))

# --------------------------------------------------------------------------------------- Rprop
_step_case("rprop__default", lambda ms, nn, np, ps: nn.Rprop(ps))
_step_case("rprop__etas_steps", lambda ms, nn, np, ps: nn.Rprop(ps, learning_rate=0.05, etas=(0.3, 1.5),
                                                                 step_sizes=(0.01, 0.06)))
_step_case("rprop__wd", lambda ms, nn, np, ps: nn.Rprop(ps, learning_rate=0.05, weight_decay=0.1))
_step_case("rprop__groups", lambda ms, nn, np, ps: nn.Rprop(
    _groups(ps, {"lr": 0.2}, {"weight_decay": 0.5}), learning_rate=0.05))
_raise_case("rprop__etas_list", lambda ms, nn, np, ps: nn.Rprop(ps, etas=[0.5, 1.2]))
_raise_case("rprop__etas_three", lambda ms, nn, np, ps: nn.Rprop(ps, etas=(0.5, 1.2, 2.0)))
_raise_case("rprop__etaminus", lambda ms, nn, np, ps: nn.Rprop(ps, etas=(1.5, 1.2)))
_raise_case("rprop__etaplus", lambda ms, nn, np, ps: nn.Rprop(ps, etas=(0.5, 0.9)))
_raise_case("rprop__step_sizes_order", lambda ms, nn, np, ps: nn.Rprop(ps, step_sizes=(1.0, 0.1)))
_raise_case("rprop__step_sizes_int", lambda ms, nn, np, ps: nn.Rprop(ps, step_sizes=(1e-6, 50)))

# ---------------------------------------------------------------------------------------- FTRL
_step_case("ftrl__default", lambda ms, nn, np, ps: nn.FTRL(ps))
def _ftrl_expected(initial_accum, lr, lr_power, l1, l2):
    """A NumPy FTRL-proximal (nn.FTRL's documented update) over GRADS."""
    def expected(np):
        w = [np.array(W0, np.float64), np.array(GAMMA0, np.float64)]
        accum = [np.full_like(x, initial_accum) for x in w]
        linear = [np.zeros_like(x) for x in w]
        values = []
        for grads in GRADS:
            for i, g in enumerate(grads):
                g = np.array(g, np.float64)
                new_accum = accum[i] + g * g
                linear[i] = linear[i] + g - (new_accum ** -lr_power - accum[i] ** -lr_power) / lr * w[i]
                quadratic = new_accum ** -lr_power / lr + 2 * l2
                w[i] = np.where(np.abs(linear[i]) > l1, (np.sign(linear[i]) * l1 - linear[i]) / quadratic, 0.0)
                accum[i] = new_accum
            values.append(tuple(x.astype(np.float32) for x in w))
        state = {"global_step": np.array([3], np.int32), "learning_rate": np.array(lr, np.float32),
                 "w": values[-1][0], "norm.gamma": values[-1][1],
                 "moments.w": accum[0].astype(np.float32), "moments.norm.gamma": accum[1].astype(np.float32),
                 "linear.w": linear[0].astype(np.float32), "linear.norm.gamma": linear[1].astype(np.float32)}
        return {"returned": [(True, True)] * 3, "params": values, "state": state}
    return expected


_FTRL_L1 = ("MindSpore 2.10 (CPU) shrinks a negative 'linear' with +l1 instead of sign(linear) * l1, which moves "
            "those weights away from zero: the documented (and FTRL-proximal) update is followed")
_step_case("ftrl__l1_l2", lambda ms, nn, np, ps: nn.FTRL(ps, initial_accum=0.5, learning_rate=0.1, l1=0.01, l2=0.1),
           mindspore_wrong=True, expected=_ftrl_expected(0.5, 0.1, -0.5, 0.01, 0.1), note=_FTRL_L1)
_step_case("ftrl__lr_power", lambda ms, nn, np, ps: nn.FTRL(ps, learning_rate=0.1, lr_power=-0.25, l1=0.2),
           mindspore_wrong=True, expected=_ftrl_expected(0.1, 0.1, -0.25, 0.2, 0.0), note=_FTRL_L1)
_step_case("ftrl__lr_power_zero", lambda ms, nn, np, ps: nn.FTRL(ps, learning_rate=0.1, lr_power=0.0))
_step_case("ftrl__wd_ls", lambda ms, nn, np, ps: nn.FTRL(ps, learning_rate=0.1, weight_decay=0.1, loss_scale=2.0))
_step_case("ftrl__groups_wd", lambda ms, nn, np, ps: nn.FTRL(
    _groups(ps, {"weight_decay": 0.2}, {}), learning_rate=0.1))
_raise_case("ftrl__dynamic_lr", lambda ms, nn, np, ps: nn.FTRL(ps, learning_rate=[0.1, 0.2]))
_raise_case("ftrl__group_lr", lambda ms, nn, np, ps: nn.FTRL(_groups(ps, {"lr": 0.1}, {})))
_raise_case("ftrl__bad_lr_power", lambda ms, nn, np, ps: nn.FTRL(ps, lr_power=0.5))
_raise_case("ftrl__bad_l1", lambda ms, nn, np, ps: nn.FTRL(ps, l1=-1.0))
_raise_case("ftrl__int_lr", lambda ms, nn, np, ps: nn.FTRL(ps, learning_rate=1))

# ----------------------------------------------------------------------------- ProximalAdagrad
_step_case("proximal_adagrad__default", lambda ms, nn, np, ps: nn.ProximalAdagrad(ps))
_step_case("proximal_adagrad__l1_l2", lambda ms, nn, np, ps: nn.ProximalAdagrad(
    ps, accum=0.2, learning_rate=0.1, l1=0.05, l2=0.1))
_step_case("proximal_adagrad__wd_ls", lambda ms, nn, np, ps: nn.ProximalAdagrad(
    ps, learning_rate=0.1, weight_decay=0.1, loss_scale=2.0))
_step_case("proximal_adagrad__groups", lambda ms, nn, np, ps: nn.ProximalAdagrad(
    _groups(ps, {"lr": 0.3}, {"weight_decay": 0.1}), learning_rate=0.1, l1=0.01))
_raise_case("proximal_adagrad__bad_l2", lambda ms, nn, np, ps: nn.ProximalAdagrad(ps, l2=-0.1))
_raise_case("proximal_adagrad__bad_locking", lambda ms, nn, np, ps: nn.ProximalAdagrad(ps, use_locking=0))

# ------------------------------------------------------------------------------------ LazyAdam
_step_case("lazy_adam__default", lambda ms, nn, np, ps: nn.LazyAdam(ps, learning_rate=0.1))
_step_case("lazy_adam__nesterov", lambda ms, nn, np, ps: nn.LazyAdam(ps, learning_rate=0.1, use_nesterov=True))
_step_case("lazy_adam__wd_ls", lambda ms, nn, np, ps: nn.LazyAdam(ps, learning_rate=0.1, weight_decay=0.1,
                                                                   loss_scale=4.0))
_step_case("lazy_adam__groups", lambda ms, nn, np, ps: nn.LazyAdam(
    _groups(ps, {"lr": 0.05}, {"weight_decay": 0.1}), learning_rate=0.1))
_raise_case("lazy_adam__int_weight_decay", lambda ms, nn, np, ps: nn.LazyAdam(ps, weight_decay=1))
_raise_case("lazy_adam__bad_beta2", lambda ms, nn, np, ps: nn.LazyAdam(ps, beta2=0.0))

# --------------------------------------------------------------------------------- AdamOffload
_step_case("adam_offload__default", lambda ms, nn, np, ps: nn.AdamOffload(ps, learning_rate=0.1))
_step_case("adam_offload__nesterov", lambda ms, nn, np, ps: nn.AdamOffload(ps, learning_rate=0.1, use_nesterov=True))
_step_case("adam_offload__wd_ls", lambda ms, nn, np, ps: nn.AdamOffload(ps, learning_rate=0.1, weight_decay=0.1,
                                                                         loss_scale=4.0))
_raise_case("adam_offload__bad_nesterov", lambda ms, nn, np, ps: nn.AdamOffload(ps, use_nesterov=1))

# ----------------------------------------------------------------------------------- AdaFactor
_step_case("adafactor__default", lambda ms, nn, np, ps: nn.AdaFactor(ps), rtol=2e-5, atol=1e-6)
_step_case("adafactor__manual_lr", lambda ms, nn, np, ps: nn.AdaFactor(
    ps, learning_rate=0.1, relative_step=False, scale_parameter=False), rtol=2e-5, atol=1e-6)
_step_case("adafactor__manual_lr_scaled", lambda ms, nn, np, ps: nn.AdaFactor(
    ps, learning_rate=0.1, relative_step=False, scale_parameter=True, clip_threshold=0.5), rtol=2e-5, atol=1e-6)
_step_case("adafactor__no_first_moment", lambda ms, nn, np, ps: nn.AdaFactor(ps, beta1=0.0), rtol=2e-5, atol=1e-6)
_step_case("adafactor__warmup", lambda ms, nn, np, ps: nn.AdaFactor(ps, warmup_init=True, decay_rate=0.5),
           rtol=2e-5, atol=1e-6)
_step_case("adafactor__weight_decay", lambda ms, nn, np, ps: nn.AdaFactor(ps, weight_decay=0.1, eps=(1e-20, 1e-2)),
           rtol=2e-5, atol=1e-6)
_step_case("adafactor__schedule", lambda ms, nn, np, ps: nn.AdaFactor(
    ps, learning_rate=_schedule(nn), relative_step=False, scale_parameter=False), rtol=2e-5, atol=1e-6)
_raise_case("adafactor__lr_and_relative_step", lambda ms, nn, np, ps: nn.AdaFactor(ps, learning_rate=0.1))
_raise_case("adafactor__warmup_without_relative", lambda ms, nn, np, ps: nn.AdaFactor(
    ps, learning_rate=0.1, relative_step=False, warmup_init=True))
_raise_case("adafactor__no_lr", lambda ms, nn, np, ps: nn.AdaFactor(ps, relative_step=False))
_raise_case("adafactor__eps_one", lambda ms, nn, np, ps: nn.AdaFactor(ps, eps=(1e-30,)))
_raise_case("adafactor__decay_rate", lambda ms, nn, np, ps: nn.AdaFactor(ps, decay_rate=1.0))
_raise_case("adafactor__weight_decay_one", lambda ms, nn, np, ps: nn.AdaFactor(ps, weight_decay=1.0))

# ------------------------------------------------------------------ Momentum, SGD, Adam, AdamW
_step_case("momentum__groups_gc", lambda ms, nn, np, ps: nn.Momentum(
    _groups(ps, {"grad_centralization": True}, {"lr": 0.05}), learning_rate=0.1, momentum=0.9))
_step_case("momentum__schedule", lambda ms, nn, np, ps: nn.Momentum(ps, _schedule(nn), 0.9, weight_decay=0.1))
_step_case("sgd__groups_wd_ls", lambda ms, nn, np, ps: nn.SGD(
    _groups(ps, {"weight_decay": 0.1}, {"lr": 0.2}), learning_rate=0.1, momentum=0.5, loss_scale=2.0))
_step_case("adam__groups_order", lambda ms, nn, np, ps: nn.Adam(
    _groups(ps, {"lr": 0.05}, {"weight_decay": 0.1}, order=True), learning_rate=0.01))
_step_case("adam__schedule_amsgrad", lambda ms, nn, np, ps: nn.Adam(ps, _schedule(nn), use_amsgrad=True))
_step_case("adamw__schedule", lambda ms, nn, np, ps: nn.AdamWeightDecay(ps, _schedule(nn), weight_decay=0.1))


# ------------------------------------------------------------------- gradient centralization
def _gc_kernel(np):
    return np.linspace(-1.0, 1.0, 64, dtype=np.float32).reshape(2, 16, 2)


def _gc_grad(np):
    return np.cos(np.arange(64, dtype=np.float32)).reshape(2, 16, 2)


def _gc_expected(np):
    g = _gc_grad(np).astype(np.float64)
    centred = g - g.mean(axis=(1, 2), keepdims=True)
    kernel = (_gc_kernel(np) - 0.1 * centred).astype(np.float32)
    bias = np.array([0.5 - 0.1 * 0.1, -0.5 - 0.1 * 0.2], np.float32)
    return kernel, bias, (True, False)


@case(mindspore_wrong=True, expected=_gc_expected,
      note="MindSpore 2.10 has no CPU kernel for Centralization: the step raises RuntimeError")
def sgd__grad_centralization_conv(ms, ops, nn, np):
    kernel = ms.Parameter(ms.Tensor(_gc_kernel(np)), name="conv.weight")
    bias = ms.Parameter(_t(ms, np, [0.5, -0.5]), name="conv.bias")
    opt = nn.SGD([{"params": [kernel], "grad_centralization": True}, {"params": [bias]}], learning_rate=0.1)
    opt((ms.Tensor(_gc_grad(np)), _t(ms, np, [0.1, 0.2])))
    return kernel, bias, opt.grad_centralization_flags


# ------------------------------------------------------------------------ Lamb and LARS
def _lamb_expected(lr, weight_decay, beta1=0.9, beta2=0.999, eps=1e-6, decayed=(True, False), lrs=None):
    """A NumPy LAMB (MindSpore's documented update) over GRADS, in the result structure of _run."""
    def expected(np):
        w = [np.array(W0, np.float64), np.array(GAMMA0, np.float64)]
        m = [np.zeros_like(x) for x in w]
        v = [np.zeros_like(x) for x in w]
        values = []
        for t, grads in enumerate(GRADS, start=1):
            rate = lr if lrs is None else lrs[t - 1]
            for i, g in enumerate(grads):
                g = np.array(g, np.float64)
                m[i] = beta1 * m[i] + (1 - beta1) * g
                v[i] = beta2 * v[i] + (1 - beta2) * g * g
                update = (m[i] / (1 - beta1 ** t)) / (np.sqrt(v[i] / (1 - beta2 ** t)) + eps)
                if decayed[i]:
                    update = update + weight_decay * w[i]
                w_norm, u_norm = np.linalg.norm(w[i]), np.linalg.norm(update)
                ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
                w[i] = w[i] - rate * ratio * update
            values.append(tuple(x.astype(np.float32) for x in w))
        state = {"global_step": np.array([3], np.int32),
                 "learning_rate": np.array(lr if lrs is None else lrs[0], np.float32),
                 "w": values[-1][0], "norm.gamma": values[-1][1],
                 "lamb_m.w": m[0].astype(np.float32), "lamb_m.norm.gamma": m[1].astype(np.float32),
                 "lamb_v.w": v[0].astype(np.float32), "lamb_v.norm.gamma": v[1].astype(np.float32)}
        return {"returned": [(True, True)] * 3, "params": values, "state": state}
    return expected


_NO_LAMB_KERNEL = "MindSpore 2.10 has no CPU kernel for Lamb (ops.Lamb): the step raises RuntimeError"
_step_case("lamb__default", lambda ms, nn, np, ps: nn.Lamb(ps, 0.1), mindspore_wrong=True,
           expected=_lamb_expected(0.1, 0.0), note=_NO_LAMB_KERNEL, rtol=1e-5, atol=1e-6)
_step_case("lamb__weight_decay", lambda ms, nn, np, ps: nn.Lamb(ps, 0.1, beta1=0.8, beta2=0.9, eps=1e-4,
                                                                 weight_decay=0.1), mindspore_wrong=True,
           expected=_lamb_expected(0.1, 0.1, 0.8, 0.9, 1e-4), note=_NO_LAMB_KERNEL, rtol=1e-5, atol=1e-6)
_step_case("lamb__groups", lambda ms, nn, np, ps: nn.Lamb(_groups(ps, {}, {"weight_decay": 0.2}), 0.1),
           mindspore_wrong=True, expected=_lamb_expected(0.1, 0.2, decayed=(False, True)), note=_NO_LAMB_KERNEL,
           rtol=1e-5, atol=1e-6)


@case
def lamb__state_names(ms, ops, nn, np):
    opt = nn.Lamb(_params(ms, np), 0.1, weight_decay=0.1)
    return {name: (p.dtype, p.shape) for name, p in opt.parameters_dict().items()}, opt.decay_flags


_raise_case("lamb__no_lr", lambda ms, nn, np, ps: nn.Lamb(ps))
_raise_case("lamb__bad_beta1", lambda ms, nn, np, ps: nn.Lamb(ps, 0.1, beta1=1.5))
_raise_case("lamb__bad_eps_type", lambda ms, nn, np, ps: nn.Lamb(ps, 0.1, eps=1))


def _lars_expected(lr, momentum, weight_decay=0.0, loss_scale=1.0, coefficient=0.001, epsilon=1e-5,
                   use_clip=False, lars=(True, True), decayed=(True, False)):
    """A NumPy LARS around Momentum (MindSpore's documented update) over GRADS."""
    def expected(np):
        w = [np.array(W0, np.float64), np.array(GAMMA0, np.float64)]
        vel = [np.zeros_like(x) for x in w]
        values = []
        for grads in GRADS:
            for i, g in enumerate(grads):
                g = np.array(g, np.float64) / loss_scale
                wd = weight_decay if decayed[i] else 0.0
                if lars[i]:
                    w_norm, g_norm = np.linalg.norm(w[i]), np.linalg.norm(g)
                    local = coefficient * w_norm / (g_norm + wd * w_norm + epsilon)
                    if use_clip:
                        local = min(max(local / lr, 0.0), 1.0)
                    g = local * (g + wd * w[i])
                vel[i] = momentum * vel[i] + g
                w[i] = w[i] - lr * vel[i]
            values.append(tuple(x.astype(np.float32) for x in w))
        zero = np.array(0.0, np.float32)  # LARS's placeholders, listed as lars__state_names records them
        state = {"global_step": np.array([3], np.int32), "fake_lr": zero, "fake_param": zero,
                 "w": values[-1][0], "norm.gamma": values[-1][1], "learning_rate": np.array(lr, np.float32),
                 "momentum": np.array(momentum, np.float32),
                 "moments.w": vel[0].astype(np.float32), "moments.norm.gamma": vel[1].astype(np.float32)}
        return {"returned": [(True, True)] * 3, "params": values, "state": state}
    return expected


_NO_LARS_KERNEL = "MindSpore 2.10 has no CPU kernel for LARSUpdate: the step raises RuntimeError"
_step_case("lars__momentum", lambda ms, nn, np, ps: nn.LARS(nn.Momentum(ps, 0.1, 0.9)), mindspore_wrong=True,
           expected=_lars_expected(0.1, 0.9), note=_NO_LARS_KERNEL, rtol=1e-5, atol=1e-6)
_step_case("lars__wd_ls", lambda ms, nn, np, ps: nn.LARS(
    nn.Momentum(ps, 0.1, 0.9, weight_decay=0.1, loss_scale=2.0), epsilon=1e-3, coefficient=0.01),
    mindspore_wrong=True, expected=_lars_expected(0.1, 0.9, 0.1, 2.0, 0.01, 1e-3), note=_NO_LARS_KERNEL,
    rtol=1e-5, atol=1e-6)
_step_case("lars__clip_filter", lambda ms, nn, np, ps: nn.LARS(
    nn.Momentum(ps, 0.1, 0.9), coefficient=0.05, use_clip=True, lars_filter=lambda p: "gamma" not in p.name),
    mindspore_wrong=True, expected=_lars_expected(0.1, 0.9, coefficient=0.05, use_clip=True, lars=(True, False)),
    note=_NO_LARS_KERNEL, rtol=1e-5, atol=1e-6)


@case
def lars__state_names(ms, ops, nn, np):
    inner = nn.Momentum(_params(ms, np), 0.1, 0.9, weight_decay=0.1)
    opt = nn.LARS(inner, use_clip=True)
    return ({name: (p.dtype, p.shape) for name, p in opt.parameters_dict().items()},
            opt.lars_flag, opt.decay_flags, inner.decay_flags, inner.exec_weight_decay)


_raise_case("lars__bad_epsilon_type", lambda ms, nn, np, ps: nn.LARS(nn.Momentum(ps, 0.1, 0.9), epsilon=1))
_raise_case("lars__clip_with_group_dynamic_lr", lambda ms, nn, np, ps: nn.LARS(
    nn.Momentum(_groups(ps, {"lr": [0.1, 0.2]}, {}), [0.1, 0.3], 0.9), use_clip=True))


# ------------------------------------------------------------------------------ the base class
@case
def optimizer__custom_subclass(ms, ops, nn, np):
    class PlainDescent(nn.Optimizer):
        def __init__(self, params, learning_rate, weight_decay=0.0, loss_scale=1.0):
            super().__init__(learning_rate, params, weight_decay, loss_scale)

        def construct(self, gradients):
            gradients = self.decay_weight(gradients)
            gradients = self.gradients_centralization(gradients)
            gradients = self.scale_grad(gradients)
            lr = self.get_lr()
            for param, grad in zip(self.parameters, gradients):
                param.set_data(param - lr * grad)
            self.global_step.set_data(self.global_step + 1)
            return True

    params = _params(ms, np)
    opt = PlainDescent(params, [0.1, 0.2, 0.3], weight_decay=0.5, loss_scale=2.0)
    return _run(ms, np, opt, params)


@case
def optimizer__attributes(ms, ops, nn, np):
    ps = _params(ms, np)
    opt = nn.Momentum(_groups(ps, {"lr": 0.05, "weight_decay": 0.01}, {"grad_centralization": True}), 0.1, 0.9)
    return (opt.is_group, opt.is_group_lr, opt.dynamic_lr, opt.is_group_params_ordered, opt.decay_flags,
            opt.grad_centralization_flags, opt.exec_weight_decay, opt.need_scale, opt.loss_scale, opt.param_length,
            opt.unique, opt.target, [p.name for p in opt.learning_rate], opt.get_weight_decay())


@case
def optimizer__get_lr_fixed_groups(ms, ops, nn, np):
    ps = _params(ms, np)
    opt = nn.SGD(_groups(ps, {"lr": 0.05}, {}), 0.1)
    lr = opt.get_lr()
    single = opt.get_lr_parameter(ps[0])
    both = opt.get_lr_parameter([ps[1], ps[0]])
    return lr, single, single.name, both, [p.name for p in both]


@case
def optimizer__get_lr_dynamic(ms, ops, nn, np):
    ps = _params(ms, np)
    opt = nn.Momentum(ps, [0.3, 0.2, 0.1], 0.9)
    before = opt.get_lr()
    opt((_t(ms, np, GRADS[0][0]), _t(ms, np, GRADS[0][1])))
    after = opt.get_lr()
    parameter = opt.get_lr_parameter(ps[0])
    return before, after, parameter.name, parameter


@case
def optimizer__get_lr_dynamic_groups(ms, ops, nn, np):
    ps = _params(ms, np)
    opt = nn.SGD(_groups(ps, {"lr": [0.05, 0.02, 0.01]}, {}), [0.1, 0.2, 0.3])
    opt((_t(ms, np, GRADS[0][0]), _t(ms, np, GRADS[0][1])))
    lrs = opt.get_lr()
    parameters = opt.get_lr_parameter(ps)
    return lrs, [x.name for x in parameters], parameters


@case
def optimizer__get_lr_schedule(ms, ops, nn, np):
    ps = _params(ms, np)
    schedule = _schedule(nn)
    opt = nn.Adam(ps, schedule)
    opt((_t(ms, np, GRADS[0][0]), _t(ms, np, GRADS[0][1])))
    return opt.get_lr(), opt.get_lr_parameter(ps[1]) is schedule, list(opt.parameters_dict())


@case
def optimizer__get_weight_decay_dynamic(ms, ops, nn, np):
    class Decay(nn.Cell):
        def construct(self, global_step):
            return ops.cast(global_step, ms.float32) * 0.1 + 0.05

    ps = _params(ms, np)
    opt = nn.Momentum(_groups(ps, {"weight_decay": Decay()}, {"weight_decay": 0.3}), 0.1, 0.9, loss_scale=2.0)
    first = opt.get_weight_decay()
    result = _run(ms, np, opt, ps)
    return first, opt.get_weight_decay(), opt.decay_flags, opt.dynamic_decay_flags, result


_raise_case("optimizer__get_lr_parameter_unknown", lambda ms, nn, np, ps: nn.SGD(ps).get_lr_parameter(
    ms.Parameter(_t(ms, np, [1.0]), name="other")))
_raise_case("optimizer__get_lr_parameter_type", lambda ms, nn, np, ps: nn.SGD(ps).get_lr_parameter("w"))
_raise_case("optimizer__unique_type", lambda ms, nn, np, ps: setattr(nn.SGD(ps), "unique", 1))
_raise_case("optimizer__params_none", lambda ms, nn, np, ps: nn.SGD(None))
_raise_case("optimizer__params_empty", lambda ms, nn, np, ps: nn.Adagrad([]))
_raise_case("optimizer__params_mixed", lambda ms, nn, np, ps: nn.RMSProp([ps[0], {"params": [ps[1]]}]))
_raise_case("optimizer__params_int", lambda ms, nn, np, ps: nn.AdaMax(3))
_raise_case("optimizer__lr_negative", lambda ms, nn, np, ps: nn.Adadelta(ps, learning_rate=-0.1))
_raise_case("optimizer__lr_string", lambda ms, nn, np, ps: nn.Rprop(ps, learning_rate="fast"))
_raise_case("optimizer__lr_2d", lambda ms, nn, np, ps: nn.ASGD(ps, learning_rate=_t(ms, np, [[0.1, 0.2]])))
_raise_case("optimizer__wd_negative", lambda ms, nn, np, ps: nn.ProximalAdagrad(ps, weight_decay=-0.1))
_raise_case("optimizer__wd_string", lambda ms, nn, np, ps: nn.AdaMax(ps, weight_decay="0.1"))
_raise_case("optimizer__loss_scale_zero", lambda ms, nn, np, ps: nn.RMSProp(ps, loss_scale=0.0))
_raise_case("optimizer__loss_scale_string", lambda ms, nn, np, ps: nn.Adagrad(ps, loss_scale="2"))
_raise_case("optimizer__group_unknown_key", lambda ms, nn, np, ps: nn.Adagrad(_groups(ps, {"momentum": 0.9}, {})))
_raise_case("optimizer__group_repeated", lambda ms, nn, np, ps: nn.AdaMax([{"params": ps}, {"params": [ps[0]]}]))
_raise_case("optimizer__group_order_length", lambda ms, nn, np, ps: nn.RMSProp(
    [{"params": ps}, {"order_params": [ps[0]]}]))
_raise_case("optimizer__group_gc_type", lambda ms, nn, np, ps: nn.Adagrad(_groups(ps, {"grad_centralization": 1}, {})))
_raise_case("optimizer__group_dyn_lengths", lambda ms, nn, np, ps: nn.Adadelta(
    _groups(ps, {"lr": [0.1, 0.2]}, {"lr": [0.1, 0.2, 0.3]})))


# ------------------------------------------------------- checkpoints of TrainOneStepCell
_CHECKPOINT_OPTIMIZERS = {
    "sgd": lambda nn, ps: nn.SGD(ps, 0.1, momentum=0.9),
    "momentum": lambda nn, ps: nn.Momentum(ps, 0.1, 0.9),
    "adam": lambda nn, ps: nn.Adam(ps, 0.01),
    "adam_amsgrad": lambda nn, ps: nn.Adam(ps, 0.01, use_amsgrad=True),
    "adamw": lambda nn, ps: nn.AdamWeightDecay(ps, 0.01, weight_decay=0.1),
    "adagrad": lambda nn, ps: nn.Adagrad(ps, learning_rate=0.1),
    "adadelta": lambda nn, ps: nn.Adadelta(ps),
    "adamax": lambda nn, ps: nn.AdaMax(ps, 0.01),
    "asgd": lambda nn, ps: nn.ASGD(ps),
    "rmsprop": lambda nn, ps: nn.RMSProp(ps, 0.01, momentum=0.9),
    "rmsprop_centered": lambda nn, ps: nn.RMSProp(ps, 0.01, centered=True),
    "rprop": lambda nn, ps: nn.Rprop(ps),
    "ftrl": lambda nn, ps: nn.FTRL(ps),
    "proximal_adagrad": lambda nn, ps: nn.ProximalAdagrad(ps, learning_rate=0.1),
    "lazy_adam": lambda nn, ps: nn.LazyAdam(ps, 0.01),
    "adam_offload": lambda nn, ps: nn.AdamOffload(ps, 0.01),
    "adafactor": lambda nn, ps: nn.AdaFactor(ps),
    "momentum_groups_dyn": lambda nn, ps: nn.Momentum(
        [{"params": [ps[0]], "lr": [0.1, 0.05]}, {"params": [ps[1]]}], [0.2, 0.1], 0.9),
    "adam_schedule": lambda nn, ps: nn.Adam(ps, nn.CosineDecayLR(0.001, 0.01, 4)),
}


def _checkpoint_case(name, make):
    def run(ms, ops, nn, np):
        import os
        import tempfile

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(3, 2, weight_init=_t(ms, np, [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]),
                                      bias_init=_t(ms, np, [0.05, -0.05]))

            def construct(self, x):
                return self.dense(x)

        net = Net()
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        train = nn.TrainOneStepCell(loss_net, make(nn, net.trainable_params()))
        x = _t(ms, np, [[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]])
        y = _t(ms, np, [[0.3, -0.2], [1.0, 0.0]])
        losses = [train(x, y), train(x, y)]
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "train.ckpt")
            ms.save_checkpoint(train, path)
            loaded = ms.load_checkpoint(path)
        return losses, {key: value for key, value in loaded.items()}, [p.name for p in train.trainable_params()]
    case(_named(run, f"checkpoint__{name}"), rtol=2e-5, atol=1e-6)


for _name, _make in _CHECKPOINT_OPTIMIZERS.items():
    _checkpoint_case(_name, _make)


@case
def checkpoint__lamb_names(ms, ops, nn, np):
    net = nn.Dense(3, 2)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Lamb(net.trainable_params(), 0.01))
    return [(name, p.shape, p.dtype) for name, p in train.parameters_dict().items()]
