"""``cellkit.jit``: compile a function, a ``construct`` method or a Cell, whatever the context's mode.

Used as in MindSpore::

    @ms.jit
    def step(x, y):
        return ops.relu(x) + y

    class Net(nn.Cell):
        @ms.jit
        def construct(self, x): ...

    fast_net = ms.jit(net)        # a bound callable running net's construct as a graph

Each call is looked up by its input signature (see
:mod:`cellkit.graph.compiler`); the first call with a new one traces the
function (that run's result is returned) and later ones run the graph.  A
jitted function called while another graph is traced is simply traced into
it.  Hooks of Cells called inside do not run, as MindSpore documents for jit.

``capture_mode``, ``dynamic`` and ``backend`` are checked and recorded;
cellkit has one way to capture (tracing) and re-traces each new shape
whatever ``dynamic`` says.  Python that reads a Tensor's value (``if x.sum()
> 0``, ``int(x)``, ``x.asnumpy()``) is a *graph break* (see
:mod:`cellkit.graph.fallback`): the graph runs guarded on the value read, so
results equal PyNative's; ``fullgraph=True`` refuses a break instead, with a
:class:`~cellkit.graph.errors.GraphCompileError` naming the line.

>>> import cellkit as ms
>>> from cellkit import ops
>>> @ms.jit
... def scaled_relu(x, scale):
...     return ops.relu(x) * scale
>>> print(scaled_relu(ms.Tensor([-1.0, 2.0]), 3.0))
[0. 6.]
>>> ms.graph.function_graph(scaled_relu).ops()
['relu', 'mul']
"""
from __future__ import annotations

import functools
import inspect
import types
import weakref

from ..nn import cell as _cell_mod
from ..nn.cell import Cell
from . import eager, runtime as _runtime, tracer as _tracer
from .compiler import GraphCache, compile_call, signature, stamp_for
from .mutable import has_mutable, restore_mutable, unwrap_mutable

__all__ = ["jit", "function_graph", "function_trace_count"]

_CAPTURE_MODES = ("ast", "bytecode", "trace")
_LEVELS = ("O0", "O1", "O2")


def jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False, backend="", **options):
    """Compile ``function`` (a function, a method, a Cell instance or class) into a graph.

    Parameters
    ----------
    function : callable, optional
        What to compile.  Without it, ``jit(...)`` returns a decorator.
    capture_mode : {'ast', 'bytecode', 'trace'}
        Recorded; cellkit always traces.
    jit_level : {'O0', 'O1', 'O2'}
        ``'O0'`` (MindSpore's default) runs the graph as traced; ``'O1'`` and
        ``'O2'`` fold constants and remove dead code.
    dynamic : {0, 1}
        Recorded; every new input shape is traced once.
    fullgraph : bool
        ``True``: a graph break raises :class:`~cellkit.graph.errors.GraphCompileError`
        naming the line, instead of running guarded.
    backend : str
        ``''`` or ``'ms_backend'``.

    Returns
    -------
    callable
        The compiled function; for a Cell instance, a bound method running
        its ``construct`` as a graph (as MindSpore returns); for a Cell class,
        the class with a compiled ``construct``.

    Raises
    ------
    ValueError
        An unknown ``capture_mode``, ``jit_level``, ``dynamic`` or ``backend``.
    TypeError
        ``function`` not callable, or ``fullgraph`` not a bool.
    """
    if capture_mode not in _CAPTURE_MODES:
        raise ValueError(f"For 'jit', 'capture_mode' must be one of {list(_CAPTURE_MODES)}, but got {capture_mode!r}")
    if jit_level not in _LEVELS:
        raise ValueError(f"For 'jit', 'jit_level' must be one of {list(_LEVELS)}, but got {jit_level!r}")
    if isinstance(dynamic, bool) or dynamic not in (0, 1):
        raise ValueError(f"For 'jit', 'dynamic' must be 0 or 1, but got {dynamic!r}")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"For 'jit', 'fullgraph' must be a bool, but got {type(fullgraph).__name__}")
    if backend not in ("", "ms_backend"):
        raise ValueError(f"For 'jit', 'backend' must be '' or 'ms_backend', but got {backend!r}")
    settings = {"capture_mode": capture_mode, "jit_level": jit_level, "dynamic": dynamic,
                "fullgraph": fullgraph, "backend": backend, **options}

    def wrap(fn):
        if isinstance(fn, Cell):
            construct = fn.construct
            if isinstance(construct, types.MethodType) and construct.__self__ is fn:
                return types.MethodType(wrap(construct.__func__), fn)
            return _jitted(construct, settings, owner=fn)
        if isinstance(fn, type) and issubclass(fn, Cell):
            fn.construct = wrap(fn.construct)
            return fn
        if isinstance(fn, types.MethodType):
            return types.MethodType(wrap(fn.__func__), fn.__self__)
        if not callable(fn):
            raise TypeError(f"For 'jit', 'function' must be a function, a method or a Cell, but got {type(fn).__name__}")
        if getattr(fn, "__wrapped_by_jit__", False):
            return fn
        return _jitted(fn, settings)

    if function is not None:
        return wrap(function)
    return wrap


