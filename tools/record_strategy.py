"""Write small parallel-strategy, group-info and per-rank ``.ckpt`` files with real MindSpore 2.10, and record
what MindSpore's readers of them return.

Run it with MindSpore (never a dependency of cellkit):

    /path/to/msvenv/bin/python tools/record_strategy.py

It writes ``tests/fixtures/strategy/``:

* ``strategy4.ckpt`` / ``strategy4.json`` -- a net laid out over 4 ranks (device matrix ``[2, 2]``): a weight
  split along both axes, one along axis 0, one along axis 1, a bias split along axis 0, one replicated;
* ``strategy_dp.ckpt`` -- every parameter split along axis 0 over one axis of ``[2, 2]`` and copied over the
  other (ranks 0 and 2 hold the same slices);
* ``strategy_opt.ckpt`` -- a weight replicated over 4 ranks whose optimizer shards it along axis 0
  (``opt_weight_shard_step`` 1, ``opt_weight_shard_size`` 4);
* ``strategy_uneven.ckpt`` -- a table split unevenly along axis 0 (``param_split_shape`` ``[3, 2]``);
* ``group_info.pb`` -- a ``ParallelGroupMap`` with two groups and a restore rank list;
* ``rank_<r>/net.ckpt`` -- rank r's slices of every parameter, saved with ``mindspore.save_checkpoint``
  (the slices are cut by MindSpore's own ``_load_tensor``);
* a few damaged files (``damaged_*``);
* ``results.json`` -- what ``build_searched_strategy``, ``restore_group_info_list``,
  ``get_ckpt_path_with_strategy``, ``merge_sliced_parameter`` and ``load_distributed_checkpoint`` return on
  them, or the exception each raises (type name and message).

Everything runs in one CPU process without ``communication.init()``: MindSpore 2.10's ``get_rank()`` answers 0
there, which is all these functions ask of the cluster when the predict strategy is ``None``.  Paths in the
results are relative to the fixture folder (the tool runs there).
"""
from __future__ import annotations

import json
import os
import shutil
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "strategy")

# name -> (shape, dev_matrix, tensor_map)
LAYOUT4 = {
    "dense.weight": ((8, 6), [2, 2], [1, 0]),
    "dense.bias": ((8,), [2, 2], [1]),
    "row": ((8, 4), [2, 2], [0, -1]),
    "col": ((4, 6), [2, 2], [-1, 1]),
    "rep": ((3,), [2, 2], [-1]),
}
FILES4 = [f"rank_{r}/net.ckpt" for r in range(4)]
LAYOUT_DP = {
    "dense.weight": ((8, 6), [2, 2], [0, -1]),
    "dense.bias": ((8,), [2, 2], [0]),
}


def full_value(name, shape):
    """A distinct, exactly representable value for every element."""
    offset = sum(ord(c) for c in name) % 50
    return (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + offset) / 4


def layouts(pb, layout_map, opt=None, split_shapes=None):
    opt = opt or {}
    split_shapes = split_shapes or {}
    strategy_map = pb.ParallelStrategyMap()
    strategy_map.current_stage = 0
    item = strategy_map.parallel_strategy_item.add()
    item.node_name = "Default/MatMul-op0"
    item.parallel_strategys.stage = 0
    item.parallel_strategys.parallel_strategy.add().dim.extend([2, 1])
    item.parallel_strategys.parallel_strategy.add().dim.extend([1, 2])
    for name, (_, dev, tmap) in layout_map.items():
        entry = strategy_map.parallel_layout_item.add()
        entry.param_name = name
        lay = entry.parallel_layouts
        lay.dev_matrix.add().dim.extend(dev)
        lay.tensor_map.add().dim.extend(tmap)
        lay.param_split_shape.add().dim.extend(split_shapes.get(name, []))
        lay.indices_offset.add()
        lay.field = 0
        step, size = opt.get(name, (0, 0))
        lay.opt_weight_shard_step = step
        lay.opt_weight_shard_size = size
    return strategy_map


