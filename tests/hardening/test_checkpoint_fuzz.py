"""Untrusted checkpoints: mutated ``.ckpt`` / ``.safetensors`` files are refused whole, or read exactly.

Valid files (saved here by cellkit, and the MindSpore fixtures under
tests/fixtures) are damaged by hypothesis -- truncated, bytes flipped,
inserted or deleted -- or rebuilt with crafted fields: a declared tensor of
10**12 elements, a length prefix or header length beyond the file, negative
or overflowing offsets and dims, wrong dtype strings, duplicate and
non-UTF-8 names, pickle payloads.  For every input:

* ``load_checkpoint`` raises ValueError naming the file, or returns exactly
  what an independent reader (a hand-written protobuf / safetensors parser in
  this module) reads from the same bytes; with ``crc_check=True`` a damaged
  file is refused or gives back the original values;
* a refused load allocates at most ``4 x file size + 1 MiB`` (tracemalloc);
* ``load_checkpoint(..., net=net)`` either loads or leaves ``net`` bit-identical;
* nothing is unpickled and no code runs.

An interrupted save (a crash between write and rename) leaves the previous
file byte-identical; a temporary file left by a killed process is removed
by the next save.

Each area's counts (inputs tried, faults injected, failures, losses) go
to the reliability table through tests/hardening/reliability.py.
"""
import builtins
import json
import marshal
import os
import pickle
import struct
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cellkit as ms
from cellkit import nn
from cellkit.serialization import checkpoint as checkpoint_module
from cellkit.serialization import ckpt_format

import reliability

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures")
MiB = 1 << 20
U64 = (1 << 64) - 1

FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# The reliability table's rows (tests/hardening/reliability.py writes them when CELLKIT_RELIABILITY_DIR is set).
TALLY = reliability.tally(__name__)
AREA = {"ckpt": "Untrusted .ckpt files", "safetensors": "Untrusted .safetensors files"}
AREA_ENCRYPTED = "Damaged encrypted .ckpt files (AES-GCM)"
AREA_PICKLE = "Pickle payloads in checkpoint files"
AREA_SAVE = "Interrupted checkpoint saves"


def tried(area, inputs=1, faults=1):
    TALLY.add(area, inputs_tried=inputs, faults_injected=faults)


def expect(condition, message, area, lost=False):
    """``assert condition``, counting a failure (and a loss, when something was left damaged) first."""
    if not condition:
        TALLY.add(area, failures=1, lost=int(lost))
    assert condition, message


# ============================================================ a reference reader
class Invalid(Exception):
    """The reference reader finds the bytes malformed."""


def _varint(buf, pos, end):
    value = shift = 0
    for _ in range(10):
        if pos >= end:
            raise Invalid("truncated varint")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value & U64, pos
        shift += 7
    raise Invalid("varint longer than 10 bytes")


def _skip_group(buf, pos, end, number):
    """Skip an unknown group's fields up to its END_GROUP; returns the position after it."""
    while True:
        if pos >= end:
            raise Invalid("unterminated group")
        key, pos = _varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if wire == 4:
            if field != number:
                raise Invalid("mismatched end group")
            return pos
        pos = _skip_value(buf, pos, end, field, wire)


def _skip_value(buf, pos, end, field, wire):
    if wire == 0:
        return _varint(buf, pos, end)[1]
    if wire == 1 or wire == 5:
        pos += 8 if wire == 1 else 4
        if pos > end:
            raise Invalid("truncated fixed field")
        return pos
    if wire == 2:
        size, pos = _varint(buf, pos, end)
        if size > end - pos:
            raise Invalid("length beyond the data")
        return pos + size
    if wire == 3:
        return _skip_group(buf, pos, end, field)
    raise Invalid(f"wire type {wire}")


def _fields(buf, start, end):
    """``(field, wire type, value)`` of one protobuf message; unknown fields are the caller's to ignore."""
    pos = start
    while pos < end:
        key, pos = _varint(buf, pos, end)
        if key > 0xFFFFFFFF:
            raise Invalid("key beyond 32 bits")
        field, wire = key >> 3, key & 7
        if field == 0:
            raise Invalid("field number 0")
        if wire == 4:
            raise Invalid("end group outside a group")
        if wire == 0:
            value, pos = _varint(buf, pos, end)
        elif wire == 2:
            size, pos = _varint(buf, pos, end)
            if size > end - pos:
                raise Invalid("length beyond the data")
            value, pos = (pos, pos + size), pos + size
        else:
            pos, value = _skip_value(buf, pos, end, field, wire), None
        yield field, wire, value


def _signed(value):
    return value - (1 << 64) if value >> 63 else value


def _parse_tensor(buf, span, into=None):
    tensor = into if into is not None else {"dims": [], "type": None, "content": None}
    for field, wire, value in _fields(buf, *span):
        if field == 1 and wire == 0:
            tensor["dims"].append(_signed(value))
        elif field == 1 and wire == 2:  # packed dims
            pos, end = value
            while pos < end:
                number, pos = _varint(buf, pos, end)
                tensor["dims"].append(_signed(number))
        elif field == 2 and wire == 2:
            tensor["type"] = bytes(buf[value[0]:value[1]])
        elif field == 3 and wire == 2:
            tensor["content"] = bytes(buf[value[0]:value[1]])
    return tensor


