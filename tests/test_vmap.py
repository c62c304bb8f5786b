"""``ms.vmap``: one batched run where it can, one call per example where it cannot -- the same values either way.

Every case compares vmap with an explicit Python loop over the examples
(the definition of what vmap means).  Whether the batched run was used is
checked by counting how often the function body runs.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import batching, nn, ops

RNG = np.random.default_rng(3)


def T(a, dtype=np.float64):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def loop(fn, args, in_axes, out_axis=0):
    """What vmap means: fn on each example (arguments sliced along their axes), results stacked."""
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for i in range(size):
        sliced = [a if ax is None else ops.squeeze(ops.narrow(a, ax, i, 1), ax) for a, ax in zip(args, in_axes)]
        outs.append(fn(*sliced))
    if isinstance(outs[0], tuple):
        return tuple(np.stack([o[k].asnumpy() for o in outs], out_axis) for k in range(len(outs[0])))
    return np.stack([o.asnumpy() for o in outs], out_axis)


class Counted:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


CASES = [  # (name, fn, argument shapes, in_axes)
    ("elementwise with an unbatched weight", lambda x, w: ops.tanh(x * w) + ops.exp(-x), [(4, 3), (3,)], (0, None)),
    ("reduction over an axis", lambda x: ops.sum(x * x, 1, keepdim=True), [(4, 2, 3)], (0,)),
    ("mean of everything", lambda x: ops.mean(x), [(4, 2, 3)], (0,)),
    ("max and argmax", lambda x: (ops.amax(x, 0), ops.argmax(x, 1).astype(ms.float64)), [(5, 3, 4)], (0,)),
    ("matrix times batched vector", lambda A, v: ops.matmul(A, v), [(3, 4), (5, 4)], (None, 0)),
    ("batched vector times matrix", lambda v, A: ops.matmul(v, A), [(5, 3), (3, 4)], (0, None)),
    ("batched matrix times batched matrix", ops.matmul, [(5, 2, 3), (5, 3, 4)], (0, 0)),
    ("vector dot vector", lambda a, b: ops.matmul(a, b), [(5, 3), (5, 3)], (0, 0)),
    ("reshape and transpose", lambda x: ops.transpose(ops.reshape(x, (3, 2)), (1, 0)), [(4, 6)], (0,)),
    ("axis 1 mapped", lambda x: ops.softmax(x, -1), [(3, 5, 4)], (1,)),
    ("indexing", lambda x: x[1:, ::2] * x[0, 0], [(4, 3, 4)], (0,)),
    ("concat and stack with an unbatched tensor", lambda x, c: ops.stack([ops.concat([x, c], 0), ops.concat([c, x], 0)], 1),
     [(4, 3), (3,)], (0, None)),
    ("where", lambda x, y: ops.where(ops.greater(x, 0), x, y * 2), [(4, 5), (4, 5)], (0, 0)),
    ("dense and cross-entropy", lambda x, w, b, y: ops.cross_entropy(ops.dense(x, w, b), y),
     [(6, 2, 3), (4, 3), (4,), None], (0, None, None, 0)),
    ("layer norm", lambda x: ops.layer_norm(x, (3,)), [(4, 2, 3)], (0,)),
    ("conv2d (one example at a time)", lambda x, w: ops.conv2d(x, w), [(3, 1, 2, 5, 5), (2, 2, 3, 3)], (0, None)),
]


def _args(shapes):
    args = []
    for shape in shapes:
        if shape is None:  # class labels for cross-entropy
            args.append(ms.Tensor(RNG.integers(0, 4, (6, 2)).astype(np.int64)))
        else:
            args.append(T(RNG.standard_normal(shape)))
    return args


@pytest.mark.parametrize("name, fn, shapes, in_axes", CASES, ids=[c[0] for c in CASES])
def test_vmap_equals_a_loop_over_examples(name, fn, shapes, in_axes):
    args = _args(shapes)
    counted = Counted(fn)
    got = ms.vmap(counted, in_axes=in_axes)(*args)
    want = loop(fn, args, in_axes)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    batched = "one example at a time" not in name
    assert counted.calls == (1 if batched else size + 1), f"fn ran {counted.calls} times"


def test_vmap_results_are_plain_arrays_and_nothing_batched_leaks():
    w = ms.Parameter(T([0.5, -1.0]), name="w")
    x = T(RNG.standard_normal((3, 2)))
    grads = ms.vmap(ms.grad(lambda x: ops.tanh(x * w).sum(), grad_position=None, weights=w), in_axes=0)(x)
    assert type(grads._data) is np.ndarray and grads.shape == (3, 2)
    assert not batching.is_batched(w._data)
    assert not batching.is_batched(getattr(w, "_last_grad", ms.Tensor(0.0))._data)


def test_per_example_gradients_equal_a_loop_of_grads():
    w, b = T(RNG.standard_normal((4, 3))), T(RNG.standard_normal(4))
    xs, ys = T(RNG.standard_normal((5, 3))), ms.Tensor(np.array([0, 3, 1, 2, 0]))

    def loss(w, b, x, y):
        return ops.cross_entropy(ops.dense(ops.expand_dims(x, 0), w, b), ops.expand_dims(y, 0))

    counted = Counted(ms.grad(loss, grad_position=(0, 1)))
    gw, gb = ms.vmap(counted, in_axes=(None, None, 0, 0))(w, b, xs, ys)
    want_w, want_b = loop(ms.grad(loss, grad_position=(0, 1)), [w, b, xs, ys], (None, None, 0, 0))
    np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-12)
    np.testing.assert_allclose(gb.asnumpy(), want_b, rtol=1e-12)
    assert counted.calls == 1


def test_grad_of_vmap_sums_the_examples_for_a_weight_from_outside():
    w = T([0.3, -0.7, 1.1])
    xs = T(RNG.standard_normal((6, 3)))

    def total(w):
        return ms.vmap(lambda x: ops.tanh((x * w).sum()) ** 2)(xs).sum()

    got = ms.grad(total)(w).asnumpy()
    want = sum(ms.grad(lambda w: ops.tanh((xs[i] * w).sum()) ** 2)(w).asnumpy() for i in range(6))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # and with respect to the mapped input: one row per example
    gx = ms.grad(lambda xs: ms.vmap(lambda x: ops.tanh((x * w).sum()) ** 2)(xs).sum())(xs).asnumpy()
    np.testing.assert_allclose(gx, np.stack([ms.grad(lambda x: ops.tanh((x * w).sum()) ** 2)(xs[i]).asnumpy()
                                             for i in range(6)]), rtol=1e-12)


def test_nested_vmap_maps_two_axes():
    x = T(RNG.standard_normal((3, 4, 2)))
    counted = Counted(lambda v: (v * v).sum())
    got = ms.vmap(ms.vmap(counted))(x).asnumpy()
    np.testing.assert_allclose(got, (x.asnumpy() ** 2).sum(-1), rtol=1e-12)
    assert counted.calls == 1


def test_vmap_of_a_hessian():
    xs = T(RNG.standard_normal((4, 3)))
    f = lambda x: (ops.sin(x) * x).sum()  # noqa: E731
    got = ms.vmap(ms.jacrev(ms.grad(f)))(xs).asnumpy()
    want = np.stack([np.diag(2 * np.cos(x) - x * np.sin(x)) for x in xs.asnumpy()])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_second_order_through_vmap():
    w = T([0.2, -0.4])
    xs = T(RNG.standard_normal((5, 2)))

    def penalty(w):
        g = ms.grad(lambda w: ms.vmap(lambda x: ops.tanh((x * w).sum()))(xs).sum())(w)
        return (g * g).sum()

    def penalty_loop(w):
        g = ms.grad(lambda w: sum(ops.tanh((xs[i] * w).sum()) for i in range(5)))(w)
        return (g * g).sum()

    np.testing.assert_allclose(ms.grad(penalty)(w).asnumpy(), ms.grad(penalty_loop)(w).asnumpy(), rtol=1e-10)


def test_data_dependent_python_falls_back_to_one_call_per_example():
    def f(x):
        return x * 2 if float(x.sum()) > 0 else x - 1  # a Python branch on the value

    x = T([[1.0, 2.0], [-3.0, 0.5], [0.1, 0.1]])
    counted = Counted(f)
    got = ms.vmap(counted)(x).asnumpy()
    np.testing.assert_allclose(got, [[2.0, 4.0], [-4.0, -0.5], [0.2, 0.2]])
    assert counted.calls == 1 + 3  # the batched try stopped at the branch, then one call per example


def test_dropout_draws_a_mask_per_example_and_the_generator_is_not_advanced_twice():
    x = T(np.ones((4, 6)), np.float32)
    ms.set_seed(5)
    got = ms.vmap(lambda v: ops.dropout(v, p=0.5))(x).asnumpy()
    ms.set_seed(5)
    want = np.stack([ops.dropout(x[i], p=0.5).asnumpy() for i in range(4)])
    np.testing.assert_array_equal(got, want)


def test_batch_norm_statistics_in_vmap_are_updated_as_by_a_loop():
    def run(use_vmap):
        ms.set_seed(0)
        bn = nn.BatchNorm1d(3)
        bn.set_train()
        xs = T(np.arange(24.0).reshape(2, 4, 3), np.float32)
        out = ms.vmap(bn)(xs) if use_vmap else ms.Tensor(np.stack([bn(xs[i]).asnumpy() for i in range(2)]))
        return out.asnumpy(), bn.moving_mean.asnumpy()

    (out_v, mean_v), (out_l, mean_l) = run(True), run(False)
    np.testing.assert_allclose(out_v, out_l, rtol=1e-6)
    np.testing.assert_allclose(mean_v, mean_l, rtol=1e-6)


def test_a_cell_with_hooks_runs_its_hooks_once_per_example():
    dense = nn.Dense(3, 2, dtype=ms.float64)
    seen = []
    dense.register_forward_hook(lambda cell, inputs, output: seen.append(output.shape))
    ms.vmap(dense)(T(RNG.standard_normal((4, 3))))
    assert seen == [(2,)] * 4


def test_vmap_over_a_cell_list_runs_one_model_per_example():
    ms.set_seed(0)
    models = nn.CellList([nn.Dense(3, 1, dtype=ms.float64) for _ in range(3)])
    xs = T(RNG.standard_normal((3, 3)))
    got = ms.vmap(models)(xs).asnumpy()
    np.testing.assert_allclose(got, np.stack([models[i](xs[i]).asnumpy() for i in range(3)]), rtol=1e-12)
