"""``MindDataset``: rows of MindRecord files (see :mod:`cellkit.mindrecord` for the format)."""
from __future__ import annotations

__all__ = ["MindDataset"]


def MindDataset(*args, **kwargs):  # replaced below once the reader exists
    raise NotImplementedError
