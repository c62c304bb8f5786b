"""``mindspore.mindrecord``: writing MindRecord files in MindSpore's own layout.

A file written here is read by MindSpore's ``MindDataset`` and one written by MindSpore is read by
:class:`cellkit.dataset.MindDataset`: the same header, pages, compressed integers and SQLite index
(see :mod:`cellkit.mindrecord.layout`).

>>> import os, tempfile, numpy as np
>>> from cellkit.mindrecord import FileWriter
>>> import cellkit.dataset as ds
>>> path = os.path.join(tempfile.mkdtemp(), "demo.mindrecord")
>>> writer = FileWriter(path)
>>> writer.add_schema({"label": {"type": "int32"}, "data": {"type": "float32", "shape": [2]}}, "demo")
0
>>> writer.write_raw_data([{"label": 1, "data": np.array([0.5, 1.5], np.float32)}])
>>> writer.commit()
>>> [(int(r["label"]), r["data"].tolist()) for r in ds.MindDataset(path).create_dict_iterator(output_numpy=True)]
[(1, [0.5, 1.5])]
"""
from __future__ import annotations

import os

from .layout import DEFAULT_HEADER_SIZE, DEFAULT_PAGE_SIZE, check_schema, is_blob, read_header, read_shard, write_shard

__all__ = ["FileWriter", "FileReader"]


