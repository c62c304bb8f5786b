"""The protobuf messages of MindSpore's summary and lineage files, built at run time.

A summary file holds ``Event`` messages (MindSpore's ``summary.proto``, proto2)::

    message Event {
      required double wall_time = 1;
      optional int64 step = 2;
      oneof what {
        string version = 3;                 // the first event: "MindSpore.Event:1"
        GraphProto graph_def = 4;           // kept here as opaque bytes (cellkit writes no graphs)
        Summary summary = 5;
        Explain explain = 6;                // not used (kept as unknown fields when read)
      }
    }
    message Summary {
      message Image { required int32 height = 1; required int32 width = 2;
                      required int32 colorspace = 3; required bytes encoded_image = 4; }
      message Histogram {
        message bucket { required double left = 1; required double width = 2; required int64 count = 3; }
        repeated bucket buckets = 1;
        optional int64 nan_count = 2; optional int64 pos_inf_count = 3; optional int64 neg_inf_count = 4;
        optional double max = 5; optional double min = 6; optional double sum = 7; optional int64 count = 8;
      }
      message Value {
        required string tag = 1;
        oneof value { float scalar_value = 3; Image image = 4; TensorProto tensor = 8;
                      Histogram histogram = 9; LossLandscape loss_landscape = 10; }
      }
      repeated Value value = 1;
    }
    message TensorProto {                   // from anf_ir.proto
      repeated int64 dims = 1;  optional DataType data_type = 2;
      repeated float float_data = 3 [packed = true];  ...  optional bytes raw_data = 8;
    }

A lineage file (suffix ``_lineage``) holds ``LineageEvent`` messages: the
training run's hyper-parameters and final loss (``TrainLineage``), the metrics of
an evaluation (``EvaluationLineage``), user data (``UserDefinedInfo``) and the
dataset pipeline (``DatasetGraph``).

The classes come from a descriptor written below with the ``protobuf`` package
(as :mod:`cellkit.serialization.ckpt_format` does): no ``protoc`` step, no
generated code, and a private descriptor pool, so MindSpore's own generated
modules can live in the same process.  Field numbers, types and labels are
MindSpore's, so the bytes are the same on both sides.

>>> Event = message_class("Event")
>>> e = Event(wall_time=1.5, version="MindSpore.Event:1")
>>> Event.FromString(e.SerializeToString()).version
'MindSpore.Event:1'
"""
from __future__ import annotations

__all__ = ["message_class", "DATA_TYPES", "PACKAGE"]

PACKAGE = "mindspore.irpb"

# anf_ir.proto's DataType enum (the part a summary tensor can carry).
DATA_TYPES = {
    "DT_UNDEFINED": 0, "DT_BOOL": 1, "DT_INT8": 2, "DT_INT16": 3, "DT_INT32": 4, "DT_INT64": 5, "DT_UINT8": 6,
    "DT_UINT16": 7, "DT_UINT32": 8, "DT_UINT64": 9, "DT_FLOAT16": 10, "DT_FLOAT32": 11, "DT_FLOAT64": 12,
}

_POOL = None
_CLASSES = {}


