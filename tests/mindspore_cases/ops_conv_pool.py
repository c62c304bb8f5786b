"""MindSpore cases made from ``tests/op_catalogue/conv_pool.py`` (one per sample and bad input)."""
from . import catalogue_cases

CASES = catalogue_cases("conv_pool")
