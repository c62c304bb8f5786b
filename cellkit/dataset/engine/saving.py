"""``Dataset.save``: every row of a pipeline written to MindRecord files, with MindSpore's schema rules.

The schema comes from the first row: integers up to 32 bits are stored as int32, wider ones
(uint32, int64, uint64) as int64, float16/float32 as float32, float64 as float64, strings as
string and bytes as bytes; a scalar is a raw (indexed) field, an array a blob field of shape
``[-1]`` (1-D) or ``[-1, *rest]``.  Booleans have no MindRecord type and are refused.
"""
from __future__ import annotations

import numpy as np

__all__ = ["save_dataset"]


def _field(name, value, file_name):
    kind = value.dtype.kind
    if kind == "b":
        raise RuntimeError(f"Dataset.save to {file_name}: column {name!r} is bool, which MindRecord cannot store.")
    if kind in "iu":
        wide = value.dtype.itemsize > 4 or (kind == "u" and value.dtype.itemsize == 4)
        spec = {"type": "int64" if wide else "int32"}
    elif kind == "f":
        spec = {"type": "float64" if value.dtype.itemsize == 8 else "float32"}
    elif kind == "U":
        if value.ndim:
            raise RuntimeError(f"Dataset.save to {file_name}: column {name!r} holds an array of strings; "
                               f"MindRecord stores one string per row.")
        return {"type": "string"}
    elif kind == "S":
        return {"type": "bytes"}
    else:
        raise RuntimeError(f"Dataset.save to {file_name}: column {name!r} has type {value.dtype}, which MindRecord "
                           f"cannot store.")
    if value.ndim == 1:
        spec["shape"] = [-1]
    elif value.ndim > 1:
        spec["shape"] = [-1] + list(value.shape[1:])
    return spec


def _stored(spec, value):
    if spec["type"] == "string":
        return str(value)
    if spec["type"] == "bytes":
        return bytes(value.reshape(-1)[0]) if value.size == 1 else value.tobytes()
    if "shape" in spec:
        return value
    return value.item()


def save_dataset(dataset, file_name, num_files=1, file_type="mindrecord"):
    from ...mindrecord import FileWriter

    if not isinstance(file_name, str):
        raise TypeError(f"Argument file_name with value {file_name!r} is not of type [<class 'str'>], "
                        f"but got {type(file_name)}.")
    if not isinstance(num_files, int) or isinstance(num_files, bool) or not 1 <= num_files <= 1000:
        raise ValueError(f"Input num_files is not within the required interval of [1, 1000], but got {num_files!r}.")
    if file_type != "mindrecord":
        raise ValueError(f"Input file_type is not within the valid set of ['mindrecord'], but got {file_type!r}.")
    names = dataset.get_col_names()
    schema, rows = None, []
    for row in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True):
        values = [np.asarray(v) for v in row]
        if schema is None:
            schema = {name: _field(name, value, file_name) for name, value in zip(names, values)}
        rows.append({name: _stored(schema[name], value) for name, value in zip(names, values)})
    if schema is None:
        raise RuntimeError(f"Dataset.save to {file_name}: the dataset has no rows.")
    writer = FileWriter(file_name, num_files)
    writer.add_schema(schema, "mindrecord")
    scalars = [name for name in names if "shape" not in schema[name] and schema[name]["type"] != "bytes"]
    if scalars:
        writer.add_index(scalars)
    writer.write_raw_data(rows)
    writer.commit()
