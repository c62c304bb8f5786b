"""Whole ("unified") safetensors files from the per-rank safetensors files of a parallel run.

A parallel MindSpore run that saves safetensors leaves ``src_dir/rank_<r>/*.safetensors``, each holding rank r's
slice of every parameter, and a strategy file saying how each parameter was cut.
:func:`unified_safetensors` puts every parameter back together (the same merge as
:func:`~cellkit.load_distributed_checkpoint`) and writes, into ``dst_dir``:

* ``part<i>.safetensors`` -- the whole parameters, spread over files of at most about 3 GiB each, the largest
  parameters placed first, each into the part holding the fewest bytes so far;
* ``param_name_map.json`` -- ``{"metadata": {"total_size": bytes}, "weight_map": {name: "part<i>.safetensors"}}``;
* ``hyper_param.safetensors`` -- what rank 0's file holds besides those parameters (step counters, learning
  rates, ``accu_grads.*``, names the strategy lacks), copied as they are.

That folder is what ``load_distributed_checkpoint(..., format='safetensors')`` reads.  Everything runs in this
process: ``max_process_num`` only bounds how many parts MindSpore would write side by side.
"""
from __future__ import annotations

import glob
import json
import math
import os
import re
import stat
import warnings

from .distributed import _UniqueLayout, _ranks_of_distinct_slices, _replica_groups, _slices_to_merge, _unique_layout
from .strategy_format import layout_lists, read_strategy

__all__ = ["unified_safetensors"]

_FUNC = "unified_safetensors"
_PREFIX = f"For '{_FUNC}'"
# MindSpore's target size of one part file: 3 GiB
_PART_BYTES = 3 * 1024 ** 3
# bytes per element by NumPy dtype name; anything else counts 4, as in MindSpore
_ITEM_BYTES = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8,
               "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


# ------------------------------------------------------------------ argument checks
def _check_args(src_dir, src_strategy_file, dst_dir, merge_with_redundancy, file_suffix, max_process_num,
                choice_func, split_dst_file):
    if not isinstance(src_strategy_file, str):
        raise TypeError(f"{_PREFIX}, the argument 'src_strategy_file' should be str, but got "
                        f"{type(src_strategy_file)}.")
    folder = os.path.dirname(src_strategy_file)
    if folder and not os.path.exists(folder):
        raise ValueError(f"{_PREFIX}, the folder of 'src_strategy_file' ({folder!r}) does not exist.")
    if not isinstance(dst_dir, str):
        raise TypeError(f"{_PREFIX}, the argument 'dst_dir' should be str, but got {type(dst_dir)}.")
    if not dst_dir.strip():
        raise ValueError(f"{_PREFIX}, the argument 'dst_dir' should name a folder, but got the blank {dst_dir!r}.")
    if os.path.exists(dst_dir) and not os.path.isdir(dst_dir):
        raise NotADirectoryError(f"{_PREFIX}, 'dst_dir' ({dst_dir!r}) is a file; it should be a folder.")
    if not isinstance(src_dir, str):
        raise TypeError(f"{_PREFIX}, the argument 'src_dir' should be str, but got {type(src_dir)}.")
    if os.path.isfile(src_dir):
        raise ValueError(f"{_PREFIX}, 'src_dir' ({src_dir!r}) is a file; it should be the folder holding "
                         "rank_0, rank_1, ...")
    if not os.path.isdir(src_dir):
        raise ValueError(f"{_PREFIX}, 'src_dir' should be an existing folder holding rank_0, rank_1, ..., but "
                         f"got {src_dir!r}.")
    if not isinstance(merge_with_redundancy, bool):
        raise TypeError(f"{_PREFIX}, the argument 'merge_with_redundancy' should be bool, but got "
                        f"{type(merge_with_redundancy)}.")
    if file_suffix is not None and not isinstance(file_suffix, str):
        raise TypeError(f"{_PREFIX}, the argument 'file_suffix' should be str or None, but got {type(file_suffix)}.")
    if isinstance(max_process_num, bool) or not isinstance(max_process_num, int):
        raise TypeError(f"{_PREFIX}, the argument 'max_process_num' should be int, but got {type(max_process_num)}.")
    if max_process_num < 1:
        raise ValueError(f"{_PREFIX}, the argument 'max_process_num' should be at least 1, but got "
                         f"{max_process_num}.")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"{_PREFIX}, the argument 'choice_func' should be callable or None, but got "
                        f"{type(choice_func)}.")
    if not isinstance(split_dst_file, (tuple, list)):
        raise TypeError(f"{_PREFIX}, the argument 'split_dst_file' should be a tuple (current task, number of "
                        f"tasks) or (), but got {type(split_dst_file)}.")
    if split_dst_file:
        ok = len(split_dst_file) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in split_dst_file)
        if not ok or not 1 <= split_dst_file[0] <= split_dst_file[1]:
            raise ValueError(f"{_PREFIX}, 'split_dst_file' should be (current task, number of tasks) with "
                             f"1 <= current task <= number of tasks, but got {tuple(split_dst_file)!r}.")


