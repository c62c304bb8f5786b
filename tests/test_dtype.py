"""dtype objects: names, printing, conversions and MindSpore's default dtypes."""
import pickle

import ml_dtypes
import numpy as np
import pytest

import cellkit as ms
from cellkit import dtype as dt

# name printed by str(), repr(), the NumPy dtype it maps to -- as MindSpore 2.10 prints them.
EXPECTED = [
    (ms.float16, "Float16", "mindspore.float16", np.float16),
    (ms.float32, "Float32", "mindspore.float32", np.float32),
    (ms.float64, "Float64", "mindspore.float64", np.float64),
    (ms.bfloat16, "BFloat16", "mindspore.bfloat16", ml_dtypes.bfloat16),
    (ms.int8, "Int8", "mindspore.int8", np.int8),
    (ms.int16, "Int16", "mindspore.int16", np.int16),
    (ms.int32, "Int32", "mindspore.int32", np.int32),
    (ms.int64, "Int64", "mindspore.int64", np.int64),
    (ms.uint8, "UInt8", "mindspore.uint8", np.uint8),
    (ms.bool_, "Bool", "mindspore.bool", np.bool_),
]


@pytest.mark.parametrize("dtype, text, representation, np_type", EXPECTED, ids=[e[1] for e in EXPECTED])
def test_dtype_prints_as_mindspore(dtype, text, representation, np_type):
    assert str(dtype) == text
    assert repr(dtype) == representation


@pytest.mark.parametrize("dtype, text, representation, np_type", EXPECTED, ids=[e[1] for e in EXPECTED])
def test_dtype_maps_to_numpy_and_back(dtype, text, representation, np_type):
    assert dtype.to_backend(np) == np.dtype(np_type)
    assert dt.to_dtype(np.dtype(np_type)) is dtype
    assert dt.dtype_of(np.zeros(2, dtype=np_type)) is dtype
    assert dtype.itemsize == np.dtype(np_type).itemsize


def test_dtype_aliases_match_mindspore():
    assert ms.float_ is ms.float32
    assert ms.half is ms.float16
    assert ms.single is ms.float32
    assert ms.double is ms.float64
    assert ms.int_ is ms.int64


@pytest.mark.parametrize("name, expected", [
    ("float32", ms.float32), ("Float32", ms.float32), ("mindspore.float32", ms.float32),
    ("int64", ms.int64), ("bool", ms.bool_), ("bool_", ms.bool_), ("bfloat16", ms.bfloat16),
    (float, ms.float32), (int, ms.int64), (bool, ms.bool_), (np.float16, ms.float16),
])
def test_dtype_to_dtype_accepts_names_and_types(name, expected):
    assert dt.to_dtype(name) is expected


@pytest.mark.parametrize("bad", ["float33", "Float", "complex32", "", np.clongdouble, object, 3, None])
def test_dtype_wrong_name_raises_type_error_listing_choices(bad):
    with pytest.raises(TypeError, match=r"dtype must be one of \[mindspore.float16.*but got"):
        dt.to_dtype(bad)


def test_dtype_wrong_name_in_tensor_and_astype_raises_type_error():
    with pytest.raises(TypeError, match="float33"):
        ms.Tensor([1.0], dtype="float33")
    with pytest.raises(TypeError, match="int33"):
        ms.Tensor([1.0]).astype("int33")


def test_dtype_is_floating_point_by_kind():
    assert ms.float16.is_floating_point and ms.bfloat16.is_floating_point
    assert not ms.int32.is_floating_point and not ms.bool_.is_floating_point


def test_dtype_float_type_promotes_ints_to_float32():
    assert dt.float_type(ms.int64) is ms.float32
    assert dt.float_type(ms.bool_) is ms.float32
    assert dt.float_type(ms.float64) is ms.float64


def test_dtype_pickle_keeps_singleton_identity():
    assert pickle.loads(pickle.dumps(ms.bfloat16)) is ms.bfloat16
    assert pickle.loads(pickle.dumps(ms.bool_)) is ms.bool_


def test_dtype_of_unsupported_array_raises_type_error():
    with pytest.raises(TypeError, match="complex256"):
        dt.dtype_of(np.zeros(2, dtype=np.clongdouble))


def test_dtype_complex_dtypes_are_supported():
    assert dt.dtype_of(np.zeros(2, dtype=np.complex128)) is ms.complex128
    assert dt.to_dtype("complex64") is ms.complex64 and dt.to_dtype(np.complex64) is ms.complex64


def test_dtype_bfloat16_only_on_numpy():
    import array_api_strict

    with pytest.raises(TypeError, match="bfloat16 is only supported on the NumPy backend"):
        ms.bfloat16.to_backend(array_api_strict)


@pytest.mark.parametrize("data, expected", [
    ([1, 2, 3], ms.int64),
    ([1.5], ms.float32),
    (2.5, ms.float32),
    (3, ms.int64),
    (True, ms.bool_),
    ([True, False], ms.bool_),
    ([1, 2.5], ms.float32),
    (np.array([1.0]), ms.float64),
    (np.array([1], dtype=np.int32), ms.int32),
    (np.float16(1.5), ms.float16),
    ((1, 2), ms.int64),
])
def test_dtype_defaults_of_tensor_follow_mindspore(data, expected):
    assert ms.Tensor(data).dtype is expected
