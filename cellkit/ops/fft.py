"""Discrete Fourier transforms, window functions and complex numbers.

Every transform is built from three linear ops and their adjoints, each the
other's backward rule (so gradients of every order come from the same
code, as convolution and its adjoints do in ``conv_grads.py``):

- ``_c2c``: a complex DFT over some axes (``fft``, ``ifft``, ``fftn`` ...);
  its adjoint is the opposite transform with the dual normalisation;
- ``_r2c``: the DFT of a real signal along one axis, keeping the
  non-negative frequencies (``rfft``); its adjoint ``_r2c_adjoint`` puts the
  half spectrum back in a full one, transforms back and keeps the real part;
- ``_c2r``: the real signal of a Hermitian half spectrum (``irfft``); its
  adjoint ``_c2r_adjoint`` is ``rfft`` with the non-edge bins doubled.

Each may first cut or zero-pad its input to the transform length and cut or
pad its output to a given length; the adjoint of cutting is padding, so
every op here has an adjoint of the same family.  The other transforms are
compositions: ``hfft(x) = irfft(conj(x))``, ``ihfft(x) = conj(rfft(x))`` with
the normalisation swapped, the N-dimensional real transforms a one-axis real
transform composed with a complex one over the other axes.

Complex gradients follow MindSpore's convention (PyTorch's too): for a real
loss ``L`` of a complex ``z = x + iy``, the gradient is ``dL/dx + i dL/dy``;
the gradient of a linear map is then its adjoint applied to the output's.

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.fft(ms.Tensor([1.0, 2.0, 3.0, 4.0])))
[10.+0.j -2.+2.j -2.+0.j -2.-2.j]
>>> print(ops.hann_window(4, dtype=ms.float32))
[0.  0.5 1.  0.5]
"""
from __future__ import annotations

import math as _pymath
import numbers
import sys as _sys

import numpy as np

from .. import autograd as _ag
from .. import backend as _backend
from .. import dtype as _dt
from ..tensor import Tensor, check_allocation
from ._core import OUTPUT, bool_arg, describe, dtype_arg, int_arg, normalize_axis, record, tensor_arg, wrap, xp
from . import linalg as _linalg
from . import norms as _norms
from .primitive import Primitive, prim_attr_register

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
    "stft", "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
    "real", "imag", "conj", "angle", "polar", "view_as_real", "is_complex",
    "FFTWithSize", "STFT", "BartlettWindow", "BlackmanWindow", "HammingWindow",
    "Complex", "ComplexAbs", "Real", "Imag", "Conj", "Angle", "Polar",
]

_C64, _C128 = _dt.complex64, _dt.complex128
_REAL_OF = {"complex64": _dt.float32, "complex128": _dt.float64}


# ------------------------------------------------------------------ complex numbers
def _complex_dtype_of(dtype):
    """The complex dtype a transform of ``dtype`` gives: Complex128 from Float64 / Complex128, else Complex64."""
    return _C128 if dtype in (_dt.float64, _C128) else _C64


def _real_dtype_of(dtype):
    return _dt.float64 if dtype in (_dt.float64, _C128) else _dt.float32


def is_complex(input):
    """True if ``input`` is a complex Tensor (Complex64 or Complex128).

    >>> import cellkit as ms
    >>> is_complex(ms.Tensor([1 + 2j])), is_complex(ms.Tensor([1.0]))
    (True, False)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'is_complex', 'input' must be a Tensor, but got {describe(input)}")
    return input.dtype.kind == "complex"


def real(input):
    """The real part of a complex tensor (a copy of a real one).

    >>> import cellkit as ms
    >>> print(real(ms.Tensor([1 + 2j, 3 - 1j])))
    [1. 3.]
    """
    t = tensor_arg(input, "input", "real")
    if t.dtype.kind != "complex":  # a copy (differentiable: the identity)
        out = xp().asarray(t._data, copy=True)
        if _ag._depth == 0 or t._node is None:
            return wrap(out)
        return record(out, "Real", _copy_rule, (t,))
    return _real_part(t)


def _copy_rule(m, node, g):
    return (g,)


def _real_part(t):
    out = xp().real(t._data)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Real", _real_rule, (t,), info=t._data.dtype)


def _real_rule(m, node, g):
    """Re is real-linear: its adjoint takes a real ``g`` to the complex ``g + 0i``."""
    return (m.call(_as_complex_array, _as_complex, g, node.info),)


def _as_complex_array(a, dtype):
    return xp().astype(a, dtype)


def _as_complex(t, dtype=None):
    """A real Tensor as a complex one (zero imaginary part); the gradient is the real part."""
    if dtype is None:
        dtype = _complex_dtype_of(t.dtype).to_backend(xp())
    out = xp().astype(t._data, dtype)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Cast", _as_complex_rule, (t,))


def _as_complex_rule(m, node, g):
    return (m.call(xp().real, _real_part, g),)


def imag(input):
    """The imaginary part of a complex tensor (zeros for a real one).

    >>> import cellkit as ms
    >>> print(imag(ms.Tensor([1 + 2j, 3 - 1j])))
    [ 2. -1.]
    """
    t = tensor_arg(input, "input", "imag")
    if t.dtype.kind != "complex":
        return wrap(xp().zeros_like(t._data))
    return _imag_part(t)


def _imag_part(t):
    out = xp().imag(t._data)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Imag", _imag_rule, (t,), info=t._data.dtype)


def _imag_rule(m, node, g):
    """Im's adjoint takes a real ``g`` to ``i g``."""
    return (m.call(_as_imaginary_array, _as_imaginary, g, node.info),)


def _as_imaginary_array(a, dtype):
    x = xp()
    return x.astype(a, dtype) * (1j if _backend._current.is_numpy else x.asarray(1j, dtype=dtype,
                                                                                  device=_backend._current.device))


def _as_imaginary(t, dtype):
    out = _as_imaginary_array(t._data, dtype)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Complex", _as_imaginary_rule, (t,))


def _as_imaginary_rule(m, node, g):
    return (m.call(xp().imag, _imag_part, g),)


def conj(input):
    """The complex conjugate (a real tensor is returned unchanged).

    >>> import cellkit as ms
    >>> print(conj(ms.Tensor([1 + 2j])))
    [1.-2.j]
    """
    t = tensor_arg(input, "input", "conj")
    if t.dtype is _dt.bool_:
        raise TypeError("For 'conj', 'input' of dtype Bool is not supported")
    if t.dtype.kind != "complex":
        return t
    out = xp().conj(t._data)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Conj", _conj_rule, (t,))


def _conj_rule(m, node, g):
    return (m.call(xp().conj, conj, g),)


def _complex_pair(re, im, op="Complex"):
    """``re + i im`` from two real Tensors of one float dtype and shape (a differentiable op)."""
    x = xp()
    dtype = _complex_dtype_of(re.dtype).to_backend(x)
    unit = 1j if _backend._current.is_numpy else x.asarray(1j, dtype=dtype, device=_backend._current.device)
    out = x.astype(re._data, dtype) + x.astype(im._data, dtype) * unit
    if _ag._depth == 0 or (re._node is None and im._node is None):
        return wrap(out)
    return record(out, op, _complex_pair_rule, (re, im))


def _complex_pair_rule(m, node, g):
    ga = m.call(xp().real, _real_part, g) if node.inputs[0] is not None else None
    gb = m.call(xp().imag, _imag_part, g) if node.inputs[1] is not None else None
    return ga, gb