def _jitted(fn, settings, owner=None):
    """The compiled stand-in for ``fn``: one graph cache per Cell it is bound to (or one for a plain function)."""
    caches = weakref.WeakKeyDictionary()  # the Cell passed as ``self`` -> its cache
    plain = GraphCache()
    level = settings["jit_level"]
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", type(fn).__name__))
    try:
        arg_names = [p.name for p in inspect.signature(fn).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        arg_names = []

    @functools.wraps(fn)
    def jitted(*args, **kwargs):
        if _tracer.active() is not None or eager.opaque_depth or _runtime.batched_args(args, kwargs):
            return fn(*args, **kwargs)  # inside a graph being traced (becomes part of it), or on vmap's batch
        root = owner
        if root is None and args and isinstance(args[0], Cell):
            root = args[0]
        cache = plain
        if root is not None:
            cache = caches.get(root)
            if cache is None:
                cache = caches[root] = GraphCache()
        key = signature(args, kwargs)
        entry = cache.get(key, stamp_for(level))
        if entry is None and has_mutable(args, kwargs):  # on a miss only: a marked value is never a key
            args, kwargs, made = unwrap_mutable(args, kwargs)
            return restore_mutable(jitted(*args, **kwargs), made)
        previous = _cell_mod._direct_calls
        _cell_mod._direct_calls = False  # Cells inside run without hooks, traced or not
        try:
            if entry is None:
                _entry, output = compile_call(fn, args, kwargs, name=name, root=root, cache=cache, key=key,
                                              level=level, arg_names=arg_names, fullgraph=settings["fullgraph"])
                return output
            cache.last = entry
            return entry(args, kwargs)
        finally:
            _cell_mod._direct_calls = previous

    jitted.__wrapped_by_jit__ = True
    jitted.__jit_settings__ = dict(settings)
    jitted._graph_caches = (plain, caches)
    try:
        jitted.__signature__ = inspect.signature(fn)
    except (TypeError, ValueError):
        pass
    return jitted


def _caches_of(jitted, owner=None):
    fn = getattr(jitted, "__func__", jitted)
    owner = owner if owner is not None else getattr(jitted, "__self__", None)
    plain, caches = fn._graph_caches
    if owner is not None and owner in caches:
        return caches[owner]
    return plain


def function_graph(jitted, owner=None):
    """The last graph compiled for a jitted function (or bound jitted method), or None."""
    entry = _caches_of(jitted, owner).last
    return entry.graph if entry is not None else None


def function_trace_count(jitted, owner=None):
    """How many times a jitted function has been traced (for one owner Cell, if bound)."""
    return _caches_of(jitted, owner).traces
