"""Image files in and out: decoding JPEG, PNG, BMP and TIFF to RGB arrays, encoding JPEG and PNG.

Decoding goes through Pillow (libjpeg-turbo, zlib), which gives the same pixels as MindSpore's
decoder for these formats (checked against MindSpore 2.10, JPEG included); like MindSpore,
cellkit refuses other formats (GIF, WebP).  Colour images come out as RGB, grey and palette
images are expanded to three channels, an alpha channel is dropped.  A file that is not a
readable image is refused with a RuntimeError naming it.

>>> import numpy as np
>>> data = encode_png(np.full((2, 3, 3), 200, np.uint8))
>>> image_format(data), decode_image(data).shape
('PNG', (2, 3, 3))
"""
from __future__ import annotations

import io

import numpy as np

__all__ = ["image_format", "decode_image", "decode_pil", "encode_jpeg", "encode_png", "SUPPORTED"]

SUPPORTED = ("JPEG", "PNG", "BMP", "TIFF")


def image_format(data: bytes):
    """The format named by a file's first bytes, or None."""
    head = bytes(data[:12])
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"BM"):
        return "BMP"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "TIFF"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "GIF"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "WEBP"
    return None


def _as_bytes(data):
    if isinstance(data, np.ndarray) and data.dtype.kind == "S" and data.size == 1:
        return bytes(data.reshape(-1)[0])   # a MindRecord bytes field, as MindDataset gives it
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError(f"Decode: the input should be a 1-D uint8 array of the file's bytes, but got an array "
                            f"of shape {data.shape} and dtype {data.dtype}.")
        return data.tobytes()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"Decode: the input should be the file's bytes (numpy uint8 array or bytes), "
                    f"but got {type(data).__name__}.")


def decode_pil(data, where="the image"):
    """The file's bytes as a PIL image in RGB mode (RuntimeError naming ``where`` if unreadable)."""
    from PIL import Image, UnidentifiedImageError

    raw = _as_bytes(data)
    kind = image_format(raw)
    if kind not in SUPPORTED:
        named = f"{kind} is not supported" if kind else "its format is unknown"
        raise RuntimeError(f"Invalid image, {where} decode failed: {named}; MindSpore decodes "
                           f"{', '.join(SUPPORTED)} files.")
    try:
        image = Image.open(io.BytesIO(raw))
        image.load()
        if image.mode != "RGB":
            image = image.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise RuntimeError(f"Invalid image, {where} decode failed, the image is broken: {exc}") from None
    return image


def decode_image(data, where="the image"):
    """The file's bytes as an RGB array (H, W, 3) of uint8."""
    return np.asarray(decode_pil(data, where)).copy()


def _pil_from_array(image, what):
    from PIL import Image

    image = np.asarray(image)
    if image.dtype != np.uint8:
        raise RuntimeError(f"{what}: the image should be uint8, but got {image.dtype}.")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2:
        return Image.fromarray(image, "L")
    if image.ndim == 3 and image.shape[2] == 3:
        return Image.fromarray(image, "RGB")
    raise RuntimeError(f"{what}: the image should be <H, W> or <H, W, C> with C 1 or 3, but got shape {image.shape}.")


def encode_jpeg(image, quality=75):
    """JPEG bytes of an (H, W) or (H, W, 1|3) uint8 image."""
    buffer = io.BytesIO()
    _pil_from_array(image, "encode_jpeg").save(buffer, format="JPEG", quality=int(quality))
    return buffer.getvalue()


def encode_png(image, compression_level=6):
    """PNG bytes of an (H, W) or (H, W, 1|3) uint8 image."""
    buffer = io.BytesIO()
    _pil_from_array(image, "encode_png").save(buffer, format="PNG", compress_level=int(compression_level))
    return buffer.getvalue()
