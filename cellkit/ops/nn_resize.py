"""Resizing and resampling: interpolate in every mode, grid sampling, affine grids, pixel and channel shuffles.

Resizing along one axis is linear, and separable over the axes: each output element is a
fixed mix of input elements.  So every mode of :func:`interpolate` is a small *resampling
matrix* per axis (built on the host from the sizes and the coordinate convention) applied
along that axis with cellkit's ``matmul`` -- or, for the nearest modes, an index gathered
with ``gather`` (which keeps integer images integer).  Both are ops on the tape, so resizing
differentiates to any order.

Sampling at arbitrary points (:func:`grid_sample`, ``crop_and_resize``, ROI align,
deformable convolution) reads the 2^d neighbours of each point with ``gather`` and mixes them
with weights that are cellkit arithmetic on the point's coordinates, so the gradient flows
to the image and to the coordinates.

The coordinate conventions are MindSpore's (which are TensorFlow's for the ``Resize*``
primitives and PyTorch's for ``interpolate``'s 5-D modes):

- ``align_corners``: ``src = dst * (in - 1) / (out - 1)``;
- half-pixel centres: ``src = (dst + 0.5) * in / out - 0.5``;
- neither (TensorFlow's legacy mode): ``src = dst * in / out``.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor(np.array([[[0.0, 2.0]]], np.float32))
>>> print(ops.interpolate(x, size=4, mode="linear", align_corners=True))
[[[0.        0.6666667 1.3333334 2.       ]]]
>>> print(ops.pixel_shuffle(ms.Tensor(np.arange(4.0).reshape(1, 4, 1, 1)), 2))
[[[[0. 1.]
   [2. 3.]]]]
"""
from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor
from . import linalg as _linalg
from . import math as _math
from . import reduce as _reduce
from . import shape_ops as _shape
from ._core import backend, describe, tensor_arg, wrap, xp
from .primitive import Primitive, prim_attr_register

__all__ = [
    "interpolate", "upsample", "grid_sample", "affine_grid", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "crop_and_resize",
    "ResizeBicubic", "ResizeBilinearV2", "ResizeLinear1D", "ResizeNearestNeighbor", "ResizeNearestNeighborV2",
    "UpsampleNearest3D", "UpsampleTrilinear3D", "GridSampler2D", "GridSampler3D", "AffineGrid", "CropAndResize",
    "ChannelShuffle",
]

_MAX_ELEMENTS = 2 ** 31


# -- source coordinates and per-axis resampling matrices (host NumPy) --------------------------------------------
def _source(n_in, n_out, convention, scale=None):
    """The source coordinate of each output index along one axis.

    ``convention`` is ``'align'``, ``'half'`` (half-pixel centres) or ``'legacy'``; ``scale``
    (output / input, as given by a ``scale_factor``) replaces ``n_out / n_in`` when given.
    """
    dst = np.arange(n_out, dtype=np.float64)
    if convention == "align":
        return dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    ratio = (1.0 / scale) if scale else n_in / n_out
    if convention == "half":
        return (dst + 0.5) * ratio - 0.5
    return dst * ratio


def _linear_matrix(n_in, n_out, convention, scale=None):
    """Linear interpolation (out x in); sources below 0 read element 0 (as PyTorch and TensorFlow do)."""
    src = np.clip(_source(n_in, n_out, convention, scale), 0, None)
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    mat = np.zeros((n_out, n_in))
    np.add.at(mat, (np.arange(n_out), lo), 1 - frac)
    np.add.at(mat, (np.arange(n_out), hi), frac)
    return mat


def _cubic_weights(t, a):
    """Keys' cubic convolution weights of the four taps at offsets -1, 0, 1, 2 for fractions ``t``."""
    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=-1)


_CUBIC_TABLE = 1024


def _cubic_matrix(n_in, n_out, convention, a, renormalize):
    """Bicubic interpolation along one axis (out x in), indices clamped to the edge.

    With ``renormalize`` (TensorFlow's half-pixel mode) taps outside the input get weight 0
    and the rest are rescaled to sum to 1.
    """
    src = _source(n_in, n_out, convention)
    base = np.floor(src).astype(np.int64)
    # TensorFlow's kernel reads the weights from a table of 1024 steps: the fraction is rounded to 1/1024
    weights = _cubic_weights(np.round((src - base) * _CUBIC_TABLE) / _CUBIC_TABLE, a)
    taps = base[:, None] + np.arange(-1, 3)[None, :]
    if renormalize:
        inside = (taps >= 0) & (taps < n_in)
        weights = np.where(inside, weights, 0.0)
        weights = weights / weights.sum(axis=1, keepdims=True)
    mat = np.zeros((n_out, n_in))
    rows = np.repeat(np.arange(n_out), 4)
    np.add.at(mat, (rows, np.clip(taps, 0, n_in - 1).reshape(-1)), weights.reshape(-1))
    return mat


def _area_matrix(n_in, n_out):
    """Adaptive average pooling along one axis: windows ``[floor(i n / out), ceil((i + 1) n / out))``."""
    mat = np.zeros((n_out, n_in))
    for i in range(n_out):
        start, end = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        mat[i, start:end] = 1.0 / (end - start)
    return mat


