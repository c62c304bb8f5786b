"""Argument checks shared by the optimizers: MindSpore's exception types, messages that name the
argument, what was expected and what was given.

>>> from cellkit.nn.optim._checks import float_in_range
>>> float_in_range(0.5, "rho", "Adadelta", 0.0, 1.0, closed=(True, True))
0.5
"""
from __future__ import annotations

import math

__all__ = ["is_float", "non_negative_float", "positive_float", "float_in_range", "check_bool", "int_as_float",
           "positive_int"]


def _kind(value):
    return type(value).__name__


def is_float(value, name, cls):
    """``value`` if it is a Python float (an int or a bool is refused, as MindSpore refuses them)."""
    if not isinstance(value, float):
        raise TypeError(f"For '{cls}', the type of '{name}' should be 'float', but got type '{_kind(value)}'.")
    return value


def int_as_float(value, name, cls):
    """An int or a float, as a float (for arguments MindSpore converts)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return is_float(value, name, cls)


def _finite(value, name, cls):
    if not math.isfinite(value):
        raise ValueError(f"For '{cls}', '{name}' must be a finite number, but got {value}.")


def non_negative_float(value, name, cls):
    """A finite float >= 0 (TypeError for another type, ValueError otherwise)."""
    is_float(value, name, cls)
    _finite(value, name, cls)
    if not value >= 0.0:
        raise ValueError(f"For '{cls}', '{name}' must be a float >= 0, but got {value}.")
    return value


def positive_float(value, name, cls):
    """A finite float > 0 (TypeError for another type, ValueError otherwise)."""
    is_float(value, name, cls)
    _finite(value, name, cls)
    if not value > 0.0:
        raise ValueError(f"For '{cls}', '{name}' must be a float > 0, but got {value}.")
    return value


def float_in_range(value, name, cls, low, high, closed=(False, False)):
    """A float between ``low`` and ``high``; ``closed`` says which ends are allowed."""
    is_float(value, name, cls)
    above = value >= low if closed[0] else value > low
    below = value <= high if closed[1] else value < high
    if not (above and below):
        interval = f"{'[' if closed[0] else '('}{low}, {high}{']' if closed[1] else ')'}"
        raise ValueError(f"For '{cls}', '{name}' must be in the range {interval}, but got {value}.")
    return value


def positive_int(value, name, cls):
    """An int > 0 (TypeError for another type, a bool included; ValueError otherwise)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got type '{_kind(value)}'.")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be an int > 0, but got {value!r}.")
    return value


def check_bool(value, name, cls):
    """``value`` if it is a bool (TypeError otherwise)."""
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', the type of '{name}' should be 'bool', but got type '{_kind(value)}'.")
    return value
