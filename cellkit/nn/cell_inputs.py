"""A Cell's declared inputs (``set_inputs``), compiling, and the graph-mode entry points.

``set_inputs`` declares the shapes and dtypes later calls must have (``-1``
or ``None`` dimensions are dynamic); the Cell's call then has a *check
inputs* stage (see :mod:`cellkit.nn.cell_call`).  ``compile`` validates and,
in GRAPH_MODE, traces ``construct`` into a graph (see :mod:`cellkit.graph`).
The functions taking ``self`` are methods of ``nn.Cell``.

>>> import cellkit as ms
>>> from cellkit import nn
>>> dense = nn.Dense(3, 2)
>>> dense.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
>>> dense(ms.ops.ones((4, 3))).shape
(4, 2)
"""
from __future__ import annotations

import inspect

from ..tensor import Tensor
from . import cell_call as _call
from .cell_call import stage
from .cell_precision import cast_call_inputs

__all__ = ["InputSpec", "set_inputs", "get_inputs", "compile", "compile_and_run", "run_construct",
           "exec_checkpoint_graph", "get_func_graph_proto", "compile_phase", "compiled", "compile_cache",
           "phase_cache", "jit_config_dict", "cell_init_args"]


class InputSpec:
    """What :meth:`set_inputs` declared: all inputs by position, or some by name."""

    __slots__ = ("positional", "by_name")

    def __init__(self, positional=None, by_name=None):
        self.positional = positional  # a tuple, one entry per input (full mode)
        self.by_name = by_name        # a dict, name -> entry (incremental mode)


def _graph_runtime():
    from . import cell as _core  # the graph runtime plugs itself into the core (cellkit.graph sits above nn)

    return _core._graph_runtime


def set_inputs(self, *inputs, **kwargs):
    """Declare the inputs' shapes and dtypes (``None`` dims are dynamic).

    Either all inputs positionally (full mode) or some by name
    (incremental mode), not both.  Later calls are checked against them.
    """
    if inputs and kwargs:
        raise ValueError("For 'set_inputs', give either positional inputs or keyword inputs, not both")
    for value in list(inputs) + list(kwargs.values()):
        if value is not None and not isinstance(value, (Tensor, int, float, bool, tuple, list)):
            raise TypeError(f"For 'set_inputs', inputs must be Tensors, but got {type(value).__name__}")
    if kwargs:
        names = list(inspect.signature(self.construct).parameters)
        for key in kwargs:
            if key not in names:
                raise ValueError(f"For 'set_inputs', '{key}' is not an argument of construct{tuple(names)}")
        spec = InputSpec(by_name=dict(kwargs))
    else:
        spec = InputSpec(positional=tuple(inputs))
    object.__setattr__(self, "_input_spec", spec)
    self._configure_call()


def get_inputs(self):
    """The inputs given to :meth:`set_inputs` (a tuple), or ``None``."""
    spec = self._input_spec
    if spec is None:
        return None
    if spec.by_name is not None:
        return tuple(spec.by_name.values())
    return spec.positional


@stage("check inputs", in_graph_mode=True)
def check_inputs(call):
    """Compare the call's inputs with :meth:`set_inputs`; the error names the input."""
    _check_against_spec(call.cell, call.args, call.kwargs)


def _check_against_spec(cell, args, kwargs):
    spec = cell._input_spec
    names = [n for n, p in inspect.signature(cell.construct).parameters.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    cell_name = type(cell).__name__
    if spec.positional is not None:
        declared = spec.positional
        values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
        if len(values) != len(declared):
            raise ValueError(
                f"For '{cell_name}', set_inputs declared {len(declared)} input(s), "
                f"but the Cell was called with {len(values)}"
            )
        checks = [(f"'{names[i]}' (input {i})" if i < len(names) else f"{i}", entry, values[i])
                  for i, entry in enumerate(declared)]
    else:
        bound = dict(zip(names, args))
        bound.update(kwargs)
        checks = [(f"'{key}'", entry, bound[key]) for key, entry in spec.by_name.items() if key in bound]
    for label, entry, value in checks:
        if isinstance(entry, Tensor):
            _check_one_input(cell_name, label, entry, value)


def _check_one_input(cell_name, label, spec, value):
    """Compare one call input with its set_inputs declaration; ValueError/TypeError if they disagree.

    A ``-1`` dimension is dynamic (any size); a shape of ``(-2,)`` is a dynamic rank (any shape).
    """
    if not isinstance(value, Tensor):
        raise TypeError(
            f"For '{cell_name}', input {label} was declared by set_inputs as a Tensor, but got {type(value).__name__}"
        )
    if spec.dtype is not value.dtype:
        raise TypeError(
            f"For '{cell_name}', input {label} was declared by set_inputs with dtype {spec.dtype}, "
            f"but got {value.dtype}"
        )
    declared, actual = tuple(spec.shape), tuple(value.shape)
    if declared == (-2,):
        return
    if len(declared) != len(actual):
        raise ValueError(
            f"For '{cell_name}', input {label} was declared by set_inputs with rank {len(declared)} "
            f"(shape {list(declared)}, -1 is dynamic), but got rank {len(actual)} (shape {list(actual)})"
        )
    for axis, (d, a) in enumerate(zip(declared, actual)):
        if d != -1 and d != a:
            raise ValueError(
                f"For '{cell_name}', input {label} was declared by set_inputs with shape {list(declared)} "
                f"(-1 is dynamic), but got shape {list(actual)}: dimension {axis} must be {d}, not {a}"
            )


def _check_construct_arity(cell, args, kwargs):
    try:
        inspect.signature(cell.construct).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"For '{type(cell).__name__}.construct', the inputs do not match its signature: {exc}") from None


