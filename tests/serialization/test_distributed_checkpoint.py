"""The checkpoints of a parallel run read into one process, compared with MindSpore 2.10 on the same files.

``tools/record_strategy.py`` wrote ``tests/fixtures/strategy/`` with MindSpore's own protobuf classes and
``save_checkpoint`` (a net over 4 ranks: weights cut along axis 0, axis 1, both, unevenly, by the optimizer,
and copied), and recorded what MindSpore's ``build_searched_strategy``, ``restore_group_info_list``,
``get_ckpt_path_with_strategy``, ``merge_sliced_parameter`` and ``load_distributed_checkpoint`` return on them.
"""
from __future__ import annotations

import json
import os
import shutil
import warnings

import numpy as np
import pytest

import cellkit as ms
import cellkit.parallel
from cellkit import nn
from cellkit.serialization.strategy_format import StrategyFileError
from tests.serialization.strategy_nets import layout_record, make_nets

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "strategy")
RESULTS = json.load(open(os.path.join(FIX, "results.json"), encoding="utf-8"))
FILES4 = [f"rank_{r}/net.ckpt" for r in range(4)]


@pytest.fixture(autouse=True)
def in_fixture_folder(monkeypatch):
    monkeypatch.chdir(FIX)  # the recorded paths are relative to it


def unquoted(message, name):
    """cellkit quotes the file name MindSpore writes bare (so that an empty name still shows)."""
    return message.replace(repr(name), name)


# -- where the names live ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(RESULTS["spellings"]))
def test_distributed_names_live_where_mindspore_has_them(name):
    where = RESULTS["spellings"][name]
    for module, present in (("mindspore", ms), ("mindspore.train", ms.train), ("mindspore.parallel", cellkit.parallel)):
        assert hasattr(present, name) == where[module], (module, name)
    assert getattr(ms.train, name) is getattr(ms, name)


# -- build_searched_strategy ------------------------------------------------------------------------------
GOOD_STRATEGIES = [k for k, v in RESULTS["build_searched_strategy"].items() if "value" in v and not k.startswith("<")
                   and k != "group_info.pb"]


@pytest.mark.parametrize("fname", GOOD_STRATEGIES)
def test_build_searched_strategy_reads_what_mindspore_reads(fname):
    expected = RESULTS["build_searched_strategy"][fname]["value"]
    got = ms.build_searched_strategy(fname)
    assert sorted(got) == sorted(expected)
    for name, layout in got.items():
        want = dict(expected[name])
        text = want.pop("str", None)
        assert layout_record(layout) == want, name
        if text is not None:
            assert str(layout) == text  # the same protobuf text as MindSpore's ParallelLayouts
    assert ms.train.build_searched_strategy(fname).keys() == got.keys()


def test_build_searched_strategy_none_and_wrong_type():
    assert ms.build_searched_strategy(None) is None
    rec = RESULTS["build_searched_strategy"]["<int 3>"]
    with pytest.raises(TypeError) as info:
        ms.build_searched_strategy(3)
    assert str(info.value) == rec["message"]


@pytest.mark.parametrize("fname", ["missing.ckpt", "damaged_strategy_empty.ckpt"])
def test_build_searched_strategy_missing_or_empty_file_is_mindspores_value_error(fname):
    rec = RESULTS["build_searched_strategy"][fname]
    assert rec["error"] == "ValueError"
    with pytest.raises(ValueError) as info:
        ms.build_searched_strategy(fname)
    assert unquoted(str(info.value), fname) == rec["message"]


@pytest.mark.parametrize("fname", ["damaged_strategy_garbage.ckpt", "damaged_strategy_truncated.ckpt"])
def test_build_searched_strategy_damaged_file_is_refused_as_mindspore_refuses_it(fname):
    assert RESULTS["build_searched_strategy"][fname]["error"] == "TypeError"
    with pytest.raises(TypeError, match=fname) as info:  # MindSpore's type ...
        ms.build_searched_strategy(fname)
    assert isinstance(info.value, ValueError)  # ... and the one its docs name
    assert isinstance(info.value, StrategyFileError)


def test_build_searched_strategy_refuses_a_group_info_file():
    # MindSpore 2.10 reads group_info.pb as a strategy without layouts ({}): its parser ignores the fields a
    # ParallelStrategyMap does not have and does not check required ones.  cellkit refuses the file.
    assert RESULTS["build_searched_strategy"]["group_info.pb"] == {"value": {}}
    with pytest.raises(StrategyFileError, match="group_info.pb"):
        ms.build_searched_strategy("group_info.pb")


