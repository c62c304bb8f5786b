"""Arranging tensors: stacking and splitting variants, diagonals, flips and rotations, padding, tiling, windows.

Each op follows the op pattern of ``cellkit/ops/_core.py``, and is declared in the op
catalogue (``tests/op_catalogue``) with its samples, aliases and MindSpore fixtures.
"""
from __future__ import annotations

__all__ = []

# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops.
TENSOR_METHODS = {}
