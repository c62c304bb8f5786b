"""Tracing: run ``construct`` once on real inputs and record its ops as a :class:`~cellkit.graph.ir.Graph`.

How a call is caught.  While tracing, a profile function (``sys.setprofile``)
sees every Python call; those whose code object is an op (see
:mod:`cellkit.graph.registry`) are recorded when no other op is running, so
ops called *inside* an op belong to it.  At the call the arguments are read
from the frame (``f_locals`` holds exactly the parameters then) and each
Tensor among them is replaced by a reference; at the return the output's
Tensors are given references of their own.

How values are told apart.  By the identity of their backend array
(``id(tensor._data)``): every op makes new arrays, and wrappers that only
re-wrap an array (``Tensor(x)``, a recompute node, a hook gate) keep
meaning the same value.  Arrays are kept alive while tracing so no id is
reused.  A Tensor whose array was never seen is a constant (made in
``construct`` from Python data, or a plain Tensor attribute) and is baked
in; Parameters and buffers are *states*, read live at every run.

What cannot be traced.  A Python decision on a Tensor's value (``bool``,
``int``, ``float``, ``item``, ``__index__``, ``asnumpy``) that depends on an
input or a state is a *graph break* (see :mod:`cellkit.graph.fallback`): it is
recorded with its file and line, with the Tensor read and its value, and the
trace goes on with that value; the compiled entry guards on it.  ``print``
becomes a node that prints at every run; an assignment to a global is a
break that makes the function run op by op.  A gradient transform run inside ``construct`` (``TrainOneStepCell``)
marks the trace *untraceable*: the runtime then runs that construct op by op
(see :mod:`cellkit.graph.runtime`).

>>> import cellkit as ms
>>> from cellkit import ops
>>> tracer = Tracer("scaled")
>>> out = tracer.run(lambda x: ops.exp(x) * 2.0, (ms.Tensor([0.0, 1.0]),), {}, ["x"])
>>> print(tracer.graph())  # doctest: +NORMALIZE_WHITESPACE
graph scaled(%x: Float32[2]) {  # jit_level O0
  %0 = exp(%x) : Float32[2]  # Default
  %1 = mul(%0, 2.0) : Float32[2]  # Default
  return %1
}
"""
from __future__ import annotations

import builtins
import os
import sys
import sysconfig

from ..nn import cell as _cell_mod
from ..nn import cell_call as _cell_call
from ..nn.cell_bprop import has_custom_bprop
from ..nn.cell_hooks import has_hooks
from ..nn.buffer import Buffer
from ..nn.optim import LearningRateSchedule, Optimizer
from ..parameter import Parameter
from ..tensor import Tensor
from . import fallback as _fallback
from . import registry
from .errors import _PACKAGE_DIR, GraphCompileError, describe_frame, location, user_frame
from .ir import ConstRef, Graph, InputRef, Node, NodeOutput, StateRef, TensorSpec, iter_leaves, iter_refs

# Where a global assignment is the user's to see at every call: not in cellkit, the standard library or
# installed packages (their module state -- a test runner's gc callback, a cache -- runs whenever it runs).
_NOT_USER_CODE = tuple({_PACKAGE_DIR} | {os.path.abspath(path) for key, path in sysconfig.get_paths().items()
                                         if key in ("stdlib", "platstdlib", "purelib", "platlib")})

__all__ = ["Tracer", "active"]

# cellkit.tensor the module (the package exports a function named ``tensor`` over it).
_tensor_mod = sys.modules[Tensor.__module__]

# The tracer running now (one at a time); the runtime asks it to take nested Cell calls.
_active = None


def active():
    """The :class:`Tracer` running now, or ``None``."""
    return _active


class _Scope:
    """One Cell call open while tracing: its path and the recompute region it belongs to."""

    __slots__ = ("path", "cell", "region", "label")

    def __init__(self, path, cell, region=None, label=None):
        self.path = path
        self.cell = cell
        self.region = region
        self.label = label

    def child_name(self, child):
        if self.cell is not None:
            for name, c in self.cell._cells.items():
                if c is child:
                    return name
        return type(child).__name__.lower()


class _Pending:
    """An op call in progress: its frame, what it is, and its arguments as templates."""

    __slots__ = ("frame", "info", "args", "kwargs", "names", "arrays", "start", "target", "seen")

    def __init__(self, frame, info, args, kwargs, names, arrays, start, target, seen=None):
        self.seen = seen      # id(ref) -> array at the call (for the kernel check)
        self.frame = frame
        self.info = info
        self.args = args
        self.kwargs = kwargs
        self.names = names
        self.arrays = arrays  # ids of the argument Tensors' arrays at the call (aliases of the output)
        self.start = start    # len(nodes) at the call (soft ops: where their inner nodes begin)
        self.target = target