def _parse_value(buf, span):
    tag, kind, body = None, None, None
    for field, wire, value in _fields(buf, *span):
        if field == 1 and wire == 2:
            tag = bytes(buf[value[0]:value[1]])
        elif field == 2 and wire == 2:  # the oneof's tensor: a second occurrence merges into the first
            body = _parse_tensor(buf, value, body if kind == "tensor" else None)
            kind = "tensor"
        elif field == 3 and wire == 2:  # maptensor: repeated TensorProto
            body = body if kind == "map" else []
            kind = "map"
            for inner_field, inner_wire, inner in _fields(buf, *value):
                if inner_field == 1 and inner_wire == 2:
                    body.append(_parse_tensor(buf, inner))
    if tag is None:
        raise Invalid("a value without its required tag")
    for tensor in ([body] if kind == "tensor" else body if kind == "map" else []):
        if tensor["type"] is None or tensor["content"] is None:
            raise Invalid("a tensor without its required fields")
    return tag, kind, body


def reference_ckpt_records(content):
    """The records of a .ckpt file, read by hand: ``(tag bytes, kind, tensor dict)`` and whether a CRC trailer was found."""
    records, crc = content, None
    if len(content) >= 17 and content[-17:-10] == b"crc_num":
        records, crc = content[:-17], int.from_bytes(content[-10:], "big")
    values = [_parse_value(records, value) for field, wire, value in _fields(records, 0, len(records))
              if field == 1 and wire == 2]
    return values, records, crc


ITEMSIZE = {"Float16": 2, "Float32": 4, "Float64": 8, "Int8": 1, "Int16": 2, "Int32": 4, "Int64": 8, "UInt8": 1,
            "Bool": 1, "BFloat16": 2}


def _expected_entry(dtype_name, dims, data):
    """``(dtype name, shape, value bytes)`` of a numeric entry, or Invalid."""
    if any(d < 0 for d in dims):
        raise Invalid("negative dim")
    size = ITEMSIZE[dtype_name]
    if dims == [0] and len(data) == size:
        dims = []
    count = 1
    for d in dims:
        count *= d
    if count * size != len(data):
        raise Invalid("data length does not match the shape")
    if len(dims) > 64:
        raise Invalid("more dims than NumPy holds")
    if count == 0:
        try:  # NumPy refuses a shape whose product overflows, even when one dim is 0
            np.empty(0, np.uint8).reshape(tuple(dims))
        except ValueError:
            raise Invalid("a shape NumPy cannot hold") from None
    if dtype_name == "Bool":
        data = bytes(int(b != 0) for b in data)
    return dtype_name, tuple(dims), data


def reference_ckpt(content):
    """``{name: ('text', str) or (dtype name, shape, bytes)}`` as the loader must return it, or Invalid."""
    values, _, _ = reference_ckpt_records(content)
    out = {}
    i = 0
    while i < len(values):
        tag = values[i][0]
        try:
            name = tag.decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid("name not UTF-8") from None
        if name in out:
            raise Invalid("duplicate name")
        j = i + 1
        while j < len(values) and values[j][0] == tag:
            j += 1
        group = values[i:j]
        i = j
        if any(kind != "tensor" for _, kind, _ in group):
            raise Invalid("not a plain tensor")
        first = group[0][2]
        if any(t["type"] != first["type"] or t["dims"] != first["dims"] for _, _, t in group[1:]):
            raise Invalid("slices disagree")
        data = b"".join(t["content"] for _, _, t in group)
        type_name = first["type"].decode("utf-8", "replace")
        if type_name == "str":
            if len(group) > 1:
                raise Invalid("text split into records")
            if len(data) % 4:
                raise Invalid("partial UTF-32")
            try:
                out[name] = ("text", data.decode("utf-32-le").rstrip("\0"))
            except UnicodeDecodeError:
                raise Invalid("bad UTF-32") from None
            continue
        if type_name not in ITEMSIZE or first["type"] != type_name.encode():
            raise Invalid("unknown tensor_type")
        out[name] = _expected_entry(type_name, list(first["dims"]), data)
    if not out:
        raise Invalid("no entries")
    return out


SAFETENSORS_NAMES = {"F16": "Float16", "F32": "Float32", "F64": "Float64", "BF16": "BFloat16", "I8": "Int8",
                     "I16": "Int16", "I32": "Int32", "I64": "Int64", "U8": "UInt8", "BOOL": "Bool"}


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Invalid("duplicate key")
    return dict(pairs)


def _not_json(constant):
    raise Invalid(f"{constant} is not JSON")


def _is_count(value):
    return type(value) is int and 0 <= value <= U64


def reference_safetensors(content):
    """``{name: (dtype name, shape, bytes)}`` of a safetensors file, read by hand, or Invalid."""
    if len(content) < 8:
        raise Invalid("no header length")
    size = int.from_bytes(content[:8], "little")
    if size > 100_000_000 or 8 + size > len(content):
        raise Invalid("header length beyond the file")
    try:
        header = json.loads(content[8:8 + size].decode("utf-8"), object_pairs_hook=_no_duplicates,
                            parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError):
        raise Invalid("header is not UTF-8 JSON") from None
    if not isinstance(header, dict):
        raise Invalid("header is not an object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())):
        raise Invalid("bad metadata")
    buffer = content[8 + size:]
    spans = []
    for name, info in header.items():
        if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= set(info):
            raise Invalid("bad tensor info")
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if not isinstance(dtype, str) or not isinstance(shape, list) or not all(map(_is_count, shape)):
            raise Invalid("bad dtype or shape")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_count, offsets))):
            raise Invalid("bad offsets")
        if dtype not in SAFETENSORS_NAMES:
            raise Invalid("dtype cellkit lacks")
        spans.append((offsets[0], offsets[1], name, dtype, shape))
    position = 0
    out = {}
    for begin, end, name, dtype, shape in sorted(spans):
        if begin != position or end < begin:
            raise Invalid("offsets leave a gap or overlap")
        type_name = SAFETENSORS_NAMES[dtype]
        count = 1
        for d in shape:
            count *= d
        if count * ITEMSIZE[type_name] != end - begin:
            raise Invalid("offsets do not match the shape")
        position = end
        if metadata and name in metadata:
            raise Invalid("MindSpore-specific entry")
        out[name] = _expected_entry(type_name, list(shape), buffer[begin:end])
    if position != len(buffer):
        raise Invalid("bytes not covered by any tensor")
    if not out:
        raise Invalid("no entries")
    return out


