"""Shapes, cost and dataflow per Cell, from one example input (torchinfo's and torchview's views).

:func:`measure` runs the network once on an example input, watching every
Cell call (an observer) and every op call (a profile function over the op
table of :mod:`cellkit.graph.registry`, as the graph tracer does).  It
notes, per Cell, the shapes of the inputs and output of its first call and
how often it was called; per op call, its name, the Cell call it ran in,
the arrays it read and made, and its multiply-adds.  Matrix products and
convolutions are counted where they run -- inside a layer, or in a parent's
own ``construct`` (an attention's ``q @ k``) -- and summed up the tree;
elementwise ops, normalisations and activations are not (as in torchinfo).
The op calls also give the dataflow drawing (:mod:`cellkit.display.dataflow`):
which Cell call fed which, and the adds between them (residual connections).

Nothing about the network changes: nothing is recorded for gradients, and
the Parameters' and buffers' values and the random generator are put back
afterwards (a BatchNorm in training mode would otherwise move its running
statistics, and a Dropout would draw).

>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
>>> shapes, note = measure(net, ms.ops.ones((3, 4)))
>>> shapes.shape_text("0"), shapes.macs_below("0"), shapes.macs_below(""), note
('[3, 4] → [3, 8]', 96, 144, None)
>>> [op.name for op in shapes.ops]
['dense', 'relu', 'dense']
"""
from __future__ import annotations

import math
import sys

from .. import seed as _seed
from ..tensor import Tensor

__all__ = ["measure", "Shapes", "op_macs", "CellCall", "OpCall"]

COUNTED_OPS = ("dense", "matmul", "mm", "bmm", "batch_matmul", "batchmatmul", "conv1d", "conv2d", "conv3d",
               "conv_transpose2d", "conv1d_transpose", "conv2d_transpose", "linear")


class CellCall:
    """One call of one Cell in the example run."""

    __slots__ = ("index", "path", "cls", "parent", "inputs", "outputs", "depth", "seq")

    def __init__(self, index, path, cls, parent, inputs, depth, seq=0):
        self.seq = seq            # the order of everything that began in the run (calls and ops together)
        self.index = index
        self.path = path
        self.cls = cls
        self.parent = parent      # the enclosing CellCall's index, or None
        self.inputs = inputs      # [(array id, shape or type name)]
        self.outputs = None
        self.depth = depth


class OpCall:
    """One op call in the example run: its name, the Cell call it ran in, what it read and made."""

    __slots__ = ("name", "call", "inputs", "outputs", "macs", "seq")

    def __init__(self, name, call, inputs, seq=0):
        self.seq = seq
        self.name = name
        self.call = call          # index of the innermost CellCall, or None (outside every Cell)
        self.inputs = inputs      # [(array id, shape)]
        self.outputs = []
        self.macs = 0


def _leaves(value):
    """The Tensors in a nested value, in order, and other non-None leaves as their type names."""
    out = []
    stack = [value]
    while stack:
        v = stack.pop(0)
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            stack[:0] = list(v)
        elif isinstance(v, dict):
            stack[:0] = list(v.values())
        elif v is not None:
            out.append(type(v).__name__)
    return out


def _described(value, keep):
    """``[(array id, shape)]`` of the Tensors in ``value`` (``(None, type name)`` for other leaves)."""
    out = []
    for leaf in _leaves(value):
        if isinstance(leaf, Tensor):
            data = leaf._data
            keep.append(data)  # alive until the run ends: no id is reused meanwhile
            out.append((id(data), [int(d) for d in leaf.shape]))
        else:
            out.append((None, leaf))
    return out


class _Recorder:
    """The observer (Cell calls) and the profile function (op calls) of one example run."""

    wants_backward = False

    def __init__(self, paths):
        self.paths = paths
        self.calls = []
        self.stack = []
        self.ops = []
        self.keep = []
        self.hard = None    # (frame, OpCall) of the op running now
        self.soft = None    # (frame, name, OpCall or None) of a soft op (a Primitive call, a Tensor method)
        self.seq = 0

    def on_event(self, kind, cell, payload):
        path = self.paths.get(id(cell))
        if path is None:
            return
        if kind == "forward_pre":
            parent = self.stack[-1] if self.stack else None
            self.seq += 1
            call = CellCall(len(self.calls), path, type(cell).__name__, parent,
                            _described(payload["inputs"], self.keep), len(self.stack), self.seq)
            self.calls.append(call)
            self.stack.append(call.index)
        elif kind == "forward":
            for index in reversed(self.stack):
                if self.calls[index].path == path:
                    self.calls[index].outputs = _described(payload["output"], self.keep)
                    del self.stack[self.stack.index(index):]
                    break

    def profile(self, table):
        get = table.get

        def watch(frame, event, arg):
            if event == "call":
                if self.hard is not None:
                    return
                info = get(frame.f_code)
                if info is None:
                    return
                current = self.stack[-1] if self.stack else None
                inputs = _described([v for v in _arguments(frame)], self.keep)
                self.seq += 1
                if info.soft:
                    if self.soft is None:
                        self.soft = (frame, OpCall(info.name, current, inputs, self.seq), False)
                    return
                self.hard = (frame, OpCall(info.name, current, inputs, self.seq))
                if self.soft is not None:
                    self.soft = (self.soft[0], self.soft[1], True)  # a hard op inside: the soft op is looked through
            elif event == "return":
                if self.hard is not None:
                    if frame is self.hard[0]:
                        self._finish(self.hard[1], arg)
                        self.hard = None
                elif self.soft is not None and frame is self.soft[0]:
                    frame_, op, had_hard = self.soft
                    self.soft = None
                    if not had_hard:
                        self._finish(op, arg)

        return watch

    def _finish(self, op, result):
        op.outputs = [(i, s) for i, s in _described(result, self.keep) if i is not None]
        op.macs = op_macs(op.name, [s for i, s in op.inputs if i is not None], [s for _, s in op.outputs])
        self.ops.append(op)


