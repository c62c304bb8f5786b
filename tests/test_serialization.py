"""Checkpoints: files move both ways between cellkit and MindSpore 2.10, safely.

The files under tests/fixtures/ were made once by make_checkpoint_fixtures.py:
``ms_*`` by real MindSpore 2.10 (``ms_values.json``: what MindSpore read back
from them), ``ck_*`` by cellkit and then read by MindSpore
(``ck_values_read_by_mindspore.json``).
"""
import importlib.util
import io
import json
import logging
import os
import pickle
import re
import stat

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.serialization import ckpt_format

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
KEY = b"0123456789abcdef"

_spec = importlib.util.spec_from_file_location("make_checkpoint_fixtures",
                                               os.path.join(FIXTURES, "make_checkpoint_fixtures.py"))
maker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(maker)

with open(os.path.join(FIXTURES, "ms_values.json")) as _f:
    MS_VALUES = json.load(_f)
with open(os.path.join(FIXTURES, "ck_values_read_by_mindspore.json")) as _f:
    CK_VALUES_READ_BY_MINDSPORE = json.load(_f)


def fixture(name):
    return os.path.join(FIXTURES, name)


def load_kwargs(file_name):
    """The load_checkpoint arguments a fixture needs (format, CRC, key)."""
    kwargs = {}
    if file_name.endswith(".safetensors"):
        kwargs["format"] = "safetensors"
    if "crc" in file_name:
        kwargs["crc_check"] = True
    label = file_name[3:].split(".")[0]
    if label in maker.KEYS:
        pytest.importorskip("cryptography")
        kwargs["dec_key"], kwargs["dec_mode"] = maker.KEYS[label]
    return kwargs


def assert_matches(loaded, expected):
    """``loaded`` (cellkit's dict) holds exactly the names, order, dtypes, shapes and values of ``expected``."""
    assert sorted(loaded) == sorted(expected)  # (the JSON files are key-sorted; order is tested apart)
    for name, want in expected.items():
        got = loaded[name]
        if "text" in want:
            assert got == want["text"], name
            continue
        assert isinstance(got, ms.Parameter) and got.name == name
        assert str(got.dtype) == want["dtype"], name
        assert list(got.shape) == want["shape"], name
        host = got.asnumpy()
        if want["dtype"] == "BFloat16":
            host = host.astype(np.float32)
        np.testing.assert_array_equal(host, np.array(want["values"], dtype=host.dtype), err_msg=name)


def dense_with(weight, bias):
    net = nn.Dense(2, 1)
    net.weight.set_data(ms.Tensor(np.array(weight, np.float32)))
    net.bias.set_data(ms.Tensor(np.array(bias, np.float32)))
    return net


# ===================================================== files MindSpore wrote
@pytest.mark.parametrize("file_name", sorted(MS_VALUES))
def test_serialization_reads_mindspore_files_as_mindspore_does(file_name):
    loaded = ms.load_checkpoint(fixture(file_name), **load_kwargs(file_name))
    assert_matches(loaded, MS_VALUES[file_name])


def test_serialization_mindspore_file_order_is_kept():
    loaded = ms.load_checkpoint(fixture("ms_append.ckpt"))
    assert list(loaded) == ["weight", "bias", "epoch", "lr", "flag", "note", "step"]
    assert loaded["note"] == "hi"
    assert (loaded["epoch"].dtype, loaded["epoch"].shape) == (ms.int64, ())
    assert (loaded["lr"].dtype, loaded["flag"].dtype, loaded["step"].dtype) == (ms.float32, ms.bool_, ms.int32)


def test_serialization_mindspore_dtypes_file_is_what_cellkit_writes(tmp_path):
    """MindSpore's own file and cellkit's file of the same values are the same bytes."""
    tensors = [{"name": n, "data": ms.Tensor(a, ms.bfloat16) if n == "bf16" else ms.Tensor(a)}
               for n, a in maker.dtype_arrays().items()]
    ms.save_checkpoint(tensors, str(tmp_path / "mine.ckpt"))
    assert (tmp_path / "mine.ckpt").read_bytes() == open(fixture("ms_dtypes.ckpt"), "rb").read()


# ===================================================== files cellkit wrote
def _safetensors_fields(content):
    n = int.from_bytes(content[:8], "little")
    return json.loads(content[8:8 + n]), content[8 + n:]


