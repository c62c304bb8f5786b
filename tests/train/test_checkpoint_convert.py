"""ckpt_to_safetensors / safetensors_to_ckpt / load_checkpoint_async / merge_sliced_parameter, and
ModelCheckpoint's files read back whole."""
from __future__ import annotations

import os

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn


def _dense():
    return nn.Dense(3, 2, weight_init="ones", bias_init="zeros")


def test_convert_one_file_both_ways_keeps_values(tmp_path):
    ms.save_checkpoint(_dense(), str(tmp_path / "a.ckpt"))
    ms.ckpt_to_safetensors(str(tmp_path / "a.ckpt"), save_path=str(tmp_path / "st"), name_map={"bias": "b"})
    loaded = ms.load_checkpoint(str(tmp_path / "st" / "a.safetensors"), format="safetensors")
    assert sorted(loaded) == ["b", "weight"]
    ms.safetensors_to_ckpt(str(tmp_path / "st" / "a.safetensors"))
    back = ms.load_checkpoint(str(tmp_path / "st" / "a.ckpt"))
    np.testing.assert_array_equal(back["weight"].asnumpy(), np.ones((2, 3), np.float32))


def test_convert_a_folder_of_rank_folders(tmp_path):
    for rank in (0, 1):
        os.makedirs(tmp_path / f"rank_{rank}")
        ms.save_checkpoint(_dense(), str(tmp_path / f"rank_{rank}" / f"net{rank}.ckpt"))
    ms.ckpt_to_safetensors(str(tmp_path), save_path=str(tmp_path / "out"), file_name_regex="net1")
    assert os.listdir(tmp_path / "out" / "rank_1") == ["net1.safetensors"]
    assert os.listdir(tmp_path / "out" / "rank_0") == []


@pytest.mark.parametrize("kwargs, match", [
    ({"file_path": "/no/such/file.ckpt"}, "existing file or folder"),
    ({"save_path": "x.ckpt"}, "directory"),
    ({"name_map": [("a", "b")]}, "name_map"),
    ({"file_name_regex": "zzz"}, "regular expression"),
])
def test_convert_refuses_bad_arguments(tmp_path, kwargs, match):
    ms.save_checkpoint(_dense(), str(tmp_path / "a.ckpt"))
    args = {"file_path": str(tmp_path / "a.ckpt"), **kwargs}
    with pytest.raises(ValueError, match=match):
        ms.ckpt_to_safetensors(**args)
    with pytest.raises(ValueError, match="rank"):
        ms.ckpt_to_safetensors(str(tmp_path))
    with pytest.raises(ValueError, match=".safetensors file"):
        ms.safetensors_to_ckpt(str(tmp_path / "a.ckpt"))


def test_load_checkpoint_async_loads_into_the_net(tmp_path):
    ms.save_checkpoint(_dense(), str(tmp_path / "a.ckpt"))
    net = nn.Dense(3, 2)
    params = ms.load_checkpoint_async(str(tmp_path / "a.ckpt"), net=net).result()
    assert sorted(params) == ["bias", "weight"] and float(net.weight.asnumpy().sum()) == 6.0
    with pytest.raises(ValueError):
        ms.load_checkpoint_async(str(tmp_path / "missing.ckpt")).result()


def test_merge_sliced_parameter_checks_its_slices():
    a = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="w")
    b = ms.Parameter(ms.Tensor(np.zeros((1, 3), np.float32)), name="w")
    merged = ms.merge_sliced_parameter([a, b])
    assert merged.name == "w" and merged.shape == (3, 3)
    with pytest.raises(TypeError):
        ms.merge_sliced_parameter((a, b))
    with pytest.raises(ValueError):
        ms.merge_sliced_parameter([])
    with pytest.raises(ValueError, match="same name"):
        ms.merge_sliced_parameter([a, ms.Parameter(ms.Tensor(np.ones((1, 3), np.float32)), name="v")])
    with pytest.raises(TypeError):
        ms.merge_sliced_parameter([a, np.ones((1, 3))])
    with pytest.raises(ValueError, match="'strategy' is correct"):  # a strategy's values are layouts
        ms.merge_sliced_parameter([a, b], strategy={"w": None})


def test_train_row_names_are_the_serialization_functions():
    for name in ("save_checkpoint", "load_checkpoint", "load_param_into_net", "ckpt_to_safetensors",
                 "safetensors_to_ckpt", "load_checkpoint_async", "merge_sliced_parameter"):
        assert getattr(ms.train, name) is getattr(ms, name)
    assert ms.train.build_train_network is ms.amp.build_train_network
    assert ms.ModelCheckpoint is ms.train.ModelCheckpoint


def test_on_request_exit_stops_on_the_signal_and_saves(tmp_path):
    import signal

    net = nn.Dense(3, 2)
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    steps = []

    def step_end(ctx):
        steps.append(ctx.original_args().cur_step_num)
        if len(steps) == 2:
            signal.raise_signal(signal.SIGUSR1)

    exit_cb = ms.train.OnRequestExit(save_mindir=False, file_name="Net", directory=str(tmp_path), sig=signal.SIGUSR1)
    before = signal.getsignal(signal.SIGUSR1)
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    model.train(3, [(x, y)] * 4, callbacks=[ms.train.LambdaCallback(on_train_step_end=step_end), exit_cb])
    assert steps == [1, 2] and exit_cb.exit
    assert os.listdir(tmp_path / "rank_0") == ["Net_train.ckpt"]
    assert signal.getsignal(signal.SIGUSR1) is before
    with pytest.raises(ValueError, match="SIGKILL"):
        ms.train.OnRequestExit(sig=signal.SIGKILL)


def test_dataset_helper_serves_epochs_of_tensor_lists():
    import cellkit.dataset as ds

    data = ds.NumpySlicesDataset({"x": np.arange(12, dtype=np.float32).reshape(6, 2),
                                  "y": np.arange(6, dtype=np.int32)}, shuffle=False).batch(2)
    helper = ms.train.DatasetHelper(data, dataset_sink_mode=False, epoch_num=2)
    first = list(helper)
    assert len(first) == 3 and all(isinstance(t, ms.Tensor) for t in first[0]) and isinstance(first[0], list)
    assert len(list(helper)) == 3 and list(helper) == []
    assert helper.sink_size() == 3 and helper.types_shapes() == ([ms.float32, ms.int32], [[2, 2], [2]])
    with pytest.warns(UserWarning, match="device queue"):
        ms.train.DatasetHelper(data)
    with pytest.raises(ValueError):
        ms.train.DatasetHelper(data, dataset_sink_mode=False, sink_size=0)
