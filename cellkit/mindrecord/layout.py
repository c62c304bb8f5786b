"""MindSpore's MindRecord layout, byte for byte: reading and writing one shard file and its index.

A shard is two files:

- ``NAME``: an 8-byte little-endian length and the JSON header (schema, page table, sizes), zero
  padded to ``header_size`` bytes; then pages of ``page_size`` bytes each (the last one cut at
  its end).  ``BLOB_DATA`` pages hold, per row, an 8-byte little-endian length and the row's
  blob fields (one field: its bytes; several: each as an 8-byte big-endian length and its
  bytes, in name order; int32/int64 arrays compressed as below).  ``RAW_DATA`` pages hold, per
  row, an 8-byte little-endian length and a MessagePack map of the scalar fields.
- ``NAME.db``: an SQLite file with table ``INDEXES`` (per row: its raw and blob page and the
  byte range inside each page, and the indexed field values) and ``SHARD_NAME``.

Compressed integers: a 4-byte big-endian element count, a bitmap with 2 bits per element (its
width: 0 int8, 1 int16, 2 int32, 3 int64, most significant bits first), then each element in
that width, little-endian.

Reading checks every length and offset against the file, so a damaged or cut file is refused
with a ``RuntimeError`` naming it; nothing in a file is executed or unpickled.
"""
from __future__ import annotations

import json
import os
import sqlite3
import struct

import numpy as np

from . import msgpack

__all__ = ["FIELD_TYPES", "check_schema", "write_shard", "read_shard", "read_header", "DEFAULT_HEADER_SIZE",
           "DEFAULT_PAGE_SIZE"]

FIELD_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
_NUMPY = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
_SQL_TYPE = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL", "string": "TEXT"}
DEFAULT_HEADER_SIZE = 1 << 24
DEFAULT_PAGE_SIZE = 1 << 25
VERSION = "3.0"
_INT_WIDTH = {0: ("<i1", 1), 1: ("<i2", 2), 2: ("<i4", 4), 3: ("<i8", 8)}


def check_schema(schema):
    """MindSpore's rules for a schema dict {field: {"type": ..., "shape": [...]}}; the schema, checked."""
    if not isinstance(schema, dict) or not schema:
        raise ValueError(f"Invalid schema, the schema should be a non-empty dict, but got {schema!r}.")
    for name, spec in schema.items():
        if not isinstance(name, str) or not name or not (name[0].isalpha() or name[0] == "_") or \
                not all(c.isalnum() or c == "_" for c in name):
            raise ValueError(f"Invalid schema, field name {name!r} should start with a letter or '_' and hold "
                             f"only letters, digits and '_'.")
        if not isinstance(spec, dict) or "type" not in spec or set(spec) - {"type", "shape"}:
            raise ValueError(f"Invalid schema, field {name!r} should be a dict with 'type' (and 'shape'), "
                             f"but got {spec!r}.")
        if spec["type"] not in FIELD_TYPES:
            raise ValueError(f"Invalid schema, the type of field {name!r} should be one of {list(FIELD_TYPES)}, "
                             f"but got {spec['type']!r}.")
        if "shape" in spec:
            shape = spec["shape"]
            if spec["type"] in ("string", "bytes"):
                raise ValueError(f"Invalid schema, field {name!r} of type {spec['type']} cannot have a shape.")
            if not isinstance(shape, list) or not shape or not all(isinstance(d, int) and not isinstance(d, bool)
                                                                  and (d > 0 or d == -1) for d in shape) \
                    or shape.count(-1) > 1:
                raise ValueError(f"Invalid schema, the shape of field {name!r} should be a list of positive ints "
                                 f"(at most one -1), but got {shape!r}.")
    return schema


def is_blob(spec):
    return spec["type"] == "bytes" or "shape" in spec