def _nearest_index(n_in, n_out, convention, scale=None, rounding="floor"):
    """The input index each output index copies along one axis."""
    src = _source(n_in, n_out, convention, scale)
    if convention == "half" and rounding == "floor":
        src = src + 0.5  # TensorFlow's half-pixel nearest is floor((dst + 0.5) * in / out)
    index = np.round(src) if rounding == "round" else np.floor(src)
    return np.clip(index.astype(np.int64), 0, n_in - 1)


# -- applying per-axis maps -------------------------------------------------------------------------------------
def _apply_matrix(t, axis, mat):
    """``mat`` (out x in) applied along ``axis`` of the Tensor ``t``."""
    shape = tuple(t.shape)
    prefix = int(np.prod(shape[:axis], dtype=np.int64))
    suffix = int(np.prod(shape[axis + 1:], dtype=np.int64))
    m = wrap(backend().from_host(mat.astype(_host_dtype(t._data))))
    if suffix == 1:
        out = _linalg.matmul(_shape.reshape(t, (prefix, shape[axis])), _shape.transpose(m, (1, 0)))
    else:
        out = _linalg.matmul(m, _shape.reshape(t, (prefix, shape[axis], suffix)))
    return _shape.reshape(out, shape[:axis] + (mat.shape[0],) + shape[axis + 1:])


def _apply_index(t, axis, index):
    return _shape.gather(t, wrap(backend().from_host(index)), axis)


def _host_dtype(a):
    return np.dtype(str(a.dtype).rsplit(".", 1)[-1])


def _check_elements(shape, op):
    if int(np.prod(shape, dtype=np.float64)) >= _MAX_ELEMENTS:
        raise ValueError(f"For '{op}', the output of shape {tuple(shape)} would be too large")


def _resize(t, sizes, kind, op, convention="half", scales=None, cubic_a=-0.75, renormalize=False,
            rounding="floor"):
    """Resize the trailing ``len(sizes)`` axes of ``t`` (a Tensor) to ``sizes``."""
    ndim = len(sizes)
    _check_elements(tuple(t.shape[:-ndim]) + tuple(sizes), op)
    out = t
    first = t.ndim - ndim
    for i, n_out in enumerate(sizes):
        axis = first + i
        n_in = t.shape[axis]
        scale = scales[i] if scales else None
        if kind == "nearest":
            out = _apply_index(out, axis, _nearest_index(n_in, n_out, convention, scale, rounding))
            continue
        if kind == "linear":
            mat = _linear_matrix(n_in, n_out, convention, scale)
        elif kind == "cubic":
            mat = _cubic_matrix(n_in, n_out, convention, cubic_a, renormalize)
        else:
            mat = _area_matrix(n_in, n_out)
        out = _apply_matrix(out, axis, mat)
    return out


# -- interpolate ----------------------------------------------------------------------------------------------
_MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,),
          "area": (3, 4, 5), "nearest-exact": (3, 4)}


def _positive_ints(value, name, op, n):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * n
    if not isinstance(value, (tuple, list)) or len(value) != n or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in value):
        raise ValueError(f"For '{op}', '{name}' must be a positive int or a tuple of {n} positive ints, "
                         f"but got {value!r}")
    if any(not 0 < v < _MAX_ELEMENTS for v in value):
        raise ValueError(f"For '{op}', '{name}' must hold positive sizes, but got {tuple(value)!r}")
    return tuple(int(v) for v in value)


