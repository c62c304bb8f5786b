"""CRC-32C (Castagnoli), the checksum that frames every record of a summary file.

MindSpore's C++ event writer protects each record with CRC-32C (polynomial
0x1EDC6F41, reflected as 0x82F63B78), "masked" as TensorFlow's record format
masks it: rotated right by 15 bits, plus the constant 0xA282EAD8.  Masking keeps a
CRC computed over bytes that themselves contain CRCs from being trivially zero.

A 256-entry table, one lookup per byte: pure Python, no extension module.  Summary
records are small (scalars, a few histograms, PNG thumbnails), so the speed of a
table-driven loop (a few MB/s) is plenty; ``zlib.crc32`` cannot be used because it
computes the other CRC-32 (polynomial 0x04C11DB7).

>>> hex(crc32c(b"123456789"))   # the standard check value
'0xe3069283'
>>> hex(masked_crc32c(b""))
'0xa282ead8'
"""
from __future__ import annotations

__all__ = ["crc32c", "masked_crc32c", "MASK_DELTA"]

MASK_DELTA = 0xA282EAD8
_POLY_REFLECTED = 0x82F63B78


def _make_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REFLECTED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc32c(data: bytes, crc: int = 0) -> int:
    """The CRC-32C of ``data`` (continuing from ``crc``, the CRC of earlier bytes)."""
    table = _TABLE
    crc ^= 0xFFFFFFFF
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C stored in a record: ``rotr15(crc) + 0xA282EAD8`` (mod 2**32)."""
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + MASK_DELTA) & 0xFFFFFFFF