# ------------------------------------------------------------------ finding each rank's file
def _numbers(text):
    return [int(n) for n in re.findall(r"\d+", text)]


def _pick_by_suffix(candidates, file_suffix, ext, folder):
    """The one file of ``candidates`` that ``file_suffix`` means, following MindSpore's naming rules.

    A suffix of digits alone is a step (``_<step>``), ``<epoch>_<step>`` or ``-<epoch>_<step>`` an epoch and step,
    ``<task>-<epoch>_<step>`` or ``_<task>-<epoch>_<step>`` all three; several matches keep the shortest name.
    """
    if re.fullmatch(r"_?\d+-\d+_\d+", file_suffix):
        wanted = file_suffix if file_suffix.startswith("_") else "_" + file_suffix
        found = [c for c in candidates if c.endswith(f"{wanted}.{ext}") and not c.endswith(f"rank{wanted}.{ext}")]
    elif re.fullmatch(r"-?\d+_\d+", file_suffix):
        wanted = file_suffix if file_suffix.startswith("-") else "-" + file_suffix
        found = [c for c in candidates if c.endswith(f"{wanted}.{ext}")]
    elif re.fullmatch(r"_?\d+", file_suffix):
        wanted = file_suffix if file_suffix.startswith("_") else "_" + file_suffix
        found = [c for c in candidates if c.endswith(f"{wanted}.{ext}")]
    else:
        raise ValueError(f"{_PREFIX}, {folder!r} holds several {ext} files ending with {file_suffix!r} "
                         f"({sorted(os.path.basename(c) for c in candidates)}); give the longest suffix they share "
                         "as 'file_suffix' so that one file is meant.")
    if found:
        shortest = min(len(os.path.basename(c)) for c in found)
        found = [c for c in found if len(os.path.basename(c)) == shortest]
    if len(found) != 1:
        raise ValueError(f"{_PREFIX}, {folder!r} holds several {ext} files ending with {file_suffix!r} "
                         f"({sorted(os.path.basename(c) for c in candidates)}); looking for names ending with "
                         f"'{wanted}.{ext}' found {len(found)} of the shortest length. Give the longest suffix they "
                         "share as 'file_suffix'.")
    return found[0]


