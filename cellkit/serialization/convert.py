"""Converting checkpoints between ``.ckpt`` and ``.safetensors``: ``ms.ckpt_to_safetensors`` and back.

A conversion loads each file with :func:`~cellkit.serialization.load_checkpoint` (checked, never
unpickled), renames the parameters listed in ``name_map`` and writes the other format with
:func:`~cellkit.serialization.save_checkpoint` (atomically). ``file_path`` is one file, or a
directory laid out as a distributed job saves it: sub-directories ``rank_0``, ``rank_1``... each
holding files; their converted twins go into the same ``rank_*`` folders under ``save_path``
(by default next to the originals). Files are converted one after another: ``processes_num`` is
checked and accepted, as in MindSpore, but one process does the work.

>>> import os, tempfile
>>> import cellkit as ms
>>> folder = tempfile.mkdtemp()
>>> ms.save_checkpoint(ms.nn.Dense(2, 1), os.path.join(folder, "net.ckpt"))
>>> ms.ckpt_to_safetensors(os.path.join(folder, "net.ckpt"), name_map={"weight": "w"})
>>> sorted(ms.load_checkpoint(os.path.join(folder, "net.safetensors"), format="safetensors"))
['bias', 'w']
"""
from __future__ import annotations

import os
import re

from .checkpoint import load_checkpoint, save_checkpoint

__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt"]

_FORMATS = {"safetensors": ("ckpt", ".ckpt", ".safetensors", "ckpt_to_safetensors"),
            "ckpt": ("safetensors", ".safetensors", ".ckpt", "safetensors_to_ckpt")}


def _convert_one(source, destination, name_map, src_format, dst_format):
    params = load_checkpoint(source, format=src_format)
    if name_map is not None:
        params = {name_map.get(name, name): value for name, value in params.items()}
    save_checkpoint(params, destination, format=dst_format)


def _convert(file_path, save_path, name_map, file_name_regex, processes_num, dst_format):
    src_format, src_suffix, dst_suffix, op = _FORMATS[dst_format]
    if not isinstance(file_path, (str, os.PathLike)):
        raise TypeError(f"For '{op}', 'file_path' must be a str, but got {type(file_path).__name__}")
    file_path = os.fspath(file_path)
    if save_path is not None and not isinstance(save_path, (str, os.PathLike)):
        raise TypeError(f"For '{op}', 'save_path' must be a str or None, but got {type(save_path).__name__}")
    save_path = os.fspath(save_path) if save_path is not None else None
    if file_name_regex is not None and not isinstance(file_name_regex, str):
        raise TypeError(f"For '{op}', 'file_name_regex' must be a str or None, but got "
                        f"{type(file_name_regex).__name__}")
    if isinstance(processes_num, bool) or not isinstance(processes_num, int) or processes_num < 1:
        raise ValueError(f"For '{op}', 'processes_num' must be a positive int, but got {processes_num!r}")
    is_dir, is_file = os.path.isdir(file_path), os.path.isfile(file_path)
    if not is_dir and not is_file:
        raise ValueError(f"For '{op}', the input path 'file_path' must be a valid path or file, but got {file_path!r}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"For '{op}', the 'save_path' must be a directory, but got {save_path!r}")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For '{op}', 'name_map' must be a dict, but got {type(name_map).__name__}")

    if is_file:
        if not file_path.endswith(src_suffix):
            raise ValueError(f"For '{op}', the input file 'file_path' must be a {src_suffix} file, but got {file_path!r}")
        if file_name_regex is not None and not re.findall(file_name_regex, file_path):
            raise ValueError(f"For '{op}', the input file {file_path!r} does not match 'file_name_regex' "
                             f"{file_name_regex!r}")
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        target_dir = save_path if save_path else os.path.dirname(file_path)
        target = os.path.join(target_dir, os.path.basename(file_path).replace(src_suffix, dst_suffix))
        _convert_one(file_path, target, name_map, src_format, dst_format)
        return

    rank_dirs = sorted(d for d in os.listdir(file_path)
                       if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
    if not rank_dirs:
        raise ValueError(f"For '{op}', no directories starting with 'rank' found in {file_path}.")
    for rank_dir in rank_dirs:
        source_dir = os.path.join(file_path, rank_dir)
        target_dir = os.path.join(save_path, rank_dir) if save_path is not None else source_dir
        os.makedirs(target_dir, exist_ok=True)
        for name in sorted(os.listdir(source_dir)):
            if name.endswith(src_suffix) and (file_name_regex is None or re.search(file_name_regex, name)):
                _convert_one(os.path.join(source_dir, name), os.path.join(target_dir, name.replace(src_suffix,
                             dst_suffix)), name_map, src_format, dst_format)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Write a ``.safetensors`` twin of a ``.ckpt`` file (or of every ``rank*/*.ckpt`` under a directory).

    Parameters
    ----------
    file_path : str
        A ``.ckpt`` file, or a directory with ``rank*`` sub-directories of them.
    save_path : str, optional
        The directory to write into (default: beside each original).
    name_map : dict, optional
        ``{old parameter name: new name}`` applied while converting.
    file_name_regex : str, optional
        Only files whose name matches this regular expression are converted.
    processes_num : int
        Accepted for MindSpore's signature; the conversion runs in this process.
    """
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Write a MindSpore ``.ckpt`` twin of a ``.safetensors`` file (or of every ``rank*/*.safetensors``).

    The arguments are those of :func:`ckpt_to_safetensors`, the other way round.

    >>> import os, tempfile
    >>> import cellkit as ms
    >>> folder = tempfile.mkdtemp()
    >>> ms.save_checkpoint(ms.nn.Dense(2, 1), os.path.join(folder, "n.safetensors"), format="safetensors")
    >>> ms.safetensors_to_ckpt(os.path.join(folder, "n.safetensors"))
    >>> sorted(ms.load_checkpoint(os.path.join(folder, "n.ckpt")))
    ['bias', 'weight']
    """
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "ckpt")