def test_build_searched_strategy_damaged_json(tmp_path):
    bad = tmp_path / "bad.json"
    for content, match in (("{not json", "not JSON"), ("[1, 2]", "JSON object"),
                           ('{"parallel_layout_item": {"w": {"dev_matrix": [2], "tensor_map": [0]}}}', "'field'"),
                           ('{"parallel_layout_item": {"w": {"dev_matrix": [-2], "tensor_map": [0], "field": 0, '
                            '"opt_weight_shard_size": 0, "opt_weight_shard_step": 0}}}', "cannot take"),
                           ('{"parallel_layout_item": {"w": {"dev_matrix": "2", "tensor_map": [0], "field": 0, '
                            '"opt_weight_shard_size": 0, "opt_weight_shard_step": 0}}}', "list of int")):
        bad.write_text(content)
        with pytest.raises(StrategyFileError, match=match):
            ms.build_searched_strategy(str(bad))
    bad.write_text('{"current_stage": 0}')
    assert ms.build_searched_strategy(str(bad)) == {}


# -- restore_group_info_list ------------------------------------------------------------------------------
def test_restore_group_info_list_reads_the_restore_ranks():
    for fname in ("group_info.pb", "group_info_empty_list.pb"):
        assert ms.restore_group_info_list(fname) == RESULTS["restore_group_info_list"][fname]["value"]
    assert ms.train.restore_group_info_list("group_info.pb") == [0, 2]


@pytest.mark.parametrize("fname", ["missing.pb", "damaged_strategy_empty.ckpt", "<int 3>"])
def test_restore_group_info_list_bad_names_as_mindspore(fname):
    rec = RESULTS["restore_group_info_list"][fname]
    arg = 3 if fname == "<int 3>" else fname
    with pytest.raises(TypeError if rec["error"] == "TypeError" else ValueError) as info:
        ms.restore_group_info_list(arg)
    assert type(info.value).__name__ == rec["error"]
    assert unquoted(str(info.value), str(arg)) == rec["message"]


@pytest.mark.parametrize("fname, mindspore_gives", [
    ("damaged_group_garbage.pb", "DecodeError"),          # protobuf's own error, not the documented ValueError
    ("damaged_group_no_restore_list.pb", "[]"),           # a required field missing: read as no ranks
    ("strategy4.ckpt", "the bytes of an operator name"),  # a strategy file read as ranks 68, 101, 102 ...
])
def test_restore_group_info_list_refuses_what_is_not_a_group_info_file(fname, mindspore_gives):
    rec = RESULTS["restore_group_info_list"][fname]
    assert rec.get("error") == "DecodeError" or rec.get("value") is not None
    with pytest.raises(ValueError, match=fname.replace(".", r"\.")):
        ms.restore_group_info_list(fname)


# -- get_ckpt_path_with_strategy --------------------------------------------------------------------------
@pytest.mark.parametrize("case", RESULTS["get_ckpt_path_with_strategy"], ids=lambda c: " / ".join(c["args"]))
def test_get_ckpt_path_with_strategy_as_mindspore(case):
    if "value" in case:
        assert ms.get_ckpt_path_with_strategy(*case["args"]) == case["value"]
        return
    if case["error"] == "FileNotFoundError":
        with pytest.raises(FileNotFoundError, match="missing.ckpt") as info:
            ms.get_ckpt_path_with_strategy(*case["args"])
        assert isinstance(info.value, ValueError)
    else:  # a damaged strategy file: MindSpore lets protobuf's DecodeError out
        with pytest.raises(ValueError, match="damaged_strategy_garbage"):
            ms.get_ckpt_path_with_strategy(*case["args"])


def test_get_ckpt_path_with_strategy_argument_types():
    with pytest.raises(TypeError, match="cur_ckpt_path"):
        ms.get_ckpt_path_with_strategy(3, "strategy4.ckpt")
    with pytest.raises(TypeError, match="cur_strategy_path"):
        ms.get_ckpt_path_with_strategy("rank_0/net.ckpt", None)


# -- merge_sliced_parameter with a strategy ---------------------------------------------------------------
def _slices(name, ranks=range(4)):
    return [ms.load_checkpoint(f"rank_{r}/net.ckpt")[name] for r in ranks]