def _float_pair(a, b, op, names):
    """Two Float32/Float64 Tensors of one dtype and one shape (MindSpore's Complex and Polar refuse the rest)."""
    ta, tb = tensor_arg(a, names[0], op), tensor_arg(b, names[1], op)
    for t, name in ((ta, names[0]), (tb, names[1])):
        if t.dtype not in (_dt.float32, _dt.float64):
            raise TypeError(f"For '{op}', '{name}' must be a Float32 or Float64 Tensor, but got {t.dtype}")
    if ta.dtype is not tb.dtype:
        raise TypeError(f"For '{op}', '{names[0]}' and '{names[1]}' must have the same dtype, but got "
                        f"{ta.dtype} and {tb.dtype}")
    if tuple(ta.shape) != tuple(tb.shape):
        raise ValueError(f"For '{op}', '{names[0]}' and '{names[1]}' must have the same shape, but got "
                         f"{tuple(ta.shape)} and {tuple(tb.shape)}")
    return ta, tb


def angle(input):
    """The argument (phase) of each complex element, in ``(-pi, pi]``; complex input only (as MindSpore).

    >>> import cellkit as ms
    >>> print(angle(ms.Tensor([1j])))
    [1.57079633]
    """
    t = tensor_arg(input, "input", "angle")
    if t.dtype.kind != "complex":
        raise TypeError(f"For 'angle', 'input' must be a Complex64 or Complex128 Tensor, but got {t.dtype}")
    x = xp()
    z = t._data
    out = x.atan2(x.imag(z), x.real(z)) if hasattr(x, "atan2") else x.arctan2(x.imag(z), x.real(z))
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Angle", _angle_rule, (t,), (z,), (0,))


def _angle_rule(m, node, g):
    """angle = atan2(y, x): d/dx = -y/r^2, d/dy = x/r^2, the gradient -y/r^2 g + i x/r^2 g."""
    (z,) = node.unpack(m)
    re = m.call(xp().real, _real_part, z)
    im = m.call(xp().imag, _imag_part, z)
    scale = g / (re * re + im * im)
    return (m.call(_complex_pair_array, _complex_pair, -im * scale, re * scale),)


def _complex_pair_array(a, b):
    x = xp()
    dtype = _complex_dtype_of(_dt.dtype_of(a)).to_backend(x)
    return x.astype(a, dtype) + _as_imaginary_array(b, dtype)


def _complex_abs(input, op="ComplexAbs"):
    """``|z|`` of a complex tensor, as a real tensor; the gradient is ``g z / |z|``."""
    t = tensor_arg(input, "x", op)
    if t.dtype.kind != "complex":
        raise TypeError(f"For '{op}', 'x' must be a Complex64 or Complex128 Tensor, but got {t.dtype}")
    z = t._data
    out = xp().abs(z)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "ComplexAbs", _complex_abs_rule, (t,), (z, out), (0, OUTPUT))


def _complex_abs_rule(m, node, g):
    z, size = node.unpack(m)
    scale = g / size
    return (m.call(_complex_pair_array, _complex_pair, m.call(xp().real, _real_part, z) * scale,
                   m.call(xp().imag, _imag_part, z) * scale),)


def polar(abs, angle):
    """``abs * (cos(angle) + i sin(angle))``: complex numbers from polar coordinates (Float32/Float64, one shape).

    >>> import cellkit as ms
    >>> print(polar(ms.Tensor([2.0]), ms.Tensor([0.0])))
    [2.+0.j]
    """
    from . import math as _math

    r, theta = _float_pair(abs, angle, "polar", ("abs", "angle"))
    return _complex_pair(_math.mul(r, _math.cos(theta)), _math.mul(r, _math.sin(theta)), "Polar")


def view_as_real(input):
    """A real tensor with a last axis of 2: the real and imaginary parts of a complex tensor.

    >>> import cellkit as ms
    >>> print(view_as_real(ms.Tensor([1 + 2j])))
    [[1. 2.]]
    """
    from .shape_ops import stack

    t = tensor_arg(input, "input", "view_as_real")
    if t.dtype.kind != "complex":
        raise TypeError(f"For 'view_as_real', the dtype of 'input' must be complex, but got {t.dtype}")
    return stack([_real_part(t), _imag_part(t)], -1)


# ------------------------------------------------------------------ transform arguments
_NORMS = ("backward", "forward", "ortho")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm_arg(norm, op):
    if norm is None:
        return "backward"
    if not isinstance(norm, str) or norm not in _NORMS:
        raise ValueError(f"For '{op}', 'norm' must be None, 'backward', 'forward' or 'ortho', but got {norm!r}")
    return norm


def _signal(input, op, real_only=False):
    """The input of a transform: a Tensor of at least one dimension, of a number dtype the transforms take."""
    t = tensor_arg(input, "input", op)
    dtype = t.dtype
    if dtype is _dt.bool_ or dtype is _dt.bfloat16 or dtype is _dt.uint8 or dtype is _dt.int8 or \
            (real_only and dtype.kind == "complex"):
        kinds = "an int16, int32, int64, float16, float32 or float64" + ("" if real_only else " or complex")
        raise TypeError(f"For '{op}', 'input' must be {kinds} Tensor, but got {dtype}")
    if t.ndim < 1 or t.ndim > 8:
        raise ValueError(f"For '{op}', the rank of 'input' must be in [1, 8], but got shape {tuple(t.shape)} "
                         f"({t.ndim} dimensions)")
    return t


def _as_real_float(t):
    """Int and Float16 signals are transformed in Float32 (MindSpore's result dtypes)."""
    if t.dtype in (_dt.float32, _dt.float64):
        return t
    from .creation import cast
    return cast(t, _dt.float32)


def _as_complex_signal(t):
    if t.dtype.kind == "complex":
        return t
    return _as_complex(_as_real_float(t))


def _length_arg(n, name, op):
    if n is None:
        return None
    return int_arg(n, name, op, minimum=1)


def _axis_list(dim, ndim, op):
    axes = tuple(normalize_axis(d, ndim, op, "dim") for d in dim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"For '{op}', 'dim' must hold unique dimensions, but got {tuple(dim)}")
    return axes


def _ints(value, name, op):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if not isinstance(value, (tuple, list)) or any(isinstance(v, bool) or not isinstance(v, (int, np.integer))
                                                   for v in value):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of ints, but got {describe(value)}")
    return tuple(int(v) for v in value)


def _nd_args(t, s, dim, op, default_dim):
    """``(axes, sizes-or-None)`` of an N-dimensional transform from its ``s`` and ``dim``."""
    ndim = t.ndim
    if s is not None:
        s = _ints(s, "s", op)
        for v in s:
            if v < 1:
                raise ValueError(f"For '{op}', 's' must hold lengths of at least 1, but got {s}")
    if dim is None:
        dim = default_dim if default_dim is not None else (
            tuple(range(ndim - len(s), ndim)) if s is not None else tuple(range(ndim)))
        if s is not None and default_dim is not None and len(s) != len(dim):
            raise ValueError(f"For '{op}', when given, 'dim' and 's' must have the same length, but got 's' {s} "
                             f"and 'dim' {tuple(dim)}")
    else:
        dim = _ints(dim, "dim", op)
        if s is not None and len(s) != len(dim):
            raise ValueError(f"For '{op}', when given, 'dim' and 's' must have the same length, but got 's' {s} "
                             f"and 'dim' {dim}")
    if s is not None and len(s) > ndim:
        raise ValueError(f"For '{op}', 's' {s} names more dimensions than 'input' has (shape {tuple(t.shape)})")
    axes = _axis_list(dim, ndim, op)
    if not axes:
        raise ValueError(f"For '{op}', 'dim' must name at least one dimension, but got {tuple(dim)!r}")
    return axes, s


def _check_size(shape, dtype, op):
    check_allocation(tuple(shape), dtype, op)


