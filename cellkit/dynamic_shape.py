"""``ms.enable_dynamic``: declare which dimensions of a function's Tensor arguments may change between calls.

``@enable_dynamic(x=Tensor(shape=[2, None], dtype=ms.float32))`` says that ``x`` always has two rows
and Float32 elements while its second dimension varies. The declaration is checked when it is made
(the names must be the function's parameters; each value a placeholder Tensor, or a tuple/list of
them, with at least one ``None`` dimension) and at every call (the arguments must fit the declared
rank, the fixed dimensions and the dtype), with MindSpore's errors. ``jit`` compiles the function as
usual; the declaration keeps calls with other shapes from being mistaken for the declared ones.

>>> import numpy as np
>>> import cellkit as ms
>>> @ms.enable_dynamic(x=ms.Tensor(shape=[2, None], dtype=ms.float32))
... def double(x):
...     return x * 2
>>> double(ms.Tensor(np.ones((2, 3), np.float32))).shape
(2, 3)
>>> double(ms.Tensor(np.ones((3, 3), np.float32)))
Traceback (most recent call last):
    ...
ValueError: When using decorator enable_dynamic, input tensor shape = [3, 3], dynamic tensor shape = [2, -1], tensor shapes are not the same.
"""
from __future__ import annotations

import functools
import inspect

from .tensor import Tensor

__all__ = ["enable_dynamic"]


def _specs(name, value):
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError("The decorator enable_dynamic only supports Tensor or a tuple/list of Tensor, but the "
                            f"argument : '{name}' is type of:{type(item)}.")
        if item._data is not None or -1 not in tuple(item.shape):
            raise TypeError(f"When using decorator enable_dynamic, the shape of argument '{name}' at least have one "
                            f"None, but got a Tensor of shape {list(item.shape)} and dtype {item.dtype}.")
    return value


def _check(spec, actual, name):
    if isinstance(spec, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(spec):
            raise TypeError(f"When using decorator enable_dynamic, the argument '{name}' must be a "
                            f"{type(spec).__name__} of {len(spec)} Tensors, but got {type(actual).__name__}")
        for s, a in zip(spec, actual):
            _check(s, a, name)
        return
    if not isinstance(actual, Tensor):
        raise TypeError(f"When using decorator enable_dynamic, the argument '{name}' must be a Tensor, but got "
                        f"{type(actual).__name__}")
    want, got = list(spec.shape), list(actual.shape)
    if len(want) != len(got) or any(w != -1 and w != g for w, g in zip(want, got)):
        raise ValueError(f"When using decorator enable_dynamic, input tensor shape = {got}, dynamic tensor shape = "
                         f"{want}, tensor shapes are not the same.")
    if actual.dtype != spec.dtype:
        raise TypeError(f"When using decorator enable_dynamic, input tensor dtype = {actual.dtype}, dynamic tensor "
                        f"dtype = {spec.dtype}, tensor dtypes are not the same.")


def enable_dynamic(**kwargs):
    """A decorator declaring dynamic dimensions (``None``) of the named Tensor arguments.

    Raises
    ------
    ValueError
        No argument is declared, or a name is not one of the function's parameters; at a call, a
        shape that does not fit the declaration.
    TypeError
        A declared value is not a placeholder Tensor with a ``None`` dimension; at a call, a dtype
        that differs from the declaration.
    """
    if not kwargs:
        raise ValueError("When using decorator enable_dynamic, the input cannot be empty!")
    specs = {name: _specs(name, value) for name, value in kwargs.items()}

    def decorate(fn):
        if not callable(fn):
            raise TypeError(f"enable_dynamic must decorate a function, but got {type(fn).__name__}")
        signature = inspect.signature(fn)
        for name in specs:
            if name not in signature.parameters:
                raise ValueError(f"'{name}' is not in list: enable_dynamic names a parameter that "
                                 f"{getattr(fn, '__name__', 'the function')} does not have")

        @functools.wraps(fn)
        def run(*args, **call_kwargs):
            bound = signature.bind(*args, **call_kwargs)
            for name, spec in specs.items():
                if name in bound.arguments:
                    _check(spec, bound.arguments[name], name)
            return fn(*args, **call_kwargs)

        run.dynamic_inputs = specs  # what jit and the graph display can read
        return run

    return decorate