def loaded_view(loaded):
    """What ``load_checkpoint`` returned, in the reference reader's form."""
    out = {}
    for name, value in loaded.items():
        if isinstance(value, str):
            out[name] = ("text", value)
        else:
            host = value.asnumpy()
            out[name] = (value.dtype.name, tuple(host.shape), np.ascontiguousarray(host).tobytes())
    return out


# ======================================================== writing crafted bytes
def varint(n):
    n &= U64
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def delimited(field, data, declared=None):
    return varint(field << 3 | 2) + varint(len(data) if declared is None else declared) + data


def tensor_bytes(dims, type_name, content, declared=None):
    type_bytes = type_name if isinstance(type_name, bytes) else type_name.encode()
    return (b"".join(varint(1 << 3) + varint(d) for d in dims) + delimited(2, type_bytes)
            + delimited(3, content, declared))


def record_bytes(tag, tensor, field=2):
    tag = tag if isinstance(tag, bytes) else tag.encode()
    return delimited(1, delimited(1, tag) + delimited(field, tensor))


def encode_records(records):
    """A .ckpt file from ``[(tag, dims, type, content)]``, one Checkpoint message per record as MindSpore writes."""
    return b"".join(record_bytes(tag, tensor_bytes(dims, type_name, content))
                    for tag, dims, type_name, content in records)


def safetensors_bytes(header, data=b"", declared=None, raw_header=None):
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if declared is None else declared & U64) + text + data


# =========================================================== the valid sources
class Block(nn.Cell):
    """Dense + BatchNorm (running statistics) + a frozen scale: every kind of state a file holds."""

    def __init__(self, width=4):
        super().__init__()
        self.dense = nn.Dense(width, 3)
        self.norm = nn.BatchNorm1d(3)
        self.scale = ms.Parameter(ms.Tensor(np.array([0.5, 2.0, -1.0], np.float32)), name="scale",
                                  requires_grad=False)

    def construct(self, x):
        return self.norm(self.dense(x)) * self.scale


def _tensor_dict(seed):
    rng = np.random.default_rng(seed)
    return {
        "f32": ms.Tensor(rng.standard_normal((2, 3)).astype(np.float32)),
        "f16": ms.Tensor(rng.standard_normal((3,)).astype(np.float16)),
        "bf16": ms.Tensor(rng.standard_normal((2, 2)).astype(np.float32), ms.bfloat16),
        "f64": ms.Tensor(rng.standard_normal((2,))),
        "i8": ms.Tensor(np.array([-3, 7], np.int8)),
        "i32": ms.Tensor(np.array([[1, -2], [3, 4]], np.int32)),
        "i64": ms.Tensor(np.array(123456789012, np.int64)),
        "u8": ms.Tensor(np.array([0, 255, 9], np.uint8)),
        "flags": ms.Tensor(np.array([True, False, True])),
    }


