"""Gradients of the Fourier transforms, first and second order, against central finite differences.

Every transform is a linear map whose backward rule is its adjoint transform (``cellkit/ops/fft.py``),
so a gradient of a gradient runs the transforms again.  Complex outputs are read through the real
function ``sum(p * real(y) + q * imag(y))``; complex inputs are built from two real tensors with
``ops.Complex``, so the finite differences perturb real numbers.  NumPy and the strict device.
"""
import numpy as np
import pytest

from cellkit import ops
from tests.gradcheck import check_grad, check_second_order

RNG = np.random.default_rng(7)
X5 = RNG.standard_normal(5)
Y5 = RNG.standard_normal(5)
X23 = RNG.standard_normal((2, 3))
Y23 = RNG.standard_normal((2, 3))


def weigh(z):
    """A real tensor from a complex one (a real one passes): real + 0.7 imag."""
    return ops.real(z) + 0.7 * ops.imag(z) if z.dtype.kind == "complex" else z


def real_input(transform):
    return lambda x: weigh(transform(x))


def complex_input(transform):
    return lambda a, b: weigh(transform(ops.Complex()(a, b)))


ONE_D = {
    "fft": lambda t: ops.fft(t),
    "fft_n_ortho": lambda t: ops.fft(t, n=7, norm="ortho"),
    "fft_cut_forward": lambda t: ops.fft(t, n=3, norm="forward"),
    "ifft_padded": lambda t: ops.ifft(t, n=6),
    "rfft": lambda t: ops.rfft(t),
    "rfft_padded": lambda t: ops.rfft(t, n=8),
    "rfft_cut_ortho": lambda t: ops.rfft(t, n=3, norm="ortho"),
    "irfft": lambda t: ops.irfft(t),
    "irfft_n": lambda t: ops.irfft(t, n=5),
    "irfft_long_forward": lambda t: ops.irfft(t, n=13, norm="forward"),
    "hfft": lambda t: ops.hfft(t),
    "hfft_n_ortho": lambda t: ops.hfft(t, n=6, norm="ortho"),
    "ihfft": lambda t: ops.ihfft(t),
    "ihfft_n": lambda t: ops.ihfft(t, n=7, norm="forward"),
}

N_D = {
    "fft2": lambda t: ops.fft2(t),
    "fftn_s": lambda t: ops.fftn(t, s=(3, 4)),
    "ifftn_dim": lambda t: ops.ifftn(t, dim=(0,), norm="ortho"),
    "rfft2": lambda t: ops.rfft2(t),
    "rfftn_s": lambda t: ops.rfftn(t, s=(4, 3), norm="ortho"),
    "irfft2": lambda t: ops.irfft2(t),
    "irfftn_s": lambda t: ops.irfftn(t, s=(2, 5)),
    "hfft2": lambda t: ops.hfft2(t),
    "hfftn_s": lambda t: ops.hfftn(t, s=(3, 4), norm="forward"),
    "ihfft2": lambda t: ops.ihfft2(t),
    "ihfftn_s": lambda t: ops.ihfftn(t, s=(2, 4)),
    "fftshift": lambda t: ops.fftshift(t),
    "ifftshift_dim": lambda t: ops.ifftshift(t, 1),
}

REAL_ONLY = {"rfft", "rfft_padded", "rfft_cut_ortho", "ihfft", "ihfft_n", "rfft2", "rfftn_s", "ihfft2", "ihfftn_s"}


@pytest.mark.parametrize("name", sorted(ONE_D))
def test_fft_gradient_of_a_real_signal(backend, name):
    check_grad(real_input(ONE_D[name]), X5)


@pytest.mark.parametrize("name", sorted(set(ONE_D) - REAL_ONLY))
def test_fft_gradient_of_a_complex_signal(backend, name):
    check_grad(complex_input(ONE_D[name]), X5, Y5)


@pytest.mark.parametrize("name", sorted(N_D))
def test_fft_gradient_of_a_real_array(backend, name):
    check_grad(real_input(N_D[name]), X23)


@pytest.mark.parametrize("name", sorted(set(N_D) - REAL_ONLY))
def test_fft_gradient_of_a_complex_array(backend, name):
    check_grad(complex_input(N_D[name]), X23, Y23)


@pytest.mark.parametrize("name", sorted(ONE_D))
def test_fft_second_order(name):
    check_second_order(real_input(ONE_D[name]), X5)
    if name not in REAL_ONLY:
        check_second_order(complex_input(ONE_D[name]), X5, Y5)


@pytest.mark.parametrize("name", sorted(N_D))
def test_fft_second_order_of_arrays(name):
    check_second_order(real_input(N_D[name]), X23)


@pytest.mark.parametrize("kwargs", [{}, {"hop_length": 2, "center": False}, {"onesided": False, "normalized": True},
                                    {"win_length": 2, "pad_mode": "CONSTANT"}, {"pad_mode": "SYMMETRIC"}],
                         ids=["default", "no_center", "two_sided", "short_window", "symmetric"])
def test_fft_stft_gradient(backend, kwargs):
    x = RNG.standard_normal(10)
    check_grad(lambda t: ops.stft(t, 4, return_complex=False, **kwargs), x)


def test_fft_stft_gradient_of_the_window_and_second_order():
    x, w = RNG.standard_normal(10), RNG.standard_normal(4)
    fn = lambda t, win: weigh(ops.stft(t, 4, hop_length=2, window=win, return_complex=True))  # noqa: E731
    check_grad(fn, x, w)
    check_second_order(fn, x, w)