@pytest.mark.parametrize("name", ["dense.weight", "dense.bias", "row", "col", "rep"])
def test_merge_sliced_parameter_follows_the_layout(name):
    expected = RESULTS["merge_sliced_parameter"][name]["value"]
    merged = ms.merge_sliced_parameter(_slices(name), ms.build_searched_strategy("strategy4.ckpt"))
    assert merged.name == expected["name"]
    np.testing.assert_array_equal(merged.asnumpy(), np.array(expected["value"], np.float32))


def test_merge_sliced_parameter_uneven_slices():
    strategy = ms.build_searched_strategy("strategy_uneven.ckpt")
    expected = RESULTS["merge_sliced_parameter"]["emb uneven"]["value"]["value"]
    np.testing.assert_array_equal(ms.merge_sliced_parameter(_slices("emb", [0, 1]), strategy).asnumpy(),
                                  np.array(expected, np.float32))
    rec = RESULTS["merge_sliced_parameter"]["emb uneven wrong order"]
    with pytest.raises(ValueError) as info:
        ms.merge_sliced_parameter(_slices("emb", [1, 0]), strategy)
    assert str(info.value) == rec["message"]


@pytest.mark.parametrize("case, error", [("two slices for four devices", ValueError),
                                         ("name not in strategy", KeyError)])
def test_merge_sliced_parameter_refusals_as_mindspore(case, error):
    rec = RESULTS["merge_sliced_parameter"][case]
    s4 = ms.build_searched_strategy("strategy4.ckpt")
    slices = _slices("row", [0, 1]) if case.startswith("two") else _slices("w", [0])
    with pytest.raises(error) as info:
        ms.merge_sliced_parameter(slices, s4)
    assert str(info.value) == rec["message"]


def test_merge_sliced_parameter_refuses_a_value_that_is_not_a_layout():
    rec = RESULTS["merge_sliced_parameter"]["strategy value not a layout"]
    with pytest.raises(ValueError, match="please make sure that 'strategy' is correct") as info:
        ms.merge_sliced_parameter(_slices("row", [0]), {"row": None})
    assert str(info.value).startswith(rec["message"].split(".")[0])


@pytest.mark.parametrize("key", sorted(RESULTS["merge_in_memory"]))
def test_merge_sliced_parameter_in_memory_layouts_as_mindspore(key):
    # slices cut by MindSpore's own _load_tensor (or, for a field-sliced embedding, as such a run saves them)
    rec = RESULTS["merge_in_memory"][key]
    from cellkit.serialization.strategy_format import _classes

    layout = _classes()["ParallelLayouts"](field=rec.get("field", 0), opt_weight_shard_step=0,
                                           opt_weight_shard_size=0)
    layout.dev_matrix.add().dim.extend(rec["dev_matrix"])
    layout.tensor_map.add().dim.extend(rec["tensor_map"])
    layout.param_split_shape.add()
    parts = [ms.Parameter(ms.Tensor(np.array(x, np.float32)), name="p") for x in rec["slices"]]
    merged = ms.merge_sliced_parameter(parts, {"p": layout})
    np.testing.assert_array_equal(merged.asnumpy(), np.array(rec["value"], np.float32))
    np.testing.assert_array_equal(merged.asnumpy(), np.array(rec["full"], np.float32))


def test_merge_sliced_parameter_bfloat16_slices_give_float32():
    parts = [ms.Parameter(ms.Tensor(np.full((1, 2), i, np.float32)).astype(ms.bfloat16), name="b") for i in range(2)]
    merged = ms.merge_sliced_parameter(parts)
    assert merged.dtype == ms.float32
    np.testing.assert_array_equal(merged.asnumpy(), [[0, 0], [1, 1]])


def test_merge_sliced_parameter_layouts_that_cannot_be_followed():
    from cellkit.serialization.strategy_format import _classes

    def layout(dev, tmap, maps=1):
        lay = _classes()["ParallelLayouts"](field=0, opt_weight_shard_step=0, opt_weight_shard_size=0)
        lay.dev_matrix.add().dim.extend(dev)
        for _ in range(maps):
            lay.tensor_map.add().dim.extend(tmap)
        return lay

    parts = [ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="p") for _ in range(2)]
    for bad, match in ((layout([2], [3, -1]), "tensor_map"), (layout([2], [0, 0]), "at most once"),
                       (layout([0], [0, -1]), "positive"), (layout([2], [0]), "entries"),
                       (layout([2], [0, -1], maps=2), "several device axes")):
        with pytest.raises(ValueError, match=match):
            ms.merge_sliced_parameter(parts, {"p": bad})