class _Region:
    """A recomputed Cell call (or Primitive call): its nodes form one segment."""

    __slots__ = ("label",)

    def __init__(self, label):
        self.label = label


class Tracer:
    """Records the ops of one run of a function.

    Parameters
    ----------
    name : str
        The graph's name.
    root : Cell, optional
        The Cell whose ``construct`` is traced (its Parameters and buffers are
        states from the start; its children give the scope names).
    fullgraph : bool
        Refuse a graph break with :class:`~cellkit.graph.errors.GraphCompileError` (``jit(fullgraph=True)``).
    """

    def __init__(self, name, root=None, fullgraph=False):
        self.name = name
        self.fullgraph = fullgraph  # a graph break raises GraphCompileError
        self.root = root
        self.values = {}       # id(array) -> Ref
        self.keep = []         # arrays kept alive while tracing (ids stay unique)
        self.states = {}       # id(tensor) -> StateRef
        self.state_names = {}  # id(tensor) -> name, for registered buffers
        self.nodes = []
        self.inputs = []
        self.scopes = [_Scope("Default", root, *self._region_of(root, None, "Default"))]
        self.hard = None       # the _Pending hard op being recorded
        self.soft = None       # the _Pending soft op open (see registry)
        self.untraceable = None
        self.failure = None    # an error inside the profile function (it must never raise into user code)
        self.hooked_cells = []
        self.output = None
        self.breaks = []       # GraphBreak, in the order they happened
        self.global_stores = []  # GraphBreak for each global assignment seen in user code
        self.printing = 0      # >0 while a print node formats its values (reading them is no break)
        self._read_refs = set()
        if root is not None:
            self._note_root_states(root)
            if has_hooks(root):
                self.hooked_cells.append(root)

    # ------------------------------------------------------------------ running
    def run(self, fn, args, kwargs, arg_names=()):
        """Run ``fn(*args, **kwargs)`` while recording; returns its real output."""
        global _active
        if _active is not None:
            raise RuntimeError("cellkit.graph: a trace is already running")
        args_t, kwargs_t = self._bind_inputs(args, kwargs, arg_names)
        self.input_template = (args_t, kwargs_t)
        table = registry.table()
        previous_profile = sys.getprofile()
        previous_direct = _cell_mod._direct_calls
        previous_guard = _tensor_mod._value_guard
        _active = self
        _cell_mod._direct_calls = False
        _tensor_mod._value_guard = self.check_concrete
        previous_print = builtins.print
        builtins.print = _fallback.make_traced_print(self)
        sys.setprofile(self._profiler(table))
        try:
            out = _fallback.normalize_output(fn(*args, **kwargs))
        finally:
            sys.setprofile(previous_profile)
            builtins.print = previous_print
            _tensor_mod._value_guard = previous_guard
            _cell_mod._direct_calls = previous_direct
            _active = None
        if self.failure is not None:
            raise RuntimeError(f"cellkit.graph: tracing '{self.name}' failed: {self.failure}") from self.failure
        self.output = self._template(out)
        return out

    def graph(self, jit_level="O0"):
        """The recorded :class:`Graph` (call after :meth:`run`)."""
        graph = Graph(self.name, self.inputs, list(self.states.values()), self.nodes, self.output, jit_level)
        graph.input_template = self.input_template
        graph.breaks = self.breaks + self.global_stores
        return graph

    def _profiler(self, table):
        get_info = table.get
        is_transform = registry.is_transform_start
        checked = set()

        def profile(frame, event, arg):
            try:
                record(frame, event, arg)
            except Exception as exc:  # noqa: BLE001 -- reported after the run; stop recording now
                if self.failure is None:
                    self.failure = exc
                sys.setprofile(None)

        def record(frame, event, arg):
            if event == "call":
                if self.hard is not None:
                    return
                info = get_info(frame.f_code)
                if info is None:
                    code = frame.f_code
                    if is_transform(code):
                        self._note_transform(frame)
                    elif code not in checked:
                        checked.add(code)
                        if not os.path.abspath(code.co_filename).startswith(_NOT_USER_CODE):
                            self._note_global_stores(code)
                    return
                if info.soft:
                    if self.soft is None:
                        self._enter(frame, info, soft=True)
                    return
                self._enter(frame, info, soft=False)
            elif event == "return":
                hard = self.hard
                if hard is not None:
                    if frame is hard.frame:
                        self.hard = None
                        self._exit_hard(hard, arg)
                elif self.soft is not None and frame is self.soft.frame:
                    soft, self.soft = self.soft, None
                    self._exit_soft(soft, arg)

        return profile

    # ------------------------------------------------------------------ inputs and states
    def _bind_inputs(self, args, kwargs, arg_names):
        def walk(value, name):
            if isinstance(value, Tensor):
                data = value._require_data("graph input")
                known = self.values.get(id(data))
                if isinstance(known, InputRef):
                    return known  # the same array passed twice is one input
                ref = InputRef(len(self.inputs), name, TensorSpec.of_array(data))
                self.inputs.append(ref)
                self.values[id(data)] = ref
                self.keep.append(data)
                return ref
            kind = type(value)
            if kind is tuple or kind is list:
                return kind(walk(v, f"{name}[{i}]") for i, v in enumerate(value))
            if kind is dict:
                return {k: walk(v, f"{name}[{k!r}]") for k, v in value.items()}
            return value

        names = list(arg_names)
        args_t = tuple(walk(a, names[i] if i < len(names) else f"arg{i}") for i, a in enumerate(args))
        kwargs_t = {k: walk(v, k) for k, v in kwargs.items()}
        return args_t, kwargs_t

    def _note_root_states(self, root):
        for path, cell in root.cells_and_names():
            for name, buf in cell._buffers.items():
                if buf is not None:
                    self.state_names[id(buf)] = f"{path}.{name}" if path else name
        for p in root.get_parameters():
            if p._data is not None:
                self._state(p)
        for path, cell in root.cells_and_names():
            for buf in cell._buffers.values():
                if buf is not None and buf._data is not None:
                    self._state(buf)

    def _state(self, tensor):
        ref = self.states.get(id(tensor))
        if ref is None:
            if isinstance(tensor, Parameter):
                name, kind = tensor.name, "parameter"
            else:
                name = self.state_names.get(id(tensor)) or f"buffer{len(self.states)}"
                kind = "buffer"
            data = tensor._require_data("graph state")
            ref = StateRef(tensor, name, kind, TensorSpec.of_array(data))
            self.states[id(tensor)] = ref
            if id(data) not in self.values:
                self.values[id(data)] = ref
                self.keep.append(data)
        return ref

    def ref_of(self, tensor):
        """The reference standing for ``tensor``'s current value."""
        data = tensor._data
        if data is None:
            data = tensor._require_data("graph")
        ref = self.values.get(id(data))
        if ref is not None:
            return ref
        if isinstance(tensor, (Parameter, Buffer)) or id(tensor) in self.state_names:
            return self._state(tensor)
        ref = ConstRef(data, TensorSpec.of_array(data))
        self.values[id(data)] = ref
        self.keep.append(data)
        return ref

    def _template(self, value, seen=None):
        """``value`` with each Tensor replaced by its reference (containers copied only when needed).

        ``seen``, a dict, collects ``id(ref) -> array`` for the references made.
        """
        if isinstance(value, Tensor):
            ref = self.ref_of(value)
            if seen is not None:
                seen[id(ref)] = value._data
            return ref
        kind = type(value)
        if kind is tuple or kind is list:
            items = [self._template(v, seen) for v in value]
            if all(a is b for a, b in zip(items, value)):
                return value
            return kind(items)
        if kind is dict:
            items = {k: self._template(v, seen) for k, v in value.items()}
            if all(items[k] is v for k, v in value.items()):
                return value
            return items
        return value

    # ------------------------------------------------------------------ ops
    def _enter(self, frame, info, soft):
        args, kwargs, names = registry.bind_frame_locals(info.code, frame.f_locals)
        target = info.function
        if info.kind == "primitive":
            target = args[0]
        elif info.kind == "constructor":
            args, names = args[1:], names[1:]  # 'self' has no data yet
        seen = {}
        pending = _Pending(frame, info, self._template(args, seen), self._template(kwargs, seen), names,
                           _array_ids(args, kwargs), len(self.nodes), target, seen)
        if soft:
            self.soft = pending
        else:
            self.hard = pending

    def _exit_hard(self, pending, output):
        info = pending.info
        if info.kind == "constructor":
            self._exit_constructor(pending)
            return
        if output is None and info.name != "Print":
            return  # nothing returned (or the op raised: the profile sees both as a None return)
        node = self._node(pending, info.name)
        self._record(node, output, pending.arrays)

    def _exit_constructor(self, pending):
        """``Tensor(data, dtype)``: a node only when ``data`` depends on the inputs."""
        args, kwargs = pending.args, pending.kwargs
        new = pending.frame.f_locals.get("self")
        data = args[0] if args else kwargs.get("input_data")
        if new is None or getattr(new, "_data", None) is None or not any(r.dynamic for r in _refs(data)):
            return
        self._record(self._node(pending, "Tensor"), new, pending.arrays)

    def _exit_soft(self, pending, output):
        unknown = [t for t in _tensors(output) if id(t._data) not in self.values]
        primitive = pending.target if pending.info.kind == "primitive" else None
        # (An op returning None with an effect -- a summary op -- is recorded whole below, or it would vanish.)
        if not unknown and not (output is None and pending.info.effectful):
            # Explained by the ops it called: they are the nodes (they remember the Primitive).
            for node in self.nodes[pending.start:]:
                if node.primitive is None:
                    node.primitive = primitive
            return
        # It computed something itself: record it whole, dropping what was recorded inside.
        dropped = {id(n) for n in self.nodes[pending.start:]}
        if dropped:
            for key in [k for k, ref in self.values.items()
                        if isinstance(ref, NodeOutput) and id(ref.node) in dropped]:
                del self.values[key]
            del self.nodes[pending.start:]
        name = primitive.name if primitive is not None else pending.info.name
        node = self._node(pending, name)
        self._record(node, output, pending.arrays)

    def _node(self, pending, name):
        info = pending.info
        kind = "primitive" if info.kind == "primitive" else "function"
        args = pending.args
        effectful = info.effectful or pending.kwargs.get("inplace") is True
        frame = pending.frame.f_back
        node = Node(name, pending.target, kind, args, pending.kwargs, pending.names,
                    scope=self.scopes[-1].path, location=location(user_frame(frame, outside_package=False)),
                    random=info.random, effectful=effectful)
        primitive = pending.target if info.kind == "primitive" else (
            self.soft.target if self.soft is not None and self.soft.info.kind == "primitive" else None)
        node.primitive = primitive
        node.trace_arrays = pending.seen
        self._assign_region(node, primitive)
        return node

    def _assign_region(self, node, primitive):
        scope = self.scopes[-1]
        setting = getattr(primitive, "_recompute", None) if primitive is not None else None
        if setting is False:
            return  # recompute(False): this op keeps its activations even inside a recomputed Cell
        if scope.region is not None:
            node.recompute, node.recompute_label = scope.region, scope.label
        elif setting is True:
            node.recompute, node.recompute_label = _Region(primitive.name), primitive.name

    def _record(self, node, output, argument_arrays):
        """Give the output's new Tensors references to ``node`` and keep the node if it made any."""
        made_new = False

        def walk(value, path):
            nonlocal made_new
            if isinstance(value, Tensor):
                data = value._data
                spec = TensorSpec.of_array(data)
                if id(data) in argument_arrays and not node.effectful:
                    return spec  # the op handed back one of its inputs: the same value
                self.values[id(data)] = NodeOutput(node, path, spec)
                self.keep.append(data)
                made_new = True
                return spec
            kind = type(value)
            if kind is tuple or kind is list:
                return kind(walk(v, path + (i,)) for i, v in enumerate(value))
            return value

        node.outputs = walk(output, ())
        if made_new or node.effectful or node.opaque:
            node.trace_value = output
            self.nodes.append(node)

    # ------------------------------------------------------------------ Cells
    def call_cell(self, cell, args, kwargs, run_opaque):
        """A Cell called while tracing: trace through its call (its hooks do not run).

        Cells the IR cannot look into -- an optimizer or learning-rate
        schedule (they compute on raw arrays) or a Cell with a custom
        ``bprop`` -- become one opaque node that calls the Cell when the
        graph runs.
        """
        scope = self.scopes[-1]
        path = f"{scope.path}/{scope.child_name(cell)}-{type(cell).__name__}"
        if has_hooks(cell):
            self.hooked_cells.append(cell)
        if _is_opaque_cell(cell):
            return self._opaque_cell(cell, args, kwargs, path, run_opaque)
        region, label = self._region_of(cell, scope, path)
        self.scopes.append(_Scope(path, cell, region, label))
        try:
            # Through the Cell's own input checks and casts (to_float), which become part of the graph.
            return _cell_call.run_graph_stages(cell, args, kwargs)
        finally:
            self.scopes.pop()

    @staticmethod
    def _region_of(cell, scope, path):
        if scope is not None and scope.region is not None:
            return scope.region, scope.label
        if cell is not None and getattr(cell, "_recompute", None) is not None:
            return _Region(path), path
        return None, None

    def _opaque_cell(self, cell, args, kwargs, path, run_opaque):
        args_t, kwargs_t = self._template(args), self._template(kwargs)
        arrays = _array_ids(args, kwargs)
        self.hard = _Pending(None, None, args_t, kwargs_t, (), arrays, len(self.nodes), cell)
        try:
            output = run_opaque(cell, args, kwargs)
        finally:
            self.hard = None
        node = Node(type(cell).__name__, cell, "cell", args_t, kwargs_t, (), scope=path,
                    location=location(user_frame(sys._getframe(1), outside_package=False)),
                    effectful=isinstance(cell, Optimizer), opaque=True)
        self._record(node, output, arrays)
        return output

    # ------------------------------------------------------------------ what cannot be traced
    def check_concrete(self, tensor, what):
        """A Tensor read as a Python value (installed on Tensor while tracing): a graph break if it depends
        on an input or a state (the value is recorded; the compiled entry guards on it)."""
        if self.hard is not None or self.soft is not None or self.printing:
            return  # inside an op (it runs again at every call) or a print node: it may look at values
        data = tensor._data
        ref = self.values.get(id(data)) if data is not None else None
        if ref is None and isinstance(tensor, (Parameter, Buffer)):
            ref = self._state(tensor)
        if ref is None or not ref.dynamic or id(ref) in self._read_refs:
            return  # a constant (the same at every run), or a value already guarded
        self._read_refs.add(id(ref))
        frame = user_frame(sys._getframe(1))
        if self.fullgraph:
            raise GraphCompileError(
                f"For '{self.name}' with fullgraph=True: {what} reads the value of a Tensor that depends on "
                f"{_describe_ref(ref)}, at {describe_frame(frame)}. That is a graph break; compute both branches "
                "and choose with ops.where / ops.select, pass the value as a Python number, or leave "
                "fullgraph=False to run it guarded.")
        text = describe_frame(frame)
        line = text.split(": ", 1)[1] if ": " in text else ""
        after = self.nodes[-1] if self.nodes else None
        value = _host_copy(data)
        self.breaks.append(_fallback.GraphBreak(what, location(frame), line, after, ref, value))

    def _note_global_stores(self, code):
        for name, line in _fallback.stored_globals(code):
            import linecache

            text = linecache.getline(code.co_filename, line).strip()
            where = location(_FakeFrame(code, line))
            self.global_stores.append(_fallback.GraphBreak(f"assigns the global '{name}'", where, text,
                                                           self.nodes[-1] if self.nodes else None))

    def _note_transform(self, frame):
        if self.untraceable is None:
            caller = user_frame(frame.f_back, outside_package=False)
            self.untraceable = f"a gradient transform runs inside it ({describe_frame(caller)})"


