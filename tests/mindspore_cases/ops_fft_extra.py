"""Fourier-transform and complex-number cases the catalogue cannot state.

- gradients of transforms with complex outputs, through the real-valued function
  ``sum(real(y) * p + imag(y) * q)`` (the catalogue's probe weighs real outputs only), of real
  and of complex inputs (a complex input's gradient is ``dL/dRe + i dL/dIm``, as in MindSpore);
- dtype arguments of the windows and frequencies;
- complex Tensors themselves: construction, printing, casting.
"""
from . import CaseList

CASES = CaseList()

X5 = [0.5, -1.25, 2.0, 0.75, -0.5]
X23 = [[1.0, -0.5, 0.25], [0.75, 2.0, -1.5]]
P5 = [0.25, -0.75, 1.5, 0.5, -1.0]
Q5 = [1.0, 0.5, -0.25, -1.5, 0.75]


def _probe(ms, np, shape, seed):
    values = np.linspace(-1.5, 1.75, int(np.prod(shape))) * (1 if seed % 2 else -1)
    return ms.Tensor(np.roll(values, seed).reshape(shape).astype(np.float32))


def _weighted(ms, ops, np, y, seed=0):
    """``sum(real(y) * p + imag(y) * q)`` with fixed probes: a real function of a complex tensor."""
    shape = tuple(y.shape)
    if "Complex" not in str(y.dtype):  # a real output: one probe
        return (y * _probe(ms, np, shape, seed)).sum()
    return (ops.real(y) * _probe(ms, np, shape, seed)).sum() + (ops.imag(y) * _probe(ms, np, shape, seed + 1)).sum()


def _grad_case(name, call, shape=(5,), complex_input=False, **hints):
    def case(ms, ops, nn, np):
        x = ms.Tensor(np.linspace(-1.0, 1.5, int(np.prod(shape))).reshape(shape).astype(np.float32))
        if complex_input:
            y = ms.Tensor(np.linspace(0.5, -1.0, int(np.prod(shape))).reshape(shape).astype(np.float32))
            x = ops.Complex()(x, y)
        return ms.grad(lambda t: _weighted(ms, ops, np, call(ops, t)))(x)

    case.__name__ = case.__qualname__ = name
    CASES.case(rtol=1e-4, atol=1e-5, **hints)(case)


def _ihfft_gradient_expected(n=None, norm=None, shape=(5,), nd=False):
    """The gradient of ``sum(p Re(ihfft(x)) + q Im(ihfft(x)))`` by central differences in float64."""
    def expected(np):
        x = np.linspace(-1.0, 1.5, int(np.prod(shape))).reshape(shape)

        def probe(out_shape, seed):
            values = np.linspace(-1.5, 1.75, int(np.prod(out_shape))) * (1 if seed % 2 else -1)
            return np.roll(values, seed).reshape(out_shape).astype(np.float32).astype(np.float64)

        def loss(v):
            if nd:
                y = np.conj(np.fft.rfftn(v, axes=tuple(range(v.ndim)), norm="forward"))
            else:
                y = np.fft.ihfft(v, n=n, norm=norm)
            return (y.real * probe(y.shape, 0)).sum() + (y.imag * probe(y.shape, 1)).sum()

        grad = np.zeros(x.shape)
        for i in range(x.size):
            step = np.zeros(x.size)
            step[i] = 1e-6
            grad.reshape(-1)[i] = (loss(x + step.reshape(x.shape)) - loss(x - step.reshape(x.shape))) / 2e-6
        return grad.astype(np.float32)
    return expected


_IHFFT_WRONG = "MindSpore 2.10's gradient of ihfft comes out with its frequencies reversed (x[k] <-> x[-k])"

for _name, _call in {
    "fft": lambda ops, t: ops.fft(t),
    "fft_padded_ortho": lambda ops, t: ops.fft(t, n=7, norm="ortho"),
    "fft_cut_forward": lambda ops, t: ops.fft(t, n=3, norm="forward"),
    "ifft": lambda ops, t: ops.ifft(t),
    "ifft_padded": lambda ops, t: ops.ifft(t, n=8),
    "rfft": lambda ops, t: ops.rfft(t),
    "rfft_padded_ortho": lambda ops, t: ops.rfft(t, n=8, norm="ortho"),
    "rfft_cut": lambda ops, t: ops.rfft(t, n=4),
}.items():
    _grad_case(f"{_name}_gradient", _call)

_grad_case("ihfft_gradient", lambda ops, t: ops.ihfft(t), mindspore_wrong=True,
           expected=_ihfft_gradient_expected(), note=_IHFFT_WRONG)
_grad_case("ihfft_forward_gradient", lambda ops, t: ops.ihfft(t, norm="forward"), mindspore_wrong=True,
           expected=_ihfft_gradient_expected(norm="forward"), note=_IHFFT_WRONG)

