"""The rows of the MindRecord fixtures (``tests/fixtures/mindrecord``), shared by the tool that
writes them with MindSpore (``tools/record_mindrecord.py``) and by the tests that write the same
rows with cellkit and compare the bytes.  Imports neither MindSpore nor cellkit."""
import numpy as np

HEADER_SIZE = 1 << 14
PAGE_SIZE = 1 << 15


def files():
    """{file name: (schema, rows, index fields or None, shard count)}."""
    rng = np.random.default_rng(0)
    mixed = [{"file_name": f"img_{i}.jpg", "label": i, "data": bytes(rng.integers(0, 256, 5 + i, dtype=np.uint8)),
              "vec": rng.standard_normal(i + 1).astype(np.float32),
              "mat": np.array([[i, -300], [70000, 2 ** 40]], np.int64), "score": 0.1 * i,
              "ids": np.array([1, -2, 300, -70000][: i % 4 + 1], np.int32), "f": 0.25 * i, "big": -2 ** 35 + i}
             for i in range(6)]
    mixed_schema = {"file_name": {"type": "string"}, "label": {"type": "int32"}, "data": {"type": "bytes"},
                    "vec": {"type": "float32", "shape": [-1]}, "mat": {"type": "int64", "shape": [2, 2]},
                    "score": {"type": "float64"}, "ids": {"type": "int32", "shape": [-1]}, "f": {"type": "float32"},
                    "big": {"type": "int64"}}
    return {
        "mixed.mindrecord": (mixed_schema, mixed, ["file_name", "label"], 1),
        "arrays.mindrecord": ({"a": {"type": "int32", "shape": [-1]}, "b": {"type": "float64", "shape": [2]}},
                              [{"a": np.arange(i + 1, dtype=np.int32) * 1000, "b": np.array([i, 0.5])}
                               for i in range(3)], None, 1),
        "sharded.mindrecord": ({"x": {"type": "int32"}, "name": {"type": "string"}},
                               [{"x": i, "name": "n%d" % i} for i in range(7)], None, 2),
    }


def write_all(FileWriter, folder):
    """Write every fixture file into ``folder`` with the given ``FileWriter`` class."""
    import os
    for name, (schema, rows, index, shards) in files().items():
        writer = FileWriter(os.path.join(folder, name), shards, overwrite=True)
        writer.set_header_size(HEADER_SIZE)
        writer.set_page_size(PAGE_SIZE)
        writer.add_schema(schema, "fixture")
        if index:
            writer.add_index(index)
        writer.write_raw_data(rows)
        writer.commit()


def shard_files():
    """Every file (shards expanded) of the fixture set."""
    out = []
    for name, (_, _, _, shards) in files().items():
        out += [name] if shards == 1 else [f"{name}{i}" for i in range(shards)]
    return out


def describe(dataset_module, folder):
    """What ``MindDataset`` gives for each file: column names and, per row, dtype, shape and values."""
    import os
    out = {}
    for name in ("mixed.mindrecord", "arrays.mindrecord", "sharded.mindrecord0"):
        data = dataset_module.MindDataset(os.path.join(folder, name), shuffle=False)
        rows = []
        for row in data.create_dict_iterator(output_numpy=True):
            rows.append({k: [str(v.dtype), list(v.shape),
                             [x.hex() for x in v.tolist()] if v.dtype.kind == "S" else v.tolist()]
                         for k, v in row.items()})
        out[name] = {"columns": data.get_col_names(), "size": data.get_dataset_size(), "rows": rows}
    return out
