"""``ms.export`` / ``ms.load`` / ``nn.GraphCell``: a traced graph written to a file and run again.

MindSpore writes MindIR (protobuf).  cellkit writes **its own format, not
MindIR**: one UTF-8 JSON document, whatever the file is called
(``file_format="MINDIR"`` gives a ``.mindir`` name, as MindSpore does, so
tutorial code runs unchanged; MindSpore cannot read the file, nor cellkit a
real MindIR file).  Nothing in it is executed when it is read: there is no
pickle and no code, only data.

The document (``"format": "cellkit.export"``, ``"version": 1``)::

    {"format": "cellkit.export", "version": 1,
     "graph": <the graph as cellkit.graph.serialize writes it: inputs, states, constants, nodes, output>,
     "targets": ["cellkit.ops.math:add", ...],   # per node: the op it calls, module:qualname inside cellkit
     "input_template": <where each input sits in the call's arguments>,
     "parameters": {"weight": {"shape": [2, 3], "dtype": "Float32", "requires_grad": true,
                               "data": "<base64 of the raw C-order bytes>"}}}

Arrays (constants and parameters) are stored as their raw little-endian
bytes in C order, base64-encoded, with shape and dtype beside them.  On
reading, an op is looked up only inside the ``cellkit`` package and must be
a function or a Primitive class there; anything else is refused.

Graphs that cannot be written are refused at export with an error naming
the node: a graph break (the graph alone is not the function), an
``ops.Custom`` (it holds a Python function), an optimizer or a Cell with
a custom ``bprop`` inside, or an argument that is not plain data.

>>> import os, tempfile
>>> import cellkit as ms
>>> from cellkit import nn
>>> net = nn.Dense(3, 2)
>>> x = ms.ops.ones((1, 3))
>>> path = os.path.join(tempfile.mkdtemp(), "dense")
>>> ms.export(net, x, file_name=path, file_format="MINDIR")
>>> loaded = nn.GraphCell(ms.load(path + ".mindir"))
>>> bool((loaded(x) == net(x)).all())
True
"""
from __future__ import annotations

import base64
import importlib
import json
import os
import tempfile
import types

import numpy as np

from .. import backend as _backend
from .. import dtype as _dt
from ..ops.primitive import Primitive
from . import serialize as _ser
from .ir import StateRef

__all__ = ["export", "load", "FORMAT", "VERSION"]

FORMAT = "cellkit.export"
VERSION = 1
_FORMATS = ("AIR", "ONNX", "MINDIR")


def export(net, *inputs, file_name, file_format, **kwargs):
    """Trace ``net`` on ``inputs`` and write the graph and its Parameters to ``file_name`` (cellkit's format).

    Parameters
    ----------
    net : Cell or function
        What to export.
    *inputs : Tensor
        Example inputs (the graph is traced for their shapes and dtypes).
    file_name : str
        The path; ``'.mindir'`` is appended when missing.
    file_format : {'MINDIR', 'AIR', 'ONNX'}
        ``'MINDIR'`` writes cellkit's own JSON format (not MindIR); ``'AIR'``
        and ``'ONNX'`` are refused.
    **kwargs
        MindSpore's options (encryption, dataset preprocessing ...): refused
        when given, since cellkit does none of them.

    Raises
    ------
    ValueError
        A ``file_format`` not in ``('AIR', 'ONNX', 'MINDIR')``, or ``'AIR'`` / ``'ONNX'``;
        a graph that cannot be written (see the module's text).
    TypeError
        ``file_name`` not a str, or ``net`` neither a Cell nor a function.
    """
    from ..nn.cell import Cell

    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, but got {file_format!r}.")
    if file_format != "MINDIR":
        raise ValueError(f"For 'export', cellkit writes no '{file_format}' file: use file_format='MINDIR' "
                         "(cellkit's own graph format, which cellkit's load reads).")
    if not isinstance(file_name, str):
        raise TypeError(f"For 'export', the argument 'file_name' must be a str, but got {type(file_name).__name__}")
    if kwargs:
        raise ValueError(f"For 'export', cellkit supports none of the options {sorted(kwargs)} (encryption, "
                         "dataset preprocessing ...): leave them out")
    if not (isinstance(net, Cell) or isinstance(net, (types.FunctionType, types.MethodType))):
        raise TypeError(f"For 'export', 'net' must be a Cell or a function, but got {type(net).__name__}")
    from ..tensor import Tensor

    # Each input its own array (the tracer makes one graph input of an array passed twice).
    inputs = tuple(Tensor(t.asnumpy()) if isinstance(t, Tensor) else t for t in inputs)
    try:
        graph = _trace(net, inputs)
    except (TypeError, ValueError, RuntimeError) as exc:
        if str(exc).startswith("For 'export'"):
            raise
        raise type(exc)(f"For 'export', running 'net' on the given inputs failed: {exc}") from exc
    document = _document(graph)
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    _write_atomically(os.path.abspath(file_name), json.dumps(document).encode("utf-8"))