# -- load_distributed_checkpoint --------------------------------------------------------------------------
Net, OptNet, EmbNet = make_nets(ms, nn, np)


def state(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


LOADS = [
    ("strategy4", Net, (FILES4, None, "strategy4.ckpt"), {}),
    ("strategy4 json", Net, (FILES4, None, "strategy4.json"), {}),
    ("strategy4 strict", Net, (FILES4, None, "strategy4.ckpt"), {"strict_load": True}),
    ("opt shard", OptNet, (FILES4, None, "strategy_opt.ckpt"), {}),
    ("uneven", EmbNet, (FILES4[:2], None, "strategy_uneven.ckpt"), {}),
]


@pytest.mark.parametrize("key, make, args, kwargs", LOADS, ids=[c[0] for c in LOADS])
def test_load_distributed_checkpoint_gives_mindspores_parameters(key, make, args, kwargs):
    rec = RESULTS["load_distributed_checkpoint"][key]
    net = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ms.load_distributed_checkpoint(net, *args, **kwargs) == rec["value"]
    got = state(net)
    for name, value in rec["state"].items():
        np.testing.assert_array_equal(got[name], np.array(value, np.float32), err_msg=name)
    if make is Net:  # 'extra' is in no strategy: left as it was, with a warning naming it
        assert any("['extra']" in str(w.message) for w in caught)


def test_load_distributed_checkpoint_spellings():
    for spelling in (ms.train.load_distributed_checkpoint, cellkit.parallel.load_distributed_checkpoint):
        net = Net()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spelling(net, FILES4, None, "strategy4.ckpt")
        np.testing.assert_array_equal(net.row.asnumpy(),
                                      RESULTS["load_distributed_checkpoint"]["strategy4 train spelling"]["state"]["row"])


ERRORS = [
    ("three files for four devices", Net, (FILES4[:3], None, "strategy4.ckpt"), {}, ValueError),
    ("no strategy file", Net, (FILES4, None, None), {}, ValueError),
    ("missing file", Net, (FILES4[:3] + ["rank_9/net.ckpt"], None, "strategy4.ckpt"), {}, ValueError),
    ("not a .ckpt name", Net, (FILES4[:3] + ["strategy4.json"], None, "strategy4.ckpt"), {}, ValueError),
    ("damaged rank file", Net, (["rank_0/net.ckpt", "damaged_rank/rank_1.ckpt", "rank_2/net.ckpt",
                                 "rank_3/net.ckpt"], None, "strategy4.ckpt"), {}, ValueError),
    ("format bad", Net, (FILES4, None, "strategy4.ckpt"), {"format": "npz"}, ValueError),
    ("safetensors without dir", Net, (None, None, None), {"format": "safetensors"}, ValueError),
    ("predict_strategy bad value", Net, (FILES4, {"row": [[2], [0]]}, "strategy4.ckpt"), {}, ValueError),
    # MindSpore raises ValueError for these wrong types (its validator); its docs say TypeError, as here
    ("checkpoint_filenames None", Net, (None, None, "strategy4.ckpt"), {}, TypeError),
    ("predict_strategy not a dict", Net, (FILES4, "strategy4.ckpt", "strategy4.ckpt"), {}, TypeError),
    ("dec_key not bytes", Net, (FILES4, None, "strategy4.ckpt"), {"dec_key": "k"}, TypeError),
]


@pytest.mark.parametrize("key, make, args, kwargs, error", ERRORS, ids=[c[0] for c in ERRORS])
def test_load_distributed_checkpoint_refusals_leave_the_network_alone(key, make, args, kwargs, error):
    rec = RESULTS["load_distributed_checkpoint"][key]
    assert "error" in rec and rec["unchanged"]
    net = make()
    before = state(net)
    with pytest.raises(error) as info:
        ms.load_distributed_checkpoint(net, *args, **kwargs)
    if key == "no strategy file":  # cellkit names the argument of load_distributed_checkpoint it came from
        assert "no such strategy file: ''" in str(info.value) and "'train_strategy_filename'" in str(info.value)
    elif key == "format bad":
        assert "'format' and 'output_format' must be 'ckpt' or 'safetensors'" in str(info.value)
    elif error is ValueError and key not in ("predict_strategy bad value", "damaged rank file"):
        assert str(info.value) == rec["message"]
    after = state(net)
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_load_distributed_checkpoint_network_not_a_cell():
    assert RESULTS["load_distributed_checkpoint"]["network not a Cell"]["error"] == "ValueError"
    with pytest.raises(TypeError, match="'network'"):
        ms.load_distributed_checkpoint({"a": 1}, FILES4, None, "strategy4.ckpt")


def test_load_distributed_checkpoint_refuses_a_predict_strategy_that_cuts():
    net = Net()
    with pytest.raises(ValueError, match="one process"):
        ms.load_distributed_checkpoint(net, FILES4, {"row": [[2, 2], [1, -1], [], 0]}, "strategy4.ckpt")
    with pytest.raises(ValueError, match="optimizer group"):
        ms.load_distributed_checkpoint(net, FILES4, {"row": [[2, 2], [-1, -1], [], 0, 0, "group0"]},
                                       "strategy4.ckpt")
    with pytest.raises(ValueError, match="tensor_map of 'row'"):
        ms.load_distributed_checkpoint(net, FILES4, {"row": [[2], [3, -1], [], 0]}, "strategy4.ckpt")
    # a layout that does not cut is one process's whole tensor; parameters it leaves out are not loaded
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ms.load_distributed_checkpoint(net, FILES4, {"row": [[1], [-1, -1], [], 0]}, "strategy4.ckpt")
    np.testing.assert_array_equal(net.row.asnumpy(),
                                  RESULTS["load_distributed_checkpoint"]["strategy4"]["state"]["row"])
    assert not net.col.asnumpy().any()
    assert any("predict_strategy" in str(w.message) for w in caught)


SAFETENSORS = RESULTS["load_distributed_safetensors"]
WHOLE = RESULTS["load_distributed_checkpoint"]["strategy4"]["state"]  # the whole values, as MindSpore merged them


@pytest.mark.parametrize("key, kwargs", [
    ("unified", {"unified_safetensors_dir": "unified"}),
    ("single file with name_map", {"unified_safetensors_dir": "single", "name_map": {"row": "renamed_row"}}),
    ("single file without name_map", {"unified_safetensors_dir": "single"}),
])
def test_load_distributed_checkpoint_safetensors_folder_as_mindspore(key, kwargs):
    rec = SAFETENSORS[key]
    net = Net()
    before = state(net)
    result = ms.load_distributed_checkpoint(net, format="safetensors", **kwargs)
    assert repr(result) == rec["value"]["repr"]
    after = state(net)
    assert sorted(k for k in after if not np.array_equal(after[k], before[k])) == rec["changed"]
    for name in rec["changed"]:
        np.testing.assert_array_equal(after[name], np.array(WHOLE[name], np.float32), err_msg=name)


def test_load_distributed_checkpoint_safetensors_return_param_dict():
    rec = SAFETENSORS["unified return_param_dict"]
    net = Net()
    before = state(net)
    got = ms.load_distributed_checkpoint(net, format="safetensors", unified_safetensors_dir="unified",
                                         return_param_dict=True)
    assert sorted(got) == sorted(rec["value"]["dict"])
    for name, total in rec["value"]["dict"].items():
        assert got[name].asnumpy().sum() == pytest.approx(total)
    assert all(np.array_equal(before[k], v) for k, v in state(net).items())  # nothing loaded


def test_load_distributed_checkpoint_safetensors_save_mode(tmp_path):
    rec = SAFETENSORS["save mode rank 1 as ckpt"]
    assert ms.load_distributed_checkpoint(None, format="safetensors", unified_safetensors_dir="unified",
                                          dst_safetensors_dir=str(tmp_path / "a"), rank_id=1, output_format="ckpt")
    written = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "a") for d, _, fs in os.walk(tmp_path / "a")
                     for f in fs)
    assert written == rec["written"]
    saved = ms.load_checkpoint(str(tmp_path / "a" / "rank_1" / "net.ckpt"))
    assert {k: pytest.approx(v.asnumpy().sum()) for k, v in saved.items()} == rec["contents"]
    assert ms.load_distributed_checkpoint(None, format="safetensors", unified_safetensors_dir="unified",
                                          dst_safetensors_dir=str(tmp_path / "b"))
    written = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "b") for d, _, fs in os.walk(tmp_path / "b")
                     for f in fs)
    assert written == SAFETENSORS["save mode every rank"]["written"]