# ------------------------------------------------------------------ resizing (cut or zero-pad along axes)
def _resize(a, axes, sizes):
    """``a`` cut or zero-padded (at the end) to ``sizes`` along ``axes``."""
    x = xp()
    be = _backend._current
    for axis, n in zip(axes, sizes):
        current = a.shape[axis]
        if n < current:
            a = a[(slice(None),) * axis + (slice(0, n), Ellipsis)]
        elif n > current:
            pad_shape = list(a.shape)
            pad_shape[axis] = n - current
            zeros = np.zeros(pad_shape, dtype=a.dtype) if be.is_numpy else \
                x.zeros(tuple(pad_shape), dtype=a.dtype, device=be.device)
            a = x.concat([a, zeros], axis=axis)
    return a


def _scale(n, norm, inverse):
    """The factor a transform of length ``n`` multiplies by in normalisation ``norm``."""
    if norm == "ortho":
        return 1.0 / _pymath.sqrt(n)
    if (norm == "forward") != inverse:
        return 1.0 / n
    return 1.0


# ------------------------------------------------------------------ the three transforms and their adjoints
def _c2c_array(a, axes, sizes, inverse, norm, out_sizes):
    x = xp()
    a = _resize(a, axes, sizes)
    if len(axes) == 1:
        fn = x.fft.ifft if inverse else x.fft.fft
        out = fn(a, axis=axes[0], norm=norm)
    else:
        fn = x.fft.ifftn if inverse else x.fft.fftn
        out = fn(a, axes=axes, norm=norm)
    if out.dtype != a.dtype:
        out = x.astype(out, a.dtype)
    return _resize(out, axes, out_sizes)


def _c2c(t, axes, sizes, inverse, norm, out_sizes=None):
    """A complex DFT over ``axes`` of lengths ``sizes`` (the input cut or padded first), then cut or padded."""
    out_sizes = sizes if out_sizes is None else out_sizes
    out = _c2c_array(t._data, axes, sizes, inverse, norm, out_sizes)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    in_sizes = tuple(t.shape[a] for a in axes)
    return record(out, "IFFT" if inverse else "FFT", _c2c_rule, (t,),
                  info=(axes, sizes, inverse, norm, in_sizes))


def _c2c_rule(m, node, g):
    """The adjoint of a DFT is the opposite DFT with the dual normalisation (and the cuts become pads)."""
    axes, sizes, inverse, norm, in_sizes = node.info
    return (m.call(_c2c_array, _c2c, g, axes, sizes, not inverse, _DUAL[norm], in_sizes),)


def _r2c_array(a, axis, n, norm, out_len):
    x = xp()
    a = _resize(a, (axis,), (n,))
    out = x.fft.rfft(a, axis=axis, norm=norm)
    target = _complex_dtype_of(_dt.dtype_of(a)).to_backend(x)
    if out.dtype != target:
        out = x.astype(out, target)
    return _resize(out, (axis,), (out_len,))


def _r2c(t, axis, n, norm, out_len=None):
    """The DFT of a real signal along ``axis`` (cut or padded to ``n``): its ``n // 2 + 1`` non-negative frequencies."""
    out_len = n // 2 + 1 if out_len is None else out_len
    out = _r2c_array(t._data, axis, n, norm, out_len)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "RFFT", _r2c_rule, (t,), info=(axis, n, norm, t.shape[axis]))


def _r2c_rule(m, node, g):
    axis, n, norm, in_len = node.info
    return (m.call(_r2c_adjoint_array, _r2c_adjoint, g, axis, n, norm, in_len),)


