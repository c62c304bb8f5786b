"""The bytes of MindSpore's parallel-strategy and group-info files.

A parallel run of MindSpore saves, next to each rank's ``.ckpt`` slice, how
every parameter was cut: a *strategy file*, a protobuf ``ParallelStrategyMap``
(proto2, package ``mindspore.straspb``)::

    message ParallelStrategyMap {
      required uint32 current_stage = 1;
      repeated ParallelStrategyItem parallel_strategy_item = 2;   // per operator; not needed to merge
      repeated ParallelLayoutItem parallel_layout_item = 3;       // per parameter
    }
    message ParallelLayoutItem { required string param_name = 1; required ParallelLayouts parallel_layouts = 2; }
    message ParallelLayouts {
      repeated DevMatrix dev_matrix = 1;                 // dims of the device grid, e.g. [2, 2] for 4 ranks
      repeated TensorMap tensor_map = 2;                 // per tensor axis: which grid axis cuts it (-1: none)
      repeated ParamSplitShape param_split_shape = 3;    // axis-0 sizes of uneven slices (empty: even)
      repeated IndicesOffset indices_offset = 4;
      required int32 field = 5;                          // > 0 for MindSpore's field-sliced embeddings
      required int32 opt_weight_shard_step = 6;          // the optimizer's own sharding of axis 0
      required int32 opt_weight_shard_size = 7;
    }
    message DevMatrix { repeated uint32 dim = 1; }  // TensorMap: int32, ParamSplitShape/IndicesOffset: int64

A tensor-map entry ``k`` names the grid axis counted from the right
(``dev_matrix[-1 - k]``).  The same layouts may come as JSON (a ``.json``
file whose ``parallel_layout_item`` maps names to plain lists).  A
*group-info file* is a ``ParallelGroupMap``: the communication groups of one
rank and ``ckpt_restore_rank_list``, the ranks whose checkpoints hold the
same values as that rank's.

As in :mod:`~cellkit.serialization.ckpt_format`, the message classes are
built at run time from a descriptor written out below, in a private pool
(no ``protoc``, no generated code), and the file is parsed by protobuf's own
checked parser.  The readers go further than MindSpore's: a file with
missing required fields or with fields these messages do not have (a
group-info file given as a strategy file, random bytes that happen to
parse) is refused instead of read as an empty or nonsensical layout.
"""
from __future__ import annotations

import json
import math
import os

__all__ = ["StrategyFileError", "read_strategy", "read_group_info", "layout_lists", "check_strategy_path"]

_PACKAGE = "mindspore.straspb"
# The largest device grid read (2**20 ranks): the merge walks every rank, so a damaged dev_matrix must not
# make it walk billions.
MAX_RANKS = 1 << 20
_CLASSES = None


class StrategyFileError(ValueError, TypeError):
    """A strategy file that cannot be read.

    MindSpore 2.10 documents ``ValueError`` for an incorrect strategy file and raises ``TypeError`` when the
    bytes do not parse; this error is both, so code written against either catches it.
    """


def _classes():
    """``{message name: class}`` for the strategy and group-info messages, built once."""
    global _CLASSES
    if _CLASSES is None:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        F = descriptor_pb2.FieldDescriptorProto
        proto = descriptor_pb2.FileDescriptorProto(name="cellkit_node_strategy.proto", package=_PACKAGE,
                                                   syntax="proto2")

        def message(name, *fields):
            msg = proto.message_type.add(name=name)
            for number, (field_name, label, kind, type_name) in enumerate(fields, start=1):
                field = msg.field.add(name=field_name, number=number, label=label, type=kind)
                if type_name:
                    field.type_name = f".{_PACKAGE}.{type_name}"

        rep, req = F.LABEL_REPEATED, F.LABEL_REQUIRED
        msg_t = F.TYPE_MESSAGE
        message("ParallelStrategy", ("dim", rep, F.TYPE_UINT32, None))
        message("ParallelStrategys", ("stage", req, F.TYPE_UINT32, None),
                ("parallel_strategy", rep, msg_t, "ParallelStrategy"))
        message("ParallelStrategyItem", ("node_name", req, F.TYPE_STRING, None),
                ("parallel_strategys", req, msg_t, "ParallelStrategys"))
        message("DevMatrix", ("dim", rep, F.TYPE_UINT32, None))
        message("TensorMap", ("dim", rep, F.TYPE_INT32, None))
        message("ParamSplitShape", ("dim", rep, F.TYPE_INT64, None))
        message("IndicesOffset", ("dim", rep, F.TYPE_INT64, None))
        message("ParallelLayouts", ("dev_matrix", rep, msg_t, "DevMatrix"), ("tensor_map", rep, msg_t, "TensorMap"),
                ("param_split_shape", rep, msg_t, "ParamSplitShape"),
                ("indices_offset", rep, msg_t, "IndicesOffset"), ("field", req, F.TYPE_INT32, None),
                ("opt_weight_shard_step", req, F.TYPE_INT32, None), ("opt_weight_shard_size", req, F.TYPE_INT32, None))
        message("ParallelLayoutItem", ("param_name", req, F.TYPE_STRING, None),
                ("parallel_layouts", req, msg_t, "ParallelLayouts"))
        message("ParallelGroupRanks", ("dim", rep, F.TYPE_UINT32, None))
        message("ParallelGroupItem", ("group_name", req, F.TYPE_STRING, None),
                ("parallel_group_ranks", req, msg_t, "ParallelGroupRanks"))
        message("ParallelGroupMap", ("parallel_group_item", rep, msg_t, "ParallelGroupItem"),
                ("ckpt_restore_rank_list", req, msg_t, "ParallelGroupRanks"))
        message("ParallelStrategyMap", ("current_stage", req, F.TYPE_UINT32, None),
                ("parallel_strategy_item", rep, msg_t, "ParallelStrategyItem"),
                ("parallel_layout_item", rep, msg_t, "ParallelLayoutItem"))

        pool = descriptor_pool.DescriptorPool()  # private: no clash with MindSpore's own classes
        pool.Add(proto)
        _CLASSES = {m.name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{m.name}"))
                    for m in proto.message_type}
    return _CLASSES


