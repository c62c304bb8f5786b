"""Complex tensors: dtypes, construction, printing, the strict device, and the complex ops' gradients.

The gradient of a real loss ``L`` at a complex ``z = x + iy`` is ``dL/dx + i dL/dy`` (MindSpore's
convention); the checks build complex inputs from two real tensors with ``ops.Complex``, so finite
differences perturb real numbers only.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import backend as _backend
from cellkit import ops
from tests.gradcheck import check_grad, check_second_order

RNG = np.random.default_rng(3)
A, B = RNG.standard_normal(4), RNG.standard_normal(4)


def test_complex_dtypes_are_mindspore_names():
    assert str(ms.complex64) == "Complex64" and repr(ms.complex128) == "mindspore.complex128"
    assert ms.dtype.to_dtype("complex64") is ms.complex64 and ms.dtype.to_dtype(complex) is ms.complex128
    assert ms.complex64.itemsize == 8 and not ms.complex64.is_floating_point


def test_complex_tensor_from_numpy_and_python(backend):
    z = ms.Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    assert z.dtype is ms.complex64 and z.asnumpy().tolist() == [1 + 2j, 3 - 1j]
    assert ms.Tensor(1 + 2j).dtype is ms.complex128
    assert ms.Tensor([1 + 2j, 3]).dtype is ms.complex128
    assert ms.Tensor([1, 2], dtype=ms.complex64).asnumpy().tolist() == [1, 2]


def test_complex_tensor_prints_like_mindspore():
    z = ms.Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    assert repr(z) == "Tensor(shape=[2], dtype=Complex64, value= [1+2j, 3-1j])"
    assert str(z) == "[1.+2.j 3.-1.j]"
    assert repr(ms.Tensor(np.array(1.5 + 2j, np.complex64))) == "Tensor(shape=[], dtype=Complex64, value= 1.5+2j)"
    m = ms.Tensor(np.array([[1.5 + 2j, 3 - 1j], [0, -2.25j]], np.complex128))
    assert repr(m) == "Tensor(shape=[2, 2], dtype=Complex128, value=\n[[1.5+2j, 3-1j],\n [0+0j, -0-2.25j]])"


def test_complex_ops_on_the_strict_device():
    values = np.array([[1 + 2j, -0.5 + 0.25j], [3 - 1j, 2j]], np.complex64)
    want = [ops.real(ms.Tensor(values)).asnumpy(), ops.angle(ms.Tensor(values)).asnumpy(),
            ops.fft2(ms.Tensor(values)).asnumpy(), ops.det(ms.Tensor(values)).asnumpy()]
    with _backend.use("strict"):
        z = ms.Tensor(values)
        got = [ops.real(z).asnumpy(), ops.angle(z).asnumpy(), ops.fft2(z).asnumpy(), ops.det(z).asnumpy()]
        assert repr(z).startswith("Tensor(shape=[2, 2], dtype=Complex64")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_complex_parts_of_real_tensors():
    x = ms.Tensor([1.0, -2.0])
    assert ops.real(x).asnumpy().tolist() == [1.0, -2.0] and ops.real(x) is not x
    assert ops.imag(x).asnumpy().tolist() == [0.0, 0.0]
    assert ops.conj(x) is x
    assert not ops.is_complex(x) and ops.is_complex(ms.Tensor([1j]))
    with pytest.raises(TypeError, match="'angle'.*Float32"):
        ops.angle(x)
    with pytest.raises(TypeError, match="'view_as_real'.*Float32"):
        ops.view_as_real(x)
    with pytest.raises(TypeError, match="'is_complex'"):
        ops.is_complex([1j])


GRAD_CASES = {
    "real": lambda a, b: ops.real(ops.Complex()(a, b)),
    "imag": lambda a, b: ops.imag(ops.Complex()(a, b)),
    "conj": lambda a, b: ops.imag(ops.conj(ops.Complex()(a, b))) + ops.real(ops.Complex()(a, b)),
    "angle": lambda a, b: ops.angle(ops.Complex()(a, b)),
    "complex_abs": lambda a, b: ops.ComplexAbs()(ops.Complex()(a, b)),
    "view_as_real": lambda a, b: ops.view_as_real(ops.Complex()(a, b)),
    "polar": lambda a, b: ops.view_as_real(ops.polar(ops.abs(a) + 0.5, b)),
    "norm": lambda a, b: ops.real(ops.vector_norm(ops.Complex()(a, b), 3)),  # complex-typed, as MindSpore's
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_complex_op_gradients(backend, name):
    check_grad(GRAD_CASES[name], A, B)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_complex_op_second_order(name):
    check_second_order(GRAD_CASES[name], A, B)


def test_complex_gradient_convention_is_mindspores():
    """grad of sum(p Re z + q Im z) at z is p + i q (the recorded MindSpore value, by hand)."""
    z = ms.Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    p, q = ms.Tensor([2.0, 5.0]), ms.Tensor([7.0, 11.0])
    g = ms.grad(lambda t: (ops.real(t) * p).sum() + (ops.imag(t) * q).sum())(z)
    assert g.dtype is ms.complex64 and g.asnumpy().tolist() == [2 + 7j, 5 + 11j]