def _r2c_adjoint_array(h, axis, n, norm, out_len):
    """Re(W^H h): the half spectrum ``h`` in a full one (zeros elsewhere), transformed back, the real part kept."""
    x = xp()
    full = _resize(_resize(h, (axis,), (n // 2 + 1,)), (axis,), (n,))
    back = x.fft.ifft(full, axis=axis, norm=_DUAL[norm])
    out = x.real(back)
    target = _real_dtype_of(_dt.dtype_of(h)).to_backend(x)
    if out.dtype != target:
        out = x.astype(out, target)
    return _resize(out, (axis,), (out_len,))


def _r2c_adjoint(t, axis, n, norm, out_len):
    out = _r2c_adjoint_array(t._data, axis, n, norm, out_len)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "RFFTGrad", _r2c_adjoint_rule, (t,), info=(axis, n, norm, t.shape[axis]))


def _r2c_adjoint_rule(m, node, g):
    axis, n, norm, in_len = node.info
    return (m.call(_r2c_array, _r2c, g, axis, n, norm, in_len),)


def _c2r_array(a, axis, n, norm, out_len):
    x = xp()
    a = _resize(a, (axis,), (n // 2 + 1,))
    out = x.fft.irfft(a, n=n, axis=axis, norm=norm)
    target = _real_dtype_of(_dt.dtype_of(a)).to_backend(x)
    if out.dtype != target:
        out = x.astype(out, target)
    return _resize(out, (axis,), (out_len,))


def _c2r(t, axis, n, norm, out_len=None):
    """The real signal of length ``n`` whose non-negative frequencies are ``t`` along ``axis`` (``irfft``)."""
    out_len = n if out_len is None else out_len
    out = _c2r_array(t._data, axis, n, norm, out_len)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "IRFFT", _c2r_rule, (t,), info=(axis, n, norm, t.shape[axis]))


def _c2r_rule(m, node, g):
    axis, n, norm, in_len = node.info
    return (m.call(_c2r_adjoint_array, _c2r_adjoint, g, axis, n, norm, in_len),)


def _edge_weights(n, axis, ndim, dtype):
    """2 for the bins an ``irfft`` of length ``n`` counts twice (their mirror images), 1 for 0 and n/2."""
    host = np.full(n // 2 + 1, 2.0)
    host[0] = 1.0
    if n % 2 == 0:
        host[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = n // 2 + 1
    return _backend._current.from_host(host.reshape(shape).astype(_dt.dtype_of_array_dtype(dtype).to_backend(np)))


def _c2r_adjoint_array(y, axis, n, norm, out_len):
    """The adjoint of ``irfft``: ``rfft`` with the dual normalisation, the bins that stand for two doubled."""
    x = xp()
    y = _resize(y, (axis,), (n,))
    spectrum = x.fft.rfft(y, axis=axis, norm=_DUAL[norm])
    target = _complex_dtype_of(_dt.dtype_of(y)).to_backend(x)
    if spectrum.dtype != target:
        spectrum = x.astype(spectrum, target)
    spectrum = spectrum * _edge_weights(n, axis, y.ndim, spectrum.dtype)
    return _resize(spectrum, (axis,), (out_len,))


def _c2r_adjoint(t, axis, n, norm, out_len):
    out = _c2r_adjoint_array(t._data, axis, n, norm, out_len)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "IRFFTGrad", _c2r_adjoint_rule, (t,), info=(axis, n, norm, t.shape[axis]))


def _c2r_adjoint_rule(m, node, g):
    axis, n, norm, in_len = node.info
    return (m.call(_c2r_array, _c2r, g, axis, n, norm, in_len),)


# ------------------------------------------------------------------ the public transforms
def _complex_transform(input, n, dim, norm, op, inverse, half=False):
    t = _signal(input, op)
    norm = _norm_arg(norm, op)
    n = _length_arg(n, "n", op)
    axis = normalize_axis(dim, t.ndim, op, "dim")
    n = t.shape[axis] if n is None else n
    out_shape = list(t.shape)
    out_shape[axis] = n // 2 + 1 if half else n
    _check_size(out_shape, _complex_dtype_of(t.dtype), op)
    z = _as_complex_signal(t)
    return _c2c(z, (axis,), (n,), inverse, norm, (out_shape[axis],))


def fft(input, n=None, dim=-1, norm=None):
    """The one-dimensional discrete Fourier transform along ``dim``.

    ``n`` cuts or zero-pads that axis first; ``norm`` is ``'backward'`` (the
    default: no scaling), ``'forward'`` (1/n) or ``'ortho'`` (1/sqrt(n)).
    Real input gives Complex64 (Complex128 from Float64).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.fft(ms.Tensor([1.0, 0.0, 0.0, 0.0])))
    [1.+0.j 1.+0.j 1.+0.j 1.+0.j]
    """
    return _complex_transform(input, n, dim, norm, "fft", False)


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`fft` (``norm='backward'`` divides by n).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ifft(ms.Tensor([4.0, 0.0, 0.0, 0.0])))
    [1.+0.j 1.+0.j 1.+0.j 1.+0.j]
    """
    return _complex_transform(input, n, dim, norm, "ifft", True)


def _complex_nd(input, s, dim, norm, op, inverse, default_dim):
    t = _signal(input, op)
    norm = _norm_arg(norm, op)
    axes, s = _nd_args(t, s, dim, op, default_dim)
    sizes = tuple(t.shape[a] for a in axes) if s is None else s
    out_shape = list(t.shape)
    for a, n in zip(axes, sizes):
        out_shape[a] = n
    _check_size(out_shape, _complex_dtype_of(t.dtype), op)
    return _c2c(_as_complex_signal(t), axes, sizes, inverse, norm)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional DFT over ``dim`` (the last two axes); ``s`` gives their lengths.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.fft2(ms.Tensor([[1.0, 0.0], [0.0, 0.0]])))
    [[1.+0.j 1.+0.j]
     [1.+0.j 1.+0.j]]
    """
    return _complex_nd(input, s, dim, norm, "fft2", False, (-2, -1))


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of :func:`fft2`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ifft2(ms.Tensor([[4.0, 0.0], [0.0, 0.0]])))
    [[1.+0.j 1.+0.j]
     [1.+0.j 1.+0.j]]
    """
    return _complex_nd(input, s, dim, norm, "ifft2", True, (-2, -1))


def fftn(input, s=None, dim=None, norm=None):
    """The N-dimensional DFT over ``dim`` (all axes, or the last ``len(s)``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.fftn(ms.Tensor([[1.0, 1.0], [1.0, 1.0]])))
    [[4.+0.j 0.+0.j]
     [0.+0.j 0.+0.j]]
    """
    return _complex_nd(input, s, dim, norm, "fftn", False, None)


def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of :func:`fftn`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ifftn(ms.Tensor([[4.0, 0.0], [0.0, 0.0]])))
    [[1.+0.j 1.+0.j]
     [1.+0.j 1.+0.j]]
    """
    return _complex_nd(input, s, dim, norm, "ifftn", True, None)


def rfft(input, n=None, dim=-1, norm=None):
    """The DFT of a real signal along ``dim``: its ``n // 2 + 1`` non-negative frequencies.

    (MindSpore 2.10 also takes complex input, returning the first
    ``n // 2 + 1`` terms of its full DFT; so does cellkit.)

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.rfft(ms.Tensor([1.0, 2.0, 3.0, 4.0])))
    [10.+0.j -2.+2.j -2.+0.j]
    """
    op = "rfft"
    t = _signal(input, op)
    if t.dtype.kind == "complex":
        return _complex_transform(t, n, dim, norm, op, False, half=True)
    norm = _norm_arg(norm, op)
    n = _length_arg(n, "n", op)
    axis = normalize_axis(dim, t.ndim, op, "dim")
    n = t.shape[axis] if n is None else n
    out_shape = list(t.shape)
    out_shape[axis] = n // 2 + 1
    _check_size(out_shape + [2], _complex_dtype_of(t.dtype), op)
    return _r2c(_as_real_float(t), axis, n, norm)


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`rfft`: a real signal of length ``n`` (default ``2 * (m - 1)``) from a half spectrum.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.irfft(ms.Tensor([10 + 0j, -2 + 2j, -2 + 0j])))
    [1. 2. 3. 4.]
    """
    op = "irfft"
    t = _signal(input, op)
    norm = _norm_arg(norm, op)
    n = _length_arg(n, "n", op)
    axis = normalize_axis(dim, t.ndim, op, "dim")
    n = 2 * (t.shape[axis] - 1) if n is None else n
    if n < 1:
        raise ValueError(f"For '{op}', the output length 2 * (m - 1) must be at least 1, but 'input' has "
                         f"{t.shape[axis]} elements along dim {axis} (shape {tuple(t.shape)})")
    out_shape = list(t.shape)
    out_shape[axis] = n
    _check_size(out_shape + [2], _real_dtype_of(t.dtype), op)
    return _c2r(_as_complex_signal(t), axis, n, norm)


def hfft(input, n=None, dim=-1, norm=None):
    """The DFT of a Hermitian-symmetric signal given by its first half: a real spectrum of length ``n``.

    ``hfft(x, n) = irfft(conj(x), n)`` with the normalisation swapped.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.hfft(ms.Tensor([1.0, 0.5])))
    [1.5 0.5]
    """
    op = "hfft"
    t = _signal(input, op)
    norm = _norm_arg(norm, op)
    n = _length_arg(n, "n", op)
    axis = normalize_axis(dim, t.ndim, op, "dim")
    n = 2 * (t.shape[axis] - 1) if n is None else n
    if n < 1:
        raise ValueError(f"For '{op}', the output length 2 * (m - 1) must be at least 1, but 'input' has "
                         f"{t.shape[axis]} elements along dim {axis} (shape {tuple(t.shape)})")
    out_shape = list(t.shape)
    out_shape[axis] = n
    _check_size(out_shape + [2], _real_dtype_of(t.dtype), op)
    return _c2r(conj(_as_complex_signal(t)), axis, n, _DUAL[norm])


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`hfft`: the first ``n // 2 + 1`` terms of the inverse DFT of a real signal.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ihfft(ms.Tensor([2.0, 0.0])))
    [1.-0.j 1.-0.j]
    """
    op = "ihfft"
    t = _signal(input, op)
    if t.dtype.kind == "complex":
        return _complex_transform(t, n, dim, norm, op, True, half=True)
    norm = _norm_arg(norm, op)
    n = _length_arg(n, "n", op)
    axis = normalize_axis(dim, t.ndim, op, "dim")
    n = t.shape[axis] if n is None else n
    out_shape = list(t.shape)
    out_shape[axis] = n // 2 + 1
    _check_size(out_shape + [2], _complex_dtype_of(t.dtype), op)
    return conj(_r2c(_as_real_float(t), axis, n, _DUAL[norm]))


def _real_nd(input, s, dim, norm, op, default_dim, swap=False):
    """rfftn (``swap``: ihfftn): the real transform along the last of ``dim``, complex DFTs along the others."""
    t = _signal(input, op)
    norm = _norm_arg(norm, op)
    axes, s = _nd_args(t, s, dim, op, default_dim)
    sizes = tuple(t.shape[a] for a in axes) if s is None else s
    out_shape = list(t.shape)
    for a, n in zip(axes, sizes):
        out_shape[a] = n
    out_shape[axes[-1]] = sizes[-1] // 2 + 1
    _check_size(out_shape + [2], _complex_dtype_of(t.dtype), op)
    if t.dtype.kind == "complex":  # MindSpore: the full transform, cut to the half spectrum
        half = list(sizes)
        half[-1] = sizes[-1] // 2 + 1
        return _c2c(t, axes, sizes, swap, norm, tuple(half))
    use = _DUAL[norm] if swap else norm
    out = _r2c(_as_real_float(t), axes[-1], sizes[-1], use)
    if len(axes) > 1:
        out = _c2c(out, axes[:-1], sizes[:-1], False, use)
    return conj(out) if swap else out