@pytest.mark.parametrize("file_name", sorted(maker.cellkit_saves(ms)))
def test_serialization_cellkit_writes_today_what_mindspore_read(file_name, tmp_path):
    kwargs = load_kwargs(file_name)  # skips encrypted files without cryptography
    save_obj, save_kwargs = maker.cellkit_saves(ms)[file_name]
    today = tmp_path / file_name
    ms.save_checkpoint(save_obj, str(today), **save_kwargs)
    committed = open(fixture(file_name), "rb").read()
    written = today.read_bytes()
    if file_name.endswith(".safetensors"):
        assert _safetensors_fields(written) == _safetensors_fields(committed)
    elif "dec_key" in kwargs:
        # A fresh random IV each time: compare what the two files decrypt to.
        from cellkit.serialization import cipher

        key, mode = kwargs["dec_key"], kwargs["dec_mode"]
        assert cipher.decrypt(written, key, mode) == cipher.decrypt(committed, key, mode)
    else:
        assert written == committed
    # ...and that committed file is what MindSpore read correctly:
    read_by_mindspore = CK_VALUES_READ_BY_MINDSPORE[file_name]
    assert_matches(ms.load_checkpoint(str(today), **kwargs), read_by_mindspore)
    if f"{file_name} -> nn.Dense" in CK_VALUES_READ_BY_MINDSPORE:
        dense = CK_VALUES_READ_BY_MINDSPORE[f"{file_name} -> nn.Dense"]
        assert dense["weight"]["values"] == [[0.25, -1.5]] and dense["bias"]["values"] == [0.125]


def test_serialization_mindspore_read_the_inputs_cellkit_saved():
    """What MindSpore read from ck_* files is what went in (spot checks beyond the dense nets)."""
    dtypes = CK_VALUES_READ_BY_MINDSPORE["ck_dtypes.ckpt"]
    for name, array in maker.dtype_arrays().items():
        if name == "bf16":
            continue
        assert dtypes[name]["values"] == array.tolist()
    assert dtypes["bf16"]["dtype"] == "BFloat16"
    assert CK_VALUES_READ_BY_MINDSPORE["ck_append.ckpt"]["note"] == {"text": "héllo ✓"}
    assert CK_VALUES_READ_BY_MINDSPORE["ck_state_dict.ckpt"]["buffer_a"]["values"] == [4, 5, 6]


# ===================================================== the tutorial and the spec
TUTORIAL = '''
import cellkit as ms
import cellkit.ops as ops
import cellkit.nn as nn

net = nn.Dense(2, 1, has_bias=True)
for param in net.get_parameters():
    print(param.name, param.data.asnumpy())

ms.save_checkpoint(net, "dense.ckpt")
dense_params = ms.load_checkpoint("dense.ckpt")
print(dense_params)

new_params = {}
for param_name in dense_params:
    print(param_name, dense_params[param_name].data.asnumpy())
    new_params[param_name] = ms.Parameter(ops.ones_like(dense_params[param_name].data), name=param_name)

ms.load_param_into_net(net, new_params)
for param in net.get_parameters():
    print(param.name, param.data.asnumpy())
'''


