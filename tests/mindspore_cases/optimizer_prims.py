"""The optimizer Primitives: one step from fixed weights, moments and gradients.

Each case builds its state as Parameters (as MindSpore's own examples do), takes one step, and returns
what the Primitive returned and every state Parameter afterwards: the fixture shows both the output
and the in-place updates.  Values are MindSpore's documentation examples where it gives them.

MindSpore 2.10 (CPU, PyNative) updates the state right but returns garbage from ``Adam``,
``AdamWeightDecay``, ``ApplyRMSProp`` and ``ApplyCenteredRMSProp`` (uninitialised buffers, often the
previous call's values): for those the state is compared with MindSpore in one case (``*_state``) and
the returned values with the documented ones (the updated state, computed here in NumPy) in another.
It also ignores ``update_slots=False`` of ``ApplyAdagrad`` and ``use_nesterov`` / ``gradient_scale``
of ``ApplyMomentum`` (as ``nn.Momentum(use_nesterov=True)``, see MINDSPORE_NOTES.md).
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


def _a(np, values):
    return np.array(values, np.float64)


def _adam_np(np, nesterov=False, lr=0.001):
    w, m, v, g = _a(np, W), _a(np, M), _a(np, V), _a(np, G)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    step = lr * np.sqrt(1 - 0.999) / (1 - 0.9)
    w = w - step * ((0.9 * m + 0.1 * g) if nesterov else m) / (np.sqrt(v) + 1e-8)
    return tuple(x.astype(np.float32) for x in (w, m, v))


def _adam_weight_decay_np(np):
    w, m, v, g = _a(np, W), _a(np, M), _a(np, V), _a(np, G)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    w = w - 0.01 * (m / (np.sqrt(v) + 1e-8) + 0.1 * w)
    return tuple(x.astype(np.float32) for x in (w, m, v))


MG = [[0.1, 0.2], [0.1, 0.0]]


def _centered_np(np):
    w, g, mg, ms_, mom = _a(np, W), _a(np, G), _a(np, MG), _a(np, V), _a(np, M)
    mg = 0.9 * mg + 0.1 * g
    ms_ = 0.9 * ms_ + 0.1 * g * g
    mom = 0.5 * mom + 0.01 * g / np.sqrt(ms_ - mg * mg + 1e-6)
    return (w - mom).astype(np.float32)


def _rms_np(np):
    w, g, ms_, mom = _a(np, W), _a(np, G), _a(np, V), _a(np, M)
    ms_ = 0.9 * ms_ + 0.1 * g * g
    mom = 0.5 * mom + 0.01 * g / np.sqrt(ms_ + 1e-6)
    return (w - mom).astype(np.float32)


_GARBAGE = ("MindSpore 2.10 (CPU, PyNative) returns uninitialised buffers (often the previous call's values) instead "
            "of the updated state it documents; compared with the updated state")


def _adam(ms, ops, np, nesterov=False, lr=0.001):
    var, m, v = _p(ms, np, W, "var"), _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.Adam(use_nesterov=nesterov)(var, m, v, 0.9, 0.999, lr, 0.9, 0.999, 1e-8, _t(ms, np, G))
    return out, _values(var, m, v)


@case(rtol=1e-5, atol=1e-6)
def adam_state(ms, ops, nn, np):
    return _adam(ms, ops, np)[1]


@case(rtol=1e-5, atol=1e-6, mindspore_wrong=True, expected=lambda np: _adam_np(np), note=_GARBAGE)
def adam_output(ms, ops, nn, np):
    return _adam(ms, ops, np)[0]


@case(rtol=1e-5, atol=1e-6)
def adam_nesterov_state(ms, ops, nn, np):
    return _adam(ms, ops, np, nesterov=True, lr=0.01)[1]


def _adam_weight_decay(ms, ops, np):
    var, m, v = _p(ms, np, W, "var"), _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.AdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-8, 0.1, _t(ms, np, G))
    return out, _values(var, m, v)


@case(rtol=1e-5, atol=1e-6)
def adam_weight_decay_state(ms, ops, nn, np):
    return _adam_weight_decay(ms, ops, np)[1]


@case(rtol=1e-5, atol=1e-6, mindspore_wrong=True, expected=_adam_weight_decay_np, note=_GARBAGE)
def adam_weight_decay_output(ms, ops, nn, np):
    return _adam_weight_decay(ms, ops, np)[0]


def _fused_cast(ms, ops, np):
    var = _p(ms, np, W, "var", "float16")
    m, v = _p(ms, np, M, "m"), _p(ms, np, V, "v")
    out = ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-8, 0.1, _t(ms, np, G, "float16"), 2.0)
    return out, _values(var, m, v)


def _fused_cast_np(np):
    w = np.array(W, np.float16).astype(np.float64)
    g = np.array(G, np.float16).astype(np.float64) / 2.0
    m = 0.9 * _a(np, M) + 0.1 * g
    v = 0.999 * _a(np, V) + 0.001 * g * g
    w = w - 0.01 * (m / (np.sqrt(v) + 1e-8) + 0.1 * w)
    return w.astype(np.float16), m.astype(np.float32), v.astype(np.float32)


@case(rtol=1e-3, atol=1e-3)
def fused_cast_adam_weight_decay_state(ms, ops, nn, np):
    return _fused_cast(ms, ops, np)[1]


@case(rtol=1e-3, atol=1e-3, mindspore_wrong=True, expected=_fused_cast_np, note=_GARBAGE)
def fused_cast_adam_weight_decay_output(ms, ops, nn, np):
    return _fused_cast(ms, ops, np)[0]


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


def _adagrad_no_slots_np(np):
    w, acc, g = _a(np, W), _a(np, M), _a(np, G)
    out = (w - 0.01 * g / np.sqrt(acc)).astype(np.float32), acc.astype(np.float32)
    return out, out


@case(rtol=1e-5, atol=1e-6, mindspore_wrong=True, expected=_adagrad_no_slots_np,
      note="MindSpore 2.10 (CPU) updates accum even with update_slots=False (its documentation: only when True)")
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


def _centered(ms, ops, np):
    var = _p(ms, np, W, "var")
    mg, ms_, mom = _p(ms, np, MG, "mg"), _p(ms, np, V, "ms"), _p(ms, np, M, "mom")
    out = ops.ApplyCenteredRMSProp()(var, mg, ms_, mom, _t(ms, np, G), _t(ms, np, 0.01), 0.9, 0.5, 1e-6)
    return out, _values(var, mg, ms_, mom)


@case(rtol=1e-5, atol=1e-6)
def apply_centered_rms_prop_state(ms, ops, nn, np):
    return _centered(ms, ops, np)[1]


@case(rtol=1e-5, atol=1e-6, mindspore_wrong=True, expected=_centered_np, note=_GARBAGE)
def apply_centered_rms_prop_output(ms, ops, nn, np):
    return _centered(ms, ops, np)[0]


def _rms(ms, ops, np):
    var, ms_, mom = _p(ms, np, W, "var"), _p(ms, np, V, "ms"), _p(ms, np, M, "mom")
    out = ops.ApplyRMSProp()(var, ms_, mom, _t(ms, np, 0.01), _t(ms, np, G), 0.9, 0.5, 1e-6)
    return out, _values(var, ms_, mom)


@case(rtol=1e-5, atol=1e-6)
def apply_rms_prop_state(ms, ops, nn, np):
    return _rms(ms, ops, np)[1]


@case(rtol=1e-5, atol=1e-6, mindspore_wrong=True, expected=_rms_np, note=_GARBAGE)
def apply_rms_prop_output(ms, ops, nn, np):
    return _rms(ms, ops, np)[0]


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


def _momentum_nesterov_np(np):
    w, acc, g = _a(np, W), _a(np, M), 2 * _a(np, G)
    acc = 0.9 * acc + g
    w = w - 0.1 * (g + 0.9 * acc)
    return w.astype(np.float32), (w.astype(np.float32), acc.astype(np.float32))


@case(rtol=1e-5, atol=1e-6, mindspore_wrong=True, expected=_momentum_nesterov_np,
      note="MindSpore 2.10 (CPU) ignores use_nesterov and gradient_scale (the plain momentum step)")
def apply_momentum_nesterov_scaled(ms, ops, nn, np):
    var, accum = _p(ms, np, W, "var"), _p(ms, np, M, "accum")
    out = ops.ApplyMomentum(use_nesterov=True, gradient_scale=2.0)(var, accum, _t(ms, np, 0.1), _t(ms, np, G),
                                                                    _t(ms, np, 0.9))
    return out, _values(var, accum)


@case(rtol=1e-5, atol=1e-6)
def sgd_first_step(ms, ops, nn, np):
    p, accum, stat = _p(ms, np, W, "p"), _p(ms, np, M, "accum"), _p(ms, np, [[1.0, 1.0], [1.0, 1.0]], "stat")
    out = ops.SGD(weight_decay=0.1)(p, _t(ms, np, G), _t(ms, np, 0.01), accum, _t(ms, np, 0.9), stat)
    return out, _values(p, accum, stat)


@case(rtol=1e-5, atol=1e-6)
def sgd_later_step_nesterov(ms, ops, nn, np):
    p, accum, stat = _p(ms, np, W, "p"), _p(ms, np, M, "accum"), _p(ms, np, [[0.0, 0.0], [0.0, 0.0]], "stat")
    out = ops.SGD(nesterov=True)(p, _t(ms, np, G), _t(ms, np, 0.01), accum, _t(ms, np, 0.9), stat)
    return out, _values(p, accum, stat)


@case(rtol=1e-5, atol=1e-6)
def sgd_dampening(ms, ops, nn, np):
    p, accum, stat = _p(ms, np, W, "p"), _p(ms, np, M, "accum"), _p(ms, np, [[0.0, 0.0], [0.0, 0.0]], "stat")
    out = ops.SGD(dampening=0.5)(p, _t(ms, np, G), _t(ms, np, 0.01), accum, _t(ms, np, 0.9), stat)
    return out, _values(p, accum, stat)


@case
def sgd_nesterov_with_dampening_refused(ms, ops, nn, np):
    ops.SGD(dampening=0.5, nesterov=True)
    return None