# ------------------------------------------------------------------------------------------- integers
def compress_ints(array):
    """int32/int64 elements in the narrowest width each fits, with MindSpore's count and bitmap."""
    values = np.ascontiguousarray(array).reshape(-1).astype(np.int64)
    n = len(values)
    widths = np.full(n, 3, np.uint8)
    widths[(values >= -(1 << 31)) & (values < (1 << 31))] = 2
    widths[(values >= -(1 << 15)) & (values < (1 << 15))] = 1
    widths[(values >= -(1 << 7)) & (values < (1 << 7))] = 0
    bitmap = bytearray((n + 3) // 4)
    for i, w in enumerate(widths.tolist()):
        bitmap[i // 4] |= w << (2 * (3 - i % 4))
    parts = [struct.pack(">I", n), bytes(bitmap)]
    for v, w in zip(values.tolist(), widths.tolist()):
        code, size = _INT_WIDTH[w]
        parts.append(np.array(v, code).tobytes())
    return b"".join(parts)


def uncompress_ints(data, dtype, where):
    if len(data) < 4:
        raise RuntimeError(f"Invalid MindRecord file {where}: a compressed integer field is {len(data)} bytes long.")
    n = struct.unpack(">I", data[:4])[0]
    bitmap_size = (n + 3) // 4
    if 4 + bitmap_size > len(data):
        raise RuntimeError(f"Invalid MindRecord file {where}: a compressed integer field is cut short.")
    codes = np.frombuffer(data, np.uint8, bitmap_size, 4)
    widths = ((codes[:, None] >> np.array([6, 4, 2, 0], np.uint8)) & 3).reshape(-1)[:n]
    sizes = (1 << widths.astype(np.int64))
    if 4 + bitmap_size + int(sizes.sum()) != len(data):
        raise RuntimeError(f"Invalid MindRecord file {where}: a compressed integer field's length does not match "
                           f"its {n} elements.")
    out = np.empty(n, np.int64)
    pos = 4 + bitmap_size
    for i, w in enumerate(widths.tolist()):
        code, size = _INT_WIDTH[w]
        out[i] = np.frombuffer(data, code, 1, pos)[0]
        pos += size
    return out.astype(dtype)


# ------------------------------------------------------------------------------------------- writing
def _field_bytes(name, spec, value, row_index):
    """(stored bytes, bytes saved by compression) of one blob field of one row."""
    if spec["type"] == "bytes":
        if not isinstance(value, (bytes, bytearray, np.ndarray)):
            raise ValueError(f"Invalid data, field {name!r} of row {row_index} should be bytes, "
                             f"but got {type(value).__name__}.")
        data = value.tobytes() if isinstance(value, np.ndarray) else bytes(value)
        return data, 0
    array = np.asarray(value)
    if array.dtype.kind not in "iufb":
        raise ValueError(f"Invalid data, field {name!r} of row {row_index} should be a numeric array, "
                         f"but got {array.dtype}.")
    array = array.astype(_NUMPY[spec["type"]])
    shape = spec["shape"]
    if -1 not in shape and list(array.shape) != shape and array.size != int(np.prod(shape)):
        raise ValueError(f"Invalid data, field {name!r} of row {row_index} should have shape {shape}, "
                         f"but got {list(array.shape)}.")
    raw = np.ascontiguousarray(array).tobytes()
    if spec["type"] in ("int32", "int64"):
        packed = compress_ints(array)
        return packed, len(raw) - len(packed)
    return raw, 0


def _raw_value(name, spec, value, row_index):
    kind = spec["type"]
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise ValueError(f"Invalid data, field {name!r} of row {row_index} should be a scalar, "
                             f"but got shape {list(value.shape)}.")
        value = value.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    if kind == "string":
        if not isinstance(value, str):
            raise ValueError(f"Invalid data, field {name!r} of row {row_index} should be str, "
                             f"but got {type(value).__name__}.")
        return value
    if kind in ("int32", "int64"):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"Invalid data, field {name!r} of row {row_index} should be int, "
                             f"but got {type(value).__name__}.")
        bits = 31 if kind == "int32" else 63
        if not -(1 << bits) <= value < (1 << bits):
            raise ValueError(f"Invalid data, field {name!r} of row {row_index} is out of the range of {kind}.")
        return value
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(f"Invalid data, field {name!r} of row {row_index} should be float, "
                         f"but got {type(value).__name__}.")
    return float(value)


def _records(schema, rows):
    """Per row: (blob record, raw record, indexed values), and the bytes saved by compression."""
    names = sorted(schema)
    blob_names = [n for n in names if is_blob(schema[n])]
    raw_names = [n for n in names if not is_blob(schema[n])]
    saved = 0
    records = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"Invalid data, row {index} should be a dict, but got {type(row).__name__}.")
        missing = [n for n in names if n not in row]
        if missing:
            raise ValueError(f"Invalid data, row {index} lacks the field(s) {missing} of the schema.")
        fields = []
        for name in blob_names:
            data, gain = _field_bytes(name, schema[name], row[name], index)
            saved += gain
            fields.append(data)
        if len(fields) == 1:
            blob = fields[0]
        elif fields:
            blob = b"".join(struct.pack(">Q", len(f)) + f for f in fields)
        else:
            blob = bytes(4)
        raw = {name: _raw_value(name, schema[name], row[name], index) for name in raw_names} or {"id": 0}
        packed = msgpack.pack(raw)
        records.append((struct.pack("<Q", len(blob)) + blob, struct.pack("<Q", len(packed)) + packed, raw))
    return records, saved


