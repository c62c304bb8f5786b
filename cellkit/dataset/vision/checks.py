"""Argument checks of the vision transforms: MindSpore's exception types, messages that name the
argument, what was expected and what was given.

>>> check_range(300, 0, 255, "fill_value")
Traceback (most recent call last):
...
ValueError: Input fill_value is not within the required interval of [0, 255], but got 300.
"""
from __future__ import annotations

import numbers

from .utils import Inter

__all__ = ["check_type", "check_range", "check_positive", "check_number", "size_pair", "fill_triple",
           "check_inter", "check_prob", "check_range_pair", "INT32_MAX", "FLOAT_MAX_INTEGER"]

INT32_MAX = 2147483647
FLOAT_MAX_INTEGER = 16777216
UINT8_MAX = 255


def check_type(value, types, name):
    """TypeError unless ``value`` is of one of ``types`` (a bool is not an int here)."""
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = [t.__name__ for t in types]
        raise TypeError(f"Argument {name} with value {value!r} is not of type {names}, but got {type(value).__name__}.")


def check_number(value, name):
    check_type(value, (int, float), name)


def check_range(value, low, high, name, open_low=False, open_high=False):
    """ValueError unless low <= value <= high (or strict where open)."""
    bad = (value <= low if open_low else value < low) or (value >= high if open_high else value > high)
    if bad:
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        raise ValueError(f"Input {name} is not within the required interval of {left}{low}, {high}{right}, "
                         f"but got {value}.")


def check_positive(value, name):
    if value <= 0:
        raise ValueError(f"Input {name} must be greater than 0, but got {value}.")


def check_prob(prob, name="prob"):
    check_number(prob, name)
    check_range(prob, 0.0, 1.0, name)
    return float(prob)


def size_pair(size, name="size", low=1, high=FLOAT_MAX_INTEGER, allow_int=True):
    """``size`` as (height, width): an int means both (or, for resizing, the shorter side; see callers)."""
    if allow_int and isinstance(size, int) and not isinstance(size, bool):
        check_range(size, low, high, name)
        return size, size
    if isinstance(size, (list, tuple)) and len(size) == 2:
        for k, value in enumerate(size):
            check_type(value, (int,), f"{name}[{k}]")
            check_range(value, low, high, f"{name}[{k}]")
        return int(size[0]), int(size[1])
    raise TypeError(f"Argument {name} should be a single integer or a list/tuple (h, w) of length 2, "
                    f"but got {size!r}.")


def fill_triple(fill_value, name="fill_value"):
    """A fill value (an int 0..255 or a 3-tuple of them) as an (r, g, b) tuple."""
    if isinstance(fill_value, int) and not isinstance(fill_value, bool):
        check_range(fill_value, 0, UINT8_MAX, name)
        return (fill_value,) * 3
    if isinstance(fill_value, tuple) and len(fill_value) == 3:
        for k, value in enumerate(fill_value):
            check_type(value, (int,), f"{name}[{k}]")
            check_range(value, 0, UINT8_MAX, f"{name}[{k}]")
        return tuple(int(v) for v in fill_value)
    raise TypeError(f"Argument {name} should be a single integer or a 3-tuple of integers, but got {fill_value!r}.")


def check_inter(mode, name="interpolation", allowed=None):
    if not isinstance(mode, Inter):
        raise TypeError(f"Argument {name} with value {mode!r} is not of type ['Inter'], but got {type(mode).__name__}.")
    if allowed is not None and mode not in allowed:
        raise ValueError(f"Input {name} should be one of {[m.name for m in allowed]}, but got {mode.name}.")
    return mode


def check_range_pair(values, name, low, high, allow_number=False, center=None):
    """A (min, max) pair within [low, high] (a single number n means (center - n, center + n) when allowed)."""
    if allow_number and isinstance(values, numbers.Number) and not isinstance(values, bool):
        check_range(values, 0 if center is not None else low, high, name)
        base = 0 if center is None else center
        return (base - values, base + values) if center is not None else (-values, values)
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        raise TypeError(f"Argument {name} should be a list or tuple of length 2 (min, max), but got {values!r}.")
    for k, v in enumerate(values):
        check_number(v, f"{name}[{k}]")
        check_range(v, low, high, f"{name}[{k}]")
    if values[0] > values[1]:
        raise ValueError(f"{name} should be in (min, max) format, but got min {values[0]} > max {values[1]}.")
    return float(values[0]), float(values[1])
