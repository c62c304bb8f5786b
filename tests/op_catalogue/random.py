"""Random draws: the samples here are the ones whose result is determined.

cellkit draws from NumPy generators and MindSpore from its own, so two runs agree on distributions,
never on values.  Each op's samples are therefore chosen where the result does not depend on the
draw: probabilities of 0 and 1, one-hot weights, zero standard deviations, constant tensors to
shuffle, a single candidate to choose, empty shapes (shape and dtype only).  What the draws look
like -- shapes, dtypes, supports, moments and frequencies, the same draw for the same seed -- is
compared with MindSpore in ``tests/mindspore_cases/random_draws.py``.

``normal`` is differentiable in its location (checked here, with a zero scale so the noise drops
out); ``laplace`` is too, but takes only Float32 (as MindSpore), out of reach of the float64
finite-difference checks (``tests/ops/test_misc_random.py`` checks it).  The scales' and
``uniform``'s bounds' derivatives are the noise itself, which no finite difference of a fresh draw
can check.  MindSpore refuses dtype names as strings, so ``dtype=`` variants are in the hand-written
cases of ``random_draws.py``.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

ONE_HOT = np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]], np.float32)
ONE_HOT_LOGITS = np.array([[-1e30, 0.0, -1e30], [0.0, -1e30, -1e30]], np.float32)
P01 = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], np.float32)


def _bernoulli_ref(x, p=0.5, seed=None):
    return np.broadcast_to(np.asarray(p, np.float64) >= 0.5, x.shape).astype(x.dtype)


OPS = [
    OpInfo("bernoulli",
           (Sample((Arr((2, 3)),), {"p": 1.0}, label="p_one"),
            Sample((Arr((2, 3)),), {"p": 0.0}, label="p_zero"),
            Sample((Arr((2, 3), "float64"), P01), label="p_tensor"),
            Sample((Arr((2, 3), "int32", 0, 5), P01.astype(np.float64)), label="int_p_float64"),
            Sample((Arr((4,), "bool"),), {"p": 1.0, "seed": 3}, label="bool_seed"),
            Sample((Arr((), "int64", 0, 3),), {"p": 1.0}, label="zero_d"),
            Sample((Arr((0, 3)),), {"p": 1.0}, label="empty")),
           ref=_bernoulli_ref,
           primitive=lambda ops, x, p=0.5, seed=None: ops.Bernoulli()(x, p),
           bad=(Bad("float16", (Arr((3,), "float16"),), {"p": 1.0}),
                Bad("p_above_one", (Arr((3,)),), {"p": 2.0}),
                Bad("p_int_tensor", (Arr((3,)), Arr((3,), "int64", 0, 1))),
                Bad("p_shape", (Arr((3,)), Arr((2,), low=0.0, high=1.0))),
                Bad("list_input", ([1.0, 2.0],), {"p": 0.5}),
                Bad("seed_float", (Arr((3,)),), {"p": 0.5, "seed": 1.5}))),
    OpInfo("multinomial",
           (Sample((ONE_HOT, 3), label="one_hot"),
            Sample((ONE_HOT[0], 2), label="one_d"),
            Sample((ONE_HOT, 1), {"replacement": False}, label="no_replacement"),
            Sample((ONE_HOT.astype(np.float64), 2), label="float64"),
            Sample((ONE_HOT, 0), label="no_samples")),
           method="multinomial",
           bad=(Bad("three_d", (Arr((2, 2, 2), low=0.1), 2)),
                Bad("num_samples_float", (ONE_HOT, 1.5)))),
    OpInfo("multinomial_with_replacement",
           (Sample((ONE_HOT, 2, 5, 3, True), label="one_hot"),
            Sample((ONE_HOT, 2, 5, 1, False), label="no_replacement"),
            Sample((ONE_HOT[1], 2, 5, 2, True), label="one_d")),
           bad=(Bad("three_d", (Arr((2, 2, 2), low=0.1), 2, 5, 2, True)),)),
    OpInfo("normal",
           (Sample(((2, 3), Arr((), low=0.5), Arr((), "float32", 0.0, 0.0)), grad=(1,), label="zero_std"),
            Sample(((3, 1, 2), Arr((2, 2)), Arr((), "float32", 0.0, 0.0)), grad=(1,), label="broadcast"),
            Sample(((2,), Arr((2,), "float64"), Arr((), "float64", 0.0, 0.0)), label="float64"),
            Sample(((2, 2), 1.5, 0.0), label="numbers"),
            Sample(((2,), Arr((2,), "int64", 1, 4), Arr((), "float32", 0.0, 0.0)), label="int_mean")),
           bad=(Bad("zero_dim", ((0,), 1.0, 1.0)),
                Bad("broadcast", ((3,), Arr((2,)), Arr(())))), second_order=True),
    OpInfo("uniform",
           (Sample(((2, 3), np.array(1.5, np.float32), np.array(1.5, np.float32)), label="equal_bounds"),
            Sample(((3, 1, 2), np.full((2, 2), 0.25, np.float32), np.full((2,), 0.25, np.float32)),
                   label="broadcast")),
           bad=(Bad("numbers", ((2, 3), 1.0, 2.0)),
                Bad("int_bounds", ((2, 3), np.array(1, np.int32), np.array(2, np.int32))),
                Bad("mixed_bounds", ((2, 3), np.array(1, np.int64), np.array(2.0, np.float32))))),
    OpInfo("rand",
           (Sample((0, 3), label="empty"), Sample(((0, 2),), label="tuple"), Sample(([0],), label="list")),
           bad=(Bad("negative", (-2,)),
                Bad("float_size", (2.5,)), Bad("seed_negative", (2,), {"seed": -1}))),
    OpInfo("randn",
           (Sample((0, 3), label="empty"), Sample(([0, 2],), label="list")),
           bad=(Bad("negative", (-1, 2)), Bad("float_size", (1.5,)))),
    OpInfo("randn_like",
           (Sample((Arr((0, 3)),), label="empty"), Sample((Arr((0,), "int64", 0, 3),), label="int_input"),
            Sample((Arr((0, 2), "float64"),), label="float64_input")),
           bad=(Bad("list", ([1.0, 2.0],)), Bad("seed_negative", (Arr((2,)),), {"seed": -1}))),
    OpInfo("standard_normal",
           (Sample(((0, 3),), label="empty"), Sample(((2, 0, 1),), {"seed": 5}, label="seeded_empty")),
           bad=(Bad("int_shape", (3,)), Bad("list_shape", ([2, 3],)), Bad("negative", ((2, -3),)))),
    OpInfo("standard_laplace",
           (Sample(((0, 3),), label="empty"),),
           bad=(Bad("int_shape", (3,)), Bad("negative", ((2, -3),)))),
    OpInfo("laplace",
           (Sample(((2, 3), Arr((), low=0.5), Arr((), "float32", 0.0, 0.0)), label="zero_scale"),
            Sample(((2, 3), Arr((3,)), Arr((), "float32", 0.0, 0.0)), label="broadcast")),
           bad=(Bad("numbers", ((2, 3), 1.5, 1.0)),
                Bad("float64", ((2, 3), Arr((), "float64"), Arr((), "float64"))))),
    OpInfo("randperm",
           (Sample((1,), label="one"), Sample((1, 3, 2), label="seeded")),
           bad=(Bad("zero", (0,)), Bad("negative", (-1,)), Bad("float", (2.5,)))),
    OpInfo("random_categorical",
           (Sample((ONE_HOT_LOGITS, 3), label="one_hot"),
            Sample((ONE_HOT_LOGITS.astype(np.float64), 2), label="float64"),
            Sample((ONE_HOT_LOGITS, 4), {"seed": 3}, label="seeded")),
           method="random_categorical",
           primitive=lambda ops, logits, num, seed=0: ops.RandomCategorical()(logits, num, seed),
           bad=(Bad("one_d", (ONE_HOT_LOGITS[0], 3)), Bad("num_float", (ONE_HOT_LOGITS, 1.5)))),
    OpInfo("shuffle",
           (Sample((np.ones((3, 2), np.float32),), label="constant"),
            Sample((np.array(2.5, np.float32),), label="zero_d"),
            Sample((np.array([5], np.int64),), label="int"),
            Sample((np.array([True]),), {"seed": 1}, label="bool_seed")),
           primitive=lambda ops, x, seed=None: ops.RandomShuffle()(x),
           bad=(Bad("list", ([1.0, 2.0],)), Bad("seed_float", (np.ones(2, np.float32),), {"seed": 0.5}))),
    OpInfo("choice_with_mask",
           (Sample((np.array([False, True, False]),), {"count": 1}, label="one_candidate"),
            Sample((np.array([False, True, False]),), {"count": 3}, label="padded"),
            Sample((np.array([[False, False], [True, False]]),), {"count": 2}, label="two_d")),
           primitive=lambda ops, x, count=256, seed=None: ops.RandomChoiceWithMask(count)(x),
           bad=(Bad("float", (Arr((2,)),), {"count": 2}), Bad("zero_d", (np.array(True),), {"count": 2}),
                Bad("count_zero", (np.array([True]),), {"count": 0}))),
]
