"""nn.Embedding: lookups (gather and one-hot), padding_idx, initialisation, gradients, repr, errors.

Runs on NumPy and on array_api_strict's ``device1``.  The padding-row
gradient and the error types were checked against MindSpore 2.10 (CPU).
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from tests.nn.paramgrad import check_param_grad

T = ms.Tensor
TABLE = np.arange(15, dtype=np.float32).reshape(5, 3)
IDS = np.array([[0, 4], [2, 2]], np.int32)


@pytest.mark.parametrize("use_one_hot", [False, True])
@pytest.mark.parametrize("ids_dtype", [np.int32, np.int64])
def test_embedding_looks_up_rows(backend, use_one_hot, ids_dtype):
    emb = nn.Embedding(5, 3, use_one_hot=use_one_hot, embedding_table=T(TABLE))
    out = emb(T(IDS.astype(ids_dtype)))
    assert out.shape == (2, 2, 3) and out.dtype is ms.float32
    np.testing.assert_array_equal(out.asnumpy(), TABLE[IDS])
    scalar_id = emb(T(np.array(3, ids_dtype)))
    assert scalar_id.shape == (3,)
    np.testing.assert_array_equal(scalar_id.asnumpy(), TABLE[3])


def test_embedding_ids_outside_the_table(backend):
    bad = T(np.array([5, -1], np.int32))
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        nn.Embedding(5, 3, embedding_table=T(TABLE))(bad)
    # The one-hot form has no row to pick: zero vectors, as in MindSpore.
    out = nn.Embedding(5, 3, use_one_hot=True, embedding_table=T(TABLE))(bad)
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((2, 3)))


def test_embedding_padding_idx_row_starts_at_zero_but_still_learns(backend):
    table = T(TABLE)
    emb = nn.Embedding(5, 3, embedding_table=table, padding_idx=1)
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[1], [0, 0, 0])
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[2], TABLE[2])
    np.testing.assert_array_equal(table.asnumpy(), TABLE)          # the caller's Tensor is not touched
    (grad,) = ms.grad(lambda i: emb(i).sum(), grad_position=None, weights=emb.trainable_params())(
        T(np.array([1, 1, 2], np.int32)))
    # MindSpore 2.10 gives the padding row its gradient too (unlike PyTorch's padding_idx)
    np.testing.assert_array_equal(grad.asnumpy(), [[0, 0, 0], [2, 2, 2], [1, 1, 1], [0, 0, 0], [0, 0, 0]])
    assert not emb.embedding_table.asnumpy()[1].any()
    random = nn.Embedding(7, 2, padding_idx=6)
    np.testing.assert_array_equal(random.embedding_table.asnumpy()[6], [0, 0])


def test_embedding_default_table_is_normal_with_sigma_001(backend):
    ms.set_seed(1)
    table = nn.Embedding(1000, 10).embedding_table
    assert table.shape == (1000, 10) and table.dtype is ms.float32 and table.name == "embedding_table"
    values = table.asnumpy()
    assert abs(values.std() - 0.01) < 5e-4 and abs(values.mean()) < 5e-4
    ms.set_seed(1)
    np.testing.assert_array_equal(nn.Embedding(1000, 10).embedding_table.asnumpy(), values)


def test_embedding_dtype_does_not_change_the_table_dtype():
    # MindSpore 2.10: ``dtype`` is not the table's dtype; a float16 Tensor table keeps float16.
    assert nn.Embedding(5, 3, dtype=ms.float16).embedding_table.dtype is ms.float32
    assert nn.Embedding(5, 3, embedding_table=T(TABLE.astype(np.float16))).embedding_table.dtype is ms.float16


@pytest.mark.parametrize("use_one_hot", [False, True])
def test_embedding_table_gradient_matches_finite_differences(backend, use_one_hot):
    emb = nn.Embedding(5, 3, use_one_hot=use_one_hot,
                       embedding_table=T(np.random.default_rng(0).standard_normal((5, 3))))
    ids = T(np.array([[0, 4, 4], [2, 2, 1]], np.int64))
    check_param_grad(emb, [emb.embedding_table], ids)


def test_embedding_repr_matches_mindspore():
    assert repr(nn.Embedding(10, 3)) == (
        "Embedding(vocab_size=10, embedding_size=3, use_one_hot=False, embedding_table=Parameter "
        "(name=embedding_table, shape=(10, 3), dtype=Float32, requires_grad=True), dtype=Float32, padding_idx=None)"
    )
    assert repr(nn.Embedding(10, 3, use_one_hot=True, padding_idx=2)).endswith(
        "use_one_hot=True, embedding_table=Parameter (name=embedding_table, shape=(10, 3), dtype=Float32, "
        "requires_grad=True), dtype=Float32, padding_idx=2)")


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(vocab_size=5.0), TypeError, "vocab_size"),
    (dict(embedding_size="3"), TypeError, "embedding_size"),
    (dict(vocab_size=0), ValueError, "shape"),
    (dict(embedding_size=-3), ValueError, "shape"),
    (dict(use_one_hot=1), TypeError, "use_one_hot"),
    (dict(padding_idx=5), ValueError, "padding_idx"),
    (dict(padding_idx=-1), ValueError, "padding_idx"),
    (dict(padding_idx=1.0), TypeError, "padding_idx"),
    (dict(dtype=ms.bool_), TypeError, "dtype"),
    (dict(embedding_table=T(np.ones((4, 3), np.float32))), ValueError, "shape"),
])
def test_embedding_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    args = dict(vocab_size=5, embedding_size=3)
    args.update(kwargs)
    with pytest.raises(error, match=word):
        nn.Embedding(**args)


def test_embedding_refuses_float_ids(backend):
    with pytest.raises(TypeError, match="ids"):
        nn.Embedding(5, 3)(T(np.array([1.0, 3.0], np.float32)))