def as_json_strategy(layout_map):
    items = {name: {"dev_matrix": dev, "tensor_map": tmap, "field": 0, "opt_weight_shard_size": 0,
                    "opt_weight_shard_step": 0, "param_split_shape": [], "indices_offset": []}
             for name, (_, dev, tmap) in layout_map.items()}
    return {"current_stage": 0, "parallel_layout_item": items}


def outcome(fn, *args, convert=lambda x: x, **kwargs):
    try:
        return {"value": convert(fn(*args, **kwargs))}
    except BaseException as exc:  # noqa: BLE001 -- record whatever MindSpore raises
        return {"error": type(exc).__name__, "message": str(exc), "bases": [c.__name__ for c in type(exc).__mro__]}


def _shared_nets():
    """``tests/serialization/strategy_nets.py``: the networks and the layout view the tests share."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "serialization",
                        "strategy_nets.py")
    spec = importlib.util.spec_from_file_location("strategy_nets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    import mindspore as ms
    from mindspore import nn
    from mindspore.parallel._tensor import _load_tensor
    from mindspore.train import node_strategy_pb2 as pb

    shared = _shared_nets()
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    os.chdir(OUT)

    with open("strategy4.ckpt", "wb") as f:
        f.write(layouts(pb, LAYOUT4).SerializeToString())
    with open("strategy4.json", "w", encoding="utf-8") as f:
        json.dump(as_json_strategy(LAYOUT4), f, indent=1)
    with open("strategy_dp.ckpt", "wb") as f:
        f.write(layouts(pb, LAYOUT_DP).SerializeToString())
    with open("strategy_opt.ckpt", "wb") as f:
        f.write(layouts(pb, {"w": ((8, 3), [4], [-1, -1])}, opt={"w": (1, 4)}).SerializeToString())
    with open("strategy_uneven.ckpt", "wb") as f:
        f.write(layouts(pb, {"emb": ((5, 2), [2], [0, -1])}, split_shapes={"emb": [3, 2]}).SerializeToString())

    group_map = pb.ParallelGroupMap()
    for name, ranks in (("4-6934435248919826049", [0, 2]), ("2-5004544844489628105", [0, 1, 2, 3])):
        group = group_map.parallel_group_item.add()
        group.group_name = name
        group.parallel_group_ranks.dim.extend(ranks)
    group_map.ckpt_restore_rank_list.dim.extend([0, 2])
    with open("group_info.pb", "wb") as f:
        f.write(group_map.SerializeToString())
    no_list = pb.ParallelGroupMap()
    no_list.parallel_group_item.add(group_name="g").parallel_group_ranks.dim.extend([0])
    with open("damaged_group_no_restore_list.pb", "wb") as f:
        f.write(no_list.SerializePartialToString())
    empty_list = pb.ParallelGroupMap()
    empty_list.ckpt_restore_rank_list.SetInParent()
    with open("group_info_empty_list.pb", "wb") as f:
        f.write(empty_list.SerializeToString())

    # per-rank slices
    for rank in range(4):
        os.makedirs(f"rank_{rank}", exist_ok=True)
        params = []
        for name, (shape, dev, tmap) in LAYOUT4.items():
            piece = _load_tensor(ms.Tensor(full_value(name, shape)), dev, tmap, rank_id=rank)
            params.append({"name": name, "data": ms.Tensor(np.asarray(piece.asnumpy() if hasattr(piece, "asnumpy") else piece))})
        w = full_value("w", (8, 3))
        params.append({"name": "w", "data": ms.Tensor(w[2 * rank:2 * rank + 2])})
        emb = full_value("emb", (5, 2))
        if rank < 2:
            params.append({"name": "emb", "data": ms.Tensor(emb[:3] if rank == 0 else emb[3:])})
        ms.save_checkpoint(params, f"rank_{rank}/net.ckpt")
    os.makedirs("backup/rank_2", exist_ok=True)
    shutil.copy("rank_2/net.ckpt", "backup/rank_2/net.ckpt")

    with open("damaged_strategy_garbage.ckpt", "wb") as f:
        f.write(b"\xff\xfe not a strategy \x01\x02")
    good = open("strategy4.ckpt", "rb").read()
    with open("damaged_strategy_truncated.ckpt", "wb") as f:
        f.write(good[:len(good) // 2])
    open("damaged_strategy_empty.ckpt", "wb").close()
    with open("damaged_group_garbage.pb", "wb") as f:
        f.write(b"\xff\xff\xff\xff garbage")
    rank0 = open("rank_0/net.ckpt", "rb").read()
    os.makedirs("damaged_rank", exist_ok=True)
    data = open("rank_1/net.ckpt", "rb").read()
    with open("damaged_rank/rank_1.ckpt", "wb") as f:
        f.write(data[:len(data) // 3])
    del rank0

    results = {"mindspore": ms.__version__, "build_searched_strategy": {}, "restore_group_info_list": {},
               "get_ckpt_path_with_strategy": [], "merge_sliced_parameter": {}, "load_distributed_checkpoint": {},
               "spellings": {}}

    for name in ("build_searched_strategy", "restore_group_info_list", "get_ckpt_path_with_strategy",
                 "load_distributed_checkpoint", "merge_sliced_parameter"):
        import mindspore.parallel as par
        results["spellings"][name] = {"mindspore": hasattr(ms, name), "mindspore.train": hasattr(ms.train, name),
                                      "mindspore.parallel": hasattr(par, name)}

    def strategy_dict(d, text=False):
        if d is None:
            return None
        out = {k: shared.layout_record(v) for k, v in d.items()}
        if text:  # the protobuf text form too, for the files MindSpore reads as protobuf
            for k, v in d.items():
                out[k]["str"] = str(v)
        return out

    for fname in ("strategy4.ckpt", "strategy4.json", "strategy_dp.ckpt", "strategy_opt.ckpt",
                  "strategy_uneven.ckpt", "damaged_strategy_garbage.ckpt", "damaged_strategy_truncated.ckpt",
                  "damaged_strategy_empty.ckpt", "missing.ckpt", "group_info.pb"):
        results["build_searched_strategy"][fname] = outcome(ms.build_searched_strategy, fname,
                                                            convert=strategy_dict)
    results["build_searched_strategy"]["<int 3>"] = outcome(ms.build_searched_strategy, 3, convert=strategy_dict)
    results["build_searched_strategy"]["<None>"] = outcome(ms.build_searched_strategy, None, convert=strategy_dict)
    results["build_searched_strategy"]["strategy4.ckpt"] = outcome(
        ms.build_searched_strategy, "strategy4.ckpt", convert=lambda d: strategy_dict(d, text=True))
    results["build_searched_strategy"]["<train spelling> strategy4.ckpt"] = outcome(
        ms.train.build_searched_strategy, "strategy4.ckpt", convert=strategy_dict)

    for fname in ("group_info.pb", "group_info_empty_list.pb", "damaged_group_no_restore_list.pb",
                  "damaged_group_garbage.pb", "damaged_strategy_empty.ckpt", "missing.pb", "strategy4.ckpt"):
        results["restore_group_info_list"][fname] = outcome(ms.restore_group_info_list, fname, convert=list)
    results["restore_group_info_list"]["<int 3>"] = outcome(ms.restore_group_info_list, 3, convert=list)

    for ckpt, strategy in (("rank_0/net.ckpt", "strategy4.ckpt"), ("rank_0/missing.ckpt", "strategy4.ckpt"),
                           ("backup/rank_0/net.ckpt", "strategy_dp.ckpt"),
                           ("backup/rank_0/net.ckpt", "strategy4.ckpt"),
                           ("backup/rank_0/net.ckpt", "strategy_opt.ckpt"),
                           ("backup/rank_7/net.ckpt", "strategy_dp.ckpt"),
                           ("rank_2/net.ckpt", "strategy_dp.ckpt"),
                           ("rank_2/net.ckpt", "missing.ckpt"),
                           ("backup/rank_0/net.ckpt", "missing.ckpt"),
                           ("backup/rank_0/net.ckpt", "damaged_strategy_garbage.ckpt")):
        results["get_ckpt_path_with_strategy"].append(
            {"args": [ckpt, strategy], **outcome(ms.get_ckpt_path_with_strategy, ckpt, strategy)})

    # merge_sliced_parameter with a strategy
    s4 = ms.build_searched_strategy("strategy4.ckpt")
    slices = {r: ms.load_checkpoint(f"rank_{r}/net.ckpt") for r in range(4)}
    merge = results["merge_sliced_parameter"]
    for name in LAYOUT4:
        merge[name] = outcome(ms.merge_sliced_parameter, [slices[r][name] for r in range(4)], s4,
                              convert=lambda p: {"name": p.name, "value": p.asnumpy().tolist()})
    su = ms.build_searched_strategy("strategy_uneven.ckpt")
    merge["emb uneven"] = outcome(ms.merge_sliced_parameter, [slices[0]["emb"], slices[1]["emb"]], su,
                                  convert=lambda p: {"name": p.name, "value": p.asnumpy().tolist()})
    merge["emb uneven wrong order"] = outcome(ms.merge_sliced_parameter, [slices[1]["emb"], slices[0]["emb"]], su,
                                              convert=lambda p: {"name": p.name, "value": p.asnumpy().tolist()})
    merge["two slices for four devices"] = outcome(ms.merge_sliced_parameter,
                                                   [slices[0]["row"], slices[1]["row"]], s4)
    merge["name not in strategy"] = outcome(ms.merge_sliced_parameter, [slices[0]["w"]], s4)
    merge["strategy value not a layout"] = outcome(ms.merge_sliced_parameter, [slices[0]["row"]], {"row": None})

    # in-memory merges: slices cut by MindSpore's _load_tensor (recorded with the layout), merged back
    def pb_layout(dev, tmap, field=0):
        lay = pb.ParallelLayouts()
        lay.dev_matrix.add().dim.extend(dev)
        lay.tensor_map.add().dim.extend(tmap)
        lay.param_split_shape.add()
        lay.field, lay.opt_weight_shard_step, lay.opt_weight_shard_size = field, 0, 0
        return lay

    memory = results["merge_in_memory"] = {}
    for key, shape, dev, tmap in (("transposed map", (4, 6), [2, 2], [0, 1]),
                                  ("3-D over [2, 2, 2]", (4, 2, 6), [2, 2, 2], [2, -1, 0]),
                                  ("axis 1 over a leading grid axis", (3, 4), [2, 3], [-1, 1])):
        full = full_value(key, shape)
        parts = [np.asarray(_load_tensor(ms.Tensor(full), dev, tmap, rank_id=r)) for r in range(int(np.prod(dev)))]
        params = [ms.Parameter(ms.Tensor(p_), name="p") for p_ in parts]
        rec = outcome(ms.merge_sliced_parameter, params, {"p": pb_layout(dev, tmap)},
                      convert=lambda p_: p_.asnumpy().tolist())
        memory[key] = {"dev_matrix": dev, "tensor_map": tmap, "slices": [p_.tolist() for p_ in parts],
                       "full": full.tolist(), **rec}
    # MindSpore's field-sliced embedding: the slices here are written by hand (as a field-sliced run saves them)
    full = np.arange(24, dtype=np.float32).reshape(8, 3)
    parts = []
    for r in range(2):
        cols = [full[:, i].reshape(2, -1)[:, r * 2:r * 2 + 2].reshape(-1) for i in range(3)]
        parts.append(np.stack(cols, axis=1))
    rec = outcome(ms.merge_sliced_parameter, [ms.Parameter(ms.Tensor(p_), name="p") for p_ in parts],
                  {"p": pb_layout([2], [0, -1], field=2)}, convert=lambda p_: p_.asnumpy().tolist())
    memory["field 2"] = {"dev_matrix": [2], "tensor_map": [0, -1], "field": 2,
                         "slices": [p_.tolist() for p_ in parts], "full": full.tolist(), **rec}

    Net, OptNet, EmbNet = shared.make_nets(ms, nn, np)

    def state(net):
        return {p.name: p.asnumpy().tolist() for p in net.get_parameters()}

    files4 = FILES4
    loads = results["load_distributed_checkpoint"]

    def load_case(key, make, *args, spelling=ms.load_distributed_checkpoint, **kwargs):
        net = make()
        before = state(net) if isinstance(net, nn.Cell) else None
        rec = outcome(spelling, net, *args, **kwargs)
        if isinstance(net, nn.Cell):
            after = state(net)
            if "error" in rec:
                rec["unchanged"] = after == before  # a refused load leaves the network as it was
            else:
                rec["state"] = {k: v for k, v in after.items() if v != before[k] or k == "extra"}
        loads[key] = rec

    load_case("strategy4", Net, files4, None, "strategy4.ckpt")
    load_case("strategy4 json", Net, files4, None, "strategy4.json")
    load_case("strategy4 train spelling", Net, files4, None, "strategy4.ckpt", spelling=ms.train.load_distributed_checkpoint)
    import mindspore.parallel as par
    load_case("strategy4 parallel spelling", Net, files4, None, "strategy4.ckpt",
              spelling=par.load_distributed_checkpoint)
    load_case("strategy4 strict", Net, files4, None, "strategy4.ckpt", strict_load=True)
    load_case("opt shard", OptNet, files4, None, "strategy_opt.ckpt")
    load_case("uneven", EmbNet, files4[:2], None, "strategy_uneven.ckpt")
    load_case("three files for four devices", Net, files4[:3], None, "strategy4.ckpt")
    load_case("no strategy file", Net, files4, None, None)
    load_case("missing file", Net, files4[:3] + ["rank_9/net.ckpt"], None, "strategy4.ckpt")
    load_case("not a .ckpt name", Net, files4[:3] + ["strategy4.json"], None, "strategy4.ckpt")
    load_case("damaged rank file", Net, ["rank_0/net.ckpt", "damaged_rank/rank_1.ckpt", "rank_2/net.ckpt", "rank_3/net.ckpt"], None, "strategy4.ckpt")
    load_case("checkpoint_filenames None", Net, None, None, "strategy4.ckpt")
    load_case("network not a Cell", lambda: {"a": 1}, files4, None, "strategy4.ckpt")
    load_case("predict_strategy not a dict", Net, files4, "strategy4.ckpt", "strategy4.ckpt")
    load_case("predict_strategy bad value", Net, files4, {"row": [[2], [0]]}, "strategy4.ckpt")
    load_case("format bad", Net, files4, None, "strategy4.ckpt", format="npz")
    load_case("safetensors without dir", Net, None, None, None, format="safetensors")
    load_case("dec_key not bytes", Net, files4, None, "strategy4.ckpt", dec_key="k")

    # format='safetensors': a folder of whole ("unified") tensors, as mindspore.parallel.unified_safetensors
    # writes it (weights spread over files named by param_name_map.json, plus hyper_param.safetensors)
    os.makedirs("unified", exist_ok=True)
    whole = {name: full_value(name, shape) for name, (shape, _, _) in LAYOUT4.items()}
    ms.save_checkpoint([{"name": n, "data": ms.Tensor(whole[n])} for n in ("dense.weight", "dense.bias")],
                       "unified/part1.safetensors", format="safetensors")
    ms.save_checkpoint([{"name": n, "data": ms.Tensor(whole[n])} for n in ("row", "col", "rep")],
                       "unified/part2.safetensors", format="safetensors")
    ms.save_checkpoint([{"name": "global_step", "data": ms.Tensor(np.array([3], np.int32))}],
                       "unified/hyper_param.safetensors", format="safetensors")
    with open("unified/param_name_map.json", "w", encoding="utf-8") as f:
        json.dump({"weight_map": {"dense.weight": "part1.safetensors", "dense.bias": "part1.safetensors",
                                  "row": "part2.safetensors", "col": "part2.safetensors",
                                  "rep": "part2.safetensors"}}, f)
    os.makedirs("single", exist_ok=True)
    ms.save_checkpoint([{"name": "renamed_row" if n == "row" else n, "data": ms.Tensor(v)} for n, v in whole.items()],
                       "single/model.safetensors", format="safetensors")
    os.makedirs("no_map", exist_ok=True)
    for part in ("part1", "part2"):
        shutil.copy(f"unified/{part}.safetensors", f"no_map/{part}.safetensors")

    st = results["load_distributed_safetensors"] = {}

    def st_case(key, make, **kwargs):
        net = make() if make else None
        before = state(net) if net is not None else None
        rec = outcome(ms.load_distributed_checkpoint, net, format="safetensors",
                      convert=lambda v: ({"dict": {k: p_.asnumpy().sum().item() for k, p_ in v.items()}}
                                         if isinstance(v, dict) else {"repr": repr(v)}), **kwargs)
        if net is not None:
            after = state(net)
            rec["changed"] = sorted(k for k, v in after.items() if v != before[k])  # values: as "strategy4" loads
        st[key] = rec

    st_case("unified", Net, unified_safetensors_dir="unified")
    st_case("unified return_param_dict", Net, unified_safetensors_dir="unified", return_param_dict=True)
    st_case("single file with name_map", Net, unified_safetensors_dir="single", name_map={"row": "renamed_row"})
    st_case("single file without name_map", Net, unified_safetensors_dir="single")
    st_case("two files without param_name_map.json", Net, unified_safetensors_dir="no_map")
    st_case("no unified dir", Net)
    st_case("checkpoint_filenames given", Net, unified_safetensors_dir="unified", checkpoint_filenames=FILES4)
    st_case("strict_load", Net, unified_safetensors_dir="unified", strict_load=True)
    st_case("dec_mode", Net, unified_safetensors_dir="unified", dec_mode="AES-CBC")
    st_case("save mode without dst", None, unified_safetensors_dir="unified")
    if os.path.isdir("saved"):
        shutil.rmtree("saved")
    st_case("save mode rank 1 as ckpt", None, unified_safetensors_dir="unified", dst_safetensors_dir="saved",
            rank_id=1, output_format="ckpt")
    st["save mode rank 1 as ckpt"]["written"] = sorted(
        os.path.relpath(os.path.join(d, f_), "saved") for d, _, fs in os.walk("saved") for f_ in fs)
    if os.path.isfile("saved/rank_1/net.ckpt"):
        st["save mode rank 1 as ckpt"]["contents"] = {
            k: v.asnumpy().sum().item() for k, v in ms.load_checkpoint("saved/rank_1/net.ckpt").items()}
    shutil.rmtree("saved", ignore_errors=True)
    st_case("save mode every rank", None, unified_safetensors_dir="unified", dst_safetensors_dir="saved")
    st["save mode every rank"]["written"] = sorted(
        os.path.relpath(os.path.join(d, f_), "saved") for d, _, fs in os.walk("saved") for f_ in fs)
    shutil.rmtree("saved", ignore_errors=True)

    with open("results.json", "w", encoding="utf-8") as f:
        json.dump(results, f, indent=None, separators=(",", ":"), sort_keys=True)
    print(json.dumps(results, indent=1)[:20000])


if __name__ == "__main__":
    sys.exit(main())
