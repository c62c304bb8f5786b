"""The bytes of a MindSpore ``.ckpt`` file: protobuf records, dtype names, the CRC trailer.

A ``.ckpt`` file is a protobuf ``Checkpoint`` message (proto2)::

    message Checkpoint {
      message Value {
        required string tag = 1;                    // the parameter name
        oneof value {
          TensorProto tensor = 2;
          MapTensorProto maptensor = 3;             // MindSpore's MapParameter (not supported here)
        }
      }
      repeated Value value = 1;
    }
    message TensorProto {
      repeated int64 dims = 1;                      // the shape; not packed (proto2)
      required string tensor_type = 2;              // "Float32", "Int64", "BFloat16", ... or "str"
      required bytes tensor_content = 3;            // the values, C order, little-endian
    }
    message MapTensorProto { repeated TensorProto tensor = 1; }

MindSpore writes one ``Checkpoint`` message per parameter and simply
concatenates them; protobuf reads concatenated messages as one message whose
repeated ``value`` field holds them all.  A parameter larger than 512 MiB is
written as several consecutive values with the same tag, each carrying a slice
of the bytes (and the full ``dims``); a reader joins consecutive values of one
tag.  A text entry (``append_dict={"note": "hi"}``) has ``tensor_type "str"``,
``dims [0]`` and its characters in UTF-32-LE.  With ``crc_check=True`` the file
ends in ``b"crc_num"`` followed by the CRC-32 of everything before it as a
10-byte big-endian integer.

The message classes are built at run time, by the ``protobuf`` package, from
the descriptor written out in :func:`_message_classes` -- no ``protoc`` step
and no generated code.  Why protobuf rather than a hand-written wire-format
reader: the file comes from outside, and the protobuf parser is a small,
heavily fuzzed piece of C that checks every length and required field for us;
the descriptor below reads almost exactly like the ``.proto`` above.
"""
from __future__ import annotations

import binascii
import math

import numpy as np

from .. import dtype as _dt

__all__ = [
    "CKPT_DTYPES", "STRING_TYPE", "CRC_MARKER", "SLICE_BYTES", "encode_entry", "decode",
    "split_crc_trailer", "crc_trailer", "DecodeError", "reshaped",
]

# tensor_type strings, exactly as MindSpore writes them (str(mindspore dtype)).
# cellkit's DType.name uses the same spelling.  MindSpore also knows UInt16/32/64
# and Int4, which cellkit has no dtype for: reading them is refused clearly.
CKPT_DTYPES = {d.name: d for d in (_dt.float16, _dt.float32, _dt.float64, _dt.bfloat16, _dt.int8,
                                   _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.bool_)}
STRING_TYPE = "str"
CRC_MARKER = b"crc_num"
_CRC_BYTES = 10
# MindSpore splits a parameter's bytes into chunks of 512 MiB (one record each).
SLICE_BYTES = 512 * 1024 * 1024

_CLASSES = None


class DecodeError(ValueError):
    """The bytes are not a well-formed checkpoint (the caller adds the file name)."""


