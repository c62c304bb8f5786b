"""Gradients of gradients through everything a Cell can be: recompute, offload, hooks, bprop, nesting.

Values are checked against finite differences of the first gradient (float64)
and against the same network without recompute/offload.  (MindSpore 2.10
itself returns zeros for the second derivative through a recomputed Cell:
see tests/mindspore_cases/transforms.py.)
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))


def T(a):
    return ms.Tensor(np.asarray(a, dtype=np.float64))


class Block(nn.Cell):
    """``x + down(gelu(up(x)))`` in float64 (tests/blocks.py's residual block, for finite differences)."""

    def __init__(self):
        super().__init__()
        self.up = nn.Dense(4, 5, dtype=ms.float64)
        self.act = nn.GELU()
        self.down = nn.Dense(5, 4, dtype=ms.float64)

    def construct(self, x):
        return x + self.down(self.act(self.up(x)))


def blocks(mode=None):
    ms.set_seed(0)
    net = nn.SequentialCell([Block() for _ in range(2)])
    for block in net:
        if mode == "recompute":
            block.recompute()
        elif mode == "offload":
            block.offload()
    return net


def gradient_penalty(net):
    """||d loss / d x||^2: a second-order quantity in the weights (as in WGAN-GP)."""
    def penalty(x):
        gx = ms.grad(lambda x: (net(x) ** 2).sum())(x)
        return (gx * gx).sum()
    return penalty


@pytest.mark.parametrize("mode", ["recompute", "offload"])
def test_gradient_penalty_through_recompute_and_offload_equals_the_plain_network(mode):
    plain, other = blocks(), blocks(mode)
    want = ms.grad(gradient_penalty(plain), grad_position=0, weights=plain.trainable_params())(T(X))
    got = ms.grad(gradient_penalty(other), grad_position=0, weights=other.trainable_params())(T(X))
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-10, atol=1e-12)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", [None, "recompute", "offload"])
def test_gradient_penalty_matches_finite_differences(mode):
    net = blocks(mode)
    penalty = gradient_penalty(net)
    got = ms.grad(penalty)(T(X)).asnumpy()
    eps, numeric = 1e-6, np.zeros_like(X)
    for i in range(X.size):
        plus, minus = X.copy(), X.copy()
        plus.reshape(-1)[i] += eps
        minus.reshape(-1)[i] -= eps
        numeric.reshape(-1)[i] = (penalty(T(plus)).item() - penalty(T(minus)).item()) / (2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


def test_third_order_of_a_polynomial():
    f = lambda x: (x ** 4).sum()  # noqa: E731
    third = ms.grad(ms.grad(ms.grad(f)))(T([1.0, -2.0]))
    assert third.asnumpy().tolist() == [24.0, -48.0]


def test_grad_operation_nested_three_deep():
    go = ops.GradOperation()
    d3 = go(go(go(lambda x: ops.sin(x).sum())))(T([0.3, 1.1]))
    np.testing.assert_allclose(d3.asnumpy(), -np.cos([0.3, 1.1]), rtol=1e-12)


def test_gradient_transform_inside_construct_under_an_outer_transform():
    class SlopeNet(nn.Cell):
        """Outputs the slope of tanh(w * x) at x: its construct takes a gradient."""

        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(T([0.7, -1.3]), name="w")

        def construct(self, x):
            return ms.grad(lambda x: ops.tanh(x * self.w).sum())(x)

    net = SlopeNet()
    x = T([0.4, 0.2])
    got = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.w)(x).asnumpy()
    w = np.array([0.7, -1.3])
    z = w * x.asnumpy()
    sech2 = 1 / np.cosh(z) ** 2
    # d/dw [w sech^2(w x)] = sech^2(wx) - 2 w x sech^2(wx) tanh(wx)
    np.testing.assert_allclose(got, sech2 - 2 * w * x.asnumpy() * sech2 * np.tanh(z), rtol=1e-12)


def test_backward_hook_sees_tensors_on_the_outer_tape_and_its_replacement_is_differentiated():
    net = nn.Dense(2, 2, weight_init="ones", bias_init="zeros", dtype=ms.float64)
    seen = []

    def hook(cell, grad_input, grad_output):
        seen.append(type(grad_input[0]).__name__)
        return (grad_input[0] * grad_input[0],)  # a nonlinear replacement: the outer transform sees it

    net.register_backward_hook(hook)

    def inner(x):
        return ms.grad(lambda x: (net(x) * 3).sum())(x).sum()

    x = T([1.0, 2.0])
    assert inner(x).item() == pytest.approx(2 * 6.0 ** 2)  # d/dx of 3*(x1+x2) twice, each grad 6, squared
    assert ms.grad(inner)(x).asnumpy().tolist() == [0.0, 0.0]  # the replacement is constant in x
    assert seen and all(kind == "Tensor" for kind in seen)


def test_custom_bprop_is_differentiated_under_a_second_order():
    class Cube(nn.Cell):
        def construct(self, x):
            return x * x * x

        def bprop(self, x, out, dout):
            return (3 * x * x * dout,)

    cube = Cube()
    second = ms.grad(ms.grad(lambda x: cube(x).sum()))(T([1.0, -2.0]))
    assert second.asnumpy().tolist() == [6.0, -12.0]


def test_stop_gradient_and_register_hook_inside_nested_transforms():
    def f(x):
        y = x * x
        y.register_hook(lambda g: g * 2)
        return (y * ops.stop_gradient(x)).sum()  # x^3 with the x-factor held constant, gradient doubled

    x = T([1.0, 3.0])
    first = ms.grad(f)(x).asnumpy()  # 2 * (2 x * x)
    assert first.tolist() == [4.0, 36.0]
    second = ms.grad(lambda x: ms.grad(f)(x).sum())(x).asnumpy()  # d/dx of 4 x * stop(x): 4 stop(x)
    assert second.tolist() == [4.0, 12.0]


def test_vjp_function_is_differentiable_in_its_cotangent():
    out, pull = ms.vjp(lambda x: ops.sin(x) * x, T([0.5, 1.5]))
    u = T([1.0, -2.0])
    # d/du <pull(u), v> = J v: forward mode through two reverse passes
    jv = ms.grad(lambda u: (pull(u)[0] * T([1.0, 1.0])).sum())(u).asnumpy()
    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(jv, np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_forward_mode_through_convolution_and_pooling_matches_finite_differences():
    rng = np.random.default_rng(11)
    x, v = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((1, 2, 5, 5))
    w = T(rng.standard_normal((3, 2, 3, 3)))

    def f(x):
        return ops.max_pool2d(ops.tanh(ops.conv2d(x, w, pad_mode="pad", padding=1)), 2)

    _, tangent = ms.jvp(f, T(x), T(v))
    eps = 1e-6
    numeric = (f(T(x + eps * v)).asnumpy() - f(T(x - eps * v)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(tangent.asnumpy(), numeric, rtol=1e-6, atol=1e-9)
    # and the vjp function of the same stack, differentiated in its cotangent, gives the same J v
    out, pull = ms.vjp(f, T(x))
    jv = ms.grad(lambda u: (pull(u)[0] * T(v)).sum())(ms.Tensor(np.zeros(out.shape)))
    np.testing.assert_allclose(jv.asnumpy(), numeric, rtol=1e-6, atol=1e-9)