@pytest.mark.parametrize("key, kwargs", [
    ("no unified dir", {}),
    ("checkpoint_filenames given", {"unified_safetensors_dir": "unified", "checkpoint_filenames": FILES4}),
    ("strict_load", {"unified_safetensors_dir": "unified", "strict_load": True}),
    ("dec_mode", {"unified_safetensors_dir": "unified", "dec_mode": "AES-CBC"}),
    ("two files without param_name_map.json", {"unified_safetensors_dir": "no_map"}),
    ("save mode without dst", {"unified_safetensors_dir": "unified", "network": None}),
])
def test_load_distributed_checkpoint_safetensors_refusals(key, kwargs):
    rec = SAFETENSORS[key]
    assert rec["error"] == "ValueError"
    net = kwargs.pop("network", Net())
    before = state(net) if net is not None else None
    with pytest.raises(ValueError) as info:
        ms.load_distributed_checkpoint(net, format="safetensors", **kwargs)
    words = rec["message"].split(", ", 1)[1][:25]  # cellkit adds what was given to MindSpore's text
    assert words.split("'")[0] in str(info.value) or "param_name_map.json" in str(info.value)
    if net is not None:
        assert all(np.array_equal(before[k], v) for k, v in state(net).items())


def test_load_distributed_checkpoint_safetensors_predict_strategy_that_cuts():
    with pytest.raises(ValueError, match="one process"):
        ms.load_distributed_checkpoint(Net(), predict_strategy="strategy4.ckpt", format="safetensors",
                                       unified_safetensors_dir="unified")
    net = Net()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ms.load_distributed_checkpoint(net, predict_strategy="strategy_opt.ckpt", format="safetensors",
                                       unified_safetensors_dir="unified")  # names only 'w': nothing to load
    assert not net.row.asnumpy().any()