def _positive_floats(value, name, op, n):
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = (float(value),) * n
    if not isinstance(value, (tuple, list)) or len(value) != n or any(
            isinstance(v, bool) or not isinstance(v, numbers.Real) for v in value):
        raise ValueError(f"For '{op}', '{name}' must be a positive float or a tuple of {n} positive floats, "
                         f"but got {value!r}")
    if any(not (0 < v < _MAX_ELEMENTS) for v in value):
        raise ValueError(f"For '{op}', '{name}' must hold positive finite factors, but got {tuple(value)!r}")
    return tuple(float(v) for v in value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resize the spatial axes of an ``(N, C, [D,] [H,] W)`` tensor to ``size`` or by ``scale_factor``.

    Parameters
    ----------
    mode : {'nearest', 'linear', 'bilinear', 'bicubic', 'trilinear', 'area', 'nearest-exact'}
        ``'linear'`` is for 3-D inputs, ``'bilinear'`` and ``'bicubic'`` for 4-D, ``'trilinear'``
        for 5-D; ``'area'`` is adaptive average pooling.  ``'nearest'`` copies input index
        ``floor(dst * in / out)`` and ``'nearest-exact'`` ``floor((dst + 0.5) * in / out)``.
    align_corners : bool, optional
        For the (bi/tri)linear and bicubic modes: map the corner pixels' centres onto each other
        (``src = dst * (in - 1) / (out - 1)``); otherwise half-pixel centres are used.
    scale_factor : float or tuple of floats
        Only for 5-D 'nearest' and 'trilinear', and 'area' (MindSpore's support list).
    recompute_scale_factor : bool, optional
        Compute the size from ``scale_factor`` and resize to that size.

    Raises
    ------
    ValueError
        Both or neither of ``size`` and ``scale_factor``; a mode the input's rank does not
        support; ``align_corners`` or ``scale_factor`` with a mode that does not take them.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32))
    >>> print(interpolate(x, size=(2, 4), mode="nearest"))
    [[[[1. 1. 2. 2.]
       [3. 3. 4. 4.]]]]
    """
    op = "interpolate"
    t = tensor_arg(input, "input", op)
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"For '{op}', 'mode' must be one of {sorted(_MODES)}, but got {mode!r}")
    if t.ndim not in _MODES[mode]:
        raise ValueError(f"For '{op}', mode {mode!r} takes a {' or '.join(f'{n}-D' for n in _MODES[mode])} input, "
                         f"but got shape {t.shape} ({t.ndim} dimensions)")
    if _dt.dtype_of(t._data).kind != "float":
        raise TypeError(f"For '{op}', 'input' must be a float Tensor, but got {t.dtype}")
    if any(d == 0 for d in t.shape):
        raise ValueError(f"For '{op}', 'input' must not be empty, but got shape {t.shape}")
    n = t.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError(f"For '{op}', 'size' and 'scale_factor' cannot be set together, but got {size!r} and "
                         f"{scale_factor!r}")
    if size is None and scale_factor is None:
        raise ValueError(f"For '{op}', one of 'size' and 'scale_factor' must be set, but both are None")
    if align_corners is not None:
        if not isinstance(align_corners, bool):
            raise TypeError(f"For '{op}', 'align_corners' must be a bool, but got {describe(align_corners)}")
        if mode not in ("linear", "bilinear", "bicubic", "trilinear"):
            raise ValueError(f"For '{op}', 'align_corners' is only for the linear and cubic modes, but mode is "
                             f"{mode!r}")
    if recompute_scale_factor is not None and not isinstance(recompute_scale_factor, bool):
        raise TypeError(f"For '{op}', 'recompute_scale_factor' must be a bool or None, but got "
                        f"{describe(recompute_scale_factor)}")
    scales = None
    if size is not None:
        sizes = _positive_ints(size, "size", op, n)
        if recompute_scale_factor:
            raise ValueError(f"For '{op}', 'recompute_scale_factor' cannot be True when 'size' is given")
    else:
        factors = _positive_floats(scale_factor, "scale_factor", op, n)
        sizes = tuple(int(math.floor(d * f)) for d, f in zip(t.shape[2:], factors))
        if any(s < 1 for s in sizes):
            raise ValueError(f"For '{op}', 'scale_factor' {scale_factor!r} leaves an empty output for the input of "
                             f"shape {t.shape}")
        if recompute_scale_factor is not None and not isinstance(recompute_scale_factor, bool):
            raise TypeError(f"For '{op}', 'recompute_scale_factor' must be a bool, but got "
                            f"{describe(recompute_scale_factor)}")
        if not recompute_scale_factor and mode != "area":
            if not (mode in ("nearest", "trilinear") and t.ndim == 5):
                raise ValueError(f"For '{op}', 'scale_factor' is only supported with mode 'area', or 'nearest' and "
                                 f"'trilinear' on 5-D inputs, but got mode {mode!r} on a {t.ndim}-D input")
            scales = factors
    corners = bool(align_corners)
    if mode in ("nearest", "nearest-exact"):
        convention = "half" if mode == "nearest-exact" else "legacy"
        return _resize(t, sizes, "nearest", op, convention, scales)
    if mode == "area":
        if n == 1 and (t.shape[2] % sizes[0] or t.shape[2] < sizes[0]):
            # MindSpore runs 1-D 'area' through adaptive_avg_pool1d, which takes only whole multiples
            raise ValueError(f"For '{op}', mode 'area' on a 3-D input needs a length ({t.shape[2]}) divisible by "
                             f"the output size {sizes[0]}")
        return _resize(t, sizes, "area", op)
    if mode == "bicubic":
        return _resize(t, sizes, "cubic", op, "align" if corners else "half", cubic_a=-0.5 if not corners else -0.75,
                       renormalize=not corners)
    return _resize(t, sizes, "linear", op, "align" if corners else "half", scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """The same as :func:`interpolate` (MindSpore's other name for it).

    >>> import cellkit as ms
    >>> print(upsample(ms.Tensor([[[1.0, 2.0]]]), size=4))
    [[[1. 1. 2. 2.]]]
    """
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


# -- the Resize* and Upsample* primitives -----------------------------------------------------------------------
def _size_values(size, op, n, name="size"):
    """A size given as a tuple/list of ints or a 1-D int Tensor."""
    if isinstance(size, Tensor):
        if size.ndim > 1 or _dt.dtype_of(size._data).kind not in ("int", "uint"):
            raise TypeError(f"For '{op}', '{name}' must be a 1-D int Tensor, but got {describe(size)}")
        size = tuple(int(v) for v in np.asarray(size.asnumpy()).reshape(-1).tolist())
    return _positive_ints(size, name, op, n)


def _image(image, op, ndim, name="image", layout="(N, C, H, W)"):
    t = tensor_arg(image, name, op)
    if t.ndim != ndim:
        raise ValueError(f"For '{op}', '{name}' must be a {ndim}-D Tensor {layout}, but got shape {t.shape}")
    if _dt.dtype_of(t._data).kind == "bool":
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of numbers, but got {t.dtype}")
    if any(d == 0 for d in t.shape):
        raise ValueError(f"For '{op}', '{name}' must not be empty, but got shape {t.shape}")
    return t


def _flags(align_corners, half_pixel_centers, op):
    for name, value in (("align_corners", align_corners), ("half_pixel_centers", half_pixel_centers)):
        if not isinstance(value, bool):
            raise TypeError(f"For '{op}', '{name}' must be a bool, but got {describe(value)}")
    if align_corners and half_pixel_centers:
        raise ValueError(f"For '{op}', 'align_corners' and 'half_pixel_centers' cannot both be True")
    return "align" if align_corners else "half" if half_pixel_centers else "legacy"


def _as_float(t):
    """Integer images are resized in Float32 (what MindSpore's linear and cubic kernels return)."""
    if _dt.dtype_of(t._data).kind == "float":
        return t
    from .creation import cast
    return cast(t, _dt.float32)


class ResizeBilinearV2(Primitive):
    """``ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(image, size)``: bilinear NCHW resizing.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(ResizeBilinearV2()(ms.Tensor(np.array([[[[0.0, 4.0]]]], np.float32)), (1, 4)))
    [[[[0. 2. 4. 4.]]]]
    """

    @prim_attr_register
    def __init__(self, align_corners=False, half_pixel_centers=False):
        self._convention = _flags(align_corners, half_pixel_centers, "ResizeBilinearV2")

    def __call__(self, image, size):
        op = "ResizeBilinearV2"
        t = _image(image, op, 4)
        return _resize(_as_float(t), _size_values(size, op, 2), "linear", op, self._convention)


class ResizeBicubic(Primitive):
    """``ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size)``: bicubic NCHW resizing.

    TensorFlow's kernel: cubic coefficient -0.5 with half-pixel centres (taps outside the image
    dropped and the rest renormalised), -0.75 otherwise (taps clamped to the edge).
    """

    @prim_attr_register
    def __init__(self, align_corners=False, half_pixel_centers=False):
        self._convention = _flags(align_corners, half_pixel_centers, "ResizeBicubic")

    def __call__(self, images, size):
        op = "ResizeBicubic"
        t = _image(images, op, 4, "images")
        half = self._convention == "half"
        return _resize(_as_float(t), _size_values(size, op, 2), "cubic", op, self._convention,
                       cubic_a=-0.5 if half else -0.75, renormalize=half)


class ResizeLinear1D(Primitive):
    """``ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)``: linear resizing of ``(N, C, W)``.

    ``coordinate_transformation_mode`` is ``'align_corners'`` or ``'half_pixel'``.
    """

    @prim_attr_register
    def __init__(self, coordinate_transformation_mode="align_corners"):
        modes = {"align_corners": "align", "half_pixel": "half"}
        if not isinstance(coordinate_transformation_mode, str) or coordinate_transformation_mode not in modes:
            raise ValueError(f"For 'ResizeLinear1D', 'coordinate_transformation_mode' must be one of {list(modes)}, "
                             f"but got {coordinate_transformation_mode!r}")
        self._convention = modes[coordinate_transformation_mode]

    def __call__(self, x, size):
        op = "ResizeLinear1D"
        t = _image(x, op, 3, "x", "(N, C, W)")
        return _resize(_as_float(t), _size_values(size, op, 1), "linear", op, self._convention)


class ResizeNearestNeighborV2(Primitive):
    """``ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(image, size)``: nearest NCHW resizing.

    The dtype is kept (integer images stay integer).
    """

    @prim_attr_register
    def __init__(self, align_corners=False, half_pixel_centers=False):
        self._convention = _flags(align_corners, half_pixel_centers, "ResizeNearestNeighborV2")

    def __call__(self, image, size):
        op = "ResizeNearestNeighborV2"
        t = _image(image, op, 4)
        rounding = "round" if self._convention == "align" else "floor"
        return _resize(t, _size_values(size, op, 2), "nearest", op, self._convention, rounding=rounding)


class ResizeNearestNeighbor(Primitive):
    """``ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(input_x)``."""

    @prim_attr_register
    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        _size_values(size, "ResizeNearestNeighbor", 2)
        self._convention = _flags(align_corners, half_pixel_centers, "ResizeNearestNeighbor")

    def __call__(self, input_x):
        op = "ResizeNearestNeighbor"
        t = _image(input_x, op, 4, "input_x")
        rounding = "round" if self._convention == "align" else "floor"
        return _resize(t, _size_values(self.size, op, 2), "nearest", op, self._convention, rounding=rounding)


def _size_or_scales(t, output_size, scales, op):
    if (output_size is None) == (scales is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'scales' must be given, but got "
                         f"{output_size!r} and {scales!r}")
    if output_size is not None:
        return _size_values(output_size, op, 3, "output_size"), None
    factors = _positive_floats(scales, "scales", op, 3)
    return tuple(int(math.floor(d * f)) for d, f in zip(t.shape[2:], factors)), factors


class UpsampleNearest3D(Primitive):
    """``UpsampleNearest3D()(x, output_size=None, scales=None)``: nearest resizing of ``(N, C, D, H, W)``."""

    def __call__(self, x, output_size=None, scales=None):
        op = "UpsampleNearest3D"
        t = _image(x, op, 5, "x", "(N, C, D, H, W)")
        sizes, factors = _size_or_scales(t, output_size, scales, op)
        return _resize(t, sizes, "nearest", op, "legacy", factors)


class UpsampleTrilinear3D(Primitive):
    """``UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None)``."""

    @prim_attr_register
    def __init__(self, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'UpsampleTrilinear3D', 'align_corners' must be a bool, but got "
                            f"{describe(align_corners)}")

    def __call__(self, x, output_size=None, scales=None):
        op = "UpsampleTrilinear3D"
        t = _image(x, op, 5, "x", "(N, C, D, H, W)")
        sizes, factors = _size_or_scales(t, output_size, scales, op)
        return _resize(_as_float(t), sizes, "linear", op, "align" if self.align_corners else "half", factors)


# -- sampling at points ---------------------------------------------------------------------------------------
def sample_points(rows, batch, coords, sizes, mode="bilinear", fill=None):
    """Values of an image at fractional points, as recorded ops (differentiable in the image and the points).

    ``rows`` is the image as a ``(N * prod(sizes), C)`` Tensor (channels last, rows in row-major
    spatial order); ``batch`` an int array (P,) saying which image each point reads; ``coords``
    one float Tensor (P,) per spatial axis, in pixel units.  Neighbours outside the image count
    as 0 (or, with ``fill``, a point any of whose coordinates lies outside ``[0, size - 1]``
    reads ``fill``).  Returns a ``(P, C)`` Tensor.

    ``mode`` is ``'bilinear'`` (2^d neighbours), ``'nearest'`` (rounded half to even) or
    ``'bicubic'`` (4^d neighbours, PyTorch's coefficient -0.75).
    """
    x = xp()
    strides = [int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(len(sizes))]
    plane = int(np.prod(sizes, dtype=np.int64))
    base = x.astype(batch, x.int64) * plane
    arrays = [c._data for c in coords]
    dtype = arrays[0].dtype

    def gather_at(positions):
        """Rows at integer positions (arrays), with a 0/1 mask of those inside the image."""
        index = base
        valid = None
        for p, n, s in zip(positions, sizes, strides):
            inside = (p >= 0) & (p <= n - 1)
            valid = inside if valid is None else valid & inside
            index = index + x.clip(p, 0, n - 1) * s
        vals = _shape.gather(rows, wrap(index), 0)
        return vals, x.astype(valid, dtype)

    if mode == "nearest":
        positions = [x.astype(x.round(a), x.int64) for a in arrays]
        vals, valid = gather_at(positions)
        out = vals * wrap(x.reshape(valid, (-1, 1)))
    else:
        floors = [x.floor(a) for a in arrays]
        fracs = [c - wrap(f) for c, f in zip(coords, floors)]
        if mode == "bilinear":
            offsets = (0, 1)

            def weight(frac, k):
                return 1 - frac if k == 0 else frac
        else:
            offsets = (-1, 0, 1, 2)

            def weight(frac, k, a=-0.75):
                d = {-1: frac + 1, 0: frac, 1: 1 - frac, 2: 2 - frac}[k]
                if k in (0, 1):
                    return ((a + 2) * d - (a + 3)) * d * d + 1
                return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        out = None
        for combo in itertools.product(offsets, repeat=len(sizes)):
            positions = [x.astype(f, x.int64) + k for f, k in zip(floors, combo)]
            vals, valid = gather_at(positions)
            w = wrap(valid)
            for frac, k in zip(fracs, combo):
                w = w * weight(frac, k)
            term = vals * _shape.reshape(w, (-1, 1))
            out = term if out is None else out + term
    if fill is not None:
        inside = None
        for a, n in zip(arrays, sizes):
            ok = (a >= 0) & (a <= n - 1)
            inside = ok if inside is None else inside & ok
        inside = x.reshape(inside, (-1, 1))
        filler = wrap(x.astype(x.logical_not(inside), dtype) * fill)
        out = out * wrap(x.astype(inside, dtype)) + filler
    return out


def _reflect(coord, low2, high2):
    """Reflect a coordinate Tensor into ``[low2 / 2, high2 / 2]`` (PyTorch's ``reflect_coordinates``)."""
    x = xp()
    if low2 == high2:
        return coord * 0.0
    lo, span = low2 / 2, (high2 - low2) / 2
    shifted = _math.abs(coord - lo)
    a = shifted._data
    flips = x.floor(a / span)
    extra = shifted - wrap(flips * span)
    even = wrap(x.astype((x.astype(flips, x.int64) % 2) == 0, a.dtype))
    return even * (extra + lo) + (1 - even) * (span - extra + lo)


def _grid_coords(g, n, align_corners, padding_mode):
    """A normalised grid coordinate Tensor (-1 .. 1) -> pixel units, with the padding mode applied."""
    from .math import clamp

    pix = (g + 1) / 2 * (n - 1) if align_corners else ((g + 1) * n - 1) / 2
    if padding_mode == "border":
        pix = clamp(pix, 0.0, float(n - 1))
    elif padding_mode == "reflection":
        pix = _reflect(pix, 0, 2 * (n - 1)) if align_corners else _reflect(pix, -1, 2 * n - 1)
        pix = clamp(pix, 0.0, float(n - 1))
    return pix


def _grid_sample(input, grid, mode, padding_mode, align_corners, op, ndim, names=("input", "grid")):
    it = tensor_arg(input, names[0], op)
    gt = tensor_arg(grid, names[1], op)
    if it.ndim != ndim + 2 or gt.ndim != ndim + 2 or gt.shape[-1] != ndim or gt.shape[0] != it.shape[0]:
        raise ValueError(f"For '{op}', '{names[0]}' must be {ndim + 2}-D and '{names[1]}' of shape "
                         f"(N, *out, {ndim}) with the same N, but got shapes {it.shape} and {gt.shape}")
    for t, name in ((it, names[0]), (gt, names[1])):
        if _dt.dtype_of(t._data).kind != "float":
            raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {t.dtype}")
    if it.dtype != gt.dtype:
        raise TypeError(f"For '{op}', '{names[0]}' and '{names[1]}' must have the same dtype, but got {it.dtype} and "
                        f"{gt.dtype}")
    if any(d == 0 for d in it.shape) or any(d == 0 for d in gt.shape):
        raise ValueError(f"For '{op}', the inputs must not be empty, but got shapes {it.shape} and {gt.shape}")
    modes = ("bilinear", "nearest")
    if mode not in modes:
        raise ValueError(f"For '{op}', 'mode' must be one of {list(modes)}, but got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"For '{op}', 'padding_mode' must be 'zeros', 'border' or 'reflection', but got "
                         f"{padding_mode!r}")
    if align_corners is None:
        align_corners = False
    if not isinstance(align_corners, bool):
        raise TypeError(f"For '{op}', 'align_corners' must be a bool, but got {describe(align_corners)}")
    n, c = it.shape[:2]
    sizes = tuple(it.shape[2:])
    out_spatial = tuple(gt.shape[1:-1])
    _check_elements((n, c) + out_spatial, op)
    points = int(np.prod(out_spatial))
    rows = _shape.reshape(_shape.transpose(it, (0,) + tuple(range(2, ndim + 2)) + (1,)), (-1, c))
    flat_grid = _shape.reshape(gt, (-1, ndim))
    coords = []
    for axis in range(ndim):  # the grid's last entry is x (the last spatial axis)
        g = _shape.gather(flat_grid, ndim - 1 - axis, 1)
        coords.append(_grid_coords(g, sizes[axis], align_corners, padding_mode))
    batch = backend().from_host(np.repeat(np.arange(n, dtype=np.int64), points))
    out = sample_points(rows, batch, coords, sizes, mode)
    out = _shape.reshape(out, (n,) + out_spatial + (c,))
    return _shape.transpose(out, (0, ndim + 1) + tuple(range(1, ndim + 1)))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` at the normalised points of ``grid`` (``-1`` and ``1`` are the image's extremes).

    ``input`` is ``(N, C, H, W)`` with ``grid`` ``(N, H_out, W_out, 2)`` holding ``(x, y)``, or
    ``(N, C, D, H, W)`` with ``grid`` ``(N, D_out, H_out, W_out, 3)`` holding ``(x, y, z)``.

    Parameters
    ----------
    mode : {'bilinear', 'nearest'}
    padding_mode : {'zeros', 'border', 'reflection'}
        What points outside the image read: zeros, the nearest edge, or the image reflected.
    align_corners : bool, optional
        Whether -1 and 1 are the centres (True) or the outer edges (False, the default) of the
        corner pixels.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> x = ms.Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32))
    >>> print(grid_sample(x, ms.Tensor(np.zeros((1, 1, 1, 2), np.float32))))
    [[[[2.5]]]]
    """
    t = tensor_arg(input, "input", "grid_sample")
    ndim = 3 if t.ndim == 5 else 2
    return _grid_sample(input, grid, mode, padding_mode, align_corners, "grid_sample", ndim)


class GridSampler2D(Primitive):
    """``GridSampler2D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(input_x, grid)``."""

    @prim_attr_register
    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
        pass

    def __call__(self, input_x, grid):
        return _grid_sample(input_x, grid, self.interpolation_mode, self.padding_mode, self.align_corners,
                            "GridSampler2D", 2, ("input_x", "grid"))


class GridSampler3D(Primitive):
    """``GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(input_x, grid)``."""

    @prim_attr_register
    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
        pass

    def __call__(self, input_x, grid):
        return _grid_sample(input_x, grid, self.interpolation_mode, self.padding_mode, self.align_corners,
                            "GridSampler3D", 3, ("input_x", "grid"))


# -- affine grids ----------------------------------------------------------------------------------------------
def _affine_grid(theta, size, align_corners, op):
    tt = tensor_arg(theta, "theta", op)
    if isinstance(size, Tensor):
        size = tuple(int(v) for v in size.asnumpy().reshape(-1).tolist())
    if not isinstance(size, (tuple, list)) or len(size) not in (4, 5):
        raise ValueError(f"For '{op}', 'size' must be a tuple (N, C, H, W) or (N, C, D, H, W), but got {size!r}")
    size = _positive_ints(tuple(size), "size", op, len(size))
    ndim = len(size) - 2
    if tt.shape != (size[0], ndim, ndim + 1):
        raise ValueError(f"For '{op}', 'theta' must have shape {(size[0], ndim, ndim + 1)} for 'size' {size}, "
                         f"but got {tt.shape}")
    if _dt.dtype_of(tt._data).kind != "float":
        raise TypeError(f"For '{op}', 'theta' must be a float Tensor, but got {tt.dtype}")
    if not isinstance(align_corners, bool):
        raise TypeError(f"For '{op}', 'align_corners' must be a bool, but got {describe(align_corners)}")
    spatial = size[2:]
    _check_elements((size[0],) + spatial + (ndim,), op)

    def axis(n):
        if n == 1:
            return np.zeros(1)
        line = np.linspace(-1.0, 1.0, n)
        return line if align_corners else line * (n - 1) / n

    # base[..., :] = (x, y, [z,] 1) with x along the last spatial axis
    mesh = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")
    base = np.stack(list(reversed(mesh)) + [np.ones(spatial)], axis=-1).reshape(1, -1, ndim + 1)
    b = wrap(backend().from_host(base.astype(_host_dtype(tt._data))))
    out = _linalg.matmul(b, _shape.transpose(tt, (0, 2, 1)))
    return _shape.reshape(out, (size[0],) + spatial + (ndim,))


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of affine maps ``theta`` ((N, 2, 3) or (N, 3, 4)) for an output of ``size``.

    Each grid point is ``theta @ (x, y, [z,] 1)`` over the normalised output coordinates; feed the
    grid to :func:`grid_sample`.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> identity = ms.Tensor(np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], np.float32))
    >>> print(affine_grid(identity, (1, 1, 1, 2), align_corners=True))
    [[[[-1.  0.]
       [ 1.  0.]]]]
    """
    return _affine_grid(theta, size, align_corners, "affine_grid")


class AffineGrid(Primitive):
    """``AffineGrid(align_corners=False)(theta, output_size)``: see :func:`affine_grid`."""

    @prim_attr_register
    def __init__(self, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'AffineGrid', 'align_corners' must be a bool, but got {describe(align_corners)}")

    def __call__(self, theta, output_size):
        return _affine_grid(theta, output_size, self.align_corners, "AffineGrid")


# -- shuffles ---------------------------------------------------------------------------------------------------
def _factor(value, name, op):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 < value < 2 ** 31:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {describe(value)}")
    return int(value)


def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)``: each channel block of ``r^2`` becomes an ``r x r`` tile.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(pixel_shuffle(ms.Tensor(np.arange(4.0).reshape(4, 1, 1)), 2))
    [[[0. 1.]
      [2. 3.]]]
    """
    op = "pixel_shuffle"
    t = tensor_arg(input, "input", op)
    r = _factor(upscale_factor, "upscale_factor", op)
    if t.ndim < 3:
        raise ValueError(f"For '{op}', 'input' must have at least 3 dimensions, but got shape {t.shape}")
    *lead, c, h, w = t.shape
    if c % (r * r):
        raise ValueError(f"For '{op}', the channels {c} of 'input' (shape {t.shape}) must be divisible by "
                         f"upscale_factor ** 2 = {r * r} (upscale_factor {r})")
    k = len(lead)
    y = _shape.reshape(t, tuple(lead) + (c // (r * r), r, r, h, w))
    y = _shape.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return _shape.reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """The inverse of :func:`pixel_shuffle`: ``(*, C, H r, W r)`` -> ``(*, C r^2, H, W)``.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(pixel_unshuffle(ms.Tensor(np.arange(4.0).reshape(1, 2, 2)), 2).reshape(-1))
    [0. 1. 2. 3.]
    """
    op = "pixel_unshuffle"
    t = tensor_arg(input, "input", op)
    r = _factor(downscale_factor, "downscale_factor", op)
    if t.ndim < 3:
        raise ValueError(f"For '{op}', 'input' must have at least 3 dimensions, but got shape {t.shape}")
    *lead, c, h, w = t.shape
    if h % r or w % r:
        raise ValueError(f"For '{op}', the height and width of 'input' (shape {t.shape}) must be divisible by "
                         f"downscale_factor = {r}")
    k = len(lead)
    y = _shape.reshape(t, tuple(lead) + (c, h // r, r, w // r, r))
    y = _shape.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return _shape.reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


def _channel_shuffle(x, groups, op, name="x"):
    t = tensor_arg(x, name, op)
    g = _factor(groups, "groups" if op == "channel_shuffle" else "group", op)
    if t.ndim < 4:
        raise TypeError(f"For '{op}', '{name}' must have at least 4 dimensions, but got shape {t.shape}")
    n, c = t.shape[:2]
    if c % g:
        raise ValueError(f"For '{op}', the channels {c} of '{name}' (shape {t.shape}) must be divisible by the "
                         f"groups {g}")
    rest = tuple(t.shape[2:])
    y = _shape.reshape(t, (n, g, c // g) + rest)
    y = _shape.transpose(y, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
    return _shape.reshape(y, (n, c) + rest)


def channel_shuffle(x, groups):
    """Interleave the channels of ``(N, C, *)``: ``groups`` blocks of ``C / groups`` become ``C / groups`` blocks.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(channel_shuffle(ms.Tensor(np.arange(4.0).reshape(1, 4, 1, 1)), 2).reshape(-1))
    [0. 2. 1. 3.]
    """
    return _channel_shuffle(x, groups, "channel_shuffle")


class ChannelShuffle(Primitive):
    """``ChannelShuffle(group)(x)``: see :func:`channel_shuffle`."""

    @prim_attr_register
    def __init__(self, group):
        _factor(group, "group", "ChannelShuffle")

    def __call__(self, x):
        return _channel_shuffle(x, self.group, "ChannelShuffle")


# -- crop and resize --------------------------------------------------------------------------------------------
def _crop_and_resize(image, boxes, box_indices, crop_size, method, extrapolation_value, op):
    it = tensor_arg(image, "image", op)
    bt = tensor_arg(boxes, "boxes", op)
    xt = tensor_arg(box_indices, "box_indices", op)
    if it.ndim != 4:
        raise ValueError(f"For '{op}', 'image' must be a 4-D Tensor (N, H, W, C), but got shape {it.shape}")
    if bt.ndim != 2 or bt.shape[1] != 4:
        raise ValueError(f"For '{op}', 'boxes' must have shape (num_boxes, 4), but got {bt.shape}")
    if xt.shape != (bt.shape[0],) or _dt.dtype_of(xt._data).kind not in ("int", "uint"):
        raise ValueError(f"For '{op}', 'box_indices' must be an int Tensor of shape ({bt.shape[0]},), but got "
                         f"{describe(xt)}")
    if _dt.dtype_of(bt._data).kind != "float":
        raise TypeError(f"For '{op}', 'boxes' must be a float Tensor, but got {bt.dtype}")
    if not isinstance(crop_size, (tuple, list)):
        raise TypeError(f"For '{op}', 'crop_size' must be a tuple of two ints, but got {describe(crop_size)}")
    ch, cw = _positive_ints(tuple(crop_size), "crop_size", op, 2)
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"For '{op}', 'method' must be 'bilinear', 'nearest' or 'bilinear_v2', but got {method!r}")
    if isinstance(extrapolation_value, bool) or not isinstance(extrapolation_value, numbers.Real):
        raise TypeError(f"For '{op}', 'extrapolation_value' must be a float, but got {describe(extrapolation_value)}")
    n, h, w, c = it.shape
    if any(d == 0 for d in it.shape):
        raise ValueError(f"For '{op}', 'image' must not be empty, but got shape {it.shape}")
    index = xt.asnumpy().astype(np.int64)
    if ((index < 0) | (index >= n)).any():
        raise ValueError(f"For '{op}', 'box_indices' must be in [0, {n}), but got {index.tolist()}")
    nb = bt.shape[0]
    _check_elements((nb, ch, cw, c), op)
    from .creation import cast
    # Float32 as MindSpore returns; a Float64 image stays Float64 (cellkit computes it in double precision)
    work = _dt.float64 if str(it.dtype) == "Float64" else _dt.float32
    img = it if it.dtype == work else cast(it, work)
    bx = bt if bt.dtype == work else cast(bt, work)
    rows = _shape.reshape(img, (-1, c))

    host = np.float64 if work is _dt.float64 else np.float32

    def axis_coords(lo, hi, n_img, n_crop):
        """(num_boxes, n_crop) source coordinates along one axis, as Tensors (differentiable in the box)."""
        steps = wrap(backend().from_host(np.arange(n_crop, dtype=host).reshape(1, -1)))
        if n_crop > 1:
            return lo * (n_img - 1) + (hi - lo) * ((n_img - 1) / (n_crop - 1)) * steps
        return (lo + hi) * (0.5 * (n_img - 1)) + steps

    def column(k):
        return _shape.reshape(_shape.gather(bx, k, 1), (-1, 1))

    ys = axis_coords(column(0), column(2), h, ch)                 # (nb, ch)
    xs = axis_coords(column(1), column(3), w, cw)                 # (nb, cw)
    ones_w = wrap(backend().from_host(np.ones((1, 1, cw), host)))
    ones_h = wrap(backend().from_host(np.ones((1, ch, 1), host)))
    yy = _shape.reshape(_shape.reshape(ys, (nb, ch, 1)) * ones_w, (-1,))
    xx = _shape.reshape(_shape.reshape(xs, (nb, 1, cw)) * ones_h, (-1,))
    batch = backend().from_host(np.repeat(index, ch * cw))
    mode = "nearest" if method == "nearest" else "bilinear"
    if mode == "nearest":
        # TensorFlow rounds half away from zero here: nudge the coordinate so round-half-even agrees
        x_ = xp()
        yy = wrap(x_.floor(yy._data + 0.5))
        xx = wrap(x_.floor(xx._data + 0.5))
    out = sample_points(rows, batch, [yy, xx], (h, w), mode, fill=float(extrapolation_value))
    return _shape.reshape(out, (nb, ch, cw, c))


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0):
    """Crop boxes out of NHWC ``image`` and resize each to ``crop_size`` (TensorFlow's ``crop_and_resize``).

    ``boxes`` holds normalised ``[y1, x1, y2, x2]`` rows and ``box_indices`` the image of each;
    points outside the image read ``extrapolation_value``.  Returns ``(num_boxes, crop_h,
    crop_w, C)`` in Float32.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> image = ms.Tensor(np.arange(9.0, dtype=np.float32).reshape(1, 3, 3, 1))
    >>> out = crop_and_resize(image, ms.Tensor([[0.0, 0.0, 1.0, 1.0]]), ms.Tensor([0], ms.int32), (2, 2))
    >>> print(out.reshape(-1))
    [0. 2. 6. 8.]
    """
    return _crop_and_resize(image, boxes, box_indices, crop_size, method, extrapolation_value, "crop_and_resize")


class CropAndResize(Primitive):
    """``CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index, crop_size)``."""

    @prim_attr_register
    def __init__(self, method="bilinear", extrapolation_value=0.0):
        if method not in ("bilinear", "nearest", "bilinear_v2"):
            raise ValueError(f"For 'CropAndResize', 'method' must be 'bilinear', 'nearest' or 'bilinear_v2', "
                             f"but got {method!r}")

    def __call__(self, x, boxes, box_index, crop_size):
        return _crop_and_resize(x, boxes, box_index, crop_size, self.method, self.extrapolation_value,
                                "CropAndResize")
