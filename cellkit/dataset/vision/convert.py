"""Decoding and converting images: ``Decode``, ``Rescale``, ``Normalize``, ``NormalizePad``,
``HWC2CHW``, ``ToTensor``, ``ToPIL``, ``ToNumpy``, ``ToType``.

>>> import numpy as np
>>> from cellkit.dataset import vision
>>> image = np.full((2, 2, 3), 255, np.uint8)
>>> vision.Rescale(1 / 255, 0)(image).dtype, vision.HWC2CHW()(image).shape
(dtype('float32'), (3, 2, 2))
>>> vision.Normalize([127.5] * 3, [127.5] * 3)(image)[0, 0]
array([1., 1., 1.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ..transforms.base import PyTensorOperation, TensorOperation, as_array, is_pil
from ..transforms.tensor_ops import TypeCast
from .base import ImageTensorOperation, require_rank
from .checks import check_number, check_range, check_type
from .codec import decode_image, decode_pil

__all__ = ["Decode", "Rescale", "Normalize", "NormalizePad", "HWC2CHW", "ToTensor", "ToPIL", "ToNumpy", "ToType"]

_F32 = np.float32


def _fma32(a, b, c):
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(_F32)


class Decode(TensorOperation):
    """Decode JPEG, PNG, BMP or TIFF bytes (a 1-D uint8 array) to an RGB image (a PIL image with ``to_pil``)."""

    _cacheable = True

    def __init__(self, to_pil=False):
        check_type(to_pil, (bool,), "to_pil")
        self.to_pil = to_pil

    def _eager_input(self, value):
        if isinstance(value, (bytes, bytearray)):
            return np.frombuffer(bytes(value), dtype=np.uint8)
        return as_array(value)

    def _compute(self, data):
        if data.dtype.kind == "S" and data.size == 1:   # a MindRecord bytes field, as MindDataset gives it
            data = np.frombuffer(bytes(data.reshape(-1)[0]), dtype=np.uint8)
        if data.ndim != 1:
            raise TypeError(f"The number of array dimensions of the encoded image should be 1, but got {data.ndim}.")
        if data.dtype != np.uint8:
            raise TypeError(f"The data type of the encoded image should be uint8, but got {data.dtype}.")
        if self.to_pil:
            return decode_pil(data, "the image")
        return decode_image(data, "the image")

    def _apply_row(self, data):
        if is_pil(data):
            raise TypeError("Decode: the input is already a decoded PIL image.")
        return self._compute(np.asarray(data))


class Rescale(ImageTensorOperation):
    """``image * rescale + shift`` as float32 (OpenCV's ``convertTo``)."""

    def __init__(self, rescale, shift):
        check_number(rescale, "rescale")
        check_number(shift, "shift")
        self.rescale = float(rescale)
        self.shift = float(shift)

    def _check(self, image):
        if image.dtype.kind in "USO":
            raise RuntimeError(f"Rescale: input tensor type should be numeric, but got {image.dtype}.")

    def _compute(self, image):
        self._check(image)
        return self._transform(image)

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].dtype.kind in "USO":
            return None
        return [self._transform(columns[0])]

    def _transform(self, image):
        if image.dtype == np.uint8:
            # OpenCV rounds once (x * scale + shift in double, then to float32).  When float32
            # arithmetic gives the same for all 256 values, it gives the same for the image (and is
            # much faster); otherwise each value's exact result is looked up.
            scale, shift = _F32(self.rescale), _F32(self.shift)
            table = _fma32(np.arange(256, dtype=_F32), scale, shift)
            fast = np.arange(256, dtype=_F32) * scale + shift
            if np.array_equal(table, fast):
                values = image.astype(_F32)
                values *= scale
                values += shift
                return values
            return table.take(image.astype(np.intp))
        values = image.astype(_F32)
        return _fma32(values, _F32(self.rescale), _F32(self.shift))