def _prepare(cell, args, kwargs):
    if cell._input_spec is not None:
        _check_against_spec(cell, args, kwargs)
    _check_construct_arity(cell, args, kwargs)
    cell.init_parameters_data()
    object.__setattr__(cell, "_compiled", True)


def compile(self, *args, **kwargs):  # noqa: A001 - MindSpore's method name
    """Compile the Cell for these inputs.

    Validates the inputs against :meth:`set_inputs` (when set) and
    ``construct``'s signature and initialises lazily-created Parameters.
    In GRAPH_MODE it then traces ``construct`` once on the inputs into a
    graph (see :mod:`cellkit.graph`) cached for their signature (shapes,
    dtypes, other values).  Tracing runs ``construct``; Parameters,
    buffers and the global random generator are put back afterwards, so
    compiling changes no model state.  Inputs with dynamic dimensions
    (``Tensor(shape=[None, 3], ...)``) cannot be traced: the graph is
    then traced on the first real call.
    """
    _prepare(self, args, kwargs)
    runtime = _graph_runtime()
    if runtime is not None:
        runtime.compile(self, args, kwargs)


def compile_and_run(self, *args, **kwargs):
    """Compile, then run: in GRAPH_MODE the compiled graph; returns its output.

    As in MindSpore, calling the Cell is preferred.
    """
    runtime = _graph_runtime()
    if runtime is None:
        self.compile(*args, **kwargs)
        return self(*args, **kwargs)
    _prepare(self, args, kwargs)
    return runtime.compile_and_run(self, args, kwargs)


def run_construct(self, cast_inputs, kwargs):
    """Run ``construct`` (with hooks) on already-cast inputs. Deprecated in MindSpore."""
    if not isinstance(cast_inputs, tuple):
        raise TypeError(f"For 'run_construct', 'cast_inputs' must be a tuple, but got {type(cast_inputs).__name__}")
    if kwargs is not None and (not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs)):
        raise TypeError(f"For 'run_construct', 'kwargs' must be a dict of str keys (or None), "
                        f"but got {type(kwargs).__name__} {list(kwargs)[:5] if isinstance(kwargs, dict) else ''}")
    plan = self._call_plan
    if plan is None or plan is _call.FIRST_CALL:
        return self.construct(*cast_inputs, **dict(kwargs or {}))
    return _call.run_stages(self, cast_inputs, dict(kwargs or {}), skip=(check_inputs, cast_call_inputs))


def exec_checkpoint_graph(self):
    """Save-checkpoint graph step of MindSpore's graph executor: nothing to run in PyNative.

    Returns the Cell's current parameter dictionary, which is what such a
    graph would write.
    """
    return self.parameters_dict()


def get_func_graph_proto(self):
    """The last compiled graph, serialised: UTF-8 JSON bytes (see :mod:`cellkit.graph.serialize`).

    MindSpore returns protobuf bytes; cellkit's JSON carries the same
    content (inputs, parameters, nodes with shapes and dtypes, output).

    Raises
    ------
    RuntimeError
        If the Cell was never compiled (call it in GRAPH_MODE, or call
        :meth:`compile` first).
    """
    runtime = _graph_runtime()
    if runtime is None:
        raise RuntimeError(
            f"{type(self).__name__} has no compiled graph: set GRAPH_MODE and call compile(...) first"
        )
    return runtime.func_graph_proto(self)


# ----------------------------------------------------------------- graph bookkeeping, as MindSpore names it
def _get_compile_phase(self):
    """The phase key a compiled graph is filed under (``None`` until one is set)."""
    return self.__dict__.get("_compile_phase")


def _set_compile_phase(self, phase):
    if not isinstance(phase, str):
        raise TypeError(f"For 'Cell', 'compile_phase' must be string type, but got type {type(phase)}.")
    for _, cell in self.cells_and_names():  # as in MindSpore: the whole tree is filed under it
        object.__setattr__(cell, "_compile_phase", phase)


compile_phase = property(_get_compile_phase, _set_compile_phase)


def _get_compiled(self):
    """Whether the Cell has been compiled (``compile`` or a GRAPH_MODE call)."""
    return self._compiled


compiled = property(_get_compiled)


def _get_compile_cache(self):
    """The keys of the graphs compiled for this Cell (a set; empty in PyNative)."""
    cache = self.__dict__.get("_graph_cache")
    return set(map(str, cache.keys())) if cache is not None and hasattr(cache, "keys") else set()


compile_cache = property(_get_compile_cache)


def _get_phase_cache(self):
    """Phase -> compiled phase key, for MindSpore's predict fast path (empty: cellkit has none)."""
    return {}


phase_cache = property(_get_phase_cache)


def _get_jit_config_dict(self):
    """The options given to ``set_jit_config`` (a dict; empty until then)."""
    record = self._parallel
    config = None if record is None else record.jit_config
    return dict(config.jit_config_dict) if config is not None else {}


jit_config_dict = property(_get_jit_config_dict)


def _get_cell_init_args(self):
    """A text MindSpore keys its graph cache by; AttributeError until it is set (as in MindSpore)."""
    try:
        return self.__dict__["_cell_init_args"]
    except KeyError:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'cell_init_args'") from None


def _set_cell_init_args(self, value):
    if not isinstance(value, str):
        raise TypeError(f"For 'Cell', 'cell_init_args' must be string type, but got type {type(value)}.")
    object.__setattr__(self, "_cell_init_args", value)


cell_init_args = property(_get_cell_init_args, _set_cell_init_args)
