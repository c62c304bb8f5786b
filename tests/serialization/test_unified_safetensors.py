"""``unified_safetensors`` against what MindSpore 2.10 writes for the same per-rank folders.

The inputs and MindSpore's outputs are recorded by ``tools/record_unified.py`` (run under real MindSpore) into
``tests/fixtures/unified/``; every recorded call is repeated here with cellkit and the folder it writes is
compared file by file (names, metadata, each tensor's dtype, shape and values, the JSON map), or the exception
type is compared.
"""
import json
import os
import shutil
import warnings

import numpy as np
import pytest

import cellkit as ms
from cellkit.serialization.strategy_format import StrategyFileError

FIX = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "unified")
with open(os.path.join(FIX, "results.json"), encoding="utf-8") as _f:
    RESULTS = json.load(_f)
CALLS = {c["key"]: c for c in RESULTS["calls"]}

CHOICES = {"drop_rep": lambda name: name != "rep", "rename": lambda name: "model." + name,
           "bad": lambda name: None}
# Where cellkit deliberately differs from MindSpore 2.10 (see docs/mindspore_differences.md):
# - "mixed4 choice bad": MindSpore writes param_name_map.json and hyper_param.safetensors, then raises;
#   cellkit checks choice_func's answers first and writes nothing (same ValueError).
# - "mixed4 split 2 of 2": MindSpore fails with "number sections must be larger than 0." when a share of the
#   work holds no part (a NumPy error from an empty split); cellkit does the empty share: writes nothing.
# - "uneven": MindSpore's total_size counts the first rank's slice times the number of slices (48 bytes for a
#   (5, 2) float32 cut 3 + 2), not the 40 bytes the merged parameter holds; cellkit counts the bytes written.
DIFFERENT = {"mixed4 split 2 of 2": {"files": {}}}


def _uneven_expected():
    import copy

    rec = copy.deepcopy(CALLS["uneven"])
    assert rec["files"]["param_name_map.json"]["json"]["metadata"]["total_size"] == 48  # MindSpore 2.10's figure
    rec["files"]["param_name_map.json"]["json"]["metadata"]["total_size"] = 5 * 2 * 4
    return rec


DIFFERENT["uneven"] = _uneven_expected()


# - "dp crc": MindSpore copies the last rank file's crc_num into the merged file's metadata, and then its own
#   load_checkpoint(crc_check=True) refuses that file; cellkit leaves the stale checksum out.
def _crc_expected():
    import copy

    rec = copy.deepcopy(CALLS["dp crc"])
    assert rec["reload_crc_check"].startswith("ValueError") and "crc" in rec["reload_crc_check"]
    del rec["files"]["part0.safetensors"]["metadata"]["crc_num"]
    return rec


DIFFERENT["dp crc"] = _crc_expected()
# a word each cellkit message must hold, per error case
MESSAGE = {"mixed4 file_suffix none match": "9_9", "mixed4 choice bad": "choice_func", "missing rank": "rank 1",
           "damaged rank file": "net.safetensors", "ckpt and safetensors": ".ckpt",
           "src_dir a file": "src_dir", "src_dir missing": "src_dir", "strategy folder missing": "src_strategy_file",
           "strategy missing file": "src_strategy_file", "strategy garbage": "src_strategy_file",
           "strategy not str": "src_strategy_file", "dst not str": "dst_dir", "dst blank": "dst_dir",
           "dst a file": "dst_dir"}


def describe(folder):
    """The recorder's view of a folder (same keys as in results.json)."""
    from safetensors import safe_open

    out = {}
    for fname in sorted(os.listdir(folder)):
        path = os.path.join(folder, fname)
        if fname.endswith(".json"):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            out[fname] = {"json": json.loads(text), "text": text}
        elif fname.endswith(".safetensors"):
            with safe_open(path, framework="np") as f:
                out[fname] = {"metadata": f.metadata(), "tensors": {
                    k: {"dtype": str(f.get_tensor(k).dtype), "shape": list(f.get_tensor(k).shape),
                        "values": f.get_tensor(k).reshape(-1).tolist()} for k in f.keys()}}
        else:
            out[fname] = {"other": True}
    return out