def _trace(net, inputs):
    from ..nn.cell import Cell
    from .compiler import _trace as trace_once
    from .runtime import _arg_names

    if isinstance(net, Cell):
        from ..nn import cell_call

        net.init_parameters_data()

        def fn(*args):
            return cell_call.run_graph_stages(net, args, {})

        entry, _ = trace_once(fn, inputs, {}, type(net).__name__, net, "O1", _arg_names(net.construct), True)
    else:
        entry, _ = trace_once(net, inputs, {}, getattr(net, "__name__", "function"), None, "O1",
                              _arg_names(net), True)
    graph = entry.graph
    if entry.kind != "graph" or graph is None:
        raise ValueError(f"For 'export', the graph cannot be traced: {entry.reason}")
    if graph.breaks:
        raise ValueError(f"For 'export', the traced graph has a graph break ({graph.breaks[0].text()}): the graph "
                         "alone does not compute the function; remove the Python decision on a Tensor's value")
    return graph


def _document(graph):
    targets = []
    for node in graph.nodes:
        where = f"node %{node.index} ({node.op}, {node.location})"
        if node.kind == "cell":
            raise ValueError(f"For 'export', {where} calls the Cell {type(node.target).__name__} as a whole "
                             "(an optimizer or a custom bprop): it cannot be written as a graph")
        if node.kind == "primitive":
            targets.append(_primitive_path(node.args[0], where))
        else:
            targets.append(_function_path(node.target, where))
        for value in list(node.args) + list(node.kwargs.values()):
            _check_plain(value, where)
    data = _ser.graph_to_dict(graph)
    parameters = {}
    for state in graph.states:
        parameters[state.name] = _array_entry(state.tensor._data, state.spec)
        parameters[state.name]["requires_grad"] = bool(getattr(state.tensor, "requires_grad", False))
    return {"format": FORMAT, "version": VERSION, "graph": data, "targets": targets,
            "input_template": _ser._value(list(graph.input_template[0])), "parameters": parameters}


def _function_path(fn, where):
    module = getattr(fn, "__module__", None) or ""
    qualname = getattr(fn, "__qualname__", "")
    if module.split(".")[0] == "cellkit" and _resolve(module, qualname) is fn:
        return f"{module}:{qualname}"
    raise ValueError(f"For 'export', {where} calls {qualname or fn!r} from '{module}', which is not an op of "
                     "cellkit: only cellkit's ops can be written")


def _primitive_path(prim, where):
    from ..ops.custom import Custom

    if isinstance(prim, Custom):
        raise ValueError(f"For 'export', {where} is an ops.Custom: it holds a Python function, and the file "
                         "stores no code")
    cls = type(prim)
    try:
        again = cls(**prim.attrs)
    except Exception as exc:  # noqa: BLE001 -- any failure means it cannot be rebuilt from its attributes
        raise ValueError(f"For 'export', {where}: the Primitive {cls.__name__} cannot be rebuilt from its "
                         f"attributes ({exc})") from None
    if type(again) is not cls:
        raise ValueError(f"For 'export', {where}: the Primitive {cls.__name__} cannot be rebuilt")
    return f"{cls.__module__}:{cls.__qualname__}"


def _check_plain(value, where):
    written = _ser._value(value)
    if isinstance(written, dict) and "object" in written:
        raise ValueError(f"For 'export', {where} takes {written['object']} ({written['type']}), which is not "
                         "plain data and cannot be written")
    if isinstance(value, (tuple, list)):
        for v in value:
            _check_plain(v, where)
    elif isinstance(value, dict):
        for v in value.values():
            _check_plain(v, where)


def _array_entry(array, spec):
    host = np.ascontiguousarray(_backend.to_host(array))
    if host.dtype.byteorder == ">":
        host = host.astype(host.dtype.newbyteorder("<"))
    return {"shape": list(spec.shape), "dtype": str(spec.dtype), "data": base64.b64encode(host.tobytes()).decode()}


def _write_atomically(path, payload):
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".cellkit-export-")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(payload)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _resolve(module, qualname):
    if module.split(".")[0] != "cellkit":
        return None
    try:
        obj = importlib.import_module(module)
    except ImportError:
        return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# ------------------------------------------------------------------------------ reading