def _c2r_nd(input, s, dim, norm, op, default_dim, swap=False):
    """irfftn (``swap``: hfftn): complex inverse DFTs along all but the last of ``dim``, then the real one."""
    t = _signal(input, op)
    norm = _norm_arg(norm, op)
    axes, s = _nd_args(t, s, dim, op, default_dim)
    if s is None:
        sizes = tuple(t.shape[a] for a in axes[:-1]) + (2 * (t.shape[axes[-1]] - 1),)
    else:
        sizes = s
    if sizes[-1] < 1:
        raise ValueError(f"For '{op}', the output length 2 * (m - 1) must be at least 1, but 'input' has shape "
                         f"{tuple(t.shape)}")
    out_shape = list(t.shape)
    for a, n in zip(axes, sizes):
        out_shape[a] = n
    _check_size(out_shape + [2], _real_dtype_of(t.dtype), op)
    z = _as_complex_signal(t)
    use = _DUAL[norm] if swap else norm
    if swap:
        z = conj(z)
    if len(axes) > 1:
        z = _c2c(z, axes[:-1], sizes[:-1], True, use)
    return _c2r(z, axes[-1], sizes[-1], use)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional DFT of a real signal (the last axis halved).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.rfft2(ms.Tensor([[1.0, 2.0], [3.0, 4.0]])))
    [[10.+0.j -2.+0.j]
     [-4.+0.j  0.+0.j]]
    """
    return _real_nd(input, s, dim, norm, "rfft2", (-2, -1))


def rfftn(input, s=None, dim=None, norm=None):
    """The N-dimensional DFT of a real signal (the last transformed axis halved).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.rfftn(ms.Tensor([[1.0, 2.0], [3.0, 4.0]])))
    [[10.+0.j -2.+0.j]
     [-4.+0.j  0.+0.j]]
    """
    return _real_nd(input, s, dim, norm, "rfftn", None)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of :func:`rfft2`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.irfft2(ms.Tensor([[10 + 0j, -2 + 0j], [-4 + 0j, 0j]])))
    [[1. 2.]
     [3. 4.]]
    """
    return _c2r_nd(input, s, dim, norm, "irfft2", (-2, -1))


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of :func:`rfftn`; the last length defaults to ``2 * (m - 1)``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.irfftn(ms.Tensor([[10 + 0j, -2 + 0j], [-4 + 0j, 0j]])))
    [[1. 2.]
     [3. 4.]]
    """
    return _c2r_nd(input, s, dim, norm, "irfftn", None)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional :func:`hfft`: ``irfft2(conj(x))`` with the normalisation swapped.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.hfft2(ms.Tensor([[1.0, 0.5], [0.0, 0.0]])))
    [[1.5 0.5]
     [1.5 0.5]]
    """
    return _c2r_nd(input, s, dim, norm, "hfft2", (-2, -1), swap=True)


def hfftn(input, s=None, dim=None, norm=None):
    """The N-dimensional :func:`hfft`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.hfftn(ms.Tensor([[1.0, 0.5], [0.0, 0.0]])))
    [[1.5 0.5]
     [1.5 0.5]]
    """
    return _c2r_nd(input, s, dim, norm, "hfftn", None, swap=True)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of :func:`hfft2`: ``conj(rfft2(x))`` with the normalisation swapped.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ihfft2(ms.Tensor([[4.0, 0.0], [0.0, 0.0]])))
    [[1.-0.j 1.-0.j]
     [1.-0.j 1.-0.j]]
    """
    return _real_nd(input, s, dim, norm, "ihfft2", (-2, -1), swap=True)


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of :func:`hfftn`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ihfftn(ms.Tensor([[4.0, 0.0], [0.0, 0.0]])))
    [[1.-0.j 1.-0.j]
     [1.-0.j 1.-0.j]]
    """
    return _real_nd(input, s, dim, norm, "ihfftn", None, swap=True)


# ------------------------------------------------------------------ frequencies and shifts
def _frequencies(n, d, dtype, op, half):
    if isinstance(n, Tensor):
        if n.dtype.kind not in ("int", "uint") or n.size != 1:
            raise TypeError(f"For '{op}', 'n' must be an int (or a one-element integer Tensor), but got {describe(n)}")
        n = int(_backend._current.to_host(n._data).reshape(()))
    n = int_arg(n, "n", op, minimum=1)
    if isinstance(d, bool) or not isinstance(d, numbers.Real):
        raise TypeError(f"For '{op}', 'd' must be a float, but got {describe(d)}")
    target = _dt.float32 if dtype is None else dtype_arg(dtype, "dtype", op)
    length = n // 2 + 1 if half else n
    check_allocation((length,), target, op, given=f"'n' = {n}")
    host = np.fft.rfftfreq(n, float(d)) if half else np.fft.fftfreq(n, float(d))
    with np.errstate(all="ignore"):
        return wrap(_backend._current.from_host(host.astype(target.to_backend(np))))


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an ``n``-point DFT with sample spacing ``d``: ``[0, 1, ..., -1] / (d n)``.

    >>> print(fftfreq(4))
    [ 0.    0.25 -0.5  -0.25]
    """
    return _frequencies(n, d, dtype, "fftfreq", False)


def rfftfreq(n, d=1.0, dtype=None):
    """The non-negative sample frequencies of an ``n``-point :func:`rfft`: ``[0, ..., n // 2] / (d n)``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.rfftfreq(4))
    [0.   0.25 0.5 ]
    """
    return _frequencies(n, d, dtype, "rfftfreq", True)


def _shift_args(input, dim, op):
    t = tensor_arg(input, "input", op)
    if t.dtype.kind == "complex" or t.dtype is _dt.bool_ or t.dtype.kind in ("int", "uint", "float"):
        pass
    if dim is None:
        axes = tuple(range(t.ndim))
    else:
        axes = _axis_list(_ints(dim, "dim", op), max(t.ndim, 1), op) if t.ndim else ()
    return t, axes


def _roll(t, axes, forward, op):
    x = xp()
    shifts = tuple((t.shape[a] // 2) if forward else -(t.shape[a] // 2) for a in axes)
    out = x.roll(t._data, shifts, axis=axes) if axes else x.asarray(t._data, copy=True)
    if _ag._depth == 0 or t._node is None or not axes:
        return wrap(out)
    return record(out, "FFTShift" if forward else "IFFTShift", _roll_rule, (t,), info=(axes, forward))


def _roll_array(a, axes, forward):
    x = xp()
    shifts = tuple((a.shape[ax] // 2) if forward else -(a.shape[ax] // 2) for ax in axes)
    return x.roll(a, shifts, axis=axes)


def _roll_op(t, axes, forward):
    return _roll(t, axes, forward, "fftshift")


def _roll_rule(m, node, g):
    axes, forward = node.info
    return (m.call(_roll_array, _roll_op, g, axes, not forward),)


def fftshift(input, dim=None):
    """Move the zero frequency to the middle: roll each axis of ``dim`` (all by default) by half its length.

    >>> import cellkit as ms
    >>> print(fftshift(ms.Tensor([0, 1, 2, -2, -1])))
    [-2 -1  0  1  2]
    """
    t, axes = _shift_args(input, dim, "fftshift")
    return _roll(t, axes, True, "fftshift")


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ifftshift(ms.Tensor([-2, -1, 0, 1, 2])))
    [ 0  1  2 -2 -1]
    """
    t, axes = _shift_args(input, dim, "ifftshift")
    return _roll(t, axes, False, "ifftshift")


# ------------------------------------------------------------------ windows (computed on the host, then moved)
_WINDOW_LIMIT = 1000000


def _window_tensor_length(window_length, op):
    """Bartlett and Blackman take the length as a 0-d Int32/Int64 Tensor (as MindSpore)."""
    if not isinstance(window_length, Tensor):
        raise TypeError(f"For '{op}', 'window_length' must be a Tensor, but got {describe(window_length)}")
    if window_length.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"For '{op}', 'window_length' must be an Int32 or Int64 Tensor, but got {window_length.dtype}")
    if window_length.ndim != 0:
        raise ValueError(f"For '{op}', 'window_length' must be a 0-d Tensor, but got shape "
                         f"{tuple(window_length.shape)}")
    n = int(_backend._current.to_host(window_length._data))
    if not 0 <= n <= _WINDOW_LIMIT:
        raise ValueError(f"For '{op}', 'window_length' must be in [0, {_WINDOW_LIMIT}], but got {n}")
    return n