class FileWriter:
    """Write rows (dicts) into ``shard_num`` MindRecord files named after ``file_name``.

    With one shard the file is ``file_name``; with several, ``file_name0`` ... ``file_nameN-1``,
    the rows split into consecutive runs, as MindSpore splits them.  Each file gets its ``.db`` index.  Rows are kept until
    :meth:`commit`, which writes every file (each first under a temporary name).
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, str):
            raise TypeError(f"Argument file_name with value {file_name!r} is not of type [<class 'str'>], "
                            f"but got {type(file_name)}.")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise TypeError(f"Argument shard_num with value {shard_num!r} is not of type [<class 'int'>], "
                            f"but got {type(shard_num)}.")
        if not 1 <= shard_num <= 1000:
            raise ValueError(f"Parameter shard_num: {shard_num} should be in range [1, 1000].")
        if not isinstance(overwrite, bool):
            raise TypeError(f"Argument overwrite with value {overwrite!r} is not of type [<class 'bool'>], "
                            f"but got {type(overwrite)}.")
        folder = os.path.dirname(os.path.abspath(file_name))
        if not os.path.isdir(folder):
            raise RuntimeError(f"Invalid file, the folder of {file_name} does not exist.")
        self._paths = [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]
        existing = [p for p in self._paths if os.path.exists(p) or os.path.exists(p + ".db")]
        if existing and not overwrite:
            raise RuntimeError(f"Invalid file, mindrecord files already exist. Please check file path: "
                               f"{existing[0]}.\nIf you do not want to keep the files, set the 'overwrite' "
                               f"parameter to True and try again.")
        for path in existing:
            for p in (path, path + ".db"):
                if os.path.exists(p):
                    os.remove(p)
        self._schema = None
        self._desc = ""
        self._index = None
        self._rows = []
        self._header_size = DEFAULT_HEADER_SIZE
        self._page_size = DEFAULT_PAGE_SIZE
        self._committed = False

    def add_schema(self, content, desc=None):
        """Set the schema ({field: {"type": ..., "shape": [...]}}); returns its id (0)."""
        if self._schema is not None:
            raise RuntimeError("Only one schema can be added to a FileWriter.")
        if desc is not None and not isinstance(desc, str):
            raise TypeError(f"Argument desc with value {desc!r} is not of type [<class 'str'>], but got {type(desc)}.")
        self._schema = check_schema(dict(content) if isinstance(content, dict) else content)
        self._desc = desc or ""
        return 0

    def add_index(self, index_fields):
        """Index these scalar fields in the ``.db`` file (by default: every scalar field)."""
        if not isinstance(index_fields, list) or not index_fields:
            raise ValueError(f"Invalid index field, index_fields should be a non-empty list, but got {index_fields!r}.")
        if self._schema is None:
            raise RuntimeError("Failed to add index: add the schema first.")
        for field in index_fields:
            if not isinstance(field, str) or field not in self._schema:
                raise ValueError(f"Invalid index field, {field!r} is not a field of the schema.")
            if is_blob(self._schema[field]):
                raise ValueError(f"Invalid index field, {field!r} is a bytes or array field; only scalar fields "
                                 f"can be indexed.")
        self._index = list(index_fields)

    def set_header_size(self, header_size):
        """Bytes reserved for each file's header: 16 KB to 128 MB."""
        if not isinstance(header_size, int) or not (1 << 14) <= header_size <= (1 << 27):
            raise ValueError(f"Invalid header size, it should be between 16KB and 128MB, but got {header_size}.")
        self._header_size = header_size

    def set_page_size(self, page_size):
        """Bytes of each page: 32 KB to 256 MB (a row must fit in one page)."""
        if not isinstance(page_size, int) or not (1 << 15) <= page_size <= (1 << 28):
            raise ValueError(f"Invalid page size, it should be between 32KB and 256MB, but got {page_size}.")
        self._page_size = page_size

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Add rows (a list of dicts with every schema field)."""
        if self._committed:
            raise RuntimeError("Failed to write data: the FileWriter is already committed.")
        if self._schema is None:
            raise RuntimeError("Failed to write data: add the schema first.")
        if not isinstance(raw_data, list):
            raise ValueError(f"Invalid data, raw_data should be a list of dicts, but got {type(raw_data).__name__}.")
        if not isinstance(parallel_writer, bool):
            raise TypeError(f"Argument parallel_writer with value {parallel_writer!r} is not of type "
                            f"[<class 'bool'>], but got {type(parallel_writer)}.")
        from .layout import _records
        _records(self._schema, raw_data)   # check the rows now, so a bad row is reported by this call
        self._rows.extend(raw_data)

    def commit(self):
        """Write the files and their indexes."""
        if self._committed:
            raise RuntimeError("Failed to commit: the FileWriter is already committed.")
        if self._schema is None:
            raise RuntimeError("Failed to commit: add the schema first.")
        index = self._index if self._index is not None else sorted(n for n in self._schema
                                                                  if not is_blob(self._schema[n]))
        names = [os.path.basename(p) for p in self._paths]
        per_shard = -(-len(self._rows) // len(self._paths))
        for shard, path in enumerate(self._paths):
            write_shard(path, shard, names, self._schema, self._desc, index,
                        self._rows[shard * per_shard:(shard + 1) * per_shard], self._header_size, self._page_size)
        self._committed = True

    @classmethod
    def open_for_append(cls, file_name):
        """A FileWriter that rewrites existing MindRecord files with more rows."""
        header = read_header(file_name)
        folder = os.path.dirname(os.path.abspath(file_name))
        paths = [os.path.join(folder, n) for n in header["shard_addresses"]]
        rows = []
        for path in paths:
            rows += _as_writable(read_shard(path)[1])
        writer = cls.__new__(cls)
        writer._paths = paths
        writer._schema = header["schema"][0]["schema"]
        writer._desc = header["schema"][0].get("desc", "")
        fields = header.get("index_fields") or []
        writer._index = [f["index_field"] for f in fields]
        writer._rows = rows
        writer._header_size, writer._page_size = header["header_size"], header["page_size"]
        writer._committed = False
        return writer


def _as_writable(rows):
    out = []
    for row in rows:
        values = {}
        for name, value in row.items():
            if value.dtype.kind == "S":
                values[name] = bytes(value.reshape(-1)[0])
            elif value.ndim == 0:
                values[name] = value.item()
            else:
                values[name] = value
        out.append(values)
    return out


class FileReader:
    """Read the rows of MindRecord files as dicts of NumPy values (``get_next`` yields them)."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        from ..dataset.readers.mind import shard_paths

        self._paths = shard_paths(file_name)
        self._columns = columns

    def get_next(self):
        for path in self._paths:
            for row in read_shard(path)[1]:
                yield {k: v for k, v in row.items() if self._columns is None or k in self._columns}

    def close(self):
        """Nothing to release: files are read whole."""