def load(file_name, **kwargs):
    """Read a graph written by :func:`export`; returns a graph for :class:`cellkit.nn.GraphCell`.

    Parameters
    ----------
    file_name : str
        The file :func:`export` wrote.
    **kwargs
        MindSpore's decryption and obfuscation options: refused when given.

    Returns
    -------
    cellkit.graph.Graph
        The graph, with its Parameters' values, ready for ``nn.GraphCell``.

    Raises
    ------
    ValueError
        ``file_name`` not a str, or no such file.
    RuntimeError
        A file that is not cellkit's export format (a real MindIR file included), or a damaged one.
    """
    if not isinstance(file_name, str):
        raise ValueError(f"For 'load', the argument 'file_name' must be string, but got {type(file_name)}.")
    if not os.path.isfile(file_name):  # a folder is not a graph file either
        raise ValueError(f"For 'load', the argument 'file_name' (MindIR file) does not exist: '{file_name}', please "
                         "check whether the 'file_name' is correct.")
    if kwargs:
        raise ValueError(f"For 'load', cellkit supports none of the options {sorted(kwargs)}: leave them out")
    with open(file_name, "rb") as f:
        raw = f.read()
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RuntimeError(f"For 'load', '{file_name}' is not a graph written by cellkit's export (cellkit reads "
                           "its own JSON format, not MindIR)") from None
    try:
        return _graph_of(document)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise RuntimeError(f"For 'load', '{file_name}' is damaged: {type(exc).__name__}: {exc}") from None


def _graph_of(document):
    from ..parameter import Parameter
    from ..tensor import Tensor

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RuntimeError("For 'load', the file is not a graph written by cellkit's export (its 'format' is "
                         f"{document.get('format') if isinstance(document, dict) else None!r})")
    if document.get("version", 0) > VERSION:
        raise RuntimeError(f"For 'load', the file's version {document['version']} is newer than this cellkit reads "
                         f"({VERSION})")
    graph = _ser.graph_from_dict(document["graph"])
    targets = document["targets"]
    if len(targets) != len(graph.nodes):
        raise RuntimeError("For 'load', the file's op list does not match its nodes")
    for node, path in zip(graph.nodes, targets):
        module, _, qualname = path.partition(":")
        target = _resolve(module, qualname)
        if node.kind == "primitive":
            if not (isinstance(target, type) and issubclass(target, Primitive)):
                raise RuntimeError(f"For 'load', node {node.op}: '{path}' is not a Primitive of cellkit")
            described = node.args[0]
            node.args = (target(**_plain(described.get("attrs", {}))),) + tuple(node.args[1:])
        elif not isinstance(target, (types.FunctionType, property)) or target is None:
            raise RuntimeError(f"For 'load', node {node.op}: '{path}' is not an op of cellkit")
        node.target = target
    states = {}
    for state in graph.states:
        entry = document["parameters"][state.name]
        array = _array_from(entry)
        parameter = Parameter(Tensor(array), name=state.name, requires_grad=bool(entry.get("requires_grad", True)))
        states[state.name] = StateRef(parameter, state.name, state.kind, state.spec)
    for node in graph.nodes:
        node.args = tuple(_swap_states(a, states) for a in node.args)
        node.kwargs = {k: _swap_states(v, states) for k, v in node.kwargs.items()}
    graph.output = _swap_states(graph.output, states)
    graph.states = list(states.values())
    template = _read_template(document["input_template"], graph)
    graph.input_template = (tuple(template), {})
    graph.finish()
    for const in graph.constants:  # on the current backend's device
        const.array = _backend.from_host(np.array(const.array))
    graph.loaded = True
    return graph


def _plain(value):
    if isinstance(value, dict) and "dtype" in value and len(value) == 1:
        return _dt.to_dtype(value["dtype"])
    if isinstance(value, dict) and "tuple" in value:
        return tuple(_plain(v) for v in value["tuple"])
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _array_from(entry):
    spec = _ser._read_spec(entry)
    return np.frombuffer(base64.b64decode(entry["data"]), dtype=spec.dtype.to_backend(np)).reshape(spec.shape).copy()


def _swap_states(value, states):
    if isinstance(value, StateRef):
        return states[value.name]
    kind = type(value)
    if kind is tuple or kind is list:
        return kind(_swap_states(v, states) for v in value)
    if kind is dict:
        return {k: _swap_states(v, states) for k, v in value.items()}
    return value


def _read_template(value, graph):
    def read(v):
        if isinstance(v, list):
            return [read(x) for x in v]
        if isinstance(v, dict) and "input" in v:
            return graph.inputs[v["input"]]
        if isinstance(v, dict) and "tuple" in v:
            return tuple(read(x) for x in v["tuple"])
        return v

    return read(value)
