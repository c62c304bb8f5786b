"""The optimizer Primitives: one step from fixed weights, moments and gradients.

Each case builds its state as Parameters (as MindSpore's own examples do), takes one step, and returns
what the Primitive returned and every state Parameter afterwards: the fixture shows both the output
and the in-place updates.  Values are MindSpore's documentation examples where it gives them.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

W = [[0.6, 0.4], [0.1, 0.5]]
M = [[0.6, 0.5], [0.2, 0.6]]
V = [[0.9, 0.1], [0.7, 0.8]]
G = [[0.3, 0.7], [0.1, 0.8]]


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _p(ms, np, values, name, dtype="float32"):
    return ms.Parameter(_t(ms, np, values, dtype), name=name)


def _values(*params):
    return tuple(p.value() * 1 for p in params)


@case(rtol=1e-5, atol=1e-6)
def adam(ms, ops, nn, np):
    var, m, v = _p(ms, np, W, "var"), _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.Adam()(var, m, v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, _t(ms, np, G))
    return out, _values(var, m, v)


@case(rtol=1e-5, atol=1e-6)
def adam_nesterov(ms, ops, nn, np):
    var, m, v = _p(ms, np, W, "var"), _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.Adam(use_nesterov=True)(var, m, v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, _t(ms, np, G))
    return out, _values(var, m, v)


@case(rtol=1e-5, atol=1e-6)
def adam_weight_decay(ms, ops, nn, np):
    var, m, v = _p(ms, np, W, "var"), _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.AdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-8, 0.1, _t(ms, np, G))
    return out, _values(var, m, v)


@case(rtol=1e-3, atol=1e-3)
def fused_cast_adam_weight_decay(ms, ops, nn, np):
    var = _p(ms, np, W, "var", "float16")
    m, v = _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-8, 0.1, _t(ms, np, G, "float16"))
    return out, _values(var, m, v)


@case(rtol=1e-5, atol=1e-6)
def apply_ada_max(ms, ops, nn, np):
    var, m, v = _p(ms, np, W, "var"), _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.ApplyAdaMax()(var, m, v, _t(ms, np, 0.9), _t(ms, np, 0.001), _t(ms, np, 0.9), _t(ms, np, 0.99),
                            _t(ms, np, 1e-10), _t(ms, np, G))
    return out, _values(var, m, v)


@case(rtol=1e-5, atol=1e-6)
def apply_adadelta(ms, ops, nn, np):
    var, accum, update = _p(ms, np, W, "var"), _p(ms, np, M, "accum"), _p(ms, np, V, "accum_update")
    out = ops.ApplyAdadelta()(var, accum, update, _t(ms, np, 0.001), _t(ms, np, 0.5), _t(ms, np, 1e-6),
                              _t(ms, np, G))
    return out, _values(var, accum, update)


@case(rtol=1e-5, atol=1e-6)
def apply_adagrad(ms, ops, nn, np):
    var, accum = _p(ms, np, W, "var"), _p(ms, np, M, "accum")
    out = ops.ApplyAdagrad()(var, accum, _t(ms, np, 0.001), _t(ms, np, G))
    return out, _values(var, accum)


@case(rtol=1e-5, atol=1e-6)
def apply_adagrad_without_slots(ms, ops, nn, np):
    var, accum = _p(ms, np, W, "var"), _p(ms, np, M, "accum")
    out = ops.ApplyAdagrad(update_slots=False)(var, accum, 0.01, _t(ms, np, G))
    return out, _values(var, accum)


@case(rtol=1e-5, atol=1e-6)
def apply_adam_with_amsgrad(ms, ops, nn, np):
    var, m, v, vhat = (_p(ms, np, x, n) for x, n in ((W, "var"), (M, "m"), (V, "v"), (G, "vhat")))
    out = ops.ApplyAdamWithAmsgrad()(var, m, v, vhat, _t(ms, np, 0.9), _t(ms, np, 0.999), _t(ms, np, 0.01),
                                     _t(ms, np, G))
    return out, _values(var, m, v, vhat)


@case(rtol=1e-5, atol=1e-6)
def apply_adam_with_amsgrad_v2(ms, ops, nn, np):
    var, m, v, vhat = (_p(ms, np, x, n) for x, n in ((W, "var"), (M, "m"), (V, "v"), (G, "vhat")))
    out = ops.ApplyAdamWithAmsgradV2()(var, m, v, vhat, _t(ms, np, 0.9), _t(ms, np, 0.999), _t(ms, np, 0.01),
                                       _t(ms, np, 0.8), _t(ms, np, 0.99), _t(ms, np, 1e-7), _t(ms, np, G))
    return out, _values(var, m, v, vhat)


@case(rtol=1e-5, atol=1e-6)
def apply_centered_rms_prop(ms, ops, nn, np):
    var = _p(ms, np, W, "var")
    mg, ms_, mom = _p(ms, np, [[0.1, 0.2], [0.1, 0.0]], "mg"), _p(ms, np, V, "ms"), _p(ms, np, M, "mom")
    out = ops.ApplyCenteredRMSProp()(var, mg, ms_, mom, _t(ms, np, G), _t(ms, np, 0.01), 0.9, 0.5, 1e-6)
    return out, _values(var, mg, ms_, mom)


@case(rtol=1e-5, atol=1e-6)
def apply_rms_prop(ms, ops, nn, np):
    var, ms_, mom = _p(ms, np, W, "var"), _p(ms, np, V, "ms"), _p(ms, np, M, "mom")
    out = ops.ApplyRMSProp()(var, ms_, mom, _t(ms, np, 0.01), _t(ms, np, G), 0.9, 0.5, 1e-6)
    return out, _values(var, ms_, mom)


@case(rtol=1e-5, atol=1e-6)
def apply_gradient_descent(ms, ops, nn, np):
    var = _p(ms, np, W, "var")
    out = ops.ApplyGradientDescent()(var, _t(ms, np, 0.5), _t(ms, np, G))
    return out, _values(var)


@case(rtol=1e-5, atol=1e-6)
def apply_momentum(ms, ops, nn, np):
    var, accum = _p(ms, np, W, "var"), _p(ms, np, M, "accum")
    out = ops.ApplyMomentum()(var, accum, 0.1, _t(ms, np, G), 0.9)
    return out, _values(var, accum)


@case(rtol=1e-5, atol=1e-6)
def apply_momentum_nesterov_scaled(ms, ops, nn, np):
    var, accum = _p(ms, np, W, "var"), _p(ms, np, M, "accum")
    out = ops.ApplyMomentum(use_nesterov=True, gradient_scale=2.0)(var, accum, _t(ms, np, 0.1), _t(ms, np, G),
                                                                    _t(ms, np, 0.9))
    return out, _values(var, accum)


@case(rtol=1e-5, atol=1e-6)
def sgd_first_step(ms, ops, nn, np):
    p, accum, stat = _p(ms, np, W, "p"), _p(ms, np, M, "accum"), _p(ms, np, [1.0], "stat")
    out = ops.SGD(weight_decay=0.1)(p, _t(ms, np, G), _t(ms, np, 0.01), accum, _t(ms, np, 0.9), stat)
    return out, _values(p, accum, stat)


@case(rtol=1e-5, atol=1e-6)
def sgd_later_step_nesterov(ms, ops, nn, np):
    p, accum, stat = _p(ms, np, W, "p"), _p(ms, np, M, "accum"), _p(ms, np, [0.0], "stat")
    out = ops.SGD(nesterov=True)(p, _t(ms, np, G), _t(ms, np, 0.01), accum, _t(ms, np, 0.9), stat)
    return out, _values(p, accum, stat)


@case(rtol=1e-5, atol=1e-6)
def sgd_dampening(ms, ops, nn, np):
    p, accum, stat = _p(ms, np, W, "p"), _p(ms, np, M, "accum"), _p(ms, np, [0.0], "stat")
    out = ops.SGD(dampening=0.5)(p, _t(ms, np, G), _t(ms, np, 0.01), accum, _t(ms, np, 0.9), stat)
    return out, _values(p, accum, stat)


@case
def sgd_nesterov_with_dampening_refused(ms, ops, nn, np):
    ops.SGD(dampening=0.5, nesterov=True)
    return None
