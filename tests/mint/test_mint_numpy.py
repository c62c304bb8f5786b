"""``cellkit.mint`` and ``cellkit.numpy`` against what MindSpore 2.10 recorded
(``tests/fixtures/mindspore/mint_numpy.json``), and, for the ``mint`` calls MindSpore 2.10 cannot run
on the CPU, against the ``cellkit.ops`` call each adapter stands for (the op catalogue checks those
against MindSpore).
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import mint, nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, read_fixture, record_command

MODULE = "mint_numpy"
CASE_MODULE = load_case_module(MODULE)
CASES = CASE_MODULE.CASES
RECORDED = read_fixture(MODULE)


@pytest.mark.parametrize("name", CASES.names())
def test_mint_numpy_matches_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_mint_numpy_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


X = np.array([[1.0, -2.0, 3.5], [0.5, 4.0, -1.5]], np.float32)
Y = np.array([[2.0, 1.0, -0.5], [3.0, -2.0, 2.5]], np.float32)


def _t(a):
    return ms.Tensor(a)


# What each mint call without a MindSpore CPU kernel must equal: the ops (or NumPy) computation it stands for.
REFERENCE = {
    "addcdiv": lambda: X + 2 * X / Y,
    "addcmul": lambda: X + 0.5 * X * Y,
    "mm": lambda: X @ Y.T,
    "outer": lambda: np.outer(X[0], Y[0]),
    "dot": lambda: np.dot(X[0], Y[0]),
    "argmax_all": lambda: np.int64(np.argmax(X)),
    "argmax_dim": lambda: np.argmax(X, 1),
    "argmin_dim": lambda: np.argmin(X, 1)[:, None],
    "std": lambda: np.std(X, 0, ddof=1),
    "var_keepdim": lambda: np.var(X, 1, ddof=1, keepdims=True),
    "var_correction0": lambda: np.var(X),
    "logsumexp": lambda: np.log(np.exp(X).sum(1)),
    "cumsum": lambda: np.cumsum(X, 1),
    "sort": lambda: (np.sort(X[0]), np.argsort(X[0])),
    "sort_descending": lambda: (-np.sort(-X, 0), np.argsort(-X, 0)),
    "topk": lambda: (np.array([3.5, 1.0], np.float32), np.array([2, 0])),
    "topk_smallest": lambda: (np.array([[-2.0, 1.0], [-1.5, 0.5]], np.float32), np.array([[1, 0], [2, 0]])),
    "argsort": lambda: np.argsort(X, 1),
    "stack": lambda: np.stack((X, Y), 1),
    "index_select": lambda: X[:, [2, 0]],
    "scatter_add": lambda: X + np.array([[2.0, 0, 1.0], [0, 3.0, 4.0]], np.float32),
    "tril": lambda: np.tril(X),
    "roll": lambda: np.roll(X, 1, 1),
    "trace": lambda: np.float32(np.trace(X)),
    "diag_vector": lambda: np.diag(X[0]),
    "diag_matrix": lambda: np.diag(X, 1),
    "repeat_interleave": lambda: np.repeat(X, 2, 1),
    "full": lambda: np.full((2, 2), 1.5, np.float32),
    "zeros_like": lambda: np.zeros_like(X),
    "ones_like": lambda: np.ones_like(X),
    "full_like": lambda: np.full_like(X, 7.0),
    "arange": lambda: np.arange(5),
    "arange_float": lambda: np.arange(1, 2, 0.25, dtype=np.float32),
    "linspace": lambda: np.linspace(0, 1, 5, dtype=np.float32),
    "f_relu6": lambda: np.clip(X * 3, 0, 6),
    "f_elu": lambda: np.where(X > 0, X, np.expm1(X)),
    "f_leaky_relu": lambda: np.where(X > 0, X, 0.1 * X),
    "f_hardtanh": lambda: np.clip(X, -1, 1),
    "f_logsigmoid": lambda: -np.log1p(np.exp(-X)),
    "f_mish": lambda: X * np.tanh(np.log1p(np.exp(X))),
    "f_log_softmax": lambda: X - np.log(np.exp(X).sum(0, keepdims=True)),
    "f_max_pool2d": lambda: np.arange(32, dtype=np.float32).reshape(1, 2, 2, 2, 2, 2).max((3, 5)),
    "f_avg_pool2d": lambda: np.arange(32, dtype=np.float32).reshape(1, 2, 2, 2, 2, 2).mean((3, 5)),
    "f_mse_loss": lambda: np.float32(((X - Y) ** 2).mean()),
    "f_l1_loss": lambda: np.float32(np.abs(X - Y).sum()),
    "f_one_hot": lambda: np.eye(4, dtype=np.int64)[[0, 2, 1]],
    "f_pad": lambda: np.pad(X, ((0, 1), (1, 1)), constant_values=9.0),
    "f_normalize": lambda: X / np.linalg.norm(X, axis=1, keepdims=True),
    "f_embedding": lambda: np.arange(12, dtype=np.float32).reshape(4, 3)[[[0, 3]]],
    "nn_relu": lambda: np.maximum(X, 0),
    "nn_mse_loss": lambda: np.float32(((X - Y) ** 2).mean()),
    "nn_l1_loss": lambda: np.abs(X - Y),
    "special_exp2": lambda: np.exp2(X),
    "special_log_softmax": lambda: X - np.log(np.exp(X).sum(0, keepdims=True)),
    "linalg_inv": lambda: np.linalg.inv(np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)),
    "linalg_vector_norm": lambda: np.float32(np.linalg.norm(X.ravel())),
    "linalg_vector_norm_dim": lambda: np.abs(X).sum(1),
    "linalg_norm": lambda: np.float32(np.linalg.norm(X)),
    "linalg_matrix_norm": lambda: np.float32(np.linalg.norm(X)),
    "norm_fro": lambda: np.float32(np.linalg.norm(X)),
    "norm_p1_dim": lambda: np.abs(X).sum(1),
    "median_all": lambda: np.float32(0.5),  # the lower of the two middle values
    "count_nonzero": lambda: (X > 0).sum(1),
    "unique": lambda: (np.array([1, 2, 3]), np.array([2, 1, 1])),
    "where_one_arg": lambda: tuple(np.nonzero(X > 0)),
    "take": lambda: X.ravel()[[0, 5]],
    "kthvalue": lambda: (np.sort(X, 1)[:, 1], np.argsort(X, 1)[:, 1]),
    "index_add": lambda: X + 2 * np.array([[1.0, 0, 2.0], [3.0, 0, 4.0]], np.float32),
    "histc": lambda: np.histogram(X, 4, (-2, 4))[0].astype(np.float32),
    "vdot": lambda: np.float32(np.vdot(X[0], Y[0])),
    "equal": lambda: True,
    "baddbmm": lambda: 0.5 * np.ones((1, 1, 1), np.float32) + 2 * (X.reshape(1, 2, 3)[:, :1] @ Y.reshape(1, 3, 2)[:, :, :1]),
    "bitwise_not": lambda: np.array([-2, 1, -1], np.int32),
    "frac": lambda: X - np.trunc(X),
    "nansum": lambda: X.sum(1),
    "std_mean": lambda: (np.std(X, 1, ddof=1), X.mean(1)),
    "var_mean": lambda: (np.var(X, ddof=1), X.mean()),
    "softmax": lambda: np.exp(X) / np.exp(X).sum(1, keepdims=True),
}


def _host(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_host(v) for v in value)
    return value.asnumpy() if isinstance(value, ms.Tensor) else value


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    if isinstance(want, bool):
        assert got is want
        return
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASE_MODULE.NO_CPU_KERNEL))
def test_mint_call_without_mindspore_cpu_kernel_runs(name):
    call = CASE_MODULE._CALLS[name]
    out = call(mint, ms, np, _t(X), _t(Y))
    if name in REFERENCE:
        _close(_host(out), REFERENCE[name]())


def test_mint_references_cover_most_calls_without_a_kernel():
    missing = sorted(CASE_MODULE.NO_CPU_KERNEL - set(REFERENCE))
    assert len(missing) <= 15, missing


# ---------------------------------------------------------------- generators, gradients, layers
def test_mint_random_draws_follow_the_generator():
    g = ms.Generator().manual_seed(11)
    state = g.get_state()
    first = (mint.rand(3, generator=g), mint.randn(2, generator=g), mint.randint(0, 10, (4,), generator=g),
             mint.randperm(5, generator=g), mint.normal(0.0, 2.0, (3,), generator=g),
             mint.bernoulli(ms.Tensor(np.full(4, 0.5, np.float32)), generator=g),
             mint.multinomial(ms.Tensor(np.array([0.2, 0.8], np.float32)), 1, generator=g))
    g.set_state(state)
    again = (mint.rand(3, generator=g), mint.randn(2, generator=g), mint.randint(0, 10, (4,), generator=g),
             mint.randperm(5, generator=g), mint.normal(0.0, 2.0, (3,), generator=g),
             mint.bernoulli(ms.Tensor(np.full(4, 0.5, np.float32)), generator=g),
             mint.multinomial(ms.Tensor(np.array([0.2, 0.8], np.float32)), 1, generator=g))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert sorted(mint.randperm(6).asnumpy().tolist()) == list(range(6))
    assert mint.randint(3, (5,)).asnumpy().max() < 3


def test_mint_adapters_carry_gradients():
    x = ms.Tensor(X)

    def loss(v):
        values, _ = mint.max(v, dim=1)
        return mint.sum(mint.add(values, mint.std(v, dim=0).sum(), alpha=2)) + mint.gather(v, 1, ms.Tensor(
            np.array([[0], [1]], np.int64))).sum()

    grad = ms.grad(loss)(x).asnumpy()
    eps, base = 1e-3, X.astype(np.float64)
    numeric = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        hi, lo = base.copy(), base.copy()
        hi[i] += eps
        lo[i] -= eps
        numeric[i] = (loss(ms.Tensor(hi)).asnumpy() - loss(ms.Tensor(lo)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-3, atol=1e-3)


def test_mint_nn_layers_train():
    ms.manual_seed(0)
    net = nn.SequentialCell(mint.nn.Conv2d(1, 2, 3, padding=1), mint.nn.BatchNorm2d(2), mint.nn.ReLU(),
                            mint.nn.Flatten(), mint.nn.Linear(2 * 4 * 4, 3))
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32))
    target = ms.Tensor(np.array([0, 2], np.int32))
    loss_fn = mint.nn.CrossEntropyLoss()
    grads = ms.grad(lambda v: loss_fn(net(v), target), None, net.trainable_params())(x)
    assert len(grads) == len(net.trainable_params()) == 6
    assert all(np.isfinite(g.asnumpy()).all() for g in grads)
    net.set_train(False)
    assert net(x).shape == (2, 3)


def test_mint_conv_padding_modes_and_layers_without_parameters():
    x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    conv = mint.nn.Conv2d(1, 1, 3, padding=1, padding_mode="reflect", bias=False)
    conv.weight.set_data(ms.Tensor(np.ones((1, 1, 3, 3), np.float32)))
    padded = np.pad(np.arange(16, dtype=np.float32).reshape(4, 4), 1, mode="reflect")
    want = np.array([[padded[i:i + 3, j:j + 3].sum() for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(conv(x).asnumpy()[0, 0], want)
    assert mint.nn.ZeroPad2d(1)(x).shape == (1, 1, 6, 6)
    assert mint.nn.ReflectionPad1d((1, 2))(ms.Tensor(np.ones((1, 1, 4), np.float32))).shape == (1, 1, 7)
    assert mint.nn.Upsample(scale_factor=2.0)(x).shape == (1, 1, 8, 8)
    with pytest.raises(TypeError, match="Threshold"):
        mint.nn.Threshold(0.5)


def test_mint_inplace_functions_write_back():
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    out = mint.nn.functional.relu_(x)
    assert out is x
    np.testing.assert_array_equal(x.asnumpy(), [0.0, 2.0])


# ---------------------------------------------------------------- mint.optim against PyTorch's update formulas
def _torch_adam(w, grads, lr, b1, b2, eps, wd, decoupled, amsgrad=False):
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    vmax = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        if decoupled:
            w = w * (1 - lr * wd)
        elif wd:
            g = g + wd * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / np.sqrt(1 - b2 ** t) + eps
        w = w - lr / (1 - b1 ** t) * m / denom
    return w


def _torch_sgd(w, grads, lr, mu, damp, wd, nesterov):
    buf = None
    for g in grads:
        g = g + wd * w
        if mu:
            buf = g if buf is None else mu * buf + (1 - damp) * g
            g = g + mu * buf if nesterov else buf
        w = w - lr * g
    return w


GRADS = [np.array([0.5, -1.0, 0.25], np.float64), np.array([-0.3, 0.2, 0.9], np.float64),
         np.array([0.1, 0.1, -0.4], np.float64)]
W0 = np.array([1.0, -2.0, 0.5], np.float64)


@pytest.mark.parametrize("kind, kwargs", [
    ("Adam", {"lr": 0.1}), ("Adam", {"lr": 0.05, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.2}), ("FusedAdamW", {"lr": 0.1}),
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
])
def test_mint_optim_follows_pytorch_updates(kind, kwargs):
    w = ms.Parameter(ms.Tensor(W0), name="w")
    opt = getattr(mint.optim, kind)([w], **kwargs)
    for g in GRADS:
        opt((ms.Tensor(g),))
    if kind == "SGD":
        want = _torch_sgd(W0, GRADS, kwargs["lr"], kwargs.get("momentum", 0), kwargs.get("dampening", 0),
                          kwargs.get("weight_decay", 0), kwargs.get("nesterov", False))
    else:
        decoupled = kind != "Adam"
        wd = kwargs.get("weight_decay", 0.0 if kind == "Adam" else 0.01)
        want = _torch_adam(W0, GRADS, kwargs["lr"], 0.9, 0.999, 1e-8, wd, decoupled, kwargs.get("amsgrad", False))
    np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-10)


def test_mint_optim_trains_a_network_with_groups_and_maximize():
    ms.manual_seed(0)
    net = mint.nn.Linear(3, 1)
    opt = mint.optim.AdamW([{"params": [net.weight], "lr": 0.05}, {"params": [net.bias]}], lr=0.01)
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.01]
    x = ms.Tensor(np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32))
    y = ms.Tensor(np.ones((8, 1), np.float32))
    loss_fn = mint.nn.MSELoss()
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    first = None
    for _ in range(30):
        loss, grads = grad_fn(x, y)
        opt(grads)
        first = float(loss.asnumpy()) if first is None else first
    assert float(loss.asnumpy()) < first
    w = ms.Parameter(ms.Tensor(np.array([0.0], np.float32)), name="w")
    up = mint.optim.SGD([w], lr=0.5, maximize=True)
    up((ms.Tensor(np.array([1.0], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [0.5])


def test_mint_sync_batch_norm_steps_match_one_batch_norm():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 3, 5)).astype(np.float32)
    b = rng.standard_normal((6, 3, 5)).astype(np.float32)
    m1, s1 = mint.batch_norm_stats(ms.Tensor(a), 1e-5)
    m2, s2 = mint.batch_norm_stats(ms.Tensor(b), 1e-5)
    running_mean = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="rm")
    running_var = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="rv")
    mean, invstd = mint.batch_norm_gather_stats_with_counts(
        ms.Tensor(a), ops.stack((m1, m2)), ops.stack((s1, s2)), running_mean, running_var, 0.1, 1e-5,
        ms.Tensor(np.array([20.0, 30.0], np.float32)))
    both = np.concatenate([a, b]).transpose(1, 0, 2).reshape(3, -1)
    np.testing.assert_allclose(mean.asnumpy(), both.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(both.var(1) + 1e-5), rtol=1e-4)
    np.testing.assert_allclose(running_mean.asnumpy(), 0.1 * both.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(running_var.asnumpy(), 0.9 + 0.1 * both.var(1, ddof=1), rtol=1e-4)
    y = mint.batch_norm_elemt(ms.Tensor(a), ms.Tensor(np.full(3, 2.0, np.float32)), None, mean, invstd)
    want = (a - both.mean(1)[None, :, None]) / np.sqrt(both.var(1)[None, :, None] + 1e-5) * 2.0
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_mint_max_unpool_and_sync_batch_norm_layers():
    x = ms.Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4))
    values, indices = mint.nn.functional.max_pool2d(x, 2, return_indices=True)
    restored = mint.nn.MaxUnpool2d(2)(values, indices).asnumpy()
    assert restored.shape == (1, 2, 4, 4) and restored.sum() == values.asnumpy().sum()
    sync = mint.nn.SyncBatchNorm(2)
    plain = mint.nn.BatchNorm2d(2)
    np.testing.assert_allclose(sync(x).asnumpy(), plain(x).asnumpy())
    assert mint.Tensor is ms.Tensor and mint.conv2d is mint.nn.functional.conv2d


@pytest.mark.parametrize("stride, padding, output_padding, groups", [(2, 1, 0, 1), (2, 0, 1, 1), (1, 1, 0, 2)])
def test_mint_conv_transpose2d_matches_the_scatter_definition(stride, padding, output_padding, groups):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    w = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    b = rng.standard_normal(3 * groups).astype(np.float32)
    size = (3 - 1) * stride + 2
    full = np.zeros((2, 3 * groups, size + output_padding, size + output_padding), np.float32)
    per = 4 // groups
    for g in range(groups):
        for i in range(3):
            for j in range(3):
                full[:, g * 3:(g + 1) * 3, i * stride:i * stride + 2, j * stride:j * stride + 2] += np.einsum(
                    "nc,cokl->nokl", x[:, g * per:(g + 1) * per, i, j], w[g * per:(g + 1) * per])
    out = (3 - 1) * stride - 2 * padding + 2 + output_padding
    want = full[:, :, padding:padding + out, padding:padding + out] + b[None, :, None, None]
    got = mint.nn.functional.conv_transpose2d(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b), stride, padding,
                                              output_padding, groups)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    layer = mint.nn.ConvTranspose2d(4, 3 * groups, 2, stride, padding, output_padding, groups)
    assert layer(ms.Tensor(x)).shape == want.shape