def _check_mean_std(mean, std):
    check_type(mean, (list, tuple), "mean")
    check_type(std, (list, tuple), "std")
    if len(mean) not in (1, 3, 4) and len(mean) != len(std):
        raise ValueError(f"mean and std should have the same length, but got {len(mean)} and {len(std)}.")
    if len(mean) != len(std):
        raise ValueError(f"Length of mean and std must be equal, but got {len(mean)} and {len(std)}.")
    for k, (m, s) in enumerate(zip(mean, std)):
        check_number(m, f"mean[{k}]")
        check_number(s, f"std[{k}]")
        check_range(m, 0, 255, f"mean[{k}]")
        check_range(s, 0, 255, f"std[{k}]", open_low=True)
    return [float(m) for m in mean], [float(s) for s in std]


class Normalize(ImageTensorOperation):
    """``(image - mean) / std`` per channel, as float32 (channels last, or first with ``is_hwc=False``)."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean, self.std = _check_mean_std(mean, std)
        check_type(is_hwc, (bool,), "is_hwc")
        self.is_hwc = is_hwc

    def _channels(self, image):
        if image.ndim == 2:
            return 1
        return image.shape[-1] if self.is_hwc else image.shape[-3]

    def _check(self, image):
        if image.ndim not in (2, 3):
            raise RuntimeError(f"Normalize: input tensor is not in shape of <H,W,C> or <H,W>, but got rank: "
                               f"{image.ndim}")
        if image.dtype.kind in "USO":
            raise RuntimeError(f"Normalize: input tensor type should be numeric, but got {image.dtype}.")
        channels = self._channels(image)
        if len(self.mean) != 1 and channels != len(self.mean):
            raise RuntimeError(f"Normalize: number of channels does not match the size of mean and std vectors, "
                               f"got channels: {channels}, size of mean: {len(self.mean)}")

    def _compute(self, image):
        self._check(image)
        return self._transform(image, image.ndim == 2)

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].ndim not in (3, 4) or columns[0].dtype.kind in "USO":
            return None
        self._check(columns[0][0])
        return [self._transform(columns[0], columns[0].ndim == 3)]

    def _transform(self, image, two_d):
        channels = 1 if two_d else (image.shape[-1] if self.is_hwc else image.shape[-3])
        mean = np.asarray(self.mean * (channels if len(self.mean) == 1 else 1), dtype=_F32)
        std = np.asarray(self.std * (channels if len(self.std) == 1 else 1), dtype=_F32)
        if not two_d and not self.is_hwc:
            mean, std = mean[:, None, None], std[:, None, None]
        values = image.astype(_F32)   # a copy: the input may be a cached block
        if self.is_hwc and not two_d and values.ndim >= 3 and values.flags.c_contiguous:
            # each row as W*C values with mean and std repeated along it: long inner loops, same numbers
            width = values.shape[-2]
            rows = values.reshape(-1, width * channels)
            rows -= np.tile(mean, width)
            rows /= np.tile(std, width)
            return values
        values -= mean
        values /= std
        return values


class NormalizePad(Normalize):
    """:class:`Normalize`, then one more channel of zeros (float32, or float16 with ``dtype="float16"``)."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        super().__init__(mean, std, is_hwc)
        check_type(dtype, (str,), "dtype")
        if dtype not in ("float32", "float16"):
            raise ValueError(f"dtype should be 'float32' or 'float16', but got {dtype!r}.")
        self.dtype = dtype

    def _check(self, image):
        if image.ndim != 3:
            raise RuntimeError(f"NormalizePad: input tensor is not in shape of <H,W,C>, but got rank: {image.ndim}")
        channels = self._channels(image)
        if channels != len(self.mean):
            raise RuntimeError(f"NormalizePad: number of channels does not match the size of mean and std vectors, "
                               f"got channels: {channels}, size of mean: {len(self.mean)}")

    def _transform(self, image, two_d):
        mean = np.asarray(self.mean, dtype=np.float64)
        std = np.asarray(self.std, dtype=np.float64)
        axis = -1 if self.is_hwc else -3
        if not self.is_hwc:
            mean, std = mean[:, None, None], std[:, None, None]
        # OpenCV's convertTo(scale=1/std, shift=-mean/std), computed in float32
        scale = (1.0 / std).astype(_F32)
        shift = (-mean / std).astype(_F32)
        out = _fma32(image.astype(_F32), scale, shift)
        if self.dtype == "float16":
            out = out.astype(np.float16)
        pad_shape = list(out.shape)
        pad_shape[axis] = 1
        return np.concatenate([out, np.zeros(pad_shape, out.dtype)], axis=axis)


