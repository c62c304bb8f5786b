"""Gathering and scattering by index: gather_d/gather_nd, scatter_*, index_add/fill/select, masked ops.

Each op follows the op pattern of ``cellkit/ops/_core.py``, and is declared in the op
catalogue (``tests/op_catalogue``) with its samples, aliases and MindSpore fixtures.
"""
from __future__ import annotations

__all__ = []

# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops.
TENSOR_METHODS = {}