def _arguments(frame):
    """The values of a frame's parameters, in order (read at its 'call' event, before the body runs)."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & 0x04:   # *args
        count += 1
    if code.co_flags & 0x08:   # **kwargs
        count += 1
    local = frame.f_locals
    return [local.get(name) for name in code.co_varnames[:count] if name != "self"]


class _Snapshot:
    """Parameter and buffer values and the random generator, to put back after the example run."""

    def __init__(self, net):
        self.tensors = [(p, p._data) for p in net.get_parameters()]
        for _, cell in net.cells_and_names():
            self.tensors += [(b, b._data) for b in (cell.__dict__.get("_buffers") or {}).values() if b is not None]
        self.generator = _seed.generator()
        self.state = self.generator.bit_generator.state

    def restore(self):
        for tensor, data in self.tensors:
            tensor._data = data
        self.generator.bit_generator.state = self.state


def op_macs(op, input_shapes, output_shapes):
    """Multiply-adds of one op call from its shapes (0 for ops that are not counted).

    >>> op_macs("dense", [[3, 4], [8, 4], [8]], [[3, 8]])
    96
    >>> op_macs("conv2d", [[1, 3, 8, 8], [16, 3, 3, 3]], [[1, 16, 8, 8]])
    27648
    """
    op = op.lower()
    input_shapes = [s for s in input_shapes if isinstance(s, list)]
    if op not in COUNTED_OPS or not output_shapes or not input_shapes:
        return 0
    out_elements = math.prod(output_shapes[0]) if output_shapes[0] else 1
    if op.startswith("conv"):
        if len(input_shapes) < 2 or len(input_shapes[1]) < 2:
            return 0
        weight = input_shapes[1]
        if "transpose" in op:  # each input element meets a whole kernel slice
            return math.prod(input_shapes[0]) * math.prod(weight[1:])
        return out_elements * math.prod(weight[1:])
    if op in ("dense", "linear"):
        if len(input_shapes) < 2 or len(input_shapes[1]) < 2:
            return 0
        return out_elements * int(input_shapes[1][-1])
    first = input_shapes[0]  # the matmul family: the shared dimension is the first operand's last
    return out_elements * (int(first[-1]) if first else 1)


class Shapes:
    """What :func:`measure` found (see the module docstring)."""

    def __init__(self, calls, ops, params):
        self.calls = calls        # [CellCall], in the order they began
        self.ops = ops            # [OpCall], in the order they ran
        self.params = params      # id(array) -> Parameter name, for the arrays that are Parameters
        self.first = {}
        for call in calls:
            self.first.setdefault(call.path, call)
        self.count = {}
        for call in calls:
            self.count[call.path] = self.count.get(call.path, 0) + 1
        below = {}
        for op in ops:
            if not op.macs:
                continue
            path = calls[op.call].path if op.call is not None else ""
            parts = path.split(".") if path else []
            for k in range(len(parts), -1, -1):
                key = ".".join(parts[:k])
                below[key] = below.get(key, 0) + op.macs
        self._below = below

    def macs_below(self, path):
        """Multiply-adds the Cell at ``path`` did in the example run, its children's included (0 if none)."""
        return self._below.get(path, 0)

    def shape_text(self, path):
        """``'[3, 4] → [3, 8]'`` for the Cell's first call (``(×2 calls)`` when it ran more than once), or None."""
        call = self.first.get(path)
        if call is None:
            return None
        text = f"{_list(call.inputs)} → {_list(call.outputs or [])}"
        if self.count.get(path, 1) > 1:
            text += f" (×{self.count[path]} calls)"
        return text


def _list(described):
    parts = [("[" + ", ".join(str(d) for d in s) + "]") if isinstance(s, list) else str(s) for _, s in described]
    if not parts:
        return "()"
    return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"


def measure(net, *example):
    """Run ``net(*example)`` once, watched; returns ``(Shapes, note or None)``. Never raises.

    The note says what could not be measured.
    """
    from ..graph import registry
    from .. import observers as _observers

    paths = {id(cell): path for path, cell in net.cells_and_names()}
    recorder = _Recorder(paths)
    cells = [cell for _, cell in net.cells_and_names()]
    snapshot = _Snapshot(net)
    note = None
    previous = sys.getprofile()
    try:
        table = registry.table()
        for cell in cells:
            _observers.add_observer(cell, recorder)
        sys.setprofile(recorder.profile(table))
        try:
            net(*example)  # displays run outside gradient transforms: nothing is recorded
        finally:
            sys.setprofile(previous)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        note = f"the example run failed ({type(exc).__name__}: {str(exc)[:120]}): shapes so far"
    finally:
        for cell in cells:
            _observers.remove_observer(cell, recorder)
        snapshot.restore()
    params = {}
    for name, p in net.parameters_and_names():
        if p._data is not None:
            params[id(p._data)] = name
    shapes = Shapes(recorder.calls, recorder.ops, params)
    recorder.keep.clear()
    return shapes, note
