"""``ImageFolderDataset``: one folder per class, the images inside.

Class folders are taken in name order and numbered from 0 (or as ``class_indexing`` says, which
also limits the folders read); within a folder the files are taken in name order, filtered by
``extensions`` (exact suffixes such as ``".jpg"``, case-sensitive, as in MindSpore).  Rows are
``image`` -- the file's bytes as a UInt8 vector, or with ``decode=True`` the RGB image (HWC) --
and ``label`` (Int32).  A folder inside a class folder is an error, as in MindSpore.  Decoded
images are kept for later epochs (up to the map cache's budget).

>>> import os, tempfile, numpy as np
>>> from PIL import Image
>>> import cellkit.dataset as ds
>>> root = tempfile.mkdtemp()
>>> for name in ("cat", "dog"):
...     os.mkdir(os.path.join(root, name))
...     Image.new("RGB", (4, 3)).save(os.path.join(root, name, "a.png"))
>>> data = ds.ImageFolderDataset(root, decode=True, shuffle=False)
>>> data.get_class_indexing(), [(r[0].shape, int(r[1])) for r in data]
({'cat': 0, 'dog': 1}, [((3, 4, 3), 0), ((3, 4, 3), 1)])
"""
from __future__ import annotations

import os

import numpy as np

from ..engine.columns import Block
from ..engine.sources import MappableDataset
from ..engine.transforming import CACHE_BYTES
from .files import check_dir, read_file_bytes

__all__ = ["ImageFolderDataset"]


class ImageFolderDataset(MappableDataset):
    """Images in class folders (see the module docstring)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        self.dataset_dir = check_dir(dataset_dir)
        if extensions is not None:
            if not isinstance(extensions, list) or not all(isinstance(e, str) for e in extensions):
                raise TypeError(f"Argument extensions with value {extensions!r} is not a list of str.")
        if class_indexing is not None:
            if not isinstance(class_indexing, dict):
                raise TypeError(f"Argument class_indexing with value {class_indexing!r} is not of type "
                                f"[<class 'dict'>], but got {type(class_indexing)}.")
            for key, value in class_indexing.items():
                if not isinstance(key, str) or isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError(f"class_indexing should map class names (str) to labels (int), but got "
                                    f"{key!r}: {value!r}.")
        if not isinstance(decode, bool):
            raise TypeError(f"Argument decode with value {decode!r} is not of type [<class 'bool'>].")
        if decrypt is not None and not callable(decrypt):
            raise TypeError("decrypt should be a callable that takes the file's bytes.")
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
        self.extensions = extensions
        self.class_indexing = class_indexing
        self.decode = decode
        self.decrypt = decrypt
        self._entries = None
        self._decoded = {}
        self._decoded_bytes = 0

    def _scan(self):
        if self._entries is not None:
            return self._entries
        folders = sorted(n for n in os.listdir(self.dataset_dir) if os.path.isdir(os.path.join(self.dataset_dir, n)))
        if self.class_indexing is not None:
            indexing = dict(self.class_indexing)
            folders = [f for f in folders if f in indexing]
        else:
            indexing = {name: k for k, name in enumerate(folders)}
        entries = []
        for folder in folders:
            directory = os.path.join(self.dataset_dir, folder)
            for name in sorted(os.listdir(directory)):
                if self.extensions is not None and not any(name.endswith(e) for e in self.extensions):
                    continue
                path = os.path.join(directory, name)
                if os.path.isdir(path):
                    raise RuntimeError(f"Invalid file found: {path}, should be file, but got directory.")
                entries.append((path, indexing[folder]))
        if not entries:
            raise RuntimeError("Invalid data, ImageFolderDataset API can't read the data file (interface mismatch or "
                               f"no data found). Check image folder file path: {self.dataset_dir}")
        self._indexing = indexing
        self._entries = entries
        self._label_array = np.array([label for _, label in entries], dtype=np.int32)
        return entries

    def _column_names(self):
        return ["image", "label"]

    def _num_rows(self):
        return len(self._scan())

    def _class_indexing(self):
        self._scan()
        return self._indexing

    def _labels(self):
        self._scan()
        return self._label_array

    def _file(self, path):
        data = read_file_bytes(path, "image file")
        if self.decrypt is not None:
            data = self.decrypt(data)
        return data

    def _image(self, row_id):
        path = self._entries[row_id][0]
        if not self.decode:
            return np.frombuffer(self._file(path), dtype=np.uint8).copy()
        cached = self._decoded.get(row_id)
        if cached is not None:
            return cached
        from ..vision.codec import decode_image

        image = decode_image(self._file(path), path)
        if self._decoded_bytes < CACHE_BYTES:
            image.flags.writeable = False
            self._decoded[row_id] = image
            self._decoded_bytes += image.nbytes
        return image

    def _read(self, ids):
        self._scan()
        images = [self._image(int(i)) for i in ids]
        labels = self._label_array[ids]
        from ..engine.columns import pack_rows

        return Block([pack_rows(images), labels], len(ids))

    def _stable_rows(self):
        return True
