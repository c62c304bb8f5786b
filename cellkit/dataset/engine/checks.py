"""Argument checks shared by the pipeline methods, with MindSpore's exception types.

Each message names the argument, what was expected and what was given.

>>> check_positive_int32(0, "batch_size")
Traceback (most recent call last):
...
ValueError: Input batch_size is not within the required interval of [1, 2147483647], but got 0.
"""
from __future__ import annotations

import numbers

INT32_MAX = 2147483647

__all__ = ["check_positive_int32", "check_count", "check_columns", "check_bool", "check_workers",
           "check_type", "column_list"]


def check_type(value, types, name):
    if isinstance(value, bool) and bool not in types:
        raise TypeError(f"Argument {name} with value {value!r} is not of type {list(types)}, but got {type(value)}.")
    if not isinstance(value, types):
        raise TypeError(f"Argument {name} with value {value!r} is not of type {list(types)}, but got {type(value)}.")


def check_positive_int32(value, name):
    check_type(value, (int,), name)
    if not 1 <= value <= INT32_MAX:
        raise ValueError(f"Input {name} is not within the required interval of [1, {INT32_MAX}], but got {value}.")


def check_count(value, name, allow_minus_one=True):
    """``-1`` (everything) or a count in (0, INT32_MAX]."""
    check_type(value, (int,), name)
    if value == -1 and allow_minus_one:
        return
    if not 0 < value <= INT32_MAX:
        raise ValueError(f"{name} should be either -1 or within the required interval of (0, {INT32_MAX}], "
                         f"got {value}.")


def check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'bool'>], "
                        f"but got {type(value)}.")


def check_workers(value):
    if value is None:
        return
    check_type(value, (int,), "num_parallel_workers")
    if not 1 <= value <= INT32_MAX:
        raise ValueError(f"num_parallel_workers exceeds the boundary between 1 and {INT32_MAX}, but got {value}.")


def column_list(value, name, allow_none=True):
    """A column argument (a str or a list of str) as a list (None stays None when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'list'>, <class 'str'>], "
                        f"but got {type(value)}.")
    check_columns(value, name)
    return list(value)


def check_columns(columns, name):
    if not columns:
        raise ValueError(f"{name} should not be empty.")
    for k, col in enumerate(columns):
        if not isinstance(col, str):
            raise TypeError(f"{name}[{k}] should be a str, but got {type(col).__name__} ({col!r}).")
        if not col:
            raise ValueError(f"{name}[{k}] should not be an empty string.")
    duplicates = sorted({c for c in columns if columns.count(c) > 1})
    if duplicates:
        raise ValueError(f"{name} should not contain duplicate column names, but got {duplicates}.")


def is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)
