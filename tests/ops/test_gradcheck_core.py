"""Every differentiable core op against central finite differences, in float64.

Shapes come from hypothesis (broadcasting included); values from a seeded
generator, kept away from the points where an op is not differentiable
(ties of max, the bounds of clamp, zero for abs ...).  Each test runs on NumPy
and on array_api_strict's ``device1`` through the ``backend`` fixture.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import cellkit as ms
from cellkit import ops
from gradcheck import check_grad

T = ms.Tensor

fd_settings = settings(max_examples=12, deadline=None, derandomize=True,
                       suppress_health_check=[HealthCheck.function_scoped_fixture])

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
nonscalar_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)
triples = hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3)
seeds = st.integers(0, 2 ** 32 - 1)


# NumPy returns a scalar, not an array, for size=(): np.asarray keeps 0-d inputs arrays.
def uniform(rng, shape, low=-2.0, high=2.0):
    return np.asarray(rng.uniform(low, high, size=shape))


def away_from_zero(rng, shape, low=0.3, high=2.0):
    return np.asarray(rng.uniform(low, high, size=shape) * rng.choice([-1.0, 1.0], size=shape))


def distinct(rng, shape):
    """Values at least 0.1 apart: no ties for max / min."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.1 - n * 0.05 + rng.uniform(0, 0.01)).reshape(shape)