def _is_repeated(field):
    repeated = getattr(field, "is_repeated", None)  # protobuf >= 6; ``label`` before it
    return repeated if repeated is not None else field.label == field.LABEL_REPEATED


def _unknown_field(message, path=""):
    """The path of the first field ``message`` (or a sub-message) does not declare, or None."""
    from google.protobuf import unknown_fields

    unknown = unknown_fields.UnknownFieldSet(message)
    if len(unknown):
        return f"{path or message.DESCRIPTOR.name}: field number {unknown[0].field_number}"
    for field, value in message.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        items = value if _is_repeated(field) else [value]
        for index, item in enumerate(items):
            found = _unknown_field(item, f"{path or message.DESCRIPTOR.name}.{field.name}[{index}]")
            if found:
                return found
    return None


def _parse(content, name, what, error):
    """``content`` parsed as message ``name``; ``error(reason)`` for anything that is not one."""
    message = _classes()[name]()
    try:
        message.ParseFromString(content)
    except Exception as exc:  # protobuf's DecodeError and whatever else its parser raises on odd bytes
        raise error(f"the bytes are not a protobuf {name} ({exc})") from None
    if not message.IsInitialized():
        missing = ", ".join(message.FindInitializationErrors())
        raise error(f"it is not a complete {what}: required fields missing ({missing})")
    unknown = _unknown_field(message)
    if unknown:
        raise error(f"it holds data that is not part of a {what} ({unknown})")
    return message


def check_strategy_path(strategy_filename, func="build_searched_strategy", arg="strategy_filename"):
    """MindSpore's checks of a strategy file name, with its messages (the name quoted)."""
    if not isinstance(strategy_filename, str):
        raise TypeError(f"For '{func}', the argument '{arg}' should be string, "
                        f"but got {type(strategy_filename)}.")
    if not os.path.isfile(strategy_filename):
        raise ValueError(f"For '{func}', no such strategy file: {strategy_filename!r}. "
                         f"Please check whether the '{arg}' exists.")
    if os.path.getsize(strategy_filename) == 0:
        raise ValueError(f"For '{func}', the strategy file {strategy_filename!r} should not "
                         f"be empty. Please check whether the '{arg}' is correct.")


def read_strategy(strategy_filename, func="build_searched_strategy", arg="strategy_filename"):
    """``{parameter name: ParallelLayouts}`` from a strategy file (protobuf, or JSON when named ``*.json``).

    The values are protobuf messages with MindSpore's field names (``dev_matrix[0].dim``, ``tensor_map``,
    ``param_split_shape``, ``indices_offset``, ``field``, ``opt_weight_shard_step``, ``opt_weight_shard_size``),
    in the file's order.
    """
    check_strategy_path(strategy_filename, func, arg)

    def error(reason):
        return StrategyFileError(f"For '{func}', the strategy file {strategy_filename!r} ('{arg}') cannot be read: "
                                 f"{reason}.")

    if strategy_filename[-5:] == ".json":
        return _read_json_strategy(strategy_filename, error)
    with open(strategy_filename, "rb") as f:
        content = f.read()
    strategy_map = _parse(content, "ParallelStrategyMap", "strategy file (ParallelStrategyMap)", error)
    strategy = {}
    for index, item in enumerate(strategy_map.parallel_layout_item):
        if not isinstance(item.param_name, str):  # protobuf hands back bytes for a proto2 string that is not UTF-8
            raise error(f"layout {index} has a parameter name that is not valid UTF-8: {item.param_name!r}")
        strategy[item.param_name] = item.parallel_layouts
    return strategy


def _int_list(value, where, error):
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise error(f"{where} should be a list of int, but got {value!r}")
    return value


