"""``.safetensors`` files, read and written by the ``safetensors`` package (never through torch).

A safetensors file is an 8-byte little-endian header length, a JSON header
(each tensor's dtype, shape and byte range, plus a ``__metadata__`` dict of
strings) and the raw bytes.  MindSpore writes its tensors sorted by name with
``__metadata__ = {"format": "ms"}``; with ``crc_check=True`` it adds
``"crc_num"``: the CRC-32 over, for each name in sorted order, the name's
UTF-8 bytes followed by the tensor's bytes.
"""
from __future__ import annotations

import binascii
import json

import numpy as np

from .. import dtype as _dt
from .ckpt_format import reshaped

__all__ = ["SAFETENSORS_DTYPES", "write", "read", "crc_of", "FormatError"]

SAFETENSORS_DTYPES = {"F16": _dt.float16, "F32": _dt.float32, "F64": _dt.float64, "BF16": _dt.bfloat16,
                      "I8": _dt.int8, "I16": _dt.int16, "I32": _dt.int32, "I64": _dt.int64,
                      "U8": _dt.uint8, "BOOL": _dt.bool_}


class FormatError(ValueError):
    """The bytes are not a readable safetensors file (the caller adds the file name)."""


def crc_of(named_arrays):
    """MindSpore's safetensors CRC over ``(name, host array)`` pairs, taken in sorted name order."""
    crc = 0
    for name, array in sorted(named_arrays, key=lambda item: item[0]):
        crc = binascii.crc32(name.encode("utf-8"), crc)
        crc = binascii.crc32(np.asarray(array).tobytes(order="C"), crc)
    return crc


def write(path, arrays, metadata):
    """Write ``{name: host array}`` to ``path`` with ``metadata`` (a dict of str, or None)."""
    from safetensors.numpy import save_file

    # np.require keeps 0-d arrays 0-d (np.ascontiguousarray would make them 1-d).
    ordered = {name: np.require(arrays[name], requirements="C") for name in sorted(arrays)}
    save_file(ordered, path, metadata=metadata if ordered else None)


def _refuse_duplicates(pairs):
    """A JSON object as a dict, refusing a key given twice.

    The ``safetensors`` parser (and ``json``) silently keep the last of two
    same-named tensors; from an untrusted file that is ambiguous, so it is
    refused.
    """
    result = {}
    for key, value in pairs:
        if key in result:
            raise FormatError(f"the header names '{key}' twice; a safetensors file holds each name once")
        result[key] = value
    return result


def read(content):
    """``(entries, metadata)`` of a safetensors file's bytes.

    ``entries`` is a list of ``(name, read-only host array)`` in sorted name
    order; ``metadata`` is the ``__metadata__`` dict (or None).  Raises
    :class:`FormatError` for anything malformed or of a dtype cellkit lacks.
    """
    import safetensors

    try:
        views = safetensors.deserialize(content)  # checks the header, offsets and coverage
    except Exception as exc:  # SafetensorError
        raise FormatError(f"the content is not a valid safetensors file ({exc})") from None
    header_length = int.from_bytes(content[:8], "little")
    metadata = json.loads(bytes(content[8:8 + header_length]), object_pairs_hook=_refuse_duplicates)
    metadata = metadata.get("__metadata__")
    entries = []
    for name, view in sorted(views, key=lambda item: item[0]):
        if metadata and name in metadata:
            raise FormatError(f"tensor '{name}' is stored as MindSpore's {metadata[name]!r}, which cellkit "
                              "cannot load")
        dtype = SAFETENSORS_DTYPES.get(view["dtype"])
        if dtype is None:
            known = ", ".join(SAFETENSORS_DTYPES)
            raise FormatError(f"tensor '{name}' has dtype {view['dtype']!r}, which cellkit does not support "
                              f"(supported: {known})")
        data = bytes(view["data"])
        if dtype is _dt.bool_:
            array = np.frombuffer(data, dtype=np.uint8) != 0
        else:
            array = np.frombuffer(data, dtype=np.dtype(dtype.to_backend(np)).newbyteorder("<"))
        entries.append((name, reshaped(array, view["shape"], f"tensor '{name}'", FormatError)))
    return entries, metadata