# -- elementwise binary ops with broadcasting --------------------------------------------------------------
BINARY = {
    "add": (ops.add, uniform, uniform),
    "sub": (ops.sub, uniform, uniform),
    "mul": (ops.mul, uniform, uniform),
    "div": (ops.div, uniform, away_from_zero),
    "pow": (ops.pow, lambda rng, s: uniform(rng, s, 0.5, 2.0), uniform),
    "operator+": (lambda a, b: a + b, uniform, uniform),
    "operator*": (lambda a, b: a * b, uniform, uniform),
    "operator/": (lambda a, b: a / b, uniform, away_from_zero),
    "operator**": (lambda a, b: a ** b, lambda rng, s: uniform(rng, s, 0.5, 2.0), uniform),
    "operator-": (lambda a, b: a - b, uniform, uniform),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@fd_settings
@given(shapes=pairs, seed=seeds)
def test_gradcheck_binary_broadcasting(backend, name, shapes, seed):
    op, make_a, make_b = BINARY[name]
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    check_grad(op, make_a(rng, sa), make_b(rng, sb))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@fd_settings
@given(shapes=pairs, seed=seeds)
def test_gradcheck_maximum_minimum(backend, name, shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    # two interleaved grids: the sides never tie, wherever they meet after broadcasting
    a = np.asarray(rng.integers(-10, 10, size=sa) * 0.2)
    b = np.asarray(rng.integers(-10, 10, size=sb) * 0.2 + 0.1)
    check_grad(getattr(ops, name), a, b)
    check_grad(lambda x: getattr(ops, name)(x, 0.05), a)


@fd_settings
@given(shapes=pairs, seed=seeds)
def test_gradcheck_mod(backend, shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    full = np.broadcast_shapes(sa, sb)
    b = uniform(rng, sb, 1.0, 2.0)
    # a = b * (n + f) with f away from 0 and 1: far from the jumps of mod
    a = np.asarray(np.broadcast_to(b, full) * (rng.integers(-2, 3, size=full) + rng.uniform(0.2, 0.8, size=full)))
    check_grad(ops.mod, a, b)


@fd_settings
@given(shapes=triples, seed=seeds)
def test_gradcheck_where(backend, shapes, seed):
    rng = np.random.default_rng(seed)
    sc, sa, sb = shapes.input_shapes
    cond = T(rng.random(sc) > 0.5)
    check_grad(lambda a, b: ops.where(cond, a, b), uniform(rng, sa), uniform(rng, sb))


# -- unary ops ------------------------------------------------------------------------------------------
def positive(rng, shape):
    return uniform(rng, shape, 0.3, 2.0)


def off_integers(rng, shape, low, high):
    """Away from the jumps of floor / ceil / round: an integer plus a fraction in [low, high]."""
    return np.asarray(rng.integers(-3, 3, size=shape) + rng.uniform(low, high, size=shape))


UNARY = {
    "neg": (ops.neg, uniform),
    "exp": (ops.exp, uniform),
    "expm1": (ops.expm1, uniform),
    "log": (ops.log, positive),
    "log1p": (ops.log1p, positive),
    "sqrt": (ops.sqrt, positive),
    "rsqrt": (ops.rsqrt, positive),
    "square": (ops.square, uniform),
    "abs": (ops.abs, away_from_zero),
    "reciprocal": (ops.reciprocal, away_from_zero),
    "sin": (ops.sin, uniform),
    "cos": (ops.cos, uniform),
    "pow-scalar-exponent": (lambda x: ops.pow(x, 3), uniform),
    "pow-fractional": (lambda x: x ** 1.5, positive),
    "scalar-pow": (lambda x: 2.0 ** x, uniform),
    "scalar-rsub": (lambda x: 3.0 - x, uniform),
    "scalar-rdiv": (lambda x: 3.0 / x, away_from_zero),
    "scalar-mul": (lambda x: x * 2.5 + 1.0, uniform),
    "method-sqrt-exp-log": (lambda x: x.sqrt().exp().log(), positive),
    "clamp-scalars": (lambda x: ops.clamp(x, -0.5, 0.5),
                      lambda rng, s: np.asarray(rng.choice([-1.2, -0.3, 0.1, 0.4, 0.9], size=s)
                                                + rng.uniform(-0.05, 0.05, size=s))),
    "clamp-min-only": (lambda x: ops.clamp(x, min=0.0), away_from_zero),
    "floor": (ops.floor, lambda rng, s: off_integers(rng, s, 0.2, 0.8)),
    "ceil": (ops.ceil, lambda rng, s: off_integers(rng, s, 0.2, 0.8)),
    "round": (ops.round, lambda rng, s: off_integers(rng, s, 0.1, 0.4)),
    "sign": (ops.sign, away_from_zero),
    "cast-float64": (lambda x: ops.cast(x, ms.float64), uniform),
    "astype-float64": (lambda x: x.astype(ms.float64) * x, uniform),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@fd_settings
@given(shape=shapes, seed=seeds)
def test_gradcheck_unary(backend, name, shape, seed):
    op, make = UNARY[name]
    check_grad(op, make(np.random.default_rng(seed), shape))


@fd_settings
@given(shape=shapes, seed=seeds)
def test_gradcheck_cast_to_float32_and_back(backend, shape, seed):
    x = uniform(np.random.default_rng(seed), shape)
    check_grad(lambda t: ops.cast(ops.cast(t, ms.float32) * 2.0, ms.float64), x, eps=1e-2, rtol=1e-4, atol=1e-4)


@fd_settings
@given(shapes=triples, seed=seeds)
def test_gradcheck_clamp_tensor_bounds(backend, shapes, seed):
    rng = np.random.default_rng(seed)
    sx, slo, shi = shapes.input_shapes
    lo = uniform(rng, slo, -1.0, -0.5)
    hi = uniform(rng, shi, 0.5, 1.0)
    # x sits clearly below every lo, between the bounds, or above every hi
    x = np.asarray(rng.choice([-1.5, 0.0, 1.5], size=sx) + rng.uniform(-0.2, 0.2, size=sx))
    check_grad(lambda a, b, c: ops.clamp(a, b, c), x, lo, hi)


# -- reductions -----------------------------------------------------------------------------------------
@st.composite
def shape_and_axis(draw, allow_none=True, allow_tuple=True):
    shape = draw(nonscalar_shapes)
    ndim = len(shape)
    options = [st.integers(-ndim, ndim - 1)]
    if allow_none:
        options.append(st.none())
    if allow_tuple:
        options.append(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple))
    axis = draw(st.one_of(*options))
    return shape, axis, draw(st.booleans())


REDUCTIONS = {
    "sum": (lambda x, a, k: ops.sum(x, a, k), uniform),
    "mean": (lambda x, a, k: ops.mean(x, a, k), uniform),
    "reduce_sum": (lambda x, a, k: ops.reduce_sum(x, a, k), uniform),
    "amax": (lambda x, a, k: ops.amax(x, a, k), distinct),
    "amin": (lambda x, a, k: ops.amin(x, a, k), distinct),
    "prod": (lambda x, a, k: ops.prod(x, a, k), lambda rng, s: away_from_zero(rng, s, 0.5, 1.5)),
    "method-sum": (lambda x, a, k: x.sum(a, keepdims=k), uniform),
    "method-mean": (lambda x, a, k: x.mean(a, k), uniform),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@fd_settings
@given(spec=shape_and_axis(), seed=seeds)
def test_gradcheck_reductions(backend, name, spec, seed):
    shape, axis, keep = spec
    op, make = REDUCTIONS[name]
    check_grad(lambda x: op(x, axis, keep), make(np.random.default_rng(seed), shape))


@pytest.mark.parametrize("name", ["max", "min"])
@fd_settings
@given(spec=shape_and_axis(allow_tuple=False), seed=seeds)
def test_gradcheck_max_min_with_indices(backend, name, spec, seed):
    shape, axis, keep = spec
    op = getattr(ops, name)
    check_grad(lambda x: op(x, axis, keep)[0], distinct(np.random.default_rng(seed), shape))


@fd_settings
@given(shape=nonscalar_shapes, seed=seeds)
def test_gradcheck_tensor_max_min_methods(backend, shape, seed):
    x = distinct(np.random.default_rng(seed), shape)
    check_grad(lambda t: t.max() * 2 + t.min(), x)
    check_grad(lambda t: t.max(0)[0] - t.min(axis=-1).sum(), x)


# -- matrix products -------------------------------------------------------------------------------------
@st.composite
def matmul_shapes(draw):
    n, k, m = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3))
    ba, bb = batch.input_shapes
    kind = draw(st.sampled_from(["matrix", "vector-left", "vector-right", "vectors"]))
    a_shape = (k,) if kind in ("vector-left", "vectors") else ba + (n, k)
    b_shape = (k,) if kind in ("vector-right", "vectors") else bb + (k, m)
    return a_shape, b_shape


@fd_settings
@given(shapes=matmul_shapes(), seed=seeds)
def test_gradcheck_matmul(backend, shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes
    check_grad(ops.matmul, uniform(rng, sa), uniform(rng, sb))
    check_grad(lambda a, b: a @ b, uniform(rng, sa), uniform(rng, sb))


@fd_settings
@given(batch=st.integers(1, 3), n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3),
       ta=st.booleans(), tb=st.booleans(), seed=seeds)
def test_gradcheck_batch_matmul_and_primitives(backend, batch, n, k, m, ta, tb, seed):
    rng = np.random.default_rng(seed)
    a = uniform(rng, (batch, k, n) if ta else (batch, n, k))
    b = uniform(rng, (batch, m, k) if tb else (batch, k, m))
    check_grad(lambda x, y: ops.batch_matmul(x, y, ta, tb), a, b)
    check_grad(ops.BatchMatMul(transpose_a=ta, transpose_b=tb), a, b)
    check_grad(lambda x, y: ops.MatMul(ta, tb)(x[0], y[0]), a, b)
    if not (ta or tb):
        check_grad(ops.bmm, a, b)


# -- shape ops -------------------------------------------------------------------------------------------
@fd_settings
@given(shape=shapes, seed=seeds, data=st.data())
def test_gradcheck_reshape_flatten_transpose(backend, shape, seed, data):
    x = uniform(np.random.default_rng(seed), shape)
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    check_grad(lambda t: ops.reshape(t, (-1,)), x)
    check_grad(lambda t: ops.reshape(t, tuple(reversed(shape))), x)
    check_grad(lambda t: ops.transpose(t, perm), x)
    check_grad(lambda t: t.transpose(), x)
    check_grad(lambda t: ops.flatten(t, start_dim=0), x)
    if len(shape) >= 2:
        check_grad(ops.flatten, x)
        check_grad(lambda t: ops.flatten(t, "F"), x)
        check_grad(lambda t: ops.swapaxes(t, 0, -1), x)


@fd_settings
@given(shape=shapes, seed=seeds, data=st.data())
def test_gradcheck_expand_dims_squeeze(backend, shape, seed, data):
    x = uniform(np.random.default_rng(seed), shape)
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    check_grad(lambda t: ops.expand_dims(t, axis), x)
    check_grad(lambda t: ops.squeeze(ops.expand_dims(t, axis), axis), x)
    check_grad(ops.squeeze, x)


@fd_settings
@given(shape=nonscalar_shapes, count=st.integers(1, 3), seed=seeds, data=st.data())
def test_gradcheck_concat_stack(backend, shape, count, seed, data):
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    sizes = [data.draw(st.integers(1, 3)) for _ in range(count)]
    pieces = []
    for size in sizes:
        piece_shape = list(shape)
        piece_shape[axis] = size
        pieces.append(uniform(rng, tuple(piece_shape)))
    check_grad(lambda *ts: ops.concat(ts, axis), *pieces)
    same = [uniform(rng, shape) for _ in range(count)]
    stack_axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    check_grad(lambda *ts: ops.stack(list(ts), stack_axis), *same)


@fd_settings
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_gradcheck_split_chunk_unstack_narrow(backend, shape, seed, data):
    x = uniform(np.random.default_rng(seed), shape)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    length = shape[axis]
    size = data.draw(st.integers(1, length))
    check_grad(lambda t: ops.concat([p * (i + 1) for i, p in enumerate(ops.split(t, size, axis))], axis), x)
    cut = data.draw(st.integers(0, length))
    check_grad(lambda t: ops.split(t, [cut, length - cut], axis)[1] * 3.0, x)
    check_grad(lambda t: ops.chunk(t, 2, axis)[0], x)
    check_grad(lambda t: ops.stack([p * (i + 2) for i, p in enumerate(ops.unstack(t, axis))]), x)
    start = data.draw(st.integers(0, length - 1))
    check_grad(lambda t: ops.narrow(t, axis, start, length - start), x)


@fd_settings
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_gradcheck_gather_take(backend, shape, seed, data):
    rng = np.random.default_rng(seed)
    x = uniform(rng, shape)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=4))
    index = rng.integers(0, shape[axis], size=index_shape)  # repeats included
    check_grad(lambda t: ops.gather(t, T(index), axis), x)
    check_grad(lambda t: ops.Gather()(t, T(index), axis), x)
    flat_index = rng.integers(0, x.size, size=(3,))
    check_grad(lambda t: ops.take(t, T(flat_index)), x)