def _rank_files(src_dir, ext, file_suffix=None):
    """``{rank: file}`` from ``src_dir/rank_<r>/``: the one file of each rank folder ``file_suffix`` picks."""
    files = {}
    for folder in sorted(glob.glob(os.path.join(glob.escape(src_dir), "rank_[0-9]*"))):
        tail = folder.rsplit("rank_", 1)[-1]
        if not os.path.isdir(folder) or not tail.isdigit():
            continue
        pattern = f"*.{ext}" if file_suffix is None else f"*{glob.escape(file_suffix)}.{ext}"
        candidates = sorted(glob.glob(os.path.join(glob.escape(folder), pattern)))
        if not candidates:
            if file_suffix is not None:
                raise ValueError(f"{_PREFIX}, the folder {folder!r} holds no {ext} file ending with "
                                 f"'{file_suffix}.{ext}'; check 'file_suffix' (the longest suffix the files of "
                                 "every rank share).")
            continue
        if len(candidates) == 1:
            files[int(tail)] = candidates[0]
        elif file_suffix is None:  # the latest: the largest (epoch, step) by the last two numbers of the name
            files[int(tail)] = max(candidates, key=lambda c: _numbers(c)[-2:])
        else:
            files[int(tail)] = _pick_by_suffix(candidates, file_suffix, ext, folder)
    return files


def _read_rank_file(path):
    """``({name: host array}, metadata)`` of one safetensors file, read by cellkit's checked reader."""
    from .safetensors_format import FormatError, read

    with open(path, "rb") as f:
        content = f.read()
    try:
        entries, metadata = read(content)
    except FormatError as exc:
        raise ValueError(f"{_PREFIX}, the safetensors file {path!r} cannot be read: {exc}.") from None
    return dict(entries), dict(metadata or {})


# ------------------------------------------------------------------ writing
def _write_atomically(path, arrays, metadata):
    """Write a safetensors file under a temporary name, then rename it over ``path`` (read-only, as MindSpore)."""
    from .safetensors_format import write

    tmp = path[:-len(".safetensors")] + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    write(tmp, arrays, metadata)
    os.replace(tmp, path)
    os.chmod(path, stat.S_IRUSR)


def _split_by_size(sizes, parts):
    """Names spread over ``parts`` lists: largest first, each into the list holding the fewest bytes."""
    groups, totals = [[] for _ in range(parts)], [0] * parts
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        index = totals.index(min(totals))
        groups[index].append(name)
        totals[index] += size
    return groups


def _whole_shape(slice_shape, entry):
    dev_matrix, tensor_map, split_shape, _, _, opt_size = entry
    shape = [s * (dev_matrix[-1 - t] if t != -1 else 1) for s, t in zip(slice_shape, tensor_map)]
    if shape and opt_size > 0:
        shape[0] *= opt_size
    if shape and split_shape:
        shape[0] = sum(split_shape)
    return shape


