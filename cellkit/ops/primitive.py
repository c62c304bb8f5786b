"""The Primitive base class: an op object created once, then called like a function.

MindSpore code often builds ops in ``__init__`` (``self.relu = ops.ReLU()``)
and calls them in ``construct``.  A Primitive keeps its constructor's
arguments as attributes (``add_prim_attr``) so graphs and displays can show
them; calling it runs the matching functional op.

>>> import cellkit as ms
>>> from cellkit import ops
>>> add = ops.Add()
>>> add
Prim[Add]
>>> print(add(ms.Tensor([-1.0, 2.0]), 1.0))
[0. 3.]
>>> ops.MatMul(transpose_b=True)
Prim[MatMul]<transpose_a=False, transpose_b=True>
"""
from __future__ import annotations

from .. import autograd as _ag
from .. import recompute as _rc

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "constexpr"]


class Primitive:
    """Base class of op objects.

    Subclasses implement ``__call__``; ``name`` is the class name, and the
    attributes given to the constructor are recorded in ``attrs``.
    """

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.attrs = {}
        self._recompute = None
        self._shard = None

    def add_prim_attr(self, name, value):
        """Record an attribute (shown in reprs and graphs); returns self."""
        self.attrs[name] = value
        setattr(self, name, value)
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        if name in self.__dict__:
            delattr(self, name)
        return self

    def set_prim_instance_name(self, instance_name):
        self.instance_name = instance_name
        return self

    def recompute(self, mode=True):
        """Choose, for this op alone, whether its activations are recomputed in backward.

        ``recompute(True)`` makes each call a recomputed region of one op
        (useful when a Cell holds a single op: a Cell's output op is never
        recomputed).  ``recompute(False)`` inside a recomputed Cell keeps this
        op's activations instead: its forward runs once and the replay reuses
        its output.  The op's setting wins over the Cell's, as in MindSpore.
        Returns the Primitive.

        >>> from cellkit import ops
        >>> ops.ReLU().recompute()
        Prim[ReLU]
        """
        if not isinstance(mode, bool):
            raise TypeError(f"For 'recompute', 'mode' must be a bool, but got {type(mode).__name__}")
        self._recompute = mode
        cls = type(self)
        if not getattr(cls, "_recompute_variant", False):
            # Only marked instances pay for the check: they move to a subclass whose __call__ asks.
            self.__class__ = _recompute_variant(cls)
        return self

    def shard(self, in_strategy=None, out_strategy=None):
        """Record a parallel sharding strategy (single-process execution ignores it, on record)."""
        if in_strategy is not None and not isinstance(in_strategy, tuple):
            raise TypeError(f"For 'shard', 'in_strategy' must be a tuple, but got {type(in_strategy).__name__}")
        self._shard = (in_strategy, out_strategy)
        return self

    def __repr__(self):
        # MindSpore's spelling: Prim[MatMul]<transpose_a=False, transpose_b=True>
        if not self.attrs:
            return f"Prim[{self.name}]"
        inner = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]<{inner}>"

    def __call__(self, *args):  # pragma: no cover - every subclass overrides it
        raise NotImplementedError(f"{self.name} does not define __call__")


PrimitiveWithInfer = Primitive


class PrimitiveWithCheck(Primitive):
    """A Primitive that checks its inputs before it runs.

    A subclass writes ``__call__`` and either ``__check__(*args)`` or ``check_shape(*shapes)`` /
    ``check_dtype(*dtypes)`` (a Tensor argument gives its shape as a list and its dtype; any other
    argument gives ``[]`` and its Python type).  The check runs before every call and raises what
    the subclass raises.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> class Square(ops.PrimitiveWithCheck):
    ...     def check_dtype(self, x_dtype):
    ...         if x_dtype != ms.float32:
    ...             raise TypeError(f"For 'Square', 'x' must be Float32, but got {x_dtype}")
    ...     def __call__(self, x):
    ...         return x * x
    >>> print(Square()(ms.Tensor([3.0])))
    [9.]
    >>> Square()(ms.Tensor([3]))
    Traceback (most recent call last):
    ...
    TypeError: For 'Square', 'x' must be Float32, but got Int64
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is not None and not getattr(call, "_checks_first", False):
            def checked_call(self, *args, _call=call):
                self._check_inputs(args)
                return _call(self, *args)

            checked_call._checks_first = True
            checked_call.__doc__ = call.__doc__
            cls.__call__ = checked_call

    def _check_inputs(self, args):
        if type(self).__check__ is not PrimitiveWithCheck.__check__:
            self.__check__(*args)
            return
        shapes = [list(a.shape) if hasattr(a, "shape") and hasattr(a, "dtype") else [] for a in args]
        dtypes = [a.dtype if hasattr(a, "shape") and hasattr(a, "dtype") else type(a) for a in args]
        self.check_shape(*shapes)
        self.check_dtype(*dtypes)

    def __check__(self, *args):
        """Check every input at once (overrides ``check_shape`` / ``check_dtype``)."""

    def check_shape(self, *shapes):
        """Check the inputs' shapes; raise to refuse them."""

    def check_dtype(self, *dtypes):
        """Check the inputs' dtypes; raise to refuse them."""


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Make ``fn`` an op whose value is computed from constant (Python) inputs.

    MindSpore's graph compiler folds such an op into a constant; in cellkit, where graphs are
    traced from Python, calling it simply calls ``fn``.  ``@constexpr`` gives a Primitive instance
    (``get_instance=False``: its class), named ``name`` or ``fn``'s name.

    >>> from cellkit import ops
    >>> @ops.constexpr
    ... def area(shape):
    ...     return shape[0] * shape[1]
    >>> area((3, 4)), area
    (12, Prim[area])
    """
    def decorator(function):
        if not callable(function):
            raise TypeError(f"For 'constexpr', 'fn' must be a callable, but got {type(function).__name__} {function!r}")
        op_name = name or function.__name__

        class ProxyOp(PrimitiveWithInfer):
            __doc__ = function.__doc__

            def __init__(self):
                super().__init__(op_name)

            def __call__(self, *args, **kwargs):
                return function(*args, **kwargs)

        return ProxyOp() if get_instance else ProxyOp

    return decorator(fn) if fn is not None else decorator

_variants = {}


def _recompute_variant(cls):
    """``cls`` with a ``__call__`` that honours the instance's recompute setting."""
    variant = _variants.get(cls)
    if variant is None:
        plain_call = cls.__call__

        def __call__(self, *args):
            if self._recompute is False and _rc._regions:
                return _rc.keep(lambda *a: plain_call(self, *a), args, self.name)
            if self._recompute is True and _ag._depth > 0 and not _rc._regions:
                return _rc.checkpoint(lambda *a: plain_call(self, *a), args, label=self.name)
            return plain_call(self, *args)

        variant = type(cls.__name__, (cls,), {"__call__": __call__, "_recompute_variant": True,
                                               "__module__": cls.__module__, "__doc__": cls.__doc__})
        _variants[cls] = variant
    return variant


def prim_attr_register(init):
    """Decorator for Primitive ``__init__``: record every argument as an attribute."""
    import functools
    import inspect

    signature = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        Primitive.__init__(self)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for key, value in list(bound.arguments.items())[1:]:
            self.add_prim_attr(key, value)
        init(self, *args, **kwargs)

    return wrapper