def _read_json_strategy(strategy_filename, error):
    try:
        with open(strategy_filename, "r", encoding="utf-8") as f:
            content = json.load(f)
    except (ValueError, UnicodeDecodeError) as exc:
        raise error(f"it is not JSON ({exc})") from None
    if not isinstance(content, dict):
        raise error(f"the top level should be a JSON object, but got {type(content).__name__}")
    if "parallel_layout_item" not in content:
        return {}
    items = content["parallel_layout_item"]
    if not isinstance(items, dict):
        raise error(f"'parallel_layout_item' should be an object of parameter names, but got {type(items).__name__}")
    Layouts = _classes()["ParallelLayouts"]
    strategy = {}
    for name, item in items.items():
        if not isinstance(item, dict):
            raise error(f"the layout of '{name}' should be an object, but got {type(item).__name__}")
        layout = Layouts()
        try:
            for key in ("field", "opt_weight_shard_size", "opt_weight_shard_step"):
                value = item.get(key)
                if isinstance(value, bool) or not isinstance(value, int):
                    raise error(f"'{key}' of '{name}' should be an int, but got {value!r}")
                setattr(layout, key, value)
            for key in ("dev_matrix", "tensor_map", "param_split_shape", "indices_offset"):
                values = item.get(key, []) if key in ("param_split_shape", "indices_offset") else item.get(key)
                getattr(layout, key).add().dim.extend(_int_list(values, f"'{key}' of '{name}'", error))
        except StrategyFileError:
            raise
        except ValueError as exc:  # a number outside the field's range (a negative dev_matrix dim, say)
            raise error(f"the layout of '{name}' holds a value its field cannot take ({exc})") from None
        strategy[name] = layout
    return strategy


def read_group_info(group_info_file_name):
    """The ``ckpt_restore_rank_list`` of a group-info file, as a list of int (MindSpore's checks first)."""
    func = "restore_group_info_list"
    if not isinstance(group_info_file_name, str):
        raise TypeError(f"For '{func}', the argument 'group_info_file_name' should be str, "
                        f"but got {type(group_info_file_name)}.")
    if not os.path.isfile(group_info_file_name):
        raise ValueError(f"For '{func}', no such group information file: {group_info_file_name!r}.")
    if os.path.getsize(group_info_file_name) == 0:
        raise ValueError(f"For '{func}', the group information file should not be empty.")
    with open(group_info_file_name, "rb") as f:
        content = f.read()

    def error(reason):
        return ValueError(f"For '{func}', the group information file {group_info_file_name!r} cannot be read: "
                          f"{reason}.")

    group_map = _parse(content, "ParallelGroupMap", "group information file (ParallelGroupMap)", error)
    return [int(rank) for rank in group_map.ckpt_restore_rank_list.dim]


def layout_lists(name, layout, func, error=ValueError):
    """``(dev_matrix, tensor_map, param_split_shape, field, opt_step, opt_size)`` of one layout, checked.

    ``layout`` is a ParallelLayouts message (or any object with its attributes).  Raises ``error`` naming
    the parameter when the layout is not one a merge can follow.
    """
    try:
        dev_matrix = [int(d) for d in layout.dev_matrix[0].dim]
        tensor_maps = [[int(d) for d in m.dim] for m in layout.tensor_map]
        split_shape = [int(d) for d in layout.param_split_shape[0].dim] if len(layout.param_split_shape) else []
        field = int(layout.field)
        opt_step, opt_size = int(layout.opt_weight_shard_step), int(layout.opt_weight_shard_size)
    except Exception as exc:  # not a layout: a None, a dict, a layout without a dev_matrix ...
        raise error(f"{exc}. For '{func}', please make sure that 'strategy' is correct: the layout of '{name}' "
                    f"should be a ParallelLayouts (from build_searched_strategy), but got {type(layout)}.") from None
    if not tensor_maps:
        raise error(f"For '{func}', the layout of '{name}' has no tensor_map.")
    if len([m for m in tensor_maps if m]) > 1:
        raise error(f"For '{func}', the layout of '{name}' cuts one axis over several device axes "
                    f"({len(tensor_maps)} tensor maps), which cellkit cannot merge.")
    tensor_map = next((m for m in tensor_maps if m), tensor_maps[0])
    if not dev_matrix or any(d < 1 for d in dev_matrix):
        raise error(f"For '{func}', the dev_matrix of '{name}' should hold positive sizes, but got {dev_matrix}.")
    if math.prod(dev_matrix) > MAX_RANKS:
        raise error(f"For '{func}', the dev_matrix of '{name}' describes {math.prod(dev_matrix)} ranks, more than "
                    f"the {MAX_RANKS} a strategy file is read for; the file is probably damaged.")
    used = [t for t in tensor_map if t != -1]
    if any(t < -1 or t >= len(dev_matrix) for t in tensor_map) or len(set(used)) != len(used):
        raise error(f"For '{func}', the tensor_map of '{name}' should name each axis of the dev_matrix "
                    f"{dev_matrix} at most once (0 to {len(dev_matrix) - 1}, or -1), but got {tensor_map}.")
    if field < 0 or any(d < 0 for d in split_shape):
        raise error(f"For '{func}', the layout of '{name}' has a negative field or param_split_shape "
                    f"({field}, {split_shape}).")
    return dev_matrix, tensor_map, split_shape, field, opt_step, opt_size