def _host_copy(data):
    import numpy as np

    from .. import backend as _backend

    return np.array(data if isinstance(data, np.ndarray) else _backend.current().to_host(data), copy=True)


class _FakeFrame:
    """Enough of a frame for :func:`location`: a code object and a line."""

    __slots__ = ("f_code", "f_lineno")

    def __init__(self, code, line):
        self.f_code = code
        self.f_lineno = line


def _describe_ref(ref):
    if isinstance(ref, InputRef):
        return f"the graph input '{ref.name}'"
    if isinstance(ref, StateRef):
        return f"the {ref.kind} '{ref.name}'"
    if isinstance(ref, NodeOutput):
        roots = list({id(r): r for r in _dynamic_roots(ref.node)}.values())
        if not roots:
            return f"a random op ({ref.node.op})"
        parts = [f"{'input' if isinstance(r, InputRef) else r.kind} '{r.name}'" for r in roots]
        return "the graph's " + ", ".join(parts)
    return "a graph value"


def _dynamic_roots(node, seen=None):
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    for r in node.refs():
        if isinstance(r, (InputRef, StateRef)):
            yield r
        elif isinstance(r, NodeOutput):
            yield from _dynamic_roots(r.node, seen)


def _is_opaque_cell(cell):
    """Cells the IR does not look into: the optimizer machinery (it computes on raw arrays and reads the
    step counter as a Python number) and Cells with a custom ``bprop``."""
    return (isinstance(cell, (Optimizer, LearningRateSchedule)) or type(cell).__module__.startswith(_OPTIM)
            or has_custom_bprop(cell))


_OPTIM = Optimizer.__module__.rsplit(".", 1)[0]  # cellkit.nn.optim


def _tensors(value):
    return iter_leaves(value, Tensor)


def _array_ids(args, kwargs):
    ids = {id(t._data) for t in _tensors(args)}
    ids.update(id(t._data) for t in _tensors(kwargs))
    return ids


def _refs(value):
    return iter_refs(value)
