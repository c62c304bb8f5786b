"""MindRecord in MindSpore's layout: cellkit reads files MindSpore wrote, and writes the same bytes.

``tests/fixtures/mindrecord`` holds files written by real MindSpore 2.10 (``tools/record_mindrecord.py``)
and ``expected.json``, what MindSpore's own ``MindDataset`` read from them.  That MindSpore reads
cellkit's files follows from the byte equality checked here (and was checked by hand once, see the
module docstring of ``tools/record_mindrecord.py``).
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
import struct

import numpy as np
import pytest

import cellkit.dataset as ds
from cellkit.mindrecord import FileWriter
from cellkit.mindrecord import msgpack
from cellkit.mindrecord.layout import compress_ints, uncompress_ints

FOLDER = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "mindrecord")
_spec = importlib.util.spec_from_file_location("mindrecord_rows", os.path.join(os.path.dirname(__file__),
                                                                                "mindrecord_rows.py"))
ROWS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ROWS)
EXPECTED = json.load(open(os.path.join(FOLDER, "expected.json")))


def test_fixture_written_by_mindspore_2_10():
    assert EXPECTED["mindspore_version"].startswith("2.10")


def test_cellkit_reads_what_mindspore_read():
    assert ROWS.describe(ds, FOLDER) == EXPECTED["files"]


def _index_content(path):
    connection = sqlite3.connect(path)
    try:
        tables = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
        rows = {name: connection.execute(f"SELECT * FROM {name}").fetchall() for name, _ in tables}
    finally:
        connection.close()
    return tables, rows


def test_cellkit_writes_mindspores_bytes(tmp_path):
    ROWS.write_all(FileWriter, str(tmp_path))
    for name in ROWS.shard_files():
        mine = (tmp_path / name).read_bytes()
        theirs = open(os.path.join(FOLDER, name), "rb").read()
        assert mine == theirs, f"{name}: cellkit's file differs from MindSpore's"
        assert _index_content(str(tmp_path / name) + ".db") == _index_content(os.path.join(FOLDER, name) + ".db")


def test_round_trip_pipeline_and_columns(tmp_path):
    path = str(tmp_path / "pipe.mindrecord")
    writer = FileWriter(path)
    writer.add_schema({"image": {"type": "float32", "shape": [2, 3]}, "label": {"type": "int32"}}, "pipe")
    writer.write_raw_data([{"image": np.full((2, 3), i, np.float32), "label": i} for i in range(5)])
    writer.commit()
    data = ds.MindDataset(path, columns_list=["label", "image"], shuffle=False).batch(2)
    batches = list(data.create_tuple_iterator(output_numpy=True))
    assert [b[0].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    assert batches[0][1].shape == (2, 2, 3) and batches[0][1].dtype == np.float32
    assert ds.MindDataset(path, num_shards=2, shard_id=1, shuffle=False).get_dataset_size() == 3


def test_open_for_append(tmp_path):
    path = str(tmp_path / "grow.mindrecord")
    writer = FileWriter(path)
    writer.add_schema({"x": {"type": "int64"}}, "grow")
    writer.write_raw_data([{"x": 1}])
    writer.commit()
    again = FileWriter.open_for_append(path)
    again.write_raw_data([{"x": 2}])
    again.commit()
    assert [int(r["x"]) for r in ds.MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True)] == [1, 2]


def test_writer_refuses_existing_file_and_bad_rows(tmp_path):
    path = str(tmp_path / "once.mindrecord")
    writer = FileWriter(path)
    writer.add_schema({"x": {"type": "int32"}}, "once")
    with pytest.raises(ValueError, match="'x'"):
        writer.write_raw_data([{"x": "one"}])
    with pytest.raises(ValueError, match="lacks"):
        writer.write_raw_data([{}])
    writer.write_raw_data([{"x": 1}])
    writer.commit()
    with pytest.raises(RuntimeError, match="already exist"):
        FileWriter(path)
    with pytest.raises(ValueError, match="type of field"):
        FileWriter(str(tmp_path / "other.mindrecord")).add_schema({"x": {"type": "int8"}})
    with pytest.raises(ValueError, match="page size"):
        FileWriter(str(tmp_path / "p.mindrecord")).set_page_size(10)


def _copy(tmp_path, name="mixed.mindrecord"):
    target = tmp_path / name
    shutil.copy(os.path.join(FOLDER, name), target)
    shutil.copy(os.path.join(FOLDER, name + ".db"), str(target) + ".db")
    return target


def _read_all(path):
    return list(ds.MindDataset(str(path), shuffle=False).create_tuple_iterator(output_numpy=True))


@pytest.mark.parametrize("damage", ["truncated", "header_length", "header_json", "page_bytes", "no_index",
                                    "index_offsets", "empty"])
def test_damaged_files_are_refused_naming_them(tmp_path, damage):
    path = _copy(tmp_path)
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[:len(data) - 100]
    elif damage == "header_length":
        data[:8] = struct.pack("<Q", len(data) * 2)
    elif damage == "header_json":
        data[8:12] = b"\xff\xfe[["
    elif damage == "page_bytes":
        header = json.loads(bytes(data[8:8 + struct.unpack("<Q", bytes(data[:8]))[0]]))
        raw = next(p for p in header["page"] if p["page_type"] == "RAW_DATA")
        start = header["header_size"] + raw["page_id"] * header["page_size"]
        data[start:start + 8] = struct.pack("<Q", 999)
    elif damage == "empty":
        data = bytearray()
    path.write_bytes(bytes(data))
    if damage == "no_index":
        os.remove(str(path) + ".db")
    if damage == "index_offsets":
        connection = sqlite3.connect(str(path) + ".db")
        connection.execute("UPDATE INDEXES SET PAGE_OFFSET_RAW_END = 100000 WHERE ROW_ID = 2")
        connection.commit()
        connection.close()
    with pytest.raises((RuntimeError, ValueError), match="mixed.mindrecord"):
        _read_all(path)


def test_integer_compression_round_trips():
    values = np.array([0, 127, -128, 128, -32769, 2 ** 31, -2 ** 40, 5], np.int64)
    packed = compress_ints(values)
    assert packed[:4] == struct.pack(">I", 8)
    assert uncompress_ints(packed, np.int64, "x").tolist() == values.tolist()


def test_msgpack_subset():
    value = {"a": -1, "b": 300, "c": 0.1, "d": 0.5, "e": "é", "f": [1, None, True], "g": -2 ** 40, "h": b"\x00"}
    assert msgpack.unpack(msgpack.pack(value)) == value
    assert msgpack.pack(0.5)[:1] == b"\xca" and msgpack.pack(0.1)[:1] == b"\xcb"
    with pytest.raises(ValueError):
        msgpack.unpack(b"\x81\xa1")
    with pytest.raises(ValueError):
        msgpack.unpack(b"\xc1")


def test_image_bytes_field_decodes_in_a_pipeline(tmp_path):
    from cellkit.dataset import vision

    path = str(tmp_path / "images.mindrecord")
    image = np.random.default_rng(0).integers(0, 256, (8, 10, 3), dtype=np.uint8)
    writer = FileWriter(path)
    writer.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}}, "images")
    writer.write_raw_data([{"image": vision.encode_png(image).tobytes(), "label": 1}])
    writer.commit()
    row = next(ds.MindDataset(path).create_tuple_iterator(output_numpy=True))
    assert row[0].dtype.kind == "S" and row[0].shape == (1,)   # as MindSpore gives a bytes field
    decoded = next(ds.MindDataset(path).map(vision.Decode(), "image").create_tuple_iterator(output_numpy=True))
    assert np.array_equal(decoded[0], image)


def test_dataset_save_uses_mindspores_schema_rules(tmp_path):
    from cellkit.mindrecord.layout import read_header

    path = str(tmp_path / "saved.mindrecord")
    data = ds.NumpySlicesDataset({"img": np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
                                  "label": np.array([1, 2], np.int32), "f": np.array([0.5, 1.5], np.float16),
                                  "v": np.ones((2, 5)), "u32": np.array([3, 4], np.uint32),
                                  "s": np.array(["a", "bc"])}, shuffle=False)
    data.save(path)
    schema = read_header(path)["schema"][0]
    assert schema["desc"] == "mindrecord" and schema["blob_fields"] == ["img", "v"]
    assert schema["schema"] == {"img": {"shape": [-1, 4], "type": "int32"}, "label": {"type": "int32"},
                                "f": {"type": "float32"}, "v": {"shape": [-1], "type": "float64"},
                                "u32": {"type": "int64"}, "s": {"type": "string"}}
    rows = list(ds.MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True))
    assert rows[1]["img"].tolist() == (np.arange(12, 24).reshape(3, 4)).tolist() and rows[1]["img"].dtype == np.int32
    assert str(rows[0]["s"]) == "a" and rows[1]["f"].dtype == np.float32
    with pytest.raises(RuntimeError, match="bool"):
        ds.NumpySlicesDataset({"b": np.array([True])}).save(str(tmp_path / "bool.mindrecord"))