for _name, _call in {
    "fft": lambda ops, t: ops.fft(t),
    "ifft_ortho": lambda ops, t: ops.ifft(t, norm="ortho"),
    "irfft": lambda ops, t: ops.irfft(t),
    "irfft_padded": lambda ops, t: ops.irfft(t, n=9),
    "hfft": lambda ops, t: ops.hfft(t),
    "hfft_cut": lambda ops, t: ops.hfft(t, n=5),
    "conj": lambda ops, t: ops.conj(t),
    "angle": lambda ops, t: ops.angle(t),
    "view_as_real": lambda ops, t: ops.view_as_real(t),
    "complex_abs": lambda ops, t: ops.ComplexAbs()(t),
    "imag": lambda ops, t: ops.imag(t),
}.items():
    _grad_case(f"{_name}_gradient_of_complex_input", _call, complex_input=True)

for _name, _call in {
    "fft2": lambda ops, t: ops.fft2(t),
    "fftn_sizes": lambda ops, t: ops.fftn(t, s=(3, 4)),
    "ifft2_ortho": lambda ops, t: ops.ifft2(t, norm="ortho"),
    "rfft2": lambda ops, t: ops.rfft2(t),
    "rfftn_sizes": lambda ops, t: ops.rfftn(t, s=(2, 4)),
    "irfft2": lambda ops, t: ops.irfft2(t),
    "hfft2": lambda ops, t: ops.hfft2(t),
}.items():
    _grad_case(f"{_name}_gradient", _call, shape=(2, 3))

for _name, _call in {"ihfft2": lambda ops, t: ops.ihfft2(t), "ihfftn": lambda ops, t: ops.ihfftn(t)}.items():
    _grad_case(f"{_name}_gradient", _call, shape=(2, 3), mindspore_wrong=True,
               expected=_ihfft_gradient_expected(shape=(2, 3), nd=True), note=_IHFFT_WRONG)


@CASES.case(rtol=1e-4, atol=1e-5)
def polar_gradient(ms, ops, nn, np):
    r = ms.Tensor(np.array([0.5, 1.25, 2.0], np.float32))
    theta = ms.Tensor(np.array([-1.0, 0.25, 2.5], np.float32))
    return ms.grad(lambda a, b: _weighted(ms, ops, np, ops.polar(a, b)), grad_position=(0, 1))(r, theta)


@CASES.case(rtol=1e-4, atol=1e-5)
def complex_primitive_gradient(ms, ops, nn, np):
    a = ms.Tensor(np.array([0.5, 1.25, 2.0], np.float32))
    b = ms.Tensor(np.array([-1.0, 0.25, 2.5], np.float32))
    return ms.grad(lambda x, y: _weighted(ms, ops, np, ops.Complex()(x, y)), grad_position=(0, 1))(a, b)


def _real_gradient_expected(np):
    return np.full((2, 3), 1.0, np.float32)


@CASES.case(mindspore_wrong=True, expected=_real_gradient_expected,
            note="the gradient of ops.real at a Float32 tensor comes back as Complex64 in MindSpore 2.10 "
                 "(a gradient has its input's dtype)")
def real_gradient_of_a_real_tensor(ms, ops, nn, np):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    return ms.grad(lambda t: ops.real(t).sum())(x)


# -- windows and frequencies with a dtype
@CASES.case
def windows_with_dtypes(ms, ops, nn, np):
    n = ms.Tensor(5, ms.int32)
    return (ops.bartlett_window(n, dtype=ms.float64), ops.blackman_window(n, False, dtype=ms.float64),
            ops.bartlett_window(n, dtype=ms.float16), ops.blackman_window(n, dtype=ms.float16),
            ops.hamming_window(5, dtype=ms.float64), ops.hann_window(5, dtype=ms.float32),
            ops.kaiser_window(5, False, 5.0, dtype=ms.float32))


def _window_float16(kind):
    def expected(np):
        length = 5
        i = np.arange(length)
        if kind == "hamming":
            w = 0.54 - 0.46 * np.cos(2 * np.pi * i / (length - 1))
        elif kind == "hann":
            w = 0.5 - 0.5 * np.cos(2 * np.pi * i / (length - 1))
        else:
            half = (length - 1) / 2
            w = np.i0(12.0 * np.sqrt(1 - ((i - half) / half) ** 2)) / np.i0(12.0)
        return w[:4].astype(np.float16)
    return expected


for _kind in ("hamming", "hann", "kaiser"):
    def _window_case(ms, ops, nn, np, kind=_kind):
        return getattr(ops, f"{kind}_window")(4, dtype=ms.float16)

    _window_case.__name__ = _window_case.__qualname__ = f"{_kind}_window_float16"
    CASES.case(_window_case, expected=_window_float16(_kind), rtol=2e-3, atol=1e-3)


