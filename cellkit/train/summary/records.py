"""The record framing of a summary file (TFRecord-style).

Every record is::

    uint64  length                      little-endian, the size of ``data``
    uint32  masked CRC-32C of the 8 length bytes
    bytes   data                        one serialized ``Event`` message
    uint32  masked CRC-32C of ``data``

A reader checks both CRCs and every length against the bytes left, so a
truncated or damaged file is refused with an error that names it (and the byte
offset), never read half-way as if it were whole.

>>> framed = frame(b"abc")
>>> len(framed), list(split_records(framed))
(19, [b'abc'])
"""
from __future__ import annotations

import struct

from .crc32c import masked_crc32c

__all__ = ["frame", "split_records", "RecordError", "HEADER_BYTES", "FOOTER_BYTES"]

HEADER_BYTES = 12  # length (8) + its CRC (4)
FOOTER_BYTES = 4   # the CRC of the data


class RecordError(ValueError):
    """The bytes are not a well-formed sequence of records (the caller adds the file name)."""


def frame(data: bytes) -> bytes:
    """``data`` framed as one record."""
    data = bytes(data)
    length = struct.pack("<Q", len(data))
    return b"".join((length, struct.pack("<I", masked_crc32c(length)), data,
                     struct.pack("<I", masked_crc32c(data))))


def split_records(buffer: bytes, check_crc: bool = True):
    """Yield the data of each record in ``buffer``; raise :class:`RecordError` on a damaged one."""
    view = memoryview(buffer)
    offset, total = 0, len(view)
    while offset < total:
        if total - offset < HEADER_BYTES:
            raise RecordError(f"a record header at byte {offset} is cut short ({total - offset} bytes left, "
                              f"a header has {HEADER_BYTES})")
        length_bytes = bytes(view[offset:offset + 8])
        (length,) = struct.unpack("<Q", length_bytes)
        (length_crc,) = struct.unpack("<I", view[offset + 8:offset + 12])
        if check_crc and length_crc != masked_crc32c(length_bytes):
            raise RecordError(f"the length of the record at byte {offset} fails its CRC check")
        end = offset + HEADER_BYTES + length
        if end + FOOTER_BYTES > total:
            raise RecordError(f"the record at byte {offset} says it holds {length} bytes, but only "
                              f"{max(total - offset - HEADER_BYTES - FOOTER_BYTES, 0)} follow")
        data = bytes(view[offset + HEADER_BYTES:end])
        (data_crc,) = struct.unpack("<I", view[end:end + FOOTER_BYTES])
        if check_crc and data_crc != masked_crc32c(data):
            raise RecordError(f"the data of the record at byte {offset} fails its CRC check")
        yield data
        offset = end + FOOTER_BYTES