@st.composite
def basic_keys(draw, shape):
    key = []
    for side in shape:
        kind = draw(st.sampled_from(["int", "slice", "full", "newaxis"]))
        if kind == "int":
            key.append(draw(st.integers(-side, side - 1)))
        elif kind == "slice":
            start = draw(st.integers(0, side - 1))
            key.append(slice(start, draw(st.integers(start + 1, side)), draw(st.integers(1, 2))))
        elif kind == "newaxis":
            key.extend([None, slice(None)])
        else:
            key.append(slice(None))
    if draw(st.booleans()) and key:
        key = key[:-1] + [Ellipsis]
    return tuple(key)


@fd_settings
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_gradcheck_getitem_basic(backend, shape, seed, data):
    x = uniform(np.random.default_rng(seed), shape)
    key = data.draw(basic_keys(shape))
    check_grad(lambda t: t[key], x)


@fd_settings
@given(shape=nonscalar_shapes, seed=seeds)
def test_gradcheck_getitem_advanced(backend, shape, seed):
    rng = np.random.default_rng(seed)
    x = uniform(rng, shape)
    rows = rng.integers(0, shape[0], size=(4,))  # repeats accumulate
    check_grad(lambda t: t[T(rows)], x)
    check_grad(lambda t: t[rows.tolist()], x)
    mask = rng.random(shape) > 0.4
    check_grad(lambda t: t[T(mask)], x)
    row_mask = rng.random(shape[0]) > 0.4
    check_grad(lambda t: t[T(row_mask)], x)
    check_grad(lambda t: t[T(rows - shape[0])], x)  # negative indices
    if len(shape) >= 2:
        cols = rng.integers(0, shape[1], size=(2, 3))
        check_grad(lambda t: t[:, cols.tolist()], x)
        check_grad(lambda t: t[rows[:3].tolist(), 1:], x)
        check_grad(lambda t: t[T(rows[:3]), T(cols[0])], x)


