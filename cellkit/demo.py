"""A two-minute tour of cellkit in the terminal: ``python -m cellkit.demo``.

It builds tensors, runs functional ops, and fits a straight line to noisy
points with ``value_and_grad`` -- the same code would run on MindSpore with
``import mindspore as ms``.
"""
from __future__ import annotations

import numpy as np

import cellkit as ms
from cellkit import ops


def fit_line(steps=200, learning_rate=0.1, verbose=True):
    """Fit ``y = w * x + b`` to points around ``y = 2x + 1``; return ``(w, b)``.

    >>> w, b = fit_line(verbose=False)
    >>> round(w, 1), round(b, 1)
    (2.0, 1.0)
    """
    rng = np.random.default_rng(0)
    x_host = rng.uniform(-1, 1, size=(64, 1)).astype(np.float32)
    y_host = 2 * x_host + 1 + 0.05 * rng.standard_normal((64, 1)).astype(np.float32)
    x, y = ms.Tensor(x_host), ms.Tensor(y_host)
    w = ms.Parameter(ms.Tensor([[0.0]]), name="w")
    b = ms.Parameter(ms.Tensor([0.0]), name="b")

    def loss_fn(inputs, targets):
        prediction = ops.matmul(inputs, w) + b
        return ((prediction - targets) ** 2).mean()

    step_fn = ms.value_and_grad(loss_fn, grad_position=None, weights=[w, b])
    for step in range(steps):
        loss, (grad_w, grad_b) = step_fn(x, y)
        w.set_data(w - learning_rate * grad_w)
        b.set_data(b - learning_rate * grad_b)
        if verbose and step % 40 == 0:
            print(f"step {step:3d}  loss {loss.item():.5f}")
    return w.item(), b.item()


def main():
    print(f"cellkit {ms.__version__} computing with {ms.backend.current().name}\n")
    x = ms.Tensor([1, 2, 3], ms.float32)
    y = ms.Tensor([4, 5, 6], ms.float32)
    print("x =", x)
    print("ops.add(x, y) =", ops.add(x, y))
    print("repr:", repr(ops.add(x, y)))
    square_sum = lambda t: (t * t).sum()  # noqa: E731
    print("grad of sum(x*x) at x:", ms.grad(square_sum)(x))
    print("\nFitting y = w*x + b to 64 noisy points around y = 2x + 1:")
    w, b = fit_line()
    print(f"\nlearned w = {w:.3f}, b = {b:.3f}")


if __name__ == "__main__":
    main()
