"""Write small per-rank safetensors folders and strategy files, run real MindSpore 2.10's
``mindspore.parallel.unified_safetensors`` on them and record what it writes (or raises).

Run it with MindSpore (never a dependency of cellkit), one CPU process:

    /path/to/msvenv/bin/python tools/record_unified.py

It writes ``tests/fixtures/unified/``:

* ``<case>/strategy.ckpt`` and ``<case>/src/rank_<r>/*.safetensors`` -- the inputs (written with MindSpore's own
  ``node_strategy_pb2`` classes and ``safetensors.numpy``; the slices are cut by MindSpore's ``_load_tensor``):

  - ``mixed4``: 4 ranks on a ``[2, 2]`` grid: a weight cut along both axes, one along axis 0 (float16), one along
    axis 1 (int32), a replicated vector, an ``accu_grads.`` entry, a ``global_step`` and a name the strategy lacks;
    each rank folder holds two checkpoints (``net-1_2`` and ``net-1_4``) to exercise ``file_suffix``;
  - ``dp``: 4 ranks, axis 0 cut over one grid axis and copied over the other;
  - ``opt``: 4 ranks, a weight replicated by the model and sharded along axis 0 by the optimizer;
  - ``dedup``: 4 ranks saved with ``remove_redundancy`` (each copy kept by one rank only, metadata says so);
  - ``opt_dedup``: ``opt`` saved with ``remove_redundancy``; ``dp_crc``: ``dp`` saved with ``crc_check=True``;
  - ``pipeline``: 2 pipeline stages of 2 ranks, the strategy names prefixed with their stage (``0-w``);
  - ``bf16``: bfloat16 slices (axis 1 cut, optimizer shards); ``uneven``: ``param_split_shape`` [3, 2];
  - ``missing_rank``, ``damaged``, ``with_ckpt``: a rank folder removed, a truncated file, a ``.ckpt`` beside;
* ``results.json`` -- per call: the arguments, then either every file of ``dst_dir`` (safetensors: metadata and
  each tensor's dtype, shape and values; json: the parsed content) or the exception (type name and message).

``max_process_num=1`` is passed where a call would start processes (MindSpore then runs in this process);
the recorded output does not depend on it.  Paths in messages are relative to the fixture folder.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "unified")

# name -> (shape, dtype, dev_matrix, tensor_map, (opt_step, opt_size))
CASES = {
    "mixed4": {
        "w01": ((8, 6), "float32", [2, 2], [1, 0], (0, 0)),
        "row": ((8, 4), "float16", [2, 2], [0, -1], (0, 0)),
        "col": ((4, 6), "int32", [2, 2], [-1, 1], (0, 0)),
        "rep": ((3,), "float32", [2, 2], [-1], (0, 0)),
        "accu_grads.row": ((8, 4), "float16", [2, 2], [0, -1], (0, 0)),
    },
    "dp": {
        "dense.weight": ((8, 6), "float32", [2, 2], [0, -1], (0, 0)),
        "dense.bias": ((8,), "float32", [2, 2], [0], (0, 0)),
    },
    "opt": {
        "w": ((8, 3), "float32", [4], [-1, -1], (1, 4)),
        "b": ((4,), "float32", [4], [-1], (0, 0)),
    },
    "dedup": {
        "w01": ((8, 6), "float32", [2, 2], [1, 0], (0, 0)),
        "row": ((8, 4), "float32", [2, 2], [0, -1], (0, 0)),
        "rep": ((3,), "float32", [2, 2], [-1], (0, 0)),
    },
}
BF16 = {
    "w": ((4, 6), "bfloat16", [2], [-1, 0], (0, 0)),
    "v": ((4,), "bfloat16", [2], [-1], (1, 2)),
}
PIPELINE = {
    "0-w": ((4, 2), "float32", [2], [0, -1], (0, 0)),
    "0-emb": ((6, 2), "float32", [2], [0, -1], (0, 0)),
    "1-v": ((2, 4), "float32", [2], [-1, 0], (0, 0)),
    "1-emb": ((6, 2), "float32", [2], [0, -1], (0, 0)),
}
NOT_IN_STRATEGY = {"global_step": np.array([7], np.int32), "extra": np.array([1.5, 2.5], np.float32)}


def full_value(name, shape, dtype):
    offset = sum(ord(c) for c in name) % 50
    return ((np.arange(int(np.prod(shape))).reshape(shape) + offset) / 4 * (4 if dtype == "int32" else 1)).astype(dtype)


def strategy_bytes(pb, layout):
    smap = pb.ParallelStrategyMap()
    smap.current_stage = 0
    item = smap.parallel_strategy_item.add()
    item.node_name = "Default/MatMul-op0"
    item.parallel_strategys.stage = 0
    item.parallel_strategys.parallel_strategy.add().dim.extend([2, 1])
    for name, (_, _, dev, tmap, (step, size)) in layout.items():
        entry = smap.parallel_layout_item.add()
        entry.param_name = name
        lay = entry.parallel_layouts
        lay.dev_matrix.add().dim.extend(dev)
        lay.tensor_map.add().dim.extend(tmap)
        lay.param_split_shape.add()
        lay.indices_offset.add()
        lay.field = 0
        lay.opt_weight_shard_step = step
        lay.opt_weight_shard_size = size
    return smap.SerializeToString()


def rank_slices(ms, load_tensor, layout, rank, bump=0):
    out = {}
    for name, (shape, dtype, dev, tmap, (step, size)) in layout.items():
        full = full_value(name, shape, dtype) + np.asarray(bump, dtype=dtype)
        piece = np.asarray(load_tensor(ms.Tensor(full.astype(np.float32)), dev, tmap, rank_id=rank)).astype(dtype)
        if size:
            per = piece.shape[0] // size
            piece = piece[rank % size * per:(rank % size + 1) * per]
        out[name] = np.ascontiguousarray(piece)
    return out


def write_bf16(path, arrays):
    """A safetensors file of bfloat16 tensors (the upper halves of the float32 values, which are exact here)."""
    header, blobs, offset = {"__metadata__": {"format": "ms"}}, [], 0
    for name in sorted(arrays):
        data = (np.ascontiguousarray(arrays[name], np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": "BF16", "shape": list(arrays[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def describe_folder(folder):
    from safetensors import safe_open

    files = {}
    for fname in sorted(os.listdir(folder)):
        path = os.path.join(folder, fname)
        if fname.endswith(".json"):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            assert text == json.dumps(json.loads(text), indent=4), text  # the map is written with an indent of 4
            files[fname] = {"json": json.loads(text)}
        elif fname.endswith(".safetensors"):
            with safe_open(path, framework="np") as f:
                tensors = {k: {"dtype": str(f.get_tensor(k).dtype), "shape": list(f.get_tensor(k).shape),
                               "values": f.get_tensor(k).reshape(-1).astype(np.float64).tolist()}
                           for k in f.keys()}
                files[fname] = {"metadata": f.metadata(), "tensors": tensors}
        else:
            files[fname] = {"other": True}
    return files


def main():
    import mindspore as ms
    import mindspore.parallel as par
    from mindspore.parallel._tensor import _load_tensor
    from mindspore.train import node_strategy_pb2 as pb
    from safetensors.numpy import save_file

    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    os.chdir(OUT)

    for case, layout in CASES.items():
        os.makedirs(case)
        with open(f"{case}/strategy.ckpt", "wb") as f:
            f.write(strategy_bytes(pb, layout))
        for rank in range(4):
            folder = f"{case}/src/rank_{rank}"
            os.makedirs(folder)
            slices = rank_slices(ms, _load_tensor, layout, rank)
            if case == "mixed4":
                slices.update(NOT_IN_STRATEGY)
                save_file(slices, f"{folder}/net-1_2.safetensors", metadata={"format": "ms"})
                later = rank_slices(ms, _load_tensor, layout, rank, bump=100)
                later.update(NOT_IN_STRATEGY)
                save_file(later, f"{folder}/net-1_4.safetensors", metadata={"format": "ms"})
            elif case == "dedup":
                # each redundancy group keeps one copy: w01 is cut over all 4 ranks; row is held by ranks 0, 2;
                # rep by rank 1 only; global_step by rank 0
                keep = {"w01": {0, 1, 2, 3}, "row": {0, 3}, "rep": {1}}
                slices = {k: v for k, v in slices.items() if rank in keep[k]}
                if rank == 0:
                    slices["global_step"] = NOT_IN_STRATEGY["global_step"]
                save_file(slices, f"{folder}/net.safetensors", metadata={"format": "ms", "remove_redundancy": "True"})
            else:
                save_file(slices, f"{folder}/net.safetensors", metadata={"format": "ms"})

    # bfloat16 slices (written byte by byte: safetensors.numpy has no bfloat16): "w" cut along axis 1 over 2
    # ranks, "v" replicated and sharded along axis 0 by the optimizer
    os.makedirs("bf16")
    with open("bf16/strategy.ckpt", "wb") as f:
        f.write(strategy_bytes(pb, BF16))
    for rank in range(2):
        os.makedirs(f"bf16/src/rank_{rank}")
        slices = rank_slices(ms, _load_tensor, {k: (s, "float32", d, t, o) for k, (s, _, d, t, o) in BF16.items()},
                             rank)
        write_bf16(f"bf16/src/rank_{rank}/net.safetensors", slices)

    # "emb" cut unevenly along axis 0 over 2 ranks (param_split_shape [3, 2])
    os.makedirs("uneven")
    smap = pb.ParallelStrategyMap()
    smap.ParseFromString(strategy_bytes(pb, {"emb": ((5, 2), "float32", [2], [0, -1], (0, 0))}))
    smap.parallel_layout_item[0].parallel_layouts.param_split_shape[0].dim.extend([3, 2])
    with open("uneven/strategy.ckpt", "wb") as f:
        f.write(smap.SerializeToString())
    emb = full_value("emb", (5, 2), "float32")
    for rank, piece in enumerate((emb[:3], emb[3:])):
        os.makedirs(f"uneven/src/rank_{rank}")
        save_file({"emb": np.ascontiguousarray(piece)}, f"uneven/src/rank_{rank}/net.safetensors",
                  metadata={"format": "ms"})
    # the dp layouts as a JSON strategy
    with open("dp/strategy.json", "w", encoding="utf-8") as f:
        json.dump({"current_stage": 0, "parallel_strategy_item": {"Default/MatMul-op0": {"stage": 0}},
                   "parallel_layout_item": {
                       name: {"dev_matrix": dev, "tensor_map": tmap, "field": 0, "opt_weight_shard_step": 0,
                              "opt_weight_shard_size": 0, "param_split_shape": [], "indices_offset": []}
                       for name, (_, _, dev, tmap, _) in CASES["dp"].items()}}, f)

    # the opt case saved with redundancy removed: "w" (4 optimizer shards) kept by every rank, "b" by rank 2 only
    from safetensors.numpy import load_file
    shutil.copytree("opt", "opt_dedup")
    for rank in range(4):
        path = f"opt_dedup/src/rank_{rank}/net.safetensors"
        kept = {k: v for k, v in load_file(path).items() if k != "b" or rank == 2}
        save_file(kept, path, metadata={"format": "ms", "remove_redundancy": "True"})

    # a pipeline-parallel run merged into one strategy file (names prefixed with their stage): 2 stages of 2 ranks;
    # "w" lives in stage 0 (ranks 0, 1), "v" in stage 1 (ranks 2, 3), "emb" is shared by both stages
    os.makedirs("pipeline")
    smap = pb.ParallelStrategyMap()
    smap.current_stage = 0
    for key, (_, _, dev, tmap, _) in PIPELINE.items():
        lay = smap.parallel_layout_item.add(param_name=key).parallel_layouts
        lay.dev_matrix.add().dim.extend(dev)
        lay.tensor_map.add().dim.extend(tmap)
        lay.param_split_shape.add()
        lay.indices_offset.add()
        lay.field, lay.opt_weight_shard_step, lay.opt_weight_shard_size = 0, 0, 0
    with open("pipeline/strategy.ckpt", "wb") as f:
        f.write(smap.SerializeToString())
    for rank in range(4):
        stage, local = divmod(rank, 2)
        os.makedirs(f"pipeline/src/rank_{rank}")
        layout = {k.split("-", 1)[1]: v for k, v in PIPELINE.items() if k.startswith(f"{stage}-")}
        slices = rank_slices(ms, _load_tensor, layout, local)
        slices["step"] = np.array([stage + 1], np.int32)
        save_file(slices, f"pipeline/src/rank_{rank}/net.safetensors", metadata={"format": "ms"})

    # the dp case saved with crc_check=True: every rank file carries its own crc_num
    shutil.copytree("dp", "dp_crc")
    for rank in range(4):
        path = f"dp_crc/src/rank_{rank}/net.safetensors"
        data = load_file(path)
        os.remove(path)
        ms.save_checkpoint([{"name": k, "data": ms.Tensor(v)} for k, v in data.items()], path, format="safetensors",
                           crc_check=True)

    # damaged inputs and odd folders (copies of mixed4 with one thing wrong)
    shutil.copytree("dp", "missing_rank")
    shutil.rmtree("missing_rank/src/rank_1")
    shutil.copytree("dp", "damaged")
    data = open("damaged/src/rank_1/net.safetensors", "rb").read()
    with open("damaged/src/rank_1/net.safetensors", "wb") as f:
        f.write(data[:len(data) // 2])
    shutil.copytree("dp", "with_ckpt")
    with open("with_ckpt/src/rank_0/net.ckpt", "wb") as f:
        f.write(b"")
    ms.save_checkpoint([{"name": "x", "data": ms.Tensor(np.ones(2, np.float32))}], "with_ckpt/src/rank_0/net.ckpt")
    with open("garbage_strategy.ckpt", "wb") as f:
        f.write(b"\xff\xfe not a strategy \x01\x02")

    results = {"mindspore": ms.__version__, "spellings": {}, "calls": []}
    for where in ("mindspore", "mindspore.parallel", "mindspore.train"):
        import importlib
        module = importlib.import_module(where)
        results["spellings"][where] = hasattr(module, "unified_safetensors")

    import math as _math
    import types

    from mindspore.parallel import transform_safetensors as tsf

    def call(key, src, strategy, dst=None, choice_name=None, parts=None, **kwargs):
        # parts: make MindSpore split into that many files (its split is ceil(total bytes / 3 GiB)), by giving its
        # module a math whose ceil answers `parts`
        tsf.math = types.SimpleNamespace(prod=_math.prod, ceil=lambda x: parts) if parts else _math
        folder = tempfile.mkdtemp(prefix="dst", dir=".")
        record = {"key": key, "src": src, "strategy": strategy, "kwargs": {k: v for k, v in kwargs.items()
                                                                         if k != "choice_func"}}
        if choice_name:
            record["choice"] = choice_name
        if parts:
            record["parts"] = parts
        if dst is not None:
            record["dst"] = dst
        try:
            par.unified_safetensors(src, strategy, os.path.relpath(folder) if dst is None else dst, **kwargs)
            record["files"] = describe_folder(folder)
            if key.endswith("crc"):  # can MindSpore load its merged file with its CRC checked?
                try:
                    ms.load_checkpoint(os.path.join(folder, "part0.safetensors"), format="safetensors",
                                       crc_check=True)
                    record["reload_crc_check"] = "loaded"
                except BaseException as exc:  # noqa: BLE001
                    record["reload_crc_check"] = f"{type(exc).__name__}: {exc}"
        except BaseException as exc:  # noqa: BLE001 -- record whatever MindSpore raises
            record["error"] = type(exc).__name__
            record["message"] = str(exc).replace(os.path.realpath(OUT) + os.sep, "").replace(OUT + os.sep, "")
            record["partial"] = sorted(os.listdir(folder))
        shutil.rmtree(folder, ignore_errors=True)
        results["calls"].append(record)
        print(key, {k: v for k, v in record.items() if k != "files"}, sorted(record.get("files", {})))

    def drop_rep(name):
        return name != "rep"

    def rename(name):
        return "model." + name

    def bad(name):
        return None

    one = {"max_process_num": 1}
    call("mixed4", "mixed4/src", "mixed4/strategy.ckpt", **one)
    call("mixed4 file_suffix 1_2", "mixed4/src", "mixed4/strategy.ckpt", file_suffix="1_2", **one)
    call("mixed4 file_suffix -1_4", "mixed4/src", "mixed4/strategy.ckpt", file_suffix="-1_4", **one)
    call("mixed4 file_suffix none match", "mixed4/src", "mixed4/strategy.ckpt", file_suffix="9_9", **one)
    call("mixed4 choice drop rep", "mixed4/src", "mixed4/strategy.ckpt", choice_func=drop_rep,
         choice_name="drop_rep", **one)
    call("mixed4 choice rename", "mixed4/src", "mixed4/strategy.ckpt", choice_func=rename, choice_name="rename", **one)
    call("mixed4 choice bad", "mixed4/src", "mixed4/strategy.ckpt", choice_func=bad, choice_name="bad", **one)
    call("mixed4 split 1 of 2", "mixed4/src", "mixed4/strategy.ckpt", split_dst_file=(1, 2), **one)
    call("mixed4 split 2 of 2", "mixed4/src", "mixed4/strategy.ckpt", split_dst_file=(2, 2), **one)
    call("mixed4 split 1 of 1", "mixed4/src", "mixed4/strategy.ckpt", split_dst_file=(1, 1), **one)
    call("mixed4 no redundancy flag", "mixed4/src", "mixed4/strategy.ckpt", merge_with_redundancy=False, **one)
    call("mixed4 three parts", "mixed4/src", "mixed4/strategy.ckpt", parts=3, **one)
    call("mixed4 three parts, task 1 of 2", "mixed4/src", "mixed4/strategy.ckpt", parts=3, split_dst_file=(1, 2),
         **one)
    call("mixed4 three parts, task 2 of 2", "mixed4/src", "mixed4/strategy.ckpt", parts=3, split_dst_file=(2, 2),
         **one)
    call("mixed4 three parts, task 3 of 3", "mixed4/src", "mixed4/strategy.ckpt", parts=3, split_dst_file=(3, 3),
         **one)
    call("mixed4 three parts, rename", "mixed4/src", "mixed4/strategy.ckpt", parts=3, choice_func=rename,
         choice_name="rename", **one)
    call("bf16", "bf16/src", "bf16/strategy.ckpt", **one)
    call("dp", "dp/src", "dp/strategy.ckpt", **one)
    call("uneven", "uneven/src", "uneven/strategy.ckpt", **one)
    call("dp json strategy", "dp/src", "dp/strategy.json", **one)
    call("dp default processes", "dp/src", "dp/strategy.ckpt")
    call("opt", "opt/src", "opt/strategy.ckpt", **one)
    call("opt merge_with_redundancy False", "opt/src", "opt/strategy.ckpt", merge_with_redundancy=False, **one)
    call("opt dedup", "opt_dedup/src", "opt_dedup/strategy.ckpt", merge_with_redundancy=False, **one)
    call("pipeline", "pipeline/src", "pipeline/strategy.ckpt", **one)
    call("pipeline merge_with_redundancy False", "pipeline/src", "pipeline/strategy.ckpt", merge_with_redundancy=False,
         **one)
    call("dp crc", "dp_crc/src", "dp_crc/strategy.ckpt", **one)
    call("dp merge_with_redundancy False", "dp/src", "dp/strategy.ckpt", merge_with_redundancy=False, **one)
    call("dedup", "dedup/src", "dedup/strategy.ckpt", **one)
    call("dedup merge_with_redundancy False", "dedup/src", "dedup/strategy.ckpt", merge_with_redundancy=False, **one)
    call("missing rank", "missing_rank/src", "missing_rank/strategy.ckpt", **one)
    call("damaged rank file", "damaged/src", "damaged/strategy.ckpt", **one)
    call("ckpt and safetensors", "with_ckpt/src", "with_ckpt/strategy.ckpt", **one)
    call("src_dir a file", "dp/strategy.ckpt", "dp/strategy.ckpt", **one)
    call("src_dir missing", "nowhere/src", "dp/strategy.ckpt", **one)
    call("strategy folder missing", "dp/src", "nowhere/strategy.ckpt", **one)
    call("strategy missing file", "dp/src", "dp/missing.ckpt", **one)
    call("strategy garbage", "dp/src", "garbage_strategy.ckpt", **one)
    call("strategy not str", "dp/src", 3, **one)
    call("dst not str", "dp/src", "dp/strategy.ckpt", dst=5, **one)
    call("dst blank", "dp/src", "dp/strategy.ckpt", dst="  ", **one)
    call("dst a file", "dp/src", "dp/strategy.ckpt", dst="dp/strategy.ckpt", **one)

    for name in sorted(os.listdir(".")):
        if name.startswith("dst"):
            shutil.rmtree(name, ignore_errors=True)
    with open("results.json", "w", encoding="utf-8") as f:
        json.dump(results, f, indent=None, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    sys.exit(main())