def _float_dtype(dtype, op, default):
    if dtype is None:
        return default
    target = dtype_arg(dtype, "dtype", op)
    if target not in (_dt.float16, _dt.float32, _dt.float64):
        raise TypeError(f"For '{op}', 'dtype' must be Float16, Float32 or Float64, but got {target}")
    return target


def _window(host, dtype):
    """A float64 host window as a Tensor of ``dtype`` on the current backend."""
    return wrap(_backend._current.from_host(np.ascontiguousarray(host.astype(dtype.to_backend(np)))))


def _cosine_sum(n, periodic, coefficients):
    """``sum_k (-1)^k a_k cos(2 pi k i / (N - 1))`` with N = n + 1 for a periodic window (then cut to n)."""
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    length = n + 1 if periodic else n
    i = np.arange(length)
    w = np.zeros(length)
    for k, a in enumerate(coefficients):
        w += (-1) ** k * a * np.cos(2 * np.pi * k * i / (length - 1))
    return w[:n]


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The triangular (Bartlett) window, ``1 - |2i / (N - 1) - 1|``; ``window_length`` is a 0-d int Tensor.

    >>> import cellkit as ms
    >>> print(bartlett_window(ms.Tensor(5, ms.int32), periodic=False))
    [0.  0.5 1.  0.5 0. ]
    """
    op = "bartlett_window"
    periodic = bool_arg(periodic, "periodic", op)
    target = _float_dtype(dtype, op, _dt.float32)
    n = _window_tensor_length(window_length, op)
    if n <= 1:
        return _window(np.ones(n), target)
    length = n + 1 if periodic else n
    i = np.arange(length)
    w = 1 - np.abs(2 * i / (length - 1) - 1)
    return _window(w[:n], target)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """The Blackman window ``0.42 - 0.5 cos(2 pi i / (N-1)) + 0.08 cos(4 pi i / (N-1))``; a 0-d int Tensor length.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.blackman_window(ms.Tensor(3, ms.int32), periodic=False))
    [ 0.0000000e+00  1.0000000e+00 -1.3877788e-17]
    """
    op = "blackman_window"
    periodic = bool_arg(periodic, "periodic", op)
    target = _float_dtype(dtype, op, _dt.float32)
    n = _window_tensor_length(window_length, op)
    w = _cosine_sum(n, periodic, (0.42, 0.5, 0.08))
    if n > 1:
        w[0] = 0.0 if abs(w[0]) < 1e-12 else w[0]  # the formula's 0.42 - 0.5 + 0.08 is 0 exactly
    return _window(w, target)


def _int_length(window_length, op):
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"For '{op}', 'window_length' must be a non-negative int, but got {describe(window_length)}")
    n = int(window_length)
    if n < 0:
        raise ValueError(f"For '{op}', 'window_length' must be a non-negative int, but got {n}")
    check_allocation((n,), _dt.float64, op)
    return n


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """The Hamming window ``alpha - beta cos(2 pi i / (N - 1))`` (Float32 by default).

    A length of 0 or 1 gives Float64 ones, as in MindSpore.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.hamming_window(3, periodic=False))
    [0.08 1.   0.08]
    """
    op = "hamming_window"
    n = _int_length(window_length, op)
    periodic = bool_arg(periodic, "periodic", op)
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, float):
            raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
    if n <= 1:
        return _window(np.ones(n), _dt.float64)
    target = _float_dtype(dtype, op, _dt.float32)
    return _window(_cosine_sum(n, periodic, (alpha, beta)), target)


def hann_window(window_length, periodic=True, *, dtype=None):
    """The Hann window ``0.5 - 0.5 cos(2 pi i / (N - 1))`` (Float64 by default, as in MindSpore).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.hann_window(3, periodic=False))
    [0. 1. 0.]
    """
    op = "hann_window"
    n = _int_length(window_length, op)
    if n <= 1:
        return _window(np.ones(n), _dt.float64)
    periodic = bool_arg(periodic, "periodic", op)
    target = _float_dtype(dtype, op, _dt.float64)
    return _window(_cosine_sum(n, periodic, (0.5, 0.5)), target)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """The Kaiser window ``I0(beta sqrt(1 - (2i/(N-1) - 1)^2)) / I0(beta)`` (Float64 by default).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.kaiser_window(3, periodic=False, beta=0.0))
    [1. 1. 1.]
    """
    op = "kaiser_window"
    if not isinstance(periodic, bool):
        raise TypeError(f"For '{op}', 'periodic' must be a bool, but got {describe(periodic)}")
    n = _int_length(window_length, op)
    if n <= 1:
        return _window(np.ones(n), _dt.float64)
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"For '{op}', 'beta' must be a float, but got {describe(beta)}")
    target = _float_dtype(dtype, op, _dt.float64)
    length = n + 1 if periodic else n
    i = np.arange(length)
    half = (length - 1) / 2.0
    with np.errstate(all="ignore"):
        w = np.i0(beta * np.sqrt(np.clip(1 - ((i - half) / half) ** 2, 0, None))) / np.i0(float(beta))
    return _window(w[:n], target)


# ------------------------------------------------------------------ short-time Fourier transform
_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _pad_signal(t, n_fft, mode):
    """``t`` padded by ``n_fft // 2`` on both ends of its last axis (reflect / symmetric / zeros), differentiably."""
    pad = n_fft // 2
    from .shape_ops import getitem

    length = t.shape[-1]
    if mode == "CONSTANT":
        return _pad_by_index(t, np.concatenate([np.full(pad, -1), np.arange(length), np.full(pad, -1)]))
    if mode == "REFLECT":
        if pad >= length:
            raise ValueError(f"For 'stft', REFLECT padding of n_fft // 2 = {pad} ('n_fft' = {n_fft}) needs a signal "
                             f"longer than {pad}, but 'x' of shape {tuple(t.shape)} has {length} samples")
        index = np.concatenate([np.arange(pad, 0, -1), np.arange(length), np.arange(length - 2, length - 2 - pad, -1)])
    else:
        if pad > length:
            raise ValueError(f"For 'stft', SYMMETRIC padding of n_fft // 2 = {pad} ('n_fft' = {n_fft}) needs at "
                             f"least {pad} samples, but 'x' of shape {tuple(t.shape)} has {length}")
        index = np.concatenate([np.arange(pad - 1, -1, -1), np.arange(length),
                                np.arange(length - 1, length - 1 - pad, -1)])
    return getitem(t, (Ellipsis, _index_tensor(index)))


