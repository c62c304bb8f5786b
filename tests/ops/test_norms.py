"""ops.norm (MindSpore's function, not the normalisation submodule) against numpy.linalg.norm."""
import math

import numpy as np
import pytest

import cellkit as ms
from cellkit import ops
from tests.gradcheck import check_grad

X = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]])

CASES = [
    ({}, lambda x: np.linalg.norm(x)),
    ({"dim": 1}, lambda x: np.linalg.norm(x, axis=1)),
    ({"dim": 0, "keepdim": True}, lambda x: np.linalg.norm(x, axis=0, keepdims=True)),
    ({"ord": 1, "dim": 0}, lambda x: np.linalg.norm(x, 1, axis=0)),
    ({"ord": 3, "dim": -1}, lambda x: np.linalg.norm(x, 3, axis=-1)),
    ({"ord": math.inf, "dim": 1}, lambda x: np.linalg.norm(x, np.inf, axis=1)),
    ({"ord": -math.inf, "dim": 1}, lambda x: np.linalg.norm(x, -np.inf, axis=1)),
    ({"ord": 0, "dim": 1}, lambda x: np.linalg.norm(x, 0, axis=1)),
    ({"ord": "fro"}, lambda x: np.linalg.norm(x, "fro")),
    ({"ord": 1}, lambda x: np.linalg.norm(x, 1)),
    ({"ord": -1}, lambda x: np.linalg.norm(x, -1)),
    ({"ord": math.inf}, lambda x: np.linalg.norm(x, np.inf)),
    ({"ord": 1, "keepdim": True}, lambda x: np.linalg.norm(x, 1, keepdims=True)),
]


def test_ops_norm_is_the_function():
    assert callable(ops.norm) and ops.norm.__module__ == "cellkit.ops.norms"


@pytest.mark.parametrize("kwargs, reference", CASES)
def test_norm_matches_numpy(backend, kwargs, reference):
    got = ops.norm(ms.Tensor(X), **kwargs).asnumpy()
    expected = reference(X)
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_norm_singular_values_match_numpy(ord):
    np.testing.assert_allclose(ops.norm(ms.Tensor(X), ord=ord).asnumpy(), np.linalg.norm(X, ord), rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"ord": 3, "dim": 0}, {"ord": "fro"}, {"ord": 1}])
def test_norm_gradients_pass_finite_differences(kwargs):
    check_grad(lambda t: ops.norm(t, **kwargs), X + 0.1)


def test_norm_refuses_bad_arguments_naming_them():
    t = ms.Tensor(X)
    with pytest.raises(ValueError, match="'ord'"):
        ops.norm(t, ord="max")
    with pytest.raises(TypeError, match="'ord'"):
        ops.norm(t, ord=[1])
    with pytest.raises(ValueError, match="matrix norm"):
        ops.norm(t, ord="fro", dim=1)
    with pytest.raises(ValueError, match="repeats"):
        ops.norm(t, dim=(1, 1))
    with pytest.raises(TypeError, match="'ord'"):
        ops.norm(t, ord=True)


def test_norm_of_integers_is_float32():
    # MindSpore 2.10: the norm of an int tensor is a Float32 tensor.
    out = ops.norm(ms.Tensor([3, 4]))
    assert out.dtype is ms.float32 and out.asnumpy() == 5.0


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_norm_singular_value_norms_are_differentiable(ord):
    check_grad(lambda t: ops.norm(t, ord=ord), X + 0.1)
