"""MindSpore cases made from ``tests/op_catalogue/creation.py`` (one per sample and bad input)."""
from . import catalogue_cases

CASES = catalogue_cases("creation")