@fd_settings
@given(shape=nonscalar_shapes, seed=seeds, data=st.data())
def test_gradcheck_tile(backend, shape, seed, data):
    x = uniform(np.random.default_rng(seed), shape)
    reps = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=len(shape) + 1)))
    check_grad(lambda t: ops.tile(t, reps), x)


@fd_settings
@given(shapes=pairs, seed=seeds)
def test_gradcheck_broadcast_to(backend, shapes, seed):
    sa, _ = shapes.input_shapes
    target = shapes.result_shape
    x = uniform(np.random.default_rng(seed), sa)
    check_grad(lambda t: ops.broadcast_to(t, target), x)
    check_grad(ops.BroadcastTo(target), x)


# -- compositions: one tape, many ops ---------------------------------------------------------------------
@fd_settings
@given(n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3), seed=seeds)
def test_gradcheck_small_network(backend, n, k, m, seed):
    rng = np.random.default_rng(seed)

    def net(x, w, b):
        hidden = ops.maximum(ops.matmul(x, w) + b, 0.0)  # relu-like
        return ops.mean(ops.exp(-hidden) * hidden, axis=0)

    x = uniform(rng, (n, k))
    w = uniform(rng, (k, m))
    b = uniform(rng, (m,))
    pre = x @ w + b
    if np.min(np.abs(pre)) < 1e-3:  # keep clear of the kink at 0
        b = b + 0.01
    check_grad(net, x, w, b)
