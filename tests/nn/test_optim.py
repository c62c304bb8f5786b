"""Optimizers: update rules, state names, groups, weight decay and learning rates, against MindSpore 2.10.

The reference numbers in ``data/mindspore210_optim.json`` were observed with
MindSpore 2.10.0 (CPU, PyNative): two Parameters, ``w`` (2x2) and ``beta_b``
(the name makes MindSpore skip it in weight decay), the gradients ``GRADS``
below applied three times, then ``optimizer.parameters_dict()`` read back.
"""
import json
import pathlib

import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import nn, ops

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "mindspore210_optim.json").read_text())

W0 = np.array([[0.5, -1.0], [2.0, 0.3]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
GRADS = [
    {"w": np.array([[0.2, -0.1], [0.4, 0.05]], np.float32), "beta_b": np.array([0.3, -0.6], np.float32)},
    {"w": np.array([[-0.1, 0.3], [0.2, -0.2]], np.float32), "beta_b": np.array([0.1, 0.2], np.float32)},
    {"w": np.array([[0.05, 0.05], [-0.3, 0.1]], np.float32), "beta_b": np.array([-0.4, 0.05], np.float32)},
]


def make_params():
    return [ms.Parameter(ms.Tensor(W0.copy()), name="w"), ms.Parameter(ms.Tensor(B0.copy()), name="beta_b")]


def run_three_steps(optimizer):
    results = []
    for grads in GRADS:
        results.append(optimizer(tuple(ms.Tensor(grads[p.name]) for p in optimizer.parameters)))
    return results


CASES = {
    "sgd_default": lambda ps: nn.SGD(ps),
    "sgd_mom_damp_wd": lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "sgd_nesterov": lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9, nesterov=True),
    "sgd_damp_nomom": lambda ps: nn.SGD(ps, learning_rate=0.1, dampening=0.5),
    "sgd_loss_scale": lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.5, weight_decay=0.01, loss_scale=2.0),
    "momentum": lambda ps: nn.Momentum(ps, 0.1, 0.9),
    # MindSpore 2.10 (CPU) ignores use_nesterov in Momentum: its numbers for use_nesterov=True are those
    # of plain momentum.  cellkit applies Nesterov (see test_momentum_nesterov_follows_documented_formula).
    "momentum_nesterov_wd_ls": lambda ps: nn.Momentum(ps, 0.1, 0.9, weight_decay=0.05, loss_scale=4.0),
    "adam": lambda ps: nn.Adam(ps, learning_rate=0.01),
    "adam_nesterov_wd": lambda ps: nn.Adam(ps, learning_rate=0.01, use_nesterov=True, weight_decay=0.1),
    "adam_ls": lambda ps: nn.Adam(ps, learning_rate=0.01, loss_scale=8.0, weight_decay=0.1),
    "adam_amsgrad": lambda ps: nn.Adam(ps, learning_rate=0.01, use_amsgrad=True),
    "adamw": lambda ps: nn.AdamWeightDecay(ps, learning_rate=0.01, weight_decay=0.1),
    "adamw_eps": lambda ps: nn.AdamWeightDecay(ps, learning_rate=0.01, beta1=0.8, beta2=0.9, eps=1e-3),
    "momentum_dyn_list": lambda ps: nn.Momentum(ps, [0.1, 0.05, 0.01], 0.9),
    "momentum_dyn_tensor": lambda ps: nn.Momentum(ps, ms.Tensor(np.array([0.3, 0.2, 0.1], np.float32)), 0.9),
    "sgd_lr_tensor0d": lambda ps: nn.SGD(ps, ms.Tensor(0.2, ms.float32)),
    "momentum_groups": lambda ps: nn.Momentum(
        [{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.1}, {"params": [ps[1]]}], 0.1, 0.9, weight_decay=0.0),
    "momentum_groups_order": lambda ps: nn.Momentum(
        [{"params": [ps[0]], "lr": 0.05}, {"params": [ps[1]], "weight_decay": 0.0},
         {"order_params": [ps[1], ps[0]]}], 0.1, 0.9, weight_decay=0.02),
    "adam_groups": lambda ps: nn.Adam(
        [{"params": [ps[0]], "weight_decay": 0.1}, {"params": [ps[1]], "lr": 0.02, "weight_decay": 0.1}],
        learning_rate=0.01, weight_decay=0.0),
    "adamw_groups": lambda ps: nn.AdamWeightDecay(
        [{"params": [ps[0]], "weight_decay": 0.1}, {"params": [ps[1]], "lr": 0.02, "weight_decay": 0.2}],
        learning_rate=0.01, weight_decay=0.0),
    "sgd_groups_dyn": lambda ps: nn.SGD(
        [{"params": [ps[0]], "lr": [0.01, 0.02, 0.03]}, {"params": [ps[1]]}], learning_rate=[0.1, 0.2, 0.3],
        momentum=0.9),
}