def unified_safetensors(src_dir, src_strategy_file, dst_dir, merge_with_redundancy=True, file_suffix=None,
                        max_process_num=64, choice_func=None, split_dst_file=()):
    """Merge the per-rank safetensors files of a parallel run into whole parameters in ``dst_dir``.

    Each rank's file is taken from ``src_dir/rank_<r>/``; the strategy file says how every parameter was cut,
    and each is put back together from the ranks holding distinct slices (with the optimizer's own shards).
    ``dst_dir`` then holds ``part<i>.safetensors`` files (about 3 GiB at most each),
    ``param_name_map.json`` (which part holds which name, and their total bytes) and, when rank 0's file holds
    names that are not merged (step counters, ``accu_grads.*``, names the strategy lacks),
    ``hyper_param.safetensors`` with those as they are.  Load the folder with
    ``load_distributed_checkpoint(net, format='safetensors', unified_safetensors_dir=dst_dir)``.

    Parameters
    ----------
    src_dir : str
        The folder holding ``rank_0``, ``rank_1``, ... with one ``.safetensors`` file each (several: the
        latest by epoch and step, or the one ``file_suffix`` picks).
    src_strategy_file : str
        The run's strategy file (protobuf, or JSON when its name ends in ``.json``).  A pipeline-parallel run's
        merged strategy (names prefixed with their stage, ``"1-fc.weight"``) works too: stage s's parameters are
        read from the files of ranks ``s * n`` to ``s * n + n - 1`` (n ranks per stage).
    dst_dir : str
        The folder to write (made when missing).
    merge_with_redundancy : bool
        True: every rank's file holds all of its slices.  False: the files were saved with redundancy removed
        (each copy of a slice kept by one rank of the ranks sharing it), so a slice is taken from whichever of
        those ranks holds it.  A file whose metadata says ``remove_redundancy`` overrides it.
    file_suffix : str, optional
        Merge the files whose names end with ``<file_suffix>.safetensors`` (e.g. ``"1_10"``: epoch 1, step 10).
    max_process_num : int
        At least 1; accepted for MindSpore's signature, the work is done in this process.
    choice_func : callable, optional
        Called with each parameter name: False leaves it out of the parts (it then lands in
        ``hyper_param.safetensors`` with rank 0's value), True keeps it, a str renames it.
    split_dst_file : tuple
        ``(k, n)``: do the k-th of n shares of the parts (1-based), e.g. on n machines; only ``k == 1`` writes
        ``param_name_map.json`` and ``hyper_param.safetensors``.  ``()``: all of it.

    Raises
    ------
    TypeError
        An argument of the wrong type; a strategy file that does not parse (StrategyFileError, also a
        ValueError).
    ValueError
        ``src_dir`` a file; a rank file the strategy needs missing; both ``.ckpt`` and ``.safetensors`` files in
        the rank folders; a damaged safetensors or strategy file; slices that do not fit the strategy; layouts
        over different numbers of ranks; ``choice_func`` returning neither bool nor str, or giving two
        parameters one name; none of the strategy's parameters in the files.
    NotADirectoryError
        ``dst_dir`` is a file.

    Examples
    --------
    Two ranks each saved half of ``w`` (cut along axis 0); the strategy is given as JSON here:

    >>> import json, os, tempfile
    >>> import numpy as np
    >>> from safetensors.numpy import save_file
    >>> import cellkit as ms
    >>> folder = tempfile.mkdtemp()
    >>> layout = {"dev_matrix": [2], "tensor_map": [0, -1], "field": 0, "opt_weight_shard_step": 0,
    ...           "opt_weight_shard_size": 0}
    >>> with open(os.path.join(folder, "strategy.json"), "w") as f:
    ...     json.dump({"parallel_layout_item": {"w": layout}}, f)
    >>> for rank in range(2):
    ...     os.makedirs(os.path.join(folder, "src", f"rank_{rank}"))
    ...     save_file({"w": np.full((1, 3), rank, np.float32), "step": np.array([5], np.int32)},
    ...               os.path.join(folder, "src", f"rank_{rank}", "net.safetensors"))
    >>> dst = os.path.join(folder, "whole")
    >>> ms.unified_safetensors(os.path.join(folder, "src"), os.path.join(folder, "strategy.json"), dst)
    >>> sorted(os.listdir(dst))
    ['hyper_param.safetensors', 'param_name_map.json', 'part0.safetensors']
    >>> print(ms.load_checkpoint(os.path.join(dst, "part0.safetensors"), format="safetensors")["w"].asnumpy())
    [[0. 0. 0.]
     [1. 1. 1.]]
    """
    from ..parameter import Parameter
    from ..tensor import Tensor
    from .convert import merge_sliced_parameter

    _check_args(src_dir, src_strategy_file, dst_dir, merge_with_redundancy, file_suffix, max_process_num,
                choice_func, split_dst_file)
    os.makedirs(dst_dir, mode=0o700, exist_ok=True)
    files = _rank_files(src_dir, "safetensors", file_suffix)
    if files and _rank_files(src_dir, "ckpt"):
        raise ValueError(f"{_PREFIX}, the rank folders of 'src_dir' ({src_dir!r}) hold both .ckpt and "
                         ".safetensors files; merge one format at a time.")
    strategy = read_strategy(src_strategy_file, _FUNC, "src_strategy_file")
    if not strategy:
        raise ValueError(f"{_PREFIX}, the strategy file {src_strategy_file!r} describes no parameter.")
    # a pipeline-parallel run's merged strategy names each parameter "<stage>-<name>"; stage s's ranks are
    # s * stage_ranks ... (s + 1) * stage_ranks - 1 (a name in several stages: the lowest stage's copy is read)
    lists, stages = {}, {}
    for key, layout in strategy.items():
        match = re.fullmatch(r"(\d+)-(.+)", key, re.S)
        stage, name = (int(match[1]), match[2]) if match else (0, key)
        entry = layout_lists(name, layout, _FUNC)
        if name not in lists or stage < stages[name]:
            lists[name], stages[name] = entry, stage
    stage_ranks = math.prod(next(iter(lists.values()))[0])
    for name, entry in lists.items():
        if math.prod(entry[0]) != stage_ranks:
            raise ValueError(f"{_PREFIX}, the layouts of {src_strategy_file!r} spread parameters over different "
                             f"numbers of ranks ('{name}': {math.prod(entry[0])}, dev_matrix {entry[0]}; the first "
                             f"layout: {stage_ranks}); the layouts of one run should share one device count.")

    # the ranks whose files hold a distinct slice of some parameter
    needed = set()
    for name, (dev_matrix, tensor_map, _, _, opt_step, opt_size) in lists.items():
        local = range(stage_ranks) if opt_size else _ranks_of_distinct_slices(dev_matrix, tensor_map)
        needed.update(stages[name] * stage_ranks + r for r in local)
    for rank in sorted(needed):
        if rank not in files:
            hint = ""
            if not files and _rank_files(src_dir, "ckpt"):
                hint = " (the rank folders hold .ckpt files: convert them with ckpt_to_safetensors first)"
            raise ValueError(f"{_PREFIX}, the strategy needs the safetensors file of rank {rank}, but folder "
                             f"'rank_{rank}' of 'src_dir' {src_dir!r} holds none{hint}.")

    contents, metadata = {}, {}
    for rank in sorted(files):
        contents[rank], metadata[rank] = _read_rank_file(files[rank])
        flag = metadata[rank].get("remove_redundancy")
        if flag in ("True", "False") and (flag == "True") == merge_with_redundancy:
            # the file says how it was saved: that wins over the argument
            merge_with_redundancy = flag == "False"
            warnings.warn(f"{_PREFIX}, {files[rank]!r} says it was saved with remove_redundancy={flag}, so the "
                          f"files are merged with merge_with_redundancy={merge_with_redundancy}.", stacklevel=2)

    present = set().union(*contents.values()) if contents else set()
    names = sorted(n for n in present & set(lists) if not n.startswith("accu_grads"))
    renamed = {}
    for name in list(names):
        if choice_func is None:
            continue
        choice = choice_func(name)
        if not isinstance(choice, (bool, str)):
            raise ValueError(f"{_PREFIX}, 'choice_func' should return a bool or a str, but for '{name}' it "
                             f"returned {type(choice)}.")
        if choice is False:
            names.remove(name)
        elif isinstance(choice, str):
            renamed[name] = choice
    final = {}
    for name in names:
        other = final.setdefault(renamed.get(name, name), name)
        if other != name:
            raise ValueError(f"{_PREFIX}, 'choice_func' gives '{other}' and '{name}' the same name "
                             f"'{renamed.get(name, name)}'; each merged parameter needs a name of its own.")
    if not names:
        raise ValueError(f"{_PREFIX}, none of the parameters of {src_strategy_file!r} is in the safetensors files "
                         f"of {src_dir!r} (after 'choice_func'); there is nothing to merge.")

    sizes = {}
    for name in names:
        first = next(contents[r][name] for r in sorted(contents) if name in contents[r])
        shape = _whole_shape(first.shape, lists[name])
        sizes[name] = math.prod(shape) * _ITEM_BYTES.get(str(first.dtype), 4)
    total = sum(sizes.values())
    parts = _split_by_size(sizes, min(math.ceil(total / _PART_BYTES), len(names)))
    if split_dst_file:
        task, tasks = split_dst_file
        share, extra = divmod(len(parts), tasks)
        start = share * (task - 1) + min(task - 1, extra)
        mine = range(start, start + share + (1 if task <= extra else 0))
    else:
        mine = range(len(parts))
    first_task = not split_dst_file or split_dst_file[0] == 1

    # the slices of each parameter, one per rank of its stage's grid: with redundancy removed, from any rank
    # holding the same values
    slices_of = {}
    for name in (n for part in (parts[i] for i in mine) for n in part):
        dev_matrix, tensor_map, _, _, opt_step, opt_size = lists[name]
        offset = stages[name] * stage_ranks
        local = slices_of[name] = [None] * stage_ranks
        if merge_with_redundancy:
            groups = [(r,) for r in range(stage_ranks)]
        else:
            try:
                groups = _replica_groups(dev_matrix, tensor_map, opt_step, opt_size, name, src_strategy_file)
            except ValueError as exc:
                raise ValueError(str(exc).replace("For 'get_ckpt_path_with_strategy'", _PREFIX)) from None
        for group in groups:
            holder = next((offset + r for r in group if name in contents.get(offset + r, {})), None)
            for rank in group:
                if holder is not None:
                    local[rank] = contents[holder][name]
                elif not merge_with_redundancy and offset + rank in needed:
                    raise ValueError(f"{_PREFIX}, none of the ranks {[offset + r for r in group]} holding the same "
                                     f"slice of '{name}' has it in its safetensors file.")

    for index in mine:
        merged = {}
        for name in parts[index]:
            entry, local = lists[name], slices_of[name]
            dtypes = {str(a.dtype) for a in local if a is not None}
            if len(dtypes) > 1:
                raise ValueError(f"{_PREFIX}, the slices of '{name}' in the rank files have different dtypes "
                                 f"({sorted(dtypes)}); the slices of one parameter should share one dtype.")
            dtype = next(a.dtype for a in local if a is not None)
            wrapped = [{name: Parameter(Tensor(a), name=name)} if a is not None else {} for a in local]
            offset = stages[name] * stage_ranks
            rank_names = [files.get(offset + r, os.path.join(src_dir, f"rank_{offset + r}"))
                          for r in range(stage_ranks)]
            try:
                sliced = _slices_to_merge(name, entry, wrapped, rank_names)
                layout = _UniqueLayout(_unique_layout(entry[0], entry[1]), entry[1], entry[2], entry[3])
                whole = merge_sliced_parameter(list(sliced), {name: layout})
            except ValueError as exc:
                raise ValueError(str(exc).replace("For 'load_distributed_checkpoint'", _PREFIX)
                                 .replace("For 'merge_sliced_parameter'", _PREFIX)) from None
            # the optimizer's shards of a bfloat16 parameter are joined in float32: back to the files' dtype
            merged[renamed.get(name, name)] = whole.asnumpy().astype(dtype, copy=False)
        used = [metadata[r] for r in sorted(files) if merge_with_redundancy is False or r in needed]
        meta = {"format": "ms"}
        for m in used:
            meta.update(m)
        if "remove_redundancy" in meta:
            meta["remove_redundancy"] = "False"
        meta.pop("crc_num", None)  # a rank file's checksum does not hold for the merged file
        if merged:
            _write_atomically(os.path.join(dst_dir, f"part{index}.safetensors"), merged, meta)

    if first_task:
        hyper = {k: v for k, v in contents.get(0, {}).items() if k not in names}
        if hyper:
            _write_atomically(os.path.join(dst_dir, "hyper_param.safetensors"), hyper, {"format": "ms"})
        weight_map = {renamed.get(name, name): f"part{index}.safetensors"
                      for index, part in enumerate(parts) for name in part}
        text = json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=4)
        tmp = os.path.join(dst_dir, "param_name_map.json.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(dst_dir, "param_name_map.json"))