def _net(width, seed):
    ms.set_seed(seed)
    net = Block(width)
    net.norm.moving_mean.set_data(ms.Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
    return net


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """``{label: (bytes, format, twin-net factory or None, has CRC)}``: the files every test mutates."""
    folder = tmp_path_factory.mktemp("sources")
    made = {}

    def save(label, obj, fmt, crc=False, net=None, **kwargs):
        path = str(folder / f"{label}.{fmt}")
        ms.save_checkpoint(obj, path, format=fmt, crc_check=crc, **kwargs)
        with open(path, "rb") as f:
            made[label] = (f.read(), fmt, net, crc)

    save("net", _net(4, 0), "ckpt", net=lambda: _net(4, 1), append_dict={"epoch": 3, "note": "héllo"})
    save("net_crc", _net(4, 0), "ckpt", crc=True, net=lambda: _net(4, 1))
    save("dtypes", _tensor_dict(0), "ckpt")
    save("wide", {"w": ms.Tensor(np.arange(65536, dtype=np.float32))}, "ckpt")  # 256 KiB: the memory bound bites
    save("st_net", _net(4, 0), "safetensors", net=lambda: _net(4, 1))
    save("st_dtypes", _tensor_dict(1), "safetensors")
    save("st_crc", {k: v for k, v in _tensor_dict(2).items() if k != "bf16"}, "safetensors", crc=True)
    for name in ("ms_dense.ckpt", "ms_dense_crc.ckpt", "ms_append.ckpt", "ms_dtypes.ckpt",
                 "ms_dtypes.safetensors", "ms_crc.safetensors"):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            fmt = name.rsplit(".", 1)[1]
            net = (lambda: nn.Dense(2, 1)) if "dense" in name or "append" in name else None
            made[name] = (f.read(), fmt, net, "crc" in name)
    return made


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("mutated")


def test_reference_reader_agrees_with_the_loader_on_every_valid_source(sources, workdir):
    """The oracle itself: on untouched files both readers give the same, and the crafted encoder is exact."""
    for label, (content, fmt, _, _) in sources.items():
        path = write(workdir, f"valid.{fmt}", content)
        loaded = loaded_view(ms.load_checkpoint(path, format=fmt))
        reference = reference_ckpt(content) if fmt == "ckpt" else reference_safetensors(content)
        assert loaded == reference, f"{label}: the loader and the reference reader disagree on a valid file"
    records = [("w", [2, 2], "Float32", np.arange(4, dtype=np.float32).tobytes()), ("n", [0], "str", b"h\0\0\0")]
    expected = ckpt_format.encode_entry("w", np.arange(4, dtype=np.float32).reshape(2, 2), ms.float32)[0] \
        + ckpt_format.encode_entry("n", "h")[0]
    assert encode_records(records) == expected


# ============================================================ checking one input
def write(folder, name, content):
    path = os.path.join(str(folder), name)
    if os.path.exists(path):
        os.chmod(path, 0o600)
        os.remove(path)
    with open(path, "wb") as f:
        f.write(content)
    return os.path.realpath(path)


def snapshot(net):
    return [(p.name, p.dtype.name, tuple(p.shape), p.requires_grad, p.asnumpy().tobytes())
            for p in net.get_parameters()]


def check_input(folder, content, fmt, kind, twin=None, original=None, crc=False, fault=True):
    """Load one (possibly damaged) file every way and assert the loader's contract; returns 'refused' or 'loaded'.

    ``twin()`` makes a network to load the file into; ``original`` is the
    undamaged file's content as the reference reads it (checked against a
    CRC-verified load when ``crc``).
    """
    area = AREA[fmt]
    tried(area, faults=int(fault))
    try:
        return _check_input(folder, content, fmt, kind, twin, original, crc, area)
    except AssertionError:
        raise  # counted by expect()
    except BaseException:
        TALLY.add(area, failures=1)  # a leaked exception of another type
        raise


def _check_input(folder, content, fmt, kind, twin, original, crc, area):
    path = write(folder, f"input.{fmt}", content)
    try:
        reference = reference_ckpt(content) if fmt == "ckpt" else reference_safetensors(content)
    except Invalid:
        reference = None

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        try:
            loaded = ms.load_checkpoint(path, format=fmt)
        except ValueError as exc:
            loaded, error = None, exc
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()

    if loaded is None:
        expect(path in str(error), f"{kind}: the error does not name the file: {error}", area)
        expect(peak <= 4 * len(content) + MiB,
               f"{kind}: a refused load of {len(content)} bytes allocated {peak} bytes", area)
        outcome = "refused"  # (possibly stricter than the wire format, where the reference reads it: allowed)
    else:
        expect(reference is not None, f"{kind}: the loader accepted bytes the reference reader refuses", area)
        expect(loaded_view(loaded) == reference, f"{kind}: the loader read other values than the file holds", area)
        expect(peak <= 8 * len(content) + MiB, f"{kind}: loading {len(content)} bytes allocated {peak} bytes",
               area)
        outcome = "loaded"

    if crc and original is not None:
        # The CRC covers the records of a .ckpt file, and the names and data bytes of a safetensors file.
        try:
            checked = ms.load_checkpoint(path, format=fmt, crc_check=True)
        except ValueError as exc:
            expect(path in str(exc), f"{kind}: the CRC error does not name the file: {exc}", area)
        else:
            got = loaded_view(checked)
            if fmt == "ckpt":
                expect(got == original, f"{kind}: a damaged .ckpt passed its CRC check with other values", area)
            else:
                expect({k: v[2] for k, v in got.items()} == {k: v[2] for k, v in original.items()},
                       f"{kind}: a damaged safetensors file passed its CRC check with other names or bytes", area)

    if twin is not None:
        net = twin()
        before_net = snapshot(net)
        try:
            ms.load_checkpoint(path, net=net, format=fmt)
        except (ValueError, RuntimeError) as exc:
            # ValueError: the file is refused (naming it); RuntimeError: it reads, but a shape or
            # dtype does not fit the network (load_param_into_net, as in MindSpore).
            expect(isinstance(exc, RuntimeError) or path in str(exc), f"{kind}: {exc}", area)
            expect(snapshot(net) == before_net, f"{kind}: a refused load changed the network", area, lost=True)
        else:
            for p in net.get_parameters():
                if loaded is not None and p.name in loaded and not isinstance(loaded[p.name], str):
                    want = loaded[p.name].asnumpy().astype(p.asnumpy().dtype).reshape(p.shape)
                    expect(p.asnumpy().tobytes() == want.tobytes(), f"{kind}: {p.name} was loaded wrongly", area,
                           lost=True)
    return outcome


# ================================================================ blind damage
def blind_mutations(content):
    """A strategy of ``(kind, damaged bytes)`` for bytes-level damage of ``content``."""
    n = len(content)
    truncate = st.integers(0, n - 1).map(lambda cut: ("truncate", content[:cut]))

    def flip(args):
        pos, mask, run = args
        damaged = bytearray(content)
        for i in range(pos, min(n, pos + run)):
            damaged[i] ^= mask
        return "flip", bytes(damaged)

    flips = st.tuples(st.integers(0, n - 1), st.integers(1, 255), st.integers(1, 4)).map(flip)
    insert = st.tuples(st.integers(0, n), st.binary(min_size=1, max_size=8)).map(
        lambda a: ("insert", content[:a[0]] + a[1] + content[a[0]:]))
    delete = st.tuples(st.integers(0, n - 1), st.integers(1, 16)).map(
        lambda a: ("delete", content[:a[0]] + content[a[0] + a[1]:]))
    splice = st.tuples(st.integers(0, n - 1), st.integers(1, 64), st.integers(0, n)).map(
        lambda a: ("splice", content[:a[2]] + content[a[0]:a[0] + a[1]] + content[a[2]:]))
    return st.one_of(flips, truncate, insert, delete, splice)


def _damage(data, sources, labels, folder):
    label = data.draw(st.sampled_from(labels), label="source")
    content, fmt, twin, crc = sources[label]
    kind, damaged = data.draw(blind_mutations(content), label="damage")
    original = reference_ckpt(content) if fmt == "ckpt" else reference_safetensors(content)
    return check_input(folder, damaged, fmt, kind, twin, original, crc)


CKPT_LABELS = ["net", "net_crc", "dtypes", "wide", "ms_dense.ckpt", "ms_dense_crc.ckpt", "ms_append.ckpt",
               "ms_dtypes.ckpt"]
ST_LABELS = ["st_net", "st_dtypes", "st_crc", "ms_dtypes.safetensors", "ms_crc.safetensors"]


@FUZZ
@given(data=st.data())
def test_damaged_ckpt_is_refused_naming_the_file_or_read_exactly(sources, workdir, data):
    _damage(data, sources, CKPT_LABELS, workdir)


@FUZZ
@given(data=st.data())
def test_damaged_safetensors_is_refused_naming_the_file_or_read_exactly(sources, workdir, data):
    _damage(data, sources, ST_LABELS, workdir)


def test_every_cut_of_a_crc_file_is_refused_or_an_exact_prefix(sources, workdir):
    """Truncation at every offset (a short file): refused, or -- cut between records -- whole records only."""
    content, fmt, twin, crc = sources["net_crc"]
    for cut in range(0, len(content)):
        check_input(workdir, content[:cut], fmt, "truncate-every-offset", twin)


def test_a_flipped_byte_in_a_data_payload_is_read_as_the_file_says(sources, workdir):
    """The comparison with the reference reader can fail: damaged data that still parses gives the damaged values."""
    content, fmt, twin, _ = sources["wide"]
    payload = content.index(np.arange(65536, dtype=np.float32).tobytes()[:64])
    damaged = bytearray(content)
    damaged[payload + 4 * 1000] ^= 0x40
    assert check_input(workdir, bytes(damaged), fmt, "flip-data", twin) == "loaded"
    loaded = ms.load_checkpoint(os.path.join(str(workdir), "input.ckpt"))
    assert loaded["w"].asnumpy()[1000] != 1000.0 and loaded["w"].asnumpy()[999] == 999.0


# ============================================================ crafted .ckpt fields
HUGE_DIMS = [[10 ** 12], [2 ** 40, 2 ** 40], [0, 2 ** 62, 2 ** 62], [2 ** 63 - 1, 2], [-1], [-(2 ** 63)],
             [1] * 65, [0] * 65, [3, -2], [2 ** 31, 2 ** 31, 2 ** 31]]
DTYPE_NAMES = list(ITEMSIZE) + ["str", "Float99", "UInt16", "UInt64", "Int4", "Complex64", "", "float32",
                                "Float32\0", "\u00c9", "Tensor", "Float32 "]


def ckpt_crafted():
    """``(kind, bytes)`` of .ckpt files rebuilt with hostile fields."""
    base = [("weight", [1, 2], "Float32", np.array([[0.5, -1.5]], np.float32).tobytes()),
            ("bias", [1], "Float32", np.array([2.0], np.float32).tobytes()),
            ("step", [1], "Int32", np.array([7], np.int32).tobytes()),
            ("note", [0], "str", "hi".encode("utf-32-le"))]
    index = st.integers(0, len(base) - 1)

    def with_record(i, **change):
        records = [list(r) for r in base]
        for key, value in change.items():
            records[i][("tag", "dims", "type", "content").index(key)] = value
        return records

    numeric = st.integers(0, 2)  # (a text entry's dims are not used, as in MindSpore)
    huge_dims = st.tuples(numeric, st.sampled_from(HUGE_DIMS)).map(
        lambda a: ("huge-dims", encode_records(with_record(a[0], dims=a[1]))))
    random_dims = st.tuples(index, st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), max_size=6)).map(
        lambda a: ("random-dims", encode_records(with_record(a[0], dims=a[1]))))
    wrong_dtype = st.tuples(index, st.sampled_from(DTYPE_NAMES)).map(
        lambda a: ("wrong-dtype", encode_records(with_record(a[0], type=a[1]))))
    non_utf8_type = index.map(lambda i: ("non-utf8-dtype", encode_records(with_record(i, type=b"Float\xff2"))))

    def declared(args):
        i, size = args
        records = [record_bytes(tag, tensor_bytes(dims, t, c, size if j == i else None))
                   for j, (tag, dims, t, c) in enumerate(base)]
        return "declared-length", b"".join(records)

    declared_length = st.tuples(index, st.sampled_from([2 ** 31 - 1, 2 ** 31, 2 ** 32 + 4, 10 ** 12, U64, 1 << 62])
                                ).map(declared)

    def outer_length(size):
        tag, dims, type_name, content = base[0]
        payload = delimited(1, tag.encode()) + delimited(2, tensor_bytes(dims, type_name, content))
        return "declared-record-length", varint(1 << 3 | 2) + varint(size) + payload

    record_length = st.sampled_from([2 ** 31, 10 ** 12, U64, 1000]).map(outer_length)
    duplicate = st.tuples(index, index).filter(lambda a: a[0] != a[1]).map(
        lambda a: ("duplicate-name", encode_records(with_record(a[0], tag=base[a[1]][0]))))
    repeated = index.map(lambda i: ("duplicate-record", encode_records(base[:i + 1] + [base[i]] + base[i + 1:])))
    non_utf8 = st.tuples(index, st.binary(min_size=1, max_size=4)).map(
        lambda a: ("non-utf8-name", encode_records(with_record(a[0], tag=b"\xff" + a[1] + b"\xfe"))))
    long_name = numeric.map(lambda i: ("long-name", encode_records(with_record(i, tag="w" * 5000))))
    map_tensor = index.map(lambda i: ("map-tensor", b"".join(
        record_bytes(tag, tensor_bytes(dims, t, c), field=3 if j == i else 2)
        for j, (tag, dims, t, c) in enumerate(base))))
    empty = st.sampled_from([("empty", b""), ("only-crc-trailer", b"crc_num" + bytes(10)),
                             ("zeros", bytes(64)), ("end-group", b"\x0c"), ("bad-wire-type", b"\x0f\x00")])
    return st.one_of(huge_dims, random_dims, wrong_dtype, non_utf8_type, declared_length, record_length,
                     duplicate, repeated, non_utf8, long_name, map_tensor, empty)