@CASES.case
def window_dtype_must_be_float(ms, ops, nn, np):
    return ops.hann_window(5, dtype=ms.int32)


@CASES.case
def window_primitives(ms, ops, nn, np):
    return (ops.BartlettWindow(False, ms.float64)(ms.Tensor(4, ms.int64)),
            ops.BlackmanWindow()(ms.Tensor(6, ms.int32)),
            ops.HammingWindow(True, 0.5, 0.5, ms.float64)(ms.Tensor(np.array([5], np.int32))))


@CASES.case
def hamming_window_primitive_wants_a_1d_length(ms, ops, nn, np):
    return ops.HammingWindow()(ms.Tensor(5, ms.int32))


@CASES.case
def frequencies_with_dtypes(ms, ops, nn, np):
    return (ops.fftfreq(4, dtype=ms.float64), ops.fftfreq(4, 0.5, ms.int32), ops.rfftfreq(5, 2.0, ms.float64),
            ops.fftfreq(ms.Tensor(4)))


# -- Primitive forms
@CASES.case
def fft_with_size(ms, ops, nn, np):
    z = ms.Tensor(np.array([[1 + 1j, 2, -0.5j], [0.5, 1 - 1j, 2 + 0.5j]], np.complex64))
    x = ms.Tensor(np.array([[1.0, 2.0, 3.0, 0.5], [0.25, -1.0, 2.0, 1.5]], np.float32))
    half = ops.FFTWithSize(1, False, True)(x)
    return (ops.FFTWithSize(1, False, False)(z), ops.FFTWithSize(2, True, False, norm="ortho")(z),
            half, ops.FFTWithSize(2, False, True, norm="forward")(x),
            ops.FFTWithSize(1, True, True, signal_sizes=(4,))(half), ops.FFTWithSize(1, True, True)(half))


@CASES.case
def fft_with_size_refuses_real_input_to_fft(ms, ops, nn, np):
    return ops.FFTWithSize(1, False, False)(ms.Tensor(np.ones(4, np.float32)))


@CASES.case
def stft_primitive(ms, ops, nn, np):
    x = ms.Tensor(np.linspace(-1.0, 2.0, 12).astype(np.float32))
    window = ms.Tensor(np.array([0.5, 1.0, 1.0, 0.5], np.float32))
    return (ops.STFT(4, 2, 4, False, True, True)(x, window), ops.STFT(4, 3, 4, True, False, True)(x, window))


@CASES.case
def complex_primitives(ms, ops, nn, np):
    z = ms.Tensor(np.array([3 + 4j, -1j, 0.5 - 0.25j], np.complex64))
    a = ms.Tensor(np.array([1.0, -2.0], np.float64))
    return (ops.ComplexAbs()(z), ops.Complex()(a, a * 2), ops.Imag()(z), ops.Real()(z), ops.Conj()(z),
            ops.Angle()(z), ops.Polar()(a, a))


# -- complex tensors: construction, printing, casting
@CASES.case
def complex_tensor_repr_and_print(ms, ops, nn, np):
    z = ms.Tensor(np.array([1 + 2j, 3 - 1j, 0.5 - 0.25j], np.complex64))
    m = ms.Tensor(np.array([[1.5 + 2j, 3 - 1j], [0, -2.25j]], np.complex128))
    s = ms.Tensor(np.array(1.5 + 2j, np.complex64))
    long = ms.Tensor((np.arange(30) * 0.5 - 3 + 1j * np.arange(30)).astype(np.complex64))
    odd = ms.Tensor(np.array([1e-5 + 1e7j, np.nan + np.inf * 1j, 123456.789 - 0.000123j], np.complex64))
    return (repr(z), str(z), repr(m), str(m), repr(s), str(s), repr(long), repr(odd), str(z.dtype), repr(ms.complex128))


@CASES.case
def complex_tensor_construction(ms, ops, nn, np):
    return (ms.Tensor(1 + 2j), ms.Tensor([1 + 2j, 3]), ms.Tensor([1, 2], dtype=ms.complex64),
            ms.Tensor(np.array([1.0, 2.5]), dtype=ms.complex128), ms.Tensor(np.array([1 + 1j, 2.5])).dtype)


@CASES.case
def complex_tensor_cast_and_parts(ms, ops, nn, np):
    z = ms.Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    return (z.astype(ms.float32), z.astype(ms.complex128), z.real(), z.imag(), z.conj(), z.angle(),
            z.is_complex(), ms.Tensor([1.0]).is_complex(), z.asnumpy().dtype.name, z[1])


@CASES.case
def complex_arithmetic_of_one_dtype(ms, ops, nn, np):
    z = ms.Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    w = ms.Tensor(np.array([0.5 - 1j, 2 + 0.25j], np.complex64))
    return z + w, z - w, z * w, -z, ops.matmul(z, w), z.sum(), z == w