def _paginate(sizes, page_size, what, path):
    """Split record sizes into pages: lists of (record index, offset in page)."""
    pages, current, used = [], [], 0
    for k, size in enumerate(sizes):
        if size > page_size:
            raise RuntimeError(f"Failed to write {path}: a {what} row of {size} bytes is larger than the page size "
                               f"{page_size}; raise it with set_page_size.")
        if used + size > page_size:
            pages.append(current)
            current, used = [], 0
        current.append((k, used))
        used += size
    if current:
        pages.append(current)
    return pages


def write_shard(path, shard_id, shard_names, schema, desc, index_fields, rows, header_size, page_size):
    """Write one shard file and its ``.db`` index in MindSpore's layout."""
    records, saved = _records(schema, rows)
    blob_pages = _paginate([len(r[0]) for r in records], page_size, "blob", path)
    raw_pages = _paginate([len(r[1]) for r in records], page_size, "raw", path)
    group_of = {}
    for group, page in enumerate(blob_pages):
        for k, _ in page:
            group_of[k] = group
    page_table, bodies = [], []
    location = {}
    for group, page in enumerate(blob_pages):
        body = b"".join(records[k][0] for k, _ in page)
        for k, offset in page:
            location.setdefault(k, {})["blob"] = (group, offset, offset + len(records[k][0]))
        page_table.append({"end_row_id": page[-1][0] + 1, "page_id": group, "page_size": len(body),
                           "page_type": "BLOB_DATA", "page_type_id": group,
                           "row_group_ids": [{"id": 0, "offset": 0}], "shard_id": shard_id,
                           "start_row_id": page[0][0]})
        bodies.append(body)
    if not records:
        page_table.append({"end_row_id": 0, "page_id": 0, "page_size": 0, "page_type": "BLOB_DATA",
                           "page_type_id": 0, "row_group_ids": [{"id": 0, "offset": 0}], "shard_id": shard_id,
                           "start_row_id": 0})
        bodies.append(b"")
    first_raw = len(bodies)
    for number, page in enumerate(raw_pages):
        page_id = first_raw + number
        body = b"".join(records[k][1] for k, _ in page)
        groups = []
        for k, offset in page:
            location[k]["raw"] = (page_id, offset, offset + len(records[k][1]))
            if not groups or groups[-1]["id"] != group_of[k]:
                groups.append({"id": group_of[k], "offset": offset})
        page_table.append({"end_row_id": 0, "page_id": page_id, "page_size": len(body), "page_type": "RAW_DATA",
                           "page_type_id": number, "row_group_ids": groups, "shard_id": shard_id,
                           "start_row_id": 0})
        bodies.append(body)
    header = {"header_size": header_size,
              "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
              "page": page_table, "page_size": page_size, "compression_size": saved,
              "schema": [{"blob_fields": sorted(n for n in schema if is_blob(schema[n])), "desc": desc,
                          "schema": {n: dict(sorted(schema[n].items(), key=lambda kv: kv[0] != "shape"))
                                     for n in sorted(schema)}}],
              "shard_addresses": list(shard_names), "shard_id": shard_id, "statistics": None, "version": VERSION}
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if 8 + len(text) > header_size:
        raise RuntimeError(f"Failed to write {path}: the header needs {8 + len(text)} bytes, more than the header "
                           f"size {header_size}; raise it with set_header_size.")
    temporary = path + ".writing"
    with open(temporary, "wb") as handle:
        # the zero padding of the header and of every page but the last is left as holes (sparse files)
        handle.write(struct.pack("<Q", len(text)) + text)
        for number, body in enumerate(bodies):
            handle.seek(header_size + number * page_size)
            handle.write(body)
        handle.truncate(header_size + (len(bodies) - 1) * page_size + len(bodies[-1]))
    _write_index(path + ".db", os.path.basename(path), schema, index_fields, records, location)
    os.replace(temporary, path)