@settings(FUZZ, max_examples=120)
@given(case=ckpt_crafted())
def test_crafted_ckpt_fields_are_refused_or_read_exactly(workdir, case):
    kind, content = case
    outcome = check_input(workdir, content, "ckpt", kind, lambda: nn.Dense(2, 1))
    if kind in ("huge-dims", "declared-length", "declared-record-length", "duplicate-name", "duplicate-record",
                "non-utf8-name", "non-utf8-dtype", "map-tensor", "empty", "long-name"):
        expect(outcome == "refused", f"{kind}: a hostile file was accepted", AREA["ckpt"])


# ===================================================== crafted .safetensors fields
def safetensors_crafted():
    weight = np.array([[0.5, -1.5]], np.float32).tobytes()
    bias = np.array([2.0], np.float32).tobytes()
    data = weight + bias

    def header(**change):
        h = {"weight": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]},
             "bias": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]},
             "__metadata__": {"format": "ms"}}
        for key, value in change.items():
            name, field = key.split("__")
            h[name][field] = value
        return h

    lengths = st.sampled_from([2 ** 63, U64, 10 ** 9, 100_000_001]).map(
        lambda n: ("header-length", safetensors_bytes(header(), data, declared=n)))
    beyond = st.integers(1, 64).map(
        lambda extra: ("header-length", safetensors_bytes(header(), data,
                                                          declared=len(json.dumps(header())) + len(data) + extra)))
    offsets = st.tuples(st.sampled_from(["weight", "bias"]),
                        st.sampled_from([[-4, 8], [0, -8], [8, 0], [0, 2 ** 64], [0, 10 ** 12], [4, 12],
                                         [0, 12], [2 ** 64 - 4, 8], [1.5, 8], ["0", 8], [0], [0, 8, 12]])).map(
        lambda a: ("offsets", safetensors_bytes(header(**{f"{a[0]}__data_offsets": a[1]}), data)))
    shapes = st.tuples(st.sampled_from(["weight", "bias"]),
                       st.sampled_from([[10 ** 12], [2 ** 32, 2 ** 32], [2 ** 62, 8], [-1], [0] * 65, [1] * 65,
                                        [0, 2 ** 62, 2 ** 62], [2, 1.0], [True, 2], "12"])).map(
        lambda a: ("shape", safetensors_bytes(header(**{f"{a[0]}__shape": a[1]}), data)))
    dtypes = st.tuples(st.sampled_from(["weight", "bias"]),
                       st.sampled_from(["I32", "U32", "U16", "F8_E4M3", "float32", "", 5, None, "BOOL", "I8"])).map(
        lambda a: ("dtype", safetensors_bytes(header(**{f"{a[0]}__dtype": a[1]}), data)))

    def duplicate(second_offsets):
        raw = ('{"weight": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}, '
               f'"weight": {{"dtype": "F32", "shape": [1], "data_offsets": {second_offsets}}}}}').encode()
        body = data if second_offsets == [8, 12] else weight
        return "duplicate-name", safetensors_bytes(None, body, raw_header=raw)

    duplicates = st.sampled_from([[8, 12], [0, 8]]).map(duplicate)
    same_twice = st.just(("duplicate-name", safetensors_bytes(None, weight, raw_header=(
        b'{"weight": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}, '
        b'"weight": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}}'))))
    non_utf8 = st.binary(min_size=1, max_size=3).map(lambda b: ("non-utf8-name", safetensors_bytes(
        None, weight, raw_header=b'{"w\xff' + b.replace(b'"', b"x").replace(b"\\", b"x")
        + b'": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}}')))
    metadata = st.sampled_from([{"format": 1}, ["ms"], {"weight": "maptensor"}, "x", {"crc_num": "1"}]).map(
        lambda m: ("metadata", safetensors_bytes(dict(header(), __metadata__=m), data)))
    structure = st.sampled_from([b"[]", b"null", b"{", b"{}", b'{"w": 1}', b'{"w": {"dtype": "F32"}}',
                                 b'{"w": {"dtype": "F32", "shape": [NaN], "data_offsets": [0, 0]}}',
                                 b"   {}", b"\x00" * 8]).map(
        lambda raw: ("header-structure", safetensors_bytes(None, b"", raw_header=raw)))
    tiny = st.binary(max_size=9).map(lambda b: ("empty-or-tiny", b))
    return st.one_of(lengths, beyond, offsets, shapes, dtypes, duplicates, same_twice, non_utf8, metadata,
                     structure, tiny)


