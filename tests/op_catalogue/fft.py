"""Discrete Fourier transforms, frequencies, shifts, the STFT and window functions.

Most transforms return complex tensors, which the catalogue's gradient probe does not weigh; their
samples differentiate nothing here.  The transforms with real outputs (``irfft``, ``hfft`` and their
N-dimensional forms, the shifts) are differentiated here; the gradients of the others (the adjoint
transforms) are checked against finite differences and against MindSpore through real-valued
functions in ``tests/ops/test_fft_gradients.py`` and ``tests/mindspore_cases/ops_fft_extra.py``.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample


def C(values, dtype="complex64"):
    return np.array(values, dtype=dtype)


Z4 = C([1 + 1j, 2 - 0.5j, -0.5 + 2j, 0.25 - 1j])
Z23 = C([[1 + 1j, 2, -0.5 + 0.25j], [0.5 - 1j, -1 + 0.5j, 1.5 + 2j]])
X23 = Arr((2, 3))


def _transform_samples(real_output=False, half_input=False):
    """Samples for a one-dimensional transform: lengths, axes, normalisations, dtypes."""
    grad = (0,) if real_output else ()
    return (
        Sample((Arr((5,)),), grad=grad),
        Sample((Arr((4,)),), {"n": 6}, grad=grad, label="n_padded"),
        Sample((Arr((5,)),), {"n": 3, "norm": "ortho"}, grad=grad, label="n_cut_ortho"),
        Sample((X23,), {"dim": 0, "norm": "forward"}, grad=grad, label="dim0_forward"),
        Sample((Arr((4,), "int32", -3, 3),), label="int32"),
        Sample((Arr((4,), "float64"),), label="float64"),
        Sample((Arr((4,), "float16"),), label="float16"),
    )


def _complex_input(label="complex"):
    return Sample((Z4,), label=label)


def _bad_transform():
    return (Bad("bad_norm", (Arr((4,)),), {"norm": "xx"}), Bad("dim_out_of_range", (Arr((4,)),), {"dim": 1}),
            Bad("n_zero", (Arr((4,)),), {"n": 0}), Bad("bool", (Arr((4,), "bool"),)), Bad("zero_d", (Arr(()),)))


def _nd_samples(real_output=False, default_dims=True):
    grad = (0,) if real_output else ()
    # MindSpore 2.10 crashes (a segmentation fault) differentiating irfftn / hfftn given ``s``: those
    # samples differentiate nothing here (tests/ops/test_fft_gradients.py checks them).
    s_grad = grad if default_dims else ()
    samples = [
        Sample((X23,), grad=grad),
        Sample((X23,), {"s": (3, 4)}, grad=s_grad, label="s"),
        Sample((Arr((2, 2, 3)),), {"dim": (0, 2), "norm": "ortho"}, grad=grad, label="dims_ortho"),
        Sample((Arr((2, 3), "float64"),), label="float64"),
    ]
    if not default_dims:
        samples.append(Sample((X23,), {"s": (4,)}, grad=s_grad, label="s_only"))
    return tuple(samples)


def _bad_nd():
    return (Bad("duplicate_dims", (Arr((2, 3)),), {"dim": (0, 0)}),
            Bad("s_dim_mismatch", (Arr((2, 3)),), {"s": (3,), "dim": (0, 1)}),
            Bad("one_dim", (Arr((4,)),)))


def _np_fft(name):
    fn = getattr(np.fft, name)

    def ref(x, n=None, dim=-1, norm=None):
        return fn(x, n=n, axis=dim, norm=norm)
    return ref


def _np_nd(name, default_dims):
    fn = getattr(np.fft, name)

    def ref(x, s=None, dim=default_dims, norm=None):
        if dim is None and s is not None:
            dim = tuple(range(x.ndim - len(s), x.ndim))
        return fn(x, s=s, axes=dim, norm=norm)
    return ref


def _hfftn_ref(default_dims):
    def ref(x, s=None, dim=default_dims, norm=None):
        swap = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
        if dim is None:
            dim = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
        return np.fft.irfftn(np.conj(x), s=s, axes=dim, norm=swap)
    return ref


def _window_samples(tensor_length):
    length = (lambda n: np.array(n, np.int32)) if tensor_length else (lambda n: n)
    return (
        Sample((length(5),)),
        Sample((length(6), False), label="symmetric"),
        Sample((length(1),), label="length1"),
        Sample((length(0),), label="length0"),
    )


def _window_ref(kind):
    def ref(n, periodic=True, alpha=0.54, beta=0.46, dtype=None):
        n = int(n)
        if n <= 1:
            return np.ones(n)
        length = n + 1 if periodic else n
        i = np.arange(length)
        if kind == "bartlett":
            w = 1 - np.abs(2 * i / (length - 1) - 1)
        elif kind == "blackman":
            w = 0.42 - 0.5 * np.cos(2 * np.pi * i / (length - 1)) + 0.08 * np.cos(4 * np.pi * i / (length - 1))
        elif kind == "hamming":
            w = alpha - beta * np.cos(2 * np.pi * i / (length - 1))
        else:
            w = 0.5 - 0.5 * np.cos(2 * np.pi * i / (length - 1))
        return w[:n]
    return ref


def _kaiser_ref(n, periodic=True, beta=12.0, dtype=None):
    if n <= 1:
        return np.ones(n)
    length = n + 1 if periodic else n
    i = np.arange(length)
    half = (length - 1) / 2.0
    w = np.i0(beta * np.sqrt(1 - ((i - half) / half) ** 2)) / np.i0(beta)
    return w[:n]


OPS = [
    OpInfo("fft", _transform_samples() + (_complex_input(),), bad=_bad_transform()),
    OpInfo("ifft", _transform_samples() + (_complex_input(),), bad=_bad_transform()),
    OpInfo("rfft", _transform_samples() + (_complex_input("complex_input"),), bad=_bad_transform()),
    OpInfo("irfft", _transform_samples(real_output=True) + (_complex_input(),), ref=_np_fft("irfft"),
           bad=_bad_transform()),
    OpInfo("hfft", _transform_samples(real_output=True) + (_complex_input(),), ref=_np_fft("hfft"),
           bad=_bad_transform()),
    OpInfo("ihfft", _transform_samples() + (_complex_input("complex_input"),), bad=_bad_transform()),
    OpInfo("fft2", _nd_samples() + (Sample((Z23,), label="complex"),), bad=_bad_nd()),
    OpInfo("ifft2", _nd_samples() + (Sample((Z23,), label="complex"),), bad=_bad_nd()),
    OpInfo("fftn", _nd_samples(default_dims=False) + (Sample((Z23,), label="complex"),),
           bad=_bad_nd()[:2]),
    OpInfo("ifftn", _nd_samples(default_dims=False) + (Sample((Z23,), label="complex"),), bad=_bad_nd()[:2]),
    # MindSpore 2.10 takes complex input to rfft2 / ihfft2 too (undocumented), mixing up the output's
    # elements (rfft and ihfft give the first half of fft / ifft): no complex samples for those two.
    OpInfo("rfft2", _nd_samples(), bad=_bad_nd()),
    OpInfo("rfftn", _nd_samples(default_dims=False), bad=_bad_nd()[:2]),
    OpInfo("irfft2", _nd_samples(real_output=True) + (Sample((Z23,), label="complex"),),
           ref=_np_nd("irfft2", (-2, -1)), bad=_bad_nd()),
    OpInfo("irfftn", _nd_samples(real_output=True, default_dims=False) + (Sample((Z23,), label="complex"),),
           ref=_np_nd("irfftn", None), bad=_bad_nd()[:2]),
    OpInfo("hfft2", _nd_samples(real_output=True) + (Sample((Z23,), label="complex"),), ref=_hfftn_ref((-2, -1)),
           bad=_bad_nd()),
    OpInfo("hfftn", _nd_samples(real_output=True, default_dims=False) + (Sample((Z23,), label="complex"),),
           ref=_hfftn_ref(None), bad=_bad_nd()[:2]),
    OpInfo("ihfft2", _nd_samples(), bad=_bad_nd()),
    OpInfo("ihfftn", _nd_samples(default_dims=False), bad=_bad_nd()[:2]),
    OpInfo("fftfreq", (Sample((5,)), Sample((4, 0.5), label="spacing"), Sample((4,), {"dtype": None}, label="none")),
           ref=lambda n, d=1.0, dtype=None: np.fft.fftfreq(n, d),
           bad=(Bad("zero", (0,)), Bad("float_n", (4.0,)))),
    OpInfo("rfftfreq", (Sample((5,)), Sample((4, 0.5), label="spacing")),
           ref=lambda n, d=1.0, dtype=None: np.fft.rfftfreq(n, d),
           bad=(Bad("zero", (0,)),)),
    OpInfo("fftshift", (Sample((X23,), grad=(0,)),
                        Sample((Arr((2, 3)),), {"dim": 1}, grad=(0,), label="dim1"),
                        Sample((Arr((2, 3)),), {"dim": (0,)}, grad=(0,), label="dim_tuple"),
                        Sample((Arr((5,), "int64", -3, 3),), label="int64"),
                        Sample((Z4,), label="complex")),
           ref=lambda x, dim=None: np.fft.fftshift(x, dim),
           bad=(Bad("dim_out_of_range", (Arr((2, 3)),), {"dim": 2}),)),
    OpInfo("ifftshift", (Sample((X23,), grad=(0,)),
                         Sample((Arr((2, 3)),), {"dim": 1}, grad=(0,), label="dim1"),
                         Sample((Arr((5,), "int64", -3, 3),), label="int64")),
           ref=lambda x, dim=None: np.fft.ifftshift(x, dim),
           bad=(Bad("dim_out_of_range", (Arr((2, 3)),), {"dim": -3}),)),
    OpInfo("stft", (Sample((Arr((10,)), 4)),
                    Sample((Arr((10,)), 4), {"return_complex": True}, label="complex"),
                    Sample((Arr((10,)), 4, 2, None, np.array([0.5, 1.0, 1.0, 0.5], np.float32)),
                           {"return_complex": True}, label="window"),
                    Sample((Arr((10,)), 4), {"center": False, "return_complex": True}, label="no_center"),
                    Sample((Arr((10,)), 4), {"onesided": False, "return_complex": True}, label="two_sided"),
                    Sample((Arr((10,)), 4), {"normalized": True, "return_complex": True}, label="normalized"),
                    Sample((Arr((10,)), 4), {"win_length": 2, "return_complex": True}, label="short_window"),
                    Sample((Arr((2, 10)), 4), {"return_complex": True}, label="batch"),
                    Sample((Arr((10,)), 4), {"pad_mode": "CONSTANT", "return_complex": True}, label="constant"),
                    Sample((Arr((10,), "float64"), 4), {"return_complex": True}, label="float64"),
                    Sample((C(np.arange(10) * (1 + 0.5j) - 3), 4), label="complex_input")),
           primitive=None,
           bad=(Bad("lower_pad_mode", (Arr((10,)), 4), {"pad_mode": "reflect"}),
                Bad("three_dims", (Arr((2, 2, 10)), 4)))),
    OpInfo("bartlett_window", _window_samples(True) + (
               Sample((np.array(4, np.int32),), {"periodic": True}, label="int32_length"),
               Sample((np.array(5, np.int64), False), label="int64_length")),
           ref=_window_ref("bartlett"), method=None,
           primitive=lambda ops, n, periodic=True: ops.BartlettWindow(periodic)(n),
           bad=(Bad("python_int", (5,)), Bad("negative", (np.array(-1, np.int32),)),
                Bad("float_length", (np.array(4.0, np.float32),)), Bad("one_d", (np.array([4], np.int32),)))),
    OpInfo("blackman_window", _window_samples(True),
           ref=_window_ref("blackman"),
           primitive=lambda ops, n, periodic=True: ops.BlackmanWindow(periodic)(n),
           bad=(Bad("python_int", (5,)), Bad("negative", (np.array(-1, np.int32),)))),
    OpInfo("hamming_window", _window_samples(False) + (
               Sample((5, True, 0.5, 0.5), label="alpha_beta"),
               Sample((4,), {"dtype": None, "periodic": False}, label="keywords")),
           ref=_window_ref("hamming"),
           bad=(Bad("tensor_length", (np.array(5, np.int32),)), Bad("negative", (-1,)),
                Bad("int_alpha", (5, True, 1, 0.5)), Bad("int_periodic", (5, 1)))),
    OpInfo("hann_window", _window_samples(False),
           ref=_window_ref("hann"),
           bad=(Bad("tensor_length", (np.array(5, np.int32),)), Bad("negative", (-1,)), Bad("int_periodic", (5, 1)))),
    OpInfo("kaiser_window", _window_samples(False) + (Sample((5, True, 3.0), label="beta"),),
           ref=_kaiser_ref,
           bad=(Bad("tensor_length", (np.array(5, np.int32),)), Bad("negative", (-1,)), Bad("int_periodic", (5, 1)))),
]