def assert_state_matches(state, expected):
    assert list(state) == list(expected), "parameters_dict() keys or their order differ from MindSpore's"
    for name, value in expected.items():
        np.testing.assert_allclose(state[name].asnumpy(), np.asarray(value), rtol=2e-6, atol=1e-7,
                                   err_msg=f"state '{name}'")


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_three_steps_match_mindspore(case):
    expected = DATA["optimizers"][case]
    optimizer = CASES[case](make_params())
    results = run_three_steps(optimizer)
    assert results == [(True, True)] * 3
    assert [p.name for p in optimizer.parameters] == expected["order"]
    assert_state_matches(optimizer.parameters_dict(), expected["state"])


def test_optimizer_state_parameter_kinds_match_mindspore():
    opt = nn.Adam(make_params())
    meta = {name: (str(p.dtype), tuple(p.shape), p.requires_grad) for name, p in opt.parameters_dict().items()}
    assert meta["global_step"] == ("Int32", (1,), True)
    assert meta["learning_rate"] == ("Float32", (), True)
    assert meta["beta1_power"] == ("Float32", (), True)
    assert meta["moment2.w"] == ("Float32", (2, 2), True)


def numpy_nesterov_momentum(lr, momentum, weight_decay, loss_scale):
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for grads in GRADS:
        gw = (grads["w"] + weight_decay * loss_scale * w) / loss_scale  # 'beta_b' is not decayed
        gb = grads["beta_b"] / loss_scale
        vw, vb = momentum * vw + gw, momentum * vb + gb
        w, b = w - lr * (gw + momentum * vw), b - lr * (gb + momentum * vb)
    return w, b


def test_momentum_nesterov_follows_documented_formula():
    ps = make_params()
    run_three_steps(nn.Momentum(ps, 0.1, 0.9, weight_decay=0.05, loss_scale=4.0, use_nesterov=True))
    w, b = numpy_nesterov_momentum(0.1, 0.9, 0.05, 4.0)
    np.testing.assert_allclose(ps[0].asnumpy(), w, rtol=1e-5)
    np.testing.assert_allclose(ps[1].asnumpy(), b, rtol=1e-5)


def test_optimizer_updates_in_place_and_leaves_gradients_alone():
    ps = make_params()
    before = [id(p) for p in ps]
    grads = tuple(ms.Tensor(GRADS[0][p.name]) for p in ps)
    copies = [g.asnumpy().copy() for g in grads]
    opt = nn.Adam(ps, learning_rate=0.1, weight_decay=0.1)
    opt(grads)
    assert [id(p) for p in opt.parameters] == before
    for g, c in zip(grads, copies):
        np.testing.assert_array_equal(g.asnumpy(), c)
    assert not np.allclose(ps[0].asnumpy(), W0)