@settings(FUZZ, max_examples=100)
@given(case=safetensors_crafted())
def test_crafted_safetensors_fields_are_refused_or_read_exactly(workdir, case):
    kind, content = case
    outcome = check_input(workdir, content, "safetensors", kind, lambda: nn.Dense(2, 1))
    if kind in ("header-length", "duplicate-name", "non-utf8-name", "header-structure", "empty-or-tiny"):
        expect(outcome == "refused", f"{kind}: a hostile file was accepted", AREA["safetensors"])


def test_duplicate_names_are_refused_in_both_formats(workdir):
    """The loader used to keep the last of two same-named entries silently."""
    two = encode_records([("w", [1], "Float32", bytes(4)), ("b", [1], "Float32", bytes(4)),
                          ("w", [1], "Float32", b"\0\0\x80?")])
    path = write(workdir, "dup.ckpt", two)
    with pytest.raises(ValueError, match="'w' appears twice") as info:
        ms.load_checkpoint(path)
    assert path in str(info.value)
    raw = (b'{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, '
           b'"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}')
    path = write(workdir, "dup.safetensors", safetensors_bytes(None, bytes(4), raw_header=raw))
    with pytest.raises(ValueError, match="'w' twice") as info:
        ms.load_checkpoint(path, format="safetensors")
    assert path in str(info.value)
    tried(AREA["ckpt"])
    tried(AREA["safetensors"])