def run_case(rec, dst, monkeypatch=None):
    kwargs = dict(rec["kwargs"])
    if "parts" in rec:  # the recorder made MindSpore split into rec["parts"] files: shrink cellkit's part size
        from cellkit.serialization import unify

        total = CALLS["mixed4"]["files"]["param_name_map.json"]["json"]["metadata"]["total_size"]
        monkeypatch.setattr(unify, "_PART_BYTES", total / (rec["parts"] - 0.5))
    if "split_dst_file" in kwargs:
        kwargs["split_dst_file"] = tuple(kwargs["split_dst_file"])
    if "choice" in rec:
        kwargs["choice_func"] = CHOICES[rec["choice"]]
    return ms.unified_safetensors(rec["src"], rec["strategy"], rec.get("dst", dst), **kwargs)


def test_spellings():
    import cellkit.parallel

    assert RESULTS["spellings"] == {"mindspore": True, "mindspore.parallel": True, "mindspore.train": False}
    assert cellkit.parallel.unified_safetensors is ms.unified_safetensors
    assert not hasattr(ms.train, "unified_safetensors")


@pytest.mark.parametrize("key", sorted(CALLS))
def test_against_mindspore(key, tmp_path, monkeypatch):
    rec = CALLS[key]
    monkeypatch.chdir(FIX)
    dst = str(tmp_path / "dst")
    expected = DIFFERENT.get(key, rec)
    if "files" in expected:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert run_case(rec, dst, monkeypatch) is None
        # MindSpore warns when the files' remove_redundancy flag overrides merge_with_redundancy
        assert any("remove_redundancy=True" in str(w.message) for w in caught) == (key == "dedup")
        got = describe(dst)
        assert sorted(got) == sorted(expected["files"])
        for fname, want in expected["files"].items():
            have = got[fname]
            if "json" in want:
                assert have["json"] == want["json"]
                # MindSpore writes the map with an indent of 4
                assert have["text"] == json.dumps(have["json"], indent=4)
                continue
            assert have["metadata"] == want["metadata"], fname
            assert sorted(have["tensors"]) == sorted(want["tensors"]), fname
            for name, tensor in want["tensors"].items():
                assert have["tensors"][name] == tensor, (fname, name)
        return
    error = {"ValueError": ValueError, "TypeError": TypeError, "NotADirectoryError": NotADirectoryError}[rec["error"]]
    with pytest.raises(error) as info:
        run_case(rec, dst, monkeypatch)
    assert MESSAGE[key] in str(info.value)
    if key == "mixed4 choice bad":  # nothing written before the refusal (MindSpore leaves two files)
        assert rec["partial"] == ["hyper_param.safetensors", "param_name_map.json"]
        assert os.listdir(dst) == []


# ------------------------------------------------------------------ round trips
def _copy_case(case, tmp_path):
    shutil.copytree(os.path.join(FIX, case), tmp_path / case)
    return str(tmp_path / case / "src"), str(tmp_path / case / "strategy.ckpt")


@pytest.mark.parametrize("case", ["dp", "opt", "mixed4", "pipeline", "bf16"])
def test_round_trip_through_load_distributed_checkpoint(case, tmp_path):
    """A folder cellkit writes loads with load_distributed_checkpoint(format='safetensors'), values whole."""
    src, strategy = _copy_case(case, tmp_path)
    dst = str(tmp_path / "whole")
    ms.unified_safetensors(src, strategy, dst)
    want = {name: np.array(t["values"], dtype=t["dtype"]).reshape(t["shape"])
            for name, t in CALLS[case]["files"]["part0.safetensors"]["tensors"].items()}
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            for name, value in want.items():
                setattr(self, name.replace(".", "_"),
                        ms.Parameter(ms.Tensor(np.zeros_like(value, dtype=value.dtype.type)), name=name))

    net = Net()
    not_loaded, _ = ms.load_distributed_checkpoint(net, format="safetensors", unified_safetensors_dir=dst)
    assert not_loaded == []
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy().astype(np.float64), want[p.name])


def test_parts_are_read_only_and_a_second_run_replaces_them(tmp_path):
    src, strategy = _copy_case("dp", tmp_path)
    dst = str(tmp_path / "whole")
    ms.unified_safetensors(src, strategy, dst)
    part = os.path.join(dst, "part0.safetensors")
    assert oct(os.stat(part).st_mode & 0o777) == oct(0o400)
    ms.unified_safetensors(src, strategy, dst)
    assert sorted(os.listdir(dst)) == ["param_name_map.json", "part0.safetensors"]


