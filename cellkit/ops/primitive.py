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

__all__ = ["Primitive", "PrimitiveWithInfer", "prim_attr_register"]


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