@pytest.mark.parametrize("fmt, content", [
    ("ckpt", encode_records([("w", [0, 2 ** 62, 2 ** 62], "Float32", b"")])),
    ("ckpt", encode_records([("w", [0] * 65, "Float32", b"")])),
    ("safetensors", safetensors_bytes({"w": {"dtype": "F32", "shape": [0] * 65, "data_offsets": [0, 0]}})),
    ("ckpt", b""),
    ("safetensors", safetensors_bytes({})),
], ids=["overflowing-dims", "65-dims", "65-dims-safetensors", "empty-ckpt", "empty-safetensors"])
def test_shapes_numpy_cannot_hold_and_empty_files_name_the_file(workdir, fmt, content):
    """These raised NumPy's own ValueError (or an 'empty dict' message) without the file's name."""
    path = write(workdir, f"odd.{fmt}", content)
    with pytest.raises(ValueError) as info:
        ms.load_checkpoint(path, format=fmt)
    assert path in str(info.value)
    tried(AREA[fmt])


# ====================================================== encrypted files (AES-GCM)
@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_damaged_encrypted_file_is_refused_naming_the_file(workdir, data):
    """AES-GCM authenticates every block: any damage is refused whole."""
    pytest.importorskip("cryptography")
    name = data.draw(st.sampled_from(["ms_gcm.ckpt", "ms_gcm256.ckpt"]))
    key = b"0123456789abcdef" if name == "ms_gcm.ckpt" else b"0123456789abcdef0123456789abcdef"
    with open(os.path.join(FIXTURES, name), "rb") as f:
        content = f.read()
    kind, damaged = data.draw(blind_mutations(content))
    if damaged == content:
        return
    tried(AREA_ENCRYPTED)
    path = write(workdir, "enc.ckpt", damaged)
    try:
        ms.load_checkpoint(path, dec_key=key, dec_mode="AES-GCM")
    except ValueError as exc:
        expect(path in str(exc), f"{kind}: {exc}", AREA_ENCRYPTED)
    else:
        expect(False, f"{kind}: a damaged encrypted file was read", AREA_ENCRYPTED)


# ============================================================= never unpickle
class _TouchesSentinel:
    """Unpickling this object opens (creates) the sentinel file: the proof that code ran."""

    def __init__(self, sentinel):
        self.sentinel = sentinel

    def __reduce__(self):
        return (open, (self.sentinel, "w"))


def test_pickle_payloads_are_never_unpickled(workdir, monkeypatch):
    sentinel = os.path.join(str(workdir), "sentinel-code-ran")
    payload = pickle.dumps(_TouchesSentinel(sentinel), protocol=2)
    zipped = os.path.join(str(workdir), "torch-like.zip")
    import zipfile
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("archive/data.pkl", payload)
    with open(zipped, "rb") as f:
        zip_bytes = f.read()
    cases = [
        ("ckpt", payload), ("safetensors", payload), ("ckpt", zip_bytes), ("safetensors", zip_bytes),
        ("ckpt", encode_records([("w", [len(payload)], "UInt8", payload)])),
        ("ckpt", encode_records([("w", [0], "str", payload + bytes(-len(payload) % 4))])),
        ("ckpt", encode_records([("w", [0], "pickle", payload)])),
        ("safetensors", safetensors_bytes({"__metadata__": {"format": "ms", "w": payload.decode("latin-1")},
                                           "w": {"dtype": "U8", "shape": [len(payload)],
                                                 "data_offsets": [0, len(payload)]}}, payload)),
        ("safetensors", safetensors_bytes({"w": {"dtype": "U8", "shape": [len(payload)],
                                                 "data_offsets": [0, len(payload)]}}, payload)),
        ("safetensors", safetensors_bytes({"w": {"dtype": "O", "shape": [len(payload)],
                                                 "data_offsets": [0, len(payload)]}}, payload)),
    ]
    ms.load_checkpoint(os.path.join(FIXTURES, "ms_append.ckpt"))  # warm every lazy import before the traps

    def forbidden(*args, **kwargs):
        raise AssertionError("a checkpoint was unpickled or ran code")

    for module, names in ((pickle, ("loads", "load", "Unpickler", "_loads", "_load", "_Unpickler")),
                          (marshal, ("loads", "load")), (np, ("load",)),
                          (builtins, ("eval", "exec", "compile"))):
        for name in names:
            if hasattr(module, name):
                monkeypatch.setattr(module, name, forbidden)
    results = []
    for fmt, content in cases:
        path = write(workdir, f"payload.{fmt}", content)
        try:
            loaded = ms.load_checkpoint(path, format=fmt)
        except ValueError as exc:
            results.append(("refused", path in str(exc)))
        else:
            results.append(("loaded", all(isinstance(v, (str, ms.Parameter)) for v in loaded.values())))
    monkeypatch.undo()
    tried(AREA_PICKLE, inputs=len(cases), faults=len(cases))
    expect(all(ok for _, ok in results), f"a payload was refused without naming the file: {results}", AREA_PICKLE)
    expect(not os.path.exists(sentinel), "unpickling ran code", AREA_PICKLE)
    # Raw pickles and zips are refused; pickle bytes inside a UInt8 tensor are only data.
    outcomes = [r for r, _ in results]
    assert outcomes[:4] == ["refused"] * 4 and outcomes[4] == outcomes[8] == "loaded", outcomes
    assert outcomes[6] == outcomes[7] == outcomes[9] == "refused", outcomes