def _write_index(db_path, shard_name, schema, index_fields, records, location):
    if os.path.exists(db_path):
        os.remove(db_path)
    columns = "".join(f",INC_{k} INT, {f}_0 {_SQL_TYPE[schema[f]['type']]}" for k, f in enumerate(index_fields))
    keys = "".join(f",INC_{k}" for k in range(len(index_fields)))
    connection = sqlite3.connect(db_path)
    try:
        connection.execute(
            "CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL, "
            "PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         INT  NOT NULL,"
            " PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, PAGE_OFFSET_BLOB_END INT  NOT NULL"
            f"{columns}, PRIMARY KEY(ROW_ID{keys}));")
        connection.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL);")
        connection.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?);", (shard_name,))
        marks = ",".join("?" * (8 + 2 * len(index_fields)))
        for k, record in enumerate(records):
            raw_page, raw_start, raw_end = location[k]["raw"]
            group, blob_start, blob_end = location[k]["blob"]
            values = [k, raw_page, raw_start, raw_end, group, group, blob_start, blob_end]
            for field in index_fields:
                values += [0, record[2][field]]
            connection.execute(f"INSERT INTO INDEXES VALUES ({marks});", values)
        connection.commit()
    finally:
        connection.close()


# ------------------------------------------------------------------------------------------- reading
def _bad(path, why):
    return RuntimeError(f"Invalid MindRecord file {path}: {why}.")