def test_json_strategy_gives_the_same_parts(tmp_path):
    src, _ = _copy_case("dp", tmp_path)
    layout = {"dev_matrix": [2, 2], "field": 0, "opt_weight_shard_step": 0, "opt_weight_shard_size": 0}
    path = str(tmp_path / "strategy.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"parallel_layout_item": {"dense.weight": {**layout, "tensor_map": [0, -1]},
                                            "dense.bias": {**layout, "tensor_map": [0]}}}, f)
    ms.unified_safetensors(src, path, str(tmp_path / "whole"))
    got = describe(str(tmp_path / "whole"))
    assert got["part0.safetensors"]["tensors"] == CALLS["dp"]["files"]["part0.safetensors"]["tensors"]


# ------------------------------------------------------------------ argument errors and damaged inputs
@pytest.mark.parametrize("kwargs, error, word", [
    ({"merge_with_redundancy": 1}, TypeError, "merge_with_redundancy"),
    ({"file_suffix": 12}, TypeError, "file_suffix"),
    ({"max_process_num": 0}, ValueError, "max_process_num"),
    ({"max_process_num": 2.0}, TypeError, "max_process_num"),
    ({"choice_func": "w"}, TypeError, "choice_func"),
    ({"split_dst_file": (3, 2)}, ValueError, "split_dst_file"),
    ({"split_dst_file": (1,)}, ValueError, "split_dst_file"),
    ({"split_dst_file": "1,2"}, TypeError, "split_dst_file"),
])
def test_argument_errors(kwargs, error, word, tmp_path):
    src, strategy = _copy_case("dp", tmp_path)
    with pytest.raises(error, match=word):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"), **kwargs)


def test_src_dir_not_str(tmp_path):
    _, strategy = _copy_case("dp", tmp_path)
    with pytest.raises(TypeError, match="src_dir"):
        ms.unified_safetensors(3, strategy, str(tmp_path / "whole"))


@pytest.mark.parametrize("damage", [b"", b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}xxxxxx",
                                    b"\xff" * 8 + b"{}", b"PK\x03\x04 a zip"])
def test_damaged_rank_file_is_refused(damage, tmp_path):
    src, strategy = _copy_case("dp", tmp_path)
    with open(os.path.join(src, "rank_0", "net.safetensors"), "wb") as f:
        f.write(damage)
    with pytest.raises(ValueError, match="rank_0"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"))
    assert not os.listdir(tmp_path / "whole")


def test_slice_of_the_wrong_shape_is_refused(tmp_path):
    from safetensors.numpy import save_file

    src, strategy = _copy_case("dp", tmp_path)
    save_file({"dense.weight": np.zeros((3, 6), np.float32), "dense.bias": np.zeros((4,), np.float32)},
              os.path.join(src, "rank_1", "net.safetensors"))
    with pytest.raises(ValueError, match="unified_safetensors"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"))


def test_deduplicated_files_with_a_copy_missing(tmp_path):
    from safetensors.numpy import load_file, save_file

    src, strategy = _copy_case("dedup", tmp_path)
    path = os.path.join(src, "rank_3", "net.safetensors")
    kept = {k: v for k, v in load_file(path).items() if k != "row"}  # of ranks 1 and 3, only 3 kept "row"
    save_file(kept, path, metadata={"format": "ms", "remove_redundancy": "True"})
    with pytest.raises(ValueError, match=r"\[1, 3\].*'row'"), pytest.warns(UserWarning, match="remove_redundancy"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"))


def test_layouts_over_different_device_counts_are_refused(tmp_path):
    src, _ = _copy_case("dp", tmp_path)
    layout = {"tensor_map": [0, -1], "field": 0, "opt_weight_shard_step": 0, "opt_weight_shard_size": 0}
    path = str(tmp_path / "strategy.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"parallel_layout_item": {"dense.weight": {**layout, "dev_matrix": [2, 2]},
                                            "dense.bias": {**layout, "tensor_map": [0], "dev_matrix": [2]}}}, f)
    with pytest.raises(ValueError, match="different numbers of ranks"):
        ms.unified_safetensors(src, path, str(tmp_path / "whole"))


def test_pipeline_stage_files_missing(tmp_path):
    """Stage 1's parameters are read from ranks 2 and 3: without rank 3's file the merge is refused."""
    src, strategy = _copy_case("pipeline", tmp_path)
    shutil.rmtree(os.path.join(src, "rank_3"))
    with pytest.raises(ValueError, match="rank 3"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"))


def test_no_common_parameter(tmp_path):
    src, _ = _copy_case("dp", tmp_path)
    path = str(tmp_path / "strategy.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"parallel_layout_item": {"other": {"dev_matrix": [4], "tensor_map": [-1], "field": 0,
                                                      "opt_weight_shard_step": 0, "opt_weight_shard_size": 0}}}, f)
    with pytest.raises(ValueError, match="nothing to merge"):
        ms.unified_safetensors(src, path, str(tmp_path / "whole"))


