"""Image files on disk and image bytes in memory: ``read_file``, ``read_image``, ``write_file``,
``write_jpeg``, ``write_png``, ``encode_jpeg``, ``encode_png`` (MindSpore's functions of the same
names).  Bytes are 1-D uint8 NumPy arrays, images (H, W, C) uint8 arrays; encoding and decoding go
through Pillow (see :mod:`.codec`).  Errors are ``RuntimeError`` naming the file or the argument.

>>> import numpy as np, tempfile, os
>>> from cellkit.dataset import vision
>>> image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.png")
>>> vision.write_png(path, image)
>>> bool((vision.read_image(path) == image).all())
True
"""
from __future__ import annotations

import io
import os

import numpy as np

from .codec import _pil_from_array, decode_pil, image_format
from .utils import ImageReadMode

__all__ = ["read_file", "read_image", "write_file", "write_jpeg", "write_png", "encode_jpeg", "encode_png"]


def _image_array(image, what):
    asnumpy = getattr(image, "asnumpy", None)
    if callable(asnumpy):
        image = asnumpy()
    if not isinstance(image, np.ndarray):
        raise TypeError(f"Input image is not of type {np.ndarray} or Tensor, but got: {type(image)}.")
    if image.dtype != np.uint8:
        raise RuntimeError(f"{what}: The type of the image data should be UINT8, but got {image.dtype}.")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3)):
        raise RuntimeError(f"{what}: The image has invalid shape {list(image.shape)}; expected <H,W> or "
                           f"<H,W,C> with C 1 or 3.")
    return image


def _int_in(value, name, low, high, what):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value!r} is not of type {int}, but got {type(value)}.")
    if not low <= value <= high:
        raise RuntimeError(f"{what}: Invalid {name} {value}, should be in range of [{low}, {high}].")
    return value


def _path(filename, name="filename"):
    if not isinstance(filename, str):
        raise TypeError(f"Argument {name} with value {filename!r} is not of type {str}, but got {type(filename)}.")
    return filename


def encode_jpeg(image, quality=75):
    """JPEG bytes (1-D uint8 array) of an (H, W) or (H, W, 1|3) uint8 image; ``quality`` in [1, 100]."""
    image = _image_array(image, "EncodeJpeg")
    _int_in(quality, "quality", 1, 100, "EncodeJpeg")
    buffer = io.BytesIO()
    _pil_from_array(image, "EncodeJpeg").save(buffer, format="JPEG", quality=quality)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def encode_png(image, compression_level=6):
    """PNG bytes (1-D uint8 array) of an (H, W) or (H, W, 1|3) uint8 image; ``compression_level`` in [0, 9]."""
    image = _image_array(image, "EncodePng")
    _int_in(compression_level, "compression_level", 0, 9, "EncodePng")
    buffer = io.BytesIO()
    _pil_from_array(image, "EncodePng").save(buffer, format="PNG", compress_level=compression_level)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def read_file(filename):
    """The bytes of a file as a 1-D uint8 array."""
    _path(filename)
    if not os.path.isfile(filename):
        raise RuntimeError(f"ReadFile: Invalid file path, {filename} does not exist.")
    with open(filename, "rb") as handle:
        return np.frombuffer(handle.read(), np.uint8).copy()


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """An image file (JPEG, PNG, BMP, TIFF) as an (H, W, C) uint8 array.

    ``mode``: ``ImageReadMode.UNCHANGED`` keeps the file's channels (grey as one channel),
    ``GRAYSCALE`` gives one channel, ``COLOR`` three.
    """
    from PIL import Image

    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"Argument mode with value {mode!r} is not of type {ImageReadMode}, but got {type(mode)}.")
    raw = read_file(filename)
    if image_format(raw) is None:
        raise RuntimeError(f"ReadImage: Failed to read file {filename}")
    if mode == ImageReadMode.COLOR:
        return np.asarray(decode_pil(raw, filename)).copy()
    try:
        image = Image.open(io.BytesIO(raw.tobytes()))
        image.load()
    except Exception:  # noqa: BLE001 -- Pillow raises many kinds for broken files
        raise RuntimeError(f"ReadImage: Failed to read file {filename}") from None
    if mode == ImageReadMode.GRAYSCALE:
        return np.asarray(image.convert("L"))[:, :, None].copy()
    if image.mode in ("L", "1", "I;16"):
        return np.asarray(image.convert("L"))[:, :, None].copy()
    return np.asarray(image.convert("RGB")).copy()


def write_file(filename, data):
    """Write a 1-D uint8 array (or Tensor) of bytes to ``filename``."""
    _path(filename)
    asnumpy = getattr(data, "asnumpy", None)
    if callable(asnumpy):
        data = asnumpy()
    if not isinstance(data, np.ndarray):
        raise TypeError(f"Input data is not of type {np.ndarray} or Tensor, but got: {type(data)}.")
    if data.dtype != np.uint8 or data.ndim != 1:
        raise RuntimeError(f"WriteFile: The data should be a 1-D uint8 array, but got shape {list(data.shape)} "
                           f"and type {data.dtype}.")
    with open(filename, "wb") as handle:
        handle.write(data.tobytes())


def write_jpeg(filename, image, quality=75):
    """Encode ``image`` as JPEG into ``filename``."""
    write_file(_path(filename), encode_jpeg(image, quality))


def write_png(filename, image, compression_level=6):
    """Encode ``image`` as PNG into ``filename``."""
    write_file(_path(filename), encode_png(image, compression_level))