def _build_pool():
    from google.protobuf import descriptor_pb2, descriptor_pool

    F = descriptor_pb2.FieldDescriptorProto
    OPT, REQ, REP = F.LABEL_OPTIONAL, F.LABEL_REQUIRED, F.LABEL_REPEATED
    proto = descriptor_pb2.FileDescriptorProto(name="cellkit_summary.proto", package=PACKAGE, syntax="proto2")

    def msg(parent, name):
        return parent.add(name=name)

    def field(message, name, number, kind, label=OPT, type_name=None, oneof=None, packed=False):
        f = message.field.add(name=name, number=number, label=label, type=kind)
        if type_name:
            f.type_name = f".{PACKAGE}.{type_name}"
        if oneof is not None:
            f.oneof_index = oneof
        if packed:
            f.options.packed = True
        return f

    dtype_enum = proto.enum_type.add(name="DataType")
    for name, number in DATA_TYPES.items():
        dtype_enum.value.add(name=name, number=number)
    # The rest of anf_ir's DataType values: a file may name them; they must parse.
    for number, name in enumerate(("DT_FLOAT", "DT_DOUBLE", "DT_STRING", "DT_TENSOR", "DT_GRAPH", "DT_BOOLS",
                                   "DT_INTS8", "DT_INTS16", "DT_INTS32", "DT_INTS64", "DT_UINTS8", "DT_UINTS16",
                                   "DT_UINTS32", "DT_UINTS64", "DT_FLOATS16", "DT_FLOATS32", "DT_FLOATS64",
                                   "DT_STRINGS", "DT_TENSORS", "DT_GRAPHS", "DT_TUPLE", "DT_LIST", "DT_DICT",
                                   "DT_NONE", "DT_SYM_INST", "DT_BASE_INT", "DT_BASE_UINT", "DT_BASE_FLOAT",
                                   "DT_TYPE", "DT_ANY", "DT_REFKEY", "DT_REF", "DT_COMPLEX64", "DT_COMPLEX128",
                                   "DT_BASE_COMPLEX", "DT_BFLOAT16", "DT_BFLOATS16", "DT_INT4", "DT_SLICE"),
                                  start=13):
        dtype_enum.value.add(name=name, number=number)

    tensor = msg(proto.message_type, "TensorProto")
    field(tensor, "dims", 1, F.TYPE_INT64, REP)
    field(tensor, "data_type", 2, F.TYPE_ENUM, type_name="DataType")
    field(tensor, "float_data", 3, F.TYPE_FLOAT, REP, packed=True)
    field(tensor, "int32_data", 4, F.TYPE_INT32, REP, packed=True)
    field(tensor, "int64_data", 5, F.TYPE_INT64, REP, packed=True)
    field(tensor, "double_data", 6, F.TYPE_DOUBLE, REP, packed=True)
    field(tensor, "uint64_data", 7, F.TYPE_UINT64, REP, packed=True)
    field(tensor, "raw_data", 8, F.TYPE_BYTES)

    # anf_ir's ModelProto, reduced to the graph it carries (opaque bytes here too).
    model_proto = msg(proto.message_type, "ModelProto")
    field(model_proto, "ir_version", 1, F.TYPE_INT64)
    field(model_proto, "domain", 2, F.TYPE_STRING)
    field(model_proto, "model_version", 3, F.TYPE_INT64)
    field(model_proto, "graph", 4, F.TYPE_BYTES)

    event = msg(proto.message_type, "Event")
    event.oneof_decl.add(name="what")
    field(event, "wall_time", 1, F.TYPE_DOUBLE, REQ)
    field(event, "step", 2, F.TYPE_INT64)
    field(event, "version", 3, F.TYPE_STRING, oneof=0)
    field(event, "graph_def", 4, F.TYPE_BYTES, oneof=0)
    field(event, "summary", 5, F.TYPE_MESSAGE, type_name="Summary", oneof=0)

    landscape = msg(proto.message_type, "LossLandscape")
    point = msg(landscape.nested_type, "Point")
    for number, axis in enumerate("xyz", start=1):
        field(point, axis, number, F.TYPE_MESSAGE, type_name="TensorProto")
    path = msg(landscape.nested_type, "LossPath")
    field(path, "intervals", 1, F.TYPE_INT32, REP)
    field(path, "points", 2, F.TYPE_MESSAGE, type_name="LossLandscape.Point")
    meta = msg(landscape.nested_type, "Metadata")
    field(meta, "decomposition", 1, F.TYPE_STRING)
    field(meta, "unit", 2, F.TYPE_STRING)
    field(meta, "step_per_epoch", 3, F.TYPE_INT32)
    field(landscape, "landscape", 1, F.TYPE_MESSAGE, type_name="LossLandscape.Point")
    field(landscape, "loss_path", 2, F.TYPE_MESSAGE, type_name="LossLandscape.LossPath")
    field(landscape, "metadata", 3, F.TYPE_MESSAGE, type_name="LossLandscape.Metadata")
    field(landscape, "convergence_point", 4, F.TYPE_MESSAGE, type_name="LossLandscape.Point")

    summary = msg(proto.message_type, "Summary")
    image = msg(summary.nested_type, "Image")
    field(image, "height", 1, F.TYPE_INT32, REQ)
    field(image, "width", 2, F.TYPE_INT32, REQ)
    field(image, "colorspace", 3, F.TYPE_INT32, REQ)
    field(image, "encoded_image", 4, F.TYPE_BYTES, REQ)
    hist = msg(summary.nested_type, "Histogram")
    bucket = msg(hist.nested_type, "bucket")
    field(bucket, "left", 1, F.TYPE_DOUBLE, REQ)
    field(bucket, "width", 2, F.TYPE_DOUBLE, REQ)
    field(bucket, "count", 3, F.TYPE_INT64, REQ)
    field(hist, "buckets", 1, F.TYPE_MESSAGE, REP, type_name="Summary.Histogram.bucket")
    for number, name in enumerate(("nan_count", "pos_inf_count", "neg_inf_count"), start=2):
        field(hist, name, number, F.TYPE_INT64)
    for number, name in enumerate(("max", "min", "sum"), start=5):
        field(hist, name, number, F.TYPE_DOUBLE)
    field(hist, "count", 8, F.TYPE_INT64)
    value = msg(summary.nested_type, "Value")
    value.oneof_decl.add(name="value")
    field(value, "tag", 1, F.TYPE_STRING, REQ)
    field(value, "scalar_value", 3, F.TYPE_FLOAT, oneof=0)
    field(value, "image", 4, F.TYPE_MESSAGE, type_name="Summary.Image", oneof=0)
    field(value, "tensor", 8, F.TYPE_MESSAGE, type_name="TensorProto", oneof=0)
    field(value, "histogram", 9, F.TYPE_MESSAGE, type_name="Summary.Histogram", oneof=0)
    field(value, "loss_landscape", 10, F.TYPE_MESSAGE, type_name="LossLandscape", oneof=0)
    field(summary, "value", 1, F.TYPE_MESSAGE, REP, type_name="Summary.Value")

    # ---- lineage.proto
    def map_entry(parent, name, value_type, value_type_name=None):
        entry = msg(parent.nested_type, name)
        entry.options.map_entry = True
        field(entry, "key", 1, F.TYPE_STRING)
        field(entry, "value", 2, value_type, type_name=value_type_name)
        return entry

    user = msg(proto.message_type, "UserDefinedInfo")
    map_entry(user, "MapDictEntry", F.TYPE_MESSAGE, "UserDefinedInfo")
    map_entry(user, "MapInt32Entry", F.TYPE_INT32)
    map_entry(user, "MapStrEntry", F.TYPE_STRING)
    map_entry(user, "MapDoubleEntry", F.TYPE_DOUBLE)
    field(user, "user_info", 1, F.TYPE_MESSAGE, REP, type_name="UserDefinedInfo")
    field(user, "map_dict", 2, F.TYPE_MESSAGE, REP, type_name="UserDefinedInfo.MapDictEntry")
    field(user, "map_int32", 3, F.TYPE_MESSAGE, REP, type_name="UserDefinedInfo.MapInt32Entry")
    field(user, "map_str", 4, F.TYPE_MESSAGE, REP, type_name="UserDefinedInfo.MapStrEntry")
    field(user, "map_double", 5, F.TYPE_MESSAGE, REP, type_name="UserDefinedInfo.MapDoubleEntry")

    train = msg(proto.message_type, "TrainLineage")
    hyper = msg(train.nested_type, "HyperParameters")
    for name, number, kind in (("optimizer", 1, F.TYPE_STRING), ("learning_rate", 2, F.TYPE_FLOAT),
                               ("loss_function", 3, F.TYPE_STRING), ("epoch", 4, F.TYPE_INT32),
                               ("parallel_mode", 5, F.TYPE_STRING), ("device_num", 6, F.TYPE_INT32),
                               ("batch_size", 8, F.TYPE_INT32)):
        field(hyper, name, number, kind)
    train_data = msg(train.nested_type, "TrainDataset")
    field(train_data, "train_dataset_path", 1, F.TYPE_STRING)
    field(train_data, "train_dataset_size", 2, F.TYPE_INT32)
    algorithm = msg(train.nested_type, "Algorithm")
    field(algorithm, "network", 1, F.TYPE_STRING)
    field(algorithm, "loss", 2, F.TYPE_FLOAT)
    model = msg(train.nested_type, "Model")
    field(model, "path", 3, F.TYPE_STRING)
    field(model, "size", 4, F.TYPE_INT64)
    field(train, "hyper_parameters", 1, F.TYPE_MESSAGE, type_name="TrainLineage.HyperParameters")
    field(train, "train_dataset", 2, F.TYPE_MESSAGE, type_name="TrainLineage.TrainDataset")
    field(train, "algorithm", 3, F.TYPE_MESSAGE, type_name="TrainLineage.Algorithm")
    field(train, "model", 4, F.TYPE_MESSAGE, type_name="TrainLineage.Model")

    evaluation = msg(proto.message_type, "EvaluationLineage")
    valid = msg(evaluation.nested_type, "ValidDataset")
    field(valid, "valid_dataset_path", 1, F.TYPE_STRING)
    field(valid, "valid_dataset_size", 2, F.TYPE_INT32)
    field(evaluation, "metric", 2, F.TYPE_STRING)
    field(evaluation, "valid_dataset", 3, F.TYPE_MESSAGE, type_name="EvaluationLineage.ValidDataset")

    str_list = msg(proto.message_type, "StrList")
    field(str_list, "strValue", 1, F.TYPE_STRING, REP)
    op_param = msg(proto.message_type, "OperationParameter")
    map_entry(op_param, "MapStrEntry", F.TYPE_STRING)
    map_entry(op_param, "MapStrListEntry", F.TYPE_MESSAGE, "StrList")
    map_entry(op_param, "MapBoolEntry", F.TYPE_BOOL)
    map_entry(op_param, "MapIntEntry", F.TYPE_INT32)
    map_entry(op_param, "MapDoubleEntry", F.TYPE_DOUBLE)
    for number, name in enumerate(("mapStr", "mapStrList", "mapBool", "mapInt", "mapDouble"), start=1):
        field(op_param, name, number, F.TYPE_MESSAGE, REP, type_name=f"OperationParameter.{name[0].upper()}"
              f"{name[1:]}Entry")
    operation = msg(proto.message_type, "Operation")
    field(operation, "operationParam", 1, F.TYPE_MESSAGE, type_name="OperationParameter")
    field(operation, "size", 2, F.TYPE_INT32, REP)
    field(operation, "weights", 3, F.TYPE_FLOAT, REP)
    graph = msg(proto.message_type, "DatasetGraph")
    field(graph, "children", 1, F.TYPE_MESSAGE, REP, type_name="DatasetGraph")
    field(graph, "parameter", 2, F.TYPE_MESSAGE, type_name="OperationParameter")
    field(graph, "operations", 3, F.TYPE_MESSAGE, REP, type_name="Operation")
    field(graph, "sampler", 4, F.TYPE_MESSAGE, type_name="Operation")

    lineage = msg(proto.message_type, "LineageEvent")
    lineage.oneof_decl.add(name="what")
    field(lineage, "wall_time", 1, F.TYPE_DOUBLE, REQ)
    field(lineage, "step", 2, F.TYPE_INT64)
    field(lineage, "version", 3, F.TYPE_STRING, oneof=0)
    field(lineage, "train_lineage", 6, F.TYPE_MESSAGE, type_name="TrainLineage", oneof=0)
    field(lineage, "evaluation_lineage", 7, F.TYPE_MESSAGE, type_name="EvaluationLineage", oneof=0)
    field(lineage, "dataset_graph", 9, F.TYPE_MESSAGE, type_name="DatasetGraph", oneof=0)
    field(lineage, "user_defined_info", 10, F.TYPE_MESSAGE, type_name="UserDefinedInfo", oneof=0)

    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return pool


def message_class(name):
    """The message class ``name`` (``"Event"``, ``"Summary"``, ``"LineageEvent"``, ``"TrainLineage"`` ...)."""
    global _POOL
    cls = _CLASSES.get(name)
    if cls is None:
        from google.protobuf import message_factory

        if _POOL is None:
            _POOL = _build_pool()
        cls = message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))
        _CLASSES[name] = cls
    return cls