# ============================================================ interrupted saves
def _files(folder):
    return sorted(os.listdir(folder))


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
@pytest.mark.parametrize("error", [OSError("simulated crash at rename"), KeyboardInterrupt()],
                         ids=["oserror", "keyboardinterrupt"])
def test_save_interrupted_between_write_and_rename_keeps_the_previous_file(tmp_path, monkeypatch, fmt, error):
    path = str(tmp_path / f"net.{fmt}")
    ms.save_checkpoint(_net(4, 0), path, format=fmt)
    with open(path, "rb") as f:
        before = f.read()
    written = []
    real_replace = os.replace

    def crash(src, dst):
        with open(src, "rb") as f:
            written.append(f.read())  # the new file was complete: only the rename is missing
        raise error

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(type(error)):
        ms.save_checkpoint(_net(4, 5), path, format=fmt)
    monkeypatch.setattr(os, "replace", real_replace)
    tried(AREA_SAVE)
    assert written and written[0] != before, "the crash did not happen between write and rename"
    with open(path, "rb") as f:
        expect(f.read() == before, "the previous checkpoint changed", AREA_SAVE, lost=True)
    expect(_files(tmp_path) == [f"net.{fmt}"], f"a temporary file was left behind: {_files(tmp_path)}", AREA_SAVE)
    ms.save_checkpoint(_net(4, 5), path, format=fmt)  # the next save works
    assert ms.load_checkpoint(path, format=fmt)["dense.weight"].asnumpy().tolist() \
        == _net(4, 5).dense.weight.asnumpy().tolist()


def test_async_save_interrupted_at_rename_keeps_the_previous_file(tmp_path, monkeypatch, caplog):
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(_net(4, 0), path)
    with open(path, "rb") as f:
        before = f.read()

    def crash(src, dst):
        raise OSError("simulated crash at rename")

    monkeypatch.setattr(os, "replace", crash)
    ms.save_checkpoint(_net(4, 5), path, async_save=True)
    checkpoint_module._wait_async_save()
    monkeypatch.undo()
    tried(AREA_SAVE)
    with open(path, "rb") as f:
        expect(f.read() == before, "the previous checkpoint changed", AREA_SAVE, lost=True)
    expect(_files(tmp_path) == ["net.ckpt"], f"a temporary file was left behind: {_files(tmp_path)}", AREA_SAVE)
    assert "previous file (if any) is unchanged" in caplog.text


@pytest.mark.skipif(os.name != "posix", reason="a killed process is simulated with os._exit on POSIX")
def test_a_killed_save_leaves_the_previous_file_and_the_next_save_cleans_up(tmp_path):
    """A process killed before the rename cannot remove its temporary file; the next save does."""
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(_net(4, 0), path)
    with open(path, "rb") as f:
        before = f.read()
    script = textwrap.dedent(f"""
        import os, numpy as np, cellkit as ms
        os.replace = lambda src, dst: os._exit(17)  # killed between write and rename
        ms.save_checkpoint({{"w": ms.Tensor(np.ones(3, np.float32))}}, {path!r})
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == 17, done.stderr.decode()
    tried(AREA_SAVE)
    leftovers = [n for n in _files(tmp_path) if n != "net.ckpt"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".net.ckpt.") and leftovers[0].endswith(".tmp")
    with open(path, "rb") as f:
        expect(f.read() == before, "the previous checkpoint changed", AREA_SAVE, lost=True)
    assert list(ms.load_checkpoint(path)) == [p.name for p in _net(4, 0).get_parameters()]

    # A temporary file of a process that still runs is someone's save in progress: it stays.
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        busy = tmp_path / f".net.ckpt.{sleeper.pid}.abcd1234.tmp"
        busy.write_bytes(b"in progress")
        ms.save_checkpoint({"w": ms.Tensor(np.full(3, 2.0, np.float32))}, path)
        assert _files(tmp_path) == sorted([busy.name, "net.ckpt"])
    finally:
        sleeper.kill()
        sleeper.wait()
    ms.save_checkpoint({"w": ms.Tensor(np.full(3, 4.0, np.float32))}, path)
    assert _files(tmp_path) == ["net.ckpt"]
    assert ms.load_checkpoint(path)["w"].asnumpy().tolist() == [4.0, 4.0, 4.0]