def test_strategy_garbage_is_both_errors(tmp_path):
    src, _ = _copy_case("dp", tmp_path)
    path = str(tmp_path / "s.ckpt")
    with open(path, "wb") as f:
        f.write(b"\xff\xfe not a strategy")
    with pytest.raises(StrategyFileError):
        ms.unified_safetensors(src, path, str(tmp_path / "whole"))


def test_slices_of_different_dtypes_are_refused(tmp_path):
    from safetensors.numpy import load_file, save_file

    src, strategy = _copy_case("dp", tmp_path)
    path = os.path.join(src, "rank_1", "net.safetensors")
    save_file({k: v.astype(np.float16) for k, v in load_file(path).items()}, path)
    with pytest.raises(ValueError, match="different dtypes"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"))


def test_three_parts_load_back_through_the_map(tmp_path, monkeypatch):
    """Several part files: load_distributed_checkpoint finds each parameter through param_name_map.json."""
    from cellkit.serialization import unify

    monkeypatch.setattr(unify, "_PART_BYTES", 130)
    src, strategy = _copy_case("mixed4", tmp_path)
    dst = str(tmp_path / "whole")
    ms.unified_safetensors(src, strategy, dst)
    assert sorted(f for f in os.listdir(dst) if f.startswith("part")) == [f"part{i}.safetensors" for i in range(3)]
    params = ms.load_distributed_checkpoint(None, format="safetensors", unified_safetensors_dir=dst,
                                            return_param_dict=True, dst_safetensors_dir=str(tmp_path / "x"))
    assert params is True  # network None: written per rank instead
    reloaded = ms.load_checkpoint(str(tmp_path / "x" / "rank_0" / "net.safetensors"), format="safetensors")
    want = CALLS["mixed4"]["files"]["part0.safetensors"]["tensors"]
    for name, tensor in want.items():
        np.testing.assert_array_equal(reloaded[name].asnumpy().reshape(-1), np.array(tensor["values"]))
    assert "global_step" in reloaded  # hyper_param.safetensors is read too


def test_ckpt_folders_get_a_hint(tmp_path):
    src, strategy = _copy_case("dp", tmp_path)
    for rank in range(4):
        folder = os.path.join(src, f"rank_{rank}")
        os.remove(os.path.join(folder, "net.safetensors"))
        ms.save_checkpoint([{"name": "x", "data": ms.Tensor(np.ones(2, np.float32))}], os.path.join(folder, "n.ckpt"))
    with pytest.raises(ValueError, match="ckpt_to_safetensors"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"))


def test_choice_func_giving_two_parameters_one_name_is_refused(tmp_path):
    src, strategy = _copy_case("dp", tmp_path)
    with pytest.raises(ValueError, match="same name 'w'"):
        ms.unified_safetensors(src, strategy, str(tmp_path / "whole"), choice_func=lambda name: "w")
    assert not os.listdir(tmp_path / "whole")


def test_rank_checksums_are_not_copied_to_the_merged_file(tmp_path):
    """A rank file saved with crc_check carries its own CRC; the merged file is not that file."""
    from safetensors.numpy import load_file

    src, strategy = _copy_case("dp", tmp_path)
    for rank in range(4):
        path = os.path.join(src, f"rank_{rank}", "net.safetensors")
        params = [{"name": k, "data": ms.Tensor(v)} for k, v in load_file(path).items()]
        os.remove(path)
        ms.save_checkpoint(params, path, format="safetensors", crc_check=True)
    dst = str(tmp_path / "whole")
    ms.unified_safetensors(src, strategy, dst)
    assert "crc_num" not in describe(dst)["part0.safetensors"]["metadata"]
    loaded = ms.load_checkpoint(os.path.join(dst, "part0.safetensors"), format="safetensors", crc_check=True)
    assert loaded["dense.weight"].shape == (8, 6)