def _pad_by_index(t, index):
    """Zero padding as a pick from ``t`` with one zero appended (index -1 picks the zero)."""
    from .shape_ops import concat, getitem
    from .creation import zeros_like

    zero = getitem(zeros_like(t), (Ellipsis, slice(0, 1)))
    extended = concat([t, zero], -1)
    return getitem(extended, (Ellipsis, _index_tensor(index)))


def _index_tensor(index):
    return wrap(_backend._current.from_host(np.asarray(index, dtype=np.int64)))


def _stft(x, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, op):
    from . import math as _math
    from .shape_ops import getitem, stack, swapaxes

    signal_length = x.shape[-1]
    if n_fft > signal_length:
        raise ValueError(f"For '{op}', 'n_fft' ({n_fft}) must not exceed the length of the (padded) signal, "
                         f"{signal_length} samples (shape {tuple(x.shape)})")
    frames = 1 + (signal_length - n_fft) // hop_length
    check_allocation(tuple(x.shape[:-1]) + (frames, n_fft, 2), _C128, op)
    index = np.arange(n_fft)[None, :] + hop_length * np.arange(frames)[:, None]
    framed = getitem(x, (Ellipsis, _index_tensor(index)))   # (..., T, n_fft)
    left = (n_fft - win_length) // 2
    if win_length < n_fft:
        window = _pad_by_index(window, np.concatenate([np.full(left, -1), np.arange(win_length),
                                                       np.full(n_fft - win_length - left, -1)]))
    if window.dtype.kind == "complex" or framed.dtype.kind == "complex":
        framed = _as_complex_signal(framed) if framed.dtype.kind != "complex" else framed
        window = _as_complex_signal(window) if window.dtype.kind != "complex" else window
        if framed.dtype is not window.dtype:
            wide = _C128
            framed = _promote_complex(framed, wide)
            window = _promote_complex(window, wide)
    elif framed.dtype is not window.dtype:
        from .creation import cast
        wide = _dt.float64 if _dt.float64 in (framed.dtype, window.dtype) else _dt.float32
        framed, window = cast(framed, wide), cast(window, wide)
    weighted = _math.mul(framed, window)
    norm = "ortho" if normalized else "backward"
    axis = weighted.ndim - 1
    if onesided and weighted.dtype.kind != "complex":
        spectrum = _r2c(weighted, axis, n_fft, norm)
    else:
        z = _as_complex_signal(weighted)
        spectrum = _c2c(z, (axis,), (n_fft,), False, norm,
                        ((n_fft // 2 + 1) if onesided else n_fft,))
    spectrum = swapaxes(spectrum, -1, -2)   # (..., N, T)
    if return_complex:
        return spectrum
    return stack([_real_part(spectrum), _imag_part(spectrum)], -1)


def _promote_complex(t, target):
    from .creation import cast
    return t if t.dtype is target else cast(t, target)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform: the DFT of windowed frames of ``x`` (1-D, or 2-D with a batch axis).

    Frames of ``n_fft`` samples start every ``hop_length`` (``n_fft // 4``)
    samples; ``window`` (ones of ``win_length`` = ``n_fft`` samples by
    default) is zero-padded to ``n_fft`` about its middle.  ``center`` pads
    ``x`` by ``n_fft // 2`` on both ends first (``pad_mode`` ``'REFLECT'``,
    ``'CONSTANT'`` or ``'SYMMETRIC'``).  The result is (..., N, T), N =
    ``n_fft // 2 + 1`` if ``onesided`` (the default for real input) else
    ``n_fft``; complex if ``return_complex`` (the default for complex input),
    else real with a last axis of 2.  Differentiable (composed of
    differentiable ops; MindSpore 2.10 has no gradient for it).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.stft(ms.Tensor([1.0, 2.0, 3.0, 4.0]), 2, hop_length=1, center=False, return_complex=True))
    [[ 3.+0.j  5.+0.j  7.+0.j]
     [-1.+0.j -1.+0.j -1.+0.j]]
    """
    op = "stft"
    t = tensor_arg(x, "x", op)
    if t.ndim not in (1, 2):
        raise ValueError(f"For '{op}', 'x' must be a 1-D or 2-D Tensor, but got shape {tuple(t.shape)}")
    if t.dtype not in (_dt.float32, _dt.float64, _C64, _C128):
        raise TypeError(f"For '{op}', 'x' must be a Float32, Float64 or complex Tensor, but got {t.dtype}")
    n_fft = int_arg(n_fft, "n_fft", op, minimum=1)
    hop_length = n_fft // 4 if hop_length is None else int_arg(hop_length, "hop_length", op, minimum=1)
    if hop_length < 1:
        raise ValueError(f"For '{op}', 'hop_length' must be at least 1, but n_fft // 4 is {hop_length}")
    win_length = n_fft if win_length is None else int_arg(win_length, "win_length", op, minimum=1)
    if win_length > n_fft:
        raise ValueError(f"For '{op}', 'win_length' ({win_length}) must not exceed 'n_fft' ({n_fft})")
    padded = t.shape[-1] + (2 * (n_fft // 2) if center else 0)
    check_allocation(tuple(t.shape[:-1]) + (max(padded, n_fft),), _C128, op, given=f"'n_fft' = {n_fft}")
    for name, flag in (("center", center), ("normalized", normalized)):
        bool_arg(flag, name, op)
    if not isinstance(pad_mode, str):
        raise TypeError(f"For '{op}', 'pad_mode' must be a str, but got {describe(pad_mode)}")
    if pad_mode not in _PAD_MODES:
        raise ValueError(f"For '{op}', 'pad_mode' must be one of {list(_PAD_MODES)}, but got {pad_mode!r}")
    if window is None:
        window = wrap(_backend._current.from_host(np.ones(win_length, dtype=np.float32)))
    else:
        window = tensor_arg(window, "window", op)
        if window.ndim != 1 or window.shape[0] != win_length:
            raise TypeError(f"For '{op}', 'window' must be a 1-D Tensor of {win_length} samples, but got shape "
                            f"{tuple(window.shape)}")
        if window.dtype not in (_dt.float32, _dt.float64, _C64, _C128):
            raise TypeError(f"For '{op}', 'window' must be a Float32, Float64 or complex Tensor, but got "
                            f"{window.dtype}")
    complex_input = t.dtype.kind == "complex" or window.dtype.kind == "complex"
    onesided = (not complex_input) if onesided is None else bool_arg(onesided, "onesided", op)
    return_complex = complex_input if return_complex is None else bool_arg(return_complex, "return_complex", op)
    if onesided and complex_input:
        raise ValueError(f"For '{op}', 'onesided' must be False for complex input")
    if center:
        t = _pad_signal(t, n_fft, pad_mode)
    return _stft(t, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, op)


# ------------------------------------------------------------------ Primitives
class FFTWithSize(Primitive):
    """``FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True, signal_sizes=())(x)``.

    The last ``signal_ndim`` axes: ``fftn`` / ``ifftn`` of complex input
    (``real=False``), ``rfftn`` (``real``, forward; ``onesided=False`` keeps
    the full spectrum), ``irfftn`` (``real``, ``inverse``; ``signal_sizes``
    gives the output lengths).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.FFTWithSize(1, False, True)(ms.Tensor([1.0, 2.0, 3.0, 4.0])))
    [10.+0.j -2.+2.j -2.+0.j]
    """

    @prim_attr_register
    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=()):
        op = "FFTWithSize"
        int_arg(signal_ndim, "signal_ndim", op, minimum=1, maximum=3)
        for name, flag in (("inverse", inverse), ("real", real), ("onesided", onesided)):
            bool_arg(flag, name, op)
        _norm_arg(norm, op)
        if not isinstance(signal_sizes, (tuple, list)):
            raise TypeError(f"For '{op}', 'signal_sizes' must be a tuple of ints, but got {describe(signal_sizes)}")

    def __call__(self, x):
        op = "FFTWithSize"
        t = _signal(x, op)
        if t.ndim < self.signal_ndim:
            raise ValueError(f"For '{op}', 'x' must have at least signal_ndim={self.signal_ndim} dimensions, but got "
                             f"shape {tuple(t.shape)}")
        axes = tuple(range(t.ndim - self.signal_ndim, t.ndim))
        norm = self.norm
        if not self.real:
            if t.dtype.kind != "complex":
                raise TypeError(f"For '{op}', 'x' in fft/ifft mode must be Complex64 or Complex128, but got {t.dtype}")
            return _c2c(t, axes, tuple(t.shape[a] for a in axes), self.inverse, norm)
        if not self.inverse:
            if t.dtype.kind == "complex":
                raise TypeError(f"For '{op}', 'x' in rfft mode must be real, but got {t.dtype}")
            if not self.onesided:
                return _c2c(_as_complex_signal(t), axes, tuple(t.shape[a] for a in axes), False, norm)
            return rfftn(t, dim=axes, norm=norm)
        if t.dtype.kind != "complex":
            raise TypeError(f"For '{op}', 'x' in irfft mode must be Complex64 or Complex128, but got {t.dtype}")
        sizes = tuple(self.signal_sizes) if self.signal_sizes else None
        if sizes is not None and len(sizes) != self.signal_ndim:
            raise ValueError(f"For '{op}', 'signal_sizes' must hold {self.signal_ndim} lengths, but got {sizes}")
        return irfftn(t, s=sizes, dim=axes, norm=norm)


class STFT(Primitive):
    """``STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window)``: no centring.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.STFT(2, 2, 2, False, True, True)(ms.Tensor([1.0, 2.0, 3.0, 4.0]), ms.Tensor([1.0, 1.0])))
    [[ 3.+0.j  7.+0.j]
     [-1.+0.j -1.+0.j]]
    """

    @prim_attr_register
    def __init__(self, n_fft, hop_length, win_length, normalized, onesided, return_complex):
        op = "STFT"
        for name, value in (("n_fft", n_fft), ("hop_length", hop_length), ("win_length", win_length)):
            int_arg(value, name, op, minimum=1)
        for name, flag in (("normalized", normalized), ("onesided", onesided), ("return_complex", return_complex)):
            bool_arg(flag, name, op)

    def __call__(self, x, window):
        return stft(x, self.n_fft, self.hop_length, self.win_length, window, False, "CONSTANT", self.normalized,
                    self.onesided, self.return_complex)


class BartlettWindow(Primitive):
    """``BartlettWindow(periodic=True, dtype=mindspore.float32)(window_length)``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.BartlettWindow(False)(ms.Tensor(3, ms.int32)))
    [0. 1. 0.]
    """

    @prim_attr_register
    def __init__(self, periodic=True, dtype=_dt.float32):
        bool_arg(periodic, "periodic", "BartlettWindow")
        _float_dtype(dtype, "BartlettWindow", _dt.float32)

    def __call__(self, window_length):
        return bartlett_window(window_length, self.periodic, dtype=self.dtype)


class BlackmanWindow(Primitive):
    """``BlackmanWindow(periodic=True, dtype=mindspore.float32)(window_length)``.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.BlackmanWindow(False)(ms.Tensor(3, ms.int32)))
    [ 0.0000000e+00  1.0000000e+00 -1.3877788e-17]
    """

    @prim_attr_register
    def __init__(self, periodic=True, dtype=_dt.float32):
        bool_arg(periodic, "periodic", "BlackmanWindow")
        _float_dtype(dtype, "BlackmanWindow", _dt.float32)

    def __call__(self, window_length):
        return blackman_window(window_length, self.periodic, dtype=self.dtype)


class HammingWindow(Primitive):
    """``HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=mindspore.float32)(length)``, length 1-D.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.HammingWindow(False)(ms.Tensor([3], ms.int32)))
    [0.08 1.   0.08]
    """

    @prim_attr_register
    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=_dt.float32):
        op = "HammingWindow"
        bool_arg(periodic, "periodic", op)
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not isinstance(value, float):
                raise TypeError(f"For '{op}', '{name}' must be a float, but got {describe(value)}")
        _float_dtype(dtype, op, _dt.float32)

    def __call__(self, length):
        op = "HammingWindow"
        if not isinstance(length, Tensor):
            raise TypeError(f"For '{op}', 'length' must be a Tensor, but got {describe(length)}")
        if length.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"For '{op}', 'length' must be an Int32 or Int64 Tensor, but got {length.dtype}")
        if length.ndim != 1 or length.shape[0] != 1:
            raise ValueError(f"For '{op}', 'length' must be a 1-D Tensor of one element, but got shape "
                             f"{tuple(length.shape)}")
        n = int(_backend._current.to_host(length._data)[0])
        if not 0 <= n <= _WINDOW_LIMIT:
            raise ValueError(f"For '{op}', 'length' must be in [0, {_WINDOW_LIMIT}], but got {n}")
        target = _float_dtype(self.dtype, op, _dt.float32)
        return _window(_cosine_sum(n, self.periodic, (self.alpha, self.beta)), target)


class Complex(Primitive):
    """``Complex()(real, imag)``: ``real + i imag`` from two Float32/Float64 tensors of one shape.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Complex()(ms.Tensor([1.0]), ms.Tensor([2.0])))
    [1.+2.j]
    """

    def __call__(self, real, imag):
        re, im = _float_pair(real, imag, "Complex", ("real", "imag"))
        return _complex_pair(re, im)


class ComplexAbs(Primitive):
    """``ComplexAbs()(x)``: ``|x|`` of a complex tensor, as a real tensor.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.ComplexAbs()(ms.Tensor([3 + 4j])))
    [5.]
    """

    def __call__(self, x):
        return _complex_abs(x)


class Real(Primitive):
    """``Real()(input)``: see :func:`real`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Real()(ms.Tensor([3 + 4j])))
    [3.]
    """

    def __call__(self, input):
        return real(input)


class Imag(Primitive):
    """``Imag()(input)``: see :func:`imag`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Imag()(ms.Tensor([3 + 4j])))
    [4.]
    """

    def __call__(self, input):
        return imag(input)


class Conj(Primitive):
    """``Conj()(input)``: see :func:`conj`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Conj()(ms.Tensor([3 + 4j])))
    [3.-4.j]
    """

    def __call__(self, input):
        return conj(input)


class Angle(Primitive):
    """``Angle()(input)``: see :func:`angle`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Angle()(ms.Tensor([-1 + 0j])))
    [3.14159265]
    """

    def __call__(self, input):
        return angle(input)


class Polar(Primitive):
    """``Polar()(abs, angle)``: see :func:`polar`.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> print(ops.Polar()(ms.Tensor([2.0]), ms.Tensor([0.0])))
    [2.+0.j]
    """

    def __call__(self, abs, angle):
        return polar(abs, angle)


# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops; the linear
# algebra and norm methods ride along (ops/__init__ installs the families' modules, this one among them).
TENSOR_METHODS = {
    **_linalg.TENSOR_METHODS,
    "norm": _norms.norm,
    "angle": angle, "conj": conj, "imag": imag, "real": real, "is_complex": is_complex,
}

# ``cellkit.ops`` installs each family module's TENSOR_METHODS, but there the name ``fft`` is this
# function (``ops.fft``, as in MindSpore), not this module: the module installs its own.
from . import _tensor_methods  # noqa: E402

_tensor_methods.install(_sys.modules[__name__])
