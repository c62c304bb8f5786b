"""Finite-difference gradient checking for the op suite.

``check_grad(fn, *arrays)`` compares cellkit's reverse-mode gradient of
``sum(fn(*inputs) * probe)`` (a random probe tests the whole Jacobian, not
just its column sums) with central differences computed in float64.
"""
import numpy as np

import cellkit as ms
from cellkit import backend as _backend


def to_tensor(host_array):
    """A float64 NumPy array -> a Tensor on the current backend."""
    return ms.Tensor(np.asarray(host_array))


def _as_host(t):
    return t.asnumpy() if isinstance(t, ms.Tensor) else np.asarray(t)


def check_grad(fn, *arrays, wrt=None, eps=1e-6, rtol=1e-4, atol=1e-6, seed=0):
    """Assert ms.grad of ``fn`` matches central differences for the inputs in ``wrt``.

    ``fn`` takes Tensors and returns a Tensor.  ``arrays`` are float64 NumPy
    arrays (or other values passed through unchanged).
    """
    # C-contiguous copies: the perturbation loop writes through reshape(-1) views.
    arrays = [np.array(a, dtype=np.float64, order="C") if isinstance(a, (np.ndarray, list)) else a for a in arrays]
    wrt = tuple(range(len(arrays))) if wrt is None else tuple(wrt)
    rng = np.random.default_rng(seed)

    def wrap_inputs(values):
        return [to_tensor(v) if isinstance(v, np.ndarray) else v for v in values]

    out = _as_host(fn(*wrap_inputs(arrays)))
    probe = rng.standard_normal(out.shape)
    probe_t = to_tensor(probe)

    def objective(*xs):
        return (fn(*xs) * probe_t).sum()

    grads = ms.grad(objective, grad_position=wrt)(*wrap_inputs(arrays))
    grads = (grads,) if isinstance(grads, ms.Tensor) else grads
    for position, analytic in zip(wrt, grads):
        base = arrays[position]
        numeric = np.zeros(base.shape)
        flat = numeric.reshape(-1)
        for i in range(base.size):
            plus, minus = base.copy(), base.copy()
            plus.reshape(-1)[i] += eps
            minus.reshape(-1)[i] -= eps
            vp = [plus if j == position else a for j, a in enumerate(arrays)]
            vm = [minus if j == position else a for j, a in enumerate(arrays)]
            fp = float((_as_host(fn(*wrap_inputs(vp))) * probe).sum())
            fm = float((_as_host(fn(*wrap_inputs(vm))) * probe).sum())
            flat[i] = (fp - fm) / (2 * eps)
        got = _as_host(analytic)
        assert got.shape == base.shape, f"gradient shape {got.shape} != input shape {base.shape}"
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {position} differs from finite differences")
    return grads


def check_second_order(fn, *arrays, wrt=None, eps=1e-5, rtol=2e-4, atol=2e-6, seed=0):
    """Assert the gradient of a projected gradient matches central differences of the first gradient.

    With ``P`` a random probe on the output and ``R`` a random projection of
    the first gradient, the scalar ``s(x) = <R, grad_x <P, fn(x)>>`` is
    differentiated twice over: by cellkit (``ms.grad`` of a function that
    itself calls ``ms.grad``: Hessian-vector products through every op's
    rule) and by central finite differences of ``s``, each evaluation of
    which is a first-order gradient.  Everything is float64.
    """
    arrays = [np.array(a, dtype=np.float64, order="C") if isinstance(a, (np.ndarray, list)) else a for a in arrays]
    wrt = tuple(range(len(arrays))) if wrt is None else tuple(wrt)
    rng = np.random.default_rng(seed)

    def wrap_inputs(values):
        return [to_tensor(v) if isinstance(v, np.ndarray) else v for v in values]

    out = _as_host(fn(*wrap_inputs(arrays)))
    probe = to_tensor(rng.standard_normal(out.shape))
    projections = [to_tensor(rng.standard_normal(np.shape(arrays[p]))) for p in wrt]

    def first(*xs):
        return (fn(*xs) * probe).sum()

    def projected(*xs):
        grads = ms.grad(first, grad_position=wrt)(*xs)
        grads = (grads,) if isinstance(grads, ms.Tensor) else grads
        total = None
        for g, r in zip(grads, projections):
            term = (g * r).sum()
            total = term if total is None else total + term
        return total

    analytic = ms.grad(projected, grad_position=wrt)(*wrap_inputs(arrays))
    analytic = (analytic,) if isinstance(analytic, ms.Tensor) else analytic
    for position, got in zip(wrt, analytic):
        base = arrays[position]
        numeric = np.zeros(base.shape)
        flat = numeric.reshape(-1)
        for i in range(base.size):
            plus, minus = base.copy(), base.copy()
            plus.reshape(-1)[i] += eps
            minus.reshape(-1)[i] -= eps
            vp = [plus if j == position else a for j, a in enumerate(arrays)]
            vm = [minus if j == position else a for j, a in enumerate(arrays)]
            fp = float(_as_host(projected(*wrap_inputs(vp))))
            fm = float(_as_host(projected(*wrap_inputs(vm))))
            flat[i] = (fp - fm) / (2 * eps)
        got = _as_host(got)
        assert got.shape == base.shape, f"second-order gradient shape {got.shape} != input shape {base.shape}"
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"second-order gradient of input {position} differs from finite "
                                           "differences of the first gradient")
    return analytic