def _message_classes():
    """(Checkpoint, ...) message classes, built once from a descriptor written here."""
    global _CLASSES
    if _CLASSES is None:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        F = descriptor_pb2.FieldDescriptorProto
        proto = descriptor_pb2.FileDescriptorProto(name="cellkit_checkpoint.proto", syntax="proto2")

        tensor = proto.message_type.add(name="TensorProto")
        tensor.field.add(name="dims", number=1, label=F.LABEL_REPEATED, type=F.TYPE_INT64)
        tensor.field.add(name="tensor_type", number=2, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
        tensor.field.add(name="tensor_content", number=3, label=F.LABEL_REQUIRED, type=F.TYPE_BYTES)

        map_tensor = proto.message_type.add(name="MapTensorProto")
        map_tensor.field.add(name="tensor", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                             type_name=".TensorProto")

        checkpoint = proto.message_type.add(name="Checkpoint")
        value = checkpoint.nested_type.add(name="Value")
        value.oneof_decl.add(name="value")
        value.field.add(name="tag", number=1, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
        value.field.add(name="tensor", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                        type_name=".TensorProto", oneof_index=0)
        value.field.add(name="maptensor", number=3, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                        type_name=".MapTensorProto", oneof_index=0)
        checkpoint.field.add(name="value", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                             type_name=".Checkpoint.Value")

        # A private pool: nothing else in the process (MindSpore itself, say) can clash with it.
        pool = descriptor_pool.DescriptorPool()
        pool.Add(proto)
        _CLASSES = message_factory.GetMessageClass(pool.FindMessageTypeByName("Checkpoint"))
    return _CLASSES


def _little_endian(dtype):
    return np.dtype(dtype).newbyteorder("<")


# ------------------------------------------------------------------ writing
def encode_entry(name, value, dtype=None):
    """The serialized ``Checkpoint`` message(s) for one entry, as a list of bytes.

    Parameters
    ----------
    name : str
        The tag.
    value : numpy.ndarray or str
        A host array (C order) of cellkit dtype ``dtype``, or a text value.
    dtype : DType, optional
        The array's cellkit dtype (its name is the ``tensor_type``).
    """
    Checkpoint = _message_classes()
    if isinstance(value, str):
        # As MindSpore: the UTF-32 code units of numpy's str array (4 NULs for "").
        records = [([0], STRING_TYPE, value.encode("utf-32-le") or b"\0\0\0\0")]
    else:
        content = np.asarray(value, dtype=_little_endian(value.dtype)).tobytes(order="C")
        dims = list(value.shape)
        pieces = max(1, math.ceil(len(content) / SLICE_BYTES))
        records = [(dims, dtype.name, content[i * SLICE_BYTES:(i + 1) * SLICE_BYTES]) for i in range(pieces)]
    out = []
    for dims, tensor_type, content in records:
        message = Checkpoint()
        entry = message.value.add()
        entry.tag = name
        entry.tensor.dims.extend(dims)
        entry.tensor.tensor_type = tensor_type
        entry.tensor.tensor_content = content
        out.append(message.SerializeToString())
    return out


def crc_trailer(crc):
    """The bytes MindSpore appends after the records when ``crc_check=True``."""
    return CRC_MARKER + int(crc).to_bytes(_CRC_BYTES, byteorder="big")


# ------------------------------------------------------------------ reading
def split_crc_trailer(content):
    """``(records, stored_crc)``; ``stored_crc`` is None when the file has no trailer."""
    tail = len(CRC_MARKER) + _CRC_BYTES
    if len(content) >= tail and content[-tail:-_CRC_BYTES] == CRC_MARKER:
        return content[:-tail], int.from_bytes(content[-_CRC_BYTES:], byteorder="big")
    return content, None


def crc32(data, start=0):
    return binascii.crc32(data, start)


def decode(content, keep=None):
    """The entries of a checkpoint's records: a list of ``(tag, value)``.

    ``value`` is a read-only host array (in its cellkit dtype) or a str.
    ``keep(tag)`` decides which entries are converted (others are skipped but
    still parsed).  Raises :class:`DecodeError` describing the first problem:
    malformed protobuf, an unknown ``tensor_type``, a data length that does not
    match ``dims``, or an entry that is not a plain tensor.
    """
    Checkpoint = _message_classes()
    message = Checkpoint()
    try:
        message.ParseFromString(content)
    except Exception as exc:  # google.protobuf.message.DecodeError, and anything odd the parser meets
        raise DecodeError(f"the content is not a valid checkpoint protobuf ({exc})") from None
    if not message.IsInitialized():
        missing = ", ".join(message.FindInitializationErrors())
        raise DecodeError(f"the content is not a valid checkpoint protobuf (missing required fields: {missing})")

    entries = []
    values = message.value
    count = len(values)
    first_index = {}  # tag -> index of its first record, to refuse a name that comes back later
    i = 0
    while i < count:
        tag = values[i].tag
        if not isinstance(tag, str):  # protobuf hands back bytes for a proto2 string that is not UTF-8
            raise DecodeError(f"entry {i} has a name that is not valid UTF-8: {tag!r}")
        if tag in first_index:
            # MindSpore lets the later one win silently; from an untrusted file that is ambiguous
            # (which value did the writer mean?), so the file is refused.
            raise DecodeError(f"the name '{tag}' appears twice (records {first_index[tag]} and {i}); a checkpoint "
                              "holds each name once")
        first_index[tag] = i
        # Consecutive values with one tag are slices of one parameter's bytes.
        j = i + 1
        while j < count and values[j].tag == tag:
            j += 1
        group = [values[k] for k in range(i, j)]
        i = j
        if keep is not None and not keep(tag):
            continue
        for piece in group:
            if not piece.HasField("tensor"):
                raise DecodeError(f"entry '{tag}' is a map tensor (MindSpore's MapParameter), which cellkit "
                                  "cannot load")
        entries.append((tag, _decode_tensor(tag, group)))
    return entries


def _decode_tensor(tag, group):
    tensor_type = group[0].tensor.tensor_type
    dims = [int(d) for d in group[0].tensor.dims]
    for piece in group[1:]:
        if piece.tensor.tensor_type != tensor_type or list(piece.tensor.dims) != dims:
            raise DecodeError(f"the slices of entry '{tag}' disagree on their dtype or shape")
    data = b"".join(piece.tensor.tensor_content for piece in group)

    if tensor_type == STRING_TYPE:
        if len(group) > 1:  # only large tensors are split; two text records of one name are a duplicate
            raise DecodeError(f"the text entry '{tag}' appears in {len(group)} consecutive records; a checkpoint "
                              "holds each name once")
        if len(data) % 4:
            raise DecodeError(f"text entry '{tag}' has {len(data)} bytes, not a whole number of UTF-32 characters")
        try:
            return data.decode("utf-32-le").rstrip("\0")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"text entry '{tag}' is not valid UTF-32 ({exc})") from None

    dtype = CKPT_DTYPES.get(tensor_type)
    if dtype is None:
        known = ", ".join(sorted(CKPT_DTYPES))
        raise DecodeError(f"entry '{tag}' has tensor_type {tensor_type!r}, which cellkit does not support "
                          f"(supported: {known}, str)")
    if any(d < 0 for d in dims):
        raise DecodeError(f"entry '{tag}' has a negative dimension in its shape {dims}")
    if dims == [0] and len(data) == dtype.itemsize:
        dims = []  # MindSpore may mark a 0-d tensor with dims [0]
    expected = math.prod(dims) * dtype.itemsize
    if len(data) != expected:
        raise DecodeError(f"entry '{tag}' holds {len(data)} bytes of data, but shape {tuple(dims)} of "
                          f"{tensor_type} needs {expected}")
    if dtype is _dt.bool_:
        # Any non-zero byte is True; never trust the bytes to be 0 or 1.
        array = np.frombuffer(data, dtype=np.uint8) != 0
    else:
        array = np.frombuffer(data, dtype=_little_endian(dtype.to_backend(np)))
    return reshaped(array, dims, f"entry '{tag}'", DecodeError)


def reshaped(array, dims, what, error):
    """``array.reshape(dims)``, or ``error`` when NumPy cannot hold that shape.

    The byte count already matches, but a zero-sized tensor may still declare
    dims NumPy refuses: more than 64 of them, or a product that overflows
    (``[0, 2**62, 2**62]``).  NumPy's own ValueError would not name the file.
    """
    try:
        return array.reshape(dims)
    except ValueError as exc:
        raise error(f"{what} declares a shape NumPy cannot hold ({len(dims)} dims; {exc})") from None