class HWC2CHW(ImageTensorOperation):
    """Channels first: (H, W, C) to (C, H, W); a 2-D image is given back unchanged."""

    def _check(self, image):
        if image.ndim == 2:
            return
        if image.ndim != 3 or image.shape[-1] not in (1, 3):
            raise RuntimeError(f"HWC2CHW: image shape should be <H,W> or <H,W,C>, but got rank: {image.ndim}"
                               + (f" (channels must be 1 or 3, got {image.shape[-1]})" if image.ndim == 3 else ""))

    def _compute(self, image):
        self._check(image)
        if image.ndim == 2:
            return image
        return np.ascontiguousarray(image.transpose(2, 0, 1))

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].ndim != 4:
            return None
        self._check(columns[0][0])
        return [np.ascontiguousarray(columns[0].transpose(0, 3, 1, 2))]


class ToTensor(ImageTensorOperation):
    """An image (HWC array or PIL image) as a CHW array divided by 255, of ``output_type`` (float32)."""

    def __init__(self, output_type=np.float32):
        from ..transforms.tensor_ops import numpy_dtype

        self.output_type = numpy_dtype(output_type, "output_type")

    def _compute_pil(self, image):
        return self._compute(np.asarray(image))

    def _compute(self, image):
        if image.ndim not in (2, 3):
            raise RuntimeError(f"ToTensor: the input image should be <H,W> or <H,W,C>, but got rank: {image.ndim}")
        if image.ndim == 2:
            image = image[:, :, None]
        return self._transform(image[None])[0]

    def _apply_block(self, columns):
        if len(columns) != 1 or columns[0].ndim not in (3, 4):
            return None
        stack = columns[0] if columns[0].ndim == 4 else columns[0][..., None]
        return [self._transform(stack)]

    def _transform(self, images):
        chw = images.transpose(0, 3, 1, 2)
        return (chw.astype(np.float64) / 255.0).astype(self.output_type) if self.output_type != np.float32 \
            else (chw.astype(_F32) / _F32(255.0)).astype(_F32)


class ToPIL(PyTensorOperation):
    """A decoded image array as a PIL image (uint8 for 3 or 4 channels; 2-D arrays of other types too)."""

    _deterministic = True

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        if is_pil(image):
            return image
        from PIL import Image

        if not isinstance(image, np.ndarray):
            raise TypeError(f"The input image should be of type numpy.ndarray or PIL.Image.Image. Got {type(image)}.")
        if image.ndim not in (2, 3):
            raise ValueError(f"The dimension of input image should be 2 or 3. Got {image.ndim}.")
        if image.ndim == 2:
            image = image[:, :, None]
        if image.shape[-1] > 4:
            raise ValueError(f"The channel of input image should not exceed 4. Got {image.shape[-1]}.")
        if image.shape[-1] == 1:
            if image.dtype not in (np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.float32,
                                   np.float64):
                raise TypeError(f"The input image type {image.dtype} is not supported when image shape is [H, W] "
                                "or [H, W, 1].")
            return Image.fromarray(image[:, :, 0])
        if image.dtype != np.uint8:
            raise TypeError(f"The input image type {image.dtype} is not supported when image shape is [H, W, 2], "
                            "[H, W, 3] or [H, W, 4].")
        return Image.fromarray(image)


class ToNumpy(PyTensorOperation):
    """A PIL image as a NumPy array (arrays pass through)."""

    _deterministic = True

    def __call__(self, image):
        return self._apply_row(image)

    def _apply_row(self, image):
        return np.array(image)


class ToType(TypeCast):
    """Cast an image to ``data_type`` (the same as ``transforms.TypeCast``)."""

    def _compute(self, array):
        require_rank(array, "ToType", (0, 1, 2, 3, 4, 5, 6))
        return super()._compute(array)