def test_load_distributed_checkpoint_safetensors_map_outside_the_folder(tmp_path):
    folder = tmp_path / "u"
    shutil.copytree("unified", folder)
    (folder / "param_name_map.json").write_text(json.dumps({"row": "../../rank_0/net.ckpt"}))
    with pytest.raises(ValueError, match="not a file of"):
        ms.load_distributed_checkpoint(Net(), format="safetensors", unified_safetensors_dir=str(folder))
    (folder / "param_name_map.json").write_text("{broken")
    with pytest.raises(ValueError, match="not JSON"):
        ms.load_distributed_checkpoint(Net(), format="safetensors", unified_safetensors_dir=str(folder))


def test_load_distributed_checkpoint_strategy_from_the_context():
    from cellkit.common.parallel_context import reset_auto_parallel_context

    ms.set_auto_parallel_context(strategy_ckpt_load_file="strategy_uneven.ckpt")
    try:
        net = EmbNet()
        assert ms.load_distributed_checkpoint(net, FILES4[:2])
    finally:
        reset_auto_parallel_context()
    np.testing.assert_array_equal(net.emb.asnumpy(), RESULTS["load_distributed_checkpoint"]["uneven"]["state"]["emb"])


def test_load_distributed_checkpoint_file_without_a_slice(tmp_path):
    # rank 3's file lacks 'dense.weight': MindSpore fails on a KeyError deep inside; cellkit names the file
    for r in range(4):
        params = ms.load_checkpoint(f"rank_{r}/net.ckpt")
        if r == 3:
            del params["dense.weight"]
        ms.save_checkpoint(params, str(tmp_path / f"r{r}.ckpt"))
    with pytest.raises(ValueError, match="r3.ckpt"):
        ms.load_distributed_checkpoint(Net(), [str(tmp_path / f"r{r}.ckpt") for r in range(4)], None,
                                       "strategy4.ckpt")