def test_optimizer_copies_read_only_parameter_data_before_updating():
    data = W0.copy()
    data.setflags(write=False)
    p = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    p._data = data
    nn.SGD([p], 0.1)((ms.Tensor(np.ones((2, 2), np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), W0 - 0.1)
    np.testing.assert_array_equal(data, W0)


# --------------------------------------------------------------------------- learning rates


@pytest.mark.parametrize("name, make", [
    ("exp", lambda: nn.ExponentialDecayLR(0.1, 0.9, 4)),
    ("exp_stair", lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)),
    ("cos", lambda: nn.CosineDecayLR(0.01, 0.1, 10)),
    ("poly", lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0)),
    ("poly_update", lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0, update_decay_steps=True)),
    ("warmup", lambda: nn.WarmUpLR(0.1, 4)),
])
def test_lr_schedule_values_match_mindspore(name, make):
    schedule = make()
    got = [float(schedule(ms.Tensor(np.array([s], np.int32))).asnumpy().reshape(-1)[0])
           for s in DATA["schedule_steps"]]
    np.testing.assert_allclose(got, DATA["schedules"][name], rtol=1e-6, atol=1e-9)


def test_optimizer_with_schedule_matches_mindspore():
    w = ms.Parameter(ms.Tensor(np.array([1.0, -2.0], np.float32)), name="w")
    opt = nn.Momentum([w], nn.CosineDecayLR(0.01, 0.1, 2), 0.9)
    for g in ([0.5, 0.5], [0.1, -0.3], [1.0, 0.0]):
        opt((ms.Tensor(np.array(g, np.float32)),))
    assert_state_matches(opt.parameters_dict(), DATA["momentum_cosine"])


def test_optimizer_dynamic_weight_decay_matches_mindspore():
    class Decay(nn.Cell):
        def construct(self, step):
            return 0.1 * ops.cast(step, ms.float32) + 0.05

    w = ms.Parameter(ms.Tensor(np.array([1.0, -2.0], np.float32)), name="w")
    opt = nn.Momentum([w], 0.1, 0.9, weight_decay=Decay(), loss_scale=2.0)
    for g in ([0.5, 0.5], [0.1, -0.3], [1.0, 0.0]):
        opt((ms.Tensor(np.array(g, np.float32)),))
    expected = dict(DATA["momentum_dynamic_weight_decay"])
    state = opt.parameters_dict()
    assert set(state) == set(expected)
    for name in expected:
        np.testing.assert_allclose(state[name].asnumpy(), np.asarray(expected[name]), rtol=2e-6)


def test_get_lr_fixed_is_the_parameter_and_dynamic_follows_global_step():
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    fixed = nn.SGD([w], 0.25)
    assert fixed.get_lr() is fixed.learning_rate
    assert fixed.learning_rate.name == "learning_rate"
    dynamic = nn.SGD([w], [0.1, 0.2])
    assert float(dynamic.get_lr().asnumpy()) == pytest.approx(0.1)
    dynamic((ms.Tensor(np.ones(2, np.float32)),))
    assert dynamic.get_lr().shape == ()
    assert float(dynamic.get_lr().asnumpy()) == pytest.approx(0.2)


def test_dynamic_lr_running_out_raises_runtime_error():
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    opt = nn.SGD([w], [0.1, 0.2])
    g = (ms.Tensor(np.ones(2, np.float32)),)
    opt(g)
    opt(g)
    with pytest.raises(RuntimeError, match="2 values"):
        opt(g)


