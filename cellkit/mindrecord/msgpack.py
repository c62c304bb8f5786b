"""The subset of MessagePack that MindRecord's raw pages use (maps of strings to numbers and strings).

Encoding chooses the smallest form, as MindSpore's writer (nlohmann::json) does: positive
integers as fixint/uint8..uint64, negative ones as negative fixint/int8..int64, a float as
float32 when it converts without loss, else float64.  Decoding is a checked parser: truncated or
unknown input raises ``ValueError``; it builds only dicts, lists, str, bytes, numbers, bools and None.

>>> unpack(pack({"label": 3, "name": "a.jpg", "x": 0.5}))
{'label': 3, 'name': 'a.jpg', 'x': 0.5}
"""
from __future__ import annotations

import math
import struct

__all__ = ["pack", "unpack"]


def _pack_int(n, out):
    if n >= 0:
        if n < 0x80:
            out.append(n)
        elif n <= 0xFF:
            out += b"\xcc" + struct.pack(">B", n)
        elif n <= 0xFFFF:
            out += b"\xcd" + struct.pack(">H", n)
        elif n <= 0xFFFFFFFF:
            out += b"\xce" + struct.pack(">I", n)
        else:
            out += b"\xcf" + struct.pack(">Q", n)
    elif n >= -32:
        out += struct.pack(">b", n)
    elif n >= -0x80:
        out += b"\xd0" + struct.pack(">b", n)
    elif n >= -0x8000:
        out += b"\xd1" + struct.pack(">h", n)
    elif n >= -0x80000000:
        out += b"\xd2" + struct.pack(">i", n)
    else:
        out += b"\xd3" + struct.pack(">q", n)


def _pack(value, out):
    if value is None:
        out.append(0xC0)
    elif value is True or value is False:
        out.append(0xC3 if value else 0xC2)
    elif isinstance(value, int):
        _pack_int(int(value), out)
    elif isinstance(value, float):
        single = struct.unpack(">f", struct.pack(">f", value))[0] if abs(value) <= 3.4028234663852886e38 \
            or not math.isfinite(value) else None
        if single is not None and (single == value or (math.isnan(single) and math.isnan(value))):
            out += b"\xca" + struct.pack(">f", value)
        else:
            out += b"\xcb" + struct.pack(">d", value)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        n = len(data)
        if n < 32:
            out.append(0xA0 | n)
        elif n <= 0xFF:
            out += b"\xd9" + struct.pack(">B", n)
        elif n <= 0xFFFF:
            out += b"\xda" + struct.pack(">H", n)
        else:
            out += b"\xdb" + struct.pack(">I", n)
        out += data
    elif isinstance(value, (bytes, bytearray)):
        n = len(value)
        out += (b"\xc4" + struct.pack(">B", n)) if n <= 0xFF else (b"\xc5" + struct.pack(">H", n)) if n <= 0xFFFF \
            else (b"\xc6" + struct.pack(">I", n))
        out += value
    elif isinstance(value, (list, tuple)):
        n = len(value)
        out += bytes([0x90 | n]) if n < 16 else (b"\xdc" + struct.pack(">H", n)) if n <= 0xFFFF \
            else (b"\xdd" + struct.pack(">I", n))
        for v in value:
            _pack(v, out)
    elif isinstance(value, dict):
        n = len(value)
        out += bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n)) if n <= 0xFFFF \
            else (b"\xdf" + struct.pack(">I", n))
        for k in sorted(value):
            _pack(str(k), out)
            _pack(value[k], out)
    else:
        raise TypeError(f"MindRecord raw data cannot hold a {type(value).__name__}: {value!r:.60}")


def pack(value) -> bytes:
    """MessagePack bytes of ``value`` (map keys sorted, as MindSpore writes them)."""
    out = bytearray()
    _pack(value, out)
    return bytes(out)


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("MessagePack data ends in the middle of a value")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def value(self, depth=0):
        if depth > 64:
            raise ValueError("MessagePack data nests too deeply")
        b = self.take(1)[0]
        if b < 0x80:
            return b
        if b >= 0xE0:
            return b - 0x100
        if 0x80 <= b <= 0x8F:
            return self.map(b & 0x0F, depth)
        if 0x90 <= b <= 0x9F:
            return [self.value(depth + 1) for _ in range(b & 0x0F)]
        if 0xA0 <= b <= 0xBF:
            return self.take(b & 0x1F).decode("utf-8")
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in simple:
            return simple[b]
        fixed = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
                 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
        if b in fixed:
            return self.unpack(fixed[b])
        if b in (0xD9, 0xDA, 0xDB):
            return self.take(self.unpack({0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}[b])).decode("utf-8")
        if b in (0xC4, 0xC5, 0xC6):
            return bytes(self.take(self.unpack({0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}[b])))
        if b in (0xDC, 0xDD):
            return [self.value(depth + 1) for _ in range(self.unpack(">H" if b == 0xDC else ">I"))]
        if b in (0xDE, 0xDF):
            return self.map(self.unpack(">H" if b == 0xDE else ">I"), depth)
        raise ValueError(f"MessagePack type byte 0x{b:02x} is not one MindRecord writes")

    def map(self, n, depth):
        out = {}
        for _ in range(n):
            key = self.value(depth + 1)
            if not isinstance(key, str):
                raise ValueError("MessagePack map key is not a string")
            out[key] = self.value(depth + 1)
        return out


def unpack(data):
    """The value encoded in ``data`` (all of it); ValueError for damaged data."""
    reader = _Reader(bytes(data))
    try:
        value = reader.value()
    except UnicodeDecodeError as exc:
        raise ValueError(f"MessagePack string is not UTF-8: {exc}") from None
    if reader.pos != len(reader.data):
        raise ValueError(f"MessagePack data has {len(reader.data) - reader.pos} bytes after its value")
    return value