def test_load_distributed_checkpoint_slices_that_do_not_fit(tmp_path):
    shutil.copy("strategy4.ckpt", tmp_path / "s.ckpt")
    net = Net()
    net.row = ms.Parameter(ms.Tensor(np.zeros((8, 4), np.float32)), name="row")
    files = []
    for r in range(4):
        params = ms.load_checkpoint(f"rank_{r}/net.ckpt")
        if r == 2:
            params["col"] = ms.Parameter(ms.Tensor(np.zeros((4, 2), np.float32)), name="col")
        files.append(str(tmp_path / f"r{r}.ckpt"))
        ms.save_checkpoint(params, files[-1])
    before = state(net)
    with pytest.raises(ValueError, match="should be col"):
        ms.load_distributed_checkpoint(net, files, None, str(tmp_path / "s.ckpt"))
    after = state(net)
    assert all(np.array_equal(before[k], after[k]) for k in before)  # nothing loaded by halves


def test_load_distributed_checkpoint_pipeline_stage_names(tmp_path):
    # MindSpore names a parameter of pipeline stage s "s-name" in a merged strategy; the lowest stage's layout
    # is followed.  A name with a "-" that is not such a prefix stays whole.
    layout = {"dev_matrix": [2], "tensor_map": [0, -1], "param_split_shape": [3, 2], "field": 0,
              "opt_weight_shard_size": 0, "opt_weight_shard_step": 0}
    wrong = dict(layout, tensor_map=[-1, -1], param_split_shape=[])
    path = tmp_path / "pipeline.json"
    path.write_text(json.dumps({"parallel_layout_item": {"1-emb": wrong, "0-emb": layout, "my-table": layout}}))
    net = EmbNet()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ms.load_distributed_checkpoint(net, FILES4[:2], None, str(path))
    np.testing.assert_array_equal(net.emb.asnumpy(), RESULTS["load_distributed_checkpoint"]["uneven"]["state"]["emb"])
    assert "my-table" in ms.build_searched_strategy(str(path))


def test_load_distributed_checkpoint_shape_mismatch_leaves_the_network_alone():
    class Small(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = ms.Parameter(ms.Tensor(np.zeros((4, 2), np.float32)), name="emb")

    net = Small()
    with pytest.raises(RuntimeError, match="shape"):
        ms.load_distributed_checkpoint(net, FILES4[:2], None, "strategy_uneven.ckpt")
    assert not net.emb.asnumpy().any()


def test_load_distributed_checkpoint_empty_strategy_loads_nothing(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text('{"current_stage": 0}')
    net = EmbNet()
    assert ms.load_distributed_checkpoint(net, FILES4[:2], None, str(path)) is True
    assert not net.emb.asnumpy().any()


def test_build_searched_strategy_refuses_a_name_that_is_not_utf8(tmp_path):
    content = open("strategy4.ckpt", "rb").read().replace(b"dense.weight", b"dense.w\xffight")
    (tmp_path / "s.ckpt").write_bytes(content)
    with pytest.raises(StrategyFileError, match="UTF-8"):
        ms.build_searched_strategy(str(tmp_path / "s.ckpt"))


def _mutations(content, count=300, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        data = bytearray(content)
        kind = rng.integers(3)
        if kind == 0:  # flip bytes
            for i in rng.integers(0, len(data), size=rng.integers(1, 4)):
                data[i] = int(rng.integers(256))
        elif kind == 1:  # cut
            data = data[:int(rng.integers(1, len(data)))]
        else:  # insert
            i = int(rng.integers(len(data)))
            data[i:i] = bytes(rng.integers(0, 256, size=int(rng.integers(1, 5)), dtype=np.uint8))
        yield bytes(data)


def test_damaged_strategy_and_group_files_are_refused_or_read_never_crash(tmp_path):
    strategy = open("strategy4.ckpt", "rb").read()
    group = open("group_info.pb", "rb").read()
    for i, data in enumerate(_mutations(strategy)):
        path = tmp_path / f"s{i}.ckpt"
        path.write_bytes(data)
        try:
            layouts = ms.build_searched_strategy(str(path))
        except StrategyFileError:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:  # a file that still parses: loading from it works or is refused (bad layout, wrong shape)
                ms.load_distributed_checkpoint(Net(), FILES4, None, str(path))
            except (ValueError, RuntimeError):
                pass
            try:
                ms.get_ckpt_path_with_strategy("backup/rank_0/net.ckpt", str(path))
            except ValueError:
                pass
        assert isinstance(layouts, dict)
    for i, data in enumerate(_mutations(group, seed=1)):
        path = tmp_path / f"g{i}.pb"
        path.write_bytes(data)
        try:
            ranks = ms.restore_group_info_list(str(path))
        except ValueError:
            continue
        assert all(isinstance(r, int) for r in ranks)
