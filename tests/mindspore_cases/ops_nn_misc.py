"""MindSpore cases made from ``tests/op_catalogue/nn_misc.py`` (one per sample and bad input)."""
from . import catalogue_cases

CASES = catalogue_cases("nn_misc")
