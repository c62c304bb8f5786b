"""Finite-difference checks of a Cell's gradients with respect to its Parameters.

``check_param_grad(fn, params, *args)`` compares ``ms.grad(..., weights=params)``
of ``sum(fn(*args) * probe)`` with central differences taken by perturbing
each Parameter's data in place (and restoring it).  The Parameters should
be float64 (build the layer with ``dtype=ms.float64``).
"""
import numpy as np

import cellkit as ms


def _host(t):
    return t.asnumpy() if isinstance(t, ms.Tensor) else np.asarray(t)


def check_param_grad(fn, params, *args, eps=1e-6, rtol=1e-4, atol=1e-6, seed=0):
    """Assert the gradients of ``fn(*args)`` for every Parameter in ``params`` match finite differences."""
    params = list(params)
    assert params, "no Parameters to check"
    rng = np.random.default_rng(seed)
    probe = rng.standard_normal(_host(fn(*args)).shape)
    probe_t = ms.Tensor(probe)

    def objective(*xs):
        return (fn(*xs) * probe_t).sum()

    grads = ms.grad(objective, grad_position=None, weights=params)(*args)
    grads = (grads,) if isinstance(grads, ms.Tensor) else tuple(grads)
    assert len(grads) == len(params)
    for param, analytic in zip(params, grads):
        base = _host(param).astype(np.float64)
        numeric = np.zeros(base.shape)
        try:
            for i in range(base.size):
                values = []
                for step in (eps, -eps):
                    moved = base.copy()
                    moved.reshape(-1)[i] += step
                    param.set_data(ms.Tensor(moved))
                    values.append(float((_host(fn(*args)) * probe).sum()))
                numeric.reshape(-1)[i] = (values[0] - values[1]) / (2 * eps)
        finally:
            param.set_data(ms.Tensor(base))
        got = _host(analytic)
        assert got.shape == base.shape, f"gradient shape {got.shape} != parameter shape {base.shape}"
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of Parameter {param.name!r} differs from finite differences")
    return grads