def test_learning_rate_set_data_changes_the_next_update():
    w = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([w], 0.1)
    opt.learning_rate.set_data(ms.Tensor(0.5, ms.float32))
    opt((ms.Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [-0.5])


# --------------------------------------------------------------------------- groups and weight decay


def test_groups_give_each_parameter_its_lr_and_decay():
    net = nn.Dense(2, 2)
    opt = nn.Momentum([{"params": [net.weight], "lr": 0.05, "weight_decay": 0.01}, {"params": [net.bias]}],
                      learning_rate=0.1, momentum=0.9)
    assert opt.is_group and opt.is_group_lr
    assert opt.decay_flags == (True, False)
    assert [float(x.asnumpy()) for x in opt.get_lr_parameter([net.weight, net.bias])] == pytest.approx([0.05, 0.1])
    assert [p.name for p in opt.learning_rate] == ["learning_rate_group_0", "learning_rate"]
    with pytest.raises(ValueError, match="not in optimizer"):
        opt.get_lr_parameter(ms.Parameter(ms.Tensor([1.0]), name="other"))


def test_weight_decay_skips_beta_and_gamma_names_without_groups():
    params = [ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name=n)
              for n in ("fc.weight", "bn.beta", "bn.gamma", "fc.bias")]
    opt = nn.SGD(params, learning_rate=1.0, weight_decay=0.5)
    assert opt.decay_flags == (True, False, False, True)
    opt(tuple(ms.Tensor(np.zeros(2, np.float32)) for _ in params))
    assert [float(p.asnumpy()[0]) for p in params] == [0.5, 1.0, 1.0, 0.5]


def test_group_weight_decay_zero_is_not_decayed_even_for_plain_names():
    a = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="a")
    gamma = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="gamma")
    opt = nn.SGD([{"params": [a], "weight_decay": 0.0}, {"params": [gamma], "weight_decay": 0.5}], 1.0)
    assert opt.decay_flags == (False, True)
    opt((ms.Tensor(np.zeros(2, np.float32)), ms.Tensor(np.zeros(2, np.float32))))
    assert a.asnumpy().tolist() == [1.0, 1.0] and gamma.asnumpy().tolist() == [0.5, 0.5]


def test_get_weight_decay_is_scaled_by_loss_scale():
    w = ms.Parameter(ms.Tensor([1.0]), name="w")
    assert float(nn.Momentum([w], 0.1, 0.9, weight_decay=0.1, loss_scale=2.0).get_weight_decay().asnumpy()) \
        == pytest.approx(0.2)


def test_grad_centralization_subtracts_the_mean_of_conv_kernels_only():
    conv = ms.Parameter(ms.Tensor(np.zeros((2, 16, 1, 1), np.float32)), name="conv.weight")
    fc = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="fc.weight")
    opt = nn.SGD([{"params": [conv, fc], "grad_centralization": True}], 1.0)
    g_conv = np.arange(32, dtype=np.float32).reshape(2, 16, 1, 1)
    g_fc = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    opt((ms.Tensor(g_conv), ms.Tensor(g_fc)))
    np.testing.assert_allclose(conv.asnumpy(), -(g_conv - g_conv.mean(axis=(1, 2, 3), keepdims=True)))
    np.testing.assert_allclose(fc.asnumpy(), -g_fc)  # 3 columns: not a multiple of 16, left alone


@pytest.mark.parametrize("make, error, match", [
    (lambda ps: nn.SGD([], 0.1), ValueError, "must not be empty"),
    (lambda ps: nn.SGD(ps, -0.1), ValueError, "must >= 0"),
    (lambda ps: nn.SGD(ps, "fast"), ValueError, "learning_rate"),
    (lambda ps: nn.SGD(ps, ms.Tensor(np.ones((2, 2), np.float32))), ValueError, "0 or 1 dimension"),
    (lambda ps: nn.SGD(ps, 0.1, weight_decay=-1.0), ValueError, "weight_decay"),
    (lambda ps: nn.SGD(ps, 0.1, loss_scale=0.0), ValueError, "loss_scale"),
    (lambda ps: nn.SGD(ps, 0.1, nesterov=True), ValueError, "nesterov"),
    (lambda ps: nn.SGD(ps, 0.1, momentum=-0.5), ValueError, "momentum"),
    (lambda ps: nn.Momentum(ps, 0.1, 1), TypeError, "'momentum' should be 'float'"),
    (lambda ps: nn.Adam(ps, beta1=1.0), ValueError, "beta1"),
    (lambda ps: nn.Adam(ps, eps=1), TypeError, "eps"),
    (lambda ps: nn.Adam(ps, use_lazy=True, use_offload=True), ValueError, "both"),
    (lambda ps: nn.Adam(ps, use_fast=True), KeyError, "invalid keys"),
    (lambda ps: nn.SGD([ps[0], {"params": [ps[1]]}]), TypeError, "Parameters or all must be dicts"),
    (lambda ps: nn.SGD([{"params": ps, "momentum": 0.9}]), KeyError, "must be one of"),
    (lambda ps: nn.SGD([{"params": ps}, {"params": [ps[0]]}]), RuntimeError, "already exists"),
    (lambda ps: nn.SGD([{"params": ps}, {"order_params": [ps[0]]}]), ValueError, "length of order parameters"),
    (lambda ps: nn.SGD([{"params": [ps[0]], "lr": [0.1, 0.2]}, {"params": [ps[1]], "lr": [0.1]}]),
     ValueError, "same size"),
])
def test_optimizer_rejects_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make(make_params())


