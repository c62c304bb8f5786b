"""Small helpers the readers share: checking paths and reading files whole.

>>> check_usage("train", ("train", "test", "all"))
'train'
"""
from __future__ import annotations

import os

__all__ = ["check_dir", "check_usage", "read_file_bytes"]


def check_dir(path, name="dataset_dir"):
    """The directory as a str; ValueError when it is not one (MindSpore's message)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"Argument {name} with value {path!r} is not of type [<class 'str'>], but got {type(path)}.")
    path = os.fspath(path)
    if not os.path.isdir(path) or not os.access(path, os.R_OK):
        raise ValueError(f"The folder {path} does not exist or is not a directory or permission denied!")
    return path


def check_usage(usage, valid):
    if usage is None:
        return "all"
    if not isinstance(usage, str):
        raise TypeError(f"Argument usage with value {usage!r} is not of type [<class 'str'>], but got {type(usage)}.")
    if usage not in valid:
        raise ValueError(f"Input usage is not within the valid set of {list(valid)}.")
    return usage


def read_file_bytes(path, what="file"):
    """The whole file; RuntimeError naming it when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise RuntimeError(f"Invalid {what}, failed to read {path}: {exc.strerror or exc}") from None