def test_serialization_tutorial_parameter_save_and_load(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(TUTORIAL, "tutorial", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    number = r" *-?\d+\.\d*(e[-+]\d+)? *"  # NumPy pads the columns with spaces
    assert re.fullmatch(rf"weight \[\[{number} {number}\]\]", lines[0])
    assert re.fullmatch(rf"bias \[{number}\]", lines[1])
    assert lines[2] == ("{'weight': Parameter (name=weight, shape=(1, 2), dtype=Float32, requires_grad=True), "
                        "'bias': Parameter (name=bias, shape=(1,), dtype=Float32, requires_grad=True)}")
    assert lines[3:5] == lines[0:2]  # the loaded values are the saved ones
    assert lines[5:] == ["weight [[1. 1.]]", "bias [1.]"]


def test_serialization_state_dict_example(tmp_path, monkeypatch, capsys):
    """The Cell spec: save_checkpoint(model.state_dict(), path); new_model.load_state_dict(load_checkpoint(path))."""
    monkeypatch.chdir(tmp_path)
    model = maker.cellkit_state_model(ms)
    model.param_a.set_data(ms.tensor([7, 8, 9]))
    # The name already ends with "ckpt", so (as in MindSpore) no extension is added.
    ms.save_checkpoint(model.state_dict(), "./model_state_dict_ckpt")
    assert os.listdir(".") == ["model_state_dict_ckpt"]
    new_model = maker.cellkit_state_model(ms)
    print(new_model.load_state_dict(ms.load_checkpoint("./model_state_dict_ckpt")))
    print(list(new_model.state_dict().items()))
    assert capsys.readouterr().out.splitlines() == [
        "<All keys matched successfully>",
        "[('param_a', Parameter (name=param_a, shape=(3,), dtype=Int64, requires_grad=True)), "
        "('buffer_a', Tensor(shape=[3], dtype=Int64, value= [4, 5, 6]))]",
    ]
    assert new_model.param_a.asnumpy().tolist() == [7, 8, 9]


# ===================================================== what can be saved
class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2, 3)
        self.fc2 = nn.Dense(3, 1)


def test_serialization_saves_a_cell_by_parameter_name(tmp_path):
    net = Two()
    path = str(tmp_path / "two.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    for name, param in net.parameters_dict().items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), param.asnumpy())
        assert loaded[name].requires_grad and loaded[name].name == name


def test_serialization_saves_lists_and_dicts(tmp_path):
    net = Two()
    ms.save_checkpoint(net.trainable_params(), str(tmp_path / "list.ckpt"))
    assert list(ms.load_checkpoint(str(tmp_path / "list.ckpt"))) == ["fc1.weight", "fc1.bias", "fc2.weight",
                                                                     "fc2.bias"]
    ms.save_checkpoint([{"name": "a", "data": ms.Tensor([1, 2], ms.int32)}], str(tmp_path / "dicts.ckpt"))
    assert ms.load_checkpoint(str(tmp_path / "dicts.ckpt"))["a"].asnumpy().tolist() == [1, 2]
    ms.save_checkpoint({"x": np.arange(3, dtype=np.int16), "t": ms.Tensor([0.5]), "s": "text"},
                       str(tmp_path / "dict.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "dict.ckpt"))
    assert loaded["x"].dtype == ms.int16 and loaded["s"] == "text"
    # what load_checkpoint returned saves again as it was
    ms.save_checkpoint(loaded, str(tmp_path / "again.ckpt"))
    assert (tmp_path / "again.ckpt").read_bytes() == (tmp_path / "dict.ckpt").read_bytes()
    ms.save_checkpoint([], str(tmp_path / "empty.ckpt"))
    assert (tmp_path / "empty.ckpt").read_bytes() == b""


@pytest.mark.parametrize("save_obj, message", [
    (ms.Tensor([1.0]), "must be nn.Cell, list or dict"),
    ([ms.Tensor([1.0])], "should be parameter"),
    ([{"name": "a"}], "should have keys 'name' and 'data'"),
    ([{"name": 1, "data": ms.Tensor([1.0])}], "should be string"),
    ([{"name": "a", "data": [1.0]}], "should be parameter"),
    ({1: ms.Tensor([1.0])}, "the key should be str"),
    ({"a": [1.0]}, "must be a Parameter, Tensor, numpy.ndarray or str"),
    ({"a": np.array(["x"])}, "dtype must be one of"),
])
def test_serialization_save_refuses_bad_objects(tmp_path, save_obj, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        ms.save_checkpoint(save_obj, str(tmp_path / "bad.ckpt"))
    assert not os.listdir(tmp_path)


def test_serialization_save_argument_checks(tmp_path):
    net = nn.Dense(2, 1)
    with pytest.raises(ValueError, match="format must be 'safetensors' or 'ckpt'"):
        ms.save_checkpoint(net, str(tmp_path / "a.pt"), format="pt")
    with pytest.raises(IsADirectoryError):
        ms.save_checkpoint(net, str(tmp_path))
    with pytest.raises(TypeError, match="ckpt_file_name"):
        ms.save_checkpoint(net, 3)
    with pytest.raises(TypeError, match="integrated_save"):
        ms.save_checkpoint(net, str(tmp_path / "a"), integrated_save=1)
    with pytest.raises(ValueError, match="'process' or 'thread'"):
        ms.save_checkpoint(net, str(tmp_path / "a"), async_save="later")
    with pytest.raises(TypeError, match="append_dict"):
        ms.save_checkpoint(net, str(tmp_path / "a"), append_dict={"epoch": [1]})
    with pytest.raises(TypeError, match="enc_key"):
        ms.save_checkpoint(net, str(tmp_path / "a"), enc_key="not bytes")
    with pytest.raises(ValueError, match="'enc_key' must be set to default"):
        ms.save_checkpoint(net, str(tmp_path / "a"), format="safetensors", enc_key=KEY)
    with pytest.raises(ValueError, match="holds only tensors"):
        ms.save_checkpoint(net, str(tmp_path / "a"), format="safetensors", append_dict={"note": "hi"})
    assert not os.listdir(tmp_path)


def test_serialization_save_appends_the_extension_and_load_finds_it(tmp_path):
    net = nn.Dense(2, 1)
    ms.save_checkpoint(net, str(tmp_path / "model"))
    ms.save_checkpoint(net, str(tmp_path / "model"), format="safetensors")
    assert sorted(os.listdir(tmp_path)) == ["model.ckpt", "model.safetensors"]
    assert list(ms.load_checkpoint(str(tmp_path / "model"))) == ["weight", "bias"]
    assert list(ms.load_checkpoint(tmp_path / "model", format="safetensors")) == ["bias", "weight"]


def test_serialization_append_dict(tmp_path):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint(nn.Dense(2, 1), path, choice_func=lambda name: name == "bias",
                       append_dict={"epoch": 3, "lr": 0.5, "flag": False, "note": "", "t": ms.Tensor([1.5], ms.float16)})
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == ["bias", "epoch", "lr", "flag", "note", "t"]  # choice_func does not filter append_dict
    assert [str(loaded[k].dtype) for k in ("epoch", "lr", "flag", "t")] == ["Int64", "Float32", "Bool", "Float16"]
    assert loaded["epoch"].asnumpy() == 3 and loaded["flag"].asnumpy() == False  # noqa: E712
    assert loaded["note"] == ""


def test_serialization_save_takes_a_snapshot_and_keeps_identity(tmp_path):
    net = dense_with([[1.0, 2.0]], [3.0])
    weight = net.weight
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint(net, path, async_save=True)
    net.weight.set_data(ms.Tensor([[9.0, 9.0]]))  # after the call: not in the file
    assert ms.load_checkpoint(path)["weight"].asnumpy().tolist() == [[1.0, 2.0]]
    ms.load_checkpoint(path, net=net)
    assert net.weight is weight and weight.asnumpy().tolist() == [[1.0, 2.0]]


# ===================================================== choosing what to load
def test_serialization_choice_func_and_prefixes(tmp_path):
    path = str(tmp_path / "two.ckpt")
    ms.save_checkpoint(Two(), path, choice_func=lambda n: not n.endswith("bias"))
    assert list(ms.load_checkpoint(path)) == ["fc1.weight", "fc2.weight"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: n.startswith("fc2"))) == ["fc2.weight"]
    assert list(ms.load_checkpoint(path, specify_prefix="fc1")) == ["fc1.weight"]
    assert list(ms.load_checkpoint(path, filter_prefix=["fc1"])) == ["fc2.weight"]
    # a prefix argument overrides choice_func, as in MindSpore
    assert list(ms.load_checkpoint(path, filter_prefix="fc1", choice_func=lambda n: False)) == ["fc2.weight"]
    with pytest.raises(ValueError, match="parameter dict is empty"):
        ms.load_checkpoint(path, choice_func=lambda n: False)
    with pytest.raises(ValueError, match="can't include ''"):
        ms.load_checkpoint(path, specify_prefix=["fc", ""])
    with pytest.raises(TypeError, match="specify_prefix"):
        ms.load_checkpoint(path, specify_prefix=3)


def test_serialization_load_argument_checks(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))
    with pytest.raises(ValueError, match="must same with 'format'"):
        ms.load_checkpoint(fixture("ms_dtypes.safetensors"))
    with pytest.raises(TypeError, match="BytesIO"):
        ms.load_checkpoint(io.BytesIO(b""))
    with pytest.raises(TypeError, match="crc_check"):
        ms.load_checkpoint(fixture("ms_dense.ckpt"), crc_check="yes")
    with pytest.raises(ValueError, match="'dec_key' must be set to default"):
        ms.load_checkpoint(fixture("ms_crc.safetensors"), format="safetensors", dec_key=KEY)


def test_serialization_safetensors_from_bytesio():
    data = open(fixture("ms_dtypes.safetensors"), "rb").read()
    loaded = ms.load_checkpoint(io.BytesIO(data), format="safetensors", choice_func=lambda n: n.startswith("i"))
    assert list(loaded) == ["i16", "i32", "i64", "i8"]


# ===================================================== load_param_into_net
def ones(name, shape, dtype=ms.float32):
    return ms.Parameter(ops.ones(shape, dtype), name=name)


def test_serialization_load_param_into_net_returns_what_mindspore_returns():
    net = Two()
    d = {"fc1.weight": ones("fc1.weight", (3, 2)), "extra": ones("extra", (1,)), "note": "hello",
         "fc2.bias": ones("x", (1,), ms.float16)}
    assert ms.load_param_into_net(net, d) == (["fc1.bias", "fc2.weight"], ["extra", "note"])
    assert net.fc2.bias.dtype == ms.float32 and net.fc2.bias.asnumpy().tolist() == [1.0]  # converted
    assert net.fc1.weight.asnumpy().tolist() == [[1.0, 1.0]] * 3


def test_serialization_load_param_into_net_by_prefix():
    net = Two()
    d = {"backbone.fc1.weight": ones("a", (3, 2)), "backbone.fc1.bias": ones("b", (3,)),
         "backbone.fc2.weight": ones("c", (1, 3))}
    assert ms.load_param_into_net(net, d) == (["fc2.bias"], list(d))  # prefix matches stay in ckpt_not_load
    assert net.fc2.weight.asnumpy().tolist() == [[1.0, 1.0, 1.0]]
    fresh = Two()
    before = fresh.fc1.weight.asnumpy()
    assert ms.load_param_into_net(fresh, d, strict_load=True) == (
        ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"], list(d))
    np.testing.assert_array_equal(fresh.fc1.weight.asnumpy(), before)


def test_serialization_load_param_into_net_text_entry_does_not_loop():
    net = nn.Dense(2, 1)
    assert ms.load_param_into_net(net, {"weight": "text", "bias": ones("bias", (1,))}) == ([], ["weight"])


@pytest.mark.parametrize("value, strict, message", [
    (ones("fc2.bias", (5,)), False, "should have the same shape"),
    (ones("fc2.bias", (1,), ms.float16), True, "should have the same type"),
    (ones("fc2.bias", (1,), ms.int32), False, "should have the same type"),
])
def test_serialization_load_param_into_net_mismatch_changes_nothing(value, strict, message):
    net = Two()
    before = {name: p.asnumpy() for name, p in net.parameters_dict().items()}
    d = {"fc1.weight": ones("fc1.weight", (3, 2)), "fc2.bias": value}  # the good entry comes first
    with pytest.raises(RuntimeError, match=message):
        ms.load_param_into_net(net, d, strict_load=strict)
    for name, p in net.parameters_dict().items():
        np.testing.assert_array_equal(p.asnumpy(), before[name])


def test_serialization_load_param_into_net_trailing_ones_are_reshaped():
    net = Two()
    assert ms.load_param_into_net(net, {"fc2.weight": ones("w", (1, 3, 1, 1))})[0] == [
        "fc1.weight", "fc1.bias", "fc2.bias"]
    assert net.fc2.weight.shape == (1, 3)


def test_serialization_load_param_into_net_checks_arguments():
    net = nn.Dense(2, 1)
    with pytest.raises(TypeError, match="should be a Cell"):
        ms.load_param_into_net([], {})
    with pytest.raises(TypeError, match="should be a dict"):
        ms.load_param_into_net(net, [])
    with pytest.raises(TypeError, match="'str' and 'Parameter'"):
        ms.load_param_into_net(net, {"weight": ms.Tensor([1.0])})
    with pytest.raises(TypeError, match="strict_load"):
        ms.load_param_into_net(net, {}, strict_load=None)
    with pytest.raises(TypeError, match="only be used in parallel scenarios"):
        ms.load_param_into_net(net, {}, remove_redundancy=True)
    assert ms.load_param_into_net(net, {}) == (["weight", "bias"], [])


def test_serialization_load_checkpoint_into_net(tmp_path):
    path = str(tmp_path / "dense.ckpt")
    ms.save_checkpoint(dense_with([[0.5, 0.25]], [2.0]), path)
    net = nn.Dense(2, 1)
    result = ms.load_checkpoint(path, net=net)
    assert list(result) == ["weight", "bias"]
    assert net.weight.asnumpy().tolist() == [[0.5, 0.25]] and net.bias.asnumpy().tolist() == [2.0]


# ===================================================== format details
def test_serialization_large_parameters_are_split_into_records_and_joined(tmp_path, monkeypatch):
    monkeypatch.setattr(ckpt_format, "SLICE_BYTES", 8)
    values = np.arange(10, dtype=np.float32).reshape(2, 5)
    path = str(tmp_path / "sliced.ckpt")
    ms.save_checkpoint({"w": ms.Tensor(values), "b": ms.Tensor([1.0])}, path)
    message = ckpt_format._message_classes()()
    message.ParseFromString(open(path, "rb").read())
    assert [v.tag for v in message.value] == ["w"] * 5 + ["b"]
    assert list(message.value[0].tensor.dims) == [2, 5]
    np.testing.assert_array_equal(ms.load_checkpoint(path)["w"].asnumpy(), values)


def test_serialization_crc_trailer_layout(tmp_path):
    import binascii

    content = open(fixture("ck_dense_crc.ckpt"), "rb").read()
    records = open(fixture("ck_dense.ckpt"), "rb").read()
    assert content == records + b"crc_num" + binascii.crc32(records).to_bytes(10, "big")


def test_serialization_crc_check_without_crc_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="cellkit.serialization"):
        ms.load_checkpoint(fixture("ms_dense.ckpt"), crc_check=True)
        ms.load_checkpoint(fixture("ms_dtypes.safetensors"), format="safetensors", crc_check=True)
    assert sum("does not contain the crc code" in r.getMessage() for r in caplog.records) == 2


def test_serialization_roundtrip_on_every_backend(backend, tmp_path):
    unsupported = {"bf16"} if backend.is_numpy else {"bf16", "f16"}  # array_api_strict has no float16
    arrays = {k: v for k, v in maker.dtype_arrays().items() if k not in unsupported}
    for format in ("ckpt", "safetensors"):
        path = str(tmp_path / f"all.{format}")
        ms.save_checkpoint({k: ms.Tensor(v) for k, v in arrays.items()}, path, crc_check=True, format=format)
        loaded = ms.load_checkpoint(path, crc_check=True, format=format)
        for name, array in arrays.items():
            assert loaded[name].dtype == ms.dtype.to_dtype(array.dtype)
            np.testing.assert_array_equal(loaded[name].asnumpy(), array)
            # the values live on the backend's device (not NumPy, off the CPU backend)
            assert isinstance(loaded[name]._data, np.ndarray) == backend.is_numpy


def test_serialization_text_roundtrip(tmp_path):
    path = str(tmp_path / "text.ckpt")
    ms.save_checkpoint({"a": "naïve ✓ 中文", "b": ""}, path)
    assert ms.load_checkpoint(path) == {"a": "naïve ✓ 中文", "b": ""}


# ===================================================== safety
def corrupted(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


DENSE = open(fixture("ms_dense.ckpt"), "rb").read()
DENSE_CRC = open(fixture("ms_dense_crc.ckpt"), "rb").read()


@pytest.mark.parametrize("content, message", [
    (b"not a checkpoint at all", "not a valid checkpoint protobuf"),
    (DENSE[:-5], "not a valid checkpoint protobuf"),
    (DENSE.replace(b"Float32", b"Float99", 1), "tensor_type 'Float99'"),
    (DENSE.replace(bytes.fromhex("08010802"), bytes.fromhex("08010803"), 1), "needs 12"),
    (DENSE[:40] + bytes([DENSE[40] ^ 0xFF]) + DENSE[41:] + DENSE_CRC[len(DENSE):], "crc check failed"),
    (bytes.fromhex("d85e3a7f") + b"\0" * 40, "encrypted"),
])
def test_serialization_bad_file_raises_naming_it_and_loads_nothing(tmp_path, content, message):
    path = corrupted(tmp_path, "bad.ckpt", content)
    net = dense_with([[1.0, 2.0]], [3.0])
    with pytest.raises(ValueError, match=message) as info:
        ms.load_checkpoint(path, net=net, crc_check=True)
    assert os.path.realpath(path) in str(info.value)
    assert net.weight.asnumpy().tolist() == [[1.0, 2.0]] and net.bias.asnumpy().tolist() == [3.0]


def test_serialization_unknown_dtype_in_second_entry_loads_nothing(tmp_path):
    # weight first (fine), then a bias of a dtype cellkit lacks: net must stay untouched.
    weight_record = 35
    content = DENSE[:weight_record] + DENSE[weight_record:].replace(b"\x07Float32", b"\x07Complex", 1)
    path = corrupted(tmp_path, "bad.ckpt", content)
    net = dense_with([[1.0, 2.0]], [3.0])
    with pytest.raises(ValueError, match="'Complex'"):
        ms.load_checkpoint(path, net=net)
    assert net.weight.asnumpy().tolist() == [[1.0, 2.0]]


def test_serialization_map_tensor_entry_is_refused(tmp_path):
    message = ckpt_format._message_classes()()
    entry = message.value.add()
    entry.tag = "table"
    entry.maptensor.tensor.add(tensor_type="int32", tensor_content=b"")
    path = corrupted(tmp_path, "map.ckpt", message.SerializeToString())
    with pytest.raises(ValueError, match="map tensor"):
        ms.load_checkpoint(path)


def test_serialization_missing_field_or_bad_name_is_refused(tmp_path):
    Checkpoint = ckpt_format._message_classes()
    partial = Checkpoint()
    entry = partial.value.add()
    entry.tag = "w"
    entry.tensor.tensor_type = "Float32"  # no tensor_content: a required field is missing
    path = corrupted(tmp_path, "partial.ckpt", partial.SerializePartialToString())
    with pytest.raises(ValueError, match="missing required fields"):
        ms.load_checkpoint(path)
    renamed = DENSE.replace(b"\x06weight", b"\x06w\xffight", 1)
    with pytest.raises(ValueError, match="not valid UTF-8"):
        ms.load_checkpoint(corrupted(tmp_path, "name.ckpt", renamed))


def test_serialization_any_flipped_byte_gives_values_or_a_value_error(tmp_path):
    full = open(fixture("ms_append.ckpt"), "rb").read()
    for position in range(len(full)):
        damaged = bytearray(full)
        damaged[position] ^= 0x5A
        path = corrupted(tmp_path, "flip.ckpt", bytes(damaged))
        try:
            ms.load_checkpoint(path)
        except ValueError:
            pass


def test_serialization_bad_safetensors_raise_naming_the_file(tmp_path):
    good = open(fixture("ms_crc.safetensors"), "rb").read()
    header, data = _safetensors_fields(good)
    flipped = good[:-1] + bytes([good[-1] ^ 1])
    for name, content, message in [("trunc", good[:-3], "not a valid safetensors"),
                                   ("garbage", b"\x05" * 20, "not a valid safetensors"),
                                   ("crc", flipped, "crc check failed")]:
        path = corrupted(tmp_path, f"{name}.safetensors", content)
        with pytest.raises(ValueError, match=message) as info:
            ms.load_checkpoint(path, format="safetensors", crc_check=True)
        assert os.path.realpath(path) in str(info.value)


def test_serialization_truncated_file_raises_or_yields_a_prefix(tmp_path):
    """Cut anywhere: either refused, or (cut between records) exactly the first whole records."""
    full = open(fixture("ms_append.ckpt"), "rb").read()
    complete = ms.load_checkpoint(fixture("ms_append.ckpt"))
    names = list(complete)
    refused = 0
    for cut in range(1, len(full)):
        path = corrupted(tmp_path, "cut.ckpt", full[:cut])
        try:
            loaded = ms.load_checkpoint(path)
        except ValueError as exc:
            assert os.path.realpath(path) in str(exc) or "empty" in str(exc)
            refused += 1
            continue
        assert list(loaded) == names[:len(loaded)]
        for name, value in loaded.items():
            if isinstance(value, str):
                assert value == complete[name]
            else:
                np.testing.assert_array_equal(value.asnumpy(), complete[name].asnumpy())
    assert refused > len(full) // 2


def test_serialization_loading_never_unpickles(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a checkpoint was unpickled")

    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    monkeypatch.setattr(np, "load", forbidden)
    for file_name in sorted(MS_VALUES):
        if file_name[3:].split(".")[0] not in maker.KEYS:
            ms.load_checkpoint(fixture(file_name), **load_kwargs(file_name))


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_serialization_interrupted_save_keeps_the_previous_file(tmp_path, monkeypatch, error):
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(dense_with([[1.0, 2.0]], [3.0]), path)
    before = open(path, "rb").read()
    real = ckpt_format.encode_entry
    calls = []

    def fails_on_second_entry(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 2:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(ckpt_format, "encode_entry", fails_on_second_entry)
    with pytest.raises(type(error)):
        ms.save_checkpoint(dense_with([[5.0, 5.0]], [5.0]), path)
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == ["net.ckpt"]  # no temporary file left behind


def test_serialization_interrupted_safetensors_save_keeps_the_previous_file(tmp_path, monkeypatch):
    import safetensors.numpy

    path = str(tmp_path / "net.safetensors")
    ms.save_checkpoint(nn.Dense(2, 1), path, format="safetensors")
    before = open(path, "rb").read()

    def half_written(tensors, filename, metadata=None):
        with open(filename, "wb") as f:
            f.write(b"\x10\x00")
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.numpy, "save_file", half_written)
    with pytest.raises(OSError):
        ms.save_checkpoint(nn.Dense(2, 1), path, format="safetensors")
    assert open(path, "rb").read() == before and os.listdir(tmp_path) == ["net.safetensors"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_serialization_saved_file_is_read_only_and_can_be_replaced(tmp_path):
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(nn.Dense(2, 1), path)
    assert stat.S_IMODE(os.stat(path).st_mode) == stat.S_IRUSR  # as MindSpore leaves it
    ms.save_checkpoint(dense_with([[1.0, 1.0]], [1.0]), path)
    assert ms.load_checkpoint(path)["bias"].asnumpy().tolist() == [1.0]


# ===================================================== encryption
@pytest.mark.parametrize("key, mode", [(KEY, "AES-GCM"), (KEY * 2, "AES-GCM"), (KEY[:12] * 2, "AES-GCM"),
                                       (KEY, "AES-CBC"), (KEY, "SM4-CBC")])
def test_serialization_encrypted_roundtrip(tmp_path, key, mode):
    pytest.importorskip("cryptography")
    path = str(tmp_path / "secret.ckpt")
    ms.save_checkpoint(dense_with([[1.0, 2.0]], [3.0]), path, enc_key=key, enc_mode=mode)
    assert b"weight" not in open(path, "rb").read()
    loaded = ms.load_checkpoint(path, dec_key=key, dec_mode=mode)
    assert loaded["weight"].asnumpy().tolist() == [[1.0, 2.0]]


def test_serialization_encryption_errors(tmp_path):
    pytest.importorskip("cryptography")
    path = str(tmp_path / "secret.ckpt")
    net = nn.Dense(2, 1)
    ms.save_checkpoint(net, path, enc_key=KEY)
    with pytest.raises(ValueError, match="is encrypted") as info:
        ms.load_checkpoint(path)
    assert os.path.realpath(path) in str(info.value)
    with pytest.raises(ValueError, match="key or mode is wrong"):
        ms.load_checkpoint(path, dec_key=b"x" * 16)
    with pytest.raises(ValueError, match="not encrypted with AES-CBC"):
        ms.load_checkpoint(path, dec_key=KEY, dec_mode="AES-CBC")
    with pytest.raises(ValueError, match="not an encrypted checkpoint"):
        ms.load_checkpoint(fixture("ms_dense.ckpt"), dec_key=KEY)
    with pytest.raises(ValueError, match="cannot be used together"):
        ms.save_checkpoint(net, path, enc_key=KEY, crc_check=True)
    with pytest.raises(ValueError, match="16, 24 or 32 bytes"):
        ms.save_checkpoint(net, path, enc_key=b"short")
    with pytest.raises(ValueError, match="mode must be one of"):
        ms.save_checkpoint(net, path, enc_key=KEY, enc_mode="DES-ECB")
    tampered = bytearray(open(path, "rb").read())
    tampered[-1] ^= 1
    with pytest.raises(ValueError, match="tampered"):
        ms.load_checkpoint(corrupted(tmp_path, "t.ckpt", bytes(tampered)), dec_key=KEY)


def test_serialization_encryption_without_cryptography_says_what_to_install(tmp_path, monkeypatch):
    import sys

    for name in [m for m in sys.modules if m == "cryptography" or m.startswith("cryptography.")] + ["cryptography"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the package were not installed
    with pytest.raises(NotImplementedError, match="pip install cryptography"):
        ms.save_checkpoint(nn.Dense(2, 1), str(tmp_path / "a.ckpt"), enc_key=KEY)
    assert not os.listdir(tmp_path)