def test_optimizer_rejects_wrong_gradients():
    opt = nn.SGD(make_params(), 0.1)
    with pytest.raises(ValueError, match="got 1 gradients for 2 parameters"):
        opt((ms.Tensor(GRADS[0]["w"]),))
    with pytest.raises(ValueError, match="shape"):
        opt((ms.Tensor(GRADS[0]["beta_b"]), ms.Tensor(GRADS[0]["w"])))
    with pytest.raises(TypeError, match="tuple"):
        opt(ms.Tensor(GRADS[0]["w"]))


def test_optimizer_public_steps_work_on_tensors():
    ps = make_params()
    opt = nn.SGD(ps, 0.1, weight_decay=0.5, loss_scale=2.0)
    grads = tuple(ms.Tensor(GRADS[0][p.name]) for p in ps)
    decayed = opt.decay_weight(grads)
    np.testing.assert_allclose(decayed[0].asnumpy(), GRADS[0]["w"] + 1.0 * W0)  # 0.5 * loss_scale
    np.testing.assert_allclose(decayed[1].asnumpy(), GRADS[0]["beta_b"])
    np.testing.assert_allclose(opt.scale_grad(grads)[0].asnumpy(), GRADS[0]["w"] / 2)
    assert opt.gradients_centralization(grads)[0].shape == (2, 2)


def test_custom_optimizer_subclass_uses_the_base_helpers():
    class PlainGD(nn.Optimizer):
        def __init__(self, params, learning_rate):
            super().__init__(learning_rate, params)

        def construct(self, gradients):
            gradients = self.scale_grad(self.decay_weight(gradients))
            lr = self.get_lr()
            for p, g in zip(self.parameters, gradients):
                p.set_data(p - lr * g)
            return True

    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    assert PlainGD([w], 0.5)((ms.Tensor([1.0, 1.0]),)) is True
    np.testing.assert_allclose(w.asnumpy(), [0.5, 1.5])


@pytest.mark.parametrize("make", [
    lambda ps: nn.SGD(ps, 0.1, momentum=0.9, weight_decay=0.01),
    lambda ps: nn.Momentum(ps, [0.1, 0.05, 0.01], 0.9, use_nesterov=True),
    lambda ps: nn.Adam(ps, 0.01, use_amsgrad=True, weight_decay=0.1, loss_scale=2.0),
    lambda ps: nn.AdamWeightDecay(ps, 0.01, weight_decay=0.1),
], ids=["sgd", "momentum", "adam", "adamw"])
def test_optimizer_runs_on_every_backend(backend, make):
    opt = make(make_params())
    run_three_steps(opt)
    got = {name: p.asnumpy() for name, p in opt.parameters_dict().items()}
    with _backend.use("numpy"):
        reference = make(make_params())
        run_three_steps(reference)
        expected = {name: p.asnumpy() for name, p in reference.parameters_dict().items()}
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-6, atol=1e-7, err_msg=name)
