"""MindSpore cases made from ``tests/op_catalogue/losses.py`` (one per sample and bad input)."""
from . import catalogue_cases

CASES = catalogue_cases("losses")