def read_header(path):
    """The JSON header of a shard file (checked)."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(8)
            if len(head) < 8:
                raise _bad(path, f"it is {size} bytes long, too short for a header")
            length = struct.unpack("<Q", head)[0]
            if length == 0 or length + 8 > size:
                raise _bad(path, f"its header length {length} does not fit the file of {size} bytes")
            text = handle.read(length)
    except OSError as exc:
        raise RuntimeError(f"Invalid MindRecord file {path}: cannot read it ({exc.strerror or exc}).") from None
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _bad(path, "its header is not valid JSON") from None
    required = {"header_size": int, "page_size": int, "page": list, "schema": list, "shard_addresses": list}
    if not isinstance(header, dict):
        raise _bad(path, "its header is not a JSON object")
    for key, kind in required.items():
        if not isinstance(header.get(key), kind):
            raise _bad(path, f"its header lacks {key!r}")
    if not header["schema"] or not isinstance(header["schema"][0], dict) or \
            not isinstance(header["schema"][0].get("schema"), dict):
        raise _bad(path, "its header has no schema")
    try:
        check_schema(header["schema"][0]["schema"])
    except ValueError as exc:
        raise _bad(path, f"its schema is not valid ({exc})") from None
    if header["header_size"] < 8 + length or header["page_size"] <= 0:
        raise _bad(path, "its header and page sizes are not consistent")
    return header


def _decode_blob(path, schema, blob_names, blob, row):
    if len(blob_names) == 1:
        parts = [blob]
    else:
        parts, pos = [], 0
        for name in blob_names:
            if pos + 8 > len(blob):
                raise _bad(path, f"row {row}'s blob data is cut short at field {name!r}")
            n = struct.unpack(">Q", blob[pos:pos + 8])[0]
            pos += 8
            if pos + n > len(blob):
                raise _bad(path, f"row {row}'s field {name!r} runs past its blob data")
            parts.append(blob[pos:pos + n])
            pos += n
        if pos != len(blob):
            raise _bad(path, f"row {row}'s blob data has {len(blob) - pos} bytes after its fields")
    out = {}
    for name, data in zip(blob_names, parts):
        spec = schema[name]
        if spec["type"] == "bytes":
            out[name] = np.array([bytes(data)])
            continue
        dtype = _NUMPY[spec["type"]]
        if spec["type"] in ("int32", "int64"):
            values = uncompress_ints(bytes(data), dtype, path)
        else:
            if len(data) % np.dtype(dtype).itemsize:
                raise _bad(path, f"row {row}'s field {name!r} is not a whole number of {spec['type']} values")
            values = np.frombuffer(bytes(data), dtype).copy()
        shape = spec["shape"]
        fixed = int(np.prod([d for d in shape if d != -1]))
        if (-1 in shape and values.size % max(fixed, 1)) or (-1 not in shape and values.size != fixed):
            raise _bad(path, f"row {row}'s field {name!r} has {values.size} values, which do not fit shape {shape}")
        out[name] = values.reshape(shape)
    return out


def _raw_scalar(path, spec, value, name, row):
    kind = spec["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise _bad(path, f"row {row}'s field {name!r} is not a string")
        return np.array(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(path, f"row {row}'s field {name!r} is not a number")
    return np.array(value, _NUMPY[kind])


def read_shard(path):
    """(header, rows as dicts of NumPy values) of one shard file, checked against its ``.db`` index."""
    header = read_header(path)
    schema = header["schema"][0]["schema"]
    names = sorted(schema)
    blob_names = [n for n in names if is_blob(schema[n])]
    raw_names = [n for n in names if not is_blob(schema[n])]
    size = os.path.getsize(path)
    header_size, page_size = header["header_size"], header["page_size"]
    pages = {}
    for page in header["page"]:
        if not isinstance(page, dict) or not isinstance(page.get("page_id"), int) or \
                not isinstance(page.get("page_size"), int) or page.get("page_type") not in ("BLOB_DATA", "RAW_DATA"):
            raise _bad(path, "its page table is damaged")
        start = header_size + page["page_id"] * page_size
        if page["page_size"] > page_size or start + page["page_size"] > size:
            raise _bad(path, f"page {page['page_id']} runs past the end of the file ({size} bytes)")
        pages[page["page_id"]] = page
    db_path = path + ".db"
    if not os.path.isfile(db_path):
        raise RuntimeError(f"Invalid MindRecord file {path}: its index {db_path} is missing.")
    try:
        connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            index = connection.execute(
                "SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, PAGE_ID_BLOB, PAGE_OFFSET_BLOB, "
                "PAGE_OFFSET_BLOB_END FROM INDEXES ORDER BY ROW_ID").fetchall()
        finally:
            connection.close()
    except sqlite3.Error as exc:
        raise RuntimeError(f"Invalid MindRecord index {db_path}: {exc}.") from None
    rows = []
    with open(path, "rb") as handle:
        data = handle.read()
    for row_id, raw_page, raw_start, raw_end, blob_page, blob_start, blob_end in index:
        record = {}
        for kind, page_id, start, end in (("RAW_DATA", raw_page, raw_start, raw_end),
                                          ("BLOB_DATA", blob_page, blob_start, blob_end)):
            page = pages.get(page_id)
            if page is None or page["page_type"] != kind or not 0 <= start <= end - 8 or end > page["page_size"]:
                raise _bad(path, f"row {row_id}'s index entry points outside its {kind} page (see {db_path})")
            base = header_size + page_id * page_size
            chunk = data[base + start:base + end]
            length = struct.unpack("<Q", chunk[:8])[0]
            if length != len(chunk) - 8:
                raise _bad(path, f"row {row_id}'s {kind} record says {length} bytes but its index gives "
                                 f"{len(chunk) - 8}")
            record[kind] = chunk[8:]
        try:
            raw = msgpack.unpack(record["RAW_DATA"])
        except ValueError as exc:
            raise _bad(path, f"row {row_id}'s raw data is damaged ({exc})") from None
        if not isinstance(raw, dict):
            raise _bad(path, f"row {row_id}'s raw data is not a map")
        values = {}
        for name in raw_names:
            if name not in raw:
                raise _bad(path, f"row {row_id} lacks field {name!r}")
            values[name] = _raw_scalar(path, schema[name], raw[name], name, row_id)
        if blob_names:
            values.update(_decode_blob(path, schema, blob_names, record["BLOB_DATA"], row_id))
        rows.append(values)
    return header, rows
